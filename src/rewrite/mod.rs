//! Host-side ELF rewriting: re-target a shared object's imports to another runtime.
//!
//! [`rewrite`] applies a [`HostEdits`] plan with `object`'s `build::elf::Builder`:
//!
//! * DT_NEEDED entries are replaced (or removed) in place, keeping their order;
//! * undefined dynamic symbols are renamed;
//! * imports versioned against a re-targeted library (`cudaMalloc@libcudart.so.12`) lose that
//!   version: their `.gnu.version` entry becomes 1 (VER_NDX_GLOBAL). Version requirements left
//!   without a user are removed, and when no requirement remains at all, `.gnu.version_r` and
//!   its DT_VERNEED/DT_VERNEEDNUM tags are removed too (glibc refuses an empty verneed table:
//!   "unsupported version 0 of Verneed record"), and so are `.gnu.version` and DT_VERSYM when
//!   the object defines no versions either (glibc's relocation code indexes a version array
//!   that exists only when some version table does, and crashes otherwise). Every other
//!   version requirement is kept.
//!   (`../shared/reference/wheel-and-elf-rewriting.md` §0.1: patchelf keeps the stale
//!   `vna_name`, object-rewrite and arwen keep the stale `vn_file`; ld.so then refuses.)
//! * DT_RUNPATH can be set.
//! * Entry points of a statically linked CUDA runtime are rebound to imported functions
//!   ([`Rebind`]: a jump through a new GOT slot that a GLOB_DAT relocation fills).
//!
//! # Layout
//!
//! The builder regenerates `.dynstr`, `.dynsym`, `.hash`, `.gnu.hash`, `.gnu.version` and
//! `.gnu.version_r` at their original offsets. CUDA → HIP renames shorten names (`cuda` →
//! `hip`, `libcudart.so.12` dropped from the version strings), so they fit in place. A section
//! that grows (MUSA names are as long as CUDA's; `.dynamic` when it has no spare slot for the
//! shim's DT_NEEDED and the DT_RUNPATH, as in lld output) is moved into a new PT_LOAD at the
//! end of the file by [`layout::move_to_new_segment`], which also puts a program header table
//! that patchelf moved back after the ELF header, removes PT_LOADs left without sections (so
//! that `strip` keeps the file loadable) and refuses cleanly when room cannot be made.

pub mod host;
pub mod layout;

pub use host::{rewrite_host, HostReport, HostRewrite, ShimPlacement, WrapperReport};

use crate::error::{Error, ErrorKind, Result};
use object::build::elf::{Builder, Dynamic, SectionData, VersionData, VersionId};
use object::elf;
use std::collections::HashMap;

/// What to change in one shared object.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HostEdits {
    /// DT_NEEDED edits: `(old soname, Some(new))` replaces, `(old, None)` removes.
    pub needed: Vec<(String, Option<String>)>,
    /// Renames of undefined dynamic symbols (imports): old name → new name.
    pub renames: HashMap<String, String>,
    /// Libraries (`vn_file` of `.gnu.version_r`) whose version requirements are dropped: the
    /// imports versioned against them become unversioned.
    pub drop_version_files: Vec<String>,
    /// New DT_RUNPATH value: replaces an existing DT_RUNPATH, else an existing DT_RPATH (the
    /// DT_RPATH vs DT_RUNPATH choice is kept, reference invariant 24), else is added as
    /// DT_RUNPATH (in a spare slot of `.dynamic`, or in a moved `.dynamic`, see [`layout`]).
    pub runpath: Option<String>,
    /// Sonames to add as DT_NEEDED entries after the existing ones (such as the shim library,
    /// [`crate::shim::SHIM_SONAME`]); a name already present is not added twice.
    pub add_needed: Vec<String>,
    /// Registration wrappers to point at new device code (see [`Registration`]).
    pub registrations: Vec<Registration>,
    /// Entry points of a statically linked CUDA runtime to rebind (see [`Rebind`]).
    pub rebinds: Vec<Rebind>,
    /// The identity the shim answers the object's host code: the compute capability x10 its
    /// kernels were translated from, stored as a [`DT_WHEELPORT_IDENTITY`] entry.
    pub identity: Option<u32>,
}

/// The dynamic tag holding a converted object's identity (compute capability x10, `d_val`):
/// in the OS-specific range (`DT_LOOS`..`DT_HIOS`) outside every tag glibc's loader, GNU or
/// Solaris define, so the loader ignores it; the HIP shim reads it from the calling object's
/// dynamic section (`shims/hip/wheelport_shim.c`, `WP_DT_IDENTITY`).
pub const DT_WHEELPORT_IDENTITY: i64 = 0x6f77_7000;

/// Rebind one entry point of a CUDA runtime linked into the object
/// ([`crate::elf::static_runtime`]) to an imported function.
///
/// The function's first bytes become `jmp *slot(%rip)` (`FF 25 disp32`; after the
/// `endbr64` it starts with, when it does, so that indirect-branch tracking still accepts
/// it), where `slot` is an 8-byte GOT slot in a new writable section `.wp.got` that an
/// `R_X86_64_GLOB_DAT` relocation against a new undefined dynamic symbol `target` fills at
/// load time (one slot per distinct target). The rest of the function's bytes are left as
/// they are and are never reached: callers enter at the entry point (x86-64 psABI).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rebind {
    /// The entry point's name (`cudaMalloc`), for reports.
    pub name: String,
    /// Its virtual address.
    pub address: u64,
    /// Its size in bytes (at least [`crate::relink::REBIND_BYTES`]).
    pub size: u64,
    /// The function it jumps to (`hipMalloc`, or a shim symbol).
    pub target: String,
}

/// Re-point one `__fatBinC_Wrapper_t` at a clang offload bundle.
///
/// The wrapper at `wrapper_address` (in `.nvFatBinSegment`) becomes HIP's
/// `{0x48495046 "HIPF", 1, bundle, 0}` (reference §3.2); the bundle is stored in a new
/// read-only, 4096-aligned `.hip_fatbin` section, and the wrapper's R_X86_64_RELATIVE
/// relocation at +8 gets the bundle's address as its addend (the field bytes too, as GNU ld
/// writes them). The registration calls themselves are renamed through
/// [`HostEdits::renames`] (`__cudaRegisterFatBinary` → `__hipRegisterFatBinary`, ...).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Registration {
    /// Virtual address of the wrapper.
    pub wrapper_address: u64,
    /// The wrapper magic to write: [`HIP_WRAPPER_MAGIC`] for a clang offload bundle, or
    /// [`CUDA_WRAPPER_MAGIC`] for a CUDA fatbin (the `cuda` twin target, whose device code is
    /// registered by the CUDA runtime itself). Every registration of one file uses the same
    /// magic.
    pub magic: u32,
    /// The device code: a clang offload bundle (see [`crate::bundle`]) for HIP, or a fatbin
    /// (`0xBA55ED50` header) for CUDA.
    pub bundle: Vec<u8>,
}

/// HIP's wrapper magic, "HIPF" (`__hipRegisterFatBinary` rejects anything else).
pub const HIP_WRAPPER_MAGIC: u32 = 0x4849_5046;

/// CUDA's wrapper magic, `0x466243B1` (`__fatBinC_Wrapper_t.magic`, reference §2).
pub const CUDA_WRAPPER_MAGIC: u32 = 0x4662_43B1;

/// What [`rewrite`] changed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RewriteSummary {
    /// DT_NEEDED entries replaced or removed.
    pub needed_changed: usize,
    /// Imports renamed.
    pub renamed: usize,
    /// Imports whose version was dropped.
    pub unversioned: usize,
    /// Whether `.gnu.version_r` was removed because no requirement remained.
    pub verneed_removed: bool,
    /// Sections that grew and were moved into a new PT_LOAD (see [`layout`]).
    pub moved: Vec<String>,
    /// Wrappers re-pointed at new device code.
    pub registrations: usize,
    /// DT_NEEDED entries added ([`HostEdits::add_needed`]).
    pub needed_added: usize,
    /// Entry points rebound ([`HostEdits::rebinds`]).
    pub rebound: usize,
}

/// Turn the wrapper at `wrapper` into `{magic, 1, target, 0}`.
fn repoint_wrapper(
    b: &mut Builder<'_>,
    wrapper: u64,
    magic: u32,
    target: u64,
    file: &str,
) -> Result<()> {
    let section = b
        .sections
        .iter_mut()
        .find(|s| {
            !s.delete
                && s.is_alloc()
                && wrapper >= s.sh_addr
                && wrapper + 24 <= s.sh_addr + s.sh_size
        })
        .ok_or_else(|| {
            err(
                file,
                format!("no section holds the wrapper at address {wrapper:#x}"),
            )
        })?;
    let at = (wrapper - section.sh_addr) as usize;
    let SectionData::Data(bytes) = &mut section.data else {
        return Err(err(
            file,
            format!("the wrapper at {wrapper:#x} is not in a data section"),
        ));
    };
    let d = bytes.to_mut();
    d[at..at + 4].copy_from_slice(&magic.to_le_bytes());
    d[at + 4..at + 8].copy_from_slice(&1u32.to_le_bytes());
    d[at + 8..at + 16].copy_from_slice(&target.to_le_bytes());
    // +16 is unused by HIP; a device-link wrapper's relocation there stays (the relocation
    // count, and DT_RELACOUNT, must not change).
    d[at + 16..at + 24].copy_from_slice(&0u64.to_le_bytes());
    let mut found = false;
    for s in b.sections.iter_mut() {
        if let SectionData::DynamicRelocation(relocs) = &mut s.data {
            for r in relocs.iter_mut() {
                if r.r_offset == wrapper + 8 && r.r_type == elf::R_X86_64_RELATIVE {
                    r.r_addend = target as i64;
                    found = true;
                }
            }
        }
    }
    if !found {
        return Err(err(
            file,
            format!(
                "no R_X86_64_RELATIVE relocation for the wrapper's data pointer at {:#x}",
                wrapper + 8
            ),
        ));
    }
    Ok(())
}

fn err(file: &str, m: impl Into<String>) -> Error {
    Error::new(ErrorKind::Elf, file, m)
}

/// Apply `edits` to the ELF shared object `data`, returning the new file bytes.
///
/// `file` names the input in errors.
///
/// # Errors
/// [`ErrorKind::Elf`] when the input cannot be read by the builder, when an edit names a
/// DT_NEEDED entry that is not there, or when the layout cannot be made (a section that
/// must move is not movable, see [`layout`]).
pub fn rewrite(data: &[u8], edits: &HostEdits, file: &str) -> Result<(Vec<u8>, RewriteSummary)> {
    let mut out = Vec::with_capacity(data.len());
    let summary = rewrite_into(data, edits, file, &mut out)?;
    Ok((out, summary))
}

/// As [`rewrite`], writing the new file to `out` as it is produced (no second copy of a
/// large file in memory). Nothing is written when the plan is refused.
///
/// # Errors
/// As [`rewrite`], plus write errors of `out`.
pub fn rewrite_into(
    data: &[u8],
    edits: &HostEdits,
    file: &str,
    out: &mut dyn std::io::Write,
) -> Result<RewriteSummary> {
    crate::elf::scan::check_layout(data, file)?;
    let mut b = Builder::read(data)
        .map_err(|e| err(file, format!("ELF builder cannot read the file: {e}")))?;
    let mut summary = RewriteSummary::default();

    // The room each regenerated section has: its size in the input.
    let before = regenerated_sizes(&b);

    // DT_NEEDED.
    {
        let dynamics = b
            .dynamic_data_mut()
            .ok_or_else(|| err(file, "no dynamic section: not a shared object"))?;
        for (old, new) in &edits.needed {
            let pos = dynamics.iter().position(|d| {
                matches!(d, Dynamic::String { tag, val } if *tag == elf::DT_NEEDED && val.as_slice() == old.as_bytes())
            });
            let Some(pos) = pos else {
                return Err(err(file, format!("DT_NEEDED {old:?} is not in the file")));
            };
            match new {
                Some(n) => {
                    dynamics[pos] = Dynamic::String {
                        tag: elf::DT_NEEDED,
                        val: n.as_bytes().to_vec().into(),
                    }
                }
                None => {
                    dynamics.remove(pos);
                }
            }
            summary.needed_changed += 1;
        }
        for n in &edits.add_needed {
            let present = dynamics.iter().any(|d| {
                matches!(d, Dynamic::String { tag, val } if *tag == elf::DT_NEEDED && val.as_slice() == n.as_bytes())
            });
            if present {
                continue;
            }
            let at = dynamics
                .iter()
                .rposition(|d| d.tag() == elf::DT_NEEDED)
                .map_or(0, |i| i + 1);
            dynamics.insert(
                at,
                Dynamic::String {
                    tag: elf::DT_NEEDED,
                    val: n.as_bytes().to_vec().into(),
                },
            );
            summary.needed_added += 1;
        }
        if let Some(id) = edits.identity {
            let tag = elf::DynamicTag(DT_WHEELPORT_IDENTITY);
            let entry = Dynamic::Integer {
                tag,
                val: u64::from(id),
            };
            match dynamics.iter().position(|d| d.tag() == tag) {
                Some(i) => dynamics[i] = entry,
                None => {
                    let at = dynamics
                        .iter()
                        .rposition(|d| d.tag() == elf::DT_NEEDED)
                        .map_or(0, |i| i + 1);
                    dynamics.insert(at, entry);
                }
            }
        }
        if let Some(rp) = &edits.runpath {
            let val: object::build::ByteString<'_> = rp.as_bytes().to_vec().into();
            let at = dynamics
                .iter()
                .position(|d| d.tag() == elf::DT_RUNPATH)
                .or_else(|| dynamics.iter().position(|d| d.tag() == elf::DT_RPATH));
            match at {
                Some(i) => {
                    let tag = dynamics[i].tag();
                    dynamics[i] = Dynamic::String { tag, val }
                }
                None => {
                    let at = dynamics
                        .iter()
                        .rposition(|d| matches!(d.tag(), elf::DT_NEEDED | elf::DT_SONAME))
                        .map_or(0, |i| i + 1);
                    dynamics.insert(
                        at,
                        Dynamic::String {
                            tag: elf::DT_RUNPATH,
                            val,
                        },
                    );
                }
            }
        }
    }

    // Version files to drop.
    let drop_files: Vec<_> = b
        .version_files
        .iter()
        .filter(|f| {
            edits
                .drop_version_files
                .iter()
                .any(|d| d.as_bytes() == f.name.as_slice())
        })
        .map(|f| f.id())
        .collect();
    let dropped_versions: Vec<VersionId> = b
        .versions
        .iter()
        .filter(|v| matches!(&v.data, VersionData::Need(n) if drop_files.contains(&n.file)))
        .map(|v| v.id())
        .collect();

    // Imports: rename and unversion.
    for sym in b.dynamic_symbols.iter_mut() {
        if sym.st_shndx != elf::SHN_UNDEF || sym.section.is_some() {
            continue;
        }
        if let Some(new) = edits
            .renames
            .get(&*String::from_utf8_lossy(sym.name.as_slice()))
        {
            sym.name = new.as_bytes().to_vec().into();
            summary.renamed += 1;
        }
        if dropped_versions.contains(&sym.version) {
            sym.version = VersionId::global();
            summary.unversioned += 1;
        }
    }

    // The static symbol table (`.symtab`, not used by the loader) spells versioned imports
    // `name@version`; keep it consistent with `.dynsym`.
    let dropped_names: Vec<Vec<u8>> = b
        .versions
        .iter()
        .filter(|v| dropped_versions.contains(&v.id()))
        .filter_map(|v| match &v.data {
            VersionData::Need(n) => Some(n.name.as_slice().to_vec()),
            VersionData::Def(_) => None,
        })
        .collect();
    for sym in b.symbols.iter_mut() {
        if sym.st_shndx != elf::SHN_UNDEF || sym.section.is_some() {
            continue;
        }
        let name = String::from_utf8_lossy(sym.name.as_slice()).into_owned();
        let (base, version) = match name.split_once('@') {
            Some((b, v)) => (b, Some(v.trim_start_matches('@'))),
            None => (name.as_str(), None),
        };
        let drop_version = version.is_some_and(|v| dropped_names.iter().any(|d| d == v.as_bytes()));
        let new_base = edits.renames.get(base).map(String::as_str).unwrap_or(base);
        if new_base != base || drop_version {
            let new = match version {
                Some(v) if !drop_version => format!("{new_base}@{v}"),
                _ => new_base.to_string(),
            };
            sym.name = new.into_bytes().into();
        }
    }

    // Requirements without users go; an empty table goes with its tags.
    b.delete_unused_versions();
    let needs_left = b
        .versions
        .iter()
        .any(|v| !v.delete && matches!(v.data, VersionData::Need(_)));
    if !needs_left {
        // With neither requirements nor definitions left, `.gnu.version` must go too: glibc
        // indexes its version array (allocated only when a verneed or verdef exists) for
        // every symbol of an object that has DT_VERSYM, and crashes on a null array.
        let defs_left = b
            .versions
            .iter()
            .any(|v| !v.delete && matches!(v.data, VersionData::Def(_)));
        let mut removed = false;
        for s in b.sections.iter_mut() {
            let versym = matches!(s.data, SectionData::GnuVersym) && !defs_left;
            if matches!(s.data, SectionData::GnuVerneed) || versym {
                s.delete = true;
                removed = true;
            }
        }
        if removed {
            if let Some(d) = b.dynamic_data_mut() {
                d.retain(|e| {
                    let t = e.tag();
                    t != elf::DT_VERNEED
                        && t != elf::DT_VERNEEDNUM
                        && (defs_left || t != elf::DT_VERSYM)
                });
            }
            summary.verneed_removed = true;
        }
    }

    // Keep `.dynamic` at its size: removed entries become DT_NULL padding (spare slots, as
    // GNU ld leaves them), so that PT_DYNAMIC still matches the section (invariant 15).
    let dynamic_slots = before
        .iter()
        .find(|(n, _)| n == ".dynamic")
        .map_or(0, |(_, s)| (*s / 16) as usize);
    if let Some(d) = b.dynamic_data_mut() {
        while d.len() + 1 < dynamic_slots {
            d.push(Dynamic::Integer {
                tag: elf::DT_NULL,
                val: 0,
            });
        }
    }
    let rebind = add_rebind_imports(&mut b, &edits.rebinds, file)?;
    b.set_section_sizes();
    let after = regenerated_sizes(&b);
    let mut grown = Vec::new();
    for (name, old) in &before {
        if let Some((_, new)) = after.iter().find(|(n, _)| n == name) {
            if new > old {
                // A full `.dynamic` (lld sizes it exactly) moves to a new RW segment.
                grown.push(name.clone());
            }
        }
    }
    // New device code: one `.hip_fatbin` section holding every bundle, 4096-aligned
    // (`.nv_fatbin.wheelport` for CUDA fatbins of the twin target).
    let mut added = Vec::new();
    let mut bundle_offsets = Vec::new();
    if let Some(first) = edits.registrations.first() {
        if edits.registrations.iter().any(|r| r.magic != first.magic) {
            return Err(err(
                file,
                "registrations of one file must all use the same wrapper magic",
            ));
        }
        let name: &[u8] = if first.magic == HIP_WRAPPER_MAGIC {
            b".hip_fatbin"
        } else {
            b".nv_fatbin.wheelport"
        };
        let mut blob = Vec::new();
        for r in &edits.registrations {
            blob.resize(blob.len().div_ceil(4096) * 4096, 0);
            bundle_offsets.push(blob.len() as u64);
            blob.extend_from_slice(&r.bundle);
        }
        let s = b.sections.add();
        s.name = name.to_vec().into();
        s.sh_type = elf::SHT_PROGBITS;
        s.sh_flags = elf::SectionFlags(elf::SHF_ALLOC.0);
        s.sh_addralign = 4096;
        s.sh_size = blob.len() as u64;
        s.data = SectionData::Data(blob.into());
        added.push(s.id());
    }
    if let Some(r) = &rebind {
        added.push(r.got);
        grown.push(String::from_utf8_lossy(b.sections.get(r.rela).name.as_slice()).into_owned());
    }
    if !grown.is_empty() || !added.is_empty() || layout::needs_relayout(&b) {
        let ids: Vec<_> = b
            .sections
            .iter()
            .filter(|s| !s.delete && grown.iter().any(|g| g.as_bytes() == s.name.as_slice()))
            .map(|s| s.id())
            .collect();
        layout::move_to_new_segment(&mut b, &ids, &added, file)?;
        summary.moved = grown;
    }
    if let Some(r) = &rebind {
        patch_rebinds(&mut b, &edits.rebinds, r, file)?;
        summary.rebound = edits.rebinds.len();
    }
    if let Some(&fatbin) = added.first() {
        let base = b.sections.get(fatbin).sh_addr;
        for (r, off) in edits.registrations.iter().zip(&bundle_offsets) {
            repoint_wrapper(&mut b, r.wrapper_address, r.magic, base + off, file)?;
        }
        summary.registrations = edits.registrations.len();
    }

    let mut buffer = object::write::StreamingBuffer::new(out);
    b.write(&mut buffer)
        .map_err(|e| err(file, format!("cannot write the rewritten file: {e}")))?;
    buffer.result().map_err(|e| Error::io(file, e))?;
    Ok(summary)
}

/// What [`add_rebind_imports`] added: the GOT section, the relocation section that holds
/// its relocations (the last `targets.len()` entries), and the distinct targets in slot order.
struct RebindImports {
    got: object::build::elf::SectionId,
    rela: object::build::elf::SectionId,
    targets: Vec<String>,
}

/// For [`HostEdits::rebinds`]: an undefined dynamic symbol per distinct target (an existing
/// import of that name is reused), the `.wp.got` section with a zeroed slot for each, and an
/// `R_X86_64_GLOB_DAT` relocation per slot appended to the relocation table DT_RELA names
/// (its `r_offset` is set once the layout places `.wp.got`, in [`patch_rebinds`]).
fn add_rebind_imports(
    b: &mut Builder<'_>,
    rebinds: &[Rebind],
    file: &str,
) -> Result<Option<RebindImports>> {
    if rebinds.is_empty() {
        return Ok(None);
    }
    let mut targets: Vec<String> = rebinds.iter().map(|r| r.target.clone()).collect();
    targets.sort();
    targets.dedup();
    let mut syms = Vec::with_capacity(targets.len());
    for t in &targets {
        let existing = b
            .dynamic_symbols
            .iter()
            .find(|s| {
                s.st_shndx == elf::SHN_UNDEF
                    && s.section.is_none()
                    && s.name.as_slice() == t.as_bytes()
            })
            .map(|s| s.id());
        let id = match existing {
            Some(id) => id,
            None => {
                let s = b.dynamic_symbols.add();
                s.name = t.as_bytes().to_vec().into();
                s.st_info = elf::SymbolInfo::new(elf::STB_GLOBAL, elf::STT_FUNC);
                s.st_other = elf::STV_DEFAULT.into();
                s.st_shndx = elf::SHN_UNDEF;
                s.version = VersionId::global();
                s.id()
            }
        };
        syms.push(id);
    }
    let rela_addr = b.dynamic_data().and_then(|d| {
        d.iter().find_map(|e| match e {
            Dynamic::Integer { tag, val } if *tag == elf::DT_RELA => Some(*val),
            _ => None,
        })
    });
    let rela = b
        .sections
        .iter_mut()
        .find(|s| {
            !s.delete
                && Some(s.sh_addr) == rela_addr
                && matches!(s.data, SectionData::DynamicRelocation(_))
        })
        .ok_or_else(|| {
            err(
                file,
                "no relocation table at DT_RELA to hold the rebinds' GOT relocations",
            )
        })?;
    let SectionData::DynamicRelocation(relocs) = &mut rela.data else {
        unreachable!("matched above");
    };
    for id in &syms {
        relocs.push(object::build::elf::DynamicRelocation {
            r_offset: 0,
            symbol: Some(*id),
            r_type: elf::R_X86_64_GLOB_DAT,
            r_addend: 0,
        });
    }
    let rela = rela.id();
    let got = b.sections.add();
    got.name = b".wp.got".to_vec().into();
    got.sh_type = elf::SHT_PROGBITS;
    got.sh_flags = elf::SectionFlags(elf::SHF_ALLOC.0 | elf::SHF_WRITE.0);
    got.sh_addralign = 8;
    got.sh_size = 8 * targets.len() as u64;
    got.data = SectionData::Data(vec![0u8; 8 * targets.len()].into());
    Ok(Some(RebindImports {
        got: got.id(),
        rela,
        targets,
    }))
}

/// After the layout: the GOT relocations' offsets, and each entry point's jump through its
/// slot (see [`Rebind`]).
fn patch_rebinds(
    b: &mut Builder<'_>,
    rebinds: &[Rebind],
    r: &RebindImports,
    file: &str,
) -> Result<()> {
    let got = b.sections.get(r.got).sh_addr;
    let slot = |t: &str| got + 8 * r.targets.iter().position(|x| x == t).expect("a target") as u64;
    if let SectionData::DynamicRelocation(relocs) = &mut b.sections.get_mut(r.rela).data {
        let first = relocs.len() - r.targets.len();
        for (k, rel) in relocs[first..].iter_mut().enumerate() {
            rel.r_offset = got + 8 * k as u64;
        }
    }
    const ENDBR64: [u8; 4] = [0xf3, 0x0f, 0x1e, 0xfa];
    for rb in rebinds {
        let section = b
            .sections
            .iter_mut()
            .find(|s| {
                !s.delete
                    && s.sh_flags.0 & elf::SHF_EXECINSTR.0 != 0
                    && rb.address >= s.sh_addr
                    && rb.address + rb.size <= s.sh_addr + s.sh_size
            })
            .ok_or_else(|| {
                err(
                    file,
                    format!(
                        "{} at {:#x}: no executable section holds it",
                        rb.name, rb.address
                    ),
                )
            })?;
        let base = section.sh_addr;
        let SectionData::Data(bytes) = &mut section.data else {
            return Err(err(
                file,
                format!(
                    "{} at {:#x} is not in a section with file bytes",
                    rb.name, rb.address
                ),
            ));
        };
        let code = bytes.to_mut();
        let mut at = (rb.address - base) as usize;
        if code.get(at..at + 4) == Some(&ENDBR64[..]) {
            at += 4;
        }
        let ip = base + at as u64 + 6;
        let disp = slot(&rb.target) as i64 - ip as i64;
        let disp = i32::try_from(disp).map_err(|_| {
            err(
                file,
                format!(
                    "{} at {:#x}: its GOT slot is out of reach of a 32-bit displacement",
                    rb.name, rb.address
                ),
            )
        })?;
        if (at + 6) as u64 > rb.address - base + rb.size {
            return Err(err(
                file,
                format!("{} at {:#x} is too short to rebind", rb.name, rb.address),
            ));
        }
        code[at..at + 2].copy_from_slice(&[0xff, 0x25]);
        code[at + 2..at + 6].copy_from_slice(&disp.to_le_bytes());
    }
    Ok(())
}

/// (section name, size) of the sections the builder regenerates.
fn regenerated_sizes(b: &Builder<'_>) -> Vec<(String, u64)> {
    b.sections
        .iter()
        .filter(|s| !s.delete)
        .filter(|s| {
            layout::is_dynamic_symbol_table(&s.data) || matches!(s.data, SectionData::Dynamic(_))
        })
        .map(|s| {
            (
                String::from_utf8_lossy(s.name.as_slice()).into_owned(),
                s.sh_size,
            )
        })
        .collect()
}
