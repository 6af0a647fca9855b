//! Decompression of fatbin entry payloads, with the declared sizes checked before anything
//! is allocated.
//!
//! * LZ4 (flag 0x2000): one raw LZ4 block (no frame) of `compressed_size` bytes that must
//!   expand to exactly `uncompressed_size` bytes (reference §1.4).
//! * Zstandard (flag 0x8000): one zstd frame; when the frame header records a content size
//!   it must equal `uncompressed_size`, and the output must have exactly that length.
//!
//! A declared size is "absurd" when it exceeds [`MAX_UNCOMPRESSED`] or the format's
//! maximum expansion of the compressed bytes ([`LZ4_MAX_RATIO`], [`ZSTD_MAX_RATIO`]); such an
//! entry is refused before any buffer is allocated.

use super::layout::{FLAG_COMPRESSED_LZ4, FLAG_COMPRESSED_ZSTD};

/// Largest uncompressed payload accepted: 4 GiB (the largest cubin seen is 12 MB).
pub const MAX_UNCOMPRESSED: u64 = 4 << 30;
/// LZ4 block format cannot expand by more than 255x (a match token encodes at most 255
/// extra length bytes per input byte); a little slack is added for tiny inputs.
pub const LZ4_MAX_RATIO: u64 = 255;
/// Expansion limit for zstd payloads. Real PTX compresses 5–20x; 4096x leaves room for
/// zero-filled sections while refusing decompression bombs.
pub const ZSTD_MAX_RATIO: u64 = 4096;

/// How an entry payload is compressed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Compression {
    /// Stored as is.
    None,
    /// Raw LZ4 block (flag 0x2000).
    Lz4,
    /// Zstandard frame (flag 0x8000).
    Zstd,
}

impl Compression {
    /// Decode from the entry flags word. If both bits were set, zstd wins (never seen).
    pub fn from_flags(flags: u64) -> Compression {
        if flags & FLAG_COMPRESSED_ZSTD != 0 {
            Compression::Zstd
        } else if flags & FLAG_COMPRESSED_LZ4 != 0 {
            Compression::Lz4
        } else {
            Compression::None
        }
    }

    /// Display name: `none`, `lz4`, `zstd`.
    pub fn label(&self) -> &'static str {
        match self {
            Compression::None => "none",
            Compression::Lz4 => "lz4",
            Compression::Zstd => "zstd",
        }
    }
}

/// Decompress `data` (exactly the compressed bytes) that declares `declared` output bytes.
///
/// # Errors
/// A message (without file or offset; the caller adds them) when the declared size is
/// absurd, the data is corrupt, or the output length disagrees with `declared`.
pub fn decompress(c: Compression, data: &[u8], declared: u64) -> Result<Vec<u8>, String> {
    let csize = data.len() as u64;
    if declared == 0 {
        return Err("compressed payload declares an uncompressed size of 0".into());
    }
    let ratio = match c {
        Compression::None => return Ok(data.to_vec()),
        Compression::Lz4 => LZ4_MAX_RATIO,
        Compression::Zstd => ZSTD_MAX_RATIO,
    };
    if declared > MAX_UNCOMPRESSED || declared > csize.saturating_mul(ratio).saturating_add(64) {
        return Err(format!(
            "declared uncompressed size {declared} is absurd for {csize} bytes of {} data (limit {}x, at most {} bytes)",
            c.label(),
            ratio,
            MAX_UNCOMPRESSED
        ));
    }
    let n = declared as usize;
    match c {
        Compression::Lz4 => {
            let mut out = vec![0u8; n];
            let got = lz4_flex::block::decompress_into(data, &mut out)
                .map_err(|e| format!("corrupt LZ4 payload ({csize} bytes, declared {declared} uncompressed): {e}"))?;
            if got != n {
                return Err(format!("LZ4 payload expands to {got} bytes, but the entry declares {declared}"));
            }
            Ok(out)
        }
        Compression::Zstd => {
            match zstd::zstd_safe::get_frame_content_size(data) {
                Ok(Some(fcs)) if fcs != declared => {
                    return Err(format!(
                        "zstd frame records a content size of {fcs} bytes, but the entry declares {declared}"
                    ));
                }
                Err(_) => return Err(format!("corrupt zstd payload: no valid frame header in {csize} bytes")),
                _ => {}
            }
            let mut out = Vec::with_capacity(n);
            let mut dec = zstd::bulk::Decompressor::new().map_err(|e| format!("zstd: {e}"))?;
            let got = dec
                .decompress_to_buffer(data, &mut out)
                .map_err(|e| format!("corrupt zstd payload ({csize} bytes, declared {declared} uncompressed): {e}"))?;
            if got != n {
                return Err(format!("zstd payload expands to {got} bytes, but the entry declares {declared}"));
            }
            Ok(out)
        }
        Compression::None => unreachable!(),
    }
}
