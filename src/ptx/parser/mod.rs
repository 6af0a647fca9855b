//! Recursive-descent parser over the streaming lexer (PTX ISA 9.x §4 syntax, §5 declarations,
//! §6 operands, §9 instructions, §11 directives).
//!
//! * this module: the parser state, the token helpers and the module level;
//! * `decls`: variable declarations and initializers;
//! * `function`: functions, blocks, statements and instructions (with the modifier checks);
//! * `operands`: name scopes and operands;
//! * `literals`: numeric literals;
//! * `fast`: the instruction fast path.
//!
//! Error recovery: an error inside a function body records a diagnostic, skips to the next `;`
//! (or block boundary) and keeps parsing, so that every error of the function is reported; the
//! function is then stored as [`Directive::Invalid`] with all reasons and its raw text. A body
//! that is not closed before the next module-level directive (`.entry`, `.func`, `.visible`, ...)
//! is closed there with an "unclosed `{`" error, so the following functions still parse.
//!
//! # Throughput
//!
//! Instruction statements of the common one-line shape are read by the fast path
//! (`parser/fast.rs`): a scanner directed by the grammar (after the opcode head come operands;
//! an operand starting with `%` is a name) instead of the `logos` token stream, with the
//! blanks, newlines and `//` comments between statements skipped in the same loop and line
//! numbers counted there; nearly every instruction of compiler-written PTX takes it, the rest
//! (and any statement with an error) go through the token path. Registers of the
//! `%<letters><digits>` shape are answered by the register-prefix cache in the same forward
//! scan, and forward label references are fixed up in the statements that hold them only.
//! An opcode head (`ld.global.nc.v4.u32`) is checked once per module, on the token path: its
//! modifiers against `src/ptx/modifiers.txt`, decoded ([`crate::ptx::mods`]) for conflicts
//! and, for the opcodes of [`crate::ptx::grammar::STRICT`], against the instruction forms of
//! `src/ptx/forms.txt`; the fast path only reads heads already checked that take any number
//! of operands (the heads of `min`/`max`, whose forms depend on it, stay on the token path).
//!
//! What limits the throughput is the size of the tree more than the scanning: every pass
//! writes the tree into fresh memory, so the nodes are compact (a `Name` is a `&str` in 12
//! bytes, an `Operand` 16 bytes, a `Statement` at most 96).

use std::collections::HashMap;

use super::ast::*;
use super::isa::{is_special_register, modifier_table, BuildFx, ModifierTable, Opcode};
use super::lexer::{Lexer, Tok, Token};
use super::{Diagnostic, Severity};

mod decls;
mod fast;
mod function;
mod literals;
mod operands;

pub(crate) use literals::decode_literal;
use literals::{decode_int, imm_value, split_digits};

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
    /// Instruction heads (`ld.global.nc.v4.u32`) already validated that take any number of
    /// operands (the fast path reads these).
    heads: HashMap<&'a str, Opcode, BuildFx>,
    /// Instruction heads already validated whose forms take only some numbers of operands,
    /// with those numbers ([`crate::ptx::grammar::Grammar::operand_counts`]; `min.abs.f32`):
    /// the general path checks each instruction of them.
    counted_heads: HashMap<&'a str, (Opcode, u32), BuildFx>,
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
            counted_heads: HashMap::default(),
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
        let loc = self.loc(t.start);
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

    /// A warning at `t` (the function stays valid).
    fn warn_at(&mut self, t: Token, msg: String) {
        let loc = self.loc(t.start);
        self.diags.push(Diagnostic {
            severity: Severity::Warning,
            file: self.file.clone(),
            line: loc.line,
            col: loc.col,
            message: msg,
            token: self.text(t).chars().take(80).collect(),
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
