//! PTX conformance against `ptxas` 13.5 (issue 19).
//!
//! The generator of [`wheelport::ptx::grammar`] writes, from the instruction-form table
//! (`src/ptx/forms.txt`), each row's modifier combinations and their illegal neighbours, one
//! kernel per instruction in one module per `.target`. `ptxas` is the oracle (run for the
//! `.target`'s virtual architecture, `compute_100a` for `sm_100a`: it parses and checks the
//! PTX and generates no code, which `ptxas` documents as its parsing-only mode): a kernel it
//! rejects is found by the line of its error and left out, and the rest is assembled again
//! until `ptxas` accepts all that is left. Then:
//!
//! * wheelport's parser must accept exactly the instructions `ptxas` accepts and reject the
//!   others with an error diagnostic;
//! * every accepted instruction, lowered for dtk, is either lowered or reported as not
//!   supported with its form named and a reason (a form the supported-forms registry does not
//!   hold, or a registry form whose operands the lowering does not take, named in the
//!   reason): never a panic, never a kernel dropped without one.
//!
//! The parser checks an opcode's modifier combinations against the table for the opcodes of
//! [`wheelport::ptx::grammar::STRICT`], which holds every opcode of the table.
//!
//! The counts (forms generated, accepted, rejected, disagreements) are printed; they are
//! recorded in `docs/conformance.md`.

#[path = "lower_common.rs"]
mod lower_common;

use std::collections::{BTreeMap, BTreeSet};
use std::process::Command;

use lower_common::*;
use wheelport::lower::{lower_ptx, KernelOutcome};
use wheelport::ptx::grammar::{generate, grammar, registers, target_number, Generated, Kind};

/// The PTX ISA version of the modules: the highest `ptxas` 13.5 takes.
const VERSION: &str = "9.5";

/// The module of `forms` for `target`, and the line range of each kernel.
fn module(target: &str, forms: &[&Generated]) -> (String, Vec<(usize, usize)>) {
    let mut text = format!(".version {VERSION}\n.target {target}\n.address_size 64\n");
    let mut lines = Vec::new();
    let mut n = text.lines().count();
    for (k, f) in forms.iter().enumerate() {
        let kernel = if f.in_func {
            // A form valid only in a `.func`: there, called by the kernel.
            format!(
                "\n.func f{k}()\n{{\n{}    {}\n    ret;\n}}\n\n.visible .entry c{k}()\n{{\n    call f{k};\n    ret;\n}}\n",
                registers(target),
                f.text
            )
        } else {
            format!(
                "\n.visible .entry c{k}()\n{{\n{}    {}\n    ret;\n}}\n",
                registers(target),
                f.text
            )
        };
        let start = n;
        n += kernel.matches('\n').count();
        text.push_str(&kernel);
        lines.push((start, n));
    }
    (text, lines)
}

/// Run `ptxas` (parsing only) on the module of `forms`.
fn run_ptxas(
    ptxas: &std::path::Path,
    path: &std::path::Path,
    target: &str,
    forms: &[&Generated],
) -> (std::process::Output, Vec<(usize, usize)>) {
    let (text, lines) = module(target, forms);
    std::fs::write(path, &text).unwrap();
    // The virtual architecture of the target; ptxas 13.5 knows none below compute_75, and
    // assembles the PTX of an older `.target` for compute_75.
    let arch = if target_number(target) < 75 {
        "compute_75".to_string()
    } else {
        target.replace("sm_", "compute_")
    };
    let out = Command::new(ptxas)
        .args([&format!("-arch={arch}"), "-o", "/dev/null"])
        .arg(path)
        .output()
        .expect("run ptxas");
    (out, lines)
}

/// Whether `ptxas` dies of a signal on the module of `forms` (it does on a few malformed
/// instructions, e.g. `mma.sp` without its metadata operands).
fn crashes(
    ptxas: &std::path::Path,
    path: &std::path::Path,
    target: &str,
    forms: &[&Generated],
) -> bool {
    let (out, _) = run_ptxas(ptxas, path, target, forms);
    out.status.code().is_none()
}

/// The indices (into `forms`) of the instructions `ptxas` dies on by itself, by bisection.
fn crashing(
    ptxas: &std::path::Path,
    path: &std::path::Path,
    target: &str,
    forms: &[&Generated],
    idx: &[usize],
    out: &mut Vec<usize>,
) {
    if idx.len() == 1 {
        out.push(idx[0]);
        return;
    }
    let (a, b) = idx.split_at(idx.len() / 2);
    let mut found = false;
    for half in [a, b] {
        let sub: Vec<&Generated> = half.iter().map(|&i| forms[i]).collect();
        if crashes(ptxas, path, target, &sub) {
            crashing(ptxas, path, target, forms, half, out);
            found = true;
        }
    }
    // Only together: leave them all out.
    if !found {
        out.extend_from_slice(idx);
    }
}

/// `ptxas`'s verdict on each of `forms`: `Some(first error)` for a rejected one.
fn ptxas_verdicts(
    ptxas: &std::path::Path,
    dir: &std::path::Path,
    name: &str,
    target: &str,
    forms: &[&Generated],
) -> Vec<Option<String>> {
    let mut verdict: Vec<Option<String>> = vec![None; forms.len()];
    let mut pending: Vec<usize> = (0..forms.len()).collect();
    for round in 0.. {
        assert!(round < 400, "ptxas keeps rejecting after 400 rounds");
        let sub: Vec<&Generated> = pending.iter().map(|&i| forms[i]).collect();
        let path = dir.join(format!("{name}-{round}.ptx"));
        let (out, lines) = run_ptxas(ptxas, &path, target, &sub);
        if out.status.success() {
            break;
        }
        if out.status.code().is_none() {
            // Killed by a signal: find the instructions it dies on, count them as rejected
            // (ptxas does not accept them) and go on without them.
            let mut dead = Vec::new();
            let all: Vec<usize> = (0..sub.len()).collect();
            crashing(ptxas, &path, target, &sub, &all, &mut dead);
            let dead: BTreeSet<usize> = dead.into_iter().map(|k| pending[k]).collect();
            for &i in &dead {
                verdict[i] = Some("ptxas crashes (killed by a signal)".to_string());
            }
            pending.retain(|i| !dead.contains(i));
            continue;
        }
        let stderr = String::from_utf8_lossy(&out.stderr);
        let mut bad = BTreeSet::new();
        for l in stderr.lines() {
            // `file.ptx, line N; error   : ...`
            let Some((n, msg)) = l.split_once(", line ").and_then(|(_, r)| r.split_once(';'))
            else {
                continue;
            };
            let Ok(n) = n.trim().parse::<usize>() else {
                continue;
            };
            // A syntax error is `fatal` and ends the run: the next run goes on after it.
            if !msg.trim_start().starts_with("error") && !msg.trim_start().starts_with("fatal") {
                continue;
            }
            let k = lines
                .iter()
                .position(|&(s, e)| n > s && n <= e)
                .unwrap_or_else(|| panic!("ptxas error outside the kernels: {l}"));
            let i = pending[k];
            if verdict[i].is_none() {
                let m = msg.split_once(':').map_or(msg, |(_, m)| m).trim();
                verdict[i] = Some(m.to_string());
            }
            bad.insert(i);
        }
        assert!(!bad.is_empty(), "ptxas failed without a line:\n{stderr}");
        pending.retain(|i| !bad.contains(i));
    }
    verdict
}

#[test]
fn parser_agrees_with_ptxas_and_accepted_forms_lower_or_are_named() {
    let Some(ptxas) = ptxas() else {
        return;
    };
    let t0 = std::time::Instant::now();
    let g = grammar();
    assert!(g.problems.is_empty(), "{:?}", g.problems);
    let forms = generate(g);
    let dir = scratch("ptx_conformance");
    let mut by_target: BTreeMap<&str, Vec<&Generated>> = BTreeMap::new();
    for f in &forms {
        by_target.entry(f.target).or_default().push(f);
    }
    let dtk = wheelport::target::profile("dtk").unwrap();
    let (mut accepted, mut rejected) = (0, 0);
    let mut by_kind: BTreeMap<(Kind, bool), usize> = BTreeMap::new();
    let mut disagree: Vec<String> = Vec::new();
    let (mut lowered, mut named) = (0, 0);
    let mut lowering_bad: Vec<String> = Vec::new();
    // Every verdict, one line each (ptxas, parser, table line, kind, instruction, ptxas error),
    // written to the scratch directory for reading.
    let mut report = String::new();
    // Forms of the opcodes the parser checks by form: accepted, rejected by ptxas.
    let mut strict_forms = [0usize; 2];
    // Per opcode, the generated heads where the table (ptx::grammar::Grammar::accepts)
    // and ptxas differ.
    let mut table_off: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    let mut table_on: BTreeSet<&str> = BTreeSet::new();
    // ptxas runs on modules of at most CHUNK instructions, two at a time: a syntax error
    // stops a run, and the rerun after it costs one chunk, not the whole set.
    const CHUNK: usize = 400;
    let jobs: Vec<(String, String, Vec<Generated>)> = by_target
        .iter()
        .flat_map(|(target, fs)| {
            fs.chunks(CHUNK).enumerate().map(move |(c, ch)| {
                (
                    format!("{target}-{c}"),
                    target.to_string(),
                    ch.iter().map(|f| (*f).clone()).collect(),
                )
            })
        })
        .collect();
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results: std::sync::Mutex<BTreeMap<usize, Vec<Option<String>>>> = Default::default();
    std::thread::scope(|sc| {
        for _ in 0..2 {
            sc.spawn(|| loop {
                let j = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some((name, target, fs)) = jobs.get(j) else {
                    break;
                };
                let refs: Vec<&Generated> = fs.iter().collect();
                let v = ptxas_verdicts(&ptxas, &dir, name, target, &refs);
                results.lock().unwrap().insert(j, v);
            });
        }
    });
    let mut results = results.into_inner().unwrap().into_values();
    let verdicts: Vec<Vec<Option<String>>> = by_target
        .values()
        .map(|fs| {
            let mut v = Vec::new();
            for _ in fs.chunks(CHUNK) {
                v.extend(results.next().unwrap());
            }
            v
        })
        .collect();
    for ((target, fs), verdict) in by_target.iter().zip(verdicts) {
        let (text, _) = module(target, fs);
        let parsed = wheelport::ptx::parse(&text, "conformance.ptx");
        let invalid: BTreeMap<&str, &Vec<String>> = parsed
            .module
            .invalid()
            .filter_map(|d| Some((d.name?, &d.reasons)))
            .collect();
        let mut ok_forms = Vec::new();
        for (k, f) in fs.iter().enumerate() {
            // The function that holds the instruction.
            let name = format!("{}{k}", if f.in_func { "f" } else { "c" });
            let ptx_ok = verdict[k].is_none();
            let ours = invalid.get(name.as_str());
            report.push_str(&format!(
                "{}\t{}\t{}\t{}\t{}\t{}\n",
                if ptx_ok { "A" } else { "R" },
                if ours.is_none() { "A" } else { "R" },
                f.line,
                f.kind.name(),
                f.text,
                verdict[k].as_deref().unwrap_or("")
            ));
            *by_kind.entry((f.kind, ptx_ok)).or_default() += 1;
            let words = wheelport::ptx::analysis::form_words(&f.head).1;
            let table_ok = g.operand_counts(f.op, &words) & (1 << f.operands.min(31)) != 0;
            if table_ok != ptx_ok {
                table_off.entry(f.op.name()).or_default().push(format!(
                    "{} `{}` {}",
                    if ptx_ok {
                        "ptxas accepts"
                    } else {
                        "ptxas rejects"
                    },
                    f.head,
                    verdict[k].as_deref().unwrap_or("")
                ));
            } else {
                table_on.insert(f.op.name());
            }
            if wheelport::ptx::grammar::is_strict(f.op) {
                strict_forms[usize::from(!ptx_ok)] += 1;
            }
            if ptx_ok {
                accepted += 1;
                if ours.is_none() {
                    ok_forms.push(*f);
                }
            } else {
                rejected += 1;
            }
            let agree = match (ptx_ok, ours) {
                (true, None) => true,
                (false, Some(reasons)) => !reasons.is_empty(),
                _ => false,
            };
            if agree {
                continue;
            }
            disagree.push(match ours {
                Some(r) => format!(
                    "line {} {}: ptxas accepts `{}`, the parser rejects it: {}",
                    f.line,
                    f.kind.name(),
                    f.text,
                    r.join("; ")
                ),
                None => format!(
                    "line {} {}: ptxas rejects `{}` ({}), the parser accepts it",
                    f.line,
                    f.kind.name(),
                    f.text,
                    verdict[k].as_deref().unwrap_or("")
                ),
            });
        }
        // The lowering of the accepted ones (those the parser accepts too).
        let (text, _) = module(target, &ok_forms);
        let lm = std::panic::catch_unwind(|| lower_ptx(&text, "conformance.ptx", dtk));
        let Ok(lm) = lm else {
            // Find the instruction that panics, one by one.
            for f in &ok_forms {
                let one = module(target, &[f]).0;
                if std::panic::catch_unwind(|| lower_ptx(&one, "one.ptx", dtk)).is_err() {
                    lowering_bad.push(format!("`{}`: the lowering panics", f.text));
                }
            }
            continue;
        };
        assert_eq!(lm.kernels.len(), ok_forms.len(), "kernels dropped");
        for (kr, f) in lm.kernels.iter().zip(&ok_forms) {
            match &kr.outcome {
                KernelOutcome::Lowered => lowered += 1,
                KernelOutcome::Unsupported { forms, reason } => {
                    // Either forms the registry does not hold, or (a registry form whose
                    // operands the lowering does not take) a reason naming the form.
                    let registry_ok = if forms.is_empty() {
                        reason.starts_with(&format!("{}: ", f.head))
                            || reason.contains(&format!(": {}: ", f.head))
                    } else {
                        forms
                            .iter()
                            .all(|x| !wheelport::ptx::analysis::is_supported(x))
                    };
                    if reason.is_empty() || !registry_ok {
                        lowering_bad.push(format!(
                            "`{}`: not lowered without a named unsupported form ({forms:?}: {reason})",
                            f.text
                        ));
                    } else {
                        named += 1;
                    }
                }
            }
        }
    }
    std::fs::write(dir.join("verdicts.tsv"), &report).unwrap();
    eprintln!("verdicts: {}", dir.join("verdicts.tsv").display());
    let opcodes: BTreeSet<&str> = forms.iter().map(|f| f.op.name()).collect();
    eprintln!(
        "conformance: {} opcodes, {} rows, {} forms generated, {accepted} accepted by ptxas, \
         {rejected} rejected; {} disagreements; lowering for dtk: \
         {lowered} lowered, {named} named as not supported, {} wrong; {:.1} s",
        opcodes.len(),
        g.rows.len(),
        forms.len(),
        disagree.len(),
        lowering_bad.len(),
        t0.elapsed().as_secs_f64()
    );
    let strict_ops = opcodes
        .iter()
        .filter(|o| {
            wheelport::ptx::Opcode::from_name(o).is_some_and(wheelport::ptx::grammar::is_strict)
        })
        .count();
    eprintln!(
        "checked by form: {strict_ops} opcodes, {} forms ({} accepted, {} rejected by ptxas), all \
         in agreement with the parser; the other {} opcodes: {} forms",
        strict_forms[0] + strict_forms[1],
        strict_forms[0],
        strict_forms[1],
        opcodes.len() - strict_ops,
        forms.len() - strict_forms[0] - strict_forms[1]
    );
    for ((kind, ok), n) in &by_kind {
        eprintln!(
            "  {:<14} {:<8} {n}",
            kind.name(),
            if *ok { "accepted" } else { "rejected" }
        );
    }
    let exact: Vec<&&str> = table_on
        .iter()
        .filter(|o| !table_off.contains_key(**o))
        .collect();
    eprintln!("table agrees with ptxas on every form of: {exact:?}");
    for (op, v) in &table_off {
        eprintln!(
            "TABLE {op}: {} differ, e.g. {}",
            v.len(),
            v[..v.len().min(4)].join(" | ")
        );
    }
    for d in disagree.iter().take(40) {
        eprintln!("DISAGREE {d}");
    }
    for d in lowering_bad.iter().take(100) {
        eprintln!("LOWERING {d}");
    }
    assert!(
        disagree.is_empty(),
        "{} disagreements with ptxas",
        disagree.len()
    );
    assert!(
        lowering_bad.is_empty(),
        "{} accepted forms neither lowered nor named",
        lowering_bad.len()
    );
    assert!(accepted > 0 && rejected > 0);
}
