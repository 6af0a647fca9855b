//! Static figures of one kernel in an AMDGPU code object: the NT_AMDGPU_METADATA note
//! (LLVM AMDGPUUsage "Code Object V3 to V5 Metadata": `.vgpr_count`, `.sgpr_count`,
//! `.vgpr_spill_count`, `.sgpr_spill_count`, `.private_segment_fixed_size`), the symbol
//! table (code bytes), the `llvm-objdump -d` disassembly (instructions) and `llvm-mca`'s
//! cycles per iteration of the kernel's hot loop.

use object::read::elf::{ElfFile64, FileHeader, SectionHeader};
use object::{Object, ObjectSymbol, SymbolKind};
use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Stdio};

/// NT_AMDGPU_METADATA (LLVM AMDGPUUsage "Code Object Metadata").
const NT_AMDGPU_METADATA: u32 = 32;

/// The figures of one kernel.
#[derive(Clone, Debug, Default)]
pub struct Figures {
    /// Instructions of the kernel's symbol in the disassembly.
    pub instructions: u64,
    /// Bytes of the kernel's symbol.
    pub code_bytes: u64,
    /// `.vgpr_count`.
    pub vgprs: u64,
    /// `.sgpr_count`.
    pub sgprs: u64,
    /// `.vgpr_spill_count`.
    pub vgpr_spills: u64,
    /// `.sgpr_spill_count`.
    pub sgpr_spills: u64,
    /// `.private_segment_fixed_size` (scratch bytes per lane).
    pub scratch: u64,
    /// `.max_flat_workgroup_size`.
    pub max_flat_wg: u64,
    /// `llvm-mca` cycles per iteration of the hot loop (the innermost loop with the most
    /// instructions), when the kernel has a loop and llvm-mca ran.
    pub loop_cycles: Option<f64>,
    /// Instructions of that loop.
    pub loop_instructions: Option<u64>,
}

impl Figures {
    /// Waves per SIMD the kernel's registers allow on gfx906 (GFX9): 256 VGPRs per lane in
    /// granules of 4, 800 SGPRs in granules of 16 (`.sgpr_count` includes VCC and the other
    /// reserved SGPRs), at most 10 waves (LLVM's `AMDGPU::IsaInfo` for GFX9). LDS and the
    /// work-group size are not counted.
    pub fn waves_per_simd(&self) -> u64 {
        let by_vgprs = 256 / self.vgprs.max(1).next_multiple_of(4);
        let by_sgprs = 800 / self.sgprs.max(1).next_multiple_of(16);
        by_vgprs.min(by_sgprs).min(10)
    }
}

/// The tools the figures are read with.
pub struct Tools {
    /// `llvm-objdump` (LLVM 19).
    pub objdump: std::path::PathBuf,
    /// `llvm-mca` (LLVM 19), if found.
    pub mca: Option<std::path::PathBuf>,
}

/// One disassembled instruction.
struct Insn {
    addr: u64,
    text: String,
    /// The target of a branch.
    target: Option<u64>,
}

/// Figures of every kernel (by symbol name) of the code object `co`.
pub fn kernel_figures(
    co: &[u8],
    tools: &Tools,
    arch: &str,
) -> Result<BTreeMap<String, Figures>, String> {
    let meta = metadata(co)?;
    let file = ElfFile64::<object::Endianness>::parse(co).map_err(|e| format!("ELF: {e}"))?;
    let mut syms: BTreeMap<String, (u64, u64)> = BTreeMap::new();
    for s in file.symbols() {
        if s.kind() == SymbolKind::Text {
            if let Ok(n) = s.name() {
                syms.insert(n.to_string(), (s.address(), s.size()));
            }
        }
    }
    let dis = disassemble(co, &tools.objdump)?;
    let mut out = BTreeMap::new();
    for (name, mut f) in meta {
        let Some(&(addr, size)) = syms.get(&name) else {
            return Err(format!("kernel {name}: no symbol"));
        };
        let body: Vec<&Insn> = dis
            .iter()
            .filter(|i| i.addr >= addr && i.addr < addr + size)
            .collect();
        f.instructions = body.len() as u64;
        f.code_bytes = size;
        if let Some(mca) = &tools.mca {
            if let Some(lp) = hot_loop(&body) {
                f.loop_instructions = Some(lp.len() as u64);
                f.loop_cycles = mca_cycles(mca, arch, &lp);
            }
        }
        out.insert(name, f);
    }
    Ok(out)
}

/// The kernels of the metadata note, with the register and scratch figures filled in.
fn metadata(co: &[u8]) -> Result<BTreeMap<String, Figures>, String> {
    let file = ElfFile64::<object::Endianness>::parse(co).map_err(|e| format!("ELF: {e}"))?;
    let endian = file.endian();
    let data = file.data();
    let mut out = BTreeMap::new();
    let sections = file
        .elf_header()
        .sections(endian, data)
        .map_err(|e| format!("ELF sections: {e}"))?;
    for sh in sections.iter() {
        let Some(mut notes) = sh.notes(endian, data).map_err(|e| format!("notes: {e}"))? else {
            continue;
        };
        while let Some(n) = notes.next().map_err(|e| format!("note: {e}"))? {
            if n.n_type(endian).0 != NT_AMDGPU_METADATA || n.name() != b"AMDGPU" {
                continue;
            }
            let v = rmpv::decode::read_value(&mut n.desc())
                .map_err(|e| format!("NT_AMDGPU_METADATA: {e}"))?;
            let kernels = get(&v, "amdhsa.kernels")
                .and_then(|k| k.as_array())
                .ok_or("metadata without amdhsa.kernels")?;
            for k in kernels {
                let num = |key: &str| get(k, key).and_then(|x| x.as_u64()).unwrap_or(0);
                let Some(name) = get(k, ".name").and_then(|x| x.as_str()) else {
                    return Err("a kernel without .name".into());
                };
                out.insert(
                    name.to_string(),
                    Figures {
                        vgprs: num(".vgpr_count"),
                        sgprs: num(".sgpr_count"),
                        vgpr_spills: num(".vgpr_spill_count"),
                        sgpr_spills: num(".sgpr_spill_count"),
                        scratch: num(".private_segment_fixed_size"),
                        max_flat_wg: num(".max_flat_workgroup_size"),
                        ..Figures::default()
                    },
                );
            }
        }
    }
    if out.is_empty() {
        return Err("no NT_AMDGPU_METADATA note".into());
    }
    Ok(out)
}

fn get<'v>(v: &'v rmpv::Value, key: &str) -> Option<&'v rmpv::Value> {
    v.as_map()?
        .iter()
        .find(|(k, _)| k.as_str() == Some(key))
        .map(|(_, v)| v)
}

/// `llvm-objdump -d` of the code object: every instruction with its address (from the
/// `// ADDR: ENCODING` comment) and, for a branch, its target (`<sym+0xOFF>`).
fn disassemble(co: &[u8], objdump: &Path) -> Result<Vec<Insn>, String> {
    let tmp = tempfile::NamedTempFile::new().map_err(|e| e.to_string())?;
    std::fs::write(tmp.path(), co).map_err(|e| e.to_string())?;
    let out = Command::new(objdump)
        .args(["-d", "--no-show-raw-insn"])
        .arg(tmp.path())
        .output()
        .map_err(|e| format!("{}: {e}", objdump.display()))?;
    if !out.status.success() {
        return Err(format!(
            "llvm-objdump failed: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let mut syms: BTreeMap<String, u64> = BTreeMap::new();
    let mut insns = Vec::new();
    for line in text.lines() {
        if let Some((a, rest)) = line.split_once(" <") {
            if let (Ok(addr), Some(name)) = (u64::from_str_radix(a, 16), rest.strip_suffix(">:")) {
                syms.insert(name.to_string(), addr);
                continue;
            }
        }
        if !line.starts_with('\t') {
            continue;
        }
        let Some((ins, comment)) = line.split_once("//") else {
            continue;
        };
        let Some(addr) = comment
            .trim()
            .split(':')
            .next()
            .and_then(|a| u64::from_str_radix(a, 16).ok())
        else {
            continue;
        };
        let target = comment.rsplit_once('<').and_then(|(_, t)| {
            let t = t.strip_suffix('>')?;
            let (sym, off) = t.rsplit_once("+0x").unwrap_or((t, "0"));
            Some(syms.get(sym)? + u64::from_str_radix(off, 16).ok()?)
        });
        insns.push(Insn {
            addr,
            text: ins.trim().to_string(),
            target,
        });
    }
    Ok(insns)
}

/// The innermost loop with the most instructions: the instructions from a backward
/// branch's target to the branch, for a branch whose range holds no other backward branch.
fn hot_loop<'a>(body: &[&'a Insn]) -> Option<Vec<&'a Insn>> {
    let loops: Vec<(usize, usize)> = body
        .iter()
        .enumerate()
        .filter_map(|(end, i)| {
            let t = i.target?;
            if t > i.addr {
                return None;
            }
            let start = body.iter().position(|j| j.addr == t)?;
            Some((start, end))
        })
        .collect();
    loops
        .iter()
        .filter(|(s, e)| {
            !loops
                .iter()
                .any(|(s2, e2)| (s2, e2) != (s, e) && s2 >= s && e2 <= e)
        })
        .max_by_key(|(s, e)| e - s)
        .map(|&(s, e)| body[s..=e].to_vec())
}

/// `llvm-mca` total cycles / iterations of the loop body (branches retargeted to a label at
/// its start, so that the text assembles).
fn mca_cycles(mca: &Path, arch: &str, body: &[&Insn]) -> Option<f64> {
    const ITER: u32 = 100;
    let mut asm = String::from(".Lloop:\n");
    for i in body {
        if i.target.is_some() {
            let op = i.text.split_whitespace().next().unwrap_or("");
            asm.push_str(&format!("{op} .Lloop\n"));
        } else {
            asm.push_str(&i.text);
            asm.push('\n');
        }
    }
    let mut child = Command::new(mca)
        .args([
            "-mtriple=amdgcn-amd-amdhsa",
            &format!("-mcpu={arch}"),
            &format!("-iterations={ITER}"),
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    use std::io::Write as _;
    child.stdin.take()?.write_all(asm.as_bytes()).ok()?;
    let out = child.wait_with_output().ok()?;
    if !out.status.success() {
        return None;
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let total: f64 = text
        .lines()
        .find_map(|l| l.strip_prefix("Total Cycles:"))?
        .trim()
        .parse()
        .ok()?;
    Some(total / ITER as f64)
}
