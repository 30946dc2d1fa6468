//! Audits as text for people (in the style of `validate`: the place, the line with the match
//! underlined, why it matters, the fix), as JSON for scripts, and as SARIF 2.1.0 for code
//! scanning tools (each artifact with its SHA-256, so reports of several scanners can be
//! merged). `docs/audit.md` documents the JSON and SARIF shapes.

use std::fmt::Write as _;
use std::path::Path;

use serde_json::{Value, json};
use skillpath_core::render_diagnostics;

use crate::{Finding, Rule, Severity, SkillAudit};

/// Where `finding` is when it has no place in the text: the file as a whole.
fn file_path(audit: &SkillAudit, finding: &Finding) -> String {
    audit.path.join(&finding.file).display().to_string()
}

/// The audit's findings and notes as text, each finding followed by a blank line.
pub fn text(audit: &SkillAudit) -> String {
    let mut out = String::new();
    for finding in &audit.findings {
        let _ = writeln!(
            out,
            "{}[{}]: {}",
            finding.severity(),
            finding.rule.id(),
            finding.message
        );
        let pad = match &finding.location {
            Some(location) => {
                out.push_str(&render_diagnostics::snippet(
                    location,
                    audit.sources.get(&finding.file),
                ));
                " ".repeat(location.start.line.to_string().len())
            }
            None => {
                let _ = writeln!(out, " --> {}", file_path(audit, finding));
                " ".to_owned()
            }
        };
        let _ = writeln!(out, "{pad} = why: {}", finding.rule.why());
        let _ = writeln!(out, "{pad} = fix: {}", finding.rule.fix());
        out.push('\n');
    }
    for note in &audit.notes {
        let _ = writeln!(out, "note: {}: {note}", audit.path.display());
    }
    out
}

/// One finding as JSON.
fn finding_json(audit: &SkillAudit, finding: &Finding) -> Value {
    let location = finding.location.as_ref();
    let snippet = location.and_then(|location| {
        let source = audit.sources.get(&finding.file)?;
        let line = source.index.line_range(&source.text, location.start.line);
        Some(crate::text::shorten(&source.text[line], 300))
    });
    json!({
        "rule": finding.rule.id(),
        "severity": finding.severity().as_str(),
        "title": finding.rule.title(),
        "message": finding.message,
        "file": file_path(audit, finding),
        "path_in_skill": finding.file,
        "line": location.map(|l| l.start.line),
        "column": location.map(|l| l.start.column),
        "offset": location.map(|l| l.range.start),
        "length": location.map(|l| l.range.len()),
        "snippet": snippet,
        "why": finding.rule.why(),
        "fix": finding.rule.fix(),
        "fingerprint": finding.fingerprint,
    })
}

/// The audit of one skill as JSON.
pub fn json(audit: &SkillAudit) -> Value {
    let counts: serde_json::Map<String, Value> = Severity::ALL
        .iter()
        .rev()
        .map(|s| (s.as_str().to_owned(), json!(audit.count(*s))))
        .collect();
    json!({
        "path": audit.path.display().to_string(),
        "name": audit.name,
        "highest": audit.highest().map(Severity::as_str),
        "counts": counts,
        "findings": audit.findings.iter().map(|f| finding_json(audit, f)).collect::<Vec<_>>(),
        "notes": audit.notes,
    })
}

/// SARIF's level for a severity.
fn level(severity: Severity) -> &'static str {
    match severity {
        Severity::Critical | Severity::High => "error",
        Severity::Medium => "warning",
        Severity::Low => "note",
    }
}

/// The `security-severity` code scanning tools rank by (0–10).
fn security_severity(severity: Severity) -> &'static str {
    match severity {
        Severity::Critical => "9.5",
        Severity::High => "8.0",
        Severity::Medium => "5.0",
        Severity::Low => "2.0",
    }
}

/// A path as a SARIF URI reference: `/`-separated, with what a URI cannot hold escaped.
fn uri(path: &Path) -> String {
    let text = path.display().to_string().replace('\\', "/");
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~/:@!$&'()*+,;=".contains(&byte) {
            out.push(byte as char);
        } else {
            let _ = write!(out, "%{byte:02X}");
        }
    }
    out
}

/// Every audit as one SARIF 2.1.0 log: one run of `skillpath` (`version`), every rule in the
/// driver, every file with findings an artifact with its SHA-256, every finding a result with
/// its place and its fingerprint (`partialFingerprints["skillpath/v1"]`).
pub fn sarif(audits: &[SkillAudit], version: &str) -> Value {
    let rules: Vec<Value> = Rule::ALL
        .iter()
        .map(|rule| {
            json!({
                "id": rule.id(),
                "name": rule.id(),
                "shortDescription": { "text": rule.title() },
                "fullDescription": { "text": rule.why() },
                "help": { "text": rule.fix() },
                "defaultConfiguration": { "level": level(rule.severity()) },
                "properties": {
                    "severity": rule.severity().as_str(),
                    "security-severity": security_severity(rule.severity()),
                    "tags": ["security"],
                },
            })
        })
        .collect();
    let mut artifacts = Vec::new();
    let mut results = Vec::new();
    for audit in audits {
        let first = artifacts.len();
        let files: Vec<&String> = audit.files.keys().collect();
        for (file, (sha256, size)) in &audit.files {
            artifacts.push(json!({
                "location": { "uri": uri(&audit.path.join(file)) },
                "length": size,
                "hashes": { "sha-256": sha256 },
            }));
        }
        for finding in &audit.findings {
            let index = files
                .iter()
                .position(|f| **f == finding.file)
                .map(|i| first + i);
            let mut physical = json!({
                "artifactLocation": {
                    "uri": uri(&audit.path.join(&finding.file)),
                    "index": index,
                },
            });
            if let Some(location) = &finding.location {
                let length = audit
                    .sources
                    .get(&finding.file)
                    .and_then(|source| source.text.get(location.range.clone()))
                    .map_or(0, |text| text.chars().count());
                physical["region"] = json!({
                    "startLine": location.start.line,
                    "startColumn": location.start.column,
                    "charLength": length,
                });
            }
            results.push(json!({
                "ruleId": finding.rule.id(),
                "ruleIndex": Rule::ALL.iter().position(|r| *r == finding.rule),
                "level": level(finding.severity()),
                "message": { "text": finding.message },
                "locations": [{ "physicalLocation": physical }],
                "partialFingerprints": { "skillpath/v1": finding.fingerprint },
                "properties": { "severity": finding.severity().as_str() },
            }));
        }
    }
    json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {
                "driver": {
                    "name": "skillpath",
                    "version": version,
                    "informationUri": "https://github.com/skillpath/skillpath",
                    "rules": rules,
                },
            },
            "artifacts": artifacts,
            "results": results,
        }],
    })
}
