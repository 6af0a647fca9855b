//! Checks a wheel must pass before anything is converted (hostile or lying archives), and
//! the RECORD it carries.
//!
//! [`audit`] refuses, naming the wheel and the byte offset of the member's header:
//!
//! * member names that escape the installation directory (done by [`WheelReader::open`]);
//! * more than one top-level `.dist-info` folder (pip refuses those too);
//! * members whose local header and data overlap another's or the central directory (the
//!   overlapping-entry zip bomb; CPython's zipfile and Info-ZIP refuse it);
//! * two central-directory entries with the same name: the `zip` crate keeps only the last,
//!   an installer might keep the first, so the wheel means two different things
//!   (APPNOTE.TXT 4.3.12 has no rule for duplicates; we refuse);
//! * declared sizes that cannot be true: over [`MAX_MEMBER_SIZE`] each or
//!   [`MAX_TOTAL_SIZE`] together, a stored member whose sizes differ, or a deflated member
//!   that claims to expand more than deflate can (RFC 1951: a 258-byte match costs at
//!   least 1 bit, so at most 2064 bytes out per byte in; we allow 1032:1 as zlib's
//!   documented limit and refuse above it);
//! * a RECORD (PEP 376/627: CSV of `path,hash,size`) row that is not CSV, names a path
//!   another row names, or a hash algorithm the wheel specification does not allow (md5 and
//!   sha1, "not permitted"), hashlib cannot check with a fixed length (shake) or that is not
//!   in `hashlib.algorithms_guaranteed` ([`RecordAlgorithm`]), or whose digest is not of that
//!   algorithm's length.
//!
//! The hashes themselves are checked while the members are read for conversion (so each byte
//! is decompressed once): see [`RecordEntry`] and [`crate::wheel::repack`].

use super::archive::{WheelReader, MAX_MEMBER_SIZE};
use crate::error::{Error, ErrorKind, Result};
use base64::Engine;
use sha2::digest::DynDigest;
use std::collections::HashMap;
use std::path::Path;

/// Largest total of declared member sizes: 64 GiB.
pub const MAX_TOTAL_SIZE: u64 = 64 << 30;

/// Most a deflated member may claim to expand (uncompressed / compressed), see the module docs.
pub const MAX_DEFLATE_RATIO: u64 = 1032;

/// A hash algorithm a RECORD row may name: those of Python's `hashlib.algorithms_guaranteed`
/// that the wheel specification permits ("sha256 or better; md5 and sha1 are not permitted")
/// and that have a fixed digest length (the `shake_*` XOFs do not; installers cannot check
/// them). Names and digest lengths are hashlib's (`blake2b`: 64 bytes, `blake2s`: 32).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RecordAlgorithm {
    /// `sha224` (FIPS 180-4).
    Sha224,
    /// `sha256` (FIPS 180-4), what wheelport writes.
    Sha256,
    /// `sha384` (FIPS 180-4).
    Sha384,
    /// `sha512` (FIPS 180-4).
    Sha512,
    /// `sha3_224` (FIPS 202).
    Sha3_224,
    /// `sha3_256` (FIPS 202).
    Sha3_256,
    /// `sha3_384` (FIPS 202).
    Sha3_384,
    /// `sha3_512` (FIPS 202).
    Sha3_512,
    /// `blake2b` (RFC 7693, 64-byte digest).
    Blake2b,
    /// `blake2s` (RFC 7693, 32-byte digest).
    Blake2s,
}

impl RecordAlgorithm {
    /// Every algorithm, in hashlib's naming.
    pub const ALL: [RecordAlgorithm; 10] = [
        Self::Sha224,
        Self::Sha256,
        Self::Sha384,
        Self::Sha512,
        Self::Sha3_224,
        Self::Sha3_256,
        Self::Sha3_384,
        Self::Sha3_512,
        Self::Blake2b,
        Self::Blake2s,
    ];

    /// The algorithm a RECORD hash field names (`sha384` of `sha384=...`).
    ///
    /// # Errors
    /// Why it is refused: md5 and sha1 (not permitted by the wheel specification), shake_128
    /// and shake_256 (no fixed digest length), anything else (not an algorithm hashlib
    /// guarantees).
    pub fn from_name(name: &str) -> std::result::Result<Self, String> {
        if let Some(a) = Self::ALL.into_iter().find(|a| a.name() == name) {
            return Ok(a);
        }
        Err(match name {
            "md5" | "sha1" => format!(
                "hash algorithm {name:?} is too weak: the wheel specification does not permit md5 or sha1"
            ),
            "shake_128" | "shake_256" => format!(
                "hash algorithm {name:?} has no fixed digest length; a RECORD hash cannot be checked with it"
            ),
            _ => format!(
                "hash algorithm {name:?} is not one the wheel specification allows (sha256 or better, as Python's hashlib names them)"
            ),
        })
    }

    /// hashlib's name.
    pub fn name(self) -> &'static str {
        match self {
            Self::Sha224 => "sha224",
            Self::Sha256 => "sha256",
            Self::Sha384 => "sha384",
            Self::Sha512 => "sha512",
            Self::Sha3_224 => "sha3_224",
            Self::Sha3_256 => "sha3_256",
            Self::Sha3_384 => "sha3_384",
            Self::Sha3_512 => "sha3_512",
            Self::Blake2b => "blake2b",
            Self::Blake2s => "blake2s",
        }
    }

    /// A streaming hasher of this algorithm.
    pub fn hasher(self) -> Box<dyn DynDigest + Send> {
        match self {
            Self::Sha224 => Box::new(sha2::Sha224::default()),
            Self::Sha256 => Box::new(sha2::Sha256::default()),
            Self::Sha384 => Box::new(sha2::Sha384::default()),
            Self::Sha512 => Box::new(sha2::Sha512::default()),
            Self::Sha3_224 => Box::new(sha3::Sha3_224::default()),
            Self::Sha3_256 => Box::new(sha3::Sha3_256::default()),
            Self::Sha3_384 => Box::new(sha3::Sha3_384::default()),
            Self::Sha3_512 => Box::new(sha3::Sha3_512::default()),
            Self::Blake2b => Box::new(blake2::Blake2b512::default()),
            Self::Blake2s => Box::new(blake2::Blake2s256::default()),
        }
    }

    /// The digest of `data`.
    pub fn digest(self, data: &[u8]) -> Vec<u8> {
        let mut h = self.hasher();
        h.update(data);
        h.finalize().into_vec()
    }
}

/// One RECORD row's claim about a member.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordEntry {
    /// The hash algorithm.
    pub algorithm: RecordAlgorithm,
    /// The digest, decoded from urlsafe base64 (padding optional), of the algorithm's length.
    pub digest: Vec<u8>,
    /// The declared size in bytes, if the row gives one.
    pub size: Option<u64>,
}

impl RecordEntry {
    /// Check a member's digest and length against this row. `sha256`: its sha256 (what every
    /// reader computes, for the output's RECORD); `other`: its digest in the row's algorithm
    /// when that is not sha256 ([`RecordEntry::needs`]).
    ///
    /// # Errors
    /// A message saying what differs (the caller adds the file and offset).
    pub fn check(
        &self,
        sha256: &[u8],
        other: Option<&[u8]>,
        len: u64,
    ) -> std::result::Result<(), String> {
        if let Some(s) = self.size {
            if s != len {
                return Err(format!("RECORD says {s} bytes, the member has {len}"));
            }
        }
        let got = if self.algorithm == RecordAlgorithm::Sha256 {
            sha256
        } else {
            other.ok_or_else(|| {
                format!(
                    "the member was not hashed with {}, the algorithm of its RECORD row",
                    self.algorithm.name()
                )
            })?
        };
        if self.digest != got {
            let alg = self.algorithm.name();
            return Err(format!(
                "RECORD says {alg}={}, the member hashes to {alg}={}",
                b64(&self.digest),
                b64(got)
            ));
        }
        Ok(())
    }
}

impl RecordEntry {
    /// The algorithm a reader must hash the member with besides sha256, when the row names
    /// another.
    pub fn needs(&self) -> Option<RecordAlgorithm> {
        (self.algorithm != RecordAlgorithm::Sha256).then_some(self.algorithm)
    }
}

fn b64(d: &[u8]) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(d)
}

/// What [`audit`] learned about a wheel.
#[derive(Debug, Clone, Default)]
pub struct Audit {
    /// Member names in central-directory order.
    pub names: Vec<String>,
    /// The `.dist-info` directory (`name-version.dist-info`).
    pub dist_info: String,
    /// RECORD rows by path (RECORD's own row and rows without a hash are left out).
    pub record: HashMap<String, RecordEntry>,
    /// Byte offset of each member's local header, by name (for error messages).
    pub header_offsets: HashMap<String, u64>,
}

/// Split one CSV line (RFC 4180 quoting, as Python's `csv` writes RECORD).
fn csv_fields(line: &str) -> Option<Vec<String>> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut chars = line.chars().peekable();
    let mut quoted = false;
    let mut at_start = true;
    while let Some(c) = chars.next() {
        if quoted {
            if c == '"' {
                if chars.peek() == Some(&'"') {
                    chars.next();
                    cur.push('"');
                } else {
                    quoted = false;
                }
            } else {
                cur.push(c);
            }
        } else if c == '"' && at_start {
            quoted = true;
            at_start = false;
        } else if c == ',' {
            out.push(std::mem::take(&mut cur));
            at_start = true;
        } else {
            cur.push(c);
            at_start = false;
        }
    }
    if quoted {
        return None;
    }
    out.push(cur);
    Some(out)
}

/// Parse RECORD text. `file` names RECORD in errors.
///
/// # Errors
/// [`ErrorKind::Wheel`] for a row that is not `path,hash,size` CSV, an unknown hash
/// algorithm, a digest that is not base64, or a size that is not a number.
pub fn parse_record(text: &str, file: &str) -> Result<HashMap<String, RecordEntry>> {
    let mut out = HashMap::new();
    // The line of each path's row (a second row for a path is refused).
    let mut lines: HashMap<String, usize> = HashMap::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let bad = |m: String| Error::new(ErrorKind::Wheel, file, format!("line {}: {m}", i + 1));
        let f = csv_fields(line).ok_or_else(|| bad("unterminated quote".into()))?;
        if f.len() != 3 {
            return Err(bad(format!(
                "{} fields, RECORD rows have 3 (path,hash,size)",
                f.len()
            )));
        }
        if let Some(first) = lines.insert(f[0].clone(), i + 1) {
            return Err(bad(format!(
                "path {:?} is listed twice (lines {first} and {}): the rows may contradict each other",
                f[0],
                i + 1
            )));
        }
        if f[1].is_empty() {
            continue; // RECORD itself, signatures, .pyc files
        }
        let (alg, digest) = f[1]
            .split_once('=')
            .ok_or_else(|| bad(format!("hash {:?} is not algorithm=digest", f[1])))?;
        let algorithm = RecordAlgorithm::from_name(alg).map_err(bad)?;
        let digest = base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(digest.trim_end_matches('='))
            .map_err(|e| bad(format!("digest is not urlsafe base64: {e}")))?;
        let want = algorithm.hasher().output_size();
        if digest.len() != want {
            return Err(bad(format!(
                "{alg} digest of {} bytes; {alg} digests have {want}",
                digest.len()
            )));
        }
        let size = if f[2].is_empty() {
            None
        } else {
            Some(
                f[2].parse::<u64>()
                    .map_err(|_| bad(format!("size {:?} is not a number", f[2])))?,
            )
        };
        out.insert(
            f[0].clone(),
            RecordEntry {
                algorithm,
                digest,
                size,
            },
        );
    }
    Ok(out)
}

/// Walk the central directory (APPNOTE.TXT 4.3.12: signature `PK\1\2`, 46 fixed bytes, then
/// name, extra field and comment) and return each entry's name with its offset, so that
/// duplicates the `zip` crate folds away can be named.
fn central_names(data: &[u8], start: u64, count: usize) -> Vec<(String, u64)> {
    let mut out = Vec::new();
    let mut at = start as usize;
    while out.len() < count.max(1) * 4 + 16 {
        let Some(fixed) = data.get(at..at + 46) else {
            break;
        };
        if fixed[..4] != *b"PK\x01\x02" {
            break;
        }
        let n = u16::from_le_bytes([fixed[28], fixed[29]]) as usize;
        let x = u16::from_le_bytes([fixed[30], fixed[31]]) as usize;
        let c = u16::from_le_bytes([fixed[32], fixed[33]]) as usize;
        let Some(name) = data.get(at + 46..at + 46 + n) else {
            break;
        };
        out.push((String::from_utf8_lossy(name).into_owned(), at as u64));
        at += 46 + n + x + c;
    }
    out
}

/// Where the data of the member whose local file header is at `at` starts (APPNOTE.TXT
/// 4.3.7: signature `PK\3\4`, 30 fixed bytes, then name and extra field, whose lengths are at
/// +26 and +28), when a local header is there.
fn local_data_start(data: &[u8], at: u64) -> Option<u64> {
    let at_us = usize::try_from(at).ok()?;
    let fixed = data.get(at_us..at_us.checked_add(30)?)?;
    if fixed[..4] != *b"PK\x03\x04" {
        return None;
    }
    let n = u64::from(u16::from_le_bytes([fixed[26], fixed[27]]));
    let x = u64::from(u16::from_le_bytes([fixed[28], fixed[29]]));
    Some(at + 30 + n + x)
}

/// Run every check of the module docs on the wheel at `path`.
///
/// # Errors
/// [`ErrorKind::Wheel`] naming the wheel, the member and the byte offset of its header.
pub fn audit(path: &Path) -> Result<Audit> {
    audit_reader(&WheelReader::open(path)?) // zip-slip
}

/// [`audit`] on a wheel already opened (its member names were checked by
/// [`WheelReader::open`]).
///
/// # Errors
/// As [`audit`].
pub fn audit_reader(w: &WheelReader) -> Result<Audit> {
    let display = w.display().to_string();
    let werr = |at: u64, m: String| Error::at(ErrorKind::Wheel, &display, at, m);
    let names = w.member_names();
    let mut zin = w.archive().clone();

    // Duplicates: the central directory holds more entries than distinct names.
    let central = central_names(w.bytes(), zin.central_directory_start(), zin.len());
    if central.len() != zin.len() {
        let mut seen = std::collections::HashSet::new();
        for (n, at) in &central {
            if !seen.insert(n.as_str()) {
                return Err(werr(
                    *at,
                    format!("member {n:?} appears twice in the central directory; refusing the wheel (installers disagree on which copy wins)"),
                ));
            }
        }
        return Err(Error::new(
            ErrorKind::Wheel,
            &display,
            format!(
                "the central directory holds {} entries but {} distinct names",
                central.len(),
                zin.len()
            ),
        ));
    }

    let mut total = 0u64;
    let mut header_offsets = HashMap::new();
    // (local header offset, end of its data, name): no two may overlap.
    let mut spans: Vec<(u64, u64, String)> = Vec::with_capacity(zin.len());
    for i in 0..zin.len() {
        let m = zin
            .by_index_raw(i)
            .map_err(|e| Error::new(ErrorKind::Wheel, &display, format!("member {i}: {e}")))?;
        let (name, at, size, csize) = (
            m.name()
                .map_err(|e| Error::new(ErrorKind::Wheel, &display, format!("member {i}: {e}")))?
                .into_owned(),
            m.header_start(),
            m.size(),
            m.compressed_size(),
        );
        header_offsets.insert(name.clone(), at);
        let data = local_data_start(w.bytes(), at).ok_or_else(|| {
            werr(
                at,
                format!("member {name}: no local file header at its offset"),
            )
        })?;
        spans.push((at, data.saturating_add(csize), name.clone()));
        if size > MAX_MEMBER_SIZE {
            return Err(werr(
                at,
                format!(
                    "member {name} declares {size} bytes, over the {MAX_MEMBER_SIZE}-byte limit"
                ),
            ));
        }
        match m.compression() {
            zip::CompressionMethod::Stored if size != csize => {
                return Err(werr(
                    at,
                    format!("member {name} is stored but declares {size} bytes uncompressed and {csize} compressed"),
                ))
            }
            zip::CompressionMethod::Deflated
                if size > csize.saturating_mul(MAX_DEFLATE_RATIO) + 1024 =>
            {
                return Err(werr(
                    at,
                    format!("member {name} declares {size} bytes from {csize} deflated bytes, more than deflate can expand (a decompression bomb or a lie)"),
                ))
            }
            zip::CompressionMethod::Stored | zip::CompressionMethod::Deflated => {}
            other => {
                return Err(werr(
                    at,
                    format!("member {name} uses compression {other:?}; wheels use stored or deflate"),
                ))
            }
        }
        total = total.saturating_add(size);
    }
    // Overlapping or shared member data (the overlapping-entry zip bomb: many central entries
    // whose data is one deflate stream): refused, as CPython's zipfile ("Overlapped entries",
    // 3.12+) and Info-ZIP's unzip refuse it. Each member's local header and data end before
    // the next member's header, and the last before the central directory.
    spans.sort_unstable();
    let cd = zin.central_directory_start();
    for (i, (at, end, name)) in spans.iter().enumerate() {
        let (next_at, next) = match spans.get(i + 1) {
            Some((a, _, n)) => (*a, format!("member {n}'s header at {a:#x}")),
            None => (cd, format!("the central directory at {cd:#x}")),
        };
        if *end > next_at {
            return Err(werr(
                *at,
                format!("member {name}'s data (to {end:#x}) overlaps {next}; refusing the wheel (overlapping entries: a zip bomb or a lie)"),
            ));
        }
    }
    if total > MAX_TOTAL_SIZE {
        return Err(Error::new(
            ErrorKind::Wheel,
            &display,
            format!("members declare {total} bytes together, over the {MAX_TOTAL_SIZE}-byte limit"),
        ));
    }

    // One `.dist-info` folder at the top (pip: "multiple .dist-info directories found"; an
    // installer taking either would install different metadata).
    let mut infos: Vec<&str> = names
        .iter()
        .filter_map(|n| n.split_once('/').map(|(d, _)| d))
        .filter(|d| d.ends_with(".dist-info"))
        .collect();
    infos.sort_unstable();
    infos.dedup();
    if infos.len() > 1 {
        return Err(Error::new(
            ErrorKind::Wheel,
            &display,
            format!(
                "{} .dist-info folders ({}); a wheel has one (pip refuses it too)",
                infos.len(),
                infos.join(", ")
            ),
        ));
    }
    let dist_info = names
        .iter()
        .find_map(|n| {
            let (dir, file) = n.split_once('/')?;
            (dir.ends_with(".dist-info") && !dir.contains('/') && file == "WHEEL")
                .then(|| dir.to_string())
        })
        .ok_or_else(|| {
            Error::new(
                ErrorKind::Wheel,
                &display,
                "no <name>-<version>.dist-info/WHEEL: not a wheel",
            )
        })?;
    let record_name = format!("{dist_info}/RECORD");
    let record = if names.contains(&record_name) {
        drop(zin);
        let mut w = w.clone();
        let text = w.read_member(&record_name)?;
        parse_record(
            &String::from_utf8_lossy(&text),
            &format!("{display}!{record_name}"),
        )?
    } else {
        return Err(Error::new(
            ErrorKind::Wheel,
            &display,
            format!("{record_name} is missing (PEP 427 requires it)"),
        ));
    };
    Ok(Audit {
        names,
        dist_info,
        record,
        header_offsets,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_quoting() {
        assert_eq!(
            csv_fields(r#""a,b.py",sha256=x,3"#).unwrap(),
            vec!["a,b.py", "sha256=x", "3"]
        );
        assert_eq!(
            csv_fields(r#""q""uote",,"#).unwrap(),
            vec!["q\"uote", "", ""]
        );
        assert!(csv_fields(r#""open,,"#).is_none());
    }

    #[test]
    fn record_rows() {
        let r = parse_record(
            "a.py,sha256=dlKgPjuI8C6VQsvHDqsteuBhsbomCfufNx74lEj9LMc,1318\nx/RECORD,,\n",
            "R",
        )
        .unwrap();
        assert_eq!(r.len(), 1);
        assert_eq!(r["a.py"].size, Some(1318));
        assert_eq!(r["a.py"].digest.len(), 32);
        assert!(parse_record("a.py,md5=abc,1\n", "R").is_err());
        assert!(parse_record("a.py,sha256=abc\n", "R").is_err());
    }
}
