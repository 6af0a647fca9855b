//! Name scopes (registers told apart from symbols by declaration, `%r<N>` ranges) and
//! operands (§6: registers, immediates, addresses, vectors, lists, `p|q` pairs).

use super::*;

impl<'a> Parser<'a> {
    /// An identifier operand, with adjacent `.x` / `.h0` / `.b1` suffixes merged into its text.
    #[inline]
    pub(super) fn ident_text(&mut self, t: Token) -> &'a str {
        if self.peek().kind != Tok::Dot {
            return self.text(t);
        }
        let mut end = t.end;
        loop {
            let n = self.peek();
            if n.kind == Tok::Dot && n.start == end {
                self.bump();
                end = n.end;
            } else {
                break;
            }
        }
        &self.src[t.start as usize..end as usize]
    }

    /// Declare `name` in the innermost scope (`range`: `N` of `%r<N>`, else 0). A cached
    /// prefix answer that the new name could shadow (same register prefix) is dropped.
    pub(super) fn push_scope(&mut self, name: &'a str, range: u32, is_reg: bool) {
        self.scope_id = self.scope_id.wrapping_add(1).max(1);
        let e = ScopeEntry::new(name, range, is_reg, self.scope_id);
        if e.ptag != 0 {
            let slot = &mut self.prefix_cache[prefix_slot(e.ptag)];
            if slot.ptag == e.ptag {
                slot.id = 0;
            }
        }
        self.scope.push(e);
    }

    /// The register-prefix cache's answer for `prefix` (with [`name_tag`] `ptag`) and number
    /// `n`: `Some(is_reg)` when a valid slot holds a range declaration of that prefix covering
    /// `n`, else `None` (ask [`Parser::lookup`]).
    #[inline(always)]
    pub(super) fn prefix_cached(&self, ptag: u32, prefix: &str, n: u32) -> Option<bool> {
        let slot = &self.prefix_cache[prefix_slot(ptag)];
        (slot.id != 0
            && self.scope.get(slot.idx as usize).map(|e| e.id) == Some(slot.id)
            && slot.ptag == ptag
            && n < slot.range
            && (prefix.len() <= 3 || slot.prefix == prefix))
            .then_some(slot.is_reg)
    }

    /// Whether `name` is declared in the function's scope: `Some(true)` for a register,
    /// `Some(false)` for another local symbol (a parameter, `.local`/`.shared` variable).
    ///
    /// The scope is scanned innermost first. A register `%r<n>` found in a range declaration
    /// `%r<N>` is remembered per prefix when no declaration inside that one could answer for
    /// the same prefix (another range of it, or a plain name such as `%r7`): then every `%r<m>`,
    /// `m < N`, has the same answer until the scope changes, and the next ones cost one slot
    /// read instead of a scan.
    #[inline]
    pub(super) fn lookup(&mut self, name: &'a str) -> Option<bool> {
        let (prefix, num) = split_digits(name);
        let tag = name_tag(name);
        // The prefix's tag from the name's: same leading bytes, its own length.
        let plen = prefix.len().min(3);
        let ptag = (tag & (u32::MAX >> (8 * (3 - plen)))) & !0xff | prefix.len().min(255) as u32;
        if let Some(n) = num {
            if let Some(is_reg) = self.prefix_cached(ptag, prefix, n) {
                return Some(is_reg);
            }
        }
        let mut clean = true;
        for (idx, e) in self.scope.iter().enumerate().rev() {
            if e.range > 0 {
                if let Some(n) = num {
                    if e.is(ptag, prefix) {
                        if n < e.range {
                            if clean {
                                self.prefix_cache[prefix_slot(ptag)] = PrefixSlot {
                                    id: e.id,
                                    idx: idx as u32,
                                    ptag,
                                    prefix,
                                    range: e.range,
                                    is_reg: e.is_reg,
                                };
                            }
                            return Some(e.is_reg);
                        }
                        clean = false;
                    }
                }
            } else {
                if e.is(tag, name) {
                    return Some(e.is_reg);
                }
                if e.ptag == ptag && (prefix.len() <= 3 || e.pname == prefix) {
                    clean = false;
                }
            }
        }
        None
    }

    pub(super) fn check_declared(&mut self, t: Token, name: &'a str) {
        if self.lookup(name).is_none() && !self.module_syms.contains_key(name) {
            self.error_at(t, format!("undeclared register `{name}`"));
        }
    }

    pub(super) fn classify(&mut self, t: Token, full: &'a str) -> Operand<'a> {
        match self.classify_name(t, full) {
            Some(op) => op,
            None => {
                let base = self.text(t);
                self.error_at(t, format!("undeclared register `{base}`"));
                Operand::Reg(full.into())
            }
        }
    }

    /// [`Parser::classify`] without the report: `None` for an undeclared `%` register.
    #[inline]
    pub(super) fn classify_name(&mut self, t: Token, full: &'a str) -> Option<Operand<'a>> {
        // `t` is the identifier token, `full` it plus any `.x` suffixes: the base is the token.
        let base = self.text(t);
        if let Some(is_reg) = self.lookup(base) {
            return Some(if is_reg {
                Operand::Reg(full.into())
            } else {
                Operand::Symbol(full.into())
            });
        }
        if is_special_register(base) {
            return Some(Operand::SpecialReg(full.into()));
        }
        match self.module_syms.get(base) {
            Some(SymKind::Func) => Some(Operand::Func(full.into())),
            Some(SymKind::Var) => Some(Operand::Symbol(full.into())),
            None => {
                if base.starts_with('%') {
                    None
                } else {
                    let top = if self.block_depth > 1 {
                        self.nest_first
                    } else {
                        self.stmts.len() as u32
                    };
                    self.unresolved.push((t, top));
                    Some(Operand::Symbol(full.into()))
                }
            }
        }
    }

    pub(super) fn operand(&mut self) -> PResult<Operand<'a>> {
        let t = self.peek();
        match t.kind {
            Tok::Ident => {
                self.bump();
                let full = self.ident_text(t);
                if self.peek().kind == Tok::Pipe {
                    self.bump();
                    let q = self.peek();
                    let second = match q.kind {
                        Tok::Ident => {
                            self.bump();
                            self.check_declared(q, self.text(q));
                            self.text(q)
                        }
                        Tok::Underscore => {
                            self.bump();
                            "_"
                        }
                        _ => {
                            let d = self.describe(q);
                            self.error_at(q, format!("expected a predicate after `|`, found {d}"));
                            return Err(());
                        }
                    };
                    if full != "_" {
                        self.check_declared(t, full);
                    }
                    return Ok(Operand::Pair(Box::new((full, second))));
                }
                Ok(self.classify(t, full))
            }
            Tok::Underscore => {
                self.bump();
                if self.peek().kind == Tok::Pipe {
                    self.bump();
                    let q = self.expect_ident("a predicate")?;
                    return Ok(Operand::Pair(Box::new(("_", q))));
                }
                Ok(Operand::Sink)
            }
            Tok::Bang => {
                self.bump();
                let r = self.peek();
                let n = self.expect_ident("a predicate")?;
                self.check_declared(r, n);
                Ok(Operand::Not(n.into()))
            }
            Tok::Minus if self.lx.peek2().kind == Tok::Ident => {
                // `-%r1.b0`: a negated register (the `vmad` sources, §9.7.18.1).
                self.bump();
                let r = self.peek();
                self.bump();
                let full = self.ident_text(r);
                self.check_declared(r, self.text(r));
                Ok(Operand::Neg(full.into()))
            }
            Tok::Minus | Tok::Int | Tok::Float | Tok::F32Hex | Tok::F64Hex => {
                Ok(Operand::Imm(self.imm()?.0))
            }
            Tok::LBrace => self.nested(t, "vector operand", |p| {
                p.bump();
                let mut v = VectorOperands::new();
                loop {
                    v.push(p.operand()?);
                    if p.eat(Tok::Comma) {
                        continue;
                    }
                    p.expect(Tok::RBrace, "`,` or `}`")?;
                    break;
                }
                Ok(Operand::Vector(Box::new(v)))
            }),
            Tok::LParen => self.nested(t, "operand list", |p| {
                p.bump();
                let mut v = VectorOperands::new();
                if !p.eat(Tok::RParen) {
                    loop {
                        v.push(p.operand()?);
                        if p.eat(Tok::Comma) {
                            continue;
                        }
                        p.expect(Tok::RParen, "`,` or `)`")?;
                        break;
                    }
                }
                Ok(Operand::List(Box::new(v)))
            }),
            Tok::LBracket => self.nested(t, "address operand", |p| {
                p.bump();
                let a = p.address()?;
                Ok(Operand::Address(Box::new(a)))
            }),
            _ => {
                let d = self.describe(t);
                self.error_at(t, format!("bad operand {d}"));
                Err(())
            }
        }
    }

    /// After `[`: the address and the closing `]`.
    pub(super) fn address(&mut self) -> PResult<Address<'a>> {
        let t = self.peek();
        match t.kind {
            Tok::Ident => {
                self.bump();
                let full = self.ident_text(t);
                let op = self.classify(t, full);
                match self.peek().kind {
                    Tok::Comma => {
                        let mut v = vec![op];
                        while self.eat(Tok::Comma) {
                            v.push(self.operand()?);
                        }
                        self.expect(Tok::RBracket, "`]`")?;
                        Ok(Address::Tuple(v))
                    }
                    _ => {
                        let base = match op {
                            Operand::Reg(n) | Operand::SpecialReg(n) => AddrBase::Reg(n.as_str()),
                            Operand::Symbol(n) | Operand::Func(n) | Operand::Label(n) => {
                                AddrBase::Symbol(n.as_str())
                            }
                            _ => AddrBase::Symbol(full),
                        };
                        let offset = self.opt_offset()?;
                        self.expect(Tok::RBracket, "`+`, `-` or `]`")?;
                        Ok(Address::Offset {
                            base: Some(base),
                            offset,
                        })
                    }
                }
            }
            Tok::Int | Tok::Minus => {
                let (_, value) = self.imm()?;
                let offset = match value {
                    ImmValue::Int(v) => v,
                    ImmValue::UInt(v) => v as i64,
                    _ => {
                        self.error_at(t, "expected an integer address".into());
                        return Err(());
                    }
                };
                self.expect(Tok::RBracket, "`]`")?;
                Ok(Address::Offset { base: None, offset })
            }
            _ => {
                let d = self.describe(t);
                self.error_at(t, format!("bad address operand {d}"));
                Err(())
            }
        }
    }
}
