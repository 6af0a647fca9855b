//! Accuracy against the exact value, for outputs of `.approx` instructions.
//!
//! PTX defines `sin`, `cos`, `ex2`, `lg2`, `rcp`, `sqrt`, `rsqrt`, `div` and `tanh` with
//! `.approx` by error bounds, not bits (PTX ISA 9.x §9.7.3), so two conforming processors
//! may differ by more than the case table's K ulp. Where the H200's raw output bytes are
//! committed, each element that differs from the H200's by more than K ulp is compared with
//! the exact value of the column's function, computed in binary64 from the element's inputs:
//! it passes when it is at least as close to it as the H200's own result.
//!
//! The functions are data: `exact.json` beside the raw bytes (`fixtures/gpu/results/raw`)
//! names, per case output, each column's function and arguments:
//!
//! ```json
//! {"outputs": [{"case": "f32_approx", "output": "o", "stride": 12,
//!   "columns": {"0": {"f": "sin", "x": "a", "abs_tol": 1.1920929e-7, "max_abs_x": 16777216}}}]}
//! ```
//!
//! `x`/`y` name input buffers (`|a|`: its absolute value), read at the element's row (element
//! index / stride). `abs_tol` (default 0): an error at most this large, absolute, counts as no
//! error (for the functions PTX bounds absolutely: sin, cos). `max_abs_x`: inputs beyond it
//! are not judged (where the binary32 input itself no longer determines the result, as sin
//! and cos from 2^24 on, whose inputs are then 2 radians apart). `ulp_bound`: the function's
//! documented maximum error in ulp (CUDA's math library, for libdevice's `expf`, `erff`, ...):
//! an element that is farther from the exact value than the H200's still passes when it is
//! at most that many ulp from the correctly rounded exact value.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;

/// A column's function.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Func {
    /// sin x.
    Sin,
    /// cos x.
    Cos,
    /// e^x.
    Exp,
    /// 2^x.
    Exp2,
    /// 10^x.
    Exp10,
    /// ln x.
    Ln,
    /// log2 x.
    Log2,
    /// x / y.
    Div,
    /// 1 / x.
    Rcp,
    /// sqrt x.
    Sqrt,
    /// 1 / sqrt x.
    Rsqrt,
    /// tanh x.
    Tanh,
    /// x^y.
    Pow,
    /// erf x.
    Erf,
    /// atan2(x, y).
    Atan2,
    /// cube root of x.
    Cbrt,
    /// fmod(x, y) (exact).
    Fmod,
    /// sqrt(x^2 + y^2).
    Hypot,
}

impl Func {
    fn parse(s: &str) -> Option<Func> {
        Some(match s {
            "sin" => Func::Sin,
            "cos" => Func::Cos,
            "exp" => Func::Exp,
            "exp2" => Func::Exp2,
            "exp10" => Func::Exp10,
            "ln" => Func::Ln,
            "log2" => Func::Log2,
            "div" => Func::Div,
            "rcp" => Func::Rcp,
            "sqrt" => Func::Sqrt,
            "rsqrt" => Func::Rsqrt,
            "tanh" => Func::Tanh,
            "pow" => Func::Pow,
            "erf" => Func::Erf,
            "atan2" => Func::Atan2,
            "cbrt" => Func::Cbrt,
            "fmod" => Func::Fmod,
            "hypot" => Func::Hypot,
            _ => return None,
        })
    }

    /// The exact value (binary64, correctly rounded or within an ulp of it: far below the
    /// binary32 results' resolution).
    pub fn eval(self, x: f64, y: f64) -> f64 {
        match self {
            Func::Sin => x.sin(),
            Func::Cos => x.cos(),
            Func::Exp => x.exp(),
            Func::Exp2 => x.exp2(),
            Func::Exp10 => 10f64.powf(x),
            Func::Ln => x.ln(),
            Func::Log2 => x.log2(),
            Func::Div => x / y,
            Func::Rcp => 1.0 / x,
            Func::Sqrt => x.sqrt(),
            Func::Rsqrt => 1.0 / x.sqrt(),
            Func::Tanh => x.tanh(),
            Func::Pow => x.powf(y),
            Func::Erf => libm::erf(x),
            Func::Atan2 => x.atan2(y),
            Func::Cbrt => x.cbrt(),
            Func::Fmod => x % y,
            Func::Hypot => x.hypot(y),
        }
    }
}

/// An argument: an input buffer, or its absolute value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Arg {
    /// Input buffer name.
    pub buf: String,
    /// Take the absolute value.
    pub abs: bool,
}

impl Arg {
    fn parse(s: &str) -> Arg {
        match s.strip_prefix('|').and_then(|t| t.strip_suffix('|')) {
            Some(b) => Arg {
                buf: b.into(),
                abs: true,
            },
            None => Arg {
                buf: s.into(),
                abs: false,
            },
        }
    }
}

/// One column's function.
#[derive(Debug, Clone, PartialEq)]
pub struct Column {
    /// The function.
    pub f: Func,
    /// First argument.
    pub x: Arg,
    /// Second argument (`div`).
    pub y: Option<Arg>,
    /// An absolute error up to this counts as none.
    pub abs_tol: f64,
    /// Inputs `|x|` beyond this are not judged.
    pub max_abs_x: Option<f64>,
    /// The function's documented maximum error in ulp.
    pub ulp_bound: Option<u64>,
}

/// The columns of one output of one case.
#[derive(Debug, Clone, PartialEq)]
pub struct OutputSpec {
    /// Case name.
    pub case: String,
    /// Output buffer name.
    pub output: String,
    /// Elements per row.
    pub stride: usize,
    /// Column index -> function.
    pub columns: BTreeMap<usize, Column>,
}

/// Read `exact.json` in `dir`; `Ok(None)` when there is none.
///
/// # Errors
/// A file that is not JSON, an unknown function, a column that is not a number.
pub fn load(dir: &Path) -> Result<Option<Vec<OutputSpec>>, String> {
    let p = dir.join("exact.json");
    let Ok(text) = std::fs::read_to_string(&p) else {
        return Ok(None);
    };
    let v: Value = serde_json::from_str(&text).map_err(|e| format!("{}: {e}", p.display()))?;
    let bad = |what: &str| format!("{}: {what}", p.display());
    let mut out = Vec::new();
    for o in v["outputs"]
        .as_array()
        .ok_or_else(|| bad("no `outputs` list"))?
    {
        let s = |k: &str| o[k].as_str().map(str::to_string).ok_or_else(|| bad(k));
        let mut columns = BTreeMap::new();
        for (k, c) in o["columns"]
            .as_object()
            .ok_or_else(|| bad("no `columns`"))?
        {
            let idx: usize = k.parse().map_err(|_| bad(&format!("column `{k}`")))?;
            let f = c["f"]
                .as_str()
                .and_then(Func::parse)
                .ok_or_else(|| bad(&format!("column {k}: unknown function {}", c["f"])))?;
            let x = Arg::parse(c["x"].as_str().ok_or_else(|| bad("column without `x`"))?);
            columns.insert(
                idx,
                Column {
                    f,
                    x,
                    y: c["y"].as_str().map(Arg::parse),
                    abs_tol: c["abs_tol"].as_f64().unwrap_or(0.0),
                    max_abs_x: c["max_abs_x"].as_f64(),
                    ulp_bound: c["ulp_bound"].as_u64(),
                },
            );
        }
        out.push(OutputSpec {
            case: s("case")?,
            output: s("output")?,
            stride: o["stride"].as_u64().ok_or_else(|| bad("stride"))? as usize,
            columns,
        });
    }
    Ok(Some(out))
}

/// How the elements beyond the case table's K ulp compare with the exact value.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Judgement {
    /// The case table's K.
    pub k: u64,
    /// Elements more than K ulp from the H200's.
    pub beyond: usize,
    /// Of those, at least as close to the exact value as the H200's.
    pub as_accurate: usize,
    /// Of those, farther than the H200's but within the column's `ulp_bound` of the
    /// correctly rounded exact value.
    pub within_bound: usize,
    /// Of those, not judged (input beyond the column's `max_abs_x`).
    pub outside: usize,
    /// Of those, farther from the exact value than the H200's, or in a column without a
    /// function.
    pub worse: usize,
}

/// Distance of a result `v` from the exact value `hi + lo` (`rn`: that value rounded to the
/// result's format): 0 when `v` is `rn` (infinities included), infinite for a NaN against a
/// number.
fn error(v: f64, hi: f64, lo: f64, rn: f64) -> f64 {
    if v.is_nan() || hi.is_nan() {
        return if v.is_nan() && hi.is_nan() {
            0.0
        } else {
            f64::INFINITY
        };
    }
    if v == rn {
        return 0.0;
    }
    ((v - hi) - lo).abs()
}

/// A column's exact value as an unevaluated sum `(hi, lo)`, of inputs `x`, `y`.
type Exact<'a> = &'a dyn Fn(&Column, f64, f64) -> Option<(f64, f64)>;

/// The judgement of one output whose elements are `bits`-bit floats (`ours`, `h200`: their
/// raw bits), the exact value of a column's function given by `exact` as an unevaluated
/// sum `(hi, lo)` (`None`: no reference for it).
fn judge_bits(
    spec: &OutputSpec,
    arg: &dyn Fn(&Arg, usize) -> Option<f64>,
    ours: &[u64],
    h200: &[u64],
    bits: u32,
    k: u64,
    exact: Exact<'_>,
) -> Judgement {
    let value = |b: u64| {
        if bits == 32 {
            f64::from(f32::from_bits(b as u32))
        } else {
            f64::from_bits(b)
        }
    };
    let round = |e: f64| -> (f64, u64) {
        if bits == 32 {
            let r = e as f32;
            (f64::from(r), u64::from(r.to_bits()))
        } else {
            (e, e.to_bits())
        }
    };
    let mut j = Judgement {
        k,
        ..Judgement::default()
    };
    for (i, (&o, &h)) in ours.iter().zip(h200).enumerate() {
        if crate::runner::ulp_distance(o, h, bits) <= k {
            continue;
        }
        j.beyond += 1;
        let (row, col) = (i / spec.stride, i % spec.stride);
        let Some(c) = spec.columns.get(&col) else {
            j.worse += 1;
            continue;
        };
        let (Some(x), y) = (arg(&c.x, row), c.y.as_ref().map(|a| arg(a, row))) else {
            j.worse += 1;
            continue;
        };
        if c.max_abs_x.is_some_and(|m| x.abs() > m) {
            j.outside += 1;
            continue;
        }
        let Some((hi, lo)) = exact(c, x, y.flatten().unwrap_or(0.0)) else {
            j.worse += 1;
            continue;
        };
        let (rn, rn_bits) = round(hi);
        let (eo, eh) = (error(value(o), hi, lo, rn), error(value(h), hi, lo, rn));
        if eo <= eh.max(c.abs_tol) {
            j.as_accurate += 1;
        } else if c
            .ulp_bound
            .is_some_and(|b| crate::runner::ulp_distance(o, rn_bits, bits) <= b)
        {
            j.within_bound += 1;
        } else {
            j.worse += 1;
        }
    }
    j
}

/// Judge the binary32 output `ours` against the H200's `h200` bytes: each element more than
/// `k` ulp apart is compared with the exact value of `spec`'s function of the inputs
/// (`inputs`: name -> binary32 values).
pub fn judge(
    spec: &OutputSpec,
    inputs: &BTreeMap<String, Vec<f32>>,
    ours: &[f32],
    h200: &[f32],
    k: u64,
) -> Judgement {
    let arg = |a: &Arg, row: usize| -> Option<f64> {
        let v = f64::from(*inputs.get(&a.buf)?.get(row)?);
        Some(if a.abs { v.abs() } else { v })
    };
    let bits = |v: &[f32]| -> Vec<u64> { v.iter().map(|x| u64::from(x.to_bits())).collect() };
    let exact = |c: &Column, x: f64, y: f64| Some((c.f.eval(x, y), 0.0));
    judge_bits(spec, &arg, &bits(ours), &bits(h200), 32, k, &exact)
}

/// [`judge`] for binary64 outputs and inputs: the exact value as a double-double
/// ([`Func::eval_dd`]; an element of a function without one counts as farther).
pub fn judge_f64(
    spec: &OutputSpec,
    inputs: &BTreeMap<String, Vec<f64>>,
    ours: &[f64],
    h200: &[f64],
    k: u64,
) -> Judgement {
    let arg = |a: &Arg, row: usize| -> Option<f64> {
        let v = *inputs.get(&a.buf)?.get(row)?;
        Some(if a.abs { v.abs() } else { v })
    };
    let bits = |v: &[f64]| -> Vec<u64> { v.iter().map(|x| x.to_bits()).collect() };
    let exact = |c: &Column, x: f64, y: f64| c.f.eval_dd(x, y);
    judge_bits(spec, &arg, &bits(ours), &bits(h200), 64, k, &exact)
}

/// `a * b` as the unevaluated sum of the rounded product and its error.
fn two_prod(a: f64, b: f64) -> (f64, f64) {
    let p = a * b;
    (p, a.mul_add(b, -p))
}

/// `a + b` as the unevaluated sum of the rounded sum and its error.
fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let bb = s - a;
    (s, (a - (s - bb)) + (b - bb))
}

/// The square root of the double-double `(sh, sl)`: one Newton step from the binary64 root
/// (relative error about 2^-105).
fn sqrt_dd(sh: f64, sl: f64) -> (f64, f64) {
    let r = sh.sqrt();
    if !r.is_finite() || r == 0.0 {
        return (r, 0.0);
    }
    let (ph, pl) = two_prod(r, r);
    let d = ((sh - ph) - pl) + sl;
    two_sum(r, d / (2.0 * r))
}

impl Func {
    /// The exact value of a binary64 function as a double-double `(hi, lo)` with `hi` the
    /// correctly rounded result (but in cases a 2^-105 relative error cannot decide);
    /// `None` for the functions without one here.
    pub fn eval_dd(self, x: f64, y: f64) -> Option<(f64, f64)> {
        match self {
            Func::Rsqrt => {
                let r = 1.0 / x.sqrt();
                if !r.is_finite() || r == 0.0 || x < 0.0 {
                    return Some((r, 0.0));
                }
                // x = x' 4^k with x' near 1 (r^2 neither overflows nor underflows), then
                // e = 1 - x' r'^2 evaluated with the error terms: r' (1 + e/2) is the root.
                let k = (x.log2() / 2.0).round() as i32;
                let down = 2f64.powi(-k);
                let xs = x * down * down;
                let r = 1.0 / xs.sqrt();
                let (ph, pl) = two_prod(r, r);
                let (qh, ql) = two_prod(xs, ph);
                let e = ((1.0 - qh) - ql) - xs * pl;
                let (h, l) = two_sum(r, r * e * 0.5);
                Some((h * down, l * down))
            }
            Func::Hypot => {
                let (ax, ay) = (x.abs(), y.abs());
                if !ax.is_finite() || !ay.is_finite() {
                    return Some((x.hypot(y), 0.0));
                }
                let m = ax.max(ay);
                if m == 0.0 {
                    return Some((0.0, 0.0));
                }
                // Scale by a power of two near 1/m so that the squares neither overflow nor
                // lose the smaller one's bits that matter.
                let sc = f64::from_bits(((2046 - ((m.to_bits() >> 52) as i64)) as u64) << 52);
                let (sx, sy) = (ax * sc, ay * sc);
                let (xh, xl) = two_prod(sx, sx);
                let (yh, yl) = two_prod(sy, sy);
                let (sh, sl) = two_sum(xh, yh);
                let (rh, rl) = sqrt_dd(sh, sl + xl + yl);
                Some((rh / sc, rl / sc))
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(f: Func, tol: f64) -> OutputSpec {
        let mut columns = BTreeMap::new();
        columns.insert(
            0,
            Column {
                f,
                x: Arg::parse("|a|"),
                y: None,
                abs_tol: tol,
                max_abs_x: Some(100.0),
                ulp_bound: None,
            },
        );
        OutputSpec {
            case: "c".into(),
            output: "o".into(),
            stride: 1,
            columns,
        }
    }

    #[test]
    fn closer_to_the_exact_value_passes_and_farther_does_not() {
        // sqrt(2) = 1.41421356...: 0x3fb504f3 is the binary32 nearest; 0x3fb504f0 is 3 ulp below.
        let inputs: BTreeMap<String, Vec<f32>> = [("a".to_string(), vec![-2.0, 2.0, 1000.0])]
            .into_iter()
            .collect();
        let near = f32::from_bits(0x3fb5_04f3);
        let far = f32::from_bits(0x3fb5_04f0);
        let j = judge(
            &spec(Func::Sqrt, 0.0),
            &inputs,
            &[near, far, 0.0],
            &[far, near, 31.6],
            2,
        );
        assert_eq!(
            j,
            Judgement {
                k: 2,
                beyond: 3,
                as_accurate: 1,
                within_bound: 0,
                outside: 1,
                worse: 1
            }
        );
        // Within K ulp: not judged at all.
        assert_eq!(
            judge(&spec(Func::Sqrt, 0.0), &inputs, &[far], &[near], 3).beyond,
            0
        );
        // An absolute tolerance: sin(2) = 0.909297..., 4 ulp off but within 2^-20.
        let s = f32::from_bits(0.909_297_4_f32.to_bits() + 4);
        let j = judge(
            &spec(Func::Sin, 2f64.powi(-20)),
            &inputs,
            &[0.0, s],
            &[0.0, 0.909_297_4],
            2,
        );
        assert_eq!((j.beyond, j.as_accurate), (1, 1));
    }

    #[test]
    fn a_documented_ulp_bound_admits_a_farther_result() {
        // cbrt(2) = 1.259921...: 0x3fa14518 is the binary32 nearest; one and two ulp above.
        let inputs: BTreeMap<String, Vec<f32>> =
            [("a".to_string(), vec![2.0])].into_iter().collect();
        let mut sp = spec(Func::Cbrt, 0.0);
        let near = f32::from_bits(0x3fa1_4518);
        let (one, two) = (f32::from_bits(0x3fa1_4519), f32::from_bits(0x3fa1_451a));
        assert_eq!(judge(&sp, &inputs, &[one], &[near], 0).worse, 1);
        sp.columns.get_mut(&0).unwrap().ulp_bound = Some(1);
        let j = judge(&sp, &inputs, &[one], &[near], 0);
        assert_eq!((j.within_bound, j.worse), (1, 0));
        assert_eq!(judge(&sp, &inputs, &[two], &[near], 0).worse, 1);
        assert_eq!(Func::Erf.eval(0.5, 0.0), libm::erf(0.5));
        assert_eq!(Func::Fmod.eval(7.5, 2.0), 1.5);
    }

    #[test]
    fn infinities_and_nans_against_the_exact_value() {
        let inf = f64::from(f32::INFINITY);
        let max = f64::from(f32::MAX);
        // 1e39 rounds to binary32 infinity
        assert_eq!(error(inf, 1e39, 0.0, inf), 0.0);
        assert_eq!(error(max, 1e39, 0.0, inf), (max - 1e39).abs());
        assert_eq!(error(f64::NAN, f64::NAN, 0.0, f64::NAN), 0.0);
        assert_eq!(error(f64::NAN, 1.0, 0.0, 1.0), f64::INFINITY);
        assert_eq!(error(1.0, f64::NAN, 0.0, f64::NAN), f64::INFINITY);
    }

    #[test]
    fn double_double_references() {
        // exact cases
        assert_eq!(Func::Rsqrt.eval_dd(4.0, 0.0), Some((0.5, 0.0)));
        assert_eq!(Func::Hypot.eval_dd(3.0, 4.0), Some((5.0, 0.0)));
        assert_eq!(Func::Hypot.eval_dd(-0.0, 0.0), Some((0.0, 0.0)));
        // 1/sqrt(2) = 0.70710678118654752440...: binary64 0x3fe6a09e667f3bcd is the nearest
        // (0.707106781186547572737...), so the remainder is negative.
        let (h, l) = Func::Rsqrt.eval_dd(2.0, 0.0).unwrap();
        assert_eq!(h.to_bits(), 0x3fe6_a09e_667f_3bcd);
        assert!(l < 0.0 && l.abs() < 2f64.powi(-53) * h);
        // no overflow or underflow of the squares
        let (h, _) = Func::Hypot.eval_dd(1e300, 1e300).unwrap();
        assert_eq!(h, 1e300 * std::f64::consts::SQRT_2);
        let (h, _) = Func::Hypot.eval_dd(3e-310, 4e-310).unwrap();
        assert_eq!(h, 5e-310);
        assert_eq!(Func::Rsqrt.eval_dd(0.0, 0.0), Some((f64::INFINITY, 0.0)));
        // a subnormal (its root's square overflows unscaled) and the largest binary64
        assert_eq!(
            Func::Rsqrt.eval_dd(2f64.powi(-1040), 0.0),
            Some((2f64.powi(520), 0.0))
        );
        let (h, _) = Func::Rsqrt.eval_dd(f64::MAX, 0.0).unwrap();
        assert_eq!(h, 7.458340731200207e-155);
        assert!(Func::Rsqrt.eval_dd(-1.0, 0.0).unwrap().0.is_nan());
        // against std's hypot (within an ulp) on a sweep of inputs
        let mut x = 1.234_567_890_123e-3;
        for _ in 0..2000 {
            let y = x * 0.618_033_988_749 + 1.0;
            let (h, _) = Func::Hypot.eval_dd(x, y).unwrap();
            let d = crate::runner::ulp_distance(h.to_bits(), x.hypot(y).to_bits(), 64);
            assert!(d <= 1, "hypot({x}, {y})");
            x *= 1.37;
            if x > 1e200 {
                x = 3.3e-200;
            }
        }
        assert_eq!(Func::Sin.eval_dd(1.0, 0.0), None);
    }
}
