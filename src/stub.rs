//! Arch-guard stubs: kernels whose PTX was compiled out by an architecture guard.
//!
//! CUTLASS and similar libraries wrap arch-specific kernels in `#if __CUDA_ARCH__ >= 900`.
//! For a lower PTX target (compute_80) the body is compiled out and what remains prints
//! "ERROR : Arch conditional MMA instruction used without targeting appropriate compute
//! capability. Aborting." and returns, or traps. The kernel's real code is in the SASS for the
//! guarded architecture only, so `inspect` reports it as not translatable. `convert` translates
//! the stub itself (the converted kernel stops instead of computing, exactly as the original
//! does on every GPU without that SASS) and says so in a note on the kernel, so that one
//! Hopper-only kernel does not block the conversion of a wheel that works elsewhere.
//!
//! # The rule (all thresholds are here)
//!
//! 1. **PTX body.** A kernel's PTX body is *stub-like* when every instruction in it (nested
//!    scopes included) is one of [`STUB_OPCODES`] — control flow that ends the thread
//!    (`ret`, `exit`, `trap`, `brkpt`, `bra`), a `call` of one of [`STUB_CALLEES`] (`vprintf`,
//!    `__assertfail`), or the data movement that only sets up such a call (`mov`, `cvta`,
//!    `ld.param`, `st.param`, `cvt`) — and it has at most [`STUB_MAX_INSTRUCTIONS`]
//!    instructions. Declarations, labels and debug directives do not count. Any other
//!    instruction (a load or store outside `.param`, arithmetic, a comparison, a barrier...)
//!    is real work.
//! 2. **SASS comparison.** A cubin of the same kernel *holds real code* when its code is
//!    larger than [`STUB_SASS_MAX_BYTES`] (512 bytes = 32 SASS instructions: a vprintf stub
//!    compiles to 384 bytes on sm_80, a trap stub to at most 128; the sm_90a body of the
//!    xformers sparse fp8 GEMM is 24,192 bytes).
//! 3. **Verdict.** A kernel is an arch-guard stub when its PTX body is stub-like and either
//!    some cubin of it holds real code ("real code only in sm_90a SASS"), or it has no cubin
//!    at all (classified from the PTX alone). A stub-like kernel whose cubins are all small is
//!    a kernel that does nothing on every arch; it is translated like any other.
//!
//! The message a stub prints is decoded from the `.global .b8` string whose address it
//! passes to `vprintf`/`__assertfail`.

use crate::ptx::{Module, Opcode, Operand, Statement};

/// Opcodes allowed in a stub-like PTX body.
pub const STUB_OPCODES: &[Opcode] = &[
    Opcode::Ret,
    Opcode::Exit,
    Opcode::Trap,
    Opcode::Brkpt,
    Opcode::Bra,
    Opcode::Call,
    Opcode::Mov,
    Opcode::Cvta,
    Opcode::Cvt,
    Opcode::Ld,
    Opcode::St,
];

/// Callees a stub may call.
pub const STUB_CALLEES: &[&str] = &["vprintf", "__assertfail"];

/// Largest stub-like PTX body, in instructions (the CUTLASS vprintf stub has 7).
pub const STUB_MAX_INSTRUCTIONS: usize = 64;

/// Largest cubin code, in bytes, that does not count as real code.
pub const STUB_SASS_MAX_BYTES: u64 = 512;

/// What the PTX body of one kernel looks like.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PtxBody {
    /// Does real work.
    Real,
    /// Only ends the thread, possibly after printing.
    StubLike {
        /// The text it prints (decoded from its `.global .b8` string), if any.
        message: Option<String>,
        /// True when it executes `trap`.
        traps: bool,
    },
}

/// Classify the PTX body of kernel `name` in `module`. `None` when the module has no body for
/// it (declaration only, or a function that failed to parse).
pub fn ptx_body(module: &Module<'_>, name: &str) -> Option<PtxBody> {
    let f = module.function(name)?;
    let body = f.body.as_ref()?;
    let mut count = 0usize;
    let mut traps = false;
    let mut calls = false;
    let mut string_symbol: Option<&str> = None;
    let mut stack: Vec<&Statement<'_>> = body.stmts.iter().rev().collect();
    while let Some(st) = stack.pop() {
        let i = match st {
            Statement::Instruction(i) => i,
            Statement::Block(b) => {
                stack.extend(b.stmts.iter().rev());
                continue;
            }
            _ => continue,
        };
        count += 1;
        if count > STUB_MAX_INSTRUCTIONS || !STUB_OPCODES.contains(&i.opcode) {
            return Some(PtxBody::Real);
        }
        match i.opcode {
            Opcode::Trap | Opcode::Brkpt => traps = true,
            Opcode::Call => match i.call_target() {
                Some(t) if STUB_CALLEES.contains(&t) => calls = true,
                _ => return Some(PtxBody::Real),
            },
            Opcode::Ld | Opcode::St if !i.has(".param") => return Some(PtxBody::Real),
            Opcode::Mov if string_symbol.is_none() => {
                string_symbol = i.operands.iter().skip(1).find_map(|o| match o {
                    Operand::Symbol(s) => Some(s.as_str()),
                    _ => None,
                });
            }
            _ => {}
        }
    }
    let message = if calls {
        string_symbol
            .and_then(|s| module.variable_bytes(s))
            .map(|b| {
                let end = b.iter().position(|&c| c == 0).unwrap_or(b.len());
                String::from_utf8_lossy(&b[..end]).trim_end().to_string()
            })
    } else {
        None
    };
    Some(PtxBody::StubLike { message, traps })
}

/// The verdict for one kernel: `Some(archs)` with the archs whose cubins hold real code
/// (possibly empty when there is no cubin) when it is an arch-guard stub, `None` otherwise.
///
/// `sass` is (arch, code bytes) for every cubin of the kernel.
pub fn classify(body: &PtxBody, sass: &[(String, u64)]) -> Option<Vec<String>> {
    if *body == PtxBody::Real {
        return None;
    }
    if sass.is_empty() {
        return Some(Vec::new());
    }
    let real: Vec<String> = sass
        .iter()
        .filter(|(_, size)| *size > STUB_SASS_MAX_BYTES)
        .map(|(a, _)| a.clone())
        .collect();
    (!real.is_empty()).then_some(real)
}

#[cfg(test)]
mod tests {
    use super::*;

    const PTX: &str = r#".version 8.7
.target sm_80
.address_size 64
.global .align 1 .b8 $str[6] = {72, 101, 108, 108, 111, 10};
.extern .func (.param .b32 func_retval0) vprintf(.param .b64 vprintf_param_0, .param .b64 vprintf_param_1);
.visible .entry stub_print(.param .u64 p)
{
.reg .b32 %r<2>;
.reg .b64 %rd<3>;
mov.u64 %rd1, $str;
cvta.global.u64 %rd2, %rd1;
{
.param .b64 param0;
st.param.b64 [param0+0], %rd2;
.param .b64 param1;
st.param.b64 [param1+0], 0;
.param .b32 retval0;
call.uni (retval0), vprintf, (param0, param1);
ld.param.b32 %r1, [retval0+0];
}
ret;
}
.visible .entry stub_trap(.param .u64 p)
{
trap;
}
.visible .entry real(.param .u64 p)
{
.reg .b64 %rd<3>;
.reg .b32 %r<2>;
ld.param.u64 %rd1, [p];
cvta.to.global.u64 %rd2, %rd1;
mov.u32 %r1, 7;
st.global.u32 [%rd2], %r1;
ret;
}
"#;

    #[test]
    fn classifies_bodies() {
        let out = crate::ptx::parse(PTX, "t.ptx");
        assert_eq!(out.error_count(), 0, "{:?}", out.diagnostics);
        let m = &out.module;
        assert_eq!(
            ptx_body(m, "stub_print"),
            Some(PtxBody::StubLike {
                message: Some("Hello".into()),
                traps: false
            })
        );
        assert_eq!(
            ptx_body(m, "stub_trap"),
            Some(PtxBody::StubLike {
                message: None,
                traps: true
            })
        );
        assert_eq!(ptx_body(m, "real"), Some(PtxBody::Real));
        assert_eq!(ptx_body(m, "missing"), None);
    }

    #[test]
    fn sass_comparison() {
        let stub = PtxBody::StubLike {
            message: None,
            traps: true,
        };
        assert_eq!(classify(&stub, &[]), Some(vec![]));
        assert_eq!(
            classify(&stub, &[("sm_80".into(), 384), ("sm_90a".into(), 24192)]),
            Some(vec!["sm_90a".into()])
        );
        assert_eq!(classify(&stub, &[("sm_80".into(), 384)]), None);
        assert_eq!(classify(&PtxBody::Real, &[("sm_90a".into(), 24192)]), None);
    }
}
