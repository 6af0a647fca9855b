//! `.const` variables written by the host: `cudaMemcpyToSymbol` (and `hipMemcpyToSymbol`,
//! which the shim calls) writes a `__constant__` variable after the module is loaded, so a
//! kernel must read the variable's memory, not the initializer the module was built with
//! (PTX ISA 9.x §5.1.3: the constant state space is initialised by the host). Checked by
//! executing the gfx906 code of `fixtures/ptx/forms/const_symbols.ptx` in the ISA interpreter
//! (`tools/amdgpu-exec`) before and after writing the variables at their symbols, and in the
//! cuda twin's PTX (its loads are `ld.const`, not folded constants).

mod common;

use amdgpu_exec::exec::{Launch, Limits, Machine, IMAGE_BASE};
use amdgpu_exec::runner::load_objects;
use common::{root, run};
use std::process::Command;

const T: &str = "amdgpu_exec_const";

fn run_k(m: &mut Machine) -> u32 {
    let k = m.co.kernel("k").unwrap().clone();
    let po = m.mem.alloc(4, "out");
    let mut ka = vec![0u8; k.kernarg_segment_size as usize];
    let o = k.args[0].offset as usize;
    ka[o..o + 8].copy_from_slice(&po.to_le_bytes());
    let launch = Launch {
        grid: [1, 1, 1],
        block: [64, 1, 1],
        dyn_lds: 0,
    };
    m.dispatch("k", &ka, &launch, Limits::default()).unwrap();
    m.mem.read_u32(po).unwrap()
}

#[test]
fn host_written_const_variables_are_read_by_the_kernel() {
    let Some((_, _)) = common::require_toolchain("dtk", T) else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("wp-{T}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let src = root().join("fixtures/ptx/forms/const_symbols.ptx");
    for target in ["dtk", "cuda"] {
        let (code, out, err) = run(Command::new(common::bin())
            .args(["ptx", "lower", "--target", target, "--emit", "obj", "-o"])
            .arg(dir.join(target))
            .arg(&src));
        assert_eq!(code, 0, "{target}: {out}{err}");
    }
    let twin = std::fs::read_to_string(dir.join("cuda/const_symbols.ptx")).unwrap();
    assert!(
        twin.contains("ld.const.u32") && !twin.contains("mov.b32"),
        "the cuda twin must load the .const variables: {twin}"
    );

    let co = load_objects(&dir.join("dtk/const_symbols-gfx906.co"), "gfx906")
        .unwrap()
        .into_iter()
        .next()
        .unwrap();
    let sym = |n: &str| {
        co.symbols
            .iter()
            .find(|s| s.0 == n)
            .map(|s| IMAGE_BASE + s.1)
            .unwrap_or_else(|| panic!("symbol {n} not in the code object"))
    };
    let (ci, cz) = (sym("ci"), sym("cz"));
    let mut m = Machine::new(co).unwrap();
    // As loaded: the initializers (ci = 3, cz zero).
    assert_eq!(run_k(&mut m), 3);
    // After the host writes the variables, the kernel reads the new values.
    m.mem.write(ci, &10u32.to_le_bytes()).unwrap();
    m.mem.write(cz + 4, &7u32.to_le_bytes()).unwrap();
    assert_eq!(run_k(&mut m), 17);
}
