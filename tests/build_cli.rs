//! `wheelport ptx lower` on the nvcc PTX fixtures (fixtures/ptx/nvcc): LLVM IR, AMDGPU code
//! objects (checked with llvm-readelf) and PTX (checked with ptxas 13.5); every kernel not
//! lowered is named on stderr and the exit code is 4; the cache makes a rerun cheap.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

fn nvcc_ptx(name: &str) -> PathBuf {
    common::root().join("fixtures/ptx/nvcc").join(name)
}

fn llvm19_ready() -> bool {
    common::require_llvm_tool("llc", "build_cli").is_some()
}

/// `.entry` names of a PTX file, in order.
fn entries(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|l| {
            l.strip_prefix(".visible .entry ")
                .or_else(|| l.strip_prefix(".entry "))
        })
        .map(|r| r.trim_end_matches('(').to_string())
        .collect()
}

/// (kernels named "not lowered" on stderr).
fn not_lowered(stderr: &str) -> Vec<String> {
    stderr
        .lines()
        .filter_map(|l| {
            l.split_once(": kernel `")
                .map(|(_, r)| r.split('`').next().unwrap().to_string())
        })
        .collect()
}

#[test]
fn emit_obj_for_dtk_writes_checked_code_objects() {
    if !llvm19_ready() {
        return;
    }
    let t = tempfile::tempdir().unwrap();
    let files = [
        "templates.sm_80.ptx",
        "debug_printf.sm_80.ptx",
        "inline_asm.sm_80.ptx",
    ];
    let mut cmd = Command::new(common::bin());
    cmd.args([
        "ptx",
        "lower",
        "--target",
        "dtk",
        "--offload-arch",
        "gfx906,gfx908",
        "--emit",
        "obj",
        "--cache-dir",
    ])
    .arg(t.path().join("cache"))
    .arg("-o")
    .arg(t.path().join("out"));
    for f in files {
        cmd.arg(nvcc_ptx(f));
    }
    let t0 = std::time::Instant::now();
    let (code, out, err) = common::run(&mut cmd);
    let first = t0.elapsed().as_secs_f64();
    let skipped = not_lowered(&err);
    assert_eq!(code, if skipped.is_empty() { 0 } else { 4 }, "{err}");
    // Every kernel of every input is either in the code objects or named on stderr.
    for f in files {
        let stem = f.trim_end_matches(".ptx");
        let ptx = std::fs::read_to_string(nvcc_ptx(f)).unwrap();
        for arch in ["gfx906", "gfx908"] {
            let co = t.path().join("out").join(format!("{stem}-{arch}.co"));
            assert!(out.lines().any(|l| Path::new(l) == co), "{out}");
            let (c, syms, e) = common::run(
                Command::new(common::require_llvm_tool("llvm-readelf", "build_cli").unwrap())
                    .args(["--dyn-syms", "-W", "-h"])
                    .arg(&co),
            );
            assert_eq!(c, 0, "{e}");
            assert!(
                syms.contains("AMDGPU - HSA") && syms.contains(arch),
                "{syms}"
            );
            for k in entries(&ptx) {
                let in_co =
                    syms.contains(&format!(" {k}\n")) && syms.contains(&format!(" {k}.kd\n"));
                assert_eq!(
                    in_co,
                    !skipped.contains(&k),
                    "{k} in {}: {err}",
                    co.display()
                );
            }
        }
    }
    // The rerun is served by the cache.
    let t0 = std::time::Instant::now();
    let (code2, _, _) = common::run(&mut cmd);
    let second = t0.elapsed().as_secs_f64();
    assert_eq!(code2, code);
    eprintln!(
        "ptx lower --emit obj, 3 files x 2 archs: {first:.2} s, rerun from the cache {second:.2} s"
    );
    assert!(second < first, "cache did not help: {first} vs {second}");
}

#[test]
fn emit_obj_for_cuda_writes_ptx_that_ptxas_accepts() {
    if !llvm19_ready() {
        return;
    }
    let t = tempfile::tempdir().unwrap();
    let (code, _, err) = common::run(
        Command::new(common::bin())
            .args([
                "ptx",
                "lower",
                "--target",
                "cuda",
                "--emit",
                "obj",
                "--no-cache",
                "-o",
            ])
            .arg(t.path())
            .arg(nvcc_ptx("templates.sm_80.ptx")),
    );
    let skipped = not_lowered(&err);
    assert_eq!(code, if skipped.is_empty() { 0 } else { 4 }, "{err}");
    let out = t.path().join("templates.sm_80.ptx");
    let text = std::fs::read_to_string(&out).unwrap();
    let src = std::fs::read_to_string(nvcc_ptx("templates.sm_80.ptx")).unwrap();
    let want: Vec<String> = entries(&src)
        .into_iter()
        .filter(|k| !skipped.contains(k))
        .collect();
    let mut got = entries(&text);
    got.sort();
    let mut want_sorted = want.clone();
    want_sorted.sort();
    assert_eq!(got, want_sorted);
    if let Some(ptxas) = common::require_tool("ptxas", "build_cli") {
        let (c, _, e) = common::run(
            Command::new(ptxas)
                .args(["-arch=sm_80", "-o"])
                .arg(t.path().join("k.cubin"))
                .arg(&out),
        );
        assert_eq!(c, 0, "{e}");
    }
}

#[test]
fn emit_llvm_and_errors() {
    let t = tempfile::tempdir().unwrap();
    let (code, out, err) = common::run(
        Command::new(common::bin())
            .args(["ptx", "lower", "--target", "rocm", "-o"])
            .arg(t.path())
            .arg(nvcc_ptx("hopper.sm_90a.ptx")),
    );
    // hopper.cu uses cluster special registers (mbarrier lowers; a cluster of
    // more than one CTA does not exist on the targets): named on stderr, exit code 4, the .ll
    // still written.
    assert_eq!(code, 4, "{err}");
    assert!(
        not_lowered(&err).contains(&"_Z6hopperPj".to_string()),
        "{err}"
    );
    assert!(
        err.contains("not lowered: mov.u32: special register %cluster_ctarank"),
        "{err}"
    );
    let ll = t.path().join("hopper.sm_90a.ll");
    assert_eq!(out.trim(), ll.display().to_string());
    let ir = std::fs::read_to_string(ll).unwrap();
    assert!(ir.contains("target triple = \"amdgcn-amd-amdhsa\""), "{ir}");
    // A file that does not exist: exit 1, the file named, nothing written.
    let t2 = tempfile::tempdir().unwrap();
    let (code, _, err) = common::run(
        Command::new(common::bin())
            .args(["ptx", "lower", "--target", "dtk", "-o"])
            .arg(t2.path().join("o"))
            .arg(nvcc_ptx("templates.sm_80.ptx"))
            .arg("/nonexistent.ptx"),
    );
    assert_eq!(code, 1);
    assert!(err.contains("/nonexistent.ptx"), "{err}");
    assert!(!t2.path().join("o").exists(), "partial output written");
    // musa has no device build.
    let (code, _, err) = common::run(
        Command::new(common::bin())
            .args(["ptx", "lower", "--target", "musa", "--emit", "obj", "-o"])
            .arg(t2.path().join("m"))
            .arg(nvcc_ptx("templates.sm_80.ptx")),
    );
    assert_eq!(code, 1);
    assert!(err.contains("mcc"), "{err}");
}
