//! Launch facts: the block sizes with which the host code launches each kernel.
//!
//! A PTX kernel without `.maxntid`/`.reqntid` may be launched with up to 1,024 threads, so an
//! AMDGPU build of it must fit 16 wave64 waves on a compute unit: 64 VGPRs per lane on gfx906.
//! CUTLASS and FlashAttention kernels give no launch bounds but are always launched with one
//! block size (`kThreadCount`, `kNThreads`); on the host side that size is a constant in the
//! code. This scan finds it, for the kernels whose every launch it can follow.
//!
//! What a `<<<grid, block, smem, stream>>>` launch compiles to (nvcc's host stubs, System V
//! AMD64 ABI): a call of `__cudaPushCallConfiguration(dim3 grid, dim3 block, size_t smem,
//! void *stream)` with `block.x | block.y << 32` in `rdx` and `block.z` in `ecx`, then a direct
//! call of the kernel's host function (the `hostFun` that `__cudaRegisterFunction` registers
//! with the kernel's name), whose stub pops the configuration
//! (`__cudaPopCallConfiguration`) and calls `cudaLaunchKernel` with its own address.
//!
//! The scan is a linear pass over the executable sections (the same decode as
//! [`super::registration`]) tracking constants in registers and in `rbp`/`rsp`-relative
//! stack bytes (unoptimised host code keeps `dim3` values there). Registers and stack bytes
//! are forgotten at every branch target, after every `ret` and unconditional `jmp`, but for a
//! register constant (not a code address) that every way into a branch target that is no
//! function start holds (optimised code sets the block before a branch and pushes it in both
//! arms), assumed to come from the later jumps to it too and checked at those jumps;
//! the pushed configuration survives a branch target only when every way in (the
//! fall-through and the forward jumps seen so far) pushed the same block, and one assumed at a
//! target that a later jump reaches is checked at that jump. A call clobbers the caller-saved registers and
//! the 12 bytes (a `dim3`) above any stack address the code has taken (`lea r, [rbp+d]`)
//! since: a block kept inside a larger local struct is assumed not to be written through that
//! struct's address.
//! Function starts come from `.dynsym`, `.symtab` and the direct call targets.
//!
//! A kernel gets a fact when:
//!
//! * it is registered (`rsi` and `rdx` of a `__cudaRegisterFunction` call are known: the host
//!   function, also through its GOT slot when exported, and the name);
//! * each of its launches has a constant block: a call of its host function (directly, through
//!   its PLT entry, or of the stub it jumps to or that launches it, past wrappers that only
//!   forward the call) after a `__cudaPushCallConfiguration` of its own; a stub inlined into
//!   its launcher (the pop and `cudaLaunchKernel`, or CUDA 13's `__cudaGetKernel` handle and
//!   `__cudaLaunchKernel`, after the push in the same code); or a direct `cudaLaunchKernel`
//!   with the block in `rcx`/`r8d`;
//! * every other use of the host function's address is one the scan recognises: the
//!   registration, the function argument of `cudaFuncSetAttribute`, `cudaFuncGetAttributes`,
//!   `cudaFuncSetCacheConfig`, `cudaFuncSetSharedMemConfig`, `__cudaGetKernel` or the
//!   occupancy queries (or of their `cuda_runtime.h` templates), a store to a variable
//!   nothing reads (nvcc's unoptimised stubs); no data relocation points at it.
//!
//! Anything else (a function pointer stored in memory that is read, a block computed at run
//! time, a configuration the joins do not carry) leaves the kernel without a fact, with the
//! reason. The fact is the largest `x * y * z` of its launches. An exported host function is
//! assumed not to be launched from another object. The HIP runtime refuses a launch above a
//! kernel's maximum flat work-group size (`hipErrorLaunchFailure`, "larger than launch
//! bounds"), so a launch the scan did not see fails loudly rather than running wrong.
//! `tests/launch_facts.rs` checks the facts against the sources of nvcc fixtures, and against
//! FlashAttention's and CUTLASS's thread counts in real wheels (vllm_flash_attn 2.6.2: all
//! 1,392 of its kernels, each at 32 × `kNWarps`).

use iced_x86::{
    Code, FlowControl, Instruction, InstructionInfoFactory, Mnemonic, OpAccess, OpKind, Register,
};
use object::elf;
use object::read::elf::{Rela, SectionHeader, Sym};
use object::Endianness;
use std::collections::BTreeMap;

/// Maps and sets keyed by addresses and registers, hashed with foldhash (the scan looks up
/// every instruction's address).
type HashMap<K, V> = std::collections::HashMap<K, V, foldhash::fast::FixedState>;
type HashSet<K> = std::collections::HashSet<K, foldhash::fast::FixedState>;

/// The block size a kernel is always launched with, as the host code shows it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct LaunchBound {
    /// The largest `x * y * z` of [`LaunchBound::blocks`].
    pub max_threads: u32,
    /// The distinct blocks (x, y, z) of its launch sites.
    pub blocks: Vec<[u32; 3]>,
    /// Virtual addresses of the calls that launch it.
    pub sites: Vec<u64>,
}

/// What [`LaunchScan`] found for an object: per kernel (its mangled name), a bound or why
/// there is none.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LaunchFacts {
    /// Kernels with a bound.
    pub bounds: BTreeMap<String, LaunchBound>,
    /// Registered kernels without one, with the reason.
    pub unproven: BTreeMap<String, String>,
    /// Kernels whose host code asks for dynamic shared memory beyond the default 48 KiB with
    /// a constant: `cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize
    /// (8), bytes)` (CUDA requires it before such a launch). The largest request each.
    pub dynamic_shared: BTreeMap<String, SharedRequest>,
}

/// A constant request for dynamic shared memory ([`LaunchFacts::dynamic_shared`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct SharedRequest {
    /// Bytes per block.
    pub bytes: u64,
    /// Virtual address of the `cudaFuncSetAttribute` call.
    pub site: u64,
}

impl LaunchFacts {
    /// The bound of `kernel`, when there is one.
    pub fn bound(&self, kernel: &str) -> Option<&LaunchBound> {
        self.bounds.get(kernel)
    }

    /// The largest constant dynamic shared memory request for `kernel`, when there is one.
    pub fn dynamic_shared(&self, kernel: &str) -> Option<SharedRequest> {
        self.dynamic_shared.get(kernel).copied()
    }
}

/// The entry points the scan interprets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Api {
    RegisterFunction,
    PushConfig,
    PopConfig,
    /// `__cudaGetKernel(&handle, hostFun)` (CUDA 13 stubs).
    GetKernel,
    /// `__cudaLaunchKernel(handle, ...)` (CUDA 13 stubs).
    LaunchHandle,
    /// `cudaLaunchKernel(func, grid, block, args, smem, stream)`: a stub's launch of its
    /// kernel after the pop, or a direct launch (block in `rcx`, `r8d`).
    LaunchFunc,
    /// Takes a kernel's host function as argument `n` (0: `rdi`, 1: `rsi`) without launching.
    Query(u8),
    /// `cudaFuncSetAttribute(func, attr, value)`: a [`Api::Query`] on `rdi` whose
    /// `cudaFuncAttributeMaxDynamicSharedMemorySize` value is recorded.
    SetAttribute,
    /// `dim3::dim3(unsigned x, unsigned y, unsigned z)` called rather than inlined (host
    /// code built without optimisation): writes `esi`, `edx`, `ecx` to the 12 bytes at
    /// `rdi`, and nothing else.
    Dim3,
}

const APIS: &[(&str, Api)] = &[
    ("__cudaRegisterFunction", Api::RegisterFunction),
    ("__cudaPushCallConfiguration", Api::PushConfig),
    ("__cudaPopCallConfiguration", Api::PopConfig),
    // CUDA 13 stubs look their kernel up by host function, then launch the handle.
    ("__cudaGetKernel", Api::GetKernel),
    ("__cudaLaunchKernel", Api::LaunchHandle),
    ("__cudaLaunchKernel_ptsz", Api::LaunchHandle),
    ("cudaLaunchKernel", Api::LaunchFunc),
    ("cudaLaunchKernel_ptsz", Api::LaunchFunc),
    ("cudaFuncSetAttribute", Api::SetAttribute),
    ("cudaFuncGetAttributes", Api::Query(1)),
    ("cudaFuncSetCacheConfig", Api::Query(0)),
    ("cudaFuncSetSharedMemConfig", Api::Query(0)),
    (
        "cudaOccupancyMaxActiveBlocksPerMultiprocessor",
        Api::Query(1),
    ),
    (
        "cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags",
        Api::Query(1),
    ),
    ("cudaOccupancyAvailableDynamicSMemPerBlock", Api::Query(1)),
    // The complete- and base-object constructors (Itanium C++ ABI `C1`, `C2`).
    ("_ZN4dim3C1Ejjj", Api::Dim3),
    ("_ZN4dim3C2Ejjj", Api::Dim3),
];

const ARGS: [Register; 6] = [
    Register::RDI,
    Register::RSI,
    Register::RDX,
    Register::RCX,
    Register::R8,
    Register::R9,
];
const CALLER_SAVED: [Register; 9] = [
    Register::RAX,
    Register::RCX,
    Register::RDX,
    Register::RSI,
    Register::RDI,
    Register::R8,
    Register::R9,
    Register::R10,
    Register::R11,
];
/// Bytes above a taken stack address that a call may write: a `dim3` (12 bytes), as its
/// constructor writes it through a pointer. Locals are distinct objects, so a call writing
/// through a pointer to another object cannot change a `dim3` of its own.
const ESCAPE_SPAN: i64 = 12;
/// How far after a `__cudaPopCallConfiguration` call a stub refers to its own address.
const STUB_SPAN: u64 = 1024;

/// The fate of one use of a code address (a possible host function).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fate {
    Pending,
    Recognised,
    Unknown,
    /// Stored to the variable at this address (nvcc's unoptimised stubs keep their kernel in
    /// a `static void (*__f)(...)` that nothing reads): harmless when nothing reads it.
    Stored(u64),
}

/// A call of a code address: a possible launch.
#[derive(Debug, Clone)]
struct Site {
    ip: u64,
    /// The function entry (a direct call target) the site's code follows.
    entry: u64,
    target: u64,
    /// The configuration pushed before it in the same straight-line code: its block (or
    /// `None` when not constant) and which push it was.
    push: Push,
    /// The back-jump labels that configuration was assumed across.
    deps: Vec<u64>,
}

/// What a `__cudaPopCallConfiguration` call pops: the configuration pushed before it in the
/// same code, and the back-jump labels it was assumed across.
type PopState = (Push, Vec<u64>);

/// The configuration pushed last in straight-line code: its block (`None`: not constant) and
/// which push it was; `None` when there is none.
type Push = Option<(Option<[u32; 3]>, u32)>;

/// One way into a branch target: the configuration pushed, the registers' constants, and the
/// back-jump labels whose assumed constants those rely on.
type Way = (Push, HashMap<Register, u64>, Vec<u64>);

/// The launch scan's state, fed the object's instructions in address order.
pub(crate) struct LaunchScan {
    apis: HashMap<u64, Api>,
    got: HashMap<u64, Api>,
    /// GOT slots (and the PLT entries through them) of the object's own exported functions:
    /// the function each holds. Exported host functions are assumed not to be launched from
    /// other objects.
    own_got: HashMap<u64, u64>,
    own_plt: HashMap<u64, u64>,
    code: Vec<(u64, u64)>,
    targets: HashSet<u64>,
    /// Branch targets some later instruction jumps back to.
    back: HashSet<u64>,
    /// Direct call targets (function entries).
    entries: HashSet<u64>,
    info: InstructionInfoFactory,
    entry: u64,
    /// Configurations pushed, and the registers' constants, on the forward jumps to a
    /// branch target.
    incoming: HashMap<u64, Vec<Way>>,
    falls_through: bool,
    /// Per host function, the entries of the stubs that launch it.
    stubs: HashMap<u64, HashSet<u64>>,
    /// Direct `jmp`s (address to target) and `endbr64`s: thunks to a stub.
    jmps: HashMap<u64, u64>,
    endbr: HashSet<u64>,
    regs: HashMap<Register, u64>,
    /// Registers holding the address of a stack slot (`lea d(%rbp), r`).
    addrs: HashMap<Register, (Register, i64)>,
    /// Registers holding a code address, with the index of its use in `uses`.
    refs: HashMap<Register, usize>,
    stack: HashMap<(Register, i64), u8>,
    escaped: Vec<i64>,
    push: Push,
    /// The back-jump labels whose assumed configuration [`LaunchScan::push`] relies on.
    deps: Vec<u64>,
    /// The configuration assumed at each such label, and the labels where a later jump
    /// brought another.
    assumed: HashMap<u64, Option<Option<[u32; 3]>>>,
    violated: HashSet<u64>,
    /// The register constants assumed at each back-jump label (checked at the later jumps
    /// there, which mark the label violated when they bring others).
    assumed_regs: HashMap<u64, HashMap<Register, u64>>,
    /// The back-jump labels whose assumed register constants [`LaunchScan::regs`] relies on.
    reg_deps: Vec<u64>,
    pushes: u32,
    /// The last `__cudaPopCallConfiguration` call since a `ret`, and the configuration
    /// pushed before it in the same code (a stub inlined into its launcher).
    last_pop: Option<(u64, PopState)>,
    /// The function entry of [`LaunchScan::last_pop`].
    pop_entry: u64,
    /// (address, fate, where).
    uses: Vec<(u64, Fate, u64)>,
    sites: Vec<Site>,
    registrations: Vec<(u64, u64)>,
    /// Registers holding the value loaded from a RIP-relative address.
    loads: HashMap<Register, u64>,
    /// `__cudaGetKernel` calls: (handle variable, host function).
    handles: Vec<(u64, u64)>,
    /// `__cudaLaunchKernel` calls: (handle variable, the pop before it, where, entry).
    handle_launches: Vec<(u64, Option<PopState>, u64, u64)>,
    /// RIP-relative addresses read, or taken by `lea`.
    rip_reads: HashSet<u64>,
    /// `cudaFuncSetAttribute(f, MaxDynamicSharedMemorySize, bytes)` calls with a constant:
    /// (host function, bytes, where).
    shared_requests: Vec<(u64, u64, u64)>,
}

impl LaunchScan {
    /// Set up for the object `data`: the addresses that reach the [`APIS`] (PLT entries, GOT
    /// slots, or the object's own functions named in `.symtab`), the executable ranges and
    /// every direct branch target (a first decode of the executable sections).
    pub(crate) fn new(
        endian: Endianness,
        data: &[u8],
        sections: &object::read::elf::SectionTable<elf::FileHeader64<Endianness>>,
    ) -> LaunchScan {
        let by_name: HashMap<&[u8], Api> = APIS.iter().map(|(n, a)| (n.as_bytes(), *a)).collect();
        let mut apis = HashMap::default();
        let mut got = HashMap::default();
        let mut own_got = HashMap::default();
        let mut own_plt = HashMap::default();
        let mut code = Vec::new();
        let mut targets = HashSet::default();
        let mut back = HashSet::default();
        let mut entries = HashSet::default();
        if let Ok(dynsyms) = sections.symbols(endian, data, elf::SHT_DYNSYM) {
            // Function starts: exported functions (and, below, `.symtab`'s and call targets).
            for s in dynsyms.iter() {
                if s.st_shndx(endian) != elf::SHN_UNDEF && s.st_type() == elf::STT_FUNC {
                    entries.insert(s.st_value(endian));
                }
            }
            // An imported API; `dim3`'s constructor also when the object defines it (a weak
            // inline function, called through the PLT).
            let api_of = |i: usize| {
                let s = dynsyms.symbol(object::SymbolIndex(i)).ok()?;
                let a = by_name.get(dynsyms.symbol_name(endian, s).ok()?).copied()?;
                (s.st_shndx(endian) == elf::SHN_UNDEF || a == Api::Dim3).then_some(a)
            };
            for r in relocations(endian, data, sections) {
                let t = r.r_type(endian, false);
                if t == elf::R_X86_64_JUMP_SLOT || t == elf::R_X86_64_GLOB_DAT {
                    let sym = r.r_sym(endian, false) as usize;
                    if let Some(a) = api_of(sym) {
                        got.insert(r.r_offset(endian), a);
                    } else if let Ok(s) = dynsyms.symbol(object::SymbolIndex(sym)) {
                        if s.st_shndx(endian) != elf::SHN_UNDEF && s.st_type() == elf::STT_FUNC {
                            own_got.insert(r.r_offset(endian), s.st_value(endian));
                        }
                    }
                }
            }
        }
        if let Ok(symtab) = sections.symbols(endian, data, elf::SHT_SYMTAB) {
            for s in symtab.iter() {
                if s.st_shndx(endian) == elf::SHN_UNDEF || s.st_type() != elf::STT_FUNC {
                    continue;
                }
                entries.insert(s.st_value(endian));
                let Ok(n) = symtab.symbol_name(endian, s) else {
                    continue;
                };
                // The runtime's own function (static runtime), or cuda_runtime.h's C++
                // template over a query (`_Z20cudaFuncSetAttributeI...`), which passes the
                // function on in the same argument.
                let api = by_name.get(n).copied().or_else(|| {
                    let rest = n.strip_prefix(b"_Z")?;
                    let digits = rest.iter().take_while(|c| c.is_ascii_digit()).count();
                    let len: usize = std::str::from_utf8(&rest[..digits]).ok()?.parse().ok()?;
                    let name = rest.get(digits..digits + len)?;
                    (rest.get(digits + len) == Some(&b'I'))
                        .then(|| by_name.get(name).copied())
                        .flatten()
                        .filter(|a| {
                            matches!(a, Api::Query(_) | Api::SetAttribute | Api::LaunchFunc)
                        })
                });
                if let Some(a) = api {
                    apis.insert(s.st_value(endian), a);
                }
            }
        }
        for s in sections.iter() {
            if s.sh_flags(endian).0 & elf::SHF_EXECINSTR.0 == 0
                || s.sh_type(endian) != elf::SHT_PROGBITS
            {
                continue;
            }
            let Ok(bytes) = s.data(endian, data) else {
                continue;
            };
            let base = s.sh_addr(endian);
            let plt = sections
                .section_name(endian, s)
                .is_ok_and(|n| n.starts_with(b".plt"));
            if !plt {
                code.push((base, base + bytes.len() as u64));
            }
            let mut d = iced_x86::Decoder::with_ip(64, bytes, base, iced_x86::DecoderOptions::NONE);
            let mut i = Instruction::default();
            while d.can_decode() {
                d.decode_out(&mut i);
                if plt {
                    // A PLT entry (16 bytes) jumping through an API's GOT slot.
                    if i.is_jmp_near_indirect() && i.is_ip_rel_memory_operand() {
                        let slot = i.ip_rel_memory_address();
                        if let Some(a) = got.get(&slot) {
                            apis.insert(i.ip() & !15, *a);
                        } else if let Some(f) = own_got.get(&slot) {
                            own_plt.insert(i.ip() & !15, *f);
                        }
                    }
                } else if i.is_jcc_short_or_near() || i.is_jmp_short_or_near() {
                    let t = i.near_branch_target();
                    targets.insert(t);
                    if t <= i.ip() {
                        back.insert(t);
                    }
                } else if i.is_call_near() {
                    entries.insert(i.near_branch_target());
                }
            }
        }
        LaunchScan {
            apis,
            got,
            own_got,
            own_plt,
            code,
            targets,
            back,
            entries,
            info: InstructionInfoFactory::new(),
            entry: 0,
            incoming: HashMap::default(),
            falls_through: false,
            stubs: HashMap::default(),
            jmps: HashMap::default(),
            endbr: HashSet::default(),
            regs: HashMap::default(),
            addrs: HashMap::default(),
            refs: HashMap::default(),
            stack: HashMap::default(),
            escaped: Vec::new(),
            push: None,
            deps: Vec::new(),
            assumed: HashMap::default(),
            assumed_regs: HashMap::default(),
            reg_deps: Vec::new(),
            violated: HashSet::default(),
            pushes: 0,
            last_pop: None,
            pop_entry: 0,
            uses: Vec::new(),
            sites: Vec::new(),
            registrations: Vec::new(),
            loads: HashMap::default(),
            handles: Vec::new(),
            handle_launches: Vec::new(),
            rip_reads: HashSet::default(),
            shared_requests: Vec::new(),
        }
    }

    fn is_code(&self, a: u64) -> bool {
        self.code.iter().any(|(s, e)| (*s..*e).contains(&a))
    }

    /// A use of a code address left in a register is no longer followed.
    fn lose(&mut self, r: Register) {
        if let Some(k) = self.refs.remove(&r) {
            if self.uses[k].1 == Fate::Pending {
                self.uses[k].1 = Fate::Unknown;
            }
        }
    }

    fn recognise(&mut self, r: Register) {
        if let Some(k) = self.refs.remove(&r) {
            if self.uses[k].1 == Fate::Pending {
                self.uses[k].1 = Fate::Recognised;
            }
        }
    }

    fn reset(&mut self) {
        let held: Vec<Register> = self.refs.keys().copied().collect();
        for r in held {
            self.lose(r);
        }
        self.regs.clear();
        self.addrs.clear();
        self.loads.clear();
        self.stack.clear();
        self.escaped.clear();
        self.push = None;
        self.deps.clear();
        self.reg_deps.clear();
    }

    /// Register `r` now holds `v`; a code address it held is overwritten unused.
    fn set(&mut self, r: Register, v: Option<u64>) {
        let r = r.full_register();
        self.refs.remove(&r);
        self.loads.remove(&r);
        self.addrs.remove(&r);
        match v {
            Some(v) => self.regs.insert(r, v),
            None => self.regs.remove(&r),
        };
    }

    /// A new use of code address `a` held in register `r`.
    fn hold(&mut self, r: Register, a: u64, ip: u64) {
        let r = r.full_register();
        self.set(r, Some(a));
        if self.is_code(a) {
            // The stub's own address, passed to cudaLaunchKernel after the pop.
            self.uses.push((a, Fate::Pending, ip));
            self.refs.insert(r, self.uses.len() - 1);
        }
    }

    fn slot(i: &Instruction) -> Option<(Register, i64)> {
        let base = i.memory_base();
        (matches!(base, Register::RBP | Register::RSP) && i.memory_index() == Register::None)
            .then_some((base, i.memory_displacement64() as i64))
    }

    fn load(&self, at: (Register, i64), n: usize) -> Option<u64> {
        let mut v = 0u64;
        for k in 0..n {
            v |= (*self.stack.get(&(at.0, at.1 + k as i64))? as u64) << (8 * k);
        }
        Some(v)
    }

    fn store(&mut self, at: (Register, i64), n: usize, v: Option<u64>) {
        for k in 0..n {
            let key = (at.0, at.1 + k as i64);
            match v {
                Some(v) => self.stack.insert(key, (v >> (8 * k)) as u8),
                None => self.stack.remove(&key),
            };
        }
    }

    /// Feed the next instruction (executable sections other than the PLT, in address order).
    pub(crate) fn observe(&mut self, i: &Instruction) {
        let ip = i.ip();
        if !self.falls_through
            && !self.targets.contains(&ip)
            && matches!(i.mnemonic(), Mnemonic::Nop | Mnemonic::Int3)
        {
            return; // padding between functions
        }
        // A function entry: a direct call target, or code after a `ret`/`jmp` that no
        // branch reaches.
        if self.entries.contains(&ip) || !self.falls_through && !self.targets.contains(&ip) {
            self.entry = ip;
        }
        if self.targets.contains(&ip) {
            // The configuration survives a label when every way in pushed the same block. A
            // label jumped to from further on is assumed to get it from there too; the
            // assumption is checked at those jumps.
            let mut ways = self.incoming.remove(&ip).unwrap_or_default();
            if self.falls_through {
                ways.push((self.push, self.regs.clone(), self.reg_deps.clone()));
            }
            // A register constant survives a label when every way in holds it (a block set
            // before a branch and pushed after it); at a label jumped to from further on it
            // is assumed to come from there too, which those jumps check. Code addresses do
            // not survive (their uses are followed in straight-line code only), nor does
            // anything at a function start (its callers are other ways in).
            let mut kept: HashMap<Register, u64> = HashMap::default();
            let mut kept_deps: Vec<u64> = Vec::new();
            if !self.entries.contains(&ip) {
                if let Some(((_, first, _), rest)) = ways.split_first() {
                    kept = first
                        .iter()
                        .filter(|(r, v)| {
                            !self.is_code(**v) && rest.iter().all(|(_, o, _)| o.get(r) == Some(v))
                        })
                        .map(|(r, v)| (*r, *v))
                        .collect();
                }
                if !kept.is_empty() {
                    for l in ways.iter().flat_map(|(_, _, d)| d) {
                        if !kept_deps.contains(l) {
                            kept_deps.push(*l);
                        }
                    }
                    if self.back.contains(&ip) {
                        self.assumed_regs.insert(ip, kept.clone());
                        kept_deps.push(ip);
                    }
                }
            }
            let ways: Vec<Push> = ways.into_iter().map(|(p, _, _)| p).collect();
            let block = |p: &Push| p.map(|(b, _)| b);
            let push = match ways.first() {
                Some(p) if p.is_some() && ways.iter().all(|w| block(w) == block(p)) => {
                    if ways.iter().all(|w| w == p) {
                        *p
                    } else {
                        self.pushes += 1;
                        p.map(|(b, _)| (b, self.pushes))
                    }
                }
                _ => None,
            };
            let deps = std::mem::take(&mut self.deps);
            self.reset();
            self.regs = kept;
            self.reg_deps = kept_deps;
            self.push = push;
            if push.is_some() {
                self.deps = deps;
                if self.back.contains(&ip) {
                    self.assumed.insert(ip, block(&push));
                    self.deps.push(ip);
                }
            }
        }
        self.falls_through = true;
        if i.code() == Code::Endbr64 {
            self.endbr.insert(ip);
        }
        if i.is_jcc_short_or_near() || i.is_jmp_short_or_near() {
            let t = i.near_branch_target();
            if t > ip {
                let way = (self.push, self.regs.clone(), self.reg_deps.clone());
                self.incoming.entry(t).or_default().push(way);
            } else {
                if let Some(b) = self.assumed.get(&t) {
                    if *b != self.push.map(|(b, _)| b) {
                        self.violated.insert(t);
                    }
                }
                if let Some(a) = self.assumed_regs.get(&t) {
                    if a.iter().any(|(r, v)| self.regs.get(r) != Some(v)) {
                        self.violated.insert(t);
                    }
                }
            }
            if i.is_jmp_short_or_near() {
                self.jmps.insert(ip, t);
            }
        }
        let src_reg =
            (i.op_count() > 1 && i.op1_kind() == OpKind::Register).then(|| i.op1_register());
        match i.code() {
            Code::Lea_r64_m if i.is_ip_rel_memory_operand() => {
                self.rip_reads.insert(i.ip_rel_memory_address());
                self.hold(i.op0_register(), i.ip_rel_memory_address(), ip);
                return;
            }
            Code::Lea_r64_m => {
                let at = Self::slot(i);
                if let Some((_, d)) = at {
                    self.escaped.push(d);
                }
                self.set(i.op0_register(), None);
                if let Some(at) = at {
                    self.addrs.insert(i.op0_register().full_register(), at);
                }
                return;
            }
            Code::Mov_r64_imm64 => {
                self.hold(i.op0_register(), i.immediate64(), ip);
                return;
            }
            Code::Mov_r32_imm32 => {
                self.set(i.op0_register(), Some(i.immediate32() as u64));
                return;
            }
            Code::Mov_rm64_imm32
            | Code::Mov_rm32_imm32
            | Code::Mov_rm16_imm16
            | Code::Mov_rm8_imm8 => {
                let n = match i.code() {
                    Code::Mov_rm64_imm32 => 8,
                    Code::Mov_rm32_imm32 => 4,
                    Code::Mov_rm16_imm16 => 2,
                    _ => 1,
                };
                let v = match i.code() {
                    Code::Mov_rm64_imm32 => i.immediate32to64() as u64,
                    _ => i.immediate(1),
                };
                if i.op0_kind() == OpKind::Register {
                    self.set(i.op0_register(), Some(v & mask(n)));
                    return;
                }
                if let Some(at) = Self::slot(i) {
                    self.store(at, n, Some(v));
                    return;
                }
            }
            Code::Mov_r64_rm64 | Code::Mov_rm64_r64 | Code::Mov_r32_rm32 | Code::Mov_rm32_r32 => {
                let n = if matches!(i.code(), Code::Mov_r64_rm64 | Code::Mov_rm64_r64) {
                    8
                } else {
                    4
                };
                match (i.op0_kind(), src_reg) {
                    (OpKind::Register, Some(s)) => {
                        let v = self.regs.get(&s.full_register()).map(|v| v & mask(n));
                        let held = self.refs.get(&s.full_register()).copied();
                        let addr = self.addrs.get(&s.full_register()).copied();
                        self.set(i.op0_register(), v);
                        if let (8, Some(a)) = (n, addr) {
                            self.addrs.insert(i.op0_register().full_register(), a);
                        }
                        match (n, held) {
                            (8, Some(k)) => {
                                self.refs.insert(i.op0_register(), k);
                            }
                            (_, Some(_)) => self.lose(s.full_register()),
                            _ => {}
                        }
                        return;
                    }
                    (OpKind::Register, None) if i.is_ip_rel_memory_operand() => {
                        let slot = i.ip_rel_memory_address();
                        self.rip_reads.insert(slot);
                        match self.own_got.get(&slot).copied() {
                            // The address of one of the object's exported functions.
                            Some(f) if n == 8 => self.hold(i.op0_register(), f, ip),
                            _ => {
                                self.set(i.op0_register(), None);
                                if n == 8 {
                                    self.loads.insert(i.op0_register().full_register(), slot);
                                }
                            }
                        }
                        return;
                    }
                    (OpKind::Register, None) => {
                        let v = Self::slot(i).and_then(|at| self.load(at, n));
                        self.set(i.op0_register(), v);
                        return;
                    }
                    (OpKind::Memory, Some(s)) => {
                        let full = s.full_register();
                        match self.refs.get(&full).copied() {
                            Some(k) if n == 8 && i.is_ip_rel_memory_operand() => {
                                if self.uses[k].1 == Fate::Pending {
                                    self.uses[k].1 = Fate::Stored(i.ip_rel_memory_address());
                                }
                                self.refs.remove(&full);
                            }
                            _ => self.lose(full),
                        }
                        let v = self.regs.get(&s.full_register()).map(|v| v & mask(n));
                        if let Some(at) = Self::slot(i) {
                            self.store(at, n, v);
                            return;
                        }
                    }
                    _ => {}
                }
            }
            _ => {}
        }
        match i.flow_control() {
            FlowControl::Call | FlowControl::IndirectCall => self.call(i),
            FlowControl::Return => {
                self.lose(Register::RAX);
                self.last_pop = None;
                self.reset();
                self.falls_through = false;
            }
            FlowControl::UnconditionalBranch | FlowControl::IndirectBranch => {
                if i.is_jmp_near() || i.is_jmp_short() {
                    // Possibly a tail call of a host function: a launch.
                    self.sites.push(Site {
                        ip,
                        entry: self.entry,
                        target: {
                            let t = i.near_branch_target();
                            self.own_plt.get(&t).copied().unwrap_or(t)
                        },
                        push: self.push,
                        deps: self.deps.clone(),
                    });
                }
                for r in ARGS {
                    self.lose(r);
                }
                self.reset();
                self.falls_through = false;
            }
            _ => self.generic(i),
        }
    }

    /// Registers and memory an instruction the scan does not model reads and writes.
    fn generic(&mut self, i: &Instruction) {
        let info = self.info.info(i);
        let mut read = Vec::new();
        let mut written = Vec::new();
        for r in info.used_registers() {
            let full = r.register().full_register();
            match r.access() {
                OpAccess::Read | OpAccess::CondRead => read.push(full),
                OpAccess::Write | OpAccess::CondWrite => written.push(full),
                OpAccess::ReadWrite | OpAccess::ReadCondWrite => {
                    read.push(full);
                    written.push(full);
                }
                _ => {}
            }
        }
        let mut stores = Vec::new();
        for m in info.used_memory() {
            if m.base() == Register::RIP && m.access() != OpAccess::Write {
                self.rip_reads.insert(m.displacement());
            }
            if matches!(
                m.access(),
                OpAccess::Write
                    | OpAccess::CondWrite
                    | OpAccess::ReadWrite
                    | OpAccess::ReadCondWrite
            ) {
                stores.push((
                    m.base(),
                    m.index(),
                    m.displacement() as i64,
                    m.memory_size().size(),
                ));
            }
        }
        for r in read {
            self.lose(r);
        }
        for r in written {
            if r == Register::RSP {
                // push/pop/sub/add rsp: rsp-relative bytes move.
                self.stack.retain(|(b, _), _| *b != Register::RSP);
            }
            self.set(r, None);
        }
        for (base, index, d, n) in stores {
            if matches!(base, Register::RBP | Register::RSP) && index == Register::None {
                self.store((base, d), n.max(1), None);
            } else {
                self.clobber_escaped();
            }
        }
    }

    fn clobber_escaped(&mut self) {
        let escaped = self.escaped.clone();
        self.stack
            .retain(|(_, o), _| !escaped.iter().any(|d| (*d..*d + ESCAPE_SPAN).contains(o)));
    }

    /// Whether a call at `ip` belongs to the stub whose `__cudaPopCallConfiguration` call is at
    /// `pop`: within [`STUB_SPAN`] after it, in the same function.
    fn near_pop(&self, ip: u64, pop: u64) -> bool {
        ip.checked_sub(pop).is_some_and(|d| d < STUB_SPAN) && self.pop_entry == self.entry
    }

    /// The values of two registers, when both are known.
    fn known(&self, a: Register, b: Register) -> Option<(u64, u64)> {
        Some((*self.regs.get(&a)?, *self.regs.get(&b)?))
    }

    fn call(&mut self, i: &Instruction) {
        let ip = i.ip();
        let api = if i.is_call_near() {
            self.apis.get(&i.near_branch_target()).copied()
        } else if i.is_ip_rel_memory_operand() {
            self.got.get(&i.ip_rel_memory_address()).copied()
        } else {
            None
        };
        match api {
            Some(Api::RegisterFunction) => {
                if let Some(fn_name) = self.known(Register::RSI, Register::RDX) {
                    self.registrations.push(fn_name);
                }
                self.recognise(Register::RSI);
            }
            Some(Api::PushConfig) => {
                self.pushes += 1;
                let block = self
                    .known(Register::RDX, Register::RCX)
                    .map(|(xy, z)| [xy as u32, (xy >> 32) as u32, z as u32]);
                self.push = Some((block, self.pushes));
                // The block may come from constants assumed at back-jump labels.
                self.deps = self.reg_deps.clone();
            }
            Some(Api::PopConfig) => {
                self.last_pop = Some((ip, (self.push, self.deps.clone())));
                self.pop_entry = self.entry;
            }
            Some(Api::GetKernel) => {
                if let Some(handle_fn) = self.known(Register::RDI, Register::RSI) {
                    self.handles.push(handle_fn);
                }
                self.recognise(Register::RSI);
            }
            Some(Api::LaunchFunc) => {
                if let Some(k) = self.refs.get(&Register::RDI).copied() {
                    let f = self.uses[k].0;
                    self.recognise(Register::RDI);
                    let pop = self.last_pop.clone().filter(|(p, _)| self.near_pop(ip, *p));
                    match pop {
                        // A stub inlined after a push: the launch is here.
                        Some((_, (Some(push), deps))) => self.sites.push(Site {
                            ip,
                            entry: u64::MAX,
                            target: f,
                            push: Some(push),
                            deps,
                        }),
                        // An out-of-line stub: its callers launch.
                        Some((_, (None, _))) => {
                            self.stubs.entry(f).or_default().insert(self.entry);
                        }
                        // A direct launch: its own block.
                        None => {
                            self.pushes += 1;
                            let block = self
                                .known(Register::RCX, Register::R8)
                                .map(|(xy, z)| [xy as u32, (xy >> 32) as u32, z as u32]);
                            self.sites.push(Site {
                                ip,
                                entry: u64::MAX,
                                target: f,
                                push: Some((block, self.pushes)),
                                deps: Vec::new(),
                            });
                        }
                    }
                }
            }
            Some(Api::LaunchHandle) => {
                if let Some(h) = self.loads.get(&Register::RDI).copied() {
                    let pop = self
                        .last_pop
                        .clone()
                        .filter(|(p, _)| self.near_pop(ip, *p))
                        .map(|(_, pop)| pop);
                    self.handle_launches.push((h, pop, ip, self.entry));
                }
            }
            Some(Api::Query(n)) => self.recognise(ARGS[n as usize]),
            Some(Api::SetAttribute) => {
                // cudaFuncAttributeMaxDynamicSharedMemorySize (driver_types.h).
                const MAX_DYNAMIC_SHARED: u64 = 8;
                let attr = self.regs.get(&Register::RSI).map(|v| v & mask(4));
                let bytes = self.regs.get(&Register::RDX).map(|v| v & mask(4));
                if let (Some(MAX_DYNAMIC_SHARED), Some(b), Some(&k)) =
                    (attr, bytes, self.refs.get(&Register::RDI))
                {
                    self.shared_requests.push((self.uses[k].0, b, ip));
                }
                self.recognise(Register::RDI);
            }
            Some(Api::Dim3) => {
                let at = self.addrs.get(&Register::RDI).copied();
                let v: Vec<Option<u64>> = [Register::RSI, Register::RDX, Register::RCX]
                    .iter()
                    .map(|r| self.regs.get(r).map(|v| v & mask(4)))
                    .collect();
                self.forget_caller_saved();
                match at {
                    // It writes its object and nothing else.
                    Some((base, d)) => {
                        for (k, v) in v.into_iter().enumerate() {
                            self.store((base, d + 4 * k as i64), 4, v);
                        }
                    }
                    None => self.clobber_escaped(),
                }
                return;
            }
            None => {
                let target = if i.is_call_near() {
                    let t = i.near_branch_target();
                    Some(self.own_plt.get(&t).copied().unwrap_or(t))
                } else if i.is_ip_rel_memory_operand() {
                    self.own_got.get(&i.ip_rel_memory_address()).copied()
                } else if i.op0_kind() == OpKind::Register {
                    // A call through a register holding a code address.
                    let r = i.op0_register().full_register();
                    let t = self.regs.get(&r).copied();
                    if t.is_some() {
                        self.recognise(r);
                    }
                    t
                } else {
                    None
                };
                if let Some(t) = target {
                    self.sites.push(Site {
                        ip,
                        entry: self.entry,
                        target: t,
                        push: self.push,
                        deps: self.deps.clone(),
                    });
                }
            }
        }
        self.forget_caller_saved();
        self.clobber_escaped();
    }

    /// After a call: the argument registers' code addresses are used (or lost) and every
    /// caller-saved register's value is unknown.
    fn forget_caller_saved(&mut self) {
        for r in ARGS.into_iter().chain([Register::RAX]) {
            self.lose(r);
        }
        for r in CALLER_SAVED {
            self.regs.remove(&r);
            self.loads.remove(&r);
            self.addrs.remove(&r);
        }
    }

    /// The facts, once every instruction has been observed: `data`'s sections give the
    /// kernel names and the data relocations.
    pub(crate) fn finish(
        mut self,
        endian: Endianness,
        data: &[u8],
        sections: &object::read::elf::SectionTable<elf::FileHeader64<Endianness>>,
    ) -> LaunchFacts {
        self.reset();
        // Data words that point at code (R_X86_64_RELATIVE addends, R_X86_64_64 symbols).
        let mut pointed = HashSet::default();
        let symbols = sections.symbols(endian, data, elf::SHT_DYNSYM).ok();
        for r in relocations(endian, data, sections) {
            match r.r_type(endian, false) {
                elf::R_X86_64_RELATIVE => {
                    pointed.insert(r.r_addend(endian) as u64);
                }
                elf::R_X86_64_64 => {
                    if let Some(v) = symbols.as_ref().and_then(|t| {
                        t.symbol(object::SymbolIndex(r.r_sym(endian, false) as usize))
                            .ok()
                            .map(|s| s.st_value(endian))
                    }) {
                        pointed.insert(v.wrapping_add(r.r_addend(endian) as u64));
                    }
                }
                _ => {}
            }
        }
        let cstr = |va: u64| -> Option<String> {
            for s in sections.iter() {
                let (a, n) = (s.sh_addr(endian), s.sh_size(endian));
                if s.sh_type(endian) == elf::SHT_PROGBITS && a <= va && va < a + n {
                    let bytes = s.data(endian, data).ok()?;
                    let tail = &bytes[(va - a) as usize..];
                    let end = tail.iter().position(|b| *b == 0)?;
                    return std::str::from_utf8(&tail[..end]).ok().map(str::to_string);
                }
            }
            None
        };
        // CUDA 13: the launches of a handle are launches of the host function it was got for.
        let host_of: HashMap<u64, u64> = self.handles.iter().copied().collect();
        for (h, pop, ip, entry) in std::mem::take(&mut self.handle_launches) {
            let Some(&f) = host_of.get(&h) else { continue };
            match pop {
                Some((Some(push), deps)) => self.sites.push(Site {
                    ip,
                    entry: u64::MAX,
                    target: f,
                    push: Some(push),
                    deps,
                }),
                Some((None, _)) => {
                    self.stubs.entry(f).or_default().insert(entry);
                }
                None => self.uses.push((f, Fate::Unknown, ip)),
            }
        }
        // A host function stored to a variable that nothing reads (nor relocates, nor
        // exports) stays where it is.
        let exported: HashSet<u64> = symbols
            .iter()
            .flat_map(|t| t.iter())
            .filter(|s| s.st_shndx(endian) != elf::SHN_UNDEF)
            .map(|s| s.st_value(endian))
            .collect();
        for u in &mut self.uses {
            if let Fate::Stored(x) = u.1 {
                u.1 =
                    if self.rip_reads.contains(&x) || pointed.contains(&x) || exported.contains(&x)
                    {
                        Fate::Unknown
                    } else {
                        Fate::Recognised
                    };
            }
        }
        let mut facts = LaunchFacts::default();
        let mut hosts: BTreeMap<u64, Vec<String>> = BTreeMap::new();
        for (f, n) in &self.registrations {
            if let Some(name) = cstr(*n) {
                hosts.entry(*f).or_default().push(name);
            }
        }
        for &(host, bytes, site) in &self.shared_requests {
            for name in hosts.get(&host).into_iter().flatten() {
                let e = facts
                    .dynamic_shared
                    .entry(name.clone())
                    .or_insert(SharedRequest { bytes, site });
                if bytes > e.bytes {
                    *e = SharedRequest { bytes, site };
                }
            }
        }
        // Indexes: the calls by target, and the first use of each address that the scan
        // does not follow (or that is not a recognised one).
        let mut by_target: HashMap<u64, Vec<&Site>> = HashMap::default();
        for s in &self.sites {
            by_target.entry(s.target).or_default().push(s);
        }
        let mut unknown_use: HashMap<u64, u64> = HashMap::default();
        let mut unrecognised: HashSet<u64> = HashSet::default();
        for (a, fate, at) in &self.uses {
            if *fate == Fate::Unknown {
                unknown_use.entry(*a).or_insert(*at);
            }
            if *fate != Fate::Recognised {
                unrecognised.insert(*a);
            }
        }
        for (host, names) in hosts {
            let why = (|| {
                if pointed.contains(&host) {
                    return Err("a data relocation points at its host function".to_string());
                }
                if let Some(at) = unknown_use.get(&host) {
                    return Err(format!(
                        "its host function's address is used at {at:#x} in a way the scan does not follow"
                    ));
                }
                // The host function, a stub it jumps to (`jmp`, after an `endbr64`), and the
                // stubs that launch it: a call of any is a launch, except one from another.
                let mut entries: HashSet<u64> = [host].into_iter().collect();
                let first = if self.endbr.contains(&host) {
                    host + 4
                } else {
                    host
                };
                if let Some(t) = self.jmps.get(&first) {
                    entries.insert(*t);
                }
                entries.extend(self.stubs.get(&host).into_iter().flatten());
                // A function that calls one of them without a configuration of its own
                // forwards a launch (`__wrapper__device_stub_`): its callers launch.
                let calls = |entries: &HashSet<u64>| -> Vec<&Site> {
                    entries
                        .iter()
                        .flat_map(|e| by_target.get(e).into_iter().flatten().copied())
                        .filter(|s| !entries.contains(&s.entry) && s.ip != first)
                        .collect()
                };
                loop {
                    let forwarders: Vec<u64> = calls(&entries)
                        .iter()
                        .filter(|s| s.push.is_none() && self.entries.contains(&s.entry))
                        .map(|s| s.entry)
                        .collect();
                    if forwarders.is_empty() {
                        break;
                    }
                    for f in forwarders {
                        if unrecognised.contains(&f) || pointed.contains(&f) {
                            return Err(format!(
                                "the function at {f:#x} that forwards its launches is also used by address"
                            ));
                        }
                        entries.insert(f);
                    }
                }
                let mut sites = calls(&entries);
                sites.sort_by_key(|s| s.ip);
                if sites.is_empty() {
                    return Err("no call of its host function".to_string());
                }
                let mut blocks: Vec<[u32; 3]> = Vec::new();
                let mut seen = HashSet::default();
                for s in &sites {
                    if let Some(l) = s.deps.iter().find(|l| self.violated.contains(l)) {
                        return Err(format!(
                            "the launch at {:#x} depends on the configuration at {l:#x}, which another way in changes",
                            s.ip
                        ));
                    }
                    let Some((block, id)) = s.push else {
                        return Err(format!(
                            "the call at {:#x} follows no __cudaPushCallConfiguration",
                            s.ip
                        ));
                    };
                    let Some(b) = block else {
                        return Err(format!(
                            "the block of the launch at {:#x} is not a constant",
                            s.ip
                        ));
                    };
                    if !seen.insert(id) {
                        return Err(format!(
                            "the call at {:#x} reuses an earlier launch's configuration",
                            s.ip
                        ));
                    }
                    let t = b.iter().map(|x| *x as u64).product::<u64>();
                    if t == 0 || t > 1024 {
                        return Err(format!("the launch at {:#x} has {t} threads", s.ip));
                    }
                    if !blocks.contains(&b) {
                        blocks.push(b);
                    }
                }
                let max_threads = blocks
                    .iter()
                    .map(|b| b.iter().product::<u32>())
                    .max()
                    .unwrap_or(0);
                Ok(LaunchBound {
                    max_threads,
                    blocks,
                    sites: sites.iter().map(|s| s.ip).collect(),
                })
            })();
            for name in names {
                match &why {
                    Ok(b) => {
                        facts.bounds.insert(name, b.clone());
                    }
                    Err(e) => {
                        facts.unproven.insert(name, e.clone());
                    }
                }
            }
        }
        facts
    }
}

/// Every RELA relocation of the object, section by section.
fn relocations<'d>(
    endian: Endianness,
    data: &'d [u8],
    sections: &'d object::read::elf::SectionTable<'d, elf::FileHeader64<Endianness>>,
) -> impl Iterator<Item = &'d elf::Rela64<Endianness>> + 'd {
    sections
        .iter()
        .filter(move |s| s.sh_type(endian) == elf::SHT_RELA)
        .filter_map(move |s| {
            s.data_as_array::<elf::Rela64<Endianness>, _>(endian, data)
                .ok()
        })
        .flatten()
}

fn mask(n: usize) -> u64 {
    if n >= 8 {
        u64::MAX
    } else {
        (1u64 << (8 * n)) - 1
    }
}

/// The launch facts of the host object `data` ([`crate::elf::scan()`] and
/// [`super::registration::registration_scan`]); empty when it registers no fatbin.
///
/// # Errors
/// [`crate::error::ErrorKind::Elf`] naming `file` when it is not a readable ELF object.
pub fn launch_facts(data: &[u8], file: &str) -> crate::error::Result<LaunchFacts> {
    let elf = super::scan(data, file)?;
    if elf.wrappers.is_empty() {
        return Ok(LaunchFacts::default());
    }
    let addrs: Vec<u64> = elf.wrappers.iter().map(|w| w.address).collect();
    Ok(super::registration::registration_scan(data, &addrs, file)?.launch)
}
