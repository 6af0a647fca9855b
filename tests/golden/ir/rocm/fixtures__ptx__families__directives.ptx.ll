; wheelport lowering golden: profile rocm, input fixtures/ptx/families/directives.ptx
; kernel KernelResult { name: "directives_kernel", outcome: Unsupported { forms: [], reason: "vector registers are not lowered" }, params: [ParamLayout { name: "out", offset: 0, size: 8, align: 8 }, ParamLayout { name: "blob", offset: 16, size: 32, align: 16 }, ParamLayout { name: "n", offset: 48, size: 4, align: 4 }], notes: [] }
; PTX lowered by wheelport for target rocm
target datalayout = "e-p:64:64-p1:64:64-p2:32:32-p3:32:32-p4:64:64-p5:32:32-p6:32:32-p7:160:256:256:32-p8:128:128-p9:192:256:256:32-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-v2048:2048-n32:64-S32-A5-G1-ni:7:8:9"
target triple = "amdgcn-amd-amdhsa"

@vis = addrspace(1) global [4 x i8] c"\05\00\00\00", align 4
@weakv = weak addrspace(1) global [4 x i8] c"\01\00\00\00", align 4
@commonv = common addrspace(1) global [4 x i8] zeroinitializer, align 4
@mat = addrspace(1) global [24 x i8] c"\01\00\00\00\02\00\00\00\03\00\00\00\04\00\00\00\FB\FF\FF\FF\06\00\00\00", align 4
@ptrs = addrspace(1) global <{ i64, i64, [8 x i8] }> <{ i64 ptrtoint (ptr addrspacecast (ptr addrspace(1) @vis to ptr) to i64), i64 ptrtoint (ptr addrspace(1) getelementptr (i8, ptr addrspace(1) @vis, i64 4) to i64), [8 x i8] zeroinitializer }>, align 8
@fnptr = addrspace(1) global [8 x i8] zeroinitializer, align 8
@cv = addrspace(4) externally_initialized global [16 x i8] c"\00\00\80\3F\00\00\00\40\00\00\40\40\00\00\80\40", align 16
@managed_v = addrspace(1) global [4 x i8] zeroinitializer, align 4
@msg = addrspace(1) global [3 x i8] c"hi\00", align 1
@dyn_smem = external addrspace(3) global [0 x i8], align 16

