//! The cuda twin of the GPU ground-truth fixture `fixtures/gpu/twin_fixtures.so` (51 kernels
//! over all issue-4 families) with wheelport's real lowering, and the lowering fixes its
//! kernels needed. Built with LLVM 19 (`llc` for nvptx64 sm_80) and checked with ptxas 13.5
//! where noted; the GPU run itself is `tools/gpu` (results in `fixtures/gpu/results/twin.json`,
//! checked by `tests/gpu_results.rs`).

mod common;

use wheelport::build::{build_module, BuildOptions, ModuleInput};
use wheelport::lower::{lower_ptx, KernelOutcome};
use wheelport::target::Profile;
use wheelport::toolchain::Toolchain;

fn cuda() -> Option<(&'static Profile, Toolchain)> {
    common::require_toolchain("cuda", "cuda toolchain")
}

/// Lower `ptx` for cuda, assert every kernel lowered, build it for sm_80 and return the PTX.
fn lower_and_build(ptx: &str, name: &str) -> Option<(String, String)> {
    let (p, tc) = cuda()?;
    let low = lower_ptx(ptx, name, p);
    for k in &low.kernels {
        assert_eq!(k.outcome, KernelOutcome::Lowered, "{}", k.name);
    }
    let built = build_module(
        p,
        &tc,
        ModuleInput {
            name,
            lowered: &low,
        },
        &BuildOptions {
            archs: vec!["sm_80".into()],
            cache: None,
            split_bytes: None,
        },
    )
    .unwrap_or_else(|e| panic!("{e}\n{}", low.ir));
    let text = String::from_utf8(built.objects[0].bytes.clone()).unwrap();
    Some((low.ir, text))
}

/// A function-pointer table, as nvcc writes it for `__device__ float (*g_ops[])(float, float)`
/// (k_calls in fixtures/gpu/src/control.cu): the functions are used only through the
/// initializer and an indirect `call` with a `.callprototype`.
const FUNCTION_TABLE: &str = r#"
.version 8.0
.target sm_80
.address_size 64

.func (.param .b32 func_retval0) _Z6op_addff(.param .b32 _Z6op_addff_param_0, .param .b32 _Z6op_addff_param_1);
.func (.param .b32 func_retval0) _Z6op_mulff(.param .b32 _Z6op_mulff_param_0, .param .b32 _Z6op_mulff_param_1);
.global .align 8 .u64 g_ops[2] = {_Z6op_addff, _Z6op_mulff};

.func (.param .b32 func_retval0) _Z6op_addff(.param .b32 _Z6op_addff_param_0, .param .b32 _Z6op_addff_param_1)
{
	.reg .f32 %f<4>;
	ld.param.f32 %f1, [_Z6op_addff_param_0];
	ld.param.f32 %f2, [_Z6op_addff_param_1];
	add.f32 %f3, %f1, %f2;
	st.param.f32 [func_retval0+0], %f3;
	ret;
}
.func (.param .b32 func_retval0) _Z6op_mulff(.param .b32 _Z6op_mulff_param_0, .param .b32 _Z6op_mulff_param_1)
{
	.reg .f32 %f<4>;
	ld.param.f32 %f1, [_Z6op_mulff_param_0];
	ld.param.f32 %f2, [_Z6op_mulff_param_1];
	mul.f32 %f3, %f1, %f2;
	st.param.f32 [func_retval0+0], %f3;
	ret;
}
.visible .entry k_table(.param .u64 k_table_param_0, .param .u32 k_table_param_1)
{
	.reg .b32 %r<3>;
	.reg .f32 %f<3>;
	.reg .b64 %rd<6>;
	ld.param.u64 %rd1, [k_table_param_0];
	ld.param.u32 %r1, [k_table_param_1];
	and.b32 %r2, %r1, 1;
	mul.wide.u32 %rd2, %r2, 8;
	mov.u64 %rd3, g_ops;
	add.s64 %rd4, %rd3, %rd2;
	ld.global.u64 %rd5, [%rd4];
	cvta.to.global.u64 %rd1, %rd1;
	ld.global.f32 %f1, [%rd1];
	{
	.param .b32 param0;
	st.param.f32 [param0+0], %f1;
	.param .b32 param1;
	st.param.f32 [param1+0], %f1;
	.param .b32 retval0;
	prototype_0 : .callprototype (.param .b32 _) _ (.param .b32 _, .param .b32 _);
	call (retval0), %rd5, (param0, param1), prototype_0;
	ld.param.f32 %f2, [retval0+0];
	}
	st.global.f32 [%rd1], %f2;
	ret;
}
"#;

/// Functions whose address only a variable's initializer takes are defined in the IR (they
/// were declared, and llc's PTX then had an `.extern .func` nothing defines).
#[test]
fn function_pointer_table_functions_are_defined() {
    let Some((ir, ptx)) = lower_and_build(FUNCTION_TABLE, "function_table.ptx") else {
        return;
    };
    for f in ["_Z6op_addff", "_Z6op_mulff"] {
        assert!(
            ir.contains(&format!("define internal i32 @{f}(")),
            "{f} not defined in the IR:\n{ir}"
        );
        assert!(!ir.contains(&format!("declare i32 @{f}(")), "{f} declared");
        assert!(
            ptx.contains(&format!(".func  (.param .b32 func_retval0) {f}(")),
            "{f} not a .func of the PTX:\n{ptx}"
        );
    }
    assert!(!ptx.contains(".extern .func"), "{ptx}");
    // The table holds the two functions' addresses.
    assert!(
        ptx.contains(".global .align 8 .u64 g_ops[2] = {_Z6op_addff, _Z6op_mulff};"),
        "{ptx}"
    );
}

/// `fixtures/gpu/twin_fixtures.so` converted with `lower` (no cache).
fn twin_of_fixture(
    lower: &wheelport::twin::LowerFn<'_>,
) -> Option<(Vec<u8>, wheelport::twin::TwinReport)> {
    let (p, tc) = cuda()?;
    let path = common::root().join("fixtures/gpu/twin_fixtures.so");
    let data = std::fs::read(&path).unwrap();
    let opts = wheelport::twin::TwinOptions::default();
    Some(wheelport::twin::twin(&data, "twin_fixtures.so", p, &tc, &opts, lower).unwrap())
}

/// Every `.entry` of the fixture's PTX (wheelport's fatbin reader and PTX parser).
fn fixture_entries() -> Vec<String> {
    let data = std::fs::read(common::root().join("fixtures/gpu/twin_fixtures.so")).unwrap();
    let so = wheelport::elf::scan(&data, "twin_fixtures.so").unwrap();
    let secs = wheelport::fatbin::parse_object_sections(&data, &so, "twin_fixtures.so").unwrap();
    let mut names = Vec::new();
    for (_, cs) in &secs {
        for c in cs {
            for e in &c.entries {
                if e.kind() != wheelport::fatbin::EntryKind::Ptx {
                    continue;
                }
                let text = String::from_utf8(e.ptx_bytes().unwrap().into_owned()).unwrap();
                let parsed = wheelport::ptx::parse(&text, "x.ptx");
                for f in parsed.module.functions() {
                    if f.kind == wheelport::ptx::FunctionKind::Entry && f.body.is_some() {
                        names.push(f.name.to_string());
                    }
                }
            }
        }
    }
    names.sort();
    names
}

/// The twin of the GPU fixture: all 51 kernels lowered (none reported), every device
/// variable defined, and the output the same bytes on a second conversion (the results in
/// `fixtures/gpu/results/twin.json` name its sha256).
#[test]
fn gpu_fixture_twin_lowers_every_kernel_deterministically() {
    let lower = |m: &wheelport::ptx::Module<'_>, p: &Profile| wheelport::lower::lower_module(m, p);
    let Some((out, report)) = twin_of_fixture(&lower) else {
        return;
    };
    let entries = fixture_entries();
    assert_eq!(entries.len(), 51, "{entries:?}");
    let mut reported: Vec<String> = report
        .wrappers
        .iter()
        .flat_map(|w| w.kernels.iter().map(|k| k.name.clone()))
        .collect();
    reported.sort();
    assert_eq!(reported, entries, "every kernel is reported");
    assert!(
        report.not_lowered().is_empty(),
        "not lowered: {:#?}",
        report.not_lowered()
    );
    for w in &report.wrappers {
        assert!(w.variables_missing.is_empty(), "{:?}", w.variables_missing);
    }
    assert!(report.complete());
    let (again, _) = twin_of_fixture(&lower).unwrap();
    assert!(out == again, "two conversions differ");
}

/// A kernel whose device build fails (here: the lowering's IR for `k_calls` is made to call
/// a function nothing defines) is reported as not lowered with the build error, and every
/// other kernel of the `.so` is still converted (it used to abort the whole conversion).
#[test]
fn a_kernel_whose_build_fails_does_not_abort_the_so() {
    let lower = |m: &wheelport::ptx::Module<'_>, p: &Profile| {
        let mut l = wheelport::lower::lower_module(m, p);
        if let Some(i) = l.ir.find("@k_calls(") {
            let entry = i + l.ir[i..].find("entry:\n").unwrap() + "entry:\n".len();
            l.ir.insert_str(entry, "  call void @wp_test_undefined()\n");
            l.ir.push_str("declare void @wp_test_undefined()\n");
        }
        l
    };
    let Some((_, report)) = twin_of_fixture(&lower) else {
        return;
    };
    let not = report.not_lowered();
    let calls: Vec<_> = not.iter().filter(|(_, k, _)| *k == "k_calls").collect();
    assert_eq!(calls.len(), 1, "{not:#?}");
    assert!(
        calls[0].2.contains("device build") && calls[0].2.contains("wp_test_undefined"),
        "{}",
        calls[0].2
    );
    let lowered = report
        .wrappers
        .iter()
        .flat_map(|w| &w.kernels)
        .filter(|k| k.outcome == KernelOutcome::Lowered)
        .count();
    assert_eq!(lowered + not.len(), 51);
    assert!(lowered >= 45, "{lowered} lowered: {not:#?}");
    // The module holding k_calls is still converted.
    let w = report
        .wrappers
        .iter()
        .find(|w| w.kernels.iter().any(|k| k.name == "k_calls"))
        .unwrap();
    assert_eq!(w.status, wheelport::twin::WrapperStatus::Converted);
}
