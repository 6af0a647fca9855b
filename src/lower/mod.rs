//! Lowering: PTX AST ([`crate::ptx::ast`]) to LLVM IR text for one target profile
//! ([`crate::target::Profile`]).
//!
//! The IR uses opaque pointers (LLVM 14 reads it with `-opaque-pointers`, LLVM 15 and later
//! as is). Kernels keep their exact PTX names and parameter layout; operations that are not
//! one LLVM instruction call the device support library of the target family
//! (`kernels-ir/<family>.ll`, see [`LoweredModule::support_library`]), which the device build
//! links in before optimisation.
//!
//! A kernel that cannot be lowered (unsupported instruction forms, invalid PTX) is left out
//! of the IR and reported in [`LoweredModule::kernels`] with its reason, never dropped
//! silently.

use serde::Serialize;

mod emit;
mod forms;
mod module;
mod sreg;
mod text;
mod ty;
mod val;

pub use forms::{form_category, gap_reason, supported_forms, supported_forms_table};
pub use module::{lower_module, lower_module_with, lower_ptx, param_layout};

/// Size in bytes of the device printf FIFO `@__wp_printf_fifo` that an amdgcn module calling
/// `vprintf` defines (16 header bytes, then the records; layout in `kernels-ir/printf.py`).
/// CUDA's default `cudaLimitPrintfFifoSize` is the same 1 MiB. The support library
/// (`kernels-ir/printf.py`) and the host side (`shims/hip/wp_printf.h`) use the same number.
pub const PRINTF_FIFO_BYTES: u64 = 1 << 20;

/// The llc `-mattr` a lowered nvptx module needs beyond the default PTX ISA version of
/// `-mcpu=sm_80` (7.0), or `None`: `+ptx85` when it uses `mma.sp::ordered_metadata` (PTX ISA
/// 8.5, §9.7.14.6.3), which the support library writes as inline PTX (`kernels-ir/mma.py`).
pub fn nvptx_llc_features(ir: &str) -> Option<&'static str> {
    ir.contains("@__wp_mma_sp_").then_some("+ptx85")
}

/// One kernel parameter as laid out by the PTX `.param` list (PTX ISA 9.x §5.1.6): the
/// runtime packs `void **args` by these offsets, so the code object's kernel-argument
/// metadata must reproduce them exactly.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ParamLayout {
    /// The PTX parameter name.
    pub name: String,
    /// Byte offset from the start of the argument block.
    pub offset: u32,
    /// Size in bytes.
    pub size: u32,
    /// Alignment in bytes.
    pub align: u32,
}

/// What became of one `.entry`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum KernelOutcome {
    /// Lowered: the kernel is defined in [`LoweredModule::ir`].
    Lowered,
    /// Not lowered; the kernel is absent from the IR.
    Unsupported {
        /// The instruction forms that have no lowering (see [`crate::ptx::analysis::form_of`]),
        /// empty when the reason is not a form (e.g. invalid PTX).
        forms: Vec<String>,
        /// One line for reports.
        reason: String,
    },
}

/// One `.entry` of the module and its outcome.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct KernelResult {
    /// The exact (mangled) PTX name.
    pub name: String,
    /// Lowered or not, and why.
    pub outcome: KernelOutcome,
    /// The PTX parameter layout (also for unsupported kernels).
    pub params: Vec<ParamLayout>,
    /// Remarks on a lowered kernel whose behaviour differs from the original in a documented
    /// way (see `docs/lowering.md`). Empty otherwise.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// The result of lowering one PTX module.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoweredModule {
    /// LLVM IR text (one module), without the support library.
    pub ir: String,
    /// Every `.entry` of the input, in source order.
    pub kernels: Vec<KernelResult>,
    /// Path of the support library to link, relative to the repository root (the profile's
    /// `ir_library`); empty when none is needed.
    pub support_library: String,
}
