//! Moving sections into new PT_LOADs at the end of the file, and a program header table
//! that `strip` and the loader agree on.
//!
//! Rules (the invariants of `../shared/reference/wheel-and-elf-rewriting.md` (a) 13–17):
//!
//! * Moved sections go into new PT_LOADs appended after every existing segment, with
//!   `p_align = max(p_align of the existing PT_LOADs, 4096)` and
//!   `p_vaddr ≡ p_offset (mod p_align)`: one with flags `R` for the symbol and version tables,
//!   notes and new sections (`.hip_fatbin`), so read-only data never lands in a writable
//!   segment, and one with flags `RW` for `.dynamic` when it must grow (lld sizes it exactly).
//!   Existing PT_LOADs are never moved or resized, so PT_LOADs stay sorted by address.
//! * `.dynamic` moves as patchelf moves it: PT_DYNAMIC follows it; the `_DYNAMIC` symbols,
//!   the link-time copy of its address in GOT[0] (the word at DT_PLTGOT) and
//!   `R_X86_64_RELATIVE` relocations to it get the new address. It stays writable (glibc
//!   before 2.35 writes to it while loading) and so lies outside PT_GNU_RELRO, whose range does
//!   not change.
//! * The program header table is always written right after the ELF header (offset 64, as
//!   the `object` builder writes it), also for inputs whose table an earlier patchelf run moved
//!   to the end of the file; PT_PHDR is updated. Sections in the bytes it needs are moved too;
//!   a PT_NOTE or PT_GNU_PROPERTY segment moves with all of its sections, so it stays one
//!   contiguous range.
//! * No PT_LOAD without sections: a PT_LOAD left without sections (all of them moved, or
//!   none to begin with, like the one patchelf adds for a moved table) is removed, except the
//!   one that maps the ELF header. `strip` lays out such a segment at an offset that breaks
//!   `p_vaddr ≡ p_offset (mod p_align)` and the result no longer loads ("ELF load command
//!   address/offset not page-aligned"); the builder writes only sections, so the segment
//!   would map nothing but zeros anyway.
//! * Only sections that the loader finds through DT_* tags or note segments are moved:
//!   notes, `.dynamic`, `.dynstr`, `.dynsym`, `.hash`, `.gnu.hash`, the GNU version
//!   sections and the dynamic relocation tables (DT_RELA/DT_RELASZ, DT_JMPREL/DT_PLTRELSZ
//!   follow them). When anything else (code, data, static relocations) is in the way, the
//!   rewrite is refused with an error that names the section: a file that would not load is
//!   never written.
//! * New writable sections (`.wp.got`, the GOT slots of rebound static-runtime entry points)
//!   go into the RW segment, the others into the R one.

use crate::error::{Error, ErrorKind, Result};
use object::build::elf::{Builder, Dynamic, SectionData, SectionId, SegmentId};
use object::elf;

/// Size of one ELF-64 program header.
const PHDR_SIZE: u64 = 56;
/// Size of the ELF-64 file header, where the program header table starts.
const EHDR_SIZE: u64 = 64;
/// Smallest alignment of the new segments: the x86-64 page size.
const MIN_ALIGN: u64 = 4096;

/// The dynamic symbol and version tables, which the builder regenerates and the loader
/// finds through DT_* tags.
pub(crate) fn is_dynamic_symbol_table(d: &SectionData<'_>) -> bool {
    matches!(
        d,
        SectionData::DynamicString
            | SectionData::DynamicSymbol
            | SectionData::Hash
            | SectionData::GnuHash
            | SectionData::GnuVersym
            | SectionData::GnuVerdef
            | SectionData::GnuVerneed
    )
}

fn movable(d: &SectionData<'_>) -> bool {
    matches!(
        d,
        SectionData::Note(_) | SectionData::Dynamic(_) | SectionData::DynamicRelocation(_)
    ) || is_dynamic_symbol_table(d)
}

fn is_dynamic(b: &Builder<'_>, id: SectionId) -> bool {
    matches!(b.sections.get(id).data, SectionData::Dynamic(_))
}

/// True when the layout must change even without moved or added sections: the program
/// header table is not right after the ELF header, or a PT_LOAD other than the one mapping
/// the header has no sections.
pub fn needs_relayout(b: &Builder<'_>) -> bool {
    if b.segments.is_empty() {
        return false;
    }
    b.header.e_phoff != EHDR_SIZE
        || b.segments
            .iter()
            .any(|s| s.is_load() && s.p_offset != 0 && s.sections.is_empty())
}

/// Move the sections `ids` (and whatever blocks the program header table at offset 64) into
/// new PT_LOADs at the end of the file, followed by the new sections `added` (such as
/// `.hip_fatbin`; writable ones, such as `.wp.got`, in the RW segment), each at its
/// `sh_addralign`; a moved relocation table keeps its DT_RELA/DT_RELASZ (or
/// DT_JMPREL/DT_PLTRELSZ) pair current; remove PT_LOADs left without sections and put
/// the program header table after the ELF header. Section sizes must be current
/// (`Builder::set_section_sizes`). With nothing to move or add this only removes empty
/// PT_LOADs and places the table.
///
/// # Errors
/// [`ErrorKind::Elf`] naming the section when a section that must move cannot be moved, and
/// when the first PT_LOAD does not map the room the table needs.
pub fn move_to_new_segment(
    b: &mut Builder<'_>,
    ids: &[SectionId],
    added: &[SectionId],
    file: &str,
) -> Result<()> {
    let err = |m: String| Error::new(ErrorKind::Elf, file, m);
    let mut moving: Vec<SectionId> = ids.to_vec();
    // Grow the set of moving sections until the table fits: more moves may free PT_LOADs
    // (fewer headers) or need the RW segment (one more); the set only grows, so this ends.
    let ph_end = loop {
        let need_r = !added.is_empty() || moving.iter().any(|id| !is_dynamic(b, *id));
        let need_rw = moving.iter().any(|id| is_dynamic(b, *id));
        let dropped = b
            .segments
            .iter()
            .filter(|s| {
                s.is_load() && s.p_offset != 0 && s.sections.iter().all(|id| moving.contains(id))
            })
            .count();
        let live = b.segments.iter().count();
        let phnum = (live - dropped + usize::from(need_r) + usize::from(need_rw)) as u64;
        let ph_end = EHDR_SIZE + phnum * PHDR_SIZE;
        let before = moving.len();
        for s in b.sections.iter() {
            if s.delete || !s.is_alloc() || s.sh_type == elf::SHT_NOBITS {
                continue;
            }
            let (a, z) = (s.sh_offset, s.sh_offset + s.sh_size);
            if a < ph_end && z > EHDR_SIZE && !moving.contains(&s.id()) && !added.contains(&s.id())
            {
                moving.push(s.id());
            }
        }
        // Note segments move as a whole.
        for seg in b.segments.iter() {
            if !(seg.p_type == elf::PT_NOTE || seg.p_type == elf::PT_GNU_PROPERTY) {
                continue;
            }
            if seg.sections.iter().any(|id| moving.contains(id)) {
                for id in &seg.sections {
                    if !moving.contains(id) {
                        moving.push(*id);
                    }
                }
            }
        }
        if moving.len() == before {
            break ph_end;
        }
    };
    for id in &moving {
        let s = b.sections.get(*id);
        if !movable(&s.data) {
            return Err(err(format!(
                "section {} at offset {:#x} must move to make room, but it is not movable (code, data or relocations); the file is left unchanged",
                String::from_utf8_lossy(s.name.as_slice()),
                s.sh_offset
            )));
        }
    }
    // The table is loaded with the ELF header: the PT_LOAD at offset 0 must map its bytes.
    let header_load = b
        .segments
        .iter()
        .find(|s| s.is_load() && s.p_offset == 0)
        .map(|s| (s.id(), s.p_vaddr, s.p_filesz));
    match header_load {
        Some((_, _, filesz)) if filesz >= ph_end => {}
        Some((_, _, filesz)) => {
            return Err(err(format!(
                "the program header table needs bytes {EHDR_SIZE:#x}..{ph_end:#x}, but the PT_LOAD that maps the ELF header ends at {filesz:#x}; the file is left unchanged"
            )))
        }
        None => {
            return Err(err(
                "no PT_LOAD maps the ELF header and program header table; the file is left unchanged"
                    .into(),
            ))
        }
    }
    // Keep file order so that a note segment stays contiguous.
    moving.sort_by_key(|id| b.sections.get(*id).sh_offset);
    let old_dynamic = moving
        .iter()
        .find(|id| is_dynamic(b, **id))
        .map(|id| b.sections.get(*id).sh_addr);

    // Segments that list moved sections: loads and PT_GNU_RELRO drop them (their ranges stay
    // as they are); other segments are rebuilt around the new location.
    let mut rebuild = Vec::new();
    for seg in b.segments.iter_mut() {
        if !seg.sections.iter().any(|id| moving.contains(id)) {
            continue;
        }
        if seg.p_type == elf::PT_LOAD || seg.p_type == elf::PT_GNU_RELRO {
            seg.sections.retain(|id| !moving.contains(id));
        } else {
            rebuild.push(seg.id());
        }
    }
    // No PT_LOAD without sections (see the module docs).
    for seg in b.segments.iter_mut() {
        if seg.is_load() && seg.p_offset != 0 && seg.sections.is_empty() {
            if seg.p_memsz > seg.p_filesz {
                return Err(err(format!(
                    "the PT_LOAD at offset {:#x} (address {:#x}) has no sections but {} bytes of zero-filled memory; the file is left unchanged",
                    seg.p_offset,
                    seg.p_vaddr,
                    seg.p_memsz - seg.p_filesz
                )));
            }
            seg.delete = true;
        }
    }

    let align = b
        .segments
        .iter()
        .filter(|s| s.is_load())
        .map(|s| s.p_align)
        .max()
        .unwrap_or(MIN_ALIGN)
        .max(MIN_ALIGN);
    let (to_r, to_rw): (Vec<SectionId>, Vec<SectionId>) =
        moving.iter().partition(|id| !is_dynamic(b, **id));
    // Relocation tables that move: the DT_* pair that names each, by its old address.
    let tables: Vec<(SectionId, u64)> = moving
        .iter()
        .filter(|id| matches!(b.sections.get(**id).data, SectionData::DynamicRelocation(_)))
        .map(|id| (*id, b.sections.get(*id).sh_addr))
        .collect();
    let place =
        |b: &mut Builder<'_>, flags: elf::ProgramFlags, list: &[SectionId]| -> Option<SegmentId> {
            if list.is_empty() {
                return None;
            }
            let id = b.segments.add_load_segment(flags, align).id();
            for s in list {
                let section = b.sections.get_mut(*s);
                b.segments.get_mut(id).append_section(section);
            }
            Some(id)
        };
    let writable =
        |b: &Builder<'_>, id: &SectionId| b.sections.get(*id).sh_flags.0 & elf::SHF_WRITE.0 != 0;
    let r_list: Vec<SectionId> = to_r
        .iter()
        .chain(added.iter().filter(|id| !writable(b, id)))
        .copied()
        .collect();
    let rw_list: Vec<SectionId> = to_rw
        .iter()
        .chain(added.iter().filter(|id| writable(b, id)))
        .copied()
        .collect();
    place(b, elf::PF_R, &r_list);
    place(b, elf::ProgramFlags(elf::PF_R.0 | elf::PF_W.0), &rw_list);
    for (id, old) in tables {
        let (addr, size) = {
            let s = b.sections.get(id);
            (s.sh_addr, s.sh_size)
        };
        if let Some(d) = b.dynamic_data_mut() {
            let pair = d.iter().find_map(|e| match e {
                Dynamic::Integer { tag, val } if *val == old && *tag == elf::DT_RELA => {
                    Some((elf::DT_RELA, elf::DT_RELASZ))
                }
                Dynamic::Integer { tag, val } if *val == old && *tag == elf::DT_JMPREL => {
                    Some((elf::DT_JMPREL, elf::DT_PLTRELSZ))
                }
                _ => None,
            });
            let Some((at, sz)) = pair else {
                return Err(err(format!(
                    "relocation section at {old:#x} moved, but no DT_RELA or DT_JMPREL names it; the file is left unchanged"
                )));
            };
            for e in d.iter_mut() {
                if let Dynamic::Integer { tag, val } = e {
                    if *tag == at {
                        *val = addr;
                    } else if *tag == sz {
                        *val = size;
                    }
                }
            }
        }
    }
    for id in rebuild {
        let seg = b.segments.get_mut(id);
        seg.recalculate_ranges(&b.sections);
    }
    if let Some(old) = old_dynamic {
        let new = b
            .dynamic_section()
            .map(|id| b.sections.get(id).sh_addr)
            .ok_or_else(|| err("the moved .dynamic section vanished".into()))?;
        repoint_dynamic(b, old, new);
    }
    // The table right after the ELF header; PT_PHDR covers it.
    let (_, header_vaddr, _) = header_load.expect("checked above");
    b.header.e_phoff = EHDR_SIZE;
    let phnum = b.segments.iter().count() as u64;
    for seg in b.segments.iter_mut() {
        if seg.p_type == elf::PT_PHDR {
            seg.p_offset = EHDR_SIZE;
            seg.p_vaddr = header_vaddr + EHDR_SIZE;
            seg.p_paddr = seg.p_vaddr;
            seg.p_filesz = phnum * PHDR_SIZE;
            seg.p_memsz = phnum * PHDR_SIZE;
        }
    }
    Ok(())
}

/// After `.dynamic` moved from `old` to `new`: the `_DYNAMIC` symbols, GOT[0] (the word at
/// DT_PLTGOT, which the x86-64 psABI sets to the link-time address of `_DYNAMIC`) and
/// relative relocations that pointed at `old`.
fn repoint_dynamic(b: &mut Builder<'_>, old: u64, new: u64) {
    for s in b.symbols.iter_mut() {
        if s.name.as_slice() == b"_DYNAMIC" && s.st_value == old {
            s.st_value = new;
        }
    }
    for s in b.dynamic_symbols.iter_mut() {
        if s.name.as_slice() == b"_DYNAMIC" && s.st_value == old {
            s.st_value = new;
        }
    }
    let pltgot = b.dynamic_data().and_then(|d| {
        d.iter().find_map(|e| match e {
            Dynamic::Integer { tag, val } if *tag == elf::DT_PLTGOT => Some(*val),
            _ => None,
        })
    });
    if let Some(got) = pltgot {
        for s in b.sections.iter_mut() {
            if !s.is_alloc() || got < s.sh_addr || got + 8 > s.sh_addr + s.sh_size {
                continue;
            }
            if let SectionData::Data(d) = &mut s.data {
                let at = (got - s.sh_addr) as usize;
                if d.get(at..at + 8) == Some(&old.to_le_bytes()[..]) {
                    d.to_mut()[at..at + 8].copy_from_slice(&new.to_le_bytes());
                }
            }
        }
    }
    for s in b.sections.iter_mut() {
        if let SectionData::DynamicRelocation(relocs) = &mut s.data {
            for r in relocs.iter_mut() {
                if r.r_type == elf::R_X86_64_RELATIVE && r.r_addend == old as i64 {
                    r.r_addend = new as i64;
                }
            }
        }
    }
}
