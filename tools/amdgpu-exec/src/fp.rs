//! Software IEEE-754 binary floating point (binary16, bfloat16, binary32, binary64) with the
//! four rounding modes and the denormal controls of the gfx9 MODE register (Vega ISA §4.4
//! "Mode Register": FP_ROUND, FP_DENORM). Every operation computes the exact result and
//! rounds once, so the results are the correctly rounded IEEE-754 results; NaN rules follow
//! the ISA: a NaN operand gives that NaN made quiet (payload kept, the first NaN operand
//! wins), an invalid operation gives the default NaN ([`Format::default_nan`]).

/// A binary floating-point format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Format {
    /// Exponent bits.
    pub ebits: u32,
    /// Fraction (stored mantissa) bits.
    pub mbits: u32,
}

/// IEEE binary16.
pub const F16: Format = Format {
    ebits: 5,
    mbits: 10,
};
/// bfloat16.
pub const BF16: Format = Format { ebits: 8, mbits: 7 };
/// IEEE binary32.
pub const F32: Format = Format {
    ebits: 8,
    mbits: 23,
};
/// IEEE binary64.
pub const F64: Format = Format {
    ebits: 11,
    mbits: 52,
};

/// A rounding mode, numbered as the MODE register's FP_ROUND fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Round {
    /// 0: to nearest, ties to even.
    NearestEven,
    /// 1: toward +infinity.
    Up,
    /// 2: toward -infinity.
    Down,
    /// 3: toward zero.
    Zero,
}

impl Round {
    /// The mode of a 2-bit FP_ROUND field.
    pub fn from_bits(b: u32) -> Round {
        match b & 3 {
            0 => Round::NearestEven,
            1 => Round::Up,
            2 => Round::Down,
            _ => Round::Zero,
        }
    }
}

/// How an operation treats denormals (a 2-bit FP_DENORM field: bit 0 keeps input denormals,
/// bit 1 keeps output denormals; a cleared bit flushes them to zero of the same sign).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Env {
    /// Rounding mode.
    pub round: Round,
    /// Keep denormal inputs.
    pub denorm_in: bool,
    /// Keep denormal outputs.
    pub denorm_out: bool,
    /// Of several NaN operands, propagate the last (a counterfactual used by the runner's
    /// triage: the ISA propagates the first, SRC0's).
    pub nan_last: bool,
}

impl Env {
    /// Round to nearest even with denormals kept (IEEE default).
    pub const IEEE: Env = Env {
        round: Round::NearestEven,
        denorm_in: true,
        denorm_out: true,
        nan_last: false,
    };

    /// The environment of a FP_ROUND and a FP_DENORM field.
    pub fn from_mode(round: u32, denorm: u32) -> Env {
        Env {
            round: Round::from_bits(round),
            denorm_in: denorm & 1 != 0,
            denorm_out: denorm & 2 != 0,
            nan_last: false,
        }
    }
}

impl Format {
    /// Total width in bits.
    pub fn width(self) -> u32 {
        1 + self.ebits + self.mbits
    }
    fn bias(self) -> i32 {
        (1 << (self.ebits - 1)) - 1
    }
    fn emax_field(self) -> u64 {
        (1 << self.ebits) - 1
    }
    /// The sign bit.
    pub fn sign_bit(self) -> u64 {
        1 << (self.ebits + self.mbits)
    }
    fn frac_mask(self) -> u64 {
        (1 << self.mbits) - 1
    }
    /// Whether `b` is a NaN.
    pub fn is_nan(self, b: u64) -> bool {
        (b >> self.mbits) & self.emax_field() == self.emax_field() && b & self.frac_mask() != 0
    }
    /// Whether `b` is a signalling NaN.
    pub fn is_snan(self, b: u64) -> bool {
        self.is_nan(b) && b & (1 << (self.mbits - 1)) == 0
    }
    /// Whether `b` is ±infinity.
    pub fn is_inf(self, b: u64) -> bool {
        (b >> self.mbits) & self.emax_field() == self.emax_field() && b & self.frac_mask() == 0
    }
    /// Whether `b` is ±0.
    pub fn is_zero(self, b: u64) -> bool {
        b & !self.sign_bit() == 0
    }
    /// Whether `b` is a (non-zero) denormal.
    pub fn is_denorm(self, b: u64) -> bool {
        (b >> self.mbits) & self.emax_field() == 0 && b & self.frac_mask() != 0
    }
    /// Whether `b` is negative (sign bit set).
    pub fn is_neg(self, b: u64) -> bool {
        b & self.sign_bit() != 0
    }
    /// `b` made quiet (the top fraction bit set).
    pub fn quiet(self, b: u64) -> u64 {
        b | (1 << (self.mbits - 1))
    }
    /// The default NaN of AMD's hardware: negative, quiet, zero payload (0xffc00000 for
    /// binary32, 0xfe00 for binary16; the ISA's functional examples, e.g. V_SQRT_F32 and
    /// V_RSQ_F32 of -infinity, and V_DIV_FIXUP's "indeterminate" result).
    pub fn default_nan(self) -> u64 {
        self.sign_bit() | self.emax_field() << self.mbits | 1 << (self.mbits - 1)
    }
    /// +infinity (or -infinity with `neg`).
    pub fn inf(self, neg: bool) -> u64 {
        self.emax_field() << self.mbits | if neg { self.sign_bit() } else { 0 }
    }
    /// ±0.
    pub fn zero(self, neg: bool) -> u64 {
        if neg {
            self.sign_bit()
        } else {
            0
        }
    }
    /// The largest finite value of the sign.
    pub fn max_finite(self, neg: bool) -> u64 {
        (self.emax_field() - 1) << self.mbits | self.frac_mask() | self.zero(neg)
    }
    /// `b` with a denormal flushed to zero of its sign when `keep` is false.
    pub fn flush(self, b: u64, keep: bool) -> u64 {
        if !keep && self.is_denorm(b) {
            b & self.sign_bit()
        } else {
            b
        }
    }
}

/// An unpacked finite non-zero value: `(-1)^neg * sig * 2^exp`.
#[derive(Debug, Clone, Copy)]
pub struct Exact {
    /// Sign.
    pub neg: bool,
    /// Binary exponent of the significand's last bit.
    pub exp: i32,
    /// Significand (non-zero).
    pub sig: u128,
}

/// Unpack a finite non-zero value (`None` for zero, infinity or NaN).
pub fn unpack(f: Format, b: u64) -> Option<Exact> {
    let e = ((b >> f.mbits) & f.emax_field()) as i32;
    let frac = (b & f.frac_mask()) as u128;
    let neg = f.is_neg(b);
    if e as u64 == f.emax_field() {
        return None;
    }
    if e == 0 {
        if frac == 0 {
            return None;
        }
        return Some(Exact {
            neg,
            exp: 1 - f.bias() - f.mbits as i32,
            sig: frac,
        });
    }
    Some(Exact {
        neg,
        exp: e - f.bias() - f.mbits as i32,
        sig: frac | 1 << f.mbits,
    })
}

/// Round `(-1)^neg * (sig + s) * 2^exp` to `f`, where `s` is 0 when `sticky` is false and some
/// value strictly between 0 and 1 when it is true. `sig` must be non-zero unless `sticky`.
pub fn round(f: Format, neg: bool, exp: i32, sig: u128, sticky: bool, env: Env) -> u64 {
    debug_assert!(sig != 0 || sticky);
    let p = f.mbits as i32; // fraction bits
    let msb = 127 - sig.leading_zeros() as i32;
    let e = exp + msb; // exponent of the leading bit
    let emin = 1 - f.bias();
    let q = (e - p).max(emin - p); // exponent of the last kept bit
    let shift = q - exp;
    let (mut kept, inexact, up) = if shift <= 0 {
        // exact (only sticky remains below the last bit)
        let k = sig << (-shift) as u32;
        let up = match env.round {
            Round::NearestEven | Round::Zero => false,
            Round::Up => sticky && !neg,
            Round::Down => sticky && neg,
        };
        (k, sticky, up)
    } else if shift >= 128 {
        let inexact = sig != 0 || sticky;
        let up = match env.round {
            Round::NearestEven | Round::Zero => false,
            Round::Up => inexact && !neg,
            Round::Down => inexact && neg,
        };
        (0u128, inexact, up)
    } else {
        let k = sig >> shift;
        let rem = sig & ((1u128 << shift) - 1);
        let half = 1u128 << (shift - 1);
        let inexact = rem != 0 || sticky;
        let up = match env.round {
            Round::NearestEven => rem > half || (rem == half && (sticky || k & 1 == 1)),
            Round::Zero => false,
            Round::Up => inexact && !neg,
            Round::Down => inexact && neg,
        };
        (k, inexact, up)
    };
    let _ = inexact;
    let mut q = q;
    if up {
        kept += 1;
    }
    if kept >> (p + 1) != 0 {
        kept >>= 1;
        q += 1;
    }
    let sign = f.zero(neg);
    if kept >> p != 0 {
        let biased = q + p + f.bias();
        if biased as u64 >= f.emax_field() {
            return overflow(f, neg, env.round);
        }
        sign | (biased as u64) << f.mbits | (kept as u64 & f.frac_mask())
    } else {
        let r = sign | kept as u64;
        f.flush(r, env.denorm_out)
    }
}

fn overflow(f: Format, neg: bool, r: Round) -> u64 {
    match (r, neg) {
        (Round::NearestEven, _) | (Round::Up, false) | (Round::Down, true) => f.inf(neg),
        _ => f.max_finite(neg),
    }
}

/// Shift right, ORing the lost bits into bit 0 ("jamming").
fn shr_jam(v: u128, n: u32) -> u128 {
    if n == 0 {
        v
    } else if n >= 128 {
        u128::from(v != 0)
    } else {
        (v >> n) | u128::from(v & ((1u128 << n) - 1) != 0)
    }
}

/// `a + b` of exact values (either may be absent = zero), rounded to `f`; `zero_neg` is the
/// sign of an exact zero result.
fn add_exact(f: Format, a: Option<Exact>, b: Option<Exact>, env: Env) -> Option<u64> {
    let (a, b) = match (a, b) {
        (None, None) => return None,
        (Some(a), None) => return Some(round(f, a.neg, a.exp, a.sig, false, env)),
        (None, Some(b)) => return Some(round(f, b.neg, b.exp, b.sig, false, env)),
        (Some(a), Some(b)) => (a, b),
    };
    // normalise both to bit 125
    let norm = |x: Exact| -> (u128, i32) {
        let msb = 127 - x.sig.leading_zeros() as i32;
        let sh = 125 - msb;
        (x.sig << sh as u32, x.exp - sh)
    };
    let (mut sa, mut ea) = norm(a);
    let (mut sb, mut eb) = norm(b);
    let (mut na, mut nb) = (a.neg, b.neg);
    if eb > ea || (eb == ea && sb > sa) {
        std::mem::swap(&mut sa, &mut sb);
        std::mem::swap(&mut ea, &mut eb);
        std::mem::swap(&mut na, &mut nb);
    }
    let d = (ea - eb) as u32;
    let sb = shr_jam(sb, d);
    let s = if na == nb { sa + sb } else { sa - sb };
    if s == 0 {
        return None;
    }
    Some(round(f, na, ea, s, false, env))
}

fn zero_sum_sign(an: bool, bn: bool, env: Env) -> bool {
    if an == bn {
        an
    } else {
        env.round == Round::Down
    }
}

/// The NaN result of an operation whose operands include a NaN: the first NaN operand (the
/// last with `nan_last`), quiet.
fn nan_of(f: Format, ops: &[u64], nan_last: bool) -> Option<u64> {
    if nan_last {
        ops.iter()
            .rev()
            .find(|&&x| f.is_nan(x))
            .map(|&x| f.quiet(x))
    } else {
        ops.iter().find(|&&x| f.is_nan(x)).map(|&x| f.quiet(x))
    }
}

/// Whether the host's IEEE arithmetic gives the same result: round to nearest even with
/// denormals kept (the host's default), binary32/binary64, no NaN operand (payload rules
/// differ by host), an invalid result replaced by the default NaN.
#[inline]
fn host_ok(f: Format, env: Env) -> bool {
    env.round == Round::NearestEven
        && env.denorm_in
        && env.denorm_out
        && !env.nan_last
        && (f == F32 || f == F64)
}

macro_rules! host_op {
    ($f:expr, $env:expr, [$($x:ident),+], $op32:expr, $op64:expr) => {
        if host_ok($f, $env) {
            if $f == F32 {
                $(let $x = f32::from_bits($x as u32);)+
                if !($($x.is_nan())||+) {
                    let r: f32 = $op32;
                    return if r.is_nan() { $f.default_nan() } else { r.to_bits() as u64 };
                }
            } else {
                $(let $x = f64::from_bits($x);)+
                if !($($x.is_nan())||+) {
                    let r: f64 = $op64;
                    return if r.is_nan() { $f.default_nan() } else { r.to_bits() };
                }
            }
        }
    };
}

/// `a + b`.
pub fn add(f: Format, a: u64, b: u64, env: Env) -> u64 {
    {
        let (a, b) = (a, b);
        host_op!(f, env, [a, b], a + b, a + b);
    }
    let a = f.flush(a, env.denorm_in);
    let b = f.flush(b, env.denorm_in);
    if let Some(n) = nan_of(f, &[a, b], env.nan_last) {
        return n;
    }
    match (f.is_inf(a), f.is_inf(b)) {
        (true, true) if f.is_neg(a) != f.is_neg(b) => return f.default_nan(),
        (true, _) => return a,
        (_, true) => return b,
        _ => {}
    }
    match add_exact(f, unpack(f, a), unpack(f, b), env) {
        Some(r) => r,
        None => {
            if f.is_zero(a) && f.is_zero(b) {
                f.zero(zero_sum_sign(f.is_neg(a), f.is_neg(b), env))
            } else {
                f.zero(env.round == Round::Down)
            }
        }
    }
}

/// `a - b`.
pub fn sub(f: Format, a: u64, b: u64, env: Env) -> u64 {
    let b = f.flush(b, env.denorm_in);
    let nb = if f.is_nan(b) { b } else { b ^ f.sign_bit() };
    add(f, a, nb, env)
}

/// `a * b`.
pub fn mul(f: Format, a: u64, b: u64, env: Env) -> u64 {
    {
        let (a, b) = (a, b);
        host_op!(f, env, [a, b], a * b, a * b);
    }
    let a = f.flush(a, env.denorm_in);
    let b = f.flush(b, env.denorm_in);
    if let Some(n) = nan_of(f, &[a, b], env.nan_last) {
        return n;
    }
    let neg = f.is_neg(a) != f.is_neg(b);
    if f.is_inf(a) || f.is_inf(b) {
        if f.is_zero(a) || f.is_zero(b) {
            return f.default_nan();
        }
        return f.inf(neg);
    }
    match (unpack(f, a), unpack(f, b)) {
        (Some(x), Some(y)) => round(f, neg, x.exp + y.exp, x.sig * y.sig, false, env),
        _ => f.zero(neg),
    }
}

/// `a * b + c` with one rounding.
pub fn fma(f: Format, a: u64, b: u64, c: u64, env: Env) -> u64 {
    fma_scaled(f, a, b, c, 0, env)
}

/// `(a * b + c) * 2^k` with one rounding (V_DIV_FMAS's post-scale).
pub fn fma_scaled(f: Format, a: u64, b: u64, c: u64, k: i32, env: Env) -> u64 {
    if k == 0 {
        let (a, b, c) = (a, b, c);
        host_op!(f, env, [a, b, c], a.mul_add(b, c), a.mul_add(b, c));
    }
    let a = f.flush(a, env.denorm_in);
    let b = f.flush(b, env.denorm_in);
    let c = f.flush(c, env.denorm_in);
    if let Some(n) = nan_of(f, &[a, b, c], env.nan_last) {
        return n;
    }
    let pneg = f.is_neg(a) != f.is_neg(b);
    let pinf = f.is_inf(a) || f.is_inf(b);
    if pinf && (f.is_zero(a) || f.is_zero(b)) {
        return f.default_nan();
    }
    if pinf {
        if f.is_inf(c) && f.is_neg(c) != pneg {
            return f.default_nan();
        }
        return f.inf(pneg);
    }
    if f.is_inf(c) {
        return c;
    }
    let p = match (unpack(f, a), unpack(f, b)) {
        (Some(x), Some(y)) => Some(Exact {
            neg: pneg,
            exp: x.exp + y.exp,
            sig: x.sig * y.sig,
        }),
        _ => None,
    };
    let pz = p.is_none();
    let scale = |x: Option<Exact>| {
        x.map(|mut e| {
            e.exp += k;
            e
        })
    };
    match add_exact(f, scale(p), scale(unpack(f, c)), env) {
        Some(r) => r,
        None => {
            if pz && f.is_zero(c) {
                f.zero(zero_sum_sign(pneg, f.is_neg(c), env))
            } else {
                f.zero(env.round == Round::Down)
            }
        }
    }
}

/// `a / b`, correctly rounded.
pub fn div(f: Format, a: u64, b: u64, env: Env) -> u64 {
    {
        let (a, b) = (a, b);
        host_op!(f, env, [a, b], a / b, a / b);
    }
    let a = f.flush(a, env.denorm_in);
    let b = f.flush(b, env.denorm_in);
    if let Some(n) = nan_of(f, &[a, b], env.nan_last) {
        return n;
    }
    let neg = f.is_neg(a) != f.is_neg(b);
    match (f.is_inf(a), f.is_inf(b)) {
        (true, true) => return f.default_nan(),
        (true, false) => return f.inf(neg),
        (false, true) => return f.zero(neg),
        _ => {}
    }
    if f.is_zero(b) {
        if f.is_zero(a) {
            return f.default_nan();
        }
        return f.inf(neg);
    }
    let (Some(x), Some(y)) = (unpack(f, a), unpack(f, b)) else {
        return f.zero(neg);
    };
    // normalise: x.sig << k / y.sig with enough quotient bits (>= mbits + 3)
    let xs = x.sig << (126 - (127 - x.sig.leading_zeros()));
    let xe = x.exp - (126 - (127 - x.sig.leading_zeros() as i32));
    let ys = y.sig;
    let q = xs / ys;
    let r = xs % ys;
    round(f, neg, xe - y.exp, q, r != 0, env)
}

fn isqrt(n: u128) -> u128 {
    if n == 0 {
        return 0;
    }
    let mut x = (n as f64).sqrt() as u128;
    // correct the float estimate
    while x * x > n {
        x -= 1;
    }
    while (x + 1) * (x + 1) <= n {
        x += 1;
    }
    x
}

/// `sqrt(a)`, correctly rounded.
pub fn sqrt(f: Format, a: u64, env: Env) -> u64 {
    {
        host_op!(f, env, [a], a.sqrt(), a.sqrt());
    }
    let a = f.flush(a, env.denorm_in);
    if f.is_nan(a) {
        return f.quiet(a);
    }
    if f.is_zero(a) {
        return a;
    }
    if f.is_neg(a) {
        return f.default_nan();
    }
    if f.is_inf(a) {
        return a;
    }
    let x = unpack(f, a).unwrap();
    // sig * 2^exp with exp even and sig shifted up to ~124 bits
    let msb = 127 - x.sig.leading_zeros() as i32;
    let mut sh = 124 - msb;
    if (x.exp - sh) % 2 != 0 {
        sh -= 1;
    }
    let s = x.sig << sh as u32;
    let e = x.exp - sh;
    let r = isqrt(s);
    round(f, false, e / 2, r, r * r != s, env)
}

/// Convert `a` of format `from` to format `to` (rounding with `env`; NaN payloads keep
/// their top bits, made quiet).
pub fn convert(from: Format, to: Format, a: u64, env: Env) -> u64 {
    let a = from.flush(a, env.denorm_in);
    let neg = from.is_neg(a);
    if from.is_nan(a) {
        let frac = a & from.frac_mask();
        let frac = if to.mbits >= from.mbits {
            frac << (to.mbits - from.mbits)
        } else {
            frac >> (from.mbits - to.mbits)
        };
        return to.quiet(to.inf(neg) | frac);
    }
    if from.is_inf(a) {
        return to.inf(neg);
    }
    match unpack(from, a) {
        Some(x) => round(to, neg, x.exp, x.sig, false, env),
        None => to.zero(neg),
    }
}

/// An integer (`neg`, magnitude) rounded to `f`.
pub fn from_int(f: Format, neg: bool, mag: u128, env: Env) -> u64 {
    if mag == 0 {
        return 0;
    }
    round(f, neg, 0, mag, false, env)
}

/// `a` rounded to an integral value of the same format with rounding `r` (NaN quietened).
pub fn round_int(f: Format, a: u64, r: Round, env: Env) -> u64 {
    let a = f.flush(a, env.denorm_in);
    if f.is_nan(a) {
        return f.quiet(a);
    }
    let Some(x) = unpack(f, a) else { return a };
    if x.exp >= 0 {
        return a;
    }
    let sh = (-x.exp) as u32;
    let (k, rem, half) = if sh >= 128 {
        (0u128, x.sig, u128::MAX)
    } else {
        (x.sig >> sh, x.sig & ((1u128 << sh) - 1), 1u128 << (sh - 1))
    };
    let up = match r {
        Round::NearestEven => rem > half || (rem == half && k & 1 == 1),
        Round::Zero => false,
        Round::Up => rem != 0 && !x.neg,
        Round::Down => rem != 0 && x.neg,
    };
    let k = k + u128::from(up);
    if k == 0 {
        return f.zero(x.neg);
    }
    round(f, x.neg, 0, k, false, Env::IEEE)
}

/// `a` converted to an integer with rounding `r`, as (negative, magnitude); `None` for NaN
/// and infinity.
pub fn to_int(f: Format, a: u64, r: Round, env: Env) -> Option<(bool, u128)> {
    let a = f.flush(a, env.denorm_in);
    if f.is_nan(a) || f.is_inf(a) {
        return None;
    }
    let Some(x) = unpack(f, a) else {
        return Some((f.is_neg(a), 0));
    };
    if x.exp >= 0 {
        if x.exp > 70 {
            return Some((x.neg, u128::MAX));
        }
        return Some((x.neg, x.sig << x.exp as u32));
    }
    let sh = (-x.exp) as u32;
    let (k, rem, half) = if sh >= 128 {
        (0u128, x.sig, u128::MAX)
    } else {
        (x.sig >> sh, x.sig & ((1u128 << sh) - 1), 1u128 << (sh - 1))
    };
    let up = match r {
        Round::NearestEven => rem > half || (rem == half && k & 1 == 1),
        Round::Zero => false,
        Round::Up => rem != 0 && !x.neg,
        Round::Down => rem != 0 && x.neg,
    };
    Some((x.neg, k + u128::from(up)))
}

/// `a * 2^n`, rounded.
pub fn ldexp(f: Format, a: u64, n: i32, env: Env) -> u64 {
    let a = f.flush(a, env.denorm_in);
    if f.is_nan(a) {
        return f.quiet(a);
    }
    if f.is_inf(a) || f.is_zero(a) {
        return a;
    }
    let x = unpack(f, a).unwrap();
    let e = (x.exp as i64 + n as i64).clamp(-100000, 100000) as i32;
    round(f, x.neg, e, x.sig, false, env)
}

/// Host value of f32 bits.
pub fn f32_of(b: u32) -> f32 {
    f32::from_bits(b)
}

/// Compare `a` and `b` as IEEE values: `None` when unordered.
pub fn cmp(f: Format, a: u64, b: u64, env: Env) -> Option<std::cmp::Ordering> {
    use std::cmp::Ordering;
    let a = f.flush(a, env.denorm_in);
    let b = f.flush(b, env.denorm_in);
    if f.is_nan(a) || f.is_nan(b) {
        return None;
    }
    if f.is_zero(a) && f.is_zero(b) {
        return Some(Ordering::Equal);
    }
    let key = |x: u64| -> i128 {
        let mag = (x & !f.sign_bit()) as i128;
        if f.is_neg(x) {
            -mag
        } else {
            mag
        }
    };
    Some(key(a).cmp(&key(b)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Round to nearest even through the software path (`nan_last` keeps the host's
    /// arithmetic out; it changes only which NaN operand propagates).
    fn rne() -> Env {
        Env {
            nan_last: true,
            ..Env::IEEE
        }
    }

    #[test]
    fn matches_host_f32_and_f64() {
        // The host's IEEE arithmetic (round to nearest even) as the reference.
        let mut x: u64 = 0x1234_5678_9abc_def1;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for _ in 0..200_000 {
            let (a, b, c) = (next() as u32, next() as u32, next() as u32);
            let (fa, fb, fc) = (f32::from_bits(a), f32::from_bits(b), f32::from_bits(c));
            let chk = |got: u64, want: f32| {
                let w = want.to_bits() as u64;
                if want.is_nan() {
                    assert!(F32.is_nan(got));
                } else {
                    assert_eq!(got, w, "{fa:e} {fb:e} {fc:e}");
                }
            };
            chk(add(F32, a as u64, b as u64, rne()), fa + fb);
            chk(mul(F32, a as u64, b as u64, rne()), fa * fb);
            chk(div(F32, a as u64, b as u64, rne()), fa / fb);
            chk(
                fma(F32, a as u64, b as u64, c as u64, rne()),
                fa.mul_add(fb, fc),
            );
            chk(sqrt(F32, a as u64, rne()), fa.sqrt());
            let (a, b, c) = (next(), next(), next());
            let (da, db, dc) = (f64::from_bits(a), f64::from_bits(b), f64::from_bits(c));
            let chk = |got: u64, want: f64| {
                if want.is_nan() {
                    assert!(F64.is_nan(got));
                } else {
                    assert_eq!(got, want.to_bits(), "{da:e} {db:e} {dc:e}");
                }
            };
            chk(add(F64, a, b, rne()), da + db);
            chk(mul(F64, a, b, rne()), da * db);
            chk(div(F64, a, b, rne()), da / db);
            chk(fma(F64, a, b, c, rne()), da.mul_add(db, dc));
            chk(sqrt(F64, a, rne()), da.sqrt());
            chk(
                convert(F32, F64, a & 0xffff_ffff, rne()),
                f32::from_bits(a as u32) as f64,
            );
            let want = da as f32;
            let got = convert(F64, F32, a, rne());
            if want.is_nan() {
                assert!(F32.is_nan(got));
            } else {
                assert_eq!(got, want.to_bits() as u64);
            }
        }
    }

    #[test]
    fn directed_rounding() {
        let one = 1.0f32.to_bits() as u64;
        let tiny = 1e-30f32.to_bits() as u64;
        let e = |r| Env {
            round: r,
            ..Env::IEEE
        };
        assert_eq!(add(F32, one, tiny, e(Round::Up)), 0x3f80_0001);
        assert_eq!(add(F32, one, tiny, e(Round::Down)), 0x3f80_0000);
        assert_eq!(sub(F32, one, tiny, e(Round::Zero)), 0x3f7f_ffff);
        assert_eq!(sub(F32, one, tiny, e(Round::NearestEven)), 0x3f80_0000);
        // x - x is -0 when rounding down
        assert_eq!(sub(F32, one, one, e(Round::Down)), 0x8000_0000);
        assert_eq!(sub(F32, one, one, e(Round::Up)), 0);
        // overflow
        let max = f32::MAX.to_bits() as u64;
        assert_eq!(add(F32, max, max, e(Round::Zero)), max);
        assert_eq!(add(F32, max, max, e(Round::NearestEven)), 0x7f80_0000);
    }

    #[test]
    fn denormal_controls() {
        let d = 1u64; // smallest f32 denormal
        let flush = Env {
            denorm_in: false,
            denorm_out: false,
            ..Env::IEEE
        };
        assert_eq!(add(F32, d, d, flush), 0);
        assert_eq!(add(F32, d, d, Env::IEEE), 2);
        assert_eq!(mul(F32, 0x0080_0000, 0x3f00_0000, flush), 0); // FLT_MIN / 2
    }
}
