//! Stage 3, host: the host ELF rewrite of one analysed object (relink plan, registrations,
//! shim library, RUNPATH), or for the `cuda` twin target only the registrations.

use super::Options;
use crate::analyze::ObjectAnalysis;
use crate::error::Result;
use crate::report::HostConversion;
use crate::rewrite::{HostEdits, Registration};
use std::collections::BTreeMap;

/// The host stage's result for one object.
pub struct HostResult {
    /// The rewritten object, when something changed.
    pub bytes: Option<Vec<u8>>,
    /// The report's view (absent for the `cuda` twin target).
    pub report: Option<HostConversion>,
    /// Whether the object now needs the shim library.
    pub needs_shim: bool,
    /// Imports and DT_NEEDED entries with no mapping on the target.
    pub unresolved: usize,
    /// The `cuda` twin's identity interposer the object now loads
    /// ([`crate::twin::identity`]), to ship with it.
    pub interposer: Option<crate::twin::identity::Identity>,
}

/// Rewrite the host side of `a` (member `name` of the wheel of distribution `dist`, when it
/// is a wheel member) with `device` (container per registered wrapper address).
///
/// # Errors
/// As [`crate::rewrite::host::rewrite_host`] and [`crate::rewrite::rewrite`]: a layout
/// that cannot be made is refused, naming the object.
pub fn rewrite(
    a: &ObjectAnalysis<'_>,
    opts: &Options,
    dist: Option<&str>,
    name: &str,
    device: &super::kernels::DeviceCode,
) -> Result<HostResult> {
    let (sources, device) = (&device.sources, &device.registrations);
    match &opts.relink {
        Some(table) => {
            // In a wheel the shim ships in `<dist>.libs/`; beside a bare `.so` (`$ORIGIN`).
            let shim = Some(crate::rewrite::host::ShimPlacement {
                so_path: dist.map_or_else(|| so_file_name(name), |_| name.to_string()),
                libs_dir: dist.map(crate::shim::libs_dir).unwrap_or_default(),
            });
            let srcs: Vec<&str> = sources.iter().map(String::as_str).collect();
            let identity = crate::twin::identity::source_cc(&srcs);
            let hr = crate::rewrite::host::rewrite_host(
                a,
                opts.profile,
                table,
                device,
                shim.as_ref(),
                identity,
            )?;
            let r = &hr.report;
            let changed = !(r.needed_changed.is_empty()
                && r.needed_added.is_empty()
                && r.renamed.is_empty()
                && r.registered.is_empty()
                && r.runpath.is_none());
            Ok(HostResult {
                needs_shim: r.needed_added.iter().any(|n| n == crate::shim::SHIM_SONAME),
                unresolved: r.unresolved.len() + r.unresolved_needed.len(),
                report: Some(host_conversion(r, a.elf.wrappers.len())),
                bytes: changed.then_some(hr.bytes),
                interposer: None,
            })
        }
        None => {
            // The cuda twin keeps its imports; only wrappers with new device code change.
            let magic = opts.profile.backend().wrapper_magic();
            let mut edits = HostEdits {
                registrations: device
                    .iter()
                    .map(|(a, b)| Registration {
                        wrapper_address: *a,
                        magic,
                        bundle: b.clone(),
                    })
                    .collect(),
                ..Default::default()
            };
            if edits.registrations.is_empty() {
                return Ok(HostResult {
                    bytes: None,
                    report: None,
                    needs_shim: false,
                    unresolved: 0,
                    interposer: None,
                });
            }
            // The host code is answered the identity of the code that was translated: the
            // interposer ships in `<dist>.libs/` (wheels) or beside the object.
            let twin_arch = opts.archs().into_iter().next().unwrap_or_default();
            let srcs: Vec<&str> = sources.iter().map(String::as_str).collect();
            let id = crate::twin::identity::Identity::of(&srcs, &twin_arch);
            let mut data = a.data.to_vec();
            let mut interposer = None;
            if let Some(id) = id {
                let entry = match dist {
                    Some(d) => crate::shim::origin_runpath(name, &crate::shim::libs_dir(d)),
                    None => "$ORIGIN".to_string(),
                };
                let e = crate::twin::identity::apply(&mut data, &a.elf, &id, &entry, &mut edits);
                interposer = (!e.is_empty()).then_some(id);
            }
            Ok(HostResult {
                bytes: Some(crate::rewrite::rewrite(&data, &edits, &a.file)?.0),
                report: None,
                needs_shim: false,
                unresolved: 0,
                interposer,
            })
        }
    }
}

/// The file name of a bare `.so` input's path.
fn so_file_name(path: &str) -> String {
    std::path::Path::new(path)
        .file_name()
        .map_or_else(|| path.to_string(), |n| n.to_string_lossy().into_owned())
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
    if let Some(id) = r.identity {
        notes.push(format!(
            "identity: host code is answered compute capability {}.{} (the translated code's)",
            id / 10,
            id % 10
        ));
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
        rebound: r.rebound.clone(),
        wrappers,
        wrappers_repointed: r.registered.len(),
        moved_sections: r.summary.moved.clone(),
        notes,
    }
}
