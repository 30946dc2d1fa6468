//! Commands in a skill's instructions and scripts that run what nobody reviewed (fetched or
//! decoded code, opaque blobs), that leak (credentials or the environment sent away), that
//! outlive the task (shell profiles, scheduled jobs, agent settings, the skill's own files), or
//! that install whatever is newest.
//!
//! Every pattern stays within one line (`[^\n]`), starts from a literal word where it can (the
//! engine then skips to candidates), and is matched in linear time.

use std::sync::LazyLock;

use regex::Regex;

use crate::Rule;
use crate::text::{Found, TextFile, lowercase_pattern, pattern, shorten};

/// Patterns whose every match is a finding of its rule, with what it is called.
static DIRECT: LazyLock<Vec<(Rule, Regex, &'static str)>> = LazyLock::new(|| {
    vec![
        (
            Rule::FetchAndExecute,
            pattern(
                r"\b(curl|wget)\b[^\n|]*\|\s*(sudo\s+(-\S+\s+)*)?(env\s+\S+\s+)?(ba|z|k|da|fi)?sh\b",
            ),
            "downloads a script and pipes it into a shell",
        ),
        (
            Rule::FetchAndExecute,
            pattern(
                r"\b(curl|wget)\b[^\n|]*\|\s*(sudo\s+)?(python[0-9.]*|perl|ruby|node|php)[ \t]*(-[ \t]*)?($|[;&)\n])",
            ),
            "downloads a script and pipes it into an interpreter",
        ),
        (
            Rule::FetchAndExecute,
            pattern(
                r#"\b(eval|source|(ba|z)?sh\s+(-c\s+)?|python[0-9.]*\s+-c\s+)\s*["']?(\$\(|<\(|`)\s*(curl|wget)\b"#,
            ),
            "runs what a download prints",
        ),
        (
            Rule::DecodeAndExecute,
            pattern(
                r"\bbase64\s+(-d|--decode|-D)\b[^\n|]*\|\s*(sudo\s+)?((ba|z)?sh|python[0-9.]*|perl|ruby|node)\b|\bxxd\s+-r\s+-p\b[^\n|]*\|\s*(sudo\s+)?(ba|z)?sh\b",
            ),
            "decodes data and pipes it into a shell",
        ),
        (
            Rule::DecodeAndExecute,
            pattern(
                r"\b(exec|eval)\s*\(\s*(base64\.b64decode|b64decode|codecs\.decode|bytes\.fromhex|zlib\.decompress|marshal\.loads|atob|Buffer\.from)\b",
            ),
            "runs code it decodes first",
        ),
        (
            Rule::Exfiltration,
            pattern(r"\b(env|printenv)\b[ \t]*\|[ \t]*(curl|wget|nc|ncat|netcat)\b"),
            "sends the whole environment over the network",
        ),
        (
            Rule::Exfiltration,
            pattern(
                r"\b(curl|wget)\b[^\n]*\$\(\s*(env|printenv)\s*\)|\brequests\.(post|put)\([^\n]*(dict\(os\.environ\)|os\.environ\.copy\(\)|os\.environ\s*[,)])|JSON\.stringify\(\s*process\.env\s*\)",
            ),
            "sends the whole environment over the network",
        ),
    ]
});

/// [`DIRECT`]'s patterns that ignore case (PowerShell's), written in lowercase for the
/// lowercased text.
static DIRECT_ANY_CASE: LazyLock<Vec<(Rule, Regex, &'static str)>> = LazyLock::new(|| {
    vec![
        (
            Rule::FetchAndExecute,
            lowercase_pattern(
                r"\b(iwr|irm|invoke-webrequest|invoke-restmethod|downloadstring)\b[^\n]*\|\s*(iex|invoke-expression)\b|\b(iex|invoke-expression)\b[\s(]*(iwr|irm|invoke-webrequest|invoke-restmethod|\(?new-object\s+(system\.)?net\.webclient)",
            ),
            "downloads a PowerShell script and runs it",
        ),
        (
            Rule::DecodeAndExecute,
            lowercase_pattern(
                r"\b(powershell|pwsh)(\.exe)?\b[^\n]*\s-(e|enc|encodedcommand)\s+[a-z0-9+/]{20,}={0,2}",
            ),
            "runs an encoded PowerShell command",
        ),
    ]
});

/// Credential files, which a command on the same line sends away.
static CREDENTIAL_FILE: LazyLock<Regex> = lazy_regex!(
    r"\.ssh/(id_[a-z0-9]+|identity)\b|\.aws/credentials\b|\.netrc\b|\.git-credentials\b|\.docker/config\.json\b|\.kube/config\b|\.config/gh/hosts\.yml\b|\.npmrc\b|\.pypirc\b"
);
static SENDS: LazyLock<Regex> = lazy_regex!(
    r"(?i)\b(curl|wget|nc|ncat|netcat|scp|rsync|invoke-webrequest|invoke-restmethod|requests\.(post|put)|axios\.(post|put)|fetch\()"
);

/// Files and folders that run again later or configure the agent: a write to one persists.
static PERSISTENT: LazyLock<Regex> = lazy_regex!(
    r"(~|\$HOME|\$\{HOME\})/\.(bashrc|bash_profile|bash_login|zshrc|zprofile|zshenv|zlogin|profile|config/fish/config\.fish)\b|/etc/(profile|bash\.bashrc|zshrc|cron\S*|rc\.local)\b|Library/LaunchAgents/|\.config/(autostart|systemd/user)/|\.claude/settings(\.local)?\.json\b|\.claude/hooks/|\.codex/config\.toml\b|\.cursor/mcp\.json\b|\.gemini/settings\.json\b|\bclaude_desktop_config\.json\b"
);
/// A cron table written: `… | crontab -` or `crontab FILE`.
static CRONTAB: LazyLock<Regex> =
    lazy_regex!(r"\|\s*crontab\s+-([ \t\n]|$)|\bcrontab\s+[^-\s|;&]\S*");
/// Skills' own files.
static SKILL_FILES: LazyLock<Regex> = lazy_regex!(
    r"\bSKILL\.md\b|\.(claude|agents|codex|cursor|copilot|gemini|opencode|windsurf)/skills/"
);
/// Commands that write the file they are given, before its name on the line.
static WRITES_BEFORE: LazyLock<Regex> = lazy_regex!(
    r"\btee\b|\bsed\s+-i\b|(^|[\s;&|(`])(cp|mv|ln)\s+-?\S|(?i:\b(set-content|add-content|out-file)\b)|\bwriteFileSync\(|\bappendFileSync\("
);

/// Calls that write the file named before them on the line (`Path("x").write_text(…)`,
/// `open("x", "w")`).
static WRITES_AFTER: LazyLock<Regex> =
    lazy_regex!(r#"\bwrite_text\(|\.write\(|^\s*["'][wa]\+?["']"#);

/// Whether `before` (the line up to a file's name) ends with a shell redirect into it (`>`,
/// `>>`, quoted or not), rather than an arrow (`->`, `=>`) or a quote mark (`> ` at the start).
fn redirected(before: &str) -> bool {
    // The folders of the path that ends in the name, then quotes and blanks.
    let path_start =
        before.trim_end_matches(|c: char| !c.is_whitespace() && !matches!(c, '>' | '"' | '\''));
    let trimmed = path_start.trim_end_matches(['"', '\'', ' ', '\t']);
    let Some(rest) = trimmed.strip_suffix('>') else {
        return false;
    };
    let rest = rest.strip_suffix('>').unwrap_or(rest);
    !rest.trim().is_empty() && !rest.ends_with(['-', '=', '>', '&'])
}

/// Package installs, whose packages are judged for a pinned version.
static PIP_INSTALL: LazyLock<Regex> =
    lazy_regex!(r"\b(pip3?|python[0-9.]*\s+-m\s+pip|uv\s+pip|pipx)\s+install\s+([^\n;&|#`)]*)");
static NODE_INSTALL: LazyLock<Regex> = lazy_regex!(
    r"\bnpx\s+(?:-y\s+|--yes\s+)*(@?[a-z0-9][\w./-]*@latest)\b|\bnpx\s+(?:-y|--yes)\s+(@?[a-z0-9][\w./-]*)(?:[ \t\n]|$)|\bnpm\s+(?:install|i)\s+(?:-g|--global)\s+(@?[a-z0-9][\w./-]*)(?:[ \t\n]|$)|\bgo\s+install\s+(\S+@latest)\b"
);

pub(crate) fn check(file: &TextFile<'_>, found: &mut Found) {
    let text: &str = &file.text;
    let searched = [(&*DIRECT, text), (&*DIRECT_ANY_CASE, file.lower())];
    for (patterns, searched) in searched {
        for (rule, regex, what) in patterns {
            for matched in regex.find_iter(searched) {
                let said = &text[matched.range()];
                let message = format!("{what}: `{}`", shorten(said.trim(), 120));
                found.at(*rule, file, matched.range(), message, said);
            }
        }
    }
    for matched in CREDENTIAL_FILE.find_iter(text) {
        let line = line_of(text, matched.start());
        // A public key (`id_ed25519.pub`) is meant to be sent.
        let public = text[matched.end()..].starts_with(".pub");
        if SENDS.is_match(line) && !public {
            let message = format!(
                "sends `{}` over the network: `{}`",
                matched.as_str(),
                shorten(line.trim(), 120)
            );
            found.at(Rule::Exfiltration, file, matched.range(), message, line);
        }
    }
    written(file, text, &PERSISTENT, Rule::Persistence, found);
    written(file, text, &SKILL_FILES, Rule::SelfModification, found);
    // Its pattern starts with `|`, which is everywhere in markdown tables: only a text that
    // names `crontab` is searched.
    let crontab = if text.contains("crontab") { text } else { "" };
    for matched in CRONTAB.find_iter(crontab) {
        let message = format!(
            "installs a scheduled job: `{}`",
            shorten(line_of(text, matched.start()).trim(), 120)
        );
        found.at(
            Rule::Persistence,
            file,
            matched.range(),
            message,
            matched.as_str(),
        );
    }
    installs(file, text, found);
    blobs(file, text, found);
}

/// The line of `text` that holds byte `at`, without its line break.
fn line_of(text: &str, at: usize) -> &str {
    &text[line_start(text, at)..text[at..].find('\n').map_or(text.len(), |i| at + i)]
}

/// Where the line of `text` that holds byte `at` starts.
fn line_start(text: &str, at: usize) -> usize {
    text[..at].rfind('\n').map_or(0, |i| i + 1)
}

/// Findings of `rule` for each place `targets` names on a line that writes.
fn written(file: &TextFile<'_>, text: &str, targets: &Regex, rule: Rule, found: &mut Found) {
    let mut reported_line = None;
    for matched in targets.find_iter(text) {
        let start = line_start(text, matched.start());
        let line = line_of(text, matched.start());
        let before = &text[start..matched.start()];
        let after = &line[matched.end() - start..];
        // `open("x", "w")`: the mode after the name's closing quote and comma.
        let after_arguments = after
            .trim_start_matches(|c: char| c != ',')
            .trim_start_matches(',');
        let writes = redirected(before)
            || WRITES_BEFORE.is_match(before)
            || WRITES_AFTER.is_match(after)
            || (before.contains("open(") && WRITES_AFTER.is_match(after_arguments));
        // One finding a line: `>> ~/.claude/skills/x/SKILL.md` names a skill's files twice.
        if reported_line == Some(start) || !writes {
            continue;
        }
        reported_line = Some(start);
        let what = if rule == Rule::Persistence {
            "writes to"
        } else {
            "writes a skill's files:"
        };
        let message = format!(
            "{what} `{}`: `{}`",
            matched.as_str(),
            shorten(line.trim(), 120)
        );
        found.at(rule, file, matched.range(), message, line);
    }
}

/// Installs of packages without a pinned version.
fn installs(file: &TextFile<'_>, text: &str, found: &mut Found) {
    let mut unpinned_install = |whole: regex::Match<'_>, packages: &str| {
        let message = format!(
            "installs the newest release of {packages}: `{}`",
            shorten(whole.as_str().trim(), 120)
        );
        found.at(
            Rule::UnpinnedInstall,
            file,
            whole.range(),
            message,
            whole.as_str(),
        );
    };
    for captures in PIP_INSTALL.captures_iter(text) {
        let (Some(whole), Some(rest)) = (captures.get(0), captures.get(2)) else {
            continue;
        };
        let unpinned = unpinned_packages(rest.as_str());
        if unpinned.is_empty() {
            continue;
        }
        unpinned_install(whole, &unpinned.join(", "));
    }
    for captures in NODE_INSTALL.captures_iter(text) {
        let Some(whole) = captures.get(0) else {
            continue;
        };
        let package = (1..=4)
            .find_map(|group| captures.get(group))
            .map_or("", |m| m.as_str());
        // A version given (`name@1.2.3`, `@scope/name@1`) pins it; `@latest` does not.
        let versioned = package
            .trim_start_matches('@')
            .split_once('@')
            .is_some_and(|(_, version)| version != "latest");
        if versioned {
            continue;
        }
        unpinned_install(whole, &format!("`{package}`"));
    }
}

/// The packages of a `pip install` argument list that name no version.
fn unpinned_packages(arguments: &str) -> Vec<String> {
    let mut unpinned = Vec::new();
    let mut words = arguments.split_whitespace();
    while let Some(word) = words.next() {
        if word.starts_with('-') {
            // Options that take a value: skip it too (`-r requirements.txt`).
            if matches!(
                word,
                "-r" | "--requirement"
                    | "-c"
                    | "--constraint"
                    | "-e"
                    | "--editable"
                    | "-i"
                    | "--index-url"
                    | "--extra-index-url"
                    | "-f"
                    | "--find-links"
                    | "--target"
                    | "-t"
                    | "--python"
            ) {
                words.next();
            }
            continue;
        }
        let word = word.trim_matches(|c| c == '"' || c == '\'');
        let package_name = word.split('[').next().unwrap_or(word);
        let plain = !package_name.is_empty()
            && package_name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
            && package_name
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphanumeric())
            && !package_name.ends_with(".txt")
            && !package_name.ends_with(".whl")
            && !package_name.ends_with(".tar.gz");
        if plain {
            unpinned.push(format!("`{package_name}`"));
        }
    }
    unpinned
}

/// The shortest run of base64 characters reported as a blob.
const BLOB_CHARS: usize = 200;

/// Whether `byte` is a base64 character (of the standard alphabet, without padding).
fn base64_char(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || byte == b'+' || byte == b'/'
}

/// Every maximal run of at least [`BLOB_CHARS`] base64 characters in `text`, with up to two
/// `=` of padding after it: what `[A-Za-z0-9+/]{200,}={0,2}` finds, without reading every
/// byte. A run that long holds a byte at a multiple of [`BLOB_CHARS`], so only those are
/// looked at, and from one that is base64, the run around it (prose has short runs: words).
fn base64_runs(text: &str) -> impl Iterator<Item = std::ops::Range<usize>> + '_ {
    let bytes = text.as_bytes();
    // Where the last run looked at ended: runs never overlap, so none starts before it.
    let mut done = 0;
    let mut probe = BLOB_CHARS - 1;
    std::iter::from_fn(move || {
        while probe < bytes.len() {
            let at = probe;
            probe += BLOB_CHARS;
            if at < done || !base64_char(bytes[at]) {
                continue;
            }
            let start = bytes[done..at]
                .iter()
                .rposition(|&b| !base64_char(b))
                .map_or(done, |i| done + i + 1);
            let mut end = bytes[at..]
                .iter()
                .position(|&b| !base64_char(b))
                .map_or(bytes.len(), |i| at + i);
            done = end;
            if end - start < BLOB_CHARS {
                continue;
            }
            let padding = bytes[end..]
                .iter()
                .take(2)
                .take_while(|&&b| b == b'=')
                .count();
            end += padding;
            done = end;
            probe = probe.max(end + BLOB_CHARS - 1);
            return Some(start..end);
        }
        None
    })
}

/// Long base64 or hex runs, except the data of images and fonts (`data:image/png;base64,…`).
fn blobs(file: &TextFile<'_>, text: &str, found: &mut Found) {
    for range in base64_runs(text) {
        let blob = &text[range.clone()];
        let before = &text[text.floor_char_boundary(range.start.saturating_sub(64))..range.start];
        let media = before
            .rfind("data:")
            .map(|at| &before[at..])
            .is_some_and(|prefix| {
                (prefix.starts_with("data:image/") || prefix.starts_with("data:font/"))
                    && prefix.ends_with(";base64,")
            });
        // The body of a private key is reported as the key.
        if media || before.contains("PRIVATE KEY-----") {
            continue;
        }
        let hex = blob.bytes().all(|b| b.is_ascii_hexdigit());
        // A run of one letter, or of letters only, is not encoded data.
        let digits = blob.bytes().filter(u8::is_ascii_digit).count();
        if digits == 0 || digits == blob.len() {
            continue;
        }
        let message = format!(
            "a {} blob of {} characters",
            if hex { "hex" } else { "base64" },
            blob.len()
        );
        let evidence = format!("{}:{}", &blob[..64], blob.len());
        found.at(Rule::OpaqueBlob, file, range, message, &evidence);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The runs found by probing are those the regex they stand for finds, on texts with runs
    /// of every length around the threshold, at every offset, with and without padding.
    #[test]
    fn base64_runs_are_what_the_regex_finds() {
        let regex = pattern(r"[A-Za-z0-9+/]{200,}={0,2}");
        let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut next = move |bound: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % bound
        };
        for _ in 0..2_000 {
            let mut text = String::new();
            for _ in 0..next(8) {
                let run = match next(4) {
                    0 => next(10) as usize,
                    1 => 190 + next(20) as usize,
                    _ => next(700) as usize,
                };
                text.extend((0..run).map(|i| if i % 7 == 3 { '+' } else { 'a' }));
                let separator = ["", "=", "==", "===", " ", "\n", "é", "=b"][next(8) as usize];
                text.push_str(separator);
            }
            let expected: Vec<_> = regex.find_iter(&text).map(|m| m.range()).collect();
            let found: Vec<_> = base64_runs(&text).collect();
            assert_eq!(found, expected, "{text:?}");
        }
    }
}
