//! `exit` inside a `.func` ends only the threads that execute it (PTX ISA 9.x §9.7.12.12:
//! `exit` terminates the thread). Checked by executing the gfx906 code of
//! `fixtures/ptx/forms/exit_in_func.ptx` in the ISA interpreter (`tools/amdgpu-exec`) with 128
//! threads (two wavefronts): the odd threads exit two calls deep, the even ones return,
//! store through the outer function and pass a CTA barrier. Before the exit flag
//! (`kernels-ir/gen.py`, `@__wp_exit_flag_set`), `exit` there was `s_endpgm`, which ended every
//! lane of the wavefront. The H200 gives the same words for this PTX and for its cuda twin
//! (`fixtures/gpu/results/exit_in_func.json`, `tools/gpu/ptx_run.py`; the record is checked to
//! be for the current fixture and twin).

mod common;

use amdgpu_exec::exec::{Launch, Limits, Machine};
use amdgpu_exec::runner::load_objects;
use common::{root, run};
use sha2::{Digest, Sha256};
use std::process::Command;

/// The words thread `t` leaves: (out[t], out[128 + t]).
fn want(t: u64) -> (u32, u32) {
    if t % 2 == 1 {
        (1, 0)
    } else {
        (2, 3)
    }
}

const T: &str = "amdgpu_exec_exit";

#[test]
fn exit_in_a_func_ends_only_the_exiting_threads() {
    let Some((_, _)) = common::require_toolchain("dtk", T) else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("wp-{T}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let src = root().join("fixtures/ptx/forms/exit_in_func.ptx");
    for target in ["dtk", "cuda"] {
        let (code, out, err) = run(Command::new(common::bin())
            .args(["ptx", "lower", "--target", target, "--emit", "obj", "-o"])
            .arg(dir.join(target))
            .arg(&src));
        assert_eq!(code, 0, "{target}: {out}{err}");
    }
    // The H200 record: for this fixture and the current twin, and the PTX ISA's words.
    let rec: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(root().join("fixtures/gpu/results/exit_in_func.json")).unwrap(),
    )
    .unwrap();
    let sha = |p: &std::path::Path| format!("{:x}", Sha256::digest(std::fs::read(p).unwrap()));
    assert_eq!(
        rec["runs"]["original"]["ptx_sha256"].as_str().unwrap(),
        sha(&src)
    );
    assert_eq!(
        rec["runs"]["twin"]["ptx_sha256"].as_str().unwrap(),
        sha(&dir.join("cuda/exit_in_func.ptx")),
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
    let co = load_objects(&dir.join("dtk/exit_in_func-gfx906.co"), "gfx906")
        .unwrap()
        .into_iter()
        .next()
        .unwrap();
    let mut m = Machine::new(co).unwrap();
    let k = m.co.kernel("k").unwrap().clone();
    let po = m.mem.alloc(1024, "out");
    m.mem.write(po, &[0u8; 1024]).unwrap();
    let mut ka = vec![0u8; k.kernarg_segment_size as usize];
    let o = k.args[0].offset as usize;
    ka[o..o + 8].copy_from_slice(&po.to_le_bytes());
    let launch = Launch {
        grid: [1, 1, 1],
        block: [128, 1, 1],
        dyn_lds: 0,
    };
    m.dispatch("k", &ka, &launch, Limits::default()).unwrap();
    let mut bad = Vec::new();
    for t in 0..128u64 {
        let kernel_word = m.mem.read_u32(po + 4 * t).unwrap();
        let outer_word = m.mem.read_u32(po + 512 + 4 * t).unwrap();
        if (kernel_word, outer_word) != want(t) {
            bad.push(format!(
                "thread {t}: ({kernel_word}, {outer_word}) want {:?}",
                want(t)
            ));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}
