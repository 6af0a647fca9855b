//! Target profiles: what the lowering and the toolchain need to know about one GPU stack.
//!
//! A profile is data, one TOML file per target under `targets/` (`dtk`, `rocm`, `cuda`,
//! `musa`), embedded into the binary with `include_str!`. Adding a target means adding a
//! profile, its relink tables (`relink-tables/<name>/`) and, for a new code family, its
//! device support library (`kernels-ir/`), not editing the core.
//!
//! `cuda` is the NVIDIA twin target: the same lowering built for nvptx64, used to prove on a
//! real NVIDIA GPU that the lowered code computes what the original computes.

use serde::Deserialize;
use std::sync::OnceLock;

/// The code family of a target: which LLVM backend and container the device code goes through.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Family {
    /// AMD GCN/CDNA (`amdgcn-amd-amdhsa`): HIP code objects in a clang offload bundle.
    Amdgcn,
    /// NVIDIA PTX (`nvptx64-nvidia-cuda`): the twin target, PTX in a CUDA fatbin.
    Nvptx,
    /// Moore Threads MUSA: no device compiler available here; host relinking only.
    Musa,
}

/// LLVM address-space numbers for the PTX state spaces (PTX ISA 9.x §5.1) on one target.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
pub struct AddrSpaces {
    /// Generic (flat) pointers.
    pub generic: u32,
    /// `.global`.
    pub global: u32,
    /// `.shared` (LDS on AMDGPU).
    pub shared: u32,
    /// `.const`.
    pub r#const: u32,
    /// `.local` (private/scratch on AMDGPU).
    pub local: u32,
    /// Kernel parameters (`.param` of an `.entry`): the kernarg segment (AMDGPU constant,
    /// 4) or NVPTX's param space (101).
    pub param: u32,
}

/// One target profile, as read from `targets/<name>.toml`.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
pub struct Profile {
    /// The name used on the command line (`--target dtk`).
    pub name: String,
    /// One line for `wheelport doctor` and reports.
    pub description: String,
    /// Backend family.
    pub family: Family,
    /// LLVM target triple, e.g. `amdgcn-amd-amdhsa`.
    pub triple: String,
    /// LLVM `target datalayout` string for emitted modules (empty when the family has no LLVM
    /// backend here).
    pub datalayout: String,
    /// Hardware threads per wavefront/warp (64 on DCU gfx9, 32 on NVIDIA).
    pub wave_size: u32,
    /// Architectures built when `--offload-arch` is not given, e.g. `["gfx906"]`.
    pub default_archs: Vec<String>,
    /// Architectures known to work with this target (others are accepted with a warning).
    pub known_archs: Vec<String>,
    /// Address-space numbers of the PTX state spaces.
    pub addrspace: AddrSpaces,
    /// LLVM calling convention keyword for kernels (`amdgpu_kernel`, `ptx_kernel`).
    pub kernel_cc: String,
    /// Device support library (LLVM IR text), relative to the repository root; empty if none.
    pub ir_library: String,
    /// How device code is carried in the host `.so`: `hip-offload-bundle`, `cuda-fatbin` or
    /// `none`.
    pub container: String,
    /// Offload-bundle entry id prefix; the arch is appended (`hipv4-amdgcn-amd-amdhsa--gfx906`).
    pub bundle_entry_prefix: String,
    /// Environment variables naming a toolchain root, tried in order.
    pub toolchain_env: Vec<String>,
    /// Fixed directories tried after the environment variables.
    pub toolchain_dirs: Vec<String>,
    /// Tools the device build needs (base names; versioned names like `llc-19` are also found).
    pub tools: Vec<String>,
    /// Tools used when found, never reported missing: `llvm-split` (a large module is split
    /// into partitions built in parallel, see [`crate::build`]). Taken from PATH only in the
    /// same LLVM major version as the required tools.
    #[serde(default)]
    pub optional_tools: Vec<String>,
}

const SOURCES: &[(&str, &str)] = &[
    ("dtk", include_str!("../../targets/dtk.toml")),
    ("rocm", include_str!("../../targets/rocm.toml")),
    ("cuda", include_str!("../../targets/cuda.toml")),
    ("musa", include_str!("../../targets/musa.toml")),
];

/// All built-in profiles, in the order `dtk`, `rocm`, `cuda`, `musa`.
///
/// # Panics
/// Never at run time for a released binary: the embedded files are checked by the unit tests.
pub fn builtin() -> &'static [Profile] {
    static P: OnceLock<Vec<Profile>> = OnceLock::new();
    P.get_or_init(|| {
        SOURCES
            .iter()
            .map(|(n, s)| toml::from_str(s).unwrap_or_else(|e| panic!("targets/{n}.toml: {e}")))
            .collect()
    })
}

/// The built-in profile named `name` (`dtk`, `rocm`, `cuda`, `musa`), or `None`.
pub fn profile(name: &str) -> Option<&'static Profile> {
    builtin().iter().find(|p| p.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_profile_parses_and_is_named_after_its_file() {
        for (n, _) in SOURCES {
            let p = profile(n).expect(n);
            assert_eq!(&p.name, n);
            assert!(!p.default_archs.is_empty(), "{n}");
        }
        assert_eq!(profile("dtk").unwrap().wave_size, 64);
        assert_eq!(profile("cuda").unwrap().family, Family::Nvptx);
        assert_eq!(profile("dtk").unwrap().addrspace.local, 5);
        assert!(profile("nope").is_none());
    }
}
