//! `amdgpu-exec`: disassemble or run AMDGPU code objects (see `amdgpu-exec --help`).

use amdgpu_exec::decode::Decoder;
use amdgpu_exec::elf::CodeObject;
use std::process::ExitCode;

fn usage() -> ExitCode {
    eprintln!(
        "usage:\n  amdgpu-exec disasm CODE_OBJECT   print every instruction of .text in LLVM's syntax\n  amdgpu-exec run --objects SO_OR_CO[,..] --cases CASES.json --results H200.json [--arch gfx906] [--case A,B] [--seeds 0,1,2] [--root REPO] [--dump DIR] [--max-instructions N]\n"
    );
    ExitCode::from(2)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("disasm") if args.len() == 2 => {
            let data = match std::fs::read(&args[1]) {
                Ok(d) => d,
                Err(e) => {
                    eprintln!("amdgpu-exec: {}: {e}", args[1]);
                    return ExitCode::from(1);
                }
            };
            let co = match CodeObject::parse(&data) {
                Ok(c) => c,
                Err(e) => {
                    eprintln!("amdgpu-exec: {}: {e}", args[1]);
                    return ExitCode::from(1);
                }
            };
            let dec = Decoder::new(co.arch);
            let text = &co.image[co.text.0 as usize..co.text.1 as usize];
            match dec.decode_all(text, co.text.0) {
                Ok(v) => {
                    for (pc, i) in v {
                        println!("{pc:012x} {}", amdgpu_exec::disasm::print(&i, co.arch));
                    }
                    ExitCode::SUCCESS
                }
                Err(e) => {
                    eprintln!("amdgpu-exec: {}: {e}", args[1]);
                    ExitCode::from(1)
                }
            }
        }
        Some("run") => run(&args[1..]),
        _ => usage(),
    }
}

fn opt<'a>(args: &'a [String], name: &str) -> Option<&'a str> {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .map(String::as_str)
}

/// `run --objects SO_OR_CO --cases CASES --results RESULTS [--arch gfx906] [--case A,B]
/// [--seeds 0,1,2] [--root REPO]`: run a fixture case table and print one line per output.
fn run(args: &[String]) -> ExitCode {
    use amdgpu_exec::runner;
    let (Some(objs), Some(cases), Some(results)) = (
        opt(args, "--objects"),
        opt(args, "--cases"),
        opt(args, "--results"),
    ) else {
        return usage();
    };
    let arch = opt(args, "--arch").unwrap_or("gfx906");
    let root = std::path::PathBuf::from(opt(args, "--root").unwrap_or("."));
    let go = || -> Result<bool, amdgpu_exec::Error> {
        let mut machines = Vec::new();
        for p in objs.split(',') {
            for co in runner::load_objects(std::path::Path::new(p), arch)? {
                machines.push(amdgpu_exec::exec::Machine::new(co)?);
            }
        }
        let results: serde_json::Value = serde_json::from_slice(
            &std::fs::read(results)
                .map_err(|e| amdgpu_exec::Error::new(format!("{results}: {e}")))?,
        )
        .map_err(|e| amdgpu_exec::Error::new(format!("{results}: {e}")))?;
        let scratch = std::env::temp_dir().join(format!("amdgpu-exec-{}", std::process::id()));
        let jobs = runner::harness_jobs(
            std::path::Path::new("python3"),
            &runner::harness_dir(&root),
            std::path::Path::new(cases),
            &scratch,
            opt(args, "--case"),
            opt(args, "--seeds"),
        )?;
        let _ = std::fs::remove_dir_all(&scratch);
        let entries = runner::entry_table(std::path::Path::new(cases))?;
        let entry_of = |l: &str| entries.iter().find(|(x, _)| x == l).map(|(_, e)| e.clone());
        let mut all_ok = true;
        for j in &jobs {
            let mut o = runner::Options::default();
            if let Some(m) = opt(args, "--max-instructions").and_then(|v| v.parse().ok()) {
                o.limits.max_instructions = m;
            }
            let r = runner::run_job(&mut machines, j, &entry_of, &results, o);
            match &r.error {
                Some(e) => {
                    all_ok = false;
                    println!("{} s{}: ERROR {e}", r.case, r.seed);
                }
                None => {
                    if let Some(d) = opt(args, "--dump") {
                        let _ = std::fs::create_dir_all(d);
                        for o in &r.outputs {
                            let p = std::path::Path::new(d)
                                .join(format!("{}.s{}.{}.bin", r.case, r.seed, o.name));
                            let _ = std::fs::write(p, &o.bytes);
                        }
                    }
                    for o in &r.outputs {
                        if o.verdict != runner::Verdict::Match {
                            all_ok = false;
                        }
                        println!(
                            "{} s{} {}: {} ({} wave-instructions, {:.2}s)",
                            r.case,
                            r.seed,
                            o.name,
                            o.verdict.label(),
                            r.stats.instructions,
                            r.seconds
                        );
                    }
                }
            }
        }
        Ok(all_ok)
    };
    match go() {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(e) => {
            eprintln!("amdgpu-exec: {e}");
            ExitCode::from(1)
        }
    }
}
