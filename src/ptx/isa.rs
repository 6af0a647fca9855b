//! The PTX ISA 9.x opcode list (chapter 9.7 "Instructions") and the per-opcode modifier
//! validation table.
//!
//! # Design
//!
//! An instruction is `opcode{.modifier}* operands;`. The opcode is the first word
//! (`cp` in `cp.async.bulk.tensor.2d...`, `mbarrier` in `mbarrier.try_wait.parity...`); every
//! following `.word` is a modifier. The parser keeps modifiers as borrowed strings in source
//! order and checks each one against a table of legal modifiers for that opcode. The table is
//! data, not code: `src/ptx/modifiers.txt`, compiled in with `include_str!` and parsed once.
//!
//! The check is set membership per opcode — it catches unknown opcodes, misspelt or foreign
//! modifiers (`ld.glbal`, `add.bfly`) and reports them with file:line:col. Which combinations
//! and orders are legal is checked, for the opcodes of [`crate::ptx::grammar::STRICT`], against
//! the instruction-form table `src/ptx/forms.txt` ([`crate::ptx::grammar`]); for the other
//! opcodes it is left to `ptxas` and to the lowering.
//!
//! Table format (one rule per line, `#` starts a comment):
//!
//! ```text
//! @group = .a .b @other-group      # a named set of modifiers
//! opcode: .x .y @group .prefix*   # legal modifiers of one opcode
//! ```
//!
//! A word ending in `*` accepts every modifier starting with that prefix (used for shape
//! families such as `.m64n*` and cache-hint spaces such as `.L2::*`).

use std::collections::HashMap;
use std::sync::OnceLock;

use serde::Serialize;

macro_rules! opcodes {
    ($($v:ident = $s:literal,)*) => {
        /// A PTX ISA 9.x opcode (the first word of an instruction; §9.7).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
        #[repr(u8)]
        pub enum Opcode {
            $(#[doc = concat!("`", $s, "`")] $v,)*
        }

        impl Opcode {
            /// Every opcode, in alphabetical order.
            pub const ALL: &'static [Opcode] = &[$(Opcode::$v,)*];

            /// The spelling, e.g. `"mbarrier"`.
            pub fn name(self) -> &'static str {
                match self { $(Opcode::$v => $s,)* }
            }

            /// Look up an opcode by spelling (case-sensitive, as PTX is).
            pub fn from_name(s: &str) -> Option<Opcode> {
                match s { $($s => Some(Opcode::$v),)* _ => None }
            }
        }
    };
}

opcodes! {
    Abs = "abs", Activemask = "activemask", Add = "add", Addc = "addc", Alloca = "alloca",
    And = "and", Applypriority = "applypriority", Atom = "atom", Bar = "bar", Barrier = "barrier",
    Bfe = "bfe", Bfi = "bfi", Bfind = "bfind", Bmsk = "bmsk", Bra = "bra", Brev = "brev",
    Brkpt = "brkpt", Brx = "brx", Call = "call", Clusterlaunchcontrol = "clusterlaunchcontrol",
    Clz = "clz", Cnot = "cnot", Copysign = "copysign", Cos = "cos", Cp = "cp",
    Createpolicy = "createpolicy", Cvt = "cvt", Cvta = "cvta", Discard = "discard", Div = "div",
    Dp2a = "dp2a", Dp4a = "dp4a", Elect = "elect", Ex2 = "ex2", Exit = "exit", Fence = "fence",
    Fma = "fma", Fns = "fns", Getctarank = "getctarank", Griddepcontrol = "griddepcontrol",
    Isspacep = "isspacep", Istypep = "istypep", Ld = "ld", Ldmatrix = "ldmatrix", Ldu = "ldu",
    Lg2 = "lg2", Lop3 = "lop3", Mad = "mad", Mad24 = "mad24", Madc = "madc", Mapa = "mapa",
    Match = "match", Max = "max", Mbarrier = "mbarrier", Membar = "membar", Min = "min",
    Mma = "mma", Mov = "mov", Movmatrix = "movmatrix", Mul = "mul", Mul24 = "mul24",
    Multimem = "multimem", Nanosleep = "nanosleep", Neg = "neg", Not = "not", Or = "or",
    Pmevent = "pmevent", Popc = "popc", Prefetch = "prefetch", Prefetchu = "prefetchu",
    Prmt = "prmt", Rcp = "rcp", Red = "red", Redux = "redux", Rem = "rem", Ret = "ret",
    Rsqrt = "rsqrt", Sad = "sad", Selp = "selp", Set = "set", Setmaxnreg = "setmaxnreg",
    Setp = "setp", Shf = "shf", Shfl = "shfl", Shl = "shl", Shr = "shr", Sin = "sin",
    Slct = "slct", Sqrt = "sqrt", St = "st", Stackrestore = "stackrestore",
    Stacksave = "stacksave", Stmatrix = "stmatrix", Sub = "sub", Subc = "subc", Suld = "suld",
    Suq = "suq", Sured = "sured", Sust = "sust", Szext = "szext", Tanh = "tanh",
    Tcgen05 = "tcgen05", Tensormap = "tensormap", Testp = "testp", Tex = "tex", Tld4 = "tld4",
    Trap = "trap", Txq = "txq", Vabsdiff = "vabsdiff", Vabsdiff2 = "vabsdiff2",
    Vabsdiff4 = "vabsdiff4", Vadd = "vadd", Vadd2 = "vadd2", Vadd4 = "vadd4", Vavrg2 = "vavrg2",
    Vavrg4 = "vavrg4", Vmad = "vmad", Vmax = "vmax", Vmax2 = "vmax2", Vmax4 = "vmax4",
    Vmin = "vmin", Vmin2 = "vmin2", Vmin4 = "vmin4", Vote = "vote", Vset = "vset",
    Vset2 = "vset2", Vset4 = "vset4", Vshl = "vshl", Vshr = "vshr", Vsub = "vsub",
    Vsub2 = "vsub2", Vsub4 = "vsub4", Wgmma = "wgmma", Wmma = "wmma", Xor = "xor",
}

/// The modifier table source (`src/ptx/modifiers.txt`).
pub const MODIFIER_TABLE: &str = include_str!("modifiers.txt");

/// The compiled modifier table.
pub struct ModifierTable {
    ids: HashMap<&'static str, u16, BuildFx>,
    /// Per opcode: bitset over modifier ids.
    sets: Vec<Vec<u64>>,
    /// Per opcode: accepted prefixes (`.m64n*`).
    prefixes: Vec<Vec<&'static str>>,
    /// Table lines that could not be read (reported by a unit test).
    pub problems: Vec<String>,
}

impl ModifierTable {
    /// Whether `modifier` (with its dot) is legal on `op`.
    #[inline]
    pub fn allows(&self, op: Opcode, modifier: &str) -> bool {
        let i = op as usize;
        if let Some(&id) = self.ids.get(modifier) {
            let set = &self.sets[i];
            let w = (id / 64) as usize;
            if w < set.len() && set[w] & (1u64 << (id % 64)) != 0 {
                return true;
            }
        }
        self.prefixes[i].iter().any(|p| modifier.starts_with(p))
    }

    /// Whether `op` has a row in the table.
    pub fn has_row(&self, op: Opcode) -> bool {
        self.sets[op as usize].iter().any(|w| *w != 0) || !self.prefixes[op as usize].is_empty()
    }

    /// The legal modifiers of `op` (prefix rules end in `*`), sorted.
    pub fn modifiers_of(&self, op: Opcode) -> Vec<&'static str> {
        let set = &self.sets[op as usize];
        let mut v: Vec<&'static str> = self
            .ids
            .iter()
            .filter(|(_, &id)| {
                let w = (id / 64) as usize;
                w < set.len() && set[w] & (1u64 << (id % 64)) != 0
            })
            .map(|(s, _)| *s)
            .collect();
        v.sort_unstable();
        v
    }

    fn build(src: &'static str) -> ModifierTable {
        let mut groups: HashMap<&'static str, Vec<&'static str>> = HashMap::new();
        let mut ids: HashMap<&'static str, u16, BuildFx> = HashMap::default();
        let n = Opcode::ALL.len();
        let mut sets = vec![Vec::new(); n];
        let mut prefixes = vec![Vec::new(); n];
        let mut problems = Vec::new();
        fn expand(
            words: &mut dyn Iterator<Item = &'static str>,
            groups: &HashMap<&'static str, Vec<&'static str>>,
            out: &mut Vec<&'static str>,
            problems: &mut Vec<String>,
        ) {
            for w in words {
                if w.starts_with('@') {
                    match groups.get(w) {
                        Some(g) => out.extend(g.iter().copied()),
                        None => problems.push(format!("unknown group {w}")),
                    }
                } else if w.starts_with('.') {
                    out.push(w);
                } else {
                    problems.push(format!("bad word {w}"));
                }
            }
        }
        for line in src.lines() {
            let line = line.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            if let Some((name, rest)) = line.split_once('=') {
                let name = name.trim();
                let mut out = Vec::new();
                expand(
                    &mut rest.split_whitespace(),
                    &groups,
                    &mut out,
                    &mut problems,
                );
                groups.insert(name, out);
            } else if let Some((op, rest)) = line.split_once(':') {
                let Some(op) = Opcode::from_name(op.trim()) else {
                    problems.push(format!("unknown opcode {op}"));
                    continue;
                };
                let mut out = Vec::new();
                expand(
                    &mut rest.split_whitespace(),
                    &groups,
                    &mut out,
                    &mut problems,
                );
                for w in out {
                    if let Some(p) = w.strip_suffix('*') {
                        prefixes[op as usize].push(p);
                        continue;
                    }
                    let next = ids.len() as u16;
                    let id = *ids.entry(w).or_insert(next);
                    let set: &mut Vec<u64> = &mut sets[op as usize];
                    let word = (id / 64) as usize;
                    if set.len() <= word {
                        set.resize(word + 1, 0);
                    }
                    set[word] |= 1u64 << (id % 64);
                }
            } else {
                problems.push(format!("unreadable line: {line}"));
            }
        }
        ModifierTable {
            ids,
            sets,
            prefixes,
            problems,
        }
    }
}

/// The compiled modifier table (built on first use).
pub fn modifier_table() -> &'static ModifierTable {
    static T: OnceLock<ModifierTable> = OnceLock::new();
    T.get_or_init(|| ModifierTable::build(MODIFIER_TABLE))
}

/// Special registers (PTX ISA 9.x chapter 10), without the `.x/.y/.z` component. `WARP_SZ` is
/// the run-time constant of §4.6 (kept here because it is an operand of the same kind).
pub fn is_special_register(name: &str) -> bool {
    let base = name.split('.').next().unwrap_or(name);
    if let Some(n) = base.strip_prefix("%envreg") {
        return n.parse::<u32>().is_ok_and(|v| v < 32);
    }
    if let Some(n) = base.strip_prefix("%pm") {
        let n = n.strip_suffix("_64").unwrap_or(n);
        return n.len() == 1 && n.as_bytes()[0].is_ascii_digit() && n.as_bytes()[0] < b'8';
    }
    matches!(
        base,
        "%tid"
            | "%ntid"
            | "%laneid"
            | "%warpid"
            | "%nwarpid"
            | "%ctaid"
            | "%nctaid"
            | "%smid"
            | "%nsmid"
            | "%gridid"
            | "%lanemask_eq"
            | "%lanemask_le"
            | "%lanemask_lt"
            | "%lanemask_ge"
            | "%lanemask_gt"
            | "%clock"
            | "%clock_hi"
            | "%clock64"
            | "%globaltimer"
            | "%globaltimer_lo"
            | "%globaltimer_hi"
            | "%reserved_smem_offset_begin"
            | "%reserved_smem_offset_end"
            | "%reserved_smem_offset_cap"
            | "%reserved_smem_offset_0"
            | "%reserved_smem_offset_1"
            | "%total_smem_size"
            | "%aggr_smem_size"
            | "%dynamic_smem_size"
            | "%is_explicit_cluster"
            | "%clusterid"
            | "%nclusterid"
            | "%cluster_ctaid"
            | "%cluster_nctaid"
            | "%cluster_ctarank"
            | "%cluster_nctarank"
            | "%current_graph_exec"
            | "%locality_domain_id"
            | "WARP_SZ"
    )
}

/// A small, fast, non-cryptographic hasher (FxHash-style) for short strings.
#[derive(Default, Clone, Copy)]
pub struct FxHasher(u64);

impl std::hash::Hasher for FxHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        const K: u64 = 0x517c_c1b7_2722_0a95;
        let mut h = self.0;
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let v = u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
            h = (h.rotate_left(5) ^ v).wrapping_mul(K);
        }
        for &b in chunks.remainder() {
            h = (h.rotate_left(5) ^ b as u64).wrapping_mul(K);
        }
        self.0 = h;
    }
    #[inline]
    fn write_u8(&mut self, i: u8) {
        self.0 = (self.0.rotate_left(5) ^ i as u64).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }
}

/// `BuildHasher` for [`FxHasher`].
pub type BuildFx = std::hash::BuildHasherDefault<FxHasher>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_reads_cleanly_and_covers_every_opcode() {
        let t = modifier_table();
        assert!(t.problems.is_empty(), "{:?}", t.problems);
        for &op in Opcode::ALL {
            if !matches!(
                op,
                Opcode::Exit
                    | Opcode::Trap
                    | Opcode::Brkpt
                    | Opcode::Elect
                    | Opcode::Ret
                    | Opcode::Call
                    | Opcode::Bra
            ) {
                assert!(t.has_row(op), "no modifier row for {}", op.name());
            }
        }
        assert!(t.allows(Opcode::Ld, ".global"));
        assert!(t.allows(Opcode::Wgmma, ".m64n120k16"));
        assert!(!t.allows(Opcode::Ld, ".bfly"));
    }

    #[test]
    fn special_registers() {
        assert!(is_special_register("%tid.x"));
        assert!(is_special_register("%envreg31"));
        assert!(!is_special_register("%envreg32"));
        assert!(is_special_register("%pm7_64"));
        assert!(!is_special_register("%r1"));
    }
}
