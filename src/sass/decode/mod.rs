//! Decoding SASS: NVIDIA's `nvdisasm` (found by [`crate::toolchain::discover_nvdisasm`]) is
//! run on a cubin and its text output (`nvdisasm -c`) is parsed, line by line as it is
//! streamed, into typed instructions ([`Instr`]): predicate guard, opcode with its
//! modifiers, and [`Operand`]s (registers `R`/`UR`/`P`/`UP`, immediates, constant banks
//! `c[b][off]`, memory references with offsets, branch targets resolved to byte offsets).

pub mod operand;

pub use operand::{Bank, File, Mem, Operand, Reg, SrcMods};

use crate::error::{Error, ErrorKind, Result};
use crate::toolchain::Tool;
use std::collections::HashMap;
use std::io::{BufRead, BufReader};

/// A predicate guard `@P0` / `@!UP1`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Guard {
    /// The predicate register.
    pub reg: Reg,
    /// `@!P`.
    pub not: bool,
}

/// One decoded SASS instruction.
#[derive(Debug, Clone, PartialEq)]
pub struct Instr {
    /// Byte offset from the function start.
    pub offset: u32,
    /// The guard, if any (`@PT` is kept as printed).
    pub guard: Option<Guard>,
    /// The opcode with its modifiers as printed (`IMAD.WIDE.U32`); the *form*.
    pub form: Box<str>,
    /// The operands in printed order.
    pub operands: Vec<Operand>,
}

impl Instr {
    /// The opcode without modifiers (`IMAD`).
    pub fn opcode(&self) -> &str {
        self.form.split('.').next().unwrap_or("")
    }
    /// The modifiers (`WIDE`, `U32`).
    pub fn modifiers(&self) -> impl Iterator<Item = &str> {
        self.form.split('.').skip(1)
    }
    /// True when the form carries modifier `m`.
    pub fn has(&self, m: &str) -> bool {
        self.modifiers().any(|x| x == m)
    }
}

/// One function (`.text.<name>` section) of a cubin.
#[derive(Debug, Clone, PartialEq)]
pub struct Function {
    /// The function's (mangled) name.
    pub name: String,
    /// The instructions in address order.
    pub instrs: Vec<Instr>,
    /// The subroutines inside the function (nvdisasm's `$`-labels, the device functions
    /// ptxas placed in the kernel's section: `$k$_Z3fibj`, `$__internal_0_$__cuda_sm20_div_s64`),
    /// as (name, offset).
    pub subroutines: Vec<(String, u32)>,
}

/// Parses `nvdisasm -c` text incrementally (see [`Parser::line`]).
#[derive(Default)]
struct Parser {
    funcs: Vec<Function>,
    labels: HashMap<String, u32>,
    /// Raw operand texts of the current function's instructions with unresolved labels:
    /// (instruction index, operand index, label).
    pending: Vec<(usize, usize, String)>,
    pending_label: Vec<String>,
}

impl Parser {
    fn finish_function(&mut self) {
        let Some(f) = self.funcs.last_mut() else {
            return;
        };
        for (l, &off) in &self.labels {
            if l.starts_with('$') {
                f.subroutines.push((l.clone(), off));
            }
        }
        f.subroutines.sort_by(|a, b| (a.1, &a.0).cmp(&(b.1, &b.0)));
        for (i, j, l) in self.pending.drain(..) {
            let op = &mut f.instrs[i].operands[j];
            *op = match (self.labels.get(&l), &*op) {
                (Some(&target), Operand::LabelHalf { high, .. }) => Operand::LabelHalf {
                    target,
                    high: *high,
                },
                (None, Operand::LabelHalf { .. }) => Operand::Other(l.into()),
                (Some(&off), _) => Operand::Target(off),
                (None, _) => Operand::Symbol(l.into()),
            };
        }
        self.labels.clear();
        self.pending_label.clear();
    }

    fn line(&mut self, line: &str) -> std::result::Result<(), String> {
        let t = line.trim();
        if let Some(rest) = t.strip_prefix("/*") {
            let (off, body) = rest.split_once("*/").ok_or("unterminated offset")?;
            // `/*0040*/` starts an instruction; `/* 0x000fda0003f06270 */` (the second word
            // of an encoding with `-hex`) is a comment.
            if off.is_empty() || !off.bytes().all(|b| b.is_ascii_hexdigit()) {
                return Ok(());
            }
            let off = u32::from_str_radix(off, 16).map_err(|e| format!("offset: {e}"))?;
            return self.instruction(off, body);
        }
        if let Some(name) = t.strip_prefix(".text.").and_then(|n| n.strip_suffix(':')) {
            self.finish_function();
            self.funcs.push(Function {
                name: name.to_string(),
                instrs: Vec::new(),
                subroutines: Vec::new(),
            });
            return Ok(());
        }
        if let Some(l) = t.strip_suffix(':') {
            // `.L_x_3:` (a branch target) and `$__internal_0_$__cuda_sm20_div_s64:` (a
            // subroutine inside the function, the target of a `CALL.REL`).
            if l.starts_with(".L") || l.starts_with('$') {
                self.pending_label.push(l.to_string());
            }
        }
        Ok(())
    }

    fn instruction(&mut self, off: u32, body: &str) -> std::result::Result<(), String> {
        // Strip a trailing encoding comment (`-hex`: the instruction's first 64-bit word),
        // ptxas's annotations (nvdisasm 13.5 prints `(*"SpillRefill"*)` after the operands of
        // a spill's LDL/STL) and the `;`.
        let mut parts = body.split("/*");
        let body = parts.next().unwrap_or("").trim();
        let word0 = parts.next().and_then(|c| {
            let h = c.trim().trim_end_matches("*/").trim();
            u64::from_str_radix(h.strip_prefix("0x")?, 16).ok()
        });
        let body = body.strip_suffix(';').unwrap_or(body).trim();
        let stripped;
        let body = if body.contains("(*") {
            stripped = strip_annotations(body);
            stripped.as_str()
        } else {
            body
        };
        let f = self
            .funcs
            .last_mut()
            .ok_or("instruction outside a function")?;
        for l in self.pending_label.drain(..) {
            self.labels.insert(l, off);
        }
        let (guard, rest) = match body.strip_prefix('@') {
            Some(r) => {
                let (g, rest) = r.split_once(' ').ok_or("guard without instruction")?;
                let (not, g) = match g.strip_prefix('!') {
                    Some(x) => (true, x),
                    None => (false, g),
                };
                let reg = operand::parse_reg(g)
                    .filter(|r| matches!(r.file, File::P | File::Up))
                    .ok_or_else(|| format!("guard `{g}`"))?;
                (Some(Guard { reg, not }), rest.trim_start())
            }
            None => (None, body),
        };
        let (form, ops) = match rest.split_once(' ') {
            Some((f, o)) => (f, o.trim()),
            None => (rest, ""),
        };
        let idx = f.instrs.len();
        let mut operands = Vec::new();
        for (j, text) in split_operands(ops).enumerate() {
            let mut unresolved = None;
            let o = operand::parse_operand(text, &mut |l| {
                unresolved = Some(l.to_string());
                Some(0)
            });
            if let (Operand::Target(_) | Operand::LabelHalf { .. }, Some(l)) = (&o, unresolved) {
                self.pending.push((idx, j, l));
            }
            operands.push(o);
        }
        if let Some(w) = word0 {
            nan_bits(form, &mut operands, w);
        }
        f.instrs.push(Instr {
            offset: off,
            guard,
            form: form.into(),
            operands,
        });
        Ok(())
    }
}

/// Replace each NaN immediate of `operands` with its encoded bits: sm_80/sm_90 ALU forms hold
/// a 32-bit immediate in bits 32..64 of the first word (checked with ptxas 13.5 on `FMUL`,
/// `DADD` and `HADD2`: `-QNAN` 0xffc00001, `+QNAN` 0x7ff80001 as the high word of a binary64,
/// the half pair 0x7fff:0x7e01 printed high half first).
fn nan_bits(form: &str, operands: &mut [Operand], word0: u64) {
    let field = (word0 >> 32) as u32;
    let half = form.starts_with('H');
    let double = form.starts_with('D');
    let mut k = 0;
    for o in operands.iter_mut() {
        match o {
            Operand::Float(f) if f.is_nan() => {
                *o = Operand::FloatBits(if half {
                    u64::from(if k == 0 { field >> 16 } else { field & 0xffff })
                } else if double {
                    u64::from(field) << 32
                } else {
                    u64::from(field)
                });
                k += 1;
            }
            Operand::Float(_) | Operand::Imm(_) => k += 1,
            _ => {}
        }
    }
}

/// `body` without its `(*...*)` annotations.
fn strip_annotations(body: &str) -> String {
    let mut out = String::with_capacity(body.len());
    let mut rest = body;
    while let Some(i) = rest.find("(*") {
        out.push_str(&rest[..i]);
        rest = rest[i + 2..]
            .split_once("*)")
            .map_or("", |(_, after)| after);
    }
    out.push_str(rest);
    out.trim().to_string()
}

/// The operand texts of `ops` (split at top-level commas).
fn split_operands(ops: &str) -> impl Iterator<Item = &str> {
    let mut depth = 0i32;
    let mut start = 0;
    let mut parts = Vec::new();
    for (i, b) in ops.bytes().enumerate() {
        match b {
            b'[' | b'(' | b'{' => depth += 1,
            b']' | b')' | b'}' => depth -= 1,
            b',' if depth == 0 => {
                parts.push(&ops[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    if !ops.trim().is_empty() {
        parts.push(&ops[start..]);
    }
    parts.into_iter().map(str::trim)
}

/// Parse the text of `nvdisasm -c` (the whole output): every function with its instructions.
///
/// # Errors
/// A message naming the line when an instruction line does not parse.
pub fn parse_text(text: &str) -> std::result::Result<Vec<Function>, String> {
    let mut p = Parser::default();
    for (n, l) in text.lines().enumerate() {
        p.line(l)
            .map_err(|e| format!("nvdisasm output line {}: {e}: {l}", n + 1))?;
    }
    p.finish_function();
    Ok(p.funcs)
}

/// Run `nvdisasm -c` on `cubin` and decode every function, parsing the output as it streams
/// from the tool (memory follows the decoded program, not the text).
///
/// `file` names the cubin in errors.
///
/// # Errors
/// [`ErrorKind::Toolchain`] when nvdisasm cannot be run or fails, or its output does not
/// parse.
pub fn decode_cubin(nvdisasm: &Tool, cubin: &[u8], file: &str) -> Result<Vec<Function>> {
    let dir = tempfile::tempdir()
        .map_err(|e| Error::new(ErrorKind::Toolchain, file, format!("temp dir: {e}")))?;
    let path = dir.path().join("module.cubin");
    std::fs::write(&path, cubin)
        .map_err(|e| Error::new(ErrorKind::Toolchain, file, format!("write cubin: {e}")))?;
    let terr = |m: String| Error::new(ErrorKind::Toolchain, file, m);
    // `-hex`: the encodings, for the bits of NaN immediates ([`nan_bits`]).
    let mut child = crate::toolchain::child_command(&nvdisasm.path)
        .arg("-c")
        .arg("-hex")
        .arg(&path)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .map_err(|e| {
            terr(format!(
                "cannot run nvdisasm ({}): {e}",
                nvdisasm.path.display()
            ))
        })?;
    let stdout = child.stdout.take().expect("piped stdout");
    let stderr = child.stderr.take().expect("piped stderr");
    let err_thread = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = std::io::Read::read_to_string(&mut BufReader::new(stderr), &mut s);
        s
    });
    let mut p = Parser::default();
    let mut bad: Option<String> = None;
    let mut reader = BufReader::with_capacity(1 << 20, stdout);
    let mut line = String::new();
    let mut n = 0usize;
    loop {
        line.clear();
        match reader.read_line(&mut line) {
            Ok(0) => break,
            Ok(_) => {}
            Err(e) => {
                bad = Some(format!("reading nvdisasm output: {e}"));
                break;
            }
        }
        n += 1;
        if bad.is_none() {
            if let Err(e) = p.line(&line) {
                bad = Some(format!(
                    "nvdisasm output line {n}: {e}: {}",
                    line.trim_end()
                ));
            }
        }
    }
    let status = child
        .wait()
        .map_err(|e| terr(format!("waiting for nvdisasm: {e}")))?;
    let stderr = err_thread.join().unwrap_or_default();
    if !status.success() {
        return Err(terr(format!(
            "`nvdisasm` failed ({}, {status}): {}",
            nvdisasm.path.display(),
            stderr.trim_end()
        )));
    }
    if let Some(b) = bad {
        return Err(terr(b));
    }
    p.finish_function();
    Ok(p.funcs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_with_labels_guards_and_hex() {
        let text = "\
//--------------------- .text.add64 --------------------------
add64:
.text.add64:
        /*0040*/                   ISETP.GE.AND P0, PT, R2, c[0x0][0x170], PT ;      /* 0x00005c0002007a0c */
                                                                                     /* 0x000fda0003f06270 */
        /*0050*/               @P0 BRA `(.L_x_1) ;
        /*0060*/                   NOP;
.L_x_1:
        /*0070*/              @!P0 EXIT ;
";
        let f = parse_text(text).unwrap();
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].name, "add64");
        let i = &f[0].instrs;
        assert_eq!(i.len(), 4);
        assert_eq!(&*i[0].form, "ISETP.GE.AND");
        assert_eq!(i[0].operands.len(), 5);
        assert_eq!(i[1].operands, vec![Operand::Target(0x70)]);
        assert!(!i[1].guard.unwrap().not);
        assert_eq!(&*i[2].form, "NOP");
        assert!(i[2].operands.is_empty());
        assert!(i[3].guard.unwrap().not);
        assert_eq!(i[3].opcode(), "EXIT");
    }

    /// nvdisasm 13.5 `-hex` lines of ptxas 13.5's sm_80 code for `mul.f32 d, a, 0fFFC00001`,
    /// `add.f64 d, a, 0d7FF8000100000000` and `add.rn.f16x2 d, a, 0x7FFF7E01`: every NaN is
    /// printed `QNAN`, its bits are in the encoding.
    #[test]
    fn nan_immediates_take_their_bits_from_the_encoding() {
        let text = "\
.text.k:
        /*0080*/                   FMUL R11, R0, -QNAN  ;                    /* 0xffc00001000b7820 */
                                                                             /* 0x000fe20000400000 */
        /*00b0*/                   DADD R6, R6, +QNAN  ;                     /* 0x7ff8000106067429 */
        /*00e0*/                   HADD2 R9, R0, +QNAN , +QNAN  ;            /* 0x7fff7e0100097430 */
";
        let f = parse_text(text).unwrap();
        let i = &f[0].instrs;
        assert_eq!(i.len(), 3);
        assert_eq!(i[0].operands[2], Operand::FloatBits(0xffc0_0001));
        assert_eq!(i[1].operands[2], Operand::FloatBits(0x7ff8_0001_0000_0000));
        assert_eq!(i[2].operands[2], Operand::FloatBits(0x7fff));
        assert_eq!(i[2].operands[3], Operand::FloatBits(0x7e01));
    }

    /// nvdisasm 13.5's lines for a spill and its refill (flash_fwd_sass80.so, ptxas 13.5).
    #[test]
    fn spill_annotations_are_not_operands() {
        let text = ".text.k:
        /*0b50*/                   STL.64 [R1+0x18], R30                                          (*\"SpillRefill\"*);
        /*0b60*/                   LDL.LU R4, [R1]                                              (*\"SpillRefill\"*) ;
";
        let f = parse_text(text).unwrap();
        let i = &f[0].instrs;
        assert_eq!(i.len(), 2);
        assert_eq!(i[0].operands.len(), 2);
        assert_eq!(
            i[0].operands[1],
            Operand::Reg(operand::parse_reg("R30").unwrap(), SrcMods::default())
        );
        assert!(
            matches!(i[1].operands[1], Operand::Mem(_)),
            "{:?}",
            i[1].operands[1]
        );
    }
}
