//! CUDA 13 under libcudart.so.12's names: the ABI audit and the relink rows it drives.
//!
//! * `relink-tables/cuda13-abi.tsv` is what `relink-tables/tools/cuda13_abi.py` reads off the
//!   real CUDA 12.9 and 13.5 runtimes and headers now (`.ci/run` installs both), and every
//!   `<target>/cudart13.tsv` (and `docs/cuda13-abi.md`) is what `gen_cudart13.py` makes of it;
//! * an object built against `libcudart.so.13` has its imports planned from the CUDA 13 rows
//!   (`cudaMemPrefetchAsync` takes a `cudaMemLocation` there: the shim's `wp13` form, not
//!   HIP's `hipMemPrefetchAsync`, which takes a device number; `cudaGetDeviceProperties`
//!   fills CUDA 13's 1008-byte struct), the same source against `libcudart.so.12` from the
//!   CUDA 12 rows, whether the imports are versioned or not;
//! * a statically linked CUDA 13 runtime is recognised by the functions only CUDA 13 has, and
//!   its entry points are rebound from the CUDA 13 rows.

mod common;

use common::*;
use std::path::Path;
use std::process::Command;
use wheelport::relink::{load_builtin, plan, plan_static};

fn cuda_roots() -> Option<(std::path::PathBuf, std::path::PathBuf)> {
    let c12 = std::env::var_os("WHEELPORT_CUDA12_INCLUDE")
        .map(std::path::PathBuf::from)
        .and_then(|i| i.parent().map(Path::to_path_buf));
    let c13 = find_tool("nvcc").and_then(|n| n.parent()?.parent().map(Path::to_path_buf));
    match (c12, c13) {
        (Some(a), Some(b))
            if a.join("lib/libcudart.so.12").is_file()
                && b.join("lib/libcudart.so.13").is_file() =>
        {
            Some((a, b))
        }
        _ => missing(
            "cuda13_abi",
            "CUDA 12.9's runtime (WHEELPORT_CUDA12_INCLUDE) or CUDA 13's (nvcc 13.5's nvidia/cu13)",
        ),
    }
}

#[test]
fn audit_and_tables_are_what_the_tools_make() {
    let Some((c12, c13)) = cuda_roots() else {
        return;
    };
    let d = tempfile::tempdir().unwrap();
    let abi = d.path().join("cuda13-abi.tsv");
    let (code, o, e) = run(Command::new("python3")
        .arg(root().join("relink-tables/tools/cuda13_abi.py"))
        .arg(&c12)
        .arg(&c13)
        .arg(&abi));
    assert_eq!(code, 0, "{o}{e}");
    assert_eq!(
        std::fs::read_to_string(&abi).unwrap(),
        std::fs::read_to_string(root().join("relink-tables/cuda13-abi.tsv")).unwrap(),
        "relink-tables/cuda13-abi.tsv is not what cuda13_abi.py reads off the headers now"
    );
    // The audit finds what the CUDA 13 release notes name, among others.
    let text = std::fs::read_to_string(&abi).unwrap();
    for s in [
        "cudaGetDeviceProperties\tlayout",
        "cudaMemPrefetchAsync\tprototype",
        "cudaMemAdvise\tprototype",
        "cudaGraphAddDependencies\tprototype",
        "cudaGraphGetEdges\tprototype",
        "cudaGraphNodeGetDependencies\tprototype",
        "cudaStreamUpdateCaptureDependencies\tprototype",
        "cudaPointerGetAttributes\tlayout",
    ] {
        assert!(text.contains(s), "the audit misses {s}");
    }
    let out = d.path().join("tables");
    let date = std::fs::read_to_string(root().join("relink-tables/dtk/cudart13.tsv"))
        .unwrap()
        .lines()
        .find_map(|l| l.strip_prefix("#% date: ").map(str::to_string))
        .unwrap();
    let (code, o, e) = run(Command::new("python3")
        .arg(root().join("relink-tables/tools/gen_cudart13.py"))
        .arg(&c13)
        .arg(&date)
        .arg(&out));
    assert_eq!(code, 0, "{o}{e}");
    for t in ["dtk", "rocm", "musa"] {
        assert_eq!(
            std::fs::read_to_string(out.join(t).join("cudart13.tsv")).unwrap(),
            std::fs::read_to_string(root().join(format!("relink-tables/{t}/cudart13.tsv")))
                .unwrap(),
            "relink-tables/{t}/cudart13.tsv is not what gen_cudart13.py makes"
        );
    }
    assert_eq!(
        std::fs::read_to_string(out.join("cuda13-abi.md")).unwrap(),
        std::fs::read_to_string(root().join("docs/cuda13-abi.md")).unwrap(),
        "docs/cuda13-abi.md is not what gen_cudart13.py makes"
    );
}

/// A shared object calling three runtime functions, linked against a stub `soname`
/// (versioned by its soname as NVIDIA's is, or unversioned).
fn build(dir: &Path, soname: &str, versioned: bool) -> std::path::PathBuf {
    let d = dir.join(format!("{soname}-{versioned}"));
    std::fs::create_dir_all(&d).unwrap();
    std::fs::write(
        d.join("rt.c"),
        "int cudaMemPrefetchAsync(void){return 0;} int cudaGetDeviceProperties(void){return 0;} int cudaMalloc(void){return 0;}\n",
    )
    .unwrap();
    std::fs::write(d.join("rt.map"), format!("{soname} {{ global: *; }};\n")).unwrap();
    let mut cc = Command::new("gcc");
    cc.args([
        "-shared",
        "-fPIC",
        &format!("-Wl,-soname,{soname}"),
        "-o",
        soname,
        "rt.c",
    ]);
    if versioned {
        cc.arg("-Wl,--version-script=rt.map");
    }
    let (c, _, e) = run(cc.current_dir(&d));
    assert_eq!(c, 0, "{e}");
    std::fs::write(
        d.join("user.c"),
        "int cudaMemPrefetchAsync(void); int cudaGetDeviceProperties(void); int cudaMalloc(void);\nint f(void){return cudaMemPrefetchAsync()+cudaGetDeviceProperties()+cudaMalloc();}\n",
    )
    .unwrap();
    let (c, _, e) = run(Command::new("gcc")
        .args([
            "-shared",
            "-fPIC",
            "-o",
            "user.so",
            "user.c",
            "-L.",
            &format!("-l:{soname}"),
        ])
        .current_dir(&d));
    assert_eq!(c, 0, "{e}");
    d.join("user.so")
}

#[test]
fn cuda13_imports_take_the_cuda13_rows() {
    if require_tool("gcc", "cuda13_abi").is_none() {
        return;
    }
    let d = tempfile::tempdir().unwrap();
    for target in ["dtk", "rocm"] {
        let table = load_builtin(target).unwrap();
        for versioned in [true, false] {
            for (soname, want) in [
                (
                    "libcudart.so.13",
                    [
                        ("cudaMemPrefetchAsync", "wp13MemPrefetchAsync"),
                        ("cudaGetDeviceProperties", "wp13GetDeviceProperties"),
                        ("cudaMalloc", "hipMalloc"),
                    ],
                ),
                (
                    "libcudart.so.12",
                    [
                        ("cudaMemPrefetchAsync", "hipMemPrefetchAsync"),
                        ("cudaGetDeviceProperties", "wpcuGetDeviceProperties"),
                        ("cudaMalloc", "hipMalloc"),
                    ],
                ),
            ] {
                let so = build(d.path(), soname, versioned);
                let data = std::fs::read(&so).unwrap();
                let obj = wheelport::elf::scan(&data, "user.so").unwrap();
                let p = plan(&table, &obj);
                for (cuda, hip) in want {
                    assert_eq!(
                        p.edits.renames.get(cuda).map(String::as_str),
                        Some(hip),
                        "{target} {soname} (versioned: {versioned}): {cuda}"
                    );
                }
                assert!(p.unresolved.is_empty(), "{:?}", p.unresolved);
            }
        }
    }
}

#[test]
fn a_static_cuda13_runtime_is_rebound_from_the_cuda13_rows() {
    let table = load_builtin("dtk").unwrap();
    let entry = |name: &str| wheelport::elf::static_runtime::StaticEntry {
        name: name.into(),
        address: 0x1000,
        size: 64,
        referenced: true,
    };
    // cudaDeviceGetDevResource exists only in CUDA 13 (CuPy's cupy-cuda13x links it).
    let v13 = [
        entry("cudaMemPrefetchAsync"),
        entry("cudaDeviceGetDevResource"),
    ];
    let v12 = [
        entry("cudaMemPrefetchAsync"),
        entry("cudaGetDeviceProperties_v2"),
    ];
    assert_eq!(
        wheelport::relink::plan::static_runtime_library(&table, &v13),
        "libcudart.so.13"
    );
    assert_eq!(
        wheelport::relink::plan::static_runtime_library(&table, &v12),
        "libcudart.so.12"
    );
    let target = |p: &wheelport::relink::StaticPlan| {
        p.rebinds
            .iter()
            .find(|r| r.name == "cudaMemPrefetchAsync")
            .map(|r| r.target.clone())
    };
    assert_eq!(
        target(&plan_static(&table, &v13)).as_deref(),
        Some("wp13MemPrefetchAsync")
    );
    assert_eq!(
        target(&plan_static(&table, &v12)).as_deref(),
        Some("hipMemPrefetchAsync")
    );
}
