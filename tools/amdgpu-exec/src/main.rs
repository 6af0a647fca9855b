//! `amdgpu-exec`: disassemble or run AMDGPU code objects (see `amdgpu-exec --help`).

use amdgpu_exec::decode::Decoder;
use amdgpu_exec::elf::CodeObject;
use std::process::ExitCode;

fn usage() -> ExitCode {
    eprintln!(
        "usage:\n  amdgpu-exec disasm CODE_OBJECT   print every instruction of .text in LLVM's syntax\n"
    );
    ExitCode::from(2)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("disasm") if args.len() == 2 => {
            let data = match std::fs::read(&args[1]) {
                Ok(d) => d,
                Err(e) => {
                    eprintln!("amdgpu-exec: {}: {e}", args[1]);
                    return ExitCode::from(1);
                }
            };
            let co = match CodeObject::parse(&data) {
                Ok(c) => c,
                Err(e) => {
                    eprintln!("amdgpu-exec: {}: {e}", args[1]);
                    return ExitCode::from(1);
                }
            };
            let dec = Decoder::new(co.arch);
            let text = &co.image[co.text.0 as usize..co.text.1 as usize];
            match dec.decode_all(text, co.text.0) {
                Ok(v) => {
                    for (pc, i) in v {
                        println!(
                            "{pc:012x} {}",
                            amdgpu_exec::disasm::print(&i, co.arch.is_gfx940())
                        );
                    }
                    ExitCode::SUCCESS
                }
                Err(e) => {
                    eprintln!("amdgpu-exec: {}: {e}", args[1]);
                    ExitCode::from(1)
                }
            }
        }
        _ => usage(),
    }
}
