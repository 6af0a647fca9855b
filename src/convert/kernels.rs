//! Stage 2, kernels: device code for one analysed object, and an outcome for every kernel.
//!
//! One [`crate::device::ModuleJob`] per fatbin container that has kernels with PTX and a
//! wrapper the host code registers, from its highest PTX entry; and one per registered
//! container whose kernels are SASS only, from the PTX the SASS lifter ([`crate::sass`])
//! makes of its lowest sm_80..sm_90 cubin (with [`Options::lift_sass`]; a kernel that does
//! not lift is reported with the SASS forms the lifter lacks in it). A container that no
//! code registers (a relocatable-device-code copy, a device-link input) is not built: its
//! kernels are reported with that reason. Every kernel of the analysis is reported:
//! translated (built for every offload arch and in a registered container), or not, with its
//! reason.

use super::{DeviceCodeSource, Options};
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
    /// A module build that failed for the machine's reason ([`crate::device::ModuleResult::environment`]):
    /// the input's conversion stops on it.
    pub environment: Option<crate::Error>,
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
    let from_cubin = opts.device_code == DeviceCodeSource::Sass;
    // Containers to build: kernels with PTX (stubs are translated as the stub they are) and
    // a registered wrapper; with `--device-code sass`, none (their SASS is lifted below).
    let mut wanted: BTreeMap<usize, Vec<&str>> = BTreeMap::new();
    for k in &a.kernels {
        if !from_cubin && matches!(k.status, KernelStatus::Ptx | KernelStatus::ArchGuardStub) {
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
    let mut environment: Option<crate::Error> = None;
    let mut registrations = BTreeMap::new();
    let mut sources = Vec::new();
    let available = pipeline.available(profile);
    // Why the kernels of container `ci` cannot be built at all, if they cannot.
    let blocked = |ci: usize| -> Option<String> {
        if let Some(why) = skip {
            return Some(why.to_string());
        }
        if a.containers[ci].report.wrappers.is_empty() {
            return Some("its fatbin container has no registration wrapper".into());
        }
        if registered(ci).is_empty() {
            return Some("its fatbin container is not registered by any code (a relocatable-device-code copy or a device-link input); the registered module is built from the device-linked code".into());
        }
        available.as_ref().err().cloned()
    };

    // SASS-only containers (no PTX entry at all) of a fatbin-carrying object: lifted; with
    // `--device-code sass`, every container's kernels.
    let mut sass_wanted: BTreeMap<usize, Vec<&str>> = BTreeMap::new();
    let lift = match opts.device_code {
        DeviceCodeSource::Auto => opts.lift_sass,
        DeviceCodeSource::Ptx => false,
        DeviceCodeSource::Sass => true,
    };
    if lift && a.cubin_arch.is_none() {
        for k in &a.kernels {
            let sass_only = k.status == KernelStatus::SassOnly
                && a.containers
                    .get(k.container)
                    .is_some_and(|c| c.ptx.is_empty());
            if (sass_only || from_cubin) && blocked(k.container).is_none() {
                sass_wanted.entry(k.container).or_default().push(&k.name);
            }
        }
    }
    if from_cubin {
        // Kernels not lifted because their container cannot be built at all.
        for k in &a.kernels {
            if let Some(why) = blocked(k.container) {
                outcome.insert((k.container, &k.name), Built::Not(why));
            }
        }
    }
    let sass_cis: Vec<usize> = sass_wanted.keys().copied().collect();
    let lifts = crate::sass::lift_containers(a, &sass_cis, &pipeline.nvdisasm);
    // The lifted module text per container, and each SASS-only kernel's lifting note or
    // reason.
    let mut lifted: Vec<(usize, String, String)> = Vec::new();
    let mut lift_notes: HashMap<(usize, &str), String> = HashMap::new();
    // The lowering's notes on a built kernel (a launch bound from the host code).
    let mut lower_notes: HashMap<(usize, &str), String> = HashMap::new();
    for (ci, r) in &lifts {
        let names = &sass_wanted[ci];
        // Why a kernel of this container is lifted rather than built from PTX.
        let head = if a.containers[*ci].ptx.is_empty() {
            "no PTX"
        } else {
            "its PTX is not read (--device-code sass)"
        };
        match r {
            Err(e) => not_all(
                &mut outcome,
                *ci,
                names,
                format!("{head}; its SASS was not lifted: {e}"),
            ),
            Ok(l) => {
                for n in names {
                    match l.kernels.iter().find(|k| k.name == *n) {
                        None => {
                            outcome.insert(
                                (*ci, n),
                                Built::Not(format!(
                                    "{head}; the kernel is not in the {} cubin's disassembly",
                                    l.arch
                                )),
                            );
                        }
                        Some(k) if k.ptx.is_none() => {
                            outcome.insert(
                                (*ci, n),
                                Built::Not(format!("{head}; {}", unlifted_reason(&l.arch, k))),
                            );
                        }
                        Some(k) => {
                            lift_notes.insert(
                                (*ci, n),
                                format!(
                                    "lifted from its {} SASS ({} instructions, {} forms){}",
                                    l.arch,
                                    k.instructions,
                                    k.forms,
                                    if from_cubin && !a.containers[*ci].ptx.is_empty() {
                                        " instead of its PTX (--device-code sass)"
                                    } else {
                                        ""
                                    }
                                ),
                            );
                        }
                    }
                }
                if let Some(m) = l.module() {
                    lifted.push((*ci, l.arch.clone(), m));
                }
            }
        }
    }

    let mut jobs = Vec::new();
    let mut job_containers = Vec::new();
    // The source arch of each job (`compute_80`, or `sm_80` for lifted SASS).
    let mut job_sources = Vec::new();
    for (&ci, names) in &wanted {
        let c = &a.containers[ci];
        if let Some(why) = blocked(ci) {
            not_all(&mut outcome, ci, names, why);
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
        job_sources.push(entry.arch.clone());
    }
    for (ci, arch, text) in &lifted {
        jobs.push(crate::device::ModuleJob {
            name: format!("{}!container#{ci} (lifted {arch} SASS)", a.file),
            ptx: text,
        });
        job_containers.push(*ci);
        job_sources.push(arch.clone());
    }
    // The device build is most of a conversion's time (hours for a large SASS-only wheel):
    // one step per module, on a terminal.
    let pb = super::bar(opts, jobs.len() as u64, "building");
    let results = pipeline.build_observed(
        profile,
        archs,
        &jobs,
        &|m, p| crate::lower::lower_module_with(m, p, &a.launch),
        &|job, _| {
            pb.set_message(job.name.clone());
            pb.inc(1);
        },
    );
    pb.finish_and_clear();
    for ((r, &ci), source) in results.into_iter().zip(&job_containers).zip(job_sources) {
        // The kernels the job was built for: those with PTX, or the lifted ones.
        let names: Vec<&str> = match wanted.get(&ci) {
            Some(n) if !from_cubin && !a.containers[ci].ptx.is_empty() => n.clone(),
            _ => sass_wanted[&ci]
                .iter()
                .copied()
                .filter(|n| lift_notes.contains_key(&(ci, *n)))
                .collect(),
        };
        let names = &names;
        let arch_of = Some(source);
        if let Some(e) = &r.error {
            if environment.is_none() {
                environment = r.environment.clone();
            }
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
                        if !k.notes.is_empty() {
                            lower_notes.insert((ci, *n), k.notes.join("; "));
                        }
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
        let note = note.or_else(|| lift_notes.get(&(k.container, k.name.as_str())).cloned());
        let note = match (note, lower_notes.get(&(k.container, k.name.as_str()))) {
            (Some(a), Some(b)) => Some(format!("{a}; {b}")),
            (a, b) => a.or_else(|| b.cloned()),
        };
        let from_sass = (k.status == KernelStatus::SassOnly || from_cubin)
            && outcome.contains_key(&(k.container, k.name.as_str()));
        let (translated, archs_built, reason) = match k.status {
            _ if from_sass
                || matches!(k.status, KernelStatus::Ptx | KernelStatus::ArchGuardStub) =>
            {
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
            if k.status == KernelStatus::ArchGuardStub {
                totals.stubs += 1;
            }
            if from_sass {
                totals.lifted += 1;
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
        environment,
    }
}

/// The reason a SASS-only kernel `k` of an `arch` cubin is not translated: the forms the
/// lifter lacks in it, most instructions first (at most 8 named), each with its count, the
/// offset of its first instruction and the lifter's reason for the first.
fn unlifted_reason(arch: &str, k: &crate::sass::lift::KernelLift) -> String {
    let mut forms: Vec<(String, (usize, u32, String))> = k.unlifted_forms().into_iter().collect();
    forms.sort_by(|a, b| b.1 .0.cmp(&a.1 .0).then_with(|| a.0.cmp(&b.0)));
    let total = forms.len();
    let named: Vec<String> = forms
        .iter()
        .take(8)
        .map(|(f, (n, off, why))| format!("{f} ({n}, first at {off:#x}: {why})"))
        .collect();
    format!(
        "its {arch} SASS does not lift: the lifter lacks {total} form{} in it: {}{}",
        if total == 1 { "" } else { "s" },
        named.join("; "),
        if total > 8 {
            format!("; and {} more", total - 8)
        } else {
            String::new()
        }
    )
}
