//! `wheelport convert --sass skip` on the SASS-only corpus wheels (vllm_flash_attn,
//! autoawq_kernels; lifting them is `tests/sass_corpus.rs`'s and `tests/sass_convert.rs`'s):
//! the default run fails with the SASS-only table, exit 5, and writes nothing;
//! `--allow-partial` writes a wheel that pip, uv and installer (`--validate-record all`)
//! install in fresh virtual environments, whose shared objects `readelf -d` shows free of
//! CUDA libraries; the same input gives byte-identical wheels; a converted wheel is refused.

mod common;
mod convert_support;

use common::*;
use convert_support::*;
use std::ffi::OsStr;
use std::path::Path;

fn os<S: AsRef<OsStr> + ?Sized>(s: &S) -> &OsStr {
    s.as_ref()
}

fn inspect_counts(whl: &Path) -> wheelport::inspect::model::Verdict {
    let r = wheelport::inspect::inspect_paths(
        &[whl.to_path_buf()],
        &wheelport::inspect::Options {
            kernels: true,
            ..Default::default()
        },
    )
    .unwrap();
    r.verdict
}

fn sass_only_case(prefix: &str, test: &str) {
    let Some(whl) = require_corpus(prefix, test) else {
        return;
    };
    let verdict = inspect_counts(&whl);
    assert!(verdict.kernels_sass_only > 0, "{verdict:?}");
    assert_eq!(verdict.kernels_with_ptx, 0, "{verdict:?}");
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("out");
    let json = d.path().join("report.json");

    // Default policy: the SASS-only table, exit 5, nothing written.
    let (code, stdout, err) = convert(&[
        whl.as_os_str(),
        os("--target"),
        os("dtk"),
        os("--sass"),
        os("skip"),
        os("-o"),
        out.as_os_str(),
        os("--json"),
        json.as_os_str(),
    ]);
    assert_eq!(code, 5, "{stdout}\n{err}");
    assert!(
        !out.exists() || files_in(&out).is_empty(),
        "{:?}",
        files_in(&out)
    );
    assert!(stdout.contains("no PTX; SASS only for"), "{stdout}");
    assert!(
        stdout.contains(&format!(
            "{} of {} kernels cannot be translated; nothing was written",
            verdict.kernels_sass_only, verdict.kernels_sass_only
        )),
        "{stdout}"
    );
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(report["status"], "refused_untranslated");
    assert_eq!(report["exit_code"], 5);
    assert_eq!(report["totals"]["kernels"], verdict.kernels_sass_only);
    assert_eq!(
        report["totals"]["not_translated"],
        verdict.kernels_sass_only
    );
    assert_eq!(report["totals"]["outputs_written"], 0);
    for so in report["inputs"][0]["shared_objects"].as_array().unwrap() {
        for k in so["kernels"].as_array().unwrap() {
            assert_eq!(k["translated"], false);
            assert_eq!(k["found"], "sass_only");
            assert!(
                k["reason"]
                    .as_str()
                    .unwrap()
                    .starts_with("no PTX; SASS only"),
                "{k}"
            );
        }
    }

    // --allow-partial: written, exit 6, with the same table.
    let (code, stdout, err) = convert(&[
        whl.as_os_str(),
        os("--target"),
        os("dtk"),
        os("--sass"),
        os("skip"),
        os("-o"),
        out.as_os_str(),
        os("--allow-partial"),
    ]);
    assert_eq!(code, 6, "{stdout}\n{err}");
    assert!(stdout.contains("no PTX; SASS only for"), "{stdout}");
    let written = files_in(&out);
    assert_eq!(written.len(), 1, "{written:?}");
    let new = &written[0];
    let old_name =
        wheelport::wheel::repack::WheelName::parse(whl.file_name().unwrap().to_str().unwrap())
            .unwrap();
    let new_name =
        wheelport::wheel::repack::WheelName::parse(new.file_name().unwrap().to_str().unwrap())
            .unwrap();
    assert_eq!(
        new_name.version,
        format!("{}+dtk", old_name.version.split('+').next().unwrap())
    );
    assert_eq!(new_name.tags, old_name.tags);

    // WHEEL agrees with the file name; RECORD's own row is empty; provenance is there.
    let mut r = wheelport::wheel::WheelReader::open(new).unwrap();
    let info = r.info().unwrap().unwrap();
    assert_eq!(
        info.tags,
        wheelport::wheel::repack::expand_tags(&new_name.tags)
    );
    assert_eq!(info.version.as_deref(), Some(new_name.version.as_str()));
    let record = String::from_utf8(
        r.read_member(&format!("{}/RECORD", info.dist_info))
            .unwrap(),
    )
    .unwrap();
    assert!(record.ends_with(&format!("{}/RECORD,,\n", info.dist_info)));
    let prov: serde_json::Value = serde_json::from_slice(
        &r.read_member(&format!("{}/wheelport.json", info.dist_info))
            .unwrap(),
    )
    .unwrap();
    let sha = {
        use sha2::Digest;
        sha2::Sha256::digest(std::fs::read(&whl).unwrap())
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect::<String>()
    };
    assert_eq!(prov["source_sha256"], sha);
    assert_eq!(prov["target"], "dtk");
    let prov_kernels: usize = prov["shared_objects"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["kernels"].as_array().unwrap().len())
        .sum();
    assert_eq!(prov_kernels, verdict.kernels_sass_only);

    // Same input, same bytes.
    let out2 = d.path().join("out2");
    let (code, _, err) = convert(&[
        whl.as_os_str(),
        os("--target"),
        os("dtk"),
        os("--sass"),
        os("skip"),
        os("-o"),
        out2.as_os_str(),
        os("--allow-partial"),
    ]);
    assert_eq!(code, 6, "{err}");
    let again = files_in(&out2);
    assert_eq!(again.len(), 1);
    assert!(
        std::fs::read(new).unwrap() == std::fs::read(&again[0]).unwrap(),
        "two conversions of {} differ",
        whl.display()
    );

    // Converting the output again is refused, and writes nothing.
    let out3 = d.path().join("out3");
    let (code, _, err) = convert(&[
        new.as_os_str(),
        os("--target"),
        os("rocm"),
        os("-o"),
        out3.as_os_str(),
        os("--allow-partial"),
    ]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("already converted"), "{err}");
    assert!(files_in(&out3).is_empty());

    // Three installers, fresh venvs; no CUDA library left in any DT_NEEDED.
    let Some(site) = install_three_ways(new, &d.path().join("install")) else {
        return;
    };
    let sos = shared_objects_below(&site);
    assert!(!sos.is_empty());
    for so in &sos {
        let Some(needed) = readelf_needed(so) else {
            return;
        };
        assert!(
            !needed.iter().any(|n| is_cuda_soname(n)),
            "{}: {needed:?}",
            so.display()
        );
        assert!(
            needed.iter().any(|n| n == "libgalaxyhip.so.5"),
            "{}: {needed:?}",
            so.display()
        );
    }
    assert!(site
        .join(format!("{}/wheelport.json", info.dist_info))
        .is_file());
}

#[test]
fn vllm_flash_attn_sass_only() {
    sass_only_case("vllm_flash_attn", "vllm_flash_attn_sass_only");
}

#[test]
fn autoawq_kernels_sass_only() {
    sass_only_case("autoawq_kernels", "autoawq_kernels_sass_only");
}
