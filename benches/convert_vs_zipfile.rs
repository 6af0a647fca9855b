//! Converting vllm_flash_attn 2.6.2 (72 MB wheel, a 242 MB extension) with
//! `wheelport convert --target dtk --allow-partial --sass skip` (the host side: the SASS-only
//! kernels are reported, not lifted and built), side by side with a Python `zipfile`
//! rewrite of the same wheel done the way auditwheel repairs one (extract every member,
//! replace the extension with the same rewritten bytes, rename `.dist-info`, hash every file
//! into a new RECORD, deflate everything again at zlib's default level).
//!
//! Run: `WHEELPORT_CORPUS=<fetch.sh folder> cargo bench --bench convert_vs_zipfile`
//! (`BENCH_RUNS=N`, default 3). Both run as processes, interleaved; the figures are median
//! wall time and median CPU time (user + system, from `getrusage(RUSAGE_CHILDREN)`), so a
//! machine shared with other jobs shows in the wall time but not in the CPU time.

mod common;

use std::process::Command;
use std::time::Instant;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

fn children_cpu() -> f64 {
    // SAFETY: getrusage writes the struct it is given.
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut u) };
    let t = |v: libc::timeval| v.tv_sec as f64 + v.tv_usec as f64 / 1e6;
    t(u.ru_utime) + t(u.ru_stime)
}

/// Run `cmd`, returning (wall seconds, CPU seconds).
fn timed(cmd: &mut Command, ok: &[i32]) -> (f64, f64) {
    let c0 = children_cpu();
    let t0 = Instant::now();
    let out = cmd.output().expect("spawn");
    let wall = t0.elapsed().as_secs_f64();
    let code = out.status.code().unwrap_or(-1);
    assert!(
        ok.contains(&code),
        "exit {code}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    (wall, children_cpu() - c0)
}

const ZIPFILE_REWRITE: &str = r#"
import sys, os, zipfile, hashlib, base64, tempfile, shutil, csv
src, so_name, new_so, out_dir, label = sys.argv[1:6]
work = tempfile.mkdtemp()
try:
    with zipfile.ZipFile(src) as z:
        z.extractall(work)
    shutil.copyfile(new_so, os.path.join(work, so_name))
    base = os.path.basename(src)[:-4].split("-")
    name, version = base[0], base[1]
    new_version = version.split("+")[0] + "+" + label
    old_di = os.path.join(work, "%s-%s.dist-info" % (name, version))
    new_di = os.path.join(work, "%s-%s.dist-info" % (name, new_version))
    os.rename(old_di, new_di)
    meta = os.path.join(new_di, "METADATA")
    lines = open(meta).read().split("\n")
    lines = ["Version: " + new_version if l.startswith("Version:") else l for l in lines]
    open(meta, "w").write("\n".join(lines))
    files = []
    for root, dirs, fs in os.walk(work):
        dirs.sort()
        for f in sorted(fs):
            p = os.path.join(root, f)
            rel = os.path.relpath(p, work)
            if rel == os.path.relpath(os.path.join(new_di, "RECORD"), work):
                continue
            files.append((rel, p))
    record = os.path.join(new_di, "RECORD")
    with open(record, "w", newline="") as r:
        w = csv.writer(r, lineterminator="\n")
        for rel, p in files:
            h = hashlib.sha256()
            with open(p, "rb") as f:
                for b in iter(lambda: f.read(1 << 20), b""):
                    h.update(b)
            w.writerow([rel, "sha256=" + base64.urlsafe_b64encode(h.digest()).rstrip(b"=").decode(), os.path.getsize(p)])
        w.writerow([os.path.relpath(record, work), "", ""])
    files.append((os.path.relpath(record, work), record))
    out = os.path.join(out_dir, "%s-%s-%s.whl" % (name, new_version, "-".join(base[2:])))
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for rel, p in files:
            z.write(p, rel)
finally:
    shutil.rmtree(work)
"#;

fn main() {
    let runs: usize = std::env::var("BENCH_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3);
    let Some(whl) = common::corpus_wheel("vllm_flash_attn-") else {
        return;
    };
    let so_name = "vllm_flash_attn_2_cuda.cpython-311-x86_64-linux-gnu.so";
    let dir = tempfile::tempdir().unwrap();
    let bin = env!("CARGO_BIN_EXE_wheelport");
    // The rewritten extension both sides write (from one wheelport run, not timed).
    let first = dir.path().join("first");
    timed(
        Command::new(bin)
            .args(["convert", "--target", "dtk", "--allow-partial"])
            .args(["--sass", "skip", "-q", "-o"])
            .arg(&first)
            .arg(&whl)
            .stdout(std::process::Stdio::null()),
        &[6],
    );
    let out_whl = std::fs::read_dir(&first)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let new_so = dir.path().join("new.so");
    {
        let mut r = wheelport::wheel::WheelReader::open(&out_whl).unwrap();
        std::fs::write(&new_so, r.read_member(so_name).unwrap()).unwrap();
    }
    let (mut wp_wall, mut wp_cpu, mut py_wall, mut py_cpu) = (vec![], vec![], vec![], vec![]);
    for i in 0..runs {
        let o = dir.path().join(format!("wp{i}"));
        let (w, c) = timed(
            Command::new(bin)
                .args(["convert", "--target", "dtk", "--allow-partial"])
                .args(["--sass", "skip", "-q", "-o"])
                .arg(&o)
                .arg(&whl)
                .stdout(std::process::Stdio::null()),
            &[6],
        );
        wp_wall.push(w);
        wp_cpu.push(c);
        let _ = std::fs::remove_dir_all(&o);
        let o = dir.path().join(format!("py{i}"));
        std::fs::create_dir_all(&o).unwrap();
        let (w, c) = timed(
            Command::new("python3")
                .arg("-c")
                .arg(ZIPFILE_REWRITE)
                .arg(&whl)
                .arg(so_name)
                .arg(&new_so)
                .arg(&o)
                .arg("dtk"),
            &[0],
        );
        py_wall.push(w);
        py_cpu.push(c);
        let _ = std::fs::remove_dir_all(&o);
    }
    let (ww, wc, pw, pc) = (
        median(wp_wall),
        median(wp_cpu),
        median(py_wall),
        median(py_cpu),
    );
    println!(
        "{:<34} {:>10} {:>10}",
        "vllm_flash_attn 2.6.2 (72 MB)", "wall s", "CPU s"
    );
    println!(
        "{:<34} {:>10.2} {:>10.2}",
        "wheelport convert --allow-partial", ww, wc
    );
    println!(
        "{:<34} {:>10.2} {:>10.2}",
        "python zipfile (auditwheel way)", pw, pc
    );
    println!(
        "{:<34} {:>10.2} {:>10.2}",
        "ratio wheelport / zipfile",
        ww / pw,
        wc / pc
    );
}
