//! Secrets: private keys and the access tokens of cloud, source-host, chat and payment
//! services, and JWTs. A finding names the kind and the place; the value is never echoed (its
//! snippet is masked, its fingerprint made from its digest).

use std::sync::LazyLock;

use regex::Regex;
use sha2::{Digest, Sha256};

use crate::Rule;
use crate::text::{Found, TextFile};

struct Kind {
    name: &'static str,
    rule: Rule,
    pattern: Regex,
}

static KINDS: LazyLock<Vec<Kind>> = LazyLock::new(|| {
    let kind = |name, rule, pattern: &str| Kind {
        name,
        rule,
        pattern: crate::text::pattern(pattern),
    };
    vec![
        kind(
            "a private key",
            Rule::PrivateKey,
            r"-----BEGIN ((RSA|EC|DSA|OPENSSH|PGP|ENCRYPTED) )?PRIVATE KEY( BLOCK)?-----[A-Za-z0-9+/=\s:,-]{40,}",
        ),
        kind(
            "an AWS access key ID",
            Rule::Token,
            r"\b(AKIA|ASIA)[0-9A-Z]{16}\b",
        ),
        kind(
            "a GitHub token",
            Rule::Token,
            r"\b(gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{60,})\b",
        ),
        kind(
            "a GitLab token",
            Rule::Token,
            r"\bglpat-[A-Za-z0-9_-]{20,}\b",
        ),
        kind(
            "a Slack token",
            Rule::Token,
            r"\bxox[abprs]-[0-9A-Za-z-]{20,}\b",
        ),
        kind(
            "a Slack webhook",
            Rule::Token,
            r"https://hooks\.slack\.com/services/T[0-9A-Z]{6,}/B[0-9A-Z]{6,}/[0-9A-Za-z]{20,}",
        ),
        kind(
            "a Discord webhook",
            Rule::Token,
            r"https://(canary\.|ptb\.)?discord(app)?\.com/api/webhooks/[0-9]{15,}/[A-Za-z0-9_-]{50,}",
        ),
        kind(
            "a Telegram bot token",
            Rule::Token,
            r"\b[0-9]{8,10}:AA[0-9A-Za-z_-]{33}\b",
        ),
        kind(
            "a Stripe secret key",
            Rule::Token,
            r"\b(sk|rk)_live_[0-9A-Za-z]{24,}\b",
        ),
        kind(
            "a Google API key",
            Rule::Token,
            r"\bAIza[0-9A-Za-z_-]{35}\b",
        ),
        kind(
            "an OpenAI API key",
            Rule::Token,
            r"\bsk-(proj-|svcacct-)?[A-Za-z0-9_-]{20,}T3BlbkFJ[A-Za-z0-9_-]{20,}\b",
        ),
        kind(
            "an Anthropic API key",
            Rule::Token,
            r"\bsk-ant-(api|admin)[0-9]{2}-[A-Za-z0-9_-]{80,}\b",
        ),
        kind(
            "a JSON Web Token",
            Rule::Token,
            r"\beyJ[A-Za-z0-9_-]{15,}\.eyJ[A-Za-z0-9_-]{15,}\.[A-Za-z0-9_-]{20,}",
        ),
    ]
});

/// Whether a matched value is a placeholder or a documented example rather than a secret:
/// it says so (`EXAMPLE`, `xxxx`, `your_…`), or it has no digits or no letters, or one
/// character repeats through most of it.
fn placeholder(value: &str) -> bool {
    let lower = value.to_ascii_lowercase();
    if [
        "example",
        "xxxx",
        "your",
        "placeholder",
        "redacted",
        "dummy",
        "fake",
        "sample",
        "1234567890",
        "abcdef",
    ]
    .iter()
    .any(|word| lower.contains(word))
    {
        return true;
    }
    let body: Vec<u8> = value.bytes().filter(u8::is_ascii_alphanumeric).collect();
    let digits = body.iter().filter(|b| b.is_ascii_digit()).count();
    let letters = body.len() - digits;
    if digits == 0 || letters == 0 {
        return true;
    }
    let mut counts = [0usize; 256];
    for &b in &body {
        counts[b as usize] += 1;
    }
    counts.iter().any(|&n| n * 2 > body.len())
}

pub(crate) fn check(file: &TextFile<'_>, found: &mut Found) {
    let text: &str = &file.text;
    for kind in KINDS.iter() {
        for matched in kind.pattern.find_iter(text) {
            let value = matched.as_str();
            if kind.rule == Rule::Token && placeholder(value) {
                continue;
            }
            let digest = Sha256::digest(value.as_bytes());
            let evidence: String = digest.iter().map(|b| format!("{b:02x}")).collect();
            let message = format!(
                "{} ({} characters; the value is not shown)",
                kind.name,
                value.chars().count()
            );
            found.at(kind.rule, file, matched.range(), message, &evidence);
        }
    }
}
