//! Stage 4, outputs: which objects of an input the output holds, by the load check
//! ([`crate::verify::load_problems`]).
//!
//! * A vendored copy of a CUDA library (`<dist>.libs/libcudart.3eda8113.so.13`) whose
//!   library the target replaces (a soname row renames it) is dropped: the re-targeted
//!   objects need the target's library instead.
//! * A vendored copy with no counterpart on the target (`libnvjpeg` on DTK) is not loadable,
//!   and neither is anything that needs it.
//! * Every other object, as it will be written (rewritten or unchanged), is checked the way
//!   the dynamic loader resolves it; what fails is not loadable, with its problems.

use super::{Options, Work};
use crate::report::ObjectOutcome;

fn file_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// Give every object of one input its [`ObjectOutcome`] and problems, and count the objects
/// that are not loadable in their totals.
pub(super) fn settle(work: &mut [Work], opts: &Options) {
    let profile = opts.profile;
    // Vendored CUDA libraries first: they decide what the output ships.
    for w in work.iter_mut() {
        let Some(lib) = w.vendored.clone() else {
            continue;
        };
        let replacement = opts
            .relink
            .as_ref()
            .and_then(|t| t.soname(&lib))
            .filter(|r| r.kind == crate::relink::Kind::Rename)
            .and_then(|r| r.target_soname.clone());
        match replacement {
            Some(t) => {
                w.conv.outcome = ObjectOutcome::Dropped;
                w.conv.problems = vec![format!(
                    "a vendored copy of {lib}; the target's {t} replaces it, so it is left out"
                )];
            }
            None => {
                w.conv.outcome = ObjectOutcome::NotLoadable;
                w.conv.problems = vec![format!(
                    "a vendored copy of {lib}, a CUDA library with no counterpart on {}",
                    profile.name
                )];
            }
        }
    }
    let mut shipped = crate::verify::Shipped::default();
    for w in work
        .iter()
        .filter(|w| w.conv.outcome == ObjectOutcome::Written)
    {
        shipped.names.push(file_name(&w.name).to_string());
        if let Some(s) = &w.soname {
            shipped.names.push(s.clone());
        }
    }
    if work.iter().any(|w| w.needs_shim) {
        shipped.names.push(crate::shim::SHIM_SONAME.to_string());
    }
    shipped
        .names
        .extend(work.iter().filter_map(|w| w.interposer.map(|i| i.soname())));
    for w in work.iter_mut() {
        if w.conv.outcome == ObjectOutcome::Written && !w.cubin {
            let data: &[u8] = w.new_bytes.as_deref().unwrap_or(&w.map[..]);
            let host = w
                .conv
                .host
                .as_ref()
                .map(|h| crate::verify::HostFacts {
                    rebound: &h.rebound,
                    unresolved: &h.unresolved,
                })
                .unwrap_or_default();
            let problems =
                crate::verify::load_problems(data, &w.name, profile, &w.runtime, host, &shipped);
            if !problems.is_empty() {
                w.conv.outcome = ObjectOutcome::NotLoadable;
                w.conv.problems = problems;
            }
        }
        if w.conv.outcome == ObjectOutcome::NotLoadable {
            w.conv.totals.objects_not_loadable += 1;
        }
    }
}
