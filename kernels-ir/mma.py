"""Warp-level matrix multiply-accumulate (`mma`, `mma.sp`) of the PTX lowering, imported by gen.py.

Forms (PTX ISA 9.x §9.7.14.5, §9.7.14.6), all `.row.col` with f32 accumulators:

    mma.sync.aligned.m16n8k8.row.col.f32.{f16,bf16}.{f16,bf16}.f32
    mma.sync.aligned.m16n8k16.row.col.f32.{f16,bf16}.{f16,bf16}.f32
    mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.f32.{f16,bf16}.{f16,bf16}.f32  (f = 0, 1)

(.atype equals .btype for f16/bf16: the ISA has no mixed f16 x bf16 product.) Each form is one
function of the support library; its operands are the PTX fragment registers (A and B as .b32
registers holding two 16-bit elements, low half first; C as f32) and it returns D as
`{ float, float, float, float }`:

    @__wp_mma_m16n8k8_<t>(i32 a0, a1, i32 b0, float c0..c3)
    @__wp_mma_m16n8k16_<t>(i32 a0..a3, i32 b0, b1, float c0..c3)
    @__wp_mma_sp_m16n8k32_<t>_s<f>(i32 a0..a3, i32 b0..b3, float c0..c3, i32 e)

`amdgcn_section()` (between the BEGIN/END markers) is written over the wave64 warp model only
(`@__wp_warp_read`, `@__wp_sreg_laneid`; docs/warp-model.md): gfx906 has no matrix instructions,
so every lane gathers, with one bpermute per register, the A row and B column elements held by
the other lanes of its 32-lane half, following the ISA's fragment tables, and computes its own
four D elements with f32 fused multiply-adds in ascending k order, starting from C. The
gathers and products run in a loop kept rolled (one iteration per k step of 2 for the dense
forms, per 4-wide chunk for mma.sp): unrolled, a warp tile's dozens of independent mma calls
form one basic block whose gathered values LLVM schedules together, which in CUTLASS's
SparseGemm and FlashAttention's kernels took the register allocator far past 256 VGPRs (1,864
spills against 62 rolled in SparseGemm's first kernel; docs/lowering.md). The products
of two f16/bf16 values are exact in f32, so each step rounds once. PTX ISA leaves the order and
rounding of mma's f32 accumulation to the implementation; tests/wave64_mma.rs runs this section
on the CPU.

Fragment tables used (groupID = %laneid >> 2, threadID_in_group = %laneid % 4):
  A (m16n8k16, and the compressed 16x16 A of m16n8k32 sparse): a0,a1: row g, col 2t+i;
    a2,a3: row g+8, col 2t+i; a4,a5: row g, col 2t+8+i; a6,a7: row g+8, col 2t+8+i.
  A (m16n8k8): a0,a1: row g, col 2t+i; a2,a3: row g+8.
  B (k8 / k16 / k32): register j holds rows 8j + 2t + {0,1}, column g.
  C/D: c0,c1: row g, col 2t+i; c2,c3: row g+8.
  Sparse A (§9.7.14.6.1, .f16/.bf16 2:4): compressed column 2c+e is non-zero element e of the
    4-wide chunk c of its row, at position idx_e of the chunk; the metadata gives, per chunk, a
    4-bit field whose bits [1:0] are idx_0 and [3:2] idx_1. For m16n8k32 the thread pair
    (T0,T1) (selector 0) or (T2,T3) (selector 1) of each group of four holds it: the first
    thread of the pair chunks 0-3 (k 0-15), the second chunks 4-7 (k 16-31); bits [15:0] are
    row g, bits [31:16] row g+8; chunk c's field at bits 4(c%4).

`nvptx_section()` defines the same functions natively for the twin: llvm.nvvm.mma.* where LLVM 19
has the intrinsic (the dense forms), inline PTX otherwise (mma.sp::ordered_metadata).
"""

import wave64

BEGIN = "; ==== BEGIN wave64 mma (target-independent over the wave64 warp model) ===="
END = "; ==== END wave64 mma ===="

A = "alwaysinline convergent nounwind"
# First metadata node of this section's loop IDs (two per function), above wave64.py's.
MD_FIRST = 110
assert MD_FIRST >= wave64.LOOP_MD_END
TYPES = ("f16", "bf16")


class Fn:
    """A straight-line IR function body with fresh value names."""

    def __init__(self):
        self.lines = []
        self.n = 0

    def v(self, rhs):
        self.n += 1
        name = f"%v{self.n}"
        self.lines.append(f"  {name} = {rhs}")
        return name


def _elem(f, reg, half, t):
    """Element `half` (0: low 16 bits) of the .b32 register value `reg`, as float."""
    x = reg if half == 0 else f.v(f"lshr i32 {reg}, 16")
    if t == "f16":
        h = f.v(f"trunc i32 {x} to i16")
        hb = f.v(f"bitcast i16 {h} to half")
        return f.v(f"fpext half {hb} to float")
    m = f.v(f"and i32 {x}, 65535") if half == 0 else x
    s = f.v(f"shl i32 {m}, 16")
    return f.v(f"bitcast i32 {s} to float")


def _prologue(f):
    lane = f.v("call i32 @__wp_sreg_laneid()")
    g = f.v(f"lshr i32 {lane}, 2")
    t = f.v(f"and i32 {lane}, 3")
    g4 = f.v(f"shl i32 {g}, 2")        # first lane of this lane's group (A rows, metadata)
    n0 = f.v(f"shl i32 {t}, 1")        # this lane's first D column, 2t
    n1 = f.v(f"or i32 {n0}, 1")
    b0 = f.v(f"shl i32 {n0}, 2")       # first lane of the group holding column 2t of B
    b1 = f.v(f"shl i32 {n1}, 2")
    return g4, (b0, b1)


def _ret(f, d):
    acc = "poison"
    for i, x in enumerate(d):
        acc = f.v(f"insertvalue {{ float, float, float, float }} {acc}, float {x}, {i}")
    f.lines.append(f"  ret {{ float, float, float, float }} {acc}")


def _loop(f, md, n, c_init, body):
    """A counted loop of `n` iterations (`%it` = 0 .. n-1) over the four accumulators, kept
    rolled (`llvm.loop.unroll.disable`, metadata !md): `body(f, it, acc)` appends one
    iteration's instructions and returns the updated accumulators. Returns the accumulators
    after the loop (valid in the block `exit`, where `f.lines` continues)."""
    f.lines.append("  br label %loop")
    f.lines.append("loop:")
    at = len(f.lines)
    acc = [f"%acc{i}" for i in range(4)]
    out = body(f, "%it", acc)
    f.lines[at:at] = ["  %it = phi i32 [ 0, %entry ], [ %it1, %loop ]"] + [
        f"  %acc{i} = phi float [ {c_init[i]}, %entry ], [ {out[i]}, %loop ]" for i in range(4)]
    f.lines.append("  %it1 = add i32 %it, 1")
    f.lines.append(f"  %done = icmp eq i32 %it1, {n}")
    f.lines.append(f"  br i1 %done, label %exit, label %loop, !llvm.loop !{md}")
    f.lines.append("exit:")
    return out


def _pick(f, idx, regs):
    """regs[idx] for a run-time idx in 0..len(regs)-1 (a chain of selects)."""
    r = regs[0]
    for q in range(1, len(regs)):
        is_q = f.v(f"icmp eq i32 {idx}, {q}")
        r = f.v(f"select i1 {is_q}, i32 {regs[q]}, i32 {r}")
    return r


def _define(name, params, f, md):
    return (f"define linkonce_odr {{ float, float, float, float }} @{name}({', '.join(params)}) {A} {{\n"
            "entry:\n" + "\n".join(f.lines) + "\n}\n"
            f"!{md} = distinct !{{!{md}, !{md + 1}}}\n!{md + 1} = !{{!\"llvm.loop.unroll.disable\"}}\n")


def _dense(k, t, md):
    """mma.sync.aligned.m16n8k{8,16}.row.col.f32.t.t.f32 on the wave64 warp model.

    One loop iteration per (j, u), k = 8j + 2u + {0, 1} in ascending order: register j of the
    A rows g (a_{2j}) and g+8 (a_{2j+1}) from lane 4g + u, register j of B columns 2t and
    2t+1 from lanes 4(2t) + u and 4(2t+1) + u, then two fused multiply-adds per output."""
    na, nb = (2, 1) if k == 8 else (4, 2)
    f = Fn()
    g4, bl = _prologue(f)

    def body(f, it, acc):
        u = f.v(f"and i32 {it}, 3")
        j = f.v(f"lshr i32 {it}, 2")
        areg = [_pick(f, j, [f"%a{rh + 2 * jj}" for jj in range(na // 2)]) for rh in range(2)]
        breg = _pick(f, j, [f"%b{jj}" for jj in range(nb)])
        asrc = f.v(f"add i32 {g4}, {u}")
        rows = []
        for rh in range(2):
            x = f.v(f"call i32 @__wp_warp_read(i32 {asrc}, i32 {areg[rh]})")
            rows.append([_elem(f, x, h, t) for h in range(2)])
        cols = []
        for c in range(2):
            bsrc = f.v(f"add i32 {bl[c]}, {u}")
            x = f.v(f"call i32 @__wp_warp_read(i32 {bsrc}, i32 {breg})")
            cols.append([_elem(f, x, h, t) for h in range(2)])
        acc = list(acc)
        for h in range(2):
            for i in range(4):
                acc[i] = f.v(f"call float @llvm.fma.f32(float {rows[i >> 1][h]}, "
                             f"float {cols[i & 1][h]}, float {acc[i]})")
        return acc

    d = _loop(f, md, (k // 8) * 4, [f"%c{i}" for i in range(4)], body)
    _ret(f, d)
    params = [f"i32 %a{j}" for j in range(na)] + [f"i32 %b{j}" for j in range(nb)]
    params += [f"float %c{i}" for i in range(4)]
    return _define(f"__wp_mma_m16n8k{k}_{t}", params, f, md)


def _sparse(t, sel, md):
    """mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.f32.t.t.f32 with selector sel.

    One loop iteration per chunk c (k = 4c .. 4c+3): chunk c of row r (compressed columns
    2c, 2c+1) is register r/8 + 2(c/4) of lane 4g + c%4; rows 4c..4c+3 of B column n are
    register c/2 of lanes 4n + 2(c%2) + {0, 1}."""
    f = Fn()
    g4, bl = _prologue(f)
    # Metadata of the thread pair (T2sel, T2sel+1) of this group.
    m = []
    for p in range(2):
        src = f.v(f"add i32 {g4}, {2 * sel + p}")
        m.append(f.v(f"call i32 @__wp_warp_read(i32 {src}, i32 %e)"))

    def body(f, c, acc):
        hi = f.v(f"lshr i32 {c}, 2")
        c4 = f.v(f"and i32 {c}, 3")
        c2 = f.v(f"and i32 {c}, 1")
        half = f.v(f"lshr i32 {c}, 1")
        areg = [_pick(f, hi, [f"%a{rh}", f"%a{rh + 2}"]) for rh in range(2)]
        breg = _pick(f, half, [f"%b{j}" for j in range(4)])
        meta = _pick(f, hi, m)
        asrc = f.v(f"add i32 {g4}, {c4}")
        arow = []
        for rh in range(2):
            x = f.v(f"call i32 @__wp_warp_read(i32 {asrc}, i32 {areg[rh]})")
            arow.append([_elem(f, x, h, t) for h in range(2)])
        c2x2 = f.v(f"shl i32 {c2}, 1")
        bcol = []
        for col in range(2):
            vals = []
            b0 = f.v(f"add i32 {bl[col]}, {c2x2}")
            for u in range(2):
                bsrc = f.v(f"add i32 {b0}, {u}")
                x = f.v(f"call i32 @__wp_warp_read(i32 {bsrc}, i32 {breg})")
                vals += [_elem(f, x, h, t) for h in range(2)]
            bcol.append(vals)
        sh = f.v(f"shl i32 {c4}, 2")
        acc = list(acc)
        for i in range(4):
            rh, col = i >> 1, i & 1
            s = f.v(f"add i32 {sh}, {16 * rh}")
            nib = f.v(f"lshr i32 {meta}, {s}")
            for e in range(2):
                ix = f.v(f"lshr i32 {nib}, {2 * e}")
                ix = f.v(f"and i32 {ix}, 3")
                # B[4c + idx][n]: a select over the chunk's four rows.
                b = bcol[col][3]
                for q in (2, 1, 0):
                    is_q = f.v(f"icmp eq i32 {ix}, {q}")
                    b = f.v(f"select i1 {is_q}, float {bcol[col][q]}, float {b}")
                acc[i] = f.v(f"call float @llvm.fma.f32(float {arow[rh][e]}, float {b}, float {acc[i]})")
        return acc

    d = _loop(f, md, 8, [f"%c{i}" for i in range(4)], body)
    _ret(f, d)
    params = [f"i32 %a{j}" for j in range(4)] + [f"i32 %b{j}" for j in range(4)]
    params += [f"float %c{i}" for i in range(4)] + ["i32 %e"]
    return _define(f"__wp_mma_sp_m16n8k32_{t}_s{sel}", params, f, md)


def amdgcn_section():
    o = [BEGIN, "; mma / mma.sp on the wave64 warp model (kernels-ir/mma.py says how)."]
    md = MD_FIRST
    for t in TYPES:
        for k in (8, 16):
            o.append(_dense(k, t, md))
            md += 2
        for sel in (0, 1):
            o.append(_sparse(t, sel, md))
            md += 2
    # (@llvm.fma.f32 is declared by the library around this section.)
    o.append(END)
    return "\n".join(o)


def nvptx_section():
    """The same functions, native on NVIDIA (the twin target's ground truth)."""
    o = ["; ---- mma / mma.sp (native; kernels-ir/mma.py) ----"]
    S = "{ float, float, float, float }"
    for k in (8, 16):
        na, nb = (2, 1) if k == 8 else (4, 2)
        for t in TYPES:
            params = [f"i32 %a{j}" for j in range(na)] + [f"i32 %b{j}" for j in range(nb)]
            params += [f"float %c{i}" for i in range(4)]
            body = []
            if t == "f16":
                # llvm.nvvm.mma.m16n8kK.row.col.f32.f32: A, B as <2 x half>.
                args = []
                for j in range(na):
                    body.append(f"  %ha{j} = bitcast i32 %a{j} to <2 x half>")
                    args.append(f"<2 x half> %ha{j}")
                for j in range(nb):
                    body.append(f"  %hb{j} = bitcast i32 %b{j} to <2 x half>")
                    args.append(f"<2 x half> %hb{j}")
                intr = f"llvm.nvvm.mma.m16n8k{k}.row.col.f32.f32"
                decl_t = ["<2 x half>"] * (na + nb) + ["float"] * 4
            else:
                # llvm.nvvm.mma.m16n8kK.row.col.bf16: A, B as i32.
                args = [f"i32 %a{j}" for j in range(na)] + [f"i32 %b{j}" for j in range(nb)]
                intr = f"llvm.nvvm.mma.m16n8k{k}.row.col.bf16"
                decl_t = ["i32"] * (na + nb) + ["float"] * 4
            args += [f"float %c{i}" for i in range(4)]
            body.append(f"  %r = call {S} @{intr}({', '.join(args)})")
            body.append(f"  ret {S} %r")
            o.append(f"define linkonce_odr {S} @__wp_mma_m16n8k{k}_{t}({', '.join(params)}) {A} {{\n"
                     + "\n".join(body) + f"\n}}\ndeclare {S} @{intr}({', '.join(decl_t)})")
    # mma.sp::ordered_metadata: LLVM 19 has no intrinsic; the instruction itself (PTX ISA 8.5+).
    for t in TYPES:
        for sel in (0, 1):
            params = [f"i32 %a{j}" for j in range(4)] + [f"i32 %b{j}" for j in range(4)]
            params += [f"float %c{i}" for i in range(4)] + ["i32 %e"]
            args = ", ".join(p for p in params)
            asm = (f"mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.f32.{t}.{t}.f32 "
                   "{$0,$1,$2,$3}, {$4,$5,$6,$7}, {$8,$9,$10,$11}, {$12,$13,$14,$15}, $16, "
                   f"{sel};")
            cons = ",".join(["=f"] * 4 + ["r"] * 8 + ["f"] * 4 + ["r"])
            o.append(f"define linkonce_odr {S} @__wp_mma_sp_m16n8k32_{t}_s{sel}({', '.join(params)}) {A} {{\n"
                     f"  %r = call {S} asm sideeffect \"{asm}\", \"{cons}\"({args})\n"
                     f"  ret {S} %r\n}}")
    return "\n".join(o)
