//! Writing the converted wheel (PEP 427 "Binary distribution format", PEP 440 local
//! versions, PEP 376/627 RECORD).
//!
//! * The version gets a new local label (`2.6.2+cu121` → `2.6.2+dtk`): in the filename, the
//!   `.dist-info` and `.data` directory names and METADATA `Version`.
//! * `Requires-Dist` lines whose project is CUDA-only (see [`is_cuda_only_requirement`]) are
//!   removed.
//! * RECORD is regenerated: `sha256=` urlsafe base64 without padding and the size for every
//!   member, an empty row for RECORD itself; `RECORD.jws` and `RECORD.p7s` are dropped.
//! * Members that are not replaced or renamed are raw-copied (no recompression) with their
//!   modes; new and rewritten members are deflated. Every member gets the timestamp of
//!   `SOURCE_DATE_EPOCH` (default 1980-01-01, the zip minimum), the archive keeps the input
//!   order with the `.dist-info` directory last and RECORD as the last member, so the same
//!   input gives the same bytes.
//! * The wheel is written to a temporary file in the output directory and renamed into place:
//!   an error leaves no partial output.

use crate::error::{Error, ErrorKind, Result};
use base64::Engine;
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use zip::write::SimpleFileOptions;

/// What to change when repacking.
#[derive(Debug, Clone, Default)]
pub struct RepackPlan {
    /// The new local version label, e.g. `dtk` (replaces any existing label).
    pub local_label: String,
    /// New contents of members, by their name in the input wheel.
    pub replace: HashMap<String, Vec<u8>>,
    /// Members to add to the `.dist-info` directory (file name, contents), e.g. a provenance
    /// file.
    pub dist_info_extra: Vec<(String, Vec<u8>)>,
    /// Timestamp for every member, seconds since the Unix epoch (`SOURCE_DATE_EPOCH`);
    /// `None` gives 1980-01-01 00:00:00.
    pub source_date_epoch: Option<i64>,
    /// The target whose rows of `targets/requires-dist.tsv` decide which `Requires-Dist`
    /// lines are dropped (see [`super::requirements`]); `None` uses
    /// [`is_cuda_only_requirement`].
    pub target: Option<String>,
    /// The input's RECORD rows (from [`super::audit::audit`]): every member read is checked
    /// against its row, and a member with no row is refused. Empty: no check. Members in
    /// [`RepackPlan::replace`] are not read here; the caller checks them.
    pub verify_record: HashMap<String, super::audit::RecordEntry>,
    /// New members compressed ahead of time (see [`Precompressed`]), by their name in the
    /// input wheel; they win over [`RepackPlan::replace`].
    pub precompressed: HashMap<String, Precompressed>,
    /// New members outside `.dist-info` (name, contents, Unix mode), written after the
    /// input's members and before `.dist-info`, e.g. a shipped shim library in
    /// `<dist>.libs/`.
    pub extra_members: Vec<(String, Vec<u8>, u32)>,
    /// Members of the input left out of the output (by their name in the input wheel), e.g.
    /// a vendored CUDA library the target's own library replaces; RECORD lists what is
    /// written.
    pub leave_out: std::collections::HashSet<String>,
}

/// A member's new contents already deflated (raw RFC 1951 stream), with what the zip
/// headers and RECORD need, so that large members can be compressed in parallel or spliced
/// from the input's stream (see [`super::splice`]).
#[derive(Debug, Clone)]
pub struct Precompressed {
    /// The raw deflate stream.
    pub deflated: Vec<u8>,
    /// CRC-32 (ISO 3309) of the uncompressed bytes.
    pub crc32: u32,
    /// Uncompressed size in bytes.
    pub size: u64,
    /// RECORD hash field (`sha256=...`) of the uncompressed bytes.
    pub record_hash: String,
}

/// What [`repack_with`] wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Repacked {
    /// The new wheel.
    pub path: PathBuf,
    /// The `Requires-Dist` lines removed from METADATA.
    pub dropped_requirements: Vec<String>,
    /// The new version (`2.6.2+dtk`).
    pub version: String,
}

/// True for requirements of CUDA-only projects that a converted wheel must not pull in:
/// NVIDIA's runtime wheels (`nvidia-*`) and `cuda-python`/`cuda-bindings`.
pub fn is_cuda_only_requirement(req: &str) -> bool {
    let name: String = req
        .trim()
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        .collect::<String>()
        .to_ascii_lowercase()
        .replace(['_', '.'], "-");
    name.starts_with("nvidia-") || name == "cuda-python" || name == "cuda-bindings"
}

/// The parts of a wheel filename: `{name}-{version}(-{build})?-{python}-{abi}-{platform}.whl`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WheelName {
    /// Distribution name as in the filename (`_`-folded).
    pub name: String,
    /// Version as in the filename.
    pub version: String,
    /// Optional build tag.
    pub build: Option<String>,
    /// `{python}-{abi}-{platform}`.
    pub tags: String,
}

impl WheelName {
    /// Parse a wheel file name.
    ///
    /// # Errors
    /// A message when the name does not have 5 or 6 dash-separated parts and a `.whl` suffix.
    pub fn parse(file_name: &str) -> std::result::Result<WheelName, String> {
        let stem = file_name
            .strip_suffix(".whl")
            .ok_or("not a .whl file name")?;
        let parts: Vec<&str> = stem.split('-').collect();
        match parts.len() {
            5 => Ok(WheelName {
                name: parts[0].into(),
                version: parts[1].into(),
                build: None,
                tags: parts[2..].join("-"),
            }),
            6 => Ok(WheelName {
                name: parts[0].into(),
                version: parts[1].into(),
                build: Some(parts[2].into()),
                tags: parts[3..].join("-"),
            }),
            _ => Err(format!(
                "wheel file name {file_name:?} does not have 5 or 6 dash-separated parts"
            )),
        }
    }

    /// The file name.
    pub fn file_name(&self) -> String {
        match &self.build {
            Some(b) => format!("{}-{}-{}-{}.whl", self.name, self.version, b, self.tags),
            None => format!("{}-{}-{}.whl", self.name, self.version, self.tags),
        }
    }
}

/// `version` with its local label replaced by `label` (PEP 440 §"Local version identifiers").
pub fn with_local_label(version: &str, label: &str) -> String {
    let public = version.split('+').next().unwrap_or(version);
    format!("{public}+{label}")
}

fn record_hash(data: &[u8]) -> String {
    let digest = Sha256::digest(data);
    format!(
        "sha256={}",
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(digest)
    )
}

fn zip_time(epoch: Option<i64>) -> zip::DateTime {
    let min = zip::DateTime::default(); // 1980-01-01 00:00:00
    let Some(secs) = epoch else { return min };
    time::OffsetDateTime::from_unix_timestamp(secs)
        .ok()
        .and_then(|t| {
            zip::DateTime::try_from(time::PrimitiveDateTime::new(t.date(), t.time())).ok()
        })
        .unwrap_or(min)
}

/// Repack `input` into `out_dir` following `plan`; returns the new wheel's path.
///
/// # Errors
/// As [`repack_with`].
pub fn repack(input: &Path, out_dir: &Path, plan: &RepackPlan) -> Result<PathBuf> {
    repack_with(input, out_dir, plan).map(|r| r.path)
}

/// The expanded tag set of a file name's `{python}-{abi}-{platform}` part (PEP 425
/// "Compressed tag sets": each part may hold `.`-separated alternatives), in file-name order.
pub fn expand_tags(tags: &str) -> Vec<String> {
    let parts: Vec<&str> = tags.splitn(3, '-').collect();
    if parts.len() != 3 {
        return vec![tags.to_string()];
    }
    let mut out = Vec::new();
    for py in parts[0].split('.') {
        for abi in parts[1].split('.') {
            for plat in parts[2].split('.') {
                out.push(format!("{py}-{abi}-{plat}"));
            }
        }
    }
    out
}

/// WHEEL with its `Tag` lines replaced by `tags` (at the place of the first one) and its
/// `Build` line matching `build`, so that WHEEL agrees with the file name.
pub fn rewrite_wheel_text(text: &str, tags: &[String], build: Option<&str>) -> String {
    let mut out = String::with_capacity(text.len() + 64);
    let mut tags_written = false;
    let mut build_written = false;
    for line in text.lines() {
        if line.starts_with("Tag:") {
            if !tags_written {
                for t in tags {
                    out.push_str(&format!("Tag: {t}\n"));
                }
                tags_written = true;
            }
        } else if line.starts_with("Build:") {
            if let Some(b) = build {
                out.push_str(&format!("Build: {b}\n"));
            }
            build_written = true;
        } else if !line.is_empty() {
            out.push_str(line);
            out.push('\n');
        }
    }
    if !tags_written {
        for t in tags {
            out.push_str(&format!("Tag: {t}\n"));
        }
    }
    if let (Some(b), false) = (build, build_written) {
        out.push_str(&format!("Build: {b}\n"));
    }
    out.push('\n');
    out
}

/// Wrap a [`Precompressed`] member in a one-member zip archive (APPNOTE.TXT 4.3.7 local
/// header, 4.3.12 central directory header, 4.3.16 end record; for a member whose sizes do
/// not fit 32 bits, 4.5.3 Zip64 extended information in both headers and the 4.3.14/4.3.15
/// Zip64 end record and locator), so that the `zip` crate can raw-copy it into the output like
/// any other member (the output's own ZIP64 fields are the `zip` crate's).
fn single_member_zip(name: &str, p: &Precompressed) -> Vec<u8> {
    const MAX32: u64 = u32::MAX as u64;
    let csize = p.deflated.len() as u64;
    let zip64 = csize >= MAX32 || p.size >= MAX32;
    let n = name.as_bytes();
    let flags: u16 = if name.is_ascii() { 0 } else { 1 << 11 };
    // Zip64 extra field: original size, then compressed size (4.5.3).
    let mut extra = Vec::new();
    if zip64 {
        extra.extend_from_slice(&1u16.to_le_bytes());
        extra.extend_from_slice(&16u16.to_le_bytes());
        extra.extend_from_slice(&p.size.to_le_bytes());
        extra.extend_from_slice(&csize.to_le_bytes());
    }
    let (c32, u32_) = if zip64 {
        (u32::MAX, u32::MAX)
    } else {
        (csize as u32, p.size as u32)
    };
    let version: u16 = if zip64 { 45 } else { 20 }; // 4.5: zip64; 2.0: deflate
    let mut z = Vec::with_capacity(p.deflated.len() + 2 * n.len() + 256);
    let common = |z: &mut Vec<u8>| {
        z.extend_from_slice(&version.to_le_bytes()); // version needed
        z.extend_from_slice(&flags.to_le_bytes());
        z.extend_from_slice(&8u16.to_le_bytes()); // deflate
        z.extend_from_slice(&0u16.to_le_bytes()); // time (set by raw_copy_file_touch)
        z.extend_from_slice(&0x21u16.to_le_bytes()); // 1980-01-01
        z.extend_from_slice(&p.crc32.to_le_bytes());
        z.extend_from_slice(&c32.to_le_bytes());
        z.extend_from_slice(&u32_.to_le_bytes());
        z.extend_from_slice(&(n.len() as u16).to_le_bytes());
        z.extend_from_slice(&(extra.len() as u16).to_le_bytes());
    };
    z.extend_from_slice(b"PK\x03\x04");
    common(&mut z);
    z.extend_from_slice(n);
    z.extend_from_slice(&extra);
    z.extend_from_slice(&p.deflated);
    let cd = z.len() as u64;
    z.extend_from_slice(b"PK\x01\x02");
    z.extend_from_slice(&(0x0300u16 | version).to_le_bytes()); // made by: Unix
    common(&mut z);
    z.extend_from_slice(&0u16.to_le_bytes()); // comment length
    z.extend_from_slice(&0u16.to_le_bytes()); // disk
    z.extend_from_slice(&0u16.to_le_bytes()); // internal attributes
    z.extend_from_slice(&((0o100644u32) << 16).to_le_bytes());
    z.extend_from_slice(&0u32.to_le_bytes()); // local header at 0
    z.extend_from_slice(n);
    z.extend_from_slice(&extra);
    let cd_size = z.len() as u64 - cd;
    if zip64 {
        let eocd64 = z.len() as u64;
        z.extend_from_slice(b"PK\x06\x06");
        z.extend_from_slice(&44u64.to_le_bytes()); // size of the rest of the record
        z.extend_from_slice(&(0x0300u16 | version).to_le_bytes());
        z.extend_from_slice(&version.to_le_bytes());
        z.extend_from_slice(&[0; 8]); // this disk, disk of the central directory
        z.extend_from_slice(&1u64.to_le_bytes());
        z.extend_from_slice(&1u64.to_le_bytes());
        z.extend_from_slice(&cd_size.to_le_bytes());
        z.extend_from_slice(&cd.to_le_bytes());
        z.extend_from_slice(b"PK\x06\x07");
        z.extend_from_slice(&0u32.to_le_bytes());
        z.extend_from_slice(&eocd64.to_le_bytes());
        z.extend_from_slice(&1u32.to_le_bytes());
    }
    z.extend_from_slice(b"PK\x05\x06");
    z.extend_from_slice(&[0, 0, 0, 0, 1, 0, 1, 0]);
    z.extend_from_slice(&(cd_size as u32).to_le_bytes());
    z.extend_from_slice(&(cd.min(MAX32) as u32).to_le_bytes());
    z.extend_from_slice(&0u16.to_le_bytes());
    z
}

/// Repack `input` into `out_dir` following `plan`.
///
/// # Errors
/// [`ErrorKind::Wheel`] for a malformed input (file name, missing `.dist-info`), a member
/// that does not match its RECORD row or has none (the error names the member and the byte
/// offset of its local header), a member that expands past its declared size, and I/O
/// errors of the output; in every case no output file is left behind.
pub fn repack_with(input: &Path, out_dir: &Path, plan: &RepackPlan) -> Result<Repacked> {
    repack_reader(&super::WheelReader::open(input)?, input, out_dir, plan)
}

/// [`repack_with`] on a wheel already opened as `reader` (the file at `input`, whose name
/// gives the output's).
///
/// # Errors
/// As [`repack_with`].
pub fn repack_reader(
    reader: &super::WheelReader,
    input: &Path,
    out_dir: &Path,
    plan: &RepackPlan,
) -> Result<Repacked> {
    let display = input.display().to_string();
    let werr = |m: String| Error::new(ErrorKind::Wheel, &display, m);
    let file_name = input
        .file_name()
        .and_then(|n| n.to_str())
        .ok_or_else(|| werr("no file name".into()))?;
    let mut wname = WheelName::parse(file_name).map_err(werr)?;
    let old_version = wname.version.clone();
    let new_version = with_local_label(&old_version, &plan.local_label);
    wname.version = new_version.clone();
    let old_dist = format!("{}-{}.dist-info", wname.name, old_version);
    let new_dist = format!("{}-{}.dist-info", wname.name, new_version);
    let old_data = format!("{}-{}.data", wname.name, old_version);
    let new_data = format!("{}-{}.data", wname.name, new_version);

    let mut zin = reader.archive().clone();
    let names: Vec<String> = zin
        .file_names()
        .map(|n| n.map(|n| n.into_owned()))
        .collect::<std::result::Result<_, _>>()
        .map_err(|e| werr(format!("a member name cannot be decoded: {e}")))?;
    if !names.iter().any(|n| n == &format!("{old_dist}/METADATA")) {
        return Err(werr(format!(
            "{old_dist}/METADATA is missing (the file name and the .dist-info directory disagree)"
        )));
    }
    // Output order: input order, new members, .dist-info last, RECORD last of all. `None`
    // marks where the new members go.
    let mut order: Vec<Option<&String>> = names
        .iter()
        .filter(|n| !n.starts_with(&format!("{old_dist}/")))
        .map(Some)
        .collect();
    order.push(None);
    order.extend(
        names
            .iter()
            .filter(|n| n.starts_with(&format!("{old_dist}/")))
            .map(Some),
    );

    std::fs::create_dir_all(out_dir).map_err(|e| Error::io(out_dir.display().to_string(), e))?;
    let out_path = out_dir.join(wname.file_name());
    let out_display = out_path.display().to_string();
    // A zip write error: the output's I/O (a full disk) is the environment's, named by the
    // output; anything else is the archive's.
    let wout = |what: String, e: zip::result::ZipError| -> Error {
        match e {
            zip::result::ZipError::Io(io) => Error::new(
                ErrorKind::Io,
                &out_display,
                format!("{what}: {}", crate::error::os_error(io)),
            ),
            e => werr(format!("{what}: {e}")),
        }
    };
    let tmp = tempfile::NamedTempFile::new_in(out_dir)
        .map_err(|e| Error::io(out_dir.display().to_string(), crate::error::os_error(e)))?;
    let mut zout = zip::ZipWriter::new(std::io::BufWriter::with_capacity(
        1 << 20,
        tmp.as_file()
            .try_clone()
            .map_err(|e| Error::io(&out_display, e))?,
    ));
    let when = zip_time(plan.source_date_epoch);
    let mut record: Vec<(String, String, u64)> = Vec::new();
    let mut dropped = Vec::new();
    type Out = zip::ZipWriter<std::io::BufWriter<std::fs::File>>;
    let write_new = |zout: &mut Out,
                     record: &mut Vec<(String, String, u64)>,
                     name: &str,
                     data: &[u8],
                     mode: u32|
     -> Result<()> {
        let opts = SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated)
            .last_modified_time(when)
            .unix_permissions(mode)
            .large_file(data.len() as u64 >= u32::MAX as u64);
        zout.start_file(name, opts)
            .map_err(|e| wout(format!("writing {name}"), e))?;
        zout.write_all(data)
            .map_err(|e| Error::io(&out_display, e))?;
        record.push((name.to_string(), record_hash(data), data.len() as u64));
        Ok(())
    };
    // `other`: the member's digest in its RECORD row's algorithm when that is not sha256.
    let verify =
        |name: &str, at: u64, digest: &[u8], other: Option<&[u8]>, len: u64| -> Result<()> {
            if plan.verify_record.is_empty() {
                return Ok(());
            }
            let Some(row) = plan.verify_record.get(name) else {
                return Err(Error::at(
                    ErrorKind::Wheel,
                    &display,
                    at,
                    format!("member {name} is not listed in RECORD; refusing the wheel"),
                ));
            };
            row.check(digest, other, len).map_err(|m| {
                Error::at(
                    ErrorKind::Wheel,
                    &display,
                    at,
                    format!("member {name}: {m}; refusing the wheel"),
                )
            })
        };
    // Read a whole member (bounded by its declared size) and check it against RECORD.
    let read_checked = |member: &mut zip::read::ZipFile<'_, super::archive::WheelCursor>,
                        name: &str|
     -> Result<Vec<u8>> {
        let (declared, at) = (member.size(), member.header_start());
        let mut data = Vec::with_capacity(declared.min(1 << 30) as usize);
        member
            .take(declared + 1)
            .read_to_end(&mut data)
            .map_err(|e| Error::at(ErrorKind::Wheel, &display, at, format!("{name}: {e}")))?;
        if data.len() as u64 != declared {
            return Err(Error::at(
                ErrorKind::Wheel,
                &display,
                at,
                format!("member {name} does not expand to its declared {declared} bytes"),
            ));
        }
        let other = plan
            .verify_record
            .get(name)
            .and_then(|r| r.needs())
            .map(|a| a.digest(&data));
        verify(name, at, &Sha256::digest(&data), other.as_deref(), declared)?;
        Ok(data)
    };
    for name in order {
        let Some(name) = name else {
            for (n, data, mode) in &plan.extra_members {
                if names.contains(n) {
                    return Err(werr(format!(
                        "the wheel already has a member {n}; refusing to replace it"
                    )));
                }
                write_new(&mut zout, &mut record, n, data, *mode)?;
            }
            continue;
        };
        let base = name.rsplit('/').next().unwrap_or(name);
        if name.starts_with(&format!("{old_dist}/"))
            && matches!(base, "RECORD" | "RECORD.jws" | "RECORD.p7s")
        {
            continue;
        }
        if name.ends_with('/') || plan.leave_out.contains(name) {
            continue; // directory entries are implied; left-out members are not written
        }
        let renamed = if let Some(rest) = name.strip_prefix(&format!("{old_dist}/")) {
            format!("{new_dist}/{rest}")
        } else if let Some(rest) = name.strip_prefix(&format!("{old_data}/")) {
            format!("{new_data}/{rest}")
        } else {
            name.clone()
        };
        let mut member = zin
            .by_name(name)
            .map_err(|e| werr(format!("member {name}: {e}")))?;
        let mode = member.unix_mode().map(|m| m & 0o777).unwrap_or(0o644);
        if let Some(p) = plan.precompressed.get(name) {
            drop(member);
            let z = single_member_zip(&renamed, p);
            let mut one = zip::ZipArchive::new(std::io::Cursor::new(z))
                .map_err(|e| werr(format!("wrapping {name}: {e}")))?;
            let raw = one
                .by_index_raw(0)
                .map_err(|e| werr(format!("wrapping {name}: {e}")))?;
            zout.raw_copy_file_touch(raw, when, Some(mode))
                .map_err(|e| wout(format!("writing {name}"), e))?;
            record.push((renamed.clone(), p.record_hash.clone(), p.size));
            continue;
        }
        if let Some(data) = plan.replace.get(name) {
            drop(member);
            write_new(&mut zout, &mut record, &renamed, data, mode)?;
        } else if renamed == format!("{new_dist}/METADATA") {
            let data = read_checked(&mut member, name)?;
            drop(member);
            let text = String::from_utf8_lossy(&data);
            let (new, d) = rewrite_metadata_text(&text, &new_version, plan.target.as_deref());
            dropped = d;
            write_new(&mut zout, &mut record, &renamed, new.as_bytes(), mode)?;
        } else if renamed == format!("{new_dist}/WHEEL") {
            let data = read_checked(&mut member, name)?;
            drop(member);
            let text = rewrite_wheel_text(
                &String::from_utf8_lossy(&data),
                &expand_tags(&wname.tags),
                wname.build.as_deref(),
            );
            write_new(&mut zout, &mut record, &renamed, text.as_bytes(), mode)?;
        } else if renamed != *name {
            let data = read_checked(&mut member, name)?;
            drop(member);
            write_new(&mut zout, &mut record, &renamed, &data, mode)?;
        } else {
            // Untouched: raw copy, and hash the decompressed bytes for RECORD.
            let (declared, at) = (member.size(), member.header_start());
            let mut h = Sha256::new();
            let mut h_other = plan
                .verify_record
                .get(name.as_str())
                .and_then(|r| r.needs())
                .map(|a| a.hasher());
            let mut n = 0u64;
            let mut buf = vec![0u8; 1 << 16];
            let mut limited = (&mut member).take(declared + 1);
            loop {
                let k = limited.read(&mut buf).map_err(|e| {
                    Error::at(ErrorKind::Wheel, &display, at, format!("{name}: {e}"))
                })?;
                if k == 0 {
                    break;
                }
                h.update(&buf[..k]);
                if let Some(o) = h_other.as_mut() {
                    o.update(&buf[..k]);
                }
                n += k as u64;
            }
            drop(member);
            if n != declared {
                return Err(Error::at(
                    ErrorKind::Wheel,
                    &display,
                    at,
                    format!("member {name} does not expand to its declared {declared} bytes"),
                ));
            }
            let digest = h.finalize();
            let other = h_other.map(|o| o.finalize().into_vec());
            verify(name, at, &digest, other.as_deref(), n)?;
            let index = zin
                .index_for_name(name)
                .ok_or_else(|| werr(format!("member {name} vanished")))?;
            let raw = zin
                .by_index_raw(index)
                .map_err(|e| werr(format!("member {name}: {e}")))?;
            zout.raw_copy_file_touch(raw, when, Some(mode))
                .map_err(|e| wout(format!("copying {name}"), e))?;
            let digest = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(digest);
            record.push((name.clone(), format!("sha256={digest}"), n));
        }
    }
    for (fname, data) in &plan.dist_info_extra {
        write_new(
            &mut zout,
            &mut record,
            &format!("{new_dist}/{fname}"),
            data,
            0o644,
        )?;
    }
    let mut rec = String::new();
    for (n, h, s) in &record {
        rec.push_str(&format!("{},{h},{s}\n", csv_field(n)));
    }
    let record_name = format!("{new_dist}/RECORD");
    rec.push_str(&format!("{},,\n", csv_field(&record_name)));
    let opts = SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated)
        .last_modified_time(when)
        .unix_permissions(0o644);
    zout.start_file(record_name.as_str(), opts)
        .map_err(|e| wout("writing RECORD".into(), e))?;
    zout.write_all(rec.as_bytes())
        .map_err(|e| Error::io(&out_display, e))?;
    let mut w = zout
        .finish()
        .map_err(|e| wout("finishing the archive".into(), e))?;
    w.flush()
        .map_err(|e| Error::io(out_path.display().to_string(), e))?;
    drop(w);
    // NamedTempFile creates 0600; a wheel is a normal readable file.
    std::fs::set_permissions(
        tmp.path(),
        std::os::unix::fs::PermissionsExt::from_mode(0o644),
    )
    .map_err(|e| Error::io(out_path.display().to_string(), e))?;
    tmp.persist(&out_path)
        .map_err(|e| Error::io(out_path.display().to_string(), e.error))?;
    Ok(Repacked {
        path: out_path,
        dropped_requirements: dropped,
        version: new_version,
    })
}

/// A RECORD path field, quoted as Python's `csv` module quotes (only when needed).
fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// METADATA with `Version` replaced and CUDA-only `Requires-Dist` lines removed (by the
/// `target`'s rows of `targets/requires-dist.tsv`, or [`is_cuda_only_requirement`] when no
/// target is given); returns the text and the removed requirements.
fn rewrite_metadata_text(text: &str, version: &str, target: Option<&str>) -> (String, Vec<String>) {
    let (head, body) = match text.find("\n\n") {
        Some(i) => (&text[..i + 1], &text[i + 1..]),
        None => (text, ""),
    };
    let mut out = String::with_capacity(text.len());
    let mut dropped = Vec::new();
    for line in head.lines() {
        if line.starts_with("Version:") {
            out.push_str(&format!("Version: {version}\n"));
            continue;
        }
        if let Some(req) = line.strip_prefix("Requires-Dist:") {
            let drop = match target {
                Some(t) => super::requirements::dropped_by(t, req).is_some(),
                None => is_cuda_only_requirement(req),
            };
            if drop {
                dropped.push(req.trim().to_string());
                continue;
            }
        }
        out.push_str(line);
        out.push('\n');
    }
    out.push_str(body);
    (out, dropped)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_and_wheel_text() {
        assert_eq!(
            expand_tags("cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64"),
            vec![
                "cp311-cp311-manylinux_2_17_x86_64",
                "cp311-cp311-manylinux2014_x86_64"
            ]
        );
        let w = rewrite_wheel_text(
            "Wheel-Version: 1.0\nRoot-Is-Purelib: false\nTag: cp311-cp311-linux_x86_64\n",
            &["cp311-cp311-manylinux1_x86_64".into()],
            None,
        );
        assert_eq!(
            w,
            "Wheel-Version: 1.0\nRoot-Is-Purelib: false\nTag: cp311-cp311-manylinux1_x86_64\n\n"
        );
        let (m, d) = rewrite_metadata_text(
            "Name: x\nVersion: 1.0+cu12\nRequires-Dist: torch\nRequires-Dist: nvidia-cublas-cu12\n\nbody\n",
            "1.0+dtk",
            Some("dtk"),
        );
        assert_eq!(
            m,
            "Name: x\nVersion: 1.0+dtk\nRequires-Dist: torch\n\nbody\n"
        );
        assert_eq!(d, vec!["nvidia-cublas-cu12"]);
    }
}
