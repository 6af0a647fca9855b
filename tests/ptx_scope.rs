//! Register and local-symbol scoping (PTX ISA 9.x §5.4 "Variables": a name declared in a
//! `{ }` block is visible only inside it and hides an outer declaration; `%r<N>` declares
//! `%r0` .. `%r(N-1)`). These pin down the parser's register lookup, including its per-prefix
//! cache: every case below mixes a range declaration with inner declarations of the same prefix.

use wheelport::ptx::{self, ast::*};

fn body_operands(src: &str) -> (Vec<Vec<String>>, Vec<String>) {
    let out = ptx::parse(src, "scope.ptx");
    let diags = out
        .diagnostics
        .iter()
        .map(|d| format!("{}:{} {}", d.line, d.col, d.message))
        .collect();
    let mut ops = Vec::new();
    for f in out.module.functions() {
        if let Some(b) = &f.body {
            b.for_each_instruction(&mut |i| {
                let mut v = Vec::new();
                for o in i.operands.iter() {
                    match o {
                        Operand::Address(a) => match &**a {
                            Address::Offset {
                                base: Some(AddrBase::Reg(n)),
                                ..
                            } => v.push(format!("[reg {n}]")),
                            Address::Offset {
                                base: Some(AddrBase::Symbol(n)),
                                ..
                            } => v.push(format!("[symbol {n}]")),
                            _ => v.push("[?]".into()),
                        },
                        Operand::Reg(n) | Operand::Symbol(n) => {
                            v.push(format!("{} {n}", o.kind_name()))
                        }
                        _ => v.push(o.kind_name().into()),
                    }
                }
                ops.push(v);
            });
        }
    }
    (ops, diags)
}

const HEAD: &str = ".version 8.0\n.target sm_80\n.address_size 64\n";

#[test]
fn inner_local_hides_outer_register_range() {
    // `%r2` is a register of `%r<10>` outside the block and a `.local` variable inside it.
    let src = format!(
        "{HEAD}.visible .entry k()\n{{\n.reg .b32 %r<10>;\nmov.b32 %r1, %r2;\n{{\n.local .b32 %r2;\n\
         ld.local.b32 %r1, [%r2];\nmov.b32 %r3, %r4;\n}}\nmov.b32 %r5, %r2;\nret;\n}}\n"
    );
    let (ops, diags) = body_operands(&src);
    assert!(diags.is_empty(), "{diags:?}");
    assert_eq!(ops[0], ["reg %r1", "reg %r2"]);
    assert_eq!(ops[1], ["reg %r1", "[symbol %r2]"]);
    assert_eq!(ops[2], ["reg %r3", "reg %r4"]);
    assert_eq!(ops[3], ["reg %r5", "reg %r2"]);
}

#[test]
fn inner_range_extends_and_ends_with_its_block() {
    // Inside the block `%rd<20>` covers `%rd15`; after it only the outer `%rd<4>` is left, so
    // `%rd15` is undeclared there while `%rd3` still is a register.
    let body = "{\n.reg .b64 %rd<4>;\nmov.b64 %rd1, %rd3;\n{\n.reg .b64 %rd<20>;\n\
         mov.b64 %rd15, %rd3;\n}\nmov.b64 %rd1, %rd3;\n";
    let (ops, diags) = body_operands(&format!("{HEAD}.visible .entry k()\n{body}ret;\n}}\n"));
    assert!(diags.is_empty(), "{diags:?}");
    assert_eq!(ops[0], ["reg %rd1", "reg %rd3"]);
    assert_eq!(ops[1], ["reg %rd15", "reg %rd3"]);
    assert_eq!(ops[2], ["reg %rd1", "reg %rd3"]);
    // The same with a use of `%rd15` after the block (line 13, column 15).
    let src = format!("{HEAD}.visible .entry k()\n{body}mov.b64 %rd1, %rd15;\nret;\n}}\n");
    let (_, diags) = body_operands(&src);
    assert_eq!(diags, ["13:15 undeclared register `%rd15`"]);
}

#[test]
fn plain_name_with_digits_beside_a_range() {
    // `.reg .b32 %r7;` beside `%r<4>`: `%r7` and `%r3` are registers, `%r5` is not.
    let body = "{\n.reg .b32 %r<4>;\n.reg .b32 %r7;\nmov.b32 %r3, %r7;\n";
    let (ops, diags) = body_operands(&format!("{HEAD}.visible .entry k()\n{body}ret;\n}}\n"));
    assert!(diags.is_empty(), "{diags:?}");
    assert_eq!(ops[0], ["reg %r3", "reg %r7"]);
    let src = format!("{HEAD}.visible .entry k()\n{body}mov.b32 %r3, %r5;\nret;\n}}\n");
    let (_, diags) = body_operands(&src);
    assert_eq!(diags, ["9:14 undeclared register `%r5`"]);
}

/// Forward references to labels (PTX ISA 9.x §4.4 "Labels": a label may be used before its
/// definition) become label operands wherever they are: in top-level statements, in nested
/// blocks two deep, in a `brx.idx` target list, on both paths of the parser; a name that is
/// never defined is reported at its use.
#[test]
fn forward_label_references_are_resolved_at_any_depth() {
    let src = format!(
        "{HEAD}.visible .entry k()\n{{\n.reg .pred %p<2>;\n.reg .b32 %r<4>;\n\
         @%p1 bra L_end;\nbra.uni L_mid;\n{{\n.reg .pred q;\n{{\n@q bra L_mid;\n}}\nbra L_end;\n}}\n\
         L_mid:\nmov.b32 %r1, %r2;\nts: .branchtargets L_mid, L_end;\nbrx.idx %r1, ts;\n\
         L_end:\nret;\n}}\n"
    );
    for fast_path in [true, false] {
        let out = ptx::parse_with(&src, "scope.ptx", ptx::ParseOptions { fast_path });
        assert_eq!(out.error_count(), 0, "{:?}", out.diagnostics);
        let mut targets = Vec::new();
        out.module
            .functions()
            .next()
            .unwrap()
            .body
            .as_ref()
            .unwrap()
            .for_each_instruction(&mut |i| {
                if i.opcode.name() == "bra" {
                    targets.push(match &i.operands[0] {
                        Operand::Label(n) => format!("label {n}"),
                        o => o.kind_name().to_string(),
                    });
                }
            });
        assert_eq!(
            targets,
            ["label L_end", "label L_mid", "label L_mid", "label L_end"],
            "fast path {fast_path}"
        );
    }
    let bad = format!(
        "{HEAD}.visible .entry k()\n{{\n.reg .b32 %r<4>;\n{{\nbra L_nowhere;\n}}\nret;\n}}\n"
    );
    let (_, diags) = body_operands(&bad);
    assert_eq!(diags, ["8:5 undefined symbol `L_nowhere`"]);
}
