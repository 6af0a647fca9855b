//! Target profiles and code-family backends: what the lowering, the device build and the host
//! rewrite need to know about one GPU stack.
//!
//! A profile is data: one TOML file per target under `targets/` (`dtk`, `rocm`, `cuda`,
//! `musa`, and whatever else is there), completed from the defaults of its code family
//! (`targets/families/<family>.toml`). The [`registry`] embeds every file found at build
//! time; `WHEELPORT_TARGETS_DIR` replaces them at run time by the profiles of another folder.
//! Adding a target or processor is adding a profile (and, for a runtime with other sonames,
//! a relink-table set `relink-tables/<set>/`), not editing the core.
//!
//! What differs between code families in code, not data (the compile steps for an arch, the
//! container of device code, the registration-wrapper magic, the checks of a built object), is
//! the [`Backend`] of the profile's [`Family`]: [`backend::Amdgcn`], [`backend::Nvptx`] and
//! [`backend::NoDevice`].
//!
//! `cuda` is the NVIDIA twin target: the same lowering built for nvptx64, used to prove on a
//! real NVIDIA GPU that the lowered code computes what the original computes.

pub mod backend;
pub mod registry;

pub use backend::Backend;
pub use registry::{builtin, names, profile, registry, Registry, TARGETS_DIR_ENV};

use serde::Deserialize;
use std::collections::BTreeMap;

/// The code family of a target: which backend builds and carries its device code.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Family {
    /// AMD GCN/CDNA/RDNA (`amdgcn-amd-amdhsa`): HIP code objects in a clang offload bundle.
    Amdgcn,
    /// NVIDIA PTX (`nvptx64-nvidia-cuda`): the twin target, PTX in a CUDA fatbin.
    Nvptx,
    /// No device compiler available here (Moore Threads MUSA needs `mcc`): host relinking
    /// only, every kernel reported as not translated.
    None,
}

/// How the lowering writes PTX's clamped `shl`/`shr` (PTX ISA, `shl`/`shr`: amounts above
/// the operand's width are clamped to the width, so `shl`/`shr.u` give 0 and `shr.s` the sign
/// fill), where LLVM's shifts by the width or more are poison. Arithmetic `shr.s` is always a
/// shift by `min(amount, width - 1)`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ShiftClamp {
    /// A shift by `min(amount, width - 1)`, then `select (amount >= width), 0, shifted`.
    #[default]
    Select,
    /// Two shifts, by `h = min(amount, width) / 2` and by `min(amount, width) - h`: no
    /// predicate (the nvptx family's: ptxas 13.5 at `-O3` miscompiles the select form of
    /// CUB's `__half` radix upsweep, docs/identity.md).
    Split,
}

/// What the amdgcn lowering writes for an f32, f16 or bf16 arithmetic result that is NaN.
/// NVIDIA's arithmetic writes its canonical NaN (`0x7fffffff`, `0x7fff`); gfx9 writes the
/// first NaN operand quieted, or `0xffc00000` for an invalid operation (H200 against the
/// executed gfx906/gfx942 code, docs/executed-isa-results.md). f64 NaNs are propagated on
/// both and are left as they are. nvptx targets get NVIDIA's NaNs from the hardware.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum NanMode {
    /// The target's own NaNs, as a source port compiled by hipcc gives (no extra code).
    #[default]
    Native,
    /// NVIDIA's canonical NaN after every f32/f16/bf16 (and `x2`) `add`, `sub`, `mul`,
    /// `fma`/`mad`, `div`, `min`/`max`, `rcp`, `sqrt`, `rsqrt`, approximate function, `abs`
    /// and `neg`, `cvt` to an integral value, f16 to f32 and packed `cvt.f16x2/bf16x2.f32`:
    /// one compare and select per result (`--nan canonical`). Where the H200 keeps the
    /// payload (scalar narrowing `cvt`) it is kept.
    Canonical,
}

impl Family {
    /// The family's name as profiles spell it (`amdgcn`, `nvptx`, `none`).
    pub fn name(self) -> &'static str {
        match self {
            Family::Amdgcn => "amdgcn",
            Family::Nvptx => "nvptx",
            Family::None => "none",
        }
    }

    /// The backend of the family.
    pub fn backend(self) -> &'static dyn Backend {
        match self {
            Family::Amdgcn => &backend::Amdgcn,
            Family::Nvptx => &backend::Nvptx,
            Family::None => &backend::NoDevice,
        }
    }
}

/// LLVM address-space numbers for the PTX state spaces (PTX ISA 9.x §5.1) on one target.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
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

/// Per-processor settings of a profile (`[arch.gfx1100]` in its TOML), over the profile's own.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ArchOverride {
    /// Hardware threads per wavefront on this processor, when it differs from the profile's
    /// [`Profile::wave_size`] (RDNA can run wave32 or wave64).
    #[serde(default)]
    pub wave_size: Option<u32>,
    /// Device support library for this processor, relative to the repository root.
    #[serde(default)]
    pub ir_library: Option<String>,
    /// An overlay of the support library for this processor (LLVM IR, relative to the
    /// repository root), linked before the library so that its definitions replace the
    /// library's (`kernels-ir/amdgcn-gfx10plus.ll`).
    #[serde(default)]
    pub ir_overlay: Option<String>,
    /// LLVM target features for `opt` and `llc` on this processor (`-mattr=`, e.g.
    /// `+wavefrontsize64`).
    #[serde(default)]
    pub mattr: Option<String>,
}

/// One target profile: `targets/<name>.toml` completed from its family's defaults.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Profile {
    /// The name used on the command line (`--target dtk`).
    pub name: String,
    /// One line for `wheelport doctor` and reports.
    pub description: String,
    /// Code family: which [`Backend`] builds and carries the device code.
    pub family: Family,
    /// LLVM target triple, e.g. `amdgcn-amd-amdhsa` (family default).
    pub triple: String,
    /// LLVM `target datalayout` string for emitted modules (family default; empty when the
    /// family has no LLVM backend here).
    pub datalayout: String,
    /// Hardware threads per wavefront/warp (64 on DCU gfx9, 32 on NVIDIA).
    pub wave_size: u32,
    /// Architectures built when `--offload-arch` is not given, e.g. `["gfx906"]`.
    pub default_archs: Vec<String>,
    /// Architectures known to work with this target (others are accepted with a warning).
    pub known_archs: Vec<String>,
    /// Address-space numbers of the PTX state spaces (family default).
    pub addrspace: AddrSpaces,
    /// LLVM calling convention keyword for kernels (`amdgpu_kernel`, `ptx_kernel`; family
    /// default).
    pub kernel_cc: String,
    /// Device support library (LLVM IR text), relative to the repository root; empty if none
    /// (family default).
    pub ir_library: String,
    /// How device code is carried in the host `.so`: `hip-offload-bundle`, `cuda-fatbin` or
    /// `none` (family default; the backend writes it, see [`Backend::container`]).
    pub container: String,
    /// Offload-bundle entry id prefix; the arch is appended (`hipv4-amdgcn-amd-amdhsa--gfx906`;
    /// family default).
    pub bundle_entry_prefix: String,
    /// Environment variables naming a toolchain root, tried in order.
    pub toolchain_env: Vec<String>,
    /// Fixed directories tried after the environment variables.
    pub toolchain_dirs: Vec<String>,
    /// Tools the device build needs (base names; versioned names like `llc-19` are also found;
    /// family default).
    pub tools: Vec<String>,
    /// Extra `llc` arguments for every arch (family default; the amdgcn family's work around
    /// LLVM 19 miscompiles found by executing the code objects, see its defaults file).
    #[serde(default)]
    pub llc_flags: Vec<String>,
    /// How clamped PTX shifts are lowered (family default; [`ShiftClamp`]).
    #[serde(default)]
    pub shift_clamp: ShiftClamp,
    /// NaN results of the amdgcn lowering ([`NanMode`]; `native` unless the profile or
    /// `--nan` says otherwise).
    #[serde(default)]
    pub nan: NanMode,
    /// `ld`/`st` through registers that provably hold addresses into one of the function's
    /// own `.local` variables are written as `getelementptr`s from the variable, and a
    /// `.local` copy of a kernel parameter is read from the parameter, so that LLVM can
    /// promote local variables to registers (family default; the amdgcn family sets it; see
    /// `src/lower/emit/local_addr.rs`).
    #[serde(default)]
    pub local_gep: bool,
    /// Target features for `llc` (`-mattr=`) on archs without their own `mattr` (family
    /// default).
    #[serde(default)]
    pub llc_mattr: Option<String>,
    /// Shared memory (LDS) a work-group may use, in bytes, on every arch of the profile (family
    /// default: 65,536 on amdgcn); 0 when not checked. A kernel whose host code asks for more
    /// dynamic shared memory than this is reported as not translated.
    #[serde(default)]
    pub lds_bytes: u64,
    /// Tools used when found, never reported missing: `llvm-split` (a large module is split
    /// into partitions built in parallel, see [`crate::build`]). Taken from PATH only in the
    /// same LLVM major version as the required tools.
    #[serde(default)]
    pub optional_tools: Vec<String>,
    /// The relink-table set the host rewrite uses (`relink-tables/<set>/`); empty for a
    /// target whose imports stay CUDA (the `cuda` twin).
    #[serde(default)]
    pub relink_tables: String,
    /// The SDK major version soname rows are chosen for (`6` for ROCm 6); absent: rows for
    /// any version.
    #[serde(default)]
    pub sdk: Option<String>,
    /// The shim library for CUDA entry points a rename cannot serve: `hip` (`shims/hip/`), or
    /// empty when the target has none.
    #[serde(default)]
    pub shim: String,
    /// Per-processor overrides (`[arch.<name>]`; a name ending in `*` applies to every
    /// processor it is a prefix of, `[arch."gfx1*"]`; an exact name wins over a pattern, a
    /// longer pattern over a shorter one).
    #[serde(default)]
    pub arch: BTreeMap<String, ArchOverride>,
    /// Where the profile was read from (`targets/dtk.toml`, or the file under
    /// `WHEELPORT_TARGETS_DIR`); set by the registry.
    #[serde(skip)]
    pub source: String,
}

impl Profile {
    /// The backend of the profile's family.
    pub fn backend(&self) -> &'static dyn Backend {
        self.family.backend()
    }

    /// The overrides that apply to `arch`, most specific first (its exact entry, then the
    /// `*` patterns it matches, longest first).
    fn overrides(&self, arch: &str) -> Vec<&ArchOverride> {
        let mut v: Vec<(usize, &ArchOverride)> = self
            .arch
            .iter()
            .filter_map(|(k, o)| match k.strip_suffix('*') {
                Some(prefix) if arch.starts_with(prefix) => Some((prefix.len(), o)),
                None if k == arch => Some((usize::MAX, o)),
                _ => None,
            })
            .collect();
        v.sort_by_key(|(n, _)| std::cmp::Reverse(*n));
        v.into_iter().map(|(_, o)| o).collect()
    }

    /// The wave size on `arch` (its override, else [`Profile::wave_size`]).
    pub fn wave_size_for(&self, arch: &str) -> u32 {
        self.overrides(arch)
            .iter()
            .find_map(|o| o.wave_size)
            .unwrap_or(self.wave_size)
    }

    /// The support library on `arch` (its override, else [`Profile::ir_library`]).
    pub fn ir_library_for(&self, arch: &str) -> &str {
        self.overrides(arch)
            .iter()
            .find_map(|o| o.ir_library.as_deref())
            .unwrap_or(&self.ir_library)
    }

    /// The support-library overlay on `arch` ([`ArchOverride::ir_overlay`]), if an override
    /// names one.
    pub fn ir_overlay_for(&self, arch: &str) -> Option<&str> {
        self.overrides(arch)
            .iter()
            .find_map(|o| o.ir_overlay.as_deref())
    }

    /// The LLVM target features on `arch` (`-mattr=`, for `opt` and `llc`), if an override
    /// sets any.
    pub fn mattr_for(&self, arch: &str) -> Option<&str> {
        self.overrides(arch).iter().find_map(|o| o.mattr.as_deref())
    }

    /// Whether the host rewrite re-targets imports (a relink-table set is named).
    pub fn relinks(&self) -> bool {
        !self.relink_tables.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_profile_parses_and_is_named_after_its_file() {
        for (n, _, _) in registry::EMBEDDED_PROFILES {
            let p = profile(n).expect(n);
            assert_eq!(&p.name, n);
            assert!(!p.default_archs.is_empty(), "{n}");
        }
        assert_eq!(profile("dtk").unwrap().wave_size, 64);
        assert_eq!(profile("cuda").unwrap().family, Family::Nvptx);
        assert_eq!(profile("dtk").unwrap().addrspace.local, 5);
        assert_eq!(profile("dtk").unwrap().triple, "amdgcn-amd-amdhsa");
        assert_eq!(profile("musa").unwrap().triple, "mtgpu-mthreads-musa");
        assert_eq!(profile("musa").unwrap().tools, ["mcc"]);
        assert!(profile("nope").is_none());
    }
}
