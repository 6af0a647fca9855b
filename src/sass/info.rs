//! What a cubin says about its kernels besides the code: the `.nv.info` attributes
//! (`EIATTR_*`: parameter layout, register count, frame size, exit offsets, max threads, ...;
//! names from `src/sass/eiattr.tsv`), the parameter constant bank (`EIATTR_PARAM_CBANK`:
//! bank 0 offset and size), each parameter (`EIATTR_KPARAM_INFO`: ordinal, offset, size),
//! the static shared memory (`.nv.shared.<kernel>` size), the constant sections
//! (`.nv.constant0.<kernel>`, `.nv.constant2`, `.nv.constant3`), the module's data (the
//! `.nv.global.init`, `.nv.global` and `.nv.constant3` symbols, [`DataSymbol`]) and the
//! relocations that the driver applies to the constant banks and data at load time
//! ([`Reloc`]: `.rel.nv.constant4` holds the addresses of the data and functions that SASS
//! reads from bank 4).
//!
//! Read with `object` from the cubin's section headers and symbol table. Each attribute is
//! `format: u8, code: u8` and then by format: `EIFMT_NVAL` (1) two bytes of no value,
//! `EIFMT_BVAL` (2) one byte and a pad, `EIFMT_HVAL` (3) a u16, `EIFMT_SVAL` (4) a u16 size
//! and that many bytes.

use crate::error::{Error, ErrorKind, Result};
use object::elf;
use object::read::elf::{Rel, Rela, SectionHeader, Sym};
use std::collections::BTreeMap;

static EIATTR_TSV: &str = include_str!("eiattr.tsv");

/// The name of attribute `code` (`EIATTR_KPARAM_INFO`), from `eiattr.tsv`.
pub fn eiattr_name(code: u8) -> Option<&'static str> {
    EIATTR_TSV
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .filter_map(|l| l.split_once('\t'))
        .find(|(c, _)| u8::from_str_radix(c.trim_start_matches("0x"), 16).ok() == Some(code))
        .map(|(_, n)| n.trim())
}

/// The attribute code of `name`.
pub fn eiattr_code(name: &str) -> Option<u8> {
    EIATTR_TSV
        .lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| l.split_once('\t'))
        .find(|(_, n)| n.trim() == name)
        .and_then(|(c, _)| u8::from_str_radix(c.trim_start_matches("0x"), 16).ok())
}

/// One `.nv.info` attribute as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Attr {
    /// The format byte (1 NVAL, 2 BVAL, 3 HVAL, 4 SVAL).
    pub format: u8,
    /// The attribute code.
    pub code: u8,
    /// The value bytes (2 for NVAL/BVAL/HVAL, the payload for SVAL).
    pub value: Vec<u8>,
}

impl Attr {
    /// The table name, or `EIATTR_0x<code>`.
    pub fn name(&self) -> String {
        eiattr_name(self.code)
            .map(str::to_string)
            .unwrap_or_else(|| format!("EIATTR_{:#04x}", self.code))
    }
    fn u32_at(&self, i: usize) -> Option<u32> {
        Some(u32::from_le_bytes(
            self.value.get(i..i + 4)?.try_into().ok()?,
        ))
    }
    fn u16_at(&self, i: usize) -> Option<u16> {
        Some(u16::from_le_bytes(
            self.value.get(i..i + 2)?.try_into().ok()?,
        ))
    }
}

/// One kernel parameter (`EIATTR_KPARAM_INFO`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Param {
    /// The parameter's position in the signature.
    pub ordinal: u16,
    /// Byte offset inside the parameter block.
    pub offset: u16,
    /// Size in bytes.
    pub size: u16,
    /// log2 of the pointee's alignment (0 when not a pointer or unknown).
    pub log_align: u8,
}

/// What the cubin says about one kernel.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct KernelInfo {
    /// The kernel's name.
    pub name: String,
    /// Its own attributes (`.nv.info.<name>`), in stored order.
    pub attrs: Vec<Attr>,
    /// Attributes of the global `.nv.info` that name this kernel's symbol.
    pub global_attrs: Vec<Attr>,
    /// The parameters, by ordinal.
    pub params: Vec<Param>,
    /// Bank-0 byte offset of the parameter block (`EIATTR_PARAM_CBANK`; 0x160 on sm_80,
    /// 0x210 on sm_90).
    pub param_base: Option<u32>,
    /// Size of the parameter block in bytes (`EIATTR_CBANK_PARAM_SIZE`).
    pub param_size: Option<u32>,
    /// `EIATTR_REGCOUNT`.
    pub regcount: Option<u32>,
    /// `EIATTR_FRAME_SIZE` (bytes of local memory per thread).
    pub frame_size: Option<u32>,
    /// `EIATTR_MIN_STACK_SIZE`: the frame plus the deepest chain of callee frames
    /// ([`UNKNOWN_STACK`] when the call graph is recursive).
    pub min_stack_size: Option<u32>,
    /// `EIATTR_MAX_THREADS` (x, y, z) from `__launch_bounds__`/`.maxntid`.
    pub max_threads: Option<[u32; 3]>,
    /// `EIATTR_REQNTID` (x, y, z).
    pub reqntid: Option<[u32; 3]>,
    /// `EIATTR_EXIT_INSTR_OFFSETS`.
    pub exit_offsets: Vec<u32>,
    /// `EIATTR_NUM_BARRIERS`.
    pub num_barriers: Option<u8>,
    /// Bytes of static shared memory (`.nv.shared.<name>`).
    pub shared_size: u64,
    /// Bytes of `.nv.constant0.<name>` (driver constants and parameters).
    pub constant0_size: u64,
    /// The kernel's own other constant banks (`.nv.constant2.<name>`: its compiler
    /// constants), as bank to bytes.
    pub constant_banks: BTreeMap<u8, Vec<u8>>,
}

/// What a cubin says besides the code.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CubinInfo {
    /// Per kernel (entry symbol), in symbol order.
    pub kernels: Vec<KernelInfo>,
    /// The global `.nv.info` attributes in stored order (with the symbol index they name,
    /// when their value starts with one).
    pub global_attrs: Vec<Attr>,
    /// `.nv.constant<N>` sections that are not per kernel (2: compiler constants, 3: user
    /// `__constant__`), as (bank, bytes).
    pub constant_banks: BTreeMap<u8, Vec<u8>>,
    /// The banks of `constant_banks` that have a relocation section (`.rel.nv.constant2`,
    /// `.rela.nv.constant2`): their bytes are patched at load time.
    pub relocated_banks: std::collections::BTreeSet<u8>,
    /// The module's data sections that are not per kernel (`.nv.global.init`, `.nv.global`,
    /// `.nv.constant3`), by name: their bytes (zeros for `.nv.global`, which has none stored).
    pub data: BTreeMap<String, Vec<u8>>,
    /// The objects of [`CubinInfo::data`] and every function symbol, in symbol-table order.
    pub symbols: Vec<DataSymbol>,
    /// Per section name (`.nv.constant4`, `.nv.global.init`), the relocations that patch it,
    /// in stored order.
    pub relocations: BTreeMap<String, Vec<Reloc>>,
}

/// `EIATTR_MIN_STACK_SIZE` of a kernel whose call graph is recursive (ptxas cannot bound it).
pub const UNKNOWN_STACK: u32 = u32::MAX;

/// `R_CUDA_64`: the relocation that writes a symbol's 64-bit address (plus the addend) at
/// its offset (what `cuobjdump -elf` names type 2; the only type bank 4 holds for ptxas 13.5).
pub const R_CUDA_64: u32 = 2;

/// A data object of the module (a `__device__` or `__constant__` variable, a string literal
/// `$str`) or a function, as the symbol table has it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DataSymbol {
    /// The symbol's name.
    pub name: String,
    /// The section it lies in (`.nv.global.init`, `.nv.global`, `.nv.constant3`, `.text.k`).
    pub section: String,
    /// Byte offset in that section.
    pub offset: u64,
    /// Size in bytes.
    pub size: u64,
    /// `STB_GLOBAL` (visible to other modules and the host), else local.
    pub global: bool,
    /// `STT_FUNC`: a function (a kernel, a device function, or an external one such as
    /// `vprintf` when undefined).
    pub function: bool,
}

/// One relocation of a section.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reloc {
    /// Byte offset in the patched section.
    pub offset: u64,
    /// The relocation type (`R_CUDA_64` = [`R_CUDA_64`]).
    pub kind: u32,
    /// The symbol whose address is written.
    pub symbol: String,
    /// The addend (`.rela`), or the value stored at the offset (`.rel`, 8 bytes).
    pub addend: i64,
}

impl CubinInfo {
    /// The kernel named `name`.
    pub fn kernel(&self, name: &str) -> Option<&KernelInfo> {
        self.kernels.iter().find(|k| k.name == name)
    }

    /// The symbol named `name`.
    pub fn symbol(&self, name: &str) -> Option<&DataSymbol> {
        self.symbols.iter().find(|s| s.name == name)
    }

    /// The relocation of `section` at byte `offset`.
    pub fn reloc_at(&self, section: &str, offset: u64) -> Option<&Reloc> {
        self.relocations
            .get(section)?
            .iter()
            .find(|r| r.offset == offset)
    }
}

/// The attributes stored in one `.nv.info*` section.
///
/// # Errors
/// A message when an attribute runs past the section or has an unknown format.
pub fn parse_attrs(d: &[u8]) -> std::result::Result<Vec<Attr>, String> {
    let mut out = Vec::new();
    let mut i = 0;
    while i + 4 <= d.len() {
        let (format, code) = (d[i], d[i + 1]);
        let (value, next) = match format {
            1..=3 => (d[i + 2..i + 4].to_vec(), i + 4),
            4 => {
                let n = u16::from_le_bytes([d[i + 2], d[i + 3]]) as usize;
                let v = d.get(i + 4..i + 4 + n).ok_or_else(|| {
                    format!("attribute {code:#x} at {i:#x} runs past the section")
                })?;
                (v.to_vec(), i + 4 + n)
            }
            f => return Err(format!("attribute at {i:#x}: unknown format {f:#x}")),
        };
        out.push(Attr {
            format,
            code,
            value,
        });
        i = next;
    }
    if i != d.len() {
        return Err(format!("{} trailing bytes", d.len() - i));
    }
    Ok(out)
}

/// Read the `.nv.info` attributes, parameters, shared and constant sizes of every kernel of
/// `cubin`. `file` names it in errors.
///
/// # Errors
/// [`ErrorKind::Elf`] when the headers or a `.nv.info` section do not read.
pub fn read(cubin: &[u8], file: &str) -> Result<CubinInfo> {
    let tables = crate::cubin::parse_tables(cubin, file)?;
    let (endian, sections, symbols) = (tables.endian, &tables.sections, &tables.symbols);
    let kernels = crate::cubin::kernel_names(cubin, file)?;
    let mut info = CubinInfo {
        kernels: kernels
            .iter()
            .map(|k| KernelInfo {
                name: k.name.clone(),
                ..Default::default()
            })
            .collect(),
        ..Default::default()
    };
    // Symbol index -> kernel position.
    let mut by_sym: BTreeMap<u32, usize> = BTreeMap::new();
    for (i, s) in symbols.symbols().iter().enumerate() {
        if let Ok(n) = s.name(endian, symbols.strings()) {
            if let Some(k) = info.kernels.iter().position(|k| k.name.as_bytes() == n) {
                by_sym.insert(i as u32, k);
            }
        }
    }
    for s in sections.iter() {
        let Ok(name) = sections.section_name(endian, s) else {
            continue;
        };
        let name = String::from_utf8_lossy(name).into_owned();
        let data = || {
            s.data(endian, cubin).map_err(|_| {
                Error::new(
                    ErrorKind::Elf,
                    file,
                    format!("section {name} does not read"),
                )
            })
        };
        let bad = |m: String| Error::new(ErrorKind::Elf, file, format!("{name}: {m}"));
        if name == ".nv.info" {
            let attrs = parse_attrs(data()?).map_err(bad)?;
            for a in attrs {
                if a.format == 4 {
                    if let Some(&k) = a.u32_at(0).and_then(|sym| by_sym.get(&sym)) {
                        info.kernels[k].global_attrs.push(a.clone());
                    }
                }
                info.global_attrs.push(a);
            }
        } else if let Some(k) = name.strip_prefix(".nv.info.") {
            let attrs = parse_attrs(data()?).map_err(bad)?;
            if let Some(ki) = info.kernels.iter_mut().find(|x| x.name == k) {
                ki.attrs = attrs;
            }
        } else if let Some(k) = name.strip_prefix(".nv.shared.") {
            if let Some(ki) = info.kernels.iter_mut().find(|x| x.name == k) {
                ki.shared_size = s.sh_size(endian);
            }
        } else if let Some(b) = name
            .strip_prefix(".rel.nv.constant")
            .or_else(|| name.strip_prefix(".rela.nv.constant"))
            .and_then(|b| b.split('.').next().unwrap_or("").parse::<u8>().ok())
        {
            info.relocated_banks.insert(b);
        } else if let Some(rest) = name.strip_prefix(".nv.constant") {
            match rest.split_once('.') {
                Some(("0", k)) => {
                    if let Some(ki) = info.kernels.iter_mut().find(|x| x.name == k) {
                        ki.constant0_size = s.sh_size(endian);
                    }
                }
                Some((b, k)) => {
                    if let (Ok(b), Some(ki)) = (
                        b.parse::<u8>(),
                        info.kernels.iter_mut().find(|x| x.name == k),
                    ) {
                        let bytes = if s.sh_type(endian) == elf::SHT_NOBITS {
                            vec![0; s.sh_size(endian) as usize]
                        } else {
                            data()?.to_vec()
                        };
                        ki.constant_banks.insert(b, bytes);
                    }
                }
                None => {
                    if let Ok(b) = rest.parse::<u8>() {
                        let bytes = if s.sh_type(endian) == elf::SHT_NOBITS {
                            vec![0; s.sh_size(endian) as usize]
                        } else {
                            data()?.to_vec()
                        };
                        info.constant_banks.insert(b, bytes);
                    }
                }
            }
        }
    }
    read_data(&mut info, cubin, &tables, file)?;
    for k in &mut info.kernels {
        decode_known(k);
    }
    Ok(info)
}

/// The data sections' bytes, the symbols of data and functions, and the relocations of `cubin`
/// into `info`.
fn read_data(
    info: &mut CubinInfo,
    cubin: &[u8],
    tables: &crate::cubin::CubinTables<'_>,
    file: &str,
) -> Result<()> {
    let (endian, sections, symbols) = (tables.endian, &tables.sections, &tables.symbols);
    let name_of = |i: usize| -> Option<String> {
        let s = sections.section(object::SectionIndex(i)).ok()?;
        sections
            .section_name(endian, s)
            .ok()
            .map(|n| String::from_utf8_lossy(n).into_owned())
    };
    const DATA: [&str; 3] = [".nv.global.init", ".nv.global", ".nv.constant3"];
    for s in sections.iter() {
        let Ok(n) = sections.section_name(endian, s) else {
            continue;
        };
        let n = String::from_utf8_lossy(n);
        if DATA.contains(&n.as_ref()) {
            let bytes = if s.sh_type(endian) == elf::SHT_NOBITS {
                vec![0; s.sh_size(endian) as usize]
            } else {
                s.data(endian, cubin)
                    .map_err(|_| {
                        Error::new(ErrorKind::Elf, file, format!("section {n} does not read"))
                    })?
                    .to_vec()
            };
            info.data.insert(n.into_owned(), bytes);
        }
    }
    let mut names: Vec<String> = Vec::with_capacity(symbols.len());
    for sym in symbols.symbols() {
        let name = sym
            .name(endian, symbols.strings())
            .map(|n| String::from_utf8_lossy(n).into_owned())
            .unwrap_or_default();
        names.push(name.clone());
        let function = sym.st_type() == elf::STT_FUNC;
        let shndx = usize::from(sym.st_shndx(endian).0);
        let section = if shndx == 0 || shndx >= 0xff00 {
            String::new()
        } else {
            name_of(shndx).unwrap_or_default()
        };
        if name.is_empty()
            || !(function || (sym.st_type() == elf::STT_OBJECT && DATA.contains(&section.as_str())))
        {
            continue;
        }
        info.symbols.push(DataSymbol {
            name,
            section,
            offset: sym.st_value(endian),
            size: sym.st_size(endian),
            global: sym.st_bind() == elf::STB_GLOBAL,
            function,
        });
    }
    for s in sections.iter() {
        let target = name_of(s.sh_info(endian) as usize).unwrap_or_default();
        let bad = |m: &str| {
            Error::new(
                ErrorKind::Elf,
                file,
                format!("relocations of {target}: {m}"),
            )
        };
        let mut out = Vec::new();
        if let Some((rels, _)) = s.rel(endian, cubin).map_err(|e| bad(&e.to_string()))? {
            let stored = info.data.get(&target).or_else(|| {
                target
                    .strip_prefix(".nv.constant")
                    .and_then(|b| b.parse::<u8>().ok())
                    .and_then(|b| info.constant_banks.get(&b))
            });
            for r in rels {
                let offset = r.r_offset(endian);
                let addend = stored
                    .and_then(|d| d.get(offset as usize..offset as usize + 8))
                    .map_or(0, |w| i64::from_le_bytes(w.try_into().expect("8 bytes")));
                out.push((offset, r.r_type(endian).0, r.r_sym(endian), addend));
            }
        } else if let Some((relas, _)) = s.rela(endian, cubin).map_err(|e| bad(&e.to_string()))? {
            for r in relas {
                out.push((
                    r.r_offset(endian),
                    r.r_type(endian, false).0,
                    r.r_sym(endian, false),
                    r.r_addend(endian),
                ));
            }
        } else {
            continue;
        }
        let list = info.relocations.entry(target.clone()).or_default();
        for (offset, kind, sym, addend) in out {
            let symbol = names
                .get(sym as usize)
                .cloned()
                .ok_or_else(|| bad(&format!("symbol index {sym} past the symbol table")))?;
            list.push(Reloc {
                offset,
                kind,
                symbol,
                addend,
            });
        }
    }
    Ok(())
}

fn code(name: &str) -> u8 {
    eiattr_code(name).unwrap_or(0)
}

fn decode_known(k: &mut KernelInfo) {
    let (kparam, cbank, psize, reqntid, maxthr, exits, nbar) = (
        code("EIATTR_KPARAM_INFO"),
        code("EIATTR_PARAM_CBANK"),
        code("EIATTR_CBANK_PARAM_SIZE"),
        code("EIATTR_REQNTID"),
        code("EIATTR_MAX_THREADS"),
        code("EIATTR_EXIT_INSTR_OFFSETS"),
        code("EIATTR_NUM_BARRIERS"),
    );
    for a in &k.attrs {
        match a.code {
            c if c == kparam => {
                if let (Some(ord), Some(off), Some(flags)) = (a.u16_at(4), a.u16_at(6), a.u32_at(8))
                {
                    k.params.push(Param {
                        ordinal: ord,
                        offset: off,
                        size: (flags >> 18) as u16,
                        log_align: (flags & 0xff) as u8,
                    });
                }
            }
            c if c == cbank => {
                k.param_base = a.u16_at(4).map(u32::from);
            }
            c if c == psize => k.param_size = a.u16_at(0).map(u32::from),
            c if c == reqntid || c == maxthr => {
                let v = [a.u32_at(0), a.u32_at(4), a.u32_at(8)];
                if let [Some(x), Some(y), Some(z)] = v {
                    if c == reqntid {
                        k.reqntid = Some([x, y, z]);
                    } else {
                        k.max_threads = Some([x, y, z]);
                    }
                }
            }
            c if c == exits => {
                k.exit_offsets = a
                    .value
                    .chunks_exact(4)
                    .map(|w| u32::from_le_bytes(w.try_into().unwrap()))
                    .collect();
            }
            c if c == nbar => k.num_barriers = a.value.first().copied(),
            _ => {}
        }
    }
    k.params.sort_by_key(|p| p.ordinal);
    let (regcount, frame, stack) = (
        code("EIATTR_REGCOUNT"),
        code("EIATTR_FRAME_SIZE"),
        code("EIATTR_MIN_STACK_SIZE"),
    );
    for a in &k.global_attrs {
        if a.code == regcount {
            k.regcount = a.u32_at(4);
        } else if a.code == frame {
            k.frame_size = a.u32_at(4);
        } else if a.code == stack {
            k.min_stack_size = a.u32_at(4);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_reads() {
        assert_eq!(eiattr_name(0x17), Some("EIATTR_KPARAM_INFO"));
        assert_eq!(eiattr_code("EIATTR_REGCOUNT"), Some(0x2f));
        // Bytes of .nv.info.loop from a ptxas 13.5 sm_80 cubin (PARAM_CBANK, CBANK_PARAM_SIZE,
        // two KPARAM_INFO).
        let d = [
            4u8, 0x0a, 8, 0, 5, 0, 0, 0, 0x60, 1, 0x0c, 0, 3, 0x19, 0x0c, 0, 4, 0x17, 12, 0, 0, 0,
            0, 0, 1, 0, 8, 0, 0, 0xf0, 0x11, 0,
        ];
        let a = parse_attrs(&d).unwrap();
        assert_eq!(a.len(), 3);
        let mut k = KernelInfo {
            attrs: a,
            ..Default::default()
        };
        decode_known(&mut k);
        assert_eq!(k.param_base, Some(0x160));
        assert_eq!(k.param_size, Some(12));
        assert_eq!(
            k.params,
            vec![Param {
                ordinal: 1,
                offset: 8,
                size: 4,
                log_align: 0
            }]
        );
    }
}
