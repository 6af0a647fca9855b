//! wheelport's own wheel (pyproject.toml: maturin, binary bindings, profile `dist`), as pip and
//! uv users get it: checked by `auditwheel show`, `installer --validate-record all` and
//! `readelf`; installed into fresh venvs with pip and with uv (and run with `uvx`); then the
//! installed command, run outside the source tree, answers `--version`, `doctor` and
//! `inspect` as the binary built here does and runs the main job on the demo wheel with no
//! C compiler (`CC` pointing nowhere: the shim is the prebuilt one).
//!
//! The wheel comes from `$WHEELPORT_WHEEL_DIR` (`.ci/run` builds it there with
//! `maturin build`); auditwheel from `$WHEELPORT_PKGTOOLS`, installer and uv from
//! `$WHEELPORT_PYTOOLS` (pip --target folders). Missing: fails under CI, SKIPs elsewhere.

mod common;

use common::*;
use std::path::{Path, PathBuf};
use std::process::Command;

const DEMO: &str = "wheelport_demo-0.1.0+cu13-py3-none-manylinux_2_28_x86_64.whl";

/// The one `wheelport-*.whl` in `$WHEELPORT_WHEEL_DIR`.
fn wheel(test: &str) -> Option<PathBuf> {
    let Some(dir) = std::env::var_os("WHEELPORT_WHEEL_DIR") else {
        return missing(
            test,
            "WHEELPORT_WHEEL_DIR not set (the folder `maturin build --out` wrote wheelport's wheel to)",
        );
    };
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", Path::new(&dir).display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("wheelport-") && n.ends_with(".whl"))
        })
        .collect();
    assert_eq!(
        v.len(),
        1,
        "one wheelport wheel expected in WHEELPORT_WHEEL_DIR: {v:?}"
    );
    v.pop()
}

fn pkgtools(test: &str) -> Option<PathBuf> {
    match std::env::var_os("WHEELPORT_PKGTOOLS") {
        Some(p) => Some(p.into()),
        None => missing(
            test,
            "WHEELPORT_PKGTOOLS not set (a pip --target folder with maturin and auditwheel)",
        ),
    }
}

/// `python3 -m MODULE ARGS` with `PYTHONPATH=path`.
fn py_module(path: &Path, module: &str, args: &[&std::ffi::OsStr]) -> (i32, String, String) {
    run(Command::new("python3")
        .env("PYTHONPATH", path)
        .arg("-m")
        .arg(module)
        .args(args))
}

/// The platform tags of a wheel file name (`manylinux_2_17_x86_64.manylinux2014_x86_64`).
fn platform_tags(wheel: &Path) -> Vec<String> {
    let name = wheel.file_name().unwrap().to_str().unwrap();
    let stem = name.strip_suffix(".whl").unwrap();
    stem.rsplit('-')
        .next()
        .unwrap()
        .split('.')
        .map(String::from)
        .collect()
}

#[test]
fn wheel_passes_auditwheel_installer_and_holds_one_stripped_binary() {
    let test = "install_wheel";
    let (Some(whl), Some(pkg), Some(py)) = (wheel(test), pkgtools(test), require_pytools(test))
    else {
        return;
    };
    // auditwheel: the platform tag it finds is the first one the file name carries.
    let (code, out, err) = py_module(&pkg, "auditwheel", &["show".as_ref(), whl.as_os_str()]);
    assert_eq!(code, 0, "auditwheel show: {out}{err}");
    let tags = platform_tags(&whl);
    // auditwheel wraps its sentences: compare with the whitespace folded.
    let flat = out.split_whitespace().collect::<Vec<_>>().join(" ");
    let found = flat
        .split("consistent with the following platform tag: \"")
        .nth(1)
        .and_then(|r| r.split('"').next())
        .unwrap_or_else(|| panic!("no platform tag in: {out}"));
    assert!(
        tags.iter().any(|t| t == found),
        "{tags:?} vs auditwheel's {found}"
    );
    assert!(found.starts_with("manylinux_2_17_"), "{found}");

    // installer with every RECORD row checked.
    let t = tempfile::tempdir().unwrap();
    let dest = t.path().join("dest");
    let (code, out, err) = py_module(
        &py,
        "installer",
        &[
            "--destdir".as_ref(),
            dest.as_os_str(),
            "--validate-record".as_ref(),
            "all".as_ref(),
            whl.as_os_str(),
        ],
    );
    assert_eq!(code, 0, "installer: {out}{err}");

    // Members: the binary in the scripts and the dist-info, nothing else.
    let mut r = wheelport::wheel::WheelReader::open(&whl).unwrap();
    let version = env!("CARGO_PKG_VERSION");
    let mut names = r.member_names();
    names.sort();
    let script = format!("wheelport-{version}.data/scripts/wheelport");
    let want_prefix = format!("wheelport-{version}.dist-info/");
    assert!(names.contains(&script), "{names:?}");
    for n in &names {
        assert!(
            *n == script || n.starts_with(&want_prefix),
            "unexpected member {n}"
        );
    }
    let bin = t.path().join("wheelport");
    std::fs::write(&bin, r.read_member(&script).unwrap()).unwrap();
    if require_tool("readelf", test).is_none() {
        return;
    }
    let (code, sections, err) = run(Command::new("readelf").arg("-SW").arg(&bin));
    assert_eq!(code, 0, "{err}");
    assert!(sections.contains(" .text "), "{sections}");
    for s in [".debug_info", ".debug_line", ".symtab"] {
        assert!(
            !sections.contains(&format!(" {s} ")),
            "{s} in the shipped binary"
        );
    }
    // The shipped binary names no path of the source tree it was built from.
    let bytes = std::fs::read(&bin).unwrap();
    let root = env!("CARGO_MANIFEST_DIR").as_bytes();
    assert!(!bytes.windows(root.len()).any(|w| w == root));
}

/// A fresh venv at `dir` made by `python3 -m venv` with the wheel installed by its pip.
fn pip_venv(dir: &Path, whl: &Path) -> PathBuf {
    let (code, _, err) = run(Command::new("python3").args(["-m", "venv"]).arg(dir));
    assert_eq!(code, 0, "venv: {err}");
    let (code, out, err) = run(Command::new(dir.join("bin/pip"))
        .args(["install", "--no-index", "--disable-pip-version-check"])
        .arg(whl));
    assert_eq!(code, 0, "pip install: {out}{err}");
    dir.join("bin/wheelport")
}

/// A fresh venv at `dir` made by `uv venv` with the wheel installed by `uv pip install`.
fn uv_venv(uv: &Path, cache: &Path, dir: &Path, whl: &Path) -> PathBuf {
    let (code, _, err) = run(Command::new(uv)
        .env("UV_CACHE_DIR", cache)
        .args(["venv", "--no-config", "--python", "python3"])
        .arg(dir));
    assert_eq!(code, 0, "uv venv: {err}");
    let (code, out, err) = run(Command::new(uv)
        .env("UV_CACHE_DIR", cache)
        .args(["pip", "install", "--no-config", "--no-index", "--python"])
        .arg(dir.join("bin/python"))
        .arg(whl));
    assert_eq!(code, 0, "uv pip install: {out}{err}");
    dir.join("bin/wheelport")
}

/// Run `exe` in `cwd` with `CC` pointing nowhere.
fn run_in(exe: &Path, cwd: &Path, args: &[&str]) -> (i32, String, String) {
    run(Command::new(exe)
        .current_dir(cwd)
        .env("CC", "/nonexistent/cc")
        .env("WHEELPORT_NO_CACHE", "1")
        .env("SOURCE_DATE_EPOCH", "1700000000")
        .args(args))
}

#[test]
fn pip_and_uv_installs_run_version_doctor_inspect_and_the_main_job() {
    let test = "install_wheel";
    let (Some(whl), Some(py)) = (wheel(test), require_pytools(test)) else {
        return;
    };
    let uv = py.join("bin/uv");
    let t = tempfile::tempdir().unwrap();
    let work = t.path().join("work");
    std::fs::create_dir_all(&work).unwrap();
    std::fs::copy(root().join("fixtures/wheels").join(DEMO), work.join(DEMO)).unwrap();
    let cache = t.path().join("uv-cache");
    let installs = [
        ("pip", pip_venv(&t.path().join("pip-venv"), &whl)),
        ("uv", uv_venv(&uv, &cache, &t.path().join("uv-venv"), &whl)),
    ];
    let version = format!("wheelport {}\n", env!("CARGO_PKG_VERSION"));
    let here = bin();
    let (_, doctor_here, _) = run_in(&here, &work, &["doctor"]);
    let (_, inspect_here, _) = run_in(&here, &work, &["inspect", DEMO, "--target", "dtk"]);
    let toolchain = require_toolchain("dtk", test);
    for (how, exe) in &installs {
        assert!(exe.is_file(), "{how}: {}", exe.display());
        let (code, out, err) = run_in(exe, &work, &["--version"]);
        assert_eq!((code, out.as_str()), (0, version.as_str()), "{how}: {err}");
        let (code, out, err) = run_in(exe, &work, &["doctor"]);
        assert_eq!(code, 0, "{how}: {err}");
        assert_eq!(
            out, doctor_here,
            "{how}: doctor differs from the source-tree build's"
        );
        let (code, out, err) = run_in(exe, &work, &["inspect", DEMO, "--target", "dtk"]);
        assert_eq!(code, 0, "{how}: {err}");
        assert_eq!(out, inspect_here, "{how}: inspect differs");
        assert!(out.contains("wheelport_demo/_kernels.so"), "{out}");
        if toolchain.is_none() {
            continue;
        }
        let outdir = format!("out-{how}");
        let (code, out, err) = run_in(exe, &work, &[DEMO, "--target", "dtk", "-o", &outdir]);
        assert_eq!(code, 0, "{how}: main job: {out}{err}");
        assert!(
            out.contains("converted: all 2 kernels translated (exit 0)"),
            "{out}"
        );
        let conv = work
            .join(&outdir)
            .join("wheelport_demo-0.1.0+dtk-py3-none-manylinux_2_28_x86_64.whl");
        let mut r = wheelport::wheel::WheelReader::open(&conv).unwrap();
        let shim = r
            .read_member("wheelport_demo.libs/libwheelport_shim.so")
            .unwrap();
        assert_eq!(
            shim,
            wheelport::shim::prebuilt_shim("libgalaxyhip.so.5").unwrap(),
            "{how}: the shipped shim is not the prebuilt one"
        );
        let (code, out, err) = py_module(
            &py,
            "installer",
            &[
                "--destdir".as_ref(),
                t.path().join(format!("dest-{how}")).as_os_str(),
                "--validate-record".as_ref(),
                "all".as_ref(),
                conv.as_os_str(),
            ],
        );
        assert_eq!(
            code, 0,
            "{how}: installer on the converted wheel: {out}{err}"
        );
    }
}

#[test]
fn uvx_runs_the_command_from_the_wheel() {
    let test = "install_wheel";
    let (Some(whl), Some(py)) = (wheel(test), require_pytools(test)) else {
        return;
    };
    let t = tempfile::tempdir().unwrap();
    let (code, out, err) = run(Command::new(py.join("bin/uvx"))
        .current_dir(t.path())
        .env("UV_CACHE_DIR", t.path().join("cache"))
        .env("UV_TOOL_DIR", t.path().join("tools"))
        .args(["--no-config", "--no-index", "--find-links"])
        .arg(whl.parent().unwrap())
        .args(["wheelport", "--version"]));
    assert_eq!(code, 0, "uvx: {out}{err}");
    assert_eq!(out, format!("wheelport {}\n", env!("CARGO_PKG_VERSION")));
}
