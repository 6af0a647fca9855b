//! LLVM value types used by the lowering and their mapping from PTX types (PTX ISA 9.x §5.2).

use super::val::V;
use crate::ptx::ast::{ImmValue, Type};

/// An LLVM first-class type the lowering works with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Ty {
    I1,
    I8,
    I16,
    I32,
    I64,
    I128,
    F16,
    Bf16,
    F32,
    F64,
    V2F16,
    V2Bf16,
}

/// How a PTX type interprets its bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// `.sN`
    Signed,
    /// `.uN`
    Unsigned,
    /// `.bN`
    Bits,
    /// `.fN`, `.bf16`, `.f16x2`, `.bf16x2`
    Float,
    /// `.pred`
    Pred,
}

impl Ty {
    /// Every type, in declaration order (`ALL[t as usize] == t`).
    pub const ALL: [Ty; 12] = [
        Ty::I1,
        Ty::I8,
        Ty::I16,
        Ty::I32,
        Ty::I64,
        Ty::I128,
        Ty::F16,
        Ty::Bf16,
        Ty::F32,
        Ty::F64,
        Ty::V2F16,
        Ty::V2Bf16,
    ];

    /// `  store <ty> ` (the start of a store line).
    pub fn store_prefix(self) -> &'static str {
        match self {
            Ty::I1 => "  store i1 ",
            Ty::I8 => "  store i8 ",
            Ty::I16 => "  store i16 ",
            Ty::I32 => "  store i32 ",
            Ty::I64 => "  store i64 ",
            Ty::I128 => "  store i128 ",
            Ty::F16 => "  store half ",
            Ty::Bf16 => "  store bfloat ",
            Ty::F32 => "  store float ",
            Ty::F64 => "  store double ",
            Ty::V2F16 => "  store <2 x half> ",
            Ty::V2Bf16 => "  store <2 x bfloat> ",
        }
    }

    /// The LLVM spelling.
    pub fn ll(self) -> &'static str {
        match self {
            Ty::I1 => "i1",
            Ty::I8 => "i8",
            Ty::I16 => "i16",
            Ty::I32 => "i32",
            Ty::I64 => "i64",
            Ty::I128 => "i128",
            Ty::F16 => "half",
            Ty::Bf16 => "bfloat",
            Ty::F32 => "float",
            Ty::F64 => "double",
            Ty::V2F16 => "<2 x half>",
            Ty::V2Bf16 => "<2 x bfloat>",
        }
    }

    /// Size in bits (1 for `i1`).
    pub fn bits(self) -> u32 {
        match self {
            Ty::I1 => 1,
            Ty::I8 => 8,
            Ty::I16 | Ty::F16 | Ty::Bf16 => 16,
            Ty::I32 | Ty::F32 | Ty::V2F16 | Ty::V2Bf16 => 32,
            Ty::I64 | Ty::F64 => 64,
            Ty::I128 => 128,
        }
    }

    /// The integer type of `bits` bits.
    pub fn int(bits: u32) -> Ty {
        match bits {
            1 => Ty::I1,
            8 => Ty::I8,
            16 => Ty::I16,
            32 => Ty::I32,
            64 => Ty::I64,
            _ => Ty::I128,
        }
    }

    /// Whether it is a floating-point scalar or vector.
    pub fn is_float(self) -> bool {
        matches!(
            self,
            Ty::F16 | Ty::Bf16 | Ty::F32 | Ty::F64 | Ty::V2F16 | Ty::V2Bf16
        )
    }

    /// The `llvm.*` intrinsic suffix (`f32`, `v2f16`, `i32`).
    pub fn suffix(self) -> &'static str {
        match self {
            Ty::I1 => "i1",
            Ty::I8 => "i8",
            Ty::I16 => "i16",
            Ty::I32 => "i32",
            Ty::I64 => "i64",
            Ty::I128 => "i128",
            Ty::F16 => "f16",
            Ty::Bf16 => "bf16",
            Ty::F32 => "f32",
            Ty::F64 => "f64",
            Ty::V2F16 => "v2f16",
            Ty::V2Bf16 => "v2bf16",
        }
    }
}

/// The LLVM type and kind of a PTX type; `None` for types the lowering has no value type for
/// (`.tf32` is handled as `.b32` bits; fp8 and opaque types are not lowered).
pub(crate) fn of_ptx(t: Type) -> Option<(Ty, Kind)> {
    use Type::*;
    Some(match t {
        B8 => (Ty::I8, Kind::Bits),
        U8 => (Ty::I8, Kind::Unsigned),
        S8 => (Ty::I8, Kind::Signed),
        B16 => (Ty::I16, Kind::Bits),
        U16 => (Ty::I16, Kind::Unsigned),
        S16 => (Ty::I16, Kind::Signed),
        B32 => (Ty::I32, Kind::Bits),
        U32 => (Ty::I32, Kind::Unsigned),
        S32 => (Ty::I32, Kind::Signed),
        B64 => (Ty::I64, Kind::Bits),
        U64 => (Ty::I64, Kind::Unsigned),
        S64 => (Ty::I64, Kind::Signed),
        B128 => (Ty::I128, Kind::Bits),
        F16 => (Ty::F16, Kind::Float),
        Bf16 => (Ty::Bf16, Kind::Float),
        F16x2 => (Ty::V2F16, Kind::Float),
        Bf16x2 => (Ty::V2Bf16, Kind::Float),
        F32 => (Ty::F32, Kind::Float),
        F64 => (Ty::F64, Kind::Float),
        Tf32 => (Ty::I32, Kind::Bits),
        Pred => (Ty::I1, Kind::Pred),
        _ => return None,
    })
}

/// An LLVM constant of type `t` for a PTX literal (PTX ISA 9.x §4.5: `0f`/`0d` literals are
/// bit patterns; decimal floats are `.f64` values converted to the instruction type; integers
/// used with a floating-point type are converted by value).
/// [`imm`] as a [`V`]; integers are formatted without a heap allocation.
pub(crate) fn imm_v(v: ImmValue, t: Ty) -> V {
    match (t, v) {
        (Ty::I8 | Ty::I16 | Ty::I32 | Ty::I64, ImmValue::Int(_) | ImmValue::UInt(_)) => {
            let u = match v {
                ImmValue::Int(i) => i as u64,
                ImmValue::UInt(u) => u,
                _ => unreachable!(),
            };
            let bits = t.bits();
            let m = if bits == 64 {
                u
            } else {
                u & ((1u64 << bits) - 1)
            };
            // As `imm`: printed as signed.
            let s = ((m << (64 - bits)) as i64) >> (64 - bits);
            V::new(itoa::Buffer::new().format(s))
        }
        (Ty::F32 | Ty::F64 | Ty::F16 | Ty::Bf16, _) => float_imm(v, t),
        _ => imm(v, t).into(),
    }
}

/// `prefix` and the low `nd` hex digits of `x`, upper case (`format!("{prefix}{x:0nd$X}")`).
fn hex_v(prefix: &str, x: u64, nd: usize) -> V {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    let mut b = [0u8; 20];
    b[..prefix.len()].copy_from_slice(prefix.as_bytes());
    for i in 0..nd {
        b[prefix.len() + i] = HEX[((x >> (4 * (nd - 1 - i))) & 0xf) as usize];
    }
    V::new(std::str::from_utf8(&b[..prefix.len() + nd]).unwrap_or_default())
}

/// [`imm`] of a `.f32`/`.f64`/`.f16`/`.bf16` instruction type as a [`V`] (LLVM's hexadecimal
/// float constants: `0x` + the 16 digits of the `double` holding the value, `0xH`/`0xR` + the
/// 4 digits of a half/bfloat).
fn float_imm(v: ImmValue, t: Ty) -> V {
    match t {
        Ty::F32 => {
            let f = match v {
                ImmValue::F32Bits(b) => f32::from_bits(b),
                _ => as_f64(v) as f32,
            };
            hex_v("0x", (f as f64).to_bits(), 16)
        }
        Ty::F64 => {
            let f = match v {
                ImmValue::F64Bits(b) => f64::from_bits(b),
                _ => as_f64(v),
            };
            hex_v("0x", f.to_bits(), 16)
        }
        Ty::F16 => hex_v("0xH", f32_to_f16_bits(as_f64(v) as f32) as u64, 4),
        Ty::Bf16 => hex_v("0xR", f32_to_bf16_bits(as_f64(v) as f32) as u64, 4),
        _ => imm(v, t).into(),
    }
}

/// The value of a literal as an `f64` (integers converted by value, bit patterns
/// reinterpreted).
fn as_f64(v: ImmValue) -> f64 {
    match v {
        ImmValue::Int(i) => i as f64,
        ImmValue::UInt(u) => u as f64,
        ImmValue::F32Bits(b) => f32::from_bits(b) as f64,
        ImmValue::F64Bits(b) => f64::from_bits(b),
        ImmValue::Float(f) => f,
    }
}

pub(crate) fn imm(v: ImmValue, t: Ty) -> String {
    let as_u64 = |v: ImmValue| -> u64 {
        match v {
            ImmValue::Int(i) => i as u64,
            ImmValue::UInt(u) => u,
            ImmValue::F32Bits(b) => b as u64,
            ImmValue::F64Bits(b) => b,
            ImmValue::Float(f) => f as i64 as u64,
        }
    };
    match t {
        Ty::I1 => (if as_u64(v) != 0 { "true" } else { "false" }).to_string(),
        Ty::I8 | Ty::I16 | Ty::I32 | Ty::I64 => {
            let bits = t.bits();
            let u = match v {
                ImmValue::Float(f) if bits == 32 => (f as f32).to_bits() as u64,
                ImmValue::Float(f) => f.to_bits(),
                _ => as_u64(v),
            };
            let m = if bits == 64 {
                u
            } else {
                u & ((1u64 << bits) - 1)
            };
            // Print as signed so that LLVM accepts every value of the width.
            let s = ((m << (64 - bits)) as i64) >> (64 - bits);
            s.to_string()
        }
        Ty::I128 => as_u64(v).to_string(),
        Ty::F32 | Ty::F64 | Ty::F16 | Ty::Bf16 => float_imm(v, t).as_str().to_string(),
        Ty::V2F16 | Ty::V2Bf16 => {
            let u = as_u64(v) as u32;
            let (lo, hi) = (u & 0xffff, u >> 16);
            let p = if t == Ty::V2F16 { "0xH" } else { "0xR" };
            let e = if t == Ty::V2F16 { "half" } else { "bfloat" };
            format!("<{e} {p}{lo:04X}, {e} {p}{hi:04X}>")
        }
    }
}

/// Round-to-nearest-even f32 → IEEE binary16 bits.
pub(crate) fn f32_to_f16_bits(f: f32) -> u16 {
    let x = f.to_bits();
    let sign = ((x >> 16) & 0x8000) as u16;
    let exp = ((x >> 23) & 0xff) as i32;
    let man = x & 0x7f_ffff;
    if exp == 0xff {
        return sign | 0x7c00 | if man != 0 { 0x200 } else { 0 };
    }
    let e = exp - 127 + 15;
    if e >= 0x1f {
        return sign | 0x7c00;
    }
    if e <= 0 {
        if e < -10 {
            return sign;
        }
        let m = man | 0x80_0000;
        let shift = (14 - e) as u32;
        let half = 1u32 << (shift - 1);
        let mut r = m >> shift;
        let rem = m & ((1 << shift) - 1);
        if rem > half || (rem == half && r & 1 == 1) {
            r += 1;
        }
        return sign | r as u16;
    }
    let mut r = ((e as u32) << 10) | (man >> 13);
    let rem = man & 0x1fff;
    if rem > 0x1000 || (rem == 0x1000 && r & 1 == 1) {
        r += 1;
    }
    sign | r as u16
}

/// Round-to-nearest-even f32 → bfloat16 bits.
pub(crate) fn f32_to_bf16_bits(f: f32) -> u16 {
    let x = f.to_bits();
    if f.is_nan() {
        return ((x >> 16) | 0x40) as u16;
    }
    let r = x.wrapping_add(0x7fff + ((x >> 16) & 1));
    (r >> 16) as u16
}
