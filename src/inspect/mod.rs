//! `wheelport inspect`: what a wheel or shared object holds — needed libraries, CUDA-stack
//! imports, the fatbin (containers, entries by kind, arch and compression) and, per kernel,
//! whether PTX exists (translatable) or only SASS.
//!
//! [`inspect_paths`] builds a [`model::Report`]; [`human::render`] prints it for a person and
//! `serde_json` prints it for machines (schema `docs/inspect.schema.json`); [`html::render`]
//! writes a self-contained HTML page (`inspect --html`).

pub mod cuda_stack;
pub mod html;
pub mod human;
pub mod model;
pub mod ptx_entries;

use crate::error::{Error, Result};
use crate::fatbin::{self, EntryKind};
use crate::wheel::{is_shared_object_name, WheelReader};
use model::*;
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// What to include in the report.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Include the per-kernel list (`--kernels`).
    pub kernels: bool,
    /// Include, per kernel, the PTX instruction forms the lowering does not support
    /// (`--untranslatable`; implies `kernels`).
    pub untranslatable: bool,
    /// With a relink table (`--target`, optionally merged with `--relink-table` files): report
    /// what the host rewrite would do to each object's imports.
    pub relink: Option<std::sync::Arc<crate::relink::Table>>,
}

/// Expand the inputs: files are kept as given; a directory contributes every `.whl` and
/// shared object below it, sorted by path.
///
/// # Errors
/// [`crate::error::ErrorKind::Io`] when an input does not exist or a directory cannot be read.
pub fn expand_inputs(inputs: &[PathBuf]) -> Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for p in inputs {
        let md = std::fs::metadata(p).map_err(|e| Error::io(p.display().to_string(), e))?;
        if md.is_dir() {
            let mut found = Vec::new();
            walk(p, &mut found)?;
            found.sort();
            out.extend(found);
        } else {
            out.push(p.clone());
        }
    }
    Ok(out)
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> Result<()> {
    let rd = std::fs::read_dir(dir).map_err(|e| Error::io(dir.display().to_string(), e))?;
    for ent in rd {
        let ent = ent.map_err(|e| Error::io(dir.display().to_string(), e))?;
        let path = ent.path();
        let ft = ent
            .file_type()
            .map_err(|e| Error::io(path.display().to_string(), e))?;
        if ft.is_dir() {
            walk(&path, out)?;
        } else if ft.is_file() {
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
            if name.ends_with(".whl") || is_shared_object_name(name) {
                out.push(path);
            }
        }
    }
    Ok(())
}

/// Inspect every input (after [`expand_inputs`]). Errors about one input are recorded in
/// its [`InputReport::errors`]; the report covers the rest.
///
/// # Errors
/// Only for inputs that do not exist or cannot be listed.
pub fn inspect_paths(inputs: &[PathBuf], opts: &Options) -> Result<Report> {
    let files = expand_inputs(inputs)?;
    let mut report = Report {
        tool_version: env!("CARGO_PKG_VERSION").to_string(),
        ..Default::default()
    };
    for f in files {
        let r = inspect_file(&f, opts);
        report.verdict.add(&r.verdict);
        report.inputs.push(r);
    }
    Ok(report)
}

/// True when any input or shared object recorded an error.
pub fn has_errors(report: &Report) -> bool {
    report
        .inputs
        .iter()
        .any(|i| !i.errors.is_empty() || i.shared_objects.iter().any(|s| !s.errors.is_empty()))
}

/// Inspect one file: a wheel (by the `.whl` suffix or the zip magic) or an ELF object.
pub fn inspect_file(path: &Path, opts: &Options) -> InputReport {
    let display = path.display().to_string();
    let size = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
    let mut head = [0u8; 4];
    let is_zip = std::fs::File::open(path)
        .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut head))
        .map(|_| &head == b"PK\x03\x04")
        .unwrap_or(false);
    let kind = if display.ends_with(".whl") || is_zip {
        InputKind::Wheel
    } else {
        InputKind::SharedObject
    };
    let mut rep = InputReport {
        path: display.clone(),
        kind,
        size,
        wheel: None,
        shared_objects: Vec::new(),
        errors: Vec::new(),
        verdict: Verdict::default(),
    };
    let result = match kind {
        InputKind::Wheel => inspect_wheel(path, opts, &mut rep),
        InputKind::SharedObject => map_file(path).map(|m| {
            rep.shared_objects
                .push(inspect_shared_object(&m, &display, &display, opts));
        }),
    };
    if let Err(e) = result {
        rep.errors.push((&e).into());
    }
    for s in &rep.shared_objects {
        rep.verdict.add(&s.verdict);
    }
    rep
}

fn map_file(path: &Path) -> Result<memmap2::Mmap> {
    let display = path.display().to_string();
    let f = std::fs::File::open(path).map_err(|e| Error::io(&display, e))?;
    // SAFETY: read-only mapping; wheelport never writes to its inputs. A concurrent writer
    // could change the bytes under us, which the parsers tolerate (every read is bounds-checked).
    let map = unsafe { memmap2::Mmap::map(&f) }.map_err(|e| Error::io(&display, e))?;
    random_access(&map);
    Ok(map)
}

/// Tell the kernel that a mapping is read at scattered places (headers, symbol tables), so
/// it neither reads ahead nor maps neighbouring pages: peak RSS then follows what is read,
/// not the file size. Advisory; failure is ignored.
pub(crate) fn random_access(map: &memmap2::Mmap) {
    let _ = map.advise(memmap2::Advice::Random);
}

fn inspect_wheel(path: &Path, opts: &Options, rep: &mut InputReport) -> Result<()> {
    let mut w = WheelReader::open(path)?;
    rep.wheel = w.info()?;
    for name in w.member_names() {
        if !is_shared_object_name(&name) {
            continue;
        }
        match w.shared_object(&name) {
            Ok(m) => rep
                .shared_objects
                .push(inspect_shared_object(&m.map, &m.name, &m.display, opts)),
            Err(e) => rep.errors.push((&e).into()),
        }
    }
    Ok(())
}

/// What one entry contributes: its kernels, and for PTX the body class and forms of each.
#[derive(Default)]
struct EntryFacts {
    kernels: Vec<String>,
    /// Cubins: code bytes per kernel (same order as `kernels`).
    code_sizes: Vec<u64>,
    /// PTX: the body class per kernel (same order), `None` when the parser has no body.
    bodies: Vec<Option<crate::stub::PtxBody>>,
    /// PTX with `untranslatable`: unsupported forms per kernel (same order).
    forms: Vec<Vec<FormReport>>,
    /// PTX: why the kernel's function did not parse, per kernel (same order).
    invalid: Vec<Option<String>>,
    error: Option<Error>,
}

fn ptx_facts(text: &[u8], file: &str, entry: &fatbin::Entry<'_>, opts: &Options) -> EntryFacts {
    let kernels = ptx_entries::entry_names(text);
    let name = format!("{file} (PTX at offset {:#x})", entry.payload_offset());
    let parsed = crate::ptx::parse_bytes(text, &name);
    let bodies = kernels
        .iter()
        .map(|k| crate::stub::ptx_body(&parsed.module, k))
        .collect();
    // A kernel whose function did not parse is reported with the first diagnostic in it.
    let invalid = kernels
        .iter()
        .map(|k| {
            parsed
                .module
                .invalid()
                .find(|d| d.name == Some(k.as_str()))
                .map(|_| {
                    parsed
                        .diagnostics
                        .iter()
                        .find(|d| d.function.as_deref() == Some(k.as_str()))
                        .map(|d| {
                            format!(
                                "PTX does not parse: line {}:{}: {}",
                                d.line, d.col, d.message
                            )
                        })
                        .unwrap_or_else(|| "PTX does not parse".to_string())
                })
        })
        .collect();
    let forms = if opts.untranslatable {
        let all = crate::ptx::analysis::kernel_forms(&parsed.module);
        kernels
            .iter()
            .map(|k| match all.iter().find(|f| &f.kernel == k) {
                Some(kf) => crate::ptx::analysis::unsupported_forms(kf)
                    .into_iter()
                    .map(|u| FormReport {
                        form: u.form.clone(),
                        count: u.count,
                        first_line: u.first_line,
                    })
                    .collect(),
                None => Vec::new(),
            })
            .collect()
    } else {
        Vec::new()
    };
    EntryFacts {
        kernels,
        bodies,
        forms,
        invalid,
        ..Default::default()
    }
}

fn entry_facts(e: &fatbin::Entry<'_>, file: &str, opts: &Options) -> EntryFacts {
    let result = match e.kind() {
        EntryKind::Ptx => e.ptx_bytes().map(|t| ptx_facts(&t, file, e, opts)),
        EntryKind::Elf => crate::cubin::entry_kernel_names(e, file).map(|ks| EntryFacts {
            code_sizes: ks.iter().map(|k| k.code_size).collect(),
            kernels: ks.into_iter().map(|k| k.name).collect(),
            ..Default::default()
        }),
        _ => Ok(EntryFacts::default()),
    };
    result.unwrap_or_else(|err| EntryFacts {
        error: Some(err),
        ..Default::default()
    })
}

/// Everything known about one kernel (a name in one container) while entries are read.
struct KernelAcc {
    container: usize,
    name: String,
    ptx_archs: Vec<String>,
    sass: Vec<(String, u64)>,
    body: Option<crate::stub::PtxBody>,
    forms: Vec<FormReport>,
    invalid: Option<String>,
}

/// Inspect the bytes of one ELF shared object. `path` is how the report names it,
/// `file` how errors name it (`WHEEL!member` for wheel members).
pub fn inspect_shared_object(
    data: &[u8],
    path: &str,
    file: &str,
    opts: &Options,
) -> SharedObjectReport {
    let mut rep = SharedObjectReport {
        path: path.to_string(),
        size: data.len() as u64,
        soname: None,
        needed: Vec::new(),
        runpath: None,
        rpath: None,
        cuda_imports: Vec::new(),
        import_count: 0,
        fatbin: None,
        kernels: None,
        relink: None,
        verdict: Verdict::default(),
        errors: Vec::new(),
    };
    let mut so = match crate::elf::scan(data, file) {
        Ok(so) => so,
        Err(e) => {
            rep.errors.push((&e).into());
            return rep;
        }
    };
    if !so.wrappers.is_empty() {
        let addrs: Vec<u64> = so.wrappers.iter().map(|w| w.address).collect();
        match crate::elf::registration::registered_wrappers(data, &addrs, file) {
            Ok(reg) => {
                for w in &mut so.wrappers {
                    w.registered = Some(reg.contains(&w.address));
                }
            }
            Err(e) => rep.errors.push((&e).into()),
        }
    }
    rep.cuda_imports = cuda_stack::group_imports(&so.imports, &so.needed);
    if let Some(table) = &opts.relink {
        let p = crate::relink::plan(table, &so);
        rep.relink = Some(RelinkReport {
            target: table.target().name().to_string(),
            needed: p
                .edits
                .needed
                .iter()
                .map(|(a, b)| (a.clone(), b.clone().unwrap_or_default()))
                .collect(),
            unresolved_needed: p.unresolved_needed.clone(),
            renamed: p.edits.renames.len() - p.shimmed.len(),
            shimmed: p.shimmed.clone(),
            unresolved: p
                .unresolved
                .iter()
                .map(|u| UnresolvedImport {
                    import: u.import.clone(),
                    reason: u.reason.clone(),
                })
                .collect(),
        });
    }
    rep.import_count = so.imports.len();
    rep.soname = so.soname.clone();
    rep.runpath = so.runpath.clone();
    rep.rpath = so.rpath.clone();
    rep.needed = so.needed.clone();
    if so.fatbin_sections.is_empty() {
        return rep;
    }

    let mut containers_rep = Vec::new();
    let mut summary: BTreeMap<(String, String, String, String), (usize, u64)> = BTreeMap::new();
    // A kernel is a name inside one container (the module the runtime registers): the same
    // name in two containers is two device functions. (container, name) -> index into
    // `kernels`, which holds (container, name, ptx archs, sass archs) in first-seen order.
    let mut kernels: Vec<KernelAcc> = Vec::new();
    let mut kindex: std::collections::HashMap<(usize, String), usize> =
        std::collections::HashMap::new();
    let mut entry_count = 0;
    for sec in &so.fatbin_sections {
        let start = sec.offset as usize;
        let bytes = &data[start..start + sec.size as usize];
        let containers = match fatbin::parse_section(bytes, sec.offset, file) {
            Ok(c) => c,
            Err(e) => {
                rep.errors.push((&e).into());
                continue;
            }
        };
        let all: Vec<&fatbin::Entry<'_>> =
            containers.iter().flat_map(|c| c.entries.iter()).collect();
        let facts: Vec<EntryFacts> = all.par_iter().map(|e| entry_facts(e, file, opts)).collect();
        let mut fi = facts.into_iter();
        for c in &containers {
            let mut entries = Vec::new();
            for e in &c.entries {
                let f = fi.next().expect("one fact per entry");
                if let Some(err) = &f.error {
                    rep.errors.push(err.into());
                }
                let kind = e.kind();
                let kind_s = match kind {
                    EntryKind::Unknown(_) => "unknown".to_string(),
                    k => k.label().to_lowercase(),
                };
                let arch = e.arch_name();
                let comp = e.compression();
                let stored = e.stored.len() as u64;
                let s = summary
                    .entry((
                        sec.name.clone(),
                        kind_s.clone(),
                        arch.clone(),
                        comp.label().to_string(),
                    ))
                    .or_default();
                s.0 += 1;
                s.1 += stored;
                let cidx = containers_rep.len();
                for (n, k) in f.kernels.iter().enumerate() {
                    let i = *kindex.entry((cidx, k.clone())).or_insert_with(|| {
                        kernels.push(KernelAcc {
                            container: cidx,
                            name: k.clone(),
                            ptx_archs: Vec::new(),
                            sass: Vec::new(),
                            body: None,
                            forms: Vec::new(),
                            invalid: None,
                        });
                        kernels.len() - 1
                    });
                    let acc = &mut kernels[i];
                    if kind == EntryKind::Ptx {
                        if !acc.ptx_archs.contains(&arch) {
                            acc.ptx_archs.push(arch.clone());
                        }
                        // The first PTX entry that has a body decides (one PTX per container
                        // in every known file).
                        if acc.body.is_none() {
                            acc.body = f.bodies.get(n).cloned().flatten();
                        }
                        if let Some(fs) = f.forms.get(n) {
                            acc.forms.extend(fs.iter().cloned());
                        }
                        if let Some(Some(why)) = f.invalid.get(n) {
                            acc.invalid.get_or_insert_with(|| why.clone());
                        }
                    } else if !acc.sass.iter().any(|(a, _)| a == &arch) {
                        acc.sass
                            .push((arch.clone(), f.code_sizes.get(n).copied().unwrap_or(0)));
                    }
                }
                entries.push(EntryReport {
                    kind: kind_s,
                    kind_raw: e.header.kind,
                    arch,
                    code_version: e.code_version(),
                    offset: e.offset,
                    header_size: e.header.header_size,
                    flags: e.header.flags,
                    compression: comp.label().to_string(),
                    stored_size: stored,
                    uncompressed_size: if comp == fatbin::Compression::None {
                        e.header.padded_size
                    } else {
                        e.header.uncompressed_size
                    },
                    identifier: e
                        .identifier
                        .map(|b| String::from_utf8_lossy(b).into_owned()),
                    options: e
                        .options
                        .map(|b| String::from_utf8_lossy(b).trim().to_string()),
                    kernel_count: f.kernels.len(),
                });
                entry_count += 1;
            }
            let wrappers = so
                .wrappers
                .iter()
                .enumerate()
                .filter(|(_, w)| w.data_offset == Some(c.offset))
                .map(|(i, _)| i)
                .collect();
            containers_rep.push(ContainerReport {
                section: sec.name.clone(),
                offset: c.offset,
                size: c.total_size(),
                version: c.version,
                wrappers,
                entries,
            });
        }
    }
    let mut verdict = Verdict {
        shared_objects_with_fatbin: 1,
        ..Default::default()
    };
    let mut klist = Vec::new();
    for k in kernels {
        let sass_archs: Vec<String> = k.sass.iter().map(|(a, _)| a.clone()).collect();
        let stub = k
            .body
            .as_ref()
            .and_then(|b| crate::stub::classify(b, &k.sass).map(|real| (b, real)));
        let (status, reason, stub_message) = if k.ptx_archs.is_empty() {
            verdict.kernels_sass_only += 1;
            let reason = format!("no PTX; SASS only for {}", sass_archs.join(", "));
            (KernelStatus::SassOnly, Some(reason), None)
        } else if let Some(why) = k.invalid.clone() {
            verdict.kernels_invalid_ptx += 1;
            (KernelStatus::InvalidPtx, Some(why), None)
        } else if let Some((body, real)) = stub {
            verdict.kernels_arch_guard_stub += 1;
            let reason = if real.is_empty() {
                "PTX is an arch-guard stub; no cubin to compare against".to_string()
            } else {
                format!(
                    "PTX is an arch-guard stub; real code only in {} SASS",
                    real.join(", ")
                )
            };
            let message = match body {
                crate::stub::PtxBody::StubLike { message, .. } => message.clone(),
                crate::stub::PtxBody::Real => None,
            };
            (KernelStatus::ArchGuardStub, Some(reason), message)
        } else {
            verdict.kernels_with_ptx += 1;
            (KernelStatus::Ptx, None, None)
        };
        if opts.kernels || opts.untranslatable {
            klist.push(KernelReport {
                container: k.container,
                demangled: crate::cubin::demangle(&k.name),
                name: k.name,
                status,
                ptx_archs: k.ptx_archs,
                sass_archs,
                reason,
                stub_message,
                unsupported_forms: opts.untranslatable.then_some(k.forms),
            });
        }
    }
    rep.verdict = verdict;
    if opts.kernels || opts.untranslatable {
        rep.kernels = Some(klist);
    }
    rep.fatbin = Some(FatbinReport {
        sections: so.fatbin_sections.clone(),
        container_count: containers_rep.len(),
        entry_count,
        summary: summary
            .into_iter()
            .map(
                |((section, kind, arch, compression), (count, stored_bytes))| EntryGroup {
                    section,
                    kind,
                    arch,
                    compression,
                    count,
                    stored_bytes,
                },
            )
            .collect(),
        containers: containers_rep,
        wrappers: so.wrappers.clone(),
    });
    rep
}
