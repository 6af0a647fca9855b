//! SHA-256 of every lowering the speed work must keep byte-identical: the LLVM IR text and the
//! kernel results (`{:?}` of [`wheelport::lower::LoweredModule::kernels`]) of each PTX input,
//! for the dtk, rocm and cuda profiles. One line per (profile, input): `<sha256> <profile>
//! <input>`, then a last line `total <sha256 of all lines>`.
//!
//! Inputs: the `.ptx` files of the directory in `$LOWER_HASHES_PTX` (when set),
//! `fixtures/ptx/**/*.ptx`, the PTX embedded in `fixtures/cuda/*.so` and
//! `fixtures/gpu/*.so` (wheelport's own fatbin reader), and the PTX of every corpus wheel in
//! `$WHEELPORT_CORPUS` (default `../shared/corpus`).
//!
//! Run: `cargo run --release --example lower_hashes > before.txt`, change the emitter, run it
//! again and `diff` the files. `LOWER_HASHES_DUMP=<dir>` also writes the IR files (to diff a
//! mismatch).

use std::fmt::Write;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

const PROFILES: [&str; 3] = ["dtk", "rocm", "cuda"];

fn hex(d: &[u8]) -> String {
    d.iter().fold(String::new(), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}

fn files(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = match std::fs::read_dir(dir) {
        Ok(rd) => rd
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|e| e == ext))
            .collect(),
        Err(_) => Vec::new(),
    };
    v.sort();
    v
}

/// (tag, PTX text) of every PTX entry of an ELF object's fatbins.
fn ptx_of_object(data: &[u8], name: &str) -> Vec<(String, String)> {
    let so = wheelport::elf::scan(data, name).expect("elf scan");
    let mut out = Vec::new();
    for (_, cs) in wheelport::fatbin::parse_object_sections(data, &so, name).expect("fatbin") {
        for e in cs.iter().flat_map(|c| c.entries.iter()) {
            if e.kind() == wheelport::fatbin::EntryKind::Ptx {
                let text = String::from_utf8(e.ptx_bytes().expect("ptx").to_vec()).expect("utf8");
                out.push((format!("{name}#{}", out.len()), text));
            }
        }
    }
    out
}

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut inputs: Vec<(String, String)> = Vec::new();
    let extra_ptx = match std::env::var("LOWER_HASHES_PTX") {
        Ok(dir) => {
            let v = files(Path::new(&dir), "ptx");
            assert!(!v.is_empty(), "no PTX in {dir}");
            v
        }
        Err(_) => Vec::new(),
    };
    for p in extra_ptx {
        let tag = format!("ptx/{}", p.file_name().unwrap().to_string_lossy());
        inputs.push((tag, std::fs::read_to_string(&p).unwrap()));
    }
    for sub in ["fixtures/ptx/families", "fixtures/ptx/nvcc"] {
        for p in files(&root.join(sub), "ptx") {
            let tag = format!("{sub}/{}", p.file_name().unwrap().to_string_lossy());
            inputs.push((tag, std::fs::read_to_string(&p).unwrap()));
        }
    }
    for sub in ["fixtures/cuda", "fixtures/gpu"] {
        for p in files(&root.join(sub), "so") {
            let name = format!("{sub}/{}", p.file_name().unwrap().to_string_lossy());
            inputs.extend(ptx_of_object(&std::fs::read(&p).unwrap(), &name));
        }
    }
    let corpus = std::env::var("WHEELPORT_CORPUS").unwrap_or_else(|_| "../shared/corpus".into());
    for w in files(Path::new(&corpus), "whl") {
        let mut r = wheelport::wheel::WheelReader::open(&w).expect("wheel");
        let wn = w.file_name().unwrap().to_string_lossy().into_owned();
        for name in r.member_names() {
            if !wheelport::wheel::is_shared_object_name(&name) {
                continue;
            }
            let data = r.read_member(&name).expect("member");
            for (tag, text) in ptx_of_object(&data, &name) {
                inputs.push((format!("{wn}/{tag}"), text));
            }
        }
    }
    let dump = std::env::var_os("LOWER_HASHES_DUMP").map(PathBuf::from);
    let mut all = Sha256::new();
    let (mut kernels, mut lowered) = (0usize, 0usize);
    for (tag, text) in &inputs {
        let parsed = wheelport::ptx::parse(text, tag);
        for p in PROFILES {
            let prof = wheelport::target::profile(p).unwrap();
            let lm = wheelport::lower::lower_module(&parsed.module, prof);
            kernels += lm.kernels.len();
            lowered += lm
                .kernels
                .iter()
                .filter(|k| k.outcome == wheelport::lower::KernelOutcome::Lowered)
                .count();
            if let Some(d) = &dump {
                std::fs::create_dir_all(d).unwrap();
                let f = format!("{p}.{}.ll", tag.replace(['/', '#'], "__"));
                std::fs::write(d.join(f), &lm.ir).unwrap();
            }
            let mut h = Sha256::new();
            h.update(lm.ir.as_bytes());
            h.update(format!("{:?}", lm.kernels).as_bytes());
            let line = format!("{} {p} {tag}\n", hex(&h.finalize()));
            all.update(line.as_bytes());
            print!("{line}");
        }
    }
    println!("total {}", hex(&all.finalize()));
    eprintln!(
        "{} inputs x {} profiles; {kernels} kernel results, {lowered} lowered",
        inputs.len(),
        PROFILES.len()
    );
}
