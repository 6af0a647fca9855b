//! A fast scan for kernel names (`.entry` directives, PTX ISA §11.1 "Kernel and function
//! directives") in PTX text, used by `inspect`, which must not pay for a full parse.
//! Comments (`//`, `/* */`) and string literals are skipped.

/// The names of the `.entry` kernels declared or defined in `ptx`, in order, without
/// duplicates (a kernel may be declared before it is defined).
pub fn entry_names(ptx: &[u8]) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    let n = ptx.len();
    let mut i = 0;
    while i < n {
        match ptx[i] {
            b'/' if i + 1 < n && ptx[i + 1] == b'/' => {
                while i < n && ptx[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if i + 1 < n && ptx[i + 1] == b'*' => {
                i += 2;
                while i + 1 < n && !(ptx[i] == b'*' && ptx[i + 1] == b'/') {
                    i += 1;
                }
                i += 2;
            }
            b'"' => {
                i += 1;
                while i < n && ptx[i] != b'"' {
                    if ptx[i] == b'\\' {
                        i += 1;
                    }
                    i += 1;
                }
                i += 1;
            }
            b'.' if ptx[i..].starts_with(b".entry")
                && (i == 0 || ptx[i - 1].is_ascii_whitespace())
                && ptx.get(i + 6).is_some_and(|c| c.is_ascii_whitespace()) =>
            {
                i += 6;
                while i < n && ptx[i].is_ascii_whitespace() {
                    i += 1;
                }
                let start = i;
                while i < n
                    && (ptx[i].is_ascii_alphanumeric() || matches!(ptx[i], b'_' | b'$' | b'%'))
                {
                    i += 1;
                }
                if i > start {
                    let name = String::from_utf8_lossy(&ptx[start..i]).into_owned();
                    if !names.contains(&name) {
                        names.push(name);
                    }
                }
            }
            _ => i += 1,
        }
    }
    names
}

#[cfg(test)]
mod tests {
    use super::entry_names;

    #[test]
    fn finds_entries_and_skips_comments() {
        let ptx = b"// .entry fake(\n.visible .entry _Z3fooPf(\n.param .u64 p)\n{ ret; }\n/* .entry nope( */\n.entry bar (\n)\n{}\n.extern .func baz();";
        assert_eq!(
            entry_names(ptx),
            vec!["_Z3fooPf".to_string(), "bar".to_string()]
        );
    }
}
