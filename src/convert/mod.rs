//! `wheelport convert`: the main job. A wheel (or `.so`) in, a converted wheel (or `.so`)
//! out, and a [`crate::report::ConvertReport`] saying what became of every kernel.
//!
//! Stages, per input, one module each:
//!
//! 1. **read** ([`read`]) — a wheel passes [`crate::wheel::audit::audit`] (zip-slip,
//!    duplicate names, impossible sizes, RECORD parses) and is refused if it is already
//!    converted (a [`crate::report::PROVENANCE_FILE`] in `.dist-info`, or a local version
//!    label that is a target name or the requested label); each `.so` member is spooled to an
//!    anonymous temporary file and mapped, its bytes checked against RECORD (parallel over the
//!    members, rayon), and analysed once ([`crate::analyze::analyze`]); a `.so` input with a
//!    `.hip_fatbin` section is refused.
//! 2. **kernels** ([`kernels`]) — the device pipeline ([`crate::device::Pipeline`]) builds code
//!    for the kernels with PTX, and for SASS-only kernels from the PTX the SASS lifter makes
//!    of them ([`crate::sass`]); every kernel gets an outcome with its reason.
//! 3. **host** ([`host`]) — the host ELF rewrite ([`crate::rewrite::host::rewrite_host`]) of
//!    every object with something to change, from the same analysis.
//! 4. **outputs** ([`outputs`]) — which objects the output holds: a vendored copy of a CUDA
//!    library that the target's own library replaces is dropped; every other object passes
//!    the load check ([`crate::verify`]) or is reported as not loadable with its problems.
//! 5. **policy** ([`policy`]) — the run's [`Status`]: by default one kernel not translated
//!    stops the run before anything is written, `--allow-partial` goes on, `--strict` also
//!    stops on imports with no mapping.
//! 6. **write** ([`write`]) — the rewritten objects deflated (by splicing the input's deflate
//!    stream where the bytes did not change, [`crate::wheel::splice`]) and the wheel repacked
//!    ([`crate::wheel::repack::repack_with`]) with the provenance file, the shim library and
//!    the new local version label.
//!
//! A run writes all its outputs or none: every output is written to a staging folder inside
//! the output folder and renamed into place only when all were written; on an error (for
//! instance a member whose RECORD row lies, found while it is copied) the staging folder is
//! removed, and so is the output folder if this run created it.
//!
//! The library returns the report with its [`Status`]; the process exit code that goes with
//! it is the command line's business (`wheelport::cli::exit::of_status`).

pub mod host;
pub mod kernels;
pub mod outputs;
pub mod policy;
pub mod read;
pub mod write;

use crate::error::{Error, Result};
use crate::inspect::model::InputKind;
use crate::report::*;
use crate::target::Profile;
use crate::wheel::splice;
use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// What to convert to, and how.
#[derive(Clone)]
pub struct Options {
    /// The target profile.
    pub profile: &'static Profile,
    /// The relink table (absent for the `cuda` twin target, whose imports stay).
    pub relink: Option<Arc<crate::relink::Table>>,
    /// Offload archs (`--offload-arch`); empty: the profile's defaults.
    pub offload_archs: Vec<String>,
    /// The local version label (`--local-version`); empty: the target name.
    pub local_version: String,
    /// The policy.
    pub policy: Policy,
    /// Where outputs go.
    pub out_dir: PathBuf,
    /// `SOURCE_DATE_EPOCH` for member timestamps.
    pub source_date_epoch: Option<i64>,
    /// Show progress bars on stderr (only drawn when stderr is a terminal).
    pub progress: bool,
    /// Lift the SASS of kernels that ship without PTX ([`crate::sass`], with the pipeline's
    /// nvdisasm) and build them like PTX (`--sass lift`, the default); `false` reports them
    /// as SASS only (`--sass skip`).
    pub lift_sass: bool,
    /// Which of a kernel's device codes is translated when it has several
    /// (`--device-code`).
    pub device_code: DeviceCodeSource,
}

/// Which device code of a kernel `convert` translates (`--device-code`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum DeviceCodeSource {
    /// Its PTX where the module has PTX; its SASS, lifted, where it has none (with
    /// [`Options::lift_sass`]).
    #[default]
    Auto,
    /// Its PTX only: kernels without PTX are reported as SASS only, whatever
    /// [`Options::lift_sass`] says.
    Ptx,
    /// Its SASS only, lifted from the lowest sm_80..sm_90 cubin of its module
    /// ([`crate::sass::pick_arch`]), even where the module has PTX, which is then not read:
    /// a kernel whose SASS does not lift is reported with the forms the lifter lacks, never
    /// built from its PTX instead. Makes every PTX+SASS library a test of the lifter.
    Sass,
}

impl Options {
    fn archs(&self) -> Vec<String> {
        if self.offload_archs.is_empty() {
            self.profile.default_archs.clone()
        } else {
            self.offload_archs.clone()
        }
    }

    fn label(&self) -> String {
        if self.local_version.is_empty() {
            self.profile.name.clone()
        } else {
            self.local_version.clone()
        }
    }
}

/// Check a PEP 440 local version label (`[a-z0-9]+` segments separated by `.`; PEP 440
/// "Local version identifiers").
///
/// # Errors
/// A message saying what is wrong.
pub fn check_local_label(label: &str) -> std::result::Result<(), String> {
    if label.is_empty()
        || label
            .split('.')
            .any(|s| s.is_empty() || !s.chars().all(|c| c.is_ascii_alphanumeric()))
    {
        return Err(format!(
            "local version label {label:?} is not ASCII letters and digits in dot-separated segments (PEP 440)"
        ));
    }
    Ok(())
}

fn hex(d: &[u8]) -> String {
    d.iter().map(|b| format!("{b:02x}")).collect()
}

fn sha256_file(path: &Path) -> Result<String> {
    let display = path.display().to_string();
    let mut f = crate::input::open_regular(path)?;
    let mut h = Sha256::new();
    std::io::copy(&mut f, &mut h).map_err(|e| Error::io(&display, e))?;
    Ok(hex(&h.finalize()))
}

/// A progress bar on stderr when `opts.progress` and stderr is a terminal, else hidden. The
/// visible ones share one [`MultiProgress`], so a stage's bar inside another's (the device
/// build inside reading) draws on its own line.
fn bar(opts: &Options, len: u64, what: &str) -> ProgressBar {
    use std::io::IsTerminal;
    static BARS: std::sync::OnceLock<MultiProgress> = std::sync::OnceLock::new();
    let pb = if opts.progress && std::io::stderr().is_terminal() {
        BARS.get_or_init(MultiProgress::new)
            .add(ProgressBar::new(len))
    } else {
        ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::hidden())
    };
    pb.set_style(
        ProgressStyle::with_template("{prefix:>9} [{bar:30}] {pos}/{len} {elapsed:>4} {wide_msg}")
            .expect("template")
            .progress_chars("=> "),
    );
    pb.set_prefix(what.to_string());
    pb
}

/// One shared object after the read, kernels and host stages.
struct Work {
    /// Member name (wheels) or path.
    name: String,
    map: memmap2::Mmap,
    conv: SharedObjectConversion,
    /// The rewritten object, when something changed.
    new_bytes: Option<Vec<u8>>,
    /// Whether the rewritten object needs the shim library.
    needs_shim: bool,
    /// The `cuda` twin's identity interposer the rewritten object loads.
    interposer: Option<crate::twin::identity::Identity>,
    /// Offsets of the member inside the input wheel's deflate stream (for splicing).
    spliceable: Option<splice::Index>,
    /// DT_SONAME of the input object.
    soname: Option<String>,
    /// The input object's CUDA runtime.
    runtime: crate::analyze::runtime::CudaRuntime,
    /// The CUDA library this member is a vendored copy of (wheels, re-targeted stacks).
    vendored: Option<String>,
    /// A loose cubin (device ELF): not rewritten, not load-checked, copied as it is.
    cubin: bool,
}

/// One input after the read, kernels and host stages.
struct Prepared {
    path: PathBuf,
    kind: InputKind,
    conv: InputConversion,
    work: Vec<Work>,
    audit: Option<crate::wheel::audit::Audit>,
    /// The wheel, opened once (absent for a `.so` input).
    reader: Option<crate::wheel::WheelReader>,
}

fn failed_input(path: &Path, kind: InputKind, e: &Error) -> InputConversion {
    InputConversion {
        path: path.display().to_string(),
        kind,
        sha256: None,
        version: None,
        new_version: None,
        output: None,
        dropped_requirements: Vec::new(),
        shared_objects: Vec::new(),
        totals: Totals::default(),
        error: Some(e.into()),
    }
}

/// Convert `inputs` (files or directories) with `pipeline` building the device code.
///
/// Errors about one input are reported in its [`InputConversion::error`] and make the run's
/// status [`Status::InputError`] (nothing is written); the report is returned either way.
/// [`ConvertReport::exit_code`] is left 0: the command line sets it from the status.
///
/// # Errors
/// Only when an input does not exist or a directory cannot be listed.
pub fn convert(
    inputs: &[PathBuf],
    opts: &Options,
    pipeline: &crate::device::Pipeline,
) -> Result<ConvertReport> {
    let files = crate::inspect::expand_inputs(inputs)?;
    let profile = opts.profile;
    let archs = opts.archs();
    let mut report = ConvertReport {
        schema: Schema {
            name: SCHEMA_NAME.into(),
            version: SCHEMA_VERSION,
        },
        tool_version: env!("CARGO_PKG_VERSION").into(),
        target: profile.name.clone(),
        offload_archs: archs.clone(),
        local_version: opts.label(),
        policy: opts.policy,
        device_build: DeviceBuildInfo {
            available: pipeline.available(profile).is_ok(),
            description: pipeline.describe(profile),
        },
        inputs: Vec::new(),
        totals: Totals::default(),
        status: Status::Converted,
        exit_code: 0,
        message: String::new(),
    };

    // The shim library (built with the host C compiler, cached per process) is built while
    // the inputs are read; the write stage picks it up if an object needs it.
    if let Some(t) = opts.relink.clone() {
        if t.target().has_hip_shim() {
            std::thread::spawn(move || {
                let _ = crate::shim::shim_for_table(&t);
            });
        }
    }

    // Read, kernels and host stages for every input.
    let mut prepared = Vec::new();
    for f in &files {
        match read::prepare(f, opts, &archs, pipeline) {
            Ok(p) => prepared.push(p),
            Err((kind, e)) => report.inputs.push(failed_input(f, kind, &e)),
        }
    }
    let input_errors = !report.inputs.is_empty();
    let environment_only = report
        .inputs
        .iter()
        .all(|i| i.error.as_ref().is_some_and(|e| e.kind == "io"));
    let mut totals = Totals::default();
    for p in &prepared {
        totals.add(&p.conv.totals);
    }
    let (status, message) = policy::decide(
        &totals,
        input_errors,
        environment_only,
        opts.policy,
        &profile.name,
    );

    if matches!(status, Status::Converted | Status::Partial) {
        // The external tools the device build used, as each wheel's SBOM names them
        // (nvdisasm when kernels were lifted from SASS).
        let mut tools: Vec<(String, String)> = pipeline
            .toolchain
            .tools
            .iter()
            .map(|t| (t.name.clone(), t.version_line.clone()))
            .collect();
        if totals.lifted > 0 {
            if let Ok(t) = &pipeline.nvdisasm {
                tools.push((t.name.clone(), t.version_line.clone()));
            }
        }
        match write::write_all(&mut prepared, opts, &tools) {
            Ok(n) => totals.outputs_written = n,
            Err((kind, e)) => {
                report.inputs.extend(prepared.into_iter().map(|p| p.conv));
                report.totals = totals;
                report.status = if e.kind == crate::error::ErrorKind::Io {
                    Status::EnvironmentError
                } else {
                    Status::InputError
                };
                report.message = format!("{kind}, nothing was written: {e}");
                return Ok(report);
            }
        }
    }
    report.inputs.extend(prepared.into_iter().map(|p| p.conv));
    report.totals = totals;
    report.status = status;
    report.message = message;
    Ok(report)
}

/// True when `version`'s local label says the wheel was converted already.
fn converted_label(version: &str, label: &str) -> bool {
    let Some((_, local)) = version.split_once('+') else {
        return false;
    };
    local == label || crate::target::builtin().iter().any(|p| p.name == local)
}

fn map_path(path: &Path) -> Result<memmap2::Mmap> {
    crate::input::map_regular(path)
}
