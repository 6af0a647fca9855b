"""mbarrier objects and bulk asynchronous copies of the PTX lowering, imported by gen.py.

Forms (PTX ISA 9.x): mbarrier.* (§9.7.13.15), cp.async.bulk (§9.7.9.25.4) with
mbarrier::complete_tx::bytes or bulk_group completion, fence.proxy.async and
fence.mbarrier_init (§9.7.13.4). The lowering side is src/lower/emit/mbarrier.rs; it calls:

    void @__wp_mbar_init(ptr addrspace(3) %p, i32 %count)        mbarrier.init
    void @__wp_mbar_inval(ptr addrspace(3) %p)                   mbarrier.inval
    i64  @__wp_mbar_update(ptr addrspace(3) %p, i32 %arrive, i32 %tx, i32 %drop)
        one atomic step: tx-count += %tx (expect-tx; negative: complete-tx), pending
        arrivals -= %arrive, expected count -= %drop (arrive_drop); returns the state
    i1   @__wp_mbar_test_wait(ptr addrspace(3) %p, i64 %state)    the state's phase completed
        (a failed test pauses once: @__wp_spin_pause)
    i1   @__wp_mbar_test_wait_parity(ptr addrspace(3) %p, i32 %parity)
    i1   @__wp_mbar_try_wait(ptr addrspace(3) %p, i64 %state)     bounded spin of test_wait
    i1   @__wp_mbar_try_wait_parity(ptr addrspace(3) %p, i32 %parity)
    i32  @__wp_mbar_pending_count(i64 %state)
    void @__wp_mbar_fence()                                       fence.proxy.async, fence.mbarrier_init
    void @__wp_bulk_g2s(ptr addrspace(3) %d, ptr addrspace(1) %s, i32 %n, ptr addrspace(3) %mbar)
    void @__wp_bulk_s2s(ptr addrspace(3) %d, ptr addrspace(3) %s, i32 %n, ptr addrspace(3) %mbar)
    void @__wp_bulk_s2g(ptr addrspace(1) %d, ptr addrspace(3) %s, i32 %n)
    void @__wp_bulk_g2s_oob(ptr addrspace(3) %d, ptr addrspace(1) %s, i32 %n, i32 %l, i32 %r,
                            ptr addrspace(3) %mbar)                .ignore_oob
    void @__wp_bulk_s2g_mask(ptr addrspace(1) %d, ptr addrspace(3) %s, i32 %n, i16 %mask)
                                                                   .cp_mask
    void @__wp_clc_try_cancel(ptr addrspace(3) %resp, ptr addrspace(3) %mbar)
        clusterlaunchcontrol.try_cancel: never cancels (zeros, then complete-tx(16))

The mbarrier object (the 64-bit shared word; its layout is opaque in PTX, so it is ours):

    bits  0..19  pending arrivals of the current phase (the ISA's count range is 1..2^20-1)
    bits 20..39  expected arrivals (init count, less the arrive_drop-s)
    bits 40..61  tx-count, 22-bit two's complement (the ISA's range is +-(2^20-1))
    bit  63      phase parity (0 after init)

Every update is one 64-bit compare-and-swap loop on the word. When an update leaves 0 pending
arrivals and tx-count 0 the current phase completes: the phase bit flips, pending := expected,
tx-count := 0. The returned state (opaque in PTX) is phase bit << 63 | pending arrivals before
the update (like the hardware's, which returns the word as it was before the arrive: measured on
the H200, `arrive.noComplete` of 3 on a barrier initialised with 5 gives a pending_count of 5);
test_wait compares its phase bit with the word's, pending_count reads its low bits (the ISA defines pending_count only for states of
arrive.noComplete, which never completes a phase).

Ordering (§9.7.13.15.x: arrive-on and complete-tx have release, test/try_wait acquire
semantics at CTA scope): on amdgcn the CAS is `syncscope("workgroup") release` and the wait's
load `syncscope("workgroup") acquire`; on nvptx (LLVM 19 selects neither ordered atomics nor
`fence` there) the same IR is monotonic with `fence.acq_rel.cta` before the CAS and after the
wait's load.

try_wait is bounded (the ISA lets it return false when a time limit expires): TRY_SPINS tests
with one @__wp_spin_pause between them (amdgcn: s_sleep 1; nvptx: nanosleep; the CPU
simulator of tests/wave64: a yield to the other fibers). suspendTimeHint is ignored.

cp.async.bulk: the issuing thread copies synchronously, 16 bytes at a time (the ISA requires
16-byte aligned addresses and a size that is a multiple of 16), then performs complete-tx of
the size on the mbarrier (whose release orders the copy before the waiters' acquire). The
bulk_group forms are then no-ops: every copy is complete when its instruction ends.
`.ignore_oob` copies bytes [l, n - r) only (the ignored bytes may lie outside the source
allocation; their destination bytes keep their values, the ISA leaves them indeterminate) and
completes tx n; `.cp_mask` stores byte i of each 16-byte chunk when bit i of the mask is set.

Clusters: gfx906 has none; the cluster is taken to be the CTA alone (cluster size 1), so
`.shared::cluster` addresses are the CTA's own shared addresses and `.cluster` scope is the
CTA's.
"""

BEGIN = "; ==== BEGIN mbarrier (mbarrier, cp.async.bulk; kernels-ir/mbarrier.py) ===="
END = "; ==== END mbarrier ===="

A = "alwaysinline nounwind"
TRY_SPINS = 4096
PHASE = -(1 << 63)  # bit 63 as an i64 immediate


def _library(ss, cas_ord, ld_ord, rel, acq):
    """The target-independent library; `ss` the syncscope text, `cas_ord`/`ld_ord` the
    orderings of the CAS and of the wait's load, `rel`/`acq` IR lines placed before the CAS and
    after the load (explicit fences where the orderings cannot be selected)."""
    o = [f"""define linkonce_odr void @__wp_mbar_init(ptr addrspace(3) %p, i32 %count) {A} {{
  %c = zext i32 %count to i64
  %m = and i64 %c, 1048575
  %e = shl i64 %m, 20
  %w = or i64 %m, %e
  store atomic i64 %w, ptr addrspace(3) %p{ss} monotonic, align 8
  ret void
}}
define linkonce_odr void @__wp_mbar_inval(ptr addrspace(3) %p) {A} {{
  store atomic i64 0, ptr addrspace(3) %p{ss} monotonic, align 8
  ret void
}}
; One atomic step of arrive-on / expect-tx / complete-tx / arrive_drop (see the file's docs).
define linkonce_odr i64 @__wp_mbar_update(ptr addrspace(3) %p, i32 %arr, i32 %tx, i32 %drop) {A} {{
entry:
{rel}  %o0 = load atomic i64, ptr addrspace(3) %p{ss} monotonic, align 8
  %a64 = zext i32 %arr to i64
  %d64 = zext i32 %drop to i64
  %x64 = sext i32 %tx to i64
  br label %loop
loop:
  %o = phi i64 [ %o0, %entry ], [ %seen, %loop ]
  %pend = and i64 %o, 1048575
  %e1 = lshr i64 %o, 20
  %exp = and i64 %e1, 1048575
  %t1 = shl i64 %o, 2
  %tx0 = ashr i64 %t1, 42
  %ph = and i64 %o, {PHASE}
  %pend1 = sub i64 %pend, %a64
  %exp1 = sub i64 %exp, %d64
  %tx1 = add i64 %tx0, %x64
  %pz = icmp eq i64 %pend1, 0
  %tz = icmp eq i64 %tx1, 0
  %done = and i1 %pz, %tz
  %phx = xor i64 %ph, {PHASE}
  %ph2 = select i1 %done, i64 %phx, i64 %ph
  %pend2 = select i1 %done, i64 %exp1, i64 %pend1
  %pm = and i64 %pend2, 1048575
  %em = and i64 %exp1, 1048575
  %es = shl i64 %em, 20
  %tm = and i64 %tx1, 4194303
  %ts = shl i64 %tm, 40
  %n1 = or i64 %pm, %es
  %n2 = or i64 %n1, %ts
  %n = or i64 %n2, %ph2
  %r = cmpxchg ptr addrspace(3) %p, i64 %o, i64 %n{ss} {cas_ord}, align 8
  %seen = extractvalue {{ i64, i1 }} %r, 0
  %ok = extractvalue {{ i64, i1 }} %r, 1
  br i1 %ok, label %out, label %loop
out:
  %pa = and i64 %pend, 1048575
  %st = or i64 %ph, %pa
  ret i64 %st
}}
define linkonce_odr i1 @__wp_mbar_poll(ptr addrspace(3) %p, i64 %state) {A} {{
  %w = load atomic i64, ptr addrspace(3) %p{ss} {ld_ord}, align 8
{acq}  %x = xor i64 %w, %state
  %c = icmp slt i64 %x, 0
  ret i1 %c
}}
; .parity: true when the phase of parity %parity has completed, i.e. the current phase's
; parity differs from it.
define linkonce_odr i1 @__wp_mbar_poll_parity(ptr addrspace(3) %p, i32 %parity) {A} {{
  %w = load atomic i64, ptr addrspace(3) %p{ss} {ld_ord}, align 8
{acq}  %ph = lshr i64 %w, 63
  %q = and i32 %parity, 1
  %q64 = zext i32 %q to i64
  %c = icmp ne i64 %ph, %q64
  ret i1 %c
}}
define linkonce_odr i32 @__wp_mbar_pending_count(i64 %state) {A} {{
  %m = and i64 %state, 1048575
  %c = trunc i64 %m to i32
  ret i32 %c
}}"""]
    for sfx, ty in (("", "i64 %s"), ("_parity", "i32 %s")):
        o.append(f"""; test_wait{sfx.replace('_', '.')}: one test; a failed test pauses once (@__wp_spin_pause), so that a
; spin loop of test_wait lets the other waves (the simulator's other fibers) run.
define linkonce_odr i1 @__wp_mbar_test_wait{sfx}(ptr addrspace(3) %p, {ty}) {A} {{
entry:
  %c = call i1 @__wp_mbar_poll{sfx}(ptr addrspace(3) %p, {ty})
  br i1 %c, label %yes, label %no
no:
  call void @__wp_spin_pause()
  br label %yes
yes:
  ret i1 %c
}}""")
        o.append(f"""; try_wait{sfx.replace('_', '.')}: at most {TRY_SPINS} tests, a @__wp_spin_pause between two.
define linkonce_odr i1 @__wp_mbar_try_wait{sfx}(ptr addrspace(3) %p, {ty}) {A} {{
entry:
  br label %loop
loop:
  %k = phi i32 [ 0, %entry ], [ %k1, %pause ]
  %c = call i1 @__wp_mbar_poll{sfx}(ptr addrspace(3) %p, {ty})
  br i1 %c, label %yes, label %again
again:
  %k1 = add nuw nsw i32 %k, 1
  %more = icmp ult i32 %k1, {TRY_SPINS}
  br i1 %more, label %pause, label %no
pause:
  call void @__wp_spin_pause()
  br label %loop
yes:
  ret i1 true
no:
  ret i1 false
}}""")
    for name, dty, sty, mbar in (("g2s", 3, 1, True), ("s2s", 3, 3, True), ("s2g", 1, 3, False)):
        mp = ", ptr addrspace(3) %mbar" if mbar else ""
        tail = """  %neg = sub i32 0, %n
  %st = call i64 @__wp_mbar_update(ptr addrspace(3) %mbar, i32 0, i32 %neg, i32 0)
""" if mbar else ""
        o.append(f"""; cp.async.bulk {name}: a synchronous copy of %n bytes (a multiple of 16) by this thread{", then complete-tx(%n)" if mbar else ""}.
define linkonce_odr void @__wp_bulk_{name}(ptr addrspace({dty}) %d, ptr addrspace({sty}) %s, i32 %n{mp}) {A} {{
entry:
  %any = icmp ugt i32 %n, 0
  br i1 %any, label %loop, label %done
loop:
  %k = phi i32 [ 0, %entry ], [ %k1, %loop ]
  %sp = getelementptr inbounds i8, ptr addrspace({sty}) %s, i32 %k
  %dp = getelementptr inbounds i8, ptr addrspace({dty}) %d, i32 %k
  %v = load <4 x i32>, ptr addrspace({sty}) %sp, align 16
  store <4 x i32> %v, ptr addrspace({dty}) %dp, align 16
  %k1 = add nuw i32 %k, 16
  %more = icmp ult i32 %k1, %n
  br i1 %more, label %loop, label %done
done:
{tail}  ret void
}}""")
    o.append(f"""; Bytes [%from, %to) of %s to %d, one at a time (none when %from >= %to).
define linkonce_odr void @__wp_bytes_g2s(ptr addrspace(3) %d, ptr addrspace(1) %s, i32 %from, i32 %to) {A} {{
entry:
  %any = icmp slt i32 %from, %to
  br i1 %any, label %loop, label %done
loop:
  %k = phi i32 [ %from, %entry ], [ %k1, %loop ]
  %sp = getelementptr inbounds i8, ptr addrspace(1) %s, i32 %k
  %dp = getelementptr inbounds i8, ptr addrspace(3) %d, i32 %k
  %v = load i8, ptr addrspace(1) %sp, align 1
  store i8 %v, ptr addrspace(3) %dp, align 1
  %k1 = add nsw i32 %k, 1
  %more = icmp slt i32 %k1, %to
  br i1 %more, label %loop, label %done
done:
  ret void
}}
; cp.async.bulk .ignore_oob: bytes [%l, %n - %r) (%l, %r in 0..15): the partial first and last
; 16-byte chunks byte by byte, the whole chunks between 16 bytes at a time; then
; complete-tx(%n).
define linkonce_odr void @__wp_bulk_g2s_oob(ptr addrspace(3) %d, ptr addrspace(1) %s, i32 %n, i32 %l, i32 %r, ptr addrspace(3) %mbar) {A} {{
entry:
  %end = sub i32 %n, %r
  %l15 = add i32 %l, 15
  %a = and i32 %l15, -16
  %b = and i32 %end, -16
  %alte = icmp slt i32 %a, %end
  %hend = select i1 %alte, i32 %a, i32 %end
  call void @__wp_bytes_g2s(ptr addrspace(3) %d, ptr addrspace(1) %s, i32 %l, i32 %hend)
  %whole = icmp slt i32 %a, %b
  br i1 %whole, label %loop, label %tail
loop:
  %k = phi i32 [ %a, %entry ], [ %k1, %loop ]
  %sp = getelementptr inbounds i8, ptr addrspace(1) %s, i32 %k
  %dp = getelementptr inbounds i8, ptr addrspace(3) %d, i32 %k
  %v = load <4 x i32>, ptr addrspace(1) %sp, align 16
  store <4 x i32> %v, ptr addrspace(3) %dp, align 16
  %k1 = add nsw i32 %k, 16
  %more = icmp slt i32 %k1, %b
  br i1 %more, label %loop, label %tail
tail:
  %agtb = icmp sgt i32 %a, %b
  %tfrom = select i1 %agtb, i32 %a, i32 %b
  call void @__wp_bytes_g2s(ptr addrspace(3) %d, ptr addrspace(1) %s, i32 %tfrom, i32 %end)
  %neg = sub i32 0, %n
  %st = call i64 @__wp_mbar_update(ptr addrspace(3) %mbar, i32 0, i32 %neg, i32 0)
  ret void
}}
; cp.async.bulk .cp_mask: byte %k is stored when bit (%k mod 16) of %mask is set.
define linkonce_odr void @__wp_bulk_s2g_mask(ptr addrspace(1) %d, ptr addrspace(3) %s, i32 %n, i16 %mask) {A} {{
entry:
  %m32 = zext i16 %mask to i32
  %any = icmp ugt i32 %n, 0
  br i1 %any, label %loop, label %done
loop:
  %k = phi i32 [ 0, %entry ], [ %k1, %next ]
  %bit = and i32 %k, 15
  %sh = lshr i32 %m32, %bit
  %on1 = and i32 %sh, 1
  %on = icmp ne i32 %on1, 0
  br i1 %on, label %copy, label %next
copy:
  %sp = getelementptr inbounds i8, ptr addrspace(3) %s, i32 %k
  %dp = getelementptr inbounds i8, ptr addrspace(1) %d, i32 %k
  %v = load i8, ptr addrspace(3) %sp, align 1
  store i8 %v, ptr addrspace(1) %dp, align 1
  br label %next
next:
  %k1 = add nuw i32 %k, 1
  %more = icmp ult i32 %k1, %n
  br i1 %more, label %loop, label %done
done:
  ret void
}}
; clusterlaunchcontrol.try_cancel: the response "not canceled" (16 zero bytes), then
; complete-tx(16) on %mbar.
define linkonce_odr void @__wp_clc_try_cancel(ptr addrspace(3) %resp, ptr addrspace(3) %mbar) {A} {{
  store <4 x i32> zeroinitializer, ptr addrspace(3) %resp, align 16
  %st = call i64 @__wp_mbar_update(ptr addrspace(3) %mbar, i32 0, i32 -16, i32 0)
  ret void
}}""")
    return "\n".join(o)


def amdgcn_section():
    """The amdgcn library between BEGIN/END (tests/wave64_mbarrier.rs runs it on the host; it
    calls @__wp_spin_pause, defined by amdgcn_primitives or the simulator)."""
    return f"""{BEGIN}
define linkonce_odr void @__wp_mbar_fence() {A} {{
  fence syncscope("workgroup") acq_rel
  ret void
}}
{_library(' syncscope("workgroup")', "release monotonic", "acquire", "", "")}
{END}
"""


def amdgcn_primitives():
    """@__wp_spin_pause on amdgcn: s_sleep 1 (64 clocks), letting the other waves run."""
    return f"""define linkonce_odr void @__wp_spin_pause() {A} {{
  call void @llvm.amdgcn.s.sleep(i32 1)
  ret void
}}
"""


def nvptx_section():
    fence = "  call void @__wp_mbar_fence()\n"
    return f"""; ---- mbarrier (software mbarrier and cp.async.bulk; kernels-ir/mbarrier.py) ----
define linkonce_odr void @__wp_mbar_fence() {A} {{
  call void asm sideeffect "fence.acq_rel.cta;", "~{{memory}}"()
  ret void
}}
define linkonce_odr void @__wp_spin_pause() {A} {{
  call void asm sideeffect "nanosleep.u32 32;", "~{{memory}}"()
  ret void
}}
{_library("", "monotonic monotonic", "monotonic", fence, fence)}
"""
