//! Usage: how often each skill is used, kept per skill, revision, day (UTC), key name (`""`:
//! no key) and kind of use, so that a platform team sees which golden paths are followed and
//! which nobody uses.
//!
//! A server counts uses in memory and writes them in batches ([`crate::Store::record_usage`],
//! which adds to the counts already stored), so a call never waits for the database; the
//! counts are read summed by skill, and by revision, day or key
//! ([`crate::Store::usage`]).

use crate::columns::Columns;
use crate::error::StoreResult;
use crate::time::rfc3339_before_now;

/// How a skill was used.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum UsageKind {
    /// Its tool was called and rendered.
    Call,
    /// It was loaded with `load_skill`.
    Load,
    /// Its prompt was rendered.
    Prompt,
    /// One of its resources (its `SKILL.md`, a file, a package's page) was read.
    Read,
}

impl UsageKind {
    /// The lowercase name stored.
    pub fn as_str(self) -> &'static str {
        match self {
            UsageKind::Call => "call",
            UsageKind::Load => "load",
            UsageKind::Prompt => "prompt",
            UsageKind::Read => "read",
        }
    }
}

/// Uses counted by a server, to add to the stored counts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UsageCount {
    /// The skill (or package) used.
    pub skill: String,
    /// Its revision when it was used.
    pub revision: u64,
    /// The day (UTC, `YYYY-MM-DD`).
    pub day: String,
    /// The name of the API key it was used with; `""` without one.
    pub key: String,
    /// How it was used.
    pub kind: UsageKind,
    /// How many times.
    pub count: u64,
    /// When last (RFC 3339, UTC).
    pub last_used: String,
}

/// What counts [`crate::Store::usage`] sums, besides by skill.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum UsageGroup {
    /// By skill only.
    #[default]
    Skill,
    /// By skill and revision.
    Revision,
    /// By skill and day.
    Day,
    /// By skill and key name.
    Key,
}

impl UsageGroup {
    /// The SQL of the group's column, the same in both backends: a text, `''` by skill only.
    pub(crate) fn column(self) -> &'static str {
        match self {
            UsageGroup::Skill => "''",
            UsageGroup::Revision => "CAST(revision AS TEXT)",
            UsageGroup::Day => "day",
            UsageGroup::Key => "key",
        }
    }
}

/// Which counts [`crate::Store::usage`] reads.
#[derive(Debug, Clone, Default)]
pub struct UsageQuery {
    /// Only the uses on this day (`YYYY-MM-DD`) and after ([`days_ago`]).
    pub since: Option<String>,
    /// Only this skill's.
    pub skill: Option<String>,
    /// Summed by what, besides the skill.
    pub by: UsageGroup,
}

/// The uses of a skill (in a group), summed.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct UsageRow {
    /// The skill.
    pub skill: String,
    /// The revision, day or key name summed by; `None` by skill only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
    /// Tool calls.
    pub calls: u64,
    /// `load_skill` loads.
    pub loads: u64,
    /// Prompt renders.
    pub prompts: u64,
    /// Resource reads.
    pub reads: u64,
    /// When last used (RFC 3339, UTC).
    pub last_used: String,
}

/// The `SELECT` of [`crate::Store::usage`]'s rows, by `group`: the skill, the group, the sum of
/// each kind, the last use; `?`-numbered parameters 1 (`since`) and 2 (`skill`) are written by
/// `parameter`, the backend's placeholder for a text that may be `NULL`.
pub(crate) fn select(group: UsageGroup, parameter: impl Fn(usize) -> String) -> String {
    let sum = |kind: UsageKind| {
        format!(
            "CAST(SUM(CASE WHEN kind = '{}' THEN count ELSE 0 END) AS BIGINT)",
            kind.as_str()
        )
    };
    format!(
        "SELECT skill, {group}, {calls}, {loads}, {prompts}, {reads}, MAX(last_used) FROM skill_usage
         WHERE ({since} IS NULL OR day >= {since}) AND ({skill} IS NULL OR skill = {skill})
         GROUP BY 1, 2",
        group = group.column(),
        calls = sum(UsageKind::Call),
        loads = sum(UsageKind::Load),
        prompts = sum(UsageKind::Prompt),
        reads = sum(UsageKind::Read),
        since = parameter(1),
        skill = parameter(2),
    )
}

/// A row of [`select`], grouped by `group`.
pub(crate) fn row(row: &impl Columns, group: UsageGroup) -> StoreResult<UsageRow> {
    Ok(UsageRow {
        skill: row.text(0)?,
        group: (group != UsageGroup::Skill)
            .then(|| row.text(1))
            .transpose()?,
        calls: row.revision(2)?,
        loads: row.revision(3)?,
        prompts: row.revision(4)?,
        reads: row.revision(5)?,
        last_used: row.text(6)?,
    })
}

/// `counts` in the order every backend writes them, by what identifies a count: two writers
/// adding to the same counts lock their rows in one order, so neither waits for the other
/// forever.
pub(crate) fn in_lock_order(mut counts: Vec<UsageCount>) -> Vec<UsageCount> {
    counts.sort_by(|a, b| {
        (&a.skill, a.revision, &a.day, &a.key, a.kind)
            .cmp(&(&b.skill, b.revision, &b.day, &b.key, b.kind))
    });
    counts
}

/// `rows` in the order shown: by skill, then group (revisions as numbers).
pub(crate) fn sorted(mut rows: Vec<UsageRow>) -> Vec<UsageRow> {
    rows.sort_by(|a, b| {
        let number = |row: &UsageRow| row.group.as_deref().and_then(|g| g.parse::<u64>().ok());
        a.skill
            .cmp(&b.skill)
            .then_with(|| number(a).cmp(&number(b)))
            .then_with(|| a.group.cmp(&b.group))
    });
    rows
}

/// The day (UTC, `YYYY-MM-DD`) `days` days before today: the first day of a window of
/// `days + 1` days ending today.
pub fn days_ago(days: u64) -> String {
    let time = rfc3339_before_now(days.saturating_mul(86_400));
    time.get(..10).unwrap_or(&time).to_owned()
}
