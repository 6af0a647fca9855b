//! The cuda twin with wheelport's real lowering (`wheelport ptx twin`), on the nvcc fixtures
//! sass_ptx.so and multi_tu.so. The assertions are invariants that hold whatever the
//! lowering supports: every kernel of the original is reported (lowered, or unsupported with
//! a reason); cuobjdump 13.5 lists one PTX per registered fatbin and no cubin; every lowered
//! kernel is an `.entry` of the extracted PTX and no unsupported one is; ptxas 13.5 accepts
//! the PTX; the JSON report and the exit code agree.

mod common;

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

/// Kernel names of the fixture: the `.entry` names of `expected/<name>.ptx/*.ptx` (what
/// `cuobjdump -xptx all` extracted from the original).
fn original_kernels(name: &str) -> BTreeSet<String> {
    let dir = common::root()
        .join("fixtures/cuda/expected")
        .join(format!("{name}.ptx"));
    let mut set = BTreeSet::new();
    for f in std::fs::read_dir(dir).unwrap().flatten() {
        let text = std::fs::read_to_string(f.path()).unwrap();
        for l in text.lines() {
            if let Some(rest) = l
                .strip_prefix(".visible .entry ")
                .or_else(|| l.strip_prefix(".entry "))
            {
                set.insert(rest.trim_end_matches('(').to_string());
            }
        }
    }
    set
}

fn twin_cli(name: &str, dir: &Path) -> Option<(i32, serde_json::Value)> {
    let cuda = wheelport::target::profile("cuda").unwrap();
    let tc = wheelport::toolchain::discover(cuda, &wheelport::toolchain::SearchOptions::from_env());
    if !tc.is_complete() {
        assert!(
            std::env::var_os("CI").is_none(),
            "cuda toolchain incomplete: {tc:?}"
        );
        eprintln!("SKIP twin_lowered: cuda toolchain incomplete");
        return None;
    }
    let out = dir.join(format!("{name}.so"));
    let t0 = std::time::Instant::now();
    let (code, json, err) = common::run(
        Command::new(common::bin())
            .args(["ptx", "twin", "--json", "--no-cache", "-o"])
            .arg(&out)
            .arg(
                common::root()
                    .join("fixtures/cuda")
                    .join(format!("{name}.so")),
            ),
    );
    eprintln!(
        "{name}: wheelport ptx twin in {:.2} s",
        t0.elapsed().as_secs_f64()
    );
    assert!(code == 0 || code == 4, "exit {code}: {err}");
    Some((
        code,
        serde_json::from_str(&json).unwrap_or_else(|e| panic!("{e}: {json}")),
    ))
}

fn check(name: &str, wrappers_converted: usize) {
    let t = tempfile::tempdir().unwrap();
    let Some((code, report)) = twin_cli(name, t.path()) else {
        return;
    };
    let out = t.path().join(format!("{name}.so"));
    let ws = report["wrappers"].as_array().unwrap();
    let converted: Vec<&serde_json::Value> =
        ws.iter().filter(|w| w["status"] == "converted").collect();
    assert_eq!(converted.len(), wrappers_converted, "{report:#}");
    let mut lowered = BTreeSet::new();
    let mut unsupported = BTreeSet::new();
    for w in &converted {
        for k in w["kernels"].as_array().unwrap() {
            let n = k["name"].as_str().unwrap().to_string();
            match k["outcome"]["status"].as_str().unwrap() {
                "lowered" => lowered.insert(n),
                "unsupported" => {
                    assert!(!k["outcome"]["reason"].as_str().unwrap().is_empty(), "{k}");
                    unsupported.insert(n)
                }
                s => panic!("status {s}"),
            };
        }
    }
    // Every kernel of the original is accounted for, once.
    let all: BTreeSet<String> = lowered.union(&unsupported).cloned().collect();
    assert_eq!(all, original_kernels(name));
    assert!(lowered.is_disjoint(&unsupported));
    let missing_vars = converted
        .iter()
        .any(|w| !w["variables_missing"].as_array().unwrap().is_empty());
    assert_eq!(
        code == 0,
        unsupported.is_empty() && !missing_vars,
        "exit code {code} vs report"
    );
    eprintln!(
        "{name}: {} kernels lowered, {} not: {unsupported:?}",
        lowered.len(),
        unsupported.len()
    );

    let Some(cuobjdump) = common::require_tool("cuobjdump", "twin_lowered") else {
        return;
    };
    let (c, lptx, e) = common::run(
        Command::new(&cuobjdump)
            .arg("-lptx")
            .arg(&out)
            .current_dir(t.path()),
    );
    assert_eq!(c, 0, "{e}");
    assert_eq!(lptx.lines().count(), wrappers_converted, "{lptx}");
    let (_, lelf, _) = common::run(Command::new(&cuobjdump).arg("-lelf").arg(&out));
    assert!(!lelf.contains("ELF file"), "{lelf}");
    let x = t.path().join("x");
    std::fs::create_dir(&x).unwrap();
    let (c, _, e) = common::run(
        Command::new(&cuobjdump)
            .args(["-xptx", "all"])
            .arg(&out)
            .current_dir(&x),
    );
    assert_eq!(c, 0, "{e}");
    let mut entries = BTreeSet::new();
    let ptxas = common::require_tool("ptxas", "twin_lowered");
    for f in std::fs::read_dir(&x).unwrap().flatten() {
        let text = std::fs::read_to_string(f.path()).unwrap();
        assert!(
            text.contains("Generated by LLVM NVPTX Back-End"),
            "{}",
            f.path().display()
        );
        for l in text.lines() {
            if let Some(rest) = l
                .strip_prefix(".visible .entry ")
                .or_else(|| l.strip_prefix(".entry "))
            {
                entries.insert(rest.trim_end_matches('(').to_string());
            }
        }
        if let Some(p) = &ptxas {
            let (c, _, e) = common::run(
                Command::new(p)
                    .args(["-arch=sm_80", "-o"])
                    .arg(t.path().join("k.cubin"))
                    .arg(f.path()),
            );
            assert_eq!(c, 0, "ptxas on {}: {e}", f.path().display());
        }
    }
    assert_eq!(entries, lowered);
}

#[test]
fn sass_ptx_twin_with_the_real_lowering() {
    check("sass_ptx", 1);
}

#[test]
fn multi_tu_twin_with_the_real_lowering() {
    check("multi_tu", 3);
}
