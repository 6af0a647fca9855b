//! Writing CUDA fatbin containers that hold PTX entries (the `cuda` twin target's device
//! code, see [`crate::twin`]).
//!
//! Layout (reference `fatbin-and-registration.md` §1.2–§1.6, field offsets in [`super::layout`]),
//! the same bytes nvcc 13.5 writes for an uncompressed PTX entry (`--no-compress`; checked in
//! the tests against `fixtures/cuda/nocompress.so`):
//!
//! * container header (16 bytes): magic `0xBA55ED50`, version 1, header size 0x10, u64
//!   fatSize = bytes of entries that follow;
//! * per PTX entry a 0x50-byte header: kind 1, format version 0x0101, header size 0x50,
//!   padded size `align8(len + 1)`, compressed size 0, options-descriptor offset 0x40, code
//!   version = the PTX ISA version of the text's `.version`, arch = the number of its
//!   `.target sm_NN`, flags 0x11 (64-bit, Linux; `a`/`f` targets add 0x100000/0x200000;
//!   `.address_size 32` clears bit 0), uncompressed size 0; at +0x40 the options descriptor
//!   `{0x48, 0}` (no ptxas options) and 8 zero bytes;
//! * the PTX text, NUL-terminated, zero-padded to the padded size.

use super::layout::*;
use crate::error::{Error, ErrorKind, Result};

/// Header size of a PTX entry without identifier or options (§1.5).
pub const PTX_ENTRY_HEADER_SIZE: u32 = 0x50;

/// What the header of a PTX entry records, read from the PTX text itself.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PtxInfo {
    /// `.version major.minor` (PTX ISA version).
    pub version: (u16, u16),
    /// The SM number of `.target sm_NN[a|f]`.
    pub arch: u32,
    /// The arch suffix: `""`, `"a"` or `"f"`.
    pub suffix: String,
    /// `.address_size` (64 when absent).
    pub address_size: u32,
}

/// Read `.version`, `.target` and `.address_size` from the module header of `ptx` (the
/// directives before the first other one, comments skipped; PTX ISA §11.1).
///
/// # Errors
/// [`ErrorKind::Fatbin`] naming `file` when `.version` or a `.target sm_NN` is missing or
/// malformed, or the text holds a NUL byte (the entry is NUL-terminated).
pub fn ptx_info(ptx: &str, file: &str) -> Result<PtxInfo> {
    let e = |m: String| Error::new(ErrorKind::Fatbin, file, m);
    if let Some(i) = ptx.find('\0') {
        return Err(e(format!(
            "PTX text holds a NUL byte at offset {i}; a fatbin PTX entry is NUL-terminated"
        )));
    }
    let mut version = None;
    let mut target = None;
    let mut address_size = 64;
    let mut in_block_comment = false;
    for raw in ptx.lines() {
        let mut line = raw.trim();
        if in_block_comment {
            match line.find("*/") {
                Some(i) => {
                    line = line[i + 2..].trim();
                    in_block_comment = false;
                }
                None => continue,
            }
        }
        if let Some(i) = line.find("//") {
            line = line[..i].trim();
        }
        if let Some(i) = line.find("/*") {
            in_block_comment = !line[i..].contains("*/");
            line = line[..i].trim();
        }
        if line.is_empty() {
            continue;
        }
        let mut words = line.split_whitespace();
        match words.next() {
            Some(".version") => {
                let v = words.next().unwrap_or("");
                let parsed = v
                    .split_once('.')
                    .and_then(|(a, b)| Some((a.parse::<u16>().ok()?, b.parse::<u16>().ok()?)));
                version = Some(parsed.ok_or_else(|| e(format!("malformed `.version {v}`")))?);
            }
            Some(".target") => {
                let rest: String = words.collect::<Vec<_>>().join(" ");
                let first = rest.split(',').next().unwrap_or("").trim().to_string();
                let num = first.strip_prefix("sm_").ok_or_else(|| {
                    e(format!(
                        "`.target {rest}` does not name an sm_NN architecture"
                    ))
                })?;
                let digits: String = num.chars().take_while(char::is_ascii_digit).collect();
                let suffix = num[digits.len()..].to_string();
                let arch = digits
                    .parse::<u32>()
                    .ok()
                    .filter(|_| matches!(suffix.as_str(), "" | "a" | "f"))
                    .ok_or_else(|| e(format!("malformed `.target {rest}`")))?;
                target = Some((arch, suffix));
            }
            Some(".address_size") => {
                address_size = words
                    .next()
                    .and_then(|w| w.parse().ok())
                    .filter(|a| *a == 32 || *a == 64)
                    .ok_or_else(|| e("malformed `.address_size`".into()))?;
            }
            _ => break,
        }
    }
    let version = version.ok_or_else(|| e("PTX text has no `.version` directive".into()))?;
    let (arch, suffix) = target.ok_or_else(|| e("PTX text has no `.target sm_NN`".into()))?;
    Ok(PtxInfo {
        version,
        arch,
        suffix,
        address_size,
    })
}

/// One uncompressed PTX entry (header and padded payload) for `ptx`.
///
/// # Errors
/// As [`ptx_info`].
pub fn ptx_entry(ptx: &str, file: &str) -> Result<Vec<u8>> {
    let info = ptx_info(ptx, file)?;
    let padded = (ptx.len() as u64 + 1).div_ceil(8) * 8;
    let mut flags = FLAG_HOST_LINUX;
    if info.address_size == 64 {
        flags |= FLAG_64BIT;
    }
    flags |= match info.suffix.as_str() {
        "a" => FLAG_ARCH_SPECIFIC,
        "f" => FLAG_FAMILY_SPECIFIC,
        _ => 0,
    };
    let mut h = vec![0u8; PTX_ENTRY_HEADER_SIZE as usize];
    h[0x00..0x02].copy_from_slice(&1u16.to_le_bytes()); // kind: PTX
    h[0x02..0x04].copy_from_slice(&0x0101u16.to_le_bytes());
    h[0x04..0x08].copy_from_slice(&PTX_ENTRY_HEADER_SIZE.to_le_bytes());
    h[0x08..0x10].copy_from_slice(&padded.to_le_bytes());
    h[0x14..0x18].copy_from_slice(&0x40u32.to_le_bytes()); // options descriptor
    h[0x18..0x1a].copy_from_slice(&info.version.1.to_le_bytes());
    h[0x1a..0x1c].copy_from_slice(&info.version.0.to_le_bytes());
    h[0x1c..0x20].copy_from_slice(&info.arch.to_le_bytes());
    h[0x28..0x30].copy_from_slice(&flags.to_le_bytes());
    h[0x40..0x44].copy_from_slice(&0x48u32.to_le_bytes()); // options text offset, length 0
    let mut out = h;
    out.extend_from_slice(ptx.as_bytes());
    out.resize(PTX_ENTRY_HEADER_SIZE as usize + padded as usize, 0);
    Ok(out)
}

/// A container (16-byte header and the entries, each already 8-aligned) of `entries`.
pub fn container(entries: &[Vec<u8>]) -> Vec<u8> {
    let fat_size: u64 = entries.iter().map(|e| e.len() as u64).sum();
    let mut out = Vec::with_capacity(CONTAINER_HEADER_SIZE + fat_size as usize);
    out.extend_from_slice(&FATBIN_MAGIC.to_le_bytes());
    out.extend_from_slice(&1u16.to_le_bytes());
    out.extend_from_slice(&(CONTAINER_HEADER_SIZE as u16).to_le_bytes());
    out.extend_from_slice(&fat_size.to_le_bytes());
    for e in entries {
        out.extend_from_slice(e);
    }
    out
}

/// A container holding one uncompressed PTX entry per text, in order.
///
/// # Errors
/// As [`ptx_info`], for the first text that fails.
pub fn ptx_container(ptx: &[&str], file: &str) -> Result<Vec<u8>> {
    let entries = ptx
        .iter()
        .map(|p| ptx_entry(p, file))
        .collect::<Result<Vec<_>>>()?;
    Ok(container(&entries))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_directives_are_read_past_comments() {
        let i = ptx_info(
            "//\n// Generated by LLVM NVPTX Back-End\n/* x\n y */\n.version 7.0\n.target sm_90a\n.address_size 64\n.visible .entry k()\n{ ret; }\n",
            "t",
        )
        .unwrap();
        assert_eq!(i.version, (7, 0));
        assert_eq!((i.arch, i.suffix.as_str()), (90, "a"));
        assert!(ptx_info(".version 7.0\n.target compute_80\n", "t").is_err());
        assert!(ptx_info(".target sm_80\n", "t").is_err());
        assert!(ptx_info(".version 7.0\n.target sm_80\n\0", "t").is_err());
    }

    #[test]
    fn entry_round_trips_through_the_parser() {
        let ptx = ".version 8.5\n.target sm_80\n.address_size 64\n";
        let c = ptx_container(&[ptx], "t").unwrap();
        let parsed = crate::fatbin::parse_section(&c, 0, "t").unwrap();
        assert_eq!(parsed.len(), 1);
        let e = &parsed[0].entries[0];
        assert_eq!(e.arch_name(), "compute_80");
        assert_eq!(e.code_version(), "8.5");
        assert_eq!(e.header.flags, 0x11);
        assert_eq!(&*e.ptx_bytes().unwrap(), ptx.as_bytes());
    }
}
