//! Recursive-descent parser over the streaming lexer (PTX ISA 9.x §4 syntax, §5 declarations,
//! §6 operands, §9 instructions, §11 directives).
//!
//! Error recovery: an error inside a function body records a diagnostic, skips to the next `;`
//! (or block boundary) and keeps parsing, so that every error of the function is reported; the
//! function is then stored as [`Directive::Invalid`] with all reasons and its raw text. A body
//! that is not closed before the next module-level directive (`.entry`, `.func`, `.visible`, ...)
//! is closed there with an "unclosed `{`" error, so the following functions still parse.
//!
//! # Throughput (issue 3 asks for 200 MB/s per core)
//!
//! Instruction statements of the common one-line shape are read by the fast path
//! (`parser/fast.rs`): a scanner directed by the grammar (after the opcode head come operands;
//! an operand starting with `%` is a name) instead of the `logos` token stream, with the
//! blanks, newlines and `//` comments between statements skipped in the same loop and line
//! numbers counted there. It reads 145,853 of the 146,990 instructions of the xformers corpus
//! and the fixtures (144,896 per pass of the bench's 11 xformers modules); the rest (and any
//! statement with an error) go through the token path. Registers of the
//! `%<letters><digits>` shape are answered by the register-prefix cache in the same forward
//! scan, and forward label references are fixed up in the statements that hold them only.
//!
//! What limits the figure is the size of the tree more than the scanning: every pass writes
//! the tree into fresh memory. Session 6 made it compact: a `Name` is a `&str` in 12 bytes, an
//! `Operand` 16 bytes (from 40; a literal keeps only its text, vector operands and `p|q`
//! pairs are boxed), a `Statement` 96 bytes (from 184), and the AST 4.4 MiB per MB of PTX (from
//! 8.6). That alone took the build machine from about 67 to 87–98 MB/s before any scanning
//! change.
//!
//! Figures for the 5.25 MB xformers corpus (`benches/ptx_parse.rs`, building the AST, thread CPU
//! time, mean over all passes), 2026-11-29 session 6: on the idle 16-core Xeon host of the
//! device machine, 7 runs interleaved with the session-5 parser, a median of 235.6 MB/s
//! (154.2–265.2; the two low runs were disturbed on the host, the session-5 parser dropped in
//! the same rounds) against 142.9 for the session-5 parser; on the shared 2-core EPYC build
//! machine 156–196 MB/s as the mean of a run (other jobs running) and 216–219 MB/s for the
//! fastest pass. Callgrind, one pass through `ptx::parse_with`: 223.9 M instructions (43 per
//! byte; 293.8 M at the end of session 5). Peak RSS 5.8 MiB per MB of input (10.0 before).
//!
//! Further gains would come from `Loc` as a byte offset and a guard without its own `bool`
//! (an 88-byte `Statement`), and from keeping operands of a body in one arena; both change
//! what the lowering reads.

use std::collections::HashMap;

use super::ast::*;
use super::isa::{is_special_register, modifier_table, BuildFx, ModifierTable, Opcode};
use super::lexer::{Lexer, Tok, Token};
use super::{Diagnostic, Severity};

mod fast;

type PResult<T> = Result<T, ()>;

/// How deep `{ }` blocks, vector and list operands and initializer lists may nest. The parser
/// recurses on each level, so hostile input such as 200,000 `{` would otherwise overflow the
/// stack; compiler output nests blocks two or three deep and operands one level.
pub(crate) const MAX_NESTING: u32 = 64;

#[derive(Clone, Copy, PartialEq, Eq)]
enum SymKind {
    Func,
    Var,
}

/// A name in scope inside a function: registers and local symbols.
#[derive(Clone, Copy)]
struct ScopeEntry<'a> {
    name: &'a str,
    /// [`name_tag`] of `name`: compared first, so that a scan over the scope costs one integer
    /// comparison per entry; the text is compared only on a tag match (and only past 3 bytes).
    tag: u32,
    /// `N` of `%r<N>`, or 0 for a plain name.
    range: u32,
    is_reg: bool,
    /// The register prefix this entry can answer for: the name itself for a range `%r<N>`, the
    /// part before the trailing digits for a plain name such as `%r7` (with its tag in `ptag`;
    /// `ptag` is 0, matching no prefix, for a plain name without trailing digits).
    pname: &'a str,
    ptag: u32,
    /// Unique per pushed entry (never 0), for the validity check of [`PrefixSlot`]s.
    id: u32,
}

/// One slot of the register-prefix lookup cache (see [`Parser::lookup`]).
#[derive(Clone, Copy, Default)]
struct PrefixSlot<'a> {
    /// The [`ScopeEntry::id`] of the range declaration that answers, and its index in the
    /// scope: the slot is valid while that entry is still there (0: empty). A declaration
    /// pushed later that could answer for the same prefix empties the slot.
    id: u32,
    idx: u32,
    ptag: u32,
    prefix: &'a str,
    range: u32,
    is_reg: bool,
}

const PREFIX_SLOTS: usize = 64;

#[inline(always)]
fn prefix_slot(ptag: u32) -> usize {
    (ptag.wrapping_mul(0x9E37_79B1) >> 26) as usize
}

impl<'a> ScopeEntry<'a> {
    fn new(name: &'a str, range: u32, is_reg: bool, id: u32) -> Self {
        let (pname, ptag) = if range > 0 {
            (name, name_tag(name))
        } else {
            match split_digits(name) {
                (p, Some(_)) => (p, name_tag(p)),
                _ => ("", 0),
            }
        };
        ScopeEntry {
            name,
            tag: name_tag(name),
            range,
            is_reg,
            pname,
            ptag,
            id,
        }
    }

    #[inline(always)]
    fn is(&self, tag: u32, name: &str) -> bool {
        self.tag == tag && (name.len() <= 3 || self.name == name)
    }
}

/// The length (low 8 bits) and first three bytes of a name, packed: equal tags and a length of at
/// most 3 mean equal names (register prefixes such as `%r`, `%rd`, `p` are that short).
#[inline(always)]
fn name_tag(s: &str) -> u32 {
    let b = s.as_bytes();
    let byte = |i: usize| b.get(i).copied().unwrap_or(0) as u32;
    (b.len().min(255) as u32) | byte(0) << 8 | byte(1) << 16 | byte(2) << 24
}

/// Line numbers for monotonic position queries: the next newline is found with `memchr` as
/// the queries move forward, so a position costs nothing per byte of input on the parser's side.
/// The instruction fast path counts the newlines it skips itself and moves the tracker with
/// [`LineTracker::set`].
struct LineTracker {
    /// Offset of the first newline at or after `line_start` (`usize::MAX` if none).
    next_nl: usize,
    /// 1-based line number of the line starting at `line_start`.
    line: u32,
    line_start: usize,
}

impl LineTracker {
    fn new(src: &str) -> Self {
        LineTracker {
            next_nl: memchr::memchr(b'\n', src.as_bytes()).unwrap_or(usize::MAX),
            line: 1,
            line_start: 0,
        }
    }

    /// Move to line `line`, which starts at byte `line_start`, with no newline between
    /// `line_start` and `at`.
    fn set(&mut self, src: &str, line: u32, line_start: usize, at: usize) {
        self.line = line;
        self.line_start = line_start;
        self.next_nl = memchr::memchr(b'\n', &src.as_bytes()[at..]).map_or(usize::MAX, |p| at + p);
    }
}

pub(crate) struct Parser<'a> {
    src: &'a str,
    file: String,
    lx: Lexer<'a>,
    prev_end: u32,
    pub(crate) diags: Vec<Diagnostic>,
    lines: LineTracker,
    table: &'static ModifierTable,
    module_syms: HashMap<&'a str, SymKind, BuildFx>,
    /// Instruction heads (`ld.global.nc.v4.u32`) already validated.
    heads: HashMap<&'a str, Opcode, BuildFx>,
    /// Statements of the open blocks of the current function body, innermost last: it is the
    /// body's own vector, and a nested block's statements are split off its tail.
    stmts: Vec<Statement<'a>>,
    // Per-function state.
    cur_fn: Option<&'a str>,
    fn_errors: Vec<String>,
    scope: Vec<ScopeEntry<'a>>,
    /// The last [`ScopeEntry::id`] given out.
    scope_id: u32,
    /// Per register prefix (`%r`, `%rd`, ...): the range declaration that answers for every
    /// `%r<n>` below its count, when no inner declaration could shadow it (see [`Parser::lookup`]).
    prefix_cache: [PrefixSlot<'a>; PREFIX_SLOTS],
    labels: Vec<&'a str>,
    /// Names not yet declared when used (forward references to labels, or errors), each with
    /// the index of the function body's top-level statement that holds it.
    unresolved: Vec<(Token, u32)>,
    /// Depth of the statement block being read (1: a function body), and the index in the
    /// function body of the outermost nested block being read (where its statement will go).
    block_depth: u32,
    nest_first: u32,
    /// Whether instruction statements go through the fast path first (`parser/fast.rs`).
    pub(crate) fast_path: bool,
    /// Instruction statements read by the fast path.
    pub(crate) fast_count: usize,
    /// Current nesting depth of blocks, operands and initializers (see [`MAX_NESTING`]).
    nesting: u32,
}

/// Directive words that can only start a module-level construct; seeing one inside a body means
/// the body was not closed.
fn is_module_sync(s: &str) -> bool {
    matches!(
        s,
        ".entry"
            | ".func"
            | ".visible"
            | ".weak"
            | ".common"
            | ".version"
            | ".target"
            | ".address_size"
            | ".file"
            | ".section"
            | ".alias"
    )
}

fn is_func_attr(s: &str) -> bool {
    matches!(
        s,
        ".noreturn"
            | ".maxntid"
            | ".reqntid"
            | ".minnctapersm"
            | ".maxnctapersm"
            | ".maxnreg"
            | ".explicitcluster"
            | ".reqnctapercluster"
            | ".maxclusterrank"
            | ".blocksareclusters"
            | ".pragma"
            | ".abi_preserve"
            | ".abi_preserve_control"
    )
}

/// Split `%r123` into (`%r`, Some(123)) (at most 9 digits, and something before them).
#[inline(always)]
fn split_digits(s: &str) -> (&str, Option<u32>) {
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
fn decode_int(text: &str) -> Option<(u64, bool)> {
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
fn imm_value(kind: Tok, body: &str, neg: bool) -> Result<ImmValue, String> {
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

impl<'a> Parser<'a> {
    pub(crate) fn new(src: &'a str, file: &str) -> Self {
        Parser {
            src,
            file: file.to_string(),
            lx: Lexer::new(src),
            prev_end: 0,
            diags: Vec::new(),
            lines: LineTracker::new(src),
            table: modifier_table(),
            module_syms: HashMap::default(),
            heads: HashMap::default(),
            stmts: Vec::new(),
            cur_fn: None,
            fn_errors: Vec::new(),
            scope: Vec::new(),
            scope_id: 0,
            prefix_cache: [PrefixSlot::default(); PREFIX_SLOTS],
            labels: Vec::new(),
            unresolved: Vec::new(),
            block_depth: 0,
            nest_first: 0,
            fast_path: true,
            fast_count: 0,
            nesting: 0,
        }
    }

    // ----- positions and diagnostics -------------------------------------------------------

    /// Position of byte `off`; queries should be monotonic for speed (an earlier line falls back to
    /// a rescan).
    fn loc(&mut self, off: u32) -> Loc {
        let off = off as usize;
        let lt = &mut self.lines;
        if off < lt.line_start {
            return loc_of(self.src, off);
        }
        while lt.next_nl < off {
            lt.line += 1;
            lt.line_start = lt.next_nl + 1;
            lt.next_nl = memchr::memchr(b'\n', &self.src.as_bytes()[lt.line_start..])
                .map_or(usize::MAX, |p| lt.line_start + p);
        }
        Loc {
            line: lt.line,
            col: (off - lt.line_start + 1) as u32,
        }
    }

    fn text(&self, t: Token) -> &'a str {
        &self.src[t.start as usize..t.end as usize]
    }

    fn error_at(&mut self, t: Token, msg: String) {
        let loc = loc_of(self.src, t.start as usize);
        let token = if t.kind == Tok::Eof {
            "<end of file>".to_string()
        } else {
            self.text(t).chars().take(80).collect()
        };
        if self.cur_fn.is_some() || !self.fn_errors.is_empty() {
            self.fn_errors
                .push(format!("{}:{}: {}", loc.line, loc.col, msg));
        }
        self.diags.push(Diagnostic {
            severity: Severity::Error,
            file: self.file.clone(),
            line: loc.line,
            col: loc.col,
            message: msg,
            token,
            function: self.cur_fn.map(str::to_string),
        });
    }

    fn describe(&self, t: Token) -> String {
        if t.kind == Tok::Eof {
            "end of file".into()
        } else {
            format!("`{}`", self.text(t))
        }
    }

    /// Run `f` one nesting level deeper, or report `what` at `t` if that is deeper than
    /// [`MAX_NESTING`].
    fn nested<T>(
        &mut self,
        t: Token,
        what: &str,
        f: impl FnOnce(&mut Self) -> PResult<T>,
    ) -> PResult<T> {
        if self.nesting >= MAX_NESTING {
            self.error_at(t, format!("{what} nested deeper than {MAX_NESTING} levels"));
            return Err(());
        }
        self.nesting += 1;
        let r = f(self);
        self.nesting -= 1;
        r
    }

    /// After a `{` that is nested too deep: skip to its matching `}` (consumed) or to the end
    /// of the input, without recursion.
    fn skip_balanced(&mut self) {
        let mut depth = 1u32;
        loop {
            match self.bump().kind {
                Tok::Eof => return,
                Tok::LBrace => depth += 1,
                Tok::RBrace => {
                    depth -= 1;
                    if depth == 0 {
                        return;
                    }
                }
                _ => {}
            }
        }
    }

    // ----- token helpers ---------------------------------------------------------------------

    #[inline]
    fn peek(&mut self) -> Token {
        self.lx.peek()
    }

    #[inline]
    fn bump(&mut self) -> Token {
        let t = self.lx.bump();
        self.prev_end = t.end;
        t
    }

    #[inline]
    fn eat(&mut self, k: Tok) -> bool {
        if self.peek().kind == k {
            self.bump();
            true
        } else {
            false
        }
    }

    fn expect(&mut self, k: Tok, what: &str) -> PResult<Token> {
        let t = self.peek();
        if t.kind == k {
            Ok(self.bump())
        } else {
            let d = self.describe(t);
            self.error_at(t, format!("expected {what}, found {d}"));
            Err(())
        }
    }

    fn expect_ident(&mut self, what: &str) -> PResult<&'a str> {
        let t = self.expect(Tok::Ident, what)?;
        Ok(self.text(t))
    }

    fn expect_u64(&mut self, what: &str) -> PResult<u64> {
        let t = self.expect(Tok::Int, what)?;
        match decode_int(self.text(t)) {
            Some((v, _)) => Ok(v),
            None => {
                self.error_at(t, format!("integer literal out of range in {what}"));
                Err(())
            }
        }
    }

    fn expect_u32(&mut self, what: &str) -> PResult<u32> {
        let t = self.peek();
        let v = self.expect_u64(what)?;
        u32::try_from(v).map_err(|_| self.error_at(t, format!("{what} is too large")))
    }

    /// Skip to just after the end of the line containing byte `from`, returning that line's
    /// text (trimmed) from `from`.
    fn raw_line(&mut self, from: u32) -> &'a str {
        let rest = &self.src[from as usize..];
        let end = from as usize + rest.find('\n').unwrap_or(rest.len());
        while self.peek().kind != Tok::Eof && (self.peek().start as usize) < end {
            self.bump();
        }
        self.src[from as usize..end].trim_end()
    }

    // ----- module ------------------------------------------------------------------------------

    pub(crate) fn parse_module(&mut self) -> Module<'a> {
        let mut m = Module::default();
        loop {
            let t = self.peek();
            match t.kind {
                Tok::Eof => break,
                Tok::Dot => {
                    let s = self.text(t);
                    match s {
                        ".version" => {
                            self.bump();
                            let v = self.peek();
                            if matches!(v.kind, Tok::Float | Tok::Int) {
                                self.bump();
                                let txt = self.text(v);
                                let (a, b) = txt.split_once('.').unwrap_or((txt, "0"));
                                match (a.parse(), b.parse()) {
                                    (Ok(major), Ok(minor)) => {
                                        m.version = Some(Version { major, minor })
                                    }
                                    _ => self.error_at(v, "malformed .version".into()),
                                }
                            } else {
                                let d = self.describe(v);
                                self.error_at(v, format!("expected a version number, found {d}"));
                            }
                        }
                        ".target" => {
                            self.bump();
                            loop {
                                let t = self.peek();
                                if t.kind != Tok::Ident {
                                    let d = self.describe(t);
                                    self.error_at(t, format!("expected a target name, found {d}"));
                                    break;
                                }
                                self.bump();
                                m.target.push(self.text(t));
                                if !self.eat(Tok::Comma) {
                                    break;
                                }
                            }
                        }
                        ".address_size" => {
                            self.bump();
                            if let Ok(v) = self.expect_u32("an address size") {
                                m.address_size = Some(v);
                            }
                        }
                        ".file" | ".loc" => {
                            self.bump();
                            let text = self.raw_line(t.start);
                            let loc = self.loc(t.start);
                            m.items
                                .push(Directive::Debug(RawDirective { name: s, text, loc }));
                        }
                        ".section" => {
                            let loc = self.loc(t.start);
                            match self.raw_section(t) {
                                Ok(text) => m.items.push(Directive::Debug(RawDirective {
                                    name: s,
                                    text,
                                    loc,
                                })),
                                Err(()) => self.module_invalid(&mut m, t, None),
                            }
                        }
                        ".pragma" => {
                            self.bump();
                            let loc = self.loc(t.start);
                            match self.pragma_strings() {
                                Ok(strings) => {
                                    m.items.push(Directive::Pragma(Pragma { strings, loc }))
                                }
                                Err(()) => self.module_invalid(&mut m, t, None),
                            }
                        }
                        ".alias" => {
                            self.bump();
                            let loc = self.loc(t.start);
                            let r = (|| -> PResult<(&'a str, &'a str)> {
                                let a = self.expect_ident("an alias name")?;
                                self.expect(Tok::Comma, "`,`")?;
                                let b = self.expect_ident("the aliased function")?;
                                self.expect(Tok::Semi, "`;`")?;
                                Ok((a, b))
                            })();
                            match r {
                                Ok((alias, aliasee)) => {
                                    self.module_syms.insert(alias, SymKind::Func);
                                    m.items.push(Directive::Alias {
                                        alias,
                                        aliasee,
                                        loc,
                                    })
                                }
                                Err(()) => self.module_invalid(&mut m, t, None),
                            }
                        }
                        _ => {
                            let d = self.module_decl(t);
                            m.items.push(d);
                        }
                    }
                }
                Tok::AtAt => {
                    self.bump();
                    let text = self.raw_line(t.start);
                    let loc = self.loc(t.start);
                    m.items.push(Directive::Debug(RawDirective {
                        name: self.text(t),
                        text,
                        loc,
                    }));
                }
                Tok::RBrace => {
                    self.bump();
                    self.error_at(t, "unbalanced `}` at module scope".into());
                }
                _ => {
                    let d = self.describe(t);
                    self.error_at(t, format!("expected a directive, found {d}"));
                    self.module_invalid(&mut m, t, None);
                }
            }
        }
        m
    }

    /// Record an invalid module-level construct starting at `start`, skipping to its end.
    fn module_invalid(&mut self, m: &mut Module<'a>, start: Token, name: Option<&'a str>) {
        let reasons = std::mem::take(&mut self.fn_errors);
        self.skip_module_statement(start);
        let loc = self.loc(start.start);
        let end = self.prev_end.max(start.end) as usize;
        m.items.push(Directive::Invalid(InvalidDirective {
            kind: None,
            name,
            reasons,
            text: &self.src[start.start as usize..end],
            loc,
        }));
    }

    /// Skip to after the next `;` at brace depth 0 (or a balanced `{...}`), stopping before a
    /// module-level directive.
    fn skip_module_statement(&mut self, start: Token) {
        let mut depth = 0u32;
        loop {
            let t = self.peek();
            match t.kind {
                Tok::Eof => return,
                Tok::Semi if depth == 0 => {
                    self.bump();
                    return;
                }
                Tok::LBrace => depth += 1,
                Tok::RBrace => {
                    if depth == 0 {
                        return;
                    }
                    depth -= 1;
                    if depth == 0 {
                        self.bump();
                        return;
                    }
                }
                Tok::Dot if t.start != start.start && is_module_sync(self.text(t)) => {
                    return;
                }
                _ => {}
            }
            self.bump();
        }
    }

    fn raw_section(&mut self, start: Token) -> PResult<&'a str> {
        self.bump();
        self.expect(Tok::Dot, "a section name")?;
        let open = self.expect(Tok::LBrace, "`{`")?;
        let mut depth = 1;
        loop {
            let t = self.bump();
            match t.kind {
                Tok::Eof => {
                    self.error_at(open, "unclosed `{` in .section".into());
                    return Err(());
                }
                Tok::LBrace => depth += 1,
                Tok::RBrace => {
                    depth -= 1;
                    if depth == 0 {
                        return Ok(&self.src[start.start as usize..t.end as usize]);
                    }
                }
                _ => {}
            }
        }
    }

    fn pragma_strings(&mut self) -> PResult<Vec<&'a str>> {
        let mut v = Vec::new();
        loop {
            let t = self.expect(Tok::Str, "a string")?;
            v.push(self.text(t));
            if !self.eat(Tok::Comma) {
                break;
            }
        }
        self.expect(Tok::Semi, "`;`")?;
        Ok(v)
    }

    /// A module-level variable or function (with optional linkage).
    fn module_decl(&mut self, start: Token) -> Directive<'a> {
        let mut linkage = None;
        let t = self.peek();
        let s = self.text(t);
        let lk = match s {
            ".extern" => Some(Linkage::Extern),
            ".visible" => Some(Linkage::Visible),
            ".weak" => Some(Linkage::Weak),
            ".common" => Some(Linkage::Common),
            _ => None,
        };
        if lk.is_some() {
            self.bump();
            linkage = lk;
        }
        let t = self.peek();
        let s = if t.kind == Tok::Dot { self.text(t) } else { "" };
        match s {
            ".entry" | ".func" => self.function(start, linkage),
            _ if StateSpace::from_name(s).is_some() => {
                if let Ok(v) = self.var_decl(linkage, false) {
                    if self.eat(Tok::Semi) {
                        for d in &v.decls {
                            self.module_syms.insert(d.name, SymKind::Var);
                        }
                        return Directive::Variable(v);
                    }
                    let t = self.peek();
                    let d = self.describe(t);
                    self.error_at(t, format!("expected `;`, found {d}"));
                }
                let mut m = Module::default();
                self.module_invalid(&mut m, start, None);
                m.items.pop().unwrap()
            }
            _ => {
                let d = self.describe(t);
                self.error_at(t, format!("unknown or misplaced directive {d}"));
                let mut m = Module::default();
                self.module_invalid(&mut m, start, None);
                m.items.pop().unwrap()
            }
        }
    }

    // ----- declarations ------------------------------------------------------------------------

    /// `space {attrs} type [.ptr ...] declarator {, declarator}` (no `;`). With `single`, only one
    /// declarator (parameters).
    fn var_decl(&mut self, linkage: Option<Linkage>, single: bool) -> PResult<VarDecl<'a>> {
        let st = self.bump();
        let loc = self.loc(st.start);
        let Some(space) = StateSpace::from_name(self.text(st)) else {
            let d = self.describe(st);
            self.error_at(st, format!("expected a state space, found {d}"));
            return Err(());
        };
        let mut v = VarDecl {
            linkage,
            space,
            attribute: None,
            align: None,
            vector: None,
            ty: Type::B8,
            ptr: None,
            decls: Vec::new(),
            loc,
        };
        loop {
            let t = self.peek();
            if t.kind != Tok::Dot {
                let d = self.describe(t);
                self.error_at(t, format!("expected a type, found {d}"));
                return Err(());
            }
            self.bump();
            let s = self.text(t);
            match s {
                ".align" => v.align = Some(self.expect_u32("an alignment")?),
                ".v2" => v.vector = Some(2),
                ".v4" => v.vector = Some(4),
                ".v8" => v.vector = Some(8),
                ".attribute" => {
                    let open = self.expect(Tok::LParen, "`(`")?;
                    let mut depth = 1;
                    let close = loop {
                        let t = self.bump();
                        match t.kind {
                            Tok::LParen => depth += 1,
                            Tok::RParen => {
                                depth -= 1;
                                if depth == 0 {
                                    break t;
                                }
                            }
                            Tok::Eof | Tok::Semi => {
                                self.error_at(open, "unclosed `(` in .attribute".into());
                                return Err(());
                            }
                            _ => {}
                        }
                    };
                    v.attribute = Some(&self.src[open.end as usize..close.start as usize]);
                }
                _ => match Type::from_name(s) {
                    Some(ty) => {
                        v.ty = ty;
                        break;
                    }
                    None => {
                        self.error_at(t, format!("unknown type or attribute `{s}`"));
                        return Err(());
                    }
                },
            }
        }
        // `.ptr [.space] [.align N]` on kernel parameters.
        let pk = self.peek();
        if pk.kind == Tok::Dot && self.text(pk) == ".ptr" {
            self.bump();
            let mut p = PtrAttr {
                space: None,
                align: None,
            };
            loop {
                let t = self.peek();
                if t.kind != Tok::Dot {
                    break;
                }
                let s = self.text(t);
                if s == ".align" {
                    self.bump();
                    p.align = Some(self.expect_u32("an alignment")?);
                } else if let Some(sp) = StateSpace::from_name(s) {
                    self.bump();
                    p.space = Some(sp);
                } else {
                    break;
                }
            }
            v.ptr = Some(p);
        }
        loop {
            let t = self.peek();
            let name = match t.kind {
                Tok::Ident | Tok::Underscore => {
                    self.bump();
                    self.text(t)
                }
                _ => {
                    let d = self.describe(t);
                    self.error_at(t, format!("expected a variable name, found {d}"));
                    return Err(());
                }
            };
            let mut d = Declarator {
                name,
                range: None,
                array: Vec::new(),
                init: None,
            };
            if self.eat(Tok::Lt) {
                d.range = Some(self.expect_u32("a register count")?);
                self.expect(Tok::Gt, "`>`")?;
            }
            while self.eat(Tok::LBracket) {
                if self.eat(Tok::RBracket) {
                    d.array.push(None);
                } else {
                    d.array.push(Some(self.expect_u64("an array size")?));
                    self.expect(Tok::RBracket, "`]`")?;
                }
            }
            if self.eat(Tok::Eq) {
                d.init = Some(self.init()?);
            }
            v.decls.push(d);
            if single || !self.eat(Tok::Comma) {
                break;
            }
        }
        Ok(v)
    }

    fn init(&mut self) -> PResult<Init<'a>> {
        let t = self.peek();
        match t.kind {
            Tok::LBrace => self.nested(t, "initializer list", |p| {
                p.bump();
                let mut v = Vec::new();
                if !p.eat(Tok::RBrace) {
                    loop {
                        v.push(p.init()?);
                        if p.eat(Tok::Comma) {
                            continue;
                        }
                        p.expect(Tok::RBrace, "`,` or `}`")?;
                        break;
                    }
                }
                Ok(Init::List(v))
            }),
            Tok::Ident if self.lx.peek2().kind == Tok::Eq => {
                self.bump();
                self.bump();
                let v = self.peek();
                if !matches!(v.kind, Tok::Ident | Tok::Int) {
                    let d = self.describe(v);
                    self.error_at(v, format!("expected a field value, found {d}"));
                    return Err(());
                }
                self.bump();
                Ok(Init::Field {
                    name: self.text(t),
                    value: self.text(v),
                })
            }
            Tok::Ident => {
                self.bump();
                let mut name = self.text(t);
                let mut generic = false;
                if name == "generic" && self.peek().kind == Tok::LParen {
                    self.bump();
                    name = self.expect_ident("a symbol")?;
                    self.expect(Tok::RParen, "`)`")?;
                    generic = true;
                }
                let offset = self.opt_offset()?;
                Ok(Init::Symbol {
                    name,
                    generic,
                    offset,
                })
            }
            _ => Ok(Init::Imm(self.imm()?.0)),
        }
    }

    /// Optional `+N` / `-N` / `+-N`.
    fn opt_offset(&mut self) -> PResult<i64> {
        let neg = match self.peek().kind {
            Tok::Plus => false,
            Tok::Minus => true,
            _ => return Ok(0),
        };
        self.bump();
        let (_, value) = self.imm()?;
        let v = match value {
            ImmValue::Int(v) => v,
            ImmValue::UInt(v) => v as i64,
            _ => {
                let t = self.peek();
                self.error_at(t, "expected an integer offset".into());
                return Err(());
            }
        };
        Ok(if neg { v.wrapping_neg() } else { v })
    }

    /// A literal and its value.
    fn imm(&mut self) -> PResult<(Imm<'a>, ImmValue)> {
        let first = self.peek();
        let neg = if first.kind == Tok::Minus {
            self.bump();
            true
        } else {
            false
        };
        let t = self.peek();
        if !matches!(t.kind, Tok::Int | Tok::F32Hex | Tok::F64Hex | Tok::Float) {
            let d = self.describe(t);
            self.error_at(t, format!("expected a number, found {d}"));
            return Err(());
        }
        let value = match imm_value(t.kind, self.text(t), neg) {
            Ok(v) => v,
            Err(msg) => {
                self.error_at(t, msg);
                return Err(());
            }
        };
        self.bump();
        Ok((
            Imm::from_valid(&self.src[first.start as usize..t.end as usize]),
            value,
        ))
    }

    // ----- functions ---------------------------------------------------------------------------

    fn function(&mut self, start: Token, linkage: Option<Linkage>) -> Directive<'a> {
        let kw = self.bump();
        let loc = self.loc(start.start);
        let kind = if self.text(kw) == ".entry" {
            FunctionKind::Entry
        } else {
            FunctionKind::Func
        };
        self.fn_errors.clear();
        self.cur_fn = None;
        self.scope.clear();
        self.labels.clear();
        self.unresolved.clear();
        let r = self.function_inner(kind, linkage, loc);
        let name = self.cur_fn.take();
        match r {
            Ok(f) if self.fn_errors.is_empty() => Directive::Function(f),
            r => {
                if r.is_err() {
                    // Skip the rest of the header and any body.
                    self.skip_function_rest(start);
                }
                let reasons = std::mem::take(&mut self.fn_errors);
                let end = self.prev_end.max(start.end) as usize;
                Directive::Invalid(InvalidDirective {
                    kind: Some(kind),
                    name,
                    reasons,
                    text: &self.src[start.start as usize..end],
                    loc,
                })
            }
        }
    }

    fn skip_function_rest(&mut self, start: Token) {
        loop {
            let t = self.peek();
            match t.kind {
                Tok::Eof => return,
                Tok::Semi => {
                    self.bump();
                    return;
                }
                Tok::LBrace => {
                    let open = self.bump();
                    self.block_body(open);
                    return;
                }
                Tok::Dot if t.start != start.start && is_module_sync(self.text(t)) => return,
                _ => {
                    self.bump();
                }
            }
        }
    }

    fn function_inner(
        &mut self,
        kind: FunctionKind,
        linkage: Option<Linkage>,
        loc: Loc,
    ) -> PResult<Function<'a>> {
        let mut returns = Vec::new();
        if kind == FunctionKind::Func && self.peek().kind == Tok::LParen {
            returns = self.param_list()?;
        }
        let name = self.expect_ident("a function name")?;
        self.cur_fn = Some(name);
        self.module_syms.insert(name, SymKind::Func);
        let mut params = Vec::new();
        if self.peek().kind == Tok::LParen {
            params = self.param_list()?;
        }
        for p in returns.iter().chain(params.iter()) {
            for d in &p.decls {
                self.push_scope(d.name, 0, p.space == StateSpace::Reg);
            }
        }
        let mut attrs = Vec::new();
        loop {
            let t = self.peek();
            if t.kind != Tok::Dot || !is_func_attr(self.text(t)) {
                break;
            }
            self.bump();
            let name = self.text(t);
            let mut a = FuncAttr {
                name,
                args: Vec::new(),
                strings: Vec::new(),
            };
            if name == ".pragma" {
                a.strings = self.pragma_strings()?;
            } else if self.peek().kind == Tok::Int {
                loop {
                    a.args.push(self.expect_u64("an integer")?);
                    if !self.eat(Tok::Comma) {
                        break;
                    }
                }
            }
            attrs.push(a);
        }
        let t = self.peek();
        let body = match t.kind {
            Tok::Semi => {
                self.bump();
                None
            }
            Tok::LBrace => {
                let open = self.bump();
                let loc = self.loc(open.start);
                // The body's statements are pushed straight into their final vector (nested
                // blocks are split off its tail), sized from the body's text so it rarely grows.
                let cap = self.body_capacity(open.end as usize);
                self.stmts = Vec::with_capacity(cap);
                let mut stmts = self.block_body(open);
                stmts.shrink_to_fit();
                let mut b = Block { stmts, loc };
                self.resolve_labels(&mut b);
                Some(b)
            }
            _ => {
                let d = self.describe(t);
                self.error_at(
                    t,
                    format!("expected `{{` or `;` after function header, found {d}"),
                );
                return Err(());
            }
        };
        Ok(Function {
            linkage,
            kind,
            returns,
            name,
            params,
            attrs,
            body,
            loc,
        })
    }

    fn param_list(&mut self) -> PResult<Vec<VarDecl<'a>>> {
        self.expect(Tok::LParen, "`(`")?;
        let mut v = Vec::new();
        if self.eat(Tok::RParen) {
            return Ok(v);
        }
        loop {
            let t = self.peek();
            if t.kind != Tok::Dot || StateSpace::from_name(self.text(t)).is_none() {
                let d = self.describe(t);
                self.error_at(t, format!("expected `.param` or `.reg`, found {d}"));
                return Err(());
            }
            v.push(self.var_decl(None, true)?);
            if self.eat(Tok::Comma) {
                continue;
            }
            self.expect(Tok::RParen, "`,` or `)`")?;
            return Ok(v);
        }
    }

    /// After the body: turn unresolved symbols that name labels into [`Operand::Label`], and
    /// report the ones that name nothing. Only the top-level statements that hold a forward
    /// reference to a label are visited (a `bra` to a later block, mostly), not the whole body.
    fn resolve_labels(&mut self, b: &mut Block<'a>) {
        if self.unresolved.is_empty() {
            return;
        }
        let labels: std::collections::HashSet<&'a str, BuildFx> =
            self.labels.iter().copied().collect();
        let unresolved = std::mem::take(&mut self.unresolved);
        let mut tops: Vec<u32> = Vec::new();
        for (t, top) in unresolved {
            let name = self.text(t);
            if labels.contains(name) {
                if tops.last() != Some(&top) {
                    tops.push(top);
                }
            } else if !self.module_syms.contains_key(name) {
                self.error_at(t, format!("undefined symbol `{name}`"));
            }
        }
        if !tops.is_empty() {
            fn walk<'a>(
                stmts: &mut [Statement<'a>],
                labels: &std::collections::HashSet<&'a str, BuildFx>,
            ) {
                for s in stmts {
                    match s {
                        Statement::Instruction(i) => {
                            for o in &mut i.operands {
                                fix(o, labels);
                            }
                        }
                        Statement::Block(b) => walk(&mut b.stmts, labels),
                        _ => {}
                    }
                }
            }
            fn fix<'a>(o: &mut Operand<'a>, labels: &std::collections::HashSet<&'a str, BuildFx>) {
                match o {
                    Operand::Symbol(n) if labels.contains(n.as_str()) => *o = Operand::Label(*n),
                    Operand::List(l) | Operand::Vector(l) => {
                        l.iter_mut().for_each(|o| fix(o, labels))
                    }
                    _ => {}
                }
            }
            // In source order already (statements are pushed in order), but a statement that
            // failed to parse may leave a reference behind: sort for the dedup.
            tops.sort_unstable();
            tops.dedup();
            for top in tops {
                if let Some(s) = b.stmts.get_mut(top as usize) {
                    walk(std::slice::from_mut(s), &labels);
                }
            }
        }
    }

    /// A capacity guess for the statements of a function body starting at byte `from`: one per
    /// 16 bytes up to the next line that starts a module-level directive (statements average
    /// 25-30 bytes; the vector is shrunk afterwards, and grows if the guess was short).
    fn body_capacity(&self, from: usize) -> usize {
        let rest = &self.src.as_bytes()[from.min(self.src.len())..];
        let mut end = rest.len();
        for p in memchr::memmem::find_iter(rest, b"\n.") {
            let word = &rest[p + 1..];
            let n = word
                .iter()
                .skip(1)
                .position(|c| !c.is_ascii_alphanumeric() && *c != b'_')
                .map_or(word.len(), |n| n + 1);
            if is_module_sync(std::str::from_utf8(&word[..n]).unwrap_or("")) {
                end = p;
                break;
            }
        }
        (end / 16).clamp(16, 1 << 20)
    }

    /// Statements up to the matching `}` (consumed). They are collected on the shared
    /// `self.stmts` stack and moved into an exactly sized vector at the end, so a body costs one
    /// allocation and no regrowth.
    fn block_body(&mut self, open: Token) -> Vec<Statement<'a>> {
        let first = self.stmts.len();
        let mark = self.scope.len();
        self.block_depth += 1;
        if self.block_depth == 2 {
            self.nest_first = first as u32;
        }
        loop {
            let t = self.peek();
            match t.kind {
                Tok::RBrace => {
                    self.bump();
                    break;
                }
                Tok::Eof => {
                    self.error_at(open, "unclosed `{` (end of file reached)".into());
                    break;
                }
                Tok::Dot if is_module_sync(self.text(t)) => {
                    let d = self.describe(t);
                    self.error_at(open, format!("unclosed `{{` (body ends at {d})"));
                    break;
                }
                Tok::Ident | Tok::At if self.fast_path && self.fast_statements(t.start) => {}
                _ => {
                    if self.statement().is_err() {
                        self.recover();
                    }
                }
            }
        }
        self.scope.truncate(mark);
        self.block_depth -= 1;
        if first == 0 {
            // A function body: the vector itself.
            std::mem::take(&mut self.stmts)
        } else {
            self.stmts.split_off(first)
        }
    }

    /// Skip to after the next `;`, or to before `{`, `}`, a module directive or end of file.
    fn recover(&mut self) {
        loop {
            let t = self.peek();
            match t.kind {
                Tok::Eof | Tok::LBrace | Tok::RBrace => return,
                Tok::Semi => {
                    self.bump();
                    return;
                }
                Tok::Dot if is_module_sync(self.text(t)) => return,
                _ => {
                    self.bump();
                }
            }
        }
    }

    fn statement(&mut self) -> PResult<()> {
        let t = self.peek();
        match t.kind {
            Tok::Ident => {
                if self.lx.peek2().kind == Tok::Colon {
                    self.bump();
                    self.bump();
                    let loc = self.loc(t.start);
                    let name = self.text(t);
                    self.labels.push(name);
                    self.stmts.push(Statement::Label(Label { name, loc }));
                    return Ok(());
                }
                self.instruction(None, t)?;
            }
            Tok::At => {
                self.bump();
                let negated = self.eat(Tok::Bang);
                let r = self.peek();
                let reg = self.expect_ident("a predicate register")?;
                self.check_declared(r, reg);
                self.instruction(
                    Some(Guard {
                        negated,
                        reg: reg.into(),
                    }),
                    t,
                )?;
            }
            Tok::LBrace => {
                let open = self.bump();
                if self.nesting >= MAX_NESTING {
                    self.error_at(
                        open,
                        format!("block nested deeper than {MAX_NESTING} levels"),
                    );
                    self.skip_balanced();
                    return Ok(());
                }
                let loc = self.loc(open.start);
                self.nesting += 1;
                let stmts = self.block_body(open);
                self.nesting -= 1;
                self.stmts.push(Statement::Block(Block { stmts, loc }));
            }
            Tok::Semi => {
                self.bump();
            }
            Tok::AtAt => {
                self.bump();
                let text = self.raw_line(t.start);
                let loc = self.loc(t.start);
                self.stmts.push(Statement::Debug(RawDirective {
                    name: self.text(t),
                    text,
                    loc,
                }));
            }
            Tok::Dot => {
                let s = self.text(t);
                match s {
                    ".loc" | ".file" => {
                        self.bump();
                        let text = self.raw_line(t.start);
                        let loc = self.loc(t.start);
                        self.stmts
                            .push(Statement::Debug(RawDirective { name: s, text, loc }));
                    }
                    ".pragma" => {
                        self.bump();
                        let loc = self.loc(t.start);
                        let strings = self.pragma_strings()?;
                        self.stmts.push(Statement::Pragma(Pragma { strings, loc }));
                    }
                    ".callprototype" => {
                        self.bump();
                        let loc = self.loc(t.start);
                        let mut returns = Vec::new();
                        if self.peek().kind == Tok::LParen {
                            returns = self.param_list()?;
                        }
                        self.expect(Tok::Underscore, "`_`")?;
                        let params = if self.peek().kind == Tok::LParen {
                            self.param_list()?
                        } else {
                            Vec::new()
                        };
                        let mut noreturn = false;
                        let pk = self.peek();
                        if pk.kind == Tok::Dot && self.text(pk) == ".noreturn" {
                            self.bump();
                            noreturn = true;
                        }
                        self.expect(Tok::Semi, "`;`")?;
                        self.stmts.push(Statement::CallPrototype(CallPrototype {
                            returns,
                            params,
                            noreturn,
                            loc,
                        }));
                    }
                    ".calltargets" | ".branchtargets" => {
                        self.bump();
                        let loc = self.loc(t.start);
                        let mut targets = Vec::new();
                        loop {
                            targets.push(self.expect_ident("a target name")?);
                            if !self.eat(Tok::Comma) {
                                break;
                            }
                        }
                        self.expect(Tok::Semi, "`;`")?;
                        let tl = TargetList { targets, loc };
                        self.stmts.push(if s == ".calltargets" {
                            Statement::CallTargets(tl)
                        } else {
                            Statement::BranchTargets(tl)
                        });
                    }
                    _ if StateSpace::from_name(s).is_some() || s == ".extern" => {
                        let linkage = if s == ".extern" {
                            self.bump();
                            Some(Linkage::Extern)
                        } else {
                            None
                        };
                        let v = self.var_decl(linkage, false)?;
                        self.expect(Tok::Semi, "`;`")?;
                        let is_reg = v.space == StateSpace::Reg;
                        for d in &v.decls {
                            self.push_scope(d.name, d.range.unwrap_or(0), is_reg);
                        }
                        self.stmts.push(Statement::Variable(v));
                    }
                    _ => {
                        self.error_at(t, format!("unknown directive `{s}` in function body"));
                        return Err(());
                    }
                }
            }
            _ => {
                let d = self.describe(t);
                self.error_at(t, format!("expected an instruction, found {d}"));
                return Err(());
            }
        }
        Ok(())
    }

    /// An instruction, pushed onto `self.stmts` (built in place: no copy of the large value).
    fn instruction(&mut self, guard: Option<Guard<'a>>, start: Token) -> PResult<()> {
        let ot = self.peek();
        if ot.kind != Tok::Ident {
            let d = self.describe(ot);
            self.error_at(ot, format!("expected an opcode, found {d}"));
            return Err(());
        }
        self.bump();
        let name = self.text(ot);
        let loc = self.loc(start.start);
        let mut end = ot.end;
        while self.peek().kind == Tok::Dot {
            end = self.bump().end;
        }
        let head = &self.src[ot.start as usize..end as usize];
        let modifiers = Modifiers::from_span(&self.src[ot.end as usize..end as usize]);
        let mut bad = false;
        let opcode = match self.heads.get(head) {
            Some(&op) => op,
            None => {
                let Some(opcode) = Opcode::from_name(name) else {
                    self.error_at(ot, format!("unknown opcode `{name}`"));
                    return Err(());
                };
                for m in modifiers.iter() {
                    if !self.table.allows(opcode, m) {
                        let off = m.as_ptr() as usize - self.src.as_ptr() as usize;
                        let t = Token {
                            kind: Tok::Dot,
                            start: off as u32,
                            end: (off + m.len()) as u32,
                        };
                        self.error_at(t, format!("unknown modifier `{m}` for `{name}`"));
                        bad = true;
                    }
                }
                if !bad {
                    self.heads.insert(head, opcode);
                }
                opcode
            }
        };
        let mut operands = Operands::new();
        if !self.eat(Tok::Semi) {
            loop {
                operands.push(self.operand()?);
                let t = self.peek();
                match t.kind {
                    Tok::Comma => {
                        self.bump();
                    }
                    Tok::Semi => {
                        self.bump();
                        break;
                    }
                    _ => {
                        let d = self.describe(t);
                        self.error_at(t, format!("expected `,` or `;` after operand, found {d}"));
                        return Err(());
                    }
                }
            }
        }
        if bad {
            return Err(());
        }
        self.stmts.push(Statement::Instruction(Instruction {
            guard,
            opcode,
            modifiers,
            operands,
            loc,
        }));
        Ok(())
    }

    /// An identifier operand, with adjacent `.x` / `.h0` / `.b1` suffixes merged into its text.
    #[inline]
    fn ident_text(&mut self, t: Token) -> &'a str {
        if self.peek().kind != Tok::Dot {
            return self.text(t);
        }
        let mut end = t.end;
        loop {
            let n = self.peek();
            if n.kind == Tok::Dot && n.start == end {
                self.bump();
                end = n.end;
            } else {
                break;
            }
        }
        &self.src[t.start as usize..end as usize]
    }

    /// Declare `name` in the innermost scope (`range`: `N` of `%r<N>`, else 0). A cached
    /// prefix answer that the new name could shadow (same register prefix) is dropped.
    fn push_scope(&mut self, name: &'a str, range: u32, is_reg: bool) {
        self.scope_id = self.scope_id.wrapping_add(1).max(1);
        let e = ScopeEntry::new(name, range, is_reg, self.scope_id);
        if e.ptag != 0 {
            let slot = &mut self.prefix_cache[prefix_slot(e.ptag)];
            if slot.ptag == e.ptag {
                slot.id = 0;
            }
        }
        self.scope.push(e);
    }

    /// The register-prefix cache's answer for `prefix` (with [`name_tag`] `ptag`) and number
    /// `n`: `Some(is_reg)` when a valid slot holds a range declaration of that prefix covering
    /// `n`, else `None` (ask [`Parser::lookup`]).
    #[inline(always)]
    fn prefix_cached(&self, ptag: u32, prefix: &str, n: u32) -> Option<bool> {
        let slot = &self.prefix_cache[prefix_slot(ptag)];
        (slot.id != 0
            && self.scope.get(slot.idx as usize).map(|e| e.id) == Some(slot.id)
            && slot.ptag == ptag
            && n < slot.range
            && (prefix.len() <= 3 || slot.prefix == prefix))
            .then_some(slot.is_reg)
    }

    /// Whether `name` is declared in the function's scope: `Some(true)` for a register,
    /// `Some(false)` for another local symbol (a parameter, `.local`/`.shared` variable).
    ///
    /// The scope is scanned innermost first. A register `%r<n>` found in a range declaration
    /// `%r<N>` is remembered per prefix when no declaration inside that one could answer for
    /// the same prefix (another range of it, or a plain name such as `%r7`): then every `%r<m>`,
    /// `m < N`, has the same answer until the scope changes, and the next ones cost one slot
    /// read instead of a scan.
    #[inline]
    fn lookup(&mut self, name: &'a str) -> Option<bool> {
        let (prefix, num) = split_digits(name);
        let tag = name_tag(name);
        // The prefix's tag from the name's: same leading bytes, its own length.
        let plen = prefix.len().min(3);
        let ptag = (tag & (u32::MAX >> (8 * (3 - plen)))) & !0xff | prefix.len().min(255) as u32;
        if let Some(n) = num {
            if let Some(is_reg) = self.prefix_cached(ptag, prefix, n) {
                return Some(is_reg);
            }
        }
        let mut clean = true;
        for (idx, e) in self.scope.iter().enumerate().rev() {
            if e.range > 0 {
                if let Some(n) = num {
                    if e.is(ptag, prefix) {
                        if n < e.range {
                            if clean {
                                self.prefix_cache[prefix_slot(ptag)] = PrefixSlot {
                                    id: e.id,
                                    idx: idx as u32,
                                    ptag,
                                    prefix,
                                    range: e.range,
                                    is_reg: e.is_reg,
                                };
                            }
                            return Some(e.is_reg);
                        }
                        clean = false;
                    }
                }
            } else {
                if e.is(tag, name) {
                    return Some(e.is_reg);
                }
                if e.ptag == ptag && (prefix.len() <= 3 || e.pname == prefix) {
                    clean = false;
                }
            }
        }
        None
    }

    fn check_declared(&mut self, t: Token, name: &'a str) {
        if self.lookup(name).is_none() && !self.module_syms.contains_key(name) {
            self.error_at(t, format!("undeclared register `{name}`"));
        }
    }

    fn classify(&mut self, t: Token, full: &'a str) -> Operand<'a> {
        match self.classify_name(t, full) {
            Some(op) => op,
            None => {
                let base = self.text(t);
                self.error_at(t, format!("undeclared register `{base}`"));
                Operand::Reg(full.into())
            }
        }
    }

    /// [`Parser::classify`] without the report: `None` for an undeclared `%` register.
    #[inline]
    fn classify_name(&mut self, t: Token, full: &'a str) -> Option<Operand<'a>> {
        // `t` is the identifier token, `full` it plus any `.x` suffixes: the base is the token.
        let base = self.text(t);
        if let Some(is_reg) = self.lookup(base) {
            return Some(if is_reg {
                Operand::Reg(full.into())
            } else {
                Operand::Symbol(full.into())
            });
        }
        if is_special_register(base) {
            return Some(Operand::SpecialReg(full.into()));
        }
        match self.module_syms.get(base) {
            Some(SymKind::Func) => Some(Operand::Func(full.into())),
            Some(SymKind::Var) => Some(Operand::Symbol(full.into())),
            None => {
                if base.starts_with('%') {
                    None
                } else {
                    let top = if self.block_depth > 1 {
                        self.nest_first
                    } else {
                        self.stmts.len() as u32
                    };
                    self.unresolved.push((t, top));
                    Some(Operand::Symbol(full.into()))
                }
            }
        }
    }

    fn operand(&mut self) -> PResult<Operand<'a>> {
        let t = self.peek();
        match t.kind {
            Tok::Ident => {
                self.bump();
                let full = self.ident_text(t);
                if self.peek().kind == Tok::Pipe {
                    self.bump();
                    let q = self.peek();
                    let second = match q.kind {
                        Tok::Ident => {
                            self.bump();
                            self.check_declared(q, self.text(q));
                            self.text(q)
                        }
                        Tok::Underscore => {
                            self.bump();
                            "_"
                        }
                        _ => {
                            let d = self.describe(q);
                            self.error_at(q, format!("expected a predicate after `|`, found {d}"));
                            return Err(());
                        }
                    };
                    if full != "_" {
                        self.check_declared(t, full);
                    }
                    return Ok(Operand::Pair(Box::new((full, second))));
                }
                Ok(self.classify(t, full))
            }
            Tok::Underscore => {
                self.bump();
                if self.peek().kind == Tok::Pipe {
                    self.bump();
                    let q = self.expect_ident("a predicate")?;
                    return Ok(Operand::Pair(Box::new(("_", q))));
                }
                Ok(Operand::Sink)
            }
            Tok::Bang => {
                self.bump();
                let r = self.peek();
                let n = self.expect_ident("a predicate")?;
                self.check_declared(r, n);
                Ok(Operand::Not(n.into()))
            }
            Tok::Minus if self.lx.peek2().kind == Tok::Ident => {
                // `-%r1.b0`: a negated register (the `vmad` sources, §9.7.18.1).
                self.bump();
                let r = self.peek();
                self.bump();
                let full = self.ident_text(r);
                self.check_declared(r, self.text(r));
                Ok(Operand::Neg(full.into()))
            }
            Tok::Minus | Tok::Int | Tok::Float | Tok::F32Hex | Tok::F64Hex => {
                Ok(Operand::Imm(self.imm()?.0))
            }
            Tok::LBrace => self.nested(t, "vector operand", |p| {
                p.bump();
                let mut v = VectorOperands::new();
                loop {
                    v.push(p.operand()?);
                    if p.eat(Tok::Comma) {
                        continue;
                    }
                    p.expect(Tok::RBrace, "`,` or `}`")?;
                    break;
                }
                Ok(Operand::Vector(Box::new(v)))
            }),
            Tok::LParen => self.nested(t, "operand list", |p| {
                p.bump();
                let mut v = VectorOperands::new();
                if !p.eat(Tok::RParen) {
                    loop {
                        v.push(p.operand()?);
                        if p.eat(Tok::Comma) {
                            continue;
                        }
                        p.expect(Tok::RParen, "`,` or `)`")?;
                        break;
                    }
                }
                Ok(Operand::List(Box::new(v)))
            }),
            Tok::LBracket => self.nested(t, "address operand", |p| {
                p.bump();
                let a = p.address()?;
                Ok(Operand::Address(Box::new(a)))
            }),
            _ => {
                let d = self.describe(t);
                self.error_at(t, format!("bad operand {d}"));
                Err(())
            }
        }
    }

    /// After `[`: the address and the closing `]`.
    fn address(&mut self) -> PResult<Address<'a>> {
        let t = self.peek();
        match t.kind {
            Tok::Ident => {
                self.bump();
                let full = self.ident_text(t);
                let op = self.classify(t, full);
                match self.peek().kind {
                    Tok::Comma => {
                        let mut v = vec![op];
                        while self.eat(Tok::Comma) {
                            v.push(self.operand()?);
                        }
                        self.expect(Tok::RBracket, "`]`")?;
                        Ok(Address::Tuple(v))
                    }
                    _ => {
                        let base = match op {
                            Operand::Reg(n) | Operand::SpecialReg(n) => AddrBase::Reg(n.as_str()),
                            Operand::Symbol(n) | Operand::Func(n) | Operand::Label(n) => {
                                AddrBase::Symbol(n.as_str())
                            }
                            _ => AddrBase::Symbol(full),
                        };
                        let offset = self.opt_offset()?;
                        self.expect(Tok::RBracket, "`+`, `-` or `]`")?;
                        Ok(Address::Offset {
                            base: Some(base),
                            offset,
                        })
                    }
                }
            }
            Tok::Int | Tok::Minus => {
                let (_, value) = self.imm()?;
                let offset = match value {
                    ImmValue::Int(v) => v,
                    ImmValue::UInt(v) => v as i64,
                    _ => {
                        self.error_at(t, "expected an integer address".into());
                        return Err(());
                    }
                };
                self.expect(Tok::RBracket, "`]`")?;
                Ok(Address::Offset { base: None, offset })
            }
            _ => {
                let d = self.describe(t);
                self.error_at(t, format!("bad address operand {d}"));
                Err(())
            }
        }
    }
}

/// 1-based line and byte column of byte offset `off` in `src` (a full scan; used for errors).
pub(crate) fn loc_of(src: &str, off: usize) -> Loc {
    let off = off.min(src.len());
    let before = &src.as_bytes()[..off];
    let line = before.iter().filter(|&&b| b == b'\n').count() as u32 + 1;
    let ls = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |p| p + 1);
    Loc {
        line,
        col: (off - ls + 1) as u32,
    }
}
