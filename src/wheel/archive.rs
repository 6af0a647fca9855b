//! A wheel opened once: the file mapped, its central directory parsed by the `zip` crate,
//! and every member name checked. [`WheelReader`] is cheap to clone (the mapping and the
//! parsed directory are shared), so the audit, the parallel reads of members, and the repack
//! all work from one open of the file.

use super::metadata::WheelInfo;
use crate::error::{Error, ErrorKind, Result};
use std::io::{Read, Write};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

static OPENS: AtomicUsize = AtomicUsize::new(0);

/// How many wheels [`WheelReader::open`] has opened in this process (instrumentation for
/// the test that a conversion opens each wheel once).
pub fn opens() -> usize {
    OPENS.load(Ordering::Relaxed)
}

/// The mapped wheel file, shared by every clone of a [`WheelReader`].
#[derive(Clone)]
pub struct WheelBytes(Arc<memmap2::Mmap>);

impl AsRef<[u8]> for WheelBytes {
    fn as_ref(&self) -> &[u8] {
        &self.0[..]
    }
}

/// The reader the `zip` crate works on: the mapped wheel.
pub type WheelCursor = std::io::Cursor<WheelBytes>;

/// Largest member wheelport will decompress: 16 GiB.
pub const MAX_MEMBER_SIZE: u64 = 16 << 30;

/// True for member names that look like ELF shared objects: `*.so` or `*.so.N...`.
pub fn is_shared_object_name(name: &str) -> bool {
    let base = name.rsplit('/').next().unwrap_or(name);
    base.ends_with(".so") || base.contains(".so.")
}

/// Whether a member or file name is an ELF object wheelport reads: a shared object
/// ([`is_shared_object_name`]) or a loose cubin (`.cubin`, device ELF).
pub fn is_elf_object_name(name: &str) -> bool {
    is_shared_object_name(name) || name.ends_with(".cubin")
}

/// A wheel opened for reading (see the module docs).
#[derive(Clone)]
pub struct WheelReader {
    display: String,
    bytes: WheelBytes,
    archive: zip::ZipArchive<WheelCursor>,
}

/// A `.so` member spooled to an anonymous temporary file and memory-mapped.
pub struct SharedObjectMember {
    /// Member name inside the wheel.
    pub name: String,
    /// Display name for errors: `WHEEL!member`.
    pub display: String,
    /// The decompressed bytes.
    pub map: memmap2::Mmap,
}

fn validate_name(name: &str) -> bool {
    if name.is_empty() || name.starts_with('/') || name.starts_with('\\') || name.contains('\0') {
        return false;
    }
    if name.len() >= 2 && name.as_bytes()[1] == b':' {
        return false;
    }
    !name.split(['/', '\\']).any(|c| c == "..")
}

impl WheelReader {
    /// Open `path` and check every member name (zip-slip) before anything is read.
    ///
    /// # Errors
    /// [`ErrorKind::Wheel`] when the file is not a zip archive, or a member name is absolute
    /// or contains `..` (the error names the member and its local header offset).
    pub fn open(path: &Path) -> Result<WheelReader> {
        OPENS.fetch_add(1, Ordering::Relaxed);
        let display = path.display().to_string();
        let map = crate::input::map_regular(path)?;
        let bytes = WheelBytes(Arc::new(map));
        let mut archive =
            zip::ZipArchive::new(std::io::Cursor::new(bytes.clone())).map_err(|e| {
                Error::new(
                    ErrorKind::Wheel,
                    &display,
                    format!("not a valid wheel (zip) archive: {e}"),
                )
            })?;
        for i in 0..archive.len() {
            let m = archive
                .by_index_raw(i)
                .map_err(|e| Error::new(ErrorKind::Wheel, &display, format!("member {i}: {e}")))?;
            let name = m.name().map_err(|e| {
                Error::at(
                    ErrorKind::Wheel,
                    &display,
                    m.header_start(),
                    format!("member {i}: its name cannot be decoded: {e}"),
                )
            })?;
            if !validate_name(&name) {
                return Err(Error::at(
                    ErrorKind::Wheel,
                    &display,
                    m.header_start(),
                    format!(
                        "member name {:?} escapes the installation directory (absolute path or `..`); refusing the wheel",
                        name
                    ),
                ));
            }
        }
        Ok(WheelReader {
            display,
            bytes,
            archive,
        })
    }

    /// The display name of the wheel.
    pub fn display(&self) -> &str {
        &self.display
    }

    /// The whole wheel file's bytes.
    pub fn bytes(&self) -> &[u8] {
        self.bytes.as_ref()
    }

    /// The `zip` crate's view of the archive (a clone shares the parsed directory).
    pub fn archive(&self) -> &zip::ZipArchive<WheelCursor> {
        &self.archive
    }

    /// The `zip` crate's view of the archive, for reading members.
    pub fn archive_mut(&mut self) -> &mut zip::ZipArchive<WheelCursor> {
        &mut self.archive
    }

    /// All member names, in archive order.
    pub fn member_names(&self) -> Vec<String> {
        // Every name was decoded by `open`.
        self.archive
            .file_names()
            .filter_map(|n| n.ok())
            .map(|n| n.into_owned())
            .collect()
    }

    /// Read a member into memory (for small text members such as METADATA).
    ///
    /// # Errors
    /// [`ErrorKind::Wheel`] when the member is missing, corrupt, or expands past its
    /// declared size.
    pub fn read_member(&mut self, name: &str) -> Result<Vec<u8>> {
        let mut v = Vec::new();
        self.copy_member(name, &mut v)?;
        Ok(v)
    }

    fn copy_member(&mut self, name: &str, out: &mut dyn Write) -> Result<u64> {
        let display = self.display.clone();
        let mut m = self
            .archive
            .by_name(name)
            .map_err(|e| Error::new(ErrorKind::Wheel, &display, format!("member {name}: {e}")))?;
        let declared = m.size();
        let at = m.header_start();
        let what = format!("{display}!{name}");
        if declared > MAX_MEMBER_SIZE {
            return Err(Error::at(ErrorKind::Wheel, &display, at, format!("member {name} declares {declared} bytes, over the {MAX_MEMBER_SIZE}-byte limit")));
        }
        let mut limited = (&mut m).take(declared + 1);
        // Reading is the archive's failure; writing (a temporary file on a full disk) the
        // environment's.
        let mut n = 0u64;
        let mut buf = vec![0u8; 64 << 10];
        loop {
            let k = match std::io::Read::read(&mut limited, &mut buf) {
                Ok(0) => break,
                Ok(k) => k,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    return Err(Error::at(
                        ErrorKind::Wheel,
                        &display,
                        at,
                        format!("member {name}: corrupt compressed data: {e}"),
                    ))
                }
            };
            out.write_all(&buf[..k]).map_err(Error::temp_dir)?;
            n += k as u64;
        }
        if n != declared {
            return Err(Error::at(
                ErrorKind::Wheel,
                &display,
                at,
                format!(
                    "member {name} expands to {} bytes but declares {declared}",
                    if n > declared {
                        format!("more than {declared}")
                    } else {
                        n.to_string()
                    }
                ),
            ));
        }
        let _ = what;
        Ok(n)
    }

    /// Spool the `.so` member `name` to an anonymous temporary file and map it, so that a
    /// 254 MB extension does not occupy 254 MB of heap.
    ///
    /// # Errors
    /// As [`WheelReader::read_member`], plus I/O errors of the temporary file.
    pub fn shared_object(&mut self, name: &str) -> Result<SharedObjectMember> {
        let display = format!("{}!{}", self.display, name);
        let mut tmp = tempfile::tempfile().map_err(Error::temp_dir)?;
        {
            let mut w = std::io::BufWriter::with_capacity(64 << 10, &mut tmp);
            self.copy_member(name, &mut w)?;
            w.flush().map_err(Error::temp_dir)?;
        }
        // SAFETY: the file is an unlinked temporary that nothing else can modify.
        let map = unsafe { memmap2::Mmap::map(&tmp) }.map_err(Error::temp_dir)?;
        crate::inspect::random_access(&map);
        Ok(SharedObjectMember {
            name: name.to_string(),
            display,
            map,
        })
    }

    /// Read `.dist-info/WHEEL` and `.dist-info/METADATA`, if the wheel has a `.dist-info`
    /// directory at its root.
    pub fn info(&mut self) -> Result<Option<WheelInfo>> {
        let names = self.member_names();
        let Some(dist) = names.iter().find_map(|n| {
            let (dir, file) = n.split_once('/')?;
            (dir.ends_with(".dist-info") && file == "WHEEL").then(|| dir.to_string())
        }) else {
            return Ok(None);
        };
        let wheel = self.read_member(&format!("{dist}/WHEEL"))?;
        let meta_name = format!("{dist}/METADATA");
        let metadata = if names.contains(&meta_name) {
            Some(self.read_member(&meta_name)?)
        } else {
            None
        };
        Ok(Some(WheelInfo::from_texts(
            &dist,
            Some(&String::from_utf8_lossy(&wheel)),
            metadata.as_deref().map(String::from_utf8_lossy).as_deref(),
        )))
    }
}
