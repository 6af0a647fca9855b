//! Outputs that load, checked with the real tools: `wheelport convert` of bare `.so` inputs
//! that need the shim library, on layouts that broke before.
//!
//! * A bare `.so` (the demo wheel's extension): the shim is written beside it and the object
//!   finds it through DT_RUNPATH `$ORIGIN`; it loads with `LD_BIND_NOW=1` against a stub
//!   runtime (gcc), and fails without the shim beside it (so the check is real).
//! * Strip after conversion: a gcc-built extension edited twice by patchelf 0.19.3 (its
//!   sections alone at the end) converts, `strip -s` of the output loads, and no PT_LOAD of
//!   either is without sections (`readelf -lW`); before, the moved `.dynstr` left a
//!   section-less PT_LOAD that strip placed at an unaligned offset ("ELF load command
//!   address/offset not page-aligned").
//! * A program header table that patchelf moved to the end of the file (an lld-linked
//!   extension with 14 extra notes, edited twice): converts (the `object` builder refused it,
//!   "Unsupported e_phoff value"), the table is back after the ELF header, strip keeps it
//!   loadable.
//! * lld layouts: an extension linked by ld.lld 19 (gcc driving it) has no spare `.dynamic` slot; the shim's
//!   DT_NEEDED and the DT_RUNPATH move `.dynamic` to a new RW PT_LOAD: PT_DYNAMIC, `_DYNAMIC`
//!   and GOT[0] follow (readelf), `patchelf --print-needed` agrees with readelf, and it loads,
//!   stripped and not.

mod common;
mod convert_support;

use common::*;
use convert_support::readelf_needed;
use std::path::{Path, PathBuf};
use std::process::Command;

fn sh(dir: &Path, cmd: &str) {
    let (code, out, err) = run(Command::new("sh").arg("-c").arg(cmd).current_dir(dir));
    assert_eq!(code, 0, "{cmd}\n{out}\n{err}");
}

fn readelf(args: &[&str], f: &Path) -> String {
    let (code, out, err) = run(Command::new("readelf").args(args).arg(f));
    assert_eq!(code, 0, "readelf {args:?} {}: {err}", f.display());
    assert!(
        err.trim().is_empty(),
        "readelf {args:?} {}: {err}",
        f.display()
    );
    out
}

#[derive(Debug)]
struct Seg {
    ty: String,
    off: u64,
    vaddr: u64,
    filesz: u64,
    memsz: u64,
    flags: String,
    align: u64,
    sections: Vec<String>,
}

fn hex(s: &str) -> u64 {
    u64::from_str_radix(s.trim_start_matches("0x"), 16).unwrap()
}

/// Program headers with their sections, from `readelf -lW`.
fn segments(f: &Path) -> Vec<Seg> {
    let out = readelf(&["-l", "-W"], f);
    let mut segs: Vec<Seg> = out
        .lines()
        .filter_map(|l| {
            let c: Vec<&str> = l.split_whitespace().collect();
            if c.len() < 8 || !c[1].starts_with("0x") {
                return None;
            }
            Some(Seg {
                ty: c[0].into(),
                off: hex(c[1]),
                vaddr: hex(c[2]),
                filesz: hex(c[4]),
                memsz: hex(c[5]),
                flags: c[6..c.len() - 1].join(" "),
                align: hex(c[c.len() - 1]),
                sections: Vec::new(),
            })
        })
        .collect();
    let map: Vec<Vec<String>> = out
        .lines()
        .skip_while(|l| !l.contains("Section to Segment mapping"))
        .skip(2)
        .take(segs.len())
        .map(|l| l.split_whitespace().skip(1).map(str::to_string).collect())
        .collect();
    assert_eq!(map.len(), segs.len(), "{out}");
    for (s, m) in segs.iter_mut().zip(map) {
        s.sections = m;
    }
    segs
}

/// `e_phoff` as readelf prints it.
fn phoff(f: &Path) -> u64 {
    let out = readelf(&["-h"], f);
    let l = out
        .lines()
        .find(|l| l.contains("Start of program headers"))
        .unwrap();
    l.split(':')
        .nth(1)
        .unwrap()
        .split_whitespace()
        .next()
        .unwrap()
        .parse()
        .unwrap()
}

/// Every PT_LOAD has sections and `p_vaddr ≡ p_offset (mod p_align)`; PT_PHDR, when present,
/// lies in the PT_LOAD that maps the header.
fn check_loads(f: &Path) -> Vec<Seg> {
    let segs = segments(f);
    for s in segs.iter().filter(|s| s.ty == "LOAD") {
        assert!(
            !s.sections.is_empty(),
            "{}: PT_LOAD without sections: {s:?}",
            f.display()
        );
        assert_eq!(s.vaddr % s.align, s.off % s.align, "{}: {s:?}", f.display());
    }
    if let Some(ph) = segs.iter().find(|s| s.ty == "PHDR") {
        assert_eq!(ph.off, phoff(f), "{}", f.display());
        assert!(
            segs.iter().any(|l| l.ty == "LOAD"
                && l.off <= ph.off
                && ph.off + ph.filesz <= l.off + l.filesz
                && l.vaddr + (ph.off - l.off) == ph.vaddr),
            "{}: PT_PHDR not mapped: {segs:?}",
            f.display()
        );
    }
    segs
}

/// A stub `libgalaxyhip.so.5` (DTK's runtime) defining every `hip*` import of `objs` (the
/// extension and the shim); `hipMalloc` returns 7, so a call that reaches it is seen.
fn stub_runtime_for(dir: &Path, objs: &[&Path]) -> PathBuf {
    let rt = dir.join("rt");
    std::fs::create_dir_all(&rt).unwrap();
    let mut names = Vec::new();
    for o in objs {
        let (code, out, err) = run(Command::new("nm").args(["-D", "--undefined-only"]).arg(o));
        assert_eq!(code, 0, "nm {}: {err}", o.display());
        for l in out.lines() {
            let n = l.split_whitespace().last().unwrap();
            let n = n.split('@').next().unwrap();
            if n.starts_with("hip") || n.starts_with("__hip") {
                names.push(n.to_string());
            }
        }
    }
    names.sort();
    names.dedup();
    let src: String = names
        .iter()
        .map(|n| {
            let v = if n == "hipMalloc" { 7 } else { 0 };
            format!("long {n}(void) {{ return {v}; }}\n")
        })
        .collect();
    std::fs::write(rt.join("stub.c"), src).unwrap();
    sh(
        &rt,
        "gcc -shared -fPIC -w -Wl,-soname,libgalaxyhip.so.5 -o libgalaxyhip.so.5 stub.c",
    );
    rt
}

/// dlopen `so` with `LD_BIND_NOW=1` (the target runtime from `rt`; the shim only through the
/// object's own DT_RUNPATH) and call `call()` when given; Ok(printed value) or Err(stderr).
fn load(so: &Path, rt: &Path, call: Option<&str>) -> Result<String, String> {
    let code = match call {
        Some(f) => format!("import ctypes, sys\nprint(ctypes.CDLL(sys.argv[1]).{f}())"),
        None => "import ctypes, sys\nctypes.CDLL(sys.argv[1])\nprint('loaded')".to_string(),
    };
    let (c, out, err) = python_bind_now(&code, &[so], rt);
    if c == 0 {
        Ok(out.trim().to_string())
    } else {
        Err(err)
    }
}

/// `wheelport convert SO --target dtk -o OUT`; returns the converted object.
fn convert_so(so: &Path, out: &Path, extra: &[&str]) -> PathBuf {
    let (code, stdout, err) = run(Command::new(bin())
        .arg("convert")
        .arg(so)
        .args(["--target", "dtk", "-q", "-o"])
        .arg(out)
        .args(extra));
    assert!(code == 0 || code == 6, "{code}\n{stdout}\n{err}");
    let name = so.file_name().unwrap();
    // The object and the shim beside it; nothing else (no staging folder left).
    let mut files: Vec<String> = std::fs::read_dir(out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    let mut want = vec![
        name.to_string_lossy().into_owned(),
        "libwheelport_shim.so".to_string(),
    ];
    want.sort();
    assert_eq!(files, want, "{stdout}");
    assert!(stdout.contains("2 files written"), "{stdout}");
    out.join(name)
}

fn runpath(so: &Path) -> Option<String> {
    let d = readelf(&["-d", "-W"], so);
    let l = d.lines().find(|l| l.contains("(RUNPATH)"))?;
    Some(l[l.find('[')? + 1..l.rfind(']')?].to_string())
}

/// `strip -s` a copy of `so` (in the same folder, so `$ORIGIN` still finds the shim).
fn stripped(so: &Path) -> PathBuf {
    let s = so.with_file_name(format!(
        "stripped-{}",
        so.file_name().unwrap().to_string_lossy()
    ));
    std::fs::copy(so, &s).unwrap();
    let (code, _, err) = run(Command::new("strip").arg("-s").arg(&s));
    assert_eq!(code, 0, "strip -s {}: {err}", s.display());
    s
}

fn tools_present(test: &str) -> bool {
    ["gcc", "readelf", "strip", "nm", "python3"]
        .iter()
        .all(|t| require_tool(t, test).is_some())
}

/// The stand-in CUDA runtime (`libcudart.so.12`, versioned like NVIDIA's) in `dir`, and an
/// extension source calling one renamed import (`cudaMalloc` → `hipMalloc`), one served by
/// the shim (`cudaGetLastError`) and libc (`getenv@GLIBC_2.2.5`: its version requirement stays,
/// so dropping libcudart's frees no `.dynamic` slot).
fn cuda_runtime(dir: &Path) {
    std::fs::write(
        dir.join("rt.c"),
        "int cudaMalloc(void **p, unsigned long n) { return 0; }\nint cudaGetLastError(void) { return 0; }\n",
    )
    .unwrap();
    std::fs::write(dir.join("rt.map"), "libcudart.so.12 { global: *; };\n").unwrap();
    sh(dir, "gcc -shared -fPIC -Wl,-soname,libcudart.so.12 -Wl,--version-script=rt.map -o libcudart.so.12 rt.c");
    std::fs::write(
        dir.join("ext.c"),
        "extern int cudaMalloc(void **p, unsigned long n);\nextern int cudaGetLastError(void);\nextern char *getenv(const char *);\nint ext_run(void) { void *p; return cudaMalloc(&p, 16) + cudaGetLastError() + (getenv(\"WP_NEVER_SET\") != 0); }\n",
    )
    .unwrap();
}

/// Link `dir/ext.c` into `dir/out` with gcc driving ld.lld 19 (`-fuse-ld=lld`); false when
/// ld.lld is missing outside CI.
fn lld_link(dir: &Path, out: &str) -> bool {
    let Some(lld) = llvm19_tool("ld.lld") else {
        return false;
    };
    std::fs::create_dir_all(dir.join("lldbin")).unwrap();
    let _ = std::os::unix::fs::symlink(&lld, dir.join("lldbin/ld.lld"));
    sh(
        dir,
        &format!("gcc -shared -fPIC -B lldbin -fuse-ld=lld -o {out} ext.c -L. -l:libcudart.so.12"),
    );
    // The linker really was lld (it names itself in .comment).
    let comment = readelf(&["-p", ".comment"], &dir.join(out));
    assert!(comment.contains("LLD 19"), "{comment}");
    true
}

#[test]
fn bare_so_gets_the_shim_beside_it() {
    if !tools_present("bare .so") {
        return;
    }
    let d = tempfile::tempdir().unwrap();
    let dir = d.path();
    let demo =
        root().join("fixtures/wheels/wheelport_demo-0.1.0+cu13-py3-none-manylinux_2_28_x86_64.whl");
    let mut w = wheelport::wheel::WheelReader::open(&demo).unwrap();
    std::fs::create_dir_all(dir.join("in")).unwrap();
    let input = dir.join("in/_kernels.so");
    std::fs::write(&input, w.read_member("wheelport_demo/_kernels.so").unwrap()).unwrap();
    let out = convert_so(&input, &dir.join("out"), &["--allow-partial"]);
    let Some(needed) = readelf_needed(&out) else {
        return;
    };
    assert_eq!(needed.last().unwrap(), "libwheelport_shim.so", "{needed:?}");
    assert_eq!(runpath(&out).as_deref(), Some("$ORIGIN"));
    let shim = dir.join("out/libwheelport_shim.so");
    let rt = stub_runtime_for(dir, &[&out, &shim]);
    assert_eq!(load(&out, &rt, None), Ok("loaded".into()));
    // Without the shim beside it, the same object does not load: the shim is found through
    // $ORIGIN and nothing else.
    std::fs::create_dir_all(dir.join("alone")).unwrap();
    let alone = dir.join("alone/_kernels.so");
    std::fs::copy(&out, &alone).unwrap();
    let e = load(&alone, &rt, None).unwrap_err();
    assert!(e.contains("libwheelport_shim.so"), "{e}");
}

#[test]
fn patchelf_edited_inputs_convert_and_survive_strip() {
    if !tools_present("strip after patchelf") {
        return;
    }
    let Some(patchelf) = require_tool("patchelf", "strip after patchelf") else {
        return;
    };
    let d = tempfile::tempdir().unwrap();
    let dir = d.path();
    cuda_runtime(dir);

    // 1. gcc-built, edited twice: patchelf moves .dynstr to a PT_LOAD of its own at the end
    // (and .dynamic to another).
    sh(
        dir,
        "gcc -shared -fPIC -o ext.so ext.c -L. -l:libcudart.so.12",
    );
    std::fs::create_dir_all(dir.join("twice")).unwrap();
    let twice = dir.join("twice/ext.so");
    std::fs::copy(dir.join("ext.so"), &twice).unwrap();
    for rp in [
        "/opt/a",
        "/opt/bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb",
    ] {
        let (code, _, err) = run(Command::new(&patchelf)
            .args(["--add-rpath", rp])
            .arg(&twice));
        assert_eq!(code, 0, "{err}");
    }
    // The layout this case is about: a PT_LOAD holding .dynstr alone.
    let segs = segments(&twice);
    assert!(
        segs.iter()
            .any(|s| s.ty == "LOAD" && s.sections == [".dynstr"]),
        "{segs:?}"
    );
    let out = convert_so(&twice, &dir.join("out-twice"), &[]);
    let shim = dir.join("out-twice/libwheelport_shim.so");
    let rt = stub_runtime_for(dir, &[&out, &shim]);
    for f in [out.clone(), stripped(&out)] {
        check_loads(&f);
        assert_eq!(
            load(&f, &rt, Some("ext_run")),
            Ok("7".into()),
            "{}",
            f.display()
        );
    }

    // 2. lld-linked with 14 non-alloc notes (patchelf reserves a program header per note),
    // edited twice: patchelf moves the program header table to the end of the file.
    if !lld_link(dir, "lld.so") {
        return;
    }
    std::fs::write(
        dir.join("note.bin"),
        b"\x04\x00\x00\x00\x04\x00\x00\x00\x01\x00\x00\x00WPX\x00abcd",
    )
    .unwrap();
    let notes: String = (1..=14)
        .map(|i| format!(" --add-section .note.wp{i}=note.bin"))
        .collect();
    std::fs::create_dir_all(dir.join("moved")).unwrap();
    sh(dir, &format!("objcopy{notes} lld.so moved/ext.so"));
    let moved = dir.join("moved/ext.so");
    for args in [
        ["--add-needed", "libm.so.6"],
        [
            "--add-rpath",
            "/opt/bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb",
        ],
    ] {
        let (code, _, err) = run(Command::new(&patchelf).args(args).arg(&moved));
        assert_eq!(code, 0, "{err}");
    }
    assert_ne!(phoff(&moved), 64, "patchelf kept the table in place");
    let out = convert_so(&moved, &dir.join("out-moved"), &[]);
    assert_eq!(phoff(&out), 64);
    for f in [out.clone(), stripped(&out)] {
        check_loads(&f);
        assert_eq!(
            load(&f, &rt, Some("ext_run")),
            Ok("7".into()),
            "{}",
            f.display()
        );
    }
}

#[test]
fn lld_dynamic_moves_when_it_must_grow() {
    if !tools_present("lld .dynamic") {
        return;
    }
    let d = tempfile::tempdir().unwrap();
    let dir = d.path();
    cuda_runtime(dir);
    std::fs::create_dir_all(dir.join("in")).unwrap();
    if !lld_link(dir, "in/ext.so") {
        return;
    }
    let input = dir.join("in/ext.so");
    // ld.lld leaves no spare slot: readelf -d lists every entry, DT_NULL included.
    let dyn_entries = readelf(&["-d", "-W"], &input)
        .lines()
        .filter(|l| l.trim_start().starts_with("0x"))
        .count() as u64;
    let sec = |f: &Path, name: &str| -> (u64, u64) {
        let out = readelf(&["-S", "-W"], f);
        let l = out
            .lines()
            .find(|l| l.split_whitespace().any(|w| w == name))
            .unwrap_or_else(|| panic!("{name} in {out}"));
        let c: Vec<&str> = l[l.find(']').unwrap() + 1..].split_whitespace().collect();
        (hex(c[2]), hex(c[4]))
    };
    let (old_dyn, old_size) = sec(&input, ".dynamic");
    assert_eq!(old_size / 16, dyn_entries, "lld left spare .dynamic slots");
    let old_relro: Vec<(u64, u64)> = segments(&input)
        .iter()
        .filter(|s| s.ty == "GNU_RELRO")
        .map(|s| (s.vaddr, s.memsz))
        .collect();

    let out = convert_so(&input, &dir.join("out"), &[]);
    let (new_dyn, new_size) = sec(&out, ".dynamic");
    assert_ne!(new_dyn, old_dyn);
    assert_eq!(new_size, old_size + 2 * 16, "DT_NEEDED shim + DT_RUNPATH");
    let segs = check_loads(&out);
    // PT_DYNAMIC is the moved section, in a new RW PT_LOAD of its own; RELRO is unchanged.
    let pdyn = segs.iter().find(|s| s.ty == "DYNAMIC").unwrap();
    assert_eq!((pdyn.vaddr, pdyn.filesz), (new_dyn, new_size));
    let holder = segs
        .iter()
        .find(|s| s.ty == "LOAD" && s.sections.iter().any(|n| n == ".dynamic"))
        .unwrap();
    assert_eq!(
        (holder.flags.as_str(), &holder.sections[..]),
        ("RW", &[".dynamic".to_string()][..])
    );
    assert_eq!(
        segs.iter()
            .filter(|s| s.ty == "GNU_RELRO")
            .map(|s| (s.vaddr, s.memsz))
            .collect::<Vec<_>>(),
        old_relro
    );
    // _DYNAMIC and GOT[0] (the word at DT_PLTGOT) hold the new address, as they held the old.
    let syms = readelf(&["-s", "-W"], &out);
    let dynamic_sym = syms
        .lines()
        .find(|l| l.split_whitespace().last() == Some("_DYNAMIC"))
        .unwrap();
    assert_eq!(hex(dynamic_sym.split_whitespace().nth(1).unwrap()), new_dyn);
    let got0 = |f: &Path| -> u64 {
        let dump = readelf(&["-x", ".got.plt"], f);
        let l = dump
            .lines()
            .find(|l| l.trim_start().starts_with("0x"))
            .unwrap();
        let w: Vec<&str> = l.split_whitespace().collect();
        let bytes: Vec<u8> = (w[1].to_string() + w[2])
            .as_bytes()
            .chunks(2)
            .map(|c| u8::from_str_radix(std::str::from_utf8(c).unwrap(), 16).unwrap())
            .collect();
        u64::from_le_bytes(bytes.try_into().unwrap())
    };
    assert_eq!(got0(&input), old_dyn);
    assert_eq!(got0(&out), new_dyn);
    // patchelf reads the same DT_NEEDED list as readelf.
    let Some(needed) = readelf_needed(&out) else {
        return;
    };
    assert_eq!(needed.last().unwrap(), "libwheelport_shim.so");
    if let Some(patchelf) = require_tool("patchelf", "lld .dynamic") {
        let (code, pn, err) = run(Command::new(patchelf).arg("--print-needed").arg(&out));
        assert_eq!(code, 0, "{err}");
        assert_eq!(pn.lines().collect::<Vec<_>>(), needed);
    }
    let shim = dir.join("out/libwheelport_shim.so");
    let rt = stub_runtime_for(dir, &[&out, &shim]);
    for f in [out.clone(), stripped(&out)] {
        check_loads(&f);
        assert_eq!(
            load(&f, &rt, Some("ext_run")),
            Ok("7".into()),
            "{}",
            f.display()
        );
    }
}
