//! Stage 5, write: every output into a staging folder, then renamed into place when all were
//! written (see the [parent module](super)).

use super::{bar, Options, Prepared};
use crate::error::{Error, ErrorKind, Result};
use crate::inspect::model::InputKind;
use crate::report::*;
use crate::wheel::splice;
use rayon::prelude::*;
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// Write every prepared input; returns the number of files written. On an error nothing is
/// left behind (the staging folder is removed, and the output folder when this run made it),
/// every input's `output` is cleared, the input the error names gets it, and the error comes
/// back with what kind of failure it was (for the run's message).
///
/// # Errors
/// (`"an input is malformed or lies"` or `"writing failed"`, the error).
pub(super) fn write_all(
    prepared: &mut [Prepared],
    opts: &Options,
    tools: &[(String, String)],
) -> std::result::Result<usize, (&'static str, Error)> {
    let created_out_dir = !opts.out_dir.exists();
    let result = (|| -> Result<(tempfile::TempDir, Vec<PathBuf>)> {
        std::fs::create_dir_all(&opts.out_dir)
            .map_err(|e| Error::io(opts.out_dir.display().to_string(), e))?;
        let staging = tempfile::Builder::new()
            .prefix(".wheelport-")
            .tempdir_in(&opts.out_dir)
            .map_err(|e| Error::io(opts.out_dir.display().to_string(), e))?;
        let mut outs = Vec::new();
        // Which input each output file comes from: two inputs never write one name.
        let mut from: HashMap<PathBuf, String> = HashMap::new();
        for p in prepared.iter_mut() {
            // An error names the output's place in -o, not the staging folder.
            let staged = write_output(p, opts, tools, staging.path()).map_err(|mut e| {
                let from = staging.path().display().to_string();
                if let Some(rest) = e.file.strip_prefix(&from) {
                    e.file = format!("{}{rest}", opts.out_dir.display());
                }
                e
            })?;
            let Some((out, beside)) = staged else {
                continue;
            };
            if let Some(first) = from.insert(out.clone(), p.conv.path.clone()) {
                return Err(Error::new(
                    ErrorKind::Input,
                    p.conv.path.clone(),
                    format!(
                        "its output {} would have the name of {first}'s; convert them into different -o folders",
                        opts.out_dir.join(out.file_name().expect("name")).display()
                    ),
                ));
            }
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
        // A support library already in -o (the shim of an earlier conversion) is kept only
        // when it is the same: another target's would stop that output from loading.
        for o in &outs {
            let name = o.file_name().expect("name");
            let dest = opts.out_dir.join(name);
            if from.contains_key(o) || !dest.exists() {
                continue;
            }
            let mine = std::fs::read(o).map_err(|e| Error::io(o.display().to_string(), e))?;
            let theirs =
                std::fs::read(&dest).map_err(|e| Error::io(dest.display().to_string(), e))?;
            if mine != theirs {
                return Err(Error::new(
                    ErrorKind::Input,
                    dest.display().to_string(),
                    format!(
                        "is already there and differs from the {} {} this conversion needs (an earlier conversion's, perhaps for another target, whose outputs load it); convert into another -o folder",
                        opts.profile.name,
                        name.to_string_lossy()
                    ),
                ));
            }
        }
        Ok((staging, outs))
    })();
    match result {
        Ok((staging, outs)) => {
            for o in &outs {
                let dest = opts.out_dir.join(o.file_name().expect("name"));
                std::fs::rename(o, &dest)
                    .map_err(|e| ("writing failed", Error::io(dest.display().to_string(), e)))?;
            }
            drop(staging);
            Ok(outs.len())
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
            for p in prepared.iter_mut() {
                if p.conv.error.is_none()
                    && (e.file == p.conv.path || e.file.starts_with(&format!("{}!", p.conv.path)))
                {
                    p.conv.error = Some((&e).into());
                }
                p.conv.output = None;
            }
            Err((kind, e))
        }
    }
}

/// Stages 5-6 for one input: compress its rewritten objects and write the output into
/// `staging`, with the shim library when an object needs it.
fn write_output(
    p: &mut Prepared,
    opts: &Options,
    tools: &[(String, String)],
    staging: &Path,
) -> Result<Option<(PathBuf, Vec<PathBuf>)>> {
    let mut shim = Vec::new();
    if p.work
        .iter()
        .any(|w| w.needs_shim && w.conv.outcome == ObjectOutcome::Written)
    {
        let table = opts
            .relink
            .as_ref()
            .expect("only relinked objects need the shim");
        shim.push(crate::shim::shim_for_table(table)?);
    }
    // The cuda twin's identity interposers, one per identity.
    let ids: std::collections::BTreeSet<_> = p
        .work
        .iter()
        .filter(|w| w.conv.outcome == ObjectOutcome::Written)
        .filter_map(|w| w.interposer)
        .collect();
    for id in ids {
        shim.push(crate::twin::identity::interposer(&id)?);
    }
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
            if w.conv.outcome != ObjectOutcome::Written {
                // Not loadable on the target (`--allow-partial`): nothing is written for it.
                return Ok(None);
            }
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
            for (soname, bytes) in &shim {
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
            Ok(Some((dest, beside)))
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
            let (dist, source_version) = p
                .path
                .file_name()
                .and_then(|n| n.to_str())
                .and_then(|n| crate::wheel::repack::WheelName::parse(n).ok())
                .map(|w| (w.name, w.version))
                .unwrap_or_default();
            // The SBOM (PEP 770): what was rewritten, added and applied, by SHA-256.
            let hex = |b64: &str| -> String {
                let d = b64.strip_prefix("sha256=").unwrap_or(b64);
                base64::Engine::decode(&base64::engine::general_purpose::URL_SAFE_NO_PAD, d)
                    .map(|v| v.iter().map(|b| format!("{b:02x}")).collect())
                    .unwrap_or_default()
            };
            let mut files: Vec<(String, String, String)> = pre
                .iter()
                .map(|(name, c)| {
                    (
                        name.clone(),
                        hex(&c.record_hash),
                        format!(
                            "shared object rewritten by wheelport for target {}",
                            opts.profile.name
                        ),
                    )
                })
                .collect();
            for (soname, bytes) in &shim {
                let digest: String = Sha256::digest(bytes)
                    .iter()
                    .map(|b| format!("{b:02x}"))
                    .collect();
                files.push((
                    format!("{}/{soname}", crate::shim::libs_dir(&dist)),
                    digest,
                    "library added by wheelport (host-side shim)".into(),
                ));
            }
            // The tables the host rewrite of the rewritten objects applied.
            let tables = if !pre.is_empty() {
                opts.relink
                    .as_ref()
                    .map(|t| {
                        t.sources()
                            .iter()
                            .map(|s| (s.file.clone(), s.sha256.clone()))
                            .collect()
                    })
                    .unwrap_or_default()
            } else {
                Vec::new()
            };
            let sbom = crate::report::sbom::cyclonedx(&crate::report::sbom::SbomInput {
                name: dist.clone(),
                version: crate::wheel::repack::with_local_label(&source_version, &opts.label()),
                source_version,
                source_wheel: provenance.source_wheel.clone(),
                source_sha256: provenance.source_sha256.clone(),
                target: opts.profile.name.clone(),
                archs: opts.archs(),
                tools: tools.to_vec(),
                files,
                tables,
            });
            let plan = crate::wheel::repack::RepackPlan {
                local_label: opts.label(),
                replace: HashMap::new(),
                dist_info_extra: vec![
                    (PROVENANCE_FILE.to_string(), prov),
                    (format!("sboms/{}", crate::report::sbom::SBOM_FILE), sbom),
                ],
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
                leave_out: p
                    .work
                    .iter()
                    .filter(|w| w.conv.outcome != ObjectOutcome::Written)
                    .map(|w| w.name.clone())
                    .collect(),
            };
            let pb = bar(opts, 1, "writing");
            pb.set_message(p.path.display().to_string());
            let r = match &p.reader {
                Some(reader) => {
                    crate::wheel::repack::repack_reader(reader, &p.path, staging, &plan)?
                }
                None => crate::wheel::repack::repack_with(&p.path, staging, &plan)?,
            };
            pb.finish_and_clear();
            p.conv.dropped_requirements = r.dropped_requirements;
            p.conv.new_version = Some(r.version);
            Ok(Some((r.path, Vec::new())))
        }
    }
}
