//! The floating-point forms: each lifted to the PTX instruction with the same meaning
//! (IEEE operation, rounding modifier, flush-to-zero, saturation, NaN rule), spelled so that
//! the lowering cannot contract or reassociate it (`add.rn`, never a bare `add.f32`).
//!
//! Source modifiers on floating-point operands are sign-bit operations (`|x|` clears it,
//! `-x` flips it, after `|x|`), as in SASS, not arithmetic: they keep a NaN's payload.

use super::{check_mods, ops_len, Cx, R};
use crate::sass::decode::{Bank, Instr, Operand, SrcMods};

/// The rounding modifier of a form as a PTX rounding (`rn` when none).
fn rounding(i: &Instr) -> &'static str {
    for m in i.modifiers() {
        match m {
            "RZ" => return "rz",
            "RM" => return "rm",
            "RP" => return "rp",
            "RN" => return "rn",
            _ => {}
        }
    }
    "rn"
}

/// `.ftz` when the form has `.FTZ`.
fn ftz(i: &Instr) -> &'static str {
    if i.has("FTZ") {
        ".ftz"
    } else {
        ""
    }
}

/// `.sat` when the form has `.SAT`.
fn sat(i: &Instr) -> &'static str {
    if i.has("SAT") {
        ".sat"
    } else {
        ""
    }
}

/// The binary32 bits of an immediate printed as a number (`1`, `-24`, `0.5`, `+INF`,
/// `-QNAN`); a printed NaN has the default quiet payload.
fn f32_bits(v: f64) -> u32 {
    if v.is_nan() {
        return if v.is_sign_negative() {
            0xffc0_0000
        } else {
            0x7fc0_0000
        };
    }
    (v as f32).to_bits()
}

fn f64_bits(v: f64) -> u64 {
    if v.is_nan() {
        return if v.is_sign_negative() {
            0xfff8_0000_0000_0000
        } else {
            0x7ff8_0000_0000_0000
        };
    }
    v.to_bits()
}

impl Cx<'_> {
    /// A constant operand's 32-bit value: bank 0 (parameters, driver constants) or a
    /// compiler-constant bank (`c[0x2][..]`) read from the cubin ([`Cx::constant`]).
    pub(super) fn const32(
        &mut self,
        bank: Bank,
        index: Option<crate::sass::decode::Reg>,
        offset: i64,
    ) -> R<String> {
        self.constant(bank, index, offset, 4)
    }

    /// A constant operand's binary64 value (a compiler constant as a `0d` literal).
    fn const64(
        &mut self,
        bank: Bank,
        index: Option<crate::sass::decode::Reg>,
        offset: i64,
    ) -> R<String> {
        if index.is_none() {
            if let Some(v) = self.bank_bytes(bank, offset, 8) {
                return Ok(format!("0d{v:016X}"));
            }
        }
        self.constant(bank, index, offset, 8)
    }

    /// A binary32 source: its bits as a `.b32` value (`0fXXXXXXXX` for immediates) with
    /// `|x|` and `-x` applied to the sign bit.
    pub(super) fn fsrc(&mut self, op: &Operand) -> R<String> {
        let (v, m) = match op {
            Operand::Reg(r, m) => (Cx::reg_name(*r).unwrap_or_else(|| "0".into()), m),
            Operand::Imm(v) => return Ok(format!("0f{:08X}", f32_bits(*v as f64))),
            Operand::Float(f) => return Ok(format!("0f{:08X}", f32_bits(*f))),
            Operand::FloatBits(b) => return Ok(format!("0f{:08X}", *b as u32)),
            Operand::Const {
                bank,
                index,
                offset,
                mods,
            } => (self.const32(*bank, *index, *offset)?, mods),
            o => return Err(format!("operand {o:?} as a binary32 source")),
        };
        self.sign_mods(v, m, 32)
    }

    /// [`Cx::fsrc`] for an instruction that reads it as `.f32` (`setp.f32`, `cvt.*.f32`):
    /// a plain `RZ` is the binary32 literal `0f00000000` (ptxas takes no integer literal
    /// there; elsewhere `RZ` stays `0`, the same bits).
    pub(super) fn fsrc_f32(&mut self, op: &Operand) -> R<String> {
        match op {
            Operand::Reg(r, m) if Cx::reg_name(*r).is_none() && *m == SrcMods::default() => {
                Ok("0f00000000".into())
            }
            o => self.fsrc(o),
        }
    }

    /// A binary64 source (register pair, constant, immediate) as a `.b64` value.
    pub(super) fn fsrc64(&mut self, op: &Operand) -> R<String> {
        let (v, m) = match op {
            Operand::Reg(r, m) => {
                let v = if r.is_zero() {
                    "0d0000000000000000".to_string()
                } else {
                    let lo = Cx::reg_name(*r).ok_or("pair")?;
                    let hi = Cx::reg_name(Cx::next(*r)?).ok_or("pair")?;
                    let t = self.t64();
                    self.line(format!("mov.b64 {t}, {{{lo}, {hi}}}"));
                    t
                };
                (v, m)
            }
            Operand::Imm(v) => return Ok(format!("0d{:016X}", f64_bits(*v as f64))),
            Operand::Float(f) => return Ok(format!("0d{:016X}", f64_bits(*f))),
            Operand::FloatBits(b) => return Ok(format!("0d{b:016X}")),
            Operand::Const {
                bank,
                index,
                offset,
                mods,
            } => (self.const64(*bank, *index, *offset)?, mods),
            o => return Err(format!("operand {o:?} as a binary64 source")),
        };
        self.sign_mods(v, m, 64)
    }

    fn sign_mods(&mut self, v: String, m: &SrcMods, bits: u32) -> R<String> {
        if m.suffix.is_some() || m.not {
            return Err(format!("floating-point operand modifiers {m:?}"));
        }
        let (t, sign) = if bits == 64 {
            (self.t64(), "0x8000000000000000")
        } else {
            (self.t32(), "0x80000000")
        };
        let mut v = v;
        if m.abs {
            let mask = if bits == 64 {
                "0x7fffffffffffffff"
            } else {
                "0x7fffffff"
            };
            self.line(format!("and.b{bits} {t}, {v}, {mask}"));
            v = t.clone();
        }
        if m.neg {
            self.line(format!("xor.b{bits} {t}, {v}, {sign}"));
            v = t;
        }
        Ok(v)
    }
}

/// Lift a floating-point form, or `None` when `i` is not one.
pub(super) fn instruction(cx: &mut Cx<'_>, i: &Instr) -> Option<R<()>> {
    Some(match i.opcode() {
        "FADD" | "FMUL" => fbin(cx, i),
        "FFMA" => ffma(cx, i),
        "FMNMX" => fmnmx(cx, i),
        "FSETP" => fsetp(cx, i, 32),
        "DSETP" => fsetp(cx, i, 64),
        "FSEL" => fsel(cx, i),
        "DADD" | "DMUL" => dbin(cx, i),
        "DFMA" => dfma(cx, i),
        "MUFU" => mufu(cx, i),
        "F2F" => f2f(cx, i),
        "F2I" => f2i(cx, i),
        "I2F" => i2f(cx, i),
        "FRND" => frnd(cx, i),
        "FCHK" => fchk(cx, i),
        "F2FP" => f2fp(cx, i),
        "HADD2" if i.has("F32") => hadd2_f32(cx, i),
        "HFMA2" if is_const_move(i) => return None,
        _ => return half2(cx, i),
    })
}

/// `HFMA2.MMA d, -RZ, RZ, hi, lo` (a constant move; lifted with the integer forms).
fn is_const_move(i: &Instr) -> bool {
    i.has("MMA")
        && matches!(i.operands.get(1), Some(Operand::Reg(r, m)) if r.is_zero() && m.neg && m.suffix.is_none())
        && matches!(i.operands.get(2), Some(Operand::Reg(r, m)) if r.is_zero() && !m.neg && m.suffix.is_none())
        && i.operands.len() == 5
}

/// `FADD/FMUL[.FTZ][.RZ|.RM|.RP][.SAT] d, a, b`.
fn fbin(cx: &mut Cx<'_>, i: &Instr) -> R<()> {
    check_mods(i, &["FTZ", "RZ", "RM", "RP", "RN", "SAT"])?;
    ops_len(i, 3)?;
    let a = cx.fsrc(&i.operands[1])?;
    let b = cx.fsrc(&i.operands[2])?;
    let d = cx.dst(&i.operands[0])?;
    let op = if i.opcode() == "FADD" { "add" } else { "mul" };
    cx.line(format!(
        "{op}.{}{}{}.f32 {d}, {a}, {b}",
        rounding(i),
        ftz(i),
        sat(i)
    ));
    Ok(())
}

/// `FFMA[.FTZ][.RZ|.RM|.RP][.SAT] d, a, b, c`: `d = a * b + c`, rounded once.
fn ffma(cx: &mut Cx<'_>, i: &Instr) -> R<()> {
    check_mods(i, &["FTZ", "RZ", "RM", "RP", "RN", "SAT"])?;
    ops_len(i, 4)?;
    let a = cx.fsrc(&i.operands[1])?;
    let b = cx.fsrc(&i.operands[2])?;
    let c = cx.fsrc(&i.operands[3])?;
    let d = cx.dst(&i.operands[0])?;
    cx.line(format!(
        "fma.{}{}{}.f32 {d}, {a}, {b}, {c}",
        rounding(i),
        ftz(i),
        sat(i)
    ));
    Ok(())
}

/// `DADD/DMUL[.RZ|.RM|.RP] d, a, b` (register pairs).
fn dbin(cx: &mut Cx<'_>, i: &Instr) -> R<()> {
    check_mods(i, &["RZ", "RM", "RP", "RN"])?;
    ops_len(i, 3)?;
    // `DADD d, a, -b` and `DADD d, -b, a` are ptxas's `sub.f64 d, a, b`. Lifted as `sub`, not
    // as an addition of the negated bits: for a NaN `b` the H200 returns `b`'s NaN, not its
    // negation, and of two NaNs `b`'s (`f64_round`'s `__dsub_ru`, `DADD.RP R8, -R8, R14`).
    let negated = |o: &Operand| match o {
        Operand::Reg(r, m) if !r.is_zero() && m.neg && !m.abs => {
            let mut m = m.clone();
            m.neg = false;
            Some(Operand::Reg(*r, m))
        }
        _ => None,
    };
    let plain = |o: &Operand| matches!(o, Operand::Reg(_, m) if !m.neg && !m.abs);
    let (x, y) = (&i.operands[1], &i.operands[2]);
    let (op, a, b) = match (negated(x), negated(y)) {
        (None, Some(b)) if i.opcode() == "DADD" && plain(x) => ("sub", x.clone(), b),
        (Some(b), None) if i.opcode() == "DADD" && plain(y) => ("sub", y.clone(), b),
        _ => (
            if i.opcode() == "DADD" { "add" } else { "mul" },
            x.clone(),
            y.clone(),
        ),
    };
    let a = cx.fsrc64(&a)?;
    let b = cx.fsrc64(&b)?;
    let t = cx.t64();
    cx.line(format!("{op}.{}.f64 {t}, {a}, {b}", rounding(i)));
    cx.store64(&i.operands[0], &t)
}

fn dfma(cx: &mut Cx<'_>, i: &Instr) -> R<()> {
    check_mods(i, &["RZ", "RM", "RP", "RN"])?;
    ops_len(i, 4)?;
    let a = cx.fsrc64(&i.operands[1])?;
    let b = cx.fsrc64(&i.operands[2])?;
    let c = cx.fsrc64(&i.operands[3])?;
    let t = cx.t64();
    cx.line(format!("fma.{}.f64 {t}, {a}, {b}, {c}", rounding(i)));
    cx.store64(&i.operands[0], &t)
}

/// `FMNMX[.FTZ][.NAN] d, a, b, P`: `d = P ? min(a, b) : max(a, b)` with PTX's `min`/`max`
/// NaN rule (a NaN operand loses to a number; `.NAN`: a NaN operand wins).
fn fmnmx(cx: &mut Cx<'_>, i: &Instr) -> R<()> {
    check_mods(i, &["FTZ", "NAN"])?;
    ops_len(i, 4)?;
    let a = cx.fsrc(&i.operands[1])?;
    let b = cx.fsrc(&i.operands[2])?;
    let m = format!("{}{}", ftz(i), if i.has("NAN") { ".NaN" } else { "" });
    let d = cx.dst(&i.operands[0])?;
    match &i.operands[3] {
        Operand::Pred(r, not) if r.is_true() => {
            let op = if *not { "max" } else { "min" };
            cx.line(format!("{op}{m}.f32 {d}, {a}, {b}"));
        }
        p => {
            let p = cx.psrc(p)?;
            let (lo, hi) = (cx.t32(), cx.t32());
            cx.line(format!("min{m}.f32 {lo}, {a}, {b}"));
            cx.line(format!("max{m}.f32 {hi}, {a}, {b}"));
            cx.line(format!("selp.b32 {d}, {lo}, {hi}, {p}"));
        }
    }
    Ok(())
}

/// `FSEL d, a, b, P`: `d = P ? a : b` (bits, immediates are binary32).
fn fsel(cx: &mut Cx<'_>, i: &Instr) -> R<()> {
    check_mods(i, &[])?;
    ops_len(i, 4)?;
    let a = cx.fsrc(&i.operands[1])?;
    let b = cx.fsrc(&i.operands[2])?;
    let p = cx.psrc(&i.operands[3])?;
    let d = cx.dst(&i.operands[0])?;
    cx.line(format!("selp.b32 {d}, {a}, {b}, {p}"));
    Ok(())
}

/// `FSETP/DSETP.cmp[.FTZ].bop Pd, Pq, a, b, c`: `r = a cmp b` (PTX's `setp` comparisons, the
/// ordered and the unordered ones, `NUM`, `NAN`), `Pd = r bop c`, `Pq = !r bop c`.
fn fsetp(cx: &mut Cx<'_>, i: &Instr, bits: u32) -> R<()> {
    let mods: Vec<&str> = i.modifiers().collect();
    let cmp = *mods.first().ok_or("setp without a comparison")?;
    if bits == 64 && matches!(cmp, "MIN" | "MAX") {
        return dsetp_minmax(cx, i, cmp);
    }
    let ptx_cmp = match cmp {
        "EQ" | "NE" | "LT" | "LE" | "GT" | "GE" | "EQU" | "NEU" | "LTU" | "LEU" | "GTU" | "GEU"
        | "NUM" | "NAN" => cmp.to_ascii_lowercase(),
        m => return Err(format!("comparison .{m}")),
    };
    let mut bop = None;
    let mut fz = "";
    for m in &mods[1..] {
        match *m {
            "AND" | "OR" | "XOR" => bop = Some(m.to_ascii_lowercase()),
            "FTZ" if bits == 32 => fz = ".ftz",
            m => return Err(format!("modifier .{m}")),
        }
    }
    let bop = bop.ok_or("setp without .AND/.OR/.XOR")?;
    ops_len(i, 5)?;
    let o = &i.operands;
    let (a, b) = if bits == 64 {
        (cx.fsrc64(&o[2])?, cx.fsrc64(&o[3])?)
    } else {
        (cx.fsrc_f32(&o[2])?, cx.fsrc_f32(&o[3])?)
    };
    let r = cx.tp();
    cx.line(format!("setp.{ptx_cmp}{fz}.f{bits} {r}, {a}, {b}"));
    super::set_pred_pair(cx, &o[0], &o[1], &r, &bop, &o[4])
}

/// `DSETP.MIN|MAX.AND Pd, Pq, a, b, c`: the selection half of ptxas's `min.f64`/`max.f64`
/// (`k_f64_round`: `DSETP.MIN.AND P0, P1, a, b, PT`, then the high word `FSEL(a.hi, b.hi,
/// P0)`, quieted by `@P1 LOP3 .. 0x80000` from `b.hi`, the low word `SEL(a.lo, b.lo, P0)`):
/// `Pd` = the result is `a` (`a` is the smaller / larger, or `b` is NaN and `a` is not),
/// `Pq` = both are NaN; each and-ed with `c`. Lifted with PTX's `min.f64`/`max.f64`: `Pd` =
/// its result has `a`'s bits, so the selected pair is the PTX result (its NaN payload
/// when both are NaN aside: then the low word is either operand's).
fn dsetp_minmax(cx: &mut Cx<'_>, i: &Instr, op: &str) -> R<()> {
    check_mods(i, &["MIN", "MAX", "AND"])?;
    if !i.has("AND") {
        return Err("DSETP.MIN/MAX without .AND".into());
    }
    ops_len(i, 5)?;
    let o = &i.operands;
    let (a, b) = (cx.fsrc64(&o[2])?, cx.fsrc64(&o[3])?);
    let m = cx.t64();
    cx.line(format!("{}.f64 {m}, {a}, {b}", op.to_ascii_lowercase()));
    let (mb, ab) = (cx.t64(), cx.t64());
    cx.line(format!("mov.b64 {mb}, {m}"));
    cx.line(format!("mov.b64 {ab}, {a}"));
    let (sel, na, nb, both) = (cx.tp(), cx.tp(), cx.tp(), cx.tp());
    cx.line(format!("setp.eq.u64 {sel}, {mb}, {ab}"));
    cx.line(format!("setp.nan.f64 {na}, {a}, {a}"));
    cx.line(format!("setp.nan.f64 {nb}, {b}, {b}"));
    cx.line(format!("and.pred {both}, {na}, {nb}"));
    let c = cx.psrc(&o[4])?;
    for (dst, v) in [(&o[0], &sel), (&o[1], &both)] {
        if !matches!(dst, Operand::Pred(r, false) if r.is_true()) {
            let d = cx.pdst(dst)?;
            cx.line(format!("and.pred {d}, {v}, {c}"));
        }
    }
    Ok(())
}

/// `MUFU.op d, a`: the multi-function unit's approximations, lifted to PTX's `.approx` forms
/// with flush-to-zero (MUFU flushes subnormal inputs and results). `SIN`/`COS` take their
/// argument in revolutions (ptxas multiplies by 1/2π, rounding toward zero, before them):
/// lifted as `sin/cos.approx.ftz.f32` of the value that multiply read, when the lifter found
/// it (`turns_arguments` in `lift/mod.rs`), else reported. `RCP64H`/`RSQ64H` work on the high word of a binary64 (the low word read as 0, the
/// high word of the result written).
fn mufu(cx: &mut Cx<'_>, i: &Instr) -> R<()> {
    ops_len(i, 2)?;
    let mods: Vec<&str> = i.modifiers().collect();
    let [f] = mods.as_slice() else {
        return Err(format!("MUFU modifiers {mods:?}"));
    };
    let a = cx.fsrc(&i.operands[1])?;
    let d = cx.dst(&i.operands[0])?;
    let op = match *f {
        "RCP" => "rcp.approx.ftz.f32",
        "RSQ" => "rsqrt.approx.ftz.f32",
        "SQRT" => "sqrt.approx.ftz.f32",
        "EX2" => "ex2.approx.ftz.f32",
        "LG2" => "lg2.approx.ftz.f32",
        "TANH" => "tanh.approx.f32",
        "SIN" | "COS" => {
            let Some(x) = cx
                .turns
                .get(&i.offset)
                .and_then(|(fmul, _)| cx.radians.get(fmul))
                .cloned()
            else {
                return Err(format!(
                    "MUFU.{f} whose argument is not ptxas's FMUL.RZ by 1/2π in the same block (an argument in revolutions has no exact PTX form)"
                ));
            };
            let op = if *f == "SIN" { "sin" } else { "cos" };
            cx.line(format!("{op}.approx.ftz.f32 {d}, {x}"));
            return Ok(());
        }
        "RCP64H" | "RSQ64H" => {
            let (x, y) = (cx.t64(), cx.t64());
            cx.line(format!("mov.b64 {x}, {{0, {a}}}"));
            let op = if *f == "RCP64H" { "rcp" } else { "rsqrt" };
            cx.line(format!("{op}.approx.ftz.f64 {y}, {x}"));
            let lo = cx.t32();
            cx.line(format!("mov.b64 {{{lo}, {d}}}, {y}"));
            return Ok(());
        }
        m => return Err(format!("MUFU.{m}")),
    };
    cx.line(format!("{op} {d}, {a}"));
    Ok(())
}

/// The float format of a type modifier (`F16`, `F32`, `F64`).
fn float_ty(m: &str) -> Option<u32> {
    match m {
        "F16" => Some(16),
        "F32" => Some(32),
        "F64" => Some(64),
        _ => None,
    }
}

/// (signed, bits) of an integer type modifier.
fn int_ty(m: &str) -> Option<(bool, u32)> {
    Some(match m {
        "U8" => (false, 8),
        "S8" => (true, 8),
        "U16" => (false, 16),
        "S16" => (true, 16),
        "U32" => (false, 32),
        "S32" => (true, 32),
        "U64" => (false, 64),
        "S64" => (true, 64),
        _ => return None,
    })
}

/// A float source of `bits` (16: the low half of the register) as a PTX value of that type.
fn float_src(cx: &mut Cx<'_>, op: &Operand, bits: u32) -> R<String> {
    match bits {
        64 => cx.fsrc64(op),
        32 => cx.fsrc(op),
        _ => {
            let v = cx.fsrc(op)?;
            let h = cx.t16();
            cx.line(format!("cvt.u16.u32 {h}, {v}"));
            Ok(h)
        }
    }
}

/// Write `v` of a float format of `bits` to the destination (16: zero-extended).
fn float_dst(cx: &mut Cx<'_>, op: &Operand, v: &str, bits: u32) -> R<()> {
    match bits {
        64 => cx.store64(op, v),
        32 => {
            let d = cx.dst(op)?;
            cx.line(format!("mov.b32 {d}, {v}"));
            Ok(())
        }
        _ => {
            let d = cx.dst(op)?;
            cx.line(format!("cvt.u32.u16 {d}, {v}"));
            Ok(())
        }
    }
}

fn float_tmp(cx: &mut Cx<'_>, bits: u32) -> String {
    match bits {
        64 => cx.t64(),
        32 => cx.t32(),
        _ => cx.t16(),
    }
}

/// `F2F.dst.src[.FTZ][.RZ|.RM|.RP] d, a`: float to float (`cvt`); `F2F.BF16.F32[.RN] d, a`:
/// `cvt.rn.bf16.f32`, the bfloat16 in the low half of `d`, as for `.F16`.
fn f2f(cx: &mut Cx<'_>, i: &Instr) -> R<()> {
    ops_len(i, 2)?;
    if i.has("BF16") {
        check_mods(i, &["BF16", "F32", "RN"])?;
        if !i.has("F32") {
            return Err("F2F.BF16 from another format than F32".into());
        }
        let a = float_src(cx, &i.operands[1], 32)?;
        let t = cx.t16();
        cx.line(format!("cvt.rn.bf16.f32 {t}, {a}"));
        return float_dst(cx, &i.operands[0], &t, 16);
    }
    let tys: Vec<u32> = i.modifiers().filter_map(float_ty).collect();
    check_mods(i, &["F16", "F32", "F64", "FTZ", "RZ", "RM", "RP", "RN"])?;
    let [dt, st] = tys.as_slice() else {
        return Err("F2F without a destination and a source format".into());
    };
    let (dt, st) = (*dt, *st);
    let a = float_src(cx, &i.operands[1], st)?;
    let t = float_tmp(cx, dt);
    let rnd = if dt < st {
        format!(".{}", rounding(i))
    } else if i.modifiers().any(|m| matches!(m, "RZ" | "RM" | "RP")) {
        return Err("F2F widening with a rounding modifier".into());
    } else {
        String::new()
    };
    cx.line(format!("cvt{rnd}{}.f{dt}.f{st} {t}, {a}", ftz(i)));
    float_dst(cx, &i.operands[0], &t, dt)
}

/// The rounding of an integer rounding modifier (`TRUNC`, `FLOOR`, `CEIL`; round to
/// nearest even when none).
fn int_rounding(i: &Instr) -> &'static str {
    for m in i.modifiers() {
        match m {
            "TRUNC" => return "rzi",
            "FLOOR" => return "rmi",
            "CEIL" => return "rpi",
            _ => {}
        }
    }
    "rni"
}

/// `F2I[.dst][.src][.FTZ][.TRUNC|.FLOOR|.CEIL][.NTZ] d, a`: float to integer (`cvt.r?i`,
/// saturating to the destination's range, NaN to 0, as PTX's `cvt`); `S32` from `F32`
/// when no type is named; 8- and 16-bit results are extended to the register.
fn f2i(cx: &mut Cx<'_>, i: &Instr) -> R<()> {
    ops_len(i, 2)?;
    check_mods(
        i,
        &[
            "U8", "S8", "U16", "S16", "U32", "S32", "U64", "S64", "F16", "F32", "F64", "FTZ",
            "TRUNC", "FLOOR", "CEIL", "NTZ",
        ],
    )?;
    let (signed, dbits) = i.modifiers().find_map(int_ty).unwrap_or((true, 32));
    let sbits = i.modifiers().find_map(float_ty).unwrap_or(32);
    let a = float_src(cx, &i.operands[1], sbits)?;
    let it = format!("{}{dbits}", if signed { 's' } else { 'u' });
    let r = int_rounding(i);
    let fz = ftz(i);
    match dbits {
        64 => {
            let t = cx.t64();
            cx.line(format!("cvt.{r}{fz}.{it}.f{sbits} {t}, {a}"));
            cx.store64(&i.operands[0], &t)
        }
        32 => {
            let d = cx.dst(&i.operands[0])?;
            cx.line(format!("cvt.{r}{fz}.{it}.f{sbits} {d}, {a}"));
            Ok(())
        }
        _ => {
            let h = cx.t16();
            cx.line(format!("cvt.{r}{fz}.{it}.f{sbits} {h}, {a}"));
            let d = cx.dst(&i.operands[0])?;
            let ext = if signed { "s32.s16" } else { "u32.u16" };
            cx.line(format!("cvt.{ext} {d}, {h}"));
            Ok(())
        }
    }
}

/// `I2F[.dst][.src][.RZ|.RM|.RP] d, a`: integer to float (`cvt.r?`); `F32` from `S32` when
/// no type is named; a 16-bit result is zero-extended.
fn i2f(cx: &mut Cx<'_>, i: &Instr) -> R<()> {
    ops_len(i, 2)?;
    check_mods(
        i,
        &[
            "U8", "S8", "U16", "S16", "U32", "S32", "U64", "S64", "F16", "F32", "F64", "RZ", "RM",
            "RP", "RN",
        ],
    )?;
    let (signed, sbits) = i.modifiers().find_map(int_ty).unwrap_or((true, 32));
    let dbits = i.modifiers().find_map(float_ty).unwrap_or(32);
    let it = format!("{}{sbits}", if signed { 's' } else { 'u' });
    let a = match sbits {
        64 => cx.src64(&i.operands[1])?,
        32 => cx.src(&i.operands[1])?,
        _ => {
            // A byte or half selector (`I2F.S8 R6, R9.B1`): that part of the register.
            let (op, shift) = match &i.operands[1] {
                Operand::Reg(r, m) => {
                    let k = match (sbits, m.suffix.as_deref()) {
                        (8, Some("B0")) | (16, Some("H0")) => Some(0),
                        (8, Some("B1")) => Some(8),
                        (8, Some("B2")) | (16, Some("H1")) => Some(16),
                        (8, Some("B3")) => Some(24),
                        _ => None,
                    };
                    let mut m2 = m.clone();
                    if k.is_some() {
                        m2.suffix = None;
                    }
                    (Operand::Reg(*r, m2), k.unwrap_or(0))
                }
                o => (o.clone(), 0),
            };
            let mut v = cx.src(&op)?;
            if shift > 0 {
                let t = cx.t32();
                cx.line(format!("shr.u32 {t}, {v}, {shift}"));
                v = t;
            }
            let h = cx.t16();
            cx.line(format!("cvt.u16.u32 {h}, {v}"));
            if sbits == 8 {
                let ext = if signed { "s16.s8" } else { "u16.u8" };
                let h2 = cx.t16();
                cx.line(format!("cvt.{ext} {h2}, {h}"));
                h2
            } else {
                h
            }
        }
    };
    let it = if sbits == 8 {
        format!("{}16", if signed { 's' } else { 'u' })
    } else {
        it
    };
    let t = float_tmp(cx, dbits);
    // (Exact for 32-bit integers to binary64, where the rounding has no effect.)
    cx.line(format!("cvt.{}.f{dbits}.{it} {t}, {a}", rounding(i)));
    float_dst(cx, &i.operands[0], &t, dbits)
}

/// `FRND[.F64][.FTZ][.TRUNC|.FLOOR|.CEIL] d, a`: round to an integral value in the same
/// format (`cvt.r?i.fN.fN`; to nearest even when no mode is named).
fn frnd(cx: &mut Cx<'_>, i: &Instr) -> R<()> {
    ops_len(i, 2)?;
    check_mods(i, &["F32", "F64", "FTZ", "TRUNC", "FLOOR", "CEIL"])?;
    let bits = if i.has("F64") { 64 } else { 32 };
    let a = float_src(cx, &i.operands[1], bits)?;
    let t = float_tmp(cx, bits);
    cx.line(format!(
        "cvt.{}{}.f{bits}.f{bits} {t}, {a}",
        int_rounding(i),
        ftz(i)
    ));
    float_dst(cx, &i.operands[0], &t, bits)
}

/// `FCHK P, a, b`: whether the quotient a / b needs the full-range division path. ptxas
/// branches on it between a fast path and its general IEEE division subroutine, which gives
/// the correctly rounded quotient for every input; the lifted predicate is always true
/// (the general path is always taken), so the quotient is the same.
fn fchk(cx: &mut Cx<'_>, i: &Instr) -> R<()> {
    check_mods(i, &["DIVIDE"])?;
    ops_len(i, 3)?;
    cx.fsrc(&i.operands[1])?;
    cx.fsrc(&i.operands[2])?;
    let p = cx.pdst(&i.operands[0])?;
    cx.line(format!("setp.eq.u32 {p}, 0, 0"));
    Ok(())
}

/// `F2FP[.BF16].PACK_AB[.RZ][.RELU] d, a, b`: two binary32 values packed into a pair of
/// halves (`a` in the high half), `cvt.rn|rz[.relu].f16x2|bf16x2.f32`.
fn f2fp(cx: &mut Cx<'_>, i: &Instr) -> R<()> {
    check_mods(i, &["BF16", "PACK_AB", "RZ", "RN", "RELU"])?;
    if !i.has("PACK_AB") {
        return Err("F2FP without .PACK_AB".into());
    }
    ops_len(i, 3)?;
    let a = cx.fsrc_f32(&i.operands[1])?;
    let b = cx.fsrc_f32(&i.operands[2])?;
    let d = cx.dst(&i.operands[0])?;
    let r = if i.has("RZ") { "rz" } else { "rn" };
    let relu = if i.has("RELU") { ".relu" } else { "" };
    let ty = if i.has("BF16") { "bf16x2" } else { "f16x2" };
    cx.line(format!("cvt.{r}{relu}.{ty}.f32 {d}, {a}, {b}"));
    Ok(())
}

/// A half operand of a packed pair with its lane selector (`R2.H0_H0`, `R2.H1_H1`, `-RZ`,
/// `c[0x0][0x170].H0_H0`), converted to binary32 (exact) with its sign modifiers.
fn half_as_f32(cx: &mut Cx<'_>, op: &Operand) -> R<String> {
    let (v, m) = match op {
        Operand::Reg(r, m) => (Cx::reg_name(*r).unwrap_or_else(|| "0".into()), m),
        Operand::Const {
            bank,
            index,
            offset,
            mods,
        } => (cx.const32(*bank, *index, *offset)?, mods),
        o => return Err(format!("half operand {o:?}")),
    };
    let hi = match m.suffix.as_deref() {
        None | Some("H0_H0") => false,
        Some("H1_H1") => true,
        Some(s) => return Err(format!("half selector .{s}")),
    };
    let h = cx.t16();
    if hi {
        let t = cx.t32();
        cx.line(format!("shr.u32 {t}, {v}, 16"));
        cx.line(format!("cvt.u16.u32 {h}, {t}"));
    } else {
        cx.line(format!("cvt.u16.u32 {h}, {v}"));
    }
    let f = cx.t32();
    cx.line(format!("cvt.f32.f16 {f}, {h}"));
    let plain = SrcMods {
        abs: m.abs,
        neg: m.neg,
        ..Default::default()
    };
    cx.sign_mods(f, &plain, 32)
}

/// `HADD2.F32 d, a, b`: one half of `a` plus one half of `b` (lane selectors), in binary32
/// (the halves are exact in binary32; the sum is rounded to nearest).
fn hadd2_f32(cx: &mut Cx<'_>, i: &Instr) -> R<()> {
    check_mods(i, &["F32"])?;
    ops_len(i, 3)?;
    let a = half_as_f32(cx, &i.operands[1])?;
    let b = half_as_f32(cx, &i.operands[2])?;
    let d = cx.dst(&i.operands[0])?;
    cx.line(format!("add.rn.f32 {d}, {a}, {b}"));
    Ok(())
}

/// The packed format of a half-pair form: (`f16x2` or `bf16x2`, the bits of 1.0 and -0.0).
fn pair_ty(i: &Instr) -> (&'static str, u16, u16) {
    if i.has("BF16_V2") || i.has("BF16") {
        ("bf16x2", 0x3f80, 0x8000)
    } else {
        ("f16x2", 0x3c00, 0x8000)
    }
}

/// The binary16 / bfloat16 bits of a printed half immediate.
fn half_imm(v: f64, bf16: bool) -> u16 {
    if bf16 {
        let b = f32_bits(v);
        // Printed bfloat16 immediates are exact: the high half of their binary32 bits.
        (b >> 16) as u16
    } else {
        super::f16_bits(v)
    }
}

/// A half-pair source starting at operand `k`: a register with a lane selector (`R2`,
/// `R2.H0_H0`, `R2.H1_H1`, `-RZ.H0_H0`, `|R2|.H1_H1`) or two immediates (the high half
/// first, as nvdisasm prints them). Returns the pair as a `.b32` value (low half = lane 0)
/// with the sign modifiers applied to each half, and the operands it used.
/// A register or constant pair operand with its lane selector applied (`.H0_H0`, ...), as a
/// `.b32` value, and its sign modifiers (not applied).
fn half_lanes<'o>(cx: &mut Cx<'_>, op: Option<&'o Operand>) -> R<(String, &'o SrcMods)> {
    let (v, m) = match op {
        Some(Operand::Reg(r, m)) => (Cx::reg_name(*r).unwrap_or_else(|| "0".into()), m),
        Some(Operand::Const {
            bank,
            index,
            offset,
            mods,
        }) => (cx.const32(*bank, *index, *offset)?, mods),
        o => return Err(format!("half-pair operand {o:?}")),
    };
    if m.not {
        return Err("half-pair operand with ~".into());
    }
    let t = cx.t32();
    match m.suffix.as_deref() {
        None | Some("H1_H0") => cx.line(format!("mov.b32 {t}, {v}")),
        Some("H0_H0") => cx.line(format!("prmt.b32 {t}, {v}, 0, 0x1010")),
        Some("H1_H1") => cx.line(format!("prmt.b32 {t}, {v}, 0, 0x3232")),
        Some("H0_H1") => cx.line(format!("prmt.b32 {t}, {v}, 0, 0x1032")),
        Some(s) => return Err(format!("half selector .{s}")),
    }
    Ok((t, m))
}

/// ptxas's spelling of PTX's `neg`/`abs` of a pair: an addition of -0.0 (`HADD2 d, -x,
/// -RZ`, `HADD2 d, |x|, -RZ`) or a fused multiply-add with the product -0.0 (`HFMA2 d, -RZ,
/// RZ, -x`). The index of `x` when `i` is one (no `.SAT`/`.RELU`, `x` with `-` or `|x|`).
/// Such an instruction is the identity on numbers but, being arithmetic, writes NVIDIA's
/// canonical NaN for a NaN (H200); lifted as `add`/`fma` it is folded by LLVM to a sign
/// operation that keeps the NaN's payload, so it is lifted as the PTX `neg`/`abs` it came
/// from, which writes the canonical NaN again.
fn pair_sign_idiom(i: &Instr, op: &str) -> Option<usize> {
    if i.has("SAT") || i.has("RELU") {
        return None;
    }
    let o = &i.operands;
    let zero = |k: usize| match o.get(k) {
        Some(Operand::Reg(r, m)) if r.is_zero() && !m.abs && !m.not => Some(m.neg),
        _ => None,
    };
    let signed =
        |k: usize| matches!(o.get(k), Some(Operand::Reg(r, m)) if !r.is_zero() && (m.neg || m.abs));
    match (op, o.len()) {
        ("HADD2", 3) if zero(2) == Some(true) && signed(1) => Some(1),
        ("HADD2", 3) if zero(1) == Some(true) && signed(2) => Some(2),
        ("HFMA2", 4) => match (zero(1), zero(2)) {
            (Some(x), Some(y)) if x != y && signed(3) => Some(3),
            _ => None,
        },
        _ => None,
    }
}

fn half_pair(cx: &mut Cx<'_>, i: &Instr, k: usize, bf16: bool) -> R<(String, usize)> {
    let o = &i.operands;
    let imm = |op: &Operand| match op {
        Operand::Imm(v) => Some(half_imm(*v as f64, bf16)),
        Operand::Float(f) => Some(half_imm(*f, bf16)),
        Operand::FloatBits(b) => Some(*b as u16),
        _ => None,
    };
    if let (Some(h), Some(l)) = (o.get(k).and_then(imm), o.get(k + 1).and_then(imm)) {
        let v = (u32::from(h) << 16) | u32::from(l);
        return Ok((format!("0x{v:08x}"), 2));
    }
    let (t, m) = half_lanes(cx, o.get(k))?;
    if m.abs {
        cx.line(format!("and.b32 {t}, {t}, 0x7fff7fff"));
    }
    if m.neg {
        cx.line(format!("xor.b32 {t}, {t}, 0x80008000"));
    }
    Ok((t, 1))
}

/// The half-pair forms: `HADD2`, `HMUL2`, `HFMA2` (`.MMA`: the same operation on another
/// pipe), `HMNMX2`, `HSETP2`, `HSET2`, in binary16 or (`.BF16_V2`) bfloat16 pairs: PTX's
/// `.f16x2` / `.bf16x2` instructions, lane by lane (round to nearest; `.SAT`, `.RELU`,
/// `.NAN` as PTX's). bfloat16 add and multiply are `fma` with 1.0 and -0.0 (exact
/// equivalents: one rounding).
pub(super) fn half2(cx: &mut Cx<'_>, i: &Instr) -> Option<R<()>> {
    let op = i.opcode();
    if !matches!(
        op,
        "HADD2" | "HMUL2" | "HFMA2" | "HMNMX2" | "HSETP2" | "HSET2"
    ) {
        return None;
    }
    Some(half2_form(cx, i, op))
}

fn half2_form(cx: &mut Cx<'_>, i: &Instr, op: &str) -> R<()> {
    let (ty, one, negz) = pair_ty(i);
    let bf = ty == "bf16x2";
    let mut k = 1;
    let src = |cx: &mut Cx<'_>, k: &mut usize| -> R<String> {
        let (v, n) = half_pair(cx, i, *k, bf)?;
        *k += n;
        Ok(v)
    };
    let sat = if i.has("SAT") { ".sat" } else { "" };
    let relu = if i.has("RELU") { ".relu" } else { "" };
    match op {
        "HADD2" | "HMUL2" | "HFMA2" => {
            check_mods(i, &["MMA", "SAT", "RELU", "BF16_V2"])?;
            if let Some(k) = pair_sign_idiom(i, op) {
                let (mut v, m) = half_lanes(cx, i.operands.get(k))?;
                for (on, f) in [(m.abs, "abs"), (m.neg, "neg")] {
                    if on {
                        let t = cx.t32();
                        cx.line(format!("{f}.{ty} {t}, {v}"));
                        v = t;
                    }
                }
                let d = cx.dst(&i.operands[0])?;
                cx.line(format!("mov.b32 {d}, {v}"));
                return Ok(());
            }
            if !sat.is_empty() && (bf || !relu.is_empty()) {
                return Err("a bfloat16 pair or .RELU with .SAT".into());
            }
            let a = src(cx, &mut k)?;
            let b = src(cx, &mut k)?;
            let (b, c) = match op {
                "HADD2" => (format!("0x{:08x}", u32::from(one) * 0x1_0001), b),
                "HMUL2" => (b, format!("0x{:08x}", u32::from(negz) * 0x1_0001)),
                _ => {
                    let c = src(cx, &mut k)?;
                    (b, c)
                }
            };
            if k != i.operands.len() {
                return Err(format!("{} operands", i.operands.len()));
            }
            let d = cx.dst(&i.operands[0])?;
            // HADD2: fma(1.0, a, b).
            let (a, b) = if op == "HADD2" { (b, a) } else { (a, b) };
            // PTX takes no immediate operand for `.f16x2`/`.bf16x2` (ptxas: "Arguments
            // mismatch"): constant pairs go through a register.
            let reg = |cx: &mut Cx<'_>, v: String| {
                if v.starts_with("0x") {
                    let t = cx.t32();
                    cx.line(format!("mov.b32 {t}, {v}"));
                    t
                } else {
                    v
                }
            };
            let (a, b, c) = (reg(cx, a), reg(cx, b), reg(cx, c));
            if sat.is_empty() {
                cx.line(format!("fma.rn{relu}.{ty} {d}, {a}, {b}, {c}"));
                return Ok(());
            }
            // `.SAT` clamps each result to [0, 1] (NaN to 0), PTX's `.sat`: HADD2.SAT and
            // HMUL2.SAT are `add.rn.sat.f16x2` (1·b + c) and `mul.rn.sat.f16x2` (a·b + -0),
            // exact rewrites of the fma; HFMA2.SAT is `fma.rn.sat.f16` lane by lane.
            match op {
                "HADD2" => cx.line(format!("add.rn.sat.f16x2 {d}, {b}, {c}")),
                "HMUL2" => cx.line(format!("mul.rn.sat.f16x2 {d}, {a}, {b}")),
                _ => {
                    let h: Vec<String> = (0..8).map(|_| cx.t16()).collect();
                    cx.line(format!("mov.b32 {{{}, {}}}, {a}", h[0], h[1]));
                    cx.line(format!("mov.b32 {{{}, {}}}, {b}", h[2], h[3]));
                    cx.line(format!("mov.b32 {{{}, {}}}, {c}", h[4], h[5]));
                    cx.line(format!(
                        "fma.rn.sat.f16 {}, {}, {}, {}",
                        h[6], h[0], h[2], h[4]
                    ));
                    cx.line(format!(
                        "fma.rn.sat.f16 {}, {}, {}, {}",
                        h[7], h[1], h[3], h[5]
                    ));
                    cx.line(format!("mov.b32 {d}, {{{}, {}}}", h[6], h[7]));
                }
            }
            Ok(())
        }
        "HMNMX2" => {
            check_mods(i, &["NAN", "BF16_V2"])?;
            let a = src(cx, &mut k)?;
            let b = src(cx, &mut k)?;
            if k + 1 != i.operands.len() {
                return Err(format!("{} operands", i.operands.len()));
            }
            let nan = if i.has("NAN") { ".NaN" } else { "" };
            let d = cx.dst(&i.operands[0])?;
            match &i.operands[k] {
                Operand::Pred(r, not) if r.is_true() => {
                    let m = if *not { "max" } else { "min" };
                    cx.line(format!("{m}{nan}.{ty} {d}, {a}, {b}"));
                }
                p => {
                    let p = cx.psrc(p)?;
                    let (lo, hi) = (cx.t32(), cx.t32());
                    cx.line(format!("min{nan}.{ty} {lo}, {a}, {b}"));
                    cx.line(format!("max{nan}.{ty} {hi}, {a}, {b}"));
                    cx.line(format!("selp.b32 {d}, {lo}, {hi}, {p}"));
                }
            }
            Ok(())
        }
        _ => {
            // HSETP2.cmp.bop Pd, Pq, a, b, c / HSET2[.BF].cmp.bop d, a, b, c: the comparison
            // lane by lane; HSETP2: Pd from lane 0, Pq from lane 1 (each `bop c`); HSET2: each
            // half 1.0 (`.BF`) or all ones when true, else 0 (and-ed/or-ed with c).
            let mods: Vec<&str> = i.modifiers().filter(|m| *m != "BF").collect();
            let [cmp, bop] = mods.as_slice() else {
                return Err(format!("modifiers {mods:?}"));
            };
            let cmp = match *cmp {
                "EQ" | "NE" | "LT" | "LE" | "GT" | "GE" | "EQU" | "NEU" | "LTU" | "LEU" | "GTU"
                | "GEU" | "NUM" | "NAN" => cmp.to_ascii_lowercase(),
                m => return Err(format!("comparison .{m}")),
            };
            let bop = match *bop {
                "AND" | "OR" | "XOR" => bop.to_ascii_lowercase(),
                m => return Err(format!("modifier .{m}")),
            };
            if bf {
                return Err("bfloat16 pair comparison".into());
            }
            let first = if op == "HSETP2" { 2 } else { 1 };
            k = first;
            let a = src(cx, &mut k)?;
            let b = src(cx, &mut k)?;
            if k + 1 != i.operands.len() {
                return Err(format!("{} operands", i.operands.len()));
            }
            let c = cx.psrc(&i.operands[k])?;
            let (p, q) = (cx.tp(), cx.tp());
            // Lane by lane with the scalar `setp.f16` (the same comparison per half).
            let reg = |cx: &mut Cx<'_>, v: String| {
                if v.starts_with("0x") {
                    let t = cx.t32();
                    cx.line(format!("mov.b32 {t}, {v}"));
                    t
                } else {
                    v
                }
            };
            let (a, b) = (reg(cx, a), reg(cx, b));
            let (al, ah, bl, bh) = (cx.t16(), cx.t16(), cx.t16(), cx.t16());
            cx.line(format!("mov.b32 {{{al}, {ah}}}, {a}"));
            cx.line(format!("mov.b32 {{{bl}, {bh}}}, {b}"));
            cx.line(format!("setp.{cmp}.f16 {p}, {al}, {bl}"));
            cx.line(format!("setp.{cmp}.f16 {q}, {ah}, {bh}"));
            cx.line(format!("{bop}.pred {p}, {p}, {c}"));
            cx.line(format!("{bop}.pred {q}, {q}, {c}"));
            if op == "HSETP2" {
                for (dst, v) in [(&i.operands[0], &p), (&i.operands[1], &q)] {
                    if !matches!(dst, Operand::Pred(r, false) if r.is_true()) {
                        let d = cx.pdst(dst)?;
                        cx.line(format!("mov.pred {d}, {v}"));
                    }
                }
            } else {
                let t = if i.has("BF") { one } else { 0xffff };
                let (lo, hi) = (cx.t32(), cx.t32());
                cx.line(format!("selp.b32 {lo}, {t}, 0, {p}"));
                cx.line(format!("selp.b32 {hi}, {}, 0, {q}", u32::from(t) << 16));
                let d = cx.dst(&i.operands[0])?;
                cx.line(format!("or.b32 {d}, {lo}, {hi}"));
            }
            Ok(())
        }
    }
}
