//! The SASS stage: kernels that ship only as machine code (cubins without PTX).
//!
//! * [`decode`] — NVIDIA's `nvdisasm` run on a cubin, its output parsed into typed
//!   instructions ([`decode::Instr`]: guard, opcode and modifiers, typed operands).
//! * [`info`] — the cubin's `.nv.info` attributes (parameter layout, parameter constant
//!   bank, register count, frame size, max threads, exits), shared and constant sections.
//! * [`lift`] — SASS to the PTX the front end reads ([`crate::ptx`]), so that the whole
//!   lowering ([`crate::lower`]) is reused; every instruction is lifted or reported with its
//!   form, never dropped.
//!
//! The lifter runs in `convert` (every SASS-only kernel of a registered module is lifted
//! and built like PTX; `--sass skip` turns it off, [`crate::convert::Options::lift_sass`]),
//! in `wheelport sass lift`, and in `inspect --untranslatable`, which lists the SASS forms
//! it lacks for each SASS-only kernel.

pub mod decode;
pub mod info;
pub mod lift;

use decode::Function;
use std::collections::BTreeMap;

/// Instruction counts per form (opcode with its modifiers, `IMAD.WIDE.U32`) of `f`, with the
/// offset of the first of each.
pub fn form_counts<'f>(
    f: impl IntoIterator<Item = &'f Function>,
) -> BTreeMap<String, (usize, u32)> {
    let mut m: BTreeMap<String, (usize, u32)> = BTreeMap::new();
    for func in f {
        for i in &func.instrs {
            let e = m.entry(i.form.to_string()).or_insert((0, i.offset));
            e.0 += 1;
        }
    }
    m
}

/// The cubin to lift a SASS-only kernel from, among the SASS archs it has (`sm_80`,
/// `sm_90a`): the lowest sm_80..sm_90 one (the families the lifter knows, see
/// `src/sass/cbank0.tsv`), else `None`.
pub fn pick_arch<'a>(archs: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    archs
        .into_iter()
        .filter(|a| lift::family_of(a).is_some())
        .min_by_key(|a| sm_number(a))
}

/// The SM number of `sm_90a` (90).
pub fn sm_number(arch: &str) -> u32 {
    arch.trim_start_matches(|c: char| !c.is_ascii_digit())
        .trim_end_matches(|c: char| !c.is_ascii_digit())
        .parse()
        .unwrap_or(0)
}

/// One cubin found in an input: its arch, bytes and where it came from.
#[derive(Debug, Clone)]
pub struct CubinEntry {
    /// `sm_80`, `sm_90a`.
    pub arch: String,
    /// The decompressed ELF.
    pub bytes: Vec<u8>,
    /// How reports name it (`lib.so (cubin at offset 0x1234)`).
    pub name: String,
    /// The fatbin container index in the object (0 for a loose cubin).
    pub container: usize,
}

/// The cubins of an ELF object (`.so` with fatbins, or a loose cubin), decompressed; the
/// relocatable copies of an `-rdc` build (`__nv_relfatbin`) are left out, their kernels being
/// the device-linked module's.
///
/// # Errors
/// When the object is not a readable ELF file; entries that do not decompress are errors too.
pub fn cubins_of(data: &[u8], file: &str) -> crate::Result<Vec<CubinEntry>> {
    let a = crate::analyze::analyze(data, file, file, &crate::analyze::Options::default())?;
    if let Some(arch) = &a.cubin_arch {
        return Ok(vec![CubinEntry {
            arch: arch.clone(),
            bytes: data.to_vec(),
            name: file.to_string(),
            container: 0,
        }]);
    }
    let mut out = Vec::new();
    for (ci, c) in a.containers.iter().enumerate() {
        // The relocatable (-rdc) copies are the device link's inputs: their kernels are the
        // device-linked module's (in `.nv_fatbin`), which is what the runtime loads.
        if c.report.section == crate::elf::scan::NV_RELFATBIN {
            continue;
        }
        for e in &c.container.entries {
            if e.kind() != crate::fatbin::EntryKind::Elf {
                continue;
            }
            let bytes = e.payload()?.into_owned();
            out.push(CubinEntry {
                arch: crate::cubin::cubin_arch(&bytes, file).unwrap_or_else(|_| e.arch_name()),
                bytes,
                name: format!("{file} (cubin at offset {:#x})", e.payload_offset()),
                container: ci,
            });
        }
    }
    Ok(out)
}

/// A cubin decoded and lifted.
#[derive(Debug, Clone)]
pub struct CubinLift {
    /// The cubin's arch.
    pub arch: String,
    /// Per kernel (entry function), in `nvdisasm` order.
    pub kernels: Vec<lift::KernelLift>,
    /// Every function's instruction count per form (opcode with modifiers).
    pub forms: BTreeMap<String, (usize, u32)>,
    /// Instructions decoded (all functions).
    pub instructions: usize,
    /// Seconds spent in nvdisasm and reading its output.
    pub decode_s: f64,
    /// Seconds spent lifting.
    pub lift_s: f64,
}

impl CubinLift {
    /// The PTX module of every kernel that lifted (`None` when none did).
    pub fn module(&self) -> Option<String> {
        let bodies: Vec<&str> = self
            .kernels
            .iter()
            .filter_map(|k| k.ptx.as_deref())
            .collect();
        if bodies.is_empty() {
            return None;
        }
        let mut s = lift::module_header(&self.arch);
        if self
            .kernels
            .iter()
            .any(|k| k.ptx.is_some() && k.dynamic_shared)
        {
            s.push_str(&format!(
                ".extern .shared .align 16 .b8 {}[];\n\n",
                lift::DYNAMIC_SHARED
            ));
        }
        // The module-scope data and external functions the lifted kernels use, once each.
        let mut seen = std::collections::BTreeSet::new();
        let mut decls = String::new();
        for k in self.kernels.iter().filter(|k| k.ptx.is_some()) {
            for (name, text) in &k.decls {
                if seen.insert(name.as_str()) {
                    decls.push_str(text);
                    decls.push('\n');
                }
            }
        }
        if !decls.is_empty() {
            s.push_str(&decls);
            s.push('\n');
        }
        for b in bodies {
            s.push_str(b);
            s.push('\n');
        }
        Some(s)
    }
}

/// Decode `cubin` with `nvdisasm` and lift each kernel (`file` names it in errors).
///
/// # Errors
/// When nvdisasm fails or the cubin's headers do not read.
pub fn lift_cubin(
    nvdisasm: &crate::toolchain::Tool,
    cubin: &[u8],
    arch: &str,
    file: &str,
) -> crate::Result<CubinLift> {
    let t0 = std::time::Instant::now();
    let funcs = decode::decode_cubin(nvdisasm, cubin, file)?;
    let decode_s = t0.elapsed().as_secs_f64();
    let t1 = std::time::Instant::now();
    let info = info::read(cubin, file)?;
    let forms = form_counts(&funcs);
    let instructions = funcs.iter().map(|f| f.instrs.len()).sum();
    let consts = lift::Consts {
        banks: info.constant_banks.clone(),
        relocated: info.relocated_banks.clone(),
        data: info.data.clone(),
        symbols: info.symbols.clone(),
        relocations: info.relocations.clone(),
        functions: funcs
            .iter()
            .filter(|f| info.kernel(&f.name).is_none())
            .map(|f| (f.name.clone(), f.clone()))
            .collect(),
    };
    use rayon::prelude::*;
    let kernels: Vec<lift::KernelLift> = funcs
        .par_iter()
        .filter_map(|f| {
            info.kernel(&f.name)
                .map(|k| lift::lift_kernel(f, k, arch, &consts))
        })
        .collect();
    Ok(CubinLift {
        arch: arch.to_string(),
        kernels,
        forms,
        instructions,
        decode_s,
        lift_s: t1.elapsed().as_secs_f64(),
    })
}

/// The cubin of container `ci` of `a` that SASS-only kernels are lifted from (the arch
/// [`pick_arch`] chooses among its cubins), decompressed; or why there is none.
fn container_cubin(
    a: &crate::analyze::ObjectAnalysis<'_>,
    ci: usize,
) -> std::result::Result<(String, Vec<u8>, String), String> {
    if let Some(arch) = &a.cubin_arch {
        return if lift::family_of(arch).is_some() {
            Ok((arch.clone(), a.data.to_vec(), a.file.clone()))
        } else {
            Err(format!("no lifter for {arch}"))
        };
    }
    let c = a.containers.get(ci).ok_or("no container")?;
    let elfs: Vec<&crate::fatbin::Entry<'_>> = c
        .container
        .entries
        .iter()
        .filter(|e| e.kind() == crate::fatbin::EntryKind::Elf)
        .collect();
    let archs: Vec<String> = elfs.iter().map(|e| e.arch_name()).collect();
    let arch = pick_arch(archs.iter().map(String::as_str))
        .ok_or_else(|| format!("no cubin the lifter knows (has {})", archs.join(", ")))?
        .to_string();
    let e = elfs[archs.iter().position(|x| *x == arch).expect("picked")];
    let bytes = e.payload().map_err(|e| e.to_string())?.into_owned();
    Ok((
        arch,
        bytes,
        format!("{} (cubin at offset {:#x})", a.file, e.payload_offset()),
    ))
}

/// Decode and lift, per container of `a` holding SASS-only kernels, the cubin they are
/// lifted from: (container index, its lifting or why not). Containers run in parallel (one
/// nvdisasm each).
pub fn lift_sass_only(
    a: &crate::analyze::ObjectAnalysis<'_>,
    nvdisasm: &std::result::Result<crate::toolchain::Tool, crate::toolchain::Missing>,
) -> Vec<(usize, std::result::Result<CubinLift, String>)> {
    use crate::inspect::model::KernelStatus;
    let mut cis: Vec<usize> = a
        .kernels
        .iter()
        .filter(|k| k.status == KernelStatus::SassOnly)
        .map(|k| k.container)
        .collect();
    cis.sort_unstable();
    cis.dedup();
    lift_containers(a, &cis, nvdisasm)
}

/// Decode and lift, for each container index of `cis` (of `a`), the cubin its SASS-only
/// kernels are lifted from ([`pick_arch`]): (container index, its lifting or why not, one
/// line), in the order of `cis`. Containers run in parallel (one nvdisasm each).
pub fn lift_containers(
    a: &crate::analyze::ObjectAnalysis<'_>,
    cis: &[usize],
    nvdisasm: &std::result::Result<crate::toolchain::Tool, crate::toolchain::Missing>,
) -> Vec<(usize, std::result::Result<CubinLift, String>)> {
    use rayon::prelude::*;
    cis.par_iter()
        .map(|&ci| {
            let r = match nvdisasm {
                Err(m) => Err(format!("nvdisasm {}; install: {}", m.reason, m.install)),
                Ok(tool) => container_cubin(a, ci).and_then(|(arch, bytes, name)| {
                    lift_cubin(tool, &bytes, &arch, &name).map_err(|e| e.to_string())
                }),
            };
            (ci, r)
        })
        .collect()
}

/// Fill [`crate::inspect::model::KernelReport::sass_forms`] of every SASS-only kernel of
/// `kernels` from `lifts` ([`lift_sass_only`]).
pub fn fill_reports(
    kernels: &mut [crate::inspect::model::KernelReport],
    lifts: &[(usize, std::result::Result<CubinLift, String>)],
) {
    use crate::inspect::model::{KernelStatus, SassFormReport, SassFormsReport};
    for k in kernels
        .iter_mut()
        .filter(|k| k.status == KernelStatus::SassOnly)
    {
        let Some((_, r)) = lifts.iter().find(|(ci, _)| *ci == k.container) else {
            continue;
        };
        k.sass_forms = Some(match r {
            Err(e) => SassFormsReport {
                arch: String::new(),
                instructions: 0,
                forms: 0,
                unlifted: Vec::new(),
                error: Some(e.clone()),
            },
            Ok(l) => match l.kernels.iter().find(|x| x.name == k.name) {
                None => SassFormsReport {
                    arch: l.arch.clone(),
                    instructions: 0,
                    forms: 0,
                    unlifted: Vec::new(),
                    error: Some(format!("kernel not in the {} cubin's disassembly", l.arch)),
                },
                Some(kl) => SassFormsReport {
                    arch: l.arch.clone(),
                    instructions: kl.instructions,
                    forms: kl.forms,
                    unlifted: kl
                        .unlifted_forms()
                        .into_iter()
                        .map(|(form, (count, first_offset, reason))| SassFormReport {
                            form,
                            count,
                            first_offset,
                            reason,
                        })
                        .collect(),
                    error: None,
                },
            },
        });
    }
}
