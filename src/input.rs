//! Opening the files wheelport reads (wheels, shared objects): regular files only, mapped
//! read-only.
//!
//! A FIFO, a socket, a device (`/dev/zero`, a tape) or a directory given as an input — or a
//! symlink to one — is refused before a byte is read: opening a FIFO for reading blocks until
//! a writer comes, and a device can be endless. The file is opened with `O_NONBLOCK` (which
//! changes nothing for a regular file) and its type checked on the open descriptor
//! (`fstat`), so a path swapped for a FIFO between a check and the open cannot block either.

use crate::error::{Error, ErrorKind, Result};
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::Path;

/// The error of reading input `path`: one that does not exist is the command line's
/// ([`ErrorKind::Input`], exit 1: the path names nothing), any other I/O error the machine's
/// ([`ErrorKind::Io`]: permissions, a failing disk).
pub fn read_error(path: &Path, e: std::io::Error) -> Error {
    let display = path.display().to_string();
    if e.kind() == std::io::ErrorKind::NotFound {
        Error::new(ErrorKind::Input, display, "does not exist")
    } else {
        Error::io(display, e)
    }
}

/// Open `path` for reading when it is a regular file (after following symlinks).
///
/// # Errors
/// [`read_error`] when it cannot be opened; [`ErrorKind::Input`] naming what it is when it is
/// not a regular file.
pub fn open_regular(path: &Path) -> Result<std::fs::File> {
    let display = path.display().to_string();
    let f = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
        .map_err(|e| read_error(path, e))?;
    let t = f
        .metadata()
        .map_err(|e| Error::io(&display, e))?
        .file_type();
    if t.is_file() {
        return Ok(f);
    }
    let what = if t.is_fifo() {
        "a FIFO"
    } else if t.is_socket() {
        "a socket"
    } else if t.is_char_device() {
        "a character device"
    } else if t.is_block_device() {
        "a block device"
    } else if t.is_dir() {
        "a directory"
    } else {
        "not a regular file"
    };
    Err(Error::new(
        ErrorKind::Input,
        &display,
        format!("is {what}; wheelport reads wheels and shared objects from regular files only"),
    ))
}

/// [`open_regular`], mapped read-only.
///
/// # Errors
/// As [`open_regular`], and [`ErrorKind::Io`] when the mapping fails.
pub fn map_regular(path: &Path) -> Result<memmap2::Mmap> {
    let f = open_regular(path)?;
    // SAFETY: read-only mapping of an input wheelport never writes. A concurrent writer could
    // change the bytes under us; every read of them is bounds-checked.
    unsafe { memmap2::Mmap::map(&f) }.map_err(|e| Error::io(path.display().to_string(), e))
}
