; wheelport lowering golden: profile cuda, input fixtures/ptx/nvcc/inline_asm.sm_80.ptx
; kernel KernelResult { name: "_Z10inline_asmPKfPfPj", outcome: Lowered, params: [ParamLayout { name: "_Z10inline_asmPKfPfPj_param_0", offset: 0, size: 8, align: 8 }, ParamLayout { name: "_Z10inline_asmPKfPfPj_param_1", offset: 8, size: 8, align: 8 }, ParamLayout { name: "_Z10inline_asmPKfPfPj_param_2", offset: 16, size: 8, align: 8 }], notes: [] }
; PTX lowered by wheelport for target cuda
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@__wp_fvar.1._ZZ10inline_asmPKfPfPjE4tile = internal addrspace(3) global [512 x i8] poison, align 16

define ptx_kernel void @_Z10inline_asmPKfPfPj(i64 %a0, i64 %a1, i64 %a2)  {
entry:
  %m1 = alloca [8 x i8], align 8
  store i64 %a0, ptr %m1
  %m2 = alloca [8 x i8], align 8
  store i64 %a1, ptr %m2
  %m3 = alloca [8 x i8], align 8
  store i64 %a2, ptr %m3
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
  %r95 = alloca i64
  %r96 = alloca i64
  %r97 = alloca i1
  br label %start
start:
  %t1 = load i64, ptr %m1, align 8
  store i64 %t1, ptr %r86
  %t2 = load i64, ptr %m2, align 8
  store i64 %t2, ptr %r87
  %t3 = load i64, ptr %m3, align 8
  store i64 %t3, ptr %r88
  %t4 = load i64, ptr %r86
  %t5 = inttoptr i64 %t4 to ptr
  %t6 = addrspacecast ptr %t5 to ptr addrspace(1)
  %t7 = ptrtoint ptr addrspace(1) %t6 to i64
  store i64 %t7, ptr %r89
  %t8 = call i32 @__wp_sreg_tid_x()
  store i32 %t8, ptr %r53
  %t9 = load i32, ptr %r53
  %t10 = sext i32 %t9 to i64
  %t11 = sext i32 4 to i64
  %t12 = mul i64 %t10, %t11
  store i64 %t12, ptr %r90
  %t13 = load i64, ptr %r89
  %t14 = load i64, ptr %r90
  %t15 = add i64 %t13, %t14
  store i64 %t15, ptr %r91
  %t16 = load i64, ptr %r91
  %t17 = inttoptr i64 %t16 to ptr addrspace(1)
  %t18 = load float, ptr addrspace(1) %t17, align 4
  store float %t18, ptr %r19
  %t19 = load i64, ptr %r87
  %t20 = inttoptr i64 %t19 to ptr
  %t21 = addrspacecast ptr %t20 to ptr addrspace(1)
  %t22 = ptrtoint ptr addrspace(1) %t21 to i64
  store i64 %t22, ptr %r92
  %t23 = load i32, ptr %r19
  store i32 %t23, ptr %r54
  store i32 31, ptr %r55
  store i32 16, ptr %r56
  store i32 -1, ptr %r57
  %t24 = load i32, ptr %r54
  %t25 = load i32, ptr %r56
  %t26 = load i32, ptr %r55
  %t27 = load i32, ptr %r57
  %t28 = call { i32, i1 } @__wp_shfl_bfly(i32 %t27, i32 %t24, i32 %t25, i32 %t26)
  %t29 = extractvalue { i32, i1 } %t28, 0
  %t30 = extractvalue { i32, i1 } %t28, 1
  store i32 %t29, ptr %r58
  store i1 %t30, ptr %r4
  %t31 = load i32, ptr %r58
  store i32 %t31, ptr %r20
  %t32 = load float, ptr %r19
  %t33 = load float, ptr %r20
  %t34 = fadd float %t32, %t33
  store float %t34, ptr %r21
  %t35 = load i32, ptr %r21
  store i32 %t35, ptr %r59
  store i32 8, ptr %r60
  %t36 = load i32, ptr %r59
  %t37 = load i32, ptr %r60
  %t38 = load i32, ptr %r55
  %t39 = load i32, ptr %r57
  %t40 = call { i32, i1 } @__wp_shfl_bfly(i32 %t39, i32 %t36, i32 %t37, i32 %t38)
  %t41 = extractvalue { i32, i1 } %t40, 0
  %t42 = extractvalue { i32, i1 } %t40, 1
  store i32 %t41, ptr %r61
  store i1 %t42, ptr %r5
  %t43 = load i32, ptr %r61
  store i32 %t43, ptr %r22
  %t44 = load float, ptr %r21
  %t45 = load float, ptr %r22
  %t46 = fadd float %t44, %t45
  store float %t46, ptr %r23
  %t47 = load i32, ptr %r23
  store i32 %t47, ptr %r62
  store i32 4, ptr %r63
  %t48 = load i32, ptr %r62
  %t49 = load i32, ptr %r63
  %t50 = load i32, ptr %r55
  %t51 = load i32, ptr %r57
  %t52 = call { i32, i1 } @__wp_shfl_bfly(i32 %t51, i32 %t48, i32 %t49, i32 %t50)
  %t53 = extractvalue { i32, i1 } %t52, 0
  %t54 = extractvalue { i32, i1 } %t52, 1
  store i32 %t53, ptr %r64
  store i1 %t54, ptr %r6
  %t55 = load i32, ptr %r64
  store i32 %t55, ptr %r24
  %t56 = load float, ptr %r23
  %t57 = load float, ptr %r24
  %t58 = fadd float %t56, %t57
  store float %t58, ptr %r25
  %t59 = load i32, ptr %r25
  store i32 %t59, ptr %r65
  store i32 2, ptr %r66
  %t60 = load i32, ptr %r65
  %t61 = load i32, ptr %r66
  %t62 = load i32, ptr %r55
  %t63 = load i32, ptr %r57
  %t64 = call { i32, i1 } @__wp_shfl_bfly(i32 %t63, i32 %t60, i32 %t61, i32 %t62)
  %t65 = extractvalue { i32, i1 } %t64, 0
  %t66 = extractvalue { i32, i1 } %t64, 1
  store i32 %t65, ptr %r67
  store i1 %t66, ptr %r7
  %t67 = load i32, ptr %r67
  store i32 %t67, ptr %r26
  %t68 = load float, ptr %r25
  %t69 = load float, ptr %r26
  %t70 = fadd float %t68, %t69
  store float %t70, ptr %r27
  %t71 = load i32, ptr %r27
  store i32 %t71, ptr %r68
  store i32 1, ptr %r69
  %t72 = load i32, ptr %r68
  %t73 = load i32, ptr %r69
  %t74 = load i32, ptr %r55
  %t75 = load i32, ptr %r57
  %t76 = call { i32, i1 } @__wp_shfl_bfly(i32 %t75, i32 %t72, i32 %t73, i32 %t74)
  %t77 = extractvalue { i32, i1 } %t76, 0
  %t78 = extractvalue { i32, i1 } %t76, 1
  store i32 %t77, ptr %r70
  store i1 %t78, ptr %r8
  %t79 = load i32, ptr %r70
  store i32 %t79, ptr %r28
  %t80 = load float, ptr %r27
  %t81 = load float, ptr %r28
  %t82 = fadd float %t80, %t81
  store float %t82, ptr %r29
  %t83 = load i64, ptr %r88
  %t84 = inttoptr i64 %t83 to ptr
  %t85 = addrspacecast ptr %t84 to ptr addrspace(1)
  %t86 = ptrtoint ptr addrspace(1) %t85 to i64
  store i64 %t86, ptr %r93
  %t87 = load i32, ptr %r53
  %t88 = call i32 @llvm.umin.i32(i32 31, i32 31)
  %t89 = ashr i32 %t87, %t88
  store i32 %t89, ptr %r71
  %t90 = load i32, ptr %r71
  %t91 = call i32 @llvm.umin.i32(i32 28, i32 32)
  %t92 = lshr i32 %t91, 1
  %t93 = sub i32 %t91, %t92
  %t94 = lshr i32 %t90, %t92
  %t95 = lshr i32 %t94, %t93
  store i32 %t95, ptr %r72
  %t96 = load i32, ptr %r53
  %t97 = load i32, ptr %r72
  %t98 = add i32 %t96, %t97
  store i32 %t98, ptr %r73
  %t99 = load i32, ptr %r73
  %t100 = and i32 %t99, 268435440
  store i32 %t100, ptr %r74
  %t101 = load i32, ptr %r53
  %t102 = load i32, ptr %r74
  %t103 = sub i32 %t101, %t102
  store i32 %t103, ptr %r75
  %t104 = load i32, ptr %r75
  %t105 = call i32 @llvm.umin.i32(i32 4, i32 32)
  %t106 = lshr i32 %t105, 1
  %t107 = sub i32 %t105, %t106
  %t108 = shl i32 %t104, %t106
  %t109 = shl i32 %t108, %t107
  store i32 %t109, ptr %r76
  %t110 = ptrtoint ptr addrspace(3) @__wp_fvar.1._ZZ10inline_asmPKfPfPjE4tile to i32
  store i32 %t110, ptr %r77
  %t111 = load i32, ptr %r77
  %t112 = load i32, ptr %r76
  %t113 = add i32 %t111, %t112
  store i32 %t113, ptr %r40
  %t114 = load i32, ptr %r53
  %t115 = call i32 @llvm.umin.i32(i32 2, i32 32)
  %t116 = lshr i32 %t115, 1
  %t117 = sub i32 %t115, %t116
  %t118 = shl i32 %t114, %t116
  %t119 = shl i32 %t118, %t117
  store i32 %t119, ptr %r78
  %t120 = load i32, ptr %r78
  %t121 = sext i32 %t120 to i64
  %t122 = sext i32 4 to i64
  %t123 = mul i64 %t121, %t122
  store i64 %t123, ptr %r94
  %t124 = load i64, ptr %r86
  %t125 = load i64, ptr %r94
  %t126 = add i64 %t124, %t125
  store i64 %t126, ptr %r85
  %t127 = load i32, ptr %r40
  %t128 = inttoptr i32 %t127 to ptr addrspace(3)
  %t129 = load i64, ptr %r85
  %t130 = inttoptr i64 %t129 to ptr addrspace(1)
  call void @__wp_cp_async_ca_16(ptr addrspace(3) %t128, ptr addrspace(1) %t130, i32 16)
  call void @__wp_cp_async_commit_group()
  call void @llvm.nvvm.cp.async.wait.group(i32 0)
  call void @__wp_bar_sync(i32 0)
  %t131 = load i32, ptr %r40
  %t132 = inttoptr i32 %t131 to ptr addrspace(3)
  %t133 = call { i32, i32, i32, i32 } @llvm.nvvm.ldmatrix.sync.aligned.m8n8.x4.b16.p3(ptr addrspace(3) %t132)
  %t134 = extractvalue { i32, i32, i32, i32 } %t133, 0
  store i32 %t134, ptr %r36
  %t135 = extractvalue { i32, i32, i32, i32 } %t133, 1
  store i32 %t135, ptr %r37
  %t136 = extractvalue { i32, i32, i32, i32 } %t133, 2
  store i32 %t136, ptr %r38
  %t137 = extractvalue { i32, i32, i32, i32 } %t133, 3
  store i32 %t137, ptr %r39
  store i32 0, ptr %r11
  %t138 = load i32, ptr %r11
  store i32 %t138, ptr %r12
  %t139 = load i32, ptr %r11
  store i32 %t139, ptr %r13
  %t140 = load i32, ptr %r11
  store i32 %t140, ptr %r14
  %t141 = load i32, ptr %r36
  %t142 = load i32, ptr %r37
  %t143 = load i32, ptr %r38
  %t144 = load i32, ptr %r39
  %t145 = load i32, ptr %r36
  %t146 = load i32, ptr %r37
  %t147 = load float, ptr %r11
  %t148 = load float, ptr %r12
  %t149 = load float, ptr %r13
  %t150 = load float, ptr %r14
  %t151 = call { float, float, float, float } @__wp_mma_m16n8k16_f16(i32 %t141, i32 %t142, i32 %t143, i32 %t144, i32 %t145, i32 %t146, float %t147, float %t148, float %t149, float %t150)
  %t152 = extractvalue { float, float, float, float } %t151, 0
  store float %t152, ptr %r11
  %t153 = extractvalue { float, float, float, float } %t151, 1
  store float %t153, ptr %r12
  %t154 = extractvalue { float, float, float, float } %t151, 2
  store float %t154, ptr %r13
  %t155 = extractvalue { float, float, float, float } %t151, 3
  store float %t155, ptr %r14
  %t156 = load i32, ptr %r36
  %t157 = load i32, ptr %r37
  %t158 = load i32, ptr %r38
  %t159 = xor i32 %t156, -1
  %t160 = xor i32 %t157, -1
  %t161 = xor i32 %t158, -1
  %t162 = and i32 %t159, %t160
  %t163 = and i32 %t162, %t158
  %t164 = and i32 %t159, %t157
  %t165 = and i32 %t164, %t161
  %t166 = or i32 %t163, %t165
  %t167 = and i32 %t156, %t160
  %t168 = and i32 %t167, %t161
  %t169 = or i32 %t166, %t168
  %t170 = and i32 %t156, %t157
  %t171 = and i32 %t170, %t158
  %t172 = or i32 %t169, %t171
  store i32 %t172, ptr %r47
  %t173 = load i32, ptr %r39
  %t174 = icmp ne i32 %t173, 0
  %t175 = xor i1 %t174, true
  store i1 %t174, ptr %r97
  %t176 = load i1, ptr %r97
  %t177 = select i1 %t176, i32 1, i32 0
  store i32 %t177, ptr %r51
  %t178 = load i32, ptr %r51
  %t179 = icmp ne i32 %t178, 0
  %t180 = xor i1 %t179, true
  store i1 %t179, ptr %r9
  %t181 = load i1, ptr %r9
  %t182 = select i1 %t181, i32 1, i32 0
  store i32 %t182, ptr %r79
  store i32 21520, ptr %r80
  %t183 = load i32, ptr %r36
  %t184 = load i32, ptr %r37
  %t185 = load i32, ptr %r80
  %t186 = call i32 @__wp_prmt(i32 %t183, i32 %t184, i32 %t185)
  store i32 %t186, ptr %r81
  %t187 = load i32, ptr %r81
  %t188 = load i32, ptr %r47
  %t189 = add i32 %t187, %t188
  store i32 %t189, ptr %r82
  %t190 = load i32, ptr %r82
  %t191 = load i32, ptr %r79
  %t192 = add i32 %t190, %t191
  store i32 %t192, ptr %r83
  %t193 = load i64, ptr %r93
  %t194 = load i64, ptr %r90
  %t195 = add i64 %t193, %t194
  store i64 %t195, ptr %r95
  %t196 = load float, ptr %r29
  %t197 = load float, ptr %r11
  %t198 = fadd float %t196, %t197
  store float %t198, ptr %r30
  %t199 = load float, ptr %r12
  %t200 = load float, ptr %r30
  %t201 = fadd float %t199, %t200
  store float %t201, ptr %r31
  %t202 = load float, ptr %r13
  %t203 = load float, ptr %r31
  %t204 = fadd float %t202, %t203
  store float %t204, ptr %r32
  %t205 = load float, ptr %r14
  %t206 = load float, ptr %r32
  %t207 = fadd float %t205, %t206
  store float %t207, ptr %r33
  %t208 = load i64, ptr %r92
  %t209 = load i64, ptr %r90
  %t210 = add i64 %t208, %t209
  store i64 %t210, ptr %r96
  %t211 = load i64, ptr %r95
  %t212 = inttoptr i64 %t211 to ptr addrspace(1)
  %t213 = load i32, ptr %r83
  store i32 %t213, ptr addrspace(1) %t212, align 4
  %t214 = load i64, ptr %r96
  %t215 = inttoptr i64 %t214 to ptr addrspace(1)
  %t216 = load float, ptr %r33
  store float %t216, ptr addrspace(1) %t215, align 4
  br label %ret
ret:
  ret void
}

declare void @__wp_bar_sync(i32)
declare void @__wp_cp_async_ca_16(ptr addrspace(3), ptr addrspace(1), i32)
declare void @__wp_cp_async_commit_group()
declare { float, float, float, float } @__wp_mma_m16n8k16_f16(i32, i32, i32, i32, i32, i32, float, float, float, float)
declare i32 @__wp_prmt(i32, i32, i32)
declare { i32, i1 } @__wp_shfl_bfly(i32, i32, i32, i32)
declare i32 @__wp_sreg_tid_x()
declare void @llvm.nvvm.cp.async.wait.group(i32 immarg)
declare { i32, i32, i32, i32 } @llvm.nvvm.ldmatrix.sync.aligned.m8n8.x4.b16.p3(ptr addrspace(3))
declare i32 @llvm.umin.i32(i32, i32)
