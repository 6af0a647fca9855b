; wheelport lowering golden: profile dtk, input fixtures__cuda__sass_ptx.so.0
; kernel KernelResult { name: "_Z5saxpyifPKfPf", outcome: Lowered, params: [ParamLayout { name: "_Z5saxpyifPKfPf_param_0", offset: 0, size: 4, align: 4 }, ParamLayout { name: "_Z5saxpyifPKfPf_param_1", offset: 4, size: 4, align: 4 }, ParamLayout { name: "_Z5saxpyifPKfPf_param_2", offset: 8, size: 8, align: 8 }, ParamLayout { name: "_Z5saxpyifPKfPf_param_3", offset: 16, size: 8, align: 8 }], notes: [] }
; kernel KernelResult { name: "_Z10reduce_sumPKfPfi", outcome: Lowered, params: [ParamLayout { name: "_Z10reduce_sumPKfPfi_param_0", offset: 0, size: 8, align: 8 }, ParamLayout { name: "_Z10reduce_sumPKfPfi_param_1", offset: 8, size: 8, align: 8 }, ParamLayout { name: "_Z10reduce_sumPKfPfi_param_2", offset: 16, size: 4, align: 4 }], notes: [] }
; PTX lowered by wheelport for target dtk
target datalayout = "e-p:64:64-p1:64:64-p2:32:32-p3:32:32-p4:64:64-p5:32:32-p6:32:32-p7:160:256:256:32-p8:128:128-p9:192:256:256:32-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-v2048:2048-n32:64-S32-A5-G1-ni:7:8:9"
target triple = "amdgcn-amd-amdhsa"

@__wp_fvar.1._ZZ10reduce_sumPKfPfiE9warp_sums = internal addrspace(3) global [128 x i8] poison, align 4

define amdgpu_kernel void @_Z5saxpyifPKfPf(i32 %a0, i32 %a1, i64 %a2, i64 %a3)  {
entry:
  %m1 = alloca [4 x i8], align 4, addrspace(5)
  store i32 %a0, ptr addrspace(5) %m1
  %m2 = alloca [4 x i8], align 4, addrspace(5)
  store i32 %a1, ptr addrspace(5) %m2
  %m3 = alloca [8 x i8], align 8, addrspace(5)
  store i64 %a2, ptr addrspace(5) %m3
  %m4 = alloca [8 x i8], align 8, addrspace(5)
  store i64 %a3, ptr addrspace(5) %m4
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
  %r17 = alloca i64, addrspace(5)
  %r18 = alloca i64, addrspace(5)
  %r19 = alloca i64, addrspace(5)
  %r20 = alloca i64, addrspace(5)
  %r21 = alloca i64, addrspace(5)
  %r22 = alloca i64, addrspace(5)
  %r23 = alloca i64, addrspace(5)
  %r24 = alloca i64, addrspace(5)
  br label %start
start:
  %t1 = load i32, ptr addrspace(5) %m1, align 4
  store i32 %t1, ptr addrspace(5) %r13
  %t2 = load float, ptr addrspace(5) %m2, align 4
  store float %t2, ptr addrspace(5) %r7
  %t3 = load i64, ptr addrspace(5) %m3, align 8
  store i64 %t3, ptr addrspace(5) %r18
  %t4 = load i64, ptr addrspace(5) %m4, align 8
  store i64 %t4, ptr addrspace(5) %r19
  %t5 = call i32 @__wp_sreg_ctaid_x()
  store i32 %t5, ptr addrspace(5) %r14
  %t6 = call i32 @__wp_sreg_ntid_x()
  store i32 %t6, ptr addrspace(5) %r15
  %t7 = call i32 @__wp_sreg_tid_x()
  store i32 %t7, ptr addrspace(5) %r16
  %t8 = load i32, ptr addrspace(5) %r14
  %t9 = load i32, ptr addrspace(5) %r15
  %t10 = mul i32 %t8, %t9
  %t11 = load i32, ptr addrspace(5) %r16
  %t12 = add i32 %t10, %t11
  store i32 %t12, ptr addrspace(5) %r12
  %t13 = load i32, ptr addrspace(5) %r12
  %t14 = load i32, ptr addrspace(5) %r13
  %t15 = icmp sge i32 %t13, %t14
  %t16 = xor i1 %t15, true
  store i1 %t15, ptr addrspace(5) %r5
  %t17 = load i1, ptr addrspace(5) %r5
  br i1 %t17, label %L.$L__BB0_2, label %b1
b1:
  %t18 = load i64, ptr addrspace(5) %r19
  %t19 = inttoptr i64 %t18 to ptr
  %t20 = addrspacecast ptr %t19 to ptr addrspace(1)
  %t21 = ptrtoint ptr addrspace(1) %t20 to i64
  store i64 %t21, ptr addrspace(5) %r20
  %t22 = load i64, ptr addrspace(5) %r18
  %t23 = inttoptr i64 %t22 to ptr
  %t24 = addrspacecast ptr %t23 to ptr addrspace(1)
  %t25 = ptrtoint ptr addrspace(1) %t24 to i64
  store i64 %t25, ptr addrspace(5) %r21
  %t26 = load i32, ptr addrspace(5) %r12
  %t27 = sext i32 %t26 to i64
  %t28 = sext i32 4 to i64
  %t29 = mul i64 %t27, %t28
  store i64 %t29, ptr addrspace(5) %r22
  %t30 = load i64, ptr addrspace(5) %r21
  %t31 = load i64, ptr addrspace(5) %r22
  %t32 = add i64 %t30, %t31
  store i64 %t32, ptr addrspace(5) %r23
  %t33 = load i64, ptr addrspace(5) %r23
  %t34 = inttoptr i64 %t33 to ptr addrspace(1)
  %t35 = load float, ptr addrspace(1) %t34, align 4
  store float %t35, ptr addrspace(5) %r8
  %t36 = load i64, ptr addrspace(5) %r20
  %t37 = load i64, ptr addrspace(5) %r22
  %t38 = add i64 %t36, %t37
  store i64 %t38, ptr addrspace(5) %r24
  %t39 = load i64, ptr addrspace(5) %r24
  %t40 = inttoptr i64 %t39 to ptr addrspace(1)
  %t41 = load float, ptr addrspace(1) %t40, align 4
  store float %t41, ptr addrspace(5) %r9
  %t42 = load float, ptr addrspace(5) %r8
  %t43 = load float, ptr addrspace(5) %r7
  %t44 = load float, ptr addrspace(5) %r9
  %t45 = call float @llvm.fma.f32(float %t42, float %t43, float %t44)
  store float %t45, ptr addrspace(5) %r10
  %t46 = load i64, ptr addrspace(5) %r24
  %t47 = inttoptr i64 %t46 to ptr addrspace(1)
  %t48 = load float, ptr addrspace(5) %r10
  store float %t48, ptr addrspace(1) %t47, align 4
  br label %L.$L__BB0_2
L.$L__BB0_2:
  br label %ret
ret:
  ret void
}

define amdgpu_kernel void @_Z10reduce_sumPKfPfi(i64 %a0, i64 %a1, i32 %a2)  {
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
  %r6 = alloca i1, addrspace(5)
  %r7 = alloca i1, addrspace(5)
  %r8 = alloca i1, addrspace(5)
  %r9 = alloca i1, addrspace(5)
  %r10 = alloca i1, addrspace(5)
  %r11 = alloca i1, addrspace(5)
  %r12 = alloca i1, addrspace(5)
  %r13 = alloca i1, addrspace(5)
  %r14 = alloca i1, addrspace(5)
  %r15 = alloca i1, addrspace(5)
  %r16 = alloca i1, addrspace(5)
  %r17 = alloca i1, addrspace(5)
  %r18 = alloca i1, addrspace(5)
  %r19 = alloca i1, addrspace(5)
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
  %r31 = alloca i32, addrspace(5)
  %r32 = alloca i32, addrspace(5)
  %r33 = alloca i32, addrspace(5)
  %r34 = alloca i32, addrspace(5)
  %r35 = alloca i32, addrspace(5)
  %r36 = alloca i32, addrspace(5)
  %r37 = alloca i32, addrspace(5)
  %r38 = alloca i32, addrspace(5)
  %r39 = alloca i32, addrspace(5)
  %r40 = alloca i32, addrspace(5)
  %r41 = alloca i32, addrspace(5)
  %r42 = alloca i32, addrspace(5)
  %r43 = alloca i32, addrspace(5)
  %r44 = alloca i32, addrspace(5)
  %r45 = alloca i32, addrspace(5)
  %r46 = alloca i32, addrspace(5)
  %r47 = alloca i32, addrspace(5)
  %r48 = alloca i32, addrspace(5)
  %r49 = alloca i32, addrspace(5)
  %r50 = alloca i32, addrspace(5)
  %r51 = alloca i32, addrspace(5)
  %r52 = alloca i32, addrspace(5)
  %r53 = alloca i32, addrspace(5)
  %r54 = alloca i32, addrspace(5)
  %r55 = alloca i32, addrspace(5)
  %r56 = alloca i32, addrspace(5)
  %r57 = alloca i32, addrspace(5)
  %r58 = alloca i32, addrspace(5)
  %r59 = alloca i32, addrspace(5)
  %r60 = alloca i32, addrspace(5)
  %r61 = alloca i32, addrspace(5)
  %r62 = alloca i32, addrspace(5)
  %r63 = alloca i32, addrspace(5)
  %r64 = alloca i32, addrspace(5)
  %r65 = alloca i32, addrspace(5)
  %r66 = alloca i32, addrspace(5)
  %r67 = alloca i32, addrspace(5)
  %r68 = alloca i32, addrspace(5)
  %r69 = alloca i32, addrspace(5)
  %r70 = alloca i32, addrspace(5)
  %r71 = alloca i32, addrspace(5)
  %r72 = alloca i32, addrspace(5)
  %r73 = alloca i32, addrspace(5)
  %r74 = alloca i32, addrspace(5)
  %r75 = alloca i32, addrspace(5)
  %r76 = alloca i32, addrspace(5)
  %r77 = alloca i32, addrspace(5)
  %r78 = alloca i32, addrspace(5)
  %r79 = alloca i32, addrspace(5)
  %r80 = alloca i32, addrspace(5)
  %r81 = alloca i32, addrspace(5)
  %r82 = alloca i32, addrspace(5)
  %r83 = alloca i32, addrspace(5)
  %r84 = alloca i32, addrspace(5)
  %r85 = alloca i32, addrspace(5)
  %r86 = alloca i32, addrspace(5)
  %r87 = alloca i32, addrspace(5)
  %r88 = alloca i32, addrspace(5)
  %r89 = alloca i32, addrspace(5)
  %r90 = alloca i32, addrspace(5)
  %r91 = alloca i32, addrspace(5)
  %r92 = alloca i32, addrspace(5)
  %r93 = alloca i32, addrspace(5)
  %r94 = alloca i32, addrspace(5)
  %r95 = alloca i32, addrspace(5)
  %r96 = alloca i32, addrspace(5)
  %r97 = alloca i32, addrspace(5)
  %r98 = alloca i32, addrspace(5)
  %r99 = alloca i32, addrspace(5)
  %r100 = alloca i32, addrspace(5)
  %r101 = alloca i32, addrspace(5)
  %r102 = alloca i32, addrspace(5)
  %r103 = alloca i32, addrspace(5)
  %r104 = alloca i32, addrspace(5)
  %r105 = alloca i32, addrspace(5)
  %r106 = alloca i32, addrspace(5)
  %r107 = alloca i32, addrspace(5)
  %r108 = alloca i32, addrspace(5)
  %r109 = alloca i64, addrspace(5)
  %r110 = alloca i64, addrspace(5)
  %r111 = alloca i64, addrspace(5)
  %r112 = alloca i64, addrspace(5)
  %r113 = alloca i64, addrspace(5)
  %r114 = alloca i64, addrspace(5)
  %r115 = alloca i64, addrspace(5)
  br label %start
start:
  %t1 = load i64, ptr addrspace(5) %m1, align 8
  store i64 %t1, ptr addrspace(5) %r111
  %t2 = load i64, ptr addrspace(5) %m2, align 8
  store i64 %t2, ptr addrspace(5) %r112
  %t3 = load i32, ptr addrspace(5) %m3, align 4
  store i32 %t3, ptr addrspace(5) %r63
  %t4 = call i32 @__wp_sreg_ntid_x()
  store i32 %t4, ptr addrspace(5) %r55
  %t5 = call i32 @__wp_sreg_ctaid_x()
  store i32 %t5, ptr addrspace(5) %r64
  %t6 = call i32 @__wp_sreg_tid_x()
  store i32 %t6, ptr addrspace(5) %r56
  %t7 = load i32, ptr addrspace(5) %r64
  %t8 = load i32, ptr addrspace(5) %r55
  %t9 = mul i32 %t7, %t8
  %t10 = load i32, ptr addrspace(5) %r56
  %t11 = add i32 %t9, %t10
  store i32 %t11, ptr addrspace(5) %r108
  %t12 = load i32, ptr addrspace(5) %r108
  %t13 = load i32, ptr addrspace(5) %r63
  %t14 = icmp sge i32 %t12, %t13
  %t15 = xor i1 %t14, true
  store i1 %t14, ptr addrspace(5) %r4
  store i32 0, ptr addrspace(5) %r52
  %t16 = load i1, ptr addrspace(5) %r4
  br i1 %t16, label %L.$L__BB1_3, label %b1
b1:
  %t17 = call i32 @__wp_sreg_nctaid_x()
  store i32 %t17, ptr addrspace(5) %r65
  %t18 = load i32, ptr addrspace(5) %r65
  %t19 = load i32, ptr addrspace(5) %r55
  %t20 = mul i32 %t18, %t19
  store i32 %t20, ptr addrspace(5) %r58
  %t21 = load i64, ptr addrspace(5) %r111
  %t22 = inttoptr i64 %t21 to ptr
  %t23 = addrspacecast ptr %t22 to ptr addrspace(1)
  %t24 = ptrtoint ptr addrspace(1) %t23 to i64
  store i64 %t24, ptr addrspace(5) %r110
  store i32 0, ptr addrspace(5) %r52
  br label %L.$L__BB1_2
L.$L__BB1_2:
  %t25 = load i32, ptr addrspace(5) %r108
  %t26 = sext i32 %t25 to i64
  %t27 = sext i32 4 to i64
  %t28 = mul i64 %t26, %t27
  store i64 %t28, ptr addrspace(5) %r113
  %t29 = load i64, ptr addrspace(5) %r110
  %t30 = load i64, ptr addrspace(5) %r113
  %t31 = add i64 %t29, %t30
  store i64 %t31, ptr addrspace(5) %r114
  %t32 = load i64, ptr addrspace(5) %r114
  %t33 = inttoptr i64 %t32 to ptr addrspace(1)
  %t34 = load float, ptr addrspace(1) %t33, align 4
  store float %t34, ptr addrspace(5) %r30
  %t35 = load float, ptr addrspace(5) %r52
  %t36 = load float, ptr addrspace(5) %r30
  %t37 = fadd float %t35, %t36
  store float %t37, ptr addrspace(5) %r52
  %t38 = load i32, ptr addrspace(5) %r108
  %t39 = load i32, ptr addrspace(5) %r58
  %t40 = add i32 %t38, %t39
  store i32 %t40, ptr addrspace(5) %r108
  %t41 = load i32, ptr addrspace(5) %r108
  %t42 = load i32, ptr addrspace(5) %r63
  %t43 = icmp slt i32 %t41, %t42
  %t44 = xor i1 %t43, true
  store i1 %t43, ptr addrspace(5) %r5
  %t45 = load i1, ptr addrspace(5) %r5
  br i1 %t45, label %L.$L__BB1_2, label %b2
b2:
  br label %L.$L__BB1_3
L.$L__BB1_3:
  %t46 = load i32, ptr addrspace(5) %r52
  store i32 %t46, ptr addrspace(5) %r66
  store i32 31, ptr addrspace(5) %r67
  store i32 16, ptr addrspace(5) %r68
  store i32 -1, ptr addrspace(5) %r69
  %t47 = load i32, ptr addrspace(5) %r66
  %t48 = load i32, ptr addrspace(5) %r68
  %t49 = load i32, ptr addrspace(5) %r67
  %t50 = load i32, ptr addrspace(5) %r69
  %t51 = call { i32, i1 } @__wp_shfl_bfly(i32 %t50, i32 %t47, i32 %t48, i32 %t49)
  %t52 = extractvalue { i32, i1 } %t51, 0
  %t53 = extractvalue { i32, i1 } %t51, 1
  store i32 %t52, ptr addrspace(5) %r70
  store i1 %t53, ptr addrspace(5) %r6
  %t54 = load i32, ptr addrspace(5) %r70
  store i32 %t54, ptr addrspace(5) %r31
  %t55 = load float, ptr addrspace(5) %r52
  %t56 = load float, ptr addrspace(5) %r31
  %t57 = fadd float %t55, %t56
  store float %t57, ptr addrspace(5) %r32
  %t58 = load i32, ptr addrspace(5) %r32
  store i32 %t58, ptr addrspace(5) %r71
  store i32 8, ptr addrspace(5) %r72
  %t59 = load i32, ptr addrspace(5) %r71
  %t60 = load i32, ptr addrspace(5) %r72
  %t61 = load i32, ptr addrspace(5) %r67
  %t62 = load i32, ptr addrspace(5) %r69
  %t63 = call { i32, i1 } @__wp_shfl_bfly(i32 %t62, i32 %t59, i32 %t60, i32 %t61)
  %t64 = extractvalue { i32, i1 } %t63, 0
  %t65 = extractvalue { i32, i1 } %t63, 1
  store i32 %t64, ptr addrspace(5) %r73
  store i1 %t65, ptr addrspace(5) %r7
  %t66 = load i32, ptr addrspace(5) %r73
  store i32 %t66, ptr addrspace(5) %r33
  %t67 = load float, ptr addrspace(5) %r32
  %t68 = load float, ptr addrspace(5) %r33
  %t69 = fadd float %t67, %t68
  store float %t69, ptr addrspace(5) %r34
  %t70 = load i32, ptr addrspace(5) %r34
  store i32 %t70, ptr addrspace(5) %r74
  store i32 4, ptr addrspace(5) %r75
  %t71 = load i32, ptr addrspace(5) %r74
  %t72 = load i32, ptr addrspace(5) %r75
  %t73 = load i32, ptr addrspace(5) %r67
  %t74 = load i32, ptr addrspace(5) %r69
  %t75 = call { i32, i1 } @__wp_shfl_bfly(i32 %t74, i32 %t71, i32 %t72, i32 %t73)
  %t76 = extractvalue { i32, i1 } %t75, 0
  %t77 = extractvalue { i32, i1 } %t75, 1
  store i32 %t76, ptr addrspace(5) %r76
  store i1 %t77, ptr addrspace(5) %r8
  %t78 = load i32, ptr addrspace(5) %r76
  store i32 %t78, ptr addrspace(5) %r35
  %t79 = load float, ptr addrspace(5) %r34
  %t80 = load float, ptr addrspace(5) %r35
  %t81 = fadd float %t79, %t80
  store float %t81, ptr addrspace(5) %r36
  %t82 = load i32, ptr addrspace(5) %r36
  store i32 %t82, ptr addrspace(5) %r77
  store i32 2, ptr addrspace(5) %r78
  %t83 = load i32, ptr addrspace(5) %r77
  %t84 = load i32, ptr addrspace(5) %r78
  %t85 = load i32, ptr addrspace(5) %r67
  %t86 = load i32, ptr addrspace(5) %r69
  %t87 = call { i32, i1 } @__wp_shfl_bfly(i32 %t86, i32 %t83, i32 %t84, i32 %t85)
  %t88 = extractvalue { i32, i1 } %t87, 0
  %t89 = extractvalue { i32, i1 } %t87, 1
  store i32 %t88, ptr addrspace(5) %r79
  store i1 %t89, ptr addrspace(5) %r9
  %t90 = load i32, ptr addrspace(5) %r79
  store i32 %t90, ptr addrspace(5) %r37
  %t91 = load float, ptr addrspace(5) %r36
  %t92 = load float, ptr addrspace(5) %r37
  %t93 = fadd float %t91, %t92
  store float %t93, ptr addrspace(5) %r38
  %t94 = load i32, ptr addrspace(5) %r38
  store i32 %t94, ptr addrspace(5) %r80
  store i32 1, ptr addrspace(5) %r81
  %t95 = load i32, ptr addrspace(5) %r80
  %t96 = load i32, ptr addrspace(5) %r81
  %t97 = load i32, ptr addrspace(5) %r67
  %t98 = load i32, ptr addrspace(5) %r69
  %t99 = call { i32, i1 } @__wp_shfl_bfly(i32 %t98, i32 %t95, i32 %t96, i32 %t97)
  %t100 = extractvalue { i32, i1 } %t99, 0
  %t101 = extractvalue { i32, i1 } %t99, 1
  store i32 %t100, ptr addrspace(5) %r82
  store i1 %t101, ptr addrspace(5) %r10
  %t102 = load i32, ptr addrspace(5) %r82
  store i32 %t102, ptr addrspace(5) %r39
  %t103 = load float, ptr addrspace(5) %r38
  %t104 = load float, ptr addrspace(5) %r39
  %t105 = fadd float %t103, %t104
  store float %t105, ptr addrspace(5) %r24
  %t106 = load i32, ptr addrspace(5) %r56
  %t107 = icmp uge i32 5, 32
  %t108 = call i32 @llvm.umin.i32(i32 5, i32 31)
  %t109 = lshr i32 %t106, %t108
  %t110 = select i1 %t107, i32 0, i32 %t109
  store i32 %t110, ptr addrspace(5) %r61
  %t111 = load i32, ptr addrspace(5) %r56
  %t112 = and i32 %t111, 31
  store i32 %t112, ptr addrspace(5) %r62
  %t113 = load i32, ptr addrspace(5) %r62
  %t114 = icmp ne i32 %t113, 0
  %t115 = xor i1 %t114, true
  store i1 %t114, ptr addrspace(5) %r11
  %t116 = load i1, ptr addrspace(5) %r11
  br i1 %t116, label %L.$L__BB1_5, label %b3
b3:
  %t117 = load i32, ptr addrspace(5) %r61
  %t118 = icmp uge i32 2, 32
  %t119 = call i32 @llvm.umin.i32(i32 2, i32 31)
  %t120 = shl i32 %t117, %t119
  %t121 = select i1 %t118, i32 0, i32 %t120
  store i32 %t121, ptr addrspace(5) %r83
  %t122 = ptrtoint ptr addrspace(3) @__wp_fvar.1._ZZ10reduce_sumPKfPfiE9warp_sums to i32
  store i32 %t122, ptr addrspace(5) %r84
  %t123 = load i32, ptr addrspace(5) %r84
  %t124 = load i32, ptr addrspace(5) %r83
  %t125 = add i32 %t123, %t124
  store i32 %t125, ptr addrspace(5) %r85
  %t126 = load i32, ptr addrspace(5) %r85
  %t127 = inttoptr i32 %t126 to ptr addrspace(3)
  %t128 = load float, ptr addrspace(5) %r24
  store float %t128, ptr addrspace(3) %t127, align 4
  br label %L.$L__BB1_5
L.$L__BB1_5:
  call void @__wp_bar_sync(i32 0)
  %t129 = load i32, ptr addrspace(5) %r61
  %t130 = icmp ne i32 %t129, 0
  %t131 = xor i1 %t130, true
  store i1 %t130, ptr addrspace(5) %r12
  %t132 = load i1, ptr addrspace(5) %r12
  br i1 %t132, label %L.$L__BB1_10, label %b4
b4:
  %t133 = load i32, ptr addrspace(5) %r55
  %t134 = add i32 %t133, 31
  store i32 %t134, ptr addrspace(5) %r86
  %t135 = load i32, ptr addrspace(5) %r86
  %t136 = icmp uge i32 5, 32
  %t137 = call i32 @llvm.umin.i32(i32 5, i32 31)
  %t138 = lshr i32 %t135, %t137
  %t139 = select i1 %t136, i32 0, i32 %t138
  store i32 %t139, ptr addrspace(5) %r87
  %t140 = load i32, ptr addrspace(5) %r62
  %t141 = load i32, ptr addrspace(5) %r87
  %t142 = icmp uge i32 %t140, %t141
  %t143 = xor i1 %t142, true
  store i1 %t142, ptr addrspace(5) %r13
  store i32 0, ptr addrspace(5) %r53
  %t144 = load i1, ptr addrspace(5) %r13
  br i1 %t144, label %L.$L__BB1_8, label %b5
b5:
  %t145 = load i32, ptr addrspace(5) %r62
  %t146 = icmp uge i32 2, 32
  %t147 = call i32 @llvm.umin.i32(i32 2, i32 31)
  %t148 = shl i32 %t145, %t147
  %t149 = select i1 %t146, i32 0, i32 %t148
  store i32 %t149, ptr addrspace(5) %r88
  %t150 = ptrtoint ptr addrspace(3) @__wp_fvar.1._ZZ10reduce_sumPKfPfiE9warp_sums to i32
  store i32 %t150, ptr addrspace(5) %r89
  %t151 = load i32, ptr addrspace(5) %r89
  %t152 = load i32, ptr addrspace(5) %r88
  %t153 = add i32 %t151, %t152
  store i32 %t153, ptr addrspace(5) %r90
  %t154 = load i32, ptr addrspace(5) %r90
  %t155 = inttoptr i32 %t154 to ptr addrspace(3)
  %t156 = load float, ptr addrspace(3) %t155, align 4
  store float %t156, ptr addrspace(5) %r53
  br label %L.$L__BB1_8
L.$L__BB1_8:
  %t157 = load i32, ptr addrspace(5) %r53
  store i32 %t157, ptr addrspace(5) %r91
  store i32 31, ptr addrspace(5) %r92
  store i32 16, ptr addrspace(5) %r93
  store i32 -1, ptr addrspace(5) %r94
  %t158 = load i32, ptr addrspace(5) %r91
  %t159 = load i32, ptr addrspace(5) %r93
  %t160 = load i32, ptr addrspace(5) %r92
  %t161 = load i32, ptr addrspace(5) %r94
  %t162 = call { i32, i1 } @__wp_shfl_bfly(i32 %t161, i32 %t158, i32 %t159, i32 %t160)
  %t163 = extractvalue { i32, i1 } %t162, 0
  %t164 = extractvalue { i32, i1 } %t162, 1
  store i32 %t163, ptr addrspace(5) %r95
  store i1 %t164, ptr addrspace(5) %r14
  %t165 = load i32, ptr addrspace(5) %r95
  store i32 %t165, ptr addrspace(5) %r41
  %t166 = load float, ptr addrspace(5) %r53
  %t167 = load float, ptr addrspace(5) %r41
  %t168 = fadd float %t166, %t167
  store float %t168, ptr addrspace(5) %r42
  %t169 = load i32, ptr addrspace(5) %r42
  store i32 %t169, ptr addrspace(5) %r96
  store i32 8, ptr addrspace(5) %r97
  %t170 = load i32, ptr addrspace(5) %r96
  %t171 = load i32, ptr addrspace(5) %r97
  %t172 = load i32, ptr addrspace(5) %r92
  %t173 = load i32, ptr addrspace(5) %r94
  %t174 = call { i32, i1 } @__wp_shfl_bfly(i32 %t173, i32 %t170, i32 %t171, i32 %t172)
  %t175 = extractvalue { i32, i1 } %t174, 0
  %t176 = extractvalue { i32, i1 } %t174, 1
  store i32 %t175, ptr addrspace(5) %r98
  store i1 %t176, ptr addrspace(5) %r15
  %t177 = load i32, ptr addrspace(5) %r98
  store i32 %t177, ptr addrspace(5) %r43
  %t178 = load float, ptr addrspace(5) %r42
  %t179 = load float, ptr addrspace(5) %r43
  %t180 = fadd float %t178, %t179
  store float %t180, ptr addrspace(5) %r44
  %t181 = load i32, ptr addrspace(5) %r44
  store i32 %t181, ptr addrspace(5) %r99
  store i32 4, ptr addrspace(5) %r100
  %t182 = load i32, ptr addrspace(5) %r99
  %t183 = load i32, ptr addrspace(5) %r100
  %t184 = load i32, ptr addrspace(5) %r92
  %t185 = load i32, ptr addrspace(5) %r94
  %t186 = call { i32, i1 } @__wp_shfl_bfly(i32 %t185, i32 %t182, i32 %t183, i32 %t184)
  %t187 = extractvalue { i32, i1 } %t186, 0
  %t188 = extractvalue { i32, i1 } %t186, 1
  store i32 %t187, ptr addrspace(5) %r101
  store i1 %t188, ptr addrspace(5) %r16
  %t189 = load i32, ptr addrspace(5) %r101
  store i32 %t189, ptr addrspace(5) %r45
  %t190 = load float, ptr addrspace(5) %r44
  %t191 = load float, ptr addrspace(5) %r45
  %t192 = fadd float %t190, %t191
  store float %t192, ptr addrspace(5) %r46
  %t193 = load i32, ptr addrspace(5) %r46
  store i32 %t193, ptr addrspace(5) %r102
  store i32 2, ptr addrspace(5) %r103
  %t194 = load i32, ptr addrspace(5) %r102
  %t195 = load i32, ptr addrspace(5) %r103
  %t196 = load i32, ptr addrspace(5) %r92
  %t197 = load i32, ptr addrspace(5) %r94
  %t198 = call { i32, i1 } @__wp_shfl_bfly(i32 %t197, i32 %t194, i32 %t195, i32 %t196)
  %t199 = extractvalue { i32, i1 } %t198, 0
  %t200 = extractvalue { i32, i1 } %t198, 1
  store i32 %t199, ptr addrspace(5) %r104
  store i1 %t200, ptr addrspace(5) %r17
  %t201 = load i32, ptr addrspace(5) %r104
  store i32 %t201, ptr addrspace(5) %r47
  %t202 = load float, ptr addrspace(5) %r46
  %t203 = load float, ptr addrspace(5) %r47
  %t204 = fadd float %t202, %t203
  store float %t204, ptr addrspace(5) %r48
  %t205 = load i32, ptr addrspace(5) %r48
  store i32 %t205, ptr addrspace(5) %r105
  store i32 1, ptr addrspace(5) %r106
  %t206 = load i32, ptr addrspace(5) %r105
  %t207 = load i32, ptr addrspace(5) %r106
  %t208 = load i32, ptr addrspace(5) %r92
  %t209 = load i32, ptr addrspace(5) %r94
  %t210 = call { i32, i1 } @__wp_shfl_bfly(i32 %t209, i32 %t206, i32 %t207, i32 %t208)
  %t211 = extractvalue { i32, i1 } %t210, 0
  %t212 = extractvalue { i32, i1 } %t210, 1
  store i32 %t211, ptr addrspace(5) %r107
  store i1 %t212, ptr addrspace(5) %r18
  %t213 = load i32, ptr addrspace(5) %r107
  store i32 %t213, ptr addrspace(5) %r49
  %t214 = load float, ptr addrspace(5) %r48
  %t215 = load float, ptr addrspace(5) %r49
  %t216 = fadd float %t214, %t215
  store float %t216, ptr addrspace(5) %r27
  %t217 = load i1, ptr addrspace(5) %r11
  br i1 %t217, label %L.$L__BB1_10, label %b6
b6:
  %t218 = load i64, ptr addrspace(5) %r112
  %t219 = inttoptr i64 %t218 to ptr
  %t220 = addrspacecast ptr %t219 to ptr addrspace(1)
  %t221 = ptrtoint ptr addrspace(1) %t220 to i64
  store i64 %t221, ptr addrspace(5) %r115
  %t222 = load i64, ptr addrspace(5) %r115
  %t223 = inttoptr i64 %t222 to ptr addrspace(1)
  %t224 = load float, ptr addrspace(5) %r27
  %t225 = atomicrmw fadd ptr addrspace(1) %t223, float %t224 syncscope("agent") monotonic, align 4
  store float %t225, ptr addrspace(5) %r50
  br label %L.$L__BB1_10
L.$L__BB1_10:
  br label %ret
ret:
  ret void
}

declare void @__wp_bar_sync(i32)
declare { i32, i1 } @__wp_shfl_bfly(i32, i32, i32, i32)
declare i32 @__wp_sreg_ctaid_x()
declare i32 @__wp_sreg_nctaid_x()
declare i32 @__wp_sreg_ntid_x()
declare i32 @__wp_sreg_tid_x()
declare float @llvm.fma.f32(float, float, float)
declare i32 @llvm.umin.i32(i32, i32)
