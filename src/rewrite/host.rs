//! The host rewrite of one shared object for a target, in one call: [`rewrite_host`].
//!
//! Steps, from the object's analysis ([`crate::analyze::ObjectAnalysis`]: its ELF scan,
//! registered wrappers and containers): plan the imports and DT_NEEDED entries from the relink
//! table ([`crate::relink::plan()`]), and for a statically linked runtime the rebinds of the
//! entry points the object's code calls ([`crate::relink::plan_static`]); decide, per
//! registration wrapper, whether
//! it is re-pointed at new device code, skipped (a module with SASS only, or one whose device
//! code was not produced) or left alone (a device-link wrapper that no code registers,
//! reference `fatbin-and-registration.md` §2.1); add the shim library to DT_NEEDED and its
//! folder to DT_RUNPATH when an import is renamed to a shim symbol; rewrite
//! ([`super::rewrite`]). The report says what changed and what could not be done, with
//! reasons and the kernels of every skipped module.
//!
//! A skipped wrapper keeps the CUDA magic; the shim's `__cudaRegisterFatBinary` replacement
//! registers only HIPF wrappers and hands back a handle that turns the module's later
//! `__cudaRegisterFunction`/`__cudaRegisterVar` calls into no-ops (`shims/hip/wheelport_shim.c`),
//! so the other modules of the object still load and run.

use super::{HostEdits, Registration, RewriteSummary};
use crate::error::Result;
use crate::relink::{Table, Unresolved};
use crate::target::Profile;
use std::collections::BTreeMap;

/// Where the shim library is shipped, for the DT_RUNPATH entry of an object that needs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShimPlacement {
    /// The object's path inside the wheel (`xformers/_C.so`).
    pub so_path: String,
    /// The folder at the root of the wheel holding the shim (`xformers.libs`, see
    /// [`crate::shim::libs_dir`]); empty for a bare object with the shim beside it (`so_path`
    /// is then its file name and the entry `$ORIGIN`).
    pub libs_dir: String,
}

/// One registration wrapper and its module's kernels.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WrapperReport {
    /// Virtual address of the `__fatBinC_Wrapper_t`.
    pub address: u64,
    /// Kernel names (mangled) of the module: from its cubins' `STO_CUDA_ENTRY` symbols, else
    /// from its PTX `.entry` directives.
    pub kernels: Vec<String>,
    /// Why it was skipped (empty for a registered wrapper).
    pub reason: String,
}

/// What [`rewrite_host`] did to one object.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HostReport {
    /// DT_NEEDED replacements `(old, new)`; `new` is `None` for a removed entry.
    pub needed_changed: Vec<(String, Option<String>)>,
    /// DT_NEEDED entries added (the shim library).
    pub needed_added: Vec<String>,
    /// The DT_RUNPATH (or kept DT_RPATH) value written, when changed.
    pub runpath: Option<String>,
    /// Imports renamed `(cuda name, target name)`, sorted.
    pub renamed: Vec<(String, String)>,
    /// Shim-library symbols the object now imports.
    pub shimmed: Vec<String>,
    /// Imports that will not resolve, with reasons.
    pub unresolved: Vec<Unresolved>,
    /// CUDA DT_NEEDED entries without a target soname.
    pub unresolved_needed: Vec<String>,
    /// Entry points of a statically linked CUDA runtime rebound `(cuda name, target)`, in
    /// address order ([`super::Rebind`]).
    pub rebound: Vec<(String, String)>,
    /// Wrappers re-pointed at the given device code.
    pub registered: Vec<WrapperReport>,
    /// Registered wrappers left with the CUDA magic (not registered at run time), with their
    /// kernels: SASS only, or no device code given.
    pub skipped: Vec<WrapperReport>,
    /// Addresses of wrappers that no code registers (device-link wrappers), left alone.
    pub left_alone: Vec<u64>,
    /// The identity written for the shim (compute capability x10), when one was.
    pub identity: Option<u32>,
    /// The rewriter's own summary.
    pub summary: RewriteSummary,
}

/// The rewritten object and its report.
#[derive(Debug, Clone)]
pub struct HostRewrite {
    /// The new file.
    pub bytes: Vec<u8>,
    /// What was done.
    pub report: HostReport,
}

/// Rewrite the host side of one analysed shared object for `profile`'s target.
///
/// * `a`: the object's analysis (its bytes, name for errors, ELF scan, registered wrappers,
///   containers and kernels).
/// * `table`: the relink table of the target (built-in rows with user tables merged).
/// * `device`: new device code per registration-wrapper address: a clang offload bundle for
///   HIP targets, a CUDA fatbin for the `cuda` twin. A registered wrapper without an entry is
///   skipped and reported.
/// * `shim`: where the shim library is shipped; `None` adds no DT_RUNPATH (the shim must then
///   be found another way, e.g. `LD_LIBRARY_PATH`).
/// * `identity`: the compute capability x10 the object's kernels were translated from
///   ([`crate::twin::identity::source_cc`]); written as [`super::DT_WHEELPORT_IDENTITY`] when
///   the object needs the shim, which answers the object's host code with it.
///
/// # Errors
/// As [`super::rewrite`] (a layout that cannot be made is refused, nothing is returned).
pub fn rewrite_host(
    a: &crate::analyze::ObjectAnalysis<'_>,
    profile: &Profile,
    table: &Table,
    device: &BTreeMap<u64, Vec<u8>>,
    shim: Option<&ShimPlacement>,
    identity: Option<u32>,
) -> Result<HostRewrite> {
    let (data, file, so) = (a.data, a.file.as_str(), &a.elf);
    let plan = crate::relink::plan(table, so);
    let mut edits: HostEdits = plan.edits.clone();
    let mut report = HostReport {
        needed_changed: edits.needed.clone(),
        unresolved: plan.unresolved.clone(),
        unresolved_needed: plan.unresolved_needed.clone(),
        ..Default::default()
    };

    // Shim rows the shim library does not implement yet will not resolve.
    let hip = table.target().has_hip_shim();
    let defined = crate::shim::hip_shim_symbols();
    let mut shimmed: Vec<String> = Vec::new();
    for s in &plan.shimmed {
        if hip && defined.contains(&s.as_str()) {
            shimmed.push(s.clone());
        } else {
            let cuda = edits
                .renames
                .iter()
                .find(|(_, t)| *t == s)
                .map(|(c, _)| c.clone())
                .unwrap_or_default();
            report.unresolved.push(Unresolved {
                import: cuda,
                reason: if hip {
                    format!("shim row: {s} is not implemented in the shim library yet")
                } else {
                    format!(
                        "shim row: no shim library for target {} yet",
                        table.target()
                    )
                },
            });
        }
    }
    // A runtime linked into the object: its entry points that the object's code calls are
    // rebound to the target runtime's functions and the shim's.
    if profile.relinks() && !a.static_entries.is_empty() {
        let sp = crate::relink::plan_static(table, &a.static_entries);
        if let Some(rt) = &sp.runtime {
            if sp.rebinds.iter().any(|r| !sp.shimmed.contains(&r.target)) {
                edits.add_needed.push(rt.clone());
            }
        }
        shimmed.extend(sp.shimmed.iter().cloned());
        report.unresolved.extend(sp.unresolved);
        report.rebound = sp
            .rebinds
            .iter()
            .map(|r| (r.name.clone(), r.target.clone()))
            .collect();
        edits.rebinds = sp.rebinds;
    }
    shimmed.sort();
    shimmed.dedup();

    // Registration wrappers.
    let magic = profile.backend().wrapper_magic();
    for w in &so.wrappers {
        if w.registered != Some(true) {
            report.left_alone.push(w.address);
            continue;
        }
        let module = w.data_offset.and_then(|off| a.container_at(off));
        let (kernels, has_ptx) = match module {
            Some((ci, c)) => (a.container_kernels(ci), !c.ptx.is_empty()),
            None => (Vec::new(), false),
        };
        match device.get(&w.address) {
            Some(bundle) => {
                edits.registrations.push(Registration {
                    wrapper_address: w.address,
                    magic,
                    bundle: bundle.clone(),
                });
                report.registered.push(WrapperReport {
                    address: w.address,
                    kernels,
                    reason: String::new(),
                });
            }
            None => report.skipped.push(WrapperReport {
                address: w.address,
                kernels,
                reason: if module.is_none() {
                    "the wrapper's container was not found in a fatbin section".into()
                } else if has_ptx {
                    "no device code was given for this module (its PTX was not translated)".into()
                } else {
                    "SASS only: the module carries no PTX to translate; it is not registered".into()
                },
            }),
        }
    }

    // The shim library: DT_NEEDED and DT_RUNPATH only when an import needs it.
    if !shimmed.is_empty() {
        edits.add_needed.push(crate::shim::SHIM_SONAME.to_string());
        edits.identity = identity;
        report.identity = identity;
        if let Some(p) = shim {
            let entry = crate::shim::origin_runpath(&p.so_path, &p.libs_dir);
            let existing = so.runpath.clone().or_else(|| so.rpath.clone());
            let value = match existing {
                Some(e) if e.split(':').any(|x| x == entry) => None,
                Some(e) if !e.is_empty() => Some(format!("{e}:{entry}")),
                _ => Some(entry),
            };
            if let Some(v) = value {
                edits.runpath = Some(v.clone());
                report.runpath = Some(v);
            }
        }
    }
    let mut renamed: Vec<(String, String)> = edits
        .renames
        .iter()
        .map(|(a, b)| (a.clone(), b.clone()))
        .collect();
    renamed.sort();
    report.renamed = renamed;
    report.shimmed = shimmed;

    let (bytes, summary) = super::rewrite(data, &edits, file)?;
    if summary.needed_added > 0 {
        report.needed_added = edits.add_needed.clone();
    }
    report.summary = summary;
    Ok(HostRewrite { bytes, report })
}
