//! `wheelport convert` on SASS-only objects: the `fixtures/gpu/*_sass80.so` fixtures
//! (`fixtures/gpu/build-sass.sh`: the families' sources built by nvcc 13.5 with
//! `-gencode arch=compute_80,code=sm_80`, so sm_80 SASS and no PTX).
//!
//! * **dtk.** Each is converted for gfx906. Every kernel is SASS only; the translated ones
//!   are exactly those whose SASS lifts ([`wheelport::sass`]) and say so in their note; the
//!   others are reported with the SASS forms the lifter lacks; the exit code is 0 when all
//!   are translated and 6 (`--allow-partial`) otherwise. Then every case of the families
//!   whose PTX-path records all equal the H200 (warp, video, mma, wmma, tensor_mem) whose
//!   kernels were all translated is executed from the converted object's `.hip_fatbin` in the
//!   project's gfx9 interpreter (`tools/amdgpu-exec`) and must equal the H200's SHA-256 of the
//!   original binary's output, output by output.
//! * **cuda (the twin, on the H200).** `fixtures/gpu/results/sass80-<family>-twin.json`
//!   (`tools/gpu/run-on-device.sh <fixture>.so <convert --target cuda of <fixture>_sass80.so>`:
//!   the original's sm_90 SASS against the twin code built from the lifted sm_80 SASS, which an
//!   H200 cannot run as it is) is for the current conversion (the converted object's SHA-256
//!   is the one the current lifter and lowering make), and every case whose kernels were all
//!   translated passes on every seed, except the cases of [`NAN_ONLY`], whose recorded
//!   mismatches must all be NaNs on both sides. When the lifter has since translated more
//!   kernels of a fixture (the converted object differs), the results still hold for the
//!   kernels the H200 ran if the code the driver compiles for each of them is unchanged:
//!   `fixtures/gpu/results/sass80-<family>-twin.kernels.json` holds, for the conversion the
//!   H200 ran, each kernel's [`twin_kernel_code`]; the kernels translated since then are listed
//!   as not run on the H200 yet.

mod common;

use amdgpu_exec::exec::Machine;
use amdgpu_exec::runner::{self, Verdict};
use common::{bin, read_json, require_tool, root, run, sha256_file};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

const T: &str = "sass_convert";

/// (family, fixture name, case table, H200 results of the PTX path's original, whether every
/// executed record must equal the H200's).
const FAMILIES: &[(&str, &str, &str, &str, bool)] = &[
    (
        "scalar",
        "twin_fixtures",
        "cases.json",
        "ptxjit-validation.json",
        false,
    ),
    (
        "warp",
        "warp_fixtures",
        "warp_cases.json",
        "warp-ptxjit-validation.json",
        true,
    ),
    (
        "video",
        "video_fixtures",
        "video_cases.json",
        "video-ptxjit-validation.json",
        true,
    ),
    (
        "mma",
        "mma_fixtures",
        "mma_cases.json",
        "mma-ptxjit-validation.json",
        true,
    ),
    (
        "wmma",
        "wmma_fixtures",
        "wmma_cases.json",
        "wmma-ptxjit-validation.json",
        true,
    ),
    (
        "tensor_mem",
        "tensor_mem_fixtures",
        "tensor_mem_cases.json",
        "tensor_mem-ptxjit-validation.json",
        true,
    ),
];

/// (family, case) of the lifted kernels whose H200 twin results differ from the original's
/// only in NaN results (each recorded mismatch is a NaN on both sides), known lifter gaps
/// (docs/verification.md, "SASS"): `f16x2`, the `neg` of one half of a pair, lifted as PTX's
/// `neg.f16x2` (ptxas's `HADD2 d, -x, -RZ` writes the canonical NaN), which LLVM's NVPTX back
/// end turns into an integer sign flip when one half is used; `f64_libm`, the f64 `neg`/`abs`
/// idioms (`DADD d, -RZ, -x`: the H200 quiets a signalling NaN), still lifted as sign
/// operations; `f64_round`, one result of two NaN operands, where the H200 returns the first
/// operand of the `DADD` as ptxas ordered it (the lifted `sub.rp.f64` is assembled with the
/// operands the other way round).
const NAN_ONLY: &[(&str, &str)] = &[
    ("scalar", "f64_round"),
    ("scalar", "f64_libm"),
    ("scalar", "f16x2"),
];

fn gpu() -> PathBuf {
    root().join("fixtures/gpu")
}

/// Convert `fixture`_sass80.so for `target` into `out` with a fresh cache under `cache`;
/// the report and the set of translated kernels. Checks the report's per-kernel claims.
fn convert(
    fixture: &str,
    target: &str,
    extra: &[&str],
    out: &Path,
    cache: &Path,
) -> (Value, BTreeSet<String>) {
    let so = gpu().join(format!("{fixture}_sass80.so"));
    let json = out.join(format!("{fixture}-{target}.json"));
    let (code, stdout, err) = run(Command::new(bin())
        .arg(&so)
        .args(["--target", target, "--allow-partial", "-q"])
        .args(extra)
        .arg("-o")
        .arg(out)
        .arg("--json")
        .arg(&json)
        .env("XDG_CACHE_HOME", cache));
    let r = read_json(&json);
    let totals = &r["totals"];
    let all = totals["not_translated"] == 0;
    assert_eq!(
        code,
        if all { 0 } else { 6 },
        "{fixture} {target}: {stdout}\n{err}"
    );
    assert_eq!(
        totals["lifted"], totals["translated"],
        "{fixture}: {totals}"
    );
    let mut translated = BTreeSet::new();
    for k in r["inputs"][0]["shared_objects"][0]["kernels"]
        .as_array()
        .unwrap()
    {
        let name = k["name"].as_str().unwrap().to_string();
        assert_eq!(k["found"], "sass_only", "{fixture}: {k}");
        if k["translated"] == true {
            let note = k["note"].as_str().unwrap_or("");
            assert!(
                note.starts_with("lifted from its sm_80 SASS ("),
                "{fixture}: {k}"
            );
            assert_eq!(k["archs"].as_array().unwrap().len(), 1, "{k}");
            translated.insert(name);
        } else {
            let why = k["reason"].as_str().unwrap();
            assert!(
                why.starts_with("no PTX; its sm_80 SASS does not lift: the lifter lacks "),
                "{fixture}: {k}"
            );
        }
    }
    assert_eq!(
        translated.len() as u64,
        totals["translated"].as_u64().unwrap()
    );
    (r, translated)
}

/// The kernels that lift completely, by the library's own lifter on the same object's
/// sm_80 cubins (what `inspect --untranslatable` reports).
fn lifting_kernels(fixture: &str, nvdisasm: &wheelport::toolchain::Tool) -> BTreeSet<String> {
    let so = gpu().join(format!("{fixture}_sass80.so"));
    let data = std::fs::read(&so).unwrap();
    let mut out = BTreeSet::new();
    for c in wheelport::sass::cubins_of(&data, fixture).unwrap() {
        assert_eq!(c.arch, "sm_80", "{fixture}: {}", c.name);
        let l = wheelport::sass::lift_cubin(nvdisasm, &c.bytes, &c.arch, &c.name).unwrap();
        out.extend(
            l.kernels
                .iter()
                .filter(|k| k.ptx.is_some())
                .map(|k| k.name.clone()),
        );
    }
    out
}

/// The entries of `case` of a case table.
fn case_entries(cases: &Value, case: &str) -> Vec<String> {
    cases["cases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == case)
        .map(|c| {
            c["entries"]
                .as_array()
                .unwrap()
                .iter()
                .map(|e| e.as_str().unwrap().to_string())
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn sass_only_fixtures_convert_for_dtk_and_execute() {
    let Some(py) = require_tool("python3", T) else {
        return;
    };
    let Some((_, tc)) = common::require_toolchain("dtk", T) else {
        return;
    };
    drop(tc);
    let nvd = match wheelport::toolchain::discover_nvdisasm(
        &wheelport::toolchain::SearchOptions::from_env(),
    ) {
        Ok(t) => t,
        Err(m) => return common::missing(T, &format!("nvdisasm {}", m.reason)).unwrap_or(()),
    };
    let d = tempfile::tempdir().unwrap();
    let (mut runs, mut matched) = (0usize, 0usize);
    for &(fam, fixture, cases, results, all_match) in FAMILIES {
        let out = d.path().join(fam);
        let (_, translated) = convert(
            fixture,
            "dtk",
            &["--offload-arch", "gfx906"],
            &out,
            &d.path().join("cache"),
        );
        assert_eq!(
            translated,
            lifting_kernels(fixture, &nvd),
            "{fam}: convert translated other kernels than lift completely"
        );
        if !all_match || translated.is_empty() {
            continue;
        }
        // Execute every case whose kernels were all translated, from the converted object.
        let conv = out.join(format!("{fixture}_sass80.so"));
        let mut machines: Vec<Machine> = runner::load_objects(&conv, "gfx906")
            .unwrap_or_else(|e| panic!("{fam}: {e}"))
            .into_iter()
            .map(|c| Machine::new(c).unwrap())
            .collect();
        let case_table = gpu().join(cases);
        let table = read_json(&case_table);
        let entries = runner::entry_table(&case_table).unwrap();
        let entry_of = |l: &str| entries.iter().find(|(x, _)| x == l).map(|(_, e)| e.clone());
        let h200 = read_json(&gpu().join("results").join(results));
        let jobs = runner::harness_jobs(
            &py,
            &runner::harness_dir(&root()),
            &case_table,
            &d.path().join("inputs").join(fam),
            None,
            None,
        )
        .unwrap();
        for j in &jobs {
            if !case_entries(&table, &j.case)
                .iter()
                .all(|e| translated.contains(e))
            {
                continue;
            }
            let r = runner::run_job(
                &mut machines,
                j,
                &entry_of,
                &h200,
                runner::Options::default(),
            );
            assert!(
                r.error.is_none(),
                "{fam} {} s{}: {:?}",
                r.case,
                r.seed,
                r.error
            );
            runs += 1;
            for o in &r.outputs {
                assert_eq!(
                    o.verdict,
                    Verdict::Match,
                    "{fam} {} seed {} {}: the converted object's output is not the H200's",
                    r.case,
                    r.seed,
                    o.name
                );
                matched += 1;
            }
        }
    }
    eprintln!("{T}: {runs} case runs executed from converted SASS-only objects, {matched} outputs equal the H200's");
    assert!(runs > 0 && matched > 0);
}

/// Per kernel of a `--target cuda` conversion (the PTX modules of its twin fatbin section):
/// the SHA-256 of
/// the PTX the driver compiles for it: its module's `.version`, `.target` and `.address_size`,
/// the module-scope declarations that share an identifier with it, and its `.entry`, with the
/// names LLVM numbers by the function's position in its module (`__local_depotN`,
/// `$L__BBN_M`) made position-free and comments dropped.
fn twin_kernel_code(so: &Path) -> BTreeMap<String, String> {
    use object::{Object, ObjectSection};
    use sha2::Digest;
    let data = std::fs::read(so).unwrap();
    let name = so.display().to_string();
    let elf = object::File::parse(&*data).unwrap();
    let sec = elf
        .section_by_name(wheelport::twin::TWIN_SECTION)
        .unwrap_or_else(|| panic!("{name}: no {}", wheelport::twin::TWIN_SECTION));
    let (off, _) = sec.file_range().unwrap();
    let containers = wheelport::fatbin::parse_section(sec.data().unwrap(), off, &name).unwrap();
    let ident = |t: &str| -> BTreeSet<String> {
        // Words; directives (`.b8`) and registers (`%r1`) are not names.
        t.split(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '$' | '.' | '%')))
            .filter(|w| w.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_' || c == '$'))
            .map(str::to_string)
            .collect()
    };
    let mut out = BTreeMap::new();
    for c in &containers {
        for e in &c.entries {
            if e.kind() != wheelport::fatbin::EntryKind::Ptx {
                continue;
            }
            let text = String::from_utf8(e.ptx_bytes().unwrap().into_owned()).unwrap();
            // Module-scope statements (declarations end at `;`, functions at their `}`).
            let mut stmts: Vec<String> = Vec::new();
            let (mut cur, mut depth) = (String::new(), 0i32);
            for line in text.lines() {
                let l = line.split("//").next().unwrap_or("").trim();
                if l.is_empty() {
                    continue;
                }
                if depth == 0
                    && [".version", ".target", ".address_size"]
                        .iter()
                        .any(|d| l.starts_with(d))
                {
                    // Directives without a `;`.
                    stmts.push(format!("{l}\n"));
                    continue;
                }
                cur.push_str(l);
                cur.push('\n');
                depth += l.matches('{').count() as i32 - l.matches('}').count() as i32;
                if depth == 0 && (l.ends_with(';') || l.ends_with('}')) {
                    stmts.push(std::mem::take(&mut cur));
                }
            }
            let header: Vec<&String> = stmts
                .iter()
                .filter(|s| {
                    [".version", ".target", ".address_size"]
                        .iter()
                        .any(|d| s.starts_with(d))
                })
                .collect();
            let decls: Vec<&String> = stmts
                .iter()
                .filter(|s| !s.contains(".entry ") && !header.contains(s))
                .collect();
            for f in stmts.iter().filter(|s| s.contains(".entry ")) {
                let kname = f
                    .split(".entry ")
                    .nth(1)
                    .and_then(|r| r.split(|c: char| c == '(' || c.is_whitespace()).next())
                    .unwrap()
                    .to_string();
                let ids = ident(f);
                let mut h = sha2::Sha256::new();
                for s in &header {
                    h.update(s.as_bytes());
                }
                for d in decls.iter().filter(|d| !ident(d).is_disjoint(&ids)) {
                    h.update(d.as_bytes());
                }
                h.update(position_free(f).as_bytes());
                let hex: String = h.finalize().iter().map(|b| format!("{b:02x}")).collect();
                out.insert(kname, hex);
            }
        }
    }
    out
}

/// `t` without the numbers LLVM gives a function by its position in its module
/// (`__local_depot3` → `__local_depot`, `$L__BB3_2` → `$L__BB_2`).
fn position_free(t: &str) -> String {
    let mut o = String::with_capacity(t.len());
    let mut rest = t;
    while let Some((i, tag)) = ["__local_depot", "$L__BB"]
        .iter()
        .filter_map(|tag| rest.find(tag).map(|i| (i, *tag)))
        .min()
    {
        o.push_str(&rest[..i + tag.len()]);
        rest = &rest[i + tag.len()..];
        rest = &rest[rest.bytes().take_while(u8::is_ascii_digit).count()..];
    }
    o.push_str(rest);
    o
}

/// Check one H200 twin result of a SASS-only fixture against the current conversion.
fn check_twin(fam: &str, fixture: &str, cases: &str, d: &Path) {
    let path = gpu().join(format!("results/sass80-{fam}-twin.json"));
    let v = read_json(&path);
    let file = path.display();
    let out = d.join(fam);
    let (_, translated) = convert(fixture, "cuda", &[], &out, &d.join("cache"));
    assert_eq!(v["schema"], "wheelport-gpu-results/1", "{file}");
    assert_eq!(v["kind"], "twin", "{file}");
    assert_eq!(
        v["original"]["sha256"].as_str(),
        Some(sha256_file(&gpu().join(format!("{fixture}.so"))).as_str()),
        "{file}: results are for another {fixture}.so"
    );
    let conv = out.join(format!("{fixture}_sass80.so"));
    let now = sha256_file(&conv);
    let code = twin_kernel_code(&conv);
    let recorded = v["converted"]["sha256"].as_str().unwrap_or("");
    let kpath = gpu().join(format!("results/sass80-{fam}-twin.kernels.json"));
    // The kernels the H200 results hold for.
    let ran: BTreeSet<String> = if recorded == now {
        if std::env::var_os("WHEELPORT_UPDATE_TWIN_KERNELS").is_some() {
            let m = serde_json::json!({
                "converted_sha256": now,
                "made_by": "tests/sass_convert.rs (WHEELPORT_UPDATE_TWIN_KERNELS=1): twin_kernel_code of the conversion the H200 ran",
                "kernels": code,
            });
            std::fs::write(&kpath, serde_json::to_string_pretty(&m).unwrap() + "\n").unwrap();
        }
        if kpath.exists() {
            let m = read_json(&kpath);
            assert_eq!(
                m["converted_sha256"].as_str(),
                Some(now.as_str()),
                "{}",
                kpath.display()
            );
            let want: BTreeMap<String, String> =
                serde_json::from_value(m["kernels"].clone()).unwrap();
            assert_eq!(
                code,
                want,
                "{}: not the kernels of the recorded conversion",
                kpath.display()
            );
        }
        translated.clone()
    } else {
        assert!(
            kpath.exists(),
            "{file}: the H200 results are for another conversion of {fixture}_sass80.so than the \
             current lifter and lowering make ({now}): re-run it on the H200 \
             (docs/verification.md, \"SASS\")"
        );
        let m = read_json(&kpath);
        assert_eq!(
            m["converted_sha256"].as_str(),
            Some(recorded),
            "{}: not the conversion the H200 ran",
            kpath.display()
        );
        let want: BTreeMap<String, String> = serde_json::from_value(m["kernels"].clone()).unwrap();
        for (k, h) in &want {
            assert_eq!(
                code.get(k),
                Some(h),
                "{file}: the code of {k} changed since the H200 run ({now}): re-run it on the H200 \
                 (docs/verification.md, \"SASS\")"
            );
        }
        let new: Vec<&String> = translated
            .iter()
            .filter(|k| !want.contains_key(*k))
            .collect();
        eprintln!("{T}: {fam}: translated since the H200 run, not run there yet: {new:?}");
        want.into_keys().collect()
    };
    assert_eq!(
        v["cases_file"]["sha256"].as_str(),
        Some(sha256_file(&gpu().join(cases)).as_str()),
        "{file}"
    );
    assert!(v["device"]["name"]
        .as_str()
        .unwrap_or("")
        .contains("NVIDIA"));
    let table = read_json(&gpu().join(cases));
    let mut passed = 0;
    let mut nan_only = BTreeSet::new();
    for k in v["kernels"].as_array().unwrap() {
        let case = k["case"].as_str().unwrap();
        let all = case_entries(&table, case)
            .iter()
            .all(|e| translated.contains(e) && ran.contains(e));
        for s in k["seeds"].as_array().unwrap() {
            if all && NAN_ONLY.contains(&(fam, case)) {
                // Every recorded mismatch is a NaN on both sides (a payload or sign).
                for o in s["outputs"].as_array().unwrap() {
                    for e in o["examples"].as_array().into_iter().flatten() {
                        let (a, b) = (e["orig_value"].as_str(), e["conv_value"].as_str());
                        assert!(
                            a.is_some_and(|a| a.ends_with("nan"))
                                && b.is_some_and(|b| b.ends_with("nan")),
                            "{file}: {case} seed {}: {e}",
                            s["seed"]
                        );
                    }
                }
                nan_only.insert(case.to_string());
                continue;
            }
            if all {
                assert_eq!(s["pass"], true, "{file}: {case} seed {}: {s}", s["seed"]);
                for o in s["outputs"].as_array().unwrap() {
                    if o["rule"] == "exact" {
                        assert_eq!(o["orig_sha256"], o["conv_sha256"], "{file}: {case}");
                    }
                }
                passed += 1;
            }
        }
    }
    let want: BTreeSet<String> = NAN_ONLY
        .iter()
        .filter(|(f, _)| *f == fam)
        .map(|(_, c)| c.to_string())
        .collect();
    assert_eq!(nan_only, want, "{file}: the NaN-payload cases changed");
    assert!(
        passed > 0 || translated.is_empty(),
        "{file}: nothing passed"
    );
    eprintln!("{T}: {fam}: {passed} case runs of lifted kernels pass on the H200");
}

#[test]
fn sass_only_fixture_twins_pass_on_the_h200() {
    let Some(_) = common::require_toolchain("cuda", T) else {
        return;
    };
    if wheelport::toolchain::discover_nvdisasm(&wheelport::toolchain::SearchOptions::from_env())
        .is_err()
    {
        return common::missing(T, "nvdisasm").unwrap_or(());
    }
    let d = tempfile::tempdir().unwrap();
    for &(fam, fixture, cases, _, _) in FAMILIES {
        check_twin(fam, fixture, cases, d.path());
    }
}
