//! Attribution of imports to CUDA-stack libraries, driven by `relink-tables/cuda-stack.tsv`
//! (its header documents the schema).

use super::model::ImportGroup;
use crate::elf::Import;
use std::sync::OnceLock;

/// The built-in table text.
pub const TABLE: &str = include_str!("../../relink-tables/cuda-stack.tsv");

/// One rule of the table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Rule {
    /// A soname prefix of a CUDA-stack library.
    Soname(String),
    /// An unversioned mangled-name prefix and its library.
    Symbol(String, String),
    /// An unversioned demangled-name prefix and its library.
    Demangled(String, String),
    /// An unversioned name substring: CUDA-related, library unknown.
    Contains(String),
}

/// Parse the table text.
///
/// # Errors
/// A message naming the 1-based line for an unknown rule or a missing column.
pub fn parse_table(text: &str) -> Result<Vec<Rule>, String> {
    let mut rules = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim_end();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let cols: Vec<&str> = line.split('\t').collect();
        if cols.len() != 3 {
            return Err(format!(
                "line {}: expected 3 tab-separated columns, found {}",
                i + 1,
                cols.len()
            ));
        }
        let (p, l) = (cols[1].to_string(), cols[2].to_string());
        rules.push(match cols[0] {
            "soname" => Rule::Soname(p),
            "symbol" => Rule::Symbol(p, l),
            "demangled" => Rule::Demangled(p, l),
            "contains" => Rule::Contains(p),
            other => return Err(format!("line {}: unknown rule {other:?}", i + 1)),
        });
    }
    Ok(rules)
}

fn rules() -> &'static [Rule] {
    static RULES: OnceLock<Vec<Rule>> = OnceLock::new();
    RULES
        .get_or_init(|| parse_table(TABLE).expect("built-in relink-tables/cuda-stack.tsv is valid"))
}

/// True when `soname` belongs to the CUDA stack; a copy auditwheel vendored under a hashed
/// name (`libcudart.3eda8113.so.13`) counts as the library it is
/// ([`crate::analyze::runtime::canonical_soname`]).
pub fn is_cuda_library(soname: &str) -> bool {
    let soname = crate::analyze::runtime::canonical_soname(soname);
    rules()
        .iter()
        .any(|r| matches!(r, Rule::Soname(p) if soname.starts_with(p.as_str())))
}

/// Prefer the DT_NEEDED entry that starts with `lib` (e.g. `libcudart.so` → `libcudart.so.12`).
fn resolve(lib: &str, needed: &[String]) -> String {
    needed
        .iter()
        .find(|n| n.starts_with(lib))
        .cloned()
        .unwrap_or_else(|| lib.to_string())
}

/// The CUDA-stack library an UNVERSIONED import `name` comes from by the table's `symbol` and
/// `demangled` rules (`Some(Some(soname prefix))`), CUDA-related with the library unknown
/// (`contains` rules: `Some(None)`), or `None`.
pub fn unversioned_library(name: &str) -> Option<Option<&'static str>> {
    let mut demangled: Option<String> = None;
    for rule in rules() {
        match rule {
            Rule::Symbol(p, lib) if name.starts_with(p.as_str()) => return Some(Some(lib)),
            Rule::Demangled(p, lib) => {
                let d = demangled.get_or_insert_with(|| crate::cubin::demangle(name));
                if d.starts_with(p.as_str()) {
                    return Some(Some(lib));
                }
            }
            Rule::Contains(p) if name.contains(p.as_str()) => return Some(None),
            _ => {}
        }
    }
    None
}

/// Group the CUDA-stack imports of one object by library, in first-seen order.
pub fn group_imports(imports: &[Import], needed: &[String]) -> Vec<ImportGroup> {
    let mut groups: Vec<ImportGroup> = Vec::new();
    let mut push = |lib: String, by: &str, sym: String| {
        if let Some(g) = groups
            .iter_mut()
            .find(|g| g.library == lib && g.attributed_by == by)
        {
            g.symbols.push(sym);
        } else {
            groups.push(ImportGroup {
                library: lib,
                attributed_by: by.to_string(),
                symbols: vec![sym],
            });
        }
    };
    for imp in imports {
        if let Some(file) = &imp.version_file {
            if is_cuda_library(file) {
                push(file.clone(), "version", imp.display());
            }
            continue;
        }
        match unversioned_library(&imp.name) {
            Some(Some(lib)) => push(resolve(lib, needed), "rule", imp.display()),
            Some(None) => push("(unknown)".to_string(), "name", imp.display()),
            None => {}
        }
    }
    groups
}
