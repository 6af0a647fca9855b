; wheelport lowering golden: profile rocm, input fixtures/ptx/nvcc/inline_asm.sm_80.ptx
; kernel KernelResult { name: "_Z10inline_asmPKfPfPj", outcome: Lowered, params: [ParamLayout { name: "_Z10inline_asmPKfPfPj_param_0", offset: 0, size: 8, align: 8 }, ParamLayout { name: "_Z10inline_asmPKfPfPj_param_1", offset: 8, size: 8, align: 8 }, ParamLayout { name: "_Z10inline_asmPKfPfPj_param_2", offset: 16, size: 8, align: 8 }], notes: [] }
; PTX lowered by wheelport for target rocm
target datalayout = "e-p:64:64-p1:64:64-p2:32:32-p3:32:32-p4:64:64-p5:32:32-p6:32:32-p7:160:256:256:32-p8:128:128-p9:192:256:256:32-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-v2048:2048-n32:64-S32-A5-G1-ni:7:8:9"
target triple = "amdgcn-amd-amdhsa"

@__wp_fvar.1._ZZ10inline_asmPKfPfPjE4tile = internal addrspace(3) global [512 x i8] poison, align 16

define amdgpu_kernel void @_Z10inline_asmPKfPfPj(i64 %a0, i64 %a1, i64 %a2)  {
entry:
  %m1 = alloca [8 x i8], align 8, addrspace(5)
  store i64 %a0, ptr addrspace(5) %m1
  %m2 = alloca [8 x i8], align 8, addrspace(5)
  store i64 %a1, ptr addrspace(5) %m2
  %m3 = alloca [8 x i8], align 8, addrspace(5)
  store i64 %a2, ptr addrspace(5) %m3
  %r3 = alloca i1, addrspace(5)
  %r4 = alloca i1, addrspace(5)
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
  %r84 = alloca i64, addrspace(5)
  %r85 = alloca i64, addrspace(5)
  %r86 = alloca i64, addrspace(5)
  %r87 = alloca i64, addrspace(5)
  %r88 = alloca i64, addrspace(5)
  %r89 = alloca i64, addrspace(5)
  %r90 = alloca i64, addrspace(5)
  %r91 = alloca i64, addrspace(5)
  %r92 = alloca i64, addrspace(5)
  %r93 = alloca i64, addrspace(5)
  %r94 = alloca i64, addrspace(5)
  %r95 = alloca i64, addrspace(5)
  %r96 = alloca i64, addrspace(5)
  %r97 = alloca i1, addrspace(5)
  br label %start
start:
  %t1 = load i64, ptr addrspace(5) %m1, align 8
  store i64 %t1, ptr addrspace(5) %r86
  %t2 = load i64, ptr addrspace(5) %m2, align 8
  store i64 %t2, ptr addrspace(5) %r87
  %t3 = load i64, ptr addrspace(5) %m3, align 8
  store i64 %t3, ptr addrspace(5) %r88
  %t4 = load i64, ptr addrspace(5) %r86
  %t5 = inttoptr i64 %t4 to ptr
  %t6 = addrspacecast ptr %t5 to ptr addrspace(1)
  %t7 = ptrtoint ptr addrspace(1) %t6 to i64
  store i64 %t7, ptr addrspace(5) %r89
  %t8 = call i32 @__wp_sreg_tid_x()
  store i32 %t8, ptr addrspace(5) %r53
  %t9 = load i32, ptr addrspace(5) %r53
  %t10 = sext i32 %t9 to i64
  %t11 = sext i32 4 to i64
  %t12 = mul i64 %t10, %t11
  store i64 %t12, ptr addrspace(5) %r90
  %t13 = load i64, ptr addrspace(5) %r89
  %t14 = load i64, ptr addrspace(5) %r90
  %t15 = add i64 %t13, %t14
  store i64 %t15, ptr addrspace(5) %r91
  %t16 = load i64, ptr addrspace(5) %r91
  %t17 = inttoptr i64 %t16 to ptr addrspace(1)
  %t18 = load float, ptr addrspace(1) %t17, align 4
  store float %t18, ptr addrspace(5) %r19
  %t19 = load i64, ptr addrspace(5) %r87
  %t20 = inttoptr i64 %t19 to ptr
  %t21 = addrspacecast ptr %t20 to ptr addrspace(1)
  %t22 = ptrtoint ptr addrspace(1) %t21 to i64
  store i64 %t22, ptr addrspace(5) %r92
  %t23 = load i32, ptr addrspace(5) %r19
  store i32 %t23, ptr addrspace(5) %r54
  store i32 31, ptr addrspace(5) %r55
  store i32 16, ptr addrspace(5) %r56
  store i32 -1, ptr addrspace(5) %r57
  %t24 = load i32, ptr addrspace(5) %r54
  %t25 = load i32, ptr addrspace(5) %r56
  %t26 = load i32, ptr addrspace(5) %r55
  %t27 = load i32, ptr addrspace(5) %r57
  %t28 = call { i32, i1 } @__wp_shfl_bfly(i32 %t27, i32 %t24, i32 %t25, i32 %t26)
  %t29 = extractvalue { i32, i1 } %t28, 0
  %t30 = extractvalue { i32, i1 } %t28, 1
  store i32 %t29, ptr addrspace(5) %r58
  store i1 %t30, ptr addrspace(5) %r4
  %t31 = load i32, ptr addrspace(5) %r58
  store i32 %t31, ptr addrspace(5) %r20
  %t32 = load float, ptr addrspace(5) %r19
  %t33 = load float, ptr addrspace(5) %r20
  %t34 = fadd float %t32, %t33
  store float %t34, ptr addrspace(5) %r21
  %t35 = load i32, ptr addrspace(5) %r21
  store i32 %t35, ptr addrspace(5) %r59
  store i32 8, ptr addrspace(5) %r60
  %t36 = load i32, ptr addrspace(5) %r59
  %t37 = load i32, ptr addrspace(5) %r60
  %t38 = load i32, ptr addrspace(5) %r55
  %t39 = load i32, ptr addrspace(5) %r57
  %t40 = call { i32, i1 } @__wp_shfl_bfly(i32 %t39, i32 %t36, i32 %t37, i32 %t38)
  %t41 = extractvalue { i32, i1 } %t40, 0
  %t42 = extractvalue { i32, i1 } %t40, 1
  store i32 %t41, ptr addrspace(5) %r61
  store i1 %t42, ptr addrspace(5) %r5
  %t43 = load i32, ptr addrspace(5) %r61
  store i32 %t43, ptr addrspace(5) %r22
  %t44 = load float, ptr addrspace(5) %r21
  %t45 = load float, ptr addrspace(5) %r22
  %t46 = fadd float %t44, %t45
  store float %t46, ptr addrspace(5) %r23
  %t47 = load i32, ptr addrspace(5) %r23
  store i32 %t47, ptr addrspace(5) %r62
  store i32 4, ptr addrspace(5) %r63
  %t48 = load i32, ptr addrspace(5) %r62
  %t49 = load i32, ptr addrspace(5) %r63
  %t50 = load i32, ptr addrspace(5) %r55
  %t51 = load i32, ptr addrspace(5) %r57
  %t52 = call { i32, i1 } @__wp_shfl_bfly(i32 %t51, i32 %t48, i32 %t49, i32 %t50)
  %t53 = extractvalue { i32, i1 } %t52, 0
  %t54 = extractvalue { i32, i1 } %t52, 1
  store i32 %t53, ptr addrspace(5) %r64
  store i1 %t54, ptr addrspace(5) %r6
  %t55 = load i32, ptr addrspace(5) %r64
  store i32 %t55, ptr addrspace(5) %r24
  %t56 = load float, ptr addrspace(5) %r23
  %t57 = load float, ptr addrspace(5) %r24
  %t58 = fadd float %t56, %t57
  store float %t58, ptr addrspace(5) %r25
  %t59 = load i32, ptr addrspace(5) %r25
  store i32 %t59, ptr addrspace(5) %r65
  store i32 2, ptr addrspace(5) %r66
  %t60 = load i32, ptr addrspace(5) %r65
  %t61 = load i32, ptr addrspace(5) %r66
  %t62 = load i32, ptr addrspace(5) %r55
  %t63 = load i32, ptr addrspace(5) %r57
  %t64 = call { i32, i1 } @__wp_shfl_bfly(i32 %t63, i32 %t60, i32 %t61, i32 %t62)
  %t65 = extractvalue { i32, i1 } %t64, 0
  %t66 = extractvalue { i32, i1 } %t64, 1
  store i32 %t65, ptr addrspace(5) %r67
  store i1 %t66, ptr addrspace(5) %r7
  %t67 = load i32, ptr addrspace(5) %r67
  store i32 %t67, ptr addrspace(5) %r26
  %t68 = load float, ptr addrspace(5) %r25
  %t69 = load float, ptr addrspace(5) %r26
  %t70 = fadd float %t68, %t69
  store float %t70, ptr addrspace(5) %r27
  %t71 = load i32, ptr addrspace(5) %r27
  store i32 %t71, ptr addrspace(5) %r68
  store i32 1, ptr addrspace(5) %r69
  %t72 = load i32, ptr addrspace(5) %r68
  %t73 = load i32, ptr addrspace(5) %r69
  %t74 = load i32, ptr addrspace(5) %r55
  %t75 = load i32, ptr addrspace(5) %r57
  %t76 = call { i32, i1 } @__wp_shfl_bfly(i32 %t75, i32 %t72, i32 %t73, i32 %t74)
  %t77 = extractvalue { i32, i1 } %t76, 0
  %t78 = extractvalue { i32, i1 } %t76, 1
  store i32 %t77, ptr addrspace(5) %r70
  store i1 %t78, ptr addrspace(5) %r8
  %t79 = load i32, ptr addrspace(5) %r70
  store i32 %t79, ptr addrspace(5) %r28
  %t80 = load float, ptr addrspace(5) %r27
  %t81 = load float, ptr addrspace(5) %r28
  %t82 = fadd float %t80, %t81
  store float %t82, ptr addrspace(5) %r29
  %t83 = load i64, ptr addrspace(5) %r88
  %t84 = inttoptr i64 %t83 to ptr
  %t85 = addrspacecast ptr %t84 to ptr addrspace(1)
  %t86 = ptrtoint ptr addrspace(1) %t85 to i64
  store i64 %t86, ptr addrspace(5) %r93
  %t87 = load i32, ptr addrspace(5) %r53
  %t88 = call i32 @llvm.umin.i32(i32 31, i32 31)
  %t89 = ashr i32 %t87, %t88
  store i32 %t89, ptr addrspace(5) %r71
  %t90 = load i32, ptr addrspace(5) %r71
  %t91 = icmp uge i32 28, 32
  %t92 = call i32 @llvm.umin.i32(i32 28, i32 31)
  %t93 = lshr i32 %t90, %t92
  %t94 = select i1 %t91, i32 0, i32 %t93
  store i32 %t94, ptr addrspace(5) %r72
  %t95 = load i32, ptr addrspace(5) %r53
  %t96 = load i32, ptr addrspace(5) %r72
  %t97 = add i32 %t95, %t96
  store i32 %t97, ptr addrspace(5) %r73
  %t98 = load i32, ptr addrspace(5) %r73
  %t99 = and i32 %t98, 268435440
  store i32 %t99, ptr addrspace(5) %r74
  %t100 = load i32, ptr addrspace(5) %r53
  %t101 = load i32, ptr addrspace(5) %r74
  %t102 = sub i32 %t100, %t101
  store i32 %t102, ptr addrspace(5) %r75
  %t103 = load i32, ptr addrspace(5) %r75
  %t104 = icmp uge i32 4, 32
  %t105 = call i32 @llvm.umin.i32(i32 4, i32 31)
  %t106 = shl i32 %t103, %t105
  %t107 = select i1 %t104, i32 0, i32 %t106
  store i32 %t107, ptr addrspace(5) %r76
  %t108 = ptrtoint ptr addrspace(3) @__wp_fvar.1._ZZ10inline_asmPKfPfPjE4tile to i32
  store i32 %t108, ptr addrspace(5) %r77
  %t109 = load i32, ptr addrspace(5) %r77
  %t110 = load i32, ptr addrspace(5) %r76
  %t111 = add i32 %t109, %t110
  store i32 %t111, ptr addrspace(5) %r40
  %t112 = load i32, ptr addrspace(5) %r53
  %t113 = icmp uge i32 2, 32
  %t114 = call i32 @llvm.umin.i32(i32 2, i32 31)
  %t115 = shl i32 %t112, %t114
  %t116 = select i1 %t113, i32 0, i32 %t115
  store i32 %t116, ptr addrspace(5) %r78
  %t117 = load i32, ptr addrspace(5) %r78
  %t118 = sext i32 %t117 to i64
  %t119 = sext i32 4 to i64
  %t120 = mul i64 %t118, %t119
  store i64 %t120, ptr addrspace(5) %r94
  %t121 = load i64, ptr addrspace(5) %r86
  %t122 = load i64, ptr addrspace(5) %r94
  %t123 = add i64 %t121, %t122
  store i64 %t123, ptr addrspace(5) %r85
  %t124 = load i32, ptr addrspace(5) %r40
  %t125 = inttoptr i32 %t124 to ptr addrspace(3)
  %t126 = load i64, ptr addrspace(5) %r85
  %t127 = inttoptr i64 %t126 to ptr addrspace(1)
  call void @__wp_cp_async_16(ptr addrspace(3) %t125, ptr addrspace(1) %t127, i32 16)
  call void @__wp_bar_sync(i32 0)
  %t128 = load i32, ptr addrspace(5) %r40
  %t129 = inttoptr i32 %t128 to ptr addrspace(3)
  %t130 = call i32 @__wp_ldmatrix_frag(ptr addrspace(3) %t129, i32 0)
  store i32 %t130, ptr addrspace(5) %r36
  %t131 = call i32 @__wp_ldmatrix_frag(ptr addrspace(3) %t129, i32 1)
  store i32 %t131, ptr addrspace(5) %r37
  %t132 = call i32 @__wp_ldmatrix_frag(ptr addrspace(3) %t129, i32 2)
  store i32 %t132, ptr addrspace(5) %r38
  %t133 = call i32 @__wp_ldmatrix_frag(ptr addrspace(3) %t129, i32 3)
  store i32 %t133, ptr addrspace(5) %r39
  store i32 0, ptr addrspace(5) %r11
  %t134 = load i32, ptr addrspace(5) %r11
  store i32 %t134, ptr addrspace(5) %r12
  %t135 = load i32, ptr addrspace(5) %r11
  store i32 %t135, ptr addrspace(5) %r13
  %t136 = load i32, ptr addrspace(5) %r11
  store i32 %t136, ptr addrspace(5) %r14
  %t137 = load i32, ptr addrspace(5) %r36
  %t138 = load i32, ptr addrspace(5) %r37
  %t139 = load i32, ptr addrspace(5) %r38
  %t140 = load i32, ptr addrspace(5) %r39
  %t141 = load i32, ptr addrspace(5) %r36
  %t142 = load i32, ptr addrspace(5) %r37
  %t143 = load float, ptr addrspace(5) %r11
  %t144 = load float, ptr addrspace(5) %r12
  %t145 = load float, ptr addrspace(5) %r13
  %t146 = load float, ptr addrspace(5) %r14
  %t147 = call { float, float, float, float } @__wp_mma_m16n8k16_f16(i32 %t137, i32 %t138, i32 %t139, i32 %t140, i32 %t141, i32 %t142, float %t143, float %t144, float %t145, float %t146)
  %t148 = extractvalue { float, float, float, float } %t147, 0
  store float %t148, ptr addrspace(5) %r11
  %t149 = extractvalue { float, float, float, float } %t147, 1
  store float %t149, ptr addrspace(5) %r12
  %t150 = extractvalue { float, float, float, float } %t147, 2
  store float %t150, ptr addrspace(5) %r13
  %t151 = extractvalue { float, float, float, float } %t147, 3
  store float %t151, ptr addrspace(5) %r14
  %t152 = load i32, ptr addrspace(5) %r36
  %t153 = load i32, ptr addrspace(5) %r37
  %t154 = load i32, ptr addrspace(5) %r38
  %t155 = xor i32 %t152, -1
  %t156 = xor i32 %t153, -1
  %t157 = xor i32 %t154, -1
  %t158 = and i32 %t155, %t156
  %t159 = and i32 %t158, %t154
  %t160 = and i32 %t155, %t153
  %t161 = and i32 %t160, %t157
  %t162 = or i32 %t159, %t161
  %t163 = and i32 %t152, %t156
  %t164 = and i32 %t163, %t157
  %t165 = or i32 %t162, %t164
  %t166 = and i32 %t152, %t153
  %t167 = and i32 %t166, %t154
  %t168 = or i32 %t165, %t167
  store i32 %t168, ptr addrspace(5) %r47
  %t169 = load i32, ptr addrspace(5) %r39
  %t170 = icmp ne i32 %t169, 0
  %t171 = xor i1 %t170, true
  store i1 %t170, ptr addrspace(5) %r97
  %t172 = load i1, ptr addrspace(5) %r97
  %t173 = select i1 %t172, i32 1, i32 0
  store i32 %t173, ptr addrspace(5) %r51
  %t174 = load i32, ptr addrspace(5) %r51
  %t175 = icmp ne i32 %t174, 0
  %t176 = xor i1 %t175, true
  store i1 %t175, ptr addrspace(5) %r9
  %t177 = load i1, ptr addrspace(5) %r9
  %t178 = select i1 %t177, i32 1, i32 0
  store i32 %t178, ptr addrspace(5) %r79
  store i32 21520, ptr addrspace(5) %r80
  %t179 = load i32, ptr addrspace(5) %r36
  %t180 = load i32, ptr addrspace(5) %r37
  %t181 = load i32, ptr addrspace(5) %r80
  %t182 = call i32 @__wp_prmt(i32 %t179, i32 %t180, i32 %t181)
  store i32 %t182, ptr addrspace(5) %r81
  %t183 = load i32, ptr addrspace(5) %r81
  %t184 = load i32, ptr addrspace(5) %r47
  %t185 = add i32 %t183, %t184
  store i32 %t185, ptr addrspace(5) %r82
  %t186 = load i32, ptr addrspace(5) %r82
  %t187 = load i32, ptr addrspace(5) %r79
  %t188 = add i32 %t186, %t187
  store i32 %t188, ptr addrspace(5) %r83
  %t189 = load i64, ptr addrspace(5) %r93
  %t190 = load i64, ptr addrspace(5) %r90
  %t191 = add i64 %t189, %t190
  store i64 %t191, ptr addrspace(5) %r95
  %t192 = load float, ptr addrspace(5) %r29
  %t193 = load float, ptr addrspace(5) %r11
  %t194 = fadd float %t192, %t193
  store float %t194, ptr addrspace(5) %r30
  %t195 = load float, ptr addrspace(5) %r12
  %t196 = load float, ptr addrspace(5) %r30
  %t197 = fadd float %t195, %t196
  store float %t197, ptr addrspace(5) %r31
  %t198 = load float, ptr addrspace(5) %r13
  %t199 = load float, ptr addrspace(5) %r31
  %t200 = fadd float %t198, %t199
  store float %t200, ptr addrspace(5) %r32
  %t201 = load float, ptr addrspace(5) %r14
  %t202 = load float, ptr addrspace(5) %r32
  %t203 = fadd float %t201, %t202
  store float %t203, ptr addrspace(5) %r33
  %t204 = load i64, ptr addrspace(5) %r92
  %t205 = load i64, ptr addrspace(5) %r90
  %t206 = add i64 %t204, %t205
  store i64 %t206, ptr addrspace(5) %r96
  %t207 = load i64, ptr addrspace(5) %r95
  %t208 = inttoptr i64 %t207 to ptr addrspace(1)
  %t209 = load i32, ptr addrspace(5) %r83
  store i32 %t209, ptr addrspace(1) %t208, align 4
  %t210 = load i64, ptr addrspace(5) %r96
  %t211 = inttoptr i64 %t210 to ptr addrspace(1)
  %t212 = load float, ptr addrspace(5) %r33
  store float %t212, ptr addrspace(1) %t211, align 4
  br label %ret
ret:
  ret void
}

declare void @__wp_bar_sync(i32)
declare void @__wp_cp_async_16(ptr addrspace(3), ptr addrspace(1), i32)
declare i32 @__wp_ldmatrix_frag(ptr addrspace(3), i32)
declare { float, float, float, float } @__wp_mma_m16n8k16_f16(i32, i32, i32, i32, i32, i32, float, float, float, float)
declare i32 @__wp_prmt(i32, i32, i32)
declare { i32, i1 } @__wp_shfl_bfly(i32, i32, i32, i32)
declare i32 @__wp_sreg_tid_x()
declare i32 @llvm.umin.i32(i32, i32)
