//! The ISA interpreter's decoder and loader (`tools/amdgpu-exec`), checked against LLVM 19:
//! its opcode tables are what `tools/amdgpu-exec/gen/isa_tables.py` reads off `llvm-mc`
//! now; every instruction of every fixture code object wheelport builds for gfx906, gfx942
//! and gfx1100 decodes, and prints as `llvm-objdump -d` prints it (mnemonic, operands,
//! modifiers); every gfx1100 kernel is wave64; malformed inputs give errors, not panics.

mod common;

use amdgpu_exec::decode::Decoder;
use amdgpu_exec::elf::{bundle_entries, CodeObject};
use common::{require_tool, root, run};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The directory of LLVM 19's tools (where the `llc` wheelport's toolchain discovery finds
/// really lives), or `None` (SKIP; a failure under CI).
fn llvm_bin(test: &str) -> Option<PathBuf> {
    let prof = wheelport::target::profile("dtk").unwrap();
    let tc = wheelport::toolchain::discover(prof, &wheelport::toolchain::SearchOptions::from_env());
    // the directory of the resolved executable (`/usr/bin/llc-19` -> `/usr/lib/llvm-19/bin`)
    let dir = tc
        .tool("llc")
        .and_then(|t| std::fs::canonicalize(&t.path).ok())
        .and_then(|p| p.parent().map(Path::to_path_buf));
    match dir {
        Some(d) if d.join("llvm-objdump").is_file() && d.join("llvm-mc").is_file() => Some(d),
        _ => {
            assert!(
                std::env::var_os("CI").is_none(),
                "{test}: LLVM 19 (llc, llvm-mc, llvm-objdump in one directory) not found"
            );
            eprintln!("SKIP {test}: LLVM 19 (llc, llvm-mc, llvm-objdump) not found");
            None
        }
    }
}

#[test]
fn opcode_tables_are_what_llvm_mc_decodes() {
    const T: &str = "amdgpu_exec_decode::tables";
    let (Some(py), Some(bin)) = (require_tool("python3", T), llvm_bin(T)) else {
        return;
    };
    let out = std::env::temp_dir().join(format!("wp-tables-{}.rs", std::process::id()));
    let (code, so, se) = run(Command::new(py)
        .arg(root().join("tools/amdgpu-exec/gen/isa_tables.py"))
        .arg(&bin)
        .arg(&out));
    assert_eq!(code, 0, "isa_tables.py: {so}{se}");
    let fresh = std::fs::read_to_string(&out).unwrap();
    let _ = std::fs::remove_file(&out);
    let have = std::fs::read_to_string(root().join("tools/amdgpu-exec/src/tables.rs")).unwrap();
    assert!(
        fresh == have,
        "tools/amdgpu-exec/src/tables.rs is not what isa_tables.py writes with this LLVM: run python3 tools/amdgpu-exec/gen/isa_tables.py"
    );
}

/// `llvm-objdump -d` of a code object: address -> instruction text (before its comment).
fn objdump(bin: &Path, arch: &str, co: &Path) -> HashMap<u64, String> {
    let mut cmd = Command::new(bin.join("llvm-objdump"));
    cmd.arg("-d").arg(format!("--mcpu={arch}"));
    if arch.starts_with("gfx1") {
        // the ELF does not record the wave size; wheelport's RDNA code objects are wave64
        cmd.arg("--mattr=+wavefrontsize64");
    }
    let (code, out, err) = run(cmd.arg(co));
    assert_eq!(code, 0, "llvm-objdump {}: {err}", co.display());
    let mut m = HashMap::new();
    for line in out.lines() {
        let Some((text, rest)) = line.split_once("//") else {
            continue;
        };
        let Some(addr) = rest.trim().split(':').next() else {
            continue;
        };
        let Ok(a) = u64::from_str_radix(addr.trim(), 16) else {
            continue;
        };
        let t: Vec<&str> = text.split_whitespace().collect();
        if !t.is_empty() {
            m.insert(a, t.join(" "));
        }
    }
    m
}

#[test]
fn every_fixture_instruction_decodes_as_llvm_objdump_prints_it() {
    const T: &str = "amdgpu_exec_decode::objdump";
    let Some(bin) = llvm_bin(T) else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("wp-exec-decode-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let mut objects = Vec::new();
    for so in [
        "twin_fixtures.so",
        "warp_fixtures.so",
        "tensor_mem_fixtures.so",
        "tensor_mem_sm90_fixtures.so",
        "mma_fixtures.so",
        "wmma_fixtures.so",
        "video_fixtures.so",
        "mbarrier_fixtures.so",
    ] {
        let (code, out, err) = run(Command::new(common::bin())
            .arg(root().join("fixtures/gpu").join(so))
            .args([
                "--target",
                "dtk",
                "--offload-arch",
                "gfx906,gfx942,gfx1100",
                "--allow-partial",
                "-q",
                "-o",
            ])
            .arg(&dir));
        assert!(code == 0 || code == 6, "convert {so}: {out}{err}");
        let data = std::fs::read(dir.join(so)).unwrap();
        let sec = amdgpu_exec::elf::section_bytes(&data, ".hip_fatbin")
            .unwrap()
            .expect(".hip_fatbin");
        for (k, id, bytes) in bundle_entries(sec).unwrap() {
            let arch = id.rsplit("--").next().unwrap().to_string();
            let p = dir.join(format!("{so}.{k}.{arch}.co"));
            std::fs::write(&p, &bytes).unwrap();
            objects.push((arch, p, bytes));
        }
    }
    let mut total = HashMap::<String, usize>::new();
    let mut mnemonics = std::collections::BTreeSet::new();
    let mut wave64_kernels = 0;
    for (arch, path, bytes) in &objects {
        let co = CodeObject::parse(bytes).unwrap();
        assert_eq!(co.arch.name(), arch);
        if co.arch.is_gfx11() {
            // The profiles' wave_size and the warp model are wave64; gfx10+ defaults to
            // wave32, so the device build passes +wavefrontsize64 there (src/build/mod.rs).
            for k in &co.kernels {
                assert!(
                    k.wavefront_size == 64 && !k.desc.flag(10),
                    "{}: {} is not wave64",
                    path.display(),
                    k.name
                );
                wave64_kernels += 1;
            }
        }
        let dec = Decoder::new(co.arch);
        let text = &co.image[co.text.0 as usize..co.text.1 as usize];
        let insts = dec
            .decode_all(text, co.text.0)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let want = objdump(&bin, arch, path);
        let mut bad = Vec::new();
        for (pc, i) in &insts {
            let mine = amdgpu_exec::disasm::print(i, co.arch);
            let mine: Vec<&str> = mine.split_whitespace().collect();
            let mine = mine.join(" ");
            match want.get(pc) {
                Some(w) if *w == mine => {}
                w => bad.push(format!(
                    "0x{pc:x}: llvm-objdump `{}`, decoder `{mine}`",
                    w.cloned().unwrap_or_default()
                )),
            }
            mnemonics.insert(i.row.name);
        }
        assert_eq!(
            insts.len(),
            want.len(),
            "{}: the decoder and llvm-objdump see different instruction counts",
            path.display()
        );
        assert!(
            bad.is_empty(),
            "{}:\n{}",
            path.display(),
            bad[..bad.len().min(20)].join("\n")
        );
        *total.entry(arch.clone()).or_default() += insts.len();
    }
    eprintln!(
        "{T}: {:?} instructions, {} distinct mnemonics, all equal to llvm-objdump's; {wave64_kernels} gfx1100 kernels, all wave64",
        total,
        mnemonics.len()
    );
    assert!(total["gfx906"] > 40_000 && total["gfx942"] > 40_000 && total["gfx1100"] > 40_000);
    assert!(wave64_kernels >= 100, "{wave64_kernels} gfx1100 kernels");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn malformed_inputs_are_errors_not_panics() {
    // A real code object to cut up: the interpreter's own smallest kernel, written as
    // bytes here would be opaque; use any fixture's when the toolchain is present, and a
    // synthetic ELF header otherwise.
    let mut samples: Vec<Vec<u8>> = vec![
        Vec::new(),
        b"\x7fELF".to_vec(),
        vec![
            0x7f, b'E', b'L', b'F', 2, 1, 1, 0x40, 3, 0, 0, 0, 0, 0, 0, 0, 3, 0, 224, 0,
        ],
        vec![0u8; 64],
    ];
    // an ELF64 AMDGPU header with a section table far outside the file
    let mut h = vec![0u8; 64];
    h[..4].copy_from_slice(b"\x7fELF");
    h[4] = 2;
    h[5] = 1;
    h[18] = 224;
    h[48] = 0x2f; // gfx906
    h[40..48].copy_from_slice(&0xffff_ffffu64.to_le_bytes());
    h[60] = 5;
    samples.push(h.clone());
    h[48] = 0x99; // an unknown processor
    samples.push(h);
    for s in &samples {
        assert!(CodeObject::parse(s).is_err(), "{} bytes accepted", s.len());
    }
    let dir = std::env::temp_dir();
    if let Some(co) = common::amdgpu_code_object(&dir, "gfx906") {
        for cut in [16, 63, 64, co.len() / 3, co.len() / 2, co.len() - 1] {
            // every prefix either loads (the cut left the loaded parts whole) or is an error
            let _ = CodeObject::parse(&co[..cut]);
        }
    }
    // bundles
    assert!(bundle_entries(b"").is_err());
    let mut b = b"__CLANG_OFFLOAD_BUNDLE__".to_vec();
    b.extend_from_slice(&5u64.to_le_bytes());
    assert!(bundle_entries(&b).is_err());
    b.extend_from_slice(&1_000_000u64.to_le_bytes());
    b.extend_from_slice(&16u64.to_le_bytes());
    b.extend_from_slice(&4u64.to_le_bytes());
    b.extend_from_slice(b"hipv");
    assert!(bundle_entries(&b).is_err());
    // the decoder: truncated words and unknown encodings
    let d = Decoder::new(amdgpu_exec::isa::Arch::Gfx906);
    assert!(d.decode(&[], 0).is_err());
    assert!(d.decode(&[0x00, 0x00, 0x00, 0xd0], 0).is_err()); // VOP3 without its second dword
    assert!(d.decode(&0xf800_0000u32.to_le_bytes(), 0).is_err()); // MIMG
}
