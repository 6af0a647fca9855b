//! The modifier words ([`Mod`]), sets of them ([`ModSet`]) and the table that finds a word's
//! [`Mod`] and class.

use std::sync::OnceLock;

use super::classes::{default_class, op_group, Class, EXCLUSIVE, FAMILIES};
use super::Opcode;

macro_rules! mods {
    ($($v:ident = $s:literal,)*) => {
        /// One modifier word of PTX ISA 9.x (every word of `src/ptx/modifiers.txt`), or a family
        /// of words that share a prefix (spelled with a trailing `*`, e.g. `.L2::*`).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[repr(u16)]
        pub enum Mod {
            $(#[doc = concat!("`", $s, "`")] $v,)*
        }

        impl Mod {
            /// Every modifier and family, in the order of the enum.
            pub const ALL: &'static [Mod] = &[$(Mod::$v,)*];

            /// The spelling with its dot (`".global"`; a family ends in `*`).
            pub fn name(self) -> &'static str {
                match self { $(Mod::$v => $s,)* }
            }
        }
    };
}

mods! {
    N128x128b = ".128x128b",
    N128x256b = ".128x256b",
    N16x128b = ".16x128b",
    N16x256b = ".16x256b",
    N16x32bx2 = ".16x32bx2",
    N16x64b = ".16x64b",
    N1d = ".1d",
    N2d = ".2d",
    N2dms = ".2dms",
    N2pi = ".2pi",
    N32x32b = ".32x32b",
    N3d = ".3d",
    N4d = ".4d",
    N4x256b = ".4x256b",
    N5d = ".5d",
    N64x128b = ".64x128b",
    L1 = ".L1",
    L2 = ".L2",
    L2CacheHint = ".L2::cache_hint",
    NaN = ".NaN",
    A = ".a",
    A1d = ".a1d",
    A2d = ".a2d",
    A2dms = ".a2dms",
    Abs = ".abs",
    AccF16 = ".acc::f16",
    AccF32 = ".acc::f32",
    AcqRel = ".acq_rel",
    Acquire = ".acquire",
    Acube = ".acube",
    Add = ".add",
    AddrMode0 = ".addr_mode_0",
    AddrMode1 = ".addr_mode_1",
    AddrMode2 = ".addr_mode_2",
    AfterThreadSync = ".after_thread_sync",
    Alias = ".alias",
    Aligned = ".aligned",
    All = ".all",
    Alloc = ".alloc",
    AllocClass = ".alloc_class",
    And = ".and",
    Any = ".any",
    Approx = ".approx",
    ArraySize = ".array_size",
    Arrive = ".arrive",
    ArriveDrop = ".arrive_drop",
    Ashift = ".ashift",
    Async = ".async",
    B = ".b",
    B1 = ".b1",
    B1024 = ".b1024",
    B128 = ".b128",
    B16 = ".b16",
    B32 = ".b32",
    B4 = ".b4",
    B4e = ".b4e",
    B4x16P64 = ".b4x16_p64",
    B6 = ".b6",
    B64 = ".b64",
    B6x16P32 = ".b6x16_p32",
    B8 = ".b8",
    B8x16 = ".b8x16",
    Ballot = ".ballot",
    Base = ".base",
    BeforeThreadSync = ".before_thread_sync",
    Bf16 = ".bf16",
    Bf16x2 = ".bf16x2",
    Bfly = ".bfly",
    Block16 = ".block16",
    Block32 = ".block32",
    BlockScale = ".block_scale",
    BoxDim = ".box_dim",
    Bulk = ".bulk",
    BulkGroup = ".bulk_group",
    C = ".c",
    Ca = ".ca",
    Cas = ".cas",
    Cc = ".cc",
    Cg = ".cg",
    ChannelDataType = ".channel_data_type",
    ChannelOrder = ".channel_order",
    Clamp = ".clamp",
    Cluster = ".cluster",
    Col = ".col",
    Commit = ".commit",
    CommitGroup = ".commit_group",
    CompleteTx = ".complete_tx",
    Const = ".const",
    Cp = ".cp",
    CpFenceproxy = ".cp_fenceproxy",
    CpMask = ".cp_mask",
    Cs = ".cs",
    Cta = ".cta",
    CtaGroup1 = ".cta_group::1",
    CtaGroup2 = ".cta_group::2",
    Cube = ".cube",
    Cv = ".cv",
    Cvt = ".cvt",
    D = ".d",
    Dealloc = ".dealloc",
    Dec = ".dec",
    Depth = ".depth",
    DisableOutputLane = ".disable_output_lane",
    Down = ".down",
    E2m1 = ".e2m1",
    E2m1x2 = ".e2m1x2",
    E2m1x4 = ".e2m1x4",
    E2m3 = ".e2m3",
    E2m3x2 = ".e2m3x2",
    E2m3x4 = ".e2m3x4",
    E3m2 = ".e3m2",
    E3m2x2 = ".e3m2x2",
    E3m2x4 = ".e3m2x4",
    E4m3 = ".e4m3",
    E4m3x2 = ".e4m3x2",
    E4m3x4 = ".e4m3x4",
    E5m2 = ".e5m2",
    E5m2x2 = ".e5m2x2",
    E5m2x4 = ".e5m2x4",
    Ecl = ".ecl",
    Ecr = ".ecr",
    ElementStride = ".element_stride",
    Elemtype = ".elemtype",
    Eq = ".eq",
    Equ = ".equ",
    Exch = ".exch",
    ExpectTx = ".expect_tx",
    F16 = ".f16",
    F16x2 = ".f16x2",
    F32 = ".f32",
    F32x2 = ".f32x2",
    F4e = ".f4e",
    F64 = ".f64",
    Fence = ".fence",
    FenceAfterThreadSync = ".fence::after_thread_sync",
    FenceBeforeThreadSync = ".fence::before_thread_sync",
    FillMode = ".fill_mode",
    FilterMode = ".filter_mode",
    Finite = ".finite",
    ForceUnnormalizedCoords = ".force_unnormalized_coords",
    Fractional = ".fractional",
    Ftz = ".ftz",
    Full = ".full",
    G = ".g",
    Ge = ".ge",
    GetFirstCtaid = ".get_first_ctaid",
    GetFirstCtaidX = ".get_first_ctaid::x",
    GetFirstCtaidY = ".get_first_ctaid::y",
    GetFirstCtaidZ = ".get_first_ctaid::z",
    Geu = ".geu",
    Gl = ".gl",
    Global = ".global",
    GlobalAddress = ".global_address",
    GlobalDim = ".global_dim",
    GlobalStride = ".global_stride",
    Gpu = ".gpu",
    Grad = ".grad",
    Gt = ".gt",
    Gtu = ".gtu",
    Height = ".height",
    Hi = ".hi",
    Hs = ".hs",
    Idx = ".idx",
    IgnoreOob = ".ignore_oob",
    Im2col = ".im2col",
    Im2colNoOffs = ".im2col_no_offs",
    Inc = ".inc",
    Infinite = ".infinite",
    Init = ".init",
    InterleaveLayout = ".interleave_layout",
    Inval = ".inval",
    IsCanceled = ".is_canceled",
    L = ".l",
    LaunchDependents = ".launch_dependents",
    Ld = ".ld",
    LdReduce = ".ld_reduce",
    Le = ".le",
    Leu = ".leu",
    Level = ".level",
    Lo = ".lo",
    Load = ".load",
    Local = ".local",
    Ls = ".ls",
    Lt = ".lt",
    Ltu = ".ltu",
    Lu = ".lu",
    M16n16 = ".m16n16",
    M16n16k16 = ".m16n16k16",
    M16n16k8 = ".m16n16k8",
    M16n8 = ".m16n8",
    M16n8k128 = ".m16n8k128",
    M16n8k16 = ".m16n8k16",
    M16n8k256 = ".m16n8k256",
    M16n8k32 = ".m16n8k32",
    M16n8k4 = ".m16n8k4",
    M16n8k64 = ".m16n8k64",
    M16n8k8 = ".m16n8k8",
    M32n8k16 = ".m32n8k16",
    M8n16 = ".m8n16",
    M8n32k16 = ".m8n32k16",
    M8n8 = ".m8n8",
    M8n8k128 = ".m8n8k128",
    M8n8k16 = ".m8n8k16",
    M8n8k32 = ".m8n8k32",
    M8n8k4 = ".m8n8k4",
    Mask = ".mask",
    Max = ".max",
    Mbarrier = ".mbarrier",
    MbarrierArriveOne = ".mbarrier::arrive::one",
    MbarrierCompleteTxBytes = ".mbarrier::complete_tx::bytes",
    MbarrierInit = ".mbarrier_init",
    MemoryLayout = ".memory_layout",
    Min = ".min",
    Mma = ".mma",
    MmaAsync = ".mma_async",
    Mmio = ".mmio",
    MulticastCluster = ".multicast::cluster",
    MulticastClusterAll = ".multicast::cluster::all",
    Nan = ".nan",
    Nc = ".nc",
    Ne = ".ne",
    Neu = ".neu",
    NoComplete = ".noComplete",
    Noftz = ".noftz",
    Noinc = ".noinc",
    Normal = ".normal",
    NormalizedCoords = ".normalized_coords",
    Notanumber = ".notanumber",
    Num = ".num",
    NumMipmapLevels = ".num_mipmap_levels",
    NumSamples = ".num_samples",
    Number = ".number",
    Oob = ".oob",
    Or = ".or",
    P = ".p",
    Pack = ".pack",
    Pack16b = ".pack::16b",
    Param = ".param",
    ParamEntry = ".param::entry",
    ParamFunc = ".param::func",
    Parity = ".parity",
    PendingCount = ".pending_count",
    Po = ".po",
    Popc = ".popc",
    Pred = ".pred",
    Prefetch = ".prefetch",
    Proxy = ".proxy",
    QueryCancel = ".query_cancel",
    R = ".r",
    Range = ".range",
    Rank = ".rank",
    Rc16 = ".rc16",
    Rc8 = ".rc8",
    Read = ".read",
    Red = ".red",
    Reduce = ".reduce",
    Relaxed = ".relaxed",
    Release = ".release",
    RelinquishAllocPermit = ".relinquish_alloc_permit",
    Relu = ".relu",
    Replace = ".replace",
    Rm = ".rm",
    Rmi = ".rmi",
    Rn = ".rn",
    Rna = ".rna",
    Rni = ".rni",
    Row = ".row",
    Rp = ".rp",
    Rpi = ".rpi",
    Rs = ".rs",
    Rz = ".rz",
    Rzi = ".rzi",
    S16 = ".s16",
    S16x2 = ".s16x2",
    S2 = ".s2",
    S2f6x2 = ".s2f6x2",
    S32 = ".s32",
    S4 = ".s4",
    S64 = ".s64",
    S8 = ".s8",
    S8x4 = ".s8x4",
    Samplerref = ".samplerref",
    Samples = ".samples",
    Sat = ".sat",
    Satfinite = ".satfinite",
    Sc = ".sc",
    Shared = ".shared",
    SharedCluster = ".shared::cluster",
    SharedCta = ".shared::cta",
    Shift = ".shift",
    Shiftamt = ".shiftamt",
    Shr15 = ".shr15",
    Shr7 = ".shr7",
    Sp = ".sp",
    SpOrderedMetadata = ".sp::ordered_metadata",
    St = ".st",
    Store = ".store",
    Subnormal = ".subnormal",
    Surfref = ".surfref",
    SwizzleAtomicity = ".swizzle_atomicity",
    SwizzleMode = ".swizzle_mode",
    Sync = ".sync",
    Sys = ".sys",
    Tensor = ".tensor",
    Tensormap = ".tensormap",
    TensormapGeneric = ".tensormap::generic",
    TestWait = ".test_wait",
    Texref = ".texref",
    Tf32 = ".tf32",
    Tile = ".tile",
    To = ".to",
    Trans = ".trans",
    Trap = ".trap",
    TryCancel = ".try_cancel",
    TryWait = ".try_wait",
    U16 = ".u16",
    U16x2 = ".u16x2",
    U2 = ".u2",
    U32 = ".u32",
    U4 = ".u4",
    U64 = ".u64",
    U8 = ".u8",
    U8x4 = ".u8x4",
    Ue4m3 = ".ue4m3",
    Ue8m0 = ".ue8m0",
    Ue8m0x2 = ".ue8m0x2",
    Uni = ".uni",
    Unified = ".unified",
    Unpack16b = ".unpack::16b",
    Up = ".up",
    V2 = ".v2",
    V4 = ".v4",
    V8 = ".v8",
    Volatile = ".volatile",
    Wait = ".wait",
    WaitLd = ".wait::ld",
    WaitSt = ".wait::st",
    WaitAll = ".wait_all",
    WaitGroup = ".wait_group",
    Warp = ".warp",
    Warpx20123 = ".warpx2::01_23",
    Warpx20213 = ".warpx2::02_13",
    Warpx4 = ".warpx4",
    Wb = ".wb",
    Weak = ".weak",
    Wide = ".wide",
    Width = ".width",
    Wrap = ".wrap",
    Ws = ".ws",
    Wt = ".wt",
    X1 = ".x1",
    X2 = ".x2",
    X4 = ".x4",
    Xor = ".xor",
    Xorsign = ".xorsign",
    Zero = ".zero",
    L1Any = ".L1::*",
    L2Any = ".L2::*",
    LevelAny = ".level::*",
    GlobalAny = ".global::*",
    AsyncAny = ".async::*",
    CollectorAny = ".collector::*",
    Im2colAny = ".im2col::*",
    KindAny = ".kind::*",
    M64nAny = ".m64n*",
    OpRestrictAny = ".op_restrict::*",
    ProxyAny = ".proxy::*",
    ScaleVecAny = ".scale_vec::*",
    SyncRestrictAny = ".sync_restrict::*",
    TileAny = ".tile::*",
    XAny = ".x*",
}

/// Number of [`Mod`]s.
const NMODS: usize = Mod::ALL.len();
/// `u64` words of a [`ModSet`].
const SET_WORDS: usize = NMODS.div_ceil(64);

/// A set of [`Mod`]s (a bitset).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct ModSet([u64; SET_WORDS]);

impl ModSet {
    /// The empty set.
    pub const EMPTY: ModSet = ModSet([0; SET_WORDS]);

    /// The set of `ms`.
    pub const fn of(ms: &[Mod]) -> ModSet {
        let mut s = [0u64; SET_WORDS];
        let mut i = 0;
        while i < ms.len() {
            let k = ms[i] as usize;
            s[k / 64] |= 1 << (k % 64);
            i += 1;
        }
        ModSet(s)
    }

    /// Whether `m` is in the set.
    #[inline(always)]
    pub fn contains(&self, m: Mod) -> bool {
        let k = m as usize;
        self.0[k / 64] & (1 << (k % 64)) != 0
    }

    /// Add `m`; returns whether it was already there.
    #[inline(always)]
    pub(super) fn insert(&mut self, m: Mod) -> bool {
        let k = m as usize;
        let w = &mut self.0[k / 64];
        let had = *w & (1 << (k % 64)) != 0;
        *w |= 1 << (k % 64);
        had
    }

    /// The number of members.
    pub fn len(&self) -> usize {
        self.0.iter().map(|w| w.count_ones() as usize).sum()
    }

    /// Whether the set is empty.
    pub fn is_empty(&self) -> bool {
        self.0.iter().all(|w| *w == 0)
    }

    /// The members that are also in `o`.
    pub fn intersection(&self, o: &ModSet) -> ModSet {
        let mut s = *self;
        for (a, b) in s.0.iter_mut().zip(o.0) {
            *a &= b;
        }
        s
    }

    /// Whether every member is also in `o`.
    pub fn is_subset(&self, o: &ModSet) -> bool {
        self.0.iter().zip(o.0).all(|(a, b)| a & !b == 0)
    }

    /// The members, in enum order.
    pub fn iter(&self) -> impl Iterator<Item = Mod> + '_ {
        Mod::ALL.iter().copied().filter(|m| self.contains(*m))
    }
}

/// The bytes of a modifier word after its dot (`[A-Za-z0-9_$:]`).
pub(super) static WORD_BYTE: [bool; 256] = {
    let mut t = [false; 256];
    let mut i = 0;
    while i < 256 {
        let c = i as u8;
        t[i] = c.is_ascii_alphanumeric() || matches!(c, b'_' | b'$' | b':');
        i += 1;
    }
    t
};

/// The decoding tables, built once.
pub(super) struct Tables {
    /// Open-addressing table of the exact words, by [`word_key`]: the key (`u64::MAX` marks
    /// an empty slot), and the word's length and modifier.
    pub(super) keys: Vec<(u64, u64)>,
    pub(super) vals: Vec<(u32, Mod)>,
    pub(super) mask: usize,
    /// Per modifier, its default class.
    pub(super) class: Vec<Class>,
    /// Per modifier, whether it is in an [`EXCLUSIVE`] group.
    pub(super) exclusive: Vec<bool>,
    /// Per opcode, its operation group.
    pub(super) groups: Vec<ModSet>,
}

/// A word's bytes as two `u64`s read at its start and end (overlapping for short words):
/// with the length, they tell apart any two words of up to 16 bytes; longer words are also
/// compared by text.
#[inline(always)]
fn word_key(w: &[u8]) -> (u64, u64) {
    use std::ptr::read_unaligned as rd;
    let n = w.len();
    let p = w.as_ptr();
    // SAFETY: every read lies within `w[..n]` (each branch bounds `n`).
    unsafe {
        if n >= 8 {
            (
                u64::from_le(rd(p as *const u64)),
                u64::from_le(rd(p.add(n - 8) as *const u64)),
            )
        } else if n >= 4 {
            let lo = u32::from_le(rd(p as *const u32)) as u64;
            let hi = u32::from_le(rd(p.add(n - 4) as *const u32)) as u64;
            (lo | hi << 32, n as u64)
        } else if n >= 2 {
            let lo = u16::from_le(rd(p as *const u16)) as u64;
            let hi = u16::from_le(rd(p.add(n - 2) as *const u16)) as u64;
            (lo | hi << 16, n as u64)
        } else if n == 1 {
            (*p as u64, 1)
        } else {
            (0, 0)
        }
    }
}

#[inline(always)]
fn slot_of(key: (u64, u64), n: usize, mask: usize) -> usize {
    let x = key.0 ^ key.1.rotate_left(29) ^ n as u64;
    (x.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 40) as usize & mask
}

#[inline]
pub(super) fn tables() -> &'static Tables {
    static T: OnceLock<Tables> = OnceLock::new();
    T.get_or_init(|| {
        let size = (NMODS * 2).next_power_of_two();
        let mask = size - 1;
        let mut keys = vec![(u64::MAX, u64::MAX); size];
        let mut vals = vec![(0u32, Mod::ALL[0]); size];
        for &m in Mod::ALL {
            let name = m.name();
            if name.ends_with('*') {
                continue;
            }
            let key = word_key(name.as_bytes());
            let mut s = slot_of(key, name.len(), mask);
            while keys[s] != (u64::MAX, u64::MAX) {
                s = (s + 1) & mask;
            }
            keys[s] = key;
            vals[s] = (name.len() as u32, m);
        }
        let class = Mod::ALL.iter().map(|&m| default_class(m)).collect();
        let exclusive = Mod::ALL
            .iter()
            .map(|m| EXCLUSIVE.iter().any(|g| g.contains(m)))
            .collect();
        let groups = Opcode::ALL
            .iter()
            .map(|&op| ModSet::of(op_group(op)))
            .collect();
        Tables {
            keys,
            vals,
            mask,
            class,
            exclusive,
            groups,
        }
    })
}

/// The [`Mod`] of a modifier word (with its dot): an exact word, else its prefix family.
pub fn lookup(word: &str) -> Option<Mod> {
    lookup_in(tables(), word.as_bytes())
}

#[inline(always)]
pub(super) fn lookup_in(t: &Tables, b: &[u8]) -> Option<Mod> {
    let n = b.len();
    let key = word_key(b);
    let mut s = slot_of(key, n, t.mask);
    loop {
        let k = t.keys[s];
        if k == key {
            let (len, m) = t.vals[s];
            if len as usize == n && (n <= 16 || m.name().as_bytes() == b) {
                return Some(m);
            }
        } else if k == (u64::MAX, u64::MAX) {
            return lookup_family(b);
        }
        s = (s + 1) & t.mask;
    }
}

/// The prefix family of a word not in the table (one of word bytes after its dot).
#[cold]
fn lookup_family(b: &[u8]) -> Option<Mod> {
    if !b
        .get(1..)
        .unwrap_or(&[])
        .iter()
        .all(|&c| WORD_BYTE[c as usize])
    {
        return None;
    }
    FAMILIES
        .iter()
        .find(|(p, _)| b.starts_with(p.as_bytes()) && b.len() > p.len())
        .map(|&(_, m)| m)
}

/// The class of modifier `m` on opcode `op`.
pub fn class_of(op: Opcode, m: Mod) -> Class {
    let t = tables();
    class_in(t, op, m)
}

#[inline(always)]
pub(super) fn class_in(t: &Tables, op: Opcode, m: Mod) -> Class {
    if t.groups[op as usize].contains(m) {
        Class::Op
    } else {
        t.class[m as usize]
    }
}
