//! Variable declarations (§5.4: state space, alignment, vector, type, declarators, arrays)
//! and their initializers (§5.4.4), at module or function scope.

use super::*;

impl<'a> Parser<'a> {
    /// A module-level variable or function (with optional linkage).
    pub(super) fn module_decl(&mut self, start: Token) -> Directive<'a> {
        let mut linkage = None;
        let t = self.peek();
        let s = self.text(t);
        let lk = match s {
            ".extern" => Some(Linkage::Extern),
            ".visible" => Some(Linkage::Visible),
            ".weak" => Some(Linkage::Weak),
            ".common" => Some(Linkage::Common),
            _ => None,
        };
        if lk.is_some() {
            self.bump();
            linkage = lk;
        }
        let t = self.peek();
        let s = if t.kind == Tok::Dot { self.text(t) } else { "" };
        match s {
            ".entry" | ".func" => self.function(start, linkage),
            _ if StateSpace::from_name(s).is_some() => {
                if let Ok(v) = self.var_decl(linkage, false) {
                    if self.eat(Tok::Semi) {
                        for d in &v.decls {
                            self.module_syms.insert(d.name, SymKind::Var);
                        }
                        return Directive::Variable(v);
                    }
                    let t = self.peek();
                    let d = self.describe(t);
                    self.error_at(t, format!("expected `;`, found {d}"));
                }
                let mut m = Module::default();
                self.module_invalid(&mut m, start, None);
                m.items.pop().unwrap()
            }
            _ => {
                let d = self.describe(t);
                self.error_at(t, format!("unknown or misplaced directive {d}"));
                let mut m = Module::default();
                self.module_invalid(&mut m, start, None);
                m.items.pop().unwrap()
            }
        }
    }

    // ----- declarations ------------------------------------------------------------------------

    /// `space {attrs} type [.ptr ...] declarator {, declarator}` (no `;`). With `single`, only one
    /// declarator (parameters).
    pub(super) fn var_decl(
        &mut self,
        linkage: Option<Linkage>,
        single: bool,
    ) -> PResult<VarDecl<'a>> {
        let st = self.bump();
        let loc = self.loc(st.start);
        let Some(space) = StateSpace::from_name(self.text(st)) else {
            let d = self.describe(st);
            self.error_at(st, format!("expected a state space, found {d}"));
            return Err(());
        };
        let mut v = VarDecl {
            linkage,
            space,
            attribute: None,
            align: None,
            vector: None,
            ty: Type::B8,
            ptr: None,
            decls: Vec::new(),
            loc,
        };
        loop {
            let t = self.peek();
            if t.kind != Tok::Dot {
                let d = self.describe(t);
                self.error_at(t, format!("expected a type, found {d}"));
                return Err(());
            }
            self.bump();
            let s = self.text(t);
            match s {
                ".align" => v.align = Some(self.expect_u32("an alignment")?),
                ".v2" => v.vector = Some(2),
                ".v4" => v.vector = Some(4),
                ".v8" => v.vector = Some(8),
                ".attribute" => {
                    let open = self.expect(Tok::LParen, "`(`")?;
                    let mut depth = 1;
                    let close = loop {
                        let t = self.bump();
                        match t.kind {
                            Tok::LParen => depth += 1,
                            Tok::RParen => {
                                depth -= 1;
                                if depth == 0 {
                                    break t;
                                }
                            }
                            Tok::Eof | Tok::Semi => {
                                self.error_at(open, "unclosed `(` in .attribute".into());
                                return Err(());
                            }
                            _ => {}
                        }
                    };
                    v.attribute = Some(&self.src[open.end as usize..close.start as usize]);
                }
                _ => match Type::from_name(s) {
                    Some(ty) => {
                        v.ty = ty;
                        break;
                    }
                    None => {
                        self.error_at(t, format!("unknown type or attribute `{s}`"));
                        return Err(());
                    }
                },
            }
        }
        // `.ptr [.space] [.align N]` on kernel parameters.
        let pk = self.peek();
        if pk.kind == Tok::Dot && self.text(pk) == ".ptr" {
            self.bump();
            let mut p = PtrAttr {
                space: None,
                align: None,
            };
            loop {
                let t = self.peek();
                if t.kind != Tok::Dot {
                    break;
                }
                let s = self.text(t);
                if s == ".align" {
                    self.bump();
                    p.align = Some(self.expect_u32("an alignment")?);
                } else if let Some(sp) = StateSpace::from_name(s) {
                    self.bump();
                    p.space = Some(sp);
                } else {
                    break;
                }
            }
            v.ptr = Some(p);
        }
        loop {
            let t = self.peek();
            let name = match t.kind {
                Tok::Ident | Tok::Underscore => {
                    self.bump();
                    self.text(t)
                }
                _ => {
                    let d = self.describe(t);
                    self.error_at(t, format!("expected a variable name, found {d}"));
                    return Err(());
                }
            };
            let mut d = Declarator {
                name,
                range: None,
                array: Vec::new(),
                init: None,
            };
            if self.eat(Tok::Lt) {
                d.range = Some(self.expect_u32("a register count")?);
                self.expect(Tok::Gt, "`>`")?;
            }
            while self.eat(Tok::LBracket) {
                if self.eat(Tok::RBracket) {
                    d.array.push(None);
                } else {
                    d.array.push(Some(self.expect_u64("an array size")?));
                    self.expect(Tok::RBracket, "`]`")?;
                }
            }
            if self.eat(Tok::Eq) {
                d.init = Some(self.init()?);
            }
            v.decls.push(d);
            if single || !self.eat(Tok::Comma) {
                break;
            }
        }
        Ok(v)
    }

    pub(super) fn init(&mut self) -> PResult<Init<'a>> {
        let t = self.peek();
        match t.kind {
            Tok::LBrace => self.nested(t, "initializer list", |p| {
                p.bump();
                let mut v = Vec::new();
                if !p.eat(Tok::RBrace) {
                    loop {
                        v.push(p.init()?);
                        if p.eat(Tok::Comma) {
                            continue;
                        }
                        p.expect(Tok::RBrace, "`,` or `}`")?;
                        break;
                    }
                }
                Ok(Init::List(v))
            }),
            Tok::Ident if self.lx.peek2().kind == Tok::Eq => {
                self.bump();
                self.bump();
                let v = self.peek();
                if !matches!(v.kind, Tok::Ident | Tok::Int) {
                    let d = self.describe(v);
                    self.error_at(v, format!("expected a field value, found {d}"));
                    return Err(());
                }
                self.bump();
                Ok(Init::Field {
                    name: self.text(t),
                    value: self.text(v),
                })
            }
            Tok::Ident => {
                self.bump();
                let mut name = self.text(t);
                let mut generic = false;
                if name == "generic" && self.peek().kind == Tok::LParen {
                    self.bump();
                    name = self.expect_ident("a symbol")?;
                    self.expect(Tok::RParen, "`)`")?;
                    generic = true;
                }
                let offset = self.opt_offset()?;
                Ok(Init::Symbol {
                    name,
                    generic,
                    offset,
                })
            }
            _ => Ok(Init::Imm(self.imm()?.0)),
        }
    }

    /// Optional `+N` / `-N` / `+-N`.
    pub(super) fn opt_offset(&mut self) -> PResult<i64> {
        let neg = match self.peek().kind {
            Tok::Plus => false,
            Tok::Minus => true,
            _ => return Ok(0),
        };
        self.bump();
        let (_, value) = self.imm()?;
        let v = match value {
            ImmValue::Int(v) => v,
            ImmValue::UInt(v) => v as i64,
            _ => {
                let t = self.peek();
                self.error_at(t, "expected an integer offset".into());
                return Err(());
            }
        };
        Ok(if neg { v.wrapping_neg() } else { v })
    }

    /// A literal and its value.
    pub(super) fn imm(&mut self) -> PResult<(Imm<'a>, ImmValue)> {
        let first = self.peek();
        let neg = if first.kind == Tok::Minus {
            self.bump();
            true
        } else {
            false
        };
        let t = self.peek();
        if !matches!(t.kind, Tok::Int | Tok::F32Hex | Tok::F64Hex | Tok::Float) {
            let d = self.describe(t);
            self.error_at(t, format!("expected a number, found {d}"));
            return Err(());
        }
        let value = match imm_value(t.kind, self.text(t), neg) {
            Ok(v) => v,
            Err(msg) => {
                self.error_at(t, msg);
                return Err(());
            }
        };
        self.bump();
        Ok((
            Imm::from_valid(&self.src[first.start as usize..t.end as usize]),
            value,
        ))
    }
}
