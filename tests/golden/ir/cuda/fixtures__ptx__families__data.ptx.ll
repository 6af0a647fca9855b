; wheelport lowering golden: profile cuda, input fixtures/ptx/families/data.ptx
; kernel KernelResult { name: "data_ops", outcome: Unsupported { forms: ["prefetch.global", "applypriority.global", "discard.global.L2", "cvt.rn.satfinite.e4m3x2.f32", "cvt.rn.f16x2.e5m2x2", "mapa.shared::cluster.u32", "mapa.u64", "getctarank.shared::cluster.u32", "getctarank.u64", "cp.async.mbarrier.arrive.b64", "cp.async.mbarrier.arrive.noinc.shared.b64", "stacksave.u64", "alloca.u64", "stackrestore.u64"], reason: "no lowering for prefetch.global, applypriority.global, discard.global.L2, cvt.rn.satfinite.e4m3x2.f32, cvt.rn.f16x2.e5m2x2, mapa.shared::cluster.u32, mapa.u64, getctarank.shared::cluster.u32, getctarank.u64, cp.async.mbarrier.arrive.b64, cp.async.mbarrier.arrive.noinc.shared.b64, stacksave.u64, alloca.u64, stackrestore.u64" }, params: [ParamLayout { name: "out", offset: 0, size: 8, align: 8 }, ParamLayout { name: "in", offset: 8, size: 8, align: 8 }], notes: [] }
; PTX lowered by wheelport for target cuda
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@gcounter = addrspace(1) global [4 x i8] zeroinitializer, align 4
@sbuf = internal addrspace(3) global [1024 x i8] poison, align 16
@ctable = addrspace(4) externally_initialized global [16 x i8] c"\00\00\80\3F\00\00\00\40\00\00\80\3F\00\00 \40", align 4

