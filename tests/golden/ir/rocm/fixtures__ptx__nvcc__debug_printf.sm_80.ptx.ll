; wheelport lowering golden: profile rocm, input fixtures/ptx/nvcc/debug_printf.sm_80.ptx
; kernel KernelResult { name: "_Z12debug_printfPKiPii", outcome: Lowered, params: [ParamLayout { name: "_Z12debug_printfPKiPii_param_0", offset: 0, size: 8, align: 8 }, ParamLayout { name: "_Z12debug_printfPKiPii_param_1", offset: 8, size: 8, align: 8 }, ParamLayout { name: "_Z12debug_printfPKiPii_param_2", offset: 16, size: 4, align: 4 }], notes: [] }
; PTX lowered by wheelport for target rocm
target datalayout = "e-p:64:64-p1:64:64-p2:32:32-p3:32:32-p4:64:64-p5:32:32-p6:32:32-p7:160:256:256:32-p8:128:128-p9:192:256:256:32-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-v2048:2048-n32:64-S32-A5-G1-ni:7:8:9"
target triple = "amdgcn-amd-amdhsa"

@__unnamed_1 = addrspace(1) global [43 x i8] c"void debug\5Fprintf\28const int \2A\2C int \2A\2C int\29\00", align 1
@$str = addrspace(1) global [11 x i8] c"in\5Bi\5D \3E\3D 0\00", align 1
@$str$1 = addrspace(1) global [16 x i8] c"debug\5Fprintf\2Ecu\00", align 1
@$str$2 = addrspace(1) global [15 x i8] c"n\3D\25d first\3D\25d\0A\00", align 1
@__wp_printf_fifo = addrspace(1) externally_initialized global [1048576 x i8] zeroinitializer, align 16

define internal void @__assert_fail(i64 %a0, i64 %a1, i32 %a2, i64 %a3)  {
entry:
  %m1 = alloca [8 x i8], align 8, addrspace(5)
  store i64 %a0, ptr addrspace(5) %m1
  %m2 = alloca [8 x i8], align 8, addrspace(5)
  store i64 %a1, ptr addrspace(5) %m2
  %m3 = alloca [4 x i8], align 4, addrspace(5)
  store i32 %a2, ptr addrspace(5) %m3
  %m4 = alloca [8 x i8], align 8, addrspace(5)
  store i64 %a3, ptr addrspace(5) %m4
  %r4 = alloca i32, addrspace(5)
  %r5 = alloca i32, addrspace(5)
  %r6 = alloca i64, addrspace(5)
  %r7 = alloca i64, addrspace(5)
  %r8 = alloca i64, addrspace(5)
  %r9 = alloca i64, addrspace(5)
  %r10 = alloca i32, addrspace(5)
  %m12 = alloca [8 x i8], align 8, addrspace(5)
  %m13 = alloca [8 x i8], align 8, addrspace(5)
  %m14 = alloca [4 x i8], align 4, addrspace(5)
  %m15 = alloca [8 x i8], align 8, addrspace(5)
  %m16 = alloca [8 x i8], align 8, addrspace(5)
  br label %start
start:
  %t1 = load i64, ptr addrspace(5) %m1, align 8
  store i64 %t1, ptr addrspace(5) %r7
  %t2 = load i64, ptr addrspace(5) %m2, align 8
  store i64 %t2, ptr addrspace(5) %r8
  %t3 = load i32, ptr addrspace(5) %m3, align 4
  store i32 %t3, ptr addrspace(5) %r5
  %t4 = load i64, ptr addrspace(5) %m4, align 8
  store i64 %t4, ptr addrspace(5) %r9
  %t5 = load i64, ptr addrspace(5) %r7
  store i64 %t5, ptr addrspace(5) %m12, align 8
  %t6 = load i64, ptr addrspace(5) %r8
  store i64 %t6, ptr addrspace(5) %m13, align 8
  %t7 = load i32, ptr addrspace(5) %r5
  store i32 %t7, ptr addrspace(5) %m14, align 4
  %t8 = load i64, ptr addrspace(5) %r9
  store i64 %t8, ptr addrspace(5) %m15, align 8
  store i64 1, ptr addrspace(5) %m16, align 8
  %t9 = load i64, ptr addrspace(5) %m12
  %t10 = load i64, ptr addrspace(5) %m13
  %t11 = load i32, ptr addrspace(5) %m14
  %t12 = load i64, ptr addrspace(5) %m15
  %t13 = load i64, ptr addrspace(5) %m16
  call void @__wp_assertfail(i64 %t9, i64 %t10, i32 %t11, i64 %t12, i64 %t13)
  br label %ret
L.$L__func_end1:
  br label %ret
ret:
  ret void
}

define amdgpu_kernel void @_Z12debug_printfPKiPii(i64 %a0, i64 %a1, i32 %a2)  {
entry:
  %m1 = alloca [8 x i8], align 8, addrspace(5)
  store i64 %a0, ptr addrspace(5) %m1
  %m2 = alloca [8 x i8], align 8, addrspace(5)
  store i64 %a1, ptr addrspace(5) %m2
  %m3 = alloca [4 x i8], align 4, addrspace(5)
  store i32 %a2, ptr addrspace(5) %m3
  %m4 = alloca [8 x i8], align 8, addrspace(5)
  %r4 = alloca i64, addrspace(5)
  %r5 = alloca i64, addrspace(5)
  %r6 = alloca i1, addrspace(5)
  %r7 = alloca i1, addrspace(5)
  %r8 = alloca i1, addrspace(5)
  %r9 = alloca i1, addrspace(5)
  %r10 = alloca i1, addrspace(5)
  %r11 = alloca i1, addrspace(5)
  %r12 = alloca i1, addrspace(5)
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
  %r27 = alloca i64, addrspace(5)
  %r28 = alloca i64, addrspace(5)
  %r29 = alloca i64, addrspace(5)
  %r30 = alloca i64, addrspace(5)
  %r31 = alloca i64, addrspace(5)
  %r32 = alloca i64, addrspace(5)
  %r33 = alloca i64, addrspace(5)
  %r34 = alloca i64, addrspace(5)
  %r35 = alloca i64, addrspace(5)
  %r36 = alloca i64, addrspace(5)
  %r37 = alloca i64, addrspace(5)
  %r38 = alloca i64, addrspace(5)
  %r39 = alloca i64, addrspace(5)
  %r40 = alloca i64, addrspace(5)
  %r41 = alloca i64, addrspace(5)
  %r42 = alloca i64, addrspace(5)
  %r43 = alloca i64, addrspace(5)
  %r44 = alloca i64, addrspace(5)
  %r45 = alloca i64, addrspace(5)
  %r46 = alloca i64, addrspace(5)
  %r47 = alloca i64, addrspace(5)
  %r48 = alloca i32, addrspace(5)
  %m50 = alloca [8 x i8], align 8, addrspace(5)
  %m51 = alloca [8 x i8], align 8, addrspace(5)
  %m52 = alloca [4 x i8], align 4, addrspace(5)
  %m53 = alloca [8 x i8], align 8, addrspace(5)
  %r53 = alloca i32, addrspace(5)
  %m55 = alloca [8 x i8], align 8, addrspace(5)
  %m56 = alloca [8 x i8], align 8, addrspace(5)
  %m57 = alloca [4 x i8], align 4, addrspace(5)
  br label %start
start:
  br label %L.$L__func_begin0
L.$L__func_begin0:
  %t1 = ptrtoint ptr addrspace(5) %m4 to i64
  store i64 %t1, ptr addrspace(5) %r5
  %t2 = load i64, ptr addrspace(5) %r5
  %t3 = inttoptr i64 %t2 to ptr addrspace(5)
  %t4 = addrspacecast ptr addrspace(5) %t3 to ptr
  %t5 = ptrtoint ptr %t4 to i64
  store i64 %t5, ptr addrspace(5) %r4
  %t6 = load i64, ptr addrspace(5) %m1, align 8
  store i64 %t6, ptr addrspace(5) %r28
  %t7 = load i64, ptr addrspace(5) %m2, align 8
  store i64 %t7, ptr addrspace(5) %r29
  %t8 = load i32, ptr addrspace(5) %m3, align 4
  store i32 %t8, ptr addrspace(5) %r15
  br label %L.$L__tmp0
L.$L__tmp0:
  %t9 = call i32 @__wp_sreg_ctaid_x()
  store i32 %t9, ptr addrspace(5) %r16
  %t10 = call i32 @__wp_sreg_ntid_x()
  store i32 %t10, ptr addrspace(5) %r17
  %t11 = load i32, ptr addrspace(5) %r16
  %t12 = load i32, ptr addrspace(5) %r17
  %t13 = mul i32 %t11, %t12
  store i32 %t13, ptr addrspace(5) %r18
  %t14 = call i32 @__wp_sreg_tid_x()
  store i32 %t14, ptr addrspace(5) %r19
  %t15 = load i32, ptr addrspace(5) %r18
  %t16 = load i32, ptr addrspace(5) %r19
  %t17 = add i32 %t15, %t16
  store i32 %t17, ptr addrspace(5) %r14
  br label %L.$L__tmp1
L.$L__tmp1:
  %t18 = load i32, ptr addrspace(5) %r14
  %t19 = load i32, ptr addrspace(5) %r15
  %t20 = icmp slt i32 %t18, %t19
  %t21 = xor i1 %t20, true
  store i1 %t20, ptr addrspace(5) %r7
  %t22 = load i1, ptr addrspace(5) %r7
  %t23 = xor i1 %t22, -1
  store i1 %t23, ptr addrspace(5) %r8
  %t24 = load i1, ptr addrspace(5) %r8
  br i1 %t24, label %L.$L__BB0_7, label %b1
b1:
  br label %L.$L__BB0_1
L.$L__BB0_1:
  br label %L.$L__tmp2
L.$L__tmp2:
  %t25 = load i32, ptr addrspace(5) %r14
  %t26 = sext i32 %t25 to i64
  store i64 %t26, ptr addrspace(5) %r30
  %t27 = load i64, ptr addrspace(5) %r30
  %t28 = icmp uge i32 2, 64
  %t29 = call i32 @llvm.umin.i32(i32 2, i32 63)
  %t30 = zext i32 %t29 to i64
  %t31 = shl i64 %t27, %t30
  %t32 = select i1 %t28, i64 0, i64 %t31
  store i64 %t32, ptr addrspace(5) %r31
  %t33 = load i64, ptr addrspace(5) %r28
  %t34 = load i64, ptr addrspace(5) %r31
  %t35 = add i64 %t33, %t34
  store i64 %t35, ptr addrspace(5) %r32
  %t36 = load i64, ptr addrspace(5) %r32
  %t37 = inttoptr i64 %t36 to ptr
  %t38 = load i32, ptr %t37, align 4
  store i32 %t38, ptr addrspace(5) %r20
  %t39 = load i32, ptr addrspace(5) %r20
  %t40 = icmp sge i32 %t39, 0
  %t41 = xor i1 %t40, true
  store i1 %t40, ptr addrspace(5) %r9
  %t42 = load i1, ptr addrspace(5) %r9
  %t43 = xor i1 %t42, -1
  store i1 %t43, ptr addrspace(5) %r10
  %t44 = load i1, ptr addrspace(5) %r10
  br i1 %t44, label %L.$L__BB0_3, label %b2
b2:
  br label %L.$L__BB0_2
L.$L__BB0_2:
  br label %L.$L__BB0_4
L.$L__BB0_3:
  %t45 = ptrtoint ptr addrspace(1) @$str to i64
  store i64 %t45, ptr addrspace(5) %r33
  %t46 = load i64, ptr addrspace(5) %r33
  %t47 = inttoptr i64 %t46 to ptr addrspace(1)
  %t48 = addrspacecast ptr addrspace(1) %t47 to ptr
  %t49 = ptrtoint ptr %t48 to i64
  store i64 %t49, ptr addrspace(5) %r34
  %t50 = ptrtoint ptr addrspace(1) @$str$1 to i64
  store i64 %t50, ptr addrspace(5) %r35
  %t51 = load i64, ptr addrspace(5) %r35
  %t52 = inttoptr i64 %t51 to ptr addrspace(1)
  %t53 = addrspacecast ptr addrspace(1) %t52 to ptr
  %t54 = ptrtoint ptr %t53 to i64
  store i64 %t54, ptr addrspace(5) %r36
  %t55 = ptrtoint ptr addrspace(1) @__unnamed_1 to i64
  store i64 %t55, ptr addrspace(5) %r37
  %t56 = load i64, ptr addrspace(5) %r37
  %t57 = inttoptr i64 %t56 to ptr addrspace(1)
  %t58 = addrspacecast ptr addrspace(1) %t57 to ptr
  %t59 = ptrtoint ptr %t58 to i64
  store i64 %t59, ptr addrspace(5) %r38
  %t60 = load i64, ptr addrspace(5) %r34
  store i64 %t60, ptr addrspace(5) %m50, align 8
  %t61 = load i64, ptr addrspace(5) %r36
  store i64 %t61, ptr addrspace(5) %m51, align 8
  store i32 7, ptr addrspace(5) %m52, align 4
  %t62 = load i64, ptr addrspace(5) %r38
  store i64 %t62, ptr addrspace(5) %m53, align 8
  %t63 = load i64, ptr addrspace(5) %m50
  %t64 = load i64, ptr addrspace(5) %m51
  %t65 = load i32, ptr addrspace(5) %m52
  %t66 = load i64, ptr addrspace(5) %m53
  call void @__assert_fail(i64 %t63, i64 %t64, i32 %t65, i64 %t66)
  br label %L.$L__BB0_4
L.$L__BB0_4:
  %t67 = load i32, ptr addrspace(5) %r14
  %t68 = sext i32 %t67 to i64
  store i64 %t68, ptr addrspace(5) %r39
  %t69 = load i64, ptr addrspace(5) %r39
  %t70 = icmp uge i32 2, 64
  %t71 = call i32 @llvm.umin.i32(i32 2, i32 63)
  %t72 = zext i32 %t71 to i64
  %t73 = shl i64 %t69, %t72
  %t74 = select i1 %t70, i64 0, i64 %t73
  store i64 %t74, ptr addrspace(5) %r40
  %t75 = load i64, ptr addrspace(5) %r28
  %t76 = load i64, ptr addrspace(5) %r40
  %t77 = add i64 %t75, %t76
  store i64 %t77, ptr addrspace(5) %r41
  %t78 = load i64, ptr addrspace(5) %r41
  %t79 = inttoptr i64 %t78 to ptr
  %t80 = load i32, ptr %t79, align 4
  store i32 %t80, ptr addrspace(5) %r21
  %t81 = load i32, ptr addrspace(5) %r21
  %t82 = mul i32 %t81, 2
  store i32 %t82, ptr addrspace(5) %r22
  %t83 = load i32, ptr addrspace(5) %r14
  %t84 = sext i32 %t83 to i64
  store i64 %t84, ptr addrspace(5) %r42
  %t85 = load i64, ptr addrspace(5) %r42
  %t86 = icmp uge i32 2, 64
  %t87 = call i32 @llvm.umin.i32(i32 2, i32 63)
  %t88 = zext i32 %t87 to i64
  %t89 = shl i64 %t85, %t88
  %t90 = select i1 %t86, i64 0, i64 %t89
  store i64 %t90, ptr addrspace(5) %r43
  %t91 = load i64, ptr addrspace(5) %r29
  %t92 = load i64, ptr addrspace(5) %r43
  %t93 = add i64 %t91, %t92
  store i64 %t93, ptr addrspace(5) %r44
  %t94 = load i64, ptr addrspace(5) %r44
  %t95 = inttoptr i64 %t94 to ptr
  %t96 = load i32, ptr addrspace(5) %r22
  store i32 %t96, ptr %t95, align 4
  %t97 = load i32, ptr addrspace(5) %r14
  %t98 = icmp eq i32 %t97, 0
  %t99 = xor i1 %t98, true
  store i1 %t98, ptr addrspace(5) %r11
  %t100 = load i1, ptr addrspace(5) %r11
  %t101 = xor i1 %t100, -1
  store i1 %t101, ptr addrspace(5) %r12
  %t102 = load i1, ptr addrspace(5) %r12
  br i1 %t102, label %L.$L__BB0_6, label %b3
b3:
  br label %L.$L__BB0_5
L.$L__BB0_5:
  %t103 = load i32, ptr addrspace(5) %r15
  store i32 %t103, ptr addrspace(5) %r23
  %t104 = load i64, ptr addrspace(5) %r29
  %t105 = inttoptr i64 %t104 to ptr
  %t106 = load i32, ptr %t105, align 4
  store i32 %t106, ptr addrspace(5) %r24
  %t107 = load i32, ptr addrspace(5) %r24
  store i32 %t107, ptr addrspace(5) %r25
  %t108 = getelementptr inbounds i8, ptr addrspace(5) %m4, i64 0
  %t109 = load i32, ptr addrspace(5) %r23
  store i32 %t109, ptr addrspace(5) %t108, align 4
  %t110 = getelementptr inbounds i8, ptr addrspace(5) %m4, i64 4
  %t111 = load i32, ptr addrspace(5) %r25
  store i32 %t111, ptr addrspace(5) %t110, align 4
  %t112 = ptrtoint ptr addrspace(1) @$str$2 to i64
  store i64 %t112, ptr addrspace(5) %r45
  %t113 = load i64, ptr addrspace(5) %r45
  %t114 = inttoptr i64 %t113 to ptr addrspace(1)
  %t115 = addrspacecast ptr addrspace(1) %t114 to ptr
  %t116 = ptrtoint ptr %t115 to i64
  store i64 %t116, ptr addrspace(5) %r46
  %t117 = load i64, ptr addrspace(5) %r4
  %t118 = add i64 %t117, 0
  store i64 %t118, ptr addrspace(5) %r47
  %t119 = load i64, ptr addrspace(5) %r46
  store i64 %t119, ptr addrspace(5) %m55, align 8
  %t120 = load i64, ptr addrspace(5) %r47
  store i64 %t120, ptr addrspace(5) %m56, align 8
  %t121 = load i64, ptr addrspace(5) %m55
  %t122 = load i64, ptr addrspace(5) %m56
  %t123 = call i32 @__wp_vprintf(i64 %t121, i64 %t122)
  store i32 %t123, ptr addrspace(5) %m57
  %t124 = load i32, ptr addrspace(5) %m57, align 4
  store i32 %t124, ptr addrspace(5) %r26
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

declare void @__wp_assertfail(i64, i64, i32, i64, i64)
declare i32 @__wp_vprintf(i64, i64)
declare i32 @__wp_sreg_ctaid_x()
declare i32 @__wp_sreg_ntid_x()
declare i32 @__wp_sreg_tid_x()
declare i32 @llvm.umin.i32(i32, i32)
