; wheelport lowering golden: profile dtk, input fixtures__cuda__arch_guard.so.0
; kernel KernelResult { name: "_Z20sm90_gemm_stub_printPKfS0_Pfi", outcome: Lowered, params: [ParamLayout { name: "_Z20sm90_gemm_stub_printPKfS0_Pfi_param_0", offset: 0, size: 8, align: 8 }, ParamLayout { name: "_Z20sm90_gemm_stub_printPKfS0_Pfi_param_1", offset: 8, size: 8, align: 8 }, ParamLayout { name: "_Z20sm90_gemm_stub_printPKfS0_Pfi_param_2", offset: 16, size: 8, align: 8 }, ParamLayout { name: "_Z20sm90_gemm_stub_printPKfS0_Pfi_param_3", offset: 24, size: 4, align: 4 }], notes: [] }
; kernel KernelResult { name: "_Z19sm90_gemm_stub_trapPKfS0_Pfi", outcome: Lowered, params: [ParamLayout { name: "_Z19sm90_gemm_stub_trapPKfS0_Pfi_param_0", offset: 0, size: 8, align: 8 }, ParamLayout { name: "_Z19sm90_gemm_stub_trapPKfS0_Pfi_param_1", offset: 8, size: 8, align: 8 }, ParamLayout { name: "_Z19sm90_gemm_stub_trapPKfS0_Pfi_param_2", offset: 16, size: 8, align: 8 }, ParamLayout { name: "_Z19sm90_gemm_stub_trapPKfS0_Pfi_param_3", offset: 24, size: 4, align: 4 }], notes: [] }
; kernel KernelResult { name: "_Z13rowwise_scalePfPKfii", outcome: Lowered, params: [ParamLayout { name: "_Z13rowwise_scalePfPKfii_param_0", offset: 0, size: 8, align: 8 }, ParamLayout { name: "_Z13rowwise_scalePfPKfii_param_1", offset: 8, size: 8, align: 8 }, ParamLayout { name: "_Z13rowwise_scalePfPKfii_param_2", offset: 16, size: 4, align: 4 }, ParamLayout { name: "_Z13rowwise_scalePfPKfii_param_3", offset: 20, size: 4, align: 4 }], notes: [] }
; kernel KernelResult { name: "_Z13add_bias_reluPfPKfii", outcome: Lowered, params: [ParamLayout { name: "_Z13add_bias_reluPfPKfii_param_0", offset: 0, size: 8, align: 8 }, ParamLayout { name: "_Z13add_bias_reluPfPKfii_param_1", offset: 8, size: 8, align: 8 }, ParamLayout { name: "_Z13add_bias_reluPfPKfii_param_2", offset: 16, size: 4, align: 4 }, ParamLayout { name: "_Z13add_bias_reluPfPKfii_param_3", offset: 20, size: 4, align: 4 }], notes: [] }
; PTX lowered by wheelport for target dtk
target datalayout = "e-p:64:64-p1:64:64-p2:32:32-p3:32:32-p4:64:64-p5:32:32-p6:32:32-p7:160:256:256:32-p8:128:128-p9:192:256:256:32-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-v2048:2048-n32:64-S32-A5-G1-ni:7:8:9"
target triple = "amdgcn-amd-amdhsa"

@$str = addrspace(1) global [107 x i8] c"ERROR \3A Arch conditional MMA instruction used without targeting appropriate compute capability\2E Aborting\2E\0A\00", align 1
@__wp_printf_fifo = addrspace(1) externally_initialized global [1048576 x i8] zeroinitializer, align 16

define amdgpu_kernel void @_Z20sm90_gemm_stub_printPKfS0_Pfi(i64 %a0, i64 %a1, i64 %a2, i32 %a3)  {
entry:
  %m1 = alloca [8 x i8], align 8, addrspace(5)
  store i64 %a0, ptr addrspace(5) %m1
  %m2 = alloca [8 x i8], align 8, addrspace(5)
  store i64 %a1, ptr addrspace(5) %m2
  %m3 = alloca [8 x i8], align 8, addrspace(5)
  store i64 %a2, ptr addrspace(5) %m3
  %m4 = alloca [4 x i8], align 4, addrspace(5)
  store i32 %a3, ptr addrspace(5) %m4
  %r4 = alloca i32, addrspace(5)
  %r5 = alloca i32, addrspace(5)
  %r6 = alloca i64, addrspace(5)
  %r7 = alloca i64, addrspace(5)
  %r8 = alloca i64, addrspace(5)
  %r9 = alloca i32, addrspace(5)
  %m11 = alloca [8 x i8], align 8, addrspace(5)
  %m12 = alloca [8 x i8], align 8, addrspace(5)
  %m13 = alloca [4 x i8], align 4, addrspace(5)
  br label %start
start:
  %t1 = ptrtoint ptr addrspace(1) @$str to i64
  store i64 %t1, ptr addrspace(5) %r7
  %t2 = load i64, ptr addrspace(5) %r7
  %t3 = inttoptr i64 %t2 to ptr addrspace(1)
  %t4 = addrspacecast ptr addrspace(1) %t3 to ptr
  %t5 = ptrtoint ptr %t4 to i64
  store i64 %t5, ptr addrspace(5) %r8
  %t6 = load i64, ptr addrspace(5) %r8
  store i64 %t6, ptr addrspace(5) %m11, align 8
  store i64 0, ptr addrspace(5) %m12, align 8
  %t7 = load i64, ptr addrspace(5) %m11
  %t8 = load i64, ptr addrspace(5) %m12
  %t9 = call i32 @__wp_vprintf(i64 %t7, i64 %t8)
  store i32 %t9, ptr addrspace(5) %m13
  %t10 = load i32, ptr addrspace(5) %m13, align 4
  store i32 %t10, ptr addrspace(5) %r5
  br label %ret
ret:
  ret void
}

define amdgpu_kernel void @_Z19sm90_gemm_stub_trapPKfS0_Pfi(i64 %a0, i64 %a1, i64 %a2, i32 %a3)  {
entry:
  %m1 = alloca [8 x i8], align 8, addrspace(5)
  store i64 %a0, ptr addrspace(5) %m1
  %m2 = alloca [8 x i8], align 8, addrspace(5)
  store i64 %a1, ptr addrspace(5) %m2
  %m3 = alloca [8 x i8], align 8, addrspace(5)
  store i64 %a2, ptr addrspace(5) %m3
  %m4 = alloca [4 x i8], align 4, addrspace(5)
  store i32 %a3, ptr addrspace(5) %m4
  br label %start
start:
  call void @__wp_trap()
  br label %ret
ret:
  ret void
}

define amdgpu_kernel void @_Z13rowwise_scalePfPKfii(i64 %a0, i64 %a1, i32 %a2, i32 %a3)  {
entry:
  %m1 = alloca [8 x i8], align 8, addrspace(5)
  store i64 %a0, ptr addrspace(5) %m1
  %m2 = alloca [8 x i8], align 8, addrspace(5)
  store i64 %a1, ptr addrspace(5) %m2
  %m3 = alloca [4 x i8], align 4, addrspace(5)
  store i32 %a2, ptr addrspace(5) %m3
  %m4 = alloca [4 x i8], align 4, addrspace(5)
  store i32 %a3, ptr addrspace(5) %m4
  %r4 = alloca i1, addrspace(5)
  %r5 = alloca i1, addrspace(5)
  %r6 = alloca i1, addrspace(5)
  %r7 = alloca i1, addrspace(5)
  %r8 = alloca i1, addrspace(5)
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
  br label %start
start:
  %t1 = load i64, ptr addrspace(5) %m1, align 8
  store i64 %t1, ptr addrspace(5) %r34
  %t2 = load i64, ptr addrspace(5) %m2, align 8
  store i64 %t2, ptr addrspace(5) %r35
  %t3 = load i32, ptr addrspace(5) %m3, align 4
  store i32 %t3, ptr addrspace(5) %r23
  %t4 = load i32, ptr addrspace(5) %m4, align 4
  store i32 %t4, ptr addrspace(5) %r24
  %t5 = call i32 @__wp_sreg_ntid_x()
  store i32 %t5, ptr addrspace(5) %r14
  %t6 = call i32 @__wp_sreg_ctaid_x()
  store i32 %t6, ptr addrspace(5) %r25
  %t7 = call i32 @__wp_sreg_tid_x()
  store i32 %t7, ptr addrspace(5) %r26
  %t8 = load i32, ptr addrspace(5) %r25
  %t9 = load i32, ptr addrspace(5) %r14
  %t10 = mul i32 %t8, %t9
  %t11 = load i32, ptr addrspace(5) %r26
  %t12 = add i32 %t10, %t11
  store i32 %t12, ptr addrspace(5) %r29
  %t13 = load i32, ptr addrspace(5) %r29
  %t14 = load i32, ptr addrspace(5) %r24
  %t15 = icmp sge i32 %t13, %t14
  %t16 = xor i1 %t15, true
  store i1 %t15, ptr addrspace(5) %r5
  %t17 = load i1, ptr addrspace(5) %r5
  br i1 %t17, label %L.$L__BB2_5, label %b1
b1:
  %t18 = call i32 @__wp_sreg_ctaid_y()
  store i32 %t18, ptr addrspace(5) %r16
  %t19 = call i32 @__wp_sreg_nctaid_x()
  store i32 %t19, ptr addrspace(5) %r27
  %t20 = load i32, ptr addrspace(5) %r27
  %t21 = load i32, ptr addrspace(5) %r14
  %t22 = mul i32 %t20, %t21
  store i32 %t22, ptr addrspace(5) %r17
  %t23 = load i32, ptr addrspace(5) %r16
  %t24 = load i32, ptr addrspace(5) %r23
  %t25 = icmp slt i32 %t23, %t24
  %t26 = xor i1 %t25, true
  store i1 %t25, ptr addrspace(5) %r6
  %t27 = load i1, ptr addrspace(5) %r6
  br i1 %t27, label %L.$L__BB2_3, label %b2
b2:
  br label %L.$L__BB2_2
L.$L__BB2_3:
  %t28 = load i64, ptr addrspace(5) %r34
  %t29 = inttoptr i64 %t28 to ptr
  %t30 = addrspacecast ptr %t29 to ptr addrspace(1)
  %t31 = ptrtoint ptr addrspace(1) %t30 to i64
  store i64 %t31, ptr addrspace(5) %r32
  %t32 = load i32, ptr addrspace(5) %r16
  %t33 = load i32, ptr addrspace(5) %r24
  %t34 = mul i32 %t32, %t33
  store i32 %t34, ptr addrspace(5) %r20
  %t35 = load i64, ptr addrspace(5) %r35
  %t36 = inttoptr i64 %t35 to ptr
  %t37 = addrspacecast ptr %t36 to ptr addrspace(1)
  %t38 = ptrtoint ptr addrspace(1) %t37 to i64
  store i64 %t38, ptr addrspace(5) %r36
  %t39 = load i32, ptr addrspace(5) %r16
  %t40 = sext i32 %t39 to i64
  %t41 = sext i32 4 to i64
  %t42 = mul i64 %t40, %t41
  store i64 %t42, ptr addrspace(5) %r37
  %t43 = load i64, ptr addrspace(5) %r36
  %t44 = load i64, ptr addrspace(5) %r37
  %t45 = add i64 %t43, %t44
  store i64 %t45, ptr addrspace(5) %r33
  br label %L.$L__BB2_4
L.$L__BB2_4:
  %t46 = load i32, ptr addrspace(5) %r29
  %t47 = load i32, ptr addrspace(5) %r20
  %t48 = add i32 %t46, %t47
  store i32 %t48, ptr addrspace(5) %r28
  %t49 = load i32, ptr addrspace(5) %r28
  %t50 = sext i32 %t49 to i64
  %t51 = sext i32 4 to i64
  %t52 = mul i64 %t50, %t51
  store i64 %t52, ptr addrspace(5) %r38
  %t53 = load i64, ptr addrspace(5) %r32
  %t54 = load i64, ptr addrspace(5) %r38
  %t55 = add i64 %t53, %t54
  store i64 %t55, ptr addrspace(5) %r39
  %t56 = load i64, ptr addrspace(5) %r39
  %t57 = inttoptr i64 %t56 to ptr addrspace(1)
  %t58 = load float, ptr addrspace(1) %t57, align 4
  store float %t58, ptr addrspace(5) %r10
  %t59 = load i64, ptr addrspace(5) %r33
  %t60 = inttoptr i64 %t59 to ptr addrspace(1)
  %t61 = load float, ptr addrspace(1) %t60, align 4
  store float %t61, ptr addrspace(5) %r11
  %t62 = load float, ptr addrspace(5) %r11
  %t63 = load float, ptr addrspace(5) %r10
  %t64 = fmul float %t62, %t63
  store float %t64, ptr addrspace(5) %r12
  %t65 = load i64, ptr addrspace(5) %r39
  %t66 = inttoptr i64 %t65 to ptr addrspace(1)
  %t67 = load float, ptr addrspace(5) %r12
  store float %t67, ptr addrspace(1) %t66, align 4
  %t68 = load i32, ptr addrspace(5) %r29
  %t69 = load i32, ptr addrspace(5) %r17
  %t70 = add i32 %t68, %t69
  store i32 %t70, ptr addrspace(5) %r29
  %t71 = load i32, ptr addrspace(5) %r29
  %t72 = load i32, ptr addrspace(5) %r24
  %t73 = icmp slt i32 %t71, %t72
  %t74 = xor i1 %t73, true
  store i1 %t73, ptr addrspace(5) %r8
  %t75 = load i1, ptr addrspace(5) %r8
  br i1 %t75, label %L.$L__BB2_4, label %b3
b3:
  br label %L.$L__BB2_5
L.$L__BB2_2:
  %t76 = load i32, ptr addrspace(5) %r29
  %t77 = load i32, ptr addrspace(5) %r17
  %t78 = add i32 %t76, %t77
  store i32 %t78, ptr addrspace(5) %r29
  %t79 = load i32, ptr addrspace(5) %r29
  %t80 = load i32, ptr addrspace(5) %r24
  %t81 = icmp slt i32 %t79, %t80
  %t82 = xor i1 %t81, true
  store i1 %t81, ptr addrspace(5) %r7
  %t83 = load i1, ptr addrspace(5) %r7
  br i1 %t83, label %L.$L__BB2_2, label %b4
b4:
  br label %L.$L__BB2_5
L.$L__BB2_5:
  br label %ret
ret:
  ret void
}

define amdgpu_kernel void @_Z13add_bias_reluPfPKfii(i64 %a0, i64 %a1, i32 %a2, i32 %a3)  {
entry:
  %m1 = alloca [8 x i8], align 8, addrspace(5)
  store i64 %a0, ptr addrspace(5) %m1
  %m2 = alloca [8 x i8], align 8, addrspace(5)
  store i64 %a1, ptr addrspace(5) %m2
  %m3 = alloca [4 x i8], align 4, addrspace(5)
  store i32 %a2, ptr addrspace(5) %m3
  %m4 = alloca [4 x i8], align 4, addrspace(5)
  store i32 %a3, ptr addrspace(5) %m4
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
  %r28 = alloca i64, addrspace(5)
  br label %start
start:
  %t1 = load i64, ptr addrspace(5) %m1, align 8
  store i64 %t1, ptr addrspace(5) %r21
  %t2 = load i64, ptr addrspace(5) %m2, align 8
  store i64 %t2, ptr addrspace(5) %r22
  %t3 = load i32, ptr addrspace(5) %m3, align 4
  store i32 %t3, ptr addrspace(5) %r15
  %t4 = load i32, ptr addrspace(5) %m4, align 4
  store i32 %t4, ptr addrspace(5) %r14
  %t5 = call i32 @__wp_sreg_ctaid_x()
  store i32 %t5, ptr addrspace(5) %r16
  %t6 = call i32 @__wp_sreg_ntid_x()
  store i32 %t6, ptr addrspace(5) %r17
  %t7 = call i32 @__wp_sreg_tid_x()
  store i32 %t7, ptr addrspace(5) %r18
  %t8 = load i32, ptr addrspace(5) %r16
  %t9 = load i32, ptr addrspace(5) %r17
  %t10 = mul i32 %t8, %t9
  %t11 = load i32, ptr addrspace(5) %r18
  %t12 = add i32 %t10, %t11
  store i32 %t12, ptr addrspace(5) %r13
  %t13 = load i32, ptr addrspace(5) %r13
  %t14 = load i32, ptr addrspace(5) %r15
  %t15 = icmp sge i32 %t13, %t14
  %t16 = xor i1 %t15, true
  store i1 %t15, ptr addrspace(5) %r5
  %t17 = load i1, ptr addrspace(5) %r5
  br i1 %t17, label %L.$L__BB3_2, label %b1
b1:
  %t18 = load i64, ptr addrspace(5) %r21
  %t19 = inttoptr i64 %t18 to ptr
  %t20 = addrspacecast ptr %t19 to ptr addrspace(1)
  %t21 = ptrtoint ptr addrspace(1) %t20 to i64
  store i64 %t21, ptr addrspace(5) %r23
  %t22 = load i32, ptr addrspace(5) %r13
  %t23 = sext i32 %t22 to i64
  %t24 = sext i32 4 to i64
  %t25 = mul i64 %t23, %t24
  store i64 %t25, ptr addrspace(5) %r24
  %t26 = load i64, ptr addrspace(5) %r23
  %t27 = load i64, ptr addrspace(5) %r24
  %t28 = add i64 %t26, %t27
  store i64 %t28, ptr addrspace(5) %r25
  %t29 = load i32, ptr addrspace(5) %r13
  %t30 = load i32, ptr addrspace(5) %r14
  %t31 = icmp eq i32 %t30, 0
  %t32 = icmp eq i32 %t30, -1
  %t33 = or i1 %t31, %t32
  %t34 = select i1 %t33, i32 1, i32 %t30
  %t35 = srem i32 %t29, %t34
  %t36 = select i1 %t32, i32 0, i32 %t35
  store i32 %t36, ptr addrspace(5) %r19
  %t37 = load i64, ptr addrspace(5) %r22
  %t38 = inttoptr i64 %t37 to ptr
  %t39 = addrspacecast ptr %t38 to ptr addrspace(1)
  %t40 = ptrtoint ptr addrspace(1) %t39 to i64
  store i64 %t40, ptr addrspace(5) %r26
  %t41 = load i32, ptr addrspace(5) %r19
  %t42 = sext i32 %t41 to i64
  %t43 = sext i32 4 to i64
  %t44 = mul i64 %t42, %t43
  store i64 %t44, ptr addrspace(5) %r27
  %t45 = load i64, ptr addrspace(5) %r26
  %t46 = load i64, ptr addrspace(5) %r27
  %t47 = add i64 %t45, %t46
  store i64 %t47, ptr addrspace(5) %r28
  %t48 = load i64, ptr addrspace(5) %r28
  %t49 = inttoptr i64 %t48 to ptr addrspace(1)
  %t50 = load float, ptr addrspace(1) %t49, align 4
  store float %t50, ptr addrspace(5) %r7
  %t51 = load i64, ptr addrspace(5) %r25
  %t52 = inttoptr i64 %t51 to ptr addrspace(1)
  %t53 = load float, ptr addrspace(1) %t52, align 4
  store float %t53, ptr addrspace(5) %r8
  %t54 = load float, ptr addrspace(5) %r8
  %t55 = load float, ptr addrspace(5) %r7
  %t56 = fadd float %t54, %t55
  store float %t56, ptr addrspace(5) %r9
  store i32 0, ptr addrspace(5) %r10
  %t57 = load float, ptr addrspace(5) %r9
  %t58 = load float, ptr addrspace(5) %r10
  %t59 = call float @llvm.maxnum.f32(float %t57, float %t58)
  store float %t59, ptr addrspace(5) %r11
  %t60 = load i64, ptr addrspace(5) %r25
  %t61 = inttoptr i64 %t60 to ptr addrspace(1)
  %t62 = load float, ptr addrspace(5) %r11
  store float %t62, ptr addrspace(1) %t61, align 4
  br label %L.$L__BB3_2
L.$L__BB3_2:
  br label %ret
ret:
  ret void
}

declare i32 @__wp_vprintf(i64, i64)
declare i32 @__wp_sreg_ctaid_x()
declare i32 @__wp_sreg_ctaid_y()
declare i32 @__wp_sreg_nctaid_x()
declare i32 @__wp_sreg_ntid_x()
declare i32 @__wp_sreg_tid_x()
declare void @__wp_trap()
declare float @llvm.maxnum.f32(float, float)
