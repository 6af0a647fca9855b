//! A printer of decoded instructions in LLVM's AMDGPU assembly syntax, so that the decoder
//! can be compared, instruction by instruction, with `llvm-objdump -d` (the tests do that on
//! every code object they run). Only the syntax of the forms the decoder reads is covered.

use crate::decode::{Inst, SGPR_M0, SGPR_NULL, SRC_LITERAL, VGPR0};
use crate::isa::{Arch, Fmt, Op, Reg, Role};
use std::fmt::Write as _;

fn reg_range(prefix: &str, n: u16, w: u8) -> String {
    if prefix == "v" && n >= 256 {
        return reg_range("a", n - 256, w);
    }
    if w <= 1 {
        format!("{prefix}{n}")
    } else {
        format!("{prefix}[{}:{}]", n, n + w as u16 - 1)
    }
}

/// A scalar register or special operand code (< 128, the decoder's numbering) of width `w`
/// dwords; gfx11 has s102-s105 where gfx9 has FLAT_SCRATCH and XNACK_MASK.
fn sreg(code: u16, w: u8, a: Arch) -> String {
    let pair = |lo: &str, hi: &str, all: &str| -> String {
        match (code & 1, w) {
            (0, 2) => all.to_string(),
            (0, _) => lo.to_string(),
            _ => hi.to_string(),
        }
    };
    match code {
        0..=105 if a.is_gfx11() => reg_range("s", code, w),
        0..=101 => reg_range("s", code, w),
        102 | 103 => pair("flat_scratch_lo", "flat_scratch_hi", "flat_scratch"),
        104 | 105 => pair("xnack_mask_lo", "xnack_mask_hi", "xnack_mask"),
        106 | 107 => pair("vcc_lo", "vcc_hi", "vcc"),
        108..=123 => reg_range("ttmp", code - 108, w),
        SGPR_M0 => "m0".into(),
        SGPR_NULL => "null".into(),
        126 | 127 => pair("exec_lo", "exec_hi", "exec"),
        _ => format!("<sreg {code}>"),
    }
}

fn fconst(code: u16, w: u8) -> Option<&'static str> {
    Some(match code {
        240 => "0.5",
        241 => "-0.5",
        242 => "1.0",
        243 => "-1.0",
        244 => "2.0",
        245 => "-2.0",
        246 => "4.0",
        247 => "-4.0",
        248 if w == 2 => "0.15915494309189532",
        248 => "0.15915494",
        _ => return None,
    })
}

/// A 9-bit source operand of width `w` dwords on `a`; `lit` is the instruction's literal.
pub fn src(code: u16, w: u8, lit: u32, a: Arch) -> String {
    match code {
        0..=127 => sreg(code, w, a),
        128..=192 => format!("{}", code - 128),
        193..=208 => format!("-{}", code - 192),
        235 => "src_shared_base".into(),
        236 => "src_shared_limit".into(),
        237 => "src_private_base".into(),
        238 => "src_private_limit".into(),
        239 => "src_pops_exiting_wave_id".into(),
        240..=248 => fconst(code, w).unwrap().into(),
        251 => "src_vccz".into(),
        252 => "src_execz".into(),
        253 => "src_scc".into(),
        254 => "src_lds_direct".into(),
        SRC_LITERAL if w == 1 && (-16..=64).contains(&(lit as i32)) => format!("{}", lit as i32),
        SRC_LITERAL if w == 2 && lit <= 64 => format!("{lit}"),
        SRC_LITERAL => format!("0x{lit:x}"),
        c if c >= VGPR0 => reg_range("v", c - VGPR0, w),
        c => format!("<src {c}>"),
    }
}

fn hwreg(imm: i32, a: Arch) -> String {
    let id = imm & 0x3f;
    let off = (imm >> 6) & 0x1f;
    let size = ((imm >> 11) & 0x1f) + 1;
    let gfx11_absent = a.is_gfx11() && matches!(id, 4 | 15..=22 | 25);
    let name = match id {
        _ if gfx11_absent => format!("{id}"),
        1 => "HW_REG_MODE".to_string(),
        2 => "HW_REG_STATUS".to_string(),
        3 => "HW_REG_TRAPSTS".to_string(),
        4 => "HW_REG_HW_ID".to_string(),
        5 => "HW_REG_GPR_ALLOC".to_string(),
        6 => "HW_REG_LDS_ALLOC".to_string(),
        7 => "HW_REG_IB_STS".to_string(),
        15 => "HW_REG_SH_MEM_BASES".to_string(),
        16 => "HW_REG_TBA_LO".to_string(),
        17 => "HW_REG_TBA_HI".to_string(),
        18 => "HW_REG_TMA_LO".to_string(),
        19 => "HW_REG_TMA_HI".to_string(),
        20 => "HW_REG_FLAT_SCR_LO".to_string(),
        21 => "HW_REG_FLAT_SCR_HI".to_string(),
        22 => "HW_REG_XNACK_MASK".to_string(),
        23 => "HW_REG_HW_ID1".to_string(),
        24 => "HW_REG_HW_ID2".to_string(),
        25 => "HW_REG_POPS_PACKER".to_string(),
        29 => "HW_REG_SHADER_CYCLES".to_string(),
        n => format!("{n}"),
    };
    if off == 0 && size == 32 {
        format!("hwreg({name})")
    } else {
        format!("hwreg({name}, {off}, {size})")
    }
}

fn waitcnt(imm: i32, a: Arch) -> String {
    // gfx9: vmcnt [3:0] + [15:14], expcnt [6:4], lgkmcnt [11:8];
    // gfx11: vmcnt [15:10], expcnt [2:0], lgkmcnt [9:4]
    let (vm, exp, lgkm, lgkm_max) = if a.is_gfx11() {
        ((imm >> 10) & 0x3f, imm & 0x7, (imm >> 4) & 0x3f, 63)
    } else {
        (
            (imm & 0xf) | ((imm >> 10) & 0x30),
            (imm >> 4) & 0x7,
            (imm >> 8) & 0xf,
            15,
        )
    };
    let mut parts = Vec::new();
    if vm != 63 {
        parts.push(format!("vmcnt({vm})"));
    }
    if exp != 7 {
        parts.push(format!("expcnt({exp})"));
    }
    if lgkm != lgkm_max {
        parts.push(format!("lgkmcnt({lgkm})"));
    }
    if parts.is_empty() {
        format!("vmcnt(63) expcnt(7) lgkmcnt({lgkm_max})")
    } else {
        parts.join(" ")
    }
}

/// gfx11 `s_delay_alu` (RDNA3 ISA §4.5): INSTID0 [3:0], INSTSKIP [6:4], INSTID1 [10:7].
fn delay_alu(imm: i32) -> String {
    let id = |v: i32| -> String {
        match v {
            0 => "NO_DEP".into(),
            1..=4 => format!("VALU_DEP_{v}"),
            5..=7 => format!("TRANS32_DEP_{}", v - 4),
            8 => "FMA_ACCUM_CYCLE_1".into(),
            9..=11 => format!("SALU_CYCLE_{}", v - 8),
            v => format!("{v}"),
        }
    };
    let skip = |v: i32| -> String {
        match v {
            0 => "SAME".into(),
            1 => "NEXT".into(),
            v => format!("SKIP_{}", v - 1),
        }
    };
    let (i0, sk, i1) = (imm & 0xf, (imm >> 4) & 7, (imm >> 7) & 0xf);
    let mut parts = vec![format!("instid0({})", id(i0))];
    if sk != 0 {
        parts.push(format!("instskip({})", skip(sk)));
    }
    if i1 != 0 {
        parts.push(format!("instid1({})", id(i1)));
    }
    parts.join(" | ")
}

/// gfx11 message names (`s_sendmsg`, `s_sendmsg_rtn_*`).
fn sendmsg(id: i32, rtn: bool) -> String {
    let name = match (rtn, id) {
        (false, 1) => "MSG_INTERRUPT",
        (false, 3) => "MSG_DEALLOC_VGPRS",
        (true, 0x80) => "MSG_RTN_GET_DOORBELL",
        (true, 0x81) => "MSG_RTN_GET_DDID",
        (true, 0x82) => "MSG_RTN_GET_TMA",
        (true, 0x83) => "MSG_RTN_GET_REALTIME",
        (true, 0x84) => "MSG_RTN_SAVE_WAVE",
        (true, 0x85) => "MSG_RTN_GET_TBA",
        _ => return format!("sendmsg({id})"),
    };
    format!("sendmsg({name})")
}

const SEL: [&str; 7] = [
    "BYTE_0", "BYTE_1", "BYTE_2", "BYTE_3", "WORD_0", "WORD_1", "DWORD",
];
const UNUSED: [&str; 3] = ["UNUSED_PAD", "UNUSED_SEXT", "UNUSED_PRESERVE"];

fn is_float_op(name: &str) -> bool {
    name.contains("_f16") || name.contains("_f32") || name.contains("_f64")
}

/// The instruction in LLVM's syntax for processor `a` (mnemonic, operands, modifiers), as
/// `llvm-objdump -d` prints it before its `//` comment (gfx11: with
/// `--mattr=+wavefrontsize64`).
pub fn print(i: &Inst, a: Arch) -> String {
    let gfx940 = a.is_gfx940();
    let sreg = |c: u16, w: u8| sreg(c, w, a);
    let src = |c: u16, w: u8, lit: u32| src(c, w, lit, a);
    let row = i.row;
    let mut s = String::from(row.name);
    if i.sdwa.is_some() {
        s = s.trim_end_matches("_e32").to_string() + "_sdwa";
    }
    let mut ops: Vec<String> = Vec::new();
    let float = is_float_op(row.name);
    // VOP3 / SDWA source modifiers
    let modsrc = |k: usize, text: String| -> String {
        let (neg, abs, sext) = match i.sdwa {
            Some(d) if k < 2 => (d.neg[k], d.abs[k], d.sext[k]),
            _ if matches!(row.fmt, Fmt::Vop3) => (i.neg >> k & 1 != 0, i.abs >> k & 1 != 0, false),
            _ if matches!(row.fmt, Fmt::Vop3p) && row.name.starts_with("v_fma_mix") => {
                (i.neg >> k & 1 != 0, i.neg_hi >> k & 1 != 0, false)
            }
            _ => (false, false, false),
        };
        let mut t = text;
        if abs {
            t = format!("|{t}|");
        }
        if neg {
            t = format!("-{t}");
        }
        if sext {
            t = format!("sext({t})");
        }
        t
    };
    match row.fmt {
        Fmt::Sopp => {
            let imm = i.imm;
            match i.op {
                Op::S_ENDPGM
                | Op::S_BARRIER
                | Op::S_WAKEUP
                | Op::S_ICACHE_INV
                | Op::S_ENDPGM_SAVED
                | Op::S_TTRACEDATA
                | Op::S_SET_GPR_IDX_OFF
                | Op::S_ENDPGM_ORDERED_PS_DONE => {
                    if imm != 0 && i.op == Op::S_ENDPGM {
                        ops.push(format!("{imm}"));
                    }
                }
                Op::S_WAITCNT => ops.push(waitcnt(imm, a)),
                Op::S_DELAY_ALU => ops.push(delay_alu(imm)),
                Op::S_SENDMSG if a.is_gfx11() => ops.push(sendmsg(imm, false)),
                Op::S_CODE_END => {}
                Op::S_WAITCNT_DEPCTR
                | Op::S_CLAUSE
                | Op::S_SET_INST_PREFETCH_DISTANCE
                | Op::S_ROUND_MODE => ops.push(format!("0x{:x}", imm as u16)),
                _ => ops.push(format!("{}", imm as u16)),
            }
        }
        Fmt::Sopk => match i.op {
            Op::S_GETREG_B32 => {
                ops.push(sreg(i.sdst, 1));
                ops.push(hwreg(i.imm, a));
            }
            Op::S_SETREG_B32 => {
                ops.push(hwreg(i.imm, a));
                ops.push(sreg(i.sdst, 1));
            }
            Op::S_SETREG_IMM32_B32 => {
                ops.push(hwreg(i.imm, a));
                ops.push(if i.lit <= 64 {
                    format!("{}", i.lit)
                } else {
                    format!("0x{:x}", i.lit)
                });
            }
            _ => {
                ops.push(sreg(i.sdst, row.width(Role::Vdst)));
                ops.push(format!("0x{:x}", i.imm));
            }
        },
        Fmt::Smem => {
            for &(r, w, _) in row.ops {
                match r {
                    Role::Sdata => ops.push(sreg(i.sdst, w)),
                    Role::Sbase => ops.push(sreg(i.sbase, w)),
                    _ => {}
                }
            }
            if row.has(Role::Sbase) && a.is_gfx11() {
                // gfx11: the SOFFSET register (NULL when absent) and an immediate offset
                match (i.soe, i.imm) {
                    (true, 0) => ops.push(sreg(i.saddr, 1)),
                    (true, o) => ops.push(format!("{} offset:0x{:x}", sreg(i.saddr, 1), o)),
                    (false, 0) => ops.push("null".into()),
                    (false, o) => ops.push(format!("0x{o:x}")),
                }
            } else if row.has(Role::Sbase) {
                if i.flag {
                    ops.push(format!("0x{:x}", i.imm));
                } else {
                    ops.push(sreg(i.saddr, 1));
                }
            }
            if i.glc {
                s.push(' ');
            }
        }
        Fmt::Sop1 if matches!(i.op, Op::S_SENDMSG_RTN_B32 | Op::S_SENDMSG_RTN_B64) => {
            ops.push(sreg(i.sdst, row.width(Role::Vdst)));
            ops.push(sendmsg(i.src[0] as i32, true));
        }
        Fmt::Sop1 | Fmt::Sop2 | Fmt::Sopc => {
            for &(r, w, _) in row.ops {
                match r {
                    Role::Vdst => ops.push(sreg(i.sdst, w)),
                    Role::Src0 => ops.push(src(i.src[0], w, i.lit)),
                    Role::Src1 => ops.push(src(i.src[1], w, i.lit)),
                    _ => {}
                }
            }
        }
        Fmt::Vop1 | Fmt::Vop2 | Fmt::Vopc | Fmt::Vop3 | Fmt::Vop3p => {
            for &(r, w, kind) in row.ops {
                match r {
                    Role::Vdst => ops.push(match kind {
                        Reg::S => sreg(i.vdst, w),
                        Reg::A => reg_range("a", i.vdst, w),
                        Reg::V => reg_range("v", i.vdst, w),
                    }),
                    Role::Sdst => ops.push(sreg(i.sdst, w)),
                    Role::Vcc => match (row.fmt, i.sdwa.and_then(|d| d.sdst)) {
                        (Fmt::Vopc, Some(sd)) => ops.push(sreg(sd, 2)),
                        _ => ops.push("vcc".into()),
                    },
                    Role::Src0 | Role::Src1 | Role::Src2 => {
                        let k = match r {
                            Role::Src0 => 0,
                            Role::Src1 => 1,
                            _ => 2,
                        };
                        let code = i.src[k];
                        let base = row.name.trim_end_matches("_e64").trim_end_matches("_e32");
                        let t = if kind == Reg::A && code >= VGPR0 {
                            reg_range("a", code - VGPR0, w)
                        } else if code == SRC_LITERAL && a.is_gfx11() && base.ends_with("16") {
                            // a 16-bit operand's literal prints as 16 bits
                            src(code, w, i.lit & 0xffff)
                        } else {
                            src(code, w, i.lit)
                        };
                        ops.push(modsrc(k, t));
                    }
                    Role::Literal => ops.push(format!("0x{:x}", i.lit)),
                    _ => {}
                }
            }
            if let Some(d) = i.sdwa {
                if d.clamp {
                    s.push_str(" clamp");
                }
                match d.omod {
                    1 => s.push_str(" mul:2"),
                    2 => s.push_str(" mul:4"),
                    3 => s.push_str(" div:2"),
                    _ => {}
                }
            }
        }
        Fmt::Ds => {
            for &(r, w, _) in row.ops {
                match r {
                    Role::Vdst => ops.push(reg_range("v", i.vdst, w)),
                    Role::Addr => ops.push(reg_range("v", i.addr, w)),
                    Role::Data0 => ops.push(reg_range("v", i.data0, w)),
                    Role::Data1 => ops.push(reg_range("v", i.data1, w)),
                    _ => {}
                }
            }
        }
        Fmt::Scratch => {
            let vaddr = if a.hw_flat_scratch() {
                i.flag
            } else {
                i.saddr == 0x7f
            };
            let w = row.width(if row.has(Role::Vdst) {
                Role::Vdst
            } else {
                Role::Data
            });
            let load = row.has(Role::Vdst);
            if load {
                ops.push(reg_range("v", i.vdst, w));
            }
            ops.push(if vaddr {
                reg_range("v", i.addr, 1)
            } else {
                "off".into()
            });
            if !load {
                ops.push(reg_range("v", i.data0, w));
            }
            ops.push(if i.saddr == 0x7f {
                "off".into()
            } else {
                src(i.saddr, 1, 0)
            });
        }
        Fmt::Flat | Fmt::Global => {
            let atomic = row.name.contains("_atomic_");
            let returns = i.glc || !atomic;
            if atomic && i.glc && !row.has(Role::Vdst) {
                let w = row.width(Role::Data);
                let w = if row.name.contains("cmpswap") {
                    w / 2
                } else {
                    w
                };
                ops.push(reg_range("v", i.vdst, w));
            }
            for &(r, w, _) in row.ops {
                match r {
                    Role::Vdst if returns => ops.push(reg_range("v", i.vdst, w)),
                    Role::Addr => {
                        let vaddr = match row.fmt {
                            Fmt::Scratch if a.hw_flat_scratch() => i.flag,
                            Fmt::Scratch => i.saddr == 0x7f,
                            _ => true,
                        };
                        ops.push(if vaddr {
                            reg_range("v", i.addr, w)
                        } else {
                            "off".into()
                        })
                    }
                    Role::Data => ops.push(reg_range("v", i.data0, w)),
                    Role::Saddr => ops.push(if i.saddr == 0x7f {
                        "off".into()
                    } else {
                        src(i.saddr, w, 0)
                    }),
                    _ => {}
                }
            }
            if row.fmt != Fmt::Flat && !row.has(Role::Saddr) {
                ops.push("off".into());
            }
        }
        Fmt::Mubuf => {
            for &(r, w, _) in row.ops {
                match r {
                    Role::Vdata => ops.push(reg_range("v", i.data0, w)),
                    Role::Vaddr => ops.push(if i.offen || i.idxen {
                        let w = if i.offen && i.idxen { 2 } else { 1 };
                        reg_range("v", i.addr, w)
                    } else {
                        "off".into()
                    }),
                    Role::Srsrc => ops.push(sreg(i.sbase, 4)),
                    Role::Soffset => ops.push(src(i.saddr, 1, 0)),
                    _ => {}
                }
            }
        }
    }
    let mut out = s;
    if !ops.is_empty() {
        out.push(' ');
        out.push_str(&ops.join(", "));
    }
    // trailing modifiers
    match row.fmt {
        Fmt::Vop3 => {
            if !row.has(Role::Sdst) && i.opsel != 0 {
                let n = [Role::Src0, Role::Src1, Role::Src2]
                    .iter()
                    .filter(|r| row.has(**r))
                    .count();
                let mut v: Vec<String> = (0..n).map(|k| format!("{}", i.opsel >> k & 1)).collect();
                if row.has(Role::Vdst) {
                    v.push(format!("{}", i.opsel >> 3 & 1));
                }
                let _ = write!(out, " op_sel:[{}]", v.join(","));
            }
            if i.clamp {
                out.push_str(" clamp");
            }
            match i.omod {
                1 => out.push_str(" mul:2"),
                2 => out.push_str(" mul:4"),
                3 => out.push_str(" div:2"),
                _ => {}
            }
        }
        Fmt::Vop3p => {
            let n = [Role::Src0, Role::Src1, Role::Src2]
                .iter()
                .filter(|r| row.has(**r))
                .count();
            let mix = row.name.starts_with("v_fma_mix");
            let list = |v: u8| -> String {
                (0..n)
                    .map(|k| format!("{}", v >> k & 1))
                    .collect::<Vec<_>>()
                    .join(",")
            };
            let full = (1u8 << n) - 1;
            if i.opsel & full != 0 {
                let _ = write!(out, " op_sel:[{}]", list(i.opsel));
            }
            let default_hi = if mix { 0 } else { full };
            if i.opsel_hi & full != default_hi {
                let _ = write!(out, " op_sel_hi:[{}]", list(i.opsel_hi));
            }
            if !mix {
                if i.neg & full != 0 {
                    let _ = write!(out, " neg_lo:[{}]", list(i.neg));
                }
                if i.neg_hi & full != 0 {
                    let _ = write!(out, " neg_hi:[{}]", list(i.neg_hi));
                }
            }
            if i.clamp {
                out.push_str(" clamp");
            }
        }
        Fmt::Ds => {
            if row.name.contains("2_") || row.name.contains("2st64") || row.name.contains("_2addr")
            {
                if i.imm != 0 {
                    let _ = write!(out, " offset0:{}", i.imm);
                }
                if i.offset1 != 0 {
                    let _ = write!(out, " offset1:{}", i.offset1);
                }
            } else {
                let off = i.imm as u32 | (i.offset1 as u32) << 8;
                if off != 0 && row.base == Op::DS_SWIZZLE_B32 {
                    let _ = write!(out, " offset:{}", swizzle(off as u16));
                } else if off != 0 {
                    let _ = write!(out, " offset:{off}");
                }
            }
            if i.gds {
                out.push_str(" gds");
            }
        }
        Fmt::Flat | Fmt::Global | Fmt::Scratch => {
            if i.imm != 0 {
                let _ = write!(out, " offset:{}", i.imm);
            }
            cache_bits(&mut out, i, gfx940);
        }
        Fmt::Mubuf if a.is_gfx11() => {}
        Fmt::Mubuf => {
            if i.offen {
                out.push_str(" offen");
            }
            if i.idxen {
                out.push_str(" idxen");
            }
            if i.imm != 0 {
                let _ = write!(out, " offset:{}", i.imm);
            }
            cache_bits(&mut out, i, gfx940);
        }
        Fmt::Smem if i.glc || i.dlc => {
            out = out.trim_end().to_string();
            if i.glc {
                out.push_str(" glc");
            }
            if i.dlc {
                out.push_str(" dlc");
            }
        }
        _ => {}
    }
    if let Some(d) = i.sdwa {
        if row.fmt != Fmt::Vopc {
            let _ = write!(
                out,
                " dst_sel:{} dst_unused:{}",
                SEL.get(d.dst_sel as usize).unwrap_or(&"?"),
                UNUSED.get(d.dst_unused as usize).unwrap_or(&"?")
            );
        }
        let _ = write!(
            out,
            " src0_sel:{}",
            SEL.get(d.sel[0] as usize).unwrap_or(&"?")
        );
        if row.fmt != Fmt::Vop1 {
            let _ = write!(
                out,
                " src1_sel:{}",
                SEL.get(d.sel[1] as usize).unwrap_or(&"?")
            );
        }
    }
    let _ = float;
    out
}

fn cache_bits(out: &mut String, i: &Inst, gfx940: bool) {
    if gfx940 {
        if i.glc {
            out.push_str(" sc0");
        }
        if i.slc {
            out.push_str(" nt");
        }
        if i.sc1 {
            out.push_str(" sc1");
        }
    } else {
        if i.glc {
            out.push_str(" glc");
        }
        if i.slc {
            out.push_str(" slc");
        }
        if i.dlc {
            out.push_str(" dlc");
        }
    }
}

/// A `ds_swizzle_b32` offset as LLVM prints it (`AMDGPUInstPrinter::printSwizzle`): bit 15
/// set, QUAD_PERM with four 2-bit lanes; clear, BITMASK_PERM's and/or/xor masks (bits 0-4,
/// 5-9, 10-14) named SWAP, REVERSE or BROADCAST where they are one, else the five mask
/// characters (`0`, `1`, `p` preserve, `i` invert, most significant first).
fn swizzle(imm: u16) -> String {
    if imm & 0xff00 == 0x8000 {
        let l: Vec<String> = (0..4).map(|k| ((imm >> (2 * k)) & 3).to_string()).collect();
        return format!("swizzle(QUAD_PERM,{})", l.join(","));
    }
    if imm & 0x8000 != 0 {
        return imm.to_string();
    }
    let (and, or, xor) = (imm & 0x1f, (imm >> 5) & 0x1f, (imm >> 10) & 0x1f);
    if and == 0x1f && or == 0 && xor.count_ones() == 1 {
        format!("swizzle(SWAP,{xor})")
    } else if and == 0x1f && or == 0 && xor > 0 && (xor + 1).is_power_of_two() {
        format!("swizzle(REVERSE,{})", xor + 1)
    } else {
        let group = 0x1f - and + 1;
        if group > 1 && group.is_power_of_two() && or < group && xor == 0 {
            format!("swizzle(BROADCAST,{group},{or})")
        } else {
            let p0 = or ^ xor;
            let p1 = ((0x1f & and) | or) ^ xor;
            let m: String = (0..5)
                .rev()
                .map(|b| match (p0 >> b & 1, p1 >> b & 1) {
                    (1, 1) => '1',
                    (0, 0) => '0',
                    (0, _) => 'p',
                    _ => 'i',
                })
                .collect();
            format!("swizzle(BITMASK_PERM,\"{m}\")")
        }
    }
}
