//! Tool names: which skill gets which MCP tool when several want one name.
//!
//! A skill is served as the tool named by its `tool_name` (when given and valid), else by its
//! `name` ([`tool_name`]). Collisions are resolved by one rule, the same for the server, for
//! `skillpath validate` and for `skillpath scan` ([`resolve`]):
//!
//! 1. a name that is not an MCP tool name ([`is_mcp_tool_name`]: ASCII letters, digits, `_`,
//!    `-` and `.`, 1 to 128 characters) is no tool: a skill that wants one has no tool (so a
//!    look-alike such as `аdd-caching`, with a Cyrillic `а`, is never served beside
//!    `add-caching`);
//! 2. a built-in tool ([`BUILTIN_TOOLS`]) keeps its name: a skill that wants it has no tool;
//! 3. among skills that want one tool name, the skill whose `name` is that tool name wins;
//! 4. otherwise the first by `name` wins (equal names: the first given).
//!
//! A skill that loses has no tool of its own; it stays reachable through `load_skill`, its
//! resources and (when its name is a valid prompt name) its prompt.
//!
//! ```
//! use skillpath_core::tool_names::{Reason, resolve};
//!
//! let skills = [
//!     ("add-caching".to_owned(), "cache".to_owned()),
//!     ("cache".to_owned(), "cache".to_owned()),
//!     ("helper".to_owned(), "load_skill".to_owned()),
//! ];
//! let resolution = resolve(&skills);
//! assert_eq!(resolution.winners["cache"], "cache");
//! assert_eq!(resolution.collisions[0].loser, "add-caching");
//! assert_eq!(resolution.collisions[0].reason, Reason::NamedLikeTool);
//! assert_eq!(resolution.collisions[1].winner, None);
//! ```

use std::collections::BTreeMap;

use serde::Serialize;

use crate::diagnostic::{Code, Diagnostic};
use crate::golden_path::GoldenSkill;
use crate::skill_md::SkillMd;
use crate::validate::Report;

/// The names of the MCP server's built-in tools. The server's own table is checked against this
/// list by a test in `skillpath-server`.
pub const BUILTIN_TOOLS: &[&str] = &[
    "list_skills",
    "search_skills",
    "get_skill",
    "load_skill",
    "skill_history",
    "validate_skill",
    "plan_skill",
    "create_skill",
    "update_skill",
    "delete_skill",
    "rollback_skill",
    "fork_skill",
    "star_skill",
    "unstar_skill",
    "release_skill",
    "list_releases",
    "list_architectures",
    "get_architecture",
    "analyze_requirements",
    "plan_architecture",
    "create_architecture",
    "list_drafts",
    "publish_skill",
    "reject_skill",
    "list_api_keys",
    "create_api_key",
    "revoke_api_key",
];

/// The tool name `skill` (whose `name` is `name`) asks for: its `tool_name` when given and
/// valid, else `name`.
pub fn tool_name(skill: &SkillMd, name: &str) -> String {
    let (golden, _) = GoldenSkill::read(skill);
    golden.tool_name_or(name).to_owned()
}

/// Whether `name` can be an MCP tool name: 1 to 128 characters, each an ASCII letter or digit,
/// `_`, `-` or `.` (the rule of the MCP specification's tool names).
pub fn is_mcp_tool_name(name: &str) -> bool {
    (1..=128).contains(&name.len())
        && name
            .bytes()
            .all(|byte| byte.is_ascii_alphanumeric() || matches!(byte, b'_' | b'-' | b'.'))
}

/// Why the winner of a [`Collision`] keeps the tool name (or why nobody has it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Reason {
    /// The name is not an MCP tool name, so no skill has it.
    NotAToolName,
    /// The tool name is a built-in tool's.
    Builtin,
    /// The winner's `name` is the tool name.
    NamedLikeTool,
    /// No skill is named like the tool; the winner comes first by `name`.
    FirstByName,
}

impl Reason {
    /// The part of the rule that decided, as a phrase that stands alone.
    pub fn rule(self) -> &'static str {
        match self {
            Reason::NotAToolName => {
                "MCP tool names are ASCII letters, digits, `_`, `-` and `.`, 1 to 128 characters"
            }
            Reason::Builtin => "a built-in tool keeps its name",
            Reason::NamedLikeTool => "the skill named like the tool wins",
            Reason::FirstByName => "no skill is named like the tool, so the first by name wins",
        }
    }
}

/// A tool name wanted by more than one skill, by a skill and a built-in tool, or by a skill
/// when it cannot be a tool name: one per losing skill.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Collision {
    /// The tool name.
    pub tool_name: String,
    /// The skill that has it (`None` when a built-in tool has it, or nothing can).
    pub winner: Option<String>,
    /// The skill that does not get it.
    pub loser: String,
    /// Which part of the rule decided.
    pub reason: Reason,
    /// The winner's index in the slice given to [`resolve`] (`None` for a built-in tool).
    #[serde(skip)]
    pub winner_index: Option<usize>,
    /// The loser's index in the slice given to [`resolve`].
    #[serde(skip)]
    pub loser_index: usize,
}

impl Collision {
    /// Who has the tool name, as a phrase: `` skill `name` ``, "a built-in tool", or "no
    /// tool" (the name cannot be one).
    pub fn holder(&self) -> String {
        match (&self.winner, self.reason) {
            (Some(winner), _) => format!("skill `{winner}`"),
            (None, Reason::NotAToolName) => "no tool (it is not a tool name)".to_owned(),
            (None, _) => "a built-in tool".to_owned(),
        }
    }
}

/// Who gets which tool name.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Resolution {
    /// Every skill tool: tool name to the `name` of the skill that has it.
    pub winners: BTreeMap<String, String>,
    /// Every skill without a tool of its own, ordered by tool name, then loser `name`.
    pub collisions: Vec<Collision>,
}

/// Resolves the tool names wanted by `skills`, `(name, tool name)` pairs, against
/// [`BUILTIN_TOOLS`] by the rule of the [module documentation](self).
pub fn resolve(skills: &[(String, String)]) -> Resolution {
    resolve_with(skills, BUILTIN_TOOLS)
}

/// [`resolve`] with `builtin` as the built-in tool names.
fn resolve_with(skills: &[(String, String)], builtin: &[&str]) -> Resolution {
    // Indices by tool name, each list in name order (a stable sort keeps equal names in the
    // order given).
    let mut order: Vec<usize> = (0..skills.len()).collect();
    order.sort_by(|&a, &b| skills[a].0.cmp(&skills[b].0));
    let mut wanted: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for index in order {
        wanted
            .entry(skills[index].1.as_str())
            .or_default()
            .push(index);
    }

    let mut resolution = Resolution::default();
    for (tool, indices) in wanted {
        let (winner, reason) = if !is_mcp_tool_name(tool) {
            (None, Reason::NotAToolName)
        } else if builtin.contains(&tool) {
            (None, Reason::Builtin)
        } else if let Some(&named) = indices.iter().find(|&&i| skills[i].0 == tool) {
            (Some(named), Reason::NamedLikeTool)
        } else {
            (Some(indices[0]), Reason::FirstByName)
        };
        if let Some(winner) = winner {
            resolution
                .winners
                .insert(tool.to_owned(), skills[winner].0.clone());
        }
        for &loser in indices.iter().filter(|&&i| Some(i) != winner) {
            resolution.collisions.push(Collision {
                tool_name: tool.to_owned(),
                winner: winner.map(|w| skills[w].0.clone()),
                loser: skills[loser].0.clone(),
                reason,
                winner_index: winner,
                loser_index: loser,
            });
        }
    }
    resolution
}

/// Adds a `tool-name-collision` warning to the report of every skill that would have no tool of
/// its own if `reports` were served together. Only reports with a readable `name` take part.
/// (`skillpath validate` does not call it in `skills-ref` mode, whose output is the reference
/// validator's.)
pub fn check_reports(reports: &mut [Report]) {
    let mut skills = Vec::new();
    let mut positions = Vec::new();
    for (position, report) in reports.iter().enumerate() {
        let (Some(skill), Some(name)) = (report.skill_md.as_ref(), report.name()) else {
            continue;
        };
        skills.push((name.to_owned(), tool_name(skill, name)));
        positions.push(position);
    }
    for collision in resolve(&skills).collisions {
        let winner_path = collision
            .winner_index
            .map(|index| reports[positions[index]].path.display().to_string());
        let report = &mut reports[positions[collision.loser_index]];
        let Some(diagnostic) = collision_diagnostic(report, &collision, winner_path.as_deref())
        else {
            continue;
        };
        report.diagnostics.push(diagnostic);
        report
            .diagnostics
            .sort_by_key(|d| d.location.as_ref().map(|l| (l.start, l.range.end)));
    }
}

/// The warning for the loser of `collision`, whose report is `report`; `winner_path` is the
/// winner's folder.
fn collision_diagnostic(
    report: &Report,
    collision: &Collision,
    winner_path: Option<&str>,
) -> Option<Diagnostic> {
    let skill = report.skill_md.as_ref()?;
    let tool = &collision.tool_name;
    let loser = &collision.loser;
    // Point at `tool_name` when that is where the tool name comes from, else at `name`.
    let field = skill
        .field("tool_name")
        .filter(|entry| entry.value.as_scalar().is_some_and(|s| &s.text == tool))
        .or_else(|| skill.field("name"))?;
    let message = match (&collision.winner, collision.reason) {
        (Some(winner), reason) => {
            let at = winner_path.map_or(String::new(), |path| format!(" (at `{path}`)"));
            let because = if reason == Reason::NamedLikeTool {
                "its name is the tool name".to_owned()
            } else {
                format!("no skill is named `{tool}` and `{winner}` comes first by name")
            };
            format!(
                "`{loser}` and `{winner}`{at} both want the tool name `{tool}`; `{winner}` keeps \
                 it because {because}, so `{loser}` has no tool of its own"
            )
        }
        (None, Reason::NotAToolName) => format!(
            "`{tool}` is not an MCP tool name ({}), so `{loser}` has no tool of its own",
            Reason::NotAToolName.rule()
        ),
        (None, _) => format!(
            "the tool name `{tool}` is a built-in tool of the MCP server, and a built-in tool \
             keeps its name, so `{loser}` has no tool of its own"
        ),
    };
    Some(
        Diagnostic::warning(Code::ToolNameCollision, message)
            .with_hint(format!(
                "give `{loser}` a `tool_name` of its own; until then it is reachable only \
                 through `load_skill`"
            ))
            .at(&skill.file, field.value.range.clone()),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_that_is_no_mcp_tool_name_gets_no_tool() {
        let resolution = resolve(&pairs(&[
            ("add-caching", "add-caching"),
            ("\u{430}dd-caching", "\u{430}dd-caching"),
            ("long", &"x".repeat(129)),
            ("spaced", "two words"),
            ("dotted", "a.b_c-1"),
        ]));
        let tools: Vec<&str> = resolution.winners.keys().map(String::as_str).collect();
        assert_eq!(tools, ["a.b_c-1", "add-caching"]);
        let lost: Vec<(&str, Reason)> = resolution
            .collisions
            .iter()
            .map(|c| (c.loser.as_str(), c.reason))
            .collect();
        assert_eq!(
            lost,
            [
                ("spaced", Reason::NotAToolName),
                ("long", Reason::NotAToolName),
                ("\u{430}dd-caching", Reason::NotAToolName),
            ]
        );
        assert_eq!(
            resolution.collisions[0].holder(),
            "no tool (it is not a tool name)"
        );
        assert!(is_mcp_tool_name(&"x".repeat(128)));
        assert!(!is_mcp_tool_name(""));
    }

    fn pairs(skills: &[(&str, &str)]) -> Vec<(String, String)> {
        skills
            .iter()
            .map(|(name, tool)| ((*name).to_owned(), (*tool).to_owned()))
            .collect()
    }

    /// `(tool, winner, loser, reason)` of each collision.
    fn lost(resolution: &Resolution) -> Vec<(&str, Option<&str>, &str, Reason)> {
        resolution
            .collisions
            .iter()
            .map(|c| {
                (
                    c.tool_name.as_str(),
                    c.winner.as_deref(),
                    c.loser.as_str(),
                    c.reason,
                )
            })
            .collect()
    }

    fn winners(resolution: &Resolution) -> Vec<(&str, &str)> {
        resolution
            .winners
            .iter()
            .map(|(tool, skill)| (tool.as_str(), skill.as_str()))
            .collect()
    }

    #[test]
    fn without_collisions_every_skill_has_its_tool() {
        let resolution = resolve(&pairs(&[("pdf", "pdf"), ("add-caching", "cache")]));
        assert_eq!(
            winners(&resolution),
            [("cache", "add-caching"), ("pdf", "pdf")]
        );
        assert!(resolution.collisions.is_empty());
    }

    #[test]
    fn nothing_to_resolve() {
        assert_eq!(resolve(&[]), Resolution::default());
    }

    #[test]
    fn a_built_in_tool_keeps_its_name() {
        let resolution = resolve(&pairs(&[("helper", "load_skill"), ("pdf", "pdf")]));
        assert_eq!(winners(&resolution), [("pdf", "pdf")]);
        assert_eq!(
            lost(&resolution),
            [("load_skill", None, "helper", Reason::Builtin)]
        );
        assert_eq!(resolution.collisions[0].winner_index, None);
        assert_eq!(resolution.collisions[0].loser_index, 0);
    }

    #[test]
    fn a_skill_named_like_a_built_in_tool_has_no_tool_either() {
        let resolution = resolve(&pairs(&[
            ("create_skill", "create_skill"),
            ("other", "create_skill"),
        ]));
        assert!(resolution.winners.is_empty());
        assert_eq!(
            lost(&resolution),
            [
                ("create_skill", None, "create_skill", Reason::Builtin),
                ("create_skill", None, "other", Reason::Builtin),
            ]
        );
    }

    #[test]
    fn the_skill_named_like_the_tool_wins_wherever_it_sorts() {
        // `zz` sorts last but is named like the tool; `aa` and `mm` both lose to it.
        let resolution = resolve(&pairs(&[("mm", "zz"), ("zz", "zz"), ("aa", "zz")]));
        assert_eq!(winners(&resolution), [("zz", "zz")]);
        assert_eq!(
            lost(&resolution),
            [
                ("zz", Some("zz"), "aa", Reason::NamedLikeTool),
                ("zz", Some("zz"), "mm", Reason::NamedLikeTool),
            ]
        );
        assert_eq!(resolution.collisions[0].winner_index, Some(1));
        assert_eq!(resolution.collisions[0].loser_index, 2);
    }

    #[test]
    fn otherwise_the_first_by_name_wins() {
        let resolution = resolve(&pairs(&[("b", "t"), ("c", "t"), ("a", "t")]));
        assert_eq!(winners(&resolution), [("t", "a")]);
        assert_eq!(
            lost(&resolution),
            [
                ("t", Some("a"), "b", Reason::FirstByName),
                ("t", Some("a"), "c", Reason::FirstByName),
            ]
        );
    }

    #[test]
    fn equal_names_keep_the_order_given() {
        let resolution = resolve(&pairs(&[("demo", "demo"), ("demo", "demo")]));
        assert_eq!(winners(&resolution), [("demo", "demo")]);
        assert_eq!(resolution.collisions.len(), 1);
        assert_eq!(resolution.collisions[0].winner_index, Some(0));
        assert_eq!(resolution.collisions[0].loser_index, 1);
        assert_eq!(resolution.collisions[0].reason, Reason::NamedLikeTool);
    }

    #[test]
    fn custom_built_in_names_replace_the_default_ones() {
        let resolution = resolve_with(&pairs(&[("a", "load_skill"), ("b", "mine")]), &["mine"]);
        assert_eq!(winners(&resolution), [("load_skill", "a")]);
        assert_eq!(lost(&resolution), [("mine", None, "b", Reason::Builtin)]);
    }

    #[test]
    fn built_in_names_are_unique_valid_tool_names() {
        let mut seen = std::collections::BTreeSet::new();
        for name in BUILTIN_TOOLS {
            assert!(crate::golden_path::is_valid_tool_name(name), "{name}");
            assert!(seen.insert(name), "`{name}` is listed twice");
        }
    }

    #[test]
    fn reasons_serialize_in_kebab_case() {
        let collision = Collision {
            tool_name: "t".into(),
            winner: Some("a".into()),
            loser: "b".into(),
            reason: Reason::FirstByName,
            winner_index: Some(0),
            loser_index: 1,
        };
        assert_eq!(
            serde_json::to_value(&collision).expect("serializes"),
            serde_json::json!({"tool_name": "t", "winner": "a", "loser": "b", "reason": "first-by-name"})
        );
    }
}
