//! A work-group's LDS (`lds_bytes` of the amdgcn family profile: 65,536 bytes, gfx906's and
//! gfx942's) bounds what a translated kernel may reserve: its static `.shared` variables
//! (module-scope ones it reaches, function-scope ones of its body and of the functions it
//! calls) and the dynamic shared memory its host code asks for with a constant
//! (`cudaFuncSetAttribute(MaxDynamicSharedMemorySize)`, the launch facts). A kernel over it is
//! refused with both numbers named; the others lower. The static count is LLVM's: the built
//! code object's `.group_segment_fixed_size` (`llvm-readelf --notes`) of each lowered kernel
//! equals it, and `llc` itself refuses a module whose kernel is over ("local memory (N)
//! exceeds limit (65536)"), which the refusal keeps out of the build.

mod lower_common;

use lower_common::kernel_metadata;
use wheelport::build::{build_module, BuildOptions, ModuleInput};
use wheelport::elf::launch::{LaunchFacts, SharedRequest};
use wheelport::lower::{lower_module_with, KernelOutcome};

const T: &str = "lds_budget";

/// `k58`: module `a` (30,000 bytes) + its own 2,000 `.b32` (8,000) + `g`'s function-scope
/// 20,000 = 58,000. `k70`: module `big`, 70,000. `kdyn`: `a` + 40,000 dynamic = 70,000.
/// `kdyn_ok` (`kdyn`'s body, added by the test): `a` + 30,000 dynamic = 60,000. `kext`: the
/// `.extern .shared` window alone.
const PTX: &str = r#"
.version 8.0
.target sm_80
.address_size 64
.shared .align 16 .b8 a[30000];
.shared .align 4 .b8 big[70000];
.extern .shared .align 16 .b8 dyn[];
.func (.reg .b32 out) g(.reg .b32 i)
{
  .shared .align 4 .b8 fs[20000];
  .reg .b64 %rd<3>;
  mul.wide.u32 %rd1, i, 4;
  mov.u64 %rd2, fs;
  add.s64 %rd2, %rd2, %rd1;
  st.shared.u32 [%rd2], i;
  bar.sync 0;
  ld.shared.u32 out, [%rd2+16000];
  ret;
}
.visible .entry k58(.param .u64 p)
{
  .shared .align 4 .b32 own[2000];
  .reg .b64 %rd<6>;
  .reg .b32 %r<6>;
  ld.param.u64 %rd1, [p];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd2, %r1, 4;
  mov.u64 %rd3, a;
  add.s64 %rd3, %rd3, %rd2;
  st.shared.u32 [%rd3], %r1;
  mov.u64 %rd4, own;
  add.s64 %rd4, %rd4, %rd2;
  st.shared.u32 [%rd4], %r1;
  bar.sync 0;
  ld.shared.u32 %r2, [%rd3+20000];
  ld.shared.u32 %r3, [%rd4+4000];
  call (%r4), g, (%r1);
  add.u32 %r2, %r2, %r3;
  add.u32 %r2, %r2, %r4;
  st.global.u32 [%rd1], %r2;
  ret;
}
.visible .entry k70(.param .u64 p)
{
  .reg .b64 %rd<6>;
  .reg .b32 %r<4>;
  ld.param.u64 %rd1, [p];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd2, %r1, 4;
  mov.u64 %rd3, big;
  add.s64 %rd4, %rd3, %rd2;
  st.shared.u32 [%rd4+65000], %r1;
  bar.sync 0;
  ld.shared.u32 %r2, [%rd4+65004];
  st.global.u32 [%rd1], %r2;
  ret;
}
.visible .entry kdyn(.param .u64 p)
{
  .reg .b64 %rd<6>;
  .reg .b32 %r<4>;
  ld.param.u64 %rd1, [p];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd2, %r1, 4;
  mov.u64 %rd3, a;
  add.s64 %rd3, %rd3, %rd2;
  st.shared.u32 [%rd3], %r1;
  mov.u64 %rd4, dyn;
  add.s64 %rd4, %rd4, %rd2;
  st.shared.u32 [%rd4], %r1;
  bar.sync 0;
  ld.shared.u32 %r2, [%rd3+4];
  ld.shared.u32 %r3, [%rd4+4];
  add.u32 %r2, %r2, %r3;
  st.global.u32 [%rd1], %r2;
  ret;
}
.visible .entry kext(.param .u64 p)
{
  .reg .b64 %rd<6>;
  .reg .b32 %r<4>;
  ld.param.u64 %rd1, [p];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd2, %r1, 4;
  mov.u64 %rd4, dyn;
  add.s64 %rd4, %rd4, %rd2;
  st.shared.u32 [%rd4], %r1;
  bar.sync 0;
  ld.shared.u32 %r2, [%rd4+4];
  st.global.u32 [%rd1], %r2;
  ret;
}
"#;

fn reason(low: &wheelport::lower::LoweredModule, k: &str) -> Option<String> {
    match &low.kernels.iter().find(|r| r.name == k).unwrap().outcome {
        KernelOutcome::Lowered => None,
        KernelOutcome::Unsupported { reason, .. } => Some(reason.clone()),
    }
}

#[test]
fn static_and_dynamic_shared_memory_are_held_to_the_lds() {
    let Some((p, tc)) = lower_common::common::require_toolchain("dtk", T) else {
        return;
    };
    assert_eq!(p.lds_bytes, 65_536);
    let kdyn = &PTX
        [PTX.find(".visible .entry kdyn(").unwrap()..PTX.find(".visible .entry kext(").unwrap()];
    let ptx = format!("{PTX}{}", kdyn.replace("kdyn(", "kdyn_ok("));
    let parsed = wheelport::ptx::parse(&ptx, "lds.ptx");
    assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
    let mut facts = LaunchFacts::default();
    for (k, bytes) in [("kdyn", 40_000), ("kdyn_ok", 30_000)] {
        facts.dynamic_shared.insert(
            k.into(),
            SharedRequest {
                bytes,
                site: 0x1234,
            },
        );
    }
    let low = lower_module_with(&parsed.module, p, &facts);
    assert_eq!(
        reason(&low, "k70").as_deref(),
        Some("it declares 70000 bytes of static shared memory; a work-group of target dtk has 65536 bytes of LDS")
    );
    assert_eq!(
        reason(&low, "kdyn").as_deref(),
        Some("it declares 30000 bytes of static shared memory and the host code asks for 40000 bytes of dynamic shared memory for it (cudaFuncSetAttribute MaxDynamicSharedMemorySize at 0x1234): 70000 bytes; a work-group of target dtk has 65536 bytes of LDS")
    );
    for k in ["k58", "kdyn_ok", "kext"] {
        assert_eq!(reason(&low, k), None, "{k}");
    }
    // LLVM's count of the lowered kernels' static LDS is the one the check used.
    let built = build_module(
        p,
        &tc,
        ModuleInput {
            name: "lds",
            lowered: &low,
        },
        &BuildOptions {
            archs: vec!["gfx906".into()],
            cache: None,
            split_bytes: None,
        },
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let dir = tempfile::tempdir().unwrap();
    let meta = kernel_metadata(&built.objects[0].bytes, dir.path());
    let group = |k: &str| -> String {
        meta[k]
            .iter()
            .find_map(|l| l.strip_prefix(".group_segment_fixed_size:"))
            .unwrap_or_else(|| panic!("{k}: no .group_segment_fixed_size in {:?}", meta[k]))
            .trim()
            .to_string()
    };
    assert_eq!(group("k58"), "58000");
    assert_eq!(group("kdyn_ok"), "30000");
    assert_eq!(group("kext"), "0");
}
