; wheelport lowering golden: profile cuda, input fixtures/ptx/families/sync.ptx
; kernel KernelResult { name: "sync_ops", outcome: Unsupported { forms: ["barrier.red.or.pred", "fence.proxy.alias", "atom.global.v4.f32.add", "atom.global.cas.b128", "red.global.v2.f32.add"], reason: "no lowering for barrier.red.or.pred, fence.proxy.alias, atom.global.v4.f32.add, atom.global.cas.b128, red.global.v2.f32.add" }, params: [ParamLayout { name: "out", offset: 0, size: 8, align: 8 }], notes: [] }
; PTX lowered by wheelport for target cuda
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@ssync = internal addrspace(3) global [64 x i8] poison, align 8

