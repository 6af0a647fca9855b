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
  %t25 = call i32 @llvm.amdgcn.ds.swizzle(i32 %t24, i32 16415)
  store i32 %t25, ptr addrspace(5) %r58
  store i1 true, ptr addrspace(5) %r4
  %t26 = load i32, ptr addrspace(5) %r58
  store i32 %t26, ptr addrspace(5) %r20
  %t27 = load float, ptr addrspace(5) %r19
  %t28 = load float, ptr addrspace(5) %r20
  %t29 = fadd float %t27, %t28
  store float %t29, ptr addrspace(5) %r21
  %t30 = load i32, ptr addrspace(5) %r21
  store i32 %t30, ptr addrspace(5) %r59
  store i32 8, ptr addrspace(5) %r60
  %t31 = load i32, ptr addrspace(5) %r59
  %t32 = call i32 @llvm.amdgcn.ds.swizzle(i32 %t31, i32 8223)
  store i32 %t32, ptr addrspace(5) %r61
  store i1 true, ptr addrspace(5) %r5
  %t33 = load i32, ptr addrspace(5) %r61
  store i32 %t33, ptr addrspace(5) %r22
  %t34 = load float, ptr addrspace(5) %r21
  %t35 = load float, ptr addrspace(5) %r22
  %t36 = fadd float %t34, %t35
  store float %t36, ptr addrspace(5) %r23
  %t37 = load i32, ptr addrspace(5) %r23
  store i32 %t37, ptr addrspace(5) %r62
  store i32 4, ptr addrspace(5) %r63
  %t38 = load i32, ptr addrspace(5) %r62
  %t39 = call i32 @llvm.amdgcn.ds.swizzle(i32 %t38, i32 4127)
  store i32 %t39, ptr addrspace(5) %r64
  store i1 true, ptr addrspace(5) %r6
  %t40 = load i32, ptr addrspace(5) %r64
  store i32 %t40, ptr addrspace(5) %r24
  %t41 = load float, ptr addrspace(5) %r23
  %t42 = load float, ptr addrspace(5) %r24
  %t43 = fadd float %t41, %t42
  store float %t43, ptr addrspace(5) %r25
  %t44 = load i32, ptr addrspace(5) %r25
  store i32 %t44, ptr addrspace(5) %r65
  store i32 2, ptr addrspace(5) %r66
  %t45 = load i32, ptr addrspace(5) %r65
  %t46 = call i32 @llvm.amdgcn.ds.swizzle(i32 %t45, i32 2079)
  store i32 %t46, ptr addrspace(5) %r67
  store i1 true, ptr addrspace(5) %r7
  %t47 = load i32, ptr addrspace(5) %r67
  store i32 %t47, ptr addrspace(5) %r26
  %t48 = load float, ptr addrspace(5) %r25
  %t49 = load float, ptr addrspace(5) %r26
  %t50 = fadd float %t48, %t49
  store float %t50, ptr addrspace(5) %r27
  %t51 = load i32, ptr addrspace(5) %r27
  store i32 %t51, ptr addrspace(5) %r68
  store i32 1, ptr addrspace(5) %r69
  %t52 = load i32, ptr addrspace(5) %r68
  %t53 = call i32 @llvm.amdgcn.ds.swizzle(i32 %t52, i32 1055)
  store i32 %t53, ptr addrspace(5) %r70
  store i1 true, ptr addrspace(5) %r8
  %t54 = load i32, ptr addrspace(5) %r70
  store i32 %t54, ptr addrspace(5) %r28
  %t55 = load float, ptr addrspace(5) %r27
  %t56 = load float, ptr addrspace(5) %r28
  %t57 = fadd float %t55, %t56
  store float %t57, ptr addrspace(5) %r29
  %t58 = load i64, ptr addrspace(5) %r88
  %t59 = inttoptr i64 %t58 to ptr
  %t60 = addrspacecast ptr %t59 to ptr addrspace(1)
  %t61 = ptrtoint ptr addrspace(1) %t60 to i64
  store i64 %t61, ptr addrspace(5) %r93
  %t62 = load i32, ptr addrspace(5) %r53
  %t63 = call i32 @llvm.umin.i32(i32 31, i32 31)
  %t64 = ashr i32 %t62, %t63
  store i32 %t64, ptr addrspace(5) %r71
  %t65 = load i32, ptr addrspace(5) %r71
  %t66 = icmp uge i32 28, 32
  %t67 = call i32 @llvm.umin.i32(i32 28, i32 31)
  %t68 = lshr i32 %t65, %t67
  %t69 = select i1 %t66, i32 0, i32 %t68
  store i32 %t69, ptr addrspace(5) %r72
  %t70 = load i32, ptr addrspace(5) %r53
  %t71 = load i32, ptr addrspace(5) %r72
  %t72 = add i32 %t70, %t71
  store i32 %t72, ptr addrspace(5) %r73
  %t73 = load i32, ptr addrspace(5) %r73
  %t74 = and i32 %t73, 268435440
  store i32 %t74, ptr addrspace(5) %r74
  %t75 = load i32, ptr addrspace(5) %r53
  %t76 = load i32, ptr addrspace(5) %r74
  %t77 = sub i32 %t75, %t76
  store i32 %t77, ptr addrspace(5) %r75
  %t78 = load i32, ptr addrspace(5) %r75
  %t79 = icmp uge i32 4, 32
  %t80 = call i32 @llvm.umin.i32(i32 4, i32 31)
  %t81 = shl i32 %t78, %t80
  %t82 = select i1 %t79, i32 0, i32 %t81
  store i32 %t82, ptr addrspace(5) %r76
  %t83 = ptrtoint ptr addrspace(3) @__wp_fvar.1._ZZ10inline_asmPKfPfPjE4tile to i32
  store i32 %t83, ptr addrspace(5) %r77
  %t84 = load i32, ptr addrspace(5) %r77
  %t85 = load i32, ptr addrspace(5) %r76
  %t86 = add i32 %t84, %t85
  store i32 %t86, ptr addrspace(5) %r40
  %t87 = load i32, ptr addrspace(5) %r53
  %t88 = icmp uge i32 2, 32
  %t89 = call i32 @llvm.umin.i32(i32 2, i32 31)
  %t90 = shl i32 %t87, %t89
  %t91 = select i1 %t88, i32 0, i32 %t90
  store i32 %t91, ptr addrspace(5) %r78
  %t92 = load i32, ptr addrspace(5) %r78
  %t93 = sext i32 %t92 to i64
  %t94 = sext i32 4 to i64
  %t95 = mul i64 %t93, %t94
  store i64 %t95, ptr addrspace(5) %r94
  %t96 = load i64, ptr addrspace(5) %r86
  %t97 = load i64, ptr addrspace(5) %r94
  %t98 = add i64 %t96, %t97
  store i64 %t98, ptr addrspace(5) %r85
  %t99 = load i32, ptr addrspace(5) %r40
  %t100 = inttoptr i32 %t99 to ptr addrspace(3)
  %t101 = load i64, ptr addrspace(5) %r85
  %t102 = inttoptr i64 %t101 to ptr addrspace(1)
  call void @__wp_cp_async_16(ptr addrspace(3) %t100, ptr addrspace(1) %t102, i32 16)
  call void @__wp_bar_sync(i32 0)
  %t103 = load i32, ptr addrspace(5) %r40
  %t104 = inttoptr i32 %t103 to ptr addrspace(3)
  %t105 = call i32 @__wp_ldmatrix_frag(ptr addrspace(3) %t104, i32 0)
  store i32 %t105, ptr addrspace(5) %r36
  %t106 = call i32 @__wp_ldmatrix_frag(ptr addrspace(3) %t104, i32 1)
  store i32 %t106, ptr addrspace(5) %r37
  %t107 = call i32 @__wp_ldmatrix_frag(ptr addrspace(3) %t104, i32 2)
  store i32 %t107, ptr addrspace(5) %r38
  %t108 = call i32 @__wp_ldmatrix_frag(ptr addrspace(3) %t104, i32 3)
  store i32 %t108, ptr addrspace(5) %r39
  store i32 0, ptr addrspace(5) %r11
  %t109 = load i32, ptr addrspace(5) %r11
  store i32 %t109, ptr addrspace(5) %r12
  %t110 = load i32, ptr addrspace(5) %r11
  store i32 %t110, ptr addrspace(5) %r13
  %t111 = load i32, ptr addrspace(5) %r11
  store i32 %t111, ptr addrspace(5) %r14
  %t112 = load i32, ptr addrspace(5) %r36
  %t113 = load i32, ptr addrspace(5) %r37
  %t114 = load i32, ptr addrspace(5) %r38
  %t115 = load i32, ptr addrspace(5) %r39
  %t116 = load i32, ptr addrspace(5) %r36
  %t117 = load i32, ptr addrspace(5) %r37
  %t118 = load float, ptr addrspace(5) %r11
  %t119 = load float, ptr addrspace(5) %r12
  %t120 = load float, ptr addrspace(5) %r13
  %t121 = load float, ptr addrspace(5) %r14
  %t122 = call { float, float, float, float } @__wp_mma_m16n8k16_f16(i32 %t112, i32 %t113, i32 %t114, i32 %t115, i32 %t116, i32 %t117, float %t118, float %t119, float %t120, float %t121)
  %t123 = extractvalue { float, float, float, float } %t122, 0
  store float %t123, ptr addrspace(5) %r11
  %t124 = extractvalue { float, float, float, float } %t122, 1
  store float %t124, ptr addrspace(5) %r12
  %t125 = extractvalue { float, float, float, float } %t122, 2
  store float %t125, ptr addrspace(5) %r13
  %t126 = extractvalue { float, float, float, float } %t122, 3
  store float %t126, ptr addrspace(5) %r14
  %t127 = load i32, ptr addrspace(5) %r36
  %t128 = load i32, ptr addrspace(5) %r37
  %t129 = load i32, ptr addrspace(5) %r38
  %t130 = xor i32 %t127, -1
  %t131 = xor i32 %t128, -1
  %t132 = xor i32 %t129, -1
  %t133 = and i32 %t130, %t131
  %t134 = and i32 %t133, %t129
  %t135 = and i32 %t130, %t128
  %t136 = and i32 %t135, %t132
  %t137 = or i32 %t134, %t136
  %t138 = and i32 %t127, %t131
  %t139 = and i32 %t138, %t132
  %t140 = or i32 %t137, %t139
  %t141 = and i32 %t127, %t128
  %t142 = and i32 %t141, %t129
  %t143 = or i32 %t140, %t142
  store i32 %t143, ptr addrspace(5) %r47
  %t144 = load i32, ptr addrspace(5) %r39
  %t145 = icmp ne i32 %t144, 0
  %t146 = xor i1 %t145, true
  store i1 %t145, ptr addrspace(5) %r97
  %t147 = load i1, ptr addrspace(5) %r97
  %t148 = select i1 %t147, i32 1, i32 0
  store i32 %t148, ptr addrspace(5) %r51
  %t149 = load i32, ptr addrspace(5) %r51
  %t150 = icmp ne i32 %t149, 0
  %t151 = xor i1 %t150, true
  store i1 %t150, ptr addrspace(5) %r9
  %t152 = load i1, ptr addrspace(5) %r9
  %t153 = select i1 %t152, i32 1, i32 0
  store i32 %t153, ptr addrspace(5) %r79
  store i32 21520, ptr addrspace(5) %r80
  %t154 = load i32, ptr addrspace(5) %r36
  %t155 = load i32, ptr addrspace(5) %r37
  %t156 = load i32, ptr addrspace(5) %r80
  %t157 = call i32 @__wp_prmt(i32 %t154, i32 %t155, i32 %t156)
  store i32 %t157, ptr addrspace(5) %r81
  %t158 = load i32, ptr addrspace(5) %r81
  %t159 = load i32, ptr addrspace(5) %r47
  %t160 = add i32 %t158, %t159
  store i32 %t160, ptr addrspace(5) %r82
  %t161 = load i32, ptr addrspace(5) %r82
  %t162 = load i32, ptr addrspace(5) %r79
  %t163 = add i32 %t161, %t162
  store i32 %t163, ptr addrspace(5) %r83
  %t164 = load i64, ptr addrspace(5) %r93
  %t165 = load i64, ptr addrspace(5) %r90
  %t166 = add i64 %t164, %t165
  store i64 %t166, ptr addrspace(5) %r95
  %t167 = load float, ptr addrspace(5) %r29
  %t168 = load float, ptr addrspace(5) %r11
  %t169 = fadd float %t167, %t168
  store float %t169, ptr addrspace(5) %r30
  %t170 = load float, ptr addrspace(5) %r12
  %t171 = load float, ptr addrspace(5) %r30
  %t172 = fadd float %t170, %t171
  store float %t172, ptr addrspace(5) %r31
  %t173 = load float, ptr addrspace(5) %r13
  %t174 = load float, ptr addrspace(5) %r31
  %t175 = fadd float %t173, %t174
  store float %t175, ptr addrspace(5) %r32
  %t176 = load float, ptr addrspace(5) %r14
  %t177 = load float, ptr addrspace(5) %r32
  %t178 = fadd float %t176, %t177
  store float %t178, ptr addrspace(5) %r33
  %t179 = load i64, ptr addrspace(5) %r92
  %t180 = load i64, ptr addrspace(5) %r90
  %t181 = add i64 %t179, %t180
  store i64 %t181, ptr addrspace(5) %r96
  %t182 = load i64, ptr addrspace(5) %r95
  %t183 = inttoptr i64 %t182 to ptr addrspace(1)
  %t184 = load i32, ptr addrspace(5) %r83
  store i32 %t184, ptr addrspace(1) %t183, align 4
  %t185 = load i64, ptr addrspace(5) %r96
  %t186 = inttoptr i64 %t185 to ptr addrspace(1)
  %t187 = load float, ptr addrspace(5) %r33
  store float %t187, ptr addrspace(1) %t186, align 4
  br label %ret
ret:
  ret void
}

declare void @__wp_bar_sync(i32)
declare void @__wp_cp_async_16(ptr addrspace(3), ptr addrspace(1), i32)
declare i32 @__wp_ldmatrix_frag(ptr addrspace(3), i32)
declare { float, float, float, float } @__wp_mma_m16n8k16_f16(i32, i32, i32, i32, i32, i32, float, float, float, float)
declare i32 @__wp_prmt(i32, i32, i32)
declare i32 @__wp_sreg_tid_x()
declare i32 @llvm.amdgcn.ds.swizzle(i32, i32 immarg)
declare i32 @llvm.umin.i32(i32, i32)
