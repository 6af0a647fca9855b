//! The function emitter: one PTX `.entry`/`.func` body to one LLVM IR function.
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

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write;

use crate::ptx::analysis::form_of;
use crate::ptx::ast::*;
use crate::ptx::isa::Opcode;
use crate::target::{Family, Profile};

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

// Warp-level instructions (a child module: it extends `Fx`).
#[path = "mma.rs"]
mod mma;
#[path = "warp.rs"]
mod warp;
#[path = "wmma.rs"]
mod wmma;

// cp.async and ldmatrix/stmatrix/movmatrix (a child module: it extends `Fx`).
#[path = "tensor_mem.rs"]
mod tensor_mem;

// dp4a/dp2a and the video instructions (a child module: it extends `Fx`).
#[path = "video.rs"]
pub(super) mod video;
// mbarrier and cp.async.bulk (a child module: it extends `Fx`).
#[path = "mbarrier.rs"]
mod mbarrier;

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

/// A parameter or return slot of the value ABI.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Slot {
    /// A scalar of `bits` bits (`i1` for `.pred`).
    Scalar(u32),
    /// A byte array of `size` bytes aligned to `align`.
    Bytes(u32, u32),
}

impl Slot {
    pub fn ll(&self) -> String {
        match self {
            Slot::Scalar(b) => Ty::int(*b).ll().to_string(),
            Slot::Bytes(n, _) => format!("[{n} x i8]"),
        }
    }
    pub fn size(&self) -> u32 {
        match self {
            Slot::Scalar(b) => b.div_ceil(8),
            Slot::Bytes(n, _) => *n,
        }
    }
    pub fn align(&self) -> u32 {
        match self {
            Slot::Scalar(b) => b.div_ceil(8).max(1),
            Slot::Bytes(_, a) => *a,
        }
    }
}

/// The slot of one declarator of a parameter declaration.
pub(crate) fn slot_of(v: &VarDecl<'_>, d: &Declarator<'_>) -> Option<Slot> {
    let eb = match v.ty {
        Type::Pred => 0,
        t => t.bits(),
    };
    let n: u64 =
        d.array.iter().map(|x| x.unwrap_or(0)).product::<u64>() * v.vector.unwrap_or(1) as u64;
    if v.ty == Type::Pred {
        return Some(Slot::Scalar(1));
    }
    if eb == 0 {
        return None;
    }
    if d.array.is_empty() && v.vector.is_none() {
        if v.align.is_some_and(|a| a * 8 != eb) {
            return Some(Slot::Bytes(eb / 8, v.align.unwrap()));
        }
        return Some(Slot::Scalar(eb));
    }
    let size = (n * eb as u64 / 8) as u32;
    Some(Slot::Bytes(size, v.align.unwrap_or((eb / 8).max(1))))
}

/// A function's value-ABI signature.
#[derive(Clone, Debug)]
pub(crate) struct Sig {
    pub llname: String,
    pub params: Vec<Slot>,
    pub rets: Vec<Slot>,
}

impl Sig {
    pub fn ret_ll(&self) -> String {
        match self.rets.len() {
            0 => "void".into(),
            1 => self.rets[0].ll(),
            _ => format!(
                "{{ {} }}",
                self.rets
                    .iter()
                    .map(|s| s.ll())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }
    }
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

#[derive(Clone, Debug)]
enum Local {
    /// A register: alloca `%r<id>` of `bits` bits (1 for predicates).
    Reg { id: u32, bits: u32 },
    /// Addressable memory (a `.param`, `.local` variable or a home of a parameter): an LLVM
    /// pointer value and its address space.
    Mem { ptr: V, aspace: u32 },
}

#[derive(Default)]
struct Scope<'a> {
    names: HashMap<&'a str, Local, foldhash::fast::FixedState>,
    /// Bit `min(len, 63)` set for the length of every name in `names`: most lookups of a
    /// register (`%r12`) in a scope holding only parameters or inline-asm temporaries (`p`)
    /// are answered by this mask without hashing the name.
    name_lens: u64,
    /// `%name<N>` declarations, in order.
    ranges: Vec<RegRange<'a>>,
    /// The labels defined in this `{ }` block and their LLVM block names: a label is local to
    /// its block (PTX ISA 9.x §11.2.4 "scope"), so inlined asm blocks may reuse one
    /// (CUTLASS's `LAB_WAIT:` in every mbarrier wait).
    /// The first definition of each name counts (a redefinition in the same block is not
    /// looked up).
    labels: HashMap<&'a str, V, foldhash::fast::FixedState>,
}

impl<'a> Scope<'a> {
    /// Declare `name` as `l` in this scope.
    fn add_name(&mut self, name: &'a str, l: Local) {
        self.name_lens |= len_bit(name);
        self.names.insert(name, l);
    }
}

/// The bit of [`Scope::name_lens`] for `name`.
#[inline(always)]
fn len_bit(name: &str) -> u64 {
    1u64 << name.len().min(63)
}

/// A parameterized register declaration `.reg .t <prefix><<count>>`: registers
/// `<prefix>0` .. `<prefix><count-1>` are allocas `%r<first>` .. of `bits` bits.
struct RegRange<'a> {
    prefix: &'a str,
    /// [`prefix_key`] of `prefix`, compared before the text.
    key: u64,
    count: u32,
    first: u32,
    bits: u32,
}

/// The first 8 bytes of a register-name prefix packed in a `u64`, and its length in the top
/// byte's place when shorter: two prefixes of at most 7 bytes are equal exactly when their
/// keys are (longer ones compare their text too).
#[inline]
fn prefix_key(p: &str) -> u64 {
    use std::ptr::read_unaligned as rd;
    let b = p.as_bytes();
    let n = b.len();
    let src = b.as_ptr();
    // Built in registers from (overlapping) loads of `p`: going through a stack array written
    // in pieces and read back as one `u64` stalls the load (no store-to-load forwarding).
    // SAFETY: every load reads within `b[..n]` (the branch bounds `n`).
    let k = unsafe {
        if n >= 8 {
            return u64::from_le(rd(src as *const u64));
        } else if n >= 4 {
            let lo = u32::from_le(rd(src as *const u32)) as u64;
            let hi = u32::from_le(rd(src.add(n - 4) as *const u32)) as u64;
            lo | hi << ((n - 4) * 8)
        } else if n >= 2 {
            let lo = u16::from_le(rd(src as *const u16)) as u64;
            let hi = u16::from_le(rd(src.add(n - 2) as *const u16)) as u64;
            lo | hi << ((n - 2) * 8)
        } else if n == 1 {
            *src as u64
        } else {
            0
        }
    };
    k | (n as u64) << 56
}

/// The state space an instruction addresses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Space {
    Generic,
    Global,
    Shared,
    Const,
    Local,
    Param,
}

fn space_of(mods: &[&str]) -> R<Space> {
    for m in mods {
        match *m {
            ".global" => return Ok(Space::Global),
            ".shared" | ".shared::cta" => return Ok(Space::Shared),
            ".const" => return Ok(Space::Const),
            ".local" => return Ok(Space::Local),
            ".param" | ".param::entry" | ".param::func" => return Ok(Space::Param),
            ".shared::cluster" => {
                return fail(
                    "",
                    "the .shared::cluster state space (clusters) is not lowered",
                )
            }
            _ => {}
        }
    }
    Ok(Space::Generic)
}

/// Memory-model scope of `.cta/.gpu/.sys` (PTX ISA 9.x §8.5) as an LLVM `syncscope` clause.
fn syncscope(nv: bool, mods: &[&str]) -> &'static str {
    if nv {
        // LLVM 19's NVPTX backend emits system scope for every syncscope; say so explicitly.
        return "";
    }
    for m in mods {
        match *m {
            ".cta" => return " syncscope(\"workgroup\")",
            ".gpu" | ".gl" => return " syncscope(\"agent\")",
            ".sys" => return "",
            _ => {}
        }
    }
    // PTX default scope for atom/red is .gpu.
    " syncscope(\"agent\")"
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
    scopes: Vec<Scope<'a>>,
    pa: std::borrow::Cow<'static, str>,
    /// Homes of the return parameters (pointer, slot) or registers for `.reg` returns.
    rets: Vec<(Operand<'a>, Slot)>,
    ret_names: Vec<&'a str>,
    is_kernel: bool,
    cur: Option<&'m Instruction<'a>>,
    /// Labels of `.callprototype`s and `.branchtargets` in this function.
    protos: HashMap<&'a str, &'m CallPrototype<'a>, foldhash::fast::FixedState>,
    btargets: HashMap<&'a str, &'m TargetList<'a>, foldhash::fast::FixedState>,
    /// Every label name defined so far in the function (see `Scope::labels`).
    labels_seen: HashMap<&'a str, u32, foldhash::fast::FixedState>,
    pub notes: Vec<String>,
}

impl<'c, 'm, 'a> Fx<'c, 'm, 'a> {
    /// The form of the instruction being lowered (for error reports; computed on demand).
    fn form(&self) -> String {
        self.cur.map(form_of).unwrap_or_default()
    }

    /// A new temporary `%t<N>` (numbered in order of creation).
    fn t(&mut self) -> V {
        self.tmp += 1;
        V::numbered("%t", self.tmp)
    }

    /// `%t = select i1 <c>, <ty> <a>, <ty> <b>`: a new value (both arms of LLVM type `ty`).
    fn select<A: Piece + ?Sized, B: Piece + ?Sized>(&mut self, c: &V, ty: &str, a: &A, b: &B) -> V {
        opv!(
            self,
            [&"select i1 ", c, &", ", ty, &" ", a, &", ", ty, &" ", b]
        )
    }

    /// `  %t = load <ty>, <pa> %r<id>`: a register read.
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
    fn store_reg(&mut self, ty: Ty, v: &str, id: u32) {
        let b = &mut self.body;
        text::put(b, self.reg_text.store[ty as usize]);
        text::put(b, v);
        text::put(b, &self.reg_text.store_mid);
        push_u32(b, id);
        b.push('\n');
    }

    /// `  %t = <a> <ty> <x><c> <d>` (e.g. `zext i32 %t1 to i64`, `add i32 %t1, %t2`).
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

    fn new_block_name(&mut self) -> V {
        self.nblk += 1;
        V::numbered("b", self.nblk)
    }

    /// `<name>:` starting a block (after a terminator written by the caller).
    fn block_label(&mut self, name: &str) {
        self.body.push_str(name);
        self.body.push_str(":\n");
    }

    fn ensure_open(&mut self) {
        if self.terminated {
            self.nblk += 1;
            self.body.push('b');
            push_u32(&mut self.body, self.nblk);
            self.body.push_str(":\n");
            self.terminated = false;
        }
    }

    // ---------------------------------------------------------------- declarations

    fn declare_reg(&mut self, name: &'a str, range: Option<u32>, ty: Type) -> R<()> {
        let bits = match ty {
            Type::Pred => 1,
            t if t.bits() > 0 => t.bits(),
            t => return fail("", format!("register of type {}", t.as_str())),
        };
        let lt = Ty::int(bits).ll();
        let count = range.unwrap_or(1);
        let first = self.nreg;
        // ` = alloca <ty><suffix>\n`, the same for every register of the declaration.
        let suffix = self.alloca_suffix();
        let mut tail = String::with_capacity(12 + lt.len() + suffix.len());
        tail.push_str(" = alloca ");
        tail.push_str(lt);
        tail.push_str(&suffix);
        tail.push('\n');
        self.allocas.reserve(count as usize * (16 + tail.len()));
        for i in 0..count {
            let a = &mut self.allocas;
            text::put(a, "  %r");
            push_u32(a, first + i);
            text::put(a, &tail);
        }
        self.nreg += count;
        let sc = self.scopes.last_mut().unwrap();
        match range {
            Some(n) => sc.ranges.push(RegRange {
                prefix: name,
                key: prefix_key(name),
                count: n,
                first,
                bits,
            }),
            None => {
                sc.add_name(name, Local::Reg { id: first, bits });
            }
        }
        Ok(())
    }

    fn alloca_suffix(&self) -> std::borrow::Cow<'static, str> {
        match self.cx.alloca_as {
            0 => "".into(),
            5 => ", addrspace(5)".into(),
            a => format!(", addrspace({a})").into(),
        }
    }

    /// An alloca of `size` bytes aligned to `align`; returns its pointer.
    fn alloca_bytes(&mut self, size: u32, align: u32) -> V {
        self.nreg += 1;
        let r = V::numbered("%m", self.nreg);
        let _ = writeln!(
            self.allocas,
            "  {r} = alloca [{} x i8], align {}{}",
            size.max(1),
            align.max(1),
            self.alloca_suffix()
        );
        r
    }

    /// The register or memory a name denotes, innermost scope first (within a scope: a plain
    /// declaration, then the latest `%name<N>` range covering it).
    fn lookup(&self, name: &str) -> Option<Local> {
        let (prefix, num) = split_digits(name);
        let key = prefix_key(prefix);
        let lb = len_bit(name);
        for sc in self.scopes.iter().rev() {
            if sc.name_lens & lb != 0 {
                if let Some(l) = sc.names.get(name) {
                    return Some(l.clone());
                }
            }
            if let Some(n) = num {
                for r in sc.ranges.iter().rev() {
                    if r.key == key
                        && r.prefix.len() == prefix.len()
                        && (prefix.len() < 8 || r.prefix == prefix)
                        && n < r.count
                    {
                        return Some(Local::Reg {
                            id: r.first + n,
                            bits: r.bits,
                        });
                    }
                }
            }
        }
        None
    }

    fn declare_var(&mut self, v: &'m VarDecl<'a>) -> R<()> {
        match v.space {
            StateSpace::Reg => {
                if v.vector.is_some() {
                    return fail("", "vector registers are not lowered");
                }
                for d in &v.decls {
                    self.declare_reg(d.name, d.range, v.ty)?;
                }
            }
            StateSpace::Local | StateSpace::Param | StateSpace::ParamFunc => {
                for d in &v.decls {
                    let Some(slot) = slot_of(v, d) else {
                        return fail("", format!("variable {} of unsized type", d.name));
                    };
                    let p = self.alloca_bytes(slot.size(), v.align.unwrap_or(slot.align()));
                    let (ptr, aspace) = if v.space == StateSpace::Local
                        && self.cx.alloca_as != self.cx.prof.addrspace.local
                    {
                        let t = self.t();
                        let las = self.cx.prof.addrspace.local;
                        let _ = writeln!(
                            self.allocas,
                            "  {t} = addrspacecast {} {p} to {}",
                            self.pa,
                            ptr_ty(las)
                        );
                        (t, las)
                    } else {
                        (p, self.cx.alloca_as)
                    };
                    if d.init.is_some() {
                        return fail("", "initialised function-scope variables are not lowered");
                    }
                    self.scopes
                        .last_mut()
                        .unwrap()
                        .add_name(d.name, Local::Mem { ptr, aspace });
                }
            }
            StateSpace::Shared | StateSpace::SharedCta | StateSpace::Global | StateSpace::Const => {
                // A function-scope variable in a shared state space is a module global with a
                // unique name.
                for d in &v.decls {
                    self.cx.uniq += 1;
                    let gname = format!("__wp_fvar.{}.{}", self.cx.uniq, d.name);
                    let (text, aspace) = global_text(self.cx, v, d, &gname)?;
                    self.cx.extra_globals.push_str(&text);
                    self.scopes.last_mut().unwrap().add_name(
                        d.name,
                        Local::Mem {
                            ptr: ident('@', &gname).into(),
                            aspace,
                        },
                    );
                }
            }
            s => return fail("", format!("function-scope {} variable", s.as_str())),
        }
        Ok(())
    }

    // ---------------------------------------------------------------- operands

    /// Read operand `o` as a value of type `t` (`signed`: extend narrower registers by sign).
    fn rd(&mut self, o: &Operand<'a>, t: Ty, signed: bool) -> R<V> {
        match o {
            Operand::Reg(n) => self.rd_reg(n, t, signed),
            Operand::Imm(i) => Ok(imm_v(i.value(), t)),
            Operand::SpecialReg(n) => {
                if *n == "WARP_SZ" {
                    // A PTX warp is 32 lanes on every target (docs/warp-model.md).
                    return Ok(self.fit("32", Ty::I32, t, false));
                }
                let Some(w) = sreg::width(n) else {
                    return fail(&self.form(), format!("special register {n}"));
                };
                let f = sreg::function(n);
                let v = self.call(&f, Ty::int(w), &[]);
                Ok(self.fit(&v, Ty::int(w), t, false))
            }
            Operand::Symbol(n) | Operand::Func(n) => {
                // The address of a variable or function in its own state space.
                let (p, aspace) = self.sym_ptr(n)?;
                let it = Ty::int(t.bits());
                let v = opv!(
                    self,
                    [
                        &"ptrtoint ",
                        &(ptr_ty(aspace)),
                        &" ",
                        &p,
                        &" to ",
                        &(it.ll()),
                    ]
                );
                Ok(self.fit(&v, it, t, false))
            }
            Operand::Not(n) => {
                let v = self.rd_reg(n, Ty::I1, false)?;
                Ok(opv!(self, [&"xor i1 ", &v, &", true"]))
            }
            Operand::Vector(elems) => {
                // `{a, b}` as one value: elements packed from the low bits up.
                let eb = t.bits() / elems.len() as u32;
                let et = Ty::int(eb);
                let wt = Ty::int(t.bits());
                let mut acc = V::new("0");
                for (i, e) in elems.iter().enumerate() {
                    let v = self.rd(e, et, false)?;
                    let z = opv!(self, [&"zext ", &(et.ll()), &" ", &v, &" to ", &(wt.ll())]);
                    let s = opv!(
                        self,
                        [&"shl ", &(wt.ll()), &" ", &z, &", ", &(i as u32 * eb)]
                    );
                    acc = opv!(self, [&"or ", &(wt.ll()), &" ", &acc, &", ", &s]);
                }
                Ok(self.fit(&acc, wt, t, false))
            }
            _ => fail(
                &self.form(),
                format!("operand kind {} as a value", o.kind_name()),
            ),
        }
    }

    fn rd_reg(&mut self, n: &str, t: Ty, signed: bool) -> R<V> {
        let l = self.lookup(n);
        self.rd_local(n, l, t, signed)
    }

    /// [`Self::rd_reg`] of `n`, already looked up as `l`.
    fn rd_local(&mut self, n: &str, l: Option<Local>, t: Ty, signed: bool) -> R<V> {
        let Some(l) = l else {
            // A symbol declared in a scope as memory, used as a value: its address.
            return fail(&self.form(), format!("unknown register {n}"));
        };
        match l {
            Local::Reg { id, bits } => {
                if t == Ty::I1 && bits != 1 {
                    let it = Ty::int(bits);
                    let v = self.load_reg(it, id);
                    return Ok(self.op4("icmp ne", it.ll(), &v, ",", "0"));
                }
                if bits == 1 && t != Ty::I1 {
                    let v = self.load_reg(Ty::I1, id);
                    return Ok(self.fit(&v, Ty::I1, t, false));
                }
                if t.bits() <= bits {
                    Ok(self.load_reg(t, id))
                } else {
                    let it = Ty::int(bits);
                    let v = self.load_reg(it, id);
                    Ok(self.fit(&v, it, t, signed))
                }
            }
            Local::Mem { ptr, aspace } => {
                let it = Ty::int(t.bits());
                let v = opv!(
                    self,
                    [
                        &"ptrtoint ",
                        &(ptr_ty(aspace)),
                        &" ",
                        &ptr,
                        &" to ",
                        &(it.ll()),
                    ]
                );
                Ok(self.fit(&v, it, t, false))
            }
        }
    }

    /// Convert value `v` of type `from` to type `to` by bits: extend (zero or sign), truncate,
    /// bitcast.
    fn fit(&mut self, v: &str, from: Ty, to: Ty, signed: bool) -> V {
        if from == to {
            return V::new(v);
        }
        let (fb, tb) = (from.bits(), to.bits());
        let mut cur = V::new(v);
        let mut ct = from;
        if from.is_float() {
            let it = Ty::int(fb);
            cur = self.op4("bitcast", from.ll(), &cur, " to", it.ll());
            ct = it;
        }
        if fb != tb {
            let it = Ty::int(tb);
            cur = if fb < tb {
                let ext = if signed { "sext" } else { "zext" };
                self.op4(ext, ct.ll(), &cur, " to", it.ll())
            } else {
                self.op4("trunc", ct.ll(), &cur, " to", it.ll())
            };
            ct = it;
        }
        if ct != to {
            cur = self.op4("bitcast", ct.ll(), &cur, " to", to.ll());
        }
        cur
    }

    /// Write value `v` of type `t` to destination operand `o`.
    fn wr(&mut self, o: &Operand<'a>, v: &str, t: Ty, signed: bool) -> R<()> {
        match o {
            Operand::Sink => Ok(()),
            Operand::Reg(n) => {
                let Some(Local::Reg { id, bits }) = self.lookup(n) else {
                    return fail(&self.form(), format!("unknown register {n}"));
                };
                if bits == 1 {
                    if t == Ty::I1 {
                        self.store_reg(Ty::I1, v, id);
                    } else {
                        let it = Ty::int(t.bits());
                        let x = self.fit(v, t, it, false);
                        let b = self.op4("icmp ne", it.ll(), &x, ",", "0");
                        self.store_reg(Ty::I1, &b, id);
                    }
                    return Ok(());
                }
                if t.bits() == bits {
                    self.store_reg(t, v, id);
                } else {
                    let x = self.fit(v, t, Ty::int(bits), signed);
                    self.store_reg(Ty::int(bits), &x, id);
                }
                Ok(())
            }
            Operand::Vector(elems) => {
                // Unpack into `{a, b, ...}` from the low bits up.
                let eb = t.bits() / elems.len() as u32;
                let wt = Ty::int(t.bits());
                let w = self.fit(v, t, wt, false);
                for (i, e) in elems.iter().enumerate() {
                    if matches!(e, Operand::Sink) {
                        continue;
                    }
                    let s = opv!(
                        self,
                        [&"lshr ", &(wt.ll()), &" ", &w, &", ", &(i as u32 * eb)]
                    );
                    let x = opv!(
                        self,
                        [
                            &"trunc ",
                            &(wt.ll()),
                            &" ",
                            &s,
                            &" to ",
                            &(Ty::int(eb).ll()),
                        ]
                    );
                    self.wr(e, &x, Ty::int(eb), false)?;
                }
                Ok(())
            }
            _ => fail(
                &self.form(),
                format!("destination operand kind {}", o.kind_name()),
            ),
        }
    }

    /// Pointer and address space of a symbol (local memory, parameter, module variable or
    /// function).
    fn sym_ptr(&mut self, n: &str) -> R<(V, u32)> {
        if let Some(Local::Mem { ptr, aspace }) = self.lookup(n) {
            return Ok((ptr, aspace));
        }
        if let Some((g, a)) = self.cx.globals.get(n) {
            return Ok((V::new(g), *a));
        }
        if let Some(s) = self.cx.funcs.get(n) {
            return Ok((format!("@{}", s.llname).into(), 0));
        }
        fail(&self.form(), format!("unknown symbol {n}"))
    }

    fn space_as(&self, s: Space) -> u32 {
        let a = &self.cx.prof.addrspace;
        match s {
            Space::Generic => a.generic,
            Space::Global => a.global,
            Space::Shared => a.shared,
            Space::Const => a.r#const,
            Space::Local => a.local,
            Space::Param => self.cx.alloca_as,
        }
    }

    /// Pointer for address operand `o` of state space `s`, cast (`addrspacecast`) to the
    /// address space of state space `to` when they differ.
    fn addr_in(&mut self, o: &Operand<'a>, s: Space, to: Space) -> R<V> {
        let want = self.space_as(to);
        let (p, a) = self.addr(o, s)?;
        if a == want {
            return Ok(p);
        }
        Ok(opv!(
            self,
            [
                &"addrspacecast ",
                &(ptr_ty(a)),
                &" ",
                &p,
                &" to ",
                &(ptr_ty(want)),
            ]
        ))
    }

    /// Address operand → (pointer value, address space).
    fn addr(&mut self, o: &Operand<'a>, s: Space) -> R<(V, u32)> {
        let Operand::Address(a) = o else {
            return fail(&self.form(), "expected an address operand");
        };
        let Address::Offset { base, offset } = &**a else {
            return fail(&self.form(), "tuple address");
        };
        let want = self.space_as(s);
        let (p, aspace) = match base {
            Some(AddrBase::Symbol(n)) => {
                let (p, a) = self.sym_ptr(n)?;
                if s == Space::Param || a == want {
                    (p, a)
                } else if s == Space::Generic {
                    let c = opv!(
                        self,
                        [
                            &"addrspacecast ",
                            &(ptr_ty(a)),
                            &" ",
                            &p,
                            &" to ",
                            &(ptr_ty(want)),
                        ]
                    );
                    (c, want)
                } else {
                    (p, a)
                }
            }
            Some(AddrBase::Reg(n)) => {
                let l = self.lookup(n);
                if let Some(Local::Mem { ptr, aspace }) = l {
                    (ptr, aspace)
                } else {
                    let bits = match l {
                        Some(Local::Reg { bits, .. }) => bits,
                        _ => 64,
                    };
                    let it = Ty::int(if bits <= 32 { 32 } else { 64 });
                    let v = self.rd_local(n, l, it, false)?;
                    let aspace = if s == Space::Param {
                        self.cx.alloca_as
                    } else {
                        want
                    };
                    let p = opv!(
                        self,
                        [
                            &"inttoptr ",
                            &(it.ll()),
                            &" ",
                            &v,
                            &" to ",
                            &(ptr_ty(aspace)),
                        ]
                    );
                    (p, aspace)
                }
            }
            None => {
                let p = opv!(self, [&"inttoptr i64 ", &offset, &" to ", &(ptr_ty(want))]);
                return Ok((p, want));
            }
        };
        if *offset == 0 {
            return Ok((p, aspace));
        }
        let g = opv!(
            self,
            [
                &"getelementptr inbounds i8, ",
                &(ptr_ty(aspace)),
                &" ",
                &p,
                &", i64 ",
                &offset,
            ]
        );
        Ok((g, aspace))
    }

    // ---------------------------------------------------------------- statements

    pub fn block(&mut self, b: &'m Block<'a>) -> R<()> {
        self.scopes.push(Scope::default());
        // Prototype and branch-target labels are known before use.
        let mut last_label: Option<&'a str> = None;
        for s in &b.stmts {
            match s {
                Statement::Label(l) => {
                    last_label = Some(l.name);
                    // The first definition keeps the plain name; a redefinition in another
                    // block gets a numbered one.
                    let k = self.labels_seen.entry(l.name).or_insert(0);
                    let name = if *k == 0 {
                        label_name(l.name)
                    } else {
                        label_name(&format!("{}$s{k}", l.name))
                    };
                    *k += 1;
                    self.scopes
                        .last_mut()
                        .unwrap()
                        .labels
                        .entry(l.name)
                        .or_insert_with(|| V::from(name));
                }
                Statement::CallPrototype(p) => {
                    if let Some(l) = last_label {
                        self.protos.insert(l, p);
                    }
                }
                Statement::BranchTargets(t) | Statement::CallTargets(t) => {
                    if let Some(l) = last_label {
                        self.btargets.insert(l, t);
                    }
                }
                _ => last_label = None,
            }
        }
        for s in &b.stmts {
            if !matches!(s, Statement::Variable(_)) {
                self.flush_head();
            }
            match s {
                Statement::Variable(v) => self.declare_var(v)?,
                Statement::Label(l) => {
                    if self.protos.contains_key(l.name) || self.btargets.contains_key(l.name) {
                        continue;
                    }
                    let name = self.label_of(l.name);
                    self.start_block(&name);
                }
                Statement::Block(inner) => self.block(inner)?,
                Statement::Instruction(i) => {
                    self.cur = Some(i);
                    self.instruction(i)?;
                }
                _ => {}
            }
        }
        if let Some(sc) = self.scopes.pop() {
            if !sc.names.is_empty() || !sc.ranges.is_empty() {}
        }
        Ok(())
    }

    /// Write the function's head (header, `entry:`, the allocas so far, the branch to
    /// `start:`) to `body` before its first line: the declarations at the top of the body
    /// are all there is in most functions, so the head need not be inserted in front of the
    /// body at the end (a move of the whole body).
    #[inline]
    fn flush_head(&mut self) {
        if self.head_at.is_none() {
            self.flush_head_now();
        }
    }

    fn flush_head_now(&mut self) {
        self.body.push_str(&self.allocas);
        let at = self.body.len();
        self.body.push_str(BR_START);
        self.head_at = Some((at, self.allocas.len()));
    }

    fn instruction(&mut self, i: &'m Instruction<'a>) -> R<()> {
        self.ensure_open();
        match i.guard {
            None => self.inst(i),
            Some(g) => {
                let c = self.rd_reg(&g.reg, Ty::I1, false)?;
                let c = if g.negated {
                    opv!(self, [&"xor i1 ", &c, &", true"])
                } else {
                    c
                };
                if i.opcode == Opcode::Bra {
                    let target = self.branch_target(i)?;
                    let next = self.new_block_name();
                    linev!(
                        self,
                        [&"br i1 ", &c, &", label %", &target, &", label %", &next]
                    );
                    self.block_label(&next);
                    return Ok(());
                }
                if matches!(i.opcode, Opcode::Ret | Opcode::Exit) && self.is_kernel
                    || i.opcode == Opcode::Ret
                {
                    let next = self.new_block_name();
                    linev!(self, [&"br i1 ", &c, &", label %ret, label %", &next]);
                    self.block_label(&next);
                    return Ok(());
                }
                let then = self.new_block_name();
                let next = self.new_block_name();
                linev!(
                    self,
                    [&"br i1 ", &c, &", label %", &then, &", label %", &next]
                );
                self.block_label(&then);
                self.terminated = false;
                self.inst(i)?;
                if !self.terminated {
                    linev!(self, [&"br label %", &next]);
                }
                self.block_label(&next);
                self.terminated = false;
                Ok(())
            }
        }
    }

    /// The LLVM block name of label `l` as seen from the current block (innermost first).
    fn label_of(&self, l: &str) -> V {
        for sc in self.scopes.iter().rev() {
            if let Some(n) = sc.labels.get(l) {
                return n.clone();
            }
        }
        V::from(label_name(l))
    }

    fn branch_target(&self, i: &Instruction<'a>) -> R<V> {
        match i.operands.first() {
            Some(Operand::Label(l)) | Some(Operand::Symbol(l)) => Ok(self.label_of(l)),
            _ => fail(&self.form(), "branch without a label"),
        }
    }

    fn inst(&mut self, i: &'m Instruction<'a>) -> R<()> {
        // Modifiers and types on the stack (no allocation for the usual few).
        let mut mods_arr: [&'a str; MODS_INLINE] = [""; MODS_INLINE];
        let mods_vec: Vec<&'a str>;
        let mods: &[&'a str] = match split_modifiers(&i.modifiers, &mut mods_arr) {
            Some(n) => &mods_arr[..n],
            None => {
                mods_vec = i.modifiers.iter().collect();
                &mods_vec
            }
        };
        let ops: &[Operand<'a>] = &i.operands;
        // The type modifiers, in order.
        let mut tys_arr = [Type::B32; MODS_INLINE];
        let tys_vec: Vec<Type>;
        let tys: &[Type] = if mods.len() <= MODS_INLINE {
            let mut n = 0;
            for m in mods {
                if let Some(t) = mod_type(m) {
                    tys_arr[n] = t;
                    n += 1;
                }
            }
            &tys_arr[..n]
        } else {
            tys_vec = mods.iter().filter_map(|m| Type::from_name(m)).collect();
            &tys_vec
        };
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
        let has = |m: &str| mods.contains(&m);
        let n = ops.len();
        use Opcode as O;
        match i.opcode {
            O::Bra => {
                let t = self.branch_target(i)?;
                linev!(self, [&"br label %", &t]);
                self.terminated = true;
            }
            O::Ret => {
                linev!(self, [&"br label %ret"]);
                self.terminated = true;
            }
            O::Exit => {
                if self.is_kernel {
                    linev!(self, [&"br label %ret"]);
                } else {
                    self.call_void("__wp_exit", &[]);
                    linev!(self, [&"unreachable"]);
                }
                self.terminated = true;
            }
            O::Trap => {
                self.call_void("__wp_trap", &[]);
            }
            O::Brkpt | O::Pmevent => {}
            O::Nanosleep => {
                let v = self.rd(&ops[0], Ty::I32, false)?;
                self.call_void("__wp_nanosleep", &[(Ty::I32, &v)]);
            }
            O::Mov => self.mov(&mods, &tys, ops)?,
            O::Ld | O::Ldu => self.ld(&mods, ops)?,
            O::St => self.st(&mods, ops)?,
            O::Cvta => self.cvta(&mods, ops)?,
            O::Cvt => self.cvt(&mods, &tys, ops)?,
            O::Add | O::Sub | O::Mul | O::Mad | O::Fma | O::Div | O::Rem | O::Min | O::Max => {
                let (t, k) = ty1(tys.len().saturating_sub(1))?;
                if k == Kind::Float {
                    self.farith(i.opcode, &mods, t, ops)?
                } else {
                    self.iarith(i.opcode, &mods, t, k, ops)?
                }
            }
            O::Addc | O::Subc | O::Madc => {
                let (t, _) = ty1(0)?;
                self.carry(i.opcode, &mods, t, ops)?
            }
            O::Mul24 | O::Mad24 => {
                let (_, k) = ty1(0)?;
                let s = k == Kind::Signed;
                let a = self.rd(&ops[1], Ty::I32, false)?;
                let b = self.rd(&ops[2], Ty::I32, false)?;
                let ext = |fx: &mut Self, v: &str| -> V {
                    let sh = opv!(fx, [&"shl i32 ", &v, &", 8"]);
                    let sr = if s { "ashr" } else { "lshr" };
                    let x = opv!(fx, [&sr, &" i32 ", &sh, &", 8"]);
                    let e = if s { "sext" } else { "zext" };
                    opv!(fx, [&e, &" i32 ", &x, &" to i64"])
                };
                let (a, b) = (ext(self, &a), ext(self, &b));
                let p = opv!(self, [&"mul i64 ", &a, &", ", &b]);
                let r = if has(".hi") {
                    let h = opv!(self, [&"lshr i64 ", &p, &", 16"]);
                    opv!(self, [&"trunc i64 ", &h, &" to i32"])
                } else {
                    opv!(self, [&"trunc i64 ", &p, &" to i32"])
                };
                let r = if i.opcode == O::Mad24 {
                    let c = self.rd(&ops[3], Ty::I32, false)?;
                    opv!(self, [&"add i32 ", &r, &", ", &c])
                } else {
                    r
                };
                self.wr(&ops[0], &r, Ty::I32, false)?;
            }
            O::Sad => {
                let (t, k) = ty1(0)?;
                let s = k == Kind::Signed;
                let a = self.rd(&ops[1], t, s)?;
                let b = self.rd(&ops[2], t, s)?;
                let c = self.rd(&ops[3], t, s)?;
                let (mx, mn) = if s {
                    ("smax", "smin")
                } else {
                    ("umax", "umin")
                };
                let hi = self.intr2(mx, t, &a, &b);
                let lo = self.intr2(mn, t, &a, &b);
                let d = opv!(self, [&"sub ", &(t.ll()), &" ", &hi, &", ", &lo]);
                let r = opv!(self, [&"add ", &(t.ll()), &" ", &d, &", ", &c]);
                self.wr(&ops[0], &r, t, s)?;
            }
            O::Abs | O::Neg => {
                let (t, k) = ty1(0)?;
                let a = self.rd(&ops[1], t, false)?;
                let r = if k == Kind::Float {
                    let a = self.ftz_in(&mods, t, &a);
                    let r = if i.opcode == O::Abs {
                        self.intr1("fabs", t, &a)
                    } else {
                        opv!(self, [&"fneg ", &(t.ll()), &" ", &a])
                    };
                    self.ftz_out(&mods, t, &r)
                } else if i.opcode == O::Abs {
                    let n = format!("llvm.abs.{}", t.suffix());
                    let l = format!("declare {} @{n}({}, i1)", t.ll(), t.ll());
                    self.decl(&n, &l);
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
                            &", i1 false)",
                        ]
                    )
                } else {
                    opv!(self, [&"sub ", &(t.ll()), &" 0, ", &a])
                };
                self.wr(&ops[0], &r, t, false)?;
            }
            O::And | O::Or | O::Xor => {
                let (t, _) = ty1(0)?;
                let a = self.rd(&ops[1], t, false)?;
                let b = self.rd(&ops[2], t, false)?;
                let opn = match i.opcode {
                    O::And => "and",
                    O::Or => "or",
                    _ => "xor",
                };
                let r = opv!(self, [&opn, &" ", &(t.ll()), &" ", &a, &", ", &b]);
                self.wr(&ops[0], &r, t, false)?;
            }
            O::Not => {
                let (t, _) = ty1(0)?;
                let a = self.rd(&ops[1], t, false)?;
                let r = opv!(self, [&"xor ", &(t.ll()), &" ", &a, &", -1"]);
                self.wr(&ops[0], &r, t, false)?;
            }
            O::Cnot => {
                let (t, _) = ty1(0)?;
                let a = self.rd(&ops[1], t, false)?;
                let c = opv!(self, [&"icmp eq ", &(t.ll()), &" ", &a, &", 0"]);
                let r = opv!(self, [&"zext i1 ", &c, &" to ", &(t.ll())]);
                self.wr(&ops[0], &r, t, false)?;
            }
            O::Lop3 => {
                let bop = mods.iter().find(|m| matches!(**m, ".or" | ".and")).copied();
                if n != 5 + bop.is_some() as usize {
                    return fail(&form_of(i), "lop3 operands");
                }
                let a = self.rd(&ops[1], Ty::I32, false)?;
                let b = self.rd(&ops[2], Ty::I32, false)?;
                let c = self.rd(&ops[3], Ty::I32, false)?;
                let Operand::Imm(lut) = &ops[4] else {
                    return fail(&form_of(i), "lop3 with a non-constant LUT");
                };
                let lut = imm(lut.value(), Ty::I32).parse::<i64>().unwrap_or(0) as u32 & 0xff;
                let r = self.lop3(lut, &a, &b, &c);
                match (bop, &ops[0]) {
                    // lop3.or/.and (PTX 8.2): p = (d != 0) BOP q.
                    (Some(bo), Operand::Pair(pair)) => {
                        let (d, p) = &**pair;
                        let q = self.rd(&ops[5], Ty::I1, false)?;
                        let nz = opv!(self, [&"icmp ne i32 ", &r, &", 0"]);
                        let pv = opv!(self, [&(&bo[1..]), &" i1 ", &nz, &", ", &q]);
                        self.wr(&Operand::Reg((*d).into()), &r, Ty::I32, false)?;
                        if *p != "_" {
                            self.wr(&Operand::Reg((*p).into()), &pv, Ty::I1, false)?;
                        }
                    }
                    (Some(_), _) => return fail(&form_of(i), "lop3 predicate form"),
                    (None, d) => self.wr(d, &r, Ty::I32, false)?,
                }
            }
            O::Shl | O::Shr => {
                let (t, k) = ty1(0)?;
                let a = self.rd(&ops[1], t, k == Kind::Signed)?;
                let b = self.rd(&ops[2], Ty::I32, false)?;
                let w = t.bits();
                let r = if i.opcode == O::Shr && k == Kind::Signed {
                    let m = self.intr2("umin", Ty::I32, &b, &(w - 1).to_string());
                    let m = self.fit(&m, Ty::I32, t, false);
                    opv!(self, [&"ashr ", &(t.ll()), &" ", &a, &", ", &m])
                } else {
                    let big = opv!(self, [&"icmp uge i32 ", &b, &", ", &w]);
                    let m = self.intr2("umin", Ty::I32, &b, &(w - 1).to_string());
                    let m = self.fit(&m, Ty::I32, t, false);
                    let opn = if i.opcode == O::Shl { "shl" } else { "lshr" };
                    let s = opv!(self, [&opn, &" ", &(t.ll()), &" ", &a, &", ", &m]);
                    opv!(
                        self,
                        [
                            &"select i1 ",
                            &big,
                            &", ",
                            &(t.ll()),
                            &" 0, ",
                            &(t.ll()),
                            &" ",
                            &s,
                        ]
                    )
                };
                self.wr(&ops[0], &r, t, false)?;
            }
            O::Shf => {
                let a = self.rd(&ops[1], Ty::I32, false)?;
                let b = self.rd(&ops[2], Ty::I32, false)?;
                let c = self.rd(&ops[3], Ty::I32, false)?;
                let left = has(".l");
                let f = if left { "fshl" } else { "fshr" };
                let r = self.intr3(f, Ty::I32, &b, &a, &c);
                let r = if has(".clamp") {
                    let big = opv!(self, [&"icmp uge i32 ", &c, &", 32"]);
                    let sat = if left { &a } else { &b };
                    opv!(self, [&"select i1 ", &big, &", i32 ", &sat, &", i32 ", &r])
                } else {
                    r
                };
                self.wr(&ops[0], &r, Ty::I32, false)?;
            }
            O::Popc | O::Clz | O::Brev => {
                let (t, _) = ty1(0)?;
                let a = self.rd(&ops[1], t, false)?;
                let (r, rt) = match i.opcode {
                    O::Popc => (self.intr1("ctpop", t, &a), Ty::I32),
                    O::Clz => {
                        let n = format!("llvm.ctlz.{}", t.suffix());
                        let l = format!("declare {} @{n}({}, i1)", t.ll(), t.ll());
                        self.decl(&n, &l);
                        (
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
                                    &", i1 false)",
                                ]
                            ),
                            Ty::I32,
                        )
                    }
                    _ => (self.intr1("bitreverse", t, &a), t),
                };
                let r = self.fit(&r, t, rt, false);
                self.wr(&ops[0], &r, rt, false)?;
            }
            O::Bfind => {
                let (t, k) = ty1(0)?;
                let a = self.rd(&ops[1], t, false)?;
                let s = if k == Kind::Signed { "s" } else { "u" };
                let f = format!("__wp_bfind_{s}{}", t.bits());
                let r = self.call(&f, Ty::I32, &[(t, &a)]);
                let r = if has(".shiftamt") {
                    let nf = opv!(self, [&"icmp eq i32 ", &r, &", -1"]);
                    let sa = opv!(self, [&"sub i32 ", &(t.bits() - 1), &", ", &r]);
                    opv!(self, [&"select i1 ", &nf, &", i32 -1, i32 ", &sa])
                } else {
                    r
                };
                self.wr(&ops[0], &r, Ty::I32, false)?;
            }
            O::Bfe => {
                let (t, k) = ty1(0)?;
                let a = self.rd(&ops[1], t, false)?;
                let b = self.rd(&ops[2], Ty::I32, false)?;
                let c = self.rd(&ops[3], Ty::I32, false)?;
                let s = if k == Kind::Signed { "s" } else { "u" };
                let f = format!("__wp_bfe_{s}{}", t.bits());
                let r = self.call(&f, t, &[(t, &a), (Ty::I32, &b), (Ty::I32, &c)]);
                self.wr(&ops[0], &r, t, false)?;
            }
            O::Bfi => {
                let (t, _) = ty1(0)?;
                let a = self.rd(&ops[1], t, false)?;
                let b = self.rd(&ops[2], t, false)?;
                let c = self.rd(&ops[3], Ty::I32, false)?;
                let d = self.rd(&ops[4], Ty::I32, false)?;
                let f = format!("__wp_bfi_b{}", t.bits());
                let r = self.call(&f, t, &[(t, &a), (t, &b), (Ty::I32, &c), (Ty::I32, &d)]);
                self.wr(&ops[0], &r, t, false)?;
            }
            O::Bmsk => {
                // bmsk.{clamp,wrap}.b32 d, a, b (PTX ISA 9.x §9.7.1.22): b bits set from bit a;
                // .clamp limits a and b to 32, .wrap takes them modulo 32. Computed in i64 so
                // that shifts by 32 are defined; the low 32 bits are the mask.
                let a = self.rd(&ops[1], Ty::I32, false)?;
                let b = self.rd(&ops[2], Ty::I32, false)?;
                let lim = |fx: &mut Self, v: &str| -> V {
                    if has(".wrap") {
                        opv!(fx, [&"and i32 ", &v, &", 31"])
                    } else {
                        fx.intr2("umin", Ty::I32, v, "32")
                    }
                };
                let (a, b) = (lim(self, &a), lim(self, &b));
                let a = opv!(self, [&"zext i32 ", &a, &" to i64"]);
                let b = opv!(self, [&"zext i32 ", &b, &" to i64"]);
                let one = opv!(self, [&"shl i64 1, ", &b]);
                let m = opv!(self, [&"sub i64 ", &one, &", 1"]);
                let m = opv!(self, [&"shl i64 ", &m, &", ", &a]);
                let r = opv!(self, [&"trunc i64 ", &m, &" to i32"]);
                self.wr(&ops[0], &r, Ty::I32, false)?;
            }
            O::Szext => {
                // szext.{clamp,wrap}.{s32,u32} d, a, b (PTX ISA 9.x §9.7.1.23): the low b bits of
                // a sign- (.s32) or zero-extended (.u32); b limited to 32 (.clamp) or taken
                // modulo 32 (.wrap); b = 0 gives 0.
                let (_, k) = ty1(0)?;
                let a = self.rd(&ops[1], Ty::I32, false)?;
                let b = self.rd(&ops[2], Ty::I32, false)?;
                let b = if has(".wrap") {
                    opv!(self, [&"and i32 ", &b, &", 31"])
                } else {
                    self.intr2("umin", Ty::I32, &b, "32")
                };
                let zero = opv!(self, [&"icmp eq i32 ", &b, &", 0"]);
                let sh = opv!(self, [&"sub i32 32, ", &b]);
                let sh = self.intr2("umin", Ty::I32, &sh, "31");
                let l = opv!(self, [&"shl i32 ", &a, &", ", &sh]);
                let sr = if k == Kind::Signed { "ashr" } else { "lshr" };
                let v = opv!(self, [&sr, &" i32 ", &l, &", ", &sh]);
                let r = opv!(self, [&"select i1 ", &zero, &", i32 0, i32 ", &v]);
                self.wr(&ops[0], &r, Ty::I32, false)?;
            }
            O::Vabsdiff4
                if !has(".sat")
                    && n == 4
                    && tys.len() == 3
                    && tys[0] == tys[1]
                    && tys[1] == tys[2]
                    && ops[..3]
                        .iter()
                        .all(|o| !matches!(o, Operand::Reg(r) if r.contains('.'))) =>
            {
                // vabsdiff4.{u32,s32}.{u32,s32}.{u32,s32} d, a, b, c (PTX ISA 9.x §9.7.1.26,
                // SIMD video): |a_i - b_i| for the four bytes; with .add, d = c + their sum;
                // otherwise the bytes of d (mask .b3210) are the differences. Only the plain
                // forms (equal types, no .sat, selectors or mask) take this vector lowering;
                // the others go to src/lower/video.rs.
                if has(".sat") || n != 4 || tys.len() != 3 {
                    return fail(&form_of(i), "vabsdiff4 with .sat, selectors or a mask");
                }
                let (_, ka) = ty1(1)?;
                let a = self.rd(&ops[1], Ty::I32, false)?;
                let b = self.rd(&ops[2], Ty::I32, false)?;
                let c = self.rd(&ops[3], Ty::I32, false)?;
                let av = opv!(self, [&"bitcast i32 ", &a, &" to <4 x i8>"]);
                let bv = opv!(self, [&"bitcast i32 ", &b, &" to <4 x i8>"]);
                let (mx, mn) = if ka == Kind::Signed {
                    ("smax", "smin")
                } else {
                    ("umax", "umin")
                };
                let v4 = |fx: &mut Self, f: &str| -> V {
                    let n = format!("llvm.{f}.v4i8");
                    fx.decl(&n, &format!("declare <4 x i8> @{n}(<4 x i8>, <4 x i8>)"));
                    opv!(
                        fx,
                        [
                            &"call <4 x i8> @",
                            &n,
                            &"(<4 x i8> ",
                            &av,
                            &", <4 x i8> ",
                            &bv,
                            &")"
                        ]
                    )
                };
                let hi = v4(self, mx);
                let lo = v4(self, mn);
                let d = opv!(self, [&"sub <4 x i8> ", &hi, &", ", &lo]);
                let r = if has(".add") {
                    let w = opv!(self, [&"zext <4 x i8> ", &d, &" to <4 x i32>"]);
                    let sum = opv!(
                        self,
                        [
                            &"call i32 @llvm.vector.reduce.add.v4i32(<4 x i32> ",
                            &w,
                            &")"
                        ]
                    );
                    self.decl(
                        "llvm.vector.reduce.add.v4i32",
                        "declare i32 @llvm.vector.reduce.add.v4i32(<4 x i32>)",
                    );
                    opv!(self, [&"add i32 ", &sum, &", ", &c])
                } else if mods.iter().any(|m| matches!(*m, ".min" | ".max")) {
                    return fail(&form_of(i), "vabsdiff4 with .min/.max");
                } else {
                    opv!(self, [&"bitcast <4 x i8> ", &d, &" to i32"])
                };
                self.wr(&ops[0], &r, Ty::I32, false)?;
            }
            O::Prmt => {
                let mode = mods
                    .iter()
                    .find(|m| matches!(**m, ".f4e" | ".b4e" | ".rc8" | ".ecl" | ".ecr" | ".rc16"));
                let f = match mode {
                    None => "__wp_prmt".to_string(),
                    Some(m) => format!("__wp_prmt_{}", &m[1..]),
                };
                let a = self.rd(&ops[1], Ty::I32, false)?;
                let b = self.rd(&ops[2], Ty::I32, false)?;
                let c = self.rd(&ops[3], Ty::I32, false)?;
                let r = self.call(&f, Ty::I32, &[(Ty::I32, &a), (Ty::I32, &b), (Ty::I32, &c)]);
                self.wr(&ops[0], &r, Ty::I32, false)?;
            }
            O::Setp => self.setp(&mods, &tys, ops)?,
            O::Set => self.set(&mods, &tys, ops)?,
            O::Selp => {
                let (t, _) = ty1(0)?;
                let a = self.rd(&ops[1], t, false)?;
                let b = self.rd(&ops[2], t, false)?;
                let c = self.rd(&ops[3], Ty::I1, false)?;
                let r = self.select(&c, t.ll(), &a, &b);
                self.wr(&ops[0], &r, t, false)?;
            }
            O::Slct => {
                let (t, _) = ty1(0)?;
                let (ct, ck) = ty1(1)?;
                let a = self.rd(&ops[1], t, false)?;
                let b = self.rd(&ops[2], t, false)?;
                let c = self.rd(&ops[3], ct, false)?;
                let cond = if ck == Kind::Float {
                    let c = self.ftz_in(&mods, ct, &c);
                    opv!(self, [&"fcmp oge ", &(ct.ll()), &" ", &c, &", 0.0"])
                } else {
                    opv!(self, [&"icmp sge ", &(ct.ll()), &" ", &c, &", 0"])
                };
                let r = self.select(&cond, t.ll(), &a, &b);
                self.wr(&ops[0], &r, t, false)?;
            }
            O::Rcp | O::Sqrt | O::Rsqrt | O::Sin | O::Cos | O::Lg2 | O::Ex2 | O::Tanh => {
                let (t, _) = ty1(0)?;
                self.funary(i.opcode, &mods, t, ops)?;
            }
            O::Copysign => {
                let (t, _) = ty1(0)?;
                let a = self.rd(&ops[1], t, false)?;
                let b = self.rd(&ops[2], t, false)?;
                let r = self.intr2("copysign", t, &b, &a);
                self.wr(&ops[0], &r, t, false)?;
            }
            O::Testp => {
                let (t, _) = ty1(0)?;
                let a = self.rd(&ops[1], t, false)?;
                let ab = self.intr1("fabs", t, &a);
                let ll = t.ll();
                let r = if has(".finite") {
                    opv!(
                        self,
                        [&"fcmp one ", &ll, &" ", &ab, &", 0x7FF0000000000000"]
                    )
                } else if has(".infinite") {
                    opv!(
                        self,
                        [&"fcmp oeq ", &ll, &" ", &ab, &", 0x7FF0000000000000"]
                    )
                } else if has(".number") {
                    opv!(self, [&"fcmp ord ", &ll, &" ", &a, &", 0.0"])
                } else if has(".notanumber") {
                    opv!(self, [&"fcmp uno ", &ll, &" ", &a, &", 0.0"])
                } else {
                    let min = if t == Ty::F32 {
                        "0x3810000000000000"
                    } else {
                        "0x0010000000000000"
                    };
                    if has(".normal") {
                        // Zero counts as normal (the H200 agrees: testp.normal 0.0 is true).
                        let x = opv!(self, [&"fcmp oge ", &ll, &" ", &ab, &", ", &min]);
                        let y = opv!(
                            self,
                            [&"fcmp one ", &ll, &" ", &ab, &", 0x7FF0000000000000"]
                        );
                        let x = opv!(self, [&"and i1 ", &x, &", ", &y]);
                        let z = opv!(self, [&"fcmp oeq ", &ll, &" ", &ab, &", 0.0"]);
                        opv!(self, [&"or i1 ", &x, &", ", &z])
                    } else {
                        let x = opv!(self, [&"fcmp olt ", &ll, &" ", &ab, &", ", &min]);
                        let y = opv!(self, [&"fcmp one ", &ll, &" ", &ab, &", 0.0"]);
                        opv!(self, [&"and i1 ", &x, &", ", &y])
                    }
                };
                self.wr(&ops[0], &r, Ty::I1, false)?;
            }
            O::Atom | O::Red => self.atom(i.opcode == O::Atom, &mods, &tys, ops)?,
            O::Fence
                if mods
                    .first()
                    .is_some_and(|m| *m == ".proxy" || *m == ".mbarrier_init") =>
            {
                self.async_fence(i)?
            }
            O::Membar | O::Fence => {
                if has(".proxy") || mods.iter().any(|m| m.starts_with(".proxy")) {
                    return fail(&form_of(i), "proxy fences are not lowered");
                }
                if self.cx.nv {
                    // LLVM 19's NVPTX backend cannot select `fence`: keep the PTX instruction.
                    let f = self.form();
                    linev!(
                        self,
                        [&"call void asm sideeffect \"", &f, &";\", \"~{memory}\"()"]
                    );
                    return Ok(());
                }
                let ss = syncscope(self.cx.nv, &mods);
                let ss = if mods.contains(&".cta") {
                    ss
                } else if has(".gl") || has(".gpu") {
                    ss
                } else if has(".sys") {
                    ""
                } else {
                    ss
                };
                let ord = if has(".acq_rel") {
                    "acq_rel"
                } else {
                    "seq_cst"
                };
                linev!(self, [&"fence", &ss, &" ", &ord]);
            }
            O::Bar if has(".warp") => self.warp_inst(i)?,
            O::Mma => self.mma_inst(i)?,
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
            | O::Vset4 => self.video_inst(i)?,
            O::Wmma => self.wmma_inst(i)?,
            O::Shfl | O::Vote | O::Match | O::Redux | O::Activemask | O::Elect => {
                self.warp_inst(i)?
            }
            O::Cp if has(".bulk") => self.bulk_inst(i)?,
            O::Mbarrier => self.mbarrier_inst(i)?,
            O::Cp | O::Ldmatrix | O::Stmatrix | O::Movmatrix => self.tensor_mem_inst(i)?,
            O::Bar | O::Barrier => self.bar(&mods, ops)?,
            O::Call => self.callinst(i, ops)?,
            O::Brx => {
                let idx = self.rd(&ops[0], Ty::I32, false)?;
                let tl = match ops.get(1) {
                    Some(Operand::Label(l)) | Some(Operand::Symbol(l)) => {
                        self.btargets.get(l.as_str()).copied()
                    }
                    _ => None,
                };
                let Some(tl) = tl else {
                    return fail(&form_of(i), "brx.idx without .branchtargets");
                };
                let dflt = self.new_block_name();
                let mut s = format!("switch i32 {idx}, label %{dflt} [");
                for (k, t) in tl.targets.iter().enumerate() {
                    let _ = write!(s, " i32 {k}, label %{}", self.label_of(t));
                }
                s.push_str(" ]");
                linev!(self, [&s]);
                let _ = writeln!(self.body, "{dflt}:\n  unreachable");
                self.terminated = true;
            }
            O::Prefetch | O::Prefetchu | O::Applypriority | O::Discard => {}
            _ => return fail(&form_of(i), "no lowering for this instruction"),
        }
        Ok(())
    }

    // ---------------------------------------------------------------- helpers

    /// `llvm.<name>.<suffix of t>`.
    /// `llvm.<name>.<type suffix>`.
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

    fn lop3(&mut self, lut: u32, a: &str, b: &str, c: &str) -> V {
        if lut == 0 {
            return "0".into();
        }
        if lut == 0xff {
            return "-1".into();
        }
        let na = opv!(self, [&"xor i32 ", &a, &", -1"]);
        let nb = opv!(self, [&"xor i32 ", &b, &", -1"]);
        let nc = opv!(self, [&"xor i32 ", &c, &", -1"]);
        let mut acc: Option<V> = None;
        for k in 0..8u32 {
            if lut & (1 << k) == 0 {
                continue;
            }
            let x = if k & 4 != 0 { a } else { &na };
            let y = if k & 2 != 0 { b } else { &nb };
            let z = if k & 1 != 0 { c } else { &nc };
            let (x, y, z) = (V::new(x), V::new(y), V::new(z));
            let t = opv!(self, [&"and i32 ", &x, &", ", &y]);
            let t = opv!(self, [&"and i32 ", &t, &", ", &z]);
            acc = Some(match acc {
                None => t,
                Some(p) => opv!(self, [&"or i32 ", &p, &", ", &t]),
            });
        }
        acc.unwrap_or_else(|| V::new("0"))
    }

    fn ftz_in(&mut self, mods: &[&str], t: Ty, v: &str) -> V {
        if t == Ty::F32 && mods.contains(&".ftz") {
            self.call("__wp_ftz_f32", Ty::F32, &[(Ty::F32, v)])
        } else {
            V::new(v)
        }
    }

    fn ftz_out(&mut self, mods: &[&str], t: Ty, v: &str) -> V {
        self.ftz_in(mods, t, v)
    }

    fn sat(&mut self, mods: &[&str], t: Ty, v: &str) -> V {
        if !mods.contains(&".sat") {
            return V::new(v);
        }
        let z = imm(ImmValue::Float(0.0), t);
        let one = match t {
            // 1.0 in both halves (f16 0x3C00, bf16 0x3F80).
            Ty::V2F16 => imm(ImmValue::UInt(0x3C00_3C00), t),
            Ty::V2Bf16 => imm(ImmValue::UInt(0x3F80_3F80), t),
            _ => imm(ImmValue::Float(1.0), t),
        };
        // NaN → 0 (PTX ISA 9.x §9.7.3: .sat clamps to [0.0, 1.0], NaN results are 0).
        let m = self.intr2("maxnum", t, v, &z);
        self.intr2("minnum", t, &m, &one)
    }

    fn rounding(mods: &[&str]) -> Option<&'static str> {
        for m in mods {
            match *m {
                ".rn" => return Some("rn"),
                ".rz" => return Some("rz"),
                ".rm" => return Some("rm"),
                ".rp" => return Some("rp"),
                ".rna" => return Some("rna"),
                ".rni" => return Some("rni"),
                ".rzi" => return Some("rzi"),
                ".rmi" => return Some("rmi"),
                ".rpi" => return Some("rpi"),
                _ => {}
            }
        }
        None
    }

    fn farith(&mut self, op: Opcode, mods: &[&str], t: Ty, ops: &[Operand<'a>]) -> R<()> {
        let rnd = Self::rounding(mods).unwrap_or("rn");
        let ll = t.ll();
        let a = self.rd(&ops[1], t, false)?;
        let a = self.ftz_in(mods, t, &a);
        let b = self.rd(&ops[2], t, false)?;
        let b = self.ftz_in(mods, t, &b);
        let scalar = matches!(t, Ty::F32 | Ty::F64);
        let directed = matches!(rnd, "rz" | "rm" | "rp");
        if directed && !scalar {
            return fail(&self.form(), "directed rounding of half precision");
        }
        let r = match op {
            Opcode::Add | Opcode::Sub => {
                let b = if op == Opcode::Sub {
                    opv!(self, [&"fneg ", &ll, &" ", &b])
                } else {
                    b
                };
                if directed {
                    let f = format!("__wp_add_{rnd}_{}", t.suffix());
                    self.call(&f, t, &[(t, &a), (t, &b)])
                } else {
                    opv!(self, [&"fadd ", &ll, &" ", &a, &", ", &b])
                }
            }
            Opcode::Mul => {
                if directed {
                    let f = format!("__wp_mul_{rnd}_{}", t.suffix());
                    self.call(&f, t, &[(t, &a), (t, &b)])
                } else {
                    opv!(self, [&"fmul ", &ll, &" ", &a, &", ", &b])
                }
            }
            Opcode::Mad | Opcode::Fma => {
                let c = self.rd(&ops[3], t, false)?;
                let c = self.ftz_in(mods, t, &c);
                if directed {
                    let f = format!("__wp_fma_{rnd}_{}", t.suffix());
                    self.call(&f, t, &[(t, &a), (t, &b), (t, &c)])
                } else {
                    self.intr3("fma", t, &a, &b, &c)
                }
            }
            Opcode::Div => {
                if directed {
                    let f = format!("__wp_div_{rnd}_{}", t.suffix());
                    self.call(&f, t, &[(t, &a), (t, &b)])
                } else if mods.contains(&".approx") && t == Ty::F32 {
                    // The support library's (nvptx: the hardware's div.approx, which is 0 for
                    // 2^126 < |b| < 2^128, PTX ISA 9.x §9.7.3.8).
                    self.call("__wp_div_approx_f32", t, &[(t, &a), (t, &b)])
                } else if mods.contains(&".approx") {
                    opv!(self, [&"fdiv afn ", &ll, &" ", &a, &", ", &b])
                } else {
                    opv!(self, [&"fdiv ", &ll, &" ", &a, &", ", &b])
                }
            }
            Opcode::Min | Opcode::Max => {
                if mods.contains(&".xorsign") {
                    return fail(&self.form(), "min/max .xorsign.abs");
                }
                let nan = mods.contains(&".NaN");
                let f = match (op == Opcode::Min, nan) {
                    (true, false) => "minnum",
                    (false, false) => "maxnum",
                    (true, true) => "minimum",
                    (false, true) => "maximum",
                };
                self.intr2(f, t, &a, &b)
            }
            _ => return fail(&self.form(), "float opcode"),
        };
        let r = if mods.contains(&".relu") {
            // -0.0 becomes +0.0 as well (the H200 agrees).
            let z = opv!(self, [&"fcmp ole ", &ll, &" ", &r, &", zeroinitializer"]);
            opv!(
                self,
                [
                    &"select ",
                    &({
                        if matches!(t, Ty::V2F16 | Ty::V2Bf16) {
                            "<2 x i1>"
                        } else {
                            "i1"
                        }
                    }),
                    &" ",
                    &z,
                    &", ",
                    &ll,
                    &" zeroinitializer, ",
                    &ll,
                    &" ",
                    &r,
                ]
            )
        } else {
            r
        };
        let r = self.sat(mods, t, &r);
        let r = self.ftz_out(mods, t, &r);
        self.wr(&ops[0], &r, t, false)
    }

    fn funary(&mut self, op: Opcode, mods: &[&str], t: Ty, ops: &[Operand<'a>]) -> R<()> {
        let ll = t.ll();
        let a = self.rd(&ops[1], t, false)?;
        let a = self.ftz_in(mods, t, &a);
        let rnd = Self::rounding(mods);
        let directed = matches!(rnd, Some("rz" | "rm" | "rp"));
        let one = imm(ImmValue::Float(1.0), t);
        let r = match op {
            Opcode::Rcp => {
                if directed {
                    let f = format!("__wp_div_{}_{}", rnd.unwrap(), t.suffix());
                    self.call(&f, t, &[(t, &one), (t, &a)])
                } else if mods.contains(&".approx") && t == Ty::F32 {
                    let f = if mods.contains(&".ftz") {
                        "__wp_rcp_approx_ftz_f32"
                    } else {
                        "__wp_rcp_approx_f32"
                    };
                    self.call(f, t, &[(t, &a)])
                } else if mods.contains(&".approx") && t == Ty::F64 {
                    // rcp.approx.ftz.f64 (PTX ISA 9.x §9.7.3.11): the support library's (nvptx:
                    // the hardware instruction, whose low 32 result bits are zero).
                    self.call("__wp_rcp_approx_ftz_f64", t, &[(t, &a)])
                } else if mods.contains(&".approx") {
                    opv!(self, [&"fdiv afn ", &ll, &" ", &one, &", ", &a])
                } else {
                    opv!(self, [&"fdiv ", &ll, &" ", &one, &", ", &a])
                }
            }
            Opcode::Sqrt => {
                if directed {
                    let f = format!("__wp_sqrt_{}_{}", rnd.unwrap(), t.suffix());
                    self.call(&f, t, &[(t, &a)])
                } else if mods.contains(&".approx") && t == Ty::F32 {
                    self.call("__wp_sqrt_approx_f32", t, &[(t, &a)])
                } else if mods.contains(&".approx") {
                    let n = format!("llvm.sqrt.{}", t.suffix());
                    self.decl(&n, &format!("declare {ll} @{n}({ll})"));
                    opv!(
                        self,
                        [&"call afn ", &ll, &" @", &n, &"(", &ll, &" ", &a, &")"]
                    )
                } else {
                    self.intr1("sqrt", t, &a)
                }
            }
            Opcode::Rsqrt if matches!(t, Ty::F32 | Ty::F64) => {
                // The support library's (nvptx: the hardware's rsqrt.approx, which libdevice's
                // full-precision rsqrt refines, so its exact bits matter).
                // rsqrt.approx.ftz.f64 is a different instruction from rsqrt.approx.f64 (the
                // H200's results differ in the low bits).
                let ftz = if t == Ty::F64 && mods.contains(&".ftz") {
                    "ftz_"
                } else {
                    ""
                };
                self.call(
                    &format!("__wp_rsqrt_approx_{ftz}{}", t.suffix()),
                    t,
                    &[(t, &a)],
                )
            }
            Opcode::Rsqrt => {
                let n = format!("llvm.sqrt.{}", t.suffix());
                self.decl(&n, &format!("declare {ll} @{n}({ll})"));
                let s = opv!(
                    self,
                    [&"call afn ", &ll, &" @", &n, &"(", &ll, &" ", &a, &")"]
                );
                opv!(self, [&"fdiv afn ", &ll, &" ", &one, &", ", &s])
            }
            Opcode::Sin | Opcode::Cos | Opcode::Lg2 | Opcode::Ex2 | Opcode::Tanh => {
                if !matches!(t, Ty::F32) {
                    return fail(&self.form(), "approximate function of this type");
                }
                let f = format!("__wp_{}_approx_f32", op.name());
                self.call(&f, t, &[(t, &a)])
            }
            _ => return fail(&self.form(), "float opcode"),
        };
        let r = self.ftz_out(mods, t, &r);
        self.wr(&ops[0], &r, t, false)
    }

    fn iarith(&mut self, op: Opcode, mods: &[&str], t: Ty, k: Kind, ops: &[Operand<'a>]) -> R<()> {
        let s = k == Kind::Signed;
        let ll = t.ll();
        let has = |m: &str| mods.contains(&m);
        if has(".cc") {
            return self.carry(op, mods, t, ops);
        }
        let wide = has(".wide");
        let hi = has(".hi");
        let a = self.rd(&ops[1], t, s)?;
        let b = self.rd(&ops[2], t, s)?;
        let w = t.bits();
        let ext = if s { "sext" } else { "zext" };
        let (r, rt) = match op {
            Opcode::Add | Opcode::Sub => {
                if has(".sat") {
                    let f = if op == Opcode::Add {
                        "sadd.sat"
                    } else {
                        "ssub.sat"
                    };
                    (self.intr2(f, t, &a, &b), t)
                } else {
                    let o = if op == Opcode::Add { "add" } else { "sub" };
                    (opv!(self, [&o, &" ", &ll, &" ", &a, &", ", &b]), t)
                }
            }
            Opcode::Mul | Opcode::Mad => {
                let (p, pt) = if wide || hi {
                    let dt = Ty::int(w * 2);
                    let a2 = opv!(self, [&ext, &" ", &ll, &" ", &a, &" to ", &(dt.ll())]);
                    let b2 = opv!(self, [&ext, &" ", &ll, &" ", &b, &" to ", &(dt.ll())]);
                    let p = opv!(self, [&"mul ", &(dt.ll()), &" ", &a2, &", ", &b2]);
                    if hi {
                        let h = opv!(self, [&"lshr ", &(dt.ll()), &" ", &p, &", ", &w]);
                        (
                            opv!(self, [&"trunc ", &(dt.ll()), &" ", &h, &" to ", &ll]),
                            t,
                        )
                    } else {
                        (p, dt)
                    }
                } else {
                    (opv!(self, [&"mul ", &ll, &" ", &a, &", ", &b]), t)
                };
                if op == Opcode::Mad {
                    let c = self.rd(&ops[3], pt, s)?;
                    if has(".sat") {
                        // mad.hi.sat.s32: saturate the sum (PTX ISA 9.x §9.7.1.4).
                        (self.intr2("sadd.sat", pt, &p, &c), pt)
                    } else {
                        (opv!(self, [&"add ", &(pt.ll()), &" ", &p, &", ", &c]), pt)
                    }
                } else {
                    (p, pt)
                }
            }
            Opcode::Div | Opcode::Rem => {
                // Division by zero gives an unspecified value in PTX but is undefined
                // behaviour in LLVM: divide by 1 instead. INT_MIN / -1 likewise.
                let z = opv!(self, [&"icmp eq ", &ll, &" ", &b, &", 0"]);
                let (bad, safe_b) = if s {
                    let m1 = opv!(self, [&"icmp eq ", &ll, &" ", &b, &", -1"]);
                    let bad = opv!(self, [&"or i1 ", &z, &", ", &m1]);
                    (
                        Some(m1),
                        opv!(
                            self,
                            [&"select i1 ", &bad, &", ", &ll, &" 1, ", &ll, &" ", &b]
                        ),
                    )
                } else {
                    (
                        None,
                        opv!(
                            self,
                            [&"select i1 ", &z, &", ", &ll, &" 1, ", &ll, &" ", &b]
                        ),
                    )
                };
                let o = match (op == Opcode::Div, s) {
                    (true, true) => "sdiv",
                    (true, false) => "udiv",
                    (false, true) => "srem",
                    (false, false) => "urem",
                };
                let q = opv!(self, [&o, &" ", &ll, &" ", &a, &", ", &safe_b]);
                let q = match bad {
                    Some(m1) => {
                        let alt = if op == Opcode::Div {
                            opv!(self, [&"sub ", &ll, &" 0, ", &a])
                        } else {
                            V::new("0")
                        };
                        self.select(&m1, ll, &alt, &q)
                    }
                    None => q,
                };
                (q, t)
            }
            Opcode::Min | Opcode::Max => {
                let f = match (op == Opcode::Min, s) {
                    (true, true) => "smin",
                    (true, false) => "umin",
                    (false, true) => "smax",
                    (false, false) => "umax",
                };
                let r = self.intr2(f, t, &a, &b);
                let r = if has(".relu") {
                    self.intr2("smax", t, &r, "0")
                } else {
                    r
                };
                (r, t)
            }
            _ => return fail(&self.form(), "integer opcode"),
        };
        self.wr(&ops[0], &r, rt, s)
    }

    /// Extended-precision add/sub/mad with the carry flag (PTX ISA 9.x §9.7.2): the flag is a
    /// function-local `i1` (`%cc`).
    fn carry(&mut self, op: Opcode, mods: &[&str], t: Ty, ops: &[Operand<'a>]) -> R<()> {
        if !self.has_cc {
            self.has_cc = true;
            let s = self.alloca_suffix();
            let _ = writeln!(self.allocas, "  %cc = alloca i1{s}");
        }
        let ll = t.ll();
        let pa = self.pa.clone();
        let cc_out = mods.contains(&".cc");
        let a = self.rd(&ops[1], t, false)?;
        let b = self.rd(&ops[2], t, false)?;
        let (a, b) = if matches!(op, Opcode::Mad | Opcode::Madc) {
            let w = t.bits();
            let dt = Ty::int(w * 2);
            let s = mods.contains(&".s32") || mods.contains(&".s64");
            let ext = if s { "sext" } else { "zext" };
            let a2 = opv!(self, [&ext, &" ", &ll, &" ", &a, &" to ", &(dt.ll())]);
            let b2 = opv!(self, [&ext, &" ", &ll, &" ", &b, &" to ", &(dt.ll())]);
            let p = opv!(self, [&"mul ", &(dt.ll()), &" ", &a2, &", ", &b2]);
            let p = if mods.contains(&".hi") {
                opv!(self, [&"lshr ", &(dt.ll()), &" ", &p, &", ", &w])
            } else {
                p
            };
            let p = opv!(self, [&"trunc ", &(dt.ll()), &" ", &p, &" to ", &ll]);
            let c = self.rd(&ops[3], t, false)?;
            (p, c)
        } else {
            (a, b)
        };
        let sub = matches!(op, Opcode::Sub | Opcode::Subc);
        let cin = matches!(op, Opcode::Addc | Opcode::Subc | Opcode::Madc);
        let f = if sub { "usub" } else { "uadd" };
        let n = format!("llvm.{f}.with.overflow.{}", t.suffix());
        self.decl(&n, &format!("declare {{ {ll}, i1 }} @{n}({ll}, {ll})"));
        let r1 = opv!(
            self,
            [
                &"call { ",
                &ll,
                &", i1 } @",
                &n,
                &"(",
                &ll,
                &" ",
                &a,
                &", ",
                &ll,
                &" ",
                &b,
                &")",
            ]
        );
        let v1 = opv!(self, [&"extractvalue { ", &ll, &", i1 } ", &r1, &", 0"]);
        let o1 = opv!(self, [&"extractvalue { ", &ll, &", i1 } ", &r1, &", 1"]);
        let (v, o) = if cin {
            let c = opv!(self, [&"load i1, ", &pa, &" %cc"]);
            let cz = opv!(self, [&"zext i1 ", &c, &" to ", &ll]);
            let r2 = opv!(
                self,
                [
                    &"call { ",
                    &ll,
                    &", i1 } @",
                    &n,
                    &"(",
                    &ll,
                    &" ",
                    &v1,
                    &", ",
                    &ll,
                    &" ",
                    &cz,
                    &")",
                ]
            );
            let v2 = opv!(self, [&"extractvalue { ", &ll, &", i1 } ", &r2, &", 0"]);
            let o2 = opv!(self, [&"extractvalue { ", &ll, &", i1 } ", &r2, &", 1"]);
            let o = opv!(self, [&"or i1 ", &o1, &", ", &o2]);
            (v2, o)
        } else {
            (v1, o1)
        };
        if cc_out {
            linev!(self, [&"store i1 ", &o, &", ", &pa, &" %cc"]);
        }
        self.wr(&ops[0], &v, t, false)
    }

    fn setp(&mut self, mods: &[&str], tys: &[Type], ops: &[Operand<'a>]) -> R<()> {
        let Some(&pt) = tys.last() else {
            return fail(&self.form(), "setp without a type");
        };
        let (t, k) = of_ptx(pt).ok_or_else(|| Fail {
            form: self.form(),
            reason: "type".into(),
        })?;
        if matches!(t, Ty::V2F16 | Ty::V2Bf16) {
            return fail(&self.form(), "setp on packed halves");
        }
        let a = self.rd(&ops[1], t, false)?;
        let a = self.ftz_in(mods, t, &a);
        let b = self.rd(&ops[2], t, false)?;
        let b = self.ftz_in(mods, t, &b);
        let c = self.compare(mods[0], t, k, &a, &b)?;
        let (p, q) = match &ops[0] {
            Operand::Pair(pair) => (Operand::Reg(pair.0.into()), Some(pair.1)),
            o => (o.clone(), None),
        };
        let bop = mods
            .get(1)
            .copied()
            .filter(|m| matches!(*m, ".and" | ".or" | ".xor"));
        let (pv, qv) = match bop {
            Some(bo) => {
                let x = self.rd(&ops[3], Ty::I1, false)?;
                let o = &bo[1..];
                let pv = opv!(self, [&o, &" i1 ", &c, &", ", &x]);
                let nc = opv!(self, [&"xor i1 ", &c, &", true"]);
                let qv = opv!(self, [&o, &" i1 ", &nc, &", ", &x]);
                (pv, qv)
            }
            None => {
                let nc = opv!(self, [&"xor i1 ", &c, &", true"]);
                (c, nc)
            }
        };
        self.wr(&p, &pv, Ty::I1, false)?;
        if let Some(q) = q {
            if q != "_" {
                self.wr(&Operand::Reg(q.into()), &qv, Ty::I1, false)?;
            }
        }
        Ok(())
    }

    fn compare(&mut self, cmp: &str, t: Ty, k: Kind, a: &str, b: &str) -> R<V> {
        let ll = t.ll();
        if k == Kind::Float {
            let p = match cmp {
                ".eq" => "oeq",
                ".ne" => "one",
                ".lt" => "olt",
                ".le" => "ole",
                ".gt" => "ogt",
                ".ge" => "oge",
                ".equ" => "ueq",
                ".neu" => "une",
                ".ltu" => "ult",
                ".leu" => "ule",
                ".gtu" => "ugt",
                ".geu" => "uge",
                ".num" => "ord",
                ".nan" => "uno",
                _ => return fail(&self.form(), format!("comparison {cmp}")),
            };
            return Ok(opv!(self, [&"fcmp ", &p, &" ", &ll, &" ", &a, &", ", &b]));
        }
        let s = k == Kind::Signed;
        let p = match (cmp, s) {
            (".eq", _) => "eq",
            (".ne", _) => "ne",
            (".lt", true) => "slt",
            (".le", true) => "sle",
            (".gt", true) => "sgt",
            (".ge", true) => "sge",
            (".lt", false) | (".lo", _) => "ult",
            (".le", false) | (".ls", _) => "ule",
            (".gt", false) | (".hi", _) => "ugt",
            (".ge", false) | (".hs", _) => "uge",
            _ => return fail(&self.form(), format!("comparison {cmp}")),
        };
        Ok(opv!(self, [&"icmp ", &p, &" ", &ll, &" ", &a, &", ", &b]))
    }

    fn set(&mut self, mods: &[&str], tys: &[Type], ops: &[Operand<'a>]) -> R<()> {
        if tys.len() != 2 {
            return fail(&self.form(), "set needs two types");
        }
        let (dt, dk) = of_ptx(tys[0]).unwrap_or((Ty::I32, Kind::Bits));
        let (st, sk) = of_ptx(tys[1]).unwrap_or((Ty::I32, Kind::Bits));
        if matches!(st, Ty::V2F16 | Ty::V2Bf16) {
            // set.CmpOp.{u32,s32,f16x2}.{f16x2,bf16x2} (PTX ISA 9.x §9.7.4.6): each half
            // compared; the half of d is 0xFFFF / 0 (integer d) or 1.0 / 0.0 (f16x2 d).
            let bool_op = mods
                .get(1)
                .is_some_and(|m| matches!(*m, ".and" | ".or" | ".xor"));
            if bool_op || mods.contains(&".ftz") {
                return fail(
                    &self.form(),
                    "set on packed halves with .ftz or a boolean op",
                );
            }
            let a = self.rd(&ops[1], st, false)?;
            let b = self.rd(&ops[2], st, false)?;
            let c = self.compare(mods[0], st, Kind::Float, &a, &b)?;
            let r = match dt {
                Ty::V2F16 | Ty::V2Bf16 => {
                    let one = if dt == Ty::V2F16 {
                        0x3C00_3C00
                    } else {
                        0x3F80_3F80
                    };
                    let one = imm(ImmValue::UInt(one), dt);
                    let v = opv!(
                        self,
                        [
                            &"select <2 x i1> ",
                            &c,
                            &", ",
                            &(dt.ll()),
                            &" ",
                            &one,
                            &", ",
                            &(dt.ll()),
                            &" zeroinitializer"
                        ]
                    );
                    return self.wr(&ops[0], &v, dt, false);
                }
                _ if dt.bits() == 32 => {
                    let m = opv!(self, [&"sext <2 x i1> ", &c, &" to <2 x i16>"]);
                    opv!(self, [&"bitcast <2 x i16> ", &m, &" to i32"])
                }
                _ => return fail(&self.form(), "set on packed halves to this type"),
            };
            return self.wr(&ops[0], &r, Ty::I32, false);
        }
        if matches!(dt, Ty::V2F16 | Ty::V2Bf16) {
            return fail(&self.form(), "set to packed halves from scalars");
        }
        let a = self.rd(&ops[1], st, false)?;
        let a = self.ftz_in(mods, st, &a);
        let b = self.rd(&ops[2], st, false)?;
        let b = self.ftz_in(mods, st, &b);
        let mut c = self.compare(mods[0], st, sk, &a, &b)?;
        if let Some(bo) = mods
            .get(1)
            .filter(|m| matches!(**m, ".and" | ".or" | ".xor"))
        {
            let x = self.rd(&ops[3], Ty::I1, false)?;
            c = opv!(self, [&(&bo[1..]), &" i1 ", &c, &", ", &x]);
        }
        let (one, zero) = if dk == Kind::Float {
            (imm(ImmValue::Float(1.0), dt), imm(ImmValue::Float(0.0), dt))
        } else {
            ("-1".to_string(), "0".to_string())
        };
        let r = self.select(&c, dt.ll(), &one, &zero);
        self.wr(&ops[0], &r, dt, false)
    }

    fn mov(&mut self, mods: &[&str], tys: &[Type], ops: &[Operand<'a>]) -> R<()> {
        let _ = mods;
        let Some(&pt) = tys.first() else {
            return fail(&self.form(), "mov without a type");
        };
        let (t, _) = of_ptx(pt).ok_or_else(|| Fail {
            form: self.form(),
            reason: "type".into(),
        })?;
        let it = if t == Ty::I1 { t } else { Ty::int(t.bits()) };
        let v = self.rd(&ops[1], it, false)?;
        self.wr(&ops[0], &v, it, false)
    }

    fn vec_len(mods: &[&str]) -> u32 {
        for m in mods {
            match *m {
                ".v2" => return 2,
                ".v4" => return 4,
                ".v8" => return 8,
                _ => {}
            }
        }
        1
    }

    fn mem_order(&self, mods: &[&str]) -> Option<(&'static str, &'static str)> {
        // (ordering, syncscope) for .relaxed/.acquire/.release with a scope.
        for m in mods {
            let o = match *m {
                ".relaxed" => "monotonic",
                ".acquire" => "acquire",
                ".release" => "release",
                _ => continue,
            };
            return Some((o, syncscope(self.cx.nv, mods)));
        }
        None
    }

    fn ld(&mut self, mods: &[&'a str], ops: &[Operand<'a>]) -> R<()> {
        let s = space_of(mods).map_err(|mut f| {
            f.form = self.form();
            f
        })?;
        let Some(pt) = mods.iter().rev().find_map(|m| Type::from_name(m)) else {
            return fail(&self.form(), "ld without a type");
        };
        let (et, k) = of_ptx(pt).ok_or_else(|| Fail {
            form: self.form(),
            reason: format!("ld of {}", pt.as_str()),
        })?;
        let et = if et == Ty::I1 { Ty::I8 } else { et };
        let signed = k == Kind::Signed;
        let n = Self::vec_len(mods);
        let (p, aspace) = self.addr(&ops[1], s)?;
        let pty = ptr_ty(aspace);
        let vol = if mods.contains(&".volatile") {
            " volatile"
        } else {
            ""
        };
        let size = et.bits() / 8 * n;
        let el = et.ll();
        if n == 1 && self.cx.nv && self.mem_order(mods).is_some() {
            let v = self.nv_ordered(mods, "ld", &p, aspace, et, None);
            return self.wr(&ops[0], &v, et, signed);
        }
        if n == 1 {
            let v = match self.mem_order(mods) {
                Some((o, ss)) if o != "release" => opv!(
                    self,
                    [
                        &"load atomic",
                        &vol,
                        &" ",
                        &el,
                        &", ",
                        &pty,
                        &" ",
                        &p,
                        &ss,
                        &" ",
                        &o,
                        &", align ",
                        &size,
                    ]
                ),
                _ => opv!(
                    self,
                    [
                        &"load",
                        &vol,
                        &" ",
                        &el,
                        &", ",
                        &pty,
                        &" ",
                        &p,
                        &", align ",
                        &size,
                    ]
                ),
            };
            return self.wr(&ops[0], &v, et, signed);
        }
        let Operand::Vector(dsts) = &ops[0] else {
            return fail(&self.form(), "vector load without a vector destination");
        };
        let vt = format!("<{n} x {el}>");
        let v = opv!(
            self,
            [
                &"load",
                &vol,
                &" ",
                &vt,
                &", ",
                &pty,
                &" ",
                &p,
                &", align ",
                &size,
            ]
        );
        for (k, d) in dsts.iter().enumerate() {
            if matches!(d, Operand::Sink) {
                continue;
            }
            let x = opv!(self, [&"extractelement ", &vt, &" ", &v, &", i32 ", &k]);
            self.wr(d, &x, et, signed)?;
        }
        Ok(())
    }

    fn st(&mut self, mods: &[&'a str], ops: &[Operand<'a>]) -> R<()> {
        let s = space_of(mods).map_err(|mut f| {
            f.form = self.form();
            f
        })?;
        let Some(pt) = mods.iter().rev().find_map(|m| Type::from_name(m)) else {
            return fail(&self.form(), "st without a type");
        };
        let (et, _) = of_ptx(pt).ok_or_else(|| Fail {
            form: self.form(),
            reason: format!("st of {}", pt.as_str()),
        })?;
        let et = if et == Ty::I1 { Ty::I8 } else { et };
        let n = Self::vec_len(mods);
        let (p, aspace) = self.addr(&ops[0], s)?;
        let pty = ptr_ty(aspace);
        let vol = if mods.contains(&".volatile") {
            " volatile"
        } else {
            ""
        };
        let size = et.bits() / 8 * n;
        let el = et.ll();
        if n == 1 && self.cx.nv && self.mem_order(mods).is_some() {
            let v = self.rd(&ops[1], et, false)?;
            self.nv_ordered(mods, "st", &p, aspace, et, Some(&v));
            return Ok(());
        }
        if n == 1 {
            let v = self.rd(&ops[1], et, false)?;
            match self.mem_order(mods) {
                Some((o, ss)) if o != "acquire" => linev!(
                    self,
                    [
                        &"store atomic",
                        &vol,
                        &" ",
                        &el,
                        &" ",
                        &v,
                        &", ",
                        &pty,
                        &" ",
                        &p,
                        &ss,
                        &" ",
                        &o,
                        &", align ",
                        &size,
                    ]
                ),
                _ => linev!(
                    self,
                    [
                        &"store",
                        &vol,
                        &" ",
                        &el,
                        &" ",
                        &v,
                        &", ",
                        &pty,
                        &" ",
                        &p,
                        &", align ",
                        &size,
                    ]
                ),
            }
            return Ok(());
        }
        let Operand::Vector(srcs) = &ops[1] else {
            return fail(&self.form(), "vector store without a vector source");
        };
        let vt = format!("<{n} x {el}>");
        let mut acc = V::new("poison");
        for (k, e) in srcs.iter().enumerate() {
            let x = self.rd(e, et, false)?;
            acc = opv!(
                self,
                [
                    &"insertelement ",
                    &vt,
                    &" ",
                    &acc,
                    &", ",
                    &el,
                    &" ",
                    &x,
                    &", i32 ",
                    &k,
                ]
            );
        }
        linev!(
            self,
            [
                &"store",
                &vol,
                &" ",
                &vt,
                &" ",
                &acc,
                &", ",
                &pty,
                &" ",
                &p,
                &", align ",
                &size,
            ]
        );
        Ok(())
    }

    /// nvptx: a `.relaxed/.acquire/.release` load or store as the PTX instruction itself
    /// (inline asm), since LLVM 19's NVPTX backend cannot select ordered atomic loads/stores.
    fn nv_ordered(
        &mut self,
        mods: &[&str],
        op: &str,
        p: &str,
        aspace: u32,
        et: Ty,
        val: Option<&str>,
    ) -> V {
        let mut text = String::from(op);
        for m in mods {
            if matches!(
                *m,
                ".relaxed"
                    | ".acquire"
                    | ".release"
                    | ".cta"
                    | ".gpu"
                    | ".sys"
                    | ".global"
                    | ".shared"
                    | ".shared::cta"
                    | ".local"
            ) {
                // `.shared::cta` is `.shared` (PTX ISA 9.x §5.1.4); llc writes `.version 7.0`.
                text.push_str(if *m == ".shared::cta" { ".shared" } else { m });
            }
        }
        let bits = et.bits();
        let (c, ct) = match bits {
            8 | 16 => ("h", Ty::I16),
            32 => ("r", Ty::I32),
            _ => ("l", Ty::I64),
        };
        let _ = write!(text, ".b{bits}");
        let a = opv!(
            self,
            [&"ptrtoint ", &(ptr_ty(aspace)), &" ", &p, &" to i64"]
        );
        match val {
            None => {
                let v = opv!(
                    self,
                    [
                        &"call ",
                        &(ct.ll()),
                        &" asm sideeffect \"",
                        &text,
                        &" $0, [$1];\", \"=",
                        &c,
                        &",l,~{memory}\"(i64 ",
                        &a,
                        &")",
                    ]
                );
                self.fit(&v, ct, et, false)
            }
            Some(v) => {
                let x = self.fit(v, et, ct, false);
                linev!(
                    self,
                    [
                        &"call void asm sideeffect \"",
                        &text,
                        &" [$0], $1;\", \"l,",
                        &c,
                        &",~{memory}\"(i64 ",
                        &a,
                        &", ",
                        &(ct.ll()),
                        &" ",
                        &x,
                        &")",
                    ]
                );
                V::new("")
            }
        }
    }

    fn cvta(&mut self, mods: &[&str], ops: &[Operand<'a>]) -> R<()> {
        let to = mods.contains(&".to");
        let s = space_of(mods).map_err(|mut f| {
            f.form = self.form();
            f
        })?;
        let it = if mods.contains(&".u32") {
            Ty::I32
        } else {
            Ty::I64
        };
        let sa = self.space_as(if s == Space::Param { Space::Param } else { s });
        let g = self.cx.prof.addrspace.generic;
        let (from_as, to_as) = if to { (g, sa) } else { (sa, g) };
        // The source pointer: a symbol's address or an integer register.
        let p = match &ops[1] {
            Operand::Symbol(n) | Operand::Func(n) => {
                let (p, a) = self.sym_ptr(n)?;
                if a == from_as {
                    p
                } else {
                    opv!(
                        self,
                        [
                            &"addrspacecast ",
                            &(ptr_ty(a)),
                            &" ",
                            &p,
                            &" to ",
                            &(ptr_ty(from_as)),
                        ]
                    )
                }
            }
            Operand::Reg(n) if matches!(self.lookup(n), Some(Local::Mem { .. })) => {
                let (p, a) = self.sym_ptr(n)?;
                if a == from_as {
                    p
                } else {
                    opv!(
                        self,
                        [
                            &"addrspacecast ",
                            &(ptr_ty(a)),
                            &" ",
                            &p,
                            &" to ",
                            &(ptr_ty(from_as)),
                        ]
                    )
                }
            }
            o => {
                let v = self.rd(o, it, false)?;
                opv!(
                    self,
                    [
                        &"inttoptr ",
                        &(it.ll()),
                        &" ",
                        &v,
                        &" to ",
                        &(ptr_ty(from_as)),
                    ]
                )
            }
        };
        let c = if from_as == to_as {
            p
        } else {
            opv!(
                self,
                [
                    &"addrspacecast ",
                    &(ptr_ty(from_as)),
                    &" ",
                    &p,
                    &" to ",
                    &(ptr_ty(to_as)),
                ]
            )
        };
        let r = opv!(
            self,
            [
                &"ptrtoint ",
                &(ptr_ty(to_as)),
                &" ",
                &c,
                &" to ",
                &(it.ll()),
            ]
        );
        self.wr(&ops[0], &r, it, false)
    }

    fn cvt(&mut self, mods: &[&str], tys: &[Type], ops: &[Operand<'a>]) -> R<()> {
        let cur = self.cur;
        let form = || cur.map(form_of).unwrap_or_default();
        if tys.len() < 2 {
            return fail(&form(), "cvt needs a destination and a source type");
        }
        if mods.contains(&".pack") && mods.contains(&".sat") && !mods.contains(&".satfinite") {
            // cvt.pack.sat.{s8,u8}.s32.b32 d, a, b, c / cvt.pack.sat.{s16,u16}.s32 d, a, b
            // (PTX ISA 9.x §9.7.9.22): a and b saturated to the narrow type; b in the lowest
            // field, a above it, the bits above taken from the low bits of c.
            let dt = tys[0];
            let (nb, signed) = match dt {
                Type::S8 => (8, true),
                Type::U8 => (8, false),
                Type::S16 => (16, true),
                Type::U16 => (16, false),
                _ => return fail(&form(), "cvt.pack type"),
            };
            let want = if nb == 8 { 4 } else { 3 };
            if tys.get(1) != Some(&Type::S32) || ops.len() != want {
                return fail(&form(), "cvt.pack operands");
            }
            let nt = Ty::int(nb);
            let a = self.rd(&ops[1], Ty::I32, true)?;
            let b = self.rd(&ops[2], Ty::I32, true)?;
            let sa = self.int_sat(&a, Ty::I32, true, nt, signed);
            let sb = self.int_sat(&b, Ty::I32, true, nt, signed);
            let za = opv!(self, [&"zext ", &(nt.ll()), &" ", &sa, &" to i32"]);
            let zb = opv!(self, [&"zext ", &(nt.ll()), &" ", &sb, &" to i32"]);
            let ha = opv!(self, [&"shl i32 ", &za, &", ", &nb]);
            let mut r = opv!(self, [&"or i32 ", &ha, &", ", &zb]);
            if nb == 8 {
                let c = self.rd(&ops[3], Ty::I32, false)?;
                let hc = opv!(self, [&"shl i32 ", &c, &", 16"]);
                r = opv!(self, [&"or i32 ", &r, &", ", &hc]);
            }
            return self.wr(&ops[0], &r, Ty::I32, false);
        }
        if mods.contains(&".pack") || mods.contains(&".satfinite") || tys.len() != 2 {
            return fail(&form(), "cvt form");
        }
        if tys[0] == Type::Tf32 && tys[1] == Type::F32 && mods.contains(&".rna") {
            // cvt.rna.tf32.f32 (PTX ISA 9.x §9.7.9.21): f32 rounded to 10 mantissa bits,
            // nearest with ties away from zero, as a .b32 with the low 13 bits zero; NaN and
            // infinity bits are truncated (as the H200 does: 0x7f800001 gives 0x7f800000).
            let a = self.rd(&ops[1], Ty::I32, false)?;
            let exp = opv!(self, [&"and i32 ", &a, &", 2139095040"]);
            let special = opv!(self, [&"icmp eq i32 ", &exp, &", 2139095040"]);
            let rd = opv!(self, [&"add i32 ", &a, &", 4096"]);
            let rd = opv!(self, [&"and i32 ", &rd, &", -8192"]);
            let tr = opv!(self, [&"and i32 ", &a, &", -8192"]);
            let r = opv!(
                self,
                [&"select i1 ", &special, &", i32 ", &tr, &", i32 ", &rd]
            );
            return self.wr(&ops[0], &r, Ty::I32, false);
        }
        let (dt, dk) = of_ptx(tys[0]).ok_or_else(|| Fail {
            form: form(),
            reason: format!("cvt to {}", tys[0].as_str()),
        })?;
        let (st, sk) = of_ptx(tys[1]).ok_or_else(|| Fail {
            form: form(),
            reason: format!("cvt from {}", tys[1].as_str()),
        })?;
        if tys[0] == Type::Tf32 || tys[1] == Type::Tf32 {
            return fail(&form(), "tf32 conversion");
        }
        let rnd = Self::rounding(mods);
        let sat = mods.contains(&".sat");
        let ssigned = sk == Kind::Signed;
        // Packed pair: cvt.rn.f16x2.f32 d, a, b → d = {hi: a, lo: b}.
        if matches!(dt, Ty::V2F16 | Ty::V2Bf16) {
            if st != Ty::F32 || ops.len() != 3 || !matches!(rnd, Some("rn" | "rz")) {
                return fail(&form(), "packed conversion");
            }
            let et = if dt == Ty::V2F16 { Ty::F16 } else { Ty::Bf16 };
            let a = self.rd(&ops[1], Ty::F32, false)?;
            let b = self.rd(&ops[2], Ty::F32, false)?;
            let one = |fx: &mut Self, x: &str| -> V {
                let r = opv!(fx, [&"fptrunc float ", &x, &" to ", &(et.ll())]);
                if rnd == Some("rz") {
                    let rw = opv!(fx, [&"fpext ", &(et.ll()), &" ", &r, &" to float"]);
                    let gt = opv!(fx, [&"fcmp ogt float ", &rw, &", ", &x]);
                    let lt = opv!(fx, [&"fcmp olt float ", &rw, &", ", &x]);
                    fx.directed_fix("rz", et, &r, &gt, &lt)
                } else {
                    r
                }
            };
            let ah = one(self, &a);
            let bh = one(self, &b);
            let (ah, bh) = if mods.contains(&".relu") {
                (self.relu(et, &ah), self.relu(et, &bh))
            } else {
                (ah, bh)
            };
            let v0 = opv!(
                self,
                [
                    &"insertelement ",
                    &(dt.ll()),
                    &" poison, ",
                    &(et.ll()),
                    &" ",
                    &bh,
                    &", i32 0",
                ]
            );
            let v1 = opv!(
                self,
                [
                    &"insertelement ",
                    &(dt.ll()),
                    &" ",
                    &v0,
                    &", ",
                    &(et.ll()),
                    &" ",
                    &ah,
                    &", i32 1",
                ]
            );
            return self.wr(&ops[0], &v1, dt, false);
        }
        if matches!(st, Ty::V2F16 | Ty::V2Bf16) {
            return fail(&form(), "conversion from a packed pair");
        }
        let a = self.rd(&ops[1], st, ssigned)?;
        let a = if st == Ty::F32 {
            self.ftz_in(mods, st, &a)
        } else {
            a
        };
        let r = match (sk == Kind::Float, dk == Kind::Float) {
            (false, false) => {
                // Integer ↔ integer: extend by the source's signedness, saturate on request.
                let (sb, db) = (st.bits(), dt.bits());
                let dsigned = dk == Kind::Signed;
                let v = if sat {
                    self.int_sat(&a, st, ssigned, dt, dsigned)
                } else if sb < db {
                    let e = if ssigned { "sext" } else { "zext" };
                    opv!(self, [&e, &" ", &(st.ll()), &" ", &a, &" to ", &(dt.ll())])
                } else if sb > db {
                    opv!(self, [&"trunc ", &(st.ll()), &" ", &a, &" to ", &(dt.ll())])
                } else {
                    a
                };
                return self.wr(&ops[0], &v, dt, dsigned);
            }
            (true, false) => {
                // Float → integer: round to an integer value, then convert saturating (PTX ISA
                // 9.x §9.7.9.21: float-to-integer conversions clamp, NaN gives 0).
                let f = match rnd {
                    Some("rni") | None => "roundeven",
                    Some("rzi") => "trunc",
                    Some("rmi") => "floor",
                    Some("rpi") => "ceil",
                    _ => return fail(&form(), "float-to-integer rounding"),
                };
                let (a, st) = if matches!(st, Ty::F16 | Ty::Bf16) {
                    (
                        opv!(self, [&"fpext ", &(st.ll()), &" ", &a, &" to float"]),
                        Ty::F32,
                    )
                } else {
                    (a, st)
                };
                let rv = self.intr1(f, st, &a);
                let dsigned = dk == Kind::Signed;
                let cf = if dsigned { "fptosi.sat" } else { "fptoui.sat" };
                let n = format!("llvm.{cf}.{}.{}", dt.suffix(), st.suffix());
                self.decl(&n, &format!("declare {} @{n}({})", dt.ll(), st.ll()));
                let v = opv!(
                    self,
                    [
                        &"call ",
                        &(dt.ll()),
                        &" @",
                        &n,
                        &"(",
                        &(st.ll()),
                        &" ",
                        &rv,
                        &")"
                    ]
                );
                // NaN gives 0, except from f64 or to a 64-bit integer, where the H200 gives
                // the top bit alone (0x80000000 / 0x8000000000000000, also for unsigned
                // destinations; CUDA's __double2int_rn / __float2ll_rn document it).
                let v = if dt.bits() >= 32 && (st == Ty::F64 || dt.bits() == 64) {
                    let nan = opv!(self, [&"fcmp uno ", &(st.ll()), &" ", &a, &", 0.0"]);
                    let min = imm(ImmValue::Int(i64::MIN >> (64 - dt.bits())), dt);
                    self.select(&nan, dt.ll(), &min, &v)
                } else {
                    v
                };
                return self.wr(&ops[0], &v, dt, dsigned);
            }
            (false, true) => {
                let conv = if ssigned { "sitofp" } else { "uitofp" };
                match rnd {
                    Some("rn") | None => {
                        opv!(
                            self,
                            [&conv, &" ", &(st.ll()), &" ", &a, &" to ", &(dt.ll())]
                        )
                    }
                    Some(m @ ("rz" | "rm" | "rp"))
                        if matches!(dt, Ty::F32 | Ty::F64) && st.bits() == 32 =>
                    {
                        let s = if ssigned { "s" } else { "u" };
                        let f = format!("__wp_cvt_{m}_{}_{s}{}", dt.suffix(), st.bits());
                        self.call(&f, dt, &[(st, &a)])
                    }
                    Some(m @ ("rz" | "rm" | "rp")) if matches!(dt, Ty::F16 | Ty::F32 | Ty::F64) => {
                        // Round to nearest, then one step toward the mode's direction when
                        // the nearest value is on the wrong side of the exact one (compared
                        // exactly in i128).
                        let r = opv!(
                            self,
                            [&conv, &" ", &(st.ll()), &" ", &a, &" to ", &(dt.ll())]
                        );
                        let (gt, lt) = if dt == Ty::F16 {
                            // f16 overflows to infinity: compare in f64 (exact up to 2^53).
                            let x = opv!(self, [&conv, &" ", &(st.ll()), &" ", &a, &" to double"]);
                            let rw = opv!(self, [&"fpext half ", &r, &" to double"]);
                            (
                                opv!(self, [&"fcmp ogt double ", &rw, &", ", &x]),
                                opv!(self, [&"fcmp olt double ", &rw, &", ", &x]),
                            )
                        } else {
                            // r is an integer value; at or above 2^63 (signed) / 2^64 (unsigned)
                            // it is above every x, else it converts back exactly (no i128
                            // conversions: NVPTX has no libcall for them).
                            let x = self.fit(&a, st, Ty::I64, ssigned);
                            let (lim, conv_back, sgt, slt) = if ssigned {
                                ("0x43E0000000000000", "fptosi", "sgt", "slt")
                            } else {
                                ("0x43F0000000000000", "fptoui", "ugt", "ult")
                            };
                            let rw = if dt == Ty::F64 {
                                r.clone()
                            } else {
                                opv!(self, [&"fpext float ", &r, &" to double"])
                            };
                            let big = opv!(self, [&"fcmp oge double ", &rw, &", ", &lim]);
                            let safe =
                                opv!(self, [&"select i1 ", &big, &", double 0.0, double ", &rw]);
                            let ri = opv!(self, [&conv_back, &" double ", &safe, &" to i64"]);
                            let g = opv!(self, [&"icmp ", &sgt, &" i64 ", &ri, &", ", &x]);
                            let l = opv!(self, [&"icmp ", &slt, &" i64 ", &ri, &", ", &x]);
                            let gt = opv!(self, [&"or i1 ", &big, &", ", &g]);
                            let nb = opv!(self, [&"xor i1 ", &big, &", true"]);
                            let lt = opv!(self, [&"and i1 ", &nb, &", ", &l]);
                            (gt, lt)
                        };
                        self.directed_fix(m, dt, &r, &gt, &lt)
                    }
                    _ => return fail(&form(), "integer-to-float rounding"),
                }
            }
            (true, true) => {
                let (sb, db) = (st.bits(), dt.bits());
                if st == dt || (sb == db) {
                    // Same type: round to an integral value (.rni/.rzi/.rmi/.rpi) or copy.
                    let f = match rnd {
                        Some("rni") => Some("roundeven"),
                        Some("rzi") => Some("trunc"),
                        Some("rmi") => Some("floor"),
                        Some("rpi") => Some("ceil"),
                        None | Some("rn") => None,
                        _ => return fail(&form(), "float conversion rounding"),
                    };
                    if st != dt {
                        return fail(&form(), "f16 ↔ bf16 conversion");
                    }
                    match f {
                        Some(f) => self.intr1(f, st, &a),
                        None => a,
                    }
                } else if sb < db {
                    let x = if st == Ty::Bf16 && dt == Ty::F64 {
                        let t = opv!(self, [&"fpext bfloat ", &a, &" to float"]);
                        opv!(self, [&"fpext float ", &t, &" to double"])
                    } else {
                        opv!(self, [&"fpext ", &(st.ll()), &" ", &a, &" to ", &(dt.ll())])
                    };
                    x
                } else {
                    match rnd {
                        Some("rn") | None
                            if !(st == Ty::F64 && matches!(dt, Ty::F16 | Ty::Bf16)) =>
                        {
                            opv!(
                                self,
                                [&"fptrunc ", &(st.ll()), &" ", &a, &" to ", &(dt.ll())]
                            )
                        }
                        Some(m @ ("rz" | "rm" | "rp")) if st == Ty::F64 && dt == Ty::F32 => {
                            let f = format!("__wp_cvt_{m}_f32_f64");
                            self.call(&f, dt, &[(st, &a)])
                        }
                        Some(m @ ("rz" | "rm" | "rp")) if matches!(dt, Ty::F16 | Ty::Bf16) => {
                            // Nearest, then one step toward the mode's direction when it is
                            // on the wrong side of the exact value (compared in f64, exact).
                            let r = self.half_rn(&a, st, dt);
                            let (rw, xw) = if st == Ty::F64 {
                                (
                                    opv!(self, [&"fpext ", &(dt.ll()), &" ", &r, &" to double"]),
                                    a,
                                )
                            } else {
                                let rw =
                                    opv!(self, [&"fpext ", &(dt.ll()), &" ", &r, &" to float"]);
                                (rw, a)
                            };
                            let wl = if st == Ty::F64 { "double" } else { "float" };
                            let gt = opv!(self, [&"fcmp ogt ", &wl, &" ", &rw, &", ", &xw]);
                            let lt = opv!(self, [&"fcmp olt ", &wl, &" ", &rw, &", ", &xw]);
                            self.directed_fix(m, dt, &r, &gt, &lt)
                        }
                        Some("rn") if st == Ty::F64 && matches!(dt, Ty::F16 | Ty::Bf16) => {
                            self.half_rn(&a, st, dt)
                        }
                        _ => return fail(&form(), "float narrowing rounding"),
                    }
                }
            }
        };
        let r = if mods.contains(&".relu") {
            self.relu(dt, &r)
        } else {
            r
        };
        let r = self.sat(mods, dt, &r);
        let r = if dt == Ty::F32 {
            self.ftz_out(mods, dt, &r)
        } else {
            r
        };
        self.wr(&ops[0], &r, dt, false)
    }

    /// `a` (f32 or f64) rounded to nearest-even in `dt` (f16 or bf16). From f64 it goes
    /// through f32 rounded to odd (toward zero, lowest bit set when inexact), which has enough
    /// extra bits that the second rounding is exact (no double rounding).
    fn half_rn(&mut self, a: &str, st: Ty, dt: Ty) -> V {
        let src = a.to_string();
        let a = if st == Ty::F64 {
            let t = self.call("__wp_cvt_rz_f32_f64", Ty::F32, &[(Ty::F64, a)]);
            let back = opv!(self, [&"fpext float ", &t, &" to double"]);
            let inexact = opv!(self, [&"fcmp one double ", &back, &", ", &a]);
            let b = opv!(self, [&"bitcast float ", &t, &" to i32"]);
            let o = opv!(self, [&"or i32 ", &b, &", 1"]);
            let b = opv!(
                self,
                [&"select i1 ", &inexact, &", i32 ", &o, &", i32 ", &b]
            );
            opv!(self, [&"bitcast i32 ", &b, &" to float"])
        } else {
            V::new(a)
        };
        let r = opv!(self, [&"fptrunc float ", &a, &" to ", &(dt.ll())]);
        if st != Ty::F64 {
            return r;
        }
        // NaN from f64: the sign and the quiet bit only (the H200's cvt.rn.f16.f64).
        let h = opv!(self, [&"bitcast ", &(dt.ll()), &" ", &r, &" to i16"]);
        let sb = opv!(self, [&"bitcast double ", &src, &" to i64"]);
        let sb = opv!(self, [&"lshr i64 ", &sb, &", 48"]);
        let sb = opv!(self, [&"trunc i64 ", &sb, &" to i16"]);
        let sign = opv!(self, [&"and i16 ", &sb, &", -32768"]);
        let q = if dt == Ty::F16 { "32256" } else { "32704" };
        let qn = opv!(self, [&"or i16 ", &sign, &", ", &q]);
        let nan = opv!(self, [&"fcmp uno ", &(dt.ll()), &" ", &r, &", 0.0"]);
        let h = opv!(self, [&"select i1 ", &nan, &", i16 ", &qn, &", i16 ", &h]);
        opv!(self, [&"bitcast i16 ", &h, &" to ", &(dt.ll())])
    }

    /// Directed rounding from the nearest value `r` (type `t`, IEEE binary): `gt` / `lt` say
    /// whether `r` is above / below the exact value. `rz` steps toward zero when `r` is farther
    /// from zero, `rm` down when above, `rp` up when below (PTX ISA 9.x §9.7.9.21 rounding
    /// modifiers). A step is ±1 on the bit pattern (from ±0 to the smallest subnormal; from an
    /// infinity to the largest finite value).
    fn directed_fix(&mut self, m: &str, t: Ty, r: &str, gt: &str, lt: &str) -> V {
        let it = Ty::int(t.bits());
        let il = it.ll();
        let sign_bit: i128 = 1i128 << (t.bits() - 1);
        let b = opv!(self, [&"bitcast ", &(t.ll()), &" ", &r, &" to ", &il]);
        let neg = opv!(self, [&"icmp slt ", &il, &" ", &b, &", 0"]);
        let mag = opv!(self, [&"and ", &il, &" ", &b, &", ", &(sign_bit - 1)]);
        let zero = opv!(self, [&"icmp eq ", &il, &" ", &mag, &", 0"]);
        let inc = opv!(self, [&"add ", &il, &" ", &b, &", 1"]);
        let dec = opv!(self, [&"sub ", &il, &" ", &b, &", 1"]);
        // Up: away from zero when positive; down: away from zero when negative.
        let up0 = self.select(&neg, il, &dec, &inc);
        let up = opv!(
            self,
            [&"select i1 ", &zero, &", ", &il, &" 1, ", &il, &" ", &up0]
        );
        let dn0 = self.select(&neg, il, &inc, &dec);
        let neg_min = imm(ImmValue::Int((sign_bit | 1) as i64), it);
        let dn = self.select(&zero, il, &neg_min, &dn0);
        let (go_dn, go_up) = match m {
            "rm" => (V::new(gt), V::new("false")),
            "rp" => (V::new("false"), V::new(lt)),
            _ => {
                let pos = opv!(self, [&"xor i1 ", &neg, &", true"]);
                let d = opv!(self, [&"and i1 ", &gt, &", ", &pos]);
                let u = opv!(self, [&"and i1 ", &lt, &", ", &neg]);
                (d, u)
            }
        };
        let v = self.select(&go_up, il, &up, &b);
        let v = self.select(&go_dn, il, &dn, &v);
        opv!(self, [&"bitcast ", &il, &" ", &v, &" to ", &(t.ll())])
    }

    fn relu(&mut self, t: Ty, v: &str) -> V {
        // Negative values and -0.0 become +0.0; NaN stays (PTX ISA 9.x .relu; the H200 gives
        // +0.0 for -0.0).
        let z = opv!(self, [&"fcmp ole ", &(t.ll()), &" ", &v, &", 0.0"]);
        opv!(
            self,
            [
                &"select i1 ",
                &z,
                &", ",
                &(t.ll()),
                &" 0.0, ",
                &(t.ll()),
                &" ",
                &v
            ]
        )
    }

    /// Integer → integer conversion with `.sat`: clamp to the destination's range.
    fn int_sat(&mut self, a: &str, st: Ty, ss: bool, dt: Ty, ds: bool) -> V {
        let wt = Ty::I128;
        let e = if ss { "sext" } else { "zext" };
        let x = opv!(self, [&e, &" ", &(st.ll()), &" ", &a, &" to i128"]);
        let db = dt.bits();
        let (lo, hi): (i128, i128) = if ds {
            (-(1i128 << (db - 1)), (1i128 << (db - 1)) - 1)
        } else {
            (0, (1i128 << db) - 1)
        };
        let m = self.intr2("smax", wt, &x, &lo.to_string());
        let m = self.intr2("smin", wt, &m, &hi.to_string());
        opv!(self, [&"trunc i128 ", &m, &" to ", &(dt.ll())])
    }

    fn atom(&mut self, ret: bool, mods: &[&'a str], tys: &[Type], ops: &[Operand<'a>]) -> R<()> {
        let cur = self.cur;
        let form = || cur.map(form_of).unwrap_or_default();
        let s = space_of(mods).map_err(|mut f| {
            f.form = form();
            f
        })?;
        let Some(&pt) = tys.last() else {
            return fail(&form(), "atom without a type");
        };
        if Self::vec_len(mods) != 1 {
            return fail(&form(), "vector atomics");
        }
        let (t, k) = of_ptx(pt).ok_or_else(|| Fail {
            form: form(),
            reason: "type".into(),
        })?;
        let ss = syncscope(self.cx.nv, mods);
        let ord = if mods.contains(&".acquire") {
            "acquire"
        } else if mods.contains(&".release") {
            "release"
        } else if mods.contains(&".acq_rel") {
            "acq_rel"
        } else {
            "monotonic"
        };
        let (ai, di) = if ret { (1, Some(0)) } else { (0, None) };
        let (p, aspace) = self.addr(&ops[ai], s)?;
        let pty = ptr_ty(aspace);
        let ll = t.ll();
        let opn = mods
            .iter()
            .find(|m| {
                matches!(
                    **m,
                    ".and"
                        | ".or"
                        | ".xor"
                        | ".exch"
                        | ".add"
                        | ".inc"
                        | ".dec"
                        | ".min"
                        | ".max"
                        | ".cas"
                )
            })
            .copied()
            .ok_or_else(|| Fail {
                form: form(),
                reason: "atomic operation".into(),
            })?;
        let b = self.rd(&ops[ai + 1], t, false)?;
        let old = if opn == ".cas" {
            let c = self.rd(&ops[ai + 2], t, false)?;
            let (it, b, c) = if t.is_float() {
                let it = Ty::int(t.bits());
                let b2 = self.fit(&b, t, it, false);
                let c2 = self.fit(&c, t, it, false);
                (it, b2, c2)
            } else {
                (t, b, c)
            };
            let failure = match ord {
                "release" => "monotonic",
                "acq_rel" => "acquire",
                o => o,
            };
            let r = opv!(
                self,
                [
                    &"cmpxchg ",
                    &pty,
                    &" ",
                    &p,
                    &", ",
                    &(it.ll()),
                    &" ",
                    &b,
                    &", ",
                    &(it.ll()),
                    &" ",
                    &c,
                    &ss,
                    &" ",
                    &ord,
                    &" ",
                    &failure,
                ]
            );
            let v = opv!(
                self,
                [&"extractvalue { ", &(it.ll()), &", i1 } ", &r, &", 0"]
            );
            self.fit(&v, it, t, false)
        } else {
            let f = k == Kind::Float;
            let s = k == Kind::Signed;
            let rmw = match (opn, f, s) {
                (".add", true, _) => "fadd",
                (".add", false, _) => "add",
                (".and", false, _) => "and",
                (".or", false, _) => "or",
                (".xor", false, _) => "xor",
                (".exch", _, _) => "xchg",
                (".inc", false, false) => "uinc_wrap",
                (".dec", false, false) => "udec_wrap",
                (".min", false, true) => "min",
                (".max", false, true) => "max",
                (".min", false, false) => "umin",
                (".max", false, false) => "umax",
                (".min", true, _) => "fmin",
                (".max", true, _) => "fmax",
                _ => return fail(&form(), "atomic operation on this type"),
            };
            opv!(
                self,
                [
                    &"atomicrmw ",
                    &rmw,
                    &" ",
                    &pty,
                    &" ",
                    &p,
                    &", ",
                    &ll,
                    &" ",
                    &b,
                    &ss,
                    &" ",
                    &ord,
                    &", align ",
                    &(t.bits() / 8),
                ]
            )
        };
        if let Some(d) = di {
            self.wr(&ops[d], &old, t, false)?;
        }
        Ok(())
    }

    fn bar(&mut self, mods: &[&str], ops: &[Operand<'a>]) -> R<()> {
        let cur = self.cur;
        let form = || cur.map(form_of).unwrap_or_default();
        if mods.contains(&".red") {
            // bar.red.popc.u32 d, a{, b}, {!}c / bar.red.{and,or}.pred p, a{, b}, {!}c
            // (PTX ISA 9.x §9.7.13.1): a CTA barrier that also reduces c over the CTA's
            // threads (the support library's @__wp_bar_red_*). Barrier 0 over all threads.
            if ops.len() != 3 {
                return fail(&form(), "bar.red with a thread count");
            }
            let id = match &ops[1] {
                Operand::Imm(i) => imm(i.value(), Ty::I32).into(),
                o => self.rd(o, Ty::I32, false)?,
            };
            if id != "0" {
                return fail(&form(), "bar.red on a barrier other than 0");
            }
            let c = self.rd(&ops[2], Ty::I1, false)?;
            let (f, rt) = if mods.contains(&".popc") {
                ("__wp_bar_red_popc", Ty::I32)
            } else if mods.contains(&".and") {
                ("__wp_bar_red_and", Ty::I1)
            } else if mods.contains(&".or") {
                ("__wp_bar_red_or", Ty::I1)
            } else {
                return fail(&form(), "bar.red operation");
            };
            let r = self.call(f, rt, &[(Ty::I32, &id), (Ty::I1, &c)]);
            return self.wr(&ops[0], &r, rt, false);
        }
        if mods.contains(&".arrive") {
            return fail(&form(), "bar.arrive is not lowered");
        }
        if !(mods.contains(&".sync") || mods.is_empty()) {
            return fail(&form(), "barrier form");
        }
        let id = match ops.first() {
            Some(Operand::Imm(i)) => imm(i.value(), Ty::I32).into(),
            Some(o) => self.rd(o, Ty::I32, false)?,
            None => "0".into(),
        };
        if ops.len() > 1 {
            if self.cx.nv {
                let c = self.rd(&ops[1], Ty::I32, false)?;
                self.call_void("__wp_bar_sync_cnt", &[(Ty::I32, &id), (Ty::I32, &c)]);
                return Ok(());
            }
            return fail(&form(), "a barrier with a thread count (named barriers)");
        }
        if id != "0" && !self.cx.nv {
            return fail(&form(), "a named barrier other than 0");
        }
        self.call_void("__wp_bar_sync", &[(Ty::I32, &id)]);
        Ok(())
    }

    fn callinst(&mut self, i: &'m Instruction<'a>, ops: &[Operand<'a>]) -> R<()> {
        let cur = self.cur;
        let form = || cur.map(form_of).unwrap_or_default();
        // call [(rets),] target [, (args)] [, proto|targets]
        let mut k = 0;
        let rets: &[Operand<'a>] = match ops.first() {
            Some(Operand::List(l)) => {
                k = 1;
                l
            }
            _ => &[],
        };
        let target = ops.get(k).ok_or_else(|| Fail {
            form: form(),
            reason: "call without a target".into(),
        })?;
        let args: &[Operand<'a>] = match ops.get(k + 1) {
            Some(Operand::List(l)) => l,
            _ => &[],
        };
        let _ = i;
        let (callee, sig) = match target {
            Operand::Func(n) | Operand::Symbol(n) if self.cx.funcs.contains_key(n.as_str()) => {
                let sig = self.cx.funcs[n.as_str()].clone();
                (V::from(format!("@{}", sig.llname)), sig)
            }
            Operand::Reg(r) => {
                // Indirect: the prototype gives the signature.
                let proto = match ops.get(k + 2) {
                    Some(Operand::Label(l)) | Some(Operand::Symbol(l)) => {
                        self.protos.get(l.as_str()).copied()
                    }
                    _ => None,
                };
                let sig = match proto {
                    Some(p) => Sig {
                        llname: String::new(),
                        params: p
                            .params
                            .iter()
                            .flat_map(|v| v.decls.iter().map(move |d| slot_of(v, d)))
                            .collect::<Option<Vec<_>>>()
                            .unwrap_or_default(),
                        rets: p
                            .returns
                            .iter()
                            .flat_map(|v| v.decls.iter().map(move |d| slot_of(v, d)))
                            .collect::<Option<Vec<_>>>()
                            .unwrap_or_default(),
                    },
                    None => {
                        // .calltargets: all targets share the signature of the first.
                        let tl = match ops.get(k + 2) {
                            Some(Operand::Label(l)) | Some(Operand::Symbol(l)) => {
                                self.btargets.get(l.as_str()).copied()
                            }
                            _ => None,
                        };
                        match tl
                            .and_then(|t| t.targets.first())
                            .and_then(|f| self.cx.funcs.get(f))
                        {
                            Some(s) => s.clone(),
                            None => return fail(&form(), "indirect call without a prototype"),
                        }
                    }
                };
                let v = self.rd_reg(r, Ty::I64, false)?;
                let p = opv!(self, [&"inttoptr i64 ", &v, &" to ptr"]);
                (p, sig)
            }
            _ => return fail(&form(), "call target"),
        };
        if sig.params.len() != args.len() || sig.rets.len() != rets.len() {
            return fail(
                &form(),
                "call with a parameter count that does not match the callee",
            );
        }
        let mut av = Vec::new();
        for (a, slot) in args.iter().zip(&sig.params) {
            av.push(format!("{} {}", slot.ll(), self.load_slot(a, slot)?));
        }
        let rt = sig.ret_ll();
        let call = format!("call {rt} {callee}({})", av.join(", "));
        if sig.rets.is_empty() {
            linev!(self, [&call]);
        } else {
            let r = opv!(self, [&call]);
            if sig.rets.len() == 1 {
                self.store_slot(&rets[0], &r, &sig.rets[0])?;
            } else {
                for (k, (d, slot)) in rets.iter().zip(&sig.rets).enumerate() {
                    let x = opv!(self, [&"extractvalue ", &rt, &" ", &r, &", ", &k]);
                    self.store_slot(d, &x, slot)?;
                }
            }
        }
        if sig.llname == "__wp_vprintf" {
            self.notes
                .push("vprintf output is dropped on this target".into());
        }
        Ok(())
    }

    /// The value of an argument: a `.param` variable's bytes, or a register / immediate.
    fn load_slot(&mut self, a: &Operand<'a>, slot: &Slot) -> R<V> {
        if let Operand::Symbol(n) | Operand::Reg(n) = a {
            if let Some(Local::Mem { ptr, aspace }) = self.lookup(n) {
                return Ok(opv!(
                    self,
                    [&"load ", &(slot.ll()), &", ", &(ptr_ty(aspace)), &" ", &ptr,]
                ));
            }
        }
        match (slot, a) {
            (Slot::Scalar(b), Operand::Symbol(n)) => self.rd_reg(n, Ty::int(*b), false),
            (Slot::Scalar(b), _) => self.rd(a, Ty::int(*b), false),
            (Slot::Bytes(..), _) => fail(&self.form(), "byte-array argument from a register"),
        }
    }

    fn store_slot(&mut self, d: &Operand<'a>, v: &str, slot: &Slot) -> R<()> {
        if let Operand::Symbol(n) | Operand::Reg(n) = d {
            if let Some(Local::Mem { ptr, aspace }) = self.lookup(n) {
                linev!(
                    self,
                    [
                        &"store ",
                        &(slot.ll()),
                        &" ",
                        &v,
                        &", ",
                        &(ptr_ty(aspace)),
                        &" ",
                        &ptr,
                    ]
                );
                return Ok(());
            }
        }
        match slot {
            Slot::Scalar(b) => self.wr(d, v, Ty::int(*b), false),
            Slot::Bytes(..) => fail(&self.form(), "byte-array result into a register"),
        }
    }
}

/// How many modifiers [`split_modifiers`] splits into a caller's array.
const MODS_INLINE: usize = 16;

/// [`Type::from_name`] of a modifier, answering `None` at once for the many modifiers whose
/// first letter no type name has (`.global`, `.rn`, `.lo`, `.wide`, `.v4`, ...).
#[inline]
fn mod_type(m: &str) -> Option<Type> {
    match m.as_bytes().get(1) {
        // The second byte of every type name in `Type::from_name` (`.b8`, `.u32`, `.s16`,
        // `.f16x2`, `.bf16`, `.tf32`, `.e4m3`, `.pred`, `.texref`, `.samplerref`, `.surfref`).
        Some(b'b' | b'u' | b's' | b'f' | b't' | b'e' | b'p') => Type::from_name(m),
        _ => None,
    }
}

/// The end of a function's head: the entry block branches to the body's first block.
const BR_START: &str = "  br label %start\nstart:\n";

/// The modifiers of an instruction, each with its dot, in order (as [`Modifiers::iter`]),
/// written to `out`, returning their number: split at the dots directly when the span is one
/// `.a.b.c` run without spaces or comments (the usual case). `None` (the caller uses the AST's
/// iterator) otherwise or when there are more than [`MODS_INLINE`].
fn split_modifiers<'a>(m: &Modifiers<'a>, out: &mut [&'a str; MODS_INLINE]) -> Option<usize> {
    let s = m.span();
    let b = s.as_bytes();
    if b.is_empty() {
        return Some(0);
    }
    let plain = b[0] == b'.'
        && b.iter()
            .all(|&c| c.is_ascii_alphanumeric() || matches!(c, b'.' | b'_' | b'$' | b':'));
    if !plain {
        return None;
    }
    let mut n = 0;
    let mut start = 0;
    for (k, &c) in b.iter().enumerate().skip(1) {
        if c == b'.' {
            *out.get_mut(n)? = &s[start..k];
            n += 1;
            start = k;
        }
    }
    *out.get_mut(n)? = &s[start..];
    Some(n + 1)
}

/// `%rd12` → (`%rd`, Some(12)): the name without its decimal suffix and the suffix's value,
/// `None` when there is no suffix, the name is all digits, the suffix has a leading zero
/// (`%r01` is not generated by a range) or overflows `u32`.
fn split_digits(name: &str) -> (&str, Option<u32>) {
    let b = name.as_bytes();
    // Fast path: up to 9 digits, accumulated from the last one (no overflow possible).
    let mut i = b.len();
    let mut n: u32 = 0;
    let mut mul: u32 = 1;
    while i > 0 && b.len() - i < 9 {
        let d = b[i - 1].wrapping_sub(b'0');
        if d > 9 {
            break;
        }
        n += d as u32 * mul;
        mul = mul.wrapping_mul(10);
        i -= 1;
    }
    if i > 0 && b[i - 1].is_ascii_digit() {
        return split_digits_long(name);
    }
    if i == b.len() || i == 0 {
        return (name, None);
    }
    // `%r01` is not `%r<N>`-generated: leading zeros are not produced by a range.
    if b[i] == b'0' && i + 1 < b.len() {
        return (name, None);
    }
    (&name[..i], Some(n))
}

/// [`split_digits`] of a name ending in more than 9 digits (with overflow checks).
#[cold]
fn split_digits_long(name: &str) -> (&str, Option<u32>) {
    let b = name.as_bytes();
    let mut i = b.len();
    while i > 0 && b[i - 1].is_ascii_digit() {
        i -= 1;
    }
    if i == b.len() || i == 0 {
        return (name, None);
    }
    if b[i] == b'0' && i + 1 < b.len() {
        return (name, None);
    }
    let mut n: u32 = 0;
    for &c in &b[i..] {
        match n
            .checked_mul(10)
            .and_then(|n| n.checked_add((c - b'0') as u32))
        {
            Some(v) => n = v,
            None => return (&name[..i], None),
        }
    }
    (&name[..i], Some(n))
}

fn label_name(l: &str) -> String {
    // `ident('%', "L.<l>")` without the sigil: "L." starts with a letter, so only `l`'s
    // characters decide whether the name needs quotes.
    let bare = l
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'$' || b == b'.');
    let mut s = String::with_capacity(l.len() + 4);
    if !bare {
        s.push('"');
    }
    s.push_str("L.");
    s.push_str(l);
    if !bare {
        s.push('"');
    }
    s
}

/// LLVM text of one module-scope (or hoisted function-scope) variable, and its address space.
pub(crate) fn global_text(
    cx: &ModCx<'_, '_>,
    v: &VarDecl<'_>,
    d: &Declarator<'_>,
    gname: &str,
) -> R<(String, u32)> {
    let a = &cx.prof.addrspace;
    let aspace = match v.space {
        StateSpace::Global => a.global,
        StateSpace::Const => a.r#const,
        StateSpace::Shared | StateSpace::SharedCta => a.shared,
        s => return fail("", format!("module-scope {} variable", s.as_str())),
    };
    let eb = (v.ty.bits() / 8).max(1) as u64 * v.vector.unwrap_or(1) as u64;
    let unsized_ = d.array.iter().any(|x| x.is_none());
    let n: u64 = d
        .array
        .iter()
        .map(|x| x.unwrap_or(0))
        .product::<u64>()
        .max(if d.array.is_empty() { 1 } else { 0 });
    let size = n * eb;
    let align = v.align.unwrap_or(eb.min(16) as u32).max(1);
    let name = ident('@', gname);
    let extern_ = v.linkage == Some(Linkage::Extern);
    let linkage = match v.linkage {
        Some(Linkage::Extern) => "external ",
        Some(Linkage::Visible) => "",
        Some(Linkage::Weak) => "weak ",
        Some(Linkage::Common) => "common ",
        // A `.global`/`.const` variable without linkage is still looked up by name by the
        // host (`__cudaRegisterVar`, `cudaMemcpyToSymbol`): it must stay in the output and
        // its loads must not be folded to the initializer, so it is not `internal`.
        None if v.space != StateSpace::Shared && v.space != StateSpace::SharedCta => "",
        None => "internal ",
    };
    let konst = if v.space == StateSpace::Const {
        "constant"
    } else {
        "global"
    };
    let shared = aspace == a.shared;
    let mut s = String::new();
    if extern_ || (unsized_ && d.init.is_none()) {
        let _ = writeln!(
            s,
            "{name} = external addrspace({aspace}) {konst} [{} x i8], align {align}",
            if unsized_ { 0 } else { size }
        );
        return Ok((s, aspace));
    }
    let init = if shared {
        "poison".to_string()
    } else {
        match &d.init {
            None => "zeroinitializer".to_string(),
            Some(_) => init_text(cx, v, d, size)?,
        }
    };
    let ty = if init.starts_with("<{") {
        init_type(&init)
    } else {
        format!("[{size} x i8]")
    };
    let linkage = if shared && linkage == "common " {
        "internal "
    } else {
        linkage
    };
    let _ = writeln!(
        s,
        "{name} = {linkage}addrspace({aspace}) {konst} {ty} {init}, align {align}"
    );
    Ok((s, aspace))
}

/// The type spelled at the start of a packed-struct initializer we produced.
fn init_type(init: &str) -> String {
    // init is "<{ T1 v1, T2 v2 }>" where every Ti is `[N x i8]` or `i64`; the type repeats
    // each element type.
    let mut tys = Vec::new();
    let inner = &init[2..init.len() - 2];
    let mut depth = 0;
    let mut start = 0;
    let b = inner.as_bytes();
    for (i, &c) in b.iter().enumerate() {
        match c {
            b'(' | b'[' | b'<' | b'{' => depth += 1,
            b')' | b']' | b'>' | b'}' => depth -= 1,
            b',' if depth == 0 => {
                tys.push(elem_type(inner[start..i].trim()));
                start = i + 1;
            }
            _ => {}
        }
    }
    tys.push(elem_type(inner[start..].trim()));
    format!("<{{ {} }}>", tys.join(", "))
}

fn elem_type(e: &str) -> String {
    if e.starts_with('[') {
        let end = e.find(']').unwrap_or(e.len() - 1);
        e[..=end].to_string()
    } else {
        e.split_whitespace().next().unwrap_or("i64").to_string()
    }
}

/// Initializer bytes, with address-of elements (PTX ISA 9.x §5.4.4) as pointer-sized
/// relocations: a packed struct of byte runs and `i64 ptrtoint` / `i32 ptrtoint` elements.
fn init_text(cx: &ModCx<'_, '_>, v: &VarDecl<'_>, d: &Declarator<'_>, size: u64) -> R<String> {
    if let Some(bytes) = v.init_bytes(d) {
        let mut b = bytes;
        b.resize(size as usize, 0);
        return Ok(bytes_const(&b));
    }
    // Address initializers: walk elements.
    let eb = (v.ty.bits() / 8).max(1) as usize;
    let mut parts: Vec<String> = Vec::new();
    let mut run: Vec<u8> = Vec::new();
    let mut total = 0usize;
    fn walk(
        cx: &ModCx<'_, '_>,
        i: &Init<'_>,
        eb: usize,
        run: &mut Vec<u8>,
        parts: &mut Vec<String>,
        total: &mut usize,
    ) -> R<()> {
        match i {
            Init::List(l) => {
                for x in l {
                    walk(cx, x, eb, run, parts, total)?;
                }
            }
            Init::Imm(imm_) => {
                let t = Ty::int((eb * 8) as u32);
                let s = imm(
                    imm_.value(),
                    if eb == 4 || eb == 8 || eb == 2 || eb == 1 {
                        t
                    } else {
                        Ty::I64
                    },
                );
                let u: i64 = s.parse().unwrap_or(0);
                run.extend_from_slice(&u.to_le_bytes()[..eb.min(8)]);
                *total += eb;
            }
            Init::Symbol {
                name,
                generic,
                offset,
            } => {
                if eb != 8 && eb != 4 {
                    return fail("", "address initializer in a non-pointer-sized element");
                }
                if !run.is_empty() {
                    parts.push(bytes_part(run));
                    run.clear();
                }
                let (p, a) = if let Some((g, a)) = cx.globals.get(name) {
                    (g.clone(), *a)
                } else if let Some(s) = cx.funcs.get(name) {
                    (format!("@{}", s.llname), 0)
                } else {
                    return fail("", format!("address of unknown symbol {name}"));
                };
                let mut e = p.clone();
                let mut ea = a;
                if *generic && a != cx.prof.addrspace.generic {
                    e = format!("addrspacecast ({} {e} to ptr)", ptr_ty(a));
                    ea = cx.prof.addrspace.generic;
                }
                if *offset != 0 {
                    e = format!("getelementptr (i8, {} {e}, i64 {offset})", ptr_ty(ea));
                }
                let it = if eb == 8 { "i64" } else { "i32" };
                parts.push(format!("{it} ptrtoint ({} {e} to {it})", ptr_ty(ea)));
                *total += eb;
            }
            Init::Field { .. } => return fail("", "opaque-type initializer"),
        }
        Ok(())
    }
    walk(
        cx,
        d.init.as_ref().unwrap(),
        eb,
        &mut run,
        &mut parts,
        &mut total,
    )?;
    if (total as u64) < size {
        run.resize(run.len() + (size as usize - total), 0);
    }
    if !run.is_empty() {
        parts.push(bytes_part(&run));
    }
    Ok(format!("<{{ {} }}>", parts.join(", ")))
}

/// An `[N x i8]` constant's value (without the type).
fn bytes_const(b: &[u8]) -> String {
    if b.iter().all(|&x| x == 0) {
        return "zeroinitializer".into();
    }
    let mut s = String::with_capacity(b.len() * 3 + 4);
    s.push_str("c\"");
    for &x in b {
        if x.is_ascii_alphanumeric() || x == b' ' {
            s.push(x as char);
        } else {
            let _ = write!(s, "\\{x:02X}");
        }
    }
    s.push('"');
    s
}

fn bytes_part(b: &[u8]) -> String {
    format!("[{} x i8] {}", b.len(), bytes_const(b))
}

/// Emit `f` as a complete LLVM function definition appended to `out`; returns its notes.
///
/// The body is written straight into `out` (no per-function string copied afterwards); the
/// header and the entry block's allocas, known only at the end, are inserted in front of it.
/// On failure `out` is left as it was.
pub(crate) fn emit_function<'m, 'a>(
    cx: &mut ModCx<'m, 'a>,
    f: &'m Function<'a>,
    header_params: &str,
    // Entry: how each parameter arrives. For kernels (kernarg pointer or value), for funcs
    // (value).
    param_homes: &[ParamHome],
    attrs: &str,
    out: &mut String,
) -> R<Vec<String>> {
    let start = out.len();
    let pa = ptr_ty(cx.alloca_as);
    // The module's reusable buffer: header line, `entry:`, then the allocas.
    let mut head = std::mem::take(&mut cx.alloca_buf);
    head.clear();
    head.push_str(header_params);
    head.push(' ');
    head.push_str(attrs);
    head.push_str(" {\nentry:\n");
    let mut fx = Fx {
        cx,
        reg_text: RegText::new(&pa),
        body: std::mem::take(out),
        allocas: head,
        head_at: None,
        has_cc: false,
        tmp: 0,
        nreg: 0,
        nblk: 0,
        terminated: false,
        scopes: vec![Scope::default()],
        pa,
        rets: Vec::new(),
        ret_names: Vec::new(),
        is_kernel: f.kind == FunctionKind::Entry,
        cur: None,
        protos: HashMap::default(),
        btargets: HashMap::default(),
        labels_seen: HashMap::default(),
        notes: Vec::new(),
    };
    let r = function_body(&mut fx, f, param_homes);
    let mut text = std::mem::take(&mut fx.body);
    if let Err(e) = r {
        text.truncate(start);
        *out = text;
        fx.cx.alloca_buf = std::mem::take(&mut fx.allocas);
        return Err(e);
    }
    let mut head = std::mem::take(&mut fx.allocas);
    match fx.head_at {
        // Allocas declared after the first statement (in nested blocks, call sequences, the
        // carry flag) go after the ones already written.
        Some((at, done)) => {
            if head.len() > done {
                text.insert_str(at, &head[done..]);
            }
        }
        None => {
            head.push_str(BR_START);
            text.insert_str(start, &head);
        }
    }
    text.push_str("}\n\n");
    *out = text;
    fx.cx.alloca_buf = head;
    let mut notes = fx.notes;
    notes.sort();
    notes.dedup();
    Ok(notes)
}

/// The parameters' homes, the body and the return block of `f`, into `fx.body`.
fn function_body<'m, 'a>(
    fx: &mut Fx<'_, 'm, 'a>,
    f: &'m Function<'a>,
    param_homes: &[ParamHome],
) -> R<()> {
    // Parameters.
    let mut k = 0;
    for v in &f.params {
        for d in &v.decls {
            let h = &param_homes[k];
            k += 1;
            match h {
                ParamHome::Pointer { ptr, aspace } => {
                    fx.scopes[0].add_name(
                        d.name,
                        Local::Mem {
                            ptr: ptr.clone(),
                            aspace: *aspace,
                        },
                    );
                }
                ParamHome::Value { arg, slot } => {
                    if v.space == StateSpace::Reg {
                        fx.declare_reg(d.name, None, v.ty)?;
                        let Some(Local::Reg { id, bits }) = fx.lookup(d.name) else {
                            unreachable!()
                        };
                        let _ = writeln!(
                            fx.allocas,
                            "  store {} {arg}, {} %r{id}",
                            Ty::int(bits).ll(),
                            fx.pa
                        );
                    } else {
                        let p = fx.alloca_bytes(slot.size(), slot.align());
                        let _ = writeln!(fx.allocas, "  store {} {arg}, {} {p}", slot.ll(), fx.pa);
                        let aspace = fx.cx.alloca_as;
                        fx.scopes[0].add_name(d.name, Local::Mem { ptr: p, aspace });
                    }
                }
            }
        }
    }
    // Return parameters.
    for v in &f.returns {
        for d in &v.decls {
            let Some(slot) = slot_of(v, d) else {
                return fail("", "return parameter of unsized type");
            };
            if v.space == StateSpace::Reg {
                fx.declare_reg(d.name, None, v.ty)?;
            } else {
                let p = fx.alloca_bytes(slot.size(), slot.align());
                let aspace = fx.cx.alloca_as;
                fx.scopes[0].add_name(d.name, Local::Mem { ptr: p, aspace });
            }
            fx.rets.push((Operand::Symbol(d.name.into()), slot));
            fx.ret_names.push(d.name);
        }
    }
    if let Some(b) = &f.body {
        fx.block(b)?;
    }
    fx.flush_head();
    if !fx.terminated {
        linev!(fx, [&"br label %ret"]);
    }
    let _ = writeln!(fx.body, "ret:");
    let sig_rets: Vec<Slot> = fx.rets.iter().map(|(_, s)| s.clone()).collect();
    let rets = fx.rets.clone();
    let ret_ll = Sig {
        llname: String::new(),
        params: Vec::new(),
        rets: sig_rets,
    }
    .ret_ll();
    let mut vals = Vec::new();
    for (o, slot) in &rets {
        let v = fx.load_slot(o, slot)?;
        vals.push(v);
    }
    match vals.len() {
        0 => linev!(fx, [&"ret void"]),
        1 => linev!(fx, [&"ret ", &ret_ll, &" ", &(vals[0])]),
        _ => {
            let mut acc = V::new("poison");
            for (k, (v, (_, s))) in vals.iter().zip(&rets).enumerate() {
                acc = opv!(
                    fx,
                    [
                        &"insertvalue ",
                        &ret_ll,
                        &" ",
                        &acc,
                        &", ",
                        &(s.ll()),
                        &" ",
                        &v,
                        &", ",
                        &k,
                    ]
                );
            }
            linev!(fx, [&"ret ", &ret_ll, &" ", &acc]);
        }
    }
    Ok(())
}

/// How a parameter arrives in the emitted function.
pub(crate) enum ParamHome {
    /// In memory (kernel byte arrays: kernarg/byval pointer).
    Pointer { ptr: V, aspace: u32 },
    /// As an SSA argument value.
    Value { arg: V, slot: Slot },
}

#[allow(dead_code)]
pub(crate) fn family_is_nv(p: &Profile) -> bool {
    p.family == Family::Nvptx
}
