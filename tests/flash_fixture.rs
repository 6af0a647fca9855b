//! The FlashAttention-2 forward fixture (`fixtures/gpu/build-flash.sh`: upstream's
//! `flash_fwd_kernel` for head dims 64 and 128, fp16 and bf16, causal or not, even and uneven
//! sequence lengths, behind `fixtures/gpu/flash/flash_entry.cu`; nvcc 13.5, SASS only:
//! `flash_fwd_sass80.so` for sm_80, `flash_fwd_sm90.so` for sm_90).
//!
//! * **cuda (the twin, on the H200).** `fixtures/gpu/results/flash-twin.json`
//!   (`tools/gpu/flash_twin.py`: the original's sm_90 SASS against the twin built from the
//!   lifted sm_80 SASS, each checked against PyTorch references with FlashAttention's own test
//!   criterion) is for the current conversion: its original is `flash_fwd_sm90.so`, its twin
//!   the object `convert --target cuda` makes now (SHA-256), and every case passed.
//! * **dtk, executed.** The conversion for gfx906 translates all 16 kernels (each lifted from
//!   its SASS). The two one-CTA cases that `flash_twin.py --save` wrote on the H200
//!   (`fixtures/gpu/results/flash-exec/<case>/`: inputs, the fp32 reference, the original's
//!   output and its `Flash_fwd_params`) run from the converted `.hip_fatbin` in the project's
//!   gfx9 interpreter (`tools/amdgpu-exec`): the output meets FlashAttention's criterion against
//!   the H200's fp32 reference (`max|out - out_ref| <= 2 max|out_pt - out_ref| + 1e-5`, the bound
//!   recorded there), its log-sum-exp is within the recorded tolerance, and no output is NaN.

mod common;

use amdgpu_exec::exec::{Launch, Limits, Machine};
use amdgpu_exec::runner;
use common::{bin, read_json, root, run, sha256_file};
use std::path::{Path, PathBuf};
use std::process::Command;

const T: &str = "flash_fixture";

/// Dynamic shared memory of the head-dim-64 kernels (`Flash_fwd_kernel_traits<64, 128, 128,
/// 4>`: Q, K and V tiles of 128 x 64 halves, `kSmemSize` in flash_entry.cu's launch).
const SMEM_HD64: u32 = 48 * 1024;

fn gpu() -> PathBuf {
    root().join("fixtures/gpu")
}

/// Convert `flash_fwd_sass80.so` for `target` into `out`; all 16 kernels must be translated,
/// each lifted from its SASS.
fn convert(target: &str, out: &Path) -> PathBuf {
    let json = out.join(format!("flash-{target}.json"));
    let (code, o, e) = run(Command::new(bin())
        .arg(gpu().join("flash_fwd_sass80.so"))
        .args(["--target", target, "-q", "-o"])
        .arg(out)
        .arg("--json")
        .arg(&json)
        .env("XDG_CACHE_HOME", out.join("cache")));
    assert_eq!(code, 0, "convert --target {target}: {o}{e}");
    let r = read_json(&json);
    assert_eq!(r["totals"]["translated"], 16, "{}", r["totals"]);
    assert_eq!(r["totals"]["lifted"], 16, "{}", r["totals"]);
    out.join("flash_fwd_sass80.so")
}

/// ptxas and nvdisasm (the lifter's decoder) are there.
fn tools_present() -> bool {
    if common::require_tool("ptxas", T).is_none() {
        return false;
    }
    match wheelport::toolchain::discover_nvdisasm(&wheelport::toolchain::SearchOptions::from_env())
    {
        Ok(_) => true,
        Err(m) => {
            common::missing::<()>(T, &format!("nvdisasm {}: {}", m.reason, m.install));
            false
        }
    }
}

#[test]
fn flash_twin_results_are_for_the_current_conversion_and_pass() {
    let path = gpu().join("results/flash-twin.json");
    let v = read_json(&path);
    let file = path.display();
    assert_eq!(v["summary"]["all_pass"], true, "{file}: {}", v["summary"]);
    assert_eq!(v["summary"]["ran"], v["summary"]["cases"], "{file}");
    assert_eq!(v["summary"]["twin_kernel_count"], 16, "{file}");
    assert_eq!(
        v["orig"]["sha256"].as_str(),
        Some(sha256_file(&gpu().join("flash_fwd_sm90.so")).as_str()),
        "{file}: the results are for another flash_fwd_sm90.so"
    );
    if !tools_present() || common::require_toolchain("cuda", T).is_none() {
        return;
    }
    let d = tempfile::tempdir().unwrap();
    let twin = convert("cuda", d.path());
    let now = sha256_file(&twin);
    assert_eq!(
        v["twin"]["sha256"].as_str(),
        Some(now.as_str()),
        "{file}: the H200 results are for another conversion of flash_fwd_sass80.so than the \
         current lifter and lowering make ({now}): re-run tools/gpu/flash_twin.py on the H200 \
         (docs/verification.md, \"FlashAttention\")"
    );
}

fn f32s(b: &[u8]) -> Vec<f32> {
    b.chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

/// IEEE binary16 to f32 (exact: every binary16 value is a binary32 value).
fn f16_to_f32(h: u16) -> f32 {
    let sign = if h >> 15 == 1 { -1.0 } else { 1.0 };
    let e = i32::from((h >> 10) & 0x1f);
    let m = f32::from(h & 0x3ff);
    sign * match e {
        0 => m * 2f32.powi(-24),
        31 if m == 0.0 => f32::INFINITY,
        31 => f32::NAN,
        _ => (1.0 + m / 1024.0) * 2f32.powi(e - 15),
    }
}

#[test]
fn flash_fixture_converts_for_dtk_and_executes_on_gfx906() {
    if !tools_present() || common::require_toolchain("dtk", T).is_none() {
        return;
    }
    let d = tempfile::tempdir().unwrap();
    let conv = convert("dtk", d.path());
    let exec_dir = gpu().join("results/flash-exec");
    for causal in [false, true] {
        let name = format!(
            "exec-hd64-fp16-{}-128x128",
            if causal { "causal" } else { "full" }
        );
        let dir = exec_dir.join(&name);
        let case = read_json(&dir.join("case.json"));
        let c = &case["case"];
        let (sq, sk, hd) = (
            c["seqlen_q"].as_u64().unwrap() as usize,
            c["seqlen_k"].as_u64().unwrap() as usize,
            c["head_dim"].as_u64().unwrap() as usize,
        );
        assert_eq!(
            (c["batch"].as_u64(), c["heads"].as_u64()),
            (Some(1), Some(1))
        );
        let file = |n: &str| {
            std::fs::read(dir.join(format!("{n}.bin")))
                .unwrap_or_else(|e| panic!("{}/{n}.bin: {e}", dir.display()))
        };
        let mut m = Machine::new(
            runner::load_objects(&conv, "gfx906")
                .unwrap()
                .into_iter()
                .next()
                .unwrap(),
        )
        .unwrap();
        let kernel = format!(
            "_ZN5flash16flash_fwd_kernelI23Flash_fwd_kernel_traitsILi64ELi128ELi128ELi4ELb0ELb0EN7cutlass6half_tE19Flash_kernel_traitsILi64ELi128ELi128ELi4ES3_EELb0ELb{}ELb0ELb0ELb1ELb1ELb0ELb0EEEvNS_16Flash_fwd_paramsE",
            u8::from(causal)
        );
        let k =
            m.co.kernel(&kernel)
                .unwrap_or_else(|| panic!("{name}: no {kernel} in the gfx906 code object"))
                .clone();
        // The buffers, and the H200's parameter block with its sentinel pointers replaced.
        let mut params = file("params");
        let mut bufs = Vec::new();
        for (arg, bytes) in [
            ("q", file("q")),
            ("k", file("k")),
            ("v", file("v")),
            ("out", vec![0xff; sq * hd * 2]),
            ("lse", vec![0xff; sq * 4]),
        ] {
            let a = m.mem.alloc(bytes.len(), arg);
            m.mem.write(a, &bytes).unwrap();
            bufs.push(a);
            let sentinel = case["sentinels"][arg].as_u64().unwrap().to_le_bytes();
            let at: Vec<usize> = (0..params.len() - 7)
                .filter(|&i| params[i..i + 8] == sentinel)
                .collect();
            assert_eq!(at.len(), 1, "{name}: the {arg} pointer in params.bin");
            params[at[0]..at[0] + 8].copy_from_slice(&a.to_le_bytes());
        }
        let mut ka = vec![0u8; k.kernarg_segment_size as usize];
        let o = k.args[0].offset as usize;
        ka[o..o + params.len()].copy_from_slice(&params);
        m.dispatch(
            &kernel,
            &ka,
            &Launch {
                grid: [sq.div_ceil(128) as u32, 1, 1],
                block: [128, 1, 1],
                dyn_lds: SMEM_HD64,
            },
            Limits::default(),
        )
        .unwrap_or_else(|e| panic!("{name}: {e}"));
        let mut out = vec![0u8; sq * hd * 2];
        m.mem.read(bufs[3], &mut out).unwrap();
        let mut lse = vec![0u8; sq * 4];
        m.mem.read(bufs[4], &mut lse).unwrap();
        let out: Vec<f32> = out
            .chunks_exact(2)
            .map(|c| f16_to_f32(u16::from_le_bytes([c[0], c[1]])))
            .collect();
        let lse = f32s(&lse);
        let out_ref = f32s(&file("out_ref"));
        let lse_ref = f32s(&file("lse_ref"));
        let orig: Vec<f32> = file("orig_out")
            .chunks_exact(2)
            .map(|c| f16_to_f32(u16::from_le_bytes([c[0], c[1]])))
            .collect();
        assert!(out.iter().all(|x| !x.is_nan()), "{name}: NaN in the output");
        let maxdiff = |a: &[f32], b: &[f32]| {
            a.iter()
                .zip(b)
                .map(|(x, y)| (x - y).abs())
                .fold(0f32, f32::max)
        };
        let err = maxdiff(&out, &out_ref);
        let bound = case["out_bound"].as_f64().unwrap() as f32;
        let vs_orig = maxdiff(&out, &orig);
        assert!(
            err <= bound,
            "{name}: max|out - out_ref| = {err:e} > {bound:e} (the original's: {})",
            case["orig"]["out_max_err"]
        );
        let lse_err = maxdiff(&lse, &lse_ref);
        let lse_tol = case["lse_tol"].as_f64().unwrap() as f32;
        assert!(
            lse_err <= lse_tol,
            "{name}: max|lse - lse_ref| = {lse_err:e}"
        );
        assert!(sk > 0);
        eprintln!(
            "{T}: {name}: gfx906 max|out - out_ref| {err:.3e} (bound {bound:.3e}, original {}), max|out - original| {vs_orig:.3e}, lse {lse_err:.1e}",
            case["orig"]["out_max_err"]
        );
    }
}
