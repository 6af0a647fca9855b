//! The content-addressed build cache: one file per (module, arch) build, named by the
//! SHA-256 of everything that determines its bytes.

use crate::error::{Error, Result};
use sha2::{Digest, Sha256};
use std::io::Write;
use std::path::{Path, PathBuf};

/// A cache directory. Entries are `<dir>/<key[0..2]>/<key>.<ext>`; writes go to a temporary
/// file in the same directory and are renamed into place, so a reader never sees a partial
/// entry and concurrent builders of the same key do not corrupt it.
#[derive(Clone, Debug)]
pub struct Cache {
    dir: PathBuf,
}

impl Cache {
    /// A cache rooted at `dir` (created on first write).
    pub fn new(dir: impl Into<PathBuf>) -> Cache {
        Cache { dir: dir.into() }
    }

    /// The default directory: `$XDG_CACHE_HOME/wheelport`, else `$HOME/.cache/wheelport`;
    /// `None` when neither variable is set.
    pub fn default_dir() -> Option<PathBuf> {
        let nonempty = |v: &str| std::env::var_os(v).filter(|s| !s.is_empty());
        nonempty("XDG_CACHE_HOME")
            .map(|d| PathBuf::from(d).join("wheelport"))
            .or_else(|| nonempty("HOME").map(|h| PathBuf::from(h).join(".cache/wheelport")))
    }

    /// The root directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn path(&self, key: &str, ext: &str) -> PathBuf {
        self.dir
            .join(&key[..2.min(key.len())])
            .join(format!("{key}.{ext}"))
    }

    /// The bytes stored under `key`, if any (an unreadable entry counts as absent).
    pub fn get(&self, key: &str, ext: &str) -> Option<Vec<u8>> {
        std::fs::read(self.path(key, ext)).ok()
    }

    /// Remove the entry under `key`, if there is one (a failure to remove is ignored: an
    /// entry left behind is only disk space).
    pub fn remove(&self, key: &str, ext: &str) {
        let _ = std::fs::remove_file(self.path(key, ext));
    }

    /// Store `bytes` under `key` atomically (temporary file + rename).
    ///
    /// # Errors
    /// [`crate::error::ErrorKind::Io`] naming the cache path when the directory cannot be created or
    /// the file cannot be written.
    pub fn put(&self, key: &str, ext: &str, bytes: &[u8]) -> Result<()> {
        let path = self.path(key, ext);
        let dir = path.parent().expect("cache paths have a parent");
        let shown = path.display().to_string();
        std::fs::create_dir_all(dir).map_err(|e| Error::io(&shown, e))?;
        let mut tmp = tempfile::NamedTempFile::new_in(dir).map_err(|e| Error::io(&shown, e))?;
        tmp.write_all(bytes).map_err(|e| Error::io(&shown, e))?;
        tmp.persist(&path).map_err(|e| Error::io(&shown, e.error))?;
        Ok(())
    }

    /// [`Cache::put`], where a cache that cannot be written is not the build's failure: the
    /// built bytes are used all the same, and the first such failure of the process is said
    /// once on stderr (`wheelport: warning: build cache ...: not written (...); building
    /// without it`), naming the path and the OS error.
    pub fn store(&self, key: &str, ext: &str, bytes: &[u8]) {
        use std::sync::atomic::{AtomicBool, Ordering};
        static SAID: AtomicBool = AtomicBool::new(false);
        if let Err(e) = self.put(key, ext, bytes) {
            if !SAID.swap(true, Ordering::Relaxed) {
                eprintln!(
                    "wheelport: warning: build cache {}: not written ({e}); building without it",
                    self.dir.display()
                );
            }
        }
    }
}

/// The part of a support library (LLVM IR text) that a build of `module_ir` depends on: every
/// top-level line outside a function body (globals, declarations, attribute groups, metadata),
/// then, in library order, the `define`s reachable from the functions and variables the module
/// declares (`declare ... @f(` and `@g = external ...` lines) through the `@name` references in
/// their bodies. `llvm-link --internalize --only-needed` links exactly such a closure, so a
/// library edit to a function a module does not reach leaves that module's cache key alone.
/// A `define` runs from its line to the next line that is `}`.
pub fn library_key_text(library: &str, module_ir: &str) -> String {
    let mut rest = String::new();
    let mut defs: Vec<(String, String)> = Vec::new();
    let mut lines = library.lines();
    while let Some(line) = lines.next() {
        if line.starts_with("define ") {
            let mut body = format!("{line}\n");
            for l in lines.by_ref() {
                body.push_str(l);
                body.push('\n');
                if l == "}" {
                    break;
                }
            }
            let name = global_names(line).next().unwrap_or_default().to_string();
            defs.push((name, body));
        } else {
            rest.push_str(line);
            rest.push('\n');
        }
    }
    let index: std::collections::HashMap<&str, usize> = defs
        .iter()
        .enumerate()
        .map(|(i, (n, _))| (n.as_str(), i))
        .collect();
    let mut reached = vec![false; defs.len()];
    let mut work: Vec<usize> = module_ir
        .lines()
        .filter(|l| l.starts_with("declare ") || (l.starts_with('@') && l.contains("= external ")))
        .flat_map(global_names)
        .filter_map(|n| index.get(n).copied())
        .collect();
    while let Some(i) = work.pop() {
        if std::mem::replace(&mut reached[i], true) {
            continue;
        }
        work.extend(global_names(&defs[i].1).filter_map(|n| index.get(n).copied()));
    }
    for (i, (_, body)) in defs.iter().enumerate() {
        if reached[i] {
            rest.push_str(body);
        }
    }
    rest
}

/// The global names (`@name`, `@"quoted name"`, without the `@` and quotes) in `text`.
fn global_names(text: &str) -> impl Iterator<Item = &str> {
    text.match_indices('@').filter_map(move |(i, _)| {
        let tail = &text[i + 1..];
        if let Some(q) = tail.strip_prefix('"') {
            return q.find('"').map(|e| &q[..e]);
        }
        let n = tail
            .find(|c: char| !(c.is_ascii_alphanumeric() || "_.$-".contains(c)))
            .unwrap_or(tail.len());
        (n > 0).then(|| &tail[..n])
    })
}

/// SHA-256 over `parts`, each length-prefixed (so `("ab","c")` and `("a","bc")` differ), as
/// lower-case hex.
pub fn key(parts: &[&[u8]]) -> String {
    let mut h = Sha256::new();
    for p in parts {
        h.update((p.len() as u64).to_le_bytes());
        h.update(p);
    }
    h.finalize().iter().map(|b| format!("{b:02x}")).collect()
}
