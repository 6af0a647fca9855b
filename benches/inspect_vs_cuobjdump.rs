//! `wheelport inspect` side by side with NVIDIA's cuobjdump 13.5 on the large corpus objects:
//! median wall time over repeated runs and peak RSS (ru_maxrss from wait4), as ratios.
//!
//! Run: `WHEELPORT_CORPUS=<fetch.sh folder> WHEELPORT_CUDA_BIN=<dir with cuobjdump> cargo bench --bench inspect_vs_cuobjdump`
//! Files: `awq_ft_ext` (69 MB, autoawq_kernels 0.0.9) and `vllm_flash_attn_2_cuda` (254 MB,
//! vllm_flash_attn 2.6.2), extracted from the wheels into a temporary folder; or the `.so`
//! paths given in `WHEELPORT_BENCH_FILES` (colon-separated).
//!
//! Peak RSS of a memory-mapped read depends on how the file sits in the page cache: on
//! kernels with large page-cache folios (6.x ext4), a file written in 1 MB blocks is mapped a
//! folio (up to 2 MB) per touched page. The files here are written the way pip installs them
//! (`shutil.copyfileobj`, 64 KB blocks); `cp` gives the same figures.
//!
//! Pairs compared (each tool does comparable work):
//! * `wheelport inspect FILE` vs `cuobjdump -lelf -lptx FILE` (entry listing)
//! * `wheelport inspect --kernels FILE` vs `cuobjdump -symbols FILE` (every cubin's symbols)

mod common;

use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

struct Sample {
    secs: f64,
    maxrss_kb: i64,
    ok: bool,
}

#[allow(clippy::zombie_processes)] // reaped by wait4 below, which also gives the rusage
fn run_once(cmd: &[String]) -> Sample {
    let start = Instant::now();
    let child = Command::new(&cmd[0])
        .args(&cmd[1..])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn");
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: waiting for our own child; rusage is a plain C struct.
    let r = unsafe { libc::wait4(pid, &mut status, 0, &mut ru) };
    assert_eq!(r, pid);
    let secs = start.elapsed().as_secs_f64();
    let ok = std::process::ExitStatus::from_raw(status).success();
    Sample {
        secs,
        maxrss_kb: ru.ru_maxrss,
        ok,
    }
}

fn measure(cmd: &[String], runs: usize) -> (f64, i64, bool) {
    for _ in 0..2 {
        run_once(cmd); // warm the page cache
    }
    let mut times = Vec::new();
    let mut rss = 0;
    let mut ok = true;
    for _ in 0..runs {
        let s = run_once(cmd);
        times.push(s.secs);
        rss = rss.max(s.maxrss_kb);
        ok &= s.ok;
    }
    times.sort_by(|a, b| a.partial_cmp(b).unwrap());
    (times[times.len() / 2], rss, ok)
}

fn tool(name: &str) -> Option<PathBuf> {
    if let Ok(d) = std::env::var("WHEELPORT_CUDA_BIN") {
        let p = Path::new(&d).join(name);
        if p.is_file() {
            return Some(p);
        }
    }
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

fn corpus_objects(dir: &Path) -> Vec<PathBuf> {
    if let Ok(list) = std::env::var("WHEELPORT_BENCH_FILES") {
        return std::env::split_paths(&list).collect();
    }
    let mut out = Vec::new();
    for (prefix, member) in [
        ("autoawq_kernels-", "awq_ft_ext"),
        ("vllm_flash_attn-", "vllm_flash_attn_2_cuda"),
    ] {
        let Some(whl) = common::corpus_wheel(prefix) else {
            continue;
        };
        let w = wheelport::wheel::WheelReader::open(&whl).unwrap();
        let name = w
            .member_names()
            .into_iter()
            .find(|n| n.contains(member))
            .unwrap();
        let p = dir.join(name.rsplit('/').next().unwrap());
        // Extract in another process: Linux carries a parent's peak RSS into a forked
        // child's ru_maxrss, so this process must stay small.
        let st = Command::new("python3")
            .args(["-c", "import shutil,sys,zipfile\nwith zipfile.ZipFile(sys.argv[1]) as z, z.open(sys.argv[2]) as s, open(sys.argv[3],'wb') as d: shutil.copyfileobj(s, d)"])
            .arg(&whl)
            .arg(&name)
            .arg(&p)
            .status()
            .expect("python3");
        assert!(st.success());
        out.push(p);
    }
    out
}

fn main() {
    let runs: usize = std::env::var("BENCH_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10);
    let wp = env!("CARGO_BIN_EXE_wheelport").to_string();
    let cuobjdump = tool("cuobjdump").map(|p| p.display().to_string());
    let dir = tempfile::tempdir().unwrap();
    println!(
        "{:<44} {:>9} {:>10} {:>9} {:>10} {:>7} {:>7}",
        "file / pair", "wp ms", "wp RSS MB", "cuo ms", "cuo RSS MB", "time x", "RSS/file"
    );
    for f in corpus_objects(dir.path()) {
        let size = std::fs::metadata(&f).unwrap().len() as f64;
        let fs = f.display().to_string();
        let name = f.file_name().unwrap().to_string_lossy().into_owned();
        for (label, wargs, cargs) in [
            (
                "inspect vs -lelf -lptx",
                vec!["inspect"],
                vec!["-lelf", "-lptx"],
            ),
            (
                "inspect --kernels vs -symbols",
                vec!["inspect", "--kernels"],
                vec!["-symbols"],
            ),
        ] {
            let mut wcmd = vec![wp.clone()];
            wcmd.extend(wargs.iter().map(|s| s.to_string()));
            wcmd.push(fs.clone());
            let (wt, wr, wok) = measure(&wcmd, runs);
            assert!(wok, "wheelport failed on {fs}");
            let (ct, cr, cok) = match &cuobjdump {
                Some(c) => {
                    let mut ccmd = vec![c.clone()];
                    ccmd.extend(cargs.iter().map(|s| s.to_string()));
                    ccmd.push(fs.clone());
                    measure(&ccmd, runs)
                }
                None => (f64::NAN, 0, false),
            };
            let ratio = if cok {
                format!("{:.2}", wt / ct)
            } else {
                "n/a".into()
            };
            let cshow = if cok {
                format!("{:.1}", ct * 1e3)
            } else {
                "fails".into()
            };
            let crss = if cok {
                format!("{:.1}", cr as f64 / 1024.0)
            } else {
                "-".into()
            };
            println!(
                "{:<44} {:>9.1} {:>10.1} {:>9} {:>10} {:>7} {:>7.3}",
                format!("{} / {}", &name[..name.len().min(20)], label),
                wt * 1e3,
                wr as f64 / 1024.0,
                cshow,
                crss,
                ratio,
                wr as f64 * 1024.0 / size
            );
        }
    }
    let hwm = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let hwm = hwm
        .lines()
        .find(|l| l.starts_with("VmHWM"))
        .unwrap_or("")
        .to_string();
    println!("bench process {hwm}");
    println!("time x = wheelport median / cuobjdump median ({runs} runs after 2 warm-ups); RSS/file = wheelport peak RSS / file size");
}
