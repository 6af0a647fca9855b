//! wheelport's CUDA driver-API layer for HIP targets (`shims/hip/wheelport_driver.c`,
//! docs/driver-layer.md): a `libcuda.so.1` implemented on HIP, for the code that reaches the
//! GPU through the driver API (a statically linked CUDA runtime, JAX, Triton launchers).
//!
//! This module holds what the conversion needs of it: the C source, its build (the same
//! [`super::recipe`] as the shim, so the library binds to the target runtime named in its
//! DT_NEEDED), its file name for an identity ([`layer_soname`]), the table of entry points it
//! serves ([`served`], `shims/hip/tables/driver_layer.tsv`) and the byte layout of the module
//! images its `cuModuleLoadData` / `cuLibraryLoadData` accept ([`image`]).

use super::{recipe, tables};
use crate::error::{Error, Result};
use std::path::{Path, PathBuf};

/// The C source of the driver-API layer.
pub const DRIVER_C: &str = include_str!("../../shims/hip/wheelport_driver.c");

/// File name of the layer's C source in the build's work directory.
const SOURCE: &str = "wheelport_driver.c";

/// One entry point the layer serves through `cuGetProcAddress`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Served {
    /// The CUDA driver name as requested (`cuMemAlloc`).
    pub name: &'static str,
    /// The first CUDA version (`1000 * major + 10 * minor`) with this prototype.
    pub first: u32,
    /// The CUDA version that changed the prototype next; 0 when none has.
    pub next: u32,
    /// The layer's function (`wpdrv_cuMemAlloc`).
    pub symbol: &'static str,
}

/// Every row of `driver_layer.tsv`, in table order (sorted by name, then version).
pub fn served() -> Vec<Served> {
    tables::rows(tables::DRIVER_LAYER_TSV)
        .filter(|r| r.len() >= 4)
        .map(|r| Served {
            name: r[0],
            first: r[1].parse().unwrap_or(0),
            next: r[2].parse().unwrap_or(0),
            symbol: r[3],
        })
        .collect()
}

/// The layer's file name and soname for the identity of PTX target `source_cc` (compute
/// capability × 10, `80` for `compute_80`): `wp080hip.so`, 11 bytes, so that it fits where a
/// static runtime stores `libcuda.so.1`. The layer reads the identity back from this name.
pub fn layer_soname(source_cc: u32) -> String {
    format!("wp{source_cc:03}hip.so")
}

/// The tag after the fatbin container header that marks a driver image.
pub const IMAGE_TAG: &[u8; 8] = b"WPDRVIMG";

/// Size of a driver image's header: the 16-byte container header, the tag and four `u64`s.
pub const IMAGE_HEADER: usize = 56;

/// A driver image: what a re-pointed registration wrapper of a converted object points at,
/// and what the layer's module loaders accept.
///
/// Layout (little-endian): a CUDA fatbin container header (`0xBA55ED50`, version 1, header
/// size 16, `u64` size of what follows), then at +16 [`IMAGE_TAG`], +24 `u64` offset and +32
/// `u64` size of the clang offload `bundle` (empty for a module that was not translated), +40
/// `u64` offset and +48 `u64` size of the notes, the lines `kernel\treason\n` of the kernels in
/// `untranslated`; offsets are from the image start, the bundle 16-byte aligned.
pub fn image(bundle: &[u8], untranslated: &[(String, String)]) -> Vec<u8> {
    let bundle_off = IMAGE_HEADER.next_multiple_of(16);
    let mut notes = String::new();
    for (k, why) in untranslated {
        notes.push_str(k);
        notes.push('\t');
        notes.push_str(&why.replace(['\n', '\t'], " "));
        notes.push('\n');
    }
    let notes_off = (bundle_off + bundle.len()).next_multiple_of(8);
    let total = notes_off + notes.len();
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(&crate::fatbin::layout::FATBIN_MAGIC.to_le_bytes());
    out.extend_from_slice(&1u16.to_le_bytes());
    out.extend_from_slice(&16u16.to_le_bytes());
    out.extend_from_slice(&((total - 16) as u64).to_le_bytes());
    out.extend_from_slice(IMAGE_TAG);
    for v in [bundle_off, bundle.len(), notes_off, notes.len()] {
        out.extend_from_slice(&(v as u64).to_le_bytes());
    }
    out.resize(bundle_off, 0);
    out.extend_from_slice(bundle);
    out.resize(notes_off, 0);
    out.extend_from_slice(notes.as_bytes());
    out
}

/// Build the layer as `out_dir/<name>` with the C compiler `cc`, depending on
/// `runtime_soname` (`libamdhip64.so.6`), by the shim's [`recipe`] (glibc floor 2.17, a stub
/// runtime for the DT_NEEDED entry). `name` is its file name and soname, normally
/// [`layer_soname`].
///
/// # Errors
/// [`crate::error::ErrorKind::Io`] when the compiler cannot be run or fails (its stderr is in
/// the message).
pub fn build(cc: &Path, runtime_soname: &str, name: &str, out_dir: &Path) -> Result<PathBuf> {
    let work = tempfile::tempdir().map_err(Error::temp_dir)?;
    let header = tables::c_header();
    let files = [
        (SOURCE, DRIVER_C),
        (recipe::TABLES_HEADER, header.as_str()),
        (recipe::FLOOR_HEADER, recipe::GLIBC_FLOOR_H),
        (recipe::STUB_SOURCE, recipe::STUB_C),
    ];
    for (file, text) in files {
        let p = work.path().join(file);
        std::fs::write(&p, text).map_err(|e| Error::io(p.display().to_string(), e))?;
    }
    let out = std::path::absolute(out_dir.join(name))
        .map_err(|e| Error::io(out_dir.display().to_string(), e))?;
    let mut runs = recipe::compile_runs(runtime_soname, &out.display().to_string());
    for a in runs[1].iter_mut() {
        if a == recipe::SOURCE {
            *a = SOURCE.to_string();
        } else if a.starts_with("-Wl,-soname,") {
            *a = format!("-Wl,-soname,{name}");
        }
    }
    runs[1].push("-lpthread".into());
    super::run_compiler(cc, &runs, work.path(), "the driver-API layer")?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn image_layout() {
        let notes = vec![("k2".to_string(), "no PTX\tfor it".to_string())];
        let img = image(b"__CLANG_OFFLOAD_BUNDLE__xyz", &notes);
        let u64_at = |o: usize| u64::from_le_bytes(img[o..o + 8].try_into().unwrap());
        assert_eq!(&img[0..4], &[0x50, 0xed, 0x55, 0xba]);
        assert_eq!(u64_at(8) as usize, img.len() - 16);
        assert_eq!(&img[16..24], IMAGE_TAG);
        let (bo, bs, no, ns) = (u64_at(24), u64_at(32), u64_at(40), u64_at(48));
        assert_eq!((bo, bs), (64, 27));
        assert_eq!(
            &img[bo as usize..(bo + bs) as usize],
            b"__CLANG_OFFLOAD_BUNDLE__xyz"
        );
        assert_eq!(no % 8, 0);
        assert_eq!(
            &img[no as usize..(no + ns) as usize],
            b"k2\tno PTX for it\n"
        );
        assert_eq!(layer_soname(80), "wp080hip.so");
        assert!(layer_soname(120).len() < "libcuda.so.1".len());
    }

    #[test]
    fn served_rows_name_defined_functions() {
        let rows = served();
        assert!(rows.len() > 90, "{}", rows.len());
        for r in &rows {
            assert!(
                DRIVER_C.contains(&format!("CUresult {}(", r.symbol)),
                "{} is not defined in wheelport_driver.c",
                r.symbol
            );
            assert!(r.next == 0 || r.next > r.first, "{r:?}");
        }
    }
}
