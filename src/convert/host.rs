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
    device: &BTreeMap<u64, Vec<u8>>,
) -> Result<HostResult> {
    match &opts.relink {
        Some(table) => {
            // In a wheel the shim ships in `<dist>.libs/`; beside a bare `.so` (`$ORIGIN`).
            let shim = Some(crate::rewrite::host::ShimPlacement {
                so_path: dist.map_or_else(|| so_file_name(name), |_| name.to_string()),
                libs_dir: dist.map(crate::shim::libs_dir).unwrap_or_default(),
            });
            let hr =
                crate::rewrite::host::rewrite_host(a, opts.profile, table, device, shim.as_ref())?;
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
            })
        }
        None => {
            // The cuda twin keeps its imports; only wrappers with new device code change.
            let magic = opts.profile.backend().wrapper_magic();
            let edits = HostEdits {
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
            let bytes = if edits.registrations.is_empty() {
                None
            } else {
                Some(crate::rewrite::rewrite(a.data, &edits, &a.file)?.0)
            };
            Ok(HostResult {
                bytes,
                report: None,
                needs_shim: false,
                unresolved: 0,
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
