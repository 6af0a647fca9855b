//! `wheelport convert`: the main job. A wheel (or `.so`) in, a converted wheel (or `.so`)
//! out, and a [`crate::report::ConvertReport`] saying what became of every kernel.
//!
//! Stages, per input:
//!
//! 1. **check** — a wheel passes [`crate::wheel::audit::audit`] (zip-slip, duplicate names,
//!    impossible sizes, RECORD parses) and is refused if it is already converted (a
//!    [`crate::report::PROVENANCE_FILE`] in `.dist-info`, or a local version label that is a
//!    target name or the requested label); a `.so` is refused if it has a `.hip_fatbin`
//!    section.
//! 2. **read** (parallel over the shared objects, rayon) — each `.so` member is spooled to an
//!    anonymous temporary file and mapped, its bytes checked against RECORD, and inspected
//!    ([`crate::inspect::inspect_shared_object`]): kernels with their status, the relink plan
//!    ([`crate::relink::plan()`]).
//! 3. **device** — the [`device::DeviceBuilder`] builds code for the kernels with PTX.
//! 4. **policy** — every kernel is translated or not; by default one not translated stops
//!    the run before anything is written, `--allow-partial` goes on, `--strict` also stops on
//!    imports with no mapping ([`crate::report::Policy`]).
//! 5. **rewrite** (parallel) — the host ELF rewrite ([`crate::rewrite::rewrite`]) of every
//!    object with something to change; the new bytes are deflated ahead of time (by splicing
//!    the input's deflate stream where the bytes did not change, see [`splice`]).
//! 6. **write** — [`crate::wheel::repack::repack_with`] with the new members, the provenance
//!    file and the new local version label, to a temporary file renamed into place.
//!
//! A run writes all its outputs or none: every output is written to a staging folder inside
//! the output folder and renamed into place only when all were written; on an error (for
//! instance a member whose RECORD row lies, found while it is copied) the staging folder is
//! removed, and so is the output folder if this run created it.

pub mod device;

use crate::error::{Error, ErrorKind, Result};
use crate::inspect::model::{InputKind, KernelStatus, SharedObjectReport};
use crate::report::*;
use crate::rewrite::{HostEdits, Registration};
use crate::target::{Family, Profile};
use crate::wheel::splice;
use device::{DeviceBuilder, DeviceRequest, KernelBuild, ModuleRequest, PtxText};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use rayon::prelude::*;
use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, HashMap};
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
    let mut f = std::fs::File::open(path).map_err(|e| Error::io(&display, e))?;
    let mut h = Sha256::new();
    std::io::copy(&mut f, &mut h).map_err(|e| Error::io(&display, e))?;
    Ok(hex(&h.finalize()))
}

fn bar(opts: &Options, len: u64, what: &str) -> ProgressBar {
    use std::io::IsTerminal;
    let pb = ProgressBar::with_draw_target(
        Some(len),
        if opts.progress && std::io::stderr().is_terminal() {
            ProgressDrawTarget::stderr()
        } else {
            ProgressDrawTarget::hidden()
        },
    );
    pb.set_style(
        ProgressStyle::with_template("{prefix:>9} [{bar:30}] {pos}/{len} {wide_msg}")
            .expect("template")
            .progress_chars("=> "),
    );
    pb.set_prefix(what.to_string());
    pb
}

/// One shared object after reading, device build and planning.
struct Work {
    /// Member name (wheels) or path.
    name: String,
    map: memmap2::Mmap,
    conv: SharedObjectConversion,
    /// The rewritten object, when something changed.
    new_bytes: Option<Vec<u8>>,
    /// Whether the rewritten object needs the shim library.
    needs_shim: bool,
    /// Offsets of the member inside the input wheel's deflate stream (for splicing).
    spliceable: Option<splice::Index>,
}

/// One input after stages 1–4.
struct Prepared {
    path: PathBuf,
    kind: InputKind,
    conv: InputConversion,
    work: Vec<Work>,
    audit: Option<crate::wheel::audit::Audit>,
}

/// Convert `inputs` (files or directories) with `device` building the device code.
///
/// Errors about one input are reported in its [`InputConversion::error`] and make the run's
/// status [`Status::InputError`] (nothing is written); the report is returned either way.
///
/// # Errors
/// Only when an input does not exist or a directory cannot be listed.
pub fn convert(
    inputs: &[PathBuf],
    opts: &Options,
    device: &dyn DeviceBuilder,
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
            available: device.available(profile).is_ok(),
            description: device.describe(profile),
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
        if t.target() != crate::relink::Target::Musa {
            std::thread::spawn(move || {
                let _ = crate::shim::shim_for_table(&t);
            });
        }
    }

    // Stages 1-4 for every input.
    let mut prepared = Vec::new();
    for f in &files {
        match prepare(f, opts, &archs, device) {
            Ok(p) => prepared.push(p),
            Err((kind, e)) => report.inputs.push(InputConversion {
                path: f.display().to_string(),
                kind,
                sha256: None,
                version: None,
                new_version: None,
                output: None,
                dropped_requirements: Vec::new(),
                shared_objects: Vec::new(),
                totals: Totals::default(),
                error: Some((&e).into()),
            }),
        }
    }
    let input_errors = !report.inputs.is_empty();
    let mut totals = Totals::default();
    for p in &prepared {
        totals.add(&p.conv.totals);
    }
    let (status, code, message) = if input_errors {
        (
            Status::InputError,
            crate::cli::exit::INPUT_ERROR,
            "an input could not be converted (see its error); nothing was written".to_string(),
        )
    } else if opts.policy == Policy::Strict && totals.unresolved_imports > 0 {
        (
            Status::RefusedUnresolvedImports,
            crate::cli::exit::UNRESOLVED_IMPORTS,
            format!(
                "--strict: {} imports have no mapping on {}; nothing was written",
                totals.unresolved_imports, profile.name
            ),
        )
    } else if totals.not_translated > 0 && opts.policy != Policy::AllowPartial {
        (
            Status::RefusedUntranslated,
            crate::cli::exit::UNTRANSLATED,
            format!(
                "{} of {} kernels cannot be translated; nothing was written (--allow-partial writes the wheel anyway)",
                totals.not_translated, totals.kernels
            ),
        )
    } else if totals.not_translated > 0 {
        (
            Status::Partial,
            crate::cli::exit::PARTIAL,
            format!(
                "--allow-partial: written with {} of {} kernels not translated",
                totals.not_translated, totals.kernels
            ),
        )
    } else {
        (
            Status::Converted,
            crate::cli::exit::OK,
            format!("converted: all {} kernels translated", totals.kernels),
        )
    };

    let write = matches!(status, Status::Converted | Status::Partial);
    if write {
        // Stages 5-6: every output goes to a temporary file first; they are renamed into
        // place only when all of them were written.
        let created_out_dir = !opts.out_dir.exists();
        let result = (|| -> Result<(tempfile::TempDir, Vec<PathBuf>)> {
            std::fs::create_dir_all(&opts.out_dir)
                .map_err(|e| Error::io(opts.out_dir.display().to_string(), e))?;
            let staging = tempfile::Builder::new()
                .prefix(".wheelport-")
                .tempdir_in(&opts.out_dir)
                .map_err(|e| Error::io(opts.out_dir.display().to_string(), e))?;
            let mut outs = Vec::new();
            for p in &mut prepared {
                let (out, beside) = write_output(p, opts, staging.path())?;
                // The shim beside bare `.so` outputs: once, however many need it.
                for b in beside {
                    if !outs.contains(&b) {
                        outs.push(b);
                    }
                }
                p.conv.output = Some(
                    opts.out_dir
                        .join(out.file_name().expect("output has a name"))
                        .display()
                        .to_string(),
                );
                outs.push(out);
            }
            Ok((staging, outs))
        })();
        match result {
            Ok((staging, outs)) => {
                for o in &outs {
                    let dest = opts.out_dir.join(o.file_name().expect("name"));
                    std::fs::rename(o, &dest)
                        .map_err(|e| Error::io(dest.display().to_string(), e))?;
                }
                drop(staging);
                totals.outputs_written = outs.len();
            }
            Err(e) => {
                if created_out_dir {
                    // Only removes it when empty: nothing of anyone else's goes.
                    let _ = std::fs::remove_dir(&opts.out_dir);
                }
                let kind = if e.kind == ErrorKind::Wheel {
                    "an input is malformed or lies"
                } else {
                    "writing failed"
                };
                for p in &mut prepared {
                    if p.conv.error.is_none()
                        && (e.file == p.conv.path
                            || e.file.starts_with(&format!("{}!", p.conv.path)))
                    {
                        p.conv.error = Some((&e).into());
                    }
                    p.conv.output = None;
                }
                report.inputs.extend(prepared.into_iter().map(|p| p.conv));
                report.totals = totals;
                report.status = Status::InputError;
                report.exit_code = crate::cli::exit::INPUT_ERROR;
                report.message = format!("{kind}, nothing was written: {e}");
                return Ok(report);
            }
        }
    }
    report.inputs.extend(prepared.into_iter().map(|p| p.conv));
    report.totals = totals;
    report.status = status;
    report.exit_code = code;
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

fn prepare(
    path: &Path,
    opts: &Options,
    archs: &[String],
    device: &dyn DeviceBuilder,
) -> std::result::Result<Prepared, (InputKind, Error)> {
    let display = path.display().to_string();
    let is_wheel = display.ends_with(".whl");
    let kind = if is_wheel {
        InputKind::Wheel
    } else {
        InputKind::SharedObject
    };
    let fail = |e: Error| (kind, e);
    // The input's hash is computed while the rest is read.
    let (sha, rest) = rayon::join(
        || sha256_file(path),
        || prepare_rest(path, &display, is_wheel, kind, opts, archs, device),
    );
    let mut p = rest?;
    p.conv.sha256 = Some(sha.map_err(fail)?);
    Ok(p)
}

#[allow(clippy::too_many_arguments)]
fn prepare_rest(
    path: &Path,
    display: &str,
    is_wheel: bool,
    kind: InputKind,
    opts: &Options,
    archs: &[String],
    device: &dyn DeviceBuilder,
) -> std::result::Result<Prepared, (InputKind, Error)> {
    let fail = |e: Error| (kind, e);
    let display = display.to_string();
    let mut conv = InputConversion {
        path: display.clone(),
        kind,
        sha256: None,
        version: None,
        new_version: None,
        output: None,
        dropped_requirements: Vec::new(),
        shared_objects: Vec::new(),
        totals: Totals::default(),
        error: None,
    };
    let mut audit = None;
    // (member name, display) of each shared object to convert.
    let members: Vec<String> = if is_wheel {
        let a = crate::wheel::audit::audit(path).map_err(fail)?;
        let prov = format!("{}/{PROVENANCE_FILE}", a.dist_info);
        if a.names.contains(&prov) {
            return Err(fail(Error::new(
                ErrorKind::Input,
                &display,
                format!("already converted by wheelport ({prov} is present); convert the original CUDA wheel instead"),
            )));
        }
        let mut r = crate::wheel::WheelReader::open(path).map_err(fail)?;
        let info = r.info().map_err(fail)?.unwrap_or_default();
        let version = info.version.clone().unwrap_or_default();
        if converted_label(&version, &opts.label()) {
            return Err(fail(Error::new(
                ErrorKind::Input,
                &display,
                format!("already converted: its version {version} carries a target's local label; convert the original CUDA wheel instead"),
            )));
        }
        conv.new_version = Some(crate::wheel::repack::with_local_label(
            &version,
            &opts.label(),
        ));
        conv.version = Some(version);
        let names = a
            .names
            .iter()
            .filter(|n| crate::wheel::is_shared_object_name(n) && !n.ends_with('/'))
            .cloned()
            .collect();
        audit = Some(a);
        names
    } else {
        vec![display.clone()]
    };

    let dist = path
        .file_name()
        .and_then(|n| n.to_str())
        .and_then(|n| crate::wheel::repack::WheelName::parse(n).ok())
        .map(|w| w.name)
        .filter(|_| is_wheel);
    let pb = bar(opts, members.len() as u64, "reading");
    let works: Vec<Result<Work>> = members
        .par_iter()
        .map(|name| {
            pb.set_message(name.clone());
            let w = read_one(
                path,
                is_wheel,
                dist.as_deref(),
                name,
                audit.as_ref(),
                opts,
                archs,
                device,
            );
            pb.inc(1);
            w
        })
        .collect();
    pb.finish_and_clear();
    let mut work = Vec::new();
    for w in works {
        let w = w.map_err(fail)?;
        conv.totals.add(&w.conv.totals);
        conv.shared_objects.push(w.conv.clone());
        work.push(w);
    }
    Ok(Prepared {
        path: path.to_path_buf(),
        kind,
        conv,
        work,
        audit,
    })
}

fn map_path(path: &Path) -> Result<memmap2::Mmap> {
    let display = path.display().to_string();
    let f = std::fs::File::open(path).map_err(|e| Error::io(&display, e))?;
    // SAFETY: read-only mapping of an input wheelport never writes.
    unsafe { memmap2::Mmap::map(&f) }.map_err(|e| Error::io(&display, e))
}

#[allow(clippy::too_many_arguments)]
fn read_one(
    path: &Path,
    is_wheel: bool,
    dist: Option<&str>,
    name: &str,
    audit: Option<&crate::wheel::audit::Audit>,
    opts: &Options,
    archs: &[String],
    device: &dyn DeviceBuilder,
) -> Result<Work> {
    let wheel_display = path.display().to_string();
    let (map, digest, display, spliceable) = if is_wheel {
        let (m, digest, index) = splice::spool_member(path, name)?;
        let display = format!("{wheel_display}!{name}");
        (m, digest, display, index)
    } else {
        let m = map_path(path)?;
        let digest: [u8; 32] = Sha256::digest(&m[..]).into();
        (m, digest, wheel_display.clone(), None)
    };
    if let Some(a) = audit {
        let at = a.header_offsets.get(name).copied().unwrap_or(0);
        let row = a.record.get(name).ok_or_else(|| {
            Error::at(
                ErrorKind::Wheel,
                &wheel_display,
                at,
                format!("member {name} is not listed in RECORD; refusing the wheel"),
            )
        })?;
        row.check(&digest, map.len() as u64).map_err(|m| {
            Error::at(
                ErrorKind::Wheel,
                &wheel_display,
                at,
                format!("member {name}: {m}; refusing the wheel"),
            )
        })?;
    } else if has_section(&map, ".hip_fatbin") {
        return Err(Error::new(
            ErrorKind::Input,
            &display,
            "already converted by wheelport (it has a .hip_fatbin section); convert the original CUDA object instead",
        ));
    }
    let iopts = crate::inspect::Options {
        kernels: true,
        untranslatable: false,
        relink: opts.relink.clone(),
    };
    let rep = crate::inspect::inspect_shared_object(&map, name, &display, &iopts);
    if let Some(e) = rep.errors.first() {
        return Err(Error {
            kind: ErrorKind::Elf,
            file: e.file.clone(),
            offset: e.offset,
            message: e.message.clone(),
        });
    }
    let so = crate::elf::scan(&map, &display)?;

    // Device code.
    let requests = module_requests(&map, &rep, &display, device.available(opts.profile).is_ok())?;
    let req = DeviceRequest {
        file: &display,
        profile: opts.profile,
        archs,
        modules: requests,
    };
    let builds = if req.modules.is_empty() {
        Vec::new()
    } else {
        device.build(&req)?
    };
    let magic = match opts.profile.family {
        Family::Nvptx => crate::rewrite::CUDA_WRAPPER_MAGIC,
        _ => crate::rewrite::HIP_WRAPPER_MAGIC,
    };
    let mut built: HashMap<(usize, String), Vec<String>> = HashMap::new();
    let mut not_built: HashMap<(usize, String), String> = HashMap::new();
    let mut registrations = Vec::new();
    for (m, b) in req.modules.iter().zip(&builds) {
        let mut any = false;
        for (k, outcome) in &b.kernels {
            match outcome {
                KernelBuild::Built { archs } => {
                    any = true;
                    built.insert((m.container, k.clone()), archs.clone());
                }
                KernelBuild::NotBuilt { reason } => {
                    not_built.insert((m.container, k.clone()), reason.clone());
                }
            }
        }
        if !b.container.is_empty() && any {
            registrations.push(Registration {
                wrapper_address: b.wrapper_address,
                magic,
                bundle: b.container.clone(),
            });
        }
    }

    let mut totals = Totals::default();
    let mut kernels = Vec::new();
    for k in rep.kernels.iter().flatten() {
        let key = (k.container, k.name.clone());
        // An arch-guard stub's PTX only reports that the kernel needs another GPU (its real
        // code is SASS for that GPU alone): it is translated as is, so the converted kernel
        // behaves as the original does on every GPU without that SASS, and says so.
        let note = (k.status == KernelStatus::ArchGuardStub).then(|| {
            format!(
                "arch-guard stub translated as is ({}); like the original on any other GPU, it stops instead of computing (the original prints{} first)",
                k.reason.as_deref().unwrap_or("real code only in SASS"),
                k.stub_message
                    .as_deref()
                    .map(|m| format!(" \"{m}\""))
                    .unwrap_or_else(|| " an error".to_string())
            )
        });
        let (translated, archs_built, reason) = match k.status {
            KernelStatus::Ptx | KernelStatus::ArchGuardStub => match built.get(&key) {
                Some(a) if a.iter().all(|x| archs.contains(x)) && !a.is_empty() => {
                    (true, a.clone(), None)
                }
                Some(a) => (
                    false,
                    Vec::new(),
                    Some(format!(
                        "device code built only for {} of {}",
                        a.join(","),
                        archs.join(",")
                    )),
                ),
                None => (
                    false,
                    Vec::new(),
                    Some(not_built.get(&key).cloned().unwrap_or_else(|| {
                        if k.sass_archs.is_empty()
                            && rep.fatbin.as_ref().is_some_and(|f| {
                                f.containers
                                    .get(k.container)
                                    .is_some_and(|c| c.wrappers.is_empty())
                            })
                        {
                            "its fatbin container has no registration wrapper".to_string()
                        } else {
                            "the device build gave no result for it".to_string()
                        }
                    })),
                ),
            },
            _ => (
                false,
                Vec::new(),
                Some(
                    k.reason
                        .clone()
                        .unwrap_or_else(|| format!("{:?}", k.status).to_lowercase()),
                ),
            ),
        };
        totals.kernels += 1;
        if translated {
            totals.translated += 1;
            if note.is_some() {
                totals.stubs += 1;
            }
        } else {
            totals.not_translated += 1;
        }
        kernels.push(KernelConversion {
            container: k.container,
            name: k.name.clone(),
            demangled: k.demangled.clone(),
            found: k.status,
            translated,
            archs: archs_built,
            reason,
            note: if translated { note } else { None },
        });
    }

    let device_code: BTreeMap<u64, Vec<u8>> = registrations
        .into_iter()
        .map(|r| (r.wrapper_address, r.bundle))
        .collect();
    let (new_bytes, host, needs_shim) = match &opts.relink {
        Some(table) => {
            // In a wheel the shim ships in `<dist>.libs/`; beside a bare `.so` (`$ORIGIN`).
            let shim = Some(crate::rewrite::host::ShimPlacement {
                so_path: dist.map_or_else(|| so_file_name(name), |_| name.to_string()),
                libs_dir: dist.map(crate::shim::libs_dir).unwrap_or_default(),
            });
            let hr = crate::rewrite::host::rewrite_host(
                &map,
                &display,
                opts.profile,
                table,
                &device_code,
                shim.as_ref(),
            )?;
            let r = &hr.report;
            totals.unresolved_imports += r.unresolved.len() + r.unresolved_needed.len();
            let changed = !(r.needed_changed.is_empty()
                && r.needed_added.is_empty()
                && r.renamed.is_empty()
                && r.registered.is_empty()
                && r.runpath.is_none());
            let needs_shim = r.needed_added.iter().any(|n| n == crate::shim::SHIM_SONAME);
            let host = host_conversion(r, so.wrappers.len());
            (changed.then_some(hr.bytes), Some(host), needs_shim)
        }
        None => {
            // The cuda twin keeps its imports; only wrappers with new device code change.
            let edits = HostEdits {
                registrations: device_code
                    .iter()
                    .map(|(a, b)| Registration {
                        wrapper_address: *a,
                        magic,
                        bundle: b.clone(),
                    })
                    .collect(),
                ..Default::default()
            };
            let bytes = if edits.registrations.is_empty() {
                None
            } else {
                Some(crate::rewrite::rewrite(&map, &edits, &display)?.0)
            };
            (bytes, None, false)
        }
    };
    Ok(Work {
        name: name.to_string(),
        conv: SharedObjectConversion {
            path: name.to_string(),
            sha256: hex(&digest),
            rewritten: new_bytes.is_some(),
            totals,
            kernels,
            host,
        },
        map,
        new_bytes,
        needs_shim,
        spliceable,
    })
}

/// The report's view of [`crate::rewrite::host::HostReport`].
fn host_conversion(r: &crate::rewrite::host::HostReport, wrappers: usize) -> HostConversion {
    let mut notes = Vec::new();
    let mut skipped: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    for w in &r.skipped {
        let e = skipped.entry(w.reason.as_str()).or_default();
        e.0 += 1;
        e.1 += w.kernels.len();
    }
    for (reason, (n, k)) in skipped {
        notes.push(format!(
            "{n} registration wrappers ({k} kernels) not registered: {reason}"
        ));
    }
    if !r.left_alone.is_empty() {
        notes.push(format!(
            "{} wrappers that no code registers (device-link) left alone",
            r.left_alone.len()
        ));
    }
    if let Some(rp) = &r.runpath {
        notes.push(format!("DT_RUNPATH set to {rp}"));
    }
    let mut needed: Vec<(String, String)> = r
        .needed_changed
        .iter()
        .map(|(a, b)| (a.clone(), b.clone().unwrap_or_default()))
        .collect();
    needed.extend(r.needed_added.iter().map(|n| (String::new(), n.clone())));
    HostConversion {
        needed,
        unresolved_needed: r.unresolved_needed.clone(),
        renamed: r.renamed.len().saturating_sub(r.shimmed.len()),
        shimmed: r.shimmed.clone(),
        unresolved: r
            .unresolved
            .iter()
            .map(|u| crate::inspect::model::UnresolvedImport {
                import: u.import.clone(),
                reason: u.reason.clone(),
            })
            .collect(),
        wrappers,
        wrappers_repointed: r.registered.len(),
        moved_sections: r.summary.moved.clone(),
        notes,
    }
}

fn has_section(data: &[u8], name: &str) -> bool {
    use object::{Object, ObjectSection};
    object::File::parse(data)
        .map(|f| f.sections().any(|s| s.name() == Ok(name)))
        .unwrap_or(false)
}

/// The modules (wrapper → container) with kernels to build. PTX is extracted only when the
/// builder can use it.
fn module_requests(
    data: &[u8],
    rep: &SharedObjectReport,
    file: &str,
    with_ptx: bool,
) -> Result<Vec<ModuleRequest>> {
    let Some(fb) = &rep.fatbin else {
        return Ok(Vec::new());
    };
    let mut by_container: HashMap<usize, Vec<String>> = HashMap::new();
    for k in rep.kernels.iter().flatten() {
        // An arch-guard stub is translated as the stub it is (see `convert_object`).
        if matches!(k.status, KernelStatus::Ptx | KernelStatus::ArchGuardStub) {
            by_container
                .entry(k.container)
                .or_default()
                .push(k.name.clone());
        }
    }
    let mut out = Vec::new();
    for (ci, c) in fb.containers.iter().enumerate() {
        let Some(kernels) = by_container.get(&ci) else {
            continue;
        };
        let ptx = if with_ptx {
            container_ptx(data, c, file)?
        } else {
            Vec::new()
        };
        for &wi in &c.wrappers {
            let w = &fb.wrappers[wi];
            out.push(ModuleRequest {
                wrapper_address: w.address,
                registered: w.registered.unwrap_or(false),
                container: ci,
                ptx: ptx.clone(),
                kernels: kernels.clone(),
            });
        }
    }
    Ok(out)
}

/// The PTX entries of the container at `c.offset`, by arch, highest last.
fn container_ptx(
    data: &[u8],
    c: &crate::inspect::model::ContainerReport,
    file: &str,
) -> Result<Vec<PtxText>> {
    let start = c.offset as usize;
    let end = start + c.size as usize;
    let bytes = data.get(start..end).ok_or_else(|| {
        Error::at(
            ErrorKind::Fatbin,
            file,
            c.offset,
            "container extends past the end of the file",
        )
    })?;
    let containers = crate::fatbin::parse_section(bytes, c.offset, file)?;
    let mut out = Vec::new();
    for e in containers.iter().flat_map(|c| c.entries.iter()) {
        if e.kind() == crate::fatbin::EntryKind::Ptx {
            let mut text = e.ptx_bytes()?.into_owned();
            while text.last() == Some(&0) {
                text.pop();
            }
            out.push(PtxText {
                arch: e.arch_name(),
                text,
            });
        }
    }
    out.sort_by_key(|p| {
        p.arch
            .trim_start_matches(|ch: char| !ch.is_ascii_digit())
            .trim_end_matches(|ch: char| !ch.is_ascii_digit())
            .parse::<u32>()
            .unwrap_or(0)
    });
    Ok(out)
}

/// The file name of a bare `.so` input's path.
fn so_file_name(path: &str) -> String {
    Path::new(path)
        .file_name()
        .map_or_else(|| path.to_string(), |n| n.to_string_lossy().into_owned())
}

/// Stages 5-6 for one input: compress its rewritten objects and write the output into
/// `staging`, with the shim library when an object needs it (inside a wheel; beside a bare
/// `.so`, returned as the second value).
fn write_output(
    p: &mut Prepared,
    opts: &Options,
    staging: &Path,
) -> Result<(PathBuf, Vec<PathBuf>)> {
    let shim = if p.work.iter().any(|w| w.needs_shim) {
        let table = opts
            .relink
            .as_ref()
            .expect("only relinked objects need the shim");
        Some(crate::shim::shim_for_table(table)?)
    } else {
        None
    };
    match p.kind {
        InputKind::SharedObject => {
            let name = p.path.file_name().expect("input has a name");
            let final_path = opts.out_dir.join(name);
            if std::fs::canonicalize(&final_path).ok() == std::fs::canonicalize(&p.path).ok() {
                return Err(Error::new(
                    ErrorKind::Input,
                    p.path.display().to_string(),
                    "the output would overwrite the input; choose another -o directory",
                ));
            }
            let dest = staging.join(name);
            let w = &p.work[0];
            let data: &[u8] = w.new_bytes.as_deref().unwrap_or(&w.map[..]);
            let mode = std::fs::metadata(&p.path)
                .map(|m| std::os::unix::fs::PermissionsExt::mode(&m.permissions()))
                .unwrap_or(0o755);
            std::fs::write(&dest, data).map_err(|e| Error::io(dest.display().to_string(), e))?;
            let _ = std::fs::set_permissions(
                &dest,
                std::os::unix::fs::PermissionsExt::from_mode(mode & 0o777),
            );
            let mut beside = Vec::new();
            if let Some((soname, bytes)) = &shim {
                // Without a wheel there is no `.libs` folder: the shim goes next to the
                // object, which finds it through DT_RUNPATH `$ORIGIN`.
                let sp = staging.join(soname);
                std::fs::write(&sp, bytes).map_err(|e| Error::io(sp.display().to_string(), e))?;
                let _ = std::fs::set_permissions(
                    &sp,
                    std::os::unix::fs::PermissionsExt::from_mode(0o755),
                );
                beside.push(sp);
            }
            Ok((dest, beside))
        }
        InputKind::Wheel => {
            let pb = bar(opts, p.work.len() as u64, "deflating");
            let pre: Vec<(String, crate::wheel::repack::Precompressed)> = p
                .work
                .par_iter()
                .filter_map(|w| {
                    let new = w.new_bytes.as_ref()?;
                    pb.set_message(w.name.clone());
                    let c = splice::deflate_member(&w.map, new, w.spliceable.as_ref());
                    pb.inc(1);
                    Some((w.name.clone(), c))
                })
                .collect();
            pb.finish_and_clear();
            let provenance = Provenance {
                schema: Schema {
                    name: PROVENANCE_SCHEMA_NAME.into(),
                    version: SCHEMA_VERSION,
                },
                tool: "wheelport".into(),
                tool_version: env!("CARGO_PKG_VERSION").into(),
                target: opts.profile.name.clone(),
                offload_archs: opts.archs(),
                source_wheel: p
                    .path
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default(),
                source_sha256: p.conv.sha256.clone().unwrap_or_default(),
                source_version: p.conv.version.clone().unwrap_or_default(),
                shared_objects: p.conv.shared_objects.clone(),
            };
            let mut prov = serde_json::to_vec_pretty(&provenance).expect("provenance serializes");
            prov.push(b'\n');
            let dist = p
                .path
                .file_name()
                .and_then(|n| n.to_str())
                .and_then(|n| crate::wheel::repack::WheelName::parse(n).ok())
                .map(|w| w.name)
                .unwrap_or_default();
            let plan = crate::wheel::repack::RepackPlan {
                local_label: opts.label(),
                replace: HashMap::new(),
                dist_info_extra: vec![(PROVENANCE_FILE.to_string(), prov)],
                source_date_epoch: opts.source_date_epoch,
                target: Some(opts.profile.name.clone()),
                verify_record: p
                    .audit
                    .as_ref()
                    .map(|a| a.record.clone())
                    .unwrap_or_default(),
                precompressed: pre.into_iter().collect(),
                extra_members: shim
                    .into_iter()
                    .map(|(soname, bytes)| {
                        (
                            format!("{}/{soname}", crate::shim::libs_dir(&dist)),
                            bytes,
                            0o755,
                        )
                    })
                    .collect(),
            };
            let pb = bar(opts, 1, "writing");
            pb.set_message(p.path.display().to_string());
            let r = crate::wheel::repack::repack_with(&p.path, staging, &plan)?;
            pb.finish_and_clear();
            p.conv.dropped_requirements = r.dropped_requirements;
            p.conv.new_version = Some(r.version);
            Ok((r.path, Vec::new()))
        }
    }
}
