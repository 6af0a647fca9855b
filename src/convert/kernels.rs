//! Stage 2, kernels: device code for one analysed object, and an outcome for every kernel.
//!
//! One [`crate::device::ModuleJob`] per fatbin container that has kernels with PTX and a
//! wrapper the host code registers, from its highest PTX entry. A container that no code
//! registers (a relocatable-device-code copy, a device-link input) is not built: its kernels
//! are reported with that reason. Every kernel of the analysis is reported: translated (built
//! for every offload arch and in a registered container), or not, with its reason.

use super::Options;
use crate::analyze::ObjectAnalysis;
use crate::inspect::model::KernelStatus;
use crate::lower::KernelOutcome;
use crate::report::{KernelConversion, Totals};
use std::collections::{BTreeMap, HashMap};

/// The device code of one object.
pub struct DeviceCode {
    /// Every kernel's outcome.
    pub kernels: Vec<KernelConversion>,
    /// Kernel counts (imports are counted by the host stage).
    pub totals: Totals,
    /// The container to register, per registered wrapper address.
    pub registrations: BTreeMap<u64, Vec<u8>>,
    /// The `.target` of the PTX entry each registered container was built from
    /// (`compute_120`), one per container with registrations.
    pub sources: Vec<String>,
}

/// What the build said about one kernel.
enum Built {
    Archs(Vec<String>),
    Not(String),
}

fn not_all<'k>(
    outcome: &mut HashMap<(usize, &'k str), Built>,
    ci: usize,
    names: &[&'k str],
    why: String,
) {
    for n in names {
        outcome.insert((ci, n), Built::Not(why.clone()));
    }
}

/// Build the device code of `a` and give every kernel its outcome; with `skip`, nothing is
/// built and every kernel with PTX gets that reason.
pub fn device_code(
    a: &ObjectAnalysis<'_>,
    opts: &Options,
    archs: &[String],
    pipeline: &crate::device::Pipeline,
    skip: Option<&str>,
) -> DeviceCode {
    let profile = opts.profile;
    // Containers to build: kernels with PTX (stubs are translated as the stub they are) and
    // a registered wrapper.
    let mut wanted: BTreeMap<usize, Vec<&str>> = BTreeMap::new();
    for k in &a.kernels {
        if matches!(k.status, KernelStatus::Ptx | KernelStatus::ArchGuardStub) {
            wanted.entry(k.container).or_default().push(&k.name);
        }
    }
    let registered = |ci: usize| -> Vec<u64> {
        a.containers[ci]
            .report
            .wrappers
            .iter()
            .map(|&wi| &a.elf.wrappers[wi])
            .filter(|w| w.registered == Some(true))
            .map(|w| w.address)
            .collect()
    };
    let mut outcome: HashMap<(usize, &str), Built> = HashMap::new();
    let mut registrations = BTreeMap::new();
    let mut sources = Vec::new();
    let available = pipeline.available(profile);
    let mut jobs = Vec::new();
    let mut job_containers = Vec::new();
    for (&ci, names) in &wanted {
        let c = &a.containers[ci];
        if let Some(why) = skip {
            not_all(&mut outcome, ci, names, why.to_string());
            continue;
        }
        if c.report.wrappers.is_empty() {
            not_all(
                &mut outcome,
                ci,
                names,
                "its fatbin container has no registration wrapper".into(),
            );
            continue;
        }
        if registered(ci).is_empty() {
            not_all(&mut outcome, ci, names, "its fatbin container is not registered by any code (a relocatable-device-code copy or a device-link input); the registered module is built from the device-linked code".into());
            continue;
        }
        if let Err(why) = &available {
            not_all(&mut outcome, ci, names, why.clone());
            continue;
        }
        let Some(entry) = c.ptx.last() else {
            not_all(
                &mut outcome,
                ci,
                names,
                "the module has no PTX entry".into(),
            );
            continue;
        };
        let Ok(text) = std::str::from_utf8(&entry.text) else {
            not_all(
                &mut outcome,
                ci,
                names,
                format!("the {} PTX entry is not UTF-8", entry.arch),
            );
            continue;
        };
        jobs.push(crate::device::ModuleJob {
            name: format!("{}!container#{ci}", a.file),
            ptx: text,
        });
        job_containers.push(ci);
    }
    let results = pipeline.build(profile, archs, &jobs, &crate::lower::lower_module);
    for (r, &ci) in results.into_iter().zip(&job_containers) {
        let names = &wanted[&ci];
        let arch_of = a.containers[ci].ptx.last().map(|p| p.arch.clone());
        if let Some(e) = &r.error {
            for n in names {
                outcome.insert((ci, n), Built::Not(format!("device build failed: {e}")));
            }
            continue;
        }
        let built: Vec<String> = r
            .built
            .as_ref()
            .map(|b| b.objects.iter().map(|o| o.arch.clone()).collect())
            .unwrap_or_default();
        let mut any = false;
        for n in names {
            let o = match r.lowered.kernels.iter().find(|k| k.name == *n) {
                Some(k) => match &k.outcome {
                    KernelOutcome::Lowered => {
                        any = true;
                        Built::Archs(built.clone())
                    }
                    KernelOutcome::Unsupported { reason, .. } => Built::Not(reason.clone()),
                },
                None => Built::Not(format!(
                    "no .entry {n} in the {} PTX",
                    arch_of.as_deref().unwrap_or("")
                )),
            };
            outcome.insert((ci, n), o);
        }
        if any && !r.container.is_empty() {
            sources.extend(arch_of.clone());
            for w in registered(ci) {
                registrations.insert(w, r.container.clone());
            }
        }
    }

    let mut totals = Totals::default();
    let mut kernels = Vec::new();
    for k in &a.kernels {
        // An arch-guard stub's PTX only reports that the kernel needs another GPU (its real
        // code is SASS for that GPU alone): it is translated as is, so the converted kernel
        // behaves as the original does on every GPU without that SASS, and says so.
        let note = (k.status == KernelStatus::ArchGuardStub).then(|| {
            format!(
                "arch-guard stub translated as is ({}); like the original on any other GPU, it stops instead of computing (the original prints{} first)",
                k.reason.as_deref().unwrap_or("real code only in SASS"),
                k.stub_message
                    .as_deref()
                    .map(|m| format!(" \"{m}\""))
                    .unwrap_or_else(|| " an error".to_string())
            )
        });
        let (translated, archs_built, reason) = match k.status {
            KernelStatus::Ptx | KernelStatus::ArchGuardStub => {
                match outcome.get(&(k.container, k.name.as_str())) {
                    Some(Built::Archs(a))
                        if !a.is_empty() && a.iter().all(|x| archs.contains(x)) =>
                    {
                        (true, a.clone(), None)
                    }
                    Some(Built::Archs(a)) => (
                        false,
                        Vec::new(),
                        Some(format!(
                            "device code built only for {} of {}",
                            a.join(","),
                            archs.join(",")
                        )),
                    ),
                    Some(Built::Not(why)) => (false, Vec::new(), Some(why.clone())),
                    None => (
                        false,
                        Vec::new(),
                        Some("the device build gave no result for it".to_string()),
                    ),
                }
            }
            _ => (
                false,
                Vec::new(),
                Some(
                    k.reason
                        .clone()
                        .unwrap_or_else(|| format!("{:?}", k.status).to_lowercase()),
                ),
            ),
        };
        totals.kernels += 1;
        if translated {
            totals.translated += 1;
            if note.is_some() {
                totals.stubs += 1;
            }
        } else {
            totals.not_translated += 1;
        }
        kernels.push(KernelConversion {
            container: k.container,
            name: k.name.clone(),
            demangled: k.demangled.clone(),
            found: k.status,
            translated,
            archs: archs_built,
            reason,
            note: if translated { note } else { None },
        });
    }
    DeviceCode {
        kernels,
        totals,
        registrations,
        sources,
    }
}
