; wheelport lowering golden: profile cuda, input fixtures/ptx/families/integer.ptx
; kernel KernelResult { name: "integer_ops", outcome: Unsupported { forms: ["fns.b32"], reason: "no lowering for fns.b32" }, params: [ParamLayout { name: "out", offset: 0, size: 8, align: 8 }], notes: [] }
; PTX lowered by wheelport for target cuda
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"


