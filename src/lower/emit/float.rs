//! Floating-point arithmetic (PTX ISA 9.x §9.7.3) and half precision (§9.7.4): `add`, `sub`,
//! `mul`, `fma`/`mad`, `div`, `min`/`max`, `rcp`, `sqrt`, `rsqrt`, the approximate functions,
//! `copysign`, `testp`, with rounding, `.ftz`, `.sat` and `.relu`; comparison and selection
//! (§9.7.6): `setp`, `set`, `slct`.

use super::*;
use crate::target::NanMode;

impl<'c, 'm, 'a> Fx<'c, 'm, 'a> {
    /// `slct`, `rcp`/`sqrt`/`rsqrt` and the approximate functions, `copysign`, `testp`.
    pub(super) fn float_inst(
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
        use Opcode as O;
        match i.opcode {
            O::Slct => {
                let (t, _) = ty1(0)?;
                let (ct, ck) = ty1(1)?;
                let a = self.rd(&ops[1], t, false)?;
                let b = self.rd(&ops[2], t, false)?;
                let c = self.rd(&ops[3], ct, false)?;
                let cond = if ck == Kind::Float {
                    let c = self.ftz_in(mo, ct, &c);
                    opv!(self, [&"fcmp oge ", &(ct.ll()), &" ", &c, &", 0.0"])
                } else {
                    opv!(self, [&"icmp sge ", &(ct.ll()), &" ", &c, &", 0"])
                };
                let r = self.select(&cond, t.ll(), &a, &b);
                self.wr(&ops[0], &r, t, false)?;
            }
            O::Rcp | O::Sqrt | O::Rsqrt | O::Sin | O::Cos | O::Lg2 | O::Ex2 | O::Tanh => {
                let (t, _) = ty1(0)?;
                self.funary(i.opcode, mo, t, ops)?;
            }
            O::Copysign => {
                let (t, _) = ty1(0)?;
                let a = self.rd(&ops[1], t, false)?;
                let b = self.rd(&ops[2], t, false)?;
                let r = self.intr2("copysign", t, &b, &a);
                self.wr(&ops[0], &r, t, false)?;
            }
            O::Testp => {
                let (t, _) = ty1(0)?;
                let a = self.rd(&ops[1], t, false)?;
                let ab = self.intr1("fabs", t, &a);
                let ll = t.ll();
                let r = if mo.has(Mod::Finite) {
                    opv!(
                        self,
                        [&"fcmp one ", &ll, &" ", &ab, &", 0x7FF0000000000000"]
                    )
                } else if mo.has(Mod::Infinite) {
                    opv!(
                        self,
                        [&"fcmp oeq ", &ll, &" ", &ab, &", 0x7FF0000000000000"]
                    )
                } else if mo.has(Mod::Number) {
                    opv!(self, [&"fcmp ord ", &ll, &" ", &a, &", 0.0"])
                } else if mo.has(Mod::Notanumber) {
                    opv!(self, [&"fcmp uno ", &ll, &" ", &a, &", 0.0"])
                } else {
                    let min = if t == Ty::F32 {
                        "0x3810000000000000"
                    } else {
                        "0x0010000000000000"
                    };
                    if mo.has(Mod::Normal) {
                        // Zero counts as normal (the H200 agrees: testp.normal 0.0 is true).
                        let x = opv!(self, [&"fcmp oge ", &ll, &" ", &ab, &", ", &min]);
                        let y = opv!(
                            self,
                            [&"fcmp one ", &ll, &" ", &ab, &", 0x7FF0000000000000"]
                        );
                        let x = opv!(self, [&"and i1 ", &x, &", ", &y]);
                        let z = opv!(self, [&"fcmp oeq ", &ll, &" ", &ab, &", 0.0"]);
                        opv!(self, [&"or i1 ", &x, &", ", &z])
                    } else {
                        let x = opv!(self, [&"fcmp olt ", &ll, &" ", &ab, &", ", &min]);
                        let y = opv!(self, [&"fcmp one ", &ll, &" ", &ab, &", 0.0"]);
                        opv!(self, [&"and i1 ", &x, &", ", &y])
                    }
                };
                self.wr(&ops[0], &r, Ty::I1, false)?;
            }
            _ => return fail(&form_of(i), "no lowering for this instruction"),
        }
        Ok(())
    }

    /// `v` with a NaN replaced by NVIDIA's canonical NaN when the profile asks for it
    /// ([`NanMode::Canonical`], amdgcn only): f32 `0x7fffffff`, f16 and bf16 (each element of
    /// their pairs) `0x7fff`; other types, and every type in [`NanMode::Native`], unchanged.
    pub(super) fn nan_out(&mut self, t: Ty, v: &str) -> V {
        if self.cx.nv || self.cx.prof.nan != NanMode::Canonical {
            return V::new(v);
        }
        let (it, c, m) = match t {
            Ty::F32 => ("i32", "2147483647", "i1"),
            Ty::F16 | Ty::Bf16 => ("i16", "32767", "i1"),
            Ty::V2F16 | Ty::V2Bf16 => ("<2 x i16>", "<i16 32767, i16 32767>", "<2 x i1>"),
            _ => return V::new(v),
        };
        let ll = t.ll();
        let isnan = opv!(self, [&"fcmp uno ", &ll, &" ", &v, &", ", &v]);
        let i = opv!(self, [&"bitcast ", &ll, &" ", &v, &" to ", &it]);
        let s = opv!(
            self,
            [&"select ", &m, &" ", &isnan, &", ", &it, &" ", &c, &", ", &it, &" ", &i]
        );
        opv!(self, [&"bitcast ", &it, &" ", &s, &" to ", &ll])
    }

    pub(super) fn ftz_in(&mut self, mo: &Mods, t: Ty, v: &str) -> V {
        if t == Ty::F32 && mo.has(Mod::Ftz) {
            self.call("__wp_ftz_f32", Ty::F32, &[(Ty::F32, v)])
        } else {
            V::new(v)
        }
    }

    pub(super) fn ftz_out(&mut self, mo: &Mods, t: Ty, v: &str) -> V {
        self.ftz_in(mo, t, v)
    }

    pub(super) fn sat(&mut self, mo: &Mods, t: Ty, v: &str) -> V {
        if !mo.has(Mod::Sat) {
            return V::new(v);
        }
        let z = imm(ImmValue::Float(0.0), t);
        let one = match t {
            // 1.0 in both halves (f16 0x3C00, bf16 0x3F80).
            Ty::V2F16 => imm(ImmValue::UInt(0x3C00_3C00), t),
            Ty::V2Bf16 => imm(ImmValue::UInt(0x3F80_3F80), t),
            _ => imm(ImmValue::Float(1.0), t),
        };
        // NaN → 0 (PTX ISA 9.x §9.7.3: .sat clamps to [0.0, 1.0], NaN results are 0).
        let m = self.intr2("maxnum", t, v, &z);
        self.intr2("minnum", t, &m, &one)
    }

    pub(super) fn farith(&mut self, op: Opcode, mo: &Mods, t: Ty, ops: &[Operand<'a>]) -> R<()> {
        let rnd = mo.rounding.unwrap_or(Rounding::Rn);
        let ll = t.ll();
        let a = self.rd(&ops[1], t, false)?;
        let a = self.ftz_in(mo, t, &a);
        let b = self.rd(&ops[2], t, false)?;
        let b = self.ftz_in(mo, t, &b);
        let scalar = matches!(t, Ty::F32 | Ty::F64);
        let directed = rnd.is_directed();
        if directed && !scalar {
            return fail(&self.form(), "directed rounding of half precision");
        }
        let r = match op {
            Opcode::Add | Opcode::Sub => {
                let b = if op == Opcode::Sub {
                    opv!(self, [&"fneg ", &ll, &" ", &b])
                } else {
                    b
                };
                if directed {
                    let f = format!("__wp_add_{}_{}", rnd.bare(), t.suffix());
                    self.call(&f, t, &[(t, &a), (t, &b)])
                } else {
                    opv!(self, [&"fadd ", &ll, &" ", &a, &", ", &b])
                }
            }
            Opcode::Mul => {
                if directed {
                    let f = format!("__wp_mul_{}_{}", rnd.bare(), t.suffix());
                    self.call(&f, t, &[(t, &a), (t, &b)])
                } else {
                    opv!(self, [&"fmul ", &ll, &" ", &a, &", ", &b])
                }
            }
            Opcode::Mad | Opcode::Fma => {
                let c = self.rd(&ops[3], t, false)?;
                let c = self.ftz_in(mo, t, &c);
                if directed {
                    let f = format!("__wp_fma_{}_{}", rnd.bare(), t.suffix());
                    self.call(&f, t, &[(t, &a), (t, &b), (t, &c)])
                } else if !self.cx.nv && matches!(t, Ty::Bf16 | Ty::V2Bf16) {
                    // LLVM widens a bfloat fma to binary32 and rounds twice; the support
                    // library rounds once (kernels-ir/gen.py).
                    let f = format!("__wp_fma_rn_{}", t.suffix());
                    self.call(&f, t, &[(t, &a), (t, &b), (t, &c)])
                } else {
                    self.intr3("fma", t, &a, &b, &c)
                }
            }
            Opcode::Div => {
                if directed {
                    let f = format!("__wp_div_{}_{}", rnd.bare(), t.suffix());
                    self.call(&f, t, &[(t, &a), (t, &b)])
                } else if mo.has(Mod::Approx) && t == Ty::F32 {
                    // The support library's (nvptx: the hardware's div.approx, which is 0 for
                    // 2^126 < |b| < 2^128, PTX ISA 9.x §9.7.3.8).
                    self.call("__wp_div_approx_f32", t, &[(t, &a), (t, &b)])
                } else if mo.has(Mod::Approx) {
                    opv!(self, [&"fdiv afn ", &ll, &" ", &a, &", ", &b])
                } else {
                    opv!(self, [&"fdiv ", &ll, &" ", &a, &", ", &b])
                }
            }
            Opcode::Min | Opcode::Max => {
                if mo.has(Mod::Xorsign) {
                    return fail(&self.form(), "min/max .xorsign.abs");
                }
                let nan = mo.has(Mod::NaN);
                let f = match (op == Opcode::Min, nan) {
                    (true, false) => "minnum",
                    (false, false) => "maxnum",
                    (true, true) => "minimum",
                    (false, true) => "maximum",
                };
                // PTX's max/min.bf16 return the other operand of a signalling NaN. LLVM 19's
                // AMDGPU back end promotes bf16 maxnum/minnum to f32 by a shift without quieting,
                // and IEEE-mode v_max_f32 returns a signalling NaN operand quieted
                // (docs/executed-isa.md), so the operands are quieted first.
                let (a, b) = if !self.cx.nv && !nan && matches!(t, Ty::Bf16 | Ty::V2Bf16) {
                    (self.quiet_bf16(t, &a), self.quiet_bf16(t, &b))
                } else {
                    (a, b)
                };
                self.intr2(f, t, &a, &b)
            }
            _ => return fail(&self.form(), "float opcode"),
        };
        let r = if mo.has(Mod::Relu) {
            // -0.0 becomes +0.0 as well (the H200 agrees).
            let z = opv!(self, [&"fcmp ole ", &ll, &" ", &r, &", zeroinitializer"]);
            opv!(
                self,
                [
                    &"select ",
                    &({
                        if matches!(t, Ty::V2F16 | Ty::V2Bf16) {
                            "<2 x i1>"
                        } else {
                            "i1"
                        }
                    }),
                    &" ",
                    &z,
                    &", ",
                    &ll,
                    &" zeroinitializer, ",
                    &ll,
                    &" ",
                    &r,
                ]
            )
        } else {
            r
        };
        let r = self.sat(mo, t, &r);
        let r = self.ftz_out(mo, t, &r);
        let r = self.nan_out(t, &r);
        self.wr(&ops[0], &r, t, false)
    }

    /// `v` (bfloat or <2 x bfloat>) with each signalling NaN made quiet (bit 6 set), in
    /// integer operations LLVM keeps.
    fn quiet_bf16(&mut self, t: Ty, v: &V) -> V {
        let (it, m, q) = if t == Ty::V2Bf16 {
            (
                "<2 x i16>",
                "<i16 32767, i16 32767>, ",
                ("<i16 32640, i16 32640>", "<i16 64, i16 64>", "<2 x i1>"),
            )
        } else {
            ("i16", "32767, ", ("32640", "64", "i1"))
        };
        let ll = t.ll();
        let i = opv!(self, [&"bitcast ", &ll, &" ", v, &" to ", &it]);
        let mag = opv!(
            self,
            [&"and ", &it, &" ", &i, &", ", &m.trim_end_matches(", ")]
        );
        let isnan = opv!(self, [&"icmp ugt ", &it, &" ", &mag, &", ", &q.0]);
        let quiet = opv!(self, [&"or ", &it, &" ", &i, &", ", &q.1]);
        let sel = opv!(
            self,
            [&"select ", &q.2, &" ", &isnan, &", ", &it, &" ", &quiet, &", ", &it, &" ", &i]
        );
        opv!(self, [&"bitcast ", &it, &" ", &sel, &" to ", &ll])
    }

    pub(super) fn funary(&mut self, op: Opcode, mo: &Mods, t: Ty, ops: &[Operand<'a>]) -> R<()> {
        let ll = t.ll();
        let a = self.rd(&ops[1], t, false)?;
        let a = self.ftz_in(mo, t, &a);
        let rnd = mo.rounding;
        let directed = rnd.is_some_and(Rounding::is_directed);
        let one = imm(ImmValue::Float(1.0), t);
        // .approx.ftz.f32 on amdgcn: the hardware's transcendental instructions (V_EXP_F32,
        // V_LOG_F32, V_RCP_F32, V_SQRT_F32, V_RSQ_F32: 1 ulp), with no denormal fix-ups, as
        // subnormal inputs and results are flushed anyway (PTX ISA 9.x §9.7.3).
        if !self.cx.nv
            && t == Ty::F32
            && !directed
            && mo.has(Mod::Approx)
            && mo.has(Mod::Ftz)
            && matches!(
                op,
                Opcode::Ex2 | Opcode::Lg2 | Opcode::Rcp | Opcode::Sqrt | Opcode::Rsqrt
            )
        {
            let f = format!("__wp_{}_approx_ftz_f32", op.name());
            let r = self.call(&f, t, &[(t, &a)]);
            let r = self.ftz_out(mo, t, &r);
            let r = self.nan_out(t, &r);
            return self.wr(&ops[0], &r, t, false);
        }
        let r = match op {
            Opcode::Rcp => {
                if directed {
                    let f = format!("__wp_div_{}_{}", rnd.map_or("", Rounding::bare), t.suffix());
                    self.call(&f, t, &[(t, &one), (t, &a)])
                } else if mo.has(Mod::Approx) && t == Ty::F32 {
                    let f = if mo.has(Mod::Ftz) {
                        "__wp_rcp_approx_ftz_f32"
                    } else {
                        "__wp_rcp_approx_f32"
                    };
                    self.call(f, t, &[(t, &a)])
                } else if mo.has(Mod::Approx) && t == Ty::F64 {
                    // rcp.approx.ftz.f64 (PTX ISA 9.x §9.7.3.11): the support library's (nvptx:
                    // the hardware instruction, whose low 32 result bits are zero).
                    self.call("__wp_rcp_approx_ftz_f64", t, &[(t, &a)])
                } else if mo.has(Mod::Approx) {
                    opv!(self, [&"fdiv afn ", &ll, &" ", &one, &", ", &a])
                } else {
                    opv!(self, [&"fdiv ", &ll, &" ", &one, &", ", &a])
                }
            }
            Opcode::Sqrt => {
                if directed {
                    let f = format!(
                        "__wp_sqrt_{}_{}",
                        rnd.map_or("", Rounding::bare),
                        t.suffix()
                    );
                    self.call(&f, t, &[(t, &a)])
                } else if mo.has(Mod::Approx) && t == Ty::F32 {
                    self.call("__wp_sqrt_approx_f32", t, &[(t, &a)])
                } else if mo.has(Mod::Approx) {
                    let n = format!("llvm.sqrt.{}", t.suffix());
                    self.decl(&n, &format!("declare {ll} @{n}({ll})"));
                    opv!(
                        self,
                        [&"call afn ", &ll, &" @", &n, &"(", &ll, &" ", &a, &")"]
                    )
                } else {
                    self.intr1("sqrt", t, &a)
                }
            }
            Opcode::Rsqrt if matches!(t, Ty::F32 | Ty::F64) => {
                // The support library's (nvptx: the hardware's rsqrt.approx, which libdevice's
                // full-precision rsqrt refines, so its exact bits matter).
                // rsqrt.approx.ftz.f64 is a different instruction from rsqrt.approx.f64 (the
                // H200's results differ in the low bits).
                let ftz = if t == Ty::F64 && mo.has(Mod::Ftz) {
                    "ftz_"
                } else {
                    ""
                };
                self.call(
                    &format!("__wp_rsqrt_approx_{ftz}{}", t.suffix()),
                    t,
                    &[(t, &a)],
                )
            }
            Opcode::Rsqrt => {
                let n = format!("llvm.sqrt.{}", t.suffix());
                self.decl(&n, &format!("declare {ll} @{n}({ll})"));
                let s = opv!(
                    self,
                    [&"call afn ", &ll, &" @", &n, &"(", &ll, &" ", &a, &")"]
                );
                opv!(self, [&"fdiv afn ", &ll, &" ", &one, &", ", &s])
            }
            Opcode::Sin | Opcode::Cos | Opcode::Lg2 | Opcode::Ex2 | Opcode::Tanh => {
                if !matches!(t, Ty::F32) {
                    return fail(&self.form(), "approximate function of this type");
                }
                let f = format!("__wp_{}_approx_f32", op.name());
                self.call(&f, t, &[(t, &a)])
            }
            _ => return fail(&self.form(), "float opcode"),
        };
        let r = self.ftz_out(mo, t, &r);
        let r = self.nan_out(t, &r);
        self.wr(&ops[0], &r, t, false)
    }

    pub(super) fn setp(&mut self, mo: &Mods, ops: &[Operand<'a>]) -> R<()> {
        let Some(&pt) = mo.types().last() else {
            return fail(&self.form(), "setp without a type");
        };
        let (t, k) = of_ptx(pt).ok_or_else(|| Fail {
            form: self.form(),
            reason: "type".into(),
        })?;
        if matches!(t, Ty::V2F16 | Ty::V2Bf16) {
            return fail(&self.form(), "setp on packed halves");
        }
        let a = self.rd(&ops[1], t, false)?;
        let a = self.ftz_in(mo, t, &a);
        let b = self.rd(&ops[2], t, false)?;
        let b = self.ftz_in(mo, t, &b);
        let c = self.compare(mo.cmp, t, k, &a, &b)?;
        let (p, q) = match &ops[0] {
            Operand::Pair(pair) => (Operand::Reg(pair.0.into()), Some(pair.1)),
            o => (o.clone(), None),
        };
        let (pv, qv) = match mo.bool_op {
            Some(bo) => {
                let x = self.rd(&ops[3], Ty::I1, false)?;
                let o = bo.bare();
                let pv = opv!(self, [&o, &" i1 ", &c, &", ", &x]);
                let nc = opv!(self, [&"xor i1 ", &c, &", true"]);
                let qv = opv!(self, [&o, &" i1 ", &nc, &", ", &x]);
                (pv, qv)
            }
            None => {
                let nc = opv!(self, [&"xor i1 ", &c, &", true"]);
                (c, nc)
            }
        };
        self.wr(&p, &pv, Ty::I1, false)?;
        if let Some(q) = q {
            if q != "_" {
                self.wr(&Operand::Reg(q.into()), &qv, Ty::I1, false)?;
            }
        }
        Ok(())
    }

    /// `cmp` of `a` and `b` (type `t` of kind `k`) as an `i1` (`None`: the instruction has no
    /// comparison).
    pub(super) fn compare(&mut self, cmp: Option<CmpOp>, t: Ty, k: Kind, a: &str, b: &str) -> R<V> {
        let Some(cmp) = cmp else {
            return fail(&self.form(), "comparison missing");
        };
        let ll = t.ll();
        use CmpOp as C;
        if k == Kind::Float {
            let p = match cmp {
                C::Eq => "oeq",
                C::Ne => "one",
                C::Lt => "olt",
                C::Le => "ole",
                C::Gt => "ogt",
                C::Ge => "oge",
                C::Equ => "ueq",
                C::Neu => "une",
                C::Ltu => "ult",
                C::Leu => "ule",
                C::Gtu => "ugt",
                C::Geu => "uge",
                C::Num => "ord",
                C::Nan => "uno",
                _ => return fail(&self.form(), format!("comparison {}", cmp.name())),
            };
            return Ok(opv!(self, [&"fcmp ", &p, &" ", &ll, &" ", &a, &", ", &b]));
        }
        let s = k == Kind::Signed;
        let p = match (cmp, s) {
            (C::Eq, _) => "eq",
            (C::Ne, _) => "ne",
            (C::Lt, true) => "slt",
            (C::Le, true) => "sle",
            (C::Gt, true) => "sgt",
            (C::Ge, true) => "sge",
            (C::Lt, false) | (C::Lo, _) => "ult",
            (C::Le, false) | (C::Ls, _) => "ule",
            (C::Gt, false) | (C::Hi, _) => "ugt",
            (C::Ge, false) | (C::Hs, _) => "uge",
            _ => return fail(&self.form(), format!("comparison {}", cmp.name())),
        };
        Ok(opv!(self, [&"icmp ", &p, &" ", &ll, &" ", &a, &", ", &b]))
    }

    pub(super) fn set(&mut self, mo: &Mods, ops: &[Operand<'a>]) -> R<()> {
        let tys = mo.types();
        if tys.len() != 2 {
            return fail(&self.form(), "set needs two types");
        }
        let (dt, dk) = of_ptx(tys[0]).unwrap_or((Ty::I32, Kind::Bits));
        let (st, sk) = of_ptx(tys[1]).unwrap_or((Ty::I32, Kind::Bits));
        if matches!(st, Ty::V2F16 | Ty::V2Bf16) {
            // set.CmpOp.{u32,s32,f16x2}.{f16x2,bf16x2} (PTX ISA 9.x §9.7.4.6): each half
            // compared; the half of d is 0xFFFF / 0 (integer d) or 1.0 / 0.0 (f16x2 d).
            if mo.bool_op.is_some() || mo.has(Mod::Ftz) {
                return fail(
                    &self.form(),
                    "set on packed halves with .ftz or a boolean op",
                );
            }
            let a = self.rd(&ops[1], st, false)?;
            let b = self.rd(&ops[2], st, false)?;
            let c = self.compare(mo.cmp, st, Kind::Float, &a, &b)?;
            let r = match dt {
                Ty::V2F16 | Ty::V2Bf16 => {
                    let one = if dt == Ty::V2F16 {
                        0x3C00_3C00
                    } else {
                        0x3F80_3F80
                    };
                    let one = imm(ImmValue::UInt(one), dt);
                    let v = opv!(
                        self,
                        [
                            &"select <2 x i1> ",
                            &c,
                            &", ",
                            &(dt.ll()),
                            &" ",
                            &one,
                            &", ",
                            &(dt.ll()),
                            &" zeroinitializer"
                        ]
                    );
                    return self.wr(&ops[0], &v, dt, false);
                }
                _ if dt.bits() == 32 => {
                    let m = opv!(self, [&"sext <2 x i1> ", &c, &" to <2 x i16>"]);
                    opv!(self, [&"bitcast <2 x i16> ", &m, &" to i32"])
                }
                _ => return fail(&self.form(), "set on packed halves to this type"),
            };
            return self.wr(&ops[0], &r, Ty::I32, false);
        }
        if matches!(dt, Ty::V2F16 | Ty::V2Bf16) {
            return fail(&self.form(), "set to packed halves from scalars");
        }
        let a = self.rd(&ops[1], st, false)?;
        let a = self.ftz_in(mo, st, &a);
        let b = self.rd(&ops[2], st, false)?;
        let b = self.ftz_in(mo, st, &b);
        let mut c = self.compare(mo.cmp, st, sk, &a, &b)?;
        if let Some(bo) = mo.bool_op {
            let x = self.rd(&ops[3], Ty::I1, false)?;
            c = opv!(self, [&bo.bare(), &" i1 ", &c, &", ", &x]);
        }
        let (one, zero) = if dk == Kind::Float {
            (imm(ImmValue::Float(1.0), dt), imm(ImmValue::Float(0.0), dt))
        } else {
            ("-1".to_string(), "0".to_string())
        };
        let r = self.select(&c, dt.ll(), &one, &zero);
        self.wr(&ops[0], &r, dt, false)
    }
}
