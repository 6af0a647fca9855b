//! cp.async, ldmatrix and movmatrix on the wave64 warp model, executed on the CPU
//! (kernels-ir/tensor_mem.py, src/lower/emit/tensor_mem.rs, docs/warp-model.md).
//!
//! The three kernels of `fixtures/gpu/tensor_mem_fixtures.so` (sources
//! `fixtures/gpu/src/tensor_mem.cu`: ldmatrix x1/x2/x4 with and without .trans on random rows,
//! movmatrix, cp.async of 4/8/16 bytes with src-size zero fill, ignore-src and three commit
//! groups) are lowered for `dtk` exactly as the converter lowers them, made host IR, linked
//! with the portable, wave64-warp-model and tensor-memory sections cut out of
//! `kernels-ir/amdgcn.ll` (the shipped text) and with `tests/wave64/sim.c` (64-lane
//! wavefronts of fibers, see tests/wave64_exec.rs), and run on the GPU harness's own inputs
//! (`tools/gpu/harness.py`, seeds of `fixtures/gpu/tensor_mem_cases.json`).
//!
//! Every output must equal, byte for byte, an independent host model of the PTX ISA 9.x
//! semantics written here (§9.7.14.5.15 ldmatrix fragment layout, §9.7.14.5.17 movmatrix,
//! §9.7.9.25 cp.async zero fill), and the SHA-256 of every output of the GPU cases must equal
//! the one the original binary produced on the H200
//! (`fixtures/gpu/results/tensor_mem-ptxjit-validation.json`, 3 cases × seeds 0–2; the twin
//! built by `wheelport ptx twin` matched the original too: `tensor_mem-twin.json`).
//! `stmatrix` (sm_90) runs from the compute_90 PTX of `fixtures/gpu/tensor_mem_sm90_fixtures.so`
//! (source `fixtures/gpu/src/tensor_mem_sm90.cu`: x1/x2/x4 with and without .trans; sm_90 SASS
//! and compute_90 PTX, built like the mbarrier fixture) on the inputs of
//! `fixtures/gpu/tensor_mem_sm90_cases.json`, against the host model and, once the lead has
//! run it on the H200, against `fixtures/gpu/results/tensor_mem_sm90-ptxjit-validation.json`
//! (skipped with a loud message while that file is absent).

mod common;
mod wave64_support;

use common::*;
use sha2::{Digest, Sha256};
use wave64_support::*;

fn u32s(b: &[u8]) -> Vec<u32> {
    b.chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

fn bytes_of(v: &[u32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// ldmatrix (§9.7.14.5.15) on tm_ldmatrix's data: warp w of a block holds a tile of 32 rows
/// of 8 b16 (row r = a[(thread of lane r) * 8 ..]); lane l names row perm[i] % 32. Matrix m's
/// row j is the row named by lane 8m + j. Non-transposed, lane l receives row l/4, columns
/// 2(l%4) and 2(l%4)+1; transposed, rows 2(l%4), 2(l%4)+1 of column l/4.
fn model_ldmatrix(a: &[u8], perm: &[u8], n: usize) -> Vec<u8> {
    let a: Vec<u16> = a
        .chunks_exact(2)
        .map(|c| u16::from_le_bytes([c[0], c[1]]))
        .collect();
    let perm = u32s(perm);
    let mut o = vec![0u32; n * 14];
    for warp0 in (0..n).step_by(32) {
        // element (row r of the warp's tile, column k)
        let tile = |r: usize, k: usize| a[(warp0 + r) * 8 + k] as u32;
        let named = |lane: usize| perm[warp0 + lane] as usize % 32;
        // element (row j, column k) of matrix m
        let el = |m: usize, j: usize, k: usize| tile(named(8 * m + j), k);
        for l in 0..32 {
            let (r, c) = (l / 4, l % 4);
            let frag = |m: usize| el(m, r, 2 * c) | el(m, r, 2 * c + 1) << 16;
            let frag_t = |m: usize| el(m, 2 * c, r) | el(m, 2 * c + 1, r) << 16;
            let d = &mut o[(warp0 + l) * 14..(warp0 + l) * 14 + 14];
            d[0] = frag(0);
            d[1] = frag_t(0);
            d[2] = frag(0);
            d[3] = frag(1);
            d[4] = frag_t(0);
            d[5] = frag_t(1);
            for m in 0..4 {
                d[6 + m] = frag(m);
                d[10 + m] = frag_t(m);
            }
        }
    }
    bytes_of(&o)
}

/// movmatrix.sync.aligned.m8n8.trans.b16 (§9.7.14.5.17): element (x, y) of a warp's source
/// matrix is half y%2 of lane 4x + y/2; the result is the fragment of the transpose.
fn model_movmatrix(a: &[u8], n: usize) -> Vec<u8> {
    let a = u32s(a);
    let mut o = vec![0u32; n];
    for warp0 in (0..n).step_by(32) {
        let el = |x: usize, y: usize| (a[warp0 + 4 * x + y / 2] >> (16 * (y % 2))) & 0xffff;
        for l in 0..32 {
            let (r, c) = (l / 4, l % 4);
            // transpose T(x, y) = M(y, x); lane l holds T(r, 2c), T(r, 2c+1)
            o[warp0 + l] = el(2 * c, r) | el(2 * c + 1, r) << 16;
        }
    }
    bytes_of(&o)
}

/// tm_cp_async (§9.7.9.25): bytes below src-size are copied, the rest of cp-size zero-filled;
/// ignore-src zero-fills all; untouched bytes keep the 0xab fill. Group 0 is read after
/// wait_group 2, the row after wait_all, another thread's row after bar.sync.
fn model_cp_async(g: &[u8], z: &[u8], n: usize) -> Vec<u8> {
    let z = u32s(z);
    let rows: Vec<[u8; 64]> = (0..n)
        .map(|i| {
            let zz = z[i];
            let src = &g[64 * i..64 * i + 64];
            let mut row = [0xabu8; 64];
            let mut copy = |at: usize, len: usize, size: usize| {
                for k in 0..len {
                    row[at + k] = if k < size { src[at + k] } else { 0 };
                }
            };
            copy(0, 4, (zz % 5) as usize);
            copy(8, 8, 8);
            copy(16, 16, ((zz >> 8) % 17) as usize);
            copy(32, 8, if (zz >> 24) & 1 == 1 { 0 } else { 8 });
            copy(48, 16, ((zz >> 16) % 17) as usize);
            row
        })
        .collect();
    let mut o = Vec::with_capacity(n * 144);
    for i in 0..n {
        let (b, t) = (i / 128 * 128, i % 128);
        o.extend_from_slice(&rows[i][..16]);
        o.extend_from_slice(&rows[i]);
        o.extend_from_slice(&rows[b + (37 * t + 5) % 128]);
    }
    o
}

/// One stmatrix (§9.7.14.5.16), the inverse of ldmatrix, of one warp: `regs(l)` are lane l's
/// source registers (one per matrix), `named(lane)` the tile row whose address that lane gives.
/// Matrix m's row j is the row named by lane 8m + j. Non-transposed, lane l's register m holds
/// (row l/4, columns 2(l%4), 2(l%4)+1) of matrix m; `.trans`, (rows 2(l%4), 2(l%4)+1,
/// column l/4).
fn stmatrix_warp(
    tile: &mut [[u16; 8]; 32],
    named: impl Fn(usize) -> usize,
    regs: impl Fn(usize) -> Vec<u32>,
    trans: bool,
) {
    for l in 0..32 {
        let (r, c) = (l / 4, l % 4);
        for (m, v) in regs(l).into_iter().enumerate() {
            let (lo, hi) = (v as u16, (v >> 16) as u16);
            if trans {
                tile[named(8 * m + 2 * c)][r] = lo;
                tile[named(8 * m + 2 * c + 1)][r] = hi;
            } else {
                let row = named(8 * m + r);
                tile[row][2 * c] = lo;
                tile[row][2 * c + 1] = hi;
            }
        }
    }
}

/// Row l of a tile as the 4 words lane l writes out.
fn row_words(t: &[[u16; 8]; 32], l: usize) -> [u32; 4] {
    std::array::from_fn(|k| t[l][2 * k] as u32 | (t[l][2 * k + 1] as u32) << 16)
}

/// tm_stmatrix: lane l of a warp names row l ^ (perm[first thread] % 32) of each tile (rows of
/// 16 bytes, 0xff-filled); `.x4` of a[6i..6i+4) into tile A, `.x2.trans` of a[6i+4..6i+6) into
/// tile B. Lane l outputs row l of tile A then of tile B.
fn model_stmatrix(a: &[u8], perm: &[u8], n: usize) -> Vec<u8> {
    let a = u32s(a);
    let perm = u32s(perm);
    let mut o = vec![0u32; n * 8];
    for warp0 in (0..n).step_by(32) {
        let named = |lane: usize| lane ^ (perm[warp0] as usize % 32);
        let v = |l: usize, k: usize| a[(warp0 + l) * 6 + k];
        let mut ta = [[0xffffu16; 8]; 32];
        let mut tb = [[0xffffu16; 8]; 32];
        stmatrix_warp(&mut ta, named, |l| (0..4).map(|k| v(l, k)).collect(), false);
        stmatrix_warp(&mut tb, named, |l| (4..6).map(|k| v(l, k)).collect(), true);
        for l in 0..32 {
            o[(warp0 + l) * 8..][..4].copy_from_slice(&row_words(&ta, l));
            o[(warp0 + l) * 8 + 4..][..4].copy_from_slice(&row_words(&tb, l));
        }
    }
    bytes_of(&o)
}

/// tm_stmatrix_all: tile t = 0..5 gets `.x1`, `.x1.trans`, `.x2`, `.x2.trans`, `.x4`,
/// `.x4.trans` of thread i's words a[14i..14i+14) (1, 1, 2, 2, 4, 4 registers in that order);
/// in tile t lane l names row l ^ (perm[first thread of the warp + t] % 32). Tiles are
/// 0xff-filled; lane l outputs row l of tiles 0..5 (o[24i + 4t + k]).
fn model_stmatrix_all(a: &[u8], perm: &[u8], n: usize) -> Vec<u8> {
    let a = u32s(a);
    let perm = u32s(perm);
    let mut o = vec![0u32; n * 24];
    let shapes: [(usize, usize, bool); 6] = [
        (0, 1, false),
        (1, 1, true),
        (2, 2, false),
        (4, 2, true),
        (6, 4, false),
        (10, 4, true),
    ];
    for warp0 in (0..n).step_by(32) {
        for (t, &(first, count, trans)) in shapes.iter().enumerate() {
            let named = |lane: usize| lane ^ (perm[warp0 + t] as usize % 32);
            let mut tile = [[0xffffu16; 8]; 32];
            stmatrix_warp(
                &mut tile,
                named,
                |l| a[(warp0 + l) * 14 + first..][..count].to_vec(),
                trans,
            );
            for l in 0..32 {
                o[(warp0 + l) * 24 + 4 * t..][..4].copy_from_slice(&row_words(&tile, l));
            }
        }
    }
    bytes_of(&o)
}

#[test]
fn tensor_mem_fixtures_match_the_isa_model_on_simulated_wave64() {
    const T: &str = "wave64_tensor_mem";
    let Some(tools) = Tools::require(T) else {
        return;
    };
    let root = root();
    let dir = scratch("wave64-tmem");

    // 1. The PTX of the fixture, lowered for dtk.
    let mut modules = Vec::new();
    let mut kernels = Vec::new();
    let mut forms = std::collections::BTreeSet::new();
    for ptx in fixture_ptx("tensor_mem_fixtures.so") {
        let parsed = wheelport::ptx::parse(&ptx, "tensor_mem_fixtures.ptx");
        for k in wheelport::ptx::analysis::kernel_forms(&parsed.module) {
            forms.extend(k.forms.into_iter().map(|f| f.form));
        }
        lower_into(&ptx, "tensor_mem_fixtures.ptx", &mut modules, &mut kernels);
    }
    assert_eq!(kernels.len(), 3, "the 3 kernels of tensor_mem.cu");
    // stmatrix (sm_90): the compute_90 PTX of tensor_mem_sm90_fixtures.so (src/tensor_mem_sm90.cu).
    let before = kernels.len();
    for sm90 in fixture_ptx("tensor_mem_sm90_fixtures.so") {
        let parsed = wheelport::ptx::parse(&sm90, "tensor_mem_sm90_fixtures.ptx");
        assert_eq!(
            parsed.module.target.first().copied(),
            Some("sm_90"),
            "tensor_mem_sm90_fixtures.so holds compute_90 PTX"
        );
        for k in wheelport::ptx::analysis::kernel_forms(&parsed.module) {
            forms.extend(k.forms.into_iter().map(|f| f.form));
        }
        lower_into(
            &sm90,
            "tensor_mem_sm90_fixtures.ptx",
            &mut modules,
            &mut kernels,
        );
    }
    assert_eq!(
        kernels.len(),
        before + 2,
        "the 2 kernels of tensor_mem_sm90.cu"
    );
    // The fixture holds the forms it is meant to test (as nvcc wrote them).
    for f in [
        "ldmatrix.sync.m8n8.x1.shared.b16",
        "ldmatrix.sync.m8n8.x1.trans.shared.b16",
        "ldmatrix.sync.x2.m8n8.shared.b16",
        "ldmatrix.sync.m8n8.x2.trans.shared.b16",
        "ldmatrix.sync.x4.m8n8.shared.b16",
        "ldmatrix.sync.x4.trans.m8n8.shared::cta.b16",
        "movmatrix.sync.m8n8.trans.b16",
        "stmatrix.sync.m8n8.x4.shared.b16",
        "stmatrix.sync.x2.trans.m8n8.shared.b16",
        "stmatrix.sync.m8n8.x1.shared.b16",
        "stmatrix.sync.m8n8.x1.trans.shared::cta.b16",
        "stmatrix.sync.x2.m8n8.shared::cta.b16",
        "stmatrix.sync.m8n8.x2.trans.shared.b16",
        "stmatrix.sync.x4.m8n8.shared.b16",
        "stmatrix.sync.x4.trans.m8n8.shared::cta.b16",
        "cp.async.shared.global",
        "cp.async.commit_group",
        "cp.async.wait_group",
        "cp.async.wait_all",
    ] {
        assert!(forms.contains(f), "{f} not in the fixture's PTX: {forms:?}");
    }

    // 2-5. The support library (the shipped sections of kernels-ir/amdgcn.ll), launch
    //      wrappers, the simulator, the harness's inputs (tests/wave64_support).
    let libll = library(&["wave64 warp model", "tensor memory"]);
    let sim = build_simulator(&dir, &tools, &modules, &libll, &kernels);
    let mut man = harness_inputs(&dir, &tools, "fixtures/gpu/tensor_mem_cases.json");
    let sm90_jobs = harness_inputs(&dir, &tools, "fixtures/gpu/tensor_mem_sm90_cases.json");
    man.as_array_mut()
        .unwrap()
        .extend(sm90_jobs.as_array().unwrap().iter().cloned());

    // 6. The GPU's results, when the lead has run the fixture on the H200.
    let gpu_path = root.join("fixtures/gpu/results/tensor_mem-ptxjit-validation.json");
    let gpu: Option<serde_json::Value> = Some(
        serde_json::from_str(
            &std::fs::read_to_string(&gpu_path)
                .unwrap_or_else(|e| panic!("{}: {e}", gpu_path.display())),
        )
        .unwrap(),
    );
    // stmatrix (tensor_mem_sm90_fixtures.so): its own results file (run on the H200).
    let gpu90_path = root.join("fixtures/gpu/results/tensor_mem_sm90-ptxjit-validation.json");
    let gpu90: Option<serde_json::Value> = Some(
        serde_json::from_str(
            &std::fs::read_to_string(&gpu90_path)
                .unwrap_or_else(|e| panic!("{}: {e}", gpu90_path.display())),
        )
        .unwrap(),
    );
    let gpu_sha = |case: &str, seed: u64, buf: &str| -> Option<String> {
        let results = if case.starts_with("tm_stmatrix") {
            gpu90.as_ref()?
        } else {
            gpu.as_ref()?
        };
        Some(gpu_sha256(results, case, seed, buf))
    };

    // 7. Run every case and seed.
    let mut checked = 0;
    let mut gpu_checked = 0;
    let mut bad = Vec::new();
    for job in man.as_array().unwrap() {
        let case = job["case"].as_str().unwrap();
        let seed = job["seed"].as_u64().unwrap();
        let bufs = job["bufs"].as_array().unwrap();
        let n = job["n"].as_u64().unwrap() as usize;
        let inputs: Vec<Vec<u8>> = bufs
            .iter()
            .filter(|b| b["role"] == "in")
            .map(|b| std::fs::read(b["path"].as_str().unwrap()).unwrap())
            .collect();
        run_job(&dir, &sim, job, &kernels);
        let want = match case {
            "tm_ldmatrix" => model_ldmatrix(&inputs[0], &inputs[1], n),
            "tm_movmatrix" => model_movmatrix(&inputs[0], n),
            "tm_cp_async" => model_cp_async(&inputs[0], &inputs[1], n),
            "tm_stmatrix" => model_stmatrix(&inputs[0], &inputs[1], n),
            "tm_stmatrix_all" => model_stmatrix_all(&inputs[0], &inputs[1], n),
            c => panic!("no host model for case {c}"),
        };
        let b = bufs.iter().find(|b| b["role"] != "in").unwrap();
        let name = b["name"].as_str().unwrap();
        let got = std::fs::read(b["path"].as_str().unwrap()).unwrap();
        checked += 1;
        if got != want {
            let at = got.iter().zip(&want).position(|(x, y)| x != y);
            bad.push(format!(
                "{case} seed {seed} {name}: differs from the ISA model (first byte {at:?})"
            ));
        }
        if let Some(h) = gpu_sha(case, seed, name) {
            gpu_checked += 1;
            if format!("{:x}", Sha256::digest(&got)) != h {
                bad.push(format!("{case} seed {seed} {name}: differs from the H200"));
            }
        }
    }
    assert!(
        bad.is_empty(),
        "{} of {checked} outputs wrong: {bad:?}; files in {}",
        bad.len(),
        dir.display()
    );
    assert_eq!(checked, 5 * 3, "every output of every case and seed");
    // ldmatrix, movmatrix and cp.async × seeds 0-2 against the H200, and the 2 stmatrix cases
    // once their results are committed.
    let want_gpu = 3 * 3 + if gpu90.is_some() { 2 * 3 } else { 0 };
    assert_eq!(gpu_checked, want_gpu, "outputs compared with the H200");
    let _ = std::fs::remove_dir_all(&dir);
}
