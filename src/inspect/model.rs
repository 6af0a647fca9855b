//! The `inspect` report: plain data with serde derives, shared by the JSON output and the
//! human rendering. The JSON form is specified by `docs/inspect.schema.json`
//! (schema name [`SCHEMA_NAME`], version [`SCHEMA_VERSION`]); additive changes keep the
//! version, any other change bumps it.

use crate::wheel::WheelInfo;
use serde::{Deserialize, Serialize};

/// Value of `schema.name` in every inspect report.
pub const SCHEMA_NAME: &str = "wheelport.inspect";
/// Value of `schema.version`.
pub const SCHEMA_VERSION: u32 = 1;

/// Schema identification carried by every report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Schema {
    /// Always [`SCHEMA_NAME`].
    pub name: String,
    /// Always [`SCHEMA_VERSION`] for this build.
    pub version: u32,
}

impl Default for Schema {
    fn default() -> Self {
        Schema {
            name: SCHEMA_NAME.to_string(),
            version: SCHEMA_VERSION,
        }
    }
}

/// The whole report: one entry per input file (a directory expands to its files).
#[derive(Debug, Clone, Default, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Report {
    /// Schema identification.
    pub schema: Schema,
    /// wheelport's version (`CARGO_PKG_VERSION`).
    pub tool_version: String,
    /// One per input file.
    pub inputs: Vec<InputReport>,
    /// Sum over all inputs.
    pub verdict: Verdict,
}

/// What kind of file an input is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum InputKind {
    /// A `.whl` archive.
    Wheel,
    /// An ELF shared object given directly.
    SharedObject,
}

/// The report for one input file.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct InputReport {
    /// The path as given (or as found under a directory).
    pub path: String,
    /// Wheel or shared object.
    pub kind: InputKind,
    /// Size of the file in bytes.
    pub size: u64,
    /// WHEEL/METADATA facts, for wheels that have a `.dist-info`.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub wheel: Option<WheelInfo>,
    /// One per ELF object: shared objects, and loose cubins (`cubin_arch` set); a wheel may
    /// hold several, or none.
    pub shared_objects: Vec<SharedObjectReport>,
    /// Errors that stopped parts of this input from being read (file and offset in text).
    pub errors: Vec<ErrorReport>,
    /// Sum over this input's shared objects.
    pub verdict: Verdict,
}

/// An error as reported in JSON.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ErrorReport {
    /// The stage: `io`, `elf`, `fatbin`, `wheel`, `input`.
    pub kind: String,
    /// The file (for wheel members: `WHEEL!member`).
    pub file: String,
    /// Byte offset in `file`, when known.
    pub offset: Option<u64>,
    /// The message.
    pub message: String,
}

impl From<&crate::Error> for ErrorReport {
    fn from(e: &crate::Error) -> Self {
        ErrorReport {
            kind: serde_json::to_value(e.kind)
                .ok()
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_default(),
            file: e.file.clone(),
            offset: e.offset,
            message: e.message.clone(),
        }
    }
}

/// Kernel counts; a kernel is a (container, name) pair.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
pub struct Verdict {
    /// Kernels with at least one PTX entry: translatable in principle.
    pub kernels_with_ptx: usize,
    /// Kernels found only in cubins (SASS): not translatable from PTX.
    pub kernels_sass_only: usize,
    /// Kernels whose PTX is an arch-guard stub (see `wheelport::stub`): their real code is not
    /// translatable (`convert` translates the stub as is, with a note).
    /// They are not counted in `kernels_with_ptx`.
    #[serde(default)]
    pub kernels_arch_guard_stub: usize,
    /// Kernels whose PTX function does not parse (reported with the diagnostic): not
    /// translatable, not counted in `kernels_with_ptx`.
    #[serde(default)]
    pub kernels_invalid_ptx: usize,
    /// Shared objects that carry a fatbin.
    pub shared_objects_with_fatbin: usize,
}

impl Verdict {
    /// Add another verdict's counts to this one.
    pub fn add(&mut self, o: &Verdict) {
        self.kernels_with_ptx += o.kernels_with_ptx;
        self.kernels_sass_only += o.kernels_sass_only;
        self.kernels_arch_guard_stub += o.kernels_arch_guard_stub;
        self.kernels_invalid_ptx += o.kernels_invalid_ptx;
        self.shared_objects_with_fatbin += o.shared_objects_with_fatbin;
    }
}

/// A module kept as data in a host object (`wheelport::elf::embedded`).
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct RuntimeModuleReport {
    /// The section holding it (`.rodata`).
    pub section: String,
    /// Its file offset.
    pub offset: u64,
    /// Its size in bytes.
    pub size: u64,
    /// `ptx` or `fatbin`.
    pub kind: String,
    /// For PTX: its `.target` (`sm_80`).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub target: Option<String>,
    /// The kernels it defines.
    pub kernels: Vec<String>,
}

impl RuntimeModuleReport {
    /// One line for the human reports: what it is, where, and its kernels.
    pub fn describe(&self) -> String {
        format!(
            "{} kept as data in {} at offset {:#x} ({} bytes), {} kernels ({})",
            self.target
                .as_deref()
                .map_or("a fatbin".to_string(), |t| format!("PTX for {t}")),
            self.section,
            self.offset,
            self.size,
            self.kernels.len(),
            self.kernels.join(", ")
        )
    }
}

impl From<&crate::elf::embedded::EmbeddedModule> for RuntimeModuleReport {
    fn from(m: &crate::elf::embedded::EmbeddedModule) -> Self {
        let (kind, target) = match &m.kind {
            crate::elf::embedded::EmbeddedKind::Ptx { target } => ("ptx", Some(target.clone())),
            crate::elf::embedded::EmbeddedKind::Fatbin => ("fatbin", None),
        };
        RuntimeModuleReport {
            section: m.section.clone(),
            offset: m.offset,
            size: m.size,
            kind: kind.to_string(),
            target,
            kernels: m.kernels.clone(),
        }
    }
}

/// The report for one ELF shared object.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SharedObjectReport {
    /// Member name inside the wheel, or the path.
    pub path: String,
    /// Size in bytes.
    pub size: u64,
    /// DT_SONAME.
    pub soname: Option<String>,
    /// DT_NEEDED, in order.
    pub needed: Vec<String>,
    /// DT_RUNPATH.
    pub runpath: Option<String>,
    /// DT_RPATH.
    pub rpath: Option<String>,
    /// For a loose cubin (device ELF shipped as a file of its own): its architecture; its
    /// kernels are SASS only.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub cubin_arch: Option<String>,
    /// The CUDA runtime the object uses: none, the shared `libcudart` (perhaps a vendored
    /// copy), or one linked into the object (`wheelport::analyze::runtime`).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub cuda_runtime: Option<crate::analyze::runtime::CudaRuntime>,
    /// Imports attributed to CUDA-stack libraries, grouped by library.
    pub cuda_imports: Vec<ImportGroup>,
    /// Number of undefined dynamic symbols in total.
    pub import_count: usize,
    /// The fatbin contents; absent when the object has no fatbin section.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub fatbin: Option<FatbinReport>,
    /// Per-kernel facts; present with `--kernels` (and always in JSON when requested).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub kernels: Option<Vec<KernelReport>>,
    /// Device code kept as data outside the fatbin sections (PTX text, fatbin containers),
    /// which the library hands to the driver at run time: not translated.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub runtime_modules: Vec<RuntimeModuleReport>,
    /// With `--target`: what the host rewrite would do to this object's imports.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub relink: Option<RelinkReport>,
    /// Counts for this object.
    pub verdict: Verdict,
    /// Errors for this object (the rest of the report is what could be read).
    pub errors: Vec<ErrorReport>,
}

/// Imports from one CUDA-stack library.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ImportGroup {
    /// The library: the soname from the version requirement or DT_NEEDED, a rule's library,
    /// or `"(unknown)"`.
    pub library: String,
    /// How the library was decided: `version` (GNU version requirement), `rule` (name rule
    /// in `relink-tables/cuda-stack.tsv`) or `name` (contains "cuda", library unknown).
    pub attributed_by: String,
    /// `name@version` or bare names, in `.dynsym` order.
    pub symbols: Vec<String>,
}

/// The fatbin contents of one shared object.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct FatbinReport {
    /// The fatbin sections.
    pub sections: Vec<crate::elf::FatbinSectionInfo>,
    /// Number of containers in all sections.
    pub container_count: usize,
    /// Number of entries in all containers.
    pub entry_count: usize,
    /// Entry counts by (section, kind, arch, compression).
    pub summary: Vec<EntryGroup>,
    /// Every container with its entries.
    pub containers: Vec<ContainerReport>,
    /// The registration wrappers in `.nvFatBinSegment`.
    pub wrappers: Vec<crate::elf::Wrapper>,
}

/// A count of entries sharing kind, arch and compression.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct EntryGroup {
    /// `.nv_fatbin` or `__nv_relfatbin`.
    pub section: String,
    /// `ptx`, `elf`, `nvvm` or `unknown`.
    pub kind: String,
    /// `sm_80`, `compute_80`, `sm_90a`, ...
    pub arch: String,
    /// `none`, `lz4`, `zstd`.
    pub compression: String,
    /// Number of entries.
    pub count: usize,
    /// Sum of stored payload bytes.
    pub stored_bytes: u64,
}

/// One container.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ContainerReport {
    /// The section holding it.
    pub section: String,
    /// File offset of the container header.
    pub offset: u64,
    /// Header plus entries, bytes.
    pub size: u64,
    /// Container header version.
    pub version: u16,
    /// Indices (into `wrappers`) of the wrappers that point at this container.
    pub wrappers: Vec<usize>,
    /// The entries.
    pub entries: Vec<EntryReport>,
}

/// One entry.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct EntryReport {
    /// `ptx`, `elf`, `nvvm` or `unknown`.
    pub kind: String,
    /// Raw kind value.
    pub kind_raw: u16,
    /// `sm_80`, `compute_80`, `sm_90a`, `lto_80`.
    pub arch: String,
    /// Code version `major.minor` (PTX ISA version for PTX).
    pub code_version: String,
    /// File offset of the entry header.
    pub offset: u64,
    /// Entry header size in bytes (0x40..0x78).
    pub header_size: u32,
    /// Flags word.
    pub flags: u64,
    /// `none`, `lz4`, `zstd`.
    pub compression: String,
    /// Stored payload bytes (compressed size when compressed).
    pub stored_size: u64,
    /// Uncompressed payload bytes (the padded size when not compressed).
    pub uncompressed_size: u64,
    /// The identifier string, if any.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub identifier: Option<String>,
    /// The options text, if any.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub options: Option<String>,
    /// Number of kernels in this entry (`.entry` in PTX, ENTRY symbols in a cubin).
    pub kernel_count: usize,
}

/// Whether a kernel can be translated, as far as `inspect` knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum KernelStatus {
    /// At least one PTX entry defines it.
    Ptx,
    /// Only cubins define it.
    SassOnly,
    /// Its PTX is an arch-guard stub: real code only in some arch's SASS.
    ArchGuardStub,
    /// Its PTX function does not parse.
    InvalidPtx,
}

/// One kernel of a shared object: a name inside one container. The same name in two
/// containers (two translation units) is two kernels, as the runtime registers each.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct KernelReport {
    /// Index of the container (into `fatbin.containers`) that defines it.
    pub container: usize,
    /// The mangled name (as registered with `__cudaRegisterFunction`).
    pub name: String,
    /// The demangled name, for display.
    pub demangled: String,
    /// Translatable from PTX or SASS-only.
    pub status: KernelStatus,
    /// Archs of the PTX entries that define it (`compute_80`).
    pub ptx_archs: Vec<String>,
    /// Archs of the cubins that define it (`sm_80`, `sm_90a`).
    pub sass_archs: Vec<String>,
    /// Why it is not translatable (absent for translatable kernels).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub reason: Option<String>,
    /// For arch-guard stubs: the message the stub prints, if it prints one.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub stub_message: Option<String>,
    /// With `--untranslatable`: the PTX instruction forms the lowering does not support.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub unsupported_forms: Option<Vec<FormReport>>,
    /// With `--untranslatable`, for SASS-only kernels: the SASS decoded with nvdisasm and the
    /// forms the lifter lacks (`wheelport::sass`).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub sass_forms: Option<SassFormsReport>,
    /// The largest block, in threads, that the object's host code launches it with, when the
    /// launch scan follows every launch (`wheelport::elf::launch`); absent otherwise. `convert`
    /// builds it for blocks of at most that many threads on amdgcn targets.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub launch_threads: Option<u32>,
}

/// The SASS of one SASS-only kernel as the lifter sees it (see `wheelport::sass`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SassFormsReport {
    /// The cubin's arch the kernel was decoded from (`sm_80`).
    pub arch: String,
    /// Instructions in the kernel.
    pub instructions: usize,
    /// Distinct forms (opcode with modifiers, `IMAD.WIDE.U32`) in the kernel.
    pub forms: usize,
    /// The forms with instructions the lifter does not lift, in form order.
    pub unlifted: Vec<SassFormReport>,
    /// Why the SASS was not decoded (nvdisasm missing or failed; no cubin of a known arch).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub error: Option<String>,
}

/// One SASS form with instructions the lifter does not lift.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SassFormReport {
    /// The form (`HMMA.16816.F32`).
    pub form: String,
    /// Instructions of the form in the kernel that are not lifted.
    pub count: usize,
    /// Byte offset of the first in the kernel.
    pub first_offset: u32,
    /// Why the first is not lifted.
    pub reason: String,
}

/// The relink plan of one object for one target (see `wheelport::relink::plan`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct RelinkReport {
    /// `dtk`, `rocm` or `musa`.
    pub target: String,
    /// DT_NEEDED replacements (CUDA soname, target soname).
    pub needed: Vec<(String, String)>,
    /// CUDA DT_NEEDED entries with no target soname.
    pub unresolved_needed: Vec<String>,
    /// Imports renamed to target symbols.
    pub renamed: usize,
    /// Imports renamed to wheelport shim-library symbols.
    pub shimmed: Vec<String>,
    /// Imports that cannot be re-targeted, with the table's reason.
    pub unresolved: Vec<UnresolvedImport>,
}

/// An import the relink plan cannot re-target.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct UnresolvedImport {
    /// `name` or `name@version`.
    pub import: String,
    /// The relink table's notes, or "no row in the relink table".
    pub reason: String,
}

/// One PTX instruction form a kernel uses (see `wheelport::ptx::analysis`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct FormReport {
    /// The form, e.g. `shfl.sync.bfly.b32`.
    pub form: String,
    /// Number of instructions of that form in the kernel and the functions it calls.
    pub count: usize,
    /// 1-based line (in the extracted PTX module) of the first one.
    pub first_line: u32,
}

/// The JSON Schema (draft 2020-12) of [`Report`], as committed in `docs/inspect.schema.json`.
pub fn json_schema() -> serde_json::Value {
    let mut schema =
        serde_json::to_value(schemars::schema_for!(Report)).expect("schema serializes");
    if let Some(o) = schema.as_object_mut() {
        o.insert(
            "$id".into(),
            serde_json::Value::String(format!(
                "https://wheelport.invalid/schema/{SCHEMA_NAME}/{SCHEMA_VERSION}"
            )),
        );
    }
    schema
}
