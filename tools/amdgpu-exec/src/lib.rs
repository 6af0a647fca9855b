//! amdgpu-exec: a wave64 ISA interpreter (gfx906, gfx942, gfx1100) that executes AMDGPU code
//! objects on the CPU.
//!
//! wheelport's execution oracle (docs/executed-isa.md): it loads a code object that
//! `ld.lld` linked for `amdgcn-amd-amdhsa` ([`elf`]), decodes its instructions ([`decode`],
//! opcode tables read off LLVM's disassembler in [`tables`], checked against
//! `llvm-objdump` through [`disasm`]) and runs a dispatch of one of its kernels
//! ([`exec`]): the HSA dispatch packet, the kernarg segment, the initial SGPR/VGPR state the
//! descriptor asks for, LDS, scratch, and the MODE register's rounding and denormal modes
//! ([`fp`]). [`runner`] runs the GPU fixtures' case tables and compares the outputs with
//! the SHA-256s of the original CUDA binary's outputs on an NVIDIA H200 (and, where its raw
//! bytes are committed, element by element; [`accuracy`] for `.approx` outputs).
//!
//! Semantics follow AMD's public ISA documents ("Vega 7nm Instruction Set Architecture"
//! for gfx906, "AMD Instinct MI300 Instruction Set Architecture" for gfx942, "RDNA3
//! Instruction Set Architecture" for gfx1100 in wave64) and LLVM's AMDGPUUsage for the
//! code-object and dispatch conventions.
#![warn(missing_docs)]
// Lane loops index several 64-lane arrays (sources, destination, EXEC bit) by one lane number.
#![allow(clippy::needless_range_loop)]

pub mod accuracy;
pub mod decode;
pub mod disasm;
pub mod elf;
pub mod exec;
pub mod fp;
pub mod isa;
pub mod memop;
pub mod printf;
pub mod runner;
#[rustfmt::skip]
pub mod tables;

use std::fmt;

/// An error of the loader, the interpreter or the runner: a message for a person.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    /// What went wrong.
    pub msg: String,
}

impl Error {
    /// An error with message `msg`.
    pub fn new(msg: impl Into<String>) -> Error {
        Error { msg: msg.into() }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.msg)
    }
}

impl std::error::Error for Error {}

impl From<decode::DecodeError> for Error {
    fn from(e: decode::DecodeError) -> Error {
        Error::new(e.to_string())
    }
}
