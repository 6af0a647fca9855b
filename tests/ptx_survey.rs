//! PTX of real wheels: for each pinned wheel (tools/pypi-pins.txt), every kernel with PTX gets
//! an outcome for dtk, as the convert decides it without the device build: `BAD` (its PTX
//! function does not parse; ptxas accepts every one of these wheels' modules), lowered (the
//! lowering of its container's highest PTX entry defines it), or not lowered with the
//! lowering's reason. The test prints the counts per wheel and the reasons of the kernels left,
//! and asserts: no kernel `BAD`, at least 99% lowered, and every kernel left names a form the
//! supported-forms registry marks as a hardware or ABI gap (`lower::gap_reason`).

mod common;

use std::collections::BTreeMap;
use wheelport::inspect::model::KernelStatus;
use wheelport::lower::{gap_reason, lower_module, KernelOutcome};

/// The wheels of the survey (file-name prefixes in `$WHEELPORT_CORPUS`).
const WHEELS: &[&str] = &[
    "cupy_cuda13x-14.2.0",
    "jax_cuda13_pjrt-0.12.0.1",
    "torchvision-0.29.2",
    "xgboost-3.2.0",
];

#[derive(Default)]
struct Count {
    with_ptx: usize,
    lowered: usize,
    bad: usize,
    reasons: BTreeMap<String, usize>,
    bad_reasons: BTreeMap<String, usize>,
    /// Kernels left that name no form of a hardware or ABI gap.
    not_gap: usize,
}

fn survey(wheel: &std::path::Path) -> Count {
    let prof = wheelport::target::profile("dtk").unwrap();
    let mut r = wheelport::wheel::WheelReader::open(wheel).unwrap();
    let mut c = Count::default();
    for name in r.member_names() {
        if !wheelport::wheel::is_shared_object_name(&name) {
            continue;
        }
        let data = r.read_member(&name).unwrap();
        let Ok(a) = wheelport::analyze::analyze(&data, &name, &name, &Default::default()) else {
            continue;
        };
        // Each container's highest PTX entry, lowered once.
        let mut lowered: BTreeMap<usize, wheelport::lower::LoweredModule> = BTreeMap::new();
        for k in &a.kernels {
            match k.status {
                KernelStatus::SassOnly => continue,
                KernelStatus::InvalidPtx => {
                    c.with_ptx += 1;
                    c.bad += 1;
                    let why = k.reason.clone().unwrap_or_default();
                    *c.bad_reasons.entry(why).or_default() += 1;
                    continue;
                }
                KernelStatus::Ptx | KernelStatus::ArchGuardStub => c.with_ptx += 1,
            }
            let lm = lowered.entry(k.container).or_insert_with(|| {
                let entry = a.containers[k.container].ptx.last().unwrap();
                let text = std::str::from_utf8(&entry.text).unwrap();
                // `PTX_SURVEY_DUMP=DIR` writes each lowered PTX module there (for study).
                if let Some(d) = std::env::var_os("PTX_SURVEY_DUMP") {
                    let f = format!("{}.{}.ptx", name.replace('/', "__"), k.container);
                    std::fs::write(std::path::Path::new(&d).join(f), text).unwrap();
                }
                let m = wheelport::ptx::parse(text, &name);
                lower_module(&m.module, prof)
            });
            match lm
                .kernels
                .iter()
                .find(|x| x.name == k.name)
                .map(|x| &x.outcome)
            {
                Some(KernelOutcome::Lowered) => c.lowered += 1,
                Some(KernelOutcome::Unsupported { forms, reason }) => {
                    if !forms.iter().any(|f| gap_reason(f).is_some()) {
                        c.not_gap += 1;
                    }
                    let key = if forms.is_empty() {
                        reason.clone()
                    } else {
                        forms.join(" ")
                    };
                    *c.reasons.entry(key).or_default() += 1;
                }
                None => {
                    c.not_gap += 1;
                    *c.reasons
                        .entry("no .entry in the highest PTX".into())
                        .or_default() += 1
                }
            }
        }
    }
    c
}

#[test]
fn wheels_ptx_lowers_for_dtk() {
    let mut wheels = Vec::new();
    for w in WHEELS {
        let Some(p) = common::require_corpus(w, "ptx_survey") else {
            return;
        };
        wheels.push((*w, p));
    }
    let mut tot = Count::default();
    for (w, p) in &wheels {
        let c = survey(p);
        println!(
            "{w}: {} kernels with PTX, {} lowered for dtk ({:.2}%), {} BAD, {} left",
            c.with_ptx,
            c.lowered,
            100.0 * c.lowered as f64 / c.with_ptx.max(1) as f64,
            c.bad,
            c.with_ptx - c.lowered - c.bad
        );
        let mut v: Vec<_> = c.bad_reasons.iter().collect();
        v.sort_by(|a, b| b.1.cmp(a.1));
        for (r, n) in v {
            println!("    BAD {n:6}  {r}");
        }
        let mut v: Vec<_> = c.reasons.iter().collect();
        v.sort_by(|a, b| b.1.cmp(a.1));
        for (r, n) in v {
            println!("    {n:6}  {r}");
        }
        assert_eq!(c.bad, 0, "{w}: kernels BAD although ptxas accepts them");
        assert!(
            c.lowered * 100 >= c.with_ptx * 99,
            "{w}: fewer than 99% of the kernels with PTX lower for dtk"
        );
        assert_eq!(
            c.not_gap, 0,
            "{w}: kernels left for a form that is not a hardware or ABI gap"
        );
        tot.with_ptx += c.with_ptx;
        tot.lowered += c.lowered;
        tot.bad += c.bad;
        for (r, n) in c.reasons {
            *tot.reasons.entry(r).or_default() += n;
        }
    }
    println!(
        "all: {} kernels with PTX, {} lowered ({:.2}%), {} BAD",
        tot.with_ptx,
        tot.lowered,
        100.0 * tot.lowered as f64 / tot.with_ptx.max(1) as f64,
        tot.bad
    );
}
