//! Device printf output of a dispatch: the records of a code object's `__wp_printf_fifo`
//! (wheelport's amdgcn `vprintf`; layout in `kernels-ir/printf.py`), printed by the shim
//! library's own formatter (`shims/hip/wp_printf.h`, compiled by `build.rs`), as the
//! converted wheel's shim prints them at a synchronisation point.

use crate::Error;
use std::os::raw::{c_char, c_void};

/// The FIFO's symbol in a code object.
pub const FIFO_SYMBOL: &str = "__wp_printf_fifo";

/// Bytes of the FIFO header: records reserved (u64), records dropped (u64).
pub const HEADER: usize = 16;

type Emit = extern "C" fn(*mut c_void, *const c_char, usize);

extern "C" {
    fn amdgpu_exec_printf_records(
        data: *const u8,
        used: usize,
        emit: Emit,
        ctx: *mut c_void,
    ) -> usize;
}

extern "C" fn append(ctx: *mut c_void, text: *const c_char, len: usize) {
    // SAFETY: `ctx` is the `Vec<u8>` that `fifo_text` passes, alive for the call; `text`
    // points at `len` bytes the formatter owns for the duration of this call.
    unsafe {
        let out = &mut *(ctx as *mut Vec<u8>);
        out.extend_from_slice(std::slice::from_raw_parts(text as *const u8, len));
    }
}

/// The text the records of `fifo` (the whole `__wp_printf_fifo` global's bytes) print, and
/// the header's count of dropped records.
///
/// # Errors
/// A FIFO shorter than its header, a reserved count past its end, or records that end
/// before the reserved count (incomplete or malformed): the device code and the formatter
/// disagree.
pub fn fifo_text(fifo: &[u8]) -> Result<(String, u64), Error> {
    if fifo.len() < HEADER {
        return Err(Error::new(format!(
            "{FIFO_SYMBOL}: {} bytes, shorter than its {HEADER}-byte header",
            fifo.len()
        )));
    }
    let used = u64::from_le_bytes(fifo[0..8].try_into().unwrap());
    let dropped = u64::from_le_bytes(fifo[8..16].try_into().unwrap());
    let data = &fifo[HEADER..];
    // A reservation that did not fit is counted as dropped and is not written, but it
    // still advanced the reserved count: only the records below the capacity exist.
    let used = (used as usize).min(data.len());
    let mut out: Vec<u8> = Vec::new();
    // SAFETY: `data[..used]` is in bounds; the formatter reads only within it (bounds-checked
    // in wp_printf.h) and calls `append` with `out`, which outlives the call.
    let done = unsafe {
        amdgpu_exec_printf_records(
            data.as_ptr(),
            used,
            append,
            &mut out as *mut Vec<u8> as *mut c_void,
        )
    };
    if done != used && dropped == 0 {
        return Err(Error::new(format!(
            "{FIFO_SYMBOL}: the records end at byte {done} of the {used} reserved (a record \
             incomplete or malformed)"
        )));
    }
    Ok((String::from_utf8_lossy(&out).into_owned(), dropped))
}
