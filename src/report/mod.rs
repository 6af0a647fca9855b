//! The conversion report: what `wheelport convert` did to each input, each shared object and
//! each kernel, and why a kernel was not translated.
//!
//! The same types serve three readers: `--json REPORT` (schema `docs/report.schema.json`,
//! name [`SCHEMA_NAME`], version [`SCHEMA_VERSION`]; additive changes keep the version), the
//! provenance file written into the converted wheel's `.dist-info` ([`Provenance`],
//! `wheelport.json`), and the terminal table ([`human::render`]).

pub mod human;
pub mod sbom;
pub mod write;

use crate::inspect::model::{ErrorReport, InputKind, KernelStatus, UnresolvedImport};
use serde::{Deserialize, Serialize};

/// Value of `schema.name` in every conversion report.
pub const SCHEMA_NAME: &str = "wheelport.convert";
/// Value of `schema.version`.
pub const SCHEMA_VERSION: u32 = 1;
/// Value of `schema.name` in the provenance file.
pub const PROVENANCE_SCHEMA_NAME: &str = "wheelport.provenance";
/// The provenance file's name inside the converted wheel's `.dist-info` directory.
pub const PROVENANCE_FILE: &str = "wheelport.json";

/// Schema identification.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Schema {
    /// [`SCHEMA_NAME`] (or [`PROVENANCE_SCHEMA_NAME`] in a provenance file).
    pub name: String,
    /// [`SCHEMA_VERSION`] for this build.
    pub version: u32,
}

/// What the run was told to do with kernels that cannot be translated and imports that have
/// no mapping.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Policy {
    /// Any kernel not translated: fail, write nothing.
    Default,
    /// Write the wheels anyway, list the kernels not translated, exit 6.
    AllowPartial,
    /// As `default`, and also fail on imports with no mapping (exit 7).
    Strict,
}

/// How the run ended (also the process exit code, see `wheelport::cli::exit`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Every kernel translated, every output written (exit 0).
    Converted,
    /// Outputs written with kernels not translated, under `--allow-partial` (exit 6).
    Partial,
    /// Kernels not translated; nothing written (exit 5).
    RefusedUntranslated,
    /// `--strict`: imports with no mapping; nothing written (exit 7).
    RefusedUnresolvedImports,
    /// An input is malformed, hostile or already converted; nothing written (exit 1).
    InputError,
    /// A file or folder the run needs could not be used — an input that cannot be read, the
    /// output folder, the temporary folder, a report path — and no input was malformed; the
    /// error names the path and the OS error; nothing written (exit 9).
    EnvironmentError,
}

/// The device build this run used.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct DeviceBuildInfo {
    /// Whether device code can be built for the target in this build of wheelport.
    pub available: bool,
    /// What builds the device code (or why nothing can).
    pub description: String,
}

/// The whole report.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ConvertReport {
    /// Schema identification.
    pub schema: Schema,
    /// wheelport's version (`CARGO_PKG_VERSION`).
    pub tool_version: String,
    /// `dtk`, `rocm`, `musa` or `cuda`.
    pub target: String,
    /// The offload architectures device code is built for (`gfx906`, ...).
    pub offload_archs: Vec<String>,
    /// The local version label given to converted wheels (`dtk` in `2.6.2+dtk`).
    pub local_version: String,
    /// The policy.
    pub policy: Policy,
    /// The device build.
    pub device_build: DeviceBuildInfo,
    /// One per input file (a directory expands to its files).
    pub inputs: Vec<InputConversion>,
    /// Sums over all inputs.
    pub totals: Totals,
    /// How the run ended.
    pub status: Status,
    /// The process exit code that goes with `status` (`wheelport::cli::exit::of_status`), set
    /// by the command line; 0 in a report made by the library alone.
    pub exit_code: u8,
    /// One line explaining `status`.
    pub message: String,
}

/// Kernel and import counts.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
pub struct Totals {
    /// Kernels seen (a kernel is a name in one fatbin container, as `inspect` counts).
    pub kernels: usize,
    /// Kernels translated: device code built and registered for every offload arch.
    pub translated: usize,
    /// Kernels not translated (each with its reason in its shared object's list).
    pub not_translated: usize,
    /// Of the translated kernels, the arch-guard stubs (translated as is: they only stop
    /// with the stub's error, as the original does on a GPU without the real code's SASS).
    #[serde(default)]
    pub stubs: usize,
    /// Of the translated kernels, those built from PTX the SASS lifter made of their SASS
    /// (kernels that shipped without PTX, [`crate::sass`]).
    #[serde(default)]
    pub lifted: usize,
    /// CUDA imports and DT_NEEDED entries with no mapping on the target.
    pub unresolved_imports: usize,
    /// Shared objects that would not load (or would fail at their first CUDA call) on the
    /// target, each with its problems ([`SharedObjectConversion::problems`]); under
    /// `--allow-partial` they are left out of the output.
    #[serde(default)]
    pub objects_not_loadable: usize,
    /// Files written.
    pub outputs_written: usize,
}

impl Totals {
    /// Add another count.
    pub fn add(&mut self, o: &Totals) {
        self.kernels += o.kernels;
        self.translated += o.translated;
        self.not_translated += o.not_translated;
        self.stubs += o.stubs;
        self.lifted += o.lifted;
        self.unresolved_imports += o.unresolved_imports;
        self.objects_not_loadable += o.objects_not_loadable;
        self.outputs_written += o.outputs_written;
    }
}

/// What became of one input file.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct InputConversion {
    /// The path as given (or as found under a directory).
    pub path: String,
    /// Wheel or shared object.
    pub kind: InputKind,
    /// SHA-256 of the input file, lower-case hex.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub sha256: Option<String>,
    /// The version before conversion (wheels).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub version: Option<String>,
    /// The version after conversion (wheels): the local label replaced.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub new_version: Option<String>,
    /// The file written, when one was.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub output: Option<String>,
    /// `Requires-Dist` entries removed (see `targets/requires-dist.tsv`).
    pub dropped_requirements: Vec<String>,
    /// One per ELF shared object.
    pub shared_objects: Vec<SharedObjectConversion>,
    /// Counts for this input.
    pub totals: Totals,
    /// Why this input could not be converted (file and byte offset), if it could not.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub error: Option<ErrorReport>,
}

/// What became of one shared object.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SharedObjectConversion {
    /// Member name inside the wheel, or the path.
    pub path: String,
    /// SHA-256 of the input bytes, lower-case hex.
    pub sha256: String,
    /// Whether the object was rewritten (false: copied unchanged, nothing to re-target).
    pub rewritten: bool,
    /// Counts for this object.
    pub totals: Totals,
    /// Every kernel, translated or not.
    pub kernels: Vec<KernelConversion>,
    /// The host rewrite (absent for the `cuda` twin target, which keeps CUDA imports).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub host: Option<HostConversion>,
    /// What the output holds for this object.
    #[serde(default)]
    pub outcome: ObjectOutcome,
    /// Why it is dropped or would not load on the target (the load check,
    /// `wheelport::verify`); empty otherwise.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub problems: Vec<String>,
    /// Device code kept as data that the library loads at run time (`inspect`'s
    /// `runtime_modules`): not translated; on a re-targeted profile their kernels count in
    /// `totals` as not translated (the twin runs them as they are and does not count them).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub runtime_modules: Vec<crate::inspect::model::RuntimeModuleReport>,
}

/// What the output holds for one shared object.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum ObjectOutcome {
    /// Written (rewritten, or copied when nothing needed to change); it passes the load check.
    #[default]
    Written,
    /// Left out of the output on purpose: a vendored copy of a CUDA library that the target's
    /// own library replaces (nothing written needs it any more).
    Dropped,
    /// It would not load (or would fail at its first CUDA call) on the target: the run is
    /// refused, or under `--allow-partial` the object is left out of the output.
    NotLoadable,
}

/// One kernel's outcome.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct KernelConversion {
    /// Index of the fatbin container (as in `inspect`'s `fatbin.containers`).
    pub container: usize,
    /// The mangled name.
    pub name: String,
    /// The demangled name, for display.
    pub demangled: String,
    /// What `inspect` found: PTX, SASS only, arch-guard stub, invalid PTX.
    pub found: KernelStatus,
    /// Whether device code was built and registered for it.
    pub translated: bool,
    /// The offload archs built (empty when not translated).
    pub archs: Vec<String>,
    /// Why it was not translated (absent when translated).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub reason: Option<String>,
    /// What a user should know about a translated kernel (an arch-guard stub translated as
    /// is, a kernel lifted from SASS, the block size it was built for from the host code's
    /// launches); absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub note: Option<String>,
}

/// The host side of one shared object.
#[derive(Debug, Clone, Default, Serialize, Deserialize, schemars::JsonSchema)]
pub struct HostConversion {
    /// DT_NEEDED replacements (CUDA soname, target soname); an added entry (the shim
    /// library) has an empty CUDA soname.
    pub needed: Vec<(String, String)>,
    /// CUDA DT_NEEDED entries with no target soname (left in place).
    pub unresolved_needed: Vec<String>,
    /// Imports renamed to target symbols.
    pub renamed: usize,
    /// Imports renamed to wheelport shim-library symbols.
    pub shimmed: Vec<String>,
    /// Imports with no mapping, with the relink table's reason (left in place).
    pub unresolved: Vec<UnresolvedImport>,
    /// Entry points of a statically linked CUDA runtime rebound to the target, as
    /// `(CUDA name, target function)` (`crate::rewrite::Rebind`); absent for other objects.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rebound: Vec<(String, String)>,
    /// Registration wrappers in `.nvFatBinSegment`.
    pub wrappers: usize,
    /// Wrappers re-pointed at new device code.
    pub wrappers_repointed: usize,
    /// Sections that grew and were moved into a new PT_LOAD.
    pub moved_sections: Vec<String>,
    /// What this build leaves undone on the host side, one line each.
    pub notes: Vec<String>,
}

/// The provenance file (`<name>-<version>.dist-info/wheelport.json`) of a converted wheel.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Provenance {
    /// `wheelport.provenance`, version [`SCHEMA_VERSION`].
    pub schema: Schema,
    /// The tool (`wheelport`).
    pub tool: String,
    /// wheelport's version.
    pub tool_version: String,
    /// The target.
    pub target: String,
    /// The offload archs.
    pub offload_archs: Vec<String>,
    /// The source wheel's file name.
    pub source_wheel: String,
    /// The source wheel's SHA-256, lower-case hex.
    pub source_sha256: String,
    /// The source version.
    pub source_version: String,
    /// Per shared object: the kernels with their status, and the host rewrite.
    pub shared_objects: Vec<SharedObjectConversion>,
}

/// The JSON Schema (draft 2020-12) of [`ConvertReport`], as committed in
/// `docs/report.schema.json`.
pub fn json_schema() -> serde_json::Value {
    let mut schema =
        serde_json::to_value(schemars::schema_for!(ConvertReport)).expect("schema serializes");
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
