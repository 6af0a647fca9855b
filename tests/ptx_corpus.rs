//! The real-world corpus: every PTX module of the corpus wheels (the 11 xformers modules,
//! extracted through wheelport's own fatbin reader) and of every fixture (as cuobjdump
//! extracted them, `fixtures/cuda/expected/*.ptx/`) must parse with 0 errors, round-trip to an
//! equal AST, and the printed PTX must pass `ptxas -arch=<its .target>`. With env
//! `WHEELPORT_PTX_CORPUS` set, the `*.ptx` files of that directory are used instead.

mod common;
mod ptx_support;

use ptx_support::*;

#[test]
fn corpus_parses_round_trips_and_assembles() {
    let Some(files) = corpus_ptx_files() else {
        return;
    };
    let ptxas_bin = ptxas_or_skip("ptx_corpus");
    let mut failures = Vec::new();
    for f in &files {
        let src = std::fs::read_to_string(f).unwrap();
        let name = f.file_name().unwrap().to_string_lossy().to_string();
        let printed = round_trip(&src, &name);
        let parsed = wheelport::ptx::parse(&src, &name);
        assert!(parsed.module.invalid().next().is_none());
        eprintln!(
            "{name}: {} bytes, {} functions, {} instructions",
            src.len(),
            parsed.module.functions().count(),
            parsed
                .module
                .functions()
                .filter_map(|f| f.body.as_ref())
                .map(|b| b.instruction_count())
                .sum::<usize>()
        );
        if let Some(p) = &ptxas_bin {
            let arch = arch_of(&parsed.module);
            // A module of an -rdc build calls device functions of other modules: assemble it
            // as relocatable code (-c), as nvcc did (its fatbin options say --compile-only).
            let m = &parsed.module;
            let system = ["vprintf", "__assertfail", "malloc", "free"];
            let unresolved = m.functions().any(|f| {
                f.body.is_none()
                    && !system.contains(&f.name)
                    && m.function(f.name).is_some_and(|g| g.body.is_none())
            });
            let extra: &[&str] = if unresolved { &["-c"] } else { &[] };
            if let Err(e) = ptxas_with(p, &printed, &arch, &name, extra) {
                failures.push(e);
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn corpus_kernel_forms_are_reported() {
    let Some(files) = corpus_ptx_files() else {
        return;
    };
    let mut kernels = 0;
    for f in &files {
        let src = std::fs::read_to_string(f).unwrap();
        let parsed = wheelport::ptx::parse(&src, "x");
        let forms = wheelport::ptx::analysis::kernel_forms(&parsed.module);
        assert_eq!(
            forms.len(),
            parsed
                .module
                .functions()
                .filter(|f| f.kind == wheelport::ptx::FunctionKind::Entry && f.body.is_some())
                .count()
        );
        for k in &forms {
            assert!(!k.forms.is_empty(), "kernel {} has no forms", k.kernel);
            // The unsupported forms are exactly the forms missing from the supported table.
            let missing: Vec<&str> = wheelport::ptx::analysis::unsupported_forms(k)
                .iter()
                .map(|f| f.form.as_str())
                .collect();
            // (Matched by `form_key`: a table form in any order `ptxas` leaves free.)
            let table: std::collections::HashSet<String> =
                wheelport::ptx::analysis::parse_forms_table(
                    wheelport::ptx::analysis::SUPPORTED_FORMS,
                )
                .into_iter()
                .filter_map(wheelport::ptx::analysis::form_key)
                .collect();
            let want: Vec<&str> = k
                .forms
                .iter()
                .map(|f| f.form.as_str())
                .filter(|f| {
                    wheelport::ptx::analysis::form_key(f).is_none_or(|key| !table.contains(&key))
                })
                .collect();
            assert_eq!(missing, want);
        }
        kernels += forms.len();
    }
    assert!(kernels > 0);
}
