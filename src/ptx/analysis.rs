//! Per-kernel instruction-form analysis for `inspect --untranslatable` and the lowering.
//!
//! A *form* is an opcode plus the modifiers that change what the lowering must emit, in source
//! order, joined without spaces: `ld.global.nc.v4.u32`, `shfl.sync.bfly.b32`,
//! `mma.sync.m16n8k16.row.col.f32.bf16.bf16.f32`.
//!
//! Dropped (they are performance hints or assertions that do not change the result):
//! * cache operators `.ca .cg .cs .lu .cv .wb .wt` (PTX ISA 9.x §9.7.9.1 "Cache operators");
//! * cache-eviction and prefetch-size hints `.L1::*`, `.L2::*`, `.level::*` (§9.7.9.8 `ld`,
//!   §9.7.9.25 `cp.async`), and `.unified`;
//! * `.aligned` (an assertion that all threads execute the instruction, §9.7.13) and `.uni`
//!   (non-divergence hint on `bra`/`call`/`ret`, §9.7.12).
//!
//! Everything else is kept: state space, `.nc`, `.volatile`, memory order and scope, vector
//! width, types, rounding, `.ftz`/`.sat`, shapes and layouts.
//!
//! Which forms are supported is the table `kernels-ir/supported-forms.txt` (compiled in); see
//! its header for the format.

use std::collections::{HashMap, HashSet};
use std::sync::OnceLock;

use serde::Serialize;

use super::ast::*;

/// One instruction form used by a kernel.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FormUse {
    /// The form, e.g. `ld.global.nc.v4.u32`.
    pub form: String,
    /// How many instructions of the kernel (and the functions it calls) have this form.
    pub count: usize,
    /// Source line of the first one (in the kernel, or else in the first callee using it).
    pub first_line: u32,
}

/// The forms used by one `.entry`, including the `.func`s it calls (transitively).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct KernelForms {
    /// The kernel name.
    pub kernel: String,
    /// Source line of the `.entry`.
    pub line: u32,
    /// Forms in order of first appearance.
    pub forms: Vec<FormUse>,
    /// Functions called directly or indirectly (by name), in order of discovery.
    pub callees: Vec<String>,
    /// If the kernel did not parse: the reasons (then `forms` is empty and nothing of it is
    /// translatable).
    pub invalid: Vec<String>,
}

fn dropped(m: &str) -> bool {
    matches!(
        m,
        ".ca" | ".cg" | ".cs" | ".lu" | ".cv" | ".wb" | ".wt" | ".unified" | ".aligned" | ".uni"
    ) || m.starts_with(".L1::")
        || m.starts_with(".L2::")
        || m.starts_with(".level::")
}

/// The form of one instruction (see the module docs for what is dropped).
pub fn form_of(i: &Instruction<'_>) -> String {
    let mut s = String::new();
    push_form(&mut s, i);
    s
}

/// Append the form of `i` to `s` (see [`form_of`]).
fn push_form(s: &mut String, i: &Instruction<'_>) {
    s.push_str(i.opcode.name());
    for m in i.modifiers.iter() {
        if !dropped(m) {
            s.push_str(m);
        }
    }
}

type FastMap<K, V> = HashMap<K, V, foldhash::fast::FixedState>;

/// One function's own instructions, summarised once per module: (form id, count, first
/// line) in order of first appearance, and the call targets in source order.
struct FuncSummary<'a> {
    forms: Vec<(u32, usize, u32)>,
    callees: Vec<&'a str>,
}

/// The forms of a module, interned: the form strings and a map from (opcode, modifier span)
/// to the form id, so that each distinct spelling is formatted once per module.
#[derive(Default)]
struct Interner<'a> {
    forms: Vec<String>,
    by_text: FastMap<String, u32>,
    by_span: FastMap<(crate::ptx::isa::Opcode, &'a str), u32>,
    buf: String,
}

impl<'a> Interner<'a> {
    fn id(&mut self, i: &Instruction<'a>) -> u32 {
        let key = (i.opcode, i.modifiers.span());
        if let Some(&k) = self.by_span.get(&key) {
            return k;
        }
        self.buf.clear();
        push_form(&mut self.buf, i);
        let k = match self.by_text.get(self.buf.as_str()) {
            Some(&k) => k,
            None => {
                let k = self.forms.len() as u32;
                self.forms.push(self.buf.clone());
                self.by_text.insert(self.buf.clone(), k);
                k
            }
        };
        self.by_span.insert(key, k);
        k
    }

    fn summarise(&mut self, b: &Block<'a>) -> FuncSummary<'a> {
        let mut forms: Vec<(u32, usize, u32)> = Vec::new();
        // Position of each form id in `forms` (ids are dense per module).
        let mut pos: Vec<u32> = Vec::new();
        let mut callees = Vec::new();
        b.for_each_instruction(&mut |i| {
            let k = self.id(i) as usize;
            if pos.len() <= k {
                pos.resize(k + 1, u32::MAX);
            }
            match pos[k] {
                u32::MAX => {
                    pos[k] = forms.len() as u32;
                    forms.push((k as u32, 1, i.loc.line));
                }
                p => forms[p as usize].1 += 1,
            }
            if let Some(t) = i.call_target() {
                callees.push(t);
            }
        });
        FuncSummary { forms, callees }
    }
}

/// Instruction forms per `.entry` in source order (see [`KernelForms`]).
///
/// One pass over the module: every function body is summarised once (its forms interned by
/// opcode and modifier span), and each kernel merges the summaries of the functions it
/// reaches, in the same order as a walk of the kernel and then its callees would visit them.
pub fn kernel_forms(m: &Module<'_>) -> Vec<KernelForms> {
    let funcs: HashMap<&str, &Function<'_>> = m
        .functions()
        .filter(|f| f.body.is_some())
        .map(|f| (f.name, f))
        .collect();
    let mut interner = Interner::default();
    let mut summaries: FastMap<&str, FuncSummary<'_>> = FastMap::default();
    let mut out = Vec::new();
    for d in &m.items {
        match d {
            Directive::Function(f) if f.kind == FunctionKind::Entry && f.body.is_some() => {
                let mut forms: Vec<FormUse> = Vec::new();
                let mut pos: Vec<u32> = vec![u32::MAX; interner.forms.len()];
                let mut seen: HashSet<&str> = HashSet::new();
                let mut queue = vec![f];
                let mut callees = Vec::new();
                seen.insert(f.name);
                while let Some(g) = queue.pop() {
                    let Some(b) = &g.body else { continue };
                    // Summaries are per function, so a function defined twice (the kernel
                    // itself or a redefinition) is keyed by its address.
                    let key: &str = if std::ptr::eq(g, f) { "" } else { g.name };
                    if key.is_empty() || !summaries.contains_key(key) {
                        let s = interner.summarise(b);
                        summaries.insert(key, s);
                    }
                    let sum = &summaries[key];
                    if pos.len() < interner.forms.len() {
                        pos.resize(interner.forms.len(), u32::MAX);
                    }
                    for &(k, n, line) in &sum.forms {
                        match pos[k as usize] {
                            u32::MAX => {
                                pos[k as usize] = forms.len() as u32;
                                forms.push(FormUse {
                                    form: interner.forms[k as usize].clone(),
                                    count: n,
                                    first_line: line,
                                });
                            }
                            p => forms[p as usize].count += n,
                        }
                    }
                    for &c in &sum.callees {
                        if let Some(h) = funcs.get(c) {
                            if seen.insert(h.name) {
                                callees.push(h.name.to_string());
                                queue.push(h);
                            }
                        } else if !callees.iter().any(|x| x == c) && seen.insert(c) {
                            callees.push(c.to_string());
                        }
                    }
                }
                out.push(KernelForms {
                    kernel: f.name.to_string(),
                    line: f.loc.line,
                    forms,
                    callees,
                    invalid: Vec::new(),
                });
            }
            Directive::Invalid(i) if i.kind == Some(FunctionKind::Entry) => {
                out.push(KernelForms {
                    kernel: i.name.unwrap_or("<unnamed>").to_string(),
                    line: i.loc.line,
                    forms: Vec::new(),
                    callees: Vec::new(),
                    invalid: i.reasons.clone(),
                });
            }
            _ => {}
        }
    }
    out
}

/// The supported-forms table source (`kernels-ir/supported-forms.txt`).
pub const SUPPORTED_FORMS: &str = include_str!("../../kernels-ir/supported-forms.txt");

fn supported() -> &'static HashSet<&'static str> {
    static S: OnceLock<HashSet<&'static str>> = OnceLock::new();
    S.get_or_init(|| parse_forms_table(SUPPORTED_FORMS))
}

/// Read a forms table (format: see `kernels-ir/supported-forms.txt`).
pub fn parse_forms_table(src: &str) -> HashSet<&str> {
    src.lines()
        .filter_map(|l| l.split('#').next())
        .filter_map(|l| l.split_whitespace().next())
        .collect()
}

/// Whether the lowering supports `form` (exact match in `kernels-ir/supported-forms.txt`).
pub fn is_supported(form: &str) -> bool {
    supported().contains(form)
}

/// The forms of `k` that the lowering does not support, in order of first appearance.
pub fn unsupported_forms(k: &KernelForms) -> Vec<&FormUse> {
    k.forms.iter().filter(|f| !is_supported(&f.form)).collect()
}

/// A function's statements in order, flattened through nested blocks (for classifiers such as
/// the arch-guard stub detector).
pub fn flat_statements<'m, 'a>(f: &'m Function<'a>) -> Vec<&'m Statement<'a>> {
    fn walk<'m, 'a>(b: &'m Block<'a>, out: &mut Vec<&'m Statement<'a>>) {
        for s in &b.stmts {
            match s {
                Statement::Block(inner) => walk(inner, out),
                _ => out.push(s),
            }
        }
    }
    let mut out = Vec::new();
    if let Some(b) = &f.body {
        walk(b, &mut out);
    }
    out
}
