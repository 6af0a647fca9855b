#!/usr/bin/env python3
"""Writes tools/amdgpu-exec/src/tables.rs: the opcode tables of the gfx9 (gfx906, gfx942)
and gfx11 (gfx1100, wave64) encodings, read off LLVM 19's AMDGPU disassembler.

Run from the repository root: `python3 tools/amdgpu-exec/gen/isa_tables.py [LLVM_BIN [OUT]]`
(LLVM_BIN: the directory of LLVM 19's llvm-mc; OUT: default the committed table).

For every microcode format of the Vega 7nm ISA (AMD, "Vega 7nm Instruction Set Architecture",
chapter 12 "Microcode Formats"; the MI300 ISA keeps the same formats) and every value of its
opcode field, one instruction word is built with fixed register fields (src0 = 10, src1 = 20,
src2 = 30, vdst = 40, sdst = 50, in VGPR or SGPR form as the format takes) and given to
`llvm-mc --disassemble`. What LLVM prints is recorded: the mnemonic and, for every operand,
which field it came from (by the register number) and how many dwords wide it is. Opcodes
LLVM does not decode are absent. The executor takes semantics from the ISA documents; these
tables only name the opcodes and give operand widths (what the disassembly printer and the
operand fetch need).

gfx11 (AMD, "RDNA3 Instruction Set Architecture", ch. 16 "Microcode Formats") keeps the
SOP*, VOP1/VOP2/VOPC layouts, moves VOP3 to prefix 110101 and VOP3P to 11001100, and
re-lays SMEM, DS, FLAT and MUBUF; it renames many operations. A gfx11 row keeps LLVM's
gfx11 mnemonic and names, as its operation, the gfx9 operation of the same semantics
(RENAMED below), so the executor has one implementation of each.

tests/amdgpu_exec_decode.rs runs this script again and compares its output with the
committed file.
"""
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ARCHS = ["gfx906", "gfx942", "gfx1100"]

S0, S1, S2, VD, SD = 10, 20, 30, 40, 50
V = 256  # VGPR base in a 9-bit source field


def words(*ws):
    return b"".join(w.to_bytes(4, "little") for w in ws)


def variants(base0, base1, fields, lit=False):
    """Instruction words with every subset of `fields` ((dword, shift, value), ...) set,
    the fullest first (LLVM decodes an unused field only when it is zero), and optionally
    a trailing literal dword."""
    out = []
    n = len(fields)
    for mask in sorted(range(1 << n), key=lambda m: -bin(m).count("1")):
        w = [base0, base1]
        for k, (d, sh, v) in enumerate(fields):
            if mask >> k & 1:
                w[d] |= v << sh
        ws = [w[0]] if base1 is None else w
        out.append(words(*ws))
        if lit:
            out.append(words(*ws, 0x12345678))
    return out


def candidates(arch):
    """(format, op, variant, bytes) for every opcode of every format; an opcode has
    several candidates of one variant (fields zeroed), the first LLVM decodes counts."""
    if arch.startswith("gfx11"):
        return candidates_gfx11()
    out = []

    def add(fmt, op, var, vs):
        out.extend((fmt, op, var, b) for b in vs)

    for op in range(96):
        add("SOP2", op, 0, variants(0x80000000 | op << 23, None,
                                    [(0, 16, VD), (0, 8, S1), (0, 0, S0)], lit=True))
    for op in range(29):
        add("SOPK", op, 0, variants(0xB0000000 | op << 23, None,
                                    [(0, 16, VD), (0, 0, 0x0010)], lit=True))
    for op in range(256):
        add("SOP1", op, 0, variants(0xBE800000 | op << 8, None, [(0, 16, VD), (0, 0, S0)]))
    for op in range(128):
        add("SOPC", op, 0, variants(0xBF000000 | op << 16, None, [(0, 8, S1), (0, 0, S0)]))
    for op in range(128):
        add("SOPP", op, 0, variants(0xBF800000 | op << 16, None, [(0, 0, 0x0003)]))
    for op in range(256):
        add("SMEM", op, 0, variants(0xC0000000 | op << 18, 0,
                                    [(0, 17, 1), (0, 6, VD), (0, 0, S0 // 2), (1, 0, 0x10)]))
    for op in range(62):
        add("VOP2", op, 0, variants(op << 25, None,
                                    [(0, 17, VD), (0, 9, S1), (0, 0, V + S0)], lit=True))
    for op in range(256):
        add("VOP1", op, 0, variants(0x7E000000 | op << 9, None, [(0, 17, VD), (0, 0, V + S0)]))
    for op in range(256):
        add("VOPC", op, 0, variants(0x7C000000 | op << 17, None, [(0, 9, S1), (0, 0, V + S0)]))
    # VOP3: sources as VGPRs or SGPRs (some operands take only one kind); candidates with
    # more fields set come first whatever their register kinds
    def vop3(base0, base1, extra):
        vs = []
        for kinds in range(8):
            f = [(1, 9 * k, (0 if kinds >> k & 1 else V) + (S0, S1, S2)[k]) for k in range(3)]
            for rank, b in enumerate(variants(base0, base1, [(0, 0, VD)] + extra + f)):
                vs.append((rank, kinds, b))
        vs.sort(key=lambda t: (t[0], t[1]))
        return list(dict.fromkeys(b for _, _, b in vs))
    for op in range(0x380):
        add("VOP3", op, 0, vop3(0xD0000000 | op << 16, 0, []))
    for op in range(128):
        add("VOP3P", op, 0, vop3(0xD3800000 | op << 16, 3 << 27, [(0, 14, 1)]))
    for op in range(256):
        add("DS", op, 0, variants(0xD8000000 | op << 17, 0,
                                  [(1, 24, VD), (1, 16, S2), (1, 8, S1), (1, 0, S0)]))
    for seg, name in ((0, "FLAT"), (1, "SCRATCH"), (2, "GLOBAL")):
        for op in range(128):
            for var, sa in ((0, 0x7F), (1, SD)):
                if seg == 0 and var:
                    continue
                vs = variants(0xDC000000 | op << 18 | seg << 14, sa << 16,
                              [(1, 24, VD), (1, 8, S1), (1, 0, S0)])
                if seg == 0:
                    vs += variants(0xDC000000 | op << 18, 0, [(1, 24, VD), (1, 8, S1), (1, 0, S0)])
                add(name, op, var, vs)
    for op in range(128):
        add("MUBUF", op, 0, variants(0xE0000000 | op << 18, 0,
                                     [(0, 12, 1), (1, 8, VD), (1, 16, 2), (1, 24, SD), (1, 0, S0)]))
    return out


def candidates_gfx11():
    """The gfx11 encodings (RDNA3 ISA ch. 16)."""
    out = []

    def add(fmt, op, var, vs):
        out.extend((fmt, op, var, b) for b in vs)

    for op in range(96):
        add("SOP2", op, 0, variants(0x80000000 | op << 23, None,
                                    [(0, 16, VD), (0, 8, S1), (0, 0, S0)], lit=True))
    for op in range(32):
        add("SOPK", op, 0, variants(0xB0000000 | op << 23, None,
                                    [(0, 16, VD), (0, 0, 0x0010)], lit=True))
    for op in range(256):
        add("SOP1", op, 0, variants(0xBE800000 | op << 8, None, [(0, 16, VD), (0, 0, S0)]))
    for op in range(128):
        add("SOPC", op, 0, variants(0xBF000000 | op << 16, None, [(0, 8, S1), (0, 0, S0)]))
    for op in range(128):
        add("SOPP", op, 0, variants(0xBF800000 | op << 16, None, [(0, 0, 0x0003)]))
    # SMEM: soffset NULL (0x7c), immediate offset 0x10
    for op in range(256):
        add("SMEM", op, 0, variants(0xF4000000 | op << 18, 0xF8000010,
                                    [(0, 6, VD), (0, 0, S0 // 2)]))
    for op in range(64):
        add("VOP2", op, 0, variants(op << 25, None,
                                    [(0, 17, VD), (0, 9, S1), (0, 0, V + S0)], lit=True))
    for op in range(256):
        add("VOP1", op, 0, variants(0x7E000000 | op << 9, None, [(0, 17, VD), (0, 0, V + S0)]))
    for op in range(256):
        add("VOPC", op, 0, variants(0x7C000000 | op << 17, None, [(0, 9, S1), (0, 0, V + S0)]))

    def vop3(base0, base1, extra, vd=True):
        vs = []
        for kinds in range(8):
            f = [(1, 9 * k, (0 if kinds >> k & 1 else V) + (S0, S1, S2)[k]) for k in range(3)]
            dst = [(0, 0, VD)] if vd else []
            for rank, b in enumerate(variants(base0, base1, dst + extra + f)):
                vs.append((rank, kinds, b))
        vs.sort(key=lambda t: (t[0], t[1]))
        return list(dict.fromkeys(b for _, _, b in vs))
    for op in range(0x400):
        vs = vop3(0xD4000000 | op << 16, 0, [])
        if op < 0x100:
            # VOPCX in VOP3 form: the destination field holds EXEC_LO (LLVM decodes no other)
            vs += vop3(0xD4000000 | op << 16 | 0x7E, 0, [], vd=False)
        add("VOP3", op, 0, vs)
    for op in range(128):
        add("VOP3P", op, 0, vop3(0xCC000000 | op << 16, 3 << 27, [(0, 14, 1)]))
    for op in range(256):
        add("DS", op, 0, variants(0xD8000000 | op << 18, 0,
                                  [(1, 24, VD), (1, 16, S2), (1, 8, S1), (1, 0, S0)]))
    # FLAT: saddr 0x7c is "off"; scratch's SVE bit (23) says a VGPR address is present
    for seg, name in ((0, "FLAT"), (1, "SCRATCH"), (2, "GLOBAL")):
        for op in range(128):
            for var, sa in ((0, 0x7C), (1, SD)):
                if seg == 0 and var:
                    continue
                sve = 1 << 23 if seg == 1 else 0
                vs = variants(0xDC000000 | op << 18 | seg << 16, sa << 16 | sve,
                              [(1, 24, VD), (1, 8, S1), (1, 0, S0)])
                add(name, op, var, vs)
    for op in range(256):
        add("MUBUF", op, 0, variants(0xE0000000 | op << 18, 0,
                                     [(1, 8, VD), (1, 16, 2), (1, 24, SD), (1, 0, S0)]))
    return out


# gfx11 operations that gfx9 names differently (same semantics): gfx11 name -> gfx9 name.
# Memory operations keep their gfx11 names (crate::memop reads either spelling).
RENAMED = {
    "v_add_co_ci_u32": "v_addc_co_u32", "v_sub_co_ci_u32": "v_subb_co_u32",
    "v_subrev_co_ci_u32": "v_subbrev_co_u32",
    "v_add_nc_u32": "v_add_u32", "v_sub_nc_u32": "v_sub_u32", "v_subrev_nc_u32": "v_subrev_u32",
    "v_add_nc_i32": "v_add_i32", "v_sub_nc_i32": "v_sub_i32",
    "v_add_nc_u16": "v_add_u16", "v_sub_nc_u16": "v_sub_u16",
    "v_add_nc_i16": "v_add_i16", "v_sub_nc_i16": "v_sub_i16",
    "v_cls_i32": "v_ffbh_i32", "v_clz_i32_u32": "v_ffbh_u32", "v_ctz_i32_b32": "v_ffbl_b32",
    "s_clz_i32_u32": "s_flbit_i32_b32", "s_cls_i32": "s_flbit_i32",
    "s_ctz_i32_b32": "s_ff1_i32_b32", "s_ctz_i32_b64": "s_ff1_i32_b64",
    "s_clz_i32_u64": "s_flbit_i32_b64", "s_cls_i32_i64": "s_flbit_i32_i64",
    "s_and_not1_b32": "s_andn2_b32", "s_and_not1_b64": "s_andn2_b64",
    "s_or_not1_b32": "s_orn2_b32", "s_or_not1_b64": "s_orn2_b64",
    "s_and_not1_saveexec_b32": "s_andn2_saveexec_b32",
    "s_and_not1_saveexec_b64": "s_andn2_saveexec_b64",
    "s_or_not1_saveexec_b32": "s_orn2_saveexec_b32",
    "s_or_not1_saveexec_b64": "s_orn2_saveexec_b64",
    "s_load_b32": "s_load_dword", "s_load_b64": "s_load_dwordx2",
    "s_load_b128": "s_load_dwordx4", "s_load_b256": "s_load_dwordx8",
    "s_load_b512": "s_load_dwordx16",
}


REG = re.compile(r"^(-?)\|?([svt]|ttmp|acc|a)(?:(\d+)|\[(\d+):(\d+)\])\|?$")


def operands(text):
    """Split LLVM's operand text at top-level commas."""
    ops, depth, cur = [], 0, ""
    for ch in text:
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
        if ch == "," and depth == 0:
            ops.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        ops.append(cur.strip())
    return ops


def role_of(fmt, kind, base):
    """The field a printed register came from, by its number."""
    table = {S0: "src0", S1: "src1", S2: "src2", VD: "vdst", SD: "sdst"}
    if fmt == "VOP3" and kind == "s" and base == 0:
        return "sdst"
    if fmt in ("DS",):
        table = {S0: "addr", S1: "data0", S2: "data1", VD: "vdst"}
    if fmt in ("FLAT", "SCRATCH", "GLOBAL"):
        table = {S0: "addr", S1: "data", VD: "vdst", SD: "saddr"}
    if fmt == "MUBUF":
        table = {S0: "vaddr", VD: "vdata", 8: "srsrc", SD: "soffset"}
    if fmt == "SMEM":
        table = {S0: "sbase", VD: "sdata"}
    return table.get(base)


def disassemble(llvm_bin, arch, cands):
    mattr = ["-mattr=+wavefrontsize64"] if arch.startswith("gfx1") else []
    # s_mov_b32 s0, <literal i>
    marker = lambda i: words(0xBE8000FF, 0x10000000 | i)  # never an inline constant
    lines = []
    for i, (_, _, _, b) in enumerate(cands):
        lines.append(",".join("0x%02x" % x for x in marker(i)))
        lines.append(",".join("0x%02x" % x for x in b))
    p = subprocess.run([os.path.join(llvm_bin, "llvm-mc"), "--disassemble",
                        "-triple=amdgcn-amd-amdhsa", "-mcpu=" + arch, "-show-encoding"] + mattr,
                       input="\n".join(lines) + "\n", capture_output=True, text=True)
    out = {}
    cur = None
    for line in p.stdout.splitlines():
        m = re.match(r"\s+(\S+)\s*(.*?)\s*; encoding: \[(.*)\]", line)
        if not m:
            continue
        enc = bytes(int(x, 16) for x in m.group(3).split(","))
        if len(enc) == 8 and enc[:4] == bytes([0xFF, 0x00, 0x80, 0xBE]):
            cur = int.from_bytes(enc[4:], "little") & 0xFFFFFFF
            continue
        if cur is None:
            continue
        i = cur
        cur = None
        cand = cands[i]
        if len(enc) < 4 or enc[:4] != cand[3][:4][:len(enc[:4])]:
            # The disassembler resynchronised inside an invalid candidate.
            if enc[:4] != cand[3][:4]:
                continue
        out[i] = (m.group(1), m.group(2))
    return out


def analyse(fmt, mnem, text):
    """Per operand: (role, dwords) for registers, or the literal text for the rest."""
    res = []
    # modifiers after the operand list (offset:, op_sel:, clamp, off...) are dropped
    text = re.split(r"\s(?=offset|offen|idxen|glc|slc|op_sel|clamp|lds|gds|dlc|sc0|sc1|nt)", text)[0]
    for o in operands(text):
        o1 = o.split(" ")[0]
        m = REG.match(o1)
        if o1 == "vcc" and fmt == "VOP3":
            res.append(("sdst", 2, "S"))
            continue
        if m and m.group(3) is not None:
            base, w = int(m.group(3)), 1
        elif m and m.group(4) is not None:
            base, w = int(m.group(4)), int(m.group(5)) - int(m.group(4)) + 1
        else:
            res.append(("lit:" + o1, 0))
            continue
        r = role_of(fmt, m.group(2), base)
        if r is None:
            res.append(("lit:" + o1, w))
        else:
            res.append((r, w, {"v": "V", "s": "S", "a": "A", "acc": "A"}.get(m.group(2), "S")))
    return res


ROLES = {"vdst": "Vdst", "sdst": "Sdst", "src0": "Src0", "src1": "Src1", "src2": "Src2",
         "addr": "Addr", "data0": "Data0", "data1": "Data1", "data": "Data", "saddr": "Saddr",
         "vaddr": "Vaddr", "vdata": "Vdata", "srsrc": "Srsrc", "soffset": "Soffset",
         "sbase": "Sbase", "sdata": "Sdata"}
FMTS = {"SOP2": "Sop2", "SOPK": "Sopk", "SOP1": "Sop1", "SOPC": "Sopc", "SOPP": "Sopp",
        "SMEM": "Smem", "VOP2": "Vop2", "VOP1": "Vop1", "VOPC": "Vopc", "VOP3": "Vop3",
        "VOP3P": "Vop3p", "DS": "Ds", "FLAT": "Flat", "SCRATCH": "Scratch", "GLOBAL": "Global",
        "MUBUF": "Mubuf"}


def base_name(m):
    b = re.sub(r"_(e32|e64|sdwa|dpp)$", "", m)
    return RENAMED.get(b, b)


def main():
    llvm_bin = sys.argv[1] if len(sys.argv) > 1 else "/usr/lib/llvm-19/bin"
    path = sys.argv[2] if len(sys.argv) > 2 else os.path.join(ROOT, "src", "tables.rs")
    tables = {}
    for arch in ARCHS:
        cands = candidates(arch)
        got = disassemble(llvm_bin, arch, cands)
        rows = []
        seen = set()
        for i, (fmt, op, var, _) in enumerate(cands):
            if i not in got or (fmt, op, var) in seen:
                continue
            if "Invalid" in got[i][1] and any(
                    j in got and "Invalid" not in got[j][1]
                    for j in range(i + 1, min(i + 2048, len(cands))) if cands[j][:3] == (fmt, op, var)):
                continue
            seen.add((fmt, op, var))
            mnem, text = got[i]
            ops = []
            for a in analyse(fmt, mnem, text):
                r = a[0]
                if r in ROLES:
                    ops.append((ROLES[r], a[1], a[2]))
                elif r in ("lit:0xbe8000ff", "lit:0x12345678"):
                    ops.append(("Literal", 1, "S"))
                elif r == "lit:vcc":
                    ops.append(("Vcc", 2, "S"))
            rows.append((fmt, op, var, mnem, ops))
        tables[arch] = rows
    names = sorted({base_name(r[3]) for rows in tables.values() for r in rows})
    out = ["// @generated by tools/amdgpu-exec/gen/isa_tables.py from LLVM 19's AMDGPU disassembler.",
           "// Do not edit; tests/amdgpu_exec_decode.rs checks that it is current.",
           "//! Opcode tables: per architecture and microcode format, the opcode number, LLVM's",
           "//! mnemonic, the operation and the printed operands (field, width in dwords).",
           "",
           "use crate::isa::{Fmt, OpRow, Reg, Role};",
           "",
           "/// Every operation of the tables (the mnemonic without its encoding suffix).",
           "#[allow(non_camel_case_types, missing_docs)]",
           "#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]",
           "pub enum Op {"]
    for n in names:
        out.append("    %s," % n.upper())
    out.append("}")
    out.append("")
    for arch in ARCHS:
        rows = tables[arch]
        out.append("/// The %s table (%d rows)." % (arch, len(rows)))
        out.append("pub static %s: &[OpRow] = &[" % arch.upper())
        for fmt, op, var, mnem, ops in rows:
            ol = ", ".join("(Role::%s, %d, Reg::%s)" % o for o in ops)
            out.append('    OpRow { fmt: Fmt::%s, op: %d, var: %d, name: "%s", base: Op::%s, ops: &[%s] },'
                       % (FMTS[fmt], op, var, mnem, base_name(mnem).upper(), ol))
        out.append("];")
        out.append("")
    open(path, "w").write("\n".join(out))
    print("wrote", path)


if __name__ == "__main__":
    main()
