//! The shim's data tables (`shims/hip/tables/*.tsv`) and the C header the build makes of them.
//!
//! The TSV files are written by `shims/hip/tools/gen_shim_tables.py` from real headers (see
//! each file's `#% provenance:`): CUDA 12.9's `driver_types.h`, `library_types.h` and cuBLAS
//! 12.9's `cublas_api.h` (values and offsets printed by gcc), and ROCm's HIP and hipBLAS
//! headers as compiled into AMD's `rocm-bindings-hip`/`rocm-bindings-libraries` 10.0.0.0.1.2.
//! [`c_header`] turns them into `wheelport_shim_tables.h`, which `shims/hip/wheelport_shim.c`
//! includes: the two device-property structs, the field copy list and the value tables.
//!
//! Every file: `#` comment lines (`#%` directives first), then tab-separated rows; `-` means
//! "none".

use std::fmt::Write;

/// `errors.tsv`: `cuda_name cuda_value hip_name hip_value` (cudaError_t ↔ hipError_t).
pub const ERRORS_TSV: &str = include_str!("../../shims/hip/tables/errors.tsv");
/// `device_attr.tsv`: `cuda_name cuda_value hip_name hip_value` (cudaDeviceAttr →
/// hipDeviceAttribute_t).
pub const DEVICE_ATTR_TSV: &str = include_str!("../../shims/hip/tables/device_attr.tsv");
/// `device_prop.tsv`: `cuda_field ctype count cuda_offset cuda_size hip_field hip_offset`,
/// the fields of CUDA 12.9's `struct cudaDeviceProp` in order; the first row (`@size`) gives
/// both struct sizes (1032 and 1472 bytes).
pub const DEVICE_PROP_TSV: &str = include_str!("../../shims/hip/tables/device_prop.tsv");
/// `device_prop13.tsv`: the same columns for CUDA 13.5's `struct cudaDeviceProp` (1008 bytes:
/// the fields CUDA 13 removed are gone, later fields moved, seven fields added).
pub const DEVICE_PROP13_TSV: &str = include_str!("../../shims/hip/tables/device_prop13.tsv");
/// `hip_device_prop.tsv`: `field ctype count measured_offset`, the fields of
/// `hipDeviceProp_tR0600` in declaration order (`?` where the binding could not measure).
pub const HIP_DEVICE_PROP_TSV: &str = include_str!("../../shims/hip/tables/hip_device_prop.tsv");
/// `cublas_enums.tsv`: `enum cuda_name cuda_value hip_name hip_value` (cuBLAS → hipBLAS,
/// cudaDataType_t → hipDataType).
pub const CUBLAS_ENUMS_TSV: &str = include_str!("../../shims/hip/tables/cublas_enums.tsv");
/// `driver_layer.tsv`: `name first_version next_version symbol`, the entry points the
/// driver-API layer (`shims/hip/wheelport_driver.c`) serves through `cuGetProcAddress`, each
/// for requested versions `first <= v < next` (`next` 0: no later prototype), from CUDA's
/// `cudaTypedefs.h` (`shims/hip/tools/gen_driver_layer.py`).
pub const DRIVER_LAYER_TSV: &str = include_str!("../../shims/hip/tables/driver_layer.tsv");
/// `driver_entry.tsv`: `cuda_name hip_name` (CUDA driver API function → HIP function).
pub const DRIVER_ENTRY_TSV: &str = include_str!("../../shims/hip/tables/driver_entry.tsv");

/// `launch.tsv`: `cudaLaunchConfig_t`/`cudaLaunchAttribute` offsets and sizes and
/// `cudaLaunchAttributeID` values against HIP's (CUDA 13.5 `driver_types.h`, HIP's
/// `hip_runtime_api.h` excerpt in `shims/hip/headers/`); equal on every paired row, which is
/// why `wpcuLaunchKernelExC` passes the config through.
pub const LAUNCH_TSV: &str = include_str!("../../shims/hip/tables/launch.tsv");
/// `code_thunks.tsv`: `cuda_name shim_name hip_name`, the runtime entry points whose HIP
/// function takes the same parameters but can answer a differently numbered error: the shim
/// defines `shim_name` as an x86-64 thunk that calls `hip_name` and translates its result.
pub const CODE_THUNKS_TSV: &str = include_str!("../../shims/hip/tables/code_thunks.tsv");
/// HIP header excerpt (MIT, provenance in its header) that tests compile to check
/// `errors.tsv` and `launch.tsv`.
pub const HIP_HEADER_EXCERPT: &str =
    include_str!("../../shims/hip/headers/hip_runtime_api_excerpt.h");
/// `structs.tsv`: `struct field ctype count offset size` for `cudaFuncAttributes`,
/// `cudaPointerAttributes` (CUDA 12.9, gcc) and `hipFuncAttributes`, `hipPointerAttribute_t`
/// (field order of `cyhip.pxd`, offsets measured on the binding, `?` where it cannot); each
/// struct's first row is `@size` with the struct size in the `size` column.
pub const STRUCTS_TSV: &str = include_str!("../../shims/hip/tables/structs.tsv");
/// `runtime_enums.tsv`: `enum cuda_name cuda_value hip_name hip_value` (cudaFuncAttribute →
/// hipFuncAttribute, cudaMemoryType ↔ hipMemoryType).
pub const RUNTIME_ENUMS_TSV: &str = include_str!("../../shims/hip/tables/runtime_enums.tsv");

/// The data rows of a table: comment lines dropped, columns split at tabs.
pub fn rows(tsv: &str) -> impl Iterator<Item = Vec<&str>> {
    tsv.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| l.split('\t').collect())
}

/// One field of a device-property struct, as the tables give it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Field {
    /// Field name.
    pub name: String,
    /// C type as written in the header (`int`, `size_t`, `cudaUUID_t`, `hipDeviceArch_t`, ...).
    pub ctype: String,
    /// Array length (1 for a scalar).
    pub count: usize,
    /// Offset in bytes, when the table records one.
    pub offset: Option<usize>,
}

/// The fields of CUDA 12.9's `struct cudaDeviceProp`, in order, with their gcc offsets; and
/// the struct size.
pub fn cuda_device_prop() -> (Vec<Field>, usize) {
    device_prop_of(DEVICE_PROP_TSV)
}

/// The fields of CUDA 13.5's `struct cudaDeviceProp` (`device_prop13.tsv`), in order, with
/// their gcc offsets; and the struct size.
pub fn cuda13_device_prop() -> (Vec<Field>, usize) {
    device_prop_of(DEVICE_PROP13_TSV)
}

fn device_prop_of(tsv: &str) -> (Vec<Field>, usize) {
    let mut size = 0;
    let mut out = Vec::new();
    for r in rows(tsv) {
        if r[0] == "@size" {
            size = r[3].parse().unwrap_or(0);
            continue;
        }
        out.push(Field {
            name: r[0].into(),
            ctype: r[1].into(),
            count: r[2].parse().unwrap_or(1),
            offset: r[3].parse().ok(),
        });
    }
    (out, size)
}

/// The fields of `hipDeviceProp_tR0600`, in order, with the offsets measured on the binding
/// (`None` where it could not measure); and the struct size (from `device_prop.tsv`'s `@size`
/// row).
pub fn hip_device_prop() -> (Vec<Field>, usize) {
    let size = rows(DEVICE_PROP_TSV)
        .find(|r| r[0] == "@size")
        .and_then(|r| r[6].parse().ok())
        .unwrap_or(0);
    let out = rows(HIP_DEVICE_PROP_TSV)
        .map(|r| Field {
            name: r[0].into(),
            ctype: r[1].into(),
            count: r[2].parse().unwrap_or(1),
            offset: r[3].parse().ok(),
        })
        .collect();
    (out, size)
}

/// `(cuda field, hip field)` pairs copied by `cudaGetDeviceProperties_v2` (CUDA 12 layout).
pub fn device_prop_copies() -> Vec<(String, String)> {
    prop_copies(DEVICE_PROP_TSV)
}

/// `(cuda field, hip field)` pairs copied into CUDA 13's layout.
pub fn device_prop13_copies() -> Vec<(String, String)> {
    prop_copies(DEVICE_PROP13_TSV)
}

fn prop_copies(tsv: &str) -> Vec<(String, String)> {
    rows(tsv)
        .filter(|r| r[0] != "@size" && r[5] != "-")
        .map(|r| (r[0].to_string(), r[5].to_string()))
        .collect()
}

/// `(cuda value, hip value)` pairs of a two-sided table (`errors.tsv`, `device_attr.tsv`):
/// rows where both sides exist.
pub fn value_pairs(tsv: &str) -> Vec<(i64, i64)> {
    rows(tsv)
        .filter_map(|r| Some((r[1].parse().ok()?, r[3].parse().ok()?)))
        .collect()
}

/// `(shim name, HIP name)` of every code thunk (`code_thunks.tsv`).
pub fn code_thunks() -> Vec<(&'static str, &'static str)> {
    rows(CODE_THUNKS_TSV).map(|r| (r[1], r[2])).collect()
}

/// `(cuda value, cuda name)` of every `cudaError_t` enumerator of `errors.tsv` that has no
/// `hipError_t` counterpart (hip columns `-`): the shim names these itself, since HIP may use
/// the same number for another error (CUDA 911 cudaErrorExternalDevice, HIP 911
/// hipErrorInvalidChannelDescriptor).
pub fn cuda_only_errors() -> Vec<(i64, String)> {
    rows(ERRORS_TSV)
        .filter(|r| r[2] == "-" && r[3] == "-")
        .filter_map(|r| Some((r[1].parse().ok()?, r[0].to_string())))
        .collect()
}

/// `(cuda value, hip value)` pairs of one enum of `cublas_enums.tsv` (e.g.
/// `cublasOperation_t`), rows where both sides exist.
pub fn cublas_pairs(enum_name: &str) -> Vec<(i64, i64)> {
    rows(CUBLAS_ENUMS_TSV)
        .filter(|r| r[0] == enum_name)
        .filter_map(|r| Some((r[2].parse().ok()?, r[4].parse().ok()?)))
        .collect()
}

/// The fields of one struct of `structs.tsv` (`cudaFuncAttributes`, `hipFuncAttributes`,
/// `cudaPointerAttributes`, `hipPointerAttribute_t`) in declaration order, and its size in
/// bytes (the `@size` row).
pub fn small_struct(name: &str) -> (Vec<Field>, usize) {
    let mut size = 0;
    let mut out = Vec::new();
    for r in rows(STRUCTS_TSV).filter(|r| r[0] == name) {
        if r[1] == "@size" {
            size = r[4].parse().unwrap_or(0);
            continue;
        }
        out.push(Field {
            name: r[1].into(),
            ctype: r[2].into(),
            count: r[3].parse().unwrap_or(1),
            offset: r[4].parse().ok(),
        });
    }
    (out, size)
}

/// `(cuda value, hip value)` pairs of one enum of `runtime_enums.tsv` (`cudaFuncAttribute`,
/// `cudaMemoryType`), rows where both sides exist.
pub fn runtime_enum_pairs(enum_name: &str) -> Vec<(i64, i64)> {
    rows(RUNTIME_ENUMS_TSV)
        .filter(|r| r[0] == enum_name)
        .filter_map(|r| Some((r[2].parse().ok()?, r[4].parse().ok()?)))
        .collect()
}

/// The fields two structs share by name, in the CUDA struct's order: what the shim copies.
pub fn shared_fields(cuda: &str, hip: &str) -> Vec<String> {
    let (h, _) = small_struct(hip);
    small_struct(cuda)
        .0
        .into_iter()
        .filter(|f| h.iter().any(|g| g.name == f.name))
        .map(|f| f.name)
        .collect()
}

/// The C spelling of a table type: the UUID structs and HIP's 4-byte bitfield struct
/// `hipDeviceArch_t` (21 one-bit `unsigned int` fields) get stand-ins of the same layout.
fn c_type(t: &str) -> &str {
    match t {
        "cudaUUID_t" | "hipUUID_t" => "wp_uuid_t",
        "hipDeviceArch_t" => "wp_arch_t",
        // enums are int-sized in both ABIs (System V x86-64: an enum with values in int range)
        "enum cudaMemoryType" | "hipMemoryType" => "int",
        o => o,
    }
}

fn struct_decl(out: &mut String, name: &str, fields: &[Field]) {
    let _ = writeln!(out, "struct {name} {{");
    for f in fields {
        let ty = c_type(&f.ctype);
        let (ty, ptr) = match ty.strip_suffix('*') {
            Some(base) => (base.trim_end(), "*"),
            None => (ty, ""),
        };
        if f.count > 1 {
            let _ = writeln!(out, "    {ty} {ptr}{}[{}];", f.name, f.count);
        } else {
            let _ = writeln!(out, "    {ty} {ptr}{};", f.name);
        }
    }
    let _ = writeln!(out, "}};");
}

fn pair_table(out: &mut String, name: &str, pairs: &[(i64, i64)]) {
    let _ = writeln!(out, "static const struct wp_pair {name}[] = {{");
    for (c, h) in pairs {
        let _ = writeln!(out, "    {{{c}, {h}}},");
    }
    let _ = writeln!(out, "}};");
}

/// The text of `wheelport_shim_tables.h`.
pub fn c_header() -> String {
    let mut o = String::new();
    o.push_str("/* Generated by wheelport (src/shim/tables.rs) from shims/hip/tables/*.tsv; see\n * those files for the provenance of every value. */\n");
    o.push_str("#include <stddef.h>\n#include <stdint.h>\n");
    o.push_str("typedef struct { char bytes[16]; } wp_uuid_t;\n");
    o.push_str("typedef struct { unsigned int bits; } wp_arch_t; /* hipDeviceArch_t: 4 bytes */\n");
    o.push_str("struct wp_pair { int cuda, hip; };\n");
    o.push_str("struct wp_names { const char *cuda, *hip; };\n");
    o.push_str("#define WP_N(a) (sizeof(a) / sizeof((a)[0]))\n");
    let (cuda, cuda_size) = cuda_device_prop();
    let (hip, hip_size) = hip_device_prop();
    let (cuda13, cuda13_size) = cuda13_device_prop();
    struct_decl(&mut o, "wp_cudaDeviceProp", &cuda);
    struct_decl(&mut o, "wp_cuda13DeviceProp", &cuda13);
    struct_decl(&mut o, "wp_hipDeviceProp", &hip);
    let _ = writeln!(
        o,
        "_Static_assert(sizeof(struct wp_cudaDeviceProp) == {cuda_size}, \"cudaDeviceProp size\");"
    );
    let _ = writeln!(
        o,
        "_Static_assert(sizeof(struct wp_cuda13DeviceProp) == {cuda13_size}, \"CUDA 13 cudaDeviceProp size\");"
    );
    let _ = writeln!(
        o,
        "_Static_assert(sizeof(struct wp_hipDeviceProp) == {hip_size}, \"hipDeviceProp_tR0600 size\");"
    );
    for (cuda, hip, c_cuda, c_hip, copy) in [
        (
            "cudaFuncAttributes",
            "hipFuncAttributes",
            "wp_cudaFuncAttributes",
            "wp_hipFuncAttributes",
            "WP_FUNC_ATTR_COPY",
        ),
        (
            "cudaPointerAttributes",
            "hipPointerAttribute_t",
            "wp_cudaPointerAttributes",
            "wp_hipPointerAttribute",
            "WP_POINTER_ATTR_COPY",
        ),
    ] {
        for (name, c_name) in [(cuda, c_cuda), (hip, c_hip)] {
            let (fields, size) = small_struct(name);
            struct_decl(&mut o, c_name, &fields);
            let _ = writeln!(
                o,
                "_Static_assert(sizeof(struct {c_name}) == {size}, \"{name} size\");"
            );
        }
        let _ = writeln!(o, "#define {copy}(X) \\");
        for f in shared_fields(cuda, hip) {
            let _ = writeln!(o, "    X({f}) \\");
        }
        o.push('\n');
    }
    o.push_str("#define WP_PROP_COPY(X) \\\n");
    for (c, h) in device_prop_copies() {
        let _ = writeln!(o, "    X({c}, {h}) \\");
    }
    o.push('\n');
    o.push_str("#define WP_PROP13_COPY(X) \\\n");
    for (c, h) in device_prop13_copies() {
        let _ = writeln!(o, "    X({c}, {h}) \\");
    }
    o.push('\n');
    pair_table(&mut o, "wp_error_pairs", &value_pairs(ERRORS_TSV));
    o.push_str("struct wp_named { int cuda; const char *name; };\n");
    o.push_str("static const struct wp_named wp_cuda_only_errors[] = {\n");
    for (v, n) in cuda_only_errors() {
        let _ = writeln!(o, "    {{{v}, \"{n}\"}},");
    }
    o.push_str("};\n");
    o.push_str("#define WP_CODE_THUNKS(X) \\\n");
    for (shim, hip) in code_thunks() {
        let _ = writeln!(o, "    X({shim}, {hip}) \\");
    }
    o.push('\n');
    o.push_str("static const int wp_hip_only_errors[] = {");
    for r in rows(ERRORS_TSV).filter(|r| r[0] == "-" && r[1] == "-") {
        let _ = write!(o, "{}, ", r[3]);
    }
    o.push_str("};\n");
    pair_table(&mut o, "wp_attr_pairs", &value_pairs(DEVICE_ATTR_TSV));
    pair_table(
        &mut o,
        "wp_func_attr_pairs",
        &runtime_enum_pairs("cudaFuncAttribute"),
    );
    pair_table(
        &mut o,
        "wp_memtype_pairs",
        &runtime_enum_pairs("cudaMemoryType"),
    );
    if let Some(r) = rows(RUNTIME_ENUMS_TSV).find(|r| r[1] == "cudaMemoryTypeDevice") {
        let _ = writeln!(o, "#define WP_CUDA_MEMORY_TYPE_DEVICE {}", r[2]);
    }
    // CUDA 13's cudaMemLocationType values and HIP's CPU device id (runtime_enums.tsv), and
    // cudaDevAttrWarpSize (device_attr.tsv).
    for (cuda, define) in [
        ("cudaMemLocationTypeDevice", "WP_CUDA_MEM_LOCATION_DEVICE"),
        ("cudaMemLocationTypeHost", "WP_CUDA_MEM_LOCATION_HOST"),
        (
            "cudaMemLocationTypeHostNuma",
            "WP_CUDA_MEM_LOCATION_HOST_NUMA",
        ),
        (
            "cudaMemLocationTypeHostNumaCurrent",
            "WP_CUDA_MEM_LOCATION_HOST_NUMA_CURRENT",
        ),
    ] {
        if let Some(r) = rows(RUNTIME_ENUMS_TSV).find(|r| r[1] == cuda) {
            let _ = writeln!(o, "#define {define} {}", r[2]);
        }
    }
    if let Some(r) =
        rows(RUNTIME_ENUMS_TSV).find(|r| r[0] == "constant" && r[3] == "hipCpuDeviceId")
    {
        let _ = writeln!(o, "#define WP_HIP_CPU_DEVICE_ID ({})", r[4]);
    }
    if let Some(r) = rows(DEVICE_ATTR_TSV).find(|r| r[0] == "cudaDevAttrWarpSize") {
        let _ = writeln!(o, "#define WP_CUDA_DEV_ATTR_WARP_SIZE {}", r[1]);
    }
    for (e, n) in [
        ("cublasStatus_t", "wp_blas_status"),
        ("cublasOperation_t", "wp_blas_op"),
        ("cublasFillMode_t", "wp_blas_fill"),
        ("cublasDiagType_t", "wp_blas_diag"),
        ("cublasSideMode_t", "wp_blas_side"),
        ("cublasPointerMode_t", "wp_blas_pointer"),
        ("cublasComputeType_t", "wp_blas_compute"),
        ("cudaDataType_t", "wp_data_type"),
    ] {
        pair_table(&mut o, n, &cublas_pairs(e));
    }
    o.push_str("#define WP_DRIVER_ENTRIES(X) \\\n");
    for r in rows(DRIVER_LAYER_TSV) {
        let _ = writeln!(o, "    X(\"{}\", {}, {}, {}) \\", r[0], r[1], r[2], r[3]);
    }
    o.push('\n');
    o.push_str("static const struct wp_names wp_driver_names[] = {\n");
    for r in rows(DRIVER_ENTRY_TSV) {
        let _ = writeln!(o, "    {{\"{}\", \"{}\"}},", r[0], r[1]);
    }
    o.push_str("};\n");
    o
}
