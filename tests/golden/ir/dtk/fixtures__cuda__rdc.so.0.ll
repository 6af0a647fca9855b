; wheelport lowering golden: profile dtk, input fixtures__cuda__rdc.so.0
; kernel KernelResult { name: "_Z14fused_bias_actPfPKfi", outcome: Unsupported { forms: [], reason: "calls external device function _Z14wp_bias_lookupi (separate compilation); not lowered" }, params: [ParamLayout { name: "_Z14fused_bias_actPfPKfi_param_0", offset: 0, size: 8, align: 8 }, ParamLayout { name: "_Z14fused_bias_actPfPKfi_param_1", offset: 8, size: 8, align: 8 }, ParamLayout { name: "_Z14fused_bias_actPfPKfi_param_2", offset: 16, size: 4, align: 4 }], notes: [] }
; PTX lowered by wheelport for target dtk
target datalayout = "e-p:64:64-p1:64:64-p2:32:32-p3:32:32-p4:64:64-p5:32:32-p6:32:32-p7:160:256:256:32-p8:128:128-p9:192:256:256:32-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-v2048:2048-n32:64-S32-A5-G1-ni:7:8:9"
target triple = "amdgcn-amd-amdhsa"


