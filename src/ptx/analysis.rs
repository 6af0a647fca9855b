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
//! its header for the format. A form matches a table line with the same modifiers in another
//! order where the order is free ([`form_key`]): the table lists each form once, in the order
//! nvcc writes it, and CUTLASS's `ld.global.acquire.gpu.b32` matches its
//! `ld.acquire.gpu.global.b32`.

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

/// Whether the modifier `m` is left out of a form (see the module docs).
pub fn dropped(m: &str) -> bool {
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
/// line) in order of first appearance, the call targets in source order, the symbols its
/// instructions name (see [`ModuleForms::refs`]), and whether one of them is `exit`.
struct FuncSummary<'a> {
    forms: Vec<(u32, usize, u32)>,
    callees: Vec<&'a str>,
    refs: Vec<&'a str>,
    exits: bool,
}

/// The forms of a module, interned: the form strings and a map from (opcode, modifier span)
/// to the form id, so that each distinct spelling is formatted once per module.
struct Interner<'a> {
    forms: Vec<String>,
    by_text: FastMap<String, u32>,
    by_span: FastMap<(crate::ptx::isa::Opcode, &'a str), u32>,
    /// The last few keys looked up and their ids (most instructions repeat a recent form).
    recent: [(crate::ptx::isa::Opcode, &'a str, u32); RECENT],
    next_recent: usize,
    buf: String,
    /// Per form id: 0 not yet known, 1 supported, 2 not (see [`is_supported`]).
    supported: Vec<u8>,
}

/// How many recent (opcode, modifier span) keys [`Interner::id`] checks before hashing.
const RECENT: usize = 4;

impl<'a> Interner<'a> {
    fn new() -> Interner<'a> {
        Interner {
            forms: Vec::new(),
            by_text: FastMap::default(),
            by_span: FastMap::default(),
            recent: [(crate::ptx::isa::Opcode::Ret, "\u{0}", u32::MAX); RECENT],
            next_recent: 0,
            buf: String::new(),
            supported: Vec::new(),
        }
    }

    #[inline]
    fn id(&mut self, i: &Instruction<'a>) -> u32 {
        let span = i.modifiers.span();
        for &(op, sp, k) in &self.recent {
            // Same opcode and the same span (same text at the same place, or equal text).
            if k != u32::MAX
                && op == i.opcode
                && sp.len() == span.len()
                && (sp.as_ptr() == span.as_ptr() || sp == span)
            {
                return k;
            }
        }
        let k = self.id_slow(i.opcode, span, i);
        self.recent[self.next_recent] = (i.opcode, span, k);
        self.next_recent = (self.next_recent + 1) % RECENT;
        k
    }

    fn id_slow(&mut self, op: crate::ptx::isa::Opcode, span: &'a str, i: &Instruction<'a>) -> u32 {
        let key = (op, span);
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

    /// Whether form `k` is in the supported-forms table (looked up once per form).
    fn is_supported(&mut self, k: u32) -> bool {
        let k = k as usize;
        if self.supported.len() <= k {
            self.supported.resize(self.forms.len().max(k + 1), 0);
        }
        if self.supported[k] == 0 {
            self.supported[k] = if is_supported_in(&self.forms[k], &mut self.buf) {
                1
            } else {
                2
            };
        }
        self.supported[k] == 1
    }

    fn summarise(&mut self, b: &Block<'a>) -> FuncSummary<'a> {
        let mut s = Summariser {
            forms: Vec::new(),
            pos: Vec::new(),
            callees: Vec::new(),
            refs: Vec::new(),
            exits: false,
        };
        s.block(self, b);
        FuncSummary {
            forms: s.forms,
            callees: s.callees,
            refs: s.refs,
            exits: s.exits,
        }
    }
}

/// The state of one [`Interner::summarise`] walk.
struct Summariser<'a> {
    forms: Vec<(u32, usize, u32)>,
    /// Position of each form id in `forms` (ids are dense per module).
    pos: Vec<u32>,
    callees: Vec<&'a str>,
    refs: Vec<&'a str>,
    exits: bool,
}

impl<'a> Summariser<'a> {
    fn block(&mut self, it: &mut Interner<'a>, b: &Block<'a>) {
        for st in &b.stmts {
            match st {
                Statement::Instruction(i) => self.instruction(it, i),
                Statement::Block(inner) => self.block(it, inner),
                _ => {}
            }
        }
    }

    #[inline]
    fn instruction(&mut self, it: &mut Interner<'a>, i: &Instruction<'a>) {
        let k = it.id(i) as usize;
        if self.pos.len() <= k {
            self.pos.resize(k + 1, u32::MAX);
        }
        match self.pos[k] {
            u32::MAX => {
                self.pos[k] = self.forms.len() as u32;
                self.forms.push((k as u32, 1, i.loc.line));
            }
            p => self.forms[p as usize].1 += 1,
        }
        if let Some(t) = i.call_target() {
            self.callees.push(t);
        }
        self.exits |= i.opcode == crate::ptx::isa::Opcode::Exit;
        for o in i.operands.iter() {
            match o {
                Operand::Func(n) | Operand::Symbol(n) => self.refs.push(n.as_str()),
                Operand::Address(a) => {
                    if let Address::Offset {
                        base: Some(AddrBase::Symbol(n)),
                        ..
                    } = &**a
                    {
                        self.refs.push(n)
                    }
                }
                _ => {}
            }
        }
    }
}

/// The instruction forms of a module's kernels, computed kernel by kernel on demand (each
/// function's body is summarised once, on first use), and the symbols each function names.
///
/// [`kernel_forms`] is this for every `.entry` in order; the lowering asks for one kernel's
/// forms just before it lowers that kernel (its body is then still in the cache), and for the
/// functions a kernel reaches from the same summaries instead of walking the bodies again.
pub(crate) struct ModuleForms<'m, 'a> {
    /// Functions with a body, by name (the last definition of a name).
    funcs: HashMap<&'a str, &'m Function<'a>>,
    interner: Interner<'a>,
    /// Summaries by the function's address (a name may be defined twice).
    summaries: FastMap<usize, FuncSummary<'a>>,
}

impl<'m, 'a> ModuleForms<'m, 'a> {
    /// Ready to analyse the kernels of `m` (nothing is summarised yet).
    pub(crate) fn new(m: &'m Module<'a>) -> ModuleForms<'m, 'a> {
        ModuleForms {
            funcs: m
                .functions()
                .filter(|f| f.body.is_some())
                .map(|f| (f.name, f))
                .collect(),
            interner: Interner::new(),
            summaries: FastMap::default(),
        }
    }

    /// The summary of `f`, made on first use.
    fn summary(&mut self, f: &'m Function<'a>) -> &FuncSummary<'a> {
        let key = f as *const Function<'a> as usize;
        if !self.summaries.contains_key(&key) {
            let s = match &f.body {
                Some(b) => self.interner.summarise(b),
                None => FuncSummary {
                    forms: Vec::new(),
                    callees: Vec::new(),
                    refs: Vec::new(),
                    exits: false,
                },
            };
            self.summaries.insert(key, s);
        }
        &self.summaries[&key]
    }

    /// Whether an instruction of `f` is `exit`.
    pub(crate) fn exits(&mut self, f: &'m Function<'a>) -> bool {
        self.summary(f).exits
    }

    /// The symbols the instructions of `f` name, in source order with repeats: `Func` and
    /// `Symbol` operands and the symbol bases of `[sym+off]` addresses (not inside
    /// vector or list operands).
    pub(crate) fn refs(&mut self, f: &'m Function<'a>) -> &[&'a str] {
        &self.summary(f).refs
    }

    /// Walk kernel `f` and the functions it calls (transitively), in the order of
    /// [`kernel_forms`]: `each(form id, count, first line)` for every function's forms, and
    /// the callees by name.
    fn walk(
        &mut self,
        f: &'m Function<'a>,
        mut each: impl FnMut(&mut Interner<'a>, u32, usize, u32),
    ) -> Vec<String> {
        let mut seen: HashSet<&str> = HashSet::new();
        let mut queue = vec![f];
        let mut callees: Vec<String> = Vec::new();
        seen.insert(f.name);
        while let Some(g) = queue.pop() {
            if g.body.is_none() {
                continue;
            }
            self.summary(g);
            let key = g as *const Function<'a> as usize;
            let sum = &self.summaries[&key];
            for &(k, n, line) in &sum.forms {
                each(&mut self.interner, k, n, line);
            }
            for &c in &sum.callees {
                if let Some(h) = self.funcs.get(c) {
                    if seen.insert(h.name) {
                        callees.push(h.name.to_string());
                        queue.push(h);
                    }
                } else if !callees.iter().any(|x| x == c) && seen.insert(c) {
                    callees.push(c.to_string());
                }
            }
        }
        callees
    }

    /// The forms of kernel `f` (an `.entry` with a body) and the functions it calls.
    pub(crate) fn kernel(&mut self, f: &'m Function<'a>) -> KernelForms {
        let mut forms: Vec<FormUse> = Vec::new();
        let mut pos: Vec<u32> = Vec::new();
        let callees = self.walk(f, |it, k, n, line| {
            if pos.len() <= k as usize {
                pos.resize(it.forms.len().max(k as usize + 1), u32::MAX);
            }
            match pos[k as usize] {
                u32::MAX => {
                    pos[k as usize] = forms.len() as u32;
                    forms.push(FormUse {
                        form: it.forms[k as usize].clone(),
                        count: n,
                        first_line: line,
                    });
                }
                p => forms[p as usize].count += n,
            }
        });
        KernelForms {
            kernel: f.name.to_string(),
            line: f.loc.line,
            forms,
            callees,
            invalid: Vec::new(),
        }
    }

    /// The forms of kernel `f` (and the functions it calls) that the lowering does not
    /// support, in order of first appearance: [`unsupported_forms`] of [`Self::kernel`]'s
    /// result, without building it.
    pub(crate) fn kernel_unsupported(&mut self, f: &'m Function<'a>) -> Vec<String> {
        let mut out: Vec<u32> = Vec::new();
        self.walk(f, |it, k, _, _| {
            if !it.is_supported(k) && !out.contains(&k) {
                out.push(k);
            }
        });
        out.iter()
            .map(|&k| self.interner.forms[k as usize].clone())
            .collect()
    }
}

/// Instruction forms per `.entry` in source order (see [`KernelForms`]).
///
/// One pass over the module: every function body is summarised once (its forms interned by
/// opcode and modifier span), and each kernel merges the summaries of the functions it
/// reaches, in the same order as a walk of the kernel and then its callees would visit them.
pub fn kernel_forms(m: &Module<'_>) -> Vec<KernelForms> {
    let mut mf = ModuleForms::new(m);
    let mut out = Vec::new();
    for d in &m.items {
        match d {
            Directive::Function(f) if f.kind == FunctionKind::Entry && f.body.is_some() => {
                out.push(mf.kernel(f));
            }
            Directive::Invalid(i) if i.kind == Some(FunctionKind::Entry) => {
                out.push(invalid_kernel(i));
            }
            _ => {}
        }
    }
    out
}

/// The [`KernelForms`] of an `.entry` that did not parse.
pub(crate) fn invalid_kernel(i: &InvalidDirective<'_>) -> KernelForms {
    KernelForms {
        kernel: i.name.unwrap_or("<unnamed>").to_string(),
        line: i.loc.line,
        forms: Vec::new(),
        callees: Vec::new(),
        invalid: i.reasons.clone(),
    }
}

/// The supported-forms table source (`kernels-ir/supported-forms.txt`).
pub const SUPPORTED_FORMS: &str = include_str!("../../kernels-ir/supported-forms.txt");

/// The supported forms, by [`form_key`].
fn supported() -> &'static HashSet<String> {
    static S: OnceLock<HashSet<String>> = OnceLock::new();
    S.get_or_init(|| {
        parse_forms_table(SUPPORTED_FORMS)
            .into_iter()
            .map(|f| form_key(f).unwrap_or_else(|| f.to_string()))
            .collect()
    })
}

/// Read a forms table (format: see `kernels-ir/supported-forms.txt`): its forms as written.
pub fn parse_forms_table(src: &str) -> HashSet<&str> {
    src.lines()
        .filter_map(|l| l.split('#').next())
        .filter_map(|l| l.split_whitespace().next())
        .collect()
}

/// The key a form is matched by: the opcode and its modifiers in the canonical order of
/// [`crate::ptx::mods::canonical_words`] (`ld.global.acquire.gpu.b32` and
/// `ld.acquire.gpu.global.b32` have the same key), or `None` when the form's opcode or one of
/// its words is no PTX one.
pub fn form_key(form: &str) -> Option<String> {
    let mut key = String::with_capacity(form.len());
    push_form_key(form, &mut key).then_some(key)
}

/// [`form_key`] appended to `out`; `false` when the form has none.
fn push_form_key(form: &str, out: &mut String) -> bool {
    let (op, rest) = match form.find('.') {
        Some(k) => form.split_at(k),
        None => (form, ""),
    };
    let Some(op) = crate::ptx::isa::Opcode::from_name(op) else {
        return false;
    };
    crate::ptx::mods::push_canonical(op, dotted_words(rest), out)
}

/// The `.word`s of `s` (`".global.u32"` → `.global`, `.u32`).
fn dotted_words(s: &str) -> impl Iterator<Item = &str> {
    let b = s.as_bytes();
    let mut start = 0;
    std::iter::from_fn(move || {
        if start >= b.len() {
            return None;
        }
        let end = b[start + 1..]
            .iter()
            .position(|&c| c == b'.')
            .map_or(b.len(), |k| start + 1 + k);
        let w = &s[start..end];
        start = end;
        Some(w)
    })
}

/// A form's opcode and its modifier words (each with its dot): `ld.global.u32` →
/// (`ld`, [`.global`, `.u32`]).
pub fn form_words(form: &str) -> (&str, Vec<&str>) {
    match form.find('.') {
        Some(k) => (&form[..k], dotted_words(&form[k..]).collect()),
        None => (form, Vec::new()),
    }
}

/// Whether the lowering supports `form`: a form of `kernels-ir/supported-forms.txt` with the
/// same [`form_key`], so in any order of its modifiers that `ptxas` leaves free.
pub fn is_supported(form: &str) -> bool {
    is_supported_in(form, &mut String::new())
}

/// [`is_supported`] with `buf` for the key.
fn is_supported_in(form: &str, buf: &mut String) -> bool {
    buf.clear();
    if push_form_key(form, buf) {
        supported().contains(buf.as_str())
    } else {
        supported().contains(form)
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_table_form_has_a_key() {
        for f in parse_forms_table(SUPPORTED_FORMS) {
            assert!(form_key(f).is_some(), "{f}");
        }
    }

    #[test]
    fn forms_match_in_any_free_order() {
        for (table, other) in [
            ("ld.acquire.gpu.global.b32", "ld.global.acquire.gpu.b32"),
            ("st.release.gpu.global.u32", "st.global.release.gpu.u32"),
            ("vote.sync.ballot.b32", "vote.ballot.sync.b32"),
            ("fence.sc.sys", "fence.sys.sc"),
            ("atom.relaxed.gpu.add.u64", "atom.add.relaxed.gpu.u64"),
            ("shfl.sync.bfly.b32", "shfl.bfly.sync.b32"),
            ("setp.eq.and.f32", "setp.and.eq.f32"),
        ] {
            assert!(is_supported(table), "{table}");
            assert!(is_supported(other), "{other}");
            assert_eq!(form_key(table), form_key(other));
        }
        // The order of the types, state spaces and layouts is kept.
        assert!(is_supported("cvt.rn.f32.s32"));
        assert_ne!(form_key("cvt.rn.f32.s32"), form_key("cvt.rn.s32.f32"));
        assert!(!is_supported("cp.async.global.shared"));
        assert!(!is_supported("mma.sync.m16n8k16.col.row.f32.bf16.bf16.f32"));
        assert!(is_supported("ld.global.acquire.gpu.b128"));
        assert!(!is_supported("st.mmio.relaxed.sys.global.b128"));
        assert_eq!(form_words("ld.global.u32"), ("ld", vec![".global", ".u32"]));
        assert_eq!(form_words("ret"), ("ret", vec![]));
    }
}
