//! Conversions (PTX ISA 9.x §9.7.9.21 `cvt`): integer ↔ integer (with `.sat`), float →
//! integer (rounded, saturating), integer → float and float ↔ float with every rounding
//! mode, packed halves, `.relu`, `cvt.pack.sat` and `cvt.rna.tf32.f32`.

use super::*;

impl<'c, 'm, 'a> Fx<'c, 'm, 'a> {
    pub(super) fn cvt(&mut self, mo: &Mods, ops: &[Operand<'a>]) -> R<()> {
        let tys = mo.types();
        let cur = self.cur;
        let form = || cur.map(form_of).unwrap_or_default();
        if tys.len() < 2 {
            return fail(&form(), "cvt needs a destination and a source type");
        }
        if mo.has(Mod::Pack) && mo.has(Mod::Sat) && !mo.has(Mod::Satfinite) {
            // cvt.pack.sat.{s8,u8}.s32.b32 d, a, b, c / cvt.pack.sat.{s16,u16}.s32 d, a, b
            // (PTX ISA 9.x §9.7.9.22): a and b saturated to the narrow type; b in the lowest
            // field, a above it, the bits above taken from the low bits of c.
            let dt = tys[0];
            let (nb, signed) = match dt {
                Type::S8 => (8, true),
                Type::U8 => (8, false),
                Type::S16 => (16, true),
                Type::U16 => (16, false),
                _ => return fail(&form(), "cvt.pack type"),
            };
            let want = if nb == 8 { 4 } else { 3 };
            if tys.get(1) != Some(&Type::S32) || ops.len() != want {
                return fail(&form(), "cvt.pack operands");
            }
            let nt = Ty::int(nb);
            let a = self.rd(&ops[1], Ty::I32, true)?;
            let b = self.rd(&ops[2], Ty::I32, true)?;
            let sa = self.int_sat(&a, Ty::I32, true, nt, signed);
            let sb = self.int_sat(&b, Ty::I32, true, nt, signed);
            let za = opv!(self, [&"zext ", &(nt.ll()), &" ", &sa, &" to i32"]);
            let zb = opv!(self, [&"zext ", &(nt.ll()), &" ", &sb, &" to i32"]);
            let ha = opv!(self, [&"shl i32 ", &za, &", ", &nb]);
            let mut r = opv!(self, [&"or i32 ", &ha, &", ", &zb]);
            if nb == 8 {
                let c = self.rd(&ops[3], Ty::I32, false)?;
                let hc = opv!(self, [&"shl i32 ", &c, &", 16"]);
                r = opv!(self, [&"or i32 ", &r, &", ", &hc]);
            }
            return self.wr(&ops[0], &r, Ty::I32, false);
        }
        if mo.has(Mod::Pack) || mo.has(Mod::Satfinite) || tys.len() != 2 {
            return fail(&form(), "cvt form");
        }
        if tys[0] == Type::Tf32 && tys[1] == Type::F32 && mo.has(Mod::Rna) {
            // cvt.rna.tf32.f32 (PTX ISA 9.x §9.7.9.21): f32 rounded to 10 mantissa bits,
            // nearest with ties away from zero, as a .b32 with the low 13 bits zero; NaN and
            // infinity bits are truncated (as the H200 does: 0x7f800001 gives 0x7f800000).
            let a = self.rd(&ops[1], Ty::I32, false)?;
            let exp = opv!(self, [&"and i32 ", &a, &", 2139095040"]);
            let special = opv!(self, [&"icmp eq i32 ", &exp, &", 2139095040"]);
            let rd = opv!(self, [&"add i32 ", &a, &", 4096"]);
            let rd = opv!(self, [&"and i32 ", &rd, &", -8192"]);
            let tr = opv!(self, [&"and i32 ", &a, &", -8192"]);
            let r = opv!(
                self,
                [&"select i1 ", &special, &", i32 ", &tr, &", i32 ", &rd]
            );
            return self.wr(&ops[0], &r, Ty::I32, false);
        }
        let (dt, dk) = of_ptx(tys[0]).ok_or_else(|| Fail {
            form: form(),
            reason: format!("cvt to {}", tys[0].as_str()),
        })?;
        let (st, sk) = of_ptx(tys[1]).ok_or_else(|| Fail {
            form: form(),
            reason: format!("cvt from {}", tys[1].as_str()),
        })?;
        if tys[0] == Type::Tf32 || tys[1] == Type::Tf32 {
            return fail(&form(), "tf32 conversion");
        }
        let rnd = mo.rounding;
        let sat = mo.has(Mod::Sat);
        let ssigned = sk == Kind::Signed;
        // Packed pair: cvt.rn.f16x2.f32 d, a, b → d = {hi: a, lo: b}.
        if matches!(dt, Ty::V2F16 | Ty::V2Bf16) {
            if st != Ty::F32 || ops.len() != 3 || !matches!(rnd, Some(Rounding::Rn | Rounding::Rz))
            {
                return fail(&form(), "packed conversion");
            }
            let et = if dt == Ty::V2F16 { Ty::F16 } else { Ty::Bf16 };
            let a = self.rd(&ops[1], Ty::F32, false)?;
            let b = self.rd(&ops[2], Ty::F32, false)?;
            let one = |fx: &mut Self, x: &str| -> V {
                let r = fx.narrow_f32(x, et);
                if rnd == Some(Rounding::Rz) {
                    let rw = opv!(fx, [&"fpext ", &(et.ll()), &" ", &r, &" to float"]);
                    let gt = opv!(fx, [&"fcmp ogt float ", &rw, &", ", &x]);
                    let lt = opv!(fx, [&"fcmp olt float ", &rw, &", ", &x]);
                    fx.directed_fix(Rounding::Rz, et, &r, &gt, &lt)
                } else {
                    r
                }
            };
            let ah = one(self, &a);
            let bh = one(self, &b);
            let (ah, bh) = if mo.has(Mod::Relu) {
                (self.relu(et, &ah), self.relu(et, &bh))
            } else {
                (ah, bh)
            };
            let v0 = opv!(
                self,
                [
                    &"insertelement ",
                    &(dt.ll()),
                    &" poison, ",
                    &(et.ll()),
                    &" ",
                    &bh,
                    &", i32 0",
                ]
            );
            let v1 = opv!(
                self,
                [
                    &"insertelement ",
                    &(dt.ll()),
                    &" ",
                    &v0,
                    &", ",
                    &(et.ll()),
                    &" ",
                    &ah,
                    &", i32 1",
                ]
            );
            // NVIDIA's packed conversions write the canonical NaN (H200).
            let v1 = self.nan_out(dt, &v1);
            return self.wr(&ops[0], &v1, dt, false);
        }
        if matches!(st, Ty::V2F16 | Ty::V2Bf16) {
            return fail(&form(), "conversion from a packed pair");
        }
        let a = self.rd(&ops[1], st, ssigned)?;
        let a = if st == Ty::F32 {
            self.ftz_in(mo, st, &a)
        } else {
            a
        };
        let r = match (sk == Kind::Float, dk == Kind::Float) {
            (false, false) => {
                // Integer ↔ integer: extend by the source's signedness, saturate on request.
                let (sb, db) = (st.bits(), dt.bits());
                let dsigned = dk == Kind::Signed;
                let v = if sat {
                    self.int_sat(&a, st, ssigned, dt, dsigned)
                } else if sb < db {
                    let e = if ssigned { "sext" } else { "zext" };
                    opv!(self, [&e, &" ", &(st.ll()), &" ", &a, &" to ", &(dt.ll())])
                } else if sb > db {
                    opv!(self, [&"trunc ", &(st.ll()), &" ", &a, &" to ", &(dt.ll())])
                } else {
                    a
                };
                return self.wr(&ops[0], &v, dt, dsigned);
            }
            (true, false) => {
                // Float → integer: round to an integer value, then convert saturating (PTX ISA
                // 9.x §9.7.9.21: float-to-integer conversions clamp, NaN gives 0).
                let f = match rnd {
                    Some(Rounding::Rni) | None => "roundeven",
                    Some(Rounding::Rzi) => "trunc",
                    Some(Rounding::Rmi) => "floor",
                    Some(Rounding::Rpi) => "ceil",
                    _ => return fail(&form(), "float-to-integer rounding"),
                };
                let (a, st) = if matches!(st, Ty::F16 | Ty::Bf16) {
                    (
                        opv!(self, [&"fpext ", &(st.ll()), &" ", &a, &" to float"]),
                        Ty::F32,
                    )
                } else {
                    (a, st)
                };
                let rv = self.intr1(f, st, &a);
                let dsigned = dk == Kind::Signed;
                let cf = if dsigned { "fptosi.sat" } else { "fptoui.sat" };
                let n = format!("llvm.{cf}.{}.{}", dt.suffix(), st.suffix());
                self.decl(&n, &format!("declare {} @{n}({})", dt.ll(), st.ll()));
                let v = opv!(
                    self,
                    [
                        &"call ",
                        &(dt.ll()),
                        &" @",
                        &n,
                        &"(",
                        &(st.ll()),
                        &" ",
                        &rv,
                        &")"
                    ]
                );
                // NaN gives 0, except from f64 or to a 64-bit integer, where the H200 gives
                // the top bit alone (0x80000000 / 0x8000000000000000, also for unsigned
                // destinations; CUDA's __double2int_rn / __float2ll_rn document it).
                let v = if dt.bits() >= 32 && (st == Ty::F64 || dt.bits() == 64) {
                    let nan = opv!(self, [&"fcmp uno ", &(st.ll()), &" ", &a, &", 0.0"]);
                    let min = imm(ImmValue::Int(i64::MIN >> (64 - dt.bits())), dt);
                    self.select(&nan, dt.ll(), &min, &v)
                } else {
                    v
                };
                return self.wr(&ops[0], &v, dt, dsigned);
            }
            (false, true) => {
                let conv = if ssigned { "sitofp" } else { "uitofp" };
                match rnd {
                    Some(Rounding::Rn) | None => {
                        opv!(
                            self,
                            [&conv, &" ", &(st.ll()), &" ", &a, &" to ", &(dt.ll())]
                        )
                    }
                    Some(m @ (Rounding::Rz | Rounding::Rm | Rounding::Rp))
                        if matches!(dt, Ty::F32 | Ty::F64) && st.bits() == 32 =>
                    {
                        let s = if ssigned { "s" } else { "u" };
                        let f = format!("__wp_cvt_{}_{}_{s}{}", m.bare(), dt.suffix(), st.bits());
                        self.call(&f, dt, &[(st, &a)])
                    }
                    Some(m @ (Rounding::Rz | Rounding::Rm | Rounding::Rp))
                        if matches!(dt, Ty::F16 | Ty::F32 | Ty::F64) =>
                    {
                        // Round to nearest, then one step toward the mode's direction when
                        // the nearest value is on the wrong side of the exact one (compared
                        // exactly in i128).
                        let r = opv!(
                            self,
                            [&conv, &" ", &(st.ll()), &" ", &a, &" to ", &(dt.ll())]
                        );
                        let (gt, lt) = if dt == Ty::F16 {
                            // f16 overflows to infinity: compare in f64 (exact up to 2^53).
                            let x = opv!(self, [&conv, &" ", &(st.ll()), &" ", &a, &" to double"]);
                            let rw = opv!(self, [&"fpext half ", &r, &" to double"]);
                            (
                                opv!(self, [&"fcmp ogt double ", &rw, &", ", &x]),
                                opv!(self, [&"fcmp olt double ", &rw, &", ", &x]),
                            )
                        } else {
                            // r is an integer value; at or above 2^63 (signed) / 2^64 (unsigned)
                            // it is above every x, else it converts back exactly (no i128
                            // conversions: NVPTX has no libcall for them).
                            let x = self.fit(&a, st, Ty::I64, ssigned);
                            let (lim, conv_back, sgt, slt) = if ssigned {
                                ("0x43E0000000000000", "fptosi", "sgt", "slt")
                            } else {
                                ("0x43F0000000000000", "fptoui", "ugt", "ult")
                            };
                            let rw = if dt == Ty::F64 {
                                r.clone()
                            } else {
                                opv!(self, [&"fpext float ", &r, &" to double"])
                            };
                            let big = opv!(self, [&"fcmp oge double ", &rw, &", ", &lim]);
                            let safe =
                                opv!(self, [&"select i1 ", &big, &", double 0.0, double ", &rw]);
                            let ri = opv!(self, [&conv_back, &" double ", &safe, &" to i64"]);
                            let g = opv!(self, [&"icmp ", &sgt, &" i64 ", &ri, &", ", &x]);
                            let l = opv!(self, [&"icmp ", &slt, &" i64 ", &ri, &", ", &x]);
                            let gt = opv!(self, [&"or i1 ", &big, &", ", &g]);
                            let nb = opv!(self, [&"xor i1 ", &big, &", true"]);
                            let lt = opv!(self, [&"and i1 ", &nb, &", ", &l]);
                            (gt, lt)
                        };
                        self.directed_fix(m, dt, &r, &gt, &lt)
                    }
                    _ => return fail(&form(), "integer-to-float rounding"),
                }
            }
            (true, true) => {
                let (sb, db) = (st.bits(), dt.bits());
                if st == dt || (sb == db) {
                    // Same type: round to an integral value (.rni/.rzi/.rmi/.rpi) or copy.
                    let f = match rnd {
                        Some(Rounding::Rni) => Some("roundeven"),
                        Some(Rounding::Rzi) => Some("trunc"),
                        Some(Rounding::Rmi) => Some("floor"),
                        Some(Rounding::Rpi) => Some("ceil"),
                        None | Some(Rounding::Rn) => None,
                        _ => return fail(&form(), "float conversion rounding"),
                    };
                    if st != dt {
                        return fail(&form(), "f16 ↔ bf16 conversion");
                    }
                    match f {
                        Some(f) => self.intr1(f, st, &a),
                        None => a,
                    }
                } else if sb < db {
                    if st == Ty::Bf16 && dt == Ty::F64 {
                        let t = opv!(self, [&"fpext bfloat ", &a, &" to float"]);
                        opv!(self, [&"fpext float ", &t, &" to double"])
                    } else {
                        opv!(self, [&"fpext ", &(st.ll()), &" ", &a, &" to ", &(dt.ll())])
                    }
                } else {
                    match rnd {
                        Some(Rounding::Rn) | None
                            if !(st == Ty::F64 && matches!(dt, Ty::F16 | Ty::Bf16)) =>
                        {
                            if st == Ty::F32 {
                                self.narrow_f32(&a, dt)
                            } else {
                                opv!(
                                    self,
                                    [&"fptrunc ", &(st.ll()), &" ", &a, &" to ", &(dt.ll())]
                                )
                            }
                        }
                        Some(m @ (Rounding::Rz | Rounding::Rm | Rounding::Rp))
                            if st == Ty::F64 && dt == Ty::F32 =>
                        {
                            let f = format!("__wp_cvt_{}_f32_f64", m.bare());
                            self.call(&f, dt, &[(st, &a)])
                        }
                        Some(m @ (Rounding::Rz | Rounding::Rm | Rounding::Rp))
                            if matches!(dt, Ty::F16 | Ty::Bf16) =>
                        {
                            // Nearest, then one step toward the mode's direction when it is
                            // on the wrong side of the exact value (compared in f64, exact).
                            let r = self.half_rn(&a, st, dt);
                            let (rw, xw) = if st == Ty::F64 {
                                (
                                    opv!(self, [&"fpext ", &(dt.ll()), &" ", &r, &" to double"]),
                                    a,
                                )
                            } else {
                                let rw =
                                    opv!(self, [&"fpext ", &(dt.ll()), &" ", &r, &" to float"]);
                                (rw, a)
                            };
                            let wl = if st == Ty::F64 { "double" } else { "float" };
                            let gt = opv!(self, [&"fcmp ogt ", &wl, &" ", &rw, &", ", &xw]);
                            let lt = opv!(self, [&"fcmp olt ", &wl, &" ", &rw, &", ", &xw]);
                            self.directed_fix(m, dt, &r, &gt, &lt)
                        }
                        Some(Rounding::Rn) if st == Ty::F64 && matches!(dt, Ty::F16 | Ty::Bf16) => {
                            self.half_rn(&a, st, dt)
                        }
                        _ => return fail(&form(), "float narrowing rounding"),
                    }
                }
            }
        };
        let r = if mo.has(Mod::Relu) {
            self.relu(dt, &r)
        } else {
            r
        };
        let r = self.sat(mo, dt, &r);
        let r = if dt == Ty::F32 {
            self.ftz_out(mo, dt, &r)
        } else {
            r
        };
        // NVIDIA's NaN (H200, executed-ISA runs): canonical from rounding to an integral
        // value, from f16 widened to f32 and from f32 narrowed to bf16 (`cvt_half_bf16`
        // column 9: `__double2bfloat16` ends in `cvt.rn.bf16.f32`); the other narrowing
        // conversions keep the payload.
        let r = if sk == Kind::Float
            && (st == dt || (st == Ty::F16 && dt == Ty::F32) || (st == Ty::F32 && dt == Ty::Bf16))
        {
            self.nan_out(dt, &r)
        } else {
            r
        };
        self.wr(&ops[0], &r, dt, false)
    }

    /// `fptrunc` of the f32 `x` to `dt` (f16 or bf16, nearest-even). amdgcn, f16: the support
    /// library's `@__wp_cvt_rn_f16_f32`, a plain `fptrunc` that the gfx10+ overlay
    /// (`kernels-ir/amdgcn-gfx10plus.ll`) replaces: there LLVM 19 selects
    /// `fptrunc(fmul/fma ..)` as one `v_fma_mixlo/mixhi_f16` and gfx9's
    /// `-mattr=-fma-mix-insts` cannot be used (docs/lowering.md).
    pub(super) fn narrow_f32(&mut self, x: &str, dt: Ty) -> V {
        if !self.cx.nv && dt == Ty::F16 {
            return self.call("__wp_cvt_rn_f16_f32", Ty::F16, &[(Ty::F32, x)]);
        }
        opv!(self, [&"fptrunc float ", &x, &" to ", &(dt.ll())])
    }

    /// `a` (f32 or f64) rounded to nearest-even in `dt` (f16 or bf16). From f64 it goes
    /// through f32 rounded to odd (toward zero, lowest bit set when inexact), which has enough
    /// extra bits that the second rounding is exact (no double rounding).
    pub(super) fn half_rn(&mut self, a: &str, st: Ty, dt: Ty) -> V {
        let src = a.to_string();
        let a = if st == Ty::F64 {
            let t = self.call("__wp_cvt_rz_f32_f64", Ty::F32, &[(Ty::F64, a)]);
            let back = opv!(self, [&"fpext float ", &t, &" to double"]);
            let inexact = opv!(self, [&"fcmp one double ", &back, &", ", &a]);
            let b = opv!(self, [&"bitcast float ", &t, &" to i32"]);
            let o = opv!(self, [&"or i32 ", &b, &", 1"]);
            let b = opv!(
                self,
                [&"select i1 ", &inexact, &", i32 ", &o, &", i32 ", &b]
            );
            opv!(self, [&"bitcast i32 ", &b, &" to float"])
        } else {
            return self.narrow_f32(a, dt);
        };
        let r = opv!(self, [&"fptrunc float ", &a, &" to ", &(dt.ll())]);
        // NaN from f64: the sign and the quiet bit only (the H200's cvt.rn.f16.f64).
        let h = opv!(self, [&"bitcast ", &(dt.ll()), &" ", &r, &" to i16"]);
        let sb = opv!(self, [&"bitcast double ", &src, &" to i64"]);
        let sb = opv!(self, [&"lshr i64 ", &sb, &", 48"]);
        let sb = opv!(self, [&"trunc i64 ", &sb, &" to i16"]);
        let sign = opv!(self, [&"and i16 ", &sb, &", -32768"]);
        let q = if dt == Ty::F16 { "32256" } else { "32704" };
        let qn = opv!(self, [&"or i16 ", &sign, &", ", &q]);
        let nan = opv!(self, [&"fcmp uno ", &(dt.ll()), &" ", &r, &", 0.0"]);
        let h = opv!(self, [&"select i1 ", &nan, &", i16 ", &qn, &", i16 ", &h]);
        opv!(self, [&"bitcast i16 ", &h, &" to ", &(dt.ll())])
    }

    /// Directed rounding from the nearest value `r` (type `t`, IEEE binary): `gt` / `lt` say
    /// whether `r` is above / below the exact value. `rz` steps toward zero when `r` is farther
    /// from zero, `rm` down when above, `rp` up when below (PTX ISA 9.x §9.7.9.21 rounding
    /// modifiers). A step is ±1 on the bit pattern (from ±0 to the smallest subnormal; from an
    /// infinity to the largest finite value).
    pub(super) fn directed_fix(&mut self, m: Rounding, t: Ty, r: &str, gt: &str, lt: &str) -> V {
        let it = Ty::int(t.bits());
        let il = it.ll();
        let sign_bit: i128 = 1i128 << (t.bits() - 1);
        let b = opv!(self, [&"bitcast ", &(t.ll()), &" ", &r, &" to ", &il]);
        let neg = opv!(self, [&"icmp slt ", &il, &" ", &b, &", 0"]);
        let mag = opv!(self, [&"and ", &il, &" ", &b, &", ", &(sign_bit - 1)]);
        let zero = opv!(self, [&"icmp eq ", &il, &" ", &mag, &", 0"]);
        let inc = opv!(self, [&"add ", &il, &" ", &b, &", 1"]);
        let dec = opv!(self, [&"sub ", &il, &" ", &b, &", 1"]);
        // Up: away from zero when positive; down: away from zero when negative.
        let up0 = self.select(&neg, il, &dec, &inc);
        let up = opv!(
            self,
            [&"select i1 ", &zero, &", ", &il, &" 1, ", &il, &" ", &up0]
        );
        let dn0 = self.select(&neg, il, &inc, &dec);
        let neg_min = imm(ImmValue::Int((sign_bit | 1) as i64), it);
        let dn = self.select(&zero, il, &neg_min, &dn0);
        let (go_dn, go_up) = match m {
            Rounding::Rm => (V::new(gt), V::new("false")),
            Rounding::Rp => (V::new("false"), V::new(lt)),
            _ => {
                let pos = opv!(self, [&"xor i1 ", &neg, &", true"]);
                let d = opv!(self, [&"and i1 ", &gt, &", ", &pos]);
                let u = opv!(self, [&"and i1 ", &lt, &", ", &neg]);
                (d, u)
            }
        };
        let v = self.select(&go_up, il, &up, &b);
        let v = self.select(&go_dn, il, &dn, &v);
        opv!(self, [&"bitcast ", &il, &" ", &v, &" to ", &(t.ll())])
    }

    pub(super) fn relu(&mut self, t: Ty, v: &str) -> V {
        // Negative values and -0.0 become +0.0; NaN stays (PTX ISA 9.x .relu; the H200 gives
        // +0.0 for -0.0).
        let z = opv!(self, [&"fcmp ole ", &(t.ll()), &" ", &v, &", 0.0"]);
        opv!(
            self,
            [
                &"select i1 ",
                &z,
                &", ",
                &(t.ll()),
                &" 0.0, ",
                &(t.ll()),
                &" ",
                &v
            ]
        )
    }

    /// Integer → integer conversion with `.sat`: clamp to the destination's range.
    pub(super) fn int_sat(&mut self, a: &str, st: Ty, ss: bool, dt: Ty, ds: bool) -> V {
        let wt = Ty::I128;
        let e = if ss { "sext" } else { "zext" };
        let x = opv!(self, [&e, &" ", &(st.ll()), &" ", &a, &" to i128"]);
        let db = dt.bits();
        let (lo, hi): (i128, i128) = if ds {
            (-(1i128 << (db - 1)), (1i128 << (db - 1)) - 1)
        } else {
            (0, (1i128 << db) - 1)
        };
        let m = self.intr2("smax", wt, &x, &lo.to_string());
        let m = self.intr2("smin", wt, &m, &hi.to_string());
        opv!(self, [&"trunc i128 ", &m, &" to ", &(dt.ll())])
    }
}
