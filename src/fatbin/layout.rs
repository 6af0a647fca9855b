//! Byte layout of the CUDA fat binary: the 16-byte container header and the entry header.
//!
//! Source: `../shared/reference/fatbin-and-registration.md` §1.2–§1.5 (verified on nvcc 13.5
//! output and CUDA 12 wheels); field names follow NVIDIA's `fatbinary.h` where it has them.
//! All integers are little-endian.

/// Container magic, `FATBIN_MAGIC` (bytes `50 ed 55 ba`).
pub const FATBIN_MAGIC: u32 = 0xBA55_ED50;
/// Size of the container header in bytes.
pub const CONTAINER_HEADER_SIZE: usize = 0x10;
/// Smallest entry header: the fixed fields up to and including `uncompressed_size`.
pub const ENTRY_HEADER_MIN: usize = 0x40;
/// Largest entry header seen (NVVM and sm_100+ ELF entries use 0x78); larger ones are still
/// read but must fit inside the container.
pub const ENTRY_HEADER_MAX_SEEN: u32 = 0x78;

/// Wrapper magic of `__fatBinC_Wrapper_t` in `.nvFatBinSegment` (`0x466243B1`).
pub const WRAPPER_MAGIC: u32 = 0x4662_43B1;
/// Size of one `__fatBinC_Wrapper_t`: u32 magic, u32 version, u64 data, u64 filename/prelinked.
pub const WRAPPER_SIZE: usize = 24;

/// Entry flag: 64-bit address size.
pub const FLAG_64BIT: u64 = 0x1;
/// Entry flag: compiled with debug information (`-g`).
pub const FLAG_DEBUG: u64 = 0x2;
/// Entry flag: host is Linux.
pub const FLAG_HOST_LINUX: u64 = 0x10;
/// Entry flag: host is macOS.
pub const FLAG_HOST_MAC: u64 = 0x20;
/// Entry flag: host is Windows.
pub const FLAG_HOST_WINDOWS: u64 = 0x40;
/// Entry flag: payload is one raw LZ4 block (no frame).
pub const FLAG_COMPRESSED_LZ4: u64 = 0x2000;
/// Entry flag: payload is a Zstandard frame.
pub const FLAG_COMPRESSED_ZSTD: u64 = 0x8000;
/// Entry flag: NVVM/LTO-IR payload in a non-public encoding.
pub const FLAG_NVVM_ENCODED: u64 = 0x10000;
/// Entry flag: architecture-specific `a` target (sm_90a, compute_100a).
pub const FLAG_ARCH_SPECIFIC: u64 = 0x10_0000;
/// Entry flag: family-specific `f` target (sm_103f).
pub const FLAG_FAMILY_SPECIFIC: u64 = 0x20_0000;
/// Entry flag: ELF entry carries an extra binary descriptor (sm_100+).
pub const FLAG_EXTRA_DESCRIPTOR: u64 = 0x100_0000;

/// Read a little-endian `u16` at `off`; the caller has checked the bounds.
#[inline]
pub(crate) fn u16_at(d: &[u8], off: usize) -> u16 {
    u16::from_le_bytes([d[off], d[off + 1]])
}

/// Read a little-endian `u32` at `off`; the caller has checked the bounds.
#[inline]
pub(crate) fn u32_at(d: &[u8], off: usize) -> u32 {
    u32::from_le_bytes(d[off..off + 4].try_into().unwrap())
}

/// Read a little-endian `u64` at `off`; the caller has checked the bounds.
#[inline]
pub(crate) fn u64_at(d: &[u8], off: usize) -> u64 {
    u64::from_le_bytes(d[off..off + 8].try_into().unwrap())
}

/// The fixed part of an entry header (offsets 0x00..0x40), decoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EntryHeader {
    /// +0x00: 1 = PTX, 2 = ELF cubin, 8 = NVVM/LTO-IR.
    pub kind: u16,
    /// +0x02: entry format version, always 0x0101 in known files.
    pub format_version: u16,
    /// +0x04: bytes from the entry start to the payload (0x40..=0x78 seen), a multiple of 8.
    pub header_size: u32,
    /// +0x08: payload bytes reserved after the header (8-aligned).
    pub padded_size: u64,
    /// +0x10: compressed payload bytes, 0 when not compressed.
    pub compressed_size: u32,
    /// +0x14: offset (from entry start) of the `{u32 off, u32 len}` options descriptor, or 0.
    pub options_offset: u32,
    /// +0x18: code version, minor (PTX ISA minor for PTX entries).
    pub version_minor: u16,
    /// +0x1a: code version, major (PTX ISA major for PTX entries).
    pub version_major: u16,
    /// +0x1c: SM architecture number in decimal (80 for sm_80).
    pub arch: u32,
    /// +0x20: identifier string offset from entry start, or 0.
    pub identifier_offset: u32,
    /// +0x24: identifier string length.
    pub identifier_len: u32,
    /// +0x28: flags word (`FLAG_*`).
    pub flags: u64,
    /// +0x38: uncompressed payload bytes, 0 when not compressed.
    pub uncompressed_size: u64,
}

impl EntryHeader {
    /// Decode the fixed header from the first [`ENTRY_HEADER_MIN`] bytes of `d`.
    ///
    /// # Panics
    /// Never for `d.len() >= ENTRY_HEADER_MIN`; the caller checks that.
    pub fn decode(d: &[u8]) -> EntryHeader {
        EntryHeader {
            kind: u16_at(d, 0x00),
            format_version: u16_at(d, 0x02),
            header_size: u32_at(d, 0x04),
            padded_size: u64_at(d, 0x08),
            compressed_size: u32_at(d, 0x10),
            options_offset: u32_at(d, 0x14),
            version_minor: u16_at(d, 0x18),
            version_major: u16_at(d, 0x1a),
            arch: u32_at(d, 0x1c),
            identifier_offset: u32_at(d, 0x20),
            identifier_len: u32_at(d, 0x24),
            flags: u64_at(d, 0x28),
            uncompressed_size: u64_at(d, 0x38),
        }
    }
}
