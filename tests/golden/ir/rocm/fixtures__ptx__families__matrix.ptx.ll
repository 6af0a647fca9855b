; wheelport lowering golden: profile rocm, input fixtures/ptx/families/matrix.ptx
; kernel KernelResult { name: "matrix_ops", outcome: Unsupported { forms: ["mma.sync.m16n8k16.row.col.f16.f16.f16.f16", "mma.sync.m16n8k8.row.col.f32.tf32.tf32.f32", "mma.sync.m16n8k32.row.col.satfinite.s32.s8.s8.s32", "mma.sync.m16n8k32.row.col.f32.e4m3.e5m2.f32", "mma.sync.m8n8k128.row.col.s32.b1.b1.s32.xor.popc", "mma.sp.sync.m16n8k32.row.col.f32.f16.f16.f32", "mma.sp::ordered_metadata.sync.m16n8k16.row.col.f32.bf16.bf16.f32"], reason: "no lowering for mma.sync.m16n8k16.row.col.f16.f16.f16.f16, mma.sync.m16n8k8.row.col.f32.tf32.tf32.f32, mma.sync.m16n8k32.row.col.satfinite.s32.s8.s8.s32, mma.sync.m16n8k32.row.col.f32.e4m3.e5m2.f32, mma.sync.m8n8k128.row.col.s32.b1.b1.s32.xor.popc, mma.sp.sync.m16n8k32.row.col.f32.f16.f16.f32, mma.sp::ordered_metadata.sync.m16n8k16.row.col.f32.bf16.bf16.f32" }, params: [ParamLayout { name: "out", offset: 0, size: 8, align: 8 }], notes: [] }
; PTX lowered by wheelport for target rocm
target datalayout = "e-p:64:64-p1:64:64-p2:32:32-p3:32:32-p4:64:64-p5:32:32-p6:32:32-p7:160:256:256:32-p8:128:128-p9:192:256:256:32-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-v2048:2048-n32:64-S32-A5-G1-ni:7:8:9"
target triple = "amdgcn-amd-amdhsa"

@tile = internal addrspace(3) global [2048 x i8] poison, align 16

