//! Typed SASS operands, parsed from the text `nvdisasm` prints for one operand.
//!
//! Every operand text gets a typed [`Operand`]; a text that matches none of the known shapes
//! is kept as [`Operand::Other`] so that the lifter reports the instruction instead of
//! guessing (never a silent drop).

/// A register file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum File {
    /// General registers `R0`..`R254`; `RZ` is index [`RZ`].
    R,
    /// Uniform registers `UR0`..`UR62`; `URZ` is index [`URZ`].
    Ur,
    /// Predicates `P0`..`P6`; `PT` (true) is index [`PT`].
    P,
    /// Uniform predicates `UP0`..`UP6`; `UPT` is index [`PT`].
    Up,
    /// Convergence barrier registers `B0`..`B15` (`BSSY`, `BSYNC`).
    B,
}

/// Index of `RZ` (reads as zero, writes are discarded).
pub const RZ: u8 = 255;
/// Index of `URZ`.
pub const URZ: u8 = 63;
/// Index of `PT` / `UPT` (reads as true).
pub const PT: u8 = 7;

/// One register of a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Reg {
    /// The file.
    pub file: File,
    /// The index (`RZ`, `URZ`, `PT` have the constants above).
    pub idx: u8,
}

impl Reg {
    /// True for `RZ`, `URZ` (zero registers).
    pub fn is_zero(&self) -> bool {
        matches!((self.file, self.idx), (File::R, RZ) | (File::Ur, URZ))
    }
    /// True for `PT`, `UPT`.
    pub fn is_true(&self) -> bool {
        matches!(self.file, File::P | File::Up) && self.idx == PT
    }
}

impl std::fmt::Display for Reg {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (self.file, self.idx) {
            (File::R, RZ) => write!(f, "RZ"),
            (File::Ur, URZ) => write!(f, "URZ"),
            (File::P, PT) => write!(f, "PT"),
            (File::Up, PT) => write!(f, "UPT"),
            (File::R, i) => write!(f, "R{i}"),
            (File::Ur, i) => write!(f, "UR{i}"),
            (File::P, i) => write!(f, "P{i}"),
            (File::Up, i) => write!(f, "UP{i}"),
            (File::B, i) => write!(f, "B{i}"),
        }
    }
}

/// Source modifiers of a register or constant operand.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SrcMods {
    /// `-x` (arithmetic negation).
    pub neg: bool,
    /// `|x|` (absolute value).
    pub abs: bool,
    /// `~x` (bitwise not).
    pub not: bool,
    /// `.reuse` (operand reuse cache hint; no meaning for the result).
    pub reuse: bool,
    /// A lane selector or width suffix other than `.reuse` (`H1`, `B2`, `H0_H0`, `F32`, `64`).
    pub suffix: Option<Box<str>>,
}

impl SrcMods {
    fn is_plain(&self) -> bool {
        !self.neg && !self.abs && !self.not && self.suffix.is_none()
    }
}

/// The bank of a constant operand: `c[0x3]` or, on sm_75+, `cx[UR4]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bank {
    /// A fixed bank number.
    Imm(u8),
    /// A bank chosen by a uniform register (`cx[URn]`).
    Ureg(u8),
}

/// A memory address `[R2.64+UR4+0x10]`, optionally with a descriptor (`desc[UR4][...]`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Mem {
    /// The memory descriptor uniform register pair (`desc[UR4]`, sm_90).
    pub desc: Option<u8>,
    /// The register base (`R2`; `RZ` when absent), with `.64` for a 64-bit pair.
    pub base: Option<Reg>,
    /// The base is a 64-bit register pair (`R2.64`).
    pub wide: bool,
    /// A scale of the base (`R4.X4`: 4; `.X8`, `.X16`), 1 when none.
    pub scale: u8,
    /// A uniform register added to the address (`UR4`), with `.64` when 64-bit.
    pub ureg: Option<(u8, bool)>,
    /// The immediate offset (signed).
    pub offset: i64,
}

/// One operand.
#[derive(Debug, Clone, PartialEq)]
pub enum Operand {
    /// A general or uniform register (`R3`, `-R3.reuse`, `|UR4|`, `R2.H1`).
    Reg(Reg, SrcMods),
    /// A predicate or uniform predicate (`P0`, `!PT`, `UP1`), `not` when negated.
    Pred(Reg, bool),
    /// A convergence barrier register (`B0`).
    Barrier(u8),
    /// An integer immediate (`0x3039`, `-0x3`, `0`), sign-extended.
    Imm(i64),
    /// A floating-point immediate (`4.76837158203125e-07`, `-INF`, `+QNAN`).
    Float(f64),
    /// A NaN immediate with its bits from the instruction's encoding (nvdisasm prints every
    /// NaN as `±QNAN`): the binary32 pattern, the binary64 one (`D*` forms: the encoded high
    /// word, low word zero) or one binary16 / bfloat16 half (`H*` forms), by the form.
    FloatBits(u64),
    /// A half of the absolute address of a label of the same function, as nvdisasm prints
    /// the return address set before a call of another function of the cubin
    /// (`32@lo((kernel + .L_x_0@srel))`, `32@hi(...)`): the label's offset and which half.
    LabelHalf {
        /// The label's byte offset in the function.
        target: u32,
        /// The high 32 bits (`32@hi`).
        high: bool,
    },
    /// A constant-bank reference `c[bank][index + offset]`, with source modifiers.
    Const {
        /// The bank.
        bank: Bank,
        /// A register index into the bank (`c[0x0][R3+0x10]`), if any.
        index: Option<Reg>,
        /// The byte offset.
        offset: i64,
        /// Source modifiers (`-c[..]`, `|c[..]|`, `c[..].H1`).
        mods: SrcMods,
    },
    /// A memory reference.
    Mem(Mem),
    /// A special register (`SR_TID.X`, `SR_LANEID`, `SRZ`).
    Special(Box<str>),
    /// A branch target inside the function, as a byte offset from the function start.
    Target(u32),
    /// A symbol (a called function's name, `` `(_Z3foov) ``).
    Symbol(Box<str>),
    /// Any other operand text (kept verbatim; the lifter reports instructions that have one).
    Other(Box<str>),
}

impl Operand {
    /// The register of a plain register operand (no modifiers but `.reuse`).
    pub fn plain_reg(&self) -> Option<Reg> {
        match self {
            Operand::Reg(r, m) if m.is_plain() => Some(*r),
            _ => None,
        }
    }
}

fn parse_u64(s: &str) -> Option<u64> {
    if let Some(h) = s.strip_prefix("0x") {
        u64::from_str_radix(h, 16).ok()
    } else if !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) {
        s.parse().ok()
    } else {
        None
    }
}

/// An integer `0x10`, `-0x10`, `16`.
fn parse_int(s: &str) -> Option<i64> {
    if let Some(r) = s.strip_prefix('-') {
        parse_u64(r).map(|v| (v as i64).wrapping_neg())
    } else {
        parse_u64(s.strip_prefix('+').unwrap_or(s)).map(|v| v as i64)
    }
}

fn parse_float(s: &str) -> Option<f64> {
    let (neg, body) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    let v = match body {
        "INF" => f64::INFINITY,
        "QNAN" | "NAN" => f64::NAN,
        _ if body.contains(['.', 'e'])
            && body
                .bytes()
                .all(|b| b.is_ascii_digit() || b".e-+".contains(&b)) =>
        {
            body.parse().ok()?
        }
        _ => return None,
    };
    Some(if neg { -v } else { v })
}

/// A register name (`R12`, `RZ`, `UR4`, `URZ`, `P3`, `PT`, `UP0`, `UPT`, `B1`).
pub fn parse_reg(s: &str) -> Option<Reg> {
    let num = |t: &str, max: u8| t.parse::<u8>().ok().filter(|&n| n < max);
    let (file, idx) = match s {
        "RZ" => (File::R, RZ),
        "URZ" => (File::Ur, URZ),
        "PT" => (File::P, PT),
        "UPT" => (File::Up, PT),
        _ if s.starts_with("UR") => (File::Ur, num(&s[2..], URZ)?),
        _ if s.starts_with("UP") => (File::Up, num(&s[2..], PT)?),
        _ if s.starts_with('R') => (File::R, num(&s[1..], RZ)?),
        _ if s.starts_with('P') => (File::P, num(&s[1..], PT)?),
        _ if s.starts_with('B') => (File::B, num(&s[1..], 16)?),
        _ => return None,
    };
    Some(Reg { file, idx })
}

/// Split `R2.64` / `R4.X4` / `R3.reuse.H1` into the name and its dot suffixes.
fn split_suffixes(s: &str) -> (&str, impl Iterator<Item = &str>) {
    let mut it = s.split('.');
    (it.next().unwrap_or(""), it)
}

fn parse_mem_inner(s: &str, desc: Option<u8>) -> Option<Mem> {
    let mut m = Mem {
        desc,
        scale: 1,
        ..Default::default()
    };
    // Terms separated by '+'; a negative offset is written `+-0x8` or `-0x8`.
    let mut rest = s.trim();
    if rest.is_empty() {
        return Some(m);
    }
    let mut terms: Vec<&str> = Vec::new();
    let mut start = 0;
    let b = rest.as_bytes();
    for i in 1..b.len() {
        if b[i] == b'+' || (b[i] == b'-' && b[i - 1] != b'+') {
            terms.push(&rest[start..i]);
            start = if b[i] == b'+' { i + 1 } else { i };
        }
    }
    terms.push(&rest[start..]);
    for t in terms {
        let t = t.trim();
        if let Some(v) = parse_int(t) {
            m.offset = m.offset.wrapping_add(v);
            continue;
        }
        let (name, suf) = split_suffixes(t);
        let reg = parse_reg(name)?;
        let mut wide = false;
        let mut scale = 1u8;
        for x in suf {
            match x {
                "64" => wide = true,
                "U32" | "reuse" => {}
                _ if x.starts_with('X') => scale = x[1..].parse().ok()?,
                _ => return None,
            }
        }
        match reg.file {
            File::R if m.base.is_none() => {
                m.base = Some(reg);
                m.wide = wide;
                m.scale = scale;
            }
            File::Ur if m.ureg.is_none() => m.ureg = Some((reg.idx, wide)),
            _ => return None,
        }
    }
    rest = "";
    let _ = rest;
    Some(m)
}

/// `[a][b]` → (`a`, `b`) for the text after a prefix such as `c` or `desc`.
fn two_brackets(s: &str) -> Option<(&str, &str)> {
    let a = s.strip_prefix('[')?;
    let (a, rest) = a.split_once(']')?;
    let b = rest.trim_start().strip_prefix('[')?.strip_suffix(']')?;
    Some((a, b))
}

fn parse_const(body: &str, mods: SrcMods, ux: bool) -> Option<Operand> {
    let (b, idx) = two_brackets(body)?;
    let bank = if ux {
        match parse_reg(b)? {
            Reg {
                file: File::Ur,
                idx,
            } => Bank::Ureg(idx),
            _ => return None,
        }
    } else {
        Bank::Imm(u8::try_from(parse_u64(b)?).ok()?)
    };
    let m = parse_mem_inner(idx, None)?;
    if m.ureg.is_some() || m.wide || m.scale != 1 {
        return None;
    }
    Some(Operand::Const {
        bank,
        index: m.base.filter(|r| !r.is_zero()),
        offset: m.offset,
        mods,
    })
}

/// Parse one operand as `nvdisasm` prints it. `label` resolves a `` `(.L_x_3) `` label to its
/// byte offset in the function.
pub fn parse_operand(text: &str, label: &mut dyn FnMut(&str) -> Option<u32>) -> Operand {
    parse_typed(text.trim(), label).unwrap_or_else(|| Operand::Other(text.trim().into()))
}

fn parse_typed(t: &str, label: &mut dyn FnMut(&str) -> Option<u32>) -> Option<Operand> {
    if let Some(l) = t.strip_prefix("`(").and_then(|r| r.strip_suffix(')')) {
        return Some(match label(l) {
            Some(off) => Operand::Target(off),
            None => Operand::Symbol(l.into()),
        });
    }
    if let Some((high, inner)) = t
        .strip_prefix("32@lo((")
        .map(|r| (false, r))
        .or_else(|| t.strip_prefix("32@hi((").map(|r| (true, r)))
    {
        // `(function + label@srel)`: the label resolves within the function.
        let (_, l) = inner.strip_suffix("@srel))")?.split_once(" + ")?;
        return label(l).map(|target| Operand::LabelHalf { target, high });
    }
    if let Some(r) = t.strip_prefix("desc") {
        let (d, inner) = two_brackets(r)?;
        let d = match parse_reg(d)? {
            Reg {
                file: File::Ur,
                idx,
            } => idx,
            _ => return None,
        };
        return parse_mem_inner(inner, Some(d)).map(Operand::Mem);
    }
    if let Some(inner) = t.strip_prefix('[').and_then(|r| r.strip_suffix(']')) {
        return parse_mem_inner(inner, None).map(Operand::Mem);
    }
    if t.starts_with("SR_") || t == "SRZ" {
        return Some(Operand::Special(t.into()));
    }
    if let Some(v) = parse_int(t) {
        return Some(Operand::Imm(v));
    }
    if let Some(v) = parse_float(t) {
        return Some(Operand::Float(v));
    }
    // Predicates: `P0`, `!P0`, `PT`, `UP1`.
    let (pnot, pbody) = match t.strip_prefix('!') {
        Some(r) => (true, r),
        None => (false, t),
    };
    if let Some(r) = parse_reg(pbody) {
        match r.file {
            File::P | File::Up => return Some(Operand::Pred(r, pnot)),
            File::B if !pnot => return Some(Operand::Barrier(r.idx)),
            _ => {}
        }
    }
    if pnot {
        return None;
    }
    // Register or constant with source modifiers: -, ~, |..|, suffixes.
    let mut mods = SrcMods::default();
    let mut outer: Vec<&str> = Vec::new();
    let mut s = t;
    if let Some(r) = s.strip_prefix('-') {
        mods.neg = true;
        s = r;
    } else if let Some(r) = s.strip_prefix('~') {
        mods.not = true;
        s = r;
    }
    if let Some(r) = s.strip_prefix('|') {
        let end = r.rfind('|')?;
        mods.abs = true;
        // Suffixes may follow the closing bar (`|R2|.reuse`, `|R2|.H0_H0`) or be inside it
        // (`|R2.H1|`).
        let tail = &r[end + 1..];
        if !tail.is_empty() {
            let t = tail.strip_prefix('.')?;
            outer = t.split('.').collect();
        }
        s = &r[..end];
    }
    if outer.contains(&"reuse") {
        mods.reuse = true;
        outer.retain(|x| *x != "reuse");
    }
    if let Some(r) = s.strip_prefix("cx") {
        let (body, suf) = split_bracket_suffix(r);
        mods.suffix = const_suffix(suf, &outer)?;
        return parse_const(body, mods, true);
    }
    if let Some(r) = s.strip_prefix('c') {
        if r.starts_with('[') {
            let (body, suf) = split_bracket_suffix(r);
            mods.suffix = const_suffix(suf, &outer)?;
            return parse_const(body, mods, false);
        }
    }
    let (name, suf) = split_suffixes(s);
    let reg = parse_reg(name)?;
    if !matches!(reg.file, File::R | File::Ur) {
        return None;
    }
    let mut rest: Vec<&str> = Vec::new();
    for x in suf.chain(outer) {
        if x == "reuse" {
            mods.reuse = true;
        } else {
            rest.push(x);
        }
    }
    if !rest.is_empty() {
        mods.suffix = Some(rest.join(".").into());
    }
    Some(Operand::Reg(reg, mods))
}

/// The suffix of a constant operand: inside the bars or after them, not both (`None`).
fn const_suffix(inner: Option<&str>, outer: &[&str]) -> Option<Option<Box<str>>> {
    match (inner, outer.is_empty()) {
        (s, true) => Some(s.map(Into::into)),
        (None, false) => Some(Some(outer.join(".").into())),
        (Some(_), false) => None,
    }
}

/// `[0x0][0x10].H1` → (`[0x0][0x10]`, Some("H1")).
fn split_bracket_suffix(s: &str) -> (&str, Option<&str>) {
    match s.rfind(']') {
        Some(i) if i + 1 < s.len() => (&s[..=i], s[i + 1..].strip_prefix('.')),
        _ => (s, None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> Operand {
        parse_operand(s, &mut |l| (l == ".L_x_0").then_some(0x110))
    }

    #[test]
    fn operands_nvdisasm_prints() {
        let r = |i| Reg {
            file: File::R,
            idx: i,
        };
        assert_eq!(p("R12"), Operand::Reg(r(12), SrcMods::default()));
        assert!(matches!(
            p("R0.reuse"),
            Operand::Reg(_, SrcMods { reuse: true, .. })
        ));
        assert!(matches!(
            p("-R0"),
            Operand::Reg(_, SrcMods { neg: true, .. })
        ));
        assert_eq!(p("RZ").plain_reg(), Some(r(RZ)));
        assert_eq!(
            p("!PT"),
            Operand::Pred(
                Reg {
                    file: File::P,
                    idx: PT
                },
                true
            )
        );
        assert_eq!(p("0x3039"), Operand::Imm(0x3039));
        assert_eq!(p("-0x3"), Operand::Imm(-3));
        assert_eq!(
            p("4.76837158203125e-07"),
            Operand::Float(4.76837158203125e-07)
        );
        assert_eq!(p("-INF"), Operand::Float(f64::NEG_INFINITY));
        assert_eq!(
            p("c[0x0][0x168]"),
            Operand::Const {
                bank: Bank::Imm(0),
                index: None,
                offset: 0x168,
                mods: SrcMods::default()
            }
        );
        assert!(matches!(
            p("c[0x0][RZ]"),
            Operand::Const {
                index: None,
                offset: 0,
                ..
            }
        ));
        assert_eq!(
            p("desc[UR4][R4.64+0x8]"),
            Operand::Mem(Mem {
                desc: Some(4),
                base: Some(r(4)),
                wide: true,
                scale: 1,
                ureg: None,
                offset: 8
            })
        );
        assert_eq!(
            p("[R4.X4+0x4]"),
            Operand::Mem(Mem {
                desc: None,
                base: Some(r(4)),
                wide: false,
                scale: 4,
                ureg: None,
                offset: 4
            })
        );
        assert!(matches!(
            p("[R1+-0x8]"),
            Operand::Mem(Mem { offset: -8, .. })
        ));
        assert_eq!(p("`(.L_x_0)"), Operand::Target(0x110));
        assert_eq!(p("SR_TID.X"), Operand::Special("SR_TID.X".into()));
        assert!(matches!(
            p("|R3|.reuse"),
            Operand::Reg(
                _,
                SrcMods {
                    abs: true,
                    reuse: true,
                    ..
                }
            )
        ));
        assert!(matches!(p("gsb0"), Operand::Other(_)));
    }
}
