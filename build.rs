//! Build script: embeds the target registry's data files.
//!
//! Every `targets/*.toml` is a target profile, every `targets/families/*.toml` the defaults of
//! one code family, and every folder `relink-tables/<set>/` a relink-table set (its `*.tsv`
//! files). They are found here, at build time, so adding a profile or a table set is adding
//! files: `src/target/registry.rs` includes the generated `$OUT_DIR/registry_data.rs`.

use std::fmt::Write;
use std::path::{Path, PathBuf};

fn sorted_entries(dir: &Path, want_dir: bool, ext: Option<&str>) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.is_dir() == want_dir)
        .filter(|p| ext.is_none_or(|x| p.extension().is_some_and(|e| e == x)))
        .collect();
    v.sort();
    v
}

fn stem(p: &Path) -> String {
    p.file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or_else(|| panic!("{}: file name is not UTF-8", p.display()))
        .to_string()
}

/// `("<name>", include_str!("<abs path>"), "<repo-relative path>")` for each file.
fn files_array(root: &Path, files: &[PathBuf]) -> String {
    let mut s = String::from("&[\n");
    for f in files {
        let rel = f.strip_prefix(root).expect("under the crate root");
        writeln!(
            s,
            "    ({:?}, include_str!({:?}), {:?}),",
            stem(f),
            f.display().to_string(),
            rel.display().to_string()
        )
        .unwrap();
    }
    s.push(']');
    s
}

fn main() {
    let root = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR"));
    let targets = root.join("targets");
    let families = targets.join("families");
    let relink = root.join("relink-tables");
    for d in [&targets, &families, &relink] {
        println!("cargo:rerun-if-changed={}", d.display());
    }

    let mut out = String::new();
    out.push_str("/// Embedded target profiles: (name, TOML text, path in the source tree).\n");
    writeln!(
        out,
        "pub const PROFILES: &[(&str, &str, &str)] = {};",
        files_array(&root, &sorted_entries(&targets, false, Some("toml")))
    )
    .unwrap();
    out.push_str("/// Embedded family defaults: (family, TOML text, path in the source tree).\n");
    writeln!(
        out,
        "pub const FAMILIES: &[(&str, &str, &str)] = {};",
        files_array(&root, &sorted_entries(&families, false, Some("toml")))
    )
    .unwrap();
    out.push_str(
        "/// Embedded relink-table sets: (set, [(file stem, TSV text, path in the source tree)]).\n",
    );
    out.push_str("pub const RELINK_SETS: &[(&str, &[super::EmbeddedFile])] = &[\n");
    for set in sorted_entries(&relink, true, None) {
        let name = set
            .file_name()
            .and_then(|s| s.to_str())
            .expect("UTF-8 folder name")
            .to_string();
        let files = sorted_entries(&set, false, Some("tsv"));
        if files.is_empty() {
            continue;
        }
        println!("cargo:rerun-if-changed={}", set.display());
        writeln!(out, "    ({name:?}, {}),", files_array(&root, &files)).unwrap();
    }
    out.push_str("];\n");

    let dest = PathBuf::from(std::env::var("OUT_DIR").expect("OUT_DIR")).join("registry_data.rs");
    std::fs::write(&dest, out).unwrap_or_else(|e| panic!("{}: {e}", dest.display()));
}
