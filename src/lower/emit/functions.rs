//! The value ABI (parameter and return slots, signatures) and the frame of one function: its
//! parameters' homes, the body and the return block, and the function text around them.

use super::*;

/// A parameter or return slot of the value ABI.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Slot {
    /// A scalar of `bits` bits (`i1` for `.pred`).
    Scalar(u32),
    /// A byte array of `size` bytes aligned to `align`.
    Bytes(u32, u32),
}

impl Slot {
    pub fn ll(&self) -> String {
        match self {
            Slot::Scalar(b) => Ty::int(*b).ll().to_string(),
            Slot::Bytes(n, _) => format!("[{n} x i8]"),
        }
    }
    pub fn size(&self) -> u32 {
        match self {
            Slot::Scalar(b) => b.div_ceil(8),
            Slot::Bytes(n, _) => *n,
        }
    }
    pub fn align(&self) -> u32 {
        match self {
            Slot::Scalar(b) => b.div_ceil(8).max(1),
            Slot::Bytes(_, a) => *a,
        }
    }
}

/// The slot of one declarator of a parameter declaration.
pub(crate) fn slot_of(v: &VarDecl<'_>, d: &Declarator<'_>) -> Option<Slot> {
    let eb = match v.ty {
        Type::Pred => 0,
        t => t.bits(),
    };
    let n: u64 =
        d.array.iter().map(|x| x.unwrap_or(0)).product::<u64>() * v.vector.unwrap_or(1) as u64;
    if v.ty == Type::Pred {
        return Some(Slot::Scalar(1));
    }
    if eb == 0 {
        return None;
    }
    if d.array.is_empty() && v.vector.is_none() {
        if v.align.is_some_and(|a| a * 8 != eb) {
            return Some(Slot::Bytes(eb / 8, v.align.unwrap()));
        }
        return Some(Slot::Scalar(eb));
    }
    let size = (n * eb as u64 / 8) as u32;
    Some(Slot::Bytes(size, v.align.unwrap_or((eb / 8).max(1))))
}

/// A function's value-ABI signature.
#[derive(Clone, Debug)]
pub(crate) struct Sig {
    pub llname: String,
    pub params: Vec<Slot>,
    pub rets: Vec<Slot>,
}

impl Sig {
    pub fn ret_ll(&self) -> String {
        match self.rets.len() {
            0 => "void".into(),
            1 => self.rets[0].ll(),
            _ => format!(
                "{{ {} }}",
                self.rets
                    .iter()
                    .map(|s| s.ll())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }
    }
}

/// What a kernel's entry block sets up for the functions it reaches (amdgcn).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct EntryInit {
    /// A software barrier is reached: zero their state (`@__wp_nbar_init`).
    pub nbar: bool,
    /// A `.func` holding `exit` is reached ([`ModCx::exit_funcs`]): clear the thread's exit
    /// flag.
    pub exit_flag: bool,
}

/// The end of a function's head: the entry block branches to the body's first block.
pub(super) const BR_START: &str = "  br label %start\nstart:\n";

/// Emit `f` as a complete LLVM function definition appended to `out`; returns its notes.
///
/// The body is written straight into `out` (no per-function string copied afterwards); the
/// header and the entry block's allocas, known only at the end, are inserted in front of it.
/// On failure `out` is left as it was.
pub(crate) fn emit_function<'m, 'a>(
    cx: &mut ModCx<'m, 'a>,
    f: &'m Function<'a>,
    header_params: &str,
    // Entry: how each parameter arrives. For kernels (kernarg pointer or value), for funcs
    // (value).
    param_homes: &[ParamHome],
    attrs: &str,
    entry_init: EntryInit,
    out: &mut String,
) -> R<Vec<String>> {
    let start = out.len();
    let pa = ptr_ty(cx.alloca_as);
    // The module's reusable buffer: header line, `entry:`, then the allocas.
    let mut head = std::mem::take(&mut cx.alloca_buf);
    head.clear();
    head.push_str(header_params);
    head.push(' ');
    head.push_str(attrs);
    head.push_str(" {\nentry:\n");
    let mut fx = Fx {
        cx,
        reg_text: RegText::new(&pa),
        body: std::mem::take(out),
        allocas: head,
        head_at: None,
        has_cc: false,
        tmp: 0,
        nreg: 0,
        nblk: 0,
        terminated: false,
        scopes: vec![NameScope::default()],
        pa,
        rets: Vec::new(),
        ret_names: Vec::new(),
        is_kernel: f.kind == FunctionKind::Entry,
        cur: None,
        protos: HashMap::default(),
        btargets: HashMap::default(),
        labels_seen: HashMap::default(),
        notes: Vec::new(),
        soft_barrier: false,
        local_syms: HashSet::new(),
        local_addrs: HashMap::new(),
        shadows: HashMap::new(),
        param_copies: HashMap::new(),
        func: f,
        const_regs: None,
        local_sizes: HashMap::new(),
    };
    if fx.cx.prof.local_gep {
        fx.local_addrs = local_addr::local_addresses(f);
        if !fx.local_addrs.is_empty() {
            fx.local_syms = local_addr::local_vars(f);
            // Bytes of the function-scope `.local` variables and of the parameters.
            let top = f
                .body
                .iter()
                .flat_map(|b| &b.stmts)
                .filter_map(|s| match s {
                    Statement::Variable(v) if v.space == StateSpace::Local => Some(v),
                    _ => None,
                });
            for v in top.chain(&f.params) {
                for d in &v.decls {
                    if let Some(sl) = slot_of(v, d) {
                        fx.local_sizes.insert(d.name, sl.size() as u64);
                    }
                }
            }
            if fx.is_kernel {
                let params: HashSet<&str> = f
                    .params
                    .iter()
                    .flat_map(|v| &v.decls)
                    .map(|d| d.name)
                    .collect();
                let sizes = &fx.local_sizes;
                let size_of = |n: &str| sizes.get(n).copied();
                let param_size = |n: &str| params.contains(n).then(|| size_of(n)).flatten();
                let local_size = |n: &str| (!params.contains(n)).then(|| size_of(n)).flatten();
                fx.param_copies =
                    local_addr::param_copies(f, &fx.local_addrs, &param_size, &local_size)
                        .into_iter()
                        .map(|(s, c)| (s, c.param))
                        .collect();
            }
        }
    }
    let r = function_body(&mut fx, f, param_homes);
    let mut text = std::mem::take(&mut fx.body);
    if let Err(e) = r {
        text.truncate(start);
        *out = text;
        fx.cx.alloca_buf = std::mem::take(&mut fx.allocas);
        return Err(e);
    }
    let mut head = std::mem::take(&mut fx.allocas);
    if fx.is_kernel && (fx.soft_barrier || entry_init.nbar) {
        fx.declare("__wp_nbar_init", "void", &[]);
        head.push_str("  call void @__wp_nbar_init()\n");
    } else if fx.soft_barrier {
        fx.cx.soft_barrier_funcs.insert(f.name);
    }
    if fx.is_kernel && entry_init.exit_flag {
        fx.declare("__wp_exit_flag_set", "void", &["i8"]);
        head.push_str("  call void @__wp_exit_flag_set(i8 0)\n");
    }
    match fx.head_at {
        // Allocas declared after the first statement (in nested blocks, call sequences, the
        // carry flag) go after the ones already written.
        Some((at, done)) => {
            if head.len() > done {
                text.insert_str(at, &head[done..]);
            }
        }
        None => {
            head.push_str(BR_START);
            text.insert_str(start, &head);
        }
    }
    text.push_str("}\n\n");
    *out = text;
    fx.cx.alloca_buf = head;
    let mut notes = fx.notes;
    notes.sort();
    notes.dedup();
    Ok(notes)
}

/// The parameters' homes, the body and the return block of `f`, into `fx.body`.
pub(super) fn function_body<'m, 'a>(
    fx: &mut Fx<'_, 'm, 'a>,
    f: &'m Function<'a>,
    param_homes: &[ParamHome],
) -> R<()> {
    // Parameters.
    let mut k = 0;
    for v in &f.params {
        for d in &v.decls {
            let h = &param_homes[k];
            k += 1;
            match h {
                ParamHome::Pointer { ptr, aspace } => {
                    fx.scopes[0].add_name(
                        d.name,
                        Local::Mem {
                            ptr: ptr.clone(),
                            aspace: *aspace,
                        },
                    );
                }
                ParamHome::Value { arg, slot } => {
                    if v.space == StateSpace::Reg {
                        fx.declare_reg(d.name, None, v.ty)?;
                        let Some(Local::Reg { id, bits }) = fx.lookup(d.name) else {
                            unreachable!()
                        };
                        let _ = writeln!(
                            fx.allocas,
                            "  store {} {arg}, {} %r{id}",
                            Ty::int(bits).ll(),
                            fx.pa
                        );
                    } else {
                        let p = fx.alloca_bytes(slot.size(), slot.align());
                        let _ = writeln!(fx.allocas, "  store {} {arg}, {} {p}", slot.ll(), fx.pa);
                        let aspace = fx.cx.alloca_as;
                        fx.scopes[0].add_name(d.name, Local::Mem { ptr: p, aspace });
                    }
                }
            }
        }
    }
    // Return parameters.
    for v in &f.returns {
        for d in &v.decls {
            let Some(slot) = slot_of(v, d) else {
                return fail("", "return parameter of unsized type");
            };
            if v.space == StateSpace::Reg {
                fx.declare_reg(d.name, None, v.ty)?;
            } else {
                let p = fx.alloca_bytes(slot.size(), slot.align());
                let aspace = fx.cx.alloca_as;
                fx.scopes[0].add_name(d.name, Local::Mem { ptr: p, aspace });
            }
            fx.rets.push((Operand::Symbol(d.name.into()), slot));
            fx.ret_names.push(d.name);
        }
    }
    if let Some(b) = &f.body {
        fx.block(b)?;
    }
    fx.flush_head();
    if !fx.terminated {
        linev!(fx, [&"br label %ret"]);
    }
    let _ = writeln!(fx.body, "ret:");
    let sig_rets: Vec<Slot> = fx.rets.iter().map(|(_, s)| s.clone()).collect();
    let rets = fx.rets.clone();
    let ret_ll = Sig {
        llname: String::new(),
        params: Vec::new(),
        rets: sig_rets,
    }
    .ret_ll();
    let mut vals = Vec::new();
    for (o, slot) in &rets {
        let v = fx.load_slot(o, slot)?;
        vals.push(v);
    }
    match vals.len() {
        0 => linev!(fx, [&"ret void"]),
        1 => linev!(fx, [&"ret ", &ret_ll, &" ", &(vals[0])]),
        _ => {
            let mut acc = V::new("poison");
            for (k, (v, (_, s))) in vals.iter().zip(&rets).enumerate() {
                acc = opv!(
                    fx,
                    [
                        &"insertvalue ",
                        &ret_ll,
                        &" ",
                        &acc,
                        &", ",
                        &(s.ll()),
                        &" ",
                        &v,
                        &", ",
                        &k,
                    ]
                );
            }
            linev!(fx, [&"ret ", &ret_ll, &" ", &acc]);
        }
    }
    Ok(())
}

/// How a parameter arrives in the emitted function.
pub(crate) enum ParamHome {
    /// In memory (kernel byte arrays: kernarg/byval pointer).
    Pointer { ptr: V, aspace: u32 },
    /// As an SSA argument value.
    Value { arg: V, slot: Slot },
}
