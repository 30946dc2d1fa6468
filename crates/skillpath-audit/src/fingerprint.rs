//! Fingerprints and baselines. A finding's fingerprint is made from what it is, never from
//! where its line is: the skill, the rule, the file, the matched text (whitespace collapsed; a
//! secret's digest) and which occurrence of that text in the file it is. So a baseline written
//! today still knows the finding after lines are added above it, and forgets it when the
//! text changes.

use std::collections::BTreeSet;

use sha2::{Digest, Sha256};

use crate::{Rule, SkillAudit};

/// The fingerprint of a finding: 32 hex digits.
pub(crate) fn of(skill: &str, rule: Rule, file: &str, evidence: &str, occurrence: usize) -> String {
    let mut hash = Sha256::new();
    for part in [skill, rule.id(), file, evidence, &occurrence.to_string()] {
        hash.update(part.as_bytes());
        hash.update([0]);
    }
    hash.finalize()[..16]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Known findings, by fingerprint, that an audit leaves out.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Baseline {
    fingerprints: BTreeSet<String>,
}

/// The version of the baseline file's format.
const BASELINE_VERSION: u64 = 1;

/// Why a baseline file does not read; each message follows "the baseline `…` cannot be read: ".
#[derive(Debug, thiserror::Error)]
pub enum BaselineError {
    /// Not JSON at all.
    #[error("it is not JSON: {0}")]
    NotJson(#[source] serde_json::Error),
    /// Written by another version of the format.
    #[error("it is version {0}; this skillpath reads version {BASELINE_VERSION}")]
    Version(u64),
    /// No `version` field.
    #[error("it has no `version`")]
    NoVersion,
    /// No `findings` array.
    #[error("it has no `findings` list")]
    NoFindings,
    /// A finding without its fingerprint.
    #[error("a finding has no `fingerprint`")]
    NoFingerprint,
}

impl Baseline {
    /// Whether `fingerprint` is known.
    pub fn contains(&self, fingerprint: &str) -> bool {
        self.fingerprints.contains(fingerprint)
    }

    /// How many findings it knows.
    pub fn len(&self) -> usize {
        self.fingerprints.len()
    }

    /// Whether it knows none.
    pub fn is_empty(&self) -> bool {
        self.fingerprints.is_empty()
    }

    /// Reads a baseline file (as [`Baseline::to_json`] writes it).
    pub fn from_json(text: &str) -> Result<Baseline, BaselineError> {
        let value: serde_json::Value =
            serde_json::from_str(text).map_err(BaselineError::NotJson)?;
        match value.get("version").and_then(serde_json::Value::as_u64) {
            Some(BASELINE_VERSION) => {}
            Some(other) => return Err(BaselineError::Version(other)),
            None => return Err(BaselineError::NoVersion),
        }
        let findings = value
            .get("findings")
            .and_then(serde_json::Value::as_array)
            .ok_or(BaselineError::NoFindings)?;
        let fingerprints = findings
            .iter()
            .map(|finding| {
                finding
                    .get("fingerprint")
                    .and_then(serde_json::Value::as_str)
                    .map(str::to_owned)
                    .ok_or(BaselineError::NoFingerprint)
            })
            .collect::<Result<_, _>>()?;
        Ok(Baseline { fingerprints })
    }

    /// The baseline of every finding of `audits`, as JSON: sorted, one finding per entry with
    /// what it was (skill, rule, file) beside its fingerprint, so a reviewer can read the diff.
    pub fn to_json(audits: &[SkillAudit]) -> String {
        let mut findings: Vec<(String, &str, &str, &str)> = audits
            .iter()
            .flat_map(|audit| {
                let skill = audit
                    .name
                    .clone()
                    .unwrap_or_else(|| audit.path.display().to_string());
                audit.findings.iter().map(move |finding| {
                    (
                        skill.clone(),
                        finding.rule.id(),
                        finding.file.as_str(),
                        finding.fingerprint.as_str(),
                    )
                })
            })
            .collect();
        findings.sort();
        findings.dedup();
        let findings: Vec<serde_json::Value> = findings
            .into_iter()
            .map(|(skill, rule, file, fingerprint)| {
                serde_json::json!({
                    "skill": skill,
                    "rule": rule,
                    "file": file,
                    "fingerprint": fingerprint,
                })
            })
            .collect();
        let document = serde_json::json!({
            "version": BASELINE_VERSION,
            "findings": findings,
        });
        let mut text = serde_json::to_string_pretty(&document).unwrap_or_default();
        text.push('\n');
        text
    }
}
