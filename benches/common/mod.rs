//! Shared by the benches: finding the corpus wheels.

use std::path::PathBuf;

/// The corpus folder: `$WHEELPORT_CORPUS` (what `../shared/corpus/fetch.sh` fills), else
/// `../shared/corpus`.
pub fn corpus_dir() -> PathBuf {
    PathBuf::from(std::env::var("WHEELPORT_CORPUS").unwrap_or_else(|_| "../shared/corpus".into()))
}

/// The first corpus wheel whose file name starts with `prefix`, or a SKIP line.
pub fn corpus_wheel(prefix: &str) -> Option<PathBuf> {
    let dir = corpus_dir();
    let found = std::fs::read_dir(&dir).ok().and_then(|rd| {
        rd.filter_map(|e| e.ok().map(|e| e.path())).find(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with(prefix))
        })
    });
    if found.is_none() {
        eprintln!("SKIP: no {prefix}* wheel in {}", dir.display());
    }
    found
}

/// CPU time of the calling thread in seconds (`CLOCK_THREAD_CPUTIME_ID`).
#[allow(dead_code)] // not every bench times a single thread
pub fn thread_cpu_s() -> f64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
}
