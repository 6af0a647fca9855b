//! mbarrier objects and bulk asynchronous copies (PTX ISA 9.x §9.7.13.15 `mbarrier`,
//! §9.7.9.25.4 `cp.async.bulk`, §9.7.13.4 `fence.proxy.async`, `fence.mbarrier_init`), as a
//! software mbarrier in shared memory: the same library logic on amdgcn (gfx906 has no
//! hardware mbarrier or TMA) and on nvptx (the `cuda` twin, so that a GPU run checks this
//! logic against the hardware's). The library is `kernels-ir/mbarrier.py` (the mbarrier
//! word's layout, the orderings and the limits are documented there and in docs/lowering.md).
//!
//! Lowered forms (`.sem` `.release`/`.relaxed` on updates, `.acquire`/`.relaxed` on waits,
//! `.scope` `.cta`/`.cluster`; state space `.shared`, `.shared::cta`, `.shared::cluster` or
//! none, a generic address):
//!
//! * `mbarrier.init [a], count` → `@__wp_mbar_init`; `mbarrier.inval [a]` → `@__wp_mbar_inval`;
//! * `mbarrier.arrive{.expect_tx}{.noComplete} state, [a]{, count | txCount}` and
//!   `mbarrier.arrive_drop…` → one `@__wp_mbar_update(a, arrivals, tx, drop)`;
//! * `mbarrier.expect_tx [a], n` / `mbarrier.complete_tx [a], n` → `@__wp_mbar_update(a, 0,
//!   ±n, 0)`;
//! * `mbarrier.test_wait{.parity}` / `mbarrier.try_wait{.parity} p, [a], state|parity
//!   {, suspendTimeHint}` → `@__wp_mbar_{test,try}_wait{_parity}` (the hint is ignored; try_wait
//!   is a bounded spin and may return false, as the ISA allows);
//! * `mbarrier.pending_count r, state` → `@__wp_mbar_pending_count`;
//! * `cp.async.bulk.{shared::cluster,shared::cta}.global.mbarrier::complete_tx::bytes
//!   {.L2::cache_hint} [d], [s], size, [mbar]{, policy}` → `@__wp_bulk_g2s` (a synchronous copy
//!   by the issuing thread, then complete-tx(size)); `cp.async.bulk.shared::cluster.shared::cta
//!   .mbarrier::complete_tx::bytes` → `@__wp_bulk_s2s`;
//!   `cp.async.bulk.global.shared::cta.bulk_group{.L2::cache_hint} [d], [s], size{, policy}` →
//!   `@__wp_bulk_s2g`; `cp.async.bulk.commit_group` and `cp.async.bulk.wait_group{.read} N` →
//!   nothing (every bulk copy is complete when its instruction ends);
//!   `cp.async.bulk.prefetch.L2.global [a], size` → nothing (a hint);
//! * `fence.proxy.async{,.global,.shared::cta,.shared::cluster}` and
//!   `fence.mbarrier_init.release.cluster` → `@__wp_mbar_fence` (a CTA-scope acq_rel fence).
//!
//! Clusters: the cluster is the CTA alone (cluster size 1; gfx906 has no clusters), so a
//! `.shared::cluster` address is the CTA's own shared address. Not lowered (reported):
//! `.multicast::cluster`, `cp.async.bulk.tensor` (it needs the 128-byte `CUtensorMap` tensor-map
//! object, §5.5.8, which this lowering does not interpret), `.cp_mask`, `cp.reduce.async.bulk`.

use super::*;

impl<'c, 'm, 'a> Fx<'c, 'm, 'a> {
    /// Pointer in the shared address space for address operand `o` of state space
    /// `.shared{::cta,::cluster}` (`shared` true) or generic (cast to shared).
    fn mbar_ptr(&mut self, o: &Operand<'a>, shared: bool) -> R<V> {
        let s = if shared {
            Space::Shared
        } else {
            Space::Generic
        };
        self.addr_in(o, s, Space::Shared)
    }

    /// Pointer in the global address space for address operand `o` (`.global`).
    fn bulk_global_ptr(&mut self, o: &Operand<'a>) -> R<V> {
        self.addr_in(o, Space::Global, Space::Global)
    }

    /// Lower one `mbarrier.*` instruction.
    pub(super) fn mbarrier_inst(&mut self, i: &'m Instruction<'a>, mo: &Mods) -> R<()> {
        let ops: &[Operand<'a>] = &i.operands;
        let form = form_of(i);
        let shared = mo.space().is_some_and(|s| {
            matches!(
                s,
                StateSpace::Shared | StateSpace::SharedCta | StateSpace::SharedCluster
            )
        });
        if !mo.has(Mod::B64) {
            return fail(&form, "mbarrier needs .b64");
        }
        let p3 = ptr_ty(self.space_as(Space::Shared));
        let want = |n: &[usize]| -> R<()> {
            if n.contains(&ops.len()) {
                Ok(())
            } else {
                fail(&form, format!("{} operands, expected {n:?}", ops.len()))
            }
        };
        // The operation (`.expect_tx` alone is one too; after `.arrive` it qualifies it).
        let Some(op) = mo.op else {
            return fail(&form, "no lowering for this mbarrier form");
        };
        match op {
            Mod::Init => {
                want(&[2])?;
                let p = self.mbar_ptr(&ops[0], shared)?;
                let c = self.rd(&ops[1], Ty::I32, false)?;
                self.declare("__wp_mbar_init", "void", &[&p3, "i32"]);
                linev!(
                    self,
                    [
                        &"call void @__wp_mbar_init(",
                        &p3,
                        &" ",
                        &p,
                        &", i32 ",
                        &c,
                        &")",
                    ]
                );
                Ok(())
            }
            Mod::Inval => {
                want(&[1])?;
                let p = self.mbar_ptr(&ops[0], shared)?;
                self.declare("__wp_mbar_inval", "void", &[&p3]);
                linev!(self, [&"call void @__wp_mbar_inval(", &p3, &" ", &p, &")"]);
                Ok(())
            }
            Mod::Arrive | Mod::ArriveDrop | Mod::ExpectTx | Mod::CompleteTx => {
                let arrive = matches!(op, Mod::Arrive | Mod::ArriveDrop);
                let tx_op = mo.has(Mod::ExpectTx) || op == Mod::CompleteTx;
                // (state,) [addr] (, count | txCount)
                let (dst, a, extra) = if arrive {
                    if tx_op || mo.has(Mod::NoComplete) {
                        want(&[3])?;
                    } else {
                        want(&[2, 3])?;
                    }
                    (Some(&ops[0]), &ops[1], ops.get(2))
                } else {
                    want(&[2])?;
                    (None, &ops[0], ops.get(1))
                };
                let p = self.mbar_ptr(a, shared)?;
                let n = match extra {
                    Some(o) => self.rd(o, Ty::I32, false)?,
                    None => V::new("1"),
                };
                let (arr, tx) = if !arrive {
                    (V::new("0"), n.clone())
                } else if tx_op {
                    (V::new("1"), n.clone())
                } else {
                    (n.clone(), V::new("0"))
                };
                let tx = if op == Mod::CompleteTx {
                    opv!(self, [&"sub i32 0, ", &tx])
                } else {
                    tx
                };
                let drop = if op == Mod::ArriveDrop { "1" } else { "0" };
                self.declare("__wp_mbar_update", "i64", &[&p3, "i32", "i32", "i32"]);
                let st = opv!(
                    self,
                    [
                        &"call i64 @__wp_mbar_update(",
                        &p3,
                        &" ",
                        &p,
                        &", i32 ",
                        &arr,
                        &", i32 ",
                        &tx,
                        &", i32 ",
                        &drop,
                        &")",
                    ]
                );
                if let Some(d) = dst {
                    self.wr(d, &st, Ty::I64, false)?;
                }
                Ok(())
            }
            Mod::TestWait | Mod::TryWait => {
                let try_ = op == Mod::TryWait;
                want(if try_ { &[3, 4] } else { &[3] })?;
                let p = self.mbar_ptr(&ops[1], shared)?;
                let par = mo.has(Mod::Parity);
                let (t, ty) = if par {
                    (Ty::I32, "i32")
                } else {
                    (Ty::I64, "i64")
                };
                let v = self.rd(&ops[2], t, false)?;
                let f = format!(
                    "__wp_mbar_{}_wait{}",
                    if try_ { "try" } else { "test" },
                    if par { "_parity" } else { "" }
                );
                self.declare(&f, "i1", &[&p3, ty]);
                let r = opv!(
                    self,
                    [
                        &"call i1 @",
                        &f,
                        &"(",
                        &p3,
                        &" ",
                        &p,
                        &", ",
                        &ty,
                        &" ",
                        &v,
                        &")",
                    ]
                );
                self.wr(&ops[0], &r, Ty::I1, false)
            }
            Mod::PendingCount => {
                want(&[2])?;
                let s = self.rd(&ops[1], Ty::I64, false)?;
                let r = self.call("__wp_mbar_pending_count", Ty::I32, &[(Ty::I64, &s)]);
                self.wr(&ops[0], &r, Ty::I32, false)
            }
            _ => fail(&form, "no lowering for this mbarrier form"),
        }
    }

    /// Lower one `cp.async.bulk*` instruction.
    pub(super) fn bulk_inst(&mut self, i: &'m Instruction<'a>, mo: &Mods) -> R<()> {
        let ops: &[Operand<'a>] = &i.operands;
        let form = form_of(i);
        if mo.has(Mod::Tensor) {
            return fail(
                &form,
                "cp.async.bulk.tensor needs the 128-byte CUtensorMap tensor-map object \
                 (PTX ISA §5.5.8), which this lowering does not interpret",
            );
        }
        if mo.has(Mod::MulticastCluster) || mo.has(Mod::MulticastClusterAll) {
            return fail(
                &form,
                "multicast bulk copies need a cluster of several CTAs",
            );
        }
        if mo.has(Mod::CpMask) {
            return fail(&form, "cp.async.bulk with .cp_mask is not lowered");
        }
        if mo.has(Mod::CommitGroup) || mo.has(Mod::WaitGroup) {
            // Every bulk copy is complete when its instruction ends (kernels-ir/mbarrier.py).
            return Ok(());
        }
        if mo.has(Mod::Prefetch) {
            return Ok(()); // an L2 prefetch: a hint
        }
        let hint = mo.has(Mod::L2CacheHint);
        let nops = ops.len() - usize::from(hint);
        let p3 = ptr_ty(self.space_as(Space::Shared));
        let p1 = ptr_ty(self.space_as(Space::Global));
        // The state spaces: the destination's, then the source's.
        let spaces = mo.spaces();
        let dst_shared = matches!(
            spaces.first(),
            Some(StateSpace::SharedCluster | StateSpace::SharedCta)
        );
        if mo.has(Mod::MbarrierCompleteTxBytes) && dst_shared {
            if nops != 4 {
                return fail(&form, format!("{} operands, expected 4", ops.len()));
            }
            let src_global = spaces.get(1) == Some(&StateSpace::Global);
            let src_shared = spaces.get(1) == Some(&StateSpace::SharedCta);
            if !(src_global || src_shared) {
                return fail(&form, "source state space (.global or .shared::cta)");
            }
            let d = self.mbar_ptr(&ops[0], true)?;
            let (s, sty, f) = if src_global {
                (self.bulk_global_ptr(&ops[1])?, p1.clone(), "__wp_bulk_g2s")
            } else {
                (self.mbar_ptr(&ops[1], true)?, p3.clone(), "__wp_bulk_s2s")
            };
            let n = self.rd(&ops[2], Ty::I32, false)?;
            let m = self.mbar_ptr(&ops[3], true)?;
            self.declare(f, "void", &[&p3, &sty, "i32", &p3]);
            linev!(
                self,
                [
                    &"call void @",
                    &f,
                    &"(",
                    &p3,
                    &" ",
                    &d,
                    &", ",
                    &sty,
                    &" ",
                    &s,
                    &", i32 ",
                    &n,
                    &", ",
                    &p3,
                    &" ",
                    &m,
                    &")",
                ]
            );
            return Ok(());
        }
        if mo.has(Mod::BulkGroup) && spaces == [StateSpace::Global, StateSpace::SharedCta] {
            if nops != 3 {
                return fail(&form, format!("{} operands, expected 3", ops.len()));
            }
            let d = self.bulk_global_ptr(&ops[0])?;
            let s = self.mbar_ptr(&ops[1], true)?;
            let n = self.rd(&ops[2], Ty::I32, false)?;
            self.declare("__wp_bulk_s2g", "void", &[&p1, &p3, "i32"]);
            linev!(
                self,
                [
                    &"call void @__wp_bulk_s2g(",
                    &p1,
                    &" ",
                    &d,
                    &", ",
                    &p3,
                    &" ",
                    &s,
                    &", i32 ",
                    &n,
                    &")",
                ]
            );
            return Ok(());
        }
        fail(&form, "no lowering for this cp.async.bulk form")
    }

    /// `fence.proxy.async*` and `fence.mbarrier_init.release.cluster`: a CTA-scope acq_rel
    /// fence (the bulk copies are generic-proxy accesses here; the cluster is the CTA).
    pub(super) fn async_fence(&mut self, i: &'m Instruction<'a>, mo: &Mods) -> R<()> {
        const PROXY: ModSet = ModSet::of(&[
            Mod::Proxy,
            Mod::Async,
            Mod::Global,
            Mod::SharedCta,
            Mod::SharedCluster,
        ]);
        // `.proxy.async` with at most one state space, or `.mbarrier_init.release.cluster`,
        // and nothing else.
        let ok = if mo.has(Mod::Proxy) {
            mo.has(Mod::Async)
                && mo.only(&PROXY)
                && mo.spaces().len() <= 1
                && mo.len() == 2 + mo.spaces().len()
        } else {
            mo.has(Mod::MbarrierInit)
                && mo.sem == Some(Sem::Release)
                && mo.scope == Some(Scope::Cluster)
                && mo.len() == 3
        };
        if !ok {
            return fail(&form_of(i), "proxy fences are not lowered");
        }
        self.call_void("__wp_mbar_fence", &[]);
        Ok(())
    }
}
