//! The README's Install lines (the installed command), followed literally in a fresh Debian 12 root: a debootstrap
//! `minbase` root from Debian's packages (`tools/debian-root.sh`, cached as a tar file named by
//! `$WHEELPORT_DEBIAN_ROOT`), unpacked anew for this run, with no Python, no compiler and no
//! LLVM. Every line of the Install section's `sh` block runs in it, in a
//! folder holding the demo wheel at its `fixtures/` path; the main job must exit 0 and write
//! the converted wheel. Then LLVM is removed again: `wheelport doctor --target dtk` must exit
//! 8 naming the apt command, the main job exit 5 naming the missing tools, and after running
//! the command doctor printed, doctor must say `ready`.
//!
//! wheelport is not on PyPI yet: pip inside the root gets `PIP_NO_INDEX=1` and
//! `PIP_FIND_LINKS` pointing at the wheel `.ci/run` built (`$WHEELPORT_WHEEL_DIR`), which
//! stands in for the index; apt uses Debian's mirror as the root has it. Needs root (chroot,
//! mount); `/proc`, `/dev` and an apt download cache (`<tar dir>/apt-archives`) are bind
//! mounts, undone before the root is removed, also when the test fails. dpkg in the root runs
//! with `force-unsafe-io`, as in Debian's container images (installing pipx and LLVM took
//! 112 s instead of 170 s under a load average of 10).

mod common;

use common::*;
use std::path::{Path, PathBuf};
use std::process::Command;

const DEMO: &str = "wheelport_demo-0.1.0+cu13-py3-none-manylinux_2_28_x86_64.whl";

/// The lines of the first ```sh block under `## Install` in README.md (the installed
/// command; the quick start above it runs the same job from the clone with cargo).
fn quick_start() -> Vec<String> {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let sec = &readme[readme.find("\n## Install\n").expect("an Install section")..];
    let block = &sec[sec.find("```sh\n").expect("an sh block") + 6..];
    let block = &block[..block.find("```").unwrap()];
    block.lines().map(str::to_string).collect()
}

/// A root folder with bind mounts; dropping it unmounts them and removes the folder (without
/// crossing file systems), or leaves it and says so when an unmount fails.
struct Root {
    dir: PathBuf,
    mounts: Vec<PathBuf>,
}

impl Root {
    fn bind(&mut self, from: &Path, to: &str) {
        let at = self.dir.join(to);
        std::fs::create_dir_all(&at).unwrap();
        let (code, _, err) = run(Command::new("mount").arg("--bind").arg(from).arg(&at));
        assert_eq!(
            code,
            0,
            "mount --bind {} {}: {err}",
            from.display(),
            at.display()
        );
        self.mounts.push(at);
    }

    /// Run `script` with bash in the root, in `/work`, with a clean environment.
    fn sh(&self, script: &str) -> (i32, String, String) {
        run(Command::new("chroot")
            .arg(&self.dir)
            .args(["/usr/bin/env", "-i"])
            .args([
                "HOME=/root",
                "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
                "LANG=C.UTF-8",
                "DEBIAN_FRONTEND=noninteractive",
                "PIP_NO_INDEX=1",
                "PIP_FIND_LINKS=/dist",
                "PIP_DISABLE_PIP_VERSION_CHECK=1",
            ])
            .args(["/bin/bash", "-e", "-c"])
            .arg(format!("cd /work\n{script}")))
    }
}

impl Drop for Root {
    fn drop(&mut self) {
        let mut ok = true;
        for m in self.mounts.iter().rev() {
            let done = Command::new("umount")
                .arg(m)
                .status()
                .is_ok_and(|s| s.success())
                || Command::new("umount")
                    .arg("-l")
                    .arg(m)
                    .status()
                    .is_ok_and(|s| s.success());
            ok &= done;
        }
        if ok {
            let _ = Command::new("rm")
                .args(["-rf", "--one-file-system"])
                .arg(&self.dir)
                .status();
        } else {
            eprintln!(
                "quickstart_debian: left {} (an unmount failed)",
                self.dir.display()
            );
        }
    }
}

fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

#[test]
fn readme_quick_start_in_a_fresh_debian_12_root() {
    let test = "quickstart_debian";
    let Some(tar) = std::env::var_os("WHEELPORT_DEBIAN_ROOT").map(PathBuf::from) else {
        missing::<()>(
            test,
            "WHEELPORT_DEBIAN_ROOT not set (tools/debian-root.sh makes the tar)",
        );
        return;
    };
    let Some(dist) = std::env::var_os("WHEELPORT_WHEEL_DIR").map(PathBuf::from) else {
        missing::<()>(
            test,
            "WHEELPORT_WHEEL_DIR not set (the folder with wheelport's wheel)",
        );
        return;
    };
    if !is_root() {
        missing::<()>(test, "not root (chroot and mount need it)");
        return;
    }
    let lines = quick_start();
    let job: Vec<&String> = lines.iter().collect();
    assert!(
        job.iter()
            .any(|l| l.contains(&format!("fixtures/wheels/{DEMO}"))),
        "{job:?}"
    );

    let dir = tempfile::Builder::new()
        .prefix("wheelport-debian12-")
        .tempdir()
        .unwrap()
        .keep();
    let mut chroot = Root {
        dir,
        mounts: Vec::new(),
    };
    let (code, _, err) = run(Command::new("tar")
        .arg("-C")
        .arg(&chroot.dir)
        .arg("-xf")
        .arg(&tar));
    assert_eq!(code, 0, "tar: {err}");
    chroot.bind(Path::new("/proc"), "proc");
    chroot.bind(Path::new("/dev"), "dev");
    let archives = tar.parent().unwrap().join("apt-archives");
    std::fs::create_dir_all(archives.join("partial")).unwrap();
    chroot.bind(&archives, "var/cache/apt/archives");
    std::fs::copy("/etc/resolv.conf", chroot.dir.join("etc/resolv.conf")).unwrap();
    // dpkg without an fsync per unpacked file, as in Debian's container images: the root is
    // thrown away after the test, and LLVM is unpacked twice.
    std::fs::write(
        chroot.dir.join("etc/dpkg/dpkg.cfg.d/unsafe-io"),
        "force-unsafe-io\n",
    )
    .unwrap();
    let wheels = chroot.dir.join("work/fixtures/wheels");
    std::fs::create_dir_all(&wheels).unwrap();
    std::fs::copy(root().join("fixtures/wheels").join(DEMO), wheels.join(DEMO)).unwrap();
    std::fs::create_dir_all(chroot.dir.join("dist")).unwrap();
    for e in std::fs::read_dir(&dist).unwrap().flatten() {
        let n = e.file_name();
        if n.to_string_lossy().starts_with("wheelport-") {
            std::fs::copy(e.path(), chroot.dir.join("dist").join(&n)).unwrap();
        }
    }

    // Fresh: no Python, no C compiler, no LLVM.
    let (code, out, _) = chroot.sh("command -v python3 gcc cc llc-19 || true");
    assert_eq!((code, out.as_str()), (0, ""), "the root is not fresh");

    // The quick start, line by line as the README has it.
    let (code, out, err) = chroot.sh(&job
        .iter()
        .map(|l| l.as_str())
        .collect::<Vec<_>>()
        .join("\n"));
    let tail = |s: &str| s.lines().rev().take(40).collect::<Vec<_>>().join("\n");
    assert_eq!(code, 0, "quick start: {}\n{}", tail(&out), tail(&err));
    assert!(
        out.contains("converted: all 2 kernels translated (exit 0)"),
        "{}",
        tail(&out)
    );
    let written = chroot
        .dir
        .join("work/out/wheelport_demo-0.1.0+dtk-py3-none-manylinux_2_28_x86_64.whl");
    assert!(written.is_file(), "{}", written.display());
    let (code, out, _) = chroot.sh("command -v gcc cc || true");
    assert_eq!(
        (code, out.as_str()),
        (0, ""),
        "a C compiler came with the quick start"
    );

    // Without LLVM: doctor names the command, the main job refuses, the command fixes it.
    let (code, _, err) = chroot.sh("apt-get remove -y -qq llvm-19 lld-19 >/dev/null");
    assert_eq!(code, 0, "{err}");
    let (code, out, err) = chroot.sh("pipx run wheelport doctor --target dtk");
    assert_eq!(
        code,
        wheelport::cli::exit::TOOLS_MISSING as i32,
        "{out}{err}"
    );
    let prefix = "  install on Debian GNU/Linux 12 (bookworm) (as root): ";
    let cmd = out
        .lines()
        .find_map(|l| l.strip_prefix(prefix))
        .unwrap_or_else(|| panic!("no install line: {out}"));
    assert_eq!(cmd, "apt-get install -y lld-19 llvm-19");
    let (code, out, err) = chroot.sh(&format!(
        "pipx run wheelport fixtures/wheels/{DEMO} --target dtk -o out2/"
    ));
    assert_eq!(
        code,
        wheelport::cli::exit::UNTRANSLATED as i32,
        "{out}{err}"
    );
    assert!(out.contains("apt-get install llvm-19"), "{out}");
    let (code, _, err) = chroot.sh(&format!("{cmd} -qq >/dev/null"));
    assert_eq!(code, 0, "{err}");
    let (code, out, err) = chroot.sh("pipx run wheelport doctor --target dtk");
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.starts_with("dtk (") && out.lines().next().unwrap().ends_with(": ready"),
        "{out}"
    );
}
