//! The SBOM every converted wheel carries (PEP 770, `.dist-info/sboms/wheelport.cdx.json`,
//! `src/report/sbom.rs`): it validates against CycloneDX 1.6's published JSON schema (CycloneDX's
//! own `cyclonedx-python-lib` strict validator), names the input wheel by the SHA-256 of its
//! file, every member wheelport wrote by the SHA-256 of that member in the output, the relink
//! tables by theirs, and the tools that built the device code by the version line `doctor`
//! records; two conversions give the same bytes. On the demo wheel (dtk) and xformers 0.0.35
//! (dtk, `--allow-partial`), which pip, uv and installer install with it
//! (`tests/convert_demo.rs`, `tests/convert_xformers.rs`).

mod common;

use common::*;
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::process::Command;

const T: &str = "sbom";

fn hex(d: &[u8]) -> String {
    Sha256::digest(d)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn convert_to(input: &Path, out: &Path, partial: bool) -> PathBuf {
    let mut c = Command::new(bin());
    c.arg(input).args(["--target", "dtk", "-q", "-o"]).arg(out);
    if partial {
        c.arg("--allow-partial");
    }
    let (code, o, e) = run(&mut c);
    assert!(code == 0 || (partial && code == 6), "{o}{e}");
    std::fs::read_dir(out)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|x| x == "whl"))
        .expect("a wheel written")
}

fn check(input: &Path, partial: bool, cdx: &Path) {
    let d = tempfile::tempdir().unwrap();
    let whl = convert_to(input, &d.path().join("a"), partial);
    let again = convert_to(input, &d.path().join("b"), partial);
    let mut r = wheelport::wheel::WheelReader::open(&whl).unwrap();
    let names = r.member_names();
    let sbom_name = names
        .iter()
        .find(|n| n.ends_with(".dist-info/sboms/wheelport.cdx.json"))
        .unwrap_or_else(|| panic!("no SBOM in {names:?}"))
        .clone();
    let text = r.read_member(&sbom_name).unwrap();
    let mut r2 = wheelport::wheel::WheelReader::open(&again).unwrap();
    assert_eq!(
        r2.read_member(&sbom_name).unwrap(),
        text,
        "two conversions, two SBOMs"
    );
    // CycloneDX's validator.
    let py = r#"
import sys
from cyclonedx.validation.json import JsonStrictValidator
from cyclonedx.schema import SchemaVersion
err = JsonStrictValidator(SchemaVersion.V1_6).validate_str(open(sys.argv[1]).read())
print("valid" if err is None else "invalid: %s" % err)
"#;
    let f = d.path().join("sbom.json");
    std::fs::write(&f, &text).unwrap();
    let (code, o, e) = run(Command::new("python3")
        .arg("-c")
        .arg(py)
        .arg(&f)
        .env("PYTHONPATH", cdx));
    assert_eq!((code, o.as_str()), (0, "valid\n"), "{e}");

    let v: serde_json::Value = serde_json::from_slice(&text).unwrap();
    let anc = &v["metadata"]["component"]["pedigree"]["ancestors"][0];
    assert_eq!(
        anc["hashes"][0]["content"].as_str().unwrap(),
        hex(&std::fs::read(input).unwrap()),
        "the input wheel's sha256"
    );
    assert!(v["metadata"]["component"]["purl"]
        .as_str()
        .unwrap()
        .ends_with("%2Bdtk"));
    let mut files = 0;
    for c in v["components"].as_array().unwrap() {
        let name = c["name"].as_str().unwrap();
        let want = c["hashes"][0]["content"].as_str().unwrap();
        if let Some(table) = name.strip_prefix("relink-tables/") {
            let got = hex(&std::fs::read(root().join("relink-tables").join(table)).unwrap());
            assert_eq!(want, got, "{name}");
        } else {
            let data = r
                .read_member(name)
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(want, hex(&data), "{name}");
            files += 1;
        }
    }
    assert!(files >= 2, "the rewritten objects and the shim: {files}");
    // The tools are those doctor finds, with their version lines.
    let tc = wheelport::toolchain::discover(
        wheelport::target::builtin()
            .iter()
            .find(|p| p.name == "dtk")
            .unwrap(),
        &wheelport::toolchain::SearchOptions::from_env(),
    );
    let tools: Vec<(String, String)> = v["metadata"]["tools"]["components"]
        .as_array()
        .unwrap()
        .iter()
        .skip(1)
        .map(|t| {
            (
                t["name"].as_str().unwrap().to_string(),
                t["version"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let want: Vec<(String, String)> = tc
        .tools
        .iter()
        .map(|t| (t.name.clone(), t.version_line.clone()))
        .collect();
    assert_eq!(tools, want);
}

fn cyclonedx() -> Option<PathBuf> {
    match std::env::var_os("WHEELPORT_CYCLONEDX") {
        Some(p) => Some(PathBuf::from(p)),
        None => missing(
            T,
            "WHEELPORT_CYCLONEDX not set (a pip --target folder with cyclonedx-python-lib[json-validation])",
        ),
    }
}

#[test]
fn demo_wheel_sbom_validates_and_names_what_was_written() {
    let Some(cdx) = cyclonedx() else { return };
    if require_toolchain("dtk", T).is_none() {
        return;
    }
    check(
        &root()
            .join("fixtures/wheels/wheelport_demo-0.1.0+cu13-py3-none-manylinux_2_28_x86_64.whl"),
        false,
        &cdx,
    );
}

#[test]
fn xformers_sbom_validates_and_names_what_was_written() {
    let Some(cdx) = cyclonedx() else { return };
    if require_toolchain("dtk", T).is_none() {
        return;
    }
    let Some(w) = require_corpus("xformers-0.0.35-py39-none-manylinux_2_28_x86_64.whl", T) else {
        return;
    };
    check(&w, true, &cdx);
}
