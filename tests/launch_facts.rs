//! Launch facts (`wheelport::elf::launch`): the block sizes the host code launches each kernel
//! with, read from nvcc-built objects and checked against their CUDA sources: every bound found
//! is a block the source writes as a literal (`fixtures/cuda/src/*.cu`, `fixtures/gpu/src/*.cu`,
//! `fixtures/gpu/flash/flash_entry.cu` with its traits), the launches with literal blocks are
//! found, and no kernel launched with a run-time block (`WP_SHAPE`) gets one. The lowering
//! turns a bound into `amdgpu-flat-work-group-size` and a kernel note on amdgcn only.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use wheelport::elf::launch::{launch_facts, LaunchFacts};

fn facts_of(rel: &str) -> LaunchFacts {
    let p = common::root().join(rel);
    launch_facts(&std::fs::read(&p).unwrap(), rel).unwrap()
}

/// `kernel` -> the literal blocks its launches write, from `name<<<grid, 256, ...>>>` and
/// `name<T...><<<grid, 256, ...>>>` lines of the CUDA sources under `dir`.
fn literal_blocks(dir: &str) -> BTreeMap<String, BTreeSet<u32>> {
    let mut out: BTreeMap<String, BTreeSet<u32>> = BTreeMap::new();
    for e in std::fs::read_dir(common::root().join(dir)).unwrap() {
        let p = e.unwrap().path();
        if p.extension().and_then(|x| x.to_str()) != Some("cu") {
            continue;
        }
        for line in std::fs::read_to_string(&p).unwrap().lines() {
            let Some(at) = line.find("<<<") else { continue };
            let head = line[..at].trim_end();
            let head = match head.strip_suffix('>') {
                Some(h) => &h[..h.rfind('<').unwrap()],
                None => head,
            };
            let name: String = head
                .chars()
                .rev()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect::<Vec<_>>()
                .into_iter()
                .rev()
                .collect();
            let args = &line[at + 3..line.find(">>>").unwrap()];
            // The second top-level argument.
            let (mut depth, mut parts, mut cur) = (0, Vec::new(), String::new());
            for c in args.chars() {
                match c {
                    '(' => depth += 1,
                    ')' => depth -= 1,
                    ',' if depth == 0 => {
                        parts.push(std::mem::take(&mut cur));
                        continue;
                    }
                    _ => {}
                }
                cur.push(c);
            }
            parts.push(cur);
            if let Some(Ok(b)) = parts.get(1).map(|b| b.trim().parse::<u32>()) {
                out.entry(name).or_default().insert(b);
            }
        }
    }
    out
}

/// The source identifier of a (mangled) kernel name: `_Z13add_bias_reluPfPKfii` ->
/// `add_bias_relu`; `extern "C"` names are themselves.
fn ident(kernel: &str) -> String {
    let Some(rest) = kernel.strip_prefix("_Z") else {
        return kernel.to_string();
    };
    let digits: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
    let n: usize = digits.parse().unwrap();
    rest[digits.len()..digits.len() + n].to_string()
}

#[test]
fn nvcc_fixture_bounds_are_the_sources_literal_blocks() {
    let sources = literal_blocks("fixtures/cuda/src");
    let mut found = BTreeMap::new();
    for so in [
        "fixtures/cuda/arch_guard.so",
        "fixtures/cuda/globals.so",
        "fixtures/cuda/multi_tu.so",
        "fixtures/cuda/rdc.so",
    ] {
        let f = facts_of(so);
        for (k, b) in &f.bounds {
            let id = ident(k);
            let lit = sources.get(&id);
            // A kernel the sources launch with a variable (`threads`) has no literal; the
            // ones that do must match it.
            if let Some(lit) = lit {
                assert!(
                    lit.contains(&b.max_threads),
                    "{so}: {k}: bound {b:?}, source {lit:?}"
                );
            }
            assert!(!b.sites.is_empty() && b.blocks.iter().all(|x| x[1] == 1 && x[2] == 1));
            found.insert(id, b.max_threads);
        }
        for (k, why) in &f.unproven {
            assert!(!why.is_empty(), "{k}");
        }
    }
    // nvcc 13.5 -O3 host code: each of these launches is a literal block the scan follows
    // (the compiler merged the two sm90 stub launches behind one push and keeps table_update's
    // configuration across a join, which the scan does not follow).
    for (k, b) in [
        ("add_bias_relu", 256),
        ("rowwise_scale", 256),
        ("sm90_gemm_stub_trap", 128),
        ("poly_eval", 256),
        ("debug_print", 128),
        ("map_kernel", 256),
        ("fused_bias_act", 256),
    ] {
        assert_eq!(found.get(k), Some(&b), "{k}: {found:?}");
    }
    // `int threads = 256;` in kernels.cu, `int threads = 128;` in templated.cu.
    assert_eq!(found.get("saxpy"), Some(&256));
    assert_eq!(found.get("reduce_sum"), Some(&256));
    assert_eq!(found.get("scale_bias"), Some(&128));
}

#[test]
fn run_time_blocks_get_no_bound() {
    // fixtures/gpu/src launch with `<<<WP_SHAPE>>>` (the harness's block size) except
    // k_atomic_exch_fold<<<1, 32>>>.
    let sources = literal_blocks("fixtures/gpu/src");
    let f = facts_of("fixtures/gpu/twin_fixtures.so");
    let bounded: Vec<(&str, u32)> = f
        .bounds
        .iter()
        .map(|(k, b)| (k.as_str(), b.max_threads))
        .collect();
    assert_eq!(bounded, [("k_atomic_exch_fold", 32)]);
    assert_eq!(
        sources.get("k_atomic_exch_fold"),
        Some(&BTreeSet::from([32]))
    );
    assert!(f.unproven.len() > 40, "{}", f.unproven.len());
    assert!(f
        .unproven
        .iter()
        .filter(|(k, _)| k.starts_with("k_"))
        .all(|(_, why)| why.contains("not a constant") || why.contains("no __cudaPush")));
}

#[test]
fn flash_attention_fixture_launches_kernel_traits_threads() {
    // flash_entry.cu: `kernel<<<grid, Kernel_traits::kNThreads, smem_size, stream>>>` with
    // Flash_fwd_kernel_traits<..., kNWarps = 4, ...>: 4 * 32 threads; CUDA 13's stub is
    // inlined into the launcher (__cudaGetKernel, __cudaLaunchKernel).
    let src =
        std::fs::read_to_string(common::root().join("fixtures/gpu/flash/flash_entry.cu")).unwrap();
    assert!(src.contains("Kernel_traits::kNThreads"));
    let f = facts_of("fixtures/gpu/flash_fwd_sass80.so");
    assert_eq!(f.bounds.len(), 16, "{:?}", f.unproven);
    for (k, b) in &f.bounds {
        assert!(
            k.contains("Flash_fwd_kernel_traitsILi") && k.contains("ELi4ELb"),
            "{k}"
        );
        assert_eq!(b.blocks, [[128, 1, 1]], "{k}");
    }
}

#[test]
fn xformers_launches_cutlass_and_sparse24_blocks() {
    let Some(wheel) = common::require_corpus("xformers-0.0.35", "launch_facts") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let so = common::extract_member(&wheel, "xformers/_C.so", dir.path());
    let f = launch_facts(&std::fs::read(&so).unwrap(), "_C.so").unwrap();
    // cutlass::gemm::device::SparseGemm::run: dim3 block(GemmKernel::kThreadCount, 1, 1),
    // kThreadCount = 32 * (256/64) * (128/64) warps for GemmShape<256,128,64> and warp
    // shape <64,64,64>. Unoptimised host code: the block in stack slots, the stub called
    // through `__wrapper__device_stub_`.
    let sparse: Vec<_> = f
        .bounds
        .iter()
        .filter(|(k, _)| k.contains("10SparseGemm"))
        .collect();
    assert_eq!(sparse.len(), 8, "{:?}", f.unproven);
    for (k, b) in sparse {
        assert_eq!(b.blocks, [[256, 1, 1]], "{k}");
    }
    // The sparse24 kernels, launched `<<<p.getBlocksGrid(), p.getThreadsGrid()>>>` by host
    // code built without optimisation: `dim3`'s constructor is called (through the PLT, a
    // weak definition of the object) on a stack slot. Sp24MaskKernel's Params: 64 threads
    // (tests/xformers_exec.rs launches them so); xformers::sp24::KernelTypes' Params:
    // dim3(kWarpX / kThreadX, kWarpY / kThreadY) = dim3(32 / 8, 64 / 8) (sparse24_pack.h).
    let with = |pat: &str| -> Vec<(&String, &wheelport::elf::launch::LaunchBound)> {
        f.bounds.iter().filter(|(k, _)| k.contains(pat)).collect()
    };
    let mask = with("sparse24_largest_mask_2d_cu");
    assert_eq!(mask.len(), 4, "{:?}", f.unproven);
    for (k, b) in mask {
        assert_eq!(b.blocks, [[64, 1, 1]], "{k}");
    }
    let tiles: Vec<_> = [
        "sparse24_sparsify_both_ways_kernel",
        "sparse24_apply_kernel",
    ]
    .iter()
    .flat_map(|p| with(p))
    .collect();
    assert!(tiles.len() >= 12, "{tiles:?}");
    for (k, b) in tiles {
        assert_eq!(b.blocks, [[4, 8, 1]], "{k}");
    }
    assert_eq!(f.bounds.len(), 40, "{:?}", f.unproven);
}

/// The text of the first PTX entry of the fixture object `so`.
fn first_ptx(so: &str) -> String {
    let data = std::fs::read(common::root().join(so)).unwrap();
    let elf = wheelport::elf::scan(&data, so).unwrap();
    let cs = wheelport::fatbin::parse_object_sections(&data, &elf, so).unwrap();
    cs.iter()
        .flat_map(|(_, cs)| cs.iter())
        .flat_map(|c| c.entries.iter())
        .find(|e| e.kind() == wheelport::fatbin::EntryKind::Ptx)
        .map(|e| String::from_utf8(e.ptx_bytes().unwrap().to_vec()).unwrap())
        .unwrap()
}

#[test]
fn bounds_reach_the_amdgcn_build_only() {
    let so = "fixtures/cuda/arch_guard.so";
    let f = facts_of(so);
    let ptx = first_ptx(so);
    let parsed = wheelport::ptx::parse(&ptx, so);
    for (target, wanted) in [("dtk", true), ("cuda", false)] {
        let prof = wheelport::target::profile(target).unwrap();
        let with = wheelport::lower::lower_module_with(&parsed.module, prof, &f);
        let without = wheelport::lower::lower_module(&parsed.module, prof);
        let k = with
            .kernels
            .iter()
            .find(|k| k.name == "_Z13add_bias_reluPfPKfii")
            .unwrap();
        assert_eq!(
            with.ir
                .contains("\"amdgpu-flat-work-group-size\"=\"1,256\""),
            wanted,
            "{target}"
        );
        assert_eq!(with.ir == without.ir, !wanted, "{target}");
        assert_eq!(
            k.notes.iter().any(|n| n.contains("at most 256 threads")),
            wanted,
            "{target}: {:?}",
            k.notes
        );
    }
}
/// The launch facts of vllm_flash_attn 2.6.2's extension (its member name and facts), when the
/// corpus has the wheel.
fn vllm_flash_attn_facts() -> Option<(&'static str, LaunchFacts)> {
    let wheel = common::require_corpus("vllm_flash_attn-2.6.2", "launch_facts")?;
    let dir = tempfile::tempdir().unwrap();
    let name = "vllm_flash_attn_2_cuda.cpython-311-x86_64-linux-gnu.so";
    let so = common::extract_member(&wheel, name, dir.path());
    Some((
        name,
        launch_facts(&std::fs::read(&so).unwrap(), name).unwrap(),
    ))
}

#[test]
fn vllm_flash_attn_launches_kernel_traits_warps() {
    let Some((_, f)) = vllm_flash_attn_facts() else {
        return;
    };
    // Optimised CUDA 12 host code with exported host functions (reached through the GOT and
    // PLT): `kernel<<<grid, Kernel_traits::kNThreads, ...>>>`, kNThreads = 32 * kNWarps, the
    // fourth argument of Flash_fwd_kernel_traits<kHeadDim, kBlockM, kBlockN, kNWarps, ...>.
    let warps = |k: &str| -> Option<u32> {
        let t = &k[k.find("Flash_fwd_kernel_traitsI")? + "Flash_fwd_kernel_traitsI".len()..];
        let n: Vec<u32> = t
            .split('E')
            .take(4)
            .map(|x| x.trim_start_matches("Li").parse().ok())
            .collect::<Option<_>>()?;
        n.get(3).copied()
    };
    let mut checked = 0;
    for (k, b) in &f.bounds {
        if let Some(w) = warps(k) {
            assert_eq!(b.max_threads, 32 * w, "{k}");
            checked += 1;
        }
    }
    // All 1,392 registered kernels: the launchers set the block, branch on the parameters and
    // push it in each arm, some arms jumping back to the push (the constants assumed there
    // and checked at those jumps).
    assert_eq!(f.unproven.len(), 0, "{:?}", f.unproven);
    assert!(checked >= 1392, "{checked} of {} bounds", f.bounds.len());
}

#[test]
fn inspect_shows_the_launched_blocks() {
    // `wheelport inspect --kernels --json`: `launch_threads` per kernel, and the human view's
    // count (arch_guard.cu: rowwise_scale and add_bias_relu <<<..., 256>>>,
    // sm90_gemm_stub_trap and sm90_gemm_stub_print <<<..., 128>>> in the two arms of an `if`,
    // the block set before the branch).
    let so = common::root().join("fixtures/cuda/arch_guard.so");
    let (code, out, err) = common::run(
        std::process::Command::new(common::bin())
            .args(["inspect", "--kernels", "--json"])
            .arg(&so),
    );
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let ks = v["inputs"][0]["shared_objects"][0]["kernels"]
        .as_array()
        .unwrap();
    let threads: BTreeMap<String, Option<u64>> = ks
        .iter()
        .map(|k| {
            (
                ident(k["name"].as_str().unwrap()),
                k["launch_threads"].as_u64(),
            )
        })
        .collect();
    assert_eq!(threads["rowwise_scale"], Some(256));
    assert_eq!(threads["add_bias_relu"], Some(256));
    assert_eq!(threads["sm90_gemm_stub_trap"], Some(128));
    assert_eq!(threads["sm90_gemm_stub_print"], Some(128));
    let (code, out, _) = common::run(
        std::process::Command::new(common::bin())
            .args(["inspect", "--kernels"])
            .arg(&so),
    );
    assert_eq!(code, 0);
    assert!(
        out.contains(
            "launched with a constant block: 4 of 4 kernels (2 at 128 threads, 2 at 256 threads)"
        ),
        "{out}"
    );
}

#[test]
fn truncated_and_corrupt_objects_do_not_panic() {
    // The scan reads host code and relocations of hostile inputs too: every prefix length
    // class and flipped bytes give a result or an error naming the file, never a panic.
    let data = std::fs::read(common::root().join("fixtures/cuda/arch_guard.so")).unwrap();
    for cut in (0..data.len()).step_by(97) {
        if let Err(e) = launch_facts(&data[..cut], "cut.so") {
            assert!(e.to_string().contains("cut.so"), "{e}");
        }
    }
    let mut x = 0x9e37_79b9u32;
    for _ in 0..64 {
        let mut d = data.clone();
        for _ in 0..32 {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            let i = x as usize % d.len();
            d[i] ^= (x >> 24) as u8 | 1;
        }
        let _ = launch_facts(&d, "flipped.so");
    }
}

/// FlashAttention 2's `kSmemSize` of the `Flash_fwd_kernel_traits<kHeadDim, kBlockM, kBlockN,
/// kNWarps, Is_Q_in_regs, Share_Q_K_smem, elem_type>` in a kernel's mangled name
/// (csrc/flash_attn/src/kernel_traits.h: Q is kBlockM x kHeadDim, K and V kBlockN x kHeadDim
/// each, 2-byte elements; Q and K share when Share_Q_K_smem). The split-KV combine kernel uses
/// static shared memory only (`<<<grid, kNThreads, 0, stream>>>`): `None`.
fn flash_smem(k: &str) -> Option<u64> {
    if k.contains("combine_kernel") {
        return None;
    }
    let t = &k[k.find("Flash_fwd_kernel_traitsI")? + "Flash_fwd_kernel_traitsI".len()..];
    let v: Vec<u64> = t
        .split('E')
        .take(6)
        .map(|x| {
            x.trim_start_matches("Li")
                .trim_start_matches("Lb")
                .parse()
                .ok()
        })
        .collect::<Option<_>>()?;
    let (q, kv) = (v[1] * v[0] * 2, v[2] * v[0] * 2 * 2);
    Some(if v[5] == 1 { q.max(kv) } else { q + kv })
}

/// FlashAttention's launchers ask for `kSmemSize` bytes of dynamic shared memory with
/// `cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem_size)` when
/// it is 48 KiB or more (flash_fwd_launch_template.h; the fixture's flash_entry.cu does the
/// same): the scan finds exactly those requests, with the source's sizes, in the fixture
/// (CUDA 13) and in vllm_flash_attn 2.6.2 (CUDA 12, optimised, exported host functions).
#[test]
fn flash_attention_shared_memory_requests_are_the_kernel_traits() {
    let check = |f: &LaunchFacts, what: &str| -> usize {
        let mut asked = 0;
        for k in f.bounds.keys().chain(f.unproven.keys()) {
            let Some(want) = flash_smem(k) else {
                continue;
            };
            let got = f.dynamic_shared(k).map(|r| r.bytes);
            if want >= 48 * 1024 {
                assert_eq!(got, Some(want), "{what}: {k}");
                asked += 1;
            } else {
                assert_eq!(got, None, "{what}: {k}");
            }
        }
        assert_eq!(
            asked,
            f.dynamic_shared.len(),
            "{what}: requests of other kernels"
        );
        asked
    };
    assert_eq!(
        check(&facts_of("fixtures/gpu/flash_fwd_sass80.so"), "fixture"),
        16
    );
    let Some((name, f)) = vllm_flash_attn_facts() else {
        return;
    };
    assert_eq!(check(&f, name), 1096);
}

/// A kernel the host code asks more dynamic shared memory for than a work-group of the target
/// has (64 KiB of LDS on the amdgcn archs) is not translated, with the reason; the cuda twin
/// (228 KiB on the H200) lowers it.
#[test]
fn shared_memory_beyond_the_lds_is_not_translated() {
    let so = "fixtures/cuda/arch_guard.so";
    let mut f = facts_of(so);
    let ptx = first_ptx(so);
    let parsed = wheelport::ptx::parse(&ptx, so);
    let kernel = "_Z13add_bias_reluPfPKfii";
    for (bytes, lowered) in [(65536, true), (65537, false)] {
        f.dynamic_shared.insert(
            kernel.to_string(),
            wheelport::elf::launch::SharedRequest {
                bytes,
                site: 0x1234,
            },
        );
        for target in ["dtk", "rocm", "cuda"] {
            let prof = wheelport::target::profile(target).unwrap();
            let out = wheelport::lower::lower_module_with(&parsed.module, prof, &f);
            let k = out.kernels.iter().find(|k| k.name == kernel).unwrap();
            let ok = matches!(k.outcome, wheelport::lower::KernelOutcome::Lowered);
            assert_eq!(
                ok,
                lowered || target == "cuda",
                "{target} {bytes}: {:?}",
                k.outcome
            );
            if !ok {
                let why = format!("{:?}", k.outcome);
                assert!(
                    why.contains("asks for 65537 bytes of dynamic shared memory")
                        && why.contains("at 0x1234")
                        && why.contains("65536 bytes of LDS"),
                    "{why}"
                );
            }
        }
    }
}
