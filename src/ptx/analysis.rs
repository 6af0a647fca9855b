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
    let mut s = String::from(i.opcode.name());
    for m in i.modifiers.iter() {
        if !dropped(m) {
            s.push_str(m);
        }
    }
    s
}

/// Instruction forms per `.entry` in source order (see [`KernelForms`]).
pub fn kernel_forms(m: &Module<'_>) -> Vec<KernelForms> {
    let funcs: HashMap<&str, &Function<'_>> = m
        .functions()
        .filter(|f| f.body.is_some())
        .map(|f| (f.name, f))
        .collect();
    let mut out = Vec::new();
    for d in &m.items {
        match d {
            Directive::Function(f) if f.kind == FunctionKind::Entry && f.body.is_some() => {
                let mut forms: Vec<FormUse> = Vec::new();
                let mut index: HashMap<String, usize> = HashMap::new();
                let mut seen: HashSet<&str> = HashSet::new();
                let mut queue = vec![f];
                let mut callees = Vec::new();
                seen.insert(f.name);
                while let Some(g) = queue.pop() {
                    let Some(b) = &g.body else { continue };
                    b.for_each_instruction(&mut |i| {
                        let form = form_of(i);
                        match index.get(&form) {
                            Some(&k) => forms[k].count += 1,
                            None => {
                                index.insert(form.clone(), forms.len());
                                forms.push(FormUse {
                                    form,
                                    count: 1,
                                    first_line: i.loc.line,
                                });
                            }
                        }
                    });
                    for c in g.callees() {
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
