//! Module-level lowering: variables, function signatures, which kernels lower, and the final
//! IR text.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt::Write;

use crate::elf::launch::LaunchFacts;
use crate::ptx::analysis::{invalid_kernel, kernel_forms, ModuleForms};
use crate::ptx::ast::*;
use crate::target::{Family, Profile};

use super::emit::{
    emit_function, global_text, ident, slot_of, EntryInit, Fail, ModCx, ParamHome, Sig, Slot, V,
};
use super::{KernelOutcome, KernelResult, LoweredModule, ParamLayout};

/// Functions of the CUDA device runtime that PTX declares `.extern` and the lowering maps, per
/// family: `(PTX name, amdgcn replacement)`. On nvptx they are kept (ptxas links them).
const DEVICE_RUNTIME: &[(&str, &str)] = &[
    ("vprintf", "__wp_vprintf"),
    ("__assertfail", "__wp_assertfail"),
];

/// The PTX parameter layout of a kernel (PTX ISA 9.x §5.1.6.1 "Kernel function parameters"):
/// each parameter at the next multiple of its alignment (`.align N`, else the element size),
/// of size element size × vector width × array length.
pub fn param_layout(f: &Function<'_>) -> Vec<ParamLayout> {
    let mut out = Vec::new();
    let mut off = 0u32;
    for v in &f.params {
        for d in &v.decls {
            let (size, align) = match slot_of(v, d) {
                Some(s) => (s.size(), v.align.unwrap_or(s.align())),
                None => (0, 1),
            };
            let align = align.max(1);
            off = off.div_ceil(align) * align;
            out.push(ParamLayout {
                name: d.name.to_string(),
                offset: off,
                size,
                align,
            });
            off += size;
        }
    }
    out
}

/// Parse PTX text and lower it (see [`lower_module`]). `file` names the input in the
/// functions' parse errors, which make their kernels [`KernelOutcome::Unsupported`].
pub fn lower_ptx(text: &str, file: &str, profile: &Profile) -> LoweredModule {
    let parsed = crate::ptx::parse(text, file);
    lower_module(&parsed.module, profile)
}

/// Lower a PTX module to LLVM IR text for `profile` (family amdgcn or nvptx).
///
/// Every `.entry` is in [`LoweredModule::kernels`], in source order: lowered (defined in the
/// IR with its exact PTX name and parameter layout) or unsupported with the instruction forms
/// (as [`crate::ptx::analysis::form_of`] names them) or the reason. A profile without an LLVM
/// backend (`musa`) reports every kernel unsupported.
pub fn lower_module<'a>(m: &Module<'a>, profile: &Profile) -> LoweredModule {
    lower_module_with(m, profile, &LaunchFacts::default())
}

/// [`lower_module`] with the host code's launch facts ([`crate::elf::launch`]): on amdgcn, a
/// kernel without `.maxntid`/`.reqntid` whose launches the host code shows gets
/// `"amdgpu-flat-work-group-size"="1,N"` for the largest block `N` it is launched with (so
/// the register budget is that of `N`-thread blocks, not 1,024), and a note in
/// [`KernelResult::notes`] saying so. The nvptx twin ignores them (its PTX is the original's).
pub fn lower_module_with<'a>(
    m: &Module<'a>,
    profile: &Profile,
    launch: &LaunchFacts,
) -> LoweredModule {
    let mut results: Vec<KernelResult> = Vec::new();
    let entries: Vec<&Function<'a>> = m
        .functions()
        .filter(|f| f.kind == FunctionKind::Entry && f.body.is_some())
        .collect();
    if profile.family == Family::None || profile.datalayout.is_empty() {
        for k in &kernel_forms(m) {
            let f = entries.iter().find(|f| f.name == k.kernel);
            results.push(KernelResult {
                name: k.kernel.clone(),
                outcome: KernelOutcome::Unsupported {
                    forms: Vec::new(),
                    reason: format!("target {} has no device compiler here", profile.name),
                },
                params: f.map(|f| param_layout(f)).unwrap_or_default(),
                notes: Vec::new(),
            });
        }
        return LoweredModule {
            ir: String::new(),
            kernels: results,
            support_library: profile.ir_library.clone(),
        };
    }
    let nv = profile.family == Family::Nvptx;
    let alloca_as = if profile.datalayout.contains("-A5") {
        5
    } else {
        0
    };
    let mut cx = ModCx {
        prof: profile,
        nv,
        alloca_as,
        decls: BTreeMap::new(),
        globals: HashMap::new(),
        funcs: HashMap::new(),
        extra_globals: String::new(),
        alloca_buf: String::new(),
        module: m,
        uniq: 0,
        soft_barrier_funcs: HashSet::new(),
        exit_funcs: HashSet::new(),
        printf_fifo: false,
        launch,
    };
    // The kernels' forms, the symbols each function names and whether it holds `exit`,
    // summarised function by function on first use (one walk of each body besides the
    // emitter's).
    let mut mf = ModuleForms::new(m);
    if !nv {
        let defined: Vec<&Function<'_>> = m
            .functions()
            .filter(|f| f.kind != FunctionKind::Entry && f.body.is_some())
            .collect();
        if defined.iter().any(|f| mf.exits(f)) {
            cx.exit_funcs = defined.iter().map(|f| f.name).collect();
        }
    }
    let _ = cx.module;

    // Variables: names first (initializers may take each other's addresses).
    let a = &profile.addrspace;
    for v in m.variables() {
        let aspace = match v.space {
            StateSpace::Global => a.global,
            StateSpace::Const => a.r#const,
            StateSpace::Shared | StateSpace::SharedCta => a.shared,
            _ => continue,
        };
        if matches!(v.ty, Type::Texref | Type::Samplerref | Type::Surfref) {
            continue;
        }
        for d in &v.decls {
            cx.globals.insert(d.name, (ident('@', d.name), aspace));
        }
    }
    // Function signatures.
    let mut declared_externs: Vec<&Function<'_>> = Vec::new();
    for f in m.functions() {
        if f.kind == FunctionKind::Entry {
            continue;
        }
        let slots = |vs: &[VarDecl<'_>]| -> Option<Vec<Slot>> {
            vs.iter()
                .flat_map(|v| v.decls.iter().map(move |d| slot_of(v, d)))
                .collect()
        };
        let (Some(params), Some(rets)) = (slots(&f.params), slots(&f.returns)) else {
            continue;
        };
        let defined = m.function(f.name).is_some_and(|g| g.body.is_some());
        if !defined && f.body.is_none() {
            declared_externs.push(f);
        }
        let mut llname = ident('@', f.name)[1..].to_string();
        if !defined && !nv {
            if let Some((_, r)) = DEVICE_RUNTIME.iter().find(|(n, _)| *n == f.name) {
                llname = r.to_string();
            }
        }
        cx.funcs.entry(f.name).or_insert(Sig {
            llname,
            params,
            rets,
        });
    }
    let defined: HashMap<&'a str, &Function<'a>> = m
        .functions()
        .filter(|f| f.kind == FunctionKind::Func && f.body.is_some())
        .map(|f| (f.name, f))
        .collect();
    // Module variables and the symbols their initializers take the address of (PTX ISA 9.x
    // §5.4.4 "Initializers": a function-pointer table is `.global .u64 t[2] = {f, g};`).
    let mut init_refs: HashMap<&'a str, Vec<&'a str>> = HashMap::new();
    for v in m.variables() {
        for d in &v.decls {
            let mut refs = Vec::new();
            if let Some(i) = &d.init {
                init_symbols(i, &mut refs);
            }
            init_refs.insert(d.name, refs);
        }
    }
    let mut func_text: HashMap<&str, Result<(String, Vec<String>), Fail>> = HashMap::new();
    let mut annotations: Vec<String> = Vec::new();
    let mut used_funcs: HashSet<&str> = HashSet::new();

    let mut globals_text = String::new();
    let mut bad_globals: HashMap<&str, String> = HashMap::new();
    for v in m.variables() {
        if !matches!(
            v.space,
            StateSpace::Global | StateSpace::Const | StateSpace::Shared | StateSpace::SharedCta
        ) || matches!(v.ty, Type::Texref | Type::Samplerref | Type::Surfref)
        {
            continue;
        }
        for d in &v.decls {
            // The initializer is emitted whichever kernels lower, so every function whose
            // address it takes (and what those call) is defined in the IR, not declared.
            let reach = reachable_names(&mut mf, &[d.name], &defined, &cx.funcs, &init_refs);
            let mut init_fail = None;
            for name in &reach {
                if let Some(g) = defined.get(name) {
                    if !func_text.contains_key(name) {
                        let r = emit_func(&mut cx, g);
                        func_text.insert(name, r);
                    }
                    if let Err(e) = &func_text[name] {
                        init_fail = Some(format!(
                            "its initializer takes the address of {name}, which is not lowered: {}: {}",
                            e.form, e.reason
                        ));
                        break;
                    }
                }
            }
            let text = match init_fail {
                Some(r) => Err(r),
                None => global_text(&cx, v, d, d.name).map_err(|e| e.reason),
            };
            match text {
                Ok((t, _)) => {
                    globals_text.push_str(&t);
                    used_funcs.extend(reach.iter().filter(|n| cx.funcs.contains_key(*n)));
                }
                Err(reason) => {
                    cx.globals.remove(d.name);
                    bad_globals.insert(d.name, reason);
                }
            }
        }
    }

    // The module's text: its head up to the globals, then the lowered kernels' definitions in
    // order, written in place by the emitter. Its capacity is estimated from the statements
    // of the kernels' bodies (nested blocks count one): 180-370 bytes of IR per statement
    // on the xformers modules; 400 leaves room, so that the text is not copied as it grows
    // (the unused part of the allocation is not touched). What else belongs
    // in the head (function-scope shared variables, the functions the kernels use) is known
    // only at the end and inserted then, in front of the kernels; most modules have none.
    let kernel_stmts: usize = entries
        .iter()
        .map(|f| f.body.as_ref().map_or(0, |b| b.stmts.len()))
        .sum();
    let mut kernel_text = String::with_capacity(kernel_stmts * 400 + globals_text.len() + 65536);
    let _ = writeln!(
        kernel_text,
        "; PTX lowered by wheelport for target {}",
        profile.name
    );
    let _ = writeln!(
        kernel_text,
        "target datalayout = \"{}\"",
        profile.datalayout
    );
    let _ = writeln!(kernel_text, "target triple = \"{}\"\n", profile.triple);
    kernel_text.push_str(&globals_text);
    kernel_text.push('\n');
    // The position of that `\n`, which ends the head.
    let head_end = kernel_text.len() - 1;

    // Emit every defined .func reachable from a kernel whose forms are all supported.

    // A kernel name lowers the first `.entry` of that name.
    let mut first_entry: HashMap<&str, &Function<'a>> = HashMap::with_capacity(entries.len());
    for f in &entries {
        first_entry.entry(f.name).or_insert(f);
    }
    // Every `.entry` in source order (as `kernel_forms` lists them).
    for d in &m.items {
        let (kname, item) = match d {
            Directive::Function(f) if f.kind == FunctionKind::Entry && f.body.is_some() => {
                (f.name, Ok(f))
            }
            Directive::Invalid(i) if i.kind == Some(FunctionKind::Entry) => {
                (i.name.unwrap_or("<unnamed>"), Err(i))
            }
            _ => continue,
        };
        let f = first_entry.get(kname).copied();
        let params = f.map(param_layout).unwrap_or_default();
        let unsupported =
            |forms: Vec<String>, reason: String| KernelOutcome::Unsupported { forms, reason };
        let Some(f) = f else {
            let invalid = match item {
                Err(i) => invalid_kernel(i).invalid,
                Ok(_) => Vec::new(),
            };
            results.push(KernelResult {
                name: kname.to_string(),
                outcome: unsupported(Vec::new(), format!("invalid PTX: {}", invalid.join("; "))),
                params,
                notes: Vec::new(),
            });
            continue;
        };
        // The forms of this `.entry` (an invalid one has none) that have no lowering.
        let missing: Vec<String> = match item {
            Ok(g) => mf.kernel_unsupported(g),
            Err(_) => Vec::new(),
        };
        if !missing.is_empty() {
            let mut reason = format!("no lowering for {}", missing.join(", "));
            // Forms that are a hardware or ABI gap of the target say why.
            for f in &missing {
                if let Some(gap) = super::forms::gap_reason(f) {
                    let _ = write!(reason, "; {f}: {gap}");
                }
            }
            results.push(KernelResult {
                name: kname.to_string(),
                outcome: unsupported(missing, reason),
                params,
                notes: Vec::new(),
            });
            continue;
        }
        // Reachable functions (called or address-taken).
        let reach = reachable(&mut mf, f, &defined, &cx.funcs, &init_refs);
        let mut fail_outcome: Option<KernelOutcome> = None;
        let mut notes = Vec::new();
        for name in &reach {
            if let Some(g) = defined.get(name) {
                if !func_text.contains_key(name) {
                    let r = emit_func(&mut cx, g);
                    func_text.insert(name, r);
                }
                match &func_text[name] {
                    Ok((_, n)) => notes.extend(n.iter().cloned()),
                    Err(e) => {
                        fail_outcome = Some(unsupported(
                            Vec::new(),
                            format!("in {}: {}: {}", name, e.form, e.reason),
                        ));
                        break;
                    }
                }
            } else if let Some(sig) = cx.funcs.get(name) {
                let known = DEVICE_RUNTIME.iter().any(|(n, _)| n == name);
                if !known {
                    fail_outcome = Some(unsupported(
                        Vec::new(),
                        format!(
                            "calls external device function {name} (separate compilation); not lowered"
                        ),
                    ));
                    break;
                }
                let _ = sig;
            } else if let Some(r) = bad_globals.get(name) {
                fail_outcome = Some(unsupported(Vec::new(), format!("variable {name}: {r}")));
                break;
            }
        }
        if fail_outcome.is_none() {
            let init = EntryInit {
                nbar: reach.iter().any(|n| cx.soft_barrier_funcs.contains(n)),
                exit_flag: reach.iter().any(|n| cx.exit_funcs.contains(n)),
            };
            let static_shared = static_shared_bytes(m, f, &reach, &defined);
            match emit_kernel(&mut cx, f, init, static_shared, &mut kernel_text) {
                Ok((ann, n)) => {
                    notes.extend(n);
                    annotations.extend(ann);
                    for name in &reach {
                        if cx.funcs.contains_key(name) {
                            used_funcs.insert(name);
                        }
                    }
                }
                Err(e) => {
                    // A supported form used in a way the emitter does not handle: reported by
                    // reason (the form itself is in the table).
                    fail_outcome = Some(unsupported(
                        Vec::new(),
                        if e.form.is_empty() {
                            e.reason
                        } else {
                            format!("{}: {}", e.form, e.reason)
                        },
                    ))
                }
            }
        }
        notes.sort();
        notes.dedup();
        results.push(KernelResult {
            name: kname.to_string(),
            outcome: fail_outcome.unwrap_or(KernelOutcome::Lowered),
            params,
            notes: if nv { Vec::new() } else { notes },
        });
    }

    // Complete the head (globals, function-scope shared variables, `\n`, the functions used)
    // in front of the kernels.
    let mut emitted: Vec<&str> = used_funcs.iter().copied().collect();
    emitted.sort();
    let funcs_len: usize = emitted
        .iter()
        .map(|n| match func_text.get(n) {
            Some(Ok((t, _))) => t.len(),
            _ => 0,
        })
        .sum();
    let mut ir = kernel_text;
    ir.reserve(
        cx.extra_globals.len()
            + funcs_len
            + cx.decls.values().map(|l| l.len() + 1).sum::<usize>()
            + 4096,
    );
    if !cx.extra_globals.is_empty() || funcs_len > 0 {
        let mut rest = String::with_capacity(cx.extra_globals.len() + 1 + funcs_len);
        rest.push_str(&cx.extra_globals);
        rest.push('\n');
        for name in &emitted {
            if let Some(Ok((t, _))) = func_text.get(name) {
                rest.push_str(t);
            }
        }
        ir.replace_range(head_end..head_end + 1, &rest);
    }
    // Declarations: extern functions used, then library functions and intrinsics.
    let mut declared: HashSet<String> = HashSet::new();
    for name in &emitted {
        if defined.contains_key(name) {
            continue;
        }
        if let Some(sig) = cx.funcs.get(name) {
            if declared.insert(sig.llname.clone()) {
                let ps: Vec<String> = sig.params.iter().map(|s| s.ll()).collect();
                let _ = writeln!(
                    ir,
                    "declare {} @{}({})",
                    sig.ret_ll(),
                    sig.llname,
                    ps.join(", ")
                );
            }
        }
    }
    for line in cx.decls.values() {
        ir.push_str(line);
        ir.push('\n');
    }
    if !annotations.is_empty() {
        let base = 0;
        let names: Vec<String> = (0..annotations.len())
            .map(|k| format!("!{}", base + k))
            .collect();
        let _ = writeln!(ir, "\n!nvvm.annotations = !{{{}}}", names.join(", "));
        for (k, a) in annotations.iter().enumerate() {
            let _ = writeln!(ir, "!{} = !{{{a}}}", base + k);
        }
    }
    let _ = declared_externs;
    LoweredModule {
        ir,
        kernels: results,
        support_library: profile.ir_library.clone(),
    }
}

/// Functions and module variables reachable from `f` through calls, address-of operands and
/// the address-of initializers of the variables it uses (`init_refs`), including undefined
/// (extern) functions, in discovery order.
fn reachable<'m, 'a>(
    mf: &mut ModuleForms<'m, 'a>,
    f: &'m Function<'a>,
    defined: &HashMap<&'a str, &'m Function<'a>>,
    funcs: &HashMap<&'a str, Sig>,
    init_refs: &HashMap<&'a str, Vec<&'a str>>,
) -> Vec<&'a str> {
    reach_from(mf, Some(f), &[], defined, funcs, init_refs)
}

/// [`reachable`] from module variables `names`: themselves, then what their initializers take
/// the address of, transitively.
fn reachable_names<'m, 'a>(
    mf: &mut ModuleForms<'m, 'a>,
    names: &[&'a str],
    defined: &HashMap<&'a str, &'m Function<'a>>,
    funcs: &HashMap<&'a str, Sig>,
    init_refs: &HashMap<&'a str, Vec<&'a str>>,
) -> Vec<&'a str> {
    reach_from(mf, None, names, defined, funcs, init_refs)
}

/// What [`reachable`] finds from function `start` and module variables `names`. The
/// symbols each function names come from its summary in `mf` ([`ModuleForms::refs`]), made
/// by the same walk that finds its forms.
fn reach_from<'a, 'm>(
    mf: &mut ModuleForms<'m, 'a>,
    start: Option<&'m Function<'a>>,
    names: &[&'a str],
    defined: &HashMap<&'a str, &'m Function<'a>>,
    funcs: &HashMap<&'a str, Sig>,
    init_refs: &HashMap<&'a str, Vec<&'a str>>,
) -> Vec<&'a str> {
    let mut out: Vec<&'a str> = Vec::new();
    let mut seen: HashSet<&'a str> = HashSet::new();
    let mut stack: Vec<&'m Function<'a>> = Vec::new();
    // Visit a symbol: a function (its symbols are visited later) or a module variable (what
    // its initializer takes the address of, at once).
    let mut visit = |n: &'a str, out: &mut Vec<&'a str>, stack: &mut Vec<&'m Function<'a>>| {
        let mut pending = vec![n];
        while let Some(n) = pending.pop() {
            if funcs.contains_key(n) {
                if seen.insert(n) {
                    out.push(n);
                    if let Some(g) = defined.get(n) {
                        stack.push(g);
                    }
                }
            } else if let Some(refs) = init_refs.get(n) {
                if seen.insert(n) {
                    out.push(n);
                    pending.extend(refs.iter().rev());
                }
            }
        }
    };
    for n in names {
        visit(n, &mut out, &mut stack);
    }
    stack.extend(start);
    while let Some(g) = stack.pop() {
        for &n in mf.refs(g) {
            visit(n, &mut out, &mut stack);
        }
    }
    out
}

/// The symbols an initializer takes the address of, in order.
fn init_symbols<'a>(i: &Init<'a>, out: &mut Vec<&'a str>) {
    match i {
        Init::Symbol { name, .. } => out.push(name),
        Init::List(l) => l.iter().for_each(|x| init_symbols(x, out)),
        Init::Imm(_) | Init::Field { .. } => {}
    }
}

fn emit_func<'m, 'a>(
    cx: &mut ModCx<'m, 'a>,
    f: &'m Function<'a>,
) -> Result<(String, Vec<String>), Fail> {
    let sig = cx.funcs.get(f.name).cloned().ok_or_else(|| Fail {
        form: String::new(),
        reason: format!("function {} has parameters of unsized type", f.name),
    })?;
    let mut homes = Vec::new();
    let mut ps = Vec::new();
    for (k, s) in sig.params.iter().enumerate() {
        ps.push(format!("{} %a{k}", s.ll()));
        homes.push(ParamHome::Value {
            arg: V::numbered("%a", k as u32),
            slot: s.clone(),
        });
    }
    let header = format!(
        "define internal {} @{}({})",
        sig.ret_ll(),
        sig.llname,
        ps.join(", ")
    );
    let mut text = String::new();
    let notes = emit_function(cx, f, &header, &homes, "", EntryInit::default(), &mut text)?;
    Ok((text, notes))
}

/// Bytes of `.shared` memory one declaration reserves: each name's element size × vector
/// width × array length, rounded up to its alignment (`.align N`, else the element size). An
/// unsized array (`.extern .shared` — the dynamic window) reserves none.
fn shared_decl_bytes(v: &VarDecl<'_>) -> u64 {
    if !matches!(v.space, StateSpace::Shared | StateSpace::SharedCta) || v.ty == Type::Pred {
        return 0;
    }
    let elem = u64::from(v.ty.bits() / 8) * u64::from(v.vector.unwrap_or(1));
    let align = u64::from(v.align.unwrap_or(0)).max(elem).max(1);
    v.decls
        .iter()
        .map(|d| {
            let n = d.array.iter().map(|x| x.unwrap_or(0)).product::<u64>();
            (elem.saturating_mul(n))
                .div_ceil(align)
                .saturating_mul(align)
        })
        .fold(0, u64::saturating_add)
}

/// [`shared_decl_bytes`] of the function-scope declarations of a body, nested blocks included.
fn body_shared_bytes(stmts: &[Statement<'_>]) -> u64 {
    stmts
        .iter()
        .map(|s| match s {
            Statement::Variable(v) => shared_decl_bytes(v),
            Statement::Block(b) => body_shared_bytes(&b.stmts),
            _ => 0,
        })
        .fold(0, u64::saturating_add)
}

/// The static `.shared` memory kernel `f` reserves: the module-scope shared variables in
/// `reach` (what [`reachable`] found from it) and the function-scope ones of its body and of
/// every defined function in `reach` (PTX ISA 9.x §5.1.5: a function-scope `.shared` variable
/// is one per CTA, as a module-scope one).
fn static_shared_bytes<'a>(
    m: &Module<'a>,
    f: &Function<'a>,
    reach: &[&'a str],
    defined: &HashMap<&'a str, &Function<'a>>,
) -> u64 {
    let names: HashSet<&str> = reach.iter().copied().collect();
    let module: u64 = m
        .variables()
        .filter(|v| v.decls.iter().any(|d| names.contains(d.name)))
        .map(shared_decl_bytes)
        .fold(0, u64::saturating_add);
    let bodies = std::iter::once(f)
        .chain(reach.iter().filter_map(|n| defined.get(n).copied()))
        .filter_map(|g| g.body.as_ref())
        .map(|b| body_shared_bytes(&b.stmts))
        .fold(0, u64::saturating_add);
    module.saturating_add(bodies)
}

/// Why kernel `f` cannot run on the target: it reserves `static_shared` bytes of `.shared`
/// memory and the host code asks for a constant amount of dynamic shared memory for it
/// ([`LaunchFacts::dynamic_shared`]), together more than a work-group's LDS
/// ([`Profile::lds_bytes`]; 0: not checked). `None` when they fit.
fn lds_overflow(cx: &ModCx<'_, '_>, f: &Function<'_>, static_shared: u64) -> Option<String> {
    let lds = cx.prof.lds_bytes;
    if cx.nv || lds == 0 {
        return None;
    }
    let target = &cx.prof.name;
    let dynamic = cx.launch.dynamic_shared(f.name);
    let total = static_shared.saturating_add(dynamic.map_or(0, |r| r.bytes));
    if total <= lds {
        return None;
    }
    Some(match dynamic {
        Some(r) if static_shared == 0 => format!(
            "the host code asks for {} bytes of dynamic shared memory for it (cudaFuncSetAttribute MaxDynamicSharedMemorySize at {:#x}); a work-group of target {target} has {lds} bytes of LDS",
            r.bytes, r.site
        ),
        Some(r) => format!(
            "it declares {static_shared} bytes of static shared memory and the host code asks for {} bytes of dynamic shared memory for it (cudaFuncSetAttribute MaxDynamicSharedMemorySize at {:#x}): {total} bytes; a work-group of target {target} has {lds} bytes of LDS",
            r.bytes, r.site
        ),
        None => format!(
            "it declares {static_shared} bytes of static shared memory; a work-group of target {target} has {lds} bytes of LDS"
        ),
    })
}

/// A kernel definition (appended to `out`, which is unchanged on failure), its NVVM
/// annotations (nvptx) and notes. `static_shared`: the bytes of `.shared` memory it reserves
/// ([`static_shared_bytes`]), checked with its dynamic request against the target's LDS.
fn emit_kernel<'m, 'a>(
    cx: &mut ModCx<'m, 'a>,
    f: &'m Function<'a>,
    entry_init: EntryInit,
    static_shared: u64,
    out: &mut String,
) -> Result<(Vec<String>, Vec<String>), Fail> {
    let nv = cx.nv;
    // Shared memory (static and dynamic) that no work-group of the target has.
    if let Some(reason) = lds_overflow(cx, f, static_shared) {
        return Err(Fail {
            form: String::new(),
            reason,
        });
    }
    let mut ps = Vec::new();
    let mut homes = Vec::new();
    let mut k = 0;
    for v in &f.params {
        for d in &v.decls {
            let slot = slot_of(v, d).ok_or_else(|| Fail {
                form: String::new(),
                reason: format!("kernel parameter {} of unsized type", d.name),
            })?;
            match slot {
                Slot::Scalar(_) => {
                    ps.push(format!("{} %a{k}", slot.ll()));
                    homes.push(ParamHome::Value {
                        arg: V::numbered("%a", k as u32),
                        slot,
                    });
                }
                Slot::Bytes(n, al) => {
                    let al = v.align.unwrap_or(al).max(1);
                    if nv {
                        ps.push(format!("ptr byval([{n} x i8]) align {al} %a{k}"));
                        homes.push(ParamHome::Pointer {
                            ptr: V::numbered("%a", k as u32),
                            aspace: 0,
                        });
                    } else {
                        let pa = cx.prof.addrspace.param;
                        ps.push(format!(
                            "ptr addrspace({pa}) byref([{n} x i8]) align {al} %a{k}"
                        ));
                        homes.push(ParamHome::Pointer {
                            ptr: V::numbered("%a", k as u32),
                            aspace: pa,
                        });
                    }
                }
            }
            k += 1;
        }
    }
    let name = ident('@', f.name);
    let header = format!(
        "define {} void {name}({})",
        cx.prof.kernel_cc,
        ps.join(", ")
    );
    // Launch bounds (PTX ISA 9.x §11.3).
    let attr = |n: &str| f.attrs.iter().find(|a| a.name == n).map(|a| a.args.clone());
    let prod = |v: &[u64]| v.iter().map(|x| (*x).max(1)).product::<u64>();
    let mut attrs = String::new();
    let mut ann = Vec::new();
    let maxntid = attr(".maxntid");
    let reqntid = attr(".reqntid");
    let minctas = attr(".minnctapersm").and_then(|v| v.first().copied());
    let mut launch_note = None;
    if nv {
        for (key, vals) in [("maxntid", &maxntid), ("reqntid", &reqntid)] {
            if let Some(v) = vals {
                for (c, x) in ["x", "y", "z"].iter().zip(v.iter()) {
                    ann.push(format!("ptr {name}, !\"{key}{c}\", i32 {x}"));
                }
            }
        }
        if let Some(n) = minctas {
            ann.push(format!("ptr {name}, !\"minctasm\", i32 {n}"));
        }
    } else {
        let threads = match (&reqntid, &maxntid) {
            (Some(r), _) => {
                let n = prod(r);
                let _ = write!(attrs, "\"amdgpu-flat-work-group-size\"=\"{n},{n}\"");
                Some(n)
            }
            (None, Some(m)) => {
                let n = prod(m);
                let _ = write!(attrs, "\"amdgpu-flat-work-group-size\"=\"1,{n}\"");
                Some(n)
            }
            (None, None) => cx.launch.bound(f.name).map(|b| {
                let n = b.max_threads as u64;
                let _ = write!(attrs, "\"amdgpu-flat-work-group-size\"=\"1,{n}\"");
                let blocks: Vec<String> =
                    b.blocks.iter().map(|[x, y, z]| format!("({x}, {y}, {z})")).collect();
                launch_note = Some(format!(
                    "built for blocks of at most {n} threads: the host code launches it with {} ({} launch site{}); a larger block fails at launch",
                    blocks.join(", "),
                    b.sites.len(),
                    if b.sites.len() == 1 { "" } else { "s" }
                ));
                n
            }),
        };
        if let (Some(t), Some(c)) = (threads, minctas) {
            // Waves per EU (SIMD): a CU has 4 SIMDs and runs `c` blocks of ceil(t / wave) waves.
            let waves = t.div_ceil(cx.prof.wave_size as u64) * c;
            let per_eu = waves.div_ceil(4);
            if (1..=10).contains(&per_eu) {
                let _ = write!(attrs, " \"amdgpu-waves-per-eu\"=\"{per_eu}\"");
            }
        }
    }
    let mut notes = emit_function(cx, f, &header, &homes, &attrs, entry_init, out)?;
    notes.extend(launch_note);
    Ok((ann, notes))
}
