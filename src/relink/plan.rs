//! From a relink [`Table`] and a scanned shared object to a rewrite plan.
//!
//! Every import that comes from a CUDA-stack library (by its version requirement, by having a
//! row in the table, or, unversioned, by the driver API's names in
//! `relink-tables/cuda-stack.tsv`) is accounted for: renamed to its target name, renamed to its
//! shim-library name (`shim`/`noop` rows: same length as the CUDA name, see the table
//! headers), or listed as unsupported with the row's notes. CUDA DT_NEEDED entries with a
//! soname row are replaced; their version requirements are dropped, so the re-targeted
//! imports become unversioned (reference `wheel-and-elf-rewriting.md` §0.1). A library that
//! auditwheel vendored under a hashed name (`libcudart.3eda8113.so.13`) is looked up as the
//! library it copies, so its DT_NEEDED entry and version requirements are re-targeted too; a
//! CUDA-stack library with no soname row is listed as unresolved.

use super::{Kind, Table};
use crate::analyze::runtime::canonical_soname;
use crate::elf::SharedObject;
use crate::rewrite::HostEdits;

/// One import the plan cannot re-target.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unresolved {
    /// The imported name (`name@version` when versioned).
    pub import: String,
    /// Why: the table row's notes, or "no row in the relink table".
    pub reason: String,
}

/// The edits for one object and what they leave undone.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Plan {
    /// The edits for [`crate::rewrite::rewrite`].
    pub edits: HostEdits,
    /// Imports renamed to shim-library symbols, each defined by the target's shim library.
    pub shimmed: Vec<String>,
    /// CUDA imports with no usable row.
    pub unresolved: Vec<Unresolved>,
    /// CUDA DT_NEEDED entries with no target soname.
    pub unresolved_needed: Vec<String>,
}

/// The soname prefix `relink-tables/cuda-stack.tsv` gives the CUDA driver API's imports.
const DRIVER_LIBRARY: &str = "libcuda.so";

/// Build the plan for `so` from `table`.
///
/// A `shim`/`noop` row counts only when the target's shim library defines its symbol
/// ([`crate::shim::shim_symbols`], read from the shim's C source: the single list that
/// [`crate::rewrite::rewrite_host`] and `inspect` share); otherwise the import is left as it
/// is and listed in [`Plan::unresolved`] with that reason.
pub fn plan(table: &Table, so: &SharedObject) -> Plan {
    let shim_defines = crate::shim::shim_symbols(table.target());
    let mut p = Plan::default();
    let mut cuda_files: Vec<String> = Vec::new();
    for n in &so.needed {
        // A vendored copy (`libcudart.3eda8113.so.13`) is the library it copies.
        let canon = canonical_soname(n);
        match table.soname(&canon) {
            Some(row) if row.kind == Kind::Rename && row.target_soname.is_some() => {
                p.edits.needed.push((n.clone(), row.target_soname.clone()));
                cuda_files.push(n.clone());
            }
            Some(_) => p.unresolved_needed.push(n.clone()),
            None if crate::inspect::cuda_stack::is_cuda_library(&canon) => {
                p.unresolved_needed.push(n.clone())
            }
            None => {}
        }
    }
    for imp in &so.imports {
        // An unversioned import of the CUDA driver API (libcuda.so.1 has no symbol versions)
        // is the driver's, by `relink-tables/cuda-stack.tsv`'s rules.
        let driver = imp.version_file.is_none()
            && crate::inspect::cuda_stack::unversioned_library(&imp.name)
                == Some(Some(DRIVER_LIBRARY));
        // An unversioned C++ import of a CUDA library the object needs (`c10::cuda::SetDevice`
        // of libc10_cuda.so), by the same rules: without a row it has no provider once that
        // library is re-targeted.
        let by_rule = imp.version_file.is_none()
            && !driver
            && match crate::inspect::cuda_stack::unversioned_library(&imp.name) {
                Some(Some(lib)) => so
                    .needed
                    .iter()
                    .any(|n| canonical_soname(n).starts_with(lib)),
                _ => false,
            };
        let from_cuda = driver
            || by_rule
            || imp.version_file.as_ref().is_some_and(|f| {
                cuda_files.contains(f)
                    || table.soname(&canonical_soname(f)).is_some()
                    || crate::inspect::cuda_stack::is_cuda_library(f)
            });
        // The library it comes from: its version requirement's file, else the first CUDA
        // library the object needs that has a row for it (`cudaMemPrefetchAsync` of
        // libcudart.so.13 is not libcudart.so.12's).
        let library = imp
            .version_file
            .as_deref()
            .map(canonical_soname)
            .or_else(|| {
                so.needed
                    .iter()
                    .map(|n| canonical_soname(n))
                    .find(|n| table.symbol_of(n, &imp.name).is_some())
            });
        match table.symbol_in(library.as_deref(), &imp.name) {
            Some(row) => match (row.kind, &row.target_name) {
                (Kind::Rename, Some(t)) => {
                    p.edits.renames.insert(imp.name.clone(), t.clone());
                }
                (Kind::Shim | Kind::Noop, Some(t)) if shim_defines.contains(&t.as_str()) => {
                    p.edits.renames.insert(imp.name.clone(), t.clone());
                    p.shimmed.push(t.clone());
                }
                (Kind::Shim | Kind::Noop, Some(t)) => p.unresolved.push(Unresolved {
                    import: imp.display(),
                    reason: if shim_defines.is_empty() {
                        format!(
                            "shim row ({t}): no shim library for target {} yet",
                            table.target()
                        )
                    } else {
                        format!("shim row: {t} is not defined by the shim library")
                    },
                }),
                _ => p.unresolved.push(Unresolved {
                    import: imp.display(),
                    reason: row.notes.clone(),
                }),
            },
            None if driver => p.unresolved.push(Unresolved {
                import: imp.display(),
                reason: "CUDA driver API (libcuda.so.1): no row in the relink table; a module \
                         it loads at run time is not translated"
                    .into(),
            }),
            None if from_cuda => p.unresolved.push(Unresolved {
                import: imp.display(),
                reason: match imp.version_file.as_deref() {
                    Some(f) if p.unresolved_needed.iter().any(|n| n == f) => format!(
                        "from {}, which has no counterpart on {}",
                        canonical_soname(f),
                        table.target()
                    ),
                    _ => "no row in the relink table".into(),
                },
            }),
            None => {}
        }
    }
    p.edits.drop_version_files = cuda_files;
    p
}

/// The plan for the entry points of a CUDA runtime linked into the object
/// ([`crate::elf::static_runtime`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StaticPlan {
    /// One rebind per entry point the object's code refers to and the table re-targets.
    pub rebinds: Vec<crate::rewrite::Rebind>,
    /// The library the renamed entry points come from (the target runtime's soname, the
    /// table's row for `libcudart.so.12`), added to DT_NEEDED.
    pub runtime: Option<String>,
    /// Shim-library symbols the rebinds jump to.
    pub shimmed: Vec<String>,
    /// Referenced entry points that cannot be rebound, with reasons.
    pub unresolved: Vec<Unresolved>,
}

/// The bytes an entry point needs for its rebind: `endbr64` (kept when the entry has it) and
/// `jmp *slot(%rip)` (see [`crate::rewrite::Rebind`]).
pub const REBIND_BYTES: u64 = 10;

/// Plan the rebinds of a static runtime's entry points `entries` (those the object's code
/// refers to are rebound; the others are never reached) from `table`: a `rename` row jumps
/// to the target runtime's function, a `shim`/`noop` row to the shim library's (when the
/// shim defines it); any other row, no row, or an entry shorter than [`REBIND_BYTES`] is
/// unresolved.
pub fn plan_static(
    table: &Table,
    entries: &[crate::elf::static_runtime::StaticEntry],
) -> StaticPlan {
    let shim_defines = crate::shim::shim_symbols(table.target());
    let library = static_runtime_library(table, entries);
    let mut p = StaticPlan {
        runtime: table.soname(library).and_then(|r| r.target_soname.clone()),
        ..Default::default()
    };
    for e in entries.iter().filter(|e| e.referenced) {
        let unresolved = |reason: String| Unresolved {
            import: format!("{} (statically linked)", e.name),
            reason,
        };
        let target = match table.symbol_in(Some(library), &e.name) {
            Some(row) => match (row.kind, &row.target_name) {
                (Kind::Rename, Some(t)) if p.runtime.is_some() => Ok(t.clone()),
                (Kind::Shim | Kind::Noop, Some(t)) if shim_defines.contains(&t.as_str()) => {
                    p.shimmed.push(t.clone());
                    Ok(t.clone())
                }
                (Kind::Shim | Kind::Noop, Some(t)) => {
                    Err(format!("shim row: {t} is not defined by the shim library"))
                }
                _ => Err(row.notes.clone()),
            },
            None => Err("no row in the relink table".into()),
        };
        match target {
            Ok(_) if e.size < REBIND_BYTES => p.unresolved.push(unresolved(format!(
                "the function is {} bytes, too short for the {REBIND_BYTES}-byte jump that rebinds it",
                e.size
            ))),
            Ok(t) => p.rebinds.push(crate::rewrite::Rebind {
                name: e.name.clone(),
                address: e.address,
                size: e.size,
                target: t,
            }),
            Err(reason) => p.unresolved.push(unresolved(reason)),
        }
    }
    p.shimmed.sort();
    p.shimmed.dedup();
    p
}

/// The CUDA runtime a static runtime's entry points `entries` are a copy of:
/// `libcudart.so.13` when one of them is a name only that library has a row for (CUDA 13
/// added functions such as `cudaDeviceGetDevResource`; a static runtime defines them all),
/// else `libcudart.so.12`.
pub fn static_runtime_library(
    table: &Table,
    entries: &[crate::elf::static_runtime::StaticEntry],
) -> &'static str {
    let only_13 = |n: &str| {
        table.symbol_of("libcudart.so.13", n).is_some()
            && table.symbol_of("libcudart.so.12", n).is_none()
    };
    if entries.iter().any(|e| only_13(&e.name)) {
        "libcudart.so.13"
    } else {
        "libcudart.so.12"
    }
}
