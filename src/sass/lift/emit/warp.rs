//! Warp-collective, bit-manipulation and subroutine forms.
//!
//! # Member masks
//!
//! SASS collectives (`SHFL`, `VOTE`, `MATCH`, `REDUX`) have no member mask: they act on
//! the threads that execute them together. ptxas puts a `WARPSYNC mask` before a collective
//! whose threads may not be the whole converged warp (the `__shfl_sync` slow-path
//! subroutines, `WARPSYNC.EXCLUSIVE` before a `REDUX` of part of a warp). The lifted PTX keeps
//! that mask in `%wm` (all ones at entry): a `WARPSYNC` sets it, the next collective uses
//! `%wm & activemask` as its PTX member mask and sets `%wm` back to all ones.
//!
//! # Subroutines
//!
//! `CALL.REL.NOINC target` after `MOV Rr, <return offset>` and `RET.REL.NODEC Rr`: the call
//! is a branch to the subroutine's label; the return compares `Rr` with the return offset of
//! every call of the function (the instruction after each `CALL.REL`) and branches there.
//! `CALL.REL.NOINC Rt` (a call through a device-function pointer: `Rt` holds the callee's
//! offset in the function, which ptxas reads from the kernel's bank-2 table) compares `Rt`
//! with every subroutine entry and branches there (no entry: `trap`).
//!
//! # External calls
//!
//! `CALL.ABS.NOINC Rt` calls a function outside the cubin (`vprintf`, `__assertfail`), whose
//! address ptxas loads into `Rt` from a relocated bank-4 word (`lift/mod.rs`,
//! `external_calls`). It is lifted to a PTX `call` of that function with the signature of
//! `src/sass/externs.tsv`: the parameters from R4 upward (a 64-bit one in the next even-odd
//! pair), the result into R4 (R4:R5). The callee returns to the address in R20:R21, which the
//! code before the call computes from `LEPC` (sm_80: the `LEPC`'s own address plus the
//! distance to the return site; sm_90: `LEPC R20, target`, the return site itself): `LEPC`
//! is lifted to the function-relative offset it denotes, and after the call the lifted code
//! checks that R20:R21 is the offset of the instruction after the call (`trap` otherwise; the
//! values are constants, so the check folds away).
//!
//! # Convergence barriers
//!
//! Under independent thread scheduling a warp that diverged stays diverged until a `BSYNC`
//! reunites the threads a `BSSY` recorded; ptxas relies on that for every collective after a
//! branch (CUB's match-by-vote ranking counts the threads of a digit with one `VOTE`, and
//! gets partial counts from a warp split in two). PTX has no convergence barrier, and the
//! PTX compiler only reconverges where its own structure says so, so in a function holding a
//! warp-synchronous form (`VOTE`, `SHFL`, `MATCH`, `REDUX`, `WARPSYNC`, the matrix and
//! `LDSM`/`STSM`/`MOVM` forms) the barriers are kept in `%b0`..`%b15`:
//! `BSSY Bn` records the active threads (`activemask`), `BSYNC Bn` waits for them
//! (`bar.warp.sync`, skipped when the thread left the barrier), `BREAK Bn` takes the thread
//! out (it arrives at the barrier where it leaves, so the threads still inside are not kept
//! waiting on it), and `BMOV` moves the recorded mask to and from a register (ptxas saves
//! and restores them around calls: `BMOV.32.CLEAR R, B6` ... `BMOV.32 B6, R`). Elsewhere the
//! barriers have no effect on results: a save writes 0 and a restore does nothing.

use super::{check_mods, ops_len, Cx, R};
use crate::sass::decode::{Instr, Operand};

/// Lift a warp, bit or subroutine form, or `None` when `i` is not one.
pub(super) fn instruction(cx: &mut Cx<'_>, i: &Instr) -> Option<R<()>> {
    Some(match i.opcode() {
        "SHFL" => shfl(cx, i),
        "VOTE" | "VOTEU" => vote(cx, i),
        "MATCH" => match_(cx, i),
        "REDUX" => redux(cx, i),
        "WARPSYNC" => warpsync(cx, i),
        "POPC" => unary(cx, i, &[], "popc.b32"),
        "BREV" | "UBREV" => unary(cx, i, &[], "brev.b32"),
        "FLO" | "UFLO" => flo(cx, i),
        "SGXT" => sgxt(cx, i),
        "BMSK" => bmsk(cx, i),
        "I2I" => i2i(cx, i),
        "I2IP" => i2ip(cx, i),
        "P2R" => p2r(cx, i, false),
        "UP2UR" => p2r(cx, i, true),
        "R2P" => r2p(cx, i),
        "CALL" => call(cx, i),
        "RET" => ret(cx, i),
        "LEPC" => lepc(cx, i),
        "BMOV" => bmov(cx, i),
        // A scheduling hint: no effect on results.
        "YIELD" => check_mods(i, &[]),
        // A suspension of at most the operand's nanoseconds (CUB's look-back back-off).
        "NANOSLEEP" => check_mods(i, &[]).and_then(|()| match i.operands.as_slice() {
            [op] => {
                let v = cx.src(op)?;
                cx.line(format!("nanosleep.u32 {v}"));
                Ok(())
            }
            o => Err(format!("NANOSLEEP operands {o:?}")),
        }),
        "BSSY" => bssy(cx, i),
        "BSYNC" => bsync(cx, i),
        "BREAK" => brk(cx, i),
        _ => return None,
    })
}

impl Cx<'_> {
    /// The PTX member mask of the next collective (see the module docs); resets `%wm`.
    fn member_mask(&mut self) -> String {
        self.uses_wm = true;
        let t = self.t32();
        self.line(format!("activemask.b32 {t}"));
        self.line(format!("and.b32 {t}, {t}, %wm"));
        self.line("mov.b32 %wm, 0xffffffff");
        t
    }
}

fn is_pt(o: &Operand) -> bool {
    matches!(o, Operand::Pred(r, false) if r.is_true())
}

/// `SHFL.mode Pd, d, a, b, c`: `shfl.sync.mode.b32 d|Pd, a, b, c` (`c`: the packed
/// clamp/segment value, as in PTX).
fn shfl(cx: &mut Cx<'_>, i: &Instr) -> R<()> {
    let mode = match i.modifiers().collect::<Vec<_>>().as_slice() {
        ["IDX"] => "idx",
        ["UP"] => "up",
        ["DOWN"] => "down",
        ["BFLY"] => "bfly",
        m => return Err(format!("SHFL modifiers {m:?}")),
    };
    ops_len(i, 5)?;
    let o = &i.operands;
    let a = cx.src(&o[2])?;
    let b = cx.src(&o[3])?;
    let c = cx.src(&o[4])?;
    let m = cx.member_mask();
    let d = cx.dst(&o[1])?;
    if is_pt(&o[0]) {
        cx.line(format!("shfl.sync.{mode}.b32 {d}, {a}, {b}, {c}, {m}"));
    } else {
        let p = cx.pdst(&o[0])?;
        cx.line(format!("shfl.sync.{mode}.b32 {d}|{p}, {a}, {b}, {c}, {m}"));
    }
    Ok(())
}

/// `VOTE.ANY|ALL [d,] Pd, Pa` (and `VOTEU`, uniform destinations): `d` = the ballot of
/// `Pa`, `Pd` = any/all of `Pa` over the threads executing it.
fn vote(cx: &mut Cx<'_>, i: &Instr) -> R<()> {
    let mode = match i.modifiers().collect::<Vec<_>>().as_slice() {
        ["ANY"] => "any",
        ["ALL"] => "all",
        m => return Err(format!("VOTE modifiers {m:?}")),
    };
    let o = &i.operands;
    let (d, pd, pa) = match o.as_slice() {
        [d @ Operand::Reg(..), pd, pa] => (Some(d), pd, pa),
        [pd @ Operand::Pred(..), pa] => (None, pd, pa),
        o => return Err(format!("VOTE operands {o:?}")),
    };
    let a = cx.psrc(pa)?;
    let m = cx.member_mask();
    if let Some(d) = d {
        let d = cx.dst(d)?;
        cx.line(format!("vote.sync.ballot.b32 {d}, {a}, {m}"));
    }
    if !is_pt(pd) {
        let p = cx.pdst(pd)?;
        cx.line(format!("vote.sync.{mode}.pred {p}, {a}, {m}"));
    }
    Ok(())
}

/// `MATCH.ANY[.U64] d, a` / `MATCH.ALL[.U64] [Pd,] d, a`: `match.sync`.
fn match_(cx: &mut Cx<'_>, i: &Instr) -> R<()> {
    check_mods(i, &["ANY", "ALL", "U64", "U32"])?;
    let all = i.has("ALL");
    if all == i.has("ANY") {
        return Err("MATCH without one of .ANY/.ALL".into());
    }
    let o = &i.operands;
    let (pd, d, a) = match o.as_slice() {
        [pd @ Operand::Pred(..), d, a] => (Some(pd), d, a),
        [d, a] => (None, d, a),
        o => return Err(format!("MATCH operands {o:?}")),
    };
    let (ty, v) = if i.has("U64") {
        ("b64", cx.src64(a)?)
    } else {
        ("b32", cx.src(a)?)
    };
    let m = cx.member_mask();
    let d = cx.dst(d)?;
    let mode = if all { "all" } else { "any" };
    match pd {
        Some(p) if !is_pt(p) => {
            let p = cx.pdst(p)?;
            cx.line(format!("match.{mode}.sync.{ty} {d}|{p}, {v}, {m}"));
        }
        _ if all => {
            let p = cx.tp();
            cx.line(format!("match.all.sync.{ty} {d}|{p}, {v}, {m}"));
        }
        _ => cx.line(format!("match.any.sync.{ty} {d}, {v}, {m}")),
    }
    Ok(())
}

/// `REDUX[.op][.S32] d, a`: `redux.sync` (no op: `AND`; `SUM`, `MIN`, `MAX` unsigned unless
/// `.S32`).
fn redux(cx: &mut Cx<'_>, i: &Instr) -> R<()> {
    check_mods(i, &["AND", "OR", "XOR", "SUM", "MIN", "MAX", "S32", "U32"])?;
    ops_len(i, 2)?;
    let ty = if i.has("S32") { "s32" } else { "u32" };
    let op = if i.has("OR") {
        "or.b32".to_string()
    } else if i.has("XOR") {
        "xor.b32".to_string()
    } else if i.has("SUM") {
        format!("add.{ty}")
    } else if i.has("MIN") {
        format!("min.{ty}")
    } else if i.has("MAX") {
        format!("max.{ty}")
    } else {
        "and.b32".to_string()
    };
    let a = cx.src(&i.operands[1])?;
    let m = cx.member_mask();
    let d = cx.dst(&i.operands[0])?;
    cx.line(format!("redux.sync.{op} {d}, {a}, {m}"));
    Ok(())
}

/// `WARPSYNC[.EXCLUSIVE] mask`: `bar.warp.sync mask`, and the mask of the next collective;
/// `WARPSYNC.ALL` (sm_90 prints it without an operand): the whole warp.
fn warpsync(cx: &mut Cx<'_>, i: &Instr) -> R<()> {
    check_mods(i, &["EXCLUSIVE", "ALL"])?;
    if !(i.has("ALL") && i.operands.is_empty()) {
        ops_len(i, 1)?;
    }
    let m = if i.has("ALL") {
        "0xffffffff".to_string()
    } else {
        cx.src(&i.operands[0])?
    };
    cx.uses_wm = true;
    cx.line(format!("bar.warp.sync {m}"));
    cx.line(format!("mov.b32 %wm, {m}"));
    Ok(())
}

fn unary(cx: &mut Cx<'_>, i: &Instr, mods: &[&str], op: &str) -> R<()> {
    check_mods(i, mods)?;
    ops_len(i, 2)?;
    let a = cx.src(&i.operands[1])?;
    let d = cx.dst(&i.operands[0])?;
    cx.line(format!("{op} {d}, {a}"));
    Ok(())
}

/// `FLO[.U32][.SH] d, a`: `bfind[.shiftamt].u32|s32` (0xffffffff when none).
fn flo(cx: &mut Cx<'_>, i: &Instr) -> R<()> {
    check_mods(i, &["U32", "S32", "SH"])?;
    let ty = if i.has("U32") { "u32" } else { "s32" };
    let sh = if i.has("SH") { ".shiftamt" } else { "" };
    let op = format!("bfind{sh}.{ty}");
    match i.operands.len() {
        2 => unary(cx, i, &["U32", "S32", "SH"], &op),
        // `FLO.U32 Pd?, d, a` is not printed by nvdisasm 13.5; refuse other shapes.
        n => Err(format!("{n} operands")),
    }
}

/// `SGXT[.U32][.W] d, a, b`: sign- (zero-, `.U32`) extend the low `b` bits of `a`
/// (`szext.clamp|wrap`).
fn sgxt(cx: &mut Cx<'_>, i: &Instr) -> R<()> {
    check_mods(i, &["U32", "W"])?;
    ops_len(i, 3)?;
    let a = cx.src(&i.operands[1])?;
    let b = cx.src(&i.operands[2])?;
    let d = cx.dst(&i.operands[0])?;
    let mode = if i.has("W") { "wrap" } else { "clamp" };
    let ty = if i.has("U32") { "u32" } else { "s32" };
    cx.line(format!("szext.{mode}.{ty} {d}, {a}, {b}"));
    Ok(())
}

/// `BMSK[.W] d, a, b`: `b` ones from bit `a` (`bmsk.clamp|wrap.b32`).
fn bmsk(cx: &mut Cx<'_>, i: &Instr) -> R<()> {
    check_mods(i, &["W"])?;
    ops_len(i, 3)?;
    let a = cx.src(&i.operands[1])?;
    let b = cx.src(&i.operands[2])?;
    let d = cx.dst(&i.operands[0])?;
    let mode = if i.has("W") { "wrap" } else { "clamp" };
    cx.line(format!("bmsk.{mode}.b32 {d}, {a}, {b}"));
    Ok(())
}

/// `I2I.dst.S32.SAT d, a`: a 32-bit integer clamped to the range of an 8- or 16-bit type,
/// written extended (signed types sign-extended).
fn i2i(cx: &mut Cx<'_>, i: &Instr) -> R<()> {
    check_mods(i, &["U8", "S8", "U16", "S16", "S32", "SAT"])?;
    if !i.has("SAT") || !i.has("S32") {
        return Err("I2I other than .S32.SAT to an 8/16-bit type".into());
    }
    ops_len(i, 2)?;
    let (lo, hi) = if i.has("U8") {
        (0i64, 255i64)
    } else if i.has("S8") {
        (-128, 127)
    } else if i.has("U16") {
        (0, 65535)
    } else if i.has("S16") {
        (-32768, 32767)
    } else {
        return Err("I2I without a destination type".into());
    };
    let a = cx.src(&i.operands[1])?;
    let t = cx.t32();
    cx.line(format!("max.s32 {t}, {a}, {lo}"));
    let d = cx.dst(&i.operands[0])?;
    cx.line(format!("min.s32 {d}, {t}, {hi}"));
    Ok(())
}

/// `I2IP.S8|U8.S32.SAT d, a, b, c`: `a` and `b` saturated to bytes, packed above the low
/// half-word of `c` (`d = c[15:0] << 16 | sat(a) << 8 | sat(b)`); `I2IP.S16|U16.S32.SAT d, a,
/// b, RZ`: `d = sat(a) << 16 | sat(b)`. PTX's `cvt.pack.sat` (ptxas 13.5 assembles
/// `cvt.pack.sat.s8.s32.b32 d, a, b, c` to `I2IP.S8.S32.SAT d, a, b, c`, `k_cvt_pack`).
fn i2ip(cx: &mut Cx<'_>, i: &Instr) -> R<()> {
    check_mods(i, &["U8", "S8", "U16", "S16", "S32", "SAT"])?;
    if !i.has("SAT") || !i.has("S32") {
        return Err("I2IP other than .S32.SAT".into());
    }
    ops_len(i, 4)?;
    let ty = ["U8", "S8", "U16", "S16"]
        .into_iter()
        .find(|m| i.has(m))
        .ok_or("I2IP without a destination type")?
        .to_ascii_lowercase();
    let a = cx.src(&i.operands[1])?;
    let b = cx.src(&i.operands[2])?;
    if ty.ends_with('8') {
        let c = cx.src(&i.operands[3])?;
        let d = cx.dst(&i.operands[0])?;
        cx.line(format!("cvt.pack.sat.{ty}.s32.b32 {d}, {a}, {b}, {c}"));
    } else {
        if !i.operands[3].plain_reg().is_some_and(|r| r.is_zero()) {
            return Err("I2IP to 16 bits with a third operand other than RZ".into());
        }
        let d = cx.dst(&i.operands[0])?;
        cx.line(format!("cvt.pack.sat.{ty}.s32 {d}, {a}, {b}"));
    }
    Ok(())
}

/// The predicate registers `P0..P6` as PTX names.
fn preds() -> impl Iterator<Item = (u32, String)> {
    (0..7).map(|k| (k, format!("%p{k}")))
}

/// `P2R d, PR, a, mask`: `d = (a & ~mask) | (P0..P6 as bits & mask)`; `UP2UR d, UPR, a,
/// mask` (`uniform`) the same with the uniform predicates `UP0..UP6` and registers.
fn p2r(cx: &mut Cx<'_>, i: &Instr, uniform: bool) -> R<()> {
    check_mods(i, &[])?;
    ops_len(i, 4)?;
    let pr = if uniform { "UPR" } else { "PR" };
    if i.operands[1] != Operand::Other(pr.into()) {
        return Err(format!("{} source {:?}", i.opcode(), i.operands[1]));
    }
    let Operand::Imm(mask) = i.operands[3] else {
        return Err(format!("{} mask not an immediate", i.opcode()));
    };
    let a = cx.src(&i.operands[2])?;
    let acc = cx.t32();
    cx.line(format!("and.b32 {acc}, {a}, {}", !(mask as u32)));
    let names = preds().map(|(k, p)| (k, if uniform { format!("%q{k}") } else { p }));
    for (k, p) in names {
        if mask & (1 << k) != 0 {
            let b = cx.t32();
            cx.line(format!("selp.b32 {b}, {}, 0, {p}", 1u32 << k));
            cx.line(format!("or.b32 {acc}, {acc}, {b}"));
        }
    }
    let d = cx.dst(&i.operands[0])?;
    cx.line(format!("mov.b32 {d}, {acc}"));
    Ok(())
}

/// `R2P PR, a, mask`: `Pk = bit k of a` for every bit k of `mask` (k < 7).
fn r2p(cx: &mut Cx<'_>, i: &Instr) -> R<()> {
    check_mods(i, &[])?;
    ops_len(i, 3)?;
    if i.operands[0] != Operand::Other("PR".into()) {
        return Err(format!("R2P destination {:?}", i.operands[0]));
    }
    let Operand::Imm(mask) = i.operands[2] else {
        return Err("R2P mask not an immediate".into());
    };
    let a = cx.src(&i.operands[1])?;
    for (k, p) in preds() {
        if mask & (1 << k) != 0 {
            let t = cx.t32();
            cx.line(format!("and.b32 {t}, {a}, {}", 1u32 << k));
            cx.line(format!("setp.ne.u32 {p}, {t}, 0"));
        }
    }
    Ok(())
}

/// `CALL.REL.NOINC target`: a branch to the subroutine (its return offset was written to a
/// register by the instruction before); `CALL.REL.NOINC Rt`: a branch to the subroutine entry
/// `Rt` holds; `CALL.ABS.NOINC Rt`: a call of an external function (see the module docs).
fn call(cx: &mut Cx<'_>, i: &Instr) -> R<()> {
    check_mods(i, &["REL", "ABS", "NOINC"])?;
    if i.has("ABS") {
        return call_external(cx, i);
    }
    if !i.has("REL") {
        return Err("CALL without .REL or .ABS".into());
    }
    let parsed;
    let r = match i.operands.as_slice() {
        [Operand::Target(t)] => {
            cx.line(format!("bra $L_{t:x}"));
            return Ok(());
        }
        [r @ Operand::Reg(..)] | [r @ Operand::Reg(..), Operand::Symbol(_)] => r,
        // nvdisasm prints `CALL.REL.NOINC R8 `(kernel)`: the register, relative to the function.
        [Operand::Other(t)] => match t.split_once(' ') {
            Some((reg, f)) if f.trim_start().starts_with("`(") => {
                parsed = crate::sass::decode::operand::parse_operand(reg, &mut |_| None);
                &parsed
            }
            _ => return Err(format!("call target {t}")),
        },
        o => return Err(format!("call target {o:?}")),
    };
    if !matches!(r, Operand::Reg(..)) {
        return Err(format!("call target {r:?}"));
    }
    let entries = cx.entries.clone();
    if entries.is_empty() {
        return Err("indirect CALL.REL in a function without subroutines".into());
    }
    let v = cx.src(r)?;
    for e in entries {
        let p = cx.tp();
        cx.line(format!("setp.eq.u32 {p}, {v}, {e}"));
        cx.line(format!("@{p} bra $L_{e:x}"));
    }
    cx.line("trap");
    Ok(())
}

/// `CALL.ABS.NOINC Rt`: the PTX `call` of the external function `Rt` was loaded with.
fn call_external(cx: &mut Cx<'_>, i: &Instr) -> R<()> {
    let callee = cx.abs_calls.get(&i.offset).cloned().ok_or(
        "CALL.ABS whose target is not a function address loaded from bank 4 right before it",
    )?;
    let (result, params) = crate::sass::lift::external(&callee).ok_or_else(|| {
        format!("call of external function `{callee}` (not in src/sass/externs.tsv)")
    })?;
    let decl_params: Vec<String> = params
        .iter()
        .enumerate()
        .map(|(k, ty)| format!(".param .{ty} {callee}_param_{k}"))
        .collect();
    cx.add_decl(
        &callee,
        format!(
            ".extern .func {}{callee}({});",
            result.map_or(String::new(), |t| format!("(.param .{t} func_retval0) ")),
            decl_params.join(", ")
        ),
    );
    // The arguments from R4 upward, 64-bit ones in even-odd pairs.
    let mut n: u8 = 4;
    let mut args = Vec::new();
    for ty in &params {
        let v = match *ty {
            "b32" => {
                n += 1;
                format!("%r{}", n - 1)
            }
            "b64" => {
                n += n % 2;
                let t = cx.t64();
                cx.line(format!("mov.b64 {t}, {{%r{}, %r{}}}", n, n + 1));
                n += 2;
                t
            }
            t => return Err(format!("parameter type {t} in src/sass/externs.tsv")),
        };
        args.push((*ty, v));
    }
    cx.raw("\t{\n");
    let mut names = Vec::new();
    for (k, (ty, v)) in args.iter().enumerate() {
        cx.line(format!(".param .{ty} param{k}"));
        cx.line(format!("st.param.{ty} [param{k}], {v}"));
        names.push(format!("param{k}"));
    }
    match result {
        Some(t) => {
            cx.line(format!(".param .{t} retval0"));
            cx.line(format!(
                "call.uni (retval0), {callee}, ({})",
                names.join(", ")
            ));
            match t {
                "b32" => cx.line("ld.param.b32 %r4, [retval0]"),
                "b64" => {
                    let r = cx.t64();
                    cx.line(format!("ld.param.b64 {r}, [retval0]"));
                    cx.line(format!("mov.b64 {{%r4, %r5}}, {r}"));
                }
                t => return Err(format!("result type {t} in src/sass/externs.tsv")),
            }
        }
        None => cx.line(format!("call.uni {callee}, ({})", names.join(", "))),
    }
    cx.raw("\t}\n");
    // The callee returns to R20:R21: it must be the instruction after the call.
    let ret = i.offset + 16;
    let t = cx.t32();
    cx.line(format!("xor.b32 {t}, %r20, {ret}"));
    cx.line(format!("or.b32 {t}, {t}, %r21"));
    let p = cx.tp();
    cx.line(format!("setp.ne.u32 {p}, {t}, 0"));
    cx.line(format!("@{p} trap"));
    Ok(())
}

/// `LEPC Rd` (sm_80: the address of the `LEPC` itself) / `LEPC Rd, target` (sm_90: the
/// address of `target`), as the function-relative offset, in the pair `Rd`, `Rd+1`.
fn lepc(cx: &mut Cx<'_>, i: &Instr) -> R<()> {
    check_mods(i, &[])?;
    let (d, at) = match i.operands.as_slice() {
        [d] => (d, i.offset),
        [d, Operand::Target(t)] => (d, *t),
        o => return Err(format!("LEPC operands {o:?}")),
    };
    let r = d
        .plain_reg()
        .filter(|r| !r.is_zero())
        .ok_or("LEPC destination")?;
    let lo = Cx::reg_name(r).ok_or("LEPC destination")?;
    let hi = Cx::reg_name(Cx::next(r)?).ok_or("LEPC destination")?;
    cx.line(format!("mov.b32 {lo}, {at}"));
    cx.line(format!("mov.b32 {hi}, 0"));
    Ok(())
}

/// `BMOV.32[.CLEAR] Rd, Bn`: the barrier's recorded mask (then cleared), and `BMOV.32 Bn, Rs`:
/// the mask set; without kept barriers (see the module docs) a save writes 0 and a restore
/// does nothing.
fn bmov(cx: &mut Cx<'_>, i: &Instr) -> R<()> {
    check_mods(i, &["32", "CLEAR"])?;
    match i.operands.as_slice() {
        [d @ Operand::Reg(..), Operand::Barrier(b)] => {
            let d = cx.dst(d)?;
            if !cx.convergence {
                cx.line(format!("mov.b32 {d}, 0"));
                return Ok(());
            }
            cx.line(format!("mov.b32 {d}, %b{b}"));
            if i.has("CLEAR") {
                cx.line(format!("mov.b32 %b{b}, 0"));
            }
            Ok(())
        }
        [Operand::Barrier(b), s @ (Operand::Reg(..) | Operand::Imm(_))] if !i.has("CLEAR") => {
            if cx.convergence {
                let s = cx.src(s)?;
                cx.line(format!("mov.b32 %b{b}, {s}"));
            }
            Ok(())
        }
        o => Err(format!("BMOV operands {o:?}")),
    }
}

/// `BSSY Bn, target`: the active threads recorded in `%bn` (see the module docs).
fn bssy(cx: &mut Cx<'_>, i: &Instr) -> R<()> {
    check_mods(i, &[])?;
    match i.operands.as_slice() {
        [Operand::Barrier(b), Operand::Target(_) | Operand::Symbol(_)] => {
            if cx.convergence {
                cx.line(format!("activemask.b32 %b{b}"));
            }
            Ok(())
        }
        o => Err(format!("BSSY operands {o:?}")),
    }
}

/// `BSYNC Bn`: a warp barrier over the threads `%bn` recorded, unless this thread left it.
fn bsync(cx: &mut Cx<'_>, i: &Instr) -> R<()> {
    check_mods(i, &[])?;
    match i.operands.as_slice() {
        [Operand::Barrier(b)] => {
            if cx.convergence {
                let p = cx.tp();
                cx.line(format!("setp.ne.u32 {p}, %b{b}, 0"));
                cx.line(format!("@{p} bar.warp.sync %b{b}"));
            }
            Ok(())
        }
        o => Err(format!("BSYNC operands {o:?}")),
    }
}

/// `BREAK [Pp,] Bn`: when `Pp` holds, the thread arrives at the barrier and leaves it.
fn brk(cx: &mut Cx<'_>, i: &Instr) -> R<()> {
    check_mods(i, &[])?;
    let (p, b) = match i.operands.as_slice() {
        [Operand::Barrier(b)] => (None, *b),
        [p @ Operand::Pred(..), Operand::Barrier(b)] => (Some(p), *b),
        o => return Err(format!("BREAK operands {o:?}")),
    };
    if !cx.convergence {
        return Ok(());
    }
    let p = match p {
        Some(p) if !is_pt(p) => Some(cx.psrc(p)?),
        _ => None,
    };
    let leave = cx.tp();
    match p {
        Some(p) => cx.line(format!("setp.ne.and.u32 {leave}, %b{b}, 0, {p}")),
        None => cx.line(format!("setp.ne.u32 {leave}, %b{b}, 0")),
    }
    cx.line(format!("@{leave} bar.warp.sync %b{b}"));
    cx.line(format!("@{leave} mov.b32 %b{b}, 0"));
    Ok(())
}

/// `RET.REL.NODEC Rr`: a branch to the call return site whose offset `Rr` holds.
fn ret(cx: &mut Cx<'_>, i: &Instr) -> R<()> {
    check_mods(i, &["REL", "NODEC"])?;
    // nvdisasm prints `RET.REL.NODEC R4 `(kernel)`: the register, then the function.
    let parsed;
    let r = match i.operands.as_slice() {
        [r @ Operand::Reg(..)] | [r @ Operand::Reg(..), Operand::Symbol(_)] => r,
        [Operand::Other(t)] => match t.split_once(' ') {
            Some((reg, f)) if f.trim_start().starts_with("`(") => {
                parsed = crate::sass::decode::operand::parse_operand(reg, &mut |_| None);
                &parsed
            }
            _ => return Err(format!("return operand {t}")),
        },
        o => return Err(format!("return operands {o:?}")),
    };
    if !matches!(r, Operand::Reg(..)) {
        return Err(format!("return operand {r:?}"));
    }
    let sites = cx.return_sites.clone();
    let Some((last, rest)) = sites.split_last() else {
        return Err("RET in a function without CALL.REL".into());
    };
    let v = cx.src(r)?;
    for s in rest {
        let p = cx.tp();
        cx.line(format!("setp.eq.u32 {p}, {v}, {s}"));
        cx.line(format!("@{p} bra $L_{s:x}"));
    }
    cx.line(format!("bra $L_{last:x}"));
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::sass::decode::parse_text;
    use crate::sass::info::{DataSymbol, KernelInfo, Reloc, R_CUDA_64};
    use crate::sass::lift::{lift_kernel, Consts};

    /// nvdisasm 13.5's `UMOV UR4, 32@lo(sym)` / `32@hi(sym)` in bitsandbytes 0.50.2's
    /// device-linked sm_80 cubin (`kDequantizeBlockwise`, the address of its static NF4
    /// table, `R_CUDA_ABS32_LO_32`/`HI_32`): the halves of the lifted variable's generic
    /// address, the variable declared with the cubin's bytes.
    #[test]
    fn relocated_address_halves_are_the_symbols_address() {
        let text = "\
k:
.text.k:
        /*0000*/                   UMOV UR4, 32@lo(lut) ;
        /*0010*/                   UMOV UR5, 32@hi(lut) ;
        /*0020*/                   MOV R2, UR4 ;
        /*0030*/                   MOV R3, UR5 ;
        /*0040*/                   EXIT ;
";
        let f = &parse_text(text).unwrap()[0];
        let consts = Consts {
            data: [(".nv.global.init".to_string(), vec![7u8; 16])].into(),
            symbols: vec![DataSymbol {
                name: "lut".into(),
                section: ".nv.global.init".into(),
                offset: 0,
                size: 16,
                global: false,
                function: false,
            }],
            ..Default::default()
        };
        let l = lift_kernel(f, &KernelInfo::default(), "sm_80", &consts);
        assert!(l.unlifted.is_empty(), "{:?}", l.unlifted);
        let ptx = l.ptx.unwrap();
        for want in [
            "mov.u64 %d0, lut;",
            "cvta.global.u64 %d0, %d0;",
            "mov.b64 {%t",
        ] {
            assert!(ptx.contains(want), "{want} not in\n{ptx}");
        }
        assert_eq!(l.decls.len(), 1, "{:?}", l.decls);
        assert!(l.decls[0].1.contains("lut[16]"), "{:?}", l.decls);
    }

    /// nvdisasm 13.5's text of a CUDA 11.8 `-rdc` kernel (bitsandbytes 0.50.2, sm_80) calling
    /// the cubin's `__cuda_sm70_shflsync_idx_p` helper with `CALL.ABS.NOINC`, the return
    /// address set from the label after the call: the helper's body is inlined there (its
    /// `WARPSYNC`/`SHFL`/`SEL`), its `RET.ABS.NODEC R20` a branch back, and the return address
    /// the label's offset.
    #[test]
    fn calls_of_cubin_helpers_are_inlined() {
        let text = "\
k:
.text.k:
        /*0000*/                   MOV R7, 0xffffffff ;
        /*0010*/                   MOV R20, 32@lo((k + .L_x_0@srel)) ;
        /*0020*/                   MOV R21, 32@hi((k + .L_x_0@srel)) ;
        /*0030*/                   CALL.ABS.NOINC `(__cuda_sm70_shflsync_idx_p) ;
.L_x_0:
        /*0040*/                   MOV R2, R4 ;
        /*0050*/                   EXIT ;
__cuda_sm70_shflsync_idx_p:
.text.__cuda_sm70_shflsync_idx_p:
        /*0000*/                   WARPSYNC R7 ;
        /*0010*/                   SHFL.IDX P0, R4, R4, R5, R6 ;
        /*0020*/                   SEL R5, RZ, 0x1, !P0 ;
        /*0030*/                   RET.ABS.NODEC R20 0x0 ;
.L_x_1:
        /*0040*/                   BRA `(.L_x_1);
";
        let funcs = parse_text(text).unwrap();
        assert_eq!(funcs.len(), 2);
        assert_eq!(
            funcs[0].instrs[1].operands[1],
            crate::sass::decode::Operand::LabelHalf {
                target: 0x40,
                high: false
            }
        );
        let consts = Consts {
            functions: [(funcs[1].name.clone(), funcs[1].clone())].into(),
            ..Default::default()
        };
        let l = lift_kernel(&funcs[0], &KernelInfo::default(), "sm_80", &consts);
        assert!(l.unlifted.is_empty(), "{:?}", l.unlifted);
        let ptx = l.ptx.unwrap();
        for want in [
            "mov.b32 %r20, 0x00000040;",
            "bar.warp.sync %r7;",
            "shfl.sync.idx.b32 %r4|%p0, %r4, %r5, %r6,",
            "bra $L_40;",
            "$L_40:",
        ] {
            assert!(ptx.contains(want), "{want} not in\n{ptx}");
        }
        // Without the helper in the cubin the call stays unlifted, with its reason.
        let l = lift_kernel(
            &funcs[0],
            &KernelInfo::default(),
            "sm_80",
            &Consts::default(),
        );
        assert!(
            l.unlifted.iter().any(|u| u.form == "CALL.ABS.NOINC"),
            "{:?}",
            l.unlifted
        );
    }

    /// `UBREV` is `BREV` on the uniform datapath.
    #[test]
    fn uniform_bit_reversal() {
        let text = "\
k:
.text.k:
        /*0000*/                   UBREV UR4, UR5 ;
        /*0010*/                   MOV R0, UR4 ;
        /*0020*/                   EXIT ;
";
        let f = &parse_text(text).unwrap()[0];
        let l = lift_kernel(f, &KernelInfo::default(), "sm_80", &Consts::default());
        assert!(l.unlifted.is_empty(), "{:?}", l.unlifted);
        let ptx = l.ptx.unwrap();
        assert!(ptx.contains("brev.b32 %u4, %u5;"), "{ptx}");
    }

    /// A diverging loop around a `VOTE` (the shape of CUB's match-by-vote ranking): its
    /// convergence barriers become `%bN` masks and warp barriers; the same code without the
    /// `VOTE` keeps none (ptxas's control flow on `BSSY`/`BSYNC`/`BREAK`/`BMOV` forms as
    /// nvdisasm 13.5 prints them).
    #[test]
    fn convergence_barriers_are_kept_around_collectives() {
        let body = |collective: &str| {
            format!(
                "\
k:
.text.k:
        /*0000*/                   S2R R0, SR_TID.X ;
        /*0010*/                   ISETP.GE.AND P0, PT, R0, 0x10, PT ;
        /*0020*/                   BSSY B0, `(.L_x_2) ;
        /*0030*/                   BMOV.32.CLEAR R4, B1 ;
.L_x_1:
        /*0040*/                   {collective} ;
        /*0050*/                   IADD3 R0, R0, 0x1, RZ ;
        /*0060*/                   ISETP.GE.AND P1, PT, R0, 0x20, PT ;
        /*0070*/                   BREAK P1, B0 ;
        /*0080*/              @!P1 BRA `(.L_x_1) ;
        /*0090*/                   BSYNC B0 ;
.L_x_2:
        /*00a0*/                   BMOV.32 B1, R4 ;
        /*00b0*/                   EXIT ;
"
            )
        };
        let lift = |text: String| {
            let f = &parse_text(&text).unwrap()[0];
            let l = lift_kernel(f, &KernelInfo::default(), "sm_80", &Consts::default());
            assert!(l.unlifted.is_empty(), "{:?}", l.unlifted);
            l.ptx.unwrap()
        };
        let ptx = lift(body("VOTE.ANY R2, PT, P0"));
        for want in [
            ".reg .b32 %b<16>;",
            "activemask.b32 %b0;",
            "mov.b32 %r4, %b1;",
            "mov.b32 %b1, 0;",
            "bar.warp.sync %b0;",
            "mov.b32 %b0, 0;",
            "mov.b32 %b1, %r4;",
        ] {
            assert!(ptx.contains(want), "{want} not in\n{ptx}");
        }
        // BREAK P1: leaves only where P1 holds and the thread is still in the barrier.
        assert!(ptx.contains(", %b0, 0, %p1;"), "{ptx}");
        let plain = lift(body("IADD3 R2, R2, 0x1, RZ"));
        assert!(!plain.contains("%b"), "{plain}");
        assert!(plain.contains("mov.b32 %r4, 0;"), "{plain}");
    }

    /// nvdisasm 13.5's lines of an `assert` in autoawq_kernels 0.0.9 (`topk_softmax_kernels.cu`,
    /// sm_80, ptxas 12.4): the callee's bank-4 offset in the register the address is loaded
    /// into, the message, file and function names from bank-4 words, the line in R8, the
    /// return address from `LEPC`. Lifted to `__assertfail`'s call with those registers, the
    /// strings as module-scope data.
    #[test]
    fn corpus_assert_lifts_to_a_call() {
        let text = "\
k:
.text.k:
        /*2970*/                   MOV R14, 0xa8 ;
        /*2980*/                   IMAD.MOV.U32 R4, RZ, RZ, c[0x4][0x98] ;
        /*2990*/                   IMAD.MOV.U32 R5, RZ, RZ, c[0x4][0x9c] ;
        /*29a0*/                   IMAD.MOV.U32 R6, RZ, RZ, c[0x4][0xa0] ;
        /*29b0*/                   LDC.64 R14, c[0x4][R14] ;
        /*29c0*/                   IMAD.MOV.U32 R7, RZ, RZ, c[0x4][0xa4] ;
        /*29d0*/                   IMAD.MOV.U32 R8, RZ, RZ, 0x9a ;
        /*29e0*/                   IMAD.MOV.U32 R10, RZ, RZ, c[0x4][0x0] ;
        /*29f0*/                   IMAD.MOV.U32 R11, RZ, RZ, c[0x4][0x4] ;
        /*2a00*/                   IMAD.MOV.U32 R12, RZ, RZ, 0x1 ;
        /*2a10*/                   IMAD.MOV.U32 R13, RZ, RZ, RZ ;
        /*2a20*/                   LEPC R20 ;
        /*2a30*/                   MOV R9, 0x2aa0 ;
        /*2a40*/                   MOV R29, 0x2a20 ;
        /*2a50*/                   MOV R3, 0x0 ;
        /*2a60*/                   MOV R0, 0x0 ;
        /*2a70*/                   IADD3 R20, P0, P1, -R29, R9, R20 ;
        /*2a80*/                   IADD3.X R21, ~R0, R3, R21, P0, P1 ;
.L_x_393:
        /*2a90*/                   CALL.ABS.NOINC R14 ;
        /*2aa0*/                   EXIT ;
";
        let f = &parse_text(text).unwrap()[0];
        let sym = |name: &str, offset: u64, size: u64, function: bool| DataSymbol {
            name: name.into(),
            section: if function {
                String::new()
            } else {
                ".nv.global.init".into()
            },
            offset,
            size,
            global: function,
            function,
        };
        let rel = |offset: u64, symbol: &str| Reloc {
            offset,
            kind: R_CUDA_64,
            symbol: symbol.into(),
            addend: 0,
        };
        let consts = Consts {
            data: [(
                ".nv.global.init".to_string(),
                b"idx >= 0\0topk.cu\0void k()\0".to_vec(),
            )]
            .into(),
            symbols: vec![
                sym("$str", 0, 9, false),
                sym("$str$1", 9, 8, false),
                sym("__unnamed_1", 17, 9, false),
                sym("__assertfail", 0, 0, true),
            ],
            relocations: [(
                ".nv.constant4".to_string(),
                vec![
                    rel(0xa8, "__assertfail"),
                    rel(0xa0, "$str$1"),
                    rel(0x98, "$str"),
                    rel(0x0, "__unnamed_1"),
                ],
            )]
            .into(),
            ..Default::default()
        };
        let l = lift_kernel(f, &KernelInfo::default(), "sm_80", &consts);
        assert!(l.unlifted.is_empty(), "{:?}", l.unlifted);
        let ptx = l.ptx.unwrap();
        for want in [
            "mov.u64 %d0, $str;",
            "cvta.global.u64 %d0, %d0;",
            "mov.b32 %r20, 10784;",
            "st.param.b32 [param2], %r8;",
            "call.uni __assertfail, (param0, param1, param2, param3, param4);",
            "xor.b32 %t",
        ] {
            assert!(ptx.contains(want), "{want} not in\n{ptx}");
        }
        // The five parameters from R4:R5, R6:R7, R8, R10:R11, R12:R13.
        for pair in ["{%r4, %r5}", "{%r6, %r7}", "{%r10, %r11}", "{%r12, %r13}"] {
            assert!(ptx.contains(pair), "{pair} not in\n{ptx}");
        }
        let decls: Vec<&str> = l.decls.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(decls, ["$str", "$str$1", "__unnamed_1", "__assertfail"]);
        assert_eq!(
            l.decls[0].1,
            ".global .align 16 .b8 $str[9] = {105, 100, 120, 32, 62, 61, 32, 48, 0};"
        );
    }
}
