//! What the wave64 execution tests share (`tests/wave64_exec.rs`, `tests/wave64_mma.rs`,
//! `tests/wave64_tensor_mem.rs`): lowered amdgcn IR made host IR, the shipped sections of
//! `kernels-ir/amdgcn.ll`, launch wrappers by the PTX parameter layout, the simulator binary
//! (`tests/wave64/sim.c`, 64-lane wavefronts of fibers; see docs/warp-model.md) and the GPU
//! harness's own inputs (`tools/gpu/harness.py`).

use crate::common::{require_tool, root, run};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use wheelport::fatbin::EntryKind;
use wheelport::lower::{lower_ptx, KernelOutcome, ParamLayout};

/// Declarations of the LLVM intrinsics the portable section of the library calls.
pub const PORTABLE_DECLS: &str = "declare float @llvm.fabs.f32(float)
declare float @llvm.copysign.f32(float, float)
declare float @llvm.fma.f32(float, float, float)
declare i32 @llvm.umin.i32(i32, i32)
declare i32 @llvm.ctlz.i32(i32, i1)
declare i64 @llvm.ctlz.i64(i64, i1)
";

/// What tests/wave64/sim.c provides in place of the amdgcn definitions.
pub const HOST_DECLS: &str = "declare i32 @__wp_wave_lane() convergent nounwind
declare i64 @__wp_wave_ballot(i1 zeroext) convergent nounwind
declare i32 @__wp_wave_bpermute(i32, i32) convergent nounwind
declare i32 @__wp_wave_xor(i32, i32) convergent nounwind
declare void @__wp_wave_sync() convergent nounwind
declare i32 @__wp_linear_tid()
declare i32 @__wp_sreg_ntid_x()
declare i32 @__wp_sreg_ntid_y()
declare i32 @__wp_sreg_ntid_z()
";

/// The tools the simulator build needs (LLVM 19, gcc, python3).
pub struct Tools {
    /// `llc-19`.
    pub llc: PathBuf,
    /// `llvm-link-19`.
    pub link: PathBuf,
    /// `opt-19`.
    pub opt: PathBuf,
    /// `gcc`.
    pub gcc: PathBuf,
    /// `python3`.
    pub py: PathBuf,
}

impl Tools {
    /// The tools, or `None` (a loud SKIP; a failure under CI=1) when one is missing.
    pub fn require(test: &str) -> Option<Tools> {
        Some(Tools {
            llc: require_tool("llc-19", test)?,
            link: require_tool("llvm-link-19", test)?,
            opt: require_tool("opt-19", test)?,
            gcc: require_tool("gcc", test)?,
            py: require_tool("python3", test)?,
        })
    }
}

/// A fresh scratch directory for `test`.
pub fn scratch(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("wp-{test}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The text between the markers `a` (included) and `b` (excluded).
pub fn section<'s>(s: &'s str, a: &str, b: &str) -> &'s str {
    let i = s.find(a).expect("section start");
    let j = s[i..].find(b).expect("section end") + i;
    &s[i..j]
}

/// Functions of the shipped `kernels-ir/amdgcn.ll` outside its sections that lowered code
/// calls and the simulator needs: the f32 -> f16 conversion (a plain `fptrunc`).
const LOOSE_FUNCTIONS: &[&str] = &["define linkonce_odr half @__wp_cvt_rn_f16_f32("];

/// The shipped `kernels-ir/amdgcn.ll` sections between `; ==== BEGIN <name>` and
/// `; ==== END <name>` for each name, after the portable section and the
/// [`LOOSE_FUNCTIONS`], with the declarations above: the support library as the simulator
/// links it.
pub fn library(sections: &[&str]) -> String {
    let lib = std::fs::read_to_string(root().join("kernels-ir/amdgcn.ll")).unwrap();
    let mut out = section(&lib, "; ---- portable", "; ---- end portable").to_string();
    for f in LOOSE_FUNCTIONS {
        out.push('\n');
        out.push_str(section(&lib, f, "\n}\n"));
        out.push_str("\n}\n");
    }
    for s in sections {
        out.push('\n');
        out.push_str(section(
            &lib,
            &format!("; ==== BEGIN {s}"),
            &format!("; ==== END {s}"),
        ));
    }
    out.push('\n');
    out.push_str(PORTABLE_DECLS);
    out.push_str(HOST_DECLS);
    out
}

/// Lowered amdgcn IR as host IR: address spaces dropped (one flat memory), address-space
/// casts become no-op bitcasts, kernels become plain functions, and `ds_swizzle_b32` (the
/// lowering of constant shuffles, `llvm.amdgcn.ds.swizzle`) becomes the simulator's
/// `__wp_sim_ds_swizzle`.
pub fn to_host(ir: &str) -> String {
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
            .replace("amdgpu_kernel ", "")
            .replace(
                "@llvm.amdgcn.ds.swizzle(i32, i32 immarg)",
                "@__wp_sim_ds_swizzle(i32, i32)",
            )
            .replace("@llvm.amdgcn.ds.swizzle(", "@__wp_sim_ds_swizzle(");
        out.push_str(&l);
        out.push('\n');
    }
    out
}

/// Run `cmd`, asserting exit 0.
pub fn run_ok(cmd: &mut Command, what: &str) {
    let (code, out, err) = run(cmd);
    assert_eq!(code, 0, "{what} failed:\n{out}\n{err}");
}

/// A kernel's name and PTX parameter layout.
pub type Kernel = (String, Vec<ParamLayout>);

/// Lower one PTX text for dtk (every kernel must lower) and add its host IR and kernels.
pub fn lower_into(ptx: &str, name: &str, modules: &mut Vec<String>, kernels: &mut Vec<Kernel>) {
    let prof = wheelport::target::profile("dtk").unwrap();
    let m = lower_ptx(ptx, name, prof);
    for k in &m.kernels {
        assert_eq!(k.outcome, KernelOutcome::Lowered, "{}", k.name);
        kernels.push((k.name.clone(), k.params.clone()));
    }
    if !m.kernels.is_empty() {
        modules.push(to_host(&m.ir));
    }
}

/// Every PTX module of `fixtures/gpu/<so>` lowered for dtk with [`lower_into`]: the host IR
/// modules and the kernels (every kernel must lower).
#[allow(dead_code)] // wave64_tensor_mem lowers module by module (it also checks the forms)
pub fn lower_fixture(so: &str) -> (Vec<String>, Vec<Kernel>) {
    let name = format!("{}.ptx", so.trim_end_matches(".so"));
    let (mut modules, mut kernels) = (Vec::new(), Vec::new());
    for ptx in fixture_ptx(so) {
        lower_into(&ptx, &name, &mut modules, &mut kernels);
    }
    (modules, kernels)
}

/// The PTX texts of `fixtures/gpu/<so>`, read with wheelport's fatbin reader.
pub fn fixture_ptx(so: &str) -> Vec<String> {
    let data = std::fs::read(root().join("fixtures/gpu").join(so)).unwrap();
    let scanned = wheelport::elf::scan(&data, so).unwrap();
    let secs = wheelport::fatbin::parse_object_sections(&data, &scanned, so).unwrap();
    let mut out = Vec::new();
    for (_, cs) in &secs {
        for e in cs.iter().flat_map(|c| c.entries.iter()) {
            if e.kind() == EntryKind::Ptx {
                out.push(String::from_utf8(e.ptx_bytes().unwrap().into_owned()).unwrap());
            }
        }
    }
    out
}

/// Launch wrappers (`__wp_host_kernels[k](params)` loads the kernel's scalar parameters from
/// the PTX parameter layout and calls it), link with the library `libll`, inline (every PTX
/// instruction gets its own primitive call sites), compile and link with `tests/wave64/sim.c`.
/// Returns the simulator executable.
pub fn build_simulator(
    dir: &Path,
    tools: &Tools,
    modules: &[String],
    libll: &str,
    kernels: &[Kernel],
) -> PathBuf {
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
    let mut inputs = Vec::new();
    for (i, m) in modules.iter().enumerate() {
        let p = dir.join(format!("k{i}.ll"));
        std::fs::write(&p, m).unwrap();
        inputs.push(p);
    }
    for (n, t) in [("lib.ll", libll), ("wrappers.ll", &wr)] {
        std::fs::write(dir.join(n), t).unwrap();
        inputs.push(dir.join(n));
    }
    let bc = dir.join("linked.bc");
    run_ok(
        Command::new(&tools.link).args(&inputs).arg("-o").arg(&bc),
        "llvm-link",
    );
    let inl = dir.join("inlined.bc");
    run_ok(
        Command::new(&tools.opt)
            .arg("-passes=always-inline")
            .arg(&bc)
            .arg("-o")
            .arg(&inl),
        "opt",
    );
    let obj = dir.join("kernels.o");
    run_ok(
        Command::new(&tools.llc)
            .args(["-O0", "-filetype=obj", "-relocation-model=static"])
            .arg(&inl)
            .arg("-o")
            .arg(&obj),
        "llc",
    );
    let sim = dir.join("sim");
    run_ok(
        Command::new(&tools.gcc)
            // Non-PIE: the kernels' `.shared` variables land below 4 GiB, where the 32-bit
            // shared-memory addresses of the amdgcn lowering (p3:32) reach them.
            .args(["-O1", "-no-pie", "-o"])
            .arg(&sim)
            .arg(root().join("tests/wave64/sim.c"))
            .arg(&obj)
            .arg("-lm"),
        "gcc",
    );
    sim
}

/// The GPU harness's own inputs for the case table `cases` (relative to the repository
/// root), written to `dir`: a JSON list of jobs (case, entry, seed, n, grid, block, dyn and
/// the buffers with their files).
pub fn harness_inputs(dir: &Path, tools: &Tools, cases: &str) -> serde_json::Value {
    let root = root();
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
        cases = root.join(cases).display().to_string(),
        out = dir.display().to_string(),
    );
    let (code, out, err) = run(Command::new(&tools.py).arg("-c").arg(&script));
    assert_eq!(code, 0, "harness inputs: {err}");
    serde_json::from_str(&out).unwrap()
}

/// Run one job of [`harness_inputs`] on the simulator: the kernel named by its `entry`, its
/// grid and block, its buffers (inputs read from, outputs written to their files) and the
/// kernel parameters as the fixtures declare them (the buffers in case-table order as
/// pointers, then `int n`).
pub fn run_job(dir: &Path, sim: &Path, job: &serde_json::Value, kernels: &[Kernel]) {
    let case = job["case"].as_str().unwrap();
    let seed = job["seed"].as_u64().unwrap();
    let entry = job["entry"].as_str().unwrap();
    let k = kernels.iter().position(|(n, _)| n == entry).unwrap();
    let params = &kernels[k].1;
    let bufs = job["bufs"].as_array().unwrap();
    assert_eq!(job["dyn"], 0, "{case}: dynamic shared memory");
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
        assert_eq!(p.size, 8, "{case}: buffer parameter {i}");
        let _ = writeln!(j, "ptr {} {i}", p.offset);
    }
    assert_eq!(last.size, 4, "{case}: `int n`");
    let _ = writeln!(j, "i32 {} {}", last.offset, job["n"]);
    let jf = dir.join(format!("{case}.s{seed}.job"));
    std::fs::write(&jf, j).unwrap();
    run_ok(
        Command::new(sim).arg(&jf),
        &format!("sim {case} seed {seed}"),
    );
}

/// The SHA-256 the original binary gave for output `buf` of `case` and `seed` in a GPU
/// results file (`tools/gpu/harness.py compare`, `orig_sha256`).
pub fn gpu_sha256(results: &serde_json::Value, case: &str, seed: u64, buf: &str) -> String {
    let k = results["kernels"]
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
        .unwrap_or_else(|| panic!("{case}: seed {seed} not in the GPU results"));
    let o = s["outputs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["name"] == buf)
        .unwrap_or_else(|| panic!("{case} seed {seed}: output {buf} not in the GPU results"));
    o["orig_sha256"].as_str().unwrap().to_string()
}
