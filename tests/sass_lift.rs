//! The SASS lifter's differential suite on the CPU: each fixture kernel of `fixtures/sass/`
//! is assembled by ptxas 13.5 for sm_80 and sm_90, decoded by nvdisasm and lifted
//! (`wheelport::sass`); every instruction must lift. The lifted PTX is then
//!
//! 1. assembled by ptxas itself (it is valid PTX for the cubin's arch),
//! 2. lowered to the `cuda` profile (llc's NVPTX backend) and the result assembled by ptxas,
//! 3. lowered to dtk (gfx906) and executed in the ISA interpreter (`tools/amdgpu-exec`) on
//!    edge values, the outputs compared with the kernel's meaning computed here.
//!
//! The same lifted kernels run against the original sm_90 cubins on the H200 with
//! `tools/gpu/sass_twin.sh` (docs/verification.md).

mod common;

use amdgpu_exec::exec::{Launch, Limits, Machine};
use common::{bin, root, run};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

const T: &str = "sass_lift";

struct Tools {
    ptxas: PathBuf,
    nvdisasm: wheelport::toolchain::Tool,
}

fn tools() -> Option<Tools> {
    let ptxas = common::require_tool("ptxas", T)?;
    let nvdisasm = match wheelport::toolchain::discover_nvdisasm(
        &wheelport::toolchain::SearchOptions::from_env(),
    ) {
        Ok(t) => t,
        Err(m) => return common::missing(T, &format!("nvdisasm {}: {}", m.reason, m.install)),
    };
    common::require_toolchain("dtk", T)?;
    Some(Tools { ptxas, nvdisasm })
}

fn ptxas(t: &Tools, arch: &str, src: &Path, out: &Path) {
    let (code, o, e) = run(Command::new(&t.ptxas)
        .arg(format!("-arch={arch}"))
        .arg(src)
        .arg("-o")
        .arg(out));
    assert_eq!(code, 0, "ptxas -arch={arch} {}: {o}{e}", src.display());
}

/// Lift `kernel.ptx` assembled for `arch`; returns the lifted PTX file.
fn lift(t: &Tools, dir: &Path, kernel: &str, arch: &str) -> PathBuf {
    let cubin = dir.join(format!("{kernel}-{arch}.cubin"));
    ptxas(
        t,
        arch,
        &root().join(format!("fixtures/sass/{kernel}.ptx")),
        &cubin,
    );
    let bytes = std::fs::read(&cubin).unwrap();
    let l = wheelport::sass::lift_cubin(&t.nvdisasm, &bytes, arch, &cubin.display().to_string())
        .unwrap();
    assert_eq!(l.kernels.len(), 1, "{kernel} {arch}");
    let k = &l.kernels[0];
    assert!(
        k.unlifted.is_empty(),
        "{kernel} {arch}: not lifted: {:#?}",
        k.unlifted_forms()
    );
    // Every decoded instruction is counted once in the forms, as nvdisasm prints them.
    assert_eq!(
        l.forms.values().map(|(n, _)| n).sum::<usize>(),
        l.instructions
    );
    let path = dir.join(format!("{kernel}-{arch}.lifted.ptx"));
    std::fs::write(&path, l.module().unwrap()).unwrap();
    path
}

fn lower(ptx: &Path, target: &str, out: &Path) {
    let (code, o, e) = run(Command::new(bin())
        .args(["ptx", "lower", "--target", target, "--emit", "obj", "-o"])
        .arg(out)
        .arg(ptx)
        .env("WHEELPORT_NO_CACHE", "1"));
    assert_eq!(code, 0, "lower {target} {}: {o}{e}", ptx.display());
}

/// Edge values for 32-bit lanes, then a deterministic spread.
fn values32(n: usize, seed: u32) -> Vec<u32> {
    let edges = [
        0u32,
        1,
        2,
        7,
        15,
        31,
        32,
        63,
        0x7fff_ffff,
        0x8000_0000,
        0x8000_0001,
        0xffff_fffe,
        0xffff_ffff,
        0x1234_5678,
        0xdead_beef,
        12345,
    ];
    let mut x = seed | 1;
    (0..n)
        .map(|i| {
            if i < edges.len() {
                edges[(i + seed as usize) % edges.len()]
            } else {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                x
            }
        })
        .collect()
}

fn values64(n: usize, seed: u32) -> Vec<u64> {
    let lo = values32(n, seed);
    let hi = values32(n, seed.wrapping_mul(7).wrapping_add(3));
    let edges = [
        0u64,
        1,
        u64::MAX,
        1 << 63,
        (1 << 63) - 1,
        0xffff_ffff,
        1 << 32,
    ];
    (0..n)
        .map(|i| {
            if i < edges.len() {
                edges[(i + seed as usize) % edges.len()]
            } else {
                (u64::from(hi[i]) << 32) | u64::from(lo[i])
            }
        })
        .collect()
}

fn expected_int64(x: u64, y: u64) -> [u64; 8] {
    let (x32, y32) = (x as u32, y as u32);
    [
        x.wrapping_add(y),
        x.wrapping_sub(y),
        x.wrapping_mul(y),
        u64::from(x32) * u64::from(y32),
        (i64::from(x32 as i32) * i64::from(y32 as i32)) as u64,
        (x << 13) ^ (y >> 7),
        ((x as i64) >> (y32 & 63)) as u64,
        (y.wrapping_shl(3).wrapping_add(x)).wrapping_neg(),
    ]
}

fn expected_int32(x: u32, y: u32) -> [u32; 8] {
    let s = y & 31;
    let lt64 = {
        let a = ((u64::from(y) << 32) | u64::from(x)) as i64;
        let b = ((u64::from(x) << 32) | u64::from(y)) as i64;
        a < b || x == 0
    };
    let m = x.wrapping_mul(12345).wrapping_add(y);
    [
        ((u64::from(x) * u64::from(y)) >> 32) as u32,
        ((i64::from(x as i32) * i64::from(y as i32)) >> 32) as u32,
        if (x as i32) < (y as i32) && y != 7 {
            x
        } else {
            y
        },
        (x & y) | (!x & 4660),
        if s == 0 {
            y
        } else {
            (y << s) | (x >> (32 - s))
        },
        ((x as i32) >> s) as u32,
        if lt64 { 11 } else { 22 },
        m >> s,
    ]
}

fn expected_smem(a: &[u32], block: usize, i: usize) -> u32 {
    let tid = i % block;
    let base = i - tid;
    let x = a[i];
    let mut sum = 0u32;
    for k in 0..(x & 15) {
        sum = sum.wrapping_add(k.wrapping_mul(x) ^ k);
    }
    a[base + 63 - tid].wrapping_add(sum)
}

fn bytes32(v: &[u32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}
fn bytes64(v: &[u64]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// Run `kernel` of code object `co` with arguments (a pointer per input, the output pointer,
/// then `by_value` as they are), returning the output buffer.
fn exec(
    co: &Path,
    kernel: &str,
    inputs: &[Vec<u8>],
    out_len: usize,
    by_value: &[Vec<u8>],
    grid: u32,
    block: u32,
) -> Vec<u8> {
    let obj = amdgpu_exec::runner::load_objects(co, "gfx906").unwrap();
    let mut m = Machine::new(obj.into_iter().next().unwrap()).unwrap();
    let k = m.co.kernel(kernel).expect("kernel").clone();
    let mut ka = vec![0u8; k.kernarg_segment_size as usize];
    let mut args: Vec<Vec<u8>> = Vec::new();
    for (j, b) in inputs.iter().enumerate() {
        let a = m.mem.alloc(b.len(), &format!("in{j}"));
        m.mem.write(a, b).unwrap();
        args.push(a.to_le_bytes().to_vec());
    }
    let oa = m.mem.alloc(out_len, "out");
    args.push(oa.to_le_bytes().to_vec());
    args.extend(by_value.iter().cloned());
    for (j, b) in args.iter().enumerate() {
        let o = k.args[j].offset as usize;
        ka[o..o + b.len()].copy_from_slice(b);
    }
    m.dispatch(
        kernel,
        &ka,
        &Launch {
            grid: [grid, 1, 1],
            block: [block, 1, 1],
            dyn_lds: 0,
        },
        Limits::default(),
    )
    .unwrap();
    let mut got = vec![0u8; out_len];
    m.mem.read(oa, &mut got).unwrap();
    got
}

/// The checks of a lifted module `ptx` of `kernel` for `arch`: it is valid for ptxas; through
/// the cuda profile, llc's PTX is too; through dtk it becomes a gfx906 code object, whose path
/// is returned (to be executed against the kernel's meaning).
fn assemble_and_lower(t: &Tools, d: &Path, ptx: &Path, kernel: &str, arch: &str) -> PathBuf {
    ptxas(
        t,
        arch,
        ptx,
        &d.join(format!("{kernel}-{arch}.relifted.cubin")),
    );
    let cuda = d.join(format!("cuda-{kernel}-{arch}"));
    lower(ptx, "cuda", &cuda);
    let cuda_ptx = std::fs::read_dir(&cuda)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .find(|p| p.extension().is_some_and(|e| e == "ptx"))
        .expect("cuda PTX");
    ptxas(
        t,
        arch,
        &cuda_ptx,
        &d.join(format!("{kernel}-{arch}.cuda.cubin")),
    );
    let dtk = d.join(format!("dtk-{kernel}-{arch}"));
    lower(ptx, "dtk", &dtk);
    std::fs::read_dir(&dtk)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .find(|p| p.extension().is_some_and(|e| e == "co"))
        .expect("gfx906 code object")
}

#[test]
fn lifted_fixture_kernels_assemble_lower_and_compute() {
    let Some(t) = tools() else { return };
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let n = 200usize;
    for arch in ["sm_80", "sm_90"] {
        for kernel in ["int64", "int32", "smem"] {
            let ptx = lift(&t, d, kernel, arch);
            let co = assemble_and_lower(&t, d, &ptx, kernel, arch);
            match kernel {
                "int64" => {
                    let (a, b) = (values64(n, 1), values64(n, 2));
                    let got = exec(
                        &co,
                        kernel,
                        &[bytes64(&a), bytes64(&b)],
                        n * 64,
                        &[(n as u32).to_le_bytes().to_vec()],
                        4,
                        64,
                    );
                    for i in 0..n {
                        let want = expected_int64(a[i], b[i]);
                        for (j, w) in want.iter().enumerate() {
                            let o = (8 * i + j) * 8;
                            let g = u64::from_le_bytes(got[o..o + 8].try_into().unwrap());
                            assert_eq!(
                                g, *w,
                                "{arch} int64 out[{i}][{j}] x={:#x} y={:#x}",
                                a[i], b[i]
                            );
                        }
                    }
                }
                "int32" => {
                    let (a, b) = (values32(n, 1), values32(n, 2));
                    let got = exec(
                        &co,
                        kernel,
                        &[bytes32(&a), bytes32(&b)],
                        n * 32,
                        &[(n as u32).to_le_bytes().to_vec()],
                        4,
                        64,
                    );
                    for i in 0..n {
                        let want = expected_int32(a[i], b[i]);
                        for (j, w) in want.iter().enumerate() {
                            let o = (8 * i + j) * 4;
                            let g = u32::from_le_bytes(got[o..o + 4].try_into().unwrap());
                            assert_eq!(
                                g, *w,
                                "{arch} int32 out[{i}][{j}] x={:#x} y={:#x}",
                                a[i], b[i]
                            );
                        }
                    }
                }
                _ => {
                    let m = 256usize;
                    let a = values32(m, 3);
                    let got = exec(&co, kernel, &[bytes32(&a)], m * 4, &[], (m / 64) as u32, 64);
                    for i in 0..m {
                        let g = u32::from_le_bytes(got[4 * i..4 * i + 4].try_into().unwrap());
                        assert_eq!(g, expected_smem(&a, 64, i), "{arch} smem out[{i}]");
                    }
                }
            }
            eprintln!("{T}: {kernel} {arch}: lifted, assembled, lowered (cuda, dtk), gfx906 results as the kernel defines");
        }
    }
}

/// Lift the sm_80 fixture `kernel` (one block of 64 threads, arguments `(in, out, by_value..)`),
/// check its PTX holds each of `forms`, assemble it with ptxas, lower it for `cuda` (ptxas)
/// and `dtk`, and run the gfx906 code on `input`; returns the 16 output bytes per thread.
fn lift_and_run_sm80(
    t: &Tools,
    kernel: &str,
    forms: &[&str],
    input: &[u32],
    by_value: &[Vec<u8>],
) -> Vec<u8> {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let arch = "sm_80";
    let ptx = lift(t, d, kernel, arch);
    let text = std::fs::read_to_string(&ptx).unwrap();
    for form in forms {
        assert!(
            text.contains(form),
            "the lifted {kernel} kernel has no {form}"
        );
    }
    let co = assemble_and_lower(t, d, &ptx, kernel, arch);
    let got = exec(&co, kernel, &[bytes32(input)], 64 * 16, by_value, 1, 64);
    eprintln!("{T}: {kernel} {arch}: lifted, assembled, lowered (cuda, dtk), run on gfx906");
    got
}

/// Output word `j` of thread `i` of [`lift_and_run_sm80`].
fn word(got: &[u8], i: usize, j: usize) -> u32 {
    u32::from_le_bytes(got[16 * i + 4 * j..16 * i + 4 * j + 4].try_into().unwrap())
}

/// The bank-0 window constants (`fixtures/sass/windows.ptx`, sm_80: ptxas reads the generic
/// bases of shared, local and parameter memory from c[0x0][0x18], [0x20] and [0x40], in 8-byte
/// and 4-byte halves, and the addresses are loaded through a called function's `LD.E`): the
/// lifted kernel assembles, lowers to both profiles, and on gfx906 computes what the PTX says.
#[test]
fn lifted_window_constants_assemble_lower_and_compute() {
    let Some(t) = tools() else { return };
    let a = values32(64, 5);
    let blob = values32(6, 9);
    let got = lift_and_run_sm80(
        &t,
        "windows",
        &["cvta.shared.u64", "cvta.local.u64", "__pwin"],
        &a,
        &[bytes32(&blob)],
    );
    for i in 0..64usize {
        let want = [
            a[(i + 1) & 63],
            a[i].wrapping_mul(3).wrapping_add((i & 3) as u32),
            blob[i % 6],
            3,
        ];
        for (j, v) in want.iter().enumerate() {
            assert_eq!(
                word(&got, i, j),
                *v,
                "windows out[{i}][{j}] (a = {:#x})",
                a[i]
            );
        }
    }
}

/// The forms of `fixtures/sass/forms.ptx` (sm_80: `I2F.S8` with byte selectors, `QSPC` with
/// an offset, `MEMBAR.ALL.GPU`): lifted, assembled, lowered to both profiles, and on gfx906
/// the outputs are the kernel's meaning.
#[test]
fn lifted_selector_qspc_and_fence_forms_compute() {
    let Some(t) = tools() else { return };
    let a = values32(64, 7);
    let (n, mv) = (9u32, 3u32);
    let got = lift_and_run_sm80(
        &t,
        "forms",
        &["isspacep.shared", "fence.acq_rel.gpu", "shr.u32"],
        &a,
        &[n.to_le_bytes().to_vec(), mv.to_le_bytes().to_vec()],
    );
    for (i, &x) in a.iter().enumerate() {
        let byte = |k: u32| f32::from((x >> (8 * k)) as u8 as i8).to_bits();
        let want = [
            byte(1),
            byte(2),
            u32::from(n > 5) | u32::from(mv > 7) << 1 | u32::from(i < 32) << 2,
            x,
        ];
        for (j, v) in want.iter().enumerate() {
            assert_eq!(
                word(&got, i, j),
                *v,
                "forms out[{i}][{j}] (a = {:#x})",
                a[i]
            );
        }
    }
}

/// `.nv.info` as cuobjdump lists it: per section, the attribute names in order, and the
/// KPARAM_INFO (ordinal, offset, size) triples.
type NvInfo = BTreeMap<String, (Vec<String>, Vec<(u16, u16, u16)>)>;

fn cuobjdump_nv_info(text: &str) -> NvInfo {
    let mut out: NvInfo = BTreeMap::new();
    let mut cur: Option<String> = None;
    let hex = |s: &str| u16::from_str_radix(s.trim().trim_start_matches("0x"), 16).unwrap();
    for l in text.lines() {
        if l.starts_with(".nv.info") {
            cur = Some(l.trim().to_string());
            out.entry(l.trim().to_string()).or_default();
        } else if l.starts_with('.') {
            cur = None;
        } else if let (Some(c), Some(n)) = (&cur, l.trim().strip_prefix("Attribute:")) {
            out.get_mut(c).unwrap().0.push(n.trim().to_string());
        } else if let (Some(c), true) = (&cur, l.contains("Ordinal :")) {
            let field = |k: &str| {
                let rest = &l[l.find(k).unwrap() + k.len()..];
                hex(rest
                    .trim_start_matches([' ', ':'])
                    .split_whitespace()
                    .next()
                    .unwrap())
            };
            out.get_mut(c)
                .unwrap()
                .1
                .push((field("Ordinal"), field("Offset"), field("Size")));
        }
    }
    out
}

#[test]
fn nv_info_reads_as_cuobjdump_lists_it() {
    let Some(t) = tools() else { return };
    let Some(cuobjdump) = common::require_tool("cuobjdump", T) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    for kernel in ["int64", "int32", "smem"] {
        for arch in ["sm_80", "sm_90"] {
            let cubin = dir.path().join(format!("{kernel}-{arch}.cubin"));
            ptxas(
                &t,
                arch,
                &root().join(format!("fixtures/sass/{kernel}.ptx")),
                &cubin,
            );
            let (code, text, e) = run(Command::new(&cuobjdump).arg("-elf").arg(&cubin));
            assert_eq!(code, 0, "{e}");
            let want = cuobjdump_nv_info(&text);
            let bytes = std::fs::read(&cubin).unwrap();
            let info = wheelport::sass::info::read(&bytes, kernel).unwrap();
            let k = info.kernel(kernel).unwrap();
            let names = |attrs: &[wheelport::sass::info::Attr]| -> Vec<String> {
                attrs.iter().map(|a| a.name()).collect()
            };
            let (w_own, w_params) = &want[&format!(".nv.info.{kernel}")];
            let got = names(&k.attrs);
            assert_eq!(
                got.len(),
                w_own.len(),
                "{kernel} {arch}: {got:?} vs {w_own:?}"
            );
            // A code the table names must be named as cuobjdump names it; a code it does not
            // know (EIATTR_0x..) is printed for the table.
            let same = |g: &String, w: &String, what: &str| {
                if g.starts_with("EIATTR_0x") {
                    eprintln!("{T}: {kernel} {arch} {what}: {g} is {w} for cuobjdump");
                } else if w.starts_with("EIATTR_") {
                    assert_eq!(g, w, "{kernel} {arch} {what}");
                }
            };
            for (g, w) in got.iter().zip(w_own) {
                same(g, w, "own");
            }
            let (w_glob, _) = &want[".nv.info"];
            let gg = names(&info.global_attrs);
            assert_eq!(gg.len(), w_glob.len(), "{kernel} {arch} .nv.info");
            for (g, w) in gg.iter().zip(w_glob) {
                same(g, w, ".nv.info");
            }
            let mut wp = w_params.clone();
            wp.sort();
            let gp: Vec<(u16, u16, u16)> = k
                .params
                .iter()
                .map(|p| (p.ordinal, p.offset, p.size))
                .collect();
            assert_eq!(gp, wp, "{kernel} {arch} parameters");
            let base = if arch == "sm_80" { 0x160 } else { 0x210 };
            assert_eq!(k.param_base, Some(base), "{kernel} {arch}");
            assert!(k.regcount.is_some_and(|r| r > 0), "{kernel} {arch}");
        }
    }
}

#[test]
fn nvdisasm_is_found_through_its_variable() {
    let d = tempfile::tempdir().unwrap();
    let fake = d.path().join("nvdisasm");
    std::fs::write(
        &fake,
        "#!/bin/sh\necho 'nvdisasm: NVIDIA (R) CUDA disassembler'\necho 'Cuda compilation tools, release 13.5, V13.5.37'\n",
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    let mut o = wheelport::toolchain::SearchOptions::default();
    o.env.insert(
        wheelport::toolchain::NVDISASM_ENV.to_string(),
        fake.clone().into_os_string(),
    );
    let t = wheelport::toolchain::discover_nvdisasm(&o).unwrap();
    assert_eq!(t.path, fake);
    assert_eq!(t.version.map(|v| v.to_string()).as_deref(), Some("13.5.37"));
    // Not executable: reported, not used.
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o644)).unwrap();
    let m = wheelport::toolchain::discover_nvdisasm(&o).unwrap_err();
    assert!(m.reason.contains("not an executable"), "{}", m.reason);
    // Nothing set, empty PATH: missing with the install hint.
    let m = wheelport::toolchain::discover_nvdisasm(&Default::default()).unwrap_err();
    assert!(m.install.contains("nvidia-cuda-nvdisasm"));
}

/// The H200 run of the lifted kernels (`fixtures/gpu/results/sass_twin.json`, made by
/// `tools/gpu/sass_twin.py fixtures/sass/gpu`) is for the current lifter and lowering: every
/// kernel's sm_80 and sm_90 lifts gave the original sm_90 cubin's bytes, the recorded inputs
/// are the committed `fixtures/sass/gpu/` files, and lifting and lowering (cuda, sm_90) the
/// fixtures now gives those files again. A lifter change without a GPU re-run fails here.
#[test]
fn h200_results_are_for_the_current_lifter() {
    let results: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(root().join("fixtures/gpu/results/sass_twin.json")).unwrap(),
    )
    .unwrap();
    let kernels = results["kernels"].as_array().unwrap();
    for (kernel, archs) in H200_KERNELS {
        let k = kernels
            .iter()
            .find(|k| k["kernel"] == *kernel)
            .unwrap_or_else(|| panic!("no H200 result for {kernel}"));
        for arch in *archs {
            assert_eq!(
                k[format!("lifted_{arch}")]["equal"],
                true,
                "{kernel} {arch}"
            );
        }
    }
    let gpu = root().join("fixtures/sass/gpu");
    for (name, sha) in results["inputs"].as_object().unwrap() {
        let data = std::fs::read(gpu.join(name)).unwrap();
        assert_eq!(
            sha256_hex(&data),
            sha.as_str().unwrap(),
            "fixtures/sass/gpu/{name} is not the file run on the H200"
        );
    }
    let Some(t) = tools() else { return };
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for (kernel, archs) in H200_KERNELS {
        for arch in *archs {
            let ptx = lift(&t, d, kernel, arch);
            let want = gpu.join(format!("{kernel}-{arch}.lifted.ptx"));
            assert_eq!(
                std::fs::read(&ptx).unwrap(),
                std::fs::read(&want).unwrap(),
                "{}: the lifter changed since the H200 run: re-run tools/gpu/sass_twin_prep.sh and tools/gpu/sass_twin.py",
                want.display()
            );
            let out = d.join(format!("twin-{kernel}-{arch}"));
            let (code, o, e) = run(Command::new(bin())
                .args([
                    "ptx",
                    "lower",
                    "--target",
                    "cuda",
                    "--offload-arch",
                    "sm_90",
                ])
                .args(["--emit", "obj", "-o"])
                .arg(&out)
                .arg(&want)
                .env("WHEELPORT_NO_CACHE", "1"));
            assert_eq!(code, 0, "lower {}: {o}{e}", want.display());
            assert_eq!(
                std::fs::read(out.join(format!("{kernel}-{arch}.lifted.ptx"))).unwrap(),
                std::fs::read(gpu.join(format!("{kernel}-{arch}.twin.ptx"))).unwrap(),
                "{kernel}-{arch}.twin.ptx: the lowering changed since the H200 run: re-run tools/gpu/sass_twin_prep.sh and tools/gpu/sass_twin.py"
            );
        }
    }
}

/// The `fixtures/sass` kernels run on the H200 (`tools/gpu/sass_twin.py`) and the archs their
/// lifted code was made from.
const H200_KERNELS: &[(&str, &[&str])] = &[
    ("int64", &["sm_80", "sm_90"]),
    ("int32", &["sm_80", "sm_90"]),
    ("smem", &["sm_80", "sm_90"]),
    ("windows", &["sm_80"]),
    ("forms", &["sm_80"]),
];

fn sha256_hex(data: &[u8]) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(data)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}
