//! The CUB/Thrust fixture suite (`fixtures/gpu/cub_fixtures*.so`, built by
//! `fixtures/gpu/build-cub.sh` from `fixtures/gpu/src/cub_suite.cu`), read with wheelport's own
//! fatbin reader: the gencodes are the ones real wheels use (compute_120 PTX + sm_90 SASS, and a
//! compute_80 variant whose sm_90 SASS comes from that PTX), and the PTX entries are exactly
//! the list build-cub.sh recorded in `fixtures/gpu/expected/`. The device run is
//! `tools/gpu/cub_suite.py` (docs/verification.md).

mod common;

use std::collections::BTreeSet;

/// (kind and arch of every fatbin entry, .entry names of the PTX) of one fixture.
fn read(name: &str) -> (BTreeSet<String>, BTreeSet<String>) {
    let path = common::root().join("fixtures/gpu").join(name);
    let data = std::fs::read(&path).unwrap();
    let obj = wheelport::elf::scan(&data, name).unwrap();
    let (mut archs, mut entries) = (BTreeSet::new(), BTreeSet::new());
    for (_, containers) in wheelport::fatbin::parse_object_sections(&data, &obj, name).unwrap() {
        for e in containers.iter().flat_map(|c| c.entries.iter()) {
            archs.insert(e.arch_name());
            if e.kind() != wheelport::fatbin::EntryKind::Ptx {
                continue;
            }
            let text = String::from_utf8(e.ptx_bytes().unwrap().into_owned()).unwrap();
            for line in text.lines() {
                let rest = line
                    .strip_prefix(".visible .entry ")
                    .or_else(|| line.strip_prefix(".weak .entry "))
                    .or_else(|| line.strip_prefix(".entry "));
                if let Some(rest) = rest {
                    entries.insert(rest.split('(').next().unwrap().to_string());
                }
            }
        }
    }
    (archs, entries)
}

fn expected(name: &str) -> BTreeSet<String> {
    let p = common::root().join(format!("fixtures/gpu/expected/{name}.entries.txt"));
    std::fs::read_to_string(p)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

#[test]
fn cub_fixtures_gencodes_and_entries() {
    let (archs, entries) = read("cub_fixtures.so");
    assert_eq!(
        archs.into_iter().collect::<Vec<_>>(),
        ["compute_120", "sm_90"]
    );
    assert_eq!(entries, expected("cub_fixtures"));
    assert_eq!(entries.len(), 247);
    let (archs, entries80) = read("cub_fixtures_c80.so");
    assert_eq!(
        archs.into_iter().collect::<Vec<_>>(),
        ["compute_80", "sm_90"]
    );
    assert_eq!(entries80, expected("cub_fixtures_c80"));
    // every algorithm of src/cub_suite.cu has its kernels in both
    for family in [
        "DeviceScanKernel",
        "DeviceReduceKernel",
        "DeviceReduceSingleTileKernel",
        "DeviceSegmentedReduceKernel",
        "DeviceHistogramSweepKernel",
        "DeviceRadixSortOnesweepKernel",
        "DeviceRadixSortSingleTileKernel",
        "DeviceSelectSweepKernel",
        "DeviceReduceByKeyKernel",
    ] {
        for (name, set) in [("cub_fixtures", &entries), ("cub_fixtures_c80", &entries80)] {
            assert!(
                set.iter().any(|e| e.contains(family)),
                "{name}: no {family}"
            );
        }
    }
    // no kernel from an anonymous namespace (a per-file hash in the name)
    assert!(!entries.iter().any(|e| e.contains("_GLOBAL__N_")));
}
