//! The batch converter that runs `wheelport convert` as a child process per wheel.
//!
//! A child process per wheel bounds memory (each conversion's memory is returned to the OS
//! when it exits), isolates a crash to the wheel that caused it, and makes the batch use the
//! same code path, options and exit codes as a user's `wheelport X.whl --target T`.
//!
//! A wheel whose conversion report shows nothing CUDA in it (no kernel, no shared object
//! rewritten: pure-Python wheels, plain C extensions) is published unchanged instead of
//! relabelled, so it costs one conversion pass and no second inspection.

use super::{Conversion, Converter};
use std::path::{Path, PathBuf};

/// Runs `EXE convert WHEEL --target T -o WORK [extra args...]` per wheel.
#[derive(Clone, Debug)]
pub struct ProcessConverter {
    /// The wheelport executable.
    pub exe: PathBuf,
    /// `--target` value.
    pub target: String,
    /// Further arguments passed to every conversion (e.g. `--allow-partial`,
    /// `--offload-arch gfx906,gfx928`).
    pub extra_args: Vec<String>,
    /// `--jobs` for each conversion (0: not passed). Not part of the fingerprint: it changes
    /// how fast, not what, a conversion writes.
    pub jobs: usize,
}

/// Whether a conversion report (`convert --json`, `docs/report.schema.json`) shows a wheel
/// with nothing CUDA in it: no kernel and no shared object rewritten. Such a wheel is
/// published unchanged rather than relabelled.
fn nothing_cuda(report: &serde_json::Value) -> bool {
    let no_kernels = report["totals"]["kernels"].as_u64() == Some(0);
    let none_rewritten = report["inputs"].as_array().is_some_and(|inputs| {
        inputs.iter().all(|i| {
            i["shared_objects"]
                .as_array()
                .is_some_and(|sos| sos.iter().all(|s| s["rewritten"] == false))
        })
    });
    no_kernels && none_rewritten
}

impl ProcessConverter {
    fn report_path(work: &Path) -> PathBuf {
        work.join("report.json")
    }
}

/// Kernels not translated, as `"<so>: <kernel>: <reason>"`, from a convert `--json` report.
///
/// The report is read loosely (any object with `kernel`/`name`, `reason` and a `status`
/// other than `translated`), so that this reader does not break when fields are added.
fn untranslated_from_report(text: &str) -> Vec<String> {
    fn walk(v: &serde_json::Value, so: &str, out: &mut Vec<String>) {
        match v {
            serde_json::Value::Object(o) => {
                let so = o
                    .get("path")
                    .and_then(|p| p.as_str())
                    .filter(|p| p.ends_with(".so") || p.contains(".so."))
                    .unwrap_or(so);
                let name = o
                    .get("kernel")
                    .or_else(|| o.get("name"))
                    .and_then(|n| n.as_str());
                let status = o.get("status").and_then(|s| s.as_str());
                if let (Some(name), Some(status)) = (name, status) {
                    if status != "translated" && status != "lowered" {
                        let reason = o.get("reason").and_then(|r| r.as_str()).unwrap_or(status);
                        out.push(format!("{so}: {name}: {reason}"));
                    }
                }
                for (_, c) in o {
                    walk(c, so, out);
                }
            }
            serde_json::Value::Array(a) => a.iter().for_each(|c| walk(c, so, out)),
            _ => {}
        }
    }
    let mut out = Vec::new();
    if let Ok(v) = serde_json::from_str::<serde_json::Value>(text) {
        walk(&v, "", &mut out);
    }
    out.sort();
    out.dedup();
    out
}

impl Converter for ProcessConverter {
    fn convert(&self, wheel: &Path, work_dir: &Path) -> Conversion {
        let out_dir = work_dir.join("out");
        let report = Self::report_path(work_dir);
        let res = crate::toolchain::child_command(&self.exe)
            .arg("convert")
            .arg(wheel)
            .arg("--target")
            .arg(&self.target)
            .arg("-o")
            .arg(&out_dir)
            .arg("--json")
            .arg(&report)
            .args(&self.extra_args)
            .args(if self.jobs > 0 {
                vec!["--jobs".to_string(), self.jobs.to_string()]
            } else {
                vec![]
            })
            .env("WHEELPORT_NO_PROGRESS", "1")
            .output();
        let out = match res {
            Ok(o) => o,
            Err(e) => {
                return Conversion::Failed {
                    reason: format!("cannot run {}: {e}", self.exe.display()),
                }
            }
        };
        let wheels: Vec<PathBuf> = std::fs::read_dir(&out_dir)
            .map(|rd| {
                rd.filter_map(|e| e.ok().map(|e| e.path()))
                    .filter(|p| p.extension().is_some_and(|x| x == "whl"))
                    .collect()
            })
            .unwrap_or_default();
        let report_text = std::fs::read_to_string(&report).unwrap_or_default();
        let untranslated = untranslated_from_report(&report_text);
        let code = out.status.code();
        if code == Some(0)
            && serde_json::from_str::<serde_json::Value>(&report_text)
                .is_ok_and(|r| nothing_cuda(&r))
        {
            return Conversion::NotCuda;
        }
        match (code, wheels.as_slice()) {
            (Some(0), [w]) => Conversion::Converted {
                file: w.clone(),
                untranslated,
            },
            (Some(_), [w]) => Conversion::Converted {
                file: w.clone(),
                untranslated: if untranslated.is_empty() {
                    vec![format!(
                        "{}: exit code {}: see the conversion report",
                        wheel.display(),
                        code.unwrap_or(-1)
                    )]
                } else {
                    untranslated
                },
            },
            _ => {
                let stderr = String::from_utf8_lossy(&out.stderr);
                let last = stderr
                    .lines()
                    .rev()
                    .find(|l| l.contains("error"))
                    .or_else(|| stderr.lines().last())
                    .unwrap_or("")
                    .trim()
                    .to_string();
                Conversion::Failed {
                    reason: match code {
                        Some(c) => format!("wheelport convert exited with {c}: {last}"),
                        None => format!("wheelport convert was killed by a signal: {last}"),
                    },
                }
            }
        }
    }

    fn fingerprint(&self) -> String {
        // The executable's own bytes identify the tool version and build exactly.
        let exe_hash = super::sha256_file(&self.exe)
            .map(|(h, _)| h)
            .unwrap_or_else(|_| env!("CARGO_PKG_VERSION").to_string());
        format!(
            "{exe_hash} --target {} {}",
            self.target,
            self.extra_args.join(" ")
        )
    }
}
