//! Invariants 13–26 of `../shared/reference/wheel-and-elf-rewriting.md` (a), checked on the
//! output of the one-call host rewrite (`rewrite_host`, target dtk, shim shipped in
//! `<dist>.libs/`) for every `.so` of the corpus wheels and of `fixtures/cuda`, by readers
//! independent of the writer: GNU readelf for headers, segments, dynamic tags, versions and
//! relocations, and a GNU-hash lookup written here over the raw bytes (invariant 21).
//! Invariant 25 (LD_BIND_NOW dlopen) runs on the fixtures against stub runtimes generated with
//! gcc, versioned like AMD's `hip_4.2` and unversioned like DTK's, together with the real shim.
//!
//! The tricky inputs that the other tests do not cover are here: mixed `p_align` (rewritten
//! with growth, loads) and a full `.dynamic` (lld output: moved, loads).

mod common;

use common::*;
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::process::Command;
use wheelport::relink::load_builtin;
use wheelport::rewrite::{rewrite_host, ShimPlacement};

#[derive(Debug, Clone)]
struct Sect {
    name: String,
    addr: u64,
    off: u64,
    size: u64,
    #[allow(dead_code)] // shown by `Debug` in failure messages
    flags: String,
    ty: String,
}

#[derive(Debug, Clone)]
struct Seg {
    ty: String,
    off: u64,
    vaddr: u64,
    filesz: u64,
    memsz: u64,
    flags: String,
    align: u64,
}

fn hex(s: &str) -> u64 {
    u64::from_str_radix(s.trim_start_matches("0x"), 16).unwrap()
}

fn readelf(args: &[&str], f: &Path) -> (String, String) {
    let (code, out, err) = run(Command::new("readelf").args(args).arg(f));
    assert_eq!(code, 0, "readelf {args:?} {}: {err}", f.display());
    (out, err)
}

fn sections(f: &Path) -> Vec<Sect> {
    let (out, _) = readelf(&["-S", "-W"], f);
    out.lines()
        .filter_map(|l| {
            let (_, rest) = l.split_once(']')?;
            let c: Vec<&str> = rest.split_whitespace().collect();
            if c.len() < 6 || c[0] == "Name" {
                return None;
            }
            // [Nr] Name Type Address Off Size ES Flg Lk Inf Al (Flg may be empty)
            let flags = if c.len() >= 10 {
                c[6].to_string()
            } else {
                String::new()
            };
            Some(Sect {
                name: c[0].into(),
                ty: c[1].into(),
                addr: hex(c[2]),
                off: hex(c[3]),
                size: hex(c[4]),
                flags,
            })
        })
        .collect()
}

fn segments(f: &Path) -> Vec<Seg> {
    let (out, _) = readelf(&["-l", "-W"], f);
    out.lines()
        .filter_map(|l| {
            let c: Vec<&str> = l.split_whitespace().collect();
            if c.len() < 8 || !c[1].starts_with("0x") {
                return None;
            }
            let align = hex(c[c.len() - 1]);
            let flags = c[6..c.len() - 1].join(" ");
            Some(Seg {
                ty: c[0].into(),
                off: hex(c[1]),
                vaddr: hex(c[2]),
                filesz: hex(c[4]),
                memsz: hex(c[5]),
                flags,
                align,
            })
        })
        .collect()
}

/// `(segment type, its sections)` in program header order, from `readelf -lW`.
fn segment_sections(f: &Path) -> Vec<(String, Vec<String>)> {
    let (out, _) = readelf(&["-l", "-W"], f);
    let types: Vec<String> = segments(f).into_iter().map(|s| s.ty).collect();
    let map: Vec<Vec<String>> = out
        .lines()
        .skip_while(|l| !l.contains("Section to Segment mapping"))
        .skip(2)
        .take(types.len())
        .map(|l| l.split_whitespace().skip(1).map(str::to_string).collect())
        .collect();
    types.into_iter().zip(map).collect()
}

/// `(tag name, value)` of `readelf -d`.
fn dynamic(f: &Path) -> Vec<(String, String)> {
    let (out, _) = readelf(&["-d", "-W"], f);
    out.lines()
        .filter_map(|l| {
            let l = l.trim();
            if !l.starts_with("0x") {
                return None;
            }
            let open = l.find('(')?;
            let close = l.find(')')?;
            Some((
                l[open + 1..close].to_string(),
                l[close + 1..].trim().to_string(),
            ))
        })
        .collect()
}

fn bracket(v: &str) -> String {
    v.split('[')
        .nth(1)
        .unwrap_or("")
        .trim_end_matches(']')
        .to_string()
}

/// Relocations as (offset, type, symbol name without version).
fn relocations(f: &Path) -> Vec<(u64, String, String)> {
    let (out, _) = readelf(&["-r", "-W"], f);
    out.lines()
        .filter_map(|l| {
            let c: Vec<&str> = l.split_whitespace().collect();
            if c.len() < 3 || !c[2].starts_with("R_") {
                return None;
            }
            let sym = if c.len() >= 5 && !c[4].starts_with('+') {
                c[4].split('@').next().unwrap().to_string()
            } else {
                String::new()
            };
            Some((hex(c[0]), c[2].to_string(), sym))
        })
        .collect()
}

/// Defined and undefined dynamic symbols: (name without version, defined).
fn dynsyms(f: &Path) -> Vec<(String, bool)> {
    let (out, _) = readelf(&["--dyn-syms", "-W"], f);
    out.lines()
        .filter_map(|l| {
            let c: Vec<&str> = l.split_whitespace().collect();
            if c.len() < 8 || !c[0].ends_with(':') || c[0] == "0:" {
                return None;
            }
            Some((c[7].split('@').next().unwrap().to_string(), c[6] != "UND"))
        })
        .collect()
}

fn gnu_hash(name: &[u8]) -> u32 {
    name.iter()
        .fold(5381u32, |h, &c| h.wrapping_mul(33).wrapping_add(c as u32))
}

/// Look every defined dynamic symbol up through `.gnu.hash` (ELF gABI GNU extension; glibc
/// `do_lookup_x`), reading raw bytes: bloom filter, bucket, chain. Returns the names not found.
fn gnu_hash_misses(data: &[u8], secs: &[Sect]) -> Vec<String> {
    let get = |n: &str| secs.iter().find(|s| s.name == n);
    let (Some(gh), Some(ds), Some(dstr)) = (get(".gnu.hash"), get(".dynsym"), get(".dynstr"))
    else {
        return Vec::new();
    };
    let u32at = |o: u64| u32::from_le_bytes(data[o as usize..o as usize + 4].try_into().unwrap());
    let u64at = |o: u64| u64::from_le_bytes(data[o as usize..o as usize + 8].try_into().unwrap());
    let (nbuckets, symoffset, bloom_size, shift) = (
        u32at(gh.off),
        u32at(gh.off + 4),
        u32at(gh.off + 8),
        u32at(gh.off + 12),
    );
    let bloom = gh.off + 16;
    let buckets = bloom + 8 * bloom_size as u64;
    let chains = buckets + 4 * nbuckets as u64;
    let nsyms = ds.size / 24;
    let name_of = |i: u64| -> &[u8] {
        let so = dstr.off + u32at(ds.off + i * 24) as u64;
        let end = data[so as usize..].iter().position(|&b| b == 0).unwrap();
        &data[so as usize..so as usize + end]
    };
    let mut misses = Vec::new();
    for i in 1..nsyms {
        let shndx = u16::from_le_bytes(
            data[(ds.off + i * 24 + 6) as usize..(ds.off + i * 24 + 8) as usize]
                .try_into()
                .unwrap(),
        );
        let name = name_of(i);
        if shndx == 0 {
            assert!(i < symoffset as u64, "undefined symbol {i} after symoffset");
            continue;
        }
        let h = gnu_hash(name);
        let word = u64at(bloom + 8 * ((h / 64) % bloom_size) as u64);
        let mask = (1u64 << (h % 64)) | (1u64 << ((h >> shift) % 64));
        let mut found = false;
        if word & mask == mask {
            let mut j = u32at(buckets + 4 * (h % nbuckets) as u64) as u64;
            while j != 0 && j < nsyms {
                let ch = u32at(chains + 4 * (j - symoffset as u64));
                if ch | 1 == h | 1 && name_of(j) == name {
                    found = true;
                    break;
                }
                if ch & 1 == 1 {
                    break;
                }
                j += 1;
            }
        }
        if !found {
            misses.push(String::from_utf8_lossy(name).into_owned());
        }
    }
    misses
}

const CUDA_SONAMES: &[&str] = &[
    "libcudart",
    "libcuda.so",
    "libcublas",
    "libc10_cuda",
    "libtorch_cuda",
];

/// Check invariants 13–24 and 26 on `new` (rewritten from `old`); returns the notes.
fn check(old: &Path, new: &Path, report: &wheelport::rewrite::HostReport, runtime: &str) {
    let name = old.display().to_string();
    let (odata, ndata) = (std::fs::read(old).unwrap(), std::fs::read(new).unwrap());
    // 13: parses without warnings; e_phoff/e_shoff inside the file; section headers present.
    // (A warning the input already has, such as annobin's "Gap in build notes", is the
    // input's: only new warnings count.)
    let (_, warn) = readelf(&["-a", "-W"], new);
    let (_, old_warn) = readelf(&["-a", "-W"], old);
    let fresh: Vec<&str> = warn.lines().filter(|l| !old_warn.contains(l)).collect();
    assert!(fresh.is_empty(), "13 {name}: {fresh:?}");
    let phoff = u64::from_le_bytes(ndata[32..40].try_into().unwrap());
    let shoff = u64::from_le_bytes(ndata[40..48].try_into().unwrap());
    assert!(
        phoff < ndata.len() as u64 && shoff < ndata.len() as u64 && shoff > 0,
        "13 {name}"
    );
    let (osecs, nsecs) = (sections(old), sections(new));
    let (osegs, nsegs) = (segments(old), segments(new));
    assert!(!nsecs.is_empty());
    // 14: PT_LOAD congruence, alignment, order, no overlap, nothing below the lowest vaddr.
    let loads: Vec<&Seg> = nsegs.iter().filter(|s| s.ty == "LOAD").collect();
    let lowest = osegs
        .iter()
        .filter(|s| s.ty == "LOAD")
        .map(|s| s.vaddr)
        .min()
        .unwrap();
    for (i, l) in loads.iter().enumerate() {
        assert!(
            l.align >= 4096 && l.vaddr % l.align == l.off % l.align,
            "14 {name}: {l:?}"
        );
        assert!(l.vaddr >= lowest, "14 {name}");
        if i > 0 {
            let p = loads[i - 1];
            assert!(
                p.vaddr + p.memsz <= l.vaddr,
                "14 {name}: {p:?} overlaps {l:?}"
            );
        }
    }
    // 15: PT_PHDR covers the table, inside a PT_LOAD; PT_DYNAMIC, PT_NOTE, PT_GNU_EH_FRAME match.
    let phnum = u16::from_le_bytes(ndata[56..58].try_into().unwrap()) as u64;
    if let Some(ph) = nsegs.iter().find(|s| s.ty == "PHDR") {
        assert_eq!((ph.off, ph.filesz), (phoff, phnum * 56), "15 {name}");
        assert!(loads
            .iter()
            .any(|l| l.off <= ph.off && ph.off + ph.filesz <= l.off + l.filesz));
    }
    let sec = |n: &str| nsecs.iter().find(|s| s.name == n).cloned();
    let dynsec = sec(".dynamic").unwrap();
    let pdyn = nsegs.iter().find(|s| s.ty == "DYNAMIC").unwrap();
    assert_eq!(
        (pdyn.vaddr, pdyn.filesz),
        (dynsec.addr, dynsec.size),
        "15 {name}"
    );
    if let (Some(eh), Some(seg)) = (
        sec(".eh_frame_hdr"),
        nsegs.iter().find(|s| s.ty == "GNU_EH_FRAME"),
    ) {
        assert_eq!(seg.vaddr, eh.addr, "15 {name}");
    }
    for note in nsegs.iter().filter(|s| s.ty == "NOTE") {
        let covered: u64 = nsecs
            .iter()
            .filter(|s| s.ty == "NOTE" && s.addr >= note.vaddr && s.addr < note.vaddr + note.memsz)
            .map(|s| s.size)
            .sum();
        assert!(covered > 0 && covered <= note.filesz, "15 {name}: {note:?}");
    }
    // 16: RELRO covers .dynamic and .got; new segments are read-only. A `.dynamic` that had
    // to grow moved (src/rewrite/layout.rs) into a new RW segment of its own, outside the
    // unchanged RELRO range (glibc before 2.35 writes to it while loading, as to patchelf's).
    let dynamic_moved = report.summary.moved.iter().any(|m| m == ".dynamic");
    let orelro = osegs.iter().find(|s| s.ty == "GNU_RELRO");
    if let Some(relro) = nsegs.iter().find(|s| s.ty == "GNU_RELRO") {
        if let Some(o) = orelro {
            assert_eq!(
                (relro.vaddr, relro.memsz),
                (o.vaddr, o.memsz),
                "16 {name}: RELRO changed"
            );
        }
        for n in [".dynamic", ".got", ".data.rel.ro"] {
            if n == ".dynamic" && dynamic_moved {
                continue;
            }
            if let Some(s) = sec(n) {
                assert!(
                    relro.vaddr <= s.addr && s.addr + s.size <= relro.vaddr + relro.memsz,
                    "16 {name}: {n} outside RELRO"
                );
            }
        }
    }
    let old_loads: Vec<&Seg> = osegs.iter().filter(|s| s.ty == "LOAD").collect();
    for l in loads.iter().filter(|l| {
        !old_loads
            .iter()
            .any(|o| (o.off, o.vaddr, o.filesz) == (l.off, l.vaddr, l.filesz))
    }) {
        let holds_dynamic = dynsec.addr >= l.vaddr && dynsec.addr < l.vaddr + l.memsz;
        if dynamic_moved && holds_dynamic {
            assert_eq!(l.flags, "RW", "16 {name}: moved .dynamic in {l:?}");
            assert_eq!((l.vaddr, l.memsz), (dynsec.addr, dynsec.size), "16 {name}");
        } else {
            assert_eq!(l.flags, "R", "16 {name}: new segment {l:?}");
        }
    }
    // 14 (for strip): every PT_LOAD holds a section (readelf's section-to-segment map).
    for (i, (seg, secs)) in segment_sections(new).iter().enumerate() {
        assert!(
            seg != "LOAD" || !secs.is_empty(),
            "14 {name}: PT_LOAD #{i} has no sections"
        );
    }
    // 17: DT_* address tags point at their sections; STRSZ is .dynstr's size.
    let dynv = dynamic(new);
    let tag = |t: &str| dynv.iter().find(|(n, _)| n == t).map(|(_, v)| v.clone());
    for (t, s) in [
        ("STRTAB", ".dynstr"),
        ("SYMTAB", ".dynsym"),
        ("GNU_HASH", ".gnu.hash"),
        ("HASH", ".hash"),
        ("VERSYM", ".gnu.version"),
        ("VERNEED", ".gnu.version_r"),
        ("VERDEF", ".gnu.version_d"),
        ("RELA", ".rela.dyn"),
        ("JMPREL", ".rela.plt"),
        ("INIT_ARRAY", ".init_array"),
        ("FINI_ARRAY", ".fini_array"),
        ("INIT", ".init"),
        ("FINI", ".fini"),
    ] {
        if let Some(v) = tag(t) {
            let s = sec(s).unwrap_or_else(|| panic!("17 {name}: DT_{t} without {s}"));
            assert_eq!(hex(&v), s.addr, "17 {name}: DT_{t}");
        }
    }
    let strsz: u64 = tag("STRSZ")
        .unwrap()
        .split_whitespace()
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert_eq!(strsz, sec(".dynstr").unwrap().size, "17 {name}: STRSZ");
    // 18: DT_NEEDED: the input's, CUDA ones replaced in place, the shim appended; no duplicate.
    let needed_of = |d: &[(String, String)]| -> Vec<String> {
        d.iter()
            .filter(|(t, _)| t == "NEEDED")
            .map(|(_, v)| bracket(v))
            .collect()
    };
    let mut want: Vec<String> = needed_of(&dynamic(old))
        .into_iter()
        .map(|n| {
            report
                .needed_changed
                .iter()
                .find(|(o, _)| *o == n)
                .map(|(_, r)| r.clone().unwrap())
                .unwrap_or(n)
        })
        .collect();
    want.extend(report.needed_added.iter().cloned());
    let got = needed_of(&dynv);
    assert_eq!(got, want, "18 {name}");
    let mut dedup = got.clone();
    dedup.sort();
    dedup.dedup();
    assert_eq!(dedup.len(), got.len(), "18 {name}: duplicate DT_NEEDED");
    assert!(
        !got.iter()
            .any(|n| CUDA_SONAMES.iter().any(|c| n.starts_with(c))),
        "18 {name}: {got:?}"
    );
    // 19: every verneed file is needed; no CUDA library; the count tag agrees.
    let (v, _) = readelf(&["-V", "-W"], new);
    let files: Vec<String> = v
        .lines()
        .filter_map(|l| l.split("File: ").nth(1))
        .map(|r| r.split_whitespace().next().unwrap().to_string())
        .collect();
    for f in &files {
        assert!(
            got.contains(f),
            "19 {name}: verneed file {f} not in DT_NEEDED"
        );
        assert!(
            !CUDA_SONAMES.iter().any(|c| f.starts_with(c)),
            "19 {name}: {f}"
        );
    }
    match tag("VERNEEDNUM") {
        Some(n) => assert_eq!(n.parse::<usize>().unwrap(), files.len(), "19 {name}"),
        None => assert!(
            files.is_empty() && sec(".gnu.version_r").is_none(),
            "19 {name}"
        ),
    }
    // 20: .gnu.version has one entry per .dynsym entry.
    if let Some(vs) = sec(".gnu.version") {
        assert_eq!(vs.size / 2, sec(".dynsym").unwrap().size / 24, "20 {name}");
    }
    // 21: every defined dynamic symbol is found through .gnu.hash.
    let misses = gnu_hash_misses(&ndata, &nsecs);
    assert!(
        misses.is_empty(),
        "21 {name}: not found through .gnu.hash: {misses:?}"
    );
    // 22: no cuda* / __cuda* import left except those reported unresolved; shim names are
    // defined by the shim, the others come from the target libraries.
    let unresolved: Vec<&str> = report
        .unresolved
        .iter()
        .map(|u| u.import.split('@').next().unwrap())
        .collect();
    let nsyms = dynsyms(new);
    for (s, def) in &nsyms {
        if !def && (s.starts_with("cuda") || s.starts_with("__cuda")) {
            assert!(
                unresolved.contains(&s.as_str()),
                "22 {name}: {s} left unrenamed and unreported"
            );
        }
    }
    // 23: same relocations (count, offsets, types), symbols the same by name modulo renames.
    let renames: HashMap<&str, &str> = report
        .renamed
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    let (orel, nrel) = (relocations(old), relocations(new));
    assert_eq!(orel.len(), nrel.len(), "23 {name}: relocation count");
    for (o, n) in orel.iter().zip(&nrel) {
        let want = renames.get(o.2.as_str()).copied().unwrap_or(&o.2);
        assert_eq!((o.0, &o.1, want), (n.0, &n.1, n.2.as_str()), "23 {name}");
    }
    // 24: RUNPATH is what was asked for, $ORIGIN-relative; the RPATH/RUNPATH choice is kept.
    if let Some(rp) = &report.runpath {
        let old_has_rpath = dynamic(old).iter().any(|(t, _)| t == "RPATH");
        let t = if old_has_rpath && !dynamic(old).iter().any(|(t, _)| t == "RUNPATH") {
            "RPATH"
        } else {
            "RUNPATH"
        };
        assert_eq!(tag(t).map(|v| bracket(&v)), Some(rp.clone()), "24 {name}");
        assert!(
            rp.split(':').next_back().unwrap().starts_with("$ORIGIN"),
            "24 {name}"
        );
    }
    // 26: sections outside the rewrite set are byte-identical at the same addresses; the file
    // grew by a bounded amount.
    let rewritten = [
        ".dynstr",
        ".dynsym",
        ".hash",
        ".gnu.hash",
        ".gnu.version",
        ".gnu.version_r",
        ".gnu.version_d",
        ".dynamic",
        ".symtab",
        ".strtab",
        ".shstrtab",
        ".nvFatBinSegment",
        ".rela.dyn",
    ];
    for o in osecs
        .iter()
        .filter(|s| s.ty != "NOBITS" && s.size > 0 && !rewritten.contains(&s.name.as_str()))
    {
        let n = nsecs
            .iter()
            .find(|s| s.name == o.name)
            .unwrap_or_else(|| panic!("26 {name}: {} lost", o.name));
        // Notes behind the program header table move with it (src/rewrite/layout.rs): same
        // bytes, new address. Everything else stays where it was.
        if o.ty != "NOTE" {
            assert_eq!((n.addr, n.size), (o.addr, o.size), "26 {name}: {}", o.name);
        }
        let (mut ob, mut nb) = (
            odata[o.off as usize..(o.off + o.size) as usize].to_vec(),
            ndata[n.off as usize..(n.off + n.size) as usize].to_vec(),
        );
        // A moved .dynamic: GOT[0] (the word at DT_PLTGOT) holds its new address.
        if let (true, Some(got)) = (dynamic_moved, tag("PLTGOT").map(|v| hex(&v))) {
            if got >= n.addr && got + 8 <= n.addr + n.size {
                let at = (got - n.addr) as usize;
                assert_eq!(
                    u64::from_le_bytes(nb[at..at + 8].try_into().unwrap()),
                    dynsec.addr,
                    "26 {name}: GOT[0]"
                );
                ob[at..at + 8].fill(0);
                nb[at..at + 8].fill(0);
            }
        }
        assert!(ob == nb, "26 {name}: {} changed", o.name);
    }
    let grown_sections: u64 = nsecs
        .iter()
        .filter(|s| rewritten.contains(&s.name.as_str()) || s.name == ".hip_fatbin")
        .map(|s| s.size)
        .sum();
    assert!(
        ndata.len() as u64 <= odata.len() as u64 + grown_sections + 3 * 65536,
        "26 {name}: grew from {} to {}",
        odata.len(),
        ndata.len()
    );
    let _ = runtime;
}

fn objects(dir: &Path) -> Vec<(String, PathBuf)> {
    let mut v: Vec<(String, PathBuf)> = fixture_objects()
        .into_iter()
        .map(|p| {
            (
                format!("fixtures/{}", p.file_name().unwrap().to_string_lossy()),
                p,
            )
        })
        .collect();
    for prefix in ["xformers-", "autoawq_kernels-", "vllm_flash_attn-"] {
        let w = if prefix == "xformers-" {
            require_corpus(prefix, "invariants")
        } else {
            corpus_wheel(prefix)
        };
        match w {
            Some(w) => v.extend(extract_shared_objects(&w, dir)),
            None => eprintln!("SKIP invariants: no {prefix}* wheel (set WHEELPORT_CORPUS)"),
        }
    }
    v
}

#[test]
fn invariants_hold_on_every_rewritten_object() {
    if require_tool("readelf", "invariants").is_none()
        || require_tool("gcc", "invariants").is_none()
    {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let objs = objects(tmp.path());
    assert!(objs.len() >= 11, "{} objects", objs.len());
    let table = load_builtin("dtk").unwrap();
    let profile = wheelport::target::profile("dtk").unwrap();
    let runtime = wheelport::shim::runtime_soname(&table).unwrap();
    let (shim_name, shim) = wheelport::shim::shim_for_table(&table).unwrap();
    let mut loaded = 0;
    for (idx, (name, path)) in objs.iter().enumerate() {
        let data = std::fs::read(path).unwrap();
        let so_path = format!("pkg/{}", path.file_name().unwrap().to_string_lossy());
        let placement = ShimPlacement {
            so_path: so_path.clone(),
            libs_dir: "pkg.libs".into(),
        };
        let r = rewrite_host(
            &wheelport::analyze::analyze(&data, name, name, &Default::default()).unwrap(),
            profile,
            &table,
            &BTreeMap::new(),
            Some(&placement),
            None,
        )
        .unwrap_or_else(|e| panic!("{name}: {e}"));
        let root = tmp.path().join(format!("w{idx}"));
        std::fs::create_dir_all(root.join("pkg")).unwrap();
        std::fs::create_dir_all(root.join("pkg.libs")).unwrap();
        let new = root.join(&so_path);
        std::fs::write(&new, &r.bytes).unwrap();
        std::fs::write(root.join("pkg.libs").join(&shim_name), &shim).unwrap();
        check(path, &new, &r.report, &runtime);
        // 25: fixtures load with LD_BIND_NOW=1 against stub DTK runtimes (versioned and not).
        if name.starts_with("fixtures/") {
            for variant in ["versioned", "unversioned"] {
                let rt = stub_for(&root.join(variant), &new, &runtime, variant == "versioned");
                let (code, _, e) = python_bind_now(
                    "import ctypes, sys\nctypes.CDLL(sys.argv[1])\nprint('ok')",
                    &[&new],
                    &rt,
                );
                assert_eq!(code, 0, "25 {name} ({variant}): {e}");
                loaded += 1;
            }
        }
        eprintln!(
            "{name}: renamed {}, shimmed {}, unresolved {}, skipped wrappers {}, left alone {}",
            r.report.renamed.len(),
            r.report.shimmed.len(),
            r.report.unresolved.len(),
            r.report.skipped.len(),
            r.report.left_alone.len()
        );
    }
    assert!(loaded >= 20, "{loaded} loads");
}

/// A stub runtime `runtime` defining every unversioned import of `so` that is not in the
/// shim, and the HIP functions the shim calls; with `versioned`, all at node `hip_4.2`.
fn stub_for(dir: &Path, so: &Path, runtime: &str, versioned: bool) -> PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    let shim_defined = wheelport::shim::hip_shim_symbols();
    let mut names: Vec<String> = dynsyms(so)
        .into_iter()
        .filter(|(n, def)| !def && !shim_defined.contains(&n.as_str()))
        .map(|(n, _)| n)
        .filter(|n| n.starts_with("hip") || n.starts_with("__hip"))
        .collect();
    for n in [
        "hipLaunchKernel",
        "hipLaunchKernel_spt",
        "hipGetDevicePropertiesR0600",
        "hipDeviceGetAttribute",
        "hipGetErrorString",
        "hipGetErrorName",
        "hipGetLastError",
        "hipPeekAtLastError",
        "__hipRegisterFatBinary",
        "__hipUnregisterFatBinary",
        "__hipRegisterFunction",
        "__hipRegisterVar",
    ] {
        names.push(n.into());
    }
    names.sort();
    names.dedup();
    let src: String = names
        .iter()
        .map(|n| format!("long {n}(void) {{ return 0; }}\n"))
        .collect();
    std::fs::write(dir.join("stub.c"), src).unwrap();
    std::fs::write(dir.join("hip.map"), "hip_4.2 { global: *; };\n").unwrap();
    let mut cmd = Command::new("gcc");
    cmd.args(["-shared", "-fPIC", "-w", &format!("-Wl,-soname,{runtime}")]);
    if versioned {
        cmd.arg("-Wl,--version-script=hip.map");
    }
    let (code, _, e) = run(cmd.args(["-o", runtime, "stub.c"]).current_dir(dir));
    assert_eq!(code, 0, "{e}");
    dir.to_path_buf()
}

/// Tricky inputs (b) 5 and 6: mixed p_align rewrites with a new segment at the largest
/// alignment and loads; a full `.dynamic` (ld.lld sizes it exactly) moves to a new RW segment
/// when the shim's DT_NEEDED must be added, and loads.
#[test]
fn mixed_alignment_and_full_dynamic() {
    if require_tool("gcc", "invariants").is_none()
        || require_tool("readelf", "invariants").is_none()
    {
        return;
    }
    let d = tempfile::tempdir().unwrap();
    let dir = d.path();
    std::fs::write(
        dir.join("ext.c"),
        "extern int cudaMalloc(void **p, unsigned long n);\nextern int cudaGetLastError(void);\nint ext_run(void) { void *p; return cudaMalloc(&p, 16) + cudaGetLastError(); }\n",
    )
    .unwrap();
    std::fs::write(dir.join("rt.c"), "int cudaMalloc(void **p, unsigned long n) { return 0; }\nint cudaGetLastError(void) { return 0; }\n").unwrap();
    std::fs::write(dir.join("rt.map"), "libcudart.so.12 { global: *; };\n").unwrap();
    let sh = |args: &[&str]| {
        let (c, _, e) = run(Command::new("gcc").args(args).current_dir(dir));
        assert_eq!(c, 0, "{e}");
    };
    sh(&[
        "-shared",
        "-fPIC",
        "-Wl,-soname,libcudart.so.12",
        "-Wl,--version-script=rt.map",
        "-o",
        "libcudart.so.12",
        "rt.c",
    ]);
    sh(&[
        "-shared",
        "-fPIC",
        "-o",
        "mixed.so",
        "ext.c",
        "-L.",
        "-l:libcudart.so.12",
    ]);
    // Mixed p_align: the first PT_LOAD (vaddr 0, offset 0) declares 2 MiB, the others 4 KiB.
    let mut data = std::fs::read(dir.join("mixed.so")).unwrap();
    let phoff = u64::from_le_bytes(data[32..40].try_into().unwrap()) as usize;
    let phnum = u16::from_le_bytes(data[56..58].try_into().unwrap()) as usize;
    let first = (0..phnum)
        .map(|i| phoff + i * 56)
        .find(|&p| u32::from_le_bytes(data[p..p + 4].try_into().unwrap()) == 1)
        .unwrap();
    data[first + 48..first + 56].copy_from_slice(&0x20_0000u64.to_le_bytes());
    std::fs::write(dir.join("mixed.so"), &data).unwrap();
    let aligns: Vec<u64> = segments(&dir.join("mixed.so"))
        .iter()
        .filter(|s| s.ty == "LOAD")
        .map(|s| s.align)
        .collect();
    assert!(
        aligns.contains(&0x20_0000) && aligns.contains(&0x1000),
        "{aligns:?}"
    );

    let mut table = load_builtin("dtk").unwrap();
    // A long target name forces .dynstr (and more) into a new segment.
    let long = format!("hipMalloc_{}", "x".repeat(3000));
    table
        .merge_user_text(
            &format!("#% schema: wheelport-relink-symbols/1\n#% target: dtk\ncudaMalloc\tlibcudart.so.12\trename\t{long}\tlibgalaxyhip.so.5\t-\ttest\n"),
            "user.tsv",
        )
        .unwrap();
    let profile = wheelport::target::profile("dtk").unwrap();
    let placement = ShimPlacement {
        so_path: "pkg/mixed.so".into(),
        libs_dir: "pkg.libs".into(),
    };
    let r = rewrite_host(
        &wheelport::analyze::analyze(&data, "mixed.so", "mixed.so", &Default::default()).unwrap(),
        profile,
        &table,
        &BTreeMap::new(),
        Some(&placement),
        None,
    )
    .unwrap();
    assert!(!r.report.summary.moved.is_empty(), "{:?}", r.report.summary);
    let root = dir.join("wheel");
    std::fs::create_dir_all(root.join("pkg")).unwrap();
    std::fs::create_dir_all(root.join("pkg.libs")).unwrap();
    let new = root.join("pkg/mixed.so");
    std::fs::write(&new, &r.bytes).unwrap();
    let (shim_name, shim) = wheelport::shim::shim_for_table(&table).unwrap();
    std::fs::write(root.join("pkg.libs").join(shim_name), shim).unwrap();
    check(&dir.join("mixed.so"), &new, &r.report, "libgalaxyhip.so.5");
    let last = segments(&new)
        .into_iter()
        .rfind(|s| s.ty == "LOAD")
        .unwrap();
    assert_eq!(
        (last.align, last.flags.as_str()),
        (0x20_0000, "R"),
        "{last:?}"
    );
    for variant in ["versioned", "unversioned"] {
        let rt = stub_for(
            &root.join(variant),
            &new,
            "libgalaxyhip.so.5",
            variant == "versioned",
        );
        let (code, _, e) = python_bind_now(
            "import ctypes, sys\nctypes.CDLL(sys.argv[1]).ext_run()\nprint('ok')",
            &[&new],
            &rt,
        );
        assert_eq!(code, 0, "mixed p_align ({variant}): {e}");
    }

    // Full .dynamic: ld.lld leaves no spare slot; adding the shim's DT_NEEDED moves it.
    std::fs::write(
        dir.join("ext_libc.c"),
        "extern int cudaMalloc(void **p, unsigned long n);\nextern int cudaGetLastError(void);\nextern char *getenv(const char *);\nint ext_run(void) { void *p; return cudaMalloc(&p, 16) + cudaGetLastError() + (getenv(\"WP_X\") != 0); }\n",
    )
    .unwrap();
    let Some(lld) = llvm_tool("ld.lld") else {
        return;
    };
    std::fs::create_dir_all(dir.join("lldbin")).unwrap();
    let _ = std::os::unix::fs::symlink(&lld, dir.join("lldbin/ld.lld"));
    sh(&[
        "-shared",
        "-fPIC",
        "-B",
        "lldbin",
        "-fuse-ld=lld",
        "-o",
        "full.so",
        "ext_libc.c",
        "-L.",
        "-l:libcudart.so.12",
    ]);
    let full = dir.join("full.so");
    assert!(full.exists());
    let dynsec = sections(&full)
        .into_iter()
        .find(|s| s.name == ".dynamic")
        .unwrap();
    // readelf -d lists every entry up to and including the DT_NULL.
    assert_eq!(
        dynsec.size / 16,
        dynamic(&full).len() as u64,
        "lld left spare .dynamic slots"
    );
    let data = std::fs::read(&full).unwrap();
    let table = load_builtin("dtk").unwrap();
    // (Its libc version requirement stays, so no DT_VERNEED slot is freed.)
    let (v, _) = readelf(&["-V"], &full);
    assert!(v.contains("GLIBC_2.2.5"), "{v}");
    let r = rewrite_host(
        &wheelport::analyze::analyze(&data, "full.so", "full.so", &Default::default()).unwrap(),
        profile,
        &table,
        &BTreeMap::new(),
        Some(&placement),
        None,
    )
    .unwrap();
    // The shim's DT_NEEDED and the DT_RUNPATH did not fit: .dynamic moved.
    assert!(
        r.report.summary.moved.iter().any(|m| m == ".dynamic"),
        "{:?}",
        r.report.summary
    );
    let new = root.join("pkg/full.so");
    std::fs::write(&new, &r.bytes).unwrap();
    check(&full, &new, &r.report, "libgalaxyhip.so.5");
    for variant in ["versioned", "unversioned"] {
        let rt = stub_for(
            &root.join(format!("full-{variant}")),
            &new,
            "libgalaxyhip.so.5",
            variant == "versioned",
        );
        let (code, _, e) = python_bind_now(
            "import ctypes, sys\nctypes.CDLL(sys.argv[1]).ext_run()\nprint('ok')",
            &[&new],
            &rt,
        );
        assert_eq!(code, 0, "full .dynamic ({variant}): {e}");
    }
}
