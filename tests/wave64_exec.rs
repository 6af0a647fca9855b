//! The wave64 warp model, executed on the CPU (docs/warp-model.md).
//!
//! The twelve warp-level kernels of `fixtures/gpu/warp_fixtures.so` (sources
//! `fixtures/gpu/src/warp.cu`) are lowered for `dtk` (amdgcn, wave64) exactly as the
//! converter lowers them; the IR is made host IR (address spaces dropped, `amdgpu_kernel`
//! dropped) and linked with the portable and wave64-warp-model sections cut out of
//! `kernels-ir/amdgcn.ll` — the shipped text, not a copy — and with `tests/wave64/sim.c`,
//! which runs every block as 64-lane wavefronts of fibers with explicit EXEC masks (lanes of
//! a divergent branch execute a primitive as one group; lanes that returned are inactive).
//! Inputs are those of the GPU harness (`tools/gpu/harness.py`, imported, seeds of
//! `fixtures/gpu/warp_cases.json`), and every output's SHA-256 must equal the one the
//! original binary produced on an NVIDIA H200
//! (`fixtures/gpu/results/warp-ptxjit-validation.json`, `orig_sha256`).

mod common;
mod wave64_support;

use common::*;
use sha2::{Digest, Sha256};
use std::path::Path;
use wave64_support::*;

#[test]
fn warp_fixtures_give_the_h200_results_on_simulated_wave64() {
    const T: &str = "wave64_exec";
    let Some(tools) = Tools::require(T) else {
        return;
    };
    let root = root();
    let dir = scratch("wave64-exec");

    // 1. The PTX of the fixture, lowered for dtk.
    let (modules, kernels) = lower_fixture("warp_fixtures.so");
    assert_eq!(kernels.len(), 12, "the 12 warp kernels of warp.cu");

    // 2-5. The support library (the shipped sections of kernels-ir/amdgcn.ll), launch
    //      wrappers, the simulator, the harness's inputs (tests/wave64_support).
    let libll = library(&["wave64 warp model"]);
    let sim = build_simulator(&dir, &tools, &modules, &libll, &kernels);
    let man = harness_inputs(&dir, &tools, "fixtures/gpu/warp_cases.json");

    // 6. Expected hashes: the original binary on the H200.
    let val: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(root.join("fixtures/gpu/results/warp-ptxjit-validation.json"))
            .unwrap(),
    )
    .unwrap();
    let expect = |case: &str, seed: u64, buf: &str| gpu_sha256(&val, case, seed, buf);

    // 7. Run every case and seed.
    let mut checked = 0;
    let mut bad = Vec::new();
    for job in man.as_array().unwrap() {
        let case = job["case"].as_str().unwrap();
        let seed = job["seed"].as_u64().unwrap();
        let bufs = job["bufs"].as_array().unwrap();
        run_job(&dir, &sim, job, &kernels);
        for b in bufs.iter().filter(|b| b["role"] != "in") {
            let name = b["name"].as_str().unwrap();
            let got = std::fs::read(b["path"].as_str().unwrap()).unwrap();
            let h = format!("{:x}", Sha256::digest(&got));
            checked += 1;
            if h != expect(case, seed, name) {
                bad.push(format!("{case} seed {seed} {name}"));
            }
        }
    }
    assert!(
        bad.is_empty(),
        "outputs that differ from the H200 ({} of {checked}): {bad:?}; files in {}",
        bad.len(),
        dir.display()
    );
    assert_eq!(checked, 14 * 3, "every output of every case and seed");
    let _ = std::fs::remove_dir_all(&dir);
    let _ = Path::new("");
}
