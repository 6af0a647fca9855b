//! The terminal table of a [`ConvertReport`]: per input and shared object, the kernels
//! translated and the kernels not translated grouped by reason (with their names), the host
//! rewrite, and the outcome.

use super::*;
use std::collections::BTreeMap;
use std::fmt::Write;

/// How many kernel names are printed under one reason before "... and N more".
pub const NAMES_PER_REASON: usize = 8;

fn clip(s: &str, width: usize) -> String {
    if s.chars().count() <= width {
        s.to_string()
    } else {
        let mut t: String = s.chars().take(width.saturating_sub(3)).collect();
        t.push_str("...");
        t
    }
}

/// Render the report. With `all_kernels`, every kernel not translated is named (otherwise
/// at most [`NAMES_PER_REASON`] per reason).
pub fn render(r: &ConvertReport, all_kernels: bool) -> String {
    let mut o = String::new();
    let _ = writeln!(
        o,
        "target {} ({}), device build: {}",
        r.target,
        r.offload_archs.join(","),
        r.device_build.description
    );
    for input in &r.inputs {
        let _ = write!(o, "{}", input.path);
        if let (Some(v), Some(n)) = (&input.version, &input.new_version) {
            let _ = write!(o, "  ({v} -> {n})");
        }
        let _ = writeln!(o);
        if let Some(e) = &input.error {
            match e.offset {
                Some(off) => {
                    let _ = writeln!(o, "  error: {}: at offset {off:#x}: {}", e.file, e.message);
                }
                None => {
                    let _ = writeln!(o, "  error: {}: {}", e.file, e.message);
                }
            }
            continue;
        }
        for so in &input.shared_objects {
            render_so(&mut o, so, all_kernels);
        }
        if !input.dropped_requirements.is_empty() {
            let _ = writeln!(
                o,
                "  Requires-Dist dropped: {}",
                input.dropped_requirements.join(", ")
            );
        }
        if let Some(out) = &input.output {
            let _ = writeln!(o, "  wrote {out}");
        }
    }
    let t = &r.totals;
    let _ = writeln!(
        o,
        "total: {} kernels, {} translated{}, {} not translated; {} unresolved imports; {}{} files written",
        t.kernels,
        t.translated,
        translated_detail(t),
        t.not_translated,
        t.unresolved_imports,
        if t.objects_not_loadable > 0 {
            format!("{} objects not loadable; ", t.objects_not_loadable)
        } else {
            String::new()
        },
        t.outputs_written
    );
    let _ = writeln!(o, "{} (exit {})", r.message, r.exit_code);
    o
}

/// " (N lifted from SASS; M arch-guard stubs ...)" when some translated kernels were lifted
/// from SASS or are stubs.
fn translated_detail(t: &Totals) -> String {
    let mut parts = Vec::new();
    match t.lifted {
        0 => {}
        n if n == t.translated => parts.push("all lifted from SASS".to_string()),
        n => parts.push(format!("{n} lifted from SASS")),
    }
    match t.stubs {
        0 => {}
        1 => parts.push("one of them an arch-guard stub, translated as is".into()),
        n => parts.push(format!("{n} arch-guard stubs, translated as is")),
    }
    if parts.is_empty() {
        String::new()
    } else {
        format!(" ({})", parts.join("; "))
    }
}

fn render_so(o: &mut String, so: &SharedObjectConversion, all: bool) {
    let t = &so.totals;
    let _ = writeln!(
        o,
        "  {}: {} kernels: {} translated{}, {} not translated{}",
        so.path,
        t.kernels,
        t.translated,
        translated_detail(t),
        t.not_translated,
        match so.outcome {
            ObjectOutcome::Dropped => " (dropped)",
            ObjectOutcome::NotLoadable => " (would not load on the target)",
            ObjectOutcome::Written if so.rewritten => "",
            ObjectOutcome::Written => " (not rewritten)",
        }
    );
    for p in &so.problems {
        let _ = writeln!(o, "    problem: {p}");
    }
    for m in &so.runtime_modules {
        let _ = writeln!(
            o,
            "    runtime-loaded module: {}: not translated; the library hands it to the driver at run time",
            m.describe()
        );
    }
    if let Some(h) = &so.host {
        let mut parts = Vec::new();
        if !h.needed.is_empty() {
            parts.push(
                h.needed
                    .iter()
                    .map(|(a, b)| {
                        if a.is_empty() {
                            format!("+{b}")
                        } else {
                            format!("{a} -> {b}")
                        }
                    })
                    .collect::<Vec<_>>()
                    .join(", "),
            );
        }
        parts.push(format!(
            "{} imports renamed, {} to the shim library, {} unresolved",
            h.renamed,
            h.shimmed.len(),
            h.unresolved.len() + h.unresolved_needed.len()
        ));
        if !h.rebound.is_empty() {
            parts.push(format!(
                "{} entry points of its static CUDA runtime rebound",
                h.rebound.len()
            ));
        }
        parts.push(format!(
            "{} of {} wrappers re-pointed",
            h.wrappers_repointed, h.wrappers
        ));
        let _ = writeln!(o, "    host: {}", parts.join("; "));
        let shown = if all {
            h.unresolved.len()
        } else {
            NAMES_PER_REASON
        };
        for u in h.unresolved.iter().take(shown) {
            let _ = writeln!(o, "      unresolved import {}: {}", u.import, u.reason);
        }
        if h.unresolved.len() > shown {
            let _ = writeln!(
                o,
                "      ... and {} more unresolved imports (all of them: --json REPORT)",
                h.unresolved.len() - shown
            );
        }
        for n in &h.unresolved_needed {
            let _ = writeln!(o, "      unresolved DT_NEEDED {n}: no target soname");
        }
        for n in &h.notes {
            let _ = writeln!(o, "      note: {n}");
        }
    }
    // Per-kernel lifting notes only with --all-kernels (the object line counts them).
    for k in so
        .kernels
        .iter()
        .filter(|k| k.translated && (all || k.found != KernelStatus::SassOnly))
    {
        if let Some(n) = &k.note {
            let name: String = k.demangled.chars().take(100).collect();
            let _ = writeln!(o, "    note: {name}: {n}");
        }
    }
    let mut by_reason: BTreeMap<&str, Vec<&KernelConversion>> = BTreeMap::new();
    for k in so.kernels.iter().filter(|k| !k.translated) {
        by_reason
            .entry(k.reason.as_deref().unwrap_or("(no reason given)"))
            .or_default()
            .push(k);
    }
    if by_reason.is_empty() {
        return;
    }
    let _ = writeln!(o, "    {:>6}  not translated, because", "count");
    for (reason, ks) in &by_reason {
        let _ = writeln!(o, "    {:>6}  {reason}", ks.len());
        let show = if all { ks.len() } else { NAMES_PER_REASON };
        for k in ks.iter().take(show) {
            let _ = writeln!(o, "            {}", clip(&k.demangled, 110));
        }
        if ks.len() > show {
            let _ = writeln!(
                o,
                "            ... and {} more (all of them: --json REPORT)",
                ks.len() - show
            );
        }
    }
}
