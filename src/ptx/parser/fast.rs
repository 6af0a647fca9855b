//! The instruction fast path: a scanner that reads one instruction statement straight from the
//! bytes, directed by what the grammar expects next (guard, opcode and modifiers, operands), in
//! place of the token stream.
//!
//! Almost every statement of compiler-written PTX has the same shape,
//! `[@[!]p] opcode.mod.mod  op, op, op;`, with operands that are registers (with `.x`-style
//! suffixes), integer or `0f`/`0d` literals, `[base+off]` addresses, `{a, b}` vectors or `!p`.
//! Reading such a statement with the grammar's knowledge of what comes next needs no token
//! classification: an operand that starts with `%` is a name, an opcode head ends at the first
//! byte that is neither a word character nor a modifier dot. The general lexer costs about 66
//! machine instructions per token (a `logos` DFA round trip), the context-directed scan a few
//! per byte.
//!
//! The fast path never reports anything. On any byte it does not expect — a layout the fast
//! path does not cover (a newline or comment inside the statement, a float literal, `p|q`
//! pairs, `[imm]` addresses, tuples, call lists), a name that is not in scope, an opcode head
//! not yet validated by the general path — it gives up without side effects, and the general
//! token-based parser reads the statement from its start. Both produce the same AST: the fast
//! path only builds the operand forms whose general rules it repeats exactly
//! ([`Parser::classify`] for names, [`imm_value`] for literals).

use super::{imm_value, Parser};
use crate::ptx::ast::*;
use crate::ptx::lexer::{Tok, Token};

/// Byte classes of PTX identifiers (§4.3): `[A-Za-z0-9_$]`.
static WORD: [bool; 256] = {
    let mut t = [false; 256];
    let mut i = 0;
    while i < 256 {
        let c = i as u8;
        t[i] = c.is_ascii_alphanumeric() || c == b'_' || c == b'$';
        i += 1;
    }
    t
};

#[inline(always)]
fn is_word(c: u8) -> bool {
    WORD[c as usize]
}

/// `src[s..e]` without the checks of `str` slicing, for the spans the fast path cuts.
///
/// Every position the fast path cuts at is either the start of a token (a char boundary) or
/// a position right before or right after a byte it has read and matched as ASCII (a word
/// character, `.`, `:`, `%`, a digit, ...). An ASCII byte is a whole UTF-8 character, so such a
/// position is a char boundary, and `s <= e <= src.len()` holds because the cursor only moves
/// forward over bytes it has read. Debug builds (and the fuzz target, which is built with debug
/// assertions) check this on every call.
#[inline(always)]
fn span(src: &str, s: usize, e: usize) -> &str {
    debug_assert!(s <= e && src.is_char_boundary(s) && src.is_char_boundary(e));
    // SAFETY: `s <= e <= src.len()` and both are char boundaries (see above), which is all
    // `get_unchecked` on `str` requires.
    unsafe { src.get_unchecked(s..e) }
}

/// The bytes of the source with a cursor. Reads past the end yield 0, which no rule accepts.
struct Cur<'s> {
    b: &'s [u8],
    i: usize,
}

impl Cur<'_> {
    #[inline(always)]
    fn at(&self) -> u8 {
        self.b.get(self.i).copied().unwrap_or(0)
    }

    #[inline(always)]
    fn at1(&self) -> u8 {
        self.b.get(self.i + 1).copied().unwrap_or(0)
    }

    /// Skip blanks inside a statement (space and tab only: a newline or comment inside an
    /// instruction is left to the general path).
    #[inline(always)]
    fn blanks(&mut self) {
        while matches!(self.at(), b' ' | b'\t') {
            self.i += 1;
        }
    }

    /// Word characters from the cursor on.
    #[inline(always)]
    fn word(&mut self) {
        while is_word(self.at()) {
            self.i += 1;
        }
    }

    /// A name as the lexer's `Ident` rule reads it (`[A-Za-z][A-Za-z0-9_$]*` or
    /// `[_$%][A-Za-z0-9_$]+`): its end, or `None` if none starts here.
    #[inline(always)]
    fn ident(&mut self) -> Option<usize> {
        let c = self.at();
        if c.is_ascii_alphabetic() {
            self.i += 1;
        } else if matches!(c, b'%' | b'_' | b'$') && is_word(self.at1()) {
            self.i += 2;
        } else {
            return None;
        }
        self.word();
        Some(self.i)
    }

    /// `.word` suffixes written right after a name (`%tid.x`, `%r1.h0`), as
    /// [`Parser::ident_text`] merges them. `None` on a `::` inside a suffix (left to the
    /// general path).
    #[inline(always)]
    fn suffixes(&mut self) -> Option<()> {
        while self.at() == b'.' && is_word(self.at1()) {
            self.i += 2;
            self.word();
            if self.at() == b':' {
                return None;
            }
        }
        Some(())
    }
}

impl<'a> Parser<'a> {
    /// Read statements from byte `start` (the current token's start) with the fast path for as
    /// long as they are instructions or labels of the common shape, skipping the blanks, newlines
    /// and `//` comments between them. Each one is pushed onto the statement stack; then the
    /// lexer and the line tracker are moved to the first statement the fast path does not read.
    /// Returns whether any statement was read (if not, nothing has changed).
    pub(super) fn fast_statements(&mut self, start: u32) -> bool {
        // The fast path opens at most two operand levels (an address inside a vector) without
        // counting them; near the nesting limit the token path reads the statements, so that
        // the "nested deeper than" errors are the same (hostile input only: compiler output
        // nests blocks two or three deep).
        if self.nesting + 2 > super::MAX_NESTING {
            return false;
        }
        let src = self.src;
        let b = src.as_bytes();
        // Line bookkeeping of the run: the tracker answers for `start`, the run counts the
        // newlines it skips.
        let first = self.loc(start);
        let mut line = first.line;
        let mut line_start = start as usize + 1 - first.col as usize;
        let mut at = start as usize;
        let mut read = 0usize;
        let mut last_end = at;
        loop {
            let loc = Loc {
                line,
                col: (at - line_start + 1) as u32,
            };
            let unresolved = self.unresolved.len();
            let end = match self.fast_statement(at, loc) {
                Some(end) => end,
                None => {
                    self.unresolved.truncate(unresolved);
                    break;
                }
            };
            read += 1;
            last_end = end;
            // Blanks, newlines and `//` comments up to the next statement.
            at = end;
            loop {
                match b.get(at) {
                    Some(b' ' | b'\t' | b'\r') => at += 1,
                    Some(b'\n') => {
                        at += 1;
                        line += 1;
                        line_start = at;
                    }
                    Some(b'/') if b.get(at + 1) == Some(&b'/') => {
                        at = memchr::memchr(b'\n', &b[at..]).map_or(b.len(), |p| at + p);
                    }
                    _ => break,
                }
            }
        }
        if read == 0 {
            return false;
        }
        self.lines.set(src, line, line_start, at);
        self.lx.reset(src, at as u32);
        // The end of the last token consumed (a function's raw text in an invalid directive
        // ends there).
        self.prev_end = last_end as u32;
        true
    }

    /// One statement at `at` (an instruction, or a label `name:`), pushed; its end (after the
    /// `;` or `:`), or `None` with nothing pushed.
    fn fast_statement(&mut self, at: usize, loc: Loc) -> Option<usize> {
        let src = self.src;
        let mut c = Cur {
            b: src.as_bytes(),
            i: at,
        };
        // Guard `@p` / `@!p` (§9.3).
        let guard = if c.at() == b'@' {
            c.i += 1;
            let negated = c.at() == b'!';
            c.i += negated as usize;
            let s = c.i;
            let e = c.ident()?;
            let reg = span(src, s, e);
            if self.lookup(reg).is_none() && !self.module_syms.contains_key(reg) {
                return None;
            }
            c.blanks();
            Some(Guard {
                negated,
                reg: reg.into(),
            })
        } else {
            None
        };
        // A label `name:` (the general path also allows blanks before the `:`).
        if guard.is_none() && c.at() != b'%' {
            let s = c.i;
            if let Some(e) = c.ident() {
                if c.at() == b':' {
                    let name = span(src, s, e);
                    self.labels.push(name);
                    self.stmts.push(Statement::Label(Label { name, loc }));
                    return Some(e + 1);
                }
            }
            c.i = s;
        }
        // Opcode and modifiers, one head such as `ld.global.nc.v4.u32`, validated earlier by
        // the general path (it fills `heads`).
        let op_start = c.i;
        if !c.at().is_ascii_alphabetic() {
            return None;
        }
        c.word();
        let op_end = c.i;
        while c.at() == b'.' {
            c.i += 1;
            if !is_word(c.at()) {
                return None;
            }
            c.word();
            while c.at() == b':' && c.at1() == b':' {
                c.i += 2;
                if !is_word(c.at()) {
                    return None;
                }
                c.word();
            }
        }
        if !matches!(c.at(), b' ' | b'\t' | b';') {
            return None;
        }
        let head = span(src, op_start, c.i);
        let opcode = *self.heads.get(head)?;
        let modifiers = Modifiers::from_span(span(src, op_end, c.i));
        c.blanks();
        // Up to three operands stay in the instruction (the `Operands` inline capacity);
        // more go to the heap.
        let mut inline: [Operand<'a>; 3] = Default::default();
        let mut n = 0usize;
        let mut spill: Vec<Operand<'a>> = Vec::new();
        if c.at() == b';' {
            c.i += 1;
        } else {
            loop {
                // Registers answered by the prefix cache (most operands) without a call.
                let op = match self.fast_reg_operand(&mut c) {
                    Some(op) => op,
                    None => self.fast_operand(&mut c)?,
                };
                if n < 3 {
                    // The slot holds the default `Sink`, which owns nothing: no drop needed.
                    std::mem::forget(std::mem::replace(&mut inline[n], op));
                } else {
                    if n == 3 {
                        spill.reserve(5);
                        spill.extend(inline.iter_mut().map(std::mem::take));
                    }
                    spill.push(op);
                }
                n += 1;
                c.blanks();
                match c.at() {
                    b',' => {
                        c.i += 1;
                        c.blanks();
                    }
                    b';' => {
                        c.i += 1;
                        break;
                    }
                    _ => return None,
                }
            }
        }
        let operands = if n <= 3 {
            Operands::Inline(tinyvec::ArrayVec::from_array_len(inline, n))
        } else {
            Operands::Heap(spill)
        };
        self.stmts.push(Statement::Instruction(Instruction {
            guard,
            opcode,
            modifiers,
            operands,
            loc,
        }));
        self.fast_count += 1;
        Some(c.i)
    }

    /// A name operand (register, symbol, special register, label), classified as the general
    /// path does; `None` where the general path would report an error.
    #[inline]
    fn fast_name(&mut self, c: &mut Cur<'_>) -> Option<Operand<'a>> {
        let s = c.i;
        let e = c.ident()?;
        c.suffixes()?;
        let t = Token {
            kind: Tok::Ident,
            start: s as u32,
            end: e as u32,
        };
        let full = span(self.src, s, c.i);
        // `None` for an undeclared `%` register: the general path reports it.
        self.classify_name(t, full)
    }

    /// A register `%<letters><digits>` (with `.x`-style suffixes) answered by the register-prefix
    /// cache, the shape of nearly every operand nvcc writes (`%r12`, `%rd4`, `%p1`, `%f3.x`):
    /// prefix and number are read in one forward scan, and the cache slot is checked as
    /// [`Parser::lookup`] checks it. Anything else (another shape, a cache miss, a `::` in a
    /// suffix) returns `None` with the cursor unmoved, for [`Parser::fast_name`].
    #[inline(always)]
    fn fast_reg(&mut self, c: &mut Cur<'_>) -> Option<Operand<'a>> {
        let b = c.b;
        let s = c.i;
        let mut i = s + 1;
        while b.get(i).is_some_and(u8::is_ascii_alphabetic) {
            i += 1;
        }
        let pe = i;
        let mut n = 0u32;
        while let Some(d) = b.get(i).map(|x| x.wrapping_sub(b'0')).filter(|d| *d < 10) {
            // Wraps past 9 digits; such a name is refused below.
            n = n.wrapping_mul(10).wrapping_add(d as u32);
            i += 1;
        }
        // At least one letter and one digit, at most 8 digits (as `split_digits` takes them),
        // and the name ends there.
        if pe == s + 1 || i == pe || i - pe > 8 || b.get(i).is_some_and(|&x| is_word(x)) {
            return None;
        }
        let prefix = span(self.src, s, pe);
        let ptag = super::name_tag(prefix);
        if !self.prefix_cached(ptag, prefix, n)? {
            return None;
        }
        c.i = i;
        if c.suffixes().is_none() {
            c.i = s;
            return None;
        }
        Some(Operand::Reg(Name::new(span(self.src, s, c.i))))
    }

    /// [`Parser::fast_reg`] where an operand may start: a register not followed by `|`.
    #[inline(always)]
    fn fast_reg_operand(&mut self, c: &mut Cur<'_>) -> Option<Operand<'a>> {
        if c.at() != b'%' {
            return None;
        }
        let s = c.i;
        let op = self.fast_reg(c)?;
        if c.at() == b'|' {
            c.i = s;
            return None;
        }
        Some(op)
    }

    fn fast_operand(&mut self, c: &mut Cur<'_>) -> Option<Operand<'a>> {
        match c.at() {
            b'%' => {
                let op = match self.fast_reg(c) {
                    Some(op) => op,
                    None => self.fast_name(c)?,
                };
                if c.at() == b'|' {
                    return None;
                }
                Some(op)
            }
            b'$' | b'A'..=b'Z' | b'a'..=b'z' => {
                let op = self.fast_name(c)?;
                if c.at() == b'|' {
                    return None;
                }
                Some(op)
            }
            b'_' => {
                if is_word(c.at1()) {
                    let op = self.fast_name(c)?;
                    if c.at() == b'|' {
                        return None;
                    }
                    Some(op)
                } else {
                    c.i += 1;
                    c.blanks();
                    if c.at() == b'|' {
                        return None;
                    }
                    Some(Operand::Sink)
                }
            }
            b'0'..=b'9' | b'-' => self.fast_imm(c).map(|(imm, _)| Operand::Imm(imm)),
            b'!' => {
                c.i += 1;
                let s = c.i;
                let e = c.ident()?;
                let n = span(self.src, s, e);
                if self.lookup(n).is_none() && !self.module_syms.contains_key(n) {
                    return None;
                }
                Some(Operand::Not(n.into()))
            }
            b'{' => {
                c.i += 1;
                let mut v = VectorOperands::new();
                loop {
                    c.blanks();
                    // Elements are scalars; a nested `{` (invalid PTX) is the general path's.
                    if c.at() == b'{' {
                        return None;
                    }
                    v.push(self.fast_operand(c)?);
                    c.blanks();
                    match c.at() {
                        b',' => c.i += 1,
                        b'}' => {
                            c.i += 1;
                            break;
                        }
                        _ => return None,
                    }
                }
                Some(Operand::Vector(Box::new(v)))
            }
            b'[' => {
                c.i += 1;
                c.blanks();
                let op = self.fast_name(c)?;
                let base = match op {
                    Operand::Reg(n) | Operand::SpecialReg(n) => AddrBase::Reg(n.as_str()),
                    Operand::Symbol(n) | Operand::Func(n) | Operand::Label(n) => {
                        AddrBase::Symbol(n.as_str())
                    }
                    _ => return None,
                };
                c.blanks();
                let offset = match c.at() {
                    b'+' | b'-' => {
                        let neg = c.at() == b'-';
                        c.i += 1;
                        c.blanks();
                        let (_, value) = self.fast_imm(c)?;
                        let v = match value {
                            ImmValue::Int(v) => v,
                            ImmValue::UInt(v) => v as i64,
                            _ => return None,
                        };
                        c.blanks();
                        if neg {
                            v.wrapping_neg()
                        } else {
                            v
                        }
                    }
                    _ => 0,
                };
                if c.at() != b']' {
                    return None;
                }
                c.i += 1;
                Some(Operand::Address(Box::new(Address::Offset {
                    base: Some(base),
                    offset,
                })))
            }
            _ => None,
        }
    }

    /// An integer (decimal, `0x` hex, optional `U`) or a `0f`/`0d` bit-pattern literal,
    /// optionally with a `-` written right before it. Other literals (floats, `0b`, octal) are
    /// left to the general path.
    fn fast_imm(&mut self, c: &mut Cur<'_>) -> Option<(Imm<'a>, ImmValue)> {
        let s = c.i;
        let neg = c.at() == b'-';
        c.i += neg as usize;
        let bs = c.i;
        // After a two-byte prefix (`0x`, `0f`, `0d`): the hex digits, and their count.
        let hex = |c: &mut Cur<'_>| {
            c.i += 2;
            let s = c.i;
            while c.at().is_ascii_hexdigit() {
                c.i += 1;
            }
            c.i - s
        };
        let kind = match (c.at(), c.at1()) {
            (b'0', b'x' | b'X') => {
                hex(c);
                if c.at() == b'U' {
                    c.i += 1;
                }
                Tok::Int
            }
            (b'0', b'f' | b'F') => {
                if hex(c) != 8 {
                    return None;
                }
                Tok::F32Hex
            }
            (b'0', b'd' | b'D') => {
                if hex(c) != 16 {
                    return None;
                }
                Tok::F64Hex
            }
            (b'0', b'0'..=b'9' | b'b' | b'B') => return None,
            (b'0'..=b'9', _) => {
                while c.at().is_ascii_digit() {
                    c.i += 1;
                }
                if c.at() == b'U' {
                    c.i += 1;
                }
                Tok::Int
            }
            _ => return None,
        };
        // The literal must end here as the lexer's longest match would end it.
        if is_word(c.at()) || c.at() == b'.' {
            return None;
        }
        let body = span(self.src, bs, c.i);
        let value = match kind {
            // Up to 18 decimal digits cannot overflow an i64: decoded here; longer ones and
            // the other forms by the general rule.
            Tok::Int
                if body.len() <= 18 && body.as_bytes()[body.len() - 1] != b'U' && {
                    let d = body.as_bytes()[0];
                    d != b'0' || body.len() == 1
                } =>
            {
                let v = body.bytes().fold(0i64, |v, d| v * 10 + (d - b'0') as i64);
                ImmValue::Int(if neg { -v } else { v })
            }
            _ => imm_value(kind, body, neg).ok()?,
        };
        Some((Imm::from_valid(span(self.src, s, c.i)), value))
    }
}
