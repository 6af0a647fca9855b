//! Lowering throughput (PTX AST → LLVM IR text, one core) on the xformers corpus, and the time
//! of the external compiler that follows it (the peer: llvm-link-19 + opt-19 -O3 + llc-19 +
//! ld.lld-19 for gfx906) on the same modules.
//!
//! Input: the 11 PTX modules of the xformers 0.0.35 wheel (`$WHEELPORT_CORPUS`, default
//! `../shared/corpus`), extracted with wheelport's fatbin reader and parsed once (parsing is
//! not timed). The lowering runs over every module until ~2 s have passed. Reported:
//! * MB/s of PTX input (whole modules; unsupported kernels are skipped after the form check);
//! * the fastest pass's CPU time and MB/s (on a shared machine the pass least disturbed by
//!   other processes: the steadier figure for comparing two versions side by side);
//! * MB/s of the PTX of the lowered kernels only (the bytes from each lowered `.entry` to the
//!   next module directive), the work the emitter really does;
//! * instructions lowered per second and IR MB/s written;
//! * the external toolchain's CPU time (and wall time) for all modules with lowered kernels,
//!   and the ratio.
//!
//! Lowering times are the CPU time of the lowering thread (one core; the build machine is
//! shared, so the wall time, also printed, overstates it).
//!
//! Run: `cargo bench --bench lower`. Env `LOWER_BENCH_NO_LLVM=1` skips the toolchain part;
//! `LOWER_BENCH_PASSES=N` runs exactly N corpus passes (for instruction counts:
//! `valgrind --tool=callgrind` or `perf stat -e instructions` on the bench binary).

#[path = "common/mod.rs"]
mod common;

use std::process::Command;
use std::time::Instant;

use wheelport::lower::{lower_module, KernelOutcome};

fn main() {
    let Some(wheel) = common::corpus_wheel("xformers-0.0.35") else {
        return;
    };
    let mut r = wheelport::wheel::WheelReader::open(&wheel).expect("open wheel");
    let mut sources: Vec<String> = Vec::new();
    for name in r.member_names() {
        if !wheelport::wheel::is_shared_object_name(&name) {
            continue;
        }
        let data = r.read_member(&name).expect("member");
        let so = wheelport::elf::scan(&data, &name).expect("scan");
        for (_, cs) in wheelport::fatbin::parse_object_sections(&data, &so, &name).expect("fatbin")
        {
            for e in cs.iter().flat_map(|c| c.entries.iter()) {
                if e.kind() == wheelport::fatbin::EntryKind::Ptx {
                    sources.push(String::from_utf8(e.ptx_bytes().unwrap().to_vec()).unwrap());
                }
            }
        }
    }
    let prof = wheelport::target::profile("dtk").unwrap();
    let modules: Vec<_> = sources
        .iter()
        .map(|s| wheelport::ptx::parse(s, "xformers.ptx").module)
        .collect();
    let total: usize = sources.iter().map(|s| s.len()).sum();
    // Bytes and instructions of the lowered kernels.
    let mut kernel_bytes = 0usize;
    let mut kernel_insts = 0usize;
    let mut ir_bytes = 0usize;
    for (src, m) in sources.iter().zip(&modules) {
        let lm = lower_module(m, prof);
        ir_bytes += lm.ir.len();
        let line_starts: Vec<usize> = std::iter::once(0)
            .chain(src.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        let fns: Vec<_> = m.functions().collect();
        for k in lm
            .kernels
            .iter()
            .filter(|k| k.outcome == KernelOutcome::Lowered)
        {
            let Some(i) = fns
                .iter()
                .position(|f| f.name == k.name && f.body.is_some())
            else {
                continue;
            };
            let start = line_starts[(fns[i].loc.line as usize).saturating_sub(1)];
            let end = fns
                .get(i + 1)
                .map(|g| line_starts[(g.loc.line as usize).saturating_sub(1)])
                .unwrap_or(src.len());
            kernel_bytes += end.saturating_sub(start);
            kernel_insts += fns[i].body.as_ref().unwrap().instruction_count();
        }
    }
    println!(
        "input: {} modules, {:.2} MB PTX; lowered kernels: {:.2} MB PTX, {} instructions",
        sources.len(),
        total as f64 / 1e6,
        kernel_bytes as f64 / 1e6,
        kernel_insts
    );
    // `LOWER_BENCH_PASSES=N`: exactly N passes (for callgrind / perf stat instruction counts).
    let fixed: Option<usize> = std::env::var("LOWER_BENCH_PASSES")
        .ok()
        .and_then(|v| v.parse().ok());
    // The form analysis alone (it is part of every lowering).
    let ta = common::thread_cpu_s();
    for m in &modules {
        std::hint::black_box(wheelport::ptx::analysis::kernel_forms(m));
    }
    let analysis = common::thread_cpu_s() - ta;
    let t0 = Instant::now();
    let c0 = common::thread_cpu_s();
    let mut passes = 0;
    // The least CPU time of one pass: on a shared machine the pass least disturbed by other
    // processes (caches, memory bandwidth), the steadier figure for comparing two versions.
    let mut fastest = f64::INFINITY;
    while match fixed {
        Some(n) => passes < n,
        None => t0.elapsed().as_secs_f64() < 2.0 || passes < 3,
    } {
        let cp = common::thread_cpu_s();
        for m in &modules {
            let lm = lower_module(m, prof);
            std::hint::black_box(&lm);
        }
        fastest = fastest.min(common::thread_cpu_s() - cp);
        passes += 1;
    }
    let wall = t0.elapsed().as_secs_f64() / passes as f64;
    // Per core: the CPU time of this thread (the machine may be shared; wall time is shown too).
    let dt = (common::thread_cpu_s() - c0) / passes as f64;
    println!(
        "lowering: {:.1} ms CPU time per corpus pass ({passes} passes; wall {:.1} ms)",
        dt * 1e3,
        wall * 1e3
    );
    println!(
        "  fastest pass: {:.1} ms CPU time, {:.1} MB/s of PTX (lowered kernels only)",
        fastest * 1e3,
        kernel_bytes as f64 / 1e6 / fastest
    );
    println!(
        "  {:.1} MB/s of PTX (whole modules)",
        total as f64 / 1e6 / dt
    );
    println!(
        "  {:.1} MB/s of PTX (lowered kernels only)",
        kernel_bytes as f64 / 1e6 / dt
    );
    println!(
        "  of which the form analysis (kernel_forms, one pass): {:.1} ms",
        analysis * 1e3
    );
    println!(
        "  {:.2} M instructions/s, {:.1} MB/s of IR written ({:.2} MB)",
        kernel_insts as f64 / 1e6 / dt,
        ir_bytes as f64 / 1e6 / dt,
        ir_bytes as f64 / 1e6
    );
    println!(
        "figure: {:.1} MB/s of PTX per core, AST to LLVM IR text (lowered kernels' PTX; \
         target >= 50)",
        kernel_bytes as f64 / 1e6 / dt
    );
    if std::env::var_os("LOWER_BENCH_NO_LLVM").is_some() {
        return;
    }
    // The peer: the LLVM 19 device build of every module with lowered kernels.
    // LLVM 19's tools, found the one way the tool finds them (toolchain::find_llvm_tool).
    let opts = wheelport::toolchain::SearchOptions::from_env();
    let found: Option<Vec<std::path::PathBuf>> = ["llc", "opt", "llvm-link", "ld.lld"]
        .iter()
        .map(|n| wheelport::toolchain::find_llvm_tool(n, 19, &opts))
        .collect();
    let Some(found) = found else {
        eprintln!("SKIP toolchain timing: LLVM 19 (llc, opt, llvm-link, ld.lld) not found");
        return;
    };
    let tool = |n: &str| {
        let i = ["llc", "opt", "llvm-link", "ld.lld"]
            .iter()
            .position(|x| *x == n)
            .expect("a tool looked up above");
        found[i].clone()
    };
    let dir = std::env::temp_dir().join(format!("wheelport-bench-lower-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let lib = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(&prof.ir_library);
    let t1 = Instant::now();
    let r1 = children_cpu_s();
    let mut built = 0;
    for (k, m) in modules.iter().enumerate() {
        let lm = lower_module(m, prof);
        if !lm
            .kernels
            .iter()
            .any(|k| k.outcome == KernelOutcome::Lowered)
        {
            continue;
        }
        let ll = dir.join(format!("m{k}.ll"));
        std::fs::write(&ll, &lm.ir).unwrap();
        let bc = dir.join(format!("m{k}.bc"));
        let o = dir.join(format!("m{k}.o"));
        let co = dir.join(format!("m{k}.co"));
        let ok = Command::new(tool("llvm-link"))
            .arg(&ll)
            .arg(&lib)
            .arg("-o")
            .arg(&bc)
            .status()
            .is_ok_and(|s| s.success())
            && Command::new(tool("opt"))
                .args(["-O3", "-o"])
                .arg(&bc)
                .arg(&bc)
                .status()
                .is_ok_and(|s| s.success())
            && Command::new(tool("llc"))
                .args([
                    "-mtriple=amdgcn-amd-amdhsa",
                    "-mcpu=gfx906",
                    "-filetype=obj",
                    "-o",
                ])
                .arg(&o)
                .arg(&bc)
                .status()
                .is_ok_and(|s| s.success())
            && Command::new(tool("ld.lld"))
                .arg("-shared")
                .arg(&o)
                .arg("-o")
                .arg(&co)
                .status()
                .is_ok_and(|s| s.success());
        assert!(ok, "device build of module {k} failed");
        built += 1;
    }
    let ext_wall = t1.elapsed().as_secs_f64();
    let ext = children_cpu_s() - r1;
    println!(
        "external compiler (llvm-link + opt -O3 + llc gfx906 + ld.lld, {built} modules): \
         {ext:.2} s CPU time (wall {ext_wall:.2} s)"
    );
    println!(
        "ratio: the lowering takes {:.2}% of the external compiler's CPU time",
        dt / ext * 100.0
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// User + system CPU time of the waited-for child processes in seconds (`RUSAGE_CHILDREN`).
fn children_cpu_s() -> f64 {
    // SAFETY: an all-zero rusage is a valid value for getrusage to overwrite.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `ru` is a valid, writable rusage.
    unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut ru) };
    let tv = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
    tv(ru.ru_utime) + tv(ru.ru_stime)
}
