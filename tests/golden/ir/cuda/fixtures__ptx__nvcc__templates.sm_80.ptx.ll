; wheelport lowering golden: profile cuda, input fixtures/ptx/nvcc/templates.sm_80.ptx
; kernel KernelResult { name: "_Z11vec4_kernelPK6float4PS_Pfi", outcome: Lowered, params: [ParamLayout { name: "_Z11vec4_kernelPK6float4PS_Pfi_param_0", offset: 0, size: 8, align: 8 }, ParamLayout { name: "_Z11vec4_kernelPK6float4PS_Pfi_param_1", offset: 8, size: 8, align: 8 }, ParamLayout { name: "_Z11vec4_kernelPK6float4PS_Pfi_param_2", offset: 16, size: 8, align: 8 }, ParamLayout { name: "_Z11vec4_kernelPK6float4PS_Pfi_param_3", offset: 24, size: 4, align: 4 }], notes: [] }
; kernel KernelResult { name: "_Z12scale_kernelIfLi4EEvPKT_PS0_S0_i", outcome: Lowered, params: [ParamLayout { name: "_Z12scale_kernelIfLi4EEvPKT_PS0_S0_i_param_0", offset: 0, size: 8, align: 8 }, ParamLayout { name: "_Z12scale_kernelIfLi4EEvPKT_PS0_S0_i_param_1", offset: 8, size: 8, align: 8 }, ParamLayout { name: "_Z12scale_kernelIfLi4EEvPKT_PS0_S0_i_param_2", offset: 16, size: 4, align: 4 }, ParamLayout { name: "_Z12scale_kernelIfLi4EEvPKT_PS0_S0_i_param_3", offset: 20, size: 4, align: 4 }], notes: [] }
; kernel KernelResult { name: "_Z12scale_kernelIdLi2EEvPKT_PS0_S0_i", outcome: Lowered, params: [ParamLayout { name: "_Z12scale_kernelIdLi2EEvPKT_PS0_S0_i_param_0", offset: 0, size: 8, align: 8 }, ParamLayout { name: "_Z12scale_kernelIdLi2EEvPKT_PS0_S0_i_param_1", offset: 8, size: 8, align: 8 }, ParamLayout { name: "_Z12scale_kernelIdLi2EEvPKT_PS0_S0_i_param_2", offset: 16, size: 8, align: 8 }, ParamLayout { name: "_Z12scale_kernelIdLi2EEvPKT_PS0_S0_i_param_3", offset: 24, size: 4, align: 4 }], notes: [] }
; PTX lowered by wheelport for target cuda
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"


define ptx_kernel void @_Z11vec4_kernelPK6float4PS_Pfi(i64 %a0, i64 %a1, i64 %a2, i32 %a3)  {
entry:
  %m1 = alloca [8 x i8], align 8
  store i64 %a0, ptr %m1
  %m2 = alloca [8 x i8], align 8
  store i64 %a1, ptr %m2
  %m3 = alloca [8 x i8], align 8
  store i64 %a2, ptr %m3
  %m4 = alloca [4 x i8], align 4
  store i32 %a3, ptr %m4
  %r4 = alloca i1
  %r5 = alloca i1
  %r6 = alloca i1
  %r7 = alloca i1
  %r8 = alloca i1
  %r9 = alloca i1
  %r10 = alloca i1
  %r11 = alloca i1
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
  %r31 = alloca i32
  %r32 = alloca i32
  %r33 = alloca i32
  %r34 = alloca i32
  %r35 = alloca i32
  %r36 = alloca i32
  %r37 = alloca i32
  %r38 = alloca i32
  %r39 = alloca i32
  %r40 = alloca i32
  %r41 = alloca i32
  %r42 = alloca i32
  %r43 = alloca i32
  %r44 = alloca i32
  %r45 = alloca i32
  %r46 = alloca i32
  %r47 = alloca i32
  %r48 = alloca i32
  %r49 = alloca i32
  %r50 = alloca i32
  %r51 = alloca i32
  %r52 = alloca i32
  %r53 = alloca i32
  %r54 = alloca i32
  %r55 = alloca i32
  %r56 = alloca i32
  %r57 = alloca i32
  %r58 = alloca i32
  %r59 = alloca i32
  %r60 = alloca i32
  %r61 = alloca i32
  %r62 = alloca i32
  %r63 = alloca i64
  %r64 = alloca i64
  %r65 = alloca i64
  %r66 = alloca i64
  %r67 = alloca i64
  %r68 = alloca i64
  %r69 = alloca i64
  %r70 = alloca i64
  %r71 = alloca i64
  %r72 = alloca i64
  br label %start
start:
  %t1 = load i64, ptr %m1, align 8
  store i64 %t1, ptr %r64
  %t2 = load i64, ptr %m2, align 8
  store i64 %t2, ptr %r65
  %t3 = load i64, ptr %m3, align 8
  store i64 %t3, ptr %r66
  %t4 = load i32, ptr %m4, align 4
  store i32 %t4, ptr %r42
  %t5 = call i32 @__wp_sreg_ntid_x()
  store i32 %t5, ptr %r43
  %t6 = call i32 @__wp_sreg_ctaid_x()
  store i32 %t6, ptr %r44
  %t7 = call i32 @__wp_sreg_tid_x()
  store i32 %t7, ptr %r40
  %t8 = load i32, ptr %r44
  %t9 = load i32, ptr %r43
  %t10 = mul i32 %t8, %t9
  %t11 = load i32, ptr %r40
  %t12 = add i32 %t10, %t11
  store i32 %t12, ptr %r41
  %t13 = load i32, ptr %r41
  %t14 = load i32, ptr %r42
  %t15 = icmp sge i32 %t13, %t14
  %t16 = xor i1 %t15, true
  store i1 %t15, ptr %r5
  %t17 = load i1, ptr %r5
  br i1 %t17, label %L.$L__BB0_3, label %b1
b1:
  %t18 = load i64, ptr %r64
  %t19 = inttoptr i64 %t18 to ptr
  %t20 = addrspacecast ptr %t19 to ptr addrspace(1)
  %t21 = ptrtoint ptr addrspace(1) %t20 to i64
  store i64 %t21, ptr %r67
  %t22 = load i32, ptr %r41
  %t23 = sext i32 %t22 to i64
  %t24 = sext i32 16 to i64
  %t25 = mul i64 %t23, %t24
  store i64 %t25, ptr %r68
  %t26 = load i64, ptr %r67
  %t27 = load i64, ptr %r68
  %t28 = add i64 %t26, %t27
  store i64 %t28, ptr %r69
  %t29 = load i64, ptr %r69
  %t30 = inttoptr i64 %t29 to ptr addrspace(1)
  %t31 = load <4 x float>, ptr addrspace(1) %t30, align 16
  %t32 = extractelement <4 x float> %t31, i32 0
  store float %t32, ptr %r14
  %t33 = extractelement <4 x float> %t31, i32 1
  store float %t33, ptr %r15
  %t34 = extractelement <4 x float> %t31, i32 2
  store float %t34, ptr %r16
  %t35 = extractelement <4 x float> %t31, i32 3
  store float %t35, ptr %r17
  store i32 1, ptr %r45
  store i32 2, ptr %r46
  %t36 = load i64, ptr %r65
  %t37 = inttoptr i64 %t36 to ptr
  %t38 = addrspacecast ptr %t37 to ptr addrspace(1)
  %t39 = ptrtoint ptr addrspace(1) %t38 to i64
  store i64 %t39, ptr %r70
  %t40 = load i64, ptr %r70
  %t41 = load i64, ptr %r68
  %t42 = add i64 %t40, %t41
  store i64 %t42, ptr %r71
  %t43 = load float, ptr %r14
  %t44 = load float, ptr %r14
  %t45 = fadd float %t43, %t44
  store float %t45, ptr %r22
  %t46 = load float, ptr %r15
  %t47 = load float, ptr %r22
  %t48 = fadd float %t46, %t47
  store float %t48, ptr %r23
  %t49 = load float, ptr %r16
  %t50 = load float, ptr %r17
  %t51 = load float, ptr %r23
  %t52 = call float @llvm.fma.f32(float %t49, float %t50, float %t51)
  store float %t52, ptr %r24
  %t53 = load float, ptr %r17
  %t54 = fneg float %t53
  store float %t54, ptr %r25
  %t55 = load i64, ptr %r71
  %t56 = inttoptr i64 %t55 to ptr addrspace(1)
  %t57 = load float, ptr %r22
  %t58 = insertelement <4 x float> poison, float %t57, i32 0
  %t59 = load float, ptr %r23
  %t60 = insertelement <4 x float> %t58, float %t59, i32 1
  %t61 = load float, ptr %r24
  %t62 = insertelement <4 x float> %t60, float %t61, i32 2
  %t63 = load float, ptr %r25
  %t64 = insertelement <4 x float> %t62, float %t63, i32 3
  store <4 x float> %t64, ptr addrspace(1) %t56, align 16
  %t65 = load float, ptr %r22
  %t66 = load float, ptr %r23
  %t67 = fadd float %t65, %t66
  store float %t67, ptr %r26
  %t68 = load float, ptr %r24
  %t69 = load float, ptr %r26
  %t70 = fadd float %t68, %t69
  store float %t70, ptr %r27
  %t71 = load float, ptr %r27
  %t72 = load float, ptr %r17
  %t73 = fneg float %t72
  %t74 = fadd float %t71, %t73
  store float %t74, ptr %r28
  %t75 = load i32, ptr %r28
  store i32 %t75, ptr %r47
  store i32 31, ptr %r48
  store i32 16, ptr %r49
  store i32 -1, ptr %r50
  %t76 = load i32, ptr %r47
  %t77 = load i32, ptr %r49
  %t78 = load i32, ptr %r48
  %t79 = load i32, ptr %r50
  %t80 = call { i32, i1 } @__wp_shfl_down(i32 %t79, i32 %t76, i32 %t77, i32 %t78)
  %t81 = extractvalue { i32, i1 } %t80, 0
  %t82 = extractvalue { i32, i1 } %t80, 1
  store i32 %t81, ptr %r51
  store i1 %t82, ptr %r6
  %t83 = load i32, ptr %r51
  store i32 %t83, ptr %r29
  %t84 = load float, ptr %r28
  %t85 = load float, ptr %r29
  %t86 = fadd float %t84, %t85
  store float %t86, ptr %r30
  %t87 = load i32, ptr %r30
  store i32 %t87, ptr %r52
  store i32 8, ptr %r53
  %t88 = load i32, ptr %r52
  %t89 = load i32, ptr %r53
  %t90 = load i32, ptr %r48
  %t91 = load i32, ptr %r50
  %t92 = call { i32, i1 } @__wp_shfl_down(i32 %t91, i32 %t88, i32 %t89, i32 %t90)
  %t93 = extractvalue { i32, i1 } %t92, 0
  %t94 = extractvalue { i32, i1 } %t92, 1
  store i32 %t93, ptr %r54
  store i1 %t94, ptr %r7
  %t95 = load i32, ptr %r54
  store i32 %t95, ptr %r31
  %t96 = load float, ptr %r30
  %t97 = load float, ptr %r31
  %t98 = fadd float %t96, %t97
  store float %t98, ptr %r32
  %t99 = load i32, ptr %r32
  store i32 %t99, ptr %r55
  store i32 4, ptr %r56
  %t100 = load i32, ptr %r55
  %t101 = load i32, ptr %r56
  %t102 = load i32, ptr %r48
  %t103 = load i32, ptr %r50
  %t104 = call { i32, i1 } @__wp_shfl_down(i32 %t103, i32 %t100, i32 %t101, i32 %t102)
  %t105 = extractvalue { i32, i1 } %t104, 0
  %t106 = extractvalue { i32, i1 } %t104, 1
  store i32 %t105, ptr %r57
  store i1 %t106, ptr %r8
  %t107 = load i32, ptr %r57
  store i32 %t107, ptr %r33
  %t108 = load float, ptr %r32
  %t109 = load float, ptr %r33
  %t110 = fadd float %t108, %t109
  store float %t110, ptr %r34
  %t111 = load i32, ptr %r34
  store i32 %t111, ptr %r58
  %t112 = load i32, ptr %r58
  %t113 = load i32, ptr %r46
  %t114 = load i32, ptr %r48
  %t115 = load i32, ptr %r50
  %t116 = call { i32, i1 } @__wp_shfl_down(i32 %t115, i32 %t112, i32 %t113, i32 %t114)
  %t117 = extractvalue { i32, i1 } %t116, 0
  %t118 = extractvalue { i32, i1 } %t116, 1
  store i32 %t117, ptr %r59
  store i1 %t118, ptr %r9
  %t119 = load i32, ptr %r59
  store i32 %t119, ptr %r35
  %t120 = load float, ptr %r34
  %t121 = load float, ptr %r35
  %t122 = fadd float %t120, %t121
  store float %t122, ptr %r36
  %t123 = load i32, ptr %r36
  store i32 %t123, ptr %r60
  %t124 = load i32, ptr %r60
  %t125 = load i32, ptr %r45
  %t126 = load i32, ptr %r48
  %t127 = load i32, ptr %r50
  %t128 = call { i32, i1 } @__wp_shfl_down(i32 %t127, i32 %t124, i32 %t125, i32 %t126)
  %t129 = extractvalue { i32, i1 } %t128, 0
  %t130 = extractvalue { i32, i1 } %t128, 1
  store i32 %t129, ptr %r61
  store i1 %t130, ptr %r10
  %t131 = load i32, ptr %r61
  store i32 %t131, ptr %r37
  %t132 = load float, ptr %r36
  %t133 = load float, ptr %r37
  %t134 = fadd float %t132, %t133
  store float %t134, ptr %r13
  %t135 = load i32, ptr %r40
  %t136 = and i32 %t135, 31
  store i32 %t136, ptr %r62
  %t137 = load i32, ptr %r62
  %t138 = icmp ne i32 %t137, 0
  %t139 = xor i1 %t138, true
  store i1 %t138, ptr %r11
  %t140 = load i1, ptr %r11
  br i1 %t140, label %L.$L__BB0_3, label %b2
b2:
  %t141 = load i64, ptr %r66
  %t142 = inttoptr i64 %t141 to ptr
  %t143 = addrspacecast ptr %t142 to ptr addrspace(1)
  %t144 = ptrtoint ptr addrspace(1) %t143 to i64
  store i64 %t144, ptr %r72
  %t145 = load i64, ptr %r72
  %t146 = inttoptr i64 %t145 to ptr addrspace(1)
  %t147 = load float, ptr %r13
  %t148 = atomicrmw fadd ptr addrspace(1) %t146, float %t147 monotonic, align 4
  store float %t148, ptr %r38
  br label %L.$L__BB0_3
L.$L__BB0_3:
  br label %ret
ret:
  ret void
}

define ptx_kernel void @_Z12scale_kernelIfLi4EEvPKT_PS0_S0_i(i64 %a0, i64 %a1, i32 %a2, i32 %a3)  {
entry:
  %m1 = alloca [8 x i8], align 8
  store i64 %a0, ptr %m1
  %m2 = alloca [8 x i8], align 8
  store i64 %a1, ptr %m2
  %m3 = alloca [4 x i8], align 4
  store i32 %a2, ptr %m3
  %m4 = alloca [4 x i8], align 4
  store i32 %a3, ptr %m4
  %r4 = alloca i1
  %r5 = alloca i1
  %r6 = alloca i1
  %r7 = alloca i1
  %r8 = alloca i1
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
  %r20 = alloca i32
  %r21 = alloca i32
  %r22 = alloca i32
  %r23 = alloca i32
  %r24 = alloca i32
  %r25 = alloca i32
  %r26 = alloca i32
  %r27 = alloca i32
  %r28 = alloca i32
  %r29 = alloca i64
  %r30 = alloca i64
  %r31 = alloca i64
  %r32 = alloca i64
  %r33 = alloca i64
  %r34 = alloca i64
  %r35 = alloca i64
  %r36 = alloca i64
  %r37 = alloca i64
  %r38 = alloca i64
  %r39 = alloca i64
  br label %start
start:
  %t1 = load i64, ptr %m1, align 8
  store i64 %t1, ptr %r34
  %t2 = load i64, ptr %m2, align 8
  store i64 %t2, ptr %r35
  %t3 = load float, ptr %m3, align 4
  store float %t3, ptr %r10
  %t4 = load i32, ptr %m4, align 4
  store i32 %t4, ptr %r21
  %t5 = load i64, ptr %r35
  %t6 = inttoptr i64 %t5 to ptr
  %t7 = addrspacecast ptr %t6 to ptr addrspace(1)
  %t8 = ptrtoint ptr addrspace(1) %t7 to i64
  store i64 %t8, ptr %r30
  %t9 = call i32 @__wp_sreg_ntid_x()
  store i32 %t9, ptr %r22
  %t10 = call i32 @__wp_sreg_ctaid_x()
  store i32 %t10, ptr %r23
  %t11 = call i32 @__wp_sreg_tid_x()
  store i32 %t11, ptr %r24
  %t12 = load i32, ptr %r23
  %t13 = load i32, ptr %r22
  %t14 = mul i32 %t12, %t13
  %t15 = load i32, ptr %r24
  %t16 = add i32 %t14, %t15
  store i32 %t16, ptr %r25
  %t17 = load i32, ptr %r25
  %t18 = call i32 @llvm.umin.i32(i32 2, i32 32)
  %t19 = lshr i32 %t18, 1
  %t20 = sub i32 %t18, %t19
  %t21 = shl i32 %t17, %t19
  %t22 = shl i32 %t21, %t20
  store i32 %t22, ptr %r20
  %t23 = load i64, ptr %r34
  %t24 = inttoptr i64 %t23 to ptr
  %t25 = addrspacecast ptr %t24 to ptr addrspace(1)
  %t26 = ptrtoint ptr addrspace(1) %t25 to i64
  store i64 %t26, ptr %r31
  %t27 = load i32, ptr %r20
  %t28 = load i32, ptr %r21
  %t29 = icmp sge i32 %t27, %t28
  %t30 = xor i1 %t29, true
  store i1 %t29, ptr %r5
  %t31 = load i1, ptr %r5
  br i1 %t31, label %L.$L__BB1_2, label %b1
b1:
  %t32 = load i32, ptr %r20
  %t33 = sext i32 %t32 to i64
  %t34 = sext i32 4 to i64
  %t35 = mul i64 %t33, %t34
  store i64 %t35, ptr %r36
  %t36 = load i64, ptr %r31
  %t37 = load i64, ptr %r36
  %t38 = add i64 %t36, %t37
  store i64 %t38, ptr %r37
  %t39 = load i64, ptr %r37
  %t40 = inttoptr i64 %t39 to ptr addrspace(1)
  %t41 = load float, ptr addrspace(1) %t40, align 4
  store float %t41, ptr %r11
  %t42 = load float, ptr %r11
  %t43 = load float, ptr %r10
  %t44 = fmul float %t42, %t43
  store float %t44, ptr %r12
  %t45 = load i64, ptr %r30
  %t46 = load i64, ptr %r36
  %t47 = add i64 %t45, %t46
  store i64 %t47, ptr %r38
  %t48 = load i64, ptr %r38
  %t49 = inttoptr i64 %t48 to ptr addrspace(1)
  %t50 = load float, ptr %r12
  store float %t50, ptr addrspace(1) %t49, align 4
  br label %L.$L__BB1_2
L.$L__BB1_2:
  %t51 = load i32, ptr %r20
  %t52 = add i32 %t51, 1
  store i32 %t52, ptr %r26
  %t53 = load i32, ptr %r26
  %t54 = load i32, ptr %r21
  %t55 = icmp sge i32 %t53, %t54
  %t56 = xor i1 %t55, true
  store i1 %t55, ptr %r6
  %t57 = load i32, ptr %r20
  %t58 = sext i32 %t57 to i64
  %t59 = sext i32 4 to i64
  %t60 = mul i64 %t58, %t59
  store i64 %t60, ptr %r39
  %t61 = load i64, ptr %r31
  %t62 = load i64, ptr %r39
  %t63 = add i64 %t61, %t62
  store i64 %t63, ptr %r32
  %t64 = load i64, ptr %r30
  %t65 = load i64, ptr %r39
  %t66 = add i64 %t64, %t65
  store i64 %t66, ptr %r33
  %t67 = load i1, ptr %r6
  br i1 %t67, label %L.$L__BB1_4, label %b2
b2:
  %t68 = load i64, ptr %r32
  %t69 = inttoptr i64 %t68 to ptr addrspace(1)
  %t70 = getelementptr inbounds i8, ptr addrspace(1) %t69, i64 4
  %t71 = load float, ptr addrspace(1) %t70, align 4
  store float %t71, ptr %r13
  %t72 = load float, ptr %r13
  %t73 = load float, ptr %r10
  %t74 = fmul float %t72, %t73
  store float %t74, ptr %r14
  %t75 = load i64, ptr %r33
  %t76 = inttoptr i64 %t75 to ptr addrspace(1)
  %t77 = getelementptr inbounds i8, ptr addrspace(1) %t76, i64 4
  %t78 = load float, ptr %r14
  store float %t78, ptr addrspace(1) %t77, align 4
  br label %L.$L__BB1_4
L.$L__BB1_4:
  %t79 = load i32, ptr %r20
  %t80 = add i32 %t79, 2
  store i32 %t80, ptr %r27
  %t81 = load i32, ptr %r27
  %t82 = load i32, ptr %r21
  %t83 = icmp sge i32 %t81, %t82
  %t84 = xor i1 %t83, true
  store i1 %t83, ptr %r7
  %t85 = load i1, ptr %r7
  br i1 %t85, label %L.$L__BB1_6, label %b3
b3:
  %t86 = load i64, ptr %r32
  %t87 = inttoptr i64 %t86 to ptr addrspace(1)
  %t88 = getelementptr inbounds i8, ptr addrspace(1) %t87, i64 8
  %t89 = load float, ptr addrspace(1) %t88, align 4
  store float %t89, ptr %r15
  %t90 = load float, ptr %r15
  %t91 = load float, ptr %r10
  %t92 = fmul float %t90, %t91
  store float %t92, ptr %r16
  %t93 = load i64, ptr %r33
  %t94 = inttoptr i64 %t93 to ptr addrspace(1)
  %t95 = getelementptr inbounds i8, ptr addrspace(1) %t94, i64 8
  %t96 = load float, ptr %r16
  store float %t96, ptr addrspace(1) %t95, align 4
  br label %L.$L__BB1_6
L.$L__BB1_6:
  %t97 = load i32, ptr %r20
  %t98 = add i32 %t97, 3
  store i32 %t98, ptr %r28
  %t99 = load i32, ptr %r28
  %t100 = load i32, ptr %r21
  %t101 = icmp sge i32 %t99, %t100
  %t102 = xor i1 %t101, true
  store i1 %t101, ptr %r8
  %t103 = load i1, ptr %r8
  br i1 %t103, label %L.$L__BB1_8, label %b4
b4:
  %t104 = load i64, ptr %r32
  %t105 = inttoptr i64 %t104 to ptr addrspace(1)
  %t106 = getelementptr inbounds i8, ptr addrspace(1) %t105, i64 12
  %t107 = load float, ptr addrspace(1) %t106, align 4
  store float %t107, ptr %r17
  %t108 = load float, ptr %r17
  %t109 = load float, ptr %r10
  %t110 = fmul float %t108, %t109
  store float %t110, ptr %r18
  %t111 = load i64, ptr %r33
  %t112 = inttoptr i64 %t111 to ptr addrspace(1)
  %t113 = getelementptr inbounds i8, ptr addrspace(1) %t112, i64 12
  %t114 = load float, ptr %r18
  store float %t114, ptr addrspace(1) %t113, align 4
  br label %L.$L__BB1_8
L.$L__BB1_8:
  br label %ret
ret:
  ret void
}

define ptx_kernel void @_Z12scale_kernelIdLi2EEvPKT_PS0_S0_i(i64 %a0, i64 %a1, i64 %a2, i32 %a3)  {
entry:
  %m1 = alloca [8 x i8], align 8
  store i64 %a0, ptr %m1
  %m2 = alloca [8 x i8], align 8
  store i64 %a1, ptr %m2
  %m3 = alloca [8 x i8], align 8
  store i64 %a2, ptr %m3
  %m4 = alloca [4 x i8], align 4
  store i32 %a3, ptr %m4
  %r4 = alloca i1
  %r5 = alloca i1
  %r6 = alloca i1
  %r7 = alloca i32
  %r8 = alloca i32
  %r9 = alloca i32
  %r10 = alloca i32
  %r11 = alloca i32
  %r12 = alloca i32
  %r13 = alloca i32
  %r14 = alloca i32
  %r15 = alloca i64
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
  br label %start
start:
  %t1 = load i64, ptr %m1, align 8
  store i64 %t1, ptr %r24
  %t2 = load i64, ptr %m2, align 8
  store i64 %t2, ptr %r25
  %t3 = load double, ptr %m3, align 8
  store double %t3, ptr %r16
  %t4 = load i32, ptr %m4, align 4
  store i32 %t4, ptr %r10
  %t5 = load i64, ptr %r25
  %t6 = inttoptr i64 %t5 to ptr
  %t7 = addrspacecast ptr %t6 to ptr addrspace(1)
  %t8 = ptrtoint ptr addrspace(1) %t7 to i64
  store i64 %t8, ptr %r22
  %t9 = call i32 @__wp_sreg_ntid_x()
  store i32 %t9, ptr %r11
  %t10 = call i32 @__wp_sreg_ctaid_x()
  store i32 %t10, ptr %r12
  %t11 = call i32 @__wp_sreg_tid_x()
  store i32 %t11, ptr %r13
  %t12 = load i32, ptr %r12
  %t13 = load i32, ptr %r11
  %t14 = mul i32 %t12, %t13
  %t15 = load i32, ptr %r13
  %t16 = add i32 %t14, %t15
  store i32 %t16, ptr %r14
  %t17 = load i32, ptr %r14
  %t18 = call i32 @llvm.umin.i32(i32 1, i32 32)
  %t19 = lshr i32 %t18, 1
  %t20 = sub i32 %t18, %t19
  %t21 = shl i32 %t17, %t19
  %t22 = shl i32 %t21, %t20
  store i32 %t22, ptr %r8
  %t23 = load i64, ptr %r24
  %t24 = inttoptr i64 %t23 to ptr
  %t25 = addrspacecast ptr %t24 to ptr addrspace(1)
  %t26 = ptrtoint ptr addrspace(1) %t25 to i64
  store i64 %t26, ptr %r23
  %t27 = load i32, ptr %r8
  %t28 = load i32, ptr %r10
  %t29 = icmp sge i32 %t27, %t28
  %t30 = xor i1 %t29, true
  store i1 %t29, ptr %r5
  %t31 = load i1, ptr %r5
  br i1 %t31, label %L.$L__BB2_2, label %b1
b1:
  %t32 = load i32, ptr %r8
  %t33 = sext i32 %t32 to i64
  %t34 = sext i32 8 to i64
  %t35 = mul i64 %t33, %t34
  store i64 %t35, ptr %r26
  %t36 = load i64, ptr %r23
  %t37 = load i64, ptr %r26
  %t38 = add i64 %t36, %t37
  store i64 %t38, ptr %r27
  %t39 = load i64, ptr %r27
  %t40 = inttoptr i64 %t39 to ptr addrspace(1)
  %t41 = load double, ptr addrspace(1) %t40, align 8
  store double %t41, ptr %r17
  %t42 = load double, ptr %r17
  %t43 = load double, ptr %r16
  %t44 = fmul double %t42, %t43
  store double %t44, ptr %r18
  %t45 = load i64, ptr %r22
  %t46 = load i64, ptr %r26
  %t47 = add i64 %t45, %t46
  store i64 %t47, ptr %r28
  %t48 = load i64, ptr %r28
  %t49 = inttoptr i64 %t48 to ptr addrspace(1)
  %t50 = load double, ptr %r18
  store double %t50, ptr addrspace(1) %t49, align 8
  br label %L.$L__BB2_2
L.$L__BB2_2:
  %t51 = load i32, ptr %r8
  %t52 = add i32 %t51, 1
  store i32 %t52, ptr %r9
  %t53 = load i32, ptr %r9
  %t54 = load i32, ptr %r10
  %t55 = icmp sge i32 %t53, %t54
  %t56 = xor i1 %t55, true
  store i1 %t55, ptr %r6
  %t57 = load i1, ptr %r6
  br i1 %t57, label %L.$L__BB2_4, label %b2
b2:
  %t58 = load i32, ptr %r9
  %t59 = sext i32 %t58 to i64
  %t60 = sext i32 8 to i64
  %t61 = mul i64 %t59, %t60
  store i64 %t61, ptr %r29
  %t62 = load i64, ptr %r23
  %t63 = load i64, ptr %r29
  %t64 = add i64 %t62, %t63
  store i64 %t64, ptr %r30
  %t65 = load i64, ptr %r30
  %t66 = inttoptr i64 %t65 to ptr addrspace(1)
  %t67 = load double, ptr addrspace(1) %t66, align 8
  store double %t67, ptr %r19
  %t68 = load double, ptr %r19
  %t69 = load double, ptr %r16
  %t70 = fmul double %t68, %t69
  store double %t70, ptr %r20
  %t71 = load i64, ptr %r22
  %t72 = load i64, ptr %r29
  %t73 = add i64 %t71, %t72
  store i64 %t73, ptr %r31
  %t74 = load i64, ptr %r31
  %t75 = inttoptr i64 %t74 to ptr addrspace(1)
  %t76 = load double, ptr %r20
  store double %t76, ptr addrspace(1) %t75, align 8
  br label %L.$L__BB2_4
L.$L__BB2_4:
  br label %ret
ret:
  ret void
}

declare { i32, i1 } @__wp_shfl_down(i32, i32, i32, i32)
declare i32 @__wp_sreg_ctaid_x()
declare i32 @__wp_sreg_ntid_x()
declare i32 @__wp_sreg_tid_x()
declare float @llvm.fma.f32(float, float, float)
declare i32 @llvm.umin.i32(i32, i32)
