//! The fatbin PTX writer (src/fatbin/write.rs): byte-identical to nvcc 13.5's uncompressed
//! PTX entry (fixtures/cuda/nocompress.so), read back by our parser and by cuobjdump 13.5,
//! both as a raw .fatbin and inside a gcc-linked .so's `.nv_fatbin`.

mod common;

use std::process::Command;
use wheelport::fatbin::write::{ptx_container, ptx_entry, ptx_info};

#[test]
fn ptx_entry_is_byte_identical_to_nvcc_no_compress() {
    let data = std::fs::read(common::root().join("fixtures/cuda/nocompress.so")).unwrap();
    let so = wheelport::elf::scan(&data, "nocompress.so").unwrap();
    let secs = wheelport::fatbin::parse_object_sections(&data, &so, "nocompress.so").unwrap();
    let e = &secs[0].1[1].entries[0];
    assert_eq!(e.kind(), wheelport::fatbin::EntryKind::Ptx);
    let text = String::from_utf8(e.ptx_bytes().unwrap().into_owned()).unwrap();
    let info = ptx_info(&text, "t").unwrap();
    assert_eq!((info.version, info.arch), ((9, 5), 80));
    let mine = ptx_entry(&text, "t").unwrap();
    let start = e.offset as usize;
    let theirs =
        &data[start..start + e.header.header_size as usize + e.header.padded_size as usize];
    assert_eq!(mine.len(), theirs.len());
    assert_eq!(&mine[..], theirs, "entry bytes differ from nvcc's");
}

#[test]
fn cuobjdump_reads_our_container_raw_and_in_a_shared_object() {
    let Some(cuobjdump) = common::require_tool("cuobjdump", "fatbin_write_cuobjdump") else {
        return;
    };
    // Two PTX entries: the nvcc text of kernels.cu and one for sm_90a with another version.
    // expected/<name>.ptx/ holds `cuobjdump -xptx all` output of the fixture.
    let nvcc = std::fs::read_to_string(
        common::root().join("fixtures/cuda/expected/nocompress.ptx/nocompress.1.sm_80.ptx"),
    )
    .unwrap();
    let other =
        ".version 8.0\n.target sm_90a\n.address_size 64\n\n.visible .entry k()\n{\n\tret;\n}\n";
    let c = ptx_container(&[&nvcc, other], "t").unwrap();
    let parsed = wheelport::fatbin::parse_section(&c, 0, "t").unwrap();
    assert_eq!(parsed[0].entries.len(), 2);
    assert_eq!(parsed[0].entries[1].arch_name(), "compute_90a");
    assert_eq!(parsed[0].entries[1].code_version(), "8.0");

    let t = tempfile::tempdir().unwrap();
    let fb = t.path().join("w.fatbin");
    std::fs::write(&fb, &c).unwrap();
    let (code, out, err) = common::run(
        Command::new(&cuobjdump)
            .arg("-lptx")
            .arg(&fb)
            .current_dir(t.path()),
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        out,
        "PTX file    1: w.1.sm_80.ptx\nPTX file    2: w.2.sm_90a.ptx\n"
    );

    // In a .so linked by gcc: `.nv_fatbin` holding the container.
    let s = t.path().join("fb.s");
    std::fs::write(&s, format!(".section .nv_fatbin,\"a\"\n.balign 8\n.incbin \"{}\"\n.section .note.GNU-stack,\"\",@progbits\n", fb.display())).unwrap();
    let so = t.path().join("w.so");
    let (code, _, err) = common::run(Command::new("gcc").args(["-shared", "-o"]).arg(&so).arg(&s));
    assert_eq!(code, 0, "{err}");
    let x = t.path().join("x");
    std::fs::create_dir(&x).unwrap();
    let (code, out, err) = common::run(
        Command::new(&cuobjdump)
            .args(["-xptx", "all"])
            .arg(&so)
            .current_dir(&x),
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("w.1.sm_80.ptx") && out.contains("w.2.sm_90a.ptx"),
        "{out}"
    );
    assert_eq!(
        std::fs::read_to_string(x.join("w.1.sm_80.ptx")).unwrap(),
        nvcc
    );
    assert_eq!(
        std::fs::read_to_string(x.join("w.2.sm_90a.ptx")).unwrap(),
        other
    );
}
