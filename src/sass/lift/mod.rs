//! SASS to PTX: each kernel of a decoded cubin becomes a PTX `.entry` with the same
//! parameter layout (from `.nv.info`), which the PTX front end parses and the lowering
//! builds like any other PTX, so everything downstream is reused.
//!
//! # The machine state in PTX
//!
//! * `R0..R254` → `.b32 %r0..%r254`, `UR0..UR62` → `.b32 %u0..%u62` (`RZ`/`URZ` read as 0,
//!   writes go to a fresh temporary); 64-bit operands (`R2.64`, `IMAD.WIDE`) are the pair
//!   `{Rn, Rn+1}`.
//! * `P0..P6` → `.pred %p0..%p6`, `UP0..UP6` → `%q0..%q6`, `PT` → `%pt` (set true at entry).
//! * Bank-0 constants: the kernel parameters (`EIATTR_PARAM_CBANK`/`KPARAM_INFO`) become
//!   `ld.param` of the matching `.param` array, the driver constants (`%ntid`, `%nctaid`,
//!   the stack top, the memory descriptor) come from `src/sass/cbank0.tsv`.
//! * Shared memory is one `.shared` array of the kernel's static size; SASS shared
//!   addresses are offsets into it. Local memory is one `.local` array `__frame`, `R1`
//!   starting at its end: the frame, or `EIATTR_MIN_STACK_SIZE` when the kernel's subroutines
//!   use frames too (for a recursive call graph, the frame plus CUDA's default 1 KiB stack).
//! * Compiler constants (`c[0x2][..]`, the kernel's `.nv.constant2.<kernel>`) are read from
//!   the cubin as immediates (with a register index: from a module-scope copy of the bank).
//! * The module's data (`emit/data.rs`): `__constant__` variables (bank 3) are read with
//!   `ld.const` from module-scope `.const` symbols of the cubin's names and bytes; bank 4 holds
//!   the relocated addresses of `__device__` variables and string literals (module-scope
//!   `.global` symbols, `cvta.global` of them) and of external functions.
//! * External calls (`emit/warp.rs`): `CALL.ABS.NOINC` to `vprintf` / `__assertfail` (the
//!   callee from the bank-4 relocation its address was loaded from, `external_calls`) is a PTX
//!   `call` with the register ABI of `src/sass/externs.tsv`.
//! * Shared memory is the static `.shared` array, or, for a kernel without static shared
//!   memory, the dynamic one: the module-scope `.extern .shared` array [`DYNAMIC_SHARED`].
//! * Every instruction offset that is a branch target gets a label `$L_<offset>`, and so does
//!   the return site of every `CALL.REL` (subroutines are branches, see `emit/warp.rs`); a
//!   guarded instruction whose lifting takes several PTX instructions is branched around.
//! * Floating-point forms are in `emit/float.rs` (the PTX instruction of the same rounding,
//!   flush-to-zero, saturation and NaN rule), warp collectives, bit forms and subroutines in
//!   `emit/warp.rs` (the warp member mask `%wm`, see there), the sm_80 tensor-core and
//!   asynchronous-copy forms (`HMMA`, `HMMA.SP`, `DMMA`, `LDSM`, `MOVM`, `LDGSTS`,
//!   `LDGDEPBAR`, `DEPBAR.LE SB0`) in `emit/tensor.rs`: `mma.sync`, `mma.sp`, `ldmatrix`,
//!   `movmatrix` and `cp.async` on the same fragment registers (a SASS matrix operand is the
//!   run of registers starting at the one printed, in PTX's fragment order);
//!   atomics, reductions, fences and barrier reductions in `emit/atomic.rs` (`.STRONG.<scope>`
//!   as relaxed at that scope).
//! * A bank-2 word with a relocation is not read (its bytes are patched at load time), nor is
//!   initialised data that holds addresses.
//! * Convergence barriers (`BSSY`/`BSYNC`/`BREAK`, and `BMOV` of them) are per-thread masks
//!   `%b0`..`%b15` and `bar.warp.sync` in a function with a warp-synchronous form
//!   (`emit/warp.rs`): an sm_70+ warp that diverged does not come back together before a
//!   collective unless told to. Elsewhere they are no-ops.
//!
//! An instruction the lifter cannot express is an [`Unlifted`] with its form and reason;
//! a kernel with any is not emitted (never a silent drop).

mod emit;

use super::decode::{Function, Instr};
use super::info::KernelInfo;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

static CBANK0_TSV: &str = include_str!("../cbank0.tsv");
static SREG_TSV: &str = include_str!("../sreg.tsv");
static EXTERNS_TSV: &str = include_str!("../externs.tsv");

/// The PTX signature of external device function `name` (`vprintf`) that lifted kernels call:
/// (result type, or `None`; parameter types), from `src/sass/externs.tsv`.
pub(crate) fn external(name: &str) -> Option<(Option<&'static str>, Vec<&'static str>)> {
    rows(EXTERNS_TSV)
        .find(|r| r.len() >= 3 && r[0] == name)
        .map(|r| {
            (
                (r[1] != "-").then_some(r[1]),
                r[2].split(',').filter(|p| !p.is_empty()).collect(),
            )
        })
}

/// The lifter's name for the SASS family of `arch` (`ampere` for sm_80..sm_89, `hopper`
/// for sm_90/sm_90a), from `cbank0.tsv`; `None` for an arch it does not know.
pub fn family_of(arch: &str) -> Option<&'static str> {
    rows(CBANK0_TSV)
        .find(|r| r.len() >= 2 && r[1].split(',').any(|a| a == arch))
        .map(|r| r[0])
}

fn rows(tsv: &'static str) -> impl Iterator<Item = Vec<&'static str>> {
    tsv.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| l.split('\t').collect())
}

/// A bank-0 driver constant: (meaning, bytes) at `offset` for `family`.
pub(crate) fn driver_constant(family: &str, offset: i64) -> Option<(&'static str, u32)> {
    rows(CBANK0_TSV)
        .filter(|r| r.len() >= 5 && r[0] == family)
        .find(|r| i64::from_str_radix(r[2].trim_start_matches("0x"), 16).ok() == Some(offset))
        .map(|r| (r[4], r[3].parse().unwrap_or(4)))
}

/// The default parameter base of `family` (the `params` row).
pub(crate) fn default_param_base(family: &str) -> Option<u32> {
    rows(CBANK0_TSV)
        .filter(|r| r.len() >= 5 && r[0] == family && r[4] == "params")
        .find_map(|r| u32::from_str_radix(r[2].trim_start_matches("0x"), 16).ok())
}

/// The PTX special register a SASS special register reads (`SR_TID.X` → `%tid.x`).
pub(crate) fn sreg(name: &str) -> Option<&'static str> {
    rows(SREG_TSV)
        .find(|r| r.len() >= 2 && r[0] == name)
        .map(|r| r[1])
}

/// The module-scope `.extern .shared` array that kernels without static shared memory
/// address their (dynamic) shared memory through.
pub const DYNAMIC_SHARED: &str = "__wp_dsmem";

/// An instruction the lifter did not express.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unlifted {
    /// The form (`HMMA.16816.F32`).
    pub form: String,
    /// Byte offset of the instruction in its function.
    pub offset: u32,
    /// Why.
    pub reason: String,
}

/// One kernel's lifting outcome.
#[derive(Debug, Clone)]
pub struct KernelLift {
    /// The kernel name.
    pub name: String,
    /// SASS instructions in it.
    pub instructions: usize,
    /// Distinct forms in it.
    pub forms: usize,
    /// The PTX `.entry` text (when every instruction lifted).
    pub ptx: Option<String>,
    /// What did not lift (empty when `ptx` is set), in address order.
    pub unlifted: Vec<Unlifted>,
    /// The kernel addresses the module's [`DYNAMIC_SHARED`] array, which
    /// [`crate::sass::CubinLift::module`] declares.
    pub dynamic_shared: bool,
    /// The module-scope declarations the kernel needs (its data of constant banks 3 and 4,
    /// the external functions it calls), as (name, PTX text); [`crate::sass::CubinLift::module`]
    /// writes each name once.
    pub decls: Vec<(String, String)>,
}

impl KernelLift {
    /// Per form: (instructions not lifted, offset of the first, the first reason).
    pub fn unlifted_forms(&self) -> BTreeMap<String, (usize, u32, String)> {
        let mut m: BTreeMap<String, (usize, u32, String)> = BTreeMap::new();
        for u in &self.unlifted {
            m.entry(u.form.clone())
                .or_insert((0, u.offset, u.reason.clone()))
                .0 += 1;
        }
        m
    }
}

/// The PTX module header for lifted kernels of `arch` (PTX ISA 8.7, the SM of the cubin).
pub fn module_header(arch: &str) -> String {
    let sm = super::sm_number(arch);
    let target = if sm >= 90 {
        "sm_90".to_string()
    } else {
        format!("sm_{sm}")
    };
    format!(".version 8.7\n.target {target}\n.address_size 64\n\n")
}

pub use emit::Consts;

/// Lift kernel `f` of a cubin for `arch`, with what `.nv.info` says about it (`info`) and
/// the cubin's other constant banks (`consts`: compiler constants are read from them).
pub fn lift_kernel(f: &Function, info: &KernelInfo, arch: &str, consts: &Consts) -> KernelLift {
    let inlined;
    let f = match inline_calls(f, &consts.functions) {
        Some(g) => {
            inlined = g;
            &inlined
        }
        None => f,
    };
    let mut out = KernelLift {
        name: f.name.clone(),
        instructions: f.instrs.len(),
        forms: f
            .instrs
            .iter()
            .map(|i| &*i.form)
            .collect::<BTreeSet<&str>>()
            .len(),
        ptx: None,
        unlifted: Vec::new(),
        dynamic_shared: false,
        decls: Vec::new(),
    };
    let Some(family) = family_of(arch) else {
        out.unlifted.push(Unlifted {
            form: "(arch)".into(),
            offset: 0,
            reason: format!("no lifter for {arch} (sm_80..sm_89, sm_90 are known)"),
        });
        return out;
    };
    let params = match emit::ParamLayout::new(info, family) {
        Ok(p) => p,
        Err(e) => {
            out.unlifted.push(Unlifted {
                form: "(parameters)".into(),
                offset: 0,
                reason: e,
            });
            return out;
        }
    };
    // The return sites of the subroutine calls inside the function.
    let return_sites: Vec<u32> = f
        .instrs
        .iter()
        .filter(|i| i.opcode() == "CALL" && i.has("REL"))
        .map(|i| i.offset + 16)
        .collect();
    // An indirect `CALL.REL R` (a device-function pointer) may enter any subroutine.
    let entries: Vec<u32> = if f.instrs.iter().any(|i| {
        i.opcode() == "CALL"
            && i.has("REL")
            && !matches!(i.operands.as_slice(), [super::decode::Operand::Target(_)])
    }) {
        f.subroutines.iter().map(|&(_, o)| o).collect()
    } else {
        Vec::new()
    };
    let targets: BTreeSet<u32> = f
        .instrs
        .iter()
        .flat_map(|i| i.operands.iter())
        .filter_map(|o| match o {
            super::decode::Operand::Target(t) => Some(*t),
            _ => None,
        })
        .chain(return_sites.iter().copied())
        .chain(entries.iter().copied())
        .collect();
    let mut cx = emit::Cx::new(family, &params, info, consts);
    cx.convergence = f
        .instrs
        .iter()
        .any(|i| WARP_SYNCHRONOUS.contains(&i.opcode()));
    cx.return_sites = return_sites;
    cx.entries = entries;
    // Join points for following register values: every branch target but `LEPC`'s (the
    // return site after an external call, reached only from the call).
    let joins: BTreeSet<u32> = f
        .instrs
        .iter()
        .filter(|i| i.opcode() != "LEPC")
        .flat_map(|i| i.operands.iter())
        .filter_map(|o| match o {
            super::decode::Operand::Target(t) => Some(*t),
            _ => None,
        })
        .chain(cx.return_sites.iter().copied())
        .chain(cx.entries.iter().copied())
        .collect();
    (cx.abs_calls, cx.callee_loads) = external_calls(&f.instrs, &joins, consts);
    cx.turns = turns_arguments(&f.instrs, &targets);
    let saves: BTreeMap<u32, super::decode::Reg> = cx.turns.values().copied().collect();
    let mut body = String::new();
    for i in &f.instrs {
        if targets.contains(&i.offset) {
            let _ = writeln!(body, "$L_{:x}:", i.offset);
        }
        if let Some(&x) = saves.get(&i.offset) {
            // The radian argument of a later MUFU.SIN/COS, before this FMUL.RZ.
            body.push_str(&cx.save_radians(i.offset, x));
        }
        match lift_one(&mut cx, i) {
            Ok(text) => body.push_str(&text),
            Err(reason) => out.unlifted.push(Unlifted {
                form: i.form.to_string(),
                offset: i.offset,
                reason,
            }),
        }
    }
    if out.unlifted.is_empty() {
        let mut s = String::new();
        let _ = write!(s, ".visible .entry {}(", f.name);
        let _ = write!(s, "{}", params.declarations(&f.name));
        s.push_str(")\n");
        if let Some(m) = info.max_threads.filter(|m| m.iter().all(|&x| x > 0)) {
            let _ = writeln!(s, ".maxntid {}, {}, {}", m[0], m[1], m[2]);
        }
        if let Some(m) = info.reqntid.filter(|m| m.iter().all(|&x| x > 0)) {
            let _ = writeln!(s, ".reqntid {}, {}, {}", m[0], m[1], m[2]);
        }
        s.push_str("{\n");
        s.push_str(&cx.declarations());
        s.push_str(&body);
        s.push_str("}\n");
        out.ptx = Some(s);
        out.dynamic_shared = cx.uses_dynamic_shared();
        out.decls = std::mem::take(&mut cx.decls);
    }
    out
}

/// Where the inlined bodies of [`inline_calls`] are placed: call `k` of the kernel (in order)
/// at `INLINE_BASE + k * INLINE_STRIDE` plus the callee's own offsets (kernels are shorter
/// than the base; a callee longer than the stride, or a call past the offset range, is not
/// inlined).
const INLINE_BASE: u32 = 0x4000_0000;
const INLINE_STRIDE: u32 = 0x0001_0000;

/// `f` with each `CALL.ABS.NOINC \`(g)` of a non-kernel function `g` of the cubin
/// (`functions`: CUDA 11's `__cuda_sm70_shflsync_*`/`__cuda_sm70_warpsync` helpers of `-rdc`
/// builds, `__cuda_sm20_div_u64`) replaced by `g`'s instructions, its offsets and branch
/// targets moved to a range of their own, and each of its `RET.ABS.NODEC` by a branch to the
/// instruction after the call. The caller passes arguments and takes results in registers
/// (`R4`..`R7`, the return address in `R20:R21`) and the callee uses the same register file,
/// so the inlined code computes what the call did; the return address (`32@lo((kernel +
/// .L_x@srel))`, the label after the call) is lifted as that label's offset. `None` when `f`
/// makes no such call; a callee that itself calls is not inlined (the call stays unlifted).
fn inline_calls(f: &Function, functions: &BTreeMap<String, Function>) -> Option<Function> {
    use super::decode::Operand;
    let callee = |i: &Instr| -> Option<&Function> {
        if i.opcode() != "CALL" || !i.has("ABS") || i.guard.is_some() {
            return None;
        }
        let [Operand::Symbol(name)] = i.operands.as_slice() else {
            return None;
        };
        functions.get(&**name).filter(|g| {
            !g.instrs.iter().any(|x| x.opcode() == "CALL")
                && g.instrs.last().is_some_and(|x| x.offset < INLINE_STRIDE)
        })
    };
    if !f.instrs.iter().any(|i| callee(i).is_some()) {
        return None;
    }
    let mut instrs = Vec::with_capacity(f.instrs.len());
    let mut k = 0u32;
    for i in &f.instrs {
        let base = k
            .checked_mul(INLINE_STRIDE)
            .and_then(|o| o.checked_add(INLINE_BASE));
        let (Some(g), Some(base)) = (callee(i), base) else {
            instrs.push(i.clone());
            continue;
        };
        k += 1;
        let ret_site = i.offset + 16;
        for x in &g.instrs {
            let mut y = x.clone();
            y.offset += base;
            if y.opcode() == "RET" && y.has("ABS") {
                y.form = "BRA".into();
                y.operands = vec![Operand::Target(ret_site)];
            } else {
                for o in &mut y.operands {
                    if let Operand::Target(t) = o {
                        *t += base;
                    }
                }
            }
            instrs.push(y);
        }
    }
    Some(Function {
        name: f.name.clone(),
        instrs,
        subroutines: f.subroutines.clone(),
    })
}

/// The forms whose result depends on which threads of the warp execute them together: a
/// function holding one keeps its convergence barriers (see `emit/warp.rs`).
const WARP_SYNCHRONOUS: &[&str] = &[
    "VOTE", "VOTEU", "SHFL", "MATCH", "REDUX", "WARPSYNC", "HMMA", "IMMA", "DMMA", "BMMA", "LDSM",
    "STSM", "MOVM",
];

/// The bits of 1/2π as binary32 (0.15915493667125701904), the factor ptxas multiplies the
/// argument of `sin/cos.approx.f32` by, rounding toward zero, before `MUFU.SIN/COS`.
const INV_2PI_F32: u32 = 0x3e22_f983;

/// For each `MUFU.SIN`/`MUFU.COS` of `instrs` whose argument register `Rt` was last written,
/// in the same basic block, by the `FMUL.RZ Rt, Rx, 0.15915493667125701904` that ptxas makes
/// of `sin/cos.approx.f32 x`: the offset of the MUFU, and the offset of the FMUL with `Rx`.
/// The lifted FMUL first copies `Rx` (the argument in radians) to a temporary, and the MUFU
/// is lifted as `sin/cos.approx.ftz.f32` of it: ptxas makes the same pair again (the argument
/// of MUFU is in revolutions, which PTX cannot name; `2π·Rt` rounds differently). `Rx` may be
/// written again in between, or be `Rt` itself (ptxas reuses it).
/// Conservative: an instruction in between that may write `Rt` ([`dest_reg`]: up to 4
/// registers for forms that can write pairs or vectors), a branch target or a control
/// instruction ends the search.
fn turns_arguments(
    instrs: &[Instr],
    targets: &BTreeSet<u32>,
) -> BTreeMap<u32, (u32, super::decode::Reg)> {
    use super::decode::{File, Operand, Reg};
    // Whether an instruction writing `d` (of `width` registers) may write `x`.
    let near =
        |(d, width): (Reg, u8), x: Reg| d.file == x.file && d.idx <= x.idx && x.idx - d.idx < width;
    let mut out = BTreeMap::new();
    for (j, m) in instrs.iter().enumerate() {
        if m.opcode() != "MUFU" || !(m.has("SIN") || m.has("COS")) || m.operands.len() != 2 {
            continue;
        }
        let Some(t) = m.operands[1]
            .plain_reg()
            .filter(|r| r.file == File::R && !r.is_zero())
        else {
            continue;
        };
        let mut x: Option<(u32, Reg)> = None;
        for k in (0..j).rev() {
            let i = &instrs[k];
            if targets.contains(&instrs[k + 1].offset)
                || matches!(
                    i.opcode(),
                    "BRA" | "BRX" | "JMP" | "CALL" | "RET" | "EXIT" | "BSYNC" | "WARPSYNC" | "BAR"
                )
            {
                break;
            }
            let Some(d) = dest_reg(i) else {
                continue;
            };
            if !near(d, t) {
                continue;
            }
            let d = d.0;
            // The last write of Rt: it must be the FMUL.RZ by 1/2π.
            let fmul = i.opcode() == "FMUL"
                && i.guard.is_none()
                && i.modifiers().all(|x| x == "RZ" || x == "FTZ")
                && i.has("RZ")
                && i.operands.len() == 3
                && d == t;
            let src = match (fmul, i.operands.get(1), i.operands.get(2)) {
                (true, Some(a), Some(Operand::Float(c)))
                    if (*c as f32).to_bits() == INV_2PI_F32 =>
                {
                    a.plain_reg().filter(|r| r.file == File::R && !r.is_zero())
                }
                _ => None,
            };
            if let Some(xr) = src {
                x = Some((i.offset, xr));
            }
            break;
        }
        if let Some(xr) = x {
            out.insert(m.offset, xr);
        }
    }
    out
}

/// The callee of each `CALL.ABS.NOINC Rt` of `instrs` (by the call's offset), and the offsets
/// of the `LDC.64` that load the callees' addresses. ptxas 13.5 loads the address from a
/// bank-4 word relocated against the function's symbol, `LDC.64 Rt, c[0x4][off]` or, with the
/// offset in a register, `MOV Rx, off` then `LDC.64 Rt, c[0x4][Rx]` (the `MOV` may come before
/// an earlier external call: ptxas keeps the register across it).
///
/// The values are followed forward through straight-line code as the lifted program computes
/// them: an immediate moved to a register, a bank word's function address loaded into a pair;
/// every other write (as [`dest_reg`] bounds it) forgets the registers it may write, a lifted
/// external call writes only its result (R4, R5), and every branch target in `targets` and
/// every other control instruction forgets everything. A call whose target is not known this
/// way is left out (lifting it then reports why).
fn external_calls(
    instrs: &[Instr],
    targets: &BTreeSet<u32>,
    consts: &Consts,
) -> (BTreeMap<u32, String>, BTreeSet<u32>) {
    use super::decode::{Bank, File, Operand};
    #[derive(Clone, Copy)]
    enum Val {
        Imm(i64),
        /// The 8-byte word of bank `.0` at `.1`, loaded by the `LDC.64` at offset `.2`.
        Word(u8, i64, u32),
    }
    let (mut calls, mut loads) = (BTreeMap::new(), BTreeSet::new());
    let mut known: BTreeMap<u8, Val> = BTreeMap::new();
    let forget = |known: &mut BTreeMap<u8, Val>, first: u8, width: u8| {
        for k in 0..width {
            known.remove(&first.saturating_add(k));
        }
    };
    for i in instrs {
        if targets.contains(&i.offset) {
            known.clear();
        }
        let op = i.opcode();
        let plain_r = |o: Option<&Operand>| {
            o.and_then(Operand::plain_reg)
                .filter(|r| r.file == File::R && !r.is_zero())
        };
        if op == "CALL" && i.has("ABS") {
            if let Some(Val::Word(b, off, at)) =
                plain_r(i.operands.first()).and_then(|t| known.get(&t.idx).copied())
            {
                let callee = u64::try_from(off).ok().and_then(|o| {
                    let r = consts
                        .relocations
                        .get(&format!(".nv.constant{b}"))?
                        .iter()
                        .find(|r| r.offset == o)?;
                    (r.kind == super::info::R_CUDA_64
                        && r.addend == 0
                        && consts
                            .symbols
                            .iter()
                            .any(|s| s.name == r.symbol && s.function))
                    .then(|| r.symbol.clone())
                });
                if let Some(c) = callee {
                    calls.insert(i.offset, c);
                    loads.insert(at);
                }
            }
            forget(&mut known, 4, 2);
            continue;
        }
        if matches!(
            op,
            "BRA" | "BRX" | "JMP" | "CALL" | "RET" | "EXIT" | "BSYNC" | "WARPSYNC" | "BAR"
        ) {
            known.clear();
            continue;
        }
        let Some((d, width)) = dest_reg(i) else {
            continue;
        };
        if d.file != File::R || d.is_zero() {
            continue;
        }
        // `LDC`, `LDC.64` and `IMAD.WIDE` write exactly one or two registers.
        let width = match op {
            "LDC" => 1 + u8::from(i.has("64")),
            "IMAD" if i.has("WIDE") => 2,
            _ => width,
        };
        let val = if i.guard.is_some() {
            None
        } else {
            match (&*i.form, i.operands.as_slice()) {
                ("MOV", [_, Operand::Imm(v)] | [_, Operand::Imm(v), Operand::Imm(0xf)]) => {
                    Some(Val::Imm(*v))
                }
                ("IMAD.MOV.U32", [_, Operand::Reg(a, _), Operand::Reg(b, _), Operand::Imm(v)])
                    if a.is_zero() && b.is_zero() =>
                {
                    Some(Val::Imm(*v))
                }
                (
                    "LDC.64",
                    [_, Operand::Const {
                        bank: Bank::Imm(b),
                        index,
                        offset,
                        ..
                    }],
                ) => match index {
                    None => Some(Val::Word(*b, *offset, i.offset)),
                    Some(x) => match known.get(&x.idx) {
                        Some(Val::Imm(v)) if x.file == File::R => {
                            Some(Val::Word(*b, v + offset, i.offset))
                        }
                        _ => None,
                    },
                },
                _ => None,
            }
        };
        forget(&mut known, d.idx, width);
        if let (Some(v), Some(r)) = (val, plain_r(i.operands.first())) {
            known.insert(r.idx, v);
        }
    }
    (calls, loads)
}

/// The register an instruction writes, as far as [`turns_arguments`] needs it: the first
/// register operand after any leading predicate operands (`SHFL.IDX PT, R3, ..`,
/// `ATOMG.E.ADD PT, R5, ..`); none for comparisons and predicate logic (`FSETP`, `PLOP3`),
/// and when the first operand is an address (stores, `RED`).
fn dest_reg(i: &Instr) -> Option<(super::decode::Reg, u8)> {
    use super::decode::Operand;
    let op = i.opcode();
    // Predicate-only destinations: comparisons and predicate logic.
    if op.ends_with("SETP") || matches!(op, "FCHK" | "PLOP3" | "UPLOP3" | "R2P") {
        return None;
    }
    // Up to 4 registers for a form that may write a pair or a vector, else 1.
    let wide = i.form.contains("64")
        || i.form.contains("128")
        || i.has("WIDE")
        || op.starts_with('D')
        || matches!(
            op,
            "HMMA"
                | "IMMA"
                | "LDSM"
                | "MOVM"
                | "CS2R"
                | "F2F"
                | "I2F"
                | "F2I"
                | "LDS"
                | "LDG"
                | "LD"
                | "LDL"
                | "LDC"
                | "ULDC"
                | "MATCH"
                | "SHFL"
                | "LEPC"
        );
    i.operands
        .iter()
        .find(|o| !matches!(o, Operand::Pred(..)))
        .and_then(|o| match o {
            Operand::Reg(r, _) => Some((*r, if wide { 4 } else { 1 })),
            _ => None,
        })
}

/// One instruction as PTX text: guarded single instructions keep the guard, longer
/// expansions are branched around.
fn lift_one(cx: &mut emit::Cx<'_>, i: &Instr) -> Result<String, String> {
    let guard = match i.guard {
        None => None,
        Some(g) if g.reg.is_true() => {
            if g.not {
                // @!PT: never executes.
                return Ok(String::new());
            }
            None
        }
        Some(g) => Some(g),
    };
    cx.begin();
    emit::instruction(cx, i, guard)?;
    let lines = cx.take();
    let Some(g) = guard else {
        return Ok(lines);
    };
    if cx.guard_consumed {
        return Ok(lines);
    }
    let p = emit::pred_name(g.reg);
    let skip = format!("$S_{:x}", i.offset);
    Ok(format!(
        "\t@{}{p} bra {skip};\n{lines}{skip}:\n",
        if g.not { "" } else { "!" }
    ))
}
