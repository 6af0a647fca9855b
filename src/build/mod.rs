//! The device build: one [`LoweredModule`] (LLVM IR text) for a target profile and a list of
//! architectures, to checked device code.
//!
//! Pipeline (all tools from [`crate::toolchain`], run without a shell, in a temporary
//! directory that is removed afterwards):
//!
//! * `amdgcn` (dtk, rocm): `llvm-link module.ll --internalize --only-needed <library>` →
//!   `opt -O3 -mtriple=amdgcn-amd-amdhsa -mcpu=<arch>` →
//!   `llc -O3 -mtriple=amdgcn-amd-amdhsa -mcpu=<arch> -filetype=obj` →
//!   `ld.lld -shared --no-undefined` → an HSA code object, checked by [`check::code_object`].
//!
//!   A large module (more than [`SPLIT_BYTES`] of IR and at least two lowered kernels) is
//!   split first when the toolchain has `llvm-split` of LLVM 19 or later (its AMDGPU
//!   splitter, `TargetMachine::splitModule`): `llvm-split -mtriple=amdgcn-amd-amdhsa
//!   -mcpu=<arch> -j N module.ll`, then each partition is linked with the library, optimised
//!   and compiled in parallel, `ld.lld` links the N objects into one code object and its N
//!   metadata notes are merged into one ([`notes::merge_metadata_notes`]) (see
//!   [`BuildOptions::split_bytes`]). xformers' largest module (18 MB of IR, 20 kernels) builds in 4
//!   partitions, with the same per-kernel registers, LDS and spills as built whole.
//! * `nvptx` (the cuda twin): the same link and `opt`, then
//!   `llc -O3 -mtriple=nvptx64-nvidia-cuda -mcpu=sm_XX` → PTX text, checked by
//!   [`check::ptx`]; PTX that still declares an `.extern .func` (a support-library function
//!   that was not linked) is refused, except the functions the CUDA driver provides
//!   ([`CUDA_SYSTEM_FUNCTIONS`]: `vprintf`, `malloc`, ...).
//!
//! The support library is [`LoweredModule::support_library`] (`kernels-ir/<family>.ll`,
//! relative to the repository root; see [`support_library`] for where it is read from). Its
//! functions are internalized and only the ones used are kept. An arch with a library overlay
//! ([`Profile::ir_overlay_for`], `kernels-ir/amdgcn-gfx10plus.ll` on gfx10+) links it before
//! the library (`llvm-link module.ll --internalize --only-needed <overlay> <library>`), so its
//! definitions replace the library's.
//!
//! LLVM 14 tools get `-opaque-pointers` (the lowering writes opaque pointers).
//!
//! Modules build in parallel ([`build_modules`], rayon). Each (module, arch) result is cached
//! under the SHA-256 of the IR, the part of the library text the module can reach
//! ([`cache::library_key_text`]) (and the arch's overlay text), the tools'
//! paths and `--version` lines, the argument vectors and the arch ([`cache`]); a cached
//! result is checked like a fresh one. While a split build runs, each partition's object is
//! cached too (under the module's key and its index, removed once the whole object is
//! cached), so an interrupted build of a large module resumes at the partitions it finished.

pub mod cache;
pub mod check;
pub mod cmd;
pub mod notes;

use crate::error::{Error, ErrorKind, Result};
use crate::lower::{KernelOutcome, LoweredModule};
use crate::target::Profile;
use crate::toolchain::{run_tool, run_tool_output, Tool, Toolchain};
use rayon::prelude::*;
use std::path::{Path, PathBuf};
use std::time::Instant;

pub use cache::Cache;

/// Functions the CUDA driver provides to PTX (PTX ISA §7.3 "System calls", and the
/// device-runtime launch API): an `.extern .func` of these is not an unresolved reference.
pub const CUDA_SYSTEM_FUNCTIONS: &[&str] = &[
    " vprintf",
    " malloc",
    " free",
    " __assertfail",
    " cudaGetParameterBuffer",
    " cudaGetParameterBufferV2",
    " cudaLaunchDevice",
    " cudaLaunchDeviceV2",
];

/// Bumped when the pipeline changes in a way the key does not otherwise capture.
const PIPELINE_VERSION: &str = "wheelport-device-build-2";

/// Options of a device build.
#[derive(Clone, Debug, Default)]
pub struct BuildOptions {
    /// Architectures to build (`gfx906`, `sm_80`); the profile's `default_archs` when empty.
    pub archs: Vec<String>,
    /// The cache, or `None` to always build.
    pub cache: Option<Cache>,
    /// IR bytes per partition when an amdgcn module is split with `llvm-split`
    /// (see the module docs); `None` is [`SPLIT_BYTES`], `Some(usize::MAX)` builds every module
    /// whole.
    pub split_bytes: Option<usize>,
}

/// One module to build: a name used in errors and reports (`x.so!.nv_fatbin#1`, `k.ptx`) and
/// its lowering.
#[derive(Clone, Copy, Debug)]
pub struct ModuleInput<'a> {
    /// Display name.
    pub name: &'a str,
    /// The lowered module.
    pub lowered: &'a LoweredModule,
}

/// The device code built for one architecture.
#[derive(Clone, Debug, PartialEq)]
pub struct DeviceObject {
    /// The architecture (`gfx906`, `sm_80`).
    pub arch: String,
    /// An HSA code object (amdgcn) or PTX text (nvptx).
    pub bytes: Vec<u8>,
    /// Whether it came from the cache.
    pub from_cache: bool,
    /// The cache key (SHA-256 hex).
    pub key: String,
    /// Wall-clock seconds spent (tools and checks, or the cache lookup and check).
    pub seconds: f64,
    /// How many `llvm-split` partitions were compiled and linked into it (1: built whole).
    pub partitions: usize,
}

/// The result of building one module.
#[derive(Clone, Debug, PartialEq)]
pub struct BuiltModule {
    /// The module's display name.
    pub name: String,
    /// One object per architecture, in the order asked for.
    pub objects: Vec<DeviceObject>,
}

/// Where a support library path (relative to the repository root) is read from when it is
/// not embedded ([`EMBEDDED_LIBRARIES`]), in order: `$WHEELPORT_DATA_DIR/<path>`,
/// `<exe dir>/../share/wheelport/<path>`. An absolute path is used as is. The source tree the
/// binary was built from is never read: an installed `wheelport` carries its data.
pub fn library_candidates(path: &str) -> Vec<PathBuf> {
    let p = Path::new(path);
    if p.is_absolute() {
        return vec![p.to_path_buf()];
    }
    let mut v = Vec::new();
    if let Some(d) = std::env::var_os("WHEELPORT_DATA_DIR") {
        v.push(PathBuf::from(d).join(p));
    }
    if let Some(exe_dir) = std::env::current_exe()
        .ok()
        .and_then(|e| e.parent().map(Path::to_path_buf))
    {
        v.push(exe_dir.join("../share/wheelport").join(p));
    }
    v
}

/// The support libraries embedded in the binary (`kernels-ir/*.ll`, by their path relative to
/// the repository root), so an installed `wheelport` needs no data files.
pub const EMBEDDED_LIBRARIES: &[(&str, &str)] = &[
    (
        "kernels-ir/amdgcn.ll",
        include_str!("../../kernels-ir/amdgcn.ll"),
    ),
    (
        "kernels-ir/nvptx.ll",
        include_str!("../../kernels-ir/nvptx.ll"),
    ),
    (
        "kernels-ir/amdgcn-gfx10plus.ll",
        include_str!("../../kernels-ir/amdgcn-gfx10plus.ll"),
    ),
];

/// The text of the support library `path` ([`LoweredModule::support_library`]); `None` when
/// `path` is empty (no library needed). `$WHEELPORT_DATA_DIR/<path>` wins when it exists
/// (to try a changed library without rebuilding), then the embedded copy
/// ([`EMBEDDED_LIBRARIES`]), then the other [`library_candidates`].
///
/// # Errors
/// [`ErrorKind::Build`] naming `module`, the library path and every place searched when it
/// is not found; [`ErrorKind::Io`] when it exists but cannot be read.
pub fn support_library(path: &str, module: &str) -> Result<Option<String>> {
    if path.is_empty() {
        return Ok(None);
    }
    if let Some(d) = std::env::var_os("WHEELPORT_DATA_DIR") {
        let p = Path::new(&d).join(path);
        if p.is_file() {
            return std::fs::read_to_string(&p)
                .map(Some)
                .map_err(|e| Error::io(p.display().to_string(), e));
        }
    }
    if let Some((_, text)) = EMBEDDED_LIBRARIES.iter().find(|(p, _)| *p == path) {
        return Ok(Some((*text).to_string()));
    }
    let cands = library_candidates(path);
    for c in &cands {
        if c.is_file() {
            return std::fs::read_to_string(c)
                .map(Some)
                .map_err(|e| Error::io(c.display().to_string(), e));
        }
    }
    Err(Error::new(
        ErrorKind::Build,
        module,
        format!(
            "the device support library `{path}` is needed but was not found (searched: {})",
            cands
                .iter()
                .map(|c| c.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    ))
}

/// Extra flags for a tool: `-opaque-pointers` for LLVM 14 (the default from LLVM 15 on).
fn version_flags(t: &Tool) -> Vec<String> {
    match t.version {
        Some(v) if v.major == 14 && t.name != "ld.lld" => vec!["-opaque-pointers".into()],
        _ => Vec::new(),
    }
}

fn s(p: &Path) -> String {
    p.display().to_string()
}

/// The argument vectors of one arch's pipeline, with `{in}`/`{out}` already filled.
struct Step<'t> {
    tool: &'t Tool,
    args: Vec<String>,
}

/// The cache key of partition `i` of the split build whose whole object has cache key `key`:
/// the module key holds everything the partitioning and each partition's build depend on
/// (IR, library part, tools, every argument vector), so partition `i` of an earlier build
/// with the same key is the same object.
fn partition_key(key: &str, i: usize) -> String {
    cache::key(&[key.as_bytes(), b"partition", i.to_string().as_bytes()])
}

/// IR text per partition above which an amdgcn module is split (see the module docs).
pub const SPLIT_BYTES: usize = 5 << 20;
/// At most this many partitions.
pub const SPLIT_MAX: usize = 8;

/// Whether and in how many partitions an amdgcn module is built: with `llvm-split` of LLVM
/// 19 or later in the same major version as `llc` (its AMDGPU splitter keeps each kernel with
/// the functions and LDS variables it uses, cloning shared callees), a module of at least two
/// lowered kernels and more than `split_bytes` (default [`SPLIT_BYTES`]) of IR is split into
/// `min(ceil(bytes / split_bytes), kernels, SPLIT_MAX)` partitions. The count depends on the
/// module only (not on the thread count), so the output is the same for any `--jobs`.
/// Each partition is linked with the support library, optimised and compiled on its own, in
/// parallel, and `ld.lld` links the objects into one code object.
fn partitions<'t>(
    profile: &Profile,
    tc: &'t Toolchain,
    lowered: &LoweredModule,
    split_bytes: Option<usize>,
) -> Option<(&'t Tool, usize)> {
    if !profile.backend().splits_modules() {
        return None;
    }
    let splitter = tc.tool("llvm-split")?;
    let (a, b) = (splitter.version?, tc.tool("llc")?.version?);
    if a.major < 19 || a.major != b.major {
        return None;
    }
    let kernels = lowered
        .kernels
        .iter()
        .filter(|k| k.outcome == KernelOutcome::Lowered)
        .count();
    let n = lowered
        .ir
        .len()
        .div_ceil(split_bytes.unwrap_or(SPLIT_BYTES).max(1))
        .min(kernels)
        .min(SPLIT_MAX);
    (n >= 2).then_some((splitter, n))
}

/// `ld.lld -shared --no-undefined OBJS -o OUT`: the HSA code object.
fn lld_step<'t>(lld: &'t Tool, objs: Vec<String>, out: &Path) -> Step<'t> {
    Step {
        tool: lld,
        args: [
            vec!["-shared".into(), "--no-undefined".into()],
            objs,
            vec!["-o".into(), s(out)],
        ]
        .concat(),
    }
}

/// Run one step; an LLVM warning that the processor is unknown is an error (LLVM then builds
/// generic code, which is not the arch asked for, e.g. DTK's gfx926 with upstream LLVM).
fn run_step(st: &Step<'_>, arch: &str, module: &str) -> Result<()> {
    let (_, stderr) = run_tool_output(st.tool, &st.args, module).map_err(|e| Error {
        message: format!("{arch}: {}", e.message),
        ..e
    })?;
    if let Some(l) = stderr
        .lines()
        .find(|l| l.contains("is not a recognized processor"))
    {
        return Err(Error::new(
            ErrorKind::Toolchain,
            module,
            format!(
                "{arch}: `{}` ({}) does not know this processor: {}",
                st.tool.name,
                st.tool.path.display(),
                l.trim()
            ),
        ));
    }
    Ok(())
}

/// Build `input` for every arch of `opts` (or the profile's defaults) with the tools of
/// `tc`, checking each result.
///
/// A module with no lowered kernel still builds (device functions or globals may be all it
/// has). Kernels not lowered are not looked for in the output; reporting them is the
/// caller's job (they are in [`LoweredModule::kernels`]).
///
/// # Errors
/// [`ErrorKind::Toolchain`] when a tool is missing or fails (naming the module and tool, with
/// stderr); [`ErrorKind::Build`] when an output fails its checks or the profile has no
/// device build (`musa`); [`ErrorKind::Io`] for temporary files and the cache.
pub fn build_module(
    profile: &Profile,
    tc: &Toolchain,
    input: ModuleInput<'_>,
    opts: &BuildOptions,
) -> Result<BuiltModule> {
    let module = input.name;
    let backend = profile.backend();
    if let Some(why) = backend.no_device_build(profile) {
        return Err(Error::new(ErrorKind::Build, module, why));
    }
    let archs: Vec<String> = if opts.archs.is_empty() {
        profile.default_archs.clone()
    } else {
        opts.archs.clone()
    };
    let link = tc.require("llvm-link", module)?;
    let opt = tc.require("opt", module)?;
    let llc = tc.require("llc", module)?;
    let lld = if backend.links_objects() {
        Some(tc.require("ld.lld", module)?)
    } else {
        None
    };
    // A per-arch support library (a profile's `[arch.X] ir_library`) must be the module's
    // own: the lowering wrote calls for the library it was given.
    for arch in &archs {
        let lib = profile.ir_library_for(arch);
        if lib != profile.ir_library && lib != input.lowered.support_library {
            return Err(Error::new(
                ErrorKind::Build,
                module,
                format!(
                    "{arch}: the profile's support library for this arch ({lib}) is not the one the module was lowered with ({}); build this arch on its own",
                    input.lowered.support_library
                ),
            ));
        }
    }
    let lib = support_library(&input.lowered.support_library, module)?;
    // What of the library the build can depend on (see [`cache::library_key_text`]).
    let lib_key = lib
        .as_deref()
        .map(|l| cache::library_key_text(l, &input.lowered.ir))
        .unwrap_or_default();
    let tmp = tempfile::Builder::new()
        .prefix("wheelport-build-")
        .tempdir()
        .map_err(Error::temp_dir)?;
    let dir = tmp.path();
    let ll = dir.join("module.ll");
    std::fs::write(&ll, &input.lowered.ir).map_err(|e| Error::io(s(&ll), e))?;
    let lib_path = dir.join("support.ll");
    if let Some(text) = &lib {
        std::fs::write(&lib_path, text).map_err(|e| Error::io(s(&lib_path), e))?;
    }
    // The link of the module (or of one of its partitions) with the library, after the
    // arch's overlay when it has one.
    let link_args_for = |input: &Path, overlay: Option<&Path>, output: &Path| -> Vec<String> {
        let mut args = version_flags(link);
        args.push(s(input));
        if lib.is_some() {
            args.extend(["--internalize".into(), "--only-needed".into()]);
            args.extend(overlay.map(s));
            args.push(s(&lib_path));
        }
        args.extend(["-o".into(), s(output)]);
        args
    };
    let linked = dir.join("linked.bc");
    let link_args = link_args_for(&ll, None, &linked);
    let triple = &profile.triple;
    let input_ir = &input.lowered.ir;
    let ext = backend.object_extension();
    let split = partitions(profile, tc, input.lowered, opts.split_bytes);
    let mut linked_done = false;
    let mut objects = Vec::new();
    for arch in &archs {
        let t0 = Instant::now();
        let out = dir.join(format!("{arch}.{ext}"));
        // Per-arch target features (`[arch.X] mattr`, e.g. wave64 on RDNA): opt and llc.
        let mattr = profile.mattr_for(arch);
        // Per-arch library overlay (`[arch.X] ir_overlay`), linked on its own for this arch.
        let overlay = match (profile.ir_overlay_for(arch), &lib) {
            (Some(path), Some(_)) => {
                let text = support_library(path, module)?.unwrap_or_default();
                let p = dir.join(format!("{arch}.overlay.ll"));
                std::fs::write(&p, &text).map_err(|e| Error::io(s(&p), e))?;
                Some((p, text))
            }
            _ => None,
        };
        let overlay_path = overlay.as_ref().map(|(p, _)| p.as_path());
        let arch_linked = dir.join(format!("{arch}.linked.bc"));
        let arch_link_args = overlay_path.map(|o| link_args_for(&ll, Some(o), &arch_linked));
        let opt_step = |input: &Path, output: &Path| {
            let mut args = version_flags(opt);
            args.extend([
                "-O3".into(),
                format!("-mtriple={triple}"),
                format!("-mcpu={arch}"),
            ]);
            if let Some(m) = mattr {
                args.push(format!("-mattr={m}"));
            }
            args.extend([s(input), "-o".into(), s(output)]);
            Step { tool: opt, args }
        };
        let llc_step = |input: &Path, output: &Path| {
            let mut args = version_flags(llc);
            args.extend([
                "-O3".into(),
                format!("-mtriple={triple}"),
                format!("-mcpu={arch}"),
            ]);
            args.extend(backend.llc_args(profile, arch, input_ir));
            args.extend([s(input), "-o".into(), s(output)]);
            Step { tool: llc, args }
        };
        // Stages run one after the other; the chains of a stage run in parallel, the steps of
        // a chain in order.
        let stages: Vec<Vec<Vec<Step>>> = match (split, lld) {
            (Some((splitter, n)), Some(lld)) => {
                let prefix = dir.join(format!("{arch}.part"));
                let split_step = Step {
                    tool: splitter,
                    args: vec![
                        format!("-mtriple={triple}"),
                        format!("-mcpu={arch}"),
                        "-j".into(),
                        n.to_string(),
                        s(&ll),
                        "-o".into(),
                        s(&prefix),
                    ],
                };
                let chains = (0..n)
                    .map(|i| {
                        let part = dir.join(format!("{arch}.part{i}"));
                        let linked = dir.join(format!("{arch}.part{i}.bc"));
                        let opt_bc = dir.join(format!("{arch}.part{i}.opt.bc"));
                        let obj = dir.join(format!("{arch}.part{i}.o"));
                        let args = link_args_for(&part, overlay_path, &linked);
                        vec![
                            Step { tool: link, args },
                            opt_step(&linked, &opt_bc),
                            llc_step(&opt_bc, &obj),
                        ]
                    })
                    .collect();
                let objs = (0..n)
                    .map(|i| s(&dir.join(format!("{arch}.part{i}.o"))))
                    .collect();
                vec![
                    vec![vec![split_step]],
                    chains,
                    vec![vec![lld_step(lld, objs, &out)]],
                ]
            }
            _ => {
                let opt_bc = dir.join(format!("{arch}.opt.bc"));
                let out_obj = dir.join(format!("{arch}.o"));
                let mut chain = match &arch_link_args {
                    Some(args) => vec![
                        Step {
                            tool: link,
                            args: args.clone(),
                        },
                        opt_step(&arch_linked, &opt_bc),
                    ],
                    None => vec![opt_step(&linked, &opt_bc)],
                };
                match lld {
                    Some(lld) => {
                        chain.push(llc_step(&opt_bc, &out_obj));
                        chain.push(lld_step(lld, vec![s(&out_obj)], &out));
                    }
                    None => chain.push(llc_step(&opt_bc, &out)),
                }
                vec![vec![chain]]
            }
        };
        // The key: pipeline version, profile, arch, IR, the library's reachable part, tools,
        // argument vectors with the temporary directory replaced by a fixed name.
        let dir_s = s(dir);
        let mut argv = String::new();
        if split.is_none() && arch_link_args.is_none() {
            argv.push_str(&format!("{}\n", link_args.join(" ").replace(&dir_s, "$T")));
        }
        for st in stages.iter().flatten().flatten() {
            argv.push_str(&format!(
                "{} {}\n",
                st.tool.name,
                st.args.join(" ").replace(&dir_s, "$T")
            ));
        }
        let mut parts: Vec<&[u8]> = vec![
            PIPELINE_VERSION.as_bytes(),
            profile.name.as_bytes(),
            triple.as_bytes(),
            arch.as_bytes(),
            input.lowered.ir.as_bytes(),
            lib_key.as_bytes(),
        ];
        if let Some((_, text)) = &overlay {
            parts.push(text.as_bytes());
        }
        let fingerprint = tc.fingerprint();
        parts.extend([fingerprint.as_bytes(), argv.as_bytes()]);
        let key = cache::key(&parts);
        let cached = opts.cache.as_ref().and_then(|c| c.get(&key, ext));
        let mut part_keys: Vec<String> = Vec::new();
        let from_cache = cached.is_some();
        let bytes = match cached {
            Some(b) => b,
            None => {
                if split.is_none() && arch_link_args.is_none() && !linked_done {
                    run_tool(link, &link_args, module)?;
                    linked_done = true;
                }
                for (si, stage) in stages.iter().enumerate() {
                    // A split build's partitions are cached on their own (under the module's
                    // key and their index), so an interrupted build of a large module resumes
                    // at the partitions it had finished.
                    let parts_cache = opts.cache.as_ref().filter(|_| split.is_some() && si == 1);
                    let done = stage
                        .par_iter()
                        .enumerate()
                        .map(|(i, chain)| {
                            let Some(c) = parts_cache else {
                                chain.iter().try_for_each(|st| run_step(st, arch, module))?;
                                return Ok(None);
                            };
                            let pkey = partition_key(&key, i);
                            let obj = dir.join(format!("{arch}.part{i}.o"));
                            match c.get(&pkey, "o") {
                                Some(b) => {
                                    std::fs::write(&obj, b).map_err(|e| Error::io(s(&obj), e))?
                                }
                                None => {
                                    chain.iter().try_for_each(|st| run_step(st, arch, module))?;
                                    let b =
                                        std::fs::read(&obj).map_err(|e| Error::io(s(&obj), e))?;
                                    c.store(&pkey, "o", &b);
                                }
                            }
                            Ok(Some(pkey))
                        })
                        .collect::<Result<Vec<Option<String>>>>()?;
                    part_keys.extend(done.into_iter().flatten());
                }
                let mut bytes = std::fs::read(&out).map_err(|e| Error::io(s(&out), e))?;
                if split.is_some() {
                    notes::merge_metadata_notes(&mut bytes, module)?;
                }
                bytes
            }
        };
        backend.check(&bytes, module, arch, &input.lowered.kernels)?;
        if !from_cache {
            if let Some(c) = &opts.cache {
                c.store(&key, ext, &bytes);
                // The whole object is cached now: its partitions' entries are not needed.
                for k in &part_keys {
                    c.remove(k, "o");
                }
            }
        }
        objects.push(DeviceObject {
            arch: arch.clone(),
            bytes,
            from_cache,
            key,
            seconds: t0.elapsed().as_secs_f64(),
            partitions: split.map_or(1, |(_, n)| n),
        });
    }
    Ok(BuiltModule {
        name: module.to_string(),
        objects,
    })
}

/// [`build_module`] for every input, in parallel (rayon); results in input order.
pub fn build_modules(
    profile: &Profile,
    tc: &Toolchain,
    inputs: &[ModuleInput<'_>],
    opts: &BuildOptions,
) -> Vec<Result<BuiltModule>> {
    inputs
        .par_iter()
        .map(|i| build_module(profile, tc, *i, opts))
        .collect()
}

/// Names of the kernels of `m` that were not lowered, with their reasons.
pub fn unsupported(m: &LoweredModule) -> Vec<(&str, &str)> {
    m.kernels
        .iter()
        .filter_map(|k| match &k.outcome {
            KernelOutcome::Unsupported { reason, .. } => Some((k.name.as_str(), reason.as_str())),
            KernelOutcome::Lowered => None,
        })
        .collect()
}
