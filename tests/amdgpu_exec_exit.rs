//! `exit` inside a `.func` ends only the threads that execute it (PTX ISA 9.x §9.7.12.12:
//! `exit` terminates the thread). Checked by executing the gfx906 code of
//! `fixtures/ptx/forms/exit_in_func.ptx` in the ISA interpreter (`tools/amdgpu-exec`) with 128
//! threads (two wavefronts): the odd threads exit two calls deep, the even ones return,
//! store through the outer function and pass a CTA barrier. Before the exit flag
//! (`kernels-ir/gen.py`, `@__wp_exit_flag_set`), `exit` there was `s_endpgm`, which ended every
//! lane of the wavefront. The H200 gives the same words for this PTX and for its cuda twin
//! (`fixtures/gpu/results/exit_in_func.json`, `tools/gpu/ptx_run.py`; the record is checked to
//! be for the current fixture and twin).

mod amdgpu_exec_support;
mod common;

use amdgpu_exec_support::{lower_to, machine, run_out, scratch, sha256_file};
use common::root;

const T: &str = "amdgpu_exec_exit";

/// The words thread `t` leaves: (out[t], out[128 + t]).
fn want(t: u64) -> (u32, u32) {
    if t % 2 == 1 {
        (1, 0)
    } else {
        (2, 3)
    }
}

#[test]
fn exit_in_a_func_ends_only_the_exiting_threads() {
    let Some((_, _)) = common::require_toolchain("dtk", T) else {
        return;
    };
    let dir = scratch(T);
    let src = root().join("fixtures/ptx/forms/exit_in_func.ptx");
    lower_to(&src, &["dtk", "cuda"], &dir);
    // The H200 record: for this fixture and the current twin, and the PTX ISA's words.
    let rec: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(root().join("fixtures/gpu/results/exit_in_func.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(
        rec["runs"]["original"]["ptx_sha256"].as_str().unwrap(),
        sha256_file(&src)
    );
    assert_eq!(
        rec["runs"]["twin"]["ptx_sha256"].as_str().unwrap(),
        sha256_file(&dir.join("cuda/exit_in_func.ptx")),
        "the cuda lowering changed since the H200 run: re-run tools/gpu/ptx_run.py"
    );
    for run in ["original", "twin"] {
        let w = rec["runs"][run]["words"].as_array().unwrap();
        for t in 0..128u64 {
            let got = (
                w[t as usize].as_u64().unwrap() as u32,
                w[128 + t as usize].as_u64().unwrap() as u32,
            );
            assert_eq!(got, want(t), "H200 {run}, thread {t}");
        }
    }
    let mut m = machine(&dir.join("dtk/exit_in_func-gfx906.co"));
    let out = run_out(&mut m, "k", 128, 1024);
    let word = |i: usize| u32::from_le_bytes(out[4 * i..4 * i + 4].try_into().unwrap());
    let mut bad = Vec::new();
    for t in 0..128u64 {
        let got = (word(t as usize), word(128 + t as usize));
        if got != want(t) {
            bad.push(format!("thread {t}: {got:?} want {:?}", want(t)));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}
