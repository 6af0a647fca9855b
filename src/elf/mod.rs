//! Reading host ELF shared objects (x86-64 `.so` files in wheels).
//!
//! [`scan()`] reads what wheelport needs from a host `.so` without copying it: the dynamic
//! section (DT_NEEDED, DT_SONAME, DT_RUNPATH, DT_RPATH), the undefined dynamic symbols with
//! their GNU symbol versions (`name@version`, from `.gnu.version` and `.gnu.version_r`), the
//! fatbin sections (`.nv_fatbin`, `__nv_relfatbin`) and the registration wrappers in
//! `.nvFatBinSegment`, each resolved to the container it registers through its
//! `R_X86_64_RELATIVE` relocation.
//!
//! [`registration`] decodes the host code (iced-x86) to tell which wrappers are passed to
//! `__cudaRegisterFatBinary`.
//!
//! Names follow the System V gABI and the GNU symbol-versioning extension.

pub mod embedded;
pub mod launch;
pub mod registration;
pub mod scan;
pub mod static_runtime;

pub use scan::{scan, FatbinSectionInfo, Import, SectionSummary, SharedObject, Wrapper};
