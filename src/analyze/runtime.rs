//! Which CUDA runtime an object uses: none, the shared `libcudart` (possibly a copy that
//! auditwheel vendored under a hashed name), or a runtime linked into the object itself.
//!
//! A statically linked runtime (`nvcc -cudart static`, the default; CuPy, XGBoost, RAPIDS,
//! libraries such as nvjpeg) has no `libcudart` in DT_NEEDED: its `__cudaRegisterFatBinary`
//! is the object's own function and it reaches the GPU through the driver API, which it loads
//! with `dlopen("libcuda.so.1")` and `cuGetProcAddress`. It is recognised by that function in
//! `.symtab`, or, in a stripped object, by the driver loader's strings (`libcuda.so.1` and
//! `cuGetProcAddress`) in its read-only data.

use serde::{Deserialize, Serialize};

/// The CUDA runtime an object uses.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum CudaRuntime {
    /// No CUDA runtime: no `libcudart` needed, none linked in.
    None,
    /// The shared runtime, through DT_NEEDED.
    Dynamic {
        /// The DT_NEEDED entry (`libcudart.so.12`, or a vendored `libcudart.3eda8113.so.13`).
        needed: String,
        /// The runtime's soname with auditwheel's hash removed (`libcudart.so.13`).
        soname: String,
        /// True when the entry names a copy vendored into the wheel (a hashed name).
        vendored: bool,
    },
    /// A runtime linked into the object.
    Static {
        /// What shows it, for reports.
        evidence: String,
    },
}

/// The soname of a library that auditwheel vendored under a hashed name
/// (`libcudart-3eda8113.so.12`, `libnvjpeg.4a0b5c81.so.13` → `libcudart.so.12`,
/// `libnvjpeg.so.13`), or `None` when `name` has no such hash. The hash is what auditwheel's
/// `repair` inserts: 8 lowercase hex digits after `-` or `.`, just before `.so`.
pub fn unvendored(name: &str) -> Option<String> {
    let at = name.find(".so")?;
    let (head, tail) = name.split_at(at);
    if head.len() < 10 {
        return None;
    }
    let (stem, hash) = head.split_at(head.len() - 8);
    let sep = stem.chars().last()?;
    let is_hex = hash
        .bytes()
        .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
    if !is_hex || !(sep == '-' || sep == '.') {
        return None;
    }
    Some(format!("{}{tail}", &stem[..stem.len() - 1]))
}

/// The CUDA-stack library that the object at `path` (a wheel member or file path) is a
/// vendored copy of: its file name carries auditwheel's hash and, without it, names a CUDA
/// library (`torchvision.libs/libnvjpeg.4a0b5c81.so.13` → `libnvjpeg.so.13`).
pub fn vendored_cuda_library(path: &str) -> Option<String> {
    let name = path.rsplit('/').next().unwrap_or(path);
    unvendored(name).filter(|s| crate::inspect::cuda_stack::is_cuda_library(s))
}

/// `name` with a vendored hash removed, else `name` itself.
pub fn canonical_soname(name: &str) -> String {
    unvendored(name).unwrap_or_else(|| name.to_string())
}

/// Strings of the driver-API loader in CUDA's static runtime (CUDA 12 and 13): the library it
/// opens and the entry point it resolves everything else through.
const STATIC_RUNTIME_STRINGS: [&[u8]; 2] = [b"libcuda.so.1\0", b"cuGetProcAddress\0"];

/// Decide the runtime of an object from its DT_NEEDED list, whether `.symtab` defines
/// `__cudaRegisterFatBinary`, and its read-only data sections (`rodata`: their bytes).
pub fn detect<'a>(
    needed: &[String],
    defines_register: bool,
    rodata: impl Iterator<Item = &'a [u8]>,
) -> CudaRuntime {
    for n in needed {
        let canon = canonical_soname(n);
        if canon.starts_with("libcudart.so") {
            return CudaRuntime::Dynamic {
                needed: n.clone(),
                vendored: canon != *n,
                soname: canon,
            };
        }
    }
    if defines_register {
        return CudaRuntime::Static {
            evidence: "the object defines __cudaRegisterFatBinary (.symtab): a statically linked CUDA runtime".into(),
        };
    }
    let mut seen = [false; 2];
    for d in rodata {
        for (i, s) in STATIC_RUNTIME_STRINGS.iter().enumerate() {
            if !seen[i] && memchr::memmem::find(d, s).is_some() {
                seen[i] = true;
            }
        }
    }
    if seen.iter().all(|&x| x) {
        return CudaRuntime::Static {
            evidence: "no libcudart in DT_NEEDED, and the object holds the CUDA runtime's driver loader (`libcuda.so.1`, `cuGetProcAddress`): a statically linked CUDA runtime".into(),
        };
    }
    CudaRuntime::None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auditwheel_hashes_are_removed() {
        assert_eq!(
            unvendored("libcudart.3eda8113.so.13").as_deref(),
            Some("libcudart.so.13")
        );
        assert_eq!(
            unvendored("libcudart-3eda8113.so.12.9.79").as_deref(),
            Some("libcudart.so.12.9.79")
        );
        assert_eq!(unvendored("libcudart.so.12"), None);
        assert_eq!(unvendored("libc10_cuda.so"), None);
        assert_eq!(
            unvendored("libx-ABCDEF12.so.1"),
            None,
            "upper-case is no hash"
        );
    }

    #[test]
    fn runtime_kinds() {
        let n = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert!(matches!(
            detect(&n(&["libc.so.6", "libcudart.3eda8113.so.13"]), false, std::iter::empty()),
            CudaRuntime::Dynamic { vendored: true, ref soname, .. } if soname == "libcudart.so.13"
        ));
        assert!(matches!(
            detect(&n(&["libc.so.6"]), true, std::iter::empty()),
            CudaRuntime::Static { .. }
        ));
        let ro: &[u8] = b"x\0libcuda.so.1\0y\0cuGetProcAddress\0";
        assert!(matches!(
            detect(&n(&["libc.so.6"]), false, std::iter::once(ro)),
            CudaRuntime::Static { .. }
        ));
        assert_eq!(
            detect(
                &n(&["libc.so.6"]),
                false,
                std::iter::once(&b"libcuda.so.1\0"[..])
            ),
            CudaRuntime::None
        );
    }
}
