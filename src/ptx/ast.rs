//! Typed AST of a PTX module (PTX ISA 9.x, chapters 5 "State spaces, types and variables",
//! 6 "Instruction operands", 7 "Abstracting the ABI", 9.7 "Instructions" and 11 "Directives").
//!
//! Every string in the tree is borrowed from the source text (`'a`), so building the tree copies
//! no identifier. Source positions ([`Loc`]) are carried for diagnostics and analysis but compare
//! equal unconditionally, so that `parse(print(parse(x))) == parse(x)` holds even though the
//! printer lays the text out differently from the input.

use serde::Serialize;

use super::isa::Opcode;

/// A 1-based source position (line and byte column).
///
/// `Loc` is excluded from AST equality: `a == b` is always `true`. This is what makes
/// parse → print → parse a fixed point although printing changes the layout.
#[derive(Clone, Copy, Debug, Default, Serialize)]
pub struct Loc {
    /// 1-based line number.
    pub line: u32,
    /// 1-based byte column.
    pub col: u32,
}

impl PartialEq for Loc {
    fn eq(&self, _other: &Self) -> bool {
        true
    }
}

/// A name or literal spelling borrowed from the source text: a `&'a str` stored in 12 bytes (a
/// pointer and a 32-bit length, 4-byte aligned) instead of 16, so that an [`Operand`] holding
/// one is 16 bytes.
/// It dereferences to `str` and compares equal to `str`/`&str`; [`Name::as_str`] gives the
/// `&'a str` back with the source's lifetime.
///
/// Sources are limited to 4 GiB already (token offsets are 32-bit), so a name always fits;
/// [`Name::new`] panics on a longer string.
#[derive(Clone, Copy)]
// 4-byte alignment makes it 12 bytes (not 16), so an enum's tag fits beside it in 16.
#[repr(C, packed(4))]
pub struct Name<'a> {
    ptr: std::ptr::NonNull<u8>,
    len: u32,
    _src: std::marker::PhantomData<&'a str>,
}

// SAFETY: a `Name` is a shared borrow of `str` data (like `&'a str`, which is Send and Sync).
unsafe impl Send for Name<'_> {}
// SAFETY: as above.
unsafe impl Sync for Name<'_> {}

impl<'a> Name<'a> {
    /// Borrow `s` (at most `u32::MAX` bytes).
    #[inline(always)]
    pub fn new(s: &'a str) -> Self {
        assert!(s.len() <= u32::MAX as usize, "name longer than 4 GiB");
        Name {
            // A `&str`'s pointer is never null (a dangling but non-null one when empty).
            ptr: std::ptr::NonNull::from(s.as_bytes()).cast(),
            len: s.len() as u32,
            _src: std::marker::PhantomData,
        }
    }

    /// The text, with the source's lifetime.
    #[inline(always)]
    pub fn as_str(self) -> &'a str {
        // SAFETY: `ptr` and `len` were taken from a `&'a str` in `new`; the borrow lives for
        // `'a` (the `PhantomData`), and the bytes are that string's, so valid UTF-8.
        unsafe {
            std::str::from_utf8_unchecked(std::slice::from_raw_parts(
                self.ptr.as_ptr(),
                self.len as usize,
            ))
        }
    }
}

/// The empty name.
impl Default for Name<'_> {
    fn default() -> Self {
        Name::new("")
    }
}

impl<'a> From<&'a str> for Name<'a> {
    fn from(s: &'a str) -> Self {
        Name::new(s)
    }
}

impl std::ops::Deref for Name<'_> {
    type Target = str;
    #[inline(always)]
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for Name<'_> {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl std::borrow::Borrow<str> for Name<'_> {
    fn borrow(&self) -> &str {
        self.as_str()
    }
}

impl PartialEq for Name<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for Name<'_> {}

impl std::hash::Hash for Name<'_> {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        self.as_str().hash(h)
    }
}

impl PartialEq<str> for Name<'_> {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for Name<'_> {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialEq<Name<'_>> for &str {
    fn eq(&self, other: &Name<'_>) -> bool {
        *self == other.as_str()
    }
}

impl std::fmt::Debug for Name<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(self.as_str(), f)
    }
}

impl std::fmt::Display for Name<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A parsed PTX module (PTX ISA 9.x §11.1 "PTX module directives" plus everything after them).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Module<'a> {
    /// `.version major.minor` (§11.1.1); `None` when the directive is missing.
    pub version: Option<Version>,
    /// `.target` options in source order, e.g. `["sm_90a", "texmode_independent", "debug"]` (§11.1.2).
    pub target: Vec<&'a str>,
    /// `.address_size 32|64` (§11.1.3).
    pub address_size: Option<u32>,
    /// Module-scope directives in source order.
    pub items: Vec<Directive<'a>>,
}

/// `.version` (§11.1.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Version {
    /// Major version (e.g. 8 in `8.7`).
    pub major: u32,
    /// Minor version (e.g. 7 in `8.7`).
    pub minor: u32,
}

/// A module-scope directive.
#[derive(Clone, Debug, PartialEq)]
pub enum Directive<'a> {
    /// A variable in a module-level state space (`.global`, `.const`, `.shared`, `.tex`, ...).
    Variable(VarDecl<'a>),
    /// A `.entry` or `.func`, defined (with a body) or declared (prototype only).
    Function(Function<'a>),
    /// A function (or other directive) that did not parse. It is kept — never dropped — with the
    /// reasons and the raw source text; the printer writes the raw text back unchanged.
    Invalid(InvalidDirective<'a>),
    /// `.alias alias, aliasee;` (§11.2.3, PTX 6.3).
    Alias {
        /// The new name.
        alias: &'a str,
        /// The existing function it names.
        aliasee: &'a str,
        /// Where it starts.
        loc: Loc,
    },
    /// `.pragma "a", "b";` at module scope (§11.5.1).
    Pragma(Pragma<'a>),
    /// A debugging directive kept verbatim: `.file`, `.section` with its `{ ... }` data, `@@dwarf`
    /// (§11.6). The text is printed back unchanged.
    Debug(RawDirective<'a>),
}

/// A directive kept as raw source text (debug information).
#[derive(Clone, Debug, PartialEq)]
pub struct RawDirective<'a> {
    /// The directive name including the dot, e.g. `.loc`, `.file`, `.section`, or `@@dwarf`.
    pub name: &'a str,
    /// The whole directive text from its first character to its end (end of line for `.loc` and
    /// `.file`, the closing `}` for `.section`).
    pub text: &'a str,
    /// Where it starts.
    pub loc: Loc,
}

/// A `.pragma` directive: a list of string literals (with their quotes) (§11.5.1).
#[derive(Clone, Debug, PartialEq)]
pub struct Pragma<'a> {
    /// The string literals exactly as written, quotes included, e.g. `"nounroll"`.
    pub strings: Vec<&'a str>,
    /// Where it starts.
    pub loc: Loc,
}

/// A function that failed to parse (or another module-level construct that failed).
#[derive(Clone, Debug, PartialEq)]
pub struct InvalidDirective<'a> {
    /// `.entry` or `.func` when the invalid directive is a function.
    pub kind: Option<FunctionKind>,
    /// The function name, when it could be read.
    pub name: Option<&'a str>,
    /// Every error message found inside it (the diagnostics carry the positions).
    pub reasons: Vec<String>,
    /// The raw text of the whole directive.
    pub text: &'a str,
    /// Where it starts.
    pub loc: Loc,
}

/// Linkage directives (§11.4: `.extern`, `.visible`, `.weak`, `.common`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Linkage {
    /// `.extern`: declared here, defined elsewhere.
    Extern,
    /// `.visible`: externally visible definition.
    Visible,
    /// `.weak`: externally visible, weak.
    Weak,
    /// `.common`: common symbol (global variables only, PTX 5.0).
    Common,
}

impl Linkage {
    /// The directive spelling, e.g. `.visible`.
    pub fn as_str(self) -> &'static str {
        match self {
            Linkage::Extern => ".extern",
            Linkage::Visible => ".visible",
            Linkage::Weak => ".weak",
            Linkage::Common => ".common",
        }
    }
}

/// `.entry` (kernel) or `.func` (device function) (§11.2.1, §11.2.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum FunctionKind {
    /// `.entry`.
    Entry,
    /// `.func`.
    Func,
}

/// A kernel or device function (§11.2).
#[derive(Clone, Debug, PartialEq)]
pub struct Function<'a> {
    /// Linkage directive, if any.
    pub linkage: Option<Linkage>,
    /// `.entry` or `.func`.
    pub kind: FunctionKind,
    /// Return parameters of a `.func` (`.func (.param .b32 rv) f(...)`); empty if none.
    pub returns: Vec<VarDecl<'a>>,
    /// Function name.
    pub name: &'a str,
    /// Parameters (`.param` for kernels; `.param` or `.reg` for `.func`).
    pub params: Vec<VarDecl<'a>>,
    /// Attributes after the parameter list, in order: `.noreturn`, `.maxntid 256,1,1`,
    /// `.reqntid`, `.minnctapersm`, `.maxnctapersm`, `.maxnreg`, `.explicitcluster`,
    /// `.reqnctapercluster`, `.maxclusterrank`, `.blocksareclusters`, `.pragma` (§11.3, §11.5).
    pub attrs: Vec<FuncAttr<'a>>,
    /// The body, or `None` for a declaration ending in `;`.
    pub body: Option<Block<'a>>,
    /// Where the function (its first directive word) starts.
    pub loc: Loc,
}

/// One performance-tuning or cluster directive attached to a function (§11.3, §11.5.1).
#[derive(Clone, Debug, PartialEq)]
pub struct FuncAttr<'a> {
    /// The directive including the dot, e.g. `.maxntid`.
    pub name: &'a str,
    /// Its integer arguments (e.g. `[256, 1, 1]`); empty for `.noreturn`, `.explicitcluster`.
    pub args: Vec<u64>,
    /// For `.pragma`: its string literals (quoted). Empty otherwise.
    pub strings: Vec<&'a str>,
}

/// A `{ ... }` statement block: a function body or a nested scope (§10.2 and nvcc inline-asm
/// blocks).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Block<'a> {
    /// Statements in source order.
    pub stmts: Vec<Statement<'a>>,
    /// Position of the `{`.
    pub loc: Loc,
}

/// One statement inside a function body.
#[derive(Clone, Debug, PartialEq)]
pub enum Statement<'a> {
    /// An instruction (§9.7).
    Instruction(Instruction<'a>),
    /// A label definition `name:`.
    Label(Label<'a>),
    /// A variable declaration: `.reg`, `.local`, `.shared`, `.param`, `.const` (§5).
    Variable(VarDecl<'a>),
    /// A nested `{ ... }` scope.
    Block(Block<'a>),
    /// `.pragma "...";` inside a body (§11.5.1).
    Pragma(Pragma<'a>),
    /// `.loc` / `@@dwarf` kept verbatim (§11.6.2).
    Debug(RawDirective<'a>),
    /// `.callprototype` (normally after a label; §11.2.5).
    CallPrototype(CallPrototype<'a>),
    /// `.calltargets f1, f2;` (normally after a label; §11.2.6).
    CallTargets(TargetList<'a>),
    /// `.branchtargets L1, L2;` (normally after a label; §11.2.4).
    BranchTargets(TargetList<'a>),
}

/// A label definition.
#[derive(Clone, Debug, PartialEq)]
pub struct Label<'a> {
    /// The label name, e.g. `$L__BB0_2`.
    pub name: &'a str,
    /// Where it is defined.
    pub loc: Loc,
}

/// `.calltargets` / `.branchtargets` operand list.
#[derive(Clone, Debug, PartialEq)]
pub struct TargetList<'a> {
    /// The listed function or label names.
    pub targets: Vec<&'a str>,
    /// Where the directive is.
    pub loc: Loc,
}

/// `.callprototype [(ret)] _ (params) [.noreturn];` (§11.2.5).
#[derive(Clone, Debug, PartialEq)]
pub struct CallPrototype<'a> {
    /// Return parameters (names are normally `_`); empty if none.
    pub returns: Vec<VarDecl<'a>>,
    /// Parameters.
    pub params: Vec<VarDecl<'a>>,
    /// Whether `.noreturn` follows.
    pub noreturn: bool,
    /// Where the directive is.
    pub loc: Loc,
}

/// A PTX state space (§5.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum StateSpace {
    /// `.reg`
    Reg,
    /// `.sreg`
    Sreg,
    /// `.const`
    Const,
    /// `.global`
    Global,
    /// `.local`
    Local,
    /// `.param`
    Param,
    /// `.param::entry`
    ParamEntry,
    /// `.param::func`
    ParamFunc,
    /// `.shared`
    Shared,
    /// `.shared::cta`
    SharedCta,
    /// `.shared::cluster`
    SharedCluster,
    /// `.tex` (deprecated)
    Tex,
}

impl StateSpace {
    /// Parse a state-space directive word (with dot).
    pub fn from_name(s: &str) -> Option<StateSpace> {
        Some(match s {
            ".reg" => StateSpace::Reg,
            ".sreg" => StateSpace::Sreg,
            ".const" => StateSpace::Const,
            ".global" => StateSpace::Global,
            ".local" => StateSpace::Local,
            ".param" => StateSpace::Param,
            ".param::entry" => StateSpace::ParamEntry,
            ".param::func" => StateSpace::ParamFunc,
            ".shared" => StateSpace::Shared,
            ".shared::cta" => StateSpace::SharedCta,
            ".shared::cluster" => StateSpace::SharedCluster,
            ".tex" => StateSpace::Tex,
            _ => return None,
        })
    }

    /// The directive spelling, e.g. `.shared::cta`.
    pub fn as_str(self) -> &'static str {
        match self {
            StateSpace::Reg => ".reg",
            StateSpace::Sreg => ".sreg",
            StateSpace::Const => ".const",
            StateSpace::Global => ".global",
            StateSpace::Local => ".local",
            StateSpace::Param => ".param",
            StateSpace::ParamEntry => ".param::entry",
            StateSpace::ParamFunc => ".param::func",
            StateSpace::Shared => ".shared",
            StateSpace::SharedCta => ".shared::cta",
            StateSpace::SharedCluster => ".shared::cluster",
            StateSpace::Tex => ".tex",
        }
    }
}

macro_rules! scalar_types {
    ($($v:ident => $s:literal, $bits:expr;)*) => {
        /// A fundamental or opaque type usable in a declaration (§5.2).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
        pub enum Type {
            $(#[doc = $s] $v,)*
        }
        impl Type {
            /// Parse a type word (with dot), e.g. `.b32`.
            pub fn from_name(s: &str) -> Option<Type> {
                match s { $($s => Some(Type::$v),)* _ => None }
            }
            /// The spelling, e.g. `.f16x2`.
            pub fn as_str(self) -> &'static str {
                match self { $(Type::$v => $s,)* }
            }
            /// Size in bits (0 for `.pred` and the opaque `.texref` / `.samplerref` / `.surfref`).
            pub fn bits(self) -> u32 {
                match self { $(Type::$v => $bits,)* }
            }
        }
    };
}

scalar_types! {
    B8 => ".b8", 8; B16 => ".b16", 16; B32 => ".b32", 32; B64 => ".b64", 64; B128 => ".b128", 128;
    U8 => ".u8", 8; U16 => ".u16", 16; U32 => ".u32", 32; U64 => ".u64", 64;
    S8 => ".s8", 8; S16 => ".s16", 16; S32 => ".s32", 32; S64 => ".s64", 64;
    F16 => ".f16", 16; F16x2 => ".f16x2", 32; F32 => ".f32", 32; F64 => ".f64", 64;
    Bf16 => ".bf16", 16; Bf16x2 => ".bf16x2", 32; Tf32 => ".tf32", 32;
    E4m3 => ".e4m3", 8; E5m2 => ".e5m2", 8; E4m3x2 => ".e4m3x2", 16; E5m2x2 => ".e5m2x2", 16;
    Pred => ".pred", 0; Texref => ".texref", 0; Samplerref => ".samplerref", 0; Surfref => ".surfref", 0;
}

/// Pointer attributes on a kernel parameter: `.ptr [.space] [.align N]` (§5.1.6.1, PTX 2.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PtrAttr {
    /// `.const`, `.global`, `.local` or `.shared` if given.
    pub space: Option<StateSpace>,
    /// `.align N` after `.ptr`, if given.
    pub align: Option<u32>,
}

/// A variable or parameter declaration (§5.4): one state space, attributes, a type and one or
/// more declarators (`.reg .b32 %r<10>, %x;`).
#[derive(Clone, Debug, PartialEq)]
pub struct VarDecl<'a> {
    /// Linkage, for module-scope variables.
    pub linkage: Option<Linkage>,
    /// The state space.
    pub space: StateSpace,
    /// `.attribute(...)` contents, verbatim (e.g. `.managed`) (§11.4.8? "variable attributes").
    pub attribute: Option<&'a str>,
    /// `.align N`.
    pub align: Option<u32>,
    /// `.v2`, `.v4` or `.v8`.
    pub vector: Option<u8>,
    /// The element type.
    pub ty: Type,
    /// `.ptr` attributes (kernel `.param` only).
    pub ptr: Option<PtrAttr>,
    /// The declared names.
    pub decls: Vec<Declarator<'a>>,
    /// Where the declaration starts.
    pub loc: Loc,
}

/// One name in a declaration, with its range, array dimensions and initializer.
#[derive(Clone, Debug, PartialEq)]
pub struct Declarator<'a> {
    /// The name (`%r`, `smem`, `_` in prototypes).
    pub name: &'a str,
    /// `<N>` of a parameterized register name `%r<N>` (declares `%r0`..`%r{N-1}`).
    pub range: Option<u32>,
    /// Array dimensions; `None` for an unsized `[]`.
    pub array: Vec<Option<u64>>,
    /// `= ...` initializer.
    pub init: Option<Init<'a>>,
}

/// A variable initializer (§5.4.4), including address-of initializers (PTX 2.1+: `sym`,
/// `generic(sym)`, `sym+off`).
#[derive(Clone, Debug, PartialEq)]
pub enum Init<'a> {
    /// A constant.
    Imm(Imm<'a>),
    /// The address of a variable or function, optionally `generic(...)`-wrapped and offset.
    Symbol {
        /// The symbol name.
        name: &'a str,
        /// Whether written as `generic(name)`.
        generic: bool,
        /// Byte offset (`name+8`), 0 if none.
        offset: i64,
    },
    /// A brace-enclosed list `{a, b, ...}` (nested for multi-dimensional arrays).
    List(Vec<Init<'a>>),
    /// A named field of an opaque `.samplerref` / `.texref` initializer (§5.3.1), e.g.
    /// `filter_mode = linear`.
    Field {
        /// The field name (`addr_mode_0`, `filter_mode`, ...).
        name: &'a str,
        /// The value as written (`clamp_to_edge`, `1`).
        value: &'a str,
    },
}

/// A numeric literal (§4.5): its exact spelling, from which [`Imm::value`] decodes the value.
///
/// Only the text is stored (16 bytes), which keeps [`Operand`] at 24 bytes; the parser has
/// checked that the text is a valid literal, and [`Imm::new`] checks it for an `Imm` built by
/// hand, so decoding cannot fail.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Imm<'a> {
    text: Name<'a>,
}

impl<'a> Imm<'a> {
    /// The literal `text` (as the parser reads it: an optional `-`, then an integer, `0f`/`0d`
    /// bit pattern or decimal float token, §4.5), or `None` if it is not one.
    pub fn new(text: &'a str) -> Option<Self> {
        crate::ptx::parser::decode_literal(text).map(|_| Imm {
            text: Name::new(text),
        })
    }

    /// Wrap text the parser has already decoded successfully.
    pub(crate) fn from_valid(text: &'a str) -> Self {
        Imm {
            text: Name::new(text),
        }
    }

    /// The literal exactly as written (including a leading `-` and a `U` suffix).
    pub fn text(&self) -> &'a str {
        self.text.as_str()
    }

    /// The decoded value (decoded from the text on each call, by the parser's rules).
    pub fn value(&self) -> ImmValue {
        // The text was checked when the `Imm` was made (parser or [`Imm::new`]).
        crate::ptx::parser::decode_literal(self.text.as_str()).unwrap_or(ImmValue::Int(0))
    }
}

/// The value of a numeric literal.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ImmValue {
    /// A signed integer (decimal, hex `0x`, octal `0`, binary `0b`), negated if written with `-`.
    Int(i64),
    /// An integer with the `U` suffix, or one too large for `i64`.
    UInt(u64),
    /// `0fXXXXXXXX`: the IEEE single-precision bit pattern.
    F32Bits(u32),
    /// `0dXXXXXXXXXXXXXXXX`: the IEEE double-precision bit pattern.
    F64Bits(u64),
    /// A decimal floating-point literal (`1.5`, `1e-3`), treated as `.f64` by PTX.
    Float(f64),
}

/// A predicate guard `@p` / `@!p` (§9.3).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Guard<'a> {
    /// `true` for `@!p`.
    pub negated: bool,
    /// The predicate register.
    pub reg: Name<'a>,
}

/// An instruction statement: guard, opcode, modifiers, operands (§9.7).
///
/// Modifiers are the `.word` suffixes in source order, each with its leading dot (`.global`,
/// `.L2::cache_hint`, `.m16n8k16`). They are validated against the per-opcode table in
/// `src/ptx/modifiers.txt` (see [`crate::ptx::isa`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Instruction<'a> {
    /// `@p` / `@!p` guard.
    pub guard: Option<Guard<'a>>,
    /// The opcode (first word).
    pub opcode: Opcode,
    /// Modifiers in source order, with their dots (a borrowed span; see [`Modifiers`]).
    pub modifiers: Modifiers<'a>,
    /// Operands in source order (stored inline up to three, the common case; use it as a slice).
    pub operands: Operands<'a>,
    /// Where the instruction (guard or opcode) starts.
    pub loc: Loc,
}

impl<'a> Instruction<'a> {
    /// Whether the instruction carries modifier `m` (with dot, e.g. `".sync"`).
    pub fn has(&self, m: &str) -> bool {
        self.modifiers.iter().any(|x| x == m)
    }

    /// For `call`: the callee operand's name (direct call: the function symbol; indirect call:
    /// the register holding the address). `None` for other opcodes.
    pub fn call_target(&self) -> Option<&'a str> {
        if self.opcode != Opcode::Call {
            return None;
        }
        self.operands.iter().find_map(|o| match *o {
            Operand::Func(n) | Operand::Symbol(n) | Operand::Reg(n) => Some(n.as_str()),
            _ => None,
        })
    }

    /// The full opcode text with all modifiers, e.g. `ld.global.nc.v4.u32`.
    pub fn full_opcode(&self) -> String {
        let mut s = String::from(self.opcode.name());
        for m in self.modifiers.iter() {
            s.push_str(m);
        }
        s
    }
}

/// The modifiers of an instruction: the source span from the first modifier's dot to the end of
/// the last one, e.g. `.global.nc.v4.u32`. Storing the span instead of a vector keeps the AST
/// allocation-free for modifiers; [`Modifiers::iter`] yields each modifier (`.global`, ...),
/// skipping any whitespace or comments written between them. Equality compares the modifier
/// sequences, not the spans.
#[derive(Clone, Copy, Debug, Default)]
pub struct Modifiers<'a> {
    text: Name<'a>,
}

impl<'a> Modifiers<'a> {
    /// Wrap a span that consists of `.word` modifiers, optionally separated by whitespace and
    /// comments (as produced by the parser), e.g. `".sync.aligned.m8n8.x4.b16"`.
    pub fn from_span(text: &'a str) -> Self {
        Modifiers { text: text.into() }
    }

    /// The raw span.
    pub fn span(&self) -> &'a str {
        self.text.as_str()
    }

    /// Whether there are no modifiers.
    pub fn is_empty(&self) -> bool {
        self.text.is_empty()
    }

    /// The number of modifiers.
    pub fn len(&self) -> usize {
        self.iter().count()
    }

    /// Each modifier with its dot, in source order.
    pub fn iter(&self) -> ModifierIter<'a> {
        ModifierIter {
            rest: self.text.as_str(),
        }
    }

    /// The `i`-th modifier.
    pub fn get(&self, i: usize) -> Option<&'a str> {
        self.iter().nth(i)
    }
}

impl<'a> IntoIterator for &Modifiers<'a> {
    type Item = &'a str;
    type IntoIter = ModifierIter<'a>;
    fn into_iter(self) -> ModifierIter<'a> {
        self.iter()
    }
}

impl PartialEq for Modifiers<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.text == other.text || self.iter().eq(other.iter())
    }
}

/// Iterator over [`Modifiers`].
#[derive(Clone, Debug)]
pub struct ModifierIter<'a> {
    rest: &'a str,
}

impl<'a> Iterator for ModifierIter<'a> {
    type Item = &'a str;
    fn next(&mut self) -> Option<&'a str> {
        loop {
            let b = self.rest.as_bytes();
            let mut i = 0;
            while i < b.len() && b[i].is_ascii_whitespace() {
                i += 1;
            }
            if b[i..].starts_with(b"//") {
                i = self.rest[i..].find('\n').map_or(b.len(), |e| i + e);
                self.rest = &self.rest[i..];
                continue;
            }
            if b[i..].starts_with(b"/*") {
                i = self.rest[i + 2..]
                    .find("*/")
                    .map_or(b.len(), |e| i + 2 + e + 2);
                self.rest = &self.rest[i..];
                continue;
            }
            if i >= b.len() {
                self.rest = "";
                return None;
            }
            let start = i;
            i += 1;
            while i < b.len()
                && (b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] == b'$' || b[i] == b':')
            {
                i += 1;
            }
            let m = &self.rest[start..i];
            self.rest = &self.rest[i..];
            return Some(m);
        }
    }
}

/// The operand list of an [`Instruction`]: a vector that keeps up to three operands inline
/// (no heap allocation for most instructions). It dereferences to `[Operand]`.
///
/// (`tinyvec` rather than `smallvec`: it has no `Drop` impl of its own, so like `Vec` it lets a
/// tree outlive-check against the source text it borrows the way `Vec` does.)
pub type Operands<'a> = tinyvec::TinyVec<[Operand<'a>; 3]>;

/// The elements of a vector operand `{a, b, c, d}` or list operand `(a, b)`: up to four inline
/// (one allocation, the operand's box, for the common 2- and 4-element vectors). It
/// dereferences to `[Operand]`.
pub type VectorOperands<'a> = tinyvec::TinyVec<[Operand<'a>; 4]>;

/// An instruction operand (§6).
///
/// Registers and special registers keep a component or selector suffix in their text
/// (`%tid.x`, `%r1.h0` for video instructions, `v.x` for vector variables).
///
/// An operand is 16 bytes (no variant holds more than 12: a [`Name`], a literal's text, or a
/// box), so three fit inline in [`Operands`] in 56 bytes; the sizes are checked by a unit test.
#[derive(Clone, Debug, PartialEq)]
pub enum Operand<'a> {
    /// A declared register (`.reg`), e.g. `%r12`, or `p` declared in an inline-asm block.
    Reg(Name<'a>),
    /// A special register (§10), e.g. `%tid.x`, `%envreg3`, `%globaltimer_lo`, or the constant
    /// `WARP_SZ`.
    SpecialReg(Name<'a>),
    /// A variable or parameter name (addressable symbol).
    Symbol(Name<'a>),
    /// A function name (call target or address taken).
    Func(Name<'a>),
    /// A label of the enclosing function (branch target).
    Label(Name<'a>),
    /// A numeric literal.
    Imm(Imm<'a>),
    /// A vector operand `{a, b, c, d}` (elements may be `_`).
    Vector(Box<VectorOperands<'a>>),
    /// A memory address `[...]`.
    Address(Box<Address<'a>>),
    /// A parenthesised list `(a, b)`, as in `call (ret), f, (p0, p1);`.
    List(Box<VectorOperands<'a>>),
    /// The sink `_`.
    Sink,
    /// A negated predicate `!p`.
    Not(Name<'a>),
    /// A predicate pair `p|q` (setp, shfl, ... second destination): `(p, q)`, boxed because
    /// pairs are rare and two names would make every operand 8 bytes larger.
    Pair(Box<(&'a str, &'a str)>),
    /// A negated register source `-r` (with any selector, `-%r1.b0`): the `vmad` sources
    /// (PTX ISA 9.x §9.7.18.1, `{-}a{.asel}, {-}b{.bsel}, {-}c`).
    Neg(Name<'a>),
}

/// A memory operand (§6.4.1 "Addresses as operands").
#[derive(Clone, Debug, PartialEq)]
pub enum Address<'a> {
    /// `[base]`, `[base+imm]`, `[base-imm]` or `[imm]`.
    Offset {
        /// The base register or symbol; `None` for an absolute `[imm]`.
        base: Option<AddrBase<'a>>,
        /// The signed byte offset (0 if none).
        offset: i64,
    },
    /// A tuple such as `[tmap, {x, y}]`, `[tex, sampler, {c}]` or `[a, b]`.
    Tuple(Vec<Operand<'a>>),
}

/// The base of an address.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum AddrBase<'a> {
    /// A register (`[%rd1+8]`).
    Reg(&'a str),
    /// A variable, parameter or function symbol (`[param_0+8]`).
    Symbol(&'a str),
}

/// The default operand is the sink `_` (needed for inline storage in [`Operands`]).
impl Default for Operand<'_> {
    fn default() -> Self {
        Operand::Sink
    }
}

impl<'a> Operand<'a> {
    /// A short name for the operand kind (`reg`, `sreg`, `symbol`, `func`, `label`, `imm`,
    /// `vector`, `address`, `list`, `sink`, `not`, `pair`), for tests and reports.
    pub fn kind_name(&self) -> &'static str {
        match self {
            Operand::Reg(_) => "reg",
            Operand::SpecialReg(_) => "sreg",
            Operand::Symbol(_) => "symbol",
            Operand::Func(_) => "func",
            Operand::Label(_) => "label",
            Operand::Imm(_) => "imm",
            Operand::Vector(_) => "vector",
            Operand::Address(_) => "address",
            Operand::List(_) => "list",
            Operand::Sink => "sink",
            Operand::Not(_) => "not",
            Operand::Pair(_) => "pair",
            Operand::Neg(_) => "neg",
        }
    }
}

impl<'a> Module<'a> {
    /// All functions (defined and declared), in source order.
    pub fn functions(&self) -> impl Iterator<Item = &Function<'a>> {
        self.items.iter().filter_map(|d| match d {
            Directive::Function(f) => Some(f),
            _ => None,
        })
    }

    /// All module-scope variables, in source order.
    pub fn variables(&self) -> impl Iterator<Item = &VarDecl<'a>> {
        self.items.iter().filter_map(|d| match d {
            Directive::Variable(v) => Some(v),
            _ => None,
        })
    }

    /// All invalid directives (functions that failed to parse), in source order.
    pub fn invalid(&self) -> impl Iterator<Item = &InvalidDirective<'a>> {
        self.items.iter().filter_map(|d| match d {
            Directive::Invalid(v) => Some(v),
            _ => None,
        })
    }

    /// The function named `name` with a body, or else its declaration.
    pub fn function(&self, name: &str) -> Option<&Function<'a>> {
        let mut decl = None;
        for f in self.functions() {
            if f.name == name {
                if f.body.is_some() {
                    return Some(f);
                }
                decl = Some(f);
            }
        }
        decl
    }

    /// The initializer bytes of module variable `name` (little endian, element by element), for
    /// decoding e.g. a `.global .b8 $str[N] = {...}` string. `None` if the variable has no
    /// constant initializer.
    pub fn variable_bytes(&self, name: &str) -> Option<Vec<u8>> {
        self.variables()
            .flat_map(|v| v.decls.iter().map(move |d| (v, d)))
            .find(|(_, d)| d.name == name)
            .and_then(|(v, d)| v.init_bytes(d))
    }
}

impl<'a> VarDecl<'a> {
    /// Encode declarator `d`'s constant initializer as little-endian bytes of the element type
    /// (`.b8` → one byte per element, `.u32` → four, `0f` floats by bit pattern), zero-padded to
    /// the declared array size. `None` if there is no initializer or it contains an address.
    pub fn init_bytes(&self, d: &Declarator<'a>) -> Option<Vec<u8>> {
        let width = (self.ty.bits() / 8).max(1) as usize;
        let mut out = Vec::new();
        fn walk(i: &Init<'_>, width: usize, out: &mut Vec<u8>) -> Option<()> {
            match i {
                Init::Imm(imm) => {
                    let v: u64 = match imm.value() {
                        ImmValue::Int(v) => v as u64,
                        ImmValue::UInt(v) => v,
                        ImmValue::F32Bits(b) => b as u64,
                        ImmValue::F64Bits(b) => b,
                        ImmValue::Float(f) => {
                            if width == 4 {
                                (f as f32).to_bits() as u64
                            } else {
                                f.to_bits()
                            }
                        }
                    };
                    out.extend_from_slice(&v.to_le_bytes()[..width.min(8)]);
                    Some(())
                }
                Init::Symbol { .. } | Init::Field { .. } => None,
                Init::List(l) => l.iter().try_for_each(|x| walk(x, width, out)),
            }
        }
        walk(d.init.as_ref()?, width, &mut out)?;
        // A shorter initializer leaves the rest of the array zero (§5.4.4).
        if !d.array.is_empty() && d.array.iter().all(|x| x.is_some()) {
            let n: u64 = d.array.iter().map(|x| x.unwrap_or(0)).product();
            let total = n.saturating_mul(width as u64);
            if total > out.len() as u64 && total <= 1 << 30 {
                out.resize(total as usize, 0);
            }
        }
        Some(out)
    }
}

impl<'a> Function<'a> {
    /// The callee names of every `call` in the body, in order (direct calls name the function,
    /// indirect calls the register).
    pub fn callees(&self) -> Vec<&'a str> {
        let mut out = Vec::new();
        if let Some(b) = &self.body {
            b.for_each_instruction(&mut |i| {
                if let Some(t) = i.call_target() {
                    out.push(t);
                }
            });
        }
        out
    }

    /// Whether this is a definition (has a body).
    pub fn is_definition(&self) -> bool {
        self.body.is_some()
    }
}

impl<'a> Block<'a> {
    /// Visit every instruction in this block and nested blocks, in source order.
    pub fn for_each_instruction<'s>(&'s self, f: &mut dyn FnMut(&'s Instruction<'a>)) {
        for s in &self.stmts {
            match s {
                Statement::Instruction(i) => f(i),
                Statement::Block(b) => b.for_each_instruction(f),
                _ => {}
            }
        }
    }

    /// Number of instructions in this block including nested blocks.
    pub fn instruction_count(&self) -> usize {
        let mut n = 0;
        self.for_each_instruction(&mut |_| n += 1);
        n
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The layout the parser's throughput depends on (64-bit targets): a name is a pointer and
    /// a 32-bit length, 4-aligned (12 bytes), so an operand (a tag and at most 12 bytes of
    /// payload) is 16 bytes, and three stay inline in an instruction.
    #[cfg(target_pointer_width = "64")]
    #[test]
    fn node_sizes() {
        assert_eq!(std::mem::size_of::<Name<'_>>(), 12);
        assert_eq!(std::mem::size_of::<Option<Name<'_>>>(), 12);
        assert_eq!(std::mem::size_of::<Imm<'_>>(), 12);
        assert_eq!(std::mem::size_of::<Operand<'_>>(), 16);
        assert_eq!(std::mem::size_of::<Operands<'_>>(), 56);
        assert_eq!(std::mem::size_of::<Option<Guard<'_>>>(), 16);
        assert_eq!(std::mem::size_of::<Modifiers<'_>>(), 12);
        assert!(std::mem::size_of::<Statement<'_>>() <= 96);
    }

    /// `Imm::value` decodes by the lexer's literal rules (PTX ISA 9.x §4.5): the values below
    /// are the literals' definitions (octal, binary, `U`, `0f`/`0d` bit patterns, the sign).
    #[test]
    fn imm_values() {
        let v = |t: &str| Imm::new(t).map(|i| i.value());
        assert_eq!(v("42"), Some(ImmValue::Int(42)));
        assert_eq!(v("-42"), Some(ImmValue::Int(-42)));
        assert_eq!(v("- 7"), Some(ImmValue::Int(-7)));
        assert_eq!(v("017"), Some(ImmValue::Int(15)));
        assert_eq!(v("0b101"), Some(ImmValue::Int(5)));
        assert_eq!(v("0x10U"), Some(ImmValue::UInt(16)));
        assert_eq!(v("18446744073709551615"), Some(ImmValue::UInt(u64::MAX)));
        assert_eq!(v("-9223372036854775808"), Some(ImmValue::Int(i64::MIN)));
        assert_eq!(v("0f3F800000"), Some(ImmValue::F32Bits(0x3F80_0000)));
        assert_eq!(v("-0f3F800000"), Some(ImmValue::F32Bits(0xBF80_0000)));
        assert_eq!(
            v("0dBFF0000000000000"),
            Some(ImmValue::F64Bits(0xBFF0_0000_0000_0000))
        );
        assert_eq!(v("1.5"), Some(ImmValue::Float(1.5)));
        assert_eq!(v("1e-3"), Some(ImmValue::Float(1e-3)));
        for bad in [
            "",
            "-",
            "x",
            "1 2",
            "0f3F80",
            "%r1",
            "--1",
            "-18446744073709551615",
        ] {
            assert_eq!(v(bad), None, "{bad:?}");
        }
        assert_eq!(Imm::new("0x1F").unwrap().text(), "0x1F");
    }
}
