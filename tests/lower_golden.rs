//! The lowering's output is pinned byte for byte, for the dtk, rocm and cuda profiles:
//!
//! * every PTX fixture (`fixtures/ptx/{families,nvcc}/*.ptx`) and the PTX embedded in the
//!   nvcc-built fixtures (`fixtures/cuda/*.so`): as text, `tests/golden/ir/<profile>/<input>.ll`
//!   (a header with the kernel results, then the IR); a mismatch prints the first differing
//!   lines;
//! * every PTX module of the corpus wheels (xformers 0.0.35, vllm_flash_attn 2.6.2,
//!   autoawq_kernels 0.0.9, about 100 MB of IR): as SHA-256 of the IR and the kernel results,
//!   `tests/golden/lower-ir.sha256`; `WHEELPORT_GOLDEN_DUMP=<dir>` writes their IR files, to diff
//!   a mismatch against a dump made at another commit.
//!
//! The GPU results (`tests/gpu_results.rs`) are tied to the exact output, so an IR change must
//! be deliberate: `WHEELPORT_BLESS=1 cargo test --release --test lower_golden` rewrites both
//! goldens (and the commit says why).
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
const GOLDEN_IR: &str = "tests/golden/ir";
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

/// The golden text of one lowering: a header naming it with the kernel results, then the IR.
fn golden_text(profile: &str, tag: &str, lm: &wheelport::lower::LoweredModule) -> String {
    let mut s = format!("; wheelport lowering golden: profile {profile}, input {tag}\n");
    for k in &lm.kernels {
        let _ = writeln!(s, "; kernel {k:?}");
    }
    s.push_str(&lm.ir);
    s
}

/// The first lines where `want` and `got` differ, with line numbers, for the failure message.
fn first_differences(want: &str, got: &str) -> String {
    let (w, g): (Vec<&str>, Vec<&str>) = (want.lines().collect(), got.lines().collect());
    let start = w
        .iter()
        .zip(&g)
        .position(|(a, b)| a != b)
        .unwrap_or(w.len().min(g.len()));
    let mut out = format!("  first difference at line {}:\n", start + 1);
    for i in start..(start + 12).min(w.len().max(g.len())) {
        match (w.get(i), g.get(i)) {
            (Some(a), Some(b)) if a == b => {
                let _ = writeln!(out, "   {:>6}  {a}", i + 1);
            }
            (a, b) => {
                if let Some(a) = a {
                    let _ = writeln!(out, "  -{:>6}  {a}", i + 1);
                }
                if let Some(b) = b {
                    let _ = writeln!(out, "  +{:>6}  {b}", i + 1);
                }
            }
        }
    }
    let _ = writeln!(out, "  ({} lines golden, {} now)", w.len(), g.len());
    out
}

#[test]
fn fixture_ir_equals_the_golden_text() {
    let bless = std::env::var_os("WHEELPORT_BLESS").is_some();
    let dir = root().join(GOLDEN_IR);
    let mut errs = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    let inputs = fixture_inputs();
    for (tag, text) in &inputs {
        let parsed = wheelport::ptx::parse(text, tag);
        for p in PROFILES {
            let prof = wheelport::target::profile(p).unwrap();
            let lm = wheelport::lower::lower_module(&parsed.module, prof);
            let got = golden_text(p, tag, &lm);
            let rel = format!("{p}/{}.ll", tag.replace('/', "__"));
            seen.insert(rel.clone());
            let path = dir.join(&rel);
            if bless {
                std::fs::create_dir_all(path.parent().unwrap()).unwrap();
                std::fs::write(&path, &got).unwrap();
                continue;
            }
            match std::fs::read_to_string(&path) {
                Ok(want) if want == got => {}
                Ok(want) => errs.push(format!(
                    "IR changed: {GOLDEN_IR}/{rel}\n{}",
                    first_differences(&want, &got)
                )),
                Err(_) => errs.push(format!("no golden {GOLDEN_IR}/{rel}")),
            }
        }
    }
    // No golden file without an input.
    for p in PROFILES {
        if let Ok(rd) = std::fs::read_dir(dir.join(p)) {
            for e in rd.flatten() {
                let rel = format!("{p}/{}", e.file_name().to_string_lossy());
                if !seen.contains(&rel) {
                    if bless {
                        std::fs::remove_file(e.path()).unwrap();
                    } else {
                        errs.push(format!("golden {GOLDEN_IR}/{rel} has no input"));
                    }
                }
            }
        }
    }
    assert!(
        errs.is_empty(),
        "{}\n(a deliberate change: WHEELPORT_BLESS=1 cargo test --release --test lower_golden)",
        errs.join("\n")
    );
    assert!(seen.len() >= 90, "{} fixture lowerings", seen.len());
}

#[test]
fn corpus_ir_is_byte_identical_to_the_golden_hashes() {
    let mut inputs = Vec::new();
    let mut present: Vec<&str> = Vec::new();
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
            "# SHA-256 of lower_module's IR + kernel results, per profile and corpus PTX module.\n\
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
