//! Command-line definitions (clap derive). `main.rs` parses with [`parse_args`], calls the
//! library and maps the outcome to an exit code from [`exit`].
//!
//! `convert` is the default subcommand: `wheelport X.whl --target dtk` is read as
//! `wheelport convert X.whl --target dtk`.

use clap::{Parser, Subcommand, ValueEnum};
use std::ffi::OsString;
use std::path::PathBuf;

/// Documented process exit codes.
pub mod exit {
    /// Everything asked for was done.
    pub const OK: u8 = 0;
    /// An input could not be read completely (bad, truncated or hostile file); the report
    /// names the file and offset.
    pub const INPUT_ERROR: u8 = 1;
    /// The command line is wrong (clap's usage errors use this code too).
    pub const USAGE: u8 = 2;
    /// The requested feature is not implemented yet in this version.
    pub const NOT_IMPLEMENTED: u8 = 3;
    /// PTX parsing found errors (`wheelport ptx parse`).
    pub const PTX_ERRORS: u8 = 4;
    /// Some kernel was not lowered (`wheelport ptx lower`, `wheelport ptx twin`); every
    /// such kernel is named with its reason. Same value as [`PTX_ERRORS`].
    pub const NOT_LOWERED: u8 = 4;
    /// A tool the target needs is missing (`wheelport doctor --target T`).
    pub const TOOLS_MISSING: u8 = 8;
    /// `batch`: the tree was written, but some wheels failed to convert or were converted
    /// only partially (the summary lists each with its reason). Same value as [`PARTIAL`].
    pub const BATCH_INCOMPLETE: u8 = 6;
    /// `convert`: kernels could not be translated (SASS-only, arch-guard stubs, invalid PTX,
    /// unsupported forms, no device build); the table says which and why. Nothing was
    /// written (`--allow-partial` writes anyway).
    pub const UNTRANSLATED: u8 = 5;
    /// `convert --allow-partial`: the outputs were written, but some kernels were not
    /// translated (listed in the table and the report).
    pub const PARTIAL: u8 = 6;
    /// `convert --strict`: CUDA imports or DT_NEEDED entries have no mapping on the target;
    /// nothing was written.
    pub const UNRESOLVED_IMPORTS: u8 = 7;
    /// A file or folder the command needs could not be used (an unreadable input, the output
    /// folder, `$TMPDIR`, a report path): the error names the path and the OS error; no input
    /// was found malformed.
    pub const ENVIRONMENT: u8 = 9;

    /// The exit code of a command that failed with `e` before it had a report.
    pub fn of_error(e: &crate::Error) -> u8 {
        if e.kind == crate::error::ErrorKind::Io {
            ENVIRONMENT
        } else {
            INPUT_ERROR
        }
    }

    /// The exit code of a `convert` run that ended with `status`.
    pub fn of_status(status: crate::report::Status) -> u8 {
        use crate::report::Status;
        match status {
            Status::Converted => OK,
            Status::Partial => PARTIAL,
            Status::RefusedUntranslated => UNTRANSLATED,
            Status::RefusedUnresolvedImports => UNRESOLVED_IMPORTS,
            Status::InputError => INPUT_ERROR,
            Status::EnvironmentError => ENVIRONMENT,
        }
    }
}

/// The `--target` values: the names of the target registry's profiles
/// ([`crate::target::names`]; `dtk`, `rocm`, `cuda`, `musa` and any profile of
/// `WHEELPORT_TARGETS_DIR`).
pub fn target_names() -> clap::builder::PossibleValuesParser {
    clap::builder::PossibleValuesParser::new(crate::target::names())
}

/// Toolchain options shared by the subcommands that run device tools.
#[derive(Debug, Clone, clap::Args)]
pub struct ToolchainArgs {
    /// A toolchain root searched first (DIR/bin, DIR/llvm/bin, DIR), before $DTK_PATH,
    /// $ROCM_PATH, /opt/dtk, ... and PATH.
    #[arg(long, value_name = "DIR")]
    pub toolchain: Option<PathBuf>,
    /// Use this executable for one tool, e.g. `--tool llc=/opt/x/bin/llc` (repeatable).
    #[arg(long = "tool", value_name = "NAME=PATH", value_parser = parse_tool_override)]
    pub tools: Vec<(String, PathBuf)>,
}

/// Build-cache options.
#[derive(Debug, Clone, clap::Args)]
pub struct CacheArgs {
    /// Cache directory for built device code (default $XDG_CACHE_HOME/wheelport, else
    /// ~/.cache/wheelport).
    #[arg(long, value_name = "DIR")]
    pub cache_dir: Option<PathBuf>,
    /// Do not read or write the build cache.
    #[arg(long)]
    pub no_cache: bool,
}

fn parse_tool_override(s: &str) -> Result<(String, PathBuf), String> {
    match s.split_once('=') {
        Some((n, p)) if !n.is_empty() && !p.is_empty() => Ok((n.to_string(), PathBuf::from(p))),
        _ => Err(format!("expected NAME=PATH, got `{s}`")),
    }
}

/// What `convert` does with kernels that ship as SASS only (no PTX).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SassMode {
    /// Lift their sm_80..sm_90 SASS to PTX and build it like PTX (needs `nvdisasm`).
    Lift,
    /// Report them as SASS only, not translated.
    Skip,
}

/// Which device code `convert` translates where a kernel has several (`--device-code`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum DeviceCodeArg {
    /// Its PTX where the module has PTX, else its SASS lifted (as `--sass` says).
    Auto,
    /// PTX only: kernels without PTX are reported as SASS only.
    Ptx,
    /// Its sm_80..sm_90 SASS lifted even where PTX exists (the PTX is not read): runs the
    /// lifter on any PTX+SASS library, so that library's own tests check it.
    Sass,
}

impl From<DeviceCodeArg> for crate::convert::DeviceCodeSource {
    fn from(a: DeviceCodeArg) -> Self {
        match a {
            DeviceCodeArg::Auto => Self::Auto,
            DeviceCodeArg::Ptx => Self::Ptx,
            DeviceCodeArg::Sass => Self::Sass,
        }
    }
}

/// What `wheelport ptx lower` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum EmitKind {
    /// `<stem>.ll`: the lowered LLVM IR.
    Llvm,
    /// Device code: `<stem>-<arch>.co` (dtk, rocm) or `<stem>.ptx` (cuda).
    Obj,
}

/// Convert prebuilt CUDA Python wheels for Hygon DCU (dtk), AMD ROCm (rocm) and Moore
/// Threads MUSA (musa).
#[derive(Debug, Parser)]
#[command(name = "wheelport", version, about, long_about = None)]
pub struct Cli {
    /// The subcommand; `convert` when none is named.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Convert wheels or shared objects for a target stack (the default subcommand).
    Convert {
        /// `.whl` files, ELF `.so` files, or directories holding them.
        #[arg(required = true)]
        inputs: Vec<PathBuf>,
        /// The target stack (a profile name: dtk, rocm, musa, cuda, ...).
        #[arg(long, value_parser = target_names())]
        target: String,
        /// Output directory (created if needed; default `wheelhouse`).
        #[arg(short = 'o', long, default_value = "wheelhouse")]
        out: PathBuf,
        /// Offload architectures to build device code for, comma-separated (default: the
        /// target profile's, e.g. gfx906 for dtk).
        #[arg(long = "offload-arch", value_delimiter = ',')]
        offload_arch: Vec<String>,
        /// NaN results of f32/f16/bf16 arithmetic on amdgcn targets: `native` (the target's,
        /// as a hipcc build gives) or `canonical` (NVIDIA's 0x7fffffff / 0x7fff, one compare
        /// and select per result). Default: the profile's (`native`).
        #[arg(long, value_enum)]
        nan: Option<crate::target::NanMode>,
        /// Kernels without PTX: `lift` their SASS (sm_80..sm_90 cubins, decoded by nvdisasm)
        /// to PTX and build it, or `skip` them (reported as SASS only).
        #[arg(long, value_enum, default_value = "lift")]
        sass: SassMode,
        /// Which device code to translate where a kernel has several: `auto` (its PTX, else
        /// its SASS as `--sass` says), `ptx` (PTX only), `sass` (its sm_80..sm_90 SASS lifted
        /// even where PTX exists).
        #[arg(long = "device-code", value_enum, default_value = "auto")]
        device_code: DeviceCodeArg,
        /// Write the conversion report as JSON to this file (schema docs/report.schema.json).
        #[arg(long = "json", value_name = "REPORT")]
        json: Option<PathBuf>,
        /// Write the wheels even when kernels cannot be translated; they are listed and the
        /// exit code is 6.
        #[arg(long = "allow-partial", conflicts_with = "strict")]
        allow_partial: bool,
        /// Also fail (exit 7) when a CUDA import or library has no mapping on the target.
        #[arg(long)]
        strict: bool,
        /// Worker threads for the per-.so stages (default: the number of CPUs).
        #[arg(long, short = 'j')]
        jobs: Option<usize>,
        /// The local version label of converted wheels (default: the target name, giving
        /// e.g. 2.6.2+dtk).
        #[arg(long = "local-version")]
        local_version: Option<String>,
        /// A relink table whose rows win over the built-in ones; may be given several times.
        #[arg(long = "relink-table")]
        relink_tables: Vec<PathBuf>,
        /// List every kernel not translated in the terminal table (default: the first 8 per
        /// reason).
        #[arg(long = "all-kernels")]
        all_kernels: bool,
        /// No progress bars.
        #[arg(long, short = 'q')]
        quiet: bool,
        /// Toolchain search options (as `wheelport doctor` takes them).
        #[command(flatten)]
        toolchain: ToolchainArgs,
    },
    /// Show what a wheel or shared object holds: libraries, CUDA imports, fatbins, kernels.
    Inspect {
        /// `.whl` files, ELF `.so` files, or directories holding them.
        #[arg(required = true)]
        inputs: Vec<PathBuf>,
        /// Print the report as JSON (schema docs/inspect.schema.json).
        #[arg(long)]
        json: bool,
        /// List every kernel with whether it has PTX or only SASS.
        #[arg(long)]
        kernels: bool,
        /// List, per kernel, the PTX instruction forms the lowering does not support, with
        /// counts and the first source line of each.
        #[arg(long)]
        untranslatable: bool,
        /// Also show what the host rewrite would do for this target: DT_NEEDED replacements,
        /// renamed and shimmed imports, and imports that cannot be re-targeted.
        #[arg(long, value_parser = target_names())]
        target: Option<String>,
        /// A relink table (same format as `relink-tables/<target>/*.tsv`) whose rows win over
        /// the built-in ones; may be given several times. Needs `--target`.
        #[arg(long = "relink-table", requires = "target")]
        relink_tables: Vec<PathBuf>,
        /// Also write a self-contained HTML compatibility report to this file.
        #[arg(long, value_name = "REPORT.html")]
        html: Option<PathBuf>,
    },
    /// Report the device toolchain found for each target (llc, opt, llvm-link, ld.lld):
    /// paths, versions, how they were found, and what is missing with how to install it.
    /// Exit code 8 when `--target` is given and a tool it needs is missing.
    Doctor {
        /// Only this target (default: all).
        #[arg(long, value_parser = target_names())]
        target: Option<String>,
        /// Print JSON.
        #[arg(long)]
        json: bool,
        /// Toolchain search options.
        #[command(flatten)]
        toolchain: ToolchainArgs,
    },
    /// Convert a whole pip index mirror (a PEP 503 directory tree, or a flat directory of
    /// wheels) into a new PEP 503/691 tree: CUDA wheels converted, other files published as
    /// they are. Incremental (unchanged wheels are not converted again), crash-safe, and
    /// shardable. Exit codes: 0 all converted or copied; 6 some wheels failed or are partial
    /// (see the summary); 1 the mirror or the output could not be read or written.
    Batch {
        /// The mirror; with `--merge`, the shard output trees to merge into `--out`.
        inputs: Vec<PathBuf>,
        /// The target stack (not needed with `--merge`).
        #[arg(long, value_parser = target_names(), required_unless_present = "merge")]
        target: Option<String>,
        /// The output tree (`files/`, `simple/`, `.wheelport/`).
        #[arg(long)]
        out: PathBuf,
        /// Parallel conversions; 0 = number of CPUs.
        #[arg(long, default_value_t = 0)]
        jobs: usize,
        /// Only shard K of N (`K/N`, 1-based); projects are split by a hash of their name.
        #[arg(long, value_parser = crate::batch::parse_shard)]
        shard: Option<(u32, u32)>,
        /// Write the summary (every file with its status and reason) as JSON to this file.
        #[arg(long)]
        json: Option<PathBuf>,
        /// Publish partially converted wheels (kernels that cannot be translated are listed).
        #[arg(long)]
        allow_partial: bool,
        /// GPU architectures to build (passed to each conversion).
        #[arg(long)]
        offload_arch: Option<String>,
        /// Kernels without PTX: `lift` their SASS or `skip` them (passed to each conversion).
        #[arg(long, value_enum, default_value = "lift")]
        sass: SassMode,
        /// Merge shard trees given as inputs (or already in `--out`) and write the root
        /// index and summary.
        #[arg(long)]
        merge: bool,
    },
    /// Work on SASS (cubins) directly: decode with nvdisasm and lift to PTX.
    Sass {
        /// What to do.
        #[command(subcommand)]
        command: SassCommand,
    },
    /// Work on PTX files directly.
    Ptx {
        /// What to do.
        #[command(subcommand)]
        command: PtxCommand,
    },
}

/// `wheelport ptx` subcommands.
#[derive(Debug, Subcommand)]
pub enum PtxCommand {
    /// Parse PTX files and print diagnostics (`file:line:col: error: ...`); exit code 4 on
    /// any error.
    Parse {
        /// PTX files.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Write the printed PTX: to this file for one input (`-` for stdout), into this
        /// directory for several.
        #[arg(long)]
        print: Option<PathBuf>,
    },
    /// Lower PTX files to LLVM IR or device code for a target. Every kernel that could not
    /// be lowered is named with its reason on stderr; exit code 4 if there is any.
    Lower {
        /// PTX files.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// The target profile.
        #[arg(long, value_parser = target_names())]
        target: String,
        /// Architectures, comma-separated (default: the profile's, e.g. gfx906 or sm_80).
        #[arg(long, value_delimiter = ',')]
        offload_arch: Vec<String>,
        /// NaN results of f32/f16/bf16 arithmetic on amdgcn targets: `native` (the target's,
        /// as a hipcc build gives) or `canonical` (NVIDIA's 0x7fffffff / 0x7fff, one compare
        /// and select per result). Default: the profile's (`native`).
        #[arg(long, value_enum)]
        nan: Option<crate::target::NanMode>,
        /// What to write: `llvm` (`<stem>.ll`) or `obj` (`<stem>-<arch>.co`, or `<stem>.ptx` for
        /// cuda).
        #[arg(long, value_enum, default_value = "llvm")]
        emit: EmitKind,
        /// Output directory.
        #[arg(short = 'o', long, value_name = "DIR")]
        out: PathBuf,
        /// Toolchain search options.
        #[command(flatten)]
        toolchain: ToolchainArgs,
        /// Build-cache options.
        #[command(flatten)]
        cache: CacheArgs,
    },
    /// Make the cuda twin of a shared object: every registered fatbin with PTX is replaced
    /// by the PTX wheelport's lowering builds (the only entry of a new fatbin in
    /// `.nv_fatbin.wheelport`), the old containers are zeroed; SASS-only fatbins are left
    /// alone and reported. Exit code 4 when a kernel was not lowered, a device variable is
    /// missing from the new PTX, or a registered fatbin was not converted.
    Twin {
        /// The input `.so`.
        input: PathBuf,
        /// The output `.so`.
        #[arg(short = 'o', long)]
        out: PathBuf,
        /// The SM architecture to build the PTX for.
        #[arg(long, default_value = "sm_80")]
        arch: String,
        /// Bisecting a lowering bug: kernels whose name contains this string keep their source
        /// PTX instead of the lowering's (repeatable). The output is then not a full twin: the
        /// report lists those kernels and the exit code is 4.
        #[arg(long = "keep-source", value_name = "SUBSTRING")]
        keep_source: Vec<String>,
        /// Print the report as JSON.
        #[arg(long)]
        json: bool,
        /// Toolchain search options.
        #[command(flatten)]
        toolchain: ToolchainArgs,
        /// Build-cache options.
        #[command(flatten)]
        cache: CacheArgs,
    },
}

/// `wheelport sass` subcommands.
#[derive(Debug, Subcommand)]
pub enum SassCommand {
    /// Decode the cubins of `.so`/`.whl`/`.cubin` inputs with nvdisasm and lift each kernel
    /// to PTX: per cubin, the kernels, instructions and the forms not lifted (with counts and
    /// the first reason); with `-o DIR`, `<n>-<arch>.ptx` holding the lifted kernels. Exit
    /// code 4 when a kernel was not lifted.
    Lift {
        /// `.whl`, ELF `.so` or `.cubin` files.
        #[arg(required = true)]
        inputs: Vec<PathBuf>,
        /// Write the lifted PTX modules here.
        #[arg(short = 'o', long)]
        out: Option<PathBuf>,
        /// Only cubins for this arch (`sm_80`); default every arch the lifter knows.
        #[arg(long)]
        arch: Option<String>,
        /// With `-o`: also write each cubin as `<n>-<arch>.cubin` (the input of nvdisasm).
        #[arg(long)]
        cubins: bool,
        /// Toolchain search options (`--tool nvdisasm=PATH`).
        #[command(flatten)]
        toolchain: ToolchainArgs,
    },
}

const SUBCOMMANDS: &[&str] = &[
    "convert", "inspect", "batch", "ptx", "sass", "doctor", "help",
];

/// Insert `convert` when the first argument is not a subcommand or a top-level flag, so
/// that `wheelport X.whl --target dtk` means `wheelport convert X.whl --target dtk`.
pub fn with_default_subcommand(args: Vec<OsString>) -> Vec<OsString> {
    let mut args = args;
    if let Some(first) = args.get(1).and_then(|a| a.to_str()) {
        let top_flag = matches!(first, "-h" | "--help" | "-V" | "--version");
        if !top_flag && !SUBCOMMANDS.contains(&first) {
            args.insert(1, OsString::from("convert"));
        }
    }
    args
}

/// Parse the process arguments (with the default subcommand applied).
pub fn parse_args() -> Cli {
    Cli::parse_from(with_default_subcommand(std::env::args_os().collect()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_subcommand_is_convert() {
        let a = |v: &[&str]| v.iter().map(OsString::from).collect::<Vec<_>>();
        let cli = Cli::try_parse_from(with_default_subcommand(a(&[
            "wheelport",
            "x.whl",
            "--target",
            "dtk",
        ])))
        .unwrap();
        match cli.command {
            Command::Convert { inputs, target, .. } => {
                assert_eq!(inputs, vec![PathBuf::from("x.whl")]);
                assert_eq!(target, "dtk");
            }
            other => panic!("parsed as {other:?}"),
        }
        let cli = Cli::try_parse_from(with_default_subcommand(a(&[
            "wheelport",
            "inspect",
            "--json",
            "y.so",
        ])))
        .unwrap();
        assert!(matches!(
            cli.command,
            Command::Inspect {
                json: true,
                kernels: false,
                ..
            }
        ));
        let cli = Cli::try_parse_from(with_default_subcommand(a(&[
            "wheelport",
            "ptx",
            "parse",
            "a.ptx",
        ])))
        .unwrap();
        assert!(matches!(cli.command, Command::Ptx { .. }));
    }
}
