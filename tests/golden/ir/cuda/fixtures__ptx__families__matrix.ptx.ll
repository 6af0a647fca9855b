; wheelport lowering golden: profile cuda, input fixtures/ptx/families/matrix.ptx
; kernel KernelResult { name: "matrix_ops", outcome: Unsupported { forms: ["mma.sync.m16n8k16.row.col.f16.f16.f16.f16", "mma.sync.m16n8k8.row.col.f32.tf32.tf32.f32", "mma.sync.m16n8k32.row.col.satfinite.s32.s8.s8.s32", "mma.sync.m16n8k32.row.col.f32.e4m3.e5m2.f32", "mma.sync.m8n8k128.row.col.s32.b1.b1.s32.xor.popc", "mma.sp.sync.m16n8k32.row.col.f32.f16.f16.f32", "mma.sp::ordered_metadata.sync.m16n8k16.row.col.f32.bf16.bf16.f32"], reason: "no lowering for mma.sync.m16n8k16.row.col.f16.f16.f16.f16, mma.sync.m16n8k8.row.col.f32.tf32.tf32.f32, mma.sync.m16n8k32.row.col.satfinite.s32.s8.s8.s32, mma.sync.m16n8k32.row.col.f32.e4m3.e5m2.f32, mma.sync.m8n8k128.row.col.s32.b1.b1.s32.xor.popc, mma.sp.sync.m16n8k32.row.col.f32.f16.f16.f32, mma.sp::ordered_metadata.sync.m16n8k16.row.col.f32.bf16.bf16.f32" }, params: [ParamLayout { name: "out", offset: 0, size: 8, align: 8 }], notes: [] }
; PTX lowered by wheelport for target cuda
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@tile = internal addrspace(3) global [2048 x i8] poison, align 16

