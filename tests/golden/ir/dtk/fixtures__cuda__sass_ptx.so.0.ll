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
  %t48 = call i32 @llvm.amdgcn.ds.swizzle(i32 %t47, i32 16415)
  store i32 %t48, ptr addrspace(5) %r70
  store i1 true, ptr addrspace(5) %r6
  %t49 = load i32, ptr addrspace(5) %r70
  store i32 %t49, ptr addrspace(5) %r31
  %t50 = load float, ptr addrspace(5) %r52
  %t51 = load float, ptr addrspace(5) %r31
  %t52 = fadd float %t50, %t51
  store float %t52, ptr addrspace(5) %r32
  %t53 = load i32, ptr addrspace(5) %r32
  store i32 %t53, ptr addrspace(5) %r71
  store i32 8, ptr addrspace(5) %r72
  %t54 = load i32, ptr addrspace(5) %r71
  %t55 = call i32 @llvm.amdgcn.ds.swizzle(i32 %t54, i32 8223)
  store i32 %t55, ptr addrspace(5) %r73
  store i1 true, ptr addrspace(5) %r7
  %t56 = load i32, ptr addrspace(5) %r73
  store i32 %t56, ptr addrspace(5) %r33
  %t57 = load float, ptr addrspace(5) %r32
  %t58 = load float, ptr addrspace(5) %r33
  %t59 = fadd float %t57, %t58
  store float %t59, ptr addrspace(5) %r34
  %t60 = load i32, ptr addrspace(5) %r34
  store i32 %t60, ptr addrspace(5) %r74
  store i32 4, ptr addrspace(5) %r75
  %t61 = load i32, ptr addrspace(5) %r74
  %t62 = call i32 @llvm.amdgcn.ds.swizzle(i32 %t61, i32 4127)
  store i32 %t62, ptr addrspace(5) %r76
  store i1 true, ptr addrspace(5) %r8
  %t63 = load i32, ptr addrspace(5) %r76
  store i32 %t63, ptr addrspace(5) %r35
  %t64 = load float, ptr addrspace(5) %r34
  %t65 = load float, ptr addrspace(5) %r35
  %t66 = fadd float %t64, %t65
  store float %t66, ptr addrspace(5) %r36
  %t67 = load i32, ptr addrspace(5) %r36
  store i32 %t67, ptr addrspace(5) %r77
  store i32 2, ptr addrspace(5) %r78
  %t68 = load i32, ptr addrspace(5) %r77
  %t69 = call i32 @llvm.amdgcn.ds.swizzle(i32 %t68, i32 2079)
  store i32 %t69, ptr addrspace(5) %r79
  store i1 true, ptr addrspace(5) %r9
  %t70 = load i32, ptr addrspace(5) %r79
  store i32 %t70, ptr addrspace(5) %r37
  %t71 = load float, ptr addrspace(5) %r36
  %t72 = load float, ptr addrspace(5) %r37
  %t73 = fadd float %t71, %t72
  store float %t73, ptr addrspace(5) %r38
  %t74 = load i32, ptr addrspace(5) %r38
  store i32 %t74, ptr addrspace(5) %r80
  store i32 1, ptr addrspace(5) %r81
  %t75 = load i32, ptr addrspace(5) %r80
  %t76 = call i32 @llvm.amdgcn.ds.swizzle(i32 %t75, i32 1055)
  store i32 %t76, ptr addrspace(5) %r82
  store i1 true, ptr addrspace(5) %r10
  %t77 = load i32, ptr addrspace(5) %r82
  store i32 %t77, ptr addrspace(5) %r39
  %t78 = load float, ptr addrspace(5) %r38
  %t79 = load float, ptr addrspace(5) %r39
  %t80 = fadd float %t78, %t79
  store float %t80, ptr addrspace(5) %r24
  %t81 = load i32, ptr addrspace(5) %r56
  %t82 = icmp uge i32 5, 32
  %t83 = call i32 @llvm.umin.i32(i32 5, i32 31)
  %t84 = lshr i32 %t81, %t83
  %t85 = select i1 %t82, i32 0, i32 %t84
  store i32 %t85, ptr addrspace(5) %r61
  %t86 = load i32, ptr addrspace(5) %r56
  %t87 = and i32 %t86, 31
  store i32 %t87, ptr addrspace(5) %r62
  %t88 = load i32, ptr addrspace(5) %r62
  %t89 = icmp ne i32 %t88, 0
  %t90 = xor i1 %t89, true
  store i1 %t89, ptr addrspace(5) %r11
  %t91 = load i1, ptr addrspace(5) %r11
  br i1 %t91, label %L.$L__BB1_5, label %b3
b3:
  %t92 = load i32, ptr addrspace(5) %r61
  %t93 = icmp uge i32 2, 32
  %t94 = call i32 @llvm.umin.i32(i32 2, i32 31)
  %t95 = shl i32 %t92, %t94
  %t96 = select i1 %t93, i32 0, i32 %t95
  store i32 %t96, ptr addrspace(5) %r83
  %t97 = ptrtoint ptr addrspace(3) @__wp_fvar.1._ZZ10reduce_sumPKfPfiE9warp_sums to i32
  store i32 %t97, ptr addrspace(5) %r84
  %t98 = load i32, ptr addrspace(5) %r84
  %t99 = load i32, ptr addrspace(5) %r83
  %t100 = add i32 %t98, %t99
  store i32 %t100, ptr addrspace(5) %r85
  %t101 = load i32, ptr addrspace(5) %r85
  %t102 = inttoptr i32 %t101 to ptr addrspace(3)
  %t103 = load float, ptr addrspace(5) %r24
  store float %t103, ptr addrspace(3) %t102, align 4
  br label %L.$L__BB1_5
L.$L__BB1_5:
  call void @__wp_bar_sync(i32 0)
  %t104 = load i32, ptr addrspace(5) %r61
  %t105 = icmp ne i32 %t104, 0
  %t106 = xor i1 %t105, true
  store i1 %t105, ptr addrspace(5) %r12
  %t107 = load i1, ptr addrspace(5) %r12
  br i1 %t107, label %L.$L__BB1_10, label %b4
b4:
  %t108 = load i32, ptr addrspace(5) %r55
  %t109 = add i32 %t108, 31
  store i32 %t109, ptr addrspace(5) %r86
  %t110 = load i32, ptr addrspace(5) %r86
  %t111 = icmp uge i32 5, 32
  %t112 = call i32 @llvm.umin.i32(i32 5, i32 31)
  %t113 = lshr i32 %t110, %t112
  %t114 = select i1 %t111, i32 0, i32 %t113
  store i32 %t114, ptr addrspace(5) %r87
  %t115 = load i32, ptr addrspace(5) %r62
  %t116 = load i32, ptr addrspace(5) %r87
  %t117 = icmp uge i32 %t115, %t116
  %t118 = xor i1 %t117, true
  store i1 %t117, ptr addrspace(5) %r13
  store i32 0, ptr addrspace(5) %r53
  %t119 = load i1, ptr addrspace(5) %r13
  br i1 %t119, label %L.$L__BB1_8, label %b5
b5:
  %t120 = load i32, ptr addrspace(5) %r62
  %t121 = icmp uge i32 2, 32
  %t122 = call i32 @llvm.umin.i32(i32 2, i32 31)
  %t123 = shl i32 %t120, %t122
  %t124 = select i1 %t121, i32 0, i32 %t123
  store i32 %t124, ptr addrspace(5) %r88
  %t125 = ptrtoint ptr addrspace(3) @__wp_fvar.1._ZZ10reduce_sumPKfPfiE9warp_sums to i32
  store i32 %t125, ptr addrspace(5) %r89
  %t126 = load i32, ptr addrspace(5) %r89
  %t127 = load i32, ptr addrspace(5) %r88
  %t128 = add i32 %t126, %t127
  store i32 %t128, ptr addrspace(5) %r90
  %t129 = load i32, ptr addrspace(5) %r90
  %t130 = inttoptr i32 %t129 to ptr addrspace(3)
  %t131 = load float, ptr addrspace(3) %t130, align 4
  store float %t131, ptr addrspace(5) %r53
  br label %L.$L__BB1_8
L.$L__BB1_8:
  %t132 = load i32, ptr addrspace(5) %r53
  store i32 %t132, ptr addrspace(5) %r91
  store i32 31, ptr addrspace(5) %r92
  store i32 16, ptr addrspace(5) %r93
  store i32 -1, ptr addrspace(5) %r94
  %t133 = load i32, ptr addrspace(5) %r91
  %t134 = call i32 @llvm.amdgcn.ds.swizzle(i32 %t133, i32 16415)
  store i32 %t134, ptr addrspace(5) %r95
  store i1 true, ptr addrspace(5) %r14
  %t135 = load i32, ptr addrspace(5) %r95
  store i32 %t135, ptr addrspace(5) %r41
  %t136 = load float, ptr addrspace(5) %r53
  %t137 = load float, ptr addrspace(5) %r41
  %t138 = fadd float %t136, %t137
  store float %t138, ptr addrspace(5) %r42
  %t139 = load i32, ptr addrspace(5) %r42
  store i32 %t139, ptr addrspace(5) %r96
  store i32 8, ptr addrspace(5) %r97
  %t140 = load i32, ptr addrspace(5) %r96
  %t141 = call i32 @llvm.amdgcn.ds.swizzle(i32 %t140, i32 8223)
  store i32 %t141, ptr addrspace(5) %r98
  store i1 true, ptr addrspace(5) %r15
  %t142 = load i32, ptr addrspace(5) %r98
  store i32 %t142, ptr addrspace(5) %r43
  %t143 = load float, ptr addrspace(5) %r42
  %t144 = load float, ptr addrspace(5) %r43
  %t145 = fadd float %t143, %t144
  store float %t145, ptr addrspace(5) %r44
  %t146 = load i32, ptr addrspace(5) %r44
  store i32 %t146, ptr addrspace(5) %r99
  store i32 4, ptr addrspace(5) %r100
  %t147 = load i32, ptr addrspace(5) %r99
  %t148 = call i32 @llvm.amdgcn.ds.swizzle(i32 %t147, i32 4127)
  store i32 %t148, ptr addrspace(5) %r101
  store i1 true, ptr addrspace(5) %r16
  %t149 = load i32, ptr addrspace(5) %r101
  store i32 %t149, ptr addrspace(5) %r45
  %t150 = load float, ptr addrspace(5) %r44
  %t151 = load float, ptr addrspace(5) %r45
  %t152 = fadd float %t150, %t151
  store float %t152, ptr addrspace(5) %r46
  %t153 = load i32, ptr addrspace(5) %r46
  store i32 %t153, ptr addrspace(5) %r102
  store i32 2, ptr addrspace(5) %r103
  %t154 = load i32, ptr addrspace(5) %r102
  %t155 = call i32 @llvm.amdgcn.ds.swizzle(i32 %t154, i32 2079)
  store i32 %t155, ptr addrspace(5) %r104
  store i1 true, ptr addrspace(5) %r17
  %t156 = load i32, ptr addrspace(5) %r104
  store i32 %t156, ptr addrspace(5) %r47
  %t157 = load float, ptr addrspace(5) %r46
  %t158 = load float, ptr addrspace(5) %r47
  %t159 = fadd float %t157, %t158
  store float %t159, ptr addrspace(5) %r48
  %t160 = load i32, ptr addrspace(5) %r48
  store i32 %t160, ptr addrspace(5) %r105
  store i32 1, ptr addrspace(5) %r106
  %t161 = load i32, ptr addrspace(5) %r105
  %t162 = call i32 @llvm.amdgcn.ds.swizzle(i32 %t161, i32 1055)
  store i32 %t162, ptr addrspace(5) %r107
  store i1 true, ptr addrspace(5) %r18
  %t163 = load i32, ptr addrspace(5) %r107
  store i32 %t163, ptr addrspace(5) %r49
  %t164 = load float, ptr addrspace(5) %r48
  %t165 = load float, ptr addrspace(5) %r49
  %t166 = fadd float %t164, %t165
  store float %t166, ptr addrspace(5) %r27
  %t167 = load i1, ptr addrspace(5) %r11
  br i1 %t167, label %L.$L__BB1_10, label %b6
b6:
  %t168 = load i64, ptr addrspace(5) %r112
  %t169 = inttoptr i64 %t168 to ptr
  %t170 = addrspacecast ptr %t169 to ptr addrspace(1)
  %t171 = ptrtoint ptr addrspace(1) %t170 to i64
  store i64 %t171, ptr addrspace(5) %r115
  %t172 = load i64, ptr addrspace(5) %r115
  %t173 = inttoptr i64 %t172 to ptr addrspace(1)
  %t174 = load float, ptr addrspace(5) %r27
  %t175 = atomicrmw fadd ptr addrspace(1) %t173, float %t174 syncscope("agent") monotonic, align 4
  store float %t175, ptr addrspace(5) %r50
  br label %L.$L__BB1_10
L.$L__BB1_10:
  br label %ret
ret:
  ret void
}

declare void @__wp_bar_sync(i32)
declare i32 @__wp_sreg_ctaid_x()
declare i32 @__wp_sreg_nctaid_x()
declare i32 @__wp_sreg_ntid_x()
declare i32 @__wp_sreg_tid_x()
declare i32 @llvm.amdgcn.ds.swizzle(i32, i32 immarg)
declare float @llvm.fma.f32(float, float, float)
declare i32 @llvm.umin.i32(i32, i32)
