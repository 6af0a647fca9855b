//! Every kernel of every fixture either lowers or is reported unsupported for a warp-level,
//! async-copy, tensor-core, texture/surface or cluster form; every lowered module, linked with
//! the support library by llvm-link-19, passes `opt-19 -passes=verify`, builds for gfx906
//! (llc-19 + ld.lld-19) into a code object with `name` and `name.kd` per kernel and kernel-arg
//! metadata equal to the PTX parameter layout, and for the cuda profile builds with
//! `llc-19 -march=nvptx64 -mcpu=sm_80` into PTX that ptxas 13.5 accepts, with `.entry`
//! parameters of the original sizes and alignments.

#[path = "lower_common.rs"]
mod lower_common;

use lower_common::*;
use wheelport::lower::{lower_ptx, KernelOutcome};

/// Forms outside the deferred families that are not lowered yet (docs/lowering.md, "Not
/// lowered"): the video instructions, dp2a/dp4a, fns, szext, bmsk, cache policies, stack
/// allocation, bar.arrive/bar.red, 128-bit and fp8/tf32 data, packed-half .sat/.ftz variants.
fn not_yet(form: &str) -> bool {
    let op = form.split('.').next().unwrap();
    let video = op.starts_with('v') && op != "vote";
    video
        || matches!(
            op,
            "dp4a"
                | "dp2a"
                | "fns"
                | "szext"
                | "bmsk"
                | "createpolicy"
                | "isspacep"
                | "stacksave"
                | "stackrestore"
                | "alloca"
                | "applypriority"
                | "discard"
        )
        || form.starts_with("bar.arrive")
        || form.starts_with("bar.red")
        || form.starts_with("barrier.arrive")
        || form.starts_with("barrier.red")
        || form.starts_with("prefetch")
        || form.starts_with("st.bulk")
        || form.contains(".b128")
        || form.contains(".xorsign")
        || form.contains("tf32")
        || form.contains("e4m3")
        || form.contains("e5m2")
        || form.contains("e2m1")
        || form.contains("f32x2")
        || form.contains(".pack")
        || form.contains(".noftz")
        || form.starts_with("atom.global.v")
        || form.starts_with("red.global.v")
        || form == "set.ne.f16x2.f16x2"
        || form == "add.rn.sat.f16x2"
        || form == "mul.ftz.f16"
        || form == "tanh.approx.bf16x2"
        || form == "ex2.approx.ftz.bf16"
}

/// Reasons other than a form for which a fixture kernel is not lowered.
const NOT_YET_REASONS: &[&str] = &[
    // rdc.so calls a device function of another translation unit (nvcc -rdc).
    "separate compilation",
    // directives.ptx declares `.reg .v4 .f32`.
    "vector registers",
    // sregs.ptx reads the performance counters %pm0...
    "special register %pm",
    // hopper.sm_90a.ptx reads %cluster_ctarank: the cluster family (a cluster of more than one
    // CTA has no counterpart on the targets), its first blocker since mbarrier lowers.
    "special register %cluster",
];

/// Fixture PTX: the fixtures' .so files through the fatbin reader, and the .ptx fixtures.
fn fixture_ptx() -> Vec<(String, String)> {
    let mut v = Vec::new();
    for so in fixture_objects() {
        let data = std::fs::read(&so).unwrap();
        let name = so.file_name().unwrap().to_string_lossy().to_string();
        v.extend(ptx_of_object(&data, &name));
    }
    for dir in [
        "fixtures/ptx/nvcc",
        "fixtures/ptx/families",
        "fixtures/ptx/lower",
    ] {
        let Ok(rd) = std::fs::read_dir(root().join(dir)) else {
            continue;
        };
        let mut files: Vec<_> = rd
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "ptx"))
            .collect();
        files.sort();
        for f in files {
            v.push((
                format!("{dir}/{}", f.file_name().unwrap().to_string_lossy()),
                std::fs::read_to_string(&f).unwrap(),
            ));
        }
    }
    v
}

#[test]
fn fixtures_lower_and_build_for_gfx906_and_sm80() {
    let Some(t) = tools() else { return };
    let dir = scratch("lower-fixtures");
    let amd = wheelport::target::profile("dtk").unwrap();
    let cuda = wheelport::target::profile("cuda").unwrap();
    let mut errs = Vec::new();
    let (mut lowered, mut unsupported) = (0, 0);
    for (k, (name, text)) in fixture_ptx().iter().enumerate() {
        let tag = format!("m{k}");
        for prof in [amd, cuda] {
            let lm = lower_ptx(text, name, prof);
            for kr in &lm.kernels {
                match &kr.outcome {
                    KernelOutcome::Lowered => {
                        if prof.name == "dtk" {
                            lowered += 1;
                        }
                    }
                    KernelOutcome::Unsupported { forms, reason } => {
                        if prof.name == "dtk" {
                            unsupported += 1;
                        }
                        let bad: Vec<&String> = forms
                            .iter()
                            .filter(|f| wheelport::lower::form_category(f).is_none() && !not_yet(f))
                            .collect();
                        let known_reason = NOT_YET_REASONS.iter().any(|r| reason.contains(r));
                        if (forms.is_empty() && !known_reason) || !bad.is_empty() {
                            errs.push(format!(
                                "{name} [{}] {}: unsupported for forms outside the warp/async/\
                                 tensor/texture/cluster families: {reason}",
                                prof.name, kr.name
                            ));
                        }
                    }
                }
            }
            if !lm
                .kernels
                .iter()
                .any(|k| k.outcome == KernelOutcome::Lowered)
            {
                continue;
            }
            let tag = format!("{tag}.{}", prof.name);
            let opt = match link_and_opt(&t, &lm, &dir, &tag) {
                Ok(o) => o,
                Err(e) => {
                    errs.push(format!("{name} [{}]: {e}", prof.name));
                    continue;
                }
            };
            if prof.name == "dtk" {
                match build_amdgcn(&t, &opt, &dir, &tag, "gfx906") {
                    Ok(co) => errs.extend(check_amdgcn(&t, &co, &lm)),
                    Err(e) => errs.push(format!("{name} [gfx906]: {e}")),
                }
            } else {
                match build_nvptx(&t, &opt, &dir, &tag) {
                    Ok(ptx) => errs.extend(check_nvptx(&ptx, &lm)),
                    Err(e) => errs.push(format!("{name} [sm_80]: {e}")),
                }
            }
        }
    }
    eprintln!("fixtures: {lowered} kernels lowered, {unsupported} unsupported (dtk)");
    assert!(errs.is_empty(), "{}", errs.join("\n"));
    assert!(lowered > 0);
}
