//! The built-in relink tables (`relink-tables/<target>/*.tsv`) and their loader.
//!
//! Expected values were measured on real files:
//! * `nm -D --defined-only --with-symbol-versions` on `libcudart.so.12` from PyPI's
//!   `nvidia-cuda-runtime-cu12` 12.9.79 wheel: 435 FUNC exports, all at version node
//!   `libcudart.so.12`; 14 of them start with `__cuda`, 57 end in `_ptsz`, 15 in `_ptds`;
//!   sorted by name the first is `__cudaGetKernel` and the last
//!   `cudaWaitExternalSemaphoresAsync_v2_ptsz`.
//! * the corpus wheels (xformers 0.0.35, autoawq_kernels 0.0.9, vllm_flash_attn 2.6.2):
//!   their seven `.so` modules import 37 distinct `libcudart.so.12` symbols.

mod common;

use std::collections::BTreeSet;
use wheelport::relink::{load_builtin, Kind, Table};

/// The targets with relink tables (every profile that names a relink-table set).
const TARGETS: [&str; 3] = ["dtk", "rocm", "musa"];

fn table(t: &str) -> Table {
    load_builtin(t).unwrap_or_else(|e| panic!("built-in {t} table: {e}"))
}

const CUDART: &str = "libcudart.so.12";

#[test]
fn libcudart_rows_are_the_12_9_79_export_list() {
    for t in TARGETS {
        let tab = table(t);
        let names: Vec<&str> = tab
            .symbols_of(CUDART)
            .map(|r| r.cuda_name.as_str())
            .collect();
        let set: BTreeSet<&str> = names.iter().copied().collect();
        assert_eq!(names.len(), 435, "{t}: one row per export");
        assert_eq!(set.len(), 435, "{t}: no duplicates");
        assert_eq!(set.iter().filter(|n| n.starts_with("__cuda")).count(), 14);
        assert_eq!(set.iter().filter(|n| n.ends_with("_ptsz")).count(), 57);
        assert_eq!(set.iter().filter(|n| n.ends_with("_ptds")).count(), 15);
        assert_eq!(set.first(), Some(&"__cudaGetKernel"));
        assert_eq!(set.last(), Some(&"cudaWaitExternalSemaphoresAsync_v2_ptsz"));
        for n in [
            "__cudaRegisterFatBinary",
            "__cudaRegisterFatBinaryEnd",
            "__cudaRegisterManagedVar",
            "__cudaInitModule",
            "__cudaLaunchKernel_ptsz",
            "cudaGetDeviceProperties_v2",
            "cudaGetDriverEntryPoint",
            "cudaMemcpyAsync_ptsz",
            "cudaMemcpy_ptds",
            "cudaStreamGetCaptureInfo_v3",
            "cudaLibraryLoadData",
        ] {
            assert!(set.contains(n), "{t}: {n} missing");
        }
    }
}

#[test]
fn runtime_renames_and_shims() {
    let rocm = table("rocm");
    let r = rocm.symbol("cudaMalloc").unwrap();
    assert_eq!(r.kind, Kind::Rename);
    assert_eq!(r.target_name.as_deref(), Some("hipMalloc"));
    assert_eq!(r.target_library.as_deref(), Some("libamdhip64.so.6"));
    assert_eq!(r.cuda_library.as_deref(), Some(CUDART));

    let dtk = table("dtk");
    let r = dtk.symbol("cudaMalloc").unwrap();
    assert_eq!(r.target_name.as_deref(), Some("hipMalloc"));
    assert_eq!(r.target_library.as_deref(), Some("libgalaxyhip.so.5"));

    let musa = table("musa");
    let r = musa.symbol("cudaMalloc").unwrap();
    assert_eq!(
        (r.kind, r.target_name.as_deref()),
        (Kind::Rename, Some("musaMalloc"))
    );
    assert_eq!(r.target_library.as_deref(), Some("libmusart.so.4"));

    for tab in [&rocm, &dtk] {
        let p = tab.symbol("cudaGetDeviceProperties_v2").unwrap();
        assert_eq!(p.kind, Kind::Shim);
        assert_eq!(p.via.as_deref(), Some("hipGetDevicePropertiesR0600"));
        assert_eq!(p.target_library.as_deref(), Some("@shim"));
        assert_eq!(
            tab.symbol("cudaGetDriverEntryPoint").unwrap().kind,
            Kind::Shim
        );
        assert_eq!(
            tab.symbol("cudaDeviceGetAttribute").unwrap().kind,
            Kind::Shim
        );
        assert_eq!(tab.symbol("__cudaGetKernel").unwrap().kind, Kind::Shim);
        assert_eq!(tab.symbol("__cudaLaunchKernel").unwrap().kind, Kind::Shim);
        assert_eq!(
            tab.symbol("__cudaRegisterManagedVar").unwrap().kind,
            Kind::Shim
        );
        // Registration goes through the shim, which skips SASS-only modules.
        let f = tab.symbol("__cudaRegisterFunction").unwrap();
        assert_eq!(
            (f.kind, f.target_name.as_deref(), f.via.as_deref()),
            (
                Kind::Shim,
                Some("__wpcuRegisterFunction"),
                Some("__hipRegisterFunction")
            )
        );
        // _ptsz/_ptds map to HIP's _spt variants where HIP declares one.
        let s = tab.symbol("cudaMemcpyAsync_ptsz").unwrap();
        assert_eq!(
            (s.kind, s.target_name.as_deref()),
            (Kind::Rename, Some("hipMemcpyAsync_spt"))
        );
        let s = tab.symbol("cudaMemcpy_ptds").unwrap();
        assert_eq!(s.target_name.as_deref(), Some("hipMemcpy_spt"));
        // cudaMallocHost(ptr, size) is not hipHostMalloc(ptr, size, flags).
        let s = tab.symbol("cudaMallocHost").unwrap();
        assert_eq!(s.target_name.as_deref(), Some("hipMallocHost"));
        // absent from HIP: unsupported, not a guessed rename
        assert_eq!(
            tab.symbol("cudaGetExportTable").unwrap().kind,
            Kind::Unsupported
        );
        assert_eq!(
            tab.symbol("cudaStreamGetCaptureInfo_v3").unwrap().kind,
            Kind::Unsupported
        );
    }
    for t in TARGETS {
        let e = table(t);
        let e = e.symbol("__cudaRegisterFatBinaryEnd").unwrap();
        assert_eq!(e.kind, Kind::Noop, "{t}");
        assert!(e.target_name.is_some(), "{t}: a noop names its shim symbol");
        // HIP stacks register the rewritten HIPF wrapper through the shim, which calls HIP's
        // own entry point and skips SASS-only modules; MUSA's format is unknown: a shim too.
        let reg = table(t);
        let reg = reg.symbol("__cudaRegisterFatBinary").unwrap();
        if t == "musa" {
            assert_eq!(reg.kind, Kind::Shim);
        } else {
            assert_eq!(
                (reg.kind, reg.target_name.as_deref(), reg.via.as_deref()),
                (
                    Kind::Shim,
                    Some("__wpcuRegisterFatBinary"),
                    Some("__hipRegisterFatBinary")
                ),
                "{t}"
            );
        }
    }
    assert_eq!(
        musa.symbol("cudaGetDeviceProperties_v2").unwrap().kind,
        Kind::Shim
    );
}

#[test]
fn sonames_per_target() {
    let required = [
        "libcudart.so.12",
        "libcudart.so.13",
        "libcuda.so.1",
        "libcublas.so.12",
        "libcublasLt.so.12",
        "libcurand.so.10",
        "libcusparse.so.12",
        "libcufft.so.11",
        "libcusolver.so.11",
        "libnccl.so.2",
        "libnvrtc.so.12",
        "libnvToolsExt.so.1",
        "libc10_cuda.so",
        "libtorch_cuda.so",
    ];
    for t in TARGETS {
        let tab = table(t);
        for s in required {
            assert!(tab.soname(s).is_some(), "{t}: no soname row for {s}");
        }
    }
    let s = |t, n| {
        table(t)
            .soname(n)
            .and_then(|r| r.target_soname.clone())
            .unwrap()
    };
    assert_eq!(s("rocm", "libcudart.so.12"), "libamdhip64.so.6");
    assert_eq!(s("dtk", "libcudart.so.12"), "libgalaxyhip.so.5");
    assert_eq!(s("musa", "libcudart.so.12"), "libmusart.so.4");
    assert_eq!(s("rocm", "libc10_cuda.so"), "libc10_hip.so");
    assert_eq!(s("rocm", "libtorch_cuda.so"), "libtorch_hip.so");
    assert_eq!(s("musa", "libnccl.so.2"), "libmccl.so.2");
    let rocm = table("rocm");
    let r7 = rocm.soname_for_sdk("libcudart.so.12", Some("7")).unwrap();
    assert_eq!(r7.target_soname.as_deref(), Some("libamdhip64.so.7"));
    // a version without its own row falls back to the `*` row
    let nccl = rocm.soname_for_sdk("libnccl.so.2", Some("7")).unwrap();
    assert_eq!(nccl.target_soname.as_deref(), Some("librccl.so.1"));
    assert_eq!(
        rocm.soname("libcudnn.so.9").unwrap().kind,
        Kind::Unsupported
    );
}

#[test]
fn headers_carry_provenance_and_date() {
    for t in TARGETS {
        let tab = table(t);
        // musa also has cublasLt.tsv and driver.tsv (the torchada cross-check's rows)
        assert_eq!(tab.sources().len(), if t == "musa" { 7 } else { 5 }, "{t}");
        for s in tab.sources() {
            let p = s.provenance.as_deref().unwrap_or("");
            assert!(!p.is_empty(), "{}: no provenance", s.file);
            assert!(s.date.is_some(), "{}: no date", s.file);
        }
        let cudart = tab
            .sources()
            .iter()
            .find(|s| s.file.ends_with("cudart12.tsv"))
            .unwrap();
        assert!(cudart
            .provenance
            .as_deref()
            .unwrap()
            .contains("nvidia-cuda-runtime-cu12 12.9.79"));
    }
}

/// Every C++ target name demangles, and to the CUDA name with the target's renaming.
#[test]
fn torch_target_names_demangle() {
    fn dem(s: &str) -> String {
        cpp_demangle::Symbol::new(s)
            .unwrap_or_else(|e| panic!("{s}: {e}"))
            .to_string()
    }
    let mut n = 0;
    for t in TARGETS {
        let tab = table(t);
        for r in tab
            .symbols()
            .iter()
            .filter(|r| r.cuda_name.starts_with("_Z"))
        {
            let target = match r.kind {
                Kind::Rename | Kind::Unsupported => r.target_name.as_deref().unwrap(),
                Kind::Shim => r.via.as_deref().unwrap(),
                Kind::Noop => continue,
            };
            let cuda = dem(&r.cuda_name);
            let expect = match t {
                "musa" => cuda.replace("CUDA", "MUSA").replace("cuda", "musa"),
                _ if cuda.starts_with("c10::cuda::") => {
                    cuda.replace("CUDA", "HIP").replace("cuda", "hip")
                }
                _ => cuda.clone(),
            };
            assert_eq!(dem(target), expect, "{t}: {}", r.cuda_name);
            n += 1;
        }
    }
    // The torch C++ imports of the corpus modules the generator reads (autoawq_kernels,
    // torchvision 0.26.0, vllm_flash_attn, xformers).
    assert_eq!(n, 3 * 24, "24 distinct torch C++ symbols per target");
    let rocm = table("rocm");
    let r = rocm
        .symbol("_ZN3c104cuda29c10_cuda_check_implementationEiPKcS2_ib")
        .unwrap();
    assert_eq!(
        r.target_name.as_deref(),
        Some("_ZN3c103hip28c10_hip_check_implementationEiPKcS2_ib")
    );
    assert_eq!(r.target_library.as_deref(), Some("libc10_hip.so"));
    let r = rocm
        .symbol("_ZN2at4cuda24getCurrentCUDABlasHandleEv")
        .unwrap();
    assert_eq!(r.target_name.as_deref(), Some(r.cuda_name.as_str()));
    assert_eq!(r.target_library.as_deref(), Some("libtorch_hip.so"));
    let musa = table("musa");
    let r = musa
        .symbol("_ZN3c104cuda20setCurrentCUDAStreamENS0_10CUDAStreamE")
        .unwrap();
    assert_eq!(
        r.target_name.as_deref(),
        Some("_ZN3c104musa20setCurrentMUSAStreamENS0_10MUSAStreamE")
    );
    let h = rocm.symbol("cublasHgemm").unwrap();
    assert_eq!(
        (h.kind, h.via.as_deref()),
        (Kind::Shim, Some("hipblasHgemm"))
    );
}

/// Every import of the corpus `.so` files from libcudart.so.12, and every cuBLAS and
/// torch CUDA import, has a row for every target.
#[test]
fn corpus_imports_have_rows() {
    let tables: Vec<Table> = TARGETS.iter().map(|&t| table(t)).collect();
    let mut cudart = BTreeSet::new();
    let mut modules = 0;
    for prefix in [
        "xformers-0.0.35",
        "autoawq_kernels-0.0.9",
        "vllm_flash_attn-2.6.2",
    ] {
        let Some(wheel) = common::require_corpus(prefix, "corpus_imports_have_rows") else {
            return;
        };
        let dir = tempfile::tempdir().unwrap();
        for (member, path) in common::extract_shared_objects(&wheel, dir.path()) {
            let data = std::fs::read(&path).unwrap();
            let so = wheelport::elf::scan(&data, &member).unwrap();
            drop(data);
            std::fs::remove_file(&path).unwrap();
            modules += 1;
            for imp in &so.imports {
                let from_cudart = imp.version_file.as_deref() == Some(CUDART);
                let torch_cuda = imp.version.is_none()
                    && (imp.name.starts_with("_ZN3c104cuda")
                        || imp.name.starts_with("_ZNK3c104cuda")
                        || imp.name.starts_with("_ZN2at4cuda")
                        || imp.name.starts_with("_ZN2at17CUDAGeneratorImpl")
                        || imp.name.starts_with("cublas"));
                if from_cudart {
                    cudart.insert(imp.name.clone());
                }
                if from_cudart || torch_cuda {
                    for tab in &tables {
                        let row = tab.symbol(&imp.name).unwrap_or_else(|| {
                            panic!(
                                "{}: {member} imports {} without a row",
                                tab.target(),
                                imp.name
                            )
                        });
                        if from_cudart {
                            assert_eq!(row.cuda_library.as_deref(), Some(CUDART));
                        }
                    }
                }
            }
        }
    }
    assert_eq!(modules, 7);
    assert_eq!(cudart.len(), 37, "{cudart:?}");
    for n in [
        "__cudaInitModule",
        "cudaGetDeviceProperties_v2",
        "cudaGetDriverEntryPoint",
        "cudaLaunchKernelExC",
    ] {
        assert!(cudart.contains(n), "{n}");
    }
}

const USER: &str = "#% schema: wheelport-relink-symbols/1\n\
#% target: rocm\n\
#% provenance: test\n\
# a comment\n\
cudaMalloc\tlibcudart.so.12\tshim\tmy_malloc\t@shim\thipMalloc\tcounting allocator\n\
myExtraSymbol\t-\trename\thipExtra\tlibextra.so.1\t-\tnew row\n";

#[test]
fn user_table_overrides_builtin_rows() {
    let mut tab = table("rocm");
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("mine.tsv");
    std::fs::write(&p, USER).unwrap();
    let stats = tab.merge_user(&p).unwrap();
    assert_eq!((stats.replaced, stats.added), (1, 1));
    let r = tab.symbol("cudaMalloc").unwrap();
    assert_eq!(r.kind, Kind::Shim);
    assert_eq!(r.target_name.as_deref(), Some("my_malloc"));
    assert_eq!(r.origin.line, 5);
    assert!(r.origin.file.ends_with("mine.tsv"));
    assert_eq!(
        tab.symbol("myExtraSymbol")
            .unwrap()
            .target_library
            .as_deref(),
        Some("libextra.so.1")
    );
    assert_eq!(tab.symbols_of(CUDART).count(), 435);
    // untouched rows stay built-in
    assert_eq!(
        tab.symbol("cudaFree").unwrap().target_name.as_deref(),
        Some("hipFree")
    );

    let sonames = "#% schema: wheelport-relink-sonames/1\n#% target: rocm\n\
libcublas.so.12\t6\tlibhipblas.so.3\trename\tlocal build\n";
    let st = tab.merge_user_text(sonames, "sonames.tsv").unwrap();
    assert_eq!((st.replaced, st.added), (1, 0));
    assert_eq!(
        tab.soname("libcublas.so.12")
            .unwrap()
            .target_soname
            .as_deref(),
        Some("libhipblas.so.3")
    );
}

#[test]
fn malformed_rows_name_file_and_line() {
    let head = "#% schema: wheelport-relink-symbols/1\n#% target: rocm\n";
    let cases: &[(&str, usize, &str)] = &[
        (
            "cudaMalloc\tlibcudart.so.12\trename\thipMalloc\n",
            3,
            "expected 7 tab-separated columns",
        ),
        (
            "cudaMalloc\t-\trenamed\thipMalloc\tlib.so\t-\tx\n",
            3,
            "unknown kind \"renamed\"",
        ),
        (
            "# c\ncudaMalloc\t-\trename\t-\tlib.so\t-\tx\n",
            4,
            "needs target_name and target_library",
        ),
        (
            "cudaFree\t-\tshim\t-\t@shim\t-\tx\n",
            3,
            "needs target_name",
        ),
        ("cudaFree\t-\tnoop\tx\t\t-\tx\n", 3, "column 5 is empty"),
        (
            "a\t-\tunsupported\t-\t-\t-\tx\n\na\t-\tunsupported\t-\t-\t-\tx\n",
            5,
            "already defined on line 3",
        ),
    ];
    for (rows, line, msg) in cases {
        let mut tab = table("rocm");
        let e = tab
            .merge_user_text(&format!("{head}{rows}"), "user.tsv")
            .unwrap_err();
        assert_eq!(e.file, "user.tsv");
        assert_eq!(e.line, Some(*line), "{e}");
        assert!(e.message.contains(msg), "{e}");
        assert!(
            e.to_string().starts_with(&format!("user.tsv:{line}: ")),
            "{e}"
        );
    }
    let mut tab = table("rocm");
    let e = tab
        .merge_user_text("cudaMalloc\t-\tunsupported\t-\t-\t-\tx\n", "u.tsv")
        .unwrap_err();
    assert_eq!(e.line, Some(1));
    assert!(e.message.contains("schema"), "{e}");
    let e = tab
        .merge_user_text(
            "#% schema: wheelport-relink-symbols/1\n#% target: musa\n",
            "u.tsv",
        )
        .unwrap_err();
    assert_eq!(e.line, Some(2));
    assert!(e.message.contains("merged into rocm"), "{e}");
    let e = tab
        .merge_user_text("#% schema: something/9\n", "u.tsv")
        .unwrap_err();
    assert_eq!(e.line, Some(1));
    let e = tab
        .merge_user_text("#% target: rocm\n", "u.tsv")
        .unwrap_err();
    assert_eq!(e.line, None);
    let e = tab
        .merge_user_text(
            "#% schema: wheelport-relink-sonames/1\n#% target: rocm\nlibx.so\t*\tliby.so\tshim\tx\n",
            "s.tsv",
        )
        .unwrap_err();
    assert_eq!(e.line, Some(3));
    assert!(e.message.contains("rename or unsupported"), "{e}");
    let e = tab
        .merge_user(std::path::Path::new("/nonexistent/t.tsv"))
        .unwrap_err();
    assert_eq!((e.file.as_str(), e.line), ("/nonexistent/t.tsv", None));
    // a failed merge leaves the table unchanged
    assert_eq!(
        tab.symbol("cudaMalloc").unwrap().target_name.as_deref(),
        Some("hipMalloc")
    );
    // conversion into the crate error keeps file and line
    let ce: wheelport::Error = e.into();
    assert_eq!(ce.file, "/nonexistent/t.tsv");
}

/// `inspect`'s attribution table still parses next to the new files.
#[test]
fn cuda_stack_table_still_parses() {
    let rules =
        wheelport::inspect::cuda_stack::parse_table(wheelport::inspect::cuda_stack::TABLE).unwrap();
    assert!(rules.len() > 20);
}
