//! The HIP shim library, built with gcc and no target SDK, executed: its launch path reaches
//! the runtime's `hipLaunchKernel` with the kernel handle, grid, block, arguments, shared
//! memory and stream unchanged (a recording stub runtime), and every shim it defines is a
//! shim/noop target name of the relink tables.

mod common;

use common::*;
use std::process::Command;
use wheelport::relink::{load_builtin, Kind, Target};

const RECORDING_RUNTIME: &str = r#"
#include <stddef.h>
typedef struct { unsigned int x, y, z; } dim3;
static const void *k; static dim3 g, b; static void **a; static size_t s; static void *st; static int spt;
int hipLaunchKernel(const void *f, dim3 grid, dim3 block, void **args, size_t shmem, void *stream) {
    k = f; g = grid; b = block; a = args; s = shmem; st = stream; spt = 0; return 0;
}
int hipLaunchKernel_spt(const void *f, dim3 grid, dim3 block, void **args, size_t shmem, void *stream) {
    int r = hipLaunchKernel(f, grid, block, args, shmem, stream); spt = 1; return r;
}
unsigned long last(int i) {
    switch (i) {
    case 0: return (unsigned long)k; case 1: return g.x * 10000 + g.y * 100 + g.z;
    case 2: return b.x * 10000 + b.y * 100 + b.z; case 3: return (unsigned long)a;
    case 4: return s; case 5: return (unsigned long)st; default: return spt;
    }
}
"#;

const DRIVER: &str = r#"
import ctypes, sys
class dim3(ctypes.Structure):
    _fields_ = [("x", ctypes.c_uint), ("y", ctypes.c_uint), ("z", ctypes.c_uint)]
rt = ctypes.CDLL("libamdhip64.so.6", mode=ctypes.RTLD_GLOBAL)
shim = ctypes.CDLL(sys.argv[1])
rt.last.restype = ctypes.c_ulong
host_stub = ctypes.cast(rt.last, ctypes.c_void_p).value   # any function address
h = ctypes.c_void_p()
assert shim.__wpcuGetKernel(ctypes.byref(h), ctypes.c_void_p(host_stub)) == 0
args = (ctypes.c_void_p * 2)()
shim.__wpcuRegisterFatBinaryEnd(None)
for fn, spt in ((shim.__wpcuLaunchKernel, 0), (shim.__wpcuLaunchKernel_ptsz, 1)):
    assert fn(h, dim3(2, 3, 4), dim3(32, 1, 1), args, ctypes.c_size_t(128), ctypes.c_void_p(0x77)) == 0
    got = [rt.last(i) for i in range(7)]
    want = [host_stub, 20304, 320101, ctypes.addressof(args), 128, 0x77, spt]
    assert got == want, (got, want)
print("ok")
"#;

#[test]
fn launch_path_reaches_the_runtime_unchanged() {
    let Some(gcc) = require_tool("gcc", "shim") else {
        return;
    };
    let d = tempfile::tempdir().unwrap();
    let dir = d.path();
    let shim = wheelport::shim::build_hip_shim(&gcc, "libamdhip64.so.6", dir).unwrap();
    let (_, dynamic, _) = run(Command::new("readelf").arg("-d").arg(&shim));
    assert!(
        dynamic.contains("Shared library: [libamdhip64.so.6]"),
        "{dynamic}"
    );
    assert!(
        dynamic.contains("Library soname: [libwheelport_shim.so]"),
        "{dynamic}"
    );
    let rt = stub_runtime(dir, "libamdhip64.so.6", RECORDING_RUNTIME);
    let (c, out, e) = python_bind_now(DRIVER, &[&shim], &rt);
    assert_eq!((c, out.trim()), (0, "ok"), "{e}");
}

#[test]
fn shim_symbols_are_table_targets() {
    let defined = wheelport::shim::hip_shim_symbols();
    assert_eq!(
        defined,
        vec![
            "__wpcuRegisterFatBinaryEnd",
            "__wpcuGetKernel",
            "__wpcuLaunchKernel",
            "__wpcuLaunchKernel_ptsz"
        ]
    );
    for t in [Target::Dtk, Target::Rocm] {
        let table = load_builtin(t).unwrap();
        for s in &defined {
            let row = table
                .symbols()
                .iter()
                .find(|r| r.target_name.as_deref() == Some(*s))
                .unwrap_or_else(|| panic!("{t}: no row targets {s}"));
            assert!(matches!(row.kind, Kind::Shim | Kind::Noop), "{t}: {s}");
        }
    }
}
