//! Deflate splicing: compress a rewritten member by re-using the input wheel's deflate
//! stream (RFC 1951) wherever the bytes did not change.
//!
//! A host rewrite changes a few regions of a `.so` (the dynamic sections near the start,
//! section headers and new sections at the end) and leaves the rest, a fatbin of hundreds of
//! MB, byte for byte. Deflating the whole file again costs seconds; copying the input's
//! compressed blocks for the unchanged ranges costs a `memcpy`.
//!
//! How (the technique of zlib's `examples/zran.c` and `gzjoin.c`):
//!
//! * [`spool_member`] inflates the member with zlib's `inflate(Z_BLOCK)`, which stops at
//!   every block boundary and reports in `data_type` how many bits of the last input byte the
//!   next block already uses. Each boundary is recorded as (bit position in the compressed
//!   stream, uncompressed offset): an [`Index`].
//! * [`deflate_member`] covers the new bytes with pieces. A *reused* piece is the original
//!   blocks from boundary `a` to boundary `b`; it decodes to the new bytes exactly when the
//!   new and old bytes agree on `[u_a - 32 KiB, u_b)` (the 32 KiB covers every back-reference,
//!   RFC 1951 §3.2.5). It must start on a byte-aligned boundary; where it ends mid-byte, the
//!   unused high bits are cleared and an empty stored block (3 header bits, padding,
//!   `00 00 FF FF`) brings the stream back to a byte boundary. *Fresh* pieces are deflated
//!   with a sync flush (which ends in the same empty stored block); the stream ends with the
//!   original final block when the last piece reaches it, else with an empty final block.
//!
//! The result is a valid raw deflate stream of the new bytes; its CRC-32 and SHA-256 are
//! computed from the new bytes. Deterministic: the same inputs give the same stream.

use crate::error::{Error, ErrorKind, Result};
use crate::wheel::repack::Precompressed;
use base64::Engine;
use sha2::{Digest, Sha256};
use std::io::Write;
use std::path::Path;

/// The deflate window: the farthest a back-reference reaches (RFC 1951 §3.2.5).
pub const WINDOW: u64 = 32 * 1024;

/// Smallest run worth re-using; shorter runs are deflated again.
pub const MIN_REUSE: u64 = 256 * 1024;

/// Block boundaries of one member's deflate stream.
#[derive(Debug, Clone)]
pub struct Index {
    /// The member's compressed bytes (a copy of the raw stream).
    pub compressed: Vec<u8>,
    /// (bit position of the block start in `compressed`, uncompressed offset), ascending.
    pub boundaries: Vec<(u64, u64)>,
    /// Uncompressed size.
    pub size: u64,
}

/// A deflate stream made of whole pieces, written bit-exactly.
struct Out {
    bytes: Vec<u8>,
}

impl Out {
    /// Append original bits `[from_bit, to_bit)` where `from_bit` is byte-aligned, then bring
    /// the stream to a byte boundary with an empty stored block when `to_bit` is not aligned.
    fn copy_reused(&mut self, src: &[u8], from_bit: u64, to_bit: u64, stream_end: bool) {
        debug_assert_eq!(from_bit % 8, 0);
        let from = (from_bit / 8) as usize;
        if stream_end {
            self.bytes.extend_from_slice(&src[from..]);
            return;
        }
        let whole = (to_bit / 8) as usize;
        let used = (to_bit % 8) as u32; // bits of the last byte that belong to the piece
        self.bytes.extend_from_slice(&src[from..whole]);
        if used > 0 {
            // The next (empty stored) block's 3 header bits are 0: clear everything above
            // the piece's bits; they are the header and padding.
            let last = src[whole] & ((1u8 << used) - 1);
            self.bytes.push(last);
            if used + 3 > 8 {
                self.bytes.push(0); // the rest of the header, then padding
            }
            self.bytes.extend_from_slice(&[0, 0, 0xFF, 0xFF]);
        }
    }
}

fn deflate_piece(data: &[u8], level: u32, finish: bool, out: &mut Vec<u8>) {
    let mut c = flate2::Compress::new(flate2::Compression::new(level), false);
    let flush = if finish {
        flate2::FlushCompress::Finish
    } else {
        flate2::FlushCompress::Sync
    };
    let mut input = data;
    loop {
        if out.capacity() - out.len() < (1 << 20) {
            out.reserve(input.len() / 2 + (1 << 20));
        }
        let before_in = c.total_in();
        let status = c
            .compress_vec(input, out, flush)
            .expect("deflate of an in-memory buffer");
        input = &input[(c.total_in() - before_in) as usize..];
        // zlib: the flush is complete when input is used up and output space is left over
        // (Finish: when the stream end is reported).
        let done = if finish {
            status == flate2::Status::StreamEnd
        } else {
            input.is_empty() && out.capacity() > out.len()
        };
        if done {
            break;
        }
    }
}

/// Spool the member `name` of the wheel at `wheel` to an anonymous temporary file, map it,
/// and, for a deflated member, index its block boundaries.
///
/// # Errors
/// [`ErrorKind::Wheel`] (naming the wheel and the member's header offset) for corrupt
/// compressed data, a CRC-32 mismatch, or data that does not expand to the declared size.
///
/// Returns the mapped bytes, their SHA-256 (computed while inflating, so the bytes are read
/// once) and the index.
pub fn spool_member(wheel: &Path, name: &str) -> Result<(memmap2::Mmap, [u8; 32], Option<Index>)> {
    spool(&crate::wheel::WheelReader::open(wheel)?, name)
}

/// [`spool_member`] from a wheel already opened (a clone of the reader: the mapped file
/// and the parsed central directory are shared, so members spool in parallel without
/// opening the wheel again).
///
/// # Errors
/// As [`spool_member`].
pub fn spool(
    reader: &crate::wheel::WheelReader,
    name: &str,
) -> Result<(memmap2::Mmap, [u8; 32], Option<Index>)> {
    let display = reader.display().to_string();
    let mut zin = reader.archive().clone();
    let (method, at, data_start, csize, size, crc) = {
        let m = zin
            .by_name(name)
            .map_err(|e| Error::new(ErrorKind::Wheel, &display, format!("member {name}: {e}")))?;
        (
            m.compression(),
            m.header_start(),
            m.data_start(),
            m.compressed_size(),
            m.size(),
            m.crc32(),
        )
    };
    let werr = |m: String| {
        Error::at(
            ErrorKind::Wheel,
            &display,
            at,
            format!("member {name}: {m}"),
        )
    };
    if method != zip::CompressionMethod::Deflated {
        let mut r = reader.clone();
        let m = r.shared_object(name)?;
        let digest = Sha256::digest(&m.map[..]).into();
        return Ok((m.map, digest, None));
    }
    if size > super::archive::MAX_MEMBER_SIZE {
        return Err(werr(format!("declares {size} bytes, over the limit")));
    }
    let range = data_start
        .and_then(|a| Some(usize::try_from(a).ok()?..usize::try_from(a.checked_add(csize)?).ok()?));
    let compressed = range
        .and_then(|r| reader.bytes().get(r))
        .ok_or_else(|| werr("compressed data extends past the end of the wheel".into()))?
        .to_vec();

    let mut tmp = tempfile::tempfile().map_err(Error::temp_dir)?;
    let mut boundaries = Vec::new();
    let mut out_total = 0u64;
    let mut crc_now = 0u32;
    let mut sha = Sha256::new();
    {
        let mut w = std::io::BufWriter::with_capacity(1 << 20, &mut tmp);
        let mut buf = vec![0u8; 1 << 20];
        let mut strm = libz_rs_sys::z_stream::default();
        // SAFETY: `strm` is a default-initialised z_stream with the Rust allocator; the
        // version and size arguments are the library's own.
        let rc = unsafe {
            libz_rs_sys::inflateInit2_(
                &mut strm,
                -15,
                libz_rs_sys::zlibVersion(),
                std::mem::size_of::<libz_rs_sys::z_stream>() as i32,
            )
        };
        if rc != libz_rs_sys::Z_OK {
            return Err(werr(format!("inflateInit2 failed ({rc})")));
        }
        let mut fed = 0usize;
        let result = loop {
            if strm.avail_in == 0 && fed < compressed.len() {
                let n = (compressed.len() - fed).min(1 << 30);
                strm.next_in = compressed[fed..].as_ptr();
                strm.avail_in = n as u32;
                fed += n;
            }
            strm.next_out = buf.as_mut_ptr();
            strm.avail_out = buf.len() as u32;
            // SAFETY: next_in/avail_in describe a live slice of `compressed`, next_out/avail_out
            // the live `buf`.
            let rc = unsafe { libz_rs_sys::inflate(&mut strm, libz_rs_sys::Z_BLOCK) };
            let produced = buf.len() - strm.avail_out as usize;
            if produced > 0 {
                out_total += produced as u64;
                if out_total > size {
                    break Err(werr(format!("expands past its declared {size} bytes")));
                }
                crc_now = zlib_rs::crc32::crc32(crc_now, &buf[..produced]);
                sha.update(&buf[..produced]);
                if let Err(e) = w.write_all(&buf[..produced]) {
                    break Err(Error::temp_dir(e));
                }
            }
            if rc == libz_rs_sys::Z_STREAM_END {
                break Ok(());
            }
            if rc != libz_rs_sys::Z_OK && rc != libz_rs_sys::Z_BUF_ERROR {
                break Err(werr(format!("corrupt deflate data (zlib error {rc})")));
            }
            if rc == libz_rs_sys::Z_BUF_ERROR && strm.avail_in == 0 && fed == compressed.len() {
                break Err(werr("deflate data ends early".into()));
            }
            let dt = strm.data_type;
            if dt & 128 != 0 && dt & 64 == 0 {
                let bits = (dt & 7) as u64;
                // c_ulong: 32 bits on some targets.
                #[allow(clippy::unnecessary_cast)]
                let (total_in, total_out) = (strm.total_in as u64, strm.total_out as u64);
                let pos = total_in * 8 - bits;
                if boundaries.last().map(|b: &(u64, u64)| b.0) != Some(pos) {
                    boundaries.push((pos, total_out));
                }
            }
        };
        // SAFETY: initialised above.
        unsafe { libz_rs_sys::inflateEnd(&mut strm) };
        result?;
        w.flush().map_err(Error::temp_dir)?;
    }
    if out_total != size {
        return Err(werr(format!(
            "expands to {out_total} bytes but declares {size}"
        )));
    }
    if crc_now != crc {
        return Err(werr(format!(
            "CRC-32 {crc_now:08x} of the data differs from the declared {crc:08x}"
        )));
    }
    // SAFETY: the file is an unlinked temporary that nothing else can modify.
    let map = unsafe { memmap2::Mmap::map(&tmp) }.map_err(Error::temp_dir)?;
    Ok((
        map,
        sha.finalize().into(),
        Some(Index {
            compressed,
            boundaries,
            size,
        }),
    ))
}

/// Ranges `[start, end)` of `new` that differ from `old` (and the part past `old`'s end).
fn diff_ranges(old: &[u8], new: &[u8]) -> Vec<(u64, u64)> {
    const CHUNK: usize = 4096;
    let common = old.len().min(new.len());
    let mut out: Vec<(u64, u64)> = Vec::new();
    let mut i = 0;
    while i < common {
        let e = (i + CHUNK).min(common);
        if old[i..e] != new[i..e] {
            match out.last_mut() {
                Some(l) if l.1 == i as u64 => l.1 = e as u64,
                _ => out.push((i as u64, e as u64)),
            }
        }
        i = e;
    }
    if new.len() > common {
        match out.last_mut() {
            Some(l) if l.1 == common as u64 => l.1 = new.len() as u64,
            _ => out.push((common as u64, new.len() as u64)),
        }
    }
    out
}

/// A [`Precompressed`] with nothing in it (placeholder for members written otherwise).
pub fn empty() -> Precompressed {
    Precompressed {
        deflated: vec![3, 0],
        crc32: 0,
        size: 0,
        record_hash: format!(
            "sha256={}",
            base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(Sha256::digest(b""))
        ),
    }
}

/// Deflate `new`, re-using the original stream described by `index` (whose data is `old`)
/// where possible; without an index, deflate it all.
pub fn deflate_member(old: &[u8], new: &[u8], index: Option<&Index>) -> Precompressed {
    let (digest, (deflated, crc32)) = rayon::join(
        || Sha256::digest(new),
        || {
            (
                splice_stream(old, new, index),
                zlib_rs::crc32::crc32(0, new),
            )
        },
    );
    Precompressed {
        deflated,
        crc32,
        size: new.len() as u64,
        record_hash: format!(
            "sha256={}",
            base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(digest)
        ),
    }
}

fn splice_stream(old: &[u8], new: &[u8], index: Option<&Index>) -> Vec<u8> {
    let mut out = Out {
        bytes: Vec::with_capacity(new.len() / 3),
    };
    let level = 6;
    let mut pos = 0u64; // new bytes covered so far
    let mut ended = false;
    if let Some(ix) = index.filter(|ix| ix.size == old.len() as u64) {
        let diffs = diff_ranges(old, new);
        let limit = (old.len().min(new.len())) as u64;
        let total_bits = ix.compressed.len() as u64 * 8;
        // Candidate ends: every boundary, plus the stream's end when the sizes agree.
        let mut ends: Vec<(u64, u64, bool)> =
            ix.boundaries.iter().map(|&(b, u)| (b, u, false)).collect();
        if new.len() == old.len() {
            ends.push((total_bits, old.len() as u64, true));
        }
        let mut d = 0usize; // first diff that may matter
        let mut si = 0usize;
        while si < ix.boundaries.len() {
            let (bit_a, u_a) = ix.boundaries[si];
            si += 1;
            if bit_a % 8 != 0 || u_a < pos {
                continue;
            }
            let lo = u_a.saturating_sub(WINDOW);
            while d < diffs.len() && diffs[d].1 <= lo {
                d += 1;
            }
            let clean_to = diffs.get(d).map_or(limit, |x| x.0).min(limit);
            if clean_to <= u_a || clean_to - u_a < MIN_REUSE {
                continue;
            }
            // The last end boundary at or before clean_to.
            let k = ends.partition_point(|e| e.1 <= clean_to);
            let Some(&(bit_b, u_b, is_end)) = ends[..k].last() else {
                continue;
            };
            if u_b <= u_a || u_b - u_a < MIN_REUSE {
                continue;
            }
            deflate_piece(
                &new[pos as usize..u_a as usize],
                level,
                false,
                &mut out.bytes,
            );
            out.copy_reused(&ix.compressed, bit_a, bit_b, is_end);
            pos = u_b;
            if is_end {
                ended = true;
                break;
            }
            si = ix.boundaries.partition_point(|b| b.0 < bit_b);
        }
    }
    if !ended {
        deflate_piece(&new[pos as usize..], level, true, &mut out.bytes);
    }
    out.bytes
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    fn inflate(d: &[u8]) -> Vec<u8> {
        let mut v = Vec::new();
        flate2::read::DeflateDecoder::new(d)
            .read_to_end(&mut v)
            .expect("valid deflate stream");
        v
    }

    /// Pseudo-random but compressible bytes.
    fn data(n: usize, seed: u32) -> Vec<u8> {
        let mut x = seed;
        (0..n)
            .map(|i| {
                x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
                if i % 7 < 3 {
                    (x >> 24) as u8
                } else {
                    (i % 251) as u8
                }
            })
            .collect()
    }

    fn index_of(old: &[u8]) -> Index {
        // Build a one-member wheel-like zip and spool it.
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("x.zip");
        let mut z = zip::ZipWriter::new(std::fs::File::create(&p).unwrap());
        z.start_file(
            "m.so",
            zip::write::SimpleFileOptions::default()
                .compression_method(zip::CompressionMethod::Deflated),
        )
        .unwrap();
        z.write_all(old).unwrap();
        z.finish().unwrap();
        let (map, digest, ix) = spool_member(&p, "m.so").unwrap();
        assert_eq!(&map[..], old);
        assert_eq!(digest[..], Sha256::digest(old)[..]);
        ix.unwrap()
    }

    #[test]
    fn spliced_streams_inflate_to_the_new_bytes() {
        let old = data(3 << 20, 7);
        let ix = index_of(&old);
        assert!(ix.boundaries.len() > 8, "{}", ix.boundaries.len());
        // Same size, edits at the start, middle and end.
        let mut new = old.clone();
        for at in [100usize, 1 << 20, (3 << 20) - 10] {
            new[at] ^= 0x5a;
        }
        let p = deflate_member(&old, &new, Some(&ix));
        assert_eq!(inflate(&p.deflated), new);
        assert_eq!(p.crc32, zlib_rs::crc32::crc32(0, &new));
        // Re-use happened: far smaller than deflating everything again would take to build,
        // and the output shares long runs with the input stream.
        assert!(p.deflated.len() < ix.compressed.len() + 4096);
        // Grown at the end (a new section), and identical.
        let mut grown = old.clone();
        grown.extend_from_slice(&data(70_000, 9));
        assert_eq!(
            inflate(&deflate_member(&old, &grown, Some(&ix)).deflated),
            grown
        );
        assert_eq!(
            inflate(&deflate_member(&old, &old, Some(&ix)).deflated),
            old
        );
        // Shorter.
        let short = &old[..old.len() - 5000];
        assert_eq!(
            inflate(&deflate_member(&old, short, Some(&ix)).deflated),
            short
        );
        // Deterministic.
        assert_eq!(
            deflate_member(&old, &new, Some(&ix)).deflated,
            deflate_member(&old, &new, Some(&ix)).deflated
        );
    }
}
