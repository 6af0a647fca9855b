//! ZIP64: wheels with a member over 4 GiB, and wheels over 4 GiB, are written so that
//! `uv pip install`, `pip install` and `installer` (validating every RECORD row) install them.
//!
//! Inputs are written by Python's `zipfile` (`tests/zip64_support/big_wheel.py`): a 4.1 GiB
//! member of zeros, stored (the wheel is a sparse file, so it takes no disk) or deflated
//! (19 MB). They go through `wheelport convert`, which raw-copies the member; a third case
//! replaces a member by a 4.1 GiB precompressed one (the path of a rewritten `.so`) through
//! [`wheelport::wheel::repack::repack_with`]. The stored case also makes the archive itself
//! pass 4 GiB (the `.dist-info` members lie past it), so it needs ZIP64 offsets and end records.
//!
//! Bounded cost: uv and pip really install (4.1 GiB written and removed at once, one at a
//! time); installer runs through its own API with the big member streamed to `/dev/null`
//! (`tests/zip64_support/install_discarding.py`), so it reads, CRC-checks and hashes it
//! without writing it. Peak disk use is about 9 GB (the stored output wheel and one install).
//! `WHEELPORT_ZIP64=0` skips the test with a loud SKIP (never under CI).

mod common;
mod convert_support;

use common::*;
use convert_support::pytools;
use sha2::{Digest, Sha256};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

/// 4.1 GiB.
const BIG: u64 = (41 << 30) / 10;
const MEMBER: &str = "bigpkg/big.bin";

fn support(name: &str) -> PathBuf {
    root().join("tests/zip64_support").join(name)
}

/// Write the input wheel with Python's zipfile (`hash`: the RECORD hash of big.bin).
fn big_wheel(dir: &Path, method: &str, hash: &str) -> PathBuf {
    let (code, out, err) = run(Command::new("python3")
        .arg(support("big_wheel.py"))
        .arg(dir)
        .arg(BIG.to_string())
        .arg(method)
        .arg(hash));
    assert_eq!(code, 0, "big_wheel.py {method}: {err}");
    PathBuf::from(out.trim())
}

fn record_hash(h: Sha256) -> String {
    use base64::Engine;
    format!(
        "sha256={}",
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(h.finalize())
    )
}

/// The size that Python's zipfile reads from the central directory for `member`, and the
/// ZIP64 extra field of its local header as stored (hex), read by Python.
fn zip_view(wheel: &Path, member: &str) -> (u64, String) {
    let code = "import struct, sys, zipfile\n\
        z = zipfile.ZipFile(sys.argv[1]); i = z.getinfo(sys.argv[2])\n\
        f = open(sys.argv[1], 'rb'); f.seek(i.header_offset); h = f.read(30)\n\
        n, e = struct.unpack('<HH', h[26:30]); f.read(n); extra = f.read(e)\n\
        print(i.file_size, extra.hex())";
    let (c, out, err) = run(Command::new("python3")
        .arg("-c")
        .arg(code)
        .arg(wheel)
        .arg(member));
    assert_eq!(c, 0, "zipfile: {err}");
    let mut w = out.split_whitespace();
    (
        w.next().unwrap().parse().unwrap(),
        w.next().unwrap_or("").to_string(),
    )
}

/// Install `wheel` with uv, with pip when `pip` (each into a fresh target folder, removed
/// afterwards) and with installer through its API (the big member discarded); checks the big
/// member's size each time and its hash through installer.
fn install_all(wheel: &Path, work: &Path, tools: &Path, size: u64, hash: &str, pip: bool) {
    // uv.
    let t = Instant::now();
    let target = work.join("uv");
    let (code, _, err) = run(Command::new(tools.join("bin/uv"))
        .args([
            "pip",
            "install",
            "--no-deps",
            "--offline",
            "--no-cache",
            "--target",
        ])
        .arg(&target)
        .arg(wheel));
    assert_eq!(code, 0, "uv pip install {}: {err}", wheel.display());
    assert_eq!(
        std::fs::metadata(target.join(MEMBER)).unwrap().len(),
        size,
        "uv"
    );
    std::fs::remove_dir_all(&target).unwrap();
    eprintln!("  uv: {:.1} s", t.elapsed().as_secs_f64());
    // pip.
    let t = Instant::now();
    if pip {
        let target = work.join("pip");
        let (code, _, err) = run(Command::new("python3")
            .args([
                "-m",
                "pip",
                "install",
                "--quiet",
                "--no-deps",
                "--no-index",
                "--disable-pip-version-check",
                "--target",
            ])
            .arg(&target)
            .arg(wheel));
        assert_eq!(code, 0, "pip install {}: {err}", wheel.display());
        assert_eq!(
            std::fs::metadata(target.join(MEMBER)).unwrap().len(),
            size,
            "pip"
        );
        std::fs::remove_dir_all(&target).unwrap();
        eprintln!("  pip: {:.1} s", t.elapsed().as_secs_f64());
    }
    // installer: every RECORD row validated, then installed (big.bin to /dev/null).
    let t = Instant::now();
    let target = work.join("installer");
    let (code, out, err) = run(Command::new("python3")
        .arg(support("install_discarding.py"))
        .arg(wheel)
        .arg(&target)
        .arg(MEMBER)
        .env("PYTHONPATH", tools));
    assert_eq!(code, 0, "installer {}: {err}", wheel.display());
    assert_eq!(out.trim(), format!("{MEMBER} {size} {hash}"), "installer");
    assert!(target.join("bigpkg/__init__.py").is_file());
    std::fs::remove_dir_all(&target).unwrap();
    eprintln!("  installer: {:.1} s", t.elapsed().as_secs_f64());
}

fn enabled() -> Option<PathBuf> {
    if std::env::var("WHEELPORT_ZIP64").as_deref() == Ok("0") && std::env::var_os("CI").is_none() {
        eprintln!("SKIP zip64: WHEELPORT_ZIP64=0");
        return None;
    }
    require_tool("python3", "zip64")?;
    pytools()
}

#[test]
fn members_and_archives_past_4_gib_install() {
    let Some(tools) = enabled() else { return };
    let d = tempfile::tempdir().unwrap();
    let dir = d.path();
    // The hash of BIG zero bytes (big.bin), and of the same with a tail (the replacement).
    let t = Instant::now();
    let tail = b"wheelport";
    let mut h = Sha256::new();
    let chunk = vec![0u8; 1 << 24];
    let mut left = BIG;
    while left > 0 {
        let k = left.min(chunk.len() as u64) as usize;
        h.update(&chunk[..k]);
        left -= k as u64;
    }
    let mut with_tail = h.clone();
    with_tail.update(tail);
    let (hash, tail_hash) = (record_hash(h), record_hash(with_tail));
    eprintln!("hashes in {:.1} s", t.elapsed().as_secs_f64());

    for method in ["stored", "deflated"] {
        let t = Instant::now();
        let case = dir.join(method);
        std::fs::create_dir_all(&case).unwrap();
        let input = big_wheel(&case, method, &hash);
        // The input is a valid ZIP64 wheel (Python's view of it).
        assert_eq!(zip_view(&input, MEMBER).0, BIG);
        eprintln!(
            "{method}: input written in {:.1} s",
            t.elapsed().as_secs_f64()
        );
        let t = Instant::now();
        let out = case.join("out");
        let (code, stdout, err) = run(Command::new(bin())
            .arg("convert")
            .arg(&input)
            .args(["--target", "dtk", "-q", "-o"])
            .arg(&out));
        assert_eq!(code, 0, "{stdout}\n{err}");
        let wheel = out.join("bigpkg-1.0+dtk-py3-none-any.whl");
        eprintln!("{method}: converted in {:.1} s", t.elapsed().as_secs_f64());
        std::fs::remove_file(&input).unwrap();
        // The local header's ZIP64 extra field holds the real sizes (tag 1, 16 bytes:
        // uncompressed, then compressed), not zeros.
        let (size, extra) = zip_view(&wheel, MEMBER);
        assert_eq!(size, BIG);
        let usize_hex: String = BIG
            .to_le_bytes()
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        assert!(
            extra.starts_with(&format!("01001000{usize_hex}")),
            "{method}: local ZIP64 extra {extra}"
        );
        if method == "stored" {
            assert!(std::fs::metadata(&wheel).unwrap().len() > 1 << 32);
        }
        install_all(&wheel, &case, &tools, BIG, &hash, true);
        std::fs::remove_dir_all(&case).unwrap();
    }

    // A member replaced by a precompressed 4.1 GiB one (as a rewritten `.so` is written):
    // zeros with a marker at the end, deflated here as a stream. (pip reads it with the same
    // zipfile module as installer.)
    let t = Instant::now();
    let case = dir.join("precompressed");
    std::fs::create_dir_all(&case).unwrap();
    let input = big_wheel(&case, "small", &hash);
    let size = BIG + tail.len() as u64;
    let mut enc = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::fast());
    let mut crc = 0u32;
    let mut left = BIG;
    while left > 0 {
        let k = left.min(chunk.len() as u64) as usize;
        enc.write_all(&chunk[..k]).unwrap();
        crc = zlib_rs::crc32::crc32(crc, &chunk[..k]);
        left -= k as u64;
    }
    enc.write_all(tail).unwrap();
    crc = zlib_rs::crc32::crc32(crc, tail);
    let pre = wheelport::wheel::repack::Precompressed {
        deflated: enc.finish().unwrap(),
        crc32: crc,
        size,
        record_hash: tail_hash.clone(),
    };
    let plan = wheelport::wheel::repack::RepackPlan {
        local_label: "dtk".into(),
        precompressed: [(MEMBER.to_string(), pre)].into_iter().collect(),
        ..Default::default()
    };
    let out = case.join("out");
    let r = wheelport::wheel::repack::repack_with(&input, &out, &plan).unwrap();
    eprintln!(
        "precompressed: member deflated and wheel written in {:.1} s",
        t.elapsed().as_secs_f64()
    );
    assert_eq!(zip_view(&r.path, MEMBER).0, size);
    install_all(&r.path, &case, &tools, size, &tail_hash, false);
}
