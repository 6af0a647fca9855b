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

/// The PTX text of `.entry` `name` of the PTX entry of fixture `so`, under that PTX's
/// `.version`/`.target`/`.address_size` lines (the kernel must not use module variables).
fn entry_ptx(so: &str, name: &str) -> String {
    let path = common::root().join("fixtures/gpu").join(so);
    let data = std::fs::read(&path).unwrap();
    let obj = wheelport::elf::scan(&data, so).unwrap();
    for (_, containers) in wheelport::fatbin::parse_object_sections(&data, &obj, so).unwrap() {
        for e in containers.iter().flat_map(|c| c.entries.iter()) {
            if e.kind() != wheelport::fatbin::EntryKind::Ptx {
                continue;
            }
            let text = String::from_utf8(e.ptx_bytes().unwrap().into_owned()).unwrap();
            let Some(at) = text.find(&format!(".visible .entry {name}(")) else {
                continue;
            };
            let open = at + text[at..].find('{').unwrap();
            let mut depth = 0;
            let end = open
                + text[open..]
                    .char_indices()
                    .find(|&(_, c)| {
                        depth += match c {
                            '{' => 1,
                            '}' => -1,
                            _ => 0,
                        };
                        depth == 0
                    })
                    .unwrap()
                    .0;
            let head: Vec<&str> = text
                .lines()
                .filter(|l| l.starts_with(".version") || l.starts_with(".target"))
                .chain(text.lines().filter(|l| l.starts_with(".address_size")))
                .take(3)
                .collect();
            return format!("{}\n\n{}\n", head.join("\n"), &text[at..=end]);
        }
    }
    panic!("{so}: no .entry {name}");
}

/// CUB's `__half` alternate-policy radix upsweep of the compute_80 fixture (the kernel ptxas
/// miscompiled in the twin, docs/identity.md), lowered for gfx906 and executed by the ISA
/// interpreter: the digit counters it writes to the spine equal those counted here from
/// CUB's formulas (`GridEvenShare`, the `__half` key twiddle, digit-major spine), for the three
/// passes of `SortKeys<__half>` at 10^5 keys (9 blocks: 8 full tiles of 12,032 keys, one
/// partial) and a single partial tile of 4,097. `tools/gpu/radix_replay.py` runs the same
/// cases on the H200.
#[test]
fn half_radix_upsweep_counts_on_gfx906() {
    use amdgpu_exec::elf::CodeObject;
    use amdgpu_exec::exec::{Launch, Limits, Machine};
    let test = "half_radix_upsweep_counts_on_gfx906";
    if common::require_toolchain("dtk", test).is_none() {
        return;
    }
    const UP: &str = "_ZN3cub16_V_300500_SM_8006detail10radix_sort28DeviceRadixSortUpsweepKernelINS2_26policy_selector_from_typesI6__halfNS0_8NullTypeEjEELb1ELNS0_9SortOrderE0ES5_jNS1_21identity_decomposer_tEEEvPKT2_PT3_SD_iiNS0_13GridEvenShareISD_EET4_";
    let dir = tempfile::tempdir().unwrap();
    let ptx = dir.path().join("up.ptx");
    std::fs::write(&ptx, entry_ptx("cub_fixtures_c80.so", UP)).unwrap();
    let (c, _, e) = common::run(
        std::process::Command::new(common::bin())
            .args([
                "ptx",
                "lower",
                "--target",
                "dtk",
                "--emit",
                "obj",
                "--no-cache",
                "-o",
            ])
            .arg(dir.path())
            .arg(&ptx),
    );
    assert_eq!(c, 0, "{e}");
    let co = CodeObject::parse(&std::fs::read(dir.path().join("up-gfx906.co")).unwrap()).unwrap();
    let args: Vec<(u32, u32)> = co
        .kernel(UP)
        .unwrap()
        .args
        .iter()
        .filter(|a| !a.kind.starts_with("hidden_"))
        .map(|a| (a.offset, a.size))
        .collect();
    assert_eq!(
        args.iter().map(|a| a.1).collect::<Vec<_>>(),
        [8, 8, 4, 4, 4, 40, 1]
    );
    // keys: every non-NaN f16 bit pattern is a key; +0.0, -0.0, 1.0 and -1.0 come first
    let mut x = 0x2545_f491u32;
    let mut keys = vec![0x0000u16, 0x8000, 0x3c00, 0xbc00];
    while keys.len() < 100_000 {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        let k = (x >> 8) as u16;
        if k & 0x7c00 != 0x7c00 || k & 0x3ff == 0 {
            keys.push(k);
        }
    }
    let twiddle = |k: u16| {
        let t = if k & 0x8000 != 0 { !k } else { k ^ 0x8000 };
        if t == 0x7fff {
            0x8000
        } else {
            t
        }
    };
    const TILE: u32 = 12032;
    for (n, bit, bits) in [
        (100_000u32, 0u32, 6u32),
        (100_000, 6, 6),
        (100_000, 12, 4),
        (4097, 0, 6),
    ] {
        // GridEvenShare<u32>::DispatchInit(n, max_grid, TILE) with a grid of every tile
        let tiles = n.div_ceil(TILE);
        let (grid, big, normal) = (tiles, 0u32, TILE);
        let ges: Vec<u32> = vec![
            tiles,
            big,
            normal + TILE,
            normal,
            big * TILE,
            n,
            grid,
            n,
            n,
            0,
        ];
        let digits = 1usize << bits;
        let mut want = vec![0u32; digits * grid as usize];
        for (i, &k) in keys[..n as usize].iter().enumerate() {
            let d = ((twiddle(k) as u32 >> bit) & (digits as u32 - 1)) as usize;
            want[d * grid as usize + i / TILE as usize] += 1;
        }
        let mut m = Machine::new(co.clone()).unwrap();
        let kb: Vec<u8> = keys[..n as usize]
            .iter()
            .flat_map(|k| k.to_le_bytes())
            .collect();
        let dk = m.mem.alloc(kb.len(), "keys");
        m.mem.write(dk, &kb).unwrap();
        // the spine has the policy's 64 digits per block, whatever `bits` is
        let ds = m.mem.alloc(4 * 64 * grid as usize, "spine");
        m.mem
            .write(ds, &vec![0xff; 4 * 64 * grid as usize])
            .unwrap();
        let vals: [Vec<u8>; 7] = [
            dk.to_le_bytes().to_vec(),
            ds.to_le_bytes().to_vec(),
            n.to_le_bytes().to_vec(),
            bit.to_le_bytes().to_vec(),
            bits.to_le_bytes().to_vec(),
            ges.iter().flat_map(|v| v.to_le_bytes()).collect(),
            vec![0],
        ];
        let mut ka = vec![0u8; 72];
        for ((off, size), v) in args.iter().zip(&vals) {
            ka[*off as usize..(off + size) as usize].copy_from_slice(v);
        }
        let launch = Launch {
            grid: [grid, 1, 1],
            block: [256, 1, 1],
            dyn_lds: 0,
        };
        m.dispatch(UP, &ka, &launch, Limits::default()).unwrap();
        let mut got = vec![0u8; 4 * want.len()];
        m.mem.read(ds, &mut got).unwrap();
        let got: Vec<u32> = got
            .chunks(4)
            .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
            .collect();
        assert_eq!(got, want, "n={n} bits {bit}+{bits}");
    }
}
