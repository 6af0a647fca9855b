//! Integer dot products and the video instructions, as target-independent LLVM IR.
//!
//! * `dp4a.atype.btype` and `dp2a.{lo,hi}.atype.btype` (PTX ISA 9.x §9.7.1.23, §9.7.1.24):
//!   the packed bytes / half-words are sign- or zero-extended by their type, multiplied in
//!   32 bits and added to `c` modulo 2^32.
//! * The SIMD video instructions (§9.7.18.2): `vadd2`, `vsub2`, `vavrg2`, `vabsdiff2`, `vmin2`,
//!   `vmax2`, `vset2` on half-word pairs and the 4-way forms on byte quads, with `.sat`, the
//!   secondary accumulate `.add`, the destination mask (`d.h0`, `d.b310`, ...) and the source
//!   selectors (`a.h01`, `b.b7531`, ...; defaults `.h10`/`.b3210` for `a`, `.h32`/`.b7654`
//!   for `b`), which pick any lane of the 64-bit pair `{b, a}`.
//! * The scalar video instructions (§9.7.18.1): `vadd`, `vsub`, `vabsdiff`, `vmin`, `vmax`,
//!   `vshl`, `vshr` (`.clamp`/`.wrap`) and `vset`, with operand selectors `.b0`-`.b3`, `.h0`,
//!   `.h1`, `.sat`, the secondary operations `.add`, `.min`, `.max`, and the data merge into
//!   `c`, in `i64`. Their semantics follow the SASS of NVIDIA's offline ptxas as measured on
//!   an H200 (the points where that differs from a literal reading of the ISA pseudocode are
//!   listed on the scalar lowering below and in docs/verification.md).
//!
//! * `vmad` (§9.7.18.1), with the operand negations, `.po`, `.shr7`/`.shr15`, `.sat` and the
//!   source selectors, in `i64`, as measured on an H200 (see `Fx::vmad`).
//!
//! Everything here is plain LLVM IR (integer
//! arithmetic, `llvm.smin`/`llvm.smax`/`llvm.umin`/`llvm.umax`), identical for amdgcn and nvptx, so the `cuda` twin runs
//! this very logic on an NVIDIA GPU.

use super::*;

/// Split a video operand `%r1.b0` into the register and its selector (`.b0`).
fn split_sel<'a>(o: &Operand<'a>) -> (Operand<'a>, Option<&'a str>) {
    match o {
        Operand::Reg(n) => match n.as_str().find('.') {
            Some(k) => (Operand::Reg(n.as_str()[..k].into()), Some(&n.as_str()[k..])),
            None => (o.clone(), None),
        },
        _ => (o.clone(), None),
    }
}

/// The lane digits of a SIMD selector or mask (`.h10` -> `[1, 0]`), most significant lane
/// first, when it has the prefix `p` (`h` or `b`) and digits below `lim`.
fn digits(sel: &str, p: char, lim: u32) -> Option<Vec<u32>> {
    let s = sel.strip_prefix('.')?.strip_prefix(p)?;
    let d: Option<Vec<u32>> = s.chars().map(|c| c.to_digit(10)).collect();
    let d = d?;
    (!d.is_empty() && d.iter().all(|&x| x < lim)).then_some(d)
}

/// The signed LLVM predicate of a `vset` comparison (the operands are extended to a wider
/// signed type first, so signed predicates order unsigned operands correctly too).
fn cmp_pred(m: Option<CmpOp>) -> Option<&'static str> {
    Some(match m? {
        CmpOp::Eq => "eq",
        CmpOp::Ne => "ne",
        CmpOp::Lt => "slt",
        CmpOp::Le => "sle",
        CmpOp::Gt => "sgt",
        CmpOp::Ge => "sge",
        _ => return None,
    })
}

/// Every dp4a/dp2a and video form lowered here, in `form_of` spelling (for
/// [`crate::lower::supported_forms`]).
pub(in crate::lower) fn forms() -> Vec<String> {
    let mut v = Vec::new();
    let t = ["u32", "s32"];
    let cmps = ["eq", "ne", "lt", "le", "gt", "ge"];
    let secops = ["", ".add", ".min", ".max"];
    for a in t {
        for b in t {
            v.push(format!("dp4a.{a}.{b}"));
            for m in ["lo", "hi"] {
                v.push(format!("dp2a.{m}.{a}.{b}"));
            }
        }
    }
    // SIMD video (§9.7.18.2).
    for w in ["2", "4"] {
        for op in ["vadd", "vsub", "vavrg", "vabsdiff", "vmin", "vmax"] {
            for d in t {
                for a in t {
                    for b in t {
                        for s in ["", ".sat", ".add"] {
                            v.push(format!("{op}{w}.{d}.{a}.{b}{s}"));
                        }
                    }
                }
            }
        }
        for a in t {
            for b in t {
                for c in cmps {
                    v.push(format!("vset{w}.{a}.{b}.{c}"));
                    v.push(format!("vset{w}.{a}.{b}.{c}.add"));
                }
            }
        }
    }
    // Scalar video (§9.7.18.1).
    for op in ["vadd", "vsub", "vabsdiff", "vmin", "vmax"] {
        for d in t {
            for a in t {
                for b in t {
                    for s in ["", ".sat"] {
                        for o in secops {
                            v.push(format!("{op}.{d}.{a}.{b}{s}{o}"));
                        }
                    }
                }
            }
        }
    }
    for op in ["vshl", "vshr"] {
        for d in t {
            for a in t {
                for s in ["", ".sat"] {
                    for m in ["clamp", "wrap"] {
                        for o in secops {
                            v.push(format!("{op}.{d}.{a}.u32{s}.{m}{o}"));
                        }
                    }
                }
            }
        }
    }
    for a in t {
        for b in t {
            for c in cmps {
                for o in secops {
                    v.push(format!("vset.{a}.{b}.{c}{o}"));
                }
            }
        }
    }
    // vmad (§9.7.18.1; `Fx::vmad`). To withdraw it, delete this loop (and the "vmad" arm of
    // `video_inst`).
    for d in t {
        for a in t {
            for b in t {
                for po in ["", ".po"] {
                    for s in ["", ".sat"] {
                        for sc in ["", ".shr7", ".shr15"] {
                            v.push(format!("vmad.{d}.{a}.{b}{po}{s}{sc}"));
                        }
                    }
                }
            }
        }
    }
    v
}

impl<'c, 'm, 'a> Fx<'c, 'm, 'a> {
    /// Lower one `dp4a`, `dp2a` or video instruction.
    pub(super) fn video_inst(&mut self, i: &'m Instruction<'a>, mo: &Mods) -> R<()> {
        let form = form_of(i);
        let ops: &[Operand<'a>] = &i.operands;
        // The signedness of each .u32/.s32 type, in source order (d, a, b or a, b).
        let signed: Vec<bool> = mo
            .types()
            .iter()
            .filter(|t| matches!(t, Type::U32 | Type::S32))
            .map(|t| *t == Type::S32)
            .collect();
        let name = i.opcode.name();
        match name {
            "dp4a" | "dp2a" => self.dot(&form, name == "dp2a", mo, &signed, ops),
            _ if name.ends_with('2') || name.ends_with('4') => {
                self.simd(&form, name, mo, &signed, ops)
            }
            "vadd" | "vsub" | "vabsdiff" | "vmin" | "vmax" | "vshl" | "vshr" | "vset" => {
                self.scalar(&form, name, mo, &signed, ops)
            }
            "vmad" => self.vmad(&form, mo, &signed, ops),
            _ => fail(&form, "video instruction not lowered"),
        }
    }

    /// Lane `k` (of width `w` bits) of the i64 `x`, extended to i32.
    fn lane(&mut self, x: &str, k: u32, w: u32, sext: bool) -> V {
        let s = opv!(self, [&"lshr i64 ", &x, &", ", &(k * w)]);
        let t = opv!(self, [&"trunc i64 ", &s, &" to i", &w]);
        let e = if sext { "sext" } else { "zext" };
        opv!(self, [&e, &" i", &w, &" ", &t, &" to i32"])
    }

    /// `dp4a.atype.btype d, a, b, c` / `dp2a.mode.atype.btype d, a, b, c` (§9.7.1.23-24).
    fn dot(&mut self, form: &str, two: bool, mo: &Mods, sg: &[bool], ops: &[Operand<'a>]) -> R<()> {
        if ops.len() != 4 || sg.len() != 2 {
            return fail(form, "dp4a/dp2a operands or types");
        }
        let a = self.rd(&ops[1], Ty::I32, false)?;
        let b = self.rd(&ops[2], Ty::I32, false)?;
        let c = self.rd(&ops[3], Ty::I32, false)?;
        let a64 = opv!(self, [&"zext i32 ", &a, &" to i64"]);
        let b64 = opv!(self, [&"zext i32 ", &b, &" to i64"]);
        let mut acc = c;
        let hi = mo.has(Mod::Hi);
        let n = if two { 2 } else { 4 };
        for k in 0..n {
            let va = if two {
                self.lane(&a64, k, 16, sg[0])
            } else {
                self.lane(&a64, k, 8, sg[0])
            };
            let kb = if two && hi { k + 2 } else { k };
            let vb = self.lane(&b64, kb, 8, sg[1]);
            let p = opv!(self, [&"mul i32 ", &va, &", ", &vb]);
            acc = opv!(self, [&"add i32 ", &acc, &", ", &p]);
        }
        self.wr(&ops[0], &acc, Ty::I32, false)
    }

    /// The 2- and 4-way SIMD video instructions (§9.7.18.2.1-4).
    fn simd(
        &mut self,
        form: &str,
        name: &str,
        mo: &Mods,
        sg: &[bool],
        ops: &[Operand<'a>],
    ) -> R<()> {
        let n: u32 = if name.ends_with('2') { 2 } else { 4 };
        let w = 32 / n;
        let (p, lim) = if n == 2 { ('h', 4) } else { ('b', 8) };
        let op = &name[..name.len() - 1];
        let is_set = op == "vset";
        let (sd, sa, sb) = match (is_set, sg) {
            (true, [a, b]) => (false, *a, *b),
            (false, [d, a, b]) => (*d, *a, *b),
            _ => return fail(form, "SIMD video types"),
        };
        let sat = mo.has(Mod::Sat);
        let add = mo.has(Mod::Add);
        if ops.len() != 4 || (sat && (add || is_set)) {
            return fail(form, "SIMD video operands, or .sat with .add");
        }
        let (dreg, dmask) = split_sel(&ops[0]);
        let (areg, asel) = split_sel(&ops[1]);
        let (breg, bsel) = split_sel(&ops[2]);
        let mask = match dmask {
            None => (0..n).collect(),
            Some(m) => digits(m, p, n)
                .ok_or(())
                .or_else(|_| fail(form, format!("mask {m}")))?,
        };
        let sel = |s: Option<&str>, dflt: u32| -> R<Vec<u32>> {
            match s {
                None => Ok((0..n).rev().map(|k| k + dflt).collect()),
                Some(s) => match digits(s, p, lim) {
                    Some(d) if d.len() == n as usize => Ok(d),
                    _ => fail(form, format!("selector {s}")),
                },
            }
        };
        // Digits are written from the most significant lane down: reverse to lane order.
        let mut asl = sel(asel, 0)?;
        asl.reverse();
        let mut bsl = sel(bsel, n)?;
        bsl.reverse();
        let a = self.rd(&areg, Ty::I32, false)?;
        let b = self.rd(&breg, Ty::I32, false)?;
        let c = self.rd(&ops[3], Ty::I32, false)?;
        let lo = opv!(self, [&"zext i32 ", &a, &" to i64"]);
        let hi0 = opv!(self, [&"zext i32 ", &b, &" to i64"]);
        let hi = opv!(self, [&"shl i64 ", &hi0, &", 32"]);
        let x = opv!(self, [&"or i64 ", &hi, &", ", &lo]);
        let (smax, smin): (i64, i64) = if sd {
            ((1 << (w - 1)) - 1, -(1 << (w - 1)))
        } else {
            ((1 << w) - 1, 0)
        };
        let mut acc = if add { c.clone() } else { V::new("0") };
        let lm = (1u64 << w) - 1;
        for k in 0..n {
            let on = mask.contains(&k);
            if !on {
                if !add {
                    // Lane k of c, in place.
                    let v = opv!(
                        self,
                        [&"and i32 ", &c, &", ", &((lm << (k * w)) as u32 as i32)]
                    );
                    acc = opv!(self, [&"or i32 ", &acc, &", ", &v]);
                }
                continue;
            }
            let va = self.lane(&x, asl[k as usize], w, sa);
            let vb = self.lane(&x, bsl[k as usize], w, sb);
            let t = match op {
                "vadd" => opv!(self, [&"add i32 ", &va, &", ", &vb]),
                "vsub" => opv!(self, [&"sub i32 ", &va, &", ", &vb]),
                "vavrg" => {
                    // (s + 1) >> 1 for s >= 0, s >> 1 otherwise.
                    let s = opv!(self, [&"add i32 ", &va, &", ", &vb]);
                    let neg = opv!(self, [&"icmp slt i32 ", &s, &", 0"]);
                    let s1 = opv!(self, [&"add i32 ", &s, &", 1"]);
                    let u = opv!(self, [&"select i1 ", &neg, &", i32 ", &s, &", i32 ", &s1]);
                    opv!(self, [&"ashr i32 ", &u, &", 1"])
                }
                "vabsdiff" => {
                    let d = opv!(self, [&"sub i32 ", &va, &", ", &vb]);
                    let nd = opv!(self, [&"sub i32 0, ", &d]);
                    self.intr2("smax", Ty::I32, &d, &nd)
                }
                "vmin" => self.intr2("smin", Ty::I32, &va, &vb),
                "vmax" => self.intr2("smax", Ty::I32, &va, &vb),
                "vset" => {
                    let pr = cmp_pred(mo.cmp)
                        .ok_or(())
                        .or_else(|_| fail(form, "vset comparison"))?;
                    let q = opv!(self, [&"icmp ", &pr, &" i32 ", &va, &", ", &vb]);
                    opv!(self, [&"zext i1 ", &q, &" to i32"])
                }
                _ => return fail(form, "SIMD video operation"),
            };
            let t = if sat {
                let t1 = self.intr2("smin", Ty::I32, &t, &smax.to_string());
                self.intr2("smax", Ty::I32, &t1, &smin.to_string())
            } else {
                t
            };
            acc = if add {
                opv!(self, [&"add i32 ", &acc, &", ", &t])
            } else {
                let m = opv!(self, [&"and i32 ", &t, &", ", &lm]);
                let s = opv!(self, [&"shl i32 ", &m, &", ", &(k * w)]);
                opv!(self, [&"or i32 ", &acc, &", ", &s])
            };
        }
        self.wr(&dreg, &acc, Ty::I32, false)
    }

    /// Byte, half-word or word `sel` of the i32 `v`, extended to `it`.
    fn part(&mut self, v: &str, sel: Option<&str>, sext: bool, it: &str) -> Option<V> {
        let (sh, w) = match sel {
            None => (0, 32),
            Some(".b0") => (0, 8),
            Some(".b1") => (8, 8),
            Some(".b2") => (16, 8),
            Some(".b3") => (24, 8),
            Some(".h0") => (0, 16),
            Some(".h1") => (16, 16),
            Some(_) => return None,
        };
        let t = if w == 32 {
            V::new(v)
        } else {
            let s = opv!(self, [&"lshr i32 ", &v, &", ", &sh]);
            opv!(self, [&"trunc i32 ", &s, &" to i", &w])
        };
        let e = if sext { "sext" } else { "zext" };
        Some(opv!(self, [&e, &" i", &w, &" ", &t, &" to ", &it]))
    }

    /// The scalar video instructions (§9.7.18.1.1-3), `vmad` excepted.
    ///
    /// The semantics are those of the SASS that NVIDIA's offline ptxas (CUDA 13.5, sm_90)
    /// emits, measured on an H200 over every form in `fixtures/gpu/src/video.cu` (1024 threads
    /// x 3 seeds, inputs crossing the u32 edge values; docs/verification.md). They differ from
    /// a literal reading of the ISA pseudocode in these points, all reproduced here:
    /// * `vadd`/`vsub`: the result is kept as its low 32 bits, sign-extended, before the
    ///   secondary operation; with `.sat` and a `.u32` destination only a negative result
    ///   clamps (to 0), a result above `0xffffffff` wraps. Other operations keep the exact
    ///   value (`vabsdiff`, `vmin`, `vmax`, `vshr`) or its 64-bit wrap (`vshl`).
    /// * `.sat` on `vshl`/`vshr` clamps the value wrapped to 34 bits (the ISA's `.s34`): to
    ///   the s32 range, or to `[0, 0xffffffff]` and then sign-extended from bit 31 for `.u32`.
    /// * `.sat` with a destination selector (`d.b1`, `d.h0`, ...) clamps to the byte or
    ///   half-word maximum every value outside `[0, max]`, negative ones included (`max` is
    ///   `0x7f`/`0xff`/`0x7fff`/`0xffff` by the destination type); for `vshl`/`vshr` the
    ///   selector does not change the 32-bit saturation.
    /// * The secondary `.min`/`.max` compare signed, `c` sign-extended, for an `.s32`
    ///   destination; for `.u32` they compare the 64-bit intermediate as unsigned against `c`
    ///   zero-extended (so a negative intermediate is above every `c`). `vset` takes the
    ///   signedness of its `atype` here.
    fn scalar(
        &mut self,
        form: &str,
        op: &str,
        mo: &Mods,
        sg: &[bool],
        ops: &[Operand<'a>],
    ) -> R<()> {
        let is_set = op == "vset";
        let shift = op == "vshl" || op == "vshr";
        let (sd, sa, sb) = match (is_set, sg) {
            (true, [a, b]) => (*a, *a, *b),
            (false, [d, a, b]) => (*d, *a, *b),
            _ => return fail(form, "video types"),
        };
        let sat = mo.has(Mod::Sat);
        // The secondary operation (.add, .min, .max): the video opcodes' operation word.
        let secop = mo.op;
        let (dreg, dsel) = split_sel(&ops[0]);
        let want = if secop.is_some() || dsel.is_some() {
            4
        } else {
            3
        };
        if ops.len() != want || (secop.is_some() && dsel.is_some()) || (sat && is_set) {
            return fail(form, "video operands");
        }
        if shift && sb {
            return fail(form, "shift amount type must be .u32");
        }
        let it = "i64";
        let ity = Ty::I64;
        let (areg, asel) = split_sel(&ops[1]);
        let (breg, bsel) = split_sel(&ops[2]);
        let a = self.rd(&areg, Ty::I32, false)?;
        let b = self.rd(&breg, Ty::I32, false)?;
        let ta = match self.part(&a, asel, sa, it) {
            Some(v) => v,
            None => return fail(form, format!("selector {}", asel.unwrap_or(""))),
        };
        let tb = match self.part(&b, bsel, sb, it) {
            Some(v) => v,
            None => return fail(form, format!("selector {}", bsel.unwrap_or(""))),
        };
        let tmp = match op {
            "vadd" => opv!(self, [&"add ", &it, &" ", &ta, &", ", &tb]),
            "vsub" => opv!(self, [&"sub ", &it, &" ", &ta, &", ", &tb]),
            "vabsdiff" => {
                let d = opv!(self, [&"sub ", &it, &" ", &ta, &", ", &tb]);
                let nd = opv!(self, [&"sub ", &it, &" 0, ", &d]);
                self.intr2("smax", ity, &d, &nd)
            }
            "vmin" => self.intr2("smin", ity, &ta, &tb),
            "vmax" => self.intr2("smax", ity, &ta, &tb),
            "vshl" | "vshr" => {
                let n = if mo.has(Mod::Wrap) {
                    opv!(self, [&"and ", &it, &" ", &tb, &", 31"])
                } else if mo.has(Mod::Clamp) {
                    self.intr2("umin", ity, &tb, "32")
                } else {
                    return fail(form, "vshl/vshr without .clamp or .wrap");
                };
                if op == "vshl" {
                    opv!(self, [&"shl ", &it, &" ", &ta, &", ", &n])
                } else {
                    opv!(self, [&"ashr ", &it, &" ", &ta, &", ", &n])
                }
            }
            "vset" => {
                let pr = cmp_pred(mo.cmp)
                    .ok_or(())
                    .or_else(|_| fail(form, "vset comparison"))?;
                let q = opv!(self, [&"icmp ", &pr, &" ", &it, &" ", &ta, &", ", &tb]);
                opv!(self, [&"zext i1 ", &q, &" to ", &it])
            }
            _ => return fail(form, "scalar video operation"),
        };
        let bits = match dsel {
            None => 32,
            Some(".b0" | ".b1" | ".b2" | ".b3") => 8,
            Some(".h0" | ".h1") => 16,
            Some(s) => return fail(form, format!("destination selector {s}")),
        };
        let addsub = op == "vadd" || op == "vsub";
        let t = if sat && dsel.is_some() && !shift {
            // Any value outside [0, max], negative ones included, becomes max.
            let mx: i64 = if sd {
                (1 << (bits - 1)) - 1
            } else {
                (1 << bits) - 1
            };
            let inr = opv!(self, [&"icmp ule ", &it, &" ", &tmp, &", ", &mx]);
            opv!(
                self,
                [
                    &"select i1 ",
                    &inr,
                    &", ",
                    &it,
                    &" ",
                    &tmp,
                    &", ",
                    &it,
                    &" ",
                    &mx
                ]
            )
        } else if sat {
            if shift {
                // Wrapped to 34 bits (the ISA's .s34), then clamped.
                let s1 = opv!(self, [&"shl ", &it, &" ", &tmp, &", 30"]);
                let s = opv!(self, [&"ashr ", &it, &" ", &s1, &", 30"]);
                if sd {
                    let t1 = self.intr2("smin", ity, &s, &i32::MAX.to_string());
                    self.intr2("smax", ity, &t1, &i32::MIN.to_string())
                } else {
                    let t1 = self.intr2("smax", ity, &s, "0");
                    let t2 = self.intr2("smin", ity, &t1, &u32::MAX.to_string());
                    self.sext32(&t2)
                }
            } else if sd {
                let t1 = self.intr2("smin", ity, &tmp, &i32::MAX.to_string());
                self.intr2("smax", ity, &t1, &i32::MIN.to_string())
            } else {
                // .u32: only a negative result clamps (to 0); vadd/vsub wrap above.
                let t1 = self.intr2("smax", ity, &tmp, "0");
                if addsub {
                    self.sext32(&t1)
                } else {
                    t1
                }
            }
        } else if addsub {
            self.sext32(&tmp)
        } else {
            tmp
        };
        let r = if want == 4 {
            let c = self.rd(&ops[3], Ty::I32, false)?;
            if let Some(s) = secop {
                let e = if sd { "sext" } else { "zext" };
                let cx = opv!(self, [&e, &" i32 ", &c, &" to ", &it]);
                let (mn, mx) = if sd {
                    ("smin", "smax")
                } else {
                    ("umin", "umax")
                };
                match s {
                    Mod::Add => opv!(self, [&"add ", &it, &" ", &t, &", ", &cx]),
                    Mod::Min => self.intr2(mn, ity, &t, &cx),
                    _ => self.intr2(mx, ity, &t, &cx),
                }
            } else {
                let sh = match dsel.unwrap_or("") {
                    ".b1" => 8,
                    ".b2" | ".h1" => 16,
                    ".b3" => 24,
                    _ => 0,
                };
                let m: u32 = ((1u64 << bits) - 1) as u32;
                let t32 = opv!(self, [&"trunc ", &it, &" ", &t, &" to i32"]);
                let t1 = opv!(self, [&"and i32 ", &t32, &", ", &m]);
                let t2 = opv!(self, [&"shl i32 ", &t1, &", ", &sh]);
                let keep = !(m << sh);
                let c1 = opv!(self, [&"and i32 ", &c, &", ", &(keep as i32)]);
                let r = opv!(self, [&"or i32 ", &c1, &", ", &t2]);
                return self.wr(&dreg, &r, Ty::I32, false);
            }
        } else {
            t
        };
        let d = opv!(self, [&"trunc ", &it, &" ", &r, &" to i32"]);
        self.wr(&dreg, &d, Ty::I32, false)
    }

    /// `vmad.dtype.atype.btype{.po}{.sat}{.scale} d, {-}a{.asel}, {-}b{.bsel}, {-}c`
    /// (PTX ISA 9.x §9.7.18.1), as an NVIDIA H200 computes it (measured: 290 vmad forms x
    /// 1014 operand triples crossing the u32 edge values, driver JIT of sm_90, all equal to
    /// this; docs/verification.md). The ISA's pseudocode, except where marked (H200):
    /// * `ta`, `tb`: a selected byte / half-word is extended by `atype`/`btype`; a whole
    ///   word (no selector) is sign-extended whatever its type (H200). The product fits i64.
    /// * `signedFinal = atype or btype signed, or exactly one of a/b negated, or c negated`.
    /// * `.po`: `+ 1`; otherwise a negated product is `~tmp + 1`, a negated `c` is `~c + 1`
    ///   (the product and `c` are never both negated; `.po` takes no negation).
    /// * `c` is sign-extended from 32 bits, always (H200; the ISA: only when `signedFinal`).
    /// * `.shr7`/`.shr15` shift the 64-bit sum right, arithmetically when `signedFinal`,
    ///   logically otherwise (H200: an unsigned result of a negative sum is a huge value).
    /// * `.sat` clamps the signed 64-bit value to the s32 range when `signedFinal`, to
    ///   `[0, 0xffffffff]` otherwise; `d` is the low 32 bits. `dtype` takes no part.
    ///
    /// To withdraw `vmad`, drop the `vmad.*` loop of [`forms`] (and the `"vmad"` arm of
    /// `video_inst`).
    fn vmad(&mut self, form: &str, mo: &Mods, sg: &[bool], ops: &[Operand<'a>]) -> R<()> {
        let (sa, sb) = match sg {
            [_, a, b] => (*a, *b),
            _ => return fail(form, "vmad types"),
        };
        if ops.len() != 4 {
            return fail(form, "vmad operands");
        }
        let unneg = |o: &Operand<'a>| match o {
            Operand::Neg(n) => (true, Operand::Reg(*n)),
            _ => (false, o.clone()),
        };
        let (na, a) = unneg(&ops[1]);
        let (nb, b) = unneg(&ops[2]);
        let (nc, c) = unneg(&ops[3]);
        let po = mo.has(Mod::Po);
        let nab = na ^ nb;
        if (po && (na || nb || nc)) || (nab && nc) {
            return fail(
                form,
                "vmad negates both the product and c, or negates with .po",
            );
        }
        let (dreg, dsel) = split_sel(&ops[0]);
        let (areg, asel) = split_sel(&a);
        let (breg, bsel) = split_sel(&b);
        let (creg, csel) = split_sel(&c);
        if dsel.is_some() || csel.is_some() {
            return fail(form, "vmad takes no selector on d or c");
        }
        let scale = if mo.has(Mod::Shr7) {
            7
        } else if mo.has(Mod::Shr15) {
            15
        } else {
            0
        };
        let signed_final = sa || sb || nab || nc;
        let av = self.rd(&areg, Ty::I32, false)?;
        let bv = self.rd(&breg, Ty::I32, false)?;
        let cv = self.rd(&creg, Ty::I32, false)?;
        let ta = match self.part(&av, asel, sa || asel.is_none(), "i64") {
            Some(v) => v,
            None => return fail(form, format!("selector {}", asel.unwrap_or(""))),
        };
        let tb = match self.part(&bv, bsel, sb || bsel.is_none(), "i64") {
            Some(v) => v,
            None => return fail(form, format!("selector {}", bsel.unwrap_or(""))),
        };
        let mut p = opv!(self, [&"mul i64 ", &ta, &", ", &tb]);
        let mut cw = cv;
        if nab {
            p = opv!(self, [&"xor i64 ", &p, &", -1"]);
        } else if nc {
            cw = opv!(self, [&"xor i32 ", &cw, &", -1"]);
        }
        let lsb = u32::from(po || nab || nc);
        let cx = opv!(self, [&"sext i32 ", &cw, &" to i64"]);
        let s = opv!(self, [&"add i64 ", &p, &", ", &cx]);
        let mut r = opv!(self, [&"add i64 ", &s, &", ", &lsb]);
        if scale > 0 {
            let sh = if signed_final { "ashr" } else { "lshr" };
            r = opv!(self, [&sh, &" i64 ", &r, &", ", &scale]);
        }
        if mo.has(Mod::Sat) {
            let (lo, hi) = if signed_final {
                (i32::MIN as i64, i32::MAX as i64)
            } else {
                (0, u32::MAX as i64)
            };
            let t = self.intr2("smax", Ty::I64, &r, &lo.to_string());
            r = self.intr2("smin", Ty::I64, &t, &hi.to_string());
        }
        let d = opv!(self, [&"trunc i64 ", &r, &" to i32"]);
        self.wr(&dreg, &d, Ty::I32, false)
    }

    /// The i64 `v` with its low 32 bits sign-extended (`sext(trunc v to i32)`).
    fn sext32(&mut self, v: &str) -> V {
        let t = opv!(self, [&"trunc i64 ", &v, &" to i32"]);
        opv!(self, [&"sext i32 ", &t, &" to i64"])
    }
}
