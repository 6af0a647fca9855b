//! A real `-rdc` wheel from PyPI: bitsandbytes 0.50.2 (pinned in
//! `tools/pypi-pins.txt`). Each of its seven `libbitsandbytes_cuda1xx.so` objects carries an
//! `__nv_relfatbin` section (six relocatable per-TU containers, PTX plus cubins) and a
//! `.nv_fatbin` with the one device-linked module that `__cudaRegisterFatBinary` registers
//! (SASS only).
//!
//! * `wheelport inspect --json --kernels`: per object, the kernel names equal the ENTRY
//!   symbols `cuobjdump -symbols` lists (cuobjdump 13.5 without `-all` reads only the first
//!   `.nv_fatbin`, the registered module) and every kernel is in the `.nv_fatbin`
//!   container. cuobjdump stops with "Invalid ELF" on the sm_70 cubin of
//!   `libbitsandbytes_cuda121.so` (sections whose link field is not a symbol table); for
//!   that object the names of the cubins it listed before stopping are compared, which is
//!   exact because every cubin of a registered module defines the same kernels: checked
//!   here on every cubin of the objects cuobjdump reads completely.
//! * `wheelport convert --target dtk --sass skip --json R` (lifting the device-linked SASS is
//!   not exercised here): the report lists exactly those kernels, none
//!   translated, each reason naming the relocatable copies, and no kernel of an
//!   `__nv_relfatbin` container; it finishes in seconds (nothing of the relocatable PTX is
//!   built: LLVM 19 is required, so the build would have run).

mod common;

use common::{bin, require_corpus, require_llvm_tool, require_tool, run};
use std::collections::{BTreeMap, BTreeSet};
use std::process::Command;
use std::time::{Duration, Instant};

const PREFIX: &str = "bitsandbytes-0.50.2-";

/// `cuobjdump -symbols` of one object: its exit code, stderr, and the ENTRY names per
/// listed cubin (in order).
fn cuobjdump_entries(
    cuobjdump: &std::path::Path,
    so: &std::path::Path,
) -> (i32, String, Vec<(String, BTreeSet<String>)>) {
    let (code, out, err) = run(Command::new(cuobjdump).arg("-symbols").arg(so));
    let mut cubins: Vec<(String, BTreeSet<String>)> = Vec::new();
    for l in out.lines() {
        if let Some(a) = l.strip_prefix("arch = ") {
            cubins.push((a.trim().to_string(), BTreeSet::new()));
        } else if l.contains(" ENTRY ") {
            let name = l.split_whitespace().last().unwrap().to_string();
            cubins
                .last_mut()
                .expect("ENTRY before an arch line")
                .1
                .insert(name);
        }
    }
    (code, err, cubins)
}

#[test]
fn rdc_wheel_kernels_are_cuobjdumps_and_no_relocatable_copy_is_built() {
    const T: &str = "rdc_wheel_kernels_are_cuobjdumps_and_no_relocatable_copy_is_built";
    let Some(wheel) = require_corpus(PREFIX, T) else {
        return;
    };
    let Some(cuobjdump) = require_tool("cuobjdump", T) else {
        return;
    };
    if require_llvm_tool("llc", T).is_none() {
        return;
    }
    let d = tempfile::tempdir().unwrap();
    let objects = common::extract_shared_objects(&wheel, &d.path().join("so"));
    let mut inspected: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut partial = Vec::new();
    for (member, so) in &objects {
        let has = |name: &str| {
            let (c, out, e) = run(Command::new("readelf").arg("-SW").arg(so));
            assert_eq!(c, 0, "{e}");
            out.contains(name)
        };
        if !member.contains("_cuda") {
            assert!(
                !has("__nv_relfatbin") && !has(".nv_fatbin"),
                "{member}: no CUDA device code"
            );
            continue;
        }
        assert!(
            has("__nv_relfatbin") && has(".nv_fatbin"),
            "{member}: an -rdc build"
        );
        let (c, out, e) = run(Command::new(bin())
            .args(["inspect", "--json", "--kernels"])
            .arg(so));
        assert_eq!(c, 0, "{member}: {e}");
        let r: serde_json::Value = serde_json::from_str(&out).unwrap();
        let o = &r["inputs"][0]["shared_objects"][0];
        let containers = o["fatbin"]["containers"].as_array().unwrap();
        let sections: Vec<&str> = containers
            .iter()
            .map(|c| c["section"].as_str().unwrap())
            .collect();
        assert!(
            sections.contains(&"__nv_relfatbin"),
            "{member}: {sections:?}"
        );
        let mut got = BTreeSet::new();
        for k in o["kernels"].as_array().unwrap() {
            let name = k["name"].as_str().unwrap().to_string();
            let ci = k["container"].as_u64().unwrap() as usize;
            assert_eq!(
                sections[ci], ".nv_fatbin",
                "{member}: {name} counted from {}",
                sections[ci]
            );
            assert!(
                got.insert(name.clone()),
                "{member}: {name} twice in one module"
            );
        }
        let (code, err, cubins) = cuobjdump_entries(&cuobjdump, so);
        assert!(
            !cubins.is_empty(),
            "{member}: cuobjdump listed no cubin: {err}"
        );
        let want: BTreeSet<String> = cubins.iter().flat_map(|(_, s)| s.iter().cloned()).collect();
        if code == 0 {
            for (arch, s) in &cubins {
                assert_eq!(
                    s, &want,
                    "{member}: the {arch} cubin defines the module's kernels"
                );
            }
        } else {
            assert!(
                err.contains("Invalid ELF"),
                "{member}: cuobjdump failed: {err}"
            );
            partial.push(member.clone());
        }
        assert_eq!(
            got, want,
            "{member}: inspect's kernels are cuobjdump's ENTRY symbols"
        );
        inspected.insert(member.clone(), got);
    }
    assert_eq!(
        inspected.len(),
        7,
        "seven CUDA objects: {:?}",
        inspected.keys()
    );
    assert!(
        partial.len() < inspected.len(),
        "cuobjdump read some object completely"
    );
    eprintln!("cuobjdump stopped early on {partial:?}");

    let rj = d.path().join("r.json");
    let t0 = Instant::now();
    let (code, o, e) = run(Command::new(bin())
        .arg(&wheel)
        .args(["--target", "dtk", "--sass", "skip", "-q", "-o"])
        .arg(d.path().join("out"))
        .arg("--json")
        .arg(&rj));
    let took = t0.elapsed();
    assert_eq!(code, 5, "nothing translatable: exit 5\n{o}{e}");
    assert!(took < Duration::from_secs(120), "convert took {took:?}");
    let rep: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&rj).unwrap()).unwrap();
    let mut total = 0;
    for s in rep["inputs"][0]["shared_objects"].as_array().unwrap() {
        let path = s["path"].as_str().unwrap();
        let ks = s["kernels"].as_array().unwrap();
        let names: BTreeSet<String> = ks
            .iter()
            .map(|k| {
                assert_eq!(k["translated"], false, "{path}: {k}");
                let why = k["reason"].as_str().unwrap();
                assert!(why.contains("relocatable -rdc copies"), "{path}: {why}");
                k["name"].as_str().unwrap().to_string()
            })
            .collect();
        let want = inspected.get(path).cloned().unwrap_or_default();
        assert_eq!(ks.len(), want.len(), "{path}: one report entry per kernel");
        assert_eq!(
            names, want,
            "{path}: the report's kernels are the registered module's"
        );
        total += want.len();
    }
    assert_eq!(rep["totals"]["kernels"], total);
    assert_eq!(rep["totals"]["translated"], 0);
}
