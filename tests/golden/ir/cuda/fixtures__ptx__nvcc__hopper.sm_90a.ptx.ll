; wheelport lowering golden: profile cuda, input fixtures/ptx/nvcc/hopper.sm_90a.ptx
; kernel KernelResult { name: "_Z6hopperPj", outcome: Unsupported { forms: [], reason: "mov.u32: special register %cluster_ctarank" }, params: [ParamLayout { name: "_Z6hopperPj_param_0", offset: 0, size: 8, align: 8 }], notes: [] }
; PTX lowered by wheelport for target cuda
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@__wp_fvar.1._ZZ6hopperPjE3bar = internal addrspace(3) global [8 x i8] poison, align 8

