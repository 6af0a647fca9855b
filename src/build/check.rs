//! Checks on what the device build produced, against what the lowering promised
//! ([`KernelResult::params`]): this is where a lowering bug that changes a kernel's ABI is
//! caught, before anything reaches a GPU.
//!
//! * AMDGPU code objects (LLVM `AMDGPUUsage`, "ELF Code Object" and "Code Object V3+
//!   Metadata"): `e_machine` EM_AMDGPU (224), `EI_OSABI` ELFOSABI_AMDGPU_HSA (64), ET_DYN;
//!   for every lowered kernel a FUNC symbol `name` and an OBJECT symbol `name.kd` (the 64-byte
//!   kernel descriptor) in `.dynsym`; and in the one NT_AMDGPU_METADATA note (owner `AMDGPU`, type
//!   32, msgpack) an `amdhsa.kernels` entry with `.name` = the kernel whose explicit `.args`
//!   (those whose `.value_kind` is not `hidden_*`) have exactly the offsets and sizes of the
//!   PTX parameter layout, in order.
//! * NVPTX (PTX ISA §11.2.1, §5.1.6): every lowered kernel is a defined `.entry` whose
//!   `.param` list has the layout's count, and whose sizes and offsets (each parameter aligned
//!   to its `.align` or natural alignment) equal the layout's.

use crate::error::{Error, ErrorKind, Result};
use crate::lower::{KernelOutcome, KernelResult, ParamLayout};
use object::elf;
use object::read::elf::{FileHeader, SectionHeader, Sym};
use object::Endianness;
use rmpv::Value;

/// `e_machine` of AMDGPU code objects.
pub const EM_AMDGPU: u16 = 224;
/// `EI_OSABI` of HSA code objects.
pub const ELFOSABI_AMDGPU_HSA: u8 = 64;
/// Note type of the msgpack metadata (`NT_AMDGPU_METADATA`).
pub const NT_AMDGPU_METADATA: u32 = 32;

fn lowered(kernels: &[KernelResult]) -> impl Iterator<Item = &KernelResult> {
    kernels
        .iter()
        .filter(|k| k.outcome == KernelOutcome::Lowered)
}

fn get<'v>(map: &'v Value, key: &str) -> Option<&'v Value> {
    map.as_map()?
        .iter()
        .find(|(k, _)| k.as_str() == Some(key))
        .map(|(_, v)| v)
}

/// One explicit kernel argument from the code object metadata: (offset, size, value_kind).
fn explicit_args(kernel: &Value) -> Option<Vec<(u64, u64, String)>> {
    let args = match get(kernel, ".args") {
        Some(a) => a.as_array()?.as_slice(),
        None => &[],
    };
    let mut v = Vec::new();
    for a in args {
        let kind = get(a, ".value_kind")?.as_str()?.to_string();
        if kind.starts_with("hidden_") {
            continue;
        }
        v.push((
            get(a, ".offset")?.as_u64()?,
            get(a, ".size")?.as_u64()?,
            kind,
        ));
    }
    Some(v)
}

/// Check an AMDGPU code object built for `arch` from module `module` (see the module docs).
///
/// # Errors
/// [`ErrorKind::Build`] naming `module`, the arch, the kernel and the field that differs.
pub fn code_object(data: &[u8], module: &str, arch: &str, kernels: &[KernelResult]) -> Result<()> {
    let e = |m: String| Error::new(ErrorKind::Build, module, format!("{arch}: {m}"));
    let oerr = |what: &str, x: object::read::Error| e(format!("code object: {what}: {x}"));
    let h = elf::FileHeader64::<Endianness>::parse(data).map_err(|x| oerr("ELF header", x))?;
    let endian = h.endian().map_err(|x| oerr("ELF header", x))?;
    if h.e_machine(endian).0 != EM_AMDGPU {
        return Err(e(format!(
            "code object e_machine is {}, expected EM_AMDGPU ({EM_AMDGPU})",
            h.e_machine(endian).0
        )));
    }
    if h.e_ident.os_abi.0 != ELFOSABI_AMDGPU_HSA {
        return Err(e(format!(
            "code object EI_OSABI is {}, expected ELFOSABI_AMDGPU_HSA ({ELFOSABI_AMDGPU_HSA})",
            h.e_ident.os_abi.0
        )));
    }
    // EF_AMDGPU_MACH (low byte of e_flags): 0 means no specific processor.
    if h.e_flags(endian).0 & 0xff == 0 {
        return Err(e(
            "code object e_flags name no processor (EF_AMDGPU_MACH is 0)".into(),
        ));
    }
    if h.e_type(endian) != elf::ET_DYN {
        return Err(e(format!(
            "code object e_type is {}, expected ET_DYN (3)",
            h.e_type(endian)
        )));
    }
    let sections = h
        .sections(endian, data)
        .map_err(|x| oerr("section headers", x))?;
    let syms = sections
        .symbols(endian, data, elf::SHT_DYNSYM)
        .map_err(|x| oerr(".dynsym", x))?;
    let mut have: std::collections::HashMap<&[u8], u8> = std::collections::HashMap::new();
    for s in syms.iter() {
        if s.st_shndx(endian) == elf::SHN_UNDEF {
            continue;
        }
        if let Ok(n) = syms.symbol_name(endian, s) {
            have.insert(n, s.st_type().0);
        }
    }
    let mut metadata = None;
    let mut metadata_notes = 0;
    for s in sections.iter() {
        let Some(mut notes) = s.notes(endian, data).map_err(|x| oerr("notes", x))? else {
            continue;
        };
        while let Some(n) = notes.next().map_err(|x| oerr("notes", x))? {
            if n.name() == b"AMDGPU" && n.n_type(endian).0 == NT_AMDGPU_METADATA {
                metadata_notes += 1;
                let mut d = n.desc();
                metadata = Some(
                    rmpv::decode::read_value(&mut d)
                        .map_err(|x| e(format!("NT_AMDGPU_METADATA is not valid msgpack: {x}")))?,
                );
            }
        }
    }
    if metadata_notes > 1 {
        return Err(e(format!(
            "code object has {metadata_notes} NT_AMDGPU_METADATA notes (a runtime reading only the first would miss kernels)"
        )));
    }
    let metadata =
        metadata.ok_or_else(|| e("code object has no NT_AMDGPU_METADATA note".into()))?;
    let list = get(&metadata, "amdhsa.kernels")
        .and_then(Value::as_array)
        .ok_or_else(|| e("NT_AMDGPU_METADATA has no amdhsa.kernels array".into()))?;
    for k in lowered(kernels) {
        let name = k.name.as_str();
        match have.get(name.as_bytes()) {
            Some(&t) if t == elf::STT_FUNC.0 => {}
            Some(t) => {
                return Err(e(format!(
                    "kernel `{name}`: symbol has type {t}, expected STT_FUNC"
                )))
            }
            None => return Err(e(format!("kernel `{name}`: no symbol `{name}` in .dynsym"))),
        }
        let kd = format!("{name}.kd");
        match have.get(kd.as_bytes()) {
            Some(&t) if t == elf::STT_OBJECT.0 => {}
            Some(t) => {
                return Err(e(format!(
                    "kernel `{name}`: `{kd}` has type {t}, expected STT_OBJECT"
                )))
            }
            None => {
                return Err(e(format!(
                    "kernel `{name}`: no kernel descriptor symbol `{kd}` in .dynsym"
                )))
            }
        }
        let meta = list
            .iter()
            .find(|m| get(m, ".name").and_then(Value::as_str) == Some(name))
            .ok_or_else(|| e(format!("kernel `{name}`: no amdhsa.kernels entry")))?;
        let args = explicit_args(meta).ok_or_else(|| {
            e(format!(
                "kernel `{name}`: malformed .args (an entry lacks .offset, .size or .value_kind)"
            ))
        })?;
        compare(
            &args.iter().map(|(o, s, _)| (*o, *s)).collect::<Vec<_>>(),
            &k.params,
            ".args",
        )
        .map_err(|m| e(format!("kernel `{name}`: {m}")))?;
    }
    Ok(())
}

/// Compare (offset, size) pairs found in the output with the PTX layout.
fn compare(found: &[(u64, u64)], want: &[ParamLayout], what: &str) -> Result<(), String> {
    if found.len() != want.len() {
        return Err(format!(
            "{what} has {} explicit arguments, the PTX parameter layout has {}",
            found.len(),
            want.len()
        ));
    }
    for (i, ((off, size), p)) in found.iter().zip(want).enumerate() {
        if *off != u64::from(p.offset) {
            return Err(format!(
                "{what}[{i}] .offset is {off}, the PTX parameter layout has {} (param `{}`)",
                p.offset, p.name
            ));
        }
        if *size != u64::from(p.size) {
            return Err(format!(
                "{what}[{i}] .size is {size}, the PTX parameter layout has {} (param `{}`)",
                p.size, p.name
            ));
        }
    }
    Ok(())
}

/// (size, align) in bytes of one `.param` declaration.
fn param_size_align(d: &crate::ptx::VarDecl<'_>) -> (u64, u64) {
    let elem = u64::from(d.ty.bits().div_ceil(8)).max(1);
    let vec = u64::from(d.vector.unwrap_or(1));
    let count: u64 = d
        .decls
        .first()
        .map(|x| x.array.iter().map(|n| n.unwrap_or(0)).product())
        .unwrap_or(1);
    let natural = elem * vec;
    (natural * count, d.align.map(u64::from).unwrap_or(natural))
}

/// Check PTX text that `llc` wrote for module `module` (see the module docs).
///
/// # Errors
/// [`ErrorKind::Build`] naming `module`, the kernel and the parameter that differs, or the
/// first parse error of the text.
pub fn ptx(text: &str, module: &str, arch: &str, kernels: &[KernelResult]) -> Result<()> {
    let e = |m: String| Error::new(ErrorKind::Build, module, format!("{arch}: {m}"));
    let parsed = crate::ptx::parse(text, module);
    if let Some(d) = parsed
        .diagnostics
        .iter()
        .find(|d| d.severity == crate::ptx::Severity::Error)
    {
        return Err(e(format!("llc's PTX does not parse: {d}")));
    }
    for k in lowered(kernels) {
        let f = parsed
            .module
            .functions()
            .find(|f| f.name == k.name && f.kind == crate::ptx::FunctionKind::Entry)
            .ok_or_else(|| {
                e(format!(
                    "kernel `{}`: no `.entry {}` in the PTX",
                    k.name, k.name
                ))
            })?;
        if f.body.is_none() {
            return Err(e(format!(
                "kernel `{}`: `.entry` is only declared, not defined",
                k.name
            )));
        }
        let mut off = 0u64;
        let mut found = Vec::new();
        for p in &f.params {
            let (size, align) = param_size_align(p);
            off = off.div_ceil(align.max(1)) * align.max(1);
            found.push((off, size));
            off += size;
        }
        compare(&found, &k.params, ".param list")
            .map_err(|m| e(format!("kernel `{}`: {m}", k.name)))?;
    }
    Ok(())
}
