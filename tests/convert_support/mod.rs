//! Helpers for the `convert_*` tests: running `wheelport convert`, installing its wheels with
//! three independent installers in fresh virtual environments, reading DT_NEEDED with readelf.
#![allow(dead_code)]

use crate::common::*;
use std::path::{Path, PathBuf};
use std::process::Command;

/// `$WHEELPORT_PYTOOLS` (a `pip --target` folder with installer and uv): required under CI,
/// loud SKIP otherwise.
pub fn pytools() -> Option<PathBuf> {
    crate::common::require_pytools("installer/uv checks")
}

/// Run `wheelport convert ARGS...`; returns (exit code, stdout, stderr).
pub fn convert(args: &[&std::ffi::OsStr]) -> (i32, String, String) {
    run(Command::new(bin()).arg("convert").args(args).arg("-q"))
}

/// The files in `dir` (none when it does not exist).
pub fn files_in(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    v.sort();
    v
}

fn venv(dir: &Path) -> PathBuf {
    let (code, _, err) = run(Command::new("python3")
        .args(["-m", "venv", "--without-pip"])
        .arg(dir));
    assert_eq!(code, 0, "python3 -m venv: {err}");
    dir.join("bin/python")
}

/// Install `wheel` with `pip install --no-deps`, `uv pip install --no-deps` and
/// `python -m installer --validate-record all`, each into a fresh venv under `work`; returns
/// the site-packages folder of the installer venv, or `None` when the tools are missing
/// outside CI.
pub fn install_three_ways(wheel: &Path, work: &Path) -> Option<PathBuf> {
    let tools = pytools()?;
    // pip (the interpreter's own pip, targeting the venv's interpreter).
    let py = venv(&work.join("venv-pip"));
    let (code, _, err) = run(Command::new("python3")
        .args(["-m", "pip", "--python"])
        .arg(&py)
        .args([
            "install",
            "--quiet",
            "--no-deps",
            "--no-index",
            "--disable-pip-version-check",
        ])
        .arg(wheel));
    assert_eq!(code, 0, "pip install {}: {err}", wheel.display());
    // uv.
    let py = venv(&work.join("venv-uv"));
    let (code, _, err) = run(Command::new(tools.join("bin/uv"))
        .args([
            "pip",
            "install",
            "--no-deps",
            "--offline",
            "--no-cache",
            "--python",
        ])
        .arg(&py)
        .arg(wheel));
    assert_eq!(code, 0, "uv pip install {}: {err}", wheel.display());
    // installer, validating every RECORD row.
    let py = venv(&work.join("venv-installer"));
    let (code, _, err) = run(Command::new(&py)
        .args(["-m", "installer", "--validate-record", "all"])
        .arg(wheel)
        .env("PYTHONPATH", &tools));
    assert_eq!(code, 0, "installer {}: {err}", wheel.display());
    let lib = work.join("venv-installer/lib");
    let pyver = std::fs::read_dir(&lib)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    Some(pyver.join("site-packages"))
}

/// DT_NEEDED of `so` as `readelf -d` prints it.
pub fn readelf_needed(so: &Path) -> Option<Vec<String>> {
    let readelf = require_tool("readelf", "readelf_needed")?;
    let (code, out, err) = run(Command::new(readelf).arg("-dW").arg(so));
    assert_eq!(code, 0, "readelf -d {}: {err}", so.display());
    Some(
        out.lines()
            .filter(|l| l.contains("(NEEDED)"))
            .filter_map(|l| {
                let s = l.find('[')?;
                let e = l.rfind(']')?;
                Some(l[s + 1..e].to_string())
            })
            .collect(),
    )
}

/// True for a CUDA-stack soname (NVIDIA's runtime and libraries, torch's CUDA parts).
pub fn is_cuda_soname(n: &str) -> bool {
    let n = n.to_ascii_lowercase();
    n.contains("cuda")
        || n.starts_with("libcu")
        || n.starts_with("libnv")
        || n.starts_with("libnccl")
}

/// Every `.so` below `dir`.
pub fn shared_objects_below(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if wheelport::wheel::is_shared_object_name(&p.to_string_lossy()) {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}
