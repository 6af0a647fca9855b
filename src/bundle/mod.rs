//! The clang offload bundle: how HIP carries device code objects in a host binary.
//!
//! Uncompressed format (clang `ClangOffloadBundler.rst`; reference
//! `fatbin-and-registration.md` §3.3), all integers little-endian:
//!
//! | offset | size | field |
//! |---|---|---|
//! | 0 | 24 | `"__CLANG_OFFLOAD_BUNDLE__"` (no NUL) |
//! | 24 | u64 | number of entries |
//! | then, per entry | u64, u64, u64, bytes | offset from the bundle start, size, ID length, ID |
//! | then | | the code objects at their offsets |
//!
//! IDs are `<kind>-<triple>[-<target id>]`: `host-x86_64-unknown-linux-gnu` (first, empty)
//! and `hipv4-amdgcn-amd-amdhsa--gfx906`. Code objects are aligned to [`HIP_BUNDLE_ALIGN`]
//! (clang's `HIPCodeObjectAlign`). [`write()`] produces the same bytes as
//! `clang-offload-bundler -type=o -bundle-align=4096` for the same inputs (checked in the
//! tests against LLVM 14's tool). `__hipRegisterFatBinary` receives only a pointer, so the
//! runtime computes the size from the entries (offset + size, maximised).

use crate::error::{Error, ErrorKind, Result};

/// The bundle magic.
pub const MAGIC: &[u8; 24] = b"__CLANG_OFFLOAD_BUNDLE__";
/// Alignment of code objects in HIP bundles (bytes).
pub const HIP_BUNDLE_ALIGN: u64 = 4096;
/// ID of the (empty) host entry that HIP bundles start with.
pub const HOST_ID: &str = "host-x86_64-unknown-linux-gnu";

/// The bundle ID of a HIP code object for `arch` (e.g. `gfx906`, or a target ID such as
/// `gfx90a:sramecc+:xnack-`).
pub fn hip_id(arch: &str) -> String {
    format!("hipv4-amdgcn-amd-amdhsa--{arch}")
}

/// One entry of a bundle as read by [`read`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// The bundle entry ID.
    pub id: String,
    /// Offset of the code object from the bundle start.
    pub offset: u64,
    /// Size of the code object in bytes (0 for the host entry).
    pub size: u64,
}

fn align_up(v: u64, a: u64) -> u64 {
    v.div_ceil(a) * a
}

/// Write a bundle of `entries` (ID, bytes), in the given order, with code objects aligned to
/// `align` bytes. An empty entry takes the offset where the next object would go (as the
/// host entry does).
pub fn write(entries: &[(&str, &[u8])], align: u64) -> Vec<u8> {
    let header: u64 = 24
        + 8
        + entries
            .iter()
            .map(|(id, _)| 24 + id.len() as u64)
            .sum::<u64>();
    let mut offsets = Vec::with_capacity(entries.len());
    let mut pos = header;
    for (_, data) in entries {
        pos = align_up(pos, align);
        offsets.push(pos);
        pos += data.len() as u64;
    }
    let mut out = Vec::with_capacity(pos as usize);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&(entries.len() as u64).to_le_bytes());
    for ((id, data), off) in entries.iter().zip(&offsets) {
        out.extend_from_slice(&off.to_le_bytes());
        out.extend_from_slice(&(data.len() as u64).to_le_bytes());
        out.extend_from_slice(&(id.len() as u64).to_le_bytes());
        out.extend_from_slice(id.as_bytes());
    }
    for ((_, data), off) in entries.iter().zip(&offsets) {
        out.resize(*off as usize, 0);
        out.extend_from_slice(data);
    }
    out
}

/// A HIP bundle: the empty host entry, then one code object per (arch, bytes), with the
/// IDs of [`hip_id`].
pub fn write_hip(objects: &[(&str, &[u8])]) -> Vec<u8> {
    write_with_prefix("hipv4-amdgcn-amd-amdhsa--", objects)
}

/// A HIP bundle whose code-object IDs are `prefix` followed by the arch (a profile's
/// `bundle_entry_prefix`): the empty host entry first, then one entry per (arch, bytes).
pub fn write_with_prefix(prefix: &str, objects: &[(&str, &[u8])]) -> Vec<u8> {
    let ids: Vec<String> = objects
        .iter()
        .map(|(a, _)| format!("{prefix}{a}"))
        .collect();
    let mut entries: Vec<(&str, &[u8])> = vec![(HOST_ID, &[])];
    entries.extend(
        ids.iter()
            .zip(objects)
            .map(|(id, (_, d))| (id.as_str(), *d)),
    );
    write(&entries, HIP_BUNDLE_ALIGN)
}

/// Read the entry table of a bundle.
///
/// # Errors
/// [`ErrorKind::Input`] naming `file` and the offset for a wrong magic, a truncated table,
/// or an entry that lies outside `data`.
pub fn read(data: &[u8], file: &str) -> Result<Vec<Entry>> {
    let e = |off: usize, m: &str| Error::at(ErrorKind::Input, file, off as u64, m.to_string());
    if data.len() < 32 || &data[..24] != MAGIC {
        return Err(e(
            0,
            "not a clang offload bundle (missing __CLANG_OFFLOAD_BUNDLE__)",
        ));
    }
    let u64_at = |o: usize| u64::from_le_bytes(data[o..o + 8].try_into().unwrap());
    let n = u64_at(24);
    let mut pos = 32usize;
    let mut out = Vec::new();
    for _ in 0..n {
        if data.len() < pos + 24 {
            return Err(e(pos, "truncated bundle entry table"));
        }
        let (offset, size, idlen) = (u64_at(pos), u64_at(pos + 8), u64_at(pos + 16));
        pos += 24;
        let end = usize::try_from(idlen)
            .ok()
            .and_then(|l| pos.checked_add(l))
            .filter(|&z| z <= data.len());
        let Some(end) = end else {
            return Err(e(pos, "bundle entry ID runs past the end"));
        };
        let id = String::from_utf8_lossy(&data[pos..end]).into_owned();
        if offset
            .checked_add(size)
            .is_none_or(|z| z > data.len() as u64)
        {
            return Err(e(pos - 24, "bundle entry lies outside the bundle"));
        }
        pos = end;
        out.push(Entry { id, offset, size });
    }
    Ok(out)
}
