//! wheelport's shim library: C code for the CUDA entry points that a rename cannot serve
//! (`shims/hip/wheelport_shim.c`; its header says what is implemented), built with the host
//! C compiler at conversion time. No target SDK is needed: the shim is linked against a
//! throw-away stub that carries the target runtime's soname, so the result has the right
//! DT_NEEDED and binds to the real runtime at load time.

use crate::error::{Error, ErrorKind, Result};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The C source of the HIP shim.
pub const HIP_SHIM_C: &str = include_str!("../../shims/hip/wheelport_shim.c");

/// The shim library's soname.
pub const SHIM_SONAME: &str = "libwheelport_shim.so";

/// The symbols the HIP shim defines (the tables' shim/noop target names it implements).
pub fn hip_shim_symbols() -> Vec<&'static str> {
    HIP_SHIM_C
        .lines()
        .filter(|l| {
            !l.starts_with(' ')
                && !l.starts_with("extern")
                && !l.starts_with("typedef")
                && l.contains("__wpcu")
        })
        .filter_map(|l| {
            let start = l.find("__wpcu")?;
            let rest = &l[start..];
            Some(&rest[..rest.find('(')?])
        })
        .collect()
}

/// Build the HIP shim as `out_dir/libwheelport_shim.so`, depending on `runtime_soname`
/// (e.g. `libamdhip64.so.6`), with the C compiler `cc`.
///
/// # Errors
/// [`ErrorKind::Io`] when the compiler cannot be run or fails (its stderr is in the message).
pub fn build_hip_shim(cc: &Path, runtime_soname: &str, out_dir: &Path) -> Result<PathBuf> {
    let work = tempfile::tempdir().map_err(|e| Error::io("shim build", e))?;
    let src = work.path().join("wheelport_shim.c");
    std::fs::write(&src, HIP_SHIM_C).map_err(|e| Error::io(src.display().to_string(), e))?;
    let stub_c = work.path().join("runtime_stub.c");
    std::fs::write(
        &stub_c,
        "int hipLaunchKernel(void) { return 0; }\nint hipLaunchKernel_spt(void) { return 0; }\n",
    )
    .map_err(|e| Error::io(stub_c.display().to_string(), e))?;
    let stub = work.path().join(runtime_soname);
    let out = out_dir.join(SHIM_SONAME);
    let runs: [Vec<String>; 2] = [
        vec![
            "-shared".into(),
            "-fPIC".into(),
            format!("-Wl,-soname,{runtime_soname}"),
            "-o".into(),
            stub.display().to_string(),
            stub_c.display().to_string(),
        ],
        vec![
            "-shared".into(),
            "-fPIC".into(),
            "-O2".into(),
            format!("-Wl,-soname,{SHIM_SONAME}"),
            "-Wl,--no-as-needed".into(),
            "-o".into(),
            out.display().to_string(),
            src.display().to_string(),
            stub.display().to_string(),
        ],
    ];
    for args in runs {
        let o = Command::new(cc)
            .args(&args)
            .output()
            .map_err(|e| Error::io(cc.display().to_string(), e))?;
        if !o.status.success() {
            return Err(Error::new(
                ErrorKind::Io,
                cc.display().to_string(),
                format!(
                    "building the shim failed: {}",
                    String::from_utf8_lossy(&o.stderr)
                ),
            ));
        }
    }
    Ok(out)
}
