//! Data movement and the memory model (PTX ISA 9.x §9.7.9, §9.7.13): `mov`, `ld`/`ldu`/`st`
//! (vectors, `.volatile`, `.relaxed`/`.acquire`/`.release` with a scope), `cvta`,
//! `atom`/`red`, `membar`/`fence`.

use super::*;

impl<'c, 'm, 'a> Fx<'c, 'm, 'a> {
    pub(super) fn mov(&mut self, mo: &Mods, ops: &[Operand<'a>]) -> R<()> {
        let Some(&pt) = mo.types().first() else {
            return fail(&self.form(), "mov without a type");
        };
        let (t, _) = of_ptx(pt).ok_or_else(|| Fail {
            form: self.form(),
            reason: "type".into(),
        })?;
        let it = if t == Ty::I1 { t } else { Ty::int(t.bits()) };
        let v = self.rd(&ops[1], it, false)?;
        self.wr(&ops[0], &v, it, false)
    }

    /// (LLVM ordering, syncscope) of a `.relaxed`/`.acquire`/`.release` load or store.
    pub(super) fn mem_order(&self, mo: &Mods) -> Option<(&'static str, &'static str)> {
        let o = match mo.sem? {
            Sem::Relaxed => "monotonic",
            Sem::Acquire => "acquire",
            Sem::Release => "release",
            _ => return None,
        };
        Some((o, syncscope(self.cx.nv, mo)))
    }

    /// The `<n x el>` vector of `vals` (element `k` = `vals[k]`), as `insertelement`s.
    fn vector_of(&mut self, el: &str, vals: &[V]) -> V {
        let vt = format!("<{} x {el}>", vals.len());
        let mut acc = V::new("poison");
        for (k, x) in vals.iter().enumerate() {
            acc = opv!(
                self,
                [
                    &"insertelement ",
                    &vt,
                    &" ",
                    &acc,
                    &", ",
                    &el,
                    &" ",
                    x,
                    &", i32 ",
                    &k
                ]
            );
        }
        acc
    }

    /// Whether a `.b128` access must reach memory as one 16-byte access: ordered
    /// (relaxed, acquire, release) or volatile outside `.local` (another thread may read it).
    fn whole_b128(&self, mo: &Mods) -> bool {
        self.mem_order(mo).is_some()
            || (mo.has(Mod::Volatile) && mo.space() != Some(StateSpace::Local))
    }

    pub(super) fn ld(&mut self, mo: &Mods, ops: &[Operand<'a>]) -> R<()> {
        let s = space_of(mo).map_err(|mut f| {
            f.form = self.form();
            f
        })?;
        let Some(&pt) = mo.types().last() else {
            return fail(&self.form(), "ld without a type");
        };
        let (et, k) = of_ptx(pt).ok_or_else(|| Fail {
            form: self.form(),
            reason: format!("ld of {}", pt.as_str()),
        })?;
        let et = if et == Ty::I1 { Ty::I8 } else { et };
        let signed = k == Kind::Signed;
        let n = mo.vec_len();
        let (p, aspace) = self.addr(&ops[1], s)?;
        let pty = ptr_ty(aspace);
        let vol = if mo.has(Mod::Volatile) || mo.has(Mod::Mmio) {
            " volatile"
        } else {
            ""
        };
        let size = et.bits() / 8 * n;
        let el = et.ll();
        if n == 1 && et == Ty::I128 && self.whole_b128(mo) {
            // One 16-byte access, as the ordered `.v2.b64` it is laid out as (element 0 the
            // low half, PTX ISA 9.x §5.2.4 little-endian); see [`Self::ordered_vec`].
            let vs = self.ordered_vec(mo, "ld", &p, aspace, Ty::I64, 2, &[]);
            let acc = self.vector_of("i64", &vs);
            let v = opv!(self, [&"bitcast <2 x i64> ", &acc, &" to i128"]);
            return self.wr(&ops[0], &v, et, signed);
        }
        if n == 1 && self.cx.nv && self.mem_order(mo).is_some() {
            let v = self.nv_ordered(mo, "ld", &p, aspace, et, None);
            return self.wr(&ops[0], &v, et, signed);
        }
        if n > 1 && self.mem_order(mo).is_some() {
            let Operand::Vector(dsts) = &ops[0] else {
                return fail(&self.form(), "vector load without a vector destination");
            };
            let vs = self.ordered_vec(mo, "ld", &p, aspace, et, n as usize, &[]);
            for (d, v) in dsts.iter().zip(&vs) {
                if !matches!(d, Operand::Sink) {
                    self.wr(d, v, et, signed)?;
                }
            }
            return Ok(());
        }
        if n == 1 {
            let v = match self.mem_order(mo) {
                Some((o, ss)) if o != "release" => opv!(
                    self,
                    [
                        &"load atomic",
                        &vol,
                        &" ",
                        &el,
                        &", ",
                        &pty,
                        &" ",
                        &p,
                        &ss,
                        &" ",
                        &o,
                        &", align ",
                        &size,
                    ]
                ),
                _ => opv!(
                    self,
                    [
                        &"load",
                        &vol,
                        &" ",
                        &el,
                        &", ",
                        &pty,
                        &" ",
                        &p,
                        &", align ",
                        &size,
                    ]
                ),
            };
            return self.wr(&ops[0], &v, et, signed);
        }
        let Operand::Vector(dsts) = &ops[0] else {
            return fail(&self.form(), "vector load without a vector destination");
        };
        let vt = format!("<{n} x {el}>");
        let v = opv!(
            self,
            [
                &"load",
                &vol,
                &" ",
                &vt,
                &", ",
                &pty,
                &" ",
                &p,
                &", align ",
                &size,
            ]
        );
        for (k, d) in dsts.iter().enumerate() {
            if matches!(d, Operand::Sink) {
                continue;
            }
            let x = opv!(self, [&"extractelement ", &vt, &" ", &v, &", i32 ", &k]);
            self.wr(d, &x, et, signed)?;
        }
        Ok(())
    }

    pub(super) fn st(&mut self, mo: &Mods, ops: &[Operand<'a>]) -> R<()> {
        let s = space_of(mo).map_err(|mut f| {
            f.form = self.form();
            f
        })?;
        let Some(&pt) = mo.types().last() else {
            return fail(&self.form(), "st without a type");
        };
        let (et, _) = of_ptx(pt).ok_or_else(|| Fail {
            form: self.form(),
            reason: format!("st of {}", pt.as_str()),
        })?;
        let et = if et == Ty::I1 { Ty::I8 } else { et };
        let n = mo.vec_len();
        let (p, aspace) = self.addr(&ops[0], s)?;
        let pty = ptr_ty(aspace);
        let vol = if mo.has(Mod::Volatile) || mo.has(Mod::Mmio) {
            " volatile"
        } else {
            ""
        };
        let size = et.bits() / 8 * n;
        let el = et.ll();
        if n == 1 && et == Ty::I128 && self.whole_b128(mo) {
            // As the ordered `.v2.b64` store of its halves (see `ld`).
            let v = self.rd(&ops[1], et, false)?;
            let w = opv!(self, [&"bitcast i128 ", &v, &" to <2 x i64>"]);
            let vs: Vec<V> = (0..2)
                .map(|k| opv!(self, [&"extractelement <2 x i64> ", &w, &", i32 ", &k]))
                .collect();
            self.ordered_vec(mo, "st", &p, aspace, Ty::I64, 2, &vs);
            return Ok(());
        }
        if n == 1 && self.cx.nv && self.mem_order(mo).is_some() {
            let v = self.rd(&ops[1], et, false)?;
            self.nv_ordered(mo, "st", &p, aspace, et, Some(&v));
            return Ok(());
        }
        if n > 1 && self.mem_order(mo).is_some() {
            let Operand::Vector(srcs) = &ops[1] else {
                return fail(&self.form(), "vector store without a vector source");
            };
            let mut vs = Vec::with_capacity(n as usize);
            for e in srcs.iter() {
                vs.push(self.rd(e, et, false)?);
            }
            self.ordered_vec(mo, "st", &p, aspace, et, n as usize, &vs);
            return Ok(());
        }
        if n == 1 {
            let v = self.rd(&ops[1], et, false)?;
            match self.mem_order(mo) {
                Some((o, ss)) if o != "acquire" => linev!(
                    self,
                    [
                        &"store atomic",
                        &vol,
                        &" ",
                        &el,
                        &" ",
                        &v,
                        &", ",
                        &pty,
                        &" ",
                        &p,
                        &ss,
                        &" ",
                        &o,
                        &", align ",
                        &size,
                    ]
                ),
                _ => linev!(
                    self,
                    [
                        &"store",
                        &vol,
                        &" ",
                        &el,
                        &" ",
                        &v,
                        &", ",
                        &pty,
                        &" ",
                        &p,
                        &", align ",
                        &size,
                    ]
                ),
            }
            return Ok(());
        }
        let Operand::Vector(srcs) = &ops[1] else {
            return fail(&self.form(), "vector store without a vector source");
        };
        let vt = format!("<{n} x {el}>");
        let mut acc = V::new("poison");
        for (k, e) in srcs.iter().enumerate() {
            let x = self.rd(e, et, false)?;
            acc = opv!(
                self,
                [
                    &"insertelement ",
                    &vt,
                    &" ",
                    &acc,
                    &", ",
                    &el,
                    &" ",
                    &x,
                    &", i32 ",
                    &k,
                ]
            );
        }
        linev!(
            self,
            [
                &"store",
                &vol,
                &" ",
                &vt,
                &" ",
                &acc,
                &", ",
                &pty,
                &" ",
                &p,
                &", align ",
                &size,
            ]
        );
        Ok(())
    }

    /// An ordered vector load or store (`ld.relaxed.gpu.v2.u32`, `st.release.gpu.v4.u32`) as
    /// one access of the whole vector: the PTX memory model (PTX ISA 9.x §8.2) treats it as a
    /// set of element accesses in no particular order, but the code that writes it (CUB's
    /// decoupled look-back: a status word and its value published and polled as one
    /// "transaction word") counts on the pair not being torn, which NVIDIA hardware gives for
    /// aligned accesses of up to 16 bytes. amdgcn: up to 64 bits, one atomic load or store of
    /// the whole width (single-copy atomic on gfx9), the vector its bitcast; 128 bits (no
    /// 128-bit atomic on gfx9), one `volatile` vector access (a single `dwordx4` instruction
    /// that bypasses the non-coherent L1 like a relaxed atomic), after a release fence or before
    /// an acquire fence of the scope. nvptx: the PTX vector instruction itself. Scalar
    /// ordered or volatile `.b128` accesses come here as `.v2.b64` (`et` `I64`, `n` 2). A load
    /// returns the `n` elements; a store (`vals` holds them) returns nothing.
    #[allow(clippy::too_many_arguments)]
    fn ordered_vec(
        &mut self,
        mo: &Mods,
        op: &str,
        p: &str,
        aspace: u32,
        et: Ty,
        n: usize,
        vals: &[V],
    ) -> Vec<V> {
        if self.cx.nv {
            return self.nv_ordered_vec(mo, op, p, aspace, et, n, vals);
        }
        let (o, ss) = self.mem_order(mo).unwrap_or(("monotonic", ""));
        // `ld.release` / `st.acquire` do not exist (the parser's neighbours); relaxed then.
        let o = match (op, o) {
            ("ld", "release") | ("st", "acquire") => "monotonic",
            _ => o,
        };
        let vol = if mo.has(Mod::Volatile) || mo.has(Mod::Mmio) {
            " volatile"
        } else {
            ""
        };
        let pty = ptr_ty(aspace);
        let el = et.ll();
        let bits = et.bits() as usize * n;
        let size = bits / 8;
        let vt = format!("<{n} x {el}>");
        let whole = if op == "ld" {
            if bits <= 64 {
                let it = format!("i{bits}");
                let w = opv!(
                    self,
                    [
                        &"load atomic",
                        &vol,
                        &" ",
                        &it,
                        &", ",
                        &pty,
                        &" ",
                        &p,
                        &ss,
                        &" ",
                        &o,
                        &", align ",
                        &size,
                    ]
                );
                opv!(self, [&"bitcast ", &it, &" ", &w, &" to ", &vt])
            } else {
                let v = opv!(
                    self,
                    [
                        &"load volatile ",
                        &vt,
                        &", ",
                        &pty,
                        &" ",
                        &p,
                        &", align ",
                        &size
                    ]
                );
                if o == "acquire" {
                    linev!(self, [&"fence", &ss, &" acquire"]);
                }
                v
            }
        } else {
            let acc = self.vector_of(el, vals);
            if bits <= 64 {
                let it = format!("i{bits}");
                let w = opv!(self, [&"bitcast ", &vt, &" ", &acc, &" to ", &it]);
                linev!(
                    self,
                    [
                        &"store atomic",
                        &vol,
                        &" ",
                        &it,
                        &" ",
                        &w,
                        &", ",
                        &pty,
                        &" ",
                        &p,
                        &ss,
                        &" ",
                        &o,
                        &", align ",
                        &size,
                    ]
                );
            } else {
                if o == "release" {
                    linev!(self, [&"fence", &ss, &" release"]);
                }
                linev!(
                    self,
                    [
                        &"store volatile ",
                        &vt,
                        &" ",
                        &acc,
                        &", ",
                        &pty,
                        &" ",
                        &p,
                        &", align ",
                        &size,
                    ]
                );
            }
            return Vec::new();
        };
        (0..n)
            .map(|k| opv!(self, [&"extractelement ", &vt, &" ", &whole, &", i32 ", &k]))
            .collect()
    }

    /// nvptx: an ordered vector load or store as the PTX instruction itself
    /// (`ld.relaxed.gpu.global.v2.b32 {$0, $1}, [$2];`, inline asm), as [`Self::nv_ordered`].
    #[allow(clippy::too_many_arguments)]
    fn nv_ordered_vec(
        &mut self,
        mo: &Mods,
        op: &str,
        p: &str,
        aspace: u32,
        et: Ty,
        n: usize,
        vals: &[V],
    ) -> Vec<V> {
        let mut text = String::from(op);
        if let Some(sem @ (Sem::Relaxed | Sem::Acquire | Sem::Release | Sem::Volatile)) = mo.sem {
            text.push_str(sem.name());
        }
        if let Some(sc @ (Scope::Cta | Scope::Gpu | Scope::Sys)) = mo.scope {
            text.push_str(sc.name());
        }
        match mo.space() {
            Some(StateSpace::Global) => text.push_str(".global"),
            Some(StateSpace::Shared | StateSpace::SharedCta) => text.push_str(".shared"),
            Some(StateSpace::Local) => text.push_str(".local"),
            _ => {}
        }
        let bits = et.bits();
        let (c, ct) = match bits {
            8 | 16 => ("h", Ty::I16),
            32 => ("r", Ty::I32),
            _ => ("l", Ty::I64),
        };
        let _ = write!(text, ".v{n}.b{bits}");
        let a = opv!(
            self,
            [&"ptrtoint ", &(ptr_ty(aspace)), &" ", &p, &" to i64"]
        );
        let regs: Vec<String> = (0..n).map(|k| format!("${k}")).collect();
        let list = regs.join(", ");
        let cl = ct.ll();
        if op == "ld" {
            let st = format!("{{ {} }}", vec![cl; n].join(", "));
            let cons = vec![format!("={c}"); n].join(",");
            let r = opv!(
                self,
                [
                    &"call ",
                    &st,
                    &" asm sideeffect \"",
                    &text,
                    &" {",
                    &list,
                    &"}, [$",
                    &n,
                    &"];\", \"",
                    &cons,
                    &",l,~{memory}\"(i64 ",
                    &a,
                    &")",
                ]
            );
            (0..n)
                .map(|k| {
                    let x = opv!(self, [&"extractvalue ", &st, &" ", &r, &", ", &k]);
                    self.fit(&x, ct, et, false)
                })
                .collect()
        } else {
            let mut args = String::new();
            for v in vals {
                let x = self.fit(v, et, ct, false);
                let _ = write!(args, ", {cl} {x}");
            }
            let regs: Vec<String> = (1..=n).map(|k| format!("${k}")).collect();
            let cons = vec![c; n].join(",");
            linev!(
                self,
                [
                    &"call void asm sideeffect \"",
                    &text,
                    &" [$0], {",
                    &regs.join(", "),
                    &"};\", \"l,",
                    &cons,
                    &",~{memory}\"(i64 ",
                    &a,
                    &args,
                    &")",
                ]
            );
            Vec::new()
        }
    }

    /// nvptx: a `.relaxed/.acquire/.release` load or store as the PTX instruction itself
    /// (inline asm), since LLVM 19's NVPTX backend cannot select ordered atomic loads/stores.
    pub(super) fn nv_ordered(
        &mut self,
        mo: &Mods,
        op: &str,
        p: &str,
        aspace: u32,
        et: Ty,
        val: Option<&str>,
    ) -> V {
        // The PTX instruction in the ISA's order (`ld.sem.scope.space.bN`), whatever order the
        // source wrote it in.
        let mut text = String::from(op);
        if let Some(sem @ (Sem::Relaxed | Sem::Acquire | Sem::Release)) = mo.sem {
            text.push_str(sem.name());
        }
        if let Some(sc @ (Scope::Cta | Scope::Gpu | Scope::Sys)) = mo.scope {
            text.push_str(sc.name());
        }
        match mo.space() {
            Some(StateSpace::Global) => text.push_str(".global"),
            // `.shared::cta` is `.shared` (PTX ISA 9.x §5.1.4); llc writes `.version 7.0`.
            Some(StateSpace::Shared | StateSpace::SharedCta) => text.push_str(".shared"),
            Some(StateSpace::Local) => text.push_str(".local"),
            _ => {}
        }
        let bits = et.bits();
        let (c, ct) = match bits {
            8 | 16 => ("h", Ty::I16),
            32 => ("r", Ty::I32),
            _ => ("l", Ty::I64),
        };
        let _ = write!(text, ".b{bits}");
        let a = opv!(
            self,
            [&"ptrtoint ", &(ptr_ty(aspace)), &" ", &p, &" to i64"]
        );
        match val {
            None => {
                let v = opv!(
                    self,
                    [
                        &"call ",
                        &(ct.ll()),
                        &" asm sideeffect \"",
                        &text,
                        &" $0, [$1];\", \"=",
                        &c,
                        &",l,~{memory}\"(i64 ",
                        &a,
                        &")",
                    ]
                );
                self.fit(&v, ct, et, false)
            }
            Some(v) => {
                let x = self.fit(v, et, ct, false);
                linev!(
                    self,
                    [
                        &"call void asm sideeffect \"",
                        &text,
                        &" [$0], $1;\", \"l,",
                        &c,
                        &",~{memory}\"(i64 ",
                        &a,
                        &", ",
                        &(ct.ll()),
                        &" ",
                        &x,
                        &")",
                    ]
                );
                V::new("")
            }
        }
    }

    pub(super) fn cvta(&mut self, mo: &Mods, ops: &[Operand<'a>]) -> R<()> {
        let to = mo.has(Mod::To);
        let s = space_of(mo).map_err(|mut f| {
            f.form = self.form();
            f
        })?;
        let it = if mo.has(Mod::U32) { Ty::I32 } else { Ty::I64 };
        let sa = self.space_as(if s == Space::Param { Space::Param } else { s });
        let g = self.cx.prof.addrspace.generic;
        let (from_as, to_as) = if to { (g, sa) } else { (sa, g) };
        // The source pointer: a symbol's address or an integer register.
        let p = match &ops[1] {
            Operand::Symbol(n) | Operand::Func(n) => {
                let (p, a) = self.sym_ptr(n)?;
                if a == from_as {
                    p
                } else {
                    opv!(
                        self,
                        [
                            &"addrspacecast ",
                            &(ptr_ty(a)),
                            &" ",
                            &p,
                            &" to ",
                            &(ptr_ty(from_as)),
                        ]
                    )
                }
            }
            Operand::Reg(n) if matches!(self.lookup(n), Some(Local::Mem { .. })) => {
                let (p, a) = self.sym_ptr(n)?;
                if a == from_as {
                    p
                } else {
                    opv!(
                        self,
                        [
                            &"addrspacecast ",
                            &(ptr_ty(a)),
                            &" ",
                            &p,
                            &" to ",
                            &(ptr_ty(from_as)),
                        ]
                    )
                }
            }
            o => {
                let v = self.rd(o, it, false)?;
                opv!(
                    self,
                    [
                        &"inttoptr ",
                        &(it.ll()),
                        &" ",
                        &v,
                        &" to ",
                        &(ptr_ty(from_as)),
                    ]
                )
            }
        };
        let c = if from_as == to_as {
            p
        } else {
            opv!(
                self,
                [
                    &"addrspacecast ",
                    &(ptr_ty(from_as)),
                    &" ",
                    &p,
                    &" to ",
                    &(ptr_ty(to_as)),
                ]
            )
        };
        let r = opv!(
            self,
            [
                &"ptrtoint ",
                &(ptr_ty(to_as)),
                &" ",
                &c,
                &" to ",
                &(it.ll()),
            ]
        );
        self.wr(&ops[0], &r, it, false)
    }

    pub(super) fn atom(&mut self, ret: bool, mo: &Mods, ops: &[Operand<'a>]) -> R<()> {
        let cur = self.cur;
        let form = || cur.map(form_of).unwrap_or_default();
        let s = space_of(mo).map_err(|mut f| {
            f.form = form();
            f
        })?;
        let Some(&pt) = mo.types().last() else {
            return fail(&form(), "atom without a type");
        };
        if mo.vec_len() != 1 {
            return fail(&form(), "vector atomics");
        }
        let (t, k) = of_ptx(pt).ok_or_else(|| Fail {
            form: form(),
            reason: "type".into(),
        })?;
        let ss = syncscope(self.cx.nv, mo);
        let ord = match mo.sem {
            Some(Sem::Acquire) => "acquire",
            Some(Sem::Release) => "release",
            Some(Sem::AcqRel) => "acq_rel",
            _ => "monotonic",
        };
        let (ai, di) = if ret { (1, Some(0)) } else { (0, None) };
        let (p, aspace) = self.addr(&ops[ai], s)?;
        let pty = ptr_ty(aspace);
        let ll = t.ll();
        let opn = mo.op.ok_or_else(|| Fail {
            form: form(),
            reason: "atomic operation".into(),
        })?;
        let b = self.rd(&ops[ai + 1], t, false)?;
        let old = if opn == Mod::Cas {
            let c = self.rd(&ops[ai + 2], t, false)?;
            let (it, b, c) = if t.is_float() {
                let it = Ty::int(t.bits());
                let b2 = self.fit(&b, t, it, false);
                let c2 = self.fit(&c, t, it, false);
                (it, b2, c2)
            } else {
                (t, b, c)
            };
            let failure = match ord {
                "release" => "monotonic",
                "acq_rel" => "acquire",
                o => o,
            };
            let r = opv!(
                self,
                [
                    &"cmpxchg ",
                    &pty,
                    &" ",
                    &p,
                    &", ",
                    &(it.ll()),
                    &" ",
                    &b,
                    &", ",
                    &(it.ll()),
                    &" ",
                    &c,
                    &ss,
                    &" ",
                    &ord,
                    &" ",
                    &failure,
                ]
            );
            let v = opv!(
                self,
                [&"extractvalue { ", &(it.ll()), &", i1 } ", &r, &", 0"]
            );
            self.fit(&v, it, t, false)
        } else {
            let f = k == Kind::Float;
            let s = k == Kind::Signed;
            let rmw = match (opn, f, s) {
                (Mod::Add, true, _) => "fadd",
                (Mod::Add, false, _) => "add",
                (Mod::And, false, _) => "and",
                (Mod::Or, false, _) => "or",
                (Mod::Xor, false, _) => "xor",
                (Mod::Exch, _, _) => "xchg",
                (Mod::Inc, false, false) => "uinc_wrap",
                (Mod::Dec, false, false) => "udec_wrap",
                (Mod::Min, false, true) => "min",
                (Mod::Max, false, true) => "max",
                (Mod::Min, false, false) => "umin",
                (Mod::Max, false, false) => "umax",
                (Mod::Min, true, _) => "fmin",
                (Mod::Max, true, _) => "fmax",
                _ => return fail(&form(), "atomic operation on this type"),
            };
            opv!(
                self,
                [
                    &"atomicrmw ",
                    &rmw,
                    &" ",
                    &pty,
                    &" ",
                    &p,
                    &", ",
                    &ll,
                    &" ",
                    &b,
                    &ss,
                    &" ",
                    &ord,
                    &", align ",
                    &(t.bits() / 8),
                ]
            )
        };
        if let Some(d) = di {
            self.wr(&ops[d], &old, t, false)?;
        }
        Ok(())
    }

    /// `membar` and `fence` (not the proxy and mbarrier_init fences: `mbarrier`).
    pub(super) fn fence_inst(&mut self, i: &'m Instruction<'a>, mo: &Mods) -> R<()> {
        if mo.has(Mod::Proxy) || mo.has(Mod::ProxyAny) {
            return fail(&form_of(i), "proxy fences are not lowered");
        }
        if self.cx.nv {
            // LLVM 19's NVPTX backend cannot select `fence`: keep the PTX instruction, written
            // in the ISA's order (`fence.sem.scope`, `membar.level`).
            let mut f = String::from(i.opcode.name());
            // `fence.acquire`/`fence.release` (sm_90) as the stronger `fence.acq_rel`, which
            // sm_80 has.
            if let Some(sem) = mo.sem {
                f.push_str(match sem {
                    Sem::Acquire | Sem::Release => Sem::AcqRel.name(),
                    s => s.name(),
                });
            }
            if let Some(sc) = mo.scope {
                f.push_str(sc.name());
            }
            linev!(
                self,
                [&"call void asm sideeffect \"", &f, &";\", \"~{memory}\"()"]
            );
            return Ok(());
        }
        let ss = syncscope(self.cx.nv, mo);
        let ord = match mo.sem {
            Some(Sem::AcqRel) => "acq_rel",
            Some(Sem::Acquire) => "acquire",
            Some(Sem::Release) => "release",
            _ => "seq_cst",
        };
        linev!(self, [&"fence", &ss, &" ", &ord]);
        Ok(())
    }

    /// `isspacep.space p, a` (PTX ISA 9.x §9.7.9.19): whether the generic address `a` lies in
    /// the window of `space`. amdgcn: `llvm.amdgcn.is.shared` (`.shared`, `.shared::cta`, and
    /// `.shared::cluster` for a cluster of one CTA), `llvm.amdgcn.is.private` (`.local`), and
    /// `.global` when it is neither (a flat address outside the LDS and scratch apertures);
    /// nvptx: `llvm.nvvm.isspacep.{global,shared,local}`.
    pub(super) fn isspacep(&mut self, mo: &Mods, ops: &[Operand<'a>]) -> R<()> {
        let a = self.rd(&ops[1], Ty::I64, false)?;
        let p = opv!(self, [&"inttoptr i64 ", &a, &" to ptr"]);
        let which = match mo.space() {
            Some(StateSpace::Global) => "global",
            Some(StateSpace::Shared | StateSpace::SharedCta | StateSpace::SharedCluster) => {
                "shared"
            }
            Some(StateSpace::Local) => "local",
            _ => {
                return fail(
                    &self.form(),
                    "a generic address of the constant or parameter space cannot be told from a global one on this target",
                )
            }
        };
        let v = if self.cx.nv {
            let f = match which {
                "global" => "llvm.nvvm.isspacep.global",
                "shared" => "llvm.nvvm.isspacep.shared",
                _ => "llvm.nvvm.isspacep.local",
            };
            self.declare(f, "i1", &["ptr"]);
            opv!(self, [&"call i1 @", &f, &"(ptr ", &p, &")"])
        } else {
            self.declare("llvm.amdgcn.is.shared", "i1", &["ptr"]);
            self.declare("llvm.amdgcn.is.private", "i1", &["ptr"]);
            match which {
                "shared" => opv!(self, [&"call i1 @llvm.amdgcn.is.shared(ptr ", &p, &")"]),
                "local" => opv!(self, [&"call i1 @llvm.amdgcn.is.private(ptr ", &p, &")"]),
                _ => {
                    let sh = opv!(self, [&"call i1 @llvm.amdgcn.is.shared(ptr ", &p, &")"]);
                    let pr = opv!(self, [&"call i1 @llvm.amdgcn.is.private(ptr ", &p, &")"]);
                    let either = opv!(self, [&"or i1 ", &sh, &", ", &pr]);
                    opv!(self, [&"xor i1 ", &either, &", true"])
                }
            }
        };
        self.wr(&ops[0], &v, Ty::I1, false)
    }
}
