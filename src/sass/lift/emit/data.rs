//! The module's data as SASS reaches it through constant banks 3 and 4, and register-indexed
//! reads of the compiler constants (bank 2).
//!
//! * **Bank 4** holds 64-bit addresses that the driver writes at load time: each word has a
//!   relocation (`.rel.nv.constant4`, `R_CUDA_64`) naming a symbol: a `__device__` variable or
//!   a string literal (`.nv.global`, `.nv.global.init`), a `__constant__` variable
//!   (`.nv.constant3`), or a function (`vprintf`, `__assertfail`: read only by the call
//!   sequence, see `emit/warp.rs`). A read of the word (8 bytes) or of its halves is the
//!   generic address of the symbol plus the addend: `cvta.global` (`cvta.const`) of the
//!   lifted module-scope variable of the same name.
//! * **Bank 3** is the module's `__constant__` data (`.nv.constant3`): a read at an offset is
//!   `ld.const` of the symbol that covers it, at the offset inside it (with a register index,
//!   the symbol covering the printed offset plus the index), so the host's writes to the
//!   variable by name (`cudaMemcpyToSymbol`) reach the lifted kernel.
//! * **Bank 2 with a register index** (`LDC.64 R8, c[0x2][R0]`: a device-function pointer's
//!   entry offset, read from the table ptxas keeps there) is `ld.const` of a module-scope copy
//!   of the kernel's bank 2, `__wp_bank2_<kernel>`.
//!
//! Each variable is declared once at module scope with the cubin's name, size, bytes
//! (`.nv.global.init`, `.nv.constant3`; none for the zero-filled `.nv.global`) and binding
//! (`.visible` for `STB_GLOBAL`), aligned to the largest power of two (up to 16) that divides
//! its offset in the section (ptxas placed it there, so this is at least its alignment).
//! Initialised data that itself holds addresses (a relocation inside it) is not lifted.

use super::{Cx, R};
use crate::sass::decode::{Bank, Reg};
use crate::sass::info::{DataSymbol, R_CUDA_64};
use std::fmt::Write;

/// The section that holds bank `b`'s words (`.nv.constant4`).
fn bank_section(b: u8) -> String {
    format!(".nv.constant{b}")
}

impl Cx<'_> {
    /// A read of `bytes` (4 or 8) of bank 3 or 4 at `offset` (plus `index`), or `None` when
    /// the bank is not one this module lifts.
    pub(super) fn module_constant(
        &mut self,
        bank: Bank,
        index: Option<Reg>,
        offset: i64,
        bytes: u32,
    ) -> Option<R<String>> {
        let Bank::Imm(b) = bank else { return None };
        match (b, index) {
            (2, Some(r)) => Some(self.bank2_indexed(r, offset, bytes)),
            (3, _) => Some(self.user_constant(index, offset, bytes)),
            (4, None) => Some(self.bank_address(b, offset, bytes)),
            _ => None,
        }
    }

    /// The relocation of bank `b` at the 8-byte word holding `offset`: (relocation, whether
    /// `offset` is the high word).
    pub(super) fn bank_reloc(
        &self,
        b: u8,
        offset: i64,
    ) -> Option<(&crate::sass::info::Reloc, bool)> {
        let sec = bank_section(b);
        let o = u64::try_from(offset).ok()?;
        let find = |o: u64| {
            self.consts
                .relocations
                .get(&sec)?
                .iter()
                .find(|r| r.offset == o)
        };
        if let Some(r) = find(o) {
            return Some((r, false));
        }
        find(o.checked_sub(4)?).map(|r| (r, true))
    }

    /// The value of a bank-4 word (or half): the generic address its relocation names.
    fn bank_address(&mut self, b: u8, offset: i64, bytes: u32) -> R<String> {
        let (r, high) = self
            .bank_reloc(b, offset)
            .ok_or_else(|| format!("c[{b:#x}][{offset:#x}] has no relocation"))?;
        if r.kind != R_CUDA_64 {
            return Err(format!(
                "c[{b:#x}][{offset:#x}]: relocation type {} (only R_CUDA_64 is lifted)",
                r.kind
            ));
        }
        let (name, addend) = (r.symbol.clone(), r.addend);
        if bytes == 8 && high {
            return Err(format!(
                "c[{b:#x}][{offset:#x}]: 8 bytes across two addresses"
            ));
        }
        let a = self.symbol_address(&name, addend)?;
        Ok(match bytes {
            8 => a,
            4 => self.half(&a, high),
            n => return Err(format!("c[{b:#x}][{offset:#x}] read as {n} bytes")),
        })
    }

    /// The generic address of module symbol `name` plus `addend` (declaring the symbol).
    pub(super) fn symbol_address(&mut self, name: &str, addend: i64) -> R<String> {
        let s = self
            .consts
            .symbols
            .iter()
            .find(|s| s.name == name)
            .cloned()
            .ok_or_else(|| format!("relocation against `{name}`, not a symbol of the cubin"))?;
        let space = match s.section.as_str() {
            ".nv.global" | ".nv.global.init" => "global",
            ".nv.constant3" => "const",
            _ if s.function => {
                return Err(format!(
                    "the address of function `{name}` outside a call of it"
                ))
            }
            o => return Err(format!("the address of `{name}` in section {o}")),
        };
        self.declare(&s)?;
        let t = self.t64();
        self.line(format!("mov.u64 {t}, {name}"));
        self.line(format!("cvta.{space}.u64 {t}, {t}"));
        if addend != 0 {
            self.line(format!("add.u64 {t}, {t}, {addend}"));
        }
        Ok(t)
    }

    /// A `__constant__` read: `ld.const` of the `.nv.constant3` symbol covering `offset`.
    fn user_constant(&mut self, index: Option<Reg>, offset: i64, bytes: u32) -> R<String> {
        let o = u64::try_from(offset).map_err(|_| format!("c[0x3][{offset:#x}]"))?;
        let s = self
            .consts
            .symbols
            .iter()
            .find(|s| {
                s.section == ".nv.constant3"
                    && !s.function
                    && s.offset <= o
                    && o < s.offset + s.size
            })
            .cloned()
            .ok_or_else(|| format!("c[0x3][{offset:#x}] is not inside a __constant__ symbol"))?;
        if self
            .consts
            .relocations
            .get(".nv.constant3")
            .is_some_and(|rs| {
                rs.iter()
                    .any(|r| r.offset < s.offset + s.size && s.offset < r.offset + 8)
            })
        {
            return Err(format!(
                "__constant__ `{}` holds addresses (relocations)",
                s.name
            ));
        }
        if index.is_none() && o + u64::from(bytes) > s.offset + s.size {
            return Err(format!("c[0x3][{offset:#x}] runs past `{}`", s.name));
        }
        self.declare(&s)?;
        let k = o - s.offset;
        let addr = match index {
            None => format!("[{}+{k}]", s.name),
            Some(r) => {
                let v = Self::reg_name(r).unwrap_or_else(|| "0".into());
                let t = self.t64();
                self.line(format!("cvt.u64.u32 {t}, {v}"));
                let b = self.t64();
                self.line(format!("mov.u64 {b}, {}", s.name));
                self.line(format!("add.u64 {t}, {t}, {b}"));
                format!("[{t}+{k}]")
            }
        };
        self.load_const(&addr, bytes)
    }

    /// `ld.const` of `bytes` at `addr` into a temporary.
    fn load_const(&mut self, addr: &str, bytes: u32) -> R<String> {
        let t = match bytes {
            4 => self.t32(),
            8 => self.t64(),
            n => return Err(format!("constant read as {n} bytes")),
        };
        self.line(format!("ld.const.b{} {t}, {addr}", bytes * 8));
        Ok(t)
    }

    /// A register-indexed read of the kernel's compiler constants: `ld.const` of the
    /// module-scope copy of its bank 2.
    fn bank2_indexed(&mut self, index: Reg, offset: i64, bytes: u32) -> R<String> {
        if self.consts.relocated.contains(&2) {
            return Err("register-indexed read of a relocated bank 2".into());
        }
        let data = self
            .info
            .constant_banks
            .get(&2)
            .or_else(|| self.consts.banks.get(&2))
            .ok_or("register-indexed read of bank 2 without a .nv.constant2 section")?
            .clone();
        let name = format!("__wp_bank2_{}", self.info.name);
        let decl = format!(
            ".const .align 16 .b8 {name}[{}] = {{{}}};",
            data.len(),
            bytes_list(&data)
        );
        self.add_decl(&name, decl);
        let v = Self::reg_name(index).unwrap_or_else(|| "0".into());
        let t = self.t64();
        self.line(format!("cvt.u64.u32 {t}, {v}"));
        let b = self.t64();
        self.line(format!("mov.u64 {b}, {name}"));
        self.line(format!("add.u64 {t}, {t}, {b}"));
        self.load_const(&format!("[{t}+{offset}]"), bytes)
    }

    /// Declare module symbol `s` (once).
    fn declare(&mut self, s: &DataSymbol) -> R<()> {
        if self.decls.iter().any(|(n, _)| *n == s.name) {
            return Ok(());
        }
        let decl = declaration(s, self.consts)?;
        self.add_decl(&s.name, decl);
        Ok(())
    }

    /// Add a module-scope declaration `text` for `name` unless there is one.
    pub(super) fn add_decl(&mut self, name: &str, text: String) {
        if !self.decls.iter().any(|(n, _)| n == name) {
            self.decls.push((name.to_string(), text));
        }
    }
}

/// `{1, 2, 3}`'s inside for `data`.
fn bytes_list(data: &[u8]) -> String {
    let mut s = String::with_capacity(data.len() * 4);
    for (i, b) in data.iter().enumerate() {
        if i > 0 {
            s.push_str(", ");
        }
        let _ = write!(s, "{b}");
    }
    s
}

/// The module-scope PTX declaration of data symbol `s`.
fn declaration(s: &DataSymbol, consts: &super::Consts) -> R<String> {
    let space = match s.section.as_str() {
        ".nv.global" | ".nv.global.init" => "global",
        ".nv.constant3" => "const",
        o => return Err(format!("`{}` in section {o}", s.name)),
    };
    if s.size == 0 {
        return Err(format!("`{}` has no size", s.name));
    }
    if consts.relocations.get(&s.section).is_some_and(|rs| {
        rs.iter()
            .any(|r| r.offset < s.offset + s.size && s.offset < r.offset + 8)
    }) {
        return Err(format!(
            "initialised data `{}` holds addresses (relocations)",
            s.name
        ));
    }
    let data = consts
        .data
        .get(&s.section)
        .and_then(|d| d.get(s.offset as usize..(s.offset + s.size) as usize))
        .ok_or_else(|| format!("`{}` lies outside {}", s.name, s.section))?;
    let align = if s.offset == 0 {
        16
    } else {
        (1u64 << s.offset.trailing_zeros()).min(16)
    };
    let vis = if s.global { ".visible " } else { "" };
    let init = if s.section == ".nv.global" || data.iter().all(|&b| b == 0) {
        String::new()
    } else {
        format!(" = {{{}}}", bytes_list(data))
    };
    Ok(format!(
        "{vis}.{space} .align {align} .b8 {}[{}]{init};",
        s.name, s.size
    ))
}
