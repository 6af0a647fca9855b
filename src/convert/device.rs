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
            .map(|m| ModuleBuild::none_built(m, UNAVAILABLE_REASON))
            .collect())
    }
}

impl ModuleBuild {
    /// Nothing built for module `m`: an empty container and every kernel
    /// [`KernelBuild::NotBuilt`] with `reason`.
    pub fn none_built(m: &ModuleRequest, reason: &str) -> ModuleBuild {
        ModuleBuild {
            wrapper_address: m.wrapper_address,
            container: Vec::new(),
            kernels: m
                .kernels
                .iter()
                .map(|k| {
                    (
                        k.clone(),
                        KernelBuild::NotBuilt {
                            reason: reason.to_string(),
                        },
                    )
                })
                .collect(),
        }
    }
}

/// The real device build: PTX parsed ([`crate::ptx`]), lowered ([`crate::lower`]) and built
/// with the target's LLVM tools ([`crate::build`]) into code objects (a clang offload bundle
/// per module for HIP targets) or PTX (a CUDA fatbin per module for the `cuda` twin).
///
/// Per module, the highest PTX entry is used. A kernel the lowering does not support is
/// [`KernelBuild::NotBuilt`] with the lowering's reason (the forms it lacks); a module whose
/// build fails (a tool error, a failed code-object check) gives every one of its kernels
/// `NotBuilt` with the error message. Nothing is dropped silently.
#[derive(Debug, Clone)]
pub struct LoweringBuilder {
    /// The tools found for the target.
    pub toolchain: crate::toolchain::Toolchain,
    /// The build cache, if any.
    pub cache: Option<crate::build::Cache>,
}

impl LoweringBuilder {
    /// Discover the tools of `profile` (see [`crate::toolchain::discover`]) and use the
    /// default cache directory (`$XDG_CACHE_HOME/wheelport`, else `~/.cache/wheelport`),
    /// unless `WHEELPORT_NO_CACHE` is set.
    pub fn discover(profile: &Profile) -> LoweringBuilder {
        let toolchain =
            crate::toolchain::discover(profile, &crate::toolchain::SearchOptions::from_env());
        let cache = if std::env::var_os("WHEELPORT_NO_CACHE").is_some() {
            None
        } else {
            crate::build::Cache::default_dir().map(crate::build::Cache::new)
        };
        LoweringBuilder { toolchain, cache }
    }

    fn build_one(&self, req: &DeviceRequest<'_>, m: &ModuleRequest) -> ModuleBuild {
        let not_built = |reason: String| ModuleBuild::none_built(m, &reason);
        let Some(entry) = m.ptx.last() else {
            return not_built("the module has no PTX entry".to_string());
        };
        let name = format!("{}!container#{}", req.file, m.container);
        let Ok(text) = std::str::from_utf8(&entry.text) else {
            return not_built(format!("the {} PTX entry is not UTF-8", entry.arch));
        };
        let parsed = crate::ptx::parse(text, &name);
        let lowered = crate::lower::lower_module(&parsed.module, req.profile);
        let opts = crate::build::BuildOptions {
            archs: req.archs.to_vec(),
            cache: self.cache.clone(),
            split_bytes: None,
        };
        let built = match crate::build::build_module(
            req.profile,
            &self.toolchain,
            crate::build::ModuleInput {
                name: &name,
                lowered: &lowered,
            },
            &opts,
        ) {
            Ok(b) => b,
            Err(e) => return not_built(format!("device build failed: {e}")),
        };
        let objs: Vec<(&str, &[u8])> = built
            .objects
            .iter()
            .map(|o| (o.arch.as_str(), o.bytes.as_slice()))
            .collect();
        let container = match req.profile.backend().container(req.profile, &objs, &name) {
            Ok(c) => c,
            Err(e) => return not_built(format!("container: {}", e.message)),
        };
        let archs: Vec<String> = built.objects.iter().map(|o| o.arch.clone()).collect();
        let kernels = m
            .kernels
            .iter()
            .map(|k| {
                let outcome = match lowered.kernels.iter().find(|r| &r.name == k) {
                    Some(r) => match &r.outcome {
                        crate::lower::KernelOutcome::Lowered => KernelBuild::Built {
                            archs: archs.clone(),
                        },
                        crate::lower::KernelOutcome::Unsupported { reason, .. } => {
                            KernelBuild::NotBuilt {
                                reason: reason.clone(),
                            }
                        }
                    },
                    None => KernelBuild::NotBuilt {
                        reason: format!("no .entry {k} in the {} PTX", entry.arch),
                    },
                };
                (k.clone(), outcome)
            })
            .collect();
        ModuleBuild {
            wrapper_address: m.wrapper_address,
            container,
            kernels,
        }
    }
}

impl DeviceBuilder for LoweringBuilder {
    fn available(&self, profile: &Profile) -> std::result::Result<(), String> {
        if let Some(why) = profile.backend().no_device_build(profile) {
            return Err(why);
        }
        if !self.toolchain.is_complete() {
            let names: Vec<String> = self
                .toolchain
                .missing
                .iter()
                .map(|m| format!("{} ({})", m.name, m.install))
                .collect();
            return Err(format!(
                "device tools missing for {}: {} (see `wheelport doctor`)",
                profile.name,
                names.join(", ")
            ));
        }
        Ok(())
    }

    fn describe(&self, profile: &Profile) -> String {
        match self.available(profile) {
            Ok(()) => {
                let llc = self
                    .toolchain
                    .tool("llc")
                    .map(|t| t.version_line.clone())
                    .unwrap_or_default();
                format!("wheelport PTX lowering + {llc}")
            }
            Err(why) => format!("none ({why})"),
        }
    }

    fn build(&self, req: &DeviceRequest<'_>) -> Result<Vec<ModuleBuild>> {
        if let Err(why) = self.available(req.profile) {
            return Ok(req
                .modules
                .iter()
                .map(|m| ModuleBuild::none_built(m, &why))
                .collect());
        }
        use rayon::prelude::*;
        // Largest PTX first (longest-processing-time-first), one module per task, so that
        // the longest build starts at once instead of after the small ones; results go back
        // in input order.
        let size = |m: &ModuleRequest| m.ptx.last().map_or(0, |e| e.text.len());
        let mut order: Vec<usize> = (0..req.modules.len()).collect();
        order.sort_by_key(|&i| (std::cmp::Reverse(size(&req.modules[i])), i));
        let mut built: Vec<(usize, ModuleBuild)> = order
            .par_iter()
            .with_max_len(1)
            .map(|&i| (i, self.build_one(req, &req.modules[i])))
            .collect();
        built.sort_by_key(|(i, _)| *i);
        Ok(built.into_iter().map(|(_, b)| b).collect())
    }
}

/// The device builder of this build of wheelport for `profile`: the lowering with the
/// tools found for the target ([`LoweringBuilder::discover`]). When tools are missing it
/// still answers, giving every kernel the reason (see [`DeviceBuilder::available`]).
pub fn default_builder(profile: &Profile) -> Box<dyn DeviceBuilder> {
    Box::new(LoweringBuilder::discover(profile))
}
