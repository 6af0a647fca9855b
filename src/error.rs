//! The crate's error type: every error names the file it concerns and, where the problem
//! sits at a position inside that file, the byte offset.

use std::fmt;

/// Which stage of the pipeline raised an [`Error`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorKind {
    /// Reading or writing a file failed (the operating system's error is in the message).
    Io,
    /// A host or device ELF file is malformed (System V gABI, ELF-64 object file format).
    Elf,
    /// A CUDA fat binary container, entry or payload is malformed.
    Fatbin,
    /// A wheel archive is malformed or hostile (PEP 427 / zip format).
    Wheel,
    /// The input is not a kind of file this tool reads.
    Input,
    /// A feature that a later issue delivers was asked for.
    NotImplemented,
    /// An external tool (llc, opt, llvm-link, ld.lld, ...) is missing or failed; the message
    /// names the tool and its stderr.
    Toolchain,
    /// A device build produced code that fails its checks (kernel symbols, kernel-argument
    /// metadata, PTX `.entry` parameters); the message names the kernel and field.
    Build,
}

/// An error that names its file and, when known, the byte offset inside it.
///
/// `file` is a display path. For a member of a wheel it is `WHEEL!member`, and the
/// offset is then relative to the start of the (decompressed) member.
#[derive(Debug, Clone)]
pub struct Error {
    /// What kind of failure this is.
    pub kind: ErrorKind,
    /// The file concerned, as shown to the user.
    pub file: String,
    /// The byte offset in `file` where the problem was found, if it has one.
    pub offset: Option<u64>,
    /// A human-readable description, without the file name.
    pub message: String,
}

/// `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// Build an error for `file` with no offset.
    pub fn new(kind: ErrorKind, file: impl Into<String>, message: impl Into<String>) -> Self {
        Error {
            kind,
            file: file.into(),
            offset: None,
            message: message.into(),
        }
    }

    /// Build an error for `file` at byte `offset`.
    pub fn at(
        kind: ErrorKind,
        file: impl Into<String>,
        offset: u64,
        message: impl Into<String>,
    ) -> Self {
        Error {
            kind,
            file: file.into(),
            offset: Some(offset),
            message: message.into(),
        }
    }

    /// Wrap an I/O error of creating a temporary file or folder (in `$TMPDIR`, else `/tmp`:
    /// [`std::env::temp_dir`]): the error names that folder, not the file being worked on.
    pub fn temp_dir(e: std::io::Error) -> Self {
        let e = os_error(e);
        Error::new(
            ErrorKind::Io,
            format!(
                "temporary folder {} ($TMPDIR)",
                std::env::temp_dir().display()
            ),
            e.to_string(),
        )
    }

    /// Wrap an I/O error about `file`.
    pub fn io(file: impl Into<String>, err: std::io::Error) -> Self {
        Error::new(ErrorKind::Io, file, err.to_string())
    }

    /// Shift the offset by `base` (used when an error found inside a section is reported
    /// relative to the whole file) and replace the file name.
    pub fn relocate(mut self, file: impl Into<String>, base: u64) -> Self {
        self.file = file.into();
        self.offset = self.offset.map(|o| o + base);
        self
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.offset {
            Some(off) => write!(f, "{}: at offset {:#x}: {}", self.file, off, self.message),
            None => write!(f, "{}: {}", self.file, self.message),
        }
    }
}

impl std::error::Error for Error {}

/// The OS error of `e` without the random path tempfile's errors add to it ("... at path
/// \"/dir/.tmpXXXX\""), which names nothing the user gave (tempfile keeps the OS error only
/// in its message).
pub fn os_error(e: std::io::Error) -> std::io::Error {
    if e.raw_os_error().is_some() {
        return e;
    }
    let text = e.to_string();
    match text.split_once(" at path \"") {
        Some((msg, _)) => std::io::Error::new(e.kind(), msg.to_string()),
        None => e,
    }
}
