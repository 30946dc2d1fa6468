//! What is kept of an audit with a stored revision ([`AuditRecord`]), and the policy that
//! decides whether a skill with findings may be written at all ([`Policy`]). A record is what
//! a reader of the store is told without auditing again: each finding's rule, severity, file,
//! place and message, and its fingerprint. The rules' prose (why, fix) is not kept: it comes
//! from the rule by its ID when shown.

use serde::{Deserialize, Serialize};

use crate::{Finding, Rule, Severity, SkillAudit};

/// A finding as a stored revision keeps it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecordedFinding {
    /// The rule's stable ID ([`Rule::id`]); a newer skillpath may have written one this
    /// version does not know.
    pub rule: String,
    /// Its severity when it was found.
    pub severity: Severity,
    /// The file, by its path in the skill.
    pub file: String,
    /// The line and column (from 1) of its start, when it has a place in the text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub column: Option<usize>,
    /// What was found (never a secret's value).
    pub message: String,
    /// The finding's fingerprint, as baselines know it.
    pub fingerprint: String,
}

impl RecordedFinding {
    /// The rule, when this version knows its ID.
    pub fn known_rule(&self) -> Option<Rule> {
        Rule::ALL
            .iter()
            .copied()
            .find(|rule| rule.id() == self.rule)
    }

    /// `file:line:column`, or the file alone when the finding has no place.
    pub fn place(&self) -> String {
        match (self.line, self.column) {
            (Some(line), Some(column)) => format!("{}:{line}:{column}", self.file),
            _ => self.file.clone(),
        }
    }
}

impl From<&Finding> for RecordedFinding {
    fn from(finding: &Finding) -> Self {
        RecordedFinding {
            rule: finding.rule.id().to_owned(),
            severity: finding.severity(),
            file: finding.file.clone(),
            line: finding.location.as_ref().map(|l| l.start.line),
            column: finding.location.as_ref().map(|l| l.start.column),
            message: finding.message.clone(),
            fingerprint: finding.fingerprint.clone(),
        }
    }
}

/// The audit of one revision as stored with it: its findings, most severe first, and what the
/// audit could not read in full.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct AuditRecord {
    pub findings: Vec<RecordedFinding>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

impl AuditRecord {
    /// What is kept of `audit`.
    pub fn of(audit: &SkillAudit) -> AuditRecord {
        let mut findings: Vec<RecordedFinding> =
            audit.findings.iter().map(RecordedFinding::from).collect();
        // Stable: findings of one severity keep the audit's order (by file and position).
        findings.sort_by_key(|finding| std::cmp::Reverse(finding.severity));
        AuditRecord {
            findings,
            notes: audit.notes.clone(),
        }
    }

    /// The highest severity among the findings.
    pub fn highest(&self) -> Option<Severity> {
        self.findings.iter().map(|f| f.severity).max()
    }

    /// How many findings have `severity`.
    pub fn count(&self, severity: Severity) -> usize {
        self.findings
            .iter()
            .filter(|f| f.severity == severity)
            .count()
    }

    /// The counts in a few words, most severe first: `1 critical, 2 medium`; `no findings`.
    pub fn summary(&self) -> String {
        let counts: Vec<String> = Severity::ALL
            .iter()
            .rev()
            .filter_map(|&severity| match self.count(severity) {
                0 => None,
                n => Some(format!("{n} {severity}")),
            })
            .collect();
        if counts.is_empty() {
            "no findings".to_owned()
        } else {
            counts.join(", ")
        }
    }

    /// The counts by severity as JSON (`{"findings": 2, "highest": "high", "counts":
    /// {"critical": 0, "high": 1, …}}`): what listings say of a skill.
    pub fn summary_json(&self) -> serde_json::Value {
        let mut counts = serde_json::Map::new();
        for &severity in Severity::ALL.iter().rev() {
            counts.insert(severity.as_str().to_owned(), self.count(severity).into());
        }
        serde_json::json!({
            "findings": self.findings.len(),
            "highest": self.highest().map(Severity::as_str),
            "counts": counts,
        })
    }

    /// [`AuditRecord::summary_json`] with every finding (`"items"`) and the notes: what a
    /// skill's own page says (`show`, `get_skill`).
    pub fn json(&self) -> serde_json::Value {
        let mut json = self.summary_json();
        json["items"] = serde_json::to_value(&self.findings).unwrap_or_default();
        json["notes"] = self.notes.clone().into();
        json
    }

    /// The record as stored: compact JSON.
    pub fn to_json(&self) -> String {
        // A struct of strings, numbers and enums of names always serialises.
        serde_json::to_string(self).unwrap_or_default()
    }

    /// A record as [`AuditRecord::to_json`] stored it.
    pub fn from_json(text: &str) -> Result<AuditRecord, UnreadableRecord> {
        serde_json::from_str(text).map_err(UnreadableRecord)
    }
}

/// A stored audit record that does not read as one (a newer skillpath's, or damaged).
#[derive(Debug, thiserror::Error)]
#[error("an audit record is not readable: {0}")]
pub struct UnreadableRecord(#[source] serde_json::Error);

/// Whether a write of a skill with findings goes ahead: `off` does not audit, `warn` (the
/// default) keeps the findings with the revision and writes it, `block-high` and
/// `block-critical` refuse a skill with a finding at or above that severity, naming the
/// findings. A deletion is never refused: removing a harmful skill must always work.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Policy {
    Off,
    #[default]
    Warn,
    BlockHigh,
    BlockCritical,
}

impl Policy {
    /// Every policy, as the flag names them.
    pub const ALL: &[Policy] = &[
        Policy::Off,
        Policy::Warn,
        Policy::BlockHigh,
        Policy::BlockCritical,
    ];

    /// The name the `--audit-policy` flag takes.
    pub fn as_str(self) -> &'static str {
        match self {
            Policy::Off => "off",
            Policy::Warn => "warn",
            Policy::BlockHigh => "block-high",
            Policy::BlockCritical => "block-critical",
        }
    }

    /// Whether skills are audited at all.
    pub fn audits(self) -> bool {
        self != Policy::Off
    }

    /// The lowest severity that refuses a write, if any does.
    pub fn threshold(self) -> Option<Severity> {
        match self {
            Policy::Off | Policy::Warn => None,
            Policy::BlockHigh => Some(Severity::High),
            Policy::BlockCritical => Some(Severity::Critical),
        }
    }

    /// The findings of `record` that refuse the write (none: it goes ahead).
    pub fn refusing(self, record: &AuditRecord) -> Vec<&RecordedFinding> {
        let Some(threshold) = self.threshold() else {
            return Vec::new();
        };
        record
            .findings
            .iter()
            .filter(|finding| finding.severity >= threshold)
            .collect()
    }
}

impl std::fmt::Display for Policy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finding(severity: Severity) -> RecordedFinding {
        RecordedFinding {
            rule: "fetch-and-execute".to_owned(),
            severity,
            file: "SKILL.md".to_owned(),
            line: Some(3),
            column: Some(1),
            message: "m".to_owned(),
            fingerprint: "f".to_owned(),
        }
    }

    #[test]
    fn a_record_reads_back_as_it_was_stored() {
        let record = AuditRecord {
            findings: vec![finding(Severity::Critical), finding(Severity::Low)],
            notes: vec!["a note".to_owned()],
        };
        let text = record.to_json();
        assert!(text.contains(r#""severity":"critical""#), "{text}");
        assert_eq!(AuditRecord::from_json(&text).expect("reads back"), record);
        assert_eq!(record.summary(), "1 critical, 1 low");
        assert_eq!(AuditRecord::default().summary(), "no findings");
        assert!(AuditRecord::from_json("[1]").is_err());
    }

    #[test]
    fn each_policy_refuses_from_its_threshold_up() {
        let record = AuditRecord {
            findings: vec![finding(Severity::High), finding(Severity::Medium)],
            notes: Vec::new(),
        };
        assert!(Policy::Off.refusing(&record).is_empty());
        assert!(Policy::Warn.refusing(&record).is_empty());
        assert_eq!(Policy::BlockHigh.refusing(&record).len(), 1);
        assert!(Policy::BlockCritical.refusing(&record).is_empty());
        assert!(!Policy::Off.audits() && Policy::Warn.audits());
    }
}
