//! The AMDGPU code-object loader: an ELF64 shared object as `ld.lld` links it for
//! `amdgcn-amd-amdhsa` (LLVM AMDGPUUsage, "ELF Code Object"): its loadable image, its kernels
//! (`<name>` code symbol + `<name>.kd` 64-byte kernel descriptor, "Kernel Descriptor"), the
//! `NT_AMDGPU_METADATA` note (MessagePack, "Code Object V3-V5 Metadata") and its dynamic
//! relocations (`R_AMDGPU_ABS64`, `R_AMDGPU_RELATIVE64`). Every read is bounds-checked: a
//! truncated or malformed object gives an [`Error`], never a panic.

use crate::isa::Arch;
use crate::Error;

/// An argument of a kernel, from the metadata's `.args`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Arg {
    /// `.name` (may be empty).
    pub name: String,
    /// Byte offset in the kernarg segment.
    pub offset: u32,
    /// Size in bytes.
    pub size: u32,
    /// `.value_kind` (`by_value`, `global_buffer`, `hidden_block_count_x`, ...).
    pub kind: String,
}

/// The 64-byte kernel descriptor (AMDGPUUsage, "Kernel Descriptor for GFX6-GFX12").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Descriptor {
    /// GROUP_SEGMENT_FIXED_SIZE: static LDS bytes.
    pub group_segment_fixed_size: u32,
    /// PRIVATE_SEGMENT_FIXED_SIZE: scratch bytes per work-item.
    pub private_segment_fixed_size: u32,
    /// KERNARG_SIZE.
    pub kernarg_size: u32,
    /// KERNEL_CODE_ENTRY_BYTE_OFFSET, from the descriptor's address.
    pub entry_offset: i64,
    /// COMPUTE_PGM_RSRC3.
    pub rsrc3: u32,
    /// COMPUTE_PGM_RSRC1.
    pub rsrc1: u32,
    /// COMPUTE_PGM_RSRC2.
    pub rsrc2: u32,
    /// The ENABLE_SGPR_* and other flag bits at byte 56.
    pub flags: u16,
    /// KERNARG_PRELOAD (gfx90a+): preloaded kernarg length (bits 0-6) and offset.
    pub kernarg_preload: u16,
}

impl Descriptor {
    /// Parse the 64 descriptor bytes.
    pub fn parse(b: &[u8]) -> Descriptor {
        let u32_at = |o: usize| u32::from_le_bytes(b[o..o + 4].try_into().unwrap());
        Descriptor {
            group_segment_fixed_size: u32_at(0),
            private_segment_fixed_size: u32_at(4),
            kernarg_size: u32_at(8),
            entry_offset: i64::from_le_bytes(b[16..24].try_into().unwrap()),
            rsrc3: u32_at(44),
            rsrc1: u32_at(48),
            rsrc2: u32_at(52),
            flags: u16::from_le_bytes([b[56], b[57]]),
            kernarg_preload: u16::from_le_bytes([b[58], b[59]]),
        }
    }
    /// Whether `ENABLE_SGPR_<bit>` of the flags is set (0 private segment buffer, 1 dispatch
    /// ptr, 2 queue ptr, 3 kernarg segment ptr, 4 dispatch id, 5 flat scratch init,
    /// 6 private segment size; 10 wavefront size 32; 11 uses dynamic stack).
    pub fn flag(&self, bit: u32) -> bool {
        self.flags >> bit & 1 != 0
    }
    /// RSRC2 USER_SGPR_COUNT.
    pub fn user_sgpr_count(&self) -> u32 {
        (self.rsrc2 >> 1) & 0x1f
    }
    /// RSRC2 ENABLE_SGPR_WORKGROUP_ID_{X,Y,Z} (d = 0, 1, 2) and WORKGROUP_INFO (d = 3).
    pub fn workgroup_sgpr(&self, d: u32) -> bool {
        self.rsrc2 >> (7 + d) & 1 != 0
    }
    /// RSRC2 ENABLE_PRIVATE_SEGMENT (a scratch wave offset SGPR follows the system SGPRs).
    pub fn private_segment(&self) -> bool {
        self.rsrc2 & 1 != 0
    }
    /// RSRC2 ENABLE_VGPR_WORKITEM_ID: 0 X only, 1 X and Y, 2 X, Y and Z.
    pub fn workitem_vgprs(&self) -> u32 {
        (self.rsrc2 >> 11) & 3
    }
    /// RSRC1 FLOAT_ROUND_MODE_32 | FLOAT_ROUND_MODE_16_64 << 2 | FLOAT_DENORM_MODE_32 << 4 |
    /// FLOAT_DENORM_MODE_16_64 << 6 | DX10_CLAMP << 8 | IEEE_MODE << 9: the initial MODE
    /// register (Vega ISA §4.4, whose MODE fields have this layout).
    pub fn initial_mode(&self) -> u32 {
        let fp = (self.rsrc1 >> 12) & 0xff;
        let dx10 = (self.rsrc1 >> 21) & 1;
        let ieee = (self.rsrc1 >> 23) & 1;
        fp | dx10 << 8 | ieee << 9
    }
}

/// A kernel of the code object.
#[derive(Debug, Clone)]
pub struct Kernel {
    /// The kernel's symbol name.
    pub name: String,
    /// Address of its descriptor (`<name>.kd`) in the image.
    pub kd_addr: u64,
    /// Address of its first instruction in the image.
    pub entry: u64,
    /// The descriptor.
    pub desc: Descriptor,
    /// `.args` of the metadata (empty when the note lacks the kernel).
    pub args: Vec<Arg>,
    /// `.kernarg_segment_size` (or the descriptor's KERNARG_SIZE).
    pub kernarg_segment_size: u32,
    /// `.wavefront_size` (64 unless the metadata says otherwise).
    pub wavefront_size: u32,
    /// `.uses_dynamic_stack`.
    pub uses_dynamic_stack: bool,
    /// `.private_segment_fixed_size`.
    pub private_segment_fixed_size: u32,
}

/// A loaded code object.
#[derive(Debug, Clone)]
pub struct CodeObject {
    /// The processor from `e_flags` (EF_AMDGPU_MACH).
    pub arch: Arch,
    /// EF_AMDGPU_MACH.
    pub mach: u32,
    /// `e_ident[EI_ABIVERSION]` (2: code object V4, 3: V5).
    pub abi_version: u8,
    /// The loadable image, from address 0 to the end of the last PT_LOAD segment.
    pub image: Vec<u8>,
    /// `.text` address range.
    pub text: (u64, u64),
    /// The kernels, sorted by name.
    pub kernels: Vec<Kernel>,
    /// Dynamic relocations: (image offset, type, symbol value, addend).
    pub relocs: Vec<(u64, u32, u64, i64)>,
    /// Every defined symbol: (name, value, size).
    pub symbols: Vec<(String, u64, u64)>,
}

struct Rd<'a> {
    d: &'a [u8],
}

impl<'a> Rd<'a> {
    fn bytes(&self, off: u64, n: u64, what: &str) -> Result<&'a [u8], Error> {
        let end = off.checked_add(n).filter(|&e| e <= self.d.len() as u64);
        match end {
            Some(e) => Ok(&self.d[off as usize..e as usize]),
            None => Err(Error::new(format!(
                "{what} at byte {off} (+{n}) lies outside the {}-byte file (truncated code object?)",
                self.d.len()
            ))),
        }
    }
    fn u16(&self, off: u64, what: &str) -> Result<u16, Error> {
        Ok(u16::from_le_bytes(
            self.bytes(off, 2, what)?.try_into().unwrap(),
        ))
    }
    fn u32(&self, off: u64, what: &str) -> Result<u32, Error> {
        Ok(u32::from_le_bytes(
            self.bytes(off, 4, what)?.try_into().unwrap(),
        ))
    }
    fn u64(&self, off: u64, what: &str) -> Result<u64, Error> {
        Ok(u64::from_le_bytes(
            self.bytes(off, 8, what)?.try_into().unwrap(),
        ))
    }
}

#[derive(Debug, Clone)]
struct Section {
    name: String,
    ty: u32,
    addr: u64,
    off: u64,
    size: u64,
    link: u32,
    entsize: u64,
}

/// The processor of an EF_AMDGPU_MACH value.
pub fn arch_of_mach(mach: u32) -> Option<Arch> {
    match mach {
        0x2f => Some(Arch::Gfx906),
        0x4c => Some(Arch::Gfx942),
        0x41 => Some(Arch::Gfx1100),
        _ => None,
    }
}

fn cstr(d: &[u8], off: usize) -> String {
    let s = d.get(off..).unwrap_or(&[]);
    let n = s.iter().position(|&b| b == 0).unwrap_or(s.len());
    String::from_utf8_lossy(&s[..n]).into_owned()
}

impl CodeObject {
    /// Load a code object.
    ///
    /// # Errors
    /// An [`Error`] naming what is wrong: not ELF64 little-endian, not `EM_AMDGPU`, a
    /// processor the interpreter does not execute, a header, section or symbol outside the
    /// file, a descriptor outside the image, or metadata that does not parse.
    pub fn parse(data: &[u8]) -> Result<CodeObject, Error> {
        let r = Rd { d: data };
        let ident = r.bytes(0, 16, "the ELF identification")?;
        if &ident[..4] != b"\x7fELF" {
            return Err(Error::new("not an ELF file (no \\x7fELF magic)"));
        }
        if ident[4] != 2 || ident[5] != 1 {
            return Err(Error::new("not a little-endian ELF64 file"));
        }
        let machine = r.u16(18, "e_machine")?;
        if machine != 224 {
            return Err(Error::new(format!(
                "e_machine is {machine}, not EM_AMDGPU (224)"
            )));
        }
        let flags = r.u32(48, "e_flags")?;
        let mach = flags & 0xff;
        let arch = arch_of_mach(mach).ok_or_else(|| {
            Error::new(format!(
                "EF_AMDGPU_MACH 0x{mach:x} is not a processor the interpreter executes (gfx906, gfx942)"
            ))
        })?;
        let phoff = r.u64(32, "e_phoff")?;
        let shoff = r.u64(40, "e_shoff")?;
        let phnum = r.u16(56, "e_phnum")? as u64;
        let shnum = r.u16(60, "e_shnum")? as u64;
        let shstrndx = r.u16(62, "e_shstrndx")? as u64;
        // program headers: the image
        let mut loads = Vec::new();
        let mut image_end = 0u64;
        for k in 0..phnum {
            let o = phoff + k * 56;
            let ty = r.u32(o, "a program header")?;
            if ty != 1 {
                continue;
            }
            let off = r.u64(o + 8, "p_offset")?;
            let vaddr = r.u64(o + 16, "p_vaddr")?;
            let filesz = r.u64(o + 32, "p_filesz")?;
            let memsz = r.u64(o + 40, "p_memsz")?;
            if memsz > 1 << 30 || vaddr > 1 << 30 {
                return Err(Error::new("a PT_LOAD segment is larger than 1 GiB"));
            }
            r.bytes(off, filesz, "a PT_LOAD segment")?;
            image_end = image_end.max(vaddr + memsz);
            loads.push((off, vaddr, filesz));
        }
        let mut image = vec![0u8; image_end as usize];
        for (off, vaddr, filesz) in loads {
            image[vaddr as usize..(vaddr + filesz) as usize].copy_from_slice(r.bytes(
                off,
                filesz,
                "a PT_LOAD segment",
            )?);
        }
        // sections
        let mut secs = Vec::new();
        for k in 0..shnum {
            let o = shoff + k * 64;
            secs.push(Section {
                name: String::new(),
                ty: r.u32(o + 4, "a section header")?,
                addr: r.u64(o + 16, "a section header")?,
                off: r.u64(o + 24, "a section header")?,
                size: r.u64(o + 32, "a section header")?,
                link: r.u32(o + 40, "a section header")?,
                entsize: r.u64(o + 56, "a section header")?,
            });
            let name_off = r.u32(o, "a section header")?;
            secs[k as usize].name = name_off.to_string();
        }
        if let Some(sh) = secs.get(shstrndx as usize).cloned() {
            let strs = r.bytes(sh.off, sh.size, "the section name table")?;
            for s in &mut secs {
                let o: usize = s.name.parse().unwrap_or(usize::MAX);
                s.name = cstr(strs, o);
            }
        }
        let text = secs
            .iter()
            .find(|s| s.name == ".text")
            .map(|s| (s.addr, s.addr + s.size))
            .ok_or_else(|| Error::new("the code object has no .text section"))?;
        // symbols (.symtab, else .dynsym)
        let symtab = secs
            .iter()
            .find(|s| s.ty == 2)
            .or_else(|| secs.iter().find(|s| s.ty == 11))
            .cloned();
        let mut symbols = Vec::new();
        let mut dynsyms = Vec::new();
        for (ty, dst) in [
            (symtab.map(|s| s.ty).unwrap_or(2), &mut symbols),
            (11, &mut dynsyms),
        ] {
            let Some(st) = secs.iter().find(|s| s.ty == ty) else {
                continue;
            };
            let strsec = secs
                .get(st.link as usize)
                .ok_or_else(|| Error::new("a symbol table's string table is missing"))?;
            let strs = r.bytes(strsec.off, strsec.size, "a string table")?;
            let ent = if st.entsize == 0 { 24 } else { st.entsize };
            let body = r.bytes(st.off, st.size, "a symbol table")?;
            for k in 0..(body.len() as u64 / ent) {
                let o = (k * ent) as usize;
                let name = u32::from_le_bytes(body[o..o + 4].try_into().unwrap()) as usize;
                let shndx = u16::from_le_bytes([body[o + 6], body[o + 7]]);
                let value = u64::from_le_bytes(body[o + 8..o + 16].try_into().unwrap());
                let size = u64::from_le_bytes(body[o + 16..o + 24].try_into().unwrap());
                dst.push((cstr(strs, name), value, size, shndx));
            }
        }
        // relocations (.rela.dyn)
        let mut relocs = Vec::new();
        for s in secs.iter().filter(|s| s.ty == 4) {
            let body = r.bytes(s.off, s.size, "a relocation section")?;
            let symsrc = secs.get(s.link as usize).map(|l| l.ty);
            for e in body.chunks_exact(24) {
                let off = u64::from_le_bytes(e[0..8].try_into().unwrap());
                let info = u64::from_le_bytes(e[8..16].try_into().unwrap());
                let add = i64::from_le_bytes(e[16..24].try_into().unwrap());
                let sym = (info >> 32) as usize;
                let tab = if symsrc == Some(11) {
                    &dynsyms
                } else {
                    &symbols
                };
                let value = tab.get(sym).map(|t| t.1).unwrap_or(0);
                relocs.push((off, info as u32, value, add));
            }
        }
        // metadata note
        let mut meta = None;
        for s in secs.iter().filter(|s| s.ty == 7) {
            let body = r.bytes(s.off, s.size, "a note section")?;
            let mut p = 0usize;
            while p + 12 <= body.len() {
                let nsz = u32::from_le_bytes(body[p..p + 4].try_into().unwrap()) as usize;
                let dsz = u32::from_le_bytes(body[p + 4..p + 8].try_into().unwrap()) as usize;
                let ty = u32::from_le_bytes(body[p + 8..p + 12].try_into().unwrap());
                let name_end = p + 12 + nsz;
                let desc = name_end.div_ceil(4) * 4;
                let end = desc + dsz;
                if end > body.len() {
                    return Err(Error::new("a note runs past its section"));
                }
                if ty == 32 && body[p + 12..name_end].starts_with(b"AMDGPU") {
                    meta = Some(body[desc..end].to_vec());
                }
                p = end.div_ceil(4) * 4;
            }
        }
        let meta = match meta {
            Some(m) => parse_meta(&m)?,
            None => Vec::new(),
        };
        let mut kernels = Vec::new();
        for (name, value, _, _) in &symbols {
            let Some(kname) = name.strip_suffix(".kd") else {
                continue;
            };
            let kd = image
                .get(*value as usize..*value as usize + 64)
                .ok_or_else(|| Error::new(format!("descriptor {name} lies outside the image")))?;
            let desc = Descriptor::parse(kd);
            let entry = (*value as i64).wrapping_add(desc.entry_offset) as u64;
            if entry < text.0 || entry >= text.1 {
                return Err(Error::new(format!(
                    "kernel {kname}: entry 0x{entry:x} is outside .text"
                )));
            }
            let m = meta.iter().find(|m| m.0 == kname);
            kernels.push(Kernel {
                name: kname.to_string(),
                kd_addr: *value,
                entry,
                desc,
                args: m.map(|m| m.1.clone()).unwrap_or_default(),
                kernarg_segment_size: m.map(|m| m.2).unwrap_or(desc.kernarg_size),
                wavefront_size: m.map(|m| m.3).unwrap_or(64),
                uses_dynamic_stack: m.map(|m| m.4).unwrap_or(false),
                private_segment_fixed_size: m
                    .map(|m| m.5)
                    .unwrap_or(desc.private_segment_fixed_size),
            });
        }
        kernels.sort_by(|a, b| a.name.cmp(&b.name));
        kernels.dedup_by(|a, b| a.name == b.name);
        Ok(CodeObject {
            arch,
            mach,
            abi_version: ident[8],
            image,
            text,
            kernels,
            relocs,
            symbols: symbols
                .into_iter()
                .filter(|s| s.3 != 0)
                .map(|s| (s.0, s.1, s.2))
                .collect(),
        })
    }

    /// The kernel named `name`.
    pub fn kernel(&self, name: &str) -> Option<&Kernel> {
        self.kernels.iter().find(|k| k.name == name)
    }
}

type KMeta = (String, Vec<Arg>, u32, u32, bool, u32);

fn parse_meta(bytes: &[u8]) -> Result<Vec<KMeta>, Error> {
    use rmpv::Value;
    let mut rd = bytes;
    let v = rmpv::decode::read_value(&mut rd)
        .map_err(|e| Error::new(format!("the AMDGPU metadata note does not parse: {e}")))?;
    let get = |m: &Value, k: &str| -> Option<Value> {
        m.as_map()?
            .iter()
            .find(|(a, _)| a.as_str() == Some(k))
            .map(|(_, b)| b.clone())
    };
    let mut out = Vec::new();
    let Some(Value::Array(ks)) = get(&v, "amdhsa.kernels") else {
        return Ok(out);
    };
    for k in &ks {
        let name = get(k, ".name")
            .and_then(|v| v.as_str().map(String::from))
            .unwrap_or_default();
        let num = |key: &str| get(k, key).and_then(|v| v.as_u64()).unwrap_or(0) as u32;
        let mut args = Vec::new();
        if let Some(Value::Array(a)) = get(k, ".args") {
            for x in &a {
                args.push(Arg {
                    name: get(x, ".name")
                        .and_then(|v| v.as_str().map(String::from))
                        .unwrap_or_default(),
                    offset: get(x, ".offset").and_then(|v| v.as_u64()).unwrap_or(0) as u32,
                    size: get(x, ".size").and_then(|v| v.as_u64()).unwrap_or(0) as u32,
                    kind: get(x, ".value_kind")
                        .and_then(|v| v.as_str().map(String::from))
                        .unwrap_or_default(),
                });
            }
        }
        let wave = match num(".wavefront_size") {
            0 => 64,
            w => w,
        };
        let dynstack = get(k, ".uses_dynamic_stack")
            .and_then(|v| v.as_bool())
            .unwrap_or(false);
        out.push((
            name,
            args,
            num(".kernarg_segment_size"),
            wave,
            dynstack,
            num(".private_segment_fixed_size"),
        ));
    }
    Ok(out)
}

/// The code objects of a clang offload bundle (`__CLANG_OFFLOAD_BUNDLE__`), or of a section
/// holding several bundles back to back (wheelport's `.hip_fatbin`, each bundle 4096-aligned):
/// (bundle index, entry ID, bytes) for every non-empty entry.
///
/// # Errors
/// An [`Error`] when `data` has no bundle or an entry lies outside it.
pub fn bundle_entries(data: &[u8]) -> Result<Vec<(usize, String, Vec<u8>)>, Error> {
    const MAGIC: &[u8] = b"__CLANG_OFFLOAD_BUNDLE__";
    let r = Rd { d: data };
    let mut out = Vec::new();
    let mut pos = 0u64;
    let mut k = 0usize;
    while (pos as usize) < data.len() {
        let Some(i) = data[pos as usize..]
            .windows(MAGIC.len())
            .position(|w| w == MAGIC)
        else {
            break;
        };
        let start = pos + i as u64;
        let n = r.u64(start + 24, "a bundle's entry count")?;
        if n > 1024 {
            return Err(Error::new("a bundle claims more than 1024 entries"));
        }
        let mut p = start + 32;
        let mut end = p;
        for _ in 0..n {
            let off = r.u64(p, "a bundle entry")?;
            let size = r.u64(p + 8, "a bundle entry")?;
            let idl = r.u64(p + 16, "a bundle entry")?;
            let id =
                String::from_utf8_lossy(r.bytes(p + 24, idl, "a bundle entry ID")?).into_owned();
            p += 24 + idl;
            if size > 0 {
                let body = r.bytes(start + off, size, "a bundle entry's code object")?;
                out.push((k, id, body.to_vec()));
                end = end.max(start + off + size);
            }
        }
        k += 1;
        pos = end.max(p);
    }
    if k == 0 {
        return Err(Error::new(
            "no clang offload bundle (__CLANG_OFFLOAD_BUNDLE__) in the data",
        ));
    }
    Ok(out)
}

/// The bytes of the section named `name` of an ELF64 file (a host `.so`), if it has one.
///
/// # Errors
/// An [`Error`] when the file is not ELF64 or its section table lies outside it.
pub fn section_bytes<'a>(data: &'a [u8], name: &str) -> Result<Option<&'a [u8]>, Error> {
    let r = Rd { d: data };
    if r.bytes(0, 4, "the ELF magic")? != b"\x7fELF" {
        return Err(Error::new("not an ELF file"));
    }
    let shoff = r.u64(40, "e_shoff")?;
    let shnum = r.u16(60, "e_shnum")? as u64;
    let shstrndx = r.u16(62, "e_shstrndx")? as u64;
    let sh = |k: u64| -> Result<(u32, u64, u64), Error> {
        let o = shoff + k * 64;
        Ok((
            r.u32(o, "a section header")?,
            r.u64(o + 24, "a section header")?,
            r.u64(o + 32, "a section header")?,
        ))
    };
    let (_, so, ss) = sh(shstrndx)?;
    let strs = r.bytes(so, ss, "the section name table")?;
    for k in 0..shnum {
        let (n, off, size) = sh(k)?;
        if cstr(strs, n as usize) == name {
            return Ok(Some(r.bytes(off, size, "a section")?));
        }
    }
    Ok(None)
}
