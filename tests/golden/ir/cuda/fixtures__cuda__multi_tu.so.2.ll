; wheelport lowering golden: profile cuda, input fixtures__cuda__multi_tu.so.2
; kernel KernelResult { name: "_Z11debug_printPKfi", outcome: Lowered, params: [ParamLayout { name: "_Z11debug_printPKfi_param_0", offset: 0, size: 8, align: 8 }, ParamLayout { name: "_Z11debug_printPKfi_param_1", offset: 8, size: 4, align: 4 }], notes: [] }
; PTX lowered by wheelport for target cuda
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@$str = addrspace(1) global [32 x i8] c"block \25d thread \25d\3A x\5B\25d\5D \3D \25f\0A\00", align 1
@$str$1 = addrspace(1) global [21 x i8] c"debug\5Fprint\3A n \3D \25d\0A\00", align 1

define ptx_kernel void @_Z11debug_printPKfi(i64 %a0, i32 %a1)  {
entry:
  %m1 = alloca [8 x i8], align 8
  store i64 %a0, ptr %m1
  %m2 = alloca [4 x i8], align 4
  store i32 %a1, ptr %m2
  %m3 = alloca [24 x i8], align 8
  %t1 = addrspacecast ptr %m3 to ptr addrspace(5)
  %r3 = alloca i64
  %r4 = alloca i64
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
  %r32 = alloca i64
  %r33 = alloca i64
  %r34 = alloca i64
  %r35 = alloca i64
  %r36 = alloca i32
  %m38 = alloca [8 x i8], align 8
  %m39 = alloca [8 x i8], align 8
  %m40 = alloca [4 x i8], align 4
  %r40 = alloca i32
  %m42 = alloca [8 x i8], align 8
  %m43 = alloca [8 x i8], align 8
  %m44 = alloca [4 x i8], align 4
  br label %start
start:
  %t2 = ptrtoint ptr addrspace(5) %t1 to i64
  store i64 %t2, ptr %r4
  %t3 = load i64, ptr %r4
  %t4 = inttoptr i64 %t3 to ptr addrspace(5)
  %t5 = addrspacecast ptr addrspace(5) %t4 to ptr
  %t6 = ptrtoint ptr %t5 to i64
  store i64 %t6, ptr %r3
  %t7 = load i64, ptr %m1, align 8
  store i64 %t7, ptr %r25
  %t8 = load i32, ptr %m2, align 4
  store i32 %t8, ptr %r16
  %t9 = load i64, ptr %r3
  %t10 = add i64 %t9, 0
  store i64 %t10, ptr %r26
  %t11 = load i64, ptr %r4
  %t12 = add i64 %t11, 0
  store i64 %t12, ptr %r24
  %t13 = call i32 @__wp_sreg_ntid_x()
  store i32 %t13, ptr %r17
  %t14 = call i32 @__wp_sreg_ctaid_x()
  store i32 %t14, ptr %r13
  %t15 = call i32 @__wp_sreg_tid_x()
  store i32 %t15, ptr %r14
  %t16 = load i32, ptr %r13
  %t17 = load i32, ptr %r17
  %t18 = mul i32 %t16, %t17
  %t19 = load i32, ptr %r14
  %t20 = add i32 %t18, %t19
  store i32 %t20, ptr %r15
  %t21 = load i32, ptr %r15
  %t22 = load i32, ptr %r16
  %t23 = icmp sge i32 %t21, %t22
  %t24 = xor i1 %t23, true
  store i1 %t23, ptr %r6
  %t25 = load i32, ptr %r15
  %t26 = and i32 %t25, 63
  store i32 %t26, ptr %r18
  %t27 = load i32, ptr %r18
  %t28 = icmp ne i32 %t27, 0
  %t29 = xor i1 %t28, true
  store i1 %t28, ptr %r7
  %t30 = load i1, ptr %r6
  %t31 = load i1, ptr %r7
  %t32 = or i1 %t30, %t31
  store i1 %t32, ptr %r8
  %t33 = load i1, ptr %r8
  br i1 %t33, label %L.$L__BB0_2, label %b1
b1:
  %t34 = load i64, ptr %r25
  %t35 = inttoptr i64 %t34 to ptr
  %t36 = addrspacecast ptr %t35 to ptr addrspace(1)
  %t37 = ptrtoint ptr addrspace(1) %t36 to i64
  store i64 %t37, ptr %r27
  %t38 = load i32, ptr %r15
  %t39 = sext i32 %t38 to i64
  %t40 = sext i32 4 to i64
  %t41 = mul i64 %t39, %t40
  store i64 %t41, ptr %r28
  %t42 = load i64, ptr %r27
  %t43 = load i64, ptr %r28
  %t44 = add i64 %t42, %t43
  store i64 %t44, ptr %r29
  %t45 = load i64, ptr %r29
  %t46 = inttoptr i64 %t45 to ptr addrspace(1)
  %t47 = load float, ptr addrspace(1) %t46, align 4
  store float %t47, ptr %r11
  %t48 = load float, ptr %r11
  %t49 = fpext float %t48 to double
  store double %t49, ptr %r22
  %t50 = load i64, ptr %r24
  %t51 = inttoptr i64 %t50 to ptr addrspace(5)
  %t52 = load i32, ptr %r13
  %t53 = insertelement <2 x i32> poison, i32 %t52, i32 0
  %t54 = load i32, ptr %r14
  %t55 = insertelement <2 x i32> %t53, i32 %t54, i32 1
  store <2 x i32> %t55, ptr addrspace(5) %t51, align 8
  %t56 = load i64, ptr %r24
  %t57 = inttoptr i64 %t56 to ptr addrspace(5)
  %t58 = getelementptr inbounds i8, ptr addrspace(5) %t57, i64 8
  %t59 = load i32, ptr %r15
  store i32 %t59, ptr addrspace(5) %t58, align 4
  %t60 = load i64, ptr %r24
  %t61 = inttoptr i64 %t60 to ptr addrspace(5)
  %t62 = getelementptr inbounds i8, ptr addrspace(5) %t61, i64 16
  %t63 = load double, ptr %r22
  store double %t63, ptr addrspace(5) %t62, align 8
  %t64 = ptrtoint ptr addrspace(1) @$str to i64
  store i64 %t64, ptr %r30
  %t65 = load i64, ptr %r30
  %t66 = inttoptr i64 %t65 to ptr addrspace(1)
  %t67 = addrspacecast ptr addrspace(1) %t66 to ptr
  %t68 = ptrtoint ptr %t67 to i64
  store i64 %t68, ptr %r31
  %t69 = load i64, ptr %r31
  store i64 %t69, ptr %m38, align 8
  %t70 = load i64, ptr %r26
  store i64 %t70, ptr %m39, align 8
  %t71 = load i64, ptr %m38
  %t72 = load i64, ptr %m39
  %t73 = call i32 @vprintf(i64 %t71, i64 %t72)
  store i32 %t73, ptr %m40
  %t74 = load i32, ptr %m40, align 4
  store i32 %t74, ptr %r19
  br label %L.$L__BB0_2
L.$L__BB0_2:
  %t75 = load i32, ptr %r15
  %t76 = icmp ne i32 %t75, 0
  %t77 = xor i1 %t76, true
  store i1 %t76, ptr %r9
  %t78 = load i1, ptr %r9
  br i1 %t78, label %L.$L__BB0_4, label %b2
b2:
  %t79 = load i64, ptr %r24
  %t80 = inttoptr i64 %t79 to ptr addrspace(5)
  %t81 = load i32, ptr %r16
  store i32 %t81, ptr addrspace(5) %t80, align 4
  %t82 = ptrtoint ptr addrspace(1) @$str$1 to i64
  store i64 %t82, ptr %r33
  %t83 = load i64, ptr %r33
  %t84 = inttoptr i64 %t83 to ptr addrspace(1)
  %t85 = addrspacecast ptr addrspace(1) %t84 to ptr
  %t86 = ptrtoint ptr %t85 to i64
  store i64 %t86, ptr %r34
  %t87 = load i64, ptr %r34
  store i64 %t87, ptr %m42, align 8
  %t88 = load i64, ptr %r26
  store i64 %t88, ptr %m43, align 8
  %t89 = load i64, ptr %m42
  %t90 = load i64, ptr %m43
  %t91 = call i32 @vprintf(i64 %t89, i64 %t90)
  store i32 %t91, ptr %m44
  %t92 = load i32, ptr %m44, align 4
  store i32 %t92, ptr %r20
  br label %L.$L__BB0_4
L.$L__BB0_4:
  br label %ret
ret:
  ret void
}

declare i32 @vprintf(i64, i64)
declare i32 @__wp_sreg_ctaid_x()
declare i32 @__wp_sreg_ntid_x()
declare i32 @__wp_sreg_tid_x()
