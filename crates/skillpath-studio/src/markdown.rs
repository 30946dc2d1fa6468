//! Markdown of skills as HTML that is safe to show: rendered by pulldown-cmark (raw HTML in it
//! passes through), then cleaned by ammonia, which keeps only harmless tags and attributes (no
//! script, style, event handler, `javascript:` or `data:` link, SVG, form or frame). Relative
//! links point at the skill's files in the studio's file viewer; links elsewhere open without
//! the studio as their referrer or opener. What is left is shown under the studio's
//! Content-Security-Policy, which would stop a script that got through anyway.

use std::borrow::Cow;

use pulldown_cmark::{Options, Parser, html};

/// The most bytes of markdown rendered; the rest is left out, and said to be.
pub(crate) const MAX_RENDERED_BYTES: usize = 1024 * 1024;

/// `markdown`, a body of the skill `skill`, as sanitised HTML.
pub(crate) fn to_html(markdown: &str, skill: &str) -> String {
    let (markdown, cut) = within(markdown, MAX_RENDERED_BYTES);
    let mut rendered = String::with_capacity(markdown.len() * 3 / 2);
    let options = Options::ENABLE_TABLES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_TASKLISTS
        | Options::ENABLE_FOOTNOTES;
    html::push_html(&mut rendered, Parser::new_ext(markdown, options));
    let base = format!("/skills/{}/files/", crate::encode::encode_path(skill));
    let mut cleaned = ammonia::Builder::default()
        .url_relative(ammonia::UrlRelative::Custom(Box::new(FileLinks(base))))
        .link_rel(Some("noopener noreferrer nofollow"))
        .url_schemes(["http", "https", "mailto"].into())
        .clean(&rendered)
        .to_string();
    if cut {
        cleaned.push_str(&format!(
            "<p class=\"cut\">The rest is not shown: the studio renders the first {} KiB.</p>",
            MAX_RENDERED_BYTES / 1024
        ));
    }
    cleaned
}

/// The first `limit` bytes of `text` (at a character boundary), and whether any were left out.
pub(crate) fn within(text: &str, limit: usize) -> (&str, bool) {
    if text.len() <= limit {
        return (text, false);
    }
    let mut end = limit;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    (&text[..end], true)
}

/// Rewrites a relative link of a skill's markdown to the file viewer's page of that file;
/// an in-page anchor stays as it is.
struct FileLinks(String);

impl ammonia::UrlRelativeEvaluate<'_> for FileLinks {
    fn evaluate<'a>(&self, url: &'a str) -> Option<Cow<'a, str>> {
        if url.starts_with('#') {
            return Some(Cow::Borrowed(url));
        }
        // A path from the root of the site, or one that climbs out of the skill, has no
        // file of the skill to point at.
        if url.starts_with('/') || url.split('/').any(|part| part == "..") {
            return None;
        }
        let path = url.trim_start_matches("./");
        Some(Cow::Owned(format!("{}{path}", self.0)))
    }
}

#[cfg(test)]
mod tests {
    use super::to_html;

    #[test]
    fn hostile_markdown_renders_inert() {
        let hostile = r#"# Title

<script>alert(1)</script>

<img src=x onerror="alert(2)">

[click](javascript:alert(3))

<a href="data:text/html,<script>alert(4)</script>">data</a>

<svg><script>alert(5)</script></svg>

<div style="position:fixed;inset:0">overlay</div>

<iframe src="https://example.com"></iframe>

<form action="https://example.com"><input name=x></form>

[file](references/guide.md) [up](../../etc/passwd) [abs](/mcp)
"#;
        let html = to_html(hostile, "my-skill");
        for forbidden in [
            "<script",
            "onerror",
            "href=\"javascript:",
            "href=\"data:",
            "<svg",
            "style=",
            "<iframe",
            "<form",
            "<input",
            "/etc/passwd",
            "href=\"/mcp\"",
        ] {
            assert!(!html.contains(forbidden), "{forbidden} in {html}");
        }
        assert!(html.contains("<h1>Title</h1>"), "{html}");
        assert!(
            html.contains("href=\"/skills/my-skill/files/references/guide.md\""),
            "{html}"
        );
    }

    #[test]
    fn long_markdown_is_cut_and_says_so() {
        let long = "word ".repeat(300_000);
        let html = to_html(&long, "s");
        assert!(html.len() < 1_100_000);
        assert!(html.contains("The rest is not shown"));
    }
}
