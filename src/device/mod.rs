//! The device pipeline: PTX modules in, the target's device code out, one outcome per kernel.
//! `convert` and the cuda twin both use it.
//!
//! For each [`ModuleJob`] (one fatbin container's PTX): parse ([`crate::ptx`]), lower for the
//! profile ([`crate::lower`], passed in as a [`LowerFn`]), build for every arch with the
//! target's LLVM tools ([`crate::build`]) and put the objects into the container the
//! profile's backend carries ([`crate::target::Backend::container`]: a clang offload bundle
//! for amdgcn, a CUDA fatbin for nvptx).
//!
//! * **Per-kernel failure isolation.** When a module's build fails, each lowered kernel is
//!   built on its own (the other `.entry` directives removed before lowering); the kernels
//!   whose own build fails get [`KernelOutcome::Unsupported`] with the build error, and the
//!   module is built again without them. Only a failure that no single kernel explains fails
//!   the whole module ([`ModuleResult::error`]).
//! * **Wave sizes.** Archs whose profile override sets another wave size
//!   ([`crate::target::ArchOverride::wave_size`]) are lowered and built as their own group
//!   with that wave size; the container holds every arch's object, in the order asked for.
//!   A kernel is lowered only when it is lowered in every group.
//! * Modules build in parallel (rayon), largest PTX first, results in input order.

use crate::build::{self, BuildOptions, BuiltModule, DeviceObject, ModuleInput};
use crate::error::{Error, Result};
use crate::lower::{KernelOutcome, LoweredModule};
use crate::target::Profile;
use crate::toolchain::Toolchain;
use rayon::prelude::*;

/// The lowering the pipeline uses: PTX module and profile to a [`LoweredModule`] (the
/// signature of [`crate::lower::lower_module`]).
pub type LowerFn<'f> = dyn Fn(&crate::ptx::Module<'_>, &Profile) -> LoweredModule + Sync + 'f;

/// One module to build.
#[derive(Debug, Clone)]
pub struct ModuleJob<'a> {
    /// How errors and reports name it (`WHEEL!member!container#3`).
    pub name: String,
    /// Its PTX text.
    pub ptx: &'a str,
}

/// What became of one module.
#[derive(Debug, Clone)]
pub struct ModuleResult {
    /// The lowering: every `.entry` of the PTX with its outcome; a kernel whose own device
    /// build fails is `Unsupported` with the build error.
    pub lowered: LoweredModule,
    /// The built objects, one per arch in the order asked for (`None` when the module
    /// failed).
    pub built: Option<BuiltModule>,
    /// The container to register (empty when nothing was built).
    pub container: Vec<u8>,
    /// Why the module as a whole failed, when it did.
    pub error: Option<String>,
    /// The failure, when it was the machine's and not the module's: an I/O error
    /// ([`crate::error::ErrorKind::Io`]) of a temporary file or a full disk. A conversion
    /// stops on it as an environment failure instead of reporting the kernels not translated.
    pub environment: Option<crate::Error>,
}

/// The device pipeline for one target: its tools and build cache.
#[derive(Debug, Clone)]
pub struct Pipeline {
    /// The tools found for the target.
    pub toolchain: Toolchain,
    /// The build cache, if any.
    pub cache: Option<build::Cache>,
    /// IR bytes per `llvm-split` partition ([`BuildOptions::split_bytes`]).
    pub split_bytes: Option<usize>,
    /// The SASS decoder that SASS-only kernels are lifted with
    /// ([`crate::toolchain::discover_nvdisasm`]), or why there is none.
    pub nvdisasm: std::result::Result<crate::toolchain::Tool, crate::toolchain::Missing>,
}

impl Pipeline {
    /// Discover the tools of `profile` ([`crate::toolchain::discover`] and
    /// [`crate::toolchain::discover_nvdisasm`], from the process environment) and use the default cache folder (`$XDG_CACHE_HOME/wheelport`, else
    /// `~/.cache/wheelport`) unless `WHEELPORT_NO_CACHE` is set.
    pub fn discover(profile: &Profile) -> Pipeline {
        let search = crate::toolchain::SearchOptions::from_env();
        let toolchain = crate::toolchain::discover(profile, &search);
        let cache = if std::env::var_os("WHEELPORT_NO_CACHE").is_some() {
            None
        } else {
            build::Cache::default_dir().map(build::Cache::new)
        };
        Pipeline {
            toolchain,
            cache,
            split_bytes: None,
            nvdisasm: crate::toolchain::discover_nvdisasm(&search),
        }
    }

    /// `Ok` when device code can be built for `profile`, else why not (one line: the
    /// backend has no device build here, or tools are missing).
    ///
    /// # Errors
    /// The reason, as a one-line message.
    pub fn available(&self, profile: &Profile) -> std::result::Result<(), String> {
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

    /// One line for reports: what builds the code.
    pub fn describe(&self, profile: &Profile) -> String {
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

    /// Build every job for `archs` (the profile's defaults when empty) with `lower`; one
    /// result per job, in order. Never fails as a whole: a module that cannot be built has
    /// [`ModuleResult::error`] and no container.
    pub fn build(
        &self,
        profile: &Profile,
        archs: &[String],
        jobs: &[ModuleJob<'_>],
        lower: &LowerFn<'_>,
    ) -> Vec<ModuleResult> {
        self.build_observed(profile, archs, jobs, lower, &|_, _| {})
    }

    /// [`Pipeline::build`], calling `done` with each job and its result as soon as that
    /// module is finished (from the worker thread, in completion order): for progress
    /// displays of long builds.
    pub fn build_observed(
        &self,
        profile: &Profile,
        archs: &[String],
        jobs: &[ModuleJob<'_>],
        lower: &LowerFn<'_>,
        done: &(dyn Fn(&ModuleJob<'_>, &ModuleResult) + Sync),
    ) -> Vec<ModuleResult> {
        let archs: Vec<String> = if archs.is_empty() {
            profile.default_archs.clone()
        } else {
            archs.to_vec()
        };
        // Largest PTX first (longest-processing-time-first), one module per task.
        let mut order: Vec<usize> = (0..jobs.len()).collect();
        order.sort_by_key(|&i| (std::cmp::Reverse(jobs[i].ptx.len()), i));
        let mut out: Vec<(usize, ModuleResult)> = order
            .par_iter()
            .with_max_len(1)
            .map(|&i| {
                let r = self.build_one(profile, &archs, &jobs[i], lower);
                done(&jobs[i], &r);
                (i, r)
            })
            .collect();
        out.sort_by_key(|(i, _)| *i);
        out.into_iter().map(|(_, r)| r).collect()
    }

    fn build_one(
        &self,
        profile: &Profile,
        archs: &[String],
        job: &ModuleJob<'_>,
        lower: &LowerFn<'_>,
    ) -> ModuleResult {
        // Archs grouped by wave size, in first-seen order.
        let mut groups: Vec<(u32, Vec<String>)> = Vec::new();
        for a in archs {
            let w = profile.wave_size_for(a);
            match groups.iter_mut().find(|(gw, _)| *gw == w) {
                Some((_, v)) => v.push(a.clone()),
                None => groups.push((w, vec![a.clone()])),
            }
        }
        let parsed = crate::ptx::parse(job.ptx, &job.name);
        let mut results: Vec<(LoweredModule, Result<BuiltModule>)> = Vec::new();
        for (wave, group) in &groups {
            let p;
            let prof = if *wave == profile.wave_size {
                profile
            } else {
                p = Profile {
                    wave_size: *wave,
                    ..profile.clone()
                };
                &p
            };
            let low = lower(&parsed.module, prof);
            let opts = BuildOptions {
                archs: group.clone(),
                cache: self.cache.clone(),
                split_bytes: self.split_bytes,
            };
            let input = ModuleInput {
                name: &job.name,
                lowered: &low,
            };
            match build::build_module(prof, &self.toolchain, input, &opts) {
                Ok(b) => results.push((low, Ok(b))),
                Err(e) => {
                    match self.isolate(&parsed.module, &job.name, &low, e, prof, &opts, lower) {
                        Ok((l, b)) => results.push((l, Ok(b))),
                        Err(e) => results.push((low, Err(e))),
                    }
                }
            }
        }
        merge(profile, archs, &job.name, results)
    }

    /// The module's build failed with `err`: build each lowered kernel alone; those that fail
    /// on their own are reported with their error and the module is built without them.
    #[allow(clippy::too_many_arguments)]
    fn isolate(
        &self,
        module: &crate::ptx::Module<'_>,
        name: &str,
        low: &LoweredModule,
        err: Error,
        profile: &Profile,
        opts: &BuildOptions,
        lower: &LowerFn<'_>,
    ) -> Result<(LoweredModule, BuiltModule)> {
        use crate::ptx::ast::{Directive, FunctionKind};
        let without = |keep: &dyn Fn(&str) -> bool| {
            let mut m = module.clone();
            m.items.retain(|d| match d {
                Directive::Function(f) if f.kind == FunctionKind::Entry && f.body.is_some() => {
                    keep(f.name)
                }
                _ => true,
            });
            lower(&m, profile)
        };
        let lowered: Vec<&str> = low
            .kernels
            .iter()
            .filter(|k| k.outcome == KernelOutcome::Lowered)
            .map(|k| k.name.as_str())
            .collect();
        let failing: Vec<(&str, String)> = lowered
            .par_iter()
            .filter_map(|k| {
                let one = without(&|n| n == *k);
                let input = ModuleInput {
                    name,
                    lowered: &one,
                };
                build::build_module(profile, &self.toolchain, input, opts)
                    .err()
                    .map(|e| (*k, e.message))
            })
            .collect();
        if failing.is_empty() {
            return Err(err);
        }
        let rest = without(&|n| !failing.iter().any(|(f, _)| *f == n));
        let built = build::build_module(
            profile,
            &self.toolchain,
            ModuleInput {
                name,
                lowered: &rest,
            },
            opts,
        )?;
        let mut out = rest.clone();
        out.kernels = low
            .kernels
            .iter()
            .map(|k| {
                if let Some((_, msg)) = failing.iter().find(|(f, _)| *f == k.name) {
                    let mut k = k.clone();
                    k.outcome = KernelOutcome::Unsupported {
                        forms: Vec::new(),
                        reason: format!("the device build of this kernel fails: {msg}"),
                    };
                    k
                } else {
                    rest.kernels
                        .iter()
                        .find(|r| r.name == k.name)
                        .cloned()
                        .unwrap_or_else(|| k.clone())
                }
            })
            .collect();
        Ok((out, built))
    }
}

/// One result from the results of the wave-size groups: objects in `archs` order, the
/// container, kernel outcomes lowered only where every group lowered them.
fn merge(
    profile: &Profile,
    archs: &[String],
    name: &str,
    results: Vec<(LoweredModule, Result<BuiltModule>)>,
) -> ModuleResult {
    let mut results = results.into_iter();
    let (mut lowered, first) = results.next().expect("at least one arch group");
    let mut objects: Vec<DeviceObject> = Vec::new();
    let mut error = None;
    let mut environment = None;
    let io = |e: &crate::Error| (e.kind == crate::error::ErrorKind::Io).then(|| e.clone());
    match first {
        Ok(b) => objects.extend(b.objects),
        Err(e) => {
            environment = io(&e);
            error = Some(e.to_string());
        }
    }
    for (l, b) in results {
        for (k, other) in lowered.kernels.iter_mut().zip(&l.kernels) {
            if k.outcome == KernelOutcome::Lowered && other.outcome != KernelOutcome::Lowered {
                k.outcome = other.outcome.clone();
            }
        }
        match b {
            Ok(b) => objects.extend(b.objects),
            Err(e) => {
                if environment.is_none() {
                    environment = io(&e);
                }
                error.get_or_insert(e.to_string());
            }
        }
    }
    if let Some(e) = error {
        return ModuleResult {
            lowered,
            built: None,
            container: Vec::new(),
            error: Some(e),
            environment,
        };
    }
    objects.sort_by_key(|o| archs.iter().position(|a| *a == o.arch));
    let objs: Vec<(&str, &[u8])> = objects
        .iter()
        .map(|o| (o.arch.as_str(), o.bytes.as_slice()))
        .collect();
    match profile.backend().container(profile, &objs, name) {
        Ok(container) => ModuleResult {
            lowered,
            built: Some(BuiltModule {
                name: name.to_string(),
                objects,
            }),
            container,
            error: None,
            environment: None,
        },
        Err(e) => ModuleResult {
            lowered,
            built: None,
            container: Vec::new(),
            error: Some(format!("container: {}", e.message)),
            environment: None,
        },
    }
}
