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
use crate::wheel::{is_elf_object_name, WheelReader};
use model::*;
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
    /// With `untranslatable`: the SASS decoder for SASS-only kernels
    /// ([`crate::toolchain::discover_nvdisasm`]); `None` leaves their SASS undecoded.
    pub sass_decoder:
        Option<std::result::Result<crate::toolchain::Tool, crate::toolchain::Missing>>,
}

/// Expand the inputs: files are kept as given; a directory contributes every `.whl` and
/// shared object below it, sorted by path.
///
/// # Errors
/// [`crate::input::read_error`] when an input does not exist or cannot be read;
/// [`crate::error::ErrorKind::Io`] when a directory cannot be read.
pub fn expand_inputs(inputs: &[PathBuf]) -> Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for p in inputs {
        let md = std::fs::metadata(p).map_err(|e| crate::input::read_error(p, e))?;
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
            if name.ends_with(".whl") || is_elf_object_name(name) {
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
    // Not a regular file: left to the mapping below to refuse (reading a FIFO would block).
    let is_zip = crate::input::open_regular(path)
        .ok()
        .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut head).ok())
        .is_some_and(|_| &head == b"PK\x03\x04");
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
    let map = crate::input::map_regular(path)?;
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
        if !is_elf_object_name(&name) {
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

/// Inspect the bytes of one ELF shared object. `path` is how the report names it,
/// `file` how errors name it (`WHEEL!member` for wheel members).
pub fn inspect_shared_object(
    data: &[u8],
    path: &str,
    file: &str,
    opts: &Options,
) -> SharedObjectReport {
    let aopts = crate::analyze::Options {
        forms: opts.untranslatable,
    };
    match crate::analyze::analyze(data, path, file, &aopts) {
        Ok(a) => {
            let mut r = report(&a, opts);
            if let (true, Some(dec), Some(ks)) =
                (opts.untranslatable, &opts.sass_decoder, r.kernels.as_mut())
            {
                let lifts = crate::sass::lift_sass_only(&a, dec);
                crate::sass::fill_reports(ks, &lifts);
            }
            r
        }
        Err(e) => SharedObjectReport {
            path: path.to_string(),
            size: data.len() as u64,
            soname: None,
            needed: Vec::new(),
            runpath: None,
            rpath: None,
            cubin_arch: None,
            cuda_runtime: None,
            cuda_imports: Vec::new(),
            import_count: 0,
            fatbin: None,
            kernels: None,
            runtime_modules: Vec::new(),
            relink: None,
            verdict: Verdict::default(),
            errors: vec![(&e).into()],
        },
    }
}

/// The report of one analysed object ([`crate::analyze::analyze`]).
pub fn report(a: &crate::analyze::ObjectAnalysis<'_>, opts: &Options) -> SharedObjectReport {
    let so = &a.elf;
    let relink = opts.relink.as_ref().map(|table| {
        let p = crate::relink::plan(table, so);
        RelinkReport {
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
        }
    });
    let with_kernels = opts.kernels || opts.untranslatable;
    let fatbin = (!so.fatbin_sections.is_empty()).then(|| FatbinReport {
        sections: so.fatbin_sections.clone(),
        container_count: a.containers.len(),
        entry_count: a.containers.iter().map(|c| c.report.entries.len()).sum(),
        summary: a.summary.clone(),
        containers: a.containers.iter().map(|c| c.report.clone()).collect(),
        wrappers: so.wrappers.clone(),
    });
    SharedObjectReport {
        path: a.path.clone(),
        size: a.data.len() as u64,
        soname: so.soname.clone(),
        needed: so.needed.clone(),
        runpath: so.runpath.clone(),
        rpath: so.rpath.clone(),
        cubin_arch: a.cubin_arch.clone(),
        cuda_runtime: (a.cubin_arch.is_none()).then(|| a.runtime.clone()),
        cuda_imports: cuda_stack::group_imports(&so.imports, &so.needed),
        import_count: so.imports.len(),
        fatbin,
        kernels: with_kernels.then(|| a.kernels.clone()),
        runtime_modules: a.embedded.iter().map(Into::into).collect(),
        relink,
        verdict: a.verdict,
        errors: a.errors.iter().map(|e| e.into()).collect(),
    }
}
