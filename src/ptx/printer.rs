//! AST → PTX text.
//!
//! The layout is canonical (one statement per line, tab indentation, `, ` between operands),
//! so printing is not byte-identical to the input, but parsing the output gives an equal AST
//! (positions excluded, see [`Loc`](super::ast::Loc)). Literals are printed with their original
//! spelling; debug directives and invalid functions are printed verbatim.

use std::fmt::Write;

use super::ast::*;

/// Print a module as PTX text.
pub fn print(m: &Module<'_>) -> String {
    let mut p = Printer {
        out: String::with_capacity(64 * 1024),
    };
    p.module(m);
    p.out
}

struct Printer {
    out: String,
}

impl Printer {
    fn module(&mut self, m: &Module<'_>) {
        if let Some(v) = m.version {
            let _ = writeln!(self.out, ".version {}.{}", v.major, v.minor);
        }
        if !m.target.is_empty() {
            self.out.push_str(".target ");
            self.out.push_str(&m.target.join(", "));
            self.out.push('\n');
        }
        if let Some(a) = m.address_size {
            let _ = writeln!(self.out, ".address_size {a}");
        }
        self.out.push('\n');
        for d in &m.items {
            match d {
                Directive::Variable(v) => {
                    self.var(v);
                    self.out.push_str(";\n");
                }
                Directive::Function(f) => self.function(f),
                Directive::Invalid(i) => {
                    self.out.push_str(i.text);
                    self.out.push('\n');
                }
                Directive::Alias { alias, aliasee, .. } => {
                    let _ = writeln!(self.out, ".alias {alias}, {aliasee};");
                }
                Directive::Pragma(p) => {
                    self.pragma(p);
                    self.out.push('\n');
                }
                Directive::Debug(r) => {
                    self.out.push_str(r.text);
                    self.out.push('\n');
                }
            }
        }
    }

    fn pragma(&mut self, p: &Pragma<'_>) {
        self.out.push_str(".pragma ");
        self.out.push_str(&p.strings.join(", "));
        self.out.push(';');
    }

    fn var(&mut self, v: &VarDecl<'_>) {
        if let Some(l) = v.linkage {
            self.out.push_str(l.as_str());
            self.out.push(' ');
        }
        self.out.push_str(v.space.as_str());
        if let Some(a) = v.attribute {
            let _ = write!(self.out, " .attribute({a})");
        }
        if let Some(a) = v.align {
            let _ = write!(self.out, " .align {a}");
        }
        if let Some(n) = v.vector {
            let _ = write!(self.out, " .v{n}");
        }
        self.out.push(' ');
        self.out.push_str(v.ty.as_str());
        if let Some(p) = v.ptr {
            self.out.push_str(" .ptr");
            if let Some(s) = p.space {
                self.out.push(' ');
                self.out.push_str(s.as_str());
            }
            if let Some(a) = p.align {
                let _ = write!(self.out, " .align {a}");
            }
        }
        for (i, d) in v.decls.iter().enumerate() {
            self.out.push_str(if i == 0 { " " } else { ", " });
            self.out.push_str(d.name);
            if let Some(r) = d.range {
                let _ = write!(self.out, "<{r}>");
            }
            for a in &d.array {
                match a {
                    Some(n) => {
                        let _ = write!(self.out, "[{n}]");
                    }
                    None => self.out.push_str("[]"),
                }
            }
            if let Some(init) = &d.init {
                self.out.push_str(" = ");
                self.init(init);
            }
        }
    }

    fn init(&mut self, i: &Init<'_>) {
        match i {
            Init::Imm(imm) => self.out.push_str(imm.text()),
            Init::Symbol {
                name,
                generic,
                offset,
            } => {
                if *generic {
                    let _ = write!(self.out, "generic({name})");
                } else {
                    self.out.push_str(name);
                }
                self.offset(*offset);
            }
            Init::Field { name, value } => {
                let _ = write!(self.out, "{name} = {value}");
            }
            Init::List(l) => {
                self.out.push('{');
                for (k, x) in l.iter().enumerate() {
                    if k > 0 {
                        self.out.push_str(", ");
                    }
                    self.init(x);
                }
                self.out.push('}');
            }
        }
    }

    fn offset(&mut self, off: i64) {
        // ptxas only accepts `+`; a negative offset is written `+-N`.
        if off != 0 {
            let _ = write!(self.out, "+{off}");
        }
    }

    fn params(&mut self, ps: &[VarDecl<'_>], multiline: bool) {
        self.out.push('(');
        for (i, p) in ps.iter().enumerate() {
            if i > 0 {
                self.out.push(',');
            }
            if multiline {
                self.out.push_str("\n\t");
            } else if i > 0 {
                self.out.push(' ');
            }
            self.var(p);
        }
        if multiline && !ps.is_empty() {
            self.out.push('\n');
        }
        self.out.push(')');
    }

    fn function(&mut self, f: &Function<'_>) {
        if let Some(l) = f.linkage {
            self.out.push_str(l.as_str());
            self.out.push(' ');
        }
        self.out.push_str(match f.kind {
            FunctionKind::Entry => ".entry ",
            FunctionKind::Func => ".func ",
        });
        if !f.returns.is_empty() {
            self.params(&f.returns, false);
            self.out.push(' ');
        }
        self.out.push_str(f.name);
        self.params(&f.params, true);
        self.out.push('\n');
        for a in &f.attrs {
            self.out.push_str(a.name);
            if !a.args.is_empty() {
                self.out.push(' ');
                for (i, x) in a.args.iter().enumerate() {
                    if i > 0 {
                        self.out.push_str(", ");
                    }
                    let _ = write!(self.out, "{x}");
                }
            }
            if !a.strings.is_empty() {
                self.out.push(' ');
                self.out.push_str(&a.strings.join(", "));
                self.out.push(';');
            }
            self.out.push('\n');
        }
        match &f.body {
            None => self.out.push_str(";\n"),
            Some(b) => {
                self.block(b, 0);
                self.out.push('\n');
            }
        }
        self.out.push('\n');
    }

    fn indent(&mut self, depth: usize) {
        for _ in 0..depth {
            self.out.push('\t');
        }
    }

    fn block(&mut self, b: &Block<'_>, depth: usize) {
        self.out.push_str("{\n");
        for s in &b.stmts {
            self.statement(s, depth + 1);
        }
        self.indent(depth);
        self.out.push('}');
    }

    fn statement(&mut self, s: &Statement<'_>, depth: usize) {
        match s {
            Statement::Label(l) => {
                self.out.push_str(l.name);
                self.out.push_str(":\n");
                return;
            }
            Statement::Debug(r) => {
                self.out.push_str(r.text);
                self.out.push('\n');
                return;
            }
            _ => {}
        }
        self.indent(depth);
        match s {
            Statement::Instruction(i) => self.instruction(i),
            Statement::Variable(v) => {
                self.var(v);
                self.out.push(';');
            }
            Statement::Block(b) => self.block(b, depth),
            Statement::Pragma(p) => self.pragma(p),
            Statement::CallPrototype(c) => {
                self.out.push_str(".callprototype ");
                if !c.returns.is_empty() {
                    self.params(&c.returns, false);
                    self.out.push(' ');
                }
                self.out.push_str("_ ");
                self.params(&c.params, false);
                if c.noreturn {
                    self.out.push_str(" .noreturn");
                }
                self.out.push(';');
            }
            Statement::CallTargets(t) => {
                let _ = write!(self.out, ".calltargets {};", t.targets.join(", "));
            }
            Statement::BranchTargets(t) => {
                let _ = write!(self.out, ".branchtargets {};", t.targets.join(", "));
            }
            Statement::Label(_) | Statement::Debug(_) => {}
        }
        self.out.push('\n');
    }

    fn instruction(&mut self, i: &Instruction<'_>) {
        if let Some(g) = i.guard {
            self.out.push('@');
            if g.negated {
                self.out.push('!');
            }
            self.out.push_str(&g.reg);
            self.out.push(' ');
        }
        self.out.push_str(i.opcode.name());
        let span = i.modifiers.span();
        if span
            .bytes()
            .all(|b| b != b' ' && b != b'/' && !b.is_ascii_whitespace())
        {
            self.out.push_str(span);
        } else {
            for m in i.modifiers.iter() {
                self.out.push_str(m);
            }
        }
        for (k, o) in i.operands.iter().enumerate() {
            self.out.push_str(if k == 0 { " " } else { ", " });
            self.operand(o);
        }
        self.out.push(';');
    }

    fn operands(&mut self, l: &[Operand<'_>]) {
        for (k, o) in l.iter().enumerate() {
            if k > 0 {
                self.out.push_str(", ");
            }
            self.operand(o);
        }
    }

    fn operand(&mut self, o: &Operand<'_>) {
        match o {
            Operand::Reg(n)
            | Operand::SpecialReg(n)
            | Operand::Symbol(n)
            | Operand::Func(n)
            | Operand::Label(n) => self.out.push_str(n),
            Operand::Imm(i) => self.out.push_str(i.text()),
            Operand::Vector(v) => {
                self.out.push('{');
                self.operands(v);
                self.out.push('}');
            }
            Operand::List(v) => {
                self.out.push('(');
                self.operands(v);
                self.out.push(')');
            }
            Operand::Address(a) => {
                self.out.push('[');
                match &**a {
                    Address::Offset { base, offset } => match base {
                        Some(AddrBase::Reg(n)) | Some(AddrBase::Symbol(n)) => {
                            self.out.push_str(n);
                            self.offset(*offset);
                        }
                        None => {
                            let _ = write!(self.out, "{offset}");
                        }
                    },
                    Address::Tuple(v) => self.operands(v),
                }
                self.out.push(']');
            }
            Operand::Sink => self.out.push('_'),
            Operand::Not(n) => {
                self.out.push('!');
                self.out.push_str(n);
            }
            Operand::Neg(n) => {
                self.out.push('-');
                self.out.push_str(n);
            }
            Operand::Pair(pq) => {
                let (p, q) = **pq;
                self.out.push_str(p);
                self.out.push('|');
                self.out.push_str(q);
            }
        }
    }
}
