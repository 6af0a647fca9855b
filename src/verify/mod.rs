//! The load check: would a written ELF object load on the target, the way the dynamic
//! loader resolves it?
//!
//! [`load_problems`] reads an output object (after the host rewrite) and lists every reason
//! it would not load or would fail at its first CUDA call on the target:
//!
//! * a DT_NEEDED entry that is a CUDA-stack library ([`crate::inspect::cuda_stack`], a
//!   vendored copy under a hashed name included) on a target whose imports are re-targeted:
//!   the target has no such library. Entries that are shipped by the output (another member
//!   of the wheel, by file name or soname) are checked as those members; other libraries
//!   (the C library, PyTorch, `libstdc++`, the target's own runtime) are the environment's;
//! * a version requirement (`.gnu.version_r`) that names a CUDA-stack library: the loader
//!   looks the version up in a file that is not there;
//! * wheelport's shim library in DT_NEEDED without the shim being shipped where the object's
//!   DT_RUNPATH (or the folder beside a bare `.so`) finds it;
//! * a CUDA runtime linked into the object ([`crate::analyze::runtime::CudaRuntime::Static`])
//!   on a re-targeted stack: it reaches the GPU through NVIDIA's driver API.
//!
//! The `cuda` twin target keeps CUDA, so only the shim rule applies there.

use crate::analyze::runtime::{canonical_soname, CudaRuntime};
use crate::inspect::cuda_stack::is_cuda_library;
use crate::target::Profile;

/// Where the output ships libraries beside the object being checked.
#[derive(Debug, Clone, Default)]
pub struct Shipped {
    /// Sonames and file names of the libraries the output ships (other wheel members, the
    /// shim library).
    pub names: Vec<String>,
}

impl Shipped {
    fn has(&self, name: &str) -> bool {
        self.names.iter().any(|n| n == name)
    }
}

/// What the host rewrite of an object left for the load check to confirm.
#[derive(Debug, Clone, Copy, Default)]
pub struct HostFacts<'a> {
    /// Entry points of a static runtime that the rewrite rebound, `(cuda name, target)`
    /// ([`crate::rewrite::Rebind`]), each checked in the written bytes.
    pub rebound: &'a [(String, String)],
    /// CUDA imports (and static-runtime entry points the object calls) that have no mapping
    /// on the target: the loader cannot bind an import left so (Python loads extensions with
    /// `RTLD_NOW`), and an entry point left so reaches NVIDIA's driver API.
    pub unresolved: &'a [crate::inspect::model::UnresolvedImport],
}

/// Why the object `data` (named `file` in messages) would not load on `profile`'s target;
/// empty when it would. `runtime` is the object's CUDA runtime as analysed; `host` what its
/// host rewrite left to confirm.
///
/// # Errors
/// None: an object that does not even read as ELF is reported as a problem.
pub fn load_problems(
    data: &[u8],
    file: &str,
    profile: &Profile,
    runtime: &CudaRuntime,
    host: HostFacts<'_>,
    shipped: &Shipped,
) -> Vec<String> {
    let rebound = host.rebound;
    let so = match crate::elf::scan(data, file) {
        Ok(s) => s,
        Err(e) => return vec![format!("the written object does not read as ELF: {e}")],
    };
    let retargeted = profile.relinks();
    let mut out = Vec::new();
    for n in &so.needed {
        if n == crate::shim::SHIM_SONAME {
            if !shipped.has(n) {
                out.push(format!(
                    "needs {n}, wheelport's shim library, which the output does not ship"
                ));
            }
            continue;
        }
        if retargeted && is_cuda_library(n) {
            let canon = canonical_soname(n);
            out.push(if shipped.has(n) {
                format!(
                    "needs {n}, a vendored copy of {canon}: a CUDA library that {} cannot run",
                    profile.name
                )
            } else {
                format!(
                    "needs {canon}, a CUDA library with no counterpart on {}",
                    profile.name
                )
            });
        }
    }
    if retargeted {
        let mut files: Vec<&str> = so
            .imports
            .iter()
            .filter_map(|i| i.version_file.as_deref())
            .filter(|f| is_cuda_library(f))
            .collect();
        files.sort_unstable();
        files.dedup();
        for f in files {
            out.push(format!(
                "imports versioned against {f} (.gnu.version_r), which is not there on {}",
                profile.name
            ));
        }
        for u in host.unresolved {
            out.push(format!(
                "uses {}, which has no mapping on {} ({}): it cannot be bound",
                u.import, profile.name, u.reason
            ));
        }
        if let CudaRuntime::Static { evidence } = runtime {
            if rebound.is_empty() {
                out.push(format!(
                    "links the CUDA runtime statically ({evidence}) and its entry points are not rebound (without a .symtab naming the runtime's entry points, as in a stripped object, they cannot be found): it would reach the GPU through NVIDIA's driver API (libcuda.so.1), which {} does not have (docs/static-runtime.md)",
                    profile.name
                ));
            }
            out.extend(rebind_problems(data, rebound));
        }
    }
    out
}

/// The rebound entry points of a static runtime, checked in the written object `data`: each
/// (found by name in `.symtab`) starts with `jmp *slot(%rip)`, after an `endbr64` when it has
/// one, and an `R_X86_64_GLOB_DAT` relocation against the undefined dynamic symbol of its
/// target fills that slot. Each entry point that is not so is a problem.
fn rebind_problems(data: &[u8], rebound: &[(String, String)]) -> Vec<String> {
    use object::read::elf::ElfFile64;
    use object::{Object, ObjectSection, ObjectSymbol, ObjectSymbolTable, RelocationTarget};
    if rebound.is_empty() {
        return Vec::new();
    }
    let Ok(f) = ElfFile64::<object::Endianness>::parse(data) else {
        return vec!["the written object does not parse to check its rebound entry points".into()];
    };
    let addr: std::collections::HashMap<&[u8], u64> = f
        .symbols()
        .filter(|s| s.is_definition())
        .filter_map(|s| s.name_bytes().ok().map(|n| (n, s.address())))
        .collect();
    let mut slots: std::collections::HashMap<u64, String> = std::collections::HashMap::new();
    if let Some(relocs) = f.dynamic_relocations() {
        for (off, r) in relocs {
            if r.flags()
                != (object::RelocationFlags::Elf {
                    r_type: object::elf::R_X86_64_GLOB_DAT,
                })
            {
                continue;
            }
            if let RelocationTarget::Symbol(i) = r.target() {
                let s = f
                    .dynamic_symbol_table()
                    .and_then(|t| t.symbol_by_index(i).ok());
                if let Some(s) = s.filter(|s| s.is_undefined()) {
                    slots.insert(off, s.name().unwrap_or_default().to_string());
                }
            }
        }
    }
    let mut out = Vec::new();
    for (name, target) in rebound {
        let Some(&a) = addr.get(name.as_bytes()) else {
            out.push(format!(
                "the rebound entry point {name} is not in the written object's .symtab"
            ));
            continue;
        };
        let code = f
            .sections()
            .find(|s| a >= s.address() && a + 10 <= s.address() + s.size())
            .and_then(|s| s.data().ok().map(|d| (s.address(), d)));
        let jump = code.and_then(|(base, d)| {
            let mut at = (a - base) as usize;
            if d.get(at..at + 4) == Some(&[0xf3, 0x0f, 0x1e, 0xfa][..]) {
                at += 4;
            }
            let b = d.get(at..at + 6)?;
            (b[0..2] == [0xff, 0x25]).then(|| {
                let disp = i32::from_le_bytes(b[2..6].try_into().unwrap());
                (base + at as u64 + 6).wrapping_add(disp as i64 as u64)
            })
        });
        match jump.map(|slot| slots.get(&slot)) {
            Some(Some(t)) if t == target => {}
            Some(Some(t)) => out.push(format!(
                "the rebound entry point {name} jumps to {t}, not {target}"
            )),
            Some(None) => out.push(format!(
                "the rebound entry point {name} jumps through a slot that no GLOB_DAT relocation fills"
            )),
            None => out.push(format!(
                "the rebound entry point {name} does not start with a jump through a GOT slot"
            )),
        }
    }
    out
}
