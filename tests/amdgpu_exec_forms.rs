//! The forms real wheels write that the lowering gained for them (16x2 SIMD integer
//! arithmetic, `isspacep`, ordered vector loads and stores, `.b128` moves and accesses,
//! `createpolicy`, `griddepcontrol`, `fence.acquire/.release`, `.weak` and `.mmio`
//! accesses), checked by execution: one PTX module (`fixtures/ptx/forms/new_forms.ptx`,
//! accepted by ptxas 13.5), lowered for dtk and built for gfx906 by
//! `wheelport ptx lower --emit obj`, run in the ISA interpreter (`tools/amdgpu-exec`) on
//! edge-case inputs; the results are compared with the PTX ISA 9.x definitions computed on
//! the host. The cuda twin of the same module must pass ptxas 13.5 for sm_80.

mod amdgpu_exec_support;
mod common;

use amdgpu_exec_support::{dispatch, lower_to, machine, scratch};
use common::{root, run};
use std::process::Command;

const T: &str = "amdgpu_exec_forms";

/// The threads of each launch (one wave64).
const N: usize = 64;

fn ptx_path() -> std::path::PathBuf {
    root().join("fixtures/ptx/forms/new_forms.ptx")
}

/// `(lo, hi)` 16-bit lanes of `x`.
fn lanes(x: u32) -> [u16; 2] {
    [x as u16, (x >> 16) as u16]
}

fn pack(l: [u16; 2]) -> u32 {
    l[0] as u32 | (l[1] as u32) << 16
}

/// `op` lane by lane (PTX ISA 9.x §9.7.1.1 add, §9.7.1.10 min, §9.7.1.11 max on .s16x2/.u16x2).
fn lanewise(a: u32, b: u32, op: impl Fn(u16, u16) -> u16) -> u32 {
    let (x, y) = (lanes(a), lanes(b));
    pack([op(x[0], y[0]), op(x[1], y[1])])
}

/// The eight results of kernel `simd16x2` for inputs `a`, `b`, in the kernel's store order.
fn simd_expected(a: u32, b: u32) -> [u32; 8] {
    let s = |v: u16| v as i16;
    let relu = |v: i16| v.max(0) as u16;
    [
        lanewise(a, b, |x, y| x.wrapping_add(y)),
        lanewise(a, b, |x, y| x.wrapping_add(y)),
        lanewise(a, b, |x, y| s(x).min(s(y)) as u16),
        lanewise(a, b, |x, y| x.min(y)),
        lanewise(a, b, |x, y| s(x).max(s(y)) as u16),
        lanewise(a, b, |x, y| x.max(y)),
        lanewise(a, b, |x, y| relu(s(x).min(s(y)))),
        lanewise(a, b, |x, y| relu(s(x).max(s(y)))),
    ]
}

/// 16-bit lanes at the edges of both orders: 0, ±1, the extremes of i16 and u16, and their
/// neighbours, combined pairwise over the 64 threads.
fn simd_inputs() -> (Vec<u32>, Vec<u32>) {
    let edge: [u16; 8] = [0, 1, 0xffff, 0x7fff, 0x8000, 0x8001, 0x7ffe, 0x1234];
    let mut a = Vec::new();
    let mut b = Vec::new();
    for i in 0..N {
        a.push(pack([edge[i % 8], edge[(i / 8) % 8]]));
        b.push(pack([edge[(i / 8) % 8], edge[(i + 3) % 8]]));
    }
    (a, b)
}

fn words(b: &[u8]) -> Vec<u32> {
    b.chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

fn bytes(w: &[u32]) -> Vec<u8> {
    w.iter().flat_map(|x| x.to_le_bytes()).collect()
}

#[test]
fn new_forms_execute_as_the_isa_defines() {
    let Some((_, _)) = common::require_toolchain("dtk", T) else {
        return;
    };
    let Some(ptxas) = common::require_tool("ptxas", T) else {
        return;
    };
    let dir = scratch(T);
    let src = ptx_path();
    // The source is PTX that ptxas accepts.
    let (code, _, err) = run(Command::new(&ptxas)
        .args(["-arch=sm_90", "-o"])
        .arg(dir.join("src.cubin"))
        .arg(&src));
    assert_eq!(code, 0, "ptxas rejects the source: {err}");
    lower_to(&src, &["dtk", "cuda"], &dir);
    // The cuda twin passes ptxas (its ordered vector accesses are the PTX instructions).
    let twin = dir.join("cuda/new_forms.ptx");
    let (code, _, err) = run(Command::new(&ptxas)
        .args(["-arch=sm_80", "-o"])
        .arg(dir.join("twin.cubin"))
        .arg(&twin));
    assert_eq!(code, 0, "ptxas rejects the cuda twin: {err}");
    let twin_text = std::fs::read_to_string(&twin).unwrap();
    for want in [
        "ld.relaxed.gpu.global.v2.b32",
        "ld.acquire.gpu.global.v2.b64",
        "st.release.gpu.global.v2.b64",
        "st.relaxed.sys.global.v4.b32",
        // the ordered .b128 accesses, as their .v2.b64 halves
        "ld.relaxed.gpu.global.v2.b64",
        "st.relaxed.sys.global.v2.b64",
    ] {
        assert!(twin_text.contains(want), "cuda twin lacks {want}");
    }

    let mut m = machine(&dir.join("dtk/new_forms-gfx906.co"));

    // simd16x2(a, b, out): out[8 * tid + k], the eight 16x2 results.
    let (a, b) = simd_inputs();
    let pa = m.mem.alloc(N * 4, "a");
    let pb = m.mem.alloc(N * 4, "b");
    let po = m.mem.alloc(N * 32, "out");
    m.mem.write(pa, &bytes(&a)).unwrap();
    m.mem.write(pb, &bytes(&b)).unwrap();
    dispatch(&mut m, "simd16x2", N as u32, &[pa, pb, po]);
    let mut got = vec![0u8; N * 32];
    m.mem.read(po, &mut got).unwrap();
    let got = words(&got);
    for i in 0..N {
        let want = simd_expected(a[i], b[i]);
        assert_eq!(
            &got[8 * i..8 * i + 8],
            &want,
            "simd16x2 thread {i}: a {:#010x} b {:#010x}",
            a[i],
            b[i]
        );
    }

    // spaces(g, out): isspacep.{global,shared,local} of a global, a shared and a local
    // generic address: out[9 * tid + 3 * space + test] is 1 where the address is of that space.
    let pg = m.mem.alloc(N * 4, "g");
    let po = m.mem.alloc(N * 36, "out");
    dispatch(&mut m, "spaces", N as u32, &[pg, po]);
    let mut got = vec![0u8; N * 36];
    m.mem.read(po, &mut got).unwrap();
    let got = words(&got);
    let eye = [1, 0, 0, 0, 1, 0, 0, 0, 1];
    for i in 0..N {
        assert_eq!(&got[9 * i..9 * i + 9], &eye, "spaces thread {i}");
    }

    // ordered(in, out): each thread moves its 48 bytes of `in` through ordered vector loads
    // and stores (global and shared), elements swapped as the kernel says.
    let inw: Vec<u32> = (0..N * 12)
        .map(|k| (k as u32).wrapping_mul(0x9e37_79b9) ^ 0xdead_0000)
        .collect();
    let pi = m.mem.alloc(N * 48, "in");
    let po = m.mem.alloc(N * 64, "out");
    m.mem.write(pi, &bytes(&inw)).unwrap();
    dispatch(&mut m, "ordered", N as u32, &[pi, po]);
    let mut got = vec![0u8; N * 64];
    m.mem.read(po, &mut got).unwrap();
    let got = words(&got);
    for i in 0..N {
        let w = &inw[12 * i..12 * i + 12];
        // The next thread's {a, b}, through shared memory.
        let j = (i + 1) % N;
        let nw = &inw[12 * j + 8..12 * j + 10];
        let want = [
            // {c, d} (two u64) stored as {d, c}: acquire load, release store
            w[2], w[3], w[0], w[1], //
            // {e, f, g, h} (u32) stored as {h, g, f, e}: relaxed.sys
            w[7], w[6], w[5], w[4], //
            // {a, b} stored as {b, a}: relaxed.gpu
            w[9], w[8], //
            // a weak pair stored swapped by an mmio and a weak store
            w[11], w[10], //
            // the next thread's {a, b} (relaxed.cta store, acquire.cta load, shared)
            nw[0], nw[1], //
            1, 0,
        ];
        assert_eq!(&got[16 * i..16 * i + 16], &want, "ordered thread {i}");
    }

    // wide(in, out): .b128 through mov.b128 pack/unpack and weak, ordered and volatile
    // 128-bit accesses.
    let pi = m.mem.alloc(N * 80, "in");
    let po = m.mem.alloc(N * 80, "out");
    let inw: Vec<u32> = (0..N * 20)
        .map(|k| 0x0101_0101u32.wrapping_mul(k as u32 + 7))
        .collect();
    m.mem.write(pi, &bytes(&inw)).unwrap();
    dispatch(&mut m, "wide", N as u32, &[pi, po]);
    let mut got = vec![0u8; N * 80];
    m.mem.read(po, &mut got).unwrap();
    let got = words(&got);
    for i in 0..N {
        let w = &inw[20 * i..20 * i + 20];
        // out[0..4] = in[0..4] (v2.u64 -> b128 -> b128 store); out[4..8] = in[4..8] with its
        // two 64-bit halves swapped (b128 load -> v2.u64 unpack -> swapped store);
        // out[8..12] copied by relaxed.gpu load / release.gpu store; out[12..16] swapped
        // between an acquire.gpu load and a relaxed.sys store; out[16..20] copied volatile.
        let want = [
            w[0], w[1], w[2], w[3], w[6], w[7], w[4], w[5], //
            w[8], w[9], w[10], w[11], w[14], w[15], w[12], w[13], //
            w[16], w[17], w[18], w[19],
        ];
        assert_eq!(&got[20 * i..20 * i + 20], &want, "wide thread {i}");
    }
    eprintln!("{T}: simd16x2, spaces, ordered, wide: {N} threads each as the PTX ISA defines");
    let _ = std::fs::remove_dir_all(&dir);
}
