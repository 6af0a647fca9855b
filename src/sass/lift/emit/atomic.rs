//! Atomics, reductions, fences and barrier reductions.
//!
//! # Memory semantics
//!
//! The `.STRONG.<scope>` of a SASS atomic is the scope of a *relaxed* (morally strong)
//! operation: ptxas 13.5 assembles `atom.global.add.u32` (relaxed, `.gpu` by default) to
//! `ATOMG.E.ADD.STRONG.GPU`, `atom.global.cta.add.f32` to `RED.E.ADD.F32.FTZ.RN.STRONG.SM`
//! and `atom.global.sys.add.f64` to `RED.E.ADD.F64.RN.STRONG.SYS` (the `atomic_*` kernels of
//! `fixtures/gpu/src/atomic.cu`), so `.STRONG.GPU` → `.relaxed.gpu`, `.STRONG.SM` →
//! `.relaxed.cta`, `.STRONG.SYS` → `.relaxed.sys`. Shared-memory atomics (`ATOMS`) carry no
//! scope: the PTX default (`.relaxed.gpu`, which covers the CTA's shared memory).
//!
//! `RED` is an atomic without a result (`red`), `ATOMG`/`ATOM` return the old value (`atom`,
//! global / generic addresses), `ATOMS` is the shared-memory atomic. The operation types:
//! none → `.u32` (`.b32` for the bit operations, exchange and compare-and-swap), `.64` →
//! `.u64`/`.b64`, `.S32`/`.S64` signed, `.F32.FTZ.RN` → `.f32` (PTX's `atom.add.f32` rounds
//! to nearest and flushes subnormals), `.F64.RN` → `.f64`, `.F16x2.RN` → `.noftz.f16x2`.
//! `INC`/`DEC` are PTX's `inc`/`dec` (wrapping at the operand, CUDA's `atomicInc/Dec`).
//!
//! `tools/amdgpu-exec` runs work-groups one after another, so the executed fixtures check
//! the values these forms compute, not their ordering or scopes.
//!
//! # Addresses
//!
//! With `.E` (64-bit addressing) nvdisasm prints some address registers without `.64`
//! (`ATOMG.E.CAS.STRONG.GPU PT, R5, [R2], R16, R17`, `LDG.E R9, [R4]`, `QSPC.E.S P0, RZ,
//! [R10]`): the pair is still 64-bit (ptxas sets `R3`/`R5`/`R11` as the high word with an
//! `IMAD.X` carry right before), so `.E` forms read the base as a pair.

use super::{check_mods, ops_len, Cx, Space, R};
use crate::sass::decode::{Instr, Mem, Operand};

/// Lift an atomic, fence or barrier-reduction form, or `None` when `i` is not one.
pub(super) fn instruction(cx: &mut Cx<'_>, i: &Instr) -> Option<R<()>> {
    let r = match i.opcode() {
        "RED" | "ATOM" | "ATOMG" | "ATOMS" => atomic(cx, i),
        "QSPC" => qspc(cx, i),
        "MEMBAR" => membar(cx, i),
        "ERRBAR" => errbar(cx, i),
        "CCTL" => cctl(cx, i),
        "BAR" if i.has("RED") => bar_red(cx, i),
        "B2R" => b2r(cx, i),
        _ => {
            if !is_register_only(i.opcode()) {
                cx.after_membar = false;
            }
            return None;
        }
    };
    if !matches!(i.opcode(), "MEMBAR" | "ERRBAR" | "CCTL") {
        cx.after_membar = false;
    }
    Some(r)
}

/// Forms that neither access memory nor branch: they leave a pending `MEMBAR`'s
/// `ERRBAR`/`CCTL.IVALL` tail adjacent to it.
fn is_register_only(op: &str) -> bool {
    matches!(
        op,
        "MOV" | "IMAD" | "IADD3" | "LOP3" | "SHF" | "SEL" | "ISETP" | "LEA" | "S2R" | "CS2R"
    )
}

/// `.relaxed.<scope>` of a load or store with `.STRONG.<scope>` (`LDG.E.64.STRONG.SYS`,
/// which ptxas 13.5 makes of `ld.volatile.global.u64`: PTX's volatile accesses are relaxed
/// at system scope), empty for a weak one.
pub(super) fn strong(i: &Instr) -> R<&'static str> {
    semantics(i)
}

/// The memory address of an `.E` form: the base register is a 64-bit pair (see the module
/// docs).
pub(super) fn wide_mem(i: &Instr, m: &Mem) -> Mem {
    let mut m = m.clone();
    if i.has("E") && m.base.is_some_and(|r| !r.is_zero()) {
        m.wide = true;
    }
    m
}

/// `.relaxed.<scope>` of a `.STRONG.<scope>` form, empty without `.STRONG`.
fn semantics(i: &Instr) -> R<&'static str> {
    if !i.has("STRONG") {
        return Ok("");
    }
    Ok(if i.has("GPU") {
        ".relaxed.gpu"
    } else if i.has("SM") {
        ".relaxed.cta"
    } else if i.has("SYS") {
        ".relaxed.sys"
    } else {
        return Err("STRONG without a scope".into());
    })
}

/// The PTX operation and type of an atomic's modifiers, and whether the value is 64-bit.
fn op_type(i: &Instr) -> R<(&str, &'static str, bool)> {
    let mut op = None;
    let mut ty = None;
    for m in i.modifiers() {
        match m {
            "E" | "STRONG" | "GPU" | "SM" | "SYS" | "RN" | "FTZ" => {}
            "ADD" | "MIN" | "MAX" | "AND" | "OR" | "XOR" | "EXCH" | "CAS" | "INC" | "DEC" => {
                op = Some(m)
            }
            "64" | "S32" | "S64" | "F32" | "F64" | "F16x2" | "U32" => ty = Some(m),
            m => return Err(format!("modifier .{m}")),
        }
    }
    let op = op.ok_or("atomic without an operation")?;
    let bits = matches!(op, "AND" | "OR" | "XOR" | "EXCH" | "CAS");
    let (ty, wide) = match (ty, bits) {
        (None | Some("U32"), true) => ("b32", false),
        (None | Some("U32"), false) => ("u32", false),
        (Some("64"), true) => ("b64", true),
        (Some("64"), false) => ("u64", true),
        (Some("S32"), false) => ("s32", false),
        (Some("S64"), false) => ("s64", true),
        (Some("F32"), false) if op == "ADD" && i.has("FTZ") && i.has("RN") => ("f32", false),
        (Some("F64"), false) if op == "ADD" && i.has("RN") && !i.has("FTZ") => ("f64", true),
        (Some("F16x2"), false) if op == "ADD" && i.has("RN") && !i.has("FTZ") => {
            ("noftz.f16x2", false)
        }
        (t, _) => return Err(format!("atomic {op} of type {t:?}")),
    };
    if matches!(op, "INC" | "DEC") && ty != "u32" {
        return Err(format!("{op} of type {ty}"));
    }
    Ok((op, ty, wide))
}

impl Cx<'_> {
    /// A 32- or 64-bit atomic operand.
    fn value(&mut self, o: &Operand, wide: bool) -> R<String> {
        if wide {
            self.src64(o)
        } else {
            self.src(o)
        }
    }
}

/// `RED`, `ATOM`, `ATOMG`, `ATOMS` (see the module docs).
fn atomic(cx: &mut Cx<'_>, i: &Instr) -> R<()> {
    let opc = i.opcode();
    if opc == "ATOMS" && i.has("CAST") {
        return cast_spin(cx, i);
    }
    if opc == "ATOMS" && i.has("POPC") {
        return popc_inc(cx, i);
    }
    let (op, ty, wide) = op_type(i)?;
    let sem = semantics(i)?;
    let o = &i.operands;
    // Operands: RED [a], b; ATOMG/ATOM p, d, [a], b (c); ATOMS d, [a], b (c).
    let (done, d, rest) = match opc {
        "RED" => (None, None, &o[..]),
        "ATOMS" => (None, Some(&o[0]), &o[1..]),
        _ => {
            if o.len() < 3 {
                return Err(format!("{} operands", o.len()));
            }
            (Some(&o[0]), Some(&o[1]), &o[2..])
        }
    };
    let n = if op == "CAS" { 3 } else { 2 };
    if rest.len() != n {
        return Err(format!("{} operands", o.len()));
    }
    let Operand::Mem(m) = &rest[0] else {
        return Err(format!("address {:?}", rest[0]));
    };
    let (space, sp) = match opc {
        "ATOMS" => (Space::Shared, ".shared"),
        "ATOM" => (Space::Global, ""),
        _ => (Space::Global, ".global"),
    };
    if space == Space::Global && !i.has("E") {
        return Err("global atomic without .E (32-bit addressing)".into());
    }
    let addr = cx.address(&wide_mem(i, m), space)?;
    let b = cx.value(&rest[1], wide)?;
    let ops = if op == "CAS" {
        let c = cx.value(&rest[2], wide)?;
        format!("{b}, {c}")
    } else {
        b
    };
    let opl = op.to_ascii_lowercase();
    // `inc`, `dec` and `cas` are not spelled with a memory order in the PTX front end's
    // forms; without one they are relaxed as well, at the scope given.
    let sem = if matches!(op, "INC" | "DEC" | "CAS") || ty.contains('f') {
        sem.strip_prefix(".relaxed").unwrap_or(sem)
    } else {
        sem
    };
    let discard = d.is_none_or(|d| d.plain_reg().is_some_and(|r| r.is_zero()));
    if discard && op != "EXCH" && op != "CAS" && opc != "ATOM" {
        cx.line(format!("red{sem}{sp}.{opl}.{ty} {addr}, {ops}"));
    } else {
        let t = if wide { cx.t64() } else { cx.t32() };
        cx.line(format!("atom{sem}{sp}.{opl}.{ty} {t}, {addr}, {ops}"));
        if let Some(d) = d.filter(|_| !discard) {
            if wide {
                cx.store64(d, &t)?;
            } else {
                let dn = cx.dst(d)?;
                cx.line(format!("mov.b32 {dn}, {t}"));
            }
        }
    }
    if let Some(p) = done {
        match p {
            Operand::Pred(r, false) if r.is_true() => {}
            // `ATOM` on a generic address sets its predicate when the hardware performed
            // the operation (ptxas follows `ATOM.E.ADD.F16x2.RN P0, RZ, [a], b` with
            // `@P0 BRA` past a software path for shared and local addresses: `QSPC.E.S`, an
            // `ATOMS.CAST.SPIN` loop, `LD.E`/`ST.E`); PTX's generic `atom` performs it in
            // every state space, so the predicate is true.
            Operand::Pred(..) if opc == "ATOM" => {
                let pd = cx.pdst(p)?;
                cx.line(format!("setp.eq.u32 {pd}, 0, 0"));
            }
            p => return Err(format!("atomic predicate {p:?}")),
        }
    }
    Ok(())
}

/// `ATOMS.CAST.SPIN[.64] d, [a], cmp, new`: compare-and-store on shared memory (the loop
/// ptxas emits for a shared-memory atomic it has no instruction for, e.g. the f16x2 add):
/// when `[a] == cmp` it stores `new`; `d` = 1 when it stored, 0 when not (ptxas retries while
/// `d != 1`). As `atom.shared.cas` and a compare of the old value.
fn cast_spin(cx: &mut Cx<'_>, i: &Instr) -> R<()> {
    check_mods(i, &["CAST", "SPIN", "64"])?;
    ops_len(i, 4)?;
    let wide = i.has("64");
    let o = &i.operands;
    let Operand::Mem(m) = &o[1] else {
        return Err(format!("address {:?}", o[1]));
    };
    let addr = cx.address(m, Space::Shared)?;
    let c = cx.value(&o[2], wide)?;
    let n = cx.value(&o[3], wide)?;
    let (t, ty) = if wide {
        (cx.t64(), "b64")
    } else {
        (cx.t32(), "b32")
    };
    cx.line(format!("atom.shared.cas.{ty} {t}, {addr}, {c}, {n}"));
    let p = cx.tp();
    cx.line(format!("setp.eq.{} {p}, {t}, {c}", &ty.replace('b', "u")));
    let d = cx.dst(&o[0])?;
    cx.line(format!("selp.u32 {d}, 1, 0, {p}"));
    Ok(())
}

/// `ATOMS.POPC.INC.32 RZ, [a]`: every executing thread adds 1 to the shared word at `a`
/// (ptxas's form of `atom.shared.add.u32 _, [a], 1` with an unused result; the hardware
/// adds the count of the threads of each address at once). The result, not used by
/// ptxas's form, is not lifted.
fn popc_inc(cx: &mut Cx<'_>, i: &Instr) -> R<()> {
    check_mods(i, &["POPC", "INC", "32"])?;
    ops_len(i, 2)?;
    if !i.operands[0].plain_reg().is_some_and(|r| r.is_zero()) {
        return Err("ATOMS.POPC.INC with a result".into());
    }
    let Operand::Mem(m) = &i.operands[1] else {
        return Err(format!("address {:?}", i.operands[1]));
    };
    let addr = cx.address(m, Space::Shared)?;
    cx.line(format!("red.shared.add.u32 {addr}, 1"));
    Ok(())
}

/// `QSPC.E.S|G|L P, RZ, [a]`: whether generic address `a` is in shared / global / local
/// memory (`isspacep`).
fn qspc(cx: &mut Cx<'_>, i: &Instr) -> R<()> {
    check_mods(i, &["E", "S", "G", "L"])?;
    ops_len(i, 3)?;
    let space = if i.has("S") {
        "shared"
    } else if i.has("G") {
        "global"
    } else if i.has("L") {
        "local"
    } else {
        return Err("QSPC without a state space".into());
    };
    if !i.operands[1].plain_reg().is_some_and(|r| r.is_zero()) {
        return Err("QSPC with a register result".into());
    }
    let Operand::Mem(m) = &i.operands[2] else {
        return Err(format!("address {:?}", i.operands[2]));
    };
    let m = wide_mem(i, m);
    if m.ureg
        .is_some_and(|(u, _)| u != crate::sass::decode::operand::URZ)
    {
        return Err("QSPC with a uniform register in the address".into());
    }
    let mut a = match m.base.filter(|r| !r.is_zero()) {
        Some(r) if m.wide => cx.src64(&Operand::Reg(r, Default::default()))?,
        _ => return Err("QSPC of a 32-bit address".into()),
    };
    if m.offset != 0 {
        // The space of the address base + offset (`QSPC.E.S P0, RZ, [R2+0x4]`).
        let t = cx.t64();
        cx.line(format!("add.s64 {t}, {a}, {}", m.offset));
        a = t;
    }
    let p = cx.pdst(&i.operands[0])?;
    cx.line(format!("isspacep.{space} {p}, {a}"));
    Ok(())
}

/// `MEMBAR.SC.CTA|GPU|SYS`: a sequentially consistent fence (`fence.sc.cta|gpu|sys`, which
/// is what `membar.cta|gl|sys` are in the PTX memory model; ptxas 13.5 assembles
/// `membar.gl` to `MEMBAR.SC.GPU; ERRBAR; CCTL.IVALL`). `MEMBAR.ALL.GPU|SYS` is
/// `fence.acq_rel.gpu|sys` (ptxas 13.5: `MEMBAR.ALL.GPU; ERRBAR; CCTL.IVALL`).
fn membar(cx: &mut Cx<'_>, i: &Instr) -> R<()> {
    ops_len(i, 0)?;
    let (sem, scope) = match i.modifiers().collect::<Vec<_>>().as_slice() {
        ["SC", "CTA"] => ("sc", "cta"),
        ["SC", "GPU"] => ("sc", "gpu"),
        ["SC", "SYS"] => ("sc", "sys"),
        ["ALL", "GPU"] => ("acq_rel", "gpu"),
        ["ALL", "SYS"] => ("acq_rel", "sys"),
        m => return Err(format!("MEMBAR modifiers {m:?}")),
    };
    cx.line(format!("fence.{sem}.{scope}"));
    cx.after_membar = true;
    Ok(())
}

/// `ERRBAR`: waits until the memory operations before it have reported their errors; it
/// orders no memory accesses (ptxas puts it after `MEMBAR.SC.GPU|SYS`, whose fence carries
/// the ordering), so it has no effect on results.
fn errbar(_cx: &mut Cx<'_>, i: &Instr) -> R<()> {
    check_mods(i, &[])?;
    ops_len(i, 0)
}

/// `CCTL.IVALL`: invalidates the SM's L1 data cache, so that later loads see other SMs'
/// writes. ptxas emits it as the tail of `fence.sc.gpu|sys` (`MEMBAR.SC.GPU; ERRBAR;
/// CCTL.IVALL` for `membar.gl`/`membar.sys` in `k_fence_reduce`, `k_barriers`): right after
/// a `MEMBAR` (with only register forms between) the lifted `fence.sc` already carries its
/// meaning and it is not lifted again; anywhere else it is an acquire at gpu scope for the
/// loads after it, lifted as `fence.acq_rel.gpu` (at least as strong).
fn cctl(cx: &mut Cx<'_>, i: &Instr) -> R<()> {
    check_mods(i, &["IVALL"])?;
    if !i.has("IVALL") {
        return Err("CCTL other than .IVALL".into());
    }
    ops_len(i, 0)?;
    if !cx.after_membar {
        cx.line("fence.acq_rel.gpu");
    }
    Ok(())
}

/// `BAR.RED.POPC|AND|OR[.DEFER_BLOCKING] b, [n,] p`: barrier `b` with a reduction of `p`
/// over the CTA, read by the next `B2R.RESULT` (`bar.red.popc.u32` / `bar.red.and|or.pred`;
/// the result is kept in a temporary until then).
fn bar_red(cx: &mut Cx<'_>, i: &Instr) -> R<()> {
    check_mods(i, &["RED", "POPC", "AND", "OR", "DEFER_BLOCKING"])?;
    let kind = ["POPC", "AND", "OR"]
        .into_iter()
        .find(|k| i.has(k))
        .ok_or("BAR.RED without an operation")?;
    let (b, n, p) = match i.operands.as_slice() {
        [Operand::Imm(b), p @ Operand::Pred(..)] => (*b, None, p),
        [Operand::Imm(b), Operand::Imm(n), p @ Operand::Pred(..)] => (*b, Some(*n), p),
        o => return Err(format!("barrier operands {o:?}")),
    };
    let p = cx.psrc(p)?;
    let n = n.map(|n| format!(", {n}")).unwrap_or_default();
    if kind == "POPC" {
        let t = cx.t32();
        cx.line(format!("bar.red.popc.u32 {t}, {b}{n}, {p}"));
        cx.bar_result = Some((kind, t));
    } else {
        let t = cx.tp();
        cx.line(format!(
            "bar.red.{}.pred {t}, {b}{n}, {p}",
            kind.to_ascii_lowercase()
        ));
        cx.bar_result = Some((kind, t));
    }
    Ok(())
}

/// `B2R.RESULT d[, P]`: the result of the last `BAR.RED` (the count into `d`, or the
/// and/or into `P` with `d` = `RZ`).
fn b2r(cx: &mut Cx<'_>, i: &Instr) -> R<()> {
    check_mods(i, &["RESULT"])?;
    if !i.has("RESULT") {
        return Err("B2R other than .RESULT".into());
    }
    let (kind, t) = cx
        .bar_result
        .clone()
        .ok_or("B2R.RESULT without a BAR.RED before it")?;
    match (kind, i.operands.as_slice()) {
        ("POPC", [d]) => {
            let d = cx.dst(d)?;
            cx.line(format!("mov.b32 {d}, {t}"));
        }
        ("AND" | "OR", [d, p @ Operand::Pred(..)])
            if d.plain_reg().is_some_and(|r| r.is_zero()) =>
        {
            let p = cx.pdst(p)?;
            cx.line(format!("mov.pred {p}, {t}"));
        }
        (k, o) => return Err(format!("B2R.RESULT of {k} with operands {o:?}")),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::sass::decode::parse_text;
    use crate::sass::info::KernelInfo;
    use crate::sass::lift::{lift_kernel, Consts};

    /// nvdisasm 13.5's lines for ptxas 13.5 (sm_80) of the `fixtures/gpu` kernels
    /// `k_atomic_exch_cas`, `k_atomic_shared`, `k_fence_reduce` and `k_barriers`, lifted to the
    /// PTX instructions they were assembled from (`atom.global.exch.b32`,
    /// `atom.global.cta.inc.u32 .., -1` = an add of 1 at cta scope, `atom.global.cas.b32`,
    /// `atom.shared.add.u32 .., 1`, `membar.gl`, `ld.volatile.global.u64`,
    /// `bar.red.popc.u32`).
    #[test]
    fn fixture_atomics_lift_to_their_ptx() {
        let text = "\
k:
.text.k:
        /*0000*/                   ATOMG.E.EXCH.STRONG.GPU PT, R9, [R4.64], R0 ;
        /*0010*/                   ATOMG.E.ADD.STRONG.SM PT, R15, [R4.64+0x30], R15 ;
        /*0020*/                   RED.E.ADD.STRONG.SYS [R6.64+0x30], R15 ;
        /*0030*/                   ATOMG.E.CAS.STRONG.GPU PT, R5, [R2], R16, R17 ;
        /*0040*/                   ATOMS.POPC.INC.32 RZ, [R4+URZ] ;
        /*0050*/                   MEMBAR.SC.GPU ;
        /*0060*/                   ERRBAR;
        /*0070*/                   IMAD.MOV.U32 R4, RZ, RZ, R7 ;
        /*0080*/                   CCTL.IVALL ;
        /*0090*/                   LDG.E.64.STRONG.SYS R4, [R4.64] ;
        /*00a0*/                   BAR.RED.POPC.DEFER_BLOCKING 0x0, P0 ;
        /*00b0*/                   B2R.RESULT R9 ;
        /*00c0*/                   EXIT ;
";
        let f = &parse_text(text).unwrap()[0];
        let info = KernelInfo {
            shared_size: 256,
            ..Default::default()
        };
        let l = lift_kernel(f, &info, "sm_80", &Consts::default());
        assert!(l.unlifted.is_empty(), "{:?}", l.unlifted);
        let ptx = l.ptx.unwrap();
        for want in [
            "atom.relaxed.gpu.global.exch.b32 %t",
            "atom.relaxed.cta.global.add.u32 %t",
            "red.relaxed.sys.global.add.u32 [%d",
            "atom.gpu.global.cas.b32 %t",
            "red.shared.add.u32 [%t",
            "fence.sc.gpu;",
            "ld.relaxed.sys.global.v2.b32 {%r4, %r5}",
            "bar.red.popc.u32 %t",
        ] {
            assert!(ptx.contains(want), "{want} not in\n{ptx}");
        }
        // CCTL.IVALL right after the fence (register forms between) is its tail.
        assert!(!ptx.contains("fence.acq_rel"), "{ptx}");
    }
}
