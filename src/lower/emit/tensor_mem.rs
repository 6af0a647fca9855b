//! Asynchronous copies and warp matrix loads/stores (PTX ISA 9.x §9.7.9.25 `cp.async`,
//! `cp.async.commit_group`, `cp.async.wait_group`, `cp.async.wait_all`; §9.7.14.5.15
//! `ldmatrix`, §9.7.14.5.16 `stmatrix`, §9.7.14.5.17 `movmatrix`).
//!
//! Each instruction becomes calls of device-library functions defined per family by
//! `kernels-ir/tensor_mem.py`:
//!
//! * `cp.async.{ca,cg}.shared{::cta}.global [dst], [src], cp-size{, src-size | ignore-src}
//!   {, cache-policy}` (cp-size 4, 8 or 16): `@__wp_cp_async_<n>(dst, src, src_size)` on
//!   amdgcn, a synchronous copy whose bytes at and beyond `src-size` are zero (and not read);
//!   `@__wp_cp_async_<cop>_<n>` on nvptx (native `cp.async`). `ignore-src` true means a
//!   source size of 0 (the ISA: the source is not read, the destination zero-filled).
//! * `cp.async.commit_group`, `cp.async.wait_group N`, `cp.async.wait_all`: nothing on amdgcn
//!   (every copy is complete, and visible to its thread, when the instruction ends; a later
//!   `bar.sync` orders it for the CTA), native on nvptx.
//! * `ldmatrix.sync.aligned.m8n8.{x1,x2,x4}[.trans].shared{::cta}.b16`: on amdgcn one
//!   `@__wp_ldmatrix_frag[_trans](row, i)` per matrix `i` (the wave64 warp model of
//!   docs/warp-model.md: row addresses fetched from the owner lane of the same half); on
//!   nvptx the `llvm.nvvm.ldmatrix.*` intrinsic.
//! * `stmatrix.sync.aligned.m8n8.{x1,x2,x4}[.trans].shared{::cta}.b16` and
//!   `movmatrix.sync.aligned.m8n8.trans.b16`: the library's software path on both families
//!   (the twin builds for sm_80 and PTX 7.0, where neither exists natively).

use super::*;

/// The number of matrices of an `ldmatrix`/`stmatrix` (`.x1`, `.x2`, `.x4`).
fn matrices(mo: &Mods) -> Option<usize> {
    [(Mod::X1, 1), (Mod::X2, 2), (Mod::X4, 4)]
        .into_iter()
        .find_map(|(m, n)| mo.has(m).then_some(n))
}

/// The registers of a fragment operand: `{a, b, ...}` or a single register.
fn fragment_regs<'o, 'a>(o: &'o Operand<'a>) -> Vec<&'o Operand<'a>> {
    match o {
        Operand::Vector(v) => v.iter().collect(),
        o => vec![o],
    }
}

impl<'c, 'm, 'a> Fx<'c, 'm, 'a> {
    /// Pointer of address operand `o` in state space `s`, cast to that space's address space.
    fn space_ptr(&mut self, o: &Operand<'a>, s: Space) -> R<V> {
        self.addr_in(o, s, s)
    }

    /// Lower `cp.async*`, `ldmatrix`, `stmatrix` or `movmatrix`.
    pub(super) fn tensor_mem_inst(&mut self, i: &'m Instruction<'a>, mo: &Mods) -> R<()> {
        let ops: &[Operand<'a>] = &i.operands;
        let form = || form_of(i);
        let shared = mo.has(Mod::Shared) || mo.has(Mod::SharedCta);
        let nv = self.cx.nv;
        match i.opcode {
            Opcode::Cp if mo.has(Mod::Async) && mo.has(Mod::CommitGroup) => {
                if nv {
                    self.call_void("__wp_cp_async_commit_group", &[]);
                }
                Ok(())
            }
            Opcode::Cp if mo.has(Mod::Async) && mo.has(Mod::WaitAll) => {
                if nv {
                    self.call_void("__wp_cp_async_wait_all", &[]);
                }
                Ok(())
            }
            Opcode::Cp if mo.has(Mod::Async) && mo.has(Mod::WaitGroup) => {
                let Some(Operand::Imm(n)) = ops.first() else {
                    return fail(
                        &form(),
                        "cp.async.wait_group needs an immediate group count",
                    );
                };
                if nv {
                    let n = imm(n.value(), Ty::I32);
                    self.decl(
                        "llvm.nvvm.cp.async.wait.group",
                        "declare void @llvm.nvvm.cp.async.wait.group(i32 immarg)",
                    );
                    linev!(
                        self,
                        [&"call void @llvm.nvvm.cp.async.wait.group(i32 ", &n, &")"]
                    );
                }
                Ok(())
            }
            Opcode::Cp
                if mo.has(Mod::Async)
                    && !mo.has(Mod::Reduce)
                    && mo.len() >= 3
                    && shared
                    && mo.has(Mod::Global)
                    && !(mo.has(Mod::Bulk)
                        || mo.has(Mod::Mbarrier)
                        || mo.has(Mod::Tensor)
                        || mo.has(Mod::SharedCluster)) =>
            {
                self.cp_async(mo, ops, &form)
            }
            Opcode::Ldmatrix | Opcode::Stmatrix
                if shared && mo.has(Mod::M8n8) && mo.has(Mod::B16) =>
            {
                let Some(n) = matrices(mo) else {
                    return fail(&form(), "matrix count (.x1/.x2/.x4)");
                };
                let trans = mo.has(Mod::Trans);
                let (frag, addr) = if i.opcode == Opcode::Ldmatrix {
                    (&ops[0], &ops[1])
                } else {
                    (&ops[1], &ops[0])
                };
                if ops.len() != 2 {
                    return fail(&form(), format!("{} operands, expected 2", ops.len()));
                }
                let regs = fragment_regs(frag);
                if regs.len() != n {
                    return fail(
                        &form(),
                        format!("{} fragment registers, expected {n}", regs.len()),
                    );
                }
                let p = self.space_ptr(addr, Space::Shared)?;
                let pt = ptr_ty(self.space_as(Space::Shared));
                let sfx = if trans { "_trans" } else { "" };
                if i.opcode == Opcode::Ldmatrix && nv {
                    let tr = if trans { ".trans" } else { "" };
                    let name = format!("llvm.nvvm.ldmatrix.sync.aligned.m8n8.x{n}{tr}.b16.p3");
                    let rt = if n == 1 {
                        "i32".to_string()
                    } else {
                        format!("{{ {} }}", vec!["i32"; n].join(", "))
                    };
                    self.declare(&name, &rt, &[&pt]);
                    let r = opv!(
                        self,
                        [&"call ", &rt, &" @", &name, &"(", &pt, &" ", &p, &")"]
                    );
                    for (k, d) in regs.iter().enumerate() {
                        let v = if n == 1 {
                            r.clone()
                        } else {
                            opv!(self, [&"extractvalue ", &rt, &" ", &r, &", ", &(k as u32)])
                        };
                        self.wr(d, &v, Ty::I32, false)?;
                    }
                    return Ok(());
                }
                if i.opcode == Opcode::Ldmatrix {
                    let f = format!("__wp_ldmatrix_frag{sfx}");
                    self.declare(&f, "i32", &[&pt, "i32"]);
                    for (k, d) in regs.iter().enumerate() {
                        let v = opv!(
                            self,
                            [
                                &"call i32 @",
                                &f,
                                &"(",
                                &pt,
                                &" ",
                                &p,
                                &", i32 ",
                                &(k as u32),
                                &")",
                            ]
                        );
                        self.wr(d, &v, Ty::I32, false)?;
                    }
                } else {
                    let f = format!("__wp_stmatrix_frag{sfx}");
                    self.declare(&f, "void", &[&pt, "i32", "i32"]);
                    for (k, s) in regs.iter().enumerate() {
                        let v = self.rd(s, Ty::I32, false)?;
                        linev!(
                            self,
                            [
                                &"call void @",
                                &f,
                                &"(",
                                &pt,
                                &" ",
                                &p,
                                &", i32 ",
                                &(k as u32),
                                &", i32 ",
                                &v,
                                &")",
                            ]
                        );
                    }
                }
                Ok(())
            }
            Opcode::Movmatrix if mo.has(Mod::M8n8) && mo.has(Mod::Trans) && mo.has(Mod::B16) => {
                if ops.len() != 2 {
                    return fail(&form(), format!("{} operands, expected 2", ops.len()));
                }
                let a = self.rd(&ops[1], Ty::I32, false)?;
                let r = self.call("__wp_movmatrix_trans", Ty::I32, &[(Ty::I32, &a)]);
                self.wr(&ops[0], &r, Ty::I32, false)
            }
            _ => fail(
                &form(),
                "no lowering for this asynchronous-copy or matrix form",
            ),
        }
    }

    /// `cp.async.{ca,cg}.shared{::cta}.global` (§9.7.9.25).
    fn cp_async(&mut self, mo: &Mods, ops: &[Operand<'a>], form: &dyn Fn() -> String) -> R<()> {
        // A `.L2::cache_hint` adds a trailing 64-bit cache-policy operand (a hint: ignored).
        let nops = ops.len() - usize::from(mo.has(Mod::L2CacheHint));
        if !(3..=4).contains(&nops) {
            return fail(&form(), format!("{} operands, expected 3 or 4", ops.len()));
        }
        let n = match &ops[2] {
            Operand::Imm(v) => match v.value() {
                ImmValue::Int(4) | ImmValue::UInt(4) => 4u32,
                ImmValue::Int(8) | ImmValue::UInt(8) => 8,
                ImmValue::Int(16) | ImmValue::UInt(16) => 16,
                _ => return fail(&form(), format!("cp-size {} (4, 8 or 16)", v.text())),
            },
            _ => return fail(&form(), "cp-size must be an immediate"),
        };
        let cg = mo.has(Mod::Cg);
        if cg && n != 16 {
            return fail(&form(), "cp.async.cg needs cp-size 16");
        }
        let dst = self.space_ptr(&ops[0], Space::Shared)?;
        let src = self.space_ptr(&ops[1], Space::Global)?;
        // The number of source bytes read: src-size, or 0 when ignore-src holds.
        let size = match ops.get(3).filter(|_| nops == 4) {
            None => V::from(n.to_string()),
            Some(o) => {
                let is_pred = match o {
                    Operand::Not(_) => true,
                    Operand::Reg(r) => matches!(self.lookup(r), Some(Local::Reg { bits: 1, .. })),
                    _ => false,
                };
                if is_pred {
                    let p = self.rd(o, Ty::I1, false)?;
                    opv!(self, [&"select i1 ", &p, &", i32 0, i32 ", &n])
                } else {
                    self.rd(o, Ty::I32, false)?
                }
            }
        };
        let ps = ptr_ty(self.space_as(Space::Shared));
        let pg = ptr_ty(self.space_as(Space::Global));
        let f = if self.cx.nv {
            format!("__wp_cp_async_{}_{n}", if cg { "cg" } else { "ca" })
        } else {
            format!("__wp_cp_async_{n}")
        };
        self.declare(&f, "void", &[&ps, &pg, "i32"]);
        linev!(
            self,
            [
                &"call void @",
                &f,
                &"(",
                &ps,
                &" ",
                &dst,
                &", ",
                &pg,
                &" ",
                &src,
                &", i32 ",
                &size,
                &")",
            ]
        );
        Ok(())
    }
}
