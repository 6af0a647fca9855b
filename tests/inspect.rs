//! `wheelport inspect` on the corpus wheels and the fixtures, checked against figures from
//! cuobjdump, readelf and objdump (run live where they work) and against the figures,
//! which came from the same tools.

mod common;

use common::*;
use std::collections::BTreeMap;
use std::process::Command;
use wheelport::inspect::model::{InputReport, KernelStatus, Report, SharedObjectReport};

fn inspect_json(args: &[&str], path: &std::path::Path) -> Report {
    let (code, out, err) = run(Command::new(bin())
        .arg("inspect")
        .arg("--json")
        .args(args)
        .arg(path));
    assert_eq!(code, 0, "inspect failed: {err}");
    let report: Report = serde_json::from_str(&out).expect("JSON decodes into the report types");
    assert_eq!(report.schema.name, "wheelport.inspect");
    assert_eq!(report.schema.version, 1);
    report
}

fn so<'a>(input: &'a InputReport, member: &str) -> &'a SharedObjectReport {
    input
        .shared_objects
        .iter()
        .find(|s| s.path.contains(member))
        .unwrap_or_else(|| panic!("no shared object {member}"))
}

/// (kind, arch, compression) -> count.
fn by_group(s: &SharedObjectReport) -> BTreeMap<(String, String, String), usize> {
    let mut m = BTreeMap::new();
    for g in &s.fatbin.as_ref().unwrap().summary {
        *m.entry((g.kind.clone(), g.arch.clone(), g.compression.clone()))
            .or_default() += g.count;
    }
    m
}

/// Count `.nvFatBinSegment` wrappers with readelf (section size / 24).
fn readelf_wrapper_count(path: &std::path::Path) -> Option<u64> {
    let readelf = require_tool("readelf", "readelf_wrapper_count")?;
    let (_, out, _) = run(Command::new(readelf).arg("-SW").arg(path));
    let line = out.lines().find(|l| l.contains(".nvFatBinSegment"))?;
    let cols: Vec<&str> = line.split_whitespace().collect();
    let i = cols.iter().position(|c| *c == ".nvFatBinSegment")?;
    // Name Type Address Off Size
    Some(u64::from_str_radix(cols[i + 4], 16).ok()? / 24)
}

#[test]
fn xformers_figures() {
    let Some(wheel) = require_corpus("xformers-0.0.35", "xformers_figures") else {
        return;
    };
    let r = inspect_json(&["--kernels"], &wheel);
    let input = &r.inputs[0];
    let w = input.wheel.as_ref().unwrap();
    assert_eq!(w.name.as_deref(), Some("xformers"));
    assert_eq!(w.version.as_deref(), Some("0.0.35"));
    assert_eq!(w.tags, vec!["py39-none-manylinux_2_28_x86_64".to_string()]);
    let c = so(input, "xformers/_C.so");
    let fb = c.fatbin.as_ref().unwrap();
    // Figures from the issue (cuobjdump and readelf on this wheel).
    assert_eq!(fb.container_count, 11);
    let g = by_group(c);
    assert_eq!(
        g.get(&("ptx".into(), "compute_80".into(), "lz4".into())),
        Some(&11)
    );
    assert_eq!(
        g.get(&("elf".into(), "sm_75".into(), "none".into())),
        Some(&11)
    );
    assert_eq!(
        g.get(&("elf".into(), "sm_80".into(), "none".into())),
        Some(&11)
    );
    assert_eq!(
        g.get(&("elf".into(), "sm_90a".into(), "none".into())),
        Some(&11)
    );
    assert_eq!(fb.entry_count, 44);
    // 50 kernels carry PTX; one of them is an arch-guard stub (see xformers_arch_guard_stub).
    assert_eq!(
        c.verdict.kernels_with_ptx + c.verdict.kernels_arch_guard_stub,
        50
    );
    assert_eq!(c.verdict.kernels_sass_only, 0);
    assert_eq!(fb.wrappers.len(), 11);
    assert!(fb
        .wrappers
        .iter()
        .all(|w| w.magic == 0x466243b1 && w.version == 1 && w.data_relocated));
    // Each wrapper registers exactly one container, and each container has one wrapper.
    assert!(fb.containers.iter().all(|c| c.wrappers.len() == 1));
    assert_eq!(c.cuda_imports[0].library, "libcudart.so.12");
    assert_eq!(c.cuda_imports[0].symbols.len(), 18);
    assert!(c.cuda_imports[0]
        .symbols
        .contains(&"cudaGetDeviceProperties_v2@libcudart.so.12".to_string()));
    assert!(c.cuda_imports[0]
        .symbols
        .contains(&"cudaLaunchKernelExC@libcudart.so.12".to_string()));
    assert!(
        c.needed.contains(&"libc10_cuda.so".to_string())
            && c.needed.contains(&"libtorch_cuda.so".to_string())
    );
    let ks = c.kernels.as_ref().unwrap();
    assert_eq!(ks.len(), 50);
    assert!(ks.iter().all(
        |k| k.status != KernelStatus::SassOnly && k.ptx_archs == vec!["compute_80".to_string()]
    ));

    // The same figures derived live from the real tools.
    let dir = tempfile::tempdir().unwrap();
    let objs = extract_shared_objects(&wheel, dir.path());
    let (_, path) = objs.iter().find(|(n, _)| n == "xformers/_C.so").unwrap();
    if let Some(n) = readelf_wrapper_count(path) {
        assert_eq!(n as usize, fb.container_count);
    }
    if let Some(tool) = require_tool("cuobjdump", "xformers_figures") {
        let (_, out, _) = run(Command::new(&tool).args(["-lelf", "-lptx"]).arg(path));
        let elf = out.lines().filter(|l| l.starts_with("ELF file")).count();
        let ptx = out.lines().filter(|l| l.starts_with("PTX file")).count();
        assert_eq!((elf, ptx), (33, 11));
        // Kernels with PTX = `.entry` directives in the PTX cuobjdump extracts.
        let x = tempfile::tempdir().unwrap();
        run(Command::new(&tool)
            .args(["-xptx", "all"])
            .arg(path)
            .current_dir(x.path()));
        let mut entries = 0;
        for f in std::fs::read_dir(x.path()).unwrap() {
            let t = std::fs::read_to_string(f.unwrap().path()).unwrap();
            entries += t.lines().filter(|l| l.contains(".entry ")).count();
        }
        assert_eq!(entries, 50);
    }
}

#[test]
fn vllm_flash_attn_figures() {
    let Some(wheel) = require_corpus("vllm_flash_attn-2.6.2", "vllm_flash_attn_figures") else {
        return;
    };
    let r = inspect_json(&[], &wheel);
    let c = so(&r.inputs[0], "vllm_flash_attn_2_cuda");
    let fb = c.fatbin.as_ref().unwrap();
    assert_eq!(fb.container_count, 64);
    let g = by_group(c);
    assert_eq!(g.len(), 2, "{g:?}");
    assert_eq!(
        g.get(&("elf".into(), "sm_80".into(), "none".into())),
        Some(&64)
    );
    assert_eq!(
        g.get(&("elf".into(), "sm_90".into(), "none".into())),
        Some(&64)
    );
    assert_eq!(c.verdict.kernels_with_ptx, 0);
    // One kernel per __cudaRegisterFunction call (objdump -d counts 1504 calls), and every
    // one of the 64 wrappers is registered (64 calls of __cudaRegisterFatBinary).
    assert_eq!(c.verdict.kernels_sass_only, 1504);
    assert_eq!(
        fb.wrappers
            .iter()
            .filter(|w| w.registered == Some(true))
            .count(),
        64
    );
    let dir = tempfile::tempdir().unwrap();
    let objs = extract_shared_objects(&wheel, dir.path());
    let (_, path) = objs
        .iter()
        .find(|(n, _)| n.contains("vllm_flash_attn_2_cuda"))
        .unwrap();
    if let Some(n) = readelf_wrapper_count(path) {
        assert_eq!(n, 64);
    }
    if let Some(objdump) = require_tool("objdump", "vllm_flash_attn_figures") {
        let (_, out, _) = run(Command::new(objdump)
            .args(["-d", "--no-show-raw-insn"])
            .arg(path));
        let calls = out
            .lines()
            .filter(|l| l.contains("call") && l.contains("<__cudaRegisterFunction@plt>"))
            .count();
        assert_eq!(calls, 1504);
    }
}

#[test]
fn autoawq_figures() {
    let Some(wheel) = require_corpus("autoawq_kernels-0.0.9", "autoawq_figures") else {
        return;
    };
    let r = inspect_json(&[], &wheel);
    let input = &r.inputs[0];
    assert_eq!(input.shared_objects.len(), 5);
    // Reference §1.7: containers per module and the one LZ4 cubin.
    for (m, containers) in [
        ("awq_ext", 7),
        ("awq_ft_ext", 1),
        ("awq_v2_ext", 2),
        ("exl_ext.", 4),
        ("exlv2_ext", 2),
    ] {
        let s = so(input, m);
        assert_eq!(
            s.fatbin.as_ref().unwrap().container_count,
            containers,
            "{m}"
        );
        assert_eq!(s.verdict.kernels_with_ptx, 0, "{m}");
        assert!(s.verdict.kernels_sass_only > 0, "{m}");
    }
    let ft = so(input, "awq_ft_ext");
    let e = &ft.fatbin.as_ref().unwrap().containers[0].entries[0];
    assert_eq!((e.arch.as_str(), e.compression.as_str()), ("sm_75", "lz4"));
    assert_eq!(e.stored_size, 0x353292);
    assert_eq!(e.uncompressed_size, 0xbe4860);
    // The LZ4 cubin holds the same kernels as the raw sm_80 one next to it.
    let counts: Vec<usize> = ft.fatbin.as_ref().unwrap().containers[0]
        .entries
        .iter()
        .map(|e| e.kernel_count)
        .collect();
    assert!(
        counts.iter().all(|&n| n == counts[0] && n > 0),
        "{counts:?}"
    );
}

#[test]
fn fixtures_kernels_and_wrappers() {
    let dir = root().join("fixtures/cuda");
    let r = inspect_json(&["--kernels"], &dir.join("multi_tu.so"));
    let s = &r.inputs[0].shared_objects[0];
    let fb = s.fatbin.as_ref().unwrap();
    // Device-link container plus one per translation unit; its wrapper was dropped at -O2.
    assert_eq!(fb.container_count, 4);
    assert_eq!(fb.wrappers.len(), 3);
    assert!(fb.containers[0].wrappers.is_empty());
    assert_eq!(s.cuda_imports[0].library, "libcudart.so.13");
    let names: Vec<&str> = s
        .kernels
        .as_ref()
        .unwrap()
        .iter()
        .map(|k| k.name.as_str())
        .collect();
    assert!(names.contains(&"_Z5saxpyifPKfPf"), "{names:?}");
    // cuobjdump -symbols (recorded) lists the same ENTRY functions.
    let symbols = std::fs::read_to_string(dir.join("expected/multi_tu.symbols.txt")).unwrap();
    let mut recorded: Vec<&str> = symbols
        .lines()
        .filter(|l| l.starts_with("FUNC") && l.contains("ENTRY"))
        .filter_map(|l| l.split_whitespace().last())
        .collect();
    recorded.sort();
    recorded.dedup();
    let mut ours: Vec<&str> = names.clone();
    ours.sort();
    assert_eq!(ours, recorded);

    // rdc: three wrappers, the v2 one registering the device-linked image.
    let r = inspect_json(&[], &dir.join("rdc.so"));
    let fb = r.inputs[0].shared_objects[0].fatbin.as_ref().unwrap();
    assert_eq!(fb.wrappers.len(), 3);
    let v2: Vec<_> = fb.wrappers.iter().filter(|w| w.version == 2).collect();
    assert_eq!(v2.len(), 1);
    assert_eq!(v2[0].section.as_deref(), Some(".nv_fatbin"));
    assert_eq!(
        fb.wrappers
            .iter()
            .filter(|w| w.section.as_deref() == Some("__nv_relfatbin"))
            .count(),
        2
    );
    let rdc_ptx = fb
        .containers
        .iter()
        .flat_map(|c| &c.entries)
        .find(|e| e.kind == "ptx")
        .unwrap();
    assert_eq!(rdc_ptx.header_size, 0x60);
    assert_eq!(rdc_ptx.options.as_deref(), Some("--compile-only"));

    // arch_guard: sm_90a is arch 90 plus flag 0x100000.
    let r = inspect_json(&["--kernels"], &dir.join("arch_guard.so"));
    let s = &r.inputs[0].shared_objects[0];
    assert!(by_group(s).contains_key(&("elf".into(), "sm_90a".into(), "none".into())));
    assert_eq!(s.verdict.kernels_with_ptx, 2);
    assert_eq!(s.verdict.kernels_arch_guard_stub, 2);
}

#[test]
fn demo_wheel_human_output() {
    let whl =
        root().join("fixtures/wheels/wheelport_demo-0.1.0+cu13-py3-none-manylinux_2_28_x86_64.whl");
    let (code, out, err) = run(Command::new(bin()).args(["inspect", "--kernels"]).arg(&whl));
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("wheel wheelport_demo 0.1.0+cu13, tags py3-none-manylinux_2_28_x86_64"),
        "{out}"
    );
    assert!(out.contains("wheelport_demo/_kernels.so"), "{out}");
    assert!(out.contains("libcudart.so.13"), "{out}");
    assert!(out.contains("PTX   compute_80  zstd"), "{out}");
    assert!(
        out.contains("saxpy(int, float, float const*, float*)"),
        "{out}"
    );
    assert!(
        out.contains("verdict: 2 kernels with PTX, 0 SASS-only"),
        "{out}"
    );
}

#[test]
fn directory_input_expands_to_files() {
    let dir = tempfile::tempdir().unwrap();
    for f in ["sass_ptx.so", "lz4.so"] {
        std::fs::copy(root().join("fixtures/cuda").join(f), dir.path().join(f)).unwrap();
    }
    std::fs::write(dir.path().join("notes.txt"), "not an input").unwrap();
    let r = inspect_json(&[], dir.path());
    assert_eq!(r.inputs.len(), 2);
    assert_eq!(r.verdict.kernels_with_ptx, 4);
}

#[test]
fn convert_is_the_default_subcommand() {
    // `wheelport X.whl --target dtk` runs convert (tests/convert_*.rs check what it does).
    let whl =
        root().join("fixtures/wheels/wheelport_demo-0.1.0+cu13-py3-none-manylinux_2_28_x86_64.whl");
    let d = tempfile::tempdir().unwrap();
    let (code, out, err) = run(Command::new(bin())
        .arg(&whl)
        .args(["--target", "dtk", "-q", "-o"])
        .arg(d.path().join("out")));
    assert!(code == 5 || code == 0, "{out}\n{err}");
    assert!(
        out.contains("wheelport_demo/_kernels.so: 2 kernels"),
        "{out}"
    );
}

#[test]
fn schema_file_is_current() {
    // docs/inspect.schema.json is generated from the report types; set WHEELPORT_BLESS=1 to
    // rewrite it after an intended change (and bump SCHEMA_VERSION unless it is additive).
    let path = root().join("docs/inspect.schema.json");
    let schema =
        serde_json::to_string_pretty(&wheelport::inspect::model::json_schema()).unwrap() + "\n";
    if std::env::var_os("WHEELPORT_BLESS").is_some() {
        std::fs::write(&path, &schema).unwrap();
    }
    let committed = std::fs::read_to_string(&path).expect("docs/inspect.schema.json exists");
    assert_eq!(
        committed, schema,
        "docs/inspect.schema.json is stale; rerun with WHEELPORT_BLESS=1"
    );
    let v: serde_json::Value = serde_json::from_str(&committed).unwrap();
    for key in ["schema", "tool_version", "inputs", "verdict"] {
        assert!(
            v["required"].as_array().unwrap().iter().any(|k| k == key),
            "{key} not required"
        );
    }
}

/// Issue 9: arch-guard stubs. The xformers sparse fp8 sm90 GEMM's compute_80 PTX only prints
/// CUTLASS's "Arch conditional MMA" error; its sm_90a cubin holds the real code.
#[test]
fn xformers_arch_guard_stub() {
    let Some(wheel) = require_corpus("xformers-0.0.35", "xformers_arch_guard_stub") else {
        return;
    };
    let r = inspect_json(&["--kernels"], &wheel);
    let c = so(&r.inputs[0], "xformers/_C.so");
    let stubs: Vec<_> = c
        .kernels
        .as_ref()
        .unwrap()
        .iter()
        .filter(|k| k.status == KernelStatus::ArchGuardStub)
        .collect();
    assert_eq!(
        stubs.len(),
        1,
        "{:?}",
        stubs.iter().map(|k| &k.name).collect::<Vec<_>>()
    );
    let k = stubs[0];
    assert!(k.name.starts_with(
        "_ZN7cutlass13device_kernelINS_4gemm6kernel13GemmUniversalIN4cute5tupleIJiiiiEEE"
    ));
    // cuobjdump's 7th PTX module is container 6.
    assert_eq!(k.container, 6);
    assert_eq!(
        k.reason.as_deref(),
        Some("PTX is an arch-guard stub; real code only in sm_90a SASS")
    );
    assert_eq!(
        k.stub_message.as_deref(),
        Some("ERROR : Arch conditional MMA instruction used without targeting appropriate compute capability. Aborting.")
    );
    // Never counted as translated.
    assert_eq!(c.verdict.kernels_with_ptx, 49);
    assert_eq!(c.verdict.kernels_arch_guard_stub, 1);
    assert_eq!(
        r.verdict.kernels_with_ptx + r.verdict.kernels_arch_guard_stub,
        50
    );

    // The cubin sizes behind the verdict, from readelf on cuobjdump's extraction: 384 bytes of
    // sm_80 SASS (the stub) against 24,192 bytes of sm_90a SASS.
    let (Some(cuobjdump), Some(readelf)) = (
        require_tool("cuobjdump", "stub"),
        require_tool("readelf", "stub"),
    ) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let objs = extract_shared_objects(&wheel, dir.path());
    let (_, path) = objs.iter().find(|(n, _)| n == "xformers/_C.so").unwrap();
    let x = tempfile::tempdir().unwrap();
    run(Command::new(&cuobjdump)
        .args(["-xelf", "all"])
        .arg(path)
        .current_dir(x.path()));
    let stem = path.file_stem().unwrap().to_str().unwrap().to_string();
    let size_in = |cubin: &str| -> u64 {
        let (_, out, _) = run(Command::new(&readelf)
            .args(["-sW"])
            .arg(x.path().join(format!("{stem}.{cubin}"))));
        let line = out
            .lines()
            .find(|l| l.ends_with(&k.name) && l.contains("FUNC"))
            .unwrap();
        line.split_whitespace().nth(2).unwrap().parse().unwrap()
    };
    assert_eq!(size_in("20.sm_80.cubin"), 384);
    assert_eq!(size_in("21.sm_90a.cubin"), 24192);
}

#[test]
fn fixture_arch_guard_stubs() {
    let r = inspect_json(
        &["--untranslatable"],
        &root().join("fixtures/cuda/arch_guard.so"),
    );
    let s = &r.inputs[0].shared_objects[0];
    let ks = s.kernels.as_ref().unwrap();
    let status = |n: &str| ks.iter().find(|k| k.name == n).unwrap();
    let print = status("_Z20sm90_gemm_stub_printPKfS0_Pfi");
    let trap = status("_Z19sm90_gemm_stub_trapPKfS0_Pfi");
    assert_eq!(print.status, KernelStatus::ArchGuardStub);
    assert_eq!(trap.status, KernelStatus::ArchGuardStub);
    assert!(print
        .stub_message
        .as_deref()
        .unwrap()
        .starts_with("ERROR : Arch conditional MMA"));
    assert_eq!(trap.stub_message, None);
    for real in ["_Z13rowwise_scalePfPKfii", "_Z13add_bias_reluPfPKfii"] {
        assert_eq!(status(real).status, KernelStatus::Ptx, "{real}");
    }
    // --untranslatable: every form of the printing stub is lowered now (src/lower), so none is
    // reported; the forms themselves, counted in the PTX cuobjdump extracts (lines 33-50 of
    // expected/arch_guard.ptx/arch_guard.1.sm_80.ptx), come from the same analysis.
    assert_eq!(print.unsupported_forms.as_deref(), Some(&[][..]));
    let ptx_text = std::fs::read_to_string(
        root().join("fixtures/cuda/expected/arch_guard.ptx/arch_guard.1.sm_80.ptx"),
    )
    .unwrap();
    let parsed = wheelport::ptx::parse(&ptx_text, "arch_guard.1.sm_80.ptx");
    let kf = wheelport::ptx::analysis::kernel_forms(&parsed.module);
    let forms: Vec<(String, usize, u32)> = kf
        .iter()
        .find(|k| k.kernel == "_Z20sm90_gemm_stub_printPKfS0_Pfi")
        .unwrap()
        .forms
        .iter()
        .map(|f| (f.form.clone(), f.count, f.first_line))
        .collect();
    let want: Vec<(String, usize, u32)> = [
        ("mov.u64", 1, 33),
        ("cvta.global.u64", 1, 34),
        ("st.param.b64", 2, 38),
        ("call", 1, 42),
        ("ld.param.b32", 1, 48),
        ("ret", 1, 50),
    ]
    .iter()
    .map(|(f, c, l)| (f.to_string(), *c, *l))
    .collect();
    assert_eq!(forms, want);
    let ptx = std::fs::read_to_string(
        root().join("fixtures/cuda/expected/arch_guard.ptx/arch_guard.1.sm_80.ptx"),
    )
    .unwrap();
    let lines: Vec<&str> = ptx.lines().collect();
    assert!(lines[32].starts_with("mov.u64"), "{}", lines[32]);
    assert!(lines[41].starts_with("call.uni"), "{}", lines[41]);
    assert_eq!(lines[49], "ret;");
}

/// Which wrappers the host code registers (decoded with iced-x86), against objdump's
/// disassembly and the layouts of reference §2.1/§2.5.
#[test]
fn registered_wrappers() {
    let dir = root().join("fixtures/cuda");
    let reg = |f: &std::path::Path| -> Vec<(u32, Option<String>, Option<bool>)> {
        let r = inspect_json(&[], f);
        let fb = r.inputs[0].shared_objects[0].fatbin.clone().unwrap();
        fb.wrappers
            .iter()
            .map(|w| (w.version, w.section.clone(), w.registered))
            .collect()
    };
    // -O0 keeps nvcc 13's device-link wrapper, which no code registers.
    assert_eq!(
        reg(&dir.join("sass_ptx_o0.so")),
        vec![
            (2, Some(".nv_fatbin".into()), Some(false)),
            (1, Some(".nv_fatbin".into()), Some(true))
        ]
    );
    // -rdc: the device-linked image (v2) is registered; the relocatable images go to
    // __cudaRegisterLinkedBinary_* instead.
    assert_eq!(
        reg(&dir.join("rdc.so")),
        vec![
            (2, Some(".nv_fatbin".into()), Some(true)),
            (1, Some("__nv_relfatbin".into()), Some(false)),
            (1, Some("__nv_relfatbin".into()), Some(false))
        ]
    );
    assert!(reg(&dir.join("multi_tu.so"))
        .iter()
        .all(|w| w.2 == Some(true)));
    // xformers: 11 registered wrappers = 11 `call __cudaRegisterFatBinary@plt` in objdump -d.
    let Some(wheel) = require_corpus("xformers-0.0.35", "registered_wrappers") else {
        return;
    };
    let r = inspect_json(&[], &wheel);
    let fb = so(&r.inputs[0], "xformers/_C.so").fatbin.clone().unwrap();
    let n = fb
        .wrappers
        .iter()
        .filter(|w| w.registered == Some(true))
        .count();
    assert_eq!(n, 11);
    if let Some(objdump) = require_tool("objdump", "registered_wrappers") {
        let d = tempfile::tempdir().unwrap();
        let objs = extract_shared_objects(&wheel, d.path());
        let (_, out, _) = run(Command::new(objdump)
            .args(["-d", "--no-show-raw-insn"])
            .arg(&objs[0].1));
        let calls = out
            .lines()
            .filter(|l| l.contains("call") && l.contains("<__cudaRegisterFatBinary@plt>"))
            .count();
        assert_eq!(calls, n);
    }
}

/// Never drop a kernel silently: a kernel whose PTX function does not parse is reported as
/// not translatable, with the parser's line and column.
#[test]
fn kernel_with_unparsable_ptx_is_reported() {
    let src = root().join("fixtures/cuda/nocompress.so");
    let mut d = std::fs::read(&src).unwrap();
    let find = |hay: &[u8], needle: &[u8], from: usize| {
        hay[from..]
            .windows(needle.len())
            .position(|w| w == needle)
            .map(|p| p + from)
    };
    let entry = find(&d, b".entry _Z5saxpyifPKfPf", 0).unwrap();
    let ret = find(&d, b"ret;", entry).unwrap();
    d[ret..ret + 4].copy_from_slice(b"rxt;");
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("badptx.so");
    std::fs::write(&p, &d).unwrap();
    // The line of that `ret;` in the PTX cuobjdump extracted from the original.
    let ptx = std::fs::read_to_string(
        root().join("fixtures/cuda/expected/nocompress.ptx/nocompress.1.sm_80.ptx"),
    )
    .unwrap();
    let start = ptx.find(".entry _Z5saxpyifPKfPf").unwrap();
    let line = ptx[..ptx[start..].find("ret;").unwrap() + start]
        .lines()
        .count()
        + 1;
    let r = inspect_json(&["--kernels"], &p);
    let s = &r.inputs[0].shared_objects[0];
    assert_eq!(
        (s.verdict.kernels_with_ptx, s.verdict.kernels_invalid_ptx),
        (1, 1)
    );
    let k = s
        .kernels
        .as_ref()
        .unwrap()
        .iter()
        .find(|k| k.name == "_Z5saxpyifPKfPf")
        .unwrap();
    assert_eq!(k.status, KernelStatus::InvalidPtx);
    assert_eq!(
        k.reason.as_deref(),
        Some(format!("PTX does not parse: line {line}:1: unknown opcode `rxt`").as_str())
    );
}

/// `inspect --target`: the relink plan per object, with a user table winning over the
/// built-in rows.
#[test]
fn relink_plan_in_inspect() {
    let Some(wheel) = require_corpus("xformers-0.0.35", "relink_plan_in_inspect") else {
        return;
    };
    let r = inspect_json(&["--target", "dtk"], &wheel);
    let rel = so(&r.inputs[0], "xformers/_C.so").relink.clone().unwrap();
    assert_eq!(rel.target, "dtk");
    assert_eq!(
        rel.needed,
        vec![
            (
                "libcudart.so.12".to_string(),
                "libgalaxyhip.so.5".to_string()
            ),
            ("libc10_cuda.so".to_string(), "libc10_hip.so".to_string()),
            (
                "libtorch_cuda.so".to_string(),
                "libtorch_hip.so".to_string()
            )
        ]
    );
    // The torch stable-ABI imports resolve: two keep their names in libtorch_hip.so, the
    // error check is a shim (its code is translated for ROCm torch).
    assert!(rel.unresolved.is_empty(), "{:?}", rel.unresolved);
    assert!(
        rel.shimmed.iter().any(|s| s == "torch_c10_wpcu_check_msg"),
        "{:?}",
        rel.shimmed
    );
    // 18 libcudart imports + the torch imports with rows = renamed + shimmed + unresolved.
    assert_eq!(rel.renamed + rel.shimmed.len() + rel.unresolved.len(), 22);
    // A user's row wins.
    let d = tempfile::tempdir().unwrap();
    let user = d.path().join("mine.tsv");
    std::fs::write(
        &user,
        "#% schema: wheelport-relink-symbols/1\n#% target: dtk\n#% provenance: test\ntorch_c10_cuda_check_msg\tlibc10_cuda.so\trename\ttorch_c10_hip_check_msg\tlibc10_hip.so\t-\tmine\n",
    )
    .unwrap();
    let r = inspect_json(
        &["--target", "dtk", "--relink-table", user.to_str().unwrap()],
        &wheel,
    );
    let rel = so(&r.inputs[0], "xformers/_C.so").relink.clone().unwrap();
    assert!(rel.unresolved.is_empty());
    assert!(!rel.shimmed.iter().any(|s| s == "torch_c10_wpcu_check_msg"));
    let (code, _, err) = run(Command::new(bin())
        .args(["inspect", "--relink-table", "x.tsv"])
        .arg(&wheel));
    assert_eq!(
        code, 2,
        "--relink-table without --target is a usage error: {err}"
    );
}

/// XLA's CUDA plugin (jax_cuda13_pjrt 0.12.0.1) keeps the PTX of its command-buffer kernels in
/// `.rodata` and loads it at run time: `inspect` lists each as a runtime-loaded module with
/// its `.target` and kernels, and each listed text is a PTX module ptxas assembles (the real
/// tool as the oracle of what was found); no other corpus object is reported so.
#[test]
fn xla_plugin_ptx_kept_as_data_is_found() {
    let Some(wheel) = require_corpus("jax_cuda13_pjrt-0.12.0.1", "inspect") else {
        return;
    };
    let r = inspect_json(&[], &wheel);
    let input = &r.inputs[0];
    let found: Vec<(&str, Vec<String>)> = input
        .shared_objects
        .iter()
        .flat_map(|s| s.runtime_modules.iter().map(move |m| (s.path.as_str(), m)))
        .map(|(p, m)| (p, m.kernels.clone()))
        .collect();
    let plugin = "jax_plugins/xla_cuda13/xla_cuda_plugin.so";
    assert_eq!(
        found,
        [
            (plugin, vec!["set_case_condition".to_string()]),
            (plugin, vec!["set_while_condition".to_string()]),
            (plugin, vec!["noop".to_string()]),
        ],
    );
    let Some(ptxas) = require_tool("ptxas", "inspect") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let path = extract_member(&wheel, plugin, dir.path());
    let data = std::fs::read(&path).unwrap();
    for m in &so(input, plugin).runtime_modules {
        assert_eq!((m.kind.as_str(), m.section.as_str()), ("ptx", ".rodata"));
        let text = &data[m.offset as usize..(m.offset + m.size) as usize];
        let ptx = dir.path().join(format!("{}.ptx", m.kernels[0]));
        std::fs::write(&ptx, text).unwrap();
        // The modules say `.target sm_50`; CUDA 13's ptxas builds sm_75 and later, and PTX
        // for an older target assembles for a newer one.
        assert_eq!(m.target.as_deref(), Some("sm_50"));
        let (code, _, e) = run(Command::new(&ptxas)
            .args(["-arch", "sm_80", "-o"])
            .arg(dir.path().join("out.cubin"))
            .arg(&ptx));
        assert_eq!(code, 0, "{}: ptxas: {e}", m.kernels[0]);
    }
}
