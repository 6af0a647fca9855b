//! The GPU twin ground truth, checked on the CPU.
//!
//! `fixtures/gpu/twin_fixtures.so` (built by `fixtures/gpu/build.sh`, sources in
//! `fixtures/gpu/src/`) is run on an H200 twice by `tools/gpu/run-on-device.sh`: once as built
//! (the driver runs its sm_90 SASS) and once as converted by `wheelport ptx twin` (our lowering
//! of its compute_80 PTX, JIT-compiled by the driver). The harness writes
//! `fixtures/gpu/results/twin.json`; this test checks that the committed results are complete
//! and pass:
//!
//! * every `.entry` of every PTX module of `twin_fixtures.so` — read with wheelport's own fatbin
//!   reader and PTX parser, not from a list — has results for at least 3 seeds, all passing;
//! * at least 30 kernels;
//! * the results are for the committed `twin_fixtures.so` and `cases.json` (sha256);
//! * each output record is consistent: an `exact` output that passes has equal sha256 on both
//!   sides, an `ulp<=K` output reports a max ulp distance of at most K.
//!
//! * the results are for the CURRENT lowering: the test makes the twin again (LLVM 19) and
//!   compares its sha256 with the converted `.so`'s recorded in the results, so a lowering
//!   change without a GPU re-run fails with a message saying to re-run `tools/gpu`.
//!
//! Until the lead has run the real conversion, `fixtures/gpu/results/twin.json` is absent and the
//! test FAILS, naming what is missing, unless `WHEELPORT_GPU_RESULTS_PENDING=1` is set.
//!
//! `fixtures/gpu/results/ptxjit-validation.json` (the harness validated on the same GPU: SASS
//! against the driver's JIT of NVIDIA's own PTX, `twin_fixtures_ptxjit.so`) is checked the
//! same way and must be present.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde_json::Value;
use sha2::{Digest, Sha256};

fn gpu_dir() -> PathBuf {
    common::root().join("fixtures/gpu")
}

fn sha256_hex(path: &Path) -> String {
    let data = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    Sha256::digest(&data)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The `.entry` names of every PTX module of `so`, through `elf::scan`, the fatbin reader and
/// the PTX parser (0 parse errors required).
fn ptx_entries(so: &Path) -> BTreeSet<String> {
    let name = so.display().to_string();
    let data = std::fs::read(so).unwrap();
    let obj = wheelport::elf::scan(&data, &name).unwrap();
    let mut entries = BTreeSet::new();
    let mut modules = 0;
    for (_, containers) in wheelport::fatbin::parse_object_sections(&data, &obj, &name).unwrap() {
        for e in containers.iter().flat_map(|c| c.entries.iter()) {
            if e.kind() != wheelport::fatbin::EntryKind::Ptx {
                continue;
            }
            modules += 1;
            let text = e.ptx_bytes().unwrap();
            let parsed = wheelport::ptx::parse_bytes(&text, &name);
            assert_eq!(
                parsed.error_count(),
                0,
                "{name}: PTX module {modules} has parse errors: {:?}",
                parsed.diagnostics.first()
            );
            for f in parsed.module.functions() {
                if f.kind == wheelport::ptx::FunctionKind::Entry && f.body.is_some() {
                    entries.insert(f.name.to_string());
                }
            }
        }
    }
    assert!(modules > 0, "{name}: no PTX module found");
    entries
}

fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The case table's entries (union over cases).
fn case_entries(cases: &Path) -> BTreeSet<String> {
    let v = read_json(cases);
    v["cases"]
        .as_array()
        .expect("cases array")
        .iter()
        .flat_map(|c| c["entries"].as_array().expect("entries").iter())
        .map(|e| e.as_str().unwrap().to_string())
        .collect()
}

#[test]
fn case_table_covers_every_entry_of_the_fixture() {
    let entries = ptx_entries(&gpu_dir().join("twin_fixtures.so"));
    assert!(
        entries.len() >= 30,
        "only {} kernels in twin_fixtures.so",
        entries.len()
    );
    let listed = case_entries(&gpu_dir().join("cases.json"));
    assert_eq!(
        entries, listed,
        "cases.json entries differ from twin_fixtures.so's PTX"
    );
    // The committed entry list that build.sh wrote from cuobjdump -xptx agrees with our reader.
    let expected: BTreeSet<String> =
        std::fs::read_to_string(gpu_dir().join("expected/twin_fixtures.entries.txt"))
            .unwrap()
            .lines()
            .map(str::to_string)
            .collect();
    assert_eq!(entries, expected);
    // The ptxjit variant carries the same kernels.
    assert_eq!(
        ptx_entries(&gpu_dir().join("twin_fixtures_ptxjit.so")),
        entries
    );
    // Warp-level kernels stay out of the twin fixture (they have their own .so).
    let warp = ptx_entries(&gpu_dir().join("warp_fixtures.so"));
    assert_eq!(warp, case_entries(&gpu_dir().join("warp_cases.json")));
    assert!(warp.is_disjoint(&entries));
}

/// Check one results file of `twin_fixtures.so` against `cases.json`; returns the number of
/// kernels (entries) that passed.
fn check_results(path: &Path, kind: &str, converted_so: Option<&Path>) -> usize {
    check_results_of(path, kind, "twin_fixtures", "cases.json", converted_so)
}

/// Check one results file for the fixture `fixtures/gpu/<fixture>.so` and its case table.
fn check_results_of(
    path: &Path,
    kind: &str,
    fixture: &str,
    cases: &str,
    converted_so: Option<&Path>,
) -> usize {
    let so = gpu_dir().join(format!("{fixture}.so"));
    let v = read_json(path);
    let file = path.display();
    assert_eq!(v["schema"], "wheelport-gpu-results/1", "{file}: schema");
    assert_eq!(v["kind"], kind, "{file}: kind");
    assert_eq!(
        v["original"]["sha256"].as_str(),
        Some(sha256_hex(&so).as_str()),
        "{file}: results are for another {fixture}.so (rebuild? rerun tools/gpu/run-on-device.sh)"
    );
    if let Some(conv) = converted_so {
        assert_eq!(
            v["converted"]["sha256"].as_str(),
            Some(sha256_hex(conv).as_str()),
            "{file}: results are for another {}",
            conv.display()
        );
    } else {
        let h = v["converted"]["sha256"].as_str().unwrap_or("");
        assert_eq!(h.len(), 64, "{file}: converted sha256 missing");
        assert_ne!(
            h,
            sha256_hex(&so),
            "{file}: the converted .so is the original"
        );
    }
    assert_eq!(
        v["cases_file"]["sha256"].as_str(),
        Some(sha256_hex(&gpu_dir().join(cases)).as_str()),
        "{file}: results are for another {cases}"
    );
    let dev = v["device"]["name"].as_str().unwrap_or("");
    assert!(dev.contains("NVIDIA"), "{file}: device {dev:?}");

    // Per entry: the seeds it passed on (over all cases that exercise it).
    let mut passed: BTreeMap<String, BTreeSet<i64>> = BTreeMap::new();
    let mut failures = Vec::new();
    for k in v["kernels"].as_array().expect("kernels") {
        let case = k["case"].as_str().unwrap();
        let seeds = k["seeds"].as_array().unwrap();
        for s in seeds {
            let seed = s["seed"].as_i64().unwrap();
            let outputs = s["outputs"].as_array().map(Vec::as_slice).unwrap_or(&[]);
            let mut ok = s["pass"] == true && !outputs.is_empty();
            for o in outputs {
                let name = o["name"].as_str().unwrap();
                let rule = o["rule"].as_str().unwrap();
                let same = o["orig_sha256"] == o["conv_sha256"];
                let out_ok = o["pass"] == true;
                if rule == "exact" || rule == "lines_sorted" {
                    assert_eq!(
                        out_ok, same,
                        "{file}: {case} seed {seed} {name}: pass={out_ok} but sha256 equal={same}"
                    );
                } else if let Some(k) = rule.strip_prefix("ulp<=") {
                    let k: u64 = k.parse().unwrap();
                    if out_ok {
                        let m = o["max_ulp"].as_u64().expect("max_ulp");
                        assert!(m <= k, "{file}: {case} {name}: max ulp {m} > {k}");
                    }
                }
                assert!(
                    o["count"].as_u64().unwrap_or(0) > 0,
                    "{file}: {case} {name} empty"
                );
                ok &= out_ok;
            }
            if ok {
                for e in k["entries"].as_array().unwrap() {
                    passed
                        .entry(e.as_str().unwrap().to_string())
                        .or_default()
                        .insert(seed);
                }
            } else {
                failures.push(format!("{case} seed {seed}"));
            }
        }
    }
    let entries = ptx_entries(&so);
    let mut missing = Vec::new();
    for e in &entries {
        let n = passed.get(e).map_or(0, BTreeSet::len);
        if n < 3 {
            missing.push(format!("{e} ({n} passing seeds)"));
        }
    }
    assert!(
        missing.is_empty() && failures.is_empty(),
        "{file}: kernels without 3 passing seeds: {missing:?}; failing case/seeds: {failures:?}"
    );
    if fixture == "twin_fixtures" {
        assert!(
            entries.len() >= 30,
            "{file}: only {} kernels",
            entries.len()
        );
    }
    entries.len()
}

#[test]
fn twin_results_are_complete_and_pass() {
    let path = gpu_dir().join("results/twin.json");
    if !path.exists() {
        let msg = format!(
            "{} is missing: run `wheelport ptx twin fixtures/gpu/twin_fixtures.so -o T.so`, then \
             tools/gpu/run-on-device.sh fixtures/gpu/twin_fixtures.so T.so OUT twin on the GPU \
             (docs/verification.md) and commit OUT/results.json as fixtures/gpu/results/twin.json",
            path.display()
        );
        if std::env::var("WHEELPORT_GPU_RESULTS_PENDING").as_deref() == Ok("1") {
            eprintln!("PENDING (WHEELPORT_GPU_RESULTS_PENDING=1): {msg}");
            return;
        }
        panic!("{msg}");
    }
    let n = check_results(&path, "twin", None);
    eprintln!("twin results: {n} kernels pass on 3+ seeds");
}

/// The committed twin results are for the CURRENT lowering: the twin of `twin_fixtures.so`
/// made now (wheelport's lowering, the embedded support library, LLVM 19 `llc` for sm_80, no
/// cache) has the sha256 the results record for the converted `.so`. The conversion is
/// deterministic (`tests/twin_gpu_fixtures.rs` checks two runs give the same bytes), so a
/// different hash means the lowering, the support library or the toolchain changed since the
/// GPU run, and the run must be repeated.
fn twin_is_current(fixture: &str, results: &str) {
    let path = gpu_dir().join(results);
    if !path.exists() && std::env::var("WHEELPORT_GPU_RESULTS_PENDING").as_deref() == Ok("1") {
        eprintln!(
            "PENDING (WHEELPORT_GPU_RESULTS_PENDING=1): {} missing",
            path.display()
        );
        return;
    }
    let v = read_json(&path);
    let recorded = v["converted"]["sha256"].as_str().unwrap_or("").to_string();
    let Some((p, tc)) =
        common::require_toolchain("cuda", "twin_results_are_for_the_current_lowering")
    else {
        return;
    };
    let so = gpu_dir().join(format!("{fixture}.so"));
    let data = std::fs::read(&so).unwrap();
    let lower = |m: &wheelport::ptx::Module<'_>, p: &wheelport::target::Profile| {
        wheelport::lower::lower_module(m, p)
    };
    let (out, report) = wheelport::twin::twin(
        &data,
        &format!("fixtures/gpu/{fixture}.so"),
        p,
        &tc,
        &wheelport::twin::TwinOptions::default(),
        &lower,
    )
    .unwrap();
    assert!(
        report.complete(),
        "the twin of {fixture}.so is incomplete: {:?}",
        report.not_lowered()
    );
    let now: String = Sha256::digest(&out)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let llc = tc
        .tools
        .iter()
        .find(|t| t.name == "llc")
        .map(|t| format!("{} {:?}", t.path.display(), t.version))
        .unwrap_or_default();
    assert_eq!(
        now,
        recorded,
        "{}: the GPU results are for a twin with sha256 {recorded}, but the current lowering \
         makes {now} (llc: {llc}). The lowering, the support library or the toolchain changed \
         since the GPU run: re-run tools/gpu on the H200 (`wheelport ptx twin \
         fixtures/gpu/{fixture}.so -o T.so`, then `tools/gpu/run-on-device.sh \
         fixtures/gpu/{fixture}.so T.so OUT twin CASES`, docs/verification.md) and commit \
         OUT/results.json as fixtures/gpu/{results}",
        path.display()
    );
}

#[test]
fn twin_results_are_for_the_current_lowering() {
    twin_is_current("twin_fixtures", "results/twin.json");
}

/// The same for the issue-5 fixtures: warp-level, async copy and matrix loads, mma, wmma, video, mbarrier.
#[test]
fn warp_tensor_mem_and_mma_twin_results_are_for_the_current_lowering() {
    twin_is_current("warp_fixtures", "results/warp-twin.json");
    twin_is_current("tensor_mem_fixtures", "results/tensor_mem-twin.json");
    twin_is_current("mma_fixtures", "results/mma-twin.json");
    twin_is_current("wmma_fixtures", "results/wmma-twin.json");
    twin_is_current("video_fixtures", "results/video-twin.json");
    twin_is_current("mbarrier_fixtures", "results/mbarrier-twin.json");
}

/// The issue-5 twins' results are complete and pass, and the originals' SASS agrees with the
/// driver's JIT of NVIDIA's own PTX (ptxjit validation).
#[test]
fn issue5_fixture_results_pass() {
    for (fixture, cases, n) in [
        ("warp_fixtures", "warp_cases.json", 12),
        ("tensor_mem_fixtures", "tensor_mem_cases.json", 3),
        ("mma_fixtures", "mma_cases.json", 8),
        ("wmma_fixtures", "wmma_cases.json", 18),
        ("video_fixtures", "video_cases.json", 25),
        ("mbarrier_fixtures", "mbarrier_cases.json", 4),
    ] {
        let stem = fixture.trim_end_matches("_fixtures");
        assert_eq!(
            check_results_of(
                &gpu_dir().join(format!("results/{stem}-twin.json")),
                "twin",
                fixture,
                cases,
                None,
            ),
            n,
            "{fixture} twin"
        );
        assert_eq!(
            check_results_of(
                &gpu_dir().join(format!("results/{stem}-ptxjit-validation.json")),
                "ptxjit-validation",
                fixture,
                cases,
                Some(&gpu_dir().join(format!("{fixture}_ptxjit.so"))),
            ),
            n,
            "{fixture} ptxjit"
        );
    }
}

#[test]
fn ptxjit_validation_results_pass() {
    let path = gpu_dir().join("results/ptxjit-validation.json");
    let n = check_results(
        &path,
        "ptxjit-validation",
        Some(&gpu_dir().join("twin_fixtures_ptxjit.so")),
    );
    eprintln!("ptxjit validation: {n} kernels pass on 3+ seeds");
}

/// The warp-level fixture, validated the same way (SASS against the driver's JIT).
#[test]
fn warp_ptxjit_validation_results_pass() {
    let n = check_results_of(
        &gpu_dir().join("results/warp-ptxjit-validation.json"),
        "ptxjit-validation",
        "warp_fixtures",
        "warp_cases.json",
        Some(&gpu_dir().join("warp_fixtures_ptxjit.so")),
    );
    assert_eq!(n, 12);
}

/// The check rejects incomplete or inconsistent results: the committed validation results,
/// relabelled as twin results (the positive control), then with one defect each.
#[test]
fn results_check_rejects_tampered_records() {
    let base = read_json(&gpu_dir().join("results/ptxjit-validation.json"));
    let dir = tempfile::tempdir().unwrap();
    let check = |v: &Value| {
        let p = dir.path().join("twin.json");
        std::fs::write(&p, serde_json::to_string(v).unwrap()).unwrap();
        std::panic::catch_unwind(|| check_results(&p, "twin", None))
    };
    let mut good = base.clone();
    good["kind"] = "twin".into();
    assert!(check(&good).is_ok(), "positive control must pass");

    // one seed fewer for one kernel
    let mut v = good.clone();
    v["kernels"][0]["seeds"].as_array_mut().unwrap().pop();
    assert!(check(&v).is_err(), "2 seeds accepted");
    // a failing output
    let mut v = good.clone();
    v["kernels"][3]["seeds"][1]["outputs"][0]["pass"] = false.into();
    assert!(check(&v).is_err(), "failing output accepted");
    // an exact output claimed to pass with different bytes
    let mut v = good.clone();
    v["kernels"][5]["seeds"][0]["outputs"][0]["conv_sha256"] = "00".repeat(32).into();
    assert!(check(&v).is_err(), "pass with differing sha256 accepted");
    // results of another original
    let mut v = good.clone();
    v["original"]["sha256"] = "11".repeat(32).into();
    assert!(check(&v).is_err(), "other original accepted");
    // a kernel missing altogether
    let mut v = good.clone();
    v["kernels"].as_array_mut().unwrap().remove(0);
    assert!(check(&v).is_err(), "missing kernel accepted");
    // the converted file is the original
    let mut v = good.clone();
    v["converted"]["sha256"] = v["original"]["sha256"].clone();
    assert!(check(&v).is_err(), "original compared with itself accepted");
}

/// stmatrix (sm_90; `tensor_mem_sm90_fixtures.so`, built like the mbarrier fixture): the case
/// table names exactly the fixture's PTX entries (as does the `_ptxjit` variant and the entry
/// list build.sh wrote); once the lead has run it on the H200, its twin results are for the
/// current lowering and both results files pass. Until then that half is skipped loudly.
#[test]
fn tensor_mem_sm90_case_table_and_results() {
    let fixture = "tensor_mem_sm90_fixtures";
    let entries = ptx_entries(&gpu_dir().join(format!("{fixture}.so")));
    assert_eq!(
        entries.iter().map(String::as_str).collect::<Vec<_>>(),
        ["tm_stmatrix", "tm_stmatrix_all"]
    );
    assert_eq!(
        entries,
        case_entries(&gpu_dir().join("tensor_mem_sm90_cases.json"))
    );
    assert_eq!(
        ptx_entries(&gpu_dir().join(format!("{fixture}_ptxjit.so"))),
        entries
    );
    let expected: BTreeSet<String> =
        std::fs::read_to_string(gpu_dir().join(format!("expected/{fixture}.entries.txt")))
            .unwrap()
            .lines()
            .map(str::to_string)
            .collect();
    assert_eq!(entries, expected);
    let twin = gpu_dir().join("results/tensor_mem_sm90-twin.json");
    let jit = gpu_dir().join("results/tensor_mem_sm90-ptxjit-validation.json");
    twin_is_current(fixture, "results/tensor_mem_sm90-twin.json");
    let cases = "tensor_mem_sm90_cases.json";
    assert_eq!(check_results_of(&twin, "twin", fixture, cases, None), 2);
    assert_eq!(
        check_results_of(
            &jit,
            "ptxjit-validation",
            fixture,
            cases,
            Some(&gpu_dir().join(format!("{fixture}_ptxjit.so"))),
        ),
        2
    );
}
