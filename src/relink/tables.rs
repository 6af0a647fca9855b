//! Typed rows of the relink tables, their parser, the built-in tables and user overrides.
//!
//! # File format
//!
//! A table file is UTF-8 text, one row per line, columns separated by one tab. Lines
//! starting with `#` are comments, except `#% key: value` directives; blank lines are
//! ignored. Two directives are required before the first row:
//!
//! * `#% schema: wheelport-relink-symbols/1` or `#% schema: wheelport-relink-sonames/1`;
//! * `#% target: <set>`, the relink-table set (`dtk`, `rocm`, `musa`) the file belongs to.
//!
//! `provenance`, `date` and `domain` directives are kept as they are ([`Table::sources`]).
//! In every column `-` means "none"; no column may be empty.
//!
//! Symbol rows (`wheelport-relink-symbols/1`), 7 columns:
//! `cuda_name cuda_library kind target_name target_library via notes`.
//! Soname rows (`wheelport-relink-sonames/1`), 5 columns:
//! `cuda_soname sdk target_soname kind notes`, where `sdk` is a target SDK major version
//! or `*` for any.
//!
//! # Errors
//!
//! Every problem is a [`TableError`] naming the file and, for a problem on a line, the
//! 1-based line number: a wrong column count, an unknown `kind`, a `rename` row without
//! a target, a row before the directives, a duplicate name within one file, a target
//! directive that does not match the table being merged into.

use std::collections::HashMap;
use std::fmt;
use std::path::Path;
use std::str::FromStr;

/// Schema name of symbol tables.
pub const SYMBOLS_SCHEMA: &str = "wheelport-relink-symbols/1";
/// Schema name of soname tables.
pub const SONAMES_SCHEMA: &str = "wheelport-relink-sonames/1";

/// `Result` with a [`TableError`].
pub type Result<T, E = TableError> = std::result::Result<T, E>;

/// A malformed table, or a table file that could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableError {
    /// The file, as shown to the user (`relink-tables/rocm/cudart12.tsv` for a built-in
    /// table, the path given for a user table).
    pub file: String,
    /// The 1-based line the problem is on, when it is on one.
    pub line: Option<usize>,
    /// What is wrong, without the file name and line.
    pub message: String,
}

impl TableError {
    fn at(file: &str, line: usize, message: impl Into<String>) -> Self {
        TableError {
            file: file.to_string(),
            line: Some(line),
            message: message.into(),
        }
    }
}

impl fmt::Display for TableError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(l) => write!(f, "{}:{}: {}", self.file, l, self.message),
            None => write!(f, "{}: {}", self.file, self.message),
        }
    }
}

impl std::error::Error for TableError {}

impl From<TableError> for crate::Error {
    /// An [`crate::error::ErrorKind::Input`] error for the same file; the line goes into the
    /// message (`line N: ...`).
    fn from(e: TableError) -> Self {
        let msg = match e.line {
            Some(l) => format!("relink table line {l}: {}", e.message),
            None => format!("relink table: {}", e.message),
        };
        crate::Error::new(crate::error::ErrorKind::Input, e.file, msg)
    }
}

/// What a table is for: the relink-table set its rows come from and the target profile
/// whose soname choice and shim it serves.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Target {
    /// The profile name (`dtk`, `rocm`, `musa`, or a profile of `WHEELPORT_TARGETS_DIR`).
    pub profile: String,
    /// The relink-table set (`relink-tables/<set>/`), which every file's `#% target:`
    /// directive names.
    pub set: String,
    /// The SDK major version soname lookups use ([`Table::soname`]); `None`: rows for any
    /// version only.
    pub sdk: Option<String>,
    /// The shim library flavour (`hip`), empty when the target has none.
    pub shim: String,
}

impl Target {
    /// The target of `profile`.
    pub fn of(profile: &crate::target::Profile) -> Target {
        Target {
            profile: profile.name.clone(),
            set: profile.relink_tables.clone(),
            sdk: profile.sdk.clone(),
            shim: profile.shim.clone(),
        }
    }

    /// The profile name (`dtk`, `rocm`, `musa`).
    pub fn name(&self) -> &str {
        &self.profile
    }

    /// Whether the target has the HIP shim library (`shims/hip/`).
    pub fn has_hip_shim(&self) -> bool {
        self.shim == "hip"
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.profile)
    }
}

/// What the relinker does with a CUDA symbol or library.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// Same ABI, new name (and library).
    Rename,
    /// Forwarded to a shim-library function that translates arguments, results or
    /// layouts before calling the target function ([`SymbolRow::via`]).
    Shim,
    /// A shim that only returns success.
    Noop,
    /// No counterpart: the rewriter refuses with the row's notes unless a user table
    /// overrides the row.
    Unsupported,
}

impl Kind {
    /// The word used in the tables.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Rename => "rename",
            Kind::Shim => "shim",
            Kind::Noop => "noop",
            Kind::Unsupported => "unsupported",
        }
    }
}

impl FromStr for Kind {
    type Err = String;
    /// Parse `rename`, `shim`, `noop` or `unsupported`.
    fn from_str(s: &str) -> std::result::Result<Self, String> {
        match s {
            "rename" => Ok(Kind::Rename),
            "shim" => Ok(Kind::Shim),
            "noop" => Ok(Kind::Noop),
            "unsupported" => Ok(Kind::Unsupported),
            o => Err(format!(
                "unknown kind {o:?} (expected rename, shim, noop or unsupported)"
            )),
        }
    }
}

/// Where a row came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Origin {
    /// The file, as shown to the user.
    pub file: String,
    /// The 1-based line.
    pub line: usize,
}

/// One symbol row (`wheelport-relink-symbols/1`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SymbolRow {
    /// The exact ELF name imported by CUDA binaries (mangled for C++).
    pub cuda_name: String,
    /// The soname that defines it on the CUDA side, e.g. `libcudart.so.12`.
    pub cuda_library: Option<String>,
    /// What to do with it.
    pub kind: Kind,
    /// `Rename`: the target symbol. `Shim`/`Noop`: the shim library's symbol.
    /// `Unsupported`: the best candidate, if any.
    pub target_name: Option<String>,
    /// `Rename`: the target soname. `Shim`/`Noop`: `@shim`, wheelport's shim library.
    pub target_library: Option<String>,
    /// `Shim`: the target function the shim calls, if any.
    pub via: Option<String>,
    /// Why, and what is unverified (marked `VERIFY`).
    pub notes: String,
    /// Where the row was read.
    pub origin: Origin,
}

/// One soname row (`wheelport-relink-sonames/1`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SonameRow {
    /// The DT_NEEDED name on the CUDA side, e.g. `libcublas.so.12`.
    pub cuda_soname: String,
    /// The target SDK major version the row is for; `None` for `*` (any).
    pub sdk: Option<String>,
    /// The replacement DT_NEEDED name (for `Unsupported`, a candidate if one is known).
    pub target_soname: Option<String>,
    /// `Rename` or `Unsupported`.
    pub kind: Kind,
    /// Why, and what is unverified.
    pub notes: String,
    /// Where the row was read.
    pub origin: Origin,
}

/// The `#%` directives of one loaded file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Source {
    /// The file, as shown to the user.
    pub file: String,
    /// `#% schema:`.
    pub schema: String,
    /// `#% domain:`, if given.
    pub domain: Option<String>,
    /// `#% provenance:`, if given.
    pub provenance: Option<String>,
    /// `#% date:`, if given.
    pub date: Option<String>,
    /// SHA-256 of the file's text, lowercase hex (what a converted wheel's SBOM names it by).
    pub sha256: String,
}

/// What [`Table::merge_user`] changed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MergeStats {
    /// Rows that replaced a row with the same key.
    pub replaced: usize,
    /// Rows with a new key.
    pub added: usize,
}

/// The relink table of one target: symbol rows keyed by (CUDA library, CUDA name) (one CUDA
/// name may have a row per library: `libcudart.so.12` and `libcudart.so.13` export
/// `cudaMemPrefetchAsync` with different parameters), soname rows keyed by (CUDA soname,
/// SDK).
#[derive(Debug, Clone)]
pub struct Table {
    target: Target,
    symbols: Vec<SymbolRow>,
    /// (CUDA library, or "" for a row without one; CUDA name) to row.
    by_key: HashMap<(String, String), usize>,
    /// CUDA name to its first row in load order.
    by_name: HashMap<String, usize>,
    sonames: Vec<SonameRow>,
    sources: Vec<Source>,
}

/// Load the table of the target profile `name` (its relink-table set from the target
/// registry, [`crate::target::registry`], with the profile's SDK version and shim).
///
/// # Errors
/// A [`TableError`] naming the profile when it does not exist or names no relink-table set,
/// or naming a file if one is malformed or two files of the set define the same CUDA name
/// (a build of a broken tree; the tests catch it).
pub fn load_builtin(name: &str) -> Result<Table> {
    let profile = crate::target::profile(name).ok_or_else(|| TableError {
        file: format!("--target {name}"),
        line: None,
        message: format!(
            "no target profile `{name}` (known: {})",
            crate::target::names().join(", ")
        ),
    })?;
    load_for(profile)
}

/// Load the table of `profile` (see [`load_builtin`]).
///
/// # Errors
/// As [`load_builtin`].
pub fn load_for(profile: &crate::target::Profile) -> Result<Table> {
    let target = Target::of(profile);
    let no_set = |m: String| TableError {
        file: profile.source.clone(),
        line: None,
        message: m,
    };
    if target.set.is_empty() {
        return Err(no_set(format!(
            "target `{}` keeps CUDA imports; it has no relink table",
            profile.name
        )));
    }
    let registry = crate::target::registry().map_err(|e| no_set(e.to_string()))?;
    let files = registry
        .relink_set(&target.set)
        .ok_or_else(|| no_set(format!("relink-table set `{}` not found", target.set)))?;
    let mut t = Table::empty(target);
    for f in files {
        let parsed = parse(&f.text, &f.display, Some(&t.target.set))?;
        for row in parsed.symbols {
            if let Some(&i) = t.by_key.get(&Table::key(&row)) {
                let prev = &t.symbols[i].origin;
                return Err(TableError::at(
                    &f.display,
                    row.origin.line,
                    format!(
                        "{} is already defined at {}:{}",
                        row.cuda_name, prev.file, prev.line
                    ),
                ));
            }
            t.insert_symbol(row);
        }
        t.sonames.extend(parsed.sonames);
        t.sources.push(parsed.source);
    }
    Ok(t)
}

struct Parsed {
    source: Source,
    symbols: Vec<SymbolRow>,
    sonames: Vec<SonameRow>,
}

fn opt(s: &str) -> Option<String> {
    (s != "-").then(|| s.to_string())
}

/// Parse one table file. `expect` is the relink-table set it must declare, if known.
fn parse(text: &str, file: &str, expect: Option<&str>) -> Result<Parsed> {
    let mut schema: Option<String> = None;
    let mut target: Option<String> = None;
    let mut source = Source {
        file: file.to_string(),
        schema: String::new(),
        domain: None,
        provenance: None,
        date: None,
        sha256: {
            use sha2::{Digest, Sha256};
            Sha256::digest(text.as_bytes())
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect()
        },
    };
    let mut symbols: Vec<SymbolRow> = Vec::new();
    let mut sonames: Vec<SonameRow> = Vec::new();
    let mut seen: HashMap<String, usize> = HashMap::new();
    for (i, raw) in text.lines().enumerate() {
        let ln = i + 1;
        let line = raw.strip_suffix('\r').unwrap_or(raw);
        if let Some(d) = line.strip_prefix("#%") {
            let (k, v) = d.split_once(':').ok_or_else(|| {
                TableError::at(file, ln, "directive without ':' (expected `#% key: value`)")
            })?;
            let (k, v) = (k.trim(), v.trim().to_string());
            match k {
                "schema" => {
                    if v != SYMBOLS_SCHEMA && v != SONAMES_SCHEMA {
                        return Err(TableError::at(
                            file,
                            ln,
                            format!(
                                "unknown schema {v:?} (expected {SYMBOLS_SCHEMA} or {SONAMES_SCHEMA})"
                            ),
                        ));
                    }
                    source.schema = v.clone();
                    schema = Some(v);
                }
                "target" => {
                    let t = v.clone();
                    if t.is_empty() {
                        return Err(TableError::at(file, ln, "empty `#% target:` directive"));
                    }
                    if let Some(want) = expect {
                        if t != want {
                            return Err(TableError::at(
                                file,
                                ln,
                                format!("table is for target {t}, but it is merged into {want}"),
                            ));
                        }
                    }
                    target = Some(t);
                }
                "domain" => source.domain = Some(v),
                "provenance" => source.provenance = Some(v),
                "date" => source.date = Some(v),
                _ => {} // other directives are informational
            }
            continue;
        }
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let Some(schema) = schema.as_deref() else {
            return Err(TableError::at(
                file,
                ln,
                "row before the `#% schema:` directive",
            ));
        };
        if target.is_none() {
            return Err(TableError::at(
                file,
                ln,
                "row before the `#% target:` directive",
            ));
        }
        let cols: Vec<&str> = line.split('\t').collect();
        let want = if schema == SYMBOLS_SCHEMA { 7 } else { 5 };
        if cols.len() != want {
            return Err(TableError::at(
                file,
                ln,
                format!(
                    "expected {want} tab-separated columns for {schema}, found {}",
                    cols.len()
                ),
            ));
        }
        if let Some(c) = cols.iter().position(|c| c.trim().is_empty()) {
            return Err(TableError::at(
                file,
                ln,
                format!("column {} is empty (write `-` for none)", c + 1),
            ));
        }
        let origin = Origin {
            file: file.to_string(),
            line: ln,
        };
        if schema == SYMBOLS_SCHEMA {
            let kind: Kind = cols[2].parse().map_err(|e| TableError::at(file, ln, e))?;
            let row = SymbolRow {
                cuda_name: cols[0].to_string(),
                cuda_library: opt(cols[1]),
                kind,
                target_name: opt(cols[3]),
                target_library: opt(cols[4]),
                via: opt(cols[5]),
                notes: cols[6].to_string(),
                origin,
            };
            if row.cuda_name == "-" {
                return Err(TableError::at(file, ln, "cuda_name may not be `-`"));
            }
            match kind {
                Kind::Rename if row.target_name.is_none() || row.target_library.is_none() => {
                    return Err(TableError::at(
                        file,
                        ln,
                        format!(
                            "{}: a rename row needs target_name and target_library",
                            row.cuda_name
                        ),
                    ))
                }
                Kind::Shim | Kind::Noop if row.target_name.is_none() => {
                    return Err(TableError::at(
                        file,
                        ln,
                        format!(
                            "{}: a {} row needs target_name (the shim's symbol)",
                            row.cuda_name,
                            kind.name()
                        ),
                    ))
                }
                _ => {}
            }
            if let Some(prev) = seen.insert(row.cuda_name.clone(), ln) {
                return Err(TableError::at(
                    file,
                    ln,
                    format!("{} is already defined on line {prev}", row.cuda_name),
                ));
            }
            symbols.push(row);
        } else {
            let kind: Kind = cols[3].parse().map_err(|e| TableError::at(file, ln, e))?;
            if !matches!(kind, Kind::Rename | Kind::Unsupported) {
                return Err(TableError::at(
                    file,
                    ln,
                    format!("a soname row is rename or unsupported, not {}", kind.name()),
                ));
            }
            let row = SonameRow {
                cuda_soname: cols[0].to_string(),
                sdk: (cols[1] != "*").then(|| cols[1].to_string()),
                target_soname: opt(cols[2]),
                kind,
                notes: cols[4].to_string(),
                origin,
            };
            if kind == Kind::Rename && row.target_soname.is_none() {
                return Err(TableError::at(
                    file,
                    ln,
                    format!("{}: a rename row needs target_soname", row.cuda_soname),
                ));
            }
            let key = format!("{}\t{}", row.cuda_soname, cols[1]);
            if let Some(prev) = seen.insert(key, ln) {
                return Err(TableError::at(
                    file,
                    ln,
                    format!(
                        "{} (sdk {}) is already defined on line {prev}",
                        row.cuda_soname, cols[1]
                    ),
                ));
            }
            sonames.push(row);
        }
    }
    if schema.is_none() {
        return Err(TableError {
            file: file.to_string(),
            line: None,
            message: "no `#% schema:` directive".into(),
        });
    }
    if target.is_none() {
        return Err(TableError {
            file: file.to_string(),
            line: None,
            message: "no `#% target:` directive".into(),
        });
    }
    Ok(Parsed {
        source,
        symbols,
        sonames,
    })
}

impl Table {
    fn empty(target: Target) -> Self {
        Table {
            target,
            symbols: Vec::new(),
            by_key: HashMap::new(),
            by_name: HashMap::new(),
            sonames: Vec::new(),
            sources: Vec::new(),
        }
    }

    fn key(row: &SymbolRow) -> (String, String) {
        (
            row.cuda_library.clone().unwrap_or_default(),
            row.cuda_name.clone(),
        )
    }

    fn insert_symbol(&mut self, row: SymbolRow) -> bool {
        let key = Table::key(&row);
        match self.by_key.get(&key) {
            Some(&i) => {
                self.symbols[i] = row;
                true
            }
            None => {
                self.by_name
                    .entry(row.cuda_name.clone())
                    .or_insert(self.symbols.len());
                self.by_key.insert(key, self.symbols.len());
                self.symbols.push(row);
                false
            }
        }
    }

    /// The target this table is for.
    pub fn target(&self) -> &Target {
        &self.target
    }

    /// Merge a user's table file (`--relink-table FILE`): its rows replace built-in rows
    /// with the same CUDA library and name (symbols) or the same CUDA soname and SDK
    /// (sonames), and
    /// rows with new keys are added.
    ///
    /// # Errors
    /// A [`TableError`] naming `file` if it cannot be read, is malformed (with the line),
    /// or declares another target. On error the table is unchanged.
    pub fn merge_user(&mut self, file: &Path) -> Result<MergeStats> {
        let shown = file.display().to_string();
        let text = std::fs::read_to_string(file).map_err(|e| TableError {
            file: shown.clone(),
            line: None,
            message: e.to_string(),
        })?;
        self.merge_user_text(&text, &shown)
    }

    /// [`Table::merge_user`] on text already read; `file` is the name errors show.
    ///
    /// # Errors
    /// As [`Table::merge_user`].
    pub fn merge_user_text(&mut self, text: &str, file: &str) -> Result<MergeStats> {
        let parsed = parse(text, file, Some(&self.target.set))?;
        let mut stats = MergeStats::default();
        for row in parsed.symbols {
            if self.insert_symbol(row) {
                stats.replaced += 1;
            } else {
                stats.added += 1;
            }
        }
        for row in parsed.sonames {
            match self
                .sonames
                .iter_mut()
                .find(|r| r.cuda_soname == row.cuda_soname && r.sdk == row.sdk)
            {
                Some(r) => {
                    *r = row;
                    stats.replaced += 1;
                }
                None => {
                    self.sonames.push(row);
                    stats.added += 1;
                }
            }
        }
        self.sources.push(parsed.source);
        Ok(stats)
    }

    /// The row for a CUDA symbol name (exact, mangled for C++), if any: the first in load
    /// order when several libraries have one (`libcudart.so.12`'s before `libcudart.so.13`'s).
    pub fn symbol(&self, cuda_name: &str) -> Option<&SymbolRow> {
        self.by_name.get(cuda_name).map(|&i| &self.symbols[i])
    }

    /// The row of `cuda_name` for the CUDA library `soname` exactly, if any.
    pub fn symbol_of(&self, soname: &str, cuda_name: &str) -> Option<&SymbolRow> {
        self.by_key
            .get(&(soname.to_string(), cuda_name.to_string()))
            .map(|&i| &self.symbols[i])
    }

    /// The row for `cuda_name` imported from `soname`: that library's row, else
    /// [`Table::symbol`].
    pub fn symbol_in(&self, soname: Option<&str>, cuda_name: &str) -> Option<&SymbolRow> {
        soname
            .and_then(|l| self.symbol_of(l, cuda_name))
            .or_else(|| self.symbol(cuda_name))
    }

    /// Every symbol row, in load order (built-in files, then user files; a replaced row
    /// keeps its place).
    pub fn symbols(&self) -> &[SymbolRow] {
        &self.symbols
    }

    /// The symbol rows whose `cuda_library` is `soname` (e.g. every `libcudart.so.12`
    /// export).
    pub fn symbols_of<'a>(&'a self, soname: &'a str) -> impl Iterator<Item = &'a SymbolRow> {
        self.symbols
            .iter()
            .filter(move |r| r.cuda_library.as_deref() == Some(soname))
    }

    /// The soname row for a CUDA soname at the target's SDK version ([`Target::sdk`]).
    pub fn soname(&self, cuda_soname: &str) -> Option<&SonameRow> {
        self.soname_for_sdk(cuda_soname, self.target.sdk.as_deref())
    }

    /// The soname row for a CUDA soname at SDK major version `sdk`: a row for exactly
    /// that version, else a row for any version (`*`). With `sdk` `None`, only `*` rows.
    pub fn soname_for_sdk(&self, cuda_soname: &str, sdk: Option<&str>) -> Option<&SonameRow> {
        let rows = || self.sonames.iter().filter(|r| r.cuda_soname == cuda_soname);
        sdk.and_then(|v| rows().find(|r| r.sdk.as_deref() == Some(v)))
            .or_else(|| rows().find(|r| r.sdk.is_none()))
    }

    /// Every soname row, in load order.
    pub fn sonames(&self) -> &[SonameRow] {
        &self.sonames
    }

    /// The `#%` directives of each loaded file, built-in files first.
    pub fn sources(&self) -> &[Source] {
        &self.sources
    }
}
