//! Stage 5, policy: the run's status from its counts and the policy, before anything is
//! written.

use crate::report::{Policy, Status, Totals};

/// What is wrong with a run's outputs, in words: kernels not translated, objects that would
/// not load.
fn shortfall(t: &Totals, target: &str) -> String {
    let mut parts = Vec::new();
    if t.not_translated > 0 {
        parts.push(format!(
            "{} of {} kernels cannot be translated",
            t.not_translated, t.kernels
        ));
    }
    if t.objects_not_loadable > 0 {
        parts.push(format!(
            "{} shared objects would not load on {target}",
            t.objects_not_loadable
        ));
    }
    parts.join(" and ")
}

/// The caveat a run with kernels lifted from SASS carries in its line: the lifter is checked
/// form by form and on real libraries' own tests (`docs/verification.md`, 1c), not on the
/// code of the library at hand, so such a kernel is translated but not verified.
fn lift_note(t: &Totals) -> String {
    match t.lifted {
        0 => String::new(),
        n => format!(
            " ({n} lifted from SASS: not verified on this library's code, see docs/verification.md)"
        ),
    }
}

/// The status of a run with `totals`, whether an input failed (and whether every failure was
/// the environment's: an I/O error, no malformed input), and `policy`, with the one line that
/// explains it. `target` is the profile name, for the message.
pub fn decide(
    totals: &Totals,
    input_errors: bool,
    environment_only: bool,
    policy: Policy,
    target: &str,
) -> (Status, String) {
    let incomplete = totals.not_translated > 0 || totals.objects_not_loadable > 0;
    if input_errors && environment_only {
        (
            Status::EnvironmentError,
            "a file or folder the run needs could not be used (see the error); nothing was written"
                .to_string(),
        )
    } else if input_errors {
        (
            Status::InputError,
            "an input could not be converted (see its error); nothing was written".to_string(),
        )
    } else if policy == Policy::Strict && totals.unresolved_imports > 0 {
        (
            Status::RefusedUnresolvedImports,
            format!(
                "--strict: {} imports have no mapping on {target}; nothing was written",
                totals.unresolved_imports
            ),
        )
    } else if incomplete && policy != Policy::AllowPartial {
        (
            Status::RefusedUntranslated,
            format!(
                "{}; nothing was written (--allow-partial writes the wheel anyway)",
                shortfall(totals, target)
            ),
        )
    } else if incomplete {
        (
            Status::Partial,
            format!(
                "--allow-partial: written with {}{}{}",
                shortfall(totals, target).replace(" cannot be translated", " not translated"),
                if totals.objects_not_loadable > 0 {
                    " (those objects are left out)"
                } else {
                    ""
                },
                lift_note(totals)
            ),
        )
    } else {
        (
            Status::Converted,
            format!(
                "converted: all {} kernels translated{}",
                totals.kernels,
                lift_note(totals)
            ),
        )
    }
}
