//! Diagnostics on corrupted modules: errors at the right line and column, the broken function
//! kept as `Directive::Invalid` with its name and reasons, and the other functions still parsed.

use wheelport::ptx::{self, Directive, FunctionKind};

const GOOD_HEADER: &str = ".version 8.7\n.target sm_80\n.address_size 64\n";

fn kernel(name: &str, body: &str) -> String {
    format!(
        ".visible .entry {name}(.param .u64 p)\n{{\n.reg .b32 %r<4>;\n.reg .b64 %rd<2>;\n{body}\nret;\n}}\n"
    )
}

fn lines_of(src: &str, needle: &str) -> (u32, u32) {
    for (i, l) in src.lines().enumerate() {
        if let Some(c) = l.find(needle) {
            return (i as u32 + 1, c as u32 + 1);
        }
    }
    panic!("{needle} not in source");
}

#[test]
fn unknown_opcode_is_reported_and_other_functions_survive() {
    let src = format!(
        "{GOOD_HEADER}{}{}{}",
        kernel("a", "add.s32 %r1, %r2, %r3;"),
        kernel("b", "frobnicate.s32 %r1, %r2;"),
        kernel("c", "mul.lo.s32 %r1, %r2, %r3;")
    );
    let out = ptx::parse(&src, "bad.ptx");
    assert_eq!(out.error_count(), 1, "{:?}", out.diagnostics);
    let d = &out.diagnostics[0];
    let (line, col) = lines_of(&src, "frobnicate");
    assert_eq!((d.line, d.col), (line, col));
    assert_eq!(d.token, "frobnicate");
    assert_eq!(d.function.as_deref(), Some("b"));
    assert_eq!(d.file, "bad.ptx");
    assert_eq!(
        d.to_string(),
        format!("bad.ptx:{line}:{col}: error: unknown opcode `frobnicate` (in function `b`)")
    );
    let names: Vec<_> = out.module.functions().map(|f| f.name).collect();
    assert_eq!(names, ["a", "c"]);
    let inv: Vec<_> = out.module.invalid().collect();
    assert_eq!(inv.len(), 1);
    assert_eq!(inv[0].name, Some("b"));
    assert_eq!(inv[0].kind, Some(FunctionKind::Entry));
    assert!(inv[0].reasons[0].contains("unknown opcode `frobnicate`"));
    // The invalid kernel is kept in order, between a and c.
    assert!(matches!(out.module.items[1], Directive::Invalid(_)));
    // Analysis reports the invalid kernel as such.
    let forms = ptx::analysis::kernel_forms(&out.module);
    assert_eq!(forms.len(), 3);
    assert!(!forms[1].invalid.is_empty());
}

#[test]
fn unknown_modifier_points_at_the_modifier() {
    let src = format!("{GOOD_HEADER}{}", kernel("k", "ld.glbal.u32 %r1, [%rd1];"));
    let out = ptx::parse(&src, "m.ptx");
    assert_eq!(out.error_count(), 1);
    let (line, col) = lines_of(&src, ".glbal");
    assert_eq!(
        (out.diagnostics[0].line, out.diagnostics[0].col),
        (line, col)
    );
    assert_eq!(out.diagnostics[0].token, ".glbal");
    assert!(out.diagnostics[0]
        .message
        .contains("unknown modifier `.glbal` for `ld`"));
}

#[test]
fn conflicting_modifiers_are_errors_at_the_second_word() {
    for (body, word, msg) in [
        (
            "ld.global.acquire.relaxed.gpu.u32 %r1, [%rd1];",
            ".relaxed",
            "conflicting modifiers `.acquire` and `.relaxed` (memory semantics) for `ld`",
        ),
        (
            "add.rn.f32.rz %r1, %r2, %r3;",
            ".rz",
            "conflicting modifiers `.rn` and `.rz` (rounding) for `add`",
        ),
        (
            "atom.global.add.or.u32 %r1, [%rd1], %r2;",
            ".or",
            "conflicting modifiers `.add` and `.or` (operation) for `atom`",
        ),
        (
            "shf.l.clamp.wrap.b32 %r1, %r2, %r3, %r1;",
            ".wrap",
            "conflicting modifiers `.clamp` and `.wrap` (flag) for `shf`",
        ),
    ] {
        let src = format!("{GOOD_HEADER}{}", kernel("k", body));
        let out = ptx::parse(&src, "bad.ptx");
        assert_eq!(out.error_count(), 1, "{body}: {:?}", out.diagnostics);
        let d = &out.diagnostics[0];
        let (line, col) = lines_of(&src, word);
        assert_eq!(
            (d.line, d.col, d.token.as_str()),
            (line, col, word),
            "{body}"
        );
        assert_eq!(d.message, msg);
        assert_eq!(out.module.invalid().count(), 1, "{body}");
    }
}

#[test]
fn a_repeated_modifier_is_a_warning() {
    // `ptxas` 13.5 takes a second `.sat` on `cvt` (tests/ptx_conformance.rs): a warning.
    let src = format!(
        "{GOOD_HEADER}{}",
        kernel("k", "cvt.sat.rni.s32.f32.sat %r1, %r2;")
    );
    let out = ptx::parse(&src, "dup.ptx");
    assert_eq!(out.error_count(), 0, "{:?}", out.diagnostics);
    assert_eq!(out.diagnostics.len(), 1);
    let d = &out.diagnostics[0];
    assert_eq!(d.severity, ptx::Severity::Warning);
    assert_eq!(d.message, "duplicate modifier `.sat` for `cvt`");
    let line = src.lines().position(|l| l.starts_with("cvt.sat")).unwrap() as u32 + 1;
    assert_eq!(
        (d.line, d.col),
        (line, "cvt.sat.rni.s32.f32".len() as u32 + 1)
    );
    assert_eq!(out.module.functions().count(), 1);
    // Repeated types are the instruction's (`.f32.f32`), not a repeat.
    let src = format!("{GOOD_HEADER}{}", kernel("k", "cvt.rni.f32.f32 %r1, %r2;"));
    assert!(ptx::parse(&src, "t.ptx").diagnostics.is_empty());
}

#[test]
fn a_modifier_combination_ptxas_rejects_is_an_error() {
    // `add` is checked against its forms in src/ptx/forms.txt: `ptxas` 13.5 rejects a
    // rounding modifier on an integer add, `.ftz` twice, and `mul.s32.lo` (the `.lo` of
    // `mul.lo` comes first).
    for (body, head) in [
        ("add.rn.s32 %r1, %r2, %r3;", "add.rn.s32"),
        ("add.ftz.f32.ftz %r1, %r2, %r3;", "add.ftz.f32.ftz"),
        ("mul.s32.lo %r1, %r2, %r3;", "mul.s32.lo"),
    ] {
        let src = format!("{GOOD_HEADER}{}", kernel("k", body));
        let out = ptx::parse(&src, "form.ptx");
        assert_eq!(out.error_count(), 1, "{body}: {:?}", out.diagnostics);
        let d = &out.diagnostics[0];
        let (line, col) = lines_of(&src, body);
        let op = &head[..head.find('.').unwrap()];
        assert_eq!((d.line, d.col), (line, col + op.len() as u32), "{body}");
        assert_eq!(
            d.message,
            format!(
                "`{head}` is no `{op}` instruction of PTX ISA 9.x (its modifiers are no \
                 combination of the forms in src/ptx/forms.txt)"
            )
        );
        assert_eq!(out.module.invalid().count(), 1, "{body}");
    }
    // Orders and repeats `ptxas` takes stay accepted.
    for body in [
        "add.f32.ftz.rn %r1, %r2, %r3;",
        "add.sat.s32.sat %r1, %r2, %r3;",
        "mul.lo.s32 %r1, %r2, %r3;",
    ] {
        let src = format!("{GOOD_HEADER}{}", kernel("k", body));
        let out = ptx::parse(&src, "form.ptx");
        assert_eq!(out.error_count(), 0, "{body}: {:?}", out.diagnostics);
    }
}

#[test]
fn bad_operands() {
    for (body, needle, msg) in [
        ("add.s32 %r1, , %r2;", ", %r2", "bad operand"),
        ("add.s32 %r1, %r2 %r3;", "%r3", "expected `,` or `;`"),
        (
            "add.s32 %r1, %r2, %r99;",
            "%r99",
            "undeclared register `%r99`",
        ),
        ("ld.global.u32 %r1, [%rd1+];", "];", "expected a number"),
        ("bra $L__nowhere;", "$L__nowhere", "undefined symbol"),
    ] {
        let src = format!("{GOOD_HEADER}{}{}", kernel("k", body), kernel("ok", ""));
        let out = ptx::parse(&src, "o.ptx");
        assert_eq!(out.error_count(), 1, "{body}: {:?}", out.diagnostics);
        let d = &out.diagnostics[0];
        let (line, col) = lines_of(&src, needle);
        assert_eq!((d.line, d.col), (line, col), "{body}: {d}");
        assert!(d.message.contains(msg), "{body}: {d}");
        assert!(out.module.function("ok").is_some());
        assert_eq!(out.module.invalid().count(), 1);
    }
}

#[test]
fn unclosed_brace_is_closed_at_the_next_function() {
    let src = format!(
        "{GOOD_HEADER}.visible .entry a(.param .u64 p)\n{{\n.reg .b32 %r<4>;\nadd.s32 %r1, %r2, %r3;\n{}",
        kernel("b", "add.s32 %r1, %r2, %r3;")
    );
    let out = ptx::parse(&src, "u.ptx");
    assert_eq!(out.error_count(), 1, "{:?}", out.diagnostics);
    let d = &out.diagnostics[0];
    assert_eq!((d.line, d.col), (5, 1), "{d}");
    assert!(d.message.contains("unclosed `{`"));
    assert_eq!(out.module.invalid().next().unwrap().name, Some("a"));
    assert!(out.module.function("b").is_some());
}

#[test]
fn stray_closing_brace_and_eof() {
    let src = format!("{GOOD_HEADER}}}\n{}", kernel("b", ""));
    let out = ptx::parse(&src, "s.ptx");
    assert_eq!(out.error_count(), 1);
    assert_eq!((out.diagnostics[0].line, out.diagnostics[0].col), (4, 1));
    assert!(out.module.function("b").is_some());

    let src = format!("{GOOD_HEADER}.visible .entry a(.param .u64 p)\n{{\n.reg .b32 %r<4>;\n");
    let out = ptx::parse(&src, "e.ptx");
    assert_eq!(out.error_count(), 1);
    assert!(out.diagnostics[0].message.contains("end of file"));
    assert_eq!(out.module.invalid().count(), 1);
}

#[test]
fn several_errors_in_one_function_are_all_reported() {
    let src = format!(
        "{GOOD_HEADER}{}",
        kernel(
            "k",
            "foo %r1;\nadd.s32 %r1, %r2, %r3;\nadd.bogus.s32 %r1, %r2, %r3;"
        )
    );
    let out = ptx::parse(&src, "m.ptx");
    assert_eq!(out.error_count(), 2);
    assert_eq!(out.module.invalid().next().unwrap().reasons.len(), 2);
    // The printer keeps the invalid function verbatim.
    let printed = ptx::print(&out.module);
    assert!(printed.contains("add.bogus.s32 %r1, %r2, %r3;"));
}

#[test]
fn invalid_utf8_is_a_diagnostic() {
    let mut bytes = GOOD_HEADER.as_bytes().to_vec();
    bytes.extend_from_slice(b"// caf\xe9\n");
    let out = ptx::parse_bytes(&bytes, "bin.ptx");
    assert_eq!(out.error_count(), 1);
    assert_eq!((out.diagnostics[0].line, out.diagnostics[0].col), (4, 7));
    assert!(out.diagnostics[0].message.contains("invalid UTF-8"));
}

#[test]
fn cmd_parse_files_prints_diagnostics_and_ptx() {
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("good.ptx");
    let bad = dir.path().join("bad.ptx");
    std::fs::write(&good, format!("{GOOD_HEADER}{}", kernel("g", ""))).unwrap();
    std::fs::write(&bad, format!("{GOOD_HEADER}{}", kernel("b", "nope;"))).unwrap();
    let mut out = Vec::new();
    let n = ptx::cmd::parse_files(
        std::slice::from_ref(&good),
        Some(&dir.path().join("one.ptx")),
        &mut out,
    )
    .unwrap();
    assert_eq!(n, 0);
    assert!(out.is_empty());
    let printed = std::fs::read_to_string(dir.path().join("one.ptx")).unwrap();
    assert!(printed.contains(".visible .entry g("));
    let outdir = dir.path().join("printed");
    let n = ptx::cmd::parse_files(&[good, bad.clone()], Some(&outdir), &mut out).unwrap();
    assert_eq!(n, 1);
    let text = String::from_utf8(out.clone()).unwrap();
    assert!(
        text.starts_with(&format!(
            "{}:8:1: error: unknown opcode `nope`",
            bad.display()
        )),
        "{text}"
    );
    assert!(outdir.join("good.ptx").is_file() && outdir.join("bad.ptx").is_file());
    let mut out = Vec::new();
    ptx::cmd::parse_files(
        &[dir.path().join("good.ptx")],
        Some(std::path::Path::new("-")),
        &mut out,
    )
    .unwrap();
    assert!(String::from_utf8(out)
        .unwrap()
        .starts_with(".version 8.7\n"));
}

#[test]
fn operand_count_of_a_counted_form_is_checked() {
    // `.abs` on `min.f32` takes three inputs (four operands), `.xorsign.abs` two (ptxas 13.5):
    // the same head is valid or not by its number of operands, on the fast path and off it.
    let body = |i: &str| {
        format!(".reg .f32 %f<8>;\n{i}\nmin.abs.f32 %f1, %f2, %f3, %f4;\nmin.xorsign.abs.f32 %f1, %f2, %f3;")
    };
    let src = format!(
        "{GOOD_HEADER}{}{}{}",
        kernel("a", &body("min.f32 %f1, %f2, %f3, %f4;")),
        kernel("b", &body("min.abs.f32 %f1, %f2, %f3;")),
        kernel("c", &body("min.xorsign.abs.f32 %f1, %f2, %f3, %f4;"))
    );
    let out = ptx::parse(&src, "min.ptx");
    assert_eq!(out.error_count(), 2, "{:?}", out.diagnostics);
    let (line, col) = lines_of(&src, "min.abs.f32 %f1, %f2, %f3;");
    let d = &out.diagnostics[0];
    assert_eq!((d.line, d.col), (line, col));
    assert_eq!(
        d.to_string(),
        format!(
            "min.ptx:{line}:{col}: error: `min.abs.f32` takes 4 operands, not 3 (the forms of \
             src/ptx/forms.txt with these modifiers) (in function `b`)"
        )
    );
    assert!(out.diagnostics[1]
        .message
        .contains("`min.xorsign.abs.f32` takes 3 operands, not 4"));
    let names: Vec<_> = out.module.functions().map(|f| f.name).collect();
    assert_eq!(names, ["a"]);
}
