//! `convert --device-code`: which of a kernel's device codes is translated.
//!
//! `fixtures/cuda/multi_arch.so` (nvcc 13.5: sm_75, sm_80 and sm_90 SASS and compute_80 PTX
//! for each of its six kernels) converted for dtk:
//! * `sass`: every kernel is lifted from its sm_80 cubin (the lowest the lifter knows), its
//!   note says so and that the PTX was not read, the totals count six lifted kernels; then
//!   three of them run from the converted object's `.hip_fatbin` in the gfx9 interpreter
//!   (`tools/amdgpu-exec`) and give what their sources compute (`saxpy`'s `fma.rn.f32`,
//!   `map_kernel<int, Square>`'s `x * x`, `reduce_sum`'s exact sum of small integers).
//! * `ptx` and `auto`: every kernel is built from its PTX, none lifted.
//!
//! And a SASS-only object (`fixtures/gpu/warp_fixtures_sass80.so`) with `--device-code ptx`:
//! every kernel is reported as SASS only, not translated, exit 6 with `--allow-partial`.

mod common;

use amdgpu_exec::exec::{Launch, Limits, Machine};
use amdgpu_exec::runner::load_objects;
use common::{read_json, root, run};
use std::path::Path;
use std::process::Command;

const T: &str = "device_code";

fn convert(input: &Path, dir: &Path, code: &str, extra: &[&str]) -> (i32, serde_json::Value) {
    let json = dir.join(format!("{code}.json"));
    let (rc, out, err) = run(Command::new(common::bin())
        .arg(input)
        .args(["--target", "dtk", "--device-code", code, "-q", "-o"])
        .arg(dir.join(code))
        .arg("--json")
        .arg(&json)
        .args(extra)
        .env("WHEELPORT_NO_CACHE", "1"));
    assert!(json.is_file(), "{code}: no report: {out}{err}");
    (rc, read_json(&json))
}

fn kernels(report: &serde_json::Value) -> Vec<serde_json::Value> {
    report["inputs"][0]["shared_objects"][0]["kernels"]
        .as_array()
        .unwrap()
        .clone()
}

#[test]
fn device_code_sass_lifts_kernels_that_have_ptx() {
    if common::require_toolchain("dtk", T).is_none() {
        return;
    }
    if let Err(m) =
        wheelport::toolchain::discover_nvdisasm(&wheelport::toolchain::SearchOptions::from_env())
    {
        return common::missing(T, &format!("nvdisasm {}", m.reason)).unwrap_or(());
    }
    let dir = std::env::temp_dir().join(format!("wp-{T}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let so = root().join("fixtures/cuda/multi_arch.so");

    let (rc, sass) = convert(&so, &dir, "sass", &[]);
    assert_eq!(rc, 0, "--device-code sass: {sass}");
    assert_eq!(sass["totals"]["kernels"], 6);
    assert_eq!(sass["totals"]["translated"], 6);
    assert_eq!(sass["totals"]["lifted"], 6);
    // Exit 0 with lifted kernels says they are not verified on this code.
    let message = sass["message"].as_str().unwrap();
    assert!(
        message.contains("6 lifted from SASS: not verified on this library's code"),
        "{message}"
    );
    for k in kernels(&sass) {
        let note = k["note"].as_str().unwrap_or_default();
        assert!(
            note.starts_with("lifted from its sm_80 SASS (") && note.contains("instead of its PTX"),
            "{}: {note}",
            k["name"]
        );
        assert_eq!(k["found"], "ptx", "{}", k["name"]);
    }
    for code in ["ptx", "auto"] {
        let (rc, r) = convert(&so, &dir, code, &[]);
        assert_eq!(rc, 0, "--device-code {code}: {r}");
        assert_eq!(r["totals"]["translated"], 6, "{code}");
        assert_eq!(r["totals"]["lifted"], 0, "{code}");
        assert!(
            !r["message"].as_str().unwrap().contains("lifted"),
            "{code}: {}",
            r["message"]
        );
        for k in kernels(&r) {
            assert!(
                !k["note"].as_str().unwrap_or_default().contains("lifted"),
                "{code}: {}",
                k["note"]
            );
        }
    }

    // The lifted kernels, executed on gfx906.
    let objs = load_objects(&dir.join("sass/multi_arch.so"), "gfx906").unwrap();
    let n = 3000usize;
    let x: Vec<f32> = (0..n).map(|i| (i % 97) as f32 * 0.75 - 30.0).collect();
    let y: Vec<f32> = (0..n).map(|i| (i % 89) as f32 * -1.5 + 7.0).collect();
    let ints: Vec<i32> = (0..n as i32).map(|i| (i * 37) % 2001 - 1000).collect();
    let f32s = |v: &[f32]| -> Vec<u8> { v.iter().flat_map(|f| f.to_le_bytes()).collect() };
    let i32s = |v: &[i32]| -> Vec<u8> { v.iter().flat_map(|f| f.to_le_bytes()).collect() };
    let mut ran = 0;
    for co in objs {
        let names: Vec<String> = co.kernels.iter().map(|k| k.name.clone()).collect();
        let mut m = Machine::new(co).unwrap();
        for name in names {
            let k = m.co.kernel(&name).unwrap().clone();
            let mut ka = vec![0u8; k.kernarg_segment_size as usize];
            let mut put = |i: usize, b: &[u8]| {
                let o = k.args[i].offset as usize;
                ka[o..o + b.len()].copy_from_slice(b);
            };
            let block = [256, 1, 1];
            let grid = [(n as u32).div_ceil(256), 1, 1];
            let launch = Launch {
                grid,
                block,
                dyn_lds: 0,
            };
            match name.as_str() {
                // saxpy(int n, float a, const float *x, float *y)
                "_Z5saxpyifPKfPf" => {
                    let xa = m.mem.alloc(n * 4, "x");
                    let ya = m.mem.alloc(n * 4, "y");
                    m.mem.write(xa, &f32s(&x)).unwrap();
                    m.mem.write(ya, &f32s(&y)).unwrap();
                    put(0, &(n as i32).to_le_bytes());
                    put(1, &2.5f32.to_le_bytes());
                    put(2, &xa.to_le_bytes());
                    put(3, &ya.to_le_bytes());
                    m.dispatch(&name, &ka, &launch, Limits::default()).unwrap();
                    let mut got = vec![0u8; n * 4];
                    m.mem.read(ya, &mut got).unwrap();
                    for i in 0..n {
                        let g = f32::from_le_bytes(got[4 * i..4 * i + 4].try_into().unwrap());
                        assert_eq!(g.to_bits(), x[i].mul_add(2.5, y[i]).to_bits(), "saxpy[{i}]");
                    }
                }
                // map_kernel<int, wp::Square>(int *out, const int *in, int n, wp::Square)
                "_Z10map_kernelIiN2wp6SquareEEvPT_PKS2_iT0_" => {
                    let ia = m.mem.alloc(n * 4, "in");
                    let oa = m.mem.alloc(n * 4, "out");
                    m.mem.write(ia, &i32s(&ints)).unwrap();
                    put(0, &oa.to_le_bytes());
                    put(1, &ia.to_le_bytes());
                    put(2, &(n as i32).to_le_bytes());
                    m.dispatch(&name, &ka, &launch, Limits::default()).unwrap();
                    let mut got = vec![0u8; n * 4];
                    m.mem.read(oa, &mut got).unwrap();
                    for i in 0..n {
                        let g = i32::from_le_bytes(got[4 * i..4 * i + 4].try_into().unwrap());
                        assert_eq!(g, ints[i].wrapping_mul(ints[i]), "square[{i}]");
                    }
                }
                // reduce_sum(const float *in, float *out, int n): one atomic add per block.
                "_Z10reduce_sumPKfPfi" => {
                    let small: Vec<f32> = ints.iter().map(|v| (*v % 50) as f32).collect();
                    let ia = m.mem.alloc(n * 4, "in");
                    let oa = m.mem.alloc(4, "out");
                    m.mem.write(ia, &f32s(&small)).unwrap();
                    put(0, &ia.to_le_bytes());
                    put(1, &oa.to_le_bytes());
                    put(2, &(n as i32).to_le_bytes());
                    m.dispatch(&name, &ka, &launch, Limits::default()).unwrap();
                    let mut got = [0u8; 4];
                    m.mem.read(oa, &mut got).unwrap();
                    let exact: i64 = small.iter().map(|v| *v as i64).sum();
                    assert_eq!(f32::from_le_bytes(got), exact as f32, "reduce_sum");
                }
                _ => continue,
            }
            ran += 1;
        }
    }
    assert_eq!(ran, 3, "saxpy, map_kernel<int, Square> and reduce_sum ran");

    // A SASS-only object with --device-code ptx: nothing lifted, every kernel reported.
    let sass_only = root().join("fixtures/gpu/warp_fixtures_sass80.so");
    let (rc, r) = convert(&sass_only, &dir, "ptx", &["--allow-partial"]);
    assert_eq!(rc, 6, "{r}");
    assert_eq!(r["totals"]["translated"], 0);
    assert_eq!(r["totals"]["lifted"], 0);
    assert!(r["totals"]["kernels"].as_u64().unwrap() > 0);
    for k in kernels(&r) {
        assert_eq!(k["found"], "sass_only", "{}", k["name"]);
        assert_eq!(k["translated"], false);
    }
    let _ = std::fs::remove_dir_all(&dir);
}
