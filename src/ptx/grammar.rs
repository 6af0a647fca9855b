//! The instruction-form table of PTX ISA 9.x (`src/ptx/forms.txt`) and the conformance
//! generator built on it.
//!
//! Each row of the table is one instruction form: an opcode head (`add`, `cp.async`), a list
//! of modifier groups (each one value out of several alternatives, optional or not) and an
//! operand template (see the table's header for the format). From the rows,
//! [`generate`] writes a bounded set of instructions per row:
//!
//! * *combinations* meant to be legal: the row's base form (every required group at its first
//!   value), each value of each group on the base, a repeated group (`*`) twice on the base,
//!   and every group present in several orders
//!   (all orders up to four groups; the rotations, their reversals and the adjacent swaps
//!   beyond);
//! * *illegal neighbours*: two values of one group (`.rn.rz`), one value twice (`.ftz.ftz`), a
//!   type outside the opcode's rows, a required group left out, the optional words of the
//!   opcode's other rows added to this row's base (`add.rn.s32`, `add.cc.f32`), and every
//!   other modifier `src/ptx/modifiers.txt` allows on the opcode added to the base and to the
//!   base with the row's last type (a type in place of the row's): what `ptxas` accepts of
//!   these is a form the rows miss.
//!
//! A neighbour that another row of the opcode holds is left out (it is that row's
//! combination), and so is an order of a row's groups that the row does not take but another
//! row does. `ptxas` decides which are valid (`tests/ptx_conformance.rs`); the table only
//! proposes.
//! [`Grammar::accepts`] says whether a list of modifiers is one of a row's combinations, in
//! any order; [`Grammar::operand_counts`] also gives the numbers of operands the rows holding
//! it take (for the `counted:` opcodes, whose valid modifiers depend on that number): the
//! parser's form check, for the opcodes of [`STRICT`].

use std::collections::{BTreeSet, HashMap};
use std::sync::{OnceLock, RwLock};

use super::isa::Opcode;

/// The table source (`src/ptx/forms.txt`).
pub const FORMS_TABLE: &str = include_str!("forms.txt");

/// The `.target` of a row that names none.
pub const DEFAULT_TARGET: &str = "sm_100a";

/// One modifier group of a row: one of `alts` (each one or more words), or none when
/// `optional`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Group {
    /// Whether the group may be left out.
    pub optional: bool,
    /// Whether the group leads: the leading groups come right after the head's fixed words,
    /// in table order, before every other group (`mul.lo`, `shf.l.clamp`).
    pub leading: bool,
    /// Whether the group may come any number of times (none, one, or several of its
    /// alternatives, in any mix): it is optional too.
    pub repeated: bool,
    /// Whether the group's place is free: it keeps no order with the other groups, even when
    /// its alternatives are types.
    pub free: bool,
    /// The alternatives, each as its words (`[".shared", ".global"]`).
    pub alts: Vec<Vec<&'static str>>,
    /// The groups of a row with the same `Some(class)` keep their table order among
    /// themselves (see [`Group::positional`] and [`Row`]).
    pub order_class: Option<usize>,
}

impl Group {
    /// Whether the group is positional: its alternatives are types or matrix layouts, whose
    /// groups keep their table order among themselves, the types among the types and the
    /// layouts among the layouts (`cvt.f32.s32` converts `.s32` to `.f32`; `mma .row.col` is
    /// A's layout, then B's).
    pub fn positional(&self) -> bool {
        self.alts
            .iter()
            .all(|a| a.len() == 1 && (is_type_word(a[0]) || matches!(a[0], ".row" | ".col")))
    }
}

/// One row of the table: an instruction form.
///
/// Its groups come in any order but two kinds, which keep their table order among
/// themselves: the positional groups (types and layouts, class 0), and groups that share a
/// word with another group of the row (one class per set of such groups: the word's meaning
/// is its place, as the primary and then the secondary eviction priority of
/// `createpolicy.fractional.L2::evict_last.L2::evict_first`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Row {
    /// The opcode.
    pub op: Opcode,
    /// The fixed words after the opcode in the head (`.async` of `cp.async`).
    pub fixed: Vec<&'static str>,
    /// The modifier groups, in the order of the table.
    pub groups: Vec<Group>,
    /// The operand template.
    pub operands: &'static str,
    /// The `.target` of the module the row's instructions are assembled in.
    pub target: &'static str,
    /// Whether the row's instructions are assembled in a `.func` (called by a kernel) rather
    /// than in the kernel: a form valid only there (`ld.param::func`).
    pub in_func: bool,
    /// The 1-based line of the row in the table.
    pub line: usize,
    /// Every word the row may hold (fixed words and alternatives), sorted: a list of modifiers
    /// with another word is no combination of the row.
    words: Vec<&'static str>,
}

/// The table, read.
#[derive(Debug, Default)]
pub struct Grammar {
    /// Every row, in table order.
    pub rows: Vec<Row>,
    /// The rows of each opcode (indices into `rows`).
    by_op: HashMap<Opcode, Vec<usize>>,
    /// Words that may be repeated (`.sat.sat`, `.sync.sync`: `ptxas` takes a second one).
    pub repeatable: BTreeSet<&'static str>,
    /// Opcodes whose rows hold an instruction only with the row's number of operands
    /// ([`Row::operand_count`]): the modifiers `ptxas` takes depend on it (`min.abs.f32`
    /// takes three inputs, `min.xorsign.abs.f32` two).
    pub counted: BTreeSet<Opcode>,
    /// Lines of the table that could not be read.
    pub problems: Vec<String>,
    /// The answers of [`Grammar::operand_counts_of`] so far, by opcode and modifier words
    /// (joined): each distinct head is matched against the rows once per process.
    memo: RwLock<HashMap<(Opcode, String), u32>>,
}

/// The opcodes whose every instruction must be one of the table's forms: for these the
/// parser rejects a head the table does not hold (with a diagnostic), as `ptxas` does.
///
/// An opcode is here when its rows are complete: every form of it in PTX ISA 9.x that
/// `ptxas` 13.5 takes, for any `.target`, is a combination of its rows, and
/// `tests/ptx_conformance.rs` finds the rows and `ptxas` in agreement on every generated
/// instruction. Every opcode of the table is here; the opcodes the table does not hold keep
/// the set-membership check of `src/ptx/modifiers.txt`.
pub const STRICT: &[Opcode] = &[
    Opcode::Shf,
    Opcode::Testp,
    Opcode::Rcp,
    Opcode::Ex2,
    Opcode::Setp,
    Opcode::Fma,
    Opcode::Mad,
    Opcode::Mul,
    Opcode::Sub,
    Opcode::Add,
    Opcode::Abs,
    Opcode::Activemask,
    Opcode::Addc,
    Opcode::And,
    Opcode::Bfe,
    Opcode::Bfi,
    Opcode::Bfind,
    Opcode::Bmsk,
    Opcode::Brev,
    Opcode::Clz,
    Opcode::Cnot,
    Opcode::Copysign,
    Opcode::Cos,
    Opcode::Cvta,
    Opcode::Div,
    Opcode::Dp2a,
    Opcode::Dp4a,
    Opcode::Elect,
    Opcode::Exit,
    Opcode::Getctarank,
    Opcode::Griddepcontrol,
    Opcode::Isspacep,
    Opcode::Lg2,
    Opcode::Mad24,
    Opcode::Mapa,
    Opcode::Mul24,
    Opcode::Nanosleep,
    Opcode::Neg,
    Opcode::Not,
    Opcode::Or,
    Opcode::Popc,
    Opcode::Prmt,
    Opcode::Redux,
    Opcode::Rem,
    Opcode::Rsqrt,
    Opcode::Sad,
    Opcode::Selp,
    Opcode::Setmaxnreg,
    Opcode::Shl,
    Opcode::Shr,
    Opcode::Sin,
    Opcode::Slct,
    Opcode::Sqrt,
    Opcode::Stacksave,
    Opcode::Subc,
    Opcode::Szext,
    Opcode::Tanh,
    Opcode::Trap,
    Opcode::Xor,
    Opcode::Alloca,
    Opcode::Bar,
    Opcode::Barrier,
    Opcode::Createpolicy,
    Opcode::Ldmatrix,
    Opcode::Lop3,
    Opcode::Match,
    Opcode::Max,
    Opcode::Membar,
    Opcode::Min,
    Opcode::Mov,
    Opcode::Movmatrix,
    Opcode::Prefetch,
    Opcode::Set,
    Opcode::Shfl,
    Opcode::Stmatrix,
    Opcode::Vadd,
    Opcode::Vadd2,
    Opcode::Vmax,
    Opcode::Vote,
    Opcode::Vset,
    Opcode::Vshl,
    Opcode::Ld,
    Opcode::Ldu,
    Opcode::St,
    Opcode::Atom,
    Opcode::Red,
    Opcode::Fence,
    Opcode::Cvt,
    Opcode::Mbarrier,
    Opcode::Cp,
    Opcode::Wgmma,
    Opcode::Mma,
];

/// Whether the parser checks `op`'s heads against the rows ([`STRICT`]).
#[inline]
pub fn is_strict(op: Opcode) -> bool {
    STRICT.contains(&op)
}

/// Whether `w` is a type word.
pub fn is_type_word(w: &str) -> bool {
    super::ast::Type::from_name(w).is_some()
        || matches!(
            w,
            ".f32x2"
                | ".e2m1x2"
                | ".e2m3x2"
                | ".e3m2x2"
                | ".ue8m0x2"
                | ".s16x2"
                | ".u16x2"
                | ".b8x16"
                | ".b6x16_p32"
                | ".b4x16_p64"
                | ".e4m3x4"
                | ".e5m2x4"
                | ".e2m1x4"
                | ".e2m3x4"
                | ".e3m2x4"
                | ".e2m1"
                | ".e2m3"
                | ".e3m2"
                | ".ue8m0"
                | ".ue4m3"
                | ".u4"
                | ".s4"
                | ".u2"
                | ".s2"
                | ".b1"
                | ".b4"
                | ".b6"
        )
}

impl Grammar {
    /// Read a table in the format of `src/ptx/forms.txt`.
    pub fn parse(src: &'static str) -> Grammar {
        let mut g = Grammar::default();
        let mut macros: HashMap<&'static str, Vec<&'static str>> = HashMap::new();
        for (n, line) in src.lines().enumerate() {
            let line = line.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            if let Some(rest) = line.strip_prefix("repeatable:") {
                g.repeatable.extend(rest.split_whitespace());
                continue;
            }
            if let Some(rest) = line.strip_prefix("counted:") {
                for w in rest.split_whitespace() {
                    match Opcode::from_name(w) {
                        Some(op) => {
                            g.counted.insert(op);
                        }
                        None => g
                            .problems
                            .push(format!("line {}: unknown opcode {w}", n + 1)),
                    }
                }
                continue;
            }
            if let Some((name, rest)) = line.split_once(" = ") {
                let mut alts = Vec::new();
                for a in rest.trim().split('|') {
                    match macros.get(a) {
                        Some(v) => alts.extend(v.iter().copied()),
                        None if a.starts_with('.') => alts.push(a),
                        None => g
                            .problems
                            .push(format!("line {}: bad alternative {a}", n + 1)),
                    }
                }
                macros.insert(name.trim(), alts);
                continue;
            }
            let colon = line
                .match_indices(" :")
                .map(|(k, _)| k)
                .find(|&k| line[k + 2..].is_empty() || line[k + 2..].starts_with(' '));
            let Some((lhs, rhs)) = colon.map(|k| (&line[..k], &line[k + 2..])) else {
                g.problems.push(format!("line {}: no `:`", n + 1));
                continue;
            };
            let (operands, place) = match rhs.rsplit_once(" @ ") {
                Some((o, t)) => (o.trim(), t.trim()),
                None if rhs.trim_start().starts_with("@ ") => ("", rhs.trim()[2..].trim()),
                None => (rhs.trim(), DEFAULT_TARGET),
            };
            let mut place = place.split_whitespace();
            let target = place.next().unwrap_or(DEFAULT_TARGET);
            let in_func = match place.next() {
                None => false,
                Some(".func") => true,
                Some(w) => {
                    g.problems
                        .push(format!("line {}: unknown placement {w}", n + 1));
                    false
                }
            };
            let mut fields = lhs.split_whitespace();
            let Some(head) = fields.next() else {
                g.problems.push(format!("line {}: no head", n + 1));
                continue;
            };
            let (opname, fixed) = match head.find('.') {
                Some(k) => (&head[..k], split_words(&head[k..])),
                None => (head, Vec::new()),
            };
            let Some(op) = Opcode::from_name(opname) else {
                g.problems
                    .push(format!("line {}: unknown opcode {opname}", n + 1));
                continue;
            };
            let mut groups = Vec::new();
            // The groups marked `>` (they keep their table order among themselves).
            let mut ordered_groups = Vec::new();
            for f in fields {
                let mut body = f;
                let (mut optional, mut leading, mut ordered) = (false, false, false);
                let (mut repeated, mut free) = (false, false);
                loop {
                    if let Some(b) = body.strip_prefix('?') {
                        optional = true;
                        body = b;
                    } else if let Some(b) = body.strip_prefix('*') {
                        (optional, repeated) = (true, true);
                        body = b;
                    } else if let Some(b) = body.strip_prefix('~') {
                        free = true;
                        body = b;
                    } else if let Some(b) = body.strip_prefix('^') {
                        leading = true;
                        body = b;
                    } else if let Some(b) = body.strip_prefix('>') {
                        ordered = true;
                        body = b;
                    } else {
                        break;
                    }
                }
                let mut alts = Vec::new();
                for a in body.split('|') {
                    if let Some(v) = macros.get(a) {
                        alts.extend(v.iter().map(|w| vec![*w]));
                    } else if a.starts_with('.') {
                        alts.push(split_words(a));
                    } else {
                        g.problems
                            .push(format!("line {}: bad alternative {a}", n + 1));
                    }
                }
                groups.push(Group {
                    optional,
                    leading,
                    repeated,
                    free,
                    alts,
                    order_class: None,
                });
                ordered_groups.push(ordered);
            }
            set_order_classes(&mut groups, &ordered_groups);
            let mut words: Vec<&'static str> = fixed
                .iter()
                .copied()
                .chain(
                    groups
                        .iter()
                        .flat_map(|gr| gr.alts.iter().flatten().copied()),
                )
                .collect();
            words.sort_unstable();
            words.dedup();
            g.by_op.entry(op).or_default().push(g.rows.len());
            g.rows.push(Row {
                op,
                fixed,
                groups,
                operands,
                target,
                in_func,
                line: n + 1,
                words,
            });
        }
        g
    }

    /// The rows of `op`.
    pub fn rows_of(&self, op: Opcode) -> impl Iterator<Item = &Row> {
        self.by_op
            .get(&op)
            .into_iter()
            .flatten()
            .map(|&i| &self.rows[i])
    }

    /// Whether the modifiers `words` (each with its dot, in source order) of an instruction of
    /// `op` are one of the combinations of a row of `op`, in any order of the row's groups (a
    /// group of several words keeps its words in order), with some number of operands.
    pub fn accepts(&self, op: Opcode, words: &[&str]) -> bool {
        self.rows_of(op)
            .any(|r| row_accepts(r, words, &self.repeatable))
    }

    /// The numbers of operands an instruction of `op` with the modifiers `words` may have, as
    /// a bit set (bit `n`: `n` operands): [`ANY_COUNT`] when a row holds the modifiers and
    /// `op` is not [`Grammar::counted`], the operand counts of the rows that hold them when
    /// it is, 0 when no row holds them.
    pub fn operand_counts(&self, op: Opcode, words: &[&str]) -> u32 {
        let counted = self.counted.contains(&op);
        let mut set = 0;
        for r in self.rows_of(op) {
            if row_accepts(r, words, &self.repeatable) {
                if !counted {
                    return ANY_COUNT;
                }
                set |= 1 << r.operand_count().min(31);
            }
        }
        set
    }
}

impl Grammar {
    /// A spelling of the instruction form `words` of `op` (a form leaves out some words, as
    /// [`crate::ptx::analysis::form_of`] does: those of `dropped`) that a row holds: `words`
    /// themselves, or with each required group of a row that none of them fills given an
    /// alternative of dropped words (`ldmatrix.sync.m8n8.x4.shared.b16` is spelt
    /// `ldmatrix.sync.m8n8.x4.shared.b16.aligned`). `None` when no row holds the form.
    pub fn spelling<'a>(
        &self,
        op: Opcode,
        words: &[&'a str],
        dropped: impl Fn(&str) -> bool,
    ) -> Option<Vec<&'a str>> {
        if self.accepts(op, words) {
            return Some(words.to_vec());
        }
        for r in self.rows_of(op) {
            let mut extra: Vec<&'a str> = Vec::new();
            for g in r.groups.iter().filter(|g| !g.optional) {
                let filled = g.alts.iter().any(|a| a.iter().all(|w| words.contains(w)));
                if filled {
                    continue;
                }
                if let Some(a) = g.alts.iter().find(|a| a.iter().all(|w| dropped(w))) {
                    extra.extend(a.iter().copied());
                }
            }
            if extra.is_empty() {
                continue;
            }
            for at in (0..=words.len()).rev() {
                let mut v = words[..at].to_vec();
                v.extend(extra.iter().copied());
                v.extend(words[at..].iter().copied());
                if row_accepts(r, &v, &self.repeatable) {
                    return Some(v);
                }
            }
        }
        None
    }
}

impl Grammar {
    /// [`Grammar::operand_counts`] of `op` and the modifier words `words`, remembered: the
    /// parser asks it once per module for each distinct instruction head, and a wheel's
    /// modules share most of their heads.
    pub fn operand_counts_of<'w>(&self, op: Opcode, words: impl Iterator<Item = &'w str>) -> u32 {
        let words: Vec<&str> = words.collect();
        let key = (op, words.concat());
        if let Some(&c) = self
            .memo
            .read()
            .ok()
            .and_then(|m| m.get(&key).copied())
            .as_ref()
        {
            return c;
        }
        let c = self.operand_counts(op, &words);
        if let Ok(mut m) = self.memo.write() {
            m.insert(key, c);
        }
        c
    }
}

/// The operand-count set of [`Grammar::operand_counts`] that admits any number of operands.
pub const ANY_COUNT: u32 = u32::MAX;

impl Row {
    /// The number of operands of the row's template (a vector `{..}`, an address `[..]` or a
    /// pair `a|b` is one; an operand written only with a word counts).
    pub fn operand_count(&self) -> usize {
        template_items(self.operands).len()
    }
}

/// Whether `words` match `row`: the fixed words first, in order; then the leading groups in
/// table order; then the other groups in any order, each at most once (the positional ones in
/// table order among themselves), the required ones exactly once; a word of `repeatable`
/// may come again.
fn row_accepts(row: &Row, words: &[&str], repeatable: &BTreeSet<&str>) -> bool {
    if words.len() < row.fixed.len() || words[..row.fixed.len()] != row.fixed[..] {
        return false;
    }
    if words.iter().any(|w| row.words.binary_search(w).is_err()) {
        return false;
    }
    struct St<'r, 'w> {
        row: &'r Row,
        used: Vec<bool>,
        seen: Vec<&'w str>,
        repeatable: &'r BTreeSet<&'r str>,
    }
    fn go<'w>(st: &mut St<'_, 'w>, rest: &[&'w str]) -> bool {
        let groups = &st.row.groups;
        if rest.is_empty() {
            return groups.iter().zip(&st.used).all(|(g, u)| *u || g.optional);
        }
        if st.seen.contains(&rest[0]) && st.repeatable.contains(rest[0]) && go(st, &rest[1..]) {
            return true;
        }
        // The first leading group not yet used (the later ones wait for it).
        let lead = (0..groups.len()).find(|&i| groups[i].leading && !st.used[i]);
        for (gi, g) in groups.iter().enumerate() {
            if st.used[gi] && !g.repeated {
                continue;
            }
            // The leading groups skipped by taking this one (optional ones, left out for good).
            let mut skipped: Vec<usize> = Vec::new();
            if let Some(l) = lead {
                // Only the next leading group, or a later one when those before are optional.
                if !g.leading
                    || gi < l
                    || (l..gi).any(|j| groups[j].leading && !groups[j].optional && !st.used[j])
                {
                    continue;
                }
                skipped.extend((l..gi).filter(|&j| groups[j].leading && !st.used[j]));
            } else if g.leading {
                continue;
            }
            // A group of an order class comes after the groups of its class used so far.
            if let Some(c) = g.order_class {
                if (gi + 1..groups.len()).any(|j| st.used[j] && groups[j].order_class == Some(c)) {
                    continue;
                }
            }
            for a in &g.alts {
                if rest.len() >= a.len() && rest[..a.len()] == a[..] {
                    let was = st.used[gi];
                    st.used[gi] = true;
                    for &j in &skipped {
                        st.used[j] = true;
                    }
                    let n = st.seen.len();
                    st.seen.extend(rest[..a.len()].iter().copied());
                    let ok = go(st, &rest[a.len()..]);
                    st.seen.truncate(n);
                    st.used[gi] = was;
                    for &j in &skipped {
                        st.used[j] = false;
                    }
                    if ok {
                        return true;
                    }
                }
            }
        }
        // Past the leading groups: the optional leading ones left out for good.
        if let Some(l) = lead {
            if groups[l].optional {
                let skipped: Vec<usize> = (l..groups.len())
                    .filter(|&j| groups[j].leading && !st.used[j])
                    .collect();
                if skipped.iter().all(|&j| groups[j].optional) {
                    for &j in &skipped {
                        st.used[j] = true;
                    }
                    let ok = go(st, rest);
                    for &j in &skipped {
                        st.used[j] = false;
                    }
                    // A skipped optional group counts as used only for ordering.
                    return ok;
                }
            }
        }
        false
    }
    let mut st = St {
        row,
        used: vec![false; row.groups.len()],
        seen: Vec::new(),
        repeatable,
    };
    go(&mut st, &words[row.fixed.len()..])
}

/// Give each group its order class: 0 for the groups of types, 1 for those of layouts (the
/// positional groups: `ptxas` takes `mma.row.f32.col...`), 2 for the groups the table marks
/// ordered (`>`), and one class (from 3) per set of groups that share words, linked through
/// shared words; a free group (`~`) has none.
fn set_order_classes(groups: &mut [Group], ordered: &[bool]) {
    let n = groups.len();
    let mut class: Vec<Option<usize>> = groups
        .iter()
        .zip(ordered)
        .map(|(g, &o)| {
            if g.free {
                None
            } else if g.positional() {
                Some(usize::from(g.alts.iter().all(|a| !is_type_word(a[0]))))
            } else {
                o.then_some(2)
            }
        })
        .collect();
    let shares = |a: &Group, b: &Group| {
        a.alts
            .iter()
            .flatten()
            .any(|w| b.alts.iter().flatten().any(|v| v == w))
    };
    let mut next = 3;
    for i in 0..n {
        if class[i].is_some() || groups[i].free {
            continue;
        }
        // The groups reachable from `i` through shared words.
        let mut set = vec![i];
        let mut k = 0;
        while k < set.len() {
            let a = set[k];
            for j in 0..n {
                if class[j].is_none()
                    && !groups[j].free
                    && !set.contains(&j)
                    && shares(&groups[a], &groups[j])
                {
                    set.push(j);
                }
            }
            k += 1;
        }
        if set.len() > 1 {
            for &j in &set {
                class[j] = Some(next);
            }
            next += 1;
        }
    }
    for (g, c) in groups.iter_mut().zip(class) {
        g.order_class = c;
    }
}

/// The `.word`s of `s` (`.shared.global` → `.shared`, `.global`).
fn split_words(s: &'static str) -> Vec<&'static str> {
    let mut v = Vec::new();
    let mut start = 0;
    for (k, c) in s.char_indices().skip(1) {
        if c == '.' {
            v.push(&s[start..k]);
            start = k;
        }
    }
    if start < s.len() {
        v.push(&s[start..]);
    }
    v
}

/// The table of `src/ptx/forms.txt` (read on first use).
pub fn grammar() -> &'static Grammar {
    static G: OnceLock<Grammar> = OnceLock::new();
    G.get_or_init(|| Grammar::parse(FORMS_TABLE))
}

/// What a generated instruction is meant to test.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Kind {
    /// A combination of the row's groups (meant to be legal).
    Combination,
    /// Two values of one group.
    TwoOfGroup,
    /// One value twice.
    Repeated,
    /// A type outside the opcode's rows.
    WrongType,
    /// A required group left out.
    Missing,
    /// A word of another row of the opcode added.
    ForeignWord,
    /// Another word of the opcode's row in `src/ptx/modifiers.txt` added.
    OtherWord,
    /// Another type of the opcode's row in `src/ptx/modifiers.txt` in place of the row's.
    OtherType,
}

impl Kind {
    /// A short name for reports.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Combination => "combination",
            Kind::TwoOfGroup => "two-of-group",
            Kind::Repeated => "repeated",
            Kind::WrongType => "wrong-type",
            Kind::Missing => "missing-group",
            Kind::ForeignWord => "foreign-word",
            Kind::OtherWord => "other-word",
            Kind::OtherType => "other-type",
        }
    }
}

/// One generated instruction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Generated {
    /// The opcode.
    pub op: Opcode,
    /// The head: opcode and modifiers (`add.rn.f32`).
    pub head: String,
    /// The instruction with its operands and `;`.
    pub text: String,
    /// What it tests.
    pub kind: Kind,
    /// The row's table line.
    pub line: usize,
    /// The `.target` to assemble it for.
    pub target: &'static str,
    /// Whether it is assembled in a `.func` ([`Row::in_func`]).
    pub in_func: bool,
    /// Its number of operands.
    pub operands: usize,
}

/// Types tried as a wrong type, in order (the first that no row of the opcode names).
const WRONG_TYPES: &[&str] = &[".pred", ".b128", ".f64", ".s8", ".f16", ".u64", ".b32"];

/// Every order of `n` items, bounded: all of them up to 4 items, else the rotations, their
/// reversals and the adjacent swaps of the identity.
fn orders(n: usize) -> Vec<Vec<usize>> {
    let id: Vec<usize> = (0..n).collect();
    let mut out: BTreeSet<Vec<usize>> = BTreeSet::new();
    if n <= 4 {
        fn perm(k: usize, a: &mut Vec<usize>, out: &mut BTreeSet<Vec<usize>>) {
            if k == a.len() {
                out.insert(a.clone());
                return;
            }
            for i in k..a.len() {
                a.swap(k, i);
                perm(k + 1, a, out);
                a.swap(k, i);
            }
        }
        perm(0, &mut id.clone(), &mut out);
    } else {
        for r in 0..n {
            let mut v = id.clone();
            v.rotate_left(r);
            out.insert(v.clone());
            v.reverse();
            out.insert(v);
        }
        for i in 0..n - 1 {
            let mut v = id.clone();
            v.swap(i, i + 1);
            out.insert(v);
        }
    }
    // The table's own order first.
    let mut v: Vec<Vec<usize>> = out.into_iter().filter(|o| *o != id).collect();
    v.insert(0, id);
    v
}

/// The register class of a type word: the register prefix and its declared type.
fn reg_class(ty: &str) -> &'static str {
    match ty {
        ".pred" => "%p",
        ".f32" => "%f",
        ".f64" => "%fd",
        ".b128" => "%q",
        _ => match super::ast::Type::from_name(ty).map(|t| t.bits()) {
            Some(0..=16) => "%h",
            Some(32) => "%r",
            Some(64) => "%rd",
            _ if ty == ".f32x2" => "%rd",
            _ if ty == ".s16x2" || ty == ".u16x2" => "%r",
            _ => "%h",
        },
    }
}

/// The register declarations [`instruction`] uses.
pub const REGISTERS: &str = "    .reg .pred %p<256>;\n    .reg .b16 %h<256>;\n    .reg .b32 %r<256>;\n    \
                             .reg .b64 %rd<256>;\n    .reg .f32 %f<256>;\n    .reg .f64 %fd<256>;\n    \
                             .reg .b128 %q<256>;\n    .reg .b8 %b<256>;\n";

/// The register declarations of [`REGISTERS`] that a module for `target` may hold: `.b128`
/// (and, declared after them, `.b8`) registers need `sm_70` or higher.
pub fn registers(target: &str) -> &'static str {
    if target_number(target) < 70 {
        let k = REGISTERS.find("    .reg .b128").unwrap_or(REGISTERS.len());
        &REGISTERS[..k]
    } else {
        REGISTERS
    }
}

/// The number of an `sm_XY` target (`sm_100a` → 100).
pub fn target_number(target: &str) -> u32 {
    let digits: String = target
        .trim_start_matches("sm_")
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().unwrap_or(0)
}

/// The top-level operands of a template (a vector `{..}` or an address `[..]` is one).
fn template_items(template: &str) -> Vec<&str> {
    let mut items = Vec::new();
    let (mut depth, mut start) = (0i32, 0);
    for (k, c) in template.char_indices() {
        match c {
            '{' | '[' => depth += 1,
            '}' | ']' => depth -= 1,
            ',' if depth == 0 => {
                items.push(template[start..k].trim());
                start = k + 1;
            }
            _ => {}
        }
    }
    let last = template[start..].trim();
    if !last.is_empty() || !items.is_empty() {
        items.push(last);
    }
    items
}

/// The instruction of a head `op` + `words` with the operand template `template` (see the
/// table's header).
pub fn instruction(op: Opcode, words: &[&str], template: &str) -> (String, String) {
    // Operands written only with a word (`%rd?.L2::cache_hint`).
    let kept: Vec<&str> = template_items(template)
        .into_iter()
        .filter_map(|it| match it.split_once('?') {
            Some((o, w)) => words.contains(&w).then_some(o),
            None => Some(it),
        })
        .collect();
    let template = kept.join(", ");
    let template = template.as_str();
    let mut head = op.name().to_string();
    for w in words {
        head.push_str(w);
    }
    let types: Vec<&str> = words.iter().copied().filter(|w| is_type_word(w)).collect();
    let vec = words
        .iter()
        .find_map(|w| match *w {
            ".v2" => Some(2),
            ".v4" => Some(4),
            ".v8" => Some(8),
            _ => None,
        })
        .unwrap_or(1);
    let mut n = 1;
    let mut fresh = |class: &str| {
        n += 1;
        format!("{class}{}", n - 1)
    };
    let typed = |k: usize| -> &'static str {
        match types.get(k).or(types.last()) {
            Some(t) => reg_class(t),
            None => "%r",
        }
    };
    // The N of a matrix shape word (`.m64n128k16` → 128), for `{%f*n/2}`.
    let shape_n = words.iter().find_map(|w| {
        let rest = w.strip_prefix(".m")?;
        let (_, nk) = rest.split_once('n')?;
        let (n, k) = nk.split_once('k')?;
        (rest.split('n').next()?.parse::<u32>().is_ok() && k.parse::<u32>().is_ok())
            .then(|| n.parse::<usize>().ok())
            .flatten()
    });
    let mut out = String::new();
    let b = template.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let repeat = template[i..]
            .strip_prefix("{%")
            .and_then(|r| r.split_once('}'))
            .and_then(|(inner, _)| inner.split_once('*'));
        if let Some((class, count)) = repeat {
            // `{%X*K}`: a vector of K fresh registers of class %X; `{%X*n/D}`: of N/D, N
            // the shape's.
            let k = match count.strip_prefix("n/") {
                Some(d) => shape_n.unwrap_or(0) / d.parse::<usize>().unwrap_or(1),
                None => count.parse().unwrap_or(1),
            };
            let regs: Vec<String> = (0..k.max(1)).map(|_| fresh(&format!("%{class}"))).collect();
            out.push('{');
            out.push_str(&regs.join(", "));
            out.push('}');
            i += 2 + class.len() + 1 + count.len() + 1;
        } else if template[i..].starts_with("{%") && b.get(i + 2).is_some_and(u8::is_ascii_digit) {
            // `{%k}`: a vector of the form's width.
            let end = template[i..].find('}').map_or(b.len(), |e| i + e);
            let k: usize = template[i + 2..end].parse().unwrap_or(0);
            let class = typed(k);
            if vec == 1 {
                out.push_str(&fresh(class));
            } else {
                let regs: Vec<String> = (0..vec).map(|_| fresh(class)).collect();
                out.push('{');
                out.push_str(&regs.join(", "));
                out.push('}');
            }
            i = end + 1;
        } else if b[i] == b'%' {
            let mut j = i + 1;
            while j < b.len() && b[j].is_ascii_alphanumeric() {
                j += 1;
            }
            let name = &template[i + 1..j];
            if let Ok(k) = name.parse::<usize>() {
                out.push_str(&fresh(typed(k)));
            } else {
                out.push_str(&fresh(&template[i..j]));
            }
            i = j;
        } else if template[i..].starts_with("[a]") {
            out.push_str("[%rd15]");
            i += 3;
        } else {
            let c = template[i..].chars().next().unwrap_or(' ');
            out.push(c);
            i += c.len_utf8();
        }
    }
    let text = if out.trim().is_empty() {
        format!("{head};")
    } else {
        format!("{head} {};", out.trim())
    };
    (head, text)
}

/// The generated instructions of every row of `g` (see the module docs), without repeats of
/// one instruction text.
pub fn generate(g: &Grammar) -> Vec<Generated> {
    let mut out = Vec::new();
    let mut seen = BTreeSet::new();
    let mut push = |row: &Row, words: Vec<&str>, kind: Kind, out: &mut Vec<Generated>| {
        let mut all: Vec<&str> = row.fixed.clone();
        all.extend(words);
        // A neighbour that another row holds is that row's combination (tested there, with
        // that row's operands), no neighbour; so is an order of this row's groups that this
        // row does not take but another row does (`cvt.e4m3x2.bf16x2` of the row
        // `cvt .bf16x2 .e4m3x2` is the conversion the other way).
        let others = || g.operand_counts(row.op, &all) & (1 << row.operand_count().min(31)) != 0;
        if kind != Kind::Combination && others() {
            return;
        }
        if kind == Kind::Combination && !row_accepts(row, &all, &g.repeatable) && others() {
            return;
        }
        let (head, text) = instruction(row.op, &all, row.operands);
        if seen.insert((row.target, row.in_func, text.clone())) {
            out.push(Generated {
                op: row.op,
                head,
                text,
                kind,
                line: row.line,
                target: row.target,
                in_func: row.in_func,
                operands: row.operand_count(),
            });
        }
    };
    for (ri, row) in g.rows.iter().enumerate() {
        // One choice per group: None = left out, Some(k) = alternative k.
        let base: Vec<Option<usize>> = row
            .groups
            .iter()
            .map(|gr| if gr.optional { None } else { Some(0) })
            .collect();
        let spell = |choice: &[Option<usize>], order: &[usize]| -> Vec<&'static str> {
            let mut v = Vec::new();
            for &gi in order {
                if let Some(k) = choice[gi] {
                    v.extend(row.groups[gi].alts[k].iter().copied());
                }
            }
            v
        };
        let id: Vec<usize> = (0..row.groups.len()).collect();
        push(row, spell(&base, &id), Kind::Combination, &mut out);
        for (gi, gr) in row.groups.iter().enumerate() {
            for k in 0..gr.alts.len() {
                let mut c = base.clone();
                c[gi] = Some(k);
                push(row, spell(&c, &id), Kind::Combination, &mut out);
            }
            // A repeated group twice, in its place: its first value with itself and with its
            // last.
            if gr.repeated {
                for k in [0, gr.alts.len() - 1] {
                    let mut c = base.clone();
                    c[gi] = Some(0);
                    let mut v = Vec::new();
                    for &gj in &id {
                        if let Some(a) = c[gj] {
                            v.extend(row.groups[gj].alts[a].iter().copied());
                        }
                        if gj == gi {
                            v.extend(gr.alts[k].iter().copied());
                        }
                    }
                    push(row, v, Kind::Combination, &mut out);
                }
            }
        }
        let full: Vec<Option<usize>> = row.groups.iter().map(|_| Some(0)).collect();
        for o in orders(row.groups.len()) {
            push(row, spell(&full, &o), Kind::Combination, &mut out);
        }
        // Illegal neighbours.
        for (gi, gr) in row.groups.iter().enumerate() {
            let mut c = base.clone();
            c[gi] = Some(0);
            let mut w = spell(&c, &id);
            if gr.alts.len() >= 2 {
                let mut two = w.clone();
                two.extend(gr.alts[1].iter().copied());
                push(row, two, Kind::TwoOfGroup, &mut out);
            }
            w.extend(gr.alts[0].iter().copied());
            push(row, w, Kind::Repeated, &mut out);
            if !gr.optional && row.groups.len() > 1 {
                let mut c = base.clone();
                c[gi] = None;
                push(row, spell(&c, &id), Kind::Missing, &mut out);
            }
        }
        // Every other word `src/ptx/modifiers.txt` allows on the opcode, first after the head
        // (a type in place of the row's last type group).
        let own: BTreeSet<&str> = row
            .groups
            .iter()
            .flat_map(|gr| gr.alts.iter().flatten().copied())
            .chain(row.fixed.iter().copied())
            .collect();
        let type_group = row
            .groups
            .iter()
            .rposition(|gr| gr.alts.iter().all(|a| a.len() == 1 && is_type_word(a[0])));
        for w in super::isa::modifier_table().modifiers_of(row.op) {
            if own.contains(w) {
                continue;
            }
            if is_type_word(w) {
                if let Some(ti) = type_group {
                    let mut v = Vec::new();
                    for (gi, choice) in base.iter().enumerate() {
                        if gi == ti {
                            v.push(w);
                        } else if let Some(k) = *choice {
                            v.extend(row.groups[gi].alts[k].iter().copied());
                        }
                    }
                    push(row, v, Kind::OtherType, &mut out);
                }
            } else {
                // On the base, and on the base with the type group at its last value (a word
                // legal only with some types: `sub.cc.u64`).
                let mut v = vec![w];
                v.extend(spell(&base, &id));
                push(row, v, Kind::OtherWord, &mut out);
                if let Some(ti) = type_group {
                    let mut c = base.clone();
                    c[ti] = Some(row.groups[ti].alts.len() - 1);
                    let mut v = vec![w];
                    v.extend(spell(&c, &id));
                    push(row, v, Kind::OtherWord, &mut out);
                }
            }
        }
        let op_types: BTreeSet<&str> = g
            .rows_of(row.op)
            .flat_map(|r| r.groups.iter())
            .flat_map(|gr| gr.alts.iter().flatten().copied())
            .filter(|w| is_type_word(w))
            .collect();
        if let Some(ti) = row
            .groups
            .iter()
            .rposition(|gr| gr.alts.iter().all(|a| a.len() == 1 && is_type_word(a[0])))
        {
            if let Some(wrong) = WRONG_TYPES.iter().find(|t| !op_types.contains(*t)) {
                let mut w = Vec::new();
                for (gi, choice) in base.iter().enumerate() {
                    if gi == ti {
                        w.push(*wrong);
                    } else if let Some(k) = *choice {
                        w.extend(row.groups[gi].alts[k].iter().copied());
                    }
                }
                push(row, w, Kind::WrongType, &mut out);
            }
        }
        for (rj, other) in g.rows.iter().enumerate() {
            if rj == ri || other.op != row.op || other.fixed != row.fixed {
                continue;
            }
            for gr in other.groups.iter().filter(|gr| gr.optional) {
                let a = &gr.alts[0];
                if a.iter().any(|w| own.contains(w)) {
                    continue;
                }
                let mut w = a.clone();
                w.extend(spell(&base, &id));
                push(row, w, Kind::ForeignWord, &mut out);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_reads_cleanly() {
        let g = grammar();
        assert!(g.problems.is_empty(), "{:?}", g.problems);
        assert!(g.rows.len() > 100);
        let t = super::super::isa::modifier_table();
        for r in &g.rows {
            for w in r.groups.iter().flat_map(|gr| gr.alts.iter().flatten()) {
                assert!(
                    t.allows(r.op, w),
                    "line {}: {w} not legal on {}",
                    r.line,
                    r.op.name()
                );
            }
        }
    }

    #[test]
    fn every_supported_form_of_a_strict_opcode_is_a_row_combination() {
        let g = grammar();
        let mut n = 0;
        for f in crate::lower::supported_forms() {
            let (op, words) = crate::ptx::analysis::form_words(&f);
            let Some(op) = Opcode::from_name(op) else {
                continue;
            };
            if is_strict(op) {
                assert!(
                    g.spelling(op, &words, crate::ptx::analysis::dropped)
                        .is_some(),
                    "supported form {f} is no row combination"
                );
                n += 1;
            }
        }
        assert!(n > 100, "{n}");
    }

    #[test]
    fn rows_accept_in_any_order() {
        let g = grammar();
        assert!(g.accepts(Opcode::Add, &[".rn", ".ftz", ".f32"]));
        assert!(g.accepts(Opcode::Add, &[".f32", ".ftz", ".rn"]));
        assert!(!g.accepts(Opcode::Add, &[".rn", ".rz", ".f32"]));
        assert!(!g.accepts(Opcode::Add, &[".rn", ".s32"]));
        assert!(g.accepts(Opcode::Cp, &[".async", ".ca", ".shared", ".global"]));
        assert!(!g.accepts(Opcode::Cp, &[".async", ".ca", ".global", ".shared"]));
    }

    #[test]
    fn operand_counts_orders_and_spellings() {
        let g = grammar();
        // `.abs` on min.f32: three inputs; `.xorsign.abs`: two; neither: both.
        assert_eq!(g.operand_counts(Opcode::Min, &[".abs", ".f32"]), 1 << 4);
        assert_eq!(
            g.operand_counts(Opcode::Min, &[".xorsign", ".abs", ".f32"]),
            1 << 3
        );
        assert_eq!(
            g.operand_counts(Opcode::Min, &[".f32"]),
            (1 << 3) | (1 << 4)
        );
        assert_eq!(g.operand_counts(Opcode::Add, &[".s32"]), ANY_COUNT);
        assert_eq!(g.operand_counts(Opcode::Add, &[".rn", ".s32"]), 0);
        assert_eq!(
            g.operand_counts_of(Opcode::Min, [".abs", ".f32"].into_iter()),
            1 << 4
        );
        // Groups that share words keep their order: primary, then secondary priority.
        let cp = |w: &[&str]| g.accepts(Opcode::Createpolicy, w);
        assert!(cp(&[
            ".fractional",
            ".L2::evict_last",
            ".L2::evict_first",
            ".b64"
        ]));
        assert!(cp(&[
            ".fractional",
            ".b64",
            ".L2::evict_last",
            ".L2::evict_first"
        ]));
        assert!(!cp(&[
            ".fractional",
            ".L2::evict_first",
            ".L2::evict_last",
            ".b64"
        ]));
        // An optional leading group left out stays out (`bar.red.cta`).
        assert!(g.accepts(Opcode::Bar, &[".cta", ".red", ".popc", ".u32"]));
        assert!(g.accepts(Opcode::Bar, &[".red", ".popc", ".u32"]));
        assert!(!g.accepts(Opcode::Bar, &[".red", ".cta", ".popc", ".u32"]));
        // A form without the words forms leave out, spelt as ptxas takes it.
        let w = [".sync", ".m8n8", ".x4", ".shared", ".b16"];
        let spelt = g
            .spelling(Opcode::Ldmatrix, &w, crate::ptx::analysis::dropped)
            .unwrap();
        assert!(spelt.contains(&".aligned"));
        assert!(g.accepts(Opcode::Ldmatrix, &spelt));
        assert!(g
            .spelling(Opcode::Ldmatrix, &[".sync", ".m8n8", ".x3", ".b16"], |_| {
                true
            })
            .is_none());
    }

    #[test]
    fn instructions_follow_the_template() {
        let (h, t) = instruction(Opcode::Ld, &[".global", ".v2", ".f32"], "{%0}, [a]");
        assert_eq!(h, "ld.global.v2.f32");
        assert_eq!(t, "ld.global.v2.f32 {%f1, %f2}, [%rd15];");
        let (_, t) = instruction(Opcode::Cvt, &[".rn", ".f16", ".f32"], "%0, %1");
        assert_eq!(t, "cvt.rn.f16.f32 %h1, %f2;");
        // An operand written only with its word; an address with coordinates is one operand.
        let tpl = "{%0}, [a], %rd?.L2::cache_hint";
        let (_, t) = instruction(Opcode::Ld, &[".global", ".b32"], tpl);
        assert_eq!(t, "ld.global.b32 %r1, [%rd15];");
        let (_, t) = instruction(Opcode::Ld, &[".global", ".L2::cache_hint", ".b32"], tpl);
        assert_eq!(t, "ld.global.L2::cache_hint.b32 %r1, [%rd15], %rd2;");
        assert_eq!(template_items("[a], [%rd, {%r, %r}], [a]").len(), 3);
        assert_eq!(orders(3).len(), 6);
        assert_eq!(orders(6).len(), 6 * 2 + 5);
    }
}
