//! The host rewrite driven by the relink tables, on every fixture and corpus shared object,
//! for every target. Checked by an independent reader (readelf): no CUDA library remains in
//! DT_NEEDED or in a version requirement, every import is target-named, a shim-library
//! symbol, or one of the table's `unsupported` rows (listed), and readelf reads the result
//! without warnings. The fixture `sass_ptx.so` is also loaded with `LD_BIND_NOW=1` against a
//! stub target runtime generated from the plan with gcc, versioned (AMD's `hip_4.2`) and
//! unversioned (DTK).

mod common;

use common::*;
use std::path::{Path, PathBuf};
use std::process::Command;
use wheelport::relink::{load_builtin, plan, Kind};

const CUDA_LIBS: &[&str] = &[
    "libcudart.so",
    "libc10_cuda.so",
    "libtorch_cuda.so",
    "libcublas",
    "libcuda.so",
];

fn objects(dir: &Path) -> Vec<(String, PathBuf)> {
    let mut v: Vec<(String, PathBuf)> = fixture_objects()
        .into_iter()
        .map(|p| (p.display().to_string(), p))
        .collect();
    for prefix in ["xformers-", "autoawq_kernels-", "vllm_flash_attn-"] {
        let w = if prefix == "xformers-" {
            require_corpus(prefix, "relink_rewrite")
        } else {
            corpus_wheel(prefix)
        };
        if let Some(w) = w {
            v.extend(extract_shared_objects(&w, dir));
        } else {
            eprintln!("SKIP relink_rewrite: no {prefix}* wheel (set WHEELPORT_CORPUS)");
        }
    }
    v
}

#[test]
fn every_object_rewrites_for_every_target() {
    let Some(readelf) = require_tool("readelf", "relink_rewrite") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let objs = objects(tmp.path());
    assert!(objs.len() >= 12, "{} objects", objs.len());
    let mut moved = Vec::new();
    for target in ["dtk", "rocm", "musa"] {
        let table = load_builtin(target).unwrap();
        for (name, path) in &objs {
            let data = std::fs::read(path).unwrap();
            let so = wheelport::elf::scan(&data, name).unwrap();
            let p = plan(&table, &so);
            assert!(
                p.unresolved_needed.is_empty(),
                "{name} {target:?}: {:?}",
                p.unresolved_needed
            );
            // Every unresolved import is a row the table marks unsupported, or a shim row
            // whose symbol the target's shim library does not define.
            let shim_defines = wheelport::shim::shim_symbols(table.target());
            for u in &p.unresolved {
                let base = u.import.split('@').next().unwrap();
                let row = table
                    .symbol(base)
                    .unwrap_or_else(|| panic!("{name}: {} has no row", u.import));
                match row.kind {
                    Kind::Unsupported => {}
                    Kind::Shim | Kind::Noop => {
                        let t = row.target_name.as_deref().unwrap();
                        assert!(!shim_defines.contains(&t), "{name}: {}", u.import);
                        assert!(u.reason.contains(t), "{name}: {}", u.reason);
                    }
                    k => panic!("{name}: {} unresolved with kind {k:?}", u.import),
                }
            }
            // MUSA names are as long as CUDA's, so some objects need a larger .dynstr, which
            // moves into a new segment.
            let (out, summary) = wheelport::rewrite::rewrite(&data, &p.edits, name)
                .unwrap_or_else(|e| panic!("{name} for {target:?}: {e}"));
            if !summary.moved.is_empty() {
                moved.push(format!("{target:?} {name}: {:?}", summary.moved));
            }
            let new = tmp.path().join("rewritten.so");
            std::fs::write(&new, &out).unwrap();
            let (code, text, warnings) = run(Command::new(&readelf)
                .args(["-d", "-V", "--dyn-syms", "-W"])
                .arg(&new));
            assert_eq!(code, 0);
            assert!(
                warnings.trim().is_empty(),
                "{name} {target:?}: readelf warnings: {warnings}"
            );
            for line in text
                .lines()
                .filter(|l| l.contains("(NEEDED)") || l.contains("File:") || l.contains("Name:"))
            {
                for lib in CUDA_LIBS {
                    assert!(!line.contains(lib), "{name} {target:?}: {line}");
                }
            }
            // Imports: target names, shims, unsupported rows, or not CUDA at all.
            let unsupported: Vec<&str> = p
                .unresolved
                .iter()
                .map(|u| u.import.split('@').next().unwrap())
                .collect();
            for line in text.lines().filter(|l| l.contains(" UND ")) {
                let Some(sym) = line.split_whitespace().nth(7) else {
                    continue;
                };
                let sym = sym.split('@').next().unwrap();
                if let Some(row) = table.symbol(sym) {
                    // A rename may keep the name (ROCm PyTorch keeps some CUDA spellings).
                    let same_name =
                        row.kind == Kind::Rename && row.target_name.as_deref() == Some(sym);
                    assert!(
                        same_name || unsupported.contains(&sym),
                        "{name} {target:?}: CUDA import {sym} ({:?}) left",
                        row.kind
                    );
                }
            }
        }
        eprintln!("{target:?}: checked {} objects", objs.len());
    }
    eprintln!("moved into a new segment: {moved:#?}");
}

#[test]
fn rewritten_fixture_loads_against_stub_runtimes() {
    if require_tool("gcc", "relink_rewrite").is_none() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let src = root().join("fixtures/cuda/sass_ptx.so");
    let data = std::fs::read(&src).unwrap();
    let so = wheelport::elf::scan(&data, "sass_ptx.so").unwrap();
    let table = load_builtin("rocm").unwrap();
    let p = plan(&table, &so);
    assert!(p.unresolved.is_empty(), "{:?}", p.unresolved);
    assert_eq!(
        p.edits.needed,
        vec![(
            "libcudart.so.13".to_string(),
            Some("libamdhip64.so.6".to_string())
        )]
    );
    let (out, summary) = wheelport::rewrite::rewrite(&data, &p.edits, "sass_ptx.so").unwrap();
    assert_eq!(
        summary.renamed,
        so.imports
            .iter()
            .filter(|i| table.symbol(&i.name).is_some())
            .count()
    );
    let new = dir.join("sass_ptx_rocm.so");
    std::fs::write(&new, &out).unwrap();
    // A stub runtime exporting every name the plan binds to (targets and shims), each a
    // function returning 0 (the module constructor calls the registration entry points).
    let mut names: Vec<&String> = p.edits.renames.values().collect();
    names.sort();
    names.dedup();
    let c: String = names
        .iter()
        .map(|n| format!("long {n}(void) {{ return 0; }}\n"))
        .collect();
    std::fs::write(dir.join("stub.c"), c).unwrap();
    std::fs::write(dir.join("stub.map"), "hip_4.2 { global: *; };\n").unwrap();
    for (variant, flags) in [
        ("versioned", "-Wl,--version-script=stub.map"),
        ("unversioned", ""),
    ] {
        std::fs::create_dir_all(dir.join(variant)).unwrap();
        let (code, _, err) = run(Command::new("sh")
            .arg("-c")
            .arg(format!("gcc -shared -fPIC -Wl,-soname,libamdhip64.so.6 {flags} -o {variant}/libamdhip64.so.6 stub.c"))
            .current_dir(dir));
        assert_eq!(code, 0, "{err}");
        let (code, out, err) = run(Command::new("python3")
            .arg("-c")
            .arg("import ctypes, sys\nctypes.CDLL(sys.argv[1])\nprint('loaded')")
            .arg(&new)
            .env("LD_BIND_NOW", "1")
            .env("LD_LIBRARY_PATH", dir.join(variant)));
        assert_eq!((code, out.trim()), (0, "loaded"), "{variant}: {err}");
    }
    // The original needs libcudart.so.13, which the stub directory does not have.
    let (code, _, err) = run(Command::new("python3")
        .arg("-c")
        .arg("import ctypes, sys\nctypes.CDLL(sys.argv[1])")
        .arg(&src)
        .env("LD_BIND_NOW", "1")
        .env("LD_LIBRARY_PATH", dir.join("versioned")));
    assert_ne!(code, 0);
    assert!(err.contains("libcudart.so.13"), "{err}");
}

/// Every rewritten corpus and fixture object resolves all of its relocations (`ldd -r`:
/// LD_BIND_NOW-style processing of every data and function relocation, without running
/// constructors) against stub libraries generated from its imports: one stub per
/// non-system DT_NEEDED library, the target runtime versioned like AMD's (`hip_4.2`) in one
/// variant and unversioned like DTK's in the other. The unrewritten input fails the same
/// check (its CUDA libraries are missing).
#[test]
fn rewritten_objects_resolve_against_stub_libraries() {
    let (Some(readelf), Some(_)) = (
        require_tool("readelf", "relink_rewrite"),
        require_tool("gcc", "relink_rewrite"),
    ) else {
        return;
    };
    let Some(ldd) = require_tool("ldd", "relink_rewrite") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let objs = objects(tmp.path());
    let system = |lib: &str| {
        [
            "/lib/x86_64-linux-gnu",
            "/usr/lib/x86_64-linux-gnu",
            "/lib64",
            "/usr/lib64",
        ]
        .iter()
        .any(|d| Path::new(d).join(lib).exists())
    };
    let mut checked = 0;
    for target in ["dtk", "rocm"] {
        let table = load_builtin(target).unwrap();
        let runtime = table
            .soname("libcudart.so.12")
            .unwrap()
            .target_soname
            .clone()
            .unwrap();
        for (idx, (name, path)) in objs.iter().enumerate() {
            let data = std::fs::read(path).unwrap();
            let so = wheelport::elf::scan(&data, name).unwrap();
            let p = plan(&table, &so);
            let (out, _) = wheelport::rewrite::rewrite(&data, &p.edits, name).unwrap();
            let work = tmp.path().join(format!("{target:?}-{idx}"));
            std::fs::create_dir_all(&work).unwrap();
            let new = work.join("rewritten.so");
            std::fs::write(&new, &out).unwrap();
            // Imports to provide: unversioned, non-weak undefined dynamic symbols (versioned
            // ones come from the system's libc/libstdc++/libgcc).
            let (_, syms, _) = run(Command::new(&readelf).args(["--dyn-syms", "-W"]).arg(&new));
            let mut c_src = String::new();
            for l in syms.lines() {
                let c: Vec<&str> = l.split_whitespace().collect();
                if c.len() < 8 || c[6] != "UND" || c[4] == "WEAK" || c[7].contains('@') {
                    continue;
                }
                let size: u64 = c[2].parse().unwrap_or(8);
                match c[3] {
                    "OBJECT" => c_src.push_str(&format!("char {}[{}];\n", c[7], size.max(1))),
                    _ => c_src.push_str(&format!("void {}(void) {{}}\n", c[7])),
                }
            }
            std::fs::write(work.join("stub.c"), &c_src).unwrap();
            std::fs::write(work.join("hip.map"), "hip_4.2 { global: *; };\n").unwrap();
            let needed: Vec<String> = {
                let (_, d, _) = run(Command::new(&readelf).arg("-d").arg(&new));
                d.lines()
                    .filter(|l| l.contains("(NEEDED)"))
                    .filter_map(|l| {
                        l.split('[')
                            .nth(1)
                            .map(|s| s.trim_end_matches(']').to_string())
                    })
                    .collect()
            };
            for variant in ["versioned", "unversioned"] {
                let libdir = work.join(variant);
                std::fs::create_dir_all(&libdir).unwrap();
                for lib in needed.iter().filter(|l| !system(l)) {
                    let script = if variant == "versioned" && *lib == runtime {
                        "-Wl,--version-script=hip.map"
                    } else {
                        ""
                    };
                    let (code, _, err) = run(Command::new("sh")
                        .arg("-c")
                        .arg(format!("gcc -shared -fPIC -w -Wl,-soname,{lib} {script} -o {variant}/{lib} stub.c"))
                        .current_dir(&work));
                    assert_eq!(code, 0, "{name}: stub {lib}: {err}");
                }
                let (code, report, err) = run(Command::new(&ldd)
                    .arg("-r")
                    .arg(&new)
                    .env("LD_LIBRARY_PATH", &libdir));
                let all = format!("{report}{err}");
                assert!(
                    code == 0 && !all.contains("undefined symbol") && !all.contains("not found"),
                    "{name} for {target:?} ({variant}):\n{all}"
                );
                checked += 1;
            }
            // The input, against the same stubs: its CUDA runtime is missing.
            let (_, report, err) = run(Command::new(&ldd)
                .arg("-r")
                .arg(path)
                .env("LD_LIBRARY_PATH", work.join("versioned")));
            let all = format!("{report}{err}");
            assert!(
                all.contains("libcudart.so") && all.contains("not found"),
                "{name}: {all}"
            );
        }
    }
    eprintln!("ldd -r resolved {checked} rewritten objects");
}

/// The dynamic symbols a built library defines, read by `nm -D --defined-only`.
fn nm_defined(nm: &Path, lib: &Path) -> std::collections::BTreeSet<String> {
    let (code, out, e) = run(Command::new(nm).args(["-D", "--defined-only"]).arg(lib));
    assert_eq!(code, 0, "{e}");
    out.lines()
        .filter_map(|l| l.split_whitespace().nth(2))
        .map(|s| s.split('@').next().unwrap().to_string())
        .collect()
}

/// `inspect --target` (which prints `relink::plan`) and `rewrite_host` agree on every import of
/// every fixture and corpus object: each CUDA import (one with a table row, or versioned by a
/// CUDA library) is renamed by a `rename` row, renamed to a shim symbol that the built shim
/// library really defines (`nm -D --defined-only` on the library gcc built), or reported
/// unresolved with a reason, by both, identically.
#[test]
fn plan_and_rewrite_host_agree_on_every_import() {
    use std::collections::{BTreeMap, BTreeSet};
    let (Some(nm), Some(_)) = (
        require_tool("nm", "relink_rewrite"),
        require_tool("gcc", "relink_rewrite"),
    ) else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let objs = objects(tmp.path());
    assert!(objs.len() >= 12, "{} objects", objs.len());
    for target in ["dtk", "rocm", "musa"] {
        let table = load_builtin(target).unwrap();
        let profile = wheelport::target::profile(target).unwrap();
        // The shim the convert pipeline ships, and what it really exports.
        let shim_exports: BTreeSet<String> = match wheelport::shim::shim_for_table(&table) {
            Ok((soname, bytes)) => {
                let p = tmp.path().join(format!("{}-{soname}", target));
                std::fs::write(&p, bytes).unwrap();
                nm_defined(&nm, &p)
            }
            Err(_) => {
                assert_eq!(target, "musa");
                BTreeSet::new()
            }
        };
        let listed: BTreeSet<String> = wheelport::shim::shim_symbols(table.target())
            .into_iter()
            .map(String::from)
            .collect();
        assert!(
            listed.is_subset(&shim_exports),
            "{target:?}: listed but not exported: {:?}",
            listed.difference(&shim_exports).collect::<Vec<_>>()
        );
        let (mut renamed, mut shimmed, mut unresolved) = (0, 0, 0);
        let mut unresolved_names = BTreeSet::new();
        for (name, path) in &objs {
            let data = std::fs::read(path).unwrap();
            let so = wheelport::elf::scan(&data, name).unwrap();
            let p = plan(&table, &so);
            let placement = wheelport::rewrite::ShimPlacement {
                so_path: "pkg/m.so".into(),
                libs_dir: "pkg.libs".into(),
            };
            let host = wheelport::rewrite::rewrite_host(
                &wheelport::analyze::analyze(&data, name, name, &Default::default()).unwrap(),
                profile,
                &table,
                &BTreeMap::new(),
                (target != "musa").then_some(&placement),
                None,
            )
            .unwrap_or_else(|e| panic!("{name} {target:?}: {e}"));
            let r = &host.report;
            let mut plan_shimmed = p.shimmed.clone();
            plan_shimmed.sort();
            plan_shimmed.dedup();
            assert_eq!(plan_shimmed, r.shimmed, "{name} {target:?}: shimmed");
            let base =
                |u: &wheelport::relink::Unresolved| u.import.split('@').next().unwrap().to_string();
            let plan_unres: BTreeSet<String> = p.unresolved.iter().map(base).collect();
            let host_unres: BTreeSet<String> = r.unresolved.iter().map(base).collect();
            assert_eq!(plan_unres, host_unres, "{name} {target:?}: unresolved");
            let host_renamed: BTreeMap<&str, &str> = r
                .renamed
                .iter()
                .map(|(c, t)| (c.as_str(), t.as_str()))
                .collect();
            let cuda_files: Vec<&String> = p.edits.drop_version_files.iter().collect();
            for imp in &so.imports {
                let row = table.symbol(&imp.name);
                let from_cuda = imp
                    .version_file
                    .as_ref()
                    .is_some_and(|f| cuda_files.contains(&f) || table.soname(f).is_some());
                if row.is_none() && !from_cuda {
                    continue;
                }
                let what = format!("{name} {target:?}: {}", imp.display());
                if let Some(u) = p.unresolved.iter().find(|u| base(u) == imp.name) {
                    assert!(!u.reason.trim().is_empty(), "{what}: no reason");
                    assert!(!host_renamed.contains_key(imp.name.as_str()), "{what}");
                    unresolved_names.insert(imp.name.clone());
                    unresolved += 1;
                    continue;
                }
                let row = row.unwrap_or_else(|| panic!("{what}: no row and not unresolved"));
                let t = host_renamed
                    .get(imp.name.as_str())
                    .unwrap_or_else(|| panic!("{what}: neither renamed nor unresolved"));
                assert_eq!(Some(*t), row.target_name.as_deref(), "{what}");
                match row.kind {
                    Kind::Rename => renamed += 1,
                    Kind::Shim | Kind::Noop => {
                        assert!(shim_exports.contains(*t), "{what}: {t} not in the shim");
                        shimmed += 1;
                    }
                    Kind::Unsupported => panic!("{what}: unsupported row renamed"),
                }
            }
        }
        eprintln!(
            "{target:?}: {} objects, CUDA imports renamed {renamed}, shimmed {shimmed}, unresolved {unresolved} ({} distinct: {:?})",
            objs.len(),
            unresolved_names.len(),
            if unresolved_names.len() <= 8 { unresolved_names.iter().collect::<Vec<_>>() } else { Vec::new() }
        );
        assert!(renamed > 0 && unresolved + shimmed + renamed > 0);
        if target != "musa" {
            assert!(shimmed > 0, "{target:?}");
        }
    }
}
