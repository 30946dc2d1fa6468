//! Diagnostics as text for people (a compiler-style snippet) and as JSON for scripts.

use std::fmt::Write as _;

use crate::diagnostic::{Diagnostic, Location, SourceFile};

/// Renders `diagnostic` as text. With `source` (the text of the file it points into) the
/// output shows the line with the range underlined:
///
/// ```text
/// error[name-directory-mismatch]: `name` `pdf` does not match the skill's folder `pdf-tools`
///  --> pdf-tools/SKILL.md:2:7
///   |
/// 2 | name: pdf
///   |       ^^^
///   = hint: rename the folder or change `name`; agents identify a skill by its folder
/// ```
pub fn text(diagnostic: &Diagnostic, source: Option<&SourceFile>) -> String {
    let mut out = format!(
        "{}[{}]: {}\n",
        diagnostic.severity.as_str(),
        diagnostic.code,
        diagnostic.message
    );
    let pad = match &diagnostic.location {
        Some(location) => {
            out.push_str(&snippet(location, source));
            " ".repeat(location.start.line.to_string().len())
        }
        None => " ".to_owned(),
    };
    if let Some(hint) = &diagnostic.hint {
        let _ = writeln!(out, "{pad} = hint: {hint}");
    }
    out
}

/// Where `location` is, as the lines under a message: ` --> FILE:LINE:COLUMN`, then, with
/// `source` (the text of that file), the line with the range underlined. Lines that follow it
/// (a hint) are indented by the width of the line number, as these are.
pub fn snippet(location: &Location, source: Option<&SourceFile>) -> String {
    let line = location.start.line;
    let number = line.to_string();
    let pad = " ".repeat(number.len());
    let mut out = format!(
        "{pad}--> {}:{}:{}\n",
        location.file.display(),
        line,
        location.start.column
    );
    if let Some(source) = source.filter(|source| source.path == location.file) {
        let line_range = source.index.line_range(&source.text, line);
        let line_text = &source.text[line_range.clone()];
        let shown: String = line_text
            .chars()
            .map(|c| if c == '\t' { ' ' } else { c })
            .collect();
        let underline_start = location.start.column - 1;
        let end = location
            .range
            .end
            .clamp(location.range.start, line_range.end);
        let width = source
            .text
            .get(location.range.start.max(line_range.start)..end)
            .map_or(0, |s| s.chars().count());
        let _ = writeln!(out, "{pad} |");
        let _ = writeln!(out, "{number} | {shown}");
        let _ = writeln!(
            out,
            "{pad} | {}{}",
            " ".repeat(underline_start),
            "^".repeat(width.max(1))
        );
    }
    out
}

/// Renders `diagnostic` on one line, for a log: `FILE:LINE:COLUMN: error[CODE]: MESSAGE
/// (hint: …)` (without a place when it has none).
pub fn line(diagnostic: &Diagnostic) -> String {
    let place = diagnostic.location.as_ref().map_or_else(String::new, |l| {
        format!("{}:{}:{}: ", l.file.display(), l.start.line, l.start.column)
    });
    let hint = diagnostic
        .hint
        .as_deref()
        .map_or_else(String::new, |hint| format!(" (hint: {hint})"));
    format!(
        "{place}{}[{}]: {}{hint}",
        diagnostic.severity.as_str(),
        diagnostic.code,
        diagnostic.message
    )
}

/// The diagnostic as a JSON object: `code`, `severity`, `message`, `file`, `line`, `column`
/// (1-based; columns count characters), `offset`/`length` in bytes, and `hint` (or null).
pub fn json(diagnostic: &Diagnostic) -> serde_json::Value {
    let location = diagnostic.location.as_ref();
    serde_json::json!({
        "code": diagnostic.code.as_str(),
        "severity": diagnostic.severity.as_str(),
        "message": diagnostic.message,
        "file": location.map(|l| l.file.display().to_string()),
        "line": location.map(|l| l.start.line),
        "column": location.map(|l| l.start.column),
        "offset": location.map(|l| l.range.start),
        "length": location.map(|l| l.range.len()),
        "hint": diagnostic.hint,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostic::Code;

    #[test]
    fn text_underlines_the_range() {
        let file = SourceFile::new("s/SKILL.md".into(), "---\nname: Bad\n---\n".into());
        let diagnostic =
            Diagnostic::error(Code::NameNotLowercase, "`name` `Bad` must be lowercase")
                .with_hint("use `bad`")
                .at(&file, 10..13);
        assert_eq!(
            text(&diagnostic, Some(&file)),
            "error[name-not-lowercase]: `name` `Bad` must be lowercase\n --> s/SKILL.md:2:7\n  |\n2 | name: Bad\n  |       ^^^\n  = hint: use `bad`\n"
        );
        assert_eq!(
            line(&diagnostic),
            "s/SKILL.md:2:7: error[name-not-lowercase]: `name` `Bad` must be lowercase (hint: use `bad`)"
        );
        let value = json(&diagnostic);
        assert_eq!(value["line"], 2);
        assert_eq!(value["column"], 7);
        assert_eq!(value["code"], "name-not-lowercase");
    }
}
