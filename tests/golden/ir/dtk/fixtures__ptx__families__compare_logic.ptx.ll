; wheelport lowering golden: profile dtk, input fixtures/ptx/families/compare_logic.ptx
; kernel KernelResult { name: "compare_logic", outcome: Lowered, params: [ParamLayout { name: "out", offset: 0, size: 8, align: 8 }], notes: [] }
; PTX lowered by wheelport for target dtk
target datalayout = "e-p:64:64-p1:64:64-p2:32:32-p3:32:32-p4:64:64-p5:32:32-p6:32:32-p7:160:256:256:32-p8:128:128-p9:192:256:256:32-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-v2048:2048-n32:64-S32-A5-G1-ni:7:8:9"
target triple = "amdgcn-amd-amdhsa"


define amdgpu_kernel void @compare_logic(i64 %a0)  {
entry:
  %m1 = alloca [8 x i8], align 8, addrspace(5)
  store i64 %a0, ptr addrspace(5) %m1
  %r1 = alloca i1, addrspace(5)
  %r2 = alloca i1, addrspace(5)
  %r3 = alloca i1, addrspace(5)
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
  %r43 = alloca i64, addrspace(5)
  %r44 = alloca i64, addrspace(5)
  %r45 = alloca i64, addrspace(5)
  %r46 = alloca i64, addrspace(5)
  %r47 = alloca i64, addrspace(5)
  %r48 = alloca i64, addrspace(5)
  br label %start
start:
  %t1 = load i64, ptr addrspace(5) %m1, align 8
  store i64 %t1, ptr addrspace(5) %r44
  %t2 = call i32 @__wp_sreg_tid_x()
  store i32 %t2, ptr addrspace(5) %r10
  store i32 1073741824, ptr addrspace(5) %r40
  %t3 = load i32, ptr addrspace(5) %r10
  %t4 = icmp slt i32 %t3, 16
  %t5 = xor i1 %t4, true
  store i1 %t4, ptr addrspace(5) %r2
  %t6 = load i32, ptr addrspace(5) %r10
  %t7 = icmp ne i32 %t6, 3
  %t8 = load i1, ptr addrspace(5) %r2
  %t9 = and i1 %t7, %t8
  %t10 = xor i1 %t7, true
  %t11 = and i1 %t10, %t8
  store i1 %t9, ptr addrspace(5) %r3
  %t12 = load float, ptr addrspace(5) %r40
  %t13 = call float @__wp_ftz_f32(float %t12)
  %t14 = load float, ptr addrspace(5) %r40
  %t15 = call float @__wp_ftz_f32(float %t14)
  %t16 = fcmp ugt float %t13, %t15
  %t17 = xor i1 %t16, true
  store i1 %t16, ptr addrspace(5) %r4
  store i1 %t17, ptr addrspace(5) %r5
  %t18 = load i32, ptr addrspace(5) %r10
  %t19 = icmp eq i32 %t18, 0
  %t20 = load i1, ptr addrspace(5) %r3
  %t21 = xor i1 %t20, true
  %t22 = or i1 %t19, %t21
  %t23 = xor i1 %t19, true
  %t24 = or i1 %t23, %t21
  store i1 %t22, ptr addrspace(5) %r6
  %t25 = load float, ptr addrspace(5) %r40
  %t26 = load float, ptr addrspace(5) %r40
  %t27 = fcmp uno float %t25, %t26
  %t28 = xor i1 %t27, true
  store i1 %t27, ptr addrspace(5) %r7
  %t29 = load i32, ptr addrspace(5) %r10
  %t30 = icmp sle i32 %t29, 7
  %t31 = select i1 %t30, i32 -1, i32 0
  store i32 %t31, ptr addrspace(5) %r11
  %t32 = load float, ptr addrspace(5) %r40
  %t33 = load float, ptr addrspace(5) %r40
  %t34 = fcmp olt float %t32, %t33
  %t35 = load i1, ptr addrspace(5) %r2
  %t36 = and i1 %t34, %t35
  %t37 = select i1 %t36, float 0x3FF0000000000000, float 0x0000000000000000
  store float %t37, ptr addrspace(5) %r41
  %t38 = load <2 x half>, ptr addrspace(5) %r11
  %t39 = load <2 x half>, ptr addrspace(5) %r11
  %t40 = fcmp one <2 x half> %t38, %t39
  %t41 = select <2 x i1> %t40, <2 x half> <half 0xH3C00, half 0xH3C00>, <2 x half> zeroinitializer
  store <2 x half> %t41, ptr addrspace(5) %r12
  %t42 = load i32, ptr addrspace(5) %r10
  %t43 = load i32, ptr addrspace(5) %r11
  %t44 = load i1, ptr addrspace(5) %r2
  %t45 = select i1 %t44, i32 %t42, i32 %t43
  store i32 %t45, ptr addrspace(5) %r13
  %t46 = load float, ptr addrspace(5) %r40
  %t47 = load float, ptr addrspace(5) %r41
  %t48 = load i1, ptr addrspace(5) %r4
  %t49 = select i1 %t48, float %t46, float %t47
  store float %t49, ptr addrspace(5) %r42
  %t50 = load i32, ptr addrspace(5) %r10
  %t51 = load i32, ptr addrspace(5) %r11
  %t52 = load i32, ptr addrspace(5) %r13
  %t53 = icmp sge i32 %t52, 0
  %t54 = select i1 %t53, i32 %t50, i32 %t51
  store i32 %t54, ptr addrspace(5) %r14
  %t55 = load float, ptr addrspace(5) %r10
  %t56 = load float, ptr addrspace(5) %r11
  %t57 = load float, ptr addrspace(5) %r42
  %t58 = call float @__wp_ftz_f32(float %t57)
  %t59 = fcmp oge float %t58, 0.0
  %t60 = select i1 %t59, float %t55, float %t56
  store float %t60, ptr addrspace(5) %r15
  %t61 = load i32, ptr addrspace(5) %r10
  %t62 = and i32 %t61, 255
  store i32 %t62, ptr addrspace(5) %r16
  %t63 = load i1, ptr addrspace(5) %r2
  %t64 = load i1, ptr addrspace(5) %r3
  %t65 = or i1 %t63, %t64
  store i1 %t65, ptr addrspace(5) %r8
  %t66 = load i64, ptr addrspace(5) %r44
  %t67 = xor i64 %t66, 1
  store i64 %t67, ptr addrspace(5) %r45
  %t68 = load i32, ptr addrspace(5) %r16
  %t69 = xor i32 %t68, -1
  store i32 %t69, ptr addrspace(5) %r17
  %t70 = load i32, ptr addrspace(5) %r17
  %t71 = icmp eq i32 %t70, 0
  %t72 = zext i1 %t71 to i32
  store i32 %t72, ptr addrspace(5) %r18
  %t73 = load i32, ptr addrspace(5) %r16
  %t74 = load i32, ptr addrspace(5) %r17
  %t75 = load i32, ptr addrspace(5) %r18
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
  store i32 %t89, ptr addrspace(5) %r19
  %t90 = load i32, ptr addrspace(5) %r16
  %t91 = load i32, ptr addrspace(5) %r17
  %t92 = load i32, ptr addrspace(5) %r18
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
  %t107 = load i1, ptr addrspace(5) %r2
  %t108 = icmp ne i32 %t106, 0
  %t109 = or i1 %t108, %t107
  store i32 %t106, ptr addrspace(5) %r20
  store i1 %t109, ptr addrspace(5) %r8
  %t110 = load i32, ptr addrspace(5) %r19
  %t111 = load i32, ptr addrspace(5) %r20
  %t112 = call i32 @llvm.fshl.i32(i32 %t111, i32 %t110, i32 5)
  store i32 %t112, ptr addrspace(5) %r21
  %t113 = load i32, ptr addrspace(5) %r19
  %t114 = load i32, ptr addrspace(5) %r20
  %t115 = load i32, ptr addrspace(5) %r10
  %t116 = call i32 @llvm.fshr.i32(i32 %t114, i32 %t113, i32 %t115)
  %t117 = icmp uge i32 %t115, 32
  %t118 = select i1 %t117, i32 %t114, i32 %t116
  store i32 %t118, ptr addrspace(5) %r22
  %t119 = load i32, ptr addrspace(5) %r22
  %t120 = icmp uge i32 2, 32
  %t121 = call i32 @llvm.umin.i32(i32 2, i32 31)
  %t122 = shl i32 %t119, %t121
  %t123 = select i1 %t120, i32 0, i32 %t122
  store i32 %t123, ptr addrspace(5) %r23
  %t124 = load i32, ptr addrspace(5) %r23
  %t125 = call i32 @llvm.umin.i32(i32 1, i32 31)
  %t126 = ashr i32 %t124, %t125
  store i32 %t126, ptr addrspace(5) %r24
  %t127 = load i64, ptr addrspace(5) %r45
  %t128 = icmp uge i32 3, 64
  %t129 = call i32 @llvm.umin.i32(i32 3, i32 63)
  %t130 = zext i32 %t129 to i64
  %t131 = lshr i64 %t127, %t130
  %t132 = select i1 %t128, i64 0, i64 %t131
  store i64 %t132, ptr addrspace(5) %r46
  %t133 = load i1, ptr addrspace(5) %r8
  br i1 %t133, label %b1, label %b2
b1:
  %t134 = load i32, ptr addrspace(5) %r24
  %t135 = add i32 %t134, 1
  store i32 %t135, ptr addrspace(5) %r24
  br label %b2
b2:
  %t136 = load i1, ptr addrspace(5) %r7
  %t137 = xor i1 %t136, true
  br i1 %t137, label %b3, label %b4
b3:
  %t138 = load i64, ptr addrspace(5) %r44
  %t139 = inttoptr i64 %t138 to ptr addrspace(1)
  %t140 = load i32, ptr addrspace(5) %r24
  store i32 %t140, ptr addrspace(1) %t139, align 4
  br label %b4
b4:
  %t141 = load i64, ptr addrspace(5) %r44
  %t142 = inttoptr i64 %t141 to ptr addrspace(1)
  %t143 = getelementptr inbounds i8, ptr addrspace(1) %t142, i64 8
  %t144 = load i64, ptr addrspace(5) %r46
  store i64 %t144, ptr addrspace(1) %t143, align 8
  br label %ret
ret:
  ret void
}

declare float @__wp_ftz_f32(float)
declare i32 @__wp_sreg_tid_x()
declare i32 @llvm.fshl.i32(i32, i32, i32)
declare i32 @llvm.fshr.i32(i32, i32, i32)
declare i32 @llvm.umin.i32(i32, i32)
