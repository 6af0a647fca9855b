//! Stage 1, read: check the input, read each shared object once and analyse it, then hand
//! the analysis to the kernels and host stages (see the [parent module](super)).

use super::{bar, converted_label, hex, map_path, sha256_file, Options, Prepared, Work};
use crate::error::{Error, ErrorKind, Result};
use crate::inspect::model::InputKind;
use crate::report::*;
use crate::wheel::splice;
use rayon::prelude::*;
use sha2::{Digest, Sha256};
use std::path::Path;

/// Read, analyse, build and rewrite one input (a wheel or a `.so`); the error says which
/// kind of input it was.
pub(super) fn prepare(
    path: &Path,
    opts: &Options,
    archs: &[String],
    pipeline: &crate::device::Pipeline,
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
        || prepare_rest(path, &display, is_wheel, kind, opts, archs, pipeline),
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
    pipeline: &crate::device::Pipeline,
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
    // A wheel is opened once: the audit, the member reads and the repack share the reader.
    let reader = if is_wheel {
        Some(crate::wheel::WheelReader::open(path).map_err(fail)?)
    } else {
        None
    };
    let members: Vec<String> = if let Some(reader) = &reader {
        let a = crate::wheel::audit::audit_reader(reader).map_err(fail)?;
        let prov = format!("{}/{PROVENANCE_FILE}", a.dist_info);
        if a.names.contains(&prov) {
            return Err(fail(Error::new(
                ErrorKind::Input,
                &display,
                format!("already converted by wheelport ({prov} is present); convert the original CUDA wheel instead"),
            )));
        }
        let info = reader.clone().info().map_err(fail)?.unwrap_or_default();
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
            .filter(|n| crate::wheel::is_elf_object_name(n) && !n.ends_with('/'))
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
                reader.as_ref(),
                dist.as_deref(),
                name,
                audit.as_ref(),
                opts,
                archs,
                pipeline,
            );
            pb.inc(1);
            w
        })
        .collect();
    pb.finish_and_clear();
    let mut work = Vec::new();
    for w in works {
        work.push(w.map_err(fail)?);
    }
    super::outputs::settle(&mut work, opts);
    for w in &work {
        conv.totals.add(&w.conv.totals);
        conv.shared_objects.push(w.conv.clone());
    }
    Ok(Prepared {
        path: path.to_path_buf(),
        kind,
        conv,
        work,
        audit,
        reader,
    })
}

/// One shared object: its bytes (checked against RECORD), its analysis, its device code and
/// its host rewrite.
#[allow(clippy::too_many_arguments)]
fn read_one(
    path: &Path,
    reader: Option<&crate::wheel::WheelReader>,
    dist: Option<&str>,
    name: &str,
    audit: Option<&crate::wheel::audit::Audit>,
    opts: &Options,
    archs: &[String],
    pipeline: &crate::device::Pipeline,
) -> Result<Work> {
    let wheel_display = path.display().to_string();
    let is_wheel = reader.is_some();
    let (map, digest, display, spliceable) = if let Some(reader) = reader {
        let (m, digest, index) = splice::spool(reader, name)?;
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
        let other = row.needs().map(|a| a.digest(&map[..]));
        row.check(&digest, other.as_deref(), map.len() as u64)
            .map_err(|m| {
                Error::at(
                    ErrorKind::Wheel,
                    &wheel_display,
                    at,
                    format!("member {name}: {m}; refusing the wheel"),
                )
            })?;
    }
    let analysis =
        crate::analyze::analyze(&map, name, &display, &crate::analyze::Options::default())?;
    if audit.is_none() && analysis.elf.has_section(".hip_fatbin") {
        return Err(Error::new(
            ErrorKind::Input,
            &display,
            "already converted by wheelport (it has a .hip_fatbin section); convert the original CUDA object instead",
        ));
    }
    if let Some(e) = analysis.errors.first() {
        return Err(e.clone());
    }

    // An object the target cannot run as it is is not built or rewritten: a vendored copy of
    // a CUDA library (the target's own library replaces it, or nothing can), or a statically
    // linked CUDA runtime (it reaches the GPU through NVIDIA's driver API).
    let retargeted = opts.profile.relinks();
    let vendored =
        crate::analyze::runtime::vendored_cuda_library(name).filter(|_| retargeted && is_wheel);
    let cubin = analysis.cubin_arch.is_some();
    let skip = match (&vendored, &analysis.runtime) {
        (Some(lib), _) => Some(format!(
            "it is in the vendored CUDA library {lib}, which {}",
            match opts.relink.as_ref().and_then(|t| t.soname(lib)).and_then(|r| r.target_soname.clone()) {
                Some(t) => format!("the target's {t} replaces"),
                None => format!("has no counterpart on {}", opts.profile.name),
            }
        )),
        (None, crate::analyze::runtime::CudaRuntime::Static { .. })
            if retargeted && analysis.static_entries.is_empty() =>
        {
            Some(format!(
                "its object links the CUDA runtime statically and has no .symtab naming the runtime's entry points (stripped), so they cannot be rebound to {} (docs/static-runtime.md)",
                opts.profile.name
            ))
        }
        _ => None,
    };
    let device = super::kernels::device_code(&analysis, opts, archs, pipeline, skip.as_deref());
    if let Some(e) = device.environment {
        // The machine failed the build (a temporary file, a full disk), not the kernels.
        return Err(e);
    }
    let host = if skip.is_some() || cubin {
        super::host::HostResult {
            bytes: None,
            report: None,
            needs_shim: false,
            unresolved: 0,
            interposer: None,
        }
    } else {
        super::host::rewrite(&analysis, opts, dist, name, &device)?
    };
    let mut totals = device.totals;
    totals.unresolved_imports += host.unresolved;
    // Modules kept as data: the target runtime would be handed CUDA code.
    let runtime_modules: Vec<crate::inspect::model::RuntimeModuleReport> =
        analysis.embedded.iter().map(Into::into).collect();
    if retargeted {
        let n: usize = analysis.embedded.iter().map(|m| m.kernels.len()).sum();
        totals.kernels += n;
        totals.not_translated += n;
    }
    let soname = analysis.elf.soname.clone();
    let runtime = analysis.runtime.clone();
    drop(analysis);
    Ok(Work {
        name: name.to_string(),
        conv: SharedObjectConversion {
            path: name.to_string(),
            sha256: hex(&digest),
            rewritten: host.bytes.is_some(),
            totals,
            kernels: device.kernels,
            host: host.report,
            outcome: ObjectOutcome::Written,
            problems: Vec::new(),
            runtime_modules,
        },
        map,
        new_bytes: host.bytes,
        needs_shim: host.needs_shim,
        interposer: host.interposer,
        spliceable,
        soname,
        runtime,
        vendored,
        cubin,
    })
}
