//! A wavefront: its registers, its initial state at dispatch (AMDGPUUsage, "Initial Kernel
//! Execution State"), operand reads with inline constants, literals, SDWA selects and VOP3
//! modifiers (Vega ISA §6 "Vector ALU Operations", §12.7 SDWA), and the instruction step.

use super::{Event, Group, Launch, PRIVATE_APERTURE_HI, SCRATCH_BASE, SHARED_APERTURE_HI};
use crate::decode::{Inst, SGPR_NULL, VGPR0};
use crate::elf::Kernel;
use crate::fp::{self, Env};
use crate::isa::{Arch, Fmt};
use crate::Error;

/// How a source operand is read: its width and, for inline constants, its type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ty {
    /// 32-bit integer / bits.
    B32,
    /// 16-bit integer.
    B16,
    /// binary16.
    F16,
    /// binary32.
    F32,
    /// 64-bit integer / bits.
    B64,
    /// binary64.
    F64,
}

/// SGPR-space code of EXEC_LO.
pub const EXEC: u16 = 126;
/// SGPR-space code of FLAT_SCRATCH_LO.
pub const FLAT_SCRATCH: u16 = 102;

/// A wavefront's architectural state.
#[derive(Clone)]
pub struct Wave {
    /// The SGPR space: s0-s101, FLAT_SCRATCH (102-103), XNACK_MASK, VCC (106-107),
    /// TTMP0-15 (108-123), M0 (124), EXEC (126-127).
    pub s: [u32; 128],
    /// VGPRs (and, from 256, the AGPRs of gfx90a+), 64 lanes each.
    pub v: Vec<[u32; 64]>,
    /// SCC.
    pub scc: bool,
    /// Program counter (flat address).
    pub pc: u64,
    /// The MODE register.
    pub mode: u32,
    /// TRAPSTS (exception bits; not raised by the interpreter).
    pub trapsts: u32,
    /// Wave index in the work-group.
    pub index: u32,
    /// Bytes of scratch per lane.
    pub lane_bytes: u32,
    /// Propagate the last NaN operand ([`crate::fp::Env::nan_last`]; off on the hardware).
    pub nan_last: bool,
    /// Move approximation results 1 ulp ([`crate::exec::Limits::approx_perturb`]).
    pub approx_perturb: bool,
    /// The processor.
    pub arch: Arch,
    /// gfx11's FLAT_SCRATCH: the wave's scratch base, set by the hardware (on gfx11 it is
    /// no SGPR; codes 102-103 are s102-s103 there).
    pub scratch_base: u64,
}

/// The inline constant of code `c` read as `ty` (`None` when `c` is no inline constant).
pub fn inline_const(c: u16, ty: Ty) -> Option<u64> {
    let wide = matches!(ty, Ty::B64 | Ty::F64);
    match c {
        128..=192 => Some((c - 128) as u64),
        193..=208 => {
            let v = -((c - 192) as i64);
            Some(if wide {
                v as u64
            } else if matches!(ty, Ty::B16 | Ty::F16) {
                v as u64 & 0xffff
            } else {
                v as u32 as u64
            })
        }
        240..=248 => {
            let k = (c - 240) as usize;
            Some(match ty {
                Ty::F16 | Ty::B16 => [
                    0x3800, 0xb800, 0x3c00, 0xbc00, 0x4000, 0xc000, 0x4400, 0xc400, 0x3118,
                ][k],
                Ty::F32 | Ty::B32 => [
                    0x3f00_0000,
                    0xbf00_0000,
                    0x3f80_0000,
                    0xbf80_0000,
                    0x4000_0000,
                    0xc000_0000,
                    0x4080_0000,
                    0xc080_0000,
                    0x3e22_f983,
                ][k],
                Ty::F64 | Ty::B64 => [
                    0x3fe0_0000_0000_0000,
                    0xbfe0_0000_0000_0000,
                    0x3ff0_0000_0000_0000,
                    0xbff0_0000_0000_0000,
                    0x4000_0000_0000_0000,
                    0xc000_0000_0000_0000,
                    0x4010_0000_0000_0000,
                    0xc010_0000_0000_0000,
                    0x3fc4_5f30_6dc9_c882,
                ][k],
            })
        }
        _ => None,
    }
}

impl Wave {
    /// The state of wave `index` of work-group `wg` at dispatch.
    #[allow(clippy::too_many_arguments)]
    pub fn start(
        k: &Kernel,
        arch: Arch,
        index: u32,
        threads: u32,
        l: &Launch,
        wg: [u32; 3],
        ptrs: [u64; 3],
        scratch_wave: u64,
        lane_bytes: u32,
        entry: u64,
    ) -> Wave {
        let mut w = Wave {
            s: [0; 128],
            v: vec![[0u32; 64]; arch.vgprs()],
            scc: false,
            pc: entry,
            mode: k.desc.initial_mode(),
            trapsts: 0,
            index,
            lane_bytes,
            nan_last: false,
            approx_perturb: false,
            arch,
            scratch_base: 0,
        };
        let d = &k.desc;
        let [packet, queue, kernarg] = ptrs;
        let mut n = 0usize;
        let put64 = |w: &mut Wave, n: &mut usize, v: u64| {
            w.s[*n] = v as u32;
            w.s[*n + 1] = (v >> 32) as u32;
            *n += 2;
        };
        if d.flag(0) {
            // private segment buffer V#: base, swizzled (ADD_TID_ENABLE), unbounded
            w.s[0] = SCRATCH_BASE as u32;
            w.s[1] = (SCRATCH_BASE >> 32) as u32 & 0xffff | 1 << 31;
            w.s[2] = 0xffff_ffff;
            w.s[3] = 1 << 23 | 3 << 21 | 1 << 19;
            n = 4;
        }
        if d.flag(1) {
            put64(&mut w, &mut n, packet);
        }
        if d.flag(2) {
            put64(&mut w, &mut n, queue);
        }
        if d.flag(3) {
            put64(&mut w, &mut n, kernarg);
        }
        if d.flag(4) {
            put64(&mut w, &mut n, 0);
        }
        if d.flag(5) {
            put64(&mut w, &mut n, SCRATCH_BASE);
        }
        if d.flag(6) {
            w.s[n] = lane_bytes;
            n += 1;
        }
        let _ = n;
        let mut n = d.user_sgpr_count() as usize;
        for (dim, &id) in wg.iter().enumerate() {
            if d.workgroup_sgpr(dim as u32) {
                w.s[n] = id;
                n += 1;
            }
        }
        if d.workgroup_sgpr(3) {
            w.s[n] = threads;
            n += 1;
        }
        let wave_off = (scratch_wave - SCRATCH_BASE) as u32;
        if d.private_segment() && !arch.hw_flat_scratch() {
            w.s[n] = wave_off;
        }
        if arch.is_gfx940() {
            w.s[FLAT_SCRATCH as usize] = scratch_wave as u32;
            w.s[FLAT_SCRATCH as usize + 1] = (scratch_wave >> 32) as u32;
        }
        w.scratch_base = scratch_wave;
        // work-item IDs and EXEC
        let mut exec = 0u64;
        let (bx, by) = (l.block[0], l.block[1]);
        for lane in 0..64u32 {
            let t = index * 64 + lane;
            if t >= threads {
                continue;
            }
            exec |= 1 << lane;
            let x = t % bx;
            let y = (t / bx) % by;
            let z = t / (bx * by);
            if arch.packed_tid() {
                w.v[0][lane as usize] = x | y << 10 | z << 20;
            } else {
                w.v[0][lane as usize] = x;
                w.v[1][lane as usize] = y;
                w.v[2][lane as usize] = z;
            }
        }
        w.set_exec(exec);
        w
    }

    /// A wave with zeroed registers, EXEC all ones, the program counter at `pc` and MODE
    /// 0x3f0 (round to nearest even, f32 and f16/f64 denormals kept, DX10_CLAMP, IEEE).
    pub fn bare(arch: Arch, pc: u64) -> Wave {
        let mut w = Wave {
            s: [0; 128],
            v: vec![[0u32; 64]; arch.vgprs()],
            scc: false,
            pc,
            mode: 0x3f0,
            trapsts: 0,
            index: 0,
            lane_bytes: 0,
            nan_last: false,
            approx_perturb: false,
            arch,
            scratch_base: 0,
        };
        w.set_exec(u64::MAX);
        w
    }

    /// EXEC.
    pub fn exec(&self) -> u64 {
        self.s[126] as u64 | (self.s[127] as u64) << 32
    }

    /// Set EXEC.
    pub fn set_exec(&mut self, v: u64) {
        self.s[126] = v as u32;
        self.s[127] = (v >> 32) as u32;
    }

    /// VCC.
    pub fn vcc(&self) -> u64 {
        self.s[106] as u64 | (self.s[107] as u64) << 32
    }

    /// Set VCC.
    pub fn set_vcc(&mut self, v: u64) {
        self.s[106] = v as u32;
        self.s[107] = (v >> 32) as u32;
    }

    /// The f32 floating-point environment of MODE.
    pub fn env32(&self) -> Env {
        Env {
            nan_last: self.nan_last,
            ..Env::from_mode(self.mode & 3, (self.mode >> 4) & 3)
        }
    }

    /// The f16/f64 floating-point environment of MODE.
    pub fn env64(&self) -> Env {
        Env {
            nan_last: self.nan_last,
            ..Env::from_mode((self.mode >> 2) & 3, (self.mode >> 6) & 3)
        }
    }

    /// MODE.DX10_CLAMP.
    pub fn dx10_clamp(&self) -> bool {
        self.mode >> 8 & 1 != 0
    }

    /// MODE.IEEE.
    pub fn ieee(&self) -> bool {
        self.mode >> 9 & 1 != 0
    }

    /// Read a scalar-space operand (SGPR, special register, constant or literal) as `ty`.
    pub fn sread(&self, code: u16, lit: u32, ty: Ty) -> u64 {
        let wide = matches!(ty, Ty::B64 | Ty::F64);
        match code {
            SGPR_NULL => 0,
            0..=127 => {
                let lo = self.s[code as usize] as u64;
                if wide {
                    lo | (self.s[(code as usize + 1) & 127] as u64) << 32
                } else {
                    lo
                }
            }
            235 | 236 => {
                if wide {
                    (SHARED_APERTURE_HI as u64) << 32
                } else {
                    SHARED_APERTURE_HI as u64
                }
            }
            237 | 238 => {
                if wide {
                    (PRIVATE_APERTURE_HI as u64) << 32
                } else {
                    PRIVATE_APERTURE_HI as u64
                }
            }
            251 => u64::from(self.vcc() == 0),
            252 => u64::from(self.exec() == 0),
            253 => u64::from(self.scc),
            255 => match ty {
                Ty::F64 => (lit as u64) << 32,
                Ty::B64 => lit as u64,
                Ty::B16 | Ty::F16 => lit as u64 & 0xffff,
                _ => lit as u64,
            },
            c => inline_const(c, ty).unwrap_or(0),
        }
    }

    /// Write SGPR-space register `code` (32 bits; writes to NULL are dropped).
    pub fn swrite(&mut self, code: u16, v: u32) {
        if (code as usize) < 128 && code != SGPR_NULL {
            self.s[code as usize] = v;
        }
    }

    /// Write SGPR-space registers `code`, `code + 1` (64 bits).
    pub fn swrite64(&mut self, code: u16, v: u64) {
        if code == SGPR_NULL {
            return;
        }
        self.swrite(code, v as u32);
        self.swrite(code + 1, (v >> 32) as u32);
    }

    /// Source `k` of a vector instruction, 32 bits per lane, as `ty`, with SDWA select and
    /// sign extension, VOP3 op_sel (16-bit types) and the abs/neg modifiers of float types.
    pub fn vs32(&self, i: &Inst, k: usize, ty: Ty) -> [u32; 64] {
        let code = i.src[k];
        let mut r = if code >= VGPR0 {
            self.v[(code - VGPR0) as usize]
        } else {
            [self.sread(code, i.lit, ty) as u32; 64]
        };
        let (mut abs, mut neg) = (false, false);
        if let Some(d) = i.sdwa {
            if k < 2 {
                let sel = d.sel[k];
                let sx = d.sext[k];
                if sel != 6 {
                    for x in r.iter_mut() {
                        *x = sdwa_sel(*x, sel, sx);
                    }
                }
                abs = d.abs[k];
                neg = d.neg[k];
            }
        } else if matches!(i.row.fmt, Fmt::Vop3) {
            abs = i.abs >> k & 1 != 0;
            neg = i.neg >> k & 1 != 0;
            if matches!(ty, Ty::F16 | Ty::B16) && i.opsel >> k & 1 != 0 {
                for x in r.iter_mut() {
                    *x >>= 16;
                }
            }
        }
        match ty {
            Ty::F32 if abs || neg => {
                for x in r.iter_mut() {
                    if abs {
                        *x &= 0x7fff_ffff;
                    }
                    if neg {
                        *x ^= 0x8000_0000;
                    }
                }
            }
            Ty::F16 => {
                for x in r.iter_mut() {
                    *x &= 0xffff;
                    if abs {
                        *x &= 0x7fff;
                    }
                    if neg {
                        *x ^= 0x8000;
                    }
                }
            }
            Ty::B16 if i.sdwa.is_none() => {
                for x in r.iter_mut() {
                    *x &= 0xffff;
                }
            }
            _ => {}
        }
        r
    }

    /// Source `k`, 64 bits per lane, as `ty` (`B64` or `F64`; abs/neg on F64).
    pub fn vs64(&self, i: &Inst, k: usize, ty: Ty) -> [u64; 64] {
        let code = i.src[k];
        let mut r = [0u64; 64];
        if code >= VGPR0 {
            let n = (code - VGPR0) as usize;
            let (lo, hi) = (&self.v[n], &self.v[(n + 1) % self.v.len()]);
            for l in 0..64 {
                r[l] = lo[l] as u64 | (hi[l] as u64) << 32;
            }
        } else {
            r = [self.sread(code, i.lit, ty); 64];
        }
        if ty == Ty::F64 && matches!(i.row.fmt, Fmt::Vop3) {
            let (abs, neg) = (i.abs >> k & 1 != 0, i.neg >> k & 1 != 0);
            if abs || neg {
                for x in r.iter_mut() {
                    if abs {
                        *x &= !(1 << 63);
                    }
                    if neg {
                        *x ^= 1 << 63;
                    }
                }
            }
        }
        r
    }

    /// Write 32 bits per active lane to VGPR `i.vdst`, through the SDWA destination select
    /// or, for a 16-bit result (`half`) of a VOP3 with `op_sel[3]`, to its high half. On
    /// gfx11 every other 16-bit result goes to the low half and keeps the high half (gfx10+
    /// 16-bit instructions preserve the unused bits; gfx9 zeroes them, which `r` carries).
    pub fn vwrite32(&mut self, i: &Inst, r: &[u32; 64], half: bool) {
        let exec = self.exec();
        let keep_hi = half && self.arch.is_gfx11();
        let dst = &mut self.v[i.vdst as usize];
        if let Some(d) = i.sdwa {
            for l in 0..64 {
                if exec >> l & 1 != 0 {
                    dst[l] = sdwa_dst(dst[l], r[l], d.dst_sel, d.dst_unused);
                }
            }
            return;
        }
        if half && matches!(i.row.fmt, Fmt::Vop3) && i.opsel & 8 != 0 {
            for l in 0..64 {
                if exec >> l & 1 != 0 {
                    dst[l] = (dst[l] & 0xffff) | (r[l] & 0xffff) << 16;
                }
            }
            return;
        }
        if keep_hi {
            for l in 0..64 {
                if exec >> l & 1 != 0 {
                    dst[l] = (dst[l] & 0xffff_0000) | (r[l] & 0xffff);
                }
            }
            return;
        }
        for l in 0..64 {
            if exec >> l & 1 != 0 {
                dst[l] = r[l];
            }
        }
    }

    /// Write 64 bits per active lane to VGPRs `i.vdst`, `i.vdst + 1`.
    pub fn vwrite64(&mut self, i: &Inst, r: &[u64; 64]) {
        let exec = self.exec();
        let n = i.vdst as usize;
        for l in 0..64 {
            if exec >> l & 1 != 0 {
                self.v[n][l] = r[l] as u32;
                self.v[n + 1][l] = (r[l] >> 32) as u32;
            }
        }
    }

    /// Run one instruction.
    ///
    /// # Errors
    /// A fault: memory outside every region, an instruction the interpreter does not
    /// implement, a trap.
    pub fn step(&mut self, g: &mut Group<'_>) -> Result<Event, Error> {
        let i = *g.prog.at(self.pc)?;
        self.pc += i.len as u64;
        match i.row.fmt {
            Fmt::Sop2 | Fmt::Sop1 | Fmt::Sopc | Fmt::Sopk | Fmt::Sopp => self.salu(&i, g),
            Fmt::Smem => self.smem(&i, g).map(|_| Event::Next),
            Fmt::Vop1 | Fmt::Vop2 | Fmt::Vopc | Fmt::Vop3 | Fmt::Vop3p => {
                self.valu(&i).map(|_| Event::Next)
            }
            Fmt::Ds => self.ds(&i, g).map(|_| Event::Next),
            Fmt::Flat | Fmt::Global | Fmt::Scratch => self.flat(&i, g).map(|_| Event::Next),
            Fmt::Mubuf => self.mubuf(&i, g).map(|_| Event::Next),
        }
    }

    /// The error for an instruction the interpreter does not implement.
    pub fn unimplemented(&self, i: &Inst) -> Error {
        Error::new(format!(
            "instruction {} is not implemented by the interpreter",
            i.row.name
        ))
    }
}

/// The SDWA source select `sel` of `x` (0-3 byte, 4-5 word, 6 dword), sign-extended when
/// `sext`.
pub fn sdwa_sel(x: u32, sel: u8, sext: bool) -> u32 {
    match sel {
        0..=3 => {
            let b = (x >> (8 * sel)) & 0xff;
            if sext {
                b as u8 as i8 as i32 as u32
            } else {
                b
            }
        }
        4 | 5 => {
            let h = (x >> (16 * (sel - 4))) & 0xffff;
            if sext {
                h as u16 as i16 as i32 as u32
            } else {
                h
            }
        }
        _ => x,
    }
}

/// The SDWA destination write of `r` into `old` (DST_SEL, DST_UNUSED: 0 zero the rest,
/// 1 sign-extend, 2 preserve the rest of `old`).
pub fn sdwa_dst(old: u32, r: u32, sel: u8, unused: u8) -> u32 {
    let (shift, width) = match sel {
        0..=3 => (8 * sel as u32, 8),
        4 | 5 => (16 * (sel as u32 - 4), 16),
        _ => return r,
    };
    let mask = ((1u64 << width) - 1) as u32;
    let field = (r & mask) << shift;
    match unused {
        2 => (old & !(mask << shift)) | field,
        1 => {
            let top = (r >> (width - 1)) & 1;
            let above = if top != 0 && shift + width < 32 {
                !0u32 << (shift + width)
            } else {
                0
            };
            field | above
        }
        _ => field,
    }
}

/// The `fp` format of a type.
pub fn fmt_of(ty: Ty) -> fp::Format {
    match ty {
        Ty::F16 | Ty::B16 => fp::F16,
        Ty::F32 | Ty::B32 => fp::F32,
        _ => fp::F64,
    }
}
