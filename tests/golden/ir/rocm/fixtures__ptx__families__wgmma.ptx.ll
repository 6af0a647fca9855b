; wheelport lowering golden: profile rocm, input fixtures/ptx/families/wgmma.ptx
; kernel KernelResult { name: "wgmma_ops", outcome: Unsupported { forms: ["wgmma.fence.sync", "wgmma.mma_async.sync.m64n64k16.f32.bf16.bf16", "wgmma.mma_async.sync.m64n64k16.f32.f16.f16", "wgmma.mma_async.sync.m64n64k32.f32.e4m3.e5m2", "wgmma.mma_async.sync.m64n16k8.f32.tf32.tf32", "wgmma.mma_async.sync.m64n32k32.s32.s8.u8", "wgmma.mma_async.sp.sync.m64n16k32.f32.bf16.bf16", "wgmma.commit_group.sync", "wgmma.wait_group.sync"], reason: "no lowering for wgmma.fence.sync, wgmma.mma_async.sync.m64n64k16.f32.bf16.bf16, wgmma.mma_async.sync.m64n64k16.f32.f16.f16, wgmma.mma_async.sync.m64n64k32.f32.e4m3.e5m2, wgmma.mma_async.sync.m64n16k8.f32.tf32.tf32, wgmma.mma_async.sync.m64n32k32.s32.s8.u8, wgmma.mma_async.sp.sync.m64n16k32.f32.bf16.bf16, wgmma.commit_group.sync, wgmma.wait_group.sync" }, params: [ParamLayout { name: "out", offset: 0, size: 8, align: 8 }, ParamLayout { name: "descs", offset: 8, size: 8, align: 8 }], notes: [] }
; PTX lowered by wheelport for target rocm
target datalayout = "e-p:64:64-p1:64:64-p2:32:32-p3:32:32-p4:64:64-p5:32:32-p6:32:32-p7:160:256:256:32-p8:128:128-p9:192:256:256:32-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-v2048:2048-n32:64-S32-A5-G1-ni:7:8:9"
target triple = "amdgcn-amd-amdhsa"


