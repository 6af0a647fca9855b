//! A large amdgcn module is split with `llvm-split` (LLVM 19's AMDGPU splitter) into
//! partitions that are optimised and compiled in parallel and linked by `ld.lld` into one
//! code object. The split build must give the same kernels with the same resources as the
//! module built whole: per kernel, the HSA metadata (`llvm-readelf --notes`, AMDGPU code
//! object V5 metadata: `.args`, `.kernarg_segment_size`, `.group_segment_fixed_size` (LDS),
//! `.private_segment_fixed_size` (scratch), `.sgpr_count`, `.vgpr_count`, spill counts) of
//! the split build equals that of the whole build.
//!
//! Inputs: the 50-kernel GPU ground-truth fixture `fixtures/gpu/twin_fixtures.so` (split
//! forced with a small `split_bytes`; for gfx906, and for gfx1100 the modules with f16
//! conversions, whose whole and split builds link the gfx10+ library overlay), and the
//! largest xformers module (18 MB of IR, 20 kernels, split by the default threshold) when the
//! corpus is present.

mod lower_common;

use lower_common::{kernel_metadata, ptx_of_object};
use std::path::Path;
use wheelport::build::{build_module, BuildOptions, BuiltModule, ModuleInput};
use wheelport::lower::{lower_module, LoweredModule};
use wheelport::target::Profile;
use wheelport::toolchain::Toolchain;

fn dtk() -> Option<(&'static Profile, Toolchain)> {
    let (p, tc) = lower_common::common::require_toolchain("dtk", "build_split")?;
    if tc.tool("llvm-split").is_some() {
        return Some((p, tc));
    }
    lower_common::common::missing("build_split", "LLVM 19's llvm-split not found")
}

fn build(
    p: &Profile,
    tc: &Toolchain,
    name: &str,
    low: &LoweredModule,
    split_bytes: usize,
    arch: &str,
) -> BuiltModule {
    build_module(
        p,
        tc,
        ModuleInput { name, lowered: low },
        &BuildOptions {
            archs: vec![arch.into()],
            cache: None,
            split_bytes: Some(split_bytes),
        },
    )
    .unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// The whole and the split build of `low` for `arch`, checked to agree; returned as (whole,
/// split) code objects.
fn same_as_whole(
    p: &Profile,
    tc: &Toolchain,
    name: &str,
    low: &LoweredModule,
    bytes: usize,
    arch: &str,
) -> (Vec<u8>, Vec<u8>) {
    let mut whole = build(p, tc, name, low, usize::MAX, arch);
    let mut split = build(p, tc, name, low, bytes, arch);
    assert_eq!(whole.objects[0].partitions, 1);
    assert!(
        split.objects[0].partitions >= 2,
        "{name}: not split ({} bytes of IR, split_bytes {bytes})",
        low.ir.len()
    );
    let dir = tempfile::tempdir().unwrap();
    let a = kernel_metadata(&whole.objects[0].bytes, dir.path());
    let b = kernel_metadata(&split.objects[0].bytes, dir.path());
    let lowered = low
        .kernels
        .iter()
        .filter(|k| k.outcome == wheelport::lower::KernelOutcome::Lowered)
        .count();
    assert_eq!(a.len(), lowered, "{name}: kernels in the whole build");
    assert_eq!(
        a.keys().collect::<Vec<_>>(),
        b.keys().collect::<Vec<_>>(),
        "{name}: kernel sets differ"
    );
    for (k, want) in &a {
        assert_eq!(
            &b[k], want,
            "{name}: kernel {k}: split build metadata differs from the whole build"
        );
    }
    eprintln!(
        "{name} ({arch}): {} kernels, {} partitions: metadata equal to the whole build",
        a.len(),
        split.objects[0].partitions
    );
    (whole.objects.remove(0).bytes, split.objects.remove(0).bytes)
}

/// The mnemonics of a code object's `.text`, decoded by the ISA interpreter's decoder.
fn mnemonics(co: &[u8]) -> Vec<&'static str> {
    let co = amdgpu_exec::elf::CodeObject::parse(co).unwrap();
    let text = &co.image[co.text.0 as usize..co.text.1 as usize];
    amdgpu_exec::decode::Decoder::new(co.arch)
        .decode_all(text, co.text.0)
        .unwrap()
        .into_iter()
        .map(|(_, i)| i.row.name)
        .collect()
}

#[test]
fn twin_fixture_split_in_four_matches_the_whole_build() {
    let Some((p, tc)) = dtk() else { return };
    let so = lower_common::common::root().join("fixtures/gpu/twin_fixtures.so");
    let data = std::fs::read(&so).unwrap();
    let mut done = 0;
    for (tag, text) in ptx_of_object(&data, "twin_fixtures.so") {
        let parsed = wheelport::ptx::parse(&text, &tag);
        let low = lower_module(&parsed.module, p);
        let kernels = low.kernels.len();
        if kernels < 4 {
            continue;
        }
        same_as_whole(p, &tc, &tag, &low, low.ir.len() / 4 + 1, "gfx906");
        done += 1;
    }
    assert!(done >= 1, "no module of twin_fixtures.so has 4 kernels");
}

/// gfx1100 links the gfx10+ overlay (`kernels-ir/amdgcn-gfx10plus.ll`) in whole and split
/// builds alike: the f32 <-> f16 conversions of the twin fixture's f16 kernels compile to no
/// `v_fma_mixlo/mixhi_f16` (the library's plain fptrunc gives them; docs/lowering.md).
#[test]
fn gfx1100_links_the_overlay_whole_and_split() {
    let Some((p, tc)) = dtk() else { return };
    let so = lower_common::common::root().join("fixtures/gpu/twin_fixtures.so");
    let data = std::fs::read(&so).unwrap();
    let mut done = 0;
    for (tag, text) in ptx_of_object(&data, "twin_fixtures.so") {
        if !text.contains("cvt.rn.f16.f32") {
            continue;
        }
        let parsed = wheelport::ptx::parse(&text, &tag);
        let low = lower_module(&parsed.module, p);
        if low.kernels.len() < 4 || !low.ir.contains("@__wp_cvt_rn_f16_f32") {
            continue;
        }
        let (whole, split) = same_as_whole(p, &tc, &tag, &low, low.ir.len() / 4 + 1, "gfx1100");
        for (how, co) in [("whole", &whole), ("split", &split)] {
            let mix: Vec<_> = mnemonics(co)
                .into_iter()
                .filter(|m| m.starts_with("v_fma_mixlo") || m.starts_with("v_fma_mixhi"))
                .collect();
            assert!(mix.is_empty(), "{tag} ({how}): {mix:?}");
        }
        done += 1;
    }
    assert!(
        done >= 1,
        "no module of twin_fixtures.so converts f32 to f16"
    );
}

#[test]
fn xformers_largest_module_splits_by_default_and_matches_the_whole_build() {
    let Some(wheel) = lower_common::common::require_corpus("xformers-", "split") else {
        return;
    };
    let Some((p, tc)) = dtk() else { return };
    let dir = tempfile::tempdir().unwrap();
    let mut largest: Option<(String, String)> = None;
    for (name, path) in lower_common::common::extract_shared_objects(&wheel, dir.path()) {
        let data = std::fs::read(&path).unwrap();
        for (tag, text) in ptx_of_object(&data, &name) {
            if largest.as_ref().is_none_or(|(_, t)| text.len() > t.len()) {
                largest = Some((tag, text));
            }
        }
    }
    let (tag, text) = largest.expect("xformers has PTX");
    let parsed = wheelport::ptx::parse(&text, &tag);
    let low = lower_module(&parsed.module, p);
    assert!(
        low.ir.len() > wheelport::build::SPLIT_BYTES,
        "{tag}: {} bytes of IR",
        low.ir.len()
    );
    same_as_whole(p, &tc, &tag, &low, wheelport::build::SPLIT_BYTES, "gfx906");
}

/// An interrupted split build resumes at the partitions it finished: each partition's object
/// is cached under the module's key and its index until the whole code object is cached.
/// `llc` is wrapped by a script that logs its input and fails on partition 1 while a flag
/// file exists; with one worker thread the partitions build in order, so the failed build
/// leaves partition 0 in the cache, and the next build runs `llc` for partitions 1-3 only and
/// writes the same code object as a build without a cache. Then only the code object is left
/// in the cache.
#[test]
fn interrupted_split_build_resumes_at_its_finished_partitions() {
    let Some((p, tc)) = dtk() else { return };
    let so = lower_common::common::root().join("fixtures/gpu/twin_fixtures.so");
    let data = std::fs::read(&so).unwrap();
    let (tag, low) = ptx_of_object(&data, "twin_fixtures.so")
        .into_iter()
        .map(|(tag, text)| {
            let low = lower_module(&wheelport::ptx::parse(&text, &tag).module, p);
            (tag, low)
        })
        .find(|(_, low)| low.kernels.len() >= 4)
        .expect("a module with 4 kernels");
    let t = tempfile::tempdir().unwrap();
    let real = tc.tool("llc").unwrap().path.clone();
    let (log, flag) = (t.path().join("llc.log"), t.path().join("fail"));
    let wrapper = t.path().join("llc");
    std::fs::write(
        &wrapper,
        format!(
            "#!/bin/sh\nfor a; do case \"$a\" in *.opt.bc) echo \"$a\" >> '{log}'; \
             case \"$a\" in *part1.opt.bc) [ -e '{flag}' ] && exit 1;; esac;; esac; done\n\
             exec '{real}' \"$@\"\n",
            log = log.display(),
            flag = flag.display(),
            real = real.display()
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).unwrap();
    let mut tc = tc.clone();
    tc.tools.iter_mut().find(|t| t.name == "llc").unwrap().path = wrapper;
    let cache = wheelport::build::Cache::new(t.path().join("cache"));
    let opts = |cache: Option<wheelport::build::Cache>| BuildOptions {
        archs: vec!["gfx906".into()],
        cache,
        split_bytes: Some(low.ir.len() / 4 + 1),
    };
    let input = ModuleInput {
        name: &tag,
        lowered: &low,
    };
    let one = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    let entries = || -> Vec<String> {
        let mut v: Vec<String> = walkdir(cache.dir())
            .into_iter()
            .map(|f| f.rsplit('.').next().unwrap().to_string())
            .collect();
        v.sort();
        v
    };
    let ran = || -> Vec<String> {
        let text = std::fs::read_to_string(&log).unwrap_or_default();
        let mut v: Vec<String> = text
            .lines()
            .map(|l| l.rsplit('/').next().unwrap().to_string())
            .collect();
        v.sort();
        v
    };
    std::fs::write(&flag, "").unwrap();
    let e = one
        .install(|| build_module(p, &tc, input, &opts(Some(cache.clone()))))
        .unwrap_err();
    assert!(e.message.contains("llc"), "{e}");
    assert_eq!(ran(), ["gfx906.part0.opt.bc", "gfx906.part1.opt.bc"]);
    assert_eq!(entries(), ["o"], "partition 0's object, no code object");
    std::fs::remove_file(&flag).unwrap();
    std::fs::remove_file(&log).unwrap();
    let resumed = one
        .install(|| build_module(p, &tc, input, &opts(Some(cache.clone()))))
        .unwrap();
    assert_eq!(
        ran(),
        [
            "gfx906.part1.opt.bc",
            "gfx906.part2.opt.bc",
            "gfx906.part3.opt.bc"
        ]
    );
    assert_eq!(resumed.objects[0].partitions, 4);
    assert_eq!(entries(), ["co"], "the code object only");
    let fresh = build_module(p, &tc, input, &opts(None)).unwrap();
    assert_eq!(
        resumed.objects[0].bytes, fresh.objects[0].bytes,
        "the resumed build's code object is not the uninterrupted build's"
    );
}

/// Every file under `d`, recursively.
fn walkdir(d: &Path) -> Vec<String> {
    let mut v = Vec::new();
    for e in std::fs::read_dir(d).into_iter().flatten().flatten() {
        if e.path().is_dir() {
            v.extend(walkdir(&e.path()));
        } else {
            v.push(e.path().display().to_string());
        }
    }
    v
}
