//! The HIP shims `build.rs` prebuilds into the binary (`wheelport::shim::prebuilt`), checked
//! with binutils' `readelf` and `nm` and executed: one for every runtime soname of the
//! built-in HIP targets; x86-64, soname `libwheelport_shim.so`, DT_NEEDED on the runtime and
//! `libdl.so.2`; no glibc version newer than 2.17 required; exports exactly the symbols the
//! relink tables send to the shim and the same as the shim the conversion-time fallback
//! compiles with gcc; loaded with `LD_BIND_NOW` against a stub runtime, `dlsym` (bound to its
//! GLIBC_2.2.5 version) finds driver entry points.

mod common;

use common::*;
use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;
use wheelport::shim::{prebuilt, prebuilt_shim, recipe, SHIM_SONAME};

/// The runtime sonames of the built-in HIP targets (dtk, rocm for each SDK row).
fn hip_runtime_sonames() -> BTreeSet<String> {
    let mut v = BTreeSet::new();
    for p in wheelport::target::builtin() {
        if p.shim != "hip" {
            continue;
        }
        let t = wheelport::relink::load_for(p).unwrap();
        v.insert(wheelport::shim::runtime_soname(&t).unwrap());
    }
    v
}

fn readelf(args: &[&str], file: &Path) -> String {
    let (code, out, err) = run(Command::new("readelf").args(args).arg(file));
    assert_eq!(code, 0, "readelf {args:?}: {err}");
    out
}

/// `nm -D --defined-only` names (without versions).
fn exports(file: &Path) -> BTreeSet<String> {
    let (code, out, err) = run(Command::new("nm").args(["-D", "--defined-only"]).arg(file));
    assert_eq!(code, 0, "{err}");
    out.lines()
        .filter_map(|l| l.split_whitespace().nth(2))
        .map(|s| s.split('@').next().unwrap().to_string())
        .collect()
}

fn needed(file: &Path) -> Vec<String> {
    readelf(&["-d"], file)
        .lines()
        .filter(|l| l.contains("(NEEDED)"))
        .filter_map(|l| Some(l.split('[').nth(1)?.trim_end_matches(']').to_string()))
        .collect()
}

#[test]
fn every_hip_runtime_has_a_prebuilt_shim() {
    let want = hip_runtime_sonames();
    assert!(want.contains("libgalaxyhip.so.5"), "{want:?}");
    assert!(want.contains("libamdhip64.so.6"), "{want:?}");
    let have: BTreeSet<String> = prebuilt::SHIMS.iter().map(|(s, _)| s.to_string()).collect();
    assert!(
        want.is_subset(&have),
        "build.rs embedded {have:?}, the HIP targets need {want:?} (no C compiler at build time?)"
    );
    assert!(!prebuilt::CC_VERSION.is_empty());
}

#[test]
fn prebuilt_shims_are_x86_64_libraries_with_a_glibc_2_17_floor() {
    if require_tool("readelf", "shim_prebuilt").is_none()
        || require_tool("nm", "shim_prebuilt").is_none()
    {
        return;
    }
    let t = tempfile::tempdir().unwrap();
    let symbols: BTreeSet<String> = wheelport::shim::hip_shim_symbols()
        .into_iter()
        .map(String::from)
        .collect();
    for (soname, bytes) in prebuilt::SHIMS {
        let f = t.path().join(format!("{soname}.so"));
        std::fs::write(&f, bytes).unwrap();
        let h = readelf(&["-h"], &f);
        assert!(h.contains("Advanced Micro Devices X86-64"), "{soname}: {h}");
        let d = readelf(&["-d"], &f);
        assert!(
            d.contains(&format!("Library soname: [{SHIM_SONAME}]")),
            "{d}"
        );
        let n = needed(&f);
        assert_eq!(n[0], *soname, "{soname}: {n:?}");
        assert!(n.iter().any(|x| x == "libdl.so.2"), "{soname}: {n:?}");
        assert!(n.iter().any(|x| x == "libc.so.6"), "{soname}: {n:?}");
        // Every glibc version the shim needs (readelf's version-needs section).
        let v = readelf(&["-V"], &f);
        let glibc: Vec<(u32, u32)> = v
            .split_whitespace()
            .filter_map(|w| w.strip_prefix("GLIBC_"))
            .map(|x| {
                let x = x.trim_end_matches(')');
                let mut it = x.split('.').map(|p| p.parse::<u32>().unwrap());
                (it.next().unwrap(), it.next().unwrap())
            })
            .collect();
        assert!(!glibc.is_empty(), "{v}");
        let max = glibc.iter().max().unwrap();
        assert!(
            *max <= recipe::GLIBC_FLOOR,
            "{soname} needs GLIBC_{}.{}: {v}",
            max.0,
            max.1
        );
        // No path of the build machine inside.
        let root = env!("CARGO_MANIFEST_DIR").as_bytes();
        assert!(!bytes.windows(root.len()).any(|w| w == root), "{soname}");
        let ex = exports(&f);
        assert_eq!(
            ex, symbols,
            "{soname}: exports differ from the shim source's"
        );
    }
}

#[test]
fn the_conversion_time_fallback_builds_the_same_library() {
    let Some(gcc) = require_tool("gcc", "shim_prebuilt") else {
        return;
    };
    if require_tool("nm", "shim_prebuilt").is_none() {
        return;
    }
    let t = tempfile::tempdir().unwrap();
    let built = wheelport::shim::build_hip_shim(&gcc, "libgalaxyhip.so.5", t.path()).unwrap();
    let pre = t.path().join("prebuilt.so");
    std::fs::write(&pre, prebuilt_shim("libgalaxyhip.so.5").unwrap()).unwrap();
    assert_eq!(exports(&built), exports(&pre));
    assert_eq!(needed(&built), needed(&pre));
    assert_eq!(
        readelf(&["-V"], &built).contains("GLIBC_2.34"),
        readelf(&["-V"], &pre).contains("GLIBC_2.34")
    );
    assert!(!readelf(&["-V"], &built).contains("GLIBC_2.34"));
}

/// A stub runtime for `shim`: every symbol the shim imports without a glibc version (`nm -D
/// --undefined-only`: the HIP functions) as an empty function, and `hipMalloc`.
fn stub_for(shim: &Path) -> String {
    let (code, out, err) = run(Command::new("nm")
        .args(["-D", "--undefined-only"])
        .arg(shim));
    assert_eq!(code, 0, "{err}");
    let mut c = String::from(
        "int hipMalloc(void **p, unsigned long n) { *p = (void *)0x1000; return (int)n; }\n",
    );
    for name in out.lines().filter_map(|l| l.split_whitespace().nth(1)) {
        if !name.contains('@') && name != "hipMalloc" && !name.starts_with("__gmon") {
            c.push_str(&format!("void {name}(void) {{}}\n"));
        }
    }
    c
}

const LOAD: &str = r#"
import ctypes, json, sys
rt = ctypes.CDLL(sys.argv[1], mode=ctypes.RTLD_GLOBAL)
shim = ctypes.CDLL(sys.argv[2])
fp = ctypes.c_void_p(); status = ctypes.c_int(-1)
r = shim.wpcuGetDriverEntryPoint(b"cuMemAlloc", ctypes.byref(fp), ctypes.c_ulonglong(0), ctypes.byref(status))
same = fp.value == ctypes.cast(rt.hipMalloc, ctypes.c_void_p).value
print(json.dumps([r, status.value, same]))
"#;

#[test]
fn prebuilt_shim_loads_and_resolves_driver_entry_points() {
    if require_tool("gcc", "shim_prebuilt").is_none()
        || require_tool("python3", "shim_prebuilt").is_none()
    {
        return;
    }
    let t = tempfile::tempdir().unwrap();
    for soname in ["libgalaxyhip.so.5", "libamdhip64.so.6"] {
        let dir = t.path().join(soname);
        std::fs::create_dir_all(&dir).unwrap();
        let probe = dir.join("probe.so");
        std::fs::write(&probe, prebuilt_shim(soname).unwrap()).unwrap();
        let rt = stub_runtime(&dir, soname, &stub_for(&probe));
        let shim = rt.join(SHIM_SONAME);
        std::fs::rename(&probe, &shim).unwrap();
        let (code, out, err) = python_bind_now(LOAD, &[&rt.join(soname), &shim], &rt);
        assert_eq!(code, 0, "{soname}: {err}");
        let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
        assert_eq!(v, serde_json::json!([0, 0, true]), "{soname}: {out}");
    }
}

#[test]
fn doctor_says_the_shim_is_prebuilt() {
    let (_, out, err) = run(Command::new(bin()).args(["doctor", "--target", "dtk"]));
    assert!(
        out.contains("shim library: prebuilt for libgalaxyhip.so.5 (")
            && out.contains("glibc >= 2.17), no C compiler needed"),
        "{out}{err}"
    );
    let (_, out, _) = run(Command::new(bin()).args(["doctor", "--target", "cuda"]));
    assert!(!out.contains("shim library"), "{out}");
}
