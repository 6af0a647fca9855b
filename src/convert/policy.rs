//! Stage 4, policy: the run's status from its counts and the policy, before anything is
//! written.

use crate::report::{Policy, Status, Totals};

/// The status of a run with `totals`, whether an input failed, and `policy`, with the one
/// line that explains it. `target` is the profile name, for the message.
pub fn decide(
    totals: &Totals,
    input_errors: bool,
    policy: Policy,
    target: &str,
) -> (Status, String) {
    if input_errors {
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
    } else if totals.not_translated > 0 && policy != Policy::AllowPartial {
        (
            Status::RefusedUntranslated,
            format!(
                "{} of {} kernels cannot be translated; nothing was written (--allow-partial writes the wheel anyway)",
                totals.not_translated, totals.kernels
            ),
        )
    } else if totals.not_translated > 0 {
        (
            Status::Partial,
            format!(
                "--allow-partial: written with {} of {} kernels not translated",
                totals.not_translated, totals.kernels
            ),
        )
    } else {
        (
            Status::Converted,
            format!("converted: all {} kernels translated", totals.kernels),
        )
    }
}
