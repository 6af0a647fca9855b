//! Walking the containers and entries of a fatbin section.
//!
//! Layout rules (reference §1.2, §1.3, §6.1): containers follow one another with no
//! terminator; the next container starts at `start + 0x10 + fatSize`; inside a container the
//! next entry starts at `entry + header_size + padded_size`. Every size is checked against the
//! bytes that hold it before it is used, so a lying header gives an [`Error`] that names the
//! file and the offset, never a panic or an out-of-bounds read.

use super::layout::*;
use super::payload::{self, Compression};
use crate::error::{Error, ErrorKind, Result};
use std::borrow::Cow;

/// What an entry's payload holds (entry header +0x00).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum EntryKind {
    /// 1: NUL-terminated PTX text.
    Ptx,
    /// 2: an ELF cubin (SASS), e_machine EM_CUDA (190).
    Elf,
    /// 8: NVVM IR / LTO-IR (cuobjdump: "Fatbin nvvm code").
    Nvvm,
    /// Any other kind value, kept as found.
    Unknown(u16),
}

impl EntryKind {
    /// Decode the kind field.
    pub fn from_raw(v: u16) -> EntryKind {
        match v {
            1 => EntryKind::Ptx,
            2 => EntryKind::Elf,
            8 => EntryKind::Nvvm,
            other => EntryKind::Unknown(other),
        }
    }

    /// Short display name: `PTX`, `ELF`, `NVVM` or `kind-N`.
    pub fn label(&self) -> Cow<'static, str> {
        match self {
            EntryKind::Ptx => "PTX".into(),
            EntryKind::Elf => "ELF".into(),
            EntryKind::Nvvm => "NVVM".into(),
            EntryKind::Unknown(v) => format!("kind-{v}").into(),
        }
    }
}

/// One entry of a fatbin container, borrowing its bytes from the section.
#[derive(Debug, Clone)]
pub struct Entry<'a> {
    /// Index of the container that holds this entry, in section order.
    pub container: usize,
    /// Index of this entry inside its container.
    pub index: usize,
    /// File offset of the entry header.
    pub offset: u64,
    /// The decoded fixed header.
    pub header: EntryHeader,
    /// The identifier string (`fatbinary --ident`), if present.
    pub identifier: Option<&'a [u8]>,
    /// The options text (ptxas/NVVM options), if present, without trailing NULs.
    pub options: Option<&'a [u8]>,
    /// The payload as stored: `compressed_size` bytes when compressed, else `padded_size`.
    pub stored: &'a [u8],
    /// File name used in errors.
    file: std::sync::Arc<str>,
}

impl<'a> Entry<'a> {
    /// The payload kind.
    pub fn kind(&self) -> EntryKind {
        EntryKind::from_raw(self.header.kind)
    }

    /// How the payload is compressed, from the flags word.
    pub fn compression(&self) -> Compression {
        Compression::from_flags(self.header.flags)
    }

    /// File offset of the payload.
    pub fn payload_offset(&self) -> u64 {
        self.offset + u64::from(self.header.header_size)
    }

    /// Architecture name as cuobjdump and nvcc spell it: `sm_80`, `sm_90a`, `sm_103f` for ELF
    /// entries, `compute_80` for PTX, `lto_80` for NVVM.
    pub fn arch_name(&self) -> String {
        let prefix = match self.kind() {
            EntryKind::Ptx => "compute",
            EntryKind::Nvvm => "lto",
            _ => "sm",
        };
        format!(
            "{prefix}_{}{}",
            self.header.arch,
            arch_suffix(self.header.flags)
        )
    }

    /// The code version as `major.minor` (the PTX ISA version for PTX entries).
    pub fn code_version(&self) -> String {
        format!(
            "{}.{}",
            self.header.version_major, self.header.version_minor
        )
    }

    /// The decompressed payload. Uncompressed payloads are borrowed (with their padding);
    /// compressed ones are checked against the declared sizes (see [`payload::decompress`]).
    ///
    /// # Errors
    /// [`ErrorKind::Fatbin`] naming the payload offset when the data is corrupt or a
    /// declared size is absurd or disagrees with the data.
    pub fn payload(&self) -> Result<Cow<'a, [u8]>> {
        let off = self.payload_offset();
        match self.compression() {
            Compression::None => Ok(Cow::Borrowed(self.stored)),
            c => payload::decompress(c, self.stored, self.header.uncompressed_size)
                .map(Cow::Owned)
                .map_err(|m| Error::at(ErrorKind::Fatbin, &*self.file, off, m)),
        }
    }

    /// The PTX text of a PTX entry: the payload up to its first NUL.
    ///
    /// # Errors
    /// As [`Entry::payload`]; also when the entry is not PTX.
    pub fn ptx_bytes(&self) -> Result<Cow<'a, [u8]>> {
        if self.kind() != EntryKind::Ptx {
            return Err(Error::at(
                ErrorKind::Fatbin,
                &*self.file,
                self.offset,
                "entry is not PTX",
            ));
        }
        Ok(match self.payload()? {
            Cow::Borrowed(b) => Cow::Borrowed(until_nul(b)),
            Cow::Owned(mut v) => {
                let n = until_nul(&v).len();
                v.truncate(n);
                Cow::Owned(v)
            }
        })
    }
}

fn until_nul(b: &[u8]) -> &[u8] {
    match b.iter().position(|&c| c == 0) {
        Some(n) => &b[..n],
        None => b,
    }
}

/// `a` for arch-specific and `f` for family-specific targets, from the flags word.
pub fn arch_suffix(flags: u64) -> &'static str {
    if flags & FLAG_ARCH_SPECIFIC != 0 {
        "a"
    } else if flags & FLAG_FAMILY_SPECIFIC != 0 {
        "f"
    } else {
        ""
    }
}

/// One fatbin container (magic `0xBA55ED50`).
#[derive(Debug, Clone)]
pub struct Container<'a> {
    /// Index in section order.
    pub index: usize,
    /// File offset of the container header.
    pub offset: u64,
    /// Header version (1 in every known file).
    pub version: u16,
    /// Header size (0x10 in every known file).
    pub header_size: u16,
    /// Bytes of entries after the header.
    pub fat_size: u64,
    /// The entries in order.
    pub entries: Vec<Entry<'a>>,
}

impl Container<'_> {
    /// Total bytes: header plus entries.
    pub fn total_size(&self) -> u64 {
        u64::from(self.header_size) + self.fat_size
    }
}

/// Parse every container in a fatbin section (`.nv_fatbin` or `__nv_relfatbin`).
///
/// `data` is the section contents, `file_offset` the file offset of its first byte (used in
/// errors and recorded in the result), `file` the display name used in errors. Zero bytes
/// between containers (alignment padding) and at the end of the section are skipped.
///
/// # Errors
/// [`ErrorKind::Fatbin`] for a wrong magic, a truncated header, a container or entry that
/// runs past the end of its enclosing area, or a header size below 0x40.
pub fn parse_section<'a>(
    data: &'a [u8],
    file_offset: u64,
    file: &str,
) -> Result<Vec<Container<'a>>> {
    let shared: std::sync::Arc<str> = file.into();
    let mut containers = Vec::new();
    let mut pos = 0usize;
    let err =
        |at: usize, msg: String| Error::at(ErrorKind::Fatbin, file, file_offset + at as u64, msg);
    while pos < data.len() {
        // Skip alignment padding.
        if data[pos] == 0 {
            let next = data[pos..].iter().position(|&b| b != 0);
            match next {
                None => break,
                Some(n) if n % 8 == 0 || pos + n == data.len() => {
                    pos += n;
                    continue;
                }
                Some(_) => {
                    return Err(err(pos, "expected a fatbin container (magic 0xba55ed50), found zero bytes ending at an unaligned offset".into()));
                }
            }
        }
        if data.len() - pos < CONTAINER_HEADER_SIZE {
            return Err(err(
                pos,
                format!(
                    "truncated fatbin container header: {} bytes left in the section, 16 needed",
                    data.len() - pos
                ),
            ));
        }
        let magic = u32_at(data, pos);
        if magic != FATBIN_MAGIC {
            return Err(err(
                pos,
                format!("wrong fatbin container magic {magic:#010x} (expected 0xba55ed50)"),
            ));
        }
        let version = u16_at(data, pos + 4);
        let header_size = u16_at(data, pos + 6);
        let fat_size = u64_at(data, pos + 8);
        if usize::from(header_size) < CONTAINER_HEADER_SIZE {
            return Err(err(
                pos,
                format!("fatbin container header size {header_size:#x} is below 0x10"),
            ));
        }
        let body_start = pos + usize::from(header_size);
        let end = (body_start as u64)
            .checked_add(fat_size)
            .filter(|&e| e <= data.len() as u64)
            .ok_or_else(|| {
                err(
                    pos,
                    format!(
                        "fatbin container declares {fat_size:#x} bytes of entries, but only {:#x} bytes remain in the section",
                        data.len().saturating_sub(body_start)
                    ),
                )
            })? as usize;
        let index = containers.len();
        let entries = parse_entries(data, body_start, end, index, file_offset, &shared)?;
        containers.push(Container {
            index,
            offset: file_offset + pos as u64,
            version,
            header_size,
            fat_size,
            entries,
        });
        pos = end;
    }
    Ok(containers)
}

fn parse_entries<'a>(
    data: &'a [u8],
    start: usize,
    end: usize,
    container: usize,
    file_offset: u64,
    file: &std::sync::Arc<str>,
) -> Result<Vec<Entry<'a>>> {
    let err = |at: usize, msg: String| {
        Error::at(ErrorKind::Fatbin, &**file, file_offset + at as u64, msg)
    };
    let mut entries = Vec::new();
    let mut pos = start;
    while pos < end {
        let left = end - pos;
        if left < ENTRY_HEADER_MIN {
            // Trailing zero padding inside a container is tolerated.
            if data[pos..end].iter().all(|&b| b == 0) {
                break;
            }
            return Err(err(
                pos,
                format!(
                    "truncated fatbin entry header: {left} bytes left in the container, 64 needed"
                ),
            ));
        }
        let h = EntryHeader::decode(&data[pos..pos + ENTRY_HEADER_MIN]);
        if h.kind == 0 && h.header_size == 0 && data[pos..end].iter().all(|&b| b == 0) {
            break;
        }
        let hs = h.header_size as usize;
        if hs < ENTRY_HEADER_MIN || hs > left {
            return Err(err(
                pos,
                format!("fatbin entry header size {:#x} is outside 0x40..={left:#x} (bytes left in the container)", h.header_size),
            ));
        }
        let payload_start = pos + hs;
        let avail = (end - payload_start) as u64;
        if h.padded_size > avail {
            return Err(err(
                pos,
                format!(
                    "fatbin entry payload of {:#x} bytes runs past the container end (only {avail:#x} bytes remain)",
                    h.padded_size
                ),
            ));
        }
        let padded = h.padded_size as usize;
        let compression = Compression::from_flags(h.flags);
        let stored = if compression == Compression::None {
            &data[payload_start..payload_start + padded]
        } else {
            if u64::from(h.compressed_size) > h.padded_size {
                return Err(err(
                    pos + 0x10,
                    format!(
                        "compressed size {:#x} is larger than the {:#x} bytes reserved for the payload",
                        h.compressed_size, h.padded_size
                    ),
                ));
            }
            &data[payload_start..payload_start + h.compressed_size as usize]
        };
        let identifier = if h.identifier_offset != 0 && h.identifier_len != 0 {
            let a = h.identifier_offset as usize;
            let b = a.checked_add(h.identifier_len as usize);
            match b {
                Some(b) if b <= hs => Some(trim_nul(&data[pos + a..pos + b])),
                _ => {
                    return Err(err(
                        pos + 0x20,
                        "fatbin entry identifier string lies outside its header".into(),
                    ));
                }
            }
        } else {
            None
        };
        let options = if h.options_offset != 0 {
            let d = h.options_offset as usize;
            if d.checked_add(8).is_none_or(|e| e > hs) {
                return Err(err(
                    pos + 0x14,
                    "fatbin entry options descriptor lies outside its header".into(),
                ));
            }
            let o = u32_at(data, pos + d) as usize;
            let l = u32_at(data, pos + d + 4) as usize;
            if l == 0 {
                None
            } else if o.checked_add(l).is_none_or(|e| e > hs) {
                return Err(err(
                    pos + d,
                    "fatbin entry options text lies outside its header".into(),
                ));
            } else {
                Some(trim_nul(&data[pos + o..pos + o + l]))
            }
        } else {
            None
        };
        entries.push(Entry {
            container,
            index: entries.len(),
            offset: file_offset + pos as u64,
            header: h,
            identifier,
            options,
            stored,
            file: file.clone(),
        });
        pos = payload_start + padded;
    }
    Ok(entries)
}

fn trim_nul(b: &[u8]) -> &[u8] {
    let mut n = b.len();
    while n > 0 && b[n - 1] == 0 {
        n -= 1;
    }
    &b[..n]
}
