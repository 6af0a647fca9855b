//! The device build on real LLVM IR (fixtures/ir, written by clang 19): AMDGPU code objects for
//! gfx906/gfx908 and PTX for sm_80, checked here against llvm-readelf, clang-offload-bundler
//! and ptxas; a deliberately wrong parameter layout is caught; the cache is hit on a rebuild.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use wheelport::build::{build_module, build_modules, BuildOptions, Cache, ModuleInput};
use wheelport::error::ErrorKind;
use wheelport::lower::{KernelOutcome, KernelResult, LoweredModule, ParamLayout};
use wheelport::target::{profile, Profile};
use wheelport::toolchain::{discover, SearchOptions, Toolchain};

fn ir(name: &str) -> PathBuf {
    common::root().join("fixtures/ir").join(name)
}

/// The toolchain for `target`, or None (SKIP) when incomplete outside CI.
fn toolchain(target: &str, test: &str) -> Option<(&'static Profile, Toolchain)> {
    let p = profile(target).unwrap();
    let tc = discover(p, &SearchOptions::from_env());
    if tc.is_complete() {
        return Some((p, tc));
    }
    common::missing(
        test,
        &format!("toolchain for {target} incomplete: {:?}", tc.missing),
    )
}

fn param(name: &str, offset: u32, size: u32, align: u32) -> ParamLayout {
    ParamLayout {
        name: name.into(),
        offset,
        size,
        align,
    }
}

fn lowered(name: &str, params: Vec<ParamLayout>) -> KernelResult {
    KernelResult {
        name: name.into(),
        outcome: KernelOutcome::Lowered,
        params,
        notes: vec![],
    }
}

/// The kernels of fixtures/ir/kernels.cu with their CUDA (PTX) parameter layouts, as nvcc's
/// PTX declares them (`.param .u32`, `.param .f32`, `.param .u64`, `.param .align 4 .b8
/// [16]`).
fn kernels() -> Vec<KernelResult> {
    vec![
        lowered(
            "_Z5saxpyifPKfPf",
            vec![
                param("n", 0, 4, 4),
                param("a", 4, 4, 4),
                param("x", 8, 8, 8),
                param("y", 16, 8, 8),
            ],
        ),
        lowered(
            "_Z5mixeddc4PairPx",
            vec![
                param("d", 0, 8, 8),
                param("c", 8, 1, 1),
                param("p", 12, 16, 4),
                param("out", 32, 8, 8),
            ],
        ),
        lowered(
            "_Z8lib_userPff",
            vec![param("y", 0, 8, 8), param("a", 8, 4, 4)],
        ),
    ]
}

fn module(family: &str) -> LoweredModule {
    LoweredModule {
        ir: std::fs::read_to_string(ir(&format!("kernels.{family}.ll"))).unwrap(),
        kernels: kernels(),
        support_library: ir(&format!("support.{family}.ll")).display().to_string(),
    }
}

fn readelf(args: &[&str], file: &Path) -> String {
    let (c, out, err) = common::run(
        Command::new(common::require_llvm_tool("llvm-readelf", "build_device").unwrap())
            .args(args)
            .arg(file),
    );
    assert_eq!(c, 0, "{err}");
    out
}

#[test]
fn amdgcn_code_objects_for_two_archs_pass_the_checks_and_bundle() {
    let Some((p, tc)) = toolchain("dtk", "amdgcn_code_objects") else {
        return;
    };
    let m = module("amdgcn");
    let opts = BuildOptions {
        archs: vec!["gfx906".into(), "gfx908".into()],
        cache: None,
        split_bytes: None,
    };
    let built = build_module(
        p,
        &tc,
        ModuleInput {
            name: "kernels.ptx",
            lowered: &m,
        },
        &opts,
    )
    .unwrap();
    assert_eq!(built.objects.len(), 2);
    let t = tempfile::tempdir().unwrap();
    for (o, flags) in built.objects.iter().zip(["gfx906", "gfx908"]) {
        assert!(!o.from_cache);
        let f = t.path().join(format!("k-{}.co", o.arch));
        std::fs::write(&f, &o.bytes).unwrap();
        let h = readelf(&["-h"], &f);
        assert!(
            h.contains("EM_AMDGPU") && h.contains("AMDGPU - HSA") && h.contains("DYN"),
            "{h}"
        );
        assert!(h.contains(flags), "{h}");
        let syms = readelf(&["--dyn-syms", "-W"], &f);
        for k in ["_Z5saxpyifPKfPf", "_Z5mixeddc4PairPx", "_Z8lib_userPff"] {
            assert!(
                syms.contains(&format!(" {k}\n")) && syms.contains(&format!(" {k}.kd\n")),
                "{syms}"
            );
        }
        // The support library was internalized and only what is used kept.
        assert!(
            !syms.contains("wp_fma3") && !syms.contains("wp_unused"),
            "{syms}"
        );
        let notes = readelf(&["--notes"], &f);
        // `mixed`: the byref struct at 12 (16 bytes), the pointer at 32 (PTX layout).
        let mixed = &notes[notes
            .find(".name:           _Z5mixeddc4PairPx")
            .map(|i| notes[..i].rfind("- .args:").unwrap())
            .unwrap()..];
        for want in [
            ".offset:         12\n        .size:           16",
            ".offset:         32\n        .size:           8",
        ] {
            assert!(mixed.contains(want), "{want} not in {mixed}");
        }
        eprintln!(
            "{} {}: {} bytes in {:.2} s",
            built.name,
            o.arch,
            o.bytes.len(),
            o.seconds
        );
    }
    // The clang offload bundle of both, read back by our reader and by clang-offload-bundler 19.
    let objs: Vec<(&str, &[u8])> = built
        .objects
        .iter()
        .map(|o| (o.arch.as_str(), o.bytes.as_slice()))
        .collect();
    let bundle = wheelport::bundle::write_hip(&objs);
    let entries = wheelport::bundle::read(&bundle, "b").unwrap();
    let ids: Vec<&str> = entries.iter().map(|e| e.id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "host-x86_64-unknown-linux-gnu",
            "hipv4-amdgcn-amd-amdhsa--gfx906",
            "hipv4-amdgcn-amd-amdhsa--gfx908"
        ]
    );
    for (e, o) in entries[1..].iter().zip(&built.objects) {
        assert_eq!(e.offset % 4096, 0);
        assert_eq!(
            &bundle[e.offset as usize..(e.offset + e.size) as usize],
            o.bytes.as_slice()
        );
    }
    let b = t.path().join("k.hipfb");
    std::fs::write(&b, &bundle).unwrap();
    let Some(cob) = common::require_llvm_tool("clang-offload-bundler", "build_device") else {
        return;
    };
    let (c, out, err) = common::run(
        Command::new(&cob)
            .args(["-list", "-type=o"])
            .arg(format!("-input={}", b.display())),
    );
    assert_eq!(c, 0, "{err}");
    let mut listed: Vec<&str> = out.lines().collect();
    listed.sort();
    let mut want = ids.clone();
    want.sort();
    assert_eq!(listed, want);
    for o in &built.objects {
        let x = t.path().join(format!("x-{}.co", o.arch));
        let (c, _, err) = common::run(
            Command::new(&cob)
                .args(["-unbundle", "-type=o"])
                .arg(format!("-targets=hipv4-amdgcn-amd-amdhsa--{}", o.arch))
                .arg(format!("-input={}", b.display()))
                .arg(format!("-output={}", x.display())),
        );
        assert_eq!(c, 0, "{err}");
        assert_eq!(std::fs::read(&x).unwrap(), o.bytes, "{}", o.arch);
    }
}

#[test]
fn a_wrong_parameter_layout_is_caught_in_the_code_object() {
    let Some((p, tc)) = toolchain("dtk", "wrong_layout") else {
        return;
    };
    let opts = BuildOptions {
        archs: vec!["gfx906".into()],
        cache: None,
        split_bytes: None,
    };
    // The struct parameter claimed at 16 instead of 12 (a lowering that mis-aligns it).
    let mut m = module("amdgcn");
    m.kernels[1].params[2].offset = 16;
    let e = build_module(
        p,
        &tc,
        ModuleInput {
            name: "bad.ptx",
            lowered: &m,
        },
        &opts,
    )
    .unwrap_err();
    assert_eq!(e.kind, ErrorKind::Build);
    assert_eq!(
        e.to_string(),
        "bad.ptx: gfx906: kernel `_Z5mixeddc4PairPx`: .args[2] .offset is 12, the PTX parameter layout has 16 (param `p`)"
    );
    // A size that differs.
    let mut m = module("amdgcn");
    m.kernels[0].params[3].size = 4;
    let e = build_module(
        p,
        &tc,
        ModuleInput {
            name: "bad.ptx",
            lowered: &m,
        },
        &opts,
    )
    .unwrap_err();
    assert!(e.message.contains("kernel `_Z5saxpyifPKfPf`: .args[3] .size is 8, the PTX parameter layout has 4 (param `y`)"), "{e}");
    // A parameter missing from the layout.
    let mut m = module("amdgcn");
    m.kernels[2].params.pop();
    let e = build_module(
        p,
        &tc,
        ModuleInput {
            name: "bad.ptx",
            lowered: &m,
        },
        &opts,
    )
    .unwrap_err();
    assert!(e.message.contains("kernel `_Z8lib_userPff`: .args has 2 explicit arguments, the PTX parameter layout has 1"), "{e}");
    // A kernel the IR does not define.
    let mut m = module("amdgcn");
    m.kernels.push(lowered("_Z4gonev", vec![]));
    let e = build_module(
        p,
        &tc,
        ModuleInput {
            name: "bad.ptx",
            lowered: &m,
        },
        &opts,
    )
    .unwrap_err();
    assert!(
        e.message
            .contains("kernel `_Z4gonev`: no symbol `_Z4gonev` in .dynsym"),
        "{e}"
    );
    // An unsupported kernel is not looked for.
    let mut m = module("amdgcn");
    m.kernels.push(KernelResult {
        name: "_Z4gonev".into(),
        outcome: KernelOutcome::Unsupported {
            forms: vec!["tex.2d".into()],
            reason: "texture".into(),
        },
        params: vec![],
        notes: vec![],
    });
    build_module(
        p,
        &tc,
        ModuleInput {
            name: "ok.ptx",
            lowered: &m,
        },
        &opts,
    )
    .unwrap();
}

#[test]
fn missing_support_library_and_tool_failures_name_module_and_tool() {
    let Some((p, tc)) = toolchain("dtk", "library_errors") else {
        return;
    };
    let opts = BuildOptions {
        archs: vec!["gfx906".into()],
        cache: None,
        split_bytes: None,
    };
    let mut m = module("amdgcn");
    m.support_library = "kernels-ir/no-such-library.ll".into();
    let e = build_module(
        p,
        &tc,
        ModuleInput {
            name: "k.ptx",
            lowered: &m,
        },
        &opts,
    )
    .unwrap_err();
    assert_eq!(e.kind, ErrorKind::Build);
    assert!(e.to_string().starts_with("k.ptx: the device support library `kernels-ir/no-such-library.ll` is needed but was not found"), "{e}");
    // No library at all: wp_fma3 stays undefined and ld.lld --no-undefined refuses it.
    m.support_library = String::new();
    let e = build_module(
        p,
        &tc,
        ModuleInput {
            name: "k.ptx",
            lowered: &m,
        },
        &opts,
    )
    .unwrap_err();
    assert_eq!(e.kind, ErrorKind::Toolchain);
    assert!(
        e.message.starts_with("gfx906: `ld.lld` failed")
            && e.message.contains("undefined hidden symbol: wp_fma3"),
        "{e}"
    );
    // Broken IR: llvm-link's own diagnostic, naming the module.
    m.ir.push_str("\ndefine void @broken( {\n");
    let e = build_module(
        p,
        &tc,
        ModuleInput {
            name: "k.ptx",
            lowered: &m,
        },
        &opts,
    )
    .unwrap_err();
    assert!(
        e.to_string().starts_with("k.ptx: `llvm-link` failed") && e.message.contains("error:"),
        "{e}"
    );
    // An arch llc does not know.
    let m = module("amdgcn");
    let opts = BuildOptions {
        archs: vec!["gfx9999".into()],
        cache: None,
        split_bytes: None,
    };
    let e = build_module(
        p,
        &tc,
        ModuleInput {
            name: "k.ptx",
            lowered: &m,
        },
        &opts,
    )
    .unwrap_err();
    assert_eq!(e.kind, ErrorKind::Toolchain);
    assert!(
        e.message.starts_with("gfx9999: `opt` (")
            && e.message.contains("does not know this processor")
            && e.message
                .contains("'gfx9999' is not a recognized processor"),
        "{e}"
    );
    // musa has no device build.
    let musa = profile("musa").unwrap();
    let e = build_module(
        musa,
        &tc,
        ModuleInput {
            name: "k.ptx",
            lowered: &m,
        },
        &opts,
    )
    .unwrap_err();
    assert!(e.message.contains("mcc"), "{e}");
}

#[test]
fn nvptx_build_is_checked_and_accepted_by_ptxas() {
    let Some((p, tc)) = toolchain("cuda", "nvptx_build") else {
        return;
    };
    let m = module("nvptx");
    let opts = BuildOptions {
        archs: vec!["sm_80".into()],
        cache: None,
        split_bytes: None,
    };
    let built = build_module(
        p,
        &tc,
        ModuleInput {
            name: "kernels.ptx",
            lowered: &m,
        },
        &opts,
    )
    .unwrap();
    let text = String::from_utf8(built.objects[0].bytes.clone()).unwrap();
    assert!(
        text.contains(".target sm_80") && text.contains(".visible .entry _Z5mixeddc4PairPx("),
        "{text}"
    );
    assert!(
        text.contains(".param .align 4 .b8 _Z5mixeddc4PairPx_param_2[16]"),
        "{text}"
    );
    assert!(!text.contains("wp_unused"));
    eprintln!(
        "nvptx sm_80: {} bytes of PTX in {:.2} s",
        text.len(),
        built.objects[0].seconds
    );
    if let Some(ptxas) = common::require_tool("ptxas", "nvptx_build") {
        let t = tempfile::tempdir().unwrap();
        let f = t.path().join("k.ptx");
        std::fs::write(&f, &text).unwrap();
        let (c, _, err) = common::run(
            Command::new(ptxas)
                .args(["-arch=sm_80", "-o"])
                .arg(t.path().join("k.cubin"))
                .arg(&f),
        );
        assert_eq!(c, 0, "ptxas refused llc's PTX: {err}");
    }
    // The wrong layout again, now in the .param list.
    let mut bad = module("nvptx");
    bad.kernels[1].params[3].offset = 40;
    let e = build_module(
        p,
        &tc,
        ModuleInput {
            name: "bad.ptx",
            lowered: &bad,
        },
        &opts,
    )
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "bad.ptx: sm_80: kernel `_Z5mixeddc4PairPx`: .param list[3] .offset is 32, the PTX parameter layout has 40 (param `out`)"
    );
    // Without the library the PTX would call an undefined function: refused.
    let mut nolib = module("nvptx");
    nolib.support_library.clear();
    let e = build_module(
        p,
        &tc,
        ModuleInput {
            name: "k.ptx",
            lowered: &nolib,
        },
        &opts,
    )
    .unwrap_err();
    assert!(
        e.message.contains(".extern .func") && e.message.contains("wp_fma3"),
        "{e}"
    );
}

#[test]
fn second_build_comes_from_the_cache() {
    let Some((p, tc)) = toolchain("dtk", "cache") else {
        return;
    };
    let t = tempfile::tempdir().unwrap();
    let cache = Cache::new(t.path().join("cache"));
    let opts = BuildOptions {
        archs: vec!["gfx906".into(), "gfx908".into()],
        cache: Some(cache.clone()),
        split_bytes: None,
    };
    let m = module("amdgcn");
    let input = ModuleInput {
        name: "k.ptx",
        lowered: &m,
    };
    let first = build_module(p, &tc, input, &opts).unwrap();
    let second = build_module(p, &tc, input, &opts).unwrap();
    for (a, b) in first.objects.iter().zip(&second.objects) {
        assert!(
            !a.from_cache && b.from_cache,
            "{} {}",
            a.from_cache,
            b.from_cache
        );
        assert_eq!(a.bytes, b.bytes);
        assert_eq!(a.key, b.key);
        let f = cache.dir().join(&a.key[..2]).join(format!("{}.co", a.key));
        assert_eq!(std::fs::read(&f).unwrap(), a.bytes);
        eprintln!(
            "{}: built in {:.3} s, from cache in {:.3} s",
            a.arch, a.seconds, b.seconds
        );
    }
    // No temporary files are left in the cache.
    let leftovers: Vec<_> = walk(cache.dir())
        .into_iter()
        .filter(|p| !p.to_string_lossy().ends_with(".co"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
    // A changed IR is a different key: rebuilt.
    let mut m2 = module("amdgcn");
    m2.ir.push_str("\n; changed\n");
    let third = build_module(
        p,
        &tc,
        ModuleInput {
            name: "k.ptx",
            lowered: &m2,
        },
        &opts,
    )
    .unwrap();
    assert!(third.objects.iter().all(|o| !o.from_cache));
    assert_ne!(third.objects[0].key, first.objects[0].key);
    // A cached object is checked like a fresh one: a wrong layout fails on a hit too.
    let mut bad = module("amdgcn");
    bad.kernels[0].params[1].offset = 8;
    let e = build_module(
        p,
        &tc,
        ModuleInput {
            name: "k.ptx",
            lowered: &bad,
        },
        &opts,
    )
    .unwrap_err();
    assert!(e.message.contains(".args[1] .offset is 4"), "{e}");
}

fn walk(d: &Path) -> Vec<PathBuf> {
    let mut v = Vec::new();
    for e in std::fs::read_dir(d).unwrap().flatten() {
        if e.path().is_dir() {
            v.extend(walk(&e.path()));
        } else {
            v.push(e.path());
        }
    }
    v
}

#[test]
fn modules_build_in_parallel_in_input_order() {
    let Some((p, tc)) = toolchain("rocm", "parallel") else {
        return;
    };
    let ms: Vec<LoweredModule> = (0..4)
        .map(|i| {
            let mut m = module("amdgcn");
            m.ir.push_str(&format!("\n; variant {i}\n"));
            m
        })
        .collect();
    let names: Vec<String> = (0..4).map(|i| format!("m{i}.ptx")).collect();
    let inputs: Vec<ModuleInput<'_>> = ms
        .iter()
        .zip(&names)
        .map(|(m, n)| ModuleInput {
            name: n,
            lowered: m,
        })
        .collect();
    let t0 = std::time::Instant::now();
    let out = build_modules(
        p,
        &tc,
        &inputs,
        &BuildOptions {
            archs: vec!["gfx906".into()],
            cache: None,
            split_bytes: None,
        },
    );
    let wall = t0.elapsed().as_secs_f64();
    let sum: f64 = out
        .iter()
        .map(|r| r.as_ref().unwrap().objects[0].seconds)
        .sum();
    for (r, n) in out.iter().zip(&names) {
        assert_eq!(&r.as_ref().unwrap().name, n);
    }
    eprintln!("4 modules (gfx906): {wall:.2} s wall, {sum:.2} s summed over modules");
}

/// The cache key holds the part of the support library `llvm-link --internalize --only-needed`
/// takes from it: linking the lowered module with that part gives the same module as linking
/// it with the whole library, an edit to a function the module does not reach leaves the key
/// text alone and an edit to one it reaches changes it.
#[test]
fn library_key_text_is_what_llvm_link_takes() {
    let Some(link) = common::require_llvm_tool("llvm-link", "library_key_text") else {
        return;
    };
    let t = tempfile::tempdir().unwrap();
    let fams = common::root().join("fixtures/ptx/families");
    let (c, _, err) = common::run(
        Command::new(common::bin())
            .args(["ptx", "lower", "--target", "dtk", "-o"])
            .arg(t.path())
            .arg(fams.join("sregs.ptx"))
            .arg(fams.join("video.ptx")),
    );
    assert!(c == 0 || c == 4, "{err}");
    let lib = std::fs::read_to_string(common::root().join("kernels-ir/amdgcn.ll")).unwrap();
    for stem in ["sregs", "video"] {
        let m = t.path().join(format!("{stem}.ll"));
        let ir = std::fs::read_to_string(&m).unwrap();
        let key = wheelport::build::cache::library_key_text(&lib, &ir);
        let defs = |s: &str| s.lines().filter(|l| l.starts_with("define ")).count();
        assert!(
            defs(&key) > 0 && defs(&key) < defs(&lib),
            "{stem}: {} of {} library functions",
            defs(&key),
            defs(&lib)
        );
        let linked = |text: &str, name: &str| {
            let d = t.path().join(name);
            std::fs::create_dir_all(&d).unwrap();
            std::fs::write(d.join("support.ll"), text).unwrap();
            std::fs::copy(&m, d.join("module.ll")).unwrap();
            let (c, out, err) = common::run(
                Command::new(&link)
                    .current_dir(&d)
                    .args(["module.ll", "--internalize", "--only-needed"])
                    .args(["support.ll", "-S", "-o", "-"]),
            );
            assert_eq!(c, 0, "{stem}: {err}");
            out
        };
        assert_eq!(
            linked(&lib, &format!("{stem}-whole")),
            linked(&key, &format!("{stem}-part")),
            "{stem}: llvm-link takes more of the library than the key holds"
        );
        // A function the module does not reach, and one it does, each edited.
        let mut unreached = None;
        let mut reached = None;
        for l in lib.lines().filter(|l| l.starts_with("define ")) {
            let slot = if key.contains(l) {
                &mut reached
            } else {
                &mut unreached
            };
            slot.get_or_insert(l);
        }
        for (line, same) in [(unreached.unwrap(), true), (reached.unwrap(), false)] {
            let edited = lib.replacen(line, &format!("{line}\n  ; edited"), 1);
            let key2 = wheelport::build::cache::library_key_text(&edited, &ir);
            assert_eq!(key2 == key, same, "{stem}: {line}");
        }
    }
}
