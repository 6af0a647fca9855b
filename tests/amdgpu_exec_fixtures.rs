//! Every case of every `fixtures/gpu` family executed from the gfx906, gfx942 and gfx1100
//! (RDNA3, wave64) code objects `wheelport convert` writes (and the scalar family's gfx906
//! build with `--nan canonical`), in the project's own ISA interpreter
//! (`tools/amdgpu-exec`), and compared output by output with the SHA-256 the original CUDA
//! binary produced on the H200 (`fixtures/gpu/results/*ptxjit-validation.json`).
//!
//! The verdicts are rendered as a table that is committed (`docs/executed-isa-results.md`);
//! the test fails when the table it makes differs from the committed one, so any change in
//! what matches (a lowering change, an interpreter change) shows in review. Every output
//! that does not match has its triaged reason in [`reason`]; an unexplained difference fails
//! the test. `WHEELPORT_UPDATE_EXEC_TABLE=1` writes the table instead of comparing.
//! docs/executed-isa.md says what is executed, how it is compared and what is not shown.

mod common;

use amdgpu_exec::exec::Machine;
use amdgpu_exec::runner::{self, Verdict};
use common::{require_tool, root, run};
use std::fmt::Write as _;
use std::process::Command;
use std::time::Instant;

/// (family, fixture .so, case table, H200 results) of every GPU fixture family.
const FAMILIES: &[(&str, &str, &str, &str)] = &[
    (
        "scalar",
        "twin_fixtures.so",
        "cases.json",
        "ptxjit-validation.json",
    ),
    (
        "warp",
        "warp_fixtures.so",
        "warp_cases.json",
        "warp-ptxjit-validation.json",
    ),
    (
        "tensor_mem",
        "tensor_mem_fixtures.so",
        "tensor_mem_cases.json",
        "tensor_mem-ptxjit-validation.json",
    ),
    (
        "tensor_mem_sm90",
        "tensor_mem_sm90_fixtures.so",
        "tensor_mem_sm90_cases.json",
        "tensor_mem_sm90-ptxjit-validation.json",
    ),
    (
        "mma",
        "mma_fixtures.so",
        "mma_cases.json",
        "mma-ptxjit-validation.json",
    ),
    (
        "wmma",
        "wmma_fixtures.so",
        "wmma_cases.json",
        "wmma-ptxjit-validation.json",
    ),
    (
        "video",
        "video_fixtures.so",
        "video_cases.json",
        "video-ptxjit-validation.json",
    ),
    (
        "mbarrier",
        "mbarrier_fixtures.so",
        "mbarrier_cases.json",
        "mbarrier-ptxjit-validation.json",
    ),
];

/// (label, processor, `--nan canonical`) of every run: the three processors as converted by
/// default, and gfx906 with NVIDIA's canonical NaNs ([`NAN_FAMILIES`] only).
const RUNS: &[(&str, &str, bool)] = &[
    ("gfx906", "gfx906", false),
    ("gfx942", "gfx942", false),
    ("gfx906, --nan canonical", "gfx906", true),
    ("gfx1100", "gfx1100", false),
];

/// The families run again with `--nan canonical`: those with NaN-payload records.
const NAN_FAMILIES: &[&str] = &["scalar"];

/// The triaged reasons (key, explanation) of the outputs that do not match; the evidence
/// for each is in docs/executed-isa.md.
const REASONS: &[(&str, &str)] = &[
    ("nan-payload", "AMD vs NVIDIA, NaN payloads: the H200's arithmetic writes its canonical NaN (0x7fffffff, 0x7fff); gfx9 (and gfx11 as the interpreter models it) propagates the first NaN operand, quieted, and writes 0xffc00000 for an invalid operation. Shown: the output with its NaNs set to the named pattern (named by its binary32 member: 0x7fffffff stands for 0x7fff and 0x7fffffffffffffff, 0x7fc00000 for 0x7e00 and 0x7ff8000000000000), in the named columns, has the H200's SHA-256."),
    ("nan-f64-order", "AMD vs NVIDIA, f64 NaN payloads: both propagate a quieted input NaN; of two NaN operands gfx9 keeps the first (SRC0), the H200 the second. Shown: the run in which the interpreter keeps the last NaN operand has the H200's SHA-256."),
    ("ulp-within", "Within the case table's rule: compared element by element with the H200's raw output bytes (`fixtures/gpu/results/raw`, `tools/gpu/harness.py run`, checked against the recorded SHA-256), every differing element lies in a column the table compares within K ulp (outputs of `.approx` instructions, whose error bounds PTX states) and is at most K ulp from the H200's: the rule the H200 twin run applies to the same output."),
    ("ulp-not-judged", "Not judged: an output of `.approx` instructions, compared within 2 ulp on the H200; only its SHA-256 is committed, so an unequal hash cannot be judged without the raw H200 bytes."),
    ("as-accurate", "Closer to the exact value: compared element by element with the H200's raw output bytes, every element more than the case table's K ulp from the H200's is at least as close to the exact value of its column's function (binary64, from the element's inputs; `fixtures/gpu/results/raw/exact.json`) as the H200's own result, or (libdevice's full-precision functions, `f32_libm`) within the function's maximum ulp error documented for CUDA's math library of the correctly rounded exact value; but for the inputs that file leaves unjudged (sin and cos beyond 2^24); sin and cos errors below 2^-23 absolute count as none (PTX bounds them absolutely). PTX defines the `.approx` forms by error bounds, not bits, and libdevice's functions use them."),
    ("approximation", "AMD vs NVIDIA, approximations: depends on the bits of approximation instructions (ex2/lg2/rcp/div/rsqrt .approx in libdevice's inlined code), which PTX defines by error bounds only. Shown: the named columns change when the interpreter's approximations (V_RCP/V_RSQ/V_SQRT/V_EXP/V_LOG/V_SIN/V_COS) move by 1 ulp."),
];

/// The key in [`REASONS`] of a non-matching output (`None`: unexplained, the test fails).
fn reason(v: &Verdict) -> Option<&'static str> {
    Some(match v {
        Verdict::Match | Verdict::NoRecord => return None,
        Verdict::NanPayload(p) if p.contains("second NaN operand") => "nan-f64-order",
        Verdict::NanPayload(_) => "nan-payload",
        Verdict::UlpUnverified => "ulp-not-judged",
        Verdict::Approx(_) => "approximation",
        Verdict::Ulp { within: true, .. } => "ulp-within",
        Verdict::Ulp {
            accuracy: Some(j), ..
        } if j.worse == 0 => "as-accurate",
        Verdict::Ulp {
            approx: Some(_), ..
        } => "approximation",
        Verdict::Ulp { .. } | Verdict::Differs => return None,
    })
}

struct Row {
    arch: String,
    family: String,
    case: String,
    seed: u64,
    output: String,
    verdict: String,
    reason: Option<&'static str>,
}

#[test]
fn every_fixture_case_executes_from_the_converted_code_objects() {
    const T: &str = "amdgpu_exec_fixtures";
    let Some(py) = require_tool("python3", T) else {
        return;
    };
    let prof = wheelport::target::profile("dtk").unwrap();
    let tc = wheelport::toolchain::discover(prof, &wheelport::toolchain::SearchOptions::from_env());
    if !tc.is_complete() {
        assert!(
            std::env::var_os("CI").is_none(),
            "{T}: LLVM 19 incomplete: {:?}",
            tc.missing
        );
        eprintln!("SKIP {T}: LLVM 19 incomplete: {:?}", tc.missing);
        return;
    }
    let root = root();
    let dir = std::env::temp_dir().join(format!("wp-{T}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    // 1. convert every fixture for gfx906, gfx942 and gfx1100 (one bundle per module, all archs),
    //    and the NaN families again for gfx906 with `--nan canonical`, with a fresh build cache
    let t0 = Instant::now();
    let convert = |so: &str, extra: &[&str], out_dir: &std::path::Path| {
        let (code, out, err) = run(Command::new(common::bin())
            .arg(root.join("fixtures/gpu").join(so))
            .args(["--target", "dtk", "--allow-partial", "-q"])
            .args(extra)
            .arg("-o")
            .arg(out_dir)
            .env("XDG_CACHE_HOME", dir.join("cache")));
        assert!(
            code == 0 || code == 6,
            "convert {so} {extra:?}: exit {code}\n{out}\n{err}"
        );
    };
    for (fam, so, _, _) in FAMILIES {
        convert(so, &["--offload-arch", "gfx906,gfx942,gfx1100"], &dir);
        if NAN_FAMILIES.contains(fam) {
            let extra = ["--offload-arch", "gfx906", "--nan", "canonical"];
            convert(so, &extra, &dir.join("canonical"));
        }
    }
    let convert_s = t0.elapsed().as_secs_f64();
    // 2. the harness's inputs, once per family
    let mut jobs = Vec::new();
    for (fam, _, cases, _) in FAMILIES {
        let j = runner::harness_jobs(
            &py,
            &runner::harness_dir(&root),
            &root.join("fixtures/gpu").join(cases),
            &dir.join("inputs"),
            None,
            None,
        )
        .unwrap_or_else(|e| panic!("{fam}: {e}"));
        jobs.push(j);
    }
    // 3. every job of every run, one thread per run; outputs that do not match are compared
    //    with the H200's raw bytes where those are committed
    let raw = root.join("fixtures/gpu/results/raw");
    let results: Vec<(Vec<Row>, u64, f64)> = std::thread::scope(|s| {
        let hs: Vec<_> = RUNS
            .iter()
            .map(|&(label, arch, canonical)| {
                let (dir, root, jobs, raw) = (&dir, &root, &jobs, &raw);
                s.spawn(move || {
                    let mut rows = Vec::new();
                    let (mut instr, mut secs) = (0u64, 0f64);
                    let objs = if canonical {
                        dir.join("canonical")
                    } else {
                        dir.clone()
                    };
                    for ((fam, so, cases, res), fam_jobs) in FAMILIES.iter().zip(jobs) {
                        if canonical && !NAN_FAMILIES.contains(fam) {
                            continue;
                        }
                        let mut machines: Vec<Machine> = runner::load_objects(&objs.join(so), arch)
                            .unwrap_or_else(|e| panic!("{arch} {so}: {e}"))
                            .into_iter()
                            .map(|c| Machine::new(c).unwrap_or_else(|e| panic!("{arch} {so}: {e}")))
                            .collect();
                        let h200: serde_json::Value = serde_json::from_str(
                            &std::fs::read_to_string(root.join("fixtures/gpu/results").join(res))
                                .unwrap(),
                        )
                        .unwrap();
                        let entries =
                            runner::entry_table(&root.join("fixtures/gpu").join(cases)).unwrap();
                        let entry_of =
                            |l: &str| entries.iter().find(|(x, _)| x == l).map(|(_, e)| e.clone());
                        for j in fam_jobs {
                            let r = runner::run_job(
                                &mut machines,
                                j,
                                &entry_of,
                                &h200,
                                runner::Options {
                                    raw: Some(raw),
                                    ..Default::default()
                                },
                            );
                            instr += r.stats.instructions;
                            secs += r.seconds;
                            if let Some(e) = &r.error {
                                rows.push(Row {
                                    arch: label.to_string(),
                                    family: fam.to_string(),
                                    case: r.case.clone(),
                                    seed: r.seed,
                                    output: "-".into(),
                                    verdict: "error".into(),
                                    reason: None,
                                });
                                eprintln!("{arch} {} s{}: {e}", r.case, r.seed);
                                continue;
                            }
                            for o in &r.outputs {
                                rows.push(Row {
                                    arch: label.to_string(),
                                    family: fam.to_string(),
                                    case: r.case.clone(),
                                    seed: r.seed,
                                    output: o.name.clone(),
                                    verdict: o.verdict.label(),
                                    reason: reason(&o.verdict),
                                });
                            }
                        }
                    }
                    (rows, instr, secs)
                })
            })
            .collect();
        hs.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let mut rows = Vec::new();
    let (mut instr, mut secs) = (0u64, 0f64);
    for (r, i, s) in results {
        rows.extend(r);
        instr += i;
        secs += s;
    }
    eprintln!(
        "{T}: converted the fixtures in {convert_s:.1} s; executed {instr} wave instructions in {secs:.1} s of interpreter time: {:.2} M wave-instructions/s (per core)",
        instr as f64 / secs / 1e6
    );
    let table = render(&rows);
    let path = root.join("docs/executed-isa-results.md");
    if std::env::var_os("WHEELPORT_UPDATE_EXEC_TABLE").is_some() {
        std::fs::write(&path, &table).unwrap();
    } else {
        let have = std::fs::read_to_string(&path).unwrap_or_default();
        if have != table {
            let fresh = dir.join("executed-isa-results.md");
            std::fs::write(&fresh, &table).unwrap();
            panic!(
                "the executed-ISA results changed: compare {} with {} (WHEELPORT_UPDATE_EXEC_TABLE=1 rewrites it after review)",
                path.display(),
                fresh.display()
            );
        }
    }
    let unexplained: Vec<String> = rows
        .iter()
        .filter(|r| r.verdict != "match" && r.reason.is_none())
        .map(|r| {
            format!(
                "{} {} s{} {}: {}",
                r.arch, r.case, r.seed, r.output, r.verdict
            )
        })
        .collect();
    assert!(
        unexplained.is_empty(),
        "outputs that differ without a triaged reason:\n{}",
        unexplained.join("\n")
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The committed table: a summary per processor and family, then every output that does
/// not match with its verdict and reason (seeds folded when they agree).
fn render(rows: &[Row]) -> String {
    let mut t = String::new();
    t.push_str("<!-- Generated by tests/amdgpu_exec_fixtures.rs (WHEELPORT_UPDATE_EXEC_TABLE=1); do not edit. -->\n");
    t.push_str("# Executed ISA: results\n\n");
    t.push_str("Every case of every `fixtures/gpu` family, executed from the code objects `wheelport convert` writes, compared with the H200's SHA-256 of the original binary's output (docs/executed-isa.md). A record is one output of one case on one seed.\n\n");
    for (arch, ..) in RUNS {
        let _ = writeln!(t, "## {arch}\n");
        t.push_str("| family | cases | records | match | NaN payload only | within the table's ulp (H200 bytes) | as close to the exact value as the H200 (H200 bytes) | depends on approximations | ulp, not judged | differs | not run |\n");
        t.push_str("|---|---|---|---|---|---|---|---|---|---|---|\n");
        for (fam, ..) in FAMILIES {
            let rs: Vec<&Row> = rows
                .iter()
                .filter(|r| r.arch == *arch && r.family == *fam)
                .collect();
            if rs.is_empty() {
                continue;
            }
            let mut cases: Vec<&str> = rs.iter().map(|r| r.case.as_str()).collect();
            cases.sort();
            cases.dedup();
            let count = |f: &dyn Fn(&str) -> bool| rs.iter().filter(|r| f(&r.verdict)).count();
            let _ = writeln!(
                t,
                "| {fam} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
                cases.len(),
                rs.len(),
                count(&|v| v == "match"),
                count(&|v| v.starts_with("match-but-NaN")),
                count(&|v| v.starts_with("within-ulp")),
                count(&|v| v.starts_with("as-accurate")),
                count(&|v| v.starts_with("differs-depends")),
                count(&|v| v == "ulp-unverified"),
                count(&|v| {
                    v == "differs"
                        || v.starts_with("differs-by-ulp")
                        || v.starts_with("less-accurate")
                }),
                count(&|v| v == "error"),
            );
        }
        t.push('\n');
        // cases whose every record matches, per family
        t.push_str("Records that do not match:\n\n| case | output | seeds | verdict | reason |\n|---|---|---|---|---|\n");
        let mut seen: Vec<(String, String, String)> = Vec::new();
        for r in rows
            .iter()
            .filter(|r| r.arch == *arch && r.verdict != "match")
        {
            let key = (r.case.clone(), r.output.clone(), r.verdict.clone());
            if seen.contains(&key) {
                continue;
            }
            seen.push(key);
            let seeds: Vec<String> = rows
                .iter()
                .filter(|x| {
                    x.arch == *arch
                        && x.case == r.case
                        && x.output == r.output
                        && x.verdict == r.verdict
                })
                .map(|x| x.seed.to_string())
                .collect();
            let _ = writeln!(
                t,
                "| {} | {} | {} | {} | {} |",
                r.case,
                r.output,
                seeds.join(","),
                r.verdict,
                r.reason
                    .map(|k| format!("`{k}`"))
                    .unwrap_or_else(|| "UNEXPLAINED".into())
            );
        }
        t.push('\n');
    }
    t.push_str("## Reasons\n\n");
    for (k, r) in REASONS {
        let _ = writeln!(t, "* `{k}`: {r}");
    }
    t
}
