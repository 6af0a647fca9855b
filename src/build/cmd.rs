//! `wheelport ptx lower FILE.ptx... --target T [--offload-arch LIST] [--emit llvm|obj] -o DIR`:
//! lower PTX files and write LLVM IR or device code, naming every kernel not lowered.

use super::{build_modules, BuildOptions, ModuleInput};
use crate::error::{Error, Result};
use crate::lower::{KernelOutcome, LoweredModule};
use crate::target::Profile;
use crate::toolchain::Toolchain;
use crate::twin::LowerFn;
use std::path::{Path, PathBuf};

/// What `ptx lower` writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Emit {
    /// `<stem>.ll`: the lowering's IR (without the support library).
    Llvm,
    /// Device code: `<stem>-<arch>.co` (amdgcn) or `<stem>.ptx` / `<stem>-<arch>.ptx` (cuda,
    /// the latter when several archs are built).
    Obj,
}

/// One kernel that was not lowered.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct NotLowered {
    /// The input file.
    pub file: String,
    /// The kernel's PTX name.
    pub kernel: String,
    /// Why.
    pub reason: String,
}

/// What `ptx lower` did.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct LowerSummary {
    /// Files written, in order.
    pub written: Vec<PathBuf>,
    /// Kernels lowered (over all inputs).
    pub lowered: usize,
    /// Kernels not lowered, with reasons.
    pub not_lowered: Vec<NotLowered>,
    /// PTX parse diagnostics (errors), `file:line:col: error: ...`.
    pub diagnostics: Vec<String>,
}

/// Lower every file and write the outputs into `out_dir` (created if needed). Files are
/// written only after every input has been read, lowered and (for [`Emit::Obj`]) built, so a
/// failure leaves no partial output set.
///
/// # Errors
/// I/O errors naming the file; toolchain and build errors (see [`super::build_module`]).
pub fn lower_files(
    files: &[PathBuf],
    profile: &Profile,
    tc: Option<&Toolchain>,
    opts: &BuildOptions,
    emit: Emit,
    out_dir: &Path,
    lower: &LowerFn<'_>,
) -> Result<LowerSummary> {
    let mut summary = LowerSummary::default();
    let mut modules: Vec<(String, String, LoweredModule)> = Vec::new();
    for f in files {
        let name = f.display().to_string();
        let bytes = std::fs::read(f).map_err(|e| crate::input::read_error(f, e))?;
        let parsed = crate::ptx::parse_bytes(&bytes, &name);
        summary.diagnostics.extend(
            parsed
                .diagnostics
                .iter()
                .filter(|d| d.severity == crate::ptx::Severity::Error)
                .map(|d| d.to_string()),
        );
        let lowered = lower(&parsed.module, profile);
        for k in &lowered.kernels {
            match &k.outcome {
                KernelOutcome::Lowered => summary.lowered += 1,
                KernelOutcome::Unsupported { reason, .. } => summary.not_lowered.push(NotLowered {
                    file: name.clone(),
                    kernel: k.name.clone(),
                    reason: reason.clone(),
                }),
            }
        }
        let stem = f
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "module".into());
        modules.push((name, stem, lowered));
    }
    let mut outputs: Vec<(PathBuf, Vec<u8>)> = Vec::new();
    match emit {
        Emit::Llvm => {
            for (_, stem, m) in &modules {
                outputs.push((
                    out_dir.join(format!("{stem}.ll")),
                    m.ir.clone().into_bytes(),
                ));
            }
        }
        Emit::Obj => {
            let tc = tc.ok_or_else(|| {
                Error::new(
                    crate::error::ErrorKind::Toolchain,
                    "<ptx lower>",
                    "no toolchain was given for --emit obj",
                )
            })?;
            let inputs: Vec<ModuleInput<'_>> = modules
                .iter()
                .map(|(n, _, m)| ModuleInput {
                    name: n,
                    lowered: m,
                })
                .collect();
            let built = build_modules(profile, tc, &inputs, opts);
            for ((_, stem, _), b) in modules.iter().zip(built) {
                let b = b?;
                let several = b.objects.len() > 1;
                for o in b.objects {
                    let name = profile.backend().object_file_name(stem, &o.arch, several);
                    outputs.push((out_dir.join(name), o.bytes));
                }
            }
        }
    }
    std::fs::create_dir_all(out_dir).map_err(|e| Error::io(out_dir.display().to_string(), e))?;
    for (p, bytes) in outputs {
        std::fs::write(&p, bytes).map_err(|e| Error::io(p.display().to_string(), e))?;
        summary.written.push(p);
    }
    Ok(summary)
}
