//! The real-world corpus: every `*.ptx` in the directory named by env `WHEELPORT_PTX_CORPUS`
//! (e.g. the 11 xformers modules extracted with cuobjdump) must parse with 0 errors, round-trip
//! to an equal AST, and the printed PTX must pass `ptxas -arch=<its .target>`.

mod ptx_support;

use std::path::PathBuf;

use ptx_support::*;

fn corpus_files() -> Option<Vec<PathBuf>> {
    let Some(dir) = std::env::var_os("WHEELPORT_PTX_CORPUS") else {
        eprintln!(
            "\n**************** SKIP ptx_corpus: set WHEELPORT_PTX_CORPUS to a directory of \
             .ptx files ****************\n"
        );
        return None;
    };
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("read WHEELPORT_PTX_CORPUS")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "ptx"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no .ptx files in {dir:?}");
    Some(files)
}

#[test]
fn corpus_parses_round_trips_and_assembles() {
    let Some(files) = corpus_files() else { return };
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
            if let Err(e) = ptxas(p, &printed, &arch, &name) {
                failures.push(e);
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn corpus_kernel_forms_are_reported() {
    let Some(files) = corpus_files() else { return };
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
            // Nothing is supported yet.
            assert_eq!(
                wheelport::ptx::analysis::unsupported_forms(k).len(),
                k.forms.len()
            );
        }
        kernels += forms.len();
    }
    assert!(kernels > 0);
}
