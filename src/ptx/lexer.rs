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

/// A streaming token source with two tokens of lookahead, driven by the `logos` DFA.
///
/// (A hand-written byte-table scanner was tried and measured slower than `logos` on the corpus,
/// so `logos` is used directly.) The next token is always lexed already, so [`Lexer::peek`] is
/// a plain read; the one after it is lexed only when [`Lexer::peek2`] asks for it.
pub struct Lexer<'a> {
    inner: logos::Lexer<'a, Tok>,
    cur: Token,
    next: Option<Token>,
    eof: u32,
}

impl<'a> Lexer<'a> {
    /// Start lexing `src` (at most 4 GiB; the parser checks).
    pub fn new(src: &'a str) -> Self {
        let mut lx = Lexer {
            inner: Tok::lexer(src),
            cur: Token {
                kind: Tok::Eof,
                start: 0,
                end: 0,
            },
            next: None,
            eof: src.len() as u32,
        };
        lx.cur = lx.raw();
        lx
    }

    #[inline]
    fn raw(&mut self) -> Token {
        match self.inner.next() {
            None => Token {
                kind: Tok::Eof,
                start: self.eof,
                end: self.eof,
            },
            Some(r) => {
                let sp = self.inner.span();
                Token {
                    kind: r.unwrap_or(Tok::Error),
                    start: sp.start as u32,
                    end: sp.end as u32,
                }
            }
        }
    }

    /// Continue lexing `src` (the text this lexer was created with) at byte `at`, which must be
    /// a character boundary: both lookahead tokens are dropped and the next token is lexed from
    /// `at` (for the parser's instruction fast path, which reads a statement without tokens).
    pub fn reset(&mut self, src: &'a str, at: u32) {
        let mut inner = Tok::lexer(src);
        inner.bump(at as usize);
        self.inner = inner;
        self.next = None;
        self.cur = self.raw();
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
