//! The entry points of a CUDA runtime linked into a host object (`nvcc -cudart static`, the
//! default: CuPy, XGBoost, RAPIDS).
//!
//! In such an object the runtime's public functions (`cudaMalloc`, `cudaLaunchKernel`,
//! `__cudaRegisterFatBinary`, ...) are the object's own local functions, which its code
//! calls directly; the runtime reaches the GPU through NVIDIA's driver API. wheelport
//! re-targets such an object by rebinding those entry points: each one that the object's
//! own code refers to becomes a jump through a GOT slot to the function its relink-table row
//! names (`crate::relink::plan_static`, `crate::rewrite::Rebind`), so the runtime's
//! internals are never entered.
//!
//! What is read here, from `.symtab` (a stripped object has no entry points to rebind and
//! is reported as not converted): every defined `STT_FUNC` symbol named `cuda*` or
//! `__cuda*` (the runtime's exports, `nvidia-cuda-runtime` 12.x and 13.x) with its address
//! and size, and the ranges of the runtime's internal functions (CUDA 12.x and 13.x static
//! runtimes name them `libcudart_static_<hash>`). During the host-code decode of
//! [`super::registration`] each direct call or jump and each RIP-relative address is
//! checked against the entry points ([`StaticRuntimeScan::observe`]); one made from code
//! outside the runtime marks the entry point as referenced. A dynamic relocation whose
//! addend is an entry point's address (a function pointer in data) marks it too.

use iced_x86::Instruction;
use std::collections::HashMap;

/// Prefixes of the runtime's exported function names.
const EXPORT_PREFIXES: [&str; 2] = ["cuda", "__cuda"];
/// Prefix of the static runtime's internal function names (CUDA 12.x, 13.x).
const INTERNAL_PREFIX: &str = "libcudart_static_";

/// One exported function of a statically linked CUDA runtime.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StaticEntry {
    /// The function's name (`cudaMalloc`).
    pub name: String,
    /// Its address (`st_value`).
    pub address: u64,
    /// Its size in bytes (`st_size`).
    pub size: u64,
    /// Whether code outside the runtime, or a function pointer in data, refers to it.
    pub referenced: bool,
}

/// The entry points of a static runtime and the ranges of its code, filled while the host
/// code is decoded.
#[derive(Debug, Clone, Default)]
pub struct StaticRuntimeScan {
    /// The exported functions, sorted by address.
    pub entries: Vec<StaticEntry>,
    /// Index in `entries` by address.
    by_address: HashMap<u64, usize>,
    /// `(start, end)` of every function of the runtime (exports and internals), sorted.
    ranges: Vec<(u64, u64)>,
}

impl StaticRuntimeScan {
    /// The entry points among `symbols`: `(name, address, size)` of the object's defined
    /// `STT_FUNC` symbols.
    pub fn new<'a>(symbols: impl Iterator<Item = (&'a [u8], u64, u64)>) -> StaticRuntimeScan {
        let mut s = StaticRuntimeScan::default();
        for (name, address, size) in symbols {
            let Ok(name) = std::str::from_utf8(name) else {
                continue;
            };
            let export = EXPORT_PREFIXES.iter().any(|p| name.starts_with(p));
            if export || name.starts_with(INTERNAL_PREFIX) {
                s.ranges.push((address, address + size.max(1)));
            }
            if export && size > 0 {
                s.entries.push(StaticEntry {
                    name: name.to_string(),
                    address,
                    size,
                    referenced: false,
                });
            }
        }
        s.entries
            .sort_by(|a, b| a.address.cmp(&b.address).then(a.name.cmp(&b.name)));
        // Aliases (two names at one address) keep the first name's entry.
        s.entries.dedup_by_key(|e| e.address);
        s.by_address = s
            .entries
            .iter()
            .enumerate()
            .map(|(i, e)| (e.address, i))
            .collect();
        s.ranges.sort_unstable();
        s
    }

    /// Whether `address` lies in a function of the runtime.
    fn in_runtime(&self, address: u64) -> bool {
        let i = self.ranges.partition_point(|r| r.0 <= address);
        i > 0 && address < self.ranges[i - 1].1
    }

    /// Note `i`'s reference to an entry point (a direct branch target or a RIP-relative
    /// address) when `i` is outside the runtime.
    pub fn observe(&mut self, i: &Instruction) {
        let target = if i.is_call_near() || i.is_jmp_near() || i.is_jcc_short_or_near() {
            i.near_branch_target()
        } else if i.is_ip_rel_memory_operand() {
            i.ip_rel_memory_address()
        } else {
            return;
        };
        if let Some(&k) = self.by_address.get(&target) {
            if !self.entries[k].referenced && !self.in_runtime(i.ip()) {
                self.entries[k].referenced = true;
            }
        }
    }

    /// Note a dynamic relocation's addend (`R_X86_64_RELATIVE`: a pointer in data).
    pub fn observe_pointer(&mut self, addend: u64) {
        if let Some(&k) = self.by_address.get(&addend) {
            self.entries[k].referenced = true;
        }
    }
}
