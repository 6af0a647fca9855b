//! Module-scope variables (`.global`, `.const`, `.shared`, and function-scope ones hoisted to
//! module scope) as LLVM globals, with their initializers: byte constants, and address-of
//! elements (`generic(sym)`, `sym+off`) as `ptrtoint` relocations.

use super::*;

/// LLVM text of one module-scope (or hoisted function-scope) variable, and its address space.
pub(crate) fn global_text(
    cx: &ModCx<'_, '_>,
    v: &VarDecl<'_>,
    d: &Declarator<'_>,
    gname: &str,
) -> R<(String, u32)> {
    let a = &cx.prof.addrspace;
    let aspace = match v.space {
        StateSpace::Global => a.global,
        StateSpace::Const => a.r#const,
        StateSpace::Shared | StateSpace::SharedCta => a.shared,
        s => return fail("", format!("module-scope {} variable", s.as_str())),
    };
    let eb = (v.ty.bits() / 8).max(1) as u64 * v.vector.unwrap_or(1) as u64;
    let unsized_ = d.array.iter().any(|x| x.is_none());
    let n: u64 = d
        .array
        .iter()
        .map(|x| x.unwrap_or(0))
        .product::<u64>()
        .max(if d.array.is_empty() { 1 } else { 0 });
    let size = n * eb;
    let align = v.align.unwrap_or(eb.min(16) as u32).max(1);
    let name = ident('@', gname);
    let extern_ = v.linkage == Some(Linkage::Extern);
    let linkage = match v.linkage {
        Some(Linkage::Extern) => "external ",
        Some(Linkage::Visible) => "",
        Some(Linkage::Weak) => "weak ",
        Some(Linkage::Common) => "common ",
        // A `.global`/`.const` variable without linkage is still looked up by name by the
        // host (`__cudaRegisterVar`, `cudaMemcpyToSymbol`): it must stay in the output and
        // its loads must not be folded to the initializer, so it is not `internal`.
        None if v.space != StateSpace::Shared && v.space != StateSpace::SharedCta => "",
        None => "internal ",
    };
    // A `.const` variable the host can write (`cudaMemcpyToSymbol`: every one that is not
    // internal) is an `externally_initialized global` in the constant address space, as clang
    // emits `__constant__`: as an LLVM `constant` its loads would be folded to the
    // initializer (zero when it has none).
    let konst = if v.space == StateSpace::Const && linkage == "internal " {
        "constant"
    } else if v.space == StateSpace::Const {
        "externally_initialized global"
    } else {
        "global"
    };
    let shared = aspace == a.shared;
    let mut s = String::new();
    if extern_ || (unsized_ && d.init.is_none()) {
        let _ = writeln!(
            s,
            "{name} = external addrspace({aspace}) {konst} [{} x i8], align {align}",
            if unsized_ { 0 } else { size }
        );
        return Ok((s, aspace));
    }
    let init = if shared {
        "poison".to_string()
    } else {
        match &d.init {
            None => "zeroinitializer".to_string(),
            Some(_) => init_text(cx, v, d, size)?,
        }
    };
    let ty = if init.starts_with("<{") {
        init_type(&init)
    } else {
        format!("[{size} x i8]")
    };
    let linkage = if shared && linkage == "common " {
        "internal "
    } else {
        linkage
    };
    let _ = writeln!(
        s,
        "{name} = {linkage}addrspace({aspace}) {konst} {ty} {init}, align {align}"
    );
    Ok((s, aspace))
}

/// The type spelled at the start of a packed-struct initializer we produced.
pub(super) fn init_type(init: &str) -> String {
    // init is "<{ T1 v1, T2 v2 }>" where every Ti is `[N x i8]` or `i64`; the type repeats
    // each element type.
    let mut tys = Vec::new();
    let inner = &init[2..init.len() - 2];
    let mut depth = 0;
    let mut start = 0;
    let b = inner.as_bytes();
    for (i, &c) in b.iter().enumerate() {
        match c {
            b'(' | b'[' | b'<' | b'{' => depth += 1,
            b')' | b']' | b'>' | b'}' => depth -= 1,
            b',' if depth == 0 => {
                tys.push(elem_type(inner[start..i].trim()));
                start = i + 1;
            }
            _ => {}
        }
    }
    tys.push(elem_type(inner[start..].trim()));
    format!("<{{ {} }}>", tys.join(", "))
}

pub(super) fn elem_type(e: &str) -> String {
    if e.starts_with('[') {
        let end = e.find(']').unwrap_or(e.len() - 1);
        e[..=end].to_string()
    } else {
        e.split_whitespace().next().unwrap_or("i64").to_string()
    }
}

/// Initializer bytes, with address-of elements (PTX ISA 9.x §5.4.4) as pointer-sized
/// relocations: a packed struct of byte runs and `i64 ptrtoint` / `i32 ptrtoint` elements.
pub(super) fn init_text(
    cx: &ModCx<'_, '_>,
    v: &VarDecl<'_>,
    d: &Declarator<'_>,
    size: u64,
) -> R<String> {
    if let Some(bytes) = v.init_bytes(d) {
        let mut b = bytes;
        b.resize(size as usize, 0);
        return Ok(bytes_const(&b));
    }
    // Address initializers: walk elements.
    let eb = (v.ty.bits() / 8).max(1) as usize;
    let mut parts: Vec<String> = Vec::new();
    let mut run: Vec<u8> = Vec::new();
    let mut total = 0usize;
    pub(super) fn walk(
        cx: &ModCx<'_, '_>,
        i: &Init<'_>,
        eb: usize,
        run: &mut Vec<u8>,
        parts: &mut Vec<String>,
        total: &mut usize,
    ) -> R<()> {
        match i {
            Init::List(l) => {
                for x in l {
                    walk(cx, x, eb, run, parts, total)?;
                }
            }
            Init::Imm(imm_) => {
                let t = Ty::int((eb * 8) as u32);
                let s = imm(
                    imm_.value(),
                    if eb == 4 || eb == 8 || eb == 2 || eb == 1 {
                        t
                    } else {
                        Ty::I64
                    },
                );
                let u: i64 = s.parse().unwrap_or(0);
                run.extend_from_slice(&u.to_le_bytes()[..eb.min(8)]);
                *total += eb;
            }
            Init::Symbol {
                name,
                generic,
                offset,
            } => {
                if eb != 8 && eb != 4 {
                    return fail("", "address initializer in a non-pointer-sized element");
                }
                if !run.is_empty() {
                    parts.push(bytes_part(run));
                    run.clear();
                }
                let (p, a) = if let Some((g, a)) = cx.globals.get(name) {
                    (g.clone(), *a)
                } else if let Some(s) = cx.funcs.get(name) {
                    (format!("@{}", s.llname), 0)
                } else {
                    return fail("", format!("address of unknown symbol {name}"));
                };
                let mut e = p.clone();
                let mut ea = a;
                if *generic && a != cx.prof.addrspace.generic {
                    e = format!("addrspacecast ({} {e} to ptr)", ptr_ty(a));
                    ea = cx.prof.addrspace.generic;
                }
                if *offset != 0 {
                    e = format!("getelementptr (i8, {} {e}, i64 {offset})", ptr_ty(ea));
                }
                let it = if eb == 8 { "i64" } else { "i32" };
                parts.push(format!("{it} ptrtoint ({} {e} to {it})", ptr_ty(ea)));
                *total += eb;
            }
            Init::Field { .. } => return fail("", "opaque-type initializer"),
        }
        Ok(())
    }
    walk(
        cx,
        d.init.as_ref().unwrap(),
        eb,
        &mut run,
        &mut parts,
        &mut total,
    )?;
    if (total as u64) < size {
        run.resize(run.len() + (size as usize - total), 0);
    }
    if !run.is_empty() {
        parts.push(bytes_part(&run));
    }
    Ok(format!("<{{ {} }}>", parts.join(", ")))
}

/// An `[N x i8]` constant's value (without the type).
pub(super) fn bytes_const(b: &[u8]) -> String {
    if b.iter().all(|&x| x == 0) {
        return "zeroinitializer".into();
    }
    let mut s = String::with_capacity(b.len() * 3 + 4);
    s.push_str("c\"");
    for &x in b {
        if x.is_ascii_alphanumeric() || x == b' ' {
            s.push(x as char);
        } else {
            let _ = write!(s, "\\{x:02X}");
        }
    }
    s.push('"');
    s
}

pub(super) fn bytes_part(b: &[u8]) -> String {
    format!("[{} x i8] {}", b.len(), bytes_const(b))
}
