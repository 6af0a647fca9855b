//! Reading the input mirror: a PEP 503 "simple" index laid out as a directory tree, or a flat
//! directory of distribution files.
//!
//! * PEP 503 tree: `MIRROR/simple/index.html` (or `MIRROR/index.html`) lists projects; each
//!   project page `<project>/index.html` lists files as `<a href="URL#sha256=HEX"
//!   data-requires-python="..." data-yanked="...">filename</a>`. Hrefs are resolved relative to
//!   the page and must stay inside MIRROR (no `..` escape, no absolute or remote URLs). The
//!   `#sha256=` fragment, when present, is checked against the file.
//! * Flat directory: every regular file in MIRROR (not recursive) whose name parses as a
//!   wheel (PEP 427 `{name}-{ver}(-{build})?-{py}-{abi}-{plat}.whl`) or an sdist
//!   (`{name}-{ver}.tar.gz` / `.zip`) is a distribution of the project named in it.
//!
//! Project names are compared in PEP 503 normalized form ([`normalize`]).

use crate::error::{Error, ErrorKind, Result};
use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};

/// One distribution file of the mirror.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Dist {
    /// The file on disk.
    pub path: PathBuf,
    /// The file name (last path component), e.g. `xformers-0.0.35-cp39-abi3-manylinux_2_28_x86_64.whl`.
    pub filename: String,
    /// The project's normalized name (PEP 503), e.g. `flash-attn`.
    pub project: String,
    /// The project's name as written in the file name (or the index), e.g. `flash_attn`.
    pub display_name: String,
    /// The version from the file name (PEP 440 text as written).
    pub version: String,
    /// `data-requires-python` of the source index (HTML-decoded), if any.
    pub requires_python: Option<String>,
    /// `data-yanked` of the source index: `Some("")` when yanked without a reason.
    pub yanked: Option<String>,
    /// The `#sha256=` fragment of the source index, if any (lower-case hex).
    pub index_sha256: Option<String>,
}

/// PEP 503 name normalization (runs of `-`, `_`, `.` become one `-`, then lower-case); the one
/// implementation lives in [`crate::wheel::requirements::normalize`].
pub use crate::wheel::requirements::normalize;

/// Name and version from a distribution file name, or `None` when it is neither a wheel nor
/// an sdist.
///
/// Wheels: PEP 427 "File name convention" (the name and version are the first two `-`
/// separated fields, escaped with `_`). Sdists: `{name}-{version}.tar.gz` or `.zip`, split
/// at the last `-` (the sdist file name spec of the PyPA packaging guide).
pub fn parse_filename(filename: &str) -> Option<(String, String)> {
    if let Some(stem) = filename.strip_suffix(".whl") {
        let parts: Vec<&str> = stem.split('-').collect();
        if !(parts.len() == 5 || parts.len() == 6) || parts.iter().any(|p| p.is_empty()) {
            return None;
        }
        return Some((parts[0].to_string(), parts[1].to_string()));
    }
    let stem = filename
        .strip_suffix(".tar.gz")
        .or_else(|| filename.strip_suffix(".zip"))?;
    let (name, version) = stem.rsplit_once('-')?;
    if name.is_empty() || version.is_empty() {
        return None;
    }
    Some((name.to_string(), version.to_string()))
}

fn err(file: &Path, m: impl Into<String>) -> Error {
    Error::new(ErrorKind::Input, file.display().to_string(), m)
}

/// Every distribution of the mirror at `root`, grouped by normalized project name, each
/// project's files sorted by file name.
///
/// # Errors
/// [`ErrorKind::Input`] naming the page or file: an unreadable directory or page, an href
/// leaving the mirror or naming a missing file, a file name that is not a distribution, two
/// files with the same name in one project.
pub fn scan(root: &Path) -> Result<BTreeMap<String, Vec<Dist>>> {
    let index = [
        root.join("simple").join("index.html"),
        root.join("index.html"),
    ]
    .into_iter()
    .find(|p| p.is_file());
    let dists = match index {
        Some(index) => scan_pep503(root, &index)?,
        None => scan_flat(root)?,
    };
    let mut by_project: BTreeMap<String, Vec<Dist>> = BTreeMap::new();
    for d in dists {
        by_project.entry(d.project.clone()).or_default().push(d);
    }
    for (project, files) in by_project.iter_mut() {
        files.sort_by(|a, b| a.filename.cmp(&b.filename));
        if let Some(w) = files.windows(2).find(|w| w[0].filename == w[1].filename) {
            return Err(err(
                &w[1].path,
                format!(
                    "project {project} lists the file name {} twice ({} and {})",
                    w[0].filename,
                    w[0].path.display(),
                    w[1].path.display()
                ),
            ));
        }
    }
    Ok(by_project)
}

fn scan_flat(root: &Path) -> Result<Vec<Dist>> {
    let mut out = Vec::new();
    let real_root =
        std::fs::canonicalize(root).map_err(|e| Error::io(root.display().to_string(), e))?;
    let rd = std::fs::read_dir(root).map_err(|e| Error::io(root.display().to_string(), e))?;
    for entry in rd {
        let entry = entry.map_err(|e| Error::io(root.display().to_string(), e))?;
        let path = entry.path();
        if !path.is_file() {
            continue;
        }
        let filename = entry.file_name().to_string_lossy().into_owned();
        let Some((name, version)) = parse_filename(&filename) else {
            continue;
        };
        real_file(&real_root, root, &path)?;
        out.push(Dist {
            path,
            project: normalize(&name),
            display_name: name,
            version,
            filename,
            requires_python: None,
            yanked: None,
            index_sha256: None,
        });
    }
    Ok(out)
}

/// An `<a>` element of a simple-index page: decoded href and attributes.
struct Anchor {
    href: String,
    text: String,
    requires_python: Option<String>,
    yanked: Option<String>,
}

fn anchors(page: &Path) -> Result<Vec<Anchor>> {
    let html =
        std::fs::read_to_string(page).map_err(|e| Error::io(page.display().to_string(), e))?;
    let dom = tl::parse(&html, tl::ParserOptions::default())
        .map_err(|e| err(page, format!("not a parsable HTML page: {e}")))?;
    let parser = dom.parser();
    let mut out = Vec::new();
    for handle in dom.query_selector("a").into_iter().flatten() {
        let Some(tag) = handle.get(parser).and_then(|n| n.as_tag()) else {
            continue;
        };
        let attr = |name: &str| -> Option<String> {
            tag.attributes()
                .get(name)
                .map(|v| v.map(|b| b.as_utf8_str().into_owned()).unwrap_or_default())
                .map(|v| html_escape::decode_html_entities(&v).into_owned())
        };
        let Some(href) = attr("href") else { continue };
        out.push(Anchor {
            href,
            text: html_escape::decode_html_entities(&tag.inner_text(parser))
                .trim()
                .to_string(),
            requires_python: attr("data-requires-python"),
            yanked: attr("data-yanked"),
        });
    }
    Ok(out)
}

/// Resolve `href` (relative URL, percent-encoded) against the directory of `page`, inside
/// `root`.
fn resolve(root: &Path, page: &Path, href: &str) -> Result<PathBuf> {
    let path_part = href.split(['#', '?']).next().unwrap_or("");
    if path_part.contains("://") || path_part.starts_with('/') || path_part.is_empty() {
        return Err(err(
            page,
            format!("href {href:?} is not a relative link to a file inside the mirror"),
        ));
    }
    let decoded = percent_encoding::percent_decode_str(path_part)
        .decode_utf8()
        .map_err(|_| {
            err(
                page,
                format!("href {href:?} is not UTF-8 after percent-decoding"),
            )
        })?;
    let base = page.parent().unwrap_or(root);
    let rel_base = base.strip_prefix(root).unwrap_or(Path::new(""));
    let mut stack: Vec<std::ffi::OsString> = rel_base
        .components()
        .map(|c| c.as_os_str().to_owned())
        .collect();
    for c in Path::new(decoded.as_ref()).components() {
        match c {
            Component::Normal(s) => stack.push(s.to_owned()),
            Component::CurDir => {}
            Component::ParentDir => {
                if stack.pop().is_none() {
                    return Err(err(page, format!("href {href:?} leaves the mirror")));
                }
            }
            _ => return Err(err(page, format!("href {href:?} leaves the mirror"))),
        }
    }
    let mut p = root.to_path_buf();
    p.extend(stack);
    Ok(p)
}

/// The real path of the distribution file `path` found through `found_in` (a page, or the
/// mirror folder), checked to be a regular file whose every symlink resolves inside the
/// mirror (`real_root`, the mirror folder canonicalised once per scan). `batch` publishes the file a link names, never the link.
fn real_file(real_root: &Path, found_in: &Path, path: &Path) -> Result<PathBuf> {
    let real = std::fs::canonicalize(path).map_err(|e| Error::io(path.display().to_string(), e))?;
    if !real.starts_with(real_root) {
        return Err(err(
            found_in,
            format!(
                "{} resolves to {}, outside the mirror; refusing to publish it",
                path.display(),
                real.display()
            ),
        ));
    }
    if !std::fs::metadata(&real).is_ok_and(|m| m.is_file()) {
        return Err(err(
            found_in,
            format!("{} is not a regular file", path.display()),
        ));
    }
    Ok(real)
}

fn scan_pep503(root: &Path, index: &Path) -> Result<Vec<Dist>> {
    let mut out = Vec::new();
    let real_root =
        std::fs::canonicalize(root).map_err(|e| Error::io(root.display().to_string(), e))?;
    for project in anchors(index)? {
        let page_dir = resolve(root, index, &project.href)?;
        let page = if page_dir.is_dir() {
            page_dir.join("index.html")
        } else {
            page_dir
        };
        if !page.is_file() {
            return Err(err(
                index,
                format!(
                    "project link {:?} has no page at {}",
                    project.href,
                    page.display()
                ),
            ));
        }
        for a in anchors(&page)? {
            let path = resolve(root, &page, &a.href)?;
            let filename = path
                .file_name()
                .map(|f| f.to_string_lossy().into_owned())
                .unwrap_or_default();
            let Some((name, version)) = parse_filename(&filename) else {
                return Err(err(
                    &page,
                    format!(
                        "link {:?} ({}) is not a wheel or sdist file name",
                        a.href, a.text
                    ),
                ));
            };
            if !path.is_file() {
                return Err(err(
                    &page,
                    format!("link {:?} names a missing file {}", a.href, path.display()),
                ));
            }
            real_file(&real_root, &page, &path)?;
            let index_sha256 = a
                .href
                .split_once('#')
                .and_then(|(_, frag)| frag.strip_prefix("sha256="))
                .map(|h| h.to_ascii_lowercase());
            out.push(Dist {
                path,
                project: normalize(&name),
                display_name: name,
                version,
                filename,
                requires_python: a.requires_python,
                yanked: a.yanked,
                index_sha256,
            });
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalize_follows_pep503() {
        // The examples of PEP 503 "Normalized Names".
        for n in [
            "friendly-bard",
            "Friendly-Bard",
            "FRIENDLY-BARD",
            "friendly.bard",
            "friendly_bard",
            "friendly--bard",
            "FrIeNdLy-._.-bArD",
        ] {
            assert_eq!(normalize(n), "friendly-bard", "{n}");
        }
    }

    #[test]
    fn filenames() {
        assert_eq!(
            parse_filename("flash_attn-2.6.2+cu121-cp311-cp311-linux_x86_64.whl"),
            Some(("flash_attn".into(), "2.6.2+cu121".into()))
        );
        assert_eq!(
            parse_filename("pkg-1.0-1-py3-none-any.whl"),
            Some(("pkg".into(), "1.0".into()))
        );
        assert_eq!(
            parse_filename("my-pkg-1.0.tar.gz"),
            Some(("my-pkg".into(), "1.0".into()))
        );
        assert_eq!(parse_filename("notes.txt"), None);
        assert_eq!(parse_filename("a-b.whl"), None);
    }
}
