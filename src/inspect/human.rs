//! Rendering an inspect [`super::model::Report`] for a person.

use super::model::*;
use std::fmt::Write;

fn mb(n: u64) -> String {
    if n >= 1 << 20 {
        format!("{:.1} MB", n as f64 / (1 << 20) as f64)
    } else if n >= 1 << 10 {
        format!("{:.1} KB", n as f64 / (1 << 10) as f64)
    } else {
        format!("{n} B")
    }
}

/// Render the whole report as text. With `kernels`, each kernel is listed.
pub fn render(report: &Report, kernels: bool) -> String {
    let mut o = String::new();
    for input in &report.inputs {
        render_input(&mut o, input, kernels);
    }
    if report.inputs.len() > 1 {
        let v = &report.verdict;
        let _ = writeln!(
            o,
            "total: {} kernels with PTX, {} SASS-only ({} inputs)",
            v.kernels_with_ptx,
            v.kernels_sass_only,
            report.inputs.len()
        );
    }
    o
}

fn render_input(o: &mut String, input: &InputReport, kernels: bool) {
    let _ = write!(o, "{}  ({}", input.path, mb(input.size));
    if let Some(w) = &input.wheel {
        let _ = write!(
            o,
            ", wheel {} {}",
            w.name.as_deref().unwrap_or("?"),
            w.version.as_deref().unwrap_or("?")
        );
        if !w.tags.is_empty() {
            let _ = write!(o, ", tags {}", w.tags.join(" "));
        }
    }
    let _ = writeln!(o, ")");
    if let Some(w) = &input.wheel {
        let cuda_reqs: Vec<&String> = w
            .requires_dist
            .iter()
            .filter(|r| r.starts_with("nvidia-") || r.contains("cuda") || r.starts_with("torch"))
            .collect();
        if !cuda_reqs.is_empty() {
            let _ = writeln!(
                o,
                "  requires: {}",
                cuda_reqs
                    .iter()
                    .map(|s| s.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
    }
    for e in &input.errors {
        let _ = writeln!(o, "  error: {}", fmt_err(e));
    }
    if input.kind == InputKind::Wheel && input.shared_objects.is_empty() && input.errors.is_empty()
    {
        let _ = writeln!(o, "  no shared objects");
    }
    for so in &input.shared_objects {
        render_so(o, so, kernels);
    }
    let v = &input.verdict;
    let _ = write!(
        o,
        "  verdict: {} kernels with PTX, {} SASS-only",
        v.kernels_with_ptx, v.kernels_sass_only
    );
    if v.kernels_arch_guard_stub > 0 {
        let _ = write!(
            o,
            ", {} arch-guard stubs (real code SASS-only; convert keeps the stub)",
            v.kernels_arch_guard_stub
        );
    }
    if v.kernels_invalid_ptx > 0 {
        let _ = write!(
            o,
            ", {} with PTX that does not parse (not translatable)",
            v.kernels_invalid_ptx
        );
    }
    o.push('\n');
    o.push('\n');
}

fn fmt_err(e: &ErrorReport) -> String {
    match e.offset {
        Some(off) => format!("{}: at offset {:#x}: {}", e.file, off, e.message),
        None => format!("{}: {}", e.file, e.message),
    }
}

fn render_so(o: &mut String, so: &SharedObjectReport, kernels: bool) {
    let _ = writeln!(o, "  {}  ({})", so.path, mb(so.size));
    if let Some(s) = &so.soname {
        let _ = writeln!(o, "    soname:  {s}");
    }
    if !so.needed.is_empty() {
        let _ = writeln!(o, "    needed:  {}", so.needed.join(" "));
    }
    if let Some(r) = &so.runpath {
        let _ = writeln!(o, "    runpath: {r}");
    }
    if let Some(r) = &so.rpath {
        let _ = writeln!(o, "    rpath:   {r}");
    }
    if let Some(s) = crate::analyze::runtime::vendored_cuda_library(&so.path) {
        let _ = writeln!(o, "    vendored CUDA library: {s}");
    }
    match &so.cuda_runtime {
        Some(crate::analyze::runtime::CudaRuntime::Static { evidence }) => {
            let _ = writeln!(o, "    CUDA runtime: static ({evidence})");
        }
        Some(crate::analyze::runtime::CudaRuntime::Dynamic {
            needed,
            soname,
            vendored: true,
        }) => {
            let _ = writeln!(o, "    CUDA runtime: {soname}, vendored as {needed}");
        }
        _ => {}
    }
    if !so.cuda_imports.is_empty() {
        let total: usize = so.cuda_imports.iter().map(|g| g.symbols.len()).sum();
        let _ = writeln!(o, "    CUDA-stack imports: {total} of {}", so.import_count);
        for g in &so.cuda_imports {
            let how = match g.attributed_by.as_str() {
                "version" => "",
                "rule" => " (unversioned, by name rule)",
                _ => " (unversioned, library unknown)",
            };
            let _ = writeln!(o, "      {} ({}){how}:", g.library, g.symbols.len());
            let mut line = String::from("       ");
            for s in &g.symbols {
                let shown = crate::cubin::demangle(s.split('@').next().unwrap_or(s));
                let shown = if shown.len() > 60 {
                    format!("{}...", &shown[..shown.floor_char_boundary(57)])
                } else {
                    shown
                };
                if line.len() + shown.len() + 1 > 100 && line.len() > 7 {
                    let _ = writeln!(o, "{line}");
                    line = String::from("       ");
                }
                line.push(' ');
                line.push_str(&shown);
            }
            if line.len() > 7 {
                let _ = writeln!(o, "{line}");
            }
        }
    }
    if let Some(r) = &so.relink {
        let needed: Vec<String> = r
            .needed
            .iter()
            .map(|(a, b)| format!("{a} -> {b}"))
            .collect();
        let _ = writeln!(
            o,
            "    relink for {}: {}; {} imports renamed, {} to the shim library, {} unresolved",
            r.target,
            if needed.is_empty() {
                "no CUDA library needed".to_string()
            } else {
                needed.join(", ")
            },
            r.renamed,
            r.shimmed.len(),
            r.unresolved.len()
        );
        for n in &r.unresolved_needed {
            let _ = writeln!(o, "      no {} library for {n}", r.target);
        }
        for u in &r.unresolved {
            let shown = crate::cubin::demangle(u.import.split('@').next().unwrap_or(&u.import));
            let reason: String = u.reason.chars().take(110).collect();
            let _ = writeln!(o, "      unresolved {shown}: {reason}");
        }
    }
    for e in &so.errors {
        let _ = writeln!(o, "    error: {}", fmt_err(e));
    }
    if let Some(arch) = &so.cubin_arch {
        let _ = writeln!(
            o,
            "    loose cubin (device ELF) for {arch}: {} kernels, SASS only",
            so.verdict.kernels_sass_only
        );
        if kernels {
            for k in so.kernels.iter().flatten() {
                let _ = writeln!(o, "      SASS [{arch}] {}", k.demangled);
            }
        }
        return;
    }
    for m in &so.runtime_modules {
        let _ = writeln!(
            o,
            "    runtime-loaded module: {}: the library hands it to the driver at run time; not translated",
            m.describe()
        );
    }
    let Some(fb) = &so.fatbin else {
        if so.errors.is_empty() {
            let _ = writeln!(o, "    no fatbin (no .nv_fatbin or __nv_relfatbin section)");
        }
        return;
    };
    let secs: Vec<String> = fb
        .sections
        .iter()
        .map(|s| format!("{} {}", s.name, mb(s.size)))
        .collect();
    let registered = fb
        .wrappers
        .iter()
        .filter(|w| w.registered == Some(true))
        .count();
    let _ = writeln!(
        o,
        "    fatbin: {}; {} containers, {} entries, {} wrappers ({} registered by __cudaRegisterFatBinary)",
        secs.join(", "),
        fb.container_count,
        fb.entry_count,
        fb.wrappers.len(),
        registered
    );
    let _ = writeln!(
        o,
        "      {:<16} {:<5} {:<11} {:<6} {:>6} {:>10}",
        "section", "kind", "arch", "comp", "count", "stored"
    );
    for g in &fb.summary {
        let _ = writeln!(
            o,
            "      {:<16} {:<5} {:<11} {:<6} {:>6} {:>10}",
            g.section,
            g.kind.to_uppercase(),
            g.arch,
            g.compression,
            g.count,
            mb(g.stored_bytes)
        );
    }
    let v = &so.verdict;
    let _ = write!(
        o,
        "    kernels: {} with PTX, {} SASS-only",
        v.kernels_with_ptx, v.kernels_sass_only
    );
    if v.kernels_arch_guard_stub > 0 {
        let _ = write!(o, ", {} arch-guard stubs", v.kernels_arch_guard_stub);
    }
    if v.kernels_invalid_ptx > 0 {
        let _ = write!(
            o,
            ", {} with PTX that does not parse",
            v.kernels_invalid_ptx
        );
    }
    o.push('\n');
    let Some(ks) = &so.kernels else { return };
    // Launch facts: how many kernels the host code launches with a constant block.
    let mut by_threads: std::collections::BTreeMap<u32, usize> = Default::default();
    for t in ks.iter().filter_map(|k| k.launch_threads) {
        *by_threads.entry(t).or_default() += 1;
    }
    if !by_threads.is_empty() {
        let counts: Vec<String> = by_threads
            .iter()
            .map(|(t, n)| format!("{n} at {t} threads"))
            .collect();
        let _ = writeln!(
            o,
            "    launched with a constant block: {} of {} kernels ({})",
            by_threads.values().sum::<usize>(),
            ks.len(),
            counts.join(", ")
        );
    }
    for k in ks {
        let untranslatable =
            k.unsupported_forms.as_ref().is_some_and(|f| !f.is_empty()) || k.sass_forms.is_some();
        if !kernels && k.status == KernelStatus::Ptx && !untranslatable {
            continue;
        }
        let (tag, archs) = match k.status {
            KernelStatus::Ptx => ("PTX ", k.ptx_archs.join(",")),
            KernelStatus::SassOnly => ("SASS", k.sass_archs.join(",")),
            KernelStatus::ArchGuardStub => ("STUB", k.ptx_archs.join(",")),
            KernelStatus::InvalidPtx => ("BAD ", k.ptx_archs.join(",")),
        };
        let sass = if k.status != KernelStatus::SassOnly && !k.sass_archs.is_empty() {
            format!(" +SASS {}", k.sass_archs.join(","))
        } else {
            String::new()
        };
        let block = k
            .launch_threads
            .map(|t| format!(" (launched with {t}-thread blocks)"))
            .unwrap_or_default();
        let _ = writeln!(o, "      {tag} [{archs}{sass}] {}{block}", k.demangled);
        if let Some(r) = &k.reason {
            if k.status != KernelStatus::SassOnly {
                let _ = writeln!(o, "           {r}");
            }
        }
        if let Some(m) = &k.stub_message {
            let _ = writeln!(o, "           prints: {m:?}");
        }
        if let Some(sf) = &k.sass_forms {
            match &sf.error {
                Some(e) => {
                    let _ = writeln!(o, "           SASS not decoded: {e}");
                }
                None => {
                    let missing: usize = sf.unlifted.iter().map(|f| f.count).sum();
                    let _ = writeln!(
                        o,
                        "           {} SASS: {} instructions in {} forms; not lifted: {} forms, {} instructions",
                        sf.arch,
                        sf.instructions,
                        sf.forms,
                        sf.unlifted.len(),
                        missing
                    );
                    for f in &sf.unlifted {
                        let _ = writeln!(
                            o,
                            "             {:<48} x{:<5} first at {:#06x} ({})",
                            f.form, f.count, f.first_offset, f.reason
                        );
                    }
                }
            }
        }
        if let Some(forms) = &k.unsupported_forms {
            if !forms.is_empty() {
                let _ = writeln!(o, "           unsupported PTX forms ({}):", forms.len());
                for f in forms {
                    let _ = writeln!(
                        o,
                        "             {:<48} x{:<5} first at line {}",
                        f.form, f.count, f.first_line
                    );
                }
            }
        }
    }
}
