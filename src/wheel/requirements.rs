//! The per-target table of `Requires-Dist` entries a converted wheel drops
//! (`targets/requires-dist.tsv`, schema `wheelport-requires-dist/1`; the file's header
//! documents the columns).
//!
//! Project names are compared after PEP 503 normalisation (lower case, runs of `-`, `_` and
//! `.` become one `-`); the name is the leading part of a PEP 508 requirement string.

use std::sync::OnceLock;

/// The built-in table's text.
pub const TABLE: &str = include_str!("../../targets/requires-dist.tsv");

/// One row: on `target`, drop requirements on `project` (a name, or a prefix ending in `*`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    /// `dtk`, `rocm`, `musa` or `cuda`.
    pub target: String,
    /// Normalised project name, or a prefix ending in `*`.
    pub project: String,
    /// Why.
    pub notes: String,
}

/// PEP 503 normalisation of a project name.
pub fn normalize(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut sep = false;
    for c in name.chars() {
        if matches!(c, '-' | '_' | '.') {
            sep = true;
        } else {
            if sep && !out.is_empty() {
                out.push('-');
            }
            sep = false;
            out.push(c.to_ascii_lowercase());
        }
    }
    out
}

/// The project name at the start of a PEP 508 requirement (`nvidia-cublas-cu12>=12.1; ...`).
pub fn project_of(requirement: &str) -> String {
    let name: String = requirement
        .trim()
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        .collect();
    normalize(&name)
}

/// Parse a table in the `wheelport-requires-dist/1` format.
///
/// # Errors
/// A message with the 1-based line for a row without 4 tab-separated columns or with an
/// action other than `drop`, or a missing schema directive.
pub fn parse(text: &str) -> Result<Vec<Row>, String> {
    let mut rows = Vec::new();
    let mut schema = false;
    for (i, line) in text.lines().enumerate() {
        if let Some(d) = line.strip_prefix("#%") {
            schema |= d.trim() == "schema: wheelport-requires-dist/1";
            continue;
        }
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        if !schema {
            return Err(format!(
                "line {}: row before `#% schema: wheelport-requires-dist/1`",
                i + 1
            ));
        }
        let f: Vec<&str> = line.split('\t').collect();
        if f.len() != 4 {
            return Err(format!("line {}: {} columns, expected 4", i + 1, f.len()));
        }
        if f[2] != "drop" {
            return Err(format!(
                "line {}: unknown action {:?} (expected drop)",
                i + 1,
                f[2]
            ));
        }
        rows.push(Row {
            target: f[0].to_string(),
            project: f[1].to_string(),
            notes: f[3].to_string(),
        });
    }
    Ok(rows)
}

/// The built-in rows.
///
/// # Panics
/// Never for a released binary: the embedded table is checked by the unit tests.
pub fn builtin() -> &'static [Row] {
    static R: OnceLock<Vec<Row>> = OnceLock::new();
    R.get_or_init(|| parse(TABLE).unwrap_or_else(|e| panic!("targets/requires-dist.tsv: {e}")))
}

/// The row that drops `requirement` on `target`, if any.
pub fn dropped_by(target: &str, requirement: &str) -> Option<&'static Row> {
    let p = project_of(requirement);
    builtin().iter().find(|r| {
        r.target == target
            && match r.project.strip_suffix('*') {
                Some(prefix) => p.starts_with(prefix),
                None => p == r.project,
            }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_parses_and_matches() {
        assert!(!builtin().is_empty());
        assert_eq!(normalize("Nvidia_CUBLAS.cu12"), "nvidia-cublas-cu12");
        assert!(dropped_by("dtk", "nvidia-cublas-cu12>=12.1").is_some());
        assert!(dropped_by("dtk", "Nvidia_Cudnn_Cu12 ; platform_system=='Linux'").is_some());
        assert!(dropped_by("rocm", "cupy-cuda12x").is_some());
        assert!(dropped_by("dtk", "torch>=2.4").is_none());
        assert!(dropped_by("dtk", "cuda-pythonic").is_none());
        assert!(dropped_by("cuda", "nvidia-cublas-cu12").is_none());
        assert!(parse("#% schema: wheelport-requires-dist/1\ndtk\tx\tkeep\tn\n").is_err());
        assert!(parse("dtk\tx\tdrop\tn\n").is_err());
    }
}
