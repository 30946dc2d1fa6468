//! Two versions of a skill side by side: each file that differs, line against line.

use std::collections::BTreeMap;

use askama::Template;
use similar::{ChangeTag, TextDiff};

/// The most lines of one file shown in a diff; a longer file is cut, and said to be.
const MAX_LINES: usize = 5_000;

/// A line of one side: its number and text.
type Line = (usize, String);

/// One row of a side-by-side diff.
#[derive(Debug, Clone)]
pub(crate) struct Row {
    /// The old side's line number and text (none where the line was added).
    pub(crate) old: Option<Line>,
    /// The new side's.
    pub(crate) new: Option<Line>,
    /// `same`, `removed`, `added`, `changed`, or `skip` (unchanged lines left out).
    pub(crate) kind: &'static str,
    /// How many unchanged lines a `skip` row stands for.
    pub(crate) skipped: usize,
}

/// Unchanged lines shown around each change; longer runs of them are one `skip` row.
const CONTEXT: usize = 3;

/// One file's diff.
#[derive(Debug, Clone)]
pub(crate) struct FileDiff {
    pub(crate) path: String,
    pub(crate) rows: Vec<Row>,
    /// Why the rows are not the whole file (binary, too long), if they are not.
    pub(crate) note: Option<String>,
}

/// The files of `old` and `new` (path → bytes) that differ, in path order.
pub(crate) fn diff(
    old: &BTreeMap<String, Vec<u8>>,
    new: &BTreeMap<String, Vec<u8>>,
) -> Vec<FileDiff> {
    let paths: std::collections::BTreeSet<&String> = old.keys().chain(new.keys()).collect();
    let empty = Vec::new();
    paths
        .into_iter()
        .filter(|path| old.get(*path) != new.get(*path))
        .map(|path| {
            let (a, b) = (
                old.get(path).unwrap_or(&empty),
                new.get(path).unwrap_or(&empty),
            );
            match (std::str::from_utf8(a), std::str::from_utf8(b)) {
                (Ok(a), Ok(b)) => file_diff(path, a, b),
                _ => FileDiff {
                    path: path.clone(),
                    rows: Vec::new(),
                    note: Some(format!(
                        "not text: {} bytes before, {} bytes after",
                        a.len(),
                        b.len()
                    )),
                },
            }
        })
        .collect()
}

fn file_diff(path: &str, old: &str, new: &str) -> FileDiff {
    let text = TextDiff::from_lines(old, new);
    let mut rows: Vec<Row> = Vec::new();
    let (mut removed, mut added): (Vec<Line>, Vec<Line>) = (vec![], vec![]);
    let flush = |rows: &mut Vec<Row>, removed: &mut Vec<Line>, added: &mut Vec<Line>| {
        let pairs = removed.len().max(added.len());
        let (mut r, mut a) = (removed.drain(..), added.drain(..));
        for _ in 0..pairs {
            let (old, new) = (r.next(), a.next());
            let kind = match (&old, &new) {
                (Some(_), Some(_)) => "changed",
                (Some(_), None) => "removed",
                _ => "added",
            };
            rows.push(Row {
                old,
                new,
                kind,
                skipped: 0,
            });
        }
    };
    for change in text.iter_all_changes() {
        let line = change.value().trim_end_matches(['\n', '\r']).to_owned();
        match change.tag() {
            ChangeTag::Equal => {
                flush(&mut rows, &mut removed, &mut added);
                let (o, n) = (
                    change.old_index().unwrap_or(0) + 1,
                    change.new_index().unwrap_or(0) + 1,
                );
                rows.push(Row {
                    old: Some((o, line.clone())),
                    new: Some((n, line)),
                    kind: "same",
                    skipped: 0,
                });
            }
            ChangeTag::Delete => removed.push((change.old_index().unwrap_or(0) + 1, line)),
            ChangeTag::Insert => added.push((change.new_index().unwrap_or(0) + 1, line)),
        }
        if rows.len() >= MAX_LINES {
            break;
        }
    }
    flush(&mut rows, &mut removed, &mut added);
    let note =
        (rows.len() >= MAX_LINES).then(|| format!("only the first {MAX_LINES} lines are shown"));
    rows.truncate(MAX_LINES);
    FileDiff {
        path: path.to_owned(),
        rows: collapsed(rows),
        note,
    }
}

/// `rows` with each run of unchanged lines longer than the context around the changes made
/// one `skip` row.
fn collapsed(rows: Vec<Row>) -> Vec<Row> {
    let changed: Vec<usize> = (0..rows.len())
        .filter(|&i| rows[i].kind != "same")
        .collect();
    let near = |i: usize| {
        changed
            .iter()
            .any(|&c| i + CONTEXT >= c && i <= c + CONTEXT)
    };
    let mut out: Vec<Row> = Vec::with_capacity(rows.len());
    for (i, row) in rows.into_iter().enumerate() {
        if row.kind != "same" || near(i) {
            out.push(row);
            continue;
        }
        match out.last_mut() {
            Some(last) if last.kind == "skip" => last.skipped += 1,
            _ => out.push(Row {
                old: None,
                new: None,
                kind: "skip",
                skipped: 1,
            }),
        }
    }
    out
}

/// `diffs` as the HTML of the side-by-side tables, its sides labelled `old_label` and
/// `new_label`.
pub(crate) fn html(diffs: Vec<FileDiff>, old_label: &str, new_label: &str) -> String {
    let view = DiffView {
        diffs,
        old_label: old_label.to_owned(),
        new_label: new_label.to_owned(),
    };
    view.render().unwrap_or_default()
}

#[derive(askama::Template)]
#[template(path = "diff.html")]
struct DiffView {
    diffs: Vec<FileDiff>,
    old_label: String,
    new_label: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn changed_lines_sit_side_by_side() {
        let files =
            |text: &str| BTreeMap::from([("SKILL.md".to_owned(), text.as_bytes().to_vec())]);
        let diffs = diff(&files("a\nb\nc\n"), &files("a\nB\nc\nd\n"));
        assert_eq!(diffs.len(), 1);
        let kinds: Vec<&str> = diffs[0].rows.iter().map(|row| row.kind).collect();
        assert_eq!(kinds, ["same", "changed", "same", "added"]);
        assert_eq!(diffs[0].rows[1].old, Some((2, "b".to_owned())));
        assert_eq!(diffs[0].rows[1].new, Some((2, "B".to_owned())));
        assert!(diff(&files("x"), &files("x")).is_empty());
    }

    #[test]
    fn unchanged_runs_beyond_the_context_are_one_row() {
        let files =
            |text: &str| BTreeMap::from([("SKILL.md".to_owned(), text.as_bytes().to_vec())]);
        let long = |changed: &str| {
            let mut lines: Vec<String> = (1..=20).map(|n| format!("line {n}")).collect();
            lines[9] = changed.to_owned();
            files(&lines.join("\n"))
        };
        let diffs = diff(&long("line 10"), &long("line ten"));
        let kinds: Vec<&str> = diffs[0].rows.iter().map(|row| row.kind).collect();
        assert_eq!(
            kinds,
            [
                "skip", "same", "same", "same", "changed", "same", "same", "same", "skip"
            ]
        );
        assert_eq!(diffs[0].rows[0].skipped, 6);
        assert_eq!(diffs[0].rows[8].skipped, 7);
    }
}
