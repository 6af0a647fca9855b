//! wheelport: convert prebuilt CUDA Python wheels so they run on other GPU stacks
//! (Hygon DCU `dtk`, AMD ROCm `rocm`, Moore Threads MUSA `musa`).
//!
//! The library is organised as one module per pipeline stage:
//!
//! * [`analyze`] — one analysis per host ELF object (scan, registration, runtime, fatbin,
//!   kernels with status), made once and passed on to inspect, convert and the twin.
//! * [`wheel`] — reading wheels (PEP 427 zip archives): `.so` members, `WHEEL`, `METADATA`.
//! * [`elf`] — reading host ELF shared objects: dynamic section, versioned imports,
//!   the fatbin sections and the `.nvFatBinSegment` registration wrappers.
//! * [`fatbin`] — the CUDA fat binary container format (`0xBA55ED50`) and its entries
//!   (PTX, ELF cubins, NVVM/LTO-IR), including LZ4 and zstd payloads.
//! * [`cubin`] — kernel names from a cubin's symbol table.
//! * [`ptx`] — the PTX front end (lexer, parser, AST, printer, analysis).
//! * [`stub`] — the arch-guard stub rule: kernels whose PTX was compiled out by an
//!   `#if __CUDA_ARCH__` guard.
//! * [`lower`] — PTX AST to LLVM IR text for a target profile, with per-kernel outcomes.
//! * [`sass`] — SASS-only kernels: decoded with nvdisasm, `.nv.info` read, lifted to PTX
//!   (opt-in: `wheelport sass lift`, `inspect --untranslatable`).
//! * [`relink`] — the relink tables (`relink-tables/`): CUDA symbols and sonames per target.
//! * [`rewrite`] — host ELF rewriting: DT_NEEDED, import renames, symbol versions.
//! * [`target`] — target profiles (`targets/*.toml`): triple, address spaces, wave size,
//!   container and toolchain search paths per target.
//! * [`shim`] — the C shim library for CUDA entry points a rename cannot serve.
//! * [`bundle`] — the clang offload bundle that carries HIP code objects.
//! * [`inspect`] — the `wheelport inspect` report model, its JSON schema and the
//!   human-readable rendering.
//! * [`batch`] — `wheelport batch`: a pip index mirror converted into a new PEP 503/691
//!   tree, incremental, crash-safe and sharded.
//! * [`convert`] — the main job: inspect, device code, host rewrite, repack, policy.
//! * [`report`] — the conversion report (JSON schema `docs/report.schema.json`), the
//!   provenance file and the terminal table.
//! * [`cli`] — command-line argument definitions (clap).
//! * [`toolchain`] — finding the external tools of a target (llc, opt, ld.lld) and running them.
//! * [`device`] — the device pipeline shared by convert and the twin: PTX modules to the
//!   target's device code, with per-kernel failure isolation.
//! * [`build`] — the device build of a lowered module: code objects / PTX, checked, cached.
//! * [`verify`] — the load check: would a written object load on the target.
//! * [`twin`] — the `cuda` twin: a `.so` whose PTX is replaced by the lowering's own PTX.
//!
//! Errors are reported through [`Error`], which always names the file and, where the
//! problem sits at a position in it, the byte offset.

#![warn(missing_docs)]

pub mod analyze;
pub mod batch;
pub mod build;
pub mod bundle;
pub mod cli;
pub mod convert;
pub mod cubin;
pub mod device;
pub mod elf;
pub mod error;
pub mod fatbin;
pub mod input;
pub mod inspect;
pub mod lower;
pub mod ptx;
pub mod relink;
pub mod report;
pub mod rewrite;
pub mod sass;
pub mod shim;
pub mod stub;
pub mod target;
pub mod toolchain;
pub mod twin;
pub mod verify;
pub mod wheel;

pub use error::{Error, Result};
