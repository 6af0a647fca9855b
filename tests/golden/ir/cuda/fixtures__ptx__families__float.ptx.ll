; wheelport lowering golden: profile cuda, input fixtures/ptx/families/float.ptx
; kernel KernelResult { name: "float_ops", outcome: Unsupported { forms: ["max.xorsign.abs.f32", "mul.ftz.f16", "tanh.approx.bf16x2", "ex2.approx.ftz.bf16"], reason: "no lowering for max.xorsign.abs.f32, mul.ftz.f16, tanh.approx.bf16x2, ex2.approx.ftz.bf16" }, params: [ParamLayout { name: "out", offset: 0, size: 8, align: 8 }], notes: [] }
; PTX lowered by wheelport for target cuda
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"


