; wheelport lowering golden: profile dtk, input fixtures__cuda__multi_tu.so.2
; kernel KernelResult { name: "_Z11debug_printPKfi", outcome: Lowered, params: [ParamLayout { name: "_Z11debug_printPKfi_param_0", offset: 0, size: 8, align: 8 }, ParamLayout { name: "_Z11debug_printPKfi_param_1", offset: 8, size: 4, align: 4 }], notes: [] }
; PTX lowered by wheelport for target dtk
target datalayout = "e-p:64:64-p1:64:64-p2:32:32-p3:32:32-p4:64:64-p5:32:32-p6:32:32-p7:160:256:256:32-p8:128:128-p9:192:256:256:32-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-v2048:2048-n32:64-S32-A5-G1-ni:7:8:9"
target triple = "amdgcn-amd-amdhsa"

@$str = addrspace(1) global [32 x i8] c"block \25d thread \25d\3A x\5B\25d\5D \3D \25f\0A\00", align 1
@$str$1 = addrspace(1) global [21 x i8] c"debug\5Fprint\3A n \3D \25d\0A\00", align 1
@__wp_printf_fifo = addrspace(1) externally_initialized global [1048576 x i8] zeroinitializer, align 16

define amdgpu_kernel void @_Z11debug_printPKfi(i64 %a0, i32 %a1)  {
entry:
  %m1 = alloca [8 x i8], align 8, addrspace(5)
  store i64 %a0, ptr addrspace(5) %m1
  %m2 = alloca [4 x i8], align 4, addrspace(5)
  store i32 %a1, ptr addrspace(5) %m2
  %m3 = alloca [24 x i8], align 8, addrspace(5)
  %r3 = alloca i64, addrspace(5)
  %r4 = alloca i64, addrspace(5)
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
  %r21 = alloca i64, addrspace(5)
  %r22 = alloca i64, addrspace(5)
  %r23 = alloca i64, addrspace(5)
  %r24 = alloca i64, addrspace(5)
  %r25 = alloca i64, addrspace(5)
  %r26 = alloca i64, addrspace(5)
  %r27 = alloca i64, addrspace(5)
  %r28 = alloca i64, addrspace(5)
  %r29 = alloca i64, addrspace(5)
  %r30 = alloca i64, addrspace(5)
  %r31 = alloca i64, addrspace(5)
  %r32 = alloca i64, addrspace(5)
  %r33 = alloca i64, addrspace(5)
  %r34 = alloca i64, addrspace(5)
  %r35 = alloca i64, addrspace(5)
  %r36 = alloca i32, addrspace(5)
  %m38 = alloca [8 x i8], align 8, addrspace(5)
  %m39 = alloca [8 x i8], align 8, addrspace(5)
  %m40 = alloca [4 x i8], align 4, addrspace(5)
  %r40 = alloca i32, addrspace(5)
  %m42 = alloca [8 x i8], align 8, addrspace(5)
  %m43 = alloca [8 x i8], align 8, addrspace(5)
  %m44 = alloca [4 x i8], align 4, addrspace(5)
  br label %start
start:
  %t1 = ptrtoint ptr addrspace(5) %m3 to i64
  store i64 %t1, ptr addrspace(5) %r4
  %t2 = load i64, ptr addrspace(5) %r4
  %t3 = inttoptr i64 %t2 to ptr addrspace(5)
  %t4 = addrspacecast ptr addrspace(5) %t3 to ptr
  %t5 = ptrtoint ptr %t4 to i64
  store i64 %t5, ptr addrspace(5) %r3
  %t6 = load i64, ptr addrspace(5) %m1, align 8
  store i64 %t6, ptr addrspace(5) %r25
  %t7 = load i32, ptr addrspace(5) %m2, align 4
  store i32 %t7, ptr addrspace(5) %r16
  %t8 = load i64, ptr addrspace(5) %r3
  %t9 = add i64 %t8, 0
  store i64 %t9, ptr addrspace(5) %r26
  %t10 = load i64, ptr addrspace(5) %r4
  %t11 = add i64 %t10, 0
  store i64 %t11, ptr addrspace(5) %r24
  %t12 = call i32 @__wp_sreg_ntid_x()
  store i32 %t12, ptr addrspace(5) %r17
  %t13 = call i32 @__wp_sreg_ctaid_x()
  store i32 %t13, ptr addrspace(5) %r13
  %t14 = call i32 @__wp_sreg_tid_x()
  store i32 %t14, ptr addrspace(5) %r14
  %t15 = load i32, ptr addrspace(5) %r13
  %t16 = load i32, ptr addrspace(5) %r17
  %t17 = mul i32 %t15, %t16
  %t18 = load i32, ptr addrspace(5) %r14
  %t19 = add i32 %t17, %t18
  store i32 %t19, ptr addrspace(5) %r15
  %t20 = load i32, ptr addrspace(5) %r15
  %t21 = load i32, ptr addrspace(5) %r16
  %t22 = icmp sge i32 %t20, %t21
  %t23 = xor i1 %t22, true
  store i1 %t22, ptr addrspace(5) %r6
  %t24 = load i32, ptr addrspace(5) %r15
  %t25 = and i32 %t24, 63
  store i32 %t25, ptr addrspace(5) %r18
  %t26 = load i32, ptr addrspace(5) %r18
  %t27 = icmp ne i32 %t26, 0
  %t28 = xor i1 %t27, true
  store i1 %t27, ptr addrspace(5) %r7
  %t29 = load i1, ptr addrspace(5) %r6
  %t30 = load i1, ptr addrspace(5) %r7
  %t31 = or i1 %t29, %t30
  store i1 %t31, ptr addrspace(5) %r8
  %t32 = load i1, ptr addrspace(5) %r8
  br i1 %t32, label %L.$L__BB0_2, label %b1
b1:
  %t33 = load i64, ptr addrspace(5) %r25
  %t34 = inttoptr i64 %t33 to ptr
  %t35 = addrspacecast ptr %t34 to ptr addrspace(1)
  %t36 = ptrtoint ptr addrspace(1) %t35 to i64
  store i64 %t36, ptr addrspace(5) %r27
  %t37 = load i32, ptr addrspace(5) %r15
  %t38 = sext i32 %t37 to i64
  %t39 = sext i32 4 to i64
  %t40 = mul i64 %t38, %t39
  store i64 %t40, ptr addrspace(5) %r28
  %t41 = load i64, ptr addrspace(5) %r27
  %t42 = load i64, ptr addrspace(5) %r28
  %t43 = add i64 %t41, %t42
  store i64 %t43, ptr addrspace(5) %r29
  %t44 = load i64, ptr addrspace(5) %r29
  %t45 = inttoptr i64 %t44 to ptr addrspace(1)
  %t46 = load float, ptr addrspace(1) %t45, align 4
  store float %t46, ptr addrspace(5) %r11
  %t47 = load float, ptr addrspace(5) %r11
  %t48 = fpext float %t47 to double
  store double %t48, ptr addrspace(5) %r22
  %t49 = getelementptr inbounds i8, ptr addrspace(5) %m3, i64 0
  %t50 = load i32, ptr addrspace(5) %r13
  %t51 = insertelement <2 x i32> poison, i32 %t50, i32 0
  %t52 = load i32, ptr addrspace(5) %r14
  %t53 = insertelement <2 x i32> %t51, i32 %t52, i32 1
  store <2 x i32> %t53, ptr addrspace(5) %t49, align 8
  %t54 = getelementptr inbounds i8, ptr addrspace(5) %m3, i64 8
  %t55 = load i32, ptr addrspace(5) %r15
  store i32 %t55, ptr addrspace(5) %t54, align 4
  %t56 = getelementptr inbounds i8, ptr addrspace(5) %m3, i64 16
  %t57 = load double, ptr addrspace(5) %r22
  store double %t57, ptr addrspace(5) %t56, align 8
  %t58 = ptrtoint ptr addrspace(1) @$str to i64
  store i64 %t58, ptr addrspace(5) %r30
  %t59 = load i64, ptr addrspace(5) %r30
  %t60 = inttoptr i64 %t59 to ptr addrspace(1)
  %t61 = addrspacecast ptr addrspace(1) %t60 to ptr
  %t62 = ptrtoint ptr %t61 to i64
  store i64 %t62, ptr addrspace(5) %r31
  %t63 = load i64, ptr addrspace(5) %r31
  store i64 %t63, ptr addrspace(5) %m38, align 8
  %t64 = load i64, ptr addrspace(5) %r26
  store i64 %t64, ptr addrspace(5) %m39, align 8
  %t65 = load i64, ptr addrspace(5) %m38
  %t66 = load i64, ptr addrspace(5) %m39
  %t67 = call i32 @__wp_vprintf(i64 %t65, i64 %t66)
  store i32 %t67, ptr addrspace(5) %m40
  %t68 = load i32, ptr addrspace(5) %m40, align 4
  store i32 %t68, ptr addrspace(5) %r19
  br label %L.$L__BB0_2
L.$L__BB0_2:
  %t69 = load i32, ptr addrspace(5) %r15
  %t70 = icmp ne i32 %t69, 0
  %t71 = xor i1 %t70, true
  store i1 %t70, ptr addrspace(5) %r9
  %t72 = load i1, ptr addrspace(5) %r9
  br i1 %t72, label %L.$L__BB0_4, label %b2
b2:
  %t73 = getelementptr inbounds i8, ptr addrspace(5) %m3, i64 0
  %t74 = load i32, ptr addrspace(5) %r16
  store i32 %t74, ptr addrspace(5) %t73, align 4
  %t75 = ptrtoint ptr addrspace(1) @$str$1 to i64
  store i64 %t75, ptr addrspace(5) %r33
  %t76 = load i64, ptr addrspace(5) %r33
  %t77 = inttoptr i64 %t76 to ptr addrspace(1)
  %t78 = addrspacecast ptr addrspace(1) %t77 to ptr
  %t79 = ptrtoint ptr %t78 to i64
  store i64 %t79, ptr addrspace(5) %r34
  %t80 = load i64, ptr addrspace(5) %r34
  store i64 %t80, ptr addrspace(5) %m42, align 8
  %t81 = load i64, ptr addrspace(5) %r26
  store i64 %t81, ptr addrspace(5) %m43, align 8
  %t82 = load i64, ptr addrspace(5) %m42
  %t83 = load i64, ptr addrspace(5) %m43
  %t84 = call i32 @__wp_vprintf(i64 %t82, i64 %t83)
  store i32 %t84, ptr addrspace(5) %m44
  %t85 = load i32, ptr addrspace(5) %m44, align 4
  store i32 %t85, ptr addrspace(5) %r20
  br label %L.$L__BB0_4
L.$L__BB0_4:
  br label %ret
ret:
  ret void
}

declare i32 @__wp_vprintf(i64, i64)
declare i32 @__wp_sreg_ctaid_x()
declare i32 @__wp_sreg_ntid_x()
declare i32 @__wp_sreg_tid_x()
