//! Real libraries on the H200, checked on the CPU.
//!
//! `fixtures/gpu/results/libraries.json` (written by `tools/gpu/libraries.py` from runs of
//! `tools/gpu/{cupy,torchvision,xformers}-suite.sh` and the CUB/Thrust fixture suite) holds one
//! record per suite, original against twin. This test checks that:
//!
//! * the suites the real-libraries issue names are all there (CuPy's CUB/Thrust tests,
//!   torchvision's ops, xformers' `tests/test_sparsity24.py`), each with cases run;
//! * every case the twin does not pass is named with a reason, and the counts agree with the
//!   named cases;
//! * the results are for the CURRENT code: each input the twin was made from is found again
//!   (`WHEEL!member` from `$WHEELPORT_CORPUS` / `../shared/corpus`, or a repository path),
//!   has the recorded sha256, and `wheelport ptx twin` makes from it exactly the recorded twin
//!   (sha256); the identity interposer's source has the recorded sha256. A lowering or host
//!   rewrite change without a GPU re-run fails here, naming the tool to run.

mod common;

use common::sha256_hex;
use serde_json::Value;
use std::path::PathBuf;

/// The bytes of a record's input `i` (`{path, sha256}`), checked against the recorded
/// sha256; `None` when its wheel is not in the corpus here.
fn recorded_input(name: &str, i: &Value) -> Option<Vec<u8>> {
    let p = i["path"].as_str().unwrap();
    let data = common::recorded_input_bytes(p, "library_results")?;
    assert_eq!(
        sha256_hex(&data),
        i["sha256"].as_str().unwrap(),
        "{name}: input {p} differs from the one run"
    );
    Some(data)
}

#[test]
fn library_results_are_complete_and_current() {
    let path = common::root().join("fixtures/gpu/results/libraries.json");
    let Ok(text) = std::fs::read_to_string(&path) else {
        panic!(
            "{} is missing: run tools/gpu/*-suite.sh on the GPU and tools/gpu/libraries.py",
            path.display()
        );
    };
    let v: Value = serde_json::from_str(&text).unwrap();
    let records = v["records"].as_array().unwrap();
    for want in ["cupy-cuda13x", "torchvision", "xformers"] {
        assert!(
            records.iter().any(|r| r["library"] == want),
            "no record for {want} in {}",
            path.display()
        );
    }
    let interposer =
        std::fs::read(common::root().join("shims/cuda-identity/wp_identity.c")).unwrap();
    let Some(_) = common::require_toolchain("cuda", "library_results") else {
        return;
    };
    let work = tempfile::tempdir().unwrap();
    // (record name, input path, twin sha256) of every input, checked below in parallel.
    let mut jobs: Vec<(String, String, String)> = Vec::new();
    for r in records {
        let name = format!("{} {} ({})", r["library"], r["version"], r["suite"]);
        let cases = r["cases"].as_u64().unwrap();
        assert!(cases > 0, "{name}: no cases");
        let failed = r["failed"].as_array().unwrap();
        let twin_failed = failed.iter().filter(|f| f["twin"] == false).count() as u64;
        assert_eq!(
            r["twin_passed"].as_u64().unwrap() + twin_failed,
            cases,
            "{name}: twin_passed + named twin failures != cases"
        );
        for f in failed {
            assert!(
                f["reason"].as_str().is_some_and(|s| !s.is_empty()),
                "{name}: case {} fails without a reason",
                f["case"]
            );
        }
        assert_eq!(
            r["interposer_source_sha256"].as_str().unwrap(),
            sha256_hex(&interposer),
            "{name}: shims/cuda-identity/wp_identity.c changed since the GPU run: re-run tools/gpu"
        );
        let inputs = r["inputs"].as_array().unwrap();
        assert!(!inputs.is_empty(), "{name}: no converted inputs recorded");
        for i in inputs {
            let p = i["path"].as_str().unwrap();
            let Some(data) = recorded_input(&name, i) else {
                return;
            };
            let src: PathBuf = work.path().join(format!("in{}.so", jobs.len()));
            std::fs::write(&src, &data).unwrap();
            jobs.push((
                name.clone(),
                p.to_string(),
                i["twin_sha256"].as_str().unwrap().to_string(),
            ));
        }
    }
    // The twins, made again (one device build each; in parallel, as CI has two cores).
    std::thread::scope(|s| {
        for (n, (name, p, want)) in jobs.iter().enumerate() {
            let dir = work.path();
            s.spawn(move || {
                let src = dir.join(format!("in{n}.so"));
                let out = dir.join(format!("twin{n}.so"));
                let (_code, _o, e) = common::run(
                    std::process::Command::new(common::bin())
                        .args(["ptx", "twin"])
                        .arg(&src)
                        .arg("-o")
                        .arg(&out),
                );
                let twin = std::fs::read(&out)
                    .unwrap_or_else(|_| panic!("{name}: no twin of {p}: {e}"));
                assert_eq!(
                    &sha256_hex(&twin),
                    want,
                    "{name}: the twin of {p} is not the one run on the GPU (the lowering or host rewrite changed): re-run tools/gpu/*-suite.sh and tools/gpu/libraries.py"
                );
            });
        }
    });
}

/// `fixtures/gpu/results/twin-kernel-lookups.json` (`tools/gpu/kernel_lookups.py` from the
/// identity interposer's log of the same `tools/gpu/run-all.sh` run): the static runtimes of
/// CuPy's twin modules and of the CUB/Thrust fixture twins find their kernels through the
/// interposer, and the kernels found are the twin's code (real PTX version = the twin arch).
/// Made with the current interposer source.
#[test]
fn twin_kernel_lookups_are_the_twins_code() {
    let path = common::root().join("fixtures/gpu/results/twin-kernel-lookups.json");
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let interposer =
        std::fs::read(common::root().join("shims/cuda-identity/wp_identity.c")).unwrap();
    assert_eq!(
        v["interposer_source_sha256"].as_str().unwrap(),
        sha256_hex(&interposer),
        "shims/cuda-identity/wp_identity.c changed since the GPU run: re-run tools/gpu/run-all.sh and tools/gpu/kernel_lookups.py"
    );
    for suite in ["cupy-probe", "cub-compute_80", "cub-compute_120"] {
        let s = &v["suites"][suite];
        let (n, twin) = (
            s["lookups"].as_u64().unwrap(),
            s["twin_code"].as_u64().unwrap(),
        );
        assert!(n > 0, "{suite}: no kernel lookup was logged");
        assert_eq!(
            n,
            twin + s["not_twin_code"].as_u64().unwrap(),
            "{suite}: counts disagree"
        );
        assert!(twin > 0, "{suite}: no kernel of the twin's code");
    }
}

/// `fixtures/gpu/results/libraries-sass80.json` (`tools/gpu/libraries.py --lifted`): real
/// libraries whose twin was converted from their sm_80 SASS (`convert --device-code sass`),
/// original against twin on the GPU. Every case the twin does not pass is named, and the
/// record is for the CURRENT lifter: each input is found again with its recorded sha256, and
/// `wheelport sass lift --arch ARCH` makes from it exactly the recorded PTX (sha256 of its
/// `<n>-ARCH.ptx` files in order). The lowering of that PTX is the one the PTX-path records
/// check.
#[test]
fn lifted_library_results_are_for_the_current_lifter() {
    let path = common::root().join("fixtures/gpu/results/libraries-sass80.json");
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let records = v["records"].as_array().unwrap();
    assert!(
        records.iter().any(|r| r["library"] == "cupy-cuda13x"),
        "no CuPy record in {}",
        path.display()
    );
    if let Err(m) =
        wheelport::toolchain::discover_nvdisasm(&wheelport::toolchain::SearchOptions::from_env())
    {
        return common::missing("library_results", &format!("nvdisasm {}", m.reason)).unwrap_or(());
    }
    let work = tempfile::tempdir().unwrap();
    for (n, r) in records.iter().enumerate() {
        let name = format!("{} {} (from SASS)", r["library"], r["version"]);
        let arch = r["device_code"]["arch"].as_str().unwrap();
        assert_eq!(r["device_code"]["source"], "sass", "{name}");
        let failed = r["failed"].as_array().unwrap();
        let twin_failed = failed.iter().filter(|f| f["twin"] == false).count() as u64;
        assert_eq!(
            r["twin_passed"].as_u64().unwrap() + twin_failed,
            r["cases"].as_u64().unwrap(),
            "{name}: twin_passed + named twin failures != cases"
        );
        assert!(
            failed
                .iter()
                .all(|f| f["reason"].as_str().is_some_and(|s| !s.is_empty())),
            "{name}: a failure without a reason"
        );
        for (k, i) in r["inputs"].as_array().unwrap().iter().enumerate() {
            let p = i["path"].as_str().unwrap();
            let Some(data) = recorded_input(&name, i) else {
                return;
            };
            let src = work.path().join(format!("in{n}-{k}.so"));
            std::fs::write(&src, &data).unwrap();
            let out = work.path().join(format!("lift{n}-{k}"));
            let (code, o, e) = common::run(
                std::process::Command::new(common::bin())
                    .args(["sass", "lift", "--arch", arch, "-o"])
                    .arg(&out)
                    .arg(&src),
            );
            assert_eq!(code, 0, "{name}: sass lift of {p}: {o}{e}");
            let mut files: Vec<(u64, PathBuf)> = std::fs::read_dir(&out)
                .unwrap()
                .map(|d| d.unwrap().path())
                .filter_map(|f| {
                    let stem = f
                        .file_name()?
                        .to_str()?
                        .strip_suffix(&format!("-{arch}.ptx"))?;
                    Some((stem.parse().ok()?, f))
                })
                .collect();
            files.sort();
            let all: Vec<u8> = files
                .iter()
                .flat_map(|(_, f)| std::fs::read(f).unwrap())
                .collect();
            let got = sha256_hex(&all);
            assert_eq!(
                got,
                i["lifted_ptx_sha256"].as_str().unwrap(),
                "{name}: the lifter makes other PTX of {p} than the GPU ran: re-run the suite \
                 from SASS (docs/verification.md, \"Real libraries from lifted SASS\") and \
                 tools/gpu/libraries.py --lifted"
            );
        }
    }
}
