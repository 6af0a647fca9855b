//! The ISA interpreter's own correctness (`tools/amdgpu-exec`):
//! * the functional examples of AMD's ISA documents for instructions gfx9 shares (the RDNA3
//!   ISA reference's V_RCP/V_RSQ/V_SQRT/V_SIN/V_COS/V_EXP/V_LOG/V_MBCNT examples), each
//!   instruction assembled by LLVM 19's `llvm-mc` and executed, on gfx906, gfx942 and gfx1100;
//! * the RDNA3 operations whose meaning differs from gfx9 (or that gfx9 lacks), assembled for
//!   gfx1100 wave64 and executed against the RDNA3 ISA's pseudocode;
//! * small kernels compiled by LLVM 19 (`llc -O3`, `ld.lld`) for gfx906, gfx942 and gfx1100
//!   (wave64) and executed with known results computed on the host: IEEE f32/f64 division
//!   and square root (the V_DIV_SCALE/V_DIV_FMAS/V_DIV_FIXUP and refinement sequences),
//!   integer division (V_RCP_IFLAG sequences), and the LLVM 19 miscompiles wheelport's build
//!   avoids (they reproduce with LLVM's default flags and not with wheelport's flags on gfx9
//!   or its gfx10+ library overlay on gfx1100);
//! * wheelport's directed-rounding support functions (`kernels-ir/amdgcn.ll`) against
//!   correctly rounded results;
//! * `ds_swizzle_b32` (bit-mask and quad modes) against `ds_bpermute_b32` reading the lanes
//!   the swizzle pattern names, for gfx906 and gfx942;
//! * the interpreter's speed, printed in wave instructions per second.

mod common;

use amdgpu_exec::elf::CodeObject;
use amdgpu_exec::exec::{run_snippet, Launch, Limits, Machine, Memory};
use amdgpu_exec::fp::{self, Env, Round};
use amdgpu_exec::isa::Arch;
use common::{root, run};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

/// LLVM 19's bin directory (where the discovered `llc` lives), or `None` (SKIP; fails under
/// CI).
fn llvm_bin(test: &str) -> Option<PathBuf> {
    let prof = wheelport::target::profile("dtk").unwrap();
    let tc = wheelport::toolchain::discover(prof, &wheelport::toolchain::SearchOptions::from_env());
    let dir = tc
        .tool("llc")
        .and_then(|t| std::fs::canonicalize(&t.path).ok())
        .and_then(|p| p.parent().map(Path::to_path_buf))
        .filter(|d| d.join("llvm-mc").is_file() && d.join("ld.lld").is_file());
    if dir.is_none() {
        assert!(
            std::env::var_os("CI").is_none(),
            "{test}: LLVM 19 not found"
        );
        eprintln!("SKIP {test}: LLVM 19 (llc, llvm-mc, ld.lld) not found");
    }
    dir
}

/// The `llc` / `llvm-mc` target features of `arch`: wave64 on RDNA, as wheelport builds it.
fn mattr(arch: &str) -> &'static [&'static str] {
    if arch.starts_with("gfx1") {
        &["-mattr=+wavefrontsize64"]
    } else {
        &[]
    }
}

/// The encoding of assembly `text` for `arch`, by llvm-mc.
fn assemble(bin: &Path, arch: &str, text: &str) -> Vec<u8> {
    let mut child = Command::new(bin.join("llvm-mc"))
        .args([
            "-triple=amdgcn-amd-amdhsa",
            &format!("-mcpu={arch}"),
            "-show-encoding",
        ])
        .args(mattr(arch))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "llvm-mc: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut bytes = Vec::new();
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        if let Some(e) = line.split("encoding: [").nth(1) {
            for b in e.trim_end_matches(']').split(',') {
                bytes.push(u8::from_str_radix(b.trim().trim_start_matches("0x"), 16).unwrap());
            }
        }
    }
    bytes
}

/// Run `v_<op> v1, v0` over `inputs` (one per lane) and return v1.
fn one_source(bin: &Path, arch: Arch, op: &str, inputs: &[u32]) -> Vec<u32> {
    let code = assemble(bin, arch.name(), &format!("{op} v1, v0\ns_endpgm\n"));
    let mut mem = Memory::new();
    let inp = inputs.to_vec();
    let w = run_snippet(arch, &code, &mut mem, 0, 100, &|w| {
        for (l, x) in inp.iter().enumerate() {
            w.v[0][l] = *x;
        }
    })
    .unwrap();
    w.v[1][..inputs.len()].to_vec()
}

#[test]
fn isa_document_functional_examples() {
    const T: &str = "amdgpu_exec_isa::examples";
    let Some(bin) = llvm_bin(T) else {
        return;
    };
    // (instruction, input, result) from the "Functional examples" of AMD's RDNA3 ISA
    // reference (ch. 16, VOP1/VOP3), for instructions that gfx9 has with the same semantics.
    let f32_examples: &[(&str, &[(u32, u32)])] = &[
        (
            "v_rcp_f32",
            &[
                (0xff80_0000, 0x8000_0000),
                (0xc000_0000, 0xbf00_0000),
                (0x8000_0000, 0xff80_0000),
                (0x0000_0000, 0x7f80_0000),
                (0x7f80_0000, 0x0000_0000),
            ],
        ),
        (
            "v_rsq_f32",
            &[
                (0xff80_0000, 0xffc0_0000),
                (0x8000_0000, 0xff80_0000),
                (0x0000_0000, 0x7f80_0000),
                (0x4080_0000, 0x3f00_0000),
                (0x7f80_0000, 0x0000_0000),
            ],
        ),
        (
            "v_sqrt_f32",
            &[
                (0xff80_0000, 0xffc0_0000),
                (0x8000_0000, 0x8000_0000),
                (0x0000_0000, 0x0000_0000),
                (0x4080_0000, 0x4000_0000),
                (0x7f80_0000, 0x7f80_0000),
            ],
        ),
        (
            "v_sin_f32",
            &[
                (0xff80_0000, 0xffc0_0000),
                (0xff7f_ffff, 0x0000_0000),
                (0x8000_0000, 0x8000_0000),
                (0x3e80_0000, 0x3f80_0000),
                (0x7f80_0000, 0xffc0_0000),
            ],
        ),
        (
            "v_cos_f32",
            &[
                (0xff80_0000, 0xffc0_0000),
                (0xff7f_ffff, 0x3f80_0000),
                (0x8000_0000, 0x3f80_0000),
                (0x3e80_0000, 0x0000_0000),
                (0x7f80_0000, 0xffc0_0000),
            ],
        ),
        (
            "v_exp_f32",
            &[
                (0xff80_0000, 0x0000_0000),
                (0x8000_0000, 0x3f80_0000),
                (0x7f80_0000, 0x7f80_0000),
            ],
        ),
        (
            "v_log_f32",
            &[
                (0xff80_0000, 0xffc0_0000),
                (0xbf80_0000, 0xffc0_0000),
                (0x8000_0000, 0xff80_0000),
                (0x0000_0000, 0xff80_0000),
                (0x3f80_0000, 0x0000_0000),
                (0x7f80_0000, 0x7f80_0000),
            ],
        ),
        (
            "v_rcp_f16",
            &[
                (0xfc00, 0x8000),
                (0xc000, 0xb800),
                (0x8000, 0xfc00),
                (0x0000, 0x7c00),
                (0x7c00, 0x0000),
            ],
        ),
        (
            "v_sqrt_f16",
            &[
                (0xfc00, 0xfe00),
                (0x8000, 0x8000),
                (0x0000, 0x0000),
                (0x4400, 0x4000),
                (0x7c00, 0x7c00),
            ],
        ),
        (
            "v_rsq_f16",
            &[
                (0xfc00, 0xfe00),
                (0x8000, 0xfc00),
                (0x0000, 0x7c00),
                (0x4400, 0x3800),
                (0x7c00, 0x0000),
            ],
        ),
    ];
    let mut n = 0;
    for arch in [Arch::Gfx906, Arch::Gfx942, Arch::Gfx1100] {
        for (op, ex) in f32_examples {
            let inputs: Vec<u32> = ex.iter().map(|e| e.0).collect();
            let got = one_source(&bin, arch, &format!("{op}_e32"), &inputs);
            for ((i, want), g) in ex.iter().zip(&got) {
                assert_eq!(*g, *want, "{} {op}(0x{i:x})", arch.name());
                n += 1;
            }
        }
        // "Example to compute each thread's position in 0..63" (V_MBCNT_HI_U32_B32)
        let code = assemble(
            &bin,
            arch.name(),
            "v_mbcnt_lo_u32_b32 v0, -1, 0\nv_mbcnt_hi_u32_b32 v0, -1, v0\ns_endpgm\n",
        );
        let w = run_snippet(arch, &code, &mut Memory::new(), 0, 10, &|_| {}).unwrap();
        assert_eq!(w.v[0].to_vec(), (0..64).collect::<Vec<u32>>());
    }
    eprintln!("{T}: {n} examples");
}

/// Run `text` (gfx1100 wave64 assembly ending with `s_endpgm`) as one wave with 256 bytes of
/// LDS after `init`.
fn gfx1100(
    bin: &Path,
    text: &str,
    init: &dyn Fn(&mut amdgpu_exec::exec::Wave),
) -> amdgpu_exec::exec::Wave {
    let code = assemble(bin, "gfx1100", text);
    run_snippet(Arch::Gfx1100, &code, &mut Memory::new(), 256, 100, init).unwrap()
}

/// The RDNA3 operations whose meaning differs from gfx9 or that gfx9 lacks, against the RDNA3
/// ISA reference (AMD, "RDNA3 Instruction Set Architecture"): V_CMPX writes EXEC only;
/// VOPC's gfx11 opcode numbering; 16-bit results keep the register's high half; V_DOT4_I32_IU8
/// takes each source's signedness from NEG; V_MINMAX_I32; S_ROUND_MODE and S_DENORM_MODE
/// set MODE; NULL reads 0 and takes no write (a 64-bit NULL destination leaves EXEC, the
/// code after it, alone); DS_CMPSTORE takes the new value in DATA0 and the compare value in
/// DATA1; DS_BPERMUTE_B32 in wave64 permutes each 32-lane half within itself (the ISA's
/// "% 32"; Mesa's ACO builds a full-wave bpermute from two half-wave ones on gfx10-11.5).
#[test]
fn rdna3_operations_follow_the_rdna3_isa() {
    const T: &str = "amdgpu_exec_isa::rdna3";
    let Some(bin) = llvm_bin(T) else {
        return;
    };
    let lanes = |f: &dyn Fn(u32) -> bool| -> u64 {
        (0..64).filter(|&l| f(l)).fold(0u64, |m, l| m | 1 << l)
    };
    // V_CMPX: EXEC = the compare, VCC untouched (e32 and e64)
    let w = gfx1100(&bin, "v_cmpx_gt_u32_e32 v0, v1\ns_endpgm\n", &|w| {
        w.set_vcc(0x1234);
        for l in 0..64 {
            w.v[0][l] = l as u32;
            w.v[1][l] = 31;
        }
    });
    assert_eq!((w.exec(), w.vcc()), (lanes(&|l| l > 31), 0x1234));
    let w = gfx1100(&bin, "v_cmpx_lt_i32_e64 v0, 5\ns_endpgm\n", &|w| {
        w.set_vcc(0x1234);
        for l in 0..64 {
            w.v[0][l] = l as u32;
        }
    });
    assert_eq!((w.exec(), w.vcc()), (lanes(&|l| l < 5), 0x1234));
    // VOPC numbering: 16-bit signed and unsigned, f16, f32 class
    let w = gfx1100(
        &bin,
        "v_cmp_lt_i16_e32 vcc, v0, v1\ns_mov_b64 s[0:1], vcc\nv_cmp_lt_u16_e32 vcc, v0, v1\ns_mov_b64 s[2:3], vcc\nv_cmp_lt_f16_e32 vcc, v0, v1\ns_mov_b64 s[4:5], vcc\nv_cmp_class_f32_e64 s[6:7], v2, v3\ns_endpgm\n",
        &|w| {
            for l in 0..64 {
                // lanes below 32: -(l + 1) as i16 (and as f16 a NaN or negative); above: l
                w.v[0][l] = if l < 32 { 0xdead_0000 | (0x1_0000 - (l as u32 + 1)) } else { l as u32 };
                w.v[1][l] = 0xbeef_0030; // 48
                w.v[2][l] = if l % 2 == 0 { 0x8000_0000 } else { 0x3f80_0000 }; // -0, 1.0
                w.v[3][l] = 1 << 5; // class bit 5: -0
            }
        },
    );
    assert_eq!(w.s[0] as u64 | (w.s[1] as u64) << 32, lanes(&|l| l < 48));
    assert_eq!(
        w.s[2] as u64 | (w.s[3] as u64) << 32,
        lanes(&|l| (32..48).contains(&l))
    );
    // f16: 0xffff..0xffe0 are NaNs (unordered), 0x0020..0x003f positive denormals
    assert_eq!(
        w.s[4] as u64 | (w.s[5] as u64) << 32,
        lanes(&|l| (32..48).contains(&l))
    );
    assert_eq!(
        w.s[6] as u64 | (w.s[7] as u64) << 32,
        lanes(&|l| l % 2 == 0)
    );
    // 16-bit results keep the high half
    let w = gfx1100(
        &bin,
        "v_add_f16_e32 v2, v0, v1\nv_add_nc_u16 v3, v0, v1\nv_cvt_f16_f32_e32 v4, v5\ns_endpgm\n",
        &|w| {
            for l in 0..64 {
                w.v[0][l] = 0x1111_3c00; // 1.0
                w.v[1][l] = 0x2222_4000; // 2.0
                w.v[2][l] = 0xdead_0000;
                w.v[3][l] = 0xbeef_0000;
                w.v[4][l] = 0xcafe_0000;
                w.v[5][l] = 0x4040_0000; // 3.0
            }
        },
    );
    assert_eq!(
        (w.v[2][7], w.v[3][7], w.v[4][7]),
        (0xdead_4200, 0xbeef_7c00, 0xcafe_4200)
    );
    // V_DOT4_I32_IU8: NEG_LO[0..1] make the sources signed
    let init = |w: &mut amdgpu_exec::exec::Wave| {
        for l in 0..64 {
            w.v[0][l] = 0x02ff_01fe; // bytes fe 01 ff 02
            w.v[1][l] = 0x0403_02ff; // bytes ff 02 03 04
            w.v[3][l] = 100;
        }
    };
    let w = gfx1100(
        &bin,
        "v_dot4_i32_iu8 v2, v0, v1, v3 neg_lo:[1,1,0]\ns_endpgm\n",
        &init,
    );
    assert_eq!(w.v[2][0] as i32, 100 + (-2) * (-1) + 2 - 3 + 2 * 4);
    let w = gfx1100(
        &bin,
        "v_dot4_i32_iu8 v2, v0, v1, v3 neg_lo:[1,0,0]\ns_endpgm\n",
        &init,
    );
    assert_eq!(w.v[2][0] as i32, 100 + (-2) * 255 + 2 - 3 + 2 * 4);
    let w = gfx1100(&bin, "v_dot4_i32_iu8 v2, v0, v1, v3\ns_endpgm\n", &init);
    assert_eq!(w.v[2][0] as i32, 100 + 254 * 255 + 2 + 255 * 3 + 2 * 4);
    // V_MINMAX_I32 = max(min(S0, S1), S2)
    let w = gfx1100(&bin, "v_minmax_i32 v2, v0, v1, v3\ns_endpgm\n", &|w| {
        for l in 0..3 {
            w.v[0][l] = [-5i32, 4, 50][l] as u32;
            w.v[1][l] = 9;
            w.v[3][l] = 0;
        }
    });
    assert_eq!(&w.v[2][..3], &[0, 4, 9]);
    // MODE: FP_ROUND [3:0], FP_DENORM [7:4]
    let w = gfx1100(
        &bin,
        "s_round_mode 0x5\ns_denorm_mode 0xa\ns_getreg_b32 s0, hwreg(HW_REG_MODE, 0, 8)\ns_endpgm\n",
        &|_| {},
    );
    assert_eq!(w.s[0], 0xa5);
    // NULL: a 64-bit NULL destination leaves EXEC alone; NULL reads 0
    let w = gfx1100(
        &bin,
        "v_mad_u64_u32 v[2:3], null, v0, v1, v[4:5]\ns_mov_b32 null, 5\ns_mov_b32 s4, null\ns_endpgm\n",
        &|w| {
            w.s[4] = 7;
            for l in 0..64 {
                w.v[0][l] = 0xffff_ffff;
                w.v[1][l] = 0xffff_ffff;
            }
        },
    );
    assert_eq!(
        (w.exec(), w.s[4], w.v[2][3], w.v[3][3]),
        (u64::MAX, 0, 1, 0xffff_fffe)
    );
    // DS_CMPSTORE: DATA0 the new value, DATA1 the compare value; the old value returned
    let w = gfx1100(
        &bin,
        "ds_store_b32 v0, v1\nds_cmpstore_rtn_b32 v2, v0, v3, v4\nds_load_b32 v5, v0\ns_endpgm\n",
        &|w| {
            for l in 0..64 {
                w.v[0][l] = 4 * l as u32;
                w.v[1][l] = 7;
                w.v[3][l] = 9;
                w.v[4][l] = if l % 2 == 0 { 7 } else { 8 };
            }
        },
    );
    assert_eq!((w.v[2][0], w.v[5][0], w.v[2][1], w.v[5][1]), (7, 9, 7, 7));
    // DS_BPERMUTE_B32, wave64: lane l reads lane (l & 32) | (addr / 4 % 32)
    let w = gfx1100(&bin, "ds_bpermute_b32 v2, v1, v0\ns_endpgm\n", &|w| {
        for l in 0..64 {
            w.v[0][l] = 100 * l as u32;
            w.v[1][l] = 4 * (63 - l as u32);
        }
    });
    let want: Vec<u32> = (0..64u32)
        .map(|l| 100 * ((l & 32) | ((63 - l) % 32)))
        .collect();
    assert_eq!(w.v[2].to_vec(), want);
    eprintln!("{T}: the RDNA3 operations agree with the ISA");
}

/// Build LLVM IR `ir` into a code object for `arch` with `llc -O3 flags...` and `ld.lld`.
fn build(bin: &Path, dir: &Path, name: &str, ir: &str, arch: &str, flags: &[&str]) -> Vec<u8> {
    let ll = dir.join(format!("{name}.ll"));
    let o = dir.join(format!("{name}-{arch}.o"));
    let co = dir.join(format!("{name}-{arch}.co"));
    std::fs::write(&ll, ir).unwrap();
    let (c, _, e) = run(Command::new(bin.join("llc"))
        .args([
            "-O3",
            "-mtriple=amdgcn-amd-amdhsa",
            &format!("-mcpu={arch}"),
            "-filetype=obj",
        ])
        .args(mattr(arch))
        .args(flags)
        .arg(&ll)
        .arg("-o")
        .arg(&o));
    assert_eq!(c, 0, "llc {name}: {e}");
    let (c, _, e) = run(Command::new(bin.join("ld.lld"))
        .arg("-shared")
        .arg(&o)
        .arg("-o")
        .arg(&co));
    assert_eq!(c, 0, "ld.lld {name}: {e}");
    std::fs::read(&co).unwrap()
}

/// Run kernel `k` of code object `co` over `n` work-items (blocks of 256) with buffers
/// `bufs` (passed as pointers, in order) and return their contents afterwards.
fn launch(co: &[u8], k: &str, n: u32, bufs: &[Vec<u8>]) -> (Vec<Vec<u8>>, u64) {
    let mut m = Machine::new(CodeObject::parse(co).unwrap()).unwrap();
    let addrs: Vec<u64> = bufs
        .iter()
        .map(|b| {
            let a = m.mem.alloc(b.len(), "buffer");
            m.mem.write(a, b).unwrap();
            a
        })
        .collect();
    let ka: Vec<u8> = addrs.iter().flat_map(|a| a.to_le_bytes()).collect();
    let s = m
        .dispatch(
            k,
            &ka,
            &Launch {
                grid: [n.div_ceil(256), 1, 1],
                block: [256, 1, 1],
                dyn_lds: 0,
            },
            Limits::default(),
        )
        .unwrap();
    let outs = addrs
        .iter()
        .zip(bufs)
        .map(|(a, b)| {
            let mut v = vec![0u8; b.len()];
            m.mem.read(*a, &mut v).unwrap();
            v
        })
        .collect();
    (outs, s.instructions)
}

const HEAD: &str = "target triple = \"amdgcn-amd-amdhsa\"
declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @llvm.amdgcn.workgroup.id.x()
declare float @llvm.sqrt.f32(float)
declare double @llvm.sqrt.f64(double)
";

const INDEX: &str = "  %t = call i32 @llvm.amdgcn.workitem.id.x()
  %g = call i32 @llvm.amdgcn.workgroup.id.x()
  %g256 = mul i32 %g, 256
  %i = add i32 %g256, %t
";

fn xorshift(mut x: u64) -> impl FnMut() -> u64 {
    move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    }
}

fn words32(b: &[u8]) -> Vec<u32> {
    b.chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

fn words64(b: &[u8]) -> Vec<u64> {
    b.chunks(8)
        .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

#[test]
fn llvm_compiled_division_and_sqrt_are_ieee() {
    const T: &str = "amdgpu_exec_isa::division";
    let Some(bin) = llvm_bin(T) else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("wp-exec-isa-div-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let ir = format!(
        "{HEAD}define amdgpu_kernel void @k32(ptr addrspace(1) %a, ptr addrspace(1) %b, ptr addrspace(1) %o) {{
{INDEX}  %pa = getelementptr float, ptr addrspace(1) %a, i32 %i
  %pb = getelementptr float, ptr addrspace(1) %b, i32 %i
  %x = load float, ptr addrspace(1) %pa
  %y = load float, ptr addrspace(1) %pb
  %q = fdiv float %x, %y
  %s = call float @llvm.sqrt.f32(float %x)
  %i2 = mul i32 %i, 2
  %po = getelementptr float, ptr addrspace(1) %o, i32 %i2
  store float %q, ptr addrspace(1) %po
  %po1 = getelementptr float, ptr addrspace(1) %po, i32 1
  store float %s, ptr addrspace(1) %po1
  ret void
}}
define amdgpu_kernel void @k64(ptr addrspace(1) %a, ptr addrspace(1) %b, ptr addrspace(1) %o) {{
{INDEX}  %pa = getelementptr double, ptr addrspace(1) %a, i32 %i
  %pb = getelementptr double, ptr addrspace(1) %b, i32 %i
  %x = load double, ptr addrspace(1) %pa
  %y = load double, ptr addrspace(1) %pb
  %q = fdiv double %x, %y
  %s = call double @llvm.sqrt.f64(double %x)
  %i2 = mul i32 %i, 2
  %po = getelementptr double, ptr addrspace(1) %o, i32 %i2
  store double %q, ptr addrspace(1) %po
  %po1 = getelementptr double, ptr addrspace(1) %po, i32 1
  store double %s, ptr addrspace(1) %po1
  ret void
}}
define amdgpu_kernel void @kint(ptr addrspace(1) %a, ptr addrspace(1) %b, ptr addrspace(1) %o) {{
{INDEX}  %pa = getelementptr i64, ptr addrspace(1) %a, i32 %i
  %pb = getelementptr i64, ptr addrspace(1) %b, i32 %i
  %x = load i64, ptr addrspace(1) %pa
  %y0 = load i64, ptr addrspace(1) %pb
  %z = icmp eq i64 %y0, 0
  %y = select i1 %z, i64 7, i64 %y0
  %x32 = trunc i64 %x to i32
  %y32 = trunc i64 %y to i32
  %z32 = icmp eq i32 %y32, 0
  %y32n = select i1 %z32, i32 3, i32 %y32
  %q1 = udiv i64 %x, %y
  %r1 = urem i64 %x, %y
  %q2 = udiv i32 %x32, %y32n
  %r2 = srem i32 %x32, %y32n
  %i4 = mul i32 %i, 4
  %po = getelementptr i64, ptr addrspace(1) %o, i32 %i4
  store i64 %q1, ptr addrspace(1) %po
  %p1 = getelementptr i64, ptr addrspace(1) %po, i32 1
  store i64 %r1, ptr addrspace(1) %p1
  %q2w = zext i32 %q2 to i64
  %r2w = sext i32 %r2 to i64
  %p2 = getelementptr i64, ptr addrspace(1) %po, i32 2
  store i64 %q2w, ptr addrspace(1) %p2
  %p3 = getelementptr i64, ptr addrspace(1) %po, i32 3
  store i64 %r2w, ptr addrspace(1) %p3
  ret void
}}
"
    );
    // edge values crossed, then random bit patterns and random magnitudes
    let e32: Vec<u32> = vec![
        0,
        0x8000_0000,
        0x7f80_0000,
        0xff80_0000,
        0x7fc0_0000,
        1,
        0x807f_ffff,
        0x0080_0000,
        0x7f7f_ffff,
        0x3f80_0000,
        0xbf80_0001,
        0x0040_0000,
        0x4b80_0000,
        0x3eaa_aaab,
        0x0000_0003,
        0x7e80_0000,
        0x0100_0000,
    ];
    let n = 8192usize;
    let mut rng = xorshift(0x9e37_79b9_7f4a_7c15);
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for x in &e32 {
        for y in &e32 {
            a.push(*x);
            b.push(*y);
        }
    }
    while a.len() < n {
        let r = rng();
        a.push(if r & 1 == 0 {
            r as u32
        } else {
            ((r >> 8) as u32 & 0x7fff_ffff) | 0x0080_0000
        });
        b.push((r >> 32) as u32);
    }
    let bytes = |v: &[u32]| -> Vec<u8> { v.iter().flat_map(|x| x.to_le_bytes()).collect() };
    for arch in ["gfx906", "gfx942", "gfx1100"] {
        let co = build(&bin, &dir, "div", &ir, arch, &[]);
        let (outs, _) = launch(
            &co,
            "k32",
            n as u32,
            &[bytes(&a), bytes(&b), vec![0; n * 8]],
        );
        let o = words32(&outs[2]);
        for k in 0..n {
            let (x, y) = (f32::from_bits(a[k]), f32::from_bits(b[k]));
            for (got, want, what) in [(o[2 * k], x / y, "fdiv"), (o[2 * k + 1], x.sqrt(), "sqrt")] {
                let ok = got == want.to_bits() || (want.is_nan() && f32::from_bits(got).is_nan());
                assert!(
                    ok,
                    "{arch} {what} f32 {x:e} {y:e}: got 0x{got:08x}, host 0x{:08x}",
                    want.to_bits()
                );
            }
        }
        // f64 from pairs of the same words
        let a64: Vec<u64> = (0..n)
            .map(|k| (a[k] as u64) << 32 | b[(k + 1) % n] as u64)
            .collect();
        let b64: Vec<u64> = (0..n)
            .map(|k| (b[k] as u64) << 32 | a[(k + 3) % n] as u64)
            .collect();
        let by64 = |v: &[u64]| -> Vec<u8> { v.iter().flat_map(|x| x.to_le_bytes()).collect() };
        let (outs, _) = launch(
            &co,
            "k64",
            n as u32,
            &[by64(&a64), by64(&b64), vec![0; n * 16]],
        );
        let o = words64(&outs[2]);
        for k in 0..n {
            let (x, y) = (f64::from_bits(a64[k]), f64::from_bits(b64[k]));
            for (got, want, what) in [(o[2 * k], x / y, "fdiv"), (o[2 * k + 1], x.sqrt(), "sqrt")] {
                let ok = got == want.to_bits() || (want.is_nan() && f64::from_bits(got).is_nan());
                assert!(
                    ok,
                    "{arch} {what} f64 {x:e} {y:e}: got 0x{got:016x}, host 0x{:016x}",
                    want.to_bits()
                );
            }
        }
        let (outs, _) = launch(
            &co,
            "kint",
            n as u32,
            &[by64(&a64), by64(&b64), vec![0; n * 32]],
        );
        let o = words64(&outs[2]);
        for k in 0..n {
            let x = a64[k];
            let y = if b64[k] == 0 { 7 } else { b64[k] };
            let (x32, y32) = (x as u32, if y as u32 == 0 { 3 } else { y as u32 });
            let want = [
                x / y,
                x % y,
                (x32 / y32) as u64,
                (x32 as i32).wrapping_rem(y32 as i32) as i64 as u64,
            ];
            assert_eq!(
                &o[4 * k..4 * k + 4],
                &want,
                "{arch} integer division of {x} by {y}"
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn ds_swizzle_reads_the_lanes_bpermute_reads() {
    const T: &str = "amdgpu_exec_isa::swizzle";
    let Some(bin) = llvm_bin(T) else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("wp-exec-isa-swz-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // (offset, source lane of lane l): bit-mask mode (and, or, xor within each 32 lanes) and
    // quad mode (offset[15] set, 2-bit lane selects).
    type SourceLane = fn(u32) -> u32;
    let patterns: [(u32, SourceLane); 6] = [
        (0x1f | 16 << 10, |l| l ^ 16),
        (0x1f | 1 << 10, |l| l ^ 1),
        (0x18, |l| l & 0x38),
        (0x1c | 3 << 5, |l| (l & 0x3c) | 3),
        (3 << 5, |l| (l & 32) | 3),
        (0x8000 | 0b00_01_10_11, |l| (l & !3) | (3 - (l & 3))),
    ];
    // One kernel per pattern: work-item i stores swizzle(v) and bpermute(src(lane), v), with
    // v = i * 2654435761 (distinct per lane) and src(lane) read from a buffer.
    for arch in ["gfx906", "gfx942"] {
        for (k, (off, src)) in patterns.iter().enumerate() {
            let n = 256u32;
            let ir = format!(
                "{HEAD}declare i32 @llvm.amdgcn.ds.swizzle(i32, i32 immarg)
declare i32 @llvm.amdgcn.ds.bpermute(i32, i32)
define amdgpu_kernel void @k(ptr addrspace(1) %src, ptr addrspace(1) %d) {{
{INDEX}  %v = mul i32 %i, -1640531535
  %s = call i32 @llvm.amdgcn.ds.swizzle(i32 %v, i32 {off})
  %ps = getelementptr i32, ptr addrspace(1) %src, i32 %i
  %sl = load i32, ptr addrspace(1) %ps
  %a = shl i32 %sl, 2
  %b = call i32 @llvm.amdgcn.ds.bpermute(i32 %a, i32 %v)
  %i2 = mul i32 %i, 2
  %pd = getelementptr i32, ptr addrspace(1) %d, i32 %i2
  store i32 %s, ptr addrspace(1) %pd
  %pd2 = getelementptr i32, ptr addrspace(1) %pd, i32 1
  store i32 %b, ptr addrspace(1) %pd2
  ret void
}}
"
            );
            let co = build(&bin, &dir, &format!("swz{k}"), &ir, arch, &[]);
            let lanes: Vec<u8> = (0..n).flat_map(|i| src(i % 64).to_le_bytes()).collect();
            let (outs, _) = launch(&co, "k", n, &[lanes, vec![0u8; 8 * n as usize]]);
            let w = words32(&outs[1]);
            for i in 0..n as usize {
                let want = ((i as u32 & !63) | src(i as u32 % 64)).wrapping_mul(2654435761);
                assert_eq!(
                    w[2 * i + 1],
                    want,
                    "{arch} offset {off:#x}: bpermute, lane {i}"
                );
                assert_eq!(w[2 * i], want, "{arch} offset {off:#x}: swizzle, lane {i}");
            }
        }
    }
}

#[test]
fn llvm19_miscompiles_that_wheelports_flags_avoid() {
    const T: &str = "amdgpu_exec_isa::llvm_bugs";
    let Some(bin) = llvm_bin(T) else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("wp-exec-isa-bugs-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // (x >> 16) - (y >> 16) and its reverse, shifted back: the SDWA peephole makes one
    // v_sub_u32_sdwa of them and stores it twice.
    let sdwa = format!(
        "{HEAD}define amdgpu_kernel void @k(ptr addrspace(1) %a, ptr addrspace(1) %b, ptr addrspace(1) %d) {{
{INDEX}  %pa = getelementptr i32, ptr addrspace(1) %a, i32 %i
  %pb = getelementptr i32, ptr addrspace(1) %b, i32 %i
  %x = load i32, ptr addrspace(1) %pa
  %y = load i32, ptr addrspace(1) %pb
  %xh = lshr i32 %x, 16
  %yh = lshr i32 %y, 16
  %s1 = sub i32 %xh, %yh
  %s2 = sub i32 %yh, %xh
  %r1 = shl i32 %s1, 16
  %r2 = shl i32 %s2, 16
  %i2 = mul i32 %i, 2
  %pd = getelementptr i32, ptr addrspace(1) %d, i32 %i2
  store i32 %r1, ptr addrspace(1) %pd
  %pd2 = getelementptr i32, ptr addrspace(1) %pd, i32 1
  store i32 %r2, ptr addrspace(1) %pd2
  ret void
}}
"
    );
    // fptrunc(fmul(fpext h, f)) to half: selected as v_fma_mix with a +0 addend
    let mix = format!(
        "{HEAD}define amdgpu_kernel void @k(ptr addrspace(1) %a, ptr addrspace(1) %b, ptr addrspace(1) %d) {{
{INDEX}  %pa = getelementptr half, ptr addrspace(1) %a, i32 %i
  %pb = getelementptr float, ptr addrspace(1) %b, i32 %i
  %x = load half, ptr addrspace(1) %pa
  %y = load float, ptr addrspace(1) %pb
  %xf = fpext half %x to float
  %m = fmul float %xf, %y
  %h = fptrunc float %m to half
  %pd = getelementptr half, ptr addrspace(1) %d, i32 %i
  store half %h, ptr addrspace(1) %pd
  ret void
}}
"
    );
    let n = 256usize;
    let mut rng = xorshift(12345);
    let a: Vec<u32> = (0..n).map(|_| rng() as u32).collect();
    let b: Vec<u32> = (0..n).map(|_| rng() as u32).collect();
    let by = |v: &[u32]| -> Vec<u8> { v.iter().flat_map(|x| x.to_le_bytes()).collect() };
    let want: Vec<u32> = (0..n)
        .flat_map(|k| {
            let (x, y) = (a[k] >> 16, b[k] >> 16);
            [x.wrapping_sub(y) << 16, y.wrapping_sub(x) << 16]
        })
        .collect();
    // -1.0 (f16) times +0.0 is -0.0 (0x8000)
    let ha: Vec<u8> = (0..n).flat_map(|_| 0xbc00u16.to_le_bytes()).collect();
    let hb: Vec<u8> = vec![0; n * 4];
    for arch in ["gfx906", "gfx942"] {
        let plain = build(&bin, &dir, "sdwa", &sdwa, arch, &[]);
        let (o, _) = launch(&plain, "k", n as u32, &[by(&a), by(&b), vec![0; n * 8]]);
        assert_ne!(words32(&o[2]), want, "{arch}: LLVM's default flags no longer miscompile the SDWA case (drop -amdgpu-sdwa-peephole=false?)");
        let fixed = build(
            &bin,
            &dir,
            "sdwa",
            &sdwa,
            arch,
            &["-amdgpu-sdwa-peephole=false"],
        );
        let (o, _) = launch(&fixed, "k", n as u32, &[by(&a), by(&b), vec![0; n * 8]]);
        assert_eq!(words32(&o[2]), want, "{arch}: with wheelport's flag");
        let plain = build(&bin, &dir, "mix", &mix, arch, &[]);
        let (o, _) = launch(
            &plain,
            "k",
            n as u32,
            &[ha.clone(), hb.clone(), vec![0; n * 2]],
        );
        assert_eq!(
            &o[2][..2],
            &[0, 0],
            "{arch}: LLVM's default flags give +0 (v_fma_mix with a +0 addend)"
        );
        let fixed = build(&bin, &dir, "mix", &mix, arch, &["-mattr=-fma-mix-insts"]);
        let (o, _) = launch(
            &fixed,
            "k",
            n as u32,
            &[ha.clone(), hb.clone(), vec![0; n * 2]],
        );
        assert_eq!(
            &o[2][..2],
            &[0x00, 0x80],
            "{arch}: with wheelport's flag the product is -0"
        );
    }
    // gfx1100: the flag would clear the generation (a ds_bpermute becomes unselectable), so
    // the lowering converts through the support library and the gfx10+ overlay replaces the
    // conversion (kernels-ir/amdgcn-gfx10plus.ll): the product is -0 again.
    let bperm = format!(
        "{HEAD}declare i32 @llvm.amdgcn.ds.bpermute(i32, i32)
define amdgpu_kernel void @k(ptr addrspace(1) %d, i32 %a, i32 %v) {{
  %r = call i32 @llvm.amdgcn.ds.bpermute(i32 %a, i32 %v)
  store i32 %r, ptr addrspace(1) %d
  ret void
}}
"
    );
    let ll = dir.join("bperm.ll");
    std::fs::write(&ll, &bperm).unwrap();
    let (c, _, e) = run(Command::new(bin.join("llc"))
        .args([
            "-mtriple=amdgcn-amd-amdhsa",
            "-mcpu=gfx1100",
            "-mattr=+wavefrontsize64,-fma-mix-insts",
        ])
        .arg(&ll)
        .arg("-o")
        .arg(dir.join("bperm.s")));
    assert!(
        c != 0 && e.contains("Cannot select"),
        "gfx1100 with -fma-mix-insts: llc no longer fails on ds_bpermute ({c}: {e})"
    );
    let run_it = |co: &[u8]| {
        let (o, _) = launch(co, "k", n as u32, &[ha.clone(), hb.clone(), vec![0; n * 2]]);
        o[2][..2].to_vec()
    };
    let plain = build(&bin, &dir, "mix", &mix, "gfx1100", &[]);
    assert_eq!(
        run_it(&plain),
        [0, 0],
        "gfx1100: LLVM gives +0 (V_FMA_MIXLO_F16 with a +0 addend)"
    );
    // the conversion as the lowering writes it, linked as the device build links it
    let lowered = mix.replace(
        "%h = fptrunc float %m to half",
        "%h = call half @__wp_cvt_rn_f16_f32(float %m)",
    ) + "declare half @__wp_cvt_rn_f16_f32(float)\n";
    let with = |overlay: bool| -> Vec<u8> {
        let ll = dir.join("mix-lowered.ll");
        std::fs::write(&ll, &lowered).unwrap();
        let linked = dir.join("mix-linked.bc");
        let mut link = Command::new(bin.join("llvm-link"));
        link.arg(&ll).args(["--internalize", "--only-needed"]);
        if overlay {
            link.arg(root().join("kernels-ir/amdgcn-gfx10plus.ll"));
        }
        let (c, _, e) = run(link
            .arg(root().join("kernels-ir/amdgcn.ll"))
            .arg("-o")
            .arg(&linked));
        assert_eq!(c, 0, "llvm-link: {e}");
        let opt = dir.join("mix-opt.ll");
        let (c, _, e) = run(Command::new(bin.join("opt"))
            .args([
                "-O3",
                "-mtriple=amdgcn-amd-amdhsa",
                "-mcpu=gfx1100",
                "-mattr=+wavefrontsize64",
                "-S",
            ])
            .arg(&linked)
            .arg("-o")
            .arg(&opt));
        assert_eq!(c, 0, "opt: {e}");
        let ir = std::fs::read_to_string(&opt).unwrap();
        run_it(&build(&bin, &dir, "mix", &ir, "gfx1100", &[]))
    };
    assert_eq!(
        with(false),
        [0, 0],
        "gfx1100: the library's plain conversion gives +0"
    );
    assert_eq!(
        with(true),
        [0x00, 0x80],
        "gfx1100: with the gfx10+ overlay the product is -0"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn directed_rounding_support_functions_round_correctly() {
    const T: &str = "amdgpu_exec_isa::directed";
    let Some(bin) = llvm_bin(T) else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("wp-exec-isa-dir-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // the shipped library, linked as the device build links it (only the used functions)
    let mut body = String::new();
    let mut decls = String::new();
    let fns: Vec<(String, String, usize)> = ["rz", "rm", "rp"]
        .iter()
        .flat_map(|m| {
            [("float", "f32", 4usize), ("double", "f64", 8)]
                .into_iter()
                .flat_map(move |(t, s, w)| {
                    [
                        (format!("__wp_div_{m}_{s}"), t.to_string(), w),
                        (format!("__wp_sqrt_{m}_{s}"), t.to_string(), w),
                    ]
                })
        })
        .collect();
    for (k, (f, t, _)) in fns.iter().enumerate() {
        let sq = f.contains("sqrt");
        let _ = std::fmt::Write::write_fmt(
            &mut decls,
            format_args!(
                "declare {t} @{f}({t}{})\n",
                if sq { "".to_string() } else { format!(", {t}") }
            ),
        );
        let call = if sq {
            format!("call {t} @{f}({t} %x{k})")
        } else {
            format!("call {t} @{f}({t} %x{k}, {t} %y{k})")
        };
        let _ = std::fmt::Write::write_fmt(
            &mut body,
            format_args!(
                "define amdgpu_kernel void @k{k}(ptr addrspace(1) %a, ptr addrspace(1) %b, ptr addrspace(1) %o) {{
{INDEX}  %pa = getelementptr {t}, ptr addrspace(1) %a, i32 %i
  %pb = getelementptr {t}, ptr addrspace(1) %b, i32 %i
  %x{k} = load {t}, ptr addrspace(1) %pa
  %y{k} = load {t}, ptr addrspace(1) %pb
  %r = {call}
  %po = getelementptr {t}, ptr addrspace(1) %o, i32 %i
  store {t} %r, ptr addrspace(1) %po
  ret void
}}
"
            ),
        );
    }
    let ll = dir.join("k.ll");
    std::fs::write(&ll, format!("{HEAD}{decls}{body}")).unwrap();
    let linked = dir.join("linked.ll");
    let (c, _, e) = run(Command::new(bin.join("llvm-link"))
        .arg(&ll)
        .args(["--internalize", "--only-needed"])
        .arg(root().join("kernels-ir/amdgcn.ll"))
        .arg("-S")
        .arg("-o")
        .arg(&linked));
    assert_eq!(c, 0, "llvm-link: {e}");
    let ir = std::fs::read_to_string(&linked).unwrap();
    let n = 4096usize;
    let mut rng = xorshift(777);
    let edges32: Vec<u32> = vec![
        1,
        0x007f_ffff,
        0x0080_0000,
        0x7f7f_ffff,
        0x3f80_0001,
        0x0000_0003,
        0x8000_0001,
        0x3400_0000,
        0x7e80_0000,
        0xff7f_fffe,
        // a tiny dividend over a tinier divisor: a quotient above 2^64 (the remainder's
        // scaling overflowed it; div.rm was 1 ulp off)
        0x216b_f4cf,
        0x0081_f0e6,
    ];
    let edges64: Vec<u64> = vec![
        1,
        0x000f_ffff_ffff_ffff,
        0x0010_0000_0000_0000,
        0x7fef_ffff_ffff_ffff,
        0x3ff0_0000_0000_0001,
        3,
        0x8000_0000_0000_0001,
        0x7fd0_0000_0000_0000,
    ];
    for arch in ["gfx906", "gfx942", "gfx1100"] {
        // wheelport's llc flags (targets/families/amdgcn.toml)
        let flags: &[&str] = if arch.starts_with("gfx1") {
            &["-amdgpu-sdwa-peephole=false"]
        } else {
            &["-amdgpu-sdwa-peephole=false", "-mattr=-fma-mix-insts"]
        };
        let co = build(&bin, &dir, "dir", &ir, arch, flags);
        for (k, (f, _, w)) in fns.iter().enumerate() {
            let (fmt, mode) = (
                if *w == 4 { fp::F32 } else { fp::F64 },
                if f.contains("_rz_") {
                    Round::Zero
                } else if f.contains("_rm_") {
                    Round::Down
                } else {
                    Round::Up
                },
            );
            let f = f.replace("__wp_", "");
            let (mut a, mut b) = (Vec::new(), Vec::new());
            let edges: Vec<u64> = if *w == 4 {
                edges32.iter().map(|x| *x as u64).collect()
            } else {
                edges64.clone()
            };
            for x in &edges {
                for y in &edges {
                    a.push(*x);
                    b.push(*y);
                }
            }
            while a.len() < n {
                let r = rng();
                a.push(if *w == 4 { r & 0xffff_ffff } else { r });
                b.push(if *w == 4 { rng() & 0xffff_ffff } else { rng() });
            }
            let enc = |v: &[u64]| -> Vec<u8> {
                v.iter()
                    .flat_map(|x| x.to_le_bytes()[..*w].to_vec())
                    .collect()
            };
            let (outs, _) = launch(
                &co,
                &format!("k{k}"),
                n as u32,
                &[enc(&a), enc(&b), vec![0; n * w]],
            );
            let env = Env {
                round: mode,
                ..Env::IEEE
            };
            for i in 0..n {
                let got = if *w == 4 {
                    u32::from_le_bytes(outs[2][4 * i..4 * i + 4].try_into().unwrap()) as u64
                } else {
                    u64::from_le_bytes(outs[2][8 * i..8 * i + 8].try_into().unwrap())
                };
                let want = if f.starts_with("sqrt") {
                    fp::sqrt(fmt, a[i], env)
                } else {
                    fp::div(fmt, a[i], b[i], env)
                };
                let ok = got == want || (fmt.is_nan(got) && fmt.is_nan(want));
                assert!(
                    ok,
                    "{arch} {f}(0x{:x}, 0x{:x}): got 0x{got:x}, correctly rounded 0x{want:x}",
                    a[i], b[i]
                );
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn interpreter_speed() {
    const T: &str = "amdgpu_exec_isa::speed";
    let Some(bin) = llvm_bin(T) else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("wp-exec-isa-speed-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let ir = format!(
        "{HEAD}define amdgpu_kernel void @k(ptr addrspace(1) %a, ptr addrspace(1) %b, ptr addrspace(1) %o) {{
entry:
{INDEX}  %pa = getelementptr float, ptr addrspace(1) %a, i32 %i
  %x0 = load float, ptr addrspace(1) %pa
  br label %loop
loop:
  %k = phi i32 [ 0, %entry ], [ %k1, %loop ]
  %x = phi float [ %x0, %entry ], [ %x2, %loop ]
  %h = phi i32 [ 0, %entry ], [ %h2, %loop ]
  %x1 = fmul float %x, 0x3FF0006800000000
  %x2 = fadd float %x1, 0.5
  %bits = bitcast float %x2 to i32
  %h1 = xor i32 %h, %bits
  %h2 = mul i32 %h1, 16777619
  %k1 = add i32 %k, 1
  %c = icmp ult i32 %k1, 2000
  br i1 %c, label %loop, label %done
done:
  %po = getelementptr i32, ptr addrspace(1) %o, i32 %i
  store i32 %h2, ptr addrspace(1) %po
  ret void
}}
"
    );
    let co = build(&bin, &dir, "speed", &ir, "gfx906", &[]);
    let n = 4096u32;
    let t0 = Instant::now();
    let (_, instr) = launch(
        &co,
        "k",
        n,
        &[vec![0; n as usize * 4], vec![0; 4], vec![0; n as usize * 4]],
    );
    let s = t0.elapsed().as_secs_f64();
    eprintln!(
        "{T}: {instr} wave instructions in {s:.2} s: {:.2} M wave-instructions/s ({:.0} M lane-operations/s) on one core",
        instr as f64 / s / 1e6,
        instr as f64 * 64.0 / s / 1e6
    );
    assert!(instr > 100_000);
    let _ = std::fs::remove_dir_all(&dir);
}
