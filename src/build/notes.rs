//! One NT_AMDGPU_METADATA note per code object.
//!
//! `ld.lld` linking the objects of an `llvm-split` build (see [`super::BuildOptions::split_bytes`])
//! concatenates their `.note` sections, so the code object carries one NT_AMDGPU_METADATA
//! note per partition, each listing only that partition's kernels. ROCm's comgr merges such
//! notes (`mergeNoteRecords`, as for clang's `--lto-partitions`), but a runtime that reads
//! only the first note would not find the other kernels. [`merge_metadata_notes`] rewrites the
//! note section in place to the classic form: one metadata note whose `amdhsa.kernels` lists
//! every kernel, followed by a padding note (owner `wheelport`, type 0, zero bytes) that keeps
//! the section, its PT_NOTE segment and every later offset unchanged.
//!
//! Note layout: ELF gABI "Note Section" (namesz, descsz, type, name and desc each padded to
//! 4 bytes); metadata: LLVM AMDGPUUsage "Code Object V3 to V5 Metadata" (a msgpack map with
//! `amdhsa.version`, `amdhsa.target`, `amdhsa.kernels`, optional `amdhsa.printf`).

use super::check::NT_AMDGPU_METADATA;
use crate::error::{Error, ErrorKind, Result};
use object::elf;
use object::read::elf::{FileHeader, SectionHeader};
use object::Endianness;
use rmpv::Value;

/// Owner name of the padding note.
pub const PADDING_OWNER: &[u8] = b"wheelport";

fn pad4(n: usize) -> usize {
    (n + 3) & !3
}

/// One note of a SHT_NOTE section: its byte range in the section and its parts.
struct RawNote {
    name: Vec<u8>,
    n_type: u32,
    desc: Vec<u8>,
}

fn parse_notes(bytes: &[u8], err: &dyn Fn(String) -> Error) -> Result<Vec<RawNote>> {
    let mut out = Vec::new();
    let mut at = 0usize;
    while at < bytes.len() {
        let word = |o: usize| -> Result<u32> {
            bytes
                .get(o..o + 4)
                .map(|b| u32::from_le_bytes(b.try_into().expect("4 bytes")))
                .ok_or_else(|| err(format!("note header truncated at section offset {o}")))
        };
        let namesz = word(at)? as usize;
        let descsz = word(at + 4)? as usize;
        let n_type = word(at + 8)?;
        let name_at = at + 12;
        let desc_at = name_at + pad4(namesz);
        let end = desc_at + pad4(descsz);
        if end > bytes.len() {
            return Err(err(format!(
                "note at section offset {at} runs past the section ({end} > {})",
                bytes.len()
            )));
        }
        let name = bytes[name_at..name_at + namesz]
            .strip_suffix(&[0])
            .unwrap_or(&bytes[name_at..name_at + namesz])
            .to_vec();
        out.push(RawNote {
            name,
            n_type,
            desc: bytes[desc_at..desc_at + descsz].to_vec(),
        });
        at = end;
    }
    Ok(out)
}

fn write_note(out: &mut Vec<u8>, name: &[u8], n_type: u32, desc: &[u8]) {
    let namesz = name.len() + 1;
    out.extend_from_slice(&(namesz as u32).to_le_bytes());
    out.extend_from_slice(&(desc.len() as u32).to_le_bytes());
    out.extend_from_slice(&n_type.to_le_bytes());
    out.extend_from_slice(name);
    out.resize(out.len() + pad4(namesz) - name.len(), 0);
    out.extend_from_slice(desc);
    out.resize(out.len() + pad4(desc.len()) - desc.len(), 0);
}

fn key<'v>(map: &'v [(Value, Value)], k: &str) -> Option<&'v Value> {
    map.iter()
        .find(|(n, _)| n.as_str() == Some(k))
        .map(|(_, v)| v)
}

/// Merge the NT_AMDGPU_METADATA notes of the little-endian ELF64 code object `co` into one,
/// in place (see the module docs). Returns how many metadata notes there were (0 or 1:
/// nothing changed).
///
/// # Errors
/// [`ErrorKind::Build`] naming `module` when the ELF or a note is malformed, the notes
/// disagree on `amdhsa.version`, `amdhsa.target` or `amdhsa.printf`, the metadata notes are
/// in different sections, or the merged note does not fit in the section.
pub fn merge_metadata_notes(co: &mut [u8], module: &str) -> Result<usize> {
    let err = |m: String| Error::new(ErrorKind::Build, module, format!("code object: {m}"));
    let (range, notes) = {
        let data: &[u8] = co;
        let h = elf::FileHeader64::<Endianness>::parse(data)
            .map_err(|x| err(format!("ELF header: {x}")))?;
        let endian = h.endian().map_err(|x| err(format!("ELF header: {x}")))?;
        if endian != Endianness::Little {
            return Err(err("big-endian code object".into()));
        }
        let sections = h
            .sections(endian, data)
            .map_err(|x| err(format!("section headers: {x}")))?;
        let mut found: Option<((usize, usize), Vec<RawNote>)> = None;
        let mut total = 0;
        for s in sections.iter() {
            if s.sh_type(endian) != elf::SHT_NOTE {
                continue;
            }
            let (off, size) = s
                .file_range(endian)
                .ok_or_else(|| err("a SHT_NOTE section has no file bytes".into()))?;
            let (off, size) = (off as usize, size as usize);
            let bytes = data.get(off..off + size).ok_or_else(|| {
                err(format!(
                    "note section at offset {off} (size {size}) is past the end"
                ))
            })?;
            let ns = parse_notes(bytes, &|m| err(format!("section at offset {off}: {m}")))?;
            let here = ns
                .iter()
                .filter(|n| n.name == b"AMDGPU" && n.n_type == NT_AMDGPU_METADATA)
                .count();
            if here > 0 {
                if found.is_some() {
                    return Err(err(
                        "NT_AMDGPU_METADATA notes in more than one section".into()
                    ));
                }
                found = Some(((off, size), ns));
            }
            total += here;
        }
        match found {
            Some(f) if total > 1 => f,
            _ => return Ok(total),
        }
    };
    let is_meta = |n: &RawNote| n.name == b"AMDGPU" && n.n_type == NT_AMDGPU_METADATA;
    let count = notes.iter().filter(|n| is_meta(n)).count();
    let mut merged: Option<Vec<(Value, Value)>> = None;
    for n in notes.iter().filter(|n| is_meta(n)) {
        let v = rmpv::decode::read_value(&mut &n.desc[..])
            .map_err(|x| err(format!("NT_AMDGPU_METADATA is not valid msgpack: {x}")))?;
        let Value::Map(map) = v else {
            return Err(err("NT_AMDGPU_METADATA is not a msgpack map".into()));
        };
        let Some(acc) = merged.as_mut() else {
            merged = Some(map);
            continue;
        };
        for (k, v) in map {
            let name = k.as_str().unwrap_or("").to_string();
            if name == "amdhsa.kernels" {
                let Value::Array(more) = v else {
                    return Err(err("amdhsa.kernels is not an array".into()));
                };
                match acc
                    .iter_mut()
                    .find(|(n, _)| n.as_str() == Some("amdhsa.kernels"))
                {
                    Some((_, Value::Array(list))) => list.extend(more),
                    _ => acc.push((k, Value::Array(more))),
                }
            } else {
                match key(acc, &name) {
                    Some(old) if *old == v => {}
                    Some(_) => {
                        return Err(err(format!(
                            "the partitions' metadata notes disagree on `{name}`"
                        )))
                    }
                    None => acc.push((k, v)),
                }
            }
        }
    }
    let merged = Value::Map(merged.expect("count > 1"));
    let mut desc = Vec::new();
    rmpv::encode::write_value(&mut desc, &merged).expect("writing to a Vec cannot fail");
    let (off, size) = range;
    let mut out = Vec::with_capacity(size);
    let mut wrote_meta = false;
    for n in &notes {
        if is_meta(n) {
            if !wrote_meta {
                write_note(&mut out, b"AMDGPU", NT_AMDGPU_METADATA, &desc);
                wrote_meta = true;
            }
        } else {
            write_note(&mut out, &n.name, n.n_type, &n.desc);
        }
    }
    // The padding note: header 12 bytes + "wheelport\0" padded to 12.
    let pad_header = 12 + pad4(PADDING_OWNER.len() + 1);
    let room = size.checked_sub(out.len() + pad_header).ok_or_else(|| {
        err(format!(
            "the merged metadata note ({} bytes) does not fit in the note section ({size} bytes)",
            out.len()
        ))
    })?;
    write_note(&mut out, PADDING_OWNER, 0, &vec![0; room]);
    debug_assert_eq!(out.len(), size);
    co[off..off + size].copy_from_slice(&out);
    Ok(count)
}
