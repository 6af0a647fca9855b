//! Kernel names from an ELF cubin (e_machine EM_CUDA = 190).
//!
//! A kernel (`.entry` in PTX) appears in the cubin's `.symtab` as a defined STT_FUNC symbol
//! whose `st_other` has the CUDA entry bit [`STO_CUDA_ENTRY`] (0x10; `cuobjdump -symbols`
//! prints it as `ENTRY`). Kernels in anonymous namespaces are STB_LOCAL, so binding is not
//! used to decide. Device functions of `-rdc` builds are STT_FUNC without the bit.

use crate::elf::scan::check_layout;
use crate::error::{Error, ErrorKind, Result};
use object::elf;
use object::read::elf::{FileHeader, Sym};
use object::Endianness;

/// `st_other` bit that marks a kernel entry point in a cubin.
pub const STO_CUDA_ENTRY: u8 = 0x10;

/// The names of the kernels defined in `cubin`, in symbol-table order.
///
/// `file` is the display name used in errors (offsets are relative to the cubin start).
///
/// # Errors
/// [`ErrorKind::Elf`] when the cubin is truncated or its symbol table is malformed.
pub fn kernel_names(cubin: &[u8], file: &str) -> Result<Vec<String>> {
    check_layout(cubin, file)?;
    let oerr = |e: object::read::Error| Error::new(ErrorKind::Elf, file, format!("cubin: {e}"));
    let header = elf::FileHeader64::<Endianness>::parse(cubin).map_err(oerr)?;
    let endian = header.endian().map_err(oerr)?;
    let sections = header.sections(endian, cubin).map_err(oerr)?;
    let symbols = sections.symbols(endian, cubin, elf::SHT_SYMTAB).map_err(oerr)?;
    let mut names = Vec::new();
    for sym in symbols.iter() {
        if sym.st_type() != elf::STT_FUNC || sym.st_shndx(endian) == elf::SHN_UNDEF {
            continue;
        }
        if sym.st_other().0 & STO_CUDA_ENTRY == 0 {
            continue;
        }
        let name = symbols.symbol_name(endian, sym).map_err(oerr)?;
        names.push(String::from_utf8_lossy(name).into_owned());
    }
    Ok(names)
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
