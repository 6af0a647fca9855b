//! Writing the output index: PEP 503 HTML pages, PEP 691 JSON pages (API version 1.1, with
//! PEP 700's `versions` and `size`), and PEP 658/714 core-metadata links.
//!
//! Layout of the output tree (all hrefs relative, so the tree works from `file://` and behind
//! any static web server):
//!
//! ```text
//! OUT/files/<filename>                 distribution files (converted, or copied as they were)
//! OUT/files/<filename>.metadata        PEP 658 core metadata of each wheel (its METADATA file)
//! OUT/simple/index.html, index.json    the project list
//! OUT/simple/<project>/index.html      one page per normalized project name
//! OUT/simple/<project>/index.json      the same as PEP 691 JSON
//! ```
//!
//! A static server answers PEP 691 clients by serving `index.json` for
//! `Accept: application/vnd.pypi.simple.v1+json`; pip and uv with a `file://` index read the
//! HTML pages.

use serde::Serialize;
use std::fmt::Write as _;

/// API version written in every page (PEP 629 meta tag, PEP 691 `meta.api-version`); 1.1 is
/// PEP 700 (adds `versions`, `size`).
pub const API_VERSION: &str = "1.1";

/// One file of a project page.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FileEntry {
    /// File name in `OUT/files/`.
    pub filename: String,
    /// sha256 of the file, lower-case hex.
    pub sha256: String,
    /// Size in bytes.
    pub size: u64,
    /// sha256 of the `.metadata` sidecar when there is one (wheels).
    pub metadata_sha256: Option<String>,
    /// `Requires-Python` to advertise (from the source index), if any.
    pub requires_python: Option<String>,
    /// Yank reason (empty string: yanked without a reason), if yanked.
    pub yanked: Option<String>,
    /// The version from the file name.
    pub version: String,
}

fn href_for(filename: &str) -> String {
    // Percent-encode everything but RFC 3986 unreserved characters and '+' kept readable
    // would be ambiguous in URLs; encode '+' too (PEP 503 hrefs are URLs).
    const SET: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
        .remove(b'-')
        .remove(b'.')
        .remove(b'_')
        .remove(b'~');
    format!(
        "../../files/{}",
        percent_encoding::utf8_percent_encode(filename, SET)
    )
}

/// The PEP 503 HTML page of one project.
pub fn project_html(name: &str, files: &[FileEntry]) -> String {
    let mut s = String::new();
    let _ = write!(
        s,
        "<!DOCTYPE html>\n<html>\n<head>\n<meta name=\"pypi:repository-version\" content=\"{API_VERSION}\">\n<title>Links for {n}</title>\n</head>\n<body>\n<h1>Links for {n}</h1>\n",
        n = html_escape::encode_text(name)
    );
    for f in files {
        let _ = write!(
            s,
            "<a href=\"{}#sha256={}\"",
            href_for(&f.filename),
            f.sha256
        );
        if let Some(rp) = &f.requires_python {
            let _ = write!(
                s,
                " data-requires-python=\"{}\"",
                html_escape::encode_double_quoted_attribute(rp)
            );
        }
        if let Some(m) = &f.metadata_sha256 {
            let _ = write!(
                s,
                " data-core-metadata=\"sha256={m}\" data-dist-info-metadata=\"sha256={m}\""
            );
        }
        if let Some(y) = &f.yanked {
            let _ = write!(
                s,
                " data-yanked=\"{}\"",
                html_escape::encode_double_quoted_attribute(y)
            );
        }
        let _ = writeln!(s, ">{}</a><br/>", html_escape::encode_text(&f.filename));
    }
    s.push_str("</body>\n</html>\n");
    s
}

/// The PEP 691 JSON page of one project (API version 1.1).
pub fn project_json(name: &str, files: &[FileEntry]) -> String {
    let mut versions: Vec<&str> = files.iter().map(|f| f.version.as_str()).collect();
    versions.sort_unstable();
    versions.dedup();
    let files: Vec<serde_json::Value> = files
        .iter()
        .map(|f| {
            let meta = match &f.metadata_sha256 {
                Some(m) => serde_json::json!({ "sha256": m }),
                None => serde_json::Value::Bool(false),
            };
            let mut o = serde_json::json!({
                "filename": f.filename,
                "url": href_for(&f.filename),
                "hashes": { "sha256": f.sha256 },
                "size": f.size,
                "core-metadata": meta,
                "dist-info-metadata": meta,
                "yanked": match &f.yanked {
                    None => serde_json::Value::Bool(false),
                    Some(r) if r.is_empty() => serde_json::Value::Bool(true),
                    Some(r) => serde_json::Value::String(r.clone()),
                },
            });
            if let Some(rp) = &f.requires_python {
                o["requires-python"] = serde_json::Value::String(rp.clone());
            }
            o
        })
        .collect();
    let v = serde_json::json!({
        "meta": { "api-version": API_VERSION },
        "name": name,
        "files": files,
        "versions": versions,
    });
    let mut s = serde_json::to_string_pretty(&v).expect("JSON values serialize");
    s.push('\n');
    s
}

/// The PEP 503 root page listing `projects` (normalized names, sorted).
pub fn root_html(projects: &[String]) -> String {
    let mut s = format!(
        "<!DOCTYPE html>\n<html>\n<head>\n<meta name=\"pypi:repository-version\" content=\"{API_VERSION}\">\n<title>Simple index</title>\n</head>\n<body>\n"
    );
    for p in projects {
        let _ = writeln!(
            s,
            "<a href=\"{}/\">{}</a><br/>",
            percent_encoding::utf8_percent_encode(p, percent_encoding::NON_ALPHANUMERIC),
            html_escape::encode_text(p)
        );
    }
    s.push_str("</body>\n</html>\n");
    s
}

/// The PEP 691 JSON root page.
pub fn root_json(projects: &[String]) -> String {
    let v = serde_json::json!({
        "meta": { "api-version": API_VERSION },
        "projects": projects.iter().map(|p| serde_json::json!({ "name": p })).collect::<Vec<_>>(),
    });
    let mut s = serde_json::to_string_pretty(&v).expect("JSON values serialize");
    s.push('\n');
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn page_escapes_and_links() {
        let f = FileEntry {
            filename: "a_b-1.0+dtk-py3-none-any.whl".into(),
            sha256: "ab".repeat(32),
            size: 10,
            metadata_sha256: Some("cd".repeat(32)),
            requires_python: Some(">=3.9,<4".into()),
            yanked: None,
            version: "1.0+dtk".into(),
        };
        let h = project_html("a-b", std::slice::from_ref(&f));
        assert!(
            h.contains("href=\"../../files/a_b-1.0%2Bdtk-py3-none-any.whl#sha256="),
            "{h}"
        );
        assert!(h.contains("data-requires-python=\"&gt;=3.9,&lt;4\""), "{h}");
        let j: serde_json::Value = serde_json::from_str(&project_json("a-b", &[f])).unwrap();
        assert_eq!(j["meta"]["api-version"], "1.1");
        assert_eq!(j["files"][0]["requires-python"], ">=3.9,<4");
        assert_eq!(j["files"][0]["yanked"], false);
        assert_eq!(j["versions"][0], "1.0+dtk");
    }
}
