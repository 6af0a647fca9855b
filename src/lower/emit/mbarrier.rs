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
    /// Declare `void @name` and call it with `args` (each an LLVM type and a value).
    fn call_void_args(&mut self, name: &str, args: &[(&str, &str)]) {
        let tys: Vec<&str> = args.iter().map(|a| a.0).collect();
        self.declare(name, "void", &tys);
        let a: Vec<String> = args.iter().map(|(t, v)| format!("{t} {v}")).collect();
        let _ = writeln!(self.body, "  call void @{name}({})", a.join(", "));
    }

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
                self.call_void_args("__wp_mbar_init", &[(&p3, &p), ("i32", &c)]);
                Ok(())
            }
            Mod::Inval => {
                want(&[1])?;
                let p = self.mbar_ptr(&ops[0], shared)?;
                self.call_void_args("__wp_mbar_inval", &[(&p3, &p)]);
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
            let src_global = spaces.get(1) == Some(&StateSpace::Global);
            let src_shared = spaces.get(1) == Some(&StateSpace::SharedCta);
            if !(src_global || src_shared) {
                return fail(&form, "source state space (.global or .shared::cta)");
            }
            if mo.has(Mod::IgnoreOob) {
                // [dst], [src], size, ignoreBytesLeft, ignoreBytesRight, [mbar]: the ignored
                // source bytes are not read, their destination bytes keep their values (the
                // ISA leaves them indeterminate); complete-tx counts all `size` bytes.
                if nops != 6 || !src_global {
                    return fail(&form, ".ignore_oob: 6 operands, a .global source");
                }
                let d = self.mbar_ptr(&ops[0], true)?;
                let s = self.bulk_global_ptr(&ops[1])?;
                let n = self.rd(&ops[2], Ty::I32, false)?;
                let l = self.rd(&ops[3], Ty::I32, false)?;
                let r = self.rd(&ops[4], Ty::I32, false)?;
                let m = self.mbar_ptr(&ops[5], true)?;
                self.call_void_args(
                    "__wp_bulk_g2s_oob",
                    &[
                        (&p3, &d),
                        (&p1, &s),
                        ("i32", &n),
                        ("i32", &l),
                        ("i32", &r),
                        (&p3, &m),
                    ],
                );
                return Ok(());
            }
            if nops != 4 {
                return fail(&form, format!("{} operands, expected 4", ops.len()));
            }
            let d = self.mbar_ptr(&ops[0], true)?;
            let (s, sty, f) = if src_global {
                (self.bulk_global_ptr(&ops[1])?, p1.clone(), "__wp_bulk_g2s")
            } else {
                (self.mbar_ptr(&ops[1], true)?, p3.clone(), "__wp_bulk_s2s")
            };
            let n = self.rd(&ops[2], Ty::I32, false)?;
            let m = self.mbar_ptr(&ops[3], true)?;
            self.call_void_args(f, &[(&p3, &d), (&sty, &s), ("i32", &n), (&p3, &m)]);
            return Ok(());
        }
        if mo.has(Mod::BulkGroup) && spaces == [StateSpace::Global, StateSpace::SharedCta] {
            // [dst], [src], size {, cache-policy} {, byteMask}
            let masked = mo.has(Mod::CpMask);
            if ops.len() != 3 + usize::from(hint) + usize::from(masked) {
                return fail(&form, format!("{} operands", ops.len()));
            }
            let d = self.bulk_global_ptr(&ops[0])?;
            let s = self.mbar_ptr(&ops[1], true)?;
            let n = self.rd(&ops[2], Ty::I32, false)?;
            if masked {
                // Byte i of every 16-byte chunk is copied when bit i of byteMask is set.
                let k = self.rd(&ops[ops.len() - 1], Ty::I16, false)?;
                self.call_void_args(
                    "__wp_bulk_s2g_mask",
                    &[(&p1, &d), (&p3, &s), ("i32", &n), ("i16", &k)],
                );
                return Ok(());
            }
            self.call_void_args("__wp_bulk_s2g", &[(&p1, &d), (&p3, &s), ("i32", &n)]);
            return Ok(());
        }
        fail(&form, "no lowering for this cp.async.bulk form")
    }

    /// `clusterlaunchcontrol.*` (PTX ISA 9.x §9.7.13.17). The targets have no cluster launch
    /// control, so a `try_cancel` request never cancels a CTA (the ISA allows any request to
    /// fail): it writes the 16-byte response "not canceled" (zeros, a layout of ours; the
    /// ISA's is opaque) and performs complete-tx(16) on the mbarrier. `query_cancel
    /// .is_canceled` is therefore false, and `.get_first_ctaid*` (whose result the ISA
    /// leaves undefined for a response that did not cancel) gives 0.
    pub(super) fn clc_inst(&mut self, i: &'m Instruction<'a>, mo: &Mods) -> R<()> {
        let ops: &[Operand<'a>] = &i.operands;
        let form = form_of(i);
        if mo.has(Mod::TryCancel) {
            let space_ok = matches!(mo.spaces(), [StateSpace::SharedCta] | []);
            if !(mo.has(Mod::Async) && mo.has(Mod::MbarrierCompleteTxBytes) && space_ok)
                || ops.len() != 2
            {
                return fail(&form, "try_cancel form");
            }
            // `.multicast::cluster::all`: the response goes to every CTA of the cluster,
            // which is this CTA alone.
            let shared = !mo.spaces().is_empty();
            let r = self.mbar_ptr(&ops[0], shared)?;
            let m = self.mbar_ptr(&ops[1], shared)?;
            let p3 = ptr_ty(self.space_as(Space::Shared));
            self.call_void_args("__wp_clc_try_cancel", &[(&p3, &r), (&p3, &m)]);
            return Ok(());
        }
        if !mo.has(Mod::QueryCancel) || ops.len() != 2 {
            return fail(&form, "clusterlaunchcontrol form");
        }
        // Read the response (a .b128 operand) so that its definition is checked.
        self.rd(&ops[1], Ty::I128, false)?;
        if mo.has(Mod::IsCanceled) {
            return self.wr(&ops[0], "false", Ty::I1, false);
        }
        if mo.has(Mod::GetFirstCtaid) && mo.vec == Some(4) {
            let Operand::Vector(v) = &ops[0] else {
                return fail(&form, ".v4 destination");
            };
            for e in v.iter().filter(|e| !matches!(e, Operand::Sink)) {
                self.wr(e, "0", Ty::I32, false)?;
            }
            return Ok(());
        }
        if mo.has(Mod::GetFirstCtaidX) || mo.has(Mod::GetFirstCtaidY) || mo.has(Mod::GetFirstCtaidZ)
        {
            return self.wr(&ops[0], "0", Ty::I32, false);
        }
        fail(&form, "query_cancel form")
    }

    /// `barrier.cluster.arrive{.release,.relaxed}{.aligned}` and
    /// `barrier.cluster.wait{.acquire}{.aligned}` (PTX ISA 9.x §9.7.13.2). The cluster is the
    /// CTA alone, so the pair is one CTA barrier, placed at the `wait` (a CTA barrier orders
    /// memory as release-arrive plus acquire-wait do); the `arrive` does nothing. A thread
    /// that waits, between its arrive and its wait, for another thread's work done after that
    /// thread's wait would deadlock here and not on a GPU: CUB's uses have no such wait.
    pub(super) fn cluster_barrier(&mut self, i: &'m Instruction<'a>, mo: &Mods) -> R<()> {
        const OK: ModSet = ModSet::of(&[
            Mod::Cluster,
            Mod::Arrive,
            Mod::Wait,
            Mod::Aligned,
            Mod::Release,
            Mod::Relaxed,
            Mod::Acquire,
        ]);
        let sem_ok = match (mo.has(Mod::Arrive), mo.sem) {
            (true, None | Some(Sem::Release | Sem::Relaxed)) => true,
            (false, None | Some(Sem::Acquire)) => mo.has(Mod::Wait),
            _ => false,
        };
        let ok = sem_ok
            && mo.only(&OK)
            && mo.has(Mod::Arrive) != mo.has(Mod::Wait)
            && i.operands.is_empty();
        if !ok {
            return fail(&form_of(i), "barrier.cluster form");
        }
        if mo.has(Mod::Wait) {
            self.call_void("__wp_bar_sync", &[(Ty::I32, "0")]);
        }
        Ok(())
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
