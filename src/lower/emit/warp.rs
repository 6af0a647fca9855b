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

impl<'c, 'm, 'a> Fx<'c, 'm, 'a> {
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
