//! Real nvcc output (CUDA 13.5, `fixtures/ptx/nvcc/*.ptx`, sources beside them): `-G` debug
//! output with `.file`/`.loc`/`.section`, printf/assert calls, inline-asm blocks, templates and
//! sm_90a cluster code. Each must parse with 0 errors, round-trip, and assemble after printing.

mod common;
mod ptx_support;

use std::path::Path;

use ptx_support::*;
use wheelport::ptx::{self, Directive, Module, Operand, Statement};

fn nvcc_fixture(name: &str, facts: impl FnOnce(&Module<'_>)) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/ptx/nvcc")
        .join(name);
    let src = std::fs::read_to_string(&path).unwrap();
    let printed = round_trip(&src, name);
    let parsed = ptx::parse(&src, name);
    if let Some(p) = ptxas_or_skip(name) {
        let arch = arch_of(&parsed.module);
        ptxas(&p, &printed, &arch, &format!("nvcc-{name}")).unwrap_or_else(|e| panic!("{e}"));
    }
    facts(&parsed.module);
}

#[test]
fn debug_build_with_printf_and_assert() {
    nvcc_fixture("debug_printf.sm_80.ptx", |m| {
        let k = m.function("_Z12debug_printfPKiPii").unwrap();
        assert_eq!(k.callees(), ["__assert_fail", "vprintf"]);
        // Transitively (through the `__assert_fail` wrapper) the kernel reaches `__assertfail`.
        let kf = &ptx::analysis::kernel_forms(m)[0];
        assert!(
            kf.callees.iter().any(|c| c == "__assertfail"),
            "{:?}",
            kf.callees
        );
        assert!(
            kf.callees.iter().any(|c| c == "vprintf"),
            "{:?}",
            kf.callees
        );
        assert!(m
            .items
            .iter()
            .any(|d| matches!(d, Directive::Debug(r) if r.name == ".file")));
        assert!(m.items.iter().any(|d| matches!(d, Directive::Debug(r) if r.name == ".section" && r.text.contains(".debug_"))));
        let locs = ptx::analysis::flat_statements(k)
            .into_iter()
            .filter(|s| matches!(s, Statement::Debug(r) if r.name == ".loc"))
            .count();
        assert!(locs > 5);
        // The printf format string is recoverable from the module variable's bytes.
        let fmt = m
            .variables()
            .filter_map(|v| m.variable_bytes(v.decls[0].name))
            .find(|b| b.starts_with(b"n=%d"))
            .expect("printf format string");
        assert_eq!(fmt, b"n=%d first=%d\n\0");
    });
}

#[test]
fn inline_asm_blocks() {
    nvcc_fixture("inline_asm.sm_80.ptx", |m| {
        let k = m.functions().find(|f| f.body.is_some()).unwrap();
        let blocks: Vec<_> = ptx::analysis::flat_statements(k);
        // `p` declared in a nested block is a register operand.
        let mut saw_p = false;
        k.body.as_ref().unwrap().for_each_instruction(&mut |i| {
            if i.operands.contains(&Operand::Reg("p".into())) {
                saw_p = true;
            }
        });
        assert!(saw_p);
        assert!(!blocks.is_empty());
        let forms = ptx::analysis::kernel_forms(m);
        let f: Vec<&str> = forms[0].forms.iter().map(|f| f.form.as_str()).collect();
        for want in [
            "lop3.b32",
            "ldmatrix.sync.m8n8.x4.shared.b16",
            "mma.sync.m16n8k16.row.col.f32.f16.f16.f32",
            "shfl.sync.bfly.b32",
            "cp.async.shared.global",
        ] {
            assert!(f.contains(&want), "{want} missing from {f:?}");
        }
    });
}

#[test]
fn templates() {
    nvcc_fixture("templates.sm_80.ptx", |m| {
        let entries = m
            .functions()
            .filter(|f| f.kind == ptx::FunctionKind::Entry)
            .count();
        assert_eq!(entries, 3);
        let forms = ptx::analysis::kernel_forms(m);
        assert!(forms
            .iter()
            .any(|k| k.forms.iter().any(|f| f.form == "ld.global.nc.f32")));
    });
}

#[test]
fn hopper_cluster() {
    nvcc_fixture("hopper.sm_90a.ptx", |m| {
        assert_eq!(m.target, ["sm_90a"]);
        let k = m.functions().find(|f| f.body.is_some()).unwrap();
        assert!(k
            .attrs
            .iter()
            .any(|a| a.name == ".reqnctapercluster" || a.name == ".explicitcluster"));
        let forms = &ptx::analysis::kernel_forms(m)[0];
        assert!(forms.forms.iter().any(|f| f.form == "elect.sync"));
        assert!(forms
            .forms
            .iter()
            .any(|f| f.form.starts_with("mbarrier.try_wait")));
    });
}
