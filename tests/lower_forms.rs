//! Every form of `kernels-ir/supported-forms.txt` lowers: one instruction of each form is
//! synthesized (operands of the form's types), the kernels are lowered for dtk and cuda, and
//! the modules pass `opt-19 -passes=verify` and build with llc-19 for gfx906 (+ ld.lld-19) and
//! sm_80 (+ ptxas 13.5 on llc's output).

#[path = "lower_common.rs"]
mod lower_common;

use lower_common::*;
use wheelport::lower::{lower_ptx, supported_forms, KernelOutcome};
use wheelport::ptx::Type;

/// The register of PTX type `t` used for operand number `k`.
fn reg(t: &str, k: usize) -> String {
    let ty = Type::from_name(&format!(".{t}")).unwrap_or(Type::B32);
    let p = match ty {
        Type::Pred => "%p",
        Type::F32 => "%f",
        Type::F64 => "%fd",
        _ => match ty.bits() {
            8 | 16 => "%h",
            32 => "%r",
            128 => "%q",
            _ => "%d",
        },
    };
    format!("{p}{}", k + 1)
}

fn wide(t: &str) -> String {
    match t {
        "s16" => "s32",
        "u16" => "u32",
        "s32" => "s64",
        "u32" => "u64",
        _ => t,
    }
    .to_string()
}

/// `form` as an instruction head `ptxas` takes, for an opcode the parser checks by form
/// (`wheelport::ptx::grammar::STRICT`): with the words a form leaves out (`.aligned`) where
/// the opcode's rows in `src/ptx/forms.txt` require them.
fn spelt(form: &str) -> String {
    use wheelport::ptx::grammar::{grammar, is_strict};
    let (op, words) = wheelport::ptx::analysis::form_words(form);
    match wheelport::ptx::Opcode::from_name(op) {
        Some(o) if is_strict(o) => {
            match grammar().spelling(o, &words, wheelport::ptx::analysis::dropped) {
                Some(w) => format!("{op}{}", w.concat()),
                None => form.to_string(),
            }
        }
        _ => form.to_string(),
    }
}

/// One instruction of `form`, or `None` for control-flow forms (covered by the fixtures).
fn synth(form: &str) -> Option<String> {
    let written = form;
    let spelt = spelt(form);
    let form = spelt.as_str();
    let parts: Vec<&str> = form.split('.').collect();
    let op = parts[0];
    let types: Vec<&str> = parts
        .iter()
        .copied()
        .filter(|p| Type::from_name(&format!(".{p}")).is_some())
        .collect();
    let t = types.last().copied().unwrap_or("b32");
    let has = |m: &str| parts.contains(&m);
    let r = |k| reg(t, k);
    let u32r = |k| reg("u32", k);
    let vec_n = if has("v4") {
        4
    } else if has("v2") {
        2
    } else {
        1
    };
    let addr = if has("param") {
        "[pb+0]".to_string()
    } else {
        "[%d0+0]".to_string()
    };
    let vreg = |base: usize| -> String {
        if vec_n == 1 {
            r(base)
        } else {
            let v: Vec<String> = (0..vec_n).map(|i| r(base + i)).collect();
            format!("{{{}}}", v.join(", "))
        }
    };
    Some(match op {
        "bra" | "ret" | "exit" | "call" | "brx" => return None,
        "trap" | "brkpt" => format!("{form};"),
        "pmevent" => format!("{form} 1;"),
        "nanosleep" => format!("{form} 100;"),
        "prefetch" | "prefetchu" => format!("{form} [%d0];"),
        "membar" | "fence" | "griddepcontrol" => format!("{form};"),
        "isspacep" => format!("{form} %p1, %d1;"),
        "createpolicy" if has("fractional") => {
            format!("{form} %d1, 0.5;\n\tld.global.L2::cache_hint.u32 %r1, [%d0], %d1;")
        }
        "createpolicy" if has("range") => format!("{form} %d1, [%d0], 64, 128;"),
        "createpolicy" => format!("{form} %d1, %d2;"),
        "bar" if has("red") && has("popc") => format!("{form} %r1, 0, %p1;"),
        "bar" if has("red") => format!("{form} %p2, 0, %p1;"),
        "barrier" if has("cluster") => format!("{form};"),
        "bar" | "barrier" if has("arrive") => format!("{form} 1, 64;"),
        "bar" | "barrier" => format!("{form} 0;"),
        // dp4a/dp2a and the video instructions (src/lower/emit/video.rs): SIMD forms and scalar
        // forms with a secondary operation take c; SIMD operands get selectors and a mask.
        "dp4a" | "dp2a" => format!("{form} %r1, %r2, %r3, %r4;"),
        _ if op.starts_with('v') && (op.ends_with('2') || op.ends_with('4')) => {
            if op.ends_with('2') {
                format!("{form} %r1.h0, %r2.h12, %r3.h30, %r4;")
            } else {
                format!("{form} %r1.b310, %r2.b7152, %r3.b0463, %r4;")
            }
        }
        // vmad: a negated source (a, or c with .sat), none with .po (§9.7.18.1).
        "vmad" if has("po") => format!("{form} %r1, %r2.b1, %r3.h1, %r4;"),
        "vmad" if has("sat") => format!("{form} %r1, %r2.h1, %r3.b2, -%r4;"),
        "vmad" => format!("{form} %r1, -%r2.b3, %r3, %r4;"),
        _ if op.starts_with('v') && op != "vote" => {
            if has("add") || has("min") || has("max") {
                format!("{form} %r1, %r2.b1, %r3.h1, %r4;")
            } else {
                format!("{form} %r1.b2, %r2.h0, %r3.b3, %r4;")
            }
        }
        "ld" | "ldu" => format!("{form} {}, {addr};", vreg(1)),
        "st" => format!("{form} {addr}, {};", vreg(1)),
        "atom" => {
            if has("cas") {
                format!("{form} {}, [%d0], {}, {};", r(1), r(2), r(3))
            } else {
                format!("{form} {}, [%d0], {};", r(1), r(2))
            }
        }
        "red" => format!("{form} [%d0], {};", r(2)),
        "cvta" => format!("{form} {}, {};", r(1), r(2)),
        "cvt" if has("pack") && types[0].ends_with('8') => format!("{form} %r1, %r2, %r3, %r4;"),
        "cvt" if has("pack") => format!("{form} %r1, %r2, %r3;"),
        "cvt" => {
            let d = types[0];
            let s = types[1];
            if d.ends_with("x2") {
                format!("{form} {}, {}, {};", reg("b32", 1), reg(s, 1), reg(s, 2))
            } else {
                format!("{form} {}, {};", reg(d, 1), reg(s, 2))
            }
        }
        "setp" => {
            let bop = has("and") || has("or") || has("xor");
            let extra = if bop { ", %p2" } else { "" };
            format!("{form} %p1, {}, {}{extra};", r(1), r(2))
        }
        "set" => {
            let bop = has("and") || has("or") || has("xor");
            let extra = if bop { ", %p2" } else { "" };
            let (d, s) = (types[0], types[1]);
            format!("{form} {}, {}, {}{extra};", reg(d, 1), reg(s, 2), reg(s, 3))
        }
        "selp" => format!("{form} {}, {}, {}, %p1;", r(1), r(2), r(3)),
        "slct" => {
            let d = types[0];
            format!(
                "{form} {}, {}, {}, {};",
                reg(d, 1),
                reg(d, 2),
                reg(d, 3),
                r(4)
            )
        }
        "mov" => format!("{form} {}, {};", r(1), r(2)),
        "lop3" => {
            if has("or") || has("and") {
                format!("{form} %r1|%p1, %r2, %r3, %r4, 0x96, %p2;")
            } else {
                format!("{form} %r1, %r2, %r3, %r4, 0xE8;")
            }
        }
        "shf" => format!("{form} %r1, %r2, %r3, %r4;"),
        "shl" | "shr" => format!("{form} {}, {}, {};", r(1), r(2), u32r(3)),
        "prmt" => format!("{form} %r1, %r2, %r3, %r4;"),
        "bfe" => format!("{form} {}, {}, %r3, %r4;", r(1), r(2)),
        "bfi" => format!("{form} {}, {}, {}, %r3, %r4;", r(1), r(2), r(3)),
        "popc" | "clz" | "bfind" => format!("{form} %r1, {};", r(2)),
        "testp" => format!("{form} %p1, {};", r(2)),
        "abs" | "neg" | "not" | "cnot" | "brev" | "rcp" | "sqrt" | "rsqrt" | "sin" | "cos"
        | "lg2" | "ex2" | "tanh" => format!("{form} {}, {};", r(1), r(2)),
        "mul" | "mad" if has("wide") => {
            let w = wide(t);
            if op == "mad" {
                format!("{form} {}, {}, {}, {};", reg(&w, 1), r(2), r(3), reg(&w, 4))
            } else {
                format!("{form} {}, {}, {};", reg(&w, 1), r(2), r(3))
            }
        }
        // Warp-level forms (src/lower/emit/warp.rs).
        "shfl" if has("sync") => format!("{form} %r1|%p1, %r2, %r3, %r4, %r5;"),
        "shfl" => format!("{form} %r1|%p1, %r2, %r3, %r4;"),
        "vote" if has("ballot") => {
            format!("{form} %r1, %p2{};", if has("sync") { ", %r3" } else { "" })
        }
        "vote" => format!(
            "{form} %p1, !%p2{};",
            if has("sync") { ", %r3" } else { "" }
        ),
        "match" if has("all") => format!("{form} %r1|%p1, {}, %r3;", r(2)),
        "match" => format!("{form} %r1, {}, %r3;", r(2)),
        "redux" => format!("{form} %r1, %r2, %r3;"),
        "activemask" => format!("{form} %r1;"),
        "elect" => format!("{form} %r1|%p1, %r2;"),
        // cp.async and the matrix forms (src/lower/emit/tensor_mem.rs): every cp-size, src-size
        // (register and immediate), ignore-src, a cache hint, both cache operators.
        // mbarrier and cp.async.bulk (src/lower/emit/mbarrier.rs).
        "mbarrier" => match parts[1] {
            "init" => format!("{form} [%d0], %r1;"),
            "inval" => format!("{form} [%d0];"),
            "pending_count" => format!("{form} %r1, %d1;"),
            "test_wait" | "try_wait" if has("parity") => format!("{form} %p1, [%d0], %r1;"),
            "try_wait" => format!("{form} %p1, [%d0], %d1, 1000;"),
            "test_wait" => format!("{form} %p1, [%d0], %d1;"),
            "expect_tx" | "complete_tx" => format!("{form} [%d0], %r1;"),
            _ => {
                let d = if has("shared::cluster") { "_" } else { "%d1" };
                if has("expect_tx") || has("noComplete") {
                    format!("{form} {d}, [%d0], %r1;")
                } else {
                    format!("{form} {d}, [%d0];\n\t{form} {d}, [%d0], %r2;")
                }
            }
        },
        "cp" if has("bulk") && has("prefetch") => format!("{form} [%d0], %r1;"),
        "cp" if has("bulk") && has("ignore_oob") => {
            format!("{form} [%d0], [%d1], %r1, %r2, %r3, [%d2];")
        }
        "cp" if has("bulk") && has("cp_mask") => format!(
            "{form} [%d0], [%d1], %r1, %h1;\n\t\
             cp.async.bulk.global.shared::cta.bulk_group.L2::cache_hint.cp_mask \
             [%d0+16], [%d1+16], %r1, %d3, %h1;"
        ),
        "clusterlaunchcontrol" if has("try_cancel") => format!("{form} [%d0], [%d1];"),
        "clusterlaunchcontrol" => {
            let d = if has("is_canceled") {
                "%p1"
            } else if has("v4") {
                "{%r1, %r2, _, %r4}"
            } else {
                "%r1"
            };
            format!("mov.b128 %q1, {{%d1, %d2}};\n\t{form} {d}, %q1;")
        }
        "cp" if has("bulk") && has("mbarrier::complete_tx::bytes") => {
            format!("{form} [%d0], [%d1], %r1, [%d2];")
        }
        "cp" if has("bulk") && has("bulk_group") => format!(
            "{form} [%d0], [%d1], %r1;\n\t{}.L2::cache_hint [%d0+16], [%d1+16], %r1, %d3;",
            form
        ),
        "cp" if has("wait_group") => format!("{form} 2;"),
        "cp" if has("commit_group") || has("wait_all") => format!("{form};"),
        "cp" => {
            // The cache operators are written here, not spelt.
            let sp = written.trim_start_matches("cp.async.");
            [
                format!("cp.async.ca.{sp} [%d0], [%d1], 4;"),
                format!("cp.async.ca.{sp} [%d0+8], [%d1+8], 8, %r2;"),
                format!("cp.async.cg.{sp}.L2::128B [%d0+16], [%d1+16], 16, %r3;"),
                format!("cp.async.ca.{sp} [%d0+32], [%d1+32], 16, 5;"),
                format!("cp.async.ca.{sp} [%d0+48], [%d1+48], 16, %p1;"),
                format!("cp.async.cg.{sp}.L2::cache_hint [%d0+64], [%d1+64], 16, %r4, %d2;"),
            ]
            .join("\n\t")
        }
        "ldmatrix" | "stmatrix" => {
            let n = if has("x4") {
                4
            } else if has("x2") {
                2
            } else {
                1
            };
            let v: Vec<String> = (0..n).map(|i| format!("%r{}", i + 1)).collect();
            if op == "ldmatrix" {
                format!("{form} {{{}}}, [%d0];", v.join(", "))
            } else {
                format!("{form} [%d0], {{{}}};", v.join(", "))
            }
        }
        "movmatrix" => format!("{form} %r1, %r2;"),
        // mma m8n8k4 (src/lower/emit/wmma.rs), D stored; `spelt` puts back the `.aligned`
        // that `form_of` drops.
        "mma" if has("m8n8k4") => {
            let f = form;
            if has("f64") {
                format!(
                    "{f} {{%fd1, %fd2}}, {{%fd3}}, {{%fd4}}, {{%fd5, %fd6}};\n\t\
                     st.global.v2.f64 [%d0+128], {{%fd1, %fd2}};"
                )
            } else if form.contains(".f32.f16.f16.f16") {
                // Mixed accumulators: D .f32 (8 registers), C .f16 (4 pairs).
                let f8 = "{%f0, %f1, %f2, %f3, %f4, %f5, %f6, %f7}";
                format!(
                    "{f} {f8}, {{%r0, %r1}}, {{%r2, %r3}}, {{%r4, %r5, %r6, %r7}};\n\t\
                     st.global.v4.f32 [%d0+144], {{%f0, %f1, %f2, %f7}};"
                )
            } else if t == "f32" {
                let f8 = "{%f0, %f1, %f2, %f3, %f4, %f5, %f6, %f7}";
                format!(
                    "{f} {f8}, {{%r0, %r1}}, {{%r2, %r3}}, {f8};\n\t\
                     st.global.v4.f32 [%d0+144], {{%f0, %f1, %f2, %f7}};"
                )
            } else {
                format!(
                    "{f} {{%r0, %r1, %r2, %r3}}, {{%r4, %r5}}, {{%r6, %r7}}, {{%r0, %r1, %r2, %r3}};\n\t\
                     st.global.v4.u32 [%d0+160], {{%r0, %r1, %r2, %r3}};"
                )
            }
        }
        // Matrix multiply-accumulate (src/lower/emit/mma.rs), spelt with `.aligned` as above.
        "mma" => {
            let f = form;
            let (a, b) = if has("m16n8k8") {
                ("{%r1, %r2}", "{%r3}")
            } else if has("m16n8k16") {
                ("{%r1, %r2, %r3, %r4}", "{%r5, %r6}")
            } else {
                ("{%r1, %r2, %r3, %r4}", "{%r5, %r6, %r7, %r0}")
            };
            let sp = if has("sp::ordered_metadata") {
                if has("bf16") {
                    ", %r2, 1"
                } else {
                    ", %r2, 0"
                }
            } else {
                ""
            };
            // Operands loaded and D stored (one place per form), so that the optimiser keeps
            // the operation.
            let o = 48
                + 16 * (usize::from(has("m16n8k16"))
                    + 2 * usize::from(has("m16n8k32"))
                    + 3 * usize::from(has("bf16")));
            format!(
                "ld.global.v4.u32 {{%r0, %r1, %r2, %r3}}, [%d0];\n\t\
                 ld.global.v4.u32 {{%r4, %r5, %r6, %r7}}, [%d0+16];\n\t\
                 ld.global.v4.f32 {{%f0, %f5, %f6, %f7}}, [%d0+32];\n\t\
                 {f} {{%f1, %f2, %f3, %f4}}, {a}, {b}, {{%f5, %f6, %f7, %f0}}{sp};\n\t\
                 st.global.v4.f32 [%d0+{o}], {{%f1, %f2, %f3, %f4}};"
            )
        }
        // Warp matrix forms (src/lower/emit/wmma.rs): fragments of 8 .b32 / 8 .f32 / 4 .b32 (f16
        // c/d); D stored so that the optimiser keeps the operation.
        "wmma" => {
            let f = form.replacen(".sync", ".sync.aligned", 1);
            let r8 = "{%r0, %r1, %r2, %r3, %r4, %r5, %r6, %r7}";
            let f8 = "{%f0, %f1, %f2, %f3, %f4, %f5, %f6, %f7}";
            let (h4, h4c) = ("{%r0, %r1, %r2, %r3}", "{%r4, %r5, %r6, %r7}");
            let frag = |t: &str| if t == "f32" { f8 } else { h4 };
            if has("load") {
                let fr = if has("a") || has("b") { r8 } else { frag(t) };
                let st = if t == "f32" {
                    "st.global.v4.f32 [%d0+64], {%f0, %f1, %f2, %f7};"
                } else {
                    "st.global.v4.u32 [%d0+64], {%r0, %r1, %r2, %r7};"
                };
                format!("{f} {fr}, [%d0], %r7;\n\t{st}")
            } else if has("store") {
                format!("{f} [%d0], {}, %r6;", frag(t))
            } else {
                let (dt, ct) = (parts[parts.len() - 2], parts[parts.len() - 1]);
                let c = if ct == "f32" { f8 } else { h4c };
                format!("{f} {}, {r8}, {r8}, {c};\n\twmma.store.d.sync.aligned.row.m16n16k16.global.{dt} [%d0], {}, %r6;", frag(dt), frag(dt))
            }
        }
        "mad" | "fma" | "madc" | "mad24" | "sad" => {
            format!("{form} {}, {}, {}, {};", r(1), r(2), r(3), r(4))
        }
        _ => format!("{form} {}, {}, {};", r(1), r(2), r(3)),
    })
}

fn kernel(name: &str, insts: &[String]) -> String {
    let mut s = format!(
        ".visible .entry {name}(.param .u64 kp)\n{{\n\t.reg .pred %p<8>;\n\t.reg .b16 %h<8>;\n\
         \t.reg .b32 %r<8>;\n\t.reg .b64 %d<8>;\n\t.reg .f32 %f<8>;\n\t.reg .f64 %fd<8>;\n\
         \t.param .align 16 .b8 pb[64];\n\tld.param.u64 %d0, [kp];\n"
    );
    // 128-bit registers (PTX ISA 8.3) only where a form uses them.
    if insts.iter().any(|i| i.contains("%q")) {
        s.push_str("\t.reg .b128 %q<8>;\n");
    }
    for i in insts {
        s.push('\t');
        s.push_str(i);
        s.push('\n');
    }
    s.push_str("\tret;\n}\n");
    s
}

#[test]
fn every_listed_form_lowers_and_builds() {
    let Some(t) = tools() else { return };
    let dir = scratch("lower-forms");
    let forms = supported_forms();
    let mut ptx = String::from(".version 8.3\n.target sm_80\n.address_size 64\n\n");
    let mut synthesized = 0;
    let mut chunk = Vec::new();
    let mut chunks: Vec<Vec<String>> = Vec::new();
    // mma forms get a kernel of their own, away from `trap` and `exit`, so that their
    // results reach memory and the built code really holds them.
    let mut mma_chunk = Vec::new();
    for f in &forms {
        if let Some(i) = synth(f) {
            if f.starts_with("mma") || f.starts_with("wmma") {
                mma_chunk.push(i);
                synthesized += 1;
                continue;
            }
            chunk.push(i);
            synthesized += 1;
            if chunk.len() == 64 {
                chunks.push(std::mem::take(&mut chunk));
            }
        }
    }
    chunks.push(chunk);
    chunks.push(mma_chunk);
    for (k, c) in chunks.iter().enumerate() {
        ptx.push_str(&kernel(&format!("forms_{k}"), c));
    }
    std::fs::write(dir.join("forms.ptx"), &ptx).unwrap();
    let parsed = wheelport::ptx::parse(&ptx, "forms.ptx");
    let errors: Vec<String> = parsed.diagnostics.iter().map(|d| d.to_string()).collect();
    assert!(errors.is_empty(), "synthesized PTX: {}", errors.join("\n"));
    let mut errs = Vec::new();
    for prof in ["dtk", "cuda"] {
        let p = wheelport::target::profile(prof).unwrap();
        let lm = lower_ptx(&ptx, "forms.ptx", p);
        for k in &lm.kernels {
            if let KernelOutcome::Unsupported { reason, .. } = &k.outcome {
                errs.push(format!("[{prof}] {}: {reason}", k.name));
            }
        }
        if !errs.is_empty() {
            continue;
        }
        let tag = format!("forms.{prof}");
        let opt = match link_and_opt(&t, &lm, &dir, &tag) {
            Ok(o) => o,
            Err(e) => {
                errs.push(format!("[{prof}] {e}"));
                continue;
            }
        };
        let built = if prof == "dtk" {
            build_amdgcn(&t, &opt, &dir, &tag, "gfx906").map(|co| check_amdgcn(&t, &co, &lm))
        } else {
            build_nvptx(&t, &opt, &dir, &tag).map(|ptx| check_nvptx(&ptx, &lm))
        };
        match built {
            Ok(e) => errs.extend(e),
            Err(e) => errs.push(format!("[{prof}] {e}")),
        }
    }
    eprintln!(
        "{} forms listed, {synthesized} synthesized and lowered",
        forms.len()
    );
    assert!(errs.is_empty(), "{}", errs.join("\n"));
}

/// The synthesized instructions of the dp4a/dp2a and video forms (with their operand
/// selectors and masks) are valid PTX: ptxas 13.5 accepts them for sm_80.
#[test]
fn video_snippets_pass_ptxas() {
    let Some(px) = ptxas() else { return };
    let dir = scratch("lower-forms-video");
    let insts: Vec<String> = supported_forms()
        .iter()
        .filter(|f| {
            let op = f.split('.').next().unwrap();
            op == "dp4a" || op == "dp2a" || (op.starts_with('v') && op != "vote")
        })
        .filter_map(|f| synth(f))
        .collect();
    assert!(insts.len() > 900, "{} video forms", insts.len());
    let mut ptx = String::from(".version 8.0\n.target sm_80\n.address_size 64\n\n");
    ptx.push_str(&kernel("video_forms", &insts));
    let p = dir.join("video.ptx");
    std::fs::write(&p, &ptx).unwrap();
    let r = tool(
        std::process::Command::new(&px)
            .args(["-arch=sm_80", "-o"])
            .arg(dir.join("video.cubin"))
            .arg(&p),
    );
    assert!(r.is_ok(), "{}", r.unwrap_err());
}
