//! Text encodings the studio writes into URLs, HTML and headers: URL paths and queries, HTML
//! escapes for the little HTML built in code, and hex. A leaf: it imports nothing of the
//! studio, so every module can use it.

/// `text` as one path segment of a URL (everything but unreserved characters escaped).
pub(crate) fn encode_path(text: &str) -> String {
    encode(text, |b| b.is_ascii_alphanumeric() || b"-._~".contains(&b))
}

/// `text` as a query value (a path's `/` kept, for readable `next=` links).
pub(crate) fn encode_query(text: &str) -> String {
    encode(text, |b| b.is_ascii_alphanumeric() || b"-._~/".contains(&b))
}

fn encode(text: &str, keep: impl Fn(u8) -> bool) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        if keep(byte) {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

/// `text` with HTML's special characters escaped, for the few places that build HTML in code
/// (the templates escape everything else).
pub(crate) fn escape_html(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

/// `bytes` as lowercase hex digits.
pub(crate) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
