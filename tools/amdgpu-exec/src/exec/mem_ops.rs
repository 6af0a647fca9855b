//! Memory instructions: SMEM, DS (LDS), FLAT / GLOBAL / SCRATCH and MUBUF (Vega ISA ch. 8
//! "Scalar Memory Operations", ch. 9 "Vector Memory Operations" with §9.1.5 "Buffer
//! Addressing" and the swizzled private (scratch) layout, ch. 10 "Flat Memory Instructions",
//! ch. 11 "Data Share Operations"; the MI300 ISA's same chapters for gfx942 scratch).
//!
//! Scratch is swizzled per lane as the hardware does it for private memory with an element
//! size of 4 bytes and an index stride of 64: byte `o` of lane `l` lies at
//! `base + (o / 4) * 256 + l * 4 + o % 4`. MUBUF (through a V# with ADD_TID_ENABLE), FLAT to
//! the private aperture and SCRATCH instructions all use this map, so they see the same
//! bytes.

use super::wave::{Ty, FLAT_SCRATCH};
use super::{Group, Wave, PRIVATE_APERTURE_HI, SHARED_APERTURE_HI};
use crate::decode::Inst;
use crate::fp;
use crate::isa::{Fmt, Op};
use crate::memop::{Atom, Kind};
use crate::Error;

/// Where one lane's access goes.
#[derive(Debug, Clone, Copy)]
enum Tgt {
    /// Flat memory.
    Mem(u64),
    /// The work-group's LDS.
    Lds(u64),
    /// Swizzled scratch: (base, private offset, lane).
    Swz(u64, u64, u32),
    /// A buffer access out of the V#'s range: loads give 0, stores are dropped.
    Null,
}

fn lds_range(g: &Group<'_>, o: u64, n: usize) -> Result<usize, Error> {
    if o + n as u64 > g.lds.len() as u64 {
        return Err(Error::new(format!(
            "LDS access of {n} bytes at 0x{o:x} is outside the work-group's {} bytes of LDS",
            g.lds.len()
        )));
    }
    Ok(o as usize)
}

fn swz(base: u64, off: u64, lane: u32) -> u64 {
    base.wrapping_add((off / 4) * 256 + lane as u64 * 4 + off % 4)
}

fn tread(g: &Group<'_>, t: Tgt, buf: &mut [u8]) -> Result<(), Error> {
    match t {
        Tgt::Mem(a) => g.mem.read(a, buf),
        Tgt::Lds(o) => {
            let o = lds_range(g, o, buf.len())?;
            buf.copy_from_slice(&g.lds[o..o + buf.len()]);
            Ok(())
        }
        Tgt::Swz(base, off, lane) => {
            let mut k = 0usize;
            while k < buf.len() {
                let o = off + k as u64;
                let n = (4 - (o % 4) as usize).min(buf.len() - k);
                g.mem.read(swz(base, o, lane), &mut buf[k..k + n])?;
                k += n;
            }
            Ok(())
        }
        Tgt::Null => {
            buf.fill(0);
            Ok(())
        }
    }
}

fn twrite(g: &mut Group<'_>, t: Tgt, data: &[u8]) -> Result<(), Error> {
    match t {
        Tgt::Mem(a) => g.mem.write(a, data),
        Tgt::Lds(o) => {
            let o = lds_range(g, o, data.len())?;
            g.lds[o..o + data.len()].copy_from_slice(data);
            Ok(())
        }
        Tgt::Swz(base, off, lane) => {
            let mut k = 0usize;
            while k < data.len() {
                let o = off + k as u64;
                let n = (4 - (o % 4) as usize).min(data.len() - k);
                g.mem.write(swz(base, o, lane), &data[k..k + n])?;
                k += n;
            }
            Ok(())
        }
        Tgt::Null => Ok(()),
    }
}

/// The new value of an atomic: `old` combined with `data` (and `cmp` for compare-swaps).
fn atom(a: Atom, size: u8, old: u64, data: u64, cmp: u64) -> u64 {
    let m = if size == 8 { u64::MAX } else { 0xffff_ffff };
    let (o, d) = (old & m, data & m);
    let sx = |v: u64| -> i64 {
        if size == 8 {
            v as i64
        } else {
            v as u32 as i32 as i64
        }
    };
    let r = match a {
        Atom::Swap => d,
        Atom::Cmpswap => {
            if o == cmp & m {
                d
            } else {
                o
            }
        }
        Atom::Cmpst => {
            // DS: data (cmp) in DATA0, the new value in DATA1
            if o == d {
                cmp & m
            } else {
                o
            }
        }
        Atom::Add => o.wrapping_add(d),
        Atom::Sub => o.wrapping_sub(d),
        Atom::Rsub => d.wrapping_sub(o),
        Atom::Smin => {
            if sx(o) < sx(d) {
                o
            } else {
                d
            }
        }
        Atom::Smax => {
            if sx(o) > sx(d) {
                o
            } else {
                d
            }
        }
        Atom::Umin => o.min(d),
        Atom::Umax => o.max(d),
        Atom::And => o & d,
        Atom::Or => o | d,
        Atom::Xor => o ^ d,
        Atom::Inc => {
            if o >= d {
                0
            } else {
                o + 1
            }
        }
        Atom::Dec => {
            if o == 0 || o > d {
                d
            } else {
                o - 1
            }
        }
        Atom::Mskor => (o & !d) | (cmp & m),
        Atom::AddF32 => fp::add(fp::F32, o, d, fp::Env::IEEE),
        Atom::AddF64 => fp::add(fp::F64, o, d, fp::Env::IEEE),
        Atom::MinF32 | Atom::MaxF32 | Atom::MinF64 | Atom::MaxF64 => {
            let f = if matches!(a, Atom::MinF32 | Atom::MaxF32) {
                fp::F32
            } else {
                fp::F64
            };
            let want_min = matches!(a, Atom::MinF32 | Atom::MinF64);
            if f.is_nan(o) {
                d
            } else if f.is_nan(d) {
                o
            } else {
                match fp::cmp(f, o, d, fp::Env::IEEE) {
                    Some(std::cmp::Ordering::Less) => {
                        if want_min {
                            o
                        } else {
                            d
                        }
                    }
                    _ => {
                        if want_min {
                            d
                        } else {
                            o
                        }
                    }
                }
            }
        }
        Atom::PkAddF16 | Atom::PkAddBf16 => {
            let f = if a == Atom::PkAddF16 {
                fp::F16
            } else {
                fp::BF16
            };
            let lo = fp::add(f, o & 0xffff, d & 0xffff, fp::Env::IEEE);
            let hi = fp::add(f, (o >> 16) & 0xffff, (d >> 16) & 0xffff, fp::Env::IEEE);
            lo | hi << 16
        }
    };
    r & m
}

impl Wave {
    fn vbytes(&self, reg: u16, lane: usize, n: usize, hi: bool) -> [u8; 16] {
        let mut b = [0u8; 16];
        if n <= 2 {
            let v = self.v[reg as usize][lane];
            let v = if hi { v >> 16 } else { v };
            b[..4].copy_from_slice(&v.to_le_bytes());
        } else {
            for k in 0..n.div_ceil(4) {
                let v = self.v[(reg as usize + k) % self.v.len()][lane];
                b[4 * k..4 * k + 4].copy_from_slice(&v.to_le_bytes());
            }
        }
        b
    }

    fn vgpr64(&self, reg: u16, lane: usize) -> u64 {
        self.v[reg as usize][lane] as u64 | (self.v[reg as usize + 1][lane] as u64) << 32
    }

    /// Write a loaded value of `n` bytes into `reg..` of `lane` (sub-dword: extended or
    /// d16-merged).
    fn load_into(&mut self, i: &Inst, reg: u16, lane: usize, b: &[u8]) {
        let n = b.len();
        let m = i.mem;
        if n <= 2 {
            let raw = if n == 1 {
                b[0] as u32
            } else {
                u16::from_le_bytes([b[0], b[1]]) as u32
            };
            let val = if m.signed {
                if n == 1 {
                    raw as u8 as i8 as i32 as u32
                } else {
                    raw as u16 as i16 as i32 as u32
                }
            } else {
                raw
            };
            let old = self.v[reg as usize][lane];
            self.v[reg as usize][lane] = match m.d16 {
                1 => (old & 0xffff_0000) | (val & 0xffff),
                2 => (old & 0xffff) | (val & 0xffff) << 16,
                _ => val,
            };
        } else {
            for k in 0..n / 4 {
                let v = u32::from_le_bytes(b[4 * k..4 * k + 4].try_into().unwrap());
                let r = (reg as usize + k) % self.v.len();
                self.v[r][lane] = v;
            }
        }
    }

    /// SMEM.
    ///
    /// # Errors
    /// A memory fault or an unimplemented instruction.
    pub fn smem(&mut self, i: &Inst, g: &mut Group<'_>) -> Result<(), Error> {
        match i.op {
            Op::S_MEMTIME | Op::S_MEMREALTIME => {
                self.swrite64(i.sdst, g.clock);
                return Ok(());
            }
            Op::S_DCACHE_INV | Op::S_DCACHE_WB | Op::S_DCACHE_INV_VOL | Op::S_DCACHE_WB_VOL => {
                return Ok(())
            }
            _ => {}
        }
        if i.mem.kind != Kind::Load {
            return Err(self.unimplemented(i));
        }
        let off = if i.flag {
            let o = i.imm as i64 as u64;
            if i.soe {
                // gfx11: immediate offset plus the SOFFSET SGPR
                o.wrapping_add(self.sread(i.saddr, 0, Ty::B32))
            } else {
                o
            }
        } else {
            self.s[i.saddr as usize & 127] as u64
        };
        let n = i.mem.size as usize;
        let mut buf = vec![0u8; n];
        if i.row.name.starts_with("s_buffer_") {
            let b = i.sbase as usize;
            let base = self.s[b] as u64 | ((self.s[b + 1] & 0xffff) as u64) << 32;
            let records = self.s[b + 2] as u64;
            for k in 0..n / 4 {
                let o = (off & !3) + 4 * k as u64;
                if o + 4 <= records {
                    g.mem.read(base + o, &mut buf[4 * k..4 * k + 4])?;
                }
            }
        } else {
            let base = self.sread(i.sbase, 0, Ty::B64);
            g.mem.read(base.wrapping_add(off) & !3, &mut buf)?;
        }
        for k in 0..n / 4 {
            self.swrite(
                i.sdst + k as u16,
                u32::from_le_bytes(buf[4 * k..4 * k + 4].try_into().unwrap()),
            );
        }
        Ok(())
    }

    /// DS.
    ///
    /// # Errors
    /// An LDS access outside the work-group's LDS, or an unimplemented instruction.
    pub fn ds(&mut self, i: &Inst, g: &mut Group<'_>) -> Result<(), Error> {
        let exec = self.exec();
        let m = i.mem;
        let off16 = (i.imm as u32 | (i.offset1 as u32) << 8) as u64;
        let n = m.size as usize;
        match m.kind {
            Kind::Bpermute | Kind::Permute => {
                let addr = self.v[i.addr as usize];
                let data = self.v[i.data0 as usize];
                let mut tmp = [0u32; 64];
                for l in 0..64 {
                    if exec >> l & 1 == 0 {
                        continue;
                    }
                    // gfx11 wave64: each 32-lane half permutes within itself (RDNA3 ISA
                    // DS_BPERMUTE_B32: "src_lane ... % 32"; Mesa's ACO emulates a full-wave
                    // bpermute on gfx10-11.5 wave64 from two half-wave ones)
                    let j = if self.arch.is_gfx11() {
                        (l & 32) | (((addr[l] as u64 + off16) / 4) % 32) as usize
                    } else {
                        (((addr[l] as u64 + off16) / 4) % 64) as usize
                    };
                    if m.kind == Kind::Bpermute {
                        if exec >> j & 1 != 0 {
                            tmp[l] = data[j];
                        }
                    } else {
                        tmp[j] = data[l];
                    }
                }
                let d = &mut self.v[i.vdst as usize];
                for l in 0..64 {
                    if exec >> l & 1 != 0 {
                        d[l] = tmp[l];
                    }
                }
                return Ok(());
            }
            Kind::Swizzle => {
                // The source is the instruction's one VGPR operand, in the ADDR field
                // (`ds_swizzle_b32 vdst, vaddr offset:...`).
                let data = self.v[i.addr as usize];
                let o = off16 as u32;
                let mut tmp = [0u32; 64];
                for l in 0..64usize {
                    let j = if o & 0x8000 != 0 {
                        (l & !3) | ((o >> (2 * (l & 3))) & 3) as usize
                    } else {
                        let (and, or, xor) = (o & 0x1f, (o >> 5) & 0x1f, (o >> 10) & 0x1f);
                        (l & !31) | ((((l as u32 & 31) & and) | or) ^ xor) as usize
                    };
                    if exec >> j & 1 != 0 {
                        tmp[l] = data[j];
                    }
                }
                let d = &mut self.v[i.vdst as usize];
                for l in 0..64 {
                    if exec >> l & 1 != 0 {
                        d[l] = tmp[l];
                    }
                }
                return Ok(());
            }
            Kind::Other => {
                if i.op == Op::DS_NOP {
                    return Ok(());
                }
                return Err(self.unimplemented(i));
            }
            _ => {}
        }
        for l in 0..64 {
            if exec >> l & 1 == 0 {
                continue;
            }
            // DS addresses are 32-bit: base + offset wraps
            let a = self.v[i.addr as usize][l] as u64;
            match m.kind {
                Kind::Load => {
                    let mut b = [0u8; 16];
                    tread(g, Tgt::Lds((a + off16) & 0xffff_ffff), &mut b[..n])?;
                    self.load_into(i, i.vdst, l, &b[..n]);
                }
                Kind::Store => {
                    let b = self.vbytes(i.data0, l, n, m.d16 == 2);
                    twrite(g, Tgt::Lds((a + off16) & 0xffff_ffff), &b[..n])?;
                }
                Kind::Read2 | Kind::Write2 | Kind::Xchg2 => {
                    let mult = n as u64 * if m.st64 { 64 } else { 1 };
                    let addrs = [
                        (a + i.imm as u64 * mult) & 0xffff_ffff,
                        (a + i.offset1 as u64 * mult) & 0xffff_ffff,
                    ];
                    for (k, &ad) in addrs.iter().enumerate() {
                        let dreg = (n / 4 * k) as u16;
                        if m.kind != Kind::Write2 {
                            let mut b = [0u8; 8];
                            tread(g, Tgt::Lds(ad), &mut b[..n])?;
                            self.load_into(i, i.vdst + dreg, l, &b[..n]);
                        }
                        if m.kind != Kind::Read2 {
                            let src = if k == 0 { i.data0 } else { i.data1 };
                            let b = self.vbytes(src, l, n, false);
                            twrite(g, Tgt::Lds(ad), &b[..n])?;
                        }
                    }
                }
                Kind::Atomic(op) => {
                    let t = Tgt::Lds((a + off16) & 0xffff_ffff);
                    let mut b = [0u8; 8];
                    tread(g, t, &mut b[..n])?;
                    let old = u64::from_le_bytes(b);
                    let rd = |w: &Self, r: u16| -> u64 {
                        if n == 8 {
                            w.vgpr64(r, l)
                        } else {
                            w.v[r as usize][l] as u64
                        }
                    };
                    let d0 = rd(self, i.data0);
                    let d1 = if matches!(op, Atom::Cmpst | Atom::Mskor | Atom::Cmpswap) {
                        rd(self, i.data1)
                    } else {
                        0
                    };
                    let new = atom(op, n as u8, old, d0, d1);
                    twrite(g, t, &new.to_le_bytes()[..n])?;
                    if m.rtn {
                        self.v[i.vdst as usize][l] = old as u32;
                        if n == 8 {
                            self.v[i.vdst as usize + 1][l] = (old >> 32) as u32;
                        }
                    }
                }
                _ => return Err(self.unimplemented(i)),
            }
        }
        Ok(())
    }

    fn flat_target(&self, i: &Inst, l: usize) -> Tgt {
        let off = i.imm as i64 as u64;
        match i.row.fmt {
            Fmt::Scratch => {
                let vaddr = if self.arch.hw_flat_scratch() {
                    i.flag
                } else {
                    i.saddr == 0x7f
                };
                let mut o = off;
                if i.saddr != 0x7f {
                    o = o.wrapping_add(self.s[i.saddr as usize & 127] as u64);
                }
                if vaddr {
                    o = o.wrapping_add(self.v[i.addr as usize][l] as u64);
                }
                Tgt::Swz(self.flat_scratch(), o & 0xffff_ffff, l as u32)
            }
            _ => {
                let a = if i.saddr != 0x7f && i.row.fmt == Fmt::Global {
                    self.sread(i.saddr, 0, Ty::B64)
                        .wrapping_add(self.v[i.addr as usize][l] as u64)
                } else {
                    self.vgpr64(i.addr, l)
                };
                let a = a.wrapping_add(off);
                if i.row.fmt == Fmt::Flat {
                    match (a >> 32) as u32 {
                        SHARED_APERTURE_HI => return Tgt::Lds(a & 0xffff_ffff),
                        PRIVATE_APERTURE_HI => {
                            return Tgt::Swz(self.flat_scratch(), a & 0xffff_ffff, l as u32);
                        }
                        _ => {}
                    }
                }
                Tgt::Mem(a)
            }
        }
    }

    /// FLAT_SCRATCH: SGPRs 102-103 on gfx9, a register of its own on gfx11.
    fn flat_scratch(&self) -> u64 {
        if self.arch.is_gfx11() {
            self.scratch_base
        } else {
            self.sread(FLAT_SCRATCH, 0, Ty::B64)
        }
    }

    /// FLAT, GLOBAL and SCRATCH.
    ///
    /// # Errors
    /// A memory fault or an unimplemented instruction.
    pub fn flat(&mut self, i: &Inst, g: &mut Group<'_>) -> Result<(), Error> {
        let exec = self.exec();
        for l in 0..64 {
            if exec >> l & 1 == 0 {
                continue;
            }
            let t = self.flat_target(i, l);
            self.access(i, g, t, l)?;
        }
        Ok(())
    }

    fn access(&mut self, i: &Inst, g: &mut Group<'_>, t: Tgt, l: usize) -> Result<(), Error> {
        let m = i.mem;
        let n = m.size as usize;
        match m.kind {
            Kind::Load => {
                let mut b = [0u8; 16];
                tread(g, t, &mut b[..n])?;
                self.load_into(i, i.vdst, l, &b[..n]);
            }
            Kind::Store => {
                let b = self.vbytes(i.data0, l, n, m.d16 == 2);
                twrite(g, t, &b[..n])?;
            }
            Kind::Atomic(op) => {
                let mut b = [0u8; 8];
                tread(g, t, &mut b[..n])?;
                let old = u64::from_le_bytes(b);
                let rd = |w: &Self, r: u16| -> u64 {
                    if n == 8 {
                        w.vgpr64(r, l)
                    } else {
                        w.v[r as usize][l] as u64
                    }
                };
                let data = rd(self, i.data0);
                let cmp = if op == Atom::Cmpswap {
                    rd(self, i.data0 + (n / 4) as u16)
                } else {
                    0
                };
                let new = atom(op, n as u8, old, data, cmp);
                twrite(g, t, &new.to_le_bytes()[..n])?;
                if i.glc {
                    let r = if i.row.fmt == Fmt::Mubuf {
                        i.data0
                    } else {
                        i.vdst
                    };
                    self.v[r as usize][l] = old as u32;
                    if n == 8 {
                        self.v[r as usize + 1][l] = (old >> 32) as u32;
                    }
                }
            }
            _ => return Err(self.unimplemented(i)),
        }
        Ok(())
    }

    /// MUBUF.
    ///
    /// # Errors
    /// A memory fault or an unimplemented instruction.
    pub fn mubuf(&mut self, i: &Inst, g: &mut Group<'_>) -> Result<(), Error> {
        if i.mem.kind == Kind::Other {
            return match i.op {
                Op::BUFFER_WBINVL1
                | Op::BUFFER_WBINVL1_VOL
                | Op::BUFFER_WBL2
                | Op::BUFFER_INV
                | Op::BUFFER_GL0_INV
                | Op::BUFFER_GL1_INV => Ok(()),
                _ => Err(self.unimplemented(i)),
            };
        }
        let b = i.sbase as usize;
        let w = [self.s[b], self.s[b + 1], self.s[b + 2], self.s[b + 3]];
        let base = w[0] as u64 | ((w[1] & 0xffff) as u64) << 32;
        let stride = ((w[1] >> 16) & 0x3fff) as u64;
        let records = w[2] as u64;
        let add_tid = w[3] >> 23 & 1 != 0;
        let soff = self.sread(i.saddr, 0, Ty::B32) & 0xffff_ffff;
        let exec = self.exec();
        for l in 0..64 {
            if exec >> l & 1 == 0 {
                continue;
            }
            let mut vreg = i.addr as usize;
            let index = if i.idxen {
                let x = self.v[vreg][l] as u64;
                vreg += 1;
                x
            } else {
                0
            };
            let voff = if i.offen { self.v[vreg][l] as u64 } else { 0 };
            let off = voff + i.imm as u64;
            let t = if add_tid {
                Tgt::Swz(base.wrapping_add(soff), off & 0xffff_ffff, l as u32)
            } else {
                let in_range = if stride == 0 {
                    off + i.mem.size as u64 <= records
                } else {
                    index < records
                };
                if in_range {
                    Tgt::Mem(base + soff + index * stride + off)
                } else {
                    Tgt::Null
                }
            };
            // MUBUF loads and stores use VDATA for both directions
            let mut j = *i;
            if matches!(i.mem.kind, Kind::Load) {
                j.vdst = i.data0;
            }
            self.access(&j, g, t, l)?;
        }
        Ok(())
    }
}
