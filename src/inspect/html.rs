//! `wheelport inspect --html REPORT.html`: the inspect [`Report`] as one self-contained HTML
//! page (inline CSS, no scripts, no outside resources) for a person deciding whether a wheel
//! can be converted.
//!
//! Every string that comes from the input (member names, symbol names, PTX diagnostics,
//! METADATA) goes through [`escape`] (HTML Living Standard §13.1.2.6: `&`, `<`, `>`, `"`,
//! `'` as character references), so a hostile wheel cannot inject markup.

use super::model::*;
use std::fmt::Write;

/// Escape text for HTML element content and double- or single-quoted attribute values.
pub fn escape(s: &str) -> String {
    let mut o = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&#39;"),
            c => o.push(c),
        }
    }
    o
}

const STYLE: &str = "body{font-family:system-ui,sans-serif;margin:2em;color:#222}\
h1{font-size:1.4em}h2{font-size:1.2em;border-bottom:1px solid #ccc}h3{font-size:1.05em}\
table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ddd;padding:2px 6px;\
text-align:left;vertical-align:top;font-size:.9em}th{background:#f4f4f4}\
code{font-family:ui-monospace,monospace;font-size:.85em;word-break:break-all}\
.ptx{color:#075e07}.sass_only,.invalid_ptx,.arch_guard_stub{color:#a30000}\
.summary{background:#f8f8f8;padding:.5em 1em;border-left:4px solid #888}";

fn status_word(s: KernelStatus) -> &'static str {
    match s {
        KernelStatus::Ptx => "ptx",
        KernelStatus::SassOnly => "sass_only",
        KernelStatus::ArchGuardStub => "arch_guard_stub",
        KernelStatus::InvalidPtx => "invalid_ptx",
    }
}

fn verdict_line(v: &Verdict) -> String {
    format!(
        "{} kernels with PTX (translatable in principle), {} SASS-only, {} arch-guard stubs, {} with invalid PTX",
        v.kernels_with_ptx, v.kernels_sass_only, v.kernels_arch_guard_stub, v.kernels_invalid_ptx
    )
}

/// Render the whole report as an HTML document.
pub fn render(report: &Report) -> String {
    let mut o = String::new();
    let _ = write!(
        o,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <title>wheelport compatibility report</title><style>{STYLE}</style></head><body>\n\
         <h1>wheelport compatibility report</h1>\n<p>wheelport {} &middot; {} input(s)</p>\n\
         <p class=\"summary\">{}</p>\n",
        escape(&report.tool_version),
        report.inputs.len(),
        escape(&verdict_line(&report.verdict))
    );
    for input in &report.inputs {
        render_input(&mut o, input);
    }
    o.push_str("</body></html>\n");
    o
}

fn render_input(o: &mut String, input: &InputReport) {
    let _ = writeln!(
        o,
        "<h2><code>{}</code></h2>\n<p>{} bytes</p>",
        escape(&input.path),
        input.size
    );
    if let Some(w) = &input.wheel {
        let _ = writeln!(
            o,
            "<table><tr><th>name</th><td>{}</td></tr><tr><th>version</th><td>{}</td></tr>\
             <tr><th>tags</th><td>{}</td></tr><tr><th>Requires-Dist</th><td>{}</td></tr></table>",
            escape(w.name.as_deref().unwrap_or("?")),
            escape(w.version.as_deref().unwrap_or("?")),
            escape(&w.tags.join(" ")),
            escape(&w.requires_dist.join(", "))
        );
    }
    for e in &input.errors {
        render_error(o, e);
    }
    let _ = writeln!(
        o,
        "<p class=\"summary\">{}</p>",
        escape(&verdict_line(&input.verdict))
    );
    for so in &input.shared_objects {
        render_so(o, so);
    }
}

fn render_error(o: &mut String, e: &ErrorReport) {
    let at = e
        .offset
        .map(|x| format!(" at offset {x:#x}"))
        .unwrap_or_default();
    let _ = writeln!(
        o,
        "<p class=\"sass_only\">error: <code>{}</code>{}: {}</p>",
        escape(&e.file),
        escape(&at),
        escape(&e.message)
    );
}

fn render_so(o: &mut String, so: &SharedObjectReport) {
    let _ = writeln!(
        o,
        "<h3><code>{}</code> ({} bytes)</h3>",
        escape(&so.path),
        so.size
    );
    for e in &so.errors {
        render_error(o, e);
    }
    let _ = writeln!(
        o,
        "<p>DT_NEEDED: <code>{}</code></p>",
        escape(&so.needed.join(" "))
    );
    if !so.cuda_imports.is_empty() {
        o.push_str(
            "<table><tr><th>CUDA-stack library</th><th>attributed by</th><th>imports</th></tr>\n",
        );
        for g in &so.cuda_imports {
            let _ = writeln!(
                o,
                "<tr><td><code>{}</code></td><td>{}</td><td><code>{}</code></td></tr>",
                escape(&g.library),
                escape(&g.attributed_by),
                escape(&g.symbols.join(" "))
            );
        }
        o.push_str("</table>\n");
    }
    if let Some(r) = &so.relink {
        let _ = writeln!(
            o,
            "<p>Host relink for <b>{}</b>: {}; {} imports renamed, {} to the shim library, {} unresolved.</p>",
            escape(&r.target),
            escape(
                &r.needed
                    .iter()
                    .map(|(a, b)| format!("{a} → {b}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            r.renamed,
            r.shimmed.len(),
            r.unresolved.len()
        );
        if !r.unresolved.is_empty() {
            o.push_str("<table><tr><th>unresolved import</th><th>reason</th></tr>\n");
            for u in &r.unresolved {
                let _ = writeln!(
                    o,
                    "<tr><td><code>{}</code></td><td>{}</td></tr>",
                    escape(&u.import),
                    escape(&u.reason)
                );
            }
            o.push_str("</table>\n");
        }
    }
    if let Some(fb) = &so.fatbin {
        let _ = writeln!(
            o,
            "<p>fatbin: {} containers, {} entries, {} wrappers</p>\n<table><tr><th>section</th><th>kind</th><th>arch</th><th>compression</th><th>count</th><th>stored bytes</th></tr>",
            fb.container_count,
            fb.entry_count,
            fb.wrappers.len()
        );
        for g in &fb.summary {
            let _ = writeln!(
                o,
                "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                escape(&g.section),
                escape(&g.kind),
                escape(&g.arch),
                escape(&g.compression),
                g.count,
                g.stored_bytes
            );
        }
        o.push_str("</table>\n");
    }
    let _ = writeln!(
        o,
        "<p class=\"summary\">{}</p>",
        escape(&verdict_line(&so.verdict))
    );
    if let Some(ks) = &so.kernels {
        o.push_str("<table><tr><th>status</th><th>kernel</th><th>PTX</th><th>SASS</th><th>why not translatable</th></tr>\n");
        for k in ks {
            let why = match (&k.reason, &k.unsupported_forms) {
                (Some(r), _) => r.clone(),
                (None, Some(f)) if !f.is_empty() => format!(
                    "unsupported PTX forms: {}",
                    f.iter()
                        .map(|x| format!("{} ×{} (line {})", x.form, x.count, x.first_line))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
                _ => String::new(),
            };
            let st = status_word(k.status);
            let _ = writeln!(
                o,
                "<tr><td class=\"{st}\">{st}</td><td><code title=\"{}\">{}</code></td><td>{}</td><td>{}</td><td>{}</td></tr>",
                escape(&k.name),
                escape(&k.demangled),
                escape(&k.ptx_archs.join(" ")),
                escape(&k.sass_archs.join(" ")),
                escape(&why)
            );
        }
        o.push_str("</table>\n");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup() {
        assert_eq!(
            escape(r#"<script>alert('x')</script>&"#),
            "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;"
        );
        let mut r = Report::default();
        r.inputs.push(InputReport {
            path: "<img src=x onerror=alert(1)>.whl".into(),
            kind: InputKind::Wheel,
            size: 1,
            wheel: None,
            shared_objects: Vec::new(),
            errors: Vec::new(),
            verdict: Verdict::default(),
        });
        let h = render(&r);
        assert!(!h.contains("<img"), "{h}");
        assert!(h.contains("&lt;img src=x onerror=alert(1)&gt;.whl"));
    }
}
