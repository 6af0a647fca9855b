//! Repack: the demo wheel with its `.so` re-targeted for ROCm and a `+rocm` local version,
//! accepted by `installer --validate-record all`, `pip install` and `uv pip install`;
//! reproducible; untouched members raw-copied.

mod common;

use common::*;
use std::process::Command;
use wheelport::wheel::repack::{repack, RepackPlan, WheelName};

fn pytools() -> Option<std::path::PathBuf> {
    common::require_pytools("installer/uv checks")
}

#[test]
fn demo_wheel_repacks_and_installs() {
    let input =
        root().join("fixtures/wheels/wheelport_demo-0.1.0+cu13-py3-none-manylinux_2_28_x86_64.whl");
    let so_name = "wheelport_demo/_kernels.so";
    let mut r = wheelport::wheel::WheelReader::open(&input).unwrap();
    let so_bytes = r.read_member(so_name).unwrap();
    let so = wheelport::elf::scan(&so_bytes, so_name).unwrap();
    let table = wheelport::relink::load_builtin("rocm").unwrap();
    let p = wheelport::relink::plan(&table, &so);
    let (new_so, _) = wheelport::rewrite::rewrite(&so_bytes, &p.edits, so_name).unwrap();
    let plan = RepackPlan {
        local_label: "rocm".into(),
        replace: [(so_name.to_string(), new_so.clone())]
            .into_iter()
            .collect(),
        dist_info_extra: vec![("WHEELPORT".into(), b"target: rocm\n".to_vec())],
        source_date_epoch: Some(1_700_000_000),
        ..Default::default()
    };
    let d = tempfile::tempdir().unwrap();
    let out = repack(&input, d.path(), &plan).unwrap();
    assert_eq!(
        out.file_name().unwrap().to_str().unwrap(),
        "wheelport_demo-0.1.0+rocm-py3-none-manylinux_2_28_x86_64.whl"
    );
    // Nothing but the wheel is left in the output folder (the temporary file was renamed).
    assert_eq!(std::fs::read_dir(d.path()).unwrap().count(), 1);
    let mut w = wheelport::wheel::WheelReader::open(&out).unwrap();
    let info = w.info().unwrap().unwrap();
    assert_eq!(info.dist_info, "wheelport_demo-0.1.0+rocm.dist-info");
    assert_eq!(info.version.as_deref(), Some("0.1.0+rocm"));
    assert!(
        info.requires_dist.iter().all(|r| !r.starts_with("nvidia-")),
        "{:?}",
        info.requires_dist
    );
    assert_eq!(
        info.tags,
        vec!["py3-none-manylinux_2_28_x86_64".to_string()]
    );
    assert_eq!(w.read_member(so_name).unwrap(), new_so);
    let names = w.member_names();
    assert_eq!(
        names.last().unwrap(),
        "wheelport_demo-0.1.0+rocm.dist-info/RECORD"
    );
    // Reproducible.
    let d2 = tempfile::tempdir().unwrap();
    let out2 = repack(&input, d2.path(), &plan).unwrap();
    assert_eq!(std::fs::read(&out).unwrap(), std::fs::read(&out2).unwrap());
    // The untouched __init__.py is raw-copied: same compressed size and CRC.
    let zin = |p: &std::path::Path| zip::ZipArchive::new(std::fs::File::open(p).unwrap()).unwrap();
    let (mut a, mut b) = (zin(&input), zin(&out));
    let fa = a.by_name("wheelport_demo/__init__.py").unwrap();
    let (ca, crca) = (fa.compressed_size(), fa.crc32());
    drop(fa);
    let fb = b.by_name("wheelport_demo/__init__.py").unwrap();
    assert_eq!((fb.compressed_size(), fb.crc32()), (ca, crca));
    drop(fb);
    assert_eq!(
        WheelName::parse("flash_attn-2.6.2+cu121-1-cp311-cp311-linux_x86_64.whl")
            .unwrap()
            .build
            .as_deref(),
        Some("1")
    );

    // Independent installers.
    let Some(tools) = pytools() else { return };
    let target = d.path().join("installed");
    let (code, _, err) = run(Command::new("python3")
        .args(["-m", "installer", "--validate-record", "all", "--destdir"])
        .arg(&target)
        .arg(&out)
        .env("PYTHONPATH", &tools));
    assert_eq!(code, 0, "installer: {err}");
    let (code, _, err) = run(Command::new("python3")
        .args([
            "-m",
            "pip",
            "install",
            "--quiet",
            "--no-deps",
            "--no-index",
            "--target",
        ])
        .arg(d.path().join("pip"))
        .arg(&out));
    assert_eq!(code, 0, "pip: {err}");
    let uv = tools.join("bin/uv");
    let (code, _, err) = run(Command::new(&uv)
        .args([
            "pip",
            "install",
            "--no-deps",
            "--offline",
            "--no-cache",
            "--target",
        ])
        .arg(d.path().join("uv"))
        .arg(&out));
    assert_eq!(code, 0, "uv: {err}");
    assert!(d.path().join("uv/wheelport_demo/_kernels.so").is_file());
    assert!(d
        .path()
        .join("uv/wheelport_demo-0.1.0+rocm.dist-info/WHEELPORT")
        .is_file());

    // A RECORD that lies is caught by the same check (so the check is real).
    let bad = d.path().join("bad");
    std::fs::create_dir_all(&bad).unwrap();
    let mut plan_bad = plan.clone();
    plan_bad.local_label = "bad".into();
    let bad_whl = repack(&input, &bad, &plan_bad).unwrap();
    // Flip one byte of the .so and keep the old RECORD.
    let tampered = d
        .path()
        .join("wheelport_demo-0.1.0+bad-py3-none-manylinux_2_28_x86_64.whl");
    {
        let mut zin = zip::ZipArchive::new(std::fs::File::open(&bad_whl).unwrap()).unwrap();
        let mut zout = zip::ZipWriter::new(std::fs::File::create(&tampered).unwrap());
        for i in 0..zin.len() {
            let mut f = zin.by_index(i).unwrap();
            let name = f.name().unwrap().into_owned();
            let mut data = Vec::new();
            std::io::Read::read_to_end(&mut f, &mut data).unwrap();
            if name == so_name {
                data[100] ^= 1;
            }
            zout.start_file(name, zip::write::SimpleFileOptions::default())
                .unwrap();
            std::io::Write::write_all(&mut zout, &data).unwrap();
        }
        zout.finish().unwrap();
    }
    let (code, _, _) = run(Command::new("python3")
        .args(["-m", "installer", "--validate-record", "all", "--destdir"])
        .arg(d.path().join("t"))
        .arg(&tampered)
        .env("PYTHONPATH", &tools));
    assert_ne!(
        code, 0,
        "installer accepted a wheel whose RECORD does not match"
    );
}
