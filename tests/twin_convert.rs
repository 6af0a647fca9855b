//! The cuda twin conversion on the nvcc-built fixtures, with a stand-in for the PTX lowering:
//! clang 19's IR of the same kernels (fixtures/ir/twin_kernels.cu). Checked with cuobjdump
//! 13.5 (only the new PTX is listed and extracted byte-identical), ptxas 13.5 (accepts it),
//! and readelf (the new section in a read-only PT_LOAD, the wrapper's relocation pointing
//! into it).

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use wheelport::lower::{KernelOutcome, KernelResult, LoweredModule, ParamLayout};
use wheelport::target::Profile;
use wheelport::toolchain::Toolchain;
use wheelport::twin::{twin, TwinOptions, TwinReport, WrapperStatus};

const STANDIN_REASON: &str = "not in the stand-in IR (fixtures/ir/twin_kernels.cu)";

/// PTX parameter layout (PTX ISA §5.1.6): each `.param` at its alignment, in order.
fn layout(f: &wheelport::ptx::Function<'_>) -> Vec<ParamLayout> {
    let mut off = 0u32;
    f.params
        .iter()
        .map(|p| {
            let elem = p.ty.bits().div_ceil(8).max(1) * u32::from(p.vector.unwrap_or(1));
            let count: u64 = p.decls[0].array.iter().map(|n| n.unwrap_or(0)).product();
            let align = p.align.unwrap_or(elem);
            off = off.div_ceil(align) * align;
            let l = ParamLayout {
                name: p.decls[0].name.to_string(),
                offset: off,
                size: elem * count as u32,
                align,
            };
            off += l.size;
            l
        })
        .collect()
}

/// The stand-in lowering: kernels that clang's IR defines are "lowered" (with the layout of
/// the nvcc PTX's own `.param` list), the others are reported unsupported.
fn standin(m: &wheelport::ptx::Module<'_>, p: &Profile) -> LoweredModule {
    let ir =
        std::fs::read_to_string(common::root().join("fixtures/ir/twin_kernels.nvptx.ll")).unwrap();
    let kernels: Vec<KernelResult> = m
        .functions()
        .filter(|f| f.kind == wheelport::ptx::FunctionKind::Entry && f.body.is_some())
        .map(|f| KernelResult {
            name: f.name.to_string(),
            outcome: if ir.contains(&format!("@{}(", f.name)) {
                KernelOutcome::Lowered
            } else {
                KernelOutcome::Unsupported {
                    forms: vec![],
                    reason: STANDIN_REASON.into(),
                }
            },
            params: layout(f),
            notes: vec![],
        })
        .collect();
    let any = kernels.iter().any(|k| k.outcome == KernelOutcome::Lowered);
    LoweredModule {
        ir: if any {
            ir
        } else {
            format!(
                "target datalayout = \"{}\"\ntarget triple = \"{}\"\n",
                p.datalayout, p.triple
            )
        },
        kernels,
        support_library: String::new(),
    }
}

fn cuda() -> Option<(&'static Profile, Toolchain)> {
    common::require_toolchain("cuda", "cuda toolchain")
}

fn convert(fixture: &str, dir: &Path) -> Option<(PathBuf, Vec<u8>, TwinReport)> {
    let (p, tc) = cuda()?;
    let input = common::root().join("fixtures/cuda").join(fixture);
    let data = std::fs::read(&input).unwrap();
    let t0 = std::time::Instant::now();
    let (out, report) = twin(&data, fixture, p, &tc, &TwinOptions::default(), &standin).unwrap();
    eprintln!("{fixture}: twin in {:.2} s", t0.elapsed().as_secs_f64());
    let path = dir.join(fixture);
    wheelport::twin::write_output(&path, &out).unwrap();
    // For a run on a GPU: WHEELPORT_KEEP_TWINS=DIR keeps `<stem>.twin.so` there.
    if let Some(keep) = std::env::var_os("WHEELPORT_KEEP_TWINS") {
        let stem = fixture.trim_end_matches(".so");
        std::fs::write(Path::new(&keep).join(format!("{stem}.twin.so")), &out).unwrap();
    }
    Some((path, out, report))
}

fn tool_run(tool: &Path, args: &[&str], file: &Path, cwd: &Path) -> (i32, String, String) {
    common::run(
        Command::new(tool)
            .args(args)
            .arg(file)
            .current_dir(cwd)
            .env("LC_ALL", "C"),
    )
}

#[test]
fn sass_ptx_twin_holds_only_the_lowered_ptx() {
    let t = tempfile::tempdir().unwrap();
    let Some((path, out, report)) = convert("sass_ptx.so", t.path()) else {
        return;
    };
    let input = std::fs::read(common::root().join("fixtures/cuda/sass_ptx.so")).unwrap();

    // The report.
    assert_eq!(report.wrappers.len(), 1);
    let w = &report.wrappers[0];
    assert_eq!(w.status, WrapperStatus::Converted);
    assert_eq!(
        w.source_ptx,
        Some(("compute_80".to_string(), "9.5".to_string()))
    );
    let names: Vec<&str> = w.kernels.iter().map(|k| k.name.as_str()).collect();
    assert_eq!(names, ["_Z5saxpyifPKfPf", "_Z10reduce_sumPKfPfi"]);
    assert!(report.complete(), "{report:?}");
    assert_eq!(report.section_name, ".nv_fatbin");
    // Container #1 (the TU's) and #0 (the unregistered device-link one) zeroed.
    assert_eq!(report.zeroed.len(), 2);

    // Our own reader: one .nv_fatbin container with one PTX entry; the wrapper points at it.
    let so = wheelport::elf::scan(&out, "twin").unwrap();
    let so_in = wheelport::elf::scan(&input, "in").unwrap();
    assert_eq!(so.needed, so_in.needed, "DT_NEEDED must stay");
    assert_eq!(so.imports, so_in.imports);
    let secs = wheelport::fatbin::parse_object_sections(&out, &so, "twin").unwrap();
    assert_eq!(secs.len(), 1);
    let (info, containers) = &secs[0];
    assert_eq!(info.name, ".nv_fatbin");
    assert_eq!(containers.len(), 1);
    assert_eq!(containers[0].entries.len(), 1);
    let ptx = containers[0].entries[0].ptx_bytes().unwrap().into_owned();
    let ptx_text = String::from_utf8(ptx.clone()).unwrap();
    assert!(
        ptx_text.starts_with("//\n// Generated by LLVM NVPTX Back-End"),
        "{ptx_text}"
    );
    assert_eq!(so.wrappers[0].magic, 0x466243b1);
    assert_eq!(so.wrappers[0].version, 1);
    assert_eq!(so.wrappers[0].data, info.address);
    assert_eq!(w.new_ptx_bytes, ptx.len());

    // The same PTX as a direct build of the stand-in IR (llc is deterministic).
    let (p, tc) = cuda().unwrap();
    let lm = LoweredModule {
        ir: std::fs::read_to_string(common::root().join("fixtures/ir/twin_kernels.nvptx.ll"))
            .unwrap(),
        kernels: w.kernels.clone(),
        support_library: String::new(),
    };
    let b = wheelport::build::build_module(
        p,
        &tc,
        wheelport::build::ModuleInput {
            name: "direct",
            lowered: &lm,
        },
        &wheelport::build::BuildOptions {
            archs: vec!["sm_80".into()],
            cache: None,
            split_bytes: None,
        },
    )
    .unwrap();
    assert_eq!(b.objects[0].bytes, ptx);

    // readelf: the section is 4096-aligned, in a read-only PT_LOAD; the old one is zero.
    let (c, sections, e) = common::run(Command::new("readelf").args(["-SW"]).arg(&path));
    assert_eq!(c, 0, "{e}");
    let line = sections
        .lines()
        .find(|l| l.contains(" .nv_fatbin "))
        .unwrap()
        .to_string();
    let f: Vec<&str> = line[line.find(".nv_fatbin").unwrap()..]
        .split_whitespace()
        .collect();
    // Name Type Address Off Size ES Flg Lk Inf Al
    assert_eq!((f[1], f[6], f[9]), ("PROGBITS", "A", "4096"), "{line}");
    let addr = u64::from_str_radix(f[2], 16).unwrap();
    assert_eq!(addr, info.address);
    let orig = sections
        .lines()
        .find(|l| l.contains(" .nv_fatbin.orig "))
        .expect("renamed original");
    let o: Vec<&str> = orig[orig.find(".nv_fatbin.orig").unwrap()..]
        .split_whitespace()
        .collect();
    let (ooff, osize) = (
        usize::from_str_radix(o[3], 16).unwrap(),
        usize::from_str_radix(o[4], 16).unwrap(),
    );
    assert!(
        out[ooff..ooff + osize].iter().all(|&b| b == 0),
        "original fatbin bytes remain"
    );
    let (c, segs, e) = common::run(Command::new("readelf").args(["-lW"]).arg(&path));
    assert_eq!(c, 0, "{e}");
    let load = segs
        .lines()
        .filter(|l| l.trim_start().starts_with("LOAD"))
        .find(|l| {
            let v: Vec<&str> = l.split_whitespace().collect();
            let va = u64::from_str_radix(v[2].trim_start_matches("0x"), 16).unwrap();
            let msz = u64::from_str_radix(v[5].trim_start_matches("0x"), 16).unwrap();
            va <= addr && addr < va + msz
        })
        .unwrap_or_else(|| panic!("no PT_LOAD covers {addr:#x}:\n{segs}"));
    let flags: String = load
        .split_whitespace()
        .skip(6)
        .take_while(|x| !x.starts_with("0x"))
        .collect();
    assert_eq!(flags, "R", "{load}");
    // The wrapper's data pointer relocation points into the section.
    let (c, relocs, e) = common::run(Command::new("readelf").args(["-rW"]).arg(&path));
    assert_eq!(c, 0, "{e}");
    let at = format!("{:016x}", so.wrappers[0].address + 8);
    let r = relocs
        .lines()
        .find(|l| l.starts_with(&at))
        .unwrap_or_else(|| panic!("no relocation at {at}:\n{relocs}"));
    assert!(
        r.contains("R_X86_64_RELATIVE") && r.trim_end().ends_with(&format!("{addr:x}")),
        "{r}"
    );

    // cuobjdump 13.5: only our PTX, no cubin; extracted byte-identical; ptxas accepts it.
    let Some(cuobjdump) = common::require_tool("cuobjdump", "sass_ptx_twin") else {
        return;
    };
    let (c, lptx, e) = tool_run(&cuobjdump, &["-lptx"], &path, t.path());
    assert_eq!(c, 0, "{e}");
    assert_eq!(lptx.trim_end(), "PTX file    1: sass_ptx.1.sm_80.ptx");
    let (_, lelf, lelf_err) = tool_run(&cuobjdump, &["-lelf"], &path, t.path());
    assert!(!lelf.contains("ELF file"), "{lelf}");
    assert!(lelf_err.contains("No ELF file found"), "{lelf_err}");
    let x = t.path().join("x");
    std::fs::create_dir(&x).unwrap();
    let (c, _, e) = tool_run(&cuobjdump, &["-xptx", "all"], &path, &x);
    assert_eq!(c, 0, "{e}");
    let extracted = std::fs::read(x.join("sass_ptx.1.sm_80.ptx")).unwrap();
    assert_eq!(extracted, ptx);
    if let Some(ptxas) = common::require_tool("ptxas", "sass_ptx_twin") {
        let (c, _, e) = common::run(
            Command::new(ptxas)
                .args(["-arch=sm_80", "-o"])
                .arg(t.path().join("k.cubin"))
                .arg(x.join("sass_ptx.1.sm_80.ptx")),
        );
        assert_eq!(c, 0, "ptxas: {e}");
    }
}

#[test]
fn multi_tu_reports_every_kernel_not_lowered() {
    let t = tempfile::tempdir().unwrap();
    let Some((path, out, report)) = convert("multi_tu.so", t.path()) else {
        return;
    };
    assert_eq!(report.wrappers.len(), 3);
    assert!(report
        .wrappers
        .iter()
        .all(|w| w.status == WrapperStatus::Converted));
    let nl: Vec<&str> = report.not_lowered().iter().map(|(_, k, _)| *k).collect();
    assert_eq!(
        nl,
        [
            "_Z10map_kernelIfN2wp4ReluEEvPT_PKS2_iT0_",
            "_Z10map_kernelIiN2wp6SquareEEvPT_PKS2_iT0_",
            "_Z10scale_biasIfLi4EEvPT_PKS0_S0_S0_i",
            "_Z10scale_biasIdLi2EEvPT_PKS0_S0_S0_i",
            "_Z11debug_printPKfi"
        ]
    );
    assert!(report
        .not_lowered()
        .iter()
        .all(|(_, _, r)| *r == STANDIN_REASON));
    assert!(!report.complete());
    let text = wheelport::twin::render(&report);
    assert!(
        text.contains("NOT LOWERED") && text.contains("_Z11debug_printPKfi"),
        "{text}"
    );
    // Four containers zeroed (3 TUs and the device-link one); three new ones.
    assert_eq!(report.zeroed.len(), 4);
    let so = wheelport::elf::scan(&out, "twin").unwrap();
    let secs = wheelport::fatbin::parse_object_sections(&out, &so, "twin").unwrap();
    assert_eq!(secs[0].1.len(), 3);
    for (w, c) in so.wrappers.iter().zip(&secs[0].1) {
        assert_eq!(w.data_offset, Some(c.offset));
        assert_eq!(c.offset % 4096, secs[0].1[0].offset % 4096);
    }
    if let Some(cuobjdump) = common::require_tool("cuobjdump", "multi_tu_twin") {
        let (c, lptx, e) = tool_run(&cuobjdump, &["-lptx"], &path, t.path());
        assert_eq!(c, 0, "{e}");
        assert_eq!(lptx.lines().count(), 3, "{lptx}");
        assert!(lptx.lines().all(|l| l.ends_with(".sm_80.ptx")), "{lptx}");
    }
}

#[test]
fn unregistered_and_sass_only_wrappers() {
    let t = tempfile::tempdir().unwrap();
    // sass_ptx_o0: the device-link wrapper (v2) is kept by gcc -O0 but never registered.
    let Some((_, out, report)) = convert("sass_ptx_o0.so", t.path()) else {
        return;
    };
    let st: Vec<&WrapperStatus> = report.wrappers.iter().map(|w| &w.status).collect();
    assert_eq!(
        st,
        [&WrapperStatus::NotRegistered, &WrapperStatus::Converted]
    );
    assert!(report.complete());
    let so = wheelport::elf::scan(&out, "twin").unwrap();
    assert_eq!(so.wrappers[0].magic, 0x466243b1);
    assert_eq!(
        so.wrappers[0].version, 2,
        "the unregistered wrapper is left as it was"
    );
    // rdc: the registered device-link fatbin is SASS only; nothing to convert, the output is
    // the input.
    let Some((_, out, report)) = convert("rdc.so", t.path()) else {
        return;
    };
    assert_eq!(
        report
            .wrappers
            .iter()
            .filter(|w| w.status == WrapperStatus::SassOnly)
            .count(),
        1
    );
    assert!(!report.complete());
    assert_eq!(
        out,
        std::fs::read(common::root().join("fixtures/cuda/rdc.so")).unwrap()
    );
    assert!(wheelport::twin::render(&report).contains("SASS only"));
}

#[test]
fn device_variables_missing_from_the_new_ptx_are_reported() {
    // globals.so registers c_coeffs, c_degree, d_counter, d_table, d_scalar
    // (__cudaRegisterVar); the stand-in IR defines none of them.
    let t = tempfile::tempdir().unwrap();
    let Some((_, _, report)) = convert("globals.so", t.path()) else {
        return;
    };
    let w = report
        .wrappers
        .iter()
        .find(|w| w.status == WrapperStatus::Converted)
        .unwrap();
    assert_eq!(
        w.variables_missing,
        [
            "c_coeffs: not defined in the new PTX",
            "c_degree: not defined in the new PTX",
            "d_counter: not defined in the new PTX",
            "d_table: not defined in the new PTX",
            "d_scalar: not defined in the new PTX"
        ]
    );
    assert!(!report.complete());
    assert!(wheelport::twin::render(&report).contains("VARIABLE MISSING (wrapper"));
    // sass_ptx has no device variables: nothing reported.
    let Some((_, _, report)) = convert("sass_ptx.so", t.path()) else {
        return;
    };
    assert!(report.wrappers[0].variables_missing.is_empty());
}

#[test]
fn bad_inputs_are_errors_not_panics() {
    let Some((p, tc)) = cuda() else { return };
    let data = std::fs::read(common::root().join("fixtures/cuda/sass_ptx.so")).unwrap();
    let e = twin(
        &data[..data.len() / 3],
        "cut.so",
        p,
        &tc,
        &TwinOptions::default(),
        &standin,
    )
    .unwrap_err();
    assert_eq!(e.file, "cut.so");
    let dtk = wheelport::target::profile("dtk").unwrap();
    let e = twin(&data, "x.so", dtk, &tc, &TwinOptions::default(), &standin).unwrap_err();
    assert!(e.message.contains("cuda (nvptx) profile"), "{e}");
    let opts = TwinOptions {
        arch: "gfx906".into(),
        cache: None,
        keep_source: Vec::new(),
    };
    let e = twin(&data, "x.so", p, &tc, &opts, &standin).unwrap_err();
    assert!(e.message.contains("not an sm_NN"), "{e}");
    // A lowering whose layout disagrees with what llc builds: the build check refuses that
    // kernel, which is reported not lowered with the build error; the other kernel of the
    // module is still converted.
    let wrong = |m: &wheelport::ptx::Module<'_>, p: &Profile| {
        let mut l = standin(m, p);
        if let Some(k) = l.kernels.iter_mut().find(|k| k.name == "_Z5saxpyifPKfPf") {
            k.params[1].offset = 8;
        }
        l
    };
    let (_, report) = twin(&data, "x.so", p, &tc, &TwinOptions::default(), &wrong).unwrap();
    let not = report.not_lowered();
    let saxpy: Vec<_> = not
        .iter()
        .filter(|(_, k, _)| *k == "_Z5saxpyifPKfPf")
        .collect();
    assert_eq!(saxpy.len(), 1, "{not:?}");
    assert!(
        saxpy[0]
            .2
            .contains("kernel `_Z5saxpyifPKfPf`: .param list[1] .offset is 4"),
        "{}",
        saxpy[0].2
    );
    assert!(!report.complete());
    let w = &report.wrappers[0];
    assert_eq!(w.status, WrapperStatus::Converted);
    assert!(w
        .kernels
        .iter()
        .any(|k| k.name == "_Z10reduce_sumPKfPfi" && k.outcome == KernelOutcome::Lowered));
}

/// `--keep-source`: the named kernel keeps nvcc's PTX `.entry` inside the llc-built PTX, the
/// other is the lowering's, the report lists it and the twin is not complete.
#[test]
fn keep_source_splices_the_source_entry() {
    let Some((p, tc)) = cuda() else {
        return;
    };
    let input = common::root().join("fixtures/cuda/sass_ptx.so");
    let data = std::fs::read(&input).unwrap();
    let opts = TwinOptions {
        keep_source: vec!["reduce_sum".into()],
        ..TwinOptions::default()
    };
    let (out, report) = twin(&data, "sass_ptx.so", p, &tc, &opts, &standin).unwrap();
    let w = &report.wrappers[0];
    assert_eq!(w.kept_source, ["_Z10reduce_sumPKfPfi"]);
    assert!(!report.complete());
    assert!(wheelport::twin::render(&report).contains("SOURCE PTX KEPT"));
    let so = wheelport::elf::scan(&out, "twin").unwrap();
    let secs = wheelport::fatbin::parse_object_sections(&out, &so, "twin").unwrap();
    let ptx = secs[0].1[0].entries[0].ptx_bytes().unwrap().into_owned();
    let ptx = String::from_utf8(ptx).unwrap();
    assert!(ptx.starts_with("//\n// Generated by LLVM NVPTX Back-End"));
    assert_eq!(ptx.matches(".entry _Z10reduce_sumPKfPfi(").count(), 1);
    assert_eq!(ptx.matches(".entry _Z5saxpyifPKfPf(").count(), 1);
    // The source's entry, as nvcc wrote it (untabbed parameter lines), and the raised version.
    assert!(
        ptx.contains("\n.param .u64 _Z10reduce_sumPKfPfi_param_0"),
        "{ptx}"
    );
    assert!(
        ptx.contains("\n\t.param .f32 _Z5saxpyifPKfPf_param_1"),
        "{ptx}"
    );
    assert!(ptx.contains(".version 8.8\n"), "{ptx}");
    // ptxas accepts the spliced module, when it is here.
    if let Some(ptxas) = common::find_tool("ptxas") {
        let t = tempfile::tempdir().unwrap();
        let f = t.path().join("k.ptx");
        std::fs::write(&f, &ptx).unwrap();
        let (rc, _, err) = tool_run(&ptxas, &["-arch=sm_80", "-o", "/dev/null"], &f, t.path());
        assert_eq!(rc, 0, "{err}");
    }
}
