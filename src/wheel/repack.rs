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
        .and_then(|t| zip::DateTime::try_from(t).ok())
        .unwrap_or(min)
}

/// Repack `input` into `out_dir` following `plan`; returns the new wheel's path.
///
/// # Errors
/// [`ErrorKind::Wheel`] for a malformed input (file name, missing `.dist-info`), and I/O
/// errors of the output; in both cases no output file is left behind.
pub fn repack(input: &Path, out_dir: &Path, plan: &RepackPlan) -> Result<PathBuf> {
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

    let f = std::fs::File::open(input).map_err(|e| Error::io(&display, e))?;
    let mut zin = zip::ZipArchive::new(f)
        .map_err(|e| werr(format!("not a valid wheel (zip) archive: {e}")))?;
    let names: Vec<String> = zin.file_names().map(str::to_string).collect();
    if !names.iter().any(|n| n == &format!("{old_dist}/METADATA")) {
        return Err(werr(format!(
            "{old_dist}/METADATA is missing (the file name and the .dist-info directory disagree)"
        )));
    }
    // Output order: input order, .dist-info last, RECORD last of all.
    let mut order: Vec<&String> = names
        .iter()
        .filter(|n| !n.starts_with(&format!("{old_dist}/")))
        .collect();
    order.extend(
        names
            .iter()
            .filter(|n| n.starts_with(&format!("{old_dist}/"))),
    );

    std::fs::create_dir_all(out_dir).map_err(|e| Error::io(out_dir.display().to_string(), e))?;
    let out_path = out_dir.join(wname.file_name());
    let tmp = tempfile::NamedTempFile::new_in(out_dir)
        .map_err(|e| Error::io(out_dir.display().to_string(), e))?;
    let mut zout = zip::ZipWriter::new(
        tmp.as_file()
            .try_clone()
            .map_err(|e| Error::io(&display, e))?,
    );
    let when = zip_time(plan.source_date_epoch);
    let mut record: Vec<(String, String, usize)> = Vec::new();
    let write_new = |zout: &mut zip::ZipWriter<std::fs::File>,
                     record: &mut Vec<(String, String, usize)>,
                     name: &str,
                     data: &[u8],
                     mode: u32|
     -> Result<()> {
        let opts = SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated)
            .last_modified_time(when)
            .unix_permissions(mode);
        zout.start_file(name, opts)
            .map_err(|e| werr(format!("writing {name}: {e}")))?;
        zout.write_all(data).map_err(|e| Error::io(&display, e))?;
        record.push((name.to_string(), record_hash(data), data.len()));
        Ok(())
    };
    for name in order {
        let base = name.rsplit('/').next().unwrap_or(name);
        if name.starts_with(&format!("{old_dist}/"))
            && matches!(base, "RECORD" | "RECORD.jws" | "RECORD.p7s")
        {
            continue;
        }
        if name.ends_with('/') {
            continue; // directory entries are implied
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
        let rewrite_metadata = renamed == format!("{new_dist}/METADATA");
        if let Some(data) = plan.replace.get(name) {
            drop(member);
            write_new(&mut zout, &mut record, &renamed, data, mode)?;
        } else if rewrite_metadata {
            let mut text = String::new();
            member
                .read_to_string(&mut text)
                .map_err(|e| werr(format!("{name}: {e}")))?;
            drop(member);
            let new = rewrite_metadata_text(&text, &new_version);
            write_new(&mut zout, &mut record, &renamed, new.as_bytes(), mode)?;
        } else if renamed != *name {
            let mut data = Vec::new();
            member
                .read_to_end(&mut data)
                .map_err(|e| werr(format!("{name}: {e}")))?;
            drop(member);
            write_new(&mut zout, &mut record, &renamed, &data, mode)?;
        } else {
            // Untouched: raw copy, and hash the decompressed bytes for RECORD.
            let mut h = Sha256::new();
            let mut n = 0usize;
            let mut buf = vec![0u8; 1 << 16];
            loop {
                let k = member
                    .read(&mut buf)
                    .map_err(|e| werr(format!("{name}: {e}")))?;
                if k == 0 {
                    break;
                }
                h.update(&buf[..k]);
                n += k;
            }
            drop(member);
            let digest = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(h.finalize());
            let index = zin
                .index_for_name(name)
                .ok_or_else(|| werr(format!("member {name} vanished")))?;
            let raw = zin
                .by_index_raw(index)
                .map_err(|e| werr(format!("member {name}: {e}")))?;
            zout.raw_copy_file_touch(raw, when, Some(mode))
                .map_err(|e| werr(format!("copying {name}: {e}")))?;
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
        rec.push_str(&format!("{n},{h},{s}\n"));
    }
    let record_name = format!("{new_dist}/RECORD");
    rec.push_str(&format!("{record_name},,\n"));
    let opts = SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated)
        .last_modified_time(when)
        .unix_permissions(0o644);
    zout.start_file(record_name.as_str(), opts)
        .map_err(|e| werr(format!("writing RECORD: {e}")))?;
    zout.write_all(rec.as_bytes())
        .map_err(|e| Error::io(&display, e))?;
    zout.finish()
        .map_err(|e| werr(format!("finishing the archive: {e}")))?;
    tmp.persist(&out_path)
        .map_err(|e| Error::io(out_path.display().to_string(), e.error))?;
    Ok(out_path)
}

/// METADATA with `Version` replaced and CUDA-only `Requires-Dist` lines removed.
fn rewrite_metadata_text(text: &str, version: &str) -> String {
    let (head, body) = match text.find("\n\n") {
        Some(i) => (&text[..i + 1], &text[i + 1..]),
        None => (text, ""),
    };
    let mut out = String::with_capacity(text.len());
    for line in head.lines() {
        if let Some(v) = line.strip_prefix("Version:") {
            let _ = v;
            out.push_str(&format!("Version: {version}\n"));
        } else if line
            .strip_prefix("Requires-Dist:")
            .is_some_and(is_cuda_only_requirement)
        {
            continue;
        } else {
            out.push_str(line);
            out.push('\n');
        }
    }
    out.push_str(body);
    out
}
