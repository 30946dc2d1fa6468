//! Instructions that turn the agent against its user: to drop its earlier or system
//! instructions, to keep things from the user, to act without confirmation.

use std::sync::LazyLock;

use regex::Regex;

use crate::Rule;
use crate::text::{Found, TextFile};

/// Each rule with its pattern and what a match is called. The patterns ignore case: they are
/// written in lowercase and search lowercased text ([`TextFile::lower`]).
static PATTERNS: LazyLock<Vec<(Rule, Regex, &'static str)>> = LazyLock::new(|| {
    let rule = |rule, pattern: &str, what| (rule, crate::text::lowercase_pattern(pattern), what);
    vec![
        rule(
            Rule::AgainstInstructions,
            r"\b(ignore|disregard|forget|override|bypass)\s+(all\s+|any\s+|the\s+|your\s+)*(previous|prior|earlier|above|preceding|original|system|developer)\s+(instructions|prompts?|messages|rules|directions|guidelines|guardrails)\b",
            "asks the agent to drop its instructions",
        ),
        rule(
            Rule::AgainstInstructions,
            r"\b(ignore|disregard|override)\s+(the\s+|your\s+)?system\s+prompt\b|\byou\s+are\s+no\s+longer\s+(bound|an?\s+(ai|assistant))\b|\bnew\s+system\s+prompt\s*:",
            "asks the agent to replace its system prompt",
        ),
        rule(
            Rule::HideFromUser,
            r"\b(do\s+not|don't|never)\s+(tell|inform|mention\s+(this\s+|it\s+)?to|reveal\s+(this\s+|it\s+)?to|show\s+(this\s+|it\s+)?to|notify|alert|let)\s+the\s+user\b",
            "tells the agent to keep something from the user",
        ),
        rule(
            Rule::HideFromUser,
            r"\bwithout\s+(telling|informing|notifying|alerting)\s+the\s+user\b|\bhide\s+(this|these|it|them|the\s+\w+)\s+from\s+the\s+user\b|\bthe\s+user\s+(must|should)\s+(not|never)\s+(know|see|be\s+told|find\s+out)\b|\b(secretly|covertly)\s+(run|execute|send|upload|install|modify|delete)\b",
            "tells the agent to act behind the user's back",
        ),
        rule(
            Rule::DisableConfirmation,
            r"--dangerously-skip-permissions\b|--dangerously-bypass-approvals-and-sandbox\b|\b(disable|bypass|turn\s+off|suppress)\s+(all\s+|any\s+|the\s+)?(confirmation|permission|approval)s?(\s+(prompts?|checks?|dialogs?|requests?))?\b|\bwithout\s+asking\s+(the\s+user\s+)?for\s+(confirmation|permission|approval)\b",
            "turns off the user's confirmations",
        ),
    ]
});

/// Whether the phrase at `range` of `text` is mentioned rather than said: in quotes (a
/// skill that warns about "ignore previous instructions"), or, for keeping things from the
/// user, about narrating each step (`don't tell the user about each tool call`).
fn mentioned(rule: Rule, text: &str, range: std::ops::Range<usize>) -> bool {
    let before = text[..range.start].chars().next_back();
    if before.is_some_and(|c| matches!(c, '"' | '\'' | '`' | '“' | '‘' | '«')) {
        return true;
    }
    let after = text[range.end..].trim_start().to_ascii_lowercase();
    rule == Rule::HideFromUser
        && (after.starts_with("about each") || after.starts_with("about every"))
}

pub(crate) fn check(file: &TextFile<'_>, found: &mut Found) {
    let (text, lower): (&str, &str) = (&file.text, file.lower());
    for (rule, pattern, what) in PATTERNS.iter() {
        for matched in pattern.find_iter(lower) {
            let range = matched.range();
            if mentioned(*rule, text, range.clone()) {
                continue;
            }
            let said = &text[range.clone()];
            let message = format!("{what}: \"{}\"", crate::text::shorten(said, 100));
            found.at(*rule, file, range, message, said);
        }
    }
}

/// Whether `text` holds an instruction of these rules (for instructions hidden in comments).
pub(crate) fn instructs(text: &str) -> bool {
    let lower = text.to_ascii_lowercase();
    PATTERNS
        .iter()
        .any(|(_, pattern, _)| pattern.is_match(&lower))
}
