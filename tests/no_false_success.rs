//! Exit 0 only for outputs that can load on the target.
//!
//! Each case is checked with real tools as oracles: the dynamic loader itself (`LD_BIND_NOW=1`
//! through Python's `ctypes`, against stub target libraries built with gcc), binutils'
//! `readelf`, `patchelf` (to graft a library the way auditwheel does), `pip install`,
//! `cuobjdump` and `ptxas`.
//!
//! * torchvision 0.29.2 from PyPI vendors `libcudart.<hash>.so.13` and `libnvjpeg.<hash>.so.13`:
//!   `_C_stable.so` converts with no libcudart left anywhere; `image_stable.so` and the vendored
//!   nvjpeg are not loadable on dtk, with the reason; exit 5; `--allow-partial` writes a wheel
//!   without them that pip installs and whose `_C_stable.so` the loader binds completely
//!   (`ldd -r`, `LD_BIND_NOW` semantics without running its PyTorch constructors) against stub
//!   target and PyTorch libraries.
//! * A wheel with `libcudart-<hash>.so.12` grafted by patchelf as auditwheel does: converted,
//!   the vendored copy dropped, the extension loads against a stub target runtime.
//! * CuPy 14.2's `cub` module links the CUDA runtime statically: not exit 0, the report names
//!   the static runtime.
//! * `-rdc`: inspect counts the kernels of the device-linked module, as `cuobjdump` does; the
//!   relocatable copies are not built.
//! * Loose cubins (made by `ptxas`) in a wheel and in a folder: listed with the arch and
//!   kernels `cuobjdump` reports; convert refuses them as SASS-only.

mod common;
mod convert_support;

use common::*;
use convert_support::*;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

/// `wheelport D/libuser.so --target TARGET -o D/out-TARGET --json D/TARGET.json`: exit code,
/// stdout, stderr and the report's path.
fn convert_user(d: &Path, target: &str) -> (i32, String, String, PathBuf) {
    let report = d.join(format!("{target}.json"));
    let (code, out, err) = run(Command::new(bin())
        .arg(d.join("libuser.so"))
        .args(["--target", target, "-o"])
        .arg(d.join(format!("out-{target}")))
        .arg("--json")
        .arg(&report));
    (code, out, err, report)
}

fn json(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn so_report<'a>(r: &'a serde_json::Value, path: &str) -> &'a serde_json::Value {
    r["inputs"][0]["shared_objects"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["path"] == path)
        .unwrap_or_else(|| panic!("{path} not in the report"))
}

/// `readelf -d -V -W --dyn-syms` of `so`.
fn readelf_all(so: &Path) -> String {
    let (c, out, e) = run(Command::new("readelf")
        .args(["-d", "-V", "-W", "--dyn-syms"])
        .arg(so));
    assert_eq!(c, 0, "{e}");
    out
}

/// Undefined, unversioned dynamic symbols of `so` (what stub libraries must define).
fn unversioned_imports(so: &Path) -> BTreeSet<String> {
    let (c, out, e) = run(Command::new("nm").args(["-D", "--undefined-only"]).arg(so));
    assert_eq!(c, 0, "{e}");
    out.lines()
        .filter_map(|l| l.split_whitespace().last())
        .filter(|n| !n.contains('@'))
        .map(str::to_string)
        .collect()
}

/// Build, in `dir`, one stub library per soname in `sonames`, each defining every name in
/// `symbols` (as a function: the loader binds data and code the same way).
fn stubs(dir: &Path, sonames: &[String], symbols: &BTreeSet<String>) {
    let mut c = String::new();
    for (i, s) in symbols.iter().enumerate() {
        c.push_str(&format!(
            "void wp_stub_{i}(void) __asm__(\"{s}\");\nvoid wp_stub_{i}(void) {{}}\n"
        ));
    }
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(dir.join("stub.c"), c).unwrap();
    for so in sonames {
        let (code, _, e) = run(Command::new("gcc")
            .args([
                "-shared",
                "-fPIC",
                &format!("-Wl,-soname,{so}"),
                "-o",
                so,
                "stub.c",
            ])
            .current_dir(dir));
        assert_eq!(code, 0, "{so}: {e}");
    }
}

/// The NEEDED entries of `so` that the loader does not find on this machine (target and
/// framework libraries), by `ldd`'s "not found".
fn not_found(so: &Path, libdir: &Path) -> Vec<String> {
    let (_, out, _) = run(Command::new("ldd").arg(so).env("LD_LIBRARY_PATH", libdir));
    out.lines()
        .filter(|l| l.contains("=> not found"))
        .filter_map(|l| l.split_whitespace().next())
        .map(str::to_string)
        .collect()
}

const LOAD: &str =
    "import ctypes, sys\nfor p in sys.argv[1:]:\n    ctypes.CDLL(p)\nprint('loaded')";

#[test]
fn torchvision_vendored_cuda_libraries() {
    const T: &str = "torchvision_vendored_cuda_libraries";
    let Some(whl) = require_corpus("torchvision-0.29.2", T) else {
        return;
    };
    if let Err(why) =
        wheelport::device::Pipeline::discover(wheelport::target::profile("dtk").unwrap())
            .available(wheelport::target::profile("dtk").unwrap())
    {
        return missing(T, &why).unwrap_or(());
    }
    let d = tempfile::tempdir().unwrap();
    let r1 = d.path().join("r1.json");
    let (code, out, err) = convert(&[
        whl.as_os_str(),
        "--target".as_ref(),
        "dtk".as_ref(),
        "-o".as_ref(),
        d.path().join("o1").as_os_str(),
        "--json".as_ref(),
        r1.as_os_str(),
    ]);
    assert_eq!(code, 5, "{out}\n{err}");
    assert!(!d.path().join("o1").exists(), "nothing written");
    let r = json(&r1);
    let c = so_report(&r, "torchvision/_C_stable.so");
    assert_eq!(c["outcome"], "written");
    assert_eq!(c["totals"]["kernels"], 55);
    assert_eq!(c["totals"]["translated"], 55, "{out}");
    let img = so_report(&r, "torchvision/image_stable.so");
    assert_eq!(img["outcome"], "not_loadable");
    assert!(
        img["problems"][0]
            .as_str()
            .unwrap()
            .contains("libnvjpeg.so.13"),
        "{img}"
    );
    let nvj = so_report(&r, "torchvision.libs/libnvjpeg.4a0b5c81.so.13");
    assert_eq!(nvj["outcome"], "not_loadable");
    assert_eq!(nvj["totals"]["not_translated"], 250);
    assert!(nvj["kernels"][0]["reason"]
        .as_str()
        .unwrap()
        .contains("vendored CUDA library libnvjpeg.so.13"));
    let rt = so_report(&r, "torchvision.libs/libcudart.3eda8113.so.13");
    assert_eq!(rt["outcome"], "dropped");
    assert_eq!(r["totals"]["objects_not_loadable"], 2);

    // --allow-partial: the wheel without the objects that cannot load.
    let (code, out, err) = convert(&[
        whl.as_os_str(),
        "--target".as_ref(),
        "dtk".as_ref(),
        "--allow-partial".as_ref(),
        "-o".as_ref(),
        d.path().join("o2").as_os_str(),
    ]);
    assert_eq!(code, 6, "{out}\n{err}");
    let wheel = files_in(&d.path().join("o2")).pop().expect("a wheel");
    let x = d.path().join("x");
    let members: Vec<String> = extract_shared_objects(&wheel, &x)
        .into_iter()
        .map(|(n, _)| n)
        .collect();
    for gone in [
        "torchvision/image_stable.so",
        "torchvision.libs/libnvjpeg.4a0b5c81.so.13",
        "torchvision.libs/libcudart.3eda8113.so.13",
    ] {
        assert!(!members.iter().any(|m| m == gone), "{gone} is written");
    }
    // pip installs it; no libcudart anywhere in the extension (readelf).
    let site = d.path().join("site");
    let (code, o, e) = run(Command::new("python3")
        .args([
            "-m",
            "pip",
            "install",
            "--quiet",
            "--no-deps",
            "--no-compile",
            "--target",
        ])
        .arg(&site)
        .arg(&wheel));
    assert_eq!(code, 0, "pip: {o}{e}");
    let ext = site.join("torchvision/_C_stable.so");
    let elf = readelf_all(&ext);
    assert!(!elf.contains("libcudart"), "{elf}");
    assert!(
        elf.contains("(NEEDED)") && elf.contains("[libgalaxyhip.so.5]"),
        "{elf}"
    );
    // The real loader, with every symbol bound now, against stub target libraries.
    let stubdir = d.path().join("stubs");
    let shim = site.join("torchvision.libs/libwheelport_shim.so");
    let mut symbols = unversioned_imports(&ext);
    symbols.extend(unversioned_imports(&shim));
    let mut missing_libs = not_found(&ext, &stubdir);
    missing_libs.extend(not_found(&shim, &stubdir));
    missing_libs.sort();
    missing_libs.dedup();
    assert!(
        missing_libs.iter().any(|l| l == "libgalaxyhip.so.5"),
        "{missing_libs:?}"
    );
    assert!(
        !missing_libs.iter().any(|l| l.contains("cuda")),
        "{missing_libs:?}"
    );
    stubs(&stubdir, &missing_libs, &symbols);
    // The loader binds every relocation (`ldd -r`: LD_BIND_NOW in the loader's trace mode,
    // which does not run the constructors: those would call PyTorch, here a stub).
    let (code, o, e) = run(Command::new("ldd")
        .arg("-r")
        .arg(&ext)
        .env("LD_LIBRARY_PATH", &stubdir));
    assert_eq!(code, 0, "{o}{e}");
    for bad in ["not found", "undefined symbol", "version `"] {
        assert!(!o.contains(bad) && !e.contains(bad), "{bad}: {o}{e}");
    }
    assert!(o.contains("libgalaxyhip.so.5 =>"), "{o}");
}

#[test]
fn auditwheel_grafted_cudart_is_replaced() {
    const T: &str = "auditwheel_grafted_cudart_is_replaced";
    let Some(patchelf) = require_tool("patchelf", T) else {
        return;
    };
    let d = tempfile::tempdir().unwrap();
    let b = d.path().join("build");
    std::fs::create_dir_all(&b).unwrap();
    // A libcudart.so.12 stand-in with the real library's version node, and an extension
    // whose imports are versioned against it (as one linked with nvcc is).
    std::fs::write(
        b.join("cudart.c"),
        "int cudaGetDeviceCount(int *n) { *n = 0; return 0; }\nint cudaDeviceSynchronize(void) { return 0; }\n",
    )
    .unwrap();
    std::fs::write(
        b.join("cudart.map"),
        "libcudart.so.12 { global: cudaGetDeviceCount; cudaDeviceSynchronize; local: *; };\n",
    )
    .unwrap();
    std::fs::write(
        b.join("ext.c"),
        "int cudaGetDeviceCount(int *); int cudaDeviceSynchronize(void);\nint ext_count(void) { int n = -1; cudaGetDeviceCount(&n); cudaDeviceSynchronize(); return n; }\n",
    )
    .unwrap();
    for args in [
        vec![
            "-shared",
            "-fPIC",
            "-Wl,-soname,libcudart.so.12",
            "-Wl,--version-script=cudart.map",
            "-o",
            "libcudart.so.12",
            "cudart.c",
        ],
        vec![
            "-shared",
            "-fPIC",
            "-o",
            "ext.so",
            "ext.c",
            "-L.",
            "-l:libcudart.so.12",
        ],
    ] {
        let (c, _, e) = run(Command::new("gcc").args(&args).current_dir(&b));
        assert_eq!(c, 0, "{e}");
    }
    // Graft it as auditwheel repair does: copy under a hashed name, set its soname, point the
    // extension's DT_NEEDED at it and its RUNPATH at the .libs folder.
    let pkg = d.path().join("tree/pkg");
    let libs = d.path().join("tree/pkg.libs");
    std::fs::create_dir_all(&pkg).unwrap();
    std::fs::create_dir_all(&libs).unwrap();
    let hashed = "libcudart-5a7b9c1d.so.12";
    std::fs::copy(b.join("libcudart.so.12"), libs.join(hashed)).unwrap();
    std::fs::copy(b.join("ext.so"), pkg.join("_ext.so")).unwrap();
    for args in [
        vec![
            "--set-soname".to_string(),
            hashed.to_string(),
            libs.join(hashed).display().to_string(),
        ],
        vec![
            "--replace-needed".into(),
            "libcudart.so.12".into(),
            hashed.into(),
            pkg.join("_ext.so").display().to_string(),
        ],
        vec![
            "--set-rpath".into(),
            "$ORIGIN/../pkg.libs".into(),
            pkg.join("_ext.so").display().to_string(),
        ],
    ] {
        let (c, _, e) = run(Command::new(&patchelf).args(&args));
        assert_eq!(c, 0, "{e}");
    }
    let before = readelf_all(&pkg.join("_ext.so"));
    assert!(before.contains(&format!("File: {hashed}")), "{before}");
    // The wheel (RECORD with sha256 and sizes, as the wheel spec writes it).
    let whl = d.path().join("pkg-1.0-py3-none-linux_x86_64.whl");
    let py = r#"
import base64, hashlib, os, sys, zipfile
tree, out = sys.argv[1], sys.argv[2]
files = {
  "pkg/_ext.so": open(os.path.join(tree, "pkg/_ext.so"), "rb").read(),
  "pkg.libs/" + sys.argv[3]: open(os.path.join(tree, "pkg.libs", sys.argv[3]), "rb").read(),
  "pkg-1.0.dist-info/METADATA": b"Metadata-Version: 2.1\nName: pkg\nVersion: 1.0\n",
  "pkg-1.0.dist-info/WHEEL": b"Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: false\nTag: py3-none-linux_x86_64\n",
}
rec = []
with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
    for n, b in files.items():
        z.writestr(n, b)
        h = base64.urlsafe_b64encode(hashlib.sha256(b).digest()).rstrip(b"=").decode()
        rec.append(f"{n},sha256={h},{len(b)}")
    rec.append("pkg-1.0.dist-info/RECORD,,")
    z.writestr("pkg-1.0.dist-info/RECORD", "\n".join(rec) + "\n")
"#;
    let (c, _, e) = run(Command::new("python3")
        .args(["-c", py])
        .arg(d.path().join("tree"))
        .arg(&whl)
        .arg(hashed));
    assert_eq!(c, 0, "{e}");

    let out = d.path().join("out");
    let rj = d.path().join("r.json");
    let (code, o, e) = convert(&[
        whl.as_os_str(),
        "--target".as_ref(),
        "dtk".as_ref(),
        "-o".as_ref(),
        out.as_os_str(),
        "--json".as_ref(),
        rj.as_os_str(),
    ]);
    assert_eq!(code, 0, "{o}\n{e}");
    let r = json(&rj);
    assert_eq!(
        so_report(&r, &format!("pkg.libs/{hashed}"))["outcome"],
        "dropped"
    );
    let wheel = files_in(&out).pop().unwrap();
    let x = d.path().join("x");
    let objs = extract_shared_objects(&wheel, &x);
    assert!(
        !objs.iter().any(|(n, _)| n.contains("libcudart")),
        "{objs:?}"
    );
    let (_, ext) = objs.iter().find(|(n, _)| n == "pkg/_ext.so").unwrap();
    let after = readelf_all(ext);
    assert!(!after.contains("libcudart"), "{after}");
    // cudaDeviceSynchronize is a shim row (it drains device printf): the shim is shipped in
    // pkg.libs. Loads with every symbol bound, against a stub of the target runtime that
    // defines what the renamed imports and the shim need (the shim beside it, as the
    // extension's RUNPATH finds it in the wheel).
    let (_, shim) = objs
        .iter()
        .find(|(n, _)| n == "pkg.libs/libwheelport_shim.so")
        .unwrap_or_else(|| panic!("{objs:?}"));
    let rt = d.path().join("rt");
    std::fs::create_dir_all(&rt).unwrap();
    std::fs::copy(shim, rt.join("libwheelport_shim.so")).unwrap();
    let mut imports = unversioned_imports(ext);
    imports.extend(
        unversioned_imports(shim)
            .into_iter()
            .filter(|n| n.starts_with("hip") || n.starts_with("__hip")),
    );
    stubs(&rt, &["libgalaxyhip.so.5".to_string()], &imports);
    let (code, o, e) = python_bind_now(LOAD, &[ext], &rt);
    assert_eq!(code, 0, "{o}{e}");
}

#[test]
fn stripped_static_cuda_runtime_is_named_not_converted() {
    const T: &str = "stripped_static_cuda_runtime_is_named_not_converted";
    let Some(whl) = require_corpus("cupy_cuda13x-14.2.0", T) else {
        return;
    };
    let d = tempfile::tempdir().unwrap();
    let so = extract_member(
        &whl,
        "cupy/cuda/cub.cpython-312-x86_64-linux-gnu.so",
        d.path(),
    );
    // The oracle for "static": nm sees the runtime's own __cudaRegisterFatBinary defined.
    let (_, syms, _) = run(Command::new("nm").arg(&so));
    assert!(syms
        .lines()
        .any(|l| l.ends_with(" t __cudaRegisterFatBinary")));
    // Stripped (binutils' strip: no .symtab), its entry points cannot be found to rebind
    // (with .symtab it converts: tests/static_runtime.rs).
    let (c, _, e) = run(Command::new("strip").arg("--strip-all").arg(&so));
    assert_eq!(c, 0, "{e}");
    let (_, syms, _) = run(Command::new("nm").arg(&so));
    assert!(!syms.contains("__cudaRegisterFatBinary"), "stripped");
    let rj = d.path().join("r.json");
    for extra in [None, Some("--allow-partial")] {
        let mut args = vec![
            so.as_os_str(),
            "--target".as_ref(),
            "dtk".as_ref(),
            "-o".as_ref(),
        ];
        let outd = d.path().join(format!("out{}", extra.is_some()));
        args.push(outd.as_os_str());
        args.extend(["--json".as_ref(), rj.as_os_str()]);
        if let Some(x) = extra {
            args.push(x.as_ref());
        }
        let (code, o, e) = convert(&args);
        assert_eq!(code, if extra.is_some() { 6 } else { 5 }, "{o}\n{e}");
        let rep = json(&rj);
        let s = &rep["inputs"][0]["shared_objects"][0];
        assert_eq!(s["outcome"], "not_loadable");
        let p = s["problems"][0].as_str().unwrap();
        assert!(p.contains("links the CUDA runtime statically"), "{p}");
        assert!(
            p.contains("without a .symtab naming the runtime's entry points"),
            "{p}"
        );
        assert!(o.contains("links the CUDA runtime statically"), "{o}");
        assert!(s["kernels"]
            .as_array()
            .unwrap()
            .iter()
            .all(|k| k["translated"] == false));
        assert!(!outd.join(so.file_name().unwrap()).exists(), "not written");
    }
    // inspect names it too.
    let (_, out, _) = run(Command::new(bin()).arg("inspect").arg(&so));
    assert!(out.contains("CUDA runtime: static"), "{out}");
}

#[test]
fn rdc_kernels_are_counted_as_cuobjdump_counts() {
    const T: &str = "rdc_kernels_are_counted_as_cuobjdump_counts";
    let Some(cuobjdump) = require_tool("cuobjdump", T) else {
        return;
    };
    let so = root().join("fixtures/cuda/rdc.so");
    let (c, syms, e) = run(Command::new(&cuobjdump).arg("-symbols").arg(&so));
    assert_eq!(c, 0, "{e}");
    let mut want: Vec<String> = syms
        .lines()
        .filter(|l| l.contains(" ENTRY "))
        .filter_map(|l| l.split_whitespace().last().map(str::to_string))
        .collect();
    want.sort();
    let (c, out, e) = run(Command::new(bin())
        .args(["inspect", "--json", "--kernels"])
        .arg(&so));
    assert_eq!(c, 0, "{e}");
    let r: serde_json::Value = serde_json::from_str(&out).unwrap();
    let mut got: Vec<String> = r["inputs"][0]["shared_objects"][0]["kernels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k["name"].as_str().unwrap().to_string())
        .collect();
    got.sort();
    assert_eq!(
        got, want,
        "one kernel per ENTRY of the device-linked module"
    );
    // Convert builds nothing from the relocatable copies: no kernel is translated, every one
    // says why (`--sass skip`: the device-linked module's SASS is not lifted here).
    let d = tempfile::tempdir().unwrap();
    let rj = d.path().join("r.json");
    let (code, o, e) = convert(&[
        so.as_os_str(),
        "--target".as_ref(),
        "dtk".as_ref(),
        "--sass".as_ref(),
        "skip".as_ref(),
        "-o".as_ref(),
        d.path().join("o").as_os_str(),
        "--json".as_ref(),
        rj.as_os_str(),
    ]);
    assert_eq!(code, 5, "{o}{e}");
    let rep = json(&rj);
    for k in rep["inputs"][0]["shared_objects"][0]["kernels"]
        .as_array()
        .unwrap()
    {
        assert_eq!(k["translated"], false);
        assert!(
            k["reason"]
                .as_str()
                .unwrap()
                .contains("relocatable -rdc copies"),
            "{k}"
        );
    }
    assert_eq!(rep["totals"]["kernels"], want.len());
}

#[test]
fn loose_cubins_are_inspected_and_refused() {
    const T: &str = "loose_cubins_are_inspected_and_refused";
    let (Some(ptxas), Some(cuobjdump)) = (require_tool("ptxas", T), require_tool("cuobjdump", T))
    else {
        return;
    };
    let d = tempfile::tempdir().unwrap();
    let dir = d.path().join("cubins");
    std::fs::create_dir_all(&dir).unwrap();
    let mut expect: Vec<(String, String, Vec<String>)> = Vec::new();
    for arch in ["sm_80", "sm_90a"] {
        let ptx = format!(
            ".version 8.7\n.target {arch}\n.address_size 64\n.visible .entry k_{arch}_a(.param .u64 p) {{ ret; }}\n.visible .entry k_{arch}_b(.param .u32 n) {{ ret; }}\n"
        );
        let p = dir.join(format!("{arch}.ptx"));
        std::fs::write(&p, ptx).unwrap();
        let cubin = dir.join(format!("k_{arch}.cubin"));
        let (c, _, e) = run(Command::new(&ptxas)
            .arg(format!("-arch={arch}"))
            .arg(&p)
            .arg("-o")
            .arg(&cubin));
        assert_eq!(c, 0, "{e}");
        std::fs::remove_file(&p).unwrap();
        // The oracle: cuobjdump's arch and ENTRY symbols.
        let (_, l, _) = run(Command::new(&cuobjdump).arg("-lelf").arg(&cubin));
        let arch_seen = l.trim().rsplit('.').nth(1).unwrap().to_string();
        let (_, s, _) = run(Command::new(&cuobjdump).arg("-symbols").arg(&cubin));
        let mut ks: Vec<String> = s
            .lines()
            .filter(|l| l.contains(" ENTRY "))
            .filter_map(|l| l.split_whitespace().last().map(str::to_string))
            .collect();
        ks.sort();
        expect.push((
            cubin.file_name().unwrap().to_string_lossy().into(),
            arch_seen,
            ks,
        ));
    }
    // inspect DIR lists them.
    let (c, out, e) = run(Command::new(bin())
        .args(["inspect", "--json", "--kernels"])
        .arg(&dir));
    assert_eq!(c, 0, "{e}");
    let r: serde_json::Value = serde_json::from_str(&out).unwrap();
    let inputs = r["inputs"].as_array().unwrap();
    assert_eq!(inputs.len(), 2);
    for (i, (file, arch, ks)) in inputs.iter().zip(&expect) {
        assert!(i["path"].as_str().unwrap().ends_with(file.as_str()));
        let s = &i["shared_objects"][0];
        assert_eq!(&s["cubin_arch"], arch.as_str());
        let mut got: Vec<String> = s["kernels"]
            .as_array()
            .unwrap()
            .iter()
            .map(|k| k["name"].as_str().unwrap().to_string())
            .collect();
        got.sort();
        assert_eq!(&got, ks);
        assert_eq!(s["verdict"]["kernels_sass_only"], ks.len());
    }
    assert_eq!(r["verdict"]["kernels_sass_only"], 4);

    // In a wheel: the wheel's verdict counts them; convert refuses them as SASS-only.
    let whl = d.path().join("cub-1.0-py3-none-any.whl");
    let py = r#"
import base64, hashlib, os, sys, zipfile
d, out = sys.argv[1], sys.argv[2]
files = {f"cub/data/{n}": open(os.path.join(d, n), "rb").read() for n in sorted(os.listdir(d))}
files["cub-1.0.dist-info/METADATA"] = b"Metadata-Version: 2.1\nName: cub\nVersion: 1.0\n"
files["cub-1.0.dist-info/WHEEL"] = b"Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
rec = []
with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
    for n, b in files.items():
        z.writestr(n, b)
        h = base64.urlsafe_b64encode(hashlib.sha256(b).digest()).rstrip(b"=").decode()
        rec.append(f"{n},sha256={h},{len(b)}")
    rec.append("cub-1.0.dist-info/RECORD,,")
    z.writestr("cub-1.0.dist-info/RECORD", "\n".join(rec) + "\n")
"#;
    let (c, _, e) = run(Command::new("python3").args(["-c", py]).arg(&dir).arg(&whl));
    assert_eq!(c, 0, "{e}");
    let (c, out, _) = run(Command::new(bin()).arg("inspect").arg(&whl));
    assert_eq!(c, 0);
    assert!(out.contains("0 kernels with PTX, 4 SASS-only"), "{out}");
    let (code, o, e) = convert(&[
        whl.as_os_str(),
        "--target".as_ref(),
        "dtk".as_ref(),
        "-o".as_ref(),
        d.path().join("o").as_os_str(),
    ]);
    assert_eq!(code, 5, "{o}{e}");
    assert!(o.contains("a loose cubin"), "{o}");
    let _: PathBuf = whl;
}

/// An object that uses the CUDA driver API directly (`cuInit`, `cuModuleLoadData` of a PTX
/// string kept in `.rodata`, `cuModuleGetFunction`; built with gcc against a stub
/// `libcuda.so.1`, whose exports are unversioned as the driver's are) is never converted with
/// exit 0 for dtk or rocm: each driver import is named unresolved with its reason and the
/// object is not loadable (exit 5), and the PTX it keeps as data is reported as a
/// runtime-loaded module whose kernel is not translated; the cuda twin keeps it as it is
/// (exit 0). Every function
/// of CUDA 13.5's `cuda.h` is attributed to the driver by `relink-tables/cuda-stack.tsv`.
#[test]
fn driver_api_users_are_not_converted_silently() {
    const T: &str = "no_false_success driver api";
    if common::require_tool("gcc", T).is_none() {
        return;
    }
    let d = tempfile::tempdir().unwrap();
    let d = d.path();
    let rt = common::stub_runtime(
        d,
        "libcuda.so.1",
        "int cuInit(unsigned f) { return 0; }\n\
         int cuModuleLoadData(void **m, const void *i) { return 0; }\n\
         int cuModuleGetFunction(void **f, void *m, const char *n) { return 0; }\n",
    );
    std::fs::write(
        d.join("user.c"),
        "static const char ptx[] = \".version 8.0\\n.target sm_80\\n.address_size 64\\n\
         .visible .entry k() { ret; }\\n\";\n\
         int cuInit(unsigned); int cuModuleLoadData(void **, const void *);\n\
         int cuModuleGetFunction(void **, void *, const char *);\n\
         int run(void) { void *m, *f; cuInit(0); if (cuModuleLoadData(&m, ptx)) return 1;\n\
         return cuModuleGetFunction(&f, m, \"k\"); }\n",
    )
    .unwrap();
    let (code, _, e) = run(Command::new("gcc")
        .args(["-shared", "-fPIC", "-o", "libuser.so", "user.c", "-L"])
        .arg(&rt)
        .arg("-l:libcuda.so.1")
        .current_dir(d));
    assert_eq!(code, 0, "{e}");
    for (target, want) in [("dtk", 5), ("rocm", 5), ("cuda", 0)] {
        if common::require_toolchain(target, T).is_none() {
            return;
        }
        let (code, out, err, report) = convert_user(d, target);
        assert_eq!(code, want, "{target}: {out}{err}");
        if want == 0 {
            continue;
        }
        let r = json(&report);
        assert_eq!(r["totals"]["unresolved_imports"], 3, "{target}: {r}");
        // The PTX it keeps in .rodata is found and counted as not translated.
        assert_eq!(r["totals"]["not_translated"], 1, "{target}: {r}");
        assert!(
            out.contains("runtime-loaded module: PTX for sm_80 kept as data in .rodata at offset")
                && out.contains("1 kernels (k): not translated"),
            "{target}: {out}"
        );
        for name in ["cuInit", "cuModuleLoadData", "cuModuleGetFunction"] {
            assert!(
                out.contains(&format!(
                    "unresolved import {name}: CUDA driver API (libcuda.so.1)"
                )),
                "{target}: {name}: {out}"
            );
        }
    }
    // Every driver function cuda.h declares is attributed to libcuda.
    let Some(cuobjdump) = common::require_tool("cuobjdump", T) else {
        return;
    };
    let h = cuobjdump.parent().unwrap().join("../include/cuda.h");
    let text = std::fs::read_to_string(&h).unwrap_or_else(|e| panic!("{}: {e}", h.display()));
    let mut n = 0;
    for w in text.split("CUDAAPI ").skip(1) {
        let name: String = w
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        if !name.starts_with("cu") {
            continue;
        }
        n += 1;
        assert_eq!(
            wheelport::inspect::cuda_stack::unversioned_library(&name),
            Some(Some("libcuda.so")),
            "{name} (cuda.h) is not attributed to the driver"
        );
    }
    assert!(n > 400, "{n} driver functions in {}", h.display());
}

/// An object that loads a module at run time through the runtime API
/// (`cudaLibraryLoadData` of a PTX string kept in `.rodata`, `cudaLibraryGetKernel`; built with
/// gcc against a stub `libcudart.so.12` with the real library's version node) is never
/// converted with exit 0 for dtk or rocm: HIP's `hipLibraryLoadData` would be handed CUDA code.
/// The loader is named unresolved with its reason (exit 5); the rest of the runtime still maps.
#[test]
fn runtime_module_loaders_are_not_converted_silently() {
    const T: &str = "no_false_success runtime module";
    if common::require_tool("gcc", T).is_none() {
        return;
    }
    let d = tempfile::tempdir().unwrap();
    let d = d.path();
    std::fs::write(
        d.join("rt.map"),
        "libcudart.so.12 { global: cudaLibraryLoadData; cudaLibraryGetKernel; local: *; };\n",
    )
    .unwrap();
    std::fs::write(
        d.join("rt.c"),
        "int cudaLibraryLoadData(void **l, const void *c, void *jo, void *jv, unsigned n,\n\
         void *lo, void *lv, unsigned m) { return 0; }\n\
         int cudaLibraryGetKernel(void **k, void *l, const char *n) { return 0; }\n",
    )
    .unwrap();
    let (code, _, e) = run(Command::new("gcc")
        .args([
            "-shared",
            "-fPIC",
            "-Wl,--version-script=rt.map",
            "-Wl,-soname,libcudart.so.12",
            "-o",
            "libcudart.so.12",
            "rt.c",
        ])
        .current_dir(d));
    assert_eq!(code, 0, "{e}");
    std::fs::write(
        d.join("user.c"),
        "static const char ptx[] = \".version 8.0\\n.target sm_80\\n.address_size 64\\n\
         .visible .entry k() { ret; }\\n\";\n\
         int cudaLibraryLoadData(void **, const void *, void *, void *, unsigned, void *,\n\
         void *, unsigned); int cudaLibraryGetKernel(void **, void *, const char *);\n\
         int run(void) { void *l, *k; if (cudaLibraryLoadData(&l, ptx, 0, 0, 0, 0, 0, 0))\n\
         return 1; return cudaLibraryGetKernel(&k, l, \"k\"); }\n",
    )
    .unwrap();
    let (code, _, e) = run(Command::new("gcc")
        .args(["-shared", "-fPIC", "-o", "libuser.so", "user.c", "-L."])
        .arg("-l:libcudart.so.12")
        .current_dir(d));
    assert_eq!(code, 0, "{e}");
    for target in ["dtk", "rocm"] {
        if common::require_toolchain(target, T).is_none() {
            return;
        }
        let (code, out, err, report) = convert_user(d, target);
        assert_eq!(code, 5, "{target}: {out}{err}");
        let r = json(&report);
        assert_eq!(r["totals"]["unresolved_imports"], 1, "{target}: {r}");
        assert!(
            out.contains("unresolved import cudaLibraryLoadData@libcudart.so.12: loads a module handed over at run time"),
            "{target}: {out}"
        );
    }
}

/// An object importing a PyTorch CUDA C++ symbol the relink tables have no row for
/// (`c10::cuda::SetDevice(signed char, bool)`-like names are unversioned; here a made-up
/// `c10::cuda::not_in_any_table()` from a stub `libc10_cuda.so`) is not converted with exit 0
/// for dtk or rocm: once `libc10_cuda.so` becomes `libc10_hip.so` nothing provides it, so the
/// import is named unresolved (found by `relink-tables/cuda-stack.tsv`'s `c10::cuda::` rule).
#[test]
fn unmapped_torch_cuda_imports_are_not_converted_silently() {
    const T: &str = "no_false_success torch import";
    if common::require_tool("g++", T).is_none() {
        return;
    }
    let d = tempfile::tempdir().unwrap();
    let d = d.path();
    // A C++ stub under the library's soname.
    let rt = d.join("rt");
    std::fs::create_dir_all(&rt).unwrap();
    std::fs::write(
        rt.join("stub.cc"),
        "namespace c10 { namespace cuda { int not_in_any_table() { return 0; } } }\n",
    )
    .unwrap();
    let (code, _, e) = run(Command::new("g++")
        .args([
            "-shared",
            "-fPIC",
            "-Wl,-soname,libc10_cuda.so",
            "-o",
            "libc10_cuda.so",
            "stub.cc",
        ])
        .current_dir(&rt));
    assert_eq!(code, 0, "{e}");
    std::fs::write(
        d.join("user.cc"),
        "namespace c10 { namespace cuda { int not_in_any_table(); } }\n\
         extern \"C\" int run(void) { return c10::cuda::not_in_any_table(); }\n",
    )
    .unwrap();
    let (code, _, e) = run(Command::new("g++")
        .args(["-shared", "-fPIC", "-o", "libuser.so", "user.cc", "-L"])
        .arg(&rt)
        .arg("-l:libc10_cuda.so")
        .current_dir(d));
    assert_eq!(code, 0, "{e}");
    for target in ["dtk", "rocm"] {
        if common::require_toolchain(target, T).is_none() {
            return;
        }
        let (code, out, err, _) = convert_user(d, target);
        assert_eq!(code, 5, "{target}: {out}{err}");
        assert!(
            out.contains(
                "unresolved import _ZN3c104cuda16not_in_any_tableEv: no row in the relink table"
            ),
            "{target}: {out}"
        );
    }
}
