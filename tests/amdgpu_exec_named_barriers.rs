//! Named and counted CTA barriers on gfx906, checked by execution: the kernels of
//! `fixtures/ptx/forms/named_barriers.ptx` (accepted by ptxas 13.5), lowered for dtk and
//! built by `wheelport ptx lower --emit obj`, run in the ISA interpreter
//! (`tools/amdgpu-exec`, whose wavefronts take turns so that a wave spinning on LDS lets the
//! others run). gfx9 has one hardware barrier per work-group; these barriers are the support
//! library's LDS barriers (kernels-ir/gen.py `named_bar`). The outputs are what PTX ISA 9.x
//! §9.7.13.1 defines for the kernels (their comments give the formulas); the H200 result of
//! `bar.sync 1, 64` is the `barriers` case of `tests/amdgpu_exec_fixtures.rs`.

mod common;

use amdgpu_exec::exec::{Launch, Limits, Machine};
use amdgpu_exec::runner::load_objects;
use common::{root, run};
use std::process::Command;

const T: &str = "amdgpu_exec_named_barriers";

fn words(b: &[u8]) -> Vec<u32> {
    b.chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

/// Run `name(in, out)` on one work-group of `threads` with `input`; returns `out` (`n_out`
/// words).
fn launch(m: &mut Machine, name: &str, threads: u32, input: &[u32], n_out: usize) -> Vec<u32> {
    let k =
        m.co.kernel(name)
            .unwrap_or_else(|| panic!("{name}"))
            .clone();
    let pi = m.mem.alloc(input.len() * 4, "in");
    let po = m.mem.alloc(n_out * 4, "out");
    let b: Vec<u8> = input.iter().flat_map(|x| x.to_le_bytes()).collect();
    m.mem.write(pi, &b).unwrap();
    let mut ka = vec![0u8; k.kernarg_segment_size as usize];
    for (i, a) in [pi, po].iter().enumerate() {
        let o = k.args[i].offset as usize;
        ka[o..o + 8].copy_from_slice(&a.to_le_bytes());
    }
    let launch = Launch {
        grid: [1, 1, 1],
        block: [threads, 1, 1],
        dyn_lds: 0,
    };
    m.dispatch(name, &ka, &launch, Limits::default())
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    let mut got = vec![0u8; n_out * 4];
    m.mem.read(po, &mut got).unwrap();
    words(&got)
}

#[test]
fn named_and_counted_barriers_execute_as_the_isa_defines() {
    let Some((_, _)) = common::require_toolchain("dtk", T) else {
        return;
    };
    let Some(ptxas) = common::require_tool("ptxas", T) else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("wp-{T}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let src = root().join("fixtures/ptx/forms/named_barriers.ptx");
    let (code, _, err) = run(Command::new(&ptxas)
        .args(["-arch=sm_80", "-o"])
        .arg(dir.join("src.cubin"))
        .arg(&src));
    assert_eq!(code, 0, "ptxas rejects the source: {err}");
    let (code, out, err) = run(Command::new(common::bin())
        .args(["ptx", "lower", "--target", "dtk", "--emit", "llvm", "-o"])
        .arg(dir.join("ll"))
        .arg(&src));
    assert_eq!(code, 0, "{out}{err}");
    // Every kernel zeroes the barrier state first.
    let ll = std::fs::read_to_string(dir.join("ll/named_barriers.ll")).unwrap();
    assert_eq!(ll.matches("call void @__wp_nbar_init()").count(), 3, "{ll}");
    let (code, out, err) = run(Command::new(common::bin())
        .args(["ptx", "lower", "--target", "dtk", "--emit", "obj", "-o"])
        .arg(dir.join("obj"))
        .arg(&src));
    assert_eq!(code, 0, "{out}{err}");
    let objs = load_objects(&dir.join("obj/named_barriers-gfx906.co"), "gfx906").unwrap();
    let co = objs.into_iter().next().unwrap();

    let input: Vec<u32> = (0..256u32)
        .map(|k| k.wrapping_mul(0x9e37_79b9) ^ 0x5a5a_0000)
        .collect();

    let mut m = Machine::new(co.clone()).unwrap();
    let got = launch(&mut m, "pc", 256, &input, 512);
    for r in 0..4u32 {
        for j in 0..128usize {
            let want = input[(j + 1) % 128].wrapping_add(r);
            assert_eq!(got[128 * r as usize + j], want, "pc round {r} consumer {j}");
        }
    }

    let mut m = Machine::new(co.clone()).unwrap();
    let got = launch(&mut m, "subsets", 256, &input, 512);
    for t in 0..256usize {
        let want = if t < 64 {
            input[63 - t]
        } else {
            input[64 + (t - 64 + 5) % 192].wrapping_mul(3)
        };
        assert_eq!(got[t], want, "subsets group exchange, thread {t}");
        let u = 255 - t;
        let want = (u as u32).wrapping_mul(7).wrapping_add(input[u]);
        assert_eq!(got[256 + t], want, "subsets bar.sync 6, thread {t}");
    }

    let mut m = Machine::new(co).unwrap();
    let got = launch(&mut m, "tail", 80, &input[..80], 80);
    for t in 0..80usize {
        assert_eq!(got[t], input[79 - t], "tail thread {t}");
    }
}
