//! xformers 0.0.35's sparse24 kernels executed from the converted wheel: `wheelport` converts
//! the corpus wheel for dtk, and the gfx906 code objects of its `xformers/_C.so`
//! (`.hip_fatbin`) run in the project's ISA interpreter (`tools/amdgpu-exec`), launched as
//! xformers' host code launches them (`xformers/csrc/sparse24/*.cu` at v0.0.35), and judged by
//! xformers' own tests (`tests/test_sparsity24.py`):
//!
//! * `sparseNM_dense_kernel` (all 8 instantiations: N:M 2:4 and 2:8, "largest" and
//!   "largest_abs", from `sparseNM_dense<false>` and `<true>`), on 128x128 bfloat16 inputs,
//!   grid (2, 2), 32 threads, as `sparseNM_dense` launches it: `test_sparseNM_dense`'s
//!   reference (in every group of M, the elements ranked below M - N by an argsort of the
//!   argsort are zeroed). Its inputs have distinct values in every group, so the reference is
//!   unique and the output must equal it exactly (the test allows 0.2% for ties).
//! * `sparse24_largest_mask_2d_cu` (f16 and bf16, without and with the random fill), as
//!   `sparse24_largest_with_random_mask_2d_impl` launches it (one work-group of 64 threads
//!   per 32x16 block): `test_sparse24_largest_mask_2d`'s input and its expected mask,
//!   verbatim; and, for the kernels without the random fill, a 64x64 input with distinct
//!   values in every 4x4 tile against the kernel's greedy rule written out here (largest
//!   first, at most 2 per row and per column of the tile).
//!
//! Each launch is also compared with the H200: `tools/gpu/xformers_raw.py` made the same
//! inputs and ran them through xformers' own operators (`sparseNM_dense`,
//! `sparse24_largest_mask_2d`, `sparse24_largest_with_Krandom_mask_2d` with no random
//! element) on the original wheel; `fixtures/gpu/results/xformers_sparse24.json`
//! holds the SHA-256 of each input and output, and the executed output must have the H200's.

mod common;

use amdgpu_exec::exec::{Launch, Limits, Machine};
use amdgpu_exec::runner::load_objects;
use common::*;
use std::process::Command;

const T: &str = "xformers_exec";

/// A deterministic generator (64-bit LCG, high bits).
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u32 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) as u32
    }
}

fn bf16_value(b: u16) -> f32 {
    f32::from_bits((b as u32) << 16)
}

fn f16_value(b: u16) -> f32 {
    let s = if b & 0x8000 != 0 { -1.0 } else { 1.0 };
    let e = ((b >> 10) & 0x1f) as i32;
    let m = (b & 0x3ff) as f32;
    s * if e == 0 {
        m * 2f32.powi(-24)
    } else {
        (1.0 + m / 1024.0) * 2f32.powi(e - 15)
    }
}

/// The machine (among `ms`) whose code object has a kernel whose demangled name satisfies
/// `pick`, and that kernel's mangled name.
fn find(ms: &mut [Machine], pick: &dyn Fn(&str) -> bool) -> (usize, String) {
    for (i, m) in ms.iter().enumerate() {
        for k in &m.co.kernels {
            let d = cpp_demangle::Symbol::new(k.name.as_bytes())
                .map(|s| s.to_string())
                .unwrap_or_default();
            if pick(&d) {
                return (i, k.name.clone());
            }
        }
    }
    panic!("no such kernel in the converted _C.so");
}

/// Dispatch `name` with explicit arguments `args` (bytes per argument, in order).
fn launch(m: &mut Machine, name: &str, args: &[Vec<u8>], grid: [u32; 3], block: u32) {
    let k = m.co.kernel(name).unwrap().clone();
    let explicit: Vec<_> = k
        .args
        .iter()
        .filter(|a| !a.kind.starts_with("hidden_"))
        .collect();
    assert_eq!(explicit.len(), args.len(), "{name}: argument count");
    let mut ka = vec![0u8; k.kernarg_segment_size as usize];
    for (a, bytes) in explicit.iter().zip(args) {
        assert_eq!(a.size as usize, bytes.len(), "{name}: argument {}", a.name);
        let o = a.offset as usize;
        ka[o..o + bytes.len()].copy_from_slice(bytes);
    }
    let l = Launch {
        grid,
        block: [block, 1, 1],
        dyn_lds: 0,
    };
    m.dispatch(name, &ka, &l, Limits::default())
        .unwrap_or_else(|e| panic!("{name}: {e}"));
}

fn u16s(b: &[u8]) -> Vec<u16> {
    b.chunks(2)
        .map(|c| u16::from_le_bytes([c[0], c[1]]))
        .collect()
}

fn bytes16(v: &[u16]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// `test_sparseNM_dense`'s reference: in each group of `m` of a row, zero the elements whose
/// rank (ascending, by value or by magnitude) is below `m - n`.
fn sparse_nm_reference(a: &[u16], m: usize, n: usize, abs: bool) -> Vec<u16> {
    let mut out = a.to_vec();
    for g in out.chunks_mut(m) {
        let key = |x: u16| {
            let v = bf16_value(x);
            if abs {
                v.abs()
            } else {
                v
            }
        };
        let mut order: Vec<usize> = (0..m).collect();
        order.sort_by(|&i, &j| key(g[i]).partial_cmp(&key(g[j])).unwrap());
        for &i in &order[..m - n] {
            g[i] = 0;
        }
    }
    out
}

/// bfloat16 values, distinct in every group of `m` (by value, and by magnitude), none zero.
fn distinct_groups(rng: &mut Rng, len: usize, m: usize) -> Vec<u16> {
    let mut v = Vec::with_capacity(len);
    while v.len() < len {
        let mut group: Vec<u16> = Vec::new();
        while group.len() < m {
            // magnitudes in [1/8, 8), random sign
            let mag = 0x3e00 + (rng.next() % 0x0600) as u16;
            if group.iter().any(|g| g & 0x7fff == mag) {
                continue;
            }
            group.push(mag | if rng.next() & 1 != 0 { 0x8000 } else { 0 });
        }
        v.extend(group);
    }
    v
}

/// The greedy rule of `Sp24MaskKernel::run` without the random fill, on a row-major `rows` x
/// `cols` matrix of `value`s with distinct values in each 4x4 tile: per tile, from the
/// largest value down, take one when its row and its column each have fewer than 2 taken.
fn mask_reference(vals: &[f32], rows: usize, cols: usize) -> Vec<bool> {
    let mut out = vec![false; vals.len()];
    for r0 in (0..rows).step_by(4) {
        for c0 in (0..cols).step_by(4) {
            let mut cells: Vec<(usize, usize)> = (0..16).map(|i| (i / 4, i % 4)).collect();
            let v = |&(r, c): &(usize, usize)| vals[(r0 + r) * cols + c0 + c];
            cells.sort_by(|a, b| v(b).partial_cmp(&v(a)).unwrap());
            let (mut per_row, mut per_col) = ([0; 4], [0; 4]);
            for (r, c) in cells {
                if per_row[r] == 2 || per_col[c] == 2 {
                    continue;
                }
                per_row[r] += 1;
                per_col[c] += 1;
                out[(r0 + r) * cols + c0 + c] = true;
            }
        }
    }
    out
}

#[test]
fn sparse24_kernels_pass_xformers_tests_on_gfx906() {
    let Some(whl) = require_corpus("xformers-0.0.35", T) else {
        return;
    };
    let Some(_) = require_toolchain("dtk", T) else {
        return;
    };
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("out");
    let (code, o, e) = run(Command::new(bin())
        .arg(&whl)
        .args(["--target", "dtk", "--offload-arch", "gfx906", "-q", "-o"])
        .arg(&out));
    assert_eq!(code, 0, "convert: {o}{e}");
    let new = std::fs::read_dir(&out)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .find(|p| p.extension().is_some_and(|e| e == "whl"))
        .expect("the converted wheel");
    let so = extract_member(&new, "xformers/_C.so", d.path());
    let mut ms: Vec<Machine> = load_objects(&so, "gfx906")
        .unwrap()
        .into_iter()
        .map(|c| Machine::new(c).unwrap())
        .collect();
    let mut rng = Rng(0x5eed);
    let h200 = read_json(&root().join("fixtures/gpu/results/xformers_sparse24.json"));
    let launches = h200["launches"].as_array().unwrap();
    let mut next = 0usize;
    let mut check_h200 = |what: &str, inp: &[u8], out: &[u8]| {
        let r = &launches[next];
        next += 1;
        assert_eq!(
            r["input_sha256"].as_str(),
            Some(amdgpu_exec::runner::sha256(inp).as_str()),
            "xformers_sparse24.json launch {}: the H200 ran other inputs than {what}",
            next - 1
        );
        assert_eq!(
            r["output_sha256"].as_str(),
            Some(amdgpu_exec::runner::sha256(out).as_str()),
            "{what}: not the H200's output ({})",
            r["kernel"]
        );
    };

    // sparseNM_dense_kernel<N, M, bfloat16_t, lambda>(in, in_s0, out, out_s0, sort_preproc)
    let mut ran = 0;
    for mm in [4usize, 8] {
        for meta in ["false", "true"] {
            for (lambda, abs) in [("#1", false), ("#2", true)] {
                let (i, name) = find(&mut ms, &|d: &str| {
                    d.contains(&format!(
                        "sparseNM_dense_kernel<2, {mm}, cutlass::bfloat16_t"
                    )) && d.contains(&format!("sparseNM_dense<{meta}>"))
                        && d.contains(&format!("{{lambda(auto:1){lambda}}}"))
                });
                let m = &mut ms[i];
                m.reset();
                let (rows, cols) = (128usize, 128usize);
                let a = distinct_groups(&mut rng, rows * cols, mm);
                let ia = m.mem.alloc(a.len() * 2, "in");
                let oa = m.mem.alloc(a.len() * 2, "out");
                m.mem.write(ia, &bytes16(&a)).unwrap();
                let args = vec![
                    ia.to_le_bytes().to_vec(),
                    (cols as i64).to_le_bytes().to_vec(),
                    oa.to_le_bytes().to_vec(),
                    (cols as i64).to_le_bytes().to_vec(),
                    vec![0u8],
                ];
                launch(m, &name, &args, [rows as u32 / 64, cols as u32 / 64, 1], 32);
                let mut got = vec![0u8; a.len() * 2];
                m.mem.read(oa, &mut got).unwrap();
                check_h200(&name, &bytes16(&a), &got);
                let want = sparse_nm_reference(&a, mm, 2, abs);
                let got = u16s(&got);
                let wrong = got.iter().zip(&want).filter(|(g, w)| g != w).count();
                assert_eq!(wrong, 0, "{name}: {wrong} of {} elements", got.len());
                ran += 1;
            }
        }
    }
    assert_eq!(ran, 8);

    // sparse24_largest_mask_2d_cu<Sp24MaskKernel<T, kHasRandom>>(Params {input, output,
    // stride0, size0, size1, numRandom}): grid = ceil(size0/32) * ceil(size1/16), 64 threads.
    let params = |i: u64, o: u64, rows: i64, cols: i64| -> Vec<u8> {
        let mut p = Vec::new();
        for v in [i, o] {
            p.extend(v.to_le_bytes());
        }
        for v in [cols, rows, cols] {
            p.extend(v.to_le_bytes());
        }
        p.push(0); // numRandom
        p.resize(48, 0);
        p
    };
    // test_sparse24_largest_mask_2d, verbatim (f16 there; bf16 holds the same values).
    let verbatim: [f32; 16] = [
        4.0, 3.0, 2.0, 1.0, 0.0, 0.0, 0.5, 0.5, 1.0, 2.0, 3.0, 4.0, 10.0, 2.0, -1.0, 5.0,
    ];
    let expected: [u16; 16] = [1, 1, 0, 0, 0, 1, 1, 0, 0, 0, 1, 1, 1, 0, 0, 1];
    for (ty, one, encode, decode) in [
        (
            "cutlass::half_t",
            0x3c00u16,
            (|v: f32| -> u16 {
                // the verbatim values are exact in f16: sign, exponent, 10 fraction bits
                if v == 0.0 {
                    return 0;
                }
                let (s, a) = (if v < 0.0 { 0x8000 } else { 0 }, v.abs());
                let e = a.log2().floor() as i32;
                let m = ((a / 2f32.powi(e) - 1.0) * 1024.0) as u16;
                s | (((e + 15) as u16) << 10) | m
            }) as fn(f32) -> u16,
            f16_value as fn(u16) -> f32,
        ),
        (
            "cutlass::bfloat16_t",
            0x3f80u16,
            (|v: f32| -> u16 { (v.to_bits() >> 16) as u16 }) as fn(f32) -> u16,
            bf16_value as fn(u16) -> f32,
        ),
    ] {
        for random in ["false", "true"] {
            let (i, name) = find(&mut ms, &|d: &str| {
                d.starts_with(&format!(
                    "void sparse24_largest_mask_2d_cu<Sp24MaskKernel<{ty}, {random}> >"
                ))
            });
            let m = &mut ms[i];
            m.reset();
            let inp: Vec<u16> = verbatim.iter().map(|v| encode(*v)).collect();
            for (x, v) in inp.iter().zip(&verbatim) {
                assert_eq!(decode(*x), *v, "{ty} encoding");
            }
            let ia = m.mem.alloc(32, "in");
            let oa = m.mem.alloc(32, "out");
            m.mem.write(ia, &bytes16(&inp)).unwrap();
            launch(m, &name, &[params(ia, oa, 4, 4)], [1, 1, 1], 64);
            let mut got = vec![0u8; 32];
            m.mem.read(oa, &mut got).unwrap();
            check_h200(&name, &bytes16(&inp), &got);
            let got: Vec<u16> = u16s(&got).iter().map(|g| u16::from(*g == one)).collect();
            assert_eq!(got, expected, "{name}: test_sparse24_largest_mask_2d");
            if random == "true" {
                continue;
            }
            // 64x64, distinct values in every 4x4 tile.
            let (rows, cols) = (64usize, 64usize);
            let mut inp = vec![0u16; rows * cols];
            for r0 in (0..rows).step_by(4) {
                for c0 in (0..cols).step_by(4) {
                    let mut seen: Vec<u16> = Vec::new();
                    for k in 0..16 {
                        let x = loop {
                            let mag = if ty.contains("half") {
                                0x3000 + (rng.next() % 0x1400) as u16
                            } else {
                                0x3e00 + (rng.next() % 0x0600) as u16
                            };
                            let x = mag | if rng.next() & 1 != 0 { 0x8000 } else { 0 };
                            if !seen.contains(&x) {
                                break x;
                            }
                        };
                        seen.push(x);
                        inp[(r0 + k / 4) * cols + c0 + k % 4] = x;
                    }
                }
            }
            let vals: Vec<f32> = inp.iter().map(|x| decode(*x)).collect();
            let ia = m.mem.alloc(inp.len() * 2, "in");
            let oa = m.mem.alloc(inp.len() * 2, "out");
            m.mem.write(ia, &bytes16(&inp)).unwrap();
            let grid = (rows as u32).div_ceil(32) * (cols as u32).div_ceil(16);
            launch(
                m,
                &name,
                &[params(ia, oa, rows as i64, cols as i64)],
                [grid, 1, 1],
                64,
            );
            let mut got = vec![0u8; inp.len() * 2];
            m.mem.read(oa, &mut got).unwrap();
            check_h200(&name, &bytes16(&inp), &got);
            let got: Vec<bool> = u16s(&got).iter().map(|g| *g == one).collect();
            let want = mask_reference(&vals, rows, cols);
            let wrong = got.iter().zip(&want).filter(|(g, w)| g != w).count();
            assert_eq!(wrong, 0, "{name}: {wrong} of {} mask elements", got.len());
        }
    }
    assert_eq!(
        next,
        launches.len(),
        "xformers_sparse24.json holds launches this test did not make"
    );
}
