; wheelport lowering golden: profile dtk, input fixtures__cuda__multi_tu.so.1
; kernel KernelResult { name: "_Z10map_kernelIfN2wp4ReluEEvPT_PKS2_iT0_", outcome: Lowered, params: [ParamLayout { name: "_Z10map_kernelIfN2wp4ReluEEvPT_PKS2_iT0__param_0", offset: 0, size: 8, align: 8 }, ParamLayout { name: "_Z10map_kernelIfN2wp4ReluEEvPT_PKS2_iT0__param_1", offset: 8, size: 8, align: 8 }, ParamLayout { name: "_Z10map_kernelIfN2wp4ReluEEvPT_PKS2_iT0__param_2", offset: 16, size: 4, align: 4 }, ParamLayout { name: "_Z10map_kernelIfN2wp4ReluEEvPT_PKS2_iT0__param_3", offset: 20, size: 1, align: 1 }], notes: [] }
; kernel KernelResult { name: "_Z10map_kernelIiN2wp6SquareEEvPT_PKS2_iT0_", outcome: Lowered, params: [ParamLayout { name: "_Z10map_kernelIiN2wp6SquareEEvPT_PKS2_iT0__param_0", offset: 0, size: 8, align: 8 }, ParamLayout { name: "_Z10map_kernelIiN2wp6SquareEEvPT_PKS2_iT0__param_1", offset: 8, size: 8, align: 8 }, ParamLayout { name: "_Z10map_kernelIiN2wp6SquareEEvPT_PKS2_iT0__param_2", offset: 16, size: 4, align: 4 }, ParamLayout { name: "_Z10map_kernelIiN2wp6SquareEEvPT_PKS2_iT0__param_3", offset: 20, size: 1, align: 1 }], notes: [] }
; kernel KernelResult { name: "_Z10scale_biasIfLi4EEvPT_PKS0_S0_S0_i", outcome: Lowered, params: [ParamLayout { name: "_Z10scale_biasIfLi4EEvPT_PKS0_S0_S0_i_param_0", offset: 0, size: 8, align: 8 }, ParamLayout { name: "_Z10scale_biasIfLi4EEvPT_PKS0_S0_S0_i_param_1", offset: 8, size: 8, align: 8 }, ParamLayout { name: "_Z10scale_biasIfLi4EEvPT_PKS0_S0_S0_i_param_2", offset: 16, size: 4, align: 4 }, ParamLayout { name: "_Z10scale_biasIfLi4EEvPT_PKS0_S0_S0_i_param_3", offset: 20, size: 4, align: 4 }, ParamLayout { name: "_Z10scale_biasIfLi4EEvPT_PKS0_S0_S0_i_param_4", offset: 24, size: 4, align: 4 }], notes: [] }
; kernel KernelResult { name: "_Z10scale_biasIdLi2EEvPT_PKS0_S0_S0_i", outcome: Lowered, params: [ParamLayout { name: "_Z10scale_biasIdLi2EEvPT_PKS0_S0_S0_i_param_0", offset: 0, size: 8, align: 8 }, ParamLayout { name: "_Z10scale_biasIdLi2EEvPT_PKS0_S0_S0_i_param_1", offset: 8, size: 8, align: 8 }, ParamLayout { name: "_Z10scale_biasIdLi2EEvPT_PKS0_S0_S0_i_param_2", offset: 16, size: 8, align: 8 }, ParamLayout { name: "_Z10scale_biasIdLi2EEvPT_PKS0_S0_S0_i_param_3", offset: 24, size: 8, align: 8 }, ParamLayout { name: "_Z10scale_biasIdLi2EEvPT_PKS0_S0_S0_i_param_4", offset: 32, size: 4, align: 4 }], notes: [] }
; PTX lowered by wheelport for target dtk
target datalayout = "e-p:64:64-p1:64:64-p2:32:32-p3:32:32-p4:64:64-p5:32:32-p6:32:32-p7:160:256:256:32-p8:128:128-p9:192:256:256:32-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-v2048:2048-n32:64-S32-A5-G1-ni:7:8:9"
target triple = "amdgcn-amd-amdhsa"


define amdgpu_kernel void @_Z10map_kernelIfN2wp4ReluEEvPT_PKS2_iT0_(i64 %a0, i64 %a1, i32 %a2, ptr addrspace(4) byref([1 x i8]) align 1 %a3)  {
entry:
  %m1 = alloca [8 x i8], align 8, addrspace(5)
  store i64 %a0, ptr addrspace(5) %m1
  %m2 = alloca [8 x i8], align 8, addrspace(5)
  store i64 %a1, ptr addrspace(5) %m2
  %m3 = alloca [4 x i8], align 4, addrspace(5)
  store i32 %a2, ptr addrspace(5) %m3
  %r3 = alloca i1, addrspace(5)
  %r4 = alloca i1, addrspace(5)
  %r5 = alloca i1, addrspace(5)
  %r6 = alloca i32, addrspace(5)
  %r7 = alloca i32, addrspace(5)
  %r8 = alloca i32, addrspace(5)
  %r9 = alloca i32, addrspace(5)
  %r10 = alloca i32, addrspace(5)
  %r11 = alloca i32, addrspace(5)
  %r12 = alloca i32, addrspace(5)
  %r13 = alloca i32, addrspace(5)
  %r14 = alloca i32, addrspace(5)
  %r15 = alloca i32, addrspace(5)
  %r16 = alloca i32, addrspace(5)
  %r17 = alloca i32, addrspace(5)
  %r18 = alloca i32, addrspace(5)
  %r19 = alloca i32, addrspace(5)
  %r20 = alloca i64, addrspace(5)
  %r21 = alloca i64, addrspace(5)
  %r22 = alloca i64, addrspace(5)
  %r23 = alloca i64, addrspace(5)
  %r24 = alloca i64, addrspace(5)
  %r25 = alloca i64, addrspace(5)
  %r26 = alloca i64, addrspace(5)
  %r27 = alloca i64, addrspace(5)
  br label %start
start:
  %t1 = load i64, ptr addrspace(5) %m1, align 8
  store i64 %t1, ptr addrspace(5) %r23
  %t2 = load i64, ptr addrspace(5) %m2, align 8
  store i64 %t2, ptr addrspace(5) %r24
  %t3 = load i32, ptr addrspace(5) %m3, align 4
  store i32 %t3, ptr addrspace(5) %r15
  %t4 = call i32 @__wp_sreg_ntid_x()
  store i32 %t4, ptr addrspace(5) %r10
  %t5 = call i32 @__wp_sreg_ctaid_x()
  store i32 %t5, ptr addrspace(5) %r16
  %t6 = call i32 @__wp_sreg_tid_x()
  store i32 %t6, ptr addrspace(5) %r17
  %t7 = load i32, ptr addrspace(5) %r16
  %t8 = load i32, ptr addrspace(5) %r10
  %t9 = mul i32 %t7, %t8
  %t10 = load i32, ptr addrspace(5) %r17
  %t11 = add i32 %t9, %t10
  store i32 %t11, ptr addrspace(5) %r19
  %t12 = load i32, ptr addrspace(5) %r19
  %t13 = load i32, ptr addrspace(5) %r15
  %t14 = icmp sge i32 %t12, %t13
  %t15 = xor i1 %t14, true
  store i1 %t14, ptr addrspace(5) %r4
  %t16 = load i1, ptr addrspace(5) %r4
  br i1 %t16, label %L.$L__BB0_3, label %b1
b1:
  %t17 = call i32 @__wp_sreg_nctaid_x()
  store i32 %t17, ptr addrspace(5) %r18
  %t18 = load i32, ptr addrspace(5) %r18
  %t19 = load i32, ptr addrspace(5) %r10
  %t20 = mul i32 %t18, %t19
  store i32 %t20, ptr addrspace(5) %r12
  %t21 = load i64, ptr addrspace(5) %r24
  %t22 = inttoptr i64 %t21 to ptr
  %t23 = addrspacecast ptr %t22 to ptr addrspace(1)
  %t24 = ptrtoint ptr addrspace(1) %t23 to i64
  store i64 %t24, ptr addrspace(5) %r21
  %t25 = load i64, ptr addrspace(5) %r23
  %t26 = inttoptr i64 %t25 to ptr
  %t27 = addrspacecast ptr %t26 to ptr addrspace(1)
  %t28 = ptrtoint ptr addrspace(1) %t27 to i64
  store i64 %t28, ptr addrspace(5) %r22
  br label %L.$L__BB0_2
L.$L__BB0_2:
  %t29 = load i32, ptr addrspace(5) %r19
  %t30 = sext i32 %t29 to i64
  %t31 = sext i32 4 to i64
  %t32 = mul i64 %t30, %t31
  store i64 %t32, ptr addrspace(5) %r25
  %t33 = load i64, ptr addrspace(5) %r21
  %t34 = load i64, ptr addrspace(5) %r25
  %t35 = add i64 %t33, %t34
  store i64 %t35, ptr addrspace(5) %r26
  %t36 = load i64, ptr addrspace(5) %r26
  %t37 = inttoptr i64 %t36 to ptr addrspace(1)
  %t38 = load float, ptr addrspace(1) %t37, align 4
  store float %t38, ptr addrspace(5) %r7
  %t39 = load float, ptr addrspace(5) %r7
  %t40 = call float @llvm.maxnum.f32(float %t39, float 0x0000000000000000)
  store float %t40, ptr addrspace(5) %r8
  %t41 = load i64, ptr addrspace(5) %r22
  %t42 = load i64, ptr addrspace(5) %r25
  %t43 = add i64 %t41, %t42
  store i64 %t43, ptr addrspace(5) %r27
  %t44 = load i64, ptr addrspace(5) %r27
  %t45 = inttoptr i64 %t44 to ptr addrspace(1)
  %t46 = load float, ptr addrspace(5) %r8
  store float %t46, ptr addrspace(1) %t45, align 4
  %t47 = load i32, ptr addrspace(5) %r19
  %t48 = load i32, ptr addrspace(5) %r12
  %t49 = add i32 %t47, %t48
  store i32 %t49, ptr addrspace(5) %r19
  %t50 = load i32, ptr addrspace(5) %r19
  %t51 = load i32, ptr addrspace(5) %r15
  %t52 = icmp slt i32 %t50, %t51
  %t53 = xor i1 %t52, true
  store i1 %t52, ptr addrspace(5) %r5
  %t54 = load i1, ptr addrspace(5) %r5
  br i1 %t54, label %L.$L__BB0_2, label %b2
b2:
  br label %L.$L__BB0_3
L.$L__BB0_3:
  br label %ret
ret:
  ret void
}

define amdgpu_kernel void @_Z10map_kernelIiN2wp6SquareEEvPT_PKS2_iT0_(i64 %a0, i64 %a1, i32 %a2, ptr addrspace(4) byref([1 x i8]) align 1 %a3)  {
entry:
  %m1 = alloca [8 x i8], align 8, addrspace(5)
  store i64 %a0, ptr addrspace(5) %m1
  %m2 = alloca [8 x i8], align 8, addrspace(5)
  store i64 %a1, ptr addrspace(5) %m2
  %m3 = alloca [4 x i8], align 4, addrspace(5)
  store i32 %a2, ptr addrspace(5) %m3
  %r3 = alloca i1, addrspace(5)
  %r4 = alloca i1, addrspace(5)
  %r5 = alloca i1, addrspace(5)
  %r6 = alloca i32, addrspace(5)
  %r7 = alloca i32, addrspace(5)
  %r8 = alloca i32, addrspace(5)
  %r9 = alloca i32, addrspace(5)
  %r10 = alloca i32, addrspace(5)
  %r11 = alloca i32, addrspace(5)
  %r12 = alloca i32, addrspace(5)
  %r13 = alloca i32, addrspace(5)
  %r14 = alloca i32, addrspace(5)
  %r15 = alloca i32, addrspace(5)
  %r16 = alloca i32, addrspace(5)
  %r17 = alloca i32, addrspace(5)
  %r18 = alloca i32, addrspace(5)
  %r19 = alloca i64, addrspace(5)
  %r20 = alloca i64, addrspace(5)
  %r21 = alloca i64, addrspace(5)
  %r22 = alloca i64, addrspace(5)
  %r23 = alloca i64, addrspace(5)
  %r24 = alloca i64, addrspace(5)
  %r25 = alloca i64, addrspace(5)
  %r26 = alloca i64, addrspace(5)
  br label %start
start:
  %t1 = load i64, ptr addrspace(5) %m1, align 8
  store i64 %t1, ptr addrspace(5) %r22
  %t2 = load i64, ptr addrspace(5) %m2, align 8
  store i64 %t2, ptr addrspace(5) %r23
  %t3 = load i32, ptr addrspace(5) %m3, align 4
  store i32 %t3, ptr addrspace(5) %r12
  %t4 = call i32 @__wp_sreg_ntid_x()
  store i32 %t4, ptr addrspace(5) %r7
  %t5 = call i32 @__wp_sreg_ctaid_x()
  store i32 %t5, ptr addrspace(5) %r13
  %t6 = call i32 @__wp_sreg_tid_x()
  store i32 %t6, ptr addrspace(5) %r14
  %t7 = load i32, ptr addrspace(5) %r13
  %t8 = load i32, ptr addrspace(5) %r7
  %t9 = mul i32 %t7, %t8
  %t10 = load i32, ptr addrspace(5) %r14
  %t11 = add i32 %t9, %t10
  store i32 %t11, ptr addrspace(5) %r18
  %t12 = load i32, ptr addrspace(5) %r18
  %t13 = load i32, ptr addrspace(5) %r12
  %t14 = icmp sge i32 %t12, %t13
  %t15 = xor i1 %t14, true
  store i1 %t14, ptr addrspace(5) %r4
  %t16 = load i1, ptr addrspace(5) %r4
  br i1 %t16, label %L.$L__BB1_3, label %b1
b1:
  %t17 = call i32 @__wp_sreg_nctaid_x()
  store i32 %t17, ptr addrspace(5) %r15
  %t18 = load i32, ptr addrspace(5) %r15
  %t19 = load i32, ptr addrspace(5) %r7
  %t20 = mul i32 %t18, %t19
  store i32 %t20, ptr addrspace(5) %r9
  %t21 = load i64, ptr addrspace(5) %r23
  %t22 = inttoptr i64 %t21 to ptr
  %t23 = addrspacecast ptr %t22 to ptr addrspace(1)
  %t24 = ptrtoint ptr addrspace(1) %t23 to i64
  store i64 %t24, ptr addrspace(5) %r20
  %t25 = load i64, ptr addrspace(5) %r22
  %t26 = inttoptr i64 %t25 to ptr
  %t27 = addrspacecast ptr %t26 to ptr addrspace(1)
  %t28 = ptrtoint ptr addrspace(1) %t27 to i64
  store i64 %t28, ptr addrspace(5) %r21
  br label %L.$L__BB1_2
L.$L__BB1_2:
  %t29 = load i32, ptr addrspace(5) %r18
  %t30 = sext i32 %t29 to i64
  %t31 = sext i32 4 to i64
  %t32 = mul i64 %t30, %t31
  store i64 %t32, ptr addrspace(5) %r24
  %t33 = load i64, ptr addrspace(5) %r20
  %t34 = load i64, ptr addrspace(5) %r24
  %t35 = add i64 %t33, %t34
  store i64 %t35, ptr addrspace(5) %r25
  %t36 = load i64, ptr addrspace(5) %r25
  %t37 = inttoptr i64 %t36 to ptr addrspace(1)
  %t38 = load i32, ptr addrspace(1) %t37, align 4
  store i32 %t38, ptr addrspace(5) %r16
  %t39 = load i32, ptr addrspace(5) %r16
  %t40 = load i32, ptr addrspace(5) %r16
  %t41 = mul i32 %t39, %t40
  store i32 %t41, ptr addrspace(5) %r17
  %t42 = load i64, ptr addrspace(5) %r21
  %t43 = load i64, ptr addrspace(5) %r24
  %t44 = add i64 %t42, %t43
  store i64 %t44, ptr addrspace(5) %r26
  %t45 = load i64, ptr addrspace(5) %r26
  %t46 = inttoptr i64 %t45 to ptr addrspace(1)
  %t47 = load i32, ptr addrspace(5) %r17
  store i32 %t47, ptr addrspace(1) %t46, align 4
  %t48 = load i32, ptr addrspace(5) %r18
  %t49 = load i32, ptr addrspace(5) %r9
  %t50 = add i32 %t48, %t49
  store i32 %t50, ptr addrspace(5) %r18
  %t51 = load i32, ptr addrspace(5) %r18
  %t52 = load i32, ptr addrspace(5) %r12
  %t53 = icmp slt i32 %t51, %t52
  %t54 = xor i1 %t53, true
  store i1 %t53, ptr addrspace(5) %r5
  %t55 = load i1, ptr addrspace(5) %r5
  br i1 %t55, label %L.$L__BB1_2, label %b2
b2:
  br label %L.$L__BB1_3
L.$L__BB1_3:
  br label %ret
ret:
  ret void
}

define amdgpu_kernel void @_Z10scale_biasIfLi4EEvPT_PKS0_S0_S0_i(i64 %a0, i64 %a1, i32 %a2, i32 %a3, i32 %a4)  {
entry:
  %m1 = alloca [8 x i8], align 8, addrspace(5)
  store i64 %a0, ptr addrspace(5) %m1
  %m2 = alloca [8 x i8], align 8, addrspace(5)
  store i64 %a1, ptr addrspace(5) %m2
  %m3 = alloca [4 x i8], align 4, addrspace(5)
  store i32 %a2, ptr addrspace(5) %m3
  %m4 = alloca [4 x i8], align 4, addrspace(5)
  store i32 %a3, ptr addrspace(5) %m4
  %m5 = alloca [4 x i8], align 4, addrspace(5)
  store i32 %a4, ptr addrspace(5) %m5
  %r5 = alloca i1, addrspace(5)
  %r6 = alloca i1, addrspace(5)
  %r7 = alloca i1, addrspace(5)
  %r8 = alloca i1, addrspace(5)
  %r9 = alloca i1, addrspace(5)
  %r10 = alloca i32, addrspace(5)
  %r11 = alloca i32, addrspace(5)
  %r12 = alloca i32, addrspace(5)
  %r13 = alloca i32, addrspace(5)
  %r14 = alloca i32, addrspace(5)
  %r15 = alloca i32, addrspace(5)
  %r16 = alloca i32, addrspace(5)
  %r17 = alloca i32, addrspace(5)
  %r18 = alloca i32, addrspace(5)
  %r19 = alloca i32, addrspace(5)
  %r20 = alloca i32, addrspace(5)
  %r21 = alloca i32, addrspace(5)
  %r22 = alloca i32, addrspace(5)
  %r23 = alloca i32, addrspace(5)
  %r24 = alloca i32, addrspace(5)
  %r25 = alloca i32, addrspace(5)
  %r26 = alloca i32, addrspace(5)
  %r27 = alloca i32, addrspace(5)
  %r28 = alloca i32, addrspace(5)
  %r29 = alloca i32, addrspace(5)
  %r30 = alloca i32, addrspace(5)
  %r31 = alloca i64, addrspace(5)
  %r32 = alloca i64, addrspace(5)
  %r33 = alloca i64, addrspace(5)
  %r34 = alloca i64, addrspace(5)
  %r35 = alloca i64, addrspace(5)
  %r36 = alloca i64, addrspace(5)
  %r37 = alloca i64, addrspace(5)
  %r38 = alloca i64, addrspace(5)
  %r39 = alloca i64, addrspace(5)
  %r40 = alloca i64, addrspace(5)
  %r41 = alloca i64, addrspace(5)
  br label %start
start:
  %t1 = load i64, ptr addrspace(5) %m1, align 8
  store i64 %t1, ptr addrspace(5) %r36
  %t2 = load i64, ptr addrspace(5) %m2, align 8
  store i64 %t2, ptr addrspace(5) %r37
  %t3 = load float, ptr addrspace(5) %m3, align 4
  store float %t3, ptr addrspace(5) %r11
  %t4 = load float, ptr addrspace(5) %m4, align 4
  store float %t4, ptr addrspace(5) %r12
  %t5 = load i32, ptr addrspace(5) %m5, align 4
  store i32 %t5, ptr addrspace(5) %r23
  %t6 = load i64, ptr addrspace(5) %r36
  %t7 = inttoptr i64 %t6 to ptr
  %t8 = addrspacecast ptr %t7 to ptr addrspace(1)
  %t9 = ptrtoint ptr addrspace(1) %t8 to i64
  store i64 %t9, ptr addrspace(5) %r32
  %t10 = load i64, ptr addrspace(5) %r37
  %t11 = inttoptr i64 %t10 to ptr
  %t12 = addrspacecast ptr %t11 to ptr addrspace(1)
  %t13 = ptrtoint ptr addrspace(1) %t12 to i64
  store i64 %t13, ptr addrspace(5) %r33
  %t14 = call i32 @__wp_sreg_ntid_x()
  store i32 %t14, ptr addrspace(5) %r24
  %t15 = call i32 @__wp_sreg_ctaid_x()
  store i32 %t15, ptr addrspace(5) %r25
  %t16 = call i32 @__wp_sreg_tid_x()
  store i32 %t16, ptr addrspace(5) %r26
  %t17 = load i32, ptr addrspace(5) %r25
  %t18 = load i32, ptr addrspace(5) %r24
  %t19 = mul i32 %t17, %t18
  %t20 = load i32, ptr addrspace(5) %r26
  %t21 = add i32 %t19, %t20
  store i32 %t21, ptr addrspace(5) %r27
  %t22 = load i32, ptr addrspace(5) %r27
  %t23 = icmp uge i32 2, 32
  %t24 = call i32 @llvm.umin.i32(i32 2, i32 31)
  %t25 = shl i32 %t22, %t24
  %t26 = select i1 %t23, i32 0, i32 %t25
  store i32 %t26, ptr addrspace(5) %r22
  %t27 = load i32, ptr addrspace(5) %r22
  %t28 = load i32, ptr addrspace(5) %r23
  %t29 = icmp sge i32 %t27, %t28
  %t30 = xor i1 %t29, true
  store i1 %t29, ptr addrspace(5) %r6
  %t31 = load i1, ptr addrspace(5) %r6
  br i1 %t31, label %L.$L__BB2_2, label %b1
b1:
  %t32 = load i32, ptr addrspace(5) %r22
  %t33 = sext i32 %t32 to i64
  %t34 = sext i32 4 to i64
  %t35 = mul i64 %t33, %t34
  store i64 %t35, ptr addrspace(5) %r38
  %t36 = load i64, ptr addrspace(5) %r33
  %t37 = load i64, ptr addrspace(5) %r38
  %t38 = add i64 %t36, %t37
  store i64 %t38, ptr addrspace(5) %r39
  %t39 = load i64, ptr addrspace(5) %r39
  %t40 = inttoptr i64 %t39 to ptr addrspace(1)
  %t41 = load float, ptr addrspace(1) %t40, align 4
  store float %t41, ptr addrspace(5) %r13
  %t42 = load float, ptr addrspace(5) %r13
  %t43 = load float, ptr addrspace(5) %r11
  %t44 = load float, ptr addrspace(5) %r12
  %t45 = call float @llvm.fma.f32(float %t42, float %t43, float %t44)
  store float %t45, ptr addrspace(5) %r14
  %t46 = load i64, ptr addrspace(5) %r32
  %t47 = load i64, ptr addrspace(5) %r38
  %t48 = add i64 %t46, %t47
  store i64 %t48, ptr addrspace(5) %r40
  %t49 = load i64, ptr addrspace(5) %r40
  %t50 = inttoptr i64 %t49 to ptr addrspace(1)
  %t51 = load float, ptr addrspace(5) %r14
  store float %t51, ptr addrspace(1) %t50, align 4
  br label %L.$L__BB2_2
L.$L__BB2_2:
  %t52 = load i32, ptr addrspace(5) %r22
  %t53 = add i32 %t52, 1
  store i32 %t53, ptr addrspace(5) %r28
  %t54 = load i32, ptr addrspace(5) %r28
  %t55 = load i32, ptr addrspace(5) %r23
  %t56 = icmp sge i32 %t54, %t55
  %t57 = xor i1 %t56, true
  store i1 %t56, ptr addrspace(5) %r7
  %t58 = load i32, ptr addrspace(5) %r22
  %t59 = sext i32 %t58 to i64
  %t60 = sext i32 4 to i64
  %t61 = mul i64 %t59, %t60
  store i64 %t61, ptr addrspace(5) %r41
  %t62 = load i64, ptr addrspace(5) %r33
  %t63 = load i64, ptr addrspace(5) %r41
  %t64 = add i64 %t62, %t63
  store i64 %t64, ptr addrspace(5) %r34
  %t65 = load i64, ptr addrspace(5) %r32
  %t66 = load i64, ptr addrspace(5) %r41
  %t67 = add i64 %t65, %t66
  store i64 %t67, ptr addrspace(5) %r35
  %t68 = load i1, ptr addrspace(5) %r7
  br i1 %t68, label %L.$L__BB2_4, label %b2
b2:
  %t69 = load i64, ptr addrspace(5) %r34
  %t70 = inttoptr i64 %t69 to ptr addrspace(1)
  %t71 = getelementptr inbounds i8, ptr addrspace(1) %t70, i64 4
  %t72 = load float, ptr addrspace(1) %t71, align 4
  store float %t72, ptr addrspace(5) %r15
  %t73 = load float, ptr addrspace(5) %r15
  %t74 = load float, ptr addrspace(5) %r11
  %t75 = load float, ptr addrspace(5) %r12
  %t76 = call float @llvm.fma.f32(float %t73, float %t74, float %t75)
  store float %t76, ptr addrspace(5) %r16
  %t77 = load i64, ptr addrspace(5) %r35
  %t78 = inttoptr i64 %t77 to ptr addrspace(1)
  %t79 = getelementptr inbounds i8, ptr addrspace(1) %t78, i64 4
  %t80 = load float, ptr addrspace(5) %r16
  store float %t80, ptr addrspace(1) %t79, align 4
  br label %L.$L__BB2_4
L.$L__BB2_4:
  %t81 = load i32, ptr addrspace(5) %r22
  %t82 = add i32 %t81, 2
  store i32 %t82, ptr addrspace(5) %r29
  %t83 = load i32, ptr addrspace(5) %r29
  %t84 = load i32, ptr addrspace(5) %r23
  %t85 = icmp sge i32 %t83, %t84
  %t86 = xor i1 %t85, true
  store i1 %t85, ptr addrspace(5) %r8
  %t87 = load i1, ptr addrspace(5) %r8
  br i1 %t87, label %L.$L__BB2_6, label %b3
b3:
  %t88 = load i64, ptr addrspace(5) %r34
  %t89 = inttoptr i64 %t88 to ptr addrspace(1)
  %t90 = getelementptr inbounds i8, ptr addrspace(1) %t89, i64 8
  %t91 = load float, ptr addrspace(1) %t90, align 4
  store float %t91, ptr addrspace(5) %r17
  %t92 = load float, ptr addrspace(5) %r17
  %t93 = load float, ptr addrspace(5) %r11
  %t94 = load float, ptr addrspace(5) %r12
  %t95 = call float @llvm.fma.f32(float %t92, float %t93, float %t94)
  store float %t95, ptr addrspace(5) %r18
  %t96 = load i64, ptr addrspace(5) %r35
  %t97 = inttoptr i64 %t96 to ptr addrspace(1)
  %t98 = getelementptr inbounds i8, ptr addrspace(1) %t97, i64 8
  %t99 = load float, ptr addrspace(5) %r18
  store float %t99, ptr addrspace(1) %t98, align 4
  br label %L.$L__BB2_6
L.$L__BB2_6:
  %t100 = load i32, ptr addrspace(5) %r22
  %t101 = add i32 %t100, 3
  store i32 %t101, ptr addrspace(5) %r30
  %t102 = load i32, ptr addrspace(5) %r30
  %t103 = load i32, ptr addrspace(5) %r23
  %t104 = icmp sge i32 %t102, %t103
  %t105 = xor i1 %t104, true
  store i1 %t104, ptr addrspace(5) %r9
  %t106 = load i1, ptr addrspace(5) %r9
  br i1 %t106, label %L.$L__BB2_8, label %b4
b4:
  %t107 = load i64, ptr addrspace(5) %r34
  %t108 = inttoptr i64 %t107 to ptr addrspace(1)
  %t109 = getelementptr inbounds i8, ptr addrspace(1) %t108, i64 12
  %t110 = load float, ptr addrspace(1) %t109, align 4
  store float %t110, ptr addrspace(5) %r19
  %t111 = load float, ptr addrspace(5) %r19
  %t112 = load float, ptr addrspace(5) %r11
  %t113 = load float, ptr addrspace(5) %r12
  %t114 = call float @llvm.fma.f32(float %t111, float %t112, float %t113)
  store float %t114, ptr addrspace(5) %r20
  %t115 = load i64, ptr addrspace(5) %r35
  %t116 = inttoptr i64 %t115 to ptr addrspace(1)
  %t117 = getelementptr inbounds i8, ptr addrspace(1) %t116, i64 12
  %t118 = load float, ptr addrspace(5) %r20
  store float %t118, ptr addrspace(1) %t117, align 4
  br label %L.$L__BB2_8
L.$L__BB2_8:
  br label %ret
ret:
  ret void
}

define amdgpu_kernel void @_Z10scale_biasIdLi2EEvPT_PKS0_S0_S0_i(i64 %a0, i64 %a1, i64 %a2, i64 %a3, i32 %a4)  {
entry:
  %m1 = alloca [8 x i8], align 8, addrspace(5)
  store i64 %a0, ptr addrspace(5) %m1
  %m2 = alloca [8 x i8], align 8, addrspace(5)
  store i64 %a1, ptr addrspace(5) %m2
  %m3 = alloca [8 x i8], align 8, addrspace(5)
  store i64 %a2, ptr addrspace(5) %m3
  %m4 = alloca [8 x i8], align 8, addrspace(5)
  store i64 %a3, ptr addrspace(5) %m4
  %m5 = alloca [4 x i8], align 4, addrspace(5)
  store i32 %a4, ptr addrspace(5) %m5
  %r5 = alloca i1, addrspace(5)
  %r6 = alloca i1, addrspace(5)
  %r7 = alloca i1, addrspace(5)
  %r8 = alloca i32, addrspace(5)
  %r9 = alloca i32, addrspace(5)
  %r10 = alloca i32, addrspace(5)
  %r11 = alloca i32, addrspace(5)
  %r12 = alloca i32, addrspace(5)
  %r13 = alloca i32, addrspace(5)
  %r14 = alloca i32, addrspace(5)
  %r15 = alloca i32, addrspace(5)
  %r16 = alloca i64, addrspace(5)
  %r17 = alloca i64, addrspace(5)
  %r18 = alloca i64, addrspace(5)
  %r19 = alloca i64, addrspace(5)
  %r20 = alloca i64, addrspace(5)
  %r21 = alloca i64, addrspace(5)
  %r22 = alloca i64, addrspace(5)
  %r23 = alloca i64, addrspace(5)
  %r24 = alloca i64, addrspace(5)
  %r25 = alloca i64, addrspace(5)
  %r26 = alloca i64, addrspace(5)
  %r27 = alloca i64, addrspace(5)
  %r28 = alloca i64, addrspace(5)
  %r29 = alloca i64, addrspace(5)
  %r30 = alloca i64, addrspace(5)
  %r31 = alloca i64, addrspace(5)
  %r32 = alloca i64, addrspace(5)
  %r33 = alloca i64, addrspace(5)
  br label %start
start:
  %t1 = load i64, ptr addrspace(5) %m1, align 8
  store i64 %t1, ptr addrspace(5) %r26
  %t2 = load i64, ptr addrspace(5) %m2, align 8
  store i64 %t2, ptr addrspace(5) %r27
  %t3 = load double, ptr addrspace(5) %m3, align 8
  store double %t3, ptr addrspace(5) %r17
  %t4 = load double, ptr addrspace(5) %m4, align 8
  store double %t4, ptr addrspace(5) %r18
  %t5 = load i32, ptr addrspace(5) %m5, align 4
  store i32 %t5, ptr addrspace(5) %r11
  %t6 = load i64, ptr addrspace(5) %r26
  %t7 = inttoptr i64 %t6 to ptr
  %t8 = addrspacecast ptr %t7 to ptr addrspace(1)
  %t9 = ptrtoint ptr addrspace(1) %t8 to i64
  store i64 %t9, ptr addrspace(5) %r24
  %t10 = load i64, ptr addrspace(5) %r27
  %t11 = inttoptr i64 %t10 to ptr
  %t12 = addrspacecast ptr %t11 to ptr addrspace(1)
  %t13 = ptrtoint ptr addrspace(1) %t12 to i64
  store i64 %t13, ptr addrspace(5) %r25
  %t14 = call i32 @__wp_sreg_ntid_x()
  store i32 %t14, ptr addrspace(5) %r12
  %t15 = call i32 @__wp_sreg_ctaid_x()
  store i32 %t15, ptr addrspace(5) %r13
  %t16 = call i32 @__wp_sreg_tid_x()
  store i32 %t16, ptr addrspace(5) %r14
  %t17 = load i32, ptr addrspace(5) %r13
  %t18 = load i32, ptr addrspace(5) %r12
  %t19 = mul i32 %t17, %t18
  %t20 = load i32, ptr addrspace(5) %r14
  %t21 = add i32 %t19, %t20
  store i32 %t21, ptr addrspace(5) %r15
  %t22 = load i32, ptr addrspace(5) %r15
  %t23 = icmp uge i32 1, 32
  %t24 = call i32 @llvm.umin.i32(i32 1, i32 31)
  %t25 = shl i32 %t22, %t24
  %t26 = select i1 %t23, i32 0, i32 %t25
  store i32 %t26, ptr addrspace(5) %r9
  %t27 = load i32, ptr addrspace(5) %r9
  %t28 = load i32, ptr addrspace(5) %r11
  %t29 = icmp sge i32 %t27, %t28
  %t30 = xor i1 %t29, true
  store i1 %t29, ptr addrspace(5) %r6
  %t31 = load i1, ptr addrspace(5) %r6
  br i1 %t31, label %L.$L__BB3_2, label %b1
b1:
  %t32 = load i32, ptr addrspace(5) %r9
  %t33 = sext i32 %t32 to i64
  %t34 = sext i32 8 to i64
  %t35 = mul i64 %t33, %t34
  store i64 %t35, ptr addrspace(5) %r28
  %t36 = load i64, ptr addrspace(5) %r25
  %t37 = load i64, ptr addrspace(5) %r28
  %t38 = add i64 %t36, %t37
  store i64 %t38, ptr addrspace(5) %r29
  %t39 = load i64, ptr addrspace(5) %r29
  %t40 = inttoptr i64 %t39 to ptr addrspace(1)
  %t41 = load double, ptr addrspace(1) %t40, align 8
  store double %t41, ptr addrspace(5) %r19
  %t42 = load double, ptr addrspace(5) %r19
  %t43 = load double, ptr addrspace(5) %r17
  %t44 = load double, ptr addrspace(5) %r18
  %t45 = call double @llvm.fma.f64(double %t42, double %t43, double %t44)
  store double %t45, ptr addrspace(5) %r20
  %t46 = load i64, ptr addrspace(5) %r24
  %t47 = load i64, ptr addrspace(5) %r28
  %t48 = add i64 %t46, %t47
  store i64 %t48, ptr addrspace(5) %r30
  %t49 = load i64, ptr addrspace(5) %r30
  %t50 = inttoptr i64 %t49 to ptr addrspace(1)
  %t51 = load double, ptr addrspace(5) %r20
  store double %t51, ptr addrspace(1) %t50, align 8
  br label %L.$L__BB3_2
L.$L__BB3_2:
  %t52 = load i32, ptr addrspace(5) %r9
  %t53 = add i32 %t52, 1
  store i32 %t53, ptr addrspace(5) %r10
  %t54 = load i32, ptr addrspace(5) %r10
  %t55 = load i32, ptr addrspace(5) %r11
  %t56 = icmp sge i32 %t54, %t55
  %t57 = xor i1 %t56, true
  store i1 %t56, ptr addrspace(5) %r7
  %t58 = load i1, ptr addrspace(5) %r7
  br i1 %t58, label %L.$L__BB3_4, label %b2
b2:
  %t59 = load i32, ptr addrspace(5) %r10
  %t60 = sext i32 %t59 to i64
  %t61 = sext i32 8 to i64
  %t62 = mul i64 %t60, %t61
  store i64 %t62, ptr addrspace(5) %r31
  %t63 = load i64, ptr addrspace(5) %r25
  %t64 = load i64, ptr addrspace(5) %r31
  %t65 = add i64 %t63, %t64
  store i64 %t65, ptr addrspace(5) %r32
  %t66 = load i64, ptr addrspace(5) %r32
  %t67 = inttoptr i64 %t66 to ptr addrspace(1)
  %t68 = load double, ptr addrspace(1) %t67, align 8
  store double %t68, ptr addrspace(5) %r21
  %t69 = load double, ptr addrspace(5) %r21
  %t70 = load double, ptr addrspace(5) %r17
  %t71 = load double, ptr addrspace(5) %r18
  %t72 = call double @llvm.fma.f64(double %t69, double %t70, double %t71)
  store double %t72, ptr addrspace(5) %r22
  %t73 = load i64, ptr addrspace(5) %r24
  %t74 = load i64, ptr addrspace(5) %r31
  %t75 = add i64 %t73, %t74
  store i64 %t75, ptr addrspace(5) %r33
  %t76 = load i64, ptr addrspace(5) %r33
  %t77 = inttoptr i64 %t76 to ptr addrspace(1)
  %t78 = load double, ptr addrspace(5) %r22
  store double %t78, ptr addrspace(1) %t77, align 8
  br label %L.$L__BB3_4
L.$L__BB3_4:
  br label %ret
ret:
  ret void
}

declare i32 @__wp_sreg_ctaid_x()
declare i32 @__wp_sreg_nctaid_x()
declare i32 @__wp_sreg_ntid_x()
declare i32 @__wp_sreg_tid_x()
declare float @llvm.fma.f32(float, float, float)
declare double @llvm.fma.f64(double, double, double)
declare float @llvm.maxnum.f32(float, float)
declare i32 @llvm.umin.i32(i32, i32)
