//! Appending IR text without `memcpy` calls: short pieces are copied with a few fixed-size
//! loads and stores, decimal numbers come from a table of their digits.
//!
//! The emitter appends millions of short pieces (temporaries `%t<N>`, register numbers, type
//! names) to the function text; `String::push_str` of a length known only at run time is a
//! call into libc's `memcpy` (about 20 instructions for 5 bytes, plus the call) and `itoa`
//! formats a number digit pair by digit pair into a buffer that is then copied again. Here a
//! piece of at most 32 bytes is copied with two overlapping loads and stores of 1, 2, 4, 8 or
//! 16 bytes (the method of glibc's own small-size `memcpy` path, inlined), and a number below
//! [`TABLE`] is one 8-byte store from a table built once per process.

use std::sync::OnceLock;

/// Numbers below this are written from the digit table (1 MiB: one `u64` each).
const TABLE: usize = 1 << 17;

/// Append `t` to `s` (as `s.push_str(t)`).
#[inline(always)]
pub(crate) fn put(s: &mut String, t: &str) {
    let n = t.len();
    if n > 32 {
        s.push_str(t);
        return;
    }
    s.reserve(32);
    // SAFETY: `reserve(32)` leaves at least 32 ≥ n bytes of spare capacity after `len`; every
    // load reads within `t[..n]` (two overlapping windows of a width w ≤ n, at 0 and n - w),
    // every store writes within the spare capacity `[len, len + n)`, and those bytes are a
    // copy of the whole `&str` `t`, so the string stays valid UTF-8 after `set_len`.
    unsafe {
        let v = s.as_mut_vec();
        let len = v.len();
        let dst = v.as_mut_ptr().add(len);
        let src = t.as_ptr();
        copy_small(src, dst, n);
        v.set_len(len + n);
    }
}

/// Copy `n ≤ 32` bytes from `src` to `dst` with at most two loads and two stores.
///
/// # Safety
/// `src[..n]` readable, `dst[..n]` writable, not overlapping.
#[inline(always)]
pub(crate) unsafe fn copy_small(src: *const u8, dst: *mut u8, n: usize) {
    use std::ptr::{read_unaligned as rd, write_unaligned as wr};
    if n >= 16 {
        let a = rd(src as *const u128);
        let b = rd(src.add(n - 16) as *const u128);
        wr(dst as *mut u128, a);
        wr(dst.add(n - 16) as *mut u128, b);
    } else if n >= 8 {
        let a = rd(src as *const u64);
        let b = rd(src.add(n - 8) as *const u64);
        wr(dst as *mut u64, a);
        wr(dst.add(n - 8) as *mut u64, b);
    } else if n >= 4 {
        let a = rd(src as *const u32);
        let b = rd(src.add(n - 4) as *const u32);
        wr(dst as *mut u32, a);
        wr(dst.add(n - 4) as *mut u32, b);
    } else if n > 0 {
        // 1..=3 bytes: first, middle, last.
        *dst = *src;
        *dst.add(n / 2) = *src.add(n / 2);
        *dst.add(n - 1) = *src.add(n - 1);
    }
}

/// Append the bytes `buf[..n]`, where `buf` is a whole buffer of `N` readable bytes: one
/// fixed-size copy of `N` bytes into the spare capacity (the bytes past `n` are left there
/// unused), then the length is advanced by `n`.
///
/// # Safety
/// `n ≤ N` and `buf[..n]` is valid UTF-8 (a copy of whole `&str`s).
#[inline(always)]
pub(crate) unsafe fn put_fixed<const N: usize>(s: &mut String, buf: &[u8; N], n: usize) {
    debug_assert!(n <= N);
    s.reserve(N);
    let v = s.as_mut_vec();
    let len = v.len();
    std::ptr::copy_nonoverlapping(buf.as_ptr(), v.as_mut_ptr().add(len), N);
    v.set_len(len + n);
}

/// The digit table: entry `n` holds the decimal digits of `n` in its low bytes (first digit
/// first, as they are stored in memory on a little-endian machine: `to_le_bytes`) and their
/// count in its top byte.
fn table() -> &'static [u64] {
    static T: OnceLock<Box<[u64]>> = OnceLock::new();
    T.get_or_init(|| {
        (0..TABLE)
            .map(|n| {
                let mut b = itoa::Buffer::new();
                let d = b.format(n as u32).as_bytes();
                let mut e = [0u8; 8];
                e[..d.len()].copy_from_slice(d);
                e[7] = d.len() as u8;
                u64::from_le_bytes(e)
            })
            .collect()
    })
}

/// The decimal digits of `n` as an 8-byte buffer and its used length (`n` below [`TABLE`]),
/// `None` for larger numbers.
#[inline(always)]
pub(crate) fn digits(n: u32) -> Option<([u8; 8], usize)> {
    let e = *table().get(n as usize)?;
    Some((e.to_le_bytes(), (e >> 56) as usize))
}

/// Append the decimal digits of `n` (as `Display` writes them).
#[inline(always)]
pub(crate) fn put_u32(s: &mut String, n: u32) {
    match digits(n) {
        // SAFETY: the table's digit bytes are ASCII and `len ≤ 7 < 8`.
        Some((b, len)) => unsafe { put_fixed(s, &b, len) },
        None => s.push_str(itoa::Buffer::new().format(n)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn put_matches_push_str_for_every_length() {
        let src: String = (0..80).map(|i| (b'a' + (i % 26) as u8) as char).collect();
        for n in 0..=80 {
            let mut a = String::from("x");
            let mut b = String::from("x");
            a.push_str(&src[..n]);
            put(&mut b, &src[..n]);
            assert_eq!(a, b, "length {n}");
        }
        let mut s = String::new();
        put(&mut s, "é");
        put(&mut s, "ptr addrspace(5)");
        assert_eq!(s, "éptr addrspace(5)");
    }

    #[test]
    fn numbers_match_display() {
        for n in (0..2000u32).chain([9999, 10000, 99999, 100000, 131071, 131072, 999999, u32::MAX])
        {
            let mut s = String::from("%r");
            put_u32(&mut s, n);
            assert_eq!(s, format!("%r{n}"));
        }
    }
}
