//! Build script: embeds the target registry's data files and prebuilds the HIP shim.
//!
//! Every `targets/*.toml` is a target profile, every `targets/families/*.toml` the defaults of
//! one code family, and every folder `relink-tables/<set>/` a relink-table set (its `*.tsv`
//! files). They are found here, at build time, so adding a profile or a table set is adding
//! files: `src/target/registry.rs` includes the generated `$OUT_DIR/registry_data.rs`.
//!
//! The HIP shim (`shims/hip/wheelport_shim.c`) is compiled here once per runtime soname of the
//! profiles with `shim = "hip"` (the `libcudart.so.12` rename rows of their relink-table
//! sets), with the recipe of `src/shim/recipe.rs`, and embedded through
//! `$OUT_DIR/prebuilt_shims.rs` (`wheelport::shim::prebuilt`), so that converting needs no C
//! compiler. The compiler is `$WHEELPORT_SHIM_CC`, else the first of `x86_64-linux-gnu-gcc`,
//! `gcc`, `cc` that builds an x86-64 library; without one the build warns and embeds none
//! (conversion then compiles the shim with the host compiler, as `shim::shim_for_table` says).

use std::fmt::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

#[allow(dead_code)]
#[path = "src/shim/tables.rs"]
mod shim_tables;

#[allow(dead_code)]
#[path = "src/shim/recipe.rs"]
mod shim_recipe;

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

    let out_dir = PathBuf::from(std::env::var("OUT_DIR").expect("OUT_DIR"));
    let dest = out_dir.join("registry_data.rs");
    std::fs::write(&dest, out).unwrap_or_else(|e| panic!("{}: {e}", dest.display()));

    prebuild_shims(&root, &out_dir);
}

/// The value of `key = "value"` on a line of a profile (profiles are flat TOML; the keys read
/// here are never inside a table).
fn toml_string(text: &str, key: &str) -> Option<String> {
    text.lines().find_map(|l| {
        let (k, v) = l.split_once('=')?;
        (k.trim() == key).then(|| v.trim().trim_matches('"').to_string())
    })
}

/// The runtime sonames the HIP shim is prebuilt for: the `libcudart.so.12` rename rows of the
/// relink-table sets of every profile with `shim = "hip"`, sorted, without duplicates.
fn shim_runtime_sonames(root: &Path) -> Vec<String> {
    let mut v = Vec::new();
    for p in sorted_entries(&root.join("targets"), false, Some("toml")) {
        let text = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        if toml_string(&text, "shim").as_deref() != Some("hip") {
            continue;
        }
        let Some(set) = toml_string(&text, "relink_tables") else {
            continue;
        };
        let sonames = root.join("relink-tables").join(&set).join("sonames.tsv");
        let Ok(tsv) = std::fs::read_to_string(&sonames) else {
            continue;
        };
        for row in shim_tables::rows(&tsv) {
            if row.len() >= 4 && row[0] == "libcudart.so.12" && row[3] == "rename" {
                v.push(row[2].to_string());
            }
        }
    }
    v.sort();
    v.dedup();
    v
}

/// Build the shim for `soname` in `work` with `cc`; the library's bytes, or why not.
fn build_shim(cc: &str, soname: &str, work: &Path) -> Result<Vec<u8>, String> {
    std::fs::create_dir_all(work).map_err(|e| format!("{}: {e}", work.display()))?;
    let files = [
        (
            shim_recipe::SOURCE,
            include_str!("shims/hip/wheelport_shim.c").to_string(),
        ),
        (shim_recipe::TABLES_HEADER, shim_tables::c_header()),
        (
            shim_recipe::PRINTF_HEADER,
            include_str!("shims/hip/wp_printf.h").to_string(),
        ),
        (
            shim_recipe::FLOOR_HEADER,
            shim_recipe::GLIBC_FLOOR_H.to_string(),
        ),
        (shim_recipe::STUB_SOURCE, shim_recipe::STUB_C.to_string()),
    ];
    for (name, text) in files {
        std::fs::write(work.join(name), text).map_err(|e| format!("{name}: {e}"))?;
    }
    for args in shim_recipe::compile_runs(soname, shim_recipe::SONAME) {
        let o = Command::new(cc)
            .args(&args)
            .current_dir(work)
            .output()
            .map_err(|e| format!("cannot run {cc}: {e}"))?;
        if !o.status.success() {
            return Err(format!(
                "{cc} {} failed: {}",
                args.join(" "),
                String::from_utf8_lossy(&o.stderr)
            ));
        }
    }
    let bytes = std::fs::read(work.join(shim_recipe::SONAME)).map_err(|e| e.to_string())?;
    match shim_recipe::elf_machine(&bytes) {
        Some(shim_recipe::EM_X86_64) => Ok(bytes),
        m => Err(format!(
            "{cc} does not build x86-64 libraries (e_machine {m:?})"
        )),
    }
}

/// The first line of `cc --version`.
fn cc_version(cc: &str) -> String {
    Command::new(cc)
        .arg("--version")
        .output()
        .ok()
        .and_then(|o| {
            String::from_utf8_lossy(&o.stdout)
                .lines()
                .next()
                .map(str::to_string)
        })
        .unwrap_or_default()
}

/// Prebuild the shim for every runtime soname and write `$OUT_DIR/prebuilt_shims.rs`.
fn prebuild_shims(root: &Path, out_dir: &Path) {
    for p in ["shims/hip", "src/shim/tables.rs", "src/shim/recipe.rs"] {
        println!("cargo:rerun-if-changed={}", root.join(p).display());
    }
    println!("cargo:rerun-if-env-changed=WHEELPORT_SHIM_CC");
    let sonames = shim_runtime_sonames(root);
    let given = std::env::var("WHEELPORT_SHIM_CC")
        .ok()
        .filter(|s| !s.is_empty());
    let compilers: Vec<String> = match &given {
        Some(cc) => vec![cc.clone()],
        None => ["x86_64-linux-gnu-gcc", "gcc", "cc"]
            .map(String::from)
            .to_vec(),
    };
    let dir = out_dir.join("shims");
    let mut built: Vec<(String, PathBuf)> = Vec::new();
    let mut used = String::new();
    let mut errors = Vec::new();
    'cc: for cc in &compilers {
        built.clear();
        for soname in &sonames {
            match build_shim(cc, soname, &dir.join(soname)) {
                Ok(bytes) => {
                    let f = dir.join(format!("{soname}.shim"));
                    std::fs::write(&f, bytes).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
                    built.push((soname.clone(), f));
                }
                Err(e) => {
                    errors.push(e);
                    continue 'cc;
                }
            }
        }
        used = cc.clone();
        break;
    }
    if built.len() != sonames.len() {
        if given.is_some() {
            panic!("WHEELPORT_SHIM_CC: {}", errors.join("; "));
        }
        println!(
            "cargo:warning=the HIP shim is not prebuilt (conversion will need a C compiler): {}",
            errors.last().map(String::as_str).unwrap_or("no compiler")
        );
        built.clear();
    }
    let mut s = String::new();
    s.push_str("/// The shims prebuilt by `build.rs`: (runtime soname, library bytes).\n");
    s.push_str("pub const SHIMS: &[(&str, &[u8])] = &[\n");
    for (soname, f) in &built {
        writeln!(
            s,
            "    ({soname:?}, include_bytes!({:?})),",
            f.display().to_string()
        )
        .unwrap();
    }
    s.push_str("];\n");
    s.push_str("/// `--version` of the compiler that built them (empty when none were built).\n");
    let version = if built.is_empty() {
        String::new()
    } else {
        cc_version(&used)
    };
    writeln!(s, "pub const CC_VERSION: &str = {version:?};").unwrap();
    let dest = out_dir.join("prebuilt_shims.rs");
    std::fs::write(&dest, s).unwrap_or_else(|e| panic!("{}: {e}", dest.display()));
}
