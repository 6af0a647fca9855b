//! `wheelport inspect --untranslatable` on the SASS-only corpus wheels (vllm_flash_attn 2.6.2,
//! autoawq_kernels 0.0.9): every SASS-only kernel is decoded (no error), its instruction and
//! form counts equal what nvdisasm's own text says (checked here with a parser of the test's
//! own on the first cubins), and the totals are the recorded ones: kernels, instructions,
//! the forms the lifter lacks and their instructions. The last two shrink as the lifter grows;
//! update them with the README's table.

mod common;

use common::{bin, run};
use std::collections::{BTreeMap, BTreeSet};
use std::process::Command;

/// (instructions, distinct forms) per function of `nvdisasm -c` text, parsed independently of
/// `wheelport::sass::decode`: an instruction line starts with `/*<hex>*/`, its form is the
/// first word after an optional `@P` guard.
fn nvdisasm_counts(text: &str) -> BTreeMap<String, (usize, usize)> {
    let mut out: BTreeMap<String, (usize, BTreeSet<String>)> = BTreeMap::new();
    let mut cur: Option<String> = None;
    for l in text.lines() {
        let t = l.trim();
        if let Some(n) = t.strip_prefix(".text.").and_then(|n| n.strip_suffix(':')) {
            cur = Some(n.to_string());
            continue;
        }
        let Some(rest) = t.strip_prefix("/*") else {
            continue;
        };
        let Some((off, body)) = rest.split_once("*/") else {
            continue;
        };
        if !off.bytes().all(|b| b.is_ascii_hexdigit()) || off.is_empty() {
            continue;
        }
        let mut words = body.split_whitespace();
        let mut w = words.next().unwrap_or("");
        if w.starts_with('@') {
            w = words.next().unwrap_or("");
        }
        let form = w.trim_end_matches(';').to_string();
        let e = out
            .entry(cur.clone().expect("instruction in a function"))
            .or_default();
        e.0 += 1;
        e.1.insert(form);
    }
    out.into_iter()
        .map(|(k, (n, f))| (k, (n, f.len())))
        .collect()
}

struct Want {
    kernels: usize,
    instructions: usize,
    unlifted_forms: usize,
    unlifted_instructions: usize,
    /// Kernels every instruction of which lifts.
    complete: usize,
}

fn check(prefix: &str, want: Want) {
    let test = format!("sass_corpus {prefix}");
    let Some(whl) = common::require_corpus(prefix, &test) else {
        return;
    };
    let nvd = match wheelport::toolchain::discover_nvdisasm(
        &wheelport::toolchain::SearchOptions::from_env(),
    ) {
        Ok(t) => t,
        Err(m) => return common::missing(&test, &format!("nvdisasm {}", m.reason)).unwrap_or(()),
    };
    let t0 = std::time::Instant::now();
    let (code, out, err) = run(Command::new(bin())
        .args(["inspect", "--untranslatable", "--json"])
        .arg(&whl));
    let secs = t0.elapsed().as_secs_f64();
    assert_eq!(code, 0, "{err}");
    let r: serde_json::Value = serde_json::from_str(&out).unwrap();
    let mut kernels = Vec::new();
    for so in r["inputs"][0]["shared_objects"].as_array().unwrap() {
        for k in so["kernels"].as_array().into_iter().flatten() {
            if k["status"] == "sass_only" {
                kernels.push((so["path"].as_str().unwrap().to_string(), k.clone()));
            }
        }
    }
    let mut instructions = 0usize;
    let mut unlifted: BTreeMap<String, usize> = BTreeMap::new();
    let mut complete = 0usize;
    for (_, k) in &kernels {
        let sf = &k["sass_forms"];
        assert!(sf["error"].is_null(), "{}: {}", k["name"], sf["error"]);
        assert_eq!(sf["arch"], "sm_80", "{}", k["name"]);
        instructions += sf["instructions"].as_u64().unwrap() as usize;
        if sf["unlifted"].as_array().unwrap().is_empty() {
            complete += 1;
        }
        for f in sf["unlifted"].as_array().unwrap() {
            *unlifted
                .entry(f["form"].as_str().unwrap().to_string())
                .or_default() += f["count"].as_u64().unwrap() as usize;
        }
    }
    // The first cubins against nvdisasm's own text.
    let dir = tempfile::tempdir().unwrap();
    let sos = common::extract_shared_objects(&whl, dir.path());
    let mut checked = 0usize;
    for (name, path) in &sos {
        let data = std::fs::read(path).unwrap();
        let cubins = wheelport::sass::cubins_of(&data, name).unwrap();
        let mut containers: Vec<usize> = cubins.iter().map(|c| c.container).collect();
        containers.dedup();
        for ci in containers.into_iter().take(6) {
            let c = cubins
                .iter()
                .find(|c| c.container == ci && c.arch == "sm_80")
                .expect("an sm_80 cubin");
            let f = dir.path().join(format!("{ci}.cubin"));
            std::fs::write(&f, &c.bytes).unwrap();
            let o = Command::new(&nvd.path).arg("-c").arg(&f).output().unwrap();
            assert!(o.status.success());
            let counts = nvdisasm_counts(&String::from_utf8_lossy(&o.stdout));
            for (so, k) in kernels
                .iter()
                .filter(|(so, k)| so == name && k["container"] == ci)
            {
                let (n, forms) = counts[k["name"].as_str().unwrap()];
                assert_eq!(k["sass_forms"]["instructions"], n, "{so} {}", k["name"]);
                assert_eq!(k["sass_forms"]["forms"], forms, "{so} {}", k["name"]);
                checked += 1;
            }
        }
    }
    assert!(checked > 0);
    let unlifted_instructions: usize = unlifted.values().sum();
    eprintln!(
        "{test}: {} SASS-only kernels, {instructions} sm_80 instructions decoded in {secs:.1} s ({:.0} instructions/s); lifter lacks {} forms ({unlifted_instructions} instructions); {complete} kernels lift completely; {checked} kernels checked against nvdisasm's text; lacking: {unlifted:?}",
        kernels.len(),
        instructions as f64 / secs,
        unlifted.len()
    );
    assert_eq!(kernels.len(), want.kernels);
    assert_eq!(instructions, want.instructions);
    assert_eq!(unlifted.len(), want.unlifted_forms, "{unlifted:?}");
    assert_eq!(unlifted_instructions, want.unlifted_instructions);
    assert_eq!(complete, want.complete);
}

#[test]
fn vllm_flash_attn_sass_forms() {
    check(
        "vllm_flash_attn-2.6.2-",
        Want {
            kernels: 1504,
            instructions: 6_994_208,
            unlifted_forms: 0,
            unlifted_instructions: 0,
            complete: 1504,
        },
    );
}

#[test]
fn autoawq_kernels_sass_forms() {
    check(
        "autoawq_kernels-0.0.9-",
        Want {
            kernels: 277,
            instructions: 610_096,
            unlifted_forms: 0,
            unlifted_instructions: 0,
            complete: 277,
        },
    );
}

/// bitsandbytes 0.50.2's `libbitsandbytes_cuda118.so` is an `-rdc` build: beside the
/// device-linked module (`.nv_fatbin`) it carries the relocatable LZ4-compressed copies
/// (`__nv_relfatbin`), which are the device link's inputs. `sass lift --arch sm_80` lifts the
/// device-linked sm_80 cubin, whose kernels are cuobjdump's sm_80 `ENTRY` symbols: all of
/// them, with no error on the relocatable copies.
#[test]
fn bitsandbytes_rdc_build_lifts_every_sm80_kernel() {
    let test = "sass_corpus bitsandbytes";
    let Some(whl) = common::require_corpus("bitsandbytes-0.50.2-", test) else {
        return;
    };
    if let Err(m) =
        wheelport::toolchain::discover_nvdisasm(&wheelport::toolchain::SearchOptions::from_env())
    {
        return common::missing(test, &format!("nvdisasm {}", m.reason)).unwrap_or(());
    }
    let Some(cuobjdump) = common::require_tool("cuobjdump", test) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let so = common::extract_member(&whl, "bitsandbytes/libbitsandbytes_cuda118.so", dir.path());
    let (code, syms, e) = run(Command::new(cuobjdump)
        .args(["-symbols", "-arch", "sm_80"])
        .arg(&so));
    assert_eq!(code, 0, "{e}");
    let entries = syms.lines().filter(|l| l.contains(" ENTRY ")).count();
    assert!(entries > 0, "{syms}");
    let (code, out, err) = run(Command::new(bin())
        .args(["sass", "lift", "--arch", "sm_80"])
        .arg(&so));
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("total: 1 cubins,"), "{out}");
    // Every kernel lifts, the 44 calling CUDA 11's `__cuda_sm70_*`/`__cuda_sm20_div_u64`
    // helpers with them inlined.
    assert!(
        out.contains(&format!("[sm_80]: {entries} kernels, {entries} lifted;")),
        "{entries} kernels: {out}"
    );
}
