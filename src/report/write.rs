//! Writing a report (`--json REPORT`, `--html REPORT.html`) to the path the user named.
//!
//! The path is written *through*, as a shell redirection would write it: a symlink's target is
//! written (the link stays), a FIFO or a device (`/dev/stdout`, `/dev/full`) gets the bytes as
//! they are (and its write error, e.g. `/dev/full`'s ENOSPC, is the command's), and a regular
//! file — or a path that does not exist yet — is replaced atomically, through a temporary
//! file in its folder and a rename, so a reader never sees half a report.

use crate::error::{Error, Result};
use std::io::Write;
use std::path::{Path, PathBuf};

/// Most symlinks followed (Linux's MAXSYMLINKS).
const MAX_LINKS: usize = 40;

/// The path `path` names once every symlink on it is followed (the final component's chain;
/// the folders are the OS's to resolve). A dangling link gives its target, which is created.
fn follow(path: &Path) -> Result<PathBuf> {
    let display = path.display().to_string();
    let mut p = path.to_path_buf();
    for _ in 0..MAX_LINKS {
        match std::fs::symlink_metadata(&p) {
            Ok(m) if m.file_type().is_symlink() => {
                let to = std::fs::read_link(&p).map_err(|e| Error::io(&display, e))?;
                p = match p.parent() {
                    Some(dir) if to.is_relative() => dir.join(to),
                    _ => to,
                };
            }
            _ => return Ok(p),
        }
    }
    Err(Error::io(
        &display,
        std::io::Error::other(format!("more than {MAX_LINKS} symlinks to follow")),
    ))
}

/// Write `data` to the report path `path` (module docs).
///
/// # Errors
/// [`crate::error::ErrorKind::Io`] naming `path` (as the user gave it) and the OS error.
pub fn write_report(path: &Path, data: &[u8]) -> Result<()> {
    let display = path.display().to_string();
    let io = |e: std::io::Error| Error::io(&display, e);
    let real = follow(path)?;
    match std::fs::metadata(&real) {
        Ok(m) if !m.is_file() && !m.is_dir() => {
            // A FIFO, a device or a socket: written as it is, not replaced.
            let mut f = std::fs::OpenOptions::new()
                .write(true)
                .open(&real)
                .map_err(io)?;
            f.write_all(data).map_err(io)?;
            f.flush().map_err(io)
        }
        _ => {
            let dir = match real.parent() {
                Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
                _ => PathBuf::from("."),
            };
            let mut tmp =
                tempfile::NamedTempFile::new_in(&dir).map_err(|e| io(crate::error::os_error(e)))?;
            tmp.write_all(data).map_err(io)?;
            tmp.flush().map_err(io)?;
            std::fs::set_permissions(
                tmp.path(),
                std::os::unix::fs::PermissionsExt::from_mode(0o644),
            )
            .map_err(io)?;
            tmp.persist(&real).map_err(|e| io(e.error))?;
            Ok(())
        }
    }
}
