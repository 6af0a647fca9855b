//! Each object is analysed once and passed on: converting xformers 0.0.35 opens its wheel
//! once, analyses its one ELF member once, and scans ELF headers exactly twice (the input
//! member, and the written member for the load check); `inspect` opens, analyses and scans
//! once. Counted by the library's instrumentation counters (`wheelport::wheel::opens`,
//! `wheelport::analyze::analyses`, `wheelport::elf::scan::scans`), in one test so that no
//! other test of this binary moves them.
//!
//! The conversion runs with a toolchain that finds no tools (no device build: the kernels are
//! reported not translated) under `--allow-partial`, so every stage runs — audit, member read,
//! analysis, host rewrite, load check, repack — without LLVM.

mod common;

use common::*;

#[test]
fn a_wheel_is_opened_once_and_each_object_analysed_once() {
    let Some(whl) = require_corpus("xformers-0.0.35", "read_once") else {
        return;
    };
    let counts = || {
        (
            wheelport::wheel::opens(),
            wheelport::analyze::analyses(),
            wheelport::elf::scan::scans(),
        )
    };

    // inspect
    let before = counts();
    let r = wheelport::inspect::inspect_paths(
        std::slice::from_ref(&whl),
        &wheelport::inspect::Options {
            kernels: true,
            ..Default::default()
        },
    )
    .unwrap();
    let after = counts();
    let members = r.inputs[0].shared_objects.len();
    assert_eq!(members, 1, "xformers has one ELF member");
    assert_eq!(after.0 - before.0, 1, "wheel opens by inspect");
    assert_eq!(after.1 - before.1, members, "analyses by inspect");
    assert_eq!(after.2 - before.2, members, "ELF scans by inspect");

    // convert
    let profile = wheelport::target::profile("dtk").unwrap();
    let none = wheelport::toolchain::SearchOptions {
        system_roots: Vec::new(),
        fixed_dirs: Some(Vec::new()),
        ..Default::default()
    };
    let pipeline = wheelport::device::Pipeline {
        toolchain: wheelport::toolchain::discover(profile, &none),
        cache: None,
        split_bytes: None,
        nvdisasm: wheelport::toolchain::discover_nvdisasm(&none),
    };
    assert!(pipeline.available(profile).is_err());
    let out = tempfile::tempdir().unwrap();
    let table = wheelport::relink::load_builtin("dtk").unwrap();
    let opts = wheelport::convert::Options {
        profile,
        relink: Some(std::sync::Arc::new(table)),
        offload_archs: Vec::new(),
        local_version: String::new(),
        policy: wheelport::report::Policy::AllowPartial,
        out_dir: out.path().join("o"),
        source_date_epoch: None,
        progress: false,
        lift_sass: true,
        device_code: Default::default(),
    };
    let before = counts();
    let rep = wheelport::convert::convert(std::slice::from_ref(&whl), &opts, &pipeline).unwrap();
    let after = counts();
    assert_eq!(
        rep.status,
        wheelport::report::Status::Partial,
        "{}",
        rep.message
    );
    assert_eq!(rep.totals.outputs_written, 1);
    assert_eq!(
        rep.inputs[0].shared_objects[0].outcome,
        wheelport::report::ObjectOutcome::Written
    );
    assert_eq!(after.0 - before.0, 1, "wheel opens by convert");
    assert_eq!(after.1 - before.1, members, "analyses by convert");
    assert_eq!(
        after.2 - before.2,
        2 * members,
        "ELF scans by convert: the input once, the output once (load check)"
    );
}
