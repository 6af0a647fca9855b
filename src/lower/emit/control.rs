//! Control flow and calls: blocks and labels, guarded instructions, `bra`, `ret`, `exit`,
//! `brx.idx`, `trap`, `nanosleep`, the CTA barriers (`bar`, `barrier`) and `call` with its
//! value ABI.

use super::*;

impl<'c, 'm, 'a> Fx<'c, 'm, 'a> {
    // ---------------------------------------------------------------- statements

    pub fn block(&mut self, b: &'m Block<'a>) -> R<()> {
        self.scopes.push(NameScope::default());
        // Prototype and branch-target labels are known before use.
        let mut last_label: Option<&'a str> = None;
        for s in &b.stmts {
            match s {
                Statement::Label(l) => {
                    last_label = Some(l.name);
                    // The first definition keeps the plain name; a redefinition in another
                    // block gets a numbered one.
                    let k = self.labels_seen.entry(l.name).or_insert(0);
                    let name = if *k == 0 {
                        label_name(l.name)
                    } else {
                        label_name(&format!("{}$s{k}", l.name))
                    };
                    *k += 1;
                    self.scopes
                        .last_mut()
                        .unwrap()
                        .labels
                        .entry(l.name)
                        .or_insert_with(|| V::from(name));
                }
                Statement::CallPrototype(p) => {
                    if let Some(l) = last_label {
                        self.protos.insert(l, p);
                    }
                }
                Statement::BranchTargets(t) | Statement::CallTargets(t) => {
                    if let Some(l) = last_label {
                        self.btargets.insert(l, t);
                    }
                }
                _ => last_label = None,
            }
        }
        for s in &b.stmts {
            if !matches!(s, Statement::Variable(_)) {
                self.flush_head();
            }
            match s {
                Statement::Variable(v) => self.declare_var(v)?,
                Statement::Label(l) => {
                    if self.protos.contains_key(l.name) || self.btargets.contains_key(l.name) {
                        continue;
                    }
                    let name = self.label_of(l.name);
                    self.start_block(&name);
                }
                Statement::Block(inner) => self.block(inner)?,
                Statement::Instruction(i) => {
                    self.cur = Some(i);
                    self.instruction(i)?;
                }
                _ => {}
            }
        }
        if let Some(sc) = self.scopes.pop() {
            if !sc.names.is_empty() || !sc.ranges.is_empty() {}
        }
        Ok(())
    }

    /// Write the function's head (header, `entry:`, the allocas so far, the branch to
    /// `start:`) to `body` before its first line: the declarations at the top of the body
    /// are all there is in most functions, so the head need not be inserted in front of the
    /// body at the end (a move of the whole body).
    #[inline]
    pub(super) fn flush_head(&mut self) {
        if self.head_at.is_none() {
            self.flush_head_now();
        }
    }

    pub(super) fn flush_head_now(&mut self) {
        self.body.push_str(&self.allocas);
        let at = self.body.len();
        self.body.push_str(BR_START);
        self.head_at = Some((at, self.allocas.len()));
    }

    pub(super) fn instruction(&mut self, i: &'m Instruction<'a>) -> R<()> {
        self.ensure_open();
        match i.guard {
            None => self.inst(i),
            Some(g) => {
                let c = self.rd_reg(&g.reg, Ty::I1, false)?;
                let c = if g.negated {
                    opv!(self, [&"xor i1 ", &c, &", true"])
                } else {
                    c
                };
                if i.opcode == Opcode::Bra {
                    let target = self.branch_target(i)?;
                    let next = self.new_block_name();
                    linev!(
                        self,
                        [&"br i1 ", &c, &", label %", &target, &", label %", &next]
                    );
                    self.block_label(&next);
                    return Ok(());
                }
                if matches!(i.opcode, Opcode::Ret | Opcode::Exit) && self.is_kernel
                    || i.opcode == Opcode::Ret
                {
                    let next = self.new_block_name();
                    linev!(self, [&"br i1 ", &c, &", label %ret, label %", &next]);
                    self.block_label(&next);
                    return Ok(());
                }
                let then = self.new_block_name();
                let next = self.new_block_name();
                linev!(
                    self,
                    [&"br i1 ", &c, &", label %", &then, &", label %", &next]
                );
                self.block_label(&then);
                self.terminated = false;
                self.inst(i)?;
                if !self.terminated {
                    linev!(self, [&"br label %", &next]);
                }
                self.block_label(&next);
                self.terminated = false;
                Ok(())
            }
        }
    }

    /// The LLVM block name of label `l` as seen from the current block (innermost first).
    pub(super) fn label_of(&self, l: &str) -> V {
        for sc in self.scopes.iter().rev() {
            if let Some(n) = sc.labels.get(l) {
                return n.clone();
            }
        }
        V::from(label_name(l))
    }

    pub(super) fn branch_target(&self, i: &Instruction<'a>) -> R<V> {
        match i.operands.first() {
            Some(Operand::Label(l)) | Some(Operand::Symbol(l)) => Ok(self.label_of(l)),
            _ => fail(&self.form(), "branch without a label"),
        }
    }

    /// `bra`, `ret`, `exit`, `trap`, `brkpt`, `pmevent`, `nanosleep`, `brx.idx`.
    pub(super) fn control_inst(&mut self, i: &'m Instruction<'a>, ops: &[Operand<'a>]) -> R<()> {
        use Opcode as O;
        match i.opcode {
            O::Bra => {
                let t = self.branch_target(i)?;
                linev!(self, [&"br label %", &t]);
                self.terminated = true;
            }
            O::Ret => {
                linev!(self, [&"br label %ret"]);
                self.terminated = true;
            }
            O::Exit => {
                if self.is_kernel {
                    linev!(self, [&"br label %ret"]);
                } else if !self.cx.nv {
                    // amdgcn: the flag, then return; the callers test it (ModCx::exit_funcs).
                    self.call_void("__wp_exit_flag_set", &[(Ty::I8, "1")]);
                    linev!(self, [&"br label %ret"]);
                } else {
                    self.call_void("__wp_exit", &[]);
                    linev!(self, [&"unreachable"]);
                }
                self.terminated = true;
            }
            O::Trap => {
                self.call_void("__wp_trap", &[]);
            }
            O::Brkpt | O::Pmevent => {}
            O::Nanosleep => {
                let v = self.rd(&ops[0], Ty::I32, false)?;
                self.call_void("__wp_nanosleep", &[(Ty::I32, &v)]);
            }
            O::Brx => {
                let idx = self.rd(&ops[0], Ty::I32, false)?;
                let tl = match ops.get(1) {
                    Some(Operand::Label(l)) | Some(Operand::Symbol(l)) => {
                        self.btargets.get(l.as_str()).copied()
                    }
                    _ => None,
                };
                let Some(tl) = tl else {
                    return fail(&form_of(i), "brx.idx without .branchtargets");
                };
                let dflt = self.new_block_name();
                let mut s = format!("switch i32 {idx}, label %{dflt} [");
                for (k, t) in tl.targets.iter().enumerate() {
                    let _ = write!(s, " i32 {k}, label %{}", self.label_of(t));
                }
                s.push_str(" ]");
                linev!(self, [&s]);
                let _ = writeln!(self.body, "{dflt}:\n  unreachable");
                self.terminated = true;
            }
            _ => return fail(&form_of(i), "no lowering for this instruction"),
        }
        Ok(())
    }

    pub(super) fn bar(&mut self, mo: &Mods, ops: &[Operand<'a>]) -> R<()> {
        let cur = self.cur;
        let form = || cur.map(form_of).unwrap_or_default();
        if mo.has(Mod::Red) {
            // bar.red.popc.u32 d, a{, b}, {!}c / bar.red.{and,or}.pred p, a{, b}, {!}c
            // (PTX ISA 9.x §9.7.13.1): a CTA barrier that also reduces c over the CTA's
            // threads (the support library's @__wp_bar_red_*). Barrier 0 over all threads.
            if ops.len() != 3 {
                return fail(&form(), "bar.red with a thread count");
            }
            let id = match &ops[1] {
                Operand::Imm(i) => imm(i.value(), Ty::I32).into(),
                o => self.rd(o, Ty::I32, false)?,
            };
            if id != "0" {
                return fail(&form(), "bar.red on a barrier other than 0");
            }
            let c = self.rd(&ops[2], Ty::I1, false)?;
            let (f, rt) = if mo.has(Mod::Popc) {
                ("__wp_bar_red_popc", Ty::I32)
            } else if mo.bool_op == Some(BoolOp::And) {
                ("__wp_bar_red_and", Ty::I1)
            } else if mo.bool_op == Some(BoolOp::Or) {
                ("__wp_bar_red_or", Ty::I1)
            } else {
                return fail(&form(), "bar.red operation");
            };
            let r = self.call(f, rt, &[(Ty::I32, &id), (Ty::I1, &c)]);
            return self.wr(&ops[0], &r, rt, false);
        }
        // bar{.cta}.arrive a, b / barrier{.cta}.arrive a, b and the counted or named
        // bar.sync a{, b}: on amdgcn software barriers in LDS (kernels-ir/gen.py
        // `named_bar`), whose state the kernel zeroes first (`soft_barrier`); barrier 0
        // without a count is s_barrier.
        let arrive = mo.has(Mod::Arrive);
        if !(arrive || mo.has(Mod::Sync) || mo.is_empty()) {
            return fail(&form(), "barrier form");
        }
        let id = match ops.first() {
            Some(Operand::Imm(i)) => imm(i.value(), Ty::I32).into(),
            Some(o) => self.rd(o, Ty::I32, false)?,
            None => "0".into(),
        };
        if arrive && ops.len() != 2 {
            return fail(&form(), "bar.arrive without a thread count");
        }
        if ops.len() > 1 {
            let c = self.rd(&ops[1], Ty::I32, false)?;
            let f = if arrive {
                "__wp_bar_arrive_cnt"
            } else {
                "__wp_bar_sync_cnt"
            };
            self.call_void(f, &[(Ty::I32, &id), (Ty::I32, &c)]);
            self.soft_barrier |= !self.cx.nv;
            return Ok(());
        }
        if id != "0" && !self.cx.nv {
            self.call_void("__wp_bar_sync_named", &[(Ty::I32, &id)]);
            self.soft_barrier = true;
            return Ok(());
        }
        self.call_void("__wp_bar_sync", &[(Ty::I32, &id)]);
        Ok(())
    }

    pub(super) fn callinst(&mut self, i: &'m Instruction<'a>, ops: &[Operand<'a>]) -> R<()> {
        let cur = self.cur;
        let form = || cur.map(form_of).unwrap_or_default();
        // call [(rets),] target [, (args)] [, proto|targets]
        let mut k = 0;
        let rets: &[Operand<'a>] = match ops.first() {
            Some(Operand::List(l)) => {
                k = 1;
                l
            }
            _ => &[],
        };
        let target = ops.get(k).ok_or_else(|| Fail {
            form: form(),
            reason: "call without a target".into(),
        })?;
        let args: &[Operand<'a>] = match ops.get(k + 1) {
            Some(Operand::List(l)) => l,
            _ => &[],
        };
        let _ = i;
        let (callee, sig) = match target {
            Operand::Func(n) | Operand::Symbol(n) if self.cx.funcs.contains_key(n.as_str()) => {
                let sig = self.cx.funcs[n.as_str()].clone();
                (V::from(format!("@{}", sig.llname)), sig)
            }
            Operand::Reg(r) => {
                // Indirect: the prototype gives the signature.
                let proto = match ops.get(k + 2) {
                    Some(Operand::Label(l)) | Some(Operand::Symbol(l)) => {
                        self.protos.get(l.as_str()).copied()
                    }
                    _ => None,
                };
                let sig = match proto {
                    Some(p) => Sig {
                        llname: String::new(),
                        params: p
                            .params
                            .iter()
                            .flat_map(|v| v.decls.iter().map(move |d| slot_of(v, d)))
                            .collect::<Option<Vec<_>>>()
                            .unwrap_or_default(),
                        rets: p
                            .returns
                            .iter()
                            .flat_map(|v| v.decls.iter().map(move |d| slot_of(v, d)))
                            .collect::<Option<Vec<_>>>()
                            .unwrap_or_default(),
                    },
                    None => {
                        // .calltargets: all targets share the signature of the first.
                        let tl = match ops.get(k + 2) {
                            Some(Operand::Label(l)) | Some(Operand::Symbol(l)) => {
                                self.btargets.get(l.as_str()).copied()
                            }
                            _ => None,
                        };
                        match tl
                            .and_then(|t| t.targets.first())
                            .and_then(|f| self.cx.funcs.get(f))
                        {
                            Some(s) => s.clone(),
                            None => return fail(&form(), "indirect call without a prototype"),
                        }
                    }
                };
                let v = self.rd_reg(r, Ty::I64, false)?;
                let p = opv!(self, [&"inttoptr i64 ", &v, &" to ptr"]);
                (p, sig)
            }
            _ => return fail(&form(), "call target"),
        };
        if sig.params.len() != args.len() || sig.rets.len() != rets.len() {
            return fail(
                &form(),
                "call with a parameter count that does not match the callee",
            );
        }
        let mut av = Vec::new();
        for (a, slot) in args.iter().zip(&sig.params) {
            av.push(format!("{} {}", slot.ll(), self.load_slot(a, slot)?));
        }
        let rt = sig.ret_ll();
        let call = format!("call {rt} {callee}({})", av.join(", "));
        if sig.rets.is_empty() {
            linev!(self, [&call]);
        } else {
            let r = opv!(self, [&call]);
            if sig.rets.len() == 1 {
                self.store_slot(&rets[0], &r, &sig.rets[0])?;
            } else {
                for (k, (d, slot)) in rets.iter().zip(&sig.rets).enumerate() {
                    let x = opv!(self, [&"extractvalue ", &rt, &" ", &r, &", ", &k]);
                    self.store_slot(d, &x, slot)?;
                }
            }
        }
        let may_exit = match target {
            Operand::Reg(_) => !self.cx.exit_funcs.is_empty(),
            Operand::Func(n) | Operand::Symbol(n) => self.cx.exit_funcs.contains(n.as_str()),
            _ => false,
        };
        if may_exit {
            let e = self.call("__wp_exit_flag", Ty::I1, &[]);
            let next = self.new_block_name();
            linev!(self, [&"br i1 ", &e, &", label %ret, label %", &next]);
            self.block_label(&next);
        }
        if sig.llname == "__wp_vprintf" && !self.cx.printf_fifo {
            // The FIFO the support library's vprintf writes (kernels-ir/printf.py), defined
            // once per module so that the host (shim, amdgpu-exec) finds it by name.
            self.cx.printf_fifo = true;
            let _ = writeln!(
                self.cx.extra_globals,
                "@__wp_printf_fifo = addrspace({}) externally_initialized global [{} x i8] zeroinitializer, align 16",
                self.cx.prof.addrspace.global,
                crate::lower::PRINTF_FIFO_BYTES
            );
        }
        Ok(())
    }

    /// The value of an argument: a `.param` variable's bytes, or a register / immediate.
    pub(super) fn load_slot(&mut self, a: &Operand<'a>, slot: &Slot) -> R<V> {
        if let Operand::Symbol(n) | Operand::Reg(n) = a {
            if let Some(Local::Mem { ptr, aspace }) = self.lookup(n) {
                return Ok(opv!(
                    self,
                    [&"load ", &(slot.ll()), &", ", &(ptr_ty(aspace)), &" ", &ptr,]
                ));
            }
        }
        match (slot, a) {
            (Slot::Scalar(b), Operand::Symbol(n)) => self.rd_reg(n, Ty::int(*b), false),
            (Slot::Scalar(b), _) => self.rd(a, Ty::int(*b), false),
            (Slot::Bytes(..), _) => fail(&self.form(), "byte-array argument from a register"),
        }
    }

    pub(super) fn store_slot(&mut self, d: &Operand<'a>, v: &str, slot: &Slot) -> R<()> {
        if let Operand::Symbol(n) | Operand::Reg(n) = d {
            if let Some(Local::Mem { ptr, aspace }) = self.lookup(n) {
                linev!(
                    self,
                    [
                        &"store ",
                        &(slot.ll()),
                        &" ",
                        &v,
                        &", ",
                        &(ptr_ty(aspace)),
                        &" ",
                        &ptr,
                    ]
                );
                return Ok(());
            }
        }
        match slot {
            Slot::Scalar(b) => self.wr(d, v, Ty::int(*b), false),
            Slot::Bytes(..) => fail(&self.form(), "byte-array result into a register"),
        }
    }
}

pub(super) fn label_name(l: &str) -> String {
    // `ident('%', "L.<l>")` without the sigil: "L." starts with a letter, so only `l`'s
    // characters decide whether the name needs quotes.
    let bare = l
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'$' || b == b'.');
    let mut s = String::with_capacity(l.len() + 4);
    if !bare {
        s.push('"');
    }
    s.push_str("L.");
    s.push_str(l);
    if !bare {
        s.push('"');
    }
    s
}
