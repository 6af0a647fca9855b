//! Moving sections into a new PT_LOAD at the end of the file.
//!
//! Rules (the invariants of `../shared/reference/wheel-and-elf-rewriting.md` (a) 13–17):
//!
//! * One new PT_LOAD, flags `R`, appended after every existing segment, with
//!   `p_align = max(p_align of the existing PT_LOADs, 4096)` and
//!   `p_vaddr ≡ p_offset (mod p_align)`; existing PT_LOADs are never moved or resized, so
//!   PT_LOADs stay sorted by address and read-only data never lands in a writable segment.
//! * The program header table grows by one entry (56 bytes). Sections that sat in those
//!   bytes right behind it are moved too; a PT_NOTE or PT_GNU_PROPERTY segment moves with all
//!   of its sections, so it stays one contiguous range. PT_PHDR is resized.
//! * Only sections that the loader finds through DT_* tags or note segments are moved:
//!   notes, `.dynstr`, `.dynsym`, `.hash`, `.gnu.hash` and the GNU version sections. When
//!   anything else (code, data, relocations, `.dynamic`) is in the way, the rewrite is refused
//!   with an error that names the section: a file that would not load is never written.

use crate::error::{Error, ErrorKind, Result};
use object::build::elf::{Builder, SectionData, SectionId};
use object::elf;

/// Size of one ELF-64 program header.
const PHDR_SIZE: u64 = 56;
/// Smallest alignment of the new segment: the x86-64 page size.
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
    matches!(d, SectionData::Note(_)) || is_dynamic_symbol_table(d)
}

/// Move the sections `ids` (and whatever blocks the growth of the program header table)
/// into a new read-only PT_LOAD at the end of the file, followed by the new sections `added`
/// (such as `.hip_fatbin`), each at its `sh_addralign`. Section sizes must be current
/// (`Builder::set_section_sizes`).
///
/// # Errors
/// [`ErrorKind::Elf`] naming the section when a section that must move cannot be moved.
pub fn move_to_new_segment(
    b: &mut Builder<'_>,
    ids: &[SectionId],
    added: &[SectionId],
    file: &str,
) -> Result<()> {
    let err = |m: String| Error::new(ErrorKind::Elf, file, m);
    let live_segments = b.segments.iter().filter(|s| !s.delete).count() as u64;
    let ph_end_old = b.header.e_phoff + live_segments * PHDR_SIZE;
    let ph_end_new = ph_end_old + PHDR_SIZE;

    let mut moving: Vec<SectionId> = ids.to_vec();
    // Sections in the way of the larger program header table.
    for s in b.sections.iter() {
        if s.delete || !s.is_alloc() || s.sh_type == elf::SHT_NOBITS {
            continue;
        }
        let (a, z) = (s.sh_offset, s.sh_offset + s.sh_size);
        if a < ph_end_new && z > ph_end_old && !moving.contains(&s.id()) && !added.contains(&s.id())
        {
            moving.push(s.id());
        }
    }
    // Note segments move as a whole.
    let mut grew = true;
    while grew {
        grew = false;
        for seg in b.segments.iter() {
            if seg.delete || !(seg.p_type == elf::PT_NOTE || seg.p_type == elf::PT_GNU_PROPERTY) {
                continue;
            }
            if seg.sections.iter().any(|id| moving.contains(id)) {
                for id in &seg.sections {
                    if !moving.contains(id) {
                        moving.push(*id);
                        grew = true;
                    }
                }
            }
        }
    }
    for id in &moving {
        let s = b.sections.get(*id);
        if !movable(&s.data) {
            return Err(err(format!(
                "section {} at offset {:#x} must move to make room, but it is not movable (code, data, relocations or .dynamic); the file is left unchanged",
                String::from_utf8_lossy(s.name.as_slice()),
                s.sh_offset
            )));
        }
    }
    // Keep file order so that a note segment stays contiguous.
    moving.sort_by_key(|id| b.sections.get(*id).sh_offset);

    // Segments that list moved sections: loads drop them (their ranges stay as they are);
    // other segments are rebuilt around the new location.
    let mut rebuild = Vec::new();
    for seg in b.segments.iter_mut() {
        if seg.delete || !seg.sections.iter().any(|id| moving.contains(id)) {
            continue;
        }
        if seg.p_type == elf::PT_LOAD {
            seg.sections.retain(|id| !moving.contains(id));
        } else {
            rebuild.push(seg.id());
        }
    }

    let align = b
        .segments
        .iter()
        .filter(|s| !s.delete && s.is_load())
        .map(|s| s.p_align)
        .max()
        .unwrap_or(MIN_ALIGN)
        .max(MIN_ALIGN);
    let new_id = b.segments.add_load_segment(elf::PF_R, align).id();
    for id in moving.iter().chain(added) {
        let section = b.sections.get_mut(*id);
        b.segments.get_mut(new_id).append_section(section);
    }
    for id in rebuild {
        let seg = b.segments.get_mut(id);
        seg.recalculate_ranges(&b.sections);
    }
    // PT_PHDR covers the grown table.
    let phnum = b.segments.iter().filter(|s| !s.delete).count() as u64;
    for seg in b.segments.iter_mut() {
        if seg.p_type == elf::PT_PHDR && !seg.delete {
            seg.p_filesz = phnum * PHDR_SIZE;
            seg.p_memsz = phnum * PHDR_SIZE;
        }
    }
    Ok(())
}
