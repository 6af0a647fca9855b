//! The PTX front end: lexer, parser, typed AST, printer and analysis for PTX ISA up to 9.x
//! (NVIDIA "Parallel Thread Execution ISA" 9.x; section numbers in the docs refer to it).
//!
//! * [`parse`] / [`parse_bytes`] turn PTX text into a [`Module`] plus [`Diagnostic`]s. Parsing
//!   never panics and never drops a function: a function with an error becomes a
//!   [`Directive::Invalid`] entry (name, position, reasons, raw text) and the rest of the module
//!   still parses.
//! * [`print()`] writes a module back as PTX; `parse(print(m)) == m` (positions excluded) and the
//!   output is accepted by `ptxas` for the module's `.target`.
//! * [`analysis`] lists, per kernel, the instruction forms used and which of them the lowering
//!   supports (`kernels-ir/supported-forms.txt`).
//! * [`cmd`] implements `wheelport ptx parse`.
//!
//! # Design
//!
//! The lexer ([`lexer`], `logos`) is generic: every `.word` is one token, so new modifiers need
//! no lexer change. The AST borrows every name from the source (`Module<'a>`), so parsing
//! allocates only the vectors of the tree. Instructions are `opcode + modifiers + operands`;
//! opcodes are an enum ([`Opcode`]) and modifiers are strings checked against the per-opcode
//! table in `src/ptx/modifiers.txt` ([`isa`]) and, for most arithmetic, comparison and logic
//! opcodes, against the instruction-form table `src/ptx/forms.txt` ([`grammar`], which also
//! drives the `ptxas` conformance suite, `docs/conformance.md`). Operands are typed ([`Operand`]): registers are
//! told apart from symbols by scope (so inline-asm registers such as `p` work), labels are
//! resolved when the function ends.
//!
//! Instruction statements of the common shape (`[@p] opcode.mods op, op, op;` on one line) are
//! read by a context-directed byte scanner in front of the token stream (the instruction fast
//! path, `parser/fast.rs`); anything else, and every statement with an error, goes through the
//! token-based parser, so the result is the same either way ([`ParseOptions::fast_path`]; checked
//! on the corpus by `tests/ptx_fast_path.rs` and by the `ptx_parse` fuzz target's differential
//! oracle).

pub mod analysis;
pub mod ast;
pub mod cmd;
pub mod grammar;
pub mod isa;
pub mod lexer;
pub mod mods;
mod parser;
mod printer;

use std::fmt;

pub use ast::*;
pub use isa::Opcode;
pub use printer::print;

/// How serious a diagnostic is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum Severity {
    /// The construct was not understood; the enclosing function is [`Directive::Invalid`].
    Error,
    /// Suspicious but parsed.
    Warning,
}

/// A parse diagnostic with a 1-based position.
///
/// `Display` gives `file:line:col: error: message`.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Diagnostic {
    /// Error or warning.
    pub severity: Severity,
    /// The file name given to [`parse`].
    pub file: String,
    /// 1-based line.
    pub line: u32,
    /// 1-based byte column.
    pub col: u32,
    /// What went wrong, e.g. "unknown opcode `foo`".
    pub message: String,
    /// The offending token's text (`<end of file>` at the end).
    pub token: String,
    /// The function the error occurred in, if any.
    pub function: Option<String>,
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sev = match self.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        write!(
            f,
            "{}:{}:{}: {}: {}",
            self.file, self.line, self.col, sev, self.message
        )?;
        if let Some(func) = &self.function {
            write!(f, " (in function `{func}`)")?;
        }
        Ok(())
    }
}

/// The result of [`parse`]: the module (always, even with errors) and the diagnostics.
#[derive(Clone, Debug)]
pub struct ParseOutput<'a> {
    /// The parsed module; functions with errors are [`Directive::Invalid`].
    pub module: Module<'a>,
    /// Diagnostics in source order.
    pub diagnostics: Vec<Diagnostic>,
    /// How many instruction statements the instruction fast path read (the rest went through
    /// the token-based parser); see [`ParseOptions::fast_path`].
    pub fast_path_instructions: usize,
}

impl ParseOutput<'_> {
    /// Number of [`Severity::Error`] diagnostics.
    pub fn error_count(&self) -> usize {
        self.diagnostics
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .count()
    }
}

/// Options of [`parse_with`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParseOptions {
    /// Read instruction statements of the common shape with the context-directed byte scanner
    /// (the parser's instruction fast path) instead of the token stream. On by default; the
    /// result is the same either way (the fast path hands every statement it does not fully
    /// understand to the token-based parser), so turning it off is only useful to cross-check
    /// the two (tests/ptx_fast_path.rs) or to measure the difference (benches/ptx_parse.rs).
    pub fast_path: bool,
}

impl Default for ParseOptions {
    fn default() -> Self {
        ParseOptions { fast_path: true }
    }
}

/// Parse PTX source text. `file_name` is only used in diagnostics.
///
/// Never panics. Errors do not stop parsing: see the module docs.
pub fn parse<'a>(src: &'a str, file_name: &str) -> ParseOutput<'a> {
    parse_with(src, file_name, ParseOptions::default())
}

/// [`parse`] with explicit [`ParseOptions`].
pub fn parse_with<'a>(src: &'a str, file_name: &str, opts: ParseOptions) -> ParseOutput<'a> {
    // Positions are u32; beyond 4 GiB refuse rather than wrap.
    if src.len() > u32::MAX as usize - 1 {
        return ParseOutput {
            module: Module::default(),
            diagnostics: vec![Diagnostic {
                severity: Severity::Error,
                file: file_name.to_string(),
                line: 1,
                col: 1,
                message: "PTX input larger than 4 GiB".into(),
                token: String::new(),
                function: None,
            }],
            fast_path_instructions: 0,
        };
    }
    let mut p = parser::Parser::new(src, file_name);
    p.fast_path = opts.fast_path;
    let module = p.parse_module();
    let mut diagnostics = p.diags;
    diagnostics.sort_by_key(|d| (d.line, d.col));
    ParseOutput {
        module,
        diagnostics,
        fast_path_instructions: p.fast_count,
    }
}

/// Parse PTX from bytes: invalid UTF-8 gives one error diagnostic (at the first bad byte) and an
/// empty module. Never panics.
pub fn parse_bytes<'a>(bytes: &'a [u8], file_name: &str) -> ParseOutput<'a> {
    match std::str::from_utf8(bytes) {
        Ok(s) => parse(s, file_name),
        Err(e) => {
            let good = &bytes[..e.valid_up_to()];
            // The valid prefix is valid UTF-8 by construction.
            let prefix = std::str::from_utf8(good).unwrap_or("");
            let loc = parser::loc_of(prefix, prefix.len());
            ParseOutput {
                module: Module::default(),
                diagnostics: vec![Diagnostic {
                    severity: Severity::Error,
                    file: file_name.to_string(),
                    line: loc.line,
                    col: loc.col,
                    message: format!("invalid UTF-8 at byte offset {}", e.valid_up_to()),
                    token: format!("{:#04x}", bytes[e.valid_up_to()]),
                    function: None,
                }],
                fast_path_instructions: 0,
            }
        }
    }
}
