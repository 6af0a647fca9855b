; wheelport lowering golden: profile cuda, input fixtures__cuda__rdc.so.0
; kernel KernelResult { name: "_Z14fused_bias_actPfPKfi", outcome: Unsupported { forms: [], reason: "calls external device function _Z14wp_bias_lookupi (separate compilation); not lowered" }, params: [ParamLayout { name: "_Z14fused_bias_actPfPKfi_param_0", offset: 0, size: 8, align: 8 }, ParamLayout { name: "_Z14fused_bias_actPfPKfi_param_1", offset: 8, size: 8, align: 8 }, ParamLayout { name: "_Z14fused_bias_actPfPKfi_param_2", offset: 16, size: 4, align: 4 }], notes: [] }
; PTX lowered by wheelport for target cuda
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"


