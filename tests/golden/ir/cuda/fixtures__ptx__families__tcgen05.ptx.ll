; wheelport lowering golden: profile cuda, input fixtures/ptx/families/tcgen05.ptx
; kernel KernelResult { name: "tcgen05_ops", outcome: Unsupported { forms: ["tcgen05.alloc.cta_group::1.sync.shared::cta.b32", "tcgen05.relinquish_alloc_permit.cta_group::1.sync", "tcgen05.ld.sync.32x32b.x2.b32", "tcgen05.wait::ld.sync", "tcgen05.st.sync.32x32b.x2.b32", "tcgen05.wait::st.sync", "tcgen05.cp.cta_group::1.128x256b", "tcgen05.shift.cta_group::1.down", "tcgen05.mma.cta_group::1.kind::f16", "tcgen05.mma.cta_group::1.kind::tf32", "tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64", "tcgen05.fence::before_thread_sync", "tcgen05.fence::after_thread_sync", "tcgen05.dealloc.cta_group::1.sync.b32", "redux.sync.min.abs.NaN.f32", "st.bulk.weak.shared::cta", "cvt.rn.satfinite.e2m1x2.f32", "add.rn.f32x2", "fma.rn.f32x2"], reason: "no lowering for tcgen05.alloc.cta_group::1.sync.shared::cta.b32, tcgen05.relinquish_alloc_permit.cta_group::1.sync, tcgen05.ld.sync.32x32b.x2.b32, tcgen05.wait::ld.sync, tcgen05.st.sync.32x32b.x2.b32, tcgen05.wait::st.sync, tcgen05.cp.cta_group::1.128x256b, tcgen05.shift.cta_group::1.down, tcgen05.mma.cta_group::1.kind::f16, tcgen05.mma.cta_group::1.kind::tf32, tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64, tcgen05.fence::before_thread_sync, tcgen05.fence::after_thread_sync, tcgen05.dealloc.cta_group::1.sync.b32, redux.sync.min.abs.NaN.f32, st.bulk.weak.shared::cta, cvt.rn.satfinite.e2m1x2.f32, add.rn.f32x2, fma.rn.f32x2" }, params: [ParamLayout { name: "out", offset: 0, size: 8, align: 8 }, ParamLayout { name: "descs", offset: 8, size: 8, align: 8 }], notes: [] }
; PTX lowered by wheelport for target cuda
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@mbar = internal addrspace(3) global [8 x i8] poison, align 8
@tslot = internal addrspace(3) global [4 x i8] poison, align 16
@resp = internal addrspace(3) global [16 x i8] poison, align 16

