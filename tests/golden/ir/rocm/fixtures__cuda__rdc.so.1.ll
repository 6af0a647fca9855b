; wheelport lowering golden: profile rocm, input fixtures__cuda__rdc.so.1
; kernel KernelResult { name: "_Z9init_biasf", outcome: Lowered, params: [ParamLayout { name: "_Z9init_biasf_param_0", offset: 0, size: 4, align: 4 }], notes: [] }
; PTX lowered by wheelport for target rocm
target datalayout = "e-p:64:64-p1:64:64-p2:32:32-p3:32:32-p4:64:64-p5:32:32-p6:32:32-p7:160:256:256:32-p8:128:128-p9:192:256:256:32-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-v2048:2048-n32:64-S32-A5-G1-ni:7:8:9"
target triple = "amdgcn-amd-amdhsa"

@wp_bias_table = addrspace(1) global [256 x i8] zeroinitializer, align 4

define amdgpu_kernel void @_Z9init_biasf(i32 %a0)  {
entry:
  %m1 = alloca [4 x i8], align 4, addrspace(5)
  store i32 %a0, ptr addrspace(5) %m1
  %r1 = alloca i1, addrspace(5)
  %r2 = alloca i1, addrspace(5)
  %r3 = alloca i32, addrspace(5)
  %r4 = alloca i32, addrspace(5)
  %r5 = alloca i32, addrspace(5)
  %r6 = alloca i32, addrspace(5)
  %r7 = alloca i32, addrspace(5)
  %r8 = alloca i32, addrspace(5)
  %r9 = alloca i64, addrspace(5)
  %r10 = alloca i64, addrspace(5)
  %r11 = alloca i64, addrspace(5)
  %r12 = alloca i64, addrspace(5)
  br label %start
start:
  %t1 = load float, ptr addrspace(5) %m1, align 4
  store float %t1, ptr addrspace(5) %r4
  %t2 = call i32 @__wp_sreg_tid_x()
  store i32 %t2, ptr addrspace(5) %r8
  %t3 = load i32, ptr addrspace(5) %r8
  %t4 = icmp sgt i32 %t3, 63
  %t5 = xor i1 %t4, true
  store i1 %t4, ptr addrspace(5) %r2
  %t6 = load i1, ptr addrspace(5) %r2
  br i1 %t6, label %L.$L__BB2_2, label %b1
b1:
  %t7 = load i32, ptr addrspace(5) %r8
  %t8 = sitofp i32 %t7 to float
  store float %t8, ptr addrspace(5) %r5
  %t9 = load float, ptr addrspace(5) %r5
  %t10 = load float, ptr addrspace(5) %r4
  %t11 = fmul float %t9, %t10
  store float %t11, ptr addrspace(5) %r6
  %t12 = load i32, ptr addrspace(5) %r8
  %t13 = sext i32 %t12 to i64
  %t14 = sext i32 4 to i64
  %t15 = mul i64 %t13, %t14
  store i64 %t15, ptr addrspace(5) %r10
  %t16 = ptrtoint ptr addrspace(1) @wp_bias_table to i64
  store i64 %t16, ptr addrspace(5) %r11
  %t17 = load i64, ptr addrspace(5) %r11
  %t18 = load i64, ptr addrspace(5) %r10
  %t19 = add i64 %t17, %t18
  store i64 %t19, ptr addrspace(5) %r12
  %t20 = load i64, ptr addrspace(5) %r12
  %t21 = inttoptr i64 %t20 to ptr addrspace(1)
  %t22 = load float, ptr addrspace(5) %r6
  store float %t22, ptr addrspace(1) %t21, align 4
  br label %L.$L__BB2_2
L.$L__BB2_2:
  br label %ret
ret:
  ret void
}

declare i32 @__wp_sreg_tid_x()
