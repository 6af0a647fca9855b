//! The register model and operands: register and variable declarations (one `alloca` per
//! register), name lookup through the nested `{ }` scopes, reading and writing operands
//! (registers, immediates, special registers, symbols, vectors) and address operands.

use super::*;

/// What a name declared in a function denotes.
#[derive(Clone, Debug)]
pub(super) enum Local {
    /// A register: alloca `%r<id>` of `bits` bits (1 for predicates).
    Reg { id: u32, bits: u32 },
    /// Addressable memory (a `.param`, `.local` variable or a home of a parameter): an LLVM
    /// pointer value and its address space.
    Mem { ptr: V, aspace: u32 },
}

/// The names declared in one `{ }` block of a function (the function's own scope is the
/// outermost): registers, memory, `%name<N>` ranges and labels.
#[derive(Default)]
pub(super) struct NameScope<'a> {
    pub(super) names: HashMap<&'a str, Local, foldhash::fast::FixedState>,
    /// Bit `min(len, 63)` set for the length of every name in `names`: most lookups of a
    /// register (`%r12`) in a scope holding only parameters or inline-asm temporaries (`p`)
    /// are answered by this mask without hashing the name.
    pub(super) name_lens: u64,
    /// `%name<N>` declarations, in order.
    pub(super) ranges: Vec<RegRange<'a>>,
    /// The labels defined in this `{ }` block and their LLVM block names: a label is local to
    /// its block (PTX ISA 9.x §11.2.4 "scope"), so inlined asm blocks may reuse one
    /// (CUTLASS's `LAB_WAIT:` in every mbarrier wait).
    /// The first definition of each name counts (a redefinition in the same block is not
    /// looked up).
    pub(super) labels: HashMap<&'a str, V, foldhash::fast::FixedState>,
}

impl<'a> NameScope<'a> {
    /// Declare `name` as `l` in this scope.
    pub(super) fn add_name(&mut self, name: &'a str, l: Local) {
        self.name_lens |= len_bit(name);
        self.names.insert(name, l);
    }
}

/// The bit of [`NameScope::name_lens`] for `name`.
#[inline(always)]
pub(super) fn len_bit(name: &str) -> u64 {
    1u64 << name.len().min(63)
}

/// A parameterized register declaration `.reg .t <prefix><<count>>`: registers
/// `<prefix>0` .. `<prefix><count-1>` are allocas `%r<first>` .. of `bits` bits.
pub(super) struct RegRange<'a> {
    prefix: &'a str,
    /// [`prefix_key`] of `prefix`, compared before the text.
    key: u64,
    count: u32,
    first: u32,
    bits: u32,
}

/// The first 8 bytes of a register-name prefix packed in a `u64`, and its length in the top
/// byte's place when shorter: two prefixes of at most 7 bytes are equal exactly when their
/// keys are (longer ones compare their text too).
#[inline]
pub(super) fn prefix_key(p: &str) -> u64 {
    use std::ptr::read_unaligned as rd;
    let b = p.as_bytes();
    let n = b.len();
    let src = b.as_ptr();
    // Built in registers from (overlapping) loads of `p`: going through a stack array written
    // in pieces and read back as one `u64` stalls the load (no store-to-load forwarding).
    // SAFETY: every load reads within `b[..n]` (the branch bounds `n`).
    let k = unsafe {
        if n >= 8 {
            return u64::from_le(rd(src as *const u64));
        } else if n >= 4 {
            let lo = u32::from_le(rd(src as *const u32)) as u64;
            let hi = u32::from_le(rd(src.add(n - 4) as *const u32)) as u64;
            lo | hi << ((n - 4) * 8)
        } else if n >= 2 {
            let lo = u16::from_le(rd(src as *const u16)) as u64;
            let hi = u16::from_le(rd(src.add(n - 2) as *const u16)) as u64;
            lo | hi << ((n - 2) * 8)
        } else if n == 1 {
            *src as u64
        } else {
            0
        }
    };
    k | (n as u64) << 56
}

/// The state space an instruction addresses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Space {
    Generic,
    Global,
    Shared,
    Const,
    Local,
    Param,
}

/// The state space an instruction addresses: its first state-space modifier (generic when
/// it has none).
pub(super) fn space_of(m: &Mods) -> R<Space> {
    Ok(match m.space() {
        None => Space::Generic,
        Some(StateSpace::Global) => Space::Global,
        Some(StateSpace::Shared | StateSpace::SharedCta) => Space::Shared,
        Some(StateSpace::Const) => Space::Const,
        Some(StateSpace::Local) => Space::Local,
        Some(StateSpace::Param | StateSpace::ParamEntry | StateSpace::ParamFunc) => Space::Param,
        Some(StateSpace::SharedCluster) => {
            return fail(
                "",
                "the .shared::cluster state space (clusters) is not lowered",
            )
        }
        Some(_) => Space::Generic,
    })
}

/// Memory-model scope (PTX ISA 9.x §8.5) as an LLVM `syncscope` clause; `.gpu` (the PTX
/// default scope of `atom`/`red`) when there is none, and for `.cluster`.
pub(super) fn syncscope(nv: bool, m: &Mods) -> &'static str {
    if nv {
        // LLVM 19's NVPTX backend emits system scope for every syncscope; say so explicitly.
        return "";
    }
    match m.scope {
        Some(Scope::Cta) => " syncscope(\"workgroup\")",
        Some(Scope::Sys) => "",
        _ => " syncscope(\"agent\")",
    }
}

impl<'c, 'm, 'a> Fx<'c, 'm, 'a> {
    /// `getelementptr inbounds i8, ptr addrspace(aspace) p, i64 off`: `off` bytes past `p`.
    pub(super) fn gep_i8(&mut self, p: &V, aspace: u32, off: impl Piece) -> V {
        opv!(
            self,
            [
                &"getelementptr inbounds i8, ",
                &(ptr_ty(aspace)),
                &" ",
                p,
                &", i64 ",
                &off,
            ]
        )
    }

    // ---------------------------------------------------------------- declarations

    pub(super) fn declare_reg(&mut self, name: &'a str, range: Option<u32>, ty: Type) -> R<()> {
        let bits = match ty {
            Type::Pred => 1,
            t if t.bits() > 0 => t.bits(),
            t => return fail("", format!("register of type {}", t.as_str())),
        };
        let lt = Ty::int(bits).ll();
        let count = range.unwrap_or(1);
        let first = self.nreg;
        // ` = alloca <ty><suffix>\n`, the same for every register of the declaration.
        let suffix = self.alloca_suffix();
        let mut tail = String::with_capacity(12 + lt.len() + suffix.len());
        tail.push_str(" = alloca ");
        tail.push_str(lt);
        tail.push_str(&suffix);
        tail.push('\n');
        self.allocas.reserve(count as usize * (16 + tail.len()));
        for i in 0..count {
            let a = &mut self.allocas;
            text::put(a, "  %r");
            push_u32(a, first + i);
            text::put(a, &tail);
        }
        self.nreg += count;
        let sc = self.scopes.last_mut().unwrap();
        match range {
            Some(n) => sc.ranges.push(RegRange {
                prefix: name,
                key: prefix_key(name),
                count: n,
                first,
                bits,
            }),
            None => {
                sc.add_name(name, Local::Reg { id: first, bits });
            }
        }
        Ok(())
    }

    pub(super) fn alloca_suffix(&self) -> std::borrow::Cow<'static, str> {
        match self.cx.alloca_as {
            0 => "".into(),
            5 => ", addrspace(5)".into(),
            a => format!(", addrspace({a})").into(),
        }
    }

    /// An alloca of `size` bytes aligned to `align`; returns its pointer.
    pub(super) fn alloca_bytes(&mut self, size: u32, align: u32) -> V {
        self.nreg += 1;
        let r = V::numbered("%m", self.nreg);
        let _ = writeln!(
            self.allocas,
            "  {r} = alloca [{} x i8], align {}{}",
            size.max(1),
            align.max(1),
            self.alloca_suffix()
        );
        r
    }

    /// The register or memory a name denotes, innermost scope first (within a scope: a plain
    /// declaration, then the latest `%name<N>` range covering it).
    pub(super) fn lookup(&self, name: &str) -> Option<Local> {
        let (prefix, num) = split_digits(name);
        let key = prefix_key(prefix);
        let lb = len_bit(name);
        for sc in self.scopes.iter().rev() {
            if sc.name_lens & lb != 0 {
                if let Some(l) = sc.names.get(name) {
                    return Some(l.clone());
                }
            }
            if let Some(n) = num {
                for r in sc.ranges.iter().rev() {
                    if r.key == key
                        && r.prefix.len() == prefix.len()
                        && (prefix.len() < 8 || r.prefix == prefix)
                        && n < r.count
                    {
                        return Some(Local::Reg {
                            id: r.first + n,
                            bits: r.bits,
                        });
                    }
                }
            }
        }
        None
    }

    pub(super) fn declare_var(&mut self, v: &'m VarDecl<'a>) -> R<()> {
        match v.space {
            StateSpace::Reg => {
                if v.vector.is_some() {
                    return fail("", "vector registers are not lowered");
                }
                for d in &v.decls {
                    self.declare_reg(d.name, d.range, v.ty)?;
                }
            }
            StateSpace::Local | StateSpace::Param | StateSpace::ParamFunc => {
                for d in &v.decls {
                    let Some(slot) = slot_of(v, d) else {
                        return fail("", format!("variable {} of unsized type", d.name));
                    };
                    let p = self.alloca_bytes(slot.size(), v.align.unwrap_or(slot.align()));
                    let (ptr, aspace) = if v.space == StateSpace::Local
                        && self.cx.alloca_as != self.cx.prof.addrspace.local
                    {
                        let t = self.t();
                        let las = self.cx.prof.addrspace.local;
                        let _ = writeln!(
                            self.allocas,
                            "  {t} = addrspacecast {} {p} to {}",
                            self.pa,
                            ptr_ty(las)
                        );
                        (t, las)
                    } else {
                        (p, self.cx.alloca_as)
                    };
                    if d.init.is_some() {
                        return fail("", "initialised function-scope variables are not lowered");
                    }
                    self.scopes
                        .last_mut()
                        .unwrap()
                        .add_name(d.name, Local::Mem { ptr, aspace });
                }
            }
            StateSpace::Shared | StateSpace::SharedCta | StateSpace::Global | StateSpace::Const => {
                // A function-scope variable in a shared state space is a module global with a
                // unique name.
                for d in &v.decls {
                    self.cx.uniq += 1;
                    let gname = format!("__wp_fvar.{}.{}", self.cx.uniq, d.name);
                    let (text, aspace) = global_text(self.cx, v, d, &gname)?;
                    self.cx.extra_globals.push_str(&text);
                    self.scopes.last_mut().unwrap().add_name(
                        d.name,
                        Local::Mem {
                            ptr: ident('@', &gname).into(),
                            aspace,
                        },
                    );
                }
            }
            s => return fail("", format!("function-scope {} variable", s.as_str())),
        }
        Ok(())
    }

    // ---------------------------------------------------------------- operands

    /// Read operand `o` as a value of type `t` (`signed`: extend narrower registers by sign).
    pub(super) fn rd(&mut self, o: &Operand<'a>, t: Ty, signed: bool) -> R<V> {
        match o {
            Operand::Reg(n) => self.rd_reg(n, t, signed),
            Operand::Imm(i) => Ok(imm_v(i.value(), t)),
            Operand::SpecialReg(n) => {
                if *n == "WARP_SZ" {
                    // A PTX warp is 32 lanes on every target (docs/warp-model.md).
                    return Ok(self.fit("32", Ty::I32, t, false));
                }
                let Some(w) = sreg::width(n) else {
                    return fail(&self.form(), format!("special register {n}"));
                };
                let f = sreg::function(n);
                let v = self.call(&f, Ty::int(w), &[]);
                Ok(self.fit(&v, Ty::int(w), t, false))
            }
            Operand::Symbol(n) | Operand::Func(n) => {
                // The address of a variable or function in its own state space.
                let (p, aspace) = self.sym_ptr(n)?;
                let it = Ty::int(t.bits());
                let v = opv!(
                    self,
                    [
                        &"ptrtoint ",
                        &(ptr_ty(aspace)),
                        &" ",
                        &p,
                        &" to ",
                        &(it.ll()),
                    ]
                );
                Ok(self.fit(&v, it, t, false))
            }
            Operand::Not(n) => {
                let v = self.rd_reg(n, Ty::I1, false)?;
                Ok(opv!(self, [&"xor i1 ", &v, &", true"]))
            }
            Operand::Vector(elems) => {
                // `{a, b}` as one value: elements packed from the low bits up.
                let eb = t.bits() / elems.len() as u32;
                let et = Ty::int(eb);
                let wt = Ty::int(t.bits());
                let mut acc = V::new("0");
                for (i, e) in elems.iter().enumerate() {
                    let v = self.rd(e, et, false)?;
                    let z = opv!(self, [&"zext ", &(et.ll()), &" ", &v, &" to ", &(wt.ll())]);
                    let s = opv!(
                        self,
                        [&"shl ", &(wt.ll()), &" ", &z, &", ", &(i as u32 * eb)]
                    );
                    acc = opv!(self, [&"or ", &(wt.ll()), &" ", &acc, &", ", &s]);
                }
                Ok(self.fit(&acc, wt, t, false))
            }
            _ => fail(
                &self.form(),
                format!("operand kind {} as a value", o.kind_name()),
            ),
        }
    }

    pub(super) fn rd_reg(&mut self, n: &str, t: Ty, signed: bool) -> R<V> {
        let l = self.lookup(n);
        self.rd_local(n, l, t, signed)
    }

    /// [`Self::rd_reg`] of `n`, already looked up as `l`.
    pub(super) fn rd_local(&mut self, n: &str, l: Option<Local>, t: Ty, signed: bool) -> R<V> {
        let Some(l) = l else {
            // A symbol declared in a scope as memory, used as a value: its address.
            return fail(&self.form(), format!("unknown register {n}"));
        };
        match l {
            Local::Reg { id, bits } => {
                if t == Ty::I1 && bits != 1 {
                    let it = Ty::int(bits);
                    let v = self.load_reg(it, id);
                    return Ok(self.op4("icmp ne", it.ll(), &v, ",", "0"));
                }
                if bits == 1 && t != Ty::I1 {
                    let v = self.load_reg(Ty::I1, id);
                    return Ok(self.fit(&v, Ty::I1, t, false));
                }
                if t.bits() <= bits {
                    Ok(self.load_reg(t, id))
                } else {
                    let it = Ty::int(bits);
                    let v = self.load_reg(it, id);
                    Ok(self.fit(&v, it, t, signed))
                }
            }
            Local::Mem { ptr, aspace } => {
                let it = Ty::int(t.bits());
                let v = opv!(
                    self,
                    [
                        &"ptrtoint ",
                        &(ptr_ty(aspace)),
                        &" ",
                        &ptr,
                        &" to ",
                        &(it.ll()),
                    ]
                );
                Ok(self.fit(&v, it, t, false))
            }
        }
    }

    /// Convert value `v` of type `from` to type `to` by bits: extend (zero or sign), truncate,
    /// bitcast.
    pub(super) fn fit(&mut self, v: &str, from: Ty, to: Ty, signed: bool) -> V {
        if from == to {
            return V::new(v);
        }
        let (fb, tb) = (from.bits(), to.bits());
        let mut cur = V::new(v);
        let mut ct = from;
        if from.is_float() {
            let it = Ty::int(fb);
            cur = self.op4("bitcast", from.ll(), &cur, " to", it.ll());
            ct = it;
        }
        if fb != tb {
            let it = Ty::int(tb);
            cur = if fb < tb {
                let ext = if signed { "sext" } else { "zext" };
                self.op4(ext, ct.ll(), &cur, " to", it.ll())
            } else {
                self.op4("trunc", ct.ll(), &cur, " to", it.ll())
            };
            ct = it;
        }
        if ct != to {
            cur = self.op4("bitcast", ct.ll(), &cur, " to", to.ll());
        }
        cur
    }

    /// Write value `v` of type `t` to destination operand `o`.
    pub(super) fn wr(&mut self, o: &Operand<'a>, v: &str, t: Ty, signed: bool) -> R<()> {
        match o {
            Operand::Sink => Ok(()),
            Operand::Reg(n) => {
                let Some(Local::Reg { id, bits }) = self.lookup(n) else {
                    return fail(&self.form(), format!("unknown register {n}"));
                };
                if bits == 1 {
                    if t == Ty::I1 {
                        self.store_reg(Ty::I1, v, id);
                    } else {
                        let it = Ty::int(t.bits());
                        let x = self.fit(v, t, it, false);
                        let b = self.op4("icmp ne", it.ll(), &x, ",", "0");
                        self.store_reg(Ty::I1, &b, id);
                    }
                    return Ok(());
                }
                if t.bits() == bits {
                    self.store_reg(t, v, id);
                } else {
                    let x = self.fit(v, t, Ty::int(bits), signed);
                    self.store_reg(Ty::int(bits), &x, id);
                }
                Ok(())
            }
            Operand::Vector(elems) => {
                // Unpack into `{a, b, ...}` from the low bits up.
                let eb = t.bits() / elems.len() as u32;
                let wt = Ty::int(t.bits());
                let w = self.fit(v, t, wt, false);
                for (i, e) in elems.iter().enumerate() {
                    if matches!(e, Operand::Sink) {
                        continue;
                    }
                    let s = opv!(
                        self,
                        [&"lshr ", &(wt.ll()), &" ", &w, &", ", &(i as u32 * eb)]
                    );
                    let x = opv!(
                        self,
                        [
                            &"trunc ",
                            &(wt.ll()),
                            &" ",
                            &s,
                            &" to ",
                            &(Ty::int(eb).ll()),
                        ]
                    );
                    self.wr(e, &x, Ty::int(eb), false)?;
                }
                Ok(())
            }
            _ => fail(
                &self.form(),
                format!("destination operand kind {}", o.kind_name()),
            ),
        }
    }

    /// Pointer and address space of a symbol (local memory, parameter, module variable or
    /// function).
    pub(super) fn sym_ptr(&mut self, n: &str) -> R<(V, u32)> {
        if let Some(Local::Mem { ptr, aspace }) = self.lookup(n) {
            return Ok((ptr, aspace));
        }
        if let Some((g, a)) = self.cx.globals.get(n) {
            return Ok((V::new(g), *a));
        }
        if let Some(s) = self.cx.funcs.get(n) {
            return Ok((format!("@{}", s.llname).into(), 0));
        }
        fail(&self.form(), format!("unknown symbol {n}"))
    }

    pub(super) fn space_as(&self, s: Space) -> u32 {
        let a = &self.cx.prof.addrspace;
        match s {
            Space::Generic => a.generic,
            Space::Global => a.global,
            Space::Shared => a.shared,
            Space::Const => a.r#const,
            Space::Local => a.local,
            Space::Param => self.cx.alloca_as,
        }
    }

    /// Pointer for address operand `o` of state space `s`, cast (`addrspacecast`) to the
    /// address space of state space `to` when they differ.
    pub(super) fn addr_in(&mut self, o: &Operand<'a>, s: Space, to: Space) -> R<V> {
        let want = self.space_as(to);
        let (p, a) = self.addr(o, s)?;
        if a == want {
            return Ok(p);
        }
        Ok(opv!(
            self,
            [
                &"addrspacecast ",
                &(ptr_ty(a)),
                &" ",
                &p,
                &" to ",
                &(ptr_ty(want)),
            ]
        ))
    }

    /// Address operand → (pointer value, address space).
    pub(super) fn addr(&mut self, o: &Operand<'a>, s: Space) -> R<(V, u32)> {
        let Operand::Address(a) = o else {
            return fail(&self.form(), "expected an address operand");
        };
        let Address::Offset { base, offset } = &**a else {
            return fail(&self.form(), "tuple address");
        };
        let want = self.space_as(s);
        let (p, aspace) = match base {
            Some(AddrBase::Symbol(n)) => {
                let (p, a) = self.sym_ptr(n)?;
                if s == Space::Param || a == want {
                    (p, a)
                } else if s == Space::Generic {
                    let c = opv!(
                        self,
                        [
                            &"addrspacecast ",
                            &(ptr_ty(a)),
                            &" ",
                            &p,
                            &" to ",
                            &(ptr_ty(want)),
                        ]
                    );
                    (c, want)
                } else {
                    (p, a)
                }
            }
            Some(AddrBase::Reg(n)) => {
                if !self.local_addrs.is_empty() {
                    if let Some(r) = self.local_access(n, s, *offset)? {
                        return Ok(r);
                    }
                }
                let l = self.lookup(n);
                if let Some(Local::Mem { ptr, aspace }) = l {
                    (ptr, aspace)
                } else {
                    let bits = match l {
                        Some(Local::Reg { bits, .. }) => bits,
                        _ => 64,
                    };
                    let it = Ty::int(if bits <= 32 { 32 } else { 64 });
                    let v = self.rd_local(n, l, it, false)?;
                    let aspace = if s == Space::Param {
                        self.cx.alloca_as
                    } else {
                        want
                    };
                    let p = opv!(
                        self,
                        [
                            &"inttoptr ",
                            &(it.ll()),
                            &" ",
                            &v,
                            &" to ",
                            &(ptr_ty(aspace)),
                        ]
                    );
                    (p, aspace)
                }
            }
            None => {
                let p = opv!(self, [&"inttoptr i64 ", &offset, &" to ", &(ptr_ty(want))]);
                return Ok((p, want));
            }
        };
        if *offset == 0 {
            return Ok((p, aspace));
        }
        let g = self.gep_i8(&p, aspace, offset);
        Ok((g, aspace))
    }
}

/// `%rd12` → (`%rd`, Some(12)): the name without its decimal suffix and the suffix's value,
/// `None` when there is no suffix, the name is all digits, the suffix has a leading zero
/// (`%r01` is not generated by a range) or overflows `u32`.
///
/// The trailing digits are found in the name's last 8 bytes at once (a SWAR test of the
/// bytes held in a `u64`); names ending in 8 digits or more take [`split_digits_loop`].
#[inline]
pub(super) fn split_digits(name: &str) -> (&str, Option<u32>) {
    use std::ptr::read_unaligned as rd;
    let b = name.as_bytes();
    let n = b.len();
    let p = b.as_ptr();
    // The last min(n, 8) bytes, the last one in the top byte, zeros below.
    // SAFETY: every read lies within `b[..n]` (each branch bounds `n`).
    let x: u64 = unsafe {
        if n >= 8 {
            u64::from_le(rd(p.add(n - 8) as *const u64))
        } else if n >= 4 {
            let lo = u32::from_le(rd(p as *const u32)) as u64;
            let hi = u32::from_le(rd(p.add(n - 4) as *const u32)) as u64;
            (lo | hi << ((n - 4) * 8)) << ((8 - n) * 8)
        } else if n >= 2 {
            let lo = u16::from_le(rd(p as *const u16)) as u64;
            let hi = u16::from_le(rd(p.add(n - 2) as *const u16)) as u64;
            (lo | hi << ((n - 2) * 8)) << ((8 - n) * 8)
        } else if n == 1 {
            (*p as u64) << 56
        } else {
            return (name, None);
        }
    };
    const LO7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    const HI: u64 = 0x8080_8080_8080_8080;
    // A byte is a digit iff `c ^ b'0'` < 10: the high bit of each non-digit byte (the zero
    // padding included) is set.
    let y = x ^ 0x3030_3030_3030_3030;
    let non_digit = (((y & LO7) + 0x7676_7676_7676_7676) | y) & HI;
    let digits = (non_digit.leading_zeros() / 8) as usize;
    if digits >= 8 {
        return split_digits_loop(name);
    }
    let i = n - digits;
    if digits == 0 || i == 0 {
        return (name, None);
    }
    // `%r01` is not `%r<N>`-generated: leading zeros are not produced by a range.
    if b[i] == b'0' && digits > 1 {
        return (name, None);
    }
    let mut v: u32 = 0;
    for &c in &b[i..] {
        v = v * 10 + (c - b'0') as u32;
    }
    (&name[..i], Some(v))
}

/// [`split_digits`] of a name ending in at least 8 digits, one digit at a time.
#[cold]
pub(super) fn split_digits_loop(name: &str) -> (&str, Option<u32>) {
    let b = name.as_bytes();
    // Fast path: up to 9 digits, accumulated from the last one (no overflow possible).
    let mut i = b.len();
    let mut n: u32 = 0;
    let mut mul: u32 = 1;
    while i > 0 && b.len() - i < 9 {
        let d = b[i - 1].wrapping_sub(b'0');
        if d > 9 {
            break;
        }
        n += d as u32 * mul;
        mul = mul.wrapping_mul(10);
        i -= 1;
    }
    if i > 0 && b[i - 1].is_ascii_digit() {
        return split_digits_long(name);
    }
    if i == b.len() || i == 0 {
        return (name, None);
    }
    // `%r01` is not `%r<N>`-generated: leading zeros are not produced by a range.
    if b[i] == b'0' && i + 1 < b.len() {
        return (name, None);
    }
    (&name[..i], Some(n))
}

/// [`split_digits`] of a name ending in more than 9 digits (with overflow checks).
#[cold]
pub(super) fn split_digits_long(name: &str) -> (&str, Option<u32>) {
    let b = name.as_bytes();
    let mut i = b.len();
    while i > 0 && b[i - 1].is_ascii_digit() {
        i -= 1;
    }
    if i == b.len() || i == 0 {
        return (name, None);
    }
    if b[i] == b'0' && i + 1 < b.len() {
        return (name, None);
    }
    let mut n: u32 = 0;
    for &c in &b[i..] {
        match n
            .checked_mul(10)
            .and_then(|n| n.checked_add((c - b'0') as u32))
        {
            Some(v) => n = v,
            None => return (&name[..i], None),
        }
    }
    (&name[..i], Some(n))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The plain definition of [`split_digits`].
    fn reference(name: &str) -> (&str, Option<u32>) {
        let b = name.as_bytes();
        let mut i = b.len();
        while i > 0 && b[i - 1].is_ascii_digit() {
            i -= 1;
        }
        if i == b.len() || i == 0 || (b[i] == b'0' && i + 1 < b.len()) {
            return (name, None);
        }
        match name[i..].parse::<u32>() {
            Ok(v) => (&name[..i], Some(v)),
            Err(_) => (&name[..i], None),
        }
    }

    #[test]
    fn split_digits_matches_its_definition() {
        let mut names: Vec<String> = Vec::new();
        let stems = [
            "",
            "%",
            "%r",
            "%rd",
            "%f",
            "%p",
            "%rs",
            "%fd",
            "x",
            "%long_name_",
            "%a0b",
        ];
        let tails = [
            "",
            "0",
            "7",
            "01",
            "10",
            "42",
            "123",
            "0001",
            "99999",
            "1234567",
            "12345678",
            "123456789",
            "1234567890",
            "4294967295",
            "4294967296",
            "99999999999",
            "00",
        ];
        for s in stems {
            for t in tails {
                names.push(format!("{s}{t}"));
                names.push(format!("{s}{t}x"));
                names.push(format!("é{s}{t}"));
            }
        }
        for n in &names {
            assert_eq!(split_digits(n), reference(n), "{n:?}");
        }
    }
}
