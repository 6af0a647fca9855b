//! The gfx9 instruction decoder: instruction words to [`Inst`].
//!
//! Field layouts follow AMD's "Vega 7nm Instruction Set Architecture" (ch. 12, "Microcode
//! Formats": SOP2, SOPK, SOP1, SOPC, SOPP, SMEM, VOP2, VOP1, VOPC, VOP3A/B, VOP3P, SDWA, DS,
//! MUBUF, FLAT/GLOBAL/SCRATCH) and, for gfx942, the MI300 ISA's same formats (its cache
//! bits `sc0`/`sc1`/`nt` and the scratch `sve` bit). gfx1100 follows AMD's "RDNA3
//! Instruction Set Architecture" (ch. 16 "Microcode Formats": SMEM, VOP3 with literals,
//! VOP3P, DS, FLAT/GLOBAL/SCRATCH and MUBUF moved fields; SGPR codes 124 NULL and 125 M0,
//! which the decoder renumbers to the gfx9 codes [`SGPR_NULL`] and [`SGPR_M0`] so the
//! executor sees one numbering). Opcode numbers come from [`crate::tables`]. DPP, SDWA on
//! gfx11, MTBUF, MIMG, EXP, VINTRP, VOPD and gfx11 MUBUF memory accesses are not decoded
//! (no code object wheelport builds uses them): they give a [`DecodeError`].

use crate::isa::{Arch, Fmt, Op, OpRow, Role};
use crate::memop::{classify, MemOp};
use std::collections::HashMap;
use std::fmt;

/// Source-operand code of a literal constant (the dword after the instruction).
pub const SRC_LITERAL: u16 = 255;
/// Source-operand code of SDWA (the dword after a VOP1/VOP2/VOPC word).
pub const SRC_SDWA: u16 = 249;
/// Source-operand code of DPP.
pub const SRC_DPP: u16 = 250;
/// First VGPR in a 9-bit source field.
pub const VGPR0: u16 = 256;
/// SGPR-space code of M0 (gfx9 numbering; gfx11's 125 is renumbered to it).
pub const SGPR_M0: u16 = 124;
/// SGPR-space code of NULL (reads 0, writes are dropped): gfx11's 124, renumbered to the
/// code gfx9 reserves.
pub const SGPR_NULL: u16 = 125;

/// The SDWA (sub-dword addressing) dword of a VOP1/VOP2/VOPC instruction
/// (Vega ISA §12.7 "SDWA").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Sdwa {
    /// DST_SEL: 0-3 byte, 4-5 word, 6 dword.
    pub dst_sel: u8,
    /// DST_UNUSED: 0 pad with zeros, 1 sign-extend, 2 preserve.
    pub dst_unused: u8,
    /// Clamp.
    pub clamp: bool,
    /// Output modifier.
    pub omod: u8,
    /// Selects of src0, src1 (as DST_SEL).
    pub sel: [u8; 2],
    /// Sign-extend the selected part (integer operations).
    pub sext: [bool; 2],
    /// Negate (float operations).
    pub neg: [bool; 2],
    /// Absolute value (float operations).
    pub abs: [bool; 2],
    /// VOPC: the SGPR pair written instead of VCC, if any.
    pub sdst: Option<u16>,
}

/// One decoded instruction.
#[derive(Debug, Clone, Copy)]
pub struct Inst {
    /// The opcode table row.
    pub row: &'static OpRow,
    /// The operation.
    pub op: Op,
    /// Length in bytes (4, 8 or 12).
    pub len: u8,
    /// Sources as 9-bit operand codes (SGPR/constant < 256, VGPR = 256 + n).
    pub src: [u16; 3],
    /// Destination register number (VGPR n, or SGPR code n where the row says so).
    pub vdst: u16,
    /// Scalar destination (SOP formats, VOP3b carry out, SMEM sdata).
    pub sdst: u16,
    /// The literal constant, if [`Inst::has_lit`].
    pub lit: u32,
    /// Whether a literal dword follows.
    pub has_lit: bool,
    /// SOPK/SOPP 16-bit immediate (raw), SMEM/MUBUF/FLAT/DS offset (sign-extended where the
    /// format's offset is signed).
    pub imm: i32,
    /// VOP3 ABS bits per source.
    pub abs: u8,
    /// VOP3/VOP3P NEG bits per source (low halves for VOP3P).
    pub neg: u8,
    /// VOP3P NEG_HI bits.
    pub neg_hi: u8,
    /// VOP3 OPSEL / VOP3P OP_SEL bits.
    pub opsel: u8,
    /// VOP3P OP_SEL_HI bits.
    pub opsel_hi: u8,
    /// Clamp.
    pub clamp: bool,
    /// Output modifier (1: ×2, 2: ×4, 3: ÷2).
    pub omod: u8,
    /// The SDWA dword, if any.
    pub sdwa: Option<Sdwa>,
    /// GLC (gfx940: sc0).
    pub glc: bool,
    /// SLC (gfx940: nt on FLAT/MUBUF).
    pub slc: bool,
    /// gfx940 sc1.
    pub sc1: bool,
    /// MUBUF OFFEN.
    pub offen: bool,
    /// MUBUF IDXEN.
    pub idxen: bool,
    /// DS GDS.
    pub gds: bool,
    /// DS OFFSET1.
    pub offset1: u8,
    /// DS/FLAT address VGPR, MUBUF VADDR. (Data and destination registers of memory
    /// instructions with the gfx90a+ ACC bit are AGPRs, numbered from 256 in `vdst`,
    /// `data0`, `data1`.)
    pub addr: u16,
    /// DS DATA0 / FLAT DATA / MUBUF VDATA VGPR.
    pub data0: u16,
    /// DS DATA1 VGPR.
    pub data1: u16,
    /// FLAT SADDR (0x7f: off), MUBUF SOFFSET (operand code), SMEM SOFFSET.
    pub saddr: u16,
    /// MUBUF SRSRC first SGPR; SMEM SBASE first SGPR.
    pub sbase: u16,
    /// SMEM IMM; gfx940 and gfx11 scratch SVE (a VGPR address is present).
    pub flag: bool,
    /// SMEM: the SGPR `saddr` is added to the immediate offset (gfx11 SOFFSET not NULL).
    pub soe: bool,
    /// gfx11 DLC (FLAT, SMEM).
    pub dlc: bool,
    /// The shape of a memory instruction ([`MemOp::OTHER`] for the rest).
    pub mem: MemOp,
}

/// An instruction the decoder cannot read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodeError {
    /// Byte offset of the instruction.
    pub pc: u64,
    /// Its first word.
    pub word: u32,
    /// Why.
    pub reason: String,
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "cannot decode the instruction at 0x{:x} (word 0x{:08x}): {}",
            self.pc, self.word, self.reason
        )
    }
}

impl std::error::Error for DecodeError {}

/// Opcode lookup for one processor.
pub struct Decoder {
    arch: Arch,
    index: HashMap<(Fmt, u16, u8), &'static OpRow>,
}

fn bits(w: u32, lo: u32, n: u32) -> u32 {
    (w >> lo) & ((1u32 << n) - 1)
}

fn sext(v: u32, n: u32) -> i32 {
    ((v << (32 - n)) as i32) >> (32 - n)
}

fn blank(row: &'static OpRow) -> Inst {
    Inst {
        row,
        op: row.base,
        len: 4,
        src: [0; 3],
        vdst: 0,
        sdst: 0,
        lit: 0,
        has_lit: false,
        imm: 0,
        abs: 0,
        neg: 0,
        neg_hi: 0,
        opsel: 0,
        opsel_hi: 0,
        clamp: false,
        omod: 0,
        sdwa: None,
        glc: false,
        slc: false,
        sc1: false,
        offen: false,
        idxen: false,
        gds: false,
        offset1: 0,
        addr: 0,
        data0: 0,
        data1: 0,
        saddr: 0,
        sbase: 0,
        flag: false,
        soe: false,
        dlc: false,
        mem: MemOp::OTHER,
    }
}

impl Decoder {
    /// The decoder of `arch`.
    pub fn new(arch: Arch) -> Decoder {
        let mut index = HashMap::new();
        for r in arch.table() {
            index.insert((r.fmt, r.op, r.var), r);
        }
        Decoder { arch, index }
    }

    /// The processor.
    pub fn arch(&self) -> Arch {
        self.arch
    }

    /// Decode the instruction at the start of `code` (`pc` names it in errors).
    ///
    /// # Errors
    /// A [`DecodeError`] for a truncated instruction, a format this decoder does not read,
    /// or an opcode the table does not have.
    pub fn decode(&self, code: &[u8], pc: u64) -> Result<Inst, DecodeError> {
        let word = |i: usize| -> Option<u32> {
            code.get(4 * i..4 * i + 4)
                .map(|b| u32::from_le_bytes(b.try_into().unwrap()))
        };
        let Some(w0) = word(0) else {
            return Err(DecodeError {
                pc,
                word: 0,
                reason: "truncated (fewer than 4 bytes)".into(),
            });
        };
        let err = |reason: &str| DecodeError {
            pc,
            word: w0,
            reason: reason.to_string(),
        };
        let need = |i: usize| word(i).ok_or_else(|| err("truncated instruction"));
        if self.arch.is_gfx11() {
            return self.decode_gfx11(w0, &need, &err);
        }
        let (fmt, op) = if w0 >> 31 == 0 {
            match w0 >> 25 {
                0x3e => (Fmt::Vopc, bits(w0, 17, 8)),
                0x3f => (Fmt::Vop1, bits(w0, 9, 8)),
                o => (Fmt::Vop2, o),
            }
        } else if w0 >> 30 == 0b10 {
            match w0 >> 23 {
                0x17d => (Fmt::Sop1, bits(w0, 8, 8)),
                0x17e => (Fmt::Sopc, bits(w0, 16, 7)),
                0x17f => (Fmt::Sopp, bits(w0, 16, 7)),
                _ if w0 >> 28 == 0xb => (Fmt::Sopk, bits(w0, 23, 5)),
                _ => (Fmt::Sop2, bits(w0, 23, 7)),
            }
        } else {
            match w0 >> 26 {
                0x30 => (Fmt::Smem, bits(w0, 18, 8)),
                0x34 if w0 >> 23 == 0x1a7 => (Fmt::Vop3p, bits(w0, 16, 7)),
                0x34 => (Fmt::Vop3, bits(w0, 16, 10)),
                0x36 => (Fmt::Ds, bits(w0, 17, 8)),
                0x37 => match bits(w0, 14, 2) {
                    0 => (Fmt::Flat, bits(w0, 18, 7)),
                    1 => (Fmt::Scratch, bits(w0, 18, 7)),
                    2 => (Fmt::Global, bits(w0, 18, 7)),
                    _ => return Err(err("FLAT segment 3 is reserved")),
                },
                0x38 => (Fmt::Mubuf, bits(w0, 18, 7)),
                0x31 => return Err(err("EXP is not supported")),
                0x35 => return Err(err("VINTRP is not supported")),
                0x3a => return Err(err("MTBUF is not supported")),
                0x3c => return Err(err("MIMG is not supported")),
                _ => return Err(err("unknown encoding")),
            }
        };
        let op = op as u16;
        let var = if matches!(fmt, Fmt::Global | Fmt::Scratch) {
            let w1 = need(1)?;
            u8::from(bits(w1, 16, 7) != 0x7f)
        } else {
            0
        };
        let row = self
            .index
            .get(&(fmt, op, var))
            .or_else(|| self.index.get(&(fmt, op, 0)))
            .copied()
            .ok_or_else(|| err(&format!("no {fmt:?} opcode {op} on {}", self.arch.name())))?;
        let mut i = blank(row);
        if matches!(
            fmt,
            Fmt::Smem | Fmt::Ds | Fmt::Flat | Fmt::Global | Fmt::Scratch | Fmt::Mubuf
        ) {
            i.mem = classify(row.name);
        }
        let takes_lit = row.has(Role::Literal);
        match fmt {
            Fmt::Sop2 | Fmt::Sopc => {
                i.src[0] = bits(w0, 0, 8) as u16;
                i.src[1] = bits(w0, 8, 8) as u16;
                i.sdst = bits(w0, 16, 7) as u16;
                if i.src[0] == SRC_LITERAL || i.src[1] == SRC_LITERAL {
                    i.lit = need(1)?;
                    i.has_lit = true;
                    i.len = 8;
                }
            }
            Fmt::Sop1 => {
                i.src[0] = bits(w0, 0, 8) as u16;
                i.sdst = bits(w0, 16, 7) as u16;
                if i.src[0] == SRC_LITERAL {
                    i.lit = need(1)?;
                    i.has_lit = true;
                    i.len = 8;
                }
            }
            Fmt::Sopk => {
                i.imm = bits(w0, 0, 16) as i32;
                i.sdst = bits(w0, 16, 7) as u16;
                if takes_lit {
                    i.lit = need(1)?;
                    i.has_lit = true;
                    i.len = 8;
                }
            }
            Fmt::Sopp => i.imm = bits(w0, 0, 16) as i32,
            Fmt::Smem => {
                let w1 = need(1)?;
                i.len = 8;
                i.sbase = (bits(w0, 0, 6) * 2) as u16;
                i.sdst = bits(w0, 6, 7) as u16;
                i.glc = bits(w0, 16, 1) != 0;
                i.flag = bits(w0, 17, 1) != 0;
                if i.flag {
                    i.imm = sext(bits(w1, 0, 21), 21);
                } else {
                    i.saddr = bits(w1, 0, 8) as u16;
                }
                if bits(w0, 14, 1) != 0 {
                    return Err(err("SMEM with SOE is not supported"));
                }
            }
            Fmt::Vop2 | Fmt::Vop1 | Fmt::Vopc => {
                i.src[0] = bits(w0, 0, 9) as u16;
                match fmt {
                    Fmt::Vop2 => {
                        i.src[1] = VGPR0 + bits(w0, 9, 8) as u16;
                        i.vdst = bits(w0, 17, 8) as u16;
                    }
                    Fmt::Vopc => i.src[1] = VGPR0 + bits(w0, 9, 8) as u16,
                    _ => i.vdst = bits(w0, 17, 8) as u16,
                }
                if i.src[0] == SRC_DPP {
                    return Err(err("DPP is not supported"));
                }
                if i.src[0] == SRC_SDWA {
                    let s = need(1)?;
                    i.len = 8;
                    let src0 = bits(s, 0, 8) as u16;
                    i.src[0] = if bits(s, 23, 1) != 0 {
                        src0
                    } else {
                        VGPR0 + src0
                    };
                    if bits(s, 31, 1) != 0 {
                        i.src[1] -= VGPR0;
                    }
                    let mut d = Sdwa {
                        dst_sel: bits(s, 8, 3) as u8,
                        dst_unused: bits(s, 11, 2) as u8,
                        clamp: bits(s, 13, 1) != 0,
                        omod: bits(s, 14, 2) as u8,
                        sel: [bits(s, 16, 3) as u8, bits(s, 24, 3) as u8],
                        sext: [bits(s, 19, 1) != 0, bits(s, 27, 1) != 0],
                        neg: [bits(s, 20, 1) != 0, bits(s, 28, 1) != 0],
                        abs: [bits(s, 21, 1) != 0, bits(s, 29, 1) != 0],
                        sdst: None,
                    };
                    if fmt == Fmt::Vopc {
                        d.dst_sel = 6;
                        d.dst_unused = 0;
                        d.clamp = false;
                        d.omod = 0;
                        if bits(s, 15, 1) != 0 {
                            d.sdst = Some(bits(s, 8, 7) as u16);
                        }
                    }
                    i.sdwa = Some(d);
                    i.clamp = d.clamp;
                    i.omod = d.omod;
                } else if i.src[0] == SRC_LITERAL || takes_lit {
                    i.lit = need(1)?;
                    i.has_lit = true;
                    i.len = 8;
                }
            }
            Fmt::Vop3 => {
                let w1 = need(1)?;
                i.len = 8;
                i.vdst = bits(w0, 0, 8) as u16;
                i.clamp = bits(w0, 15, 1) != 0;
                if row.has(Role::Sdst) {
                    i.sdst = bits(w0, 8, 7) as u16;
                } else {
                    i.abs = bits(w0, 8, 3) as u8;
                    i.opsel = bits(w0, 11, 4) as u8;
                }
                i.src = [
                    bits(w1, 0, 9) as u16,
                    bits(w1, 9, 9) as u16,
                    bits(w1, 18, 9) as u16,
                ];
                i.omod = bits(w1, 27, 2) as u8;
                i.neg = bits(w1, 29, 3) as u8;
                if i.src.contains(&SRC_LITERAL) {
                    return Err(err("VOP3 literals do not exist on gfx9"));
                }
            }
            Fmt::Vop3p => {
                let w1 = need(1)?;
                i.len = 8;
                i.vdst = bits(w0, 0, 8) as u16;
                i.neg_hi = bits(w0, 8, 3) as u8;
                i.opsel = bits(w0, 11, 3) as u8;
                i.opsel_hi = (bits(w1, 27, 2) | bits(w0, 14, 1) << 2) as u8;
                i.clamp = bits(w0, 15, 1) != 0;
                i.src = [
                    bits(w1, 0, 9) as u16,
                    bits(w1, 9, 9) as u16,
                    bits(w1, 18, 9) as u16,
                ];
                i.neg = bits(w1, 29, 3) as u8;
            }
            Fmt::Ds => {
                let w1 = need(1)?;
                i.len = 8;
                i.imm = bits(w0, 0, 8) as i32;
                i.offset1 = bits(w0, 8, 8) as u8;
                i.gds = bits(w0, 16, 1) != 0;
                i.addr = bits(w1, 0, 8) as u16;
                i.data0 = bits(w1, 8, 8) as u16;
                i.data1 = bits(w1, 16, 8) as u16;
                i.vdst = bits(w1, 24, 8) as u16;
                if self.arch.is_gfx940() && bits(w0, 25, 1) != 0 {
                    i.data0 += 256;
                    i.data1 += 256;
                    i.vdst += 256;
                }
            }
            Fmt::Flat | Fmt::Global | Fmt::Scratch => {
                let w1 = need(1)?;
                i.len = 8;
                i.imm = if fmt == Fmt::Flat {
                    bits(w0, 0, 12) as i32
                } else {
                    sext(bits(w0, 0, 13), 13)
                };
                i.flag = bits(w0, 13, 1) != 0;
                i.glc = bits(w0, 16, 1) != 0;
                i.slc = bits(w0, 17, 1) != 0;
                i.sc1 = self.arch.is_gfx940() && bits(w0, 25, 1) != 0;
                i.addr = bits(w1, 0, 8) as u16;
                i.data0 = bits(w1, 8, 8) as u16;
                i.saddr = bits(w1, 16, 7) as u16;
                i.vdst = bits(w1, 24, 8) as u16;
                if self.arch.is_gfx940() && bits(w1, 23, 1) != 0 {
                    // ACC: data and destination are AGPRs (numbered from 256 here)
                    i.data0 += 256;
                    i.vdst += 256;
                }
            }
            Fmt::Mubuf => {
                let w1 = need(1)?;
                i.len = 8;
                i.imm = bits(w0, 0, 12) as i32;
                i.offen = bits(w0, 12, 1) != 0;
                i.idxen = bits(w0, 13, 1) != 0;
                i.glc = bits(w0, 14, 1) != 0;
                i.sc1 = self.arch.is_gfx940() && bits(w0, 15, 1) != 0;
                i.slc = bits(w0, 17, 1) != 0;
                if bits(w0, 16, 1) != 0 {
                    return Err(err("MUBUF with LDS is not supported"));
                }
                i.addr = bits(w1, 0, 8) as u16;
                i.data0 = bits(w1, 8, 8) as u16;
                i.sbase = (bits(w1, 16, 5) * 4) as u16;
                i.saddr = bits(w1, 24, 8) as u16;
                if self.arch.is_gfx940() && bits(w1, 23, 1) != 0 {
                    i.data0 += 256;
                }
            }
        }
        Ok(i)
    }

    /// The gfx11 layouts (RDNA3 ISA ch. 16).
    fn decode_gfx11(
        &self,
        w0: u32,
        need: &dyn Fn(usize) -> Result<u32, DecodeError>,
        err: &dyn Fn(&str) -> DecodeError,
    ) -> Result<Inst, DecodeError> {
        // gfx11 SGPR codes 124 (NULL) and 125 (M0) in the gfx9 numbering
        let sg = |c: u16| -> u16 {
            match c {
                124 => SGPR_NULL,
                125 => SGPR_M0,
                c => c,
            }
        };
        let (fmt, op) = if w0 >> 31 == 0 {
            match w0 >> 25 {
                0x3e => (Fmt::Vopc, bits(w0, 17, 8)),
                0x3f => (Fmt::Vop1, bits(w0, 9, 8)),
                0x3c | 0x3d => return Err(err("VOPD (dual issue) is not supported")),
                o => (Fmt::Vop2, o),
            }
        } else if w0 >> 30 == 0b10 {
            match w0 >> 23 {
                0x17d => (Fmt::Sop1, bits(w0, 8, 8)),
                0x17e => (Fmt::Sopc, bits(w0, 16, 7)),
                0x17f => (Fmt::Sopp, bits(w0, 16, 7)),
                _ if w0 >> 28 == 0xb => (Fmt::Sopk, bits(w0, 23, 5)),
                _ => (Fmt::Sop2, bits(w0, 23, 7)),
            }
        } else {
            match w0 >> 26 {
                0x3d => (Fmt::Smem, bits(w0, 18, 8)),
                0x35 => (Fmt::Vop3, bits(w0, 16, 10)),
                0x33 if w0 >> 24 == 0xcc => (Fmt::Vop3p, bits(w0, 16, 7)),
                0x36 => (Fmt::Ds, bits(w0, 18, 8)),
                0x37 => match bits(w0, 16, 2) {
                    0 => (Fmt::Flat, bits(w0, 18, 7)),
                    1 => (Fmt::Scratch, bits(w0, 18, 7)),
                    2 => (Fmt::Global, bits(w0, 18, 7)),
                    _ => return Err(err("FLAT segment 3 is reserved")),
                },
                0x38 => (Fmt::Mubuf, bits(w0, 18, 8)),
                _ => return Err(err("unknown or unsupported gfx11 encoding")),
            }
        };
        let op = op as u16;
        let var = if matches!(fmt, Fmt::Global | Fmt::Scratch) {
            u8::from(bits(need(1)?, 16, 7) != 0x7c)
        } else {
            0
        };
        let row = self
            .index
            .get(&(fmt, op, var))
            .or_else(|| self.index.get(&(fmt, op, 0)))
            .copied()
            .ok_or_else(|| err(&format!("no {fmt:?} opcode {op} on {}", self.arch.name())))?;
        let mut i = blank(row);
        if matches!(
            fmt,
            Fmt::Smem | Fmt::Ds | Fmt::Flat | Fmt::Global | Fmt::Scratch | Fmt::Mubuf
        ) {
            i.mem = classify(row.name);
        }
        let takes_lit = row.has(Role::Literal);
        let vdst_is_sgpr = row
            .ops
            .iter()
            .any(|o| o.0 == Role::Vdst && o.2 == crate::isa::Reg::S);
        match fmt {
            Fmt::Sop2 | Fmt::Sopc => {
                i.src[0] = sg(bits(w0, 0, 8) as u16);
                i.src[1] = sg(bits(w0, 8, 8) as u16);
                i.sdst = sg(bits(w0, 16, 7) as u16);
            }
            Fmt::Sop1 => {
                i.src[0] = sg(bits(w0, 0, 8) as u16);
                i.sdst = sg(bits(w0, 16, 7) as u16);
            }
            Fmt::Sopk => {
                i.imm = bits(w0, 0, 16) as i32;
                i.sdst = sg(bits(w0, 16, 7) as u16);
            }
            Fmt::Sopp => i.imm = bits(w0, 0, 16) as i32,
            Fmt::Smem => {
                let w1 = need(1)?;
                i.len = 8;
                i.sbase = (bits(w0, 0, 6) * 2) as u16;
                i.sdst = sg(bits(w0, 6, 7) as u16);
                i.dlc = bits(w0, 13, 1) != 0;
                i.glc = bits(w0, 14, 1) != 0;
                i.flag = true;
                i.imm = sext(bits(w1, 0, 21), 21);
                i.saddr = sg(bits(w1, 25, 7) as u16);
                i.soe = i.saddr != SGPR_NULL;
            }
            Fmt::Vop2 | Fmt::Vop1 | Fmt::Vopc => {
                i.src[0] = bits(w0, 0, 9) as u16;
                match fmt {
                    Fmt::Vop2 => {
                        i.src[1] = VGPR0 + bits(w0, 9, 8) as u16;
                        i.vdst = bits(w0, 17, 8) as u16;
                    }
                    Fmt::Vopc => i.src[1] = VGPR0 + bits(w0, 9, 8) as u16,
                    _ => i.vdst = bits(w0, 17, 8) as u16,
                }
                if vdst_is_sgpr {
                    i.vdst = sg(i.vdst);
                }
                match i.src[0] {
                    SRC_DPP | 233 | 234 => return Err(err("DPP is not supported")),
                    SRC_SDWA => return Err(err("SDWA does not exist on gfx11")),
                    _ => {}
                }
            }
            Fmt::Vop3 => {
                let w1 = need(1)?;
                i.len = 8;
                i.vdst = bits(w0, 0, 8) as u16;
                i.clamp = bits(w0, 15, 1) != 0;
                if row.has(Role::Sdst) {
                    i.sdst = sg(bits(w0, 8, 7) as u16);
                } else {
                    i.abs = bits(w0, 8, 3) as u8;
                    i.opsel = bits(w0, 11, 4) as u8;
                }
                if vdst_is_sgpr || !row.has(Role::Vdst) {
                    i.vdst = sg(i.vdst);
                }
                i.src = [
                    bits(w1, 0, 9) as u16,
                    bits(w1, 9, 9) as u16,
                    bits(w1, 18, 9) as u16,
                ];
                i.omod = bits(w1, 27, 2) as u8;
                i.neg = bits(w1, 29, 3) as u8;
                if i.src.iter().any(|&c| matches!(c, SRC_DPP | 233 | 234)) {
                    return Err(err("DPP is not supported"));
                }
            }
            Fmt::Vop3p => {
                let w1 = need(1)?;
                i.len = 8;
                i.vdst = bits(w0, 0, 8) as u16;
                i.neg_hi = bits(w0, 8, 3) as u8;
                i.opsel = bits(w0, 11, 3) as u8;
                i.opsel_hi = (bits(w1, 27, 2) | bits(w0, 14, 1) << 2) as u8;
                i.clamp = bits(w0, 15, 1) != 0;
                i.src = [
                    bits(w1, 0, 9) as u16,
                    bits(w1, 9, 9) as u16,
                    bits(w1, 18, 9) as u16,
                ];
                i.neg = bits(w1, 29, 3) as u8;
            }
            Fmt::Ds => {
                let w1 = need(1)?;
                i.len = 8;
                i.imm = bits(w0, 0, 8) as i32;
                i.offset1 = bits(w0, 8, 8) as u8;
                i.gds = bits(w0, 17, 1) != 0;
                i.addr = bits(w1, 0, 8) as u16;
                i.data0 = bits(w1, 8, 8) as u16;
                i.data1 = bits(w1, 16, 8) as u16;
                i.vdst = bits(w1, 24, 8) as u16;
            }
            Fmt::Flat | Fmt::Global | Fmt::Scratch => {
                let w1 = need(1)?;
                i.len = 8;
                i.imm = if fmt == Fmt::Flat {
                    bits(w0, 0, 12) as i32
                } else {
                    sext(bits(w0, 0, 13), 13)
                };
                i.dlc = bits(w0, 13, 1) != 0;
                i.glc = bits(w0, 14, 1) != 0;
                i.slc = bits(w0, 15, 1) != 0;
                i.addr = bits(w1, 0, 8) as u16;
                i.data0 = bits(w1, 8, 8) as u16;
                let sa = bits(w1, 16, 7) as u16;
                // "off" in the gfx9 code the executor and the printer test for
                i.saddr = if sa == 0x7c { 0x7f } else { sg(sa) };
                i.flag = bits(w1, 23, 1) != 0;
                i.vdst = bits(w1, 24, 8) as u16;
            }
            Fmt::Mubuf => {
                if i.mem != MemOp::OTHER {
                    return Err(err("gfx11 MUBUF memory accesses are not supported"));
                }
                i.len = 8;
                need(1)?;
            }
        }
        if matches!(
            fmt,
            Fmt::Vop1 | Fmt::Vop2 | Fmt::Vopc | Fmt::Vop3 | Fmt::Vop3p
        ) {
            for c in i.src.iter_mut() {
                if *c < 128 {
                    *c = sg(*c);
                }
            }
        }
        // one literal dword follows any format whose source says so (VOP3 and VOP3P too)
        let lit_src = matches!(
            fmt,
            Fmt::Sop1
                | Fmt::Sop2
                | Fmt::Sopc
                | Fmt::Vop1
                | Fmt::Vop2
                | Fmt::Vopc
                | Fmt::Vop3
                | Fmt::Vop3p
        ) && i.src.contains(&SRC_LITERAL);
        if lit_src || takes_lit {
            let at = (i.len / 4) as usize;
            i.lit = need(at)?;
            i.has_lit = true;
            i.len += 4;
        }
        Ok(i)
    }

    /// Decode every instruction of `code` (loaded at byte address `base`) in order, as a
    /// linear sweep: the result's pairs are (address, instruction).
    ///
    /// # Errors
    /// The first [`DecodeError`].
    pub fn decode_all(&self, code: &[u8], base: u64) -> Result<Vec<(u64, Inst)>, DecodeError> {
        let mut out = Vec::new();
        let mut off = 0usize;
        while off < code.len() {
            let i = self.decode(&code[off..], base + off as u64)?;
            out.push((base + off as u64, i));
            off += i.len as usize;
        }
        Ok(out)
    }
}
