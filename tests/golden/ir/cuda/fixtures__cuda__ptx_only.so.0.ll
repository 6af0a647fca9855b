; wheelport lowering golden: profile cuda, input fixtures__cuda__ptx_only.so.0
; kernel KernelResult { name: "_Z5saxpyifPKfPf", outcome: Lowered, params: [ParamLayout { name: "_Z5saxpyifPKfPf_param_0", offset: 0, size: 4, align: 4 }, ParamLayout { name: "_Z5saxpyifPKfPf_param_1", offset: 4, size: 4, align: 4 }, ParamLayout { name: "_Z5saxpyifPKfPf_param_2", offset: 8, size: 8, align: 8 }, ParamLayout { name: "_Z5saxpyifPKfPf_param_3", offset: 16, size: 8, align: 8 }], notes: [] }
; kernel KernelResult { name: "_Z10reduce_sumPKfPfi", outcome: Lowered, params: [ParamLayout { name: "_Z10reduce_sumPKfPfi_param_0", offset: 0, size: 8, align: 8 }, ParamLayout { name: "_Z10reduce_sumPKfPfi_param_1", offset: 8, size: 8, align: 8 }, ParamLayout { name: "_Z10reduce_sumPKfPfi_param_2", offset: 16, size: 4, align: 4 }], notes: [] }
; PTX lowered by wheelport for target cuda
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@__wp_fvar.1._ZZ10reduce_sumPKfPfiE9warp_sums = internal addrspace(3) global [128 x i8] poison, align 4

define ptx_kernel void @_Z5saxpyifPKfPf(i32 %a0, i32 %a1, i64 %a2, i64 %a3)  {
entry:
  %m1 = alloca [4 x i8], align 4
  store i32 %a0, ptr %m1
  %m2 = alloca [4 x i8], align 4
  store i32 %a1, ptr %m2
  %m3 = alloca [8 x i8], align 8
  store i64 %a2, ptr %m3
  %m4 = alloca [8 x i8], align 8
  store i64 %a3, ptr %m4
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
  %r17 = alloca i64
  %r18 = alloca i64
  %r19 = alloca i64
  %r20 = alloca i64
  %r21 = alloca i64
  %r22 = alloca i64
  %r23 = alloca i64
  %r24 = alloca i64
  br label %start
start:
  %t1 = load i32, ptr %m1, align 4
  store i32 %t1, ptr %r13
  %t2 = load float, ptr %m2, align 4
  store float %t2, ptr %r7
  %t3 = load i64, ptr %m3, align 8
  store i64 %t3, ptr %r18
  %t4 = load i64, ptr %m4, align 8
  store i64 %t4, ptr %r19
  %t5 = call i32 @__wp_sreg_ctaid_x()
  store i32 %t5, ptr %r14
  %t6 = call i32 @__wp_sreg_ntid_x()
  store i32 %t6, ptr %r15
  %t7 = call i32 @__wp_sreg_tid_x()
  store i32 %t7, ptr %r16
  %t8 = load i32, ptr %r14
  %t9 = load i32, ptr %r15
  %t10 = mul i32 %t8, %t9
  %t11 = load i32, ptr %r16
  %t12 = add i32 %t10, %t11
  store i32 %t12, ptr %r12
  %t13 = load i32, ptr %r12
  %t14 = load i32, ptr %r13
  %t15 = icmp sge i32 %t13, %t14
  %t16 = xor i1 %t15, true
  store i1 %t15, ptr %r5
  %t17 = load i1, ptr %r5
  br i1 %t17, label %L.$L__BB0_2, label %b1
b1:
  %t18 = load i64, ptr %r19
  %t19 = inttoptr i64 %t18 to ptr
  %t20 = addrspacecast ptr %t19 to ptr addrspace(1)
  %t21 = ptrtoint ptr addrspace(1) %t20 to i64
  store i64 %t21, ptr %r20
  %t22 = load i64, ptr %r18
  %t23 = inttoptr i64 %t22 to ptr
  %t24 = addrspacecast ptr %t23 to ptr addrspace(1)
  %t25 = ptrtoint ptr addrspace(1) %t24 to i64
  store i64 %t25, ptr %r21
  %t26 = load i32, ptr %r12
  %t27 = sext i32 %t26 to i64
  %t28 = sext i32 4 to i64
  %t29 = mul i64 %t27, %t28
  store i64 %t29, ptr %r22
  %t30 = load i64, ptr %r21
  %t31 = load i64, ptr %r22
  %t32 = add i64 %t30, %t31
  store i64 %t32, ptr %r23
  %t33 = load i64, ptr %r23
  %t34 = inttoptr i64 %t33 to ptr addrspace(1)
  %t35 = load float, ptr addrspace(1) %t34, align 4
  store float %t35, ptr %r8
  %t36 = load i64, ptr %r20
  %t37 = load i64, ptr %r22
  %t38 = add i64 %t36, %t37
  store i64 %t38, ptr %r24
  %t39 = load i64, ptr %r24
  %t40 = inttoptr i64 %t39 to ptr addrspace(1)
  %t41 = load float, ptr addrspace(1) %t40, align 4
  store float %t41, ptr %r9
  %t42 = load float, ptr %r8
  %t43 = load float, ptr %r7
  %t44 = load float, ptr %r9
  %t45 = call float @llvm.fma.f32(float %t42, float %t43, float %t44)
  store float %t45, ptr %r10
  %t46 = load i64, ptr %r24
  %t47 = inttoptr i64 %t46 to ptr addrspace(1)
  %t48 = load float, ptr %r10
  store float %t48, ptr addrspace(1) %t47, align 4
  br label %L.$L__BB0_2
L.$L__BB0_2:
  br label %ret
ret:
  ret void
}

define ptx_kernel void @_Z10reduce_sumPKfPfi(i64 %a0, i64 %a1, i32 %a2)  {
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
  %r10 = alloca i1
  %r11 = alloca i1
  %r12 = alloca i1
  %r13 = alloca i1
  %r14 = alloca i1
  %r15 = alloca i1
  %r16 = alloca i1
  %r17 = alloca i1
  %r18 = alloca i1
  %r19 = alloca i1
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
  %r67 = alloca i32
  %r68 = alloca i32
  %r69 = alloca i32
  %r70 = alloca i32
  %r71 = alloca i32
  %r72 = alloca i32
  %r73 = alloca i32
  %r74 = alloca i32
  %r75 = alloca i32
  %r76 = alloca i32
  %r77 = alloca i32
  %r78 = alloca i32
  %r79 = alloca i32
  %r80 = alloca i32
  %r81 = alloca i32
  %r82 = alloca i32
  %r83 = alloca i32
  %r84 = alloca i32
  %r85 = alloca i32
  %r86 = alloca i32
  %r87 = alloca i32
  %r88 = alloca i32
  %r89 = alloca i32
  %r90 = alloca i32
  %r91 = alloca i32
  %r92 = alloca i32
  %r93 = alloca i32
  %r94 = alloca i32
  %r95 = alloca i32
  %r96 = alloca i32
  %r97 = alloca i32
  %r98 = alloca i32
  %r99 = alloca i32
  %r100 = alloca i32
  %r101 = alloca i32
  %r102 = alloca i32
  %r103 = alloca i32
  %r104 = alloca i32
  %r105 = alloca i32
  %r106 = alloca i32
  %r107 = alloca i32
  %r108 = alloca i32
  %r109 = alloca i64
  %r110 = alloca i64
  %r111 = alloca i64
  %r112 = alloca i64
  %r113 = alloca i64
  %r114 = alloca i64
  %r115 = alloca i64
  br label %start
start:
  %t1 = load i64, ptr %m1, align 8
  store i64 %t1, ptr %r111
  %t2 = load i64, ptr %m2, align 8
  store i64 %t2, ptr %r112
  %t3 = load i32, ptr %m3, align 4
  store i32 %t3, ptr %r63
  %t4 = call i32 @__wp_sreg_ntid_x()
  store i32 %t4, ptr %r55
  %t5 = call i32 @__wp_sreg_ctaid_x()
  store i32 %t5, ptr %r64
  %t6 = call i32 @__wp_sreg_tid_x()
  store i32 %t6, ptr %r56
  %t7 = load i32, ptr %r64
  %t8 = load i32, ptr %r55
  %t9 = mul i32 %t7, %t8
  %t10 = load i32, ptr %r56
  %t11 = add i32 %t9, %t10
  store i32 %t11, ptr %r108
  %t12 = load i32, ptr %r108
  %t13 = load i32, ptr %r63
  %t14 = icmp sge i32 %t12, %t13
  %t15 = xor i1 %t14, true
  store i1 %t14, ptr %r4
  store i32 0, ptr %r52
  %t16 = load i1, ptr %r4
  br i1 %t16, label %L.$L__BB1_3, label %b1
b1:
  %t17 = call i32 @__wp_sreg_nctaid_x()
  store i32 %t17, ptr %r65
  %t18 = load i32, ptr %r65
  %t19 = load i32, ptr %r55
  %t20 = mul i32 %t18, %t19
  store i32 %t20, ptr %r58
  %t21 = load i64, ptr %r111
  %t22 = inttoptr i64 %t21 to ptr
  %t23 = addrspacecast ptr %t22 to ptr addrspace(1)
  %t24 = ptrtoint ptr addrspace(1) %t23 to i64
  store i64 %t24, ptr %r110
  store i32 0, ptr %r52
  br label %L.$L__BB1_2
L.$L__BB1_2:
  %t25 = load i32, ptr %r108
  %t26 = sext i32 %t25 to i64
  %t27 = sext i32 4 to i64
  %t28 = mul i64 %t26, %t27
  store i64 %t28, ptr %r113
  %t29 = load i64, ptr %r110
  %t30 = load i64, ptr %r113
  %t31 = add i64 %t29, %t30
  store i64 %t31, ptr %r114
  %t32 = load i64, ptr %r114
  %t33 = inttoptr i64 %t32 to ptr addrspace(1)
  %t34 = load float, ptr addrspace(1) %t33, align 4
  store float %t34, ptr %r30
  %t35 = load float, ptr %r52
  %t36 = load float, ptr %r30
  %t37 = fadd float %t35, %t36
  store float %t37, ptr %r52
  %t38 = load i32, ptr %r108
  %t39 = load i32, ptr %r58
  %t40 = add i32 %t38, %t39
  store i32 %t40, ptr %r108
  %t41 = load i32, ptr %r108
  %t42 = load i32, ptr %r63
  %t43 = icmp slt i32 %t41, %t42
  %t44 = xor i1 %t43, true
  store i1 %t43, ptr %r5
  %t45 = load i1, ptr %r5
  br i1 %t45, label %L.$L__BB1_2, label %b2
b2:
  br label %L.$L__BB1_3
L.$L__BB1_3:
  %t46 = load i32, ptr %r52
  store i32 %t46, ptr %r66
  store i32 31, ptr %r67
  store i32 16, ptr %r68
  store i32 -1, ptr %r69
  %t47 = load i32, ptr %r66
  %t48 = load i32, ptr %r68
  %t49 = load i32, ptr %r67
  %t50 = load i32, ptr %r69
  %t51 = call { i32, i1 } @__wp_shfl_bfly(i32 %t50, i32 %t47, i32 %t48, i32 %t49)
  %t52 = extractvalue { i32, i1 } %t51, 0
  %t53 = extractvalue { i32, i1 } %t51, 1
  store i32 %t52, ptr %r70
  store i1 %t53, ptr %r6
  %t54 = load i32, ptr %r70
  store i32 %t54, ptr %r31
  %t55 = load float, ptr %r52
  %t56 = load float, ptr %r31
  %t57 = fadd float %t55, %t56
  store float %t57, ptr %r32
  %t58 = load i32, ptr %r32
  store i32 %t58, ptr %r71
  store i32 8, ptr %r72
  %t59 = load i32, ptr %r71
  %t60 = load i32, ptr %r72
  %t61 = load i32, ptr %r67
  %t62 = load i32, ptr %r69
  %t63 = call { i32, i1 } @__wp_shfl_bfly(i32 %t62, i32 %t59, i32 %t60, i32 %t61)
  %t64 = extractvalue { i32, i1 } %t63, 0
  %t65 = extractvalue { i32, i1 } %t63, 1
  store i32 %t64, ptr %r73
  store i1 %t65, ptr %r7
  %t66 = load i32, ptr %r73
  store i32 %t66, ptr %r33
  %t67 = load float, ptr %r32
  %t68 = load float, ptr %r33
  %t69 = fadd float %t67, %t68
  store float %t69, ptr %r34
  %t70 = load i32, ptr %r34
  store i32 %t70, ptr %r74
  store i32 4, ptr %r75
  %t71 = load i32, ptr %r74
  %t72 = load i32, ptr %r75
  %t73 = load i32, ptr %r67
  %t74 = load i32, ptr %r69
  %t75 = call { i32, i1 } @__wp_shfl_bfly(i32 %t74, i32 %t71, i32 %t72, i32 %t73)
  %t76 = extractvalue { i32, i1 } %t75, 0
  %t77 = extractvalue { i32, i1 } %t75, 1
  store i32 %t76, ptr %r76
  store i1 %t77, ptr %r8
  %t78 = load i32, ptr %r76
  store i32 %t78, ptr %r35
  %t79 = load float, ptr %r34
  %t80 = load float, ptr %r35
  %t81 = fadd float %t79, %t80
  store float %t81, ptr %r36
  %t82 = load i32, ptr %r36
  store i32 %t82, ptr %r77
  store i32 2, ptr %r78
  %t83 = load i32, ptr %r77
  %t84 = load i32, ptr %r78
  %t85 = load i32, ptr %r67
  %t86 = load i32, ptr %r69
  %t87 = call { i32, i1 } @__wp_shfl_bfly(i32 %t86, i32 %t83, i32 %t84, i32 %t85)
  %t88 = extractvalue { i32, i1 } %t87, 0
  %t89 = extractvalue { i32, i1 } %t87, 1
  store i32 %t88, ptr %r79
  store i1 %t89, ptr %r9
  %t90 = load i32, ptr %r79
  store i32 %t90, ptr %r37
  %t91 = load float, ptr %r36
  %t92 = load float, ptr %r37
  %t93 = fadd float %t91, %t92
  store float %t93, ptr %r38
  %t94 = load i32, ptr %r38
  store i32 %t94, ptr %r80
  store i32 1, ptr %r81
  %t95 = load i32, ptr %r80
  %t96 = load i32, ptr %r81
  %t97 = load i32, ptr %r67
  %t98 = load i32, ptr %r69
  %t99 = call { i32, i1 } @__wp_shfl_bfly(i32 %t98, i32 %t95, i32 %t96, i32 %t97)
  %t100 = extractvalue { i32, i1 } %t99, 0
  %t101 = extractvalue { i32, i1 } %t99, 1
  store i32 %t100, ptr %r82
  store i1 %t101, ptr %r10
  %t102 = load i32, ptr %r82
  store i32 %t102, ptr %r39
  %t103 = load float, ptr %r38
  %t104 = load float, ptr %r39
  %t105 = fadd float %t103, %t104
  store float %t105, ptr %r24
  %t106 = load i32, ptr %r56
  %t107 = call i32 @llvm.umin.i32(i32 5, i32 32)
  %t108 = lshr i32 %t107, 1
  %t109 = sub i32 %t107, %t108
  %t110 = lshr i32 %t106, %t108
  %t111 = lshr i32 %t110, %t109
  store i32 %t111, ptr %r61
  %t112 = load i32, ptr %r56
  %t113 = and i32 %t112, 31
  store i32 %t113, ptr %r62
  %t114 = load i32, ptr %r62
  %t115 = icmp ne i32 %t114, 0
  %t116 = xor i1 %t115, true
  store i1 %t115, ptr %r11
  %t117 = load i1, ptr %r11
  br i1 %t117, label %L.$L__BB1_5, label %b3
b3:
  %t118 = load i32, ptr %r61
  %t119 = call i32 @llvm.umin.i32(i32 2, i32 32)
  %t120 = lshr i32 %t119, 1
  %t121 = sub i32 %t119, %t120
  %t122 = shl i32 %t118, %t120
  %t123 = shl i32 %t122, %t121
  store i32 %t123, ptr %r83
  %t124 = ptrtoint ptr addrspace(3) @__wp_fvar.1._ZZ10reduce_sumPKfPfiE9warp_sums to i32
  store i32 %t124, ptr %r84
  %t125 = load i32, ptr %r84
  %t126 = load i32, ptr %r83
  %t127 = add i32 %t125, %t126
  store i32 %t127, ptr %r85
  %t128 = load i32, ptr %r85
  %t129 = inttoptr i32 %t128 to ptr addrspace(3)
  %t130 = load float, ptr %r24
  store float %t130, ptr addrspace(3) %t129, align 4
  br label %L.$L__BB1_5
L.$L__BB1_5:
  call void @__wp_bar_sync(i32 0)
  %t131 = load i32, ptr %r61
  %t132 = icmp ne i32 %t131, 0
  %t133 = xor i1 %t132, true
  store i1 %t132, ptr %r12
  %t134 = load i1, ptr %r12
  br i1 %t134, label %L.$L__BB1_10, label %b4
b4:
  %t135 = load i32, ptr %r55
  %t136 = add i32 %t135, 31
  store i32 %t136, ptr %r86
  %t137 = load i32, ptr %r86
  %t138 = call i32 @llvm.umin.i32(i32 5, i32 32)
  %t139 = lshr i32 %t138, 1
  %t140 = sub i32 %t138, %t139
  %t141 = lshr i32 %t137, %t139
  %t142 = lshr i32 %t141, %t140
  store i32 %t142, ptr %r87
  %t143 = load i32, ptr %r62
  %t144 = load i32, ptr %r87
  %t145 = icmp uge i32 %t143, %t144
  %t146 = xor i1 %t145, true
  store i1 %t145, ptr %r13
  store i32 0, ptr %r53
  %t147 = load i1, ptr %r13
  br i1 %t147, label %L.$L__BB1_8, label %b5
b5:
  %t148 = load i32, ptr %r62
  %t149 = call i32 @llvm.umin.i32(i32 2, i32 32)
  %t150 = lshr i32 %t149, 1
  %t151 = sub i32 %t149, %t150
  %t152 = shl i32 %t148, %t150
  %t153 = shl i32 %t152, %t151
  store i32 %t153, ptr %r88
  %t154 = ptrtoint ptr addrspace(3) @__wp_fvar.1._ZZ10reduce_sumPKfPfiE9warp_sums to i32
  store i32 %t154, ptr %r89
  %t155 = load i32, ptr %r89
  %t156 = load i32, ptr %r88
  %t157 = add i32 %t155, %t156
  store i32 %t157, ptr %r90
  %t158 = load i32, ptr %r90
  %t159 = inttoptr i32 %t158 to ptr addrspace(3)
  %t160 = load float, ptr addrspace(3) %t159, align 4
  store float %t160, ptr %r53
  br label %L.$L__BB1_8
L.$L__BB1_8:
  %t161 = load i32, ptr %r53
  store i32 %t161, ptr %r91
  store i32 31, ptr %r92
  store i32 16, ptr %r93
  store i32 -1, ptr %r94
  %t162 = load i32, ptr %r91
  %t163 = load i32, ptr %r93
  %t164 = load i32, ptr %r92
  %t165 = load i32, ptr %r94
  %t166 = call { i32, i1 } @__wp_shfl_bfly(i32 %t165, i32 %t162, i32 %t163, i32 %t164)
  %t167 = extractvalue { i32, i1 } %t166, 0
  %t168 = extractvalue { i32, i1 } %t166, 1
  store i32 %t167, ptr %r95
  store i1 %t168, ptr %r14
  %t169 = load i32, ptr %r95
  store i32 %t169, ptr %r41
  %t170 = load float, ptr %r53
  %t171 = load float, ptr %r41
  %t172 = fadd float %t170, %t171
  store float %t172, ptr %r42
  %t173 = load i32, ptr %r42
  store i32 %t173, ptr %r96
  store i32 8, ptr %r97
  %t174 = load i32, ptr %r96
  %t175 = load i32, ptr %r97
  %t176 = load i32, ptr %r92
  %t177 = load i32, ptr %r94
  %t178 = call { i32, i1 } @__wp_shfl_bfly(i32 %t177, i32 %t174, i32 %t175, i32 %t176)
  %t179 = extractvalue { i32, i1 } %t178, 0
  %t180 = extractvalue { i32, i1 } %t178, 1
  store i32 %t179, ptr %r98
  store i1 %t180, ptr %r15
  %t181 = load i32, ptr %r98
  store i32 %t181, ptr %r43
  %t182 = load float, ptr %r42
  %t183 = load float, ptr %r43
  %t184 = fadd float %t182, %t183
  store float %t184, ptr %r44
  %t185 = load i32, ptr %r44
  store i32 %t185, ptr %r99
  store i32 4, ptr %r100
  %t186 = load i32, ptr %r99
  %t187 = load i32, ptr %r100
  %t188 = load i32, ptr %r92
  %t189 = load i32, ptr %r94
  %t190 = call { i32, i1 } @__wp_shfl_bfly(i32 %t189, i32 %t186, i32 %t187, i32 %t188)
  %t191 = extractvalue { i32, i1 } %t190, 0
  %t192 = extractvalue { i32, i1 } %t190, 1
  store i32 %t191, ptr %r101
  store i1 %t192, ptr %r16
  %t193 = load i32, ptr %r101
  store i32 %t193, ptr %r45
  %t194 = load float, ptr %r44
  %t195 = load float, ptr %r45
  %t196 = fadd float %t194, %t195
  store float %t196, ptr %r46
  %t197 = load i32, ptr %r46
  store i32 %t197, ptr %r102
  store i32 2, ptr %r103
  %t198 = load i32, ptr %r102
  %t199 = load i32, ptr %r103
  %t200 = load i32, ptr %r92
  %t201 = load i32, ptr %r94
  %t202 = call { i32, i1 } @__wp_shfl_bfly(i32 %t201, i32 %t198, i32 %t199, i32 %t200)
  %t203 = extractvalue { i32, i1 } %t202, 0
  %t204 = extractvalue { i32, i1 } %t202, 1
  store i32 %t203, ptr %r104
  store i1 %t204, ptr %r17
  %t205 = load i32, ptr %r104
  store i32 %t205, ptr %r47
  %t206 = load float, ptr %r46
  %t207 = load float, ptr %r47
  %t208 = fadd float %t206, %t207
  store float %t208, ptr %r48
  %t209 = load i32, ptr %r48
  store i32 %t209, ptr %r105
  store i32 1, ptr %r106
  %t210 = load i32, ptr %r105
  %t211 = load i32, ptr %r106
  %t212 = load i32, ptr %r92
  %t213 = load i32, ptr %r94
  %t214 = call { i32, i1 } @__wp_shfl_bfly(i32 %t213, i32 %t210, i32 %t211, i32 %t212)
  %t215 = extractvalue { i32, i1 } %t214, 0
  %t216 = extractvalue { i32, i1 } %t214, 1
  store i32 %t215, ptr %r107
  store i1 %t216, ptr %r18
  %t217 = load i32, ptr %r107
  store i32 %t217, ptr %r49
  %t218 = load float, ptr %r48
  %t219 = load float, ptr %r49
  %t220 = fadd float %t218, %t219
  store float %t220, ptr %r27
  %t221 = load i1, ptr %r11
  br i1 %t221, label %L.$L__BB1_10, label %b6
b6:
  %t222 = load i64, ptr %r112
  %t223 = inttoptr i64 %t222 to ptr
  %t224 = addrspacecast ptr %t223 to ptr addrspace(1)
  %t225 = ptrtoint ptr addrspace(1) %t224 to i64
  store i64 %t225, ptr %r115
  %t226 = load i64, ptr %r115
  %t227 = inttoptr i64 %t226 to ptr addrspace(1)
  %t228 = load float, ptr %r27
  %t229 = atomicrmw fadd ptr addrspace(1) %t227, float %t228 monotonic, align 4
  store float %t229, ptr %r50
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
