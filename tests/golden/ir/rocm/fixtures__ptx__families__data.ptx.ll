; wheelport lowering golden: profile rocm, input fixtures/ptx/families/data.ptx
; kernel KernelResult { name: "data_ops", outcome: Unsupported { forms: ["prefetch.global", "applypriority.global", "discard.global.L2", "cvt.rn.satfinite.e4m3x2.f32", "cvt.rn.f16x2.e5m2x2", "mapa.shared::cluster.u32", "mapa.u64", "getctarank.shared::cluster.u32", "getctarank.u64", "cp.async.mbarrier.arrive.b64", "cp.async.mbarrier.arrive.noinc.shared.b64", "stacksave.u64", "alloca.u64", "stackrestore.u64"], reason: "no lowering for prefetch.global, applypriority.global, discard.global.L2, cvt.rn.satfinite.e4m3x2.f32, cvt.rn.f16x2.e5m2x2, mapa.shared::cluster.u32, mapa.u64, getctarank.shared::cluster.u32, getctarank.u64, cp.async.mbarrier.arrive.b64, cp.async.mbarrier.arrive.noinc.shared.b64, stacksave.u64, alloca.u64, stackrestore.u64" }, params: [ParamLayout { name: "out", offset: 0, size: 8, align: 8 }, ParamLayout { name: "in", offset: 8, size: 8, align: 8 }], notes: [] }
; PTX lowered by wheelport for target rocm
target datalayout = "e-p:64:64-p1:64:64-p2:32:32-p3:32:32-p4:64:64-p5:32:32-p6:32:32-p7:160:256:256:32-p8:128:128-p9:192:256:256:32-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-v2048:2048-n32:64-S32-A5-G1-ni:7:8:9"
target triple = "amdgcn-amd-amdhsa"

@gcounter = addrspace(1) global [4 x i8] zeroinitializer, align 4
@sbuf = internal addrspace(3) global [1024 x i8] poison, align 16
@ctable = addrspace(4) externally_initialized global [16 x i8] c"\00\00\80\3F\00\00\00\40\00\00\80\3F\00\00 \40", align 4

