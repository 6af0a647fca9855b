//! The fixture runner: the GPU fixtures' case tables (`fixtures/gpu/*cases.json`) executed
//! from wheelport-built code objects and compared, output by output, with the SHA-256 of the
//! original CUDA binary's output on the H200 (`fixtures/gpu/results/*.json`,
//! `orig_sha256`).
//!
//! Inputs come from the GPU harness itself (`tools/gpu/harness.py`, run with `python3`), so
//! both sides see the same bytes. Each case is launched as its host launcher in
//! `fixtures/gpu/src/*.cu` launches it (see [`plan`]): the case's buffers in table order,
//! then `int n`, on the case's grid and block with its dynamic shared memory; four launchers
//! do something else and are spelled out in [`plan`].
//!
//! Verdicts ([`Verdict`]): an output whose SHA-256 equals the H200's is a match. For the
//! others, a float-typed output whose NaNs, all set to one NaN pattern, give the H200's
//! SHA-256 is a match but for NaN payloads ([`Verdict::NanPayload`]; the pattern is named).
//! An output the case table compares within K ulp (`.approx` instructions) that does not
//! hash equal cannot be judged from a hash: [`Verdict::UlpUnverified`], never a pass.

use crate::elf::{bundle_entries, section_bytes, CodeObject};
use crate::exec::{Launch, Limits, Machine, Stats};
use crate::printf;
use crate::Error;
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

/// The comparison rule of an output (the case table's `cmp`).
#[derive(Debug, Clone, PartialEq)]
pub enum Rule {
    /// Bytes equal.
    Exact,
    /// Float elements within K ulp.
    Ulp(u32),
    /// Exact except the named columns (of rows of `stride` elements) within K ulp.
    ExactExceptCols {
        /// K.
        ulp: u32,
        /// Elements per row.
        stride: usize,
        /// The columns compared within K ulp.
        cols: Vec<usize>,
    },
    /// Device printf lines, compared sorted (blocks print in any order).
    LinesSorted,
}

/// One buffer of a job.
#[derive(Debug, Clone)]
pub struct Buffer {
    /// Buffer name.
    pub name: String,
    /// `in`, `out` or `inout`.
    pub role: String,
    /// Element type (`i32`, `f32`, ...).
    pub ty: String,
    /// The initial bytes (generated inputs, or the output's initial pattern).
    pub bytes: Vec<u8>,
    /// The comparison rule.
    pub rule: Rule,
}

/// One case on one seed.
#[derive(Debug, Clone)]
pub struct Job {
    /// Case name.
    pub case: String,
    /// Case family.
    pub family: String,
    /// The host launcher (`wp_<name>`).
    pub launcher: String,
    /// The case's entries (may be empty: then another case with the same launcher names
    /// them).
    pub entries: Vec<String>,
    /// The seed.
    pub seed: u64,
    /// The element count `n`.
    pub n: u32,
    /// Grid (work-groups).
    pub grid: [u32; 3],
    /// Block (work-items).
    pub block: [u32; 3],
    /// Dynamic LDS bytes.
    pub dyn_lds: u32,
    /// Whether the case compares device printf output.
    pub stdout: bool,
    /// Buffers in case-table order.
    pub bufs: Vec<Buffer>,
}

fn rule_of(b: &Value) -> Rule {
    match b.get("cmp") {
        Some(Value::String(s)) if s == "lines_sorted" => Rule::LinesSorted,
        Some(Value::Object(o)) if o.contains_key("ulp") => {
            Rule::Ulp(o["ulp"].as_u64().unwrap_or(0) as u32)
        }
        Some(Value::Object(o)) if o.contains_key("approx_cols") => {
            let a = &o["approx_cols"];
            Rule::ExactExceptCols {
                ulp: a["ulp"].as_u64().unwrap_or(0) as u32,
                stride: a["stride"].as_u64().unwrap_or(1) as usize,
                cols: a["cols"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|c| c.as_u64().map(|c| c as usize))
                    .collect(),
            }
        }
        _ => Rule::Exact,
    }
}

const HARNESS_SCRIPT: &str = r#"
import json, os, sys
sys.path.insert(0, sys.argv[1])
import harness as h
t = h.load_cases(sys.argv[2])
out = sys.argv[3]
only = sys.argv[4].split(',') if sys.argv[4] else None
seeds = [int(s) for s in sys.argv[5].split(',')] if sys.argv[5] else t['seeds']
man = []
for c in t['cases']:
    if only and c['name'] not in only:
        continue
    n, grid, block, dyn = h.shape_of(c)
    for s in seeds:
        bufs = []
        for b in c['buffers']:
            d = h.buffer_bytes(c, b, s)
            p = os.path.join(out, '%s.s%d.%s.bin' % (c['name'], s, b['name']))
            open(p, 'wb').write(d)
            bufs.append({'name': b['name'], 'role': b['role'], 'type': b['type'], 'path': p,
                         'cmp': b.get('cmp')})
        man.append({'case': c['name'], 'family': c.get('family', ''), 'launcher': c['launcher'],
                    'entries': c['entries'], 'seed': s, 'n': n, 'grid': grid, 'block': block,
                    'dyn': dyn, 'stdout': bool(c.get('stdout')), 'bufs': bufs})
print(json.dumps(man))
"#;

/// The jobs of case table `cases` (a path), generated by the GPU harness
/// (`harness_dir/harness.py`) with `python`; `only` restricts the cases (comma-separated
/// names), `seeds` the seeds (default: the table's). Buffer files go to `scratch`.
///
/// # Errors
/// When python or the harness fails, or its output does not parse.
pub fn harness_jobs(
    python: &Path,
    harness_dir: &Path,
    cases: &Path,
    scratch: &Path,
    only: Option<&str>,
    seeds: Option<&str>,
) -> Result<Vec<Job>, Error> {
    std::fs::create_dir_all(scratch)
        .map_err(|e| Error::new(format!("{}: {e}", scratch.display())))?;
    let out = Command::new(python)
        .arg("-c")
        .arg(HARNESS_SCRIPT)
        .arg(harness_dir)
        .arg(cases)
        .arg(scratch)
        .arg(only.unwrap_or(""))
        .arg(seeds.unwrap_or(""))
        .output()
        .map_err(|e| Error::new(format!("{}: {e}", python.display())))?;
    if !out.status.success() {
        return Err(Error::new(format!(
            "the GPU harness failed on {}: {}",
            cases.display(),
            String::from_utf8_lossy(&out.stderr)
        )));
    }
    let man: Value = serde_json::from_slice(&out.stdout)
        .map_err(|e| Error::new(format!("the GPU harness's manifest does not parse: {e}")))?;
    let arr = |v: &Value| -> [u32; 3] {
        let g = |k: usize| v.get(k).and_then(Value::as_u64).unwrap_or(1) as u32;
        [g(0), g(1), g(2)]
    };
    let mut jobs = Vec::new();
    for j in man.as_array().into_iter().flatten() {
        let mut bufs = Vec::new();
        for b in j["bufs"].as_array().into_iter().flatten() {
            let p = b["path"].as_str().unwrap_or_default();
            let bytes = std::fs::read(p).map_err(|e| Error::new(format!("{p}: {e}")))?;
            let _ = std::fs::remove_file(p);
            bufs.push(Buffer {
                name: b["name"].as_str().unwrap_or_default().to_string(),
                role: b["role"].as_str().unwrap_or_default().to_string(),
                ty: b["type"].as_str().unwrap_or_default().to_string(),
                bytes,
                rule: rule_of(b),
            });
        }
        jobs.push(Job {
            case: j["case"].as_str().unwrap_or_default().to_string(),
            family: j["family"].as_str().unwrap_or_default().to_string(),
            launcher: j["launcher"].as_str().unwrap_or_default().to_string(),
            entries: j["entries"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|e| e.as_str().map(String::from))
                .collect(),
            seed: j["seed"].as_u64().unwrap_or(0),
            n: j["n"].as_u64().unwrap_or(0) as u32,
            grid: arr(&j["grid"]),
            block: arr(&j["block"]),
            dyn_lds: j["dyn"].as_u64().unwrap_or(0) as u32,
            stdout: j["stdout"].as_bool().unwrap_or(false),
            bufs,
        });
    }
    Ok(jobs)
}

/// A kernel argument of a launch.
#[derive(Debug, Clone, PartialEq)]
pub enum Arg {
    /// The device address of the job's buffer `k`.
    Buf(usize),
    /// The job's `n` (`int`).
    N,
    /// A 32-bit integer.
    I32(i32),
    /// A float.
    F32(f32),
    /// A double.
    F64(f64),
    /// `fixtures/gpu/src/mem.cu`'s `struct Params` by value, pointing at buffers 0 and 1.
    Params,
}

/// One kernel launch of a case.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    /// The kernel's symbol.
    pub kernel: String,
    /// Its arguments.
    pub args: Vec<Arg>,
    /// Grid and block (the case's when `None`).
    pub shape: Option<([u32; 3], [u32; 3])>,
    /// Buffers the launcher copies into module variables before the launch
    /// (`cudaMemcpyToSymbol`): (buffer index, variable symbol).
    pub symbols: Vec<(usize, &'static str)>,
}

/// The launches of `job`, as its host launcher in `fixtures/gpu/src/*.cu` makes them;
/// `entry_of` names the entry of launchers whose case lists none (another case of the same
/// launcher lists it).
///
/// The launchers that are not "one launch of the case's entry with the buffers in order
/// and then `n`":
/// * `wp_atomic_exch_cas` (atomic.cu): `k_atomic_exch_cas(b0..b4, n)`, then
///   `k_atomic_exch_fold<<<1, 32>>>(b1, b2)`;
/// * `wp_axpby` (ctrl.cu): `axpby<float>(1.5f, b0, -0.75f, b1, n)`,
///   `axpby<double>(-2.0 / 3.0, b2, 0.1, b3, n)`, `axpby<int>(3, b4, -7, b5, n)`;
/// * `wp_struct_param` (mem.cu): `k_struct_param(Params{1/3, -2.5f, -7, 300,
///   {-17, -7, 3, 13, 23}, b0, b1, 0x123456789abc}, n)`;
/// * `wp_sreg_3d` (sync.cu): `k_sreg_3d(b0)`;
/// * `wp_const_symbol` (mem.cu): b4 copied to `c_poly` and b5 to `c_shift`, then
///   `k_const_symbol(b0..b3, n)`.
pub fn plan(job: &Job, entry_of: &dyn Fn(&str) -> Option<String>) -> Result<Vec<Plan>, Error> {
    let bufs_n = |k: usize| -> Vec<Arg> {
        let mut a: Vec<Arg> = (0..k).map(Arg::Buf).collect();
        a.push(Arg::N);
        a
    };
    let entry = |k: usize| -> Result<String, Error> {
        job.entries
            .get(k)
            .cloned()
            .or_else(|| {
                if k == 0 {
                    entry_of(&job.launcher)
                } else {
                    None
                }
            })
            .ok_or_else(|| {
                Error::new(format!(
                    "{}: no entry for launcher {}",
                    job.case, job.launcher
                ))
            })
    };
    Ok(match job.launcher.as_str() {
        "wp_atomic_exch_cas" => vec![
            Plan {
                kernel: entry(0)?,
                args: bufs_n(5),
                shape: None,
                symbols: vec![],
            },
            Plan {
                kernel: entry(1)?,
                args: vec![Arg::Buf(1), Arg::Buf(2)],
                shape: Some(([1, 1, 1], [32, 1, 1])),
                symbols: vec![],
            },
        ],
        "wp_axpby" => vec![
            Plan {
                kernel: entry(0)?,
                args: vec![
                    Arg::F32(1.5),
                    Arg::Buf(0),
                    Arg::F32(-0.75),
                    Arg::Buf(1),
                    Arg::N,
                ],
                shape: None,
                symbols: vec![],
            },
            Plan {
                kernel: entry(1)?,
                args: vec![
                    Arg::F64(-2.0 / 3.0),
                    Arg::Buf(2),
                    Arg::F64(0.1),
                    Arg::Buf(3),
                    Arg::N,
                ],
                shape: None,
                symbols: vec![],
            },
            Plan {
                kernel: entry(2)?,
                args: vec![Arg::I32(3), Arg::Buf(4), Arg::I32(-7), Arg::Buf(5), Arg::N],
                shape: None,
                symbols: vec![],
            },
        ],
        "wp_struct_param" => vec![Plan {
            kernel: entry(0)?,
            args: vec![Arg::Params, Arg::N],
            shape: None,
            symbols: vec![],
        }],
        "wp_const_symbol" => vec![Plan {
            kernel: entry(0)?,
            args: bufs_n(4),
            shape: None,
            symbols: vec![(4, "c_poly"), (5, "c_shift")],
        }],
        "wp_sreg_3d" => vec![Plan {
            kernel: entry(0)?,
            args: vec![Arg::Buf(0)],
            shape: None,
            symbols: vec![],
        }],
        _ => vec![Plan {
            kernel: entry(0)?,
            args: bufs_n(job.bufs.len()),
            shape: None,
            symbols: vec![],
        }],
    })
}

/// How one output compared.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// SHA-256 equal to the H200's.
    Match,
    /// Equal once every NaN element is set to the named pattern (the H200 wrote NaNs with
    /// another payload or sign).
    NanPayload(String),
    /// A `ulp` output that does not hash equal: not judged (raw H200 data needed).
    UlpUnverified,
    /// Differs.
    Differs,
    /// Differs, and depends on the exact results of the hardware's approximation
    /// instructions (it changes when they move by 1 ulp): the columns named. The PTX
    /// `.approx` forms behind them are defined by error bounds only.
    Approx(String),
    /// No H200 record for this output.
    NoRecord,
    /// Compared element by element with the H200's raw output bytes ([`Options::raw`]),
    /// after one of the verdicts above that is not a match: `cols` lists the columns whose
    /// elements differ (two NaNs count as equal, as in the harness), `max` is the largest
    /// distance there in units in the last place. `within`: the case table's rule holds
    /// (every differing element in a column the rule compares within K ulp, and at most K
    /// apart), which is what the H200 twin run itself checks. `approx`: the columns that
    /// move with the approximation instructions ([`Verdict::Approx`]), when they do. (When
    /// only NaNs differ, the verdict is [`Verdict::NanPayload`] instead.)
    Ulp {
        /// Differing columns, comma-separated.
        cols: String,
        /// Largest distance in ulp (`u64::MAX`: a NaN against a number).
        max: u64,
        /// The case table's rule holds.
        within: bool,
        /// The columns that depend on approximations.
        approx: Option<String>,
        /// binary32 outputs with their columns' functions in the raw folder's `exact.json`:
        /// the elements beyond the table's K ulp against the exact value.
        accuracy: Option<crate::accuracy::Judgement>,
    },
}

impl Verdict {
    /// A short name for tables.
    pub fn label(&self) -> String {
        match self {
            Verdict::Match => "match".into(),
            Verdict::NanPayload(p) => format!("match-but-NaN-payload({p})"),
            Verdict::UlpUnverified => "ulp-unverified".into(),
            Verdict::Differs => "differs".into(),
            Verdict::Approx(c) => format!("differs-depends-on-approximations(columns {c})"),
            Verdict::NoRecord => "no-H200-record".into(),
            Verdict::Ulp {
                cols,
                max,
                within: true,
                ..
            } => format!("within-ulp(columns {cols}: at most {max} ulp from the H200's bytes)"),
            Verdict::Ulp {
                cols,
                accuracy: Some(j),
                ..
            } if j.worse == 0 => format!(
                "as-accurate(columns {cols}: {} elements more than {} ulp from the H200's bytes, {} as close to the exact value as the H200's or closer, {} within their function's documented ulp bound, {} not judged: input outside the function's judged domain)",
                j.beyond, j.k, j.as_accurate, j.within_bound, j.outside
            ),
            Verdict::Ulp {
                cols,
                accuracy: Some(j),
                ..
            } => format!(
                "less-accurate(columns {cols}: {} of {} elements more than {} ulp from the H200's bytes farther from the exact value than the H200's)",
                j.worse, j.beyond, j.k
            ),
            Verdict::Ulp {
                cols,
                max,
                approx: Some(a),
                ..
            } => format!(
                "differs-depends-on-approximations(columns {a}; the H200's bytes: columns {cols} differ, at most {} ulp)",
                ulp_text(*max)
            ),
            Verdict::Ulp { cols, max, .. } => format!(
                "differs-by-ulp(columns {cols}: at most {} ulp from the H200's bytes)",
                ulp_text(*max)
            ),
        }
    }
}

/// One output of one job.
#[derive(Debug, Clone)]
pub struct OutputResult {
    /// Output name.
    pub name: String,
    /// Element type.
    pub ty: String,
    /// SHA-256 of the interpreter's bytes.
    pub sha256: String,
    /// SHA-256 the original binary gave on the H200.
    pub orig_sha256: Option<String>,
    /// The verdict.
    pub verdict: Verdict,
    /// The bytes (kept for triage).
    pub bytes: Vec<u8>,
}

/// One job's result.
#[derive(Debug, Clone)]
pub struct JobResult {
    /// Case.
    pub case: String,
    /// Family.
    pub family: String,
    /// Seed.
    pub seed: u64,
    /// The interpreter's error, if the job did not run to the end.
    pub error: Option<String>,
    /// Outputs (empty on error).
    pub outputs: Vec<OutputResult>,
    /// Counters.
    pub stats: Stats,
    /// Seconds of wall time.
    pub seconds: f64,
}

/// The code objects of a host `.so` that wheelport converted (its `.hip_fatbin` bundles)
/// or of a code object file, for processor `arch` (e.g. `gfx906`).
///
/// # Errors
/// An unreadable file, no `.hip_fatbin`, no entry for `arch`, or a code object that does
/// not load.
pub fn load_objects(path: &Path, arch: &str) -> Result<Vec<CodeObject>, Error> {
    let data = std::fs::read(path).map_err(|e| Error::new(format!("{}: {e}", path.display())))?;
    if data.get(18..20) == Some(&[224, 0]) {
        return Ok(vec![
            CodeObject::parse(&data).map_err(|e| Error::new(format!("{}: {e}", path.display())))?
        ]);
    }
    let sec = section_bytes(&data, ".hip_fatbin")
        .map_err(|e| Error::new(format!("{}: {e}", path.display())))?
        .ok_or_else(|| Error::new(format!("{}: no .hip_fatbin section", path.display())))?;
    let want = format!("hipv4-amdgcn-amd-amdhsa--{arch}");
    let mut out = Vec::new();
    for (k, id, bytes) in bundle_entries(sec)? {
        if id == want {
            out.push(
                CodeObject::parse(&bytes).map_err(|e| {
                    Error::new(format!("{}: bundle {k} ({id}): {e}", path.display()))
                })?,
            );
        }
    }
    if out.is_empty() {
        return Err(Error::new(format!(
            "{}: the .hip_fatbin has no {want} code object",
            path.display()
        )));
    }
    Ok(out)
}

/// The H200 SHA-256 of output `name` of `case` on `seed` in a results file.
pub fn orig_sha256(results: &Value, case: &str, seed: u64, name: &str) -> Option<String> {
    let k = results["kernels"]
        .as_array()?
        .iter()
        .find(|k| k["case"] == case)?;
    let s = k["seeds"].as_array()?.iter().find(|s| s["seed"] == seed)?;
    let o = s["outputs"]
        .as_array()?
        .iter()
        .find(|o| o["name"] == name)?;
    o["orig_sha256"].as_str().map(String::from)
}

fn hex(d: &[u8]) -> String {
    d.iter().map(|b| format!("{b:02x}")).collect()
}

/// SHA-256 of `b`, lower-case hex.
pub fn sha256(b: &[u8]) -> String {
    hex(&Sha256::digest(b))
}

/// A float lane of an output element: its byte offset in the element and its format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lane {
    /// binary16 at the byte offset.
    F16(usize),
    /// bfloat16 at the byte offset.
    Bf16(usize),
    /// binary32 at the byte offset.
    F32(usize),
    /// binary64 at the byte offset.
    F64(usize),
}

impl Lane {
    fn at(self) -> (usize, usize) {
        match self {
            Lane::F16(o) | Lane::Bf16(o) => (o, 2),
            Lane::F32(o) => (o, 4),
            Lane::F64(o) => (o, 8),
        }
    }
    fn is_nan(self, x: u64) -> bool {
        match self {
            Lane::F16(_) => x & 0x7c00 == 0x7c00 && x & 0x3ff != 0,
            Lane::Bf16(_) => x & 0x7f80 == 0x7f80 && x & 0x7f != 0,
            Lane::F32(_) => x & 0x7f80_0000 == 0x7f80_0000 && x & 0x7f_ffff != 0,
            Lane::F64(_) => {
                x & 0x7ff0_0000_0000_0000 == 0x7ff0_0000_0000_0000 && x & 0xf_ffff_ffff_ffff != 0
            }
        }
    }
}

/// The NaN patterns tried, per width (2, 4, 8 bytes), named by the 32-bit form: NVIDIA's
/// canonical NaN (all payload bits set, positive) first.
const NAN_PATTERNS: &[(&str, [u64; 3])] = &[
    ("0x7fffffff", [0x7fff, 0x7fff_ffff, 0x7fff_ffff_ffff_ffff]),
    ("0x7fc00000", [0x7e00, 0x7fc0_0000, 0x7ff8_0000_0000_0000]),
    ("0xffc00000", [0xfe00, 0xffc0_0000, 0xfff8_0000_0000_0000]),
    ("0xffffffff", [0xffff, 0xffff_ffff, 0xffff_ffff_ffff_ffff]),
];

/// The float lanes of each column of an output: the case table's float type for every
/// column, or, for integer-typed outputs that hold floats (conversion results, packed
/// pairs), the formats the kernels in `fixtures/gpu/src/*.cu` write there.
pub fn float_view(case: &str, buffer: &str, ty: &str, cols: usize) -> Option<Vec<Vec<Lane>>> {
    let one = |l: Lane| Some(vec![vec![l]; cols]);
    match ty {
        "f16" => return one(Lane::F16(0)),
        "bf16" => return one(Lane::Bf16(0)),
        "f32" => return one(Lane::F32(0)),
        "f64" => return one(Lane::F64(0)),
        _ => {}
    }
    let (h, b) = (Lane::F16(0), Lane::Bf16(0));
    match (case, buffer) {
        // k_cvt_half (cvt.cu): q[0..3] f16, q[4..7] bf16, q[8] f16, q[9] bf16, q[10..11] f16
        ("cvt_half" | "cvt_half_bf16", "o") if cols == 12 => Some(
            [h, h, h, h, b, b, b, b, h, b, h, h]
                .iter()
                .map(|l| vec![*l])
                .collect(),
        ),
        // k_cvt_pack (cvt.cu): q[3..5], q[13] f16x2, q[6..7] bf16x2, q[8] tf32 (f32 bits)
        ("cvt_pack" | "cvt_pack_edges", "o") if cols == 14 => Some(
            (0..14)
                .map(|c| match c {
                    3 | 4 | 5 | 13 => vec![Lane::F16(0), Lane::F16(2)],
                    6 | 7 => vec![Lane::Bf16(0), Lane::Bf16(2)],
                    8 => vec![Lane::F32(0)],
                    _ => vec![],
                })
                .collect(),
        ),
        _ => None,
    }
}

/// The NaN pattern and the columns whose NaN lanes, all set to that pattern (in each
/// lane's width), make `bytes` (elements of `width` bytes, `view` per column) hash to
/// `want`, if there are such. Every NaN column at once is tried first (an output computed
/// by arithmetic throughout), then the subsets of the first 10 columns that hold NaNs,
/// smallest first: data movement keeps a NaN's payload where arithmetic on the H200 gives
/// its canonical NaN, so only some columns may differ.
pub fn nan_match(bytes: &[u8], width: usize, view: &[Vec<Lane>], want: &str) -> Option<String> {
    let cols = view.len().max(1);
    let row = width * cols;
    if width == 0 || !bytes.len().is_multiple_of(row) {
        return None;
    }
    let get = |b: &[u8], o: usize, w: usize| -> u64 {
        let mut v = [0u8; 8];
        v[..w].copy_from_slice(&b[o..o + w]);
        u64::from_le_bytes(v)
    };
    // (column, byte offset) of every NaN lane
    let mut nans: Vec<(usize, usize, usize)> = Vec::new();
    for r in 0..bytes.len() / row {
        for (c, lanes) in view.iter().enumerate() {
            for l in lanes {
                let (o, w) = l.at();
                let off = r * row + c * width + o;
                if l.is_nan(get(bytes, off, w)) {
                    nans.push((c, off, w));
                }
            }
        }
    }
    if nans.is_empty() {
        return None;
    }
    let mut nan_cols: Vec<usize> = nans.iter().map(|n| n.0).collect();
    nan_cols.sort();
    nan_cols.dedup();
    let every = nan_cols.clone();
    nan_cols.truncate(10);
    let k = nan_cols.len();
    let mut subsets: Vec<Vec<usize>> = vec![every.clone()];
    let mut masks: Vec<u32> = (1..(1u32 << k)).collect();
    masks.sort_by_key(|m| m.count_ones());
    for m in masks {
        let s: Vec<usize> = (0..k)
            .filter(|j| m >> j & 1 != 0)
            .map(|j| nan_cols[j])
            .collect();
        if s != every {
            subsets.push(s);
        }
    }
    for (name, pat) in NAN_PATTERNS {
        for (si, s) in subsets.iter().enumerate() {
            let mut b = bytes.to_vec();
            for &(c, off, w) in &nans {
                if s.contains(&c) {
                    let p = pat[match w {
                        2 => 0,
                        4 => 1,
                        _ => 2,
                    }];
                    b[off..off + w].copy_from_slice(&p.to_le_bytes()[..w]);
                }
            }
            if sha256(&b) == want {
                return Some(if si == 0 || cols == 1 {
                    (*name).to_string()
                } else {
                    let list: Vec<String> = s.iter().map(|c| c.to_string()).collect();
                    format!("{name} in columns {}", list.join(","))
                });
            }
        }
    }
    None
}

/// Options of [`run_job`].
#[derive(Debug, Clone, Copy, Default)]
pub struct Options<'a> {
    /// Dispatch limits.
    pub limits: Limits,
    /// A folder of the H200's raw output bytes (`fixtures/gpu/results/raw`):
    /// `<case>.s<seed>.<output>.bin.zst`, zstd-compressed, whose SHA-256 must be the results
    /// file's `orig_sha256` (else the job ends with an error). An output that does not match
    /// and has such a file is compared with it element by element ([`Verdict::Ulp`]).
    pub raw: Option<&'a Path>,
}

fn ulp_text(m: u64) -> String {
    if m == u64::MAX {
        "NaN-vs-number".into()
    } else {
        m.to_string()
    }
}

/// The H200's raw bytes of one output ([`Options::raw`]), checked against `want`.
///
/// # Errors
/// A file that does not decompress or whose SHA-256 is not `want`.
pub fn raw_output(
    dir: &Path,
    case: &str,
    seed: u64,
    name: &str,
    want: &str,
) -> Result<Option<Vec<u8>>, String> {
    let p = dir.join(format!("{case}.s{seed}.{name}.bin.zst"));
    let Ok(f) = std::fs::File::open(&p) else {
        return Ok(None);
    };
    let b = zstd::decode_all(f).map_err(|e| format!("{}: {e}", p.display()))?;
    if sha256(&b) != want {
        return Err(format!(
            "{}: SHA-256 {} is not the results file's {want}",
            p.display(),
            sha256(&b)
        ));
    }
    Ok(Some(b))
}

/// The distance in ulp of two floats of `bits` bits (16, 32, 64) given as raw bits: 0 for
/// equal bits and for two NaNs, `u64::MAX` for a NaN against a number, else the number of
/// representable values between them (+0 and -0 are 0 apart).
pub fn ulp_distance(a: u64, b: u64, bits: u32) -> u64 {
    let (exp_bits, man_bits) = match bits {
        16 => (5, 10),
        32 => (8, 23),
        _ => (11, 52),
    };
    let is_nan = |x: u64| {
        let e = (x >> man_bits) & ((1 << exp_bits) - 1);
        e == (1 << exp_bits) - 1 && x & ((1u64 << man_bits) - 1) != 0
    };
    match (is_nan(a), is_nan(b)) {
        (true, true) => return 0,
        (false, false) => {}
        _ => return u64::MAX,
    }
    let key = |x: u64| -> i128 {
        let mag = (x & ((1u64 << (bits - 1)) - 1)) as i128;
        if x >> (bits - 1) & 1 != 0 {
            -mag
        } else {
            mag
        }
    };
    (key(a) - key(b)).unsigned_abs() as u64
}

/// bfloat16 distances: the bits widened to binary32 (same exponent range, fewer fraction
/// bits; the distance counts bfloat16 steps).
fn ulp_distance_bf16(a: u64, b: u64) -> u64 {
    let d = ulp_distance(a << 16, b << 16, 32);
    if d == u64::MAX {
        d
    } else {
        d >> 16
    }
}

/// Element-by-element comparison of `ours` with the H200's `h200` bytes of a float output:
/// the columns (of rows of `cols` elements) that differ and the largest distance; `None`
/// for non-float types or different lengths.
fn compare_raw(ours: &[u8], h200: &[u8], ty: &str, cols: usize) -> Option<(Vec<usize>, u64)> {
    let w = elem_width(ty);
    if ours.len() != h200.len() || !matches!(ty, "f16" | "bf16" | "f32" | "f64") {
        return None;
    }
    let get = |b: &[u8]| {
        let mut v = [0u8; 8];
        v[..w].copy_from_slice(b);
        u64::from_le_bytes(v)
    };
    let (mut diff, mut max) = (Vec::new(), 0u64);
    for (e, (x, y)) in ours.chunks(w).zip(h200.chunks(w)).enumerate() {
        let (x, y) = (get(x), get(y));
        let d = match ty {
            "bf16" => ulp_distance_bf16(x, y),
            _ => ulp_distance(x, y, 8 * w as u32),
        };
        if d != 0 {
            max = max.max(d);
            if !diff.contains(&(e % cols)) {
                diff.push(e % cols);
            }
        }
    }
    diff.sort();
    Some((diff, max))
}

/// Run one job on the code objects `machines` (the kernel is looked up in each) and compare
/// its outputs with `results` (an H200 results file).
pub fn run_job(
    machines: &mut [Machine],
    job: &Job,
    entry_of: &dyn Fn(&str) -> Option<String>,
    results: &Value,
    opts: Options,
) -> JobResult {
    let t0 = Instant::now();
    let mut res = JobResult {
        case: job.case.clone(),
        family: job.family.clone(),
        seed: job.seed,
        error: None,
        outputs: Vec::new(),
        stats: Stats::default(),
        seconds: 0.0,
    };
    match execute(machines, job, entry_of, opts) {
        Err(e) => res.error = Some(e.msg),
        Ok((outs, stats, printed)) => {
            res.stats = stats;
            for (b, bytes) in job.bufs.iter().zip(outs) {
                if b.role == "in" {
                    continue;
                }
                let sha = sha256(&bytes);
                let orig = orig_sha256(results, &job.case, job.seed, &b.name);
                let verdict = match &orig {
                    None => Verdict::NoRecord,
                    Some(o) if *o == sha => Verdict::Match,
                    Some(o) => match float_view(&job.case, &b.name, &b.ty, columns(job, b))
                        .and_then(|v| nan_match(&bytes, elem_width(&b.ty), &v, o))
                    {
                        Some(p) => Verdict::NanPayload(p),
                        None if matches!(b.rule, Rule::Ulp(_) | Rule::ExactExceptCols { .. }) => {
                            Verdict::UlpUnverified
                        }
                        None => Verdict::Differs,
                    },
                };
                res.outputs.push(OutputResult {
                    name: b.name.clone(),
                    ty: b.ty.clone(),
                    sha256: sha,
                    orig_sha256: orig,
                    verdict,
                    bytes,
                });
            }
            // Outputs that still differ: run again propagating the last of several NaN
            // operands instead of the first (the H200 does so in f64 adds: calls,
            // smem_dynamic); a match then is a difference in NaN payloads only.
            let retry: Vec<usize> = res
                .outputs
                .iter()
                .enumerate()
                .filter(|(_, o)| o.verdict == Verdict::Differs)
                .map(|(k, _)| k)
                .collect();
            if !retry.is_empty() {
                let mut o2 = opts;
                o2.limits.nan_last = true;
                if let Ok((outs2, _, _)) = execute(machines, job, entry_of, o2) {
                    let outs2: Vec<(&Buffer, Vec<u8>)> = job
                        .bufs
                        .iter()
                        .zip(outs2)
                        .filter(|(b, _)| b.role != "in")
                        .collect();
                    for k in retry {
                        let (b, bytes) = &outs2[k];
                        let Some(want) = res.outputs[k].orig_sha256.clone() else {
                            continue;
                        };
                        let p = if sha256(bytes) == want {
                            Some("payloads kept".to_string())
                        } else {
                            float_view(&job.case, &b.name, &b.ty, columns(job, b))
                                .and_then(|v| nan_match(bytes, elem_width(&b.ty), &v, &want))
                        };
                        if let Some(p) = p {
                            res.outputs[k].verdict =
                                Verdict::NanPayload(format!("{p}; second NaN operand"));
                        }
                    }
                }
            }
            // Outputs that still differ, and those compared within K ulp that do not hash
            // equal: do they depend on the approximation instructions?
            let retry: Vec<usize> = res
                .outputs
                .iter()
                .enumerate()
                .filter(|(_, o)| matches!(o.verdict, Verdict::Differs | Verdict::UlpUnverified))
                .map(|(k, _)| k)
                .collect();
            if !retry.is_empty() {
                let mut o3 = opts;
                o3.limits.approx_perturb = true;
                if let Ok((outs3, _, _)) = execute(machines, job, entry_of, o3) {
                    let outs3: Vec<(&Buffer, Vec<u8>)> = job
                        .bufs
                        .iter()
                        .zip(outs3)
                        .filter(|(b, _)| b.role != "in")
                        .collect();
                    for k in retry {
                        let (b, bytes) = &outs3[k];
                        let base = &res.outputs[k].bytes;
                        let w = elem_width(&b.ty);
                        let cols = columns(job, b);
                        let mut changed: Vec<usize> = Vec::new();
                        for (e, (x, y)) in base.chunks(w).zip(bytes.chunks(w)).enumerate() {
                            if x != y && !changed.contains(&(e % cols)) {
                                changed.push(e % cols);
                            }
                        }
                        if !changed.is_empty() {
                            changed.sort();
                            let l: Vec<String> = changed.iter().map(|c| c.to_string()).collect();
                            res.outputs[k].verdict = Verdict::Approx(l.join(","));
                        }
                    }
                }
            }
            if let Some(dir) = opts.raw {
                // exact.json, read once per job and only when an output needs it
                let exact = std::cell::OnceCell::new();
                let outs = job.bufs.iter().filter(|b| b.role != "in");
                for (o, b) in res.outputs.iter_mut().zip(outs) {
                    let approx = match &o.verdict {
                        Verdict::Approx(c) => Some(c.clone()),
                        Verdict::UlpUnverified | Verdict::Differs => None,
                        _ => continue,
                    };
                    let Some(want) = o.orig_sha256.clone() else {
                        continue;
                    };
                    let h200 = match raw_output(dir, &job.case, job.seed, &o.name, &want) {
                        Ok(Some(h)) => h,
                        Ok(None) => continue,
                        Err(e) => {
                            res.error = Some(e);
                            continue;
                        }
                    };
                    let cols = columns(job, b);
                    let Some((diff, max)) = compare_raw(&o.bytes, &h200, &b.ty, cols) else {
                        continue;
                    };
                    let within = match &b.rule {
                        Rule::Ulp(k) => max <= u64::from(*k),
                        Rule::ExactExceptCols {
                            ulp,
                            stride,
                            cols: c,
                        } => {
                            *stride == cols
                                && diff.iter().all(|d| c.contains(d))
                                && max <= u64::from(*ulp)
                        }
                        _ => false,
                    };
                    let k = match &b.rule {
                        Rule::Ulp(k) => u64::from(*k),
                        Rule::ExactExceptCols { ulp, .. } => u64::from(*ulp),
                        _ => 0,
                    };
                    let spec = |specs: &[crate::accuracy::OutputSpec]| {
                        specs
                            .iter()
                            .find(|s| s.case == job.case && s.output == o.name)
                            .cloned()
                    };
                    let accuracy = match (
                        exact.get_or_init(|| crate::accuracy::load(dir)),
                        b.ty.as_str(),
                    ) {
                        (Ok(Some(specs)), "f32") => spec(specs).map(|s| {
                            crate::accuracy::judge(
                                &s,
                                &inputs(job, "f32", f32s),
                                &f32s(&o.bytes),
                                &f32s(&h200),
                                k,
                            )
                        }),
                        (Ok(Some(specs)), "f64") => spec(specs).map(|s| {
                            crate::accuracy::judge_f64(
                                &s,
                                &inputs(job, "f64", f64s),
                                &f64s(&o.bytes),
                                &f64s(&h200),
                                k,
                            )
                        }),
                        (Err(e), _) => {
                            res.error = Some(e.clone());
                            None
                        }
                        _ => None,
                    };
                    let l: Vec<String> = diff.iter().map(|c| c.to_string()).collect();
                    o.verdict = if diff.is_empty() {
                        // Every number equal; NaNs against NaNs with other payloads.
                        Verdict::NanPayload("NaNs only, against the H200's bytes".into())
                    } else {
                        Verdict::Ulp {
                            cols: l.join(","),
                            max,
                            within,
                            approx,
                            accuracy,
                        }
                    };
                }
            }
            if job.stdout {
                // The harness's digest: the lines sorted (blocks print in any order), joined
                // by newlines.
                let mut lines: Vec<&str> = printed.lines().collect();
                lines.sort_unstable();
                let joined = lines.join("\n");
                let orig = orig_sha256(results, &job.case, job.seed, "stdout");
                let sha = sha256(joined.as_bytes());
                res.outputs.push(OutputResult {
                    name: "stdout".into(),
                    ty: "text".into(),
                    verdict: if orig.as_deref() == Some(sha.as_str()) {
                        Verdict::Match
                    } else if orig.is_none() {
                        Verdict::NoRecord
                    } else {
                        Verdict::Differs
                    },
                    sha256: sha,
                    orig_sha256: orig,
                    bytes: joined.into_bytes(),
                });
            }
        }
    }
    res.seconds = t0.elapsed().as_secs_f64();
    res
}

/// Little-endian binary32 values of `b`.
fn f32s(b: &[u8]) -> Vec<f32> {
    b.chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// Little-endian binary64 values of `b`.
fn f64s(b: &[u8]) -> Vec<f64> {
    b.chunks_exact(8)
        .map(|c| f64::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

/// The job's input buffers of type `ty` by name, their bytes read by `values`.
fn inputs<T>(
    job: &Job,
    ty: &str,
    values: fn(&[u8]) -> Vec<T>,
) -> std::collections::BTreeMap<String, Vec<T>> {
    job.bufs
        .iter()
        .filter(|b| b.role == "in" && b.ty == ty)
        .map(|b| (b.name.clone(), values(&b.bytes)))
        .collect()
}

/// Bytes per element of a case-table type name.
pub fn elem_width(ty: &str) -> usize {
    match ty {
        "f64" | "i64" | "u64" => 8,
        "f16" | "bf16" | "i16" | "u16" => 2,
        "i8" | "u8" => 1,
        _ => 4,
    }
}

/// Elements per work-item of buffer `b` (its element count over `n`, 1 when not a multiple).
fn columns(job: &Job, b: &Buffer) -> usize {
    let e = b.bytes.len() / elem_width(&b.ty);
    let n = job.n.max(1) as usize;
    if e.is_multiple_of(n) && e >= n {
        e / n
    } else {
        1
    }
}

fn execute(
    machines: &mut [Machine],
    job: &Job,
    entry_of: &dyn Fn(&str) -> Option<String>,
    opts: Options,
) -> Result<(Vec<Vec<u8>>, Stats, String), Error> {
    let plans = plan(job, entry_of)?;
    let m = machines
        .iter_mut()
        .find(|m| m.co.kernel(&plans[0].kernel).is_some())
        .ok_or_else(|| {
            Error::new(format!(
                "kernel {} is in none of the code objects (not translated?)",
                plans[0].kernel
            ))
        })?;
    m.reset();
    let addrs: Vec<u64> = job
        .bufs
        .iter()
        .map(|b| {
            let a = m
                .mem
                .alloc(b.bytes.len().max(1), &format!("buffer {}", b.name));
            m.mem.write(a, &b.bytes).unwrap();
            a
        })
        .collect();
    let mut stats = Stats::default();
    for p in &plans {
        let k = m
            .co
            .kernel(&p.kernel)
            .ok_or_else(|| Error::new(format!("kernel {} is not in the code object", p.kernel)))?
            .clone();
        let explicit: Vec<_> = k
            .args
            .iter()
            .filter(|a| !a.kind.starts_with("hidden_"))
            .collect();
        if explicit.len() != p.args.len() {
            return Err(Error::new(format!(
                "{}: the launcher passes {} arguments, the kernel's metadata lists {}",
                p.kernel,
                p.args.len(),
                explicit.len()
            )));
        }
        for &(b, name) in &p.symbols {
            let at =
                m.co.symbols
                    .iter()
                    .find(|s| s.0 == name)
                    .map(|s| crate::exec::IMAGE_BASE + s.1)
                    .ok_or_else(|| {
                        Error::new(format!(
                            "{}: variable {name} is not in the code object",
                            p.kernel
                        ))
                    })?;
            m.mem
                .write(at, &job.bufs[b].bytes)
                .map_err(|e| Error::new(format!("{}: writing {name}: {e}", p.kernel)))?;
        }
        let mut ka = vec![0u8; k.kernarg_segment_size.max(8) as usize];
        for (a, meta) in p.args.iter().zip(&explicit) {
            let bytes: Vec<u8> = match a {
                Arg::Buf(i) => addrs[*i].to_le_bytes().to_vec(),
                Arg::N => (job.n as i32).to_le_bytes().to_vec(),
                Arg::I32(v) => v.to_le_bytes().to_vec(),
                Arg::F32(v) => v.to_le_bytes().to_vec(),
                Arg::F64(v) => v.to_le_bytes().to_vec(),
                Arg::Params => {
                    // struct Params (fixtures/gpu/src/mem.cu), natural C layout
                    let mut s = vec![0u8; meta.size as usize];
                    let mut put = |o: usize, b: &[u8]| s[o..o + b.len()].copy_from_slice(b);
                    put(0, &(1.0f64 / 3.0).to_le_bytes());
                    put(8, &(-2.5f32).to_le_bytes());
                    put(12, &[(-7i8) as u8]);
                    put(14, &300i16.to_le_bytes());
                    for k in 0..5 {
                        put(16 + 4 * k, &(10 * k as i32 - 17).to_le_bytes());
                    }
                    put(40, &addrs[0].to_le_bytes());
                    put(48, &addrs[1].to_le_bytes());
                    put(56, &0x1234_5678_9abci64.to_le_bytes());
                    s
                }
            };
            if bytes.len() != meta.size as usize {
                return Err(Error::new(format!(
                    "{}: argument {} is {} bytes in the metadata, the launcher passes {}",
                    p.kernel,
                    meta.name,
                    meta.size,
                    bytes.len()
                )));
            }
            let o = meta.offset as usize;
            ka[o..o + bytes.len()].copy_from_slice(&bytes);
        }
        let (grid, block) = p.shape.unwrap_or((job.grid, job.block));
        let dyn_lds = if p.shape.is_some() { 0 } else { job.dyn_lds };
        let s = m.dispatch(
            &p.kernel,
            &ka,
            &Launch {
                grid,
                block,
                dyn_lds,
            },
            opts.limits,
        )?;
        stats.instructions += s.instructions;
        stats.workgroups += s.workgroups;
        stats.waves += s.waves;
    }
    let mut outs = Vec::new();
    for (b, a) in job.bufs.iter().zip(&addrs) {
        let mut v = vec![0u8; b.bytes.len()];
        m.mem.read(*a, &mut v)?;
        outs.push(v);
    }
    Ok((outs, stats, device_printf(m)?))
}

/// The device printf text of the dispatches since the last [`Machine::reset`]: the records
/// of the code object's `__wp_printf_fifo`, printed as the shim prints them (empty without
/// the FIFO). Dropped records are an error (the fixtures print far less than the FIFO holds).
fn device_printf(m: &Machine) -> Result<String, Error> {
    let Some(fifo) = fifo_bytes(m)? else {
        return Ok(String::new());
    };
    let (text, dropped) = printf::fifo_text(&fifo)?;
    if dropped != 0 {
        return Err(Error::new(format!(
            "{}: {dropped} device printf records dropped",
            printf::FIFO_SYMBOL
        )));
    }
    Ok(text)
}

/// The bytes of the code object's device printf FIFO (`__wp_printf_fifo`) as the kernels
/// dispatched since the last [`Machine::reset`] left them; `None` when the code object has
/// no FIFO (none of its kernels calls `vprintf`).
///
/// # Errors
/// The symbol lies outside the mapped image.
pub fn fifo_bytes(m: &Machine) -> Result<Option<Vec<u8>>, Error> {
    let Some(&(_, at, size)) = m.co.symbols.iter().find(|s| s.0 == printf::FIFO_SYMBOL) else {
        return Ok(None);
    };
    let mut fifo = vec![0u8; size as usize];
    m.mem.read(crate::exec::IMAGE_BASE + at, &mut fifo)?;
    Ok(Some(fifo))
}

/// For launchers whose case lists no entry: (launcher, entry) of the cases of the table
/// `cases` (a path) that list one.
///
/// # Errors
/// An unreadable or malformed case table.
pub fn entry_table(cases: &Path) -> Result<Vec<(String, String)>, Error> {
    let t: Value = serde_json::from_slice(
        &std::fs::read(cases).map_err(|e| Error::new(format!("{}: {e}", cases.display())))?,
    )
    .map_err(|e| Error::new(format!("{}: {e}", cases.display())))?;
    let mut v: Vec<(String, String)> = Vec::new();
    for c in t["cases"].as_array().into_iter().flatten() {
        let l = c["launcher"].as_str().unwrap_or_default();
        if let Some(e) = c["entries"].get(0).and_then(Value::as_str) {
            if !v.iter().any(|(x, _)| x == l) {
                v.push((l.to_string(), e.to_string()));
            }
        }
    }
    Ok(v)
}

/// The repository path of the harness directory relative to a root.
pub fn harness_dir(root: &Path) -> PathBuf {
    root.join("tools/gpu")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ulp_distances_count_representable_values() {
        let f = |x: f32| u64::from(x.to_bits());
        let d = |x: f64| x.to_bits();
        // IEEE binary32: neighbours, zeros, across zero, NaNs.
        assert_eq!(ulp_distance(f(1.0), f(f32::from_bits(0x3f80_0001)), 32), 1);
        assert_eq!(ulp_distance(f(0.0), f(-0.0), 32), 0);
        assert_eq!(ulp_distance(f(1.0), f(-1.0), 32), 2 * 0x3f80_0000);
        assert_eq!(ulp_distance(f(0.0), f(f32::from_bits(1)), 32), 1);
        assert_eq!(ulp_distance(f(f32::NAN), 0x7fff_ffff, 32), 0);
        assert_eq!(ulp_distance(f(f32::NAN), f(1.0), 32), u64::MAX);
        assert_eq!(ulp_distance(f(f32::INFINITY), f(f32::MAX), 32), 1);
        // binary64 and binary16 (0x3c00 is 1.0, 0x3c01 its neighbour, 0x7e00 a NaN).
        assert_eq!(ulp_distance(d(1.0), d(1.0 + f64::EPSILON), 64), 1);
        assert_eq!(ulp_distance(0x3c00, 0x3c01, 16), 1);
        assert_eq!(ulp_distance(0x7e00, 0x3c00, 16), u64::MAX);
        // bfloat16 steps: 1.0 (0x3f80) to its neighbour 0x3f81.
        assert_eq!(ulp_distance_bf16(0x3f80, 0x3f81), 1);
        assert_eq!(ulp_distance_bf16(0x3f80, 0xbf80), 2 * 0x3f80);
    }

    #[test]
    fn raw_comparison_names_the_columns_that_differ() {
        let v = |xs: &[f32]| -> Vec<u8> { xs.iter().flat_map(|x| x.to_le_bytes()).collect() };
        let ours = v(&[1.0, 2.0, f32::NAN, 4.0]);
        let h200 = v(&[
            1.0,
            f32::from_bits(0x4000_0002),
            f32::from_bits(0x7fff_ffff),
            4.0,
        ]);
        assert_eq!(compare_raw(&ours, &h200, "f32", 2), Some((vec![1], 2)));
        assert_eq!(compare_raw(&ours, &h200[..8], "f32", 2), None);
        assert_eq!(compare_raw(&ours, &h200, "u32", 2), None);
    }
}
