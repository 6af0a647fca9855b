; wheelport lowering golden: profile dtk, input fixtures/ptx/families/control.ptx
; kernel KernelResult { name: "control", outcome: Lowered, params: [ParamLayout { name: "out", offset: 0, size: 8, align: 8 }, ParamLayout { name: "n", offset: 8, size: 4, align: 4 }], notes: [] }
; PTX lowered by wheelport for target dtk
target datalayout = "e-p:64:64-p1:64:64-p2:32:32-p3:32:32-p4:64:64-p5:32:32-p6:32:32-p7:160:256:256:32-p8:128:128-p9:192:256:256:32-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-v2048:2048-n32:64-S32-A5-G1-ni:7:8:9"
target triple = "amdgcn-amd-amdhsa"

@$str = addrspace(1) global [6 x i8] c"hello\00", align 1
@__wp_printf_fifo = addrspace(1) externally_initialized global [1048576 x i8] zeroinitializer, align 16

define internal i32 @add_one(i32 %a0)  {
entry:
  %m1 = alloca [4 x i8], align 4, addrspace(5)
  store i32 %a0, ptr addrspace(5) %m1
  %m2 = alloca [4 x i8], align 4, addrspace(5)
  %r2 = alloca i32, addrspace(5)
  %r3 = alloca i32, addrspace(5)
  %r4 = alloca i32, addrspace(5)
  br label %start
start:
  %t1 = load i32, ptr addrspace(5) %m1, align 4
  store i32 %t1, ptr addrspace(5) %r3
  %t2 = load i32, ptr addrspace(5) %r3
  %t3 = add i32 %t2, 1
  store i32 %t3, ptr addrspace(5) %r4
  %t4 = load i32, ptr addrspace(5) %r4
  store i32 %t4, ptr addrspace(5) %m2, align 4
  br label %ret
ret:
  %t5 = load i32, ptr addrspace(5) %m2
  ret i32 %t5
}

define internal i32 @add_two(i32 %a0)  {
entry:
  %m1 = alloca [4 x i8], align 4, addrspace(5)
  store i32 %a0, ptr addrspace(5) %m1
  %m2 = alloca [4 x i8], align 4, addrspace(5)
  %r2 = alloca i32, addrspace(5)
  %r3 = alloca i32, addrspace(5)
  %r4 = alloca i32, addrspace(5)
  br label %start
start:
  %t1 = load i32, ptr addrspace(5) %m1, align 4
  store i32 %t1, ptr addrspace(5) %r3
  %t2 = load i32, ptr addrspace(5) %r3
  %t3 = add i32 %t2, 2
  store i32 %t3, ptr addrspace(5) %r4
  %t4 = load i32, ptr addrspace(5) %r4
  store i32 %t4, ptr addrspace(5) %m2, align 4
  br label %ret
ret:
  %t5 = load i32, ptr addrspace(5) %m2
  ret i32 %t5
}

define internal void @fail()  {
entry:
  br label %start
start:
  call void @__wp_trap()
  br label %ret
ret:
  ret void
}

define internal i32 @reg_abi(i32 %a0)  {
entry:
  %r0 = alloca i32, addrspace(5)
  store i32 %a0, ptr addrspace(5) %r0
  %r1 = alloca i32, addrspace(5)
  br label %start
start:
  %t1 = load i32, ptr addrspace(5) %r0
  %t2 = add i32 %t1, 1
  store i32 %t2, ptr addrspace(5) %r1
  br label %ret
ret:
  %t3 = load i32, ptr addrspace(5) %r1
  ret i32 %t3
}

define amdgpu_kernel void @control(i64 %a0, i32 %a1) "amdgpu-flat-work-group-size"="1,256" "amdgpu-waves-per-eu"="2" {
entry:
  %m1 = alloca [8 x i8], align 8, addrspace(5)
  store i64 %a0, ptr addrspace(5) %m1
  %m2 = alloca [4 x i8], align 4, addrspace(5)
  store i32 %a1, ptr addrspace(5) %m2
  %r2 = alloca i1, addrspace(5)
  %r3 = alloca i1, addrspace(5)
  %r4 = alloca i1, addrspace(5)
  %r5 = alloca i1, addrspace(5)
  %r6 = alloca i32, addrspace(5)
  %r7 = alloca i32, addrspace(5)
  %r8 = alloca i32, addrspace(5)
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
  %m38 = alloca [4 x i8], align 4, addrspace(5)
  %m39 = alloca [4 x i8], align 4, addrspace(5)
  %m40 = alloca [4 x i8], align 4, addrspace(5)
  %m41 = alloca [4 x i8], align 4, addrspace(5)
  %m42 = alloca [4 x i8], align 4, addrspace(5)
  %m43 = alloca [4 x i8], align 4, addrspace(5)
  %r43 = alloca i64, addrspace(5)
  %m45 = alloca [8 x i8], align 8, addrspace(5)
  %m46 = alloca [8 x i8], align 8, addrspace(5)
  %m47 = alloca [4 x i8], align 4, addrspace(5)
  br label %start
start:
  %t1 = load i64, ptr addrspace(5) %m1, align 8
  store i64 %t1, ptr addrspace(5) %r27
  %t2 = load i32, ptr addrspace(5) %m2, align 4
  store i32 %t2, ptr addrspace(5) %r7
  %t3 = call i32 @__wp_sreg_tid_x()
  store i32 %t3, ptr addrspace(5) %r8
  %t4 = load i32, ptr addrspace(5) %r8
  %t5 = load i32, ptr addrspace(5) %r7
  %t6 = icmp uge i32 %t4, %t5
  %t7 = xor i1 %t6, true
  store i1 %t6, ptr addrspace(5) %r3
  %t8 = load i1, ptr addrspace(5) %r3
  br i1 %t8, label %L.$L__exit, label %b1
b1:
  %t9 = load i32, ptr addrspace(5) %r8
  store i32 %t9, ptr addrspace(5) %m38, align 4
  %t10 = load i32, ptr addrspace(5) %m38
  %t11 = call i32 @add_one(i32 %t10)
  store i32 %t11, ptr addrspace(5) %m39
  %t12 = load i32, ptr addrspace(5) %m39, align 4
  store i32 %t12, ptr addrspace(5) %r9
  %t13 = ptrtoint ptr @add_two to i64
  store i64 %t13, ptr addrspace(5) %r28
  %t14 = load i32, ptr addrspace(5) %r9
  store i32 %t14, ptr addrspace(5) %m40, align 4
  %t15 = load i64, ptr addrspace(5) %r28
  %t16 = inttoptr i64 %t15 to ptr
  %t17 = load i32, ptr addrspace(5) %m40
  %t18 = call i32 %t16(i32 %t17)
  store i32 %t18, ptr addrspace(5) %m41
  %t19 = load i32, ptr addrspace(5) %m41, align 4
  store i32 %t19, ptr addrspace(5) %r10
  %t20 = load i32, ptr addrspace(5) %r10
  store i32 %t20, ptr addrspace(5) %m42, align 4
  %t21 = load i64, ptr addrspace(5) %r28
  %t22 = inttoptr i64 %t21 to ptr
  %t23 = load i32, ptr addrspace(5) %m42
  %t24 = call i32 %t22(i32 %t23)
  store i32 %t24, ptr addrspace(5) %m43
  %t25 = load i32, ptr addrspace(5) %m43, align 4
  store i32 %t25, ptr addrspace(5) %r11
  %t26 = load i32, ptr addrspace(5) %r11
  %t27 = call i32 @reg_abi(i32 %t26)
  store i32 %t27, ptr addrspace(5) %r12
  %t28 = load i32, ptr addrspace(5) %r8
  %t29 = and i32 %t28, 1
  store i32 %t29, ptr addrspace(5) %r13
  %t30 = load i32, ptr addrspace(5) %r13
  switch i32 %t30, label %b2 [ i32 0, label %L.$L__a i32 1, label %L.$L__b ]
b2:
  unreachable
L.$L__a:
  call void @__wp_nanosleep(i32 100)
  br label %L.$L__join
L.$L__b:
  br label %L.$L__join
L.$L__join:
  %t31 = load i32, ptr addrspace(5) %r12
  %t32 = icmp eq i32 %t31, 12345
  %t33 = xor i1 %t32, true
  store i1 %t32, ptr addrspace(5) %r4
  %t34 = load i1, ptr addrspace(5) %r4
  br i1 %t34, label %b3, label %b4
b3:
  br label %b4
b4:
  %t35 = load i32, ptr addrspace(5) %r12
  %t36 = icmp eq i32 %t35, 54321
  %t37 = xor i1 %t36, true
  store i1 %t36, ptr addrspace(5) %r5
  %t38 = load i1, ptr addrspace(5) %r5
  br i1 %t38, label %b5, label %b6
b5:
  call void @fail()
  br label %b6
b6:
  %t39 = ptrtoint ptr addrspace(1) @$str to i64
  store i64 %t39, ptr addrspace(5) %r43
  %t40 = load i64, ptr addrspace(5) %r43
  %t41 = inttoptr i64 %t40 to ptr addrspace(1)
  %t42 = addrspacecast ptr addrspace(1) %t41 to ptr
  %t43 = ptrtoint ptr %t42 to i64
  store i64 %t43, ptr addrspace(5) %r43
  %t44 = load i64, ptr addrspace(5) %r43
  store i64 %t44, ptr addrspace(5) %m45, align 8
  store i64 0, ptr addrspace(5) %m46, align 8
  %t45 = load i64, ptr addrspace(5) %m45
  %t46 = load i64, ptr addrspace(5) %m46
  %t47 = call i32 @__wp_vprintf(i64 %t45, i64 %t46)
  store i32 %t47, ptr addrspace(5) %m47
  %t48 = load i64, ptr addrspace(5) %r27
  %t49 = inttoptr i64 %t48 to ptr addrspace(1)
  %t50 = load i32, ptr addrspace(5) %r12
  store i32 %t50, ptr addrspace(1) %t49, align 4
  br label %L.$L__exit
L.$L__exit:
  br label %ret
ret:
  ret void
}

declare i32 @__wp_vprintf(i64, i64)
declare void @__wp_nanosleep(i32)
declare i32 @__wp_sreg_tid_x()
declare void @__wp_trap()
