//! `rsqrt.approx.ftz.f64` against the H200 (PTX ISA 9.x section 9.7.3.17; a distinct
//! instruction from `rsqrt.approx.f64`). `fixtures/ptx/forms/rsqrt_ftz_f64.ptx` computes it
//! for 64 edge and random inputs; `fixtures/gpu/results/rsqrt_ftz_f64.json` holds what the
//! H200 gave for that PTX and for its cuda twin (`tools/gpu/ptx_run.py`). Checked here: the
//! record is for the current fixture and twin, the twin equals the original bit for bit, and
//! the gfx906 code executed by the ISA interpreter (`tools/amdgpu-exec`) gives the H200's
//! bits for every special input (zeros, subnormals flushed to +-inf, infinities, NaNs and
//! negative numbers to the canonical NaN 0x7fffffff00000000), a zero low word everywhere, and
//! on finite inputs the H200's high word in at least 62 of the 64 cases and within one unit of
//! it in all (the H200's approximation is not a correctly rounded function).

mod amdgpu_exec_support;
mod common;

use amdgpu_exec_support::{lower_to, machine, run_out, scratch, sha256_file};
use common::root;

const T: &str = "amdgpu_exec_rsqrt_ftz";

/// 64-bit words from a record's u32 list.
fn words64(v: &serde_json::Value) -> Vec<u64> {
    let w: Vec<u64> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_u64().unwrap())
        .collect();
    w.chunks(2).map(|p| p[0] | (p[1] << 32)).collect()
}

#[test]
fn rsqrt_approx_ftz_f64_follows_the_h200() {
    let Some((_, _)) = common::require_toolchain("dtk", T) else {
        return;
    };
    let dir = scratch(T);
    let src = root().join("fixtures/ptx/forms/rsqrt_ftz_f64.ptx");
    let rec: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(root().join("fixtures/gpu/results/rsqrt_ftz_f64.json")).unwrap(),
    )
    .unwrap();
    lower_to(&src, &["dtk", "cuda"], &dir);
    assert_eq!(
        rec["runs"]["original"]["ptx_sha256"].as_str().unwrap(),
        sha256_file(&src),
        "the H200 record is not for fixtures/ptx/forms/rsqrt_ftz_f64.ptx: re-run tools/gpu/ptx_run.py"
    );
    assert_eq!(
        rec["runs"]["twin"]["ptx_sha256"].as_str().unwrap(),
        sha256_file(&dir.join("cuda/rsqrt_ftz_f64.ptx")),
        "the cuda lowering changed since the H200 run: re-run tools/gpu/ptx_run.py"
    );
    let h200 = words64(&rec["runs"]["original"]["words"]);
    assert_eq!(
        h200,
        words64(&rec["runs"]["twin"]["words"]),
        "twin vs original"
    );
    assert_eq!(h200.len(), 64);

    let mut m = machine(&dir.join("dtk/rsqrt_ftz_f64-gfx906.co"));
    let out = run_out(&mut m, "k", 64, 512);
    let mut exact = 0;
    let mut bad = Vec::new();
    for (t, &want) in h200.iter().enumerate() {
        let got = u64::from_le_bytes(out[8 * t..8 * t + 8].try_into().unwrap());
        let special = {
            let x = f64::from_bits(want);
            want == 0 || x.is_infinite() || x.is_nan()
        };
        let ulps = ((got >> 32) as i64 - (want >> 32) as i64).abs();
        if got == want {
            exact += 1;
        } else if special || got & 0xffff_ffff != 0 || ulps > 1 {
            bad.push(format!("input {t}: {got:#018x}, the H200 {want:#018x}"));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    assert!(exact >= 62, "{exact} of 64 equal the H200's bits");
}
