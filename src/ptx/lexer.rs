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

/// A token: kind plus byte span.
#[derive(Clone, Copy, Debug)]
pub struct Token {
    /// The kind.
    pub kind: Tok,
    /// Start byte offset.
    pub start: u32,
    /// End byte offset (exclusive).
    pub end: u32,
}

/// Character classes for the hand-written scanner.
const C_OTHER: u8 = 0;
const C_WS: u8 = 1;
const C_ALPHA: u8 = 2; // A-Z a-z
const C_PREFIX: u8 = 3; // _ $ %
const C_DIGIT: u8 = 4;

const fn class_table() -> [u8; 256] {
    let mut t = [C_OTHER; 256];
    let mut i = 0;
    while i < 256 {
        let c = i as u8;
        t[i] = if c == b' ' || c == b'\t' || c == b'\r' || c == b'\n' || c == 0x0c || c == 0x0b {
            C_WS
        } else if c.is_ascii_alphabetic() {
            C_ALPHA
        } else if c == b'_' || c == b'$' || c == b'%' {
            C_PREFIX
        } else if c.is_ascii_digit() {
            C_DIGIT
        } else {
            C_OTHER
        };
        i += 1;
    }
    t
}
static CLASS: [u8; 256] = class_table();

const fn cont_table() -> [bool; 256] {
    let mut t = [false; 256];
    let mut i = 0;
    while i < 256 {
        let c = i as u8;
        t[i] = c.is_ascii_alphanumeric() || c == b'_' || c == b'$';
        i += 1;
    }
    t
}
static CONT: [bool; 256] = cont_table();

/// `[A-Za-z0-9_$]`
#[inline(always)]
fn is_cont(b: u8) -> bool {
    CONT[b as usize]
}

/// A streaming token source with two tokens of lookahead.
///
/// This is a hand-written scanner that produces exactly the tokens of the [`Tok`] `logos`
/// definition (the reference, see [`reference_tokens`]) on well-formed input, about twice as
/// fast. On malformed input both produce [`Tok::Error`] tokens, possibly of different lengths.
pub struct Lexer<'a> {
    src: &'a [u8],
    pos: usize,
    buf: [Token; 2],
    len: usize,
}

impl<'a> Lexer<'a> {
    /// Start lexing `src` (at most 4 GiB; the parser checks).
    pub fn new(src: &'a str) -> Self {
        Lexer {
            src: src.as_bytes(),
            pos: 0,
            buf: [Token {
                kind: Tok::Eof,
                start: 0,
                end: 0,
            }; 2],
            len: 0,
        }
    }

    #[inline]
    fn at(&self, i: usize) -> u8 {
        if i < self.src.len() {
            self.src[i]
        } else {
            0
        }
    }

    #[inline]
    fn scan_cont(&self, mut i: usize) -> usize {
        while i < self.src.len() && is_cont(self.src[i]) {
            i += 1;
        }
        i
    }

    fn number(&self, start: usize) -> (Tok, usize) {
        let b = self.src;
        let n = b.len();
        let hexn = |mut i: usize| {
            let s = i;
            while i < n && b[i].is_ascii_hexdigit() {
                i += 1;
            }
            i - s
        };
        let suffix = |i: usize| if i < n && b[i] == b'U' { i + 1 } else { i };
        if b[start] == b'0' {
            match self.at(start + 1) {
                b'f' | b'F' if hexn(start + 2) >= 8 => return (Tok::F32Hex, start + 10),
                b'd' | b'D' if hexn(start + 2) >= 16 => return (Tok::F64Hex, start + 18),
                b'x' | b'X' => {
                    let k = hexn(start + 2);
                    if k > 0 {
                        return (Tok::Int, suffix(start + 2 + k));
                    }
                }
                b'b' | b'B' => {
                    let mut i = start + 2;
                    while i < n && (b[i] == b'0' || b[i] == b'1') {
                        i += 1;
                    }
                    if i > start + 2 {
                        return (Tok::Int, suffix(i));
                    }
                }
                _ => {}
            }
        }
        let mut i = start;
        while i < n && b[i].is_ascii_digit() {
            i += 1;
        }
        let exponent = |i: usize| -> Option<usize> {
            if i < n && (b[i] == b'e' || b[i] == b'E') {
                let mut j = i + 1;
                if j < n && (b[j] == b'+' || b[j] == b'-') {
                    j += 1;
                }
                let s = j;
                while j < n && b[j].is_ascii_digit() {
                    j += 1;
                }
                if j > s {
                    return Some(j);
                }
            }
            None
        };
        if i < n && b[i] == b'.' {
            let mut j = i + 1;
            while j < n && b[j].is_ascii_digit() {
                j += 1;
            }
            return (Tok::Float, exponent(j).unwrap_or(j));
        }
        if let Some(j) = exponent(i) {
            return (Tok::Float, j);
        }
        (Tok::Int, suffix(i))
    }

    fn raw(&mut self) -> Token {
        let b = self.src;
        let n = b.len();
        let mut i = self.pos;
        // Skip whitespace and comments.
        loop {
            while i < n && CLASS[b[i] as usize] == C_WS {
                i += 1;
            }
            if i + 1 < n && b[i] == b'/' {
                if b[i + 1] == b'/' {
                    i += 2;
                    while i < n && b[i] != b'\n' {
                        i += 1;
                    }
                    continue;
                }
                if b[i + 1] == b'*' {
                    if let Some(e) = find2(&b[i + 2..], b'*', b'/') {
                        i = i + 2 + e + 2;
                        continue;
                    }
                }
            }
            break;
        }
        let start = i;
        if i >= n {
            self.pos = n;
            return Token {
                kind: Tok::Eof,
                start: n as u32,
                end: n as u32,
            };
        }
        let c = b[i];
        let (kind, end) = match CLASS[c as usize] {
            C_ALPHA => (Tok::Ident, self.scan_cont(i + 1)),
            C_PREFIX => {
                if i + 1 < n && is_cont(b[i + 1]) {
                    (Tok::Ident, self.scan_cont(i + 1))
                } else if c == b'_' {
                    (Tok::Underscore, i + 1)
                } else {
                    (Tok::Error, i + 1)
                }
            }
            C_DIGIT => self.number(i),
            _ => match c {
                b'.' => {
                    if i + 1 < n && is_cont(b[i + 1]) {
                        let mut j = self.scan_cont(i + 1);
                        while j + 2 < n && b[j] == b':' && b[j + 1] == b':' && is_cont(b[j + 2]) {
                            j = self.scan_cont(j + 2);
                        }
                        (Tok::Dot, j)
                    } else {
                        (Tok::Error, i + 1)
                    }
                }
                b',' => (Tok::Comma, i + 1),
                b';' => (Tok::Semi, i + 1),
                b':' => (Tok::Colon, i + 1),
                b'(' => (Tok::LParen, i + 1),
                b')' => (Tok::RParen, i + 1),
                b'[' => (Tok::LBracket, i + 1),
                b']' => (Tok::RBracket, i + 1),
                b'{' => (Tok::LBrace, i + 1),
                b'}' => (Tok::RBrace, i + 1),
                b'<' => (Tok::Lt, i + 1),
                b'>' => (Tok::Gt, i + 1),
                b'+' => (Tok::Plus, i + 1),
                b'-' => (Tok::Minus, i + 1),
                b'!' => (Tok::Bang, i + 1),
                b'|' => (Tok::Pipe, i + 1),
                b'=' => (Tok::Eq, i + 1),
                b'*' | b'/' | b'&' | b'^' | b'~' | b'?' => (Tok::Op, i + 1),
                b'@' => {
                    let mut j = i + 1;
                    if j < n && b[j] == b'@' {
                        j += 1;
                        let s = j;
                        while j < n && b[j].is_ascii_alphabetic() {
                            j += 1;
                        }
                        if j > s {
                            (Tok::AtAt, j)
                        } else {
                            (Tok::At, i + 1)
                        }
                    } else {
                        (Tok::At, i + 1)
                    }
                }
                b'"' => {
                    let mut j = i + 1;
                    loop {
                        if j >= n || b[j] == b'\n' {
                            break (Tok::Error, i + 1);
                        }
                        match b[j] {
                            b'"' => break (Tok::Str, j + 1),
                            b'\\' if j + 1 < n && b[j + 1] != b'\n' => j += 2,
                            _ => j += 1,
                        }
                    }
                }
                _ => {
                    // Skip a whole UTF-8 character so that spans stay on char boundaries.
                    let mut j = i + 1;
                    while j < n && (b[j] & 0xC0) == 0x80 {
                        j += 1;
                    }
                    (Tok::Error, j)
                }
            },
        };
        self.pos = end;
        Token {
            kind,
            start: start as u32,
            end: end as u32,
        }
    }

    /// The next token, without consuming it.
    #[inline]
    pub fn peek(&mut self) -> Token {
        if self.len == 0 {
            self.buf[0] = self.raw();
            self.len = 1;
        }
        self.buf[0]
    }

    /// The token after the next one, without consuming anything.
    #[inline]
    pub fn peek2(&mut self) -> Token {
        self.peek();
        if self.len == 1 {
            self.buf[1] = self.raw();
            self.len = 2;
        }
        self.buf[1]
    }

    /// Consume and return the next token.
    #[inline]
    pub fn bump(&mut self) -> Token {
        let t = self.peek();
        self.buf[0] = self.buf[1];
        self.len -= 1;
        t
    }
}

fn find2(hay: &[u8], a: u8, b: u8) -> Option<usize> {
    hay.windows(2).position(|w| w[0] == a && w[1] == b)
}

/// Tokens of `src` by the reference `logos` definition of [`Tok`] (kind, start, end), without
/// the final [`Tok::Eof`]. Used to cross-check the hand-written [`Lexer`].
pub fn reference_tokens(src: &str) -> Vec<Token> {
    let mut lx = Tok::lexer(src);
    let mut out = Vec::new();
    while let Some(r) = lx.next() {
        let sp = lx.span();
        out.push(Token {
            kind: r.unwrap_or(Tok::Error),
            start: sp.start as u32,
            end: sp.end as u32,
        });
    }
    out
}
