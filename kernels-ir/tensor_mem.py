"""Asynchronous copies and warp matrix loads of the PTX lowering, imported by gen.py.

Forms (PTX ISA 9.x): cp.async / cp.async.commit_group / cp.async.wait_group / cp.async.wait_all
(§9.7.9.25), ldmatrix (§9.7.14.5.15), stmatrix (§9.7.14.5.16), movmatrix (§9.7.14.5.17).
The lowering side is src/lower/emit/tensor_mem.rs; it calls these functions:

    void @__wp_cp_async_{4,8,16}(ptr addrspace(3) %dst, ptr addrspace(1) %src, i32 %src_size)
        copy cp-size bytes; bytes at and beyond %src_size are zero (and never read)
    i32  @__wp_ldmatrix_frag[_trans](ptr addrspace(3) %row, i32 %i)
        the 32-bit fragment register of matrix %i (0..3) of this lane
    void @__wp_stmatrix_frag[_trans](ptr addrspace(3) %row, i32 %i, i32 %v)
    i32  @__wp_movmatrix_trans(i32 %a)

Fragment layout (§9.7.14.5.15, "fragment of an 8x8 matrix"): matrix i's rows 0..7 are given
by the row addresses of warp lanes 8i..8i+7; lane l holds row l/4, columns 2(l%4) and
2(l%4)+1 (the lower column in the low 16 bits). With .trans lane l holds the elements
(row 2(l%4), column l/4) and (row 2(l%4)+1, column l/4) of the matrix in memory.

amdgcn (`amdgcn_section`, between BEGIN/END markers; tests/wave64_tensor_mem.rs runs it on
the host): cp.async is a synchronous copy (a global load, a shared store) and the groups are
no-ops: the copy is complete, and visible to the executing thread, when the instruction
ends, which is what cp.async.wait_group/wait_all guarantee; a later bar.sync (with its
workgroup fences) makes it visible to the CTA as the ISA requires. The matrix forms use the
wave64 warp model (docs/warp-model.md): the row address a lane needs is fetched from its
owner lane of the same half with @__wp_wave_bpermute (shared addresses are 32-bit on amdgcn),
and the lane loads (stores) its elements itself.

nvptx (`nvptx_section`, the `cuda` twin): cp.async and ldmatrix are native
(llvm.nvvm.cp.async.*, llvm.nvvm.ldmatrix.*). stmatrix (sm_90) and movmatrix (PTX 7.8) do not
exist for the twin's sm_80 / PTX 7.0 build, so they use the same software path as amdgcn with
the row address fetched by shfl.sync.idx (two halves of the 64-bit shared address).
"""

BEGIN = "; ==== BEGIN tensor memory (cp.async, ldmatrix; kernels-ir/tensor_mem.py) ===="
END = "; ==== END tensor memory ===="

A = "alwaysinline convergent nounwind"
SIZES = ((4, "i32", 4), (8, "i64", 8), (16, "<4 x i32>", 16))


def _cp_async_sync():
    """Synchronous cp.async on any target (plain loads and stores)."""
    o = []
    for n, ty, al in SIZES:
        o.append(f"""; cp.async with cp-size {n} (§9.7.9.25): bytes [src-size, {n}) are zero-filled and not read.
define linkonce_odr void @__wp_cp_async_{n}(ptr addrspace(3) %d, ptr addrspace(1) %s, i32 %n) {A} {{
entry:
  %full = icmp uge i32 %n, {n}
  br i1 %full, label %copy, label %loop
copy:
  %v = load {ty}, ptr addrspace(1) %s, align {al}
  store {ty} %v, ptr addrspace(3) %d, align {al}
  ret void
loop:
  %k = phi i32 [ 0, %entry ], [ %k1, %put ]
  %in = icmp ult i32 %k, %n
  br i1 %in, label %get, label %put
get:
  %sp = getelementptr inbounds i8, ptr addrspace(1) %s, i32 %k
  %b = load i8, ptr addrspace(1) %sp, align 1
  br label %put
put:
  %x = phi i8 [ %b, %get ], [ 0, %loop ]
  %dp = getelementptr inbounds i8, ptr addrspace(3) %d, i32 %k
  store i8 %x, ptr addrspace(3) %dp, align 1
  %k1 = add nuw nsw i32 %k, 1
  %more = icmp ult i32 %k1, {n}
  br i1 %more, label %loop, label %done
done:
  ret void
}}""")
    return "\n".join(o)


def _matrix(row_fn):
    """ldmatrix / stmatrix / movmatrix fragments over `row_fn(ptr addrspace(3) %p, i32 %o)`,
    the row address supplied by warp lane %o, and @__wp_sreg_laneid."""
    return f"""; Fragment register of matrix %i (ldmatrix, §9.7.14.5.15): row laneid/4, columns 2(laneid%4), +1.
define linkonce_odr i32 @__wp_ldmatrix_frag(ptr addrspace(3) %p, i32 %i) {A} {{
  %l = call i32 @__wp_sreg_laneid()
  %r = lshr i32 %l, 2
  %m = shl i32 %i, 3
  %o = or i32 %m, %r
  %row = call ptr addrspace(3) @{row_fn}(ptr addrspace(3) %p, i32 %o)
  %c = and i32 %l, 3
  %off = shl i32 %c, 2
  %e = getelementptr inbounds i8, ptr addrspace(3) %row, i32 %off
  %v = load i32, ptr addrspace(3) %e, align 4
  ret i32 %v
}}
; .trans: (row 2(laneid%4), column laneid/4) in the low half, (row 2(laneid%4)+1, same column) high.
define linkonce_odr i32 @__wp_ldmatrix_frag_trans(ptr addrspace(3) %p, i32 %i) {A} {{
  %l = call i32 @__wp_sreg_laneid()
  %c = and i32 %l, 3
  %m = shl i32 %i, 3
  %c2 = shl i32 %c, 1
  %o0 = or i32 %m, %c2
  %o1 = or i32 %o0, 1
  %row0 = call ptr addrspace(3) @{row_fn}(ptr addrspace(3) %p, i32 %o0)
  %row1 = call ptr addrspace(3) @{row_fn}(ptr addrspace(3) %p, i32 %o1)
  %col = lshr i32 %l, 2
  %off = shl i32 %col, 1
  %e0 = getelementptr inbounds i8, ptr addrspace(3) %row0, i32 %off
  %e1 = getelementptr inbounds i8, ptr addrspace(3) %row1, i32 %off
  %lo = load i16, ptr addrspace(3) %e0, align 2
  %hi = load i16, ptr addrspace(3) %e1, align 2
  %lo32 = zext i16 %lo to i32
  %hi32 = zext i16 %hi to i32
  %hs = shl i32 %hi32, 16
  %v = or i32 %lo32, %hs
  ret i32 %v
}}
; stmatrix (§9.7.14.5.16): the inverse of ldmatrix (the same element positions, stored).
define linkonce_odr void @__wp_stmatrix_frag(ptr addrspace(3) %p, i32 %i, i32 %v) {A} {{
  %l = call i32 @__wp_sreg_laneid()
  %r = lshr i32 %l, 2
  %m = shl i32 %i, 3
  %o = or i32 %m, %r
  %row = call ptr addrspace(3) @{row_fn}(ptr addrspace(3) %p, i32 %o)
  %c = and i32 %l, 3
  %off = shl i32 %c, 2
  %e = getelementptr inbounds i8, ptr addrspace(3) %row, i32 %off
  store i32 %v, ptr addrspace(3) %e, align 4
  ret void
}}
define linkonce_odr void @__wp_stmatrix_frag_trans(ptr addrspace(3) %p, i32 %i, i32 %v) {A} {{
  %l = call i32 @__wp_sreg_laneid()
  %c = and i32 %l, 3
  %m = shl i32 %i, 3
  %c2 = shl i32 %c, 1
  %o0 = or i32 %m, %c2
  %o1 = or i32 %o0, 1
  %row0 = call ptr addrspace(3) @{row_fn}(ptr addrspace(3) %p, i32 %o0)
  %row1 = call ptr addrspace(3) @{row_fn}(ptr addrspace(3) %p, i32 %o1)
  %col = lshr i32 %l, 2
  %off = shl i32 %col, 1
  %e0 = getelementptr inbounds i8, ptr addrspace(3) %row0, i32 %off
  %e1 = getelementptr inbounds i8, ptr addrspace(3) %row1, i32 %off
  %lo = trunc i32 %v to i16
  %vh = lshr i32 %v, 16
  %hi = trunc i32 %vh to i16
  store i16 %lo, ptr addrspace(3) %e0, align 2
  store i16 %hi, ptr addrspace(3) %e1, align 2
  ret void
}}"""


def _movmatrix(fetch_fn):
    """movmatrix.sync.aligned.m8n8.trans.b16 (§9.7.14.5.17) over `fetch_fn(i32 %lane, i32 %v)`
    (the value of warp lane %lane). Element (x, y) of the source fragment is half y%2 of lane
    4x + y/2; lane l receives (2(l%4), l/4) low and (2(l%4)+1, l/4) high."""
    return f"""define linkonce_odr i32 @__wp_movmatrix_trans(i32 %a) {A} {{
  %l = call i32 @__wp_sreg_laneid()
  %c = and i32 %l, 3
  %r = lshr i32 %l, 2
  %rh = lshr i32 %r, 1
  %c8 = shl i32 %c, 3
  %s0 = or i32 %c8, %rh
  %s1 = add i32 %s0, 4
  %v0 = call i32 @{fetch_fn}(i32 %s0, i32 %a)
  %v1 = call i32 @{fetch_fn}(i32 %s1, i32 %a)
  %odd = and i32 %r, 1
  %sh = shl i32 %odd, 4
  %x0 = lshr i32 %v0, %sh
  %x1 = lshr i32 %v1, %sh
  %lo = and i32 %x0, 65535
  %hi = shl i32 %x1, 16
  %d = or i32 %lo, %hi
  ret i32 %d
}}"""


def amdgcn_section():
    return f"""{BEGIN}
{_cp_async_sync()}
; Row address supplied by warp lane %o of this lane's warp (wave64 half; 32-bit LDS address).
define linkonce_odr ptr addrspace(3) @__wp_ldm_row(ptr addrspace(3) %p, i32 %o) {A} {{
  %a = ptrtoint ptr addrspace(3) %p to i32
  %b = call i32 @__wp_warp_base()
  %w = or i32 %b, %o
  %x = call i32 @__wp_wave_bpermute(i32 %w, i32 %a)
  %q = inttoptr i32 %x to ptr addrspace(3)
  ret ptr addrspace(3) %q
}}
; Value of warp lane %o of this lane's warp.
define linkonce_odr i32 @__wp_warp_fetch(i32 %o, i32 %v) {A} {{
  %b = call i32 @__wp_warp_base()
  %w = or i32 %b, %o
  %x = call i32 @__wp_wave_bpermute(i32 %w, i32 %v)
  ret i32 %x
}}
{_matrix("__wp_ldm_row")}
{_movmatrix("__wp_warp_fetch")}
{END}
"""


def nvptx_section():
    o = ["; ---- tensor memory (native cp.async/ldmatrix; kernels-ir/tensor_mem.py) ----"]
    for n, _, _ in SIZES:
        cops = ("ca", "cg") if n == 16 else ("ca",)
        for cop in cops:
            o.append(f"""define linkonce_odr void @__wp_cp_async_{cop}_{n}(ptr addrspace(3) %d, ptr addrspace(1) %s, i32 %n) {A} {{
  call void @llvm.nvvm.cp.async.{cop}.shared.global.{n}.s(ptr addrspace(3) %d, ptr addrspace(1) %s, i32 %n)
  ret void
}}
declare void @llvm.nvvm.cp.async.{cop}.shared.global.{n}.s(ptr addrspace(3), ptr addrspace(1), i32)""")
    o.append(f"""define linkonce_odr void @__wp_cp_async_commit_group() {A} {{
  call void @llvm.nvvm.cp.async.commit.group()
  ret void
}}
declare void @llvm.nvvm.cp.async.commit.group()
define linkonce_odr void @__wp_cp_async_wait_all() {A} {{
  call void @llvm.nvvm.cp.async.wait.all()
  ret void
}}
declare void @llvm.nvvm.cp.async.wait.all()
declare void @llvm.nvvm.cp.async.wait.group(i32 immarg)""")
    o.append(f"""; Row address supplied by warp lane %o (software stmatrix: sm_90 only natively).
define linkonce_odr ptr addrspace(3) @__wp_ldm_row(ptr addrspace(3) %p, i32 %o) {A} {{
  %a = ptrtoint ptr addrspace(3) %p to i64
  %lo = trunc i64 %a to i32
  %h = lshr i64 %a, 32
  %hi = trunc i64 %h to i32
  %xl = call i32 @llvm.nvvm.shfl.sync.idx.i32(i32 -1, i32 %lo, i32 %o, i32 31)
  %xh = call i32 @llvm.nvvm.shfl.sync.idx.i32(i32 -1, i32 %hi, i32 %o, i32 31)
  %zl = zext i32 %xl to i64
  %zh = zext i32 %xh to i64
  %sh = shl i64 %zh, 32
  %x = or i64 %zl, %sh
  %q = inttoptr i64 %x to ptr addrspace(3)
  ret ptr addrspace(3) %q
}}
define linkonce_odr i32 @__wp_warp_fetch(i32 %o, i32 %v) {A} {{
  %x = call i32 @llvm.nvvm.shfl.sync.idx.i32(i32 -1, i32 %v, i32 %o, i32 31)
  ret i32 %x
}}
declare i32 @llvm.nvvm.shfl.sync.idx.i32(i32, i32, i32, i32)""")
    o.append(_matrix("__wp_ldm_row"))
    o.append(_movmatrix("__wp_warp_fetch"))
    return "\n".join(o) + "\n"
