//! Numeric literals (PTX ISA 9.x §4.5): integers (decimal, hex, octal, binary, `U`), the
//! `0f`/`0d` bit patterns and decimal floats.

use super::*;

/// Split `%r123` into (`%r`, Some(123)) (at most 9 digits, and something before them).
#[inline(always)]
pub(super) fn split_digits(s: &str) -> (&str, Option<u32>) {
    let b = s.as_bytes();
    let mut i = b.len();
    let mut v = 0u32;
    let mut mul = 1u32;
    while i > 0 {
        let d = b[i - 1].wrapping_sub(b'0');
        if d >= 10 {
            break;
        }
        if b.len() - i == 9 {
            return (s, None);
        }
        v += d as u32 * mul;
        mul = mul.wrapping_mul(10);
        i -= 1;
    }
    if i == b.len() || i == 0 {
        return (s, None);
    }
    (&s[..i], Some(v))
}

/// Decode an integer literal body (no sign). Returns (value, has U suffix).
pub(super) fn decode_int(text: &str) -> Option<(u64, bool)> {
    let (t, unsigned) = match text.strip_suffix('U') {
        Some(t) => (t, true),
        None => (text, false),
    };
    let v = if let Some(h) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        u64::from_str_radix(h, 16).ok()?
    } else if let Some(b) = t.strip_prefix("0b").or_else(|| t.strip_prefix("0B")) {
        u64::from_str_radix(b, 2).ok()?
    } else if t.len() > 1 && t.starts_with('0') {
        u64::from_str_radix(&t[1..], 8).ok()?
    } else {
        // Fast path for decimal.
        let mut v: u64 = 0;
        for &c in t.as_bytes() {
            v = v.checked_mul(10)?.checked_add((c - b'0') as u64)?;
        }
        v
    };
    Some((v, unsigned))
}

/// The value of a numeric literal token of kind `kind` (`Int`, `F32Hex`, `F64Hex` or `Float`)
/// with text `body`, negated when a `-` was written before it (§4.5). The error is the
/// diagnostic message for the literal.
pub(super) fn imm_value(kind: Tok, body: &str, neg: bool) -> Result<ImmValue, String> {
    Ok(match kind {
        Tok::Int => match decode_int(body) {
            Some((v, true)) => ImmValue::UInt(if neg { v.wrapping_neg() } else { v }),
            Some((v, false)) => {
                if neg {
                    if v <= i64::MAX as u64 + 1 {
                        ImmValue::Int((v as i64).wrapping_neg())
                    } else {
                        return Err("integer literal out of range".into());
                    }
                } else if v <= i64::MAX as u64 {
                    ImmValue::Int(v as i64)
                } else {
                    ImmValue::UInt(v)
                }
            }
            None => return Err(format!("malformed integer literal `{body}`")),
        },
        Tok::F32Hex => match u32::from_str_radix(&body[2..], 16) {
            Ok(b) => ImmValue::F32Bits(if neg { b ^ 0x8000_0000 } else { b }),
            Err(_) => return Err(format!("malformed float literal `{body}`")),
        },
        Tok::F64Hex => match u64::from_str_radix(&body[2..], 16) {
            Ok(b) => ImmValue::F64Bits(if neg { b ^ (1 << 63) } else { b }),
            Err(_) => return Err(format!("malformed float literal `{body}`")),
        },
        _ => match body.parse::<f64>() {
            Ok(f) => ImmValue::Float(if neg { -f } else { f }),
            Err(_) => return Err(format!("malformed float literal `{body}`")),
        },
    })
}

/// The value of literal text as the parser reads it (an optional `-`, then one `Int`,
/// `F32Hex`, `F64Hex` or `Float` token, blanks and comments allowed in between; §4.5), or
/// `None` if `text` is not such a literal or its value is out of range.
pub(crate) fn decode_literal(text: &str) -> Option<ImmValue> {
    // The common case, a plain decimal of up to 18 digits (no `i64` overflow), without the
    // lexer; leading zeros (octal) and everything else take the general rule below.
    let b = text.as_bytes();
    let digits = b.strip_prefix(b"-").unwrap_or(b);
    if !digits.is_empty()
        && digits.len() <= 18
        && (digits[0] != b'0' || digits.len() == 1)
        && digits.iter().all(u8::is_ascii_digit)
    {
        let v = digits.iter().fold(0i64, |v, d| v * 10 + (d - b'0') as i64);
        return Some(ImmValue::Int(if digits.len() < b.len() { -v } else { v }));
    }
    let mut lx = Lexer::new(text);
    let mut t = lx.bump();
    let neg = t.kind == Tok::Minus;
    if neg {
        t = lx.bump();
    }
    if !matches!(t.kind, Tok::Int | Tok::F32Hex | Tok::F64Hex | Tok::Float)
        || lx.bump().kind != Tok::Eof
    {
        return None;
    }
    imm_value(t.kind, &text[t.start as usize..t.end as usize], neg).ok()
}
