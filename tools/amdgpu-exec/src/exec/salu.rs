//! Scalar ALU and program control: SOP2, SOP1, SOPC, SOPK, SOPP (Vega ISA §12.1 and the
//! instruction descriptions of ch. 12; "Scalar ALU Operations", ch. 5).

use super::wave::{Ty, EXEC};
use super::{Event, Group, PRIVATE_APERTURE_HI, SHARED_APERTURE_HI};
use crate::decode::Inst;
use crate::isa::{Fmt, Op};
use crate::Error;

fn hw_field(imm: i32) -> (u32, u32, u32) {
    let id = (imm & 0x3f) as u32;
    let off = ((imm >> 6) & 0x1f) as u32;
    let size = (((imm >> 11) & 0x1f) + 1) as u32;
    (id, off, size)
}

fn mask(size: u32) -> u32 {
    if size >= 32 {
        u32::MAX
    } else {
        (1 << size) - 1
    }
}

impl super::Wave {
    fn hwreg_read(&self, id: u32, clock: u64) -> u32 {
        if self.arch.is_gfx11() {
            // RDNA3 ISA §3.11 "Hardware Registers": MODE, STATUS and TRAPSTS as on gfx9;
            // SHADER_CYCLES (29) a 20-bit cycle counter; HW_ID (4) and SH_MEM_BASES do not
            // exist there (read as 0 here).
            return match id {
                1..=3 => self.hwreg_read_gfx9(id),
                29 => (clock & 0xf_ffff) as u32,
                _ => 0,
            };
        }
        self.hwreg_read_gfx9(id)
    }

    fn hwreg_read_gfx9(&self, id: u32) -> u32 {
        match id {
            1 => self.mode,
            2 => {
                u32::from(self.scc)
                    | u32::from(self.exec() == 0) << 9
                    | u32::from(self.vcc() == 0) << 10
            }
            3 => self.trapsts,
            // HW_ID: wave id in bits 3:0, SIMD 5:4; CU/SH/SE 0.
            4 => (self.index & 0xf) | ((self.index >> 4) & 3) << 4,
            // SH_MEM_BASES: private base [15:0], shared base [31:16] (the high 16 bits of
            // the apertures' high dwords)
            15 => (PRIVATE_APERTURE_HI >> 16) | (SHARED_APERTURE_HI >> 16) << 16,
            _ => 0,
        }
    }

    fn hwreg_write(&mut self, id: u32, off: u32, size: u32, v: u32) {
        let m = mask(size) << off;
        match id {
            1 => self.mode = (self.mode & !m) | ((v << off) & m),
            3 => self.trapsts = (self.trapsts & !m) | ((v << off) & m),
            _ => {}
        }
    }

    /// Execute a scalar ALU or program-control instruction.
    ///
    /// # Errors
    /// `s_trap`, or an instruction the interpreter does not implement.
    pub fn salu(&mut self, i: &Inst, g: &mut Group<'_>) -> Result<Event, Error> {
        let w64 = |n: &str| n.ends_with("_b64") || n.ends_with("_i64") || n.ends_with("_u64");
        let name = i.row.name;
        let wide = w64(name);
        let ty = if wide { Ty::B64 } else { Ty::B32 };
        let a = self.sread(i.src[0], i.lit, ty);
        let b = self.sread(i.src[1], i.lit, ty);
        let (a32, b32) = (a as u32, b as u32);
        let d = i.sdst;
        let next = self.pc;
        let set = |w: &mut Self, v: u64| {
            if wide {
                w.swrite64(d, v);
            } else {
                w.swrite(d, v as u32);
            }
        };
        match i.op {
            // ---- SOP2
            Op::S_ADD_U32 => {
                let r = a32 as u64 + b32 as u64;
                self.scc = r >> 32 != 0;
                set(self, r as u32 as u64);
            }
            Op::S_SUB_U32 => {
                self.scc = b32 > a32;
                set(self, a32.wrapping_sub(b32) as u64);
            }
            Op::S_ADDC_U32 => {
                let r = a32 as u64 + b32 as u64 + u64::from(self.scc);
                self.scc = r >> 32 != 0;
                set(self, r as u32 as u64);
            }
            Op::S_SUBB_U32 => {
                let r = (a32 as i64) - (b32 as i64) - i64::from(self.scc);
                self.scc = r < 0;
                set(self, r as u32 as u64);
            }
            Op::S_ADD_I32 => {
                let (r, o) = (a32 as i32).overflowing_add(b32 as i32);
                self.scc = o;
                set(self, r as u32 as u64);
            }
            Op::S_SUB_I32 => {
                let (r, o) = (a32 as i32).overflowing_sub(b32 as i32);
                self.scc = o;
                set(self, r as u32 as u64);
            }
            Op::S_MIN_I32 => {
                self.scc = (a32 as i32) < (b32 as i32);
                set(self, if self.scc { a32 } else { b32 } as u64);
            }
            Op::S_MIN_U32 => {
                self.scc = a32 < b32;
                set(self, if self.scc { a32 } else { b32 } as u64);
            }
            Op::S_MAX_I32 => {
                self.scc = (a32 as i32) > (b32 as i32);
                set(self, if self.scc { a32 } else { b32 } as u64);
            }
            Op::S_MAX_U32 => {
                self.scc = a32 > b32;
                set(self, if self.scc { a32 } else { b32 } as u64);
            }
            Op::S_CSELECT_B32 | Op::S_CSELECT_B64 => set(self, if self.scc { a } else { b }),
            Op::S_AND_B32 | Op::S_AND_B64 => self.logic(d, wide, a & b),
            Op::S_OR_B32 | Op::S_OR_B64 => self.logic(d, wide, a | b),
            Op::S_XOR_B32 | Op::S_XOR_B64 => self.logic(d, wide, a ^ b),
            Op::S_ANDN2_B32 | Op::S_ANDN2_B64 => self.logic(d, wide, a & !b),
            Op::S_ORN2_B32 | Op::S_ORN2_B64 => self.logic(d, wide, a | !b),
            Op::S_NAND_B32 | Op::S_NAND_B64 => self.logic(d, wide, !(a & b)),
            Op::S_NOR_B32 | Op::S_NOR_B64 => self.logic(d, wide, !(a | b)),
            Op::S_XNOR_B32 | Op::S_XNOR_B64 => self.logic(d, wide, !(a ^ b)),
            Op::S_LSHL_B32 => self.logic(d, false, (a32 << (b32 & 31)) as u64),
            Op::S_LSHL_B64 => {
                let r = a << (self.sread(i.src[1], i.lit, Ty::B32) & 63);
                self.logic(d, true, r)
            }
            Op::S_LSHR_B32 => self.logic(d, false, (a32 >> (b32 & 31)) as u64),
            Op::S_LSHR_B64 => {
                let r = a >> (self.sread(i.src[1], i.lit, Ty::B32) & 63);
                self.logic(d, true, r)
            }
            Op::S_ASHR_I32 => self.logic(d, false, ((a32 as i32) >> (b32 & 31)) as u32 as u64),
            Op::S_ASHR_I64 => {
                let r = (a as i64) >> (self.sread(i.src[1], i.lit, Ty::B32) & 63);
                self.logic(d, true, r as u64)
            }
            Op::S_BFM_B32 => set(self, (mask(a32 & 31) << (b32 & 31)) as u64),
            Op::S_BFM_B64 => {
                let (a, b) = (
                    self.sread(i.src[0], i.lit, Ty::B32) & 63,
                    self.sread(i.src[1], i.lit, Ty::B32) & 63,
                );
                let m = if a == 0 { 0 } else { u64::MAX >> (64 - a) };
                set(self, m << b)
            }
            Op::S_MUL_I32 => set(self, (a32 as i32).wrapping_mul(b32 as i32) as u32 as u64),
            Op::S_MUL_HI_U32 => set(self, (a32 as u64 * b32 as u64) >> 32),
            Op::S_MUL_HI_I32 => set(
                self,
                ((a32 as i32 as i64 * b32 as i32 as i64) >> 32) as u32 as u64,
            ),
            Op::S_BFE_U32 | Op::S_BFE_I32 => {
                let off = b32 & 31;
                let w = (b32 >> 16) & 0x7f;
                let r = if w == 0 {
                    0
                } else {
                    let v = a32 >> off;
                    let w = w.min(32);
                    let v = v & mask(w);
                    if i.op == Op::S_BFE_I32 && w < 32 && v >> (w - 1) & 1 != 0 {
                        v | !mask(w)
                    } else {
                        v
                    }
                };
                self.logic(d, false, r as u64);
            }
            Op::S_BFE_U64 | Op::S_BFE_I64 => {
                let c = self.sread(i.src[1], i.lit, Ty::B32) as u32;
                let off = c & 63;
                let w = ((c >> 16) & 0x7f).min(64);
                let r = if w == 0 {
                    0
                } else {
                    let v = a >> off;
                    let m = if w >= 64 { u64::MAX } else { (1u64 << w) - 1 };
                    let v = v & m;
                    if i.op == Op::S_BFE_I64 && w < 64 && v >> (w - 1) & 1 != 0 {
                        v | !m
                    } else {
                        v
                    }
                };
                self.logic(d, true, r);
            }
            Op::S_ABSDIFF_I32 => {
                let r = (a32 as i32).wrapping_sub(b32 as i32).unsigned_abs();
                self.logic(d, false, r as u64)
            }
            Op::S_LSHL1_ADD_U32
            | Op::S_LSHL2_ADD_U32
            | Op::S_LSHL3_ADD_U32
            | Op::S_LSHL4_ADD_U32 => {
                let n = match i.op {
                    Op::S_LSHL1_ADD_U32 => 1,
                    Op::S_LSHL2_ADD_U32 => 2,
                    Op::S_LSHL3_ADD_U32 => 3,
                    _ => 4,
                };
                let r = ((a32 as u64) << n) + b32 as u64;
                self.scc = r >> 32 != 0;
                set(self, r as u32 as u64);
            }
            Op::S_PACK_LL_B32_B16 => set(self, ((a32 & 0xffff) | b32 << 16) as u64),
            Op::S_PACK_LH_B32_B16 => set(self, ((a32 & 0xffff) | (b32 & 0xffff_0000)) as u64),
            Op::S_PACK_HH_B32_B16 => set(self, ((a32 >> 16) | (b32 & 0xffff_0000)) as u64),
            // ---- SOP1
            Op::S_MOV_B32 | Op::S_MOV_B64 => set(self, a),
            Op::S_CMOV_B32 | Op::S_CMOV_B64 => {
                if self.scc {
                    set(self, a)
                }
            }
            Op::S_NOT_B32 | Op::S_NOT_B64 => self.logic(d, wide, !a),
            Op::S_BREV_B32 => set(self, a32.reverse_bits() as u64),
            Op::S_BREV_B64 => set(self, a.reverse_bits()),
            Op::S_BCNT1_I32_B32 => self.logic(d, false, a32.count_ones() as u64),
            Op::S_BCNT1_I32_B64 => self.logic(d, false, a.count_ones() as u64),
            Op::S_BCNT0_I32_B32 => self.logic(d, false, a32.count_zeros() as u64),
            Op::S_BCNT0_I32_B64 => self.logic(d, false, a.count_zeros() as u64),
            Op::S_FF1_I32_B32 => self.swrite(
                d,
                if a32 == 0 {
                    u32::MAX
                } else {
                    a32.trailing_zeros()
                },
            ),
            Op::S_FF1_I32_B64 => self.swrite(d, if a == 0 { u32::MAX } else { a.trailing_zeros() }),
            Op::S_FF0_I32_B32 => self.swrite(
                d,
                if a32 == u32::MAX {
                    u32::MAX
                } else {
                    a32.trailing_ones()
                },
            ),
            Op::S_FLBIT_I32_B32 => self.swrite(
                d,
                if a32 == 0 {
                    u32::MAX
                } else {
                    a32.leading_zeros()
                },
            ),
            Op::S_FLBIT_I32_B64 => {
                self.swrite(d, if a == 0 { u32::MAX } else { a.leading_zeros() })
            }
            Op::S_FLBIT_I32 => {
                let x = a32 as i32;
                self.swrite(
                    d,
                    if x == 0 || x == -1 {
                        u32::MAX
                    } else if x < 0 {
                        (!a32).leading_zeros()
                    } else {
                        a32.leading_zeros()
                    },
                )
            }
            Op::S_SEXT_I32_I8 => self.swrite(d, a32 as u8 as i8 as i32 as u32),
            Op::S_SEXT_I32_I16 => self.swrite(d, a32 as u16 as i16 as i32 as u32),
            Op::S_BITSET0_B32 => {
                let v = self.s[d as usize] & !(1 << (a32 & 31));
                self.swrite(d, v)
            }
            Op::S_BITSET1_B32 => {
                let v = self.s[d as usize] | 1 << (a32 & 31);
                self.swrite(d, v)
            }
            Op::S_ABS_I32 => {
                let r = (a32 as i32).unsigned_abs();
                self.logic(d, false, r as u64)
            }
            Op::S_GETPC_B64 => self.swrite64(d, next),
            Op::S_SETPC_B64 => self.pc = a,
            Op::S_SWAPPC_B64 => {
                self.swrite64(d, next);
                self.pc = a;
            }
            Op::S_AND_SAVEEXEC_B64
            | Op::S_OR_SAVEEXEC_B64
            | Op::S_XOR_SAVEEXEC_B64
            | Op::S_ANDN2_SAVEEXEC_B64
            | Op::S_ORN2_SAVEEXEC_B64
            | Op::S_NAND_SAVEEXEC_B64
            | Op::S_NOR_SAVEEXEC_B64
            | Op::S_XNOR_SAVEEXEC_B64
            | Op::S_ANDN1_SAVEEXEC_B64
            | Op::S_ORN1_SAVEEXEC_B64 => {
                let e = self.exec();
                let n = match i.op {
                    Op::S_AND_SAVEEXEC_B64 => a & e,
                    Op::S_OR_SAVEEXEC_B64 => a | e,
                    Op::S_XOR_SAVEEXEC_B64 => a ^ e,
                    Op::S_ANDN2_SAVEEXEC_B64 => a & !e,
                    Op::S_ORN2_SAVEEXEC_B64 => a | !e,
                    Op::S_NAND_SAVEEXEC_B64 => !(a & e),
                    Op::S_NOR_SAVEEXEC_B64 => !(a | e),
                    Op::S_XNOR_SAVEEXEC_B64 => !(a ^ e),
                    Op::S_ANDN1_SAVEEXEC_B64 => !a & e,
                    _ => !a | e,
                };
                self.swrite64(d, e);
                self.set_exec(n);
                self.scc = n != 0;
            }
            Op::S_ANDN1_WREXEC_B64 | Op::S_ANDN2_WREXEC_B64 => {
                let e = self.exec();
                let n = if i.op == Op::S_ANDN1_WREXEC_B64 {
                    !a & e
                } else {
                    a & !e
                };
                self.set_exec(n);
                self.swrite64(d, n);
                self.scc = n != 0;
            }
            Op::S_WQM_B64 => {
                let mut r = 0u64;
                for q in 0..16 {
                    if a >> (4 * q) & 0xf != 0 {
                        r |= 0xf << (4 * q);
                    }
                }
                self.logic(d, true, r)
            }
            // ---- SOPC
            Op::S_CMP_EQ_I32 | Op::S_CMP_EQ_U32 => self.scc = a32 == b32,
            Op::S_CMP_LG_I32 | Op::S_CMP_LG_U32 => self.scc = a32 != b32,
            Op::S_CMP_GT_I32 => self.scc = (a32 as i32) > (b32 as i32),
            Op::S_CMP_GE_I32 => self.scc = (a32 as i32) >= (b32 as i32),
            Op::S_CMP_LT_I32 => self.scc = (a32 as i32) < (b32 as i32),
            Op::S_CMP_LE_I32 => self.scc = (a32 as i32) <= (b32 as i32),
            Op::S_CMP_GT_U32 => self.scc = a32 > b32,
            Op::S_CMP_GE_U32 => self.scc = a32 >= b32,
            Op::S_CMP_LT_U32 => self.scc = a32 < b32,
            Op::S_CMP_LE_U32 => self.scc = a32 <= b32,
            Op::S_CMP_EQ_U64 => self.scc = a == b,
            Op::S_CMP_LG_U64 => self.scc = a != b,
            Op::S_BITCMP0_B32 => self.scc = a32 >> (b32 & 31) & 1 == 0,
            Op::S_BITCMP1_B32 => self.scc = a32 >> (b32 & 31) & 1 == 1,
            Op::S_BITCMP0_B64 => {
                self.scc = a >> (self.sread(i.src[1], i.lit, Ty::B32) & 63) & 1 == 0
            }
            Op::S_BITCMP1_B64 => {
                self.scc = a >> (self.sread(i.src[1], i.lit, Ty::B32) & 63) & 1 == 1
            }
            // ---- SOPK
            Op::S_MOVK_I32 => self.swrite(d, i.imm as u16 as i16 as i32 as u32),
            Op::S_CMOVK_I32 => {
                if self.scc {
                    self.swrite(d, i.imm as u16 as i16 as i32 as u32)
                }
            }
            Op::S_CMPK_EQ_I32
            | Op::S_CMPK_LG_I32
            | Op::S_CMPK_GT_I32
            | Op::S_CMPK_GE_I32
            | Op::S_CMPK_LT_I32
            | Op::S_CMPK_LE_I32 => {
                let s = self.s[d as usize] as i32;
                let k = i.imm as u16 as i16 as i32;
                self.scc = match i.op {
                    Op::S_CMPK_EQ_I32 => s == k,
                    Op::S_CMPK_LG_I32 => s != k,
                    Op::S_CMPK_GT_I32 => s > k,
                    Op::S_CMPK_GE_I32 => s >= k,
                    Op::S_CMPK_LT_I32 => s < k,
                    _ => s <= k,
                };
            }
            Op::S_CMPK_EQ_U32
            | Op::S_CMPK_LG_U32
            | Op::S_CMPK_GT_U32
            | Op::S_CMPK_GE_U32
            | Op::S_CMPK_LT_U32
            | Op::S_CMPK_LE_U32 => {
                let s = self.s[d as usize];
                let k = i.imm as u16 as u32;
                self.scc = match i.op {
                    Op::S_CMPK_EQ_U32 => s == k,
                    Op::S_CMPK_LG_U32 => s != k,
                    Op::S_CMPK_GT_U32 => s > k,
                    Op::S_CMPK_GE_U32 => s >= k,
                    Op::S_CMPK_LT_U32 => s < k,
                    _ => s <= k,
                };
            }
            Op::S_ADDK_I32 => {
                let (r, o) =
                    (self.s[d as usize] as i32).overflowing_add(i.imm as u16 as i16 as i32);
                self.scc = o;
                self.swrite(d, r as u32);
            }
            Op::S_MULK_I32 => {
                let r = (self.s[d as usize] as i32).wrapping_mul(i.imm as u16 as i16 as i32);
                self.swrite(d, r as u32);
            }
            Op::S_GETREG_B32 => {
                let (id, off, size) = hw_field(i.imm);
                let v = (self.hwreg_read(id, g.clock) >> off) & mask(size);
                self.swrite(d, v);
            }
            Op::S_SETREG_B32 => {
                let (id, off, size) = hw_field(i.imm);
                let v = self.s[d as usize];
                self.hwreg_write(id, off, size, v);
            }
            Op::S_SETREG_IMM32_B32 => {
                let (id, off, size) = hw_field(i.imm);
                self.hwreg_write(id, off, size, i.lit);
            }
            Op::S_CALL_B64 => {
                self.swrite64(d, next);
                self.pc = next.wrapping_add((i.imm as u16 as i16 as i64 * 4) as u64);
            }
            // ---- SOPP
            Op::S_NOP
            | Op::S_WAITCNT
            | Op::S_SETPRIO
            | Op::S_ICACHE_INV
            | Op::S_INCPERFLEVEL
            | Op::S_DECPERFLEVEL
            | Op::S_TTRACEDATA
            | Op::S_SETKILL
            | Op::S_WAKEUP
            | Op::S_SENDMSG
            | Op::S_SET_GPR_IDX_OFF
            // gfx11: scheduling hints and counters a sequential interpreter has nothing to
            // wait for
            | Op::S_DELAY_ALU
            | Op::S_CLAUSE
            | Op::S_WAITCNT_DEPCTR
            | Op::S_SET_INST_PREFETCH_DISTANCE
            | Op::S_WAITCNT_VSCNT
            | Op::S_WAITCNT_VMCNT
            | Op::S_WAITCNT_EXPCNT
            | Op::S_WAITCNT_LGKMCNT => {}
            // gfx10+: MODE.FP_ROUND (bits 3:0) and MODE.FP_DENORM (bits 7:4) from SIMM16
            Op::S_ROUND_MODE => self.mode = (self.mode & !0xf) | (i.imm as u32 & 0xf),
            Op::S_DENORM_MODE => self.mode = (self.mode & !0xf0) | (i.imm as u32 & 0xf) << 4,
            // gfx11 MSG_RTN_GET_REALTIME (0x83): the 64-bit real-time counter, here the
            // dispatch's instruction count (as S_MEMREALTIME on gfx9)
            Op::S_SENDMSG_RTN_B64 | Op::S_SENDMSG_RTN_B32 if i.src[0] == 0x83 => {
                if i.op == Op::S_SENDMSG_RTN_B64 {
                    self.swrite64(d, g.clock);
                } else {
                    self.swrite(d, g.clock as u32);
                }
            }
            Op::S_ENDPGM => return Ok(Event::End),
            Op::S_BARRIER => return Ok(Event::Barrier),
            Op::S_SLEEP => return Ok(Event::Sleep),
            Op::S_TRAP => {
                return Err(Error::new(format!(
                    "s_trap {}: the kernel trapped (llvm.trap: a failed device assert or __trap)",
                    i.imm & 0xff
                )))
            }
            Op::S_BRANCH
            | Op::S_CBRANCH_SCC0
            | Op::S_CBRANCH_SCC1
            | Op::S_CBRANCH_VCCZ
            | Op::S_CBRANCH_VCCNZ
            | Op::S_CBRANCH_EXECZ
            | Op::S_CBRANCH_EXECNZ => {
                let take = match i.op {
                    Op::S_BRANCH => true,
                    Op::S_CBRANCH_SCC0 => !self.scc,
                    Op::S_CBRANCH_SCC1 => self.scc,
                    Op::S_CBRANCH_VCCZ => self.vcc() == 0,
                    Op::S_CBRANCH_VCCNZ => self.vcc() != 0,
                    Op::S_CBRANCH_EXECZ => self.exec() == 0,
                    _ => self.exec() != 0,
                };
                if take {
                    self.pc = next.wrapping_add((i.imm as u16 as i16 as i64 * 4) as u64);
                }
            }
            _ => return Err(self.unimplemented(i)),
        }
        let _ = (g, EXEC, Fmt::Sop1);
        Ok(Event::Next)
    }

    fn logic(&mut self, d: u16, wide: bool, r: u64) {
        let r = if wide { r } else { r as u32 as u64 };
        self.scc = r != 0;
        if wide {
            self.swrite64(d, r);
        } else {
            self.swrite(d, r as u32);
        }
    }
}
