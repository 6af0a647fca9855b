//! Which `.nvFatBinSegment` wrappers the host code really registers.
//!
//! nvcc 13 adds a device-link wrapper to every `-shared` build, but without `-rdc` no code
//! passes it to `__cudaRegisterFatBinary` (reference `fatbin-and-registration.md` §2.1). A
//! rewriter must re-point only the registered ones. The x86-64 code is decoded with
//! `iced-x86`: a wrapper is registered when its address is loaded into `rdi` (the first
//! argument, System V AMD64 ABI) by a RIP-relative `lea` (or copied there by `mov`) and a
//! `call` follows that reaches `__cudaRegisterFatBinary` — through its PLT entry (`.plt` or
//! `.plt.sec`) or directly through its GOT slot (`-fno-plt`). Any other write to `rdi` forgets
//! the address.

use crate::error::{Error, ErrorKind, Result};
use iced_x86::{Code, Decoder, DecoderOptions, Instruction, OpKind, Register};
use object::elf;
use object::read::elf::{FileHeader, Rela, SectionHeader, Sym};
use object::Endianness;
use std::collections::{HashMap, HashSet};

/// The registration entry point whose first argument is the wrapper.
pub const REGISTER_FAT_BINARY: &str = "__cudaRegisterFatBinary";

/// Addresses of the wrappers (among `wrappers`) that some call passes to
/// [`REGISTER_FAT_BINARY`], in the order of `wrappers`.
///
/// # Errors
/// [`ErrorKind::Elf`] when the section or symbol tables cannot be read.
pub fn registered_wrappers(data: &[u8], wrappers: &[u64], file: &str) -> Result<Vec<u64>> {
    let oerr = |e: object::read::Error| {
        Error::new(ErrorKind::Elf, file, format!("registration scan: {e}"))
    };
    let header = elf::FileHeader64::<Endianness>::parse(data).map_err(oerr)?;
    let endian = header.endian().map_err(oerr)?;
    let sections = header.sections(endian, data).map_err(oerr)?;
    let dynsyms = sections
        .symbols(endian, data, elf::SHT_DYNSYM)
        .map_err(oerr)?;
    let Some(sym_index) = dynsyms.iter().position(|s| {
        s.st_shndx(endian) == elf::SHN_UNDEF
            && dynsyms
                .symbol_name(endian, s)
                .is_ok_and(|n| n == REGISTER_FAT_BINARY.as_bytes())
    }) else {
        return Ok(Vec::new());
    };
    // GOT slots of the symbol (JUMP_SLOT in .rela.plt, GLOB_DAT in .rela.dyn).
    let mut got = HashSet::new();
    for s in sections.iter() {
        if s.sh_type(endian) != elf::SHT_RELA {
            continue;
        }
        let relas: &[elf::Rela64<Endianness>] = s.data_as_array(endian, data).map_err(oerr)?;
        for r in relas {
            if r.r_sym(endian, false) as usize == sym_index {
                got.insert(r.r_offset(endian));
            }
        }
    }
    let name_of =
        |s: &elf::SectionHeader64<Endianness>| sections.section_name(endian, s).unwrap_or_default();
    let exec: Vec<_> = sections
        .iter()
        .filter(|s| {
            s.sh_flags(endian).0 & elf::SHF_EXECINSTR.0 != 0
                && s.sh_type(endian) == elf::SHT_PROGBITS
        })
        .collect();
    // PLT entries that jump through one of those slots (entries are 16 bytes).
    let mut plt = HashSet::new();
    for s in exec.iter().filter(|s| name_of(s).starts_with(b".plt")) {
        for_each_instruction(s, endian, data, |i| {
            if i.is_jmp_near_indirect()
                && i.is_ip_rel_memory_operand()
                && got.contains(&i.ip_rel_memory_address())
            {
                plt.insert(i.ip() & !15);
            }
        })?;
    }
    let wanted: HashSet<u64> = wrappers.iter().copied().collect();
    let mut found = HashSet::new();
    for s in exec.iter().filter(|s| !name_of(s).starts_with(b".plt")) {
        let mut regs: HashMap<Register, u64> = HashMap::new();
        for_each_instruction(s, endian, data, |i| {
            match i.code() {
                Code::Lea_r64_m if i.is_ip_rel_memory_operand() => {
                    regs.insert(i.op0_register().full_register(), i.ip_rel_memory_address());
                    return;
                }
                Code::Mov_r64_rm64 | Code::Mov_rm64_r64
                    if i.op1_kind() == OpKind::Register && i.op0_kind() == OpKind::Register =>
                {
                    match regs.get(&i.op1_register()).copied() {
                        Some(v) => regs.insert(i.op0_register(), v),
                        None => regs.remove(&i.op0_register()),
                    };
                    return;
                }
                _ => {}
            }
            if i.is_call_near() || i.is_call_near_indirect() || i.is_jmp_near() {
                let target_hits = (i.is_call_near() || i.is_jmp_near())
                    && plt.contains(&i.near_branch_target())
                    || i.is_call_near_indirect()
                        && i.is_ip_rel_memory_operand()
                        && got.contains(&i.ip_rel_memory_address());
                if target_hits {
                    if let Some(v) = regs.get(&Register::RDI) {
                        if wanted.contains(v) {
                            found.insert(*v);
                        }
                    }
                }
                if i.is_call_near() || i.is_call_near_indirect() {
                    regs.clear(); // caller-saved registers are clobbered
                }
                return;
            }
            if i.op_count() > 0 && i.op0_kind() == OpKind::Register {
                regs.remove(&i.op0_register().full_register());
            }
        })?;
    }
    Ok(wrappers
        .iter()
        .copied()
        .filter(|w| found.contains(w))
        .collect())
}

fn for_each_instruction(
    s: &elf::SectionHeader64<Endianness>,
    endian: Endianness,
    data: &[u8],
    mut f: impl FnMut(&Instruction),
) -> Result<()> {
    let bytes = s
        .data(endian, data)
        .map_err(|_| Error::new(ErrorKind::Elf, "", "executable section outside the file"))?;
    let mut decoder = Decoder::with_ip(64, bytes, s.sh_addr(endian), DecoderOptions::NONE);
    let mut i = Instruction::default();
    while decoder.can_decode() {
        decoder.decode_out(&mut i);
        f(&i);
    }
    Ok(())
}
