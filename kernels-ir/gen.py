#!/usr/bin/env python3
"""Writes kernels-ir/amdgcn.ll and kernels-ir/nvptx.ll, the device support libraries of the
PTX lowering (src/lower/), and kernels-ir/amdgcn-gfx10plus.ll, the overlay whose definitions
replace amdgcn.ll's on gfx10+. Run from the repository root: `python3 kernels-ir/gen.py`
(`python3 kernels-ir/gen.py DIR` writes them into DIR instead; tests/kernels_ir.rs checks that
the committed files are what the generator writes).

The libraries are LLVM IR text (LLVM 19, opaque pointers) linked into every lowered module
before optimisation (llvm-link). They define the `@__wp_*` functions the lowering calls for
PTX operations that are not one LLVM instruction: special registers (PTX ISA 9.x ch. 10),
directed-rounding arithmetic (.rz/.rm/.rp, §9.7.3), bit-field operations (bfe/bfi/bfind/prmt,
§9.7.1, §9.7.9.17), barriers (§9.7.13), approximate transcendentals, vprintf/__assertfail.

The "portable" section (bfe, bfi, bfind, prmt, ftz) is target-independent IR and is written
identically into both files; tests/lower_semantics.rs runs it on the host with lli.
Every function is `linkonce_odr` so that opt drops the unused ones.
"""
import pathlib
import tomllib

import tensor_mem
import wave64
import mma
import wmma
import mbarrier
import printf

ROOT = pathlib.Path(__file__).resolve().parent

def scaled_f32_root(name, intrinsic, back):
    """`@__wp_<name>_approx_f32` on amdgcn: V_SQRT/V_RSQ_F32 (`llvm.amdgcn.<intrinsic>.f32`) of a
    subnormal operand scaled by 2^32 into the normal range, the result scaled by `back`
    (2^-16 for sqrt, 2^16 for rsqrt), as PTX's `.approx.f32` without `.ftz` keeps subnormals."""
    return f"""define linkonce_odr float @__wp_{name}_approx_f32(float %a) {ATTR} {{
  %x = call float @llvm.fabs.f32(float %a)
  %lo = fcmp olt float %x, 0x3810000000000000
  %y0 = fmul float %a, 0x41F0000000000000
  %y = select i1 %lo, float %y0, float %a
  %r = call float @llvm.amdgcn.{intrinsic}.f32(float %y)
  %r0 = fmul float %r, {back}
  %o = select i1 %lo, float %r0, float %r
  ret float %o
}}
"""


def trig_approx(name):
    """`@__wp_<name>_approx_f32` on amdgcn: V_SIN/V_COS_F32 (`llvm.amdgcn.<name>.f32`, an angle in
    revolutions) of x/2pi reduced with 1/2pi as two binary32 parts: x*hi less its nearest integer
    (exact) plus the product's rounding error and x*lo (left out from 2^22 revolutions on, where
    x*hi has no fraction bits left to correct). A one-part product, as LLVM's fast-math sin
    and cos use, errs by about |x|*2^-24 radians (1.9e-6 at x = 62; the H200's sin.approx by as
    much: f32_approx columns 0 and 1, raw H200 output)."""
    return f"""define linkonce_odr float @__wp_{name}_approx_f32(float %a) {ATTR} {{
  %th = fmul float %a, 0x3FC45F3060000000
  %nth = fneg float %th
  %te = call float @llvm.fma.f32(float %a, float 0x3FC45F3060000000, float %nth)
  %tl = call float @llvm.fma.f32(float %a, float 0x3E3B939100000000, float %te)
  %n = call float @llvm.rint.f32(float %th)
  %f = fsub float %th, %n
  %ath = call float @llvm.fabs.f32(float %th)
  %big = fcmp oge float %ath, 0x4150000000000000
  %tc = select i1 %big, float 0.0, float %tl
  %t = fadd float %f, %tc
  %r = call float @llvm.amdgcn.{name}.f32(float %t)
  ret float %r
}}
"""


# The operand of the H200's f64 `.approx.ftz` instructions (rcp, rsqrt): `%a` with its low 32
# bits cleared, a subnormal flushed to a zero of its sign, as `%xf` (and `%h`, its bits).
F64_HIGH_WORD_FTZ = """  %b = bitcast double %a to i64
  %h = and i64 %b, -4294967296
  %x = bitcast i64 %h to double
  %ax = call double @llvm.fabs.f64(double %x)
  %sub = fcmp olt double %ax, 0x10000000000000
  %sg = and i64 %h, -9223372036854775808
  %z = bitcast i64 %sg to double
  %xf = select i1 %sub, double %z, double %x
"""

def family_datalayout(family):
    """The LLVM data layout of a code family, from its defaults file (the one source)."""
    with open(ROOT.parent / "targets" / "families" / f"{family}.toml", "rb") as f:
        return tomllib.load(f)["datalayout"]


AMD_DL = family_datalayout("amdgcn")
NV_DL = family_datalayout("nvptx")

ATTR = "alwaysinline nounwind"
# amdgcn functions that hold a work-group barrier (see @__wp_bar_sync)
ATTR_CONV = "alwaysinline convergent nounwind"


def z(v, t):
    return f"zext i32 {v} to {t}" if t != "i32" else f"or i32 {v}, 0"


def tr(v, t):
    return f"trunc {t} {v} to i32" if t != "i32" else f"or i32 {v}, 0"


def portable():
    out = []
    A = out.append
    A("; ---- portable: target-independent IR, identical in amdgcn.ll and nvptx.ll ----")
    # ftz: flush a subnormal f32 to a zero of the same sign (PTX ISA 9.x §9.7.3 ".ftz").
    A(f"""define linkonce_odr float @__wp_ftz_f32(float %x) {ATTR} {{
  %a = call float @llvm.fabs.f32(float %x)
  %sub = fcmp olt float %a, 0x3810000000000000
  %z = call float @llvm.copysign.f32(float 0.0, float %x)
  %r = select i1 %sub, float %z, float %x
  ret float %r
}}
""")
    for w in (32, 64):
        t = f"i{w}"
        # bfe (PTX ISA 9.x §9.7.1.14 bfe): pos = b & 0xff, len = c & 0xff; n = min(len, W - pos)
        # valid bits, the rest copies the sign bit a[min(pos+len-1, msb)] (.s) or is 0 (.u).
        for s, shr in (("u", "lshr"), ("s", "ashr")):
            A(f"""define linkonce_odr {t} @__wp_bfe_{s}{w}({t} %a, i32 %b, i32 %c) {ATTR} {{
  %pos = and i32 %b, 255
  %len = and i32 %c, 255
  %lz = icmp eq i32 %len, 0
  %big = icmp uge i32 %pos, {w}
  %room = sub i32 {w}, %pos
  %n0 = call i32 @llvm.umin.i32(i32 %len, i32 %room)
  %n = select i1 %big, i32 1, i32 %n0
  %pos1 = select i1 %big, i32 0, i32 %pos
  %sl32 = sub i32 %room, %n
  %sl32b = select i1 %big, i32 0, i32 %sl32
  %sr32 = sub i32 {w}, %n
  %sl = {z("%sl32b", t)}
  %sr = {z("%sr32", t)}
  %x = shl {t} %a, %sl
  %y = {shr} {t} %x, %sr
  %sign = ashr {t} %a, {w - 1}
  %ovf = {"select i1 %big, " + t + " %sign, " + t + " %y" if s == "s" else "select i1 %big, " + t + " 0, " + t + " %y"}
  %r = select i1 %lz, {t} 0, {t} %ovf
  ret {t} %r
}}
""")
        # bfi (§9.7.1.15): insert a's low bits into b at pos, len (same clamping as bfe).
        A(f"""define linkonce_odr {t} @__wp_bfi_b{w}({t} %a, {t} %b, i32 %c, i32 %d) {ATTR} {{
  %pos = and i32 %c, 255
  %len = and i32 %d, 255
  %lz = icmp eq i32 %len, 0
  %big = icmp uge i32 %pos, {w}
  %skip = or i1 %lz, %big
  %room = sub i32 {w}, %pos
  %n0 = call i32 @llvm.umin.i32(i32 %len, i32 %room)
  %n = select i1 %skip, i32 1, i32 %n0
  %p = select i1 %skip, i32 0, i32 %pos
  %sh32 = sub i32 {w}, %n
  %sh = {z("%sh32", t)}
  %pz = {z("%p", t)}
  %low = lshr {t} -1, %sh
  %mask = shl {t} %low, %pz
  %ins = shl {t} %a, %pz
  %insm = and {t} %ins, %mask
  %nm = xor {t} %mask, -1
  %keep = and {t} %b, %nm
  %m = or {t} %keep, %insm
  %r = select i1 %skip, {t} %b, {t} %m
  ret {t} %r
}}
""")
        # bfind (§9.7.1.16): bit position of the most significant 1 (.u) or non-sign bit (.s),
        # 0xffffffff if none.
        for s in ("u", "s"):
            pre = (f"  %neg = icmp slt {t} %a, 0\n  %inv = xor {t} %a, -1\n"
                   f"  %x = select i1 %neg, {t} %inv, {t} %a\n") if s == "s" else f"  %x = or {t} %a, 0\n"
            A(f"""define linkonce_odr i32 @__wp_bfind_{s}{w}({t} %a) {ATTR} {{
{pre}  %z = icmp eq {t} %x, 0
  %l = call {t} @llvm.ctlz.{t}({t} %x, i1 false)
  %l32 = {tr("%l", t)}
  %p = sub i32 {w - 1}, %l32
  %r = select i1 %z, i32 -1, i32 %p
  ret i32 %r
}}
""")
    # prmt (§9.7.9.17 prmt), default mode: byte i of d is byte (c >> 4i) & 7 of {b, a},
    # sign-replicated when bit 3 of the selector is set.
    body = ["  %lo = zext i32 %a to i64", "  %hi0 = zext i32 %b to i64", "  %hi = shl i64 %hi0, 32",
            "  %x = or i64 %hi, %lo"]
    for i in range(4):
        body += [
            f"  %s{i}a = lshr i32 %c, {4 * i}",
            f"  %s{i} = and i32 %s{i}a, 15",
            f"  %k{i}a = and i32 %s{i}, 7",
            f"  %k{i}b = shl i32 %k{i}a, 3",
            f"  %k{i} = zext i32 %k{i}b to i64",
            f"  %y{i}a = lshr i64 %x, %k{i}",
            f"  %y{i}b = trunc i64 %y{i}a to i8",
            f"  %m{i} = and i32 %s{i}, 8",
            f"  %rep{i} = icmp ne i32 %m{i}, 0",
            f"  %sg{i} = ashr i8 %y{i}b, 7",
            f"  %v{i} = select i1 %rep{i}, i8 %sg{i}, i8 %y{i}b",
            f"  %w{i}a = zext i8 %v{i} to i32",
            f"  %w{i} = shl i32 %w{i}a, {8 * i}",
        ]
    body += ["  %o1 = or i32 %w0, %w1", "  %o2 = or i32 %o1, %w2", "  %r = or i32 %o2, %w3",
             "  ret i32 %r"]
    A(f"define linkonce_odr i32 @__wp_prmt(i32 %a, i32 %b, i32 %c) {ATTR} {{\n" + "\n".join(body) + "\n}\n")
    # prmt modes with fixed selectors derived from c[1:0] (§9.7.9.17 table "prmt modes").
    modes = {
        "f4e": ["0x3210", "0x4321", "0x5432", "0x6543"],
        "b4e": ["0x5670", "0x6701", "0x7012", "0x0123"],
        "rc8": ["0x0000", "0x1111", "0x2222", "0x3333"],
        "ecl": ["0x3210", "0x3211", "0x3222", "0x3333"],
        "ecr": ["0x0000", "0x1110", "0x2210", "0x3210"],
        "rc16": ["0x1010", "0x3232", "0x1010", "0x3232"],
    }
    for m, sels in modes.items():
        ints = [str(int(x, 16)) for x in sels]
        A(f"""define linkonce_odr i32 @__wp_prmt_{m}(i32 %a, i32 %b, i32 %c) {ATTR} {{
  %k = and i32 %c, 3
  %e1 = icmp eq i32 %k, 1
  %e2 = icmp eq i32 %k, 2
  %e3 = icmp eq i32 %k, 3
  %s1 = select i1 %e1, i32 {ints[1]}, i32 {ints[0]}
  %s2 = select i1 %e2, i32 {ints[2]}, i32 %s1
  %s = select i1 %e3, i32 {ints[3]}, i32 %s2
  %r = call i32 @__wp_prmt(i32 %a, i32 %b, i32 %s)
  ret i32 %r
}}
""")
    A("; ---- end portable ----\n")
    return "\n".join(out)


PORTABLE_DECLS = """declare float @llvm.fabs.f32(float)
declare float @llvm.copysign.f32(float, float)
declare double @llvm.copysign.f64(double, double)
declare i32 @llvm.umin.i32(i32, i32)
declare i32 @llvm.ctlz.i32(i32, i1)
declare i64 @llvm.ctlz.i64(i64, i1)
"""

MODES = {"rz": 0, "rp": 2, "rm": 3}  # llvm.set.rounding codes (LangRef "llvm.get.rounding")


def amdgcn():
    out = [f"""; Device support library of the PTX lowering for amdgcn (AMDGPU, LLVM 19). Generated by
; kernels-ir/gen.py; see that file and docs/lowering.md. No ROCm device libraries are needed.
target datalayout = "{AMD_DL}"
target triple = "amdgcn-amd-amdhsa"
"""]
    A = out.append
    A(portable())
    A(wave64.amdgcn_primitives())
    A(wave64.amdgcn_section())
    A(tensor_mem.amdgcn_section())
    A(mma.amdgcn_section())
    A(wmma.amdgcn_section())
    A(mbarrier.amdgcn_section())
    A(mbarrier.amdgcn_primitives())
    A(printf.amdgcn_section())
    # Special registers.
    for c, i in (("x", 0), ("y", 1), ("z", 2)):
        A(f"""define linkonce_odr i32 @__wp_sreg_tid_{c}() {ATTR} {{
  %r = call i32 @llvm.amdgcn.workitem.id.{c}()
  ret i32 %r
}}
define linkonce_odr i32 @__wp_sreg_ctaid_{c}() {ATTR} {{
  %r = call i32 @llvm.amdgcn.workgroup.id.{c}()
  ret i32 %r
}}
; hsa_kernel_dispatch_packet_t: workgroup_size_{c} (u16) at {4 + 2 * i}, grid_size_{c} (u32) at {12 + 4 * i}.
; %nctaid = grid_size / workgroup_size, an exact division: CUDA launches (and the HIP launches
; the shim makes of them) are whole blocks, so LLVM folds %nctaid * %ntid back to grid_size.
define linkonce_odr i32 @__wp_sreg_ntid_{c}() {ATTR} {{
  %d = call ptr addrspace(4) @llvm.amdgcn.dispatch.ptr()
  %p = getelementptr i8, ptr addrspace(4) %d, i64 {4 + 2 * i}
  %v = load i16, ptr addrspace(4) %p, align 2, !invariant.load !0
  %r = zext i16 %v to i32
  ret i32 %r
}}
define linkonce_odr i32 @__wp_sreg_nctaid_{c}() {ATTR} {{
  %d = call ptr addrspace(4) @llvm.amdgcn.dispatch.ptr()
  %p = getelementptr i8, ptr addrspace(4) %d, i64 {12 + 4 * i}
  %g = load i32, ptr addrspace(4) %p, align 4, !invariant.load !0
  %n = call i32 @__wp_sreg_ntid_{c}()
  %r = udiv exact i32 %g, %n
  ret i32 %r
}}
""")
    A(f"""define linkonce_odr i32 @__wp_linear_tid() {ATTR} {{
  %x = call i32 @llvm.amdgcn.workitem.id.x()
  %y = call i32 @llvm.amdgcn.workitem.id.y()
  %z = call i32 @llvm.amdgcn.workitem.id.z()
  %nx = call i32 @__wp_sreg_ntid_x()
  %ny = call i32 @__wp_sreg_ntid_y()
  %zy = mul i32 %z, %ny
  %zyy = add i32 %zy, %y
  %l = mul i32 %zyy, %nx
  %r = add i32 %l, %x
  ret i32 %r
}}
; %clock/%clock64: llvm.readcyclecounter (s_memtime on gfx9; gfx11 has no s_memtime and
; reads HW_REG_SHADER_CYCLES).
define linkonce_odr i64 @__wp_sreg_clock64() {ATTR} {{
  %r = call i64 @llvm.readcyclecounter()
  ret i64 %r
}}
define linkonce_odr i32 @__wp_sreg_clock() {ATTR} {{
  %c = call i64 @llvm.readcyclecounter()
  %r = trunc i64 %c to i32
  ret i32 %r
}}
define linkonce_odr i32 @__wp_sreg_clock_hi() {ATTR} {{
  %c = call i64 @llvm.readcyclecounter()
  %h = lshr i64 %c, 32
  %r = trunc i64 %h to i32
  ret i32 %r
}}
; %globaltimer in ns: llvm.readsteadycounter (s_memrealtime on gfx9, the REALTIME message on
; gfx11) counts at 100 MHz.
define linkonce_odr i64 @__wp_sreg_globaltimer() {ATTR} {{
  %c = call i64 @llvm.readsteadycounter()
  %r = mul i64 %c, 10
  ret i64 %r
}}
define linkonce_odr i32 @__wp_sreg_globaltimer_lo() {ATTR} {{
  %c = call i64 @__wp_sreg_globaltimer()
  %r = trunc i64 %c to i32
  ret i32 %r
}}
define linkonce_odr i32 @__wp_sreg_globaltimer_hi() {ATTR} {{
  %c = call i64 @__wp_sreg_globaltimer()
  %h = lshr i64 %c, 32
  %r = trunc i64 %h to i32
  ret i32 %r
}}
; %smid: HW_ID bits 8..14 (CU_ID, SH_ID, SE_ID): s_getreg_b32 hwreg(HW_REG_HW_ID, 8, 7).
define linkonce_odr i32 @__wp_sreg_smid() {ATTR} {{
  %r = call i32 @llvm.amdgcn.s.getreg(i32 12804)
  ret i32 %r
}}
define linkonce_odr i32 @__wp_sreg_nsmid() {ATTR} {{
  ret i32 128
}}
define linkonce_odr i64 @__wp_sreg_gridid() {ATTR} {{
  %r = call i64 @llvm.amdgcn.dispatch.id()
  ret i64 %r
}}
; group_segment_size (u32) at 28 of the dispatch packet: static + dynamic LDS.
define linkonce_odr i32 @__wp_sreg_total_smem_size() {ATTR} {{
  %d = call ptr addrspace(4) @llvm.amdgcn.dispatch.ptr()
  %p = getelementptr i8, ptr addrspace(4) %d, i64 28
  %r = load i32, ptr addrspace(4) %p, align 4, !invariant.load !0
  ret i32 %r
}}
define linkonce_odr i32 @__wp_sreg_dynamic_smem_size() {ATTR} {{
  %t = call i32 @__wp_sreg_total_smem_size()
  %s = call i32 @llvm.amdgcn.groupstaticsize()
  %r = sub i32 %t, %s
  ret i32 %r
}}
""")
    def post(name, m, t, s):
        """The end of a directed div/sqrt: sqrt scales a tiny input's result back; div
        turns an overflow to infinity into the largest finite value where the rounding goes
        toward zero (the round-to-nearest quotient is infinite there: div.rz of a finite
        quotient above the largest float was infinite when the gfx906 code was executed)."""
        if name == "sqrt":
            down = "0x3DF0000000000000" if s == "f32" else "0x39B0000000000000"
            return f"""  %sc = select i1 %small, {t} {down}, {t} 1.0
  %res2 = fmul {t} %res, %sc
  ret {t} %res2
"""
        mx, nmx = (("0x47EFFFFFE0000000", "0xC7EFFFFFE0000000") if s == "f32"
                   else ("0x7FEFFFFFFFFFFFFF", "0xFFEFFFFFFFFFFFFF"))
        tz = {"rz": "or i1 true, true", "rm": "or i1 %qpos, false", "rp": "xor i1 %qpos, true"}[m]
        it = "i32" if s == "f32" else "i64"
        awz = {"rz": "or i1 false, false", "rm": "or i1 %qneg, false", "rp": "xor i1 %qneg, true"}[m]
        pmin, nmin = (("0x36A0000000000000", "0xB6A0000000000000") if s == "f32"
                      else ("0x0000000000000001", "0x8000000000000001"))
        return f"""  %fa = call {t} @llvm.fabs.{s}({t} %a)
  %fb = call {t} @llvm.fabs.{s}({t} %b)
  %qinf = fcmp oeq {t} %fq, 0x7FF0000000000000
  %afin = fcmp one {t} %fa, 0x7FF0000000000000
  %bfin = fcmp one {t} %fb, 0x7FF0000000000000
  %bnz = fcmp one {t} %b, 0.0
  %ov0 = and i1 %qinf, %afin
  %ov1 = and i1 %ov0, %bfin
  %ovf = and i1 %ov1, %bnz
  %tzs = {tz}
  %clamp = and i1 %ovf, %tzs
  %maxv = select i1 %qpos, {t} {mx}, {t} {nmx}
  %res2 = select i1 %clamp, {t} %maxv, {t} %res
  ; a quotient that rounds to 0 to nearest but is not 0: the smallest denormal of its sign
  ; where the rounding goes away from zero
  %qz = fcmp oeq {t} %q, 0.0
  %anz = fcmp one {t} %a, 0.0
  %qz0 = and i1 %qz, %anz
  %qz1 = and i1 %qz0, %bfin
  %qbits = bitcast {t} %q to {it}
  %qneg = icmp slt {it} %qbits, 0
  %awz = {awz}
  %tiny1 = and i1 %qz1, %awz
  %mind = select i1 %qneg, {t} {nmin}, {t} {pmin}
  %res3 = select i1 %tiny1, {t} %mind, {t} %res2
  ret {t} %res3
"""

    # Directed rounding: switch the MODE register's rounding field around a constrained op.
    for m, code in MODES.items():
        for t, s in (("float", "f32"), ("double", "f64")):
            it = "i32" if s == "f32" else "i64"
            # div and sqrt: AMDGPU has no strict-FP lowering of them, so the directed result
            # is derived from the round-to-nearest one and its exact remainder (fma): move
            # one ulp toward the rounding direction when the true value lies on that side.
            for name, n in (("div", 2), ("sqrt", 1)):
                if name == "div":
                    # The remainder a - q*b is taken with a and q scaled by 2^64 when |a| is
                    # tiny, so that it does not underflow to 0 and lose its sign (denormal
                    # quotients were 1 ulp off when the gfx906 code was executed). f32: b
                    # takes the factor instead of q when |q| >= 1 (then b is tinier than a):
                    # q * 2^64 overflows for a quotient above 2^64 (div.rm 1 ulp off on
                    # gfx1100's random inputs, tests/amdgpu_exec_isa.rs); an f64 quotient of
                    # a tiny a stays below 2^308, finite after the factor 2^200.
                    thr, up = (("0x3C30000000000000", "0x43F0000000000000") if s == "f32"
                               else ("0x1000000000000000", "0x4C70000000000000"))
                    scale = (f"""  %fq0 = call {t} @llvm.fabs.{s}({t} %q)
  %qbig = fcmp oge {t} %fq0, 1.0
  %scq = select i1 %qbig, {t} 1.0, {t} %sc0
  %scb = select i1 %qbig, {t} %sc0, {t} 1.0
  %qs = fmul {t} %q, %scq
  %bs = fmul {t} %b, %scb""" if s == "f32" else f"""  %qs = fmul {t} %q, %sc0""")
                    bs = "%bs" if s == "f32" else "%b"
                    pre = f"""  %q = fdiv {t} %a, %b
  %fa0 = call {t} @llvm.fabs.{s}({t} %a)
  %tiny = fcmp olt {t} %fa0, {thr}
  %sc0 = select i1 %tiny, {t} {up}, {t} 1.0
  %as = fmul {t} %a, %sc0
{scale}
  %nq = fneg {t} %qs
  %r = call {t} @llvm.fma.{s}({t} %nq, {t} {bs}, {t} %as)
  %rp = fcmp ogt {t} %r, 0.0
  %bp = fcmp ogt {t} %b, 0.0
  %above = icmp eq i1 %rp, %bp"""
                    args = f"{t} %a, {t} %b"
                else:
                    # A tiny input is scaled by an even power of two first: otherwise a - q*q
                    # underflows to 0 and the rounding direction is lost (a denormal's sqrt.rz
                    # was 1 ulp high when the gfx906 code was executed, k_f32_div_sqrt).
                    thr, up = (("0x39B0000000000000", "0x43F0000000000000") if s == "f32"
                               else ("0x07B0000000000000", "0x4C70000000000000"))
                    pre = f"""  %small = fcmp olt {t} %a0, {thr}
  %a0s = fmul {t} %a0, {up}
  %a = select i1 %small, {t} %a0s, {t} %a0
  %q = call {t} @llvm.sqrt.{s}({t} %a)
  %nq = fneg {t} %q
  %r = call {t} @llvm.fma.{s}({t} %nq, {t} %q, {t} %a)
  %above = fcmp ogt {t} %r, 0.0"""
                    args = f"{t} %a0"
                want = {"rp": "%above", "rm": "%below", "rz": "%tz"}[m]
                A(f"""define linkonce_odr {t} @__wp_{name}_{m}_{s}({args}) {ATTR} {{
{pre}
  %inexact = fcmp one {t} %r, 0.0
  %below0 = xor i1 %above, true
  %below = and i1 %below0, %inexact
  %qpos = fcmp ogt {t} %q, 0.0
  %tz = select i1 %qpos, i1 %below, i1 %above
  %fq = call {t} @llvm.fabs.{s}({t} %q)
  %fin = fcmp one {t} %fq, 0x7FF0000000000000
  %nz = fcmp one {t} %q, 0.0
  %ok0 = and i1 %fin, %nz
  %ok1 = and i1 %ok0, %inexact
  %move = and i1 %ok1, {want}
  %bits = bitcast {t} %q to {it}
  ; toward zero: magnitude - 1; away from zero: magnitude + 1 (sign-magnitude encoding)
  %away = {"xor i1 %qpos, true" if m == "rm" else "or i1 %qpos, false"}
  %tzm = {"or i1 false, false" if m == "rz" else "or i1 %away, false"}
  %inc = select i1 %tzm, {it} 1, {it} -1
  %nb = add {it} %bits, %inc
  %nv = bitcast {it} %nb to {t}
  %res = select i1 %move, {t} %nv, {t} %q
{post(name, m, t, s)}}}""")
            for op, n in (("fadd", 2), ("fmul", 2), ("fma", 3)):
                args = ", ".join(f"{t} %{c}" for c in "abc"[:n])
                name = {"fadd": "add", "fmul": "mul", "fdiv": "div", "fma": "fma", "sqrt": "sqrt"}[op]
                A(f"""define linkonce_odr {t} @__wp_{name}_{m}_{s}({args}) nounwind strictfp {{
  %old = call i32 @llvm.get.rounding() strictfp
  call void @llvm.set.rounding(i32 {code}) strictfp
  %r = call {t} @llvm.experimental.constrained.{op}.{s}({args}, metadata !"round.dynamic", metadata !"fpexcept.ignore") strictfp
  call void @llvm.set.rounding(i32 %old) strictfp
  ret {t} %r
}}""")
            for conv, sg in (("sitofp", "s"), ("uitofp", "u")):
                for w in (32,):
                    # LLVM 19 expands a strict i32 -> fp conversion on amdgcn as
                    # (2^52 + x) - 2^52 in f64, which rounding down gives -0.0 for x = 0
                    # (cvt.rm of 0 is +0.0: found executing the gfx906 code, k_cvt_i2f).
                    zero_fix = ("  %z = icmp eq i32 %a, 0\n"
                                f"  %r0 = select i1 %z, {t} 0.0, {t} %r\n"
                                f"  ret {t} %r0\n") if m == "rm" else f"  ret {t} %r\n"
                    A(f"""define linkonce_odr {t} @__wp_cvt_{m}_{s}_{sg}{w}(i{w} %a) nounwind strictfp {{
  %old = call i32 @llvm.get.rounding() strictfp
  call void @llvm.set.rounding(i32 {code}) strictfp
  %r = call {t} @llvm.experimental.constrained.{conv}.{s}.i{w}(i{w} %a, metadata !"round.dynamic", metadata !"fpexcept.ignore") strictfp
  call void @llvm.set.rounding(i32 %old) strictfp
{zero_fix}}}""")
        A(f"""define linkonce_odr float @__wp_cvt_{m}_f32_f64(double %a) nounwind strictfp {{
  %old = call i32 @llvm.get.rounding() strictfp
  call void @llvm.set.rounding(i32 {code}) strictfp
  %r = call float @llvm.experimental.constrained.fptrunc.f32.f64(double %a, metadata !"round.dynamic", metadata !"fpexcept.ignore") strictfp
  call void @llvm.set.rounding(i32 %old) strictfp
  ret float %r
}}""")
    cdecls = []
    for t, s in (("float", "f32"), ("double", "f64")):
        cdecls.append(f"declare {t} @llvm.fma.{s}({t}, {t}, {t})")
        cdecls.append(f"declare {t} @llvm.sqrt.{s}({t})")
        cdecls.append(f"declare {t} @llvm.fabs.{s}({t})") if s == "f64" else None
        for op in ("fadd", "fmul"):
            cdecls.append(f"declare {t} @llvm.experimental.constrained.{op}.{s}({t}, {t}, metadata, metadata)")
        cdecls.append(f"declare {t} @llvm.experimental.constrained.fma.{s}({t}, {t}, {t}, metadata, metadata)")
        for conv in ("sitofp", "uitofp"):
            for w in (32,):
                cdecls.append(f"declare {t} @llvm.experimental.constrained.{conv}.{s}.i{w}(i{w}, metadata, metadata)")
    cdecls.append("declare float @llvm.experimental.constrained.fptrunc.f32.f64(double, metadata, metadata)")
    A("\n".join(cdecls))
    A(f"""
{trig_approx("sin")}{trig_approx("cos")}define linkonce_odr float @__wp_lg2_approx_f32(float %a) {ATTR} {{
  %r = call afn float @llvm.log2.f32(float %a)
  ret float %r
}}
define linkonce_odr float @__wp_ex2_approx_f32(float %a) {ATTR} {{
  %r = call afn float @llvm.exp2.f32(float %a)
  ret float %r
}}
; tanh(x) = sign(x) * (1 - 2 / (exp2(2|x| log2 e) + 1)); saturates to +-1 for large |x|.
; Below 2^-2 the formula cancels (4,080 ulp relative error at 2^-8 against the H200's 114:
; f32_approx column 11, raw H200 output), so there tanh's Taylor series to x^9 is used
; (truncation below 2^-26 relative; subnormals returned as they are, as the H200 does).
define linkonce_odr float @__wp_tanh_approx_f32(float %a) {ATTR} {{
  %x = call float @llvm.fabs.f32(float %a)
  %t = fmul afn float %x, 0x4007154760000000
  %e = call afn float @llvm.exp2.f32(float %t)
  %d = fadd afn float %e, 1.0
  %q = fdiv afn float 2.0, %d
  %r0 = fsub afn float 1.0, %q
  %r1 = call float @llvm.copysign.f32(float %r0, float %a)
  %x2 = fmul float %a, %a
  %p0 = call float @llvm.fma.f32(float %x2, float 0x3F9664F480000000, float 0xBFABA1BA20000000)
  %p1 = call float @llvm.fma.f32(float %x2, float %p0, float 0x3FC1111120000000)
  %p2 = call float @llvm.fma.f32(float %x2, float %p1, float 0xBFD5555560000000)
  %p3 = fmul float %x2, %p2
  %p = call float @llvm.fma.f32(float %a, float %p3, float %a)
  %small = fcmp olt float %x, 0x3FD0000000000000
  %r = select i1 %small, float %p, float %r1
  ret float %r
}}
; fma.rn.bf16 rounded once (PTX ISA 9.x §9.7.4.3). LLVM 19 widens a bfloat fma to a binary32
; fma and rounds that again to bfloat: two roundings, which give the even neighbour of a tie the
; exact value only nears (bf16x2 column 6, -2.9375 * -36 + -9e-17: 106 where the H200 gives
; 105.5). Here a*b is exact in binary64, the sum's error is recovered (TwoSum), the sum is
; rounded to odd at binary64 and again at binary32 (both keep the tie information), and the one
; rounding to nearest is the last step's.
define linkonce_odr bfloat @__wp_fma_rn_bf16(bfloat %a, bfloat %b, bfloat %c) {ATTR} {{
  %a64 = fpext bfloat %a to double
  %b64 = fpext bfloat %b to double
  %c64 = fpext bfloat %c to double
  %p = fmul double %a64, %b64
  %s = fadd double %p, %c64
  %bb = fsub double %s, %p
  %t0 = fsub double %s, %bb
  %t1 = fsub double %p, %t0
  %t2 = fsub double %c64, %bb
  %e = fadd double %t1, %t2
  %sb = bitcast double %s to i64
  %eb = bitcast double %e to i64
  %inexact = fcmp one double %e, 0.0
  %sx = xor i64 %sb, %eb
  %away = icmp slt i64 %sx, 0
  %dec = sext i1 %away to i64
  %tr = add i64 %sb, %dec
  %odd = or i64 %tr, 1
  %vb = select i1 %inexact, i64 %odd, i64 %sb
  %v = bitcast i64 %vb to double
  %f = fptrunc double %v to float
  %fe = fpext float %f to double
  %fx = fcmp one double %fe, %v
  %afe = call double @llvm.fabs.f64(double %fe)
  %av = call double @llvm.fabs.f64(double %v)
  %fgt = fcmp ogt double %afe, %av
  %fb = bitcast float %f to i32
  %fdec = sext i1 %fgt to i32
  %ft = add i32 %fb, %fdec
  %fodd = or i32 %ft, 1
  %rb = select i1 %fx, i32 %fodd, i32 %fb
  %r32 = bitcast i32 %rb to float
  %r = fptrunc float %r32 to bfloat
  ret bfloat %r
}}
define linkonce_odr <2 x bfloat> @__wp_fma_rn_v2bf16(<2 x bfloat> %a, <2 x bfloat> %b, <2 x bfloat> %c) {ATTR} {{
  %a0 = extractelement <2 x bfloat> %a, i32 0
  %b0 = extractelement <2 x bfloat> %b, i32 0
  %c0 = extractelement <2 x bfloat> %c, i32 0
  %a1 = extractelement <2 x bfloat> %a, i32 1
  %b1 = extractelement <2 x bfloat> %b, i32 1
  %c1 = extractelement <2 x bfloat> %c, i32 1
  %r0 = call bfloat @__wp_fma_rn_bf16(bfloat %a0, bfloat %b0, bfloat %c0)
  %r1 = call bfloat @__wp_fma_rn_bf16(bfloat %a1, bfloat %b1, bfloat %c1)
  %v0 = insertelement <2 x bfloat> poison, bfloat %r0, i32 0
  %v = insertelement <2 x bfloat> %v0, bfloat %r1, i32 1
  ret <2 x bfloat> %v
}}
; div.approx.f32 is a * (1/b) with 1/b approximated (PTX ISA 9.x §9.7.3.8): subnormal
; operands kept without .ftz (the H200 gives 1.0 for a subnormal over itself: raw H200 outputs
; of f32_approx column 5, bf16 __hdiv), and 0 (NaN for an infinite a) for 2^126 < |b|. A
; subnormal b is scaled by 2^32 into V_RCP_F32's range and the product scaled back.
define linkonce_odr float @__wp_div_approx_f32(float %a, float %b) {ATTR} {{
  %x = call float @llvm.fabs.f32(float %b)
  %lo = fcmp olt float %x, 0x3810000000000000
  %hi = fcmp ogt float %x, 0x47D0000000000000
  %si = select i1 %lo, float 0x41F0000000000000, float 1.0
  %so = select i1 %hi, float 0.0, float %si
  %y = fmul float %b, %si
  %r = call float @llvm.amdgcn.rcp.f32(float %y)
  %p = fmul float %a, %r
  %o = fmul float %p, %so
  ret float %o
}}
; rcp.approx.ftz.f64 as the H200 computes it (the raw H200 output of f64_round's column 25,
; fixtures/gpu/results/raw): the input's low 32 bits ignored, a subnormal input flushed to a
; zero of its sign (so +-inf) and a subnormal result too, a NaN result the canonical
; 0x7fffffff00000000, the result's low 32 bits zero. Its high word is the correctly rounded 1/x
; truncated: the H200's on 5,859 of the 6,144 recorded inputs, one unit of the high word
; (2^-20 relative) off on the others. (LLVM's fast-math 1/x gave NaN for +-0 and +-inf.)
define linkonce_odr double @__wp_rcp_approx_ftz_f64(double %a) {ATTR} {{
{F64_HIGH_WORD_FTZ}  %r = fdiv double 1.0, %xf
  %rb = bitcast double %r to i64
  %rt = and i64 %rb, -4294967296
  %ar = call double @llvm.fabs.f64(double %r)
  %rsub = fcmp olt double %ar, 0x10000000000000
  %rs = and i64 %rb, -9223372036854775808
  %rf = select i1 %rsub, i64 %rs, i64 %rt
  %nan = fcmp uno double %r, 0.0
  %o = select i1 %nan, i64 9223372032559808512, i64 %rf
  %d = bitcast i64 %o to double
  ret double %d
}}
; rcp/sqrt/rsqrt.approx.f32 without .ftz keep subnormal inputs and results (PTX ISA 9.x
; §9.7.3; the H200 does: f32_approx columns 9 and 10, half_approx's bf16 hrsqrt/hsqrt, raw
; H200 outputs in fixtures/gpu/results/raw). V_RCP/V_SQRT/V_RSQ_F32 flush them, so the operand
; is scaled by a power of two into the normal range and the result scaled back (exact, but
; for one rounding of a subnormal result).
define linkonce_odr float @__wp_rcp_approx_f32(float %a) {ATTR} {{
  %x = call float @llvm.fabs.f32(float %a)
  %lo = fcmp olt float %x, 0x3810000000000000
  %hi = fcmp ogt float %x, 0x47D0000000000000
  %s0 = select i1 %hi, float 0x3BF0000000000000, float 1.0
  %s = select i1 %lo, float 0x43F0000000000000, float %s0
  %y = fmul float %a, %s
  %r = call float @llvm.amdgcn.rcp.f32(float %y)
  %o = fmul float %r, %s
  ret float %o
}}
; The .approx.ftz.f32 forms (src/lower/emit/float.rs flushes their inputs and results): the
; hardware instructions, 1 ulp.
define linkonce_odr float @__wp_rcp_approx_ftz_f32(float %a) {ATTR} {{
  %r = call float @llvm.amdgcn.rcp.f32(float %a)
  ret float %r
}}
define linkonce_odr float @__wp_ex2_approx_ftz_f32(float %a) {ATTR} {{
  %r = call float @llvm.amdgcn.exp2.f32(float %a)
  ret float %r
}}
define linkonce_odr float @__wp_lg2_approx_ftz_f32(float %a) {ATTR} {{
  %r = call float @llvm.amdgcn.log.f32(float %a)
  ret float %r
}}
define linkonce_odr float @__wp_sqrt_approx_ftz_f32(float %a) {ATTR} {{
  %r = call float @llvm.amdgcn.sqrt.f32(float %a)
  ret float %r
}}
define linkonce_odr float @__wp_rsqrt_approx_ftz_f32(float %a) {ATTR} {{
  %r = call float @llvm.amdgcn.rsq.f32(float %a)
  ret float %r
}}
declare float @llvm.amdgcn.rcp.f32(float)
declare float @llvm.rint.f32(float)
declare float @llvm.amdgcn.sin.f32(float)
declare float @llvm.amdgcn.cos.f32(float)
declare float @llvm.amdgcn.exp2.f32(float)
declare float @llvm.amdgcn.log.f32(float)
declare float @llvm.amdgcn.sqrt.f32(float)
declare float @llvm.amdgcn.rsq.f32(float)
{scaled_f32_root("sqrt", "sqrt", "0x3EF0000000000000")}{scaled_f32_root("rsqrt", "rsq", "0x40F0000000000000")}; rsqrt.approx.f64: LLVM's fast-math 1/sqrt, with the zeros and +inf the H200 returns (+-0 ->
; +-inf, +inf -> +0: f64_libm column 5, raw H200 output), which the fast-math form makes NaN.
define linkonce_odr double @__wp_rsqrt_approx_f64(double %a) {ATTR} {{
  %s = call afn double @llvm.sqrt.f64(double %a)
  %r0 = fdiv afn double 1.0, %s
  %z = fcmp oeq double %a, 0.0
  %zi = call double @llvm.copysign.f64(double 0x7FF0000000000000, double %a)
  %r1 = select i1 %z, double %zi, double %r0
  %inf = fcmp oeq double %a, 0x7FF0000000000000
  %r = select i1 %inf, double 0.0, double %r1
  ret double %r
}}
; rsqrt.approx.ftz.f64 as the H200 computes it (fixtures/gpu/results/rsqrt_ftz_f64.json): the
; input's low 32 bits ignored, a subnormal input flushed to a zero of its sign (so +-inf), a NaN
; result the canonical 0x7fffffff00000000, the result's low 32 bits zero. Its high word is the
; correctly rounded 1/sqrt truncated; the H200's approximation gives that on 62 of the 64
; recorded inputs and one unit of the high word (2^-20 relative) off on the other 2.
define linkonce_odr double @__wp_rsqrt_approx_ftz_f64(double %a) {ATTR} {{
{F64_HIGH_WORD_FTZ}  %s = call double @llvm.sqrt.f64(double %xf)
  %r = fdiv double 1.0, %s
  %rb = bitcast double %r to i64
  %rt = and i64 %rb, -4294967296
  %nan = fcmp uno double %r, 0.0
  %o = select i1 %nan, i64 9223372032559808512, i64 %rt
  %d = bitcast i64 %o to double
  ret double %d
}}
; bar.sync 0 / barrier.sync: a work-group barrier with workgroup-scope release/acquire, as
; HIP's __syncthreads. Only barrier 0 is lowered on amdgcn (no named barriers). convergent:
; s_barrier counts per wavefront, so a copy of the call on each side of a divergent branch
; (which the optimiser may make of a non-convergent call before inlining it) desynchronises
; the waves (mb_pipeline deadlocked so in the gfx906 interpreter, docs/executed-isa.md).
define linkonce_odr void @__wp_bar_sync(i32 %id) {ATTR_CONV} {{
  fence syncscope("workgroup") release
  call void @llvm.amdgcn.s.barrier()
  fence syncscope("workgroup") acquire
  ret void
}}
define linkonce_odr void @__wp_trap() nounwind {{
  call void @llvm.trap()
  ret void
}}
define linkonce_odr void @__wp_exit() nounwind {{
  call void @llvm.amdgcn.endpgm()
  unreachable
}}
; exit inside a .func: one byte per thread of the CTA (PTX allows 1024), indexed by
; @__wp_linear_tid. The .func sets it and returns; each call of a .func of a module that holds
; such an exit tests it and returns too (src/lower/emit/control.rs), and a kernel that reaches
; one clears it first. s_endpgm there would end every lane of the wavefront.
@__wp_exited = internal addrspace(3) global [1024 x i8] poison, align 4
define linkonce_odr void @__wp_exit_flag_set(i8 %v) {ATTR} {{
  %l = call i32 @__wp_linear_tid()
  %p = getelementptr [1024 x i8], ptr addrspace(3) @__wp_exited, i32 0, i32 %l
  store i8 %v, ptr addrspace(3) %p, align 1
  ret void
}}
define linkonce_odr i1 @__wp_exit_flag() {ATTR} {{
  %l = call i32 @__wp_linear_tid()
  %p = getelementptr [1024 x i8], ptr addrspace(3) @__wp_exited, i32 0, i32 %l
  %v = load i8, ptr addrspace(3) %p, align 1
  %e = icmp ne i8 %v, 0
  ret i1 %e
}}
define linkonce_odr void @__wp_nanosleep(i32 %ns) {ATTR} {{
  call void @llvm.amdgcn.s.sleep(i32 1)
  ret void
}}
; f32 -> f16 conversion of the lowering (cvt.rn.f16.f32 and its packed form): a plain fptrunc
; here. kernels-ir/amdgcn-gfx10plus.ll replaces it for RDNA (see there).
define linkonce_odr half @__wp_cvt_rn_f16_f32(float %x) {ATTR} {{
  %r = fptrunc float %x to half
  ret half %r
}}
; __assertfail(message, file, line, function, charSize): a failed device assert traps.
define linkonce_odr void @__wp_assertfail(i64 %msg, i64 %file, i32 %line, i64 %fn, i64 %cs) nounwind {{
  call void @llvm.trap()
  unreachable
}}

{PORTABLE_DECLS}declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @llvm.amdgcn.workitem.id.y()
declare i32 @llvm.amdgcn.workitem.id.z()
declare i32 @llvm.amdgcn.workgroup.id.x()
declare i32 @llvm.amdgcn.workgroup.id.y()
declare i32 @llvm.amdgcn.workgroup.id.z()
declare ptr addrspace(4) @llvm.amdgcn.dispatch.ptr()
declare i64 @llvm.amdgcn.dispatch.id()
declare i32 @llvm.amdgcn.mbcnt.lo(i32, i32)
declare i32 @llvm.amdgcn.mbcnt.hi(i32, i32)
declare i64 @llvm.readcyclecounter()
declare i64 @llvm.readsteadycounter()
declare i32 @llvm.amdgcn.s.getreg(i32 immarg)
declare i32 @llvm.amdgcn.groupstaticsize()
declare void @llvm.amdgcn.s.barrier()
declare void @llvm.amdgcn.s.sleep(i32 immarg)
declare void @llvm.amdgcn.endpgm()
declare void @llvm.trap()
declare float @llvm.sin.f32(float)
declare float @llvm.cos.f32(float)
declare float @llvm.log2.f32(float)
declare float @llvm.exp2.f32(float)
declare i32 @llvm.get.rounding()
declare void @llvm.set.rounding(i32)

!0 = !{{}}
""")
    return "\n".join(out)


def amdgcn_gfx10plus():
    """The overlay of the amdgcn library for gfx10+ (targets/families/amdgcn.toml,
    `[arch."gfx1*"] ir_overlay`): linked before amdgcn.ll, so its definitions win."""
    return f"""; Overlay of the amdgcn device support library for gfx10+ (RDNA), linked before
; kernels-ir/amdgcn.ll so that its definitions replace the library's. Generated by
; kernels-ir/gen.py; see docs/lowering.md.
target datalayout = "{AMD_DL}"
target triple = "amdgcn-amd-amdhsa"

; LLVM 19's AMDGPU back end selects fptrunc(fmul a, b) and fptrunc(fma a, b, c) to f16 as one
; v_fma_mixlo/mixhi_f16: one rounding instead of two, and fma(a, b, +0) for a product, which
; turns a -0 product into +0. gfx9 builds clear the fma-mix-insts feature (llc
; -mattr=-fma-mix-insts); on gfx10+ the feature belongs to the generation and cannot be
; cleared. Here the converted value passes through llvm.amdgcn.softwqm, a copy in a kernel
; (kernels never run in whole quad mode), which those patterns do not look through. Shown by
; executing the fixtures' gfx1100 code objects (docs/executed-isa.md).
define linkonce_odr half @__wp_cvt_rn_f16_f32(float %x) {ATTR} {{
  %g = call float @llvm.amdgcn.softwqm.f32(float %x)
  %r = fptrunc float %g to half
  ret half %r
}}
declare float @llvm.amdgcn.softwqm.f32(float)
"""


def nvptx():
    out = [f"""; Device support library of the PTX lowering for nvptx (the NVIDIA twin target, LLVM 19).
; Generated by kernels-ir/gen.py; see that file and docs/lowering.md.
target datalayout = "{NV_DL}"
target triple = "nvptx64-nvidia-cuda"
"""]
    A = out.append
    A(portable())
    A(wave64.nvptx_section())
    A(tensor_mem.nvptx_section())
    A(mma.nvptx_section())
    A(wmma.nvptx_section())
    A(mbarrier.nvptx_section())
    for c in "xyz":
        for reg, intr in (("tid", "tid"), ("ntid", "ntid"), ("ctaid", "ctaid"), ("nctaid", "nctaid")):
            A(f"""define linkonce_odr i32 @__wp_sreg_{reg}_{c}() {ATTR} {{
  %r = call i32 @llvm.nvvm.read.ptx.sreg.{intr}.{c}()
  ret i32 %r
}}""")
    asm32 = ["laneid", "warpid", "nwarpid", "lanemask_eq", "lanemask_lt", "lanemask_le", "lanemask_gt",
             "lanemask_ge", "clock", "clock_hi", "globaltimer_lo", "globaltimer_hi", "smid", "nsmid",
             "dynamic_smem_size", "total_smem_size"]
    for r in asm32:
        A(f"""define linkonce_odr i32 @__wp_sreg_{r}() {ATTR} {{
  %r = call i32 asm sideeffect "mov.u32 $0, %{r};", "=r"()
  ret i32 %r
}}""")
    for r in ("clock64", "globaltimer", "gridid"):
        A(f"""define linkonce_odr i64 @__wp_sreg_{r}() {ATTR} {{
  %r = call i64 asm sideeffect "mov.u64 $0, %{r};", "=l"()
  ret i64 %r
}}""")
    # Directed rounding: the PTX instructions themselves (NVVM intrinsics).
    for m in MODES:
        for t, s, l in (("float", "f32", "f"), ("double", "f64", "d")):
            A(f"""define linkonce_odr {t} @__wp_add_{m}_{s}({t} %a, {t} %b) {ATTR} {{
  %r = call {t} @llvm.nvvm.add.{m}.{l}({t} %a, {t} %b)
  ret {t} %r
}}
define linkonce_odr {t} @__wp_mul_{m}_{s}({t} %a, {t} %b) {ATTR} {{
  %r = call {t} @llvm.nvvm.mul.{m}.{l}({t} %a, {t} %b)
  ret {t} %r
}}
define linkonce_odr {t} @__wp_div_{m}_{s}({t} %a, {t} %b) {ATTR} {{
  %r = call {t} @llvm.nvvm.div.{m}.{l}({t} %a, {t} %b)
  ret {t} %r
}}
define linkonce_odr {t} @__wp_fma_{m}_{s}({t} %a, {t} %b, {t} %c) {ATTR} {{
  %r = call {t} @llvm.nvvm.fma.{m}.{l}({t} %a, {t} %b, {t} %c)
  ret {t} %r
}}
define linkonce_odr {t} @__wp_sqrt_{m}_{s}({t} %a) {ATTR} {{
  %r = call {t} @llvm.nvvm.sqrt.{m}.{l}({t} %a)
  ret {t} %r
}}""")
            for sg in ("s", "u"):
                for w in (32,):
                    A(f"""define linkonce_odr {t} @__wp_cvt_{m}_{s}_{sg}{w}(i{w} %a) {ATTR} {{
  %r = call {t} asm "cvt.{m}.{s}.{sg}{w} $0, $1;", "={'f' if s == 'f32' else 'd'},{'r' if w == 32 else 'l'}"(i{w} %a)
  ret {t} %r
}}""")
        A(f"""define linkonce_odr float @__wp_cvt_{m}_f32_f64(double %a) {ATTR} {{
  %r = call float @llvm.nvvm.d2f.{m}(double %a)
  ret float %r
}}""")
    for fn in ("sin", "cos", "lg2", "ex2"):
        A(f"""define linkonce_odr float @__wp_{fn}_approx_f32(float %a) {ATTR} {{
  %r = call float @llvm.nvvm.{fn}.approx.f(float %a)
  ret float %r
}}""")
    A(f"""define linkonce_odr float @__wp_tanh_approx_f32(float %a) {ATTR} {{
  %r = call float asm "tanh.approx.f32 $0, $1;", "=f,f"(float %a)
  ret float %r
}}
define linkonce_odr float @__wp_div_approx_f32(float %a, float %b) {ATTR} {{
  %r = call float @llvm.nvvm.div.approx.f(float %a, float %b)
  ret float %r
}}
define linkonce_odr double @__wp_rcp_approx_ftz_f64(double %a) {ATTR} {{
  %r = call double @llvm.nvvm.rcp.approx.ftz.d(double %a)
  ret double %r
}}
define linkonce_odr float @__wp_rcp_approx_f32(float %a) {ATTR} {{
  %r = call float asm "rcp.approx.f32 $0, $1;", "=f,f"(float %a)
  ret float %r
}}
define linkonce_odr float @__wp_rcp_approx_ftz_f32(float %a) {ATTR} {{
  %r = call float @llvm.nvvm.rcp.approx.ftz.f(float %a)
  ret float %r
}}
define linkonce_odr float @__wp_sqrt_approx_f32(float %a) {ATTR} {{
  %r = call float @llvm.nvvm.sqrt.approx.f(float %a)
  ret float %r
}}
define linkonce_odr float @__wp_rsqrt_approx_f32(float %a) {ATTR} {{
  %r = call float @llvm.nvvm.rsqrt.approx.f(float %a)
  ret float %r
}}
define linkonce_odr double @__wp_rsqrt_approx_f64(double %a) {ATTR} {{
  %r = call double @llvm.nvvm.rsqrt.approx.d(double %a)
  ret double %r
}}
define linkonce_odr double @__wp_rsqrt_approx_ftz_f64(double %a) {ATTR} {{
  %r = call double @llvm.nvvm.rsqrt.approx.ftz.d(double %a)
  ret double %r
}}
define linkonce_odr void @__wp_bar_sync(i32 %id) {ATTR} {{
  call void @llvm.nvvm.barrier.sync(i32 %id)
  ret void
}}
define linkonce_odr void @__wp_bar_sync_cnt(i32 %id, i32 %n) {ATTR} {{
  call void @llvm.nvvm.barrier.sync.cnt(i32 %id, i32 %n)
  ret void
}}
define linkonce_odr void @__wp_bar_arrive_cnt(i32 %id, i32 %n) {ATTR} {{
  call void asm sideeffect "bar.arrive $0, $1;", "r,r,~{{memory}}"(i32 %id, i32 %n)
  ret void
}}
define linkonce_odr void @__wp_trap() nounwind {{
  call void @llvm.trap()
  ret void
}}
define linkonce_odr void @__wp_exit() nounwind {{
  call void asm sideeffect "exit;", ""()
  unreachable
}}
define linkonce_odr void @__wp_nanosleep(i32 %ns) {ATTR} {{
  call void asm sideeffect "nanosleep.u32 $0;", "r"(i32 %ns)
  ret void
}}

{PORTABLE_DECLS}declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.tid.y()
declare i32 @llvm.nvvm.read.ptx.sreg.tid.z()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.y()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.z()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.y()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.z()
declare i32 @llvm.nvvm.read.ptx.sreg.nctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.nctaid.y()
declare i32 @llvm.nvvm.read.ptx.sreg.nctaid.z()
declare float @llvm.nvvm.sin.approx.f(float)
declare float @llvm.nvvm.cos.approx.f(float)
declare float @llvm.nvvm.lg2.approx.f(float)
declare float @llvm.nvvm.ex2.approx.f(float)
declare void @llvm.nvvm.barrier.sync(i32)
declare float @llvm.nvvm.div.approx.f(float, float)
declare double @llvm.nvvm.rcp.approx.ftz.d(double)
declare float @llvm.nvvm.rcp.approx.ftz.f(float)
declare float @llvm.nvvm.sqrt.approx.f(float)
declare float @llvm.nvvm.rsqrt.approx.f(float)
declare double @llvm.nvvm.rsqrt.approx.d(double)
declare double @llvm.nvvm.rsqrt.approx.ftz.d(double)
declare void @llvm.nvvm.barrier.sync.cnt(i32, i32)
declare void @llvm.trap()
""")
    decls = []
    for m in MODES:
        for t, l in (("float", "f"), ("double", "d")):
            decls += [f"declare {t} @llvm.nvvm.{op}.{m}.{l}({t}, {t})" for op in ("add", "mul", "div")]
            decls.append(f"declare {t} @llvm.nvvm.fma.{m}.{l}({t}, {t}, {t})")
            decls.append(f"declare {t} @llvm.nvvm.sqrt.{m}.{l}({t})")
        decls.append(f"declare float @llvm.nvvm.d2f.{m}(double)")
    A("\n".join(decls) + "\n")
    return "\n".join(out)


def bar_red(attr=ATTR):
    """bar.red.popc / .and / .or (PTX ISA 9.x §9.7.13.1 bar.red): every thread of the CTA
    takes part; the count of threads whose predicate is true is accumulated in one shared
    (addrspace 3) word between CTA barriers. Written identically into both libraries but for
    the function attributes (`attr`: convergent in amdgcn.ll, as @__wp_bar_sync); it calls
    each library's @__wp_bar_sync and @__wp_sreg_* functions."""
    return f"""; ---- bar.red: target-independent IR over @__wp_bar_sync, identical in both files ----
@__wp_bar_red_acc = internal addrspace(3) global i32 poison, align 4
define linkonce_odr i32 @__wp_bar_red_popc(i32 %id, i1 %p) {attr} {{
entry:
  %tx = call i32 @__wp_sreg_tid_x()
  %ty = call i32 @__wp_sreg_tid_y()
  %tz = call i32 @__wp_sreg_tid_z()
  %o1 = or i32 %tx, %ty
  %o2 = or i32 %o1, %tz
  %first = icmp eq i32 %o2, 0
  ; the previous bar.red's readers are done before the word is reset
  call void @__wp_bar_sync(i32 %id)
  br i1 %first, label %reset, label %count0
reset:
  store i32 0, ptr addrspace(3) @__wp_bar_red_acc, align 4
  br label %count0
count0:
  call void @__wp_bar_sync(i32 %id)
  br i1 %p, label %add, label %count1
add:
  %old = atomicrmw add ptr addrspace(3) @__wp_bar_red_acc, i32 1 monotonic, align 4
  br label %count1
count1:
  call void @__wp_bar_sync(i32 %id)
  %r = load i32, ptr addrspace(3) @__wp_bar_red_acc, align 4
  ret i32 %r
}}
define linkonce_odr i1 @__wp_bar_red_or(i32 %id, i1 %p) {ATTR} {{
  %n = call i32 @__wp_bar_red_popc(i32 %id, i1 %p)
  %r = icmp ne i32 %n, 0
  ret i1 %r
}}
define linkonce_odr i1 @__wp_bar_red_and(i32 %id, i1 %p) {ATTR} {{
  %np = xor i1 %p, true
  %n = call i32 @__wp_bar_red_popc(i32 %id, i1 %np)
  %r = icmp eq i32 %n, 0
  ret i1 %r
}}
; ---- end bar.red ----
"""


def named_bar():
    """Named and counted barriers on amdgcn: bar{.cta}.sync/.arrive a, b and
    barrier{.cta}.sync/.arrive a{, b} (PTX ISA 9.x §9.7.13.1), every form but barrier 0
    without a count (which is s_barrier, @__wp_bar_sync). gfx9 has one hardware barrier per
    work-group, so these are software barriers in LDS, one 32-bit word per barrier id
    (@__wp_nbar[id & 15]): bits 0..15 the arrivals of the current phase (in threads), bits
    16..31 the phase. The ISA counts arrivals per warp ("marks warps' arrival"): each PTX warp
    (half wavefront, docs/warp-model.md) with an active lane adds 32, by one atomic add of the
    wavefront's first active lane. The arrival that brings the count to b ends the phase: it
    writes count 0 and the next phase (b is at most 1024, so 16 bits hold it); sync waits
    until the phase word changes, with @__wp_spin_pause between loads. A release fence
    before the arrival and an acquire fence after the wait give bar.sync's memory ordering
    among the participating threads (workgroup scope). LDS is not zeroed at dispatch:
    @__wp_nbar_init (thread 0 zeroes the words, then s_barrier) is called first thing by
    every kernel that reaches one of these barriers (src/lower/emit/functions.rs).
    Not modelled: two PTX warps of one wavefront reaching the same barrier on different
    sides of a divergent branch (the wavefront runs one side first and waits there: a
    deadlock that NVIDIA's independent warps do not have)."""
    return f"""; ---- named and counted barriers (amdgcn): software barriers in LDS ----
@__wp_nbar = internal addrspace(3) global [16 x i32] poison, align 4
define linkonce_odr void @__wp_nbar_init() {ATTR_CONV} {{
entry:
  %l = call i32 @__wp_linear_tid()
  %first = icmp ult i32 %l, 16
  br i1 %first, label %zero, label %done
zero:
  %p = getelementptr [16 x i32], ptr addrspace(3) @__wp_nbar, i32 0, i32 %l
  store i32 0, ptr addrspace(3) %p, align 4
  br label %done
done:
  call void @__wp_bar_sync(i32 0)
  ret void
}}
; One arrival of this wavefront's active PTX warps on barrier %id of %n threads; returns the
; word before it (a waiter waits while the word's phase is that word's).
define linkonce_odr i32 @__wp_nbar_arrive(i32 %id, i32 %n) {ATTR_CONV} {{
entry:
  %i = and i32 %id, 15
  %p = getelementptr [16 x i32], ptr addrspace(3) @__wp_nbar, i32 0, i32 %i
  fence syncscope("workgroup") release
  %b = call i64 @llvm.amdgcn.ballot.i64(i1 true)
  %lo = trunc i64 %b to i32
  %hi64 = lshr i64 %b, 32
  %hi = trunc i64 %hi64 to i32
  %lo_on = icmp ne i32 %lo, 0
  %hi_on = icmp ne i32 %hi, 0
  %kl = select i1 %lo_on, i32 32, i32 0
  %kh = select i1 %hi_on, i32 32, i32 0
  %k = add i32 %kl, %kh
  %m0 = call i32 @llvm.amdgcn.mbcnt.lo(i32 %lo, i32 0)
  %m = call i32 @llvm.amdgcn.mbcnt.hi(i32 %hi, i32 %m0)
  %leader = icmp eq i32 %m, 0
  br i1 %leader, label %add, label %joined
add:
  %o = atomicrmw add ptr addrspace(3) %p, i32 %k syncscope("workgroup") acq_rel, align 4
  br label %joined
joined:
  %ol = phi i32 [ %o, %add ], [ 0, %entry ]
  %old = call i32 @llvm.amdgcn.readfirstlane.i32(i32 %ol)
  %cnt = and i32 %old, 65535
  %now = add i32 %cnt, %k
  %ends = icmp uge i32 %now, %n
  br i1 %ends, label %end, label %out
end:
  br i1 %leader, label %flip, label %out
flip:
  %ph = and i32 %old, -65536
  %next = add i32 %ph, 65536
  store atomic i32 %next, ptr addrspace(3) %p syncscope("workgroup") release, align 4
  br label %out
out:
  ret i32 %old
}}
define linkonce_odr void @__wp_bar_arrive_cnt(i32 %id, i32 %n) {ATTR_CONV} {{
  %s = call i32 @__wp_nbar_arrive(i32 %id, i32 %n)
  ret void
}}
define linkonce_odr void @__wp_bar_sync_cnt(i32 %id, i32 %n) {ATTR_CONV} {{
entry:
  %s = call i32 @__wp_nbar_arrive(i32 %id, i32 %n)
  %i = and i32 %id, 15
  %p = getelementptr [16 x i32], ptr addrspace(3) @__wp_nbar, i32 0, i32 %i
  %ph = and i32 %s, -65536
  br label %spin
spin:
  %w = load atomic i32, ptr addrspace(3) %p syncscope("workgroup") acquire, align 4
  %wph = and i32 %w, -65536
  %same = icmp eq i32 %wph, %ph
  br i1 %same, label %pause, label %done
pause:
  call void @__wp_spin_pause()
  br label %spin
done:
  fence syncscope("workgroup") acquire
  ret void
}}
; bar.sync a (a named barrier without a count): every thread of the CTA.
define linkonce_odr void @__wp_bar_sync_named(i32 %id) {ATTR_CONV} {{
  %n = call i32 @__wp_ntid_total()
  call void @__wp_bar_sync_cnt(i32 %id, i32 %n)
  ret void
}}
define linkonce_odr i32 @__wp_ntid_total() {ATTR} {{
  %x = call i32 @__wp_sreg_ntid_x()
  %y = call i32 @__wp_sreg_ntid_y()
  %z = call i32 @__wp_sreg_ntid_z()
  %xy = mul i32 %x, %y
  %t = mul i32 %xy, %z
  %t31 = add i32 %t, 31
  %r = and i32 %t31, -32
  ret i32 %r
}}
declare i32 @llvm.amdgcn.readfirstlane.i32(i32)
; ---- end named and counted barriers ----
"""


if __name__ == "__main__":
    import sys
    # `gen.py [OUT_DIR]`: write the libraries into OUT_DIR (default: kernels-ir/ itself).
    out = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT
    (out / "amdgcn.ll").write_text(amdgcn() + "\n" + bar_red(ATTR_CONV) + "\n" + named_bar())
    (out / "nvptx.ll").write_text(nvptx() + "\n" + bar_red())
    (out / "amdgcn-gfx10plus.ll").write_text(amdgcn_gfx10plus())
