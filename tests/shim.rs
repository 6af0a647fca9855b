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
use wheelport::relink::{load_builtin, Kind, Target};
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
static long rec[8];
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
        "hip_errors": [912, 911, 2, 1052, 0],
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
    assert_eq!(got["warpSize"], 64);
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
    // HIP 912 -> CUDA 18, 911 -> 20, 2 -> 2, HIP-only 1052 -> cudaErrorUnknown 999, 0 -> 0.
    assert_eq!(
        got["error_to_cuda"],
        serde_json::json!([[18, 18], [20, 20], [2, 2], [999, 999], [0, 0]])
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
    for t in [Target::Dtk, Target::Rocm] {
        let table = load_builtin(t).unwrap();
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
}
