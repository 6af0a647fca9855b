//! One analysis per host ELF object: everything `inspect`, `convert`, the host rewrite and
//! the cuda twin need to know about it, read once.
//!
//! [`analyze`] scans the ELF ([`crate::elf::scan()`]), decodes which registration wrappers the
//! host code registers ([`crate::elf::registration`]), tells which CUDA runtime the object
//! uses ([`runtime`]), parses the fatbin sections into containers borrowed from the object's
//! bytes, decompresses each PTX entry once and parses it for its kernels, stub
//! classification and (on request) unsupported forms, reads each cubin's kernel symbols, and
//! gives every kernel (a name in one container) its [`KernelStatus`]. The result,
//! [`ObjectAnalysis`], is passed on: `inspect` renders it ([`crate::inspect`]), `convert`
//! builds device code from its PTX and rewrites the host from it, the twin likewise. Nothing
//! downstream scans the ELF or parses the fatbin again.
//!
//! Problems that leave the rest readable (a corrupt container, a cubin whose symbol table does
//! not read) are collected in [`ObjectAnalysis::errors`] with their file and offset; only an
//! object that is not a readable ELF file is an `Err`.

pub mod runtime;

use crate::elf::registration::RegisterEntry;
use crate::elf::SharedObject;
use crate::error::{Error, Result};
use crate::fatbin::{self, Container, EntryKind};
use crate::inspect::model::{
    ContainerReport, EntryGroup, EntryReport, FormReport, KernelReport, KernelStatus, Verdict,
};
use rayon::prelude::*;
use runtime::CudaRuntime;
use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicUsize, Ordering};

/// What to compute beyond the always-needed facts.
#[derive(Debug, Clone, Copy, Default)]
pub struct Options {
    /// Per kernel, the PTX instruction forms the lowering does not support
    /// (`inspect --untranslatable`).
    pub forms: bool,
}

/// One PTX entry of a container, decompressed.
#[derive(Debug, Clone)]
pub struct PtxModule {
    /// The entry's arch (`compute_80`).
    pub arch: String,
    /// The entry's SM number (80).
    pub sm: u32,
    /// The PTX ISA version of the entry (`8.7`).
    pub version: String,
    /// File offset of the payload (for error messages).
    pub payload_offset: u64,
    /// The PTX text (decompressed, trailing NULs removed).
    pub text: Vec<u8>,
}

/// One fatbin container: the parsed entries (borrowing the object's bytes), the report's
/// view of them, and its PTX.
#[derive(Debug, Clone)]
pub struct ContainerAnalysis<'data> {
    /// The container as parsed.
    pub container: Container<'data>,
    /// The report's view (section, offset, size, version, wrappers, entries).
    pub report: ContainerReport,
    /// The PTX entries, lowest SM first.
    pub ptx: Vec<PtxModule>,
}

/// Everything known about one host ELF object (see the module docs).
#[derive(Debug, Clone)]
pub struct ObjectAnalysis<'data> {
    /// The object's bytes.
    pub data: &'data [u8],
    /// How reports name it (member name inside the wheel, or the path).
    pub path: String,
    /// How errors name it (`WHEEL!member` for wheel members).
    pub file: String,
    /// The ELF scan; each wrapper's `registered` is set.
    pub elf: SharedObject,
    /// How the registration entry point was found.
    pub register: RegisterEntry,
    /// The CUDA runtime the object uses.
    pub runtime: CudaRuntime,
    /// A runtime linked into the object and named in `.symtab`: its entry points, each
    /// marked when the object's code refers to it ([`crate::elf::static_runtime`]); empty
    /// otherwise.
    pub static_entries: Vec<crate::elf::static_runtime::StaticEntry>,
    /// The block sizes the host code launches each kernel with ([`crate::elf::launch`]).
    pub launch: crate::elf::launch::LaunchFacts,
    /// Every container of every fatbin section, in section and file order (the index is the
    /// report's container index).
    pub containers: Vec<ContainerAnalysis<'data>>,
    /// Entry counts by (section, kind, arch, compression).
    pub summary: Vec<EntryGroup>,
    /// Every kernel, in first-seen order, with `unsupported_forms` when [`Options::forms`].
    pub kernels: Vec<KernelReport>,
    /// Counts for this object.
    pub verdict: Verdict,
    /// Problems found on the way; the rest of the analysis is what could be read.
    pub errors: Vec<Error>,
    /// For a loose cubin (a device ELF, `e_machine` EM_CUDA, shipped as a file of its own and
    /// loaded by the library at run time through the driver API): its architecture. Its
    /// kernels are SASS only.
    pub cubin_arch: Option<String>,
    /// Device code kept as data outside the fatbin sections, which the library loads at run
    /// time ([`crate::elf::embedded`]): not translated.
    pub embedded: Vec<crate::elf::embedded::EmbeddedModule>,
}

/// `e_machine` of NVIDIA device ELF (cubins).
pub const EM_CUDA: u16 = 190;

static SCANS: AtomicUsize = AtomicUsize::new(0);

/// How many objects [`analyze`] has scanned in this process (instrumentation for the test
/// that every object is read once per conversion).
pub fn analyses() -> usize {
    SCANS.load(Ordering::Relaxed)
}

impl ObjectAnalysis<'_> {
    /// The container whose header is at file offset `offset`.
    pub fn container_at(&self, offset: u64) -> Option<(usize, &ContainerAnalysis<'_>)> {
        self.containers
            .iter()
            .enumerate()
            .find(|(_, c)| c.container.offset == offset)
    }

    /// The kernel names of container `ci`: those its cubins define, else those of its PTX.
    pub fn container_kernels(&self, ci: usize) -> Vec<String> {
        let ks: Vec<&KernelReport> = self.kernels.iter().filter(|k| k.container == ci).collect();
        let sass: Vec<String> = ks
            .iter()
            .filter(|k| !k.sass_archs.is_empty())
            .map(|k| k.name.clone())
            .collect();
        if sass.is_empty() {
            ks.iter().map(|k| k.name.clone()).collect()
        } else {
            sass
        }
    }
}

/// What one entry contributes.
#[derive(Default)]
struct EntryFacts {
    kernels: Vec<String>,
    code_sizes: Vec<u64>,
    bodies: Vec<Option<crate::stub::PtxBody>>,
    forms: Vec<Vec<FormReport>>,
    invalid: Vec<Option<String>>,
    ptx: Option<Vec<u8>>,
    error: Option<Error>,
}

fn ptx_facts(text: Vec<u8>, file: &str, entry: &fatbin::Entry<'_>, opts: &Options) -> EntryFacts {
    let kernels = crate::inspect::ptx_entries::entry_names(&text);
    let name = format!("{file} (PTX at offset {:#x})", entry.payload_offset());
    let parsed = crate::ptx::parse_bytes(&text, &name);
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
    let forms = if opts.forms {
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
    drop(parsed);
    EntryFacts {
        kernels,
        bodies,
        forms,
        invalid,
        ptx: Some(text),
        ..Default::default()
    }
}

fn entry_facts(e: &fatbin::Entry<'_>, file: &str, opts: &Options) -> EntryFacts {
    let result = match e.kind() {
        EntryKind::Ptx => e.ptx_bytes().map(|t| {
            let mut text = t.into_owned();
            while text.last() == Some(&0) {
                text.pop();
            }
            ptx_facts(text, file, e, opts)
        }),
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

/// Everything known about one kernel while entries are read.
struct KernelAcc {
    container: usize,
    name: String,
    ptx_archs: Vec<String>,
    sass: Vec<(String, u64)>,
    body: Option<crate::stub::PtxBody>,
    forms: Vec<FormReport>,
    invalid: Option<String>,
}

fn sm_of(arch: &str) -> u32 {
    arch.trim_start_matches(|ch: char| !ch.is_ascii_digit())
        .trim_end_matches(|ch: char| !ch.is_ascii_digit())
        .parse()
        .unwrap_or(0)
}

/// Analyse the ELF object `data`; `path` is how reports name it, `file` how errors name it.
///
/// # Errors
/// [`crate::error::ErrorKind::Elf`] when the object is not a readable ELF file (see
/// [`crate::elf::scan()`]); everything later is collected in [`ObjectAnalysis::errors`].
pub fn analyze<'data>(
    data: &'data [u8],
    path: &str,
    file: &str,
    opts: &Options,
) -> Result<ObjectAnalysis<'data>> {
    SCANS.fetch_add(1, Ordering::Relaxed);
    let mut elf = crate::elf::scan(data, file)?;
    if elf.machine == EM_CUDA {
        return analyze_cubin(data, path, file, elf);
    }
    let mut errors = Vec::new();
    let mut register = RegisterEntry::NotFound;
    let mut static_entries = Vec::new();
    let mut launch = crate::elf::launch::LaunchFacts::default();
    if !elf.wrappers.is_empty() {
        let addrs: Vec<u64> = elf.wrappers.iter().map(|w| w.address).collect();
        match crate::elf::registration::registration_scan(data, &addrs, file) {
            Ok(scan) => {
                for w in &mut elf.wrappers {
                    w.registered = Some(scan.registered.contains(&w.address));
                }
                register = scan.entry;
                static_entries = scan.static_entries;
                launch = scan.launch;
            }
            Err(e) => errors.push(e),
        }
    }
    let rodata = elf
        .sections
        .iter()
        .filter(|s| s.is_read_only_data() && s.name != crate::elf::scan::NV_FATBIN)
        .filter_map(|s| data.get(s.offset as usize..(s.offset + s.size) as usize));
    let runtime = runtime::detect(
        &elf.needed,
        matches!(register, RegisterEntry::LocalSymbol(_)),
        rodata,
    );

    let embedded = crate::elf::embedded::embedded_modules(data, &elf.sections);
    let mut out = ObjectAnalysis {
        data,
        path: path.to_string(),
        file: file.to_string(),
        elf,
        register,
        runtime,
        static_entries,
        launch,
        containers: Vec::new(),
        summary: Vec::new(),
        kernels: Vec::new(),
        verdict: Verdict::default(),
        errors,
        cubin_arch: None,
        embedded,
    };
    if out.elf.fatbin_sections.is_empty() {
        return Ok(out);
    }

    let mut summary: BTreeMap<(String, String, String, String), (usize, u64)> = BTreeMap::new();
    // A kernel is a name inside one container (the module the runtime registers): the same
    // name in two containers is two device functions.
    let mut kernels: Vec<KernelAcc> = Vec::new();
    let mut kindex: HashMap<(usize, String), usize> = HashMap::new();
    let mut rdc_ptx: std::collections::HashSet<String> = std::collections::HashSet::new();
    let sections = out.elf.fatbin_sections.clone();
    for sec in &sections {
        let start = sec.offset as usize;
        let Some(bytes) = data.get(start..start + sec.size as usize) else {
            out.errors.push(Error::at(
                crate::error::ErrorKind::Elf,
                file,
                sec.offset,
                format!("section {} extends past the end of the file", sec.name),
            ));
            continue;
        };
        let containers = match fatbin::parse_section(bytes, sec.offset, file) {
            Ok(c) => c,
            Err(e) => {
                out.errors.push(e);
                continue;
            }
        };
        let all: Vec<&fatbin::Entry<'_>> =
            containers.iter().flat_map(|c| c.entries.iter()).collect();
        let facts: Vec<EntryFacts> = all.par_iter().map(|e| entry_facts(e, file, opts)).collect();
        let mut fi = facts.into_iter();
        for c in containers {
            let mut entries = Vec::new();
            let mut ptx = Vec::new();
            let cidx = out.containers.len();
            for e in &c.entries {
                let f = fi.next().expect("one fact per entry");
                if let Some(err) = f.error {
                    out.errors.push(err);
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
                // The relocatable (-rdc) copies are inputs of the device link, not modules the
                // runtime loads: their kernels are the device-linked module's, as cuobjdump
                // counts them.
                if sec.name == crate::elf::scan::NV_RELFATBIN && kind == EntryKind::Ptx {
                    rdc_ptx.extend(f.kernels.iter().cloned());
                }
                for (n, k) in f
                    .kernels
                    .iter()
                    .enumerate()
                    .filter(|_| sec.name != crate::elf::scan::NV_RELFATBIN)
                {
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
                if let Some(text) = f.ptx {
                    ptx.push(PtxModule {
                        sm: sm_of(&arch),
                        arch: arch.clone(),
                        version: e.code_version(),
                        payload_offset: e.payload_offset(),
                        text,
                    });
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
            }
            ptx.sort_by_key(|p| p.sm);
            let wrappers = out
                .elf
                .wrappers
                .iter()
                .enumerate()
                .filter(|(_, w)| w.data_offset == Some(c.offset))
                .map(|(i, _)| i)
                .collect();
            let report = ContainerReport {
                section: sec.name.clone(),
                offset: c.offset,
                size: c.total_size(),
                version: c.version,
                wrappers,
                entries,
            };
            out.containers.push(ContainerAnalysis {
                container: c,
                report,
                ptx,
            });
        }
    }
    out.summary = summary
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
        .collect();

    let mut verdict = Verdict {
        shared_objects_with_fatbin: 1,
        ..Default::default()
    };
    for k in kernels {
        let sass_archs: Vec<String> = k.sass.iter().map(|(a, _)| a.clone()).collect();
        let stub = k
            .body
            .as_ref()
            .and_then(|b| crate::stub::classify(b, &k.sass).map(|real| (b, real)));
        let (status, reason, stub_message) = if k.ptx_archs.is_empty() {
            verdict.kernels_sass_only += 1;
            let reason = if rdc_ptx.contains(&k.name) {
                format!(
                    "no PTX in the registered (device-linked) module, SASS only for {}; its PTX is only in the relocatable -rdc copies (__nv_relfatbin), which wheelport does not device-link",
                    sass_archs.join(", ")
                )
            } else {
                format!("no PTX; SASS only for {}", sass_archs.join(", "))
            };
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
        let launch_threads = out.launch.bound(&k.name).map(|b| b.max_threads);
        out.kernels.push(KernelReport {
            container: k.container,
            demangled: crate::cubin::demangle(&k.name),
            name: k.name,
            status,
            ptx_archs: k.ptx_archs,
            sass_archs,
            reason,
            stub_message,
            unsupported_forms: opts.forms.then_some(k.forms),
            sass_forms: None,
            launch_threads,
        });
    }
    out.verdict = verdict;
    Ok(out)
}

/// The analysis of a loose cubin: its kernels, SASS only for its arch.
fn analyze_cubin<'data>(
    data: &'data [u8],
    path: &str,
    file: &str,
    elf: SharedObject,
) -> Result<ObjectAnalysis<'data>> {
    let arch = crate::cubin::cubin_arch(data, file)?;
    let kernels: Vec<KernelReport> = crate::cubin::kernel_names(data, file)?
        .into_iter()
        .map(|k| KernelReport {
            container: 0,
            demangled: crate::cubin::demangle(&k.name),
            name: k.name,
            status: KernelStatus::SassOnly,
            ptx_archs: Vec::new(),
            sass_archs: vec![arch.clone()],
            reason: Some(format!(
                "no PTX; SASS only for {arch} (a loose cubin, which the library loads at run time through the driver API)"
            )),
            stub_message: None,
            unsupported_forms: None,
            sass_forms: None,
            launch_threads: None,
        })
        .collect();
    let verdict = Verdict {
        kernels_sass_only: kernels.len(),
        ..Default::default()
    };
    Ok(ObjectAnalysis {
        data,
        path: path.to_string(),
        file: file.to_string(),
        elf,
        register: RegisterEntry::NotFound,
        runtime: CudaRuntime::None,
        static_entries: Vec::new(),
        launch: Default::default(),
        containers: Vec::new(),
        summary: Vec::new(),
        kernels,
        verdict,
        errors: Vec::new(),
        cubin_arch: Some(arch),
        embedded: Vec::new(),
    })
}
