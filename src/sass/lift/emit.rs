//! The meaning of each lifted SASS form, as PTX text (see the parent module for the state
//! mapping). Each function returns `Err(reason)` for an operand shape it does not handle.

use crate::sass::decode::{Bank, File, Guard, Instr, Mem, Operand, Reg, SrcMods};
use crate::sass::info::KernelInfo;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

mod atomic;
mod data;
mod float;
mod tensor;
mod warp;

/// The cubin's constant banks other than bank 0 (`.nv.constant2`: compiler constants), with
/// the banks that have relocations (their bytes are not final, so they are not read), and the
/// module's data, symbols and relocations (banks 3 and 4, `emit/data.rs`).
#[derive(Debug, Clone, Default)]
pub struct Consts {
    /// Bank number to bytes.
    pub banks: BTreeMap<u8, Vec<u8>>,
    /// Banks with a relocation section.
    pub relocated: BTreeSet<u8>,
    /// The data sections (`.nv.global.init`, `.nv.global`, `.nv.constant3`) by name.
    pub data: BTreeMap<String, Vec<u8>>,
    /// The data and function symbols.
    pub symbols: Vec<crate::sass::info::DataSymbol>,
    /// The relocations per patched section.
    pub relocations: BTreeMap<String, Vec<crate::sass::info::Reloc>>,
    /// The cubin's functions that are not kernels (`__cuda_sm70_shflsync_idx_p`,
    /// `__cuda_sm20_div_u64`), which a kernel calls with `CALL.ABS.NOINC \`(name)`; the
    /// lifter inlines them at the call (`lift/mod.rs`, `inline_calls`).
    pub functions: BTreeMap<String, crate::sass::decode::Function>,
}

type R<T> = Result<T, String>;

/// The per-thread stack CUDA gives a kernel by default (`cudaLimitStackSize`, 1 KiB), the
/// local memory the lifted kernel adds to its frame when its call graph is recursive.
pub const RECURSION_STACK: u32 = 1024;

/// The kernel's parameters as PTX `.param` arrays at the cubin's offsets.
pub(super) struct ParamLayout {
    base: u32,
    /// (offset in the block, size, PTX alignment).
    params: Vec<(u32, u32, u32)>,
}

impl ParamLayout {
    pub(super) fn new(info: &KernelInfo, family: &str) -> R<ParamLayout> {
        let base = info
            .param_base
            .or_else(|| super::default_param_base(family))
            .ok_or("no parameter bank offset")?;
        let mut params = Vec::new();
        let mut end = 0u32;
        for (n, p) in info.params.iter().enumerate() {
            if p.ordinal as usize != n {
                return Err(format!(
                    "parameter ordinals are not 0..n (got {} at {n})",
                    p.ordinal
                ));
            }
            let off = u32::from(p.offset);
            // The smallest power-of-two alignment, at least the natural one of the size (up to
            // 8), at which PTX's sequential layout puts the parameter at its cubin offset.
            let mut align = u32::from(p.size).clamp(1, 8).next_power_of_two().min(8);
            while off % align != 0 {
                align /= 2;
            }
            while off >= end && end.next_multiple_of(align) != off && off % (align * 2) == 0 {
                align *= 2;
            }
            if off < end || end.next_multiple_of(align) != off {
                return Err(format!(
                    "parameter {n} at offset {off:#x} cannot be placed by PTX's layout (previous ends at {end:#x})"
                ));
            }
            params.push((off, u32::from(p.size), align));
            end = off + u32::from(p.size);
        }
        Ok(ParamLayout { base, params })
    }

    pub(super) fn declarations(&self, kernel: &str) -> String {
        let _ = kernel;
        self.params
            .iter()
            .enumerate()
            .map(|(i, (_, size, align))| format!("\n\t.param .align {align} .b8 __p{i}[{size}]"))
            .collect::<Vec<_>>()
            .join(",")
    }

    /// `[__pN+d]` for `bytes` at bank-0 offset `off`, when inside one parameter.
    fn addr(&self, off: i64, bytes: u32) -> Option<String> {
        let rel = off - i64::from(self.base);
        if rel < 0 {
            return None;
        }
        let rel = rel as u32;
        self.params.iter().enumerate().find_map(|(i, &(o, s, _))| {
            (rel >= o && rel + bytes <= o + s).then(|| {
                if rel == o {
                    format!("[__p{i}]")
                } else {
                    format!("[__p{i}+{}]", rel - o)
                }
            })
        })
    }

    /// The entry code of a kernel that reads its parameters through `param_window`: the local
    /// array `__pwin` (the parameter block, from offset 0 of the first parameter's bank base)
    /// and the copy of each parameter into it, in 4-byte words where the parameter allows.
    fn window_copy(&self) -> String {
        let end = self
            .params
            .iter()
            .map(|&(o, s, _)| o + s)
            .max()
            .unwrap_or(0);
        let mut s = format!(
            "\t.local .align 16 .b8 __pwin[{}];\n\t.reg .b32 %pw;\n",
            end.max(4)
        );
        for (i, &(o, size, _)) in self.params.iter().enumerate() {
            let step = if o % 4 == 0 && size % 4 == 0 { 4 } else { 1 };
            let ty = if step == 4 { "b32" } else { "b8" };
            for k in (0..size).step_by(step as usize) {
                let _ = writeln!(
                    s,
                    "\tld.param.{ty} %pw, [__p{i}+{k}];\n\tst.local.{ty} [__pwin+{}], %pw;",
                    o + k
                );
            }
        }
        s
    }

    fn covers(&self, off: i64) -> bool {
        off >= i64::from(self.base)
    }
}

/// Emission state of one kernel.
pub(super) struct Cx<'a> {
    family: &'static str,
    params: &'a ParamLayout,
    info: &'a KernelInfo,
    consts: &'a Consts,
    buf: String,
    n16: u32,
    n32: u32,
    n64: u32,
    npred: u32,
    /// The warp member mask register `%wm` is used (`WARPSYNC`, collectives).
    uses_wm: bool,
    /// The function holds a warp-synchronous form, so its convergence barriers are kept
    /// (`%b0`..`%b15`, see `emit/warp.rs`); otherwise `BSSY`/`BSYNC` have no effect.
    pub(super) convergence: bool,
    /// The kernel addresses shared memory.
    uses_shared: bool,
    /// The kernel takes the generic address of its parameter block (`param_window`): the
    /// parameters are copied to the local array `__pwin` at entry (see [`Cx::window`]).
    uses_param_window: bool,
    /// The return offsets of the function's `CALL.REL`s (the instruction after each).
    pub(super) return_sites: Vec<u32>,
    /// Set by an instruction that applied the guard itself (a guarded `BRA`).
    pub(super) guard_consumed: bool,
    /// Per `MUFU.SIN/COS` offset, the offset of ptxas's `FMUL.RZ` by 1/2π before it and the
    /// register holding the argument in radians there (see `turns_arguments` in
    /// `lift/mod.rs`).
    pub(super) turns: BTreeMap<u32, (u32, Reg)>,
    /// Per such `FMUL.RZ` offset, the temporary its radian argument was copied to.
    pub(super) radians: BTreeMap<u32, String>,
    /// The last memory or control form was a `MEMBAR` (see `emit/atomic.rs`, `CCTL`).
    after_membar: bool,
    /// The result of the last `BAR.RED` (its operation and the temporary holding it).
    bar_result: Option<(&'static str, String)>,
    /// Module-scope declarations the kernel needs (the data of banks 3/4, the external
    /// functions it calls), as (name, PTX text), in first-use order.
    pub(super) decls: Vec<(String, String)>,
    /// Per `CALL.ABS` offset, the external function it calls (see `emit/warp.rs`).
    pub(super) abs_calls: BTreeMap<u32, String>,
    /// The offsets of the `LDC.64` that load those functions' addresses (consumed by the
    /// call, not lifted as values).
    pub(super) callee_loads: BTreeSet<u32>,
    /// The subroutine entries an indirect `CALL.REL` may branch to.
    pub(super) entries: Vec<u32>,
}

/// The PTX name of a predicate register (`%p0`, `%q1`, `%pt`).
pub(super) fn pred_name(r: Reg) -> String {
    match (r.file, r.idx) {
        (_, crate::sass::decode::operand::PT) => "%pt".into(),
        (File::Up, i) => format!("%q{i}"),
        (_, i) => format!("%p{i}"),
    }
}

/// The value of an immediate this module printed (`0`, `0x0000000f`).
fn parse_imm(v: &str) -> Option<u64> {
    match v.strip_prefix("0x") {
        Some(h) => u64::from_str_radix(h, 16).ok(),
        None => v.parse().ok(),
    }
}

/// A relocated immediate naming a symbol's address half, as nvdisasm prints it: `32@lo(sym)`
/// or `32@hi(sym)` (the `R_CUDA_ABS32_LO_32`/`HI_32` relocations of an address loaded into
/// registers): (symbol, whether the high half).
fn relocated_half(t: &str) -> Option<(&str, bool)> {
    let (high, rest) = match t.trim() {
        s if s.starts_with("32@lo(") => (false, &s[6..]),
        s if s.starts_with("32@hi(") => (true, &s[6..]),
        _ => return None,
    };
    let name = rest.strip_suffix(')')?;
    name.bytes()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'$' | b'.'))
        .then_some((name, high))
}

fn imm32(v: i64) -> String {
    format!("0x{:08x}", v as u32)
}

impl<'a> Cx<'a> {
    pub(super) fn new(
        family: &'static str,
        params: &'a ParamLayout,
        info: &'a KernelInfo,
        consts: &'a Consts,
    ) -> Cx<'a> {
        Cx {
            family,
            params,
            info,
            consts,
            buf: String::new(),
            n16: 0,
            uses_wm: false,
            convergence: false,
            uses_shared: false,
            uses_param_window: false,
            return_sites: Vec::new(),
            n32: 0,
            n64: 0,
            npred: 0,
            guard_consumed: false,
            turns: BTreeMap::new(),
            radians: BTreeMap::new(),
            after_membar: false,
            bar_result: None,
            decls: Vec::new(),
            abs_calls: BTreeMap::new(),
            callee_loads: BTreeSet::new(),
            entries: Vec::new(),
        }
    }

    pub(super) fn begin(&mut self) {
        self.buf.clear();
        self.guard_consumed = false;
    }

    pub(super) fn take(&mut self) -> String {
        std::mem::take(&mut self.buf)
    }

    /// The copy of `x` (an `FMUL.RZ`'s radian source at `offset`) to a temporary, which the
    /// `MUFU.SIN/COS` of [`Cx::turns`] reads; returns the PTX line.
    pub(super) fn save_radians(&mut self, offset: u32, x: Reg) -> String {
        let t = self.t32();
        let v = Self::reg_name(x).unwrap_or_else(|| "0".into());
        self.radians.insert(offset, t.clone());
        format!("\tmov.b32 {t}, {v};\n")
    }

    /// The symbol shared addresses are offsets from: the kernel's static `.shared` array, or,
    /// for a kernel without static shared memory, the module's dynamic (`.extern .shared`)
    /// one, [`super::DYNAMIC_SHARED`] (declared at module scope: an `.extern` variable keeps
    /// its name through LLVM, so it cannot be a function-scope one the lowering renames).
    pub(super) fn shared_symbol(&self) -> &'static str {
        if self.info.shared_size > 0 {
            "__smem"
        } else {
            super::DYNAMIC_SHARED
        }
    }

    /// The bytes of the lifted local array `__frame` (R1 starts at its end): the kernel's
    /// frame, or, when its callees use frames of their own (`CALL.REL` subroutines),
    /// `EIATTR_MIN_STACK_SIZE` (the frame plus the deepest callee chain); for a recursive call
    /// graph, which ptxas cannot bound, the frame plus CUDA's default per-thread stack limit
    /// ([`RECURSION_STACK`], `cudaLimitStackSize`).
    fn stack_size(&self) -> u32 {
        let frame = self.info.frame_size.unwrap_or(0);
        match self.info.min_stack_size {
            Some(crate::sass::info::UNKNOWN_STACK) => frame + RECURSION_STACK,
            Some(s) => frame.max(s),
            None => frame,
        }
    }

    /// Whether the kernel reads the module's dynamic shared memory symbol.
    pub(super) fn uses_dynamic_shared(&self) -> bool {
        self.uses_shared && self.info.shared_size == 0
    }

    pub(super) fn declarations(&self) -> String {
        let mut s = String::from(
            "\t.reg .b32 %r<255>;\n\t.reg .b32 %u<63>;\n\t.reg .pred %p<7>;\n\t.reg .pred %q<7>;\n\t.reg .pred %pt;\n",
        );
        let _ = writeln!(s, "\t.reg .b32 %t<{}>;", self.n32.max(1));
        let _ = writeln!(s, "\t.reg .b64 %d<{}>;", self.n64.max(1));
        let _ = writeln!(s, "\t.reg .pred %c<{}>;", self.npred.max(1));
        if self.n16 > 0 {
            let _ = writeln!(s, "\t.reg .b16 %h<{}>;", self.n16);
        }
        if self.uses_wm {
            s.push_str("\t.reg .b32 %wm;\n");
        }
        if self.convergence {
            s.push_str("\t.reg .b32 %b<16>;\n");
        }
        if self.info.shared_size > 0 {
            let _ = writeln!(
                s,
                "\t.shared .align 16 .b8 __smem[{}];",
                self.info.shared_size
            );
        }
        let frame = self.stack_size();
        if frame > 0 {
            let _ = writeln!(s, "\t.local .align 16 .b8 __frame[{frame}];");
        }
        s.push_str("\tsetp.eq.u32 %pt, 0, 0;\n");
        if self.uses_param_window {
            s.push_str(&self.params.window_copy());
        }
        if self.uses_wm {
            s.push_str("\tmov.b32 %wm, 0xffffffff;\n");
        }
        if self.convergence {
            for b in 0..16 {
                let _ = writeln!(s, "\tmov.b32 %b{b}, 0;");
            }
        }
        s
    }

    /// Text as it is (block braces).
    fn raw(&mut self, t: &str) {
        self.buf.push_str(t);
    }

    fn line(&mut self, l: impl AsRef<str>) {
        self.buf.push('\t');
        self.buf.push_str(l.as_ref());
        self.buf.push_str(";\n");
    }

    fn t32(&mut self) -> String {
        self.n32 += 1;
        format!("%t{}", self.n32 - 1)
    }
    fn t16(&mut self) -> String {
        self.n16 += 1;
        format!("%h{}", self.n16 - 1)
    }
    fn t64(&mut self) -> String {
        self.n64 += 1;
        format!("%d{}", self.n64 - 1)
    }
    fn tp(&mut self) -> String {
        self.npred += 1;
        format!("%c{}", self.npred - 1)
    }

    fn reg_name(r: Reg) -> Option<String> {
        match r.file {
            File::R if r.is_zero() => None,
            File::Ur if r.is_zero() => None,
            File::R => Some(format!("%r{}", r.idx)),
            File::Ur => Some(format!("%u{}", r.idx)),
            _ => None,
        }
    }

    /// The name of the register after `r` in a pair.
    fn next(r: Reg) -> R<Reg> {
        let max = if r.file == File::Ur { 62 } else { 254 };
        if r.idx >= max {
            return Err(format!("register pair starting at {r}"));
        }
        Ok(Reg {
            file: r.file,
            idx: r.idx + 1,
        })
    }

    /// The bytes of a compiler constant (bank 2, the kernel's own `.nv.constant2.<kernel>`)
    /// at `offset`, when the bank has no relocations. User constants (bank 3) are not read:
    /// the host may write them.
    fn bank_bytes(&self, bank: Bank, offset: i64, bytes: usize) -> Option<u64> {
        let Bank::Imm(b) = bank else { return None };
        if b != 2 || self.consts.relocated.contains(&b) {
            return None;
        }
        let data = self
            .info
            .constant_banks
            .get(&b)
            .or_else(|| self.consts.banks.get(&b))?;
        let o = usize::try_from(offset).ok()?;
        let s = data.get(o..o + bytes)?;
        let mut v = [0u8; 8];
        v[..bytes].copy_from_slice(s);
        Some(u64::from_le_bytes(v))
    }

    /// A constant of `bytes` (4 or 8) at `offset` as a PTX value: bank 0 (parameters, the
    /// driver constants of src/sass/cbank0.tsv) or a compiler constant (bank 2) without
    /// relocations.
    fn constant(&mut self, bank: Bank, index: Option<Reg>, offset: i64, bytes: u32) -> R<String> {
        if index.is_none() && matches!(bytes, 4 | 8) {
            // A compiler constant (bank 2) without relocations: its value.
            if let Some(v) = self.bank_bytes(bank, offset, bytes as usize) {
                return Ok(if bytes == 8 {
                    format!("0x{v:016x}")
                } else {
                    imm32(v as i64)
                });
            }
        }
        if let Some(r) = self.module_constant(bank, index, offset, bytes) {
            return r;
        }
        if bank != Bank::Imm(0) {
            return Err(format!(
                "constant bank {bank:?} (only banks 0, 2, 3 and 4 are lifted)"
            ));
        }
        if index.is_some() {
            return Err("constant bank read with a register index".into());
        }
        if let Some((meaning, size)) = super::driver_constant(self.family, offset) {
            return match meaning {
                "stack" => Ok(imm32(i64::from(self.stack_size()))),
                "zero" if bytes == 4 => Ok("0".into()),
                "memdesc" if bytes == 8 || size == 8 => {
                    let t = self.t64();
                    self.line(format!("mov.b64 {t}, 0"));
                    Ok(t)
                }
                "params" => self.param(offset, bytes),
                "shared_window" | "local_window" | "param_window" if size == 8 => {
                    let t = self.window(meaning)?;
                    match bytes {
                        8 => Ok(t),
                        4 => Ok(self.half(&t, false)),
                        _ => Err(format!("{meaning} read as {bytes} bytes")),
                    }
                }
                m if m.starts_with('%') && bytes == 4 => {
                    let t = self.t32();
                    self.line(format!("mov.u32 {t}, {m}"));
                    Ok(t)
                }
                m if m.starts_with('%') && bytes == 8 && size == 4 => {
                    // Two consecutive driver constants (`ULDC.64 UR4, c[0x0][0x0]`: %ntid.x,
                    // %ntid.y).
                    let lo = self.constant(bank, index, offset, 4)?;
                    let hi = self.constant(bank, index, offset + 4, 4)?;
                    let t = self.t64();
                    self.line(format!("mov.b64 {t}, {{{lo}, {hi}}}"));
                    Ok(t)
                }
                m => Err(format!(
                    "driver constant c[0x0][{offset:#x}] ({m}) read as {bytes} bytes"
                )),
            };
        }
        if let Some((m @ ("shared_window" | "local_window" | "param_window"), 8)) =
            super::driver_constant(self.family, offset - 4)
        {
            if bytes == 4 {
                // The high word of a window base (`IMAD.X R5, RZ, RZ, c[0x0][0x1c]`).
                let t = self.window(m)?;
                return Ok(self.half(&t, true));
            }
        }
        if offset == 0x118 + 4 || offset == 0x208 + 4 {
            // The high word of the memory descriptor.
            return Ok("0".into());
        }
        if self.params.covers(offset) {
            return self.param(offset, bytes);
        }
        Err(format!(
            "driver constant c[0x0][{offset:#x}] is not in src/sass/cbank0.tsv for {}",
            self.family
        ))
    }

    /// The generic address where SASS address 0 of a state space lies, for a bank-0 window
    /// constant of src/sass/cbank0.tsv: `shared_window` (`cvta.shared`: SASS shared address
    /// `x` is the lifted shared symbol + `x`), `local_window` (`cvta.local` of the frame,
    /// which SASS local addresses index from 0) and `param_window` (the generic address of
    /// bank 0, whose parameter block starts at the layout's base: the lifted kernel copies its
    /// parameters at entry into the local array `__pwin` at their bank offsets less the base,
    /// and the window is its generic address less the base; PTX's parameter space has no
    /// generic window that LLVM's backends keep).
    fn window(&mut self, meaning: &str) -> R<String> {
        let t = self.t64();
        match meaning {
            "shared_window" => {
                self.uses_shared = true;
                let sym = self.shared_symbol();
                self.line(format!("mov.u64 {t}, {sym}"));
                self.line(format!("cvta.shared.u64 {t}, {t}"));
            }
            "local_window" => {
                if self.stack_size() == 0 {
                    return Err("the local window of a kernel without a local frame".into());
                }
                self.line(format!("mov.u64 {t}, __frame"));
                self.line(format!("cvta.local.u64 {t}, {t}"));
            }
            _ => {
                self.uses_param_window = true;
                self.line(format!("mov.u64 {t}, __pwin"));
                self.line(format!("cvta.local.u64 {t}, {t}"));
                self.line(format!("sub.u64 {t}, {t}, {}", self.params.base));
            }
        }
        Ok(t)
    }

    /// The low or high word of the 64-bit value `v`.
    fn half(&mut self, v: &str, high: bool) -> String {
        let (lo, hi) = (self.t32(), self.t32());
        self.line(format!("mov.b64 {{{lo}, {hi}}}, {v}"));
        if high {
            hi
        } else {
            lo
        }
    }

    fn param(&mut self, offset: i64, bytes: u32) -> R<String> {
        if let Some(a) = self.params.addr(offset, bytes) {
            let t = if bytes == 8 { self.t64() } else { self.t32() };
            self.line(format!("ld.param.b{} {t}, {a}", bytes * 8));
            return Ok(t);
        }
        if bytes == 8 {
            let lo = self.param(offset, 4)?;
            let hi = self.param(offset + 4, 4)?;
            let t = self.t64();
            self.line(format!("mov.b64 {t}, {{{lo}, {hi}}}"));
            return Ok(t);
        }
        if bytes == 4 || bytes == 2 {
            // A word across parameters or their padding (`HADD2 R0, R0, c[0x0][0x174].H1_H1`
            // selects a `__half` parameter at 0x176 from the word at 0x174): assembled from its
            // halves (or bytes), each from the parameter that holds it; bytes no parameter
            // holds read as zero (the padding CUDA's parameter buffer leaves undefined).
            let piece = bytes / 2;
            let mut parts = Vec::new();
            let mut any = false;
            for k in 0..2 {
                let o = offset + i64::from(k * piece);
                let t = self.t16();
                if let Some(a) = self.params.addr(o, piece) {
                    any = true;
                    self.line(format!("ld.param.b{} {t}, {a}", piece * 8));
                } else if piece == 2 && (0..2).any(|j| self.params.addr(o + j, 1).is_some()) {
                    any = true;
                    let (lo, hi) = (self.param_byte(o), self.param_byte(o + 1));
                    self.line(format!("shl.b16 {hi}, {hi}, 8"));
                    self.line(format!("or.b16 {t}, {lo}, {hi}"));
                } else {
                    self.line(format!("mov.b16 {t}, 0"));
                }
                parts.push(t);
            }
            if any {
                if bytes == 4 {
                    let t = self.t32();
                    self.line(format!("mov.b32 {t}, {{{}, {}}}", parts[0], parts[1]));
                    return Ok(t);
                }
                let t = self.t32();
                let h = self.t16();
                self.line(format!("shl.b16 {h}, {}, 8", parts[1]));
                self.line(format!("or.b16 {h}, {h}, {}", parts[0]));
                self.line(format!("cvt.u32.u16 {t}, {h}"));
                return Ok(t);
            }
        }
        Err(format!(
            "c[0x0][{offset:#x}] is not inside a kernel parameter"
        ))
    }

    /// The byte of the parameter block at bank-0 offset `off` as a 16-bit value (zero where
    /// no parameter holds it).
    fn param_byte(&mut self, off: i64) -> String {
        let t = self.t16();
        match self.params.addr(off, 1) {
            Some(a) => self.line(format!("ld.param.b8 {t}, {a}")),
            None => self.line(format!("mov.b16 {t}, 0")),
        }
        t
    }

    /// A 32-bit source value with its modifiers applied.
    fn src(&mut self, op: &Operand) -> R<String> {
        let (v, mods) = match op {
            Operand::Reg(r, m) => (Self::reg_name(*r).unwrap_or_else(|| "0".into()), m),
            Operand::Imm(v) => return Ok(imm32(*v)),
            Operand::Float(f) => return Ok(format!("0f{:08X}", (*f as f32).to_bits())),
            Operand::FloatBits(b) => return Ok(format!("0f{:08X}", *b as u32)),
            Operand::Const {
                bank,
                index,
                offset,
                mods,
            } => (self.const32(*bank, *index, *offset)?, mods),
            // A label's absolute address is its function-relative offset (as `LEPC`'s, see
            // `emit/warp.rs`): the call it is the return address of is inlined.
            Operand::LabelHalf { target, high } => {
                return Ok(imm32(if *high { 0 } else { i64::from(*target) }))
            }
            Operand::Other(t) => match relocated_half(t) {
                Some((name, high)) => {
                    let a = self.symbol_address(name, 0)?;
                    return Ok(self.half(&a, high));
                }
                None => return Err(format!("operand {op:?} as a 32-bit source")),
            },
            o => return Err(format!("operand {o:?} as a 32-bit source")),
        };
        self.apply(v, mods)
    }

    fn apply(&mut self, v: String, m: &SrcMods) -> R<String> {
        if m.suffix.is_some() {
            return Err(format!(
                "operand selector .{}",
                m.suffix.as_deref().unwrap_or("")
            ));
        }
        let mut v = v;
        if m.abs {
            let t = self.t32();
            self.line(format!("abs.s32 {t}, {v}"));
            v = t;
        }
        if m.neg {
            let t = self.t32();
            self.line(format!("neg.s32 {t}, {v}"));
            v = t;
        }
        if m.not {
            let t = self.t32();
            self.line(format!("not.b32 {t}, {v}"));
            v = t;
        }
        Ok(v)
    }

    /// A 64-bit source: a register pair, a bank-0 constant, an immediate (sign-extended).
    fn src64(&mut self, op: &Operand) -> R<String> {
        match op {
            Operand::Reg(r, m)
                if *m
                    == SrcMods {
                        reuse: m.reuse,
                        ..Default::default()
                    } =>
            {
                if r.is_zero() {
                    return Ok("0".into());
                }
                let lo = Self::reg_name(*r).ok_or("pair")?;
                let hi = Self::reg_name(Self::next(*r)?).ok_or("pair")?;
                let t = self.t64();
                self.line(format!("mov.b64 {t}, {{{lo}, {hi}}}"));
                Ok(t)
            }
            Operand::Const {
                bank,
                index,
                offset,
                mods,
            } if *mods == SrcMods::default() => self.constant(*bank, *index, *offset, 8),
            Operand::Imm(v) => Ok(format!("{v}")),
            o => Err(format!("operand {o:?} as a 64-bit source")),
        }
    }

    /// The destination name for a 32-bit write (`RZ` writes go to a temporary).
    fn dst(&mut self, op: &Operand) -> R<String> {
        match op.plain_reg() {
            Some(r) if r.file == File::R || r.file == File::Ur => {
                Ok(Self::reg_name(r).unwrap_or_else(|| self.t32()))
            }
            _ => Err(format!("destination {op:?}")),
        }
    }

    /// Write 64-bit value `v` to the pair starting at `op`.
    fn store64(&mut self, op: &Operand, v: &str) -> R<()> {
        let r = op
            .plain_reg()
            .ok_or_else(|| format!("destination {op:?}"))?;
        if r.is_zero() {
            return Ok(());
        }
        let lo = Self::reg_name(r).ok_or("pair")?;
        let hi = Self::reg_name(Self::next(r)?).ok_or("pair")?;
        self.line(format!("mov.b64 {{{lo}, {hi}}}, {v}"));
        Ok(())
    }

    /// A predicate source (`P0`, `!P1`, `PT`, `!PT`) as a PTX predicate name.
    fn psrc(&mut self, op: &Operand) -> R<String> {
        let Operand::Pred(r, not) = op else {
            return Err(format!("predicate operand {op:?}"));
        };
        let n = pred_name(*r);
        if !*not {
            return Ok(n);
        }
        let t = self.tp();
        self.line(format!("not.pred {t}, {n}"));
        Ok(t)
    }

    /// A predicate destination (`PT` writes go to a temporary).
    fn pdst(&mut self, op: &Operand) -> R<String> {
        match op {
            Operand::Pred(r, false) if r.is_true() => Ok(self.tp()),
            Operand::Pred(r, false) => Ok(pred_name(*r)),
            o => Err(format!("predicate destination {o:?}")),
        }
    }

    /// A 32-bit value zero-extended to 64 bits.
    fn zext(&mut self, v: &str) -> String {
        if let Some(n) = parse_imm(v) {
            return format!("{n}");
        }
        let t = self.t64();
        self.line(format!("cvt.u64.u32 {t}, {v}"));
        t
    }

    /// 1 or 0 (64-bit) for a predicate source.
    fn pbit64(&mut self, op: &Operand) -> R<String> {
        if let Operand::Pred(r, not) = op {
            if r.is_true() {
                return Ok(if *not { "0" } else { "1" }.into());
            }
        }
        let p = self.psrc(op)?;
        let t = self.t64();
        self.line(format!("selp.u64 {t}, 1, 0, {p}"));
        Ok(t)
    }

    /// A 32-bit operand as a 64-bit term of a carry chain: `-x` is `~x + 1` (so that the
    /// carry out is the subtraction's no-borrow), `~x` is `~x`.
    fn term64(&mut self, op: &Operand) -> R<String> {
        let (neg, plain) = match op {
            Operand::Reg(r, m) => (
                m.neg,
                Operand::Reg(
                    *r,
                    SrcMods {
                        neg: false,
                        ..m.clone()
                    },
                ),
            ),
            Operand::Const {
                bank,
                index,
                offset,
                mods,
            } => (
                mods.neg,
                Operand::Const {
                    bank: *bank,
                    index: *index,
                    offset: *offset,
                    mods: SrcMods {
                        neg: false,
                        ..mods.clone()
                    },
                },
            ),
            o => (false, o.clone()),
        };
        let v = self.src(&plain)?;
        if !neg {
            return Ok(self.zext(&v));
        }
        let n = self.t32();
        self.line(format!("not.b32 {n}, {v}"));
        let z = self.zext(&n);
        self.line(format!("add.u64 {z}, {z}, 1"));
        Ok(z)
    }

    /// A memory address: (space-relative base expression as a 64-bit register or symbol+reg,
    /// offset).
    fn address(&mut self, m: &Mem, space: Space) -> R<String> {
        let off = m.offset;
        let ur = m
            .ureg
            .filter(|(u, _)| *u != crate::sass::decode::operand::URZ);
        match space {
            Space::Global => {
                let mut base = match m.base {
                    Some(r) if !r.is_zero() => {
                        if !m.wide {
                            return Err("global address from a 32-bit register".into());
                        }
                        Some(self.src64(&Operand::Reg(r, SrcMods::default()))?)
                    }
                    _ => None,
                };
                if let Some((u, wide)) = ur {
                    if !wide {
                        return Err("global address with a 32-bit uniform register term".into());
                    }
                    let uv = self.src64(&Operand::Reg(
                        Reg {
                            file: File::Ur,
                            idx: u,
                        },
                        SrcMods::default(),
                    ))?;
                    base = Some(match base {
                        None => uv,
                        Some(b) => {
                            let t = self.t64();
                            self.line(format!("add.u64 {t}, {b}, {uv}"));
                            t
                        }
                    });
                }
                let base = base.ok_or("global address without a register")?;
                Ok(if off == 0 {
                    format!("[{base}]")
                } else {
                    format!("[{base}+{off}]")
                })
            }
            Space::Shared | Space::Local => {
                if m.wide || ur.is_some_and(|(_, w)| w) {
                    return Err("64-bit shared/local address".into());
                }
                if space == Space::Shared {
                    self.uses_shared = true;
                }
                let sym = if space == Space::Shared {
                    self.shared_symbol()
                } else {
                    "__frame"
                };
                let t = self.t32();
                self.line(format!("mov.u32 {t}, {sym}"));
                if let Some(r) = m.base.filter(|r| !r.is_zero()) {
                    let v = Self::reg_name(r).ok_or("base")?;
                    if m.scale > 1 {
                        self.line(format!("mad.lo.u32 {t}, {v}, {}, {t}", m.scale));
                    } else {
                        self.line(format!("add.u32 {t}, {t}, {v}"));
                    }
                }
                if let Some((u, _)) = ur {
                    self.line(format!("add.u32 {t}, {t}, %u{u}"));
                }
                Ok(if off == 0 {
                    format!("[{t}]")
                } else {
                    format!("[{t}+{off}]")
                })
            }
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Space {
    Global,
    Shared,
    Local,
}

fn ops_len(i: &Instr, n: usize) -> R<()> {
    if i.operands.len() == n {
        Ok(())
    } else {
        Err(format!("{} operands (expected {n})", i.operands.len()))
    }
}

fn is_pred(o: &Operand) -> bool {
    matches!(o, Operand::Pred(..))
}

/// Modifiers other than those in `known`.
fn check_mods(i: &Instr, known: &[&str]) -> R<()> {
    match i.modifiers().find(|m| !known.contains(m)) {
        Some(m) => Err(format!("modifier .{m}")),
        None => Ok(()),
    }
}

/// Lift one instruction into `cx` (its guard is applied by the caller unless the
/// instruction sets `cx.guard_consumed`).
pub(super) fn instruction(cx: &mut Cx<'_>, i: &Instr, guard: Option<Guard>) -> R<()> {
    let op = i.opcode();
    if let Some(r) = atomic::instruction(cx, i) {
        return r;
    }
    if let Some(r) = float::instruction(cx, i) {
        return r;
    }
    if let Some(r) = warp::instruction(cx, i) {
        return r;
    }
    if let Some(r) = tensor::instruction(cx, i) {
        return r;
    }
    // Uniform-datapath forms have the same meaning on the uniform registers.
    let base = match op {
        "UMOV" => "MOV",
        "UIADD3" => "IADD3",
        "UIMAD" => "IMAD",
        "ULOP3" => "LOP3",
        "USHF" => "SHF",
        "ULEA" => "LEA",
        "UISETP" => "ISETP",
        "USEL" => "SEL",
        "ULDC" => "LDC",
        "UPLOP3" => "PLOP3",
        "UPRMT" => "PRMT",
        "UIMNMX" => "IMNMX",
        "R2UR" | "S2UR" | "S2R" => op,
        _ => op,
    };
    match base {
        "NOP" => Ok(()),
        "MOV" => mov(cx, i),
        "R2UR" if i.operands.len() == 3 => {
            // `R2UR P, URZ, R`: P = whether R is the same in every thread executing it (the
            // uniform-value test ptxas puts before a collective's fast path).
            check_mods(i, &[])?;
            if !i.operands[1].plain_reg().is_some_and(|r| r.is_zero()) {
                return Err("R2UR with a predicate and a uniform destination".into());
            }
            let a = cx.src(&i.operands[2])?;
            let m = cx.t32();
            cx.line(format!("activemask.b32 {m}"));
            let t = cx.t32();
            let p = cx.pdst(&i.operands[0])?;
            cx.line(format!("match.all.sync.b32 {t}|{p}, {a}, {m}"));
            Ok(())
        }
        "R2UR" => {
            check_mods(i, &[])?;
            ops_len(i, 2)?;
            let d = cx.dst(&i.operands[0])?;
            let s = cx.src(&i.operands[1])?;
            cx.line(format!("mov.b32 {d}, {s}"));
            Ok(())
        }
        "IMAD" => imad(cx, i),
        "IADD3" => iadd3(cx, i),
        "LEA" => lea(cx, i),
        "LOP3" => lop3(cx, i),
        "SHF" => shf(cx, i),
        "ISETP" => isetp(cx, i),
        "SEL" => sel(cx, i),
        "S2R" | "S2UR" | "CS2R" => s2r(cx, i),
        "LDC" => ldc(cx, i),
        "LDG" | "LDS" | "LDL" | "LD" => load(cx, i),
        "STG" | "STS" | "STL" | "ST" => store(cx, i),
        "BRA" => bra(cx, i, guard),
        "EXIT" => {
            check_mods(i, &[])?;
            ops_len(i, 0)?;
            cx.line("exit");
            Ok(())
        }
        "BAR" => bar(cx, i),
        "HFMA2" => hfma2_mov(cx, i),
        "PLOP3" => plop3(cx, i),
        "VIADD" => viadd(cx, i),
        "IMNMX" => imnmx(cx, i),
        "IABS" => {
            check_mods(i, &[])?;
            ops_len(i, 2)?;
            let a = cx.src(&i.operands[1])?;
            let d = cx.dst(&i.operands[0])?;
            cx.line(format!("abs.s32 {d}, {a}"));
            Ok(())
        }
        "PRMT" => {
            // The byte-permute modes (`.F4E`, `.B4E`, `.RC8`, `.ECL`, `.ECR`, `.RC16`) are
            // PTX's `prmt` modes of the same names.
            let mode = match i.modifiers().collect::<Vec<_>>().as_slice() {
                [] => "",
                ["F4E"] => ".f4e",
                ["B4E"] => ".b4e",
                ["RC8"] => ".rc8",
                ["ECL"] => ".ecl",
                ["ECR"] => ".ecr",
                ["RC16"] => ".rc16",
                m => return Err(format!("PRMT modifiers {m:?}")),
            };
            ops_len(i, 4)?;
            let a = cx.src(&i.operands[1])?;
            let sel = cx.src(&i.operands[2])?;
            let b = cx.src(&i.operands[3])?;
            let d = cx.dst(&i.operands[0])?;
            cx.line(format!("prmt.b32{mode} {d}, {a}, {b}, {sel}"));
            Ok(())
        }
        "IDP" => idp(cx, i),
        "VABSDIFF" => {
            // `VABSDIFF[.U32] d, a, b, c`: |a - b| + c (PTX `sad`).
            check_mods(i, &["U32", "S32"])?;
            ops_len(i, 4)?;
            let ty = if i.has("U32") { "u32" } else { "s32" };
            let a = cx.src(&i.operands[1])?;
            let b = cx.src(&i.operands[2])?;
            let c = cx.src(&i.operands[3])?;
            let d = cx.dst(&i.operands[0])?;
            cx.line(format!("sad.{ty} {d}, {a}, {b}, {c}"));
            Ok(())
        }
        "VABSDIFF4" => {
            // `VABSDIFF4[.U8][.ACC] d, a, b, c`: the four byte differences |a_i - b_i|
            // (signed bytes unless `.U8`); `.ACC`: their sum plus c (PTX `vabsdiff4 .add`);
            // without it, c is PTX's merge operand, whose bytes the default full byte mask
            // (no mask modifier) leaves unused: `vabsdiff4 d, a, b, c` assembles to
            // `VABSDIFF4 d, a, b, c` (ptxas 13.5, fixtures/gpu/src/video.cu).
            check_mods(i, &["U8", "S8", "ACC"])?;
            ops_len(i, 4)?;
            let ty = if i.has("U8") { "u32" } else { "s32" };
            let a = cx.src(&i.operands[1])?;
            let b = cx.src(&i.operands[2])?;
            let c = cx.src(&i.operands[3])?;
            let d = cx.dst(&i.operands[0])?;
            let add = if i.has("ACC") { ".add" } else { "" };
            cx.line(format!("vabsdiff4.u32.{ty}.{ty}{add} {d}, {a}, {b}, {c}"));
            Ok(())
        }
        _ => Err(format!("opcode {op} is not lifted yet")),
    }
}

/// `IDP.4A.ta.tb d, a, b, c` / `IDP.2A.LO|HI.ta.tb d, a, b, c`: the integer dot products
/// `dp4a` / `dp2a.lo|hi` (`ta`, `tb`: the signedness of the bytes or half-words of `a`, `b`).
fn idp(cx: &mut Cx<'_>, i: &Instr) -> R<()> {
    let mods: Vec<&str> = i.modifiers().collect();
    let sign = |m: &str| -> R<&'static str> {
        match m {
            "U8" | "U16" => Ok("u32"),
            "S8" | "S16" => Ok("s32"),
            m => Err(format!("IDP type .{m}")),
        }
    };
    let op = match mods.as_slice() {
        ["4A", ta, tb] => format!("dp4a.{}.{}", sign(ta)?, sign(tb)?),
        ["2A", half @ ("LO" | "HI"), ta, tb] => format!(
            "dp2a.{}.{}.{}",
            half.to_ascii_lowercase(),
            sign(ta)?,
            sign(tb)?
        ),
        m => return Err(format!("IDP modifiers {m:?}")),
    };
    ops_len(i, 4)?;
    let a = cx.src(&i.operands[1])?;
    let b = cx.src(&i.operands[2])?;
    let c = cx.src(&i.operands[3])?;
    let d = cx.dst(&i.operands[0])?;
    cx.line(format!("{op} {d}, {a}, {b}, {c}"));
    Ok(())
}

fn mov(cx: &mut Cx<'_>, i: &Instr) -> R<()> {
    check_mods(i, &[])?;
    match i.operands.len() {
        2 => {}
        3 if i.operands[2] == Operand::Imm(0xf) => {}
        n => return Err(format!("{n} operands")),
    }
    let d = cx.dst(&i.operands[0])?;
    let s = cx.src(&i.operands[1])?;
    cx.line(format!("mov.b32 {d}, {s}"));
    Ok(())
}

fn imad(cx: &mut Cx<'_>, i: &Instr) -> R<()> {
    check_mods(i, &["MOV", "U32", "SHL", "IADD", "WIDE", "HI", "X"])?;
    let unsigned = i.has("U32");
    let o = &i.operands;
    if i.has("WIDE") && (i.has("X") || (o.len() == 5 && is_pred(&o[1]))) {
        // d = a * b + c (+ carry-in with .X), 64-bit; a carry-out predicate (bit 64) may
        // follow d.
        if i.has("HI") {
            return Err("IMAD.WIDE with .HI".into());
        }
        let (outp, rest) = if is_pred(&o[1]) {
            (Some(&o[1]), &o[2..])
        } else {
            (None, &o[1..])
        };
        let (cin, rest) = if i.has("X") {
            let (l, r) = rest.split_last().ok_or("operands")?;
            (Some(l), r)
        } else {
            (None, rest)
        };
        if rest.len() != 3 {
            return Err(format!("{} operands", o.len()));
        }
        let a = cx.src(&rest[0])?;
        let b = cx.src(&rest[1])?;
        let c = cx.src64(&rest[2])?;
        let ty = if unsigned { "u32" } else { "s32" };
        let m = cx.t64();
        cx.line(format!("mul.wide.{ty} {m}, {a}, {b}"));
        let s1 = cx.t64();
        cx.line(format!("add.u64 {s1}, {m}, {c}"));
        let carry = cx.tp();
        cx.line(format!("setp.lt.u64 {carry}, {s1}, {m}"));
        let mut total = s1.clone();
        if let Some(p) = cin {
            let ci = cx.pbit64(p)?;
            let s2 = cx.t64();
            cx.line(format!("add.u64 {s2}, {s1}, {ci}"));
            let c2 = cx.tp();
            cx.line(format!("setp.lt.u64 {c2}, {s2}, {s1}"));
            cx.line(format!("or.pred {carry}, {carry}, {c2}"));
            total = s2;
        }
        if let Some(p) = outp {
            let pd = cx.pdst(p)?;
            cx.line(format!("mov.pred {pd}, {carry}"));
        }
        return cx.store64(&o[0], &total);
    }
    if i.has("WIDE") {
        if i.has("X") || i.has("HI") {
            return Err("IMAD.WIDE with .X/.HI".into());
        }
        ops_len(i, 4)?;
        let a = cx.src(&o[1])?;
        let b = cx.src(&o[2])?;
        let c = cx.src64(&o[3])?;
        let t = cx.t64();
        let ty = if unsigned { "u32" } else { "s32" };
        cx.line(format!("mul.wide.{ty} {t}, {a}, {b}"));
        cx.line(format!("add.u64 {t}, {t}, {c}"));
        return cx.store64(&o[0], &t);
    }
    if i.has("HI") {
        // d = hi32(a * b) + c (+ carry-in with .X); a carry-out predicate may follow d.
        let (outp, rest) = if o.len() > 1 && is_pred(&o[1]) {
            (Some(&o[1]), &o[2..])
        } else {
            (None, &o[1..])
        };
        let (cin, rest) = if i.has("X") {
            let (l, r) = rest.split_last().ok_or("operands")?;
            (Some(l), r)
        } else {
            (None, rest)
        };
        if rest.len() != 3 {
            return Err(format!("{} operands", o.len()));
        }
        let a = cx.src(&rest[0])?;
        let b = cx.src(&rest[1])?;
        let ty = if unsigned { "u32" } else { "s32" };
        if let Some(c) = rest[2].plain_reg().filter(|r| !r.is_zero()) {
            // A register addend is the pair {Rc, Rc+1}: d = hi32(a * b + Rc+1:Rc), the
            // carry-out that of the 64-bit sum (ptxas zeroes Rc to add Rc+1 to the high word).
            if cin.is_some() {
                return Err("IMAD.HI.X with a register-pair addend".into());
            }
            let c64 = cx.src64(&Operand::Reg(c, SrcMods::default()))?;
            let m = cx.t64();
            cx.line(format!("mul.wide.{ty} {m}, {a}, {b}"));
            let s = cx.t64();
            cx.line(format!("add.u64 {s}, {m}, {c64}"));
            let (lo, d) = (cx.t32(), cx.dst(&o[0])?);
            cx.line(format!("mov.b64 {{{lo}, {d}}}, {s}"));
            if let Some(p) = outp {
                let pd = cx.pdst(p)?;
                cx.line(format!("setp.lt.u64 {pd}, {s}, {c64}"));
            }
            return Ok(());
        }
        let h = cx.t32();
        cx.line(format!("mul.hi.{ty} {h}, {a}, {b}"));
        let hz = cx.zext(&h);
        let cz = cx.term64(&rest[2])?;
        cx.line(format!("add.u64 {hz}, {hz}, {cz}"));
        if let Some(p) = cin {
            let c = cx.pbit64(p)?;
            cx.line(format!("add.u64 {hz}, {hz}, {c}"));
        }
        let d = cx.dst(&o[0])?;
        cx.line(format!("cvt.u32.u64 {d}, {hz}"));
        if let Some(p) = outp {
            let pd = cx.pdst(p)?;
            cx.line(format!("setp.gt.u64 {pd}, {hz}, 0xffffffff"));
        }
        return Ok(());
    }
    if i.has("X") {
        // d = a * b + c + carry, carry-out predicate optional after d.
        let (outp, rest) = if o.len() > 1 && is_pred(&o[1]) {
            (Some(&o[1]), &o[2..])
        } else {
            (None, &o[1..])
        };
        if rest.len() != 4 {
            return Err(format!("{} operands", o.len()));
        }
        let a = cx.src(&rest[0])?;
        let b = cx.src(&rest[1])?;
        let m = cx.t32();
        cx.line(format!("mul.lo.u32 {m}, {a}, {b}"));
        let s = cx.zext(&m);
        let c = cx.term64(&rest[2])?;
        cx.line(format!("add.u64 {s}, {s}, {c}"));
        let ci = cx.pbit64(&rest[3])?;
        cx.line(format!("add.u64 {s}, {s}, {ci}"));
        let d = cx.dst(&o[0])?;
        cx.line(format!("cvt.u32.u64 {d}, {s}"));
        if let Some(p) = outp {
            let pd = cx.pdst(p)?;
            cx.line(format!("setp.gt.u64 {pd}, {s}, 0xffffffff"));
        }
        return Ok(());
    }
    // d = a * b + c (low 32 bits; signedness does not matter), optional carry-out.
    if o.len() == 5 && is_pred(&o[1]) {
        let a = cx.src(&o[2])?;
        let b = cx.src(&o[3])?;
        let m = cx.t32();
        cx.line(format!("mul.lo.u32 {m}, {a}, {b}"));
        let s = cx.zext(&m);
        let c = cx.term64(&o[4])?;
        cx.line(format!("add.u64 {s}, {s}, {c}"));
        let d = cx.dst(&o[0])?;
        cx.line(format!("cvt.u32.u64 {d}, {s}"));
        let pd = cx.pdst(&o[1])?;
        cx.line(format!("setp.gt.u64 {pd}, {s}, 0xffffffff"));
        return Ok(());
    }
    ops_len(i, 4)?;
    let a = cx.src(&o[1])?;
    let b = cx.src(&o[2])?;
    let c = cx.src(&o[3])?;
    let d = cx.dst(&o[0])?;
    cx.line(format!("mad.lo.u32 {d}, {a}, {b}, {c}"));
    Ok(())
}

fn iadd3(cx: &mut Cx<'_>, i: &Instr) -> R<()> {
    check_mods(i, &["X"])?;
    let o = &i.operands;
    let x = i.has("X");
    let nouts = o.iter().skip(1).take_while(|p| is_pred(p)).count();
    let rest = &o[1 + nouts..];
    let (srcs, cins) = if x {
        if rest.len() != 5 {
            return Err(format!("{} operands", o.len()));
        }
        (&rest[..3], &rest[3..])
    } else {
        if rest.len() != 3 {
            return Err(format!("{} operands", o.len()));
        }
        (rest, &rest[3..])
    };
    if nouts == 0
        && cins
            .iter()
            .all(|p| matches!(p, Operand::Pred(r, true) if r.is_true()))
    {
        // Plain 32-bit sum.
        let d = cx.dst(&o[0])?;
        let mut acc: Option<String> = None;
        for s in srcs {
            if matches!(s, Operand::Reg(r, m) if r.is_zero() && !m.not) {
                continue;
            }
            let v = cx.src(s)?;
            acc = Some(match acc {
                None => v,
                Some(a) => {
                    let t = cx.t32();
                    cx.line(format!("add.u32 {t}, {a}, {v}"));
                    t
                }
            });
        }
        cx.line(format!(
            "mov.b32 {d}, {}",
            acc.unwrap_or_else(|| "0".into())
        ));
        return Ok(());
    }
    let a = cx.term64(&srcs[0])?;
    let b = cx.term64(&srcs[1])?;
    let s1 = cx.t64();
    cx.line(format!("add.u64 {s1}, {a}, {b}"));
    let mut total = s1.clone();
    let c = cx.term64(&srcs[2])?;
    if nouts == 2 {
        // P0: carry of a + b; P1: carry of the rest.
        let p0 = cx.pdst(&o[1])?;
        cx.line(format!("setp.gt.u64 {p0}, {s1}, 0xffffffff"));
        let s2 = cx.t64();
        cx.line(format!("and.b64 {s2}, {s1}, 0xffffffff"));
        total = s2;
    }
    cx.line(format!("add.u64 {total}, {total}, {c}"));
    for p in cins {
        let ci = cx.pbit64(p)?;
        cx.line(format!("add.u64 {total}, {total}, {ci}"));
    }
    let d = cx.dst(&o[0])?;
    cx.line(format!("cvt.u32.u64 {d}, {total}"));
    match nouts {
        0 => {}
        1 => {
            let p = cx.pdst(&o[1])?;
            cx.line(format!("setp.gt.u64 {p}, {total}, 0xffffffff"));
        }
        2 => {
            let p = cx.pdst(&o[2])?;
            cx.line(format!("setp.gt.u64 {p}, {total}, 0xffffffff"));
        }
        n => return Err(format!("{n} carry-out predicates")),
    }
    Ok(())
}

fn shift_amount(o: &Operand) -> R<i64> {
    match o {
        Operand::Imm(v) if (0..32).contains(v) => Ok(*v),
        o => Err(format!("shift {o:?}")),
    }
}

fn lea(cx: &mut Cx<'_>, i: &Instr) -> R<()> {
    check_mods(i, &["HI", "X", "SX32"])?;
    let o = &i.operands;
    let outp = (o.len() > 1 && is_pred(&o[1])).then(|| &o[1]);
    let rest = &o[if outp.is_some() { 2 } else { 1 }..];
    if !i.has("HI") {
        // d = (a << s) + b, optional carry-out; LEA.X adds a carry-in.
        let (rest, cin) = if i.has("X") {
            let (l, r) = rest.split_last().ok_or("operands")?;
            (r, Some(l))
        } else {
            (rest, None)
        };
        if rest.len() != 3 || i.has("SX32") {
            return Err(format!("{} operands", o.len()));
        }
        let s = shift_amount(&rest[2])?;
        let a = cx.src(&rest[0])?;
        let sh = cx.t32();
        cx.line(format!("shl.b32 {sh}, {a}, {s}"));
        if outp.is_none() && cin.is_none() {
            let b = cx.src(&rest[1])?;
            let d = cx.dst(&o[0])?;
            cx.line(format!("add.u32 {d}, {sh}, {b}"));
            return Ok(());
        }
        let z = cx.zext(&sh);
        let b = cx.term64(&rest[1])?;
        cx.line(format!("add.u64 {z}, {z}, {b}"));
        if let Some(c) = cin {
            let c = cx.pbit64(c)?;
            cx.line(format!("add.u64 {z}, {z}, {c}"));
        }
        let d = cx.dst(&o[0])?;
        cx.line(format!("cvt.u32.u64 {d}, {z}"));
        if let Some(p) = outp {
            let p = cx.pdst(p)?;
            cx.line(format!("setp.gt.u64 {p}, {z}, 0xffffffff"));
        }
        return Ok(());
    }
    // LEA.HI d, a, b, c, s: d = b + hi32({c:a} << s); .SX32 takes c as a's sign; .X adds a
    // carry-in.
    let sx = i.has("SX32");
    let (rest, cin) = if i.has("X") {
        let (l, r) = rest.split_last().ok_or("operands")?;
        (r, Some(l))
    } else {
        (rest, None)
    };
    let want = if sx { 3 } else { 4 };
    if rest.len() != want {
        return Err(format!("{} operands", o.len()));
    }
    let s = shift_amount(&rest[want - 1])?;
    let a = cx.src(&rest[0])?;
    let b = &rest[1];
    let hi = if sx {
        let t = cx.t32();
        cx.line(format!("shr.s32 {t}, {a}, 31"));
        t
    } else {
        cx.src(&rest[2])?
    };
    let f = cx.t32();
    cx.line(format!("shf.l.clamp.b32 {f}, {a}, {hi}, {s}"));
    if cin.is_none() && outp.is_none() {
        let bv = cx.src(b)?;
        let d = cx.dst(&o[0])?;
        cx.line(format!("add.u32 {d}, {bv}, {f}"));
        return Ok(());
    }
    let z = cx.zext(&f);
    let bz = cx.term64(b)?;
    cx.line(format!("add.u64 {z}, {z}, {bz}"));
    if let Some(c) = cin {
        let c = cx.pbit64(c)?;
        cx.line(format!("add.u64 {z}, {z}, {c}"));
    }
    let d = cx.dst(&o[0])?;
    cx.line(format!("cvt.u32.u64 {d}, {z}"));
    if let Some(p) = outp {
        let p = cx.pdst(p)?;
        cx.line(format!("setp.gt.u64 {p}, {z}, 0xffffffff"));
    }
    Ok(())
}

fn lop3(cx: &mut Cx<'_>, i: &Instr) -> R<()> {
    check_mods(i, &["LUT"])?;
    if !i.has("LUT") {
        return Err("LOP3 without .LUT".into());
    }
    let o = &i.operands;
    let (outp, rest) = if is_pred(&o[0]) {
        (Some(&o[0]), &o[1..])
    } else {
        (None, &o[..])
    };
    if rest.len() != 6 {
        return Err(format!("{} operands", o.len()));
    }
    if !matches!(&rest[5], Operand::Pred(r, true) if r.is_true()) {
        return Err("LOP3 with a predicate input other than !PT".into());
    }
    let Operand::Imm(lut) = rest[4] else {
        return Err("LOP3 table not an immediate".into());
    };
    let a = cx.src(&rest[1])?;
    let b = cx.src(&rest[2])?;
    let c = cx.src(&rest[3])?;
    let d = cx.dst(&rest[0])?;
    cx.line(format!("lop3.b32 {d}, {a}, {b}, {c}, {}", lut & 0xff));
    if let Some(p) = outp {
        let p = cx.pdst(p)?;
        cx.line(format!("setp.ne.u32 {p}, {d}, 0"));
    }
    Ok(())
}

fn shf(cx: &mut Cx<'_>, i: &Instr) -> R<()> {
    check_mods(i, &["L", "R", "U32", "S32", "U64", "S64", "HI", "W"])?;
    ops_len(i, 4)?;
    let o = &i.operands;
    let left = i.has("L");
    if left == i.has("R") {
        return Err("SHF without one of .L/.R".into());
    }
    let wide = i.has("U64") || i.has("S64");
    let signed = i.has("S32") || i.has("S64");
    let hi = i.has("HI");
    let a = cx.src(&o[1])?;
    let mut s = cx.src(&o[2])?;
    let b = cx.src(&o[3])?;
    let d = cx.dst(&o[0])?;
    if i.has("W") {
        let t = cx.t32();
        cx.line(format!("and.b32 {t}, {s}, {}", if wide { 63 } else { 31 }));
        s = t;
    }
    if !wide {
        match (left, hi, signed) {
            (true, false, false) => cx.line(format!("shl.b32 {d}, {a}, {s}")),
            (true, true, false) => cx.line(format!("shf.l.clamp.b32 {d}, {a}, {b}, {s}")),
            (false, true, false) => cx.line(format!("shr.u32 {d}, {b}, {s}")),
            (false, true, true) => cx.line(format!("shr.s32 {d}, {b}, {s}")),
            (false, false, false) => cx.line(format!("shf.r.clamp.b32 {d}, {a}, {b}, {s}")),
            _ => return Err("SHF variant".into()),
        }
        return Ok(());
    }
    let v = cx.t64();
    cx.line(format!("mov.b64 {v}, {{{a}, {b}}}"));
    let op = if left {
        "shl.b64"
    } else if signed {
        "shr.s64"
    } else {
        "shr.u64"
    };
    cx.line(format!("{op} {v}, {v}, {s}"));
    let (lo, hi32) = (cx.t32(), cx.t32());
    cx.line(format!("mov.b64 {{{lo}, {hi32}}}, {v}"));
    cx.line(format!("mov.b32 {d}, {}", if hi { hi32 } else { lo }));
    Ok(())
}

fn isetp(cx: &mut Cx<'_>, i: &Instr) -> R<()> {
    let mods: Vec<&str> = i.modifiers().collect();
    let cmp = *mods.first().ok_or("ISETP without a comparison")?;
    let cmp_ptx = match cmp {
        "EQ" => "eq",
        "NE" => "ne",
        "LT" => "lt",
        "LE" => "le",
        "GT" => "gt",
        "GE" => "ge",
        "F" | "T" => return Err(format!("ISETP.{cmp}")),
        m => return Err(format!("comparison .{m}")),
    };
    let mut unsigned = false;
    let mut bop = None;
    let mut ex = false;
    for m in &mods[1..] {
        match *m {
            "U32" => unsigned = true,
            "AND" | "OR" | "XOR" => bop = Some(m.to_ascii_lowercase()),
            "EX" => ex = true,
            m => return Err(format!("modifier .{m}")),
        }
    }
    let bop = bop.ok_or("ISETP without .AND/.OR/.XOR")?;
    let o = &i.operands;
    ops_len(i, if ex { 6 } else { 5 })?;
    let a = cx.src(&o[2])?;
    let b = cx.src(&o[3])?;
    let ty = if unsigned { "u32" } else { "s32" };
    let r = cx.tp();
    if ex {
        // The high words compared, ties decided by the low words' result (the last operand).
        let lo = cx.psrc(&o[5])?;
        let eq = cx.tp();
        cx.line(format!("setp.eq.{ty} {eq}, {a}, {b}"));
        let strict = match cmp_ptx {
            "le" => "lt",
            "ge" => "gt",
            c => c,
        };
        match cmp_ptx {
            "eq" => cx.line(format!("and.pred {r}, {eq}, {lo}")),
            "ne" => {
                let ne = cx.tp();
                cx.line(format!("not.pred {ne}, {eq}"));
                cx.line(format!("or.pred {r}, {ne}, {lo}"));
            }
            _ => {
                let st = cx.tp();
                cx.line(format!("setp.{strict}.{ty} {st}, {a}, {b}"));
                let tie = cx.tp();
                cx.line(format!("and.pred {tie}, {eq}, {lo}"));
                cx.line(format!("or.pred {r}, {st}, {tie}"));
            }
        }
    } else {
        cx.line(format!("setp.{cmp_ptx}.{ty} {r}, {a}, {b}"));
    }
    let c = cx.psrc(&o[4])?;
    let pd = cx.pdst(&o[0])?;
    cx.line(format!("{bop}.pred {pd}, {r}, {c}"));
    if !matches!(&o[1], Operand::Pred(p, false) if p.is_true()) {
        let nr = cx.tp();
        cx.line(format!("not.pred {nr}, {r}"));
        let q = cx.pdst(&o[1])?;
        cx.line(format!("{bop}.pred {q}, {nr}, {c}"));
    }
    Ok(())
}

/// `PLOP3.LUT Pd, Pq, a, b, c, lut, lut2`: `Pd` = the three-input table `lut` of the
/// predicates (LOP3's convention: a = 0xf0, b = 0xcc, c = 0xaa), `Pq` = table `lut2`. An
/// input may be a register's sign bit (`R3.SIGN`: true when bit 31 is set; ptxas's form of
/// the sign tests of `k_int_sat_simd`).
fn plop3(cx: &mut Cx<'_>, i: &Instr) -> R<()> {
    check_mods(i, &["LUT"])?;
    ops_len(i, 7)?;
    let o = &i.operands;
    let (Operand::Imm(l1), Operand::Imm(l2)) = (&o[5], &o[6]) else {
        return Err("tables not immediates".into());
    };
    let mut ins = Vec::new();
    for p in &o[2..5] {
        let t = cx.t32();
        match p {
            Operand::Reg(r, m) if m.suffix.as_deref() == Some("SIGN") && !m.neg && !m.abs => {
                let v = Cx::reg_name(*r).unwrap_or_else(|| "0".into());
                cx.line(format!("shr.s32 {t}, {v}, 31"));
                if m.not {
                    cx.line(format!("not.b32 {t}, {t}"));
                }
            }
            p => {
                let pv = cx.psrc(p)?;
                cx.line(format!("selp.b32 {t}, -1, 0, {pv}"));
            }
        }
        ins.push(t);
    }
    for (dst, lut) in [(&o[0], l1), (&o[1], l2)] {
        if matches!(dst, Operand::Pred(r, false) if r.is_true()) {
            continue;
        }
        let t = cx.t32();
        cx.line(format!(
            "lop3.b32 {t}, {}, {}, {}, {}",
            ins[0],
            ins[1],
            ins[2],
            lut & 0xff
        ));
        let pd = cx.pdst(dst)?;
        cx.line(format!("setp.ne.u32 {pd}, {t}, 0"));
    }
    Ok(())
}

/// `VIADD d, a, b` (sm_90): `d = a + b`.
fn viadd(cx: &mut Cx<'_>, i: &Instr) -> R<()> {
    check_mods(i, &[])?;
    ops_len(i, 3)?;
    let a = cx.src(&i.operands[1])?;
    let b = cx.src(&i.operands[2])?;
    let d = cx.dst(&i.operands[0])?;
    cx.line(format!("add.u32 {d}, {a}, {b}"));
    Ok(())
}

/// `IMNMX[.U32] d, a, b, P`: `d = P ? min(a, b) : max(a, b)`.
fn imnmx(cx: &mut Cx<'_>, i: &Instr) -> R<()> {
    check_mods(i, &["U32"])?;
    ops_len(i, 4)?;
    let ty = if i.has("U32") { "u32" } else { "s32" };
    let a = cx.src(&i.operands[1])?;
    let b = cx.src(&i.operands[2])?;
    let lo = cx.t32();
    let hi = cx.t32();
    cx.line(format!("min.{ty} {lo}, {a}, {b}"));
    cx.line(format!("max.{ty} {hi}, {a}, {b}"));
    let p = match &i.operands[3] {
        Operand::Pred(r, not) if r.is_true() => {
            let d = cx.dst(&i.operands[0])?;
            cx.line(format!("mov.b32 {d}, {}", if *not { hi } else { lo }));
            return Ok(());
        }
        p => cx.psrc(p)?,
    };
    let d = cx.dst(&i.operands[0])?;
    cx.line(format!("selp.b32 {d}, {lo}, {hi}, {p}"));
    Ok(())
}

fn sel(cx: &mut Cx<'_>, i: &Instr) -> R<()> {
    check_mods(i, &[])?;
    ops_len(i, 4)?;
    let a = cx.src(&i.operands[1])?;
    let b = cx.src(&i.operands[2])?;
    let p = cx.psrc(&i.operands[3])?;
    let d = cx.dst(&i.operands[0])?;
    cx.line(format!("selp.b32 {d}, {a}, {b}, {p}"));
    Ok(())
}

fn s2r(cx: &mut Cx<'_>, i: &Instr) -> R<()> {
    ops_len(i, 2)?;
    let Operand::Special(sr) = &i.operands[1] else {
        return Err(format!("source {:?}", i.operands[1]));
    };
    let ptx = super::sreg(sr).ok_or_else(|| format!("special register {sr}"))?;
    if i.opcode() == "CS2R" {
        check_mods(i, &["32"])?;
        if i.has("32") {
            let d = cx.dst(&i.operands[0])?;
            let v = if ptx == "zero" {
                "0".to_string()
            } else {
                ptx.to_string()
            };
            cx.line(format!("mov.u32 {d}, {v}"));
            return Ok(());
        }
        let v = match ptx {
            "zero" => "0",
            "%clock" => "%clock64",
            "%globaltimer_lo" => "%globaltimer",
            p => return Err(format!("64-bit read of {p}")),
        };
        let t = cx.t64();
        cx.line(format!("mov.u64 {t}, {v}"));
        return cx.store64(&i.operands[0], &t);
    }
    check_mods(i, &[])?;
    let d = cx.dst(&i.operands[0])?;
    if ptx == "virtid" {
        // SR_VIRTID: the warp id in bits 8..14 (see sreg.tsv).
        let t = cx.t32();
        cx.line(format!("mov.u32 {t}, %warpid"));
        cx.line(format!("shl.b32 {d}, {t}, 8"));
    } else if ptx == "zero" {
        cx.line(format!("mov.u32 {d}, 0"));
    } else {
        cx.line(format!("mov.u32 {d}, {ptx}"));
    }
    Ok(())
}

fn ldc(cx: &mut Cx<'_>, i: &Instr) -> R<()> {
    check_mods(i, &["64", "U8", "S8", "U16", "S16"])?;
    ops_len(i, 2)?;
    if cx.callee_loads.contains(&i.offset) {
        // The address of an external function, which only the call after it reads (see
        // `emit/warp.rs`).
        return Ok(());
    }
    let Operand::Const {
        bank,
        index,
        offset,
        mods,
    } = &i.operands[1]
    else {
        return Err(format!("source {:?}", i.operands[1]));
    };
    if *mods != SrcMods::default() {
        return Err("constant with modifiers".into());
    }
    if i.has("64") {
        let v = cx.constant(*bank, *index, *offset, 8)?;
        return cx.store64(&i.operands[0], &v);
    }
    if let Some(ty) = ["U8", "S8", "U16", "S16"].into_iter().find(|m| i.has(m)) {
        // A byte or half-word of a kernel parameter, zero- or sign-extended.
        if *bank != Bank::Imm(0) || index.is_some() {
            return Err("sub-word constant outside bank 0".into());
        }
        let bytes = if ty.ends_with('8') { 1 } else { 2 };
        let a = cx
            .params
            .addr(*offset, bytes)
            .ok_or_else(|| format!("c[0x0][{offset:#x}] is not inside a kernel parameter"))?;
        let d = cx.dst(&i.operands[0])?;
        cx.line(format!("ld.param.{} {d}, {a}", ty.to_ascii_lowercase()));
        return Ok(());
    }
    let v = cx.constant(*bank, *index, *offset, 4)?;
    let d = cx.dst(&i.operands[0])?;
    cx.line(format!("mov.b32 {d}, {v}"));
    Ok(())
}

/// (bits, PTX type, registers) of a memory access's size modifier.
fn access(i: &Instr) -> R<(u32, &'static str, u32)> {
    let mut size = (32, "b32", 1);
    for m in i.modifiers() {
        match m {
            "E" | "CONSTANT" | "EF" | "EL" | "LU" | "EU" | "NA" | "U" | "ZFILL" | "LTC64B"
            | "LTC128B" | "STRONG" | "GPU" | "SM" | "SYS" => {}
            "U8" => size = (8, "u8", 1),
            "S8" => size = (8, "s8", 1),
            "U16" => size = (16, "u16", 1),
            "S16" => size = (16, "s16", 1),
            "64" => size = (64, "b64", 2),
            "128" => size = (128, "b32", 4),
            m => return Err(format!("modifier .{m}")),
        }
    }
    Ok(size)
}

/// The address space of a memory form and its PTX state-space suffix (`LD`/`ST`: generic
/// addresses, 64-bit like global ones, no suffix).
fn space_of(op: &str) -> (Space, &'static str) {
    match op {
        "LDS" | "STS" => (Space::Shared, ".shared"),
        "LDL" | "STL" => (Space::Local, ".local"),
        "LD" | "ST" => (Space::Global, ""),
        _ => (Space::Global, ".global"),
    }
}

fn load(cx: &mut Cx<'_>, i: &Instr) -> R<()> {
    ops_len(i, 2)?;
    let (bits, ty, nregs) = access(i)?;
    let (space, sp) = space_of(i.opcode());
    let sem = atomic::strong(i)?;
    let sp = &format!("{sem}{sp}");
    let Operand::Mem(m) = &i.operands[1] else {
        return Err(format!("address {:?}", i.operands[1]));
    };
    let addr = cx.address(&atomic::wide_mem(i, m), space)?;
    let r = i.operands[0].plain_reg().ok_or("destination")?;
    let regs: Vec<String> = (0..nregs)
        .map(|k| {
            let rk = Reg {
                file: r.file,
                idx: r.idx.checked_add(k as u8).ok_or("registers")?,
            };
            if r.is_zero() {
                return Ok(cx.t32());
            }
            Cx::reg_name(rk).ok_or_else(|| "registers".to_string())
        })
        .collect::<R<_>>()?;
    match (bits, nregs) {
        (8 | 16, _) => {
            let d = &regs[0];
            let ext = if ty.starts_with('s') { "s32" } else { "u32" };
            let t = cx.t32();
            cx.line(format!("ld{sp}.{ty} {t}, {addr}"));
            let _ = ext;
            cx.line(format!("mov.b32 {d}, {t}"));
        }
        (32, 1) => cx.line(format!("ld{sp}.b32 {}, {addr}", regs[0])),
        (64, 2) => cx.line(format!(
            "ld{sp}.v2.b32 {{{}, {}}}, {addr}",
            regs[0], regs[1]
        )),
        (128, 4) => cx.line(format!("ld{sp}.v4.b32 {{{}}}, {addr}", regs.join(", "))),
        _ => return Err("access size".into()),
    }
    Ok(())
}

fn store(cx: &mut Cx<'_>, i: &Instr) -> R<()> {
    ops_len(i, 2)?;
    let (bits, ty, nregs) = access(i)?;
    let (space, sp) = space_of(i.opcode());
    let sem = atomic::strong(i)?;
    let sp = &format!("{sem}{sp}");
    let Operand::Mem(m) = &i.operands[0] else {
        return Err(format!("address {:?}", i.operands[0]));
    };
    let addr = cx.address(&atomic::wide_mem(i, m), space)?;
    let r = i.operands[1].plain_reg().ok_or("source")?;
    let regs: Vec<String> = (0..nregs)
        .map(|k| {
            if r.is_zero() {
                return Ok("0".to_string());
            }
            let rk = Reg {
                file: r.file,
                idx: r.idx.checked_add(k as u8).ok_or("registers")?,
            };
            Cx::reg_name(rk).ok_or_else(|| "registers".to_string())
        })
        .collect::<R<_>>()?;
    match (bits, nregs) {
        (8 | 16, _) => {
            let t = cx.t32();
            cx.line(format!("mov.b32 {t}, {}", regs[0]));
            let sty = if bits == 8 { "b8" } else { "b16" };
            let _ = ty;
            cx.line(format!("st{sp}.{sty} {addr}, {t}"));
        }
        (32, 1) => cx.line(format!("st{sp}.b32 {addr}, {}", regs[0])),
        (64, 2) => cx.line(format!(
            "st{sp}.v2.b32 {addr}, {{{}, {}}}",
            regs[0], regs[1]
        )),
        (128, 4) => cx.line(format!("st{sp}.v4.b32 {addr}, {{{}}}", regs.join(", "))),
        _ => return Err("access size".into()),
    }
    Ok(())
}

fn bra(cx: &mut Cx<'_>, i: &Instr, guard: Option<Guard>) -> R<()> {
    check_mods(i, &["U", "DIV", "CONV"])?;
    if i.has("DIV") || i.has("CONV") {
        return bra_div(cx, i, guard);
    }
    let (t, p) = match i.operands.as_slice() {
        [Operand::Target(t)] => (*t, None),
        // `BRA P, target` on sm_90 is printed `@P BRA`; a predicate operand form is the
        // divergent-branch form.
        [p @ Operand::Pred(..), Operand::Target(t)] => (*t, Some(p)),
        o => return Err(format!("branch operands {o:?}")),
    };
    // A predicate operand (`BRA.U !UP0, target`) is a condition of its own, and-ed with the
    // guard.
    let cond = match p {
        Some(Operand::Pred(r, false)) if r.is_true() => None,
        Some(p) => Some(cx.psrc(p)?),
        None => None,
    };
    let guard_name = guard.map(|gd| {
        cx.guard_consumed = true;
        if gd.not {
            let t = cx.tp();
            cx.line(format!("not.pred {t}, {}", pred_name(gd.reg)));
            t
        } else {
            pred_name(gd.reg)
        }
    });
    let g = match (guard_name, cond) {
        (None, None) => String::new(),
        (Some(a), None) | (None, Some(a)) => format!("@{a} "),
        (Some(a), Some(b)) => {
            let t = cx.tp();
            cx.line(format!("and.pred {t}, {a}, {b}"));
            format!("@{t} ")
        }
    };
    cx.line(format!("{g}bra $L_{t:x}"));
    Ok(())
}

/// `BRA.DIV mask, target` / `BRA.CONV mask, target`: ptxas's choice between a collective's
/// fast path, valid only while the threads of `mask` run converged, and its general path
/// (`WARPSYNC` and the collective in a subroutine), valid in every case. Under independent
/// thread scheduling the threads may always be diverged, so the general path is a
/// behaviour of the program in every case: the lifted kernel always takes it (`BRA.DIV` is
/// taken, `BRA.CONV` is not; a guard applies as to any branch).
fn bra_div(cx: &mut Cx<'_>, i: &Instr, guard: Option<Guard>) -> R<()> {
    let _ = guard;
    let [m, Operand::Target(t)] = i.operands.as_slice() else {
        return Err(format!("branch operands {:?}", i.operands));
    };
    cx.src(m)?;
    if i.has("DIV") {
        cx.line(format!("bra $L_{t:x}"));
    }
    Ok(())
}

/// `Pd = r bop c`, `Pq = !r bop c` (the two results of a compare-and-set-predicate form;
/// a `PT` destination is not written).
pub(super) fn set_pred_pair(
    cx: &mut Cx<'_>,
    pd: &Operand,
    pq: &Operand,
    r: &str,
    bop: &str,
    c: &Operand,
) -> R<()> {
    let c = cx.psrc(c)?;
    if !matches!(pd, Operand::Pred(p, false) if p.is_true()) {
        let d = cx.pdst(pd)?;
        cx.line(format!("{bop}.pred {d}, {r}, {c}"));
    }
    if !matches!(pq, Operand::Pred(p, false) if p.is_true()) {
        let nr = cx.tp();
        cx.line(format!("not.pred {nr}, {r}"));
        let q = cx.pdst(pq)?;
        cx.line(format!("{bop}.pred {q}, {nr}, {c}"));
    }
    Ok(())
}

fn bar(cx: &mut Cx<'_>, i: &Instr) -> R<()> {
    check_mods(i, &["SYNC", "DEFER_BLOCKING"])?;
    if !i.has("SYNC") {
        return Err("BAR without .SYNC".into());
    }
    match i.operands.as_slice() {
        [Operand::Imm(b)] => {
            cx.line(format!("bar.sync {b}"));
            Ok(())
        }
        [Operand::Imm(b), Operand::Imm(n)] => {
            cx.line(format!("bar.sync {b}, {n}"));
            Ok(())
        }
        o => Err(format!("barrier operands {o:?}")),
    }
}

/// `HFMA2.MMA d, -RZ, RZ, hi, lo`: ptxas's way to load a 32-bit constant (the two halves'
/// bits, `-0 * 0 + c = c`).
fn hfma2_mov(cx: &mut Cx<'_>, i: &Instr) -> R<()> {
    check_mods(i, &["MMA"])?;
    let o = &i.operands;
    ops_len(i, 5)?;
    let zero_neg =
        matches!(&o[1], Operand::Reg(r, m) if r.is_zero() && m.neg && !m.abs && m.suffix.is_none());
    let zero = matches!(&o[2], Operand::Reg(r, m) if r.is_zero() && !m.neg && m.suffix.is_none());
    if !(zero_neg && zero) {
        return Err("HFMA2 other than the constant move -RZ, RZ, c".into());
    }
    let half = |op: &Operand| -> R<u32> {
        match op {
            Operand::Imm(v) => Ok(u32::from(f16_bits(*v as f64))),
            Operand::Float(f) => Ok(u32::from(f16_bits(*f))),
            Operand::FloatBits(b) => Ok(*b as u32 & 0xffff),
            o => Err(format!("half immediate {o:?}")),
        }
    };
    let (h, l) = (half(&o[3])?, half(&o[4])?);
    let d = cx.dst(&o[0])?;
    cx.line(format!("mov.b32 {d}, 0x{:08x}", (h << 16) | l));
    Ok(())
}

/// IEEE binary16 bits of `v`, rounded to nearest even (the immediates nvdisasm prints are
/// exact halves).
pub(crate) fn f16_bits(v: f64) -> u16 {
    let sign = if v.is_sign_negative() { 0x8000u16 } else { 0 };
    let a = v.abs();
    if a.is_nan() {
        return 0x7e00;
    }
    if a.is_infinite() {
        return sign | 0x7c00;
    }
    if a == 0.0 {
        return sign;
    }
    // Subnormal step 2^-24.
    if a < 2f64.powi(-14) {
        let m = (a / 2f64.powi(-24)).round_ties_even() as u16;
        return sign | m;
    }
    let e = a.log2().floor() as i32;
    let m = ((a / 2f64.powi(e) - 1.0) * 1024.0).round_ties_even() as u32;
    let (e, m) = if m == 1024 { (e + 1, 0) } else { (e, m) };
    if e > 15 {
        return sign | 0x7c00;
    }
    sign | (((e + 15) as u16) << 10) | m as u16
}

#[cfg(test)]
mod tests {
    #[test]
    fn half_bits() {
        assert_eq!(super::f16_bits(4.76837158203125e-07), 0x0008);
        assert_eq!(super::f16_bits(1.0), 0x3c00);
        assert_eq!(super::f16_bits(-2.0), 0xc000);
        assert_eq!(super::f16_bits(65504.0), 0x7bff);
    }
}
