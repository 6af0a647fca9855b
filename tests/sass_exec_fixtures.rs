//! SASS-only rebuilds of the `fixtures/gpu` families, lifted (`wheelport::sass`), lowered for
//! dtk (gfx906) and executed in the project's ISA interpreter (`tools/amdgpu-exec`) with the
//! case tables and launches of the PTX path, each output compared with the SHA-256 the
//! original CUDA binary produced on the H200 (`fixtures/gpu/results/*ptxjit-validation.json`).
//!
//! The SASS-only cubins are made here: the compute_80 PTX that nvcc wrote for the family
//! (the committed `<family>_ptxjit.so`, PTX only) assembled by ptxas 13.5 for sm_80, which is
//! what `nvcc -gencode arch=compute_80,code=sm_80` does with the sources (nvcc runs ptxas
//! on that same PTX; docs/verification.md records the check that both give the same SASS).
//! The H200 ran the sm_90 SASS ptxas made from the same PTX.
//!
//! Every case either runs (its kernels lifted and lowered) or is listed with the forms the
//! lifter lacks. The verdicts are rendered as a table that is committed
//! (`docs/sass-exec-results.md`); the test fails when the table it makes differs, and when an
//! output that runs does not match the H200 without a triaged reason (the reasons of
//! `tests/amdgpu_exec_fixtures.rs`: NaN payloads, approximations, ulp outputs that a hash
//! cannot judge). `WHEELPORT_UPDATE_SASS_EXEC_TABLE=1` writes the table instead.

mod common;

use amdgpu_exec::exec::Machine;
use amdgpu_exec::runner::{self, Verdict};
use common::{bin, require_tool, root, run};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

const T: &str = "sass_exec_fixtures";

/// (family, the PTX-only fixture, case table, H200 results) of the sm_80 families.
const FAMILIES: &[(&str, &str, &str, &str)] = &[
    (
        "warp",
        "warp_fixtures_ptxjit.so",
        "warp_cases.json",
        "warp-ptxjit-validation.json",
    ),
    (
        "scalar",
        "twin_fixtures_ptxjit.so",
        "cases.json",
        "ptxjit-validation.json",
    ),
    (
        "video",
        "video_fixtures_ptxjit.so",
        "video_cases.json",
        "video-ptxjit-validation.json",
    ),
    (
        "tensor_mem",
        "tensor_mem_fixtures_ptxjit.so",
        "tensor_mem_cases.json",
        "tensor_mem-ptxjit-validation.json",
    ),
    (
        "mma",
        "mma_fixtures_ptxjit.so",
        "mma_cases.json",
        "mma-ptxjit-validation.json",
    ),
    (
        "wmma",
        "wmma_fixtures_ptxjit.so",
        "wmma_cases.json",
        "wmma-ptxjit-validation.json",
    ),
];

/// The triaged reasons of outputs that run and do not match (the evidence is the
/// interpreter's re-run each verdict names; docs/executed-isa.md).
const REASONS: &[(&str, &str)] = &[
    ("nan-payload", "AMD vs NVIDIA, NaN payloads: the output with its NaNs set to the named pattern has the H200's SHA-256 (as on the PTX path)."),
    ("nan-f64-order", "AMD vs NVIDIA, f64 NaN payloads: the run in which the interpreter keeps the last NaN operand has the H200's SHA-256 (as on the PTX path)."),
    ("ulp-within", "Within the case table's rule: compared element by element with the H200's raw output bytes (`fixtures/gpu/results/raw`), every differing element lies in a column the table compares within K ulp and is at most K ulp from the H200's (as on the PTX path)."),
    ("ulp-not-judged", "Not judged: an output the case table compares within K ulp (`.approx` instructions); only its SHA-256 is committed."),
    ("as-accurate", "Closer to the exact value: every element more than the case table's K ulp from the H200's raw bytes is at least as close to the exact value of its column's function (`fixtures/gpu/results/raw/exact.json`) as the H200's own result, or within the function's documented maximum ulp error of the correctly rounded value (as on the PTX path)."),
    ("approximation", "AMD vs NVIDIA, approximations: the named columns change when the interpreter's approximation instructions move by 1 ulp; MUFU is lifted to PTX's `.approx` forms, defined by error bounds only (as on the PTX path)."),
    ("rcp64h", "MUFU.RCP64H: lifted as rcp.approx.ftz.f64 (column 25), which the support library computes as the H200 does (the correctly rounded reciprocal of the input's high word, truncated to its high word; subnormals flushed); the H200's own approximation is one unit of the high word (2^-20 relative) off that on 96 of the 2,048 inputs per seed, as on the PTX path (the H200's raw bytes)."),
];

fn reason(case: &str, output: &str, v: &Verdict) -> Option<&'static str> {
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
        Verdict::Ulp { .. } | Verdict::Differs => match (case, output) {
            ("f64_round", "o") => "rcp64h",
            _ => return None,
        },
    })
}

struct Tools {
    ptxas: PathBuf,
    nvdisasm: wheelport::toolchain::Tool,
    python: PathBuf,
}

fn tools() -> Option<Tools> {
    let ptxas = require_tool("ptxas", T)?;
    let python = require_tool("python3", T)?;
    let nvdisasm = match wheelport::toolchain::discover_nvdisasm(
        &wheelport::toolchain::SearchOptions::from_env(),
    ) {
        Ok(t) => t,
        Err(m) => return common::missing(T, &format!("nvdisasm {}: {}", m.reason, m.install)),
    };
    common::require_toolchain("dtk", T)?;
    Some(Tools {
        ptxas,
        nvdisasm,
        python,
    })
}

/// What lifting a family gave: the gfx906 code objects, and per kernel the forms not
/// lifted (or why it did not lower).
struct Lifted {
    objects: Vec<PathBuf>,
    not_run: BTreeMap<String, String>,
    instructions: usize,
    kernels: usize,
    lifted: usize,
}

/// The PTX modules of a PTX-only fixture, in container order.
fn ptx_modules(so: &Path) -> Vec<String> {
    let data = std::fs::read(so).unwrap();
    let name = so.display().to_string();
    let a =
        wheelport::analyze::analyze(&data, &name, &name, &wheelport::analyze::Options::default())
            .unwrap();
    let mut out = Vec::new();
    for c in &a.containers {
        for e in &c.container.entries {
            if e.kind() == wheelport::fatbin::EntryKind::Ptx {
                out.push(String::from_utf8(e.ptx_bytes().unwrap().into_owned()).unwrap());
            }
        }
    }
    out
}

/// Assemble each PTX module for sm_80, lift every kernel, lower the lifted modules for dtk.
fn lift_family(t: &Tools, fam: &str, so: &Path, dir: &Path) -> Lifted {
    std::fs::create_dir_all(dir).unwrap();
    let modules = ptx_modules(so);
    let mut out = Lifted {
        objects: Vec::new(),
        not_run: BTreeMap::new(),
        instructions: 0,
        kernels: 0,
        lifted: 0,
    };
    let per_module: Vec<_> = std::thread::scope(|s| {
        let hs: Vec<_> = modules
            .iter()
            .enumerate()
            .map(|(k, ptx)| {
                s.spawn(move || {
                    let src = dir.join(format!("{fam}-{k}.ptx"));
                    std::fs::write(&src, ptx).unwrap();
                    let cubin = dir.join(format!("{fam}-{k}.sm_80.cubin"));
                    let (code, o, e) = run(Command::new(&t.ptxas)
                        .arg("-arch=sm_80")
                        .arg(&src)
                        .arg("-o")
                        .arg(&cubin));
                    assert_eq!(code, 0, "ptxas {}: {o}{e}", src.display());
                    let bytes = std::fs::read(&cubin).unwrap();
                    let l = wheelport::sass::lift_cubin(
                        &t.nvdisasm,
                        &bytes,
                        "sm_80",
                        &cubin.display().to_string(),
                    )
                    .unwrap();
                    let mut lowered = None;
                    let mut errors = BTreeMap::new();
                    if let Some(m) = l.module() {
                        let lifted = dir.join(format!("{fam}-{k}.lifted.ptx"));
                        std::fs::write(&lifted, m).unwrap();
                        let od = dir.join(format!("{fam}-{k}.dtk"));
                        let (_, _, e) = run(Command::new(bin())
                            .args(["ptx", "lower", "--target", "dtk", "--emit", "obj", "-o"])
                            .arg(&od)
                            .arg(&lifted)
                            .env("WHEELPORT_NO_CACHE", "1"));
                        // A kernel the lowering refuses is named on stderr; the others are
                        // in the code object.
                        for line in e.lines() {
                            if let Some((_, rest)) = line.split_once(": kernel `") {
                                if let Some((k, why)) = rest.split_once("` not lowered: ") {
                                    errors.insert(k.to_string(), format!("not lowered: {why}"));
                                }
                            }
                        }
                        lowered = std::fs::read_dir(&od).ok().and_then(|rd| {
                            rd.filter_map(|e| e.ok().map(|e| e.path()))
                                .find(|p| p.extension().is_some_and(|x| x == "co"))
                        });
                    }
                    (l, lowered, errors)
                })
            })
            .collect();
        hs.into_iter().map(|h| h.join().unwrap()).collect()
    });
    for (l, co, errors) in per_module {
        out.instructions += l.instructions;
        out.objects.extend(co);
        for k in &l.kernels {
            out.kernels += 1;
            if k.ptx.is_some() {
                out.lifted += 1;
            } else {
                let forms: Vec<String> = k.unlifted_forms().into_keys().collect();
                out.not_run
                    .insert(k.name.clone(), format!("not lifted: {}", forms.join(", ")));
            }
        }
        out.not_run.extend(errors);
    }
    out
}

struct Row {
    family: String,
    case: String,
    seed: u64,
    output: String,
    verdict: String,
    reason: Option<&'static str>,
}

#[test]
fn sass_only_fixture_kernels_lift_and_match_the_h200() {
    let Some(t) = tools() else { return };
    let root = root();
    let dir = tempfile::tempdir().unwrap();
    let t0 = Instant::now();
    let mut rows: Vec<Row> = Vec::new();
    let mut summary: Vec<(String, Lifted, usize, usize)> = Vec::new();
    for (fam, so, cases, res) in FAMILIES {
        let gpu = root.join("fixtures/gpu");
        let lifted = lift_family(&t, fam, &gpu.join(so), &dir.path().join(fam));
        let jobs = runner::harness_jobs(
            &t.python,
            &runner::harness_dir(&root),
            &gpu.join(cases),
            &dir.path().join("inputs"),
            None,
            None,
        )
        .unwrap_or_else(|e| panic!("{fam}: {e}"));
        let mut machines: Vec<Machine> = lifted
            .objects
            .iter()
            .flat_map(|co| runner::load_objects(co, "gfx906").unwrap())
            .map(|c| Machine::new(c).unwrap())
            .collect();
        let h200: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(gpu.join("results").join(res)).unwrap())
                .unwrap();
        let entries = runner::entry_table(&gpu.join(cases)).unwrap();
        let entry_of = |l: &str| entries.iter().find(|(x, _)| x == l).map(|(_, e)| e.clone());
        let (mut ncases, mut nrun) = (0usize, 0usize);
        let mut seen: Vec<String> = Vec::new();
        for j in &jobs {
            if !seen.contains(&j.case) {
                seen.push(j.case.clone());
                ncases += 1;
            }
            let kernels: Vec<String> = runner::plan(j, &entry_of)
                .unwrap()
                .into_iter()
                .map(|p| p.kernel)
                .collect();
            if let Some(why) = kernels.iter().find_map(|k| lifted.not_run.get(k)) {
                if j.seed == jobs.iter().find(|x| x.case == j.case).unwrap().seed {
                    rows.push(Row {
                        family: fam.to_string(),
                        case: j.case.clone(),
                        seed: j.seed,
                        output: "-".into(),
                        verdict: why.clone(),
                        reason: None,
                    });
                }
                continue;
            }
            if j.seed == jobs.iter().find(|x| x.case == j.case).unwrap().seed {
                nrun += 1;
            }
            let r = runner::run_job(
                &mut machines,
                j,
                &entry_of,
                &h200,
                runner::Options {
                    raw: Some(&root.join("fixtures/gpu/results/raw")),
                    ..Default::default()
                },
            );
            if let Some(e) = &r.error {
                rows.push(Row {
                    family: fam.to_string(),
                    case: r.case.clone(),
                    seed: r.seed,
                    output: "-".into(),
                    verdict: format!("error: {e}"),
                    reason: None,
                });
                continue;
            }
            for o in &r.outputs {
                rows.push(Row {
                    family: fam.to_string(),
                    case: r.case.clone(),
                    seed: r.seed,
                    output: o.name.clone(),
                    verdict: o.verdict.label(),
                    reason: reason(&r.case, &o.name, &o.verdict),
                });
            }
        }
        summary.push((fam.to_string(), lifted, ncases, nrun));
    }
    let secs = t0.elapsed().as_secs_f64();
    let table = render(&rows, &summary);
    eprintln!("{T}: {secs:.1} s\n{table}");
    let path = root.join("docs/sass-exec-results.md");
    if std::env::var_os("WHEELPORT_UPDATE_SASS_EXEC_TABLE").is_some() {
        std::fs::write(&path, &table).unwrap();
    } else {
        let have = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            have == table,
            "the SASS-only execution results changed: compare {} with the table above (WHEELPORT_UPDATE_SASS_EXEC_TABLE=1 rewrites it after review)",
            path.display()
        );
    }
    let unexplained: Vec<String> = rows
        .iter()
        .filter(|r| r.output != "-" && r.verdict != "match" && r.reason.is_none())
        .chain(rows.iter().filter(|r| r.verdict.starts_with("error")))
        .map(|r| format!("{} s{} {}: {}", r.case, r.seed, r.output, r.verdict))
        .collect();
    assert!(
        unexplained.is_empty(),
        "lifted kernels whose outputs differ from the H200 without a triaged reason:\n{}",
        unexplained.join("\n")
    );
    // The families this slice proves end to end run every case.
    for (fam, _, ncases, nrun) in &summary {
        if fam == "warp" {
            assert_eq!(nrun, ncases, "every warp case runs from the SASS lift");
        }
    }
}

/// The committed table: per family the kernels lifted and the cases run, the verdict
/// counts, then every record that does not match and every case that does not run.
fn render(rows: &[Row], summary: &[(String, Lifted, usize, usize)]) -> String {
    let mut t = String::new();
    t.push_str("<!-- Generated by tests/sass_exec_fixtures.rs (WHEELPORT_UPDATE_SASS_EXEC_TABLE=1); do not edit. -->\n");
    t.push_str("# SASS-only fixtures: results\n\n");
    t.push_str("The `fixtures/gpu` families rebuilt SASS-only for sm_80 (their compute_80 PTX assembled by ptxas 13.5), every kernel lifted from the SASS (`wheelport::sass`), lowered for dtk and executed on gfx906 in `tools/amdgpu-exec` with the PTX path's case tables and launches; each output compared with the H200's SHA-256 of the original binary's output (docs/verification.md, \"SASS\"). A record is one output of one case on one seed.\n\n");
    t.push_str("| family | kernels | lifted | cases | cases run | records | match | NaN payload only | within the table's ulp (H200 bytes) | as close to the exact value as the H200 (H200 bytes) | depends on approximations | ulp, not judged | differs | error |\n");
    t.push_str("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (fam, l, ncases, nrun) in summary {
        let rs: Vec<&Row> = rows
            .iter()
            .filter(|r| r.family == *fam && r.output != "-")
            .collect();
        let count = |f: &dyn Fn(&str) -> bool| rs.iter().filter(|r| f(&r.verdict)).count();
        let errors = rows
            .iter()
            .filter(|r| r.family == *fam && r.verdict.starts_with("error"))
            .count();
        let _ = writeln!(
            t,
            "| {fam} | {} | {} | {ncases} | {nrun} | {} | {} | {} | {} | {} | {} | {} | {} | {errors} |",
            l.kernels,
            l.lifted,
            rs.len(),
            count(&|v| v == "match"),
            count(&|v| v.starts_with("match-but-NaN")),
            count(&|v| v.starts_with("within-ulp")),
            count(&|v| v.starts_with("as-accurate")),
            count(&|v| v.starts_with("differs-depends")),
            count(&|v| v == "ulp-unverified"),
            count(&|v| {
                v == "differs" || v.starts_with("differs-by-ulp") || v.starts_with("less-accurate")
            }),
        );
    }
    t.push_str("\nRecords that do not match:\n\n| family | case | output | seeds | verdict | reason |\n|---|---|---|---|---|---|\n");
    let mut seen: Vec<(String, String, String)> = Vec::new();
    for r in rows
        .iter()
        .filter(|r| r.output != "-" && r.verdict != "match")
    {
        let key = (r.case.clone(), r.output.clone(), r.verdict.clone());
        if seen.contains(&key) {
            continue;
        }
        seen.push(key);
        let seeds: Vec<String> = rows
            .iter()
            .filter(|x| x.case == r.case && x.output == r.output && x.verdict == r.verdict)
            .map(|x| x.seed.to_string())
            .collect();
        let _ = writeln!(
            t,
            "| {} | {} | {} | {} | {} | {} |",
            r.family,
            r.case,
            r.output,
            seeds.join(","),
            r.verdict,
            r.reason
                .map(|k| format!("`{k}`"))
                .unwrap_or_else(|| "UNEXPLAINED".into())
        );
    }
    t.push_str("\nCases that do not run (a kernel not lifted: the forms the lifter lacks in it; or not lowered; or an error):\n\n| family | case | why |\n|---|---|---|\n");
    for r in rows.iter().filter(|r| r.output == "-") {
        let _ = writeln!(t, "| {} | {} | {} |", r.family, r.case, r.verdict);
    }
    t.push_str("\n## Reasons\n\n");
    for (k, r) in REASONS {
        let _ = writeln!(t, "* `{k}`: {r}");
    }
    t
}
