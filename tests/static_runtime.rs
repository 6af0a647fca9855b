//! Objects with a statically linked CUDA runtime (`nvcc -cudart static`), converted for dtk (and
//! the nvcc fixture for rocm too) by rebinding the runtime's entry points (`wheelport::elf::static_runtime`,
//! `wheelport::rewrite::Rebind`), checked with real tools as oracles:
//!
//! * which entry points the object's own code calls: `objdump -d` of the original (every
//!   `call`/`jmp` and RIP-relative operand of a function outside the runtime that names a
//!   `cuda*`/`__cuda*` function) — the report's rebound list must be exactly that set;
//! * that each is rebound: `objdump -d` of the output shows the entry point's first
//!   instruction as `jmp *...(%rip)` through the GOT slot of its target (objdump names the
//!   slot's dynamic relocation symbol), and the target is the relink table's row;
//! * that the output runs: an nvcc-built fixture (`cudaMalloc`, `cudaMemcpy`, a `<<<>>>`
//!   launch, `cudaDeviceSynchronize`, `cudaFree`, `cudaGetDeviceCount`) loaded with
//!   `LD_BIND_NOW=1` against a recording HIP runtime: every call arrives in order with the
//!   fixture's arguments (the launch's grid, block and kernel arguments), the kernel's
//!   registration comes through the HIPF wrapper; and against Debian 12's real HIP runtime
//!   (`libamdhip64.so.5`, ROCm 5.2.3) on this machine without an AMD GPU: it loads,
//!   `cudaGetDeviceCount` answers `cudaErrorNoDevice` (100), the other calls a CUDA error,
//!   and the process ends normally (the static runtime's own constructors and destructors
//!   run and never reach NVIDIA's driver);
//! * CuPy 14.2's `cub` module (CUDA 13 static runtime, 383 kernels): converts with exit 0,
//!   all kernels translated, its 18 referenced entry points rebound, and loads with
//!   `LD_BIND_NOW=1` against stubs of the target runtime and against Debian's HIP runtime.

mod common;

use common::*;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

const FIXTURE_CU: &str = r#"
#include <cuda_runtime.h>
__global__ void scale(float *x, float a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= a;
}
extern "C" int st_run(float *host, int n, float a) {
    float *d = 0;
    cudaError_t e = cudaMalloc(&d, n * sizeof(float));
    if (e) return (int)e;
    e = cudaMemcpy(d, host, n * sizeof(float), cudaMemcpyHostToDevice);
    if (e) return (int)e;
    scale<<<(n + 127) / 128, 128>>>(d, a, n);
    e = cudaGetLastError();
    if (e) return (int)e;
    e = cudaDeviceSynchronize();
    if (e) return (int)e;
    e = cudaMemcpy(host, d, n * sizeof(float), cudaMemcpyDeviceToHost);
    if (e) return (int)e;
    return (int)cudaFree(d);
}
extern "C" int st_count(void) {
    int n = -1;
    cudaError_t e = cudaGetDeviceCount(&n);
    return e ? (int)e : 1000 + n;
}
"#;

/// The recording HIP runtime: device memory is host memory, and the launch applies the
/// kernel's meaning (`x[i] *= a`) to it; every call is logged on stderr.
const RECORDING_HIP: &str = r#"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
typedef struct { unsigned x, y, z; } dim3;
static void *module[1]; static const void *registered;
void **__hipRegisterFatBinary(const void *w) {
    fprintf(stderr, "__hipRegisterFatBinary magic=%x version=%u\n", ((const unsigned *)w)[0], ((const unsigned *)w)[1]);
    return module;
}
void __hipUnregisterFatBinary(void **h) { fprintf(stderr, "__hipUnregisterFatBinary\n"); }
void __hipRegisterFunction(void **h, const void *hf, char *df, const char *dn, unsigned t, void *tid, void *bid, dim3 *bd, dim3 *gd, int *ws) {
    registered = hf; fprintf(stderr, "__hipRegisterFunction %s\n", dn);
}
void __hipRegisterVar(void **h, char *hv, char *da, const char *dn, int ext, size_t size, int c, int g) {}
int hipMalloc(void **p, size_t n) { *p = malloc(n); fprintf(stderr, "hipMalloc %zu\n", n); return 0; }
int hipFree(void *p) { free(p); fprintf(stderr, "hipFree\n"); return 0; }
int hipMemcpy(void *d, const void *s, size_t n, int k) { memcpy(d, s, n); fprintf(stderr, "hipMemcpy %zu %d\n", n, k); return 0; }
static dim3 cg, cb; static size_t csh; static void *cst;
int __hipPushCallConfiguration(dim3 g, dim3 b, size_t sh, void *st) { cg = g; cb = b; csh = sh; cst = st; return 0; }
int __hipPopCallConfiguration(dim3 *g, dim3 *b, size_t *sh, void **st) { *g = cg; *b = cb; *sh = csh; *st = cst; return 0; }
int hipLaunchKernel(const void *f, dim3 g, dim3 b, void **args, size_t sh, void *st) {
    float *x = *(float **)args[0]; float a = *(float *)args[1]; int n = *(int *)args[2];
    fprintf(stderr, "hipLaunchKernel registered=%d grid=%u,%u,%u block=%u,%u,%u shmem=%zu a=%g n=%d\n",
            f == registered, g.x, g.y, g.z, b.x, b.y, b.z, sh, a, n);
    for (int i = 0; i < n; i++) x[i] *= a;
    return 0;
}
int hipGetLastError(void) { fprintf(stderr, "hipGetLastError\n"); return 0; }
int hipPeekAtLastError(void) { return 0; }
int hipDeviceSynchronize(void) { fprintf(stderr, "hipDeviceSynchronize\n"); return 0; }
int hipGetDeviceCount(int *n) { *n = 3; fprintf(stderr, "hipGetDeviceCount\n"); return 0; }
"#;

const RUN: &str = r#"
import ctypes, sys
lib = ctypes.CDLL(sys.argv[1])
a = (ctypes.c_float * 300)(*range(300))
r = lib.st_run(a, 300, ctypes.c_float(2.5))
print(r, lib.st_count(), a[0], a[1], a[299])
"#;

/// The `cuda*`/`__cuda*` functions that code outside the runtime refers to, from
/// `objdump -d`: function headers `<name>:`, and in every function that is not the runtime's
/// (`cuda*`, `__cuda*`, `libcudart_static_*`), each operand annotation `<name>` or
/// `<name+0x..>` naming a runtime export.
fn referenced_by_objdump(so: &Path) -> BTreeSet<String> {
    let (c, out, e) = run(Command::new("objdump")
        .args(["-d", "--no-show-raw-insn"])
        .arg(so));
    assert_eq!(c, 0, "{e}");
    let runtime = |n: &str| {
        n.starts_with("cuda") || n.starts_with("__cuda") || n.starts_with("libcudart_static_")
    };
    let mut inside_runtime = true;
    let mut out_set = BTreeSet::new();
    for l in out.lines() {
        if let Some(h) = l.strip_suffix(">:") {
            if let Some(name) = h.split('<').nth(1) {
                inside_runtime = runtime(name);
            }
            continue;
        }
        if inside_runtime {
            continue;
        }
        for part in l.split('<').skip(1) {
            let name = part.split(['>', '+', '@']).next().unwrap_or_default();
            if (name.starts_with("cuda") || name.starts_with("__cuda")) && !part.contains("@plt") {
                out_set.insert(name.to_string());
            }
        }
    }
    out_set
}

/// For each rebound entry point of the converted object: its first instruction as
/// `objdump -d` prints it.
fn first_instructions(so: &Path, names: &[String]) -> Vec<(String, String)> {
    let (c, out, e) = run(Command::new("objdump")
        .args(["-d", "--no-show-raw-insn"])
        .arg(so));
    assert_eq!(c, 0, "{e}");
    let mut v = Vec::new();
    let mut lines = out.lines();
    while let Some(l) = lines.next() {
        let Some(name) = l
            .strip_suffix(">:")
            .and_then(|h| h.split('<').nth(1))
            .filter(|n| names.iter().any(|x| x == n))
        else {
            continue;
        };
        let mut first = lines.next().unwrap_or_default().to_string();
        if first.contains("endbr64") {
            first = lines.next().unwrap_or_default().to_string();
        }
        v.push((name.to_string(), first));
    }
    v
}

/// The report's rebound pairs of the first object, checked against the objdump oracles and
/// the relink table.
fn check_rebinds(
    target: &str,
    original: &Path,
    converted: &Path,
    report: &serde_json::Value,
) -> usize {
    let s = &report["inputs"][0]["shared_objects"][0];
    let rebound: Vec<(String, String)> =
        serde_json::from_value(s["host"]["rebound"].clone()).unwrap();
    let names: BTreeSet<String> = rebound.iter().map(|(n, _)| n.clone()).collect();
    assert_eq!(names, referenced_by_objdump(original));
    let table = wheelport::relink::load_builtin(target).unwrap();
    let shim = wheelport::shim::hip_shim_symbols();
    for (name, target) in &rebound {
        let row = table.symbol(name).unwrap();
        assert_eq!(row.target_name.as_deref(), Some(target.as_str()), "{name}");
        if row.kind != wheelport::relink::Kind::Rename {
            assert!(shim.contains(&target.as_str()), "{name} -> {target}");
        }
    }
    let v: Vec<String> = rebound.iter().map(|(n, _)| n.clone()).collect();
    let firsts = first_instructions(converted, &v);
    assert_eq!(firsts.len(), rebound.len(), "{firsts:?}");
    for (name, insn) in firsts {
        let target = &rebound.iter().find(|(n, _)| *n == name).unwrap().1;
        assert!(
            insn.contains("jmp    *")
                && insn.contains("(%rip)")
                && insn.contains(&format!("<{target}")),
            "{name}: {insn}"
        );
    }
    rebound.len()
}

/// A stub of the target runtime in `dir` (named `soname`): the C source `defined`, and every
/// other `hip*`/`__hip*` import of `objects` as a function returning 0.
fn stub_imports(dir: &Path, soname: &str, objects: &[&Path], defined: &str) -> PathBuf {
    let mut names = BTreeSet::new();
    for o in objects {
        let (_, out, _) = run(Command::new("nm").args(["-D", "--undefined-only"]).arg(o));
        for l in out.lines() {
            let n = l.split_whitespace().last().unwrap_or_default();
            if n.starts_with("hip") || n.starts_with("__hip") {
                names.insert(n.to_string());
            }
        }
    }
    let mut src = defined.to_string();
    for n in names {
        if !defined.contains(&format!("{n}(")) {
            src.push_str(&format!("long {n}(void) {{ return 0; }}\n"));
        }
    }
    stub_runtime(dir, soname, &src)
}

/// Debian 12's HIP runtime under the dtk runtime's soname (the loader finds a DT_NEEDED
/// entry by file name), or `None` when `libamdhip64-5` is not installed (CI installs it).
fn debian_hip(dir: &Path, soname: &str) -> Option<PathBuf> {
    let hip = Path::new("/usr/lib/x86_64-linux-gnu/libamdhip64.so.5");
    if !hip.exists() {
        assert!(
            std::env::var_os("CI").is_none(),
            "Debian's libamdhip64-5 is missing"
        );
        eprintln!("SKIP: Debian's libamdhip64.so.5 is not installed");
        return None;
    }
    let d = dir.join("debian-hip");
    std::fs::create_dir_all(&d).unwrap();
    std::os::unix::fs::symlink(hip, d.join(soname)).unwrap();
    Some(d)
}

/// The target runtime's soname (the relink table's row for `libcudart.so.12`).
fn runtime_soname(target: &str) -> String {
    let table = wheelport::relink::load_builtin(target).unwrap();
    table
        .soname("libcudart.so.12")
        .and_then(|r| r.target_soname.clone())
        .unwrap()
}

#[test]
fn nvcc_static_runtime_is_rebound_and_runs_on_hip() {
    const T: &str = "nvcc_static_runtime_is_rebound_and_runs_on_hip";
    let Some(nvcc) = require_tool("nvcc", T) else {
        return;
    };
    let Some(_) = require_toolchain("dtk", T) else {
        return;
    };
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("st.cu"), FIXTURE_CU).unwrap();
    let (c, _, e) = run(Command::new(&nvcc)
        .args([
            "-shared",
            "-Xcompiler",
            "-fPIC",
            "-cudart",
            "static",
            "-gencode",
            "arch=compute_80,code=compute_80",
            "-o",
            "libst.so",
            "st.cu",
        ])
        .current_dir(d.path()));
    assert_eq!(c, 0, "nvcc: {e}");
    let so = d.path().join("libst.so");
    for target in ["dtk", "rocm"] {
        let dir = d.path().join(target);
        let out = dir.join("out");
        let rj = dir.join("r.json");
        let (code, o, e) = run(Command::new(bin())
            .arg(&so)
            .args(["--target", target, "-o"])
            .arg(&out)
            .arg("--json")
            .arg(&rj)
            .env("XDG_CACHE_HOME", d.path().join("cache")));
        assert_eq!(code, 0, "{target}: {o}{e}");
        let report: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&rj).unwrap()).unwrap();
        let converted = out.join("libst.so");
        let n = check_rebinds(target, &so, &converted, &report);
        // The fixture's calls and the registration and launch entry points nvcc's host code
        // calls.
        assert!(n >= 13, "{target}: {n}");
        let soname = runtime_soname(target);
        // The recording runtime: the calls, in order, with the fixture's values.
        let shim = out.join(wheelport::shim::SHIM_SONAME);
        let rt = stub_imports(&dir, &soname, &[&converted, &shim], RECORDING_HIP);
        let (c, stdout, log) = python_bind_now(RUN, &[&converted], &rt);
        assert_eq!(c, 0, "{target}: {stdout}{log}");
        assert_eq!(stdout.trim(), "0 1003 0.0 2.5 747.5", "{target}: {log}");
        let calls: Vec<&str> = log.lines().collect();
        assert_eq!(
            calls,
            [
                "__hipRegisterFatBinary magic=48495046 version=1",
                "__hipRegisterFunction _Z5scalePffi",
                "hipMalloc 1200",
                "hipMemcpy 1200 1",
                "hipLaunchKernel registered=1 grid=3,1,1 block=128,1,1 shmem=0 a=2.5 n=300",
                "hipGetLastError",
                "hipDeviceSynchronize",
                "hipMemcpy 1200 2",
                "hipFree",
                "hipGetDeviceCount",
                "__hipUnregisterFatBinary",
            ],
            "{target}"
        );
        // Debian 12's real HIP runtime without an AMD GPU, under the target's soname.
        if let Some(deb) = debian_hip(&dir, &soname) {
            let (c, stdout, log) = python_bind_now(RUN, &[&converted], &deb);
            assert_eq!(c, 0, "{target}: {stdout}{log}");
            let f: Vec<&str> = stdout.split_whitespace().collect();
            assert_ne!(
                f[0], "0",
                "st_run cannot succeed without a device: {stdout}"
            );
            assert_eq!(
                f[1], "100",
                "cudaGetDeviceCount: cudaErrorNoDevice: {stdout}"
            );
            assert_eq!(f[3], "1.0", "the host array is untouched: {stdout}");
        }
    }
}

#[test]
fn cupy_cub_converts_with_its_static_runtime_rebound() {
    const T: &str = "cupy_cub_converts_with_its_static_runtime_rebound";
    let Some(whl) = require_corpus("cupy_cuda13x-14.2.0", T) else {
        return;
    };
    let Some(_) = require_toolchain("dtk", T) else {
        return;
    };
    let d = tempfile::tempdir().unwrap();
    let so = extract_member(
        &whl,
        "cupy/cuda/cub.cpython-312-x86_64-linux-gnu.so",
        d.path(),
    );
    let out = d.path().join("out");
    let rj = d.path().join("r.json");
    let (code, o, e) = run(Command::new(bin())
        .arg(&so)
        .args(["--target", "dtk", "-q", "-o"])
        .arg(&out)
        .arg("--json")
        .arg(&rj)
        .env("XDG_CACHE_HOME", d.path().join("cache")));
    assert_eq!(code, 0, "{o}{e}");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&rj).unwrap()).unwrap();
    let totals = &report["totals"];
    assert_eq!(totals["kernels"], 383);
    assert_eq!(totals["translated"], 383);
    let converted = out.join("cub.cpython-312-x86_64-linux-gnu.so");
    assert_eq!(check_rebinds("dtk", &so, &converted, &report), 18);
    let shim = out.join(wheelport::shim::SHIM_SONAME);
    let soname = runtime_soname("dtk");
    // Loads with every symbol bound (Python's own symbols from this interpreter).
    let load = "import ctypes, sys\nctypes.CDLL(sys.argv[1])\nprint('loaded')";
    let rt = stub_imports(d.path(), &soname, &[&converted, &shim], "");
    let (c, o, e) = python_bind_now(load, &[&converted], &rt);
    assert_eq!((c, o.trim()), (0, "loaded"), "{e}");
    if let Some(deb) = debian_hip(d.path(), &soname) {
        let (c, o, e) = python_bind_now(load, &[&converted], &deb);
        assert_eq!((c, o.trim()), (0, "loaded"), "Debian's HIP runtime: {e}");
    }
}
