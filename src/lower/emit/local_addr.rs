//! Registers that provably hold addresses into one of the function's own `.local` variables
//! (amdgcn, [`crate::target::Profile::local_gep`]).
//!
//! nvcc addresses its local frame through integers: `mov.u64 %SPL, __local_depot0;
//! add.u64 %rd1, %SPL, 4; ld.local.u8 %rs1, [%rd1];`. Lowered as written, the variable's
//! address leaves it as a `ptrtoint` and every access comes back through `inttoptr`, which
//! stops LLVM from promoting the variable to registers (SROA, AMDGPU's promote-alloca): it
//! stays in scratch memory. For a register whose every definition is one of
//!
//! * `mov.b64 R, S` (`S` a `.local` variable of the function), `cvta.local.u64 R, S`;
//! * `mov.b64 R, X`, `add.{u,s}64 R, X, Y` / `add R, Y, X`, `sub.{u,s}64 R, X, Y`,
//!   `cvta.local.u64 R, X` / `cvta.to.local.u64 R, X`, where `X` is such a register and `Y` is
//!   not,
//!
//! all definitions agreeing on `S` and on the address form (the local window or a generic
//! address), `R` is `S`'s address plus an offset. The emitter keeps that offset in a shadow
//! register next to `R` (its value is left as it is, for any other use) and writes each
//! `ld`/`st` through `R` in `R`'s form as a `getelementptr` from `S` (a run-time offset as an
//! index into `[N x i8]`, see [`super::Fx::local_access`]). Where every definition gives the
//! same constant offset, the offset is known here too (a `mov S` root is 0). Whether the
//! variable then lives in registers is LLVM's decision (SROA, AMDGPU promote-alloca).
//!
//! [`param_copies`] then finds the kernel-parameter copies among the variables: a `.local`
//! variable whose only writes are stores of values loaded (`ld.param`) from the same kernel
//! parameter at the same offset, and whose address reaches no other instruction. Its loads
//! read the parameter (the kernarg segment) instead, and the copy is left dead.

use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;

use super::{ptr_ty, Piece, Space, Ty, R, V};
use crate::ptx::ast::*;
use crate::ptx::isa::Opcode;

/// What a derived register holds: an address into `sym`, in the local window (`generic`
/// false) or as a generic address, `off` bytes in when every definition agrees on a constant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct LocalAddr<'a> {
    pub sym: &'a str,
    pub generic: bool,
    pub off: Option<i64>,
}

/// How one instruction defines its destination register.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Def<'b, 'a> {
    /// `mov R, S` / `cvta.local R, S`.
    Root { sym: &'a str, generic: bool },
    /// `mov R, X`.
    Copy(&'a str),
    /// `add R, X, Y` (`x` the register that may be derived, `y` the other operand).
    Add(&'a str, &'b Operand<'a>),
    /// `add R, Y, X` with `Y` an immediate or register (either order is tried).
    AddEither(&'b Operand<'a>, &'b Operand<'a>),
    /// `sub R, X, Y`.
    Sub(&'a str, &'b Operand<'a>),
    /// `cvta.local R, X` (to generic: `true`) or `cvta.to.local R, X` (`false`).
    Cvta(&'a str, bool),
    /// Anything else.
    Other,
}

fn is_b64(i: &Instruction<'_>) -> bool {
    i.modifiers
        .iter()
        .all(|m| matches!(m, ".u64" | ".s64" | ".b64"))
        && !i.modifiers.is_empty()
}

/// The destination register of `i` and how `i` defines it; `None` when `i` writes no
/// register operand in first position.
pub(crate) fn def_of<'b, 'a>(
    i: &'b Instruction<'a>,
    locals: &HashSet<&'a str>,
) -> Option<(&'a str, Def<'b, 'a>)> {
    let ops: &'b [Operand<'a>] = &i.operands;
    let Some(Operand::Reg(d)) = ops.first() else {
        return None;
    };
    let d = d.as_str();
    let def = match (i.opcode, ops.get(1), ops.get(2)) {
        (Opcode::Mov, Some(Operand::Symbol(s)), None)
            if is_b64(i) && locals.contains(s.as_str()) =>
        {
            Def::Root {
                sym: s.as_str(),
                generic: false,
            }
        }
        (Opcode::Mov, Some(Operand::Reg(x)), None) if is_b64(i) => Def::Copy(x.as_str()),
        (Opcode::Add, Some(a), Some(b)) if is_b64(i) => match (a, b) {
            (Operand::Reg(x), Operand::Imm(_)) => Def::Add(x.as_str(), b),
            (Operand::Imm(_), Operand::Reg(x)) => Def::Add(x.as_str(), a),
            (Operand::Reg(_), Operand::Reg(_)) => Def::AddEither(a, b),
            _ => Def::Other,
        },
        (Opcode::Sub, Some(Operand::Reg(x)), Some(b @ (Operand::Reg(_) | Operand::Imm(_))))
            if is_b64(i) =>
        {
            Def::Sub(x.as_str(), b)
        }
        (Opcode::Cvta, Some(src), None) => {
            let m: Vec<&str> = i.modifiers.iter().collect();
            let to = m.contains(&".to");
            if !m.contains(&".local") || !m.contains(&".u64") || m.len() != 2 + to as usize {
                Def::Other
            } else {
                match src {
                    Operand::Symbol(s) if !to && locals.contains(s.as_str()) => Def::Root {
                        sym: s.as_str(),
                        generic: true,
                    },
                    Operand::Reg(x) => Def::Cvta(x.as_str(), !to),
                    _ => Def::Other,
                }
            }
        }
        _ => Def::Other,
    };
    Some((d, def))
}

fn imm_of(o: &Operand<'_>) -> Option<i64> {
    match o {
        Operand::Imm(m) => match m.value() {
            ImmValue::Int(v) => Some(v),
            ImmValue::UInt(v) => Some(v as i64),
            _ => None,
        },
        _ => None,
    }
}

/// Every instruction of a body, nested blocks included.
pub(crate) fn instructions<'b, 'a>(b: &'b Block<'a>, out: &mut Vec<&'b Instruction<'a>>) {
    for s in &b.stmts {
        match s {
            Statement::Instruction(i) => out.push(i),
            Statement::Block(inner) => instructions(inner, out),
            _ => {}
        }
    }
}

/// Names a nested scope declares (as a register, or any variable), which the analysis leaves
/// alone: the same name may mean two registers.
fn nested_names<'a>(
    b: &Block<'a>,
    depth: usize,
    names: &mut HashSet<&'a str>,
    prefixes: &mut Vec<&'a str>,
) {
    for s in &b.stmts {
        match s {
            Statement::Variable(v) if depth > 0 => {
                for d in &v.decls {
                    if d.range.is_some() {
                        prefixes.push(d.name);
                    } else {
                        names.insert(d.name);
                    }
                }
            }
            Statement::Block(inner) => nested_names(inner, depth + 1, names, prefixes),
            _ => {}
        }
    }
}

/// The function-scope `.local` variables of `f` (declared at the top of its body).
pub(crate) fn local_vars<'a>(f: &Function<'a>) -> HashSet<&'a str> {
    let mut out = HashSet::new();
    if let Some(b) = &f.body {
        for s in &b.stmts {
            if let Statement::Variable(v) = s {
                if v.space == StateSpace::Local {
                    out.extend(v.decls.iter().map(|d| d.name));
                }
            }
        }
    }
    out
}

/// The derived registers of `f` (see the module docs).
pub(crate) fn local_addresses<'a>(f: &Function<'a>) -> HashMap<&'a str, LocalAddr<'a>> {
    let Some(body) = &f.body else {
        return HashMap::new();
    };
    let locals = local_vars(f);
    if locals.is_empty() {
        return HashMap::new();
    }
    let mut nested = HashSet::new();
    let mut prefixes = Vec::new();
    nested_names(body, 0, &mut nested, &mut prefixes);
    for v in f.params.iter().chain(&f.returns) {
        nested.extend(v.decls.iter().map(|d| d.name));
    }
    let shadowed = |n: &str| {
        nested.contains(n)
            || prefixes.iter().any(|p| {
                n.strip_prefix(p)
                    .is_some_and(|r| !r.is_empty() && r.bytes().all(|c| c.is_ascii_digit()))
            })
    };
    let mut insts = Vec::new();
    instructions(body, &mut insts);
    // Every definition of every register written in first position.
    let mut defs: HashMap<&'a str, Vec<Def<'_, 'a>>> = HashMap::new();
    let mut killed: HashSet<&'a str> = HashSet::new();
    for i in &insts {
        // Registers an instruction may write besides a first-position register: vector and
        // pair destinations, call results.
        match i.operands.first() {
            Some(Operand::Vector(v)) | Some(Operand::List(v)) => {
                for e in v.iter() {
                    if let Operand::Reg(n) = e {
                        killed.insert(n.as_str());
                    }
                }
            }
            Some(Operand::Pair(p)) => {
                killed.insert(p.0);
                killed.insert(p.1);
            }
            _ => {}
        }
        if let Some((d, def)) = def_of(i, &locals) {
            if matches!(def, Def::Other) {
                killed.insert(d);
            } else {
                defs.entry(d).or_default().push(def);
            }
        }
    }
    // Optimistic fixpoint: every register with only such definitions is a candidate; a
    // definition that does not derive from a candidate removes it. `None`: not known yet.
    let mut cand: HashMap<&'a str, Option<LocalAddr<'a>>> = defs
        .keys()
        .filter(|r| !killed.contains(*r) && !shadowed(r))
        .map(|r| (*r, None))
        .collect();
    let reg_of = |o: &Operand<'a>| match o {
        Operand::Reg(n) => Some(n.as_str()),
        _ => None,
    };
    for _round in 0..=defs.len() + 1 {
        let mut changed = false;
        let names: Vec<&'a str> = cand.keys().copied().collect();
        for r in names {
            let mut res: Option<LocalAddr<'a>> = None;
            let mut ok = true;
            for def in &defs[r] {
                // Err: not derived; Ok(None): pending.
                let one: Result<Option<LocalAddr<'a>>, ()> = (|| {
                    let st = |x: &str| cand.get(x).copied().ok_or(());
                    let plus = |a: Option<LocalAddr<'a>>, k: Option<i64>, neg: bool| {
                        a.map(|a| LocalAddr {
                            off: match (a.off, k) {
                                (Some(o), Some(k)) => {
                                    if neg {
                                        o.checked_sub(k)
                                    } else {
                                        o.checked_add(k)
                                    }
                                }
                                _ => None,
                            },
                            ..a
                        })
                    };
                    Ok(match *def {
                        Def::Root { sym, generic } => Some(LocalAddr {
                            sym,
                            generic,
                            off: Some(0),
                        }),
                        Def::Copy(x) => st(x)?,
                        Def::Add(x, y) | Def::Sub(x, y) => {
                            if reg_of(y).is_some_and(|y| cand.contains_key(y)) {
                                return Err(());
                            }
                            plus(st(x)?, imm_of(y), matches!(def, Def::Sub(..)))
                        }
                        Def::AddEither(a, b) => {
                            let (ra, rb) = (reg_of(a).unwrap(), reg_of(b).unwrap());
                            match (cand.contains_key(ra), cand.contains_key(rb)) {
                                (true, false) => plus(st(ra)?, None, false),
                                (false, true) => plus(st(rb)?, None, false),
                                _ => return Err(()),
                            }
                        }
                        Def::Cvta(x, to_generic) => match st(x)? {
                            Some(a) if a.generic != to_generic => Some(LocalAddr {
                                generic: to_generic,
                                ..a
                            }),
                            Some(_) => return Err(()),
                            None => None,
                        },
                        Def::Other => return Err(()),
                    })
                })();
                match one {
                    Err(()) => {
                        ok = false;
                        break;
                    }
                    Ok(None) => {}
                    Ok(Some(a)) => match &mut res {
                        None => res = Some(a),
                        Some(p) if p.sym == a.sym && p.generic == a.generic => {
                            if p.off != a.off {
                                p.off = None;
                            }
                        }
                        Some(_) => {
                            ok = false;
                            break;
                        }
                    },
                }
            }
            if !ok {
                cand.remove(r);
                changed = true;
            } else if res.is_some() && cand[r] != res {
                cand.insert(r, res);
                changed = true;
            }
        }
        if !changed {
            return cand
                .into_iter()
                .filter_map(|(r, a)| Some((r, a?)))
                .collect();
        }
    }
    // No fixpoint within the bound (cannot happen: each round removes a candidate or fills
    // or widens one): derive nothing.
    HashMap::new()
}

/// The registers of `f` with one definition, an unguarded `mov.{b,u,s}32 R, imm`, declared
/// only at function scope: their 32-bit value (nvcc puts the constant operands of
/// `shfl.sync` into registers).
pub(crate) fn constant_regs<'a>(f: &Function<'a>) -> HashMap<&'a str, u32> {
    let Some(body) = &f.body else {
        return HashMap::new();
    };
    let mut nested = HashSet::new();
    let mut prefixes = Vec::new();
    nested_names(body, 0, &mut nested, &mut prefixes);
    let mut insts = Vec::new();
    instructions(body, &mut insts);
    let mut defs: HashMap<&'a str, (usize, Option<u32>)> = HashMap::new();
    for i in &insts {
        let ops: &[Operand<'a>] = &i.operands;
        let one =
            |n: &'a str, v: Option<u32>, defs: &mut HashMap<&'a str, (usize, Option<u32>)>| {
                let e = defs.entry(n).or_insert((0, v));
                e.0 += 1;
            };
        match ops.first() {
            Some(Operand::Reg(n)) => {
                let v = (i.opcode == Opcode::Mov
                    && i.guard.is_none()
                    && i.modifiers
                        .iter()
                        .all(|m| matches!(m, ".b32" | ".u32" | ".s32"))
                    && !i.modifiers.is_empty())
                .then(|| ops.get(1).and_then(imm_of))
                .flatten()
                .map(|v| v as u32);
                one(n.as_str(), v, &mut defs);
            }
            Some(Operand::Vector(v)) | Some(Operand::List(v)) => {
                for e in v.iter() {
                    if let Operand::Reg(n) = e {
                        one(n.as_str(), None, &mut defs);
                    }
                }
            }
            Some(Operand::Pair(p)) => {
                one(p.0, None, &mut defs);
                one(p.1, None, &mut defs);
            }
            _ => {}
        }
    }
    defs.into_iter()
        .filter(|(n, _)| {
            !nested.contains(n)
                && !prefixes.iter().any(|p| {
                    n.strip_prefix(p)
                        .is_some_and(|r| !r.is_empty() && r.bytes().all(|c| c.is_ascii_digit()))
                })
        })
        .filter_map(|(n, (k, v))| if k == 1 { Some((n, v?)) } else { None })
        .collect()
}

/// A `.local` variable that holds a copy of (a prefix of) a kernel parameter: loads from it
/// read the parameter.
pub(crate) struct ParamCopy<'a> {
    /// The kernel parameter.
    pub param: &'a str,
}

/// The `.local` variables of kernel `f` that are copies of kernel parameters (see the module
/// docs): every store into the variable is `st.local` through a derived register (or the
/// symbol itself) at a known offset, of registers each defined once, by an `ld.param` of the
/// same parameter at the same offset and width; the variable is no larger than the
/// parameter; the variable's address (the symbol, or a derived register) is used by no other
/// instruction than the derivations and the `ld`/`st` addresses.
pub(crate) fn param_copies<'a>(
    f: &Function<'a>,
    derived: &HashMap<&'a str, LocalAddr<'a>>,
    param_size: &dyn Fn(&str) -> Option<u64>,
    local_size: &dyn Fn(&str) -> Option<u64>,
) -> HashMap<&'a str, ParamCopy<'a>> {
    let Some(body) = &f.body else {
        return HashMap::new();
    };
    if f.kind != FunctionKind::Entry {
        return HashMap::new();
    }
    let locals = local_vars(f);
    let mut insts = Vec::new();
    instructions(body, &mut insts);
    // Registers defined by `ld.param [P+q]`: (param, offset, width in bytes), for registers
    // with exactly one definition of any kind.
    let mut ndefs: HashMap<&str, usize> = HashMap::new();
    let mut from_param: HashMap<&str, (&str, i64, u32)> = HashMap::new();
    for i in &insts {
        let ops: &[Operand<'a>] = &i.operands;
        let dsts: Vec<&str> = match ops.first() {
            Some(Operand::Reg(n)) => vec![n.as_str()],
            Some(Operand::Vector(v)) | Some(Operand::List(v)) => v
                .iter()
                .filter_map(|e| match e {
                    Operand::Reg(n) => Some(n.as_str()),
                    _ => None,
                })
                .collect(),
            Some(Operand::Pair(p)) => vec![p.0, p.1],
            _ => vec![],
        };
        for d in &dsts {
            *ndefs.entry(d).or_default() += 1;
        }
        if i.opcode == Opcode::Ld && i.guard.is_none() && i.has(".param") {
            let Some(w) = access_width(i) else { continue };
            let Some(Operand::Address(a)) = ops.get(1) else {
                continue;
            };
            let Address::Offset {
                base: Some(AddrBase::Symbol(p)),
                offset,
            } = &**a
            else {
                continue;
            };
            match &ops[0] {
                Operand::Reg(n) => {
                    from_param.insert(n.as_str(), (p, *offset, w));
                }
                Operand::Vector(v) => {
                    for (k, e) in v.iter().enumerate() {
                        if let Operand::Reg(n) = e {
                            from_param.insert(n.as_str(), (p, *offset + k as i64 * w as i64, w));
                        }
                    }
                }
                _ => {}
            }
        }
    }
    // Per variable: the parameter its stores copy, or `None` once disqualified.
    let mut state: HashMap<&'a str, Option<&'a str>> = HashMap::new();
    let bad = escapes(&insts, derived, &locals);
    for i in &insts {
        let ops: &[Operand<'a>] = &i.operands;
        // Writes into a variable.
        let target = match i.opcode {
            Opcode::St => ops.first(),
            Opcode::Atom | Opcode::Red => ops.get(usize::from(i.opcode == Opcode::Atom)),
            _ => None,
        };
        let Some(Operand::Address(a)) = target else {
            continue;
        };
        let Address::Offset {
            base: Some(base),
            offset,
        } = &**a
        else {
            continue;
        };
        let (sym, off) = match base {
            AddrBase::Symbol(s) if locals.contains(s) => (*s, Some(0)),
            AddrBase::Reg(r) => match derived.get(r) {
                Some(a) => (a.sym, a.off),
                None => continue,
            },
            _ => continue,
        };
        let store_ok = (|| {
            if i.opcode != Opcode::St || i.guard.is_some() || !i.has(".local") {
                return None;
            }
            let at = off? + offset;
            let w = access_width(i)? as i64;
            let vals: Vec<&Operand<'a>> = match &ops[1] {
                Operand::Vector(v) => v.iter().collect(),
                o => vec![o],
            };
            let mut param = None;
            for (k, v) in vals.iter().enumerate() {
                let Operand::Reg(n) = v else { return None };
                if ndefs.get(n.as_str()) != Some(&1) {
                    return None;
                }
                let &(p, q, pw) = from_param.get(n.as_str())?;
                if pw as i64 != w || q != at + k as i64 * w {
                    return None;
                }
                if param.is_some_and(|x| x != p) {
                    return None;
                }
                param = Some(p);
            }
            param
        })();
        match store_ok {
            Some(p) if state.get(sym).is_none_or(|s| *s == Some(p)) => {
                state.insert(sym, Some(p));
            }
            _ => {
                state.insert(sym, None);
            }
        }
    }
    state
        .into_iter()
        .filter_map(|(s, p)| {
            let p = p?;
            if bad.contains(s) || local_size(s)? > param_size(p)? {
                return None;
            }
            Some((s, ParamCopy { param: p }))
        })
        .collect()
}

/// The variables whose address is used by an instruction other than the derivations of
/// derived registers and the address operands of `ld`/`st`.
fn escapes<'a>(
    insts: &[&Instruction<'a>],
    derived: &HashMap<&'a str, LocalAddr<'a>>,
    locals: &HashSet<&'a str>,
) -> HashSet<&'a str> {
    let mut bad: HashSet<&'a str> = HashSet::new();
    let sym_of = |o: &Operand<'a>| -> Option<&'a str> {
        match o {
            Operand::Reg(n) => derived.get(n.as_str()).map(|a| a.sym),
            Operand::Symbol(s) if locals.contains(s.as_str()) => Some(s.as_str()),
            _ => None,
        }
    };
    for i in insts {
        let ops: &[Operand<'a>] = &i.operands;
        let is_access = matches!(i.opcode, Opcode::Ld | Opcode::St);
        // Uses of a variable's address outside the derivations and the access addresses.
        let derivation = def_of(i, locals)
            .is_some_and(|(d, def)| derived.contains_key(d) && !matches!(def, Def::Other));
        if derivation {
            continue;
        }
        for (k, o) in ops.iter().enumerate() {
            if is_access && k == usize::from(i.opcode == Opcode::Ld) {
                continue;
            }
            let mut check = |o: &Operand<'a>| {
                if let Some(s) = sym_of(o) {
                    bad.insert(s);
                }
            };
            match o {
                Operand::Vector(v) | Operand::List(v) => v.iter().for_each(&mut check),
                Operand::Address(a) => match &**a {
                    Address::Offset {
                        base: Some(AddrBase::Symbol(s)),
                        ..
                    } if locals.contains(s) => {
                        bad.insert(*s);
                    }
                    Address::Offset {
                        base: Some(AddrBase::Reg(r)),
                        ..
                    } => {
                        if let Some(a) = derived.get(r) {
                            bad.insert(a.sym);
                        }
                    }
                    _ => {}
                },
                o => check(o),
            }
        }
    }
    bad
}

/// Bytes one `ld`/`st` moves per element (the last type modifier), for the plain scalar
/// types.
fn access_width(i: &Instruction<'_>) -> Option<u32> {
    i.modifiers
        .iter()
        .filter_map(|m| {
            Some(match m {
                ".u8" | ".s8" | ".b8" => 1,
                ".u16" | ".s16" | ".b16" | ".f16" => 2,
                ".u32" | ".s32" | ".b32" | ".f32" => 4,
                ".u64" | ".s64" | ".b64" | ".f64" => 8,
                _ => return None,
            })
        })
        .last()
}

impl<'a> super::Fx<'_, '_, 'a> {
    /// The shadow offset register of derived register `r` (made on first use).
    fn shadow(&mut self, r: &'a str) -> u32 {
        if let Some(&id) = self.shadows.get(r) {
            return id;
        }
        let id = self.nreg;
        self.nreg += 1;
        let suffix = self.alloca_suffix();
        let _ = writeln!(self.allocas, "  %r{id} = alloca i64{suffix}");
        self.shadows.insert(r, id);
        id
    }

    /// The offset register `x`'s shadow holds, or its constant when the analysis knows it.
    fn shadow_value(&mut self, x: &'a str) -> V {
        match self.local_addrs.get(x).and_then(|a| a.off) {
            Some(c) => V::from(c.to_string()),
            None => {
                let id = self.shadow(x);
                self.load_reg(Ty::I64, id)
            }
        }
    }

    /// Before instruction `i`: when it defines a derived register, that register's offset
    /// into its variable, into the shadow (read before `i` writes anything).
    pub(super) fn shadow_def(&mut self, i: &Instruction<'a>) -> R<()> {
        let Some((d, def)) = def_of(i, &self.local_syms) else {
            return Ok(());
        };
        if self.local_addrs.get(d).is_none_or(|a| a.off.is_some()) {
            return Ok(());
        }
        let off = match def {
            Def::Root { .. } => V::new("0"),
            Def::Copy(x) | Def::Cvta(x, _) => self.shadow_value(x),
            Def::Add(x, y) | Def::Sub(x, y) => {
                let a = self.shadow_value(x);
                let b = self.rd(y, Ty::I64, false)?;
                let op = if matches!(def, Def::Sub(..)) {
                    "sub"
                } else {
                    "add"
                };
                opv!(self, [&op, &" i64 ", &a, &", ", &b])
            }
            Def::AddEither(a, b) => {
                let (x, y) = match (a, b) {
                    (Operand::Reg(ra), _) if self.local_addrs.contains_key(ra.as_str()) => {
                        (ra.as_str(), b)
                    }
                    (_, Operand::Reg(rb)) => (rb.as_str(), a),
                    _ => return Ok(()),
                };
                let a = self.shadow_value(x);
                let b = self.rd(y, Ty::I64, false)?;
                opv!(self, [&"add i64 ", &a, &", ", &b])
            }
            Def::Other => return Ok(()),
        };
        let id = self.shadow(d);
        self.store_reg(Ty::I64, &off, id);
        Ok(())
    }

    /// The pointer of an access `[r+offset]` in state space `s` when `r` is a derived
    /// register in the form `s` expects: a `getelementptr` from its variable (or, for a copy
    /// of a kernel parameter, from the parameter).
    pub(super) fn local_access(
        &mut self,
        r: &'a str,
        s: Space,
        offset: i64,
    ) -> R<Option<(V, u32)>> {
        let Some(la) = self.local_addrs.get(r).copied() else {
            return Ok(None);
        };
        if !matches!(
            (s, la.generic),
            (Space::Local, false) | (Space::Generic, true)
        ) {
            return Ok(None);
        }
        let target = self.param_copies.get(la.sym).copied().unwrap_or(la.sym);
        let (p, aspace) = self.sym_ptr(target)?;
        let g = match la.off {
            Some(c) => self.gep_i8(&p, aspace, c + offset),
            // A run-time offset indexes the variable as an array, `[N x i8]`: a GEP of one
            // variable index that instcombine leaves whole (an `i8` GEP of `x + c` becomes a
            // chain of two, which LLVM's promotion of allocas to vectors gives up on).
            None => {
                let v = self.shadow_value(r);
                let off = if offset == 0 {
                    v
                } else {
                    opv!(self, [&"add i64 ", &v, &", ", &offset])
                };
                match self.local_sizes.get(target).copied() {
                    Some(n) => opv!(
                        self,
                        [
                            &"getelementptr inbounds [",
                            &n,
                            &" x i8], ",
                            &(ptr_ty(aspace)),
                            &" ",
                            &p,
                            &", i64 0, i64 ",
                            &off,
                        ]
                    ),
                    None => self.gep_i8(&p, aspace, off),
                }
            }
        };
        Ok(Some((g, aspace)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with_fn<R>(body: &str, params: &str, f: impl FnOnce(&Function<'_>) -> R) -> R {
        let src = format!(
            ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k({params})\n{{\n{body}\n}}\n"
        );
        let out = crate::ptx::parse(&src, "t.ptx");
        let k = out.module.functions().find(|f| f.name == "k").unwrap();
        f(k)
    }

    /// nvcc's frame of two 4-byte counter arrays (xformers' largest_mask_2d): every register
    /// built from the depot is derived, with its constant offset where it has one.
    const COUNTERS: &str = ".local .align 4 .b8 __local_depot0[8];
.reg .b64 %SPL;
.reg .b16 %rs<4>;
.reg .b64 %rd<10>;
mov.u64 %SPL, __local_depot0;
add.u64 %rd1, %SPL, 4;
add.u64 %rd2, %SPL, 0;
mov.u16 %rs1, 0;
st.local.v4.u8 [%rd2], {%rs1, %rs1, %rs1, %rs1};
st.local.v4.u8 [%rd1], {%rs1, %rs1, %rs1, %rs1};
ld.param.u64 %rd3, [p];
add.s64 %rd4, %rd2, %rd3;
ld.local.u8 %rs2, [%rd4];
add.s64 %rd5, %rd3, %rd1;
st.local.u8 [%rd5], %rs2;
ld.param.u64 %rd6, [p];
add.s64 %rd6, %rd6, 1;";

    #[test]
    fn registers_built_from_a_local_variable_are_derived() {
        with_fn(COUNTERS, ".param .u64 p", |f| {
            let d = local_addresses(f);
            let at = |r: &str| d.get(r).map(|a| (a.sym, a.generic, a.off));
            assert_eq!(at("%SPL"), Some(("__local_depot0", false, Some(0))));
            assert_eq!(at("%rd1"), Some(("__local_depot0", false, Some(4))));
            assert_eq!(at("%rd2"), Some(("__local_depot0", false, Some(0))));
            assert_eq!(at("%rd4"), Some(("__local_depot0", false, None)));
            assert_eq!(at("%rd5"), Some(("__local_depot0", false, None)));
            // Loaded, or a sum of two non-derived values: not an address into the depot.
            assert_eq!(at("%rd3"), None);
            assert_eq!(at("%rd6"), None);
        });
    }

    #[test]
    fn an_escaping_address_keeps_the_variable_in_memory() {
        // A register that is both derived and redefined from a load is not derived.
        let body = format!("{COUNTERS}\nld.param.u64 %rd4, [p];");
        with_fn(&body, ".param .u64 p", |f| {
            assert!(!local_addresses(f).contains_key("%rd4"));
        });
    }

    /// nvcc's copy of a by-value struct parameter into the frame, read with a run-time index
    /// (fixtures/gpu/src/mem.cu k_struct_param).
    const STRUCT_COPY: &str = ".local .align 8 .b8 __local_depot5[24];
.reg .b64 %SPL;
.reg .b32 %r<8>;
.reg .f64 %fd<2>;
.reg .b64 %rd<10>;
mov.u64 %SPL, __local_depot5;
ld.param.f64 %fd1, [s];
ld.param.v2.u32 {%r1, %r2}, [s+8];
ld.param.u32 %r3, [s+16];
add.u64 %rd1, %SPL, 0;
st.local.f64 [%rd1], %fd1;
st.local.v2.u32 [%rd1+8], {%r1, %r2};
st.local.u32 [%rd1+16], %r3;
ld.param.u32 %r4, [n];
mul.wide.s32 %rd2, %r4, 4;
add.s64 %rd3, %rd1, %rd2;
ld.local.u32 %r5, [%rd3+8];";

    fn sizes(n: &str) -> Option<u64> {
        match n {
            "s" => Some(24),
            "n" => Some(4),
            "__local_depot5" => Some(24),
            _ => None,
        }
    }

    #[test]
    fn a_frame_filled_from_one_parameter_is_read_from_it() {
        let params = ".param .align 8 .b8 s[24], .param .u32 n";
        with_fn(STRUCT_COPY, params, |f| {
            let d = local_addresses(f);
            let c = param_copies(f, &d, &sizes, &sizes);
            assert_eq!(c.get("__local_depot5").map(|c| c.param), Some("s"));
        });
        // A store of another value (here the parameter at another offset) is not a copy.
        let body = STRUCT_COPY.replace(
            "st.local.u32 [%rd1+16], %r3;",
            "st.local.u32 [%rd1+16], %r1;",
        );
        with_fn(&body, params, |f| {
            let d = local_addresses(f);
            assert!(param_copies(f, &d, &sizes, &sizes).is_empty());
        });
        // A copied register redefined later is not a copy.
        let body = format!("{STRUCT_COPY}\nadd.s32 %r3, %r3, 1;");
        with_fn(&body, params, |f| {
            let d = local_addresses(f);
            assert!(param_copies(f, &d, &sizes, &sizes).is_empty());
        });
        // The frame larger than the parameter: not a copy.
        with_fn(STRUCT_COPY, params, |f| {
            let d = local_addresses(f);
            let big = |n: &str| {
                if n == "__local_depot5" {
                    Some(32)
                } else {
                    sizes(n)
                }
            };
            assert!(param_copies(f, &d, &sizes, &big).is_empty());
        });
    }
}
