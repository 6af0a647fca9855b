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

use common::*;
use sha2::{Digest, Sha256};
use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;
use wheelport::fatbin::EntryKind;
use wheelport::lower::{lower_ptx, KernelOutcome};

const PORTABLE_DECLS: &str = "declare float @llvm.fabs.f32(float)
declare float @llvm.copysign.f32(float, float)
declare i32 @llvm.umin.i32(i32, i32)
declare i32 @llvm.ctlz.i32(i32, i1)
declare i64 @llvm.ctlz.i64(i64, i1)
";

/// What tests/wave64/sim.c provides in place of the amdgcn definitions.
const HOST_DECLS: &str = "declare i32 @__wp_wave_lane() convergent nounwind
declare i64 @__wp_wave_ballot(i1 zeroext) convergent nounwind
declare i32 @__wp_wave_bpermute(i32, i32) convergent nounwind
declare void @__wp_wave_sync() convergent nounwind
declare i32 @__wp_linear_tid()
declare i32 @__wp_sreg_ntid_x()
declare i32 @__wp_sreg_ntid_y()
declare i32 @__wp_sreg_ntid_z()
";

fn section<'s>(s: &'s str, a: &str, b: &str) -> &'s str {
    let i = s.find(a).expect("section start");
    let j = s[i..].find(b).expect("section end") + i;
    &s[i..j]
}

/// Lowered amdgcn IR as host IR: address spaces dropped (one flat memory), address-space
/// casts become no-op bitcasts, kernels become plain functions.
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

#[test]
fn warp_fixtures_give_the_h200_results_on_simulated_wave64() {
    const T: &str = "wave64_exec";
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
    let dir = std::env::temp_dir().join(format!("wp-wave64-exec-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();

    // 1. The PTX of the fixture, lowered for dtk.
    let so_path = root.join("fixtures/gpu/warp_fixtures.so");
    let data = std::fs::read(&so_path).unwrap();
    let so = wheelport::elf::scan(&data, "warp_fixtures.so").unwrap();
    let secs = wheelport::fatbin::parse_object_sections(&data, &so, "warp_fixtures.so").unwrap();
    let prof = wheelport::target::profile("dtk").unwrap();
    let mut modules = Vec::new();
    let mut kernels: Vec<(String, Vec<wheelport::lower::ParamLayout>)> = Vec::new();
    for (_, cs) in &secs {
        for e in cs.iter().flat_map(|c| c.entries.iter()) {
            if e.kind() != EntryKind::Ptx {
                continue;
            }
            let ptx = String::from_utf8(e.ptx_bytes().unwrap().into_owned()).unwrap();
            let m = lower_ptx(&ptx, "warp_fixtures.ptx", prof);
            for k in &m.kernels {
                assert_eq!(k.outcome, KernelOutcome::Lowered, "{}", k.name);
                kernels.push((k.name.clone(), k.params.clone()));
            }
            if !m.kernels.is_empty() {
                modules.push(to_host(&m.ir));
            }
        }
    }
    assert_eq!(kernels.len(), 12, "the 12 warp kernels of warp.cu");

    // 2. The support library: the shipped sections of kernels-ir/amdgcn.ll.
    let lib = std::fs::read_to_string(root.join("kernels-ir/amdgcn.ll")).unwrap();
    let portable = section(&lib, "; ---- portable", "; ---- end portable");
    let wave = section(
        &lib,
        "; ==== BEGIN wave64 warp model",
        "; ==== END wave64 warp model",
    );
    let libll = format!("{portable}\n{wave}\n{PORTABLE_DECLS}{HOST_DECLS}");

    // 3. Launch wrappers: __wp_host_kernels[k](params) loads the kernel's scalar parameters
    //    from the PTX parameter layout and calls it.
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

    // 4. Link, inline (every PTX instruction gets its own primitive call sites), build.
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
            // Non-PIE: the kernels' `.shared` variables land below 4 GiB, where the 32-bit
            // shared-memory addresses of the amdgcn lowering (p3:32) reach them.
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
        cases = root.join("fixtures/gpu/warp_cases.json").display().to_string(),
        out = dir.display().to_string(),
    );
    let (code, out, err) = run(Command::new(&py).arg("-c").arg(&script));
    assert_eq!(code, 0, "harness inputs: {err}");
    let man: serde_json::Value = serde_json::from_str(&out).unwrap();

    // 6. Expected hashes: the original binary on the H200.
    let val: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(root.join("fixtures/gpu/results/warp-ptxjit-validation.json"))
            .unwrap(),
    )
    .unwrap();
    let expect = |case: &str, seed: u64, buf: &str| -> String {
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
        o["orig_sha256"].as_str().unwrap().to_string()
    };

    // 7. Run every case and seed.
    let mut checked = 0;
    let mut bad = Vec::new();
    for job in man.as_array().unwrap() {
        let case = job["case"].as_str().unwrap();
        let seed = job["seed"].as_u64().unwrap();
        let entry = job["entry"].as_str().unwrap();
        let k = kernels.iter().position(|(n, _)| n == entry).unwrap();
        let params = &kernels[k].1;
        let bufs = job["bufs"].as_array().unwrap();
        assert_eq!(job["dyn"], 0);
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
        // warp.cu's kernels take their buffers in case-table order, then `int n`.
        assert_eq!(params.len(), bufs.len() + 1, "{case}: parameters");
        let last = params.last().unwrap();
        let _ = writeln!(j, "params {}", last.offset + last.size);
        for (i, p) in params[..bufs.len()].iter().enumerate() {
            assert_eq!(p.size, 8);
            let _ = writeln!(j, "ptr {} {i}", p.offset);
        }
        assert_eq!(last.size, 4);
        let _ = writeln!(j, "i32 {} {}", last.offset, job["n"]);
        let jf = dir.join(format!("{case}.s{seed}.job"));
        std::fs::write(&jf, j).unwrap();
        run_ok(
            Command::new(&sim).arg(&jf),
            &format!("sim {case} seed {seed}"),
        );
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
