//! PTX front-end throughput: lexing plus building the AST on the concatenated corpus.
//!
//! Input: every `*.ptx` in env `WHEELPORT_PTX_CORPUS` or, when it is unset, the 11 PTX modules of
//! the xformers 0.0.35 corpus wheel (`$WHEELPORT_CORPUS`, default `../shared/corpus`), each
//! parsed separately (they are separate modules), repeated until at least ~2 s have passed. Reports
//! MB/s (1 MB = 1e6 bytes) on one core (building the trees; dropping them is timed apart), the
//! lexer alone, the lex-only/parse ratio, and peak RSS (VmHWM from
//! /proc/self/status) per MB of input, measured around a single pass that keeps every AST
//! alive at once.
//!
//! The figure is reported twice: with the parser's instruction fast path (the parser as
//! shipped; the mean over all passes) and with the token-based parser alone
//! (for reference); the fastest single pass of the fast path is printed too. Times are thread
//! CPU times.
//!
//! Run: `cargo bench --bench ptx_parse`. With env `PTX_BENCH_PASSES=N` it only parses the corpus
//! N times (build and drop) and exits: a fixed amount of work for `perf stat` or callgrind.
//!
//! The machine's allocator matters: each pass writes about 4.5 bytes of AST per byte of PTX
//! into fresh pages, and glibc hands freed
//! memory back to the kernel, so page faults are part of the cost. The size of the tree is the
//! largest single factor in this figure: see the notes in `src/ptx/parser/mod.rs`.

#[path = "common/mod.rs"]
#[allow(dead_code)]
mod common;

use std::time::Instant;

fn vm_hwm_kib() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn vm_rss_kib() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with("VmRSS:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// The PTX modules of a wheel's shared objects (wheelport's fatbin reader).
fn wheel_ptx(wheel: &std::path::Path) -> Vec<String> {
    let mut r = wheelport::wheel::WheelReader::open(wheel).expect("open wheel");
    let mut out = Vec::new();
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
                    out.push(String::from_utf8(e.ptx_bytes().unwrap().to_vec()).unwrap());
                }
            }
        }
    }
    out
}

fn main() {
    let sources: Vec<String> = match std::env::var("WHEELPORT_PTX_CORPUS") {
        Ok(dir) => {
            let mut files: Vec<_> = match std::fs::read_dir(&dir) {
                Ok(rd) => rd
                    .filter_map(|e| e.ok().map(|e| e.path()))
                    .filter(|p| p.extension().is_some_and(|e| e == "ptx"))
                    .collect(),
                Err(e) => {
                    eprintln!("ptx_parse bench: cannot read {dir}: {e}");
                    return;
                }
            };
            files.sort();
            files
                .iter()
                .map(|p| std::fs::read_to_string(p).expect("read corpus file"))
                .collect()
        }
        Err(_) => match common::corpus_wheel("xformers-0.0.35") {
            Some(w) => wheel_ptx(&w),
            None => return,
        },
    };
    let total: usize = sources.iter().map(|s| s.len()).sum();
    if total == 0 {
        eprintln!("ptx_parse bench: no PTX input");
        return;
    }
    let mb = total as f64 / 1e6;
    println!("input: {} files, {:.2} MB", sources.len(), mb);

    // Fixed-work mode for profilers (`perf stat`, callgrind): parse every file N times and exit.
    if let Some(n) = std::env::var("PTX_BENCH_PASSES")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
    {
        // `PTX_BENCH_FAST_PATH=0`: the token-based parser only (the instruction fast path off).
        let opts = wheelport::ptx::ParseOptions {
            fast_path: std::env::var("PTX_BENCH_FAST_PATH").map_or(true, |v| v != "0"),
        };
        let mut items = 0usize;
        for _ in 0..n {
            for s in &sources {
                items += wheelport::ptx::parse_with(s, "bench", opts)
                    .module
                    .items
                    .len();
            }
        }
        println!("{n} passes, {items} items");
        return;
    }

    // Peak memory: all ASTs alive at once.
    let rss_before = vm_rss_kib().unwrap_or(0);
    let outs: Vec<_> = sources
        .iter()
        .map(|s| wheelport::ptx::parse(s, "bench"))
        .collect();
    let errors: usize = outs.iter().map(|o| o.error_count()).sum();
    let hwm = vm_hwm_kib().unwrap_or(0);
    let inputs_kib = (total / 1024) as u64;
    println!(
        "peak RSS (VmHWM) {:.1} MiB with all ASTs alive; AST overhead ≈ {:.2} MiB per MB of \
         input (peak − RSS before parsing, input text itself ≈ {:.1} MiB excluded)",
        hwm as f64 / 1024.0,
        (hwm.saturating_sub(rss_before)) as f64 / 1024.0 / mb,
        inputs_kib as f64 / 1024.0
    );
    println!(
        "peak RSS per MB of input: {:.2} MiB/MB",
        hwm as f64 / 1024.0 / mb
    );
    assert_eq!(errors, 0, "corpus has parse errors");
    drop(outs);

    // Lexer alone.
    let t = Instant::now();
    let c0 = common::thread_cpu_s();
    let mut n = 0usize;
    let mut bytes = 0usize;
    while t.elapsed().as_secs_f64() < 1.0 {
        for s in &sources {
            let mut lx = wheelport::ptx::lexer::Lexer::new(s);
            while lx.bump().kind != wheelport::ptx::lexer::Tok::Eof {
                n += 1;
            }
            bytes += s.len();
        }
    }
    let lex_secs = common::thread_cpu_s() - c0;
    let lex_bytes = bytes;
    println!(
        "lex only:        {:8.1} MB/s ({} tokens/pass)",
        lex_bytes as f64 / 1e6 / lex_secs,
        n / (lex_bytes / total).max(1)
    );

    // Lex + parse + build AST, with the instruction fast path (the parser as shipped) and
    // without it (the token-based parser alone, for reference). Each pass's ASTs are kept and
    // dropped after the clock is read, so this measures building the tree only; the drop is
    // timed separately. Times are the CPU time of this thread (one core; the machine may be
    // shared, which the wall clock would count).
    let measure = |fast_path: bool| {
        let opts = wheelport::ptx::ParseOptions { fast_path };
        let (mut passes, mut parse_secs, mut drop_secs, mut fast) = (0usize, 0.0f64, 0.0f64, 0);
        let mut fastest = f64::MAX;
        let wall = Instant::now();
        while wall.elapsed().as_secs_f64() < 2.0 {
            let t = common::thread_cpu_s();
            let outs: Vec<_> = sources
                .iter()
                .map(|s| wheelport::ptx::parse_with(s, "bench", opts))
                .collect();
            let dt = common::thread_cpu_s() - t;
            parse_secs += dt;
            fastest = fastest.min(dt);
            fast = outs.iter().map(|o| o.fast_path_instructions).sum::<usize>();
            passes += 1;
            let t = common::thread_cpu_s();
            drop(std::hint::black_box(outs));
            drop_secs += common::thread_cpu_s() - t;
        }
        let mbs = |secs: f64| (passes * total) as f64 / 1e6 / secs;
        let best = total as f64 / 1e6 / fastest;
        (
            mbs(parse_secs),
            mbs(parse_secs + drop_secs),
            passes,
            fast,
            best,
        )
    };
    let (slow_mbs, slow_drop_mbs, slow_passes, _, _) = measure(false);
    let (parse_mbs, drop_mbs, passes, fast, best_mbs) = measure(true);
    let lex_mbs = lex_bytes as f64 / 1e6 / lex_secs;
    println!(
        "token path only: {slow_mbs:8.1} MB/s on one core ({slow_passes} passes; \
         {slow_drop_mbs:.1} MB/s with the drop)"
    );
    println!(
        "lex+parse+AST:   {parse_mbs:8.1} MB/s on one core ({passes} passes; dropping the ASTs \
         excluded; the fast path read {fast} instructions per pass)"
    );
    println!("lex+parse+AST+drop: {drop_mbs:5.1} MB/s on one core");
    println!(
        "fastest single pass: {best_mbs:.1} MB/s (the steadier figure for comparing two builds \
         on a shared machine; the issue figure below is the mean over all passes)"
    );
    println!(
        "figure: {parse_mbs:.1} MB/s of PTX per core, lexing plus building the AST \
         (target >= 200); fast path {:.2}x the token path",
        parse_mbs / slow_mbs
    );
    println!(
        "ratio lex-only / lex+parse+AST throughput: {:.2}",
        lex_mbs / parse_mbs
    );
}
