; wheelport lowering golden: profile rocm, input fixtures/ptx/families/sregs.ptx
; kernel KernelResult { name: "sregs", outcome: Unsupported { forms: [], reason: "mov.u32: special register %pm0" }, params: [ParamLayout { name: "out", offset: 0, size: 8, align: 8 }], notes: [] }
; PTX lowered by wheelport for target rocm
target datalayout = "e-p:64:64-p1:64:64-p2:32:32-p3:32:32-p4:64:64-p5:32:32-p6:32:32-p7:160:256:256:32-p8:128:128-p9:192:256:256:32-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-v2048:2048-n32:64-S32-A5-G1-ni:7:8:9"
target triple = "amdgcn-amd-amdhsa"


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
