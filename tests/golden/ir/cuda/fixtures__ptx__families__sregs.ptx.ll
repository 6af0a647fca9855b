; wheelport lowering golden: profile cuda, input fixtures/ptx/families/sregs.ptx
; kernel KernelResult { name: "sregs", outcome: Unsupported { forms: [], reason: "mov.u32: special register %pm0" }, params: [ParamLayout { name: "out", offset: 0, size: 8, align: 8 }], notes: [] }
; PTX lowered by wheelport for target cuda
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"


declare i32 @__wp_sreg_clock()
declare i64 @__wp_sreg_clock64()
declare i32 @__wp_sreg_clock_hi()
declare i32 @__wp_sreg_ctaid_x()
declare i64 @__wp_sreg_gridid()
declare i32 @__wp_sreg_laneid()
declare i32 @__wp_sreg_lanemask_eq()
declare i32 @__wp_sreg_lanemask_ge()
declare i32 @__wp_sreg_lanemask_gt()
declare i32 @__wp_sreg_lanemask_le()
declare i32 @__wp_sreg_lanemask_lt()
declare i32 @__wp_sreg_nctaid_y()
declare i32 @__wp_sreg_nsmid()
declare i32 @__wp_sreg_ntid_x()
declare i32 @__wp_sreg_nwarpid()
declare i32 @__wp_sreg_smid()
declare i32 @__wp_sreg_tid_x()
declare i32 @__wp_sreg_tid_y()
declare i32 @__wp_sreg_tid_z()
declare i32 @__wp_sreg_warpid()
