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
    exec_then(
        co,
        kernel,
        inputs,
        out_len,
        by_value,
        grid,
        block,
        |_, _| (),
    )
    .0
}

/// [`exec`], then `after` with the machine and the inputs' addresses; its result beside the
/// output buffer.
#[allow(clippy::too_many_arguments)]
fn exec_then<R>(
    co: &Path,
    kernel: &str,
    inputs: &[Vec<u8>],
    out_len: usize,
    by_value: &[Vec<u8>],
    grid: u32,
    block: u32,
    after: impl FnOnce(&Machine, &[u64]) -> R,
) -> (Vec<u8>, R) {
    let obj = amdgpu_exec::runner::load_objects(co, "gfx906").unwrap();
    let mut m = Machine::new(obj.into_iter().next().unwrap()).unwrap();
    let k = m.co.kernel(kernel).expect("kernel").clone();
    let mut ka = vec![0u8; k.kernarg_segment_size as usize];
    let mut args: Vec<Vec<u8>> = Vec::new();
    let mut addrs = Vec::new();
    for (j, b) in inputs.iter().enumerate() {
        let a = m.mem.alloc(b.len(), &format!("in{j}"));
        m.mem.write(a, b).unwrap();
        args.push(a.to_le_bytes().to_vec());
        addrs.push(a);
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
    let r = after(&m, &addrs);
    (got, r)
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

/// A `__half` parameter read as the high half of a bank-0 word it shares with another
/// parameter, and `NANOSLEEP` (`fixtures/sass/param_halves.ptx`, sm_80): the lifted kernel
/// assembles, lowers to both profiles, and on gfx906 gives the f16 sum and product of each
/// input with the parameter, rounded to nearest (amdgpu-exec's IEEE arithmetic), bit for bit.
#[test]
fn lifted_parameter_halves_and_nanosleep_compute() {
    use amdgpu_exec::fp::{self, Env, F16};
    let Some(t) = tools() else { return };
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let ptx = lift(&t, d, "param_halves", "sm_80");
    let text = std::fs::read_to_string(&ptx).unwrap();
    for form in ["nanosleep.u32", "ld.param.b16", "ld.param.b8"] {
        assert!(text.contains(form), "the lifted kernel has no {form}");
    }
    let co = assemble_and_lower(&t, d, &ptx, "param_halves", "sm_80");
    // Halves: edge values (0, -0, 1, subnormals, 65504, inf, NaN) then a spread.
    let edges: [u16; 8] = [
        0x0000, 0x8000, 0x3c00, 0x0001, 0x83ff, 0x7bff, 0x7c00, 0xfc00,
    ];
    let input: Vec<u16> = (0..64u32)
        .map(|i| match edges.get(i as usize) {
            Some(e) => *e,
            None => (i.wrapping_mul(0x9e37) >> 3) as u16 & 0x7bff | ((i as u16 & 1) << 15),
        })
        .collect();
    for h in [0x3c00u16, 0xc500, 0x0200, 0x5a3f] {
        let got = exec(
            &co,
            "param_halves",
            &[input.iter().flat_map(|v| v.to_le_bytes()).collect()],
            64 * 4,
            &[
                vec![0x5a],
                h.to_le_bytes().to_vec(),
                37u32.to_le_bytes().to_vec(),
            ],
            1,
            64,
        );
        for (i, x) in input.iter().enumerate() {
            let w = u32::from_le_bytes(got[4 * i..4 * i + 4].try_into().unwrap());
            let (sum, prod) = (w as u16, (w >> 16) as u16);
            let want_sum = fp::add(F16, u64::from(*x), u64::from(h), Env::IEEE) as u16;
            let want_prod = fp::mul(F16, u64::from(*x), u64::from(h), Env::IEEE) as u16;
            let nan = |b: u16| b & 0x7c00 == 0x7c00 && b & 0x3ff != 0;
            assert!(
                sum == want_sum || (nan(sum) && nan(want_sum)),
                "{x:#06x} + {h:#06x}: {sum:#06x}, want {want_sum:#06x}"
            );
            assert!(
                prod == want_prod || (nan(prod) && nan(want_prod)),
                "{x:#06x} * {h:#06x}: {prod:#06x}, want {want_prod:#06x}"
            );
        }
    }
}

/// `fixtures/sass/bf16_brev.ptx` (sm_80: `F2F.BF16.F32`, `BREV` of a parameter): lifted,
/// assembled, lowered to both profiles, and on gfx906 each output is the binary32 input
/// rounded to bfloat16 to nearest even (any NaN for a NaN) under the parameter's bit reversal.
#[test]
fn lifted_bf16_conversion_and_bit_reversal_compute() {
    let Some(t) = tools() else { return };
    let edges: [u32; 12] = [
        0x0000_0000,
        0x8000_0000,
        0x3f80_0000,
        0x3f80_8000, // a tie, rounds to even (down)
        0x3f81_8000, // a tie, rounds to even (up)
        0x3f80_8001,
        0x7f7f_ffff, // rounds up to infinity
        0x7f80_0000,
        0xff80_0000,
        0x7fc0_0001,
        0x0000_0001,
        0x807f_ffff,
    ];
    let mut a = values32(64, 11);
    a[..edges.len()].copy_from_slice(&edges);
    let k = 0x1234_5678u32;
    let got = lift_and_run_sm80(
        &t,
        "bf16_brev",
        &["cvt.rn.bf16.f32", "brev.b32"],
        &a,
        &[k.to_le_bytes().to_vec()],
    );
    for (i, &x) in a.iter().enumerate() {
        let w = u32::from_le_bytes(got[4 * i..4 * i + 4].try_into().unwrap());
        assert_eq!(w >> 16, k.reverse_bits() & 0xffff, "brev, thread {i}");
        let b = w & 0xffff;
        let nan = x & 0x7f80_0000 == 0x7f80_0000 && x & 0x7f_ffff != 0;
        if nan {
            assert!(
                b & 0x7f80 == 0x7f80 && b & 0x7f != 0,
                "{x:#010x}: {b:#06x}, want a NaN"
            );
        } else {
            let want = (x + 0x7fff + ((x >> 16) & 1)) >> 16;
            assert_eq!(b, want, "bf16 of {x:#010x}");
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

/// A stand-in for `vprintf` (PTX) that the printf test puts in place of the real one in the
/// original fixture and in the lifted kernel alike: the first argument of every printf of
/// `fixtures/sass/device_printf.ptx` is the address of a slot whose first 8 bytes the test fills with
/// the argument buffer's length; the stand-in writes the format's address at +8 and copies
/// the argument buffer to +16, and returns 0.
const CAPTURE_VPRINTF: &str = "
.func (.param .b32 wp_ret) wp_capture_vprintf(.param .b64 wp_fmt, .param .b64 wp_args)
{
	.reg .b64 %cf, %ca, %cd, %cn, %ci, %cx;
	.reg .b32 %cb;
	.reg .pred %cp;
	ld.param.b64 %cf, [wp_fmt];
	ld.param.b64 %ca, [wp_args];
	ld.u64 %cd, [%ca];
	ld.u64 %cn, [%cd];
	st.u64 [%cd+8], %cf;
	mov.u64 %ci, 0;
wp_cap_loop:
	setp.ge.u64 %cp, %ci, %cn;
	@%cp bra wp_cap_done;
	add.u64 %cx, %ca, %ci;
	ld.u8 %cb, [%cx];
	add.u64 %cx, %cd, %ci;
	st.u8 [%cx+16], %cb;
	add.u64 %ci, %ci, 1;
	bra wp_cap_loop;
wp_cap_done:
	st.param.b32 [wp_ret], 0;
	ret;
}
";

/// `ptx` with its `vprintf` calls made to [`CAPTURE_VPRINTF`].
fn with_capture(ptx: &str) -> String {
    let (head, rest) = ptx
        .split_once(".address_size 64\n")
        .expect(".address_size line");
    assert!(rest.contains(", vprintf, ("), "no vprintf call in\n{ptx}");
    format!(
        "{head}.address_size 64\n{CAPTURE_VPRINTF}{}",
        rest.replace(", vprintf, (", ", wp_capture_vprintf, (")
    )
}

/// Each conversion of a printf format: (its letter, its bytes in CUDA's argument buffer, where
/// each argument lies at the next multiple of its size: 8 for `%p`, `%s`, doubles and
/// `ll`/`l` integers, else 4).
fn conversions(fmt: &str) -> Vec<(char, usize)> {
    let b = fmt.as_bytes();
    let (mut i, mut out) = (0, Vec::new());
    while i < b.len() {
        if b[i] != b'%' {
            i += 1;
            continue;
        }
        i += 1;
        if b.get(i) == Some(&b'%') {
            i += 1;
            continue;
        }
        while i < b.len() && !b[i].is_ascii_alphabetic() {
            i += 1;
        }
        let mut long = false;
        while i < b.len() && matches!(b[i], b'l' | b'h') {
            long |= b[i] == b'l';
            i += 1;
        }
        let c = b[i] as char;
        i += 1;
        let size = if matches!(c, 'p' | 's' | 'f' | 'e' | 'g') || long {
            8
        } else {
            4
        };
        out.push((c, size));
    }
    out
}

/// One captured printf call: its format string and each argument (the bytes, or for `%s` the
/// string it points at).
#[derive(Debug, PartialEq)]
struct Printed {
    format: String,
    args: Vec<Vec<u8>>,
}

/// The C string at `addr` in `m`'s memory.
fn cstr(m: &Machine, addr: u64) -> Vec<u8> {
    let mut s = Vec::new();
    for k in 0..256 {
        let mut b = [0u8];
        m.mem.read(addr + k, &mut b).unwrap();
        if b[0] == 0 {
            break;
        }
        s.push(b[0]);
    }
    s
}

/// The printf formats of `fixtures/sass/device_printf.ptx`, in call order.
const PRINTF_FORMATS: [&str; 2] = ["%p t=%d l=%lld a=%08x d=%.3f s=%s\n", "%p %s %c\n"];

/// The argument-buffer length of `fmt` (CUDA's layout, [`conversions`]).
fn buffer_len(fmt: &str) -> usize {
    conversions(fmt)
        .iter()
        .fold(0, |end, &(_, n)| end.next_multiple_of(n) + n)
}

/// Run `device_printf` of `co` (with [`CAPTURE_VPRINTF`]) on `a`: the output and, per thread, its
/// two captured calls.
fn run_printf(co: &Path, a: &[u32], strs: &[u8]) -> (Vec<u8>, Vec<[Printed; 2]>) {
    // Slot of call c of thread t: 128 * t + 8192 * c bytes into `cap`, its length first.
    let mut cap = vec![0u8; 16384];
    for t in 0..64 {
        for (c, f) in PRINTF_FORMATS.iter().enumerate() {
            let o = 128 * t + 8192 * c;
            cap[o..o + 8].copy_from_slice(&(buffer_len(f) as u64).to_le_bytes());
        }
    }
    exec_then(
        co,
        "device_printf",
        &[bytes32(a), strs.to_vec(), cap],
        64 * 32,
        &[],
        1,
        64,
        |m, addrs| {
            let base = addrs[2];
            (0..64u64)
                .map(|t| {
                    [0u64, 1].map(|c| {
                        let slot = base + 128 * t + 8192 * c;
                        let mut h = [0u8; 16];
                        m.mem.read(slot, &mut h).unwrap();
                        let len = u64::from_le_bytes(h[..8].try_into().unwrap()) as usize;
                        let fmt = cstr(m, u64::from_le_bytes(h[8..].try_into().unwrap()));
                        let mut buf = vec![0u8; len];
                        m.mem.read(slot + 16, &mut buf).unwrap();
                        let format = String::from_utf8(fmt).unwrap();
                        let mut args = Vec::new();
                        let mut at = 0usize;
                        for (conv, n) in conversions(&format) {
                            at = at.next_multiple_of(n);
                            let v = buf[at..at + n].to_vec();
                            args.push(if conv == 's' {
                                cstr(m, u64::from_le_bytes(v.try_into().unwrap()))
                            } else {
                                v
                            });
                            at += n;
                        }
                        Printed { format, args }
                    })
                })
                .collect()
        },
    )
}

/// `fixtures/sass/device_printf.ptx` (device printf and assert, `__constant__` and `__device__`
/// data) assembled for sm_80 and sm_90 lifts completely; the lifted kernel assembles, lowers
/// to both profiles and on gfx906 computes what the PTX says. With a stand-in for `vprintf`
/// in both, each printf of the lifted kernel passes the original's format string and the same
/// argument buffer (every argument's bytes; a `%s` argument's string) as the original PTX
/// run through the PTX path, and these are the values the kernel prints.
#[test]
fn lifted_printf_assert_and_module_data_compute() {
    let Some(t) = tools() else { return };
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let a = values32(64, 11);
    let strs: Vec<u8> = ["zero", "one", "two", "three"]
        .iter()
        .flat_map(|w| {
            let mut b = w.as_bytes().to_vec();
            b.resize(8, 0);
            b
        })
        .collect();
    let c_tab: [i32; 16] = [3, -1, 4, 1, -5, 9, 2, -6, 5, 3, -5, 8, 9, 7, -9, 3];
    // The original PTX through the PTX path, with the stand-in.
    let src = std::fs::read_to_string(root().join("fixtures/sass/device_printf.ptx")).unwrap();
    let orig = d.join("printf-original.capture.ptx");
    std::fs::write(&orig, with_capture(&src)).unwrap();
    let orig_co = d.join("dtk-printf-original");
    lower(&orig, "dtk", &orig_co);
    let co_of = |dir: &Path| {
        std::fs::read_dir(dir)
            .unwrap()
            .filter_map(|e| e.ok().map(|e| e.path()))
            .find(|p| p.extension().is_some_and(|e| e == "co"))
            .expect("gfx906 code object")
    };
    let (_, want_calls) = run_printf(&co_of(&orig_co), &a, &strs);
    for arch in ["sm_80", "sm_90"] {
        let ptx = lift(&t, d, "device_printf", arch);
        let text = std::fs::read_to_string(&ptx).unwrap();
        for form in [
            "call.uni (retval0), vprintf, (param0, param1);",
            "call.uni __assertfail, (param0, param1, param2, param3, param4);",
            "ld.const.b32",
            "cvta.global.u64",
            ".const .align 16 .b8 c_tab[64] = {3, 0, 0, 0, 255,",
            "$str[35] = {37, 112, 32, 116, 61,",
        ] {
            assert!(text.contains(form), "{arch}: no {form} in\n{text}");
        }
        let co = assemble_and_lower(&t, d, &ptx, "device_printf", arch);
        let got = exec(
            &co,
            "device_printf",
            &[bytes32(&a), strs.clone(), vec![0u8; 16384]],
            64 * 32,
            &[],
            1,
            64,
        );
        let w = |t: usize, j: usize| {
            u32::from_le_bytes(got[32 * t + 4 * j..32 * t + 4 * j + 4].try_into().unwrap())
        };
        for (ti, &x) in a.iter().enumerate() {
            // Words 0 and 1 are printf's results (compared on the H200).
            let want = [
                c_tab[(x & 15) as usize] as u32,
                1009,
                0x1111_1111u32.wrapping_mul(x % 8 + 1),
                a[ti ^ 1] ^ 0x5a5a_5a5a,
                x.wrapping_mul(2).wrapping_add(1),
                ti as u32,
            ];
            for (j, v) in want.iter().enumerate() {
                assert_eq!(
                    w(ti, j + 2),
                    *v,
                    "{arch} printf out[{ti}][{}] (a = {x:#x})",
                    j + 2
                );
            }
        }
        // The calls, with the stand-in in the lifted kernel.
        let cap = d.join(format!("printf-{arch}.capture.ptx"));
        std::fs::write(&cap, with_capture(&text)).unwrap();
        let cap_co = d.join(format!("dtk-printf-{arch}-capture"));
        lower(&cap, "dtk", &cap_co);
        let (_, calls) = run_printf(&co_of(&cap_co), &a, &strs);
        for (ti, (got, want)) in calls.iter().zip(&want_calls).enumerate() {
            assert_eq!(
                got, want,
                "{arch} thread {ti}: the lifted printf calls differ from the original's"
            );
            let x = a[ti];
            let (tt, xs) = (ti as u32, x as i32);
            assert_eq!(got[0].format, PRINTF_FORMATS[0]);
            assert_eq!(got[1].format, PRINTF_FORMATS[1]);
            assert_eq!(got[0].args[1], tt.to_le_bytes());
            assert_eq!(
                got[0].args[2],
                (i64::from(xs) * i64::from(tt)).to_le_bytes()
            );
            assert_eq!(got[0].args[3], x.to_le_bytes());
            assert_eq!(
                got[0].args[4],
                (f64::from(xs) * 0.5).to_bits().to_le_bytes()
            );
            assert_eq!(
                got[0].args[5],
                ["zero", "one", "two", "three"][ti % 4].as_bytes()
            );
            assert_eq!(
                got[1].args[1],
                if ti % 2 == 1 { &b"odd"[..] } else { b"even" }
            );
            assert_eq!(got[1].args[2], (65 + tt % 26).to_le_bytes());
        }
        eprintln!("{T}: printf {arch}: lifted, assembled, lowered (cuda, dtk), gfx906 results as the kernel defines, printf calls as the original's");
    }
}

/// The relocations of a cubin's constant bank 4 (`.rel.nv.constant4`) read as cuobjdump
/// lists them: offset, symbol and type (R_CUDA_64), on the printf fixture's sm_80 and sm_90
/// cubins; the data symbols lie in the sections cuobjdump names.
#[test]
fn relocations_read_as_cuobjdump_lists_them() {
    let Some(t) = tools() else { return };
    let Some(cuobjdump) = common::require_tool("cuobjdump", T) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    for arch in ["sm_80", "sm_90"] {
        let cubin = dir.path().join(format!("printf-{arch}.cubin"));
        ptxas(
            &t,
            arch,
            &root().join("fixtures/sass/device_printf.ptx"),
            &cubin,
        );
        let (code, text, e) = run(Command::new(&cuobjdump).arg("-elf").arg(&cubin));
        assert_eq!(code, 0, "{e}");
        let info =
            wheelport::sass::info::read(&std::fs::read(&cubin).unwrap(), "device_printf").unwrap();
        // `.section .rel.nv.constant4 REL` (or RELA) then `0x98    $str    R_CUDA_64` lines.
        let mut want: Vec<(u64, String, String)> = Vec::new();
        let mut inside = false;
        for l in text.lines() {
            if l.starts_with(".section .rel") {
                inside = l.contains(".nv.constant4");
                continue;
            }
            let f: Vec<&str> = l.split_whitespace().collect();
            if inside && f.len() >= 3 && f[0].starts_with("0x") {
                want.push((
                    u64::from_str_radix(&f[0][2..], 16).unwrap(),
                    f[1].to_string(),
                    f[2].to_string(),
                ));
            } else if l.trim().is_empty() && !want.is_empty() {
                inside = false;
            }
        }
        let got: Vec<(u64, String, String)> = info.relocations[".nv.constant4"]
            .iter()
            .map(|r| {
                assert_eq!(r.kind, wheelport::sass::info::R_CUDA_64);
                (r.offset, r.symbol.clone(), "R_CUDA_64".to_string())
            })
            .collect();
        assert_eq!(got, want, "{arch}");
        for (name, section) in [
            ("c_tab", ".nv.constant3"),
            ("g_tab", ".nv.global.init"),
            ("g_scratch", ".nv.global"),
            ("$str", ".nv.global.init"),
        ] {
            assert_eq!(
                info.symbol(name).map(|s| s.section.as_str()),
                Some(section),
                "{arch} {name}"
            );
        }
        assert!(info.symbol("vprintf").is_some_and(|s| s.function));
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
