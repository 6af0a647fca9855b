//! Fuzz the PTX front end: parse, and for modules that parse cleanly, print and parse again.
//! Differential oracle: the parser's instruction fast path must not change the result, so the
//! input is parsed again with the fast path off and both trees (positions included, through
//! `Debug`) and diagnostics must be equal.
#![no_main]
use libfuzzer_sys::fuzz_target;
use wheelport::ptx::{parse_with, ParseOptions};

fuzz_target!(|data: &[u8]| {
    let out = wheelport::ptx::parse_bytes(data, "fuzz.ptx");
    if let Ok(src) = std::str::from_utf8(data) {
        let slow = parse_with(src, "fuzz.ptx", ParseOptions { fast_path: false });
        assert_eq!(
            format!("{:?}\n{:?}", out.module, out.diagnostics),
            format!("{:?}\n{:?}", slow.module, slow.diagnostics),
            "the fast path changes the parse"
        );
    }
    if out.diagnostics.is_empty() {
        let text = wheelport::ptx::print(&out.module);
        let _ = wheelport::ptx::parse(&text, "fuzz-printed.ptx");
    }
});
