//! The shape of a memory instruction (DS, FLAT/GLOBAL/SCRATCH, MUBUF, SMEM), read once from
//! its mnemonic at decode time: what it does, the element size, sign extension, the d16
//! half and whether it returns data.

/// An atomic read-modify-write operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Atom {
    /// new = data.
    Swap,
    /// FLAT/MUBUF: `new = old == data[1] ? data[0] : old`.
    Cmpswap,
    /// DS: new = old == data0 ? data1 : old.
    Cmpst,
    /// old + data.
    Add,
    /// old - data.
    Sub,
    /// data - old.
    Rsub,
    /// signed min.
    Smin,
    /// unsigned min.
    Umin,
    /// signed max.
    Smax,
    /// unsigned max.
    Umax,
    /// and.
    And,
    /// or.
    Or,
    /// xor.
    Xor,
    /// old >= data ? 0 : old + 1.
    Inc,
    /// old == 0 || old > data ? data : old - 1.
    Dec,
    /// f32 add.
    AddF32,
    /// f64 add.
    AddF64,
    /// f32 min.
    MinF32,
    /// f32 max.
    MaxF32,
    /// f64 min.
    MinF64,
    /// f64 max.
    MaxF64,
    /// packed f16 add.
    PkAddF16,
    /// packed bf16 add.
    PkAddBf16,
    /// (old & ~data0) | data1.
    Mskor,
}

/// What a memory instruction does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Not a memory access (cache control, `s_memtime`, ...): handled by name.
    Other,
    /// Load `size` bytes.
    Load,
    /// Store `size` bytes.
    Store,
    /// Atomic on `size` bytes.
    Atomic(Atom),
    /// DS read2 / read2st64.
    Read2,
    /// DS write2 / write2st64.
    Write2,
    /// DS wrxchg2.
    Xchg2,
    /// `ds_bpermute_b32`.
    Bpermute,
    /// `ds_permute_b32`.
    Permute,
    /// `ds_swizzle_b32`.
    Swizzle,
}

/// The shape of a memory instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MemOp {
    /// What it does.
    pub kind: Kind,
    /// Bytes per access (per element for read2/write2).
    pub size: u8,
    /// Sign-extend a sub-dword load.
    pub signed: bool,
    /// 0: whole register; 1: d16 into the low half; 2: d16 into (or from) the high half.
    pub d16: u8,
    /// A DS atomic that returns the old value (`_rtn`).
    pub rtn: bool,
    /// read2/write2 offsets in units of 64 elements (`st64`).
    pub st64: bool,
}

impl MemOp {
    /// Not a memory access.
    pub const OTHER: MemOp = MemOp {
        kind: Kind::Other,
        size: 0,
        signed: false,
        d16: 0,
        rtn: false,
        st64: false,
    };
}

fn size_of(t: &str) -> Option<(u8, bool)> {
    Some(match t {
        "ubyte" | "u8" | "byte" | "b8" => (1, false),
        "sbyte" | "i8" => (1, true),
        "ushort" | "u16" | "short" | "b16" => (2, false),
        "sshort" | "i16" => (2, true),
        "dword" | "b32" | "u32" | "i32" | "f32" => (4, false),
        "dwordx2" | "b64" | "u64" | "i64" | "f64" | "x2" => (8, false),
        "dwordx3" | "b96" => (12, false),
        "dwordx4" | "b128" => (16, false),
        "dwordx8" | "b256" => (32, false),
        "dwordx16" | "b512" => (64, false),
        _ => return None,
    })
}

/// The shape of the instruction named `name` (LLVM's mnemonic).
pub fn classify(name: &str) -> MemOp {
    let mut m = MemOp::OTHER;
    let (prefix, rest) = match name.split_once('_') {
        Some(x) => x,
        None => return m,
    };
    if !matches!(
        prefix,
        "ds" | "flat" | "global" | "scratch" | "buffer" | "s"
    ) {
        return m;
    }
    let mut parts: Vec<&str> = rest.split('_').collect();
    if parts.last() == Some(&"hi") && parts.len() >= 2 && parts[parts.len() - 2] == "d16" {
        m.d16 = 2;
        parts.truncate(parts.len() - 2);
    } else if parts.last() == Some(&"d16") {
        m.d16 = 1;
        parts.pop();
    }
    if parts.first() == Some(&"buffer") && prefix == "s" {
        parts.remove(0);
    }
    // gfx11 spellings: `global_load_d16_hi_b16`, `ds_load_2addr_stride64_b32`,
    // `ds_storexchg_rtn_b32`, `ds_cmpstore_rtn_b32` (new value in DATA0, the compare value in
    // DATA1, as FLAT cmpswap: RDNA3 ISA DS_CMPSTORE_B32)
    if parts.len() == 4 && parts[1] == "d16" && parts[2] == "hi" {
        m.d16 = 2;
        parts = vec![parts[0], parts[3]];
    } else if parts.len() == 3 && parts[1] == "d16" {
        m.d16 = 1;
        parts = vec![parts[0], parts[2]];
    }
    if prefix == "ds" {
        parts = match parts.as_slice() {
            ["load", "2addr", t] => vec!["read2", t],
            ["load", "2addr", "stride64", t] => vec!["read2st64", t],
            ["store", "2addr", t] => vec!["write2", t],
            ["store", "2addr", "stride64", t] => vec!["write2st64", t],
            ["storexchg", "2addr", "rtn", t] => vec!["wrxchg2", "rtn", t],
            ["storexchg", "2addr", "stride64", "rtn", t] => vec!["wrxchg2st64", "rtn", t],
            ["storexchg", rest @ ..] => std::iter::once("wrxchg")
                .chain(rest.iter().copied())
                .collect(),
            _ => parts,
        };
    }
    match parts.as_slice() {
        ["load", t] | ["read", t] => {
            if let Some((s, sg)) = size_of(t) {
                m.kind = Kind::Load;
                m.size = s;
                m.signed = sg;
            }
        }
        ["store", t] | ["write", t] => {
            if let Some((s, _)) = size_of(t) {
                m.kind = Kind::Store;
                m.size = s;
            }
        }
        ["read2", t] | ["read2st64", t] => {
            m.kind = Kind::Read2;
            m.size = size_of(t).map(|x| x.0).unwrap_or(4);
            m.st64 = parts[0] == "read2st64";
        }
        ["write2", t] | ["write2st64", t] => {
            m.kind = Kind::Write2;
            m.size = size_of(t).map(|x| x.0).unwrap_or(4);
            m.st64 = parts[0] == "write2st64";
        }
        ["wrxchg2", "rtn", t] | ["wrxchg2st64", "rtn", t] => {
            m.kind = Kind::Xchg2;
            m.size = size_of(t).map(|x| x.0).unwrap_or(4);
            m.st64 = parts[0] == "wrxchg2st64";
        }
        ["bpermute", "b32"] => {
            m.kind = Kind::Bpermute;
            m.size = 4;
        }
        ["permute", "b32"] => {
            m.kind = Kind::Permute;
            m.size = 4;
        }
        ["swizzle", "b32"] => {
            m.kind = Kind::Swizzle;
            m.size = 4;
        }
        ["atomic", op @ ..] => {
            // flat/global/buffer: atomic_<op>[_x2] or atomic_<op>_<f32|f64|f16|bf16>
            // gfx11: atomic_<op>_<b32|u32|i32|b64|u64|i64> (min/max take their signedness
            // from the type)
            let (op, wide) = match op {
                [o @ .., "x2"] => (o.join("_"), true),
                [o, t @ ("b32" | "u32" | "i32" | "b64" | "u64" | "i64")] => {
                    let s = t.starts_with('i');
                    let o = match *o {
                        "min" if s => "smin",
                        "max" if s => "smax",
                        "min" => "umin",
                        "max" => "umax",
                        o => o,
                    };
                    (o.to_string(), t.ends_with("64"))
                }
                o => (o.join("_"), false),
            };
            let (a, size) = match op.as_str() {
                "swap" => (Atom::Swap, 4),
                "cmpswap" => (Atom::Cmpswap, 4),
                "add" => (Atom::Add, 4),
                "sub" => (Atom::Sub, 4),
                "smin" => (Atom::Smin, 4),
                "umin" => (Atom::Umin, 4),
                "smax" => (Atom::Smax, 4),
                "umax" => (Atom::Umax, 4),
                "and" => (Atom::And, 4),
                "or" => (Atom::Or, 4),
                "xor" => (Atom::Xor, 4),
                "inc" => (Atom::Inc, 4),
                "dec" => (Atom::Dec, 4),
                "add_f32" => (Atom::AddF32, 4),
                "add_f64" => (Atom::AddF64, 8),
                "min_f64" => (Atom::MinF64, 8),
                "max_f64" => (Atom::MaxF64, 8),
                "pk_add_f16" => (Atom::PkAddF16, 4),
                "pk_add_bf16" => (Atom::PkAddBf16, 4),
                _ => return m,
            };
            m.kind = Kind::Atomic(a);
            m.size = if wide { 8 } else { size };
        }
        [op, t] | [op, "rtn", t] if prefix == "ds" => {
            let a = match *op {
                "add" if *t == "f32" => Atom::AddF32,
                "add" if *t == "f64" => Atom::AddF64,
                "add" => Atom::Add,
                "sub" => Atom::Sub,
                "rsub" => Atom::Rsub,
                "inc" => Atom::Inc,
                "dec" => Atom::Dec,
                "min" if *t == "f32" => Atom::MinF32,
                "max" if *t == "f32" => Atom::MaxF32,
                "min" if *t == "f64" => Atom::MinF64,
                "max" if *t == "f64" => Atom::MaxF64,
                "min" if t.starts_with('i') => Atom::Smin,
                "max" if t.starts_with('i') => Atom::Smax,
                "min" => Atom::Umin,
                "max" => Atom::Umax,
                "and" => Atom::And,
                "or" => Atom::Or,
                "xor" => Atom::Xor,
                "mskor" => Atom::Mskor,
                "wrxchg" => Atom::Swap,
                "cmpst" => Atom::Cmpst,
                "cmpstore" => Atom::Cmpswap,
                _ => return m,
            };
            m.kind = Kind::Atomic(a);
            m.size = size_of(t).map(|x| x.0).unwrap_or(4);
            m.rtn = parts.len() == 3;
        }
        ["pk", "add", t] | ["pk", "add", "rtn", t] if prefix == "ds" => {
            m.kind = Kind::Atomic(if *t == "bf16" {
                Atom::PkAddBf16
            } else {
                Atom::PkAddF16
            });
            m.size = 4;
            m.rtn = parts.len() == 4;
        }
        _ => {}
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes() {
        assert_eq!(classify("global_load_dwordx4").size, 16);
        assert!(classify("global_load_sbyte").signed);
        assert_eq!(classify("flat_load_short_d16_hi").d16, 2);
        assert_eq!(
            classify("global_atomic_cmpswap_x2").kind,
            Kind::Atomic(Atom::Cmpswap)
        );
        assert_eq!(classify("global_atomic_cmpswap_x2").size, 8);
        let d = classify("ds_cmpst_rtn_b64");
        assert_eq!(
            (d.kind, d.size, d.rtn),
            (Kind::Atomic(Atom::Cmpst), 8, true)
        );
        assert_eq!(classify("ds_read2st64_b32").kind, Kind::Read2);
        assert!(classify("ds_read2st64_b32").st64);
        assert_eq!(classify("ds_write_b16_d16_hi").d16, 2);
        assert_eq!(classify("s_load_dwordx8").size, 32);
        assert_eq!(classify("s_buffer_load_dword").size, 4);
        assert_eq!(classify("buffer_wbinvl1_vol").kind, Kind::Other);
        assert_eq!(classify("ds_max_i32").kind, Kind::Atomic(Atom::Smax));
    }

    /// The gfx11 spellings (RDNA3 ISA ch. 16) the fixtures' gfx1100 code objects use.
    #[test]
    fn gfx11_shapes() {
        let k = |n: &str| classify(n).kind;
        assert_eq!(k("global_atomic_add_u32"), Kind::Atomic(Atom::Add));
        assert_eq!(k("global_atomic_min_i32"), Kind::Atomic(Atom::Smin));
        assert_eq!(k("global_atomic_max_u64"), Kind::Atomic(Atom::Umax));
        assert_eq!(classify("global_atomic_max_u64").size, 8);
        assert_eq!(k("flat_atomic_cmpswap_b32"), Kind::Atomic(Atom::Cmpswap));
        assert_eq!(classify("global_atomic_cmpswap_b64").size, 8);
        assert_eq!(k("global_atomic_inc_u32"), Kind::Atomic(Atom::Inc));
        let d = classify("global_load_d16_hi_b16");
        assert_eq!((d.kind, d.size, d.d16), (Kind::Load, 2, 2));
        assert_eq!(classify("global_store_d16_hi_b16").d16, 2);
        assert!(classify("global_load_i8").signed);
        let d = classify("ds_load_2addr_stride64_b32");
        assert_eq!((d.kind, d.size, d.st64), (Kind::Read2, 4, true));
        assert_eq!(k("ds_store_2addr_b32"), Kind::Write2);
        let d = classify("ds_cmpstore_rtn_b64");
        assert_eq!(
            (d.kind, d.size, d.rtn),
            (Kind::Atomic(Atom::Cmpswap), 8, true)
        );
        assert_eq!(k("ds_storexchg_rtn_b32"), Kind::Atomic(Atom::Swap));
        assert_eq!(k("ds_storexchg_2addr_rtn_b32"), Kind::Xchg2);
        assert_eq!(classify("ds_store_b16_d16_hi").d16, 2);
        assert_eq!(classify("s_load_b256").size, 32);
        assert_eq!(classify("scratch_store_b96").size, 12);
        assert_eq!(k("buffer_gl0_inv"), Kind::Other);
    }
}
