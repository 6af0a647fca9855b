//! Tensor-core and asynchronous-copy forms of sm_80 (Ampere): warp matrix multiply-accumulate
//! (`HMMA`, `HMMA.SP`, `DMMA`), matrix loads and transposes (`LDSM`, `MOVM`) and the
//! global-to-shared asynchronous copy with its group bookkeeping (`LDGSTS`, `LDGDEPBAR`,
//! `DEPBAR`).
//!
//! # Fragments
//!
//! A SASS matrix operand is a run of consecutive registers starting at the one printed
//! (`HMMA.16816.F32 R4, R8, R12, R16`: D = `R4..R7`, A = `R8..R11`, B = `R12, R13`,
//! C = `R16..R19`), and the registers hold the elements of PTX's fragment layout in PTX's
//! order (PTX ISA §9.7.14.5.x, the `mma.m16n8k*` fragment tables; ptxas assembles
//! `mma.sync` to one `HMMA` whose operands are the PTX vector's registers in order). So each
//! form becomes the PTX instruction on the same registers:
//!
//! * `HMMA.1688.F32[.BF16]` → `mma.sync.aligned.m16n8k8.row.col.f32.{f16,bf16}.{f16,bf16}.f32`
//!   (A 2 registers, B 1, C and D 4);
//! * `HMMA.16816.F32[.BF16]` → `mma.sync.aligned.m16n8k16.row.col.f32...f32` (A 4, B 2);
//! * `HMMA.SP.16832.F32[.BF16] d, a, b, c, e, f` →
//!   `mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.f32...f32 d, a, b, c, e, f`
//!   (A 4, B 4; `e` the metadata register, `f` the sparsity selector). ptxas assembles
//!   `mma.sp` and `mma.sp::ordered_metadata` to the same instruction word on sm_80, so the
//!   lifted form is the one whose metadata layout the ISA specifies today;
//! * `HMMA.1688.F16`, `HMMA.16816.F16` (f16 accumulators: C and D 2 registers, two halves
//!   each, low half first, in the element order of the f32 fragment): C widened exactly to
//!   f32, the f32-accumulator `mma` of the same shape, D rounded to nearest even once (what
//!   the PTX lowering's f16-accumulator products compute, `kernels-ir/wmma.py`; the ISA
//!   leaves the accumulation's order and rounding to the implementation);
//! * `DMMA.884` → `mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64` (A and B one register
//!   pair, C and D two).
//!
//! `RZ` as C is a zero accumulator. `LDSM.16.M88[.2|.4] d, [a]` is
//! `ldmatrix.sync.aligned.m8n8.x{1,2,4}.shared.b16` into `d..`, `.MT88` the `.trans` form;
//! `MOVM.16.MT88 d, a` is `movmatrix.sync.aligned.m8n8.trans.b16`.
//!
//! # Asynchronous copies
//!
//! `LDGSTS.E[.BYPASS][.LTC128B][.64|.128][.ZFILL] [s], [g.64][, P]` copies 4 (no size), 8 or
//! 16 bytes from global `g` to shared `s`: `cp.async.ca.shared.global` (`.BYPASS`: `.cg`,
//! which bypasses L1; `.LTC128B`: the `.L2::128B` prefetch hint). The predicate operand says
//! whether the source is read: false writes zeros (PTX's `ignore-src`, which ptxas assembles
//! to `!P`). `.ZFILL` is PTX's `src-size`: ptxas adds `(cp-size - src-size) mod cp-size` to
//! the (cp-size-aligned) source address and sets `P` to `src-size != 0`, so the low bits of
//! the address are the number of trailing bytes that are zero-filled; the lifted copy reads
//! from the address with those bits cleared, `src-size = P ? cp-size - low bits : 0`.
//! `LDGDEPBAR` closes a group (`cp.async.commit_group`), `DEPBAR.LE SB0, n` waits until at
//! most `n` groups are pending (`cp.async.wait_group n`); a list of other scoreboards after it
//! (`DEPBAR.LE SB0, 0x0, {4,3,2,1}`) adds nothing (the lifted loads complete in order).

use super::{check_mods, ops_len, Cx, Space, R};
use crate::sass::decode::{File, Instr, Operand, Reg};

/// Lift a tensor-core or asynchronous-copy form, or `None` when `i` is not one.
pub(super) fn instruction(cx: &mut Cx<'_>, i: &Instr) -> Option<R<()>> {
    Some(match i.opcode() {
        "HMMA" => hmma(cx, i),
        "DMMA" => dmma(cx, i),
        "LDSM" => ldsm(cx, i),
        "MOVM" => movm(cx, i),
        "LDGSTS" => ldgsts(cx, i),
        "LDGDEPBAR" => check_mods(i, &[]).and_then(|()| {
            ops_len(i, 0)?;
            cx.line("cp.async.commit_group");
            Ok(())
        }),
        "DEPBAR" => depbar(cx, i),
        _ => return None,
    })
}

/// The `n` general registers starting at `op`'s (a plain register; `.reuse` allowed).
fn run_of(op: &Operand, n: u8) -> R<Option<Vec<String>>> {
    let r = op
        .plain_reg()
        .filter(|r| r.file == File::R)
        .ok_or_else(|| format!("fragment operand {op:?}"))?;
    if r.is_zero() {
        return Ok(None);
    }
    if u32::from(r.idx) + u32::from(n) > 255 {
        return Err(format!("fragment of {n} registers starting at {r}"));
    }
    Ok(Some(
        (0..n)
            .map(|k| {
                Cx::reg_name(Reg {
                    file: r.file,
                    idx: r.idx + k,
                })
                .unwrap_or_default()
            })
            .collect(),
    ))
}

/// The source registers of an `n`-register fragment (`RZ`: `n` zeros).
fn frag_src(cx: &mut Cx<'_>, op: &Operand, n: u8) -> R<Vec<String>> {
    match run_of(op, n)? {
        Some(v) => Ok(v),
        None => {
            let z = cx.t32();
            cx.line(format!("mov.b32 {z}, 0"));
            Ok(vec![z; usize::from(n)])
        }
    }
}

/// The destination registers of an `n`-register fragment (`RZ`: temporaries).
fn frag_dst(cx: &mut Cx<'_>, op: &Operand, n: u8) -> R<Vec<String>> {
    match run_of(op, n)? {
        Some(v) => Ok(v),
        None => Ok((0..n).map(|_| cx.t32()).collect()),
    }
}

fn vec_of(v: &[String]) -> String {
    format!("{{{}}}", v.join(", "))
}

/// `HMMA[.SP].shape.acc[.BF16] d, a, b, c[, e, f]` (see the module docs).
fn hmma(cx: &mut Cx<'_>, i: &Instr) -> R<()> {
    let mods: Vec<&str> = i.modifiers().collect();
    let (sparse, rest) = match mods.as_slice() {
        ["SP", rest @ ..] => (true, rest),
        rest => (false, rest),
    };
    let (shape, acc, input) = match rest {
        [s, a] => (*s, *a, "F16"),
        [s, a, t] => (*s, *a, *t),
        _ => return Err(format!("HMMA modifiers {mods:?}")),
    };
    let ty = match input {
        "F16" => "f16",
        "BF16" => "bf16",
        t => return Err(format!("HMMA input type .{t}")),
    };
    let (ptx_shape, na, nb) = match (sparse, shape) {
        (false, "1688") => ("m16n8k8", 2, 1),
        (false, "16816") => ("m16n8k16", 4, 2),
        (true, "16832") => ("m16n8k32", 4, 4),
        (sp, s) => {
            return Err(format!(
                "HMMA shape .{s}{}",
                if sp { " (sparse)" } else { "" }
            ))
        }
    };
    let f16_acc = match acc {
        "F32" => false,
        "F16" if ty == "f16" => true,
        a => return Err(format!("HMMA accumulator .{a} with .{input} inputs")),
    };
    ops_len(i, if sparse { 6 } else { 4 })?;
    let o = &i.operands;
    let a = frag_src(cx, &o[1], na)?;
    let b = frag_src(cx, &o[2], nb)?;
    let (c, d_f32) = if f16_acc {
        // f16 C: two registers of two halves each (low half first), widened exactly.
        let c16 = frag_src(cx, &o[3], 2)?;
        let mut c = Vec::new();
        for r in &c16 {
            let (lo, hi) = (cx.t16(), cx.t16());
            cx.line(format!("mov.b32 {{{lo}, {hi}}}, {r}"));
            for h in [lo, hi] {
                let f = cx.t32();
                cx.line(format!("cvt.f32.f16 {f}, {h}"));
                c.push(f);
            }
        }
        let d: Vec<String> = (0..4).map(|_| cx.t32()).collect();
        (c, Some(d))
    } else {
        (frag_src(cx, &o[3], 4)?, None)
    };
    let sp = if sparse {
        let e = cx.src(&o[4])?;
        let Operand::Imm(f @ (0 | 1)) = o[5] else {
            return Err(format!("sparsity selector {:?} (0 or 1)", o[5]));
        };
        format!(", {e}, {f}")
    } else {
        String::new()
    };
    let d = match &d_f32 {
        Some(d) => d.clone(),
        None => frag_dst(cx, &o[0], 4)?,
    };
    let head = if sparse {
        "mma.sp::ordered_metadata"
    } else {
        "mma"
    };
    cx.line(format!(
        "{head}.sync.aligned.{ptx_shape}.row.col.f32.{ty}.{ty}.f32 {}, {}, {}, {}{sp}",
        vec_of(&d),
        vec_of(&a),
        vec_of(&b),
        vec_of(&c)
    ));
    if let Some(d) = d_f32 {
        // D rounded to f16 once, packed two halves a register (low half first).
        let out = frag_dst(cx, &o[0], 2)?;
        for (k, r) in out.iter().enumerate() {
            let (lo, hi) = (cx.t16(), cx.t16());
            cx.line(format!("cvt.rn.f16.f32 {lo}, {}", d[2 * k]));
            cx.line(format!("cvt.rn.f16.f32 {hi}, {}", d[2 * k + 1]));
            cx.line(format!("mov.b32 {r}, {{{lo}, {hi}}}"));
        }
    }
    Ok(())
}

/// The `n` 64-bit values of the register pairs starting at `op` (`RZ`: zeros), as `.b64`
/// temporaries.
fn pairs_src(cx: &mut Cx<'_>, op: &Operand, n: u8) -> R<Vec<String>> {
    let regs = frag_src(cx, op, 2 * n)?;
    Ok(regs
        .chunks(2)
        .map(|p| {
            let t = cx.t64();
            cx.line(format!("mov.b64 {t}, {{{}, {}}}", p[0], p[1]));
            t
        })
        .collect())
}

/// `DMMA.884 d, a, b, c`: `mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64` (A and B one
/// register pair, C and D two).
fn dmma(cx: &mut Cx<'_>, i: &Instr) -> R<()> {
    check_mods(i, &["884"])?;
    if !i.has("884") {
        return Err("DMMA shape".into());
    }
    ops_len(i, 4)?;
    let o = &i.operands;
    let a = pairs_src(cx, &o[1], 1)?;
    let b = pairs_src(cx, &o[2], 1)?;
    let c = pairs_src(cx, &o[3], 2)?;
    let d: Vec<String> = (0..2).map(|_| cx.t64()).collect();
    cx.line(format!(
        "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {}, {}, {}, {}",
        vec_of(&d),
        vec_of(&a),
        vec_of(&b),
        vec_of(&c)
    ));
    let out = frag_dst(cx, &o[0], 4)?;
    for (k, t) in d.iter().enumerate() {
        cx.line(format!(
            "mov.b64 {{{}, {}}}, {t}",
            out[2 * k],
            out[2 * k + 1]
        ));
    }
    Ok(())
}

/// `LDSM.16.M88[.2|.4] d, [a]` / `LDSM.16.MT88[.2|.4]`: `ldmatrix.sync.aligned.m8n8.x{1,2,4}
/// [.trans].shared.b16` into `d` and the registers after it.
fn ldsm(cx: &mut Cx<'_>, i: &Instr) -> R<()> {
    let mods: Vec<&str> = i.modifiers().collect();
    let (trans, n) = match mods.as_slice() {
        ["16", m @ ("M88" | "MT88"), rest @ ..] => (
            *m == "MT88",
            match rest {
                [] => 1,
                ["2"] => 2,
                ["4"] => 4,
                _ => return Err(format!("LDSM modifiers {mods:?}")),
            },
        ),
        _ => return Err(format!("LDSM modifiers {mods:?}")),
    };
    ops_len(i, 2)?;
    let Operand::Mem(m) = &i.operands[1] else {
        return Err(format!("address {:?}", i.operands[1]));
    };
    let addr = cx.address(m, Space::Shared)?;
    let d = frag_dst(cx, &i.operands[0], n)?;
    cx.line(format!(
        "ldmatrix.sync.aligned.m8n8.x{n}{}.shared.b16 {}, {addr}",
        if trans { ".trans" } else { "" },
        vec_of(&d)
    ));
    Ok(())
}

/// `MOVM.16.MT88 d, a`: `movmatrix.sync.aligned.m8n8.trans.b16 d, a`.
fn movm(cx: &mut Cx<'_>, i: &Instr) -> R<()> {
    if i.modifiers().collect::<Vec<_>>() != ["16", "MT88"] {
        return Err(format!("MOVM modifiers of {}", i.form));
    }
    ops_len(i, 2)?;
    let a = cx.src(&i.operands[1])?;
    let d = cx.dst(&i.operands[0])?;
    cx.line(format!("movmatrix.sync.aligned.m8n8.trans.b16 {d}, {a}"));
    Ok(())
}

/// `LDGSTS.E[.BYPASS][.LTC128B][.64|.128][.ZFILL] [s], [g][, P]` (see the module docs).
fn ldgsts(cx: &mut Cx<'_>, i: &Instr) -> R<()> {
    check_mods(i, &["E", "BYPASS", "LTC128B", "64", "128", "ZFILL"])?;
    if !i.has("E") {
        return Err("LDGSTS without .E (a 32-bit global address)".into());
    }
    let n: u32 = if i.has("128") {
        16
    } else if i.has("64") {
        8
    } else {
        4
    };
    let cop = if i.has("BYPASS") { "cg" } else { "ca" };
    if cop == "cg" && n != 16 {
        return Err(format!(
            "LDGSTS.BYPASS of {n} bytes (cp.async.cg copies 16)"
        ));
    }
    let hint = if i.has("LTC128B") { ".L2::128B" } else { "" };
    let o = &i.operands;
    let pred = match o.len() {
        2 => None,
        3 => match &o[2] {
            Operand::Pred(r, false) if r.is_true() => None,
            p @ Operand::Pred(..) => Some(p),
            p => return Err(format!("LDGSTS predicate {p:?}")),
        },
        k => return Err(format!("{k} operands (expected 2 or 3)")),
    };
    let (Operand::Mem(s), Operand::Mem(g)) = (&o[0], &o[1]) else {
        return Err(format!("LDGSTS addresses {:?}, {:?}", o[0], o[1]));
    };
    if g.desc.is_some() {
        return Err("LDGSTS with a memory descriptor".into());
    }
    let sa = cx.address(s, Space::Shared)?;
    let ga = cx.address(g, Space::Global)?;
    let head = format!("cp.async.{cop}.shared.global{hint}");
    if !i.has("ZFILL") {
        match pred {
            None => cx.line(format!("{head} {sa}, {ga}, {n}")),
            Some(p) => {
                let p = cx.psrc(p)?;
                let size = cx.t32();
                cx.line(format!("selp.u32 {size}, {n}, 0, {p}"));
                cx.line(format!("{head} {sa}, {ga}, {n}, {size}"));
            }
        }
        return Ok(());
    }
    // The source address without its low bits, the count of bytes read from it.
    let full = cx.t64();
    let inner = ga.trim_start_matches('[').trim_end_matches(']');
    match inner.split_once('+') {
        Some((b, off)) => cx.line(format!("add.u64 {full}, {b}, {off}")),
        None => cx.line(format!("mov.b64 {full}, {inner}")),
    }
    let lo = cx.t32();
    cx.line(format!("cvt.u32.u64 {lo}, {full}"));
    let k = cx.t32();
    cx.line(format!("and.b32 {k}, {lo}, {}", n - 1));
    let size = cx.t32();
    cx.line(format!("sub.u32 {size}, {n}, {k}"));
    if let Some(p) = pred {
        let p = cx.psrc(p)?;
        cx.line(format!("selp.u32 {size}, {size}, 0, {p}"));
    }
    let base = cx.t64();
    cx.line(format!(
        "and.b64 {base}, {full}, {}",
        !u64::from(n - 1) as i64
    ));
    cx.line(format!("{head} {sa}, [{base}], {n}, {size}"));
    Ok(())
}

/// `DEPBAR.LE SB0, n`: `cp.async.wait_group n` (scoreboard 0 counts the `LDGDEPBAR` groups).
fn depbar(cx: &mut Cx<'_>, i: &Instr) -> R<()> {
    check_mods(i, &["LE"])?;
    if !i.has("LE") {
        return Err("DEPBAR without .LE".into());
    }
    // `{4,3,2,1}`: scoreboards of other variable-latency instructions to wait for as well;
    // every lifted instruction but `cp.async` completes in program order, so only SB0's
    // count means anything.
    let scoreboards = |o: &Operand| match o {
        Operand::Other(l) => l
            .strip_prefix('{')
            .and_then(|l| l.strip_suffix('}'))
            .is_some_and(|l| {
                l.split(',')
                    .all(|d| d.trim().parse::<u8>().is_ok_and(|d| d < 6))
            }),
        _ => false,
    };
    match i.operands.as_slice() {
        [Operand::Other(sb), Operand::Imm(n), rest @ ..]
            if &**sb == "SB0"
                && (0..=7).contains(n)
                && (rest.is_empty() || matches!(rest, [l] if scoreboards(l))) =>
        {
            cx.line(format!("cp.async.wait_group {n}"));
            Ok(())
        }
        o => Err(format!(
            "DEPBAR operands {o:?} (only SB0, a count, other scoreboards)"
        )),
    }
}
