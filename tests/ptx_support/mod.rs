//! Shared helpers for the PTX front-end tests: finding `ptxas`, running it, and the
//! parse → print → parse check.
#![allow(dead_code)]

use std::path::PathBuf;
use std::process::Command;

use wheelport::ptx::{self, Module};

/// `ptxas` from `$WHEELPORT_CUDA_BIN`, else `PATH` (as `tests/common` finds tools).
pub fn find_ptxas() -> Option<PathBuf> {
    if let Some(d) = std::env::var_os("WHEELPORT_CUDA_BIN") {
        let p = PathBuf::from(d).join("ptxas");
        if p.is_file() {
            return Some(p);
        }
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join("ptxas"))
        .find(|p| p.is_file())
}

/// `ptxas`, or the one rule for a missing tool: the test fails under CI (`CI` set), and
/// prints a loud SKIP line elsewhere.
pub fn ptxas_or_skip(test: &str) -> Option<PathBuf> {
    match find_ptxas() {
        Some(p) => Some(p),
        None if std::env::var_os("CI").is_some() => {
            panic!(
                "{test}: `ptxas` not found (set WHEELPORT_CUDA_BIN or PATH) (.ci/run installs it)"
            )
        }
        None => {
            eprintln!("SKIP {test}: `ptxas` not found (set WHEELPORT_CUDA_BIN or PATH)");
            None
        }
    }
}

/// Assemble `text` for `arch` with `ptxas`; `Err(stderr)` if it is rejected.
pub fn ptxas(ptxas: &std::path::Path, text: &str, arch: &str, tag: &str) -> Result<(), String> {
    ptxas_with(ptxas, text, arch, tag, &[])
}

/// As [`ptxas`], with extra arguments (e.g. `-c` for relocatable `-rdc` modules).
pub fn ptxas_with(
    ptxas: &std::path::Path,
    text: &str,
    arch: &str,
    tag: &str,
    extra: &[&str],
) -> Result<(), String> {
    let dir = std::env::temp_dir().join(format!("wheelport-ptx-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let src = dir.join(format!("{tag}.ptx"));
    let obj = dir.join(format!("{tag}.cubin"));
    std::fs::write(&src, text).unwrap();
    let out = Command::new(ptxas)
        .arg(format!("-arch={arch}"))
        .args(extra)
        .arg(&src)
        .arg("-o")
        .arg(&obj)
        .output()
        .expect("run ptxas");
    let _ = std::fs::remove_file(&obj);
    if out.status.success() {
        let _ = std::fs::remove_file(&src);
        Ok(())
    } else {
        Err(format!(
            "ptxas -arch={arch} {} failed:\n{}",
            src.display(),
            String::from_utf8_lossy(&out.stderr)
        ))
    }
}

/// The first `.target` option (the architecture), e.g. `sm_90a`.
pub fn arch_of(m: &Module<'_>) -> String {
    m.target
        .iter()
        .find(|t| t.starts_with("sm_") || t.starts_with("compute_"))
        .unwrap_or(&"sm_80")
        .to_string()
}

/// Parse with 0 errors, print, re-parse with 0 errors, and check the two ASTs are equal.
/// Returns the printed text.
pub fn round_trip(src: &str, name: &str) -> String {
    let a = ptx::parse(src, name);
    let errs: Vec<String> = a.diagnostics.iter().map(|d| d.to_string()).collect();
    assert!(
        errs.is_empty(),
        "{name}: parse errors:\n{}",
        errs.join("\n")
    );
    let printed = ptx::print(&a.module);
    let b = ptx::parse(&printed, "printed");
    let errs: Vec<String> = b.diagnostics.iter().map(|d| d.to_string()).collect();
    assert!(
        errs.is_empty(),
        "{name}: errors re-parsing printed PTX:\n{}",
        errs.join("\n")
    );
    if a.module != b.module {
        // Find the first differing item for a readable failure.
        for (x, y) in a.module.items.iter().zip(b.module.items.iter()) {
            assert_eq!(x, y, "{name}: round trip changed an item");
        }
        assert_eq!(
            a.module.items.len(),
            b.module.items.len(),
            "{name}: item count changed"
        );
        panic!("{name}: round trip changed the module header");
    }
    // Printing is a fixed point on the text as well.
    assert_eq!(
        printed,
        ptx::print(&b.module),
        "{name}: print is not idempotent"
    );
    printed
}

/// Extract the PTX of the corpus wheels with the fatbin reader, and collect the fixtures' PTX.
fn extracted_corpus() -> Option<Vec<PathBuf>> {
    let dir = std::env::temp_dir().join(format!("wheelport-ptx-corpus-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut files = Vec::new();
    let wheel = crate::common::require_corpus("xformers-0.0.35", "ptx_corpus")?;
    let mut modules = 0;
    let mut r = wheelport::wheel::WheelReader::open(&wheel).unwrap();
    for name in r.member_names() {
        if !wheelport::wheel::is_shared_object_name(&name) {
            continue;
        }
        let data = r.read_member(&name).unwrap();
        let so = wheelport::elf::scan(&data, &name).unwrap();
        for (_, containers) in wheelport::fatbin::parse_object_sections(&data, &so, &name).unwrap()
        {
            for e in containers.iter().flat_map(|c| c.entries.iter()) {
                if e.kind() == wheelport::fatbin::EntryKind::Ptx {
                    modules += 1;
                    let p = dir.join(format!("{}.{modules}.ptx", name.replace('/', "__")));
                    std::fs::write(&p, e.ptx_bytes().unwrap()).unwrap();
                    files.push(p);
                }
            }
        }
    }
    assert_eq!(modules, 11, "xformers carries 11 PTX modules");
    let expected = crate::common::root().join("fixtures/cuda/expected");
    for d in std::fs::read_dir(&expected).unwrap() {
        let d = d.unwrap().path();
        if d.is_dir() {
            for f in std::fs::read_dir(&d).unwrap() {
                files.push(f.unwrap().path());
            }
        }
    }
    files.sort();
    Some(files)
}

/// The PTX files of the corpus tests: the `*.ptx` of env `WHEELPORT_PTX_CORPUS` if set, else
/// the xformers modules (extracted into a temporary directory) and the fixtures' PTX. `None`
/// (a SKIP) when the corpus wheel is missing outside CI.
pub fn corpus_ptx_files() -> Option<Vec<PathBuf>> {
    let Some(dir) = std::env::var_os("WHEELPORT_PTX_CORPUS") else {
        return extracted_corpus();
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
