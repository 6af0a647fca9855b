//! The software bill of materials every converted wheel carries (PEP 770:
//! `<name>-<version>.dist-info/sboms/`): a CycloneDX 1.6 JSON document, [`SBOM_FILE`].
//!
//! It names the output wheel (the BOM's `metadata.component`, a `pkg:pypi` purl) with the input
//! wheel as its pedigree ancestor (name, version, file name, SHA-256), wheelport and the
//! external tools that built the device code (`metadata.tools`: name and the version line each
//! printed, no paths), and what wheelport added or changed (`components`): every rewritten
//! shared object, every library it added (the shim) and every relink table it applied, each by
//! SHA-256. The document has no timestamp and a serial number derived from its content's
//! inputs, so two conversions of one wheel give the same bytes.

use serde_json::{json, Value};
use sha2::{Digest, Sha256};

/// The SBOM's file name in `.dist-info/sboms/`.
pub const SBOM_FILE: &str = "wheelport.cdx.json";

/// What the SBOM of one converted wheel says.
#[derive(Debug, Clone, Default)]
pub struct SbomInput {
    /// The distribution name as the wheel file spells it (`wheelport_demo`).
    pub name: String,
    /// The input wheel's version (`0.1.0+cu13`).
    pub source_version: String,
    /// The output wheel's version (`0.1.0+dtk`).
    pub version: String,
    /// The input wheel's file name.
    pub source_wheel: String,
    /// The input wheel's SHA-256, lowercase hex.
    pub source_sha256: String,
    /// The target profile (`dtk`) and its offload architectures.
    pub target: String,
    /// The offload architectures built (`gfx906`).
    pub archs: Vec<String>,
    /// External tools used: (name, the version line it printed).
    pub tools: Vec<(String, String)>,
    /// Members wheelport wrote: (path in the wheel, SHA-256 hex, what it is).
    pub files: Vec<(String, String, String)>,
    /// Relink tables applied: (file, SHA-256 hex).
    pub tables: Vec<(String, String)>,
}

/// `s` percent-encoded as a purl component (purl-spec: everything but ASCII letters, digits
/// and `.-_~` escaped; `+` of a local version becomes `%2B`).
fn purl_escape(s: &str) -> String {
    const KEEP: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
        .remove(b'.')
        .remove(b'-')
        .remove(b'_')
        .remove(b'~');
    percent_encoding::utf8_percent_encode(s, KEEP).to_string()
}

/// `pkg:pypi/<name>@<version>` (purl-spec's pypi type).
fn purl(name: &str, version: &str) -> String {
    format!(
        "pkg:pypi/{}@{}",
        crate::wheel::requirements::normalize(name),
        purl_escape(version)
    )
}

/// A UUID (RFC 9562 version 8: custom) made from the SHA-256 of `seed`.
fn uuid_of(seed: &str) -> String {
    let mut b: [u8; 16] = Sha256::digest(seed.as_bytes())[..16]
        .try_into()
        .expect("16 bytes");
    b[6] = (b[6] & 0x0f) | 0x80;
    b[8] = (b[8] & 0x3f) | 0x80;
    let h: String = b.iter().map(|x| format!("{x:02x}")).collect();
    format!(
        "{}-{}-{}-{}-{}",
        &h[..8],
        &h[8..12],
        &h[12..16],
        &h[16..20],
        &h[20..]
    )
}

fn sha256_hash(hex: &str) -> Value {
    json!([{ "alg": "SHA-256", "content": hex }])
}

/// The CycloneDX 1.6 JSON document for `s` (pretty-printed, ending in a newline).
pub fn cyclonedx(s: &SbomInput) -> Vec<u8> {
    let tool_version = env!("CARGO_PKG_VERSION");
    let mut tools = vec![json!({
        "type": "application",
        "name": "wheelport",
        "version": tool_version,
    })];
    for (name, line) in &s.tools {
        tools.push(json!({ "type": "application", "name": name, "version": line }));
    }
    let output_ref = purl(&s.name, &s.version);
    // Written members, then applied tables: (bom-ref, name, description, SHA-256 hex).
    let table_what = format!("wheelport relink table applied for target {}", s.target);
    let entries = s
        .files
        .iter()
        .map(|(path, hex, what)| (format!("file:{path}"), path, what, hex))
        .chain(
            s.tables
                .iter()
                .map(|(file, hex)| (format!("relink-table:{file}"), file, &table_what, hex)),
        );
    let mut components = Vec::new();
    let mut refs = Vec::new();
    for (r, name, what, hex) in entries {
        components.push(json!({
            "type": "file",
            "bom-ref": r,
            "name": name,
            "description": what,
            "hashes": sha256_hash(hex),
        }));
        refs.push(r);
    }
    let doc = json!({
        "bomFormat": "CycloneDX",
        "specVersion": "1.6",
        "serialNumber": format!(
            "urn:uuid:{}",
            uuid_of(&format!("{}\n{}\n{}\n{}", s.source_sha256, s.target, s.version, tool_version))
        ),
        "version": 1,
        "metadata": {
            "tools": { "components": tools },
            "component": {
                "type": "library",
                "bom-ref": output_ref,
                "name": s.name,
                "version": s.version,
                "purl": output_ref,
                "description": format!(
                    "converted by wheelport for target {} ({})",
                    s.target,
                    s.archs.join(", ")
                ),
                "pedigree": {
                    "ancestors": [{
                        "type": "library",
                        "bom-ref": format!("source:{}", s.source_wheel),
                        "name": s.name,
                        "version": s.source_version,
                        "purl": format!(
                            "{}?file_name={}",
                            purl(&s.name, &s.source_version),
                            purl_escape(&s.source_wheel)
                        ),
                        "hashes": sha256_hash(&s.source_sha256),
                    }],
                    "notes": "the CUDA wheel this one was converted from",
                },
            },
        },
        "components": components,
        "dependencies": [{ "ref": output_ref, "dependsOn": refs }],
    });
    let mut out = serde_json::to_vec_pretty(&doc).expect("SBOM serializes");
    out.push(b'\n');
    out
}
