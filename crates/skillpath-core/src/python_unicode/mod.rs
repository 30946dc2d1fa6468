//! Python 3.11 string semantics that the reference validator's verdicts depend on.
//!
//! `skills-ref` is written in Python, so "alphanumeric", "whitespace" and the text of a
//! stringified value mean what Python says they mean. Rust's `char::is_alphanumeric` uses the
//! Alphabetic property (which includes combining marks such as Devanagari vowel signs) and
//! `str::trim` leaves U+001C..U+001F alone, so neither can be used where parity matters.
//! The tables come from Python's own Unicode database (see `scripts/gen-unicode-tables.py`).

mod tables;

fn in_ranges(ranges: &[(u32, u32)], c: char) -> bool {
    let cp = u32::from(c);
    ranges
        .binary_search_by(|&(lo, hi)| {
            if hi < cp {
                std::cmp::Ordering::Less
            } else if lo > cp {
                std::cmp::Ordering::Greater
            } else {
                std::cmp::Ordering::Equal
            }
        })
        .is_ok()
}

/// Python's `str.isalnum()` for one character: general category L* or N*.
pub fn is_alnum(c: char) -> bool {
    in_ranges(tables::ALNUM, c)
}

/// Python's `str.isprintable()` for one character.
pub fn is_printable(c: char) -> bool {
    in_ranges(tables::PRINTABLE, c)
}

/// Python's `str.isspace()` for one character.
pub fn is_space(c: char) -> bool {
    in_ranges(tables::SPACE, c)
}

/// Python's `str.strip()` with no arguments.
pub fn strip(s: &str) -> &str {
    s.trim_matches(is_space)
}

/// Python's `repr()` of a `str`: the quote choice and escapes of CPython.
pub fn repr_str(s: &str) -> String {
    let quote = if s.contains('\'') && !s.contains('"') {
        '"'
    } else {
        '\''
    };
    let mut out = String::with_capacity(s.len() + 2);
    out.push(quote);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if is_printable(c) => out.push(c),
            c => {
                let cp = u32::from(c);
                if cp < 0x100 {
                    out.push_str(&format!("\\x{cp:02x}"));
                } else if cp < 0x10000 {
                    out.push_str(&format!("\\u{cp:04x}"));
                } else {
                    out.push_str(&format!("\\U{cp:08x}"));
                }
            }
        }
    }
    out.push(quote);
    out
}

/// Python's `json.dumps(value, indent=2)` with its default `ensure_ascii=True`.
///
/// serde_json writes non-ASCII text raw; the reference escapes every non-ASCII character as
/// `\uXXXX` (surrogate pairs beyond the BMP), which this reproduces byte for byte.
pub fn json_dumps_indent2(value: &serde_json::Value) -> String {
    let mut out = String::new();
    write_json(value, 0, &mut out);
    out
}

fn write_json(value: &serde_json::Value, depth: usize, out: &mut String) {
    use serde_json::Value;
    let indent = |out: &mut String, depth: usize| {
        out.push('\n');
        out.extend(std::iter::repeat_n("  ", depth));
    };
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => out.push_str(&n.to_string()),
        Value::String(s) => write_json_str(s, out),
        Value::Array(items) if items.is_empty() => out.push_str("[]"),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                indent(out, depth + 1);
                write_json(item, depth + 1, out);
            }
            indent(out, depth);
            out.push(']');
        }
        Value::Object(map) if map.is_empty() => out.push_str("{}"),
        Value::Object(map) => {
            out.push('{');
            for (i, (key, item)) in map.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                indent(out, depth + 1);
                write_json_str(key, out);
                out.push_str(": ");
                write_json(item, depth + 1, out);
            }
            indent(out, depth);
            out.push('}');
        }
    }
}

fn write_json_str(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (' '..='~').contains(&c) => out.push(c),
            c => {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    out.push_str(&format!("\\u{unit:04x}"));
                }
            }
        }
    }
    out.push('"');
}

/// Python's `html.escape(s, quote=True)`.
pub fn html_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#x27;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn alnum_follows_python_not_rust() {
        assert!(is_alnum('a') && is_alnum('技') && is_alnum('٣') && is_alnum('ⅻ') && is_alnum('²'));
        // U+093F DEVANAGARI VOWEL SIGN I is Alphabetic (Rust) but category Mc (not Python alnum).
        assert!('\u{93F}'.is_alphanumeric());
        assert!(!is_alnum('\u{93F}'));
        assert!(!is_alnum('-') && !is_alnum('_') && !is_alnum(' '));
    }

    #[test]
    fn strip_removes_python_whitespace() {
        assert_eq!(strip("\u{1c} x \u{85}"), "x");
        assert_eq!("\u{1c}x".trim(), "\u{1c}x");
    }

    #[test]
    fn repr_matches_cpython() {
        assert_eq!(repr_str("e"), "'e'");
        assert_eq!(repr_str("it's"), "\"it's\"");
        assert_eq!(repr_str("a'b\"c"), "'a\\'b\"c'");
        assert_eq!(repr_str("tab\there\n"), "'tab\\there\\n'");
        assert_eq!(
            repr_str("\u{7f}\u{a0}é\u{200b}😀"),
            "'\\x7f\\xa0é\\u200b😀'"
        );
    }

    #[test]
    fn json_escapes_like_python() {
        let value = serde_json::json!({"name": "café", "e": "😀", "list": ["a", []], "m": {}});
        assert_eq!(
            json_dumps_indent2(&value),
            "{\n  \"name\": \"caf\\u00e9\",\n  \"e\": \"\\ud83d\\ude00\",\n  \"list\": [\n    \"a\",\n    []\n  ],\n  \"m\": {}\n}"
        );
    }

    #[test]
    fn html_escape_uses_hex_apostrophe() {
        assert_eq!(
            html_escape("<a href=\"x\">'&'</a>"),
            "&lt;a href=&quot;x&quot;&gt;&#x27;&amp;&#x27;&lt;/a&gt;"
        );
    }
}
