//! The xformers corpus (the PTX of its wheel, extracted with wheelport's fatbin reader): every
//! kernel that uses no warp-level/async-copy/tensor-core/texture/cluster form lowers and builds
//! for gfx906 (llvm-link-19, opt-19 -O3, llc-19, ld.lld-19) with kernel-argument metadata equal
//! to the PTX layout; the others are unsupported, listing exactly the forms
//! `ptx::analysis::unsupported_forms` names. The counts are derived from `kernel_forms`.

#[path = "lower_common.rs"]
mod lower_common;

use lower_common::*;
use wheelport::lower::{form_category, lower_ptx, KernelOutcome};
use wheelport::ptx::analysis::{kernel_forms, unsupported_forms};

#[test]
fn xformers_kernels_lower_or_name_their_forms() {
    let Some(wheel) = require_corpus("xformers-0.0.35", "lower_corpus") else {
        return;
    };
    let Some(t) = tools() else { return };
    let dir = scratch("lower-corpus");
    let prof = wheelport::target::profile("dtk").unwrap();
    let mut r = wheelport::wheel::WheelReader::open(&wheel).unwrap();
    let (mut total, mut lowered, mut want_lowered, mut deferred) = (0, 0, 0, 0);
    let mut errs = Vec::new();
    for name in r.member_names() {
        if !wheelport::wheel::is_shared_object_name(&name) {
            continue;
        }
        let data = r.read_member(&name).unwrap();
        for (tag, text) in ptx_of_object(&data, &name) {
            let parsed = wheelport::ptx::parse(&text, &tag);
            let kf = kernel_forms(&parsed.module);
            let lm = lower_ptx(&text, &tag, prof);
            assert_eq!(lm.kernels.len(), kf.len(), "{tag}");
            for (k, f) in lm.kernels.iter().zip(&kf) {
                assert_eq!(k.name, f.kernel);
                total += 1;
                let missing: Vec<String> = unsupported_forms(f)
                    .iter()
                    .map(|u| u.form.clone())
                    .collect();
                // Deferred: a warp/async/tensor/texture/cluster form the lowering does not support
                // yet (the warp-level forms of the wave64 model are supported).
                let uses_deferred = f.forms.iter().any(|u| {
                    form_category(&u.form).is_some()
                        && !wheelport::ptx::analysis::is_supported(&u.form)
                });
                if missing.is_empty() {
                    want_lowered += 1;
                }
                if uses_deferred {
                    deferred += 1;
                }
                match &k.outcome {
                    KernelOutcome::Lowered => {
                        lowered += 1;
                        if !missing.is_empty() {
                            errs.push(format!("{}: lowered although {missing:?}", k.name));
                        }
                    }
                    KernelOutcome::Unsupported { forms, reason } => {
                        if !uses_deferred {
                            errs.push(format!(
                                "{}: uses no deferred form but is unsupported: {reason}",
                                k.name
                            ));
                        }
                        if *forms != missing {
                            errs.push(format!("{}: forms {forms:?} != {missing:?}", k.name));
                        }
                    }
                }
            }
            if lm
                .kernels
                .iter()
                .any(|k| k.outcome == KernelOutcome::Lowered)
            {
                match link_and_opt(&t, &lm, &dir, &tag)
                    .and_then(|o| build_amdgcn(&t, &o, &dir, &tag, "gfx906"))
                {
                    Ok(co) => errs.extend(check_amdgcn(&t, &co, &lm)),
                    Err(e) => errs.push(format!("{tag}: {e}")),
                }
            }
        }
    }
    eprintln!(
        "xformers: {total} kernels, {lowered} lowered for gfx906, {} unsupported \
         ({deferred} use warp/async/tensor/texture/cluster forms)",
        total - lowered
    );
    assert!(errs.is_empty(), "{}", errs.join("\n"));
    assert_eq!(total, 50, "xformers 0.0.35 carries 50 PTX kernels");
    assert_eq!(lowered, want_lowered);
    assert_eq!(total - lowered, deferred);
}
