//! The skill catalog an agent puts in its prompt: name, description and location of each
//! skill, as XML, JSON or markdown, optionally fitted to a character budget.

use std::fmt::Write as _;

use crate::python_unicode::{self, html_escape};
use crate::skill_md::SkillMd;
use crate::validate::Report;
use crate::yaml;

/// The frontmatter flag with which a skill opts out of model invocation; the client guide says
/// such skills are left out of the model's catalog.
pub const DISABLE_MODEL_INVOCATION: &str = "disable-model-invocation";

/// Whether `skill` sets `disable-model-invocation` to true: the YAML boolean (`true`, `True`,
/// `TRUE`), or the string `"true"` that loaders also treat as set.
pub fn disables_model_invocation(skill: &SkillMd) -> bool {
    let value = skill
        .field(DISABLE_MODEL_INVOCATION)
        .map(|entry| yaml::to_json(&entry.value));
    matches!(value, Some(serde_json::Value::Bool(true)))
        || value.as_ref().and_then(serde_json::Value::as_str) == Some("true")
}

/// One skill in the catalog.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct CatalogEntry {
    /// The skill's name.
    pub name: String,
    /// What it does and when to use it (possibly shortened to fit a budget).
    pub description: String,
    /// Absolute path of its `SKILL.md`.
    pub location: String,
}

impl CatalogEntry {
    /// The entry of the skill `report` judged, when it has a string name and description and a
    /// `SKILL.md` (both stripped as the reference strips them); whether it is valid is the
    /// caller's to ask.
    pub fn of(report: &Report) -> Option<CatalogEntry> {
        Some(CatalogEntry {
            name: python_unicode::strip(report.name()?).to_owned(),
            description: python_unicode::strip(report.description()?).to_owned(),
            location: report.location()?.display().to_string(),
        })
    }
}

/// The catalog's output format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CatalogFormat {
    /// The client guide's `<available_skills>` block.
    Xml,
    /// A JSON array of `{name, description, location}`.
    Json,
    /// A markdown list.
    Markdown,
}

/// A description that was shortened to fit the budget.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shortened {
    /// The skill's name.
    pub name: String,
    /// Characters before shortening.
    pub from: usize,
    /// Characters after.
    pub to: usize,
}

/// The catalog cannot fit the budget even with every description shortened to nothing.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "the catalog of {skills} {noun} needs at least {minimum} characters, more than the budget of {budget}",
    noun = if *.skills == 1 { "skill" } else { "skills" }
)]
pub struct BudgetTooSmall {
    /// How many skills the catalog has.
    pub skills: usize,
    /// Its size with every description emptied.
    pub minimum: usize,
    /// The budget asked for.
    pub budget: usize,
}

/// Renders `entries` in `format`.
pub fn render(entries: &[CatalogEntry], format: CatalogFormat) -> String {
    match format {
        CatalogFormat::Xml => {
            let mut out = String::from("<available_skills>\n");
            for entry in entries {
                let _ = write!(
                    out,
                    "  <skill>\n    <name>{}</name>\n    <description>{}</description>\n    <location>{}</location>\n  </skill>\n",
                    html_escape(&entry.name),
                    html_escape(&entry.description),
                    html_escape(&entry.location),
                );
            }
            out.push_str("</available_skills>\n");
            out
        }
        CatalogFormat::Json => {
            let mut out = serde_json::to_string_pretty(entries).unwrap_or_default();
            out.push('\n');
            out
        }
        CatalogFormat::Markdown => entries
            .iter()
            .map(|entry| {
                let description = entry
                    .description
                    .split_whitespace()
                    .collect::<Vec<_>>()
                    .join(" ");
                format!(
                    "- **{}**: {} (`{}`)\n",
                    entry.name, description, entry.location
                )
            })
            .collect(),
    }
}

/// Fits the catalog into `budget` characters by shortening the longest descriptions first: every
/// description longer than some cap is cut to the cap (ending in `…`), with the cap as high as
/// the budget allows. No skill is ever dropped.
pub fn fit(
    entries: &[CatalogEntry],
    format: CatalogFormat,
    budget: usize,
) -> Result<(Vec<CatalogEntry>, Vec<Shortened>), BudgetTooSmall> {
    let size = |cap: usize| render(&capped(entries, cap), format).chars().count();
    let longest = entries
        .iter()
        .map(|e| e.description.chars().count())
        .max()
        .unwrap_or(0);
    if size(longest) <= budget {
        return Ok((entries.to_vec(), Vec::new()));
    }
    let minimum = size(0);
    if minimum > budget {
        return Err(BudgetTooSmall {
            skills: entries.len(),
            minimum,
            budget,
        });
    }
    // The largest cap that fits: size grows with the cap, so binary search.
    let (mut low, mut high) = (0, longest);
    while low < high {
        let middle = (low + high).div_ceil(2);
        if size(middle) <= budget {
            low = middle
        } else {
            high = middle - 1
        }
    }
    let fitted = capped(entries, low);
    let shortened = entries
        .iter()
        .zip(&fitted)
        .filter(|(before, after)| before.description != after.description)
        .map(|(before, after)| Shortened {
            name: before.name.clone(),
            from: before.description.chars().count(),
            to: after.description.chars().count(),
        })
        .collect();
    Ok((fitted, shortened))
}

fn capped(entries: &[CatalogEntry], cap: usize) -> Vec<CatalogEntry> {
    entries
        .iter()
        .map(|entry| {
            let length = entry.description.chars().count();
            let description = if length <= cap {
                entry.description.clone()
            } else if cap == 0 {
                String::new()
            } else {
                let kept: String = entry.description.chars().take(cap - 1).collect();
                format!("{}…", kept.trim_end())
            };
            CatalogEntry {
                description,
                ..entry.clone()
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(name: &str, description: &str) -> CatalogEntry {
        CatalogEntry {
            name: name.into(),
            description: description.into(),
            location: format!("/s/{name}/SKILL.md"),
        }
    }

    #[test]
    fn xml_escapes_every_value() {
        let xml = render(&[entry("a", "Use <b> & 'c'")], CatalogFormat::Xml);
        assert!(xml.contains("<description>Use &lt;b&gt; &amp; &#x27;c&#x27;</description>"));
    }

    #[test]
    fn fitting_shortens_the_longest_first_and_keeps_every_skill() {
        let entries = [
            entry("a", &"x".repeat(300)),
            entry("b", &"y".repeat(40)),
            entry("c", "short"),
        ];
        let full = render(&entries, CatalogFormat::Json).chars().count();
        let (fitted, shortened) = fit(&entries, CatalogFormat::Json, full - 200).expect("fits");
        assert_eq!(fitted.len(), 3);
        assert!(render(&fitted, CatalogFormat::Json).chars().count() <= full - 200);
        assert_eq!(shortened.len(), 1);
        assert_eq!(shortened[0].name, "a");
        assert!(fitted[0].description.ends_with('…'));
        assert_eq!(fitted[1].description, entries[1].description);
    }

    #[test]
    fn an_impossible_budget_is_an_error_not_a_dropped_skill() {
        let entries = [entry("a", "x"), entry("b", "y")];
        let error = fit(&entries, CatalogFormat::Xml, 10).expect_err("too small");
        assert_eq!(error.skills, 2);
    }
}
