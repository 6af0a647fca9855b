//! `amdgpu-exec`: disassemble or run AMDGPU code objects (see `amdgpu-exec --help`).

use amdgpu_exec::decode::Decoder;
use amdgpu_exec::elf::CodeObject;
use std::process::ExitCode;

fn usage() -> ExitCode {
    eprintln!(
        "usage:\n  amdgpu-exec disasm CODE_OBJECT   print every instruction of .text in LLVM's syntax\n  amdgpu-exec run --objects SO_OR_CO[,..] --cases CASES.json --results H200.json [--arch gfx906|gfx942|gfx1100] [--case A,B] [--seeds 0,1,2] [--root REPO] [--dump DIR] [--max-instructions N] [--raw DIR]\n  amdgpu-exec launch --object SO_OR_CO [--kernel NAME] --grid X[,Y,Z] --block X[,Y,Z] [--arch gfx906|gfx942|gfx1100] [--lds BYTES] ARG..\n      ARG: buf:FILE (a buffer holding FILE's bytes, written to FILE.out after the run) or val:HEX (by-value bytes), in the kernel's argument order\n  amdgpu-exec replay --object SO_OR_CO --record DIR [--kernel NAME] [--arch gfx906|gfx942|gfx1100]\n      one launch recorded on an NVIDIA GPU by tools/gpu/wp_launch_diff.c, its allocations at their recorded addresses; compared with the record's reference output\n"
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
        Some("launch") => launch(&args[1..]),
        Some("replay") => replay(&args[1..]),
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
/// [--seeds 0,1,2] [--root REPO] [--raw DIR]`: run a fixture case table and print one line per
/// output (`--raw`: the H200's raw output bytes, `runner::Options::raw`).
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
            let mut o = runner::Options {
                raw: opt(args, "--raw").map(std::path::Path::new),
                ..Default::default()
            };
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

fn dims(s: &str) -> Option<[u32; 3]> {
    let v: Vec<u32> = s
        .split(',')
        .map(|x| x.parse().ok())
        .collect::<Option<_>>()?;
    (1..=3)
        .contains(&v.len())
        .then(|| [v[0], *v.get(1).unwrap_or(&1), *v.get(2).unwrap_or(&1)])
}

/// `launch --object SO_OR_CO [--kernel NAME] --grid G --block B [--arch A] [--lds N] ARG..`:
/// one dispatch of one kernel (without `--kernel`, the only one there is) on buffers from
/// files. Each `buf:FILE` becomes a buffer (its
/// address the argument); `val:HEX` is copied as is. Arguments go to the offsets the
/// metadata gives the kernel's explicit arguments, in order; each buffer's contents after
/// the dispatch are written to `FILE.out`. Prints the wave instructions executed.
fn launch(args: &[String]) -> ExitCode {
    use amdgpu_exec::{exec, runner, Error};
    let kernel = opt(args, "--kernel");
    let (Some(obj), Some(grid), Some(block)) = (
        opt(args, "--object"),
        opt(args, "--grid").and_then(dims),
        opt(args, "--block").and_then(dims),
    ) else {
        return usage();
    };
    let arch = opt(args, "--arch").unwrap_or("gfx906");
    let dyn_lds = opt(args, "--lds").and_then(|v| v.parse().ok()).unwrap_or(0);
    let mut i = 0;
    let mut positional = Vec::new();
    while i < args.len() {
        if args[i].starts_with("--") {
            i += 2;
        } else {
            positional.push(args[i].as_str());
            i += 1;
        }
    }
    let go = || -> Result<(String, u64), Error> {
        let cos = runner::load_objects(std::path::Path::new(obj), arch)?;
        let kernel = match kernel {
            Some(k) => k.to_string(),
            None => match cos.iter().flat_map(|c| &c.kernels).collect::<Vec<_>>()[..] {
                [k] => k.name.clone(),
                ref ks => {
                    return Err(Error::new(format!(
                        "{obj}: {} kernels for {arch}; name one with --kernel",
                        ks.len()
                    )))
                }
            },
        };
        let kernel = kernel.as_str();
        let co = cos
            .into_iter()
            .find(|c| c.kernel(kernel).is_some())
            .ok_or_else(|| Error::new(format!("{obj}: no kernel {kernel} for {arch}")))?;
        let slots: Vec<(u32, u32)> = co
            .kernel(kernel)
            .map(|k| {
                k.args
                    .iter()
                    .filter(|a| !a.kind.starts_with("hidden_"))
                    .map(|a| (a.offset, a.size))
                    .collect()
            })
            .unwrap_or_default();
        if slots.len() != positional.len() {
            return Err(Error::new(format!(
                "{kernel} takes {} explicit arguments, {} given",
                slots.len(),
                positional.len()
            )));
        }
        let mut m = exec::Machine::new(co)?;
        let mut ka = Vec::new();
        let mut bufs = Vec::new();
        for (&(off, size), a) in slots.iter().zip(&positional) {
            let bytes = if let Some(f) = a.strip_prefix("buf:") {
                let d = std::fs::read(f).map_err(|e| Error::new(format!("{f}: {e}")))?;
                let addr = m.mem.alloc(d.len().max(16), f);
                m.mem.write(addr, &d)?;
                bufs.push((f, addr, d.len()));
                addr.to_le_bytes().to_vec()
            } else if let Some(h) = a.strip_prefix("val:") {
                (0..h.len() / 2)
                    .map(|j| u8::from_str_radix(h.get(2 * j..2 * j + 2).unwrap_or("x"), 16))
                    .collect::<Result<Vec<u8>, _>>()
                    .map_err(|_| Error::new(format!("{a}: not hex bytes")))?
            } else {
                return Err(Error::new(format!("{a}: neither buf:FILE nor val:HEX")));
            };
            if bytes.len() != size as usize {
                return Err(Error::new(format!(
                    "{a}: {} bytes for an argument of {size}",
                    bytes.len()
                )));
            }
            let end = (off + size) as usize;
            if ka.len() < end {
                ka.resize(end, 0);
            }
            ka[off as usize..end].copy_from_slice(&bytes);
        }
        let launch = exec::Launch {
            grid,
            block,
            dyn_lds,
        };
        let s = m.dispatch(kernel, &ka, &launch, exec::Limits::default())?;
        for (f, addr, len) in bufs {
            let mut v = vec![0u8; len];
            m.mem.read(addr, &mut v)?;
            let out = format!("{f}.out");
            std::fs::write(&out, v).map_err(|e| Error::new(format!("{out}: {e}")))?;
        }
        Ok((kernel.to_string(), s.instructions))
    };
    match go() {
        Ok((kernel, n)) => {
            println!("{kernel}: {n} wave-instructions");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("amdgpu-exec: {e}");
            ExitCode::from(1)
        }
    }
}

/// One launch recorded by `tools/gpu/wp_launch_diff.c` (a folder: `meta.txt`, `params.bin`,
/// and per allocation `N.before`, `N.ref`, `N.twin`).
struct Record {
    kernel: String,
    grid: [u32; 3],
    block: [u32; 3],
    shared: u32,
    /// (offset, size) of each parameter in `params`, in order.
    params: Vec<(usize, usize)>,
    /// (index, device address, size) of each allocation.
    ranges: Vec<(usize, u64, usize)>,
    block_bytes: Vec<u8>,
}

fn read_record(dir: &std::path::Path) -> Result<Record, amdgpu_exec::Error> {
    use amdgpu_exec::Error;
    let meta_path = dir.join("meta.txt");
    let meta = std::fs::read_to_string(&meta_path)
        .map_err(|e| Error::new(format!("{}: {e}", meta_path.display())))?;
    let bad = |l: &str| Error::new(format!("{}: bad line {l:?}", meta_path.display()));
    let mut r = Record {
        kernel: String::new(),
        grid: [1; 3],
        block: [1; 3],
        shared: 0,
        params: Vec::new(),
        ranges: Vec::new(),
        block_bytes: Vec::new(),
    };
    let three = |w: &[&str]| -> Option<[u32; 3]> {
        Some([
            w.first()?.parse().ok()?,
            w.get(1)?.parse().ok()?,
            w.get(2)?.parse().ok()?,
        ])
    };
    for l in meta.lines() {
        let w: Vec<&str> = l.split_whitespace().collect();
        match w.first().copied() {
            Some("kernel") => r.kernel = w.get(1).ok_or_else(|| bad(l))?.to_string(),
            Some("grid") => r.grid = three(&w[1..]).ok_or_else(|| bad(l))?,
            Some("block") => r.block = three(&w[1..]).ok_or_else(|| bad(l))?,
            Some("shared") => {
                r.shared = w
                    .get(1)
                    .and_then(|v| v.parse().ok())
                    .ok_or_else(|| bad(l))?
            }
            Some("param") => r.params.push(
                (|| Some((w.get(1)?.parse().ok()?, w.get(2)?.parse().ok()?)))()
                    .ok_or_else(|| bad(l))?,
            ),
            Some("range") => r.ranges.push(
                (|| {
                    Some((
                        w.get(1)?.parse().ok()?,
                        u64::from_str_radix(w.get(2)?.trim_start_matches("0x"), 16).ok()?,
                        w.get(3)?.parse().ok()?,
                    ))
                })()
                .ok_or_else(|| bad(l))?,
            ),
            _ => return Err(bad(l)),
        }
    }
    let p = dir.join("params.bin");
    r.block_bytes = std::fs::read(&p).map_err(|e| Error::new(format!("{}: {e}", p.display())))?;
    Ok(r)
}

/// `replay --object SO_OR_CO --record DIR [--kernel NAME] [--arch A]`: the recorded launch
/// run on the CPU, each allocation mapped at its recorded device address with its `before`
/// bytes, the kernel's explicit arguments taken from the recorded parameter block (CUDA's
/// parameter `i` is the kernel's explicit argument `i`, of the same size). Prints, per
/// allocation, how many bytes differ from the record's reference output (and from the
/// translated output it recorded), and writes `N.cpu`. Exit 0 when every allocation equals
/// the reference, 3 when one differs.
fn replay(args: &[String]) -> ExitCode {
    use amdgpu_exec::{exec, runner, Error};
    let (Some(obj), Some(rec)) = (opt(args, "--object"), opt(args, "--record")) else {
        return usage();
    };
    let arch = opt(args, "--arch").unwrap_or("gfx906");
    let dir = std::path::Path::new(rec);
    let go = || -> Result<bool, Error> {
        let r = read_record(dir)?;
        let kernel = opt(args, "--kernel").unwrap_or(&r.kernel).to_string();
        let cos = runner::load_objects(std::path::Path::new(obj), arch)?;
        let co = cos
            .into_iter()
            .find(|c| c.kernel(&kernel).is_some())
            .ok_or_else(|| Error::new(format!("{obj}: no kernel {kernel} for {arch}")))?;
        let k = co.kernel(&kernel).expect("found").clone();
        let slots: Vec<(u32, u32)> = k
            .args
            .iter()
            .filter(|a| !a.kind.starts_with("hidden_"))
            .map(|a| (a.offset, a.size))
            .collect();
        if slots.len() != r.params.len() {
            return Err(Error::new(format!(
                "{kernel} takes {} explicit arguments, the record has {} parameters",
                slots.len(),
                r.params.len()
            )));
        }
        let mut ka = vec![0u8; k.kernarg_segment_size as usize];
        for (j, (&(off, size), &(poff, psize))) in slots.iter().zip(&r.params).enumerate() {
            if size as usize != psize || poff + psize > r.block_bytes.len() {
                return Err(Error::new(format!(
                    "argument {j}: {size} bytes in the code object, {psize} at {poff} in the record"
                )));
            }
            ka[off as usize..off as usize + psize]
                .copy_from_slice(&r.block_bytes[poff..poff + psize]);
        }
        let mut m = exec::Machine::new(co)?;
        for &(i, addr, size) in &r.ranges {
            let p = dir.join(format!("{i}.before"));
            let d = std::fs::read(&p).map_err(|e| Error::new(format!("{}: {e}", p.display())))?;
            if d.len() != size {
                return Err(Error::new(format!(
                    "{}: {} bytes, not {size}",
                    p.display(),
                    d.len()
                )));
            }
            let end = addr + size as u64;
            if (addr < exec::SCRATCH_BASE + (1 << 40) && end > exec::HEAP_BASE)
                || (end > exec::IMAGE_BASE && addr < exec::IMAGE_BASE + (1 << 32))
            {
                return Err(Error::new(format!(
                    "allocation {i} at {addr:#x} lies where the interpreter maps its heap, scratch or code"
                )));
            }
            m.mem.map(addr, d, &format!("allocation {i}"));
        }
        let launch = exec::Launch {
            grid: r.grid,
            block: r.block,
            dyn_lds: r.shared,
        };
        let s = m.dispatch(&kernel, &ka, &launch, exec::Limits::default())?;
        println!("{kernel}: {} wave-instructions", s.instructions);
        let mut same = true;
        for &(i, addr, size) in &r.ranges {
            let mut got = vec![0u8; size];
            m.mem.read(addr, &mut got)?;
            let differ = |what: &str| -> Option<(usize, Option<usize>)> {
                let d = std::fs::read(dir.join(format!("{i}.{what}"))).ok()?;
                let n = d.iter().zip(&got).filter(|(a, b)| a != b).count();
                Some((n, d.iter().zip(&got).position(|(a, b)| a != b)))
            };
            let (rn, first) = differ("ref").unwrap_or((usize::MAX, None));
            let tn = differ("twin").map(|(n, _)| n);
            same &= rn == 0;
            println!(
                "allocation {i} ({addr:#x}, {size} bytes): {rn} bytes differ from the reference{}{}",
                first.map(|f| format!(" (first at +{f})")).unwrap_or_default(),
                tn.map(|n| format!(", {n} from the recorded translated output")).unwrap_or_default()
            );
            let out = dir.join(format!("{i}.cpu"));
            std::fs::write(&out, &got)
                .map_err(|e| Error::new(format!("{}: {e}", out.display())))?;
        }
        Ok(same)
    };
    match go() {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(3),
        Err(e) => {
            eprintln!("amdgpu-exec: {e}");
            ExitCode::from(1)
        }
    }
}
