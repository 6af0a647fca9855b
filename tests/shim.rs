//! The HIP shim library, built with gcc and no target SDK, executed against a recording stub
//! runtime: its launch path reaches `hipLaunchKernel` unchanged; `cudaGetDeviceProperties_v2`
//! fills the CUDA 12.9 layout from HIP's 1472-byte struct; device attributes, error codes,
//! cuBLAS operations and status are translated by the tables' values; driver entry points are
//! found by their CUDA names; SASS-only modules are skipped by registration.
//!
//! Layout oracle: gcc. The generated structs are compiled and their `offsetof`/`sizeof`
//! compared with the offsets in the tables (gcc on CUDA 12.9's `driver_types.h` for CUDA, the
//! compiled rocm-bindings-hip for HIP) and, when CUDA 12.9's headers are installed
//! (`WHEELPORT_CUDA12_INCLUDE`, set by `.ci/run`), with `offsetof` on the real header.

mod common;

use common::*;
use std::path::Path;
use std::process::Command;
use wheelport::relink::{load_builtin, Kind};
use wheelport::shim::tables;

const RECORDING_RUNTIME: &str = r#"
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "wheelport_shim_tables.h"
typedef struct { unsigned int x, y, z; } dim3;
static const void *k; static dim3 g, b; static void **a; static size_t s; static void *st; static int spt;
int hipLaunchKernel(const void *f, dim3 grid, dim3 block, void **args, size_t shmem, void *stream) {
    k = f; g = grid; b = block; a = args; s = shmem; st = stream; spt = 0; return 0;
}
int hipLaunchKernel_spt(const void *f, dim3 grid, dim3 block, void **args, size_t shmem, void *stream) {
    int r = hipLaunchKernel(f, grid, block, args, shmem, stream); spt = 1; return r;
}
static long rec[9];
/* HIP fills its struct: every byte i is (i * 7 + 3) & 255, then a few named fields. */
int hipGetDevicePropertiesR0600(struct wp_hipDeviceProp *p, int device) {
    if (device != 0) return 101; /* hipErrorInvalidDevice */
    unsigned char *raw = (unsigned char *)p;
    for (size_t i = 0; i < sizeof *p; i++) raw[i] = (unsigned char)((i * 7 + 3) & 255);
    strcpy(p->name, "Hygon DCU K100");
    p->multiProcessorCount = 120; p->warpSize = 64; p->major = 9; p->minor = 6;
    p->totalGlobalMem = (size_t)64 << 30; p->sharedMemPerBlock = 65536;
    p->maxThreadsDim[2] = 1024; p->unifiedFunctionPointers = 77; p->reserved[62] = 88;
    return 0;
}
int hipDeviceGetAttribute(int *v, int attr, int device) { rec[0] = attr; *v = attr * 10 + device; return 0; }
const char *hipGetErrorString(int e) { static char m[32]; m[0] = 'S'; m[1] = 0; rec[1] = e; return m; }
const char *hipGetErrorName(int e) { static char m[32]; m[0] = 'N'; m[1] = 0; rec[1] = e; return m; }
static int last_error;
int hipGetLastError(void) { return last_error; }
int hipPeekAtLastError(void) { return last_error; }
void set_last_error(int e) { last_error = e; }
static void *module[1];
void **__hipRegisterFatBinary(const void *w) { rec[2]++; return module; }
void __hipUnregisterFatBinary(void **h) { rec[3]++; }
void __hipRegisterFunction(void **h, const char *hf, char *df, const char *dn, unsigned t, void *tid, void *bid, dim3 *bd, dim3 *gd, int *ws) { rec[4]++; }
void __hipRegisterVar(void **h, char *hv, char *da, const char *dn, int ext, size_t size, int c, int gl) { rec[5]++; }
int hipMalloc(void **p, size_t n) { *p = (void *)0x1000; return (int)n; }
int hipblasHgemm(void *h, int ta, int tb, int m, int n, int k, const uint16_t *al, const uint16_t *A, int lda,
                 const uint16_t *B, int ldb, const uint16_t *be, uint16_t *C, int ldc) {
    rec[6] = ta * 1000 + tb; rec[7] = m + n + k + lda + ldb + ldc; return 3; /* HIPBLAS_STATUS_INVALID_VALUE */
}
unsigned long last(int i) {
    switch (i) {
    case 0: return (unsigned long)k; case 1: return g.x * 10000 + g.y * 100 + g.z;
    case 2: return b.x * 10000 + b.y * 100 + b.z; case 3: return (unsigned long)a;
    case 4: return s; case 5: return (unsigned long)st; default: return spt;
    }
}
long recorded(int i) { return rec[i]; }
/* Entry points the shim resolves at first use. */
int hipChooseDeviceR0600(int *dev, const struct wp_hipDeviceProp *p) {
    rec[0] = p->major * 100 + p->minor; rec[1] = p->multiProcessorCount; rec[2] = p->totalGlobalMem >> 20;
    *dev = 5; return 0;
}
/* HIP fills its struct: every byte i is (i * 5 + 1) & 255. */
int hipFuncGetAttributes(struct wp_hipFuncAttributes *a, const void *f) {
    if (!f) return 98; /* hipErrorInvalidDeviceFunction */
    unsigned char *raw = (unsigned char *)a;
    for (size_t i = 0; i < sizeof *a; i++) raw[i] = (unsigned char)((i * 5 + 1) & 255);
    return 0;
}
int hipFuncSetAttribute(const void *f, int attr, int value) { rec[3] = attr; rec[4] = value; return 0; }
int hipPointerGetAttributes(struct wp_hipPointerAttribute *a, const void *p) {
    a->type = (int)(long)p; a->device = 3; a->devicePointer = (void *)0xD000; a->hostPointer = (void *)0x4000;
    a->isManaged = 1; a->allocationFlags = 7; return 0;
}
void __hipRegisterManagedVar(void *m, void **ptr, void *init, const char *name, size_t size, unsigned align) {
    int zero = 1;
    for (size_t i = 0; i < size; i++) zero &= ((unsigned char *)init)[i] == 0;
    rec[5] = (long)size * 1000 + align; rec[6] = zero && strcmp(name, "managed_x") == 0; *ptr = (void *)0x5000;
}
/* hipLaunchKernelExC answers hipErrorInvalidClusterSize (1054 in hip_runtime_api.h). */
int hipLaunchKernelExC(const void *cfg, const void *f, void **args) {
    rec[0] = (long)cfg; rec[1] = ((const unsigned *)cfg)[0] * 1000 + ((const unsigned *)cfg)[3];
    /* numAttrs (byte 48) * 100 + the first attribute's id (attrs at byte 40) */
    const unsigned n = ((const unsigned *)cfg)[12];
    rec[8] = n * 100 + (n ? **(const int *const *)((const char *)cfg + 40) : 0);
    return 1054;
}
/* 9 parameters, 3 of them on the stack; answers the code given as `kind`. */
int hipMemcpy2DToArrayAsync(void *dst, size_t w, size_t h, const void *src, size_t sp, size_t width,
                            size_t height, int kind, void *stream) {
    rec[4] = (long)dst * 100000000L + (long)w * 10000000L + (long)h * 1000000L + (long)src * 100000L
           + (long)sp * 10000L + (long)width * 1000L + (long)height * 100L + (long)stream;
    return kind;
}
/* ROCm torch's torch_c10_cuda_check_msg reads the code as hipError_t. */
int torch_c10_cuda_check_msg(int err, const char *file, const char *fn, unsigned line, _Bool da, char **msg) {
    rec[2] = err; rec[3] = line; *msg = 0; return 0;
}
/* torch: c10::hip streams carry DeviceType::HIP (6). */
struct wp_stream { int8_t type, index; int64_t id; };
struct wp_stream _ZN3c103hip19getCurrentHIPStreamEa(int8_t d) { struct wp_stream s = {6, d, 0x1234}; return s; }
struct wp_stream _ZN3c103hip19getDefaultHIPStreamEa(int8_t d) { struct wp_stream s = {6, d, 0}; return s; }
struct wp_stream _ZN3c103hip17getStreamFromPoolEba(_Bool hi, int8_t d) { struct wp_stream s = {6, d, hi ? 0x21 : 0x20}; return s; }
struct wp_stream _ZN3c103hip17getStreamFromPoolEia(int prio, int8_t d) { struct wp_stream s = {6, d, 0x40 + prio}; return s; }
void _ZN3c103hip19setCurrentHIPStreamENS0_9HIPStreamE(struct wp_stream s) { rec[7] = s.type * 10000 + s.index * 1000 + s.id; }
/* The asynchronous allocator: the stream each call is given, in rec[0..2]. */
int hipMallocAsync(void **p, size_t n, void *s) { rec[0] = (long)s; *p = (void *)0x6000; return 0; }
int hipFreeAsync(void *p, void *s) { rec[1] = (long)s; return p == (void *)0x6000 ? 0 : 1; }
int hipMemPrefetchAsync(const void *p, size_t n, int dev, void *s) { rec[2] = (long)s * 100 + dev; rec[3] = (long)n; return 0; }
/* CUDA 13's forms reach these (the arguments each got, in rec[]). */
int hipMemAdvise(const void *p, size_t n, int advice, int dev) { rec[4] = advice * 100 + dev; rec[5] = (long)n; return 0; }
int hipGraphAddDependencies(void *g, const void *from, const void *to, size_t n) { rec[6] = (long)g * 1000 + (long)n; return 0; }
int hipGraphRemoveDependencies(void *g, const void *from, const void *to, size_t n) { rec[6] = -((long)g * 1000 + (long)n); return 0; }
int hipGraphGetEdges(void *g, void **from, void **to, size_t *n) { if (from) { from[0] = (void *)0x11; to[0] = (void *)0x22; } *n = 1; return 0; }
int hipStreamGetCaptureInfo_v2(void *s, int *status, unsigned long long *id, void **graph, const void **deps, size_t *n) {
    rec[7] = (long)s; if (status) *status = 1; if (id) *id = 77; if (n) *n = 2; return 0;
}
int hipStreamUpdateCaptureDependencies(void *s, void *deps, size_t n, unsigned flags) { rec[8] = (long)s * 100 + (long)n * 10 + flags; return 0; }
const struct wp_hipDeviceProp *_ZN2at4cuda26getCurrentDevicePropertiesEv(void) {
    static struct wp_hipDeviceProp p; hipGetDevicePropertiesR0600(&p, 0); return &p;
}
"#;

const DRIVER2: &str = r#"
import ctypes, sys, json, struct
rt = ctypes.CDLL(sys.argv[2], mode=ctypes.RTLD_GLOBAL)
shim = ctypes.CDLL(sys.argv[1])
facts = json.loads(sys.argv[3])
rt.recorded.restype = ctypes.c_long
out = {}
G = 0xEE

# Legacy cudaGetDeviceProperties: the 12.x struct, nothing past it.
size = facts["cuda_size"]
buf = (ctypes.c_ubyte * (size + 64))(*([G] * (size + 64)))
out["legacy"] = shim.wpcuGetDeviceProperties(buf, 0)
raw = bytes(buf)
out["legacy_guard"] = raw[size:] == bytes([G]) * 64
out["legacy_name"] = raw[:raw.index(0)].decode()
out["legacy_sm"] = struct.unpack_from("<i", raw, facts["cuda_off"]["multiProcessorCount"])[0]

# cudaChooseDevice: the CUDA struct reaches HIP in its layout.
prop = (ctypes.c_ubyte * size)()
struct.pack_into("<i", prop, facts["cuda_off"]["major"], 9)
struct.pack_into("<i", prop, facts["cuda_off"]["minor"], 4)
struct.pack_into("<i", prop, facts["cuda_off"]["multiProcessorCount"], 132)
struct.pack_into("<Q", prop, facts["cuda_off"]["totalGlobalMem"], 80 << 30)
dev = ctypes.c_int(-1)
out["choose"] = [shim.wpcuChooseDevice(ctypes.byref(dev), prop), dev.value, rt.recorded(0), rt.recorded(1), rt.recorded(2)]

# cudaFuncGetAttributes: every shared field from HIP's pattern at the HIP offset, the rest 0.
fsize = facts["func_size"]
fa = (ctypes.c_ubyte * (fsize + 32))(*([G] * (fsize + 32)))
out["func_rc"] = [shim.wpcuFuncGetAttributes(fa, ctypes.c_void_p(0x1000)), shim.wpcuFuncGetAttributes(fa, None)]
shim.wpcuFuncGetAttributes(fa, ctypes.c_void_p(0x1000))
raw = bytes(fa)
out["func_guard"] = raw[fsize:] == bytes([G]) * 32
bad, zero = [], []
for name, coff, csize, hoff in facts["func_fields"]:
    want = [((hoff + j) * 5 + 1) & 255 for j in range(csize)] if hoff is not None else [0] * csize
    if list(raw[coff:coff + csize]) != want:
        bad.append(name)
    if hoff is None:
        zero.append(name)
out["func_bad"] = bad
out["func_zero"] = zero

# cudaFuncSetAttribute: attribute numbers translated.
out["set_attr"] = []
for a in facts["func_attrs"]:
    r = shim.wpcuFuncSetAttribute(ctypes.c_void_p(0x1000), a, 4096)
    out["set_attr"].append([r, rt.recorded(3), rt.recorded(4)])
out["set_attr_unknown"] = shim.wpcuFuncSetAttribute(ctypes.c_void_p(0x1000), 99, 1)

# cudaPointerGetAttributes: 24 bytes written, the memory type translated.
psize = facts["ptr_size"]
types = []
for t in facts["hip_memtypes"]:
    pa = (ctypes.c_ubyte * (psize + 16))(*([G] * (psize + 16)))
    assert shim.wpcuPointerGetAttributes(pa, ctypes.c_void_p(t)) == 0
    raw = bytes(pa)
    types.append(struct.unpack_from("<iiQQ", raw, 0))
    out["ptr_guard"] = raw[psize:] == bytes([G]) * 16
out["ptr"] = types

# Managed variables and __cudaInitModule.
hipf = (ctypes.c_uint32 * 6)(0x48495046, 1, 0, 0, 0, 0)
cuda = (ctypes.c_uint32 * 6)(0x466243B1, 1, 0, 0, 0, 0)
shim.__wpcuRegisterFatBinary.restype = ctypes.c_void_p
shim.__wpcuInitModule.restype = ctypes.c_char
h_ok = ctypes.c_void_p(shim.__wpcuRegisterFatBinary(hipf))
h_skip = ctypes.c_void_p(shim.__wpcuRegisterFatBinary(cuda))
managed = []
for n in (24, 4, 64):
    p = ctypes.c_void_p(0)
    shim.__wpcuRegisterManagedVar(h_ok, ctypes.byref(p), b"managed_x", b"managed_x", 0, ctypes.c_size_t(n), 0, 0)
    managed.append([rt.recorded(5), rt.recorded(6), p.value])
p = ctypes.c_void_p(0)
shim.__wpcuRegisterManagedVar(h_skip, ctypes.byref(p), b"managed_x", b"managed_x", 0, ctypes.c_size_t(8), 0, 0)
managed.append([rt.recorded(5), p.value])
out["managed"] = managed
out["init_module"] = [ord(shim.__wpcuInitModule(h_ok)), ord(shim.__wpcuInitModule(h_skip))]

# torch: streams come back typed CUDA (1), go to HIP typed HIP (6).
class Stream(ctypes.Structure):
    _fields_ = [("type", ctypes.c_int8), ("index", ctypes.c_int8), ("id", ctypes.c_int64)]
def fn(name, *args, restype=Stream):
    f = getattr(shim, name); f.restype = restype
    return f(*args)
streams = []
for s in (fn("_ZN3c104wpcu20getCurrentCUDAStreamEa", ctypes.c_int8(2)),
          fn("_ZN3c104wpcu20getDefaultCUDAStreamEa", ctypes.c_int8(1)),
          fn("_ZN3c104wpcu17getStreamFromPoolEba", ctypes.c_bool(True), ctypes.c_int8(3)),
          fn("_ZN3c104wpcu17getStreamFromPoolEia", ctypes.c_int(-1), ctypes.c_int8(0))):
    streams.append([s.type, s.index, s.id])
out["streams"] = streams
fn("_ZN3c104wpcu20setCurrentCUDAStreamENS0_10CUDAStreamE", Stream(1, 2, 0x55), restype=None)
out["set_stream"] = rt.recorded(7)
a = fn("_ZN2at4wpcu26getCurrentDevicePropertiesEv", restype=ctypes.c_void_p)
b = fn("_ZN2at4wpcu26getCurrentDevicePropertiesEv", restype=ctypes.c_void_p)
raw = ctypes.string_at(a, size)
out["torch_props"] = [a == b, raw[:raw.index(0)].decode()] + [struct.unpack_from("<i", raw, facts["cuda_off"][n])[0] for n in ("multiProcessorCount", "warpSize")]
print(json.dumps(out))
"#;

const DRIVER: &str = r#"
import ctypes, sys, json
class dim3(ctypes.Structure):
    _fields_ = [("x", ctypes.c_uint), ("y", ctypes.c_uint), ("z", ctypes.c_uint)]
rt = ctypes.CDLL(sys.argv[2], mode=ctypes.RTLD_GLOBAL)
shim = ctypes.CDLL(sys.argv[1])
facts = json.loads(sys.argv[3])
rt.last.restype = ctypes.c_ulong
rt.recorded.restype = ctypes.c_long
out = {}

# Launch path (CUDA 12.x/13 kernel handles).
host_stub = ctypes.cast(rt.last, ctypes.c_void_p).value
h = ctypes.c_void_p()
assert shim.__wpcuGetKernel(ctypes.byref(h), ctypes.c_void_p(host_stub)) == 0
args = (ctypes.c_void_p * 2)()
shim.__wpcuRegisterFatBinaryEnd(None)
for fn, spt in ((shim.__wpcuLaunchKernel, 0), (shim.__wpcuLaunchKernel_ptsz, 1)):
    assert fn(h, dim3(2, 3, 4), dim3(32, 1, 1), args, ctypes.c_size_t(128), ctypes.c_void_p(0x77)) == 0
    got = [rt.last(i) for i in range(7)]
    want = [host_stub, 20304, 320101, ctypes.addressof(args), 128, 0x77, spt]
    assert got == want, (got, want)

# cudaGetDeviceProperties_v2 into a CUDA-sized buffer with a guard after it.
size = facts["cuda_size"]
buf = (ctypes.c_ubyte * (size + 64))(*([0xEE] * (size + 64)))
assert shim.wpcuGetDeviceProperties_v2(buf, 0) == 0
raw = bytes(buf)
assert raw[size:] == b"\xee" * 64, "wrote past the CUDA struct"
def field(name, fmt):
    import struct
    return struct.unpack_from(fmt, raw, facts["cuda_offsets"][name])[0]
out["name"] = raw[:raw.index(0)].decode()
for n in ("multiProcessorCount", "warpSize", "major", "minor", "unifiedFunctionPointers"):
    out[n] = field(n, "<i")
out["totalGlobalMem"] = field("totalGlobalMem", "<Q")
out["sharedMemPerBlock"] = field("sharedMemPerBlock", "<Q")
out["maxThreadsDim2"] = __import__("struct").unpack_from("<i", raw, facts["cuda_offsets"]["maxThreadsDim"] + 8)[0]
# Every copied field: the CUDA bytes equal HIP's pattern bytes at the HIP offset.
pattern = lambda i: (i * 7 + 3) & 255
named = {"name", "multiProcessorCount", "warpSize", "major", "minor", "totalGlobalMem",
         "sharedMemPerBlock", "maxThreadsDim", "unifiedFunctionPointers", "reserved"}
bad = []
for cname, coff, csize, hoff in facts["copies"]:
    if cname in named:
        continue
    if list(raw[coff:coff + csize]) != [pattern(hoff + j) for j in range(csize)]:
        bad.append(cname)
out["mismatched_fields"] = bad
out["bad_device"] = shim.wpcuGetDeviceProperties_v2(buf, 3)
out["null_prop"] = shim.wpcuGetDeviceProperties_v2(None, 0)

# cudaDeviceGetAttribute: CUDA number in, HIP number to the runtime.
v = ctypes.c_int()
out["attr"] = [shim.wpcuDeviceGetAttribute(ctypes.byref(v), a, 0) for a in facts["attrs"]]
out["attr_seen"] = rt.recorded(0)
out["attr_value"] = v.value
out["attr_unknown"] = shim.wpcuDeviceGetAttribute(ctypes.byref(v), 100000, 0)

# Error codes.
shim.wpcuGetErrorString.restype = ctypes.c_char_p
shim.wpcuGetErrorName.restype = ctypes.c_char_p
seen = []
for e in facts["errors_in"]:
    shim.wpcuGetErrorString(e); seen.append(rt.recorded(1))
    shim.wpcuGetErrorName(e); seen.append(rt.recorded(1))
out["error_to_hip"] = seen
last = []
for e in facts["hip_errors"]:
    rt.set_last_error(e)
    last.append((shim.wpcuGetLastError(), shim.wpcuPeekAtLastError()))
out["error_to_cuda"] = last

# Registration: HIPF registered, CUDA magic skipped (and its later calls are no-ops).
hipf = (ctypes.c_uint32 * 6)(0x48495046, 1, 0, 0, 0, 0)
cuda = (ctypes.c_uint32 * 6)(0x466243B1, 1, 0, 0, 0, 0)
shim.__wpcuRegisterFatBinary.restype = ctypes.c_void_p
for w in (hipf, cuda):
    hnd = ctypes.c_void_p(shim.__wpcuRegisterFatBinary(w))
    shim.__wpcuRegisterFunction(hnd, None, None, None, 0, None, None, None, None, None)
    shim.__wpcuRegisterVar(hnd, None, None, None, 0, ctypes.c_size_t(4), 0, 0)
    shim.__wpcuUnregisterFatBinary(hnd)
out["registered"] = [rt.recorded(i) for i in (2, 3, 4, 5)]

# Driver entry points by CUDA name.
fp = ctypes.c_void_p(); status = ctypes.c_int(-1)
r = shim.wpcuGetDriverEntryPoint(b"cuMemAlloc", ctypes.byref(fp), ctypes.c_ulonglong(0), ctypes.byref(status))
out["driver_found"] = [r, status.value, fp.value == ctypes.cast(rt.hipMalloc, ctypes.c_void_p).value]
r = shim.wpcuGetDriverEntryPointByVersion(b"cuNoSuchThing", ctypes.byref(fp), 12090, ctypes.c_ulonglong(0), ctypes.byref(status))
out["driver_missing"] = [r, status.value, fp.value]

# cublasHgemm: operations to hipBLAS numbers, status back to cuBLAS numbers.
half = ctypes.c_uint16(0x3C00)
out["hgemm"] = shim.wpblasHgemm(None, facts["op_t"], facts["op_n"], 1, 2, 3, ctypes.byref(half), None, 4, None, 5, ctypes.byref(half), None, 6)
out["hgemm_ops"] = rt.recorded(6)
out["hgemm_dims"] = rt.recorded(7)
out["hgemm_bad_op"] = shim.wpblasHgemm(None, 77, 0, 1, 1, 1, None, None, 1, None, 1, None, None, 1)
print(json.dumps(out))
"#;

fn build(dir: &Path) -> Option<(std::path::PathBuf, std::path::PathBuf)> {
    let gcc = require_tool("gcc", "shim")?;
    let shim = wheelport::shim::build_hip_shim(&gcc, "libamdhip64.so.6", dir).unwrap();
    let rt = dir.join("rt");
    std::fs::create_dir_all(&rt).unwrap();
    std::fs::write(rt.join("wheelport_shim_tables.h"), tables::c_header()).unwrap();
    let rt = stub_runtime(dir, "libamdhip64.so.6", RECORDING_RUNTIME);
    Some((shim, rt))
}

fn cuda_offset(name: &str) -> usize {
    let (fields, _) = tables::cuda_device_prop();
    fields
        .iter()
        .find(|f| f.name == name)
        .and_then(|f| f.offset)
        .unwrap()
}

/// gcc's `offsetof`/`sizeof` of the generated structs, one line per field.
fn gcc_layout(
    dir: &Path,
    prelude: &str,
    st: &str,
    fields: &[tables::Field],
) -> Vec<(usize, usize)> {
    let mut c = format!("#include <stdio.h>\n#include <stddef.h>\n{prelude}\nint main(void) {{\n");
    c.push_str(&format!("printf(\"%zu 0\\n\", sizeof({st}));\n"));
    for f in fields {
        c.push_str(&format!(
            "printf(\"%zu %zu\\n\", offsetof({st}, {n}), sizeof((({st} *)0)->{n}));\n",
            n = f.name
        ));
    }
    c.push_str("return 0;\n}\n");
    let src = dir.join("layout.c");
    std::fs::write(&src, c).unwrap();
    let exe = dir.join("layout");
    let (code, _, e) = run(Command::new("gcc")
        .arg("-I")
        .arg(dir)
        .args(std::env::var("WHEELPORT_CUDA12_INCLUDE").map(|i| format!("-I{i}")))
        // crt/host_defines.h (attribute macros only) comes with nvcc, next to its bin/.
        .args(
            find_tool("nvcc")
                .and_then(|n| Some(n.parent()?.parent()?.join("include")))
                .map(|i| format!("-idirafter{}", i.display())),
        )
        .arg("-o")
        .arg(&exe)
        .arg(&src));
    assert_eq!(code, 0, "{e}");
    let (code, out, e) = run(&mut Command::new(&exe));
    assert_eq!(code, 0, "{e}");
    out.lines()
        .map(|l| {
            let (a, b) = l.split_once(' ').unwrap();
            (a.parse().unwrap(), b.parse().unwrap())
        })
        .collect()
}

#[test]
fn device_prop_layouts_match_the_headers() {
    if require_tool("gcc", "shim layout").is_none() {
        return;
    }
    let d = tempfile::tempdir().unwrap();
    let dir = d.path();
    std::fs::write(dir.join("wheelport_shim_tables.h"), tables::c_header()).unwrap();
    let inc = "#include \"wheelport_shim_tables.h\"";
    // CUDA: every offset of the table (gcc on CUDA 12.9's driver_types.h) equals gcc's offset
    // in the generated struct; the size is 1032.
    let (cuda, cuda_size) = tables::cuda_device_prop();
    assert_eq!(cuda_size, 1032);
    assert_eq!(cuda.len(), 94);
    let got = gcc_layout(dir, inc, "struct wp_cudaDeviceProp", &cuda);
    assert_eq!(got[0].0, 1032);
    for (f, (off, _)) in cuda.iter().zip(&got[1..]) {
        assert_eq!(Some(*off), f.offset, "cudaDeviceProp.{}", f.name);
    }
    // HIP: sizeof 1472 (the binding's c_sizeof), and every offset the binding measured.
    let (hip, hip_size) = tables::hip_device_prop();
    assert_eq!(hip_size, 1472);
    let got = gcc_layout(dir, inc, "struct wp_hipDeviceProp", &hip);
    assert_eq!(got[0].0, 1472);
    let mut measured = 0;
    for (f, (off, _)) in hip.iter().zip(&got[1..]) {
        if let Some(m) = f.offset {
            assert_eq!(*off, m, "hipDeviceProp_tR0600.{}", f.name);
            measured += 1;
        }
    }
    assert_eq!(measured, 84, "HIP offsets measured by the binding");
    // Spot values of the headers: multiProcessorCount at 388 in both, gcnArchName at 1160.
    assert_eq!(cuda_offset("multiProcessorCount"), 388);
    let hip_off = |n: &str| {
        let i = hip.iter().position(|f| f.name == n).unwrap();
        got[i + 1].0
    };
    assert_eq!(hip_off("multiProcessorCount"), 388);
    assert_eq!(hip_off("gcnArchName"), 1160);
    // The real CUDA 12.9 header, when installed: offsetof on it equals the table.
    match std::env::var("WHEELPORT_CUDA12_INCLUDE") {
        Ok(_) => {
            let real = gcc_layout(
                dir,
                "#include <driver_types.h>",
                "struct cudaDeviceProp",
                &cuda,
            );
            assert_eq!(real[0].0, 1032);
            for (f, (off, size)) in cuda.iter().zip(&real[1..]) {
                assert_eq!(
                    Some(*off),
                    f.offset,
                    "driver_types.h cudaDeviceProp.{}",
                    f.name
                );
                assert!(*size > 0);
            }
        }
        Err(_) if std::env::var("CI").is_ok() => {
            panic!("CI: WHEELPORT_CUDA12_INCLUDE is not set (.ci/run installs CUDA 12.9's headers)")
        }
        Err(_) => eprintln!("SKIP (real header check): WHEELPORT_CUDA12_INCLUDE not set"),
    }
}

#[test]
fn shim_translates_against_a_recording_runtime() {
    let d = tempfile::tempdir().unwrap();
    let Some((shim, rt)) = build(d.path()) else {
        return;
    };
    let (_, dynamic, _) = run(Command::new("readelf").arg("-d").arg(&shim));
    assert!(
        dynamic.contains("Shared library: [libamdhip64.so.6]"),
        "{dynamic}"
    );
    assert!(
        dynamic.contains("Library soname: [libwheelport_shim.so]"),
        "{dynamic}"
    );

    let (cuda, cuda_size) = tables::cuda_device_prop();
    // Copies with their HIP offsets as gcc lays out the generated HIP struct.
    std::fs::write(d.path().join("wheelport_shim_tables.h"), tables::c_header()).unwrap();
    let (hip, _) = tables::hip_device_prop();
    let hip_layout = gcc_layout(
        d.path(),
        "#include \"wheelport_shim_tables.h\"",
        "struct wp_hipDeviceProp",
        &hip,
    );
    let copies: Vec<(String, usize, usize, usize)> = tables::device_prop_copies()
        .into_iter()
        .map(|(c, h)| {
            let cf = cuda.iter().find(|f| f.name == c).unwrap();
            let cuda_size_of = tables::rows(tables::DEVICE_PROP_TSV)
                .find(|r| r[0] == c)
                .unwrap()[4]
                .parse()
                .unwrap();
            let hi = hip.iter().position(|f| f.name == h).unwrap();
            (c, cf.offset.unwrap(), cuda_size_of, hip_layout[hi + 1].0)
        })
        .collect();
    let val = |name: &str, t: &str| -> i64 {
        tables::rows(t)
            .find(|r| r[0] == name)
            .and_then(|r| r[1].parse().ok())
            .unwrap()
    };
    let hip_val = |name: &str, t: &str| -> i64 {
        tables::rows(t)
            .find(|r| r[0] == name)
            .and_then(|r| r[3].parse().ok())
            .unwrap()
    };
    let blas = |name: &str| -> i64 {
        tables::rows(tables::CUBLAS_ENUMS_TSV)
            .find(|r| r[1] == name)
            .and_then(|r| r[2].parse().ok())
            .unwrap()
    };
    let facts = serde_json::json!({
        "cuda_size": cuda_size,
        "cuda_offsets": cuda.iter().map(|f| (f.name.clone(), f.offset.unwrap())).collect::<std::collections::HashMap<_, _>>(),
        "copies": copies,
        "attrs": [val("cudaDevAttrMultiProcessorCount", tables::DEVICE_ATTR_TSV), val("cudaDevAttrMaxSharedMemoryPerBlockOptin", tables::DEVICE_ATTR_TSV)],
        "errors_in": [val("cudaErrorInvalidTexture", tables::ERRORS_TSV), val("cudaErrorMemoryAllocation", tables::ERRORS_TSV), 1052],
        "hip_errors": [912, 911, 2, 1052, 0, 1054, 4242],
        "op_t": blas("CUBLAS_OP_T"),
        "op_n": blas("CUBLAS_OP_N"),
    });
    let (c, out, e) = python_bind_now(
        DRIVER,
        &[
            &shim,
            &rt.join("libamdhip64.so.6"),
            Path::new(&facts.to_string()),
        ],
        &rt,
    );
    assert_eq!(c, 0, "{e}");
    let got: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    // Values of the headers (CUDA 12.9 driver_types.h, HIP via rocm-bindings-hip): the test's
    // expectations are written from them, not read back from the shim's tables.
    assert_eq!(
        val("cudaDevAttrMultiProcessorCount", tables::DEVICE_ATTR_TSV),
        16
    );
    assert_eq!(
        hip_val("cudaDevAttrMultiProcessorCount", tables::DEVICE_ATTR_TSV),
        63
    );
    assert_eq!(got["name"], "Hygon DCU K100");
    assert_eq!(got["multiProcessorCount"], 120);
    // HIP says 64 (wave64); the translated kernels run 32-lane warps, which host code sizes
    // per-warp work by.
    assert_eq!(got["warpSize"], 32);
    assert_eq!(got["major"], 9);
    assert_eq!(got["minor"], 6);
    assert_eq!(got["totalGlobalMem"], 64u64 << 30);
    assert_eq!(got["sharedMemPerBlock"], 65536);
    assert_eq!(got["maxThreadsDim2"], 1024);
    assert_eq!(got["unifiedFunctionPointers"], 77);
    assert_eq!(got["mismatched_fields"], serde_json::json!([]));
    assert_eq!(
        got["bad_device"], 101,
        "hipErrorInvalidDevice = cudaErrorInvalidDevice"
    );
    assert_eq!(
        got["null_prop"], 1,
        "cudaErrorInvalidValue for a NULL cudaDeviceProp"
    );
    // cudaDevAttrMultiProcessorCount 16 -> hipDeviceAttributeMultiprocessorCount 63;
    // cudaDevAttrMaxSharedMemoryPerBlockOptin 97 -> hipDeviceAttributeSharedMemPerBlockOptin.
    assert_eq!(got["attr"], serde_json::json!([0, 0]));
    let optin = hip_val(
        "cudaDevAttrMaxSharedMemoryPerBlockOptin",
        tables::DEVICE_ATTR_TSV,
    );
    assert_eq!(got["attr_seen"], optin);
    assert_eq!(got["attr_value"], optin * 10);
    assert_eq!(got["attr_unknown"], 1, "cudaErrorInvalidValue");
    // cudaErrorInvalidTexture 18 -> hipErrorInvalidTexture 912; 2 -> 2; 1052 passes.
    assert_eq!(
        got["error_to_hip"],
        serde_json::json!([912, 912, 2, 2, 1052, 1052])
    );
    // HIP 912 -> CUDA 18, 911 -> 20, 2 -> 2; HIP-only 1052 keeps its number (CUDA has no
    // 1052, and a renamed call returns it unchanged too); 0 -> 0; 1054 -> CUDA 912; a number
    // in neither header -> cudaErrorUnknown 999.
    assert_eq!(
        got["error_to_cuda"],
        serde_json::json!([
            [18, 18],
            [20, 20],
            [2, 2],
            [1052, 1052],
            [0, 0],
            [912, 912],
            [999, 999]
        ])
    );
    // HIPF wrapper: registered, its function/var/unregister forwarded once; the CUDA-magic
    // wrapper reached nothing.
    assert_eq!(got["registered"], serde_json::json!([1, 1, 1, 1]));
    assert_eq!(got["driver_found"], serde_json::json!([0, 0, true]));
    assert_eq!(got["driver_missing"], serde_json::json!([500, 1, null]));
    // CUBLAS_OP_T 1 -> HIPBLAS_OP_T 112, CUBLAS_OP_N 0 -> 111; HIPBLAS_STATUS_INVALID_VALUE 3
    // -> CUBLAS_STATUS_INVALID_VALUE 7; an unknown operation is CUBLAS_STATUS_INVALID_VALUE.
    assert_eq!(got["hgemm_ops"], 112 * 1000 + 111);
    assert_eq!(got["hgemm_dims"], 1 + 2 + 3 + 4 + 5 + 6);
    assert_eq!(got["hgemm"], 7);
    assert_eq!(got["hgemm_bad_op"], 7);
}

#[test]
fn shim_symbols_are_table_targets() {
    let defined = wheelport::shim::hip_shim_symbols();
    for s in [
        "__wpcuRegisterFatBinary",
        "__wpcuRegisterFunction",
        "__wpcuRegisterFatBinaryEnd",
        "__wpcuGetKernel",
        "__wpcuLaunchKernel",
        "wpcuGetDeviceProperties_v2",
        "wpcuDeviceGetAttribute",
        "wpcuGetErrorString",
        "wpcuGetDriverEntryPoint",
        "wpblasHgemm",
    ] {
        assert!(defined.contains(&s), "{s} not in {defined:?}");
    }
    for t in ["dtk", "rocm"] {
        let table = load_builtin(t).unwrap();
        // Every shim/noop row of the HIP tables has its symbol in the shim.
        for row in table.symbols() {
            if matches!(row.kind, Kind::Shim | Kind::Noop) {
                let s = row.target_name.as_deref().unwrap();
                assert!(
                    defined.contains(&s),
                    "{t}: {} -> {s} not defined",
                    row.cuda_name
                );
            }
        }
        for s in &defined {
            let row = table
                .symbols()
                .iter()
                .find(|r| r.target_name.as_deref() == Some(*s))
                .unwrap_or_else(|| panic!("{t}: no row targets {s}"));
            assert!(matches!(row.kind, Kind::Shim | Kind::Noop), "{t}: {s}");
        }
    }
}

#[test]
fn runpath_is_origin_relative() {
    use wheelport::shim::{libs_dir, origin_runpath};
    assert_eq!(libs_dir("xformers"), "xformers.libs");
    assert_eq!(
        origin_runpath("xformers/_C.so", "xformers.libs"),
        "$ORIGIN/../xformers.libs"
    );
    assert_eq!(
        origin_runpath(
            "awq_ext.cpython-311-x86_64-linux-gnu.so",
            "autoawq_kernels.libs"
        ),
        "$ORIGIN/autoawq_kernels.libs"
    );
    assert_eq!(
        origin_runpath("a/b/c/k.so", "a.libs"),
        "$ORIGIN/../../../a.libs"
    );
    assert_eq!(
        origin_runpath("pkg-1.0.data/platlib/pkg/k.so", "pkg.libs"),
        "$ORIGIN/../pkg.libs"
    );
    // A bare object with the shim beside it.
    assert_eq!(origin_runpath("k.so", ""), "$ORIGIN");
}

#[test]
fn remaining_entry_points_translate_against_a_recording_runtime() {
    let d = tempfile::tempdir().unwrap();
    let Some((shim, rt)) = build(d.path()) else {
        return;
    };
    std::fs::write(d.path().join("wheelport_shim_tables.h"), tables::c_header()).unwrap();
    let inc = "#include \"wheelport_shim_tables.h\"";
    let (cuda, cuda_size) = tables::cuda_device_prop();
    // Struct sizes of the real headers: CUDA 12.9 driver_types.h (gcc), the binding's c_sizeof.
    let (cf, cf_size) = tables::small_struct("cudaFuncAttributes");
    let (hf, hf_size) = tables::small_struct("hipFuncAttributes");
    let (cp, cp_size) = tables::small_struct("cudaPointerAttributes");
    let (hp, hp_size) = tables::small_struct("hipPointerAttribute_t");
    assert_eq!((cf_size, hf_size, cp_size, hp_size), (144, 56, 24, 32));
    assert_eq!((cf.len(), hf.len(), cp.len(), hp.len()), (17, 10, 4, 6));
    // The generated structs as gcc lays them out agree with every measured offset.
    let hf_layout = gcc_layout(d.path(), inc, "struct wp_hipFuncAttributes", &hf);
    assert_eq!(hf_layout[0].0, 56);
    for (f, (off, _)) in hf.iter().zip(&hf_layout[1..]) {
        if let Some(m) = f.offset {
            assert_eq!(*off, m, "hipFuncAttributes.{}", f.name);
        }
    }
    let hp_layout = gcc_layout(d.path(), inc, "struct wp_hipPointerAttribute", &hp);
    assert_eq!(hp_layout[0].0, 32);
    for (f, (off, _)) in hp.iter().zip(&hp_layout[1..]) {
        if let Some(m) = f.offset {
            assert_eq!(*off, m, "hipPointerAttribute_t.{}", f.name);
        }
    }
    for (name, c_name, fields) in [
        ("cudaFuncAttributes", "struct wp_cudaFuncAttributes", &cf),
        (
            "cudaPointerAttributes",
            "struct wp_cudaPointerAttributes",
            &cp,
        ),
    ] {
        let got = gcc_layout(d.path(), inc, c_name, fields);
        for (f, (off, _)) in fields.iter().zip(&got[1..]) {
            assert_eq!(Some(*off), f.offset, "{name}.{}", f.name);
        }
        if std::env::var("WHEELPORT_CUDA12_INCLUDE").is_ok() {
            let real = gcc_layout(
                d.path(),
                "#include <driver_types.h>",
                &format!("struct {name}"),
                fields,
            );
            for (f, (off, size)) in fields.iter().zip(&real[1..]) {
                assert_eq!(Some(*off), f.offset, "driver_types.h {name}.{}", f.name);
                assert!(*size > 0);
            }
        }
    }
    let func_fields: Vec<(String, usize, usize, Option<usize>)> = cf
        .iter()
        .map(|f| {
            let size = tables::rows(tables::STRUCTS_TSV)
                .find(|r| r[0] == "cudaFuncAttributes" && r[1] == f.name)
                .unwrap()[5]
                .parse()
                .unwrap();
            let h = hf
                .iter()
                .position(|g| g.name == f.name)
                .map(|i| hf_layout[i + 1].0);
            (f.name.clone(), f.offset.unwrap(), size, h)
        })
        .collect();
    let enum_val = |name: &str, col: usize| -> i64 {
        tables::rows(tables::RUNTIME_ENUMS_TSV)
            .find(|r| r[1] == name || r[3] == name)
            .and_then(|r| r[col].parse().ok())
            .unwrap()
    };
    let memtypes = [
        "hipMemoryTypeHost",
        "hipMemoryTypeDevice",
        "hipMemoryTypeManaged",
        "hipMemoryTypeArray",
        "hipMemoryTypeUnified",
    ]
    .map(|n| enum_val(n, 4));
    let facts = serde_json::json!({
        "cuda_size": cuda_size,
        "cuda_off": cuda.iter().map(|f| (f.name.clone(), f.offset.unwrap())).collect::<std::collections::HashMap<_, _>>(),
        "func_size": cf_size,
        "func_fields": func_fields,
        "func_attrs": [enum_val("cudaFuncAttributeMaxDynamicSharedMemorySize", 2), enum_val("cudaFuncAttributeRequiredClusterWidth", 2)],
        "ptr_size": cp_size,
        "hip_memtypes": memtypes,
    });
    let (c, out, e) = python_bind_now(
        DRIVER2,
        &[
            &shim,
            &rt.join("libamdhip64.so.6"),
            Path::new(&facts.to_string()),
        ],
        &rt,
    );
    assert_eq!(c, 0, "{e}");
    let got: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    use serde_json::json;
    assert_eq!(got["legacy"], 0);
    assert_eq!(got["legacy_guard"], true);
    assert_eq!(got["legacy_name"], "Hygon DCU K100");
    assert_eq!(got["legacy_sm"], 120);
    // major 9, minor 4, 132 SMs, 80 GiB reach HIP at HIP's offsets; HIP's device 5 comes back.
    assert_eq!(got["choose"], json!([0, 5, 904, 132, 80 << 10]));
    // hipErrorInvalidDeviceFunction 98 = cudaErrorInvalidDeviceFunction 98.
    assert_eq!(got["func_rc"], json!([0, 98]));
    assert_eq!(got["func_guard"], true);
    assert_eq!(got["func_bad"], json!([]));
    // CUDA 12.9 fields hipFuncAttributes lacks: the cluster fields and reserved[16].
    assert_eq!(
        got["func_zero"],
        json!([
            "clusterDimMustBeSet",
            "requiredClusterWidth",
            "requiredClusterHeight",
            "requiredClusterDepth",
            "clusterSchedulingPolicyPreference",
            "nonPortableClusterSizeAllowed",
            "reserved"
        ])
    );
    // cudaFuncAttributeMaxDynamicSharedMemorySize 8 -> hipFuncAttributeMaxDynamicSharedMemorySize 8,
    // RequiredClusterWidth 11 -> 11 (hip_runtime_api.h numbers them alike); unknown 99 ->
    // cudaErrorInvalidValue 1.
    assert_eq!(got["set_attr"], json!([[0, 8, 4096], [0, 11, 4096]]));
    assert_eq!(got["set_attr_unknown"], 1);
    // hipMemoryTypeHost 1, Device 2, Managed 3 -> the same CUDA numbers; Array 10 and
    // Unified 11 -> cudaMemoryTypeDevice 2. Fields: device 3, devicePointer, hostPointer.
    assert_eq!(
        got["ptr"],
        json!([
            [1, 3, 0xD000, 0x4000],
            [2, 3, 0xD000, 0x4000],
            [3, 3, 0xD000, 0x4000],
            [2, 3, 0xD000, 0x4000],
            [2, 3, 0xD000, 0x4000]
        ])
    );
    assert_eq!(got["ptr_guard"], true);
    // size * 1000 + alignment, zeroed initial value and the name, HIP's pointer stored; the
    // skipped module's variable reaches nothing.
    assert_eq!(
        got["managed"],
        json!([
            [24008, 1, 0x5000],
            [4004, 1, 0x5000],
            [64016, 1, 0x5000],
            [64016, null]
        ])
    );
    assert_eq!(got["init_module"], json!([1, 0]));
    // DeviceType::HIP 6 -> CUDA 1 on the way out, back to 6 on the way in.
    assert_eq!(
        got["streams"],
        json!([[1, 2, 0x1234], [1, 1, 0], [1, 3, 0x21], [1, 0, 0x3F]])
    );
    assert_eq!(got["set_stream"], 6 * 10000 + 2 * 1000 + 0x55);
    // HIP's wave64 warpSize 64 reaches host code as 32, as in cudaGetDeviceProperties.
    assert_eq!(got["torch_props"], json!([true, "Hygon DCU K100", 120, 32]));
}

/// The include directory of the CUDA 13.5 toolkit next to nvcc (`WHEELPORT_CUDA_BIN`).
fn cuda13_include() -> Option<std::path::PathBuf> {
    let inc = find_tool("nvcc")?.parent()?.parent()?.join("include");
    inc.join("driver_types.h").is_file().then_some(inc)
}

/// The enumerator names of `enum <name>` in a header's text (identifiers followed by `=` or
/// `,`/`}` at the start of an enumerator).
fn enumerators(text: &str, enum_name: &str, prefix: &str) -> Vec<String> {
    // The definition: the name followed by its `{` (not `typedef enum X X_t;`).
    // CUDA writes `enum __device_builtin__ cudaError {`, HIP `enum ... hipError_t UINT32_BASE {`.
    let start = text
        .match_indices(enum_name)
        .filter(|(i, _)| {
            let before = text[..*i].trim_end();
            before.ends_with("enum") || before.ends_with("enum __device_builtin__")
        })
        .map(|(i, _)| i + enum_name.len())
        .find(|&i| {
            let rest = text[i..].trim_start();
            rest.starts_with('{') || rest.starts_with("UINT32_BASE")
        })
        .unwrap_or_else(|| panic!("enum {enum_name} not defined in header"));
    let body = &text[start..];
    let body = &body[body.find('{').unwrap() + 1..body.find('}').unwrap()];
    // Comments out first (they contain commas), then one enumerator per comma.
    let mut code = String::new();
    let mut rest = body;
    while let Some(i) = rest.find("/*") {
        code.push_str(&rest[..i]);
        rest = rest[i..].find("*/").map_or("", |j| &rest[i + j + 2..]);
    }
    code.push_str(rest);
    let code: String = code
        .lines()
        .map(|l| l.split("//").next().unwrap())
        .collect::<Vec<_>>()
        .join("\n");
    let mut names = Vec::new();
    for item in code.split(',') {
        if let Some(id) = item
            .split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .find(|w| !w.is_empty())
        {
            if id.starts_with(prefix) {
                names.push(id.to_string());
            }
        }
    }
    names
}

/// gcc's value of each C expression (printed as long long) with `header` included from
/// `include`.
fn gcc_values(dir: &Path, include: &Path, header: &str, exprs: &[String]) -> Vec<i64> {
    let mut c = format!(
        "#include <stdio.h>\n#include <stddef.h>\n#include <{header}>\nint main(void) {{\n"
    );
    for e in exprs {
        c.push_str(&format!("printf(\"%lld\\n\", (long long)({e}));\n"));
    }
    c.push_str("return 0;\n}\n");
    let src = dir.join("values.c");
    std::fs::write(&src, c).unwrap();
    let exe = dir.join("values");
    let (code, _, e) = run(Command::new("gcc")
        .arg("-I")
        .arg(include)
        .arg("-o")
        .arg(&exe)
        .arg(&src));
    assert_eq!(code, 0, "gcc on {header}: {e}");
    let (code, out, e) = run(&mut Command::new(&exe));
    assert_eq!(code, 0, "{e}");
    out.lines().map(|l| l.parse().unwrap()).collect()
}

fn hip_excerpt_dir(dir: &Path) -> std::path::PathBuf {
    let d = dir.join("hip");
    std::fs::create_dir_all(&d).unwrap();
    std::fs::write(d.join("hip_excerpt.h"), tables::HIP_HEADER_EXCERPT).unwrap();
    d
}

/// errors.tsv against the real headers: every CUDA value against CUDA 13.5's
/// `driver_types.h` (gcc), every HIP value against the committed `hip_runtime_api.h` excerpt
/// (gcc); the numbers on which the two enums disagree are exactly those the shim translates.
#[test]
fn error_table_matches_the_headers() {
    if require_tool("gcc", "error table").is_none() {
        return;
    }
    let Some(inc) = cuda13_include() else {
        missing::<()>(
            "error table",
            "CUDA 13.5 include/ (next to nvcc) is missing",
        );
        return;
    };
    let d = tempfile::tempdir().unwrap();
    let rows: Vec<Vec<&str>> = tables::rows(tables::ERRORS_TSV).collect();

    // CUDA side.
    let text = std::fs::read_to_string(inc.join("driver_types.h")).unwrap();
    let names = enumerators(&text, "cudaError", "cuda");
    assert!(names.len() > 100, "{names:?}");
    let values = gcc_values(d.path(), &inc, "driver_types.h", &names);
    let cuda: std::collections::HashMap<&str, i64> =
        names.iter().map(String::as_str).zip(values).collect();
    let mut checked = 0;
    for r in rows.iter().filter(|r| r[0] != "-") {
        let v: i64 = r[1].parse().unwrap();
        assert_eq!(cuda.get(r[0]), Some(&v), "driver_types.h {}", r[0]);
        checked += 1;
    }
    // The table is CUDA 12.9's enum; CUDA 13.5 adds these five (a cudart 12 binary never
    // sees them).
    let mut newer: Vec<&str> = cuda
        .keys()
        .copied()
        .filter(|n| !rows.iter().any(|r| r[0] == *n))
        .collect();
    newer.sort();
    assert_eq!(
        newer,
        [
            "cudaErrorFabricNotReady",
            "cudaErrorGraphRecaptureFailure",
            "cudaErrorInsufficientLoaderVersion",
            "cudaErrorStreamDetached",
            "cudaErrorVersionTranslation"
        ]
    );
    assert_eq!(checked, cuda.len() - newer.len());

    // HIP side.
    let hd = hip_excerpt_dir(d.path());
    let hnames = enumerators(tables::HIP_HEADER_EXCERPT, "hipError_t", "hip");
    let hvalues = gcc_values(d.path(), &hd, "hip_excerpt.h", &hnames);
    let hip: std::collections::HashMap<&str, i64> =
        hnames.iter().map(String::as_str).zip(hvalues).collect();
    for r in rows.iter().filter(|r| r[2] != "-") {
        let v: i64 = r[3].parse().unwrap();
        assert_eq!(hip.get(r[2]), Some(&v), "hip_runtime_api.h {}", r[2]);
    }
    // Every value of the newest HIP header has a row (HIP-only ones, such as 202
    // ContextAlreadyCurrent or 1052 RuntimeMemory, with cuda '-': the shim turns them into
    // cudaErrorUnknown).
    let table_hip: std::collections::HashSet<i64> =
        rows.iter().filter_map(|r| r[3].parse().ok()).collect();
    let missing: Vec<(&str, i64)> = hip
        .iter()
        .filter(|(_, v)| !table_hip.contains(v))
        .map(|(n, v)| (*n, *v))
        .collect();
    assert_eq!(missing, [], "hip_runtime_api.h values without a row");
    let hip_only: Vec<i64> = {
        let mut v: Vec<i64> = rows
            .iter()
            .filter(|r| r[0] == "-")
            .map(|r| r[3].parse().unwrap())
            .collect();
        v.sort();
        v
    };
    assert_eq!(hip_only, [202, 916, 1052, 1053, 1055]);

    // Where the numbers differ: CUDA 18/20/912 are HIP 912/911/1054, and CUDA's own 911/912
    // name other errors.
    let moved: Vec<(i64, i64)> = tables::value_pairs(tables::ERRORS_TSV)
        .into_iter()
        .filter(|(c, h)| c != h)
        .collect();
    assert_eq!(moved, [(18, 912), (20, 911), (912, 1054)]);
    assert_eq!(cuda["cudaErrorExternalDevice"], 911);
    assert_eq!(hip["hipErrorInvalidChannelDescriptor"], 911);
    assert!(tables::cuda_only_errors().contains(&(911, "cudaErrorExternalDevice".into())));
}

/// launch.tsv against the real headers: `cudaLaunchConfig_t` / `cudaLaunchAttribute` offsets,
/// sizes and `cudaLaunchAttributeID` values (gcc on CUDA 13.5's `driver_types.h`) and HIP's
/// (gcc on the excerpt); every paired row is equal, the assumption of wpcuLaunchKernelExC.
#[test]
fn launch_config_matches_the_headers() {
    if require_tool("gcc", "launch config").is_none() {
        return;
    }
    let Some(inc) = cuda13_include() else {
        missing::<()>(
            "launch config",
            "CUDA 13.5 include/ (next to nvcc) is missing",
        );
        return;
    };
    let d = tempfile::tempdir().unwrap();
    let hd = hip_excerpt_dir(d.path());
    let rows: Vec<Vec<&str>> = tables::rows(tables::LAUNCH_TSV).collect();
    let expr = |kind: &str, name: &str| -> String {
        match kind {
            "size" => format!("sizeof({name})"),
            "field" => {
                let (st, f) = name.split_once('.').unwrap();
                format!("offsetof({st}, {f})")
            }
            _ => name.to_string(),
        }
    };
    let cuda_rows: Vec<&Vec<&str>> = rows.iter().filter(|r| r[1] != "-").collect();
    let hip_rows: Vec<&Vec<&str>> = rows.iter().filter(|r| r[3] != "-").collect();
    let cv = gcc_values(
        d.path(),
        &inc,
        "driver_types.h",
        &cuda_rows
            .iter()
            .map(|r| expr(r[0], r[1]))
            .collect::<Vec<_>>(),
    );
    for (r, v) in cuda_rows.iter().zip(&cv) {
        assert_eq!(r[2].parse::<i64>().unwrap(), *v, "driver_types.h {}", r[1]);
    }
    let hv = gcc_values(
        d.path(),
        &hd,
        "hip_excerpt.h",
        &hip_rows
            .iter()
            .map(|r| expr(r[0], r[3]))
            .collect::<Vec<_>>(),
    );
    for (r, v) in hip_rows.iter().zip(&hv) {
        assert_eq!(
            r[4].parse::<i64>().unwrap(),
            *v,
            "hip_runtime_api.h {}",
            r[3]
        );
    }
    // Paired rows agree: the config and the attributes HIP knows pass through unchanged.
    for r in rows.iter().filter(|r| r[1] != "-" && r[3] != "-") {
        assert_eq!(r[2], r[4], "{} vs {}", r[1], r[3]);
    }
    assert_eq!(cv[0], 56, "sizeof(cudaLaunchConfig_t)");
    // Every cudaLaunchAttributeID enumerator of the header has a row.
    let text = std::fs::read_to_string(inc.join("driver_types.h")).unwrap();
    let ids = enumerators(&text, "cudaLaunchAttributeID", "cudaLaunchAttribute");
    let mut in_table: Vec<&str> = rows
        .iter()
        .filter(|r| r[0] == "attr" && r[1] != "-")
        .map(|r| r[1])
        .collect();
    in_table.sort();
    let mut ids: Vec<&str> = ids.iter().map(String::as_str).collect();
    ids.sort();
    assert_eq!(in_table, ids);
    // and every hipLaunchAttributeID enumerator but the Max marker.
    let hids = enumerators(
        tables::HIP_HEADER_EXCERPT,
        "hipLaunchAttributeID",
        "hipLaunchAttribute",
    );
    let n_hip = rows
        .iter()
        .filter(|r| r[0] == "attr" && r[3] != "-")
        .count();
    assert_eq!(n_hip + 1, hids.len(), "{hids:?}");
    // The relink tables make it a shim (the result needs translating), not a rename.
    for t in ["dtk", "rocm"] {
        let table = load_builtin(t).unwrap();
        let row = table
            .symbols()
            .iter()
            .find(|r| r.cuda_name == "cudaLaunchKernelExC")
            .unwrap();
        assert_eq!(row.kind, Kind::Shim, "{t}");
        assert_eq!(row.target_name.as_deref(), Some("wpcuLaunchKernelExC"));
    }
}

const DRIVER_EXC: &str = r#"
import ctypes, sys, json
rt = ctypes.CDLL(sys.argv[2], mode=ctypes.RTLD_GLOBAL)
shim = ctypes.CDLL(sys.argv[1])
rt.recorded.restype = ctypes.c_long
out = {}
cfg = (ctypes.c_uint * 14)(7, 1, 1, 128, 1, 1)
out["exc"] = shim.wpcuLaunchKernelExC(cfg, None, None)
out["exc_same_cfg"] = rt.recorded(0) == ctypes.addressof(cfg)
out["exc_dims"] = rt.recorded(1)
out["exc_null"] = shim.wpcuLaunchKernelExC(None, None, None)
# attributes 6 (programmatic stream serialization), 1 (access policy window), 7 (programmatic
# event): 72 bytes each
attrs = (ctypes.c_uint * 54)()
attrs[0], attrs[18], attrs[36] = 6, 1, 7
pdl = (ctypes.c_uint * 14)(7, 1, 1, 128, 1, 1)
ctypes.c_void_p.from_buffer(pdl, 40).value = ctypes.addressof(attrs)
pdl[12] = 3
out["exc_pdl"] = shim.wpcuLaunchKernelExC(pdl, None, None)
out["exc_pdl_attrs"] = rt.recorded(8)
out["exc_pdl_dims"] = rt.recorded(1)
out["exc_pdl_caller"] = [pdl[12], attrs[0], attrs[18], attrs[36]]
msg = ctypes.c_char_p()
seen = []
for e in (0, 18, 911, 2, 1):
    r = shim.torch_c10_wpcu_check_msg(e, b"f.cu", b"g", 41, True, ctypes.byref(msg))
    seen.append([r, rt.recorded(2), rt.recorded(3)])
out["check"] = seen
shim.wpcuGetErrorName.restype = ctypes.c_char_p
shim.wpcuGetErrorString.restype = ctypes.c_char_p
out["name_911"] = shim.wpcuGetErrorName(911).decode()
out["string_912"] = shim.wpcuGetErrorString(912).decode()
out["hip_of_912"] = rt.recorded(1)
out["name_18"] = shim.wpcuGetErrorName(18).decode()
out["hip_of_18"] = rt.recorded(1)
f = shim.wpcuMemcpy2DToArrayAsync
f.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_size_t, ctypes.c_void_p, ctypes.c_size_t,
              ctypes.c_size_t, ctypes.c_size_t, ctypes.c_int, ctypes.c_void_p]
thunk = []
for code in (0, 912, 911, 1054, 1052, 2):
    r = f(1, 2, 3, 4, 5, 6, 7, code, 9)
    thunk.append([r, rt.recorded(4)])
out["thunk"] = thunk
out["thunk_missing"] = shim.wpcuFreeMipmappedArray(None)
# The thunk works from another thread too (its return-address stack is per thread).
import threading
res = []
t = threading.Thread(target=lambda: res.append(f(1, 2, 3, 4, 5, 6, 7, 912, 9)))
t.start(); t.join()
out["thunk_thread"] = res
print(json.dumps(out))
"#;

/// cudaLaunchKernelExC and torch_c10_cuda_check_msg through the shim against the recording
/// runtime: the config reaches hipLaunchKernelExC unchanged and HIP's 1054 comes back as
/// CUDA's 912; the CUDA code given to the torch check reaches ROCm torch as the HIP code; the
/// message functions name CUDA-only codes themselves.
#[test]
fn launch_ex_and_torch_check_translate_codes() {
    let d = tempfile::tempdir().unwrap();
    let Some((shim, rt)) = build(d.path()) else {
        return;
    };
    let (c, out, e) = python_bind_now(DRIVER_EXC, &[&shim, &rt.join("libamdhip64.so.6")], &rt);
    assert_eq!(c, 0, "{e}");
    let got: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    // hipErrorInvalidClusterSize 1054 -> cudaErrorInvalidClusterSize 912 (errors.tsv, checked
    // against both headers by error_table_matches_the_headers).
    assert_eq!(got["exc"], 912);
    assert_eq!(got["exc_same_cfg"], true);
    assert_eq!(
        got["exc_dims"],
        7 * 1000 + 128,
        "gridDim.x at 0, blockDim.x at 12"
    );
    assert_eq!(got["exc_null"], 1, "cudaErrorInvalidValue");
    // HIP gets the one attribute it has an ID for (1), in a copy: the caller's list stays.
    assert_eq!(got["exc_pdl"], 912);
    assert_eq!(got["exc_pdl_attrs"], 100 + 1);
    assert_eq!(got["exc_pdl_dims"], 7 * 1000 + 128);
    assert_eq!(got["exc_pdl_caller"], serde_json::json!([3, 6, 1, 7]));
    // 0 stays 0; CUDA 18 (InvalidTexture) is HIP 912; CUDA-only 911 (ExternalDevice) becomes
    // hipErrorUnknown 999; 2 and 1 are the same in both.
    assert_eq!(
        got["check"],
        serde_json::json!([
            [0, 0, 41],
            [0, 912, 41],
            [0, 999, 41],
            [0, 2, 41],
            [0, 1, 41]
        ])
    );
    assert_eq!(got["name_911"], "cudaErrorExternalDevice");
    // CUDA 912 (InvalidClusterSize) is described by HIP's 1054, CUDA 18 by HIP's 912.
    assert_eq!(got["string_912"], "S");
    assert_eq!(got["hip_of_912"], 1054);
    assert_eq!(got["name_18"], "N");
    assert_eq!(got["hip_of_18"], 912);
    // Code thunk: all nine arguments (three on the stack) arrive; HIP 912/911/1054 come back
    // as CUDA 18/20/912, HIP-only 1052 keeps its number, 0 and 2 are equal in both.
    let args = 123_456_709i64;
    assert_eq!(
        got["thunk"],
        serde_json::json!([
            [0, args],
            [18, args],
            [20, args],
            [912, args],
            [1052, args],
            [2, args]
        ])
    );
    assert_eq!(
        got["thunk_missing"], 801,
        "no hipFreeMipmappedArray: cudaErrorNotSupported"
    );
    assert_eq!(got["thunk_thread"], serde_json::json!([18]));
}

/// Every code thunk forwards to the HIP function its relink rows name, and its CUDA function
/// returns `cudaError_t` (CUDA 13.5's `cuda_runtime_api.h`), the one result it translates.
#[test]
fn code_thunks_are_error_returning_table_rows() {
    let thunks: Vec<Vec<&str>> = tables::rows(tables::CODE_THUNKS_TSV).collect();
    assert_eq!(thunks.len(), 33);
    for t in ["dtk", "rocm"] {
        let table = load_builtin(t).unwrap();
        for r in &thunks {
            let row = table
                .symbols()
                .iter()
                .find(|x| x.cuda_name == r[0])
                .unwrap();
            assert_eq!(row.kind, Kind::Shim, "{t} {}", r[0]);
            assert_eq!(row.target_name.as_deref(), Some(r[1]));
            assert_eq!(row.via.as_deref(), Some(r[2]), "{t} {}", r[0]);
        }
    }
    let Some(inc) = cuda13_include() else {
        missing::<()>(
            "code thunk return types",
            "CUDA 13.5 include/ (next to nvcc) is missing",
        );
        return;
    };
    let api = std::fs::read_to_string(inc.join("cuda_runtime_api.h")).unwrap();
    for r in &thunks {
        let base = r[0]
            .strip_suffix("_ptsz")
            .or_else(|| r[0].strip_suffix("_ptds"))
            .unwrap_or(r[0]);
        assert!(
            api.contains(&format!("cudaError_t CUDARTAPI {base}(")),
            "{base} does not return cudaError_t in cuda_runtime_api.h"
        );
    }
}

/// The per-thread default stream forms HIP has no `_spt` variant of (`cudaMallocAsync_ptsz`,
/// `cudaFreeAsync_ptsz`, `cudaMemPrefetchAsync_ptsz`, CUDA 12.x parameters): stream 0 reaches
/// HIP as `hipStreamPerThread` (`(hipStream_t)2` in hip_runtime_api.h), any other stream as
/// it is.
#[test]
fn per_thread_async_forms_use_hip_stream_per_thread() {
    let d = tempfile::tempdir().unwrap();
    let Some((shim, rt)) = build(d.path()) else {
        return;
    };
    let driver = r#"
import ctypes, sys
rt = ctypes.CDLL(sys.argv[2], mode=ctypes.RTLD_GLOBAL)
shim = ctypes.CDLL(sys.argv[1])
rt.recorded.restype = ctypes.c_long
p = ctypes.c_void_p()
out = []
for s in (None, 0x40):
    a = shim.wpcuMallocAsync_ptsz(ctypes.byref(p), 64, ctypes.c_void_p(s))
    b = shim.wpcuFreeAsync_ptsz(p, ctypes.c_void_p(s))
    c = shim.wpcuMemPrefetchAsync_ptsz(p, 64, 3, ctypes.c_void_p(s))
    out.append([a, b, c, rt.recorded(0), rt.recorded(1), rt.recorded(2)])
print(out)
"#;
    let (c, o, e) = python_bind_now(driver, &[&shim, &rt.join("libamdhip64.so.6")], &rt);
    assert_eq!(c, 0, "{e}");
    assert_eq!(
        o.trim(),
        "[[0, 0, 0, 2, 2, 203], [0, 0, 0, 64, 64, 6403]]",
        "{e}"
    );
}

const DRIVER13: &str = r#"
import ctypes, sys, json, struct
rt = ctypes.CDLL(sys.argv[2], mode=ctypes.RTLD_GLOBAL)
shim = ctypes.CDLL(sys.argv[1])
f = json.loads(sys.argv[3])
rt.recorded.restype = ctypes.c_long
out = {}
G = 0xEE
# CUDA 13's cudaGetDeviceProperties: exactly its 1008 bytes, fields at CUDA 13's offsets.
size = f["size13"]
buf = (ctypes.c_ubyte * (size + 64))(*([G] * (size + 64)))
out["rc"] = shim.wp13GetDeviceProperties(buf, 0)
raw = bytes(buf)
out["guard"] = raw[size:] == bytes([G]) * 64
out["name"] = raw[:raw.index(0)].decode()
get = lambda n: struct.unpack_from("<i", raw, f["off13"][n])[0]
out["sm"] = get("multiProcessorCount")
out["warp"] = get("warpSize")
out["cc"] = [get("major"), get("minor")]
out["added"] = [get(n) for n in f["added13"]]
out["bad_device"] = shim.wp13GetDeviceProperties(buf, 1)
# cudaDeviceGetAttribute(cudaDevAttrWarpSize): 32.
v = ctypes.c_int(0)
out["attr_warp"] = [shim.wpcuDeviceGetAttribute(ctypes.byref(v), f["attr_warp"], 0), v.value]
# cudaMemPrefetchAsync / cudaMemAdvise with a cudaMemLocation (8 bytes, by value).
class Loc(ctypes.Structure):
    _fields_ = [("type", ctypes.c_int), ("id", ctypes.c_int)]
shim.wp13MemPrefetchAsync.argtypes = [ctypes.c_void_p, ctypes.c_size_t, Loc, ctypes.c_uint, ctypes.c_void_p]
shim.wp13MemPrefetchAsync_ptsz.argtypes = shim.wp13MemPrefetchAsync.argtypes
shim.wp13MemAdvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, Loc]
pf = []
for (t, i, flags, s) in [(f["loc_device"], 1, 0, 5), (f["loc_host"], 9, 0, 5), (f["loc_host_numa"], 0, 0, 0), (f["loc_device"], 1, 3, 5)]:
    r = shim.wp13MemPrefetchAsync(0x1000, 4096, Loc(t, i), flags, s)
    pf.append([r, rt.recorded(2), rt.recorded(3)])
out["prefetch"] = pf
r = shim.wp13MemPrefetchAsync_ptsz(0x1000, 512, Loc(f["loc_device"], 2), 0, 0)
out["prefetch_ptsz"] = [r, rt.recorded(2)]
r = shim.wp13MemAdvise(0x1000, 256, 3, Loc(f["loc_device"], 1))
out["advise"] = [r, rt.recorded(4), rt.recorded(5)]
r = shim.wp13MemAdvise(0x1000, 256, 3, Loc(f["loc_host"], 0))
out["advise_host"] = [r, rt.recorded(4)]
out["advise_bad"] = shim.wp13MemAdvise(0x1000, 256, 3, Loc(0, 0))
# Graph edges: default edge data (none, or zero) reach HIP; another edge type does not.
zero = (ctypes.c_ubyte * 16)()
port = (ctypes.c_ubyte * 16)(); port[8 + 2] = 1
out["add_deps"] = [shim.wp13GraphAddDependencies(7, None, None, None, 2), rt.recorded(6),
                   shim.wp13GraphAddDependencies(7, None, None, zero, 2), rt.recorded(6),
                   shim.wp13GraphAddDependencies(8, None, None, port, 2)]
out["remove_deps"] = [shim.wp13GraphRemoveDependencies(7, None, None, None, 3), rt.recorded(6)]
fr = (ctypes.c_void_p * 2)(); to = (ctypes.c_void_p * 2)()
edges = (ctypes.c_ubyte * 16)(*([G] * 16)); n = ctypes.c_size_t(2)
out["edges"] = [shim.wp13GraphGetEdges(1, fr, to, edges, ctypes.byref(n)), n.value, list(bytes(edges))]
st = ctypes.c_int(0); cid = ctypes.c_ulonglong(0); ed = ctypes.c_void_p(0x99); nd = ctypes.c_size_t(0)
out["capture"] = [shim.wp13StreamGetCaptureInfo(4, ctypes.byref(st), ctypes.byref(cid), None, None, ctypes.byref(ed), ctypes.byref(nd)),
                  rt.recorded(7), st.value, cid.value, ed.value or 0, nd.value]
out["capture_ptsz"] = [shim.wp13StreamGetCaptureInfo_ptsz(0, None, None, None, None, None, None), rt.recorded(7)]
out["update"] = [shim.wp13StreamUpdateCaptureDependencies(3, None, None, 4, 1), rt.recorded(8),
                 shim.wp13StreamUpdateCaptureDependencies(3, None, port, 2, 1)]
print(json.dumps(out))
"#;

/// CUDA 13's forms (`relink-tables/cuda13-abi.tsv`): `cudaGetDeviceProperties` writes CUDA
/// 13's 1008-byte `cudaDeviceProp` (CUDA 12's 1032 bytes ran 24 bytes past a CUDA 13
/// caller's struct and put `multiProcessorCount` where CUDA 13 has `clockRate`'s successor),
/// every field at the offset gcc gives on CUDA 13.5's `driver_types.h`; `warpSize` is 32 in
/// every answer; `cudaMemPrefetchAsync`/`cudaMemAdvise` take a `cudaMemLocation`, which
/// reaches HIP as the device number (hipCpuDeviceId for the host); the graph and stream
/// capture forms with edge data reach HIP's for default edges and refuse others.
#[test]
fn cuda13_forms_translate_against_a_recording_runtime() {
    let d = tempfile::tempdir().unwrap();
    let Some((shim, rt)) = build(d.path()) else {
        return;
    };
    let (fields, size13) = tables::cuda13_device_prop();
    // The real CUDA 13 header's layout when installed (`.ci/run` installs nvcc 13.5's).
    let Some(inc13) = cuda13_include() else {
        return common::missing("shim", "CUDA 13's headers (WHEELPORT_CUDA_BIN/../include)")
            .unwrap_or(());
    };
    let names: Vec<String> = fields.iter().map(|f| f.name.clone()).collect();
    let mut exprs = vec!["sizeof(struct cudaDeviceProp)".to_string()];
    exprs.extend(
        names
            .iter()
            .map(|n| format!("offsetof(struct cudaDeviceProp, {n})")),
    );
    let vals = gcc_values(d.path(), &inc13, "driver_types.h", &exprs);
    assert_eq!(vals[0] as usize, size13, "CUDA 13 cudaDeviceProp size");
    assert_eq!(size13, 1008);
    let off13: std::collections::HashMap<&str, i64> = names
        .iter()
        .map(String::as_str)
        .zip(vals[1..].iter().copied())
        .collect();
    for f in &fields {
        assert_eq!(
            f.offset.map(|o| o as i64),
            Some(off13[f.name.as_str()]),
            "device_prop13.tsv {}",
            f.name
        );
    }
    // CUDA 12's multiProcessorCount (388) is not CUDA 13's (384).
    assert_eq!(off13["multiProcessorCount"], 384);
    assert_eq!(cuda_offset("multiProcessorCount"), 388);
    let enum_val = |name: &str| -> i64 {
        tables::rows(tables::RUNTIME_ENUMS_TSV)
            .find(|r| r[1] == name)
            .and_then(|r| r[2].parse().ok())
            .unwrap()
    };
    let attr_warp: i64 = tables::rows(tables::DEVICE_ATTR_TSV)
        .find(|r| r[0] == "cudaDevAttrWarpSize")
        .and_then(|r| r[1].parse().ok())
        .unwrap();
    let locs = gcc_values(
        d.path(),
        &inc13,
        "driver_types.h",
        &[
            "cudaMemLocationTypeDevice".into(),
            "cudaMemLocationTypeHost".into(),
            "cudaMemLocationTypeHostNuma".into(),
            "sizeof(struct cudaMemLocation)".into(),
            "sizeof(cudaGraphEdgeData)".into(),
        ],
    );
    assert_eq!(locs[0], enum_val("cudaMemLocationTypeDevice"));
    assert_eq!(locs[1], enum_val("cudaMemLocationTypeHost"));
    assert_eq!(locs[3], 8, "cudaMemLocation is passed as 8 bytes");
    assert_eq!(locs[4], 8, "cudaGraphEdgeData is 8 bytes");
    let facts = serde_json::json!({
        "size13": size13,
        "off13": off13,
        "added13": ["deviceNumaConfig", "mpsEnabled", "gpuPciDeviceID"],
        "attr_warp": attr_warp,
        "loc_device": locs[0],
        "loc_host": locs[1],
        "loc_host_numa": locs[2],
    });
    let (c, out, e) = python_bind_now(
        DRIVER13,
        &[
            &shim,
            &rt.join("libamdhip64.so.6"),
            Path::new(&facts.to_string()),
        ],
        &rt,
    );
    assert_eq!(c, 0, "{e}");
    let got: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(got["rc"], 0);
    assert_eq!(
        got["guard"], true,
        "nothing written past CUDA 13's 1008 bytes"
    );
    assert_eq!(got["name"], "Hygon DCU K100");
    assert_eq!(got["sm"], 120);
    assert_eq!(got["warp"], 32);
    assert_eq!(got["cc"], serde_json::json!([9, 6]));
    assert_eq!(
        got["added"],
        serde_json::json!([0, 0, 0]),
        "fields HIP lacks"
    );
    assert_eq!(got["bad_device"], 101);
    assert_eq!(got["attr_warp"], serde_json::json!([0, 32]));
    // (rc, stream * 100 + device, count): a device location, the host (hipCpuDeviceId -1),
    // a host NUMA node (host), reserved flags refused (cudaErrorInvalidValue 1).
    assert_eq!(
        got["prefetch"],
        serde_json::json!([[0, 501, 4096], [0, 499, 4096], [0, -1, 4096], [1, -1, 4096]])
    );
    // Stream 0 of the _ptsz form is hipStreamPerThread (2).
    assert_eq!(got["prefetch_ptsz"], serde_json::json!([0, 202]));
    assert_eq!(got["advise"], serde_json::json!([0, 301, 256]));
    assert_eq!(got["advise_host"], serde_json::json!([0, 299]));
    assert_eq!(got["advise_bad"], 1);
    assert_eq!(
        got["add_deps"],
        serde_json::json!([0, 7002, 0, 7002, 801]),
        "default edges reach hipGraphAddDependencies; a port edge is cudaErrorNotSupported"
    );
    assert_eq!(got["remove_deps"], serde_json::json!([0, -7003]));
    let mut want_edges = vec![0u8; 8];
    want_edges.extend([0xEEu8; 8]);
    assert_eq!(
        got["edges"],
        serde_json::json!([0, 1, want_edges]),
        "one edge: its 8 bytes of edge data zero, the rest untouched"
    );
    assert_eq!(got["capture"], serde_json::json!([0, 4, 1, 77, 0, 2]));
    assert_eq!(got["capture_ptsz"], serde_json::json!([0, 2]));
    assert_eq!(got["update"], serde_json::json!([0, 341, 801]));
}

/// A host object's calls, made from its own code: the shim answers the object that called.
const IDENTITY_CALLER: &str = r#"
#include <stddef.h>
#include "wheelport_shim_tables.h"
int wpcuGetDeviceProperties_v2(struct wp_cudaDeviceProp *, int);
int wpcuGetDeviceProperties(struct wp_cudaDeviceProp *, int);
int wp13GetDeviceProperties(struct wp_cuda13DeviceProp *, int);
int wpcuDeviceGetAttribute(int *, int, int);
int wpcuFuncGetAttributes(struct wp_cudaFuncAttributes *, const void *);
struct wp_cudaDeviceProp *_ZN2at4wpcu26getCurrentDevicePropertiesEv(void);
/* out: props v2 major, minor, warpSize; legacy major, minor; CUDA 13 major, minor, warpSize;
 * attribute 75, 76, 10; func ptxVersion, binaryVersion; torch major, minor. */
int identity(int *out) {
    static struct wp_cudaDeviceProp p;
    static struct wp_cuda13DeviceProp p13;
    static struct wp_cudaFuncAttributes f;
    if (wpcuGetDeviceProperties_v2(&p, 0)) return 1;
    out[0] = p.major, out[1] = p.minor, out[2] = p.warpSize;
    if (wpcuGetDeviceProperties(&p, 0)) return 2;
    out[3] = p.major, out[4] = p.minor;
    if (wp13GetDeviceProperties(&p13, 0)) return 3;
    out[5] = p13.major, out[6] = p13.minor, out[7] = p13.warpSize;
    if (wpcuDeviceGetAttribute(&out[8], 75, 0) || wpcuDeviceGetAttribute(&out[9], 76, 0) ||
        wpcuDeviceGetAttribute(&out[10], 10, 0))
        return 4;
    if (wpcuFuncGetAttributes(&f, (const void *)0x1000)) return 5;
    out[11] = f.ptxVersion, out[12] = f.binaryVersion;
    struct wp_cudaDeviceProp *t = _ZN2at4wpcu26getCurrentDevicePropertiesEv();
    out[13] = t->major, out[14] = t->minor;
    return 0;
}
"#;

/// The identity rule on dtk and rocm (docs/identity.md): host code is answered the compute
/// capability its object's kernels were translated from, on every query path the shim serves,
/// not HIP's (the recording runtime answers 9.6, ptxVersion from its byte pattern); an object
/// without the identity tag keeps HIP's answers. The tag is written by wheelport's rewriter
/// (`HostEdits::identity`) and read back with `readelf -d`.
#[test]
fn shim_answers_the_calling_objects_identity() {
    let d = tempfile::tempdir().unwrap();
    let Some((shim, rt)) = build(d.path()) else {
        return;
    };
    std::fs::write(d.path().join("wheelport_shim_tables.h"), tables::c_header()).unwrap();
    std::fs::write(d.path().join("caller.c"), IDENTITY_CALLER).unwrap();
    let plain = d.path().join("libplain.so");
    let (code, _, e) = run(Command::new("gcc")
        .args(["-shared", "-fPIC", "-I"])
        .arg(d.path())
        .arg("-o")
        .arg(&plain)
        .arg(d.path().join("caller.c"))
        .arg(&shim));
    assert_eq!(code, 0, "{e}");
    let tagged = d.path().join("libtagged.so");
    let edits = wheelport::rewrite::HostEdits {
        identity: Some(80),
        ..Default::default()
    };
    let (bytes, _) =
        wheelport::rewrite::rewrite(&std::fs::read(&plain).unwrap(), &edits, "libplain.so")
            .unwrap();
    std::fs::write(&tagged, bytes).unwrap();
    let (_, dynamic, _) = run(Command::new("readelf").arg("-d").arg(&tagged));
    assert!(
        dynamic.contains("0x000000006f777000") && dynamic.contains(" 0x50\n"),
        "{dynamic}"
    );
    let py = r#"
import ctypes, sys, json
rt = ctypes.CDLL(sys.argv[2], mode=ctypes.RTLD_GLOBAL)
ctypes.CDLL(sys.argv[1], mode=ctypes.RTLD_GLOBAL)
out = {}
for name in sys.argv[3:]:
    v = (ctypes.c_int * 15)()
    rc = ctypes.CDLL(name).identity(v)
    out[name.rsplit("/", 1)[1]] = [rc] + list(v)
print(json.dumps(out))
"#;
    let (c, o, e) = python_bind_now(
        py,
        &[&shim, &rt.join("libamdhip64.so.6"), &plain, &tagged],
        &rt,
    );
    assert_eq!(c, 0, "{e}");
    let got: serde_json::Value = serde_json::from_str(o.trim()).unwrap();
    // hipFuncGetAttributes' pattern byte i is (i * 5 + 1) & 255; ptxVersion and binaryVersion
    // sit at HIP offsets 40 and 0 (structs.tsv: members in alphabetical order).
    let word = |off: usize| -> i64 {
        (0..4)
            .map(|j| (((off + j) * 5 + 1) & 255) as i64)
            .rev()
            .fold(0, |a, b| (a << 8) | b)
    };
    let (ptx, bin) = (word(40) as i32 as i64, word(0) as i32 as i64);
    // The recording hipDeviceGetAttribute answers the HIP attribute number x10:
    // hipDeviceAttributeComputeCapabilityMajor 23, ...Minor 61 (rocm-bindings-hip).
    let hip_attr = |name: &str| -> i64 {
        tables::rows(tables::DEVICE_ATTR_TSV)
            .find(|r| r[0] == name)
            .and_then(|r| r[3].parse().ok())
            .unwrap()
    };
    let (major, minor) = (
        hip_attr("cudaDevAttrComputeCapabilityMajor"),
        hip_attr("cudaDevAttrComputeCapabilityMinor"),
    );
    assert_eq!((major, minor), (23, 61));
    assert_eq!(
        got["libplain.so"],
        serde_json::json!([
            0,
            9,
            6,
            32,
            9,
            6,
            9,
            6,
            32,
            major * 10,
            minor * 10,
            32,
            ptx,
            bin,
            9,
            6
        ]),
        "no identity tag: HIP's answers, warpSize 32"
    );
    assert_eq!(
        got["libtagged.so"],
        serde_json::json!([0, 8, 0, 32, 8, 0, 8, 0, 32, 8, 0, 32, 80, 80, 8, 0]),
        "identity 80: compute capability 8.0 and PTX/binary version 80 on every path"
    );
}
