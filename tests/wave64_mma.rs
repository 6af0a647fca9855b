//! `mma` / `mma.sp::ordered_metadata` on the wave64 warp model, executed on the CPU.
//!
//! The eight kernels of `fixtures/gpu/mma_fixtures.so` (sources `fixtures/gpu/src/mma.cu`:
//! m16n8k8, m16n8k16 and sparse m16n8k32 with both sparsity selectors, f16 and bf16, f32
//! accumulators) are lowered for `dtk` (amdgcn, wave64) as the converter lowers them, made
//! host IR, linked with the portable, wave64-warp-model and wave64-mma sections cut out of
//! `kernels-ir/amdgcn.ll` (the shipped text) and with `tests/wave64/sim.c` (64-lane
//! wavefronts of fibers), and run on the GPU harness's inputs (`tools/gpu/harness.py`,
//! seeds of `fixtures/gpu/mma_cases.json`).
//!
//! Every output is compared with
//! * a host reference of the PTX ISA 9.x semantics written at the matrix level (§9.7.14.5.x
//!   fragment tables for A, B, C/D; §9.7.14.6.1 sparse storage and the m16n8k32 .f16/.bf16
//!   metadata layout): the fragments of each warp are placed into the 16xK matrices A, B and
//!   C, the sparse A is expanded from its compressed form by the metadata, and D = A*B + C is
//!   computed in f64. mma.cu's inputs make every f32 sum exact (see that file), so PTX ISA's
//!   implementation-defined accumulation order and rounding cannot change a bit: the tolerance
//!   is 0 and the comparison is bitwise;
//! * the SHA-256 that the original binary produced on an NVIDIA H200
//!   (`fixtures/gpu/results/mma-ptxjit-validation.json`, `orig_sha256`): 8 cases × seeds 0–2,
//!   random 2:4 metadata with both sparsity selectors included, so the H200 also confirms the
//!   m16n8k32 metadata layout the library and the host reference assume. The cuda twin
//!   (`wheelport ptx twin`) equals the original bit for bit on the H200 (`mma-twin.json`).

mod common;
mod wave64_support;

use common::*;
use sha2::{Digest, Sha256};
use wave64_support::*;

const BF16_TRUNC: &str =
    "; The host's libgcc (GCC 12) lacks the f32 -> bf16 conversion LLVM calls for `fptrunc to
; bfloat` (cvt.rn.bf16.f32 in mma.cu): round to nearest even, NaN kept quiet.
define bfloat @__truncsfbf2(float %x) {
  %b = bitcast float %x to i32
  %nan = fcmp uno float %x, 0.0
  %h = lshr i32 %b, 16
  %l1 = and i32 %h, 1
  %r0 = add i32 %b, 32767
  %r1 = add i32 %r0, %l1
  %q = lshr i32 %r1, 16
  %nq = or i32 %h, 64
  %s = select i1 %nan, i32 %nq, i32 %q
  %t = trunc i32 %s to i16
  %f = bitcast i16 %t to bfloat
  ret bfloat %f
}
";

fn words(b: &[u8]) -> Vec<u32> {
    b.chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

/// mma.cu's value of 16 or 32 random bits: m * 2^-s, m in [-2^(mbits-1), 2^(mbits-1)).
fn val(h: u32, mbits: u32) -> f64 {
    let m = (h & ((1 << mbits) - 1)) as i64 - (1 << (mbits - 1));
    let s = (h >> mbits) & 3;
    m as f64 / (1u64 << s) as f64
}

/// mma.cu's metadata of 32 random bits: eight valid ordered 2:4 chunk fields.
fn meta(bits: u32) -> u32 {
    const PAT: [u32; 6] = [0x4, 0x8, 0xC, 0x9, 0xD, 0xE];
    (0..8).fold(0, |e, k| {
        e | PAT[((bits >> (4 * k)) & 0xF) as usize % 6] << (4 * k)
    })
}

/// The PTX ISA result of one case: D for every thread, 4 f32 per thread.
/// `k`: 8, 16 or 32 (32 = sparse m16n8k32 with selector `sel`).
fn reference(k: usize, sel: usize, a: &[u32], b: &[u32], c: &[u32], e: &[u32]) -> Vec<f32> {
    let n = e.len();
    let mut d = vec![0f32; 4 * n];
    for w in 0..n / 32 {
        let th = |lane: usize| w * 32 + lane;
        let kk = k; // K of the (dense) product
        let mut am = vec![vec![0f64; kk]; 16];
        let mut bm = vec![vec![0f64; 8]; kk];
        let mut cm = vec![vec![0f64; 8]; 16];
        // Compressed A of the sparse form: 16 x 16.
        let mut comp = vec![vec![0f64; 16]; 16];
        for lane in 0..32 {
            let (g, t) = (lane >> 2, lane & 3);
            let i = th(lane);
            let elem = |words: &[u32], x: usize| -> f64 {
                let wv = words[4 * i + x / 2];
                val(
                    if x.is_multiple_of(2) {
                        wv & 0xffff
                    } else {
                        wv >> 16
                    },
                    4,
                )
            };
            // A (§9.7.14.5.x "Matrix Fragments for mma.m16n8k8/k16", .f16/.bf16).
            let na = if k == 8 { 4 } else { 8 };
            for x in 0..na {
                let row = if k == 8 {
                    if x < 2 {
                        g
                    } else {
                        g + 8
                    }
                } else if x < 2 || (4..6).contains(&x) {
                    g
                } else {
                    g + 8
                };
                let col = 2 * t + (x & 1) + if x >= 4 { 8 } else { 0 };
                if k == 32 {
                    comp[row][col] = elem(a, x);
                } else {
                    am[row][col] = elem(a, x);
                }
            }
            // B: register j holds rows 8j + 2t + {0,1} of column g.
            let nb = kk / 4;
            for x in 0..nb {
                bm[2 * t + (x & 1) + 8 * (x >> 1)][g] = elem(b, x);
            }
            // C/D.
            for x in 0..4 {
                cm[g + 8 * (x >> 1)][2 * t + (x & 1)] = val(c[4 * i + x], 8);
            }
        }
        if k == 32 {
            // §9.7.14.6.1: chunk field bits [1:0] = index of the first non-zero element,
            // [3:2] of the second. Metadata of group g: threads 4g+2sel (chunks 0-3) and
            // 4g+2sel+1 (chunks 4-7), bits [15:0] row g, [31:16] row g+8.
            for g in 0..8 {
                for half in 0..2 {
                    let m = meta(e[th(4 * g + 2 * sel + half)]);
                    for (rh, row) in [g, g + 8].into_iter().enumerate() {
                        for cc in 0..4 {
                            let chunk = 4 * half + cc;
                            let f = (m >> (16 * rh + 4 * cc)) & 0xF;
                            let (i0, i1) = ((f & 3) as usize, (f >> 2) as usize);
                            assert!(i0 < i1, "generated metadata is ordered");
                            am[row][4 * chunk + i0] = comp[row][2 * chunk];
                            am[row][4 * chunk + i1] = comp[row][2 * chunk + 1];
                        }
                    }
                }
            }
        }
        for lane in 0..32 {
            let (g, t) = (lane >> 2, lane & 3);
            for x in 0..4 {
                let (row, col) = (g + 8 * (x >> 1), 2 * t + (x & 1));
                let s: f64 = (0..kk).map(|q| am[row][q] * bm[q][col]).sum::<f64>() + cm[row][col];
                // Every sum is exact in f32 (mma.cu): the f64 value converts without rounding.
                assert_eq!((s as f32) as f64, s, "inputs keep f32 sums exact");
                d[4 * th(lane) + x] = s as f32;
            }
        }
    }
    d
}

#[test]
fn mma_fixtures_match_the_ptx_isa_on_simulated_wave64() {
    const T: &str = "wave64_mma";
    let Some(tools) = Tools::require(T) else {
        return;
    };
    let root = root();
    let dir = scratch("wave64-mma");

    // 1. The PTX of the fixture, lowered for dtk.
    let (modules, kernels) = lower_fixture("mma_fixtures.so");
    assert_eq!(kernels.len(), 8, "the 8 kernels of mma.cu");

    // 2-5. The support library (the shipped sections of kernels-ir/amdgcn.ll, plus the
    //      host's missing f32 -> bf16 conversion), launch wrappers, the simulator, the
    //      harness's inputs (tests/wave64_support).
    let libll = format!(
        "{}{BF16_TRUNC}",
        library(&["wave64 warp model", "wave64 mma"])
    );
    let sim = build_simulator(&dir, &tools, &modules, &libll, &kernels);
    let man = harness_inputs(&dir, &tools, "fixtures/gpu/mma_cases.json");

    // 6. GPU results, when the lead has committed them.
    let gpu_path = root.join("fixtures/gpu/results/mma-ptxjit-validation.json");
    let gpu: Option<serde_json::Value> = Some(
        serde_json::from_str(
            &std::fs::read_to_string(&gpu_path)
                .unwrap_or_else(|e| panic!("{}: {e}", gpu_path.display())),
        )
        .unwrap(),
    );
    let expect = |case: &str, seed: u64, buf: &str| -> Option<String> {
        Some(gpu_sha256(gpu.as_ref()?, case, seed, buf))
    };

    // 7. Run every case and seed; compare.
    let mut checked = 0;
    let mut gpu_checked = 0;
    let mut bad = Vec::new();
    for job in man.as_array().unwrap() {
        let case = job["case"].as_str().unwrap();
        let seed = job["seed"].as_u64().unwrap();
        let bufs = job["bufs"].as_array().unwrap();
        run_job(&dir, &sim, job, &kernels);

        let rd = |name: &str| -> Vec<u32> {
            let b = bufs.iter().find(|b| b["name"] == name).unwrap();
            words(&std::fs::read(b["path"].as_str().unwrap()).unwrap())
        };
        let (kk, sel) = match case {
            c if c.starts_with("m_k8_") => (8, 0),
            c if c.starts_with("m_k16_") => (16, 0),
            c if c.ends_with("_s0") => (32, 0),
            c if c.ends_with("_s1") => (32, 1),
            c => panic!("unknown case {c}"),
        };
        let want = reference(kk, sel, &rd("a"), &rd("b"), &rd("c"), &rd("e"));
        let got_bytes = std::fs::read(
            bufs.iter().find(|b| b["name"] == "d").unwrap()["path"]
                .as_str()
                .unwrap(),
        )
        .unwrap();
        let got = words(&got_bytes);
        checked += 1;
        let diffs: Vec<String> = got
            .iter()
            .zip(&want)
            .enumerate()
            .filter(|(_, (g, w))| **g != w.to_bits())
            .take(4)
            .map(|(i, (g, w))| format!("d[{i}] = {} want {w}", f32::from_bits(*g)))
            .collect();
        if !diffs.is_empty() {
            bad.push(format!(
                "{case} seed {seed} vs the ISA reference: {diffs:?}"
            ));
        }
        if let Some(h) = expect(case, seed, "d") {
            gpu_checked += 1;
            if h != format!("{:x}", Sha256::digest(&got_bytes)) {
                bad.push(format!("{case} seed {seed}: d differs from the H200"));
            }
        }
    }
    assert!(
        bad.is_empty(),
        "{}; files in {}",
        bad.join("\n"),
        dir.display()
    );
    assert_eq!(checked, 8 * 3, "every case and seed");
    assert_eq!(gpu_checked, 8 * 3, "every case and seed against the H200");
    let _ = std::fs::remove_dir_all(&dir);
}
