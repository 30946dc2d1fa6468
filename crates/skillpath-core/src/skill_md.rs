//! Parsing the text of a `SKILL.md` into frontmatter (a YAML tree) and body.
//!
//! Parsing never fails outright: a broken file is normal input, so the result is whatever could
//! be read plus diagnostics (the model of rust-analyzer's parser).

use std::ops::Range;
use std::path::PathBuf;

use crate::diagnostic::{Code, Diagnostic, SourceFile};
use crate::frontmatter::{self, SplitError};
use crate::mode::Mode;
use crate::yaml::{self, Construct, Node, NodeKind};

/// A parsed `SKILL.md`.
#[derive(Debug, Clone)]
pub struct SkillMd {
    /// The file's text and path.
    pub file: SourceFile,
    /// The frontmatter mapping, when one could be read.
    pub frontmatter: Option<Node>,
    /// Byte range of the body in the text.
    pub body: Range<usize>,
    /// Everything found while parsing.
    pub diagnostics: Vec<Diagnostic>,
}

impl SkillMd {
    /// The body text, as written.
    pub fn body(&self) -> &str {
        &self.file.text[self.body.clone()]
    }

    /// The frontmatter entry for `key`.
    pub fn field(&self, key: &str) -> Option<&yaml::Entry> {
        self.frontmatter.as_ref().and_then(|root| root.get(key))
    }

    /// The text of the scalar frontmatter field `key`, as written.
    pub fn text_field(&self, key: &str) -> Option<&str> {
        self.field(key)?
            .value
            .as_scalar()
            .map(|scalar| scalar.text.as_str())
    }

    /// The frontmatter as JSON (YAML 1.2 core schema), the form the MCP Skills extension returns.
    pub fn frontmatter_json(&self) -> serde_json::Value {
        self.frontmatter
            .as_ref()
            .map_or(serde_json::Value::Null, yaml::to_json)
    }
}

const BOM: &str = "\u{feff}";

/// Why [`renamed`] cannot rename a frontmatter.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RenameProblem {
    /// There is no `name` field.
    #[error("the frontmatter has no `name` to replace")]
    NoName,
    /// The field (`name` or `tool_name`) is a block or multi-line value.
    #[error("the frontmatter's `{0}` is not a one-line value that can be replaced")]
    NotOneLine(&'static str),
}

/// `text` (a `SKILL.md`, or a package's `PACKAGE.md`) with its frontmatter's `name` set to
/// `name` and, when it has one, its `tool_name` to `name` with `_` for `-` (so that the copy
/// has a tool of its own), every other byte kept: what a fork is written with. `name` must be a
/// plain YAML scalar (kebab-case is). Refused, with why, when the frontmatter has no one-line
/// `name` (or `tool_name`) to replace.
pub fn renamed(text: &str, name: &str) -> Result<String, RenameProblem> {
    let parsed = parse("SKILL.md".into(), text.to_owned(), Mode::Lenient);
    let tool_name = name.replace('-', "_");
    let mut edits: Vec<(Range<usize>, &str)> = Vec::new();
    for (key, value) in [("name", name), ("tool_name", tool_name.as_str())] {
        let Some(entry) = parsed.field(key) else {
            if key == "name" {
                return Err(RenameProblem::NoName);
            }
            continue;
        };
        let one_line = entry.value.as_scalar().is_some_and(|scalar| {
            matches!(
                scalar.style,
                yaml::ScalarStyle::Plain
                    | yaml::ScalarStyle::SingleQuoted
                    | yaml::ScalarStyle::DoubleQuoted
            )
        }) && !text
            .get(entry.value.range.clone())
            .is_none_or(|written| written.contains('\n'));
        if !one_line {
            return Err(RenameProblem::NotOneLine(key));
        }
        edits.push((entry.value.range.clone(), value));
    }
    edits.sort_by_key(|(range, _)| std::cmp::Reverse(range.start));
    let mut out = text.to_owned();
    for (range, value) in edits {
        out.replace_range(range, value);
    }
    Ok(out)
}

/// Parses `text`, the contents of the `SKILL.md` at `path`, as `mode` reads it.
pub fn parse(path: PathBuf, text: String, mode: Mode) -> SkillMd {
    let file = SourceFile::new(path, text);
    let mut diagnostics = Vec::new();
    let reference = mode == Mode::SkillsRef;
    let text = file.text.as_str();

    // A NUL is never text an agent should read, YAML refuses it, and PostgreSQL cannot store
    // it; the reference validator reads past one in the body, so its mode does too.
    if !reference && let Some(offset) = text.find('\0') {
        diagnostics.push(
            Diagnostic::error(
                Code::NulCharacter,
                "`SKILL.md` contains a NUL character (U+0000)",
            )
            .with_hint("remove it; a `SKILL.md` is text")
            .at(&file, offset..offset + 1),
        );
    }
    let split = if reference {
        frontmatter::split_substring(text)
    } else {
        let start = if text.starts_with(BOM) {
            diagnostics.push(
                Diagnostic::warning(Code::ByteOrderMark, "`SKILL.md` starts with a UTF-8 byte-order mark")
                    .with_hint("save the file as UTF-8 without a BOM; some agents will not find the frontmatter")
                    .at(&file, 0..BOM.len()),
            );
            BOM.len()
        } else {
            0
        };
        frontmatter::split_lines(text, start)
    };

    let split = match split {
        Ok(split) => split,
        Err(error) => {
            diagnostics.push(split_error(&file, error, mode));
            return SkillMd {
                body: 0..file.text.len(),
                file,
                frontmatter: None,
                diagnostics,
            };
        }
    };

    let yaml_text = &text[split.yaml.clone()];
    let dialect = if reference {
        yaml::Dialect::StrictYaml
    } else {
        yaml::Dialect::Yaml12
    };
    let parsed = match yaml::parse(yaml_text, split.yaml.start, dialect) {
        Err(error) if mode == Mode::Lenient => {
            repair::reparse(yaml_text, split.yaml.start, &file).map_err(|_| error)
        }
        other => other.map(|document| (document, Vec::new())),
    };
    let frontmatter = match parsed {
        Ok((document, repairs)) => {
            diagnostics.extend(repairs);
            match strictyaml_refusal(&document, mode) {
                Some((message, range)) => {
                    let error = yaml::YamlError {
                        kind: yaml::YamlErrorKind::Syntax,
                        message,
                        offset: range.start,
                    };
                    diagnostics.push(yaml_error(&file, mode, &error, range));
                    None
                }
                None => Some(document.root),
            }
        }
        Err(error) => {
            diagnostics.push(yaml_error(&file, mode, &error, error.offset..error.offset));
            None
        }
    };

    let frontmatter = match frontmatter {
        Some(Some(root)) if matches!(root.kind, NodeKind::Mapping(_)) => Some(root),
        Some(root) => {
            let range = root
                .as_ref()
                .map_or(split.yaml.clone(), |node| node.range.clone());
            let message = if reference {
                "SKILL.md frontmatter must be a YAML mapping".to_owned()
            } else {
                let found = root.as_ref().map_or("nothing", Node::kind_name);
                format!("frontmatter must be a mapping of fields, found {found}")
            };
            diagnostics.push(
                Diagnostic::error(Code::FrontmatterNotMapping, message)
                    .with_hint("write the frontmatter as `key: value` lines, starting with `name:` and `description:`")
                    .at(&file, range),
            );
            None
        }
        None => None,
    };

    if let Some(NodeKind::Mapping(entries)) = frontmatter.as_ref().map(|root| &root.kind) {
        for entry in entries
            .iter()
            .filter(|entry| entry.key.as_scalar().is_none())
        {
            diagnostics.push(
                Diagnostic::error(
                    Code::YamlNonStringKey,
                    "frontmatter keys must be plain strings",
                )
                .at(&file, entry.key.range.clone()),
            );
        }
    }

    SkillMd {
        body: split.body,
        file,
        frontmatter,
        diagnostics,
    }
}

/// The range of the first mapping key, anywhere in `node`, that is a list or a mapping.
#[cfg(test)]
mod renamed_tests {
    use super::renamed;

    #[test]
    fn a_rename_changes_the_name_and_tool_name_and_keeps_every_other_byte() {
        let text = "---\nname: 'add-cache'  # the skill\ndescription: Adds a cache.\ntool_name: add_cache\n---\n\nBody name: add-cache.\n";
        assert_eq!(
            renamed(text, "acme-cache").expect("renamed"),
            "---\nname: acme-cache  # the skill\ndescription: Adds a cache.\ntool_name: acme_cache\n---\n\nBody name: add-cache.\n"
        );
        let plain = "---\nname: x\ndescription: d\n---\n";
        assert_eq!(
            renamed(plain, "y-z").expect("renamed"),
            "---\nname: y-z\ndescription: d\n---\n"
        );
        assert!(renamed("---\ndescription: d\n---\n", "y").is_err());
        assert!(renamed("---\nname: |\n  x\ndescription: d\n---\n", "y").is_err());
    }
}

fn first_collection_key(node: &Node) -> Option<Range<usize>> {
    match &node.kind {
        NodeKind::Scalar(_) => None,
        NodeKind::Sequence(items) => items.iter().find_map(first_collection_key),
        NodeKind::Mapping(entries) => entries.iter().find_map(|entry| match entry.key.kind {
            NodeKind::Scalar(_) => first_collection_key(&entry.value),
            _ => Some(entry.key.range.clone()),
        }),
    }
}

fn split_error(file: &SourceFile, error: SplitError, mode: Mode) -> Diagnostic {
    let reference = mode == Mode::SkillsRef;
    match error {
        SplitError::Missing => Diagnostic::error(
            Code::FrontmatterMissing,
            if reference {
                "SKILL.md must start with YAML frontmatter (---)"
            } else {
                "`SKILL.md` must start with a line `---` that opens the YAML frontmatter"
            },
        )
        .with_hint("start the file with `---`, then `name:` and `description:` lines, then another `---` line")
        .at(file, 0..0),
        SplitError::Unclosed => Diagnostic::error(
            Code::FrontmatterUnclosed,
            if reference {
                "SKILL.md frontmatter not properly closed with ---"
            } else {
                "the frontmatter is never closed: no line after the first is exactly `---`"
            },
        )
        .with_hint("add a line `---` after the last frontmatter field")
        .at(file, 0..3.min(file.text.len())),
    }
}

fn yaml_error(
    file: &SourceFile,
    mode: Mode,
    error: &yaml::YamlError,
    range: Range<usize>,
) -> Diagnostic {
    let detail = &error.message;
    let message = if mode == Mode::SkillsRef {
        format!("Invalid YAML in frontmatter: {detail}")
    } else {
        format!("invalid YAML in frontmatter: {detail}")
    };
    let (code, hint) = match error.kind {
        yaml::YamlErrorKind::DuplicateKey => (Code::YamlDuplicateKey, "remove one of the two keys"),
        yaml::YamlErrorKind::TooComplex => (
            Code::YamlTooComplex,
            "keep the frontmatter small: write values out instead of repeating them through aliases, and put long material in the body or in `references/` files",
        ),
        yaml::YamlErrorKind::Syntax if detail.contains("mapping values are not allowed") => (
            Code::YamlSyntax,
            "quote a value that contains `: `, e.g. `description: \"Use when: ...\"` (`--mode lenient` repairs this)",
        ),
        yaml::YamlErrorKind::Syntax => (
            Code::YamlSyntax,
            "check the YAML syntax near this position; quote values that start with a special character",
        ),
    };
    Diagnostic::error(code, message)
        .with_hint(hint)
        .at(file, range)
}

/// What strictyaml (the reference validator's YAML library) refuses in a document that parses
/// as YAML, in strictyaml's words: the first refused construct, else a list or mapping used as
/// a key (an "unhashable key" for Python). Every other mode accepts standard YAML.
fn strictyaml_refusal(document: &yaml::Document, mode: Mode) -> Option<(String, Range<usize>)> {
    if mode != Mode::SkillsRef {
        return None;
    }
    let Some((construct, range)) = document.constructs.first() else {
        let range = document.root.as_ref().and_then(first_collection_key)?;
        return Some((
            "while constructing a mapping\nfound unhashable key".to_owned(),
            range,
        ));
    };
    let message = match construct {
        Construct::FlowCollection => {
            "While scanning\nFound ugly disallowed JSONesque flow mapping (surround with ' and ' to make text appear literally)"
        }
        Construct::Anchor => {
            "While scanning\nFound confusing disallowed anchor token (surround with ' and ' to make text appear literally)"
        }
        Construct::Alias => "found undefined alias",
        Construct::Tag => {
            "While scanning\nFound disallowed tag tokens (do not specify types in markup)"
        }
        Construct::NextLineInBlockScalar | Construct::LineBreakInComment => {
            "while parsing a block mapping\nexpected <block end>, but found '<scalar>'"
        }
        Construct::LineBreakAtLineStart => "mapping values are not allowed here",
        Construct::Tab => {
            "while scanning for the next token\nfound character '\\t' that cannot start any token"
        }
    };
    Some((message.to_owned(), range.clone()))
}

/// Lenient mode's repair of the most common frontmatter mistake: an unquoted value that
/// contains `: ` (`description: Use when: the user asks`), which YAML reads as a nested mapping.
mod repair {
    use super::*;

    /// Quotes every plain value containing `: ` and parses again; on success returns the
    /// document with ranges mapped back to the original text, and one warning per repair.
    pub(super) fn reparse(
        yaml_text: &str,
        base: usize,
        file: &SourceFile,
    ) -> Result<(yaml::Document, Vec<Diagnostic>), yaml::YamlError> {
        let mut repaired = String::with_capacity(yaml_text.len() + 16);
        // (offset in the repaired text, bytes inserted before it so far)
        let mut shifts: Vec<(usize, usize)> = Vec::new();
        let mut warnings = Vec::new();
        let mut inserted = 0;
        let mut line_start = 0;
        // Indentation of the key whose value is a block scalar (`key: |`) while inside it:
        // block scalar lines are text, never repaired.
        let mut block_parent_indent = None;
        for line in yaml_text.split_inclusive('\n') {
            let content = line.trim_end_matches(['\n', '\r']);
            let indent = content.len() - content.trim_start_matches(' ').len();
            if let Some(parent) = block_parent_indent {
                if content.trim().is_empty() || indent > parent {
                    repaired.push_str(line);
                    line_start += line.len();
                    continue;
                }
                block_parent_indent = None;
            }
            if starts_block_scalar(content) {
                block_parent_indent = Some(indent);
            }
            match quotable_value(content) {
                Some(value) => {
                    let value_start = line_start + value.start;
                    repaired.push_str(&line[..value.start]);
                    let text = &content[value.clone()];
                    repaired.push('\'');
                    inserted += 1;
                    shifts.push((repaired.len(), inserted));
                    for c in text.chars() {
                        if c == '\'' {
                            repaired.push('\'');
                            inserted += 1;
                            shifts.push((repaired.len(), inserted));
                        }
                        repaired.push(c);
                    }
                    repaired.push('\'');
                    inserted += 1;
                    shifts.push((repaired.len(), inserted));
                    repaired.push_str(&line[value.end..]);
                    warnings.push(
                        Diagnostic::warning(Code::YamlRepaired, "quoted a value that contains `: ` so the frontmatter parses")
                            .with_hint("quote the value in the file; strict YAML parsers and `--mode spec` reject it")
                            .at(file, base + value_start..base + line_start + value.end),
                    );
                }
                None => repaired.push_str(line),
            }
            line_start += line.len();
        }
        if warnings.is_empty() {
            return Err(yaml::YamlError {
                kind: yaml::YamlErrorKind::Syntax,
                message: String::new(),
                offset: base,
            });
        }
        let mut document = yaml::parse(&repaired, 0, yaml::Dialect::Yaml12)?;
        let to_original = |offset: usize| {
            let index = shifts.partition_point(|&(at, _)| at <= offset);
            let shift = if index == 0 { 0 } else { shifts[index - 1].1 };
            base + offset.saturating_sub(shift).min(yaml_text.len())
        };
        if let Some(root) = document.root.as_mut() {
            remap(root, &to_original);
        }
        for (_, range) in &mut document.constructs {
            *range = to_original(range.start)..to_original(range.end);
        }
        Ok((document, warnings))
    }

    /// Whether the line's value opens a block scalar (`key: |`, `key: >-`, `- |`).
    fn starts_block_scalar(line: &str) -> bool {
        let value = match line.split_once(": ") {
            Some((_, value)) => value,
            None => line.trim_start().strip_prefix("- ").unwrap_or(""),
        };
        value.trim_start().starts_with(['|', '>'])
    }

    /// The range of a `key: value` line's value that needs quoting, if any.
    fn quotable_value(line: &str) -> Option<Range<usize>> {
        let indent = line.len() - line.trim_start_matches(' ').len();
        let after_key = line[indent..].find(": ")? + indent + 2;
        let key = &line[indent..after_key - 2];
        if key.is_empty()
            || !key
                .chars()
                .all(|c| c.is_alphanumeric() || matches!(c, '-' | '_'))
        {
            return None;
        }
        let value_start =
            after_key + (line.len() - after_key - line[after_key..].trim_start().len());
        let mut value = line[value_start..].trim_end();
        if let Some(comment) = value.find(" #") {
            value = value[..comment].trim_end();
        }
        let starts_special = value.starts_with(['\'', '"', '|', '>', '[', '{', '&', '*', '!', '#']);
        (!starts_special && (value.contains(": ") || value.ends_with(':')))
            .then_some(value_start..value_start + value.len())
    }

    fn remap(node: &mut Node, to_original: &impl Fn(usize) -> usize) {
        node.range = to_original(node.range.start)..to_original(node.range.end);
        match &mut node.kind {
            NodeKind::Scalar(_) => {}
            NodeKind::Sequence(items) => items.iter_mut().for_each(|item| remap(item, to_original)),
            NodeKind::Mapping(entries) => {
                for entry in entries {
                    remap(&mut entry.key, to_original);
                    remap(&mut entry.value, to_original);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_str(text: &str, mode: Mode) -> SkillMd {
        parse(PathBuf::from("s/SKILL.md"), text.to_owned(), mode)
    }

    fn codes(skill: &SkillMd) -> Vec<Code> {
        skill.diagnostics.iter().map(|d| d.code).collect()
    }

    #[test]
    fn bom_is_a_warning_except_in_skills_ref_mode() {
        let text = "\u{feff}---\nname: a\ndescription: b\n---\n";
        let spec = parse_str(text, Mode::Spec);
        assert_eq!(codes(&spec), [Code::ByteOrderMark]);
        assert!(spec.frontmatter.is_some());
        let reference = parse_str(text, Mode::SkillsRef);
        assert_eq!(
            reference.diagnostics[0].message,
            "SKILL.md must start with YAML frontmatter (---)"
        );
    }

    #[test]
    fn strictyaml_constructs_fail_only_in_skills_ref_mode() {
        let text = "---\nname: a\ndescription: b\nallowed-tools: [Read, Bash]\n---\n";
        assert!(parse_str(text, Mode::Spec).diagnostics.is_empty());
        let reference = parse_str(text, Mode::SkillsRef);
        assert!(
            reference.diagnostics[0]
                .message
                .starts_with("Invalid YAML in frontmatter: ")
        );
        assert_eq!(
            reference.diagnostics[0]
                .location
                .as_ref()
                .map(|l| (l.start.line, l.start.column)),
            Some((4, 16))
        );
    }

    #[test]
    fn non_mapping_frontmatter_is_an_error() {
        for text in [
            "---\n- a\n---\n",
            "---\njust text\n---\n",
            "---\n---\n",
            "---\n# only a comment\n---\n",
        ] {
            assert_eq!(
                codes(&parse_str(text, Mode::Spec)),
                [Code::FrontmatterNotMapping],
                "{text:?}"
            );
        }
    }

    #[test]
    fn lenient_mode_repairs_unquoted_colons_and_keeps_positions() {
        let text = "---\nname: pdf\ndescription: Use this skill when: the user asks about PDFs\nlicense: MIT\n---\nBody\n";
        let strict = parse_str(text, Mode::Spec);
        assert_eq!(codes(&strict), [Code::YamlSyntax]);
        let lenient = parse_str(text, Mode::Lenient);
        assert_eq!(codes(&lenient), [Code::YamlRepaired]);
        let description = lenient.field("description").expect("description");
        let scalar = description.value.as_scalar().expect("scalar");
        assert_eq!(scalar.text, "Use this skill when: the user asks about PDFs");
        assert_eq!(
            &lenient.file.text[description.value.range.clone()],
            "Use this skill when: the user asks about PDFs"
        );
        let license = lenient.field("license").expect("license");
        assert_eq!(&lenient.file.text[license.value.range.clone()], "MIT");
    }

    #[test]
    fn frontmatter_json_uses_the_core_schema() {
        let skill = parse_str(
            "---\nname: a\ndescription: b\nmetadata:\n  version: 1.0\n  n: '2'\n---\n",
            Mode::Spec,
        );
        assert_eq!(
            skill.frontmatter_json(),
            serde_json::json!({"name": "a", "description": "b", "metadata": {"version": 1.0, "n": "2"}})
        );
    }
}
