//! The HIP stand-in (`tools/hip-standin`), the verification runtime that lets the host side of
//! a `--target dtk|rocm` output run on an NVIDIA GPU (docs/verification.md, "The dtk and rocm
//! host side on the GPU"), checked on the CPU:
//!
//! * it builds for both HIP targets under the target's runtime soname;
//! * it defines every HIP symbol the prebuilt shim of that soname and the converted demo
//!   wheel and nvcc fixture import (`nm -D`), so a run under it never stops at a missing
//!   symbol;
//! * against recording CUDA stubs (gcc-built `libcuda.so.1`/`libcudart.so.13`), the demo's
//!   dtk output launches its kernels through the shim and the stand-in, and each launch reaches
//!   CUDA as the twin's kernel of the same name with the host code's grid and block; the twin
//!   of the nvcc fixture, whose fatbin containers are 4096-aligned, has every container loaded
//!   and a kernel of its last container found; the fixture's `cudaGetDeviceProperties` is
//!   answered the compute capability its kernels were translated from (8.0), not the
//!   stand-in's gfx906 9.0, and warpSize 32.

mod common;

use common::{bin, require_tool, require_toolchain, root, run};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

const T: &str = "hip_standin";

/// Recording stubs of the CUDA driver and runtime: modules "load" when they are fatbin
/// containers, a function is found when its name is in the container's bytes, launches are
/// written to $STUB_LOG.
const CUDA_STUB: &str = r#"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#define _GNU_SOURCE
void *memmem(const void *, size_t, const void *, size_t);
struct mod { const unsigned char *p; size_t n; };
static void rec(const char *fmt, const char *s, unsigned a, unsigned b, unsigned c, unsigned d) {
    FILE *f = fopen(getenv("STUB_LOG"), "a");
    fprintf(f, fmt, s, a, b, c, d);
    fclose(f);
}
int cuModuleLoadData(void **m, const void *img) {
    const unsigned char *p = img;
    if (memcmp(p, "\x50\xed\x55\xba", 4)) return 200;
    unsigned short hdr; unsigned long long size;
    memcpy(&hdr, p + 6, 2); memcpy(&size, p + 8, 8);
    struct mod *x = malloc(sizeof *x); x->p = p; x->n = hdr + size; *m = x;
    rec("load %s %u %u %u %u\n", "container", (unsigned)x->n, 0, 0, 0);
    return 0;
}
int cuModuleGetFunction(void **f, void *m, const char *name) {
    struct mod *x = m;
    if (!memmem(x->p, x->n, name, strlen(name))) return 500;
    *f = strdup(name);
    return 0;
}
int cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                   unsigned bz, unsigned sh, void *s, void **args, void **extra) {
    rec("launch %s %u %u %u %u\n", (const char *)f, gx, gy * gz, bx, by * bz);
    return 0;
}
int cudaFree(void *p) { return 0; }
int cudaGetDevice(int *d) { *d = 0; return 0; }
int cudaDriverGetVersion(int *v) { *v = 13000; return 0; }
int cudaRuntimeGetVersion(int *v) { *v = 13000; return 0; }
/* CUDA 13's cudaDeviceProp (1008 bytes): the name; the stand-in answers major.minor itself. */
int cudaGetDeviceProperties(void *p, int d) { memset(p, 0, 1008); strcpy(p, "NVIDIA H200"); return 0; }
int cudaGetLastError(void) { return 0; }
int cudaPeekAtLastError(void) { return 0; }
"#;

fn nm(args: &[&str], file: &Path) -> BTreeSet<String> {
    let (code, out, e) = run(Command::new("nm").args(args).arg(file));
    assert_eq!(code, 0, "nm {}: {e}", file.display());
    out.lines()
        .filter_map(|l| l.split_whitespace().last())
        .map(|s| s.split('@').next().unwrap().to_string())
        .collect()
}

fn is_hip(s: &str) -> bool {
    s.starts_with("hip") || s.starts_with("__hip")
}

/// The stand-in for `target`, built by its script into `dir`.
fn build(target: &str, dir: &Path) -> PathBuf {
    let (code, out, e) = run(Command::new("bash")
        .arg(root().join("tools/hip-standin/build.sh"))
        .arg(target)
        .arg(dir));
    assert_eq!(code, 0, "build.sh {target}: {out}{e}");
    PathBuf::from(out.trim())
}

fn convert(input: &Path, target: &str, out: &Path) {
    convert_as(input, target, out, false);
}

/// `wheelport INPUT --target TARGET`; with `allow_partial`, `--allow-partial` and its exit 6
/// (written with kernels not translated, as the recorded run was).
fn convert_as(input: &Path, target: &str, out: &Path, allow_partial: bool) {
    let mut cmd = Command::new(bin());
    cmd.arg(input)
        .args(["--target", target, "-q", "-o"])
        .arg(out)
        .env("WHEELPORT_NO_CACHE", "1");
    if allow_partial {
        cmd.arg("--allow-partial");
    }
    let (code, o, e) = run(&mut cmd);
    assert_eq!(
        code,
        if allow_partial { 6 } else { 0 },
        "{target} conversion of {}: {o}{e}",
        input.display()
    );
}

fn unzip(wheel_dir: &Path) {
    let whl = std::fs::read_dir(wheel_dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|x| x == "whl"))
        .unwrap();
    let mut r = wheelport::wheel::WheelReader::open(&whl).unwrap();
    for name in r.member_names() {
        let data = r.read_member(&name).unwrap();
        let p = wheel_dir.join(&name);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, data).unwrap();
    }
}

#[test]
fn standin_exports_what_outputs_import_and_launches_the_twins_kernels() {
    if require_tool("gcc", T).is_none()
        || require_tool("nm", T).is_none()
        || require_toolchain("dtk", T).is_none()
        || require_toolchain("cuda", T).is_none()
    {
        return;
    }
    let d = tempfile::tempdir().unwrap();
    let d = d.path();
    let demo =
        root().join("fixtures/wheels/wheelport_demo-0.1.0+cu13-py3-none-manylinux_2_28_x86_64.whl");
    let fixture = root().join("fixtures/gpu/twin_fixtures.so");
    convert(&demo, "cuda", &d.join("demo-cuda"));
    unzip(&d.join("demo-cuda"));
    convert(&fixture, "cuda", &d.join("fx-cuda"));
    for (target, soname) in [("dtk", "libgalaxyhip.so.5"), ("rocm", "libamdhip64.so.6")] {
        let lib = build(target, &d.join(format!("si-{target}")));
        assert_eq!(lib.file_name().unwrap(), soname);
        let defined = nm(&["-D", "--defined-only"], &lib);
        let shim = d.join(format!("shim-{target}.so"));
        std::fs::write(&shim, wheelport::shim::prebuilt_shim(soname).unwrap()).unwrap();
        let out = d.join(format!("demo-{target}"));
        convert(&demo, target, &out);
        unzip(&out);
        let fx = d.join(format!("fx-{target}"));
        convert(&fixture, target, &fx);
        for obj in [
            shim.clone(),
            out.join("wheelport_demo/_kernels.so"),
            fx.join("twin_fixtures.so"),
        ] {
            let missing: Vec<String> = nm(&["-D", "--undefined-only"], &obj)
                .into_iter()
                .filter(|s| is_hip(s) && !defined.contains(s))
                .collect();
            assert!(
                missing.is_empty(),
                "{target}: {} imports HIP symbols the stand-in lacks: {missing:?}",
                obj.display()
            );
        }
    }

    // The dtk demo under the stand-in, CUDA answered by recording stubs.
    let lib = d.join("si-dtk");
    let stubs = common::stub_runtime(d, "libcuda.so.1", CUDA_STUB);
    std::fs::copy(stubs.join("libcuda.so.1"), stubs.join("libcudart.so.13")).unwrap();
    let log = d.join("launches.txt");
    let libdir = std::env::join_paths([&lib, &stubs]).unwrap();
    let py = r#"
import ctypes, sys
demo = ctypes.CDLL(sys.argv[1])
demo.wp_saxpy.argtypes = [ctypes.c_int, ctypes.c_float, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
demo.wp_reduce_sum.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p]
print(demo.wp_saxpy(10000, 1.5, 0x1000, 0x2000, None), demo.wp_reduce_sum(0x1000, 0x3000, 10000, None))
fx = ctypes.CDLL(sys.argv[2])
standin = ctypes.CDLL("libgalaxyhip.so.5")
class Dim3(ctypes.Structure):
    _fields_ = [("x", ctypes.c_uint), ("y", ctypes.c_uint), ("z", ctypes.c_uint)]
standin.hipLaunchKernel.argtypes = [ctypes.c_void_p, Dim3, Dim3, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p]
# The kernel's host stub (a local symbol) from an exported neighbour and their .symtab values.
stub = ctypes.cast(fx.wp_assert_pass, ctypes.c_void_p).value + int(sys.argv[3])
print(standin.hipLaunchKernel(stub, Dim3(3, 1, 1), Dim3(64, 1, 1), None, 0, None))
# The fixture's own cudaGetDeviceProperties: HIP (the stand-in, gfx906) says 9.0 and warpSize
# 64; the fixture's kernels were translated from compute_80 and run 32-lane warps.
name, info = ctypes.create_string_buffer(256), (ctypes.c_int * 6)()
print(fx.wp_device_info(name, info), name.value.decode(), info[0], info[1], info[5])
"#;
    // The fixture's last container holds the kernel of its last translation unit.
    let fx_so = d.join("fx-dtk/twin_fixtures.so");
    let (code, syms, e) = run(Command::new("nm").arg(&fx_so));
    assert_eq!(code, 0, "{e}");
    let value = |name: &str| -> i64 {
        let l = syms
            .lines()
            .find(|l| l.ends_with(&format!(" {name}")))
            .unwrap_or_else(|| panic!("no {name} in {}", fx_so.display()));
        i64::from_str_radix(l.split_whitespace().next().unwrap(), 16).unwrap()
    };
    let delta = value("k_assert_pass") - value("wp_assert_pass");
    let (code, o, e) = run(Command::new("python3")
        .arg("-c")
        .arg(py)
        .arg(d.join("demo-dtk/wheelport_demo/_kernels.so"))
        .arg(&fx_so)
        .arg(delta.to_string())
        .env("LD_LIBRARY_PATH", &libdir)
        .env("LD_BIND_NOW", "1")
        .env("STUB_LOG", &log)
        .env(
            "WP_HIP_TWIN_DIR",
            std::env::join_paths([d.join("demo-cuda/wheelport_demo"), d.join("fx-cuda")]).unwrap(),
        )
        .env_remove("WP_HIP_STANDIN_LOG"));
    assert_eq!(code, 0, "{o}{e}");
    let got = std::fs::read_to_string(&log).unwrap_or_default();
    let launches: Vec<&str> = got.lines().filter(|l| l.starts_with("launch")).collect();
    assert_eq!(
        launches,
        [
            "launch _Z5saxpyifPKfPf 40 1 256 1",
            "launch _Z10reduce_sumPKfPfi 40 1 256 1",
            "launch k_assert_pass 3 1 64 1"
        ],
        "{o}{e}\n{got}"
    );
    assert_eq!(o, "0 0\n0\n0 NVIDIA H200 8 0 32\n", "{e}");
    // Every container of the fixture's twin was loaded (nine, 4096-aligned), and its last one
    // gave the kernel.
    let loads = got.lines().filter(|l| l.starts_with("load")).count();
    assert_eq!(
        loads,
        1 + twin_containers(&d.join("fx-cuda/twin_fixtures.so")),
        "{got}"
    );
}

/// The number of fatbin containers in a twin's `.nv_fatbin.wheelport` section (wheelport's
/// fatbin reader, itself checked against `cuobjdump` in `tests/fatbin_cuobjdump.rs`).
fn twin_containers(twin: &Path) -> usize {
    use object::{Object, ObjectSection};
    let data = std::fs::read(twin).unwrap();
    let elf = object::File::parse(&*data).unwrap();
    let sec = elf.section_by_name(wheelport::twin::TWIN_SECTION).unwrap();
    let (off, _) = sec.file_range().unwrap();
    wheelport::fatbin::parse_section(sec.data().unwrap(), off, "twin")
        .unwrap()
        .len()
}

/// `fixtures/gpu/results/standin.json` (`tools/hip-standin/results.py` from runs of
/// `tools/hip-standin/run.sh` and `cupy.sh` on the GPU): the dtk and rocm outputs of the demo
/// wheel, the nvcc fixtures, the CUB fixture and CuPy's cub and thrust modules, run under the
/// stand-in against the original. Checked here: both targets have every suite; counts agree
/// with the named failures, each with a reason; the results are for the CURRENT conversion and
/// stand-in: each input has its recorded sha256, `wheelport --target dtk|rocm` makes from it
/// exactly the output that ran (sha256), and the stand-in's sources have the recorded sha256.
#[test]
fn standin_results_are_for_the_current_conversion() {
    let path = root().join("fixtures/gpu/results/standin.json");
    if !path.exists() {
        // No GPU run recorded yet: nothing to hold the conversion to.
        eprintln!(
            "{}: not recorded yet (tools/hip-standin/run.sh, cupy.sh and torchvision.sh on the GPU, then results.py)",
            path.display()
        );
        return;
    }
    let v = common::read_json(&path);
    let mut src = Vec::new();
    for f in ["hip_standin.c", "torch_standin.c", "gen.py"] {
        src.extend(std::fs::read(root().join("tools/hip-standin").join(f)).unwrap());
    }
    assert_eq!(
        v["standin_source_sha256"].as_str().unwrap(),
        common::sha256_hex(&src),
        "tools/hip-standin changed since the GPU run: re-run tools/hip-standin/run.sh, cupy.sh and results.py"
    );
    let records = v["records"].as_array().unwrap();
    // Both targets: the demo, the nvcc fixtures, the CUB fixture, torchvision; CuPy on dtk.
    let wanted = ["dtk", "rocm"]
        .into_iter()
        .flat_map(|t| {
            [
                "demo wheel",
                "fixtures/gpu/warp_fixtures.so",
                "fixtures/gpu/cub_fixtures.so",
                "torchvision",
            ]
            .map(|s| (t, s))
        })
        .chain([("dtk", "CuPy")]);
    for (t, suite) in wanted {
        assert!(
            records
                .iter()
                .any(|r| r["target"] == t && r["suite"].as_str().unwrap().starts_with(suite)),
            "{t}: no record of {suite} in {}",
            path.display()
        );
    }
    // (record, input path, member, target, converted sha256, allow partial), converted again
    // below.
    let mut jobs: Vec<(String, String, Option<String>, String, String, bool)> = Vec::new();
    for r in records {
        let name = format!("{} {}", r["target"], r["suite"]);
        let cases = r["cases"].as_u64().unwrap();
        let failed = r["failed"].as_array().unwrap();
        assert!(cases > 0, "{name}: no cases ran");
        assert_eq!(
            r["passed"].as_u64().unwrap() + failed.len() as u64,
            cases,
            "{name}: passed + named failures != cases"
        );
        for f in failed {
            assert!(
                f["reason"].as_str().is_some_and(|s| !s.is_empty()),
                "{name}: case {} fails without a reason",
                f["case"]
            );
        }
        for i in r["inputs"].as_array().unwrap() {
            let p = i["path"].as_str().unwrap();
            let member = i["member"].as_str().map(str::to_string);
            let want = i["converted_sha256"]
                .as_str()
                .unwrap_or_else(|| panic!("{name}: no converted sha256 for {p}"));
            jobs.push((
                name.clone(),
                p.to_string(),
                member,
                r["target"].as_str().unwrap().to_string(),
                want.to_string(),
                i["allow_partial"].as_bool().unwrap_or(false),
            ));
        }
    }
    if require_toolchain("dtk", T).is_none() || require_toolchain("rocm", T).is_none() {
        return;
    }
    let work = tempfile::tempdir().unwrap();
    let mut inputs: Vec<(String, PathBuf)> = Vec::new();
    for (name, p, member, ..) in &jobs {
        if inputs.iter().any(|(q, _)| q == p) {
            continue;
        }
        let Some(data) = common::recorded_input_bytes(p, T) else {
            return;
        };
        let rec = records
            .iter()
            .flat_map(|r| r["inputs"].as_array().unwrap())
            .find(|i| i["path"] == p.as_str())
            .unwrap();
        assert_eq!(
            common::sha256_hex(&data),
            rec["sha256"].as_str().unwrap(),
            "{name}: input {p} differs from the one run"
        );
        // A wheel keeps its file name (the converter reads its tags); a member its own.
        let file = match (p.split_once('!'), member) {
            (Some((_, m)), _) => Path::new(m).file_name().unwrap().to_owned(),
            (None, _) => Path::new(p).file_name().unwrap().to_owned(),
        };
        let dir = work.path().join(format!("in{}", inputs.len()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join(&file), &data).unwrap();
        inputs.push((p.clone(), dir.join(file)));
    }
    // Two conversions at a time (CI has two cores; each uses both).
    let next = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| loop {
                let n = next.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                let Some((name, p, member, target, want, partial)) = jobs.get(n) else {
                    break;
                };
                let input = &inputs.iter().find(|(q, _)| q == p).unwrap().1;
                let out = work.path().join(format!("out{n}"));
                convert_as(input, target, &out, *partial);
                let got = match member {
                    Some(m) => {
                        let whl = std::fs::read_dir(&out)
                            .unwrap()
                            .filter_map(|e| e.ok().map(|e| e.path()))
                            .find(|q| q.extension().is_some_and(|x| x == "whl"))
                            .unwrap_or_else(|| panic!("{name}: no wheel written for {p}"));
                        let mut r = wheelport::wheel::WheelReader::open(&whl).unwrap();
                        r.read_member(m).unwrap()
                    }
                    None => std::fs::read(out.join(input.file_name().unwrap()))
                        .unwrap_or_else(|e| panic!("{name}: no output for {p}: {e}")),
                };
                assert_eq!(
                    &common::sha256_hex(&got),
                    want,
                    "{name}: the {target} output of {p} is not the one run on the GPU (the conversion changed): re-run tools/hip-standin/run.sh, cupy.sh and results.py"
                );
            });
        }
    });
}

/// The PyTorch stand-ins (`libc10_hip.so`, `libtorch_hip.so` from `torch_standin.c`) against
/// recording stubs of the CUDA build's `libc10_cuda.so`: a renamed function reaches the CUDA
/// function of its row with every argument (`c10::hip::SetDevice(signed char, bool)`), a
/// stream comes back with DeviceType::HIP (6) and goes to CUDA as DeviceType::CUDA (1), the
/// allocator pointer is the CUDA build's; and they define every name the dtk output of
/// torchvision 0.26's `_C.so` imports from them.
#[test]
fn torch_standins_forward_to_the_cuda_build() {
    if require_tool("gcc", T).is_none() || require_tool("nm", T).is_none() {
        return;
    }
    let d = tempfile::tempdir().unwrap();
    let d = d.path();
    let lib = build("dtk", &d.join("si"));
    let si = lib.parent().unwrap();
    let stubs = common::stub_runtime(
        d,
        "libc10_cuda.so",
        r#"
#include <stdint.h>
struct s { int8_t type, index; int64_t id; };
static long rec;
void *_ZN3c104cuda20CUDACachingAllocator9allocatorE = (void *)0x1234;
struct s _ZN3c104cuda20getCurrentCUDAStreamEa(int8_t d) { struct s r = {1, d, 0x77}; return r; }
void _ZN3c104cuda20setCurrentCUDAStreamENS0_10CUDAStreamE(struct s x) { rec = x.type * 1000 + x.index * 100 + x.id; }
void _ZN3c104cuda9SetDeviceEab(int8_t d, _Bool force) { rec = d * 10 + force; }
long recorded(void) { return rec; }
"#,
    );
    let py = r#"
import ctypes, sys
cuda = ctypes.CDLL(sys.argv[2] + "/libc10_cuda.so", mode=ctypes.RTLD_GLOBAL)
hip = ctypes.CDLL(sys.argv[1] + "/libc10_hip.so")
class S(ctypes.Structure):
    _fields_ = [("type", ctypes.c_int8), ("index", ctypes.c_int8), ("id", ctypes.c_int64)]
get = hip._ZN3c103hip19getCurrentHIPStreamEa
get.restype = S
s = get(ctypes.c_int8(2))
hip._ZN3c103hip19setCurrentHIPStreamENS0_9HIPStreamE(S(6, 3, 5))
cuda.recorded.restype = ctypes.c_long
set_stream = cuda.recorded()
hip._ZN3c103hip9SetDeviceEab(ctypes.c_int8(4), ctypes.c_bool(True))
alloc = ctypes.c_void_p.in_dll(hip, "_ZN3c103hip19HIPCachingAllocator9allocatorE").value
print(s.type, s.index, hex(s.id), set_stream, cuda.recorded(), hex(alloc))
"#;
    let (code, o, e) = run(Command::new("python3")
        .arg("-c")
        .arg(py)
        .arg(si)
        .arg(&stubs)
        .env("LD_LIBRARY_PATH", &stubs));
    assert_eq!(code, 0, "{o}{e}");
    assert_eq!(o, "6 2 0x77 1305 41 0x1234\n", "{e}");

    // Every name the dtk torchvision extension imports from the two libraries is defined.
    let Some(wheel) = common::require_corpus("torchvision-0.26.0", T) else {
        return;
    };
    if require_toolchain("dtk", T).is_none() {
        return;
    }
    let so = common::extract_member(&wheel, "torchvision/_C.so", d);
    convert(&so, "dtk", &d.join("tv"));
    let defined: BTreeSet<String> = ["libc10_hip.so", "libtorch_hip.so", "libgalaxyhip.so.5"]
        .iter()
        .flat_map(|l| nm(&["-D", "--defined-only"], &si.join(l)))
        .collect();
    let tables: BTreeSet<String> =
        std::fs::read_to_string(root().join("relink-tables/dtk/torch.tsv"))
            .unwrap()
            .lines()
            .filter(|l| !l.starts_with('#'))
            .filter_map(|l| {
                let c: Vec<&str> = l.split('\t').collect();
                (c.len() > 4 && matches!(c[4], "libc10_hip.so" | "libtorch_hip.so"))
                    .then(|| c[3].to_string())
            })
            .collect();
    let imported: Vec<String> = nm(&["-D", "--undefined-only"], &d.join("tv/_C.so"))
        .into_iter()
        .filter(|s| tables.contains(s))
        .collect();
    assert!(imported.len() >= 10, "{imported:?}");
    let missing: Vec<&String> = imported.iter().filter(|s| !defined.contains(*s)).collect();
    assert!(missing.is_empty(), "{missing:?}");
}
