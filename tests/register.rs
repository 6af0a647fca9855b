//! Registration: the fixture's `__fatBinC_Wrapper_t` re-pointed at an offload bundle in a new
//! `.hip_fatbin` section, checked by independent readers (readelf, objdump,
//! clang-offload-bundler 14) and at load time: a stub `libamdhip64.so.6` whose
//! `__hipRegisterFatBinary` checks the wrapper (HIPF, version 1), the bundle magic and that
//! the code object is 4096-aligned in memory, when the module constructor runs.

mod common;

use common::*;
use std::collections::BTreeMap;
use std::process::Command;
use wheelport::relink::{load_builtin, plan};
use wheelport::rewrite::{rewrite, rewrite_host, Registration, ShimPlacement};

/// HIP functions the shim library imports (shims/hip/wheelport_shim.c), provided by the stub.
const HIP_CALLED_BY_SHIM: &[&str] = &[
    "hipLaunchKernel",
    "hipLaunchKernel_spt",
    "hipGetDevicePropertiesR0600",
    "hipDeviceGetAttribute",
    "hipGetErrorString",
    "hipGetErrorName",
    "hipGetLastError",
    "hipPeekAtLastError",
    "__hipUnregisterFatBinary",
    "__hipRegisterFunction",
    "__hipRegisterVar",
];

const STUB_REGISTER: &str = r#"
#include <string.h>
struct W { unsigned magic, version; const char *bin; void *dummy; };
static int ok = 0;
void **__hipRegisterFatBinary(const struct W *w) {
    if (w->magic == 0x48495046u && w->version == 1 && memcmp(w->bin, "__CLANG_OFFLOAD_BUNDLE__", 24) == 0) {
        unsigned long n = *(const unsigned long *)(w->bin + 24);
        const char *p = w->bin + 32;
        for (unsigned long i = 0; i < n; i++) {
            unsigned long off = *(const unsigned long *)p, size = *(const unsigned long *)(p + 8);
            unsigned long idl = *(const unsigned long *)(p + 16);
            if (size && memcmp(w->bin + off, "\x7f" "ELF", 4) == 0 && ((unsigned long)(w->bin + off)) % 4096 == 0) ok++;
            p += 24 + idl;
        }
    }
    return (void **)&ok;
}
int stub_registrations_ok(void) { return ok; }
"#;

#[test]
fn wrapper_points_at_a_hip_bundle() {
    let (Some(readelf), Some(bundler)) = (
        require_tool("readelf", "register"),
        llvm_tool("clang-offload-bundler"),
    ) else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let Some(co) = amdgpu_code_object(dir, "gfx906") else {
        return;
    };
    let data = std::fs::read(root().join("fixtures/cuda/sass_ptx.so")).unwrap();
    let so = wheelport::elf::scan(&data, "sass_ptx.so").unwrap();
    // The one wrapper (v1) registers container 1; the device-link container has none.
    assert_eq!(so.wrappers.len(), 1);
    let w = &so.wrappers[0];
    let table = load_builtin("rocm").unwrap();
    let mut p = plan(&table, &so);
    // The registration entry points go through the shim, which registers HIPF wrappers with
    // HIP's own ABI (reference §3.1) and skips SASS-only modules.
    for (c, h) in [
        ("__cudaRegisterFatBinary", "__wpcuRegisterFatBinary"),
        ("__cudaRegisterFunction", "__wpcuRegisterFunction"),
        ("__cudaUnregisterFatBinary", "__wpcuUnregisterFatBinary"),
    ] {
        assert_eq!(p.edits.renames.get(c).map(String::as_str), Some(h), "{c}");
    }
    let defined = wheelport::shim::hip_shim_symbols();
    let bundle = wheelport::bundle::write_hip(&[("gfx906", &co)]);
    p.edits.registrations = vec![Registration {
        wrapper_address: w.address,
        magic: wheelport::rewrite::HIP_WRAPPER_MAGIC,
        bundle: bundle.clone(),
    }];
    let (out, summary) = rewrite(&data, &p.edits, "sass_ptx.so").unwrap();
    assert_eq!(summary.registrations, 1);
    let new = dir.join("sass_ptx_hip.so");
    std::fs::write(&new, &out).unwrap();

    // readelf: .hip_fatbin is allocated, 4096-aligned, in a read-only PT_LOAD.
    let (_, sects, warn) = run(Command::new(&readelf).args(["-S", "-W", "-l"]).arg(&new));
    assert!(warn.trim().is_empty(), "{warn}");
    let line = sects
        .lines()
        .find(|l| l.contains(".hip_fatbin"))
        .unwrap()
        .to_string();
    let c: Vec<&str> = line.split_once(']').unwrap().1.split_whitespace().collect();
    let (addr, off) = (
        u64::from_str_radix(c[2], 16).unwrap(),
        u64::from_str_radix(c[3], 16).unwrap(),
    );
    assert_eq!((c[6], c[9]), ("A", "4096"), "{line}");
    assert_eq!(addr % 4096, 0);
    let seg = sects
        .lines()
        .rev()
        .find(|l| l.trim_start().starts_with("LOAD"))
        .unwrap();
    assert!(
        seg.contains(" R ") && !seg.contains("RW") && !seg.contains("R E"),
        "{seg}"
    );
    // The relocation at wrapper+8 carries the bundle's address.
    let (_, relocs, _) = run(Command::new(&readelf).args(["-r", "-W"]).arg(&new));
    let r = relocs
        .lines()
        .find(|l| {
            l.trim_start()
                .starts_with(&format!("{:016x}", w.address + 8))
        })
        .unwrap_or_else(|| panic!("no relocation at {:#x}:\n{relocs}", w.address + 8));
    assert!(
        r.contains("R_X86_64_RELATIVE") && r.trim_end().ends_with(&format!("{addr:x}")),
        "{r}"
    );
    // The wrapper bytes: "FPIH" 1.
    let (_, hexdump, _) = run(Command::new("objdump")
        .args(["-s", "-j", ".nvFatBinSegment"])
        .arg(&new));
    assert!(hexdump.contains("46504948 01000000"), "{hexdump}");
    // The bundle in the file is what clang-offload-bundler reads.
    std::fs::write(
        dir.join("x.hipfb"),
        &out[off as usize..off as usize + bundle.len()],
    )
    .unwrap();
    let (code, list, e) = run(Command::new(&bundler)
        .args(["-list", "-type=o", "-inputs=x.hipfb"])
        .current_dir(dir));
    assert_eq!(code, 0, "{e}");
    assert!(list.contains("hipv4-amdgcn-amd-amdhsa--gfx906"), "{list}");

    // Load time: the one-call host rewrite (rewrite_host) with the real shim library shipped
    // in `<dist>.libs/`; the constructor registers the wrapper through the shim with the stub
    // runtime. Without device code the module is skipped: it loads and registers nothing.
    let (shim_name, shim) = wheelport::shim::shim_for_table(&table).unwrap();
    let profile = wheelport::target::profile("rocm").unwrap();
    let placement = ShimPlacement {
        so_path: "pkg/sass_ptx.so".into(),
        libs_dir: "pkg.libs".into(),
    };
    for (label, device) in [
        (
            "with device code",
            BTreeMap::from([(w.address, bundle.clone())]),
        ),
        ("without", BTreeMap::new()),
    ] {
        let r = rewrite_host(
            &wheelport::analyze::analyze(&data, "sass_ptx.so", "sass_ptx.so", &Default::default())
                .unwrap(),
            profile,
            &table,
            &device,
            Some(&placement),
            None,
        )
        .unwrap();
        let wheel = dir.join(format!("wheel-{}", device.len()));
        std::fs::create_dir_all(wheel.join("pkg")).unwrap();
        std::fs::create_dir_all(wheel.join("pkg.libs")).unwrap();
        std::fs::write(wheel.join("pkg/sass_ptx.so"), &r.bytes).unwrap();
        std::fs::write(wheel.join("pkg.libs").join(&shim_name), &shim).unwrap();
        let (_, dynamic, _) = run(Command::new(&readelf)
            .arg("-d")
            .arg(wheel.join("pkg/sass_ptx.so")));
        assert!(
            dynamic.contains("Shared library: [libwheelport_shim.so]"),
            "{dynamic}"
        );
        assert!(dynamic.contains("[$ORIGIN/../pkg.libs]"), "{dynamic}");
        assert_eq!(
            r.report.needed_added,
            vec!["libwheelport_shim.so".to_string()]
        );
        assert!(r
            .report
            .shimmed
            .contains(&"__wpcuRegisterFatBinary".to_string()));
        // The kernels of the module (cubin STO_CUDA_ENTRY symbols of kernels.cu).
        let kernels = if device.is_empty() {
            assert_eq!(r.report.registered, vec![]);
            assert_eq!(r.report.skipped.len(), 1);
            assert!(
                r.report.skipped[0]
                    .reason
                    .contains("PTX was not translated"),
                "{:?}",
                r.report.skipped
            );
            r.report.skipped[0].kernels.clone()
        } else {
            assert_eq!(r.report.registered.len(), 1);
            r.report.registered[0].kernels.clone()
        };
        assert!(kernels.iter().any(|k| k.contains("saxpy")), "{kernels:?}");
        let mut names: Vec<String> = r
            .report
            .renamed
            .iter()
            .map(|(_, t)| t.clone())
            .filter(|n| !defined.contains(&n.as_str()))
            .collect();
        names.extend(HIP_CALLED_BY_SHIM.iter().map(|s| s.to_string()));
        names.retain(|n| n != "__hipRegisterFatBinary");
        names.sort();
        names.dedup();
        let mut c_src: String = names
            .iter()
            .map(|n| format!("long {n}(void) {{ return 0; }}\n"))
            .collect();
        c_src.push_str(STUB_REGISTER);
        let rt = stub_runtime(&wheel, "libamdhip64.so.6", &c_src);
        let (code, outp, e) = python_bind_now(
            "import ctypes, sys\nctypes.CDLL(sys.argv[1])\nprint(ctypes.CDLL('libamdhip64.so.6').stub_registrations_ok())",
            &[&wheel.join("pkg/sass_ptx.so")],
            &rt,
        );
        assert_eq!(code, 0, "{label}: {e}");
        let want = if device.is_empty() { "0" } else { "1" };
        assert_eq!(
            outp.trim(),
            want,
            "{label}: registrations seen by the runtime"
        );
    }
}
