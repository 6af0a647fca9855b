//! wheelport's gfx906 code against a source port built with hipcc (issue 22).
//!
//! For every kernel of `fixtures/hip/comparison.toml`: the code object wheelport builds from
//! the CUDA fixture's PTX (the `dtk` profile, `lower_module` and the device build that
//! `convert` runs, whole modules) against the HIP port of the same source
//! (`fixtures/hip/*.hip`) built with Debian's hipcc (HIP 5.2.3, clang 15) and with clang 19,
//! both `-O3 --offload-arch=gfx906`. Figures per kernel: instructions (`llvm-objdump -d`),
//! code bytes (symbol size), VGPRs, SGPRs, VGPR spills and scratch bytes (the code object's
//! metadata note), the waves per SIMD those registers allow on gfx906
//! (`Figures::waves_per_simd`) and llvm-mca cycles per iteration of the hot loop (the innermost loop with
//! the most instructions; unroll factors may differ between the two sides). Printed: a row per
//! kernel, the geometric means of wheelport/hipcc and wheelport/clang19 (over the kernels
//! both sides have) and of clang19/hipcc on the same HIP source (what the LLVM version alone
//! moves), the kernels above 1.25x instructions, and the wheelport-only rows
//! (xformers' SparseGemm kernels). The table is also written as Markdown to
//! `<target>/tmp/codegen_vs_hipcc/report.md`.
//!
//! Tools: LLVM 19 (`llc`, `opt`, `llvm-link`, `ld.lld`, `llvm-objdump`, `llvm-mca`, `clang`,
//! found as `wheelport::toolchain` finds them), hipcc (`$WHEELPORT_HIPCC`, else `PATH`;
//! Debian: `apt-get install hipcc rocm-device-libs`). clang 19 reads the HIP headers under
//! hipcc's `--rocm-path` and the device libraries of its `--hip-device-lib-path` (`ROCM_PATH`
//! and `HIP_DEVICE_LIB_PATH` override). Missing hipcc or LLVM 19: SKIP. The xformers rows
//! need the corpus wheel (`$WHEELPORT_CORPUS`); without it they are skipped.
//!
//! The HIP builds are cached by the SHA-256 of compiler, flags and sources, and wheelport's
//! device builds in wheelport's build cache, both under `<target>/tmp/codegen_vs_hipcc/`.
//!
//! Run: `cargo bench --bench codegen_vs_hipcc`; `CODEGEN_FILTER=substr` keeps the rows whose
//! name contains it.

#[path = "common/mod.rs"]
mod common;
#[path = "codegen/hip.rs"]
mod hip;
#[path = "codegen/object.rs"]
mod object_figures;

use object_figures::Figures;
use serde::Deserialize;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

const ARCH: &str = "gfx906";

#[derive(Deserialize)]
struct Table {
    kernel: Vec<Row>,
    #[serde(default)]
    wheelport_only: Vec<OnlyRow>,
}

#[derive(Deserialize)]
struct Row {
    name: String,
    ptx: String,
    entry: String,
    hip: String,
    symbol: Option<String>,
}

#[derive(Deserialize)]
struct OnlyRow {
    name: String,
    ptx: String,
    entry_contains: String,
}

/// The PTX modules of a source (`gpu/x.so` or `corpus:<prefix>`), each with its name, and
/// the launch facts of its host objects (as `convert` uses them).
fn ptx_modules(
    root: &Path,
    spec: &str,
) -> Option<(Vec<(String, String)>, wheelport::elf::launch::LaunchFacts)> {
    let mut objects: Vec<(String, Vec<u8>)> = Vec::new();
    if let Some(prefix) = spec.strip_prefix("corpus:") {
        let wheel = common::corpus_wheel(prefix)?;
        let mut r = wheelport::wheel::WheelReader::open(&wheel).expect("open wheel");
        for name in r.member_names() {
            if wheelport::wheel::is_shared_object_name(&name) {
                objects.push((name.clone(), r.read_member(&name).expect("member")));
            }
        }
    } else {
        let p = root.join("fixtures").join(spec);
        objects.push((spec.to_string(), std::fs::read(&p).expect("fixture .so")));
    }
    let mut out = Vec::new();
    let mut facts = wheelport::elf::launch::LaunchFacts::default();
    for (name, data) in &objects {
        let f = wheelport::elf::launch::launch_facts(data, name).expect("launch facts");
        facts.bounds.extend(f.bounds);
        facts.unproven.extend(f.unproven);
        let so = wheelport::elf::scan(data, name).expect("scan");
        for (sec, cs) in wheelport::fatbin::parse_object_sections(data, &so, name).expect("fatbin")
        {
            for (ci, c) in cs.iter().enumerate() {
                for e in &c.entries {
                    if e.kind() == wheelport::fatbin::EntryKind::Ptx {
                        let text = String::from_utf8(e.ptx_bytes().unwrap().to_vec()).unwrap();
                        out.push((format!("{name}!{}#{ci}", sec.name), text));
                    }
                }
            }
        }
    }
    Some((out, facts))
}

/// The `.entry` names of a PTX text.
fn entries(ptx: &str) -> Vec<String> {
    ptx.lines()
        .filter_map(|l| {
            let l = l.trim_start();
            let l = l.strip_prefix(".visible ").unwrap_or(l);
            let l = l.strip_prefix(".weak ").unwrap_or(l);
            l.strip_prefix(".entry ")
                .map(|r| r.trim_end_matches('(').trim().to_string())
        })
        .collect()
}

fn geomean(v: &[f64]) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    (v.iter().map(|x| x.ln()).sum::<f64>() / v.len() as f64).exp()
}

/// A figure of a kernel as a number.
type Measure = fn(&Figures) -> f64;

/// The ratios a geometric mean is taken of, per figure.
const MEASURES: &[(&str, Measure)] = &[
    ("instructions", |f| f.instructions as f64),
    ("code bytes", |f| f.code_bytes as f64),
    ("VGPRs", |f| f.vgprs as f64),
    ("SGPRs", |f| f.sgprs as f64),
    ("1 + VGPR spills", |f| 1.0 + f.vgpr_spills as f64),
    ("1 + scratch bytes", |f| 1.0 + f.scratch as f64),
    ("waves per SIMD (registers; higher is better)", |f| {
        f.waves_per_simd() as f64
    }),
];

fn main() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let work = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("codegen_vs_hipcc");
    std::fs::create_dir_all(&work).expect("work dir");
    let filter = std::env::var("CODEGEN_FILTER").unwrap_or_default();
    let table: Table = toml::from_str(
        &std::fs::read_to_string(root.join("fixtures/hip/comparison.toml")).expect("table"),
    )
    .expect("fixtures/hip/comparison.toml");
    let rows: Vec<&Row> = table
        .kernel
        .iter()
        .filter(|r| r.name.contains(&filter))
        .collect();
    let only: Vec<&OnlyRow> = table
        .wheelport_only
        .iter()
        .filter(|r| r.name.contains(&filter))
        .collect();

    // Tools.
    let prof = wheelport::target::profile("dtk").unwrap();
    let search = wheelport::toolchain::SearchOptions::from_env();
    let tc = wheelport::toolchain::discover(prof, &search);
    if !tc.is_complete() {
        eprintln!("SKIP: LLVM tools for dtk missing: {:?}", tc.missing);
        return;
    }
    let Some(objdump) = wheelport::toolchain::find_llvm_tool("llvm-objdump", 19, &search) else {
        eprintln!("SKIP: llvm-objdump 19 not found");
        return;
    };
    let mca = wheelport::toolchain::find_llvm_tool("llvm-mca", 19, &search);
    if mca.is_none() {
        eprintln!("llvm-mca 19 not found: no loop cycles");
    }
    let tools = object_figures::Tools { objdump, mca };
    let Some(hipcc_path) = hip::find_hipcc() else {
        eprintln!(
            "SKIP: hipcc not found (set WHEELPORT_HIPCC, or on Debian 12: apt-get install hipcc rocm-device-libs)"
        );
        return;
    };
    let facts = match hip::hipcc_facts(&hipcc_path, ARCH) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("SKIP: {e}");
            return;
        }
    };
    let mut compilers = vec![hip::Compiler::hipcc(&hipcc_path, &facts, ARCH)];
    match (
        std::env::var_os("WHEELPORT_HIP_CLANG")
            .map(PathBuf::from)
            .or_else(|| wheelport::toolchain::find_llvm_tool("clang", 19, &search)),
        &facts.rocm_path,
        &facts.device_libs,
    ) {
        (Some(c), Some(r), Some(d)) => compilers.push(hip::Compiler::clang(&c, r, d, ARCH)),
        _ => eprintln!("clang 19 with the ROCm device libraries not found: no clang19 column"),
    }
    println!(
        "wheelport: {}",
        tc.tool("llc")
            .map(|t| t.version_line.as_str())
            .unwrap_or("")
    );
    for c in &compilers {
        println!("{}: {}", c.label, c.describe);
    }

    // wheelport: every module holding a wanted entry, built as `convert` builds it.
    let mut wanted: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for r in &rows {
        wanted.entry(&r.ptx).or_default().insert(&r.entry);
    }
    for r in &only {
        wanted.entry(&r.ptx).or_default();
    }
    let pipeline = wheelport::device::Pipeline {
        toolchain: tc.clone(),
        cache: Some(wheelport::build::Cache::new(work.join("wheelport-build"))),
        split_bytes: None,
        nvdisasm: wheelport::toolchain::discover_nvdisasm(&search),
    };
    let mut ours: BTreeMap<String, Figures> = BTreeMap::new();
    let mut not_built: BTreeMap<String, String> = BTreeMap::new();
    let t0 = std::time::Instant::now();
    for (spec, names) in &wanted {
        let Some((mods, facts)) = ptx_modules(&root, spec) else {
            continue;
        };
        let only_pats: Vec<&str> = only
            .iter()
            .filter(|o| o.ptx == *spec)
            .map(|o| o.entry_contains.as_str())
            .collect();
        let jobs: Vec<wheelport::device::ModuleJob> = mods
            .iter()
            .filter(|(_, text)| {
                entries(text)
                    .iter()
                    .any(|e| names.contains(e.as_str()) || only_pats.iter().any(|p| e.contains(p)))
            })
            .map(|(n, text)| wheelport::device::ModuleJob {
                name: n.clone(),
                ptx: text,
            })
            .collect();
        let results = pipeline.build(prof, &[ARCH.to_string()], &jobs, &|m, p| {
            wheelport::lower::lower_module_with(m, p, &facts)
        });
        for (job, res) in jobs.iter().zip(&results) {
            for k in &res.lowered.kernels {
                if k.outcome != wheelport::lower::KernelOutcome::Lowered {
                    not_built.insert(k.name.clone(), format!("{:?}", k.outcome));
                }
            }
            let Some(b) = &res.built else {
                eprintln!(
                    "{}: not built: {}",
                    job.name,
                    res.error.as_deref().unwrap_or("")
                );
                continue;
            };
            match object_figures::kernel_figures(&b.objects[0].bytes, &tools, ARCH) {
                Ok(f) => ours.extend(f),
                Err(e) => eprintln!("{}: {e}", job.name),
            }
        }
    }
    println!("wheelport builds: {:.1} s", t0.elapsed().as_secs_f64());

    // The HIP ports.
    let mut theirs: Vec<BTreeMap<String, Figures>> = Vec::new();
    let hip_files: BTreeSet<&str> = rows.iter().map(|r| r.hip.as_str()).collect();
    for c in &compilers {
        let t = std::time::Instant::now();
        let mut m = BTreeMap::new();
        for f in &hip_files {
            let src = root.join("fixtures/hip").join(f);
            match c
                .build(&src, &work.join("hip"))
                .and_then(|co| object_figures::kernel_figures(&co, &tools, ARCH))
            {
                Ok(figs) => m.extend(figs),
                Err(e) => eprintln!("{e}"),
            }
        }
        println!("{} builds: {:.1} s", c.label, t.elapsed().as_secs_f64());
        theirs.push(m);
    }

    // Report.
    let mut md = String::new();
    let mut head = String::from("| kernel | instructions wp / ");
    head += &compilers
        .iter()
        .map(|c| c.label)
        .collect::<Vec<_>>()
        .join(" / ");
    head += " | VGPRs | SGPRs | VGPR spills | SGPR spills | scratch B | waves/SIMD | loop cycles/iter |\n|---|---|---|---|---|---|---|---|---|\n";
    md += &head;
    let mut ratios: Vec<Vec<Vec<f64>>> = vec![vec![Vec::new(); MEASURES.len()]; compilers.len()];
    let mut loop_ratios: Vec<Vec<f64>> = vec![Vec::new(); compilers.len()];
    // The other compilers against hipcc on the same HIP source: how far the LLVM version
    // alone moves each figure.
    let mut peer_ratios: Vec<Vec<Vec<f64>>> =
        vec![vec![Vec::new(); MEASURES.len()]; compilers.len()];
    let mut above: Vec<(String, f64)> = Vec::new();
    let mut counted = 0;
    for r in &rows {
        let sym = r.symbol.as_deref().unwrap_or(&r.entry);
        let Some(w) = ours.get(&r.entry) else {
            let why = not_built
                .get(&r.entry)
                .map(String::as_str)
                .unwrap_or("no PTX or no build");
            println!("{}: no wheelport figures ({why})", r.name);
            continue;
        };
        let hs: Vec<Option<&Figures>> = theirs.iter().map(|m| m.get(sym)).collect();
        if hs[0].is_none() {
            println!("{}: no hipcc figures (symbol {sym})", r.name);
            continue;
        }
        counted += 1;
        for (ci, h) in hs.iter().enumerate() {
            let Some(h) = h else { continue };
            for (mi, (_, f)) in MEASURES.iter().enumerate() {
                ratios[ci][mi].push(f(w) / f(h));
            }
            if let (Some(a), Some(b)) = (w.loop_cycles, h.loop_cycles) {
                loop_ratios[ci].push(a / b);
            }
            if ci > 0 {
                let h0 = hs[0].unwrap();
                for (mi, (_, f)) in MEASURES.iter().enumerate() {
                    peer_ratios[ci][mi].push(f(h) / f(h0));
                }
            }
        }
        let x = w.instructions as f64 / hs[0].unwrap().instructions as f64;
        if x > 1.25 {
            above.push((r.name.clone(), x));
        }
        let col = |f: &dyn Fn(&Figures) -> String| {
            std::iter::once(f(w))
                .chain(hs.iter().map(|h| h.map(f).unwrap_or_else(|| "-".into())))
                .collect::<Vec<_>>()
                .join(" / ")
        };
        let lc = |f: &Figures| {
            f.loop_cycles
                .map(|c| format!("{c:.1}"))
                .unwrap_or_else(|| "-".into())
        };
        writeln!(
            md,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            r.name,
            col(&|f| f.instructions.to_string()),
            col(&|f| f.vgprs.to_string()),
            col(&|f| f.sgprs.to_string()),
            col(&|f| f.vgpr_spills.to_string()),
            col(&|f| f.sgpr_spills.to_string()),
            col(&|f| f.scratch.to_string()),
            col(&|f| f.waves_per_simd().to_string()),
            col(&lc),
        )
        .unwrap();
    }
    md +=
        &format!("\nGeometric means over {counted} kernels (wheelport / HIP port):\n\n| figure |");
    for c in &compilers {
        md += &format!(" wheelport / {} |", c.label);
    }
    for c in &compilers[1..] {
        md += &format!(" {} / {} (same HIP source) |", c.label, compilers[0].label);
    }
    md += "\n|---|";
    md += &"---|".repeat(2 * compilers.len() - 1);
    md += "\n";
    for (mi, (name, _)) in MEASURES.iter().enumerate() {
        md += &format!("| {name} |");
        for r in ratios.iter().chain(&peer_ratios[1..]) {
            md += &format!(" {:.3} |", geomean(&r[mi]));
        }
        md += "\n";
    }
    md += "| loop cycles/iteration |";
    for lr in &loop_ratios {
        md += &format!(" {:.3} ({} loops) |", geomean(lr), lr.len());
    }
    md += &" - |".repeat(compilers.len() - 1);
    md += "\n";
    above.sort_by(|a, b| b.1.total_cmp(&a.1));
    md += &format!(
        "\nAbove 1.25x hipcc's instructions: {}\n",
        if above.is_empty() {
            "none".to_string()
        } else {
            above
                .iter()
                .map(|(n, x)| format!("{n} {x:.2}x"))
                .collect::<Vec<_>>()
                .join(", ")
        }
    );
    if !only.is_empty() {
        md += "\nwheelport only (no HIP port):\n\n| kernel | instructions | VGPRs | SGPRs | VGPR spills | scratch B | max flat work-group |\n|---|---|---|---|---|---|---|\n";
        for o in &only {
            let mut n = 0;
            for (name, f) in ours.iter().filter(|(n, _)| n.contains(&o.entry_contains)) {
                n += 1;
                let short: String = name.chars().take(60).collect();
                writeln!(
                    md,
                    "| {} #{n} (`{short}…`) | {} | {} | {} | {} | {} | {} |",
                    o.name,
                    f.instructions,
                    f.vgprs,
                    f.sgprs,
                    f.vgpr_spills,
                    f.scratch,
                    f.max_flat_wg
                )
                .unwrap();
            }
            if n == 0 {
                writeln!(md, "| {} | not built | | | | | |", o.name).unwrap();
            }
        }
    }
    print!("\n{md}");
    let report = work.join("report.md");
    std::fs::write(&report, &md).expect("report");
    println!("\n(written to {})", report.display());
}
