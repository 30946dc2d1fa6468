//! The URIs of skills' and packages' files: every URI the server gives is an RFC 3986 URI, the
//! name and each path segment percent-encoded but for the unreserved characters. A leaf, so
//! the catalog, the resources and the MCP types all name files the same way.

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};

/// What a name or a path segment has percent-encoded in a URI: everything but RFC 3986's
/// unreserved characters (ASCII letters and digits, `-`, `.`, `_`, `~`), which mean the same
/// encoded or not; so a URI never holds a delimiter (`/`, `?`, `#`, `%`) of the name's own.
pub(crate) const ENCODED: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// The URI of the file `path` (`/`-separated) of the skill or package `name`, under `scheme`
/// (`skill`, `package`): `scheme://<name>/<path>`, the name and every segment of the path
/// percent-encoded; an item of a namespace other than `@global` (kept as `@ns/name`) is at
/// `scheme://<@ns>/<name>/<path>`, so that the segment before its `SKILL.md` is its name, as
/// the Skills extension reads it. An empty `path` gives the item's directory.
pub(crate) fn uri(scheme: &str, name: &str, path: &str) -> String {
    let name = match name.strip_prefix('@').and_then(|rest| rest.split_once('/')) {
        Some((namespace, name)) => format!(
            "%40{}/{}",
            utf8_percent_encode(namespace, ENCODED),
            utf8_percent_encode(name, ENCODED)
        ),
        None => utf8_percent_encode(name, ENCODED).to_string(),
    };
    let mut uri = format!("{scheme}://{name}/");
    uri.push_str(&encoded_path(path));
    uri
}

/// `path` (`/`-separated, relative) with every segment percent-encoded: a relative reference
/// to the file from its skill's directory.
pub(crate) fn encoded_path(path: &str) -> String {
    path.split('/')
        .map(|segment| utf8_percent_encode(segment, ENCODED).to_string())
        .collect::<Vec<_>>()
        .join("/")
}
