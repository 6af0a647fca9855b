#!/usr/bin/env python3
"""Generate shims/hip/tables/*.tsv, the data of wheelport's HIP shim library.

Every value comes from a real header or from a binding compiled against one; nothing is typed
by hand. Inputs (all from PyPI, unpacked with `unzip` into one directory IN):

    pip download --no-deps nvidia-cuda-runtime-cu12==12.9.79 nvidia-cublas-cu12==12.9.1.4 \
        rocm-bindings-hip==10.0.0.0.1.2 rocm-bindings-core==10.0.0.0.1.2 \
        rocm-bindings-libraries==10.0.0.0.1.2 hip-python-interop==10.0.0.0.1.2 -d IN
    (cd IN && for w in *.whl; do unzip -oq "$w"; done)
    WHEELPORT_CUDA_BIN=.../nvidia/cu13/bin  # crt/host_defines.h of nvcc 13.5
    python3 shims/hip/tools/gen_shim_tables.py IN shims/hip/tables

* CUDA side: enumerator names are read from nvidia/cuda_runtime/include/driver_types.h and
  nvidia/cublas/include/cublas_api.h (+ library_types.h); their values and the offsets of
  `struct cudaDeviceProp` are printed by a C program compiled with gcc against those headers.
* HIP side: the values of hipError_t, hipDeviceAttribute_t, hipblas*_t and hipDataType are read
  from rocm-bindings-hip / rocm-bindings-libraries (Cython modules compiled against ROCm's hip
  headers; needs Python 3.11). The field list of hipDeviceProp_tR0600 comes from
  rocm/bindings/cyhip.pxd; each field's offset is measured on the compiled binding (a value
  written through the binding's field setter, found in the struct's bytes), and its size is
  the binding's c_sizeof() (1472).
* CUDA -> HIP name pairs (errors, device attributes, driver functions) come from AMD's
  hip-python-interop cuda/bindings/cyruntime.pxd and cydriver.pxd (`cimport hipX as cudaX`).
"""

import ctypes
import os
import re
import subprocess
import sys
import tempfile

IN, OUT = sys.argv[1], sys.argv[2]
CUDA_INC = os.path.join(IN, "nvidia/cuda_runtime/include")
CUBLAS_INC = os.path.join(IN, "nvidia/cublas/include")
# crt/host_defines.h (attribute macros only) ships with nvcc, not with the runtime wheel: take it
# from the CUDA 13 tools the tests use (nvidia-cuda-nvcc / nvidia-cuda-crt 13.5), after the 12.9
# include directory so that every 12.9 header wins.
CRT_INC = os.path.join(os.environ.get("WHEELPORT_CUDA_BIN", "/work/cache/cuda/x/nvidia/cu13/bin"), "../include")
sys.path.insert(0, IN)
import rocm.bindings.hip as hip  # noqa: E402
import rocm.bindings.hipblas as hipblas  # noqa: E402

DATE = "2026-11-29"
PROV_CUDA = "nvidia-cuda-runtime-cu12 12.9.79 include/driver_types.h (gcc-compiled)"
PROV_CUDA13 = "nvidia-cuda-nvcc 13.5 nvidia/cu13/include/driver_types.h (CUDART_VERSION 13050, gcc-compiled)"
PROV_CUBLAS = "nvidia-cublas-cu12 12.9.1.4 include/cublas_api.h, nvidia-cuda-runtime-cu12 12.9.79 include/library_types.h (gcc-compiled)"
PROV_HIP = "rocm-bindings-hip 10.0.0.0.1.2 (Cython compiled against ROCm hip headers; values read from the module)"
PROV_HIPBLAS = "rocm-bindings-libraries 10.0.0.0.1.2 (hipblas module, compiled against hipBLAS headers)"
PROV_MAP = "hip-python-interop 10.0.0.0.1.2 cuda/bindings/cyruntime.pxd, cydriver.pxd (AMD's cudaX -> hipX pairs; errors and runtime enums it does not pair: the name rule cudaX -> hipX)"


def enum_names(path, enum):
    text = open(path).read()
    m = re.search(r"enum\s+(?:__device_builtin__\s+)?" + enum + r"\s*\{(.*?)\}", text, re.S)
    if not m:
        m = re.search(r"typedef\s+enum\s*\{([^{}]*)\}\s*" + enum + r"\s*;", text, re.S)
    body = re.sub(r"/\*.*?\*/|//[^\n]*", "", m.group(1), flags=re.S)
    items = (i.strip() for i in body.split(","))
    return [re.match(r"\w+", i).group(0) for i in items if i and not i.startswith("#")]


def c_values(includes, headers, exprs, prelude=""):
    """Print each C expression's value, compiled with gcc against the real headers (or, with
    `prelude`, against declarations cut verbatim out of one)."""
    with tempfile.TemporaryDirectory() as d:
        src = os.path.join(d, "v.c")
        with open(src, "w") as f:
            f.write("#include <stdio.h>\n#include <stddef.h>\n")
            for h in headers:
                f.write(f"#include <{h}>\n")
            f.write(prelude)
            f.write("int main(void) {\n")
            for e in exprs:
                f.write(f'  printf("%lld\\n", (long long)({e}));\n')
            f.write("  return 0;\n}\n")
        exe = os.path.join(d, "v")
        r = subprocess.run(["gcc", "-w", *[f"-I{i}" for i in includes], f"-idirafter{CRT_INC}", "-o", exe, src])
        if r.returncode != 0:
            sys.exit("gcc failed on:\n" + open(src).read())
        out = subprocess.run([exe], check=True, capture_output=True, text=True).stdout.split()
    return [int(v) for v in out]


def interop_pairs(pxd):
    pairs = {}
    for line in open(os.path.join(IN, "cuda/bindings", pxd)):
        m = re.match(r"from rocm\.bindings\.cyhip cimport (\w+) as (\w+)", line)
        if m:
            pairs.setdefault(m.group(2), m.group(1))
    return pairs


def header(f, schema, domain, prov, columns):
    f.write(f"#% schema: {schema}\n#% domain: {domain}\n#% provenance: {prov}\n#% date: {DATE}\n")
    f.write("# Generated by shims/hip/tools/gen_shim_tables.py; do not edit by hand.\n")
    for c in columns:
        f.write(f"#   {c}\n")


os.makedirs(OUT, exist_ok=True)
rt_pairs = interop_pairs("cyruntime.pxd")
drv_pairs = interop_pairs("cydriver.pxd")
hip_err = {m.name: int(m) for m in hip.hipError_t}
hip_attr = {m.name: int(m) for m in hip.hipDeviceAttribute_t}

# 1. errors: every cudaError_t enumerator.
names = enum_names(os.path.join(CUDA_INC, "driver_types.h"), "cudaError")
vals = c_values([CUDA_INC], ["driver_types.h"], names)
with open(os.path.join(OUT, "errors.tsv"), "w") as f:
    header(f, "wheelport-shim-errors/1", "cudaError_t (CUDA 12.9) <-> hipError_t",
           f"{PROV_CUDA}; {PROV_HIP}; {PROV_MAP}",
           ["cuda_name cuda_value hip_name hip_value ('-': no counterpart); one row per cudaError_t",
            "enumerator, paired by hip-python-interop, else by the name rule cudaErrorX -> hipErrorX,",
            "enumerator, then one row per hipError_t value that no CUDA row reaches (cuda '-')"])
    used = set()
    for n, v in zip(names, vals):
        h = rt_pairs.get(n) or ("hip" + n[4:])
        hv = hip_err.get(h) if h else None
        if hv is not None:
            used.add(hv)
        f.write(f"{n}\t{v}\t{h if hv is not None else '-'}\t{hv if hv is not None else '-'}\n")
    for h, hv in hip_err.items():
        if hv not in used:
            used.add(hv)
            f.write(f"-\t-\t{h}\t{hv}\n")

# 2. device attributes: every cudaDeviceAttr enumerator.
names = enum_names(os.path.join(CUDA_INC, "driver_types.h"), "cudaDeviceAttr")
vals = c_values([CUDA_INC], ["driver_types.h"], names)
with open(os.path.join(OUT, "device_attr.tsv"), "w") as f:
    header(f, "wheelport-shim-device-attr/1", "cudaDeviceAttr (CUDA 12.9) -> hipDeviceAttribute_t",
           f"{PROV_CUDA}; {PROV_HIP}; {PROV_MAP}",
           ["cuda_name cuda_value hip_name hip_value ('-': HIP has no counterpart; the shim returns cudaErrorInvalidValue)"])
    for n, v in zip(names, vals):
        h = rt_pairs.get(n)
        hv = hip_attr.get(h) if h else None
        f.write(f"{n}\t{v}\t{h if hv is not None else '-'}\t{hv if hv is not None else '-'}\n")

# 3. struct cudaDeviceProp (CUDA 12.9, and CUDA 13.5: 1008 bytes, fields removed) and
#    hipDeviceProp_tR0600.
def cuda_prop(inc):
    text = open(os.path.join(inc, "driver_types.h")).read()
    body = re.search(r"struct __device_builtin__ cudaDeviceProp\s*\{(.*?)\n\};", text, re.S).group(1)
    body = re.sub(r"/\*.*?\*/", "", body, flags=re.S)
    fields = re.findall(r"^\s*([\w ]+?)\s+(\w+)(?:\[(\d+)\])?\s*;", body, re.M)
    exprs = ["sizeof(struct cudaDeviceProp)"]
    for t, n, c in fields:
        exprs += [f"offsetof(struct cudaDeviceProp, {n})", f"sizeof(((struct cudaDeviceProp*)0)->{n})"]
    vals = c_values([inc], ["driver_types.h"], exprs)
    size, vals = vals[0], vals[1:]
    return fields, size, {n: (vals[2 * i], vals[2 * i + 1], t, c) for i, (t, n, c) in enumerate(fields)}


cuda_fields, cuda_size, cuda_layout = cuda_prop(CUDA_INC)

pxd = open(os.path.join(IN, "rocm/bindings/cyhip.pxd")).read()
hbody = re.search(r'cdef struct hipDeviceProp_t "hipDeviceProp_tR0600":\n(.*?)\n\n', pxd, re.S).group(1)
hip_fields = re.findall(r"^\s+([\w ]+?[\s*]+)(\w+)(?:\[(\d+)\])?\s*$", hbody, re.M)
prop = hip.hipDeviceProp_t()
hip_size = prop.c_sizeof()
base = prop.as_c_void_p().value


def probe(name):
    """Offset of a scalar int field: write a marker through the binding and find it."""
    ctypes.memset(base, 0, hip_size)
    try:
        setattr(prop, name, 0x5A5A1234)
    except Exception:
        return None
    raw = ctypes.string_at(base, hip_size)
    i = raw.find((0x5A5A1234).to_bytes(4, "little"))
    return i if i >= 0 else None


hip_layout = {}
for t, n, c in hip_fields:
    hip_layout[n] = (probe(n), t.strip(), c)
# The binding measures scalar int fields; the rest are placed by C's layout rules from the
# .pxd order and checked against the measured ones (and against c_sizeof) by the tests.
renames = {"sparseCudaArraySupported": "sparseHipArraySupported",
           "deferredMappingCudaArraySupported": "deferredMappingHipArraySupported"}


def write_prop(name, version, prov, fields, size, layout):
    with open(os.path.join(OUT, name), "w") as f:
        header(f, "wheelport-shim-device-prop/1",
               f"struct cudaDeviceProp (CUDA {version}, {size} bytes) <- hipDeviceProp_tR0600 ({hip_size} bytes)",
               f"{prov}; rocm-bindings-hip 10.0.0.0.1.2 rocm/bindings/cyhip.pxd field list, offsets measured on the compiled binding",
               ["cuda_field ctype count cuda_offset cuda_size hip_field hip_offset",
                "hip_offset: measured on the binding for scalar int fields, '?' where the binding cannot",
                "write the field (arrays, structs, size_t: the tests compute it with gcc from the .pxd order),",
                "'-' where HIP has no such field (the shim writes zeros)"])
        f.write(f"@size\t-\t-\t{size}\t{size}\t@size\t{hip_size}\n")
        for t, n, c in fields:
            off, fsize, _, _ = layout[n]
            h = renames.get(n, n)
            # `reserved` bytes carry nothing: not copied (the shim writes zeros), and CUDA 13's
            # reserved array is not HIP's size.
            ho = None if re.fullmatch(r"reserved\d*", n) else hip_layout.get(h)
            hoff = "-" if ho is None else ("?" if ho[0] is None else str(ho[0]))
            f.write(f"{n}\t{' '.join(t.split())}\t{c or 1}\t{off}\t{fsize}\t{h if ho else '-'}\t{hoff}\n")


write_prop("device_prop.tsv", "12.9", PROV_CUDA, cuda_fields, cuda_size, cuda_layout)
# CUDA 13's layout, from the CUDA 13 toolkit's own driver_types.h (nvidia/cu13/include of the
# nvcc 13.5 tools, the CRT_INC directory).
c13_fields, c13_size, c13_layout = cuda_prop(CRT_INC)
write_prop("device_prop13.tsv", "13.5", PROV_CUDA13, c13_fields, c13_size, c13_layout)
with open(os.path.join(OUT, "hip_device_prop.tsv"), "w") as f:
    header(f, "wheelport-shim-hip-struct/1", f"hipDeviceProp_tR0600 ({hip_size} bytes), in declaration order",
           "rocm-bindings-hip 10.0.0.0.1.2 rocm/bindings/cyhip.pxd; offsets measured on the compiled binding",
           ["field ctype count measured_offset ('?': not measurable through the binding)"])
    for t, n, c in hip_fields:
        o = hip_layout[n][0]
        f.write(f"{n}\t{' '.join(t.split())}\t{c or 1}\t{'?' if o is None else o}\n")

# 4. cuBLAS enums the shim translates.
cublas_h = os.path.join(CUBLAS_INC, "cublas_api.h")
groups = [("cublasStatus_t", "hipblasStatus_t", lambda n: n.replace("CUBLAS_", "HIPBLAS_")),
          ("cublasOperation_t", "hipblasOperation_t", lambda n: n.replace("CUBLAS_", "HIPBLAS_")),
          ("cublasFillMode_t", "hipblasFillMode_t", lambda n: n.replace("CUBLAS_", "HIPBLAS_")),
          ("cublasDiagType_t", "hipblasDiagType_t", lambda n: n.replace("CUBLAS_", "HIPBLAS_")),
          ("cublasSideMode_t", "hipblasSideMode_t", lambda n: n.replace("CUBLAS_", "HIPBLAS_")),
          ("cublasPointerMode_t", "hipblasPointerMode_t", lambda n: n.replace("CUBLAS_", "HIPBLAS_")),
          ("cublasComputeType_t", "hipblasComputeType_t", lambda n: n.replace("CUBLAS_", "HIPBLAS_"))]
with open(os.path.join(OUT, "cublas_enums.tsv"), "w") as f:
    header(f, "wheelport-shim-cublas-enums/1", "cuBLAS 12.9 enums -> hipBLAS",
           f"{PROV_CUBLAS}; {PROV_HIPBLAS}; {PROV_HIP} (hipDataType)",
           ["enum cuda_name cuda_value hip_name hip_value ('-': no hipBLAS counterpart)"])
    for cu, hp, ren in groups:
        names = enum_names(cublas_h, cu)
        # cublas_api.h pulls in cuda_fp16.h, which needs CCCL's <nv/target> even in C: compile
        # the enum's typedef cut verbatim out of the header instead.
        text = open(cublas_h).read()
        decl = re.search(r"typedef\s+enum\s*\{[^{}]*\}\s*" + cu + r"\s*;", text, re.S).group(0)
        vals = c_values([], [], names, prelude=decl + "\n")
        hvals = {m.name: int(m) for m in getattr(hipblas, hp)}
        for n, v in zip(names, vals):
            h = ren(n)
            hv = hvals.get(h)
            f.write(f"{cu}\t{n}\t{v}\t{h if hv is not None else '-'}\t{hv if hv is not None else '-'}\n")
    names = enum_names(os.path.join(CUDA_INC, "library_types.h"), "cudaDataType_t")
    vals = c_values([CUDA_INC], ["library_types.h"], names)
    hvals = {m.name: int(m) for m in hip.hipDataType}
    for n, v in zip(names, vals):
        h = n.replace("CUDA_", "HIP_")
        hv = hvals.get(h)
        f.write(f"cudaDataType_t\t{n}\t{v}\t{h if hv is not None else '-'}\t{hv if hv is not None else '-'}\n")

# 5. Driver functions by name (cudaGetDriverEntryPoint).
with open(os.path.join(OUT, "driver_entry.tsv"), "w") as f:
    header(f, "wheelport-shim-driver-entry/1", "CUDA driver API names -> HIP function names",
           PROV_MAP, ["cuda_name hip_name (functions only: the hip name is a declared HIP function)"])
    declared = set(re.findall(r"^cdef \w[\w *]* (hip\w+)\(", pxd, re.M))
    for cu, hp in sorted(drv_pairs.items()):
        if cu.startswith("cu") and not cu.startswith("cuda") and hp in declared:
            f.write(f"{cu}\t{hp}\n")

# 6. cudaFuncAttributes / cudaPointerAttributes (CUDA 12.9, gcc) and their HIP counterparts.
driver_types = open(os.path.join(CUDA_INC, "driver_types.h")).read()


def cuda_struct(name):
    body = re.search(r"struct __device_builtin__ " + name + r"\s*\{(.*?)\n\};", driver_types, re.S).group(1)
    body = re.sub(r"/\*.*?\*/", "", body, flags=re.S)
    fields = re.findall(r"^\s*([\w ]+?[\s*]+)(\w+)(?:\[(\d+)\])?\s*;", body, re.M)
    exprs = [f"sizeof(struct {name})"]
    for t, n, c in fields:
        exprs += [f"offsetof(struct {name}, {n})", f"sizeof(((struct {name}*)0)->{n})"]
    v = c_values([CUDA_INC], ["driver_types.h"], exprs)
    return v[0], [(" ".join(t.split()), n, int(c or 1), v[1 + 2 * i], v[2 + 2 * i]) for i, (t, n, c) in enumerate(fields)]


def hip_struct(name):
    body = re.search(r"cdef struct " + name + r":\n(.*?)\n\n", pxd, re.S).group(1)
    fields = re.findall(r"^\s+([\w ]+?[\s*]+)(\w+)(?:\[(\d+)\])?\s*$", body, re.M)
    obj = getattr(hip, name)()
    size, b = obj.c_sizeof(), obj.as_c_void_p().value
    out = []
    for t, n, c in fields:
        ctypes.memset(b, 0, size)
        off = None
        try:
            setattr(obj, n, 0x5A5A1234)
            i = ctypes.string_at(b, size).find((0x5A5A1234).to_bytes(4, "little"))
            off = i if i >= 0 else None
        except Exception:
            pass
        out.append((" ".join(t.split()), n, int(c or 1), off))
    return size, out


with open(os.path.join(OUT, "structs.tsv"), "w") as f:
    header(f, "wheelport-shim-structs/1",
           "cudaFuncAttributes, cudaPointerAttributes (CUDA 12.9) and hipFuncAttributes, hipPointerAttribute_t",
           f"{PROV_CUDA}; rocm-bindings-hip 10.0.0.0.1.2 rocm/bindings/cyhip.pxd field lists, offsets measured on the compiled binding, sizes its c_sizeof()",
           ["struct field ctype count offset size; the first row of each struct is '@size' with the struct size",
            "in the offset column; CUDA offsets and sizes printed by gcc; HIP offsets measured on the binding",
            "for fields it can write ('?' otherwise: the tests compute them with gcc from the .pxd order), HIP field sizes '?'"])
    for cname, hname in (("cudaFuncAttributes", "hipFuncAttributes"), ("cudaPointerAttributes", "hipPointerAttribute_t")):
        size, fields = cuda_struct(cname)
        f.write(f"{cname}\t@size\t-\t-\t{size}\t-\n")
        for t, n, c, off, sz in fields:
            f.write(f"{cname}\t{n}\t{t}\t{c}\t{off}\t{sz}\n")
        size, fields = hip_struct(hname)
        f.write(f"{hname}\t@size\t-\t-\t{size}\t-\n")
        for t, n, c, off in fields:
            f.write(f"{hname}\t{n}\t{t}\t{c}\t{'?' if off is None else off}\t?\n")

# 7. Runtime enums the shim translates: cudaFuncAttribute, cudaMemoryType (CUDA 12.9),
#    cudaMemLocationType (CUDA 13.5, whose cudaMemPrefetchAsync/cudaMemAdvise take a location),
#    and HIP's hipCpuDeviceId.
with open(os.path.join(OUT, "runtime_enums.tsv"), "w") as f:
    header(f, "wheelport-shim-runtime-enums/1",
           "cudaFuncAttribute, cudaMemoryType (CUDA 12.9), cudaMemLocationType (CUDA 13.5) <-> hipFuncAttribute, hipMemoryType, hipMemLocationType; hipCpuDeviceId",
           f"{PROV_CUDA}; {PROV_CUDA13}; {PROV_HIP}; {PROV_MAP}",
           ["enum cuda_name cuda_value hip_name hip_value ('-': no counterpart); one row per CUDA enumerator",
            "(paired by hip-python-interop, else by the name rule cudaX -> hipX), then one per HIP",
            "enumerator that no CUDA row reaches (cuda '-'); enum 'constant': a HIP constant"])
    for cu, hp, inc in (("cudaFuncAttribute", "hipFuncAttribute", CUDA_INC), ("cudaMemoryType", "hipMemoryType", CUDA_INC),
                        ("cudaMemLocationType", "hipMemLocationType", CRT_INC)):
        names = enum_names(os.path.join(inc, "driver_types.h"), cu)
        vals = c_values([inc], ["driver_types.h"], names)
        hvals = {m.name: int(m) for m in getattr(hip, hp)}
        used = set()
        for n, v in zip(names, vals):
            h = rt_pairs.get(n) or ("hip" + n[4:])
            hv = hvals.get(h) if h else None
            if hv is not None:
                used.add(h)
            f.write(f"{cu}\t{n}\t{v}\t{h if hv is not None else '-'}\t{hv if hv is not None else '-'}\n")
        for h, hv in hvals.items():
            if h not in used:
                f.write(f"{cu}\t-\t-\t{h}\t{hv}\n")
    f.write(f"constant\t-\t-\thipCpuDeviceId\t{int(hip.hipCpuDeviceId)}\n")
print("ok", cuda_size, c13_size, hip_size)
