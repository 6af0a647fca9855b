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
//!
//! A word's [`Mod`] is found by one probe of an open-addressing table keyed by the word's
//! first and last 8 bytes (`words`); the classes, the typed values and the per-opcode
//! operation groups are in `classes`. Decoding allocates nothing unless it fails.

use std::fmt;

use super::ast::{Modifiers, StateSpace, Type};
use super::isa::Opcode;

mod classes;
mod words;

use classes::EXCLUSIVE;
pub use classes::{op_group, BoolOp, CacheOp, Class, CmpOp, Layout, Rounding, Scope, Sem, Shape};
use words::{class_in, lookup_in, tables, Tables};
pub use words::{class_of, lookup, Mod, ModSet};

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
