//! `wheelport ptx parse FILE.ptx... [--print OUT]`: parse PTX files, report diagnostics and
//! optionally print the parsed modules back as PTX.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// Parse each file, write one `file:line:col: error: message` line per diagnostic to `out`, and
/// with `print` write the printed PTX: to `print` itself if there is one input, into the
/// directory `print` as `<input file name>` if there are several, to `out` if `print` is `-`.
///
/// Returns the number of error diagnostics (the caller exits non-zero if it is not 0). Files
/// that cannot be read are an `Err`; invalid UTF-8 is a diagnostic.
pub fn parse_files(
    files: &[PathBuf],
    print: Option<&Path>,
    out: &mut dyn Write,
) -> io::Result<usize> {
    let mut errors = 0;
    let to_stdout = print.is_some_and(|p| p.as_os_str() == "-");
    if let (Some(dir), false, true) = (print, to_stdout, files.len() > 1) {
        std::fs::create_dir_all(dir)?;
    }
    for f in files {
        let bytes = std::fs::read(f)
            .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", f.display())))?;
        let name = f.display().to_string();
        let parsed = super::parse_bytes(&bytes, &name);
        for d in &parsed.diagnostics {
            writeln!(out, "{d}")?;
        }
        errors += parsed.error_count();
        if let Some(p) = print {
            let text = super::print(&parsed.module);
            if to_stdout {
                out.write_all(text.as_bytes())?;
            } else if files.len() == 1 {
                std::fs::write(p, text)?;
            } else {
                let file_name = f.file_name().ok_or_else(|| {
                    io::Error::new(io::ErrorKind::InvalidInput, format!("{name}: no file name"))
                })?;
                std::fs::write(p.join(file_name), text)?;
            }
        }
    }
    Ok(errors)
}
