//! Typed modifiers: the `.word` modifiers of an instruction decoded, in one pass over the
//! words and independent of their order, into typed fields ([`Mods`]).
//!
//! `ptxas` reads most modifiers in any order (`ld.global.acquire.gpu.b32` and
//! `ld.acquire.gpu.global.b32` are the same instruction); what is positional is the order
//! *within* a few classes: the types (`cvt.f32.s32` converts from `.s32` to `.f32`), the state
//! spaces of a copy (`cp.async.bulk.shared::cluster.global`: destination, then source) and the
//! matrix layouts (`mma .row.col`: A, then B). [`Mods`] keeps those three as ordered lists and
//! everything else as order-free fields:
//!
//! * the state spaces ([`StateSpace`]), memory semantics ([`Sem`]), scope ([`Scope`]), cache
//!   operator ([`CacheOp`]), rounding ([`Rounding`]), comparison ([`CmpOp`]) and boolean
//!   operation ([`BoolOp`]), vector width, shape ([`Shape`]) and layouts ([`Layout`]);
//! * the opcode's *operation* word, [`Mods::op`]: the word of the opcode's own exclusive group
//!   (`atom`'s `.add`/`.cas`/..., `shfl`'s `.up`/`.down`/`.bfly`/`.idx`, `vote`'s
//!   `.all`/`.any`/`.uni`/`.ballot`, `mul`'s `.lo`/`.hi`/`.wide`, `mbarrier`'s `.arrive`/...,
//!   see [`op_group`]);
//! * every word present, as a set of [`Mod`]s ([`Mods::has`]).
//!
//! Decoding reports two modifiers of one exclusive class (`.rn.rz`, `.acquire.release`,
//! `atom.add.or`, two vector widths) as a [`ModError`]; a word repeated where the class holds
//! one value (`.ftz.ftz`) is kept and noted ([`Mods::duplicate`]). The parser turns both into
//! diagnostics (an error and a warning) when it first meets an opcode head.
//!
//! [`canonical_words`] orders the words of a form by class (the order-free classes in a fixed
//! order, the ordered ones as written), which is how the supported-forms table
//! ([`crate::ptx::analysis::is_supported`]) accepts every order of a form.

use std::fmt;
use std::sync::OnceLock;

use super::ast::{Modifiers, StateSpace, Type};
use super::isa::Opcode;

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
    fn insert(&mut self, m: Mod) -> bool {
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

macro_rules! word_enum {
    ($(#[$doc:meta])* $name:ident { $($v:ident = $s:literal,)* }) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum $name {
            $(#[doc = concat!("`", $s, "`")] $v,)*
        }

        impl $name {
            /// The spelling with its dot.
            pub fn name(self) -> &'static str {
                match self { $($name::$v => $s,)* }
            }

            /// The spelling without its dot (`"rn"`).
            pub fn bare(self) -> &'static str {
                &self.name()[1..]
            }
        }
    };
}

word_enum! {
    /// Memory-consistency semantics of a memory operation or fence (PTX ISA 9.x §8.4, §9.7.9.8,
    /// §9.7.13.4): `.weak`, `.volatile`, `.relaxed`, `.acquire`, `.release`, `.acq_rel`, `.sc`.
    Sem {
        Weak = ".weak",
        Volatile = ".volatile",
        Relaxed = ".relaxed",
        Acquire = ".acquire",
        Release = ".release",
        AcqRel = ".acq_rel",
        Sc = ".sc",
    }
}

word_enum! {
    /// The scope of a memory operation, fence or barrier (§8.5): `.cta`, `.cluster`, `.gpu`,
    /// `.sys`, and `membar`'s `.gl` (the same scope as `.gpu`).
    Scope {
        Cta = ".cta",
        Cluster = ".cluster",
        Gpu = ".gpu",
        Sys = ".sys",
        Gl = ".gl",
    }
}

word_enum! {
    /// A cache operator of `ld`/`st`/`cp.async` (§9.7.9.1): `.ca`, `.cg`, `.cs`, `.lu`, `.cv`,
    /// `.wb`, `.wt`.
    CacheOp {
        Ca = ".ca",
        Cg = ".cg",
        Cs = ".cs",
        Lu = ".lu",
        Cv = ".cv",
        Wb = ".wb",
        Wt = ".wt",
    }
}

word_enum! {
    /// A rounding modifier (§9.7.3, §9.7.9.21): floating-point `.rn .rz .rm .rp .rna .rs` and
    /// integer `.rni .rzi .rmi .rpi`.
    Rounding {
        Rn = ".rn",
        Rz = ".rz",
        Rm = ".rm",
        Rp = ".rp",
        Rna = ".rna",
        Rs = ".rs",
        Rni = ".rni",
        Rzi = ".rzi",
        Rmi = ".rmi",
        Rpi = ".rpi",
    }
}

impl Rounding {
    /// Whether this is one of the directed float roundings `.rz`, `.rm`, `.rp`.
    pub fn is_directed(self) -> bool {
        matches!(self, Rounding::Rz | Rounding::Rm | Rounding::Rp)
    }
}

word_enum! {
    /// A comparison operator of `setp`, `set` and the video `vset` (§9.7.6.1, §9.7.18).
    CmpOp {
        Eq = ".eq",
        Ne = ".ne",
        Lt = ".lt",
        Le = ".le",
        Gt = ".gt",
        Ge = ".ge",
        Lo = ".lo",
        Ls = ".ls",
        Hi = ".hi",
        Hs = ".hs",
        Equ = ".equ",
        Neu = ".neu",
        Ltu = ".ltu",
        Leu = ".leu",
        Gtu = ".gtu",
        Geu = ".geu",
        Num = ".num",
        Nan = ".nan",
    }
}

word_enum! {
    /// The boolean operation that combines a comparison with a predicate (`setp`, `set`) or
    /// `lop3`'s result with one (§9.7.6, §9.7.7.6), and the reduction of `bar.red`.
    BoolOp {
        And = ".and",
        Or = ".or",
        Xor = ".xor",
    }
}

word_enum! {
    /// A matrix layout of `mma`/`wmma` (§9.7.14).
    Layout {
        Row = ".row",
        Col = ".col",
    }
}

/// A matrix shape `.mMnN[kK]` (`.m16n8k16`, `.m8n8`; `k` is 0 when absent).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Shape {
    /// Rows.
    pub m: u16,
    /// Columns.
    pub n: u16,
    /// The reduction dimension, 0 when the shape has none (`ldmatrix .m8n8`).
    pub k: u16,
}

impl Shape {
    /// `.mMnNkK`.
    pub const fn new(m: u16, n: u16, k: u16) -> Shape {
        Shape { m, n, k }
    }

    /// Read `.mMnN` or `.mMnNkK`.
    pub fn parse(word: &str) -> Option<Shape> {
        fn num(s: &str) -> Option<(u16, &str)> {
            let e = s.bytes().take_while(u8::is_ascii_digit).count();
            if e == 0 {
                return None;
            }
            Some((s[..e].parse().ok()?, &s[e..]))
        }
        let s = word.strip_prefix(".m")?;
        let (m, s) = num(s)?;
        let (n, s) = num(s.strip_prefix('n')?)?;
        if s.is_empty() {
            return Some(Shape { m, n, k: 0 });
        }
        let (k, s) = num(s.strip_prefix('k')?)?;
        s.is_empty().then_some(Shape { m, n, k })
    }
}

/// The class of a modifier word: which field of [`Mods`] it sets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    /// The opcode's operation word ([`Mods::op`], see [`op_group`]).
    Op,
    /// [`Mods::sem`].
    Sem(Sem),
    /// [`Mods::scope`].
    Scope(Scope),
    /// One of [`Mods::spaces`] (ordered).
    Space(StateSpace),
    /// [`Mods::cache`].
    Cache(CacheOp),
    /// [`Mods::rounding`].
    Rounding(Rounding),
    /// [`Mods::cmp`].
    Cmp(CmpOp),
    /// [`Mods::bool_op`].
    Bool(BoolOp),
    /// [`Mods::shape`].
    Shape,
    /// One of [`Mods::layouts`] (ordered).
    Layout(Layout),
    /// [`Mods::vec`]: `.v2`, `.v4`, `.v8`.
    Vec(u8),
    /// A flag: only its presence counts ([`Mods::has`]).
    Flag,
    /// A cache or eviction hint (`.L1::*`, `.L2::*`, `.level::*`, `.unified`): a flag that may
    /// appear with others of its family.
    Hint,
    /// One of [`Mods::types`] (ordered).
    Type(Type),
    /// An element type that [`Type`] does not name (`.b1`, `.s4`, `.e2m1`, `.ue8m0x2`, ...):
    /// a flag, ordered with the types in [`canonical_words`] and repeatable like them.
    ElemType,
}

impl Class {
    /// A name for diagnostics.
    pub fn describe(self) -> &'static str {
        match self {
            Class::Op => "operation",
            Class::Sem(_) => "memory semantics",
            Class::Scope(_) => "scope",
            Class::Space(_) => "state space",
            Class::Cache(_) => "cache operator",
            Class::Rounding(_) => "rounding",
            Class::Cmp(_) => "comparison",
            Class::Bool(_) => "boolean operation",
            Class::Shape => "shape",
            Class::Layout(_) => "layout",
            Class::Vec(_) => "vector width",
            Class::Flag => "flag",
            Class::Hint => "cache hint",
            Class::Type(_) | Class::ElemType => "type",
        }
    }

    /// The rank of the class in [`canonical_words`].
    fn rank(self) -> u8 {
        match self {
            Class::Op => 0,
            Class::Sem(_) => 1,
            Class::Scope(_) => 2,
            Class::Space(_) => 3,
            Class::Cache(_) => 4,
            Class::Rounding(_) => 5,
            Class::Cmp(_) => 6,
            Class::Bool(_) => 7,
            Class::Shape => 8,
            Class::Layout(_) => 9,
            Class::Vec(_) => 10,
            Class::Flag => 11,
            Class::Hint => 12,
            Class::Type(_) | Class::ElemType => 13,
        }
    }

    /// Whether the class keeps several words in source order (types, state spaces, layouts).
    fn ordered(self) -> bool {
        matches!(
            self,
            Class::Type(_) | Class::ElemType | Class::Space(_) | Class::Layout(_)
        )
    }
}

/// The operation words of `op`: an exclusive group whose word [`Mods::op`] holds (empty for
/// opcodes without one). A word of the group has [`Class::Op`] on this opcode whatever its
/// class elsewhere (`.and` is `atom`'s operation but `setp`'s boolean operation, `.lo` is
/// `mul`'s mode but `setp`'s comparison).
pub fn op_group(op: Opcode) -> &'static [Mod] {
    use Mod as M;
    use Opcode as O;
    match op {
        O::Atom | O::Red => &[
            M::And,
            M::Or,
            M::Xor,
            M::Exch,
            M::Add,
            M::Inc,
            M::Dec,
            M::Min,
            M::Max,
            M::Cas,
        ],
        O::Redux => &[M::Add, M::Min, M::Max, M::And, M::Or, M::Xor],
        O::Cp => &[
            M::Add,
            M::Min,
            M::Max,
            M::Inc,
            M::Dec,
            M::And,
            M::Or,
            M::Xor,
        ],
        O::Shfl => &[M::Up, M::Down, M::Bfly, M::Idx],
        O::Vote => &[M::All, M::Any, M::Uni, M::Ballot],
        O::Match => &[M::Any, M::All],
        O::Mul | O::Mad => &[M::Lo, M::Hi, M::Wide],
        O::Mul24 | O::Mad24 | O::Madc | O::Dp2a | O::Dp4a => &[M::Lo, M::Hi],
        O::Prmt => &[M::F4e, M::B4e, M::Rc8, M::Ecl, M::Ecr, M::Rc16],
        O::Testp => &[
            M::Finite,
            M::Infinite,
            M::Number,
            M::Notanumber,
            M::Normal,
            M::Subnormal,
        ],
        O::Bar | O::Barrier => &[M::Sync, M::Arrive, M::Red, M::Wait],
        O::Vadd
        | O::Vsub
        | O::Vabsdiff
        | O::Vmin
        | O::Vmax
        | O::Vshl
        | O::Vshr
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
        | O::Vset4 => &[M::Add, M::Min, M::Max],
        O::Mbarrier => &[
            M::Init,
            M::Inval,
            M::Arrive,
            M::ArriveDrop,
            M::TestWait,
            M::TryWait,
            M::PendingCount,
            M::CompleteTx,
        ],
        O::Wmma => &[M::Load, M::Store, M::Mma],
        O::Shf => &[M::L, M::R],
        O::Setmaxnreg => &[M::Inc, M::Dec],
        O::Griddepcontrol => &[M::LaunchDependents, M::Wait],
        O::Clusterlaunchcontrol => &[M::TryCancel, M::QueryCancel],
        O::Multimem => &[M::LdReduce, M::St, M::Red, M::Cp],
        _ => &[],
    }
}

/// Flags of which at most one may be given, on any opcode.
const EXCLUSIVE: &[&[Mod]] = &[
    &[Mod::Clamp, Mod::Wrap, Mod::Trap, Mod::Zero],
    &[Mod::X1, Mod::X2, Mod::X4],
    &[Mod::Shr7, Mod::Shr15],
    &[Mod::A, Mod::B, Mod::C, Mod::D],
    &[Mod::B, Mod::P],
    &[Mod::Approx, Mod::Full],
    &[Mod::Sp, Mod::SpOrderedMetadata],
];

/// Prefix families, tried in order when a word is not in the table.
const FAMILIES: &[(&str, Mod)] = &[
    (".L1::", Mod::L1Any),
    (".L2::", Mod::L2Any),
    (".level::", Mod::LevelAny),
    (".global::", Mod::GlobalAny),
    (".async::", Mod::AsyncAny),
    (".collector::", Mod::CollectorAny),
    (".im2col::", Mod::Im2colAny),
    (".kind::", Mod::KindAny),
    (".m64n", Mod::M64nAny),
    (".op_restrict::", Mod::OpRestrictAny),
    (".proxy::", Mod::ProxyAny),
    (".scale_vec::", Mod::ScaleVecAny),
    (".sync_restrict::", Mod::SyncRestrictAny),
    (".tile::", Mod::TileAny),
    (".x", Mod::XAny),
];

/// The class of `m` on an opcode without an operation group containing it.
fn default_class(m: Mod) -> Class {
    use Mod as M;
    let name = m.name();
    if let Some(t) = Type::from_name(name) {
        return Class::Type(t);
    }
    if let Some(s) = StateSpace::from_name(name) {
        return Class::Space(s);
    }
    macro_rules! find {
        ($e:ident, $cl:ident, [$($v:ident),*]) => {
            $(if m == M::$v { return Class::$cl($e::$v); })*
        };
    }
    find!(
        Sem,
        Sem,
        [Weak, Volatile, Relaxed, Acquire, Release, AcqRel, Sc]
    );
    find!(Scope, Scope, [Cta, Cluster, Gpu, Sys, Gl]);
    find!(CacheOp, Cache, [Ca, Cg, Cs, Lu, Cv, Wb, Wt]);
    find!(
        Rounding,
        Rounding,
        [Rn, Rz, Rm, Rp, Rna, Rs, Rni, Rzi, Rmi, Rpi]
    );
    find!(
        CmpOp,
        Cmp,
        [Eq, Ne, Lt, Le, Gt, Ge, Lo, Ls, Hi, Hs, Equ, Neu, Ltu, Leu, Gtu, Geu, Num, Nan]
    );
    find!(BoolOp, Bool, [And, Or, Xor]);
    find!(Layout, Layout, [Row, Col]);
    match m {
        M::V2 => Class::Vec(2),
        M::V4 => Class::Vec(4),
        M::V8 => Class::Vec(8),
        M::M64nAny => Class::Shape,
        M::L1Any | M::L2Any | M::LevelAny | M::L2CacheHint | M::Unified => Class::Hint,
        M::B1
        | M::B4
        | M::B6
        | M::S4
        | M::U4
        | M::F32x2
        | M::B1024
        | M::B8x16
        | M::B6x16P32
        | M::B4x16P64
        | M::S8x4
        | M::U8x4
        | M::S16x2
        | M::U16x2
        | M::S2f6x2
        | M::E2m1
        | M::E2m3
        | M::E3m2
        | M::E2m1x2
        | M::E2m3x2
        | M::E3m2x2
        | M::E2m1x4
        | M::E2m3x4
        | M::E3m2x4
        | M::E4m3x4
        | M::E5m2x4
        | M::Ue8m0
        | M::Ue8m0x2
        | M::Ue4m3 => Class::ElemType,
        _ if Shape::parse(name).is_some() => Class::Shape,
        _ => Class::Flag,
    }
}

/// The decoding tables, built once.
struct Tables {
    /// Open-addressing table of the exact words, by [`word_key`]: the key (`u64::MAX` marks
    /// an empty slot), and the word's length and modifier.
    keys: Vec<(u64, u64)>,
    vals: Vec<(u32, Mod)>,
    mask: usize,
    /// Per modifier, its default class.
    class: Vec<Class>,
    /// Per modifier, whether it is in an [`EXCLUSIVE`] group.
    exclusive: Vec<bool>,
    /// Per opcode, its operation group.
    groups: Vec<ModSet>,
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

fn tables() -> &'static Tables {
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
fn lookup_in(t: &Tables, b: &[u8]) -> Option<Mod> {
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
fn class_in(t: &Tables, op: Opcode, m: Mod) -> Class {
    if t.groups[op as usize].contains(m) {
        Class::Op
    } else {
        t.class[m as usize]
    }
}

/// Most type words [`Mods`] keeps (`mma` has four).
pub const MAX_TYPES: usize = 8;

/// The modifiers of one instruction, decoded (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mods {
    words: ModSet,
    count: u8,
    /// How many words of [`EXCLUSIVE`] groups.
    nexcl: u8,
    ntypes: u8,
    types: [Type; MAX_TYPES],
    nspaces: u8,
    spaces: [StateSpace; 2],
    nlayouts: u8,
    layouts: [Layout; 2],
    /// The memory semantics.
    pub sem: Option<Sem>,
    /// The scope.
    pub scope: Option<Scope>,
    /// The cache operator.
    pub cache: Option<CacheOp>,
    /// The rounding modifier.
    pub rounding: Option<Rounding>,
    /// The comparison.
    pub cmp: Option<CmpOp>,
    /// The boolean operation.
    pub bool_op: Option<BoolOp>,
    /// The vector width (`.v2`, `.v4`, `.v8`), `None` for a scalar.
    pub vec: Option<u8>,
    /// The opcode's operation word ([`op_group`]).
    pub op: Option<Mod>,
    /// The matrix shape.
    pub shape: Option<Shape>,
    /// The first word given twice where its class holds one value.
    duplicate: Option<Mod>,
}

impl Default for Mods {
    fn default() -> Self {
        Mods {
            words: ModSet::EMPTY,
            count: 0,
            nexcl: 0,
            ntypes: 0,
            types: [Type::B32; MAX_TYPES],
            nspaces: 0,
            spaces: [StateSpace::Global; 2],
            nlayouts: 0,
            layouts: [Layout::Row; 2],
            sem: None,
            scope: None,
            cache: None,
            rounding: None,
            cmp: None,
            bool_op: None,
            vec: None,
            op: None,
            shape: None,
            duplicate: None,
        }
    }
}

/// Why a list of modifiers cannot be one instruction's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ModError {
    /// Two words of one exclusive class (`.rn` and `.rz`).
    Conflict {
        /// The first word.
        first: String,
        /// The second word.
        second: String,
        /// The class ([`Class::describe`]).
        class: &'static str,
    },
    /// A word that is no PTX modifier.
    Unknown(String),
    /// More than [`MAX_TYPES`] types or more than two state spaces or layouts.
    TooMany(&'static str),
}

impl fmt::Display for ModError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ModError::Conflict {
                first,
                second,
                class,
            } => write!(
                f,
                "conflicting modifiers `{first}` and `{second}` ({class})"
            ),
            ModError::Unknown(w) => write!(f, "unknown modifier `{w}`"),
            ModError::TooMany(what) => write!(f, "too many {what} modifiers"),
        }
    }
}

impl std::error::Error for ModError {}

/// The bytes of a modifier word after its dot (`[A-Za-z0-9_$:]`).
static WORD_BYTE: [bool; 256] = {
    let mut t = [false; 256];
    let mut i = 0;
    while i < 256 {
        let c = i as u8;
        t[i] = c.is_ascii_alphanumeric() || matches!(c, b'_' | b'$' | b':');
        i += 1;
    }
    t
};

impl Mods {
    /// Decode the modifiers of an instruction of opcode `op` (one pass over the words).
    #[inline]
    pub fn decode(op: Opcode, m: &Modifiers<'_>) -> Result<Mods, ModError> {
        let mut d = Mods::default();
        d.decode_into(op, m)?;
        Ok(d)
    }

    /// [`Self::decode`] into `self` (a [`Mods::default`]), without moving the result.
    #[inline]
    pub fn decode_into(&mut self, op: Opcode, m: &Modifiers<'_>) -> Result<(), ModError> {
        let b = m.span().as_bytes();
        let t = tables();
        let d = self;
        if b.is_empty() {
            return Ok(());
        }
        // The usual span is one `.a.b.c` run: split it at the dots. A blank or comment between
        // the words leaves a piece that is no modifier (every word is looked up exactly, and a
        // family member must consist of word bytes), and then the AST's iterator splits it.
        if b[0] == b'.' {
            let mut start = 0;
            let mut k = 1;
            let plain = loop {
                if k == b.len() || b[k] == b'.' {
                    match d.add(t, op, &b[start..k]) {
                        Ok(()) => {}
                        Err(ModError::Unknown(_)) => break false,
                        Err(e) => return Err(e),
                    }
                    if k == b.len() {
                        break true;
                    }
                    start = k;
                }
                k += 1;
            };
            if plain {
                return d.finish(t, op, || m.iter());
            }
            *d = Mods::default();
        }
        for w in m.iter() {
            d.add(t, op, w.as_bytes())?;
        }
        d.finish(t, op, || m.iter())
    }

    /// [`Self::decode`] of the words `words` (each with its dot).
    pub fn decode_words<'w, I>(op: Opcode, words: I) -> Result<Mods, ModError>
    where
        I: IntoIterator<Item = &'w str> + Clone,
    {
        let t = tables();
        let mut d = Mods::default();
        for w in words.clone() {
            d.add(t, op, w.as_bytes())?;
        }
        d.finish(t, op, || words.clone().into_iter())?;
        Ok(d)
    }

    /// Add one word.
    #[inline(always)]
    fn add(&mut self, t: &Tables, op: Opcode, w: &[u8]) -> Result<(), ModError> {
        let Some(m) = lookup_in(t, w) else {
            return Err(ModError::Unknown(String::from_utf8_lossy(w).into_owned()));
        };
        let class = class_in(t, op, m);
        self.count = self.count.saturating_add(1);
        let again = self.words.insert(m);
        self.nexcl = self.nexcl.saturating_add(t.exclusive[m as usize] as u8);
        fn one<T: PartialEq + Copy>(f: &mut Option<T>, v: T) -> bool {
            match *f {
                None => {
                    *f = Some(v);
                    true
                }
                Some(x) => x == v,
            }
        }
        let ok = match class {
            Class::Type(ty) => {
                if self.ntypes as usize == MAX_TYPES {
                    return Err(ModError::TooMany("type"));
                }
                self.types[self.ntypes as usize] = ty;
                self.ntypes += 1;
                return Ok(());
            }
            Class::Space(s) => {
                if self.nspaces == 2 {
                    return Err(ModError::TooMany("state space"));
                }
                self.spaces[self.nspaces as usize] = s;
                self.nspaces += 1;
                return Ok(());
            }
            Class::Layout(l) => {
                if self.nlayouts == 2 {
                    return Err(ModError::TooMany("layout"));
                }
                self.layouts[self.nlayouts as usize] = l;
                self.nlayouts += 1;
                return Ok(());
            }
            Class::Hint | Class::ElemType => return Ok(()),
            Class::Op => one(&mut self.op, m),
            Class::Sem(v) => one(&mut self.sem, v),
            Class::Scope(v) => one(&mut self.scope, v),
            Class::Cache(v) => one(&mut self.cache, v),
            Class::Rounding(v) => one(&mut self.rounding, v),
            Class::Cmp(v) => one(&mut self.cmp, v),
            Class::Bool(v) => one(&mut self.bool_op, v),
            Class::Vec(v) => one(&mut self.vec, v),
            Class::Shape => {
                // A family member (`.m64n128k16`) is read from its text.
                match std::str::from_utf8(w).ok().and_then(Shape::parse) {
                    Some(s) => one(&mut self.shape, s),
                    None => true,
                }
            }
            Class::Flag => true,
        };
        if !ok {
            return Err(self.conflict(op, class, w));
        }
        if again && self.duplicate.is_none() && !Self::family(m) {
            self.duplicate = Some(m);
        }
        Ok(())
    }

    /// Whether `m` is a prefix family (several spellings, so a repeat is no duplicate).
    fn family(m: Mod) -> bool {
        m.name().ends_with('*')
    }

    /// The error for `w`, whose class `class` already holds another word.
    #[cold]
    fn conflict(&self, op: Opcode, class: Class, w: &[u8]) -> ModError {
        ModError::Conflict {
            first: self.first_of(op, class).map_or("", Mod::name).to_string(),
            second: String::from_utf8_lossy(w).into_owned(),
            class: class.describe(),
        }
    }

    /// The first word present of the same class as `class` (for a conflict report).
    fn first_of(&self, op: Opcode, class: Class) -> Option<Mod> {
        let same = |c: Class| std::mem::discriminant(&c) == std::mem::discriminant(&class);
        self.words.iter().find(|&m| same(class_of(op, m)))
    }

    /// The checks after the last word, and the `mbarrier.expect_tx` operation.
    #[inline(always)]
    fn finish<'w, I: Iterator<Item = &'w str>>(
        &mut self,
        t: &Tables,
        op: Opcode,
        words: impl Fn() -> I,
    ) -> Result<(), ModError> {
        if self.nexcl > 1 {
            for g in EXCLUSIVE {
                let mut it = g.iter().filter(|&&m| self.words.contains(m));
                if let (Some(a), Some(b)) = (it.next(), it.next()) {
                    // Report them in source order.
                    let pos = |m: Mod| words().position(|w| lookup_in(t, w.as_bytes()) == Some(m));
                    let (a, b) = if pos(*a) <= pos(*b) { (a, b) } else { (b, a) };
                    return Err(ModError::Conflict {
                        first: a.name().to_string(),
                        second: b.name().to_string(),
                        class: "flag",
                    });
                }
            }
        }
        // `mbarrier.expect_tx` is an operation of its own; after `.arrive`/`.arrive_drop` it
        // qualifies the arrival (PTX ISA 9.x §9.7.13.15.11-12).
        if op == Opcode::Mbarrier && self.op.is_none() && self.has(Mod::ExpectTx) {
            self.op = Some(Mod::ExpectTx);
        }
        Ok(())
    }

    /// Whether word `m` is present.
    #[inline(always)]
    pub fn has(&self, m: Mod) -> bool {
        self.words.contains(m)
    }

    /// Every word present.
    pub fn words(&self) -> &ModSet {
        &self.words
    }

    /// Whether every word present is in `allowed`.
    pub fn only(&self, allowed: &ModSet) -> bool {
        self.words.is_subset(allowed)
    }

    /// The number of words.
    pub fn len(&self) -> usize {
        self.count as usize
    }

    /// Whether there are no modifiers.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// The type words in source order.
    #[inline(always)]
    pub fn types(&self) -> &[Type] {
        &self.types[..self.ntypes as usize]
    }

    /// The state spaces in source order (a copy's destination, then its source).
    #[inline(always)]
    pub fn spaces(&self) -> &[StateSpace] {
        &self.spaces[..self.nspaces as usize]
    }

    /// The first state space.
    #[inline(always)]
    pub fn space(&self) -> Option<StateSpace> {
        self.spaces().first().copied()
    }

    /// The layouts in source order (A, then B).
    pub fn layouts(&self) -> &[Layout] {
        &self.layouts[..self.nlayouts as usize]
    }

    /// The vector width, 1 for a scalar.
    #[inline(always)]
    pub fn vec_len(&self) -> u32 {
        self.vec.map_or(1, u32::from)
    }

    /// The first word given twice where its class holds one value (`.ftz.ftz`).
    pub fn duplicate(&self) -> Option<Mod> {
        self.duplicate
    }
}

/// The words of a form or instruction in canonical order: by class (operation, semantics,
/// scope, state spaces, cache operator, rounding, comparison, boolean operation, shape,
/// layouts, vector width, flags, hints, types), the ordered classes (types, state spaces,
/// layouts) as written, the others by spelling. Two spellings of one instruction that differ
/// only in the order `ptxas` leaves free have the same canonical words.
pub fn canonical_words<'w>(op: Opcode, words: &[&'w str]) -> Result<Vec<&'w str>, ModError> {
    let t = tables();
    let mut v = Vec::with_capacity(words.len());
    for (i, &w) in words.iter().enumerate() {
        let Some(m) = lookup_in(t, w.as_bytes()) else {
            return Err(ModError::Unknown(w.to_string()));
        };
        v.push((sort_key(class_in(t, op, m), i), w));
    }
    v.sort();
    Ok(v.into_iter().map(|(_, w)| w).collect())
}

/// The order of a word of class `c` at position `i` in [`canonical_words`] (before its text).
#[inline]
fn sort_key(c: Class, i: usize) -> (u8, usize) {
    (c.rank(), if c.ordered() { i } else { 0 })
}

/// Append `op` and `words` in the order of [`canonical_words`] to `out` (without allocating
/// for up to 16 words); `false`, with `out` unspecified, when a word is no PTX modifier.
pub fn push_canonical<'w>(
    op: Opcode,
    words: impl Iterator<Item = &'w str>,
    out: &mut String,
) -> bool {
    let t = tables();
    let mut inline: [((u8, usize), &str); 16] = [((0, 0), ""); 16];
    let mut spill: Vec<((u8, usize), &str)> = Vec::new();
    let mut n = 0;
    for (i, w) in words.enumerate() {
        let Some(m) = lookup_in(t, w.as_bytes()) else {
            return false;
        };
        let e = (sort_key(class_in(t, op, m), i), w);
        if n < inline.len() {
            inline[n] = e;
        } else {
            if n == inline.len() {
                spill.extend_from_slice(&inline);
            }
            spill.push(e);
        }
        n += 1;
    }
    let v: &mut [((u8, usize), &str)] = if n <= inline.len() {
        &mut inline[..n]
    } else {
        &mut spill
    };
    v.sort_unstable();
    out.push_str(op.name());
    for (_, w) in v.iter() {
        out.push_str(w);
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ptx::isa::modifier_table;

    fn dec(op: Opcode, s: &str) -> Result<Mods, ModError> {
        Mods::decode(op, &Modifiers::from_span(s))
    }

    #[test]
    fn every_table_word_is_known() {
        let t = modifier_table();
        for &op in Opcode::ALL {
            for w in t.modifiers_of(op) {
                let m = lookup(w).unwrap_or_else(|| panic!("{w} unknown"));
                assert_eq!(m.name(), w, "{w}");
            }
        }
        assert_eq!(lookup(".L2::cache_hint"), Some(Mod::L2CacheHint));
        assert_eq!(lookup(".L2::256B"), Some(Mod::L2Any));
        assert_eq!(lookup(".L1::no_allocate"), Some(Mod::L1Any));
        assert_eq!(lookup(".m64n128k16"), Some(Mod::M64nAny));
        assert_eq!(lookup(".x16"), Some(Mod::XAny));
        assert_eq!(lookup(".x4"), Some(Mod::X4));
        assert_eq!(lookup(".nothing"), None);
        assert_eq!(lookup(".L2::"), None);
    }

    #[test]
    fn order_does_not_matter() {
        let a = dec(Opcode::Ld, ".global.acquire.gpu.b32").unwrap();
        let b = dec(Opcode::Ld, ".acquire.gpu.global.b32").unwrap();
        assert_eq!(a.sem, Some(Sem::Acquire));
        assert_eq!(a.scope, Some(Scope::Gpu));
        assert_eq!(a.space(), Some(StateSpace::Global));
        assert_eq!(a.types(), [Type::B32]);
        // Equal but for the order of nothing: the decoded values are the same.
        assert_eq!(a, b);
        let v = dec(Opcode::Vote, ".ballot.sync.b32").unwrap();
        assert_eq!(v.op, Some(Mod::Ballot));
        assert!(v.has(Mod::Sync));
        assert_eq!(v, dec(Opcode::Vote, ".sync.ballot.b32").unwrap());
        let f = dec(Opcode::Fence, ".sys.sc").unwrap();
        assert_eq!((f.sem, f.scope), (Some(Sem::Sc), Some(Scope::Sys)));
        let x = dec(Opcode::Atom, ".add.relaxed.gpu.u64").unwrap();
        assert_eq!(x.op, Some(Mod::Add));
        assert_eq!(x.sem, Some(Sem::Relaxed));
    }

    #[test]
    fn classes_depend_on_the_opcode() {
        let s = dec(Opcode::Setp, ".lo.and.u32").unwrap();
        assert_eq!(
            (s.cmp, s.bool_op, s.op),
            (Some(CmpOp::Lo), Some(BoolOp::And), None)
        );
        let m = dec(Opcode::Mul, ".lo.u32").unwrap();
        assert_eq!((m.cmp, m.op), (None, Some(Mod::Lo)));
        let a = dec(Opcode::Atom, ".global.and.b32").unwrap();
        assert_eq!((a.bool_op, a.op), (None, Some(Mod::And)));
        let b = dec(Opcode::Mbarrier, ".arrive.expect_tx.shared.b64").unwrap();
        assert_eq!(b.op, Some(Mod::Arrive));
        assert!(b.has(Mod::ExpectTx));
        let e = dec(Opcode::Mbarrier, ".expect_tx.relaxed.cta.shared::cta.b64").unwrap();
        assert_eq!(e.op, Some(Mod::ExpectTx));
    }

    #[test]
    fn ordered_classes_keep_their_order() {
        let c = dec(Opcode::Cvt, ".rn.f32.s32").unwrap();
        assert_eq!(c.types(), [Type::F32, Type::S32]);
        let c2 = dec(Opcode::Cvt, ".rn.s32.f32").unwrap();
        assert_ne!(c, c2);
        let b = dec(Opcode::Cp, ".async.bulk.shared::cluster.global").unwrap();
        assert_eq!(b.spaces(), [StateSpace::SharedCluster, StateSpace::Global]);
        let m = dec(
            Opcode::Mma,
            ".sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32",
        )
        .unwrap();
        assert_eq!(m.layouts(), [Layout::Row, Layout::Col]);
        assert_eq!(m.shape, Some(Shape::new(16, 8, 16)));
        assert_eq!(m.types(), [Type::F32, Type::Bf16, Type::Bf16, Type::F32]);
        assert_eq!(Shape::parse(".m8n8"), Some(Shape::new(8, 8, 0)));
        assert_eq!(Shape::parse(".m8n8x"), None);
    }

    #[test]
    fn conflicts_and_duplicates() {
        let e = dec(Opcode::Add, ".rn.rz.f32").unwrap_err();
        assert_eq!(
            e.to_string(),
            "conflicting modifiers `.rn` and `.rz` (rounding)"
        );
        assert!(matches!(
            dec(Opcode::Ld, ".acquire.relaxed.gpu.u32"),
            Err(ModError::Conflict { .. })
        ));
        assert!(matches!(
            dec(Opcode::Ld, ".relaxed.gpu.sys.u32"),
            Err(ModError::Conflict { .. })
        ));
        assert!(matches!(
            dec(Opcode::Atom, ".global.add.or.u32"),
            Err(ModError::Conflict { .. })
        ));
        assert!(matches!(
            dec(Opcode::Setp, ".eq.ne.f32"),
            Err(ModError::Conflict { .. })
        ));
        assert!(matches!(
            dec(Opcode::Shfl, ".sync.up.down.b32"),
            Err(ModError::Conflict { .. })
        ));
        assert!(matches!(
            dec(Opcode::Ld, ".global.v2.v4.u32"),
            Err(ModError::Conflict { .. })
        ));
        let e = dec(Opcode::Shf, ".l.clamp.wrap.b32").unwrap_err();
        assert_eq!(
            e.to_string(),
            "conflicting modifiers `.clamp` and `.wrap` (flag)"
        );
        let d = dec(Opcode::Add, ".ftz.ftz.f32").unwrap();
        assert_eq!(d.duplicate(), Some(Mod::Ftz));
        assert_eq!(
            dec(Opcode::Add, ".rn.rn.f32").unwrap().duplicate(),
            Some(Mod::Rn)
        );
        // Repeated types, and two hints of one family, are no duplicates.
        assert_eq!(dec(Opcode::Cvt, ".f32.f32").unwrap().duplicate(), None);
        let b1 = dec(
            Opcode::Mma,
            ".sync.aligned.m8n8k128.row.col.s32.b1.b1.s32.xor.popc",
        );
        assert_eq!(b1.unwrap().duplicate(), None);
        let h = dec(
            Opcode::Createpolicy,
            ".fractional.L2::evict_last.L2::evict_unchanged.b64",
        );
        assert_eq!(h.unwrap().duplicate(), None);
        assert!(matches!(
            dec(Opcode::Add, ".foo.f32"),
            Err(ModError::Unknown(_))
        ));
    }

    #[test]
    fn spans_with_blanks_decode_like_plain_ones() {
        let a = dec(Opcode::Ld, ".global /* c */ .nc .v4.u32").unwrap();
        let b = dec(Opcode::Ld, ".global.nc.v4.u32").unwrap();
        assert_eq!(a, b);
        assert_eq!(a.vec_len(), 4);
        assert!(a.has(Mod::Nc));
        let h = dec(Opcode::Ld, ".global.L1::no_allocate /* c */ .u32").unwrap();
        assert_eq!(h, dec(Opcode::Ld, ".global.L1::no_allocate.u32").unwrap());
        assert_eq!(h.types(), [Type::U32]);
        assert_eq!(lookup(""), None);
    }

    #[test]
    fn canonical_order() {
        let a = canonical_words(Opcode::Ld, &[".global", ".acquire", ".gpu", ".b32"]).unwrap();
        let b = canonical_words(Opcode::Ld, &[".acquire", ".gpu", ".global", ".b32"]).unwrap();
        assert_eq!(a, b);
        assert_eq!(a, [".acquire", ".gpu", ".global", ".b32"]);
        let c = canonical_words(Opcode::Cvt, &[".f32", ".rn", ".s32"]).unwrap();
        assert_eq!(c, [".rn", ".f32", ".s32"]);
        let d = canonical_words(Opcode::Cvt, &[".s32", ".rn", ".f32"]).unwrap();
        assert_ne!(c, d);
    }
}
