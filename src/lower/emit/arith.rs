//! Integer arithmetic (PTX ISA 9.x §9.7.1, §9.7.2), logic and shifts (§9.7.7) and bit
//! manipulation: `add`/`sub`/`mul`/`mad`/`div`/`rem`/`min`/`max` on integers, the carry
//! chain, `mul24`/`mad24`, `sad`, `abs`/`neg`, `and`/`or`/`xor`/`not`/`cnot`, `lop3`,
//! `shl`/`shr`/`shf`, `popc`/`clz`/`brev`, `bfind`/`bfe`/`bfi`, `bmsk`, `szext`, `prmt`,
//! `selp` and the plain `vabsdiff4`.

use super::*;
use crate::target::ShiftClamp;

impl<'c, 'm, 'a> Fx<'c, 'm, 'a> {
    /// Whether `vabsdiff4` takes the plain vector lowering of [`Self::int_inst`] (equal
    /// types, no `.sat`, selectors or mask); the other forms are in `video`.
    pub(super) fn vabsdiff4_plain(mo: &Mods, ops: &[Operand<'a>]) -> bool {
        let tys = mo.types();
        !mo.has(Mod::Sat)
            && ops.len() == 4
            && tys.len() == 3
            && tys[0] == tys[1]
            && tys[1] == tys[2]
            && ops[..3]
                .iter()
                .all(|o| !matches!(o, Operand::Reg(r) if r.contains('.')))
    }

    /// The integer, logic and bit-manipulation instructions listed in the module docs (and
    /// `abs`/`neg` on floats).
    pub(super) fn int_inst(
        &mut self,
        i: &'m Instruction<'a>,
        mo: &Mods,
        ops: &[Operand<'a>],
    ) -> R<()> {
        let tys = mo.types();
        let ty1 = |k: usize| -> R<(Ty, Kind)> {
            let t = tys.get(k).copied().ok_or_else(|| Fail {
                form: form_of(i),
                reason: "missing type".into(),
            })?;
            of_ptx(t).ok_or_else(|| Fail {
                form: form_of(i),
                reason: format!("type {}", t.as_str()),
            })
        };
        let n = ops.len();
        use Opcode as O;
        match i.opcode {
            O::Mul24 | O::Mad24 => {
                let (_, k) = ty1(0)?;
                let s = k == Kind::Signed;
                let a = self.rd(&ops[1], Ty::I32, false)?;
                let b = self.rd(&ops[2], Ty::I32, false)?;
                let ext = |fx: &mut Self, v: &str| -> V {
                    let sh = opv!(fx, [&"shl i32 ", &v, &", 8"]);
                    let sr = if s { "ashr" } else { "lshr" };
                    let x = opv!(fx, [&sr, &" i32 ", &sh, &", 8"]);
                    let e = if s { "sext" } else { "zext" };
                    opv!(fx, [&e, &" i32 ", &x, &" to i64"])
                };
                let (a, b) = (ext(self, &a), ext(self, &b));
                let p = opv!(self, [&"mul i64 ", &a, &", ", &b]);
                let r = if mo.has(Mod::Hi) {
                    let h = opv!(self, [&"lshr i64 ", &p, &", 16"]);
                    opv!(self, [&"trunc i64 ", &h, &" to i32"])
                } else {
                    opv!(self, [&"trunc i64 ", &p, &" to i32"])
                };
                let r = if i.opcode == O::Mad24 {
                    let c = self.rd(&ops[3], Ty::I32, false)?;
                    opv!(self, [&"add i32 ", &r, &", ", &c])
                } else {
                    r
                };
                self.wr(&ops[0], &r, Ty::I32, false)?;
            }
            O::Sad => {
                let (t, k) = ty1(0)?;
                let s = k == Kind::Signed;
                let a = self.rd(&ops[1], t, s)?;
                let b = self.rd(&ops[2], t, s)?;
                let c = self.rd(&ops[3], t, s)?;
                let (mx, mn) = if s {
                    ("smax", "smin")
                } else {
                    ("umax", "umin")
                };
                let hi = self.intr2(mx, t, &a, &b);
                let lo = self.intr2(mn, t, &a, &b);
                let d = opv!(self, [&"sub ", &(t.ll()), &" ", &hi, &", ", &lo]);
                let r = opv!(self, [&"add ", &(t.ll()), &" ", &d, &", ", &c]);
                self.wr(&ops[0], &r, t, s)?;
            }
            O::Abs | O::Neg => {
                let (t, k) = ty1(0)?;
                let a = self.rd(&ops[1], t, false)?;
                let r = if k == Kind::Float {
                    let a = self.ftz_in(mo, t, &a);
                    let r = if i.opcode == O::Abs {
                        self.intr1("fabs", t, &a)
                    } else {
                        opv!(self, [&"fneg ", &(t.ll()), &" ", &a])
                    };
                    let r = self.ftz_out(mo, t, &r);
                    // NVIDIA's abs/neg write the canonical NaN (executed against the H200);
                    // `nan_out` leaves f64 alone.
                    self.nan_out(t, &r)
                } else if i.opcode == O::Abs {
                    let n = format!("llvm.abs.{}", t.suffix());
                    let l = format!("declare {} @{n}({}, i1)", t.ll(), t.ll());
                    self.decl(&n, &l);
                    opv!(
                        self,
                        [
                            &"call ",
                            &(t.ll()),
                            &" @",
                            &n,
                            &"(",
                            &(t.ll()),
                            &" ",
                            &a,
                            &", i1 false)",
                        ]
                    )
                } else {
                    opv!(self, [&"sub ", &(t.ll()), &" 0, ", &a])
                };
                self.wr(&ops[0], &r, t, false)?;
            }
            O::And | O::Or | O::Xor => {
                let (t, _) = ty1(0)?;
                let a = self.rd(&ops[1], t, false)?;
                let b = self.rd(&ops[2], t, false)?;
                let opn = match i.opcode {
                    O::And => "and",
                    O::Or => "or",
                    _ => "xor",
                };
                let r = opv!(self, [&opn, &" ", &(t.ll()), &" ", &a, &", ", &b]);
                self.wr(&ops[0], &r, t, false)?;
            }
            O::Not => {
                let (t, _) = ty1(0)?;
                let a = self.rd(&ops[1], t, false)?;
                let r = opv!(self, [&"xor ", &(t.ll()), &" ", &a, &", -1"]);
                self.wr(&ops[0], &r, t, false)?;
            }
            O::Cnot => {
                let (t, _) = ty1(0)?;
                let a = self.rd(&ops[1], t, false)?;
                let c = opv!(self, [&"icmp eq ", &(t.ll()), &" ", &a, &", 0"]);
                let r = opv!(self, [&"zext i1 ", &c, &" to ", &(t.ll())]);
                self.wr(&ops[0], &r, t, false)?;
            }
            O::Lop3 => {
                let bop = mo.bool_op.filter(|b| matches!(b, BoolOp::Or | BoolOp::And));
                if n != 5 + bop.is_some() as usize {
                    return fail(&form_of(i), "lop3 operands");
                }
                let a = self.rd(&ops[1], Ty::I32, false)?;
                let b = self.rd(&ops[2], Ty::I32, false)?;
                let c = self.rd(&ops[3], Ty::I32, false)?;
                let Operand::Imm(lut) = &ops[4] else {
                    return fail(&form_of(i), "lop3 with a non-constant LUT");
                };
                let lut = imm(lut.value(), Ty::I32).parse::<i64>().unwrap_or(0) as u32 & 0xff;
                let r = self.lop3(lut, &a, &b, &c);
                match (bop, &ops[0]) {
                    // lop3.or/.and (PTX 8.2): p = (d != 0) BOP q.
                    (Some(bo), Operand::Pair(pair)) => {
                        let (d, p) = &**pair;
                        let q = self.rd(&ops[5], Ty::I1, false)?;
                        let nz = opv!(self, [&"icmp ne i32 ", &r, &", 0"]);
                        let pv = opv!(self, [&bo.bare(), &" i1 ", &nz, &", ", &q]);
                        self.wr(&Operand::Reg((*d).into()), &r, Ty::I32, false)?;
                        if *p != "_" {
                            self.wr(&Operand::Reg((*p).into()), &pv, Ty::I1, false)?;
                        }
                    }
                    (Some(_), _) => return fail(&form_of(i), "lop3 predicate form"),
                    (None, d) => self.wr(d, &r, Ty::I32, false)?,
                }
            }
            O::Shl | O::Shr => {
                let (t, k) = ty1(0)?;
                let a = self.rd(&ops[1], t, k == Kind::Signed)?;
                let b = self.rd(&ops[2], Ty::I32, false)?;
                let w = t.bits();
                let r = if i.opcode == O::Shr && k == Kind::Signed {
                    let m = self.intr2("umin", Ty::I32, &b, &(w - 1).to_string());
                    let m = self.fit(&m, Ty::I32, t, false);
                    opv!(self, [&"ashr ", &(t.ll()), &" ", &a, &", ", &m])
                } else if self.cx.prof.shift_clamp == ShiftClamp::Split {
                    let opn = if i.opcode == O::Shl { "shl " } else { "lshr " };
                    let m = self.intr2("umin", Ty::I32, &b, &w.to_string());
                    let m = self.fit(&m, Ty::I32, t, false);
                    let h = opv!(self, [&"lshr ", &(t.ll()), &" ", &m, &", 1"]);
                    let rest = opv!(self, [&"sub ", &(t.ll()), &" ", &m, &", ", &h]);
                    let s = opv!(self, [&opn, &(t.ll()), &" ", &a, &", ", &h]);
                    opv!(self, [&opn, &(t.ll()), &" ", &s, &", ", &rest])
                } else {
                    let big = opv!(self, [&"icmp uge i32 ", &b, &", ", &w]);
                    let m = self.intr2("umin", Ty::I32, &b, &(w - 1).to_string());
                    let m = self.fit(&m, Ty::I32, t, false);
                    let opn = if i.opcode == O::Shl { "shl" } else { "lshr" };
                    let s = opv!(self, [&opn, &" ", &(t.ll()), &" ", &a, &", ", &m]);
                    opv!(
                        self,
                        [
                            &"select i1 ",
                            &big,
                            &", ",
                            &(t.ll()),
                            &" 0, ",
                            &(t.ll()),
                            &" ",
                            &s,
                        ]
                    )
                };
                self.wr(&ops[0], &r, t, false)?;
            }
            O::Shf => {
                let a = self.rd(&ops[1], Ty::I32, false)?;
                let b = self.rd(&ops[2], Ty::I32, false)?;
                let c = self.rd(&ops[3], Ty::I32, false)?;
                let left = mo.has(Mod::L);
                let f = if left { "fshl" } else { "fshr" };
                let r = self.intr3(f, Ty::I32, &b, &a, &c);
                let r = if mo.has(Mod::Clamp) {
                    let big = opv!(self, [&"icmp uge i32 ", &c, &", 32"]);
                    let sat = if left { &a } else { &b };
                    opv!(self, [&"select i1 ", &big, &", i32 ", &sat, &", i32 ", &r])
                } else {
                    r
                };
                self.wr(&ops[0], &r, Ty::I32, false)?;
            }
            O::Popc | O::Clz | O::Brev => {
                let (t, _) = ty1(0)?;
                let a = self.rd(&ops[1], t, false)?;
                let (r, rt) = match i.opcode {
                    O::Popc => (self.intr1("ctpop", t, &a), Ty::I32),
                    O::Clz => {
                        let n = format!("llvm.ctlz.{}", t.suffix());
                        let l = format!("declare {} @{n}({}, i1)", t.ll(), t.ll());
                        self.decl(&n, &l);
                        (
                            opv!(
                                self,
                                [
                                    &"call ",
                                    &(t.ll()),
                                    &" @",
                                    &n,
                                    &"(",
                                    &(t.ll()),
                                    &" ",
                                    &a,
                                    &", i1 false)",
                                ]
                            ),
                            Ty::I32,
                        )
                    }
                    _ => (self.intr1("bitreverse", t, &a), t),
                };
                let r = self.fit(&r, t, rt, false);
                self.wr(&ops[0], &r, rt, false)?;
            }
            O::Bfind => {
                let (t, k) = ty1(0)?;
                let a = self.rd(&ops[1], t, false)?;
                let s = if k == Kind::Signed { "s" } else { "u" };
                let f = format!("__wp_bfind_{s}{}", t.bits());
                let r = self.call(&f, Ty::I32, &[(t, &a)]);
                let r = if mo.has(Mod::Shiftamt) {
                    let nf = opv!(self, [&"icmp eq i32 ", &r, &", -1"]);
                    let sa = opv!(self, [&"sub i32 ", &(t.bits() - 1), &", ", &r]);
                    opv!(self, [&"select i1 ", &nf, &", i32 -1, i32 ", &sa])
                } else {
                    r
                };
                self.wr(&ops[0], &r, Ty::I32, false)?;
            }
            O::Bfe => {
                let (t, k) = ty1(0)?;
                let a = self.rd(&ops[1], t, false)?;
                let b = self.rd(&ops[2], Ty::I32, false)?;
                let c = self.rd(&ops[3], Ty::I32, false)?;
                let s = if k == Kind::Signed { "s" } else { "u" };
                let f = format!("__wp_bfe_{s}{}", t.bits());
                let r = self.call(&f, t, &[(t, &a), (Ty::I32, &b), (Ty::I32, &c)]);
                self.wr(&ops[0], &r, t, false)?;
            }
            O::Bfi => {
                let (t, _) = ty1(0)?;
                let a = self.rd(&ops[1], t, false)?;
                let b = self.rd(&ops[2], t, false)?;
                let c = self.rd(&ops[3], Ty::I32, false)?;
                let d = self.rd(&ops[4], Ty::I32, false)?;
                let f = format!("__wp_bfi_b{}", t.bits());
                let r = self.call(&f, t, &[(t, &a), (t, &b), (Ty::I32, &c), (Ty::I32, &d)]);
                self.wr(&ops[0], &r, t, false)?;
            }
            O::Bmsk => {
                // bmsk.{clamp,wrap}.b32 d, a, b (PTX ISA 9.x §9.7.1.22): b bits set from bit a;
                // .clamp limits a and b to 32, .wrap takes them modulo 32. Computed in i64 so
                // that shifts by 32 are defined; the low 32 bits are the mask.
                let a = self.rd(&ops[1], Ty::I32, false)?;
                let b = self.rd(&ops[2], Ty::I32, false)?;
                let lim = |fx: &mut Self, v: &str| -> V {
                    if mo.has(Mod::Wrap) {
                        opv!(fx, [&"and i32 ", &v, &", 31"])
                    } else {
                        fx.intr2("umin", Ty::I32, v, "32")
                    }
                };
                let (a, b) = (lim(self, &a), lim(self, &b));
                let a = opv!(self, [&"zext i32 ", &a, &" to i64"]);
                let b = opv!(self, [&"zext i32 ", &b, &" to i64"]);
                let one = opv!(self, [&"shl i64 1, ", &b]);
                let m = opv!(self, [&"sub i64 ", &one, &", 1"]);
                let m = opv!(self, [&"shl i64 ", &m, &", ", &a]);
                let r = opv!(self, [&"trunc i64 ", &m, &" to i32"]);
                self.wr(&ops[0], &r, Ty::I32, false)?;
            }
            O::Szext => {
                // szext.{clamp,wrap}.{s32,u32} d, a, b (PTX ISA 9.x §9.7.1.23): the low b bits of
                // a sign- (.s32) or zero-extended (.u32); b limited to 32 (.clamp) or taken
                // modulo 32 (.wrap); b = 0 gives 0.
                let (_, k) = ty1(0)?;
                let a = self.rd(&ops[1], Ty::I32, false)?;
                let b = self.rd(&ops[2], Ty::I32, false)?;
                let b = if mo.has(Mod::Wrap) {
                    opv!(self, [&"and i32 ", &b, &", 31"])
                } else {
                    self.intr2("umin", Ty::I32, &b, "32")
                };
                let zero = opv!(self, [&"icmp eq i32 ", &b, &", 0"]);
                let sh = opv!(self, [&"sub i32 32, ", &b]);
                let sh = self.intr2("umin", Ty::I32, &sh, "31");
                let l = opv!(self, [&"shl i32 ", &a, &", ", &sh]);
                let sr = if k == Kind::Signed { "ashr" } else { "lshr" };
                let v = opv!(self, [&sr, &" i32 ", &l, &", ", &sh]);
                let r = opv!(self, [&"select i1 ", &zero, &", i32 0, i32 ", &v]);
                self.wr(&ops[0], &r, Ty::I32, false)?;
            }
            O::Vabsdiff4
                if !mo.has(Mod::Sat)
                    && n == 4
                    && tys.len() == 3
                    && tys[0] == tys[1]
                    && tys[1] == tys[2]
                    && ops[..3]
                        .iter()
                        .all(|o| !matches!(o, Operand::Reg(r) if r.contains('.'))) =>
            {
                // vabsdiff4.{u32,s32}.{u32,s32}.{u32,s32} d, a, b, c (PTX ISA 9.x §9.7.1.26,
                // SIMD video): |a_i - b_i| for the four bytes; with .add, d = c + their sum;
                // otherwise the bytes of d (mask .b3210) are the differences. Only the plain
                // forms (equal types, no .sat, selectors or mask) take this vector lowering;
                // the others go to src/lower/emit/video.rs.
                if mo.has(Mod::Sat) || n != 4 || tys.len() != 3 {
                    return fail(&form_of(i), "vabsdiff4 with .sat, selectors or a mask");
                }
                let (_, ka) = ty1(1)?;
                let a = self.rd(&ops[1], Ty::I32, false)?;
                let b = self.rd(&ops[2], Ty::I32, false)?;
                let c = self.rd(&ops[3], Ty::I32, false)?;
                let av = opv!(self, [&"bitcast i32 ", &a, &" to <4 x i8>"]);
                let bv = opv!(self, [&"bitcast i32 ", &b, &" to <4 x i8>"]);
                let (mx, mn) = if ka == Kind::Signed {
                    ("smax", "smin")
                } else {
                    ("umax", "umin")
                };
                let v4 = |fx: &mut Self, f: &str| -> V {
                    let n = format!("llvm.{f}.v4i8");
                    fx.decl(&n, &format!("declare <4 x i8> @{n}(<4 x i8>, <4 x i8>)"));
                    opv!(
                        fx,
                        [
                            &"call <4 x i8> @",
                            &n,
                            &"(<4 x i8> ",
                            &av,
                            &", <4 x i8> ",
                            &bv,
                            &")"
                        ]
                    )
                };
                let hi = v4(self, mx);
                let lo = v4(self, mn);
                let d = opv!(self, [&"sub <4 x i8> ", &hi, &", ", &lo]);
                let r = if mo.has(Mod::Add) {
                    let w = opv!(self, [&"zext <4 x i8> ", &d, &" to <4 x i32>"]);
                    let sum = opv!(
                        self,
                        [
                            &"call i32 @llvm.vector.reduce.add.v4i32(<4 x i32> ",
                            &w,
                            &")"
                        ]
                    );
                    self.decl(
                        "llvm.vector.reduce.add.v4i32",
                        "declare i32 @llvm.vector.reduce.add.v4i32(<4 x i32>)",
                    );
                    opv!(self, [&"add i32 ", &sum, &", ", &c])
                } else if mo.has(Mod::Min) || mo.has(Mod::Max) {
                    return fail(&form_of(i), "vabsdiff4 with .min/.max");
                } else {
                    opv!(self, [&"bitcast <4 x i8> ", &d, &" to i32"])
                };
                self.wr(&ops[0], &r, Ty::I32, false)?;
            }
            O::Prmt => {
                // The mode is prmt's operation word (.f4e, .b4e, .rc8, .ecl, .ecr, .rc16).
                let f = match mo.op {
                    None => "__wp_prmt".to_string(),
                    Some(m) => format!("__wp_prmt_{}", &m.name()[1..]),
                };
                let a = self.rd(&ops[1], Ty::I32, false)?;
                let b = self.rd(&ops[2], Ty::I32, false)?;
                let c = self.rd(&ops[3], Ty::I32, false)?;
                let r = self.call(&f, Ty::I32, &[(Ty::I32, &a), (Ty::I32, &b), (Ty::I32, &c)]);
                self.wr(&ops[0], &r, Ty::I32, false)?;
            }
            O::Selp => {
                let (t, _) = ty1(0)?;
                let a = self.rd(&ops[1], t, false)?;
                let b = self.rd(&ops[2], t, false)?;
                let c = self.rd(&ops[3], Ty::I1, false)?;
                let r = self.select(&c, t.ll(), &a, &b);
                self.wr(&ops[0], &r, t, false)?;
            }
            _ => return fail(&form_of(i), "no lowering for this instruction"),
        }
        Ok(())
    }

    pub(super) fn lop3(&mut self, lut: u32, a: &str, b: &str, c: &str) -> V {
        if lut == 0 {
            return "0".into();
        }
        if lut == 0xff {
            return "-1".into();
        }
        let na = opv!(self, [&"xor i32 ", &a, &", -1"]);
        let nb = opv!(self, [&"xor i32 ", &b, &", -1"]);
        let nc = opv!(self, [&"xor i32 ", &c, &", -1"]);
        let mut acc: Option<V> = None;
        for k in 0..8u32 {
            if lut & (1 << k) == 0 {
                continue;
            }
            let x = if k & 4 != 0 { a } else { &na };
            let y = if k & 2 != 0 { b } else { &nb };
            let z = if k & 1 != 0 { c } else { &nc };
            let (x, y, z) = (V::new(x), V::new(y), V::new(z));
            let t = opv!(self, [&"and i32 ", &x, &", ", &y]);
            let t = opv!(self, [&"and i32 ", &t, &", ", &z]);
            acc = Some(match acc {
                None => t,
                Some(p) => opv!(self, [&"or i32 ", &p, &", ", &t]),
            });
        }
        acc.unwrap_or_else(|| V::new("0"))
    }

    pub(super) fn iarith(
        &mut self,
        op: Opcode,
        mo: &Mods,
        t: Ty,
        k: Kind,
        ops: &[Operand<'a>],
    ) -> R<()> {
        let s = k == Kind::Signed;
        let ll = t.ll();
        if mo.has(Mod::Cc) {
            return self.carry(op, mo, t, ops);
        }
        let wide = mo.has(Mod::Wide);
        let hi = mo.has(Mod::Hi);
        let a = self.rd(&ops[1], t, s)?;
        let b = self.rd(&ops[2], t, s)?;
        let w = t.bits();
        let ext = if s { "sext" } else { "zext" };
        let (r, rt) = match op {
            Opcode::Add | Opcode::Sub => {
                if mo.has(Mod::Sat) {
                    let f = if op == Opcode::Add {
                        "sadd.sat"
                    } else {
                        "ssub.sat"
                    };
                    (self.intr2(f, t, &a, &b), t)
                } else {
                    let o = if op == Opcode::Add { "add" } else { "sub" };
                    (opv!(self, [&o, &" ", &ll, &" ", &a, &", ", &b]), t)
                }
            }
            Opcode::Mul | Opcode::Mad => {
                let (p, pt) = if wide || hi {
                    let dt = Ty::int(w * 2);
                    let a2 = opv!(self, [&ext, &" ", &ll, &" ", &a, &" to ", &(dt.ll())]);
                    let b2 = opv!(self, [&ext, &" ", &ll, &" ", &b, &" to ", &(dt.ll())]);
                    let p = opv!(self, [&"mul ", &(dt.ll()), &" ", &a2, &", ", &b2]);
                    if hi {
                        let h = opv!(self, [&"lshr ", &(dt.ll()), &" ", &p, &", ", &w]);
                        (
                            opv!(self, [&"trunc ", &(dt.ll()), &" ", &h, &" to ", &ll]),
                            t,
                        )
                    } else {
                        (p, dt)
                    }
                } else {
                    (opv!(self, [&"mul ", &ll, &" ", &a, &", ", &b]), t)
                };
                if op == Opcode::Mad {
                    let c = self.rd(&ops[3], pt, s)?;
                    if mo.has(Mod::Sat) {
                        // mad.hi.sat.s32: saturate the sum (PTX ISA 9.x §9.7.1.4).
                        (self.intr2("sadd.sat", pt, &p, &c), pt)
                    } else {
                        (opv!(self, [&"add ", &(pt.ll()), &" ", &p, &", ", &c]), pt)
                    }
                } else {
                    (p, pt)
                }
            }
            Opcode::Div | Opcode::Rem => {
                // Division by zero gives an unspecified value in PTX but is undefined
                // behaviour in LLVM: divide by 1 instead. INT_MIN / -1 likewise.
                let z = opv!(self, [&"icmp eq ", &ll, &" ", &b, &", 0"]);
                let (bad, safe_b) = if s {
                    let m1 = opv!(self, [&"icmp eq ", &ll, &" ", &b, &", -1"]);
                    let bad = opv!(self, [&"or i1 ", &z, &", ", &m1]);
                    (
                        Some(m1),
                        opv!(
                            self,
                            [&"select i1 ", &bad, &", ", &ll, &" 1, ", &ll, &" ", &b]
                        ),
                    )
                } else {
                    (
                        None,
                        opv!(
                            self,
                            [&"select i1 ", &z, &", ", &ll, &" 1, ", &ll, &" ", &b]
                        ),
                    )
                };
                let o = match (op == Opcode::Div, s) {
                    (true, true) => "sdiv",
                    (true, false) => "udiv",
                    (false, true) => "srem",
                    (false, false) => "urem",
                };
                let q = opv!(self, [&o, &" ", &ll, &" ", &a, &", ", &safe_b]);
                let q = match bad {
                    Some(m1) => {
                        let alt = if op == Opcode::Div {
                            opv!(self, [&"sub ", &ll, &" 0, ", &a])
                        } else {
                            V::new("0")
                        };
                        self.select(&m1, ll, &alt, &q)
                    }
                    None => q,
                };
                (q, t)
            }
            Opcode::Min | Opcode::Max => {
                let f = match (op == Opcode::Min, s) {
                    (true, true) => "smin",
                    (true, false) => "umin",
                    (false, true) => "smax",
                    (false, false) => "umax",
                };
                let r = self.intr2(f, t, &a, &b);
                let r = if mo.has(Mod::Relu) {
                    self.intr2("smax", t, &r, "0")
                } else {
                    r
                };
                (r, t)
            }
            _ => return fail(&self.form(), "integer opcode"),
        };
        self.wr(&ops[0], &r, rt, s)
    }

    /// Extended-precision add/sub/mad with the carry flag (PTX ISA 9.x §9.7.2): the flag is a
    /// function-local `i1` (`%cc`).
    pub(super) fn carry(&mut self, op: Opcode, mo: &Mods, t: Ty, ops: &[Operand<'a>]) -> R<()> {
        if !self.has_cc {
            self.has_cc = true;
            let s = self.alloca_suffix();
            let _ = writeln!(self.allocas, "  %cc = alloca i1{s}");
        }
        let ll = t.ll();
        let pa = self.pa.clone();
        let cc_out = mo.has(Mod::Cc);
        let a = self.rd(&ops[1], t, false)?;
        let b = self.rd(&ops[2], t, false)?;
        let (a, b) = if matches!(op, Opcode::Mad | Opcode::Madc) {
            let w = t.bits();
            let dt = Ty::int(w * 2);
            let s = mo.has(Mod::S32) || mo.has(Mod::S64);
            let ext = if s { "sext" } else { "zext" };
            let a2 = opv!(self, [&ext, &" ", &ll, &" ", &a, &" to ", &(dt.ll())]);
            let b2 = opv!(self, [&ext, &" ", &ll, &" ", &b, &" to ", &(dt.ll())]);
            let p = opv!(self, [&"mul ", &(dt.ll()), &" ", &a2, &", ", &b2]);
            let p = if mo.has(Mod::Hi) {
                opv!(self, [&"lshr ", &(dt.ll()), &" ", &p, &", ", &w])
            } else {
                p
            };
            let p = opv!(self, [&"trunc ", &(dt.ll()), &" ", &p, &" to ", &ll]);
            let c = self.rd(&ops[3], t, false)?;
            (p, c)
        } else {
            (a, b)
        };
        let sub = matches!(op, Opcode::Sub | Opcode::Subc);
        let cin = matches!(op, Opcode::Addc | Opcode::Subc | Opcode::Madc);
        let f = if sub { "usub" } else { "uadd" };
        let n = format!("llvm.{f}.with.overflow.{}", t.suffix());
        self.decl(&n, &format!("declare {{ {ll}, i1 }} @{n}({ll}, {ll})"));
        let r1 = opv!(
            self,
            [
                &"call { ",
                &ll,
                &", i1 } @",
                &n,
                &"(",
                &ll,
                &" ",
                &a,
                &", ",
                &ll,
                &" ",
                &b,
                &")",
            ]
        );
        let v1 = opv!(self, [&"extractvalue { ", &ll, &", i1 } ", &r1, &", 0"]);
        let o1 = opv!(self, [&"extractvalue { ", &ll, &", i1 } ", &r1, &", 1"]);
        let (v, o) = if cin {
            let c = opv!(self, [&"load i1, ", &pa, &" %cc"]);
            let cz = opv!(self, [&"zext i1 ", &c, &" to ", &ll]);
            let r2 = opv!(
                self,
                [
                    &"call { ",
                    &ll,
                    &", i1 } @",
                    &n,
                    &"(",
                    &ll,
                    &" ",
                    &v1,
                    &", ",
                    &ll,
                    &" ",
                    &cz,
                    &")",
                ]
            );
            let v2 = opv!(self, [&"extractvalue { ", &ll, &", i1 } ", &r2, &", 0"]);
            let o2 = opv!(self, [&"extractvalue { ", &ll, &", i1 } ", &r2, &", 1"]);
            let o = opv!(self, [&"or i1 ", &o1, &", ", &o2]);
            (v2, o)
        } else {
            (v1, o1)
        };
        if cc_out {
            linev!(self, [&"store i1 ", &o, &", ", &pa, &" %cc"]);
        }
        self.wr(&ops[0], &v, t, false)
    }

    /// `add`, `min`, `max` on two 16-bit lanes of a `.b32` register (`.s16x2`, `.u16x2`; PTX
    /// ISA 9.x §9.7.1.1, §9.7.1.10-11): each lane separately, `add` wrapping; `.relu` of the
    /// signed `min`/`max` clamps a negative lane to 0. Generic IR on `<2 x i16>`.
    pub(super) fn simd16x2(&mut self, op: Opcode, mo: &Mods, ops: &[Operand<'a>]) -> R<()> {
        let signed = mo.has(Mod::S16x2);
        let a = self.rd(&ops[1], Ty::I32, false)?;
        let b = self.rd(&ops[2], Ty::I32, false)?;
        let va = opv!(self, [&"bitcast i32 ", &a, &" to <2 x i16>"]);
        let vb = opv!(self, [&"bitcast i32 ", &b, &" to <2 x i16>"]);
        let mut r = match op {
            Opcode::Add => opv!(self, [&"add <2 x i16> ", &va, &", ", &vb]),
            Opcode::Min | Opcode::Max => {
                let f = match (op == Opcode::Min, signed) {
                    (true, true) => "llvm.smin.v2i16",
                    (true, false) => "llvm.umin.v2i16",
                    (false, true) => "llvm.smax.v2i16",
                    (false, false) => "llvm.umax.v2i16",
                };
                self.declare(f, "<2 x i16>", &["<2 x i16>", "<2 x i16>"]);
                opv!(
                    self,
                    [
                        &"call <2 x i16> @",
                        &f,
                        &"(<2 x i16> ",
                        &va,
                        &", <2 x i16> ",
                        &vb,
                        &")"
                    ]
                )
            }
            _ => return fail(&self.form(), "no 16x2 form of this instruction"),
        };
        if mo.has(Mod::Relu) {
            if !signed || op == Opcode::Add {
                return fail(&self.form(), ".relu is only defined for min/max.s16x2");
            }
            self.declare("llvm.smax.v2i16", "<2 x i16>", &["<2 x i16>", "<2 x i16>"]);
            r = opv!(
                self,
                [
                    &"call <2 x i16> @llvm.smax.v2i16(<2 x i16> ",
                    &r,
                    &", <2 x i16> zeroinitializer)"
                ]
            );
        }
        let d = opv!(self, [&"bitcast <2 x i16> ", &r, &" to i32"]);
        self.wr(&ops[0], &d, Ty::I32, false)
    }
}
