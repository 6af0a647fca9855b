//! The SASS lifter side by side with NVIDIA's nvdisasm 13.5 alone on the same cubins, and the
//! whole `convert --target dtk` of a SASS-only object: wall time and CPU time (user + system,
//! from wait4, children included), as ratios and as instructions per second per core.
//!
//! Run: `WHEELPORT_NVDISASM=<nvdisasm> cargo bench --bench sass_lift_vs_nvdisasm`
//! (the LLVM tools of `wheelport doctor --target dtk` on PATH for the conversion).
//! Files: `fixtures/gpu/flash_fwd_sass80.so` (the FlashAttention-2 fixture, 16 kernels, sm_80
//! SASS only); with `WHEELPORT_BENCH_SASS_CORPUS=1` also vllm_flash_attn 2.6.2 and
//! autoawq_kernels 0.0.9 from `$WHEELPORT_CORPUS` (lift only: their dtk conversion is hours of
//! llc on two cores). `BENCH_RUNS` (default 3) runs of each measure after one warm-up; the
//! conversion runs once, with a fresh cache.
//!
//! Measures per file:
//! * `nvdisasm -c` on each sm_80 cubin of the file in turn (what the lifter decodes), summed;
//! * `wheelport sass lift --arch sm_80 FILE` (read, decompress, nvdisasm, parse, `.nv.info`,
//!   lift every kernel): its CPU less nvdisasm's is wheelport's own part;
//! * `wheelport convert FILE --target dtk` (also lowering, llc, lld, the rewrite and repack).

mod common;

use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

struct Sample {
    wall: f64,
    cpu: f64,
    stdout: String,
}

fn tv(t: libc::timeval) -> f64 {
    t.tv_sec as f64 + t.tv_usec as f64 * 1e-6
}

#[allow(clippy::zombie_processes)] // reaped by wait4 below, which also gives the rusage
fn run_once(cmd: &[String], env: &[(&str, &Path)]) -> Sample {
    let start = Instant::now();
    let mut c = Command::new(&cmd[0]);
    c.args(&cmd[1..])
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    for (k, v) in env {
        c.env(k, v);
    }
    let mut child = c.spawn().expect("spawn");
    let mut stdout = String::new();
    std::io::Read::read_to_string(child.stdout.as_mut().unwrap(), &mut stdout).unwrap();
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: waiting for our own child; rusage is a plain C struct.
    let r = unsafe { libc::wait4(pid, &mut status, 0, &mut ru) };
    assert_eq!(r, pid);
    let wall = start.elapsed().as_secs_f64();
    assert!(
        std::process::ExitStatus::from_raw(status).success(),
        "{cmd:?} failed"
    );
    Sample {
        wall,
        cpu: tv(ru.ru_utime) + tv(ru.ru_stime),
        stdout,
    }
}

/// Median wall and CPU over `runs` runs of all `cmds` in turn (after one warm-up).
fn measure(cmds: &[Vec<String>], runs: usize) -> (f64, f64, String) {
    for c in cmds {
        run_once(c, &[]);
    }
    let mut walls = Vec::new();
    let mut cpus = Vec::new();
    let mut out = String::new();
    for _ in 0..runs {
        let (mut w, mut u) = (0.0, 0.0);
        for c in cmds {
            let s = run_once(c, &[]);
            w += s.wall;
            u += s.cpu;
            out = s.stdout;
        }
        walls.push(w);
        cpus.push(u);
    }
    let med = |v: &mut Vec<f64>| {
        v.sort_by(|a, b| a.partial_cmp(b).unwrap());
        v[v.len() / 2]
    };
    (med(&mut walls), med(&mut cpus), out)
}

fn nvdisasm() -> Option<PathBuf> {
    match wheelport::toolchain::discover_nvdisasm(&wheelport::toolchain::SearchOptions::from_env())
    {
        Ok(t) => Some(t.path),
        Err(m) => {
            eprintln!("SKIP: nvdisasm {}: {}", m.reason, m.install);
            None
        }
    }
}

/// The instruction count of `sass lift`'s total line (`total: N cubins, X instructions ...`).
fn instructions(lift_stdout: &str) -> u64 {
    let line = lift_stdout
        .lines()
        .find(|l| l.starts_with("total: "))
        .expect("sass lift's total line");
    let after = line.split(" cubins, ").nth(1).expect("total line");
    after
        .split_whitespace()
        .next()
        .unwrap()
        .parse()
        .expect("instruction count")
}

fn main() {
    let Some(nvd) = nvdisasm() else { return };
    let runs: usize = std::env::var("BENCH_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3);
    let wp = env!("CARGO_BIN_EXE_wheelport").to_string();
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let tmp = tempfile::tempdir().unwrap();
    let mut files = vec![(root.join("fixtures/gpu/flash_fwd_sass80.so"), true)];
    if std::env::var_os("WHEELPORT_BENCH_SASS_CORPUS").is_some() {
        for prefix in ["vllm_flash_attn-", "autoawq_kernels-"] {
            if let Some(w) = common::corpus_wheel(prefix) {
                files.push((w, false));
            }
        }
    }
    println!(
        "{:<26} {:>10} {:>10} {:>10} {:>10} {:>10} {:>8} {:>12} {:>10} {:>10}",
        "file",
        "instr",
        "nvd wall s",
        "nvd cpu s",
        "lift wall",
        "lift cpu",
        "wall x",
        "wp instr/s/c",
        "conv wall",
        "conv cpu"
    );
    for (i, (f, convert)) in files.iter().enumerate() {
        let fs = f.display().to_string();
        // The sm_80 cubins the lifter decodes, for nvdisasm alone.
        let cub = tmp.path().join(format!("cubins-{i}"));
        let s = run_once(
            &[
                wp.clone(),
                "sass".into(),
                "lift".into(),
                "--arch".into(),
                "sm_80".into(),
                "--cubins".into(),
                "-o".into(),
                cub.display().to_string(),
                fs.clone(),
            ],
            &[],
        );
        let n = instructions(&s.stdout);
        let mut cubins: Vec<PathBuf> = std::fs::read_dir(&cub)
            .unwrap()
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|e| e == "cubin"))
            .collect();
        cubins.sort();
        let nvd_cmds: Vec<Vec<String>> = cubins
            .iter()
            .map(|c| {
                vec![
                    nvd.display().to_string(),
                    "-c".into(),
                    c.display().to_string(),
                ]
            })
            .collect();
        let (nw, nc, _) = measure(&nvd_cmds, runs);
        let lift = vec![
            wp.clone(),
            "sass".into(),
            "lift".into(),
            "--arch".into(),
            "sm_80".into(),
            fs.clone(),
        ];
        let (lw, lc, _) = measure(&[lift], runs);
        let own = (lc - nc).max(1e-9);
        let (cw, cc) = if *convert {
            let out = tmp.path().join(format!("conv-{i}"));
            let s = run_once(
                &[
                    wp.clone(),
                    "convert".into(),
                    fs.clone(),
                    "--target".into(),
                    "dtk".into(),
                    "-q".into(),
                    "-o".into(),
                    out.display().to_string(),
                ],
                &[("XDG_CACHE_HOME", &tmp.path().join(format!("cache-{i}")))],
            );
            (format!("{:.1}", s.wall), format!("{:.1}", s.cpu))
        } else {
            ("-".into(), "-".into())
        };
        let name = f.file_name().unwrap().to_string_lossy().into_owned();
        println!(
            "{:<26} {:>10} {:>10.2} {:>10.2} {:>10.2} {:>10.2} {:>8.2} {:>12.0} {:>10} {:>10}",
            &name[..name.len().min(26)],
            n,
            nw,
            nc,
            lw,
            lc,
            lw / nw,
            n as f64 / own,
            cw,
            cc
        );
    }
    println!(
        "nvd = nvdisasm -c on each sm_80 cubin in turn; lift = wheelport sass lift --arch sm_80 \
         (nvdisasm included); wall x = lift wall / nvd wall; wp instr/s/c = instructions / \
         (lift cpu - nvd cpu): wheelport's own decode and lift per core-second; conv = \
         wheelport convert --target dtk, one run, fresh cache. Medians of {runs} runs after one \
         warm-up."
    );
}
