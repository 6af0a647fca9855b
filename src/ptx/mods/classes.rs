//! The classes of modifier words ([`Class`]), the typed values of the order-free classes
//! ([`Sem`], [`Scope`], [`CacheOp`], [`Rounding`], [`CmpOp`], [`BoolOp`], [`Layout`],
//! [`Shape`]), and which words each opcode reads as its operation ([`op_group`]).

use super::words::Mod;
use super::{Opcode, StateSpace, Type};

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
    pub(super) fn rank(self) -> u8 {
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
    pub(super) fn ordered(self) -> bool {
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
pub(super) const EXCLUSIVE: &[&[Mod]] = &[
    &[Mod::Clamp, Mod::Wrap, Mod::Trap, Mod::Zero],
    &[Mod::X1, Mod::X2, Mod::X4],
    &[Mod::Shr7, Mod::Shr15],
    &[Mod::A, Mod::B, Mod::C, Mod::D],
    &[Mod::B, Mod::P],
    &[Mod::Approx, Mod::Full],
    &[Mod::Sp, Mod::SpOrderedMetadata],
];

/// Prefix families, tried in order when a word is not in the table.
pub(super) const FAMILIES: &[(&str, Mod)] = &[
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
pub(super) fn default_class(m: Mod) -> Class {
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
        | M::S2
        | M::U2
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
