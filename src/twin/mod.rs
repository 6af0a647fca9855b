//! The `cuda` twin of a host `.so`: the same object, still CUDA, whose registered device code
//! is replaced by what wheelport's own lowering makes of the embedded PTX.
//!
//! Running the twin against the original on an NVIDIA GPU shows whether the lowering
//! computes what the original computes (the ground truth for the dtk/rocm targets, which
//! share the lowering).
//!
//! For each `.nvFatBinSegment` wrapper that host code passes to `__cudaRegisterFatBinary`
//! ([`crate::elf::registration`]):
//!
//! 1. its container's PTX entry is taken (the one with the highest `.target` not above the
//!    twin arch, else the lowest), decompressed and parsed ([`crate::ptx`]);
//! 2. the module is lowered with the `cuda` profile (the lowering is passed in as a function,
//!    normally [`crate::lower`]'s) and built to PTX by `llc` ([`crate::build`]), which checks
//!    every lowered kernel's `.entry` and parameter layout;
//! 3. that PTX becomes the only entry of a new fatbin container ([`crate::fatbin::write`]), and
//!    the wrapper is re-pointed at it with [`crate::rewrite::Registration`] (magic
//!    `0x466243B1`, version 1), in the new read-only 4096-aligned section
//!    `.nv_fatbin.wheelport`;
//! 4. the old container's bytes are zeroed (header included), so no original cubin or PTX of
//!    it can be loaded.
//!
//! A wrapper whose container has no PTX entry (SASS only) is reported and left alone, its
//! container intact. When every registered wrapper was converted, the containers no
//! registered wrapper uses (nvcc 13's device-link container) are zeroed as well, so the twin
//! holds no NVIDIA-compiled device code at all. DT_NEEDED and the imports are untouched.
//!
//! Kernels the lowering does not support are absent from the new PTX and reported with their
//! reasons ([`WrapperReport::kernels`]); launching one in the twin fails with a CUDA error
//! (the function is not in the registered module) instead of running original code. When a
//! module's device build fails, each lowered kernel is built on its own: those whose build
//! fails are reported the same way (with the build error) and the module is built without
//! them, so one kernel never aborts the conversion of the whole `.so`.
//!
//! NVIDIA's tools (cuobjdump 13.5, and the profilers that extract device code) read only the
//! first section named `.nv_fatbin`. So when the original `.nv_fatbin` ends up entirely
//! zeroed (every registered wrapper converted), it is renamed [`ORIGINAL_SECTION`] and the new
//! section takes the name `.nv_fatbin`: `cuobjdump -lptx` on the twin then lists exactly the
//! lowering's PTX. Otherwise (SASS-only wrappers left alone) the names stay, so the tools
//! still see the original containers that remain in use. The CUDA runtime itself never looks
//! at section names (it follows the wrapper's pointer).
//!
//! After rewriting, the output is read back and every converted wrapper is checked to point
//! at a container in the new section holding exactly the PTX built for it.

pub mod identity;

use crate::build;
use crate::elf;
use crate::error::{Error, ErrorKind, Result};
use crate::fatbin::{self, EntryKind};
use crate::lower::{KernelOutcome, KernelResult};
use crate::rewrite::{self, HostEdits, Registration, CUDA_WRAPPER_MAGIC};
use crate::target::Profile;
use crate::toolchain::Toolchain;
use serde::Serialize;

/// The section [`crate::rewrite`] adds for CUDA fatbins.
pub const TWIN_SECTION: &str = ".nv_fatbin.wheelport";
/// The name the original `.nv_fatbin` gets when it was zeroed entirely and the new section
/// takes its name.
pub const ORIGINAL_SECTION: &str = ".nv_fatbin.orig";

/// The lowering used by [`twin`] (see [`crate::device::LowerFn`]).
pub use crate::device::LowerFn;

/// Options of [`twin`].
#[derive(Clone, Debug)]
pub struct TwinOptions {
    /// The SM architecture the PTX is built for (`sm_80`).
    pub arch: String,
    /// The build cache, if any.
    pub cache: Option<build::Cache>,
    /// For bisecting a lowering bug on the GPU: kernels whose name contains one of these
    /// strings keep their source PTX `.entry` (spliced into the built PTX, whose `.version`
    /// is raised to the source's, at most 8.8) instead of the lowering's. Reported in
    /// [`WrapperReport::kept_source`]; the twin is then not [`TwinReport::complete`].
    pub keep_source: Vec<String>,
}

impl Default for TwinOptions {
    fn default() -> Self {
        TwinOptions {
            arch: "sm_80".into(),
            cache: None,
            keep_source: Vec::new(),
        }
    }
}

/// What became of one wrapper.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum WrapperStatus {
    /// Re-pointed at the lowering's PTX; the old container is zeroed.
    Converted,
    /// Registered, but its container has no PTX entry: left alone.
    SassOnly,
    /// Not passed to `__cudaRegisterFatBinary` by any code: left alone (its container is
    /// zeroed when every registered wrapper was converted).
    NotRegistered,
    /// Registered, but its data pointer does not lead to a container: left alone.
    NoContainer,
}

/// The report for one `.nvFatBinSegment` wrapper.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct WrapperReport {
    /// Virtual address of the wrapper.
    pub address: u64,
    /// File offset of the container it pointed at in the input, if it resolves.
    pub container_offset: Option<u64>,
    /// Outcome.
    pub status: WrapperStatus,
    /// The PTX entry used: `compute_80`, its PTX ISA version (`9.5`).
    pub source_ptx: Option<(String, String)>,
    /// Every `.entry` of that PTX and its outcome (empty unless converted).
    pub kernels: Vec<KernelResult>,
    /// Bytes of the PTX built for it (0 unless converted).
    pub new_ptx_bytes: usize,
    /// Whether the build came from the cache.
    pub from_cache: bool,
    /// Module-scope `.global`/`.const` variables of the source PTX (what host code registers
    /// with `__cudaRegisterVar`) that the new PTX does not define with the same size, as
    /// `name: reason`. The CUDA runtime cannot bind these; empty when all are there.
    pub variables_missing: Vec<String>,
    /// Kernels that kept their source PTX ([`TwinOptions::keep_source`]); empty normally.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub kept_source: Vec<String>,
}

/// The report of one twin conversion.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TwinReport {
    /// The input's display name.
    pub file: String,
    /// The arch built for.
    pub arch: String,
    /// One report per wrapper, in section order.
    pub wrappers: Vec<WrapperReport>,
    /// (file offset, size) of every container zeroed in the output.
    pub zeroed: Vec<(u64, u64)>,
    /// The section holding the new fatbins in the output: `.nv_fatbin` (when the original was
    /// zeroed entirely and renamed [`ORIGINAL_SECTION`]) or [`TWIN_SECTION`]; empty when
    /// nothing was converted.
    pub section_name: String,
    /// Address and size of that section (absent when nothing was converted).
    pub section: Option<(u64, u64)>,
    /// The identity presented to the host code ([`identity`]), when something was converted.
    pub identity: Option<identity::Identity>,
    /// How the object was pointed at the identity interposer (empty when it has neither a
    /// static runtime's `libcuda.so.1` nor runtime identity imports).
    pub identity_edits: identity::IdentityEdits,
}

impl TwinReport {
    /// Kernels not lowered, as (wrapper address, kernel name, reason).
    pub fn not_lowered(&self) -> Vec<(u64, &str, &str)> {
        self.wrappers
            .iter()
            .flat_map(|w| {
                w.kernels.iter().filter_map(move |k| match &k.outcome {
                    KernelOutcome::Unsupported { reason, .. } => {
                        Some((w.address, k.name.as_str(), reason.as_str()))
                    }
                    KernelOutcome::Lowered => None,
                })
            })
            .collect()
    }

    /// True when every registered wrapper was converted, every kernel lowered and every
    /// module-scope variable defined in the new PTX.
    pub fn complete(&self) -> bool {
        self.wrappers.iter().all(|w| {
            matches!(
                w.status,
                WrapperStatus::Converted | WrapperStatus::NotRegistered
            ) && w.variables_missing.is_empty()
                && w.kept_source.is_empty()
        }) && self.not_lowered().is_empty()
    }
}

fn sm_number(arch: &str) -> Option<u32> {
    arch.strip_prefix("sm_")?
        .trim_end_matches(['a', 'f'])
        .parse()
        .ok()
}

/// Convert the host `.so` bytes `data` (display name `file`) to its cuda twin (see the module
/// docs), with the tools of `tc` (found for `profile`, which must be the `cuda` profile) and
/// the lowering `lower`.
///
/// Returns the new file and the report. Nothing is written anywhere but temporary and cache
/// files; the caller writes the output.
///
/// # Errors
/// [`ErrorKind::Input`] when `profile` is not an nvptx profile or the arch is not `sm_NN`;
/// ELF and fatbin errors of the input (naming file and offset); toolchain and build errors
/// (naming the module `file!section#container`, tool and kernel); an [`ErrorKind::Build`]
/// error when the rewritten file does not read back as expected. No output on error.
pub fn twin(
    data: &[u8],
    file: &str,
    profile: &Profile,
    tc: &Toolchain,
    opts: &TwinOptions,
    lower: &LowerFn<'_>,
) -> Result<(Vec<u8>, TwinReport)> {
    if profile.family != crate::target::Family::Nvptx {
        return Err(Error::new(
            ErrorKind::Input,
            file,
            format!(
                "the twin conversion needs the cuda (nvptx) profile, not `{}`",
                profile.name
            ),
        ));
    }
    let want_sm = sm_number(&opts.arch).ok_or_else(|| {
        Error::new(
            ErrorKind::Input,
            file,
            format!("--arch `{}` is not an sm_NN architecture", opts.arch),
        )
    })?;
    let a = crate::analyze::analyze(data, file, file, &crate::analyze::Options::default())?;
    if let Some(e) = a.errors.first() {
        return Err(e.clone());
    }
    let so = &a.elf;

    struct Job {
        wrapper: usize,
        module_name: String,
        ptx: String,
        source: (String, String),
        container: (u64, u64),
    }
    let mut reports = Vec::new();
    let mut jobs = Vec::new();
    for (wi, w) in so.wrappers.iter().enumerate() {
        let mut rep = WrapperReport {
            address: w.address,
            container_offset: w.data_offset,
            status: WrapperStatus::NotRegistered,
            source_ptx: None,
            kernels: Vec::new(),
            new_ptx_bytes: 0,
            from_cache: false,
            variables_missing: Vec::new(),
            kept_source: Vec::new(),
        };
        if w.registered != Some(true) {
            reports.push(rep);
            continue;
        }
        let Some((_, c)) = w.data_offset.and_then(|off| a.container_at(off)) else {
            rep.status = WrapperStatus::NoContainer;
            reports.push(rep);
            continue;
        };
        let chosen = c
            .ptx
            .iter()
            .filter(|p| p.sm <= want_sm)
            .max_by_key(|p| p.sm)
            .or_else(|| c.ptx.first());
        let Some(entry) = chosen else {
            rep.status = WrapperStatus::SassOnly;
            reports.push(rep);
            continue;
        };
        let text = String::from_utf8(entry.text.clone()).map_err(|e| {
            Error::at(
                ErrorKind::Fatbin,
                file,
                entry.payload_offset + e.utf8_error().valid_up_to() as u64,
                "PTX entry is not UTF-8",
            )
        })?;
        rep.source_ptx = Some((entry.arch.clone(), entry.version.clone()));
        jobs.push(Job {
            wrapper: wi,
            module_name: format!("{file}!{}#{}", c.report.section, c.container.index),
            ptx: text,
            source: (entry.arch.clone(), entry.version.clone()),
            container: (c.container.offset, c.container.total_size()),
        });
        reports.push(rep);
    }

    // Lower and build (the device pipeline: in parallel, failing kernels isolated).
    let pipeline = crate::device::Pipeline {
        toolchain: tc.clone(),
        cache: opts.cache.clone(),
        split_bytes: None,
        nvdisasm: Err(crate::toolchain::Missing {
            name: "nvdisasm".into(),
            reason: "not used by `wheelport twin`".into(),
            install: String::new(),
        }),
    };
    let mjobs: Vec<crate::device::ModuleJob<'_>> = jobs
        .iter()
        .map(|j| crate::device::ModuleJob {
            name: j.module_name.clone(),
            ptx: &j.ptx,
        })
        .collect();
    let built = pipeline.build(profile, std::slice::from_ref(&opts.arch), &mjobs, lower);

    let mut patched = data.to_vec();
    let mut edits = HostEdits::default();
    let mut zeroed = Vec::new();
    let mut new_ptx = Vec::new();
    for (job, r) in jobs.iter().zip(built) {
        let (low, b) = match (r.built, r.error) {
            (Some(b), None) => (r.lowered, b),
            (_, e) => {
                return Err(Error::new(
                    ErrorKind::Build,
                    &job.module_name,
                    e.unwrap_or_else(|| "the device build gave no result".into()),
                ))
            }
        };
        let obj = &b.objects[0];
        let text = std::str::from_utf8(&obj.bytes).map_err(|_| {
            Error::new(ErrorKind::Build, &job.module_name, "llc's PTX is not UTF-8")
        })?;
        let mut container = r.container;
        let rep = &mut reports[job.wrapper];
        rep.status = WrapperStatus::Converted;
        rep.kernels = low.kernels.clone();
        rep.new_ptx_bytes = obj.bytes.len();
        rep.from_cache = obj.from_cache;
        rep.source_ptx = Some(job.source.clone());
        rep.variables_missing = missing_variables(&job.ptx, text, &job.module_name);
        let bytes = if opts.keep_source.is_empty() {
            obj.bytes.clone()
        } else {
            let (spliced, kept) = splice_source_entries(text, &job.ptx, &opts.keep_source);
            rep.kept_source = kept;
            let objs = [(obj.arch.as_str(), spliced.as_bytes())];
            container = profile
                .backend()
                .container(profile, &objs, &job.module_name)?;
            spliced.into_bytes()
        };
        edits.registrations.push(Registration {
            wrapper_address: so.wrappers[job.wrapper].address,
            magic: CUDA_WRAPPER_MAGIC,
            bundle: container,
        });
        new_ptx.push((so.wrappers[job.wrapper].address, bytes));
        zeroed.push(job.container);
    }
    let all_converted = reports.iter().all(|r| {
        matches!(
            r.status,
            WrapperStatus::Converted | WrapperStatus::NotRegistered
        )
    });
    if all_converted && !edits.registrations.is_empty() {
        let used: Vec<u64> = reports
            .iter()
            .filter(|r| r.status != WrapperStatus::NotRegistered)
            .filter_map(|r| r.container_offset)
            .collect();
        for c in a
            .containers
            .iter()
            .filter(|c| c.report.section == elf::scan::NV_FATBIN)
        {
            let (off, size) = (c.container.offset, c.container.total_size());
            if !used.contains(&off) && !zeroed.contains(&(off, size)) {
                zeroed.push((off, size));
            }
        }
    }
    zeroed.sort_unstable();
    for (off, size) in &zeroed {
        patched[*off as usize..(*off + *size) as usize].fill(0);
    }
    if edits.registrations.is_empty() {
        // Nothing to convert: the output is the input.
        let report = TwinReport {
            file: file.to_string(),
            arch: opts.arch.clone(),
            wrappers: reports,
            zeroed: Vec::new(),
            section_name: String::new(),
            section: None,
            identity: None,
            identity_edits: identity::IdentityEdits::default(),
        };
        return Ok((data.to_vec(), report));
    }
    let sources: Vec<&str> = jobs.iter().map(|j| j.source.0.as_str()).collect();
    let id = identity::Identity::of(&sources, &opts.arch);
    let id_edits = match &id {
        Some(id) => identity::apply(&mut patched, so, id, "$ORIGIN", &mut edits),
        None => identity::IdentityEdits::default(),
    };
    let (out, _summary) = rewrite::rewrite(&patched, &edits, file)?;
    let old_zeroed = so
        .fatbin_sections
        .iter()
        .filter(|info| info.name == elf::scan::NV_FATBIN)
        .all(|info| {
            patched[info.offset as usize..(info.offset + info.size) as usize]
                .iter()
                .all(|&b| b == 0)
        });
    let (out, new_name) = if old_zeroed {
        (take_nv_fatbin_name(&out, file)?, elf::scan::NV_FATBIN)
    } else {
        (out, TWIN_SECTION)
    };
    let section = verify(&out, file, new_name, &new_ptx)?;
    Ok((
        out,
        TwinReport {
            file: file.to_string(),
            arch: opts.arch.clone(),
            wrappers: reports,
            zeroed,
            section_name: new_name.to_string(),
            section: Some(section),
            identity: id,
            identity_edits: id_edits,
        },
    ))
}

/// The `.entry` directives of PTX text as nvcc and llc print it: (name, byte range from the
/// start of the directive's line to the end of the line closing its body).
fn entry_spans(ptx: &str) -> Vec<(&str, std::ops::Range<usize>)> {
    let mut spans = Vec::new();
    let mut pos = 0;
    let mut open: Option<(&str, usize)> = None;
    let mut depth = 0i32;
    for line in ptx.split_inclusive('\n') {
        let start = pos;
        pos += line.len();
        let code = line.split("//").next().unwrap_or("");
        if open.is_none() {
            let t = code.trim_start();
            let rest = [".visible .entry ", ".weak .entry ", ".entry "]
                .iter()
                .find_map(|p| t.strip_prefix(p));
            if let Some(rest) = rest {
                let name = rest.split(['(', ' ', '\t', '\n']).next().unwrap_or("");
                open = Some((name, start));
                depth = 0;
            } else {
                continue;
            }
        }
        let opened = code.contains('{');
        depth += code.matches('{').count() as i32 - code.matches('}').count() as i32;
        if let Some((name, s)) = open {
            if depth <= 0 && (opened || code.contains('}')) {
                spans.push((name, s..pos));
                open = None;
            }
        }
    }
    spans
}

/// `built` (the lowering's PTX) with each `.entry` whose name contains one of `keep` replaced
/// by (or, when the lowering dropped it, given) the `.entry` of `source`, and `.version` raised
/// to the source's, at most 8.8. Returns the text and the names kept, sorted.
fn splice_source_entries(built: &str, source: &str, keep: &[String]) -> (String, Vec<String>) {
    let wanted = |n: &str| keep.iter().any(|k| n.contains(k.as_str()));
    let kept: Vec<(&str, std::ops::Range<usize>)> = entry_spans(source)
        .into_iter()
        .filter(|(n, _)| wanted(n))
        .collect();
    if kept.is_empty() {
        return (built.to_string(), Vec::new());
    }
    let mut out = String::with_capacity(built.len());
    let mut at = 0;
    for (n, r) in entry_spans(built) {
        if kept.iter().any(|(k, _)| *k == n) {
            out.push_str(&built[at..r.start]);
            at = r.end;
        }
    }
    out.push_str(&built[at..]);
    let version = |t: &str| {
        t.lines()
            .find_map(|l| l.trim().strip_prefix(".version "))
            .map(|v| v.trim().to_string())
    };
    let parse = |v: &str| {
        let (a, b) = v.split_once('.').unwrap_or((v, "0"));
        (a.parse::<u32>().unwrap_or(0), b.parse::<u32>().unwrap_or(0))
    };
    // At most 8.8 (CUDA 12.9): it has every sm_80 instruction, and drivers older than the source's
    // toolchain refuse a newer `.version` (CUDA error 222).
    if let (Some(bv), Some(sv)) = (version(&out), version(source)) {
        let want = parse(&sv).min((8, 8));
        if want > parse(&bv) {
            let v = format!(".version {}.{}", want.0, want.1);
            out = out.replacen(&format!(".version {bv}"), &v, 1);
        }
    }
    for (_, r) in &kept {
        out.push('\n');
        out.push_str(&source[r.clone()]);
    }
    let mut names: Vec<String> = kept.iter().map(|(n, _)| n.to_string()).collect();
    names.sort();
    (out, names)
}

/// Byte size of each module-scope `.global`/`.const` variable of `ptx` (by name).
fn module_variables(ptx: &str, name: &str) -> Vec<(String, Option<u64>)> {
    use crate::ptx::StateSpace;
    let parsed = crate::ptx::parse(ptx, name);
    let mut v = Vec::new();
    for d in parsed.module.variables() {
        if !matches!(d.space, StateSpace::Global | StateSpace::Const) {
            continue;
        }
        let elem = u64::from(d.ty.bits().div_ceil(8)).max(1) * u64::from(d.vector.unwrap_or(1));
        for x in &d.decls {
            // An unsized `[]` has no size to compare.
            let size = x.array.iter().try_fold(elem, |acc, n| n.map(|n| acc * n));
            v.push((x.name.to_string(), size));
        }
    }
    v
}

/// The variables of `source` that `built` lacks or declares with another size.
fn missing_variables(source: &str, built: &str, name: &str) -> Vec<String> {
    let have = module_variables(built, name);
    module_variables(source, name)
        .into_iter()
        .filter_map(|(n, size)| match have.iter().find(|(h, _)| *h == n) {
            None => Some(format!("{n}: not defined in the new PTX")),
            Some((_, s)) if size.is_some() && *s != size => Some(format!(
                "{n}: {} bytes in the source PTX, {} in the new PTX",
                size.unwrap_or(0),
                s.map(|s| s.to_string()).unwrap_or_else(|| "unsized".into())
            )),
            _ => None,
        })
        .collect()
}

/// Rename `.nv_fatbin` to [`ORIGINAL_SECTION`] and [`TWIN_SECTION`] to `.nv_fatbin` (only
/// `.shstrtab` and the section headers change).
fn take_nv_fatbin_name(data: &[u8], file: &str) -> Result<Vec<u8>> {
    let err = |m: String| Error::new(ErrorKind::Elf, file, m);
    let mut b = object::build::elf::Builder::read(data)
        .map_err(|e| err(format!("ELF builder cannot read the twin: {e}")))?;
    for s in b.sections.iter_mut() {
        if s.name.as_slice() == elf::scan::NV_FATBIN.as_bytes() {
            s.name = ORIGINAL_SECTION.as_bytes().to_vec().into();
        } else if s.name.as_slice() == TWIN_SECTION.as_bytes() {
            s.name = elf::scan::NV_FATBIN.as_bytes().to_vec().into();
        }
    }
    let mut out = Vec::with_capacity(data.len());
    b.write(&mut out)
        .map_err(|e| err(format!("cannot write the twin: {e}")))?;
    Ok(out)
}

/// Read the rewritten file back: every converted wrapper holds the CUDA magic, version 1,
/// and points (through its R_X86_64_RELATIVE relocation) at a container in section
/// `name` whose only entry is the PTX built for it. Returns the section's (address, size).
fn verify(out: &[u8], file: &str, name: &str, expect: &[(u64, Vec<u8>)]) -> Result<(u64, u64)> {
    use object::{Object, ObjectSection};
    let e = |m: String| {
        Error::new(
            ErrorKind::Build,
            file,
            format!("twin output check failed: {m}"),
        )
    };
    let obj = object::File::parse(out).map_err(|x| e(format!("output does not parse: {x}")))?;
    let sec = obj
        .section_by_name(name)
        .ok_or_else(|| e(format!("no {name} section")))?;
    let (sec_off, _) = sec
        .file_range()
        .ok_or_else(|| e(format!("{name} has no file data")))?;
    let so = elf::scan(out, file)?;
    for (addr, ptx) in expect {
        let w = so
            .wrappers
            .iter()
            .find(|w| w.address == *addr)
            .ok_or_else(|| e(format!("wrapper {addr:#x} is gone")))?;
        if w.magic != CUDA_WRAPPER_MAGIC || w.version != 1 {
            return Err(e(format!(
                "wrapper {addr:#x} has magic {:#x} version {}",
                w.magic, w.version
            )));
        }
        if w.data < sec.address() || w.data >= sec.address() + sec.size() || !w.data_relocated {
            return Err(e(format!(
                "wrapper {addr:#x} points at {:#x}, outside {name} ({:#x}+{:#x}), or not through a relocation",
                w.data,
                sec.address(),
                sec.size()
            )));
        }
        let at = sec_off + (w.data - sec.address());
        let bytes = &out[at as usize..(sec_off + sec.size()) as usize];
        let cs = fatbin::parse_section(bytes, at, file)?;
        let c = cs
            .first()
            .ok_or_else(|| e(format!("no container at {at:#x}")))?;
        if c.entries.len() != 1 || c.entries[0].kind() != EntryKind::Ptx {
            return Err(e(format!(
                "container at {at:#x} does not hold exactly one PTX entry"
            )));
        }
        if &*c.entries[0].ptx_bytes()? != ptx.as_slice() {
            return Err(e(format!(
                "container at {at:#x} does not hold the PTX built for wrapper {addr:#x}"
            )));
        }
    }
    Ok((sec.address(), sec.size()))
}

/// Write `bytes` to `path` atomically (a temporary file in the same directory, mode 0755 like
/// a linked `.so`, renamed into place): a failure leaves no partial output.
///
/// # Errors
/// [`ErrorKind::Io`] naming `path`.
pub fn write_output(path: &std::path::Path, bytes: &[u8]) -> Result<()> {
    use std::io::Write;
    use std::os::unix::fs::PermissionsExt;
    let shown = path.display().to_string();
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => std::path::Path::new("."),
    };
    let mut tmp = tempfile::NamedTempFile::new_in(dir).map_err(|e| Error::io(&shown, e))?;
    tmp.write_all(bytes).map_err(|e| Error::io(&shown, e))?;
    tmp.as_file()
        .set_permissions(std::fs::Permissions::from_mode(0o755))
        .map_err(|e| Error::io(&shown, e))?;
    tmp.persist(path).map_err(|e| Error::io(&shown, e.error))?;
    Ok(())
}

/// The human-readable twin report: one line per wrapper, then every kernel not lowered.
pub fn render(r: &TwinReport) -> String {
    let mut s = format!("{} (cuda twin, {}):\n", r.file, r.arch);
    for w in &r.wrappers {
        let src = w
            .source_ptx
            .as_ref()
            .map(|(a, v)| format!(" from {a} PTX {v}"))
            .unwrap_or_default();
        let lowered = w
            .kernels
            .iter()
            .filter(|k| k.outcome == KernelOutcome::Lowered)
            .count();
        let what = match w.status {
            WrapperStatus::Converted => format!(
                "converted{src}: {lowered}/{} kernels lowered, {} bytes of PTX{}",
                w.kernels.len(),
                w.new_ptx_bytes,
                if w.from_cache { " (cached)" } else { "" }
            ),
            WrapperStatus::SassOnly => "left alone: its fatbin has no PTX (SASS only)".into(),
            WrapperStatus::NotRegistered => "not registered by any code".into(),
            WrapperStatus::NoContainer => {
                "left alone: its data pointer does not lead to a fatbin container".into()
            }
        };
        s.push_str(&format!("  wrapper {:#x}: {what}\n", w.address));
    }
    for w in &r.wrappers {
        for v in &w.variables_missing {
            s.push_str(&format!(
                "  VARIABLE MISSING (wrapper {:#x}): {v}\n",
                w.address
            ));
        }
        for k in &w.kept_source {
            s.push_str(&format!(
                "  SOURCE PTX KEPT (wrapper {:#x}, --keep-source): kernel `{k}`\n",
                w.address
            ));
        }
    }
    for (addr, k, reason) in r.not_lowered() {
        s.push_str(&format!(
            "  NOT LOWERED (wrapper {addr:#x}): kernel `{k}`: {reason}\n"
        ));
    }
    if let Some((a, n)) = r.section {
        s.push_str(&format!(
            "  new PTX in {} at {a:#x} ({n} bytes); {} old container(s) zeroed\n",
            r.section_name,
            r.zeroed.len()
        ));
    }
    if let Some(id) = &r.identity {
        let e = &r.identity_edits;
        let how = match (e.driver_strings.len(), e.renamed.len()) {
            (0, 0) => "no identity queries to serve (no static runtime, no runtime queries imported)".to_string(),
            (d, n) => format!(
                "identity {}.{} served by {} beside it ({d} libcuda.so.1 string(s) re-pointed, {n} import(s) renamed)",
                id.source / 10,
                id.source % 10,
                id.soname()
            ),
        };
        s.push_str(&format!("  {how}\n"));
        if let Some(n) = id.note() {
            s.push_str(&format!("  note: {n}\n"));
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    // Shapes as nvcc 13.5 prints them (inline-asm blocks with their own braces at column 0)
    // and as llc 19 prints them (tab-indented body).
    const SOURCE: &str = ".version 9.5\n.target sm_80\n.address_size 64\n\n\
        .visible .entry a(\n.param .u32 a_param_0\n)\n.maxntid 256, 1, 1\n{\n.reg .pred %p<3>;\n\
        {\n.reg .pred p;\nsetp.ne.u32 p, %r1, 0; // {not a brace}\n}\nret;\n}\n\n\
        .visible .entry b(\n.param .u32 b_param_0\n)\n{\nld.shared.v4.u8 {%rs1, %rs2, %rs3, %rs4}, [%r1];\nret;\n}\n";
    const BUILT: &str = "//\n.version 7.0\n.target sm_80\n.address_size 64\n\n\
        \t// .globl\ta\n.visible .entry a(\n\t.param .u32 a_param_0\n)\n{\n\tret;\n\n}\n\
        \t// .globl\tb\n.visible .entry b(\n\t.param .u32 b_param_0\n)\n{\n\tmov.u32 %r1, 7;\n\tret;\n\n}\n";

    #[test]
    fn entry_spans_follow_braces_not_inline_asm_blocks() {
        let s = entry_spans(SOURCE);
        let names: Vec<&str> = s.iter().map(|(n, _)| *n).collect();
        assert_eq!(names, ["a", "b"]);
        assert!(SOURCE[s[0].1.clone()].ends_with("ret;\n}\n"));
        assert!(SOURCE[s[0].1.clone()].contains("setp.ne.u32 p"));
        assert!(SOURCE[s[1].1.clone()].starts_with(".visible .entry b("));
        assert_eq!(entry_spans(BUILT).len(), 2);
    }

    #[test]
    fn keep_source_replaces_only_the_named_entries_and_raises_the_version() {
        let (out, kept) = splice_source_entries(BUILT, SOURCE, &["b".to_string()]);
        assert_eq!(kept, ["b"]);
        // The lowering's `a` stays, its `b` is gone, the source's `b` is appended.
        assert!(out.contains("\tret;\n\n}"));
        assert!(!out.contains("mov.u32 %r1, 7"));
        assert!(out.contains("ld.shared.v4.u8 {%rs1, %rs2, %rs3, %rs4}, [%r1];"));
        assert_eq!(out.matches(".visible .entry").count(), 2);
        // 9.5 capped at 8.8 (what drivers of CUDA 12.9 and later accept).
        assert!(out.contains(".version 8.8\n") && !out.contains(".version 7.0"));
        let (same, none) = splice_source_entries(BUILT, SOURCE, &["zzz".to_string()]);
        assert!(none.is_empty());
        assert_eq!(same, BUILT);
    }
}
