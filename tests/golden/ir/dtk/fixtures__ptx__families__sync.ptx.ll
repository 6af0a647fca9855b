; wheelport lowering golden: profile dtk, input fixtures/ptx/families/sync.ptx
; kernel KernelResult { name: "sync_ops", outcome: Unsupported { forms: ["barrier.red.or.pred", "fence.proxy.alias", "atom.global.v4.f32.add", "atom.global.cas.b128", "red.global.v2.f32.add"], reason: "no lowering for barrier.red.or.pred, fence.proxy.alias, atom.global.v4.f32.add, atom.global.cas.b128, red.global.v2.f32.add" }, params: [ParamLayout { name: "out", offset: 0, size: 8, align: 8 }], notes: [] }
; PTX lowered by wheelport for target dtk
target datalayout = "e-p:64:64-p1:64:64-p2:32:32-p3:32:32-p4:64:64-p5:32:32-p6:32:32-p7:160:256:256:32-p8:128:128-p9:192:256:256:32-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-v2048:2048-n32:64-S32-A5-G1-ni:7:8:9"
target triple = "amdgcn-amd-amdhsa"

@ssync = internal addrspace(3) global [64 x i8] poison, align 8

