; wheelport lowering golden: profile cuda, input fixtures/ptx/nvcc/debug_printf.sm_80.ptx
; kernel KernelResult { name: "_Z12debug_printfPKiPii", outcome: Lowered, params: [ParamLayout { name: "_Z12debug_printfPKiPii_param_0", offset: 0, size: 8, align: 8 }, ParamLayout { name: "_Z12debug_printfPKiPii_param_1", offset: 8, size: 8, align: 8 }, ParamLayout { name: "_Z12debug_printfPKiPii_param_2", offset: 16, size: 4, align: 4 }], notes: [] }
; PTX lowered by wheelport for target cuda
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@__unnamed_1 = addrspace(1) global [43 x i8] c"void debug\5Fprintf\28const int \2A\2C int \2A\2C int\29\00", align 1
@$str = addrspace(1) global [11 x i8] c"in\5Bi\5D \3E\3D 0\00", align 1
@$str$1 = addrspace(1) global [16 x i8] c"debug\5Fprintf\2Ecu\00", align 1
@$str$2 = addrspace(1) global [15 x i8] c"n\3D\25d first\3D\25d\0A\00", align 1

define internal void @__assert_fail(i64 %a0, i64 %a1, i32 %a2, i64 %a3)  {
entry:
  %m1 = alloca [8 x i8], align 8
  store i64 %a0, ptr %m1
  %m2 = alloca [8 x i8], align 8
  store i64 %a1, ptr %m2
  %m3 = alloca [4 x i8], align 4
  store i32 %a2, ptr %m3
  %m4 = alloca [8 x i8], align 8
  store i64 %a3, ptr %m4
  %r4 = alloca i32
  %r5 = alloca i32
  %r6 = alloca i64
  %r7 = alloca i64
  %r8 = alloca i64
  %r9 = alloca i64
  %r10 = alloca i32
  %m12 = alloca [8 x i8], align 8
  %m13 = alloca [8 x i8], align 8
  %m14 = alloca [4 x i8], align 4
  %m15 = alloca [8 x i8], align 8
  %m16 = alloca [8 x i8], align 8
  br label %start
start:
  %t1 = load i64, ptr %m1, align 8
  store i64 %t1, ptr %r7
  %t2 = load i64, ptr %m2, align 8
  store i64 %t2, ptr %r8
  %t3 = load i32, ptr %m3, align 4
  store i32 %t3, ptr %r5
  %t4 = load i64, ptr %m4, align 8
  store i64 %t4, ptr %r9
  %t5 = load i64, ptr %r7
  store i64 %t5, ptr %m12, align 8
  %t6 = load i64, ptr %r8
  store i64 %t6, ptr %m13, align 8
  %t7 = load i32, ptr %r5
  store i32 %t7, ptr %m14, align 4
  %t8 = load i64, ptr %r9
  store i64 %t8, ptr %m15, align 8
  store i64 1, ptr %m16, align 8
  %t9 = load i64, ptr %m12
  %t10 = load i64, ptr %m13
  %t11 = load i32, ptr %m14
  %t12 = load i64, ptr %m15
  %t13 = load i64, ptr %m16
  call void @__assertfail(i64 %t9, i64 %t10, i32 %t11, i64 %t12, i64 %t13)
  br label %ret
L.$L__func_end1:
  br label %ret
ret:
  ret void
}

define ptx_kernel void @_Z12debug_printfPKiPii(i64 %a0, i64 %a1, i32 %a2)  {
entry:
  %m1 = alloca [8 x i8], align 8
  store i64 %a0, ptr %m1
  %m2 = alloca [8 x i8], align 8
  store i64 %a1, ptr %m2
  %m3 = alloca [4 x i8], align 4
  store i32 %a2, ptr %m3
  %m4 = alloca [8 x i8], align 8
  %t1 = addrspacecast ptr %m4 to ptr addrspace(5)
  %r4 = alloca i64
  %r5 = alloca i64
  %r6 = alloca i1
  %r7 = alloca i1
  %r8 = alloca i1
  %r9 = alloca i1
  %r10 = alloca i1
  %r11 = alloca i1
  %r12 = alloca i1
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
  %r27 = alloca i64
  %r28 = alloca i64
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
  %r40 = alloca i64
  %r41 = alloca i64
  %r42 = alloca i64
  %r43 = alloca i64
  %r44 = alloca i64
  %r45 = alloca i64
  %r46 = alloca i64
  %r47 = alloca i64
  %r48 = alloca i32
  %m50 = alloca [8 x i8], align 8
  %m51 = alloca [8 x i8], align 8
  %m52 = alloca [4 x i8], align 4
  %m53 = alloca [8 x i8], align 8
  %r53 = alloca i32
  %m55 = alloca [8 x i8], align 8
  %m56 = alloca [8 x i8], align 8
  %m57 = alloca [4 x i8], align 4
  br label %start
start:
  br label %L.$L__func_begin0
L.$L__func_begin0:
  %t2 = ptrtoint ptr addrspace(5) %t1 to i64
  store i64 %t2, ptr %r5
  %t3 = load i64, ptr %r5
  %t4 = inttoptr i64 %t3 to ptr addrspace(5)
  %t5 = addrspacecast ptr addrspace(5) %t4 to ptr
  %t6 = ptrtoint ptr %t5 to i64
  store i64 %t6, ptr %r4
  %t7 = load i64, ptr %m1, align 8
  store i64 %t7, ptr %r28
  %t8 = load i64, ptr %m2, align 8
  store i64 %t8, ptr %r29
  %t9 = load i32, ptr %m3, align 4
  store i32 %t9, ptr %r15
  br label %L.$L__tmp0
L.$L__tmp0:
  %t10 = call i32 @__wp_sreg_ctaid_x()
  store i32 %t10, ptr %r16
  %t11 = call i32 @__wp_sreg_ntid_x()
  store i32 %t11, ptr %r17
  %t12 = load i32, ptr %r16
  %t13 = load i32, ptr %r17
  %t14 = mul i32 %t12, %t13
  store i32 %t14, ptr %r18
  %t15 = call i32 @__wp_sreg_tid_x()
  store i32 %t15, ptr %r19
  %t16 = load i32, ptr %r18
  %t17 = load i32, ptr %r19
  %t18 = add i32 %t16, %t17
  store i32 %t18, ptr %r14
  br label %L.$L__tmp1
L.$L__tmp1:
  %t19 = load i32, ptr %r14
  %t20 = load i32, ptr %r15
  %t21 = icmp slt i32 %t19, %t20
  %t22 = xor i1 %t21, true
  store i1 %t21, ptr %r7
  %t23 = load i1, ptr %r7
  %t24 = xor i1 %t23, -1
  store i1 %t24, ptr %r8
  %t25 = load i1, ptr %r8
  br i1 %t25, label %L.$L__BB0_7, label %b1
b1:
  br label %L.$L__BB0_1
L.$L__BB0_1:
  br label %L.$L__tmp2
L.$L__tmp2:
  %t26 = load i32, ptr %r14
  %t27 = sext i32 %t26 to i64
  store i64 %t27, ptr %r30
  %t28 = load i64, ptr %r30
  %t29 = call i32 @llvm.umin.i32(i32 2, i32 64)
  %t30 = zext i32 %t29 to i64
  %t31 = lshr i64 %t30, 1
  %t32 = sub i64 %t30, %t31
  %t33 = shl i64 %t28, %t31
  %t34 = shl i64 %t33, %t32
  store i64 %t34, ptr %r31
  %t35 = load i64, ptr %r28
  %t36 = load i64, ptr %r31
  %t37 = add i64 %t35, %t36
  store i64 %t37, ptr %r32
  %t38 = load i64, ptr %r32
  %t39 = inttoptr i64 %t38 to ptr
  %t40 = load i32, ptr %t39, align 4
  store i32 %t40, ptr %r20
  %t41 = load i32, ptr %r20
  %t42 = icmp sge i32 %t41, 0
  %t43 = xor i1 %t42, true
  store i1 %t42, ptr %r9
  %t44 = load i1, ptr %r9
  %t45 = xor i1 %t44, -1
  store i1 %t45, ptr %r10
  %t46 = load i1, ptr %r10
  br i1 %t46, label %L.$L__BB0_3, label %b2
b2:
  br label %L.$L__BB0_2
L.$L__BB0_2:
  br label %L.$L__BB0_4
L.$L__BB0_3:
  %t47 = ptrtoint ptr addrspace(1) @$str to i64
  store i64 %t47, ptr %r33
  %t48 = load i64, ptr %r33
  %t49 = inttoptr i64 %t48 to ptr addrspace(1)
  %t50 = addrspacecast ptr addrspace(1) %t49 to ptr
  %t51 = ptrtoint ptr %t50 to i64
  store i64 %t51, ptr %r34
  %t52 = ptrtoint ptr addrspace(1) @$str$1 to i64
  store i64 %t52, ptr %r35
  %t53 = load i64, ptr %r35
  %t54 = inttoptr i64 %t53 to ptr addrspace(1)
  %t55 = addrspacecast ptr addrspace(1) %t54 to ptr
  %t56 = ptrtoint ptr %t55 to i64
  store i64 %t56, ptr %r36
  %t57 = ptrtoint ptr addrspace(1) @__unnamed_1 to i64
  store i64 %t57, ptr %r37
  %t58 = load i64, ptr %r37
  %t59 = inttoptr i64 %t58 to ptr addrspace(1)
  %t60 = addrspacecast ptr addrspace(1) %t59 to ptr
  %t61 = ptrtoint ptr %t60 to i64
  store i64 %t61, ptr %r38
  %t62 = load i64, ptr %r34
  store i64 %t62, ptr %m50, align 8
  %t63 = load i64, ptr %r36
  store i64 %t63, ptr %m51, align 8
  store i32 7, ptr %m52, align 4
  %t64 = load i64, ptr %r38
  store i64 %t64, ptr %m53, align 8
  %t65 = load i64, ptr %m50
  %t66 = load i64, ptr %m51
  %t67 = load i32, ptr %m52
  %t68 = load i64, ptr %m53
  call void @__assert_fail(i64 %t65, i64 %t66, i32 %t67, i64 %t68)
  br label %L.$L__BB0_4
L.$L__BB0_4:
  %t69 = load i32, ptr %r14
  %t70 = sext i32 %t69 to i64
  store i64 %t70, ptr %r39
  %t71 = load i64, ptr %r39
  %t72 = call i32 @llvm.umin.i32(i32 2, i32 64)
  %t73 = zext i32 %t72 to i64
  %t74 = lshr i64 %t73, 1
  %t75 = sub i64 %t73, %t74
  %t76 = shl i64 %t71, %t74
  %t77 = shl i64 %t76, %t75
  store i64 %t77, ptr %r40
  %t78 = load i64, ptr %r28
  %t79 = load i64, ptr %r40
  %t80 = add i64 %t78, %t79
  store i64 %t80, ptr %r41
  %t81 = load i64, ptr %r41
  %t82 = inttoptr i64 %t81 to ptr
  %t83 = load i32, ptr %t82, align 4
  store i32 %t83, ptr %r21
  %t84 = load i32, ptr %r21
  %t85 = mul i32 %t84, 2
  store i32 %t85, ptr %r22
  %t86 = load i32, ptr %r14
  %t87 = sext i32 %t86 to i64
  store i64 %t87, ptr %r42
  %t88 = load i64, ptr %r42
  %t89 = call i32 @llvm.umin.i32(i32 2, i32 64)
  %t90 = zext i32 %t89 to i64
  %t91 = lshr i64 %t90, 1
  %t92 = sub i64 %t90, %t91
  %t93 = shl i64 %t88, %t91
  %t94 = shl i64 %t93, %t92
  store i64 %t94, ptr %r43
  %t95 = load i64, ptr %r29
  %t96 = load i64, ptr %r43
  %t97 = add i64 %t95, %t96
  store i64 %t97, ptr %r44
  %t98 = load i64, ptr %r44
  %t99 = inttoptr i64 %t98 to ptr
  %t100 = load i32, ptr %r22
  store i32 %t100, ptr %t99, align 4
  %t101 = load i32, ptr %r14
  %t102 = icmp eq i32 %t101, 0
  %t103 = xor i1 %t102, true
  store i1 %t102, ptr %r11
  %t104 = load i1, ptr %r11
  %t105 = xor i1 %t104, -1
  store i1 %t105, ptr %r12
  %t106 = load i1, ptr %r12
  br i1 %t106, label %L.$L__BB0_6, label %b3
b3:
  br label %L.$L__BB0_5
L.$L__BB0_5:
  %t107 = load i32, ptr %r15
  store i32 %t107, ptr %r23
  %t108 = load i64, ptr %r29
  %t109 = inttoptr i64 %t108 to ptr
  %t110 = load i32, ptr %t109, align 4
  store i32 %t110, ptr %r24
  %t111 = load i32, ptr %r24
  store i32 %t111, ptr %r25
  %t112 = load i64, ptr %r4
  %t113 = inttoptr i64 %t112 to ptr
  %t114 = load i32, ptr %r23
  store i32 %t114, ptr %t113, align 4
  %t115 = load i64, ptr %r4
  %t116 = inttoptr i64 %t115 to ptr
  %t117 = getelementptr inbounds i8, ptr %t116, i64 4
  %t118 = load i32, ptr %r25
  store i32 %t118, ptr %t117, align 4
  %t119 = ptrtoint ptr addrspace(1) @$str$2 to i64
  store i64 %t119, ptr %r45
  %t120 = load i64, ptr %r45
  %t121 = inttoptr i64 %t120 to ptr addrspace(1)
  %t122 = addrspacecast ptr addrspace(1) %t121 to ptr
  %t123 = ptrtoint ptr %t122 to i64
  store i64 %t123, ptr %r46
  %t124 = load i64, ptr %r4
  %t125 = add i64 %t124, 0
  store i64 %t125, ptr %r47
  %t126 = load i64, ptr %r46
  store i64 %t126, ptr %m55, align 8
  %t127 = load i64, ptr %r47
  store i64 %t127, ptr %m56, align 8
  %t128 = load i64, ptr %m55
  %t129 = load i64, ptr %m56
  %t130 = call i32 @vprintf(i64 %t128, i64 %t129)
  store i32 %t130, ptr %m57
  %t131 = load i32, ptr %m57, align 4
  store i32 %t131, ptr %r26
  br label %L.$L__BB0_6
L.$L__BB0_6:
  br label %L.$L__BB0_7
L.$L__tmp3:
  br label %L.$L__BB0_7
L.$L__BB0_7:
  br label %ret
L.$L__tmp4:
  br label %L.$L__func_end0
L.$L__func_end0:
  br label %ret
ret:
  ret void
}

declare void @__assertfail(i64, i64, i32, i64, i64)
declare i32 @vprintf(i64, i64)
declare i32 @__wp_sreg_ctaid_x()
declare i32 @__wp_sreg_ntid_x()
declare i32 @__wp_sreg_tid_x()
declare i32 @llvm.umin.i32(i32, i32)
