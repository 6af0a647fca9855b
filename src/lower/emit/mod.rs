//! The function emitter: one PTX `.entry`/`.func` body to one LLVM IR function.
//!
//! This module holds the function context [`Fx`] (the IR text being written, the register
//! scopes, the temporaries) and the per-instruction dispatch, which decodes the instruction's
//! modifiers once ([`crate::ptx::mods::Mods`], order-free typed fields) and hands them to the
//! lowering of the instruction's group; the lowerings read only those fields. The groups are
//! child modules:
//!
//! * `operands`: the register model, declarations, operand reads and writes, addresses;
//! * `arith`: integer arithmetic, logic, shifts and bit manipulation;
//! * `float`: floating-point arithmetic and functions, comparisons and selection;
//! * `memory`: `mov`, `ld`/`st`, `cvta`, `atom`/`red`, `membar`/`fence`;
//! * `cvt`: conversions;
//! * `control`: blocks, labels, guards, branches, calls, barriers;
//! * `globals`: module-scope variables and their initializers;
//! * `functions`: the value ABI and the frame of a function (parameters, return block);
//! * `warp`, `mma`, `wmma`, `tensor_mem`, `mbarrier`, `video`: the warp-level, matrix,
//!   asynchronous-copy, mbarrier and video instructions.
//!
//! Register model: every PTX register is one `alloca` of its declared width; instructions load
//! their operands with the instruction's type (little-endian type punning: a narrower read
//! loads the low bytes) and store results extended to the register width (PTX ISA 9.x §6.4.2
//! "operand size exceeding instruction-type size"). `opt`'s SROA/mem2reg turn this into SSA.
//!
//! Control flow: a label starts a basic block `L.<label>`; a guarded instruction (`@p`, `@!p`)
//! becomes a conditional branch around it; `ret`/`exit` branch to the function's single return
//! block. Calls use a value ABI: each `.param`/`.reg` parameter is an `iN` (or `[N x i8]` for
//! byte arrays), several return parameters are returned as a literal struct.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt::Write;

use crate::ptx::analysis::form_of;
use crate::ptx::ast::*;
use crate::ptx::isa::Opcode;
use crate::ptx::mods::{BoolOp, CmpOp, Layout, Mod, ModSet, Mods, Rounding, Scope, Sem, Shape};
use crate::target::Profile;

use super::sreg;
use super::text;
use super::ty::{imm, imm_v, of_ptx, Kind, Ty};
pub(crate) use super::val::V;

/// `  %t = <pieces>` (the pieces, each a [`Piece`], concatenated) written to the function body
/// of `fx` (an [`Fx`]), returning the new temporary `%t`. A macro rather than a method taking
/// `&[&dyn Piece]` so that every piece is written by static dispatch: literal pieces are
/// copied inline rather than through a `memcpy` call.
macro_rules! opv {
    ($fx:expr, [$($p:expr),* $(,)?]) => {{
        let r = $fx.t();
        $crate::lower::text::put(&mut $fx.body, "  ");
        r.put_into(&mut $fx.body);
        $crate::lower::text::put(&mut $fx.body, " = ");
        $(Piece::put($p, &mut $fx.body);)*
        $fx.body.push('\n');
        r
    }};
}

/// `  <pieces>` as one line of the function body of `fx` (see [`opv!`]).
macro_rules! linev {
    ($fx:expr, [$($p:expr),* $(,)?]) => {{
        $fx.body.push_str("  ");
        $(Piece::put($p, &mut $fx.body);)*
        $fx.body.push('\n');
    }};
}

mod arith;
mod control;
mod cvt;
mod float;
mod functions;
mod globals;
mod local_addr;
mod memory;
mod operands;

mod mbarrier;
mod mma;
mod tensor_mem;
pub(super) mod video;
mod warp;
mod wmma;

use functions::BR_START;
pub(crate) use functions::{emit_function, slot_of, EntryInit, ParamHome, Sig, Slot};
pub(crate) use globals::global_text;
use operands::*;

/// Why a function could not be lowered: the form of the instruction and a reason.
#[derive(Clone, Debug)]
pub(crate) struct Fail {
    pub form: String,
    pub reason: String,
}

pub(crate) type R<T> = Result<T, Fail>;

fn fail<T>(form: &str, reason: impl Into<String>) -> R<T> {
    Err(Fail {
        form: form.to_string(),
        reason: reason.into(),
    })
}

/// Module-level state shared by all functions.
pub(crate) struct ModCx<'m, 'a> {
    pub prof: &'m Profile,
    pub nv: bool,
    /// Address space of `alloca` (5 on AMDGPU, 0 on NVPTX).
    pub alloca_as: u32,
    /// `declare` lines of the functions and intrinsics used, by name.
    pub decls: BTreeMap<String, String>,
    /// Module variables: name → (LLVM global, address space).
    pub globals: HashMap<&'a str, (String, u32)>,
    /// Functions by PTX name.
    pub funcs: HashMap<&'a str, Sig>,
    /// Extra module globals created for function-scope `.shared`/`.global`/`.const`.
    pub extra_globals: String,
    /// A buffer for the head of each function (header, `entry:`, allocas), reused from one
    /// function to the next (see [`emit_function`]).
    pub alloca_buf: String,
    pub module: &'m Module<'a>,
    pub uniq: u32,
    /// The `.func`s whose bodies call a software barrier (see [`Fx::soft_barrier`]).
    pub soft_barrier_funcs: HashSet<&'a str>,
    /// amdgcn: the module's defined `.func`s when one of them holds `exit` (else empty). A
    /// thread's `exit` in a `.func` sets its flag (`@__wp_exit_flag_set`) and returns; every
    /// call of these functions (and every indirect call) then tests the flag and returns
    /// too, so that only the exiting threads end (`s_endpgm` would end the whole wavefront).
    pub exit_funcs: HashSet<&'a str>,
    /// amdgcn: whether `@__wp_printf_fifo` is defined in [`ModCx::extra_globals`] (a call of
    /// `vprintf` was lowered).
    pub printf_fifo: bool,
    /// The host code's launch facts (kernels without launch bounds get the block size
    /// they are launched with).
    pub launch: &'m crate::elf::launch::LaunchFacts,
}

/// An LLVM identifier for a PTX name: bare when it is a valid LLVM identifier, else quoted.
pub(crate) fn ident(sigil: char, name: &str) -> String {
    let ok = !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'$' || b == b'.')
        && !name.as_bytes()[0].is_ascii_digit();
    if ok {
        format!("{sigil}{name}")
    } else {
        format!("{sigil}\"{name}\"")
    }
}

fn ptr_ty(addrspace: u32) -> std::borrow::Cow<'static, str> {
    const P: [&str; 8] = [
        "ptr",
        "ptr addrspace(1)",
        "ptr addrspace(2)",
        "ptr addrspace(3)",
        "ptr addrspace(4)",
        "ptr addrspace(5)",
        "ptr addrspace(6)",
        "ptr addrspace(7)",
    ];
    match P.get(addrspace as usize) {
        Some(p) => std::borrow::Cow::Borrowed(p),
        None => std::borrow::Cow::Owned(format!("ptr addrspace({addrspace})")),
    }
}

/// A piece of an IR line written by [`Fx::opv`] / [`Fx::linev`]: text or an integer, appended
/// without going through `core::fmt` (integers as `Display` writes them, via `itoa`).
pub(crate) trait Piece {
    fn put(&self, s: &mut String);
}

impl Piece for str {
    #[inline(always)]
    fn put(&self, s: &mut String) {
        text::put(s, self);
    }
}

impl<T: Piece + ?Sized> Piece for &T {
    #[inline(always)]
    fn put(&self, s: &mut String) {
        (**self).put(s);
    }
}

impl Piece for String {
    #[inline(always)]
    fn put(&self, s: &mut String) {
        text::put(s, self);
    }
}

impl Piece for std::borrow::Cow<'_, str> {
    #[inline(always)]
    fn put(&self, s: &mut String) {
        text::put(s, self);
    }
}

impl Piece for V {
    #[inline(always)]
    fn put(&self, s: &mut String) {
        self.put_into(s);
    }
}

impl Piece for u32 {
    #[inline(always)]
    fn put(&self, s: &mut String) {
        text::put_u32(s, *self);
    }
}

macro_rules! int_piece {
    ($($t:ty),*) => {$(
        impl Piece for $t {
            #[inline]
            fn put(&self, s: &mut String) {
                s.push_str(itoa::Buffer::new().format(*self));
            }
        }
    )*};
}
int_piece!(u8, u16, u64, u128, usize, i32, i64, i128);

/// Append the decimal digits of `n`.
#[inline(always)]
fn push_u32(s: &mut String, n: u32) {
    text::put_u32(s, n);
}

/// The constant parts of register loads and stores for one alloca address space, per [`Ty`]
/// (indexed by `Ty as usize`): one push instead of four per line.
struct RegText {
    /// ` = load <ty>, <pa> %r`
    load: Vec<String>,
    /// `  store <ty> `
    store: [&'static str; Ty::ALL.len()],
    /// `, <pa> %r`
    store_mid: String,
}

impl RegText {
    fn new(pa: &str) -> RegText {
        RegText {
            load: Ty::ALL
                .iter()
                .map(|t| format!(" = load {}, {pa} %r", t.ll()))
                .collect(),
            store: Ty::ALL.map(|t| t.store_prefix()),
            store_mid: format!(", {pa} %r"),
        }
    }
}

pub(crate) struct Fx<'c, 'm, 'a> {
    cx: &'c mut ModCx<'m, 'a>,
    reg_text: RegText,
    pub body: String,
    /// The function's header line, `entry:` and the allocas (see [`emit_function`]).
    allocas: String,
    /// Once the head is in `body` (see [`Fx::flush_head`]): where allocas declared later go,
    /// and how much of `allocas` is already there.
    head_at: Option<(usize, usize)>,
    /// Whether the carry flag `%cc` has its alloca.
    has_cc: bool,
    tmp: u32,
    nreg: u32,
    nblk: u32,
    terminated: bool,
    scopes: Vec<NameScope<'a>>,
    pa: std::borrow::Cow<'static, str>,
    /// Homes of the return parameters (pointer, slot) or registers for `.reg` returns.
    rets: Vec<(Operand<'a>, Slot)>,
    ret_names: Vec<&'a str>,
    is_kernel: bool,
    cur: Option<&'m Instruction<'a>>,
    /// Labels of `.callprototype`s and `.branchtargets` in this function.
    protos: HashMap<&'a str, &'m CallPrototype<'a>, foldhash::fast::FixedState>,
    btargets: HashMap<&'a str, &'m TargetList<'a>, foldhash::fast::FixedState>,
    /// Every label name defined so far in the function (see `NameScope::labels`).
    labels_seen: HashMap<&'a str, u32, foldhash::fast::FixedState>,
    pub notes: Vec<String>,
    /// The body calls a software barrier (named or counted, amdgcn), whose LDS state the
    /// kernel zeroes at entry.
    pub soft_barrier: bool,
    /// [`Profile::local_gep`]: the function's `.local` variables, the registers that hold
    /// addresses into them ([`local_addr`]), those registers' shadow offset registers (by
    /// register number, made on first use), and the variables that copy a kernel parameter
    /// (variable → parameter).
    local_syms: HashSet<&'a str>,
    local_addrs: HashMap<&'a str, local_addr::LocalAddr<'a>>,
    shadows: HashMap<&'a str, u32>,
    param_copies: HashMap<&'a str, &'a str>,
    /// The function being emitted.
    func: &'m Function<'a>,
    /// Bytes of the `.local` variables and kernel parameters [`local_addr`] addresses.
    local_sizes: HashMap<&'a str, u64>,
    /// amdgcn: the registers holding one constant ([`local_addr::constant_regs`]), computed
    /// at the first use.
    const_regs: Option<HashMap<&'a str, u32>>,
}

impl<'c, 'm, 'a> Fx<'c, 'm, 'a> {
    /// The form of the instruction being lowered (for error reports; computed on demand).
    fn form(&self) -> String {
        self.cur.map(form_of).unwrap_or_default()
    }

    /// A new temporary `%t<N>` (numbered in order of creation).
    #[inline(always)]
    fn t(&mut self) -> V {
        self.tmp += 1;
        V::numbered("%t", self.tmp)
    }

    /// `%t = select i1 <c>, <ty> <a>, <ty> <b>`: a new value (both arms of LLVM type `ty`).
    #[inline]
    fn select<A: Piece + ?Sized, B: Piece + ?Sized>(&mut self, c: &V, ty: &str, a: &A, b: &B) -> V {
        opv!(
            self,
            [&"select i1 ", c, &", ", ty, &" ", a, &", ", ty, &" ", b]
        )
    }

    /// `  %t = load <ty>, <pa> %r<id>`: a register read.
    #[inline]
    fn load_reg(&mut self, ty: Ty, id: u32) -> V {
        let r = self.t();
        let b = &mut self.body;
        text::put(b, "  ");
        r.put_into(b);
        text::put(b, &self.reg_text.load[ty as usize]);
        push_u32(b, id);
        b.push('\n');
        r
    }

    /// `  store <ty> <v>, <pa> %r<id>`: a register write.
    #[inline]
    fn store_reg(&mut self, ty: Ty, v: &str, id: u32) {
        let b = &mut self.body;
        text::put(b, self.reg_text.store[ty as usize]);
        text::put(b, v);
        text::put(b, &self.reg_text.store_mid);
        push_u32(b, id);
        b.push('\n');
    }

    /// `  %t = <a> <ty> <x><c> <d>` (e.g. `zext i32 %t1 to i64`, `add i32 %t1, %t2`).
    #[inline]
    fn op4(&mut self, a: &str, ty: &str, x: &str, c: &str, d: &str) -> V {
        let r = self.t();
        let b = &mut self.body;
        text::put(b, "  ");
        r.put_into(b);
        text::put(b, " = ");
        text::put(b, a);
        b.push(' ');
        text::put(b, ty);
        b.push(' ');
        text::put(b, x);
        text::put(b, c);
        b.push(' ');
        text::put(b, d);
        b.push('\n');
        r
    }

    #[inline]
    fn decl(&mut self, name: &str, line: &str) {
        if !self.cx.decls.contains_key(name) {
            self.cx.decls.insert(name.to_string(), line.to_string());
        }
    }

    /// Declare `@name` with return type `ret` and parameter types `params`.
    fn declare(&mut self, name: &str, ret: &str, params: &[&str]) {
        if !self.cx.decls.contains_key(name) {
            let line = format!("declare {ret} @{name}({})", params.join(", "));
            self.cx.decls.insert(name.to_string(), line);
        }
    }

    /// Emit `%t = call ret @name(args)` (declaring it), returning `%t` (or "" for void).
    fn call(&mut self, name: &str, ret: Ty, args: &[(Ty, &str)]) -> V {
        if !self.cx.decls.contains_key(name) {
            let ptys: Vec<&str> = args.iter().map(|(t, _)| t.ll()).collect();
            self.declare(name, ret.ll(), &ptys);
        }
        let r = self.t();
        let b = &mut self.body;
        b.push_str("  ");
        b.push_str(&r);
        b.push_str(" = call ");
        b.push_str(ret.ll());
        b.push_str(" @");
        b.push_str(name);
        b.push('(');
        for (k, (t, v)) in args.iter().enumerate() {
            if k > 0 {
                b.push_str(", ");
            }
            b.push_str(t.ll());
            b.push(' ');
            b.push_str(v);
        }
        b.push_str(")\n");
        r
    }

    fn call_void(&mut self, name: &str, args: &[(Ty, &str)]) {
        let ptys: Vec<&str> = args.iter().map(|(t, _)| t.ll()).collect();
        self.declare(name, "void", &ptys);
        let a: Vec<String> = args
            .iter()
            .map(|(t, v)| format!("{} {v}", t.ll()))
            .collect();
        let _ = writeln!(self.body, "  call void @{name}({})", a.join(", "));
    }

    #[inline]
    fn start_block(&mut self, name: &str) {
        if !self.terminated {
            self.body.push_str("  br label %");
            self.body.push_str(name);
            self.body.push('\n');
        }
        self.body.push_str(name);
        self.body.push_str(":\n");
        self.terminated = false;
    }

    #[inline]
    fn new_block_name(&mut self) -> V {
        self.nblk += 1;
        V::numbered("b", self.nblk)
    }

    /// `<name>:` starting a block (after a terminator written by the caller).
    #[inline]
    fn block_label(&mut self, name: &str) {
        self.body.push_str(name);
        self.body.push_str(":\n");
    }

    #[inline]
    fn ensure_open(&mut self) {
        if self.terminated {
            self.nblk += 1;
            self.body.push('b');
            push_u32(&mut self.body, self.nblk);
            self.body.push_str(":\n");
            self.terminated = false;
        }
    }

    fn inst(&mut self, i: &'m Instruction<'a>) -> R<()> {
        // The modifiers, decoded once; every lowering below reads these typed fields.
        let mut decoded = Mods::default();
        if let Err(e) = decoded.decode_into(i.opcode, &i.modifiers) {
            return fail(&form_of(i), e.to_string());
        }
        let mo = &decoded;
        let ops: &[Operand<'a>] = &i.operands;
        if !self.local_addrs.is_empty() {
            self.shadow_def(i)?;
        }
        let tys = mo.types();
        let ty1 = |k: usize| -> R<(Ty, Kind)> {
            let t = tys.get(k).copied().ok_or_else(|| Fail {
                form: form_of(i),
                reason: "missing type".into(),
            })?;
            of_ptx(t).ok_or_else(|| Fail {
                form: form_of(i),
                reason: format!("type {}", t.as_str()),
            })
        };
        use Opcode as O;
        match i.opcode {
            O::Bra | O::Ret | O::Exit | O::Trap | O::Brkpt | O::Pmevent | O::Nanosleep | O::Brx => {
                self.control_inst(i, ops)?
            }
            O::Mov => self.mov(mo, ops)?,
            O::Ld | O::Ldu => self.ld(mo, ops)?,
            O::St => self.st(mo, ops)?,
            O::Cvta => self.cvta(mo, ops)?,
            O::Cvt => self.cvt(mo, ops)?,
            O::Add | O::Min | O::Max if mo.has(Mod::S16x2) || mo.has(Mod::U16x2) => {
                self.simd16x2(i.opcode, mo, ops)?
            }
            O::Add | O::Sub | O::Mul | O::Mad | O::Fma | O::Div | O::Rem | O::Min | O::Max => {
                let (t, k) = ty1(tys.len().saturating_sub(1))?;
                if k == Kind::Float {
                    self.farith(i.opcode, mo, t, ops)?
                } else {
                    self.iarith(i.opcode, mo, t, k, ops)?
                }
            }
            O::Addc | O::Subc | O::Madc => {
                let (t, _) = ty1(0)?;
                self.carry(i.opcode, mo, t, ops)?
            }
            O::Mul24
            | O::Mad24
            | O::Sad
            | O::Abs
            | O::Neg
            | O::And
            | O::Or
            | O::Xor
            | O::Not
            | O::Cnot
            | O::Lop3
            | O::Shl
            | O::Shr
            | O::Shf
            | O::Popc
            | O::Clz
            | O::Brev
            | O::Bfind
            | O::Bfe
            | O::Bfi
            | O::Bmsk
            | O::Szext
            | O::Prmt
            | O::Selp => self.int_inst(i, mo, ops)?,
            O::Vabsdiff4 if Self::vabsdiff4_plain(mo, ops) => self.int_inst(i, mo, ops)?,
            O::Setp => self.setp(mo, ops)?,
            O::Set => self.set(mo, ops)?,
            O::Slct
            | O::Rcp
            | O::Sqrt
            | O::Rsqrt
            | O::Sin
            | O::Cos
            | O::Lg2
            | O::Ex2
            | O::Tanh
            | O::Copysign
            | O::Testp => self.float_inst(i, mo, ops)?,
            O::Atom | O::Red => self.atom(i.opcode == O::Atom, mo, ops)?,
            O::Fence if mo.has(Mod::Proxy) || mo.has(Mod::MbarrierInit) => {
                self.async_fence(i, mo)?
            }
            O::Membar | O::Fence => self.fence_inst(i, mo)?,
            O::Bar if mo.has(Mod::Warp) => self.warp_inst(i, mo)?,
            O::Mma => self.mma_inst(i, mo)?,
            O::Dp4a
            | O::Dp2a
            | O::Vadd
            | O::Vsub
            | O::Vabsdiff
            | O::Vmin
            | O::Vmax
            | O::Vshl
            | O::Vshr
            | O::Vmad
            | O::Vset
            | O::Vadd2
            | O::Vsub2
            | O::Vavrg2
            | O::Vabsdiff2
            | O::Vmin2
            | O::Vmax2
            | O::Vset2
            | O::Vadd4
            | O::Vsub4
            | O::Vavrg4
            | O::Vabsdiff4
            | O::Vmin4
            | O::Vmax4
            | O::Vset4 => self.video_inst(i, mo)?,
            O::Wmma => self.wmma_inst(i, mo)?,
            O::Shfl | O::Vote | O::Match | O::Redux | O::Activemask | O::Elect => {
                self.warp_inst(i, mo)?
            }
            O::Cp if mo.has(Mod::Bulk) => self.bulk_inst(i, mo)?,
            O::Mbarrier => self.mbarrier_inst(i, mo)?,
            O::Cp | O::Ldmatrix | O::Stmatrix | O::Movmatrix => self.tensor_mem_inst(i, mo)?,
            O::Barrier if mo.has(Mod::Cluster) => self.cluster_barrier(i, mo)?,
            O::Clusterlaunchcontrol => self.clc_inst(i, mo)?,
            O::Bar | O::Barrier => self.bar(mo, ops)?,
            O::Call => self.callinst(i, ops)?,
            O::Prefetch | O::Prefetchu | O::Applypriority | O::Discard => {}
            // Programmatic dependent launch (PTX ISA 9.x §9.7.13.13): the targets run the
            // kernels of a stream one after the other, so the prerequisite grids have completed
            // (and their memory is visible) when a kernel starts: `.wait` returns at once and
            // `.launch_dependents` (a scheduling hint) has nothing to signal.
            O::Griddepcontrol => {}
            // An L2 cache policy (PTX ISA 9.x §9.7.9.18): an opaque 64-bit value that only
            // `.L2::cache_hint` operands read, and every lowering of those drops the hint
            // (the targets' caches take no such policy). Any value is a valid policy for them.
            O::Createpolicy => self.wr(&ops[0], "0", Ty::I64, false)?,
            O::Isspacep => self.isspacep(mo, ops)?,
            _ => return fail(&form_of(i), "no lowering for this instruction"),
        }
        Ok(())
    }

    // ---------------------------------------------------------------- helpers

    /// `llvm.<name>.<suffix of t>`.
    /// `llvm.<name>.<type suffix>`.
    #[inline]
    fn intr_name(name: &str, t: Ty) -> V {
        V::concat(&["llvm.", name, ".", t.suffix()])
    }

    fn intr1(&mut self, name: &str, t: Ty, a: &str) -> V {
        let n = Self::intr_name(name, t);
        if !self.cx.decls.contains_key(n.as_str()) {
            let l = format!("declare {} @{n}({})", t.ll(), t.ll());
            self.decl(&n, &l);
        }
        opv!(
            self,
            [
                &"call ",
                &(t.ll()),
                &" @",
                &n,
                &"(",
                &(t.ll()),
                &" ",
                &a,
                &")",
            ]
        )
    }

    fn intr2(&mut self, name: &str, t: Ty, a: &str, b: &str) -> V {
        let n = Self::intr_name(name, t);
        if !self.cx.decls.contains_key(n.as_str()) {
            let l = format!("declare {} @{n}({}, {})", t.ll(), t.ll(), t.ll());
            self.decl(&n, &l);
        }
        let ll = t.ll();
        opv!(
            self,
            [&"call ", &ll, &" @", &n, &"(", &ll, &" ", &a, &", ", &ll, &" ", &b, &")",]
        )
    }

    fn intr3(&mut self, name: &str, t: Ty, a: &str, b: &str, c: &str) -> V {
        let n = Self::intr_name(name, t);
        let ll = t.ll();
        if !self.cx.decls.contains_key(n.as_str()) {
            let l = format!("declare {ll} @{n}({ll}, {ll}, {ll})");
            self.decl(&n, &l);
        }
        opv!(
            self,
            [
                &"call ", &ll, &" @", &n, &"(", &ll, &" ", &a, &", ", &ll, &" ", &b, &", ", &ll,
                &" ", &c, &")",
            ]
        )
    }
}
