; wheelport lowering golden: profile cuda, input fixtures/ptx/families/texture_independent.ptx
; kernel KernelResult { name: "tex_independent", outcome: Unsupported { forms: ["tex.2d.v4.f32.f32", "txq.filter_mode.b32", "txq.addr_mode_0.b32"], reason: "no lowering for tex.2d.v4.f32.f32, txq.filter_mode.b32, txq.addr_mode_0.b32" }, params: [ParamLayout { name: "out", offset: 0, size: 8, align: 8 }], notes: [] }
; PTX lowered by wheelport for target cuda
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"


