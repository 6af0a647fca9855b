//! The offload bundle writer against LLVM 14's `clang-offload-bundler` (Debian's
//! clang-tools-14, installed by `.ci/run`), on real AMDGPU code objects built by `llc-14` and
//! `ld.lld-14` from a small kernel: byte-identical output, and the tool lists and unbundles
//! what wheelport writes.

mod common;

use common::*;
use std::process::Command;

#[test]
fn hip_bundle_matches_clang_offload_bundler() {
    let (Some(bundler), Some(_), Some(_)) = (
        llvm_tool("clang-offload-bundler"),
        llvm_tool("llc"),
        llvm_tool("ld.lld"),
    ) else {
        return;
    };
    let d = tempfile::tempdir().unwrap();
    let dir = d.path();
    let a = amdgpu_code_object(dir, "gfx906").unwrap();
    let b = amdgpu_code_object(dir, "gfx908").unwrap();
    let ours = wheelport::bundle::write_hip(&[("gfx906", &a), ("gfx908", &b)]);
    // The tool's bundle of the same objects.
    let (c, _, e) = run(Command::new(&bundler)
        .args([
            "-type=o",
            "-bundle-align=4096",
            "-targets=host-x86_64-unknown-linux-gnu,hipv4-amdgcn-amd-amdhsa--gfx906,hipv4-amdgcn-amd-amdhsa--gfx908",
            "-inputs=/dev/null,k-gfx906.co,k-gfx908.co",
            "-outputs=tool.hipfb",
        ])
        .current_dir(dir));
    assert_eq!(c, 0, "{e}");
    let tool = std::fs::read(dir.join("tool.hipfb")).unwrap();
    assert!(
        ours == tool,
        "bundle differs from clang-offload-bundler's ({} vs {} bytes)",
        ours.len(),
        tool.len()
    );
    // The tool reads ours back.
    std::fs::write(dir.join("ours.hipfb"), &ours).unwrap();
    let (c, out, e) = run(Command::new(&bundler)
        .args(["-list", "-type=o", "-inputs=ours.hipfb"])
        .current_dir(dir));
    assert_eq!(c, 0, "{e}");
    let mut listed: Vec<&str> = out.lines().collect();
    listed.sort();
    assert_eq!(
        listed,
        vec![
            "hipv4-amdgcn-amd-amdhsa--gfx906",
            "hipv4-amdgcn-amd-amdhsa--gfx908",
            "host-x86_64-unknown-linux-gnu"
        ]
    );
    let (c, _, e) = run(Command::new(&bundler)
        .args([
            "-unbundle",
            "-type=o",
            "-targets=hipv4-amdgcn-amd-amdhsa--gfx908",
            "-inputs=ours.hipfb",
            "-outputs=back.co",
        ])
        .current_dir(dir));
    assert_eq!(c, 0, "{e}");
    assert_eq!(std::fs::read(dir.join("back.co")).unwrap(), b);
    // Our reader: host entry first and empty, objects 4096-aligned.
    let entries = wheelport::bundle::read(&ours, "ours.hipfb").unwrap();
    assert_eq!(entries.len(), 3);
    assert_eq!(
        (entries[0].id.as_str(), entries[0].size),
        ("host-x86_64-unknown-linux-gnu", 0)
    );
    assert!(entries.iter().all(|e| e.offset % 4096 == 0));
    assert_eq!(entries[2].size as usize, b.len());
}

#[test]
fn malformed_bundles_are_refused() {
    let mut b = wheelport::bundle::write_hip(&[("gfx906", b"\x7fELF0123456789")]);
    assert!(wheelport::bundle::read(&b[..20], "x")
        .unwrap_err()
        .message
        .contains("not a clang offload bundle"));
    let n = b.len();
    b.truncate(n - 4);
    let e = wheelport::bundle::read(&b, "x").unwrap_err();
    assert!(e.message.contains("outside the bundle"), "{e}");
}
