//! Fuzz the SASS decoder's input: `sass::decode::parse_text` on arbitrary text standing for
//! `nvdisasm`'s output (functions, labels, instructions, operands, predicates, modifiers).
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = wheelport::sass::decode::parse_text(text);
    }
});
