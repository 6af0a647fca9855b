//! The `.dist-info/WHEEL` and `.dist-info/METADATA` files (core metadata, RFC 822-style
//! headers; "Core metadata specifications" and "Binary distribution format").

use serde::{Deserialize, Serialize};

/// Parse `Key: value` header lines up to the first blank line (the body of METADATA
/// follows it). Continuation lines (starting with whitespace) are appended to the
/// previous value with a newline.
pub fn parse_headers(text: &str) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for line in text.lines() {
        if line.is_empty() {
            break;
        }
        if line.starts_with([' ', '\t']) {
            if let Some(last) = out.last_mut() {
                last.1.push('\n');
                last.1.push_str(line.trim());
            }
            continue;
        }
        if let Some((k, v)) = line.split_once(':') {
            out.push((k.trim().to_string(), v.trim().to_string()));
        }
    }
    out
}

/// What `inspect` reports about a wheel's metadata.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct WheelInfo {
    /// The `.dist-info` directory name.
    pub dist_info: String,
    /// METADATA `Name`.
    pub name: Option<String>,
    /// METADATA `Version` (may carry a local label such as `+cu121`).
    pub version: Option<String>,
    /// METADATA `Requires-Python`.
    pub requires_python: Option<String>,
    /// METADATA `Requires-Dist`, in order.
    pub requires_dist: Vec<String>,
    /// WHEEL `Wheel-Version`.
    pub wheel_version: Option<String>,
    /// WHEEL `Root-Is-Purelib`.
    pub root_is_purelib: Option<bool>,
    /// WHEEL `Tag` lines, in order.
    pub tags: Vec<String>,
    /// WHEEL `Build`.
    pub build: Option<String>,
}

impl WheelInfo {
    /// Fill the fields from the text of WHEEL and METADATA.
    pub fn from_texts(dist_info: &str, wheel: Option<&str>, metadata: Option<&str>) -> WheelInfo {
        let mut info = WheelInfo {
            dist_info: dist_info.to_string(),
            ..Default::default()
        };
        if let Some(m) = metadata {
            for (k, v) in parse_headers(m) {
                match k.as_str() {
                    "Name" => info.name = Some(v),
                    "Version" => info.version = Some(v),
                    "Requires-Python" => info.requires_python = Some(v),
                    "Requires-Dist" => info.requires_dist.push(v),
                    _ => {}
                }
            }
        }
        if let Some(w) = wheel {
            for (k, v) in parse_headers(w) {
                match k.as_str() {
                    "Wheel-Version" => info.wheel_version = Some(v),
                    "Root-Is-Purelib" => {
                        info.root_is_purelib = Some(v.eq_ignore_ascii_case("true"))
                    }
                    "Tag" => info.tags.push(v),
                    "Build" => info.build = Some(v),
                    _ => {}
                }
            }
        }
        info
    }
}
