//! Device code kept as data: PTX text and CUDA fatbin containers in a host object's data
//! sections (`.rodata`, `.data.rel.ro`, `.data`), outside the fatbin sections the runtime
//! registers. A library hands such a module to the driver at run time (`cuModuleLoadData`,
//! `cuModuleLoadFatBinary`, `cudaLibraryLoadData`, or an entry point fetched by name through
//! `cuGetProcAddress`/`cudaGetDriverEntryPoint`, which no import shows), so wheelport does not
//! translate it and must say so.
//!
//! Found: a NUL-terminated PTX text (PTX ISA §11: a module starts with `.version`, then
//! `.target`) holding at least one `.entry`, its kernels by [`crate::inspect::ptx_entries`];
//! a fatbin container (`0xBA55ED50`, version 1, 16-byte header, reference
//! `fatbin-layout.md` §1) at an 8-aligned offset whose entries parse, its kernels those of its
//! cubins, else of its PTX.

/// What a [`EmbeddedModule`] is.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub enum EmbeddedKind {
    /// PTX text for `target` (its `.target` directive's first word, `sm_80`).
    Ptx {
        /// The `.target` arch.
        target: String,
    },
    /// A CUDA fatbin container.
    Fatbin,
}

/// One module kept as data in a host object.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct EmbeddedModule {
    /// The section holding it.
    pub section: String,
    /// Its file offset.
    pub offset: u64,
    /// Its size in bytes (PTX: up to its NUL; fatbin: header and payload).
    pub size: u64,
    /// PTX text or a fatbin.
    pub kind: EmbeddedKind,
    /// The kernels it defines, in order.
    pub kernels: Vec<String>,
}

/// Sections that hold device code the runtime registers, or that wheelport wrote.
const FATBIN_SECTIONS: [&str; 4] = [
    ".nv_fatbin",
    "__nv_relfatbin",
    ".nvFatBinSegment",
    ".hip_fatbin",
];

/// The modules kept as data in the host object `data`, whose sections the ELF scan read
/// ([`super::scan()`]): allocated `SHT_PROGBITS` sections that are not executable, other than
/// the fatbin sections.
pub fn embedded_modules(data: &[u8], sections: &[super::SectionSummary]) -> Vec<EmbeddedModule> {
    use object::elf;
    let mut out = Vec::new();
    for s in sections {
        let data_section = s.sh_type == elf::SHT_PROGBITS.0
            && s.flags & elf::SHF_ALLOC.0 != 0
            && s.flags & elf::SHF_EXECINSTR.0 == 0;
        if !data_section || FATBIN_SECTIONS.iter().any(|f| s.name.starts_with(f)) {
            continue;
        }
        let Some(bytes) = data.get(s.offset as usize..(s.offset + s.size) as usize) else {
            continue;
        };
        ptx_texts(bytes, &s.name, s.offset, &mut out);
        fatbins(bytes, &s.name, s.offset, &mut out);
    }
    out.sort_by_key(|m| m.offset);
    out
}

/// PTX modules in `bytes` (section `name` at file offset `off`).
fn ptx_texts(bytes: &[u8], name: &str, off: u64, out: &mut Vec<EmbeddedModule>) {
    const VERSION: &[u8] = b".version ";
    let mut at = 0;
    while let Some(i) = find(&bytes[at..], VERSION) {
        let start = at + i;
        let end = bytes[start..]
            .iter()
            .position(|&b| b == 0)
            .map_or(bytes.len(), |n| start + n);
        let text = &bytes[start..end];
        at = end.max(start + VERSION.len());
        let Some(t) = find(text, b".target ") else {
            continue;
        };
        let target: String = text[t + 8..]
            .iter()
            .take_while(|b| b.is_ascii_alphanumeric() || **b == b'_')
            .map(|&b| b as char)
            .collect();
        let kernels = crate::inspect::ptx_entries::entry_names(text);
        if target.is_empty() || kernels.is_empty() {
            continue;
        }
        out.push(EmbeddedModule {
            section: name.to_string(),
            offset: off + start as u64,
            size: text.len() as u64,
            kind: EmbeddedKind::Ptx { target },
            kernels,
        });
    }
}

/// Fatbin containers in `bytes` (section `name` at file offset `off`).
fn fatbins(bytes: &[u8], name: &str, off: u64, out: &mut Vec<EmbeddedModule>) {
    const MAGIC: [u8; 4] = 0xBA55_ED50u32.to_le_bytes();
    let mut pos = 0;
    while pos + 16 <= bytes.len() {
        let h = &bytes[pos..pos + 16];
        let size = u64::from_le_bytes(h[8..16].try_into().unwrap_or_default());
        let fits = (bytes.len() - pos - 16) as u64 >= size;
        if h[..4] != MAGIC || h[4..8] != [1, 0, 16, 0] || size == 0 || !fits {
            pos += 8;
            continue;
        }
        let whole = &bytes[pos..pos + 16 + size as usize];
        let Ok(cs) = crate::fatbin::parse_section(whole, off + pos as u64, name) else {
            pos += 8;
            continue;
        };
        let mut sass = Vec::new();
        let mut ptx = Vec::new();
        for e in cs.iter().flat_map(|c| c.entries.iter()) {
            match e.kind() {
                crate::fatbin::EntryKind::Elf => {
                    if let Ok(p) = e.payload() {
                        let names = crate::cubin::kernel_names(&p, name).unwrap_or_default();
                        sass.extend(names.into_iter().map(|k| k.name));
                    }
                }
                crate::fatbin::EntryKind::Ptx => {
                    if let Ok(p) = e.ptx_bytes() {
                        ptx.extend(crate::inspect::ptx_entries::entry_names(&p));
                    }
                }
                _ => {}
            }
        }
        let mut kernels = if sass.is_empty() { ptx } else { sass };
        let mut seen = std::collections::HashSet::new();
        kernels.retain(|k| seen.insert(k.clone()));
        out.push(EmbeddedModule {
            section: name.to_string(),
            offset: off + pos as u64,
            size: 16 + size,
            kind: EmbeddedKind::Fatbin,
            kernels,
        });
        pos += (16 + size as usize).next_multiple_of(8);
    }
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}
