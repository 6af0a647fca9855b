; wheelport lowering golden: profile cuda, input fixtures__cuda__globals.so.0
; kernel KernelResult { name: "_Z9poly_evalPKfPfi", outcome: Lowered, params: [ParamLayout { name: "_Z9poly_evalPKfPfi_param_0", offset: 0, size: 8, align: 8 }, ParamLayout { name: "_Z9poly_evalPKfPfi_param_1", offset: 8, size: 8, align: 8 }, ParamLayout { name: "_Z9poly_evalPKfPfi_param_2", offset: 16, size: 4, align: 4 }], notes: [] }
; kernel KernelResult { name: "_Z12table_updatef", outcome: Lowered, params: [ParamLayout { name: "_Z12table_updatef_param_0", offset: 0, size: 4, align: 4 }], notes: [] }
; PTX lowered by wheelport for target cuda
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@c_coeffs = addrspace(4) externally_initialized global [64 x i8] zeroinitializer, align 4
@c_degree = addrspace(4) externally_initialized global [4 x i8] c"\03\00\00\00", align 4
@d_counter = addrspace(1) global [4 x i8] zeroinitializer, align 4
@d_table = addrspace(1) global [1024 x i8] c"\00\00\80\3F\00\00\00\40\00\00\40\40\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00", align 4
@d_scalar = addrspace(1) global [4 x i8] c"\2A\00\00\00", align 4

define ptx_kernel void @_Z9poly_evalPKfPfi(i64 %a0, i64 %a1, i32 %a2)  {
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
  %r63 = alloca i32
  %r64 = alloca i32
  %r65 = alloca i32
  %r66 = alloca i32
  %r67 = alloca i64
  %r68 = alloca i64
  %r69 = alloca i64
  %r70 = alloca i64
  %r71 = alloca i64
  %r72 = alloca i64
  %r73 = alloca i64
  %r74 = alloca i64
  %r75 = alloca i64
  %r76 = alloca i64
  %r77 = alloca i64
  %r78 = alloca i64
  %r79 = alloca i64
  %r80 = alloca i64
  %r81 = alloca i64
  %r82 = alloca i64
  %r83 = alloca i64
  %r84 = alloca i64
  %r85 = alloca i64
  %r86 = alloca i64
  %r87 = alloca i64
  %r88 = alloca i64
  %r89 = alloca i64
  %r90 = alloca i64
  %r91 = alloca i64
  %r92 = alloca i64
  %r93 = alloca i64
  %r94 = alloca i64
  br label %start
start:
  %t1 = load i64, ptr %m1, align 8
  store i64 %t1, ptr %r75
  %t2 = load i64, ptr %m2, align 8
  store i64 %t2, ptr %r76
  %t3 = load i32, ptr %m3, align 4
  store i32 %t3, ptr %r52
  %t4 = call i32 @__wp_sreg_ntid_x()
  store i32 %t4, ptr %r53
  %t5 = call i32 @__wp_sreg_ctaid_x()
  store i32 %t5, ptr %r54
  %t6 = call i32 @__wp_sreg_tid_x()
  store i32 %t6, ptr %r55
  %t7 = load i32, ptr %r54
  %t8 = load i32, ptr %r53
  %t9 = mul i32 %t7, %t8
  %t10 = load i32, ptr %r55
  %t11 = add i32 %t9, %t10
  store i32 %t11, ptr %r40
  %t12 = load i32, ptr %r40
  %t13 = load i32, ptr %r52
  %t14 = icmp sge i32 %t12, %t13
  %t15 = xor i1 %t14, true
  store i1 %t14, ptr %r4
  %t16 = load i1, ptr %r4
  br i1 %t16, label %L.$L__BB0_9, label %b1
b1:
  %t17 = load i64, ptr %r75
  %t18 = inttoptr i64 %t17 to ptr
  %t19 = addrspacecast ptr %t18 to ptr addrspace(1)
  %t20 = ptrtoint ptr addrspace(1) %t19 to i64
  store i64 %t20, ptr %r77
  %t21 = load i32, ptr %r40
  %t22 = sext i32 %t21 to i64
  store i64 %t22, ptr %r68
  %t23 = load i32, ptr %r40
  %t24 = sext i32 %t23 to i64
  %t25 = sext i32 4 to i64
  %t26 = mul i64 %t24, %t25
  store i64 %t26, ptr %r78
  %t27 = load i64, ptr %r77
  %t28 = load i64, ptr %r78
  %t29 = add i64 %t27, %t28
  store i64 %t29, ptr %r79
  %t30 = load i64, ptr %r79
  %t31 = inttoptr i64 %t30 to ptr addrspace(1)
  %t32 = load float, ptr addrspace(1) %t31, align 4
  store float %t32, ptr %r11
  %t33 = load i32, ptr addrspace(4) @c_degree, align 4
  store i32 %t33, ptr %r65
  %t34 = load i32, ptr %r65
  %t35 = icmp slt i32 %t34, 0
  %t36 = xor i1 %t35, true
  store i1 %t35, ptr %r5
  store i32 0, ptr %r38
  %t37 = load i1, ptr %r5
  br i1 %t37, label %L.$L__BB0_8, label %b2
b2:
  %t38 = load i32, ptr %r65
  %t39 = xor i32 %t38, -1
  store i32 %t39, ptr %r56
  %t40 = load i32, ptr %r56
  %t41 = call i32 @llvm.smax.i32(i32 %t40, i32 -1)
  store i32 %t41, ptr %r57
  %t42 = load i32, ptr %r65
  %t43 = load i32, ptr %r57
  %t44 = add i32 %t42, %t43
  store i32 %t44, ptr %r42
  %t45 = load i32, ptr %r42
  %t46 = add i32 %t45, 2
  store i32 %t46, ptr %r58
  %t47 = load i32, ptr %r58
  %t48 = and i32 %t47, 3
  store i32 %t48, ptr %r64
  %t49 = load i32, ptr %r64
  %t50 = icmp eq i32 %t49, 0
  %t51 = xor i1 %t50, true
  store i1 %t50, ptr %r6
  store i32 0, ptr %r38
  %t52 = load i1, ptr %r6
  br i1 %t52, label %L.$L__BB0_5, label %b3
b3:
  %t53 = load i32, ptr %r65
  %t54 = sext i32 %t53 to i64
  %t55 = sext i32 4 to i64
  %t56 = mul i64 %t54, %t55
  store i64 %t56, ptr %r80
  %t57 = ptrtoint ptr addrspace(4) @c_coeffs to i64
  store i64 %t57, ptr %r81
  %t58 = load i64, ptr %r81
  %t59 = load i64, ptr %r80
  %t60 = add i64 %t58, %t59
  store i64 %t60, ptr %r93
  store i32 0, ptr %r38
  br label %L.$L__BB0_4
L.$L__BB0_4:
  %t61 = load i64, ptr %r93
  %t62 = inttoptr i64 %t61 to ptr addrspace(4)
  %t63 = load float, ptr addrspace(4) %t62, align 4
  store float %t63, ptr %r23
  %t64 = load float, ptr %r11
  %t65 = load float, ptr %r38
  %t66 = load float, ptr %r23
  %t67 = call float @llvm.fma.f32(float %t64, float %t65, float %t66)
  store float %t67, ptr %r38
  %t68 = load i32, ptr %r65
  %t69 = add i32 %t68, -1
  store i32 %t69, ptr %r65
  %t70 = load i64, ptr %r93
  %t71 = add i64 %t70, -4
  store i64 %t71, ptr %r93
  %t72 = load i32, ptr %r64
  %t73 = add i32 %t72, -1
  store i32 %t73, ptr %r64
  %t74 = load i32, ptr %r64
  %t75 = icmp ne i32 %t74, 0
  %t76 = xor i1 %t75, true
  store i1 %t75, ptr %r7
  %t77 = load i1, ptr %r7
  br i1 %t77, label %L.$L__BB0_4, label %b4
b4:
  br label %L.$L__BB0_5
L.$L__BB0_5:
  %t78 = load i32, ptr %r42
  %t79 = add i32 %t78, 1
  store i32 %t79, ptr %r59
  %t80 = load i32, ptr %r59
  %t81 = icmp ult i32 %t80, 3
  %t82 = xor i1 %t81, true
  store i1 %t81, ptr %r8
  %t83 = load i1, ptr %r8
  br i1 %t83, label %L.$L__BB0_8, label %b5
b5:
  %t84 = load i32, ptr %r65
  %t85 = add i32 %t84, 4
  store i32 %t85, ptr %r66
  %t86 = load i32, ptr %r65
  %t87 = sext i32 %t86 to i64
  %t88 = sext i32 4 to i64
  %t89 = mul i64 %t87, %t88
  store i64 %t89, ptr %r82
  %t90 = ptrtoint ptr addrspace(4) @c_coeffs to i64
  store i64 %t90, ptr %r83
  %t91 = load i64, ptr %r83
  %t92 = load i64, ptr %r82
  %t93 = add i64 %t91, %t92
  store i64 %t93, ptr %r84
  %t94 = load i64, ptr %r84
  %t95 = add i64 %t94, -4
  store i64 %t95, ptr %r94
  br label %L.$L__BB0_7
L.$L__BB0_7:
  %t96 = load i64, ptr %r94
  %t97 = inttoptr i64 %t96 to ptr addrspace(4)
  %t98 = getelementptr inbounds i8, ptr addrspace(4) %t97, i64 4
  %t99 = load float, ptr addrspace(4) %t98, align 4
  store float %t99, ptr %r24
  %t100 = load float, ptr %r11
  %t101 = load float, ptr %r38
  %t102 = load float, ptr %r24
  %t103 = call float @llvm.fma.f32(float %t100, float %t101, float %t102)
  store float %t103, ptr %r25
  %t104 = load i64, ptr %r94
  %t105 = inttoptr i64 %t104 to ptr addrspace(4)
  %t106 = load float, ptr addrspace(4) %t105, align 4
  store float %t106, ptr %r26
  %t107 = load float, ptr %r11
  %t108 = load float, ptr %r25
  %t109 = load float, ptr %r26
  %t110 = call float @llvm.fma.f32(float %t107, float %t108, float %t109)
  store float %t110, ptr %r27
  %t111 = load i64, ptr %r94
  %t112 = inttoptr i64 %t111 to ptr addrspace(4)
  %t113 = getelementptr inbounds i8, ptr addrspace(4) %t112, i64 -4
  %t114 = load float, ptr addrspace(4) %t113, align 4
  store float %t114, ptr %r28
  %t115 = load float, ptr %r11
  %t116 = load float, ptr %r27
  %t117 = load float, ptr %r28
  %t118 = call float @llvm.fma.f32(float %t115, float %t116, float %t117)
  store float %t118, ptr %r29
  %t119 = load i64, ptr %r94
  %t120 = inttoptr i64 %t119 to ptr addrspace(4)
  %t121 = getelementptr inbounds i8, ptr addrspace(4) %t120, i64 -8
  %t122 = load float, ptr addrspace(4) %t121, align 4
  store float %t122, ptr %r30
  %t123 = load float, ptr %r11
  %t124 = load float, ptr %r29
  %t125 = load float, ptr %r30
  %t126 = call float @llvm.fma.f32(float %t123, float %t124, float %t125)
  store float %t126, ptr %r38
  %t127 = load i64, ptr %r94
  %t128 = add i64 %t127, -16
  store i64 %t128, ptr %r94
  %t129 = load i32, ptr %r66
  %t130 = add i32 %t129, -4
  store i32 %t130, ptr %r66
  %t131 = load i32, ptr %r66
  %t132 = icmp sgt i32 %t131, 3
  %t133 = xor i1 %t132, true
  store i1 %t132, ptr %r9
  %t134 = load i1, ptr %r9
  br i1 %t134, label %L.$L__BB0_7, label %b6
b6:
  br label %L.$L__BB0_8
L.$L__BB0_8:
  %t135 = load i32, ptr %r40
  %t136 = call i32 @llvm.umin.i32(i32 2, i32 32)
  %t137 = lshr i32 %t136, 1
  %t138 = sub i32 %t136, %t137
  %t139 = shl i32 %t135, %t137
  %t140 = shl i32 %t139, %t138
  store i32 %t140, ptr %r60
  %t141 = load i32, ptr %r60
  %t142 = zext i32 %t141 to i64
  store i64 %t142, ptr %r85
  %t143 = load i64, ptr %r85
  %t144 = and i64 %t143, 1020
  store i64 %t144, ptr %r86
  %t145 = ptrtoint ptr addrspace(1) @d_table to i64
  store i64 %t145, ptr %r87
  %t146 = load i64, ptr %r87
  %t147 = load i64, ptr %r86
  %t148 = add i64 %t146, %t147
  store i64 %t148, ptr %r88
  %t149 = load i32, ptr addrspace(1) @d_scalar, align 4
  store i32 %t149, ptr %r61
  %t150 = load i32, ptr %r61
  %t151 = sitofp i32 %t150 to float
  store float %t151, ptr %r31
  %t152 = load i64, ptr %r88
  %t153 = inttoptr i64 %t152 to ptr addrspace(1)
  %t154 = load float, ptr addrspace(1) %t153, align 4
  store float %t154, ptr %r32
  %t155 = load float, ptr %r32
  %t156 = load float, ptr %r31
  %t157 = load float, ptr %r38
  %t158 = call float @llvm.fma.f32(float %t155, float %t156, float %t157)
  store float %t158, ptr %r33
  %t159 = load i64, ptr %r76
  %t160 = inttoptr i64 %t159 to ptr
  %t161 = addrspacecast ptr %t160 to ptr addrspace(1)
  %t162 = ptrtoint ptr addrspace(1) %t161 to i64
  store i64 %t162, ptr %r89
  %t163 = load i64, ptr %r68
  %t164 = call i32 @llvm.umin.i32(i32 2, i32 64)
  %t165 = zext i32 %t164 to i64
  %t166 = lshr i64 %t165, 1
  %t167 = sub i64 %t165, %t166
  %t168 = shl i64 %t163, %t166
  %t169 = shl i64 %t168, %t167
  store i64 %t169, ptr %r90
  %t170 = load i64, ptr %r89
  %t171 = load i64, ptr %r90
  %t172 = add i64 %t170, %t171
  store i64 %t172, ptr %r91
  %t173 = load i64, ptr %r91
  %t174 = inttoptr i64 %t173 to ptr addrspace(1)
  %t175 = load float, ptr %r33
  store float %t175, ptr addrspace(1) %t174, align 4
  %t176 = ptrtoint ptr addrspace(1) @d_counter to i64
  store i64 %t176, ptr %r92
  %t177 = load i64, ptr %r92
  %t178 = inttoptr i64 %t177 to ptr addrspace(1)
  %t179 = atomicrmw add ptr addrspace(1) %t178, i32 1 monotonic, align 4
  store i32 %t179, ptr %r62
  br label %L.$L__BB0_9
L.$L__BB0_9:
  br label %ret
ret:
  ret void
}

define ptx_kernel void @_Z12table_updatef(i32 %a0)  {
entry:
  %m1 = alloca [4 x i8], align 4
  store i32 %a0, ptr %m1
  %r1 = alloca i1
  %r2 = alloca i1
  %r3 = alloca i1
  %r4 = alloca i32
  %r5 = alloca i32
  %r6 = alloca i32
  %r7 = alloca i32
  %r8 = alloca i32
  %r9 = alloca i32
  %r10 = alloca i32
  %r11 = alloca i32
  %r12 = alloca i64
  %r13 = alloca i64
  %r14 = alloca i64
  %r15 = alloca i64
  br label %start
start:
  %t1 = load float, ptr %m1, align 4
  store float %t1, ptr %r5
  %t2 = call i32 @__wp_sreg_tid_x()
  store i32 %t2, ptr %r9
  %t3 = load i32, ptr %r9
  %t4 = icmp sgt i32 %t3, 255
  %t5 = xor i1 %t4, true
  store i1 %t4, ptr %r2
  %t6 = load i1, ptr %r2
  br i1 %t6, label %L.$L__BB1_2, label %b1
b1:
  %t7 = load i32, ptr %r9
  %t8 = sext i32 %t7 to i64
  %t9 = sext i32 4 to i64
  %t10 = mul i64 %t8, %t9
  store i64 %t10, ptr %r13
  %t11 = ptrtoint ptr addrspace(1) @d_table to i64
  store i64 %t11, ptr %r14
  %t12 = load i64, ptr %r14
  %t13 = load i64, ptr %r13
  %t14 = add i64 %t12, %t13
  store i64 %t14, ptr %r15
  %t15 = load i64, ptr %r15
  %t16 = inttoptr i64 %t15 to ptr addrspace(1)
  %t17 = load float, ptr addrspace(1) %t16, align 4
  store float %t17, ptr %r6
  %t18 = load float, ptr %r6
  %t19 = load float, ptr %r5
  %t20 = fadd float %t18, %t19
  store float %t20, ptr %r7
  %t21 = load i64, ptr %r15
  %t22 = inttoptr i64 %t21 to ptr addrspace(1)
  %t23 = load float, ptr %r7
  store float %t23, ptr addrspace(1) %t22, align 4
  br label %L.$L__BB1_2
L.$L__BB1_2:
  %t24 = load i32, ptr %r9
  %t25 = icmp ne i32 %t24, 0
  %t26 = xor i1 %t25, true
  store i1 %t25, ptr %r3
  %t27 = load i1, ptr %r3
  br i1 %t27, label %L.$L__BB1_4, label %b2
b2:
  %t28 = load i32, ptr addrspace(1) @d_scalar, align 4
  store i32 %t28, ptr %r10
  %t29 = load i32, ptr %r10
  %t30 = add i32 %t29, 1
  store i32 %t30, ptr %r11
  %t31 = load i32, ptr %r11
  store i32 %t31, ptr addrspace(1) @d_scalar, align 4
  br label %L.$L__BB1_4
L.$L__BB1_4:
  br label %ret
ret:
  ret void
}

declare i32 @__wp_sreg_ctaid_x()
declare i32 @__wp_sreg_ntid_x()
declare i32 @__wp_sreg_tid_x()
declare float @llvm.fma.f32(float, float, float)
declare i32 @llvm.smax.i32(i32, i32)
declare i32 @llvm.umin.i32(i32, i32)
