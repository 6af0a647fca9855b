//! The parser's instruction fast path (`src/ptx/parser/fast.rs`) must not change what the
//! parser produces: for every PTX module of the corpus (the xformers wheel's 11 modules and the
//! fixtures' PTX) and for every corrupted module of the diagnostics tests, the AST including
//! every source position, and the diagnostics, are equal with the fast path on and off.

mod common;
mod ptx_support;

use wheelport::ptx::{parse_with, ParseOptions};

/// The full tree as text: `Debug` prints every `Loc` (which `==` ignores on purpose).
fn both(src: &str, name: &str) -> (String, String) {
    let fast = parse_with(src, name, ParseOptions { fast_path: true });
    let slow = parse_with(src, name, ParseOptions { fast_path: false });
    (
        format!("{:?}\n{:?}", fast.module, fast.diagnostics),
        format!("{:?}\n{:?}", slow.module, slow.diagnostics),
    )
}

#[test]
fn corpus_and_fixtures_parse_the_same_with_and_without_the_fast_path() {
    let Some(files) = ptx_support::corpus_ptx_files() else {
        return;
    };
    let mut instructions = 0usize;
    let mut fast = 0usize;
    for f in &files {
        let src = std::fs::read_to_string(f).unwrap();
        let name = f.display().to_string();
        let (a, b) = both(&src, &name);
        assert!(
            a == b,
            "{name}: the fast path changes the AST or the diagnostics"
        );
        let out = wheelport::ptx::parse(&src, &name);
        fast += out.fast_path_instructions;
        instructions += out
            .module
            .functions()
            .filter_map(|f| f.body.as_ref())
            .map(|b| b.instruction_count())
            .sum::<usize>();
    }
    // The corpus is not empty (the xformers modules alone hold ~145 k instructions), and the
    // fast path does read most of it (else this test would compare the token path with itself).
    eprintln!("{instructions} instructions, {fast} read by the fast path");
    assert!(
        instructions > 140_000,
        "only {instructions} instructions compared"
    );
    assert!(
        fast * 10 > instructions * 9,
        "fast path read only {fast} of {instructions}"
    );
}

/// Hand-written statements at the fast path's edges: each must parse exactly as the token
/// path parses it (including its errors and their positions).
#[test]
fn edge_statements_parse_the_same() {
    let bodies = [
        "mov.u32 %r1, %tid.x;",
        "@%p1 bra $L__BB0_2;\n$L__BB0_2:\nret;",
        "@!%p1 add.s32 %r1, %r2, -7;",
        "add.s32 %r1, %r2, - 7;",
        "add.s32 %r1, %r2, 0x7fffffffU;",
        "add.s32 %r1, %r2, 017;",
        "add.s32 %r1, %r2, 0x;",
        "add.s32 %r1, %r2, 0xU;",
        "add.s32 %r1, %r2, 0;",
        "add.s32 %r1, %r2, 0U;",
        "add.s32 %r1, %r2, 123456789012345678;",
        "add.s32 %r1, %r2, 1234567890123456789;",
        "add.s32 %r1, %r2, 0b101;",
        "add.s32 %r1, %r2, 99999999999999999999;",
        "add.s32 %r1, %r2, -9223372036854775808;",
        "add.s32 %r1, %r2, -9223372036854775809;",
        "add.f32 %f1, %f2, 0f3F800000;",
        "add.f32 %f1, %f2, -0f3F800000;",
        "add.f32 %f1, %f2, 0f3F80000;",
        "add.f32 %f1, %f2, 0f3F8000000;",
        "add.f64 %fd1, %fd2, 0d3FF0000000000000;",
        "add.f32 %f1, %f2, 1.5;",
        "add.f32 %f1, %f2, 1e3;",
        "ld.global.nc.v4.u32 {%r1, %r2, %r3, %r4}, [%rd1+16];",
        "ld.global.v2.u32 {%r1, _}, [%rd1 + -16];",
        "ld.global.u32 %r1, [%rd1 - 16];",
        "ld.global.u32 %r1, [%rd1+-16];",
        "ld.global.u32 %r1, [ %rd1 ];",
        "ld.global.u32 %r1, [16];",
        "ld.param.u64 %rd1, [k_param_0];",
        "ld.shared::cta.u32 %r1, [%rd1];",
        "ld.shared::.u32 %r1, [%rd1];",
        "ld. global.u32 %r1, [%rd1];",
        "ld .global.u32 %r1, [%rd1];",
        "ld.global.u32 %r1,\n [%rd1];",
        "ld.global.u32 %r1, /* c */ [%rd1];",
        "mov.u32 %r1, %r99;",
        "mov.u32 %r1, %r00000004;",
        "mov.u32 %r1, %r123456789;",
        "mov.u32 %r1, %r12345678901234567890;",
        "mov.u32 %r1, %r4294967296;",
        "mov.u32 %r1, %r1a;",
        "mov.u32 %r1, %rd1_;",
        "mov.u32 %r1, %nope;",
        "mov.u32 %r1, %r1.x;",
        "mov.u32 %r1, %r2.:x;",
        "mov.u32 %r1, %r2. x;",
        "setp.lt.s32 %p1|%p2, %r1, %r2;",
        "setp.lt.s32 %p1 | _, %r1, %r2;",
        "mov.pred %p1, !%p2;",
        "mov.pred %p1, !%p9;",
        "selp.b32 %r1, 1, 0, %p1;",
        "bra.uni $L__BB0_9;",
        "mov.u64 %rd1, k;",
        "foo.u32 %r1, %r2;",
        "add.s32 %r1 %r2;",
        "add.s32 %r1, %r2,;",
        "add.s32 %r1, %r2",
        "add.bogus.s32 %r1, %r2, %r3;",
        "add.s32 %r1, %r2, %r3;add.s32 %r1, %r2, %r3;",
        "vmad.s32.s32.s32 %r1, -%r2.b0, %r3.h1, %r4;",
        "@ %p1 bra $L__BB0_2;\n$L__BB0_2: ret;",
        "@%q bra $L__BB0_2;\n$L__BB0_2: ret;",
        "x: ret;",
        "mov.u32 %r1, _x;",
        "mov.u32 %r1, _;",
        "{ .reg .b32 t; mov.b32 t, 1; mov.b32 %r1, t; }",
        "{ .reg .b32 %r1; mov.b32 %r1, 1; } mov.b32 %r2, %r1;",
    ];
    let mut fast = 0;
    for (i, body) in bodies.iter().enumerate() {
        // Each body twice: the fast path only reads an opcode head that the token path has
        // validated before, so the second copy is the one it gets to read.
        let src = format!(
            ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k(.param .u64 k_param_0)\n\
             {{\n.reg .pred %p<3>;\n.reg .b32 %r<5>;\n.reg .f32 %f<3>;\n.reg .f64 %fd<3>;\n\
             .reg .b64 %rd<3>;\n{body}\n{body}\n}}\n"
        );
        let (a, b) = both(&src, &format!("edge{i}.ptx"));
        assert!(
            a == b,
            "statement {i} `{body}` parses differently with the fast path:\nfast: {a}\nslow: {b}"
        );
        fast +=
            parse_with(&src, "edge.ptx", ParseOptions { fast_path: true }).fast_path_instructions;
    }
    // The second copies of the valid one-line statements are read by the fast path (the rest
    // fall back to the token path, which is what they test).
    assert!(fast >= 40, "the fast path read only {fast} edge statements");
}

/// Statements inside blocks nested up to and past the nesting limit (hostile input): the token
/// path reports operands that would nest deeper than 64 levels, and the fast path must leave
/// such statements to it rather than read them (a divergence the fuzz target found).
#[test]
fn statements_near_the_nesting_limit_parse_the_same() {
    for depth in [61, 62, 63, 64, 70] {
        let stmts = "ld.global.u32 %r1, [%rd1];\nld.global.u32 %r1, [%rd1];\n\
                     ld.global.v2.u32 {%r1, %r2}, [%rd1+4];\nadd.s32 %r1, %r2, 1;\n";
        let src = format!(
            ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{{\n\
             .reg .b32 %r<5>;\n.reg .b64 %rd<3>;\n{stmts}{}{stmts}{}\nret;\n}}\n",
            "{\n".repeat(depth),
            "}\n".repeat(depth)
        );
        let (a, b) = both(&src, &format!("deep{depth}.ptx"));
        assert!(a == b, "depth {depth}: the fast path changes the parse");
        let errors = parse_with(&src, "deep.ptx", ParseOptions { fast_path: false }).error_count();
        // Blocks nest 65 levels deep (the function body plus `depth`) only for depth 64 and 70.
        assert_eq!(errors > 0, depth >= 64, "depth {depth}: {errors} errors");
    }
}
