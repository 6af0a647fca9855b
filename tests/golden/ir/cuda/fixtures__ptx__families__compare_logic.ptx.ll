; wheelport lowering golden: profile cuda, input fixtures/ptx/families/compare_logic.ptx
; kernel KernelResult { name: "compare_logic", outcome: Lowered, params: [ParamLayout { name: "out", offset: 0, size: 8, align: 8 }], notes: [] }
; PTX lowered by wheelport for target cuda
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"


define ptx_kernel void @compare_logic(i64 %a0)  {
entry:
  %m1 = alloca [8 x i8], align 8
  store i64 %a0, ptr %m1
  %r1 = alloca i1
  %r2 = alloca i1
  %r3 = alloca i1
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
  %r43 = alloca i64
  %r44 = alloca i64
  %r45 = alloca i64
  %r46 = alloca i64
  %r47 = alloca i64
  %r48 = alloca i64
  br label %start
start:
  %t1 = load i64, ptr %m1, align 8
  store i64 %t1, ptr %r44
  %t2 = call i32 @__wp_sreg_tid_x()
  store i32 %t2, ptr %r10
  store i32 1073741824, ptr %r40
  %t3 = load i32, ptr %r10
  %t4 = icmp slt i32 %t3, 16
  %t5 = xor i1 %t4, true
  store i1 %t4, ptr %r2
  %t6 = load i32, ptr %r10
  %t7 = icmp ne i32 %t6, 3
  %t8 = load i1, ptr %r2
  %t9 = and i1 %t7, %t8
  %t10 = xor i1 %t7, true
  %t11 = and i1 %t10, %t8
  store i1 %t9, ptr %r3
  %t12 = load float, ptr %r40
  %t13 = call float @__wp_ftz_f32(float %t12)
  %t14 = load float, ptr %r40
  %t15 = call float @__wp_ftz_f32(float %t14)
  %t16 = fcmp ugt float %t13, %t15
  %t17 = xor i1 %t16, true
  store i1 %t16, ptr %r4
  store i1 %t17, ptr %r5
  %t18 = load i32, ptr %r10
  %t19 = icmp eq i32 %t18, 0
  %t20 = load i1, ptr %r3
  %t21 = xor i1 %t20, true
  %t22 = or i1 %t19, %t21
  %t23 = xor i1 %t19, true
  %t24 = or i1 %t23, %t21
  store i1 %t22, ptr %r6
  %t25 = load float, ptr %r40
  %t26 = load float, ptr %r40
  %t27 = fcmp uno float %t25, %t26
  %t28 = xor i1 %t27, true
  store i1 %t27, ptr %r7
  %t29 = load i32, ptr %r10
  %t30 = icmp sle i32 %t29, 7
  %t31 = select i1 %t30, i32 -1, i32 0
  store i32 %t31, ptr %r11
  %t32 = load float, ptr %r40
  %t33 = load float, ptr %r40
  %t34 = fcmp olt float %t32, %t33
  %t35 = load i1, ptr %r2
  %t36 = and i1 %t34, %t35
  %t37 = select i1 %t36, float 0x3FF0000000000000, float 0x0000000000000000
  store float %t37, ptr %r41
  %t38 = load <2 x half>, ptr %r11
  %t39 = load <2 x half>, ptr %r11
  %t40 = fcmp one <2 x half> %t38, %t39
  %t41 = select <2 x i1> %t40, <2 x half> <half 0xH3C00, half 0xH3C00>, <2 x half> zeroinitializer
  store <2 x half> %t41, ptr %r12
  %t42 = load i32, ptr %r10
  %t43 = load i32, ptr %r11
  %t44 = load i1, ptr %r2
  %t45 = select i1 %t44, i32 %t42, i32 %t43
  store i32 %t45, ptr %r13
  %t46 = load float, ptr %r40
  %t47 = load float, ptr %r41
  %t48 = load i1, ptr %r4
  %t49 = select i1 %t48, float %t46, float %t47
  store float %t49, ptr %r42
  %t50 = load i32, ptr %r10
  %t51 = load i32, ptr %r11
  %t52 = load i32, ptr %r13
  %t53 = icmp sge i32 %t52, 0
  %t54 = select i1 %t53, i32 %t50, i32 %t51
  store i32 %t54, ptr %r14
  %t55 = load float, ptr %r10
  %t56 = load float, ptr %r11
  %t57 = load float, ptr %r42
  %t58 = call float @__wp_ftz_f32(float %t57)
  %t59 = fcmp oge float %t58, 0.0
  %t60 = select i1 %t59, float %t55, float %t56
  store float %t60, ptr %r15
  %t61 = load i32, ptr %r10
  %t62 = and i32 %t61, 255
  store i32 %t62, ptr %r16
  %t63 = load i1, ptr %r2
  %t64 = load i1, ptr %r3
  %t65 = or i1 %t63, %t64
  store i1 %t65, ptr %r8
  %t66 = load i64, ptr %r44
  %t67 = xor i64 %t66, 1
  store i64 %t67, ptr %r45
  %t68 = load i32, ptr %r16
  %t69 = xor i32 %t68, -1
  store i32 %t69, ptr %r17
  %t70 = load i32, ptr %r17
  %t71 = icmp eq i32 %t70, 0
  %t72 = zext i1 %t71 to i32
  store i32 %t72, ptr %r18
  %t73 = load i32, ptr %r16
  %t74 = load i32, ptr %r17
  %t75 = load i32, ptr %r18
  %t76 = xor i32 %t73, -1
  %t77 = xor i32 %t74, -1
  %t78 = xor i32 %t75, -1
  %t79 = and i32 %t76, %t74
  %t80 = and i32 %t79, %t75
  %t81 = and i32 %t73, %t77
  %t82 = and i32 %t81, %t75
  %t83 = or i32 %t80, %t82
  %t84 = and i32 %t73, %t74
  %t85 = and i32 %t84, %t78
  %t86 = or i32 %t83, %t85
  %t87 = and i32 %t73, %t74
  %t88 = and i32 %t87, %t75
  %t89 = or i32 %t86, %t88
  store i32 %t89, ptr %r19
  %t90 = load i32, ptr %r16
  %t91 = load i32, ptr %r17
  %t92 = load i32, ptr %r18
  %t93 = xor i32 %t90, -1
  %t94 = xor i32 %t91, -1
  %t95 = xor i32 %t92, -1
  %t96 = and i32 %t93, %t94
  %t97 = and i32 %t96, %t92
  %t98 = and i32 %t93, %t91
  %t99 = and i32 %t98, %t95
  %t100 = or i32 %t97, %t99
  %t101 = and i32 %t90, %t94
  %t102 = and i32 %t101, %t95
  %t103 = or i32 %t100, %t102
  %t104 = and i32 %t90, %t91
  %t105 = and i32 %t104, %t92
  %t106 = or i32 %t103, %t105
  %t107 = load i1, ptr %r2
  %t108 = icmp ne i32 %t106, 0
  %t109 = or i1 %t108, %t107
  store i32 %t106, ptr %r20
  store i1 %t109, ptr %r8
  %t110 = load i32, ptr %r19
  %t111 = load i32, ptr %r20
  %t112 = call i32 @llvm.fshl.i32(i32 %t111, i32 %t110, i32 5)
  store i32 %t112, ptr %r21
  %t113 = load i32, ptr %r19
  %t114 = load i32, ptr %r20
  %t115 = load i32, ptr %r10
  %t116 = call i32 @llvm.fshr.i32(i32 %t114, i32 %t113, i32 %t115)
  %t117 = icmp uge i32 %t115, 32
  %t118 = select i1 %t117, i32 %t114, i32 %t116
  store i32 %t118, ptr %r22
  %t119 = load i32, ptr %r22
  %t120 = call i32 @llvm.umin.i32(i32 2, i32 32)
  %t121 = lshr i32 %t120, 1
  %t122 = sub i32 %t120, %t121
  %t123 = shl i32 %t119, %t121
  %t124 = shl i32 %t123, %t122
  store i32 %t124, ptr %r23
  %t125 = load i32, ptr %r23
  %t126 = call i32 @llvm.umin.i32(i32 1, i32 31)
  %t127 = ashr i32 %t125, %t126
  store i32 %t127, ptr %r24
  %t128 = load i64, ptr %r45
  %t129 = call i32 @llvm.umin.i32(i32 3, i32 64)
  %t130 = zext i32 %t129 to i64
  %t131 = lshr i64 %t130, 1
  %t132 = sub i64 %t130, %t131
  %t133 = lshr i64 %t128, %t131
  %t134 = lshr i64 %t133, %t132
  store i64 %t134, ptr %r46
  %t135 = load i1, ptr %r8
  br i1 %t135, label %b1, label %b2
b1:
  %t136 = load i32, ptr %r24
  %t137 = add i32 %t136, 1
  store i32 %t137, ptr %r24
  br label %b2
b2:
  %t138 = load i1, ptr %r7
  %t139 = xor i1 %t138, true
  br i1 %t139, label %b3, label %b4
b3:
  %t140 = load i64, ptr %r44
  %t141 = inttoptr i64 %t140 to ptr addrspace(1)
  %t142 = load i32, ptr %r24
  store i32 %t142, ptr addrspace(1) %t141, align 4
  br label %b4
b4:
  %t143 = load i64, ptr %r44
  %t144 = inttoptr i64 %t143 to ptr addrspace(1)
  %t145 = getelementptr inbounds i8, ptr addrspace(1) %t144, i64 8
  %t146 = load i64, ptr %r46
  store i64 %t146, ptr addrspace(1) %t145, align 8
  br label %ret
ret:
  ret void
}

declare float @__wp_ftz_f32(float)
declare i32 @__wp_sreg_tid_x()
declare i32 @llvm.fshl.i32(i32, i32, i32)
declare i32 @llvm.fshr.i32(i32, i32, i32)
declare i32 @llvm.umin.i32(i32, i32)
