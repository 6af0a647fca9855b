//! The lowering's output is pinned byte for byte: the LLVM IR text (and the per-kernel
//! outcomes, parameter layouts and notes) of every PTX fixture (`fixtures/ptx/**/*.ptx`), of
//! the PTX embedded in the nvcc-built fixtures (`fixtures/cuda/*.so`) and of every PTX module
//! of the corpus wheels (xformers 0.0.35, vllm_flash_attn 2.6.2, autoawq_kernels 0.0.9) is
//! hashed (SHA-256) for the dtk, rocm and cuda profiles and compared with
//! `tests/golden/lower-ir.sha256`.
//!
//! The golden hashes were produced by the emitter as it was before the speed work (branch
//! `lowerperf`, from commit 65e1b03): the speed work must not change a byte of the IR, because
//! the GPU-twin results (`tests/twin_lowered.rs`, `tests/gpu_results.rs`) are tied to the exact
//! output. A deliberate change of the IR re-blesses the file: `WHEELPORT_BLESS=1 cargo test
//! --release --test lower_golden` (and the commit says why).
//!
//! `WHEELPORT_GOLDEN_DUMP=<dir>` also writes the IR files there (to diff a mismatch against a
//! dump made at the reference commit).
//!
//! Corpus wheels that are absent are skipped loudly (a failure under `CI=1`); their lines in
//! the golden file are then not compared.

#[path = "lower_common.rs"]
mod lower_common;

use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::PathBuf;

use lower_common::*;
use sha2::{Digest, Sha256};

const GOLDEN: &str = "tests/golden/lower-ir.sha256";
const PROFILES: [&str; 3] = ["dtk", "rocm", "cuda"];
const WHEELS: [&str; 3] = [
    "xformers-0.0.35",
    "vllm_flash_attn-2.6.2",
    "autoawq_kernels-0.0.9",
];

/// (input tag, PTX text) of the fixtures; the corpus ones per wheel prefix.
fn fixture_inputs() -> Vec<(String, String)> {
    let mut out = Vec::new();
    let r = root();
    for sub in ["fixtures/ptx/families", "fixtures/ptx/nvcc"] {
        let mut files: Vec<PathBuf> = std::fs::read_dir(r.join(sub))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "ptx"))
            .collect();
        files.sort();
        for p in files {
            let text = std::fs::read_to_string(&p).unwrap();
            let tag = format!("{sub}/{}", p.file_name().unwrap().to_string_lossy());
            out.push((tag, text));
        }
    }
    for so in fixture_objects() {
        let data = std::fs::read(&so).unwrap();
        let name = format!(
            "fixtures/cuda/{}",
            so.file_name().unwrap().to_string_lossy()
        );
        out.extend(ptx_of_object(&data, &name));
    }
    out
}

fn wheel_inputs(wheel: &std::path::Path, prefix: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut r = wheelport::wheel::WheelReader::open(wheel).unwrap();
    for name in r.member_names() {
        if !wheelport::wheel::is_shared_object_name(&name) {
            continue;
        }
        let data = r.read_member(&name).unwrap();
        for (tag, text) in ptx_of_object(&data, &name) {
            out.push((format!("{prefix}/{tag}"), text));
        }
    }
    out
}

/// SHA-256 of the IR and of the kernel results of one lowering.
fn digest(lm: &wheelport::lower::LoweredModule) -> String {
    let mut h = Sha256::new();
    h.update(lm.ir.as_bytes());
    h.update(format!("{:?}", lm.kernels).as_bytes());
    h.finalize().iter().fold(String::new(), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}

#[test]
fn lowered_ir_is_byte_identical_to_the_golden_hashes() {
    let mut inputs = fixture_inputs();
    let mut present: Vec<&str> = vec!["fixtures"];
    for w in WHEELS {
        if let Some(wheel) = require_corpus(w, "lower_golden") {
            inputs.extend(wheel_inputs(&wheel, w));
            present.push(w);
        }
    }
    let mut got: BTreeMap<String, String> = BTreeMap::new();
    for (tag, text) in &inputs {
        let parsed = wheelport::ptx::parse(text, tag);
        for p in PROFILES {
            let prof = wheelport::target::profile(p).unwrap();
            let lm = wheelport::lower::lower_module(&parsed.module, prof);
            if let Some(d) = std::env::var_os("WHEELPORT_GOLDEN_DUMP") {
                // For diffing a mismatch: the IR files themselves.
                let f = format!("{p}.{}.ll", tag.replace('/', "__"));
                std::fs::create_dir_all(&d).unwrap();
                std::fs::write(std::path::Path::new(&d).join(f), &lm.ir).unwrap();
            }
            got.insert(format!("{p} {tag}"), digest(&lm));
        }
    }
    let path = root().join(GOLDEN);
    if std::env::var_os("WHEELPORT_BLESS").is_some() {
        let mut s = String::from(
            "# SHA-256 of lower_module's IR + kernel results, per profile and PTX input.\n\
             # Written by `WHEELPORT_BLESS=1 cargo test --release --test lower_golden`.\n",
        );
        for (k, v) in &got {
            let _ = writeln!(s, "{v} {k}");
        }
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, s).unwrap();
        eprintln!("blessed {} lines into {GOLDEN}", got.len());
        return;
    }
    let golden_text = std::fs::read_to_string(&path).unwrap();
    let mut want: BTreeMap<String, String> = BTreeMap::new();
    for l in golden_text.lines().filter(|l| !l.starts_with('#')) {
        let (h, k) = l.split_once(' ').unwrap();
        want.insert(k.to_string(), h.to_string());
    }
    let mut errs = Vec::new();
    for (k, h) in &want {
        let tag = k.split_once(' ').unwrap().1;
        if !present.iter().any(|p| tag.starts_with(p)) {
            continue;
        }
        match got.get(k) {
            Some(g) if g == h => {}
            Some(_) => errs.push(format!("IR changed: {k}")),
            None => errs.push(format!("input missing: {k}")),
        }
    }
    for k in got.keys() {
        if !want.contains_key(k) {
            errs.push(format!("not in the golden file: {k}"));
        }
    }
    eprintln!(
        "{} lowerings compared ({} inputs x {} profiles)",
        got.len(),
        inputs.len(),
        PROFILES.len()
    );
    assert!(errs.is_empty(), "{}", errs.join("\n"));
}
