//! The target registry: every profile and relink-table set wheelport knows.
//!
//! At build time `build.rs` embeds every `targets/*.toml` (profiles), `targets/families/*.toml`
//! (family defaults) and `relink-tables/<set>/*.tsv` (relink-table sets). At run time the
//! registry is made once per process:
//!
//! * without `WHEELPORT_TARGETS_DIR`, from the embedded files;
//! * with `WHEELPORT_TARGETS_DIR=DIR`, the profiles are `DIR/*.toml` instead (family defaults
//!   from `DIR/families/*.toml` where present, else the embedded ones), and the relink-table
//!   sets are the embedded ones plus `DIR/relink-tables/<set>/*.tsv`, which win by name.
//!
//! A profile is a TOML table merged over its family's defaults (keys of the profile win; the
//! per-arch `arch` tables merge entry by entry),
//! then read as a [`Profile`] with unknown keys refused. Checks: the `name` equals the file
//! name, the family exists, `default_archs` is not empty, `wave_size` is 32 or 64 (per arch
//! too), a named relink-table set exists, `shim` is empty or `hip`.

use super::{Family, Profile};
use crate::error::{Error, ErrorKind, Result};
use std::path::Path;
use std::sync::OnceLock;

mod data {
    include!(concat!(env!("OUT_DIR"), "/registry_data.rs"));
}

/// The embedded profiles: (name, TOML text, path in the source tree).
pub const EMBEDDED_PROFILES: &[(&str, &str, &str)] = data::PROFILES;
/// The embedded family defaults: (family, TOML text, path in the source tree).
pub const EMBEDDED_FAMILIES: &[(&str, &str, &str)] = data::FAMILIES;
/// One embedded file: (name, text, path in the source tree).
pub type EmbeddedFile = (&'static str, &'static str, &'static str);

/// The embedded relink-table sets: (set, its files (file stem, TSV text, path in the source
/// tree)).
pub const EMBEDDED_RELINK_SETS: &[(&str, &[EmbeddedFile])] = data::RELINK_SETS;

/// The environment variable naming a folder of profiles that replaces the embedded ones.
pub const TARGETS_DIR_ENV: &str = "WHEELPORT_TARGETS_DIR";

/// One relink-table file of a set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RelinkFile {
    /// How errors and reports name it (`relink-tables/rocm/cudart12.tsv`).
    pub display: String,
    /// The TSV text.
    pub text: std::borrow::Cow<'static, str>,
}

/// Every profile and relink-table set of this process.
#[derive(Debug, Clone)]
pub struct Registry {
    /// The profiles, sorted by name.
    pub profiles: Vec<Profile>,
    /// The relink-table sets: (name, files sorted by file name), sorted by name.
    pub relink_sets: Vec<(String, Vec<RelinkFile>)>,
    /// Where the profiles came from: `embedded`, or the `WHEELPORT_TARGETS_DIR` folder.
    pub origin: String,
}

impl Registry {
    /// The profile named `name`.
    pub fn profile(&self, name: &str) -> Option<&Profile> {
        self.profiles.iter().find(|p| p.name == name)
    }

    /// The files of the relink-table set `name`.
    pub fn relink_set(&self, name: &str) -> Option<&[RelinkFile]> {
        self.relink_sets
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, f)| f.as_slice())
    }

    /// Make the registry from the embedded files only.
    ///
    /// # Errors
    /// As [`Registry::load_dir`], for a broken source tree (the unit tests catch it).
    pub fn embedded() -> Result<Registry> {
        let families: Vec<(String, String, String)> = EMBEDDED_FAMILIES
            .iter()
            .map(|(n, t, p)| (n.to_string(), t.to_string(), p.to_string()))
            .collect();
        let profiles: Vec<(String, String, String)> = EMBEDDED_PROFILES
            .iter()
            .map(|(n, t, p)| (n.to_string(), t.to_string(), p.to_string()))
            .collect();
        make(&profiles, &families, embedded_sets(), "embedded")
    }

    /// Make the registry from the profiles in `dir` (see the module docs).
    ///
    /// # Errors
    /// [`ErrorKind::Io`] when the folder or a file cannot be read; [`ErrorKind::Input`]
    /// naming the file for a profile that does not parse or fails a check.
    pub fn load_dir(dir: &Path) -> Result<Registry> {
        let profiles = read_named(dir, "toml")?;
        let fam_dir = dir.join("families");
        let mut families: Vec<(String, String, String)> = EMBEDDED_FAMILIES
            .iter()
            .map(|(n, t, p)| (n.to_string(), t.to_string(), p.to_string()))
            .collect();
        if fam_dir.is_dir() {
            for f in read_named(&fam_dir, "toml")? {
                families.retain(|(n, _, _)| *n != f.0);
                families.push(f);
            }
        }
        let mut sets = embedded_sets();
        let rt = dir.join("relink-tables");
        if rt.is_dir() {
            let rd = std::fs::read_dir(&rt).map_err(|e| Error::io(rt.display().to_string(), e))?;
            let mut dirs: Vec<_> = rd
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.is_dir())
                .collect();
            dirs.sort();
            for d in dirs {
                let name = d
                    .file_name()
                    .and_then(|n| n.to_str())
                    .unwrap_or_default()
                    .to_string();
                let files: Vec<RelinkFile> = read_named(&d, "tsv")?
                    .into_iter()
                    .map(|(_, text, display)| RelinkFile {
                        display,
                        text: text.into(),
                    })
                    .collect();
                if files.is_empty() {
                    continue;
                }
                sets.retain(|(n, _)| *n != name);
                sets.push((name, files));
            }
            sets.sort_by(|a, b| a.0.cmp(&b.0));
        }
        make(&profiles, &families, sets, &dir.display().to_string())
    }
}

fn embedded_sets() -> Vec<(String, Vec<RelinkFile>)> {
    EMBEDDED_RELINK_SETS
        .iter()
        .map(|(n, files)| {
            (
                n.to_string(),
                files
                    .iter()
                    .map(|(_, text, path)| RelinkFile {
                        display: path.to_string(),
                        text: std::borrow::Cow::Borrowed(text),
                    })
                    .collect(),
            )
        })
        .collect()
}

/// (stem, text, display path) of every `*.ext` file in `dir`, sorted.
fn read_named(dir: &Path, ext: &str) -> Result<Vec<(String, String, String)>> {
    let rd = std::fs::read_dir(dir).map_err(|e| Error::io(dir.display().to_string(), e))?;
    let mut paths: Vec<_> = rd
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file() && p.extension().is_some_and(|e| e == ext))
        .collect();
    paths.sort();
    paths
        .into_iter()
        .map(|p| {
            let display = p.display().to_string();
            let stem = p
                .file_stem()
                .and_then(|s| s.to_str())
                .ok_or_else(|| Error::new(ErrorKind::Input, &display, "file name is not UTF-8"))?
                .to_string();
            let text = std::fs::read_to_string(&p).map_err(|e| Error::io(&display, e))?;
            Ok((stem, text, display))
        })
        .collect()
}

fn parse_table(text: &str, file: &str) -> Result<toml::Table> {
    text.parse::<toml::Table>()
        .map_err(|e| Error::new(ErrorKind::Input, file, format!("not a TOML table: {e}")))
}

fn make(
    profiles: &[(String, String, String)],
    families: &[(String, String, String)],
    relink_sets: Vec<(String, Vec<RelinkFile>)>,
    origin: &str,
) -> Result<Registry> {
    let mut out = Vec::new();
    for (stem, text, file) in profiles {
        let mine = parse_table(text, file)?;
        let fam_name = mine.get("family").and_then(|v| v.as_str()).ok_or_else(|| {
            Error::new(
                ErrorKind::Input,
                file,
                "profile has no `family` (amdgcn, nvptx or none)",
            )
        })?;
        let (_, ftext, fpath) =
            families
                .iter()
                .find(|(n, _, _)| n == fam_name)
                .ok_or_else(|| {
                    Error::new(
                        ErrorKind::Input,
                        file,
                        format!(
                            "unknown family `{fam_name}` (no targets/families/{fam_name}.toml)"
                        ),
                    )
                })?;
        let mut merged = parse_table(ftext, fpath)?;
        for (k, v) in mine {
            // Per-arch tables merge entry by entry (the profile's win); other keys replace.
            match (merged.get_mut(&k), v) {
                (Some(toml::Value::Table(base)), toml::Value::Table(t)) if k == "arch" => {
                    for (a, o) in t {
                        base.insert(a, o);
                    }
                }
                (_, v) => {
                    merged.insert(k, v);
                }
            }
        }
        let mut p: Profile =
            toml::Value::Table(merged)
                .try_into()
                .map_err(|e: toml::de::Error| {
                    Error::new(ErrorKind::Input, file, format!("profile: {}", e.message()))
                })?;
        p.source = file.clone();
        check(&p, stem, &relink_sets)?;
        out.push(p);
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(Registry {
        profiles: out,
        relink_sets,
        origin: origin.to_string(),
    })
}

fn check(p: &Profile, stem: &str, sets: &[(String, Vec<RelinkFile>)]) -> Result<()> {
    let bad = |m: String| Err(Error::new(ErrorKind::Input, &p.source, m));
    if p.name != stem {
        return bad(format!(
            "profile name `{}` differs from its file name `{stem}`",
            p.name
        ));
    }
    if p.default_archs.is_empty() {
        return bad("`default_archs` is empty".into());
    }
    for (arch, w) in std::iter::once(("(profile)", Some(p.wave_size)))
        .chain(p.arch.iter().map(|(a, o)| (a.as_str(), o.wave_size)))
    {
        if let Some(w) = w {
            if w != 32 && w != 64 {
                return bad(format!("{arch}: wave_size {w} is neither 32 nor 64"));
            }
        }
    }
    if !p.relink_tables.is_empty() && !sets.iter().any(|(n, _)| *n == p.relink_tables) {
        return bad(format!(
            "relink-table set `{}` not found (relink-tables/{}/)",
            p.relink_tables, p.relink_tables
        ));
    }
    if !matches!(p.shim.as_str(), "" | "hip") {
        return bad(format!(
            "unknown shim `{}` (expected `hip` or none)",
            p.shim
        ));
    }
    if p.family == Family::Nvptx && p.relinks() {
        return bad("an nvptx profile keeps CUDA imports; it takes no relink tables".into());
    }
    Ok(())
}

/// The registry of this process (see the module docs), made on first use.
///
/// # Errors
/// The error of [`Registry::load_dir`] when `WHEELPORT_TARGETS_DIR` names a folder whose
/// profiles do not load (every later call returns it again).
pub fn registry() -> Result<&'static Registry> {
    static R: OnceLock<Result<Registry>> = OnceLock::new();
    R.get_or_init(|| match std::env::var_os(TARGETS_DIR_ENV) {
        Some(d) if !d.is_empty() => Registry::load_dir(Path::new(&d)),
        _ => Registry::embedded(),
    })
    .as_ref()
    .map_err(Clone::clone)
}

/// All profiles of the [`registry`], sorted by name; empty when it failed to load (the
/// command-line front end reports that error before anything else).
pub fn builtin() -> &'static [Profile] {
    registry().map(|r| r.profiles.as_slice()).unwrap_or(&[])
}

/// The profile named `name` (`dtk`, `rocm`, `cuda`, `musa`, ...), or `None`.
pub fn profile(name: &str) -> Option<&'static Profile> {
    builtin().iter().find(|p| p.name == name)
}

/// The names of every profile, sorted.
pub fn names() -> Vec<&'static str> {
    builtin().iter().map(|p| p.name.as_str()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embedded_registry_loads_and_checks() {
        let r = Registry::embedded().unwrap();
        let names: Vec<&str> = r.profiles.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["cuda", "dtk", "musa", "rocm"]);
        assert!(r.relink_set("rocm").is_some_and(|f| f.len() == 5));
        assert_eq!(r.profile("rocm").unwrap().sdk.as_deref(), Some("6"));
        assert_eq!(r.profile("dtk").unwrap().sdk, None);
    }

    #[test]
    fn a_folder_of_profiles_replaces_the_embedded_ones() {
        let dir = tempfile::tempdir().unwrap();
        let rocm = EMBEDDED_PROFILES.iter().find(|p| p.0 == "rocm").unwrap().1;
        let mine = rocm.replace("name = \"rocm\"", "name = \"mi300\"").replace(
            "default_archs = [\"gfx906\"]",
            "default_archs = [\"gfx942\"]",
        ) + "[arch.gfx1100]\nwave_size = 32\n";
        std::fs::write(dir.path().join("mi300.toml"), &mine).unwrap();
        let r = Registry::load_dir(dir.path()).unwrap();
        let p = r.profile("mi300").unwrap();
        assert_eq!(p.default_archs, ["gfx942"]);
        assert_eq!(p.triple, "amdgcn-amd-amdhsa");
        assert_eq!(p.wave_size_for("gfx1100"), 32);
        assert_eq!(p.wave_size_for("gfx942"), 64);
        assert!(r.profile("dtk").is_none());

        // The checks name the file.
        std::fs::write(dir.path().join("other.toml"), &mine).unwrap();
        let e = Registry::load_dir(dir.path()).unwrap_err();
        assert!(e.file.ends_with("other.toml"), "{e}");
        assert!(e.message.contains("differs from its file name"), "{e}");
        std::fs::remove_file(dir.path().join("other.toml")).unwrap();
        std::fs::write(
            dir.path().join("typo.toml"),
            mine.replace("mi300", "typo")
                .replace("wave_size = 64", "wave_sise = 64"),
        )
        .unwrap();
        let e = Registry::load_dir(dir.path()).unwrap_err();
        assert!(e.message.contains("wave_sise"), "{e}");
    }
}
