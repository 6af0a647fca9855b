; wheelport lowering golden: profile cuda, input fixtures__cuda__multi_tu.so.1
; kernel KernelResult { name: "_Z10map_kernelIfN2wp4ReluEEvPT_PKS2_iT0_", outcome: Lowered, params: [ParamLayout { name: "_Z10map_kernelIfN2wp4ReluEEvPT_PKS2_iT0__param_0", offset: 0, size: 8, align: 8 }, ParamLayout { name: "_Z10map_kernelIfN2wp4ReluEEvPT_PKS2_iT0__param_1", offset: 8, size: 8, align: 8 }, ParamLayout { name: "_Z10map_kernelIfN2wp4ReluEEvPT_PKS2_iT0__param_2", offset: 16, size: 4, align: 4 }, ParamLayout { name: "_Z10map_kernelIfN2wp4ReluEEvPT_PKS2_iT0__param_3", offset: 20, size: 1, align: 1 }], notes: [] }
; kernel KernelResult { name: "_Z10map_kernelIiN2wp6SquareEEvPT_PKS2_iT0_", outcome: Lowered, params: [ParamLayout { name: "_Z10map_kernelIiN2wp6SquareEEvPT_PKS2_iT0__param_0", offset: 0, size: 8, align: 8 }, ParamLayout { name: "_Z10map_kernelIiN2wp6SquareEEvPT_PKS2_iT0__param_1", offset: 8, size: 8, align: 8 }, ParamLayout { name: "_Z10map_kernelIiN2wp6SquareEEvPT_PKS2_iT0__param_2", offset: 16, size: 4, align: 4 }, ParamLayout { name: "_Z10map_kernelIiN2wp6SquareEEvPT_PKS2_iT0__param_3", offset: 20, size: 1, align: 1 }], notes: [] }
; kernel KernelResult { name: "_Z10scale_biasIfLi4EEvPT_PKS0_S0_S0_i", outcome: Lowered, params: [ParamLayout { name: "_Z10scale_biasIfLi4EEvPT_PKS0_S0_S0_i_param_0", offset: 0, size: 8, align: 8 }, ParamLayout { name: "_Z10scale_biasIfLi4EEvPT_PKS0_S0_S0_i_param_1", offset: 8, size: 8, align: 8 }, ParamLayout { name: "_Z10scale_biasIfLi4EEvPT_PKS0_S0_S0_i_param_2", offset: 16, size: 4, align: 4 }, ParamLayout { name: "_Z10scale_biasIfLi4EEvPT_PKS0_S0_S0_i_param_3", offset: 20, size: 4, align: 4 }, ParamLayout { name: "_Z10scale_biasIfLi4EEvPT_PKS0_S0_S0_i_param_4", offset: 24, size: 4, align: 4 }], notes: [] }
; kernel KernelResult { name: "_Z10scale_biasIdLi2EEvPT_PKS0_S0_S0_i", outcome: Lowered, params: [ParamLayout { name: "_Z10scale_biasIdLi2EEvPT_PKS0_S0_S0_i_param_0", offset: 0, size: 8, align: 8 }, ParamLayout { name: "_Z10scale_biasIdLi2EEvPT_PKS0_S0_S0_i_param_1", offset: 8, size: 8, align: 8 }, ParamLayout { name: "_Z10scale_biasIdLi2EEvPT_PKS0_S0_S0_i_param_2", offset: 16, size: 8, align: 8 }, ParamLayout { name: "_Z10scale_biasIdLi2EEvPT_PKS0_S0_S0_i_param_3", offset: 24, size: 8, align: 8 }, ParamLayout { name: "_Z10scale_biasIdLi2EEvPT_PKS0_S0_S0_i_param_4", offset: 32, size: 4, align: 4 }], notes: [] }
; PTX lowered by wheelport for target cuda
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"


define ptx_kernel void @_Z10map_kernelIfN2wp4ReluEEvPT_PKS2_iT0_(i64 %a0, i64 %a1, i32 %a2, ptr byval([1 x i8]) align 1 %a3)  {
entry:
  %m1 = alloca [8 x i8], align 8
  store i64 %a0, ptr %m1
  %m2 = alloca [8 x i8], align 8
  store i64 %a1, ptr %m2
  %m3 = alloca [4 x i8], align 4
  store i32 %a2, ptr %m3
  %r3 = alloca i1
  %r4 = alloca i1
  %r5 = alloca i1
  %r6 = alloca i32
  %r7 = alloca i32
  %r8 = alloca i32
  %r9 = alloca i32
  %r10 = alloca i32
  %r11 = alloca i32
  %r12 = alloca i32
  %r13 = alloca i32
  %r14 = alloca i32
  %r15 = alloca i32
  %r16 = alloca i32
  %r17 = alloca i32
  %r18 = alloca i32
  %r19 = alloca i32
  %r20 = alloca i64
  %r21 = alloca i64
  %r22 = alloca i64
  %r23 = alloca i64
  %r24 = alloca i64
  %r25 = alloca i64
  %r26 = alloca i64
  %r27 = alloca i64
  br label %start
start:
  %t1 = load i64, ptr %m1, align 8
  store i64 %t1, ptr %r23
  %t2 = load i64, ptr %m2, align 8
  store i64 %t2, ptr %r24
  %t3 = load i32, ptr %m3, align 4
  store i32 %t3, ptr %r15
  %t4 = call i32 @__wp_sreg_ntid_x()
  store i32 %t4, ptr %r10
  %t5 = call i32 @__wp_sreg_ctaid_x()
  store i32 %t5, ptr %r16
  %t6 = call i32 @__wp_sreg_tid_x()
  store i32 %t6, ptr %r17
  %t7 = load i32, ptr %r16
  %t8 = load i32, ptr %r10
  %t9 = mul i32 %t7, %t8
  %t10 = load i32, ptr %r17
  %t11 = add i32 %t9, %t10
  store i32 %t11, ptr %r19
  %t12 = load i32, ptr %r19
  %t13 = load i32, ptr %r15
  %t14 = icmp sge i32 %t12, %t13
  %t15 = xor i1 %t14, true
  store i1 %t14, ptr %r4
  %t16 = load i1, ptr %r4
  br i1 %t16, label %L.$L__BB0_3, label %b1
b1:
  %t17 = call i32 @__wp_sreg_nctaid_x()
  store i32 %t17, ptr %r18
  %t18 = load i32, ptr %r18
  %t19 = load i32, ptr %r10
  %t20 = mul i32 %t18, %t19
  store i32 %t20, ptr %r12
  %t21 = load i64, ptr %r24
  %t22 = inttoptr i64 %t21 to ptr
  %t23 = addrspacecast ptr %t22 to ptr addrspace(1)
  %t24 = ptrtoint ptr addrspace(1) %t23 to i64
  store i64 %t24, ptr %r21
  %t25 = load i64, ptr %r23
  %t26 = inttoptr i64 %t25 to ptr
  %t27 = addrspacecast ptr %t26 to ptr addrspace(1)
  %t28 = ptrtoint ptr addrspace(1) %t27 to i64
  store i64 %t28, ptr %r22
  br label %L.$L__BB0_2
L.$L__BB0_2:
  %t29 = load i32, ptr %r19
  %t30 = sext i32 %t29 to i64
  %t31 = sext i32 4 to i64
  %t32 = mul i64 %t30, %t31
  store i64 %t32, ptr %r25
  %t33 = load i64, ptr %r21
  %t34 = load i64, ptr %r25
  %t35 = add i64 %t33, %t34
  store i64 %t35, ptr %r26
  %t36 = load i64, ptr %r26
  %t37 = inttoptr i64 %t36 to ptr addrspace(1)
  %t38 = load float, ptr addrspace(1) %t37, align 4
  store float %t38, ptr %r7
  %t39 = load float, ptr %r7
  %t40 = call float @llvm.maxnum.f32(float %t39, float 0x0000000000000000)
  store float %t40, ptr %r8
  %t41 = load i64, ptr %r22
  %t42 = load i64, ptr %r25
  %t43 = add i64 %t41, %t42
  store i64 %t43, ptr %r27
  %t44 = load i64, ptr %r27
  %t45 = inttoptr i64 %t44 to ptr addrspace(1)
  %t46 = load float, ptr %r8
  store float %t46, ptr addrspace(1) %t45, align 4
  %t47 = load i32, ptr %r19
  %t48 = load i32, ptr %r12
  %t49 = add i32 %t47, %t48
  store i32 %t49, ptr %r19
  %t50 = load i32, ptr %r19
  %t51 = load i32, ptr %r15
  %t52 = icmp slt i32 %t50, %t51
  %t53 = xor i1 %t52, true
  store i1 %t52, ptr %r5
  %t54 = load i1, ptr %r5
  br i1 %t54, label %L.$L__BB0_2, label %b2
b2:
  br label %L.$L__BB0_3
L.$L__BB0_3:
  br label %ret
ret:
  ret void
}

define ptx_kernel void @_Z10map_kernelIiN2wp6SquareEEvPT_PKS2_iT0_(i64 %a0, i64 %a1, i32 %a2, ptr byval([1 x i8]) align 1 %a3)  {
entry:
  %m1 = alloca [8 x i8], align 8
  store i64 %a0, ptr %m1
  %m2 = alloca [8 x i8], align 8
  store i64 %a1, ptr %m2
  %m3 = alloca [4 x i8], align 4
  store i32 %a2, ptr %m3
  %r3 = alloca i1
  %r4 = alloca i1
  %r5 = alloca i1
  %r6 = alloca i32
  %r7 = alloca i32
  %r8 = alloca i32
  %r9 = alloca i32
  %r10 = alloca i32
  %r11 = alloca i32
  %r12 = alloca i32
  %r13 = alloca i32
  %r14 = alloca i32
  %r15 = alloca i32
  %r16 = alloca i32
  %r17 = alloca i32
  %r18 = alloca i32
  %r19 = alloca i64
  %r20 = alloca i64
  %r21 = alloca i64
  %r22 = alloca i64
  %r23 = alloca i64
  %r24 = alloca i64
  %r25 = alloca i64
  %r26 = alloca i64
  br label %start
start:
  %t1 = load i64, ptr %m1, align 8
  store i64 %t1, ptr %r22
  %t2 = load i64, ptr %m2, align 8
  store i64 %t2, ptr %r23
  %t3 = load i32, ptr %m3, align 4
  store i32 %t3, ptr %r12
  %t4 = call i32 @__wp_sreg_ntid_x()
  store i32 %t4, ptr %r7
  %t5 = call i32 @__wp_sreg_ctaid_x()
  store i32 %t5, ptr %r13
  %t6 = call i32 @__wp_sreg_tid_x()
  store i32 %t6, ptr %r14
  %t7 = load i32, ptr %r13
  %t8 = load i32, ptr %r7
  %t9 = mul i32 %t7, %t8
  %t10 = load i32, ptr %r14
  %t11 = add i32 %t9, %t10
  store i32 %t11, ptr %r18
  %t12 = load i32, ptr %r18
  %t13 = load i32, ptr %r12
  %t14 = icmp sge i32 %t12, %t13
  %t15 = xor i1 %t14, true
  store i1 %t14, ptr %r4
  %t16 = load i1, ptr %r4
  br i1 %t16, label %L.$L__BB1_3, label %b1
b1:
  %t17 = call i32 @__wp_sreg_nctaid_x()
  store i32 %t17, ptr %r15
  %t18 = load i32, ptr %r15
  %t19 = load i32, ptr %r7
  %t20 = mul i32 %t18, %t19
  store i32 %t20, ptr %r9
  %t21 = load i64, ptr %r23
  %t22 = inttoptr i64 %t21 to ptr
  %t23 = addrspacecast ptr %t22 to ptr addrspace(1)
  %t24 = ptrtoint ptr addrspace(1) %t23 to i64
  store i64 %t24, ptr %r20
  %t25 = load i64, ptr %r22
  %t26 = inttoptr i64 %t25 to ptr
  %t27 = addrspacecast ptr %t26 to ptr addrspace(1)
  %t28 = ptrtoint ptr addrspace(1) %t27 to i64
  store i64 %t28, ptr %r21
  br label %L.$L__BB1_2
L.$L__BB1_2:
  %t29 = load i32, ptr %r18
  %t30 = sext i32 %t29 to i64
  %t31 = sext i32 4 to i64
  %t32 = mul i64 %t30, %t31
  store i64 %t32, ptr %r24
  %t33 = load i64, ptr %r20
  %t34 = load i64, ptr %r24
  %t35 = add i64 %t33, %t34
  store i64 %t35, ptr %r25
  %t36 = load i64, ptr %r25
  %t37 = inttoptr i64 %t36 to ptr addrspace(1)
  %t38 = load i32, ptr addrspace(1) %t37, align 4
  store i32 %t38, ptr %r16
  %t39 = load i32, ptr %r16
  %t40 = load i32, ptr %r16
  %t41 = mul i32 %t39, %t40
  store i32 %t41, ptr %r17
  %t42 = load i64, ptr %r21
  %t43 = load i64, ptr %r24
  %t44 = add i64 %t42, %t43
  store i64 %t44, ptr %r26
  %t45 = load i64, ptr %r26
  %t46 = inttoptr i64 %t45 to ptr addrspace(1)
  %t47 = load i32, ptr %r17
  store i32 %t47, ptr addrspace(1) %t46, align 4
  %t48 = load i32, ptr %r18
  %t49 = load i32, ptr %r9
  %t50 = add i32 %t48, %t49
  store i32 %t50, ptr %r18
  %t51 = load i32, ptr %r18
  %t52 = load i32, ptr %r12
  %t53 = icmp slt i32 %t51, %t52
  %t54 = xor i1 %t53, true
  store i1 %t53, ptr %r5
  %t55 = load i1, ptr %r5
  br i1 %t55, label %L.$L__BB1_2, label %b2
b2:
  br label %L.$L__BB1_3
L.$L__BB1_3:
  br label %ret
ret:
  ret void
}

define ptx_kernel void @_Z10scale_biasIfLi4EEvPT_PKS0_S0_S0_i(i64 %a0, i64 %a1, i32 %a2, i32 %a3, i32 %a4)  {
entry:
  %m1 = alloca [8 x i8], align 8
  store i64 %a0, ptr %m1
  %m2 = alloca [8 x i8], align 8
  store i64 %a1, ptr %m2
  %m3 = alloca [4 x i8], align 4
  store i32 %a2, ptr %m3
  %m4 = alloca [4 x i8], align 4
  store i32 %a3, ptr %m4
  %m5 = alloca [4 x i8], align 4
  store i32 %a4, ptr %m5
  %r5 = alloca i1
  %r6 = alloca i1
  %r7 = alloca i1
  %r8 = alloca i1
  %r9 = alloca i1
  %r10 = alloca i32
  %r11 = alloca i32
  %r12 = alloca i32
  %r13 = alloca i32
  %r14 = alloca i32
  %r15 = alloca i32
  %r16 = alloca i32
  %r17 = alloca i32
  %r18 = alloca i32
  %r19 = alloca i32
  %r20 = alloca i32
  %r21 = alloca i32
  %r22 = alloca i32
  %r23 = alloca i32
  %r24 = alloca i32
  %r25 = alloca i32
  %r26 = alloca i32
  %r27 = alloca i32
  %r28 = alloca i32
  %r29 = alloca i32
  %r30 = alloca i32
  %r31 = alloca i64
  %r32 = alloca i64
  %r33 = alloca i64
  %r34 = alloca i64
  %r35 = alloca i64
  %r36 = alloca i64
  %r37 = alloca i64
  %r38 = alloca i64
  %r39 = alloca i64
  %r40 = alloca i64
  %r41 = alloca i64
  br label %start
start:
  %t1 = load i64, ptr %m1, align 8
  store i64 %t1, ptr %r36
  %t2 = load i64, ptr %m2, align 8
  store i64 %t2, ptr %r37
  %t3 = load float, ptr %m3, align 4
  store float %t3, ptr %r11
  %t4 = load float, ptr %m4, align 4
  store float %t4, ptr %r12
  %t5 = load i32, ptr %m5, align 4
  store i32 %t5, ptr %r23
  %t6 = load i64, ptr %r36
  %t7 = inttoptr i64 %t6 to ptr
  %t8 = addrspacecast ptr %t7 to ptr addrspace(1)
  %t9 = ptrtoint ptr addrspace(1) %t8 to i64
  store i64 %t9, ptr %r32
  %t10 = load i64, ptr %r37
  %t11 = inttoptr i64 %t10 to ptr
  %t12 = addrspacecast ptr %t11 to ptr addrspace(1)
  %t13 = ptrtoint ptr addrspace(1) %t12 to i64
  store i64 %t13, ptr %r33
  %t14 = call i32 @__wp_sreg_ntid_x()
  store i32 %t14, ptr %r24
  %t15 = call i32 @__wp_sreg_ctaid_x()
  store i32 %t15, ptr %r25
  %t16 = call i32 @__wp_sreg_tid_x()
  store i32 %t16, ptr %r26
  %t17 = load i32, ptr %r25
  %t18 = load i32, ptr %r24
  %t19 = mul i32 %t17, %t18
  %t20 = load i32, ptr %r26
  %t21 = add i32 %t19, %t20
  store i32 %t21, ptr %r27
  %t22 = load i32, ptr %r27
  %t23 = call i32 @llvm.umin.i32(i32 2, i32 32)
  %t24 = lshr i32 %t23, 1
  %t25 = sub i32 %t23, %t24
  %t26 = shl i32 %t22, %t24
  %t27 = shl i32 %t26, %t25
  store i32 %t27, ptr %r22
  %t28 = load i32, ptr %r22
  %t29 = load i32, ptr %r23
  %t30 = icmp sge i32 %t28, %t29
  %t31 = xor i1 %t30, true
  store i1 %t30, ptr %r6
  %t32 = load i1, ptr %r6
  br i1 %t32, label %L.$L__BB2_2, label %b1
b1:
  %t33 = load i32, ptr %r22
  %t34 = sext i32 %t33 to i64
  %t35 = sext i32 4 to i64
  %t36 = mul i64 %t34, %t35
  store i64 %t36, ptr %r38
  %t37 = load i64, ptr %r33
  %t38 = load i64, ptr %r38
  %t39 = add i64 %t37, %t38
  store i64 %t39, ptr %r39
  %t40 = load i64, ptr %r39
  %t41 = inttoptr i64 %t40 to ptr addrspace(1)
  %t42 = load float, ptr addrspace(1) %t41, align 4
  store float %t42, ptr %r13
  %t43 = load float, ptr %r13
  %t44 = load float, ptr %r11
  %t45 = load float, ptr %r12
  %t46 = call float @llvm.fma.f32(float %t43, float %t44, float %t45)
  store float %t46, ptr %r14
  %t47 = load i64, ptr %r32
  %t48 = load i64, ptr %r38
  %t49 = add i64 %t47, %t48
  store i64 %t49, ptr %r40
  %t50 = load i64, ptr %r40
  %t51 = inttoptr i64 %t50 to ptr addrspace(1)
  %t52 = load float, ptr %r14
  store float %t52, ptr addrspace(1) %t51, align 4
  br label %L.$L__BB2_2
L.$L__BB2_2:
  %t53 = load i32, ptr %r22
  %t54 = add i32 %t53, 1
  store i32 %t54, ptr %r28
  %t55 = load i32, ptr %r28
  %t56 = load i32, ptr %r23
  %t57 = icmp sge i32 %t55, %t56
  %t58 = xor i1 %t57, true
  store i1 %t57, ptr %r7
  %t59 = load i32, ptr %r22
  %t60 = sext i32 %t59 to i64
  %t61 = sext i32 4 to i64
  %t62 = mul i64 %t60, %t61
  store i64 %t62, ptr %r41
  %t63 = load i64, ptr %r33
  %t64 = load i64, ptr %r41
  %t65 = add i64 %t63, %t64
  store i64 %t65, ptr %r34
  %t66 = load i64, ptr %r32
  %t67 = load i64, ptr %r41
  %t68 = add i64 %t66, %t67
  store i64 %t68, ptr %r35
  %t69 = load i1, ptr %r7
  br i1 %t69, label %L.$L__BB2_4, label %b2
b2:
  %t70 = load i64, ptr %r34
  %t71 = inttoptr i64 %t70 to ptr addrspace(1)
  %t72 = getelementptr inbounds i8, ptr addrspace(1) %t71, i64 4
  %t73 = load float, ptr addrspace(1) %t72, align 4
  store float %t73, ptr %r15
  %t74 = load float, ptr %r15
  %t75 = load float, ptr %r11
  %t76 = load float, ptr %r12
  %t77 = call float @llvm.fma.f32(float %t74, float %t75, float %t76)
  store float %t77, ptr %r16
  %t78 = load i64, ptr %r35
  %t79 = inttoptr i64 %t78 to ptr addrspace(1)
  %t80 = getelementptr inbounds i8, ptr addrspace(1) %t79, i64 4
  %t81 = load float, ptr %r16
  store float %t81, ptr addrspace(1) %t80, align 4
  br label %L.$L__BB2_4
L.$L__BB2_4:
  %t82 = load i32, ptr %r22
  %t83 = add i32 %t82, 2
  store i32 %t83, ptr %r29
  %t84 = load i32, ptr %r29
  %t85 = load i32, ptr %r23
  %t86 = icmp sge i32 %t84, %t85
  %t87 = xor i1 %t86, true
  store i1 %t86, ptr %r8
  %t88 = load i1, ptr %r8
  br i1 %t88, label %L.$L__BB2_6, label %b3
b3:
  %t89 = load i64, ptr %r34
  %t90 = inttoptr i64 %t89 to ptr addrspace(1)
  %t91 = getelementptr inbounds i8, ptr addrspace(1) %t90, i64 8
  %t92 = load float, ptr addrspace(1) %t91, align 4
  store float %t92, ptr %r17
  %t93 = load float, ptr %r17
  %t94 = load float, ptr %r11
  %t95 = load float, ptr %r12
  %t96 = call float @llvm.fma.f32(float %t93, float %t94, float %t95)
  store float %t96, ptr %r18
  %t97 = load i64, ptr %r35
  %t98 = inttoptr i64 %t97 to ptr addrspace(1)
  %t99 = getelementptr inbounds i8, ptr addrspace(1) %t98, i64 8
  %t100 = load float, ptr %r18
  store float %t100, ptr addrspace(1) %t99, align 4
  br label %L.$L__BB2_6
L.$L__BB2_6:
  %t101 = load i32, ptr %r22
  %t102 = add i32 %t101, 3
  store i32 %t102, ptr %r30
  %t103 = load i32, ptr %r30
  %t104 = load i32, ptr %r23
  %t105 = icmp sge i32 %t103, %t104
  %t106 = xor i1 %t105, true
  store i1 %t105, ptr %r9
  %t107 = load i1, ptr %r9
  br i1 %t107, label %L.$L__BB2_8, label %b4
b4:
  %t108 = load i64, ptr %r34
  %t109 = inttoptr i64 %t108 to ptr addrspace(1)
  %t110 = getelementptr inbounds i8, ptr addrspace(1) %t109, i64 12
  %t111 = load float, ptr addrspace(1) %t110, align 4
  store float %t111, ptr %r19
  %t112 = load float, ptr %r19
  %t113 = load float, ptr %r11
  %t114 = load float, ptr %r12
  %t115 = call float @llvm.fma.f32(float %t112, float %t113, float %t114)
  store float %t115, ptr %r20
  %t116 = load i64, ptr %r35
  %t117 = inttoptr i64 %t116 to ptr addrspace(1)
  %t118 = getelementptr inbounds i8, ptr addrspace(1) %t117, i64 12
  %t119 = load float, ptr %r20
  store float %t119, ptr addrspace(1) %t118, align 4
  br label %L.$L__BB2_8
L.$L__BB2_8:
  br label %ret
ret:
  ret void
}

define ptx_kernel void @_Z10scale_biasIdLi2EEvPT_PKS0_S0_S0_i(i64 %a0, i64 %a1, i64 %a2, i64 %a3, i32 %a4)  {
entry:
  %m1 = alloca [8 x i8], align 8
  store i64 %a0, ptr %m1
  %m2 = alloca [8 x i8], align 8
  store i64 %a1, ptr %m2
  %m3 = alloca [8 x i8], align 8
  store i64 %a2, ptr %m3
  %m4 = alloca [8 x i8], align 8
  store i64 %a3, ptr %m4
  %m5 = alloca [4 x i8], align 4
  store i32 %a4, ptr %m5
  %r5 = alloca i1
  %r6 = alloca i1
  %r7 = alloca i1
  %r8 = alloca i32
  %r9 = alloca i32
  %r10 = alloca i32
  %r11 = alloca i32
  %r12 = alloca i32
  %r13 = alloca i32
  %r14 = alloca i32
  %r15 = alloca i32
  %r16 = alloca i64
  %r17 = alloca i64
  %r18 = alloca i64
  %r19 = alloca i64
  %r20 = alloca i64
  %r21 = alloca i64
  %r22 = alloca i64
  %r23 = alloca i64
  %r24 = alloca i64
  %r25 = alloca i64
  %r26 = alloca i64
  %r27 = alloca i64
  %r28 = alloca i64
  %r29 = alloca i64
  %r30 = alloca i64
  %r31 = alloca i64
  %r32 = alloca i64
  %r33 = alloca i64
  br label %start
start:
  %t1 = load i64, ptr %m1, align 8
  store i64 %t1, ptr %r26
  %t2 = load i64, ptr %m2, align 8
  store i64 %t2, ptr %r27
  %t3 = load double, ptr %m3, align 8
  store double %t3, ptr %r17
  %t4 = load double, ptr %m4, align 8
  store double %t4, ptr %r18
  %t5 = load i32, ptr %m5, align 4
  store i32 %t5, ptr %r11
  %t6 = load i64, ptr %r26
  %t7 = inttoptr i64 %t6 to ptr
  %t8 = addrspacecast ptr %t7 to ptr addrspace(1)
  %t9 = ptrtoint ptr addrspace(1) %t8 to i64
  store i64 %t9, ptr %r24
  %t10 = load i64, ptr %r27
  %t11 = inttoptr i64 %t10 to ptr
  %t12 = addrspacecast ptr %t11 to ptr addrspace(1)
  %t13 = ptrtoint ptr addrspace(1) %t12 to i64
  store i64 %t13, ptr %r25
  %t14 = call i32 @__wp_sreg_ntid_x()
  store i32 %t14, ptr %r12
  %t15 = call i32 @__wp_sreg_ctaid_x()
  store i32 %t15, ptr %r13
  %t16 = call i32 @__wp_sreg_tid_x()
  store i32 %t16, ptr %r14
  %t17 = load i32, ptr %r13
  %t18 = load i32, ptr %r12
  %t19 = mul i32 %t17, %t18
  %t20 = load i32, ptr %r14
  %t21 = add i32 %t19, %t20
  store i32 %t21, ptr %r15
  %t22 = load i32, ptr %r15
  %t23 = call i32 @llvm.umin.i32(i32 1, i32 32)
  %t24 = lshr i32 %t23, 1
  %t25 = sub i32 %t23, %t24
  %t26 = shl i32 %t22, %t24
  %t27 = shl i32 %t26, %t25
  store i32 %t27, ptr %r9
  %t28 = load i32, ptr %r9
  %t29 = load i32, ptr %r11
  %t30 = icmp sge i32 %t28, %t29
  %t31 = xor i1 %t30, true
  store i1 %t30, ptr %r6
  %t32 = load i1, ptr %r6
  br i1 %t32, label %L.$L__BB3_2, label %b1
b1:
  %t33 = load i32, ptr %r9
  %t34 = sext i32 %t33 to i64
  %t35 = sext i32 8 to i64
  %t36 = mul i64 %t34, %t35
  store i64 %t36, ptr %r28
  %t37 = load i64, ptr %r25
  %t38 = load i64, ptr %r28
  %t39 = add i64 %t37, %t38
  store i64 %t39, ptr %r29
  %t40 = load i64, ptr %r29
  %t41 = inttoptr i64 %t40 to ptr addrspace(1)
  %t42 = load double, ptr addrspace(1) %t41, align 8
  store double %t42, ptr %r19
  %t43 = load double, ptr %r19
  %t44 = load double, ptr %r17
  %t45 = load double, ptr %r18
  %t46 = call double @llvm.fma.f64(double %t43, double %t44, double %t45)
  store double %t46, ptr %r20
  %t47 = load i64, ptr %r24
  %t48 = load i64, ptr %r28
  %t49 = add i64 %t47, %t48
  store i64 %t49, ptr %r30
  %t50 = load i64, ptr %r30
  %t51 = inttoptr i64 %t50 to ptr addrspace(1)
  %t52 = load double, ptr %r20
  store double %t52, ptr addrspace(1) %t51, align 8
  br label %L.$L__BB3_2
L.$L__BB3_2:
  %t53 = load i32, ptr %r9
  %t54 = add i32 %t53, 1
  store i32 %t54, ptr %r10
  %t55 = load i32, ptr %r10
  %t56 = load i32, ptr %r11
  %t57 = icmp sge i32 %t55, %t56
  %t58 = xor i1 %t57, true
  store i1 %t57, ptr %r7
  %t59 = load i1, ptr %r7
  br i1 %t59, label %L.$L__BB3_4, label %b2
b2:
  %t60 = load i32, ptr %r10
  %t61 = sext i32 %t60 to i64
  %t62 = sext i32 8 to i64
  %t63 = mul i64 %t61, %t62
  store i64 %t63, ptr %r31
  %t64 = load i64, ptr %r25
  %t65 = load i64, ptr %r31
  %t66 = add i64 %t64, %t65
  store i64 %t66, ptr %r32
  %t67 = load i64, ptr %r32
  %t68 = inttoptr i64 %t67 to ptr addrspace(1)
  %t69 = load double, ptr addrspace(1) %t68, align 8
  store double %t69, ptr %r21
  %t70 = load double, ptr %r21
  %t71 = load double, ptr %r17
  %t72 = load double, ptr %r18
  %t73 = call double @llvm.fma.f64(double %t70, double %t71, double %t72)
  store double %t73, ptr %r22
  %t74 = load i64, ptr %r24
  %t75 = load i64, ptr %r31
  %t76 = add i64 %t74, %t75
  store i64 %t76, ptr %r33
  %t77 = load i64, ptr %r33
  %t78 = inttoptr i64 %t77 to ptr addrspace(1)
  %t79 = load double, ptr %r22
  store double %t79, ptr addrspace(1) %t78, align 8
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
