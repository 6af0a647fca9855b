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
