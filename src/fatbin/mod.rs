//! The CUDA fat binary ("fatbin") format as it appears in the `.nv_fatbin` and
//! `__nv_relfatbin` sections of host ELF files.
//!
//! A section holds one or more containers (magic `0xBA55ED50`, 16-byte header); each
//! container holds entries, each with a 0x40–0x78 byte header and a payload: PTX text, an
//! ELF cubin, or NVVM/LTO-IR, optionally LZ4- or zstd-compressed.
//!
//! Byte layouts follow `../shared/reference/fatbin-and-registration.md` §1; see [`layout`]
//! for the field offsets.

pub mod layout;
pub mod parse;
pub mod payload;
pub mod write;

pub use parse::{arch_suffix, parse_section, Container, Entry, EntryKind};
pub use payload::Compression;

/// Parse every fatbin section of a host ELF file that [`crate::elf::scan()`] found, in file
/// order. `data` is the whole file; `file` names it in errors.
///
/// # Errors
/// As [`parse_section`], for the first section that fails.
pub fn parse_object_sections<'a>(
    data: &'a [u8],
    so: &crate::elf::SharedObject,
    file: &str,
) -> crate::Result<Vec<(crate::elf::FatbinSectionInfo, Vec<Container<'a>>)>> {
    let mut secs = so.fatbin_sections.clone();
    secs.sort_by_key(|s| s.offset);
    secs.into_iter()
        .map(|s| {
            let bytes = &data[s.offset as usize..(s.offset + s.size) as usize];
            parse_section(bytes, s.offset, file).map(|c| (s, c))
        })
        .collect()
}
