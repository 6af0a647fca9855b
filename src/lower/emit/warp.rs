//! Warp-level instructions (PTX ISA 9.x §9.7.8): `shfl`, `vote`, `match`, `redux`,
//! `activemask`, `bar.warp.sync`, `elect`.
//!
//! Each instruction becomes one call of a device-library function (`@__wp_shfl_<mode>`,
//! `@__wp_vote_<mode>`, `@__wp_match_{any,all}_b{32,64}`, `@__wp_redux_<op>`,
//! `@__wp_activemask`, `@__wp_bar_warp_sync`, `@__wp_elect`) whose operands are the PTX
//! operands and whose results are the PTX destinations (a `{ i32, i1 }` pair where PTX has
//! `d|p`). The library defines them per family (`kernels-ir/wave64.py`): natively on nvptx,
//! and on amdgcn by the wave64 warp model of `docs/warp-model.md` (a PTX warp is one half of
//! a 64-lane wavefront). The non-`.sync` forms (`shfl.mode.b32`, `vote.mode.pred`), deprecated
//! since PTX 6.0, use the active mask as their member mask.

use super::*;

/// The member-mask operand (`membermask`) of a warp instruction, or the active mask for the
/// legacy non-`.sync` forms.
fn member_mask<'a>(fx: &mut Fx<'_, '_, 'a>, o: Option<&Operand<'a>>) -> R<V> {
    match o {
        Some(o) => fx.rd(o, Ty::I32, false),
        None => Ok(fx.call("__wp_activemask", Ty::I32, &[])),
    }
}

/// Call `@name` returning `{ i32, i1 }` and write the two halves to `d` (a register, `_`, or
/// a pair `d|p`).
fn call_pair<'a>(
    fx: &mut Fx<'_, '_, 'a>,
    name: &str,
    args: &[(Ty, &str)],
    d: &Operand<'a>,
) -> R<()> {
    let ptys: Vec<&str> = args.iter().map(|(t, _)| t.ll()).collect();
    fx.declare(name, "{ i32, i1 }", &ptys);
    let a: Vec<String> = args
        .iter()
        .map(|(t, v)| format!("{} {v}", t.ll()))
        .collect();
    let r = opv!(
        fx,
        [&format!("call {{ i32, i1 }} @{name}({})", a.join(", "))]
    );
    let v = opv!(fx, [&format!("extractvalue {{ i32, i1 }} {r}, 0")]);
    let p = opv!(fx, [&format!("extractvalue {{ i32, i1 }} {r}, 1")]);
    match d {
        Operand::Pair(pair) => {
            let (dv, dp) = &**pair;
            if *dv != "_" {
                fx.wr(&Operand::Reg((*dv).into()), &v, Ty::I32, false)?;
            }
            fx.wr(&Operand::Reg((*dp).into()), &p, Ty::I1, false)?;
        }
        Operand::Sink => {}
        o => fx.wr(o, &v, Ty::I32, false)?,
    }
    Ok(())
}

/// The source lane (0..31 of the warp) and `pval` of `shfl.sync.<mode>` for warp lane `lane`
/// with constant `b` and `c`: the PTX ISA's pseudo-code (9.x §9.7.8.6), as in
/// `@__wp_shfl_<mode>` of the support library.
fn shfl_source(mode: Option<Mod>, lane: u32, b: u32, c: u32) -> Option<(u32, bool)> {
    let bv = b & 31;
    let cv = c & 31;
    let seg = (c >> 8) & 31;
    let nseg = seg ^ 31;
    let min = lane & seg;
    let max = min | (cv & nseg);
    let (j, p) = match mode? {
        Mod::Up => {
            let j = lane as i32 - bv as i32;
            (j, j >= max as i32)
        }
        Mod::Down => {
            let j = (lane + bv) as i32;
            (j, j <= max as i32)
        }
        Mod::Bfly => {
            let j = (lane ^ bv) as i32;
            (j, j <= max as i32)
        }
        Mod::Idx => {
            let j = (min | (bv & nseg)) as i32;
            (j, j <= max as i32)
        }
        _ => return None,
    };
    Some((if p { j as u32 } else { lane }, p))
}

/// The `ds_swizzle_b32` offset (bit-mask mode: within each 32 lanes, source lane
/// `((lane & and) | or) ^ xor`, AMD "Vega 7nm" ISA, `DS_SWIZZLE_B32`) that reads what a `shfl.sync`
/// with constant `b` and `c` reads, when every lane's `pval` is true and the source lanes
/// have that form: each source lane bit is a constant, the lane's bit or its complement.
fn swizzle_offset(mode: Option<Mod>, b: u32, c: u32) -> Option<u32> {
    let mut src = [0u32; 32];
    for lane in 0..32 {
        let (j, p) = shfl_source(mode, lane, b, c)?;
        if !p {
            return None;
        }
        src[lane as usize] = j;
    }
    let (mut and, mut or, mut xor) = (0u32, 0u32, 0u32);
    for k in 0..5 {
        let bit = |x: u32| (x >> k) & 1;
        let same = (0..32u32).all(|l| bit(src[l as usize]) == bit(l));
        let flip = (0..32u32).all(|l| bit(src[l as usize]) != bit(l));
        let one = (0..32u32).all(|l| bit(src[l as usize]) == 1);
        let zero = (0..32u32).all(|l| bit(src[l as usize]) == 0);
        if same {
            and |= 1 << k;
        } else if flip {
            and |= 1 << k;
            xor |= 1 << k;
        } else if one {
            or |= 1 << k;
        } else if !zero {
            return None;
        }
    }
    Some(and | or << 5 | xor << 10)
}

impl<'c, 'm, 'a> Fx<'c, 'm, 'a> {
    /// The value of an immediate operand, or of a register holding one constant
    /// ([`super::local_addr::constant_regs`]), as the low 32 bits.
    fn const_u32(&mut self, o: &Operand<'a>) -> Option<u32> {
        match o {
            Operand::Imm(m) => match m.value() {
                ImmValue::Int(v) => Some(v as u32),
                ImmValue::UInt(v) => Some(v as u32),
                _ => None,
            },
            Operand::Reg(n) => {
                let f = self.func;
                self.const_regs
                    .get_or_insert_with(|| super::local_addr::constant_regs(f))
                    .get(n.as_str())
                    .copied()
            }
            _ => None,
        }
    }

    /// amdgcn `shfl.sync` whose source lanes [`swizzle_offset`] encodes: one `ds_swizzle_b32`
    /// (no lane arithmetic, no address register), `pval` true.
    fn shfl_swizzle(&mut self, d: &Operand<'a>, a: &Operand<'a>, offset: u32) -> R<()> {
        let a = self.rd(a, Ty::I32, false)?;
        self.declare("llvm.amdgcn.ds.swizzle", "i32", &["i32", "i32 immarg"]);
        let v = opv!(
            self,
            [
                &"call i32 @llvm.amdgcn.ds.swizzle(i32 ",
                &a,
                &", i32 ",
                &offset,
                &")"
            ]
        );
        match d {
            Operand::Pair(pair) => {
                let (dv, dp) = &**pair;
                if *dv != "_" {
                    self.wr(&Operand::Reg((*dv).into()), &v, Ty::I32, false)?;
                }
                self.wr(&Operand::Reg((*dp).into()), "true", Ty::I1, false)
            }
            Operand::Sink => Ok(()),
            o => self.wr(o, &v, Ty::I32, false),
        }
    }

    /// Lower one warp-level instruction (`i.opcode` is one of the §9.7.8 opcodes, or `bar`
    /// with `.warp`).
    pub(super) fn warp_inst(&mut self, i: &'m Instruction<'a>, mo: &Mods) -> R<()> {
        let ops: &[Operand<'a>] = &i.operands;
        let form = || form_of(i);
        let sync = mo.has(Mod::Sync);
        let need = |n: usize| -> R<()> {
            if ops.len() == n {
                Ok(())
            } else {
                fail(&form(), format!("{} operands, expected {n}", ops.len()))
            }
        };
        match i.opcode {
            Opcode::Shfl => {
                if !mo.has(Mod::B32) {
                    return fail(&form(), "shfl type");
                }
                let mode = match mo.op {
                    Some(Mod::Up) => "up",
                    Some(Mod::Down) => "down",
                    Some(Mod::Bfly) => "bfly",
                    Some(Mod::Idx) => "idx",
                    _ => return fail(&form(), "shfl mode"),
                };
                need(if sync { 5 } else { 4 })?;
                if self.cx.prof.family == crate::target::Family::Amdgcn {
                    if let (Some(b), Some(c)) = (self.const_u32(&ops[2]), self.const_u32(&ops[3])) {
                        if let Some(offset) = swizzle_offset(mo.op, b, c) {
                            return self.shfl_swizzle(&ops[0], &ops[1], offset);
                        }
                    }
                }
                let a = self.rd(&ops[1], Ty::I32, false)?;
                let b = self.rd(&ops[2], Ty::I32, false)?;
                let c = self.rd(&ops[3], Ty::I32, false)?;
                let m = member_mask(self, ops.get(4))?;
                let f = format!("__wp_shfl_{mode}");
                call_pair(
                    self,
                    &f,
                    &[(Ty::I32, &m), (Ty::I32, &a), (Ty::I32, &b), (Ty::I32, &c)],
                    &ops[0],
                )
            }
            Opcode::Vote => {
                need(if sync { 3 } else { 2 })?;
                let p = self.rd(&ops[1], Ty::I1, false)?;
                let m = member_mask(self, ops.get(2))?;
                if mo.op == Some(Mod::Ballot) {
                    let r = self.call("__wp_vote_ballot", Ty::I32, &[(Ty::I1, &p), (Ty::I32, &m)]);
                    return self.wr(&ops[0], &r, Ty::I32, false);
                }
                // `.uni` may be absent from the modifiers (it is also a branch hint).
                let mode = match mo.op {
                    Some(Mod::All) => "all",
                    Some(Mod::Any) => "any",
                    _ => "uni",
                };
                let f = format!("__wp_vote_{mode}");
                let r = self.call(&f, Ty::I1, &[(Ty::I1, &p), (Ty::I32, &m)]);
                self.wr(&ops[0], &r, Ty::I1, false)
            }
            Opcode::Match => {
                need(3)?;
                let (t, w) = if mo.has(Mod::B64) {
                    (Ty::I64, 64)
                } else if mo.has(Mod::B32) {
                    (Ty::I32, 32)
                } else {
                    return fail(&form(), "match type");
                };
                let a = self.rd(&ops[1], t, false)?;
                let m = self.rd(&ops[2], Ty::I32, false)?;
                if mo.op == Some(Mod::Any) {
                    let f = format!("__wp_match_any_b{w}");
                    let r = self.call(&f, Ty::I32, &[(t, &a), (Ty::I32, &m)]);
                    self.wr(&ops[0], &r, Ty::I32, false)
                } else if mo.op == Some(Mod::All) {
                    let f = format!("__wp_match_all_b{w}");
                    call_pair(self, &f, &[(t, &a), (Ty::I32, &m)], &ops[0])
                } else {
                    fail(&form(), "match mode")
                }
            }
            Opcode::Redux => {
                need(3)?;
                let signed = mo.has(Mod::S32);
                if !(signed || mo.has(Mod::U32) || mo.has(Mod::B32)) {
                    return fail(
                        &form(),
                        "redux type (only the 32-bit integer forms are lowered)",
                    );
                }
                let op = match mo.op {
                    Some(Mod::Add) => "add",
                    Some(Mod::Min) if signed => "smin",
                    Some(Mod::Min) => "umin",
                    Some(Mod::Max) if signed => "smax",
                    Some(Mod::Max) => "umax",
                    Some(Mod::And) => "and",
                    Some(Mod::Or) => "or",
                    Some(Mod::Xor) => "xor",
                    _ => return fail(&form(), "redux operation"),
                };
                let a = self.rd(&ops[1], Ty::I32, false)?;
                let m = self.rd(&ops[2], Ty::I32, false)?;
                let f = format!("__wp_redux_{op}");
                let r = self.call(&f, Ty::I32, &[(Ty::I32, &a), (Ty::I32, &m)]);
                self.wr(&ops[0], &r, Ty::I32, false)
            }
            Opcode::Activemask => {
                need(1)?;
                let r = self.call("__wp_activemask", Ty::I32, &[]);
                self.wr(&ops[0], &r, Ty::I32, false)
            }
            Opcode::Elect => {
                need(2)?;
                let m = self.rd(&ops[1], Ty::I32, false)?;
                call_pair(self, "__wp_elect", &[(Ty::I32, &m)], &ops[0])
            }
            Opcode::Bar if mo.has(Mod::Warp) => {
                need(1)?;
                let m = self.rd(&ops[0], Ty::I32, false)?;
                self.call_void("__wp_bar_warp_sync", &[(Ty::I32, &m)]);
                Ok(())
            }
            _ => fail(&form(), "not a warp-level instruction"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constant_shuffles_as_swizzles() {
        // shfl.sync.bfly with a full warp (c = 0x1f): xor of the lane.
        assert_eq!(
            swizzle_offset(Some(Mod::Bfly), 16, 0x1f),
            Some(0x1f | 16 << 10)
        );
        assert_eq!(
            swizzle_offset(Some(Mod::Bfly), 1, 0x1f),
            Some(0x1f | 1 << 10)
        );
        // Width 16 (__shfl_xor_sync(m, v, 8, 16): c = 0x101f): still the xor.
        assert_eq!(
            swizzle_offset(Some(Mod::Bfly), 8, 0x101f),
            Some(0x1f | 8 << 10)
        );
        // Width 4 with lane mask 4: the source leaves the segment, pval false: not a swizzle.
        assert_eq!(swizzle_offset(Some(Mod::Bfly), 4, 0x1c1f), None);
        // shfl.sync.idx of lane 0 in segments of 8 (c = 0x181f): lane & 0x18.
        assert_eq!(swizzle_offset(Some(Mod::Idx), 0, 0x181f), Some(0x18));
        // idx of lane 3 of the warp: every lane reads lane 3.
        assert_eq!(swizzle_offset(Some(Mod::Idx), 3, 0x1f), Some(3 << 5));
        // up/down clamp at the segment edge (pval false there): not a swizzle.
        assert_eq!(swizzle_offset(Some(Mod::Down), 5, 0x1f), None);
        assert_eq!(swizzle_offset(Some(Mod::Up), 1, 0), None);
        // Every offset reads what the PTX pseudo-code reads, lane by lane.
        for mode in [Mod::Up, Mod::Down, Mod::Bfly, Mod::Idx] {
            for b in 0..32 {
                for c in [0x1f, 0x101f, 0x181f, 0x1c1f, 0x1e1f, 0, 7, 0x1007] {
                    let Some(o) = swizzle_offset(Some(mode), b, c) else {
                        continue;
                    };
                    for lane in 0..32 {
                        let (and, or, xor) = (o & 31, o >> 5 & 31, o >> 10 & 31);
                        let got = ((lane & and) | or) ^ xor;
                        assert_eq!(
                            Some((got, true)),
                            shfl_source(Some(mode), lane, b, c),
                            "{mode:?} b={b} c={c:#x} lane {lane}"
                        );
                    }
                }
            }
        }
    }
}
