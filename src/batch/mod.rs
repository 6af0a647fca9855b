//! `wheelport batch`: convert a whole pip index mirror, incrementally, crash-safely and in
//! shards.
//!
//! Input: a PEP 503 simple-index directory tree or a flat directory of wheels
//! ([`mirror::scan`]). Output: a new PEP 503/691 tree ([`index`]) in which every CUDA wheel is
//! replaced by its conversion and every other file is hard-linked (or copied) as it was.
//!
//! # Guarantees
//! * **Incremental.** Each input file gets a record `OUT/.wheelport/records/<key>.json`,
//!   `key = sha256(input sha256, converter fingerprint)`. A re-run skips every file whose
//!   record exists and whose output still has the recorded sha256, so only new or changed
//!   wheels are converted. Outputs and records of files that left the mirror are removed.
//! * **Crash-safe.** Every file is written to `OUT/.wheelport/tmp/` and renamed into place;
//!   a record is written only after its output. A run killed at any moment and started again
//!   finishes with the same tree as an uninterrupted run (`tmp/` is emptied at the start and
//!   removed at the end).
//! * **Sharded.** `--shard K/N` takes the projects whose `sha256(normalized name)` is `K-1`
//!   modulo `N`, so N jobs (CI matrix, Kubernetes Indexed Job) split a mirror without
//!   coordination; a shard writes no root pages. `--merge` copies shard trees into one and
//!   writes the root pages and the summary, giving the same tree as a single run.
//!
//! Failed conversions are not published (a CUDA wheel that cannot run on the target would
//! only fail later); they are listed in the summary with the reason. Signatures (`.asc`,
//! `data-gpg-sig`) and PEP 740 provenance of the source index are not carried: they would not
//! match the converted files.

pub mod index;
pub mod mirror;
pub mod process;

use crate::error::{Error, ErrorKind, Result};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, BTreeSet};
use std::io::Read;
use std::path::{Path, PathBuf};

/// What a converter did with one input wheel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Conversion {
    /// Not a CUDA wheel (no CUDA device code or library): published unchanged.
    NotCuda,
    /// Converted; the new wheel was written into the work directory given to
    /// [`Converter::convert`]. `untranslated` lists kernels not translated (then the
    /// conversion is *partial*).
    Converted {
        /// The output wheel (inside the work directory).
        file: PathBuf,
        /// `"<so>: <kernel>: <reason>"` for each kernel not translated.
        untranslated: Vec<String>,
    },
    /// The conversion failed; nothing is published for this file.
    Failed {
        /// One line for the summary.
        reason: String,
    },
}

/// Converts one wheel. Implemented by the convert pipeline for real runs.
pub trait Converter: Sync {
    /// Convert `wheel`, writing any output into the empty directory `work_dir`.
    fn convert(&self, wheel: &Path, work_dir: &Path) -> Conversion;
    /// A string that changes whenever the converter would produce different output for the
    /// same input (tool version, target, options): part of the cache key.
    fn fingerprint(&self) -> String;
}

/// Options of one batch run.
#[derive(Clone, Debug)]
pub struct Options {
    /// The input mirror (PEP 503 tree or flat directory).
    pub mirror: PathBuf,
    /// The output tree.
    pub out: PathBuf,
    /// Parallel conversions (rayon threads); 0 means the number of CPUs.
    pub jobs: usize,
    /// `(k, n)` with `1 <= k <= n`: only this shard's projects.
    pub shard: Option<(u32, u32)>,
}

/// Status of one input file in the summary.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Converted with every kernel translated.
    Converted,
    /// Converted with some kernels not translated (listed).
    Partial,
    /// Not converted; not published.
    Failed,
    /// Published unchanged (not a CUDA wheel, or not a wheel).
    Copied,
}

/// The published file of a record.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Output {
    /// File name in `OUT/files/`.
    pub filename: String,
    /// sha256, lower-case hex.
    pub sha256: String,
    /// Size in bytes.
    pub size: u64,
    /// sha256 of `OUT/files/<filename>.metadata`, for wheels.
    pub metadata_sha256: Option<String>,
}

/// What happened to one input file (`OUT/.wheelport/records/<key>.json`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Record {
    /// Input file name.
    pub input: String,
    /// Input sha256, lower-case hex.
    pub input_sha256: String,
    /// Normalized project name.
    pub project: String,
    /// Outcome.
    pub status: Status,
    /// The published file (absent when failed).
    pub output: Option<Output>,
    /// Why it failed, or why it is partial.
    pub reason: Option<String>,
    /// Kernels not translated (partial conversions).
    pub untranslated: Vec<String>,
}

/// The summary of a run (also `OUT/.wheelport/summary.json` after a full run or a merge).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Summary {
    /// Schema identification: [`SUMMARY_SCHEMA`].
    pub schema: String,
    /// Files converted with every kernel translated.
    pub converted: usize,
    /// Partial conversions.
    pub partial: usize,
    /// Failures.
    pub failed: usize,
    /// Files published unchanged.
    pub copied: usize,
    /// Files taken from the cache of an earlier run (not converted again) in this run.
    #[serde(skip)]
    pub reused: usize,
    /// Every record, sorted by project then input file name.
    pub records: Vec<Record>,
}

fn err(path: &Path, m: impl Into<String>) -> Error {
    Error::new(ErrorKind::Input, path.display().to_string(), m)
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> Error + '_ {
    move |e| Error::io(path.display().to_string(), e)
}

fn hex(d: impl AsRef<[u8]>) -> String {
    d.as_ref().iter().map(|b| format!("{b:02x}")).collect()
}

/// sha256 and size of a file, streamed.
pub fn sha256_file(path: &Path) -> Result<(String, u64)> {
    let mut f = std::fs::File::open(path).map_err(io(path))?;
    let mut h = Sha256::new();
    let mut buf = vec![0u8; 1 << 20];
    let mut n = 0u64;
    loop {
        let k = f.read(&mut buf).map_err(io(path))?;
        if k == 0 {
            break;
        }
        h.update(&buf[..k]);
        n += k as u64;
    }
    Ok((hex(h.finalize()), n))
}

/// Which shard (0-based) of `n` a project belongs to.
pub fn shard_of(project: &str, n: u32) -> u32 {
    let d = Sha256::digest(project.as_bytes());
    (u64::from_be_bytes(d[..8].try_into().expect("8 bytes")) % u64::from(n)) as u32
}

/// The state directory layout under the output tree.
struct Tree {
    out: PathBuf,
}

impl Tree {
    fn state(&self) -> PathBuf {
        self.out.join(".wheelport")
    }
    fn tmp(&self) -> PathBuf {
        self.state().join("tmp")
    }
    fn records(&self) -> PathBuf {
        self.state().join("records")
    }
    fn files(&self) -> PathBuf {
        self.out.join("files")
    }
    fn simple(&self) -> PathBuf {
        self.out.join("simple")
    }

    /// A fresh, unique temporary path in `tmp/`.
    fn temp(&self, hint: &str) -> PathBuf {
        use std::sync::atomic::{AtomicU64, Ordering};
        static N: AtomicU64 = AtomicU64::new(0);
        self.tmp().join(format!(
            "{}-{}-{hint}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ))
    }

    /// Write `data` to `dest` atomically (temp file, fsync, rename).
    fn write_atomic(&self, dest: &Path, data: &[u8]) -> Result<()> {
        if std::fs::read(dest).map(|d| d == data).unwrap_or(false) {
            return Ok(());
        }
        let t = self.temp("w");
        {
            use std::io::Write;
            let mut f = std::fs::File::create(&t).map_err(io(&t))?;
            f.write_all(data).map_err(io(&t))?;
            f.sync_all().map_err(io(&t))?;
        }
        if let Some(p) = dest.parent() {
            std::fs::create_dir_all(p).map_err(io(p))?;
        }
        std::fs::rename(&t, dest).map_err(io(dest))
    }

    /// Publish `src` as `dest` atomically, hard-linking when possible. A symlink is followed:
    /// the file it names is published (link(2) would link the symlink itself).
    fn place(&self, src: &Path, dest: &Path) -> Result<()> {
        let src = &std::fs::canonicalize(src).map_err(io(src))?;
        let t = self.temp("p");
        if std::fs::hard_link(src, &t).is_err() {
            std::fs::copy(src, &t).map_err(io(src))?;
        }
        std::fs::rename(&t, dest).map_err(io(dest))
    }
}

/// The METADATA member of a wheel (PEP 658 serves it as `<file>.metadata`).
fn wheel_metadata(path: &Path) -> Result<Vec<u8>> {
    let f = std::fs::File::open(path).map_err(io(path))?;
    let mut z =
        zip::ZipArchive::new(f).map_err(|e| err(path, format!("not a zip archive: {e}")))?;
    let names: Vec<String> = z
        .file_names()
        .filter_map(|n| n.ok())
        .filter(|n| n.ends_with(".dist-info/METADATA") && n.matches('/').count() == 1)
        .map(|n| n.into_owned())
        .collect();
    let [name] = names.as_slice() else {
        return Err(err(
            path,
            format!(
                "expected exactly one top-level *.dist-info/METADATA, found {}",
                names.len()
            ),
        ));
    };
    let mut m = z
        .by_name(name)
        .map_err(|e| err(path, format!("{name}: {e}")))?;
    const LIMIT: u64 = 16 << 20;
    if m.size() > LIMIT {
        return Err(err(
            path,
            format!("{name} declares {} bytes (limit {LIMIT})", m.size()),
        ));
    }
    let mut data = Vec::with_capacity(m.size() as usize);
    (&mut m)
        .take(LIMIT + 1)
        .read_to_end(&mut data)
        .map_err(|e| err(path, format!("{name}: {e}")))?;
    if data.len() as u64 > LIMIT {
        return Err(err(path, format!("{name} is larger than {LIMIT} bytes")));
    }
    Ok(data)
}

fn record_key(input_sha: &str, fingerprint: &str) -> String {
    let mut h = Sha256::new();
    h.update(input_sha.as_bytes());
    h.update([0]);
    h.update(fingerprint.as_bytes());
    hex(h.finalize())
}

/// Check that a record's published file is still there with its hashes.
fn record_valid(tree: &Tree, r: &Record) -> bool {
    let Some(o) = &r.output else {
        return r.status == Status::Failed;
    };
    let f = tree.files().join(&o.filename);
    let ok = matches!(sha256_file(&f), Ok((h, n)) if h == o.sha256 && n == o.size);
    let meta_ok = match &o.metadata_sha256 {
        None => true,
        Some(m) => matches!(
            sha256_file(&tree.files().join(format!("{}.metadata", o.filename))),
            Ok((h, _)) if &h == m
        ),
    };
    ok && meta_ok
}

fn publish(tree: &Tree, src: &Path, filename: &str) -> Result<Output> {
    let dest = tree.files().join(filename);
    let (sha256, size) = sha256_file(src)?;
    tree.place(src, &dest)?;
    let metadata_sha256 = if filename.ends_with(".whl") {
        let m = wheel_metadata(&dest)?;
        tree.write_atomic(&tree.files().join(format!("{filename}.metadata")), &m)?;
        Some(hex(Sha256::digest(&m)))
    } else {
        None
    };
    Ok(Output {
        filename: filename.to_string(),
        sha256,
        size,
        metadata_sha256,
    })
}

/// Convert (or reuse) one input file; returns its record and whether it was reused.
fn process(
    tree: &Tree,
    d: &mirror::Dist,
    conv: &dyn Converter,
    fingerprint: &str,
) -> Result<(Record, bool)> {
    let (input_sha256, _) = sha256_file(&d.path)?;
    let key = record_key(&input_sha256, fingerprint);
    let rec_path = tree.records().join(format!("{key}.json"));
    if let Ok(text) = std::fs::read(&rec_path) {
        if let Ok(r) = serde_json::from_slice::<Record>(&text) {
            if r.input == d.filename && record_valid(tree, &r) {
                return Ok((r, true));
            }
        }
    }
    let mut r = Record {
        input: d.filename.clone(),
        input_sha256: input_sha256.clone(),
        project: d.project.clone(),
        status: Status::Copied,
        output: None,
        reason: None,
        untranslated: Vec::new(),
    };
    if let Some(expected) = &d.index_sha256 {
        if expected != &input_sha256 {
            r.status = Status::Failed;
            r.reason = Some(format!(
                "the source index says sha256={expected} but the file has {input_sha256}"
            ));
        }
    }
    if r.status != Status::Failed {
        if d.filename.ends_with(".whl") {
            let work = tree.temp("convert");
            std::fs::create_dir_all(&work).map_err(io(&work))?;
            match conv.convert(&d.path, &work) {
                Conversion::NotCuda => r.output = Some(publish(tree, &d.path, &d.filename)?),
                Conversion::Converted { file, untranslated } => {
                    let name = file
                        .file_name()
                        .map(|n| n.to_string_lossy().into_owned())
                        .ok_or_else(|| err(&file, "the converter returned no file name"))?;
                    r.output = Some(publish(tree, &file, &name)?);
                    r.status = if untranslated.is_empty() {
                        Status::Converted
                    } else {
                        r.reason = Some(format!("{} kernel(s) not translated", untranslated.len()));
                        Status::Partial
                    };
                    r.untranslated = untranslated;
                }
                Conversion::Failed { reason } => {
                    r.status = Status::Failed;
                    r.reason = Some(reason);
                }
            }
            let _ = std::fs::remove_dir_all(&work);
        } else {
            r.output = Some(publish(tree, &d.path, &d.filename)?);
        }
    }
    let mut text = serde_json::to_vec_pretty(&r).expect("records serialize");
    text.push(b'\n');
    tree.write_atomic(&rec_path, &text)?;
    Ok((r, false))
}

/// Remove `dir` and everything in it. A process of a killed earlier run may still be
/// exiting (its children get SIGKILL through [`crate::toolchain::child_command`], which
/// is asynchronous), so a removal racing with its last writes is retried.
fn remove_tree(dir: &Path) -> Result<()> {
    let mut tries = 0;
    loop {
        match std::fs::remove_dir_all(dir) {
            Ok(()) => return Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
            Err(_) if tries < 50 => {
                tries += 1;
                std::thread::sleep(std::time::Duration::from_millis(100));
            }
            Err(e) => return Err(io(dir)(e)),
        }
    }
}

fn prepare(tree: &Tree) -> Result<()> {
    let tmp = tree.tmp();
    remove_tree(&tmp)?;
    for d in [tmp, tree.records(), tree.files(), tree.simple()] {
        std::fs::create_dir_all(&d).map_err(io(&d))?;
    }
    Ok(())
}

fn project_pages(
    tree: &Tree,
    project: &str,
    dists: &[mirror::Dist],
    records: &[&Record],
) -> Result<()> {
    let mut files = Vec::new();
    for r in records {
        let Some(o) = &r.output else { continue };
        let src = dists.iter().find(|d| d.filename == r.input);
        let version = mirror::parse_filename(&o.filename)
            .map(|(_, v)| v)
            .unwrap_or_default();
        files.push(index::FileEntry {
            filename: o.filename.clone(),
            sha256: o.sha256.clone(),
            size: o.size,
            metadata_sha256: o.metadata_sha256.clone(),
            requires_python: src.and_then(|d| d.requires_python.clone()),
            yanked: src.and_then(|d| d.yanked.clone()),
            version,
        });
    }
    files.sort_by(|a, b| a.filename.cmp(&b.filename));
    let dir = tree.simple().join(project);
    if files.is_empty() {
        if dir.exists() {
            std::fs::remove_dir_all(&dir).map_err(io(&dir))?;
        }
        return Ok(());
    }
    tree.write_atomic(
        &dir.join("index.html"),
        index::project_html(project, &files).as_bytes(),
    )?;
    tree.write_atomic(
        &dir.join("index.json"),
        index::project_json(project, &files).as_bytes(),
    )
}

/// Remove what a run did not produce: outputs, sidecars, project pages and records of files
/// that left the mirror. Only entries of projects `owned` by this run are touched, so shards
/// writing into one shared tree do not remove each other's files.
fn prune(
    tree: &Tree,
    keep_files: &BTreeSet<String>,
    keep_projects: &BTreeSet<String>,
    keep_records: &BTreeSet<String>,
    owned: &dyn Fn(&str) -> bool,
) -> Result<()> {
    let file_project = |name: &str| {
        let dist = name.strip_suffix(".metadata").unwrap_or(name);
        mirror::parse_filename(dist).map(|(n, _)| mirror::normalize(&n))
    };
    for e in std::fs::read_dir(tree.files()).map_err(io(&tree.files()))? {
        let p = e.map_err(io(&tree.files()))?.path();
        let name = p
            .file_name()
            .expect("entries have names")
            .to_string_lossy()
            .into_owned();
        let mine = file_project(&name).is_none_or(|proj| owned(&proj));
        if mine && !keep_files.contains(&name) {
            std::fs::remove_file(&p).map_err(io(&p))?;
        }
    }
    for e in std::fs::read_dir(tree.simple()).map_err(io(&tree.simple()))? {
        let p = e.map_err(io(&tree.simple()))?.path();
        let name = p
            .file_name()
            .expect("entries have names")
            .to_string_lossy()
            .into_owned();
        // Root pages are files; they are rewritten by `finish`.
        if p.is_dir() && owned(&name) && !keep_projects.contains(&name) {
            std::fs::remove_dir_all(&p).map_err(io(&p))?;
        }
    }
    for e in std::fs::read_dir(tree.records()).map_err(io(&tree.records()))? {
        let p = e.map_err(io(&tree.records()))?.path();
        let name = p
            .file_name()
            .expect("entries have names")
            .to_string_lossy()
            .into_owned();
        if keep_records.contains(&name) {
            continue;
        }
        let mine = std::fs::read(&p)
            .ok()
            .and_then(|t| serde_json::from_slice::<Record>(&t).ok())
            .is_none_or(|r| owned(&r.project));
        if mine {
            std::fs::remove_file(&p).map_err(io(&p))?;
        }
    }
    Ok(())
}

/// Read every record under `OUT/.wheelport/records`.
fn read_records(tree: &Tree) -> Result<Vec<Record>> {
    let mut v = Vec::new();
    let dir = tree.records();
    if !dir.exists() {
        return Ok(v);
    }
    for e in std::fs::read_dir(&dir).map_err(io(&dir))? {
        let p = e.map_err(io(&dir))?.path();
        let text = std::fs::read(&p).map_err(io(&p))?;
        let r: Record = serde_json::from_slice(&text)
            .map_err(|e| err(&p, format!("not a batch record: {e}")))?;
        v.push(r);
    }
    Ok(v)
}

/// Schema name and version of [`Summary`] (`docs/batch-summary.schema.json`).
pub const SUMMARY_SCHEMA: &str = "wheelport-batch-summary/1";

/// The JSON Schema of [`Summary`], as committed in `docs/batch-summary.schema.json`.
pub fn json_schema() -> serde_json::Value {
    serde_json::to_value(schemars::schema_for!(Summary)).expect("schema serializes")
}

fn summarize(mut records: Vec<Record>) -> Summary {
    records.sort_by(|a, b| (&a.project, &a.input).cmp(&(&b.project, &b.input)));
    let mut s = Summary {
        schema: SUMMARY_SCHEMA.to_string(),
        ..Summary::default()
    };
    for r in &records {
        match r.status {
            Status::Converted => s.converted += 1,
            Status::Partial => s.partial += 1,
            Status::Failed => s.failed += 1,
            Status::Copied => s.copied += 1,
        }
    }
    s.records = records;
    s
}

/// Write the root pages and `.wheelport/summary.json` from the project pages and records
/// present in the tree.
fn finish(tree: &Tree) -> Result<Summary> {
    let mut projects = Vec::new();
    for e in std::fs::read_dir(tree.simple()).map_err(io(&tree.simple()))? {
        let e = e.map_err(io(&tree.simple()))?;
        if e.path().join("index.html").is_file() {
            projects.push(e.file_name().to_string_lossy().into_owned());
        }
    }
    projects.sort();
    tree.write_atomic(
        &tree.simple().join("index.html"),
        index::root_html(&projects).as_bytes(),
    )?;
    tree.write_atomic(
        &tree.simple().join("index.json"),
        index::root_json(&projects).as_bytes(),
    )?;
    let summary = summarize(read_records(tree)?);
    let mut text = serde_json::to_vec_pretty(&summary).expect("summary serializes");
    text.push(b'\n');
    tree.write_atomic(&tree.state().join("summary.json"), &text)?;
    Ok(summary)
}

fn cleanup(tree: &Tree) -> Result<()> {
    remove_tree(&tree.tmp())
}

/// Run a batch conversion (see the module docs). `progress` is called after each file.
///
/// # Errors
/// An unreadable mirror or page ([`mirror::scan`]), or an I/O error writing the output tree.
/// A wheel that fails to convert is not an error: it is a [`Status::Failed`] record.
pub fn run(
    opts: &Options,
    conv: &dyn Converter,
    progress: &(dyn Fn(&Record) + Sync),
) -> Result<Summary> {
    let projects = mirror::scan(&opts.mirror)?;
    let projects: BTreeMap<String, Vec<mirror::Dist>> = match opts.shard {
        Some((k, n)) => projects
            .into_iter()
            .filter(|(p, _)| shard_of(p, n) == k - 1)
            .collect(),
        None => projects,
    };
    let tree = Tree {
        out: opts.out.clone(),
    };
    prepare(&tree)?;
    let fingerprint = conv.fingerprint();
    // Largest inputs first (longest-processing-time-first scheduling), one file per task,
    // so that two workers finish close together.
    let mut dists: Vec<(u64, &mirror::Dist)> = projects
        .values()
        .flatten()
        .map(|d| (std::fs::metadata(&d.path).map(|m| m.len()).unwrap_or(0), d))
        .collect();
    dists.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.filename.cmp(&b.1.filename)));
    let dists: Vec<&mirror::Dist> = dists.into_iter().map(|(_, d)| d).collect();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(opts.jobs)
        .build()
        .map_err(|e| {
            err(
                &opts.out,
                format!("cannot start {} worker threads: {e}", opts.jobs),
            )
        })?;
    let results: Vec<Result<(Record, bool)>> = pool.install(|| {
        dists
            .par_iter()
            .with_max_len(1)
            .map(|d| {
                let r = process(&tree, d, conv, &fingerprint);
                if let Ok((rec, _)) = &r {
                    progress(rec);
                }
                r
            })
            .collect()
    });
    let mut records = Vec::with_capacity(results.len());
    let mut reused = 0;
    for r in results {
        let (rec, was_reused) = r?;
        reused += usize::from(was_reused);
        records.push(rec);
    }
    // Two inputs converting to the same output name would overwrite each other.
    let mut seen: BTreeMap<&str, &str> = BTreeMap::new();
    for r in &records {
        if let Some(o) = &r.output {
            if let Some(prev) = seen.insert(&o.filename, &r.input) {
                return Err(err(
                    &opts.mirror,
                    format!("{prev} and {} both become {}", r.input, o.filename),
                ));
            }
        }
    }
    for (project, ds) in &projects {
        let recs: Vec<&Record> = records.iter().filter(|r| &r.project == project).collect();
        project_pages(&tree, project, ds, &recs)?;
    }
    let mut keep_files = BTreeSet::new();
    for o in records.iter().filter_map(|r| r.output.as_ref()) {
        keep_files.insert(o.filename.clone());
        if o.metadata_sha256.is_some() {
            keep_files.insert(format!("{}.metadata", o.filename));
        }
    }
    let keep_projects: BTreeSet<String> = records
        .iter()
        .filter(|r| r.output.is_some())
        .map(|r| r.project.clone())
        .collect();
    let keep_records: BTreeSet<String> = records
        .iter()
        .map(|r| format!("{}.json", record_key(&r.input_sha256, &fingerprint)))
        .collect();
    let owned = |project: &str| match opts.shard {
        Some((k, n)) => shard_of(project, n) == k - 1,
        None => true,
    };
    prune(&tree, &keep_files, &keep_projects, &keep_records, &owned)?;
    let mut summary = if opts.shard.is_some() {
        summarize(records)
    } else {
        finish(&tree)?
    };
    summary.reused = reused;
    cleanup(&tree)?;
    Ok(summary)
}

/// Merge shard output trees into `out` (which may itself be one of them, or the tree every
/// shard wrote into) and write the root pages and the summary.
///
/// # Errors
/// I/O errors; a file or project page present in two shards with different contents.
pub fn merge(out: &Path, shards: &[PathBuf]) -> Result<Summary> {
    let tree = Tree {
        out: out.to_path_buf(),
    };
    prepare(&tree)?;
    for s in shards {
        if s.canonicalize().ok() == out.canonicalize().ok() {
            continue;
        }
        let st = Tree { out: s.clone() };
        for (from, to) in [(st.files(), tree.files()), (st.records(), tree.records())] {
            for e in std::fs::read_dir(&from).map_err(io(&from))? {
                let p = e.map_err(io(&from))?.path();
                let dest = to.join(p.file_name().expect("entries have names"));
                merge_file(&tree, &p, &dest)?;
            }
        }
        for e in std::fs::read_dir(st.simple()).map_err(io(&st.simple()))? {
            let p = e.map_err(io(&st.simple()))?.path();
            if !p.is_dir() {
                continue;
            }
            let dest_dir = tree
                .simple()
                .join(p.file_name().expect("entries have names"));
            std::fs::create_dir_all(&dest_dir).map_err(io(&dest_dir))?;
            for page in ["index.html", "index.json"] {
                merge_file(&tree, &p.join(page), &dest_dir.join(page))?;
            }
        }
    }
    let summary = finish(&tree)?;
    cleanup(&tree)?;
    Ok(summary)
}

fn merge_file(tree: &Tree, src: &Path, dest: &Path) -> Result<()> {
    if dest.exists() {
        let (a, _) = sha256_file(src)?;
        let (b, _) = sha256_file(dest)?;
        if a != b {
            return Err(err(
                src,
                format!("differs from {} already in the merged tree", dest.display()),
            ));
        }
        return Ok(());
    }
    tree.place(src, dest)
}

/// Parse `K/N` (1-based shard K of N).
///
/// # Errors
/// A message when the text is not `K/N` with `1 <= K <= N`.
pub fn parse_shard(s: &str) -> std::result::Result<(u32, u32), String> {
    let (k, n) = s
        .split_once('/')
        .ok_or_else(|| format!("{s:?} is not K/N"))?;
    let k: u32 = k.parse().map_err(|_| format!("{s:?}: K is not a number"))?;
    let n: u32 = n.parse().map_err(|_| format!("{s:?}: N is not a number"))?;
    if k == 0 || n == 0 || k > n {
        return Err(format!("{s:?}: need 1 <= K <= N"));
    }
    Ok((k, n))
}

/// The summary as a terminal table: one line per file with its status, output and reason,
/// then the counts.
pub fn render_table(s: &Summary) -> String {
    use std::fmt::Write as _;
    let w = s
        .records
        .iter()
        .map(|r| r.input.len())
        .max()
        .unwrap_or(5)
        .max(5);
    let mut out = format!("{:<w$}  {:<9}  {}\n", "input", "status", "output / reason");
    for r in &s.records {
        let status = match r.status {
            Status::Converted => "converted",
            Status::Partial => "partial",
            Status::Failed => "FAILED",
            Status::Copied => "copied",
        };
        let what = match (&r.output, &r.reason) {
            (Some(o), Some(why)) => format!("{} ({why})", o.filename),
            (Some(o), None) => o.filename.clone(),
            (None, Some(why)) => why.clone(),
            (None, None) => String::new(),
        };
        let _ = writeln!(out, "{:<w$}  {status:<9}  {what}", r.input);
    }
    let _ = writeln!(
        out,
        "{} converted, {} partial, {} failed, {} copied",
        s.converted, s.partial, s.failed, s.copied
    );
    if s.reused > 0 {
        let _ = writeln!(
            out,
            "{} taken from earlier runs (unchanged input)",
            s.reused
        );
    }
    out
}
