//! The driver-API layer (`shims/hip/wheelport_driver.c`, docs/driver-layer.md), built with gcc
//! as conversion builds it and run on the CPU:
//! * against a recording HIP runtime (`tests/driver_layer/recording_hip.c`) by a driver-API
//!   caller (`tests/driver_layer/client.c`) that loads a driver image holding a real AMDGPU
//!   code object, launches from it and queries the identity;
//! * by real CUDA static runtimes (nvcc 13.5's `libcudart_static.a` and CUDA 12.9's), linked
//!   into a small library with nvcc: how far each gets on the layer, measured;
//! * against Debian 12's real HIP runtime (`libamdhip64.so.5`, ROCm 5.2.3) with no GPU, loaded
//!   with `LD_BIND_NOW=1`: the static runtime's `cudaGetDeviceCount` answers
//!   `cudaErrorNoDevice` (100), as on a machine without a GPU.
//!
//! The served-entry-point table of docs/driver-layer.md is checked against
//! `shims/hip/tables/driver_layer.tsv` and the static runtime's recorded requests
//! (`WHEELPORT_BLESS=1` rewrites it).

mod common;

use common::{find_tool, missing, require_tool, root, run};
use std::path::{Path, PathBuf};
use std::process::Command;

fn scratch(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("wp-drv-{test}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The recording runtime as `dir/rt/<soname>` and the layer built against that soname as
/// `dir/<layer name>` (identity compute_80).
fn layer_and_stub(dir: &Path, soname: &str) -> Option<(PathBuf, PathBuf)> {
    let gcc = require_tool("gcc", "driver_layer")?;
    let rt = dir.join("rt");
    std::fs::create_dir_all(&rt).unwrap();
    let (c, _, e) = run(Command::new(&gcc)
        .args(["-shared", "-fPIC", "-std=gnu11", "-o"])
        .arg(rt.join(soname))
        .arg(format!("-Wl,-soname,{soname}"))
        .arg(root().join("tests/driver_layer/recording_hip.c")));
    assert_eq!(c, 0, "{e}");
    let name = wheelport::shim::driver::layer_soname(80);
    let layer = wheelport::shim::driver::build(&gcc, soname, &name, dir).unwrap();
    Some((layer, rt))
}

fn lines_with<'a>(text: &'a str, prefix: &str) -> Vec<&'a str> {
    text.lines().filter(|l| l.starts_with(prefix)).collect()
}

#[test]
fn driver_api_caller_runs_a_driver_image_on_the_recording_runtime() {
    let dir = scratch("client");
    let Some((layer, rt)) = layer_and_stub(&dir, "libamdhip64.so.6") else {
        return;
    };
    let Some(co) = common::amdgpu_code_object(&dir, "gfx906") else {
        return;
    };
    let bundle = wheelport::bundle::write_hip(&[("gfx906", &co)]);
    let notes = vec![(
        "_Z9untouchedv".to_string(),
        "SASS only: the module carries no PTX to translate".to_string(),
    )];
    let img = dir.join("module.img");
    std::fs::write(&img, wheelport::shim::driver::image(&bundle, &notes)).unwrap();
    let client = dir.join("client");
    let (c, _, e) = run(Command::new("gcc")
        .args(["-O1", "-std=gnu11", "-o"])
        .arg(&client)
        .arg(root().join("tests/driver_layer/client.c"))
        .arg("-ldl"));
    assert_eq!(c, 0, "{e}");
    let log = dir.join("stub.log");
    let (code, out, err) = run(Command::new(&client)
        .arg(&layer)
        .arg(&img)
        .env("LD_BIND_NOW", "1")
        .env("LD_LIBRARY_PATH", &rt)
        .env("WP_STUB_LOG", &log));
    assert_eq!(code, 0, "{out}{err}");
    let rec = std::fs::read_to_string(&log).unwrap();
    let want_out = [
        // cuGetProcAddress_v2: result, CUdriverProcAddressQueryResult
        "proc cuMemAlloc 12000 0 0",
        "proc cuMemAlloc 2000 500 2", // the 32-bit prototype of CUDA 2.0: not served
        "proc cuCtxCreate 12000 500 1",
        "sync_differ 1", // CUDA 13 added the context parameter: another function
        "cuInit 0",
        "count 0 1",
        // MAX_THREADS_PER_BLOCK through device_attr.tsv: HIP attribute 56, the stub's 1056
        "attr 1 0 1056",
        "attr 10 0 32", // warp size: the translated code's 32 lanes
        "attr 75 0 8",  // compute capability: the identity compute_80
        "attr 76 0 0",
        "attr 8 0 65536",
        "ctx 0 0",
        "load 0",
        "load_foreign 209", // CUDA_ERROR_NO_BINARY_FOR_GPU: not an image wheelport wrote
        "function 0",
        "untranslated 500", // CUDA_ERROR_NOT_FOUND, with the report's reason on stderr
        "fattr 5 0 80",     // PTX_VERSION: the identity
        "fattr 0 0 2000",   // HIP_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK (0): the stub's 2000
        "smem_ok 0",
        "smem_too_big 1",
        "launch 0",
        "launch_ex 0",
        "launch_ex_cluster 801",
        "export_unknown 801",
        "error_name 209 hipErrorStub",
    ];
    for w in want_out {
        assert!(out.lines().any(|l| l == w), "missing `{w}` in\n{out}");
    }
    assert!(
        err.contains("kernel _Z9untouchedv was not translated: SASS only"),
        "{err}"
    );
    let want_rec = [
        "hipInit 0",
        "hipDeviceGetAttribute 56 dev 0",
        "hipModuleLoadData entry host-x86_64-unknown-linux-gnu size 0 elf 0",
        "hipModuleLoadData entry hipv4-amdgcn-amd-amdhsa--gfx906",
        "hipModuleGetFunction _Z5saxpyifPKfPf",
        // the legacy stream (0x1) is HIP's null stream
        "hipModuleLaunchKernel _Z5saxpyifPKfPf grid 3,2,1 block 64,1,1 shmem 128 stream (nil) params 1",
        "hipModuleLaunchKernel _Z5saxpyifPKfPf grid 4,1,1 block 32,1,1 shmem 0 stream (nil) params 1",
    ];
    for w in want_rec {
        assert!(
            rec.lines().any(|l| l.starts_with(w)),
            "missing `{w}` in\n{rec}"
        );
    }
    assert_eq!(
        lines_with(&rec, "hipModuleLaunchKernel").len(),
        2,
        "the cluster launch must not reach HIP:\n{rec}"
    );
    assert!(!rec.contains("_Z9untouchedv"), "{rec}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A library with one kernel and an `extern "C" int run(int n)` that asks the CUDA runtime for
/// the device count, linked with the static runtime `cudart` (a `libcudart_static.a`).
fn static_runtime_library(dir: &Path, cudart: &Path, name: &str) -> PathBuf {
    let nvcc = find_tool("nvcc").unwrap();
    let cu = dir.join("k.cu");
    std::fs::write(
        &cu,
        "#include <cstdio>\n__global__ void add1(int *p, int n) { int i = threadIdx.x; if (i < n) p[i] += 1; }\n\
         extern \"C\" int run(int n) {\n  int count = -1;\n  cudaError_t e = cudaGetDeviceCount(&count);\n  \
         printf(\"count %d %d\\n\", (int)e, count);\n  if (e) return (int)e;\n  int *d = 0;\n  \
         e = cudaMalloc(&d, n * 4);\n  printf(\"malloc %d\\n\", (int)e);\n  return (int)e;\n}\n",
    )
    .unwrap();
    let obj = dir.join("k.o");
    let (c, _, e) = run(Command::new(&nvcc)
        .args([
            "-c",
            "-Xcompiler",
            "-fPIC",
            "-gencode",
            "arch=compute_80,code=compute_80",
            "-o",
        ])
        .arg(&obj)
        .arg(&cu));
    assert_eq!(c, 0, "{e}");
    let so = dir.join(name);
    let (c, _, e) = run(Command::new("g++")
        .args(["-shared", "-o"])
        .arg(&so)
        .arg(&obj)
        .arg(cudart)
        .args(["-ldl", "-lpthread", "-lrt"]));
    assert_eq!(c, 0, "{e}");
    so
}

/// The two static runtimes: nvcc 13.5's and CUDA 12.9's (`WHEELPORT_CUDA12_INCLUDE/../lib`).
fn static_runtimes() -> Option<Vec<(&'static str, PathBuf)>> {
    let nvcc = require_tool("nvcc", "driver_layer")?;
    let rt13 = nvcc.parent()?.parent()?.join("lib/libcudart_static.a");
    let rt12 = std::env::var_os("WHEELPORT_CUDA12_INCLUDE")
        .map(|d| PathBuf::from(d).join("../lib/libcudart_static.a"));
    match rt12 {
        Some(rt12) if rt13.is_file() && rt12.is_file() => {
            Some(vec![("13.5", rt13), ("12.9", rt12)])
        }
        _ => missing(
            "driver_layer",
            "libcudart_static.a of CUDA 13.5 (beside nvcc) and 12.9 (WHEELPORT_CUDA12_INCLUDE/../lib)",
        ),
    }
}

/// Run `so`'s `run(4)` with `libdir` first on the library path, where `libcuda.so.1` is the
/// layer; returns (exit code, stdout + stderr).
fn run_static(so: &Path, libdir: &Path, env: &[(&str, &str)]) -> (i32, String) {
    let mut cmd = Command::new("python3");
    cmd.arg("-c")
        .arg("import ctypes, sys\nl = ctypes.CDLL(sys.argv[1])\nprint('run', l.run(4), flush=True)")
        .arg(so)
        .env("LD_BIND_NOW", "1")
        .env("LD_LIBRARY_PATH", libdir)
        .env("WHEELPORT_DRIVER_LOG", "1");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let (c, out, err) = run(&mut cmd);
    (c, format!("{out}{err}"))
}

/// How far a real static runtime gets on the layer. Both start (the driver loads through
/// `dlopen("libcuda.so.1")` and `cuGetProcAddress`, `cuInit` is served, CUDART_INTERFACE is
/// handed out) and both stop at a private export table of NVIDIA's driver that the layer does
/// not serve: TOOLS_RUNTIME_CALLBACK_HOOKS (a094798c-...). Their `cudaGetDeviceCount` then
/// answers cudaErrorNotSupported (801) and the process exits cleanly, so a converted object
/// with a static runtime cannot run yet: conversion reports it (tests/no_false_success.rs),
/// and this test fails when that changes. With no device, both answer cudaErrorNoDevice (100).
#[test]
fn static_runtimes_on_the_layer() {
    let Some(runtimes) = static_runtimes() else {
        return;
    };
    let dir = scratch("static");
    let Some((layer, rt)) = layer_and_stub(&dir, "libamdhip64.so.6") else {
        return;
    };
    std::os::unix::fs::symlink(&layer, rt.join("libcuda.so.1")).unwrap();
    for (version, cudart) in runtimes {
        let sub = dir.join(version);
        std::fs::create_dir_all(&sub).unwrap();
        let so = static_runtime_library(&sub, &cudart, "libk.so");
        let log = sub.join("stub.log");
        let log_s = log.display().to_string();
        let (c, out) = run_static(&so, &rt, &[("WP_STUB_LOG", &log_s)]);
        assert_eq!(c, 0, "{out}");
        assert!(
            out.contains("requested cuInit (version 2000): served"),
            "{out}"
        );
        assert!(
            out.contains("requested cuLibraryLoadData (version 12000): served"),
            "{out}"
        );
        let stop = "cuGetExportTable a094798c-2e74-2e74-93f2-0800200c0a66: not served";
        assert!(out.contains(stop), "{version}: {out}");
        assert!(out.contains("run 801"), "{version}: {out}");
        assert!(out.contains("count 801 -1"), "{version}: {out}");
        let rec = std::fs::read_to_string(&log).unwrap();
        assert_eq!(rec, "hipInit 0\n", "{version}");
        let (c, out) = run_static(&so, &rt, &[("WP_STUB_DEVICES", "0")]);
        assert_eq!(c, 0, "{out}");
        assert!(out.contains("count 100 -1"), "{version}: {out}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Debian 12's `libamdhip64.so.5` (ROCm 5.2.3), a real HIP runtime, on a machine without an
/// AMD GPU: the layer built for it loads with `LD_BIND_NOW=1` (every HIP function is looked up
/// at first use), `hipInit` fails (5.2.3 answers hipErrorInvalidDevice, 101) and the static
/// runtime's `cudaGetDeviceCount` answers cudaErrorNoDevice, not a crash.
#[test]
fn static_runtime_without_a_gpu_on_debian_hip() {
    let Some(runtimes) = static_runtimes() else {
        return;
    };
    let hip = Path::new("/usr/lib/x86_64-linux-gnu/libamdhip64.so.5");
    if !hip.is_file() {
        missing::<()>(
            "static_runtime_without_a_gpu_on_debian_hip",
            "Debian's libamdhip64-5 is not installed (apt-get install libamdhip64-5)",
        );
        return;
    }
    let dir = scratch("debian-hip");
    let gcc = require_tool("gcc", "driver_layer").unwrap();
    let name = wheelport::shim::driver::layer_soname(80);
    let layer = wheelport::shim::driver::build(&gcc, "libamdhip64.so.5", &name, &dir).unwrap();
    let libdir = dir.join("lib");
    std::fs::create_dir_all(&libdir).unwrap();
    std::os::unix::fs::symlink(&layer, libdir.join("libcuda.so.1")).unwrap();
    for (version, cudart) in runtimes {
        let sub = dir.join(version);
        std::fs::create_dir_all(&sub).unwrap();
        let so = static_runtime_library(&sub, &cudart, "libk.so");
        let (c, out) = run_static(&so, &libdir, &[]);
        assert_eq!(c, 0, "{version}: {out}");
        assert!(
            out.contains("with no device: CUDA_ERROR_NO_DEVICE"),
            "{version}: {out}"
        );
        assert!(out.contains("count 100 -1"), "{version}: {out}");
        assert!(out.contains("run 100"), "{version}: {out}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The table of docs/driver-layer.md: every name the static runtime inside CuPy 14.2 requested
/// (fixtures/gpu/results/static-runtime-driver-requests.txt) and every name the layer serves,
/// with the versions it serves each for.
fn entry_table() -> String {
    let requests = std::fs::read_to_string(
        root().join("fixtures/gpu/results/static-runtime-driver-requests.txt"),
    )
    .unwrap();
    let requested: std::collections::BTreeSet<&str> = requests
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .collect();
    let served = wheelport::shim::driver::served();
    let mut names: std::collections::BTreeSet<&str> = requested.clone();
    names.extend(served.iter().map(|s| s.name));
    let mut t = String::from(
        "| entry point | requested by CuPy 14.2's static runtime | served for CUDA versions |\n|---|---|---|\n",
    );
    let (mut n_served, mut n_req_served) = (0, 0);
    for n in &names {
        let rows: Vec<String> = served
            .iter()
            .filter(|s| s.name == *n)
            .map(|s| match s.next {
                0 => format!("≥ {}", s.first),
                next => format!("{}–{}", s.first, next - 1),
            })
            .collect();
        if !rows.is_empty() {
            n_served += 1;
            if requested.contains(n) {
                n_req_served += 1;
            }
        }
        t.push_str(&format!(
            "| `{n}` | {} | {} |\n",
            if requested.contains(n) { "yes" } else { "" },
            if rows.is_empty() {
                "not served".to_string()
            } else {
                rows.join(", ")
            }
        ));
    }
    format!(
        "{n_served} entry points served, {n_req_served} of the {} that CuPy 14.2's static runtime requests.\n\n{t}",
        requested.len()
    )
}

#[test]
fn docs_table_lists_served_and_requested_entry_points() {
    let path = root().join("docs/driver-layer.md");
    let doc = std::fs::read_to_string(&path).unwrap();
    let begin = "<!-- entry points: generated by tests/driver_layer.rs -->\n";
    let end = "<!-- end of entry points -->";
    let a = doc.find(begin).expect("the table's begin marker") + begin.len();
    let b = doc.find(end).expect("the table's end marker");
    let want = entry_table();
    if std::env::var_os("WHEELPORT_BLESS").is_some() {
        let new = format!("{}{want}{}", &doc[..a], &doc[b..]);
        std::fs::write(&path, new).unwrap();
        return;
    }
    assert_eq!(
        &doc[a..b],
        want,
        "docs/driver-layer.md's table is stale: WHEELPORT_BLESS=1 cargo test --test driver_layer"
    );
}

/// The layer's table is what `gen_driver_layer.py` makes of CUDA 13.5's `cudaTypedefs.h`.
#[test]
fn served_table_follows_cuda_typedefs() {
    let Some(nvcc) = require_tool("nvcc", "driver_layer") else {
        return;
    };
    let inc = nvcc.parent().unwrap().parent().unwrap().join("include");
    let dir = scratch("table");
    let out = dir.join("driver_layer.tsv");
    let (c, o, e) = run(Command::new("python3")
        .arg(root().join("shims/hip/tools/gen_driver_layer.py"))
        .arg(&inc)
        .arg(root().join("shims/hip/wheelport_driver.c"))
        .arg(&out));
    assert_eq!(c, 0, "{o}{e}");
    assert_eq!(
        std::fs::read_to_string(&out).unwrap(),
        wheelport::shim::tables::DRIVER_LAYER_TSV,
        "shims/hip/tables/driver_layer.tsv is stale: run shims/hip/tools/gen_driver_layer.py"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
