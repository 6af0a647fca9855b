//! `convert --toolchain DIR` and `--tool NAME=PATH` (the options `doctor` takes): a toolchain
//! root made of links to the real LLVM 19 tools builds the demo wheel, and the report's device
//! build line is that `llc`'s own `--version` line; a `--tool llc=` override that is not an
//! executable makes every kernel untranslated (exit 5) with `llc` named as the missing tool,
//! and `doctor` with the same option names the path.

mod common;

use common::*;
use std::path::Path;
use std::process::Command;

const DEMO: &str = "fixtures/wheels/wheelport_demo-0.1.0+cu13-py3-none-manylinux_2_28_x86_64.whl";

#[test]
fn convert_takes_toolchain_and_tool_options() {
    let Some((_, tc)) = require_toolchain("dtk", "convert_toolchain") else {
        return;
    };
    let t = tempfile::tempdir().unwrap();
    let bin_dir = t.path().join("llvm/bin");
    std::fs::create_dir_all(&bin_dir).unwrap();
    for tool in &tc.tools {
        std::os::unix::fs::symlink(&tool.path, bin_dir.join(&tool.name)).unwrap();
    }
    let llc = bin_dir.join("llc");
    let (code, banner, _) = run(Command::new(&llc).arg("--version"));
    assert_eq!(code, 0);
    let version_line = banner
        .lines()
        .map(str::trim)
        .find(|l| l.contains("version"))
        .unwrap()
        .to_string();

    let report = t.path().join("report.json");
    let (code, out, err) = run(Command::new(bin())
        .arg(root().join(DEMO))
        .args(["--target", "dtk", "-q", "-o"])
        .arg(t.path().join("out"))
        .arg("--json")
        .arg(&report)
        .arg("--toolchain")
        .arg(t.path())
        .env("WHEELPORT_NO_CACHE", "1")
        .env("PATH", "/nonexistent"));
    assert_eq!(code, 0, "{out}{err}");
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    assert_eq!(v["device_build"]["available"], true);
    assert_eq!(
        v["device_build"]["description"],
        format!("wheelport PTX lowering + {version_line}")
    );

    let (code, out, err) = run(Command::new(bin())
        .arg(root().join(DEMO))
        .args(["--target", "dtk", "-q", "-o"])
        .arg(t.path().join("out2"))
        .args(["--tool", "llc=/nonexistent/llc"])
        .env("WHEELPORT_NO_CACHE", "1"));
    assert_eq!(
        code,
        wheelport::cli::exit::UNTRANSLATED as i32,
        "{out}{err}"
    );
    // Only llc is missing: the override replaced the one found on PATH.
    assert!(
        out.contains("device tools missing for dtk: llc (apt-get install llvm-19"),
        "{out}"
    );
    assert!(!out.contains("ld.lld ("), "{out}");
    let (code, out, _) = run(Command::new(bin()).args([
        "doctor",
        "--target",
        "dtk",
        "--tool",
        "llc=/nonexistent/llc",
    ]));
    assert_eq!(code, wheelport::cli::exit::TOOLS_MISSING as i32, "{out}");
    assert!(
        out.contains("/nonexistent/llc is not an executable file"),
        "{out}"
    );
    assert!(!Path::new(&t.path().join("out2"))
        .join("wheelport_demo-0.1.0+dtk-py3-none-manylinux_2_28_x86_64.whl")
        .exists());
}
