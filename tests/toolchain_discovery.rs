//! Toolchain discovery: the search order (override, --toolchain, environment variables,
//! fixed directories, PATH and /usr/lib/llvm-N) on fake toolchains made of tiny scripts, and
//! the real LLVM 19 of this machine (versions compared with the tools' own `--version`).

mod common;

use std::collections::HashMap;
use std::ffi::OsString;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use wheelport::toolchain::{discover, FoundBy, SearchOptions};

const DTK_TOOLS: [&str; 4] = ["llc", "ld.lld", "opt", "llvm-link"];

/// A fake tool: a shell script printing an LLVM-style `--version` banner (with the amdgcn
/// and nvptx64 backends for llc unless `backends` is empty).
fn fake_tool(dir: &Path, file: &str, version: &str, backends: &[&str]) -> PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    let p = dir.join(file);
    let mut s =
        format!("#!/bin/sh\necho 'Fake LLVM version {version}'\necho '  Optimized build.'\n");
    if file.contains("llc") {
        s.push_str("echo '  Registered Targets:'\n");
        for b in backends {
            s.push_str(&format!("echo '    {b:<11} - fake backend'\n"));
        }
    }
    std::fs::write(&p, s).unwrap();
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
    p
}

fn fake_root(root: &Path, sub: &str, version: &str) {
    for t in DTK_TOOLS {
        fake_tool(&root.join(sub), t, version, &["amdgcn", "nvptx64"]);
    }
}

fn opts(env: &[(&str, &Path)], fixed: Vec<PathBuf>, roots: Vec<PathBuf>) -> SearchOptions {
    SearchOptions {
        env: env
            .iter()
            .map(|(k, v)| (k.to_string(), OsString::from(v.as_os_str())))
            .collect::<HashMap<_, _>>(),
        fixed_dirs: Some(fixed),
        system_roots: roots,
        ..Default::default()
    }
}

fn dtk() -> &'static wheelport::target::Profile {
    wheelport::target::profile("dtk").unwrap()
}

#[test]
fn search_order_override_option_env_dirs_path() {
    let t = tempfile::tempdir().unwrap();
    let d = t.path();
    fake_root(&d.join("opt"), "bin", "11.0.0");
    fake_root(&d.join("dtk"), "llvm/bin", "12.0.0"); // DTK layout: <dtk>/llvm/bin
    fake_root(&d.join("rocm"), "bin", "13.0.0");
    fake_root(&d.join("fixed"), "", "14.0.0");
    fake_root(&d.join("path"), "", "15.0.0");
    let over = fake_tool(&d.join("over"), "my-llc", "10.0.0", &["amdgcn"]);

    let env = [
        ("DTK_PATH", d.join("dtk")),
        ("ROCM_PATH", d.join("rocm")),
        ("PATH", d.join("path")),
    ];
    let env: Vec<(&str, &Path)> = env.iter().map(|(k, v)| (*k, v.as_path())).collect();
    let mut o = opts(&env, vec![d.join("fixed")], vec![]);
    o.toolchain_dir = Some(d.join("opt"));
    o.overrides.insert("llc".into(), over.clone());

    let tc = discover(dtk(), &o);
    assert!(tc.is_complete(), "{tc:?}");
    let llc = tc.tool("llc").unwrap();
    assert_eq!(llc.path, over);
    assert_eq!(llc.found_by, FoundBy::Override);
    assert_eq!(llc.version.unwrap().to_string(), "10.0.0");
    assert_eq!(llc.version_line, "Fake LLVM version 10.0.0");
    assert_eq!(llc.targets, vec!["amdgcn"]);
    let opt = tc.tool("opt").unwrap();
    assert_eq!(opt.path, d.join("opt/bin/opt"));
    assert_eq!(
        opt.found_by,
        FoundBy::ToolchainOption { dir: d.join("opt") }
    );

    // Without the option: DTK_PATH (its llvm/bin), before ROCM_PATH.
    o.toolchain_dir = None;
    let tc = discover(dtk(), &o);
    let opt = tc.tool("opt").unwrap();
    assert_eq!(opt.path, d.join("dtk/llvm/bin/opt"));
    assert!(matches!(&opt.found_by, FoundBy::Env { var, .. } if var == "DTK_PATH"));
    assert_eq!(opt.version.unwrap().major, 12);

    // Without DTK_PATH: ROCM_PATH.
    o.env.remove("DTK_PATH");
    let tc = discover(dtk(), &o);
    assert_eq!(tc.tool("ld.lld").unwrap().path, d.join("rocm/bin/ld.lld"));

    // Without the variables: the fixed directory, then PATH.
    o.env.remove("ROCM_PATH");
    let tc = discover(dtk(), &o);
    assert_eq!(
        tc.tool("llvm-link").unwrap().path,
        d.join("fixed/llvm-link")
    );
    assert!(matches!(
        tc.tool("llvm-link").unwrap().found_by,
        FoundBy::Dir { .. }
    ));
    o.fixed_dirs = Some(vec![]);
    let tc = discover(dtk(), &o);
    assert_eq!(tc.tool("llvm-link").unwrap().path, d.join("path/llvm-link"));
    assert_eq!(tc.tool("llvm-link").unwrap().found_by, FoundBy::Path);

    // Nothing anywhere: every tool is missing, with an apt hint.
    o.env.clear();
    o.overrides.clear();
    let tc = discover(dtk(), &o);
    assert_eq!(tc.tools.len(), 0);
    assert_eq!(tc.missing.len(), 4);
    let lld = tc.missing.iter().find(|m| m.name == "ld.lld").unwrap();
    assert!(lld.install.contains("lld-19"), "{}", lld.install);
    let e = tc.require("llc", "mod.ptx").unwrap_err();
    assert_eq!(e.kind, wheelport::error::ErrorKind::Toolchain);
    assert!(e.to_string().starts_with("mod.ptx: `llc` is needed"), "{e}");
    assert!(e.to_string().contains("llvm-19"), "{e}");
}

#[test]
fn path_prefers_the_newest_complete_llvm() {
    let t = tempfile::tempdir().unwrap();
    let d = t.path();
    // PATH: unversioned tools of LLVM 13 and versioned llc-16 only.
    fake_root(&d.join("bin"), "", "13.0.0");
    fake_tool(&d.join("bin"), "llc-16", "16.0.6", &["amdgcn"]);
    // System trees: llvm-15 complete, llvm-18 without ld.lld.
    fake_root(&d.join("usrlib/llvm-15"), "bin", "15.0.7");
    for t in ["llc", "opt", "llvm-link"] {
        fake_tool(
            &d.join("usrlib/llvm-18/bin"),
            t,
            "18.1.8",
            &["amdgcn", "nvptx64"],
        );
    }
    let o = opts(&[("PATH", &d.join("bin"))], vec![], vec![d.join("usrlib")]);

    // The optional llvm-split: LLVM 18 has one, 15 not; it is never taken from another
    // major than the required tools, and its absence is not "missing".
    fake_tool(&d.join("usrlib/llvm-18/bin"), "llvm-split", "18.1.8", &[]);

    // dtk needs ld.lld too: 15 is the newest version with all four; no mixing.
    let tc = discover(dtk(), &o);
    assert!(tc.is_complete(), "{tc:?}");
    assert!(tc.tool("llvm-split").is_none(), "{tc:?}");
    fake_tool(&d.join("usrlib/llvm-15/bin"), "llvm-split", "15.0.7", &[]);
    let tc = discover(dtk(), &o);
    assert_eq!(
        tc.tool("llvm-split").unwrap().path,
        d.join("usrlib/llvm-15/bin/llvm-split")
    );
    std::fs::remove_file(d.join("usrlib/llvm-15/bin/llvm-split")).unwrap();
    let tc = discover(dtk(), &o);
    for t in &tc.tools {
        assert_eq!(t.version.unwrap().major, 15, "{t:?}");
        assert_eq!(t.path, d.join("usrlib/llvm-15/bin").join(&t.name));
    }
    // cuda needs no linker: 18 has all three.
    let cuda = wheelport::target::profile("cuda").unwrap();
    let tc = discover(cuda, &o);
    for t in &tc.tools {
        assert_eq!(t.version.unwrap().major, 18, "{t:?}");
    }
    // With only PATH, version 13 is complete there: it is used for all four tools.
    let o = opts(&[("PATH", &d.join("bin"))], vec![], vec![]);
    let tc = discover(dtk(), &o);
    assert_eq!(tc.tool("llc").unwrap().path, d.join("bin/llc"));
    // Without any complete version, each tool takes its newest: llc-16 over llc (13).
    std::fs::remove_file(d.join("bin/ld.lld")).unwrap();
    let tc = discover(dtk(), &o);
    assert_eq!(tc.tool("llc").unwrap().path, d.join("bin/llc-16"));
    assert_eq!(tc.tool("llc").unwrap().version.unwrap().major, 16);
    assert_eq!(tc.tool("opt").unwrap().path, d.join("bin/opt"));
    assert_eq!(tc.missing.len(), 1);
}

#[test]
fn llc_without_the_backend_is_missing() {
    let t = tempfile::tempdir().unwrap();
    let d = t.path();
    fake_root(&d.join("x"), "bin", "17.0.0");
    fake_tool(&d.join("x/bin"), "llc", "17.0.0", &["x86", "aarch64"]);
    let mut o = opts(&[], vec![], vec![]);
    o.toolchain_dir = Some(d.join("x"));
    let tc = discover(dtk(), &o);
    assert!(!tc.is_complete());
    let m = &tc.missing[0];
    assert_eq!(m.name, "llc");
    assert!(
        m.reason.contains("`amdgcn` backend") && m.reason.contains("x86 aarch64"),
        "{}",
        m.reason
    );
}

fn version_of(tool: &Path) -> String {
    let out = Command::new(tool).arg("--version").output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    text.lines()
        .find(|l| l.contains("version") || l.contains("LLD"))
        .unwrap()
        .trim()
        .to_string()
}

#[test]
fn real_llvm_19_is_found_and_preferred() {
    if common::require_llvm_tool("llc", "real_llvm_19_is_found_and_preferred").is_none() {
        return;
    }
    for target in ["dtk", "rocm", "cuda"] {
        let p = wheelport::target::profile(target).unwrap();
        let tc = discover(p, &SearchOptions::from_env());
        assert!(tc.is_complete(), "{target}: {tc:?}");
        for t in &tc.tools {
            // LLVM 19 is the newest installed here (14 is too): it must win.
            assert_eq!(t.version.unwrap().major, 19, "{target}: {t:?}");
            assert_eq!(t.version_line, version_of(&t.path), "{t:?}");
        }
        let llc = tc.tool("llc").unwrap();
        assert!(
            llc.targets.iter().any(|x| x == "amdgcn") && llc.targets.iter().any(|x| x == "nvptx64")
        );
    }
    // An explicit toolchain dir picks LLVM 14 instead.
    let mut o = SearchOptions::from_env();
    o.toolchain_dir = Some(PathBuf::from("/usr/lib/llvm-14"));
    if Path::new("/usr/lib/llvm-14/bin/llc").is_file() {
        let tc = discover(wheelport::target::profile("dtk").unwrap(), &o);
        assert_eq!(tc.tool("llc").unwrap().version.unwrap().major, 14);
        assert_eq!(
            tc.tool("llc").unwrap().path,
            PathBuf::from("/usr/lib/llvm-14/bin/llc")
        );
    }
}

#[test]
fn doctor_cli_reports_versions_and_missing_tools() {
    let (code, out, err) =
        common::run(Command::new(common::bin()).args(["doctor", "--target", "cuda", "--json"]));
    let v: serde_json::Value =
        serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out} {err}"));
    let tc = &v[0];
    assert_eq!(tc["target"], "cuda");
    if Path::new("/usr/lib/llvm-19/bin/llc").is_file() {
        assert_eq!(code, 0, "{err}");
        let llc = tc["tools"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == "llc")
            .unwrap();
        let path = PathBuf::from(llc["path"].as_str().unwrap());
        assert_eq!(llc["version_line"].as_str().unwrap(), version_of(&path));
        assert_eq!(llc["found_by"]["by"], "path");
    }
    // musa's mcc is not installed here: exit code 8 (TOOLS_MISSING) and the install hint.
    let (code, out, _) =
        common::run(Command::new(common::bin()).args(["doctor", "--target", "musa"]));
    assert_eq!(code, wheelport::cli::exit::TOOLS_MISSING as i32);
    assert!(
        out.contains("mcc") && out.contains("MISSING") && out.contains("MUSA_HOME"),
        "{out}"
    );
    // --tool override and --toolchain show up in the report.
    let t = tempfile::tempdir().unwrap();
    let fake = fake_tool(t.path(), "llc", "9.0.1", &["nvptx64"]);
    let (code, out, _) = common::run(
        Command::new(common::bin())
            .args(["doctor", "--target", "cuda", "--tool"])
            .arg(format!("llc={}", fake.display())),
    );
    assert!(
        out.contains(&format!("{} (9.0.1, via override)", fake.display())),
        "{out}"
    );
    let _ = code;
}

/// A tool started through `child_command` gets SIGKILL when the thread that started it
/// dies (PR_SET_PDEATHSIG), so a killed `wheelport batch` leaves no converter or
/// compiler still writing into its temporary directory.
#[cfg(target_os = "linux")]
#[test]
fn child_command_dies_with_the_thread_that_started_it() {
    let child = std::thread::spawn(|| {
        wheelport::toolchain::child_command("sleep")
            .arg("30")
            .spawn()
            .expect("sleep runs")
    })
    .join()
    .unwrap();
    let pid = child.id();
    let mut child = child;
    let t0 = std::time::Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        assert!(
            t0.elapsed() < std::time::Duration::from_secs(10),
            "pid {pid} still runs after the thread that started it ended"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(status.signal(), Some(libc::SIGKILL), "{status:?}");
}

/// Fedora's versioned LLVM packages (`llvm19`) install under `/usr/lib64/llvm19/bin`: a
/// system root holding `llvmN` trees is searched like Debian's `llvm-N`, newest first.
#[test]
fn fedora_style_llvm_trees_are_found() {
    let t = tempfile::tempdir().unwrap();
    let lib64 = t.path().join("lib64");
    fake_root(&lib64.join("llvm18"), "bin", "18.1.8");
    fake_root(&lib64.join("llvm19"), "bin", "19.1.7");
    let o = opts(&[], vec![], vec![lib64.clone()]);
    let tc = discover(dtk(), &o);
    assert!(tc.is_complete(), "{tc:?}");
    for name in DTK_TOOLS {
        let tool = tc.tool(name).unwrap();
        assert_eq!(tool.path, lib64.join("llvm19/bin").join(name));
        assert_eq!(tool.found_by, FoundBy::Path);
        assert_eq!(tool.version.unwrap().to_string(), "19.1.7");
    }
    assert!(tc.install.is_empty() && tc.vendor.is_empty());
}
