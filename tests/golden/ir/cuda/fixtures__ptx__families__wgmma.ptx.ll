; wheelport lowering golden: profile cuda, input fixtures/ptx/families/wgmma.ptx
; kernel KernelResult { name: "wgmma_ops", outcome: Unsupported { forms: ["wgmma.fence.sync", "wgmma.mma_async.sync.m64n64k16.f32.bf16.bf16", "wgmma.mma_async.sync.m64n64k16.f32.f16.f16", "wgmma.mma_async.sync.m64n64k32.f32.e4m3.e5m2", "wgmma.mma_async.sync.m64n16k8.f32.tf32.tf32", "wgmma.mma_async.sync.m64n32k32.s32.s8.u8", "wgmma.mma_async.sp.sync.m64n16k32.f32.bf16.bf16", "wgmma.commit_group.sync", "wgmma.wait_group.sync"], reason: "no lowering for wgmma.fence.sync, wgmma.mma_async.sync.m64n64k16.f32.bf16.bf16, wgmma.mma_async.sync.m64n64k16.f32.f16.f16, wgmma.mma_async.sync.m64n64k32.f32.e4m3.e5m2, wgmma.mma_async.sync.m64n16k8.f32.tf32.tf32, wgmma.mma_async.sync.m64n32k32.s32.s8.u8, wgmma.mma_async.sp.sync.m64n16k32.f32.bf16.bf16, wgmma.commit_group.sync, wgmma.wait_group.sync" }, params: [ParamLayout { name: "out", offset: 0, size: 8, align: 8 }, ParamLayout { name: "descs", offset: 8, size: 8, align: 8 }], notes: [] }
; PTX lowered by wheelport for target cuda
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"


