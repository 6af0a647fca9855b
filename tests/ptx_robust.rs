//! Robustness: `ptx::parse` never panics on mutated input (20k mutations of fixture snippets
//! driven by a tiny xorshift PRNG), `parse_bytes` never panics on arbitrary bytes, and the
//! lexer's literal tokens.

use std::path::Path;

use wheelport::ptx::{self, lexer};

struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

fn seeds() -> Vec<String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/ptx/families");
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap())
        .collect();
    v.sort();
    assert!(!v.is_empty());
    v
}

const PIECES: &[&str] = &[
    "{",
    "}",
    "(",
    ")",
    "[",
    "]",
    ";",
    ",",
    ".",
    "%",
    "@",
    "!",
    "|",
    "_",
    "-",
    "+",
    "<",
    ">",
    "=",
    "\"",
    "/*",
    "*/",
    "//",
    "\n",
    " ",
    "0f",
    "0d",
    "0x",
    "9999999999999999999999",
    ".reg",
    ".entry",
    ".func",
    ".section",
    ".loc",
    "::",
    "é",
    "\u{0}",
    "$",
    "%r",
    "1.5e",
    ".b32",
    "@@dwarf",
    "generic(",
    ".param",
    ".callprototype",
];

fn mutate(rng: &mut XorShift, s: &str) -> String {
    let mut b: Vec<char> = s.chars().collect();
    for _ in 0..1 + rng.below(4) {
        let pos = rng.below(b.len() + 1);
        match rng.below(5) {
            0 if !b.is_empty() => {
                let end = (pos + 1 + rng.below(20)).min(b.len());
                b.drain(pos.min(end)..end);
            }
            1 => {
                let p = PIECES[rng.below(PIECES.len())];
                for (k, c) in p.chars().enumerate() {
                    b.insert(pos + k, c);
                }
            }
            2 if b.len() > 2 => {
                // Duplicate a slice elsewhere.
                let a = rng.below(b.len());
                let e = (a + rng.below(40)).min(b.len());
                let piece: Vec<char> = b[a..e].to_vec();
                let at = rng.below(b.len());
                for (k, c) in piece.into_iter().enumerate() {
                    b.insert(at + k, c);
                }
            }
            3 if pos < b.len() => b[pos] = (rng.next() % 128) as u8 as char,
            _ => b.truncate(pos),
        }
    }
    b.into_iter().collect()
}

#[test]
fn twenty_thousand_mutations_never_panic() {
    let seeds = seeds();
    let mut rng = XorShift(0x9E37_79B9_7F4A_7C15);
    let mut with_errors = 0;
    for n in 0..20_000 {
        let base = &seeds[rng.below(seeds.len())];
        // Mutate a window of the seed so that each case stays small and fast.
        let start = rng.below(base.len());
        let start = (0..=start)
            .rev()
            .find(|&i| base.is_char_boundary(i))
            .unwrap_or(0);
        let end = (start + 300 + rng.below(1500)).min(base.len());
        let end = (end..=base.len())
            .find(|&i| base.is_char_boundary(i))
            .unwrap();
        let text = if n % 4 == 0 {
            base.as_str()
        } else {
            &base[start..end]
        };
        let m = mutate(&mut rng, text);
        let out = std::panic::catch_unwind(|| {
            let p = ptx::parse(&m, "fuzz.ptx");
            // Printing and re-parsing what parsed must not panic either.
            let printed = ptx::print(&p.module);
            let _ = ptx::parse(&printed, "printed.ptx");
            let _ = ptx::analysis::kernel_forms(&p.module);
            p.error_count()
        });
        match out {
            Ok(e) => with_errors += (e > 0) as usize,
            Err(_) => panic!("parse panicked on mutation #{n}:\n{m}"),
        }
    }
    // The mutations must actually exercise the error paths.
    assert!(
        with_errors > 5_000,
        "only {with_errors} mutated inputs had errors"
    );
}

#[test]
fn arbitrary_bytes_never_panic() {
    let mut rng = XorShift(12345);
    for _ in 0..5_000 {
        let len = rng.below(200);
        let bytes: Vec<u8> = (0..len).map(|_| (rng.next() & 0xff) as u8).collect();
        let out = ptx::parse_bytes(&bytes, "b.ptx");
        if std::str::from_utf8(&bytes).is_err() {
            assert_eq!(out.error_count(), 1);
        }
    }
}

#[test]
fn literal_tokens() {
    use lexer::Tok::*;
    let s = "0f3F800000 0d3FF0000000000000 0x1fU 0b101 017 1.5 2e10 .L2::cache_hint %r<10> $L__BB0_1: @!%p1 p|q _ [x+-4] \"s\\\"t\" @@DWARF /* c */ // x\n.2d";
    let mut lx = lexer::Lexer::new(s);
    let mut kinds = Vec::new();
    loop {
        let t = lx.bump();
        if t.kind == Eof {
            break;
        }
        kinds.push(t.kind);
    }
    assert_eq!(
        kinds,
        [
            F32Hex, F64Hex, Int, Int, Int, Float, Float, Dot, Ident, Lt, Int, Gt, Ident, Colon, At,
            Bang, Ident, Ident, Pipe, Ident, Underscore, LBracket, Ident, Plus, Minus, Int,
            RBracket, Str, AtAt, Dot
        ]
    );
}

/// Hostile nesting: 200,000 levels of `{` in a function body, a vector operand, an operand
/// list and a variable initializer. The parser recurses per level, so without its nesting limit
/// (64) this overflows the stack; with it each gives a diagnostic at the 65th level and the
/// function is kept as invalid. Run on a thread with a 1 MiB stack (rayon workers and other
/// embedders may give less than the main thread's 8 MiB).
#[test]
fn deep_nesting_is_an_error_not_a_stack_overflow() {
    const N: usize = 200_000;
    let head = ".version 8.0\n.target sm_80\n.address_size 64\n";
    let cases = [
        (
            "block",
            format!(
                "{head}.visible .entry k()\n{{\n{}\n{}\n}}\n",
                "{".repeat(N),
                "}".repeat(N)
            ),
        ),
        (
            "vector operand",
            format!(
                "{head}.visible .entry k()\n{{\n.reg .b32 %r<3>;\nmov.b32 %r1, {}%r2{};\n}}\n",
                "{".repeat(N),
                "}".repeat(N)
            ),
        ),
        (
            "operand list",
            format!(
                "{head}.visible .entry k()\n{{\n.reg .b32 %r<3>;\ncall f, {}%r2{};\n}}\n",
                "(".repeat(N),
                ")".repeat(N)
            ),
        ),
        (
            "initializer list",
            format!(
                "{head}.global .b32 g[1] = {}1{};\n",
                "{".repeat(N),
                "}".repeat(N)
            ),
        ),
    ];
    for (what, src) in cases {
        let out = std::thread::Builder::new()
            .stack_size(1 << 20)
            .spawn(move || {
                let o = ptx::parse(&src, "deep.ptx");
                o.diagnostics
                    .iter()
                    .map(|d| (d.line, d.col, d.message.clone()))
                    .collect::<Vec<_>>()
            })
            .unwrap()
            .join()
            .expect("parser thread");
        let want = format!("{what} nested deeper than 64 levels");
        let d = out
            .iter()
            .find(|d| d.2 == want)
            .unwrap_or_else(|| panic!("{what}: no `{want}` among {:?}", &out[..out.len().min(5)]));
        // The 65th opening bracket: line 6 in the bodies (after `{` and `.reg`), line 4 for the
        // global; column = its 1-based byte position on that line.
        let (line, col) = match what {
            "block" => (6, 65),
            "vector operand" => (7, 14 + 64),
            "operand list" => (7, 9 + 64),
            _ => (4, 21 + 64),
        };
        assert_eq!((d.0, d.1), (line, col), "{what}: position of the error");
    }
}
