//! wheelport's shim library: C code for the CUDA entry points that a rename cannot serve
//! (`shims/hip/wheelport_shim.c`; its header says what is implemented). No target SDK is
//! needed: the shim is linked against a throw-away stub that carries the target runtime's
//! soname, so the result has the right DT_NEEDED and binds to the real runtime at load time.
//!
//! The shim ships prebuilt: `build.rs` compiles it for every runtime soname of the built-in
//! HIP targets ([`prebuilt`]: `libgalaxyhip.so.5`, `libamdhip64.so.6`, `libamdhip64.so.7`), so
//! converting needs no C compiler. Only a runtime soname without a prebuilt shim (a profile or
//! relink table given at run time) is compiled at conversion time with the host C compiler
//! ([`host_cc`]). Both use the same [`recipe`]: an x86-64 library whose glibc floor is 2.17.

pub mod driver;
pub mod recipe;
pub mod tables;

/// The shims `build.rs` prebuilt into this binary ([`prebuilt::SHIMS`]: runtime soname and
/// library bytes) and the compiler that built them ([`prebuilt::CC_VERSION`]).
pub mod prebuilt {
    include!(concat!(env!("OUT_DIR"), "/prebuilt_shims.rs"));
}

/// The prebuilt shim for `runtime_soname`, if this binary has one.
pub fn prebuilt_shim(runtime_soname: &str) -> Option<&'static [u8]> {
    prebuilt::SHIMS
        .iter()
        .find(|(s, _)| *s == runtime_soname)
        .map(|(_, b)| *b)
}

use crate::error::{Error, ErrorKind, Result};
use std::path::{Path, PathBuf};

/// The C source of the HIP shim.
pub const HIP_SHIM_C: &str = include_str!("../../shims/hip/wheelport_shim.c");

/// The device printf formatter the shim includes (`shims/hip/wp_printf.h`; record layout in
/// `kernels-ir/printf.py`).
pub const HIP_PRINTF_H: &str = include_str!("../../shims/hip/wp_printf.h");

/// The shim library's soname.
pub const SHIM_SONAME: &str = recipe::SONAME;

/// The symbols the HIP shim defines (the tables' shim/noop target names it implements), in
/// source order: every external function definition of `shims/hip/wheelport_shim.c` (written
/// out, or made by one of its `WP_*` macros, named by the macro's first argument) whose
/// name starts with `__wpcu`, `wpcu`, `wp13` (CUDA 13 forms) or `wpblas`, or is a mangled C++ name (`_Z...`) holding
/// `wpcu` (the torch rows) or is a torch stable-ABI C name holding `_wpcu_`, followed by the
/// code thunks of `shims/hip/tables/code_thunks.tsv`.
pub fn hip_shim_symbols() -> Vec<&'static str> {
    HIP_SHIM_C
        .lines()
        .filter(|l| {
            !l.starts_with([' ', '#', '/', '}'])
                && !l.starts_with("extern")
                && !l.starts_with("typedef")
                && !l.starts_with("static")
        })
        .filter_map(|l| {
            let open = l.find('(')?;
            let head = &l[..open];
            let start = head.rfind([' ', '*']).map_or(0, |i| i + 1);
            // A definition made by one of the source's macros (`WP_CHOOSE_DEVICE(wpcuChooseDevice,
            // ...)`): the name is the macro's first argument.
            let name = if head.starts_with("WP_")
                && head.bytes().all(|b| b.is_ascii_uppercase() || b == b'_')
            {
                l[open + 1..].split([',', ')']).next()?.trim()
            } else {
                &head[start..]
            };
            let c_name = ["__wpcu", "wpcu", "wp13", "wpblas"]
                .iter()
                .any(|p| name.starts_with(p));
            let mangled = name.starts_with("_Z") && name.contains("wpcu");
            // Unmangled torch stable-ABI C names (torch_c10_cuda_check_msg -> torch_c10_wpcu_...).
            let torch_c = name.starts_with("torch_") && name.contains("_wpcu_");
            (c_name || mangled || torch_c).then_some(name)
        })
        // The code thunks, defined in assembly from shims/hip/tables/code_thunks.tsv.
        .chain(tables::code_thunks().into_iter().map(|(shim, _)| shim))
        .collect()
}

/// The symbols the shim library of `target` defines: [`hip_shim_symbols`] for targets with
/// the HIP shim (DTK, ROCm), none for the others (MUSA has no shim library yet).
pub fn shim_symbols(target: &crate::relink::Target) -> Vec<&'static str> {
    if target.has_hip_shim() {
        hip_shim_symbols()
    } else {
        Vec::new()
    }
}

/// Build the HIP shim as `out_dir/libwheelport_shim.so`, depending on `runtime_soname`
/// (e.g. `libamdhip64.so.6`), with the C compiler `cc`, by the [`recipe`] `build.rs` uses.
///
/// # Errors
/// [`ErrorKind::Io`] when the compiler cannot be run or fails (its stderr is in the message).
pub fn build_hip_shim(cc: &Path, runtime_soname: &str, out_dir: &Path) -> Result<PathBuf> {
    let work = tempfile::tempdir().map_err(Error::temp_dir)?;
    let header = tables::c_header();
    let files = [
        (recipe::SOURCE, HIP_SHIM_C),
        (recipe::TABLES_HEADER, header.as_str()),
        (recipe::PRINTF_HEADER, HIP_PRINTF_H),
        (recipe::FLOOR_HEADER, recipe::GLIBC_FLOOR_H),
        (recipe::STUB_SOURCE, recipe::STUB_C),
    ];
    for (name, text) in files {
        let p = work.path().join(name);
        std::fs::write(&p, text).map_err(|e| Error::io(p.display().to_string(), e))?;
    }
    let out = std::path::absolute(out_dir.join(SHIM_SONAME))
        .map_err(|e| Error::io(out_dir.display().to_string(), e))?;
    let runs = recipe::compile_runs(runtime_soname, &out.display().to_string());
    run_compiler(cc, &runs, work.path(), "the shim")?;
    Ok(out)
}

/// Run the C compiler `cc` once per argument list of `runs`, in `dir`.
///
/// # Errors
/// [`ErrorKind::Io`] when `cc` cannot be run or fails: "building WHAT failed" with its stderr.
pub fn run_compiler(cc: &Path, runs: &[Vec<String>], dir: &Path, what: &str) -> Result<()> {
    for args in runs {
        let o = crate::toolchain::child_command(cc)
            .args(args)
            .current_dir(dir)
            .output()
            .map_err(|e| Error::io(cc.display().to_string(), e))?;
        if !o.status.success() {
            return Err(Error::new(
                ErrorKind::Io,
                cc.display().to_string(),
                format!(
                    "building {what} failed: {}",
                    String::from_utf8_lossy(&o.stderr)
                ),
            ));
        }
    }
    Ok(())
}

/// One line for `wheelport doctor` about `profile`'s shim library: prebuilt into this binary
/// (no C compiler needed), or compiled at conversion time with [`host_cc`] (and whether that
/// compiler is there); `None` for a profile without the HIP shim.
pub fn doctor_line(profile: &crate::target::Profile) -> Option<String> {
    if profile.shim != "hip" {
        return None;
    }
    let table = crate::relink::load_for(profile).ok()?;
    let rt = runtime_soname(&table).ok()?;
    if prebuilt_shim(&rt).is_some() {
        return Some(format!(
            "shim library: prebuilt for {rt} ({}; glibc >= {}.{}), no C compiler needed",
            prebuilt::CC_VERSION,
            recipe::GLIBC_FLOOR.0,
            recipe::GLIBC_FLOOR.1
        ));
    }
    let cc = host_cc();
    let found = crate::toolchain::child_command(&cc)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    Some(format!(
        "shim library: not prebuilt for {rt}; built at conversion time with {} ({})",
        cc.display(),
        if found {
            "found"
        } else {
            "MISSING: install gcc, or set CC"
        }
    ))
}

/// The C compiler used to build the shim: `$CC` when set, else `gcc` on `PATH`.
pub fn host_cc() -> PathBuf {
    std::env::var_os("CC")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("gcc"))
}

/// The runtime library the shim depends on for `table`'s target: the target soname of
/// `libcudart.so.12` (`libgalaxyhip.so.5` for DTK, `libamdhip64.so.6` for ROCm 6).
///
/// # Errors
/// [`ErrorKind::Input`] when the table has no rename row for `libcudart.so.12`.
pub fn runtime_soname(table: &crate::relink::Table) -> Result<String> {
    table
        .soname("libcudart.so.12")
        .filter(|r| r.kind == crate::relink::Kind::Rename)
        .and_then(|r| r.target_soname.clone())
        .ok_or_else(|| {
            Error::new(
                ErrorKind::Input,
                "relink table",
                format!(
                    "target {} has no runtime soname for libcudart.so.12",
                    table.target()
                ),
            )
        })
}

/// The shim library for `table`'s target, as `(soname, file bytes)`, for the convert pipeline
/// to ship in the wheel's `<dist>.libs/` folder (see [`libs_dir`] and [`origin_runpath`]).
///
/// The [`prebuilt_shim`] for the table's runtime soname when there is one; else built once
/// per runtime soname and process with [`host_cc`] (see [`build_hip_shim`]), and later calls
/// return the cached bytes. Only HIP targets (DTK, ROCm) have a shim.
///
/// # Errors
/// [`ErrorKind::Input`] for a target without the HIP shim (MUSA) or a table without a runtime soname;
/// [`ErrorKind::Io`] when the compiler fails.
pub fn shim_for_table(table: &crate::relink::Table) -> Result<(String, Vec<u8>)> {
    use std::collections::HashMap;
    use std::sync::{Mutex, OnceLock};
    static CACHE: OnceLock<Mutex<HashMap<String, Vec<u8>>>> = OnceLock::new();
    if !table.target().has_hip_shim() {
        return Err(Error::new(
            ErrorKind::Input,
            "shim",
            format!(
                "no shim library for target {} yet (its shim rows stay unresolved)",
                table.target()
            ),
        ));
    }
    let rt = runtime_soname(table)?;
    if let Some(b) = prebuilt_shim(&rt) {
        return Ok((SHIM_SONAME.to_string(), b.to_vec()));
    }
    let cache = CACHE.get_or_init(|| Mutex::new(HashMap::new()));
    if let Some(b) = cache.lock().map_err(|_| poisoned())?.get(&rt) {
        return Ok((SHIM_SONAME.to_string(), b.clone()));
    }
    let dir = tempfile::tempdir().map_err(Error::temp_dir)?;
    let path = build_hip_shim(&host_cc(), &rt, dir.path())?;
    let bytes = std::fs::read(&path).map_err(|e| Error::io(path.display().to_string(), e))?;
    cache
        .lock()
        .map_err(|_| poisoned())?
        .insert(rt, bytes.clone());
    Ok((SHIM_SONAME.to_string(), bytes))
}

fn poisoned() -> Error {
    Error::new(ErrorKind::Io, "shim", "shim cache lock poisoned")
}

/// The folder, at the root of the wheel, that holds shipped libraries for distribution
/// `dist` (`xformers` → `xformers.libs`), as auditwheel names it (`<dist>.libs/`).
pub fn libs_dir(dist: &str) -> String {
    format!("{dist}.libs")
}

/// The `$ORIGIN`-relative DT_RUNPATH entry that finds `libs_dir` (a folder at the root of
/// the installed wheel, e.g. `xformers.libs`) from a `.so` at `so_path` (its path inside the
/// wheel, `/`-separated, e.g. `xformers/_C.so` → `$ORIGIN/../xformers.libs`).
///
/// A path under `<name>.data/purelib/` or `<name>.data/platlib/` is taken where it is
/// installed (the site-packages root), as the wheel spec's install scheme puts it. An empty
/// `libs_dir` names the root itself: for a bare object (`so_path` a file name) that is
/// `$ORIGIN`, the folder the shim is written to beside it.
pub fn origin_runpath(so_path: &str, libs_dir: &str) -> String {
    let mut parts: Vec<&str> = so_path.split('/').filter(|p| !p.is_empty()).collect();
    if parts.len() > 2
        && parts[0].ends_with(".data")
        && (parts[1] == "purelib" || parts[1] == "platlib")
    {
        parts.drain(..2);
    }
    let depth = parts.len().saturating_sub(1);
    let mut s = String::from("$ORIGIN");
    for _ in 0..depth {
        s.push_str("/..");
    }
    let libs = libs_dir.trim_matches('/');
    if !libs.is_empty() {
        s.push('/');
        s.push_str(libs);
    }
    s
}
