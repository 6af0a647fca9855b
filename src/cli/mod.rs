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

/// Target GPU stacks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Target {
    /// Hygon DCU, DTK (HIP), wave64 gfx906/926/928.
    Dtk,
    /// AMD ROCm (HIP).
    Rocm,
    /// Moore Threads MUSA.
    Musa,
    /// The NVIDIA twin target: the same lowering built for nvptx64, to check conversions on
    /// an NVIDIA GPU (imports stay CUDA).
    Cuda,
}

impl Target {
    /// The profile name (`dtk`, `rocm`, `musa`, `cuda`).
    pub fn name(self) -> &'static str {
        match self {
            Target::Dtk => "dtk",
            Target::Rocm => "rocm",
            Target::Musa => "musa",
            Target::Cuda => "cuda",
        }
    }
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Convert wheels or shared objects for a target stack (the default subcommand).
    Convert {
        /// `.whl` files, ELF `.so` files, or directories holding them.
        #[arg(required = true)]
        inputs: Vec<PathBuf>,
        /// The target stack.
        #[arg(long, value_enum)]
        target: Target,
        /// Output directory (created if needed; default `wheelhouse`).
        #[arg(short = 'o', long, default_value = "wheelhouse")]
        out: PathBuf,
        /// Offload architectures to build device code for, comma-separated (default: the
        /// target profile's, e.g. gfx906 for dtk).
        #[arg(long = "offload-arch", value_delimiter = ',')]
        offload_arch: Vec<String>,
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
        #[arg(long, value_enum)]
        target: Option<Target>,
        /// A relink table (same format as `relink-tables/<target>/*.tsv`) whose rows win over
        /// the built-in ones; may be given several times. Needs `--target`.
        #[arg(long = "relink-table", requires = "target")]
        relink_tables: Vec<PathBuf>,
        /// Also write a self-contained HTML compatibility report to this file.
        #[arg(long, value_name = "REPORT.html")]
        html: Option<PathBuf>,
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
}

const SUBCOMMANDS: &[&str] = &["convert", "inspect", "ptx", "help"];

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
                assert_eq!(target, Target::Dtk);
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
