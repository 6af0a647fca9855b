//! PTX tokens (PTX ISA 9.x §4 "Syntax": §4.3 identifiers, §4.5 constants, §4.1 comments).
//!
//! The lexer is generic: every `.word` (directives, state spaces, types, instruction
//! modifiers such as `.shared::cluster` or `.L2::cache_hint`) is one [`Tok::Dot`] token and the
//! parser decides what it means. Tokens are byte ranges into the source; nothing is allocated.

use logos::Logos;

/// A token kind. The text is the source slice given by the token's span.
#[derive(Logos, Clone, Copy, Debug, PartialEq, Eq)]
#[logos(skip r"[ \t\r\n\f\v]+")]
#[logos(skip r"//[^\n]*")]
#[logos(skip r"/\*[^*]*\*+([^*/][^*]*\*+)*/")]
pub enum Tok {
    /// Identifier: `[a-zA-Z][a-zA-Z0-9_$]*` or `[_$%][a-zA-Z0-9_$]+` (§4.3).
    #[regex(r"[A-Za-z][A-Za-z0-9_$]*|[_$%][A-Za-z0-9_$]+")]
    Ident,
    /// A dot word: directive, type, state space or modifier (`.b32`, `.shared::cta`, `.2d`).
    #[regex(r"\.[A-Za-z0-9_$]+(::[A-Za-z0-9_$]+)*")]
    Dot,
    /// Integer literal: decimal, octal (leading 0), `0x` hex, `0b` binary, optional `U` (§4.5.1).
    #[regex(r"[0-9]+U?|0[xX][0-9a-fA-F]+U?|0[bB][01]+U?")]
    Int,
    /// `0fXXXXXXXX` single-precision bit pattern (§4.5.2).
    #[regex(r"0[fF][0-9a-fA-F]{8}")]
    F32Hex,
    /// `0dXXXXXXXXXXXXXXXX` double-precision bit pattern (§4.5.2).
    #[regex(r"0[dD][0-9a-fA-F]{16}")]
    F64Hex,
    /// Decimal floating-point literal.
    #[regex(r"[0-9]+\.[0-9]*([eE][+-]?[0-9]+)?|[0-9]+[eE][+-]?[0-9]+")]
    Float,
    /// String literal (for `.file`, `.pragma`, `.section` data).
    #[regex(r#""([^"\\\n]|\\.)*""#)]
    Str,
    /// `@@dwarf` line prefix of old debug output.
    #[regex(r"@@[A-Za-z]+")]
    AtAt,
    /// `,`
    #[token(",")]
    Comma,
    /// `;`
    #[token(";")]
    Semi,
    /// `:`
    #[token(":")]
    Colon,
    /// `(`
    #[token("(")]
    LParen,
    /// `)`
    #[token(")")]
    RParen,
    /// `[`
    #[token("[")]
    LBracket,
    /// `]`
    #[token("]")]
    RBracket,
    /// `{`
    #[token("{")]
    LBrace,
    /// `}`
    #[token("}")]
    RBrace,
    /// `<`
    #[token("<")]
    Lt,
    /// `>`
    #[token(">")]
    Gt,
    /// `+`
    #[token("+")]
    Plus,
    /// `-`
    #[token("-")]
    Minus,
    /// `!`
    #[token("!")]
    Bang,
    /// `|`
    #[token("|")]
    Pipe,
    /// `@`
    #[token("@")]
    At,
    /// `=`
    #[token("=")]
    Eq,
    /// `_` (sink / placeholder name)
    #[token("_")]
    Underscore,
    /// Other operator characters (`* / % & ^ ~ ?`), only valid in constant expressions.
    #[regex(r"[*/&^~?]")]
    Op,
    /// A character that starts no token, or an unterminated comment/string.
    Error,
    /// End of input.
    Eof,
}

/// A token: kind plus byte span and the line it starts on.
#[derive(Clone, Copy, Debug)]
pub struct Token {
    /// The kind.
    pub kind: Tok,
    /// Start byte offset.
    pub start: u32,
    /// End byte offset (exclusive).
    pub end: u32,
    /// 1-based line number of `start` (counted by the lexer as it skips newlines, so a
    /// position costs nothing extra).
    pub line: u32,
}

/// Byte classes for the hand-written fast path: identifier characters `[A-Za-z0-9_$]`.
const ID: u8 = 1;
/// `[A-Za-z]`: starts an identifier on its own.
const ALPHA: u8 = 2;
/// `[0-9]`.
const DIGIT: u8 = 4;

static CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut c = 0;
    while c < 256 {
        let b = c as u8;
        if b.is_ascii_alphabetic() {
            t[c] = ID | ALPHA;
        } else if b.is_ascii_digit() {
            t[c] = ID | DIGIT;
        } else if b == b'_' || b == b'$' {
            t[c] = ID;
        }
        c += 1;
    }
    t
};

/// A streaming token source with two tokens of lookahead.
///
/// The token language is defined by the `logos` DFA of [`Tok`]. The most frequent tokens
/// (whitespace, `//` comments, identifiers, dot words, plain decimal integers, punctuation) are
/// recognised by a byte-table fast path that produces exactly the tokens `logos` would (checked
/// by `tests/ptx_lexer.rs` and by the `ptx_parse` fuzz target against `Tok::lexer`); anything
/// else (`/* */` comments, strings, floats, hex literals, `@@`, errors, non-ASCII) is handed to
/// `logos` from the same position. The next token is always lexed already, so [`Lexer::peek`] is
/// a plain read; the one after it is lexed only when [`Lexer::peek2`] asks for it.
pub struct Lexer<'a> {
    src: &'a [u8],
    inner: logos::Lexer<'a, Tok>,
    /// Scan position: the end of the last token lexed.
    pos: usize,
    /// 1-based line number at `pos`.
    line: u32,
    cur: Token,
    next: Option<Token>,
}

impl<'a> Lexer<'a> {
    /// Start lexing `src` (at most 4 GiB; the parser checks).
    pub fn new(src: &'a str) -> Self {
        let mut lx = Lexer {
            src: src.as_bytes(),
            inner: Tok::lexer(src),
            pos: 0,
            line: 1,
            cur: Token {
                kind: Tok::Eof,
                start: 0,
                end: 0,
                line: 1,
            },
            next: None,
        };
        lx.cur = lx.raw();
        lx
    }

    #[inline(always)]
    fn tok(&mut self, kind: Tok, start: usize, end: usize) -> Token {
        self.pos = end;
        Token {
            kind,
            start: start as u32,
            end: end as u32,
            line: self.line,
        }
    }

    #[inline(always)]
    fn scan_id(&self, mut i: usize) -> usize {
        let b = self.src;
        while i < b.len() && CLASS[b[i] as usize] & ID != 0 {
            i += 1;
        }
        i
    }

    #[inline]
    fn raw(&mut self) -> Token {
        let b = self.src;
        let mut i = self.pos;
        // Whitespace and `//` comments.
        let c = loop {
            let Some(&c) = b.get(i) else {
                return self.tok(Tok::Eof, b.len(), b.len());
            };
            match c {
                b' ' | b'\t' | b'\r' | 0x0b | 0x0c => i += 1,
                b'\n' => {
                    i += 1;
                    self.line += 1;
                }
                b'/' if b.get(i + 1) == Some(&b'/') => {
                    i = memchr::memchr(b'\n', &b[i..]).map_or(b.len(), |e| i + e);
                }
                _ => break c,
            }
        };
        let next_id = |j: usize| b.get(j).is_some_and(|&x| CLASS[x as usize] & ID != 0);
        let cls = CLASS[c as usize];
        if cls & ALPHA != 0 {
            let e = self.scan_id(i + 1);
            return self.tok(Tok::Ident, i, e);
        }
        let single = match c {
            b'%' | b'$' if next_id(i + 1) => {
                let e = self.scan_id(i + 2);
                return self.tok(Tok::Ident, i, e);
            }
            b'_' => {
                if next_id(i + 1) {
                    let e = self.scan_id(i + 2);
                    return self.tok(Tok::Ident, i, e);
                }
                Tok::Underscore
            }
            b'.' if next_id(i + 1) => {
                let mut e = self.scan_id(i + 2);
                while b.get(e) == Some(&b':') && b.get(e + 1) == Some(&b':') && next_id(e + 2) {
                    e = self.scan_id(e + 3);
                }
                return self.tok(Tok::Dot, i, e);
            }
            b'0'..=b'9' => {
                let mut e = i + 1;
                while e < b.len() && CLASS[b[e] as usize] & DIGIT != 0 {
                    e += 1;
                }
                // Anything that could extend the literal (`U`, `0x`, `0f`, `1.5`, `1e3`, ...)
                // goes to logos.
                if !matches!(
                    b.get(e),
                    Some(b'.' | b'e' | b'E' | b'U' | b'x' | b'X' | b'b' | b'B')
                        | Some(b'f' | b'F' | b'd' | b'D')
                ) {
                    return self.tok(Tok::Int, i, e);
                }
                return self.slow(i);
            }
            b',' => Tok::Comma,
            b';' => Tok::Semi,
            b':' => Tok::Colon,
            b'(' => Tok::LParen,
            b')' => Tok::RParen,
            b'[' => Tok::LBracket,
            b']' => Tok::RBracket,
            b'{' => Tok::LBrace,
            b'}' => Tok::RBrace,
            b'<' => Tok::Lt,
            b'>' => Tok::Gt,
            b'+' => Tok::Plus,
            b'-' => Tok::Minus,
            b'!' => Tok::Bang,
            b'|' => Tok::Pipe,
            b'=' => Tok::Eq,
            b'@' if b.get(i + 1) != Some(&b'@') => Tok::At,
            b'*' | b'&' | b'^' | b'~' | b'?' => Tok::Op,
            _ => return self.slow(i),
        };
        self.tok(single, i, i + 1)
    }

    /// Hand the input from byte `i` (a character boundary) to `logos`.
    #[cold]
    #[inline(never)]
    fn slow(&mut self, i: usize) -> Token {
        let at = self.inner.span().end;
        debug_assert!(i >= at);
        self.inner.bump(i - at);
        let (kind, start, end) = match self.inner.next() {
            None => (Tok::Eof, self.src.len(), self.src.len()),
            Some(r) => {
                let sp = self.inner.span();
                (r.unwrap_or(Tok::Error), sp.start, sp.end)
            }
        };
        // Newlines that logos skipped (block comments) before the token, then inside it.
        let nl = |s: &[u8]| s.iter().filter(|&&x| x == b'\n').count() as u32;
        self.line += nl(&self.src[i..start]);
        let t = self.tok(kind, start, end);
        self.line += nl(&self.src[start..end]);
        t
    }

    /// The next token, without consuming it.
    #[inline]
    pub fn peek(&mut self) -> Token {
        self.cur
    }

    /// The token after the next one, without consuming anything.
    #[inline]
    pub fn peek2(&mut self) -> Token {
        match self.next {
            Some(t) => t,
            None => {
                let t = self.raw();
                self.next = Some(t);
                t
            }
        }
    }

    /// Consume and return the next token.
    #[inline]
    pub fn bump(&mut self) -> Token {
        let t = self.cur;
        self.cur = match self.next.take() {
            Some(n) => n,
            None => self.raw(),
        };
        t
    }
}
