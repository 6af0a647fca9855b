//! Special registers (PTX ISA 9.x chapter 10) and the device-library function that reads each.
//!
//! Every special register is read by calling `@__wp_sreg_<name>` (the `%` dropped and `.`
//! replaced by `_`, e.g. `%tid.x` → `@__wp_sreg_tid_x`), defined per target family in
//! `kernels-ir/<family>.ll`. This table lists the registers the lowering knows and their
//! widths; a register not listed makes its kernel unsupported.

/// `(PTX name, width in bits)` of every lowered special register.
pub(crate) const SREGS: &[(&str, u32)] = &[
    ("%tid.x", 32),
    ("%tid.y", 32),
    ("%tid.z", 32),
    ("%ntid.x", 32),
    ("%ntid.y", 32),
    ("%ntid.z", 32),
    ("%ctaid.x", 32),
    ("%ctaid.y", 32),
    ("%ctaid.z", 32),
    ("%nctaid.x", 32),
    ("%nctaid.y", 32),
    ("%nctaid.z", 32),
    ("%laneid", 32),
    ("%warpid", 32),
    ("%nwarpid", 32),
    ("%lanemask_eq", 32),
    ("%lanemask_lt", 32),
    ("%lanemask_le", 32),
    ("%lanemask_gt", 32),
    ("%lanemask_ge", 32),
    ("%clock", 32),
    ("%clock_hi", 32),
    ("%clock64", 64),
    ("%globaltimer", 64),
    ("%globaltimer_lo", 32),
    ("%globaltimer_hi", 32),
    ("%smid", 32),
    ("%nsmid", 32),
    ("%gridid", 64),
    ("%dynamic_smem_size", 32),
    ("%total_smem_size", 32),
];

/// Width in bits of special register `name` (with its `.x/.y/.z` component), or `None` when the
/// lowering does not read it.
pub(crate) fn width(name: &str) -> Option<u32> {
    SREGS.iter().find(|(n, _)| *n == name).map(|(_, w)| *w)
}

/// The device-library function reading `name`, e.g. `__wp_sreg_tid_x`.
pub(crate) fn function(name: &str) -> String {
    let mut s = String::from("__wp_sreg_");
    for c in name.trim_start_matches('%').chars() {
        s.push(if c == '.' { '_' } else { c });
    }
    s
}
