//! The load check: would a written ELF object load on the target, the way the dynamic
//! loader resolves it?
//!
//! [`load_problems`] reads an output object (after the host rewrite) and lists every reason
//! it would not load or would fail at its first CUDA call on the target:
//!
//! * a DT_NEEDED entry that is a CUDA-stack library ([`crate::inspect::cuda_stack`], a
//!   vendored copy under a hashed name included) on a target whose imports are re-targeted:
//!   the target has no such library. Entries that are shipped by the output (another member
//!   of the wheel, by file name or soname) are checked as those members; other libraries
//!   (the C library, PyTorch, `libstdc++`, the target's own runtime) are the environment's;
//! * a version requirement (`.gnu.version_r`) that names a CUDA-stack library: the loader
//!   looks the version up in a file that is not there;
//! * wheelport's shim library in DT_NEEDED without the shim being shipped where the object's
//!   DT_RUNPATH (or the folder beside a bare `.so`) finds it;
//! * a CUDA runtime linked into the object ([`crate::analyze::runtime::CudaRuntime::Static`])
//!   on a re-targeted stack: it reaches the GPU through NVIDIA's driver API.
//!
//! The `cuda` twin target keeps CUDA, so only the shim rule applies there.

use crate::analyze::runtime::{canonical_soname, CudaRuntime};
use crate::inspect::cuda_stack::is_cuda_library;
use crate::target::Profile;

/// Where the output ships libraries beside the object being checked.
#[derive(Debug, Clone, Default)]
pub struct Shipped {
    /// Sonames and file names of the libraries the output ships (other wheel members, the
    /// shim library).
    pub names: Vec<String>,
}

impl Shipped {
    fn has(&self, name: &str) -> bool {
        self.names.iter().any(|n| n == name)
    }
}

/// Why the object `data` (named `file` in messages) would not load on `profile`'s target;
/// empty when it would. `runtime` is the object's CUDA runtime as analysed.
///
/// # Errors
/// None: an object that does not even read as ELF is reported as a problem.
pub fn load_problems(
    data: &[u8],
    file: &str,
    profile: &Profile,
    runtime: &CudaRuntime,
    shipped: &Shipped,
) -> Vec<String> {
    let so = match crate::elf::scan(data, file) {
        Ok(s) => s,
        Err(e) => return vec![format!("the written object does not read as ELF: {e}")],
    };
    let retargeted = profile.relinks();
    let mut out = Vec::new();
    for n in &so.needed {
        if n == crate::shim::SHIM_SONAME {
            if !shipped.has(n) {
                out.push(format!(
                    "needs {n}, wheelport's shim library, which the output does not ship"
                ));
            }
            continue;
        }
        if retargeted && is_cuda_library(n) {
            let canon = canonical_soname(n);
            out.push(if shipped.has(n) {
                format!(
                    "needs {n}, a vendored copy of {canon}: a CUDA library that {} cannot run",
                    profile.name
                )
            } else {
                format!(
                    "needs {canon}, a CUDA library with no counterpart on {}",
                    profile.name
                )
            });
        }
    }
    if retargeted {
        let mut files: Vec<&str> = so
            .imports
            .iter()
            .filter_map(|i| i.version_file.as_deref())
            .filter(|f| is_cuda_library(f))
            .collect();
        files.sort_unstable();
        files.dedup();
        for f in files {
            out.push(format!(
                "imports versioned against {f} (.gnu.version_r), which is not there on {}",
                profile.name
            ));
        }
        if let CudaRuntime::Static { evidence } = runtime {
            out.push(format!(
                "links the CUDA runtime statically ({evidence}); it reaches the GPU through NVIDIA's driver API (libcuda.so.1), and wheelport's {} driver-API layer does not get such a runtime past NVIDIA's private driver tables yet (docs/driver-layer.md)",
                profile.name
            ));
        }
    }
    out
}
