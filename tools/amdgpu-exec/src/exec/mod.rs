//! The interpreter: memory, a kernel dispatch, the wavefronts of each work-group and their
//! scheduling.
//!
//! A dispatch runs the work-groups one after another (x fastest, then y, then z); inside a
//! work-group the wavefronts take turns, each running until it ends, reaches `s_barrier`,
//! sleeps (`s_sleep`) or has run a time slice, so that waves spinning on memory another wave
//! of the group writes make progress. `s_barrier` releases when every wave of the group
//! that has not ended waits at it. Memory operations complete at once (so `s_waitcnt` has
//! nothing to wait for) and in program order; atomics are atomic because nothing else runs
//! between an atomic's read and its write. Work-groups do not run concurrently, so a kernel
//! in which one work-group waits for another would not finish (it hits the instruction
//! limit and fails).
//!
//! Address map (a flat 64-bit space): the code object's image at [`IMAGE_BASE`], then the
//! kernarg segment, the dispatch packet, the queue and the caller's buffers; the LDS of the
//! running work-group through the shared aperture (high dword [`SHARED_APERTURE_HI`]) and
//! the scratch of each lane through the private aperture ([`PRIVATE_APERTURE_HI`]), as
//! `SH_MEM_BASES` reports them. An access outside every mapped region is a memory fault and
//! ends the dispatch with an error.

mod mem_ops;
mod salu;
mod valu;
mod wave;

pub use wave::Wave;

use crate::decode::{Decoder, Inst};
use crate::elf::{CodeObject, Kernel};
use crate::isa::Arch;
use crate::Error;

/// Where the code object's image is mapped.
pub const IMAGE_BASE: u64 = 0x0000_7f00_0000_0000;
/// High dword of flat addresses that reach the LDS (`src_shared_base`).
pub const SHARED_APERTURE_HI: u32 = 0x0001_0000;
/// High dword of flat addresses that reach scratch (`src_private_base`).
pub const PRIVATE_APERTURE_HI: u32 = 0x0002_0000;
/// First address handed out by [`Memory::alloc`].
pub const HEAP_BASE: u64 = 0x0000_1000_0000_0000;
/// Where the scratch backing store of a dispatch lies.
pub const SCRATCH_BASE: u64 = 0x0000_6000_0000_0000;

/// One mapped region of the flat address space.
#[derive(Debug, Clone)]
struct Region {
    base: u64,
    data: Vec<u8>,
    name: String,
}

/// The flat (global) memory of the machine: named regions at fixed addresses.
#[derive(Debug, Clone, Default)]
pub struct Memory {
    regions: Vec<Region>,
    next: u64,
    last: std::cell::Cell<usize>,
}

impl Memory {
    /// An empty memory.
    pub fn new() -> Memory {
        Memory {
            regions: Vec::new(),
            next: HEAP_BASE,
            last: std::cell::Cell::new(0),
        }
    }

    /// Map `data` at `base` under `name`.
    ///
    /// # Panics
    /// When the region overlaps one already mapped (a bug of the caller).
    pub fn map(&mut self, base: u64, data: Vec<u8>, name: &str) {
        let end = base + data.len() as u64;
        for r in &self.regions {
            assert!(
                end <= r.base || base >= r.base + r.data.len() as u64,
                "region {name} overlaps {}",
                r.name
            );
        }
        self.regions.push(Region {
            base,
            data,
            name: name.to_string(),
        });
        self.regions.sort_by_key(|r| r.base);
    }

    /// Allocate `size` zeroed bytes (256-byte aligned, with a 64 KiB unmapped gap after each
    /// region so that overruns fault) and return the address.
    pub fn alloc(&mut self, size: usize, name: &str) -> u64 {
        let base = self.next;
        self.map(base, vec![0; size], name);
        self.next = (base + size as u64 + 0x1_0000 + 255) & !255;
        base
    }

    /// Replace the bytes of the region that starts at `base`.
    pub fn region_mut(&mut self, base: u64) -> Option<&mut Vec<u8>> {
        self.regions
            .iter_mut()
            .find(|r| r.base == base)
            .map(|r| &mut r.data)
    }

    /// The bytes of the region that starts at `base`.
    pub fn region(&self, base: u64) -> Option<&[u8]> {
        self.regions
            .iter()
            .find(|r| r.base == base)
            .map(|r| r.data.as_slice())
    }

    fn find(&self, addr: u64, len: usize) -> Result<(usize, usize), Error> {
        let hit = |r: &Region| addr >= r.base && addr + len as u64 <= r.base + r.data.len() as u64;
        let l = self.last.get();
        if let Some(r) = self.regions.get(l) {
            if hit(r) {
                return Ok((l, (addr - r.base) as usize));
            }
        }
        let i = self.regions.partition_point(|r| r.base <= addr);
        if i > 0 && hit(&self.regions[i - 1]) {
            self.last.set(i - 1);
            return Ok((i - 1, (addr - self.regions[i - 1].base) as usize));
        }
        let near = if i > 0 {
            let r = &self.regions[i - 1];
            format!(
                " (nearest region below: {} at 0x{:x}, {} bytes)",
                r.name,
                r.base,
                r.data.len()
            )
        } else {
            String::new()
        };
        Err(Error::new(format!(
            "memory fault: {len}-byte access at 0x{addr:x} is outside every mapped region{near}"
        )))
    }

    /// Read `buf.len()` bytes at `addr`.
    ///
    /// # Errors
    /// A memory fault.
    pub fn read(&self, addr: u64, buf: &mut [u8]) -> Result<(), Error> {
        let (r, o) = self.find(addr, buf.len())?;
        buf.copy_from_slice(&self.regions[r].data[o..o + buf.len()]);
        Ok(())
    }

    /// Write `data` at `addr`.
    ///
    /// # Errors
    /// A memory fault.
    pub fn write(&mut self, addr: u64, data: &[u8]) -> Result<(), Error> {
        let (r, o) = self.find(addr, data.len())?;
        self.regions[r].data[o..o + data.len()].copy_from_slice(data);
        Ok(())
    }

    /// Read a little-endian u32.
    ///
    /// # Errors
    /// A memory fault.
    pub fn read_u32(&self, addr: u64) -> Result<u32, Error> {
        let mut b = [0u8; 4];
        self.read(addr, &mut b)?;
        Ok(u32::from_le_bytes(b))
    }
}

/// The geometry of a dispatch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Launch {
    /// Work-groups per dimension.
    pub grid: [u32; 3],
    /// Work-items per work-group per dimension.
    pub block: [u32; 3],
    /// Dynamic LDS bytes (added to the kernel's static LDS).
    pub dyn_lds: u32,
}

/// Counters of a dispatch.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Stats {
    /// Wave instructions executed.
    pub instructions: u64,
    /// Work-groups run.
    pub workgroups: u64,
    /// Wavefronts run.
    pub waves: u64,
}

/// Limits of a dispatch.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Wave instructions after which the dispatch fails (a kernel that never ends).
    pub max_instructions: u64,
    /// Instructions a wave runs before the next wave of its group takes a turn.
    pub slice: u32,
    /// Triage counterfactual: NaN results propagate the last NaN operand.
    pub nan_last: bool,
    /// Triage counterfactual: the results of the approximation instructions (V_RCP, V_RSQ,
    /// V_SQRT, V_EXP, V_LOG, V_SIN, V_COS; "1 ULP" in the ISA) move 1 ulp away from zero.
    pub approx_perturb: bool,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_instructions: 2_000_000_000,
            slice: 64,
            nan_last: false,
            approx_perturb: false,
        }
    }
}

/// How a wave's turn ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Event {
    /// The instruction completed; go on.
    Next,
    /// `s_barrier`.
    Barrier,
    /// `s_sleep` (yield the turn).
    Sleep,
    /// `s_endpgm`.
    End,
}

/// What a work-group's waves share while it runs.
pub struct Group<'a> {
    /// Flat memory.
    pub mem: &'a mut Memory,
    /// The work-group's LDS.
    pub lds: Vec<u8>,
    /// The decoded program.
    pub prog: &'a Program,
    /// The processor.
    pub arch: Arch,
    /// Address of the dispatch packet.
    pub packet: u64,
    /// Instructions executed so far in the dispatch (the `s_memtime` clock).
    pub clock: u64,
}

/// The decoded `.text` of a loaded code object.
pub struct Program {
    /// Address (in the flat space) of the first byte of `.text`.
    pub base: u64,
    /// One slot per dword of `.text`: the instruction that starts there, if any.
    pub slots: Vec<Option<Inst>>,
}

impl Program {
    /// The instruction at flat address `pc`.
    ///
    /// # Errors
    /// When `pc` is not the start of a decoded instruction of `.text`.
    pub fn at(&self, pc: u64) -> Result<&Inst, Error> {
        let off = pc.wrapping_sub(self.base);
        if off.is_multiple_of(4) {
            if let Some(Some(i)) = self.slots.get((off / 4) as usize) {
                return Ok(i);
            }
        }
        Err(Error::new(format!(
            "the program counter 0x{pc:x} is not an instruction of .text"
        )))
    }
}

/// A code object loaded into memory, ready for dispatches.
pub struct Machine {
    /// The code object.
    pub co: CodeObject,
    /// The memory.
    pub mem: Memory,
    /// The decoded program.
    pub prog: Program,
    /// The processor.
    pub arch: Arch,
    /// The relocated image as loaded (restored by [`Machine::reset`]).
    pristine: Vec<u8>,
}

impl Machine {
    /// Forget every allocation and restore the image (initialised globals) as loaded.
    pub fn reset(&mut self) {
        self.mem = Memory::new();
        self.mem
            .map(IMAGE_BASE, self.pristine.clone(), "code object image");
    }

    /// Map the image of `co` at [`IMAGE_BASE`], apply its dynamic relocations and decode
    /// its `.text`.
    ///
    /// # Errors
    /// A relocation of an unknown type or outside the image, or an instruction the decoder
    /// cannot read.
    pub fn new(co: CodeObject) -> Result<Machine, Error> {
        let arch = co.arch;
        let mut image = co.image.clone();
        for &(off, ty, sym, add) in &co.relocs {
            let v = match ty {
                // R_AMDGPU_ABS64, R_AMDGPU_RELATIVE64
                3 => IMAGE_BASE.wrapping_add(sym).wrapping_add(add as u64),
                13 => IMAGE_BASE.wrapping_add(add as u64),
                // R_AMDGPU_ABS32_LO / HI
                1 => (IMAGE_BASE.wrapping_add(sym).wrapping_add(add as u64)) & 0xffff_ffff,
                2 => (IMAGE_BASE.wrapping_add(sym).wrapping_add(add as u64)) >> 32,
                _ => {
                    return Err(Error::new(format!(
                        "dynamic relocation type {ty} at 0x{off:x} is not supported"
                    )))
                }
            };
            let o = off as usize;
            let width = if ty == 1 || ty == 2 { 4 } else { 8 };
            let dst = image.get_mut(o..o + width).ok_or_else(|| {
                Error::new(format!("relocation at 0x{off:x} is outside the image"))
            })?;
            dst.copy_from_slice(&v.to_le_bytes()[..width]);
        }
        let dec = Decoder::new(arch);
        let (t0, t1) = co.text;
        let text = co
            .image
            .get(t0 as usize..t1 as usize)
            .ok_or_else(|| Error::new(".text lies outside the image"))?;
        let mut slots = vec![None; text.len() / 4];
        for (pc, i) in dec.decode_all(text, t0)? {
            slots[((pc - t0) / 4) as usize] = Some(i);
        }
        let mut mem = Memory::new();
        mem.map(IMAGE_BASE, image.clone(), "code object image");
        Ok(Machine {
            co,
            mem,
            pristine: image,
            prog: Program {
                base: IMAGE_BASE + t0,
                slots,
            },
            arch,
        })
    }

    /// Dispatch kernel `name` with the kernarg bytes `kernarg` (the explicit arguments;
    /// COV5 hidden arguments the metadata lists are filled in) and geometry `launch`.
    ///
    /// # Errors
    /// An unknown kernel, a geometry the kernel cannot take, or the first fault of a wave
    /// (memory fault, unimplemented instruction, trap, instruction limit) with the
    /// work-group, wave and program counter where it happened.
    pub fn dispatch(
        &mut self,
        name: &str,
        kernarg: &[u8],
        launch: &Launch,
        limits: Limits,
    ) -> Result<Stats, Error> {
        let k = self
            .co
            .kernel(name)
            .ok_or_else(|| Error::new(format!("the code object has no kernel {name}")))?
            .clone();
        let threads: u64 = launch.block.iter().map(|&b| b as u64).product();
        if threads == 0 || threads > 1024 || launch.grid.contains(&0) {
            return Err(Error::new(format!(
                "{name}: cannot launch block {:?} grid {:?}",
                launch.block, launch.grid
            )));
        }
        if k.desc.flag(10) || k.wavefront_size != 64 {
            return Err(Error::new(format!(
                "{name}: a wave32 kernel; the interpreter executes wave64 code"
            )));
        }
        let lds_size = k.desc.group_segment_fixed_size as usize + launch.dyn_lds as usize;
        if lds_size > 64 * 1024 {
            return Err(Error::new(format!(
                "{name}: {lds_size} bytes of LDS exceed the 64 KiB of a work-group"
            )));
        }
        // kernarg segment
        let ka_size = (k.kernarg_segment_size as usize)
            .max(kernarg.len())
            .max(256);
        let mut ka = vec![0u8; ka_size];
        ka[..kernarg.len()].copy_from_slice(kernarg);
        fill_hidden(&k, &mut ka, launch, lds_size as u32);
        let ka_addr = self.mem.alloc(ka.len(), "kernarg segment");
        self.mem.write(ka_addr, &ka)?;
        // dispatch packet (hsa_kernel_dispatch_packet_t)
        let mut pk = vec![0u8; 64];
        let dims = if launch.grid[2] * launch.block[2] > 1 {
            3u16
        } else if launch.grid[1] * launch.block[1] > 1 {
            2
        } else {
            1
        };
        pk[2..4].copy_from_slice(&dims.to_le_bytes());
        for d in 0..3 {
            pk[4 + 2 * d..6 + 2 * d].copy_from_slice(&(launch.block[d] as u16).to_le_bytes());
            let g = launch.grid[d] * launch.block[d];
            pk[12 + 4 * d..16 + 4 * d].copy_from_slice(&g.to_le_bytes());
        }
        pk[24..28].copy_from_slice(&k.private_segment_fixed_size.to_le_bytes());
        pk[28..32].copy_from_slice(&(lds_size as u32).to_le_bytes());
        pk[32..40].copy_from_slice(&(IMAGE_BASE + k.kd_addr).to_le_bytes());
        pk[40..48].copy_from_slice(&ka_addr.to_le_bytes());
        let packet = self.mem.alloc(64, "dispatch packet");
        self.mem.write(packet, &pk)?;
        let queue = self.mem.alloc(256, "queue");
        // scratch backing store for the waves of one work-group
        let nwaves = threads.div_ceil(64);
        let lane_bytes = {
            let fixed = k.private_segment_fixed_size as u64;
            let dynamic = if k.uses_dynamic_stack { 16 * 1024 } else { 0 };
            (fixed + dynamic).div_ceil(256) * 256 + 256
        };
        let wave_bytes = lane_bytes * 64;
        let scratch_size = (wave_bytes * nwaves) as usize;
        if self.mem.region(SCRATCH_BASE).map(|r| r.len()) != Some(scratch_size) {
            self.mem.regions.retain(|r| r.base != SCRATCH_BASE);
            self.mem.map(SCRATCH_BASE, vec![0; scratch_size], "scratch");
        }
        let mut stats = Stats::default();
        let mut clock = 0u64;
        for gz in 0..launch.grid[2] {
            for gy in 0..launch.grid[1] {
                for gx in 0..launch.grid[0] {
                    let mut grp = Group {
                        mem: &mut self.mem,
                        lds: vec![0u8; lds_size],
                        prog: &self.prog,
                        arch: self.arch,
                        packet,
                        clock,
                    };
                    let mut waves: Vec<Wave> = (0..nwaves)
                        .map(|w| {
                            let mut wv = Wave::start(
                                &k,
                                self.arch,
                                w as u32,
                                threads as u32,
                                launch,
                                [gx, gy, gz],
                                [packet, queue, ka_addr],
                                SCRATCH_BASE + w * wave_bytes,
                                lane_bytes as u32,
                                IMAGE_BASE + k.entry,
                            );
                            wv.nan_last = limits.nan_last;
                            wv.approx_perturb = limits.approx_perturb;
                            wv
                        })
                        .collect();
                    run_group(&mut grp, &mut waves, limits, &mut stats).map_err(|e| {
                        Error::new(format!("{name}: work-group ({gx}, {gy}, {gz}): {}", e.msg))
                    })?;
                    clock = grp.clock;
                    stats.workgroups += 1;
                    stats.waves += nwaves;
                }
            }
        }
        Ok(stats)
    }
}

/// Fill the COV5 hidden kernel arguments the metadata lists (AMDGPUUsage, "Code Object V5
/// Metadata", hidden_* value kinds); unknown ones stay zero.
fn fill_hidden(k: &Kernel, ka: &mut [u8], l: &Launch, lds: u32) {
    for a in &k.args {
        let o = a.offset as usize;
        let put = |ka: &mut [u8], v: u64| {
            let n = (a.size as usize).min(8);
            if o + n <= ka.len() {
                ka[o..o + n].copy_from_slice(&v.to_le_bytes()[..n]);
            }
        };
        let dim = |s: &str| -> usize {
            match s.chars().last() {
                Some('y') => 1,
                Some('z') => 2,
                _ => 0,
            }
        };
        match a.kind.as_str() {
            "hidden_block_count_x" | "hidden_block_count_y" | "hidden_block_count_z" => {
                put(ka, l.grid[dim(&a.kind)] as u64)
            }
            "hidden_group_size_x" | "hidden_group_size_y" | "hidden_group_size_z" => {
                put(ka, l.block[dim(&a.kind)] as u64)
            }
            "hidden_remainder_x" | "hidden_remainder_y" | "hidden_remainder_z" => put(ka, 0),
            "hidden_grid_dims" => put(
                ka,
                if l.grid[2] * l.block[2] > 1 {
                    3
                } else if l.grid[1] * l.block[1] > 1 {
                    2
                } else {
                    1
                },
            ),
            "hidden_dynamic_lds_size" => put(ka, l.dyn_lds as u64),
            "hidden_private_base" => put(ka, PRIVATE_APERTURE_HI as u64),
            "hidden_shared_base" => put(ka, SHARED_APERTURE_HI as u64),
            _ => {}
        }
    }
    let _ = lds;
}

fn run_group(
    g: &mut Group<'_>,
    waves: &mut [Wave],
    limits: Limits,
    stats: &mut Stats,
) -> Result<(), Error> {
    #[derive(Clone, Copy, PartialEq)]
    enum St {
        Run,
        Bar,
        Done,
    }
    let mut st = vec![St::Run; waves.len()];
    // AMDGPU_EXEC_TRACE=1: every instruction on stderr (wave, pc, instruction)
    let trace = std::env::var_os("AMDGPU_EXEC_TRACE").is_some();
    loop {
        let mut progressed = false;
        for w in 0..waves.len() {
            if st[w] != St::Run {
                continue;
            }
            progressed = true;
            for _ in 0..limits.slice {
                let pc = waves[w].pc;
                if trace {
                    eprintln!(
                        "w{w} {:x} exec={:016x} {}",
                        pc - IMAGE_BASE,
                        waves[w].exec(),
                        g.prog
                            .at(pc)
                            .map(|i| crate::disasm::print(i, g.arch))
                            .unwrap_or_default()
                    );
                }
                let ev = waves[w].step(g).map_err(|e| {
                    Error::new(format!(
                        "wave {w}, pc 0x{:x} ({}): {}",
                        pc - IMAGE_BASE,
                        g.prog
                            .at(pc)
                            .map(|i| crate::disasm::print(i, g.arch))
                            .unwrap_or_default(),
                        e.msg
                    ))
                })?;
                stats.instructions += 1;
                g.clock += 1;
                if stats.instructions > limits.max_instructions {
                    let where_: Vec<String> = waves
                        .iter()
                        .zip(&st)
                        .map(|(w, s)| {
                            let s = match s {
                                St::Run => "running",
                                St::Bar => "at s_barrier",
                                St::Done => "ended",
                            };
                            format!("pc 0x{:x} {s}", w.pc - IMAGE_BASE)
                        })
                        .collect();
                    return Err(Error::new(format!(
                        "more than {} wave instructions: the kernel does not end (waves: {})",
                        limits.max_instructions,
                        where_.join("; ")
                    )));
                }
                match ev {
                    Event::Next => {}
                    Event::Sleep => break,
                    Event::Barrier => {
                        st[w] = St::Bar;
                        break;
                    }
                    Event::End => {
                        st[w] = St::Done;
                        break;
                    }
                }
            }
        }
        if st.iter().all(|s| *s == St::Done) {
            return Ok(());
        }
        if st.iter().all(|s| *s != St::Run) {
            // every live wave waits at the barrier: release them
            for s in st.iter_mut() {
                if *s == St::Bar {
                    *s = St::Run;
                }
            }
            continue;
        }
        if !progressed {
            return Err(Error::new("no wave can run"));
        }
    }
}

/// Run raw instruction bytes (ending with `s_endpgm`) as one wavefront of a one-wave
/// work-group with `lds_bytes` of LDS, after `init` has set its registers; the wave starts
/// with EXEC all ones and MODE = round to nearest even, denormals kept, DX10_CLAMP and
/// IEEE set. For the ISA's examples and small tests.
///
/// # Errors
/// A decode error, a fault, or more than `max` instructions.
pub fn run_snippet(
    arch: Arch,
    code: &[u8],
    mem: &mut Memory,
    lds_bytes: usize,
    max: u64,
    init: &dyn Fn(&mut Wave),
) -> Result<Wave, Error> {
    let dec = Decoder::new(arch);
    let base = 0x1000u64;
    let mut slots = vec![None; code.len() / 4 + 1];
    for (pc, i) in dec.decode_all(code, base)? {
        slots[((pc - base) / 4) as usize] = Some(i);
    }
    let prog = Program { base, slots };
    let mut w = Wave::bare(arch, base);
    init(&mut w);
    let mut g = Group {
        mem,
        lds: vec![0; lds_bytes],
        prog: &prog,
        arch,
        packet: 0,
        clock: 0,
    };
    for _ in 0..max {
        match w.step(&mut g)? {
            Event::End => return Ok(w),
            _ => g.clock += 1,
        }
    }
    Err(Error::new(format!(
        "the snippet ran more than {max} instructions"
    )))
}
