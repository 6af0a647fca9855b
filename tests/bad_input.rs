//! Bad input: truncated, corrupt and hostile files give a clear error that names the file
//! and the offset, exit code 1, and no panic.

mod common;

use common::*;
use std::path::{Path, PathBuf};
use std::process::Command;
use wheelport::fatbin::{Compression, EntryKind};

struct Located {
    data: Vec<u8>,
    /// File offset of the section header of `.nv_fatbin`.
    shdr: usize,
    /// (entry offset, kind, compression, payload offset, stored len) of every entry.
    entries: Vec<(u64, EntryKind, Compression, u64, u64)>,
    containers: Vec<u64>,
}

fn locate(fixture: &str) -> Located {
    let path = root().join("fixtures/cuda").join(fixture);
    let data = std::fs::read(&path).unwrap();
    let so = wheelport::elf::scan(&data, fixture).unwrap();
    let secs = wheelport::fatbin::parse_object_sections(&data, &so, fixture).unwrap();
    let (sec, cs) = secs.iter().find(|(s, _)| s.name == ".nv_fatbin").unwrap();
    let entries = cs
        .iter()
        .flat_map(|c| c.entries.iter())
        .map(|e| {
            (
                e.offset,
                e.kind(),
                e.compression(),
                e.payload_offset(),
                e.stored.len() as u64,
            )
        })
        .collect();
    let containers = cs.iter().map(|c| c.offset).collect();
    // Find the section header whose sh_offset is the section's.
    let shoff = u64::from_le_bytes(data[0x28..0x30].try_into().unwrap()) as usize;
    let shnum = u16::from_le_bytes([data[0x3c], data[0x3d]]) as usize;
    let shdr = (0..shnum)
        .map(|i| shoff + i * 64)
        .find(|&h| u64::from_le_bytes(data[h + 0x18..h + 0x20].try_into().unwrap()) == sec.offset)
        .unwrap();
    Located {
        data: data.clone(),
        shdr,
        entries,
        containers,
    }
}

fn write_tmp(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

/// Run inspect on `path`; require exit 1, the file name and `at offset 0x<expected>` (when
/// given) in stderr, the `needle` text, and no panic.
fn expect_error(path: &Path, offset: Option<u64>, needle: &str) -> String {
    let (code, _out, err) = run(Command::new(bin()).arg("inspect").arg(path));
    assert_eq!(code, 1, "exit code for {}: stderr: {err}", path.display());
    assert!(!err.contains("panicked"), "panic: {err}");
    assert!(
        err.contains(&path.display().to_string()),
        "file not named: {err}"
    );
    if let Some(o) = offset {
        assert!(
            err.contains(&format!("at offset {o:#x}")),
            "offset {o:#x} not named: {err}"
        );
    }
    assert!(err.contains(needle), "expected {needle:?} in: {err}");
    // The JSON report carries the same error.
    let (code, out, _) = run(Command::new(bin()).args(["inspect", "--json"]).arg(path));
    assert_eq!(code, 1);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!(out.contains(needle), "JSON lacks the error: {v}");
    err
}

#[test]
fn truncated_elf() {
    let l = locate("sass_ptx.so");
    let dir = tempfile::tempdir().unwrap();
    let cut = l.data.len() / 2;
    let p = write_tmp(dir.path(), "truncated.so", &l.data[..cut]);
    let shoff = u64::from_le_bytes(l.data[0x28..0x30].try_into().unwrap());
    expect_error(&p, Some(shoff), "truncated");
    let p = write_tmp(dir.path(), "tiny.so", &l.data[..40]);
    expect_error(&p, Some(0), "truncated ELF header");
    let p = write_tmp(
        dir.path(),
        "notelf.so",
        b"hello, this is not an ELF file at all, but it is long enough to matter............",
    );
    expect_error(&p, Some(0), "not an ELF file");
}

#[test]
fn truncated_fatbin_section() {
    let mut l = locate("sass_ptx.so");
    // Shrink .nv_fatbin's sh_size so that the last container is cut short.
    let size_at = l.shdr + 0x20;
    let size = u64::from_le_bytes(l.data[size_at..size_at + 8].try_into().unwrap());
    l.data[size_at..size_at + 8].copy_from_slice(&(size - 0x100).to_le_bytes());
    let dir = tempfile::tempdir().unwrap();
    let p = write_tmp(dir.path(), "cut.so", &l.data);
    let last = *l.containers.last().unwrap();
    expect_error(&p, Some(last), "remain in the section");
}

#[test]
fn wrong_container_magic() {
    let mut l = locate("sass_ptx.so");
    let c = l.containers[1] as usize;
    l.data[c..c + 4].copy_from_slice(&0xdeadbeefu32.to_le_bytes());
    let dir = tempfile::tempdir().unwrap();
    let p = write_tmp(dir.path(), "magic.so", &l.data);
    expect_error(
        &p,
        Some(l.containers[1]),
        "wrong fatbin container magic 0xdeadbeef",
    );
}

#[test]
fn entry_past_section_end() {
    let mut l = locate("sass_ptx.so");
    let (e, ..) = l.entries[1];
    let at = e as usize + 8;
    l.data[at..at + 8].copy_from_slice(&0x10_0000u64.to_le_bytes());
    let dir = tempfile::tempdir().unwrap();
    let p = write_tmp(dir.path(), "past.so", &l.data);
    expect_error(&p, Some(e), "runs past the container end");
    // A header size past the container is refused too.
    let mut l = locate("sass_ptx.so");
    let at = e as usize + 4;
    l.data[at..at + 4].copy_from_slice(&0xffff_fff0u32.to_le_bytes());
    let p = write_tmp(dir.path(), "hs.so", &l.data);
    expect_error(&p, Some(e), "header size");
}

#[test]
fn lying_compressed_sizes() {
    for fixture in ["lz4.so", "zstd_all.so"] {
        let l = locate(fixture);
        let dir = tempfile::tempdir().unwrap();
        let (e, kind, comp, payload, _) =
            *l.entries.iter().find(|x| x.1 == EntryKind::Ptx).unwrap();
        assert_ne!(comp, Compression::None);
        // uncompressed_size (+0x38) one byte larger than the data expands to.
        let mut d = l.data.clone();
        let at = e as usize + 0x38;
        let v = u64::from_le_bytes(d[at..at + 8].try_into().unwrap());
        d[at..at + 8].copy_from_slice(&(v + 1).to_le_bytes());
        let p = write_tmp(dir.path(), "plus1.so", &d);
        expect_error(&p, Some(payload), "declares");
        // An absurd declared size is refused before allocation.
        let mut d = l.data.clone();
        d[at..at + 8].copy_from_slice(&(1u64 << 40).to_le_bytes());
        let p = write_tmp(dir.path(), "absurd.so", &d);
        expect_error(&p, Some(payload), "absurd");
        // compressed_size (+0x10) larger than the reserved payload.
        let mut d = l.data.clone();
        let at = e as usize + 0x10;
        d[at..at + 4].copy_from_slice(&0x7fff_ffffu32.to_le_bytes());
        let p = write_tmp(dir.path(), "csize.so", &d);
        expect_error(&p, Some(e + 0x10), "compressed size");
        let _ = kind;
    }
}

#[test]
fn garbage_compressed_payloads() {
    for (fixture, needle) in [("lz4.so", "LZ4"), ("zstd_all.so", "zstd")] {
        let l = locate(fixture);
        let dir = tempfile::tempdir().unwrap();
        for (i, &(_, kind, _, payload, stored)) in l.entries.iter().enumerate() {
            let mut d = l.data.clone();
            let a = payload as usize;
            for (k, b) in d[a..a + stored as usize].iter_mut().enumerate() {
                *b = (k as u8).wrapping_mul(37) ^ 0xa5;
            }
            let p = write_tmp(dir.path(), &format!("garbage{i}.so"), &d);
            let err = expect_error(&p, Some(payload), needle);
            assert!(
                err.contains("corrupt") || err.contains("expands") || err.contains("declares"),
                "{kind:?}: {err}"
            );
        }
    }
}

fn write_wheel(path: &Path, members: &[(&str, &[u8])]) {
    let f = std::fs::File::create(path).unwrap();
    let mut z = zip::ZipWriter::new(f);
    for (name, data) in members {
        z.start_file(
            *name,
            zip::write::SimpleFileOptions::default()
                .compression_method(zip::CompressionMethod::Stored),
        )
        .unwrap();
        std::io::Write::write_all(&mut z, data).unwrap();
    }
    z.finish().unwrap();
}

#[test]
fn wheel_with_parent_dir_member() {
    let dir = tempfile::tempdir().unwrap();
    let so = std::fs::read(root().join("fixtures/cuda/sass_ptx.so")).unwrap();
    let p = dir.path().join("evil-1.0-py3-none-any.whl");
    write_wheel(
        &p,
        &[
            ("evil-1.0.dist-info/WHEEL", b"Wheel-Version: 1.0\n"),
            ("../../evil.so", &so),
        ],
    );
    let err = expect_error(&p, None, "escapes the installation directory");
    assert!(err.contains("../../evil.so"), "{err}");
    assert!(err.contains("at offset 0x"), "{err}");
    let p = dir.path().join("abs-1.0-py3-none-any.whl");
    write_wheel(&p, &[("/etc/evil.so", &so)]);
    expect_error(&p, None, "escapes the installation directory");
}

#[test]
fn wheel_member_larger_than_declared() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("bomb-1.0-py3-none-any.whl");
    let body = vec![0x41u8; 4096];
    write_wheel(&p, &[("bomb/x.so", &body)]);
    // Patch the declared uncompressed size (local header +22, central directory +24) to 16.
    let mut d = std::fs::read(&p).unwrap();
    d[22..26].copy_from_slice(&16u32.to_le_bytes());
    let cd = d.windows(4).rposition(|w| w == b"PK\x01\x02").unwrap();
    d[cd + 24..cd + 28].copy_from_slice(&16u32.to_le_bytes());
    std::fs::write(&p, &d).unwrap();
    let (code, _o, err) = run(Command::new(bin()).arg("inspect").arg(&p));
    assert_eq!(code, 1, "{err}");
    assert!(!err.contains("panicked"), "{err}");
    assert!(
        err.contains("bomb/x.so") && err.contains(&p.display().to_string()),
        "{err}"
    );
}

#[test]
fn not_a_zip() {
    let dir = tempfile::tempdir().unwrap();
    let p = write_tmp(
        dir.path(),
        "broken-1.0-py3-none-any.whl",
        b"PK\x03\x04 this is not really a zip",
    );
    expect_error(&p, None, "not a valid wheel");
}
