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

/// Refuse a declared uncompressed size that is 0, over [`MAX_UNCOMPRESSED`], or more than the
/// format can expand `csize` compressed bytes to.
fn check_declared(c: Compression, csize: u64, declared: u64) -> Result<(), String> {
    let ratio = if c == Compression::Lz4 {
        LZ4_MAX_RATIO
    } else {
        ZSTD_MAX_RATIO
    };
    if declared == 0 {
        return Err("compressed payload declares an uncompressed size of 0".into());
    }
    if declared > MAX_UNCOMPRESSED || declared > csize.saturating_mul(ratio).saturating_add(64) {
        return Err(format!(
            "declared uncompressed size {declared} is absurd for {csize} bytes of {} data (limit {ratio}x, at most {MAX_UNCOMPRESSED} bytes)",
            c.label()
        ));
    }
    Ok(())
}

/// Decompress `data` (exactly the compressed bytes) that declares `declared` output bytes.
///
/// # Errors
/// A message (without file or offset; the caller adds them) when the declared size is
/// absurd, the data is corrupt, or the output length disagrees with `declared`.
pub fn decompress(c: Compression, data: &[u8], declared: u64) -> Result<Vec<u8>, String> {
    if c == Compression::None {
        return Ok(data.to_vec());
    }
    check_declared(c, data.len() as u64, declared)?;
    let csize = data.len() as u64;
    let n = declared as usize;
    match c {
        Compression::Lz4 => {
            let mut out = vec![0u8; n];
            let got = lz4_flex::block::decompress_into(data, &mut out).map_err(|e| {
                format!(
                    "corrupt LZ4 payload ({csize} bytes, declared {declared} uncompressed): {e}"
                )
            })?;
            if got != n {
                return Err(format!(
                    "LZ4 payload expands to {got} bytes, but the entry declares {declared}"
                ));
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
                Err(_) => {
                    return Err(format!(
                        "corrupt zstd payload: no valid frame header in {csize} bytes"
                    ))
                }
                _ => {}
            }
            let mut out = Vec::with_capacity(n);
            let mut dec = zstd::bulk::Decompressor::new().map_err(|e| format!("zstd: {e}"))?;
            let got = dec.decompress_to_buffer(data, &mut out).map_err(|e| {
                format!(
                    "corrupt zstd payload ({csize} bytes, declared {declared} uncompressed): {e}"
                )
            })?;
            if got != n {
                return Err(format!(
                    "zstd payload expands to {got} bytes, but the entry declares {declared}"
                ));
            }
            Ok(out)
        }
        Compression::None => unreachable!(),
    }
}

/// Size of the window that LZ4 back-references can reach (the largest offset is 65535).
const LZ4_WINDOW: usize = 64 << 10;
/// Bytes produced between two calls of the sink in [`stream`].
const STREAM_CHUNK: usize = 256 << 10;

/// Decompress `data` in bounded memory, handing the output to `sink(offset, bytes)` in
/// order, in chunks of at most 256 KiB. The same size checks as
/// [`decompress`] apply, and the total must equal `declared`. The sink returns false to stop
/// early (then the total is not checked).
///
/// This is for callers that need only parts of a large payload (a cubin's section headers
/// and symbol table): memory stays near 320 KB whatever the payload size. LZ4 blocks are
/// decoded by a windowed reader of the LZ4 block format (lz4_flex decodes a block only into
/// one buffer that holds the whole output); its output is checked against lz4_flex in the
/// tests. Zstandard uses the `zstd` crate's streaming decoder.
///
/// # Errors
/// A message (the caller adds the file and offset) for corrupt data or a size mismatch.
pub fn stream(
    c: Compression,
    data: &[u8],
    declared: u64,
    sink: &mut dyn FnMut(u64, &[u8]) -> bool,
) -> Result<(), String> {
    match c {
        Compression::None => {
            sink(0, data);
            Ok(())
        }
        Compression::Lz4 | Compression::Zstd => {
            let ratio = if c == Compression::Lz4 {
                LZ4_MAX_RATIO
            } else {
                ZSTD_MAX_RATIO
            };
            let csize = data.len() as u64;
            if declared == 0
                || declared > MAX_UNCOMPRESSED
                || declared > csize.saturating_mul(ratio).saturating_add(64)
            {
                return Err(format!(
                    "declared uncompressed size {declared} is absurd for {csize} bytes of {} data",
                    c.label()
                ));
            }
            let got = if c == Compression::Lz4 {
                lz4_stream(data, declared, sink)?
            } else {
                zstd_stream(data, declared, sink)?
            };
            let Some(got) = got else { return Ok(()) };
            if got != declared {
                return Err(format!(
                    "{} payload expands to {got} bytes, but the entry declares {declared}",
                    c.label()
                ));
            }
            Ok(())
        }
    }
}

fn zstd_stream(
    data: &[u8],
    declared: u64,
    sink: &mut dyn FnMut(u64, &[u8]) -> bool,
) -> Result<Option<u64>, String> {
    use std::io::Read;
    let mut dec = zstd::stream::read::Decoder::with_buffer(data)
        .map_err(|e| format!("corrupt zstd payload: {e}"))?;
    let mut buf = vec![0u8; STREAM_CHUNK];
    let mut total = 0u64;
    loop {
        let n = dec
            .read(&mut buf)
            .map_err(|e| format!("corrupt zstd payload: {e}"))?;
        if n == 0 {
            return Ok(Some(total));
        }
        if total + n as u64 > declared {
            return Err(format!(
                "zstd payload expands past the declared {declared} bytes"
            ));
        }
        if !sink(total, &buf[..n]) {
            return Ok(None);
        }
        total += n as u64;
    }
}

/// Windowed decoder of one LZ4 block (LZ4 Block Format Description: sequences of a token,
/// literals, a 2-byte little-endian offset and a match; the last sequence has no match).
fn lz4_stream(
    src: &[u8],
    declared: u64,
    sink: &mut dyn FnMut(u64, &[u8]) -> bool,
) -> Result<Option<u64>, String> {
    let corrupt = |at: usize, what: &str| format!("corrupt LZ4 payload at input byte {at}: {what}");
    let cap = STREAM_CHUNK + LZ4_WINDOW;
    let mut buf: Vec<u8> = Vec::with_capacity(cap);
    let mut base = 0u64; // output offset of buf[0]
    let mut emitted = 0usize; // bytes of buf already handed to the sink
    let mut i = 0usize;
    let read_len = |i: &mut usize, mut n: usize| -> Result<usize, String> {
        loop {
            let b = *src
                .get(*i)
                .ok_or_else(|| corrupt(*i, "length runs past the end of the input"))?;
            *i += 1;
            n += b as usize;
            if b != 255 {
                return Ok(n);
            }
        }
    };
    loop {
        let token = *src
            .get(i)
            .ok_or_else(|| corrupt(i, "input ends before the last sequence"))?;
        i += 1;
        let mut lit = (token >> 4) as usize;
        if lit == 15 {
            lit = read_len(&mut i, lit)?;
        }
        let lits = src
            .get(i..i + lit)
            .ok_or_else(|| corrupt(i, "literals run past the end of the input"))?;
        i += lit;
        let mut pending: &[u8] = lits;
        while !pending.is_empty() {
            let room = cap - buf.len();
            let take = room.min(pending.len());
            buf.extend_from_slice(&pending[..take]);
            pending = &pending[take..];
            if base + buf.len() as u64 > declared {
                return Err(format!(
                    "LZ4 payload expands past the declared {declared} bytes"
                ));
            }
            if buf.len() == cap && !slide(&mut buf, &mut base, &mut emitted, sink) {
                return Ok(None);
            }
        }
        if i == src.len() {
            break;
        }
        let off = src
            .get(i..i + 2)
            .ok_or_else(|| corrupt(i, "match offset runs past the end of the input"))?;
        let off = u16::from_le_bytes([off[0], off[1]]) as usize;
        let at = i;
        i += 2;
        let mut mlen = (token & 15) as usize;
        if mlen == 15 {
            mlen = read_len(&mut i, mlen)?;
        }
        mlen += 4;
        if off == 0 || off > buf.len() {
            return Err(corrupt(
                at,
                &format!("match offset {off} reaches before the start of the output"),
            ));
        }
        if base + (buf.len() + mlen) as u64 > declared {
            return Err(format!(
                "LZ4 payload expands past the declared {declared} bytes"
            ));
        }
        // Copy in non-overlapping pieces. The copied bytes repeat with period `off`, so the
        // source distance may double (staying a multiple of `off`) up to the window size.
        let mut dist = off;
        let mut left = mlen;
        while left > 0 {
            if buf.len() == cap && !slide(&mut buf, &mut base, &mut emitted, sink) {
                return Ok(None);
            }
            let n = left.min(dist).min(cap - buf.len());
            let start = buf.len() - dist;
            buf.extend_from_within(start..start + n);
            left -= n;
            // Doubling keeps the source inside the bytes already copied (or the `off`
            // bytes before them) only after a full copy of `dist` bytes.
            if n == dist && dist * 2 <= LZ4_WINDOW {
                dist *= 2;
            }
        }
    }
    if emitted < buf.len() && !sink(base + emitted as u64, &buf[emitted..]) {
        return Ok(None);
    }
    Ok(Some(base + buf.len() as u64))
}

/// Hand the not-yet-emitted bytes to the sink and keep only the last window as history.
/// Returns false when the sink asked to stop.
fn slide(
    buf: &mut Vec<u8>,
    base: &mut u64,
    emitted: &mut usize,
    sink: &mut dyn FnMut(u64, &[u8]) -> bool,
) -> bool {
    if *emitted < buf.len() && !sink(*base + *emitted as u64, &buf[*emitted..]) {
        return false;
    }
    let drop = buf.len() - LZ4_WINDOW;
    buf.drain(..drop);
    *base += drop as u64;
    *emitted = buf.len();
    true
}

/// Collect byte ranges of a payload while it streams by: see [`stream`].
#[derive(Debug, Default)]
pub struct RangeCapture {
    /// Wanted `(start, end)` ranges of the output.
    pub wanted: Vec<(u64, u64)>,
    /// The captured bytes of each wanted range (same index).
    pub got: Vec<Vec<u8>>,
}

impl RangeCapture {
    /// Ask for `[start, end)`; returns its index.
    pub fn want(&mut self, start: u64, end: u64) -> usize {
        self.wanted.push((start, end));
        self.got.push(Vec::new());
        self.wanted.len() - 1
    }

    /// Feed one chunk that starts at output offset `off`.
    pub fn feed(&mut self, off: u64, chunk: &[u8]) {
        let cend = off + chunk.len() as u64;
        for (k, &(s, e)) in self.wanted.iter().enumerate() {
            let a = s.max(off);
            let b = e.min(cend);
            if a < b {
                self.got[k].extend_from_slice(&chunk[(a - off) as usize..(b - off) as usize]);
            }
        }
    }

    /// True when every wanted range was captured completely.
    pub fn all_complete(&self) -> bool {
        (0..self.wanted.len()).all(|k| self.complete(k))
    }

    /// True when range `k` was captured completely.
    pub fn complete(&self, k: usize) -> bool {
        let (s, e) = self.wanted[k];
        self.got[k].len() as u64 == e - s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn collect(c: Compression, data: &[u8], declared: u64) -> Vec<u8> {
        let mut out = Vec::new();
        stream(c, data, declared, &mut |off, chunk| {
            assert_eq!(off as usize, out.len());
            out.extend_from_slice(chunk);
            true
        })
        .unwrap();
        out
    }

    /// Data with literals, short and long repeats and runs, like a cubin.
    fn sample(n: usize) -> Vec<u8> {
        let mut x = 0x9e3779b97f4a7c15u64;
        let mut v = Vec::with_capacity(n);
        while v.len() < n {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            match x % 4 {
                0 => v.extend_from_slice(&x.to_le_bytes()),
                1 => v.extend(std::iter::repeat_n(
                    (x >> 8) as u8,
                    (x >> 16) as usize % 300,
                )),
                _ => {
                    let back = ((x >> 20) as usize % 70_000).min(v.len());
                    let len = (x >> 40) as usize % 500;
                    let start = v.len() - back;
                    for i in 0..len.min(back) {
                        v.push(v[start + i]);
                    }
                }
            }
        }
        v.truncate(n);
        v
    }

    #[test]
    fn lz4_stream_equals_lz4_flex() {
        for n in [1, 15, 4096, 300_000, 1_500_000] {
            let data = sample(n);
            let packed = lz4_flex::block::compress(&data);
            let whole = decompress(Compression::Lz4, &packed, n as u64).unwrap();
            assert_eq!(whole, data);
            let got = collect(Compression::Lz4, &packed, n as u64);
            let first_diff = got.iter().zip(&data).position(|(a, b)| a != b);
            assert!(
                got.len() == data.len() && first_diff.is_none(),
                "n={n}: length {} vs {}, first difference at {first_diff:?}",
                got.len(),
                data.len()
            );
            assert!(stream(Compression::Lz4, &packed, n as u64 + 1, &mut |_, _| true).is_err());
        }
    }

    #[test]
    fn zstd_stream_equals_bulk() {
        let data = sample(700_000);
        let packed = zstd::bulk::compress(&data, 3).unwrap();
        assert_eq!(
            decompress(Compression::Zstd, &packed, data.len() as u64).unwrap(),
            data
        );
        assert!(
            collect(Compression::Zstd, &packed, data.len() as u64) == data,
            "zstd stream differs"
        );
        assert!(decompress(Compression::Zstd, &packed, data.len() as u64 - 1).is_err());
    }

    #[test]
    fn absurd_sizes_are_refused_before_allocation() {
        let e = decompress(Compression::Lz4, &[0u8; 10], 1 << 40).unwrap_err();
        assert!(e.contains("absurd"), "{e}");
        let e = decompress(Compression::Zstd, &[0u8; 10], 0).unwrap_err();
        assert!(e.contains("size of 0"), "{e}");
    }
}
