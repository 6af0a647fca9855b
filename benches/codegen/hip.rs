//! The HIP compilers of the comparison: Debian's `hipcc` (HIP 5.2.3, which runs clang 15)
//! and clang 19 with the same ROCm device libraries, each building a `fixtures/hip` source
//! to a gfx906 code object (device code only, no offload bundle; `HIP_PLATFORM=amd`, since
//! hipcc otherwise picks NVIDIA's platform when it sees a CUDA installation). Outputs are cached by the
//! SHA-256 of the compiler, its flags and the sources.

use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::process::Command;

/// One HIP compiler.
pub struct Compiler {
    /// Column name (`hipcc`, `clang19`).
    pub label: &'static str,
    /// What it is (one line for the report).
    pub describe: String,
    program: PathBuf,
    args: Vec<String>,
}

/// What a verbose `hipcc` run says about itself: the clang it runs, the HIP version, the
/// ROCm root and the device-library folder it passes.
pub struct HipccFacts {
    /// The clang command (`/usr/bin/clang++-15`).
    pub clang: String,
    /// `--hip-version=`.
    pub hip_version: String,
    /// `--rocm-path=`.
    pub rocm_path: Option<String>,
    /// `--hip-device-lib-path=`.
    pub device_libs: Option<String>,
}

/// `$WHEELPORT_HIPCC`, else `hipcc` on `PATH`.
pub fn find_hipcc() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("WHEELPORT_HIPCC") {
        return Some(PathBuf::from(p));
    }
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|d| d.join("hipcc"))
        .find(|p| p.is_file())
}

fn value_of(cmd: &str, flag: &str) -> Option<String> {
    let at = cmd.find(flag)? + flag.len();
    let rest = &cmd[at..];
    let v = if let Some(q) = rest.strip_prefix('"') {
        q.split('"').next()?
    } else {
        rest.split_whitespace().next()?
    };
    Some(v.to_string())
}

/// Compile a one-line source with `HIPCC_VERBOSE=1` and read the `hipcc-cmd:` line.
pub fn hipcc_facts(hipcc: &Path, arch: &str) -> Result<HipccFacts, String> {
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let src = dir.path().join("probe.hip");
    std::fs::write(
        &src,
        "#include <hip/hip_runtime.h>\n__global__ void probe(int *p) { p[threadIdx.x] = 1; }\n",
    )
    .map_err(|e| e.to_string())?;
    let out = Command::new(hipcc)
        .env("HIPCC_VERBOSE", "1")
        .env("HIP_PLATFORM", "amd")
        .args([
            format!("--offload-arch={arch}"),
            "--cuda-device-only".into(),
            "--no-gpu-bundle-output".into(),
            "-c".into(),
        ])
        .arg(&src)
        .arg("-o")
        .arg(dir.path().join("probe.co"))
        .output()
        .map_err(|e| format!("{}: {e}", hipcc.display()))?;
    let text =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    if !out.status.success() {
        return Err(format!("{} failed: {}", hipcc.display(), text.trim()));
    }
    let cmd = text
        .lines()
        .find_map(|l| l.strip_prefix("hipcc-cmd:"))
        .ok_or_else(|| {
            format!(
                "{}: no hipcc-cmd line with HIPCC_VERBOSE=1",
                hipcc.display()
            )
        })?
        .trim()
        .to_string();
    Ok(HipccFacts {
        clang: cmd.split_whitespace().next().unwrap_or("").to_string(),
        hip_version: value_of(&cmd, "--hip-version=").unwrap_or_default(),
        rocm_path: std::env::var("ROCM_PATH")
            .ok()
            .or_else(|| value_of(&cmd, "--rocm-path=")),
        device_libs: std::env::var("HIP_DEVICE_LIB_PATH")
            .ok()
            .or_else(|| value_of(&cmd, "--hip-device-lib-path=")),
    })
}

/// The flags both compilers get.
fn common_flags(arch: &str) -> Vec<String> {
    vec![
        "-std=c++17".into(),
        "-O3".into(),
        format!("--offload-arch={arch}"),
        "--cuda-device-only".into(),
        "--no-gpu-bundle-output".into(),
        "-c".into(),
    ]
}

fn version_line(program: &Path) -> String {
    Command::new(program)
        .arg("--version")
        .output()
        .ok()
        .and_then(|o| {
            String::from_utf8_lossy(&o.stdout)
                .lines()
                .next()
                .map(str::to_string)
        })
        .unwrap_or_default()
}

impl Compiler {
    /// Debian's `hipcc` (`-O3`, the common flags).
    pub fn hipcc(hipcc: &Path, facts: &HipccFacts, arch: &str) -> Compiler {
        Compiler {
            label: "hipcc",
            describe: format!(
                "{} (HIP {}, {}) {}",
                hipcc.display(),
                facts.hip_version,
                version_line(Path::new(&facts.clang)),
                common_flags(arch).join(" ")
            ),
            program: hipcc.to_path_buf(),
            args: common_flags(arch),
        }
    }

    /// clang 19 as a HIP compiler, with the HIP headers under `rocm_path` and the device
    /// libraries hipcc uses.
    pub fn clang(clang: &Path, rocm_path: &str, device_libs: &str, arch: &str) -> Compiler {
        let mut args = vec!["-x".to_string(), "hip".to_string()];
        args.extend(common_flags(arch));
        args.push(format!("--rocm-path={rocm_path}"));
        args.push(format!("--rocm-device-lib-path={device_libs}"));
        Compiler {
            label: "clang19",
            describe: format!(
                "{} ({}) {}",
                clang.display(),
                version_line(clang),
                args.join(" ")
            ),
            program: clang.to_path_buf(),
            args,
        }
    }

    /// The code object of `src` (its folder's headers included in the key), from the cache
    /// folder `cache` when built before.
    pub fn build(&self, src: &Path, cache: &Path) -> Result<Vec<u8>, String> {
        let mut h = Sha256::new();
        h.update(self.describe.as_bytes());
        let dir = src.parent().unwrap_or(Path::new("."));
        let mut inputs: Vec<PathBuf> = std::fs::read_dir(dir)
            .map_err(|e| format!("{}: {e}", dir.display()))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "h"))
            .collect();
        inputs.sort();
        inputs.insert(0, src.to_path_buf());
        for p in &inputs {
            h.update(p.file_name().unwrap().as_encoded_bytes());
            h.update(std::fs::read(p).map_err(|e| format!("{}: {e}", p.display()))?);
        }
        let key: String = h.finalize().iter().map(|b| format!("{b:02x}")).collect();
        let cached = cache.join(format!("{}-{key}.co", self.label));
        if let Ok(b) = std::fs::read(&cached) {
            return Ok(b);
        }
        let tmp = tempfile::tempdir().map_err(|e| e.to_string())?;
        let obj = tmp.path().join("out.co");
        let out = Command::new(&self.program)
            .env("HIP_PLATFORM", "amd")
            .args(&self.args)
            .arg(src)
            .arg("-o")
            .arg(&obj)
            .output()
            .map_err(|e| format!("{}: {e}", self.program.display()))?;
        if !out.status.success() {
            return Err(format!(
                "{} {}: {}",
                self.label,
                src.display(),
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
        let b = std::fs::read(&obj).map_err(|e| e.to_string())?;
        std::fs::create_dir_all(cache).map_err(|e| e.to_string())?;
        std::fs::write(&cached, &b).map_err(|e| e.to_string())?;
        Ok(b)
    }
}
