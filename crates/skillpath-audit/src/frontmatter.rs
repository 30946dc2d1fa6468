//! What the frontmatter claims: a name or description that looks like something else (mixed
//! scripts, a look-alike of another skill's name), a description that claims every task, and
//! an `allowed-tools` that grants everything or leaves out what the skill's scripts need.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::LazyLock;

use regex::Regex;
use skillpath_core::bundle::SkillBundle;
use skillpath_core::skill_md::SkillMd;
use skillpath_core::yaml::{Node, NodeKind};

use crate::confusables::{self, Script};
use crate::text::{Found, Kind, TextFile};
use crate::{Context, Rule};

impl Context {
    /// A context that knows the skills named `names`.
    pub fn new(names: impl IntoIterator<Item = String>) -> Context {
        let mut skeletons: HashMap<String, Vec<String>> = HashMap::new();
        for name in names {
            let skeleton = confusables::skeleton(&name);
            let alike = skeletons.entry(skeleton).or_default();
            if !alike.contains(&name) {
                alike.push(name);
            }
        }
        Context { skeletons }
    }

    /// The known names that look like `name` but are not it.
    fn look_alikes(&self, name: &str) -> Vec<&str> {
        self.skeletons
            .get(&confusables::skeleton(name))
            .map(|names| {
                names
                    .iter()
                    .map(String::as_str)
                    .filter(|other| *other != name)
                    .collect()
            })
            .unwrap_or_default()
    }
}

pub(crate) fn check(
    bundle: &SkillBundle,
    skill_md: &SkillMd,
    context: &Context,
    found: &mut Found,
) {
    let Some((path, bytes)) = bundle.skill_md() else {
        return;
    };
    let file = TextFile {
        path,
        bytes,
        text: Cow::Borrowed(skill_md.file.text.as_str()),
        kind: Kind::Markdown,
        lower: std::cell::OnceCell::new(),
    };
    let scalar = |key: &str| -> Option<(&str, &Node)> {
        let entry = skill_md.field(key)?;
        Some((entry.value.as_scalar()?.text.as_str(), &entry.value))
    };
    if let Some((name, node)) = scalar("name") {
        if let Some(scripts) = confusables::mixed_scripts(name) {
            found.at(
                Rule::NameMixedScripts,
                &file,
                node.range.clone(),
                format!("the name `{name}` mixes {} letters", names(&scripts)),
                name,
            );
        }
        for other in context.look_alikes(name) {
            found.at(
                Rule::NameConfusable,
                &file,
                node.range.clone(),
                format!("the name `{name}` looks like the skill `{other}`"),
                other,
            );
        }
    }
    if let Some((description, node)) = scalar("description") {
        for word in description.split(|c: char| !c.is_alphanumeric()) {
            if let Some(scripts) = confusables::mixed_scripts(word) {
                found.at(
                    Rule::NameMixedScripts,
                    &file,
                    node.range.clone(),
                    format!(
                        "the description's word `{word}` mixes {} letters",
                        names(&scripts)
                    ),
                    word,
                );
            }
        }
        trigger(&file, description, node, found);
    }
    if let Some(entry) = skill_md.field("allowed-tools") {
        allowed_tools(bundle, &file, &entry.value, found);
    }
}

fn names(scripts: &[Script]) -> String {
    scripts
        .iter()
        .map(|s| s.name())
        .collect::<Vec<_>>()
        .join(" and ")
}

/// Claims on every request, with the word after them (`for any task involving PDFs` is a
/// scope, `for any task` is not).
static CLAIMS: LazyLock<Vec<Regex>> = LazyLock::new(|| {
    [
        r"(?i)\b(use|invoke|trigger|activate|load|apply|consult)\s+(this\s+(skill\s+)?|me\s+|it\s+)?(for|on|in|with|before|after|during)\s+(all|every|any|each)\s+(requests?|tasks?|questions?|prompts?|messages?|conversations?|queries|query|interactions?|responses?|situations?|cases?|turns?)\b[\s,.;:]*(\w*)",
        r"(?i)\balways\s+(use|invoke|load|activate|apply|trigger|consult)\s+(this(\s+skill)?|me)\b[\s,.;:]*(\w*)",
        r"(?i)\b(use|invoke|load)\s+(this\s+(skill\s+)?)?(for\s+)?(everything|anything)\b[\s,.;:]*(\w*)",
        r"(?i)\b(regardless\s+of\s+(the\s+)?(task|request|topic|question)|no\s+matter\s+what\s+the\s+(user|task|request)\s+(asks|is|wants))\b()",
    ]
    .iter()
    .map(|pattern| crate::text::pattern(pattern))
    .collect()
});

/// Words after a claim that narrow it to a subject or a moment.
const SCOPED_BY: &[&str] = &[
    "about",
    "after",
    "around",
    "before",
    "concerning",
    "containing",
    "during",
    "for",
    "from",
    "if",
    "in",
    "involving",
    "like",
    "matching",
    "mentioning",
    "of",
    "on",
    "referencing",
    "regarding",
    "related",
    "relating",
    "requiring",
    "that",
    "to",
    "touching",
    "using",
    "when",
    "whenever",
    "where",
    "which",
    "while",
    "whose",
    "with",
    "within",
];

fn trigger(file: &TextFile<'_>, description: &str, node: &Node, found: &mut Found) {
    for claim in CLAIMS.iter() {
        for captures in claim.captures_iter(description) {
            let (Some(whole), Some(next)) = (captures.get(0), captures.iter().flatten().last())
            else {
                continue;
            };
            if SCOPED_BY.contains(&next.as_str().to_lowercase().as_str()) {
                continue;
            }
            found.at(
                Rule::TriggerEverything,
                file,
                node.range.clone(),
                format!(
                    "the description claims every request: \"{}\"",
                    whole.as_str().trim()
                ),
                whole.as_str(),
            );
        }
    }
}

/// The entries of `allowed-tools`: a string of entries separated by spaces or commas (a
/// parenthesised argument may hold either), or a list.
fn tool_entries(value: &Node) -> Vec<String> {
    match &value.kind {
        NodeKind::Scalar(scalar) => {
            let mut entries = Vec::new();
            let mut current = String::new();
            let mut depth = 0usize;
            for c in scalar.text.chars() {
                match c {
                    '(' => depth += 1,
                    ')' => depth = depth.saturating_sub(1),
                    _ => {}
                }
                if depth == 0 && (c.is_whitespace() || c == ',') {
                    if !current.is_empty() {
                        entries.push(std::mem::take(&mut current));
                    }
                } else {
                    current.push(c);
                }
            }
            if !current.is_empty() {
                entries.push(current);
            }
            entries
        }
        NodeKind::Sequence(items) => items
            .iter()
            .filter_map(|item| item.as_scalar().map(|s| s.text.trim().to_owned()))
            .collect(),
        NodeKind::Mapping(_) => Vec::new(),
    }
}

/// Whether a tool entry runs shell commands.
fn shell_tool(entry: &str) -> bool {
    let tool = entry.split('(').next().unwrap_or(entry);
    matches!(
        tool.to_ascii_lowercase().as_str(),
        "bash" | "shell" | "powershell" | "terminal" | "run_shell_command" | "exec" | "run"
    )
}

/// Scripts a skill ships: files whose names say they run.
fn scripts(bundle: &SkillBundle) -> Vec<&str> {
    bundle
        .files
        .keys()
        .map(String::as_str)
        .filter(|path| {
            [
                ".sh", ".bash", ".py", ".js", ".mjs", ".cjs", ".ts", ".rb", ".pl", ".ps1",
            ]
            .iter()
            .any(|ext| path.ends_with(ext))
        })
        .collect()
}

fn allowed_tools(bundle: &SkillBundle, file: &TextFile<'_>, value: &Node, found: &mut Found) {
    let entries = tool_entries(value);
    for entry in &entries {
        let argument = entry
            .split_once('(')
            .map(|(_, rest)| rest.trim_end_matches(')').trim());
        let everything = entry == "*"
            || (shell_tool(entry) && matches!(argument, None | Some("*" | "*:*" | ":*" | "")));
        if everything {
            found.at(
                Rule::AllowedToolsEverything,
                file,
                value.range.clone(),
                format!("`allowed-tools` grants `{entry}`: any command, without asking"),
                entry,
            );
        }
    }
    let scripts = scripts(bundle);
    if !entries.is_empty() && !scripts.is_empty() && !entries.iter().any(|e| shell_tool(e)) {
        let shown: Vec<String> = scripts.iter().take(3).map(|s| format!("`{s}`")).collect();
        found.at(
            Rule::AllowedToolsMissing,
            file,
            value.range.clone(),
            format!(
                "the skill ships {} script{} ({}{}) but `allowed-tools` allows no shell",
                scripts.len(),
                if scripts.len() == 1 { "" } else { "s" },
                shown.join(", "),
                if scripts.len() > 3 { ", …" } else { "" }
            ),
            "",
        );
    }
}
