"""Warp matrix functions (`wmma.load`, `wmma.store`, `wmma.mma`) of the PTX lowering, imported
by gen.py.

Forms (PTX ISA 9.x §9.7.14.4 "Warp-level Matrix Multiply-Accumulate Instructions"), all with
.f16 multiplicands (.atype = .btype = .f16), f16 or f32 accumulators:

    wmma.load.{a,b}.sync.aligned.{row,col}.<shape>{.global,.shared{::cta},}.f16  r, [p]{, stride}
    wmma.load.c.sync.aligned.{row,col}.<shape>{...}.{f16,f32}                     r, [p]{, stride}
    wmma.store.d.sync.aligned.{row,col}.<shape>{...}.{f16,f32}                    [p], r{, stride}
    wmma.mma.sync.aligned.{row,col}.{row,col}.<shape>.<dtype>.<ctype>             d, a, b, c

with <shape> one of m16n16k16, m32n8k16, m8n32k16. Fragments are PTX registers: a and b
eight .b32 registers (two f16 each, low half first), c and d four .b32 (f16) or eight .f32.

The fragment layout is unspecified by the ISA ("the mapping of matrix elements to fragment
registers is unspecified", §9.7.14.4.1), so on the wave64 warp model (docs/warp-model.md)
the library chooses one; load, mma and store agree on it (docs/warp-model.md, "wmma"). With
q = 32/M lanes per row of A, C and D and p = 32/N lanes per column of B, lane l (0..31 of
its 32-lane half) holds:

    A: row l/q, all 16 k (register j = k 2j, 2j+1);
    B: column l/p, all 16 k (register j = k 2j, 2j+1);
    C, D: row l/q, columns 8(l%q) + i, i = 0..7 (f32: register i; f16: register i/2, half i%2).

(M = 16: q = 2; M = 32: q = 1; M = 8: q = 4; N = 8q.) A and B are duplicated q and p times,
which their eight registers have room for. wmma.load/store are per-lane memory accesses at
`p + 2 or 4 bytes * (row * stride + col)` (.row) or `(col * stride + row)` (.col), stride in
elements, by default the matrix's width (.row) or height (.col). wmma.mma needs no gather for
A (each lane holds its D row); for each of its 8 D columns a lane reads the 8 B registers of
a lane holding that column with the warp model's bpermute (`@__wp_warp_read`), and
accumulates the 16 products in ascending k with f32 fused multiply-adds starting from C
(f16 C widened exactly; f16 D rounded to nearest even once at the end). Products of two f16
are exact in f32. The ISA leaves the order and rounding of the accumulation to the
implementation (§9.7.14.4.x wmma.mma: "the order of accumulation is implementation-defined").

`nvptx_section()` defines the same functions with the native llvm.nvvm.wmma.* intrinsics (the
twin's ground truth, where the layout is NVIDIA's own and load, mma and store agree by
construction).
"""

BEGIN = "; ==== BEGIN wave64 wmma (target-independent over the wave64 warp model) ===="
END = "; ==== END wave64 wmma ===="

A = "alwaysinline convergent nounwind"
SHAPES = {"m16n16k16": (16, 16), "m32n8k16": (32, 8), "m8n32k16": (8, 32)}
LAYOUTS = ("row", "col")
ACC = ("f16", "f32")


def frag_ty(kind, t):
    """LLVM struct type of a fragment: a/b f16 -> 8 x i32; c/d f16 -> 4 x i32; f32 -> 8 x float."""
    if kind in "ab":
        return "{ " + ", ".join(["i32"] * 8) + " }"
    if t == "f16":
        return "{ " + ", ".join(["i32"] * 4) + " }"
    return "{ " + ", ".join(["float"] * 8) + " }"


def nregs(kind, t):
    return 8 if kind in "ab" or t == "f32" else 4


def reg_ty(kind, t):
    return "float" if kind in "cd" and t == "f32" else "i32"


class Fn:
    def __init__(self):
        self.lines = []
        self.n = 0

    def v(self, rhs):
        self.n += 1
        name = f"%v{self.n}"
        self.lines.append(f"  {name} = {rhs}")
        return name

    def ret_struct(self, ty, et, vals):
        acc = "poison"
        for i, x in enumerate(vals):
            acc = self.v(f"insertvalue {ty} {acc}, {et} {x}, {i}")
        self.lines.append(f"  ret {ty} {acc}")


def name(op, kind, shape, layout, t):
    return f"__wp_wmma_{op}_{kind}_{shape}_{layout}_{t}"


def _offsets(f, kind, shape, layout):
    """(off0, step) of this lane's elements: element e at off0 + e*step (in elements)."""
    m, n = SHAPES[shape]
    lane = f.v("call i32 @__wp_sreg_laneid()")
    q, p = 32 // m, 32 // n
    if kind == "a":
        r = f.v(f"udiv i32 {lane}, {q}")          # row of A
        return (f.v(f"mul i32 {r}, %ld"), "1") if layout == "row" else (r, "%ld")
    if kind == "b":
        c = f.v(f"udiv i32 {lane}, {p}")          # column of B
        return (c, "%ld") if layout == "row" else (f.v(f"mul i32 {c}, %ld"), "1")
    r = f.v(f"udiv i32 {lane}, {q}")
    g = f.v(f"urem i32 {lane}, {q}")
    c0 = f.v(f"shl i32 {g}, 3")
    if layout == "row":
        rl = f.v(f"mul i32 {r}, %ld")
        return f.v(f"add i32 {rl}, {c0}"), "1"
    cl = f.v(f"mul i32 {c0}, %ld")
    return f.v(f"add i32 {cl}, {r}"), "%ld"


def _addr(f, off0, step, e, et):
    if step == "1":
        ix = f.v(f"add i32 {off0}, {e}")
    else:
        s = f.v(f"mul i32 {step}, {e}")
        ix = f.v(f"add i32 {off0}, {s}")
    return f.v(f"getelementptr {et}, ptr %p, i32 {ix}")


def _load(kind, shape, layout, t):
    f = Fn()
    off0, step = _offsets(f, kind, shape, layout)
    ty = frag_ty(kind, t)
    regs = []
    if t == "f32":
        for e in range(8):
            a = _addr(f, off0, step, e, "float")
            regs.append(f.v(f"load float, ptr {a}, align 4"))
        et = "float"
    else:
        for j in range(nregs(kind, t)):
            hs = []
            for h in range(2):
                a = _addr(f, off0, step, 2 * j + h, "i16")
                x = f.v(f"load i16, ptr {a}, align 2")
                hs.append(f.v(f"zext i16 {x} to i32"))
            hi = f.v(f"shl i32 {hs[1]}, 16")
            regs.append(f.v(f"or i32 {hs[0]}, {hi}"))
        et = "i32"
    f.ret_struct(ty, et, regs)
    return (f"define linkonce_odr {ty} @{name('load', kind, shape, layout, t)}(ptr %p, i32 %ld) {A} {{\n"
            + "\n".join(f.lines) + "\n}\n")


def _store(shape, layout, t):
    f = Fn()
    off0, step = _offsets(f, "d", shape, layout)
    et = reg_ty("d", t)
    for j in range(nregs("d", t)):
        if t == "f32":
            a = _addr(f, off0, step, j, "float")
            f.lines.append(f"  store float %r{j}, ptr {a}, align 4")
        else:
            for h in range(2):
                x = f"%r{j}" if h == 0 else f.v(f"lshr i32 %r{j}, 16")
                y = f.v(f"trunc i32 {x} to i16")
                a = _addr(f, off0, step, 2 * j + h, "i16")
                f.lines.append(f"  store i16 {y}, ptr {a}, align 2")
    f.lines.append("  ret void")
    params = ", ".join(f"{et} %r{j}" for j in range(nregs("d", t)))
    return (f"define linkonce_odr void @{name('store', 'd', shape, layout, t)}(ptr %p, i32 %ld, {params}) {A} {{\n"
            + "\n".join(f.lines) + "\n}\n")


def _halves(f, reg):
    """The two f16 of a .b32 register, as float (low first)."""
    out = []
    for h in range(2):
        x = reg if h == 0 else f.v(f"lshr i32 {reg}, 16")
        y = f.v(f"trunc i32 {x} to i16")
        z = f.v(f"bitcast i16 {y} to half")
        out.append(f.v(f"fpext half {z} to float"))
    return out


def _dot():
    """@__wp_wmma_dot16_f16(<16 x float> arow, i32 src, i32 b0..b7, float c): c plus the dot
    product of this lane's A row with the B column held (as registers b0..b7) by lane src,
    16 fused multiply-adds in ascending k."""
    f = Fn()
    acc = "%c"
    for j in range(8):
        x = f.v(f"call i32 @__wp_warp_read(i32 %src, i32 %b{j})")
        for h, bv in enumerate(_halves(f, x)):
            av = f.v(f"extractelement <16 x float> %arow, i32 {2 * j + h}")
            acc = f.v(f"call float @llvm.fma.f32(float {av}, float {bv}, float {acc})")
    f.lines.append(f"  ret float {acc}")
    params = ", ".join(f"i32 %b{j}" for j in range(8))
    return (f"define linkonce_odr float @__wp_wmma_dot16_f16(<16 x float> %arow, i32 %src, {params}, float %c) {A} {{\n"
            + "\n".join(f.lines) + "\n}\n")


def mma_name(shape, al, bl, dt, ct):
    return f"__wp_wmma_mma_{shape}_{al}_{bl}_{dt}_{ct}"


def mma_params(dt, ct):
    p = [f"i32 %a{j}" for j in range(8)] + [f"i32 %b{j}" for j in range(8)]
    p += [f"{reg_ty('c', ct)} %c{j}" for j in range(nregs('c', ct))]
    return p


def _mma_core(shape, dt, ct):
    m, n = SHAPES[shape]
    q, p = 32 // m, 32 // n
    f = Fn()
    lane = f.v("call i32 @__wp_sreg_laneid()")
    g = f.v(f"urem i32 {lane}, {q}")
    c0 = f.v(f"shl i32 {g}, 3")                     # this lane's first D column
    arow = "poison"
    for j in range(8):
        for h, x in enumerate(_halves(f, f"%a{j}")):
            arow = f.v(f"insertelement <16 x float> {arow}, float {x}, i32 {2 * j + h}")
    if ct == "f32":
        cs = [f"%c{i}" for i in range(8)]
    else:
        cs = [x for j in range(4) for x in _halves(f, f"%c{j}")]
    bargs = ", ".join(f"i32 %b{j}" for j in range(8))
    ds = []
    for i in range(8):
        col = f.v(f"add i32 {c0}, {i}")
        src = f.v(f"mul i32 {col}, {p}")          # first lane holding B column `col`
        ds.append(f.v(f"call float @__wp_wmma_dot16_f16(<16 x float> {arow}, i32 {src}, {bargs}, float {cs[i]})"))
    ty = frag_ty("d", dt)
    if dt == "f32":
        f.ret_struct(ty, "float", ds)
    else:
        regs = []
        for j in range(4):
            hs = []
            for h in range(2):
                x = f.v(f"fptrunc float {ds[2 * j + h]} to half")
                y = f.v(f"bitcast half {x} to i16")
                hs.append(f.v(f"zext i16 {y} to i32"))
            hi = f.v(f"shl i32 {hs[1]}, 16")
            regs.append(f.v(f"or i32 {hs[0]}, {hi}"))
        f.ret_struct(ty, "i32", regs)
    return (f"define linkonce_odr {ty} @__wp_wmma_mma_core_{shape}_{dt}_{ct}({', '.join(mma_params(dt, ct))}) {A} {{\n"
            + "\n".join(f.lines) + "\n}\n")


def _mma_wrapper(shape, al, bl, dt, ct):
    ps = mma_params(dt, ct)
    args = ", ".join(ps)
    ty = frag_ty("d", dt)
    return (f"define linkonce_odr {ty} @{mma_name(shape, al, bl, dt, ct)}({args}) {A} {{\n"
            f"  %r = call {ty} @__wp_wmma_mma_core_{shape}_{dt}_{ct}({args})\n"
            f"  ret {ty} %r\n}}\n")


def forms():
    """(kind, shape, layout, type) of every load/store function."""
    for shape in SHAPES:
        for lay in LAYOUTS:
            yield ("a", shape, lay, "f16")
            yield ("b", shape, lay, "f16")
            for t in ACC:
                yield ("c", shape, lay, t)
                yield ("d", shape, lay, t)


def mmas():
    for shape in SHAPES:
        for al in LAYOUTS:
            for bl in LAYOUTS:
                for dt in ACC:
                    for ct in ACC:
                        yield shape, al, bl, dt, ct


def amdgcn_section():
    o = [BEGIN, "; wmma.load / wmma.store / wmma.mma on the wave64 warp model (kernels-ir/wmma.py says how)."]
    for kind, shape, lay, t in forms():
        o.append(_store(shape, lay, t) if kind == "d" else _load(kind, shape, lay, t))
    o.append(_dot())
    for shape in SHAPES:
        for dt in ACC:
            for ct in ACC:
                o.append(_mma_core(shape, dt, ct))
    for args in mmas():
        o.append(_mma_wrapper(*args))
    o.append(m8n8k4_amdgcn())
    o.append(END)
    return "\n".join(o)


def _nv_vec(kind, t):
    """Element type of the native intrinsic's fragment registers."""
    return "float" if kind in "cd" and t == "f32" else "<2 x half>"


def nvptx_section():
    """The same functions with the native llvm.nvvm.wmma.* intrinsics (generic pointers)."""
    o = ["; ---- wmma (native; kernels-ir/wmma.py) ----"]
    for kind, shape, lay, t in forms():
        k = nregs(kind, t)
        nt = _nv_vec(kind, t)
        rt = "{ " + ", ".join([nt] * k) + " }"
        ty = frag_ty(kind, t)
        et = reg_ty(kind, t)
        if kind == "d":
            intr = f"llvm.nvvm.wmma.{shape}.store.d.{lay}.stride.{t}.p0"
            body = []
            args = []
            for j in range(k):
                if nt == "float":
                    args.append(f"float %r{j}")
                else:
                    body.append(f"  %h{j} = bitcast i32 %r{j} to <2 x half>")
                    args.append(f"<2 x half> %h{j}")
            body.append(f"  call void @{intr}(ptr %p, {', '.join(args)}, i32 %ld)")
            body.append("  ret void")
            params = ", ".join(f"{et} %r{j}" for j in range(k))
            o.append(f"define linkonce_odr void @{name('store', 'd', shape, lay, t)}(ptr %p, i32 %ld, {params}) {A} {{\n"
                     + "\n".join(body) + f"\n}}\ndeclare void @{intr}(ptr, {', '.join([nt] * k)}, i32)")
            continue
        intr = f"llvm.nvvm.wmma.{shape}.load.{kind}.{lay}.stride.{t}.p0"
        body = [f"  %n = call {rt} @{intr}(ptr %p, i32 %ld)"]
        acc = "poison"
        for j in range(k):
            body.append(f"  %e{j} = extractvalue {rt} %n, {j}")
            x = f"%e{j}"
            if nt != et:
                body.append(f"  %x{j} = bitcast {nt} %e{j} to {et}")
                x = f"%x{j}"
            body.append(f"  %s{j} = insertvalue {ty} {acc}, {et} {x}, {j}")
            acc = f"%s{j}"
        body.append(f"  ret {ty} {acc}")
        o.append(f"define linkonce_odr {ty} @{name('load', kind, shape, lay, t)}(ptr %p, i32 %ld) {A} {{\n"
                 + "\n".join(body) + f"\n}}\ndeclare {rt} @{intr}(ptr, i32)")
    for shape, al, bl, dt, ct in mmas():
        intr = f"llvm.nvvm.wmma.{shape}.mma.{al}.{bl}.{dt}.{ct}"
        body, args, decl = [], [], []
        for x in "ab":
            for j in range(8):
                body.append(f"  %h{x}{j} = bitcast i32 %{x}{j} to <2 x half>")
                args.append(f"<2 x half> %h{x}{j}")
                decl.append("<2 x half>")
        ck = nregs("c", ct)
        for j in range(ck):
            if ct == "f32":
                args.append(f"float %c{j}")
                decl.append("float")
            else:
                body.append(f"  %hc{j} = bitcast i32 %c{j} to <2 x half>")
                args.append(f"<2 x half> %hc{j}")
                decl.append("<2 x half>")
        dk = nregs("d", dt)
        dn = _nv_vec("d", dt)
        rt = "{ " + ", ".join([dn] * dk) + " }"
        ty = frag_ty("d", dt)
        et = reg_ty("d", dt)
        body.append(f"  %n = call {rt} @{intr}({', '.join(args)})")
        acc = "poison"
        for j in range(dk):
            body.append(f"  %e{j} = extractvalue {rt} %n, {j}")
            x = f"%e{j}"
            if dn != et:
                body.append(f"  %x{j} = bitcast {dn} %e{j} to {et}")
                x = f"%x{j}"
            body.append(f"  %s{j} = insertvalue {ty} {acc}, {et} {x}, {j}")
            acc = f"%s{j}"
        body.append(f"  ret {ty} {acc}")
        o.append(f"define linkonce_odr {ty} @{mma_name(shape, al, bl, dt, ct)}({', '.join(mma_params(dt, ct))}) {A} {{\n"
                 + "\n".join(body) + f"\n}}\ndeclare {rt} @{intr}({', '.join(decl)})")
    o.append(m8n8k4_nvptx())
    return "\n".join(o)


# ---------------------------------------------------------------------------------------------
# mma.sync.aligned.m8n8k4 (PTX ISA 9.x §9.7.14.5.1 "Matrix Fragments for mma.m8n8k4"):
#   .f16: .alayout.blayout.{f16.f16.f16.f16, f32.f16.f16.f32} (the two same-type accumulator
#         forms); four independent 8x8x4 products, one per quad-pair QP i = lanes 4i..4i+3 and
#         4i+16..4i+19. With u = %laneid % 4 and h = (%laneid >= 16):
#           A .row: a_e (e = 0..3) is A[u + 4h][e];   A .col: a_e is A[e + 4h][u]
#           B .row: b_e is B[u][e + 4h];              B .col: b_e is B[e][u + 4h]
#           C/D .f16: c_i (i = 0..7) is C[u + 4h][i]
#           C/D .f32: c_i is C[X + 4h][(i & 4) + (%laneid & 2) + (i & 1)],
#                     X = (%laneid & 1) + (i & 2)
#         (element e of an f16 pair register set: register e/2, half e%2).
#   .f64: .row.col.f64.f64.f64.f64, one 8x8x4 product per warp: a0 = A[g][t],
#         b0 = B[t][g], c_i = C[g][2t + i] (g = %laneid >> 2, t = %laneid % 4).
# On the warp model each lane of a quad-pair reads the 16 A and B registers of its quad-pair
# (16 bpermutes), picks its rows and columns, and accumulates in ascending k with fused
# multiply-adds (f32 for .f16 inputs, the f16 D rounded once at the end; f64 for .f64).

def m8n8k4_forms():
    for al in LAYOUTS:
        for bl in LAYOUTS:
            for t in ACC:
                yield al, bl, t


def m8n8k4_params(t):
    p = [f"i32 %a{j}" for j in range(2)] + [f"i32 %b{j}" for j in range(2)]
    p += [f"{reg_ty('c', t)} %c{j}" for j in range(nregs('c', t))]
    return p


def _pick(f, idx, vals, ty="float"):
    """vals[idx] for a dynamic i32 idx, as a select chain."""
    r = vals[-1]
    for q in range(len(vals) - 2, -1, -1):
        c = f.v(f"icmp eq i32 {idx}, {q}")
        r = f.v(f"select i1 {c}, {ty} {vals[q]}, {ty} {r}")
    return r


def _m8n8k4_f16(al, bl, t):
    f = Fn()
    lane = f.v("call i32 @__wp_sreg_laneid()")
    base = f.v(f"and i32 {lane}, 12")             # 4 * quad-pair index
    # Every A and B register of the quad-pair: lanes base + 16h + u.
    regs = {}
    for h in range(2):
        for u in range(4):
            src = f.v(f"add i32 {base}, {16 * h + u}")
            for x in "ab":
                for j in range(2):
                    v = f.v(f"call i32 @__wp_warp_read(i32 {src}, i32 %{x}{j})")
                    regs[(x, h, u, j)] = _halves(f, v)
    def el(x, h, u, e):
        return regs[(x, h, u, e // 2)][e % 2]
    am = [[el("a", r // 4, r % 4, k) if al == "row" else el("a", r // 4, k, r % 4)
          for k in range(4)] for r in range(8)]
    bm = [[el("b", c // 4, k, c % 4) if bl == "row" else el("b", c // 4, c % 4, k)
          for c in range(8)] for k in range(4)]
    u = f.v(f"and i32 {lane}, 3")
    hh = f.v(f"lshr i32 {lane}, 4")
    h4 = f.v(f"shl i32 {hh}, 2")
    if t == "f16":
        cs = [x for j in range(4) for x in _halves(f, f"%c{j}")]
        row = f.v(f"add i32 {u}, {h4}")
        arow = [_pick(f, row, [am[r][k] for r in range(8)]) for k in range(4)]
        ds = []
        for i in range(8):
            acc = cs[i]
            for k in range(4):
                acc = f.v(f"call float @llvm.fma.f32(float {arow[k]}, float {bm[k][i]}, float {acc})")
            ds.append(acc)
        regs_out = []
        for j in range(4):
            hs = []
            for h in range(2):
                x = f.v(f"fptrunc float {ds[2 * j + h]} to half")
                y = f.v(f"bitcast half {x} to i16")
                hs.append(f.v(f"zext i16 {y} to i32"))
            hi = f.v(f"shl i32 {hs[1]}, 16")
            regs_out.append(f.v(f"or i32 {hs[0]}, {hi}"))
        ty = frag_ty("d", "f16")
        f.ret_struct(ty, "i32", regs_out)
    else:
        lo = f.v(f"and i32 {lane}, 1")
        row0 = f.v(f"add i32 {lo}, {h4}")          # X + 4h for i & 2 == 0
        row2 = f.v(f"add i32 {row0}, 2")
        l2 = f.v(f"and i32 {lane}, 2")
        csel = f.v(f"lshr i32 {l2}, 1")            # column pair selector
        ds = []
        arows = {}
        for rsel, rv in ((0, row0), (2, row2)):
            arows[rsel] = [_pick(f, rv, [am[r][k] for r in range(8)]) for k in range(4)]
        for i in range(8):
            cb = (i & 4) + (i & 1)                 # column without the lane's bit (l & 2)
            bcol = [_pick(f, csel, [bm[k][cb], bm[k][cb + 2]]) for k in range(4)]
            acc = f"%c{i}"
            for k in range(4):
                acc = f.v(f"call float @llvm.fma.f32(float {arows[i & 2][k]}, float {bcol[k]}, float {acc})")
            ds.append(acc)
        f.ret_struct(frag_ty("d", "f32"), "float", ds)
    ty = frag_ty("d", t)
    return (f"define linkonce_odr {ty} @__wp_mma_m8n8k4_{al}_{bl}_{t}({', '.join(m8n8k4_params(t))}) {A} {{\n"
            + "\n".join(f.lines) + "\n}\n")


F64_RT = "{ double, double }"


def _m8n8k4_f64():
    f = Fn()
    lane = f.v("call i32 @__wp_sreg_laneid()")
    g4 = f.v(f"and i32 {lane}, 28")               # 4g: first lane of this lane's group
    t = f.v(f"and i32 {lane}, 3")

    def read64(src, x):
        lo = f.v(f"call i32 @__wp_warp_read(i32 {src}, i32 %{x}lo)")
        hi = f.v(f"call i32 @__wp_warp_read(i32 {src}, i32 %{x}hi)")
        lz = f.v(f"zext i32 {lo} to i64")
        hz = f.v(f"zext i32 {hi} to i64")
        hs = f.v(f"shl i64 {hz}, 32")
        w = f.v(f"or i64 {lz}, {hs}")
        return f.v(f"bitcast i64 {w} to double")

    for x in "ab":
        w = f.v(f"bitcast double %{x} to i64")
        f.lines.append(f"  %{x}lo = trunc i64 {w} to i32")
        s = f.v(f"lshr i64 {w}, 32")
        f.lines.append(f"  %{x}hi = trunc i64 {s} to i32")
    arow = [read64(f.v(f"add i32 {g4}, {k}"), "a") for k in range(4)]   # A[g][k]
    t8 = f.v(f"shl i32 {t}, 3")
    ds = []
    for i in range(2):
        acc = f"%c{i}"
        for k in range(4):
            # B[k][2t + i] is b0 of lane 4(2t + i) + k.
            src = f.v(f"add i32 {t8}, {4 * i + k}")
            b = read64(src, "b")
            acc = f.v(f"call double @llvm.fma.f64(double {arow[k]}, double {b}, double {acc})")
        ds.append(acc)
    f.ret_struct(F64_RT, "double", ds)
    return (f"define linkonce_odr {F64_RT} @__wp_mma_m8n8k4_row_col_f64(double %a, double %b, double %c0, double %c1) {A} {{\n"
            + "\n".join(f.lines) + "\n}\n")


# Mixed accumulators (.f32.f16.f16.f16, same section of the ISA; the converse .f16...f32 is
# rejected by ptxas): the C
# fragment follows the layout of ctype and the D fragment the layout of dtype (the tables
# above), so an element of D generally sits in another lane of the quad-pair than the same
# element of C. Each lane reads the C registers of its whole quad-pair (32 for .f16, 64 for
# .f32 bpermutes) into the 8x8 C block, then computes its D elements as above: f32 fused
# multiply-adds in ascending k from C[row][col] (an f16 C widens exactly), an f16 D rounded
# once at the end.

def m8n8k4_mixed_forms():
    for al in LAYOUTS:
        for bl in LAYOUTS:
            # .f16.f16.f16.f32 is not a valid form: ptxas 13.5 rejects it (".dtype must be
            # '.f32' when .ctype is '.f32' for 'mma' instruction with shape '.m8n8k4'").
            for dt, ct in (("f32", "f16"),):
                yield al, bl, dt, ct


def m8n8k4_mixed_name(al, bl, dt, ct):
    return f"__wp_mma_m8n8k4_{al}_{bl}_{dt}_{ct}"


def _m8n8k4_mixed(al, bl, dt, ct):
    f = Fn()
    lane = f.v("call i32 @__wp_sreg_laneid()")
    base = f.v(f"and i32 {lane}, 12")             # 4 * quad-pair index
    regs = {}
    cm = [[None] * 8 for _ in range(8)]           # the quad-pair's C block, as float
    for h in range(2):
        for u in range(4):
            src = f.v(f"add i32 {base}, {16 * h + u}")
            for x in "ab":
                for j in range(2):
                    v = f.v(f"call i32 @__wp_warp_read(i32 {src}, i32 %{x}{j})")
                    regs[(x, h, u, j)] = _halves(f, v)
            if ct == "f16":
                # c_i of lane (h, u) is C[u + 4h][i].
                for j in range(4):
                    v = f.v(f"call i32 @__wp_warp_read(i32 {src}, i32 %c{j})")
                    for e, x in enumerate(_halves(f, v)):
                        cm[u + 4 * h][2 * j + e] = x
            else:
                # c_i of lane (h, u) is C[(u & 1) + (i & 2) + 4h][(i & 4) + (u & 2) + (i & 1)].
                for i in range(8):
                    w = f.v(f"bitcast float %c{i} to i32")
                    v = f.v(f"call i32 @__wp_warp_read(i32 {src}, i32 {w})")
                    r = (u & 1) + (i & 2) + 4 * h
                    c = (i & 4) + (u & 2) + (i & 1)
                    cm[r][c] = f.v(f"bitcast i32 {v} to float")

    def el(x, h, u, e):
        return regs[(x, h, u, e // 2)][e % 2]
    am = [[el("a", r // 4, r % 4, k) if al == "row" else el("a", r // 4, k, r % 4)
          for k in range(4)] for r in range(8)]
    bm = [[el("b", c // 4, k, c % 4) if bl == "row" else el("b", c // 4, c % 4, k)
          for c in range(8)] for k in range(4)]
    u = f.v(f"and i32 {lane}, 3")
    hh = f.v(f"lshr i32 {lane}, 4")
    h4 = f.v(f"shl i32 {hh}, 2")
    if dt == "f16":
        # d_i is D[u + 4h][i].
        row = f.v(f"add i32 {u}, {h4}")
        arow = [_pick(f, row, [am[r][k] for r in range(8)]) for k in range(4)]
        ds = []
        for i in range(8):
            acc = _pick(f, row, [cm[r][i] for r in range(8)])
            for k in range(4):
                acc = f.v(f"call float @llvm.fma.f32(float {arow[k]}, float {bm[k][i]}, float {acc})")
            ds.append(acc)
        regs_out = []
        for j in range(4):
            hs = []
            for h in range(2):
                x = f.v(f"fptrunc float {ds[2 * j + h]} to half")
                y = f.v(f"bitcast half {x} to i16")
                hs.append(f.v(f"zext i16 {y} to i32"))
            hi = f.v(f"shl i32 {hs[1]}, 16")
            regs_out.append(f.v(f"or i32 {hs[0]}, {hi}"))
        f.ret_struct(frag_ty("d", "f16"), "i32", regs_out)
    else:
        # d_i is D[(lane & 1) + (i & 2) + 4h][(i & 4) + (lane & 2) + (i & 1)].
        lo = f.v(f"and i32 {lane}, 1")
        rows = {0: f.v(f"add i32 {lo}, {h4}")}
        rows[2] = f.v(f"add i32 {rows[0]}, 2")
        l2 = f.v(f"and i32 {lane}, 2")
        csel = f.v(f"lshr i32 {l2}, 1")            # column pair selector
        arows = {s: [_pick(f, rv, [am[r][k] for r in range(8)]) for k in range(4)]
                 for s, rv in rows.items()}
        ds = []
        for i in range(8):
            cb = (i & 4) + (i & 1)                 # column without the lane's bit (l & 2)
            bcol = [_pick(f, csel, [bm[k][cb], bm[k][cb + 2]]) for k in range(4)]
            crow = [_pick(f, csel, [cm[r][cb], cm[r][cb + 2]]) for r in range(8)]
            acc = _pick(f, rows[i & 2], crow)
            for k in range(4):
                acc = f.v(f"call float @llvm.fma.f32(float {arows[i & 2][k]}, float {bcol[k]}, float {acc})")
            ds.append(acc)
        f.ret_struct(frag_ty("d", "f32"), "float", ds)
    return (f"define linkonce_odr {frag_ty('d', dt)} @{m8n8k4_mixed_name(al, bl, dt, ct)}"
            f"({', '.join(m8n8k4_params(ct))}) {A} {{\n" + "\n".join(f.lines) + "\n}\n")


def m8n8k4_amdgcn():
    o = ["; mma.sync m8n8k4 (.f16 quad-pairs, .f64) on the wave64 warp model."]
    for al, bl, t in m8n8k4_forms():
        o.append(_m8n8k4_f16(al, bl, t))
    o.append(_m8n8k4_f64())
    for args in m8n8k4_mixed_forms():
        o.append(_m8n8k4_mixed(*args))
    return "\n".join(o)


def m8n8k4_nvptx():
    o = ["; ---- mma.sync m8n8k4 (native; kernels-ir/wmma.py) ----"]
    forms = [(al, bl, t, t) for al, bl, t in m8n8k4_forms()]
    mixed = list(m8n8k4_mixed_forms())
    for al, bl, dt, ct in forms + mixed:
        o.append(_m8n8k4_nv(al, bl, dt, ct, (al, bl, dt, ct) in mixed))
    intr = "llvm.nvvm.mma.m8n8k4.row.col.f64"
    o.append(f"define linkonce_odr {F64_RT} @__wp_mma_m8n8k4_row_col_f64(double %a, double %b, double %c0, double %c1) {A} {{\n"
             f"  %r = call {F64_RT} @{intr}(double %a, double %b, double %c0, double %c1)\n"
             f"  ret {F64_RT} %r\n}}\ndeclare {F64_RT} @{intr}(double, double, double, double)")
    return "\n".join(o)


def _m8n8k4_nv(al, bl, dt, ct, mixed):
    """@__wp_mma_m8n8k4_<al>_<bl>_<t> (same-type) or _<dt>_<ct> (mixed) over
    llvm.nvvm.mma.m8n8k4.<al>.<bl>.<dtype>.<ctype>."""
    intr = f"llvm.nvvm.mma.m8n8k4.{al}.{bl}.{dt}.{ct}"
    body, args, decl = [], [], []
    for x in "ab":
        for j in range(2):
            body.append(f"  %h{x}{j} = bitcast i32 %{x}{j} to <2 x half>")
            args.append(f"<2 x half> %h{x}{j}")
            decl.append("<2 x half>")
    nc = _nv_vec("c", ct)
    for j in range(nregs("c", ct)):
        if ct == "f32":
            args.append(f"float %c{j}")
        else:
            body.append(f"  %hc{j} = bitcast i32 %c{j} to <2 x half>")
            args.append(f"<2 x half> %hc{j}")
        decl.append(nc)
    k = nregs("d", dt)
    nt = _nv_vec("d", dt)
    rt = "{ " + ", ".join([nt] * k) + " }"
    ty = frag_ty("d", dt)
    et = reg_ty("d", dt)
    body.append(f"  %n = call {rt} @{intr}({', '.join(args)})")
    acc = "poison"
    for j in range(k):
        body.append(f"  %e{j} = extractvalue {rt} %n, {j}")
        x = f"%e{j}"
        if nt != et:
            body.append(f"  %x{j} = bitcast {nt} %e{j} to {et}")
            x = f"%x{j}"
        body.append(f"  %s{j} = insertvalue {ty} {acc}, {et} {x}, {j}")
        acc = f"%s{j}"
    body.append(f"  ret {ty} {acc}")
    fname = m8n8k4_mixed_name(al, bl, dt, ct) if mixed else f"__wp_mma_m8n8k4_{al}_{bl}_{dt}"
    return (f"define linkonce_odr {ty} @{fname}({', '.join(m8n8k4_params(ct))}) {A} {{\n"
            + "\n".join(body) + f"\n}}\ndeclare {rt} @{intr}({', '.join(decl)})")
