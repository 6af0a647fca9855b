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

use common::*;
use sha2::{Digest, Sha256};
use std::fmt::Write as _;
use std::process::Command;
use wheelport::fatbin::EntryKind;
use wheelport::lower::{lower_ptx, KernelOutcome};

const DECLS: &str = "declare float @llvm.fabs.f32(float)
declare float @llvm.copysign.f32(float, float)
declare float @llvm.fma.f32(float, float, float)
declare i32 @llvm.umin.i32(i32, i32)
declare i32 @llvm.ctlz.i32(i32, i1)
declare i64 @llvm.ctlz.i64(i64, i1)
declare i32 @__wp_wave_lane() convergent nounwind
declare i64 @__wp_wave_ballot(i1 zeroext) convergent nounwind
declare i32 @__wp_wave_bpermute(i32, i32) convergent nounwind
declare void @__wp_wave_sync() convergent nounwind
declare i32 @__wp_linear_tid()
declare i32 @__wp_sreg_ntid_x()
declare i32 @__wp_sreg_ntid_y()
declare i32 @__wp_sreg_ntid_z()
; The host's libgcc (GCC 12) lacks the f32 -> bf16 conversion LLVM calls for `fptrunc to
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

fn section<'s>(s: &'s str, a: &str, b: &str) -> &'s str {
    let i = s.find(a).expect("section start");
    let j = s[i..].find(b).expect("section end") + i;
    &s[i..j]
}

/// Lowered amdgcn IR as host IR (as tests/wave64_exec.rs): one flat address space, kernels
/// as plain functions.
fn to_host(ir: &str) -> String {
    let mut out = String::with_capacity(ir.len());
    for line in ir.lines() {
        if line.starts_with("target datalayout") || line.starts_with("target triple") {
            continue;
        }
        let mut l = line.replace(", addrspace(5)", "");
        while let Some(i) = l.find("addrspace(") {
            let j = l[i..].find(')').unwrap() + i + 1;
            let j = if l[j..].starts_with(' ') { j + 1 } else { j };
            l.replace_range(i..j, "");
        }
        let l = l
            .replace("addrspacecast", "bitcast")
            .replace("amdgpu_kernel ", "");
        out.push_str(&l);
        out.push('\n');
    }
    out
}

fn run_ok(cmd: &mut Command, what: &str) {
    let (code, out, err) = run(cmd);
    assert_eq!(code, 0, "{what} failed:\n{out}\n{err}");
}

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
                val(if x % 2 == 0 { wv & 0xffff } else { wv >> 16 }, 4)
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
    let (Some(llc), Some(link), Some(opt), Some(gcc), Some(py)) = (
        require_tool("llc-19", T),
        require_tool("llvm-link-19", T),
        require_tool("opt-19", T),
        require_tool("gcc", T),
        require_tool("python3", T),
    ) else {
        return;
    };
    let root = root();
    let dir = std::env::temp_dir().join(format!("wp-wave64-mma-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();

    // 1. The PTX of the fixture, lowered for dtk.
    let so_path = root.join("fixtures/gpu/mma_fixtures.so");
    let data = std::fs::read(&so_path).unwrap();
    let so = wheelport::elf::scan(&data, "mma_fixtures.so").unwrap();
    let secs = wheelport::fatbin::parse_object_sections(&data, &so, "mma_fixtures.so").unwrap();
    let prof = wheelport::target::profile("dtk").unwrap();
    let mut modules = Vec::new();
    let mut kernels: Vec<(String, Vec<wheelport::lower::ParamLayout>)> = Vec::new();
    for (_, cs) in &secs {
        for e in cs.iter().flat_map(|c| c.entries.iter()) {
            if e.kind() != EntryKind::Ptx {
                continue;
            }
            let ptx = String::from_utf8(e.ptx_bytes().unwrap().into_owned()).unwrap();
            let m = lower_ptx(&ptx, "mma_fixtures.ptx", prof);
            for k in &m.kernels {
                assert_eq!(k.outcome, KernelOutcome::Lowered, "{}", k.name);
                kernels.push((k.name.clone(), k.params.clone()));
            }
            if !m.kernels.is_empty() {
                modules.push(to_host(&m.ir));
            }
        }
    }
    assert_eq!(kernels.len(), 8, "the 8 kernels of mma.cu");

    // 2. The support library: the shipped sections of kernels-ir/amdgcn.ll.
    let lib = std::fs::read_to_string(root.join("kernels-ir/amdgcn.ll")).unwrap();
    let portable = section(&lib, "; ---- portable", "; ---- end portable");
    let wave = section(
        &lib,
        "; ==== BEGIN wave64 warp model",
        "; ==== END wave64 warp model",
    );
    let mma = section(&lib, "; ==== BEGIN wave64 mma", "; ==== END wave64 mma");
    let libll = format!("{portable}\n{wave}\n{mma}\n{DECLS}");

    // 3. Launch wrappers, as tests/wave64_exec.rs.
    let mut wr = String::new();
    for (k, (name, params)) in kernels.iter().enumerate() {
        let tys: Vec<String> = params.iter().map(|p| format!("i{}", p.size * 8)).collect();
        let _ = writeln!(wr, "declare void @{name}({})", tys.join(", "));
        let _ = writeln!(wr, "define void @__wp_host_launch_{k}(ptr %p) {{");
        let mut args = Vec::new();
        for (i, p) in params.iter().enumerate() {
            let _ = writeln!(wr, "  %g{i} = getelementptr i8, ptr %p, i64 {}", p.offset);
            let _ = writeln!(wr, "  %v{i} = load {}, ptr %g{i}", tys[i]);
            args.push(format!("{} %v{i}", tys[i]));
        }
        let _ = writeln!(
            wr,
            "  call void @{name}({})\n  ret void\n}}",
            args.join(", ")
        );
    }
    let list: Vec<String> = (0..kernels.len())
        .map(|k| format!("ptr @__wp_host_launch_{k}"))
        .collect();
    let _ = writeln!(
        wr,
        "@__wp_host_kernels = constant [{} x ptr] [{}]",
        kernels.len(),
        list.join(", ")
    );

    // 4. Link, inline, build.
    let mut inputs = Vec::new();
    for (i, m) in modules.iter().enumerate() {
        let p = dir.join(format!("k{i}.ll"));
        std::fs::write(&p, m).unwrap();
        inputs.push(p);
    }
    for (n, t) in [("lib.ll", &libll), ("wrappers.ll", &wr)] {
        std::fs::write(dir.join(n), t).unwrap();
        inputs.push(dir.join(n));
    }
    let bc = dir.join("linked.bc");
    run_ok(
        Command::new(&link).args(&inputs).arg("-o").arg(&bc),
        "llvm-link",
    );
    let inl = dir.join("inlined.bc");
    run_ok(
        Command::new(&opt)
            .arg("-passes=always-inline")
            .arg(&bc)
            .arg("-o")
            .arg(&inl),
        "opt",
    );
    let obj = dir.join("kernels.o");
    run_ok(
        Command::new(&llc)
            .args(["-O0", "-filetype=obj", "-relocation-model=static"])
            .arg(&inl)
            .arg("-o")
            .arg(&obj),
        "llc",
    );
    let sim = dir.join("sim");
    run_ok(
        Command::new(&gcc)
            .args(["-O1", "-no-pie", "-o"])
            .arg(&sim)
            .arg(root.join("tests/wave64/sim.c"))
            .arg(&obj)
            .arg("-lm"),
        "gcc",
    );

    // 5. Inputs from the GPU harness itself.
    let script = format!(
        "import json, os, sys\n\
         sys.path.insert(0, {tools:?})\n\
         import harness as h\n\
         t = h.load_cases({cases:?})\n\
         man = []\n\
         for c in t['cases']:\n\
         \x20   n, grid, block, dyn = h.shape_of(c)\n\
         \x20   for s in t['seeds']:\n\
         \x20       bufs = []\n\
         \x20       for b in c['buffers']:\n\
         \x20           d = h.buffer_bytes(c, b, s)\n\
         \x20           p = os.path.join({out:?}, '%s.s%d.%s.bin' % (c['name'], s, b['name']))\n\
         \x20           open(p, 'wb').write(d)\n\
         \x20           bufs.append({{'name': b['name'], 'role': b['role'], 'bytes': len(d), 'path': p}})\n\
         \x20       man.append({{'case': c['name'], 'entry': c['entries'][0], 'seed': s, 'n': n,\n\
         \x20                   'grid': grid, 'block': block, 'dyn': dyn, 'bufs': bufs}})\n\
         print(json.dumps(man))\n",
        tools = root.join("tools/gpu").display().to_string(),
        cases = root.join("fixtures/gpu/mma_cases.json").display().to_string(),
        out = dir.display().to_string(),
    );
    let (code, out, err) = run(Command::new(&py).arg("-c").arg(&script));
    assert_eq!(code, 0, "harness inputs: {err}");
    let man: serde_json::Value = serde_json::from_str(&out).unwrap();

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
        let val = gpu.as_ref()?;
        let k = val["kernels"]
            .as_array()
            .unwrap()
            .iter()
            .find(|k| k["case"] == case)
            .unwrap_or_else(|| panic!("{case} not in the GPU results"));
        let s = k["seeds"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["seed"] == seed)
            .unwrap();
        let o = s["outputs"]
            .as_array()
            .unwrap()
            .iter()
            .find(|o| o["name"] == buf)
            .unwrap();
        Some(o["orig_sha256"].as_str().unwrap().to_string())
    };

    // 7. Run every case and seed; compare.
    let mut checked = 0;
    let mut gpu_checked = 0;
    let mut bad = Vec::new();
    for job in man.as_array().unwrap() {
        let case = job["case"].as_str().unwrap();
        let seed = job["seed"].as_u64().unwrap();
        let entry = job["entry"].as_str().unwrap();
        let k = kernels.iter().position(|(n, _)| n == entry).unwrap();
        let params = &kernels[k].1;
        let bufs = job["bufs"].as_array().unwrap();
        let g = |v: &serde_json::Value, i: usize| v[i].as_u64().unwrap();
        let mut j = format!(
            "kernel {k}\ngrid {} {} {}\nblock {} {} {}\nbuffers {}\n",
            g(&job["grid"], 0),
            g(&job["grid"], 1),
            g(&job["grid"], 2),
            g(&job["block"], 0),
            g(&job["block"], 1),
            g(&job["block"], 2),
            bufs.len()
        );
        for b in bufs {
            let role = if b["role"] == "in" { "in" } else { "out" };
            let _ = writeln!(j, "{role} {} {}", b["bytes"], b["path"].as_str().unwrap());
        }
        assert_eq!(params.len(), bufs.len() + 1, "{case}: parameters");
        let last = params.last().unwrap();
        let _ = writeln!(j, "params {}", last.offset + last.size);
        for (i, p) in params[..bufs.len()].iter().enumerate() {
            assert_eq!(p.size, 8);
            let _ = writeln!(j, "ptr {} {i}", p.offset);
        }
        let _ = writeln!(j, "i32 {} {}", last.offset, job["n"]);
        let jf = dir.join(format!("{case}.s{seed}.job"));
        std::fs::write(&jf, j).unwrap();
        run_ok(
            Command::new(&sim).arg(&jf),
            &format!("sim {case} seed {seed}"),
        );

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
