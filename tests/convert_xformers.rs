//! The first acceptance case: xformers 0.0.35 converted for DTK.
//!
//! It needs the device build (lowering + LLVM 19, `wheelport::convert::device::default_builder`).
//! Without the tools, this test checks the honest answer instead: with `--allow-partial`
//! every kernel with PTX is reported with the missing tools as its reason, exit 6. With them
//! (always in CI), the command runs as is, and a wrong result fails the test (it
//! never turns into a skip): it exits 5 with exactly 9 kernels not translated, because their
//! launchers ask for more dynamic shared memory than a gfx906 work-group's 64 KiB of LDS: the 8
//! CUTLASS SparseGemm kernels (139,264 bytes) and the sm_90a GEMM whose PTX is an arch-guard
//! stub (206,336 bytes); with `--allow-partial` the other 41 are translated, exit 6; the wheel
//! `xformers-0.0.35+dtk-*.whl` installs with pip, uv and installer; its `_C.so` has a
//! `.hip_fatbin` whose gfx906 code objects define every translated kernel; the report's counts
//! agree with `inspect`.

mod common;
mod convert_support;

use common::*;
use convert_support::*;
use object::{Object, ObjectSection, ObjectSymbol};
use std::collections::HashSet;

#[test]
fn xformers_to_dtk() {
    let Some(whl) = require_corpus("xformers-0.0.35", "xformers_to_dtk") else {
        return;
    };
    let inspected = wheelport::inspect::inspect_paths(
        std::slice::from_ref(&whl),
        &wheelport::inspect::Options {
            kernels: true,
            ..Default::default()
        },
    )
    .unwrap();
    let v = inspected.verdict;
    // inspect's facts about this wheel (README): 49 kernels with PTX, one arch-guard stub.
    assert_eq!((v.kernels_with_ptx, v.kernels_arch_guard_stub), (49, 1));
    let total = v.kernels_with_ptx
        + v.kernels_sass_only
        + v.kernels_arch_guard_stub
        + v.kernels_invalid_ptx;

    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("out");
    let json = d.path().join("r.json");
    let profile = wheelport::target::profile("dtk").unwrap();
    if let Err(why) = wheelport::device::Pipeline::discover(profile).available(profile) {
        return missing("xformers_to_dtk", &why).unwrap_or(());
    }
    // The command as is (default policy: every kernel must be translated or nothing
    // is written).
    let args = vec![
        whl.as_os_str(),
        "--target".as_ref(),
        "dtk".as_ref(),
        "-o".as_ref(),
        out.as_os_str(),
        "--json".as_ref(),
        json.as_os_str(),
    ];
    let (code, stdout, err) = convert(&args);
    // Refused: 9 kernels cannot launch on gfx906; nothing is written.
    assert_eq!(code, 5, "{stdout}\n{err}");
    assert!(files_in(&out).is_empty());
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let refused: Vec<String> = r["inputs"][0]["shared_objects"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|s| s["kernels"].as_array().unwrap().iter())
        .filter(|k| k["translated"] == false)
        .map(|k| {
            let why = k["reason"].as_str().unwrap();
            let bytes = if k["found"] == "arch_guard_stub" {
                206_336
            } else {
                assert!(k["name"].as_str().unwrap().contains("10SparseGemm"), "{k}");
                139_264
            };
            assert!(
                why.contains(&format!("asks for {bytes} bytes of dynamic shared memory"))
                    && why.contains("65536 bytes of LDS"),
                "{why}"
            );
            k["name"].as_str().unwrap().to_string()
        })
        .collect();
    assert_eq!(refused.len(), 9, "{refused:?}");
    // The rest, written.
    let mut args = args;
    args.push("--allow-partial".as_ref());
    let (code, stdout, err) = convert(&args);
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(r["totals"]["kernels"], total, "report and inspect disagree");
    let kernels: Vec<&serde_json::Value> = r["inputs"][0]["shared_objects"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|s| s["kernels"].as_array().unwrap().iter())
        .collect();
    assert_eq!(kernels.len(), total);
    // The arch-guard stub (real code only in sm_90a SASS) is one of the refused: its launch
    // asks for more shared memory than gfx906 has, before the stub could run.
    let stub: Vec<_> = kernels
        .iter()
        .filter(|k| k["found"] == "arch_guard_stub")
        .collect();
    assert_eq!(stub.len(), 1);
    assert_eq!(stub[0]["translated"], false, "{}", stub[0]);
    assert_eq!(r["totals"]["stubs"], 0);

    // The device build is wired in: every other kernel is translated, exit 6 under
    // --allow-partial.
    let translated: HashSet<String> = kernels
        .iter()
        .filter(|k| k["translated"] == true)
        .map(|k| k["name"].as_str().unwrap().to_string())
        .collect();
    let not: Vec<String> = kernels
        .iter()
        .filter(|k| k["translated"] == false)
        .map(|k| k["name"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(not, refused, "{stdout}");
    assert_eq!(translated.len(), total - 9);
    assert_eq!(r["totals"]["translated"], total - 9);
    assert_eq!(code, 6, "{stdout}\n{err}");
    let files = files_in(&out);
    assert_eq!(files.len(), 1);
    let name = files[0].file_name().unwrap().to_str().unwrap().to_string();
    assert!(name.starts_with("xformers-0.0.35+dtk-"), "{name}");

    // _C.so: every translated kernel is defined by a gfx906 code object of .hip_fatbin.
    let mut w = wheelport::wheel::WheelReader::open(&files[0]).unwrap();
    let so = w.read_member("xformers/_C.so").unwrap();
    let elf = object::File::parse(&*so).unwrap();
    let sec = elf
        .section_by_name(".hip_fatbin")
        .expect("converted _C.so has a .hip_fatbin section");
    let data = sec.data().unwrap();
    let mut defined = HashSet::new();
    let mut at = 0usize;
    while at + 24 < data.len() {
        if !data[at..].starts_with(b"__CLANG_OFFLOAD_BUNDLE__") {
            at += 4096;
            continue;
        }
        let entries = wheelport::bundle::read(&data[at..], "xformers/_C.so").unwrap();
        let mut end = at;
        for e in &entries {
            end = end.max(at + (e.offset + e.size) as usize);
            if !e.id.ends_with("gfx906") || e.size == 0 {
                continue;
            }
            let co = &data[at + e.offset as usize..at + (e.offset + e.size) as usize];
            let co = object::File::parse(co).expect("a gfx906 code object is ELF");
            for s in co.symbols() {
                if let Ok(n) = s.name() {
                    if let Some(k) = n.strip_suffix(".kd") {
                        defined.insert(k.to_string());
                    }
                }
            }
        }
        at = end.max(at + 4096).div_ceil(4096) * 4096;
    }
    let missing: Vec<_> = translated.difference(&defined).collect();
    assert!(
        missing.is_empty(),
        "translated kernels without a gfx906 kernel descriptor: {missing:?}"
    );
    let Some(site) = install_three_ways(&files[0], &d.path().join("install")) else {
        return;
    };
    let Some(needed) = readelf_needed(&site.join("xformers/_C.so")) else {
        return;
    };
    assert!(
        !needed.iter().any(|n| n.starts_with("libcudart")),
        "{needed:?}"
    );
}
