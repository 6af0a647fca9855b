//! The supported-forms registry: every instruction form the lowering implements
//! ([`supported_forms`], the source of `kernels-ir/supported-forms.txt`), and the families of
//! forms that reports and tests group unsupported forms by ([`form_category`]).

/// The family of an instruction form (read from its decoded modifiers, in any order), or
/// `None` for a form outside these families. Each family is lowered only in part (see
/// `docs/lowering.md`), so an unsupported form of a family is expected rather than a gap:
///
/// * `"warp"`: warp-level collectives (`shfl`, `vote`, `match`, `redux`, `activemask`,
///   `bar.warp.sync`, `elect`; PTX ISA 9.x §9.7.8);
/// * `"async"`: asynchronous copies and their barriers (`cp.async*`, `cp.reduce.async*`,
///   `mbarrier`, proxy fences; §9.7.9.25, §9.7.13.15);
/// * `"tensor"`: tensor-core operations (`mma`, `wmma`, `ldmatrix`, `stmatrix`, `movmatrix`,
///   `wgmma`, `tcgen05`, `tensormap`; §9.7.14–§9.7.16);
/// * `"texture"`: texture and surface instructions (`tex`, `tld4`, `txq`, `suld`, `sust`,
///   `sured`, `suq`, `istypep`; §9.7.10, §9.7.11);
/// * `"cluster"`: thread-block clusters (`mapa`, `getctarank`, `.shared::cluster`,
///   `barrier.cluster`, `clusterlaunchcontrol`, `multimem`; §9.7.9.x, §9.7.13).
pub fn form_category(form: &str) -> Option<&'static str> {
    use crate::ptx::mods::{Mod, Mods};
    use crate::ptx::StateSpace;
    let (op, words) = crate::ptx::analysis::form_words(form);
    let mods = crate::ptx::Opcode::from_name(op)
        .and_then(|o| Mods::decode_words(o, words.iter().copied()).ok())
        .unwrap_or_default();
    let has = |m: Mod| mods.has(m);
    match op {
        "shfl" | "vote" | "match" | "redux" | "activemask" | "elect" => Some("warp"),
        "bar" if has(Mod::Warp) => Some("warp"),
        "cp" if has(Mod::Async) => Some("async"),
        "mbarrier" => Some("async"),
        "fence" if has(Mod::Proxy) || has(Mod::ProxyAny) || has(Mod::MbarrierInit) => Some("async"),
        "mma" | "wmma" | "ldmatrix" | "stmatrix" | "movmatrix" | "wgmma" | "tcgen05"
        | "tensormap" => Some("tensor"),
        "tex" | "tld4" | "txq" | "suld" | "sust" | "sured" | "suq" | "istypep" => Some("texture"),
        "mapa" | "getctarank" | "clusterlaunchcontrol" | "multimem" => Some("cluster"),
        "barrier" if has(Mod::Cluster) => Some("cluster"),
        _ if mods.spaces().contains(&StateSpace::SharedCluster) => Some("cluster"),
        "setmaxnreg" => Some("cluster"),
        _ => None,
    }
}

/// Why a valid PTX form has no lowering, when the reason is a hardware or ABI gap of the
/// targets (gfx906 wave64, no thread-block clusters, no NVLink) rather than a form not written
/// yet; `None` otherwise. Reports append it to the kernel's reason.
pub fn gap_reason(form: &str) -> Option<&'static str> {
    use crate::ptx::mods::{Mod, Mods};
    let (op, words) = crate::ptx::analysis::form_words(form);
    let o = crate::ptx::Opcode::from_name(op)?;
    let mods = Mods::decode_words(o, words.iter().copied()).ok()?;
    let has = |m: Mod| mods.has(m);
    match op {
        "multimem" => Some(
            "multimem addresses name NVLink multicast memory shared by several GPUs; the target has no multicast memory",
        ),
        "ld" | "st" | "ldu"
            if has(Mod::B128) && has(Mod::Mmio) =>
        {
            Some(
                "a 128-bit memory-mapped I/O access; gfx906 has no 128-bit access that a device is guaranteed to see as one",
            )
        }
        _ if has(Mod::MulticastCluster) => Some(
            "a copy multicast to the CTAs of a cluster; the target has no thread-block clusters, so no other CTA can receive it",
        ),
        _ => None,
    }
}

/// Every instruction form the lowering implements, generated from per-opcode product rules
/// (modifiers in the order nvcc and the PTX ISA 9.x syntax write them). This is the source of
/// `kernels-ir/supported-forms.txt`; a unit test keeps the two equal, and
/// `tests/lower_forms.rs` lowers one synthesized instruction of every form.
pub fn supported_forms() -> Vec<String> {
    let mut v: Vec<String> = Vec::new();
    let mut add = |s: String| v.push(s);
    let ints = ["s16", "s32", "s64", "u16", "u32", "u64"];
    let sints = ["s16", "s32", "s64"];
    let bits = ["b16", "b32", "b64"];
    let all_ints8 = ["u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64"];
    let halves = ["f16", "f16x2", "bf16", "bf16x2"];
    let drnd = ["rz", "rm", "rp"];
    let rnds = ["rn", "rz", "rm", "rp"];
    // Integer arithmetic (PTX ISA 9.x §9.7.1, §9.7.2).
    for t in ints {
        for op in ["add", "sub", "div", "rem", "min", "max", "sad"] {
            add(format!("{op}.{t}"));
        }
        for m in ["lo", "hi"] {
            add(format!("mul.{m}.{t}"));
            add(format!("mad.{m}.{t}"));
        }
        if !t.ends_with("64") {
            add(format!("mul.wide.{t}"));
            add(format!("mad.wide.{t}"));
        }
    }
    for t in sints {
        add(format!("abs.{t}"));
        add(format!("neg.{t}"));
    }
    for t in ["s32", "u32"] {
        for m in ["lo", "hi"] {
            add(format!("mul24.{m}.{t}"));
            add(format!("mad24.{m}.{t}"));
        }
    }
    add("add.sat.s32".into());
    add("sub.sat.s32".into());
    add("mad.hi.sat.s32".into());
    add("min.relu.s32".into());
    add("max.relu.s32".into());
    for t in ["s16x2", "u16x2"] {
        for op in ["add", "min", "max"] {
            add(format!("{op}.{t}"));
        }
    }
    add("min.relu.s16x2".into());
    add("max.relu.s16x2".into());
    for t in ["u32", "s32", "u64", "s64"] {
        add(format!("add.cc.{t}"));
        add(format!("sub.cc.{t}"));
        add(format!("addc.{t}"));
        add(format!("addc.cc.{t}"));
        add(format!("subc.{t}"));
        add(format!("subc.cc.{t}"));
        for m in ["lo", "hi"] {
            add(format!("mad.{m}.cc.{t}"));
            add(format!("madc.{m}.{t}"));
            add(format!("madc.{m}.cc.{t}"));
        }
    }
    for t in ["b32", "b64"] {
        for op in ["popc", "clz", "brev"] {
            add(format!("{op}.{t}"));
        }
        add(format!("bfi.{t}"));
    }
    for t in ["u32", "s32", "u64", "s64"] {
        add(format!("bfe.{t}"));
        add(format!("bfind.{t}"));
        add(format!("bfind.shiftamt.{t}"));
    }
    // Floating point (§9.7.3) and half precision (§9.7.4).
    for op in ["add", "sub", "mul"] {
        for r in ["", ".rn", ".rz", ".rm", ".rp"] {
            for f in ["", ".ftz"] {
                for s in ["", ".sat"] {
                    add(format!("{op}{r}{f}{s}.f32"));
                }
            }
            add(format!("{op}{r}.f64"));
        }
        for r in ["", ".rn"] {
            for h in halves {
                add(format!("{op}{r}.{h}"));
            }
            add(format!("{op}{r}.sat.f16"));
            add(format!("{op}{r}.sat.f16x2"));
        }
    }
    for op in ["fma", "mad"] {
        for r in rnds {
            for f in ["", ".ftz"] {
                for s in ["", ".sat"] {
                    add(format!("{op}.{r}{f}{s}.f32"));
                }
            }
            add(format!("{op}.{r}.f64"));
        }
    }
    for h in halves {
        add(format!("fma.rn.{h}"));
        add(format!("fma.rn.relu.{h}"));
        add(format!("neg.{h}"));
        add(format!("abs.{h}"));
        for op in ["min", "max"] {
            add(format!("{op}.{h}"));
            add(format!("{op}.NaN.{h}"));
        }
    }
    add("fma.rn.sat.f16".into());
    for f in ["", ".ftz"] {
        add(format!("div.approx{f}.f32"));
        add(format!("div.full{f}.f32"));
        add(format!("rcp.approx{f}.f32"));
        add(format!("sqrt.approx{f}.f32"));
        add(format!("rsqrt.approx{f}.f32"));
        add(format!("rsqrt.approx{f}.f64"));
        for op in ["sin", "cos", "lg2", "ex2"] {
            add(format!("{op}.approx{f}.f32"));
        }
        for op in ["abs", "neg"] {
            add(format!("{op}{f}.f32"));
        }
        for op in ["min", "max"] {
            add(format!("{op}{f}.f32"));
            add(format!("{op}{f}.NaN.f32"));
        }
        for r in rnds {
            for op in ["div", "rcp", "sqrt"] {
                add(format!("{op}.{r}{f}.f32"));
            }
        }
    }
    add("rcp.approx.ftz.f64".into());
    add("tanh.approx.f32".into());
    for r in rnds {
        for op in ["div", "rcp", "sqrt"] {
            add(format!("{op}.{r}.f64"));
        }
    }
    for op in ["abs", "neg", "min", "max"] {
        add(format!("{op}.f64"));
    }
    for t in ["f32", "f64"] {
        add(format!("copysign.{t}"));
        for c in [
            "finite",
            "infinite",
            "number",
            "notanumber",
            "normal",
            "subnormal",
        ] {
            add(format!("testp.{c}.{t}"));
        }
    }
    // Comparison and selection (§9.7.6).
    let icmp_s = ["eq", "ne", "lt", "le", "gt", "ge"];
    let icmp_u = ["lo", "ls", "hi", "hs"];
    let fcmp = [
        "eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan",
    ];
    let mut cmp_types: Vec<(String, String)> = Vec::new(); // (cmp, type with ftz prefix)
    for t in ints {
        for c in icmp_s {
            cmp_types.push((c.into(), t.into()));
        }
        if t.starts_with('u') {
            for c in icmp_u {
                cmp_types.push((c.into(), t.into()));
            }
        }
    }
    for t in bits {
        for c in ["eq", "ne"] {
            cmp_types.push((c.into(), t.into()));
        }
    }
    for c in fcmp {
        for t in ["f32", "ftz.f32", "f64", "f16", "bf16"] {
            cmp_types.push((c.into(), t.into()));
        }
    }
    for (c, t) in &cmp_types {
        for b in ["", ".and", ".or", ".xor"] {
            add(format!("setp.{c}{b}.{t}"));
            // set with a .f16/.bf16 source is listed below (no .f32 result: ptxas rejects it).
            if !t.ends_with("f16") {
                for d in ["u32", "s32", "f32"] {
                    let (ftz, st) = match t.strip_prefix("ftz.") {
                        Some(s) => (".ftz", s),
                        None => ("", t.as_str()),
                    };
                    add(format!("set.{c}{b}{ftz}.{d}.{st}"));
                }
            }
        }
    }
    // set on half precision (§9.7.4.6): scalar f16/bf16 sources, and packed pairs compared
    // per half.
    for c in fcmp {
        for b in ["", ".and", ".or", ".xor"] {
            for d in ["u32", "s32", "f16"] {
                add(format!("set.{c}{b}.{d}.f16"));
            }
            for d in ["u32", "s32", "bf16"] {
                add(format!("set.{c}{b}.{d}.bf16"));
            }
        }
        for (d, st) in [
            ("u32", "f16x2"),
            ("s32", "f16x2"),
            ("f16x2", "f16x2"),
            ("u32", "bf16x2"),
            ("s32", "bf16x2"),
            ("bf16x2", "bf16x2"),
        ] {
            add(format!("set.{c}.{d}.{st}"));
        }
    }
    for t in [
        "b16", "b32", "b64", "u16", "u32", "u64", "s16", "s32", "s64", "f32", "f64",
    ] {
        add(format!("selp.{t}"));
        add(format!("slct.{t}.s32"));
        add(format!("slct.{t}.f32"));
        add(format!("slct.ftz.{t}.f32"));
    }
    // Logic and shift (§9.7.7).
    for t in ["pred", "b16", "b32", "b64"] {
        for op in ["and", "or", "xor", "not"] {
            add(format!("{op}.{t}"));
        }
    }
    for t in bits {
        add(format!("cnot.{t}"));
        add(format!("shl.{t}"));
        add(format!("shr.{t}"));
    }
    for t in ints {
        add(format!("shr.{t}"));
    }
    for m in ["clamp", "wrap"] {
        add(format!("bmsk.{m}.b32"));
        add(format!("szext.{m}.s32"));
        add(format!("szext.{m}.u32"));
    }
    add("lop3.b32".into());
    add("lop3.or.b32".into());
    add("lop3.and.b32".into());
    for d in ["l", "r"] {
        for m in ["wrap", "clamp"] {
            add(format!("shf.{d}.{m}.b32"));
        }
    }
    add("prmt.b32".into());
    for m in ["f4e", "b4e", "rc8", "ecl", "ecr", "rc16"] {
        add(format!("prmt.b32.{m}"));
    }
    // Data movement (§9.7.9).
    for t in [
        "pred", "b16", "b32", "b64", "u16", "u32", "u64", "s16", "s32", "s64", "f32", "f64",
    ] {
        add(format!("mov.{t}"));
    }
    add("mov.b128".into());
    for sp in [
        "global",
        "shared",
        "shared::cta",
        "shared::cluster",
        "local",
    ] {
        add(format!("isspacep.{sp}"));
    }
    let mem_types = [
        "b8", "b16", "b32", "b64", "u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64", "f32",
        "f64",
    ];
    let spaces = [
        "",
        ".global",
        ".shared",
        ".shared::cta",
        ".local",
        ".const",
        ".param",
    ];
    for op in ["ld", "st"] {
        for sp in spaces {
            // No stores to the constant space.
            if op == "st" && sp == ".const" {
                continue;
            }
            let nc: &[&str] = if op == "ld" && sp == ".global" {
                &["", ".nc"]
            } else {
                &[""]
            };
            for n in nc {
                for vec in ["", ".v2", ".v4"] {
                    for t in mem_types {
                        // `.v4` of 64-bit elements (32 bytes) only on global addresses.
                        if vec == ".v4" && t.ends_with("64") && !matches!(sp, "" | ".global") {
                            continue;
                        }
                        add(format!("{op}{sp}{n}{vec}.{t}"));
                        if n.is_empty() && !matches!(sp, ".const" | ".param") {
                            add(format!("{op}.volatile{sp}{vec}.{t}"));
                            add(format!("{op}.weak{sp}{vec}.{t}"));
                        }
                    }
                }
                // 128-bit scalars: weak and volatile here, ordered below; `.mmio` ones are a
                // gap (`gap_reason`).
                add(format!("{op}{sp}{n}.b128"));
                if n.is_empty() && !matches!(sp, ".const" | ".param") {
                    add(format!("{op}.weak{sp}.b128"));
                    add(format!("{op}.volatile{sp}.b128"));
                }
            }
            // Memory-order qualifiers are not allowed on .const, .param and .local (ptxas).
            if matches!(sp, ".const" | ".param" | ".local") {
                continue;
            }
            let sems: &[&str] = if op == "ld" {
                &["relaxed", "acquire"]
            } else {
                &["relaxed", "release"]
            };
            for sem in sems {
                for sc in ["cta", "gpu", "sys"] {
                    for vec in ["", ".v2", ".v4"] {
                        for t in mem_types {
                            // `.v4` of 64-bit elements is a 256-bit access (sm_100).
                            if vec == ".v4" && t.ends_with("64") {
                                continue;
                            }
                            add(format!("{op}.{sem}.{sc}{sp}{vec}.{t}"));
                        }
                    }
                    // 128-bit scalars: one 16-byte access, as a `.v2.b64` (see the lowering).
                    add(format!("{op}.{sem}.{sc}{sp}.b128"));
                }
            }
            // Memory-mapped I/O accesses: relaxed, system scope, global (§9.7.9.8-9).
            if matches!(sp, "" | ".global") {
                for t in mem_types {
                    add(format!("{op}.mmio.relaxed.sys{sp}.{t}"));
                }
            }
        }
    }
    for vec in ["", ".v2", ".v4"] {
        for t in mem_types {
            // At most 16 bytes.
            if vec == ".v4" && t.ends_with("64") {
                continue;
            }
            add(format!("ldu.global{vec}.{t}"));
        }
    }
    for sp in [
        ".global",
        ".shared",
        ".shared::cta",
        ".local",
        ".const",
        ".param",
    ] {
        for t in ["u32", "u64"] {
            add(format!("cvta{sp}.{t}"));
            add(format!("cvta.to{sp}.{t}"));
        }
    }
    // cvt (§9.7.9.21). `.sat` between integers where the source's range does not fit the
    // destination's; none from .bf16, which converts to 16 bits and wider only (ptxas).
    let bits = |t: &str| t[1..].parse::<u32>().unwrap_or(0);
    for d in all_ints8 {
        for s in all_ints8 {
            add(format!("cvt.{d}.{s}"));
            let fits = match (d.starts_with('s'), s.starts_with('s')) {
                (false, true) => false,
                (true, false) => bits(s) < bits(d),
                _ => bits(s) <= bits(d),
            };
            if !fits {
                add(format!("cvt.sat.{d}.{s}"));
            }
        }
        for s in ["f32", "f64", "f16", "bf16"] {
            for r in ["rni", "rzi", "rmi", "rpi"] {
                for sat in ["", ".sat"] {
                    if s == "bf16" && (!sat.is_empty() || d.ends_with('8')) {
                        continue;
                    }
                    add(format!("cvt.{r}{sat}.{d}.{s}"));
                    if s == "f32" {
                        add(format!("cvt.{r}.ftz{sat}.{d}.{s}"));
                    }
                }
            }
        }
        for f in ["f32", "f64"] {
            add(format!("cvt.rn.{f}.{d}"));
            // Directed rounding from 64-bit integers has no strict-FP lowering on AMDGPU.
            if d.ends_with("32") {
                for r in drnd {
                    add(format!("cvt.{r}.{f}.{d}"));
                }
            }
        }
        add(format!("cvt.rn.f16.{d}"));
    }
    for f in ["", ".ftz"] {
        for s in ["", ".sat"] {
            add(format!("cvt{f}{s}.f64.f32"));
            for r in rnds {
                add(format!("cvt.{r}{f}{s}.f32.f64"));
            }
            for r in ["rni", "rzi", "rmi", "rpi"] {
                add(format!("cvt.{r}{f}{s}.f32.f32"));
            }
            if !s.is_empty() {
                // cvt.sat.f32.f32: clamp to [0, 1] (§9.7.9.21).
                add(format!("cvt{f}{s}.f32.f32"));
            }
        }
    }
    for r in ["rni", "rzi", "rmi", "rpi"] {
        add(format!("cvt.{r}.f64.f64"));
    }
    // Directed rounding to half precision and from 64-bit integers (nearest, then one step;
    // see emit/cvt.rs `directed_fix`), f64 → half through f32 rounded to odd.
    for r in drnd {
        for s in ["s64", "u64"] {
            add(format!("cvt.{r}.f32.{s}"));
            add(format!("cvt.{r}.f64.{s}"));
        }
        for s in ["f32", "f64", "s32", "u32", "s16", "u16"] {
            add(format!("cvt.{r}.f16.{s}"));
        }
        for s in ["f32", "f64"] {
            add(format!("cvt.{r}.bf16.{s}"));
        }
    }
    add("cvt.rn.f16.f64".into());
    add("cvt.rn.bf16.f64".into());
    for h in ["f16x2", "bf16x2"] {
        add(format!("cvt.rz.{h}.f32"));
        add(format!("cvt.rz.relu.{h}.f32"));
    }
    for d in ["s8", "u8"] {
        add(format!("cvt.pack.sat.{d}.s32.b32"));
    }
    for d in ["s16", "u16"] {
        add(format!("cvt.pack.sat.{d}.s32"));
    }
    add("cvt.rna.tf32.f32".into());
    for h in ["f16", "bf16"] {
        add(format!("cvt.f32.{h}"));
        add(format!("cvt.f64.{h}"));
        add(format!("cvt.rn.{h}.f32"));
        add(format!("cvt.rn.relu.{h}.f32"));
        add(format!("cvt.rn.{h}x2.f32"));
        add(format!("cvt.rn.relu.{h}x2.f32"));
    }
    // Atomics (§9.7.13.5, §9.7.13.6).
    let mut atom_ops: Vec<String> = Vec::new();
    for op in ["and", "or", "xor"] {
        for t in ["b32", "b64"] {
            atom_ops.push(format!("{op}.{t}"));
        }
    }
    for t in ["u32", "s32", "u64", "f32", "f64"] {
        atom_ops.push(format!("add.{t}"));
    }
    for t in ["u32", "s32", "u64", "s64"] {
        atom_ops.push(format!("min.{t}"));
        atom_ops.push(format!("max.{t}"));
    }
    atom_ops.push("inc.u32".into());
    atom_ops.push("dec.u32".into());
    for sem in ["", ".relaxed", ".acquire", ".release", ".acq_rel"] {
        for sc in ["", ".cta", ".gpu", ".sys"] {
            for sp in ["", ".global", ".shared", ".shared::cta"] {
                for o in &atom_ops {
                    add(format!("atom{sem}{sc}{sp}.{o}"));
                    // red takes no acquire semantics.
                    if !matches!(sem, ".acquire" | ".acq_rel") {
                        add(format!("red{sem}{sc}{sp}.{o}"));
                    }
                }
                for t in ["b32", "b64"] {
                    add(format!("atom{sem}{sc}{sp}.exch.{t}"));
                    add(format!("atom{sem}{sc}{sp}.cas.{t}"));
                }
            }
        }
    }
    // nvcc also writes the state space before the scope (`atom.global.cta.add.f32`).
    for sc in [".cta", ".gpu", ".sys"] {
        for sp in [".global", ".shared", ".shared::cta"] {
            for o in &atom_ops {
                add(format!("atom{sp}{sc}.{o}"));
                add(format!("red{sp}{sc}.{o}"));
            }
            for t in ["b32", "b64"] {
                add(format!("atom{sp}{sc}.exch.{t}"));
                add(format!("atom{sp}{sc}.cas.{t}"));
            }
        }
    }
    // 16-bit compare-and-swap and half-precision adds (§9.7.13.5, PTX 6.3+ / sm_70+).
    for sc in ["", ".cta", ".gpu", ".sys"] {
        for sp in ["", ".global", ".shared", ".shared::cta"] {
            add(format!("atom{sc}{sp}.cas.b16"));
            for h in halves {
                add(format!("atom{sc}{sp}.add.noftz.{h}"));
                add(format!("red{sc}{sp}.add.noftz.{h}"));
            }
        }
    }
    // Synchronisation (§9.7.13) and control (§9.7.12).
    add("bar.red.popc.u32".into());
    add("bar.red.and.pred".into());
    add("bar.red.or.pred".into());
    for sc in ["cta", "gl", "sys"] {
        add(format!("membar.{sc}"));
    }
    for sem in ["sc", "acq_rel", "acquire", "release"] {
        for sc in ["cta", "gpu", "sys"] {
            add(format!("fence.{sem}.{sc}"));
        }
    }
    for f in [
        "bar.sync",
        "barrier.sync",
        "bar.arrive",
        "barrier.arrive",
        "bar.cta.sync",
        "bar.cta.arrive",
        "barrier.cta.sync",
        "barrier.cta.arrive",
        "bra",
        "ret",
        "exit",
        "call",
        "trap",
        "brkpt",
    ] {
        add(f.into());
    }
    add("brx.idx".into());
    for f in ["fractional", "range", "range.global", "cvt.L2"] {
        add(format!("createpolicy.{f}.b64"));
    }
    add("griddepcontrol.wait".into());
    add("griddepcontrol.launch_dependents".into());
    add("nanosleep.u32".into());
    add("pmevent".into());
    add("pmevent.mask".into());
    for sp in ["", ".global", ".local"] {
        for l in [".L1", ".L2"] {
            add(format!("prefetch{sp}{l}"));
        }
    }
    add("prefetchu.L1".into());
    // Warp-level instructions (§9.7.8; src/lower/emit/warp.rs, docs/warp-model.md).
    for m in ["up", "down", "bfly", "idx"] {
        add(format!("shfl.sync.{m}.b32"));
        add(format!("shfl.{m}.b32"));
    }
    for m in ["all.", "any.", ""] {
        // vote.uni: `form_of` drops `.uni`, so its form is `vote[.sync].pred`.
        add(format!("vote.sync.{m}pred"));
        add(format!("vote.{m}pred"));
    }
    add("vote.sync.ballot.b32".into());
    add("vote.ballot.b32".into());
    for m in ["any", "all"] {
        for t in ["b32", "b64"] {
            add(format!("match.{m}.sync.{t}"));
        }
    }
    for op in ["add", "min", "max"] {
        for t in ["u32", "s32"] {
            add(format!("redux.sync.{op}.{t}"));
        }
    }
    for op in ["and", "or", "xor"] {
        add(format!("redux.sync.{op}.b32"));
    }
    add("activemask.b32".into());
    add("bar.warp.sync".into());
    add("elect.sync".into());
    // Asynchronous copies and warp matrix loads/stores (§9.7.9.25, §9.7.14.5.15-17;
    // src/lower/emit/tensor_mem.rs, kernels-ir/tensor_mem.py). `.ca`/`.cg` and `.L2::*` are not part
    // of the form; nvcc/CUTLASS write `.x4.trans.m8n8`, the ISA `.m8n8.x4.trans`.
    for sp in ["shared", "shared::cta"] {
        add(format!("cp.async.{sp}.global"));
        for op in ["ldmatrix", "stmatrix"] {
            for x in ["x1", "x2", "x4"] {
                for tr in ["", ".trans"] {
                    add(format!("{op}.sync.m8n8.{x}{tr}.{sp}.b16"));
                    add(format!("{op}.sync.{x}{tr}.m8n8.{sp}.b16"));
                }
            }
        }
    }
    for f in ["commit_group", "wait_group", "wait_all"] {
        add(format!("cp.async.{f}"));
    }
    add("movmatrix.sync.m8n8.trans.b16".into());
    // Warp-level matrix multiply-accumulate (§9.7.14.5, §9.7.14.6; src/lower/emit/mma.rs).
    for t in ["f16", "bf16"] {
        for k in ["m16n8k8", "m16n8k16"] {
            add(format!("mma.sync.{k}.row.col.f32.{t}.{t}.f32"));
        }
        add(format!(
            "mma.sp::ordered_metadata.sync.m16n8k32.row.col.f32.{t}.{t}.f32"
        ));
    }
    // dp4a/dp2a and the video instructions (§9.7.1.23-24, §9.7.18; src/lower/emit/video.rs).
    for f in super::emit::video::forms() {
        add(f);
    }
    // Warp matrix load/store/multiply-accumulate, .f16 inputs (§9.7.14.4; src/lower/emit/wmma.rs).
    for shape in ["m16n16k16", "m32n8k16", "m8n32k16"] {
        for lay in ["row", "col"] {
            for sp in [".global", ".shared", ".shared::cta", ""] {
                for f in ["a", "b"] {
                    add(format!("wmma.load.{f}.sync.{lay}.{shape}{sp}.f16"));
                }
                for t in ["f16", "f32"] {
                    add(format!("wmma.load.c.sync.{lay}.{shape}{sp}.{t}"));
                    add(format!("wmma.store.d.sync.{lay}.{shape}{sp}.{t}"));
                }
            }
            for bl in ["row", "col"] {
                for dt in ["f16", "f32"] {
                    for ct in ["f16", "f32"] {
                        add(format!("wmma.mma.sync.{lay}.{bl}.{shape}.{dt}.{ct}"));
                    }
                }
            }
        }
    }
    // mbarrier and bulk asynchronous copies (§9.7.13.15, §9.7.9.25.4, §9.7.13.4;
    // src/lower/emit/mbarrier.rs, kernels-ir/mbarrier.py). Order: op, .expect_tx/.noComplete,
    // .sem, .scope, state space, .b64. `.shared::cluster` is the CTA's own (cluster size 1). A
    // semantics comes with a scope, and a scope with a semantics (ptxas).
    let cta_spaces = ["", ".shared", ".shared::cta"];
    let scopes = ["", ".cta", ".cluster"];
    for sp in cta_spaces {
        add(format!("mbarrier.init{sp}.b64"));
        add(format!("mbarrier.inval{sp}.b64"));
    }
    for op in ["arrive", "arrive_drop"] {
        for kind in ["", ".expect_tx"] {
            for sem in ["", ".release", ".relaxed"] {
                for sc in scopes {
                    if sem.is_empty() != sc.is_empty() {
                        continue;
                    }
                    for sp in ["", ".shared", ".shared::cta", ".shared::cluster"] {
                        add(format!("mbarrier.{op}{kind}{sem}{sc}{sp}.b64"));
                    }
                }
            }
        }
        for sem in ["", ".release"] {
            for sc in ["", ".cta"] {
                if sem.is_empty() != sc.is_empty() {
                    continue;
                }
                for sp in cta_spaces {
                    add(format!("mbarrier.{op}.noComplete{sem}{sc}{sp}.b64"));
                }
            }
        }
    }
    for op in ["expect_tx", "complete_tx"] {
        for sem in ["", ".relaxed"] {
            for sc in scopes {
                if sem.is_empty() != sc.is_empty() {
                    continue;
                }
                for sp in ["", ".shared", ".shared::cta", ".shared::cluster"] {
                    add(format!("mbarrier.{op}{sem}{sc}{sp}.b64"));
                }
            }
        }
    }
    for op in ["test_wait", "try_wait"] {
        for par in ["", ".parity"] {
            for sem in ["", ".acquire", ".relaxed"] {
                for sc in scopes {
                    if sem.is_empty() != sc.is_empty() {
                        continue;
                    }
                    for sp in cta_spaces {
                        add(format!("mbarrier.{op}{par}{sem}{sc}{sp}.b64"));
                    }
                }
            }
        }
    }
    // mma m8n8k4: .f16 quad-pairs with same-type accumulators and .f32.f16.f16.f16, .f64 (src/lower/emit/wmma.rs).
    for al in ["row", "col"] {
        for bl in ["row", "col"] {
            add(format!("mma.sync.m8n8k4.{al}.{bl}.f16.f16.f16.f16"));
            add(format!("mma.sync.m8n8k4.{al}.{bl}.f32.f16.f16.f32"));
            add(format!("mma.sync.m8n8k4.{al}.{bl}.f32.f16.f16.f16"));
        }
    }
    add("mma.sync.m8n8k4.row.col.f64.f64.f64.f64".into());
    add("mbarrier.pending_count.b64".into());
    for d in ["shared::cluster", "shared::cta"] {
        add(format!(
            "cp.async.bulk.{d}.global.mbarrier::complete_tx::bytes"
        ));
    }
    add("cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes".into());
    add("cp.async.bulk.global.shared::cta.bulk_group".into());
    add("cp.async.bulk.global.shared::cta.bulk_group.cp_mask".into());
    add("cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes.ignore_oob".into());
    // Cluster launch control and cluster barriers, the cluster being the CTA alone.
    for mc in ["", ".multicast::cluster::all"] {
        add(format!(
            "clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes{mc}.b128"
        ));
    }
    add("clusterlaunchcontrol.query_cancel.is_canceled.pred.b128".into());
    for d in ["::x", "::y", "::z"] {
        add(format!(
            "clusterlaunchcontrol.query_cancel.get_first_ctaid{d}.b32.b128"
        ));
    }
    add("clusterlaunchcontrol.query_cancel.get_first_ctaid.v4.b32.b128".into());
    for sem in ["", ".release", ".relaxed"] {
        for al in ["", ".aligned"] {
            add(format!("barrier.cluster.arrive{sem}{al}"));
        }
    }
    for sem in ["", ".acquire"] {
        for al in ["", ".aligned"] {
            add(format!("barrier.cluster.wait{sem}{al}"));
        }
    }
    add("cp.async.bulk.commit_group".into());
    add("cp.async.bulk.wait_group".into());
    add("cp.async.bulk.wait_group.read".into());
    add("cp.async.bulk.prefetch.L2.global".into());
    for sp in ["", ".global", ".shared::cta", ".shared::cluster"] {
        add(format!("fence.proxy.async{sp}"));
    }
    add("fence.mbarrier_init.release.cluster".into());
    let mut seen = std::collections::HashSet::new();
    v.retain(|s| seen.insert(s.clone()));
    v
}

/// The text of `kernels-ir/supported-forms.txt` for [`supported_forms`].
pub fn supported_forms_table() -> String {
    let mut s = String::from(
        "# Instruction forms the PTX lowering supports. Read by src/ptx/analysis.rs (include_str!).\n\
         #\n\
         # GENERATED from wheelport::lower::supported_forms (src/lower/forms.rs); regenerate with\n\
         # `WHEELPORT_BLESS=1 cargo test --lib lower::forms`. tests/lower_forms.rs lowers one\n\
         # instruction of every form listed here and builds it for gfx906 and sm_80.\n\
         #\n\
         # One form per line: the opcode followed by the modifiers that matter for lowering, as\n\
         # printed by `wheelport inspect --untranslatable` (see `wheelport::ptx::analysis::form_of`):\n\
         # cache operators and hints, .aligned, .uni are dropped. Forms are listed in the order nvcc\n\
         # writes them; a form matches in every order of its modifiers that ptxas leaves\n\
         # free (`wheelport::ptx::analysis::form_key`: types, state spaces and layouts keep theirs).\n",
    );
    for f in supported_forms() {
        s.push_str(&f);
        s.push('\n');
    }
    s
}

#[cfg(test)]
mod tests {
    #[test]
    fn table_file_matches_the_enumeration() {
        let want = super::supported_forms_table();
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/kernels-ir/supported-forms.txt"
        );
        if std::env::var_os("WHEELPORT_BLESS").is_some() {
            std::fs::write(path, &want).unwrap();
        }
        let got = std::fs::read_to_string(path).unwrap();
        assert!(
            got == want,
            "kernels-ir/supported-forms.txt is stale: run WHEELPORT_BLESS=1 cargo test --lib lower::forms"
        );
    }
}
