//! Functions (§11.3: `.entry`/`.func`, parameters, attributes), blocks, statements and
//! instructions, with label resolution and the per-head modifier checks.

use super::*;
use crate::ptx::mods::{ModError, Mods};

impl<'a> Parser<'a> {
    // ----- functions ---------------------------------------------------------------------------

    pub(super) fn function(&mut self, start: Token, linkage: Option<Linkage>) -> Directive<'a> {
        let kw = self.bump();
        let loc = self.loc(start.start);
        let kind = if self.text(kw) == ".entry" {
            FunctionKind::Entry
        } else {
            FunctionKind::Func
        };
        self.fn_errors.clear();
        self.cur_fn = None;
        self.scope.clear();
        self.labels.clear();
        self.unresolved.clear();
        let r = self.function_inner(kind, linkage, loc);
        let name = self.cur_fn.take();
        match r {
            Ok(f) if self.fn_errors.is_empty() => Directive::Function(f),
            r => {
                if r.is_err() {
                    // Skip the rest of the header and any body.
                    self.skip_function_rest(start);
                }
                let reasons = std::mem::take(&mut self.fn_errors);
                let end = self.prev_end.max(start.end) as usize;
                Directive::Invalid(InvalidDirective {
                    kind: Some(kind),
                    name,
                    reasons,
                    text: &self.src[start.start as usize..end],
                    loc,
                })
            }
        }
    }

    pub(super) fn skip_function_rest(&mut self, start: Token) {
        loop {
            let t = self.peek();
            match t.kind {
                Tok::Eof => return,
                Tok::Semi => {
                    self.bump();
                    return;
                }
                Tok::LBrace => {
                    let open = self.bump();
                    self.block_body(open);
                    return;
                }
                Tok::Dot if t.start != start.start && is_module_sync(self.text(t)) => return,
                _ => {
                    self.bump();
                }
            }
        }
    }

    pub(super) fn function_inner(
        &mut self,
        kind: FunctionKind,
        linkage: Option<Linkage>,
        loc: Loc,
    ) -> PResult<Function<'a>> {
        let mut returns = Vec::new();
        if kind == FunctionKind::Func && self.peek().kind == Tok::LParen {
            returns = self.param_list()?;
        }
        let name = self.expect_ident("a function name")?;
        self.cur_fn = Some(name);
        self.module_syms.insert(name, SymKind::Func);
        let mut params = Vec::new();
        if self.peek().kind == Tok::LParen {
            params = self.param_list()?;
        }
        for p in returns.iter().chain(params.iter()) {
            for d in &p.decls {
                self.push_scope(d.name, 0, p.space == StateSpace::Reg);
            }
        }
        let mut attrs = Vec::new();
        loop {
            let t = self.peek();
            if t.kind != Tok::Dot || !is_func_attr(self.text(t)) {
                break;
            }
            self.bump();
            let name = self.text(t);
            let mut a = FuncAttr {
                name,
                args: Vec::new(),
                strings: Vec::new(),
            };
            if name == ".pragma" {
                a.strings = self.pragma_strings()?;
            } else if self.peek().kind == Tok::Int {
                loop {
                    a.args.push(self.expect_u64("an integer")?);
                    if !self.eat(Tok::Comma) {
                        break;
                    }
                }
            }
            attrs.push(a);
        }
        let t = self.peek();
        let body = match t.kind {
            Tok::Semi => {
                self.bump();
                None
            }
            Tok::LBrace => {
                let open = self.bump();
                let loc = self.loc(open.start);
                // The body's statements are pushed straight into their final vector (nested
                // blocks are split off its tail), sized from the body's text so it rarely grows.
                let cap = self.body_capacity(open.end as usize);
                self.stmts = Vec::with_capacity(cap);
                let mut stmts = self.block_body(open);
                stmts.shrink_to_fit();
                let mut b = Block { stmts, loc };
                self.resolve_labels(&mut b);
                Some(b)
            }
            _ => {
                let d = self.describe(t);
                self.error_at(
                    t,
                    format!("expected `{{` or `;` after function header, found {d}"),
                );
                return Err(());
            }
        };
        Ok(Function {
            linkage,
            kind,
            returns,
            name,
            params,
            attrs,
            body,
            loc,
        })
    }

    pub(super) fn param_list(&mut self) -> PResult<Vec<VarDecl<'a>>> {
        self.expect(Tok::LParen, "`(`")?;
        let mut v = Vec::new();
        if self.eat(Tok::RParen) {
            return Ok(v);
        }
        loop {
            let t = self.peek();
            if t.kind != Tok::Dot || StateSpace::from_name(self.text(t)).is_none() {
                let d = self.describe(t);
                self.error_at(t, format!("expected `.param` or `.reg`, found {d}"));
                return Err(());
            }
            v.push(self.var_decl(None, true)?);
            if self.eat(Tok::Comma) {
                continue;
            }
            self.expect(Tok::RParen, "`,` or `)`")?;
            return Ok(v);
        }
    }

    /// After the body: turn unresolved symbols that name labels into [`Operand::Label`], and
    /// report the ones that name nothing. Only the top-level statements that hold a forward
    /// reference to a label are visited (a `bra` to a later block, mostly), not the whole body.
    pub(super) fn resolve_labels(&mut self, b: &mut Block<'a>) {
        if self.unresolved.is_empty() {
            return;
        }
        let labels: std::collections::HashSet<&'a str, BuildFx> =
            self.labels.iter().copied().collect();
        let unresolved = std::mem::take(&mut self.unresolved);
        let mut tops: Vec<u32> = Vec::new();
        for (t, top) in unresolved {
            let name = self.text(t);
            if labels.contains(name) {
                if tops.last() != Some(&top) {
                    tops.push(top);
                }
            } else if !self.module_syms.contains_key(name) {
                self.error_at(t, format!("undefined symbol `{name}`"));
            }
        }
        if !tops.is_empty() {
            fn walk<'a>(
                stmts: &mut [Statement<'a>],
                labels: &std::collections::HashSet<&'a str, BuildFx>,
            ) {
                for s in stmts {
                    match s {
                        Statement::Instruction(i) => {
                            for o in &mut i.operands {
                                fix(o, labels);
                            }
                        }
                        Statement::Block(b) => walk(&mut b.stmts, labels),
                        _ => {}
                    }
                }
            }
            fn fix<'a>(o: &mut Operand<'a>, labels: &std::collections::HashSet<&'a str, BuildFx>) {
                match o {
                    Operand::Symbol(n) if labels.contains(n.as_str()) => *o = Operand::Label(*n),
                    Operand::List(l) | Operand::Vector(l) => {
                        l.iter_mut().for_each(|o| fix(o, labels))
                    }
                    _ => {}
                }
            }
            // In source order already (statements are pushed in order), but a statement that
            // failed to parse may leave a reference behind: sort for the dedup.
            tops.sort_unstable();
            tops.dedup();
            for top in tops {
                if let Some(s) = b.stmts.get_mut(top as usize) {
                    walk(std::slice::from_mut(s), &labels);
                }
            }
        }
    }

    /// A capacity guess for the statements of a function body starting at byte `from`: one per
    /// 16 bytes up to the next line that starts a module-level directive (statements average
    /// 25-30 bytes; the vector is shrunk afterwards, and grows if the guess was short).
    pub(super) fn body_capacity(&self, from: usize) -> usize {
        let rest = &self.src.as_bytes()[from.min(self.src.len())..];
        let mut end = rest.len();
        for p in memchr::memmem::find_iter(rest, b"\n.") {
            let word = &rest[p + 1..];
            let n = word
                .iter()
                .skip(1)
                .position(|c| !c.is_ascii_alphanumeric() && *c != b'_')
                .map_or(word.len(), |n| n + 1);
            if is_module_sync(std::str::from_utf8(&word[..n]).unwrap_or("")) {
                end = p;
                break;
            }
        }
        (end / 16).clamp(16, 1 << 20)
    }

    /// Statements up to the matching `}` (consumed). They are collected on the shared
    /// `self.stmts` stack and moved into an exactly sized vector at the end, so a body costs one
    /// allocation and no regrowth.
    pub(super) fn block_body(&mut self, open: Token) -> Vec<Statement<'a>> {
        let first = self.stmts.len();
        let mark = self.scope.len();
        self.block_depth += 1;
        if self.block_depth == 2 {
            self.nest_first = first as u32;
        }
        loop {
            let t = self.peek();
            match t.kind {
                Tok::RBrace => {
                    self.bump();
                    break;
                }
                Tok::Eof => {
                    self.error_at(open, "unclosed `{` (end of file reached)".into());
                    break;
                }
                Tok::Dot if is_module_sync(self.text(t)) => {
                    let d = self.describe(t);
                    self.error_at(open, format!("unclosed `{{` (body ends at {d})"));
                    break;
                }
                Tok::Ident | Tok::At if self.fast_path && self.fast_statements(t.start) => {}
                _ => {
                    if self.statement().is_err() {
                        self.recover();
                    }
                }
            }
        }
        self.scope.truncate(mark);
        self.block_depth -= 1;
        if first == 0 {
            // A function body: the vector itself.
            std::mem::take(&mut self.stmts)
        } else {
            self.stmts.split_off(first)
        }
    }

    /// Skip to after the next `;`, or to before `{`, `}`, a module directive or end of file.
    pub(super) fn recover(&mut self) {
        loop {
            let t = self.peek();
            match t.kind {
                Tok::Eof | Tok::LBrace | Tok::RBrace => return,
                Tok::Semi => {
                    self.bump();
                    return;
                }
                Tok::Dot if is_module_sync(self.text(t)) => return,
                _ => {
                    self.bump();
                }
            }
        }
    }

    pub(super) fn statement(&mut self) -> PResult<()> {
        let t = self.peek();
        match t.kind {
            Tok::Ident => {
                if self.lx.peek2().kind == Tok::Colon {
                    self.bump();
                    self.bump();
                    let loc = self.loc(t.start);
                    let name = self.text(t);
                    self.labels.push(name);
                    self.stmts.push(Statement::Label(Label { name, loc }));
                    return Ok(());
                }
                self.instruction(None, t)?;
            }
            Tok::At => {
                self.bump();
                let negated = self.eat(Tok::Bang);
                let r = self.peek();
                let reg = self.expect_ident("a predicate register")?;
                self.check_declared(r, reg);
                self.instruction(
                    Some(Guard {
                        negated,
                        reg: reg.into(),
                    }),
                    t,
                )?;
            }
            Tok::LBrace => {
                let open = self.bump();
                if self.nesting >= MAX_NESTING {
                    self.error_at(
                        open,
                        format!("block nested deeper than {MAX_NESTING} levels"),
                    );
                    self.skip_balanced();
                    return Ok(());
                }
                let loc = self.loc(open.start);
                self.nesting += 1;
                let stmts = self.block_body(open);
                self.nesting -= 1;
                self.stmts.push(Statement::Block(Block { stmts, loc }));
            }
            Tok::Semi => {
                self.bump();
            }
            Tok::AtAt => {
                self.bump();
                let text = self.raw_line(t.start);
                let loc = self.loc(t.start);
                self.stmts.push(Statement::Debug(RawDirective {
                    name: self.text(t),
                    text,
                    loc,
                }));
            }
            Tok::Dot => {
                let s = self.text(t);
                match s {
                    ".loc" | ".file" => {
                        self.bump();
                        let text = self.raw_line(t.start);
                        let loc = self.loc(t.start);
                        self.stmts
                            .push(Statement::Debug(RawDirective { name: s, text, loc }));
                    }
                    ".pragma" => {
                        self.bump();
                        let loc = self.loc(t.start);
                        let strings = self.pragma_strings()?;
                        self.stmts.push(Statement::Pragma(Pragma { strings, loc }));
                    }
                    ".callprototype" => {
                        self.bump();
                        let loc = self.loc(t.start);
                        let mut returns = Vec::new();
                        if self.peek().kind == Tok::LParen {
                            returns = self.param_list()?;
                        }
                        self.expect(Tok::Underscore, "`_`")?;
                        let params = if self.peek().kind == Tok::LParen {
                            self.param_list()?
                        } else {
                            Vec::new()
                        };
                        let mut noreturn = false;
                        let pk = self.peek();
                        if pk.kind == Tok::Dot && self.text(pk) == ".noreturn" {
                            self.bump();
                            noreturn = true;
                        }
                        self.expect(Tok::Semi, "`;`")?;
                        self.stmts.push(Statement::CallPrototype(CallPrototype {
                            returns,
                            params,
                            noreturn,
                            loc,
                        }));
                    }
                    ".calltargets" | ".branchtargets" => {
                        self.bump();
                        let loc = self.loc(t.start);
                        let mut targets = Vec::new();
                        loop {
                            targets.push(self.expect_ident("a target name")?);
                            if !self.eat(Tok::Comma) {
                                break;
                            }
                        }
                        self.expect(Tok::Semi, "`;`")?;
                        let tl = TargetList { targets, loc };
                        self.stmts.push(if s == ".calltargets" {
                            Statement::CallTargets(tl)
                        } else {
                            Statement::BranchTargets(tl)
                        });
                    }
                    _ if StateSpace::from_name(s).is_some() || s == ".extern" => {
                        let linkage = if s == ".extern" {
                            self.bump();
                            Some(Linkage::Extern)
                        } else {
                            None
                        };
                        let v = self.var_decl(linkage, false)?;
                        self.expect(Tok::Semi, "`;`")?;
                        let is_reg = v.space == StateSpace::Reg;
                        for d in &v.decls {
                            self.push_scope(d.name, d.range.unwrap_or(0), is_reg);
                        }
                        self.stmts.push(Statement::Variable(v));
                    }
                    _ => {
                        self.error_at(t, format!("unknown directive `{s}` in function body"));
                        return Err(());
                    }
                }
            }
            _ => {
                let d = self.describe(t);
                self.error_at(t, format!("expected an instruction, found {d}"));
                return Err(());
            }
        }
        Ok(())
    }

    /// An instruction, pushed onto `self.stmts` (built in place: no copy of the large value).
    pub(super) fn instruction(&mut self, guard: Option<Guard<'a>>, start: Token) -> PResult<()> {
        let ot = self.peek();
        if ot.kind != Tok::Ident {
            let d = self.describe(ot);
            self.error_at(ot, format!("expected an opcode, found {d}"));
            return Err(());
        }
        self.bump();
        let name = self.text(ot);
        let loc = self.loc(start.start);
        let mut end = ot.end;
        while self.peek().kind == Tok::Dot {
            end = self.bump().end;
        }
        let head = &self.src[ot.start as usize..end as usize];
        let modifiers = Modifiers::from_span(&self.src[ot.end as usize..end as usize]);
        let mut bad = false;
        let mut counts = crate::ptx::grammar::ANY_COUNT;
        let known = match self.heads.get(head) {
            Some(&op) => Some(op),
            None => self.counted_heads.get(head).map(|&(op, c)| {
                counts = c;
                op
            }),
        };
        let opcode = match known {
            Some(op) => op,
            None => {
                let Some(opcode) = Opcode::from_name(name) else {
                    self.error_at(ot, format!("unknown opcode `{name}`"));
                    return Err(());
                };
                for m in modifiers.iter() {
                    if !self.table.allows(opcode, m) {
                        let off = m.as_ptr() as usize - self.src.as_ptr() as usize;
                        let t = Token {
                            kind: Tok::Dot,
                            start: off as u32,
                            end: (off + m.len()) as u32,
                        };
                        self.error_at(t, format!("unknown modifier `{m}` for `{name}`"));
                        bad = true;
                    }
                }
                if !bad {
                    match self.check_modifiers(opcode, name, &modifiers) {
                        Some(c) => counts = c,
                        None => bad = true,
                    }
                }
                if !bad {
                    if counts == crate::ptx::grammar::ANY_COUNT {
                        self.heads.insert(head, opcode);
                    } else {
                        self.counted_heads.insert(head, (opcode, counts));
                    }
                }
                opcode
            }
        };
        let mut operands = Operands::new();
        if !self.eat(Tok::Semi) {
            loop {
                operands.push(self.operand()?);
                let t = self.peek();
                match t.kind {
                    Tok::Comma => {
                        self.bump();
                    }
                    Tok::Semi => {
                        self.bump();
                        break;
                    }
                    _ => {
                        let d = self.describe(t);
                        self.error_at(t, format!("expected `,` or `;` after operand, found {d}"));
                        return Err(());
                    }
                }
            }
        }
        if bad {
            return Err(());
        }
        if counts & (1 << operands.len().min(31)) == 0 {
            self.operand_count_error(ot, head, operands.len(), counts);
            return Err(());
        }
        self.stmts.push(Statement::Instruction(Instruction {
            guard,
            opcode,
            modifiers,
            operands,
            loc,
        }));
        Ok(())
    }

    /// The numbers of operands the forms of `src/ptx/forms.txt` take with the modifiers of an
    /// instruction of `opcode` ([`crate::ptx::grammar::Grammar::operand_counts_of`]; 0: the
    /// modifiers are no combination of its forms).
    fn form_counts(opcode: Opcode, modifiers: &Modifiers<'a>) -> u32 {
        crate::ptx::grammar::grammar().operand_counts_of(opcode, modifiers.iter())
    }

    /// Report an instruction whose head's forms take another number of operands.
    #[cold]
    fn operand_count_error(&mut self, at: Token, head: &str, n: usize, counts: u32) {
        let takes: Vec<String> = (0..32)
            .filter(|k| counts & (1 << k) != 0)
            .map(|k| k.to_string())
            .collect();
        self.error_at(
            at,
            format!(
                "`{head}` takes {} operands, not {n} (the forms of src/ptx/forms.txt with these modifiers)",
                takes.join(" or ")
            ),
        );
    }

    /// Decode the (known) modifiers of a new opcode head: conflicting words of one class
    /// (`.rn.rz`, `atom.add.or`) are an error unless a row of the form table takes them
    /// together, a word given twice a warning. Returns the
    /// numbers of operands the head takes (see [`Self::form_counts`]; any number for an
    /// opcode outside [`crate::ptx::grammar::STRICT`]), or `None` when the head is invalid.
    #[cold]
    pub(super) fn check_modifiers(
        &mut self,
        opcode: Opcode,
        name: &str,
        modifiers: &Modifiers<'a>,
    ) -> Option<u32> {
        let token_of = |s: &str, m: &str| {
            let off = m.as_ptr() as usize - s.as_ptr() as usize;
            Token {
                kind: Tok::Dot,
                start: off as u32,
                end: (off + m.len()) as u32,
            }
        };
        let strict = crate::ptx::grammar::is_strict(opcode);
        let counts = if strict {
            Self::form_counts(opcode, modifiers)
        } else {
            crate::ptx::grammar::ANY_COUNT
        };
        match Mods::decode(opcode, modifiers) {
            Ok(_) if counts == 0 => {
                let words: String = modifiers.iter().collect();
                self.error_at(
                    token_of(self.src, modifiers.span()),
                    format!(
                        "`{name}{words}` is no `{name}` instruction of PTX ISA 9.x (its modifiers are no combination of the forms in src/ptx/forms.txt)"
                    ),
                );
                None
            }
            Ok(d) => {
                if let Some(dup) = d.duplicate() {
                    let mut seen = 0;
                    if let Some(w) = modifiers.iter().find(|w| {
                        seen += usize::from(crate::ptx::mods::lookup(w) == Some(dup));
                        seen == 2
                    }) {
                        let t = token_of(self.src, w);
                        self.warn_at(t, format!("duplicate modifier `{w}` for `{name}`"));
                    }
                }
                Some(counts)
            }
            // Two words of one class that a row of the form table takes together (`ptxas`
            // takes `.and.xor` on `mma`'s 4-bit integer shapes): the table judges the
            // combinations of its opcodes.
            Err(ModError::Conflict { .. }) if strict && counts != 0 => Some(counts),
            Err(e) => {
                let at = match &e {
                    ModError::Conflict { second, .. } => {
                        modifiers.iter().filter(|w| w == second).last()
                    }
                    _ => None,
                };
                let t = match at {
                    Some(w) => token_of(self.src, w),
                    None => token_of(self.src, modifiers.span()),
                };
                self.error_at(t, format!("{e} for `{name}`"));
                None
            }
        }
    }
}
