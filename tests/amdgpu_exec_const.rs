//! `.const` variables written by the host: `cudaMemcpyToSymbol` (and `hipMemcpyToSymbol`,
//! which the shim calls) writes a `__constant__` variable after the module is loaded, so a
//! kernel must read the variable's memory, not the initializer the module was built with
//! (PTX ISA 9.x §5.1.3: the constant state space is initialised by the host). Checked by
//! executing the gfx906 code of `fixtures/ptx/forms/const_symbols.ptx` in the ISA interpreter
//! (`tools/amdgpu-exec`) before and after writing the variables at their symbols, and in the
//! cuda twin's PTX (its loads are `ld.const`, not folded constants).

mod amdgpu_exec_support;
mod common;

use amdgpu_exec::exec::{Machine, IMAGE_BASE};
use amdgpu_exec::runner::load_objects;
use amdgpu_exec_support::{lower_to, run_out, scratch};
use common::root;

const T: &str = "amdgpu_exec_const";

fn run_k(m: &mut Machine) -> u32 {
    u32::from_le_bytes(run_out(m, "k", 64, 4).try_into().unwrap())
}

#[test]
fn host_written_const_variables_are_read_by_the_kernel() {
    let Some((_, _)) = common::require_toolchain("dtk", T) else {
        return;
    };
    let dir = scratch(T);
    let src = root().join("fixtures/ptx/forms/const_symbols.ptx");
    lower_to(&src, &["dtk", "cuda"], &dir);
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
