"""The wave64 warp model of the PTX lowering (docs/warp-model.md), imported by gen.py.

One PTX warp is one half of a 64-lane wavefront: wave lanes 0-31 are one warp, 32-63 the next
(a work-group's linear thread ids are packed into wavefronts of 64 in order, so warp w of the
block is half w & 1 of wavefront w >> 1, exactly the 32 threads PTX puts in warp w).

`amdgcn_section()` is written against five wave primitives and nothing else target-specific:

    i32 @__wp_wave_lane()                 this lane's index in the wavefront, 0..63
    i64 @__wp_wave_ballot(i1 %p)          bit L set when lane L is active (EXEC) and %p holds
    i32 @__wp_wave_bpermute(i32 %l, i32)  the value of wave lane %l (an active lane)
    i32 @__wp_wave_xor(i32 %k, i32)       the value of wave lane (lane ^ %k), %k in 0..31
    void @__wp_wave_sync()                orders memory between the lanes of the wavefront

plus `@__wp_linear_tid()` and `@__wp_sreg_ntid_{x,y,z}()`. amdgcn.ll defines the primitives
with llvm.amdgcn.* intrinsics (mbcnt, ballot, ds_bpermute, ds_swizzle, wave_barrier +
workgroup fences);
tests/wave64_exec.rs cuts the section out of amdgcn.ll (between the BEGIN/END markers) and
runs it on the host against a simulated 64-lane wavefront, so the logic that ships is the
logic that is tested.

`nvptx_section()` defines the same @__wp_* functions natively (llvm.nvvm.* intrinsics): the
twin target runs them on NVIDIA hardware for ground truth.

Semantics follow PTX ISA 9.x §9.7.8 (shfl.sync, vote.sync, match.sync, activemask, redux.sync,
elect.sync, bar.warp.sync) and chapter 10 (%laneid, %warpid, %nwarpid, %lanemask_*).
"""

BEGIN = "; ==== BEGIN wave64 warp model (target-independent over @__wp_wave_*) ===="
END = "; ==== END wave64 warp model ===="

A = "alwaysinline convergent nounwind"

SHFL_MODES = ("up", "down", "bfly", "idx")
# redux.sync operations: (name, LLVM combine, identity)
REDUX = (
    ("add", "add", "0"),
    ("umin", "umin", "-1"),
    ("umax", "umax", "0"),
    ("smin", "smin", "2147483647"),
    ("smax", "smax", "-2147483648"),
    ("and", "and", "-1"),
    ("or", "or", "0"),
    ("xor", "xor", "0"),
)
# Loop-ID metadata nodes of the redux loops: two per op, from LOOP_MD_FIRST below LOOP_MD_END.
LOOP_MD_FIRST = 90
LOOP_MD_END = LOOP_MD_FIRST + 2 * len(REDUX)


def _combine(op, acc, x):
    if op in ("add", "and", "or", "xor"):
        return f"{op} i32 {acc}, {x}"
    pred = {"umin": "ult", "umax": "ugt", "smin": "slt", "smax": "sgt"}[op]
    return f"icmp {pred} i32 {acc}, {x}\n  %c = select i1 %lt, i32 {acc}, i32 {x}"


def _combine_to(op, dst, acc, x):
    """`dst = op(acc, x)` as IR lines (min/max through a compare and a select)."""
    if op in ("add", "and", "or", "xor"):
        return f"  {dst} = {op} i32 {acc}, {x}"
    pred = {"umin": "ult", "umax": "ugt", "smin": "slt", "smax": "sgt"}[op]
    return f"  {dst}.lt = icmp {pred} i32 {acc}, {x}\n  {dst} = select i1 {dst}.lt, i32 {acc}, i32 {x}"


def amdgcn_section():
    o = [BEGIN]
    o.append(f"""; %laneid: the lane within the 32-lane warp (the half of the wavefront).
define linkonce_odr i32 @__wp_sreg_laneid() {A} {{
  %l = call i32 @__wp_wave_lane()
  %r = and i32 %l, 31
  ret i32 %r
}}
; First wave lane of this lane's warp: 0 or 32.
define linkonce_odr i32 @__wp_warp_base() {A} {{
  %l = call i32 @__wp_wave_lane()
  %r = and i32 %l, 32
  ret i32 %r
}}
; A 64-bit wave mask restricted to this warp and shifted to warp lane numbers.
define linkonce_odr i32 @__wp_warp_bits(i64 %m) {A} {{
  %b = call i32 @__wp_warp_base()
  %b64 = zext i32 %b to i64
  %s = lshr i64 %m, %b64
  %r = trunc i64 %s to i32
  ret i32 %r
}}
; %warpid: linear thread id / 32 (PTX warps of a CTA are consecutive 32-thread groups).
define linkonce_odr i32 @__wp_sreg_warpid() {A} {{
  %l = call i32 @__wp_linear_tid()
  %r = lshr i32 %l, 5
  ret i32 %r
}}
define linkonce_odr i32 @__wp_sreg_nwarpid() {A} {{
  %x = call i32 @__wp_sreg_ntid_x()
  %y = call i32 @__wp_sreg_ntid_y()
  %z = call i32 @__wp_sreg_ntid_z()
  %xy = mul i32 %x, %y
  %n = mul i32 %xy, %z
  %n31 = add i32 %n, 31
  %r = lshr i32 %n31, 5
  ret i32 %r
}}
define linkonce_odr i32 @__wp_sreg_lanemask_eq() {A} {{
  %l = call i32 @__wp_sreg_laneid()
  %r = shl i32 1, %l
  ret i32 %r
}}
define linkonce_odr i32 @__wp_sreg_lanemask_lt() {A} {{
  %b = call i32 @__wp_sreg_lanemask_eq()
  %r = sub i32 %b, 1
  ret i32 %r
}}
define linkonce_odr i32 @__wp_sreg_lanemask_le() {A} {{
  %b = call i32 @__wp_sreg_lanemask_eq()
  %lt = sub i32 %b, 1
  %r = or i32 %lt, %b
  ret i32 %r
}}
define linkonce_odr i32 @__wp_sreg_lanemask_gt() {A} {{
  %le = call i32 @__wp_sreg_lanemask_le()
  %r = xor i32 %le, -1
  ret i32 %r
}}
define linkonce_odr i32 @__wp_sreg_lanemask_ge() {A} {{
  %lt = call i32 @__wp_sreg_lanemask_lt()
  %r = xor i32 %lt, -1
  ret i32 %r
}}
; activemask.b32: the active (EXEC) lanes of this warp.
define linkonce_odr i32 @__wp_activemask() {A} {{
  %e = call i64 @__wp_wave_ballot(i1 true)
  %r = call i32 @__wp_warp_bits(i64 %e)
  ret i32 %r
}}
; bar.warp.sync: the lanes of a wavefront run in lockstep; order their memory accesses.
define linkonce_odr void @__wp_bar_warp_sync(i32 %m) {A} {{
  call void @__wp_wave_sync()
  ret void
}}
; Read the value %v of warp lane %k (0..31) of this lane's warp.
define linkonce_odr i32 @__wp_warp_read(i32 %k, i32 %v) {A} {{
  %b = call i32 @__wp_warp_base()
  %k5 = and i32 %k, 31
  %src = or i32 %b, %k5
  %r = call i32 @__wp_wave_bpermute(i32 %src, i32 %v)
  ret i32 %r
}}
""")
    # shfl.sync (PTX ISA 9.x §9.7.8.6): c packs the clamp value (bits 0-4) and the segment mask
    # (bits 8-12). A source lane outside the range (pval false) reads the lane's own value.
    for mode in SHFL_MODES:
        if mode == "up":
            j = "  %j = sub i32 %lane, %bv\n  %p = icmp sge i32 %j, %max"
        elif mode == "down":
            j = "  %j = add i32 %lane, %bv\n  %p = icmp sle i32 %j, %max"
        elif mode == "bfly":
            j = "  %j = xor i32 %lane, %bv\n  %p = icmp sle i32 %j, %max"
        else:
            j = "  %bs = and i32 %bv, %nseg\n  %j = or i32 %min, %bs\n  %p = icmp sle i32 %j, %max"
        o.append(f"""define linkonce_odr {{ i32, i1 }} @__wp_shfl_{mode}(i32 %m, i32 %a, i32 %b, i32 %c) {A} {{
  %lane = call i32 @__wp_sreg_laneid()
  %bv = and i32 %b, 31
  %cv = and i32 %c, 31
  %c8 = lshr i32 %c, 8
  %seg = and i32 %c8, 31
  %nseg = xor i32 %seg, 31
  %min = and i32 %lane, %seg
  %cn = and i32 %cv, %nseg
  %max = or i32 %min, %cn
{j}
  %src = select i1 %p, i32 %j, i32 %lane
  %v = call i32 @__wp_warp_read(i32 %src, i32 %a)
  %r0 = insertvalue {{ i32, i1 }} poison, i32 %v, 0
  %r = insertvalue {{ i32, i1 }} %r0, i1 %p, 1
  ret {{ i32, i1 }} %r
}}
""")
    # vote.sync (§9.7.8.4): over the active lanes of membermask.
    o.append(f"""define linkonce_odr i32 @__wp_vote_ballot(i1 %p, i32 %m) {A} {{
  %w = call i64 @__wp_wave_ballot(i1 %p)
  %b = call i32 @__wp_warp_bits(i64 %w)
  %r = and i32 %b, %m
  ret i32 %r
}}
define linkonce_odr i1 @__wp_vote_any(i1 %p, i32 %m) {A} {{
  %b = call i32 @__wp_vote_ballot(i1 %p, i32 %m)
  %r = icmp ne i32 %b, 0
  ret i1 %r
}}
define linkonce_odr i1 @__wp_vote_all(i1 %p, i32 %m) {A} {{
  %np = xor i1 %p, true
  %b = call i32 @__wp_vote_ballot(i1 %np, i32 %m)
  %r = icmp eq i32 %b, 0
  ret i1 %r
}}
define linkonce_odr i1 @__wp_vote_uni(i1 %p, i32 %m) {A} {{
  %all = call i1 @__wp_vote_all(i1 %p, i32 %m)
  %any = call i1 @__wp_vote_any(i1 %p, i32 %m)
  %none = xor i1 %any, true
  %r = or i1 %all, %none
  ret i1 %r
}}
""")
    # match.sync (§9.7.8.7) and redux.sync (§9.7.8.9): a loop over the 32 lanes of the warp,
    # each step reading lane k of the warp with one bpermute.
    for w in (32, 64):
        t = f"i{w}"
        if w == 32:
            read = "  %x = call i32 @__wp_warp_read(i32 %k, i32 %a)\n  %eq = icmp eq i32 %x, %a"
        else:
            read = """  %alo = trunc i64 %a to i32
  %ash = lshr i64 %a, 32
  %ahi = trunc i64 %ash to i32
  %xlo = call i32 @__wp_warp_read(i32 %k, i32 %alo)
  %xhi = call i32 @__wp_warp_read(i32 %k, i32 %ahi)
  %eql = icmp eq i32 %xlo, %alo
  %eqh = icmp eq i32 %xhi, %ahi
  %eq = and i1 %eql, %eqh"""
        o.append(f"""define linkonce_odr i32 @__wp_match_any_b{w}({t} %a, i32 %m) {A} {{
entry:
  %act = call i32 @__wp_activemask()
  %mm = and i32 %act, %m
  br label %loop
loop:
  %k = phi i32 [ 0, %entry ], [ %k1, %loop ]
  %acc = phi i32 [ 0, %entry ], [ %acc1, %loop ]
{read}
  %bit = shl i32 1, %k
  %inb = and i32 %mm, %bit
  %in = icmp ne i32 %inb, 0
  %hit = and i1 %eq, %in
  %add = select i1 %hit, i32 %bit, i32 0
  %acc1 = or i32 %acc, %add
  %k1 = add i32 %k, 1
  %done = icmp eq i32 %k1, 32
  br i1 %done, label %out, label %loop
out:
  ret i32 %acc1
}}
; match.all: d = membermask when every active member holds the same value, else 0.
define linkonce_odr {{ i32, i1 }} @__wp_match_all_b{w}({t} %a, i32 %m) {A} {{
  %same = call i32 @__wp_match_any_b{w}({t} %a, i32 %m)
  %act = call i32 @__wp_activemask()
  %mm = and i32 %act, %m
  %p = icmp eq i32 %same, %mm
  %d = select i1 %p, i32 %m, i32 0
  %r0 = insertvalue {{ i32, i1 }} poison, i32 %d, 0
  %r = insertvalue {{ i32, i1 }} %r0, i1 %p, 1
  ret {{ i32, i1 }} %r
}}
""")
    # redux.sync: when every lane of the warp is a member, a 5-step butterfly over
    # @__wp_wave_xor; else the loop over the 32 lanes, kept rolled (unrolled, LLVM keeps all
    # 32 reads live: 64 VGPRs and spills for w_redux). A full membermask means a full warp
    # without looking at EXEC: every thread of membermask executes the same redux.sync (PTX
    # ISA 9.x §9.7.8.9, undefined otherwise), so a constant 0xffffffff selects the butterfly
    # at compile time and the loop is dropped.
    for k_, (name, op, ident) in enumerate(REDUX):
        md = LOOP_MD_FIRST + 2 * k_
        steps = []
        prev = "%a"
        for s_ in (16, 8, 4, 2, 1):
            steps.append(f"""  %x{s_} = call i32 @__wp_wave_xor(i32 {s_}, i32 {prev})
{_combine_to(op, f"%b{s_}", prev, f"%x{s_}")}""")
            prev = f"%b{s_}"
        bfly = "\n".join(steps)
        o.append(f"""define linkonce_odr i32 @__wp_redux_{name}(i32 %a, i32 %m) {A} {{
entry:
  %act = call i32 @__wp_activemask()
  %mm = and i32 %act, %m
  %mfull = icmp eq i32 %m, -1
  %afull = icmp eq i32 %mm, -1
  %full = or i1 %mfull, %afull
  br i1 %full, label %bfly, label %loop
bfly:
{bfly}
  ret i32 {prev}
loop:
  %k = phi i32 [ 0, %entry ], [ %k1, %loop ]
  %acc = phi i32 [ {ident}, %entry ], [ %acc1, %loop ]
  %x = call i32 @__wp_warp_read(i32 %k, i32 %a)
  {"%c" if op in ("add", "and", "or", "xor") else "%lt"} = {_combine(op, "%acc", "%x")}
  %bit = shl i32 1, %k
  %inb = and i32 %mm, %bit
  %in = icmp ne i32 %inb, 0
  %acc1 = select i1 %in, i32 %c, i32 %acc
  %k1 = add i32 %k, 1
  %done = icmp eq i32 %k1, 32
  br i1 %done, label %out, label %loop, !llvm.loop !{md}
out:
  ret i32 %acc1
}}
!{md} = distinct !{{!{md}, !{md + 1}}}
!{md + 1} = !{{!"llvm.loop.unroll.disable"}}
""")
    o.append(f"""; elect.sync (§9.7.8.10): the active member with the lowest lane id is the leader.
define linkonce_odr {{ i32, i1 }} @__wp_elect(i32 %m) {A} {{
  %act = call i32 @__wp_activemask()
  %mm = and i32 %act, %m
  %lead = call i32 @llvm.cttz.i32(i32 %mm, i1 false)
  %lane = call i32 @__wp_sreg_laneid()
  %p = icmp eq i32 %lane, %lead
  %r0 = insertvalue {{ i32, i1 }} poison, i32 %lead, 0
  %r = insertvalue {{ i32, i1 }} %r0, i1 %p, 1
  ret {{ i32, i1 }} %r
}}
declare i32 @llvm.cttz.i32(i32, i1)
""")
    o.append(END)
    return "\n".join(o)


def amdgcn_primitives():
    """The four wave primitives on amdgcn (outside the section the host test runs)."""
    return f"""; Wave primitives of the warp model (kernels-ir/wave64.py) on amdgcn.
define linkonce_odr i32 @__wp_wave_lane() {A} {{
  %lo = call i32 @llvm.amdgcn.mbcnt.lo(i32 -1, i32 0)
  %r = call i32 @llvm.amdgcn.mbcnt.hi(i32 -1, i32 %lo)
  ret i32 %r
}}
define linkonce_odr i64 @__wp_wave_ballot(i1 %p) {A} {{
  %r = call i64 @llvm.amdgcn.ballot.i64(i1 %p)
  ret i64 %r
}}
; ds_bpermute_b32 addresses lanes in bytes (lane * 4).
define linkonce_odr i32 @__wp_wave_bpermute(i32 %l, i32 %v) {A} {{
  %a = shl i32 %l, 2
  %r = call i32 @llvm.amdgcn.ds.bpermute(i32 %a, i32 %v)
  ret i32 %r
}}
; The value %v of wave lane (lane ^ %k), %k in 0..31, so within the lane's 32-lane half: the
; butterfly masks 16, 8, 4, 2, 1 as ds_swizzle_b32 in bit-mask mode (offset and_mask 31,
; xor_mask %k: no lane arithmetic, no address register; the switch folds where %k is a
; constant), any other %k through ds_bpermute.
define linkonce_odr i32 @__wp_wave_xor(i32 %k, i32 %v) {A} {{
entry:
  switch i32 %k, label %any [
    i32 16, label %x16
    i32 8, label %x8
    i32 4, label %x4
    i32 2, label %x2
    i32 1, label %x1
  ]
x16:
  %r16 = call i32 @llvm.amdgcn.ds.swizzle(i32 %v, i32 16415)
  ret i32 %r16
x8:
  %r8 = call i32 @llvm.amdgcn.ds.swizzle(i32 %v, i32 8223)
  ret i32 %r8
x4:
  %r4 = call i32 @llvm.amdgcn.ds.swizzle(i32 %v, i32 4127)
  ret i32 %r4
x2:
  %r2 = call i32 @llvm.amdgcn.ds.swizzle(i32 %v, i32 2079)
  ret i32 %r2
x1:
  %r1 = call i32 @llvm.amdgcn.ds.swizzle(i32 %v, i32 1055)
  ret i32 %r1
any:
  %l = call i32 @__wp_wave_lane()
  %k5 = and i32 %k, 31
  %s = xor i32 %l, %k5
  %r = call i32 @__wp_wave_bpermute(i32 %s, i32 %v)
  ret i32 %r
}}
define linkonce_odr void @__wp_wave_sync() {A} {{
  fence syncscope("workgroup") release
  call void @llvm.amdgcn.wave.barrier()
  fence syncscope("workgroup") acquire
  ret void
}}
declare i64 @llvm.amdgcn.ballot.i64(i1)
declare i32 @llvm.amdgcn.ds.bpermute(i32, i32)
declare i32 @llvm.amdgcn.ds.swizzle(i32, i32 immarg)
declare void @llvm.amdgcn.wave.barrier()
"""


def nvptx_section():
    """The same @__wp_* warp functions, native on NVIDIA (the twin target's ground truth)."""
    o = ["; ---- warp-level functions (native; kernels-ir/wave64.py) ----"]
    for mode in SHFL_MODES:
        o.append(f"""define linkonce_odr {{ i32, i1 }} @__wp_shfl_{mode}(i32 %m, i32 %a, i32 %b, i32 %c) {A} {{
  %r = call {{ i32, i1 }} @llvm.nvvm.shfl.sync.{mode}.i32p(i32 %m, i32 %a, i32 %b, i32 %c)
  ret {{ i32, i1 }} %r
}}
declare {{ i32, i1 }} @llvm.nvvm.shfl.sync.{mode}.i32p(i32, i32, i32, i32)""")
    o.append(f"""define linkonce_odr i32 @__wp_activemask() {A} {{
  %r = call i32 @llvm.nvvm.activemask()
  ret i32 %r
}}
; (convergent: an inline-asm activemask would be hoisted out of divergent branches by opt)
declare i32 @llvm.nvvm.activemask()
define linkonce_odr void @__wp_bar_warp_sync(i32 %m) {A} {{
  call void @llvm.nvvm.bar.warp.sync(i32 %m)
  ret void
}}
define linkonce_odr i32 @__wp_vote_ballot(i1 %p, i32 %m) {A} {{
  %r = call i32 @llvm.nvvm.vote.ballot.sync(i32 %m, i1 %p)
  ret i32 %r
}}""")
    for v in ("all", "any", "uni"):
        o.append(f"""define linkonce_odr i1 @__wp_vote_{v}(i1 %p, i32 %m) {A} {{
  %r = call i1 @llvm.nvvm.vote.{v}.sync(i32 %m, i1 %p)
  ret i1 %r
}}
declare i1 @llvm.nvvm.vote.{v}.sync(i32, i1)""")
    for w in (32, 64):
        t = f"i{w}"
        o.append(f"""define linkonce_odr i32 @__wp_match_any_b{w}({t} %a, i32 %m) {A} {{
  %r = call i32 @llvm.nvvm.match.any.sync.i{w}(i32 %m, {t} %a)
  ret i32 %r
}}
define linkonce_odr {{ i32, i1 }} @__wp_match_all_b{w}({t} %a, i32 %m) {A} {{
  %r = call {{ i32, i1 }} @llvm.nvvm.match.all.sync.i{w}p(i32 %m, {t} %a)
  ret {{ i32, i1 }} %r
}}
declare i32 @llvm.nvvm.match.any.sync.i{w}(i32, {t})
declare {{ i32, i1 }} @llvm.nvvm.match.all.sync.i{w}p(i32, {t})""")
    nv = {"add": "add", "umin": "umin", "umax": "umax", "smin": "min", "smax": "max",
          "and": "and", "or": "or", "xor": "xor"}
    for name, _, _ in REDUX:
        o.append(f"""define linkonce_odr i32 @__wp_redux_{name}(i32 %a, i32 %m) {A} {{
  %r = call i32 @llvm.nvvm.redux.sync.{nv[name]}(i32 %a, i32 %m)
  ret i32 %r
}}
declare i32 @llvm.nvvm.redux.sync.{nv[name]}(i32, i32)""")
    # elect.sync needs sm_90; the twin builds for sm_80, so elect is the same IR as on wave64.
    o.append(f"""define linkonce_odr {{ i32, i1 }} @__wp_elect(i32 %m) {A} {{
  %act = call i32 @__wp_activemask()
  %mm = and i32 %act, %m
  %lead = call i32 @llvm.cttz.i32(i32 %mm, i1 false)
  %lane = call i32 @__wp_sreg_laneid()
  %p = icmp eq i32 %lane, %lead
  %r0 = insertvalue {{ i32, i1 }} poison, i32 %lead, 0
  %r = insertvalue {{ i32, i1 }} %r0, i1 %p, 1
  ret {{ i32, i1 }} %r
}}
declare i32 @llvm.cttz.i32(i32, i1)
declare void @llvm.nvvm.bar.warp.sync(i32)
declare i32 @llvm.nvvm.vote.ballot.sync(i32, i1)
""")
    return "\n".join(o)
