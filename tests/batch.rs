//! `wheelport batch` on a test mirror built here: PEP 503 pages checked by an independent
//! checker (tools/check-simple-index.py, stdlib only), installs with pip and uv from the
//! `file://` index, SIGKILL at random points then resume, shards plus merge, incremental
//! re-runs.

mod common;

use common::*;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

fn sha256_hex(data: &[u8]) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(data)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// A small valid pure-Python wheel, written by Python's zipfile (not by wheelport).
fn pure_wheel(dir: &Path, name: &str, version: &str) -> PathBuf {
    let script = r#"
import base64, hashlib, sys, zipfile
out, name, ver = sys.argv[1], sys.argv[2], sys.argv[3]
di = f"{name}-{ver}.dist-info"
files = {
    f"{name}/__init__.py": b"VALUE = 42\n",
    f"{di}/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: {ver}\nRequires-Python: >=3.8\n".encode(),
    f"{di}/WHEEL": b"Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
}
rec = []
for n, d in files.items():
    h = base64.urlsafe_b64encode(hashlib.sha256(d).digest()).rstrip(b"=").decode()
    rec.append(f"{n},sha256={h},{len(d)}")
rec.append(f"{di}/RECORD,,")
files[f"{di}/RECORD"] = ("\n".join(rec) + "\n").encode()
with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
    for n, d in files.items():
        zi = zipfile.ZipInfo(n, (2020, 1, 1, 0, 0, 0))
        z.writestr(zi, d)
"#;
    let out = dir.join(format!("{name}-{version}-py3-none-any.whl"));
    let (code, _, err) = run(Command::new("python3")
        .arg("-c")
        .arg(script)
        .arg(&out)
        .arg(name)
        .arg(version));
    assert_eq!(code, 0, "{err}");
    out
}

/// The demo wheel with its `.so` cut to 200 bytes: a CUDA wheel whose conversion must fail.
fn broken_wheel(dir: &Path) -> PathBuf {
    let src =
        root().join("fixtures/wheels/wheelport_demo-0.1.0+cu13-py3-none-manylinux_2_28_x86_64.whl");
    let out = dir.join("brokendemo-0.1.0-py3-none-manylinux_2_28_x86_64.whl");
    let script = r#"
import sys, zipfile
src, out = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(src) as zin, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zout:
    for i in zin.infolist():
        d = zin.read(i.filename)
        name = i.filename.replace("wheelport_demo-0.1.0+cu13.dist-info", "brokendemo-0.1.0.dist-info")
        if name.endswith("METADATA"):
            d = d.replace(b"Name: wheelport-demo", b"Name: brokendemo").replace(b"Name: wheelport_demo", b"Name: brokendemo").replace(b"Version: 0.1.0+cu13", b"Version: 0.1.0")
        if name.endswith(".so"):
            d = d[:200]
        zout.writestr(zipfile.ZipInfo(name, i.date_time), d)
"#;
    let (code, _, err) = run(Command::new("python3")
        .arg("-c")
        .arg(script)
        .arg(&src)
        .arg(&out));
    assert_eq!(code, 0, "{err}");
    out
}

/// A PEP 503 tree: `mirror/packages/<file>`, `mirror/simple/<project>/index.html` with
/// `#sha256=`, `data-requires-python` and `data-yanked` on some links.
fn make_mirror(dir: &Path, wheels: &[(PathBuf, Option<&str>, Option<&str>)]) -> PathBuf {
    let m = dir.join("mirror");
    let pk = m.join("packages");
    std::fs::create_dir_all(&pk).unwrap();
    let mut projects: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (w, rp, yanked) in wheels {
        let name = w.file_name().unwrap().to_str().unwrap().to_string();
        std::fs::copy(w, pk.join(&name)).unwrap();
        let project = wheelport::batch::mirror::normalize(name.split('-').next().unwrap());
        let data = std::fs::read(w).unwrap();
        let mut a = format!(
            "<a href=\"../../packages/{}#sha256={}\"",
            name.replace('+', "%2B"),
            sha256_hex(&data)
        );
        if let Some(rp) = rp {
            a.push_str(&format!(
                " data-requires-python=\"{}\"",
                rp.replace('>', "&gt;").replace('<', "&lt;")
            ));
        }
        if let Some(y) = yanked {
            a.push_str(&format!(" data-yanked=\"{y}\""));
        }
        a.push_str(&format!(">{name}</a><br/>"));
        projects.entry(project).or_default().push(a);
    }
    let mut root = String::from("<!DOCTYPE html><html><body>\n");
    for (p, links) in &projects {
        let d = m.join("simple").join(p);
        std::fs::create_dir_all(&d).unwrap();
        std::fs::write(
            d.join("index.html"),
            format!(
                "<!DOCTYPE html><html><body>\n{}\n</body></html>\n",
                links.join("\n")
            ),
        )
        .unwrap();
        root.push_str(&format!("<a href=\"{p}/\">{p}</a>\n"));
    }
    root.push_str("</body></html>\n");
    std::fs::write(m.join("simple/index.html"), root).unwrap();
    m
}

/// Every file under `dir` (relative path → sha256).
fn tree(dir: &Path) -> BTreeMap<String, String> {
    fn walk(base: &Path, d: &Path, out: &mut BTreeMap<String, String>) {
        for e in std::fs::read_dir(d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(base, &p, out);
            } else {
                let rel = p.strip_prefix(base).unwrap().to_string_lossy().into_owned();
                out.insert(rel, sha256_hex(&std::fs::read(&p).unwrap()));
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

fn batch(args: &[&str], mirror: &Path, out: &Path) -> (i32, String, String) {
    run(Command::new(bin())
        .arg("batch")
        .arg(mirror)
        .arg("--out")
        .arg(out)
        .args(["--target", "dtk", "--sass", "skip"])
        .args(args)
        .env("WHEELPORT_NO_PROGRESS", "1"))
}

fn check_index(simple: &Path) {
    let (code, out, err) = run(Command::new("python3")
        .arg(root().join("tools/check-simple-index.py"))
        .arg(simple));
    assert_eq!(code, 0, "independent index check failed:\n{out}{err}");
}

fn summary(out: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(out.join(".wheelport/summary.json")).unwrap()).unwrap()
}

fn status_of(s: &serde_json::Value, input_prefix: &str) -> String {
    s["records"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["input"].as_str().unwrap().starts_with(input_prefix))
        .unwrap_or_else(|| panic!("no record for {input_prefix}: {s}"))["status"]
        .as_str()
        .unwrap()
        .to_string()
}

fn small_mirror(dir: &Path) -> PathBuf {
    let w = dir.join("wheels");
    std::fs::create_dir_all(&w).unwrap();
    let demo =
        root().join("fixtures/wheels/wheelport_demo-0.1.0+cu13-py3-none-manylinux_2_28_x86_64.whl");
    make_mirror(
        dir,
        &[
            (demo, None, None),
            (pure_wheel(&w, "purepy", "1.0"), Some(">=3.8"), None),
            (
                pure_wheel(&w, "purepy", "0.9"),
                Some(">=3.8"),
                Some("broken on 3.12"),
            ),
            (pure_wheel(&w, "zeta_pkg", "2.0"), None, None),
            (pure_wheel(&w, "simplelib", "0.5"), None, None),
            (broken_wheel(&w), None, None),
        ],
    )
}

#[test]
fn mirror_converts_and_installs_from_the_new_index() {
    let d = tempfile::tempdir().unwrap();
    let mut mirror_wheels = Vec::new();
    let w = d.path().join("wheels");
    std::fs::create_dir_all(&w).unwrap();
    mirror_wheels.push((
        root().join("fixtures/wheels/wheelport_demo-0.1.0+cu13-py3-none-manylinux_2_28_x86_64.whl"),
        None,
        None,
    ));
    mirror_wheels.push((pure_wheel(&w, "purepy", "1.0"), Some(">=3.8"), None));
    mirror_wheels.push((broken_wheel(&w), None, None));
    if let Some(awq) = require_corpus("autoawq_kernels", "batch corpus mirror") {
        mirror_wheels.push((awq, None, None));
    }
    let mirror = make_mirror(d.path(), &mirror_wheels);
    let out = d.path().join("out");
    let (batch_code, stdout, err) = batch(&["--allow-partial", "--jobs", "2"], &mirror, &out);
    assert!(
        batch_code == 0 || batch_code == 6,
        "batch exit {batch_code}: {stdout}{err}"
    );
    println!("{stdout}");
    let s = summary(&out);
    assert_eq!(status_of(&s, "purepy-1.0"), "copied");
    assert_eq!(status_of(&s, "brokendemo"), "failed");
    // SASS-only corpus wheel: host side rewritten, kernels listed.
    if mirror_wheels.len() == 4 {
        assert_eq!(status_of(&s, "autoawq_kernels"), "partial");
    }
    assert_eq!(batch_code, 6, "a failed wheel makes the run incomplete");
    // The failed wheel is not published; the pure wheel is published unchanged.
    let t = tree(&out);
    assert!(!t.keys().any(|k| k.contains("brokendemo")), "{t:?}");
    assert_eq!(
        t["files/purepy-1.0-py3-none-any.whl"],
        sha256_hex(&std::fs::read(w.join("purepy-1.0-py3-none-any.whl")).unwrap())
    );
    check_index(&out.join("simple"));
    // The requires-python of the source index is carried.
    let page = std::fs::read_to_string(out.join("simple/purepy/index.html")).unwrap();
    assert!(page.contains("data-requires-python=\"&gt;=3.8\""), "{page}");

    // pip and uv install from the file:// index.
    let index = format!("file://{}", out.join("simple").display());
    let (code, o, e) = run(Command::new("python3")
        .args([
            "-m",
            "pip",
            "install",
            "--quiet",
            "--no-deps",
            "--no-cache-dir",
            "--index-url",
        ])
        .arg(&index)
        .arg("--target")
        .arg(d.path().join("pip"))
        .arg("purepy"));
    assert_eq!(code, 0, "pip: {o}{e}");
    assert!(d.path().join("pip/purepy/__init__.py").is_file());
    if let Ok(tools) = std::env::var("WHEELPORT_PYTOOLS") {
        let (code, o, e) = run(Command::new(Path::new(&tools).join("bin/uv"))
            .args(["pip", "install", "--no-deps", "--no-cache", "--index-url"])
            .arg(&index)
            .arg("--target")
            .arg(d.path().join("uv"))
            .arg("purepy"));
        assert_eq!(code, 0, "uv: {o}{e}");
        assert!(d.path().join("uv/purepy/__init__.py").is_file());
    } else {
        missing::<()>("uv install check", "WHEELPORT_PYTOOLS not set");
    }
    // Converted wheels install too (whatever their kernel status).
    for r in s["records"].as_array().unwrap() {
        if matches!(r["status"].as_str(), Some("converted" | "partial")) {
            let name = r["project"].as_str().unwrap();
            let (code, o, e) = run(Command::new("python3")
                .args([
                    "-m",
                    "pip",
                    "install",
                    "--quiet",
                    "--no-deps",
                    "--no-cache-dir",
                    "--index-url",
                ])
                .arg(&index)
                .arg("--target")
                .arg(d.path().join(format!("pip-{name}")))
                .arg(name));
            assert_eq!(code, 0, "pip {name}: {o}{e}");
        }
    }

    // A second run converts nothing again and leaves the tree as it was.
    let (code2, stdout2, _) = batch(&["--allow-partial", "--jobs", "2"], &mirror, &out);
    assert_eq!(code2, batch_code);
    assert!(
        stdout2.contains(&format!("{} taken from earlier runs", mirror_wheels.len())),
        "{stdout2}"
    );
    assert_eq!(tree(&out), t);
}

#[test]
fn sigkill_at_random_points_then_resume_gives_the_same_tree() {
    let d = tempfile::tempdir().unwrap();
    let mirror = small_mirror(d.path());
    let reference = d.path().join("ref");
    let t0 = std::time::Instant::now();
    let (code, o, e) = batch(&["--jobs", "2"], &mirror, &reference);
    let full = t0.elapsed();
    assert!(code == 0 || code == 6, "{o}{e}");
    let want = tree(&reference);
    assert!(!want.keys().any(|k| k.contains("/tmp/")), "{want:?}");
    // Deterministic pseudo-random kill points over [0, 1.2 × the full run). The reference
    // run may have been slowed by the tests beside it; a run that ends before its kill point
    // shows the run takes at most that long, and later kill points are drawn from that.
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut span = full;
    let mut killed_mid_run = 0;
    let mut trial = 0;
    while killed_mid_run < 10 {
        assert!(
            trial < 40,
            "only {killed_mid_run} of {trial} kills hit a running batch"
        );
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let delay = span.mul_f64((x % 1000) as f64 / 1000.0 * 1.2);
        let out = d.path().join(format!("t{trial}"));
        let mut child = Command::new(bin())
            .arg("batch")
            .arg(&mirror)
            .arg("--out")
            .arg(&out)
            .args(["--target", "dtk", "--jobs", "2"])
            .env("WHEELPORT_NO_PROGRESS", "1")
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(delay);
        // SIGKILL (std's kill sends SIGKILL on Unix).
        if child.try_wait().unwrap().is_none() {
            child.kill().unwrap();
            killed_mid_run += 1;
        } else {
            span = span.min(delay);
        }
        child.wait().unwrap();
        let (code, o, e) = batch(&["--jobs", "2"], &mirror, &out);
        assert!(code == 0 || code == 6, "trial {trial}: {o}{e}");
        assert_eq!(tree(&out), want, "trial {trial} (killed after {delay:?})");
        trial += 1;
    }
}

#[test]
fn three_shards_and_a_merge_equal_a_single_run() {
    let d = tempfile::tempdir().unwrap();
    let mirror = small_mirror(d.path());
    let single = d.path().join("single");
    let (code, o, e) = batch(&[], &mirror, &single);
    assert!(code == 0 || code == 6, "{o}{e}");
    let mut shards = Vec::new();
    for k in 1..=3 {
        let out = d.path().join(format!("shard{k}"));
        let (code, o, e) = batch(&["--shard", &format!("{k}/3")], &mirror, &out);
        assert!(code == 0 || code == 6, "shard {k}: {o}{e}");
        assert!(
            !out.join("simple/index.html").exists(),
            "a shard writes no root page"
        );
        shards.push(out);
    }
    let merged = d.path().join("merged");
    let (code, o, e) = run(Command::new(bin())
        .args(["batch", "--merge", "--out"])
        .arg(&merged)
        .args(&shards));
    assert!(code == 0 || code == 6, "{o}{e}");
    assert_eq!(tree(&merged), tree(&single));
    check_index(&merged.join("simple"));
    // Shards writing into one shared tree (a shared volume) do not remove each other's
    // files; `--merge` with no shard arguments then finishes that tree.
    let shared = d.path().join("shared");
    for k in [2, 1, 3] {
        let (code, o, e) = batch(&["--shard", &format!("{k}/3")], &mirror, &shared);
        assert!(code == 0 || code == 6, "shared shard {k}: {o}{e}");
    }
    let (code, o, e) = run(Command::new(bin())
        .args(["batch", "--merge", "--out"])
        .arg(&shared));
    assert!(code == 0 || code == 6, "{o}{e}");
    assert_eq!(tree(&shared), tree(&single));
    // The shards really split the work: purepy (shard 3), zeta-pkg (1), simplelib (2).
    let nonempty = shards
        .iter()
        .filter(|s| std::fs::read_dir(s.join("files")).unwrap().count() > 0)
        .count();
    assert_eq!(nonempty, 3, "shards did not split the mirror");
}

#[test]
fn a_flat_directory_is_a_mirror_too() {
    let d = tempfile::tempdir().unwrap();
    let flat = d.path().join("flat");
    std::fs::create_dir_all(&flat).unwrap();
    pure_wheel(&flat, "Flat.Pkg", "3.1");
    std::fs::write(flat.join("README.txt"), "not a distribution").unwrap();
    let out = d.path().join("out");
    let (code, o, e) = batch(&[], &flat, &out);
    assert_eq!(code, 0, "{o}{e}");
    assert!(out.join("simple/flat-pkg/index.html").is_file());
    check_index(&out.join("simple"));
}

#[test]
fn hostile_hrefs_are_refused() {
    let d = tempfile::tempdir().unwrap();
    let m = d.path().join("m");
    std::fs::create_dir_all(m.join("simple/evil")).unwrap();
    std::fs::write(m.join("simple/index.html"), "<a href=\"evil/\">evil</a>").unwrap();
    std::fs::write(
        m.join("simple/evil/index.html"),
        "<a href=\"../../../../etc/evil-1.0-py3-none-any.whl\">x</a>",
    )
    .unwrap();
    let out = d.path().join("out");
    let (code, _, e) = batch(&[], &m, &out);
    assert_eq!(code, 1, "{e}");
    assert!(
        e.contains("leaves the mirror") && e.contains("evil/index.html"),
        "{e}"
    );
}

#[test]
fn summary_schema_file_is_current() {
    // docs/batch-summary.schema.json is generated from the summary types; WHEELPORT_BLESS=1
    // rewrites it after an intended change.
    let path = root().join("docs/batch-summary.schema.json");
    let schema = serde_json::to_string_pretty(&wheelport::batch::json_schema()).unwrap() + "\n";
    if std::env::var_os("WHEELPORT_BLESS").is_some() {
        std::fs::write(&path, &schema).unwrap();
    }
    let committed = std::fs::read_to_string(&path).expect("docs/batch-summary.schema.json exists");
    assert_eq!(
        committed, schema,
        "docs/batch-summary.schema.json is stale; rerun with WHEELPORT_BLESS=1"
    );
}

/// A mirror file that is a symlink is published as the file it names, never as a link, and
/// one that resolves outside the mirror is refused naming both paths, nothing published
/// (before: `OUT/files` got a link to the outside file, exit 0).
#[test]
fn symlinks_in_the_mirror_never_publish_a_link_or_an_outside_file() {
    let d = tempfile::tempdir().unwrap();
    let flat = d.path().join("flat");
    let outside = d.path().join("outside");
    std::fs::create_dir_all(&flat).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    // Inside: a link to a wheel kept under another name in the mirror.
    pure_wheel(&flat, "Linked", "1.0");
    let real = std::fs::read_dir(&flat)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|x| x == "whl"))
        .unwrap();
    let name = real.file_name().unwrap().to_owned();
    std::fs::create_dir(flat.join("store")).unwrap();
    std::fs::rename(&real, flat.join("store/kept.bin")).unwrap();
    std::os::unix::fs::symlink("store/kept.bin", flat.join(&name)).unwrap();
    let out = d.path().join("out");
    let (code, o, e) = batch(&[], &flat, &out);
    assert_eq!(code, 0, "{o}{e}");
    let published = out.join("files").join(&name);
    let meta = std::fs::symlink_metadata(&published).unwrap();
    assert!(
        meta.file_type().is_file(),
        "{published:?} is not a regular file"
    );
    assert_eq!(
        std::fs::read(&published).unwrap(),
        std::fs::read(flat.join("store/kept.bin")).unwrap()
    );

    // Outside: a link leaving the mirror.
    pure_wheel(&outside, "Evil", "1.0");
    let evil = std::fs::read_dir(&outside)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|x| x == "whl"))
        .unwrap();
    let link = flat.join(evil.file_name().unwrap());
    std::os::unix::fs::symlink(&evil, &link).unwrap();
    let out = d.path().join("out2");
    let (code, o, e) = batch(&[], &flat, &out);
    assert_eq!(code, 1, "{o}{e}");
    assert!(
        e.contains(&format!(
            "{} resolves to {}, outside the mirror; refusing to publish it",
            link.display(),
            std::fs::canonicalize(&evil).unwrap().display()
        )),
        "{e}"
    );
    let published: Vec<_> = std::fs::read_dir(out.join("files"))
        .map(|r| r.map(|e| e.unwrap().file_name()).collect())
        .unwrap_or_default();
    assert!(
        !published.contains(&evil.file_name().unwrap().to_owned()),
        "{published:?}"
    );
}
