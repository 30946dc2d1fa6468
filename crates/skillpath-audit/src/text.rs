//! The text the rules read, and the collector of their findings: places, the per-rule cap, the
//! masking of secrets in snippets, and the fingerprints.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::ops::Range;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};
use skillpath_core::{Location, SourceFile};

use crate::fingerprint;
use crate::{Finding, MAX_FINDINGS_PER_RULE, MAX_SCANNED_BYTES, Rule, SkillAudit};

/// What kind of text a file holds, which decides the rules that read it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// Markdown: instructions to the agent, and code blocks.
    Markdown,
    /// A script or any other text.
    Other,
}

/// A file of the skill as text.
pub(crate) struct TextFile<'a> {
    /// Its path in the skill.
    pub(crate) path: &'a str,
    /// Its bytes, whole.
    pub(crate) bytes: &'a [u8],
    /// Its text, up to [`MAX_SCANNED_BYTES`] (invalid UTF-8 replaced).
    pub(crate) text: Cow<'a, str>,
    /// What kind of text it is.
    pub(crate) kind: Kind,
    /// `text` with ASCII letters lowercased, made on first use ([`TextFile::lower`]).
    pub(crate) lower: std::cell::OnceCell<String>,
}

impl<'a> TextFile<'a> {
    /// The text of `path` (`bytes`), when it is text: a file with a NUL byte in its first
    /// 8 KiB is binary, which only the file rules judge. Reading it spends `budget`.
    pub(crate) fn of(
        path: &'a str,
        bytes: &'a [u8],
        budget: &mut usize,
        found: &mut Found,
    ) -> Option<TextFile<'a>> {
        if bytes[..bytes.len().min(8192)].contains(&0) {
            return None;
        }
        if *budget == 0 {
            found.note(format!(
                "`{path}` was not audited: the skill's files are over {} MiB of text",
                crate::MAX_SKILL_BYTES / (1024 * 1024)
            ));
            return None;
        }
        let limit = MAX_SCANNED_BYTES.min(*budget);
        let read = &bytes[..bytes.len().min(limit)];
        *budget -= read.len();
        if read.len() < bytes.len() {
            found.note(format!(
                "only the first {} KiB of `{path}` were audited",
                read.len() / 1024
            ));
        }
        let text = match std::str::from_utf8(read) {
            Ok(text) => Cow::Borrowed(text),
            // Cut inside a character at the limit: the text up to it.
            Err(error) if error.error_len().is_none() => {
                Cow::Borrowed(std::str::from_utf8(&read[..error.valid_up_to()]).ok()?)
            }
            Err(_) => String::from_utf8_lossy(read),
        };
        let lower = path.to_ascii_lowercase();
        let kind = if [".md", ".markdown", ".mdx"]
            .iter()
            .any(|ext| lower.ends_with(ext))
        {
            Kind::Markdown
        } else {
            Kind::Other
        };
        Some(TextFile {
            path,
            bytes,
            text,
            kind,
            lower: std::cell::OnceCell::new(),
        })
    }

    /// The text with its ASCII letters lowercased, byte for byte as long (so a match in it is
    /// at the same range of the text): what the rules that ignore case search, with patterns
    /// written in lowercase ([`lowercase_pattern`]). A case-insensitive pattern (`(?i)`) would
    /// search for every case of every literal, many times slower.
    pub(crate) fn lower(&self) -> &str {
        self.lower.get_or_init(|| self.text.to_ascii_lowercase())
    }
}

/// A finding before its place is worked out.
struct Pending {
    rule: Rule,
    message: String,
    file: String,
    range: Option<Range<usize>>,
    evidence: String,
}

/// The findings of one skill as the rules make them.
pub(crate) struct Found {
    path: PathBuf,
    name: Option<String>,
    pending: Vec<Pending>,
    /// The texts of files with findings, by path, with the ranges to mask.
    texts: BTreeMap<String, (String, Vec<Range<usize>>)>,
    /// The digest and size of each file with findings.
    files: BTreeMap<String, (String, u64)>,
    /// Findings of each rule in each file, and how many of them were past the cap.
    counts: BTreeMap<(Rule, String), usize>,
    notes: Vec<String>,
}

impl Found {
    /// The collector of the skill at `path` (as the user named it), named `name`.
    pub(crate) fn new(path: &Path, name: Option<String>) -> Found {
        Found {
            path: path.to_path_buf(),
            name,
            pending: Vec::new(),
            texts: BTreeMap::new(),
            files: BTreeMap::new(),
            counts: BTreeMap::new(),
            notes: Vec::new(),
        }
    }

    /// Says that the audit could not read everything.
    pub(crate) fn note(&mut self, note: String) {
        self.notes.push(note);
    }

    /// A finding of `rule` at `range` of `file`; `evidence` is what its fingerprint is made of
    /// (the matched text, whitespace collapsed; a secret's digest).
    pub(crate) fn at(
        &mut self,
        rule: Rule,
        file: &TextFile<'_>,
        range: Range<usize>,
        message: String,
        evidence: &str,
    ) {
        if !self.counted(rule, file.path, file.bytes) {
            return;
        }
        let masked = rule == Rule::PrivateKey || rule == Rule::Token;
        let entry = self
            .texts
            .entry(file.path.to_owned())
            .or_insert_with(|| (file.text.clone().into_owned(), Vec::new()));
        if masked {
            entry.1.push(range.clone());
        }
        self.pending.push(Pending {
            rule,
            message,
            file: file.path.to_owned(),
            range: Some(range),
            evidence: evidence.split_whitespace().collect::<Vec<_>>().join(" "),
        });
    }

    /// A finding of `rule` about `file` as a whole (its bytes are `bytes`).
    pub(crate) fn about(&mut self, rule: Rule, file: &str, bytes: &[u8], message: String) {
        if !self.counted(rule, file, bytes) {
            return;
        }
        self.pending.push(Pending {
            rule,
            message,
            file: file.to_owned(),
            range: None,
            evidence: String::new(),
        });
    }

    /// Counts a finding of `rule` in `file` (whose bytes are `bytes`); false when it is past
    /// the cap.
    fn counted(&mut self, rule: Rule, file: &str, bytes: &[u8]) -> bool {
        let count = self.counts.entry((rule, file.to_owned())).or_default();
        *count += 1;
        if *count > MAX_FINDINGS_PER_RULE {
            return false;
        }
        if !self.files.contains_key(file) {
            self.files.insert(file.to_owned(), digest(bytes));
        }
        true
    }

    /// The audit: places worked out, secrets masked, fingerprints given, sorted by file and
    /// position.
    pub(crate) fn finish(self) -> SkillAudit {
        let Found {
            path,
            name,
            pending,
            texts,
            files,
            counts,
            mut notes,
        } = self;
        for ((rule, file), count) in counts {
            if count > MAX_FINDINGS_PER_RULE {
                notes.push(format!(
                    "`{file}`: {} more `{}` findings not listed",
                    count - MAX_FINDINGS_PER_RULE,
                    rule.id()
                ));
            }
        }
        let mut sources = BTreeMap::new();
        for (file, (mut text, masks)) in texts {
            for range in masks {
                // Secrets are ASCII, so masking byte for byte keeps every offset; line breaks
                // stay, so every line keeps its number.
                if let Some(secret) = text.get(range.clone()).filter(|s| s.is_ascii()) {
                    let masked: String = secret
                        .chars()
                        .map(|c| if c == '\n' || c == '\r' { c } else { '*' })
                        .collect();
                    text.replace_range(range, &masked);
                }
            }
            sources.insert(file.clone(), SourceFile::new(path.join(&file), text));
        }
        let skill = name.clone().unwrap_or_else(|| path.display().to_string());
        let mut findings: Vec<Finding> = Vec::with_capacity(pending.len());
        let mut occurrences: BTreeMap<(Rule, String, String), usize> = BTreeMap::new();
        for Pending {
            rule,
            message,
            file,
            range,
            evidence,
        } in pending
        {
            let location = range.and_then(|range| {
                let source: &SourceFile = sources.get(&file)?;
                Some(Location {
                    file: source.path.clone(),
                    start: source.index.line_column(&source.text, range.start),
                    range,
                })
            });
            let occurrence = occurrences
                .entry((rule, file.clone(), evidence.clone()))
                .or_default();
            let fingerprint = fingerprint::of(&skill, rule, &file, &evidence, *occurrence);
            *occurrence += 1;
            findings.push(Finding {
                rule,
                message,
                file,
                location,
                fingerprint,
            });
        }
        findings.sort_by(|a, b| {
            let place = |f: &Finding| f.location.as_ref().map(|l| l.range.start);
            (&a.file, place(a), a.rule).cmp(&(&b.file, place(b), b.rule))
        });
        SkillAudit {
            path,
            name,
            files,
            findings,
            sources,
            notes,
        }
    }
}

/// A rule's pattern, compiled. Every pattern is a literal of this crate that its tests match,
/// so compiling it cannot fail at run time. Its word boundaries (`\b`) are ASCII ones: a
/// Unicode word boundary stops the fast engine at the first non-ASCII character and hands the
/// search to a slower one, and the words the rules look for (commands, phrases, token
/// prefixes) are ASCII.
pub(crate) fn pattern(pattern: &str) -> regex::Regex {
    regex::Regex::new(&pattern.replace(r"\b", r"(?-u:\b)")).expect("a valid pattern")
}

/// A pattern of a rule that ignores case, written in lowercase, for [`TextFile::lower`] (and
/// other text lowercased with `to_ascii_lowercase`). An uppercase letter in it outside an
/// escape (`\S`, `\W`) could never match lowercased text: a mistake, refused by the tests.
pub(crate) fn lowercase_pattern(pattern: &str) -> regex::Regex {
    debug_assert!(
        uppercase_outside_escapes(pattern).is_none(),
        "`{pattern}` is searched in lowercased text"
    );
    self::pattern(pattern)
}

/// The first ASCII uppercase letter of `pattern` that is not part of an escape, if any.
pub(crate) fn uppercase_outside_escapes(pattern: &str) -> Option<char> {
    let mut chars = pattern.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            chars.next();
        } else if c.is_ascii_uppercase() {
            return Some(c);
        }
    }
    None
}

/// `text` cut to `max` characters, with `…` when cut.
pub(crate) fn shorten(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_owned(),
    }
}

/// The SHA-256 (hex) and size of `bytes`.
fn digest(bytes: &[u8]) -> (String, u64) {
    let hash = Sha256::digest(bytes);
    let hex = hash.iter().map(|b| format!("{b:02x}")).collect();
    (hex, bytes.len() as u64)
}
