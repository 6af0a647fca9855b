//! `wheelport convert` on the demo wheel and the fixture objects: the README's main-job
//! command and its real outcome, `--allow-partial`, `--strict`, `.so` inputs, the cuda twin
//! target, SOURCE_DATE_EPOCH, the JSON report and its committed schema, `inspect --html`.

mod common;
mod convert_support;

use common::*;
use convert_support::*;
use std::ffi::OsStr;
use std::path::PathBuf;
use std::process::Command;

fn demo() -> PathBuf {
    root().join("fixtures/wheels/wheelport_demo-0.1.0+cu13-py3-none-manylinux_2_28_x86_64.whl")
}

fn os<S: AsRef<OsStr> + ?Sized>(s: &S) -> &OsStr {
    s.as_ref()
}

fn device_available(target: &str) -> bool {
    let p = wheelport::target::profile(target).unwrap();
    wheelport::device::Pipeline::discover(p)
        .available(p)
        .is_ok()
}

/// Kernels of the demo wheel that use no unsupported PTX form, as `wheelport inspect
/// --untranslatable` (the lowering's supported-forms table) reports them: (total, supported).
fn demo_supported() -> (usize, usize) {
    let (code, out, err) = run(Command::new(bin())
        .args(["inspect", "--json", "--kernels", "--untranslatable"])
        .arg(demo()));
    assert_eq!(code, 0, "{err}");
    let r: serde_json::Value = serde_json::from_str(&out).unwrap();
    let ks = r["inputs"][0]["shared_objects"][0]["kernels"]
        .as_array()
        .unwrap()
        .clone();
    let ok = ks
        .iter()
        .filter(|k| k["status"] == "ptx" && k["unsupported_forms"].as_array().unwrap().is_empty())
        .count();
    (ks.len(), ok)
}

#[test]
fn readme_main_job_command() {
    // `wheelport <demo> --target dtk -o out/` exactly as the README's quick start runs it.
    let d = tempfile::tempdir().unwrap();
    let (code, stdout, err) = run(Command::new(bin())
        .arg(demo())
        .args(["--target", "dtk", "-o"])
        .arg(d.path().join("out/")));
    let (total, supported) = demo_supported();
    if device_available("dtk") && supported == total {
        // With the device build wired in and every form supported, both kernels translate
        // and the wheel is written.
        assert_eq!(code, 0, "{stdout}\n{err}");
        assert_eq!(files_in(&d.path().join("out")).len(), 1);
        assert!(
            stdout.contains("2 translated, 0 not translated"),
            "{stdout}"
        );
    } else if device_available("dtk") {
        // Kernels with forms the lowering lacks are refused by the default policy, named
        // with the forms; nothing is written.
        assert_eq!(code, 5, "{stdout}\n{err}");
        assert!(!d.path().join("out").exists());
        assert!(
            stdout.contains(&format!(
                "wheelport_demo/_kernels.so: 2 kernels: {supported} translated, {} not translated",
                total - supported
            )),
            "{stdout}"
        );
        assert!(stdout.contains("no lowering for"), "{stdout}");
    } else {
        // The documented outcome of this build: both kernels have PTX, no device build, so the
        // default policy refuses and writes nothing.
        assert_eq!(code, 5, "{stdout}\n{err}");
        assert!(!d.path().join("out").exists());
        assert!(
            stdout
                .contains("wheelport_demo/_kernels.so: 2 kernels: 0 translated, 2 not translated"),
            "{stdout}"
        );
        assert!(
            stdout.contains("2  device build unavailable in this build"),
            "{stdout}"
        );
        assert!(stdout.contains("saxpy(int, float, float const*, float*)"));
        assert!(stdout.contains("reduce_sum(float const*, float*, int)"));
    }
}

#[test]
fn demo_allow_partial_json_and_install() {
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("out");
    let json = d.path().join("r.json");
    let (code, stdout, err) = run(Command::new(bin())
        .arg(demo())
        .args(["--target", "dtk", "--allow-partial", "-q", "-o"])
        .arg(&out)
        .arg("--json")
        .arg(&json)
        .env("SOURCE_DATE_EPOCH", "1700000000"));
    let (total, supported) = demo_supported();
    let expect = if device_available("dtk") && supported == total {
        0
    } else {
        6
    };
    assert_eq!(code, expect, "{stdout}\n{err}");
    let files = files_in(&out);
    assert_eq!(files.len(), 1);
    let whl = &files[0];
    assert_eq!(
        whl.file_name().unwrap().to_str().unwrap(),
        "wheelport_demo-0.1.0+dtk-py3-none-manylinux_2_28_x86_64.whl"
    );
    // The report: schema, counts as inspect counts them, every kernel with a reason.
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(r["schema"]["name"], "wheelport.convert");
    assert_eq!(r["exit_code"], expect);
    assert_eq!(r["totals"]["kernels"], 2);
    assert_eq!(r["totals"]["outputs_written"], 1);
    let so = &r["inputs"][0]["shared_objects"][0];
    assert_eq!(so["path"], "wheelport_demo/_kernels.so");
    assert_eq!(so["rewritten"], true);
    assert_eq!(so["host"]["needed"][0][0], "libcudart.so.13");
    assert_eq!(so["host"]["needed"][0][1], "libgalaxyhip.so.5");
    for k in so["kernels"].as_array().unwrap() {
        assert_eq!(k["found"], "ptx");
        if k["translated"] == false {
            assert!(k["reason"].is_string());
        }
    }
    assert_eq!(
        r["inputs"][0]["dropped_requirements"][0],
        "nvidia-cuda-runtime>=13,<14"
    );
    // Timestamps from SOURCE_DATE_EPOCH (2023-11-14 22:13:20 UTC).
    let mut z = zip::ZipArchive::new(std::fs::File::open(whl).unwrap()).unwrap();
    for i in 0..z.len() {
        let m = z.by_index(i).unwrap();
        let t = m.last_modified().unwrap();
        assert_eq!(
            (t.year(), t.month(), t.day(), t.hour(), t.minute()),
            (2023, 11, 14, 22, 13),
            "{}",
            m.name().unwrap()
        );
    }
    drop(z);
    let Some(site) = install_three_ways(whl, &d.path().join("install")) else {
        return;
    };
    let so = site.join("wheelport_demo/_kernels.so");
    let Some(needed) = readelf_needed(&so) else {
        return;
    };
    assert_eq!(
        needed,
        [
            "libgalaxyhip.so.5",
            "libstdc++.so.6",
            "libgcc_s.so.1",
            "libc.so.6",
            "libwheelport_shim.so"
        ]
    );
    // The shim ships in <dist>.libs/ and the object finds it through $ORIGIN.
    assert!(site
        .join("wheelport_demo.libs/libwheelport_shim.so")
        .is_file());
    let (_, dynamic, _) = run(Command::new("readelf").arg("-dW").arg(&so));
    assert!(
        dynamic.contains("[$ORIGIN/../wheelport_demo.libs]"),
        "{dynamic}"
    );
}

#[test]
fn strict_fails_on_an_import_without_mapping() {
    let d = tempfile::tempdir().unwrap();
    // A user table that declares cudaGetLastError unsupported on DTK.
    let table = d.path().join("t.tsv");
    std::fs::write(
        &table,
        "#% schema: wheelport-relink-symbols/1\n#% target: dtk\n\
         cudaGetLastError\tlibcudart.so.13\tunsupported\t-\t-\t-\ttest: pretend DTK lacks it\n",
    )
    .unwrap();
    let out = d.path().join("out");
    let (code, stdout, err) = convert(&[
        demo().as_os_str(),
        os("--target"),
        os("dtk"),
        os("--strict"),
        os("--relink-table"),
        table.as_os_str(),
        os("-o"),
        out.as_os_str(),
    ]);
    assert_eq!(code, 7, "{stdout}\n{err}");
    assert!(
        stdout.contains("unresolved import cudaGetLastError"),
        "{stdout}"
    );
    assert!(stdout.contains("test: pretend DTK lacks it"), "{stdout}");
    assert!(!out.exists());
    // Without --strict (and with --allow-partial) the same run writes the wheel.
    let (code, _, err) = convert(&[
        demo().as_os_str(),
        os("--target"),
        os("dtk"),
        os("--allow-partial"),
        os("--relink-table"),
        table.as_os_str(),
        os("-o"),
        out.as_os_str(),
    ]);
    assert!(code == 6 || code == 0, "{err}");
    assert_eq!(files_in(&out).len(), 1);
    // --strict and --allow-partial exclude each other (a usage error).
    let (code, _, _) = convert(&[
        demo().as_os_str(),
        os("--target"),
        os("dtk"),
        os("--allow-partial"),
        os("--strict"),
    ]);
    assert_eq!(code, 2);
}

#[test]
fn shared_object_input_and_twin_target() {
    let d = tempfile::tempdir().unwrap();
    let so = root().join("fixtures/cuda/sass_ptx.so");
    let out = d.path().join("out");
    let (code, stdout, err) = convert(&[
        so.as_os_str(),
        os("--target"),
        os("rocm"),
        os("--allow-partial"),
        os("-o"),
        out.as_os_str(),
    ]);
    assert!(code == 6 || code == 0, "{stdout}\n{err}");
    let written = out.join("sass_ptx.so");
    let Some(needed) = readelf_needed(&written) else {
        return;
    };
    assert!(!needed.iter().any(|n| is_cuda_soname(n)), "{needed:?}");
    assert!(needed.iter().any(|n| n == "libamdhip64.so.6"), "{needed:?}");
    // The output may not overwrite its input.
    let copy = d.path().join("in.so");
    std::fs::copy(&so, &copy).unwrap();
    let (code, _, err) = convert(&[
        copy.as_os_str(),
        os("--target"),
        os("rocm"),
        os("--allow-partial"),
        os("-o"),
        d.path().as_os_str(),
    ]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("would overwrite the input"), "{err}");
    assert_eq!(std::fs::read(&copy).unwrap(), std::fs::read(&so).unwrap());
    // The cuda twin keeps CUDA imports: without device code nothing in the object changes.
    let out2 = d.path().join("cuda");
    let (code, _, err) = convert(&[
        demo().as_os_str(),
        os("--target"),
        os("cuda"),
        os("--allow-partial"),
        os("-o"),
        out2.as_os_str(),
    ]);
    assert!(code == 6 || code == 0, "{err}");
    let whl = out2.join("wheelport_demo-0.1.0+cuda-py3-none-manylinux_2_28_x86_64.whl");
    let mut a = wheelport::wheel::WheelReader::open(&whl).unwrap();
    let mut b = wheelport::wheel::WheelReader::open(&demo()).unwrap();
    if !device_available("cuda") {
        assert_eq!(
            a.read_member("wheelport_demo/_kernels.so").unwrap(),
            b.read_member("wheelport_demo/_kernels.so").unwrap()
        );
    }
    // The cuda target keeps nvidia-* requirements (its wheels still run on CUDA).
    assert_eq!(
        a.info().unwrap().unwrap().requires_dist,
        vec!["nvidia-cuda-runtime>=13,<14".to_string()]
    );
}

#[test]
fn inspect_html_report() {
    let d = tempfile::tempdir().unwrap();
    let html = d.path().join("r.html");
    let (code, _, err) = run(Command::new(bin())
        .args(["inspect", "--html"])
        .arg(&html)
        .arg(demo())
        .arg(root().join("fixtures/cuda/arch_guard.so")));
    assert_eq!(code, 0, "{err}");
    let h = std::fs::read_to_string(&html).unwrap();
    assert!(h.starts_with("<!DOCTYPE html>"));
    assert!(h.trim_end().ends_with("</html>"));
    // Self-contained: no scripts, no outside resources.
    for bad in ["<script", "src=", "href=", "@import", "url("] {
        assert!(!h.contains(bad), "{bad}");
    }
    // Content from the input, escaped.
    assert!(h.contains("saxpy(int, float, float const*, float*)"));
    assert!(h.contains("libcudart.so.13"));
    assert!(
        h.contains("arch_guard_stub"),
        "the stub kernels of arch_guard.so"
    );
    // Templates in demangled names are escaped.
    let (_, _, _) = run(Command::new(bin())
        .args(["inspect", "--html"])
        .arg(&html)
        .arg(root().join("fixtures/cuda/multi_tu.so")));
    let h = std::fs::read_to_string(&html).unwrap();
    assert!(!h.contains("<float>") && !h.contains("<int>"));
}

#[test]
fn report_schema_file_is_current() {
    // docs/report.schema.json is generated from the report types; set WHEELPORT_BLESS=1 to
    // rewrite it after an intended change (and bump SCHEMA_VERSION unless it is additive).
    let path = root().join("docs/report.schema.json");
    let schema = serde_json::to_string_pretty(&wheelport::report::json_schema()).unwrap() + "\n";
    if std::env::var_os("WHEELPORT_BLESS").is_some() {
        std::fs::write(&path, &schema).unwrap();
    }
    let committed = std::fs::read_to_string(&path).expect("docs/report.schema.json exists");
    assert_eq!(
        committed, schema,
        "docs/report.schema.json is stale; rerun with WHEELPORT_BLESS=1"
    );
    let v: serde_json::Value = serde_json::from_str(&committed).unwrap();
    for key in [
        "schema",
        "target",
        "inputs",
        "totals",
        "status",
        "exit_code",
    ] {
        assert!(
            v["required"].as_array().unwrap().iter().any(|k| k == key),
            "{key} not required"
        );
    }
}
