//! Claude Code's arguments on the real skills of the shared corpus that declare them: every
//! one is found, its hint describes its `arguments`, and its body is filled by Claude Code's
//! rules. Which skills declare them is found here by reading the files' lines, as `grep` would,
//! so the count is the corpus's, not the reader's.

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::json;
use skillpath_core::Mode;
use skillpath_core::claude_args::ClaudeArgs;
use skillpath_core::golden_path::render::RenderLimits;
use skillpath_core::skill_md::{self, SkillMd};

use crate::support::corpus_root;

/// Every `SKILL.md` under `dir`.
fn skill_mds(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = fs::read_dir(dir)
        .expect("the corpus folder reads")
        .map(|entry| entry.expect("a folder entry").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            skill_mds(&path, out);
        } else if path.file_name().is_some_and(|name| name == "SKILL.md") {
            out.push(path);
        }
    }
}

/// What the frontmatter lines of `text` say, read line by line: whether it has a top-level
/// `argument-hint:` or `arguments:` line and no Golden Path field, and the hint with one pair
/// of quotes around it removed.
fn declared(text: &str) -> Option<Option<String>> {
    let mut lines = text.lines();
    if lines.next() != Some("---") {
        return None;
    }
    let frontmatter: Vec<&str> = lines.take_while(|line| *line != "---").collect();
    let golden = frontmatter
        .iter()
        .any(|line| line.starts_with("tool_name:") || line.starts_with("args:"));
    let declares = frontmatter
        .iter()
        .any(|line| line.starts_with("argument-hint:") || line.starts_with("arguments:"));
    if golden || !declares {
        return None;
    }
    let hint = frontmatter.iter().find_map(|line| {
        let value = line.strip_prefix("argument-hint:")?.trim();
        let unquoted = ['\'', '"'].iter().find_map(|quote| {
            value
                .strip_prefix(*quote)
                .and_then(|inner| inner.strip_suffix(*quote))
        });
        Some(unquoted.unwrap_or(value).to_owned())
    });
    Some(hint)
}

fn parse(path: &Path) -> SkillMd {
    let text = fs::read_to_string(path).expect("a SKILL.md reads");
    skill_md::parse(path.to_owned(), text, Mode::Lenient)
}

fn arguments(text: &str) -> serde_json::Map<String, serde_json::Value> {
    json!({ "arguments": text })
        .as_object()
        .cloned()
        .unwrap_or_default()
}

/// The body as a render gives it: no leading blank lines or trailing whitespace, one newline.
fn trimmed(body: &str) -> String {
    format!("{}\n", body.trim_start_matches(['\n', '\r']).trim_end())
}

#[test]
fn every_corpus_skill_with_claude_code_arguments_is_read_and_filled() {
    let mut paths = Vec::new();
    skill_mds(&corpus_root(), &mut paths);
    let declaring: Vec<(PathBuf, Option<String>)> = paths
        .iter()
        .filter_map(|path| {
            let text = fs::read_to_string(path).expect("a SKILL.md reads");
            declared(&text).map(|hint| (path.clone(), hint))
        })
        .collect();
    let detected: Vec<&PathBuf> = paths
        .iter()
        .filter(|path| ClaudeArgs::read(&parse(path)).is_some())
        .collect();
    assert!(!declaring.is_empty(), "no corpus skill declares arguments");
    assert_eq!(
        detected,
        declaring.iter().map(|(path, _)| path).collect::<Vec<_>>(),
        "the skills read as taking Claude Code arguments are those whose lines declare them"
    );
    assert_eq!(detected.len(), declaring.len());

    let limits = RenderLimits::default();
    let mut appended = 0;
    for (path, hint) in &declaring {
        let skill = parse(path);
        let claude = ClaudeArgs::read(&skill).expect("detected");
        let args = claude.args();
        assert_eq!(args[0].name, "arguments", "{}", path.display());
        if let Some(hint) = hint {
            assert_eq!(
                args[0].description.as_ref(),
                Some(hint),
                "{}",
                path.display()
            );
        }
        // A body with no placeholder gets the text appended, as Claude Code does.
        let body = skill.body();
        let placeholders = body.contains("$ARGUMENTS")
            || body
                .split('$')
                .skip(1)
                .any(|after| after.starts_with(|c: char| c.is_ascii_digit()));
        if !placeholders && claude.names.is_empty() {
            let rendered = claude
                .render(&skill, &arguments("fix login bug"), &limits)
                .expect("renders");
            assert_eq!(
                rendered,
                format!("{}\nARGUMENTS: fix login bug\n", trimmed(body)),
                "{}",
                path.display()
            );
            appended += 1;
        }
    }
    assert!(appended > 0, "no corpus skill without placeholders");
}

#[test]
fn create_branch_gets_its_arguments_in_place() {
    let path = corpus_root().join("getsentry__skills/skills/create-branch/SKILL.md");
    let skill = parse(&path);
    let claude = ClaudeArgs::read(&skill).expect("create-branch takes arguments");
    assert_eq!(
        claude.args()[0].description.as_deref(),
        Some("[optional description of the work]")
    );
    let rendered = claude
        .render(
            &skill,
            &arguments("fix login bug"),
            &RenderLimits::default(),
        )
        .expect("renders");
    assert!(skill.body().contains("`$ARGUMENTS`"));
    assert!(rendered.contains("- If `fix login bug` is present, use it"));
    assert_eq!(
        rendered,
        trimmed(&skill.body().replace("$ARGUMENTS", "fix login bug"))
    );
    assert!(!rendered.contains("ARGUMENTS"));
}
