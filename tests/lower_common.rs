//! Shared by the lowering tests (included with `#[path]`): the LLVM 19 device build of a
//! lowered module (llvm-link with the support library, opt, llc, ld.lld), the checks of its
//! code object / PTX against the PTX parameter layout, and PTX extraction from fixtures and the
//! corpus through wheelport's own fatbin reader.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use wheelport::lower::{KernelOutcome, LoweredModule, ParamLayout};

#[path = "common/mod.rs"]
pub mod common;
#[allow(unused_imports)]
pub use common::*;

/// An LLVM 19 tool ([`common::require_llvm_tool`]).
pub fn llvm19(name: &str) -> Option<PathBuf> {
    common::require_llvm_tool(name, "lower")
}

/// `ptxas` from `$WHEELPORT_CUDA_BIN` or PATH ([`common::require_tool`]).
pub fn ptxas() -> Option<PathBuf> {
    common::require_tool("ptxas", "lower")
}

/// Run a tool; `Err(stderr)` when it fails.
pub fn tool(cmd: &mut Command) -> Result<String, String> {
    let out = cmd.output().map_err(|e| format!("spawn {cmd:?}: {e}"))?;
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    } else {
        Err(format!(
            "{cmd:?} failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        ))
    }
}

/// The tools of the device build, all present (else `None` after a SKIP line).
pub struct Tools {
    pub link: PathBuf,
    pub opt: PathBuf,
    pub llc: PathBuf,
    pub lld: PathBuf,
    pub readelf: PathBuf,
}

pub fn tools() -> Option<Tools> {
    Some(Tools {
        link: llvm19("llvm-link")?,
        opt: llvm19("opt")?,
        llc: llvm19("llc")?,
        lld: llvm19("ld.lld")?,
        readelf: llvm19("llvm-readelf")?,
    })
}

/// Link `ir` with the support library, verify, optimise (-O3). Returns the optimised bitcode
/// path.
pub fn link_and_opt(
    t: &Tools,
    lm: &LoweredModule,
    dir: &Path,
    tag: &str,
) -> Result<PathBuf, String> {
    let ll = dir.join(format!("{tag}.ll"));
    std::fs::write(&ll, &lm.ir).unwrap();
    let linked = dir.join(format!("{tag}.linked.bc"));
    let lib = common::root().join(&lm.support_library);
    tool(
        Command::new(&t.link)
            .arg(&ll)
            .arg(&lib)
            .arg("-o")
            .arg(&linked),
    )?;
    tool(
        Command::new(&t.opt)
            .arg("-passes=verify")
            .arg(&linked)
            .arg("-disable-output"),
    )?;
    let opt = dir.join(format!("{tag}.opt.bc"));
    tool(
        Command::new(&t.opt)
            .arg("-O3")
            .arg(&linked)
            .arg("-o")
            .arg(&opt),
    )?;
    Ok(opt)
}

/// Build an amdgcn code object for `arch` (llc + ld.lld -shared). Returns its path.
pub fn build_amdgcn(
    t: &Tools,
    opt: &Path,
    dir: &Path,
    tag: &str,
    arch: &str,
) -> Result<PathBuf, String> {
    let obj = dir.join(format!("{tag}.{arch}.o"));
    tool(
        Command::new(&t.llc)
            .args([
                "-mtriple=amdgcn-amd-amdhsa",
                &format!("-mcpu={arch}"),
                "-filetype=obj",
                "-O3",
            ])
            .arg(opt)
            .arg("-o")
            .arg(&obj),
    )?;
    let co = dir.join(format!("{tag}.{arch}.co"));
    tool(
        Command::new(&t.lld)
            .arg("-shared")
            .arg(&obj)
            .arg("-o")
            .arg(&co),
    )?;
    Ok(co)
}

/// Kernel-argument metadata from `llvm-readelf --notes`: per kernel `.name`, its `.args`
/// `(offset, size)` list (hidden arguments excluded).
pub fn amdgpu_kernel_args(t: &Tools, co: &Path) -> Vec<(String, Vec<(u32, u32)>)> {
    let notes = tool(Command::new(&t.readelf).arg("--notes").arg(co)).expect("readelf --notes");
    // The YAML of NT_AMDGPU_METADATA: `- .args:` starts a kernel, args are `- .name/.offset/
    // .size/.value_kind` blocks, the kernel's `.name:` comes after its args.
    let mut out = Vec::new();
    let mut args: Vec<(u32, u32)> = Vec::new();
    let mut cur: Option<(u32, u32, String)> = None;
    let mut in_args = false;
    let flush = |cur: &mut Option<(u32, u32, String)>, args: &mut Vec<(u32, u32)>| {
        if let Some((o, s, k)) = cur.take() {
            if !k.starts_with("hidden_") {
                args.push((o, s));
            }
        }
    };
    for line in notes.lines() {
        let l = line.trim();
        let indent = line.len() - line.trim_start().len();
        if l.starts_with("- .args:") {
            in_args = true;
            args.clear();
            continue;
        }
        if in_args {
            if l.starts_with("- ") && indent >= 6 {
                flush(&mut cur, &mut args);
                cur = Some((0, 0, String::new()));
            }
            let kv = l.trim_start_matches("- ");
            if let Some((k, v)) = kv.split_once(':') {
                let v = v.trim();
                if indent >= 6 {
                    if let Some(c) = cur.as_mut() {
                        match k {
                            ".offset" => c.0 = v.parse().unwrap_or(0),
                            ".size" => c.1 = v.parse().unwrap_or(0),
                            ".value_kind" => c.2 = v.to_string(),
                            _ => {}
                        }
                    }
                } else {
                    flush(&mut cur, &mut args);
                    in_args = false;
                }
            }
        }
        if !in_args && indent == 4 && l.starts_with(".name:") {
            let name = l[".name:".len()..].trim().trim_start_matches("!str").trim();
            let name = name.trim_matches('\'').trim_matches('"').to_string();
            out.push((name, std::mem::take(&mut args)));
        }
    }
    out
}

/// Dynamic symbols of a code object (`llvm-readelf --dyn-syms`), names only.
pub fn symbols(t: &Tools, co: &Path) -> Vec<String> {
    let s = tool(Command::new(&t.readelf).arg("--dyn-syms").arg("-W").arg(co)).expect("readelf");
    s.lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            (f.len() >= 8 && f[0].ends_with(':')).then(|| f[7].to_string())
        })
        .collect()
}

/// Check a gfx906 code object against the lowered kernels: `name` and `name.kd` symbols and
/// the metadata `.args` equal to the PTX layout. Returns the failures.
pub fn check_amdgcn(t: &Tools, co: &Path, lm: &LoweredModule) -> Vec<String> {
    let syms = symbols(t, co);
    let meta = amdgpu_kernel_args(t, co);
    let mut errs = Vec::new();
    for k in lm
        .kernels
        .iter()
        .filter(|k| k.outcome == KernelOutcome::Lowered)
    {
        for s in [k.name.clone(), format!("{}.kd", k.name)] {
            if !syms.contains(&s) {
                errs.push(format!("{}: symbol {s} missing", co.display()));
            }
        }
        let want: Vec<(u32, u32)> = k.params.iter().map(|p| (p.offset, p.size)).collect();
        match meta.iter().find(|(n, _)| *n == k.name) {
            None => errs.push(format!("{}: no metadata for {}", co.display(), k.name)),
            Some((_, got)) if *got != want => errs.push(format!(
                "{}: {} args {got:?} != PTX layout {want:?}",
                co.display(),
                k.name
            )),
            _ => {}
        }
    }
    errs
}

/// llc for nvptx64 sm_80, then ptxas; returns the PTX text.
pub fn build_nvptx(t: &Tools, opt: &Path, dir: &Path, tag: &str) -> Result<String, String> {
    let ptx = dir.join(format!("{tag}.sm_80.ptx"));
    // As src/build/mod.rs: a module using mma.sp needs PTX ISA 8.5.
    let ir = std::fs::read(dir.join(format!("{tag}.ll"))).unwrap_or_default();
    let mattr = if ir.windows(12).any(|w| w == b"__wp_mma_sp_") {
        "-mattr=+ptx85"
    } else {
        "-mattr="
    };
    tool(
        Command::new(&t.llc)
            .args(["-march=nvptx64", "-mcpu=sm_80", "-O3", mattr])
            .arg(opt)
            .arg("-o")
            .arg(&ptx),
    )?;
    if let Some(p) = ptxas() {
        let cubin = dir.join(format!("{tag}.sm_80.cubin"));
        tool(
            Command::new(p)
                .arg("-arch=sm_80")
                .arg(&ptx)
                .arg("-o")
                .arg(&cubin),
        )?;
    }
    Ok(std::fs::read_to_string(&ptx).unwrap())
}

/// Check that llc's `.entry` parameter lists have the sizes and alignments of the original
/// PTX (so the original host code launches them unchanged).
pub fn check_nvptx(ptx: &str, lm: &LoweredModule) -> Vec<String> {
    let parsed = wheelport::ptx::parse(ptx, "llc.ptx");
    let mut errs = Vec::new();
    for k in lm
        .kernels
        .iter()
        .filter(|k| k.outcome == KernelOutcome::Lowered)
    {
        let Some(f) = parsed.module.function(&k.name) else {
            errs.push(format!("llc output lacks .entry {}", k.name));
            continue;
        };
        let got: Vec<(u32, u32, u32)> = wheelport::lower::param_layout(f)
            .iter()
            .map(|p| (p.offset, p.size, p.align))
            .collect();
        let want: Vec<(u32, u32, u32)> = k
            .params
            .iter()
            .map(|p| (p.offset, p.size, p.align))
            .collect();
        if got != want {
            errs.push(format!("{}: llc params {got:?} != PTX {want:?}", k.name));
        }
    }
    errs
}

/// The PTX modules of a shared object, through wheelport's fatbin reader: (tag, text).
pub fn ptx_of_object(data: &[u8], name: &str) -> Vec<(String, String)> {
    let so = wheelport::elf::scan(data, name).unwrap();
    let mut out = Vec::new();
    for (_, containers) in wheelport::fatbin::parse_object_sections(data, &so, name).unwrap() {
        for e in containers.iter().flat_map(|c| c.entries.iter()) {
            if e.kind() == wheelport::fatbin::EntryKind::Ptx {
                let text = String::from_utf8(e.ptx_bytes().unwrap().to_vec()).unwrap();
                out.push((format!("{}.{}", name.replace('/', "__"), out.len()), text));
            }
        }
    }
    out
}

/// A scratch directory for one test.
pub fn scratch(test: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("wheelport-{test}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// `params` as `(offset, size)`.
pub fn layout(p: &[ParamLayout]) -> Vec<(u32, u32)> {
    p.iter().map(|x| (x.offset, x.size)).collect()
}

/// Per kernel (by `.name`), the metadata lines of `llvm-readelf --notes` that describe the
/// kernel's interface and resources (the `.args` list included).
pub fn kernel_metadata(co: &[u8], dir: &Path) -> BTreeMap<String, Vec<String>> {
    let f = dir.join("k.co");
    std::fs::write(&f, co).unwrap();
    let readelf = common::find_tool("llvm-readelf-19")
        .or_else(|| common::find_tool("llvm-readelf"))
        .expect("llvm-readelf");
    let out = std::process::Command::new(readelf)
        .arg("--notes")
        .arg(&f)
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    // One metadata note (the partitions' notes merged), plus the padding note.
    assert_eq!(
        text.matches("NT_AMDGPU_METADATA").count(),
        1,
        "metadata notes:\n{text}"
    );
    let mut kernels = BTreeMap::new();
    // `amdhsa.kernels:` is a list of maps at indent 2 (`  - .args:`); their keys at indent 4.
    let Some(start) = text.find("amdhsa.kernels:") else {
        panic!("no amdhsa.kernels in the notes:\n{text}");
    };
    let body = &text[start..];
    let end = body.find("\namdhsa.target").unwrap_or(body.len());
    for item in body[..end].split("\n  - ").skip(1) {
        let mut lines: Vec<String> = Vec::new();
        let mut name = None;
        for l in item.lines() {
            let t = l.trim();
            if let Some(n) = l.strip_prefix("    .name:") {
                name = Some(n.trim().to_string());
            }
            // Argument entries and the resource keys; `.symbol` is `<name>.kd`.
            if !t.is_empty() && !t.starts_with(".symbol") {
                lines.push(t.to_string());
            }
        }
        kernels.insert(name.expect("every kernel has .name"), lines);
    }
    kernels
}
