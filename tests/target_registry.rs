//! Targets are a registry of profiles: a new profile file is a new target, with no code edit.
//!
//! A temporary copy of `targets/` gets one more profile, a copy of `rocm.toml` renamed
//! `mi300` that builds for gfx942. With `WHEELPORT_TARGETS_DIR` pointing at the copy,
//! `wheelport doctor` lists it, and `wheelport convert --target mi300` converts the demo wheel:
//! exit 0, and the converted `.so`'s `.hip_fatbin` is a clang offload bundle whose code object
//! is for gfx942 (the processor `llvm-readelf -h` reads from its `e_flags`, the oracle).

mod common;

use common::*;
use std::process::Command;

fn demo() -> std::path::PathBuf {
    root().join("fixtures/wheels/wheelport_demo-0.1.0+cu13-py3-none-manylinux_2_28_x86_64.whl")
}

#[test]
fn a_new_profile_file_is_a_new_target() {
    const T: &str = "target_registry";
    let Some(readelf) = require_llvm_tool("llvm-readelf", T) else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let targets = tmp.path().join("targets");
    std::fs::create_dir_all(targets.join("families")).unwrap();
    for sub in ["", "families"] {
        for e in std::fs::read_dir(root().join("targets").join(sub)).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "toml") {
                std::fs::copy(&p, targets.join(sub).join(p.file_name().unwrap())).unwrap();
            }
        }
    }
    let rocm = std::fs::read_to_string(root().join("targets/rocm.toml")).unwrap();
    let mine = rocm
        .replace("name = \"rocm\"", "name = \"mi300\"")
        .replace(
            "description = \"AMD ROCm",
            "description = \"AMD Instinct MI300 (ROCm",
        )
        .replace(
            "default_archs = [\"gfx906\"]",
            "default_archs = [\"gfx942\"]",
        );
    assert_ne!(mine, rocm);
    std::fs::write(targets.join("mi300.toml"), mine).unwrap();

    // doctor lists it, with its description and tools.
    let (code, out, err) = run(Command::new(bin())
        .env("WHEELPORT_TARGETS_DIR", &targets)
        .args(["doctor", "--target", "mi300"]));
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(out.starts_with("mi300 (AMD Instinct MI300"), "{out}");
    assert!(out.contains("ld.lld"), "{out}");
    let (_, all, _) = run(Command::new(bin())
        .env("WHEELPORT_TARGETS_DIR", &targets)
        .arg("doctor"));
    for n in ["cuda", "dtk", "mi300", "musa", "rocm"] {
        assert!(all.contains(&format!("\n{n} (")) || all.starts_with(&format!("{n} (")));
    }
    // Without the folder, the target does not exist.
    let (code, _, err) = run(Command::new(bin()).args(["doctor", "--target", "mi300"]));
    assert_eq!(code, 2, "{err}");

    // convert: the demo wheel for gfx942.
    let out_dir = tmp.path().join("out");
    let (code, out, err) = run(Command::new(bin())
        .env("WHEELPORT_TARGETS_DIR", &targets)
        .env("WHEELPORT_NO_CACHE", "1")
        .arg(demo())
        .args(["--target", "mi300", "-q", "-o"])
        .arg(&out_dir));
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(out.contains("target mi300 (gfx942)"), "{out}");
    let wheel = std::fs::read_dir(&out_dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|x| x == "whl"))
        .expect("a wheel was written");
    assert!(
        wheel.to_string_lossy().contains("+mi300-"),
        "{}",
        wheel.display()
    );
    let sos = extract_shared_objects(&wheel, tmp.path());
    let (_, so) = sos
        .iter()
        .find(|(n, _)| n.ends_with("_kernels.so"))
        .expect("the extension");
    let data = std::fs::read(so).unwrap();
    let obj = object::File::parse(&*data).unwrap();
    use object::{Object, ObjectSection};
    let sec = obj.section_by_name(".hip_fatbin").expect(".hip_fatbin");
    let bundle = sec.data().unwrap();
    let entries = wheelport::bundle::read(bundle, "hip_fatbin").unwrap();
    let ids: Vec<&str> = entries.iter().map(|e| e.id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "host-x86_64-unknown-linux-gnu",
            "hipv4-amdgcn-amd-amdhsa--gfx942"
        ]
    );
    let co = &entries[1];
    let co_path = tmp.path().join("k.co");
    std::fs::write(
        &co_path,
        &bundle[co.offset as usize..(co.offset + co.size) as usize],
    )
    .unwrap();
    let (code, hdr, err) = run(Command::new(readelf).arg("-h").arg(&co_path));
    assert_eq!(code, 0, "{err}");
    let flags = hdr
        .lines()
        .find(|l| l.trim_start().starts_with("Flags:"))
        .unwrap_or("");
    assert!(flags.contains(" gfx942"), "{hdr}");
}
