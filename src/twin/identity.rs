//! The identity a `cuda` twin presents to its host code (docs/identity.md).
//!
//! Host code of CUB, Thrust, CUTLASS and many extensions chooses launch policies from
//! `cudaFuncGetAttributes(...).ptxVersion`/`binaryVersion`, the compute capability and
//! `warpSize`, while the device code it launches was compiled with the policy of its PTX's
//! `.target` baked in. The twin runs wheelport's lowering of that PTX, built for the twin
//! arch, so without help the host reads the twin arch (8.0) or the GPU's (9.0) where the code
//! expects its source's (12.0 for CuPy 14's CUB): wrong grids, wrong answers.
//!
//! The twin therefore ships wheelport's identity interposer
//! (`shims/cuda-identity/wp_identity.c`), named [`Identity::soname`] (`wpSSSTTT.so`), and
//! points the object at it:
//!
//! * **statically linked runtime** (the runtime's private code `dlopen`s `libcuda.so.1` and
//!   reaches the driver through `cuGetProcAddress`): each NUL-terminated `libcuda.so.1` in
//!   the object's read-only data becomes the interposer's soname (same 12-byte slot, NUL
//!   padded), and DT_RUNPATH gains the interposer's folder. The interposer has DT_NEEDED
//!   `libcuda.so.1`, so every entry point it does not wrap resolves to NVIDIA's driver.
//! * **dynamically linked runtime** (`libcudart.so.NN` in DT_NEEDED): the imports
//!   `cudaDeviceGetAttribute`, `cudaFuncGetAttributes`, `cudaGetDeviceProperties[_v2]` and
//!   `cudaLaunchKernelExC[_ptsz]` are renamed `wpcuNN_<name without cuda>`, and the interposer is added as DT_NEEDED with the
//!   same DT_RUNPATH entry.
//!
//! The answers: per function, PTX and binary version = the source PTX `.target` of the
//! object (for functions whose real PTX version is the twin arch, i.e. the twin's own code);
//! per device, compute capability = that target, `warpSize` = 32. Launches lose the
//! programmatic dependent launch attributes (host code reading 9.0 or more asks for them; the
//! twin's code cannot wait for the previous grid). An object whose converted
//! modules come from PTX of several targets gets the lowest of them (host code then assumes
//! no feature some translated module lacks; [`Identity::note`] says so).

use crate::elf::SharedObject;
use crate::error::{Error, Result};
use crate::rewrite::HostEdits;
use std::path::{Path, PathBuf};

/// The interposer's C source.
pub const INTERPOSER_C: &str = include_str!("../../shims/cuda-identity/wp_identity.c");

/// The `dlopen` name a statically linked CUDA runtime loads the driver by.
pub const DRIVER_SONAME: &str = "libcuda.so.1";

/// The runtime entry points the interposer serves for dynamically linked runtimes.
/// (`cudaLaunchKernelExC[_ptsz]`: served without the programmatic dependent launch
/// attributes, which the twin's code, built without `griddepcontrol`, cannot honour.)
pub const RUNTIME_QUERIES: [&str; 6] = [
    "cudaDeviceGetAttribute",
    "cudaFuncGetAttributes",
    "cudaGetDeviceProperties_v2",
    "cudaGetDeviceProperties",
    "cudaLaunchKernelExC",
    "cudaLaunchKernelExC_ptsz",
];

/// What a twin presents: the source PTX target and the twin arch, as compute capability x10
/// (`sm_120` → 120).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
pub struct Identity {
    /// The source PTX `.target` (lowest over the object's converted modules).
    pub source: u32,
    /// The arch the twin's PTX is built for.
    pub twin: u32,
    /// Whether the object's modules had PTX of more than one target.
    pub mixed: bool,
}

impl Identity {
    /// The identity of an object whose converted modules had PTX targets `sources`
    /// (`compute_120`, `sm_90a`, ...), built for `twin_arch` (`sm_80`); `None` when nothing
    /// was converted or a name is not an `sm_NN`/`compute_NN` arch.
    pub fn of(sources: &[&str], twin_arch: &str) -> Option<Identity> {
        let twin = cc_of(twin_arch)?;
        let source = source_cc(sources)?;
        let mixed = sources.iter().any(|s| cc_of(s) != Some(source));
        (twin < 1000).then_some(Identity {
            source,
            twin,
            mixed,
        })
    }

    /// The interposer's file name and soname, `wp` + source + twin, three digits each:
    /// `wp120080.so` (11 bytes, so it fits the 12-byte `libcuda.so.1` slot).
    pub fn soname(&self) -> String {
        format!("wp{:03}{:03}.so", self.source, self.twin)
    }

    /// A note for the report when the answers are not exact for every module.
    pub fn note(&self) -> Option<String> {
        self.mixed.then(|| {
            format!(
                "PTX of several targets: host code is answered compute capability {}.{} (the lowest)",
                self.source / 10,
                self.source % 10
            )
        })
    }
}

/// The identity host code is answered for an object whose converted modules had PTX targets
/// `sources` (`compute_120`, `sm_90a`, ...): the lowest as compute capability x10, below
/// 1000; `None` when nothing was converted or a name is not an `sm_NN`/`compute_NN` arch.
pub fn source_cc(sources: &[&str]) -> Option<u32> {
    let ccs: Option<Vec<u32>> = sources.iter().map(|s| cc_of(s)).collect();
    ccs?.into_iter().min().filter(|&c| c < 1000)
}

/// `sm_120`, `compute_90a`, `sm_100f` → 120, 90, 100.
pub fn cc_of(arch: &str) -> Option<u32> {
    let digits = arch
        .strip_prefix("sm_")
        .or_else(|| arch.strip_prefix("compute_"))?;
    let end = digits
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(digits.len());
    digits[..end].parse().ok()
}

/// How an object reaches the interposer, and what was changed for it.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct IdentityEdits {
    /// File offsets of the `libcuda.so.1` strings re-pointed (static runtime).
    pub driver_strings: Vec<u64>,
    /// Imports renamed to the interposer (dynamic runtime): `(old, new)`.
    pub renamed: Vec<(String, String)>,
}

impl IdentityEdits {
    /// Whether the object uses the interposer at all.
    pub fn is_empty(&self) -> bool {
        self.driver_strings.is_empty() && self.renamed.is_empty()
    }
}

/// Point object `so` (bytes `data`, to be patched in place) at the interposer of `id`:
/// re-point its `libcuda.so.1` strings and rename its runtime identity imports, adding to
/// `edits` the DT_NEEDED entry (dynamic runtime) and `runpath_entry` to DT_RUNPATH.
///
/// Strings are looked for in allocated, non-writable, non-executable `SHT_PROGBITS` sections
/// other than `.dynstr` (where the static runtime's string table lives: `.rodata`).
pub fn apply(
    data: &mut [u8],
    so: &SharedObject,
    id: &Identity,
    runpath_entry: &str,
    edits: &mut HostEdits,
) -> IdentityEdits {
    let soname = id.soname();
    let mut out = IdentityEdits::default();
    let needle = b"libcuda.so.1\0";
    for s in &so.sections {
        let alloc = s.flags & 0x2 != 0;
        let write = s.flags & 0x1 != 0;
        let exec = s.flags & 0x4 != 0;
        if s.sh_type != 1 || !alloc || write || exec || s.name == ".dynstr" {
            continue;
        }
        let (start, end) = (s.offset as usize, (s.offset + s.size) as usize);
        if end > data.len() {
            continue;
        }
        let mut i = start;
        while let Some(p) = find(&data[i..end], needle) {
            let at = i + p;
            // A whole string: preceded by NUL (or the section start).
            if at == start || data[at - 1] == 0 {
                let slot = &mut data[at..at + needle.len()];
                slot.fill(0);
                slot[..soname.len()].copy_from_slice(soname.as_bytes());
                out.driver_strings.push(at as u64);
            }
            i = at + needle.len();
        }
    }
    if let Some(major) = so
        .needed
        .iter()
        .find_map(|n| n.strip_prefix("libcudart.so.")?.parse::<u32>().ok())
    {
        for imp in &so.imports {
            if RUNTIME_QUERIES.contains(&imp.name.as_str()) {
                let new = format!("wpcu{major}_{}", &imp.name["cuda".len()..]);
                edits.renames.insert(imp.name.clone(), new.clone());
                out.renamed.push((imp.name.clone(), new));
            }
        }
        out.renamed.sort();
        out.renamed.dedup();
        if !out.renamed.is_empty() {
            edits.add_needed.push(soname.clone());
        }
    }
    if !out.is_empty() {
        let existing = edits
            .runpath
            .clone()
            .or_else(|| so.runpath.clone())
            .or_else(|| so.rpath.clone());
        edits.runpath = match existing {
            Some(e) if e.split(':').any(|x| x == runpath_entry) => Some(e),
            Some(e) if !e.is_empty() => Some(format!("{e}:{runpath_entry}")),
            _ => Some(runpath_entry.to_string()),
        };
    }
    out
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// Build the interposer of `id` as `out_dir/<soname>` with the C compiler `cc`, linked
/// against a throw-away stub with soname `libcuda.so.1` (so it gets that DT_NEEDED entry and
/// binds to NVIDIA's driver at load time; no CUDA SDK is needed).
///
/// # Errors
/// [`crate::error::ErrorKind::Io`] when the compiler cannot be run or fails (its stderr is in the message).
pub fn build(cc: &Path, id: &Identity, out_dir: &Path) -> Result<PathBuf> {
    let work = tempfile::tempdir().map_err(Error::temp_dir)?;
    let src = work.path().join("wp_identity.c");
    std::fs::write(&src, INTERPOSER_C).map_err(|e| Error::io(src.display().to_string(), e))?;
    let stub_c = work.path().join("driver_stub.c");
    std::fs::write(&stub_c, "void wheelport_driver_stub(void) {}\n")
        .map_err(|e| Error::io(stub_c.display().to_string(), e))?;
    let stub = work.path().join(DRIVER_SONAME);
    let out = out_dir.join(id.soname());
    let runs = [
        vec![
            "-shared".into(),
            "-fPIC".into(),
            format!("-Wl,-soname,{DRIVER_SONAME}"),
            "-o".into(),
            stub.display().to_string(),
            stub_c.display().to_string(),
        ],
        vec![
            "-shared".into(),
            "-fPIC".into(),
            "-O2".into(),
            "-std=gnu11".into(),
            format!("-Wl,-soname,{}", id.soname()),
            "-Wl,--no-as-needed".into(),
            "-o".into(),
            out.display().to_string(),
            src.display().to_string(),
            stub.display().to_string(),
            "-ldl".into(),
            "-lpthread".into(),
        ],
    ];
    crate::shim::run_compiler(cc, &runs, work.path(), "the identity interposer")?;
    Ok(out)
}

/// The interposer of `id` as `(soname, bytes)`, built once per identity per process with
/// [`crate::shim::host_cc`].
///
/// # Errors
/// As [`build`].
pub fn interposer(id: &Identity) -> Result<(String, Vec<u8>)> {
    use std::collections::HashMap;
    use std::sync::{Mutex, OnceLock};
    type Built = HashMap<(u32, u32), Vec<u8>>;
    static CACHE: OnceLock<Mutex<Built>> = OnceLock::new();
    let cache = CACHE.get_or_init(|| Mutex::new(HashMap::new()));
    let key = (id.source, id.twin);
    if let Some(b) = cache.lock().ok().and_then(|c| c.get(&key).cloned()) {
        return Ok((id.soname(), b));
    }
    let dir = tempfile::tempdir().map_err(Error::temp_dir)?;
    let path = build(&crate::shim::host_cc(), id, dir.path())?;
    let bytes = std::fs::read(&path).map_err(|e| Error::io(path.display().to_string(), e))?;
    if let Ok(mut c) = cache.lock() {
        c.insert(key, bytes.clone());
    }
    Ok((id.soname(), bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_fit_the_driver_slot() {
        let id = Identity::of(&["compute_120"], "sm_80").unwrap();
        assert_eq!(id.soname(), "wp120080.so");
        assert!(id.soname().len() < DRIVER_SONAME.len());
        assert_eq!(cc_of("sm_90a"), Some(90));
        assert_eq!(cc_of("sm_100f"), Some(100));
        let mixed = Identity::of(&["compute_120", "compute_80"], "sm_80").unwrap();
        assert_eq!((mixed.source, mixed.mixed), (80, true));
        assert_eq!(Identity::of(&[], "sm_80"), None);
    }
}
