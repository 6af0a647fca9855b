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

pub use parse::{arch_suffix, parse_section, Container, Entry, EntryKind};
pub use payload::Compression;
