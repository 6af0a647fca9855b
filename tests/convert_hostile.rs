//! Hostile and lying wheels: `wheelport convert` refuses each with exit 1, an error that
//! names the wheel, the member and the byte offset, and writes no output file (the output
//! folder is not even created). The wheels are made from the demo wheel with Python's
//! `zipfile` (which, unlike the `zip` crate, writes duplicate names).

mod common;
mod convert_support;

use common::*;
use convert_support::*;
use std::path::{Path, PathBuf};
use std::process::Command;

fn demo() -> PathBuf {
    root().join("fixtures/wheels/wheelport_demo-0.1.0+cu13-py3-none-manylinux_2_28_x86_64.whl")
}

/// Copy the demo wheel to `dir` under its own name, with `edit` (Python code working on
/// `members`, a list of [name, bytes] pairs) applied.
fn craft(dir: &Path, edit: &str) -> PathBuf {
    let out = dir.join(demo().file_name().unwrap());
    let script = format!(
        r#"
import sys, zipfile, warnings, hashlib, base64
warnings.simplefilter("ignore")
src, dst = sys.argv[1], sys.argv[2]
zin = zipfile.ZipFile(src)
members = [[i.filename, zin.read(i.filename)] for i in zin.infolist()]
def record_row(name, data):
    h = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return "%s,sha256=%s,%d" % (name, h, len(data))
{edit}
with zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as z:
    for name, data in members:
        z.writestr(name, data)
"#
    );
    let (code, _, err) = run(Command::new("python3")
        .arg("-c")
        .arg(script)
        .arg(demo())
        .arg(&out));
    assert_eq!(code, 0, "{err}");
    out
}

/// Convert `whl` with `--allow-partial` (so only the hostility can stop it); check exit 1,
/// the message, and that nothing was written.
fn refused(whl: &Path, dir: &Path, expect: &[&str]) -> String {
    let out = dir.join("out");
    let (code, stdout, err) = convert(&[
        whl.as_os_str(),
        "--target".as_ref(),
        "dtk".as_ref(),
        "-o".as_ref(),
        out.as_os_str(),
        "--allow-partial".as_ref(),
    ]);
    assert_eq!(code, 1, "{stdout}\n{err}");
    assert!(err.contains(&whl.display().to_string()), "{err}");
    for e in expect {
        assert!(err.contains(e), "expected {e:?} in: {err}");
    }
    assert!(!out.exists(), "{:?}", files_in(&out));
    err
}

#[test]
fn zip_slip_member() {
    let d = tempfile::tempdir().unwrap();
    let w = craft(
        d.path(),
        r#"members.insert(0, ["../../evil.py", b"import os\n"])"#,
    );
    refused(
        &w,
        d.path(),
        &["at offset 0x0:", "\"../../evil.py\"", "escapes"],
    );
}

#[test]
fn duplicate_member_names() {
    let d = tempfile::tempdir().unwrap();
    let w = craft(
        d.path(),
        r#"members.insert(1, ["wheelport_demo/__init__.py", b"print('the other copy')\n"])"#,
    );
    refused(
        &w,
        d.path(),
        &[
            "wheelport_demo/__init__.py",
            "appears twice",
            "at offset 0x",
        ],
    );
}

#[test]
fn record_lies_about_a_hash() {
    let d = tempfile::tempdir().unwrap();
    // The Python file changes, RECORD keeps the old hash.
    let w = craft(
        d.path(),
        r#"members[0][1] = members[0][1].replace(b"import", b"import  ", 1)
members[0][1] = members[0][1][:1318] if len(members[0][1]) > 1318 else members[0][1]"#,
    );
    let err = refused(&w, d.path(), &["wheelport_demo/__init__.py", "RECORD says"]);
    assert!(err.contains("at offset 0x0:"), "{err}");
}

#[test]
fn record_lies_about_the_shared_object() {
    let d = tempfile::tempdir().unwrap();
    let w = craft(
        d.path(),
        r#"so = bytearray(members[1][1]); so[-1] ^= 1; members[1][1] = bytes(so)"#,
    );
    refused(
        &w,
        d.path(),
        &[
            "wheelport_demo/_kernels.so",
            "RECORD says sha256=",
            "at offset 0x",
        ],
    );
}

#[test]
fn record_lies_about_a_size() {
    let d = tempfile::tempdir().unwrap();
    let w = craft(
        d.path(),
        r#"rec = [m for m in members if m[0].endswith("/RECORD")][0]
rec[1] = rec[1].replace(b",1318\n", b",1319\n")"#,
    );
    refused(
        &w,
        d.path(),
        &[
            "wheelport_demo/__init__.py",
            "RECORD says 1319 bytes, the member has 1318",
        ],
    );
}

/// Python code rewriting every hashed RECORD row with hashlib's `alg` (what an installer
/// checks them with).
fn rehash(alg: &str) -> String {
    format!(
        r#"rec = [m for m in members if m[0].endswith("/RECORD")][0]
rows = []
for line in rec[1].decode().splitlines():
    path, h, size = line.rsplit(",", 2)
    if h:
        data = [m for m in members if m[0] == path][0][1]
        h = "{alg}=" + base64.urlsafe_b64encode(hashlib.new("{alg}", data).digest()).rstrip(b"=").decode()
    rows.append("%s,%s,%s" % (path, h, size))
rec[1] = ("\n".join(rows) + "\n").encode()"#
    )
}

/// RECORD rows in every algorithm hashlib guarantees and the wheel specification permits are
/// checked, not only sha256's: the wheel converts with rows hashlib wrote, and a changed
/// member (a raw-copied Python file, the converted shared object) is refused naming the
/// algorithm; the output's RECORD is sha256 again.
#[test]
fn record_in_every_permitted_algorithm_is_checked() {
    let Some(_) = require_toolchain("dtk", "convert_hostile") else {
        return;
    };
    for alg in [
        "sha224", "sha384", "sha512", "sha3_224", "sha3_256", "sha3_384", "sha3_512", "blake2b",
        "blake2s",
    ] {
        let d = tempfile::tempdir().unwrap();
        let w = craft(d.path(), &rehash(alg));
        let out = d.path().join("ok");
        let (code, o, e) = convert(&[
            w.as_os_str(),
            "--target".as_ref(),
            "dtk".as_ref(),
            "-o".as_ref(),
            out.as_os_str(),
        ]);
        assert_eq!(code, 0, "{alg}: {o}{e}");
        let whl = files_in(&out)
            .into_iter()
            .find(|p| p.extension().is_some_and(|x| x == "whl"));
        let mut r = wheelport::wheel::WheelReader::open(&whl.unwrap()).unwrap();
        let name = r
            .member_names()
            .into_iter()
            .find(|n| n.ends_with(".dist-info/RECORD"))
            .unwrap();
        let record = String::from_utf8(r.read_member(&name).unwrap()).unwrap();
        assert!(
            record
                .lines()
                .all(|l| l.ends_with(",,") || l.contains(",sha256=")),
            "{alg}: {record}"
        );
        for (member, edit) in [
            (
                "wheelport_demo/__init__.py",
                "members[0][1] = members[0][1].replace(b\"import\", b\"imporT\", 1)",
            ),
            (
                "wheelport_demo/_kernels.so",
                "so = bytearray(members[1][1]); so[-1] ^= 1; members[1][1] = bytes(so)",
            ),
        ] {
            let d = tempfile::tempdir().unwrap();
            let w = craft(d.path(), &format!("{}\n{edit}", rehash(alg)));
            refused(&w, d.path(), &[member, &format!("RECORD says {alg}=")]);
        }
    }
}

/// Rows the specification does not permit, or that cannot be true, are refused when RECORD
/// is read, naming the line.
#[test]
fn record_rows_that_cannot_be_checked_are_refused() {
    for (edit, expect) in [
        (
            rehash("md5"),
            vec!["RECORD", "line 1", "\"md5\" is too weak"],
        ),
        (
            rehash("shake_128").replace(".digest()", ".digest(16)"),
            vec!["\"shake_128\" has no fixed digest length"],
        ),
        (
            r#"rec = [m for m in members if m[0].endswith("/RECORD")][0]
rec[1] = rec[1].replace(b",sha256=", b",sha512=AAAA,0\nx,sha256=", 1)"#
                .to_string(),
            vec!["line 1", "sha512 digest of 3 bytes; sha512 digests have 64"],
        ),
        (
            r#"rec = [m for m in members if m[0].endswith("/RECORD")][0]
first = rec[1].split(b"\n")[0]
rec[1] = rec[1] + first.replace(b",sha256=", b",sha256=x") + b"\n""#
                .to_string(),
            vec!["wheelport_demo/__init__.py", "is listed twice (lines 1 and"],
        ),
    ] {
        let d = tempfile::tempdir().unwrap();
        let w = craft(d.path(), &edit);
        refused(&w, d.path(), &expect);
    }
}

#[test]
fn member_missing_from_record() {
    let d = tempfile::tempdir().unwrap();
    let w = craft(
        d.path(),
        r#"members.insert(1, ["wheelport_demo/extra.py", b"x = 1\n"])"#,
    );
    refused(
        &w,
        d.path(),
        &["wheelport_demo/extra.py", "not listed in RECORD"],
    );
}

#[test]
fn huge_declared_size() {
    let d = tempfile::tempdir().unwrap();
    let w = craft(d.path(), "");
    // Declare 3.9 GB for __init__.py in its local and central headers (APPNOTE 4.3.7 and
    // 4.3.12: uncompressed size at +22 and +24).
    let (local, central) = {
        let mut z = zip::ZipArchive::new(std::fs::File::open(&w).unwrap()).unwrap();
        let m = z.by_name("wheelport_demo/__init__.py").unwrap();
        (m.header_start() as usize, m.central_header_start() as usize)
    };
    let mut bytes = std::fs::read(&w).unwrap();
    let huge = 0xF000_0000u32.to_le_bytes();
    assert_eq!(&bytes[local..local + 4], b"PK\x03\x04");
    assert_eq!(&bytes[central..central + 4], b"PK\x01\x02");
    bytes[local + 22..local + 26].copy_from_slice(&huge);
    bytes[central + 24..central + 28].copy_from_slice(&huge);
    std::fs::write(&w, bytes).unwrap();
    refused(
        &w,
        d.path(),
        &[
            "wheelport_demo/__init__.py",
            "declares 4026531840 bytes",
            "more than deflate can expand",
            "at offset 0x0:",
        ],
    );
}

#[test]
fn untouched_crafted_copy_converts() {
    // The crafting itself is not what gets refused: an unedited copy converts.
    let d = tempfile::tempdir().unwrap();
    let w = craft(d.path(), "");
    let out = d.path().join("out");
    let (code, stdout, err) = convert(&[
        w.as_os_str(),
        "--target".as_ref(),
        "dtk".as_ref(),
        "-o".as_ref(),
        out.as_os_str(),
        "--allow-partial".as_ref(),
    ]);
    // 0 when every kernel was built, 6 (written, some kernels not translated) when the
    // device tools are missing: either way the wheel is written, nothing is refused.
    assert!(code == 0 || code == 6, "{stdout}\n{err}");
    assert_eq!(files_in(&out).len(), 1);
}

/// Inputs that are not regular files — a FIFO (whose open blocks until a writer comes) and a
/// symlink to `/dev/zero` (endless) — are refused before a byte is read, by `convert` and by
/// `inspect`: exit 1 within the time limit, the input and what it is named, nothing written.
#[test]
fn inputs_that_are_not_regular_files_are_refused() {
    let d = tempfile::tempdir().unwrap();
    let fifo = d.path().join("pipe.whl");
    let (code, _, e) = run(Command::new("mkfifo").arg(&fifo));
    assert_eq!(code, 0, "{e}");
    let zero_so = d.path().join("zero.so");
    std::os::unix::fs::symlink("/dev/zero", &zero_so).unwrap();
    let zero_whl = d.path().join("zero.whl");
    std::os::unix::fs::symlink("/dev/zero", &zero_whl).unwrap();
    for (input, what) in [
        (&fifo, "is a FIFO"),
        (&zero_so, "is a character device"),
        (&zero_whl, "is a character device"),
    ] {
        let out = d.path().join("out");
        for args in [
            vec![
                "convert".as_ref(),
                input.as_os_str(),
                "--target".as_ref(),
                "dtk".as_ref(),
                "-o".as_ref(),
                out.as_os_str(),
            ],
            vec!["inspect".as_ref(), input.as_os_str()],
        ] {
            // `timeout` keeps a regression from hanging the suite: 124 is a hang.
            let (code, o, e) = run(Command::new("timeout").arg("60").arg(bin()).args(&args));
            assert_eq!(code, 1, "{args:?}: {o}{e}");
            assert!(
                e.contains(&format!(
                    "{}: {what}; wheelport reads wheels and shared objects from regular files only",
                    input.display()
                )),
                "{args:?}: {e}"
            );
            assert!(!out.exists(), "{:?}", files_in(&out));
        }
    }
}

/// A second `.dist-info` folder (pip: "multiple .dist-info directories found") is refused:
/// which one an installer takes decides the metadata installed.
#[test]
fn two_dist_info_folders_are_refused() {
    let d = tempfile::tempdir().unwrap();
    let w = craft(
        d.path(),
        r#"extra = [[n.replace("wheelport_demo-0.1.0+cu13.dist-info", "other-1.0.dist-info"), b] for n, b in members if ".dist-info/" in n]
members.extend(extra)"#,
    );
    refused(
        &w,
        d.path(),
        &["2 .dist-info folders (other-1.0.dist-info, wheelport_demo-0.1.0+cu13.dist-info)"],
    );
}

/// `--json REPORT` is written through, as a shell redirection writes: a symlink's target gets
/// the report and the link stays a link; a FIFO gets the bytes (read by `cat`) and stays a
/// FIFO; `/dev/full` fails the command with its ENOSPC (exit 9, the environment), before the
/// summary line claiming an exit code is printed. (Before: the temporary-file-and-rename replaced the link and turned
/// the device path into a regular file, exit 0.)
#[test]
fn report_paths_are_written_through() {
    if require_toolchain("cuda", "convert_hostile").is_none() {
        return;
    }
    let d = tempfile::tempdir().unwrap();
    let run_with = |json: &Path, out: &str| {
        let out = d.path().join(out);
        run(Command::new(bin())
            .arg(demo())
            .args(["--target", "cuda", "-o"])
            .arg(&out)
            .arg("--json")
            .arg(json))
    };
    // A symlink to a kept report.
    let kept = d.path().join("kept.json");
    std::fs::write(&kept, "old\n").unwrap();
    let link = d.path().join("link.json");
    std::os::unix::fs::symlink("kept.json", &link).unwrap();
    let (code, o, e) = run_with(&link, "o1");
    assert_eq!(code, 0, "{o}{e}");
    assert!(std::fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&kept).unwrap()).unwrap();
    assert_eq!(v["schema"]["name"], "wheelport.convert");
    // A FIFO with a reader.
    let fifo = d.path().join("pipe.json");
    assert_eq!(run(Command::new("mkfifo").arg(&fifo)).0, 0);
    let reader = Command::new("cat")
        .arg(&fifo)
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let (code, o, e) = run_with(&fifo, "o2");
    assert_eq!(code, 0, "{o}{e}");
    let got = reader.wait_with_output().unwrap().stdout;
    let v: serde_json::Value = serde_json::from_slice(&got).unwrap();
    assert_eq!(v["schema"]["name"], "wheelport.convert");
    {
        use std::os::unix::fs::FileTypeExt;
        assert!(std::fs::metadata(&fifo).unwrap().file_type().is_fifo());
    }
    // A device that is always full.
    let (code, o, e) = run_with(Path::new("/dev/full"), "o3");
    assert_eq!(code, 9, "{o}{e}");
    assert!(e.contains("/dev/full: No space left on device"), "{e}");
    assert!(!o.contains("(exit 0)"), "{o}");
    {
        use std::os::unix::fs::FileTypeExt;
        assert!(std::fs::metadata("/dev/full")
            .unwrap()
            .file_type()
            .is_char_device());
    }
}

/// Outputs are planned before anything reaches `-o`: two inputs whose outputs have one name
/// are refused with nothing written (before: one was written, the other lost, and the run said
/// nothing was written); a shim library already in `-o` that differs from the one this
/// conversion needs (a rocm output's, converting for dtk) is refused and left as it was, so
/// the earlier output still loads (before: replaced, exit 0).
#[test]
fn outputs_are_planned_before_anything_is_written() {
    if require_toolchain("dtk", "convert_hostile").is_none()
        || require_toolchain("rocm", "convert_hostile").is_none()
    {
        return;
    }
    let d = tempfile::tempdir().unwrap();
    for (dir, fx) in [("a", "warp"), ("b", "mma")] {
        std::fs::create_dir(d.path().join(dir)).unwrap();
        std::fs::copy(
            root().join(format!("fixtures/gpu/{fx}_fixtures.so")),
            d.path().join(dir).join("x.so"),
        )
        .unwrap();
    }
    let (a, b) = (d.path().join("a/x.so"), d.path().join("b/x.so"));
    let conv = |inputs: &[&Path], target: &str, out: &Path| {
        let mut args: Vec<&std::ffi::OsStr> = inputs.iter().map(|p| p.as_os_str()).collect();
        args.extend([
            "--target".as_ref(),
            target.as_ref(),
            "-o".as_ref(),
            out.as_os_str(),
        ]);
        convert(&args)
    };
    let out = d.path().join("o1");
    let (code, o, e) = conv(&[&a, &b], "dtk", &out);
    assert_eq!(code, 1, "{o}{e}");
    assert!(
        o.contains(&format!(
            "{}: its output {} would have the name of {}'s",
            b.display(),
            out.join("x.so").display(),
            a.display()
        )),
        "{o}"
    );
    assert!(!out.exists(), "{:?}", files_in(&out));

    let out = d.path().join("o2");
    let (code, o, e) = conv(&[&a], "rocm", &out);
    assert_eq!(code, 0, "{o}{e}");
    let before: Vec<(PathBuf, Vec<u8>)> = files_in(&out)
        .into_iter()
        .map(|p| {
            let b = std::fs::read(&p).unwrap();
            (p, b)
        })
        .collect();
    assert_eq!(before.len(), 2, "{before:?}");
    let (code, o, e) = conv(&[&b], "dtk", &out);
    assert_eq!(code, 1, "{o}{e}");
    assert!(
        o.contains(&format!(
            "{}: is already there and differs from the dtk libwheelport_shim.so this conversion needs",
            out.join("libwheelport_shim.so").display()
        )),
        "{o}"
    );
    let after: Vec<(PathBuf, Vec<u8>)> = files_in(&out)
        .into_iter()
        .map(|p| {
            let b = std::fs::read(&p).unwrap();
            (p, b)
        })
        .collect();
    assert!(after == before, "the rocm output changed");
    // The same target again into the same folder: the shim is the same, the output replaced.
    let (code, o, e) = conv(&[&a], "rocm", &out);
    assert_eq!(code, 0, "{o}{e}");
}

/// Members whose data overlap (the overlapping-entry zip bomb: central entries sharing one
/// local header and deflate stream) are refused naming both and the offsets, as CPython's
/// zipfile and Info-ZIP refuse them (before: each copy was read and written out, exit 0).
#[test]
fn overlapping_members_are_refused() {
    let d = tempfile::tempdir().unwrap();
    let w = d.path().join(demo().file_name().unwrap());
    // A second central-directory entry, under a new name, for the first member's local header.
    let script = r#"
import struct, sys, zipfile
data = open(sys.argv[1], "rb").read()
eocd = data.rfind(b"PK\x05\x06")
n, cd_size, cd_off = struct.unpack("<HII", data[eocd + 10:eocd + 20])
cd = data[cd_off:cd_off + cd_size]
nlen, xlen, clen = struct.unpack("<HHH", cd[28:34])
name = b"wheelport_demo/copy.py"
e = bytearray(cd[:46]) + name + cd[46 + nlen:46 + nlen + xlen + clen]
struct.pack_into("<H", e, 28, len(name))
out = bytearray(data[:cd_off] + cd + bytes(e) + data[cd_off + cd_size:])
struct.pack_into("<HHI", out, eocd + len(e) + 8, n + 1, n + 1, cd_size + len(e))
open(sys.argv[2], "wb").write(out)
try:
    zipfile.ZipFile(sys.argv[2]).read("wheelport_demo/copy.py")
    print("zipfile read it")
except Exception as x:
    print("zipfile:", x)
"#;
    let (code, o, e) = run(Command::new("python3")
        .arg("-c")
        .arg(script)
        .arg(demo())
        .arg(&w));
    assert_eq!(code, 0, "{e}");
    eprintln!("{o}");
    refused(
        &w,
        d.path(),
        &[
            "at offset 0x0:",
            "member wheelport_demo/",
            "overlaps member wheelport_demo/",
            "header at 0x0",
            "overlapping entries",
        ],
    );
}

/// Failures of the environment, not of the input, say so: a build cache that is a file is
/// built without (a warning naming it; before: every kernel "not translated", exit 6 or 5); a
/// missing `$TMPDIR`, an `-o` under a regular file, a full disk (`ulimit -f`) and a report path
/// in a missing folder give exit 9 naming that path and the OS error (before: exit 1 blaming the wheel, or a message
/// naming tempfile's random path), nothing written.
#[test]
fn environment_failures_name_the_environment() {
    if require_toolchain("dtk", "convert_hostile").is_none() {
        return;
    }
    let d = tempfile::tempdir().unwrap();
    let file = d.path().join("a-file");
    std::fs::write(&file, "x").unwrap();
    let conv = |out: &Path, extra: &[&str], env: &[(&str, &Path)]| {
        let mut c = Command::new(bin());
        c.arg(demo())
            .args(["--target", "dtk", "-q", "-o"])
            .arg(out)
            .args(extra)
            .env_remove("WHEELPORT_NO_CACHE");
        for (k, v) in env {
            c.env(k, v);
        }
        run(&mut c)
    };
    let out = d.path().join("o1");
    let (code, o, e) = conv(&out, &[], &[("XDG_CACHE_HOME", &file)]);
    assert_eq!(code, 0, "{o}{e}");
    assert!(
        e.contains(&format!(
            "wheelport: warning: build cache {}: not written (",
            file.join("wheelport").display()
        )) && e.contains("Not a directory (os error 20)); building without it"),
        "{e}"
    );
    let out = d.path().join("o2");
    let (code, o, e) = conv(&out, &[], &[("TMPDIR", &d.path().join("missing"))]);
    assert_eq!(code, 9, "{o}{e}");
    assert!(
        e.contains(&format!(
            "temporary folder {} ($TMPDIR): No such file or directory (os error 2)",
            d.path().join("missing").display()
        )),
        "{e}"
    );
    assert!(!out.exists());
    let out = file.join("o3");
    let (code, o, e) = conv(&out, &[], &[]);
    assert_eq!(code, 9, "{o}{e}");
    assert!(o.contains("Not a directory (os error 20)"), "{o}");
    // A full disk, as `ulimit -f` makes one without privileges (SIGXFSZ ignored, so writes
    // past 60 KiB fail with EFBIG): the temporary files of the device build cannot be
    // written. Before: "2 of 2 kernels cannot be translated" (exit 5), or the wheel blamed.
    let out = d.path().join("o5");
    let (code, o, e) = run(Command::new("bash")
        .arg("-c")
        .arg("trap '' XFSZ; ulimit -f 60; exec \"$@\"")
        .arg("wheelport")
        .arg(bin())
        .arg(demo())
        .args(["--target", "dtk", "-q", "-o"])
        .arg(&out)
        .env("WHEELPORT_NO_CACHE", "1"));
    assert_eq!(code, 9, "{o}{e}");
    assert!(e.contains("File too large (os error 27)"), "{e}");
    assert!(
        !o.contains("cannot be translated") && !o.contains("malformed"),
        "{o}"
    );
    assert!(!out.exists());
    let out = d.path().join("o4");
    let report = d.path().join("missing/r.json");
    let (code, o, e) = conv(&out, &["--json", report.to_str().unwrap()], &[]);
    assert_eq!(code, 9, "{o}{e}");
    assert!(
        e.ends_with(&format!(
            "wheelport: error: {}: No such file or directory (os error 2)\n",
            report.display()
        )),
        "{e}"
    );
}
