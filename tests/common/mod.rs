//! Shared test helpers: finding the real CUDA tools and the corpus.
//!
//! Tools (`cuobjdump`, `ptxas`) are looked up in `$WHEELPORT_CUDA_BIN`, then on `PATH`.
//! `.ci/run` installs them from PyPI. When a tool is missing, [`require_tool`] fails the
//! test under CI (`CI` set) and otherwise prints a loud SKIP line and returns `None`.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

/// The crate root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Find an executable by name.
pub fn find_tool(name: &str) -> Option<PathBuf> {
    if let Ok(dir) = std::env::var("WHEELPORT_CUDA_BIN") {
        let p = Path::new(&dir).join(name);
        if p.is_file() {
            return Some(p);
        }
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

/// Find a tool, or [`missing`].
pub fn require_tool(name: &str, test: &str) -> Option<PathBuf> {
    match find_tool(name) {
        Some(p) => Some(p),
        None => missing(
            test,
            &format!("`{name}` not found (set WHEELPORT_CUDA_BIN or PATH)"),
        ),
    }
}

/// Directories searched for corpus wheels: `$WHEELPORT_CORPUS`, then `../shared/corpus`.
pub fn corpus_dirs() -> Vec<PathBuf> {
    let mut v = Vec::new();
    if let Ok(d) = std::env::var("WHEELPORT_CORPUS") {
        v.push(PathBuf::from(d));
    }
    v.push(root().join("../shared/corpus"));
    v
}

/// A corpus wheel whose file name starts with `prefix`.
pub fn corpus_wheel(prefix: &str) -> Option<PathBuf> {
    for d in corpus_dirs() {
        if let Ok(rd) = std::fs::read_dir(&d) {
            let mut found: Vec<PathBuf> = rd
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| {
                    p.file_name()
                        .and_then(|n| n.to_str())
                        .is_some_and(|n| n.starts_with(prefix) && n.ends_with(".whl"))
                })
                .collect();
            found.sort();
            if let Some(p) = found.into_iter().next() {
                return Some(p);
            }
        }
    }
    None
}

/// A corpus wheel, or fail under CI / skip loudly elsewhere (the big ones come from
/// `../shared/corpus/fetch.sh`, which `.ci/run` runs).
pub fn require_corpus(prefix: &str, test: &str) -> Option<PathBuf> {
    match corpus_wheel(prefix) {
        Some(p) => Some(p),
        None => missing(
            test,
            &format!(
                "corpus wheel {prefix}* not found (set WHEELPORT_CORPUS to fetch.sh's folder)"
            ),
        ),
    }
}

/// Extract the `.so` members of a wheel into `dir`, returning (member name, path).
pub fn extract_shared_objects(wheel: &Path, dir: &Path) -> Vec<(String, PathBuf)> {
    let mut r = wheelport::wheel::WheelReader::open(wheel).expect("open wheel");
    std::fs::create_dir_all(dir).unwrap();
    let mut out = Vec::new();
    for name in r.member_names() {
        if !wheelport::wheel::is_shared_object_name(&name) {
            continue;
        }
        let bytes = r.read_member(&name).expect("read member");
        let p = dir.join(name.replace('/', "__"));
        std::fs::write(&p, bytes).unwrap();
        out.push((name, p));
    }
    out
}

/// Extract the member `name` of `wheel` into `dir` under its file name; returns the path.
pub fn extract_member(wheel: &Path, name: &str, dir: &Path) -> PathBuf {
    let mut r = wheelport::wheel::WheelReader::open(wheel).expect("open wheel");
    let p = dir.join(name.rsplit('/').next().unwrap_or(name));
    std::fs::write(&p, r.read_member(name).expect("read member")).unwrap();
    p
}

/// The fixture `.so` files, sorted.
pub fn fixture_objects() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(root().join("fixtures/cuda"))
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "so"))
        .collect();
    v.sort();
    v
}

/// Path of the built `wheelport` binary.
pub fn bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_wheelport"))
}

/// Run a command and return (exit code, stdout, stderr).
pub fn run(cmd: &mut Command) -> (i32, String, String) {
    let out = cmd.output().expect("spawn");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The one rule for a missing prerequisite: under CI (`CI` set) the test fails, naming
/// what is missing and how CI gets it; elsewhere it prints a loud SKIP line.
pub fn missing<T>(test: &str, what: &str) -> Option<T> {
    if std::env::var_os("CI").is_some() {
        panic!("{test}: {what} (.ci/run installs it)");
    }
    eprintln!("SKIP {test}: {what}");
    None
}

/// The device toolchain of `target` as `wheelport doctor` finds it
/// ([`wheelport::toolchain::discover`]), complete, or [`missing`].
pub fn require_toolchain(
    target: &str,
    test: &str,
) -> Option<(
    &'static wheelport::target::Profile,
    wheelport::toolchain::Toolchain,
)> {
    let p = wheelport::target::profile(target).expect("a built-in profile");
    let tc = wheelport::toolchain::discover(p, &wheelport::toolchain::SearchOptions::from_env());
    if tc.is_complete() {
        Some((p, tc))
    } else {
        missing(
            test,
            &format!("the {target} toolchain is incomplete: {:?}", tc.missing),
        )
    }
}

/// `$WHEELPORT_PYTOOLS` (a `pip --target` folder with installer and uv), or [`missing`].
pub fn require_pytools(test: &str) -> Option<PathBuf> {
    match std::env::var_os("WHEELPORT_PYTOOLS") {
        Some(p) => Some(p.into()),
        None => missing(
            test,
            "WHEELPORT_PYTOOLS not set (a pip --target folder with installer and uv)",
        ),
    }
}

/// An LLVM tool of major version `major`, found as `wheelport doctor` finds tools
/// ([`wheelport::toolchain::find_llvm_tool`]: `PATH` with versioned names, then
/// `/usr/lib/llvm-N/bin`), or [`missing`].
pub fn require_llvm(name: &str, major: u32, test: &str) -> Option<PathBuf> {
    let opts = wheelport::toolchain::SearchOptions::from_env();
    match wheelport::toolchain::find_llvm_tool(name, major, &opts) {
        Some(p) => Some(p),
        None => missing(test, &format!("LLVM {major}'s `{name}` not found")),
    }
}

/// An LLVM 19 tool (the LLVM the device build uses), or [`missing`].
pub fn require_llvm_tool(name: &str, test: &str) -> Option<PathBuf> {
    require_llvm(name, 19, test)
}

/// An LLVM 14 tool (the older LLVM some oracles are checked against), or [`missing`].
pub fn llvm_tool(name: &str) -> Option<PathBuf> {
    require_llvm(name, 14, "llvm_tool")
}

/// A real AMDGPU code object for `arch` (one empty kernel `_Z5saxpyifPKfPf`), built with
/// `llc-14` and `ld.lld-14` in `dir`; `None` when the tools are missing outside CI.
pub fn amdgpu_code_object(dir: &Path, arch: &str) -> Option<Vec<u8>> {
    let llc = llvm_tool("llc")?;
    let lld = llvm_tool("ld.lld")?;
    let ll = dir.join("k.ll");
    std::fs::write(
        &ll,
        "target triple = \"amdgcn-amd-amdhsa\"\ndefine amdgpu_kernel void @_Z5saxpyifPKfPf(i32 %n, float %a, float addrspace(1)* %x, float addrspace(1)* %y) {\n  ret void\n}\n",
    )
    .unwrap();
    let obj = dir.join(format!("k-{arch}.o"));
    let co = dir.join(format!("k-{arch}.co"));
    let (c, _, e) = run(Command::new(&llc)
        .args([
            "-mtriple=amdgcn-amd-amdhsa",
            &format!("-mcpu={arch}"),
            "-filetype=obj",
        ])
        .arg(&ll)
        .arg("-o")
        .arg(&obj));
    assert_eq!(c, 0, "{e}");
    let (c, _, e) = run(Command::new(&lld)
        .arg("-shared")
        .arg(&obj)
        .arg("-o")
        .arg(&co));
    assert_eq!(c, 0, "{e}");
    Some(std::fs::read(co).unwrap())
}

/// Build `c_src` with gcc into `dir/rt/<soname>` (a stub runtime library); returns `dir/rt`.
pub fn stub_runtime(dir: &Path, soname: &str, c_src: &str) -> PathBuf {
    let rt = dir.join("rt");
    std::fs::create_dir_all(&rt).unwrap();
    std::fs::write(rt.join("stub.c"), c_src).unwrap();
    let (code, _, e) = run(Command::new("gcc")
        .args([
            "-shared",
            "-fPIC",
            &format!("-Wl,-soname,{soname}"),
            "-o",
            soname,
            "stub.c",
        ])
        .current_dir(&rt));
    assert_eq!(code, 0, "{e}");
    rt
}

/// Run a Python snippet with `args`, `LD_BIND_NOW=1` and `LD_LIBRARY_PATH=libdir`.
pub fn python_bind_now(code: &str, args: &[&Path], libdir: &Path) -> (i32, String, String) {
    run(Command::new("python3")
        .arg("-c")
        .arg(code)
        .args(args)
        .env("LD_BIND_NOW", "1")
        .env("LD_LIBRARY_PATH", libdir))
}

/// An LLVM 19 tool (`/usr/lib/llvm-19/bin/NAME`, Debian's `llvm-19`/`lld-19`/`clang-19`
/// packages, or `NAME-19` on PATH); fails under CI and skips loudly elsewhere when missing.
pub fn llvm19_tool(name: &str) -> Option<PathBuf> {
    let p = PathBuf::from("/usr/lib/llvm-19/bin").join(name);
    if p.is_file() {
        return Some(p);
    }
    find_tool(&format!("{name}-19")).or_else(|| require_tool(&format!("{name}-19"), "llvm19_tool"))
}

/// The JSON document at `p` (panics naming the file when it cannot be read or parsed).
pub fn read_json(p: &Path) -> serde_json::Value {
    serde_json::from_str(
        &std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display())),
    )
    .unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// The SHA-256 of `data`, as lowercase hex.
pub fn sha256_hex(data: &[u8]) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(data)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The SHA-256 of the file at `p`, as lowercase hex.
pub fn sha256_file(p: &Path) -> String {
    sha256_hex(&std::fs::read(p).unwrap_or_else(|e| panic!("{}: {e}", p.display())))
}

/// The bytes of an input a GPU record names: `wheel.whl!member` (the wheel from the corpus,
/// see [`require_corpus`]; `None` when it is not here) or a repository path.
pub fn recorded_input_bytes(path: &str, test: &str) -> Option<Vec<u8>> {
    match path.split_once('!') {
        Some((wheel, member)) => {
            let w = require_corpus(wheel, test)?;
            let mut r = wheelport::wheel::WheelReader::open(&w).expect("open wheel");
            Some(r.read_member(member).expect("read member"))
        }
        None => Some(std::fs::read(root().join(path)).expect("read input")),
    }
}
