//! Fuzz the wheel reader: the archive open (member-name checks), the audit (duplicates,
//! overlapping members, declared sizes, the `.dist-info`, RECORD parsing) and, for archives
//! the audit accepts, every member read and its RECORD row checked, and the wheel's metadata.
#![no_main]
use libfuzzer_sys::fuzz_target;
use std::io::Write;

fuzz_target!(|data: &[u8]| {
    // WheelReader maps a file: the input goes through one in memory-backed /dev/shm when there.
    let dir = if std::path::Path::new("/dev/shm").is_dir() { "/dev/shm" } else { "/tmp" };
    let mut f = tempfile::Builder::new().suffix(".whl").tempfile_in(dir).unwrap();
    f.write_all(data).unwrap();
    f.flush().unwrap();
    let Ok(mut w) = wheelport::wheel::WheelReader::open(f.path()) else {
        return;
    };
    let _ = w.info();
    let Ok(audit) = wheelport::wheel::audit::audit_reader(&w) else {
        return;
    };
    for name in w.member_names() {
        if let Ok(bytes) = w.read_member(&name) {
            if let Some(row) = audit.record.get(&name) {
                use sha2::Digest;
                let sha256 = sha2::Sha256::digest(&bytes);
                let other = row.needs().map(|a| a.digest(&bytes));
                let _ = row.check(&sha256, other.as_deref(), bytes.len() as u64);
            }
        }
    }
});
