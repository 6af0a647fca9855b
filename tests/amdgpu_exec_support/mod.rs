//! Set-up shared by the tests that execute a lowered PTX module's gfx906 code in the ISA
//! interpreter (`tools/amdgpu-exec`): lowering a PTX file for several targets, loading the
//! code object, one-dimensional dispatches of kernels whose parameters are `u64` pointers.
#![allow(dead_code)] // each test binary uses a part

use super::common::{bin, run};
use amdgpu_exec::exec::{Launch, Limits, Machine};
use amdgpu_exec::runner::load_objects;
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::process::Command;

/// A fresh scratch directory for `test`.
pub fn scratch(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("wp-{test}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `wheelport ptx lower --target T --emit obj` of `src` into `dir/T` for each of `targets`
/// (the code object `dir/dtk/<stem>-gfx906.co`, the twin's PTX `dir/cuda/<stem>.ptx`).
pub fn lower_to(src: &Path, targets: &[&str], dir: &Path) {
    for target in targets {
        let (code, out, err) = run(Command::new(bin())
            .args(["ptx", "lower", "--target", target, "--emit", "obj", "-o"])
            .arg(dir.join(target))
            .arg(src));
        assert_eq!(code, 0, "{target}: {out}{err}");
    }
}

/// The interpreter's machine for the first code object of the gfx906 file `co`.
pub fn machine(co: &Path) -> Machine {
    let co = load_objects(co, "gfx906")
        .unwrap()
        .into_iter()
        .next()
        .unwrap();
    Machine::new(co).unwrap()
}

/// Run kernel `name` once (grid 1, `block` threads) with `args` (u64 pointers, in parameter
/// order).
pub fn dispatch(m: &mut Machine, name: &str, block: u32, args: &[u64]) {
    let k =
        m.co.kernel(name)
            .unwrap_or_else(|| panic!("no kernel {name}"))
            .clone();
    let mut ka = vec![0u8; k.kernarg_segment_size as usize];
    for (i, a) in args.iter().enumerate() {
        let o = k.args[i].offset as usize;
        ka[o..o + 8].copy_from_slice(&a.to_le_bytes());
    }
    let launch = Launch {
        grid: [1, 1, 1],
        block: [block, 1, 1],
        dyn_lds: 0,
    };
    m.dispatch(name, &ka, &launch, Limits::default())
        .unwrap_or_else(|e| panic!("{name}: {e}"));
}

/// Run kernel `name` whose one parameter points to `bytes` zeroed bytes; returns them.
pub fn run_out(m: &mut Machine, name: &str, block: u32, bytes: usize) -> Vec<u8> {
    let po = m.mem.alloc(bytes, "out");
    dispatch(m, name, block, &[po]);
    (0..bytes as u64 / 4)
        .flat_map(|i| m.mem.read_u32(po + 4 * i).unwrap().to_le_bytes())
        .collect()
}

/// The SHA-256 of a file, in hex.
pub fn sha256_file(p: &Path) -> String {
    format!("{:x}", Sha256::digest(std::fs::read(p).unwrap()))
}
