//! Template files and placeholders: finding a template safely among its skill's files, `// {{#if X}}` … `// {{/if}}` line blocks, and `{PascalCase}`
//! substitution.

use std::path::{Component, Path};

use crate::bundle::{self, Lookup, SkillBundle};

use super::budget::{Budget, Exceeded};
use super::values::Values;

/// Templates larger than this are not read (the same bound as `SKILL.md`).
const MAX_TEMPLATE_SIZE: u64 = crate::load::DEFAULT_MAX_FILE_SIZE;

/// Why a template cannot be used. Its text follows the template's name in a diagnostic or a
/// rendered warning ("template `x.rs` was not found in the skill folder").
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TemplateProblem {
    /// The path is refused before it is looked for: empty, `..` or absolute.
    #[error("must be a path inside the skill folder (no `..`, no absolute path)")]
    NotInside,
    /// No such file among the skill's files.
    #[error("was not found in the skill folder")]
    NotFound,
    /// The path names a folder.
    #[error("is not a file")]
    NotAFile,
    /// The path passes through a symlink that leads out of the skill.
    #[error("leads out of the skill folder through a symlink")]
    LinksOut,
    /// Too large, or not UTF-8: the message of the diagnostic reading it gave.
    #[error("cannot be read: {0}")]
    Unreadable(String),
}

/// Whether `name` is a template path that can be looked for: not empty, and only names (and
/// `.`), no `..`, no root.
fn is_plain_path(name: &str) -> bool {
    !name.is_empty()
        && Path::new(name)
            .components()
            .all(|c| matches!(c, Component::Normal(_) | Component::CurDir))
}

/// Why the target path `target` is not a path inside the project the agent works in, if it
/// is not: a target is where the agent writes the rendered template, so an absolute path
/// (`/etc/x`, `\\server\x`, `C:\x`, `~/x`) or a `..` part would send a write outside the project.
/// Both separators count, since the agent may work on Windows.
pub fn target_outside_project(target: &str) -> Option<String> {
    let trimmed = target.trim();
    let bytes = trimmed.as_bytes();
    let absolute = trimmed.starts_with(['/', '\\', '~'])
        || (bytes.len() >= 2 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':');
    let climbs = trimmed.split(['/', '\\']).any(|part| part.trim() == "..");
    (absolute || climbs).then(|| {
        format!("target `{target}` must be a path inside the project (no `..`, no absolute path)")
    })
}

/// Where a skill's template files come from: its files in memory ([`SkillBundle`]), or its
/// stored files by path.
pub trait TemplateSource {
    /// The text of template `name` (a path relative to the skill), or why it cannot be used.
    fn template(&self, name: &str) -> Result<String, TemplateProblem>;
}

/// A skill's stored files by relative path (the server's catalog): found by the same path rule
/// and read by the same size and UTF-8 rules as a [`SkillBundle`]'s.
impl TemplateSource for std::collections::HashMap<&str, &[u8]> {
    fn template(&self, name: &str) -> Result<String, TemplateProblem> {
        let relative = relative_path(name)?;
        let bytes = self
            .get(relative.as_str())
            .ok_or(TemplateProblem::NotFound)?;
        text_of(Path::new(name), bytes)
    }
}

/// Template `name` as a `/`-separated path inside its skill, or why it cannot be one.
fn relative_path(name: &str) -> Result<String, TemplateProblem> {
    bundle::inside(name)
        .filter(|_| is_plain_path(name))
        .ok_or(TemplateProblem::NotInside)
}

/// The bytes of template `name` among the files of `bundle`, or why it cannot be used.
pub(crate) fn find_in<'a>(
    bundle: &'a SkillBundle,
    name: &str,
) -> Result<&'a [u8], TemplateProblem> {
    match bundle.lookup(&relative_path(name)?) {
        Lookup::File(bytes) => Ok(bytes),
        Lookup::Folder => Err(TemplateProblem::NotAFile),
        Lookup::LinkOut => Err(TemplateProblem::LinksOut),
        Lookup::NestedSkill | Lookup::Missing => Err(TemplateProblem::NotFound),
    }
}

/// `bytes`, template `name` of `bundle`, as text within the template size limit, or why it
/// cannot be read.
pub(crate) fn text(
    bundle: &SkillBundle,
    name: &str,
    bytes: &[u8],
) -> Result<String, TemplateProblem> {
    text_of(&bundle.display_path.join(name), bytes)
}

/// `bytes`, the template at `path`, as text within the template size limit, or why not.
fn text_of(path: &Path, bytes: &[u8]) -> Result<String, TemplateProblem> {
    crate::load::text_within(path, bytes.to_vec(), MAX_TEMPLATE_SIZE)
        .map_err(|diagnostic| TemplateProblem::Unreadable(diagnostic.message))
}

/// A skill's files in memory: templates are found among them, never on disk.
impl TemplateSource for SkillBundle {
    fn template(&self, name: &str) -> Result<String, TemplateProblem> {
        text(self, name, find_in(self, name)?)
    }
}

/// A `{{#if X}}` or `{{/if}}` marker line, written inside a comment so the template stays
/// valid source (`// {{#if redis}}`, `# {{/if}}`, `<!-- {{#if x}} -->`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Marker<'a> {
    If(&'a str),
    EndIf,
}

pub(crate) fn marker(line: &str) -> Option<Marker<'_>> {
    let mut text = line.trim();
    for opener in ["//", "<!--", "/*", "#", "--", ";"] {
        if let Some(rest) = text.strip_prefix(opener) {
            text = rest.trim_start();
            break;
        }
    }
    for closer in ["-->", "*/"] {
        if let Some(rest) = text.strip_suffix(closer) {
            text = rest.trim_end();
        }
    }
    let inner = text.strip_prefix("{{")?.strip_suffix("}}")?.trim();
    if inner == "/if" {
        return Some(Marker::EndIf);
    }
    let expression = inner.strip_prefix("#if")?;
    let expression = expression.strip_prefix(char::is_whitespace)?.trim();
    (!expression.is_empty()).then_some(Marker::If(expression))
}

/// The `{{#if}}` expressions of a template, and whether its blocks are balanced.
pub(crate) struct IfBlocks<'a> {
    pub(crate) expressions: Vec<&'a str>,
    /// Line numbers (1-based) of `{{/if}}` lines without an open block, and of blocks never closed.
    pub(crate) unbalanced: Vec<usize>,
}

pub(crate) fn if_blocks(content: &str) -> IfBlocks<'_> {
    let mut expressions = Vec::new();
    let mut open = Vec::new();
    let mut unbalanced = Vec::new();
    for (index, line) in content.lines().enumerate() {
        match marker(line) {
            Some(Marker::If(expression)) => {
                expressions.push(expression);
                open.push(index + 1);
            }
            Some(Marker::EndIf) if open.pop().is_none() => unbalanced.push(index + 1),
            Some(Marker::EndIf) | None => {}
        }
    }
    unbalanced.extend(open);
    IfBlocks {
        expressions,
        unbalanced,
    }
}

/// Processes a template: keeps or drops `{{#if}}` blocks (nesting allowed; the marker lines
/// always go), then substitutes placeholders, within `budget`.
pub(crate) fn process(
    content: &str,
    values: &Values,
    budget: &mut Budget,
) -> Result<String, Exceeded> {
    let mut kept = String::with_capacity(content.len());
    let mut stack: Vec<bool> = Vec::new();
    for line in content.split_inclusive('\n') {
        match marker(line) {
            Some(Marker::If(expression)) => stack.push(values.if_expression(expression)),
            Some(Marker::EndIf) => {
                stack.pop();
            }
            None if stack.iter().all(|keep| *keep) => kept.push_str(line),
            None => {}
        }
    }
    let mut out = String::new();
    substitute_into(&mut out, &kept, values, budget)?;
    Ok(out)
}

/// [`substitute_into`] a new string, without bounds (for short texts such as a target path,
/// whose values are already bounded).
pub(crate) fn substitute(text: &str, values: &Values) -> String {
    let mut out = String::with_capacity(text.len());
    // An unbounded budget is never exceeded.
    let _ = substitute_into(&mut out, text, values, &mut Budget::unbounded());
    out
}

/// Appends `text` to `out` with `{Name}` replaced by the value of the argument whose
/// placeholder is `Name`. Braces that name no argument, or an argument without a value, stay
/// as written (code is full of braces); `\{Name}` writes a literal `{Name}`. Stops as soon as
/// `budget` would be exceeded, before the output grows past it.
pub(crate) fn substitute_into(
    out: &mut String,
    text: &str,
    values: &Values,
    budget: &mut Budget,
) -> Result<(), Exceeded> {
    let mut rest = text;
    while let Some(open) = rest.find('{') {
        let (before, from_brace) = rest.split_at(open);
        let name = placeholder_at(from_brace);
        let value = name.and_then(|name| values.placeholder(name));
        match (name, value) {
            (Some(name), _) if before.ends_with('\\') => {
                budget.push(out, &before[..before.len() - 1])?;
                budget.push(out, &from_brace[..name.len() + 2])?;
                rest = &from_brace[name.len() + 2..];
            }
            (Some(name), Some(value)) => {
                budget.push(out, before)?;
                budget.substitution()?;
                budget.push(out, value)?;
                rest = &from_brace[name.len() + 2..];
            }
            _ => {
                budget.push(out, before)?;
                budget.push(out, "{")?;
                rest = &from_brace[1..];
            }
        }
    }
    budget.push(out, rest)
}

/// The `Name` of a `{Name}` at the start of `text`, when `Name` is `PascalCase` letters and digits.
pub(crate) fn placeholder_at(text: &str) -> Option<&str> {
    let inner = text.strip_prefix('{')?;
    let end = inner.find('}')?;
    let name = &inner[..end];
    let mut chars = name.chars();
    (chars.next().is_some_and(|c| c.is_ascii_uppercase())
        && chars.all(|c| c.is_ascii_alphanumeric()))
    .then_some(name)
}

/// Every `{PascalCase}` in `text` that is not escaped, with its byte offset.
pub(crate) fn placeholders(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.match_indices('{').filter_map(move |(at, _)| {
        let name = placeholder_at(&text[at..])?;
        (!text[..at].ends_with('\\')).then_some((at, name))
    })
}

/// A code fence longer than any run of backticks in `content`.
pub(crate) fn fence_for(content: &str) -> String {
    let longest = content.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    "`".repeat(longest.max(2) + 1)
}

/// The code-block language for a template file name, from its extension.
pub(crate) fn language(name: &str) -> &'static str {
    let file = name.rsplit('/').next().unwrap_or(name).to_ascii_lowercase();
    if file == "dockerfile" {
        return "dockerfile";
    }
    let extension = file.rsplit_once('.').map_or("", |(_, ext)| ext);
    match extension {
        "cs" => "csharp",
        "csproj" | "xml" | "props" | "targets" => "xml",
        "ts" => "typescript",
        "tsx" => "tsx",
        "js" | "mjs" | "cjs" => "javascript",
        "jsx" => "jsx",
        "py" => "python",
        "rs" => "rust",
        "go" => "go",
        "java" => "java",
        "kt" => "kotlin",
        "rb" => "ruby",
        "json" => "json",
        "yaml" | "yml" => "yaml",
        "toml" => "toml",
        "md" => "markdown",
        "sh" | "bash" => "bash",
        "sql" => "sql",
        "html" => "html",
        "css" => "css",
        "tf" => "hcl",
        "proto" => "protobuf",
        "graphql" | "gql" => "graphql",
        _ => "",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::golden_path::args::{Arg, ArgType};
    use crate::golden_path::values::{ResolvedArg, Values};

    /// Values of string arguments; `cache_provider` allows `redis` and `memory`.
    fn values(pairs: &[(&str, Option<&str>)]) -> Values {
        Values::new(
            pairs
                .iter()
                .map(|(name, value)| ResolvedArg {
                    arg: Arg {
                        name: (*name).into(),
                        description: None,
                        required: false,
                        arg_type: ArgType::String,
                        allowed: (*name == "cache_provider")
                            .then(|| vec!["redis".into(), "memory".into()]),
                        default: None,
                    },
                    value: value.map(str::to_owned),
                    defaulted: false,
                })
                .collect(),
        )
    }

    #[test]
    fn substitutes_known_placeholders_only() {
        let values = values(&[("service_name", Some("Orders")), ("entity", None)]);
        assert_eq!(
            substitute(
                "src/{ServiceName}/{Other}/{entity}/{Entity} { get; set; } $\"{ServiceName}\" \\{ServiceName} \\{Other}",
                &values
            ),
            "src/Orders/{Other}/{entity}/{Entity} { get; set; } $\"Orders\" {ServiceName} {Other}"
        );
    }

    #[test]
    fn if_blocks_keep_or_drop_lines() {
        let redis = values(&[
            ("cache_provider", Some("redis")),
            ("use_metrics", Some("false")),
        ]);
        let template = "a\n// {{#if redis}}\nredis line\n  // {{#if UseMetrics}}\n  metrics\n  // {{/if}}\n// {{/if}}\n# {{#if CacheProvider=memory}}\nmemory line\n# {{/if}}\n<!-- {{#if CacheProvider!=memory}} -->\nnot memory\n<!-- {{/if}} -->\nz\n";
        let process = |template: &str, values: &Values| {
            process(template, values, &mut Budget::unbounded()).expect("within bounds")
        };
        assert_eq!(process(template, &redis), "a\nredis line\nnot memory\nz\n");
        // A flag is an allowed value of an argument, not any value: `Memory` as a service name
        // does not turn on `{{#if memory}}`.
        let named = values(&[
            ("cache_provider", Some("redis")),
            ("service_name", Some("Memory")),
        ]);
        assert_eq!(process("// {{#if memory}}\nx\n// {{/if}}\n", &named), "");
    }

    #[test]
    fn unbalanced_blocks_are_found() {
        let blocks = if_blocks("// {{/if}}\n// {{#if a}}\nx\n");
        assert_eq!(blocks.unbalanced, [1, 2]);
        assert_eq!(blocks.expressions, ["a"]);
    }

    #[test]
    fn fences_outgrow_the_content() {
        assert_eq!(fence_for("no ticks"), "```");
        assert_eq!(fence_for("```rust\n```"), "````");
    }

    #[test]
    fn targets_stay_inside_the_project() {
        for target in ["src/{ServiceName}/x.cs", "x", "a..b/c", "{Root}/x"] {
            assert_eq!(target_outside_project(target), None, "{target}");
        }
        for target in [
            "../x",
            "src/../../x",
            "/etc/x",
            "\\\\host\\x",
            "C:\\x",
            "c:x",
            "~/x",
            "a\\..\\b",
        ] {
            assert!(target_outside_project(target).is_some(), "{target}");
        }
    }

    #[test]
    fn templates_are_found_among_the_files_of_a_bundle() {
        let mut bundle = SkillBundle::named(
            "skill",
            "---\nname: skill\ndescription: d\n---\n",
            [
                ("templates/A.cs".to_owned(), b"class A {}".to_vec()),
                ("bad.txt".to_owned(), vec![b'a', 0xff]),
            ],
        );
        bundle.beside.links_out.insert("link.txt".to_owned());
        assert_eq!(
            bundle.template("templates/A.cs").as_deref(),
            Ok("class A {}")
        );
        assert_eq!(
            bundle.template("./templates/A.cs").as_deref(),
            Ok("class A {}")
        );
        for (name, problem) in [
            ("../secret.txt", "must be a path inside"),
            ("/etc/passwd", "must be a path inside"),
            ("", "must be a path inside"),
            ("templates", "is not a file"),
            (
                "link.txt",
                "leads out of the skill folder through a symlink",
            ),
            ("missing.cs", "was not found"),
            // A file of the process's working folder is not one of the skill's.
            ("Cargo.toml", "was not found"),
            (
                "bad.txt",
                "cannot be read: `skill/bad.txt` is not valid UTF-8: byte 0xff",
            ),
        ] {
            let said = bundle.template(name).expect_err(name).to_string();
            assert!(
                said.starts_with(problem) || said.contains(problem),
                "{name}: {said}"
            );
        }
        let large = vec![b'x'; usize::try_from(MAX_TEMPLATE_SIZE).expect("fits") + 1];
        bundle.files.insert("large.cs".to_owned(), large);
        assert!(
            bundle
                .template("large.cs")
                .expect_err("too large")
                .to_string()
                .contains("over the limit of 4194304 bytes")
        );
    }

    #[test]
    fn templates_stay_inside_the_skill_folder_they_were_read_from() {
        let temp = tempfile::tempdir().expect("tempdir");
        let skill = temp.path().join("skill");
        std::fs::create_dir_all(skill.join("templates")).expect("mkdir");
        std::fs::write(skill.join("SKILL.md"), "---\nname: skill\n---\n").expect("write");
        std::fs::write(skill.join("templates/A.cs"), "class A {}").expect("write");
        std::fs::write(temp.path().join("secret.txt"), "secret").expect("write");
        std::os::unix::fs::symlink(temp.path().join("secret.txt"), skill.join("link.txt"))
            .expect("symlink");
        let bundle = SkillBundle::read_folder(&skill, &crate::load::LoadOptions::default())
            .expect("read the folder");
        assert_eq!(
            bundle.template("templates/A.cs").as_deref(),
            Ok("class A {}")
        );
        assert!(bundle.template("../secret.txt").is_err());
        assert!(bundle.template("/etc/passwd").is_err());
        assert!(
            bundle
                .template("link.txt")
                .expect_err("escapes")
                .to_string()
                .contains("symlink")
        );
        assert!(
            bundle
                .template("missing.cs")
                .expect_err("missing")
                .to_string()
                .contains("not found")
        );
    }
}
