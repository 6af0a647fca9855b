//! [`V`]: an LLVM IR value operand as text, held inline (no heap allocation) when short.
//!
//! The emitter names every intermediate result (`%t<N>`) and passes operands around as text;
//! with a heap `String` per temporary, `malloc`/`free` were a tenth of the lowering time. A
//! temporary, a register or block name and every immediate the emitter writes (at most
//! `0x` + 16 hex digits, or an `i128` decimal: 40 characters) fit in [`V`]'s inline buffer;
//! longer text (quoted global names) goes to the heap.

use std::fmt;
use std::ops::Deref;

/// Inline capacity in bytes (the struct is 48 bytes).
const INLINE: usize = 46;

/// An IR operand as text (`%t12`, `0`, `0x3FF0000000000000`, `@g`, `poison`): dereferences to
/// `&str`, clones without allocating when at most 46 bytes long.
#[derive(Clone)]
pub(crate) struct V(Repr);

#[derive(Clone)]
enum Repr {
    /// `buf[..len]` is the text; it is always a copy of (a concatenation of) whole `&str`s,
    /// hence valid UTF-8 (`new`, `numbered`, `concat`).
    Inline {
        len: u8,
        buf: [u8; INLINE],
    },
    Heap(Box<str>),
}

impl V {
    /// The text `s`.
    #[inline]
    pub fn new(s: &str) -> V {
        if s.len() <= INLINE {
            let mut buf = [0u8; INLINE];
            buf[..s.len()].copy_from_slice(s.as_bytes());
            V(Repr::Inline {
                len: s.len() as u8,
                buf,
            })
        } else {
            V(Repr::Heap(s.into()))
        }
    }

    /// `prefix` followed by the decimal digits of `n` (e.g. `%t17`); `prefix` is at most
    /// 36 bytes (the emitter's prefixes are `%t`, `%m`, `b`).
    #[inline]
    pub fn numbered(prefix: &str, n: u32) -> V {
        if let Some((d, dl)) = super::text::digits(n) {
            if prefix.len() + 8 <= INLINE && prefix.len() <= 8 {
                let mut buf = [0u8; INLINE];
                // SAFETY: `prefix.len() ≤ 8 < INLINE` bytes read from `prefix`, written to `buf`.
                unsafe { super::text::copy_small(prefix.as_ptr(), buf.as_mut_ptr(), prefix.len()) };
                buf[prefix.len()..prefix.len() + 8].copy_from_slice(&d);
                return V(Repr::Inline {
                    len: (prefix.len() + dl) as u8,
                    buf,
                });
            }
        }
        let mut digits = itoa::Buffer::new();
        let d = digits.format(n);
        let len = prefix.len() + d.len();
        if len > INLINE {
            return V(Repr::Heap(format!("{prefix}{d}").into()));
        }
        let mut buf = [0u8; INLINE];
        buf[..prefix.len()].copy_from_slice(prefix.as_bytes());
        buf[prefix.len()..len].copy_from_slice(d.as_bytes());
        V(Repr::Inline {
            len: len as u8,
            buf,
        })
    }

    /// The concatenation of `parts`.
    pub fn concat(parts: &[&str]) -> V {
        let len: usize = parts.iter().map(|p| p.len()).sum();
        if len > INLINE {
            return V(Repr::Heap(parts.concat().into()));
        }
        let mut buf = [0u8; INLINE];
        let mut at = 0;
        for p in parts {
            buf[at..at + p.len()].copy_from_slice(p.as_bytes());
            at += p.len();
        }
        V(Repr::Inline {
            len: len as u8,
            buf,
        })
    }

    /// Append the text to `s` (inline text by one fixed-size copy, see
    /// [`super::text::put_fixed`]).
    #[inline(always)]
    pub fn put_into(&self, s: &mut String) {
        match &self.0 {
            // SAFETY: `buf[..len]` is valid UTF-8 (see `Repr::Inline`) and `len ≤ INLINE`.
            Repr::Inline { len, buf } => unsafe { super::text::put_fixed(s, buf, *len as usize) },
            Repr::Heap(h) => s.push_str(h),
        }
    }

    /// The text.
    #[inline]
    pub fn as_str(&self) -> &str {
        match &self.0 {
            Repr::Inline { len, buf } => {
                let b = &buf[..*len as usize];
                debug_assert!(std::str::from_utf8(b).is_ok());
                // SAFETY: `buf[..len]` is only ever written by `new`, `numbered` and `concat` with the
                // bytes of whole `&str` values (`s`, `prefix`, itoa's ASCII digits), so it is
                // valid UTF-8 (see `Repr::Inline`). This avoids re-validating on every use of
                // a value, the emitter's most frequent operation.
                unsafe { std::str::from_utf8_unchecked(b) }
            }
            Repr::Heap(s) => s,
        }
    }
}

impl Deref for V {
    type Target = str;
    #[inline]
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for V {
    #[inline]
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl From<&str> for V {
    #[inline]
    fn from(s: &str) -> V {
        V::new(s)
    }
}

impl From<String> for V {
    #[inline]
    fn from(s: String) -> V {
        if s.len() <= INLINE {
            V::new(&s)
        } else {
            V(Repr::Heap(s.into_boxed_str()))
        }
    }
}

impl From<&String> for V {
    #[inline]
    fn from(s: &String) -> V {
        V::new(s)
    }
}

impl PartialEq for V {
    fn eq(&self, o: &V) -> bool {
        self.as_str() == o.as_str()
    }
}

impl Eq for V {}

impl PartialEq<str> for V {
    fn eq(&self, o: &str) -> bool {
        self.as_str() == o
    }
}

impl PartialEq<&str> for V {
    fn eq(&self, o: &&str) -> bool {
        self.as_str() == *o
    }
}

impl fmt::Display for V {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Debug for V {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

#[cfg(test)]
mod tests {
    use super::V;

    #[test]
    fn inline_and_heap_texts_round_trip() {
        assert_eq!(V::numbered("%t", 0).as_str(), "%t0");
        assert_eq!(V::numbered("%t", u32::MAX).as_str(), "%t4294967295");
        assert_eq!(V::new("0x3FF0000000000000").as_str(), "0x3FF0000000000000");
        let long = "@\"_ZN7cutlass6KernelINS_4gemm6kernel4GemmIvEEEEvNT_6ParamsE\"";
        assert_eq!(V::new(long).as_str(), long);
        assert_eq!(V::from(long.to_string()).as_str(), long);
        let p = "x".repeat(40);
        assert_eq!(V::numbered(&p, 123456789).as_str(), format!("{p}123456789"));
        assert_eq!(V::new("é").as_str(), "é");
        assert_eq!(V::new("").as_str(), "");
        assert_eq!(
            V::concat(&["llvm.", "umin", ".", "i32"]).as_str(),
            "llvm.umin.i32"
        );
        let parts = ["llvm.", long, ".", "i32"];
        assert_eq!(V::concat(&parts).as_str(), parts.concat());
    }
}
