; wheelport lowering golden: profile cuda, input fixtures__cuda__rdc.so.1
; kernel KernelResult { name: "_Z9init_biasf", outcome: Lowered, params: [ParamLayout { name: "_Z9init_biasf_param_0", offset: 0, size: 4, align: 4 }], notes: [] }
; PTX lowered by wheelport for target cuda
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@wp_bias_table = addrspace(1) global [256 x i8] zeroinitializer, align 4

define ptx_kernel void @_Z9init_biasf(i32 %a0)  {
entry:
  %m1 = alloca [4 x i8], align 4
  store i32 %a0, ptr %m1
  %r1 = alloca i1
  %r2 = alloca i1
  %r3 = alloca i32
  %r4 = alloca i32
  %r5 = alloca i32
  %r6 = alloca i32
  %r7 = alloca i32
  %r8 = alloca i32
  %r9 = alloca i64
  %r10 = alloca i64
  %r11 = alloca i64
  %r12 = alloca i64
  br label %start
start:
  %t1 = load float, ptr %m1, align 4
  store float %t1, ptr %r4
  %t2 = call i32 @__wp_sreg_tid_x()
  store i32 %t2, ptr %r8
  %t3 = load i32, ptr %r8
  %t4 = icmp sgt i32 %t3, 63
  %t5 = xor i1 %t4, true
  store i1 %t4, ptr %r2
  %t6 = load i1, ptr %r2
  br i1 %t6, label %L.$L__BB2_2, label %b1
b1:
  %t7 = load i32, ptr %r8
  %t8 = sitofp i32 %t7 to float
  store float %t8, ptr %r5
  %t9 = load float, ptr %r5
  %t10 = load float, ptr %r4
  %t11 = fmul float %t9, %t10
  store float %t11, ptr %r6
  %t12 = load i32, ptr %r8
  %t13 = sext i32 %t12 to i64
  %t14 = sext i32 4 to i64
  %t15 = mul i64 %t13, %t14
  store i64 %t15, ptr %r10
  %t16 = ptrtoint ptr addrspace(1) @wp_bias_table to i64
  store i64 %t16, ptr %r11
  %t17 = load i64, ptr %r11
  %t18 = load i64, ptr %r10
  %t19 = add i64 %t17, %t18
  store i64 %t19, ptr %r12
  %t20 = load i64, ptr %r12
  %t21 = inttoptr i64 %t20 to ptr addrspace(1)
  %t22 = load float, ptr %r6
  store float %t22, ptr addrspace(1) %t21, align 4
  br label %L.$L__BB2_2
L.$L__BB2_2:
  br label %ret
ret:
  ret void
}

declare i32 @__wp_sreg_tid_x()
