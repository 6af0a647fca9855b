//! Device printf on amdgcn, end to end against the H200: the printf fixture
//! (`fixtures/gpu/src/io.cu`, `k_printf`: `%03d %d %08x %u %.6f %.4e %g %lld %c %s %5.1f%%`
//! over 64 threads of the harness's mixed inputs) converted for dtk, its gfx906 code object
//! executed in amdgpu-exec, and the FIFO it leaves (`__wp_printf_fifo`, kernels-ir/printf.py)
//! drained by the shim library itself: the shim, built by wheelport's recipe, registers the
//! FIFO of a real offload bundle with a recording HIP runtime whose "device memory" is those
//! bytes, and prints them at `cudaDeviceSynchronize`. The printed lines, sorted, must have the
//! SHA-256 the original binary's printf gave on the H200
//! (`fixtures/gpu/results/ptxjit-validation.json`, output `stdout`), and the return values
//! (`o`, CUDA's argument count) the H200's hash too. Also: a bundle without the FIFO registers
//! nothing; a device-wide synchronisation empties the FIFO (hipMemset of header and records)
//! and prints nothing the second time; a stream synchronisation prints each record once
//! without emptying; dropped records are counted on stderr.

mod common;

use amdgpu_exec::elf::{bundle_entries, section_bytes};
use amdgpu_exec::exec::Machine;
use amdgpu_exec::runner::{self, Verdict};
use common::{require_tool, root, run};
use sha2::{Digest, Sha256};
use std::process::Command;

const T: &str = "device_printf";

/// The HIP functions the printf drain uses, over a 1 MiB host buffer standing for the FIFO
/// global; every other HIP function the shim imports is a generated no-op.
const RECORDING_HIP: &str = r#"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
static unsigned char *fifo; static size_t fifo_size;
static const void *key; static char name[64]; static size_t var_size; static int vars;
static void *module[1];
static long memsets, memset_bytes, syncs, stream_syncs;
void wp_set_fifo(const char *path) {
    FILE *f = fopen(path, "rb");
    fseek(f, 0, SEEK_END); fifo_size = (size_t)ftell(f); fseek(f, 0, SEEK_SET);
    free(fifo); fifo = malloc(fifo_size);
    if (fread(fifo, 1, fifo_size, f) != fifo_size) abort();
    fclose(f);
}
void wp_set_dropped(unsigned long long n) { memcpy(fifo + 8, &n, 8); }
long wp_vars(void) { return vars; }
long wp_var_size(void) { return (long)var_size; }
const char *wp_var_name(void) { return name; }
long wp_memsets(void) { return memsets; }
long wp_memset_bytes(void) { return memset_bytes; }
long wp_syncs(void) { return syncs * 100 + stream_syncs; }
unsigned long long wp_used(void) { unsigned long long u; memcpy(&u, fifo, 8); return u; }
void **__hipRegisterFatBinary(const void *w) { return module; }
void __hipRegisterVar(void **h, char *hv, char *da, const char *dn, int ext, size_t size, int c, int g) {
    vars++; key = hv; var_size = size; snprintf(name, sizeof name, "%s", dn);
}
int hipMemcpyFromSymbol(void *dst, const void *sym, size_t n, size_t off, int kind) {
    if (sym != key || kind != 2 || off + n > fifo_size) return 13; /* hipErrorInvalidSymbol */
    memcpy(dst, fifo + off, n); return 0;
}
int hipGetSymbolAddress(void **p, const void *sym) { if (sym != key) return 13; *p = fifo; return 0; }
int hipMemset(void *p, int v, size_t n) {
    if (p != fifo || n > fifo_size) return 1;
    memset(p, v, n); memsets++; memset_bytes = (long)n; return 0;
}
int hipDeviceSynchronize(void) { syncs++; return 0; }
int hipStreamSynchronize(void *s) { stream_syncs++; return 0; }
"#;

/// Registers `argv[3]` (a bundle) and `argv[4]` (a bundle without the FIFO), loads the FIFO
/// `argv[5]`, and drains it: device sync twice, then (reloaded) stream sync twice, then with
/// 2 dropped records. The shim's prints go to stdout between the markers on stderr.
const DRIVER: &str = r#"
import ctypes, json, os, sys
rt = ctypes.CDLL(sys.argv[2], mode=ctypes.RTLD_GLOBAL)
shim = ctypes.CDLL(sys.argv[1])
rt.wp_var_name.restype = ctypes.c_char_p
rt.wp_used.restype = ctypes.c_ulonglong
def wrapper(bundle):
    buf = ctypes.create_string_buffer(bundle, len(bundle))
    w = (ctypes.c_uint32 * 2)(0x48495046, 1)
    raw = ctypes.create_string_buffer(24)
    ctypes.memmove(raw, w, 8)
    ctypes.c_uint64.from_buffer(raw, 8).value = ctypes.addressof(buf)
    return raw, buf
out = {}
keep = []
plain = wrapper(open(sys.argv[4], "rb").read()); keep.append(plain)
shim.__wpcuRegisterFatBinary.restype = ctypes.c_void_p
shim.__wpcuRegisterFatBinary(plain[0])
out["vars_without_fifo"] = rt.wp_vars()
w = wrapper(open(sys.argv[3], "rb").read()); keep.append(w)
shim.__wpcuRegisterFatBinary(w[0])
out["vars"] = rt.wp_vars()
out["var_size"] = rt.wp_var_size()
out["var_name"] = rt.wp_var_name().decode()
def mark(m):
    sys.stdout.flush(); os.write(1, ("@@" + m + "\n").encode())
rt.wp_set_fifo(sys.argv[5].encode())
out["used"] = rt.wp_used()
mark("device1"); out["device1"] = shim.wpcuDeviceSynchronize()
mark("device2"); shim.wpcuDeviceSynchronize()
out["memsets"] = [rt.wp_memsets(), rt.wp_memset_bytes()]
out["used_after"] = rt.wp_used()
rt.wp_set_fifo(sys.argv[5].encode())
mark("stream1"); out["stream1"] = shim.wpcuStreamSynchronize(None)
mark("stream2"); shim.wpcuStreamSynchronize(None)
out["memsets_after_stream"] = rt.wp_memsets()
out["syncs"] = rt.wp_syncs()
rt.wp_set_dropped(2)
mark("dropped"); shim.wpcuStreamSynchronize(None)
mark("end")
sys.stderr.write(json.dumps(out) + "\n")
"#;

fn digest(lines: &str) -> String {
    let mut v: Vec<&str> = lines.lines().collect();
    v.sort_unstable();
    Sha256::digest(v.join("\n").as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The text between the markers `@@from` and the next `@@` line.
fn section<'a>(out: &'a str, from: &str) -> &'a str {
    let start = out
        .find(&format!("@@{from}\n"))
        .unwrap_or_else(|| panic!("no marker {from} in\n{out}"))
        + from.len()
        + 3;
    let end = out[start..].find("@@").map_or(out.len(), |e| start + e);
    &out[start..end]
}

#[test]
fn printf_fifo_prints_the_h200_lines_through_the_shim() {
    let Some(py) = require_tool("python3", T) else {
        return;
    };
    let Some(gcc) = require_tool("gcc", T) else {
        return;
    };
    let Some(_) = common::require_toolchain("dtk", T) else {
        return;
    };
    let root = root();
    let d = tempfile::tempdir().unwrap();
    // 1. Convert the scalar fixtures (which hold k_printf) for gfx906.
    let (code, o, e) = run(Command::new(common::bin())
        .arg(root.join("fixtures/gpu/twin_fixtures.so"))
        .args(["--target", "dtk", "-q", "-o"])
        .arg(d.path())
        .env("XDG_CACHE_HOME", d.path().join("cache")));
    assert_eq!(code, 0, "convert: {o}{e}");
    let so = d.path().join("twin_fixtures.so");
    // 2. Execute the printf case (seeds 0-2) and keep seed 0's FIFO.
    let jobs = runner::harness_jobs(
        &py,
        &runner::harness_dir(&root),
        &root.join("fixtures/gpu/cases.json"),
        &d.path().join("inputs"),
        Some("printf"),
        None,
    )
    .unwrap();
    assert_eq!(jobs.len(), 3, "seeds 0-2 of the printf case");
    let h200: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(root.join("fixtures/gpu/results/ptxjit-validation.json")).unwrap(),
    )
    .unwrap();
    let mut machines: Vec<Machine> = runner::load_objects(&so, "gfx906")
        .unwrap()
        .into_iter()
        .map(|c| Machine::new(c).unwrap())
        .collect();
    let mut fifo = None;
    for j in &jobs {
        let r = runner::run_job(
            &mut machines,
            j,
            &|_| None,
            &h200,
            runner::Options::default(),
        );
        assert!(r.error.is_none(), "seed {}: {:?}", j.seed, r.error);
        for out in &r.outputs {
            assert_eq!(
                out.verdict,
                Verdict::Match,
                "seed {} output {}: the H200 gave {:?}, the gfx906 code {}",
                j.seed,
                out.name,
                out.orig_sha256,
                out.sha256
            );
        }
        let names: Vec<&str> = r.outputs.iter().map(|o| o.name.as_str()).collect();
        assert_eq!(names, ["o", "stdout"]);
        if j.seed == 0 {
            let m = machines
                .iter()
                .find(|m| m.co.kernel("k_printf").is_some())
                .unwrap();
            fifo = runner::fifo_bytes(m).unwrap();
        }
    }
    let fifo = fifo.expect("the module of k_printf defines __wp_printf_fifo");
    assert_eq!(fifo.len() as u64, wheelport::lower::PRINTF_FIFO_BYTES);
    std::fs::write(d.path().join("fifo.bin"), &fifo).unwrap();
    // 3. The offload bundles of the converted .so: one whose code object holds the FIFO, one
    //    without (another module's).
    let data = std::fs::read(&so).unwrap();
    let sec = section_bytes(&data, ".hip_fatbin").unwrap().unwrap();
    let name = b"__wp_printf_fifo";
    let has = |b: &[u8]| b.windows(name.len()).any(|w| w == name);
    let entries = bundle_entries(sec).unwrap();
    let with = entries.iter().find(|(_, _, b)| has(b)).unwrap();
    let without = entries.iter().find(|(_, _, b)| !has(b)).unwrap();
    let bundle = |id: &str, co: &[u8]| -> Vec<u8> {
        let mut b = b"__CLANG_OFFLOAD_BUNDLE__".to_vec();
        b.extend(1u64.to_le_bytes());
        let off = 24 + 8 + 24 + id.len() as u64;
        for v in [off, co.len() as u64, id.len() as u64] {
            b.extend(v.to_le_bytes());
        }
        b.extend(id.as_bytes());
        b.extend(co);
        b
    };
    std::fs::write(d.path().join("with.bundle"), bundle(&with.1, &with.2)).unwrap();
    std::fs::write(
        d.path().join("without.bundle"),
        bundle(&without.1, &without.2),
    )
    .unwrap();
    // 4. The shim as wheelport builds it, over the recording runtime (the shim's other HIP
    //    imports as no-ops).
    let shim = wheelport::shim::build_hip_shim(&gcc, "libamdhip64.so.6", d.path()).unwrap();
    let (_, nm, _) = run(Command::new("nm")
        .args(["-D", "--undefined-only"])
        .arg(&shim));
    let mut src = RECORDING_HIP.to_string();
    for l in nm.lines() {
        let sym = l.split_whitespace().last().unwrap_or_default();
        if (sym.starts_with("hip") || sym.starts_with("__hip"))
            && !RECORDING_HIP.contains(&format!("{sym}("))
        {
            src.push_str(&format!("long {sym}(void) {{ return 0; }}\n"));
        }
    }
    let rt = common::stub_runtime(d.path(), "libamdhip64.so.6", &src);
    let (code, out, err) = run(Command::new(&py)
        .arg("-c")
        .arg(DRIVER)
        .arg(&shim)
        .arg(rt.join("libamdhip64.so.6"))
        .arg(d.path().join("with.bundle"))
        .arg(d.path().join("without.bundle"))
        .arg(d.path().join("fifo.bin"))
        .env("LD_LIBRARY_PATH", &rt));
    assert_eq!(code, 0, "{out}{err}");
    let facts: serde_json::Value =
        serde_json::from_str(err.lines().last().unwrap_or_default()).unwrap();
    // Registration: only the bundle whose code object names the FIFO, at its full size.
    assert_eq!(facts["vars_without_fifo"], 0);
    assert_eq!(facts["vars"], 1);
    assert_eq!(facts["var_name"], "__wp_printf_fifo");
    assert_eq!(facts["var_size"], wheelport::lower::PRINTF_FIFO_BYTES);
    // The device-wide drain prints the H200's lines (64 threads), then empties the FIFO.
    let printed = section(&out, "device1");
    assert_eq!(printed.lines().count(), 64, "{printed}");
    let want = runner::orig_sha256(&h200, "printf", 0, "stdout").unwrap();
    assert_eq!(digest(printed), want, "{printed}");
    assert_eq!(facts["device1"], 0, "cudaSuccess");
    assert_eq!(section(&out, "device2"), "");
    let used = facts["used"].as_u64().unwrap();
    assert!(used > 0);
    assert_eq!(facts["memsets"], serde_json::json!([1, 16 + used]));
    assert_eq!(facts["used_after"], 0);
    // A stream drain prints each record once and leaves the FIFO as it is.
    assert_eq!(digest(section(&out, "stream1")), want);
    assert_eq!(section(&out, "stream2"), "");
    assert_eq!(facts["memsets_after_stream"], 1);
    assert_eq!(facts["syncs"], 2 * 100 + 2);
    assert_eq!(section(&out, "dropped"), "");
    assert!(
        err.contains("wheelport: 2 device printf records were dropped"),
        "{err}"
    );
}
