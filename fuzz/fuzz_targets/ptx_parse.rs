//! Fuzz the PTX front end: parse, and for modules that parse cleanly, print and parse again.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let out = wheelport::ptx::parse_bytes(data, "fuzz.ptx");
    if out.diagnostics.is_empty() {
        let text = wheelport::ptx::print(&out.module);
        let _ = wheelport::ptx::parse(&text, "fuzz-printed.ptx");
    }
});
