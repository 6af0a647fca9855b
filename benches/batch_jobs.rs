//! `wheelport batch --jobs 2` against the sum of the single conversions of the same wheels
//! (the batch must take at most 1.2 × (sum of single conversions) / 2).
//!
//! Run: `WHEELPORT_CORPUS=<fetch.sh folder> cargo bench --bench batch_jobs`
//! Single conversions run with `--jobs 1` (one core each); the batch runs two at a time and
//! lets each use up to two threads.
//! The mirror is a flat directory of the corpus wheels plus the demo wheel. Each single
//! conversion is `wheelport convert W --target dtk --allow-partial --sass skip -o DIR` as a
//! process; the batch is `wheelport batch MIRROR --target dtk --allow-partial --sass skip
//! --jobs 2` into a fresh tree (no cache). `--sass skip`: the SASS-only wheels' device code
//! (hours of llc for vllm_flash_attn) is not built, so their figures are the host side. Medians over BENCH_RUNS (default 3) runs. The device-build cache is off
//! (`WHEELPORT_NO_CACHE=1`) for every run, so that xformers' kernels are really built each time.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

fn exe() -> PathBuf {
    // cargo bench builds the binary next to the bench's deps folder.
    let me = std::env::current_exe().unwrap();
    me.parent().unwrap().parent().unwrap().join("wheelport")
}

fn time(cmd: &mut Command) -> f64 {
    let t = Instant::now();
    let out = cmd.output().unwrap();
    let s = t.elapsed().as_secs_f64();
    let code = out.status.code().unwrap_or(-1);
    assert!(
        code == 0 || code == 6,
        "{cmd:?} exited {code}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    s
}

fn main() {
    let runs: usize = std::env::var("BENCH_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3);
    let exe = exe();
    assert!(
        exe.is_file(),
        "build the binary first: cargo build --release"
    );
    let dir = tempfile::tempdir().unwrap();
    let mirror = dir.path().join("mirror");
    std::fs::create_dir_all(&mirror).unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut wheels =
        vec![root
            .join("fixtures/wheels/wheelport_demo-0.1.0+cu13-py3-none-manylinux_2_28_x86_64.whl")];
    for p in ["xformers-", "autoawq_kernels-", "vllm_flash_attn-"] {
        match common::corpus_wheel(p) {
            Some(w) => wheels.push(w),
            None => eprintln!("SKIP {p}: not in WHEELPORT_CORPUS"),
        }
    }
    for w in &wheels {
        std::fs::copy(w, mirror.join(w.file_name().unwrap())).unwrap();
    }
    let mut singles = Vec::new();
    for w in &wheels {
        let t = median(
            (0..runs)
                .map(|i| {
                    let out = dir.path().join(format!("single-{i}"));
                    let _ = std::fs::remove_dir_all(&out);
                    time(
                        Command::new(&exe)
                            .arg("convert")
                            .arg(w)
                            .args(["--target", "dtk", "--allow-partial", "--sass", "skip"])
                            .args(["--jobs", "1", "-o"])
                            .arg(&out)
                            .env("WHEELPORT_NO_PROGRESS", "1")
                            .env("WHEELPORT_NO_CACHE", "1"),
                    )
                })
                .collect(),
        );
        println!(
            "single {:<64} {t:8.3} s",
            w.file_name().unwrap().to_string_lossy()
        );
        singles.push(t);
    }
    let sum: f64 = singles.iter().sum();
    let batch = median(
        (0..runs)
            .map(|i| {
                let out = dir.path().join(format!("batch-{i}"));
                time(
                    Command::new(&exe)
                        .arg("batch")
                        .arg(&mirror)
                        .args(["--target", "dtk", "--allow-partial", "--sass", "skip"])
                        .args(["--jobs", "2", "--out"])
                        .arg(&out)
                        .env("WHEELPORT_NO_PROGRESS", "1")
                        .env("WHEELPORT_NO_CACHE", "1"),
                )
            })
            .collect(),
    );
    println!("sum of single conversions {sum:8.3} s");
    println!("batch --jobs 2            {batch:8.3} s");
    println!(
        "batch / (sum / 2) = {:.3}  (asked: <= 1.2)",
        batch / (sum / 2.0)
    );
}
