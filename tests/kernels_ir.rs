//! The committed device support libraries (`kernels-ir/amdgcn.ll`, `kernels-ir/nvptx.ll`, and
//! the gfx10+ overlay `kernels-ir/amdgcn-gfx10plus.ll`) are exactly what their generator
//! writes (`kernels-ir/gen.py` and the modules it imports, which read the family data layouts
//! from `targets/families/*.toml`): an edit of one without the other fails here.

mod common;

use common::*;
use std::process::Command;

#[test]
fn support_libraries_match_their_generator() {
    let Some(py) = require_tool("python3", "kernels_ir") else {
        return;
    };
    let d = tempfile::tempdir().unwrap();
    let (code, o, e) = run(Command::new(py)
        .arg(root().join("kernels-ir/gen.py"))
        .arg(d.path()));
    assert_eq!(code, 0, "{o}{e}");
    for lib in ["amdgcn.ll", "nvptx.ll", "amdgcn-gfx10plus.ll"] {
        let want = std::fs::read_to_string(root().join("kernels-ir").join(lib)).unwrap();
        let got = std::fs::read_to_string(d.path().join(lib)).unwrap();
        if want != got {
            let line = want
                .lines()
                .zip(got.lines())
                .position(|(a, b)| a != b)
                .unwrap_or_else(|| want.lines().count().min(got.lines().count()));
            panic!(
                "kernels-ir/{lib} differs from what kernels-ir/gen.py writes, first at line {}: run `python3 kernels-ir/gen.py`",
                line + 1
            );
        }
    }
}

/// The device printf FIFO's size is one number in three places: the support library's
/// declaration of `@__wp_printf_fifo` (kernels-ir/printf.py), the definition the lowering
/// writes (`wheelport::lower::PRINTF_FIFO_BYTES`) and the shim's formatter header
/// (`shims/hip/wp_printf.h`, which registers and reads it).
#[test]
fn printf_fifo_size_agrees() {
    let want = wheelport::lower::PRINTF_FIFO_BYTES;
    let lib = std::fs::read_to_string(root().join("kernels-ir/amdgcn.ll")).unwrap();
    let decl = lib
        .lines()
        .find(|l| l.starts_with("@__wp_printf_fifo = external"))
        .expect("the support library declares the FIFO");
    assert!(
        decl.contains(&format!("[{want} x i8]")),
        "{decl} (want {want} bytes)"
    );
    let header = wheelport::shim::HIP_PRINTF_H;
    let define = header
        .lines()
        .find_map(|l| l.strip_prefix("#define WP_PRINTF_FIFO_BYTES "))
        .expect("wp_printf.h defines WP_PRINTF_FIFO_BYTES");
    assert_eq!(define.trim_end_matches('u').parse::<u64>().unwrap(), want);
}
