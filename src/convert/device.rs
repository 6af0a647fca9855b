//! The boundary between the conversion pipeline and the device build: "device code for one
//! `.so`".
//!
//! The pipeline hands a [`DeviceBuilder`] one [`DeviceRequest`] per shared object: the
//! target profile, the offload archs, and per registered module (one
//! `__fatBinC_Wrapper_t` and the fatbin container it points at) the kernels that have PTX and
//! the PTX text. The builder answers per module with the container to register (a clang
//! offload bundle for HIP targets, a CUDA fatbin for the `cuda` twin target; empty when
//! nothing was built) and an outcome for every kernel it was given. The pipeline turns the
//! containers into [`crate::rewrite::Registration`]s and reports every kernel: a kernel the
//! builder does not mention is reported as not translated, never dropped.
//!
//! The lowering (`crate::lower`) and the toolchain (LLVM `llc`/`ld.lld`, the bundle writer)
//! implement this trait; until they are part of the build, [`Unavailable`] answers every
//! kernel with [`UNAVAILABLE_REASON`].

use crate::error::Result;
use crate::target::Profile;

/// The reason given for every kernel with PTX while no device build is wired in.
pub const UNAVAILABLE_REASON: &str = "device build unavailable in this build";

/// The PTX text of one fatbin entry.
#[derive(Debug, Clone)]
pub struct PtxText {
    /// The entry's arch (`compute_80`).
    pub arch: String,
    /// The PTX source (decompressed, without trailing NULs).
    pub text: Vec<u8>,
}

/// One registered module of a shared object.
#[derive(Debug, Clone)]
pub struct ModuleRequest {
    /// Virtual address of the `__fatBinC_Wrapper_t` that registers the module.
    pub wrapper_address: u64,
    /// Whether host code registers it (a `__cudaRegisterFatBinary` call passes its address).
    pub registered: bool,
    /// Index of the container (as in `inspect`'s `fatbin.containers`).
    pub container: usize,
    /// The container's PTX entries, highest arch last.
    pub ptx: Vec<PtxText>,
    /// The mangled names of the container's kernels that have real PTX (status `ptx` in
    /// `inspect`): the kernels to build.
    pub kernels: Vec<String>,
}

/// Device code wanted for one shared object.
#[derive(Debug, Clone)]
pub struct DeviceRequest<'a> {
    /// The object, as errors name it (`WHEEL!member`).
    pub file: &'a str,
    /// The target profile.
    pub profile: &'a Profile,
    /// The offload archs to build (`gfx906`, ...; `sm_80` for the cuda twin).
    pub archs: &'a [String],
    /// One per wrapper that points at a container with PTX kernels.
    pub modules: Vec<ModuleRequest>,
}

/// What became of one kernel in the device build.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KernelBuild {
    /// Code built for these archs and present in the module's container.
    Built {
        /// The archs built.
        archs: Vec<String>,
    },
    /// Not built.
    NotBuilt {
        /// One line for reports (unsupported PTX forms, a toolchain error, ...).
        reason: String,
    },
}

/// The device build of one module.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModuleBuild {
    /// The wrapper, as in the request.
    pub wrapper_address: u64,
    /// The container to register: a clang offload bundle (HIP targets) or a CUDA fatbin
    /// (cuda twin). Empty: nothing to register, the wrapper is left as it is.
    pub container: Vec<u8>,
    /// One outcome per requested kernel (mangled name, outcome).
    pub kernels: Vec<(String, KernelBuild)>,
}

/// Builds device code for the modules of one shared object.
pub trait DeviceBuilder: Sync {
    /// `Ok` when this builder can build code for `profile`, else why not (one line).
    fn available(&self, profile: &Profile) -> std::result::Result<(), String>;

    /// One line for reports: what builds the code.
    fn describe(&self, profile: &Profile) -> String;

    /// Build every module of `req`.
    ///
    /// # Errors
    /// Only for failures that concern the whole object (the toolchain cannot be started);
    /// a kernel that cannot be built is a [`KernelBuild::NotBuilt`], not an error.
    fn build(&self, req: &DeviceRequest<'_>) -> Result<Vec<ModuleBuild>>;
}

/// The builder used while no device build is part of wheelport: builds nothing and says so
/// for every kernel.
#[derive(Debug, Clone, Copy, Default)]
pub struct Unavailable;

impl DeviceBuilder for Unavailable {
    fn available(&self, _: &Profile) -> std::result::Result<(), String> {
        Err(UNAVAILABLE_REASON.to_string())
    }

    fn describe(&self, _: &Profile) -> String {
        format!("none ({UNAVAILABLE_REASON})")
    }

    fn build(&self, req: &DeviceRequest<'_>) -> Result<Vec<ModuleBuild>> {
        Ok(req
            .modules
            .iter()
            .map(|m| ModuleBuild {
                wrapper_address: m.wrapper_address,
                container: Vec::new(),
                kernels: m
                    .kernels
                    .iter()
                    .map(|k| {
                        (
                            k.clone(),
                            KernelBuild::NotBuilt {
                                reason: UNAVAILABLE_REASON.to_string(),
                            },
                        )
                    })
                    .collect(),
            })
            .collect())
    }
}

/// The device builder of this build of wheelport for `profile`.
///
/// This is the one place the device build (`crate::lower` + the toolchain) is plugged in.
pub fn default_builder(_profile: &Profile) -> Box<dyn DeviceBuilder> {
    Box::new(Unavailable)
}
