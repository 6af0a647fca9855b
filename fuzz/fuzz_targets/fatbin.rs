//! Fuzz the fatbin reader: container and entry walk, payload decompression (whole and
//! streamed), PTX extraction and cubin kernel names, and the host-ELF scanner.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(containers) = wheelport::fatbin::parse_section(data, 0, "fuzz") {
        for e in containers.iter().flat_map(|c| c.entries.iter()) {
            let _ = e.arch_name();
            // Differential: the bounded-window stream must produce exactly what the whole
            // decompression produces.
            if let Ok(whole) = e.payload() {
                let mut streamed = Vec::new();
                let r = wheelport::fatbin::payload::stream(e.compression(), e.stored, e.header.uncompressed_size, &mut |_, c| {
                    streamed.extend_from_slice(c);
                    true
                });
                if e.compression() != wheelport::fatbin::Compression::None {
                    assert!(r.is_ok(), "stream failed where payload() succeeded");
                    assert!(streamed == whole[..], "stream differs from payload()");
                }
            }
            let _ = e.ptx_bytes();
            let _ = wheelport::cubin::entry_kernel_names(e, "fuzz");
        }
    }
    let _ = wheelport::elf::scan(data, "fuzz");
    let _ = wheelport::cubin::kernel_names(data, "fuzz");
});
