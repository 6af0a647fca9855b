//! Modifier order: `ptxas` takes an instruction's modifiers in many orders
//! (`ld.global.acquire.gpu.b32` and `ld.acquire.gpu.global.b32`, `vote.ballot.sync.b32` and
//! `vote.sync.ballot.b32`), and the lowering must give each accepted order the same IR.
//!
//! For every case below, every permutation of its modifier groups is written as one kernel of
//! a module and assembled by `ptxas` 13.5 (the oracle: a permutation it rejects, by the line
//! of its error, is left out); each accepted permutation is then lowered on its own for dtk
//! and cuda and must lower, with IR text equal to that of the case's first spelling. The
//! spellings that CUDA libraries write (CUTLASS's `ld.global.acquire.gpu`, CUB's
//! `vote.ballot.sync`, libcu++'s `atom.add.relaxed.gpu`, `st.global.release`, `fence.sys.sc`)
//! must be among the accepted ones.

#[path = "lower_common.rs"]
mod lower_common;

use std::collections::BTreeSet;
use std::process::Command;

use lower_common::*;
use wheelport::lower::{lower_ptx, KernelOutcome};

/// One instruction: its opcode and the fixed words after it, the groups of modifiers that are
/// permuted (a group of several words, such as a type list, stays together), the operands,
/// and the spellings `ptxas` must accept.
struct Case {
    head: &'static str,
    groups: &'static [&'static str],
    operands: &'static str,
    must: &'static [&'static str],
}

const CASES: &[Case] = &[
    Case {
        head: "vote",
        groups: &[".sync", ".ballot", ".b32"],
        operands: "%r1, %p1, -1",
        must: &["vote.ballot.sync.b32", "vote.sync.ballot.b32"],
    },
    Case {
        head: "ld",
        groups: &[".global", ".acquire", ".gpu", ".b32"],
        operands: "%r1, [%rd1]",
        must: &["ld.global.acquire.gpu.b32", "ld.acquire.gpu.global.b32"],
    },
    Case {
        head: "ld",
        groups: &[".shared", ".relaxed", ".cta", ".u32"],
        operands: "%r1, [sm]",
        must: &["ld.relaxed.cta.shared.u32", "ld.shared.relaxed.cta.u32"],
    },
    Case {
        head: "st",
        groups: &[".global", ".release", ".gpu", ".b32"],
        operands: "[%rd1], %r1",
        must: &["st.global.release.gpu.b32", "st.release.gpu.global.b32"],
    },
    Case {
        head: "fence",
        groups: &[".sc", ".sys"],
        operands: "",
        must: &["fence.sys.sc", "fence.sc.sys"],
    },
    Case {
        head: "fence",
        groups: &[".acq_rel", ".gpu"],
        operands: "",
        must: &["fence.gpu.acq_rel", "fence.acq_rel.gpu"],
    },
    Case {
        head: "atom",
        groups: &[".add", ".relaxed", ".gpu", ".u64"],
        operands: "%rd2, [%rd1], %rd3",
        must: &["atom.add.relaxed.gpu.u64", "atom.relaxed.gpu.add.u64"],
    },
    Case {
        head: "atom",
        groups: &[".global", ".add", ".relaxed", ".gpu", ".u64"],
        operands: "%rd2, [%rd1], %rd3",
        must: &[
            "atom.global.add.relaxed.gpu.u64",
            "atom.relaxed.gpu.global.add.u64",
        ],
    },
    Case {
        head: "atom",
        groups: &[".shared", ".cas", ".acq_rel", ".cta", ".b32"],
        operands: "%r1, [sm], %r2, %r3",
        must: &["atom.acq_rel.cta.shared.cas.b32"],
    },
    Case {
        head: "red",
        groups: &[".global", ".add", ".release", ".sys", ".u32"],
        operands: "[%rd1], %r1",
        must: &["red.release.sys.global.add.u32"],
    },
    Case {
        head: "shfl",
        groups: &[".sync", ".bfly", ".b32"],
        operands: "%r1, %r2, 1, 31, -1",
        must: &["shfl.sync.bfly.b32", "shfl.bfly.sync.b32"],
    },
    Case {
        head: "redux",
        groups: &[".sync", ".min", ".s32"],
        operands: "%r1, %r2, -1",
        must: &["redux.sync.min.s32"],
    },
    Case {
        head: "match",
        groups: &[".any", ".sync", ".b64"],
        operands: "%r1, %rd1, -1",
        must: &["match.any.sync.b64"],
    },
    Case {
        head: "setp",
        groups: &[".lt", ".and", ".ftz", ".f32"],
        operands: "%p1, %f1, %f2, %p2",
        must: &["setp.lt.and.ftz.f32"],
    },
    Case {
        head: "set",
        groups: &[".gtu", ".or", ".u32.f64"],
        operands: "%r1, %fd1, %fd2, %p2",
        must: &["set.gtu.or.u32.f64"],
    },
    Case {
        head: "add",
        groups: &[".rz", ".ftz", ".sat", ".f32"],
        operands: "%f1, %f2, %f3",
        must: &["add.rz.ftz.sat.f32"],
    },
    Case {
        head: "cvt",
        groups: &[".rzi", ".ftz", ".sat", ".s32.f32"],
        operands: "%r1, %f1",
        must: &["cvt.rzi.ftz.sat.s32.f32"],
    },
    Case {
        head: "cvt",
        groups: &[".rn", ".relu", ".f16.f32"],
        operands: "%h1, %f1",
        must: &["cvt.rn.relu.f16.f32"],
    },
    Case {
        head: "ld",
        groups: &[".global", ".nc", ".L1::no_allocate", ".v4", ".f32"],
        operands: "{%f1, %f2, %f3, %f4}, [%rd1]",
        must: &["ld.global.nc.L1::no_allocate.v4.f32"],
    },
    Case {
        head: "cp.async",
        groups: &[".ca", ".shared.global", ".L2::128B"],
        operands: "[sm], [%rd1], 16",
        must: &["cp.async.ca.shared.global.L2::128B"],
    },
    Case {
        head: "ldmatrix",
        groups: &[".sync.aligned", ".m8n8", ".x4", ".trans", ".shared.b16"],
        operands: "{%r1, %r2, %r3, %r4}, [sm]",
        must: &[
            "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16",
            "ldmatrix.sync.aligned.x4.trans.m8n8.shared.b16",
        ],
    },
    Case {
        head: "mma",
        groups: &[
            ".sync",
            ".aligned",
            ".m16n8k16",
            ".row.col",
            ".f32.bf16.bf16.f32",
        ],
        operands: "{%f1, %f2, %f3, %f4}, {%r1, %r2, %r3, %r4}, {%r5, %r6}, {%f5, %f6, %f7, %f8}",
        must: &["mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"],
    },
    Case {
        head: "wmma.load.a",
        groups: &[".sync.aligned", ".row", ".m16n16k16", ".shared", ".f16"],
        operands: "{%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8}, [sm]",
        must: &["wmma.load.a.sync.aligned.row.m16n16k16.shared.f16"],
    },
    Case {
        head: "mbarrier.arrive",
        groups: &[".release", ".cta", ".shared::cta", ".b64"],
        operands: "%rd2, [mb]",
        must: &["mbarrier.arrive.release.cta.shared::cta.b64"],
    },
    Case {
        head: "prmt",
        groups: &[".b32", ".f4e"],
        operands: "%r1, %r2, %r3, %r4",
        must: &["prmt.b32.f4e", "prmt.f4e.b32"],
    },
    Case {
        head: "vshl",
        groups: &[".u32.u32.u32", ".clamp", ".add"],
        operands: "%r1, %r2, %r3, %r4",
        must: &["vshl.u32.u32.u32.clamp.add"],
    },
];

/// Every permutation of `items` (Heap's algorithm).
fn permutations<T: Clone>(items: &[T]) -> Vec<Vec<T>> {
    fn go<T: Clone>(k: usize, a: &mut Vec<T>, out: &mut Vec<Vec<T>>) {
        if k <= 1 {
            out.push(a.clone());
            return;
        }
        for i in 0..k {
            go(k - 1, a, out);
            let j = if k.is_multiple_of(2) { i } else { 0 };
            a.swap(j, k - 1);
        }
    }
    let mut a = items.to_vec();
    let mut out = Vec::new();
    go(a.len(), &mut a, &mut out);
    out
}

const PROLOGUE: &str = "    .reg .b32 %r<12>;\n    .reg .b64 %rd<8>;\n    .reg .pred %p<4>;\n    \
                        .reg .f32 %f<12>;\n    .reg .f64 %fd<4>;\n    .reg .b16 %h<4>;\n    \
                        ld.param.u64 %rd1, [p];\n";

/// A kernel `name` holding `inst`.
fn kernel(name: &str, inst: &str) -> String {
    format!("\n.visible .entry {name}(.param .u64 p)\n{{\n{PROLOGUE}    {inst}\n    ret;\n}}\n")
}

fn module(kernels: &str) -> String {
    format!(
        ".version 8.7\n.target sm_90\n.address_size 64\n\n.shared .align 16 .b8 sm[1024];\n\
         .shared .align 8 .b64 mb;\n{kernels}"
    )
}

/// The instruction of one spelling.
fn inst(case: &Case, spelling: &str) -> String {
    if case.operands.is_empty() {
        format!("{spelling};")
    } else {
        format!("{spelling} {};", case.operands)
    }
}

/// The spellings of `spellings` that ptxas rejects (by the lines of its errors).
fn rejected_by_ptxas(
    ptxas: &std::path::Path,
    case: &Case,
    spellings: &[String],
) -> BTreeSet<usize> {
    let mut text = String::new();
    let mut lines = Vec::new();
    for (k, s) in spellings.iter().enumerate() {
        let start = module(&text).lines().count();
        text.push_str(&kernel(&format!("k{k}"), &inst(case, s)));
        let end = module(&text).lines().count();
        lines.push((start, end));
    }
    let dir = scratch("lower_modifier_order");
    let path = dir.join(format!("{}.ptx", case.head.replace('.', "_")));
    std::fs::write(&path, module(&text)).unwrap();
    let out = Command::new(ptxas)
        .args(["-arch=sm_90", "-o", "/dev/null"])
        .arg(&path)
        .output()
        .expect("run ptxas");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let mut bad = BTreeSet::new();
    for l in stderr.lines() {
        // `file.ptx, line N; error   : ...`
        let Some(n) = l
            .split_once(", line ")
            .and_then(|(_, r)| r.split(';').next())
            .and_then(|n| n.trim().parse::<usize>().ok())
        else {
            continue;
        };
        if !l.contains("error") {
            continue;
        }
        match lines.iter().position(|&(s, e)| n > s && n <= e) {
            Some(k) => {
                bad.insert(k);
            }
            None => panic!("ptxas error outside the kernels: {l}"),
        }
    }
    if !out.status.success() {
        assert!(!bad.is_empty(), "ptxas failed without a line:\n{stderr}");
    }
    bad
}

#[test]
fn every_order_ptxas_accepts_lowers_to_the_same_ir() {
    let Some(ptxas) = ptxas() else {
        return;
    };
    let mut total = 0;
    for case in CASES {
        let spellings: Vec<String> = permutations(case.groups)
            .iter()
            .map(|p| format!("{}{}", case.head, p.concat()))
            .collect();
        let bad = rejected_by_ptxas(&ptxas, case, &spellings);
        let accepted: Vec<&String> = spellings
            .iter()
            .enumerate()
            .filter(|(k, _)| !bad.contains(k))
            .map(|(_, s)| s)
            .collect();
        for m in case.must {
            assert!(
                accepted.iter().any(|s| s == m),
                "ptxas rejects {m} (accepted: {accepted:?})"
            );
        }
        assert!(
            accepted.len() >= 2,
            "{}: fewer than two orders accepted",
            case.head
        );
        for p in ["dtk", "cuda"] {
            let prof = wheelport::target::profile(p).unwrap();
            let mut first: Option<(&str, String)> = None;
            for s in &accepted {
                let lm = lower_ptx(&module(&kernel("k", &inst(case, s))), "order.ptx", prof);
                assert_eq!(
                    lm.kernels[0].outcome,
                    KernelOutcome::Lowered,
                    "{p}: {s} does not lower"
                );
                match &first {
                    None => first = Some((s, lm.ir)),
                    Some((f, ir)) => assert!(
                        *ir == lm.ir,
                        "{p}: {s} lowers to other IR than {f}:\n--- {f}\n{ir}\n--- {s}\n{}",
                        lm.ir
                    ),
                }
            }
        }
        total += accepted.len();
    }
    eprintln!("{total} accepted spellings lowered, each to the IR of its case's first");
    assert!(total > 200, "only {total} spellings");
}

#[test]
fn permutations_are_complete() {
    let p = permutations(&[1, 2, 3]);
    let set: BTreeSet<Vec<i32>> = p.iter().cloned().collect();
    assert_eq!(p.len(), 6);
    assert_eq!(set.len(), 6);
}
