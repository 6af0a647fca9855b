//! The host-ELF scanner. See the [module docs](super).

use crate::error::{Error, ErrorKind, Result};
use crate::fatbin::layout::{u32_at, u64_at, WRAPPER_MAGIC, WRAPPER_SIZE};
use object::elf;
use object::read::elf::{Dyn, FileHeader, Rela, SectionHeader, Sym};
use object::Endianness;

/// Name of the section holding executable (or device-linked) fatbins.
pub const NV_FATBIN: &str = ".nv_fatbin";
/// Name of the section holding relocatable (`-rdc`) fatbins.
pub const NV_RELFATBIN: &str = "__nv_relfatbin";
/// Name of the section holding the 24-byte `__fatBinC_Wrapper_t` wrappers.
pub const NV_FATBIN_SEGMENT: &str = ".nvFatBinSegment";

/// An undefined dynamic symbol (an import).
#[derive(
    Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
pub struct Import {
    /// The symbol name (mangled, as in `.dynstr`).
    pub name: String,
    /// The required version name (from `.gnu.version_r`), if the import is versioned.
    pub version: Option<String>,
    /// The library the version requirement names (`vn_file`), if versioned.
    pub version_file: Option<String>,
    /// True for weak imports (STB_WEAK).
    pub weak: bool,
}

impl Import {
    /// `name@version`, or the bare name when unversioned.
    pub fn display(&self) -> String {
        match &self.version {
            Some(v) => format!("{}@{}", self.name, v),
            None => self.name.clone(),
        }
    }
}

/// Where a fatbin section sits.
#[derive(
    Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
pub struct FatbinSectionInfo {
    /// `.nv_fatbin` or `__nv_relfatbin`.
    pub name: String,
    /// File offset of the section contents.
    pub offset: u64,
    /// Virtual address (sh_addr), 0 in relocatable objects.
    pub address: u64,
    /// Size in bytes.
    pub size: u64,
}

/// One `__fatBinC_Wrapper_t` in `.nvFatBinSegment` (reference §2.1).
#[derive(
    Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
pub struct Wrapper {
    /// File offset of the wrapper.
    pub offset: u64,
    /// Virtual address of the wrapper.
    pub address: u64,
    /// +0: magic, `0x466243B1` when valid.
    pub magic: u32,
    /// +4: 1 (plain) or 2 (device-link wrapper with `__cudaPrelinkedFatbins`).
    pub version: u32,
    /// +8: address of the registered container, after its relocation is applied.
    pub data: u64,
    /// True when `data` came from an R_X86_64_RELATIVE (or R_X86_64_64) relocation rather
    /// than from the bytes in the file.
    pub data_relocated: bool,
    /// +16: for version 2, the address of the prelinked-fatbins array (0 otherwise).
    pub prelinked: u64,
    /// The fatbin section that `data` points into, if any.
    pub section: Option<String>,
    /// File offset `data` points at (inside `section`), if it resolves.
    pub data_offset: Option<u64>,
    /// Whether host code passes this wrapper to `__cudaRegisterFatBinary`
    /// ([`super::registration`]); `None` when not determined.
    #[serde(default)]
    pub registered: Option<bool>,
}

/// One section header, as [`scan`] records it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SectionSummary {
    /// The section name.
    pub name: String,
    /// `sh_type`.
    pub sh_type: u32,
    /// `sh_flags`.
    pub flags: u64,
    /// File offset of the contents.
    pub offset: u64,
    /// Size in bytes (no file bytes for `SHT_NOBITS`).
    pub size: u64,
}

impl SectionSummary {
    /// Allocated, read-only, not executable program data (`.rodata` and the like).
    pub fn is_read_only_data(&self) -> bool {
        let f = self.flags;
        self.sh_type == elf::SHT_PROGBITS.0
            && f & elf::SHF_ALLOC.0 != 0
            && f & elf::SHF_WRITE.0 == 0
            && f & elf::SHF_EXECINSTR.0 == 0
    }
}

/// What [`scan`] reads from a host shared object; strings are copied, bulk data is not.
#[derive(Debug, Clone, Default)]
pub struct SharedObject {
    /// `e_machine` (62 = EM_X86_64).
    pub machine: u16,
    /// `e_type` (3 = ET_DYN).
    pub elf_type: u16,
    /// DT_SONAME.
    pub soname: Option<String>,
    /// DT_NEEDED entries in order.
    pub needed: Vec<String>,
    /// DT_RUNPATH.
    pub runpath: Option<String>,
    /// DT_RPATH.
    pub rpath: Option<String>,
    /// Undefined dynamic symbols, in `.dynsym` order.
    pub imports: Vec<Import>,
    /// Number of defined dynamic symbols (exports).
    pub export_count: usize,
    /// Fatbin sections present.
    pub fatbin_sections: Vec<FatbinSectionInfo>,
    /// Registration wrappers, in section order.
    pub wrappers: Vec<Wrapper>,
    /// Every section header, in order.
    pub sections: Vec<SectionSummary>,
}

impl SharedObject {
    /// Whether a section named `name` exists.
    pub fn has_section(&self, name: &str) -> bool {
        self.sections.iter().any(|s| s.name == name)
    }
}

fn s(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

static SCANS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// How many times [`scan`] has run in this process (instrumentation for the test that every
/// object is scanned once per conversion).
pub fn scans() -> usize {
    SCANS.load(std::sync::atomic::Ordering::Relaxed)
}

/// Validate the ELF-64 header and every section's extent against the file size, so that a
/// truncated file is reported with the offset that runs past its end.
pub fn check_layout(data: &[u8], file: &str) -> Result<()> {
    let e = |off: u64, m: String| Error::at(ErrorKind::Elf, file, off, m);
    if data.len() < 4 || &data[..4] != b"\x7fELF" {
        return Err(e(0, "not an ELF file (missing \\x7fELF magic)".into()));
    }
    if data.len() < 64 {
        return Err(e(
            0,
            format!(
                "truncated ELF header: file has {} bytes, 64 needed",
                data.len()
            ),
        ));
    }
    if data[4] != 2 {
        return Err(e(
            4,
            format!(
                "unsupported ELF class {} (only ELFCLASS64 is read)",
                data[4]
            ),
        ));
    }
    if data[5] != 1 {
        return Err(e(
            5,
            format!(
                "unsupported ELF data encoding {} (only little-endian is read)",
                data[5]
            ),
        ));
    }
    let len = data.len() as u64;
    let shoff = u64_at(data, 0x28);
    let shentsize = u64::from(u16::from_le_bytes([data[0x3a], data[0x3b]]));
    let mut shnum = u64::from(u16::from_le_bytes([data[0x3c], data[0x3d]]));
    if shoff == 0 {
        return Err(e(0x28, "ELF file has no section header table".into()));
    }
    if shentsize != 64 {
        return Err(e(
            0x3a,
            format!("ELF section header size {shentsize} (expected 64)"),
        ));
    }
    if shoff.checked_add(64).is_none_or(|end| end > len) {
        return Err(e(shoff, format!("section header table at offset {shoff:#x} lies past the end of the file ({len:#x} bytes); the file is truncated")));
    }
    if shnum == 0 {
        // Extended numbering: the count is in section 0's sh_size.
        shnum = u64_at(data, shoff as usize + 0x20);
    }
    let end = shnum.checked_mul(64).and_then(|n| n.checked_add(shoff));
    if end.is_none_or(|end| end > len) {
        return Err(e(shoff, format!("section header table ({shnum} entries at offset {shoff:#x}) runs past the end of the file ({len:#x} bytes); the file is truncated")));
    }
    for i in 0..shnum {
        let h = (shoff + i * 64) as usize;
        let sh_type = u32_at(data, h + 4);
        let off = u64_at(data, h + 0x18);
        let size = u64_at(data, h + 0x20);
        if sh_type == elf::SHT_NOBITS.0 || sh_type == elf::SHT_NULL.0 {
            continue;
        }
        if off.checked_add(size).is_none_or(|end| end > len) {
            return Err(e(off, format!("section {i} (offset {off:#x}, size {size:#x}) runs past the end of the file ({len:#x} bytes); the file is truncated")));
        }
    }
    Ok(())
}

/// Read a host shared object from its bytes.
///
/// `file` is the display name used in errors.
///
/// # Errors
/// [`ErrorKind::Elf`] naming the offset when the file is not a little-endian ELF-64 file,
/// is truncated, or has a malformed dynamic section, symbol table or version table.
pub fn scan(data: &[u8], file: &str) -> Result<SharedObject> {
    SCANS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    check_layout(data, file)?;
    let oerr = |what: &str, e: object::read::Error| {
        Error::new(ErrorKind::Elf, file, format!("{what}: {e}"))
    };
    let header = elf::FileHeader64::<Endianness>::parse(data).map_err(|e| oerr("ELF header", e))?;
    let endian = header.endian().map_err(|e| oerr("ELF header", e))?;
    let sections = header
        .sections(endian, data)
        .map_err(|e| oerr("section headers", e))?;
    let mut out = SharedObject {
        machine: header.e_machine(endian).0,
        elf_type: header.e_type(endian).0,
        ..Default::default()
    };

    // Dynamic section.
    for section in sections.iter() {
        if section.sh_type(endian) != elf::SHT_DYNAMIC {
            continue;
        }
        let off = section.sh_offset(endian);
        let dyns: &[elf::Dyn64<Endianness>] = section
            .data_as_array(endian, data)
            .map_err(|_| Error::at(ErrorKind::Elf, file, off, "malformed dynamic section"))?;
        let strtab = sections
            .strings(
                endian,
                data,
                object::SectionIndex(section.sh_link(endian) as usize),
            )
            .map_err(|e| {
                Error::at(
                    ErrorKind::Elf,
                    file,
                    off,
                    format!("dynamic string table: {e}"),
                )
            })?;
        for d in dyns {
            let tag = d.d_tag(endian);
            if tag == elf::DT_NULL {
                break;
            }
            let get = || -> Result<String> {
                let v = d.d_val(endian);
                let v = u32::try_from(v).map_err(|_| {
                    Error::at(
                        ErrorKind::Elf,
                        file,
                        off,
                        "dynamic string offset out of range",
                    )
                })?;
                strtab.get(v).map(s).map_err(|_| {
                    Error::at(
                        ErrorKind::Elf,
                        file,
                        off,
                        format!("dynamic entry string at {v:#x} is outside .dynstr"),
                    )
                })
            };
            if tag == elf::DT_NEEDED {
                out.needed.push(get()?);
            } else if tag == elf::DT_SONAME {
                out.soname = Some(get()?);
            } else if tag == elf::DT_RUNPATH {
                out.runpath = Some(get()?);
            } else if tag == elf::DT_RPATH {
                out.rpath = Some(get()?);
            }
        }
    }

    // Dynamic symbols and versions.
    let dynsyms = sections
        .symbols(endian, data, elf::SHT_DYNSYM)
        .map_err(|e| oerr("dynamic symbol table", e))?;
    let versions = sections
        .versions(endian, data)
        .map_err(|e| oerr("symbol version tables", e))?;
    for (index, sym) in dynsyms.enumerate() {
        if index.0 == 0 {
            continue;
        }
        let name = dynsyms
            .symbol_name(endian, sym)
            .map_err(|e| oerr("dynamic symbol name", e))?;
        if sym.st_shndx(endian) != elf::SHN_UNDEF {
            out.export_count += 1;
            continue;
        }
        if name.is_empty() {
            continue;
        }
        let mut version = None;
        let mut version_file = None;
        if let Some(vt) = &versions {
            let vi = vt.version_index(endian, index);
            if let Some(v) = vt
                .version(vi.index())
                .map_err(|e| oerr("symbol version", e))?
            {
                version = Some(s(v.name()));
                version_file = v.file().map(s);
            }
        }
        out.imports.push(Import {
            name: s(name),
            version,
            version_file,
            weak: sym.st_bind() == elf::STB_WEAK,
        });
    }

    // Fatbin sections.
    let mut segment = None;
    for section in sections.iter() {
        let name = sections.section_name(endian, section).unwrap_or_default();
        out.sections.push(SectionSummary {
            name: s(name),
            sh_type: section.sh_type(endian).0,
            flags: section.sh_flags(endian).0,
            offset: section.sh_offset(endian),
            size: section.sh_size(endian),
        });
        let info = || FatbinSectionInfo {
            name: s(name),
            offset: section.sh_offset(endian),
            address: section.sh_addr(endian),
            size: section.sh_size(endian),
        };
        if name == NV_FATBIN.as_bytes() || name == NV_RELFATBIN.as_bytes() {
            out.fatbin_sections.push(info());
        } else if name == NV_FATBIN_SEGMENT.as_bytes() {
            segment = Some(info());
        }
    }

    // Wrappers and their relocations.
    if let Some(seg) = segment {
        let start = seg.offset as usize;
        let size = seg.size as usize;
        let count = size / WRAPPER_SIZE;
        if !size.is_multiple_of(WRAPPER_SIZE) {
            return Err(Error::at(
                ErrorKind::Elf,
                file,
                seg.offset,
                format!("{NV_FATBIN_SEGMENT} is {size:#x} bytes, not a multiple of the 24-byte wrapper size"),
            ));
        }
        // Collect relocations that target the wrapper data pointers.
        let lo = seg.address;
        let hi = seg.address + seg.size;
        let mut relocs = std::collections::HashMap::new();
        for section in sections.iter() {
            if section.sh_type(endian) != elf::SHT_RELA {
                continue;
            }
            let roff = section.sh_offset(endian);
            let relas: &[elf::Rela64<Endianness>] =
                section.data_as_array(endian, data).map_err(|_| {
                    Error::at(ErrorKind::Elf, file, roff, "malformed relocation section")
                })?;
            for r in relas {
                let at = r.r_offset(endian);
                if at < lo || at >= hi {
                    continue;
                }
                let ty = r.r_type(endian, false);
                if ty == elf::R_X86_64_RELATIVE || ty == elf::R_X86_64_64 {
                    relocs.insert(at, r.r_addend(endian) as u64);
                }
            }
        }
        for i in 0..count {
            let w = start + i * WRAPPER_SIZE;
            let address = seg.address + (i * WRAPPER_SIZE) as u64;
            let field = u64_at(data, w + 8);
            let (data_ptr, relocated) = match relocs.get(&(address + 8)) {
                Some(&a) => (a, true),
                None => (field, false),
            };
            let prelinked = relocs
                .get(&(address + 16))
                .copied()
                .unwrap_or(u64_at(data, w + 16));
            let target = out
                .fatbin_sections
                .iter()
                .find(|f| data_ptr >= f.address && data_ptr < f.address + f.size && f.address != 0);
            out.wrappers.push(Wrapper {
                offset: w as u64,
                address,
                magic: u32_at(data, w),
                version: u32_at(data, w + 4),
                data: data_ptr,
                data_relocated: relocated,
                prelinked,
                section: target.map(|f| f.name.clone()),
                data_offset: target.map(|f| f.offset + (data_ptr - f.address)),
                registered: None,
            });
        }
    }
    Ok(out)
}

impl Wrapper {
    /// True when the magic is `0x466243B1`.
    pub fn is_valid(&self) -> bool {
        self.magic == WRAPPER_MAGIC
    }
}
