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
//!
//! With a statically linked CUDA runtime (`-cudart static`, CuPy, XGBoost, ...),
//! `__cudaRegisterFatBinary` is the object's own function: the calls reach it directly. Its
//! address comes from `.symtab` when the object has one; in a stripped object it is inferred
//! as the one function that the calls with a wrapper's address in `rdi` reach
//! ([`RegisterEntry::Inferred`]).

use super::launch::{LaunchFacts, LaunchScan};
use super::static_runtime::{StaticEntry, StaticRuntimeScan};
use crate::error::{Error, ErrorKind, Result};
use iced_x86::{Code, Decoder, DecoderOptions, Instruction, OpKind, Register};
use object::elf;
use object::read::elf::{FileHeader, Rela, SectionHeader, Sym};
use object::Endianness;
use std::collections::{HashMap, HashSet};

/// The registration entry point whose first argument is the wrapper.
pub const REGISTER_FAT_BINARY: &str = "__cudaRegisterFatBinary";

/// How the registration entry point was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RegisterEntry {
    /// An import of a dynamically linked runtime (through its PLT entry or GOT slot).
    Import,
    /// The object's own function, named in `.symtab` (a statically linked runtime).
    LocalSymbol(u64),
    /// The object's own function, inferred in a stripped object: the direct-call target
    /// that calls with a wrapper's address in `rdi` reach.
    Inferred(u64),
    /// Neither: no call registers a wrapper.
    NotFound,
}

/// What [`registration_scan`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegisterScan {
    /// Addresses of the registered wrappers, in the order of the `wrappers` given.
    pub registered: Vec<u64>,
    /// How `__cudaRegisterFatBinary` was reached.
    pub entry: RegisterEntry,
    /// With a static runtime named in `.symtab` ([`RegisterEntry::LocalSymbol`]): its entry
    /// points, each marked when the object's own code refers to it
    /// ([`super::static_runtime`]); empty otherwise.
    pub static_entries: Vec<StaticEntry>,
    /// The block sizes the host code launches each registered kernel with
    /// ([`super::launch`]).
    pub launch: LaunchFacts,
}

/// Addresses of the wrappers (among `wrappers`) that some call passes to
/// [`REGISTER_FAT_BINARY`], in the order of `wrappers` ([`registration_scan`]'s list).
///
/// # Errors
/// [`ErrorKind::Elf`] when the section or symbol tables cannot be read.
pub fn registered_wrappers(data: &[u8], wrappers: &[u64], file: &str) -> Result<Vec<u64>> {
    registration_scan(data, wrappers, file).map(|s| s.registered)
}

/// Which of `wrappers` are registered, and how the registration entry point is reached
/// (see the module docs).
///
/// # Errors
/// [`ErrorKind::Elf`] when the section or symbol tables cannot be read.
pub fn registration_scan(data: &[u8], wrappers: &[u64], file: &str) -> Result<RegisterScan> {
    let oerr = |e: object::read::Error| {
        Error::new(ErrorKind::Elf, file, format!("registration scan: {e}"))
    };
    let header = elf::FileHeader64::<Endianness>::parse(data).map_err(oerr)?;
    let endian = header.endian().map_err(oerr)?;
    let sections = header.sections(endian, data).map_err(oerr)?;
    let dynsyms = sections
        .symbols(endian, data, elf::SHT_DYNSYM)
        .map_err(oerr)?;
    let sym_index = dynsyms.iter().position(|s| {
        s.st_shndx(endian) == elf::SHN_UNDEF
            && dynsyms
                .symbol_name(endian, s)
                .is_ok_and(|n| n == REGISTER_FAT_BINARY.as_bytes())
    });
    // The object's own definition (static runtime), from .symtab, and then the runtime's
    // other entry points.
    let mut static_rt: Option<StaticRuntimeScan> = None;
    let local = if sym_index.is_none() {
        let symtab = sections
            .symbols(endian, data, elf::SHT_SYMTAB)
            .map_err(oerr)?;
        let funcs = || {
            symtab.iter().filter_map(|s| {
                (s.st_shndx(endian) != elf::SHN_UNDEF && s.st_type() == elf::STT_FUNC)
                    .then(|| symtab.symbol_name(endian, s).ok())
                    .flatten()
                    .map(|n| (n, s.st_value(endian), s.st_size(endian)))
            })
        };
        let local = funcs()
            .find(|(n, ..)| *n == REGISTER_FAT_BINARY.as_bytes())
            .map(|(_, a, _)| a);
        if local.is_some() {
            static_rt = Some(StaticRuntimeScan::new(funcs()));
        }
        local
    } else {
        None
    };
    if let Some(rt) = static_rt.as_mut() {
        for s in sections.iter() {
            if s.sh_type(endian) != elf::SHT_RELA {
                continue;
            }
            let relas: &[elf::Rela64<Endianness>] = s.data_as_array(endian, data).map_err(oerr)?;
            for r in relas {
                if r.r_type(endian, false) == elf::R_X86_64_RELATIVE {
                    rt.observe_pointer(r.r_addend(endian) as u64);
                }
            }
        }
    }
    // GOT slots of the symbol (JUMP_SLOT in .rela.plt, GLOB_DAT in .rela.dyn).
    let mut got = HashSet::new();
    for s in sections.iter().filter(|_| sym_index.is_some()) {
        if s.sh_type(endian) != elf::SHT_RELA {
            continue;
        }
        let relas: &[elf::Rela64<Endianness>] = s.data_as_array(endian, data).map_err(oerr)?;
        for r in relas {
            if Some(r.r_sym(endian, false) as usize) == sym_index {
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
    if let Some(a) = local {
        plt.insert(a);
    }
    for s in exec
        .iter()
        .filter(|s| sym_index.is_some() && name_of(s).starts_with(b".plt"))
    {
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
    // Stripped static runtime: direct-call targets of calls with a wrapper in rdi, counted.
    let infer = sym_index.is_none() && local.is_none();
    let mut targets: HashMap<u64, HashSet<u64>> = HashMap::new();
    let mut launch = LaunchScan::new(endian, data, &sections);
    for s in exec.iter().filter(|s| !name_of(s).starts_with(b".plt")) {
        let mut regs: HashMap<Register, u64> = HashMap::new();
        for_each_instruction(s, endian, data, |i| {
            if let Some(rt) = static_rt.as_mut() {
                rt.observe(i);
            }
            launch.observe(i);
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
                if let Some(v) = regs.get(&Register::RDI).filter(|v| wanted.contains(v)) {
                    if target_hits {
                        found.insert(*v);
                    } else if infer && i.is_call_near() {
                        targets
                            .entry(i.near_branch_target())
                            .or_default()
                            .insert(*v);
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
    let entry = match (sym_index, local) {
        (Some(_), _) => RegisterEntry::Import,
        (None, Some(a)) => RegisterEntry::LocalSymbol(a),
        (None, None) => {
            // The target reached with the most distinct wrappers (ties: the lowest address).
            match targets
                .iter()
                .max_by(|a, b| a.1.len().cmp(&b.1.len()).then(b.0.cmp(a.0)))
            {
                Some((&t, ws)) => {
                    found.extend(ws.iter().copied());
                    RegisterEntry::Inferred(t)
                }
                None => RegisterEntry::NotFound,
            }
        }
    };
    Ok(RegisterScan {
        registered: wrappers
            .iter()
            .copied()
            .filter(|w| found.contains(w))
            .collect(),
        entry,
        static_entries: static_rt.map(|r| r.entries).unwrap_or_default(),
        launch: launch.finish(endian, data, &sections),
    })
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
