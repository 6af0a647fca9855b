//! Finding and running the external tools a target's device build needs (`llc`, `opt`,
//! `llvm-link`, `ld.lld`, ...; the list is the profile's [`Profile::tools`]).
//!
//! # Search order
//!
//! For each tool, the first hit wins:
//!
//! 1. a per-tool override ([`SearchOptions::overrides`], `--tool NAME=PATH`);
//! 2. the explicit toolchain directory ([`SearchOptions::toolchain_dir`], `--toolchain DIR`);
//! 3. the profile's environment variables ([`Profile::toolchain_env`], e.g. `DTK_PATH`, then
//!    `ROCM_PATH`), in order;
//! 4. the profile's fixed directories ([`Profile::toolchain_dirs`], e.g. `/opt/dtk`);
//! 5. `PATH`, including versioned names (`llc-19`), and the distributions' LLVM trees
//!    `/usr/lib/llvm-N/bin` (Debian, Ubuntu) and `/usr/lib64/llvmN/bin` (Fedora's versioned
//!    `llvmN` packages) ([`SearchOptions::system_roots`]). Here the newest LLVM major
//!    version wins, and a version that provides *every* still-missing tool is preferred over
//!    mixing versions.
//!
//! A directory `D` from steps 2–4 is searched as `D/bin`, `D/llvm/bin`, then `D` itself
//! (DTK installs its LLVM under `<dtk>/llvm/bin`).
//!
//! Every tool found is run once with `--version`; the first line that carries a version and
//! the parsed `major.minor.patch` are recorded (they go into the build cache key), and for
//! `llc` the registered targets (`amdgcn`, `nvptx64`), so that a `llc` without the target's
//! backend is reported, not used.
//!
//! What is missing comes with the command that installs it on this machine
//! ([`Toolchain::install`]): the distribution is read from `/etc/os-release` ([`Distro`]) and
//! the packages named for its package manager ([`Packager`]: `apt-get` on Debian and Ubuntu,
//! `dnf` on Fedora, RHEL and its rebuilds); [`Toolchain::vendor`] says where a vendor LLVM
//! (DTK, ROCm) is looked for instead. No PyPI package ships `llc`, `opt`, `llvm-link` and
//! `ld.lld` with the AMDGPU backend (see `docs/install.md`), so the hint is never a pip command
//! for these tools.
//!
//! Tools are always run with an argument vector ([`std::process::Command`]), never through a
//! shell; a failure becomes an [`ErrorKind::Toolchain`] error naming the module being built,
//! the tool and its stderr ([`run_tool`]).

use crate::error::{Error, ErrorKind, Result};
use crate::target::{Family, Profile};
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};
use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Where to look for tools, besides the profile's own lists.
#[derive(Clone, Debug, Default)]
pub struct SearchOptions {
    /// `--toolchain DIR`: searched before any environment variable.
    pub toolchain_dir: Option<PathBuf>,
    /// Per-tool overrides (`llc` → `/path/to/llc`), used as given (the file must be
    /// executable).
    pub overrides: BTreeMap<String, PathBuf>,
    /// The environment to read `toolchain_env` variables and `PATH` from; [`SearchOptions::from_env`]
    /// captures the process environment.
    pub env: HashMap<String, OsString>,
    /// Directories holding `llvm-N/bin` trees (default `["/usr/lib"]`).
    pub system_roots: Vec<PathBuf>,
    /// Replaces the profile's [`Profile::toolchain_dirs`] when set (tests use it; `None` in
    /// normal runs).
    pub fixed_dirs: Option<Vec<PathBuf>>,
    /// The distribution install commands are written for ([`Distro::detect`] in
    /// [`SearchOptions::from_env`]); `None`: commands for every [`Packager`] wheelport knows.
    pub distro: Option<Distro>,
}

impl SearchOptions {
    /// Options with the process environment captured, `/usr/lib` and `/usr/lib64` as the
    /// system roots and this machine's [`Distro`].
    pub fn from_env() -> SearchOptions {
        SearchOptions {
            env: std::env::vars_os()
                .filter_map(|(k, v)| Some((k.into_string().ok()?, v)))
                .collect(),
            system_roots: vec![PathBuf::from("/usr/lib"), PathBuf::from("/usr/lib64")],
            distro: Distro::detect(),
            ..Default::default()
        }
    }
}

/// The package manager whose commands install the tools.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Packager {
    /// Debian, Ubuntu and their derivatives (UOS, deepin): `apt-get`.
    Apt,
    /// Fedora, RHEL, CentOS Stream, Rocky, Alma, Oracle Linux, openEuler, Kylin Server: `dnf`.
    Dnf,
    /// Anything else: the hints name the packages for both.
    Unknown,
}

/// The Linux distribution, as `/etc/os-release` (os-release(5)) describes it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Distro {
    /// `ID` (`debian`, `fedora`, `rocky`).
    pub id: String,
    /// `ID_LIKE`, split at spaces (`rhel centos fedora`).
    pub id_like: Vec<String>,
    /// `VERSION_ID` (`12`, `9.4`); empty when absent.
    pub version_id: String,
    /// `PRETTY_NAME` (`Debian GNU/Linux 12 (bookworm)`); `ID` when absent.
    pub pretty_name: String,
    /// The package manager that follows from `ID` and `ID_LIKE`.
    pub packager: Packager,
}

impl Distro {
    /// Read an os-release text (`KEY=value` lines, values optionally quoted).
    pub fn from_os_release(text: &str) -> Distro {
        let get = |key: &str| {
            text.lines()
                .filter_map(|l| l.split_once('='))
                .find(|(k, _)| k.trim() == key)
                .map(|(_, v)| v.trim().trim_matches(|c| c == '"' || c == '\'').to_string())
                .unwrap_or_default()
        };
        let id = get("ID").to_ascii_lowercase();
        let id_like: Vec<String> = get("ID_LIKE")
            .split_whitespace()
            .map(str::to_ascii_lowercase)
            .collect();
        let is = |names: &[&str]| {
            std::iter::once(&id)
                .chain(&id_like)
                .any(|x| names.contains(&x.as_str()))
        };
        let packager = if is(&["debian", "ubuntu", "uos", "deepin"]) {
            Packager::Apt
        } else if is(&[
            "fedora",
            "rhel",
            "centos",
            "rocky",
            "almalinux",
            "ol",
            "openeuler",
            "kylin",
            "anolis",
        ]) {
            Packager::Dnf
        } else {
            Packager::Unknown
        };
        let pretty = get("PRETTY_NAME");
        Distro {
            pretty_name: if pretty.is_empty() {
                id.clone()
            } else {
                pretty
            },
            id,
            id_like,
            version_id: get("VERSION_ID"),
            packager,
        }
    }

    /// This machine's distribution: `/etc/os-release`, else `/usr/lib/os-release`; `None`
    /// when neither can be read.
    pub fn detect() -> Option<Distro> {
        ["/etc/os-release", "/usr/lib/os-release"]
            .iter()
            .find_map(|p| std::fs::read_to_string(p).ok())
            .map(|t| Distro::from_os_release(&t))
    }
}

/// How a tool was found (the search step of the module docs).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "by", rename_all = "snake_case")]
pub enum FoundBy {
    /// A per-tool override.
    Override,
    /// Under `--toolchain DIR`.
    ToolchainOption {
        /// The directory given.
        dir: PathBuf,
    },
    /// Under the directory an environment variable names.
    Env {
        /// The variable (`DTK_PATH`).
        var: String,
        /// Its value.
        dir: PathBuf,
    },
    /// Under one of the profile's fixed directories.
    Dir {
        /// The directory (`/opt/dtk`).
        dir: PathBuf,
    },
    /// On `PATH` or in a system LLVM tree.
    Path,
}

/// A tool version, `major.minor.patch` as printed by `--version`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct Version {
    /// Major (19 in `19.1.7`).
    pub major: u32,
    /// Minor.
    pub minor: u32,
    /// Patch.
    pub patch: u32,
}

impl std::fmt::Display for Version {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)
    }
}

/// One tool that was found.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Tool {
    /// The base name the profile asks for (`llc`).
    pub name: String,
    /// The executable (`/usr/lib/llvm-19/bin/llc`, `/usr/bin/llc-19`).
    pub path: PathBuf,
    /// How it was found.
    pub found_by: FoundBy,
    /// The first line of `--version` output that names a version (e.g.
    /// `Debian LLVM version 19.1.7`); empty when the tool printed none.
    pub version_line: String,
    /// The parsed version, when the line has one.
    pub version: Option<Version>,
    /// For `llc`: the registered targets (`amdgcn`, `nvptx64`, ...); empty for other tools.
    pub targets: Vec<String>,
}

/// A tool that was not found (or found unusable), with how to get it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Missing {
    /// The base name.
    pub name: String,
    /// Why it counts as missing (not found, or found without the target's backend).
    pub reason: String,
    /// How to install it (Debian/Ubuntu package names, or the vendor toolkit).
    pub install: String,
}

/// The tools found for one target profile.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Toolchain {
    /// The profile name (`dtk`).
    pub target: String,
    /// The tools found, in the profile's order.
    pub tools: Vec<Tool>,
    /// The tools not found or not usable.
    pub missing: Vec<Missing>,
    /// Commands that install every missing tool on this machine ([`install_commands`]);
    /// empty when nothing is missing.
    pub install: Vec<String>,
    /// Where a vendor toolchain is looked for instead, in search order (the profile's
    /// environment variables and directories); empty when nothing is missing.
    pub vendor: Vec<String>,
    /// The distribution the commands are for, when known.
    pub distro: Option<Distro>,
}

impl Toolchain {
    /// The tool named `name`, if it was found.
    pub fn tool(&self, name: &str) -> Option<&Tool> {
        self.tools.iter().find(|t| t.name == name)
    }

    /// The tool named `name`, or an [`ErrorKind::Toolchain`] error naming `module`, the tool
    /// and how to install it.
    ///
    /// # Errors
    /// When the tool is missing or unusable.
    pub fn require(&self, name: &str, module: &str) -> Result<&Tool> {
        if let Some(t) = self.tool(name) {
            return Ok(t);
        }
        let why = self
            .missing
            .iter()
            .find(|m| m.name == name)
            .map(|m| format!("{}; install: {}", m.reason, m.install))
            .unwrap_or_else(|| format!("install: {}", install_hint(name)));
        Err(Error::new(
            ErrorKind::Toolchain,
            module,
            format!(
                "`{name}` is needed for the {} device build: {why} (or pass --toolchain DIR)",
                self.target
            ),
        ))
    }

    /// True when every tool of the profile was found and usable.
    pub fn is_complete(&self) -> bool {
        self.missing.is_empty()
    }

    /// A stable text naming every tool, its path and version line (part of the build cache
    /// key: a different compiler gives a different key).
    pub fn fingerprint(&self) -> String {
        let mut s = String::new();
        for t in &self.tools {
            s.push_str(&format!(
                "{}\t{}\t{}\n",
                t.name,
                t.path.display(),
                t.version_line
            ));
        }
        s
    }
}

/// The package that provides `tool` for `packager` (`llc` → `llvm-19` on apt, `llvm` on
/// dnf), or `None` when no distribution packages it (`mcc`, `ptxas`).
pub fn package_for(tool: &str, packager: Packager) -> Option<&'static str> {
    let apt = match tool {
        "llc" | "opt" | "llvm-link" | "llvm-split" | "llvm-readelf" | "llvm-objdump" | "lli" => {
            ("llvm-19", "llvm")
        }
        "ld.lld" => ("lld-19", "lld"),
        "clang-offload-bundler" => ("clang-tools-19", "clang"),
        "clang" => ("clang-19", "clang"),
        _ => return None,
    };
    match packager {
        Packager::Apt => Some(apt.0),
        Packager::Dnf => Some(apt.1),
        Packager::Unknown => None,
    }
}

/// How to install `tool` with `packager`; for [`Packager::Unknown`], the apt and the dnf
/// package both. Tools no distribution packages name where they come from.
pub fn install_hint_for(tool: &str, packager: Packager) -> String {
    match tool {
        "nvdisasm" => {
            return "pip install nvidia-cuda-nvdisasm (CUDA 13.5, bin/ under nvidia/cu13), or set WHEELPORT_NVDISASM"
                .into()
        }
        "mcc" => {
            return "the Moore Threads MUSA toolkit (not packaged by distributions; set MUSA_HOME)"
                .into()
        }
        "ptxas" | "cuobjdump" => {
            return "pip install nvidia-cuda-nvcc nvidia-cuda-cuobjdump (CUDA 13.5, bin/ under nvidia/cu13)"
                .into()
        }
        _ => {}
    }
    match packager {
        Packager::Unknown => match (
            package_for(tool, Packager::Apt),
            package_for(tool, Packager::Dnf),
        ) {
            (Some(a), Some(d)) => {
                format!("apt-get install {a} (Debian, Ubuntu) or dnf install {d} (Fedora, RHEL)")
            }
            _ => format!("a package providing `{tool}`"),
        },
        p => match package_for(tool, p) {
            Some(pkg) if p == Packager::Apt && pkg.starts_with("llvm-") => {
                format!("apt-get install {pkg} (provides /usr/lib/{pkg}/bin/{tool})")
            }
            Some(pkg) if p == Packager::Apt => format!("apt-get install {pkg}"),
            Some(pkg) => format!("dnf install {pkg}"),
            None => format!("a package providing `{tool}`"),
        },
    }
}

/// How to install `tool` where the distribution is not known: the Debian/Ubuntu package (the
/// ones `.ci/run` uses) and the Fedora/RHEL one ([`install_hint_for`] with
/// [`Packager::Unknown`]).
pub fn install_hint(tool: &str) -> String {
    install_hint_for(tool, Packager::Unknown)
}

/// The commands (run as root) that install the distribution packages of `tools`, one per
/// package manager: `apt-get install -y llvm-19 lld-19` on Debian and Ubuntu, `dnf install -y
/// llvm lld` on RPM-based distributions, both when the distribution is unknown. Tools that no
/// distribution packages are left out (their [`Missing::install`] says where they come from).
pub fn install_commands(tools: &[&str], packager: Packager) -> Vec<String> {
    let managers: &[Packager] = match packager {
        Packager::Unknown => &[Packager::Apt, Packager::Dnf],
        Packager::Apt => &[Packager::Apt],
        Packager::Dnf => &[Packager::Dnf],
    };
    let mut out = Vec::new();
    for &m in managers {
        let mut pkgs: Vec<&str> = tools.iter().filter_map(|t| package_for(t, m)).collect();
        pkgs.dedup();
        pkgs.sort_unstable();
        pkgs.dedup();
        if pkgs.is_empty() {
            continue;
        }
        let cmd = match m {
            Packager::Apt => "apt-get install -y",
            _ => "dnf install -y",
        };
        out.push(format!("{cmd} {}", pkgs.join(" ")));
    }
    out
}

/// The LLVM backend name `llc --version` lists for a family (`amdgcn`, `nvptx64`).
pub fn backend_of(family: Family) -> Option<&'static str> {
    family.backend().llvm_backend()
}

fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// Directories to try under a toolchain root: `D/bin`, `D/llvm/bin`, `D`.
fn under_root(d: &Path) -> [PathBuf; 3] {
    [d.join("bin"), d.join("llvm/bin"), d.to_path_buf()]
}

fn find_under(d: &Path, name: &str) -> Option<PathBuf> {
    under_root(d)
        .into_iter()
        .map(|x| x.join(name))
        .find(|p| is_executable(p))
}

/// Parse the first `N.N[.N]` after the word `version` (LLVM tools) or `LLD` (ld.lld).
fn parse_version(line: &str) -> Option<Version> {
    let lower = line.to_ascii_lowercase();
    let start = ["version ", "lld "]
        .iter()
        .filter_map(|k| lower.find(k).map(|i| i + k.len()))
        .min()?;
    let rest = &line[start..];
    let num: String = rest
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '.')
        .collect();
    let mut it = num.split('.').filter(|s| !s.is_empty());
    let major = it.next()?.parse().ok()?;
    let minor = it.next().and_then(|s| s.parse().ok()).unwrap_or(0);
    let patch = it.next().and_then(|s| s.parse().ok()).unwrap_or(0);
    Some(Version {
        major,
        minor,
        patch,
    })
}

/// Run `path --version` and return (version line, version, registered targets).
fn probe(path: &Path) -> (String, Option<Version>, Vec<String>) {
    let out = match child_command(path).arg("--version").output() {
        Ok(o) => o,
        Err(_) => return (String::new(), None, Vec::new()),
    };
    let text = format!(
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let line = text
        .lines()
        .map(str::trim)
        .find(|l| parse_version(l).is_some())
        .unwrap_or("")
        .to_string();
    let version = parse_version(&line);
    let mut targets = Vec::new();
    let mut in_targets = false;
    for l in text.lines() {
        if l.trim_start().starts_with("Registered Targets:") {
            in_targets = true;
            continue;
        }
        if in_targets {
            match l.split_once(" - ") {
                Some((name, _)) if !name.trim().is_empty() => targets.push(name.trim().to_string()),
                _ => in_targets = false,
            }
        }
    }
    (line, version, targets)
}

/// The LLVM major version a path's name or directory tells (`llc-19`, `/usr/lib/llvm-19/bin`).
fn major_from_path(p: &Path, name: &str) -> Option<u32> {
    let file = p.file_name()?.to_str()?;
    if let Some(v) = file.strip_prefix(name).and_then(|s| s.strip_prefix('-')) {
        if let Ok(n) = v.parse() {
            return Some(n);
        }
    }
    let canon = std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    canon
        .components()
        .rev()
        .find_map(|c| llvm_tree_major(c.as_os_str().to_str()?))
}

/// The major version a distribution's LLVM tree is named with: `llvm-19` (Debian, Ubuntu),
/// `llvm19` (Fedora's versioned packages under `/usr/lib64`).
fn llvm_tree_major(dir_name: &str) -> Option<u32> {
    let v = dir_name.strip_prefix("llvm")?;
    v.strip_prefix('-').unwrap_or(v).parse().ok()
}

/// Candidates for `name` in the PATH step, with their major version (unknown = 0), in search
/// order.
/// One LLVM tool (`llvm-readelf`, `clang`, `lli`, ...) of LLVM major version `major`, found
/// the way [`discover`] searches `PATH` (versioned names such as `llvm-readelf-19` too) and the
/// Debian/Ubuntu trees `/usr/lib/llvm-N/bin` ([`SearchOptions::system_roots`]): the first
/// candidate of that major version.
pub fn find_llvm_tool(name: &str, major: u32, opts: &SearchOptions) -> Option<PathBuf> {
    if let Some(p) = opts.overrides.get(name) {
        return Some(p.clone());
    }
    path_candidates(name, opts)
        .into_iter()
        .find(|(_, v)| *v == major)
        .map(|(p, _)| p)
}

fn path_candidates(name: &str, opts: &SearchOptions) -> Vec<(PathBuf, u32)> {
    let mut dirs: Vec<PathBuf> = opts
        .env
        .get("PATH")
        .map(|p| std::env::split_paths(p).collect())
        .unwrap_or_default();
    for root in &opts.system_roots {
        let mut trees: Vec<(u32, PathBuf)> = std::fs::read_dir(root)
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|e| {
                let n = e.file_name().into_string().ok()?;
                Some((llvm_tree_major(&n)?, e.path().join("bin")))
            })
            .collect();
        trees.sort_by_key(|t| std::cmp::Reverse(t.0));
        dirs.extend(trees.into_iter().map(|(_, d)| d));
    }
    let mut out: Vec<(PathBuf, u32)> = Vec::new();
    let prefix = format!("{name}-");
    for d in dirs {
        let plain = d.join(name);
        if is_executable(&plain) {
            let v = major_from_path(&plain, name)
                .or_else(|| probe(&plain).1.map(|v| v.major))
                .unwrap_or(0);
            out.push((plain, v));
        }
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let Ok(n) = e.file_name().into_string() else {
                continue;
            };
            if let Some(v) = n.strip_prefix(&prefix).and_then(|s| s.parse::<u32>().ok()) {
                if is_executable(&e.path()) {
                    out.push((e.path(), v));
                }
            }
        }
    }
    // Same file reached twice (/usr/bin/llc-19 and /usr/lib/llvm-19/bin/llc) is kept once.
    let mut seen = std::collections::HashSet::new();
    out.retain(|(p, _)| seen.insert(std::fs::canonicalize(p).unwrap_or_else(|_| p.clone())));
    out
}

/// Find the tools of `profile` (see the module docs for the order).
///
/// Never fails: what is not found is listed in [`Toolchain::missing`] with an install hint.
/// A `llc` whose `--version` does not list the profile's backend counts as missing.
pub fn discover(profile: &Profile, opts: &SearchOptions) -> Toolchain {
    let mut found: BTreeMap<String, (PathBuf, FoundBy)> = BTreeMap::new();
    let env_dirs: Vec<(String, PathBuf)> = profile
        .toolchain_env
        .iter()
        .filter_map(|v| {
            let d = opts.env.get(v)?;
            (!d.is_empty()).then(|| (v.clone(), PathBuf::from(d)))
        })
        .collect();
    let fixed: Vec<PathBuf> = opts
        .fixed_dirs
        .clone()
        .unwrap_or_else(|| profile.toolchain_dirs.iter().map(PathBuf::from).collect());
    for name in profile.tools.iter().chain(&profile.optional_tools) {
        if let Some(p) = opts.overrides.get(name) {
            found.insert(name.clone(), (p.clone(), FoundBy::Override));
            continue;
        }
        if let Some(d) = &opts.toolchain_dir {
            if let Some(p) = find_under(d, name) {
                let by = FoundBy::ToolchainOption { dir: d.clone() };
                found.insert(name.clone(), (p, by));
                continue;
            }
        }
        if let Some((var, d, p)) = env_dirs
            .iter()
            .find_map(|(v, d)| find_under(d, name).map(|p| (v, d, p)))
        {
            let by = FoundBy::Env {
                var: var.clone(),
                dir: d.clone(),
            };
            found.insert(name.clone(), (p, by));
            continue;
        }
        if let Some((d, p)) = fixed
            .iter()
            .find_map(|d| find_under(d, name).map(|p| (d, p)))
        {
            found.insert(name.clone(), (p, FoundBy::Dir { dir: d.clone() }));
        }
    }
    // PATH step for the rest: prefer the newest major that has all of them.
    let rest: Vec<&String> = profile
        .tools
        .iter()
        .filter(|n| !found.contains_key(*n))
        .collect();
    let mut path_major = None;
    if !rest.is_empty() {
        let cands: Vec<Vec<(PathBuf, u32)>> =
            rest.iter().map(|n| path_candidates(n, opts)).collect();
        let mut majors: Vec<u32> = cands.iter().flatten().map(|(_, v)| *v).collect();
        majors.sort_unstable_by(|a, b| b.cmp(a));
        majors.dedup();
        let common = majors
            .into_iter()
            .find(|m| cands.iter().all(|c| c.iter().any(|(_, v)| v == m)));
        path_major = common;
        for (name, c) in rest.iter().zip(&cands) {
            let pick = match common {
                Some(m) => c.iter().find(|(_, v)| *v == m),
                // Newest first; ties keep PATH order.
                None => c
                    .iter()
                    .max_by(|a, b| a.1.cmp(&b.1).then(std::cmp::Ordering::Greater)),
            };
            if let Some((p, _)) = pick {
                found.insert((*name).clone(), (p.clone(), FoundBy::Path));
            }
        }
    }
    // Optional tools from PATH: only in the major version of the required tools found there
    // (bitcode from one LLVM major is not read by another).
    let major = path_major;
    for name in &profile.optional_tools {
        if found.contains_key(name) {
            continue;
        }
        if let Some(m) = major {
            if let Some((p, _)) = path_candidates(name, opts)
                .into_iter()
                .find(|(_, v)| *v == m)
            {
                found.insert(name.clone(), (p, FoundBy::Path));
            }
        }
    }
    let backend = backend_of(profile.family);
    let packager = opts
        .distro
        .as_ref()
        .map_or(Packager::Unknown, |d| d.packager);
    let install_hint = |name: &str| install_hint_for(name, packager);
    let mut tools = Vec::new();
    let mut missing = Vec::new();
    for name in &profile.tools {
        let Some((path, by)) = found.remove(name) else {
            missing.push(Missing {
                name: name.clone(),
                reason: "not found".into(),
                install: install_hint(name),
            });
            continue;
        };
        if !is_executable(&path) {
            missing.push(Missing {
                name: name.clone(),
                reason: format!("{} is not an executable file", path.display()),
                install: install_hint(name),
            });
            continue;
        }
        let (version_line, version, targets) = probe(&path);
        if name == "llc" {
            if let Some(b) = backend {
                if !targets.iter().any(|t| t == b) {
                    missing.push(Missing {
                        name: name.clone(),
                        reason: format!(
                            "{} does not list the `{b}` backend in `--version` (registered: {})",
                            path.display(),
                            if targets.is_empty() {
                                "none".to_string()
                            } else {
                                targets.join(" ")
                            }
                        ),
                        install: install_hint(name),
                    });
                    continue;
                }
            }
        }
        tools.push(Tool {
            name: name.clone(),
            path,
            found_by: by,
            version_line,
            version,
            targets,
        });
    }
    for name in &profile.optional_tools {
        let Some((path, by)) = found.remove(name) else {
            continue;
        };
        if is_executable(&path) {
            let (version_line, version, targets) = probe(&path);
            tools.push(Tool {
                name: name.clone(),
                path,
                found_by: by,
                version_line,
                version,
                targets,
            });
        }
    }
    let names: Vec<&str> = missing.iter().map(|m| m.name.as_str()).collect();
    let install = install_commands(&names, packager);
    let vendor = if missing.is_empty() {
        Vec::new()
    } else {
        profile
            .toolchain_env
            .iter()
            .map(|v| format!("${v}"))
            .chain(profile.toolchain_dirs.iter().cloned())
            .collect()
    };
    Toolchain {
        target: profile.name.clone(),
        tools,
        missing,
        install,
        vendor,
        distro: opts.distro.clone(),
    }
}

/// The environment variable naming the `nvdisasm` executable (the SASS decoder,
/// [`discover_nvdisasm`]).
pub const NVDISASM_ENV: &str = "WHEELPORT_NVDISASM";

/// Environment variables naming a CUDA toolkit root or `bin` directory searched for
/// `nvdisasm` after [`NVDISASM_ENV`], in order.
pub const CUDA_DIR_ENV: [&str; 3] = ["WHEELPORT_CUDA_BIN", "CUDA_HOME", "CUDA_PATH"];

/// Find NVIDIA's `nvdisasm`, the decoder of SASS-only kernels ([`crate::sass`]; PyPI
/// `nvidia-cuda-nvdisasm`).
///
/// Search order, first hit wins: the `--tool nvdisasm=PATH` override; the file named by
/// `$WHEELPORT_NVDISASM`; `nvdisasm` under `--toolchain DIR`; under the directories of
/// `$WHEELPORT_CUDA_BIN`, `$CUDA_HOME`, `$CUDA_PATH` (each as `D/bin`, `D`); then `PATH`.
/// The tool is probed with `--version` like the LLVM tools.
///
/// # Errors
/// A [`Missing`] with the reason and the install hint when no executable is found.
pub fn discover_nvdisasm(opts: &SearchOptions) -> std::result::Result<Tool, Missing> {
    let name = "nvdisasm";
    let missing = |reason: String| Missing {
        name: name.to_string(),
        reason,
        install: install_hint(name),
    };
    let mut hit: Option<(PathBuf, FoundBy)> = opts
        .overrides
        .get(name)
        .map(|p| (p.clone(), FoundBy::Override));
    if hit.is_none() {
        if let Some(v) = opts.env.get(NVDISASM_ENV).filter(|v| !v.is_empty()) {
            let p = PathBuf::from(v);
            if !is_executable(&p) {
                return Err(missing(format!(
                    "${NVDISASM_ENV}={} is not an executable file",
                    p.display()
                )));
            }
            let dir = p.parent().map(Path::to_path_buf).unwrap_or_default();
            hit = Some((
                p,
                FoundBy::Env {
                    var: NVDISASM_ENV.to_string(),
                    dir,
                },
            ));
        }
    }
    if hit.is_none() {
        if let Some(d) = &opts.toolchain_dir {
            hit = find_under(d, name).map(|p| (p, FoundBy::ToolchainOption { dir: d.clone() }));
        }
    }
    if hit.is_none() {
        hit = CUDA_DIR_ENV.iter().find_map(|var| {
            let d = PathBuf::from(opts.env.get(*var).filter(|v| !v.is_empty())?);
            let p = find_under(&d, name)?;
            Some((
                p,
                FoundBy::Env {
                    var: var.to_string(),
                    dir: d,
                },
            ))
        });
    }
    if hit.is_none() {
        hit = opts
            .env
            .get("PATH")
            .into_iter()
            .flat_map(std::env::split_paths)
            .map(|d| d.join(name))
            .find(|p| is_executable(p))
            .map(|p| (p, FoundBy::Path));
    }
    let Some((path, found_by)) = hit else {
        return Err(missing("not found".into()));
    };
    if !is_executable(&path) {
        return Err(missing(format!(
            "{} is not an executable file",
            path.display()
        )));
    }
    let (mut version_line, mut version, _) = probe(&path);
    if version.is_none() {
        // NVIDIA tools print `Cuda compilation tools, release 13.5, V13.5.37`.
        if let Ok(o) = child_command(&path).arg("--version").output() {
            let text = String::from_utf8_lossy(&o.stdout).into_owned();
            if let Some(l) = text.lines().find(|l| l.contains("release ")) {
                version_line = l.trim().to_string();
                version = l
                    .rsplit_once(", V")
                    .and_then(|(_, v)| parse_version(&format!("version {v}")));
            }
        }
    }
    Ok(Tool {
        name: name.to_string(),
        path,
        found_by,
        version_line,
        version,
        targets: Vec::new(),
    })
}

/// The `wheelport doctor` line for the SASS decoder ([`discover_nvdisasm`]).
pub fn render_nvdisasm(found: &std::result::Result<Tool, Missing>) -> String {
    let what = "SASS decoder (wheelport sass lift, inspect --untranslatable of SASS-only kernels)";
    match found {
        Ok(t) => {
            let how = match &t.found_by {
                FoundBy::Override => "override".to_string(),
                FoundBy::ToolchainOption { dir } => format!("--toolchain {}", dir.display()),
                FoundBy::Env { var, dir } => format!("${var}={}", dir.display()),
                FoundBy::Dir { dir } => format!("{}", dir.display()),
                FoundBy::Path => "PATH".to_string(),
            };
            let ver = t
                .version
                .map(|v| v.to_string())
                .unwrap_or_else(|| "unknown version".into());
            format!(
                "{what}: ready\n  {:<22} {} ({ver}, via {how})\n",
                t.name,
                t.path.display()
            )
        }
        Err(m) => format!(
            "{what}: MISSING\n  {:<22} MISSING: {}; install: {}\n",
            m.name, m.reason, m.install
        ),
    }
}

/// Run `tool` with `args` (no shell) and return its stdout.
///
/// # Errors
/// [`ErrorKind::Toolchain`] naming `module`, the tool and its path when it cannot be started
/// or exits non-zero; the message carries the exit status and stderr (last 4000 bytes).
pub fn run_tool<S: AsRef<OsStr>>(tool: &Tool, args: &[S], module: &str) -> Result<Vec<u8>> {
    run_tool_output(tool, args, module).map(|(out, _)| out)
}

/// A [`Command`] for an external tool or child converter that is killed (SIGKILL) when
/// the wheelport thread that started it dies, so that a killed `wheelport batch` or
/// `convert` leaves no orphan still writing into its temporary directories
/// (Linux `prctl(PR_SET_PDEATHSIG)`, prctl(2); elsewhere a plain [`Command`]).
pub fn child_command<S: AsRef<OsStr>>(program: S) -> Command {
    #[allow(unused_mut)]
    let mut cmd = Command::new(program);
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::process::CommandExt;
        // SAFETY: the closure runs between fork and exec and only calls the
        // async-signal-safe prctl(2) and getppid(2).
        let parent = std::process::id() as libc::pid_t;
        unsafe {
            cmd.pre_exec(move || {
                if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                // The parent may have died between fork and prctl.
                if libc::getppid() != parent {
                    libc::_exit(137);
                }
                Ok(())
            });
        }
    }
    cmd
}

/// As [`run_tool`], returning (stdout, stderr) of a successful run (LLVM tools print
/// warnings such as "is not a recognized processor" on stderr and still exit 0).
///
/// # Errors
/// As [`run_tool`].
pub fn run_tool_output<S: AsRef<OsStr>>(
    tool: &Tool,
    args: &[S],
    module: &str,
) -> Result<(Vec<u8>, String)> {
    let out = child_command(&tool.path).args(args).output().map_err(|e| {
        Error::new(
            ErrorKind::Toolchain,
            module,
            format!("cannot run `{}` ({}): {e}", tool.name, tool.path.display()),
        )
    })?;
    if !out.status.success() {
        let stderr = String::from_utf8_lossy(&out.stderr);
        let tail = if stderr.len() > 4000 {
            let cut = stderr.len() - 4000;
            let cut = (cut..stderr.len())
                .find(|&i| stderr.is_char_boundary(i))
                .unwrap_or(stderr.len());
            &stderr[cut..]
        } else {
            &stderr[..]
        };
        return Err(Error::new(
            ErrorKind::Toolchain,
            module,
            format!(
                "`{}` failed ({}, {}): {}",
                tool.name,
                tool.path.display(),
                out.status,
                tail.trim_end()
            ),
        ));
    }
    Ok((
        out.stdout,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    ))
}

/// The human-readable `wheelport doctor` report for `chains` (one per target): what was
/// found (path, version, how), what is missing, the commands that install it on this
/// distribution ([`Toolchain::install`]) and where a vendor toolchain is looked for
/// ([`Toolchain::vendor`]).
pub fn render_doctor(chains: &[Toolchain]) -> String {
    let mut s = String::new();
    for tc in chains {
        let desc = crate::target::profile(&tc.target)
            .map(|p| p.description.as_str())
            .unwrap_or("");
        let state = if tc.is_complete() {
            "ready"
        } else {
            "INCOMPLETE"
        };
        s.push_str(&format!("{} ({desc}): {state}\n", tc.target));
        for t in &tc.tools {
            let how = match &t.found_by {
                FoundBy::Override => "override".to_string(),
                FoundBy::ToolchainOption { dir } => format!("--toolchain {}", dir.display()),
                FoundBy::Env { var, dir } => format!("${var}={}", dir.display()),
                FoundBy::Dir { dir } => format!("{}", dir.display()),
                FoundBy::Path => "PATH".to_string(),
            };
            let ver = t
                .version
                .map(|v| v.to_string())
                .unwrap_or_else(|| "unknown version".into());
            s.push_str(&format!(
                "  {:<22} {} ({ver}, via {how})\n",
                t.name,
                t.path.display()
            ));
        }
        for m in &tc.missing {
            s.push_str(&format!(
                "  {:<22} MISSING: {}; install: {}\n",
                m.name, m.reason, m.install
            ));
        }
        let on = tc
            .distro
            .as_ref()
            .map(|d| format!(" on {}", d.pretty_name))
            .unwrap_or_default();
        for c in &tc.install {
            s.push_str(&format!("  install{on} (as root): {c}\n"));
        }
        if !tc.vendor.is_empty() {
            s.push_str(&format!(
                "  or a vendor toolchain, searched first: {} (or --toolchain DIR)\n",
                tc.vendor.join(", ")
            ));
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_parse_from_real_banners() {
        let v = |s| parse_version(s).map(|v| v.to_string());
        assert_eq!(v("Debian LLVM version 19.1.7").as_deref(), Some("19.1.7"));
        assert_eq!(
            v("Debian LLD 19.1.7 (compatible with GNU linkers)").as_deref(),
            Some("19.1.7")
        );
        assert_eq!(v("Ubuntu LLVM version 14.0.0").as_deref(), Some("14.0.0"));
        assert_eq!(v("  Optimized build."), None);
    }

    /// os-release(5) texts as these distributions ship them (trimmed to the keys read).
    const DEBIAN_12: &str = "PRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\nNAME=\"Debian GNU/Linux\"\nVERSION_ID=\"12\"\nVERSION=\"12 (bookworm)\"\nVERSION_CODENAME=bookworm\nID=debian\n";
    const UBUNTU_24: &str = "PRETTY_NAME=\"Ubuntu 24.04.1 LTS\"\nNAME=\"Ubuntu\"\nVERSION_ID=\"24.04\"\nID=ubuntu\nID_LIKE=debian\n";
    const FEDORA_41: &str = "NAME=\"Fedora Linux\"\nVERSION=\"41 (Forty One)\"\nID=fedora\nVERSION_ID=41\nPRETTY_NAME=\"Fedora Linux 41 (Forty One)\"\n";
    const ROCKY_9: &str = "NAME=\"Rocky Linux\"\nVERSION=\"9.4 (Blue Onyx)\"\nID=\"rocky\"\nID_LIKE=\"rhel centos fedora\"\nVERSION_ID=\"9.4\"\nPRETTY_NAME=\"Rocky Linux 9.4 (Blue Onyx)\"\n";
    const KYLIN_V10: &str = "NAME=\"Kylin Linux Advanced Server\"\nVERSION=\"V10 (Lance)\"\nID=\"kylin\"\nVERSION_ID=\"V10\"\nPRETTY_NAME=\"Kylin Linux Advanced Server V10 (Lance)\"\n";
    const ARCH: &str = "NAME=\"Arch Linux\"\nPRETTY_NAME=\"Arch Linux\"\nID=arch\n";

    #[test]
    fn distributions_map_to_their_package_manager() {
        let d = Distro::from_os_release(DEBIAN_12);
        assert_eq!(
            (d.id.as_str(), d.version_id.as_str(), d.packager),
            ("debian", "12", Packager::Apt)
        );
        assert_eq!(d.pretty_name, "Debian GNU/Linux 12 (bookworm)");
        assert_eq!(Distro::from_os_release(UBUNTU_24).packager, Packager::Apt);
        assert_eq!(Distro::from_os_release(FEDORA_41).packager, Packager::Dnf);
        let r = Distro::from_os_release(ROCKY_9);
        assert_eq!(r.id_like, ["rhel", "centos", "fedora"]);
        assert_eq!(r.packager, Packager::Dnf);
        assert_eq!(Distro::from_os_release(KYLIN_V10).packager, Packager::Dnf);
        assert_eq!(Distro::from_os_release(ARCH).packager, Packager::Unknown);
    }

    #[test]
    fn install_commands_name_each_package_once() {
        let dtk = ["llc", "ld.lld", "opt", "llvm-link"];
        assert_eq!(
            install_commands(&dtk, Packager::Apt),
            ["apt-get install -y lld-19 llvm-19"]
        );
        assert_eq!(
            install_commands(&dtk, Packager::Dnf),
            ["dnf install -y lld llvm"]
        );
        assert_eq!(
            install_commands(&dtk[2..], Packager::Unknown),
            ["apt-get install -y llvm-19", "dnf install -y llvm"]
        );
        assert!(install_commands(&["mcc"], Packager::Apt).is_empty());
        assert_eq!(install_hint_for("ld.lld", Packager::Dnf), "dnf install lld");
        assert_eq!(
            install_hint_for("opt", Packager::Apt),
            "apt-get install llvm-19 (provides /usr/lib/llvm-19/bin/opt)"
        );
    }

    #[test]
    fn llvm_trees_of_debian_and_fedora() {
        assert_eq!(llvm_tree_major("llvm-19"), Some(19));
        assert_eq!(llvm_tree_major("llvm19"), Some(19));
        assert_eq!(llvm_tree_major("llvm"), None);
        assert_eq!(llvm_tree_major("llvm-config"), None);
    }
}
