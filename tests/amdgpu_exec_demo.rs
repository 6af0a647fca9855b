//! The demo wheel's two kernels executed from the converted wheel: `wheelport convert` of
//! `fixtures/wheels/wheelport_demo-*.whl` for dtk (gfx906) and gfx942, the `.hip_fatbin` of
//! the converted `_kernels.so` read back out of the new wheel, and `saxpy` and `reduce_sum`
//! run in the ISA interpreter (`tools/amdgpu-exec`), on the inputs that `tools/gpu/demo_run.py`
//! gave the cuda twin of the wheel's `_kernels.so` on the H200 (`fixtures/gpu/results/demo.json`;
//! the original's sm_80 SASS and PTX ISA 9.x do not run on the H200's r580 driver): every
//! output's SHA-256 equals the H200's. The results
//! are also checked against the PTX's meaning computed on the host (saxpy is
//! `fma.rn.f32 x, a, y`, so the host's fused multiply-add; reduce_sum adds small integers,
//! whose sum is exact in any order).

mod common;

use amdgpu_exec::exec::{Launch, Limits, Machine};
use amdgpu_exec::runner::load_objects;
use common::{root, run};
use std::process::Command;

#[test]
fn demo_wheel_kernels_execute_from_the_converted_wheel() {
    const T: &str = "amdgpu_exec_demo";
    let prof = wheelport::target::profile("dtk").unwrap();
    let tc = wheelport::toolchain::discover(prof, &wheelport::toolchain::SearchOptions::from_env());
    if !tc.is_complete() {
        assert!(std::env::var_os("CI").is_none(), "{T}: LLVM 19 incomplete");
        eprintln!("SKIP {T}: LLVM 19 incomplete: {:?}", tc.missing);
        return;
    }
    let dir = std::env::temp_dir().join(format!("wp-{T}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let whl =
        root().join("fixtures/wheels/wheelport_demo-0.1.0+cu13-py3-none-manylinux_2_28_x86_64.whl");
    let (code, out, err) = run(Command::new(common::bin())
        .arg(&whl)
        .args([
            "--target",
            "dtk",
            "--offload-arch",
            "gfx906,gfx942",
            "-q",
            "-o",
        ])
        .arg(&dir));
    assert_eq!(code, 0, "convert: {out}{err}");
    let new = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .find(|p| p.extension().is_some_and(|e| e == "whl"))
        .expect("the converted wheel");
    let sos = common::extract_shared_objects(&new, &dir);
    let (_, so) = sos
        .iter()
        .find(|(n, _)| n.ends_with("_kernels.so"))
        .expect("_kernels.so in the converted wheel");
    let n = 10_000usize;
    let x: Vec<f32> = (0..n)
        .map(|i| ((i * 7919) % 1000) as f32 * 0.37 - 100.0)
        .collect();
    let y0: Vec<f32> = (0..n)
        .map(|i| ((i * 104_729) % 997) as f32 * -1.25 + 3.0)
        .collect();
    let a = 1.5f32;
    let ints: Vec<f32> = (0..n).map(|i| ((i * 31) % 201) as f32 - 100.0).collect();
    let exact: f32 = ints.iter().map(|v| *v as i64).sum::<i64>() as f32;
    let bytes = |v: &[f32]| -> Vec<u8> { v.iter().flat_map(|f| f.to_le_bytes()).collect() };
    // The H200's record: for these inputs.
    let h200 = common::read_json(&root().join("fixtures/gpu/results/demo.json"));
    let sha = |b: &[u8]| amdgpu_exec::runner::sha256(b);
    for (k, v) in [("x", &x), ("y", &y0), ("ints", &ints)] {
        assert_eq!(
            h200["inputs_sha256"][k].as_str(),
            Some(sha(&bytes(v)).as_str()),
            "demo.json: the H200 ran other inputs ({k}) than this test makes"
        );
    }
    // The wheel's _kernels.so holds sm_80 SASS and PTX of ISA 9.x, which the H200's driver
    // (r580, CUDA 13.0) can neither run nor JIT; the record is of its cuda twin (`wheelport
    // ptx twin`: the same PTX through wheelport's lowering, built for nvptx), which must be
    // the twin of this wheel's _kernels.so.
    let orig = &h200["runs"][0];
    let so_in = common::extract_shared_objects(&whl, &dir.join("in"));
    let (_, so_in) = so_in
        .iter()
        .find(|(n, _)| n.ends_with("_kernels.so"))
        .unwrap();
    let twin = dir.join("_kernels_twin.so");
    let (code, out, err) = run(Command::new(common::bin())
        .args(["ptx", "twin"])
        .arg(so_in)
        .arg("-o")
        .arg(&twin)
        .env("XDG_CACHE_HOME", dir.join("cache")));
    assert_eq!(code, 0, "ptx twin: {out}{err}");
    assert_eq!(
        orig["sha256"].as_str(),
        Some(common::sha256_file(&twin).as_str()),
        "demo.json: not the record of this wheel's _kernels.so's twin (re-run tools/gpu/demo_run.py)"
    );
    for arch in ["gfx906", "gfx942"] {
        let objs = load_objects(so, arch).unwrap();
        assert_eq!(objs.len(), 1, "{arch}: one module");
        let mut m = Machine::new(objs.into_iter().next().unwrap()).unwrap();
        // saxpy(int n, float a, const float *x, float *y)
        let xa = m.mem.alloc(n * 4, "x");
        let ya = m.mem.alloc(n * 4, "y");
        m.mem.write(xa, &bytes(&x)).unwrap();
        m.mem.write(ya, &bytes(&y0)).unwrap();
        let k = m.co.kernel("_Z5saxpyifPKfPf").expect("saxpy").clone();
        let mut ka = vec![0u8; k.kernarg_segment_size as usize];
        let put = |ka: &mut Vec<u8>, i: usize, b: &[u8]| {
            let o = k.args[i].offset as usize;
            ka[o..o + b.len()].copy_from_slice(b);
        };
        put(&mut ka, 0, &(n as i32).to_le_bytes());
        put(&mut ka, 1, &a.to_le_bytes());
        put(&mut ka, 2, &xa.to_le_bytes());
        put(&mut ka, 3, &ya.to_le_bytes());
        let launch = Launch {
            grid: [(n as u32).div_ceil(256), 1, 1],
            block: [256, 1, 1],
            dyn_lds: 0,
        };
        m.dispatch("_Z5saxpyifPKfPf", &ka, &launch, Limits::default())
            .unwrap();
        let mut got = vec![0u8; n * 4];
        m.mem.read(ya, &mut got).unwrap();
        assert_eq!(
            orig["saxpy_y_sha256"].as_str(),
            Some(sha(&got).as_str()),
            "{arch} saxpy: not the H200's output"
        );
        for i in 0..n {
            let g = f32::from_le_bytes(got[4 * i..4 * i + 4].try_into().unwrap());
            assert_eq!(
                g.to_bits(),
                x[i].mul_add(a, y0[i]).to_bits(),
                "{arch} saxpy[{i}]"
            );
        }
        // reduce_sum(const float *in, float *out, int n)
        let ia = m.mem.alloc(n * 4, "in");
        let oa = m.mem.alloc(4, "out");
        m.mem.write(ia, &bytes(&ints)).unwrap();
        let k =
            m.co.kernel("_Z10reduce_sumPKfPfi")
                .expect("reduce_sum")
                .clone();
        let mut ka = vec![0u8; k.kernarg_segment_size as usize];
        for (i, b) in [
            ia.to_le_bytes().to_vec(),
            oa.to_le_bytes().to_vec(),
            (n as i32).to_le_bytes().to_vec(),
        ]
        .iter()
        .enumerate()
        {
            let o = k.args[i].offset as usize;
            ka[o..o + b.len()].copy_from_slice(b);
        }
        let s = m
            .dispatch(
                "_Z10reduce_sumPKfPfi",
                &ka,
                &Launch {
                    grid: [8, 1, 1],
                    block: [256, 1, 1],
                    dyn_lds: 0,
                },
                Limits::default(),
            )
            .unwrap();
        let mut o = [0u8; 4];
        m.mem.read(oa, &mut o).unwrap();
        assert_eq!(
            orig["reduce_sum_sha256"].as_str(),
            Some(sha(&o).as_str()),
            "{arch} reduce_sum: not the H200's output"
        );
        assert_eq!(f32::from_le_bytes(o), exact, "{arch} reduce_sum");
        eprintln!("{T}: {arch}: saxpy {n} elements and reduce_sum ({} wave instructions) as the PTX defines and as the H200 computed them", s.instructions);
    }
    let _ = std::fs::remove_dir_all(&dir);
}
