; wheelport lowering golden: profile cuda, input fixtures/ptx/families/directives.ptx
; kernel KernelResult { name: "directives_kernel", outcome: Unsupported { forms: [], reason: "vector registers are not lowered" }, params: [ParamLayout { name: "out", offset: 0, size: 8, align: 8 }, ParamLayout { name: "blob", offset: 16, size: 32, align: 16 }, ParamLayout { name: "n", offset: 48, size: 4, align: 4 }], notes: [] }
; PTX lowered by wheelport for target cuda
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

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

