//! Finding the YAML frontmatter and the body in the text of a `SKILL.md`.

use std::ops::Range;

/// Where the frontmatter's YAML and the body are, as byte ranges of the text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Split {
    /// The YAML between the delimiters.
    pub yaml: Range<usize>,
    /// Everything after the closing delimiter (and its line break), as written.
    pub body: Range<usize>,
}

/// Why the frontmatter could not be found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SplitError {
    /// The text does not start with `---`.
    Missing,
    /// No closing `---`.
    Unclosed,
}

/// The format's rule: the first line is exactly `---` and the frontmatter ends at the next line
/// that is exactly `---` (a `\r` before the line feed is allowed). `start` skips a byte-order mark.
pub fn split_lines(text: &str, start: usize) -> Result<Split, SplitError> {
    let rest = &text[start..];
    let mut lines = line_ranges(rest).map(|range| (start + range.start)..(start + range.end));
    let first = lines.next().ok_or(SplitError::Missing)?;
    if line_content(text, &first) != "---" {
        return Err(SplitError::Missing);
    }
    let yaml_start = first.end;
    for line in lines {
        if line_content(text, &line) == "---" {
            return Ok(Split {
                yaml: yaml_start..line.start,
                body: line.end..text.len(),
            });
        }
    }
    Err(SplitError::Unclosed)
}

/// The start of `text` up to the end of its frontmatter by the format's rule ([`split_lines`],
/// after a byte-order mark), or nothing when it has none: what a lenient or `spec` parse reads
/// the frontmatter from, for a reader that needs the frontmatter and not the body.
pub fn head(text: &str) -> &str {
    let start = if text.starts_with('\u{feff}') {
        '\u{feff}'.len_utf8()
    } else {
        0
    };
    split_lines(text, start).map_or("", |split| &text[..split.body.start])
}

/// The reference validator's rule (`content.split("---", 2)`): the text must start with `---`,
/// and the frontmatter ends at the next `---` *anywhere*, even inside a value (`foo---bar`).
pub fn split_substring(text: &str) -> Result<Split, SplitError> {
    if !text.starts_with("---") {
        return Err(SplitError::Missing);
    }
    let close = text[3..].find("---").ok_or(SplitError::Unclosed)? + 3;
    Ok(Split {
        yaml: 3..close,
        body: close + 3..text.len(),
    })
}

/// Ranges of each line including its line break.
fn line_ranges(text: &str) -> impl Iterator<Item = Range<usize>> + '_ {
    let mut start = 0;
    std::iter::from_fn(move || {
        if start >= text.len() {
            return None;
        }
        let end = text[start..]
            .find('\n')
            .map_or(text.len(), |i| start + i + 1);
        let range = start..end;
        start = end;
        Some(range)
    })
}

fn line_content<'a>(text: &'a str, range: &Range<usize>) -> &'a str {
    let line = &text[range.clone()];
    let line = line.strip_suffix('\n').unwrap_or(line);
    line.strip_suffix('\r').unwrap_or(line)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The head ends after the closing line (a BOM kept); no frontmatter, no head.
    #[test]
    fn the_head_is_the_text_up_to_the_end_of_the_frontmatter() {
        assert_eq!(
            head("---\nname: a\n---\n# Body\n---\n"),
            "---\nname: a\n---\n"
        );
        assert_eq!(
            head("\u{feff}---\r\na: 1\r\n---\r\nbody"),
            "\u{feff}---\r\na: 1\r\n---\r\n"
        );
        assert_eq!(head("---\nname: a\n---"), "---\nname: a\n---");
        assert_eq!(head("# no frontmatter\n"), "");
        assert_eq!(head("---\nname: a\n"), "");
    }

    #[test]
    fn line_anchored_split() {
        let text = "---\r\nname: x\r\ndescription: a---b\r\n---\r\n# Body\r\n";
        let split = split_lines(text, 0).expect("split");
        assert_eq!(&text[split.yaml], "name: x\r\ndescription: a---b\r\n");
        assert_eq!(&text[split.body], "# Body\r\n");
        assert_eq!(split_lines("---\nname: x\n", 0), Err(SplitError::Unclosed));
        assert_eq!(split_lines("\n---\n---\n", 0), Err(SplitError::Missing));
        assert_eq!(
            split_lines("--- \nname: x\n---\n", 0),
            Err(SplitError::Missing)
        );
        let closed_at_eof = split_lines("---\nname: x\n---", 0).expect("split");
        assert_eq!(closed_at_eof.body, 15..15);
    }

    #[test]
    fn substring_split_reproduces_the_reference_quirk() {
        let text = "---\nname: x\ndescription: foo---bar\n---\nBody\n";
        let split = split_substring(text).expect("split");
        assert_eq!(&text[split.yaml], "\nname: x\ndescription: foo");
        assert_eq!(&text[split.body], "bar\n---\nBody\n");
        assert_eq!(
            split_substring("---name: x\n---\n").map(|s| s.yaml),
            Ok(3..11)
        );
        assert_eq!(
            split_substring("\u{feff}---\n---\n"),
            Err(SplitError::Missing)
        );
        assert_eq!(split_substring("---\nname: x\n"), Err(SplitError::Unclosed));
    }
}
