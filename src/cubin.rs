//! Kernel names from an ELF cubin (e_machine EM_CUDA = 190).
//!
//! A kernel (`.entry` in PTX) appears in the cubin's `.symtab` as a defined STT_FUNC symbol
//! whose `st_other` has the CUDA entry bit [`STO_CUDA_ENTRY`] (0x10; `cuobjdump -symbols`
//! prints it as `ENTRY`). Kernels in anonymous namespaces are STB_LOCAL, so binding is not
//! used to decide. Device functions of `-rdc` builds are STT_FUNC without the bit.

use crate::elf::scan::check_layout;
use crate::error::{Error, ErrorKind, Result};
use crate::fatbin::payload::{stream, RangeCapture};
use object::elf;
use object::read::elf::{FileHeader, SectionHeader, Sym};
use object::Endianness;

/// `st_other` bit that marks a kernel entry point in a cubin.
pub const STO_CUDA_ENTRY: u8 = 0x10;

/// A kernel defined in a cubin.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CubinKernel {
    /// The mangled name.
    pub name: String,
    /// Bytes of SASS (the symbol's `st_size`, the size of its `.text.<name>` section); 16
    /// bytes per instruction on sm_70 and later.
    pub code_size: u64,
}

/// The kernels defined in `cubin`, in symbol-table order.
///
/// `file` is the display name used in errors (offsets are relative to the cubin start).
///
/// # Errors
/// [`ErrorKind::Elf`] when the cubin is truncated or its symbol table is malformed.
pub fn kernel_names(cubin: &[u8], file: &str) -> Result<Vec<CubinKernel>> {
    check_layout(cubin, file)?;
    let t = parse_tables(cubin, file)?;
    entry_symbols(t.endian, t.symbols.symbols(), t.symbols.strings(), file)
}

/// A cubin's section headers and symbol table, parsed once ([`parse_tables`]).
pub(crate) struct CubinTables<'data> {
    /// The ELF byte order.
    pub endian: Endianness,
    /// The section headers.
    pub sections: object::read::elf::SectionTable<'data, elf::FileHeader64<Endianness>>,
    /// `.symtab`.
    pub symbols: object::read::elf::SymbolTable<'data, elf::FileHeader64<Endianness>>,
}

/// Parse a cubin's ELF header, section headers and `.symtab`.
///
/// # Errors
/// [`ErrorKind::Elf`] naming `file` when a table does not read.
pub(crate) fn parse_tables<'data>(cubin: &'data [u8], file: &str) -> Result<CubinTables<'data>> {
    let oerr = |e: object::read::Error| Error::new(ErrorKind::Elf, file, format!("cubin: {e}"));
    let header = elf::FileHeader64::<Endianness>::parse(cubin).map_err(oerr)?;
    let endian = header.endian().map_err(oerr)?;
    let sections = header.sections(endian, cubin).map_err(oerr)?;
    let symbols = sections
        .symbols(endian, cubin, elf::SHT_SYMTAB)
        .map_err(oerr)?;
    Ok(CubinTables {
        endian,
        sections,
        symbols,
    })
}

/// The architecture a cubin is for (`sm_90a`): the `-arch` option that `ptxas` records in
/// its `.note.nv.tkinfo` note when present (it keeps the `a`/`f` suffix), else the SM
/// number of `e_flags` (bits 8-15 for ELF ABI version 8 and later, CUDA 13; bits 0-7 before).
///
/// # Errors
/// [`ErrorKind::Elf`] when the cubin's headers do not read.
pub fn cubin_arch(cubin: &[u8], file: &str) -> Result<String> {
    check_layout(cubin, file)?;
    let oerr = |e: object::read::Error| Error::new(ErrorKind::Elf, file, format!("cubin: {e}"));
    let header = elf::FileHeader64::<Endianness>::parse(cubin).map_err(oerr)?;
    let endian = header.endian().map_err(oerr)?;
    let sections = header.sections(endian, cubin).map_err(oerr)?;
    for s in sections.iter() {
        if sections.section_name(endian, s).ok() != Some(b".note.nv.tkinfo".as_slice()) {
            continue;
        }
        let Ok(d) = s.data(endian, cubin) else {
            continue;
        };
        if let Some(i) = memchr::memmem::find(d, b"-arch sm_") {
            let rest = &d[i + 6..];
            let end = rest
                .iter()
                .position(|b| !b.is_ascii_alphanumeric() && *b != b'_')
                .unwrap_or(rest.len());
            return Ok(String::from_utf8_lossy(&rest[..end]).into_owned());
        }
    }
    let flags = header.e_flags(endian).0;
    let sm = if header.e_ident().abi_version >= 8 {
        (flags >> 8) & 0xff
    } else {
        flags & 0xff
    };
    Ok(format!("sm_{sm}"))
}

/// The kernel names among `symbols`, whose names are in `strings`.
fn entry_symbols<'d, R: object::ReadRef<'d>>(
    endian: Endianness,
    symbols: &[elf::Sym64<Endianness>],
    strings: object::read::StringTable<'d, R>,
    file: &str,
) -> Result<Vec<CubinKernel>> {
    let mut names = Vec::new();
    for sym in symbols {
        if sym.st_type() != elf::STT_FUNC || sym.st_shndx(endian) == elf::SHN_UNDEF {
            continue;
        }
        if sym.st_other().0 & STO_CUDA_ENTRY == 0 {
            continue;
        }
        let name = sym
            .name(endian, strings)
            .map_err(|e| Error::new(ErrorKind::Elf, file, format!("cubin symbol name: {e}")))?;
        names.push(CubinKernel {
            name: String::from_utf8_lossy(name).into_owned(),
            code_size: sym.st_size(endian),
        });
    }
    Ok(names)
}

/// The kernel names of the cubin in a fatbin entry.
///
/// An uncompressed cubin is read in place (only the pages of its headers and symbol table
/// are touched). A compressed one is streamed twice through a bounded window
/// ([`payload::stream`](crate::fatbin::payload::stream)): the first pass keeps the ELF header
/// and the section header table, the second the symbol table and its string table, so a
/// 12 MB cubin costs a few hundred KB of memory rather than 12 MB.
///
/// `file` names the host file in errors; offsets in errors are file offsets.
///
/// # Errors
/// [`ErrorKind::Fatbin`] for corrupt compressed data, [`ErrorKind::Elf`] for a malformed
/// cubin.
pub fn entry_kernel_names(
    entry: &crate::fatbin::Entry<'_>,
    file: &str,
) -> Result<Vec<CubinKernel>> {
    let at = entry.payload_offset();
    let name = format!("{file} (cubin at offset {at:#x})");
    let c = entry.compression();
    if c == crate::fatbin::Compression::None {
        return kernel_names(entry.stored, &name);
    }
    let declared = entry.header.uncompressed_size;
    let fb = |m: String| Error::at(ErrorKind::Fatbin, file, at, m);
    let ef = |off: u64, m: &str| Error::at(ErrorKind::Elf, &name, off, m.to_string());
    // Pass 1 (whole stream, sizes checked): ELF header, then the section header table.
    let mut cap = RangeCapture::default();
    let hdr = cap.want(0, 64);
    let mut sht: Option<usize> = None;
    let mut bad: Option<Error> = None;
    stream(c, entry.stored, declared, &mut |off, chunk| {
        cap.feed(off, chunk);
        if sht.is_none() && bad.is_none() && cap.complete(hdr) {
            let h = &cap.got[hdr];
            if &h[..4] != b"\x7fELF" || h[4] != 2 || h[5] != 1 {
                bad = Some(ef(
                    0,
                    "compressed cubin payload is not a little-endian ELF-64 file",
                ));
                return false;
            }
            let shoff = u64::from_le_bytes(h[0x28..0x30].try_into().unwrap());
            let shnum = u64::from(u16::from_le_bytes([h[0x3c], h[0x3d]]));
            let end = shoff.checked_add(shnum * 64).filter(|&e| e <= declared);
            match end {
                Some(end) => {
                    let k = cap.want(shoff, end);
                    sht = Some(k);
                    // The table may start inside the chunk just fed.
                    if shoff < off + chunk.len() as u64 {
                        cap.got[k].clear();
                        cap.feed(off, chunk);
                        cap.got[hdr].truncate(64);
                    }
                }
                None => {
                    bad = Some(ef(
                        0x28,
                        "section header table runs past the end of the cubin",
                    ))
                }
            }
        }
        true
    })
    .map_err(fb)?;
    if let Some(e) = bad {
        return Err(e);
    }
    let sht = sht.ok_or_else(|| ef(0, "truncated cubin: no complete ELF header"))?;
    if !cap.complete(sht) {
        return Err(ef(0x28, "truncated cubin: section header table incomplete"));
    }
    let table: &[elf::SectionHeader64<Endianness>] =
        object::pod::slice_from_all_bytes(&cap.got[sht])
            .map_err(|_| ef(0x28, "misaligned section header table"))?;
    let le = Endianness::Little;
    let Some(symtab) = table.iter().find(|s| s.sh_type(le) == elf::SHT_SYMTAB) else {
        return Ok(Vec::new());
    };
    let strtab = table
        .get(symtab.sh_link(le) as usize)
        .ok_or_else(|| ef(0x28, "symbol table links to a missing string table"))?;
    let range = |s: &elf::SectionHeader64<Endianness>| -> Result<(u64, u64)> {
        let (o, n) = (s.sh_offset(le), s.sh_size(le));
        o.checked_add(n)
            .filter(|&e| e <= declared)
            .map(|e| (o, e))
            .ok_or_else(|| ef(o, "section runs past the end of the cubin"))
    };
    let (s0, s1) = range(symtab)?;
    let (t0, t1) = range(strtab)?;
    // Pass 2: the symbol table and its strings.
    let mut cap2 = RangeCapture::default();
    let ks = cap2.want(s0, s1);
    let kt = cap2.want(t0, t1);
    // Both tables usually sit at the start of an nvcc cubin, so this pass stops early.
    stream(c, entry.stored, declared, &mut |off, chunk| {
        cap2.feed(off, chunk);
        !cap2.all_complete()
    })
    .map_err(fb)?;
    let mut syms_bytes = std::mem::take(&mut cap2.got[ks]);
    syms_bytes.truncate(syms_bytes.len() / 24 * 24);
    let symbols: &[elf::Sym64<Endianness>] = object::pod::slice_from_all_bytes(&syms_bytes)
        .map_err(|_| ef(s0, "malformed symbol table"))?;
    let strings = object::read::StringTable::new(&cap2.got[kt][..], 0, cap2.got[kt].len() as u64);
    entry_symbols(le, symbols, strings, &name)
}

/// Demangle an Itanium C++ name for display; names that do not demangle are returned as is.
pub fn demangle(name: &str) -> String {
    if !name.starts_with("_Z") {
        return name.to_string();
    }
    match cpp_demangle::Symbol::new(name) {
        Ok(sym) => {
            let opts = cpp_demangle::DemangleOptions::new();
            sym.demangle(&opts).unwrap_or_else(|_| name.to_string())
        }
        Err(_) => name.to_string(),
    }
}
