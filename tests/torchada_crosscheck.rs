//! The musa relink tables against torchada's own CUDA->MUSA mappings.
//!
//! torchada (PyPI, pinned in `tools/pypi-pins.txt`) ports CUDA *source* to MUSA by text
//! replacement with the rules of `torchada/_mappings/*.py`. This test reads those rules
//! from the wheel itself, applies them as torchada's porting does (longest key first,
//! plain substring replacement), and checks every row of `relink-tables/musa/*.tsv`:
//!
//! * a CUDA name (the demangled name of a C++ row, the part before `.so` of a soname)
//!   that no rule changes must say `torchada@V: no entry`;
//! * a name whose ported form equals the row's MUSA name (a rename's target, a shim's
//!   `via`) must say `torchada@V: agrees`;
//! * any other must say `torchada@V: maps it to <ported form>; resolved: <evidence>` or
//!   `...; VERIFY: ours <X>, torchada <ported form>: <evidence>`. The decisions live in
//!   the data (the generator's TORCHADA_DECISIONS), not here;
//!
//! and the `#% crosscheck:` counts of each file, and that every torchada cuBLAS, cuBLASLt
//! and driver function entry is a row or named in a `#% torchada-not-added:` line.

mod common;

use std::collections::{BTreeMap, HashMap};
use wheelport::relink::{load_builtin, Kind, Table};

const T: &str = "musa_rows_agree_with_torchada_or_carry_their_decision";

/// A Python string literal at the start of `s` (after `'` or `"`): its value and the
/// rest of the input after the closing quote.
fn py_string(s: &str) -> (String, &str) {
    let q = s.chars().next().unwrap();
    assert!(
        q == '\'' || q == '"',
        "expected a string literal at {:?}",
        &s[..s.len().min(40)]
    );
    let mut out = String::new();
    let mut it = s[1..].char_indices();
    while let Some((i, c)) = it.next() {
        match c {
            '\\' => {
                let (_, e) = it.next().expect("escape at end of input");
                out.push(match e {
                    'n' => '\n',
                    't' => '\t',
                    other => other,
                });
            }
            c if c == q => return (out, &s[1 + i + 1..]),
            c => out.push(c),
        }
    }
    panic!("unterminated string literal");
}

/// Skip whitespace and `#` comments.
fn skip(mut s: &str) -> &str {
    loop {
        s = s.trim_start();
        if let Some(r) = s.strip_prefix('#') {
            s = r.split_once('\n').map_or("", |(_, r)| r);
        } else {
            return s;
        }
    }
}

/// The `MAPPING = {'k': 'v', ...}` literal of one `_mappings` module, in order.
fn py_mapping(src: &str) -> Vec<(String, String)> {
    let start = src.find("MAPPING = {").expect("MAPPING = { in module") + "MAPPING = {".len();
    let mut s = &src[start..];
    let mut out = Vec::new();
    loop {
        s = skip(s);
        if let Some(r) = s.strip_prefix('}') {
            assert!(skip(r).is_empty(), "text after the MAPPING literal");
            return out;
        }
        let (k, r) = py_string(s);
        let r = skip(r).strip_prefix(':').expect("':' after a key");
        let (v, r) = py_string(skip(r));
        out.push((k, v));
        s = skip(r);
        s = s.strip_prefix(',').unwrap_or(s);
    }
}

/// torchada's MAPPING_RULE in application order: merged as `_mappings/__init__.py`
/// merges the modules (`**_x.MAPPING`, later wins), then sorted by key length, longest
/// first (a stable sort, as Python's `sorted`).
fn torchada_rules(wheel: &std::path::Path) -> Vec<(String, String)> {
    let mut r = wheelport::wheel::WheelReader::open(wheel).expect("open torchada wheel");
    let read = |r: &mut wheelport::wheel::WheelReader, n: &str| {
        String::from_utf8(r.read_member(n).unwrap_or_else(|e| panic!("{n}: {e}"))).unwrap()
    };
    let init = read(&mut r, "torchada/_mappings/__init__.py");
    let alias: HashMap<String, String> = init
        .lines()
        .filter_map(|l| l.strip_prefix("from . import "))
        .filter_map(|l| l.split_once(" as "))
        .map(|(m, a)| (a.trim().to_string(), m.trim().to_string()))
        .collect();
    let order: Vec<String> = init
        .lines()
        .filter_map(|l| l.trim().strip_prefix("**"))
        .filter_map(|l| l.strip_suffix(".MAPPING,"))
        .map(|a| {
            alias
                .get(a)
                .unwrap_or_else(|| panic!("no import for {a}"))
                .clone()
        })
        .collect();
    assert!(
        order.len() > 10,
        "merge order read from __init__.py: {order:?}"
    );
    let mut rules: Vec<(String, String)> = Vec::new();
    let mut at: HashMap<String, usize> = HashMap::new();
    for m in &order {
        for (k, v) in py_mapping(&read(&mut r, &format!("torchada/_mappings/{m}.py"))) {
            match at.get(&k) {
                Some(&i) => rules[i].1 = v,
                None => {
                    at.insert(k.clone(), rules.len());
                    rules.push((k, v));
                }
            }
        }
    }
    rules.sort_by_key(|(k, _)| std::cmp::Reverse(k.chars().count()));
    rules
}

/// Apply the rules to `text` as torchada's porting does; in a demangled C++ name a
/// member rule `->x` -> `->y` also applies to `::x` (the same member).
fn port(rules: &[(String, String)], text: &str, cxx: bool) -> String {
    let mut t = text.to_string();
    for (k, v) in rules {
        if k == v {
            continue;
        }
        t = t.replace(k.as_str(), v);
        if let (true, Some(km), Some(vm)) = (cxx, k.strip_prefix("->"), v.strip_prefix("->")) {
            t = t.replace(&format!("::{km}"), &format!("::{vm}"));
        }
    }
    t
}

fn demangle(s: &str) -> String {
    cpp_demangle::Symbol::new(s)
        .unwrap_or_else(|e| panic!("{s}: {e}"))
        .to_string()
}

#[derive(Default, Debug, PartialEq)]
struct Counts {
    agree: usize,
    none: usize,
    resolved: usize,
    verify: usize,
}

/// One row, as compared: its CUDA name as torchada would see it (`src`), torchada's
/// port of it (`got`) and the row's MUSA name (`ours`; `maps`: the row maps the name,
/// a rename or a shim).
struct Seen<'a> {
    what: String,
    src: String,
    got: String,
    ours: String,
    maps: bool,
    notes: &'a str,
}

/// Check one row's recorded verdict against the recomputed one, counting its class.
fn check_row(tag: &str, r: &Seen, c: &mut Counts) {
    let (what, got) = (&r.what, &r.got);
    let mark = format!("{tag}: ");
    assert_eq!(
        r.notes.matches(&mark).count(),
        1,
        "{what}: one {tag} verdict in {:?}",
        r.notes
    );
    let verdict = &r.notes[r.notes.find(&mark).unwrap() + mark.len()..];
    if r.got == r.src {
        assert_eq!(
            verdict, "no entry",
            "{what}: torchada leaves {:?} unchanged",
            r.src
        );
        c.none += 1;
    } else if r.maps && r.got == r.ours {
        assert_eq!(
            verdict, "agrees",
            "{what}: torchada gives {got:?}, as the row"
        );
        c.agree += 1;
    } else {
        let head = format!("maps it to {got}; ");
        let rest = verdict.strip_prefix(&head).unwrap_or_else(|| {
            panic!(
                "{what}: torchada gives {got:?}, the row {:?}: the notes must record the disagreement, have {verdict:?}",
                r.ours
            )
        });
        if let Some(ev) = rest.strip_prefix("resolved: ") {
            assert!(ev.len() > 30, "{what}: resolved without evidence: {ev:?}");
            c.resolved += 1;
        } else if let Some(ev) = rest.strip_prefix("VERIFY: ") {
            assert!(
                ev.starts_with("ours ") && ev.contains(&format!("torchada {got}: ")),
                "{what}: a VERIFY mark names both candidates: {ev:?}"
            );
            c.verify += 1;
        } else {
            panic!("{what}: disagreement neither resolved nor VERIFY: {rest:?}");
        }
    }
}

/// `#% key: value` directives of a table file.
fn directives(file: &str) -> Vec<(String, String)> {
    std::fs::read_to_string(common::root().join(file))
        .unwrap()
        .lines()
        .filter_map(|l| l.strip_prefix("#% "))
        .filter_map(|l| l.split_once(": "))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// The counts a `#% crosscheck:` directive states.
fn stated(v: &str) -> Counts {
    let tail = v.split("rules): ").nth(1).expect("crosscheck counts");
    let n = |w: &str| -> usize {
        let i = tail.find(w).unwrap_or_else(|| panic!("{w} in {tail}"));
        tail[..i]
            .split_whitespace()
            .last()
            .unwrap()
            .trim_start_matches('(')
            .parse()
            .unwrap()
    };
    Counts {
        agree: n(" agree"),
        none: n(" no entry"),
        resolved: n(" resolved"),
        verify: n(" VERIFY"),
    }
}

#[test]
fn musa_rows_agree_with_torchada_or_carry_their_decision() {
    let Some(wheel) = common::require_corpus("torchada-", T) else {
        return;
    };
    let file = wheel.file_name().unwrap().to_str().unwrap().to_string();
    let version = file.split('-').nth(1).unwrap();
    let tag = format!("torchada@{version}");
    let rules = torchada_rules(&wheel);
    // Facts of torchada 0.1.x's _mappings the comparison relies on.
    let get = |k: &str| rules.iter().find(|(a, _)| a == k).map(|(_, v)| v.as_str());
    assert_eq!(get("cudaMalloc"), Some("musaMalloc"));
    assert_eq!(get("c10::cuda"), Some("c10::musa"));
    assert_eq!(get("cublas"), Some("mublas"));

    let musa: Table = load_builtin("musa").expect("built-in musa tables");
    let mut counts: BTreeMap<String, Counts> = BTreeMap::new();
    for r in musa.symbols() {
        let ours = match r.kind {
            Kind::Rename | Kind::Unsupported => r.target_name.as_deref().unwrap_or("-"),
            Kind::Shim => r.via.as_deref().unwrap_or("-"),
            Kind::Noop => "-",
        };
        let (src, got, ours) = if r.cuda_name.starts_with("_Z") {
            let d = demangle(&r.cuda_name);
            let o = if ours == "-" {
                "-".into()
            } else {
                demangle(ours)
            };
            (d.clone(), port(&rules, &d, true), o)
        } else {
            (
                r.cuda_name.clone(),
                port(&rules, &r.cuda_name, false),
                ours.to_string(),
            )
        };
        let seen = Seen {
            what: format!("{}:{} {}", r.origin.file, r.origin.line, r.cuda_name),
            src,
            got,
            ours,
            maps: matches!(r.kind, Kind::Rename | Kind::Shim),
            notes: &r.notes,
        };
        check_row(
            &tag,
            &seen,
            counts.entry(r.origin.file.clone()).or_default(),
        );
    }
    let stem = |s: &str| s.split(".so").next().unwrap().to_string();
    for r in musa.sonames() {
        let src = stem(&r.cuda_soname);
        let ours = r
            .target_soname
            .as_deref()
            .map(stem)
            .unwrap_or_else(|| "-".into());
        let seen = Seen {
            what: format!("{}:{} {}", r.origin.file, r.origin.line, r.cuda_soname),
            got: port(&rules, &src, false),
            src,
            ours,
            maps: r.kind == Kind::Rename,
            notes: &r.notes,
        };
        check_row(
            &tag,
            &seen,
            counts.entry(r.origin.file.clone()).or_default(),
        );
    }
    // cublas, cublasLt, cudart12, cudart13 (CUDA 13's changed functions), driver, sonames, torch.
    assert_eq!(
        counts.len(),
        7,
        "every musa file is cross-checked: {counts:?}"
    );
    let mut not_added: Vec<(String, String)> = Vec::new();
    for (f, c) in &counts {
        let d = directives(f);
        let cross: Vec<&String> = d
            .iter()
            .filter(|(k, _)| k == "crosscheck")
            .map(|(_, v)| v)
            .collect();
        assert_eq!(cross.len(), 1, "{f}: one #% crosscheck directive");
        assert!(
            cross[0].starts_with(&format!(
                "{tag} (PyPI {}",
                file.trim_end_matches(".whl")
                    .trim_end_matches("-py3-none-any")
            )),
            "{f}: {}",
            cross[0]
        );
        assert_eq!(
            &stated(cross[0]),
            c,
            "{f}: the directive's counts are the rows'"
        );
        for (k, v) in d {
            if k == "torchada-not-added" {
                let (n, why) = v.split_once(": ").unwrap();
                not_added.push((n.to_string(), format!("{f}: {why}")));
            }
        }
    }
    // Every torchada cuBLAS / cuBLASLt / driver function entry is a row of the matching
    // file or is named, with its reason, as not added there.
    let in_file = |n: &str, f: &str| {
        musa.symbols()
            .iter()
            .any(|r| r.cuda_name == n && r.origin.file.ends_with(f))
            || not_added.iter().any(|(a, w)| a == n && w.contains(f))
    };
    let ident = |k: &str, p: &str| {
        k.strip_prefix(p).is_some_and(|r| {
            r.starts_with(|c: char| c.is_ascii_uppercase())
                && r.chars().all(|c| c.is_ascii_alphanumeric())
        })
    };
    let mut checked = 0;
    for (k, _) in &rules {
        let f = if ident(k, "cublasLt") {
            "musa/cublasLt.tsv"
        } else if ident(k, "cublas") {
            "musa/cublas.tsv"
        } else if ident(k, "cu") {
            "musa/driver.tsv"
        } else {
            continue;
        };
        checked += 1;
        assert!(
            in_file(k, f),
            "torchada maps {k}: no row in {f} and no torchada-not-added line"
        );
    }
    assert!(checked > 30, "{checked} torchada function entries checked");
    // The row torchada was right about: the AOTI stream getter keeps its parameters.
    let r = musa.symbol("aoti_torch_get_current_cuda_stream").unwrap();
    assert_eq!(
        (r.kind, r.target_name.as_deref()),
        (Kind::Rename, get("aoti_torch_get_current_cuda_stream"))
    );
    let total: usize = counts
        .values()
        .map(|c| c.agree + c.none + c.resolved + c.verify)
        .sum();
    assert_eq!(total, musa.symbols().len() + musa.sonames().len());
    eprintln!("{tag}: {counts:?}");
}
