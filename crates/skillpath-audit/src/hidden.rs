//! Hidden text: characters that change what a reader sees (bidirectional controls), that are
//! not seen at all (zero-width and other invisible format characters, Unicode tag characters,
//! whose hidden ASCII is decoded and shown), and instructions inside HTML comments, which a
//! markdown viewer does not show.

use std::sync::LazyLock;

use regex::Regex;

use crate::text::{Found, Kind, TextFile, shorten};
use crate::{Rule, steering};

/// Which rule a character falls under, if any.
fn rule_of(c: char) -> Option<Rule> {
    match c {
        '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' => Some(Rule::BidiControl),
        '\u{200B}' | '\u{200C}' | '\u{200D}' | '\u{2060}' | '\u{FEFF}' => Some(Rule::ZeroWidth),
        '\u{E0000}'..='\u{E007F}' => Some(Rule::TagCharacters),
        '\u{00AD}'
        | '\u{034F}'
        | '\u{061C}'
        | '\u{115F}'
        | '\u{1160}'
        | '\u{17B4}'
        | '\u{17B5}'
        | '\u{180B}'..='\u{180F}'
        | '\u{200E}'
        | '\u{200F}'
        | '\u{2061}'..='\u{2064}'
        | '\u{206A}'..='\u{206F}'
        | '\u{3164}'
        | '\u{FE00}'..='\u{FE0D}'
        | '\u{FFA0}'
        | '\u{FFF9}'..='\u{FFFB}'
        | '\u{1D173}'..='\u{1D17A}'
        | '\u{E0100}'..='\u{E01EF}' => Some(Rule::InvisibleFormat),
        _ => None,
    }
}

/// Whether a joiner between `before` and `after` is ordinary text: emoji sequences (👩‍💻) and
/// scripts that need joiners (Arabic, Indic, …) put them between two non-ASCII characters.
fn ordinary_joiner(c: char, before: Option<char>, after: Option<char>) -> bool {
    matches!(c, '\u{200C}' | '\u{200D}')
        && before.is_some_and(|b| !b.is_ascii())
        && after.is_some_and(|a| !a.is_ascii())
}

/// Whether the tag characters from `start` are an emoji's subdivision flag (🏴 then tag
/// letters and the cancel tag U+E007F, as in England's flag), which is ordinary text.
fn flag_sequence(before: Option<char>, tags: &[char]) -> bool {
    before == Some('\u{1F3F4}')
        && tags.last() == Some(&'\u{E007F}')
        && tags[..tags.len() - 1]
            .iter()
            .all(|&t| matches!(t, '\u{E0030}'..='\u{E0039}' | '\u{E0061}'..='\u{E007A}'))
}

pub(crate) fn check(file: &TextFile<'_>, found: &mut Found) {
    let text: &str = &file.text;
    if !text.is_ascii() {
        characters(file, text, found);
    }
    if file.kind == Kind::Markdown && text.contains("<!--") {
        comments(file, text, found);
    }
}

/// Where the next byte of `bytes` at or after `from` that is not ASCII is, if any: every
/// character these rules look for is outside ASCII, and most text is ASCII, read a word at a
/// time.
fn next_non_ascii(bytes: &[u8], from: usize) -> Option<usize> {
    const HIGH_BITS: u64 = 0x8080_8080_8080_8080;
    let mut at = from;
    while let Some(word) = bytes.get(at..at + 8) {
        let mut eight = [0u8; 8];
        eight.copy_from_slice(word);
        if u64::from_ne_bytes(eight) & HIGH_BITS != 0 {
            break;
        }
        at += 8;
    }
    bytes
        .get(at..)?
        .iter()
        .position(|b| !b.is_ascii())
        .map(|i| at + i)
}

/// Reports each run of hidden characters of one rule once.
fn characters(file: &TextFile<'_>, text: &str, found: &mut Found) {
    let bytes = text.as_bytes();
    let mut at = 0;
    let mut before: Option<char> = None;
    while let Some(start) = next_non_ascii(bytes, at) {
        if start > at {
            before = Some(char::from(bytes[start - 1]));
        }
        // `start` is a non-ASCII byte after an ASCII one or after a whole character: the
        // first byte of a character.
        let Some(c) = text[start..].chars().next() else {
            break;
        };
        at = start + c.len_utf8();
        let Some(rule) = rule_of(c) else {
            before = Some(c);
            continue;
        };
        // A byte-order mark at the very start is an encoding mark, not hidden text.
        if c == '\u{FEFF}' && start == 0 {
            before = Some(c);
            continue;
        }
        let mut run = vec![c];
        let mut end = at;
        while let Some(next) = text[end..].chars().next() {
            if rule_of(next) != Some(rule) {
                break;
            }
            run.push(next);
            end += next.len_utf8();
        }
        at = end;
        let after = text[end..].chars().next();
        let ordinary = match rule {
            Rule::ZeroWidth => run.len() == 1 && ordinary_joiner(c, before, after),
            Rule::TagCharacters => flag_sequence(before, &run),
            // A closer (U+202C, U+2069) ends what an opener began, which is reported.
            Rule::BidiControl => run.iter().all(|c| matches!(c, '\u{202C}' | '\u{2069}')),
            // An emoji's variation selectors are U+FE0E/U+FE0F, outside the range above.
            _ => false,
        };
        before = run.last().copied();
        if ordinary {
            continue;
        }
        let names: Vec<String> = {
            let mut names: Vec<String> =
                run.iter().map(|c| format!("U+{:04X}", *c as u32)).collect();
            names.dedup();
            names.truncate(4);
            names
        };
        let message = match rule {
            Rule::TagCharacters => {
                let hidden: String = run
                    .iter()
                    .filter_map(|&t| {
                        let ascii = (t as u32).checked_sub(0xE0000)?;
                        char::from_u32(ascii).filter(|c| c.is_ascii_graphic() || *c == ' ')
                    })
                    .collect();
                format!(
                    "{} tag characters hide the text {:?}",
                    run.len(),
                    shorten(&hidden, 200)
                )
            }
            _ => format!(
                "{} {} ({})",
                run.len(),
                if run.len() == 1 {
                    "character"
                } else {
                    "characters"
                },
                names.join(", ")
            ),
        };
        let evidence: String = run.iter().collect();
        found.at(rule, file, start..end, message, &evidence);
    }
}

/// An HTML comment. The repetition is lazy, so a comment ends at its first `-->`; the engine
/// is linear for any input.
static COMMENT: LazyLock<Regex> = lazy_regex!(r"(?s)<!--(.*?)-->");

/// Words that address the agent and tell it to act, which ordinary comments (`TODO`, lint
/// switches, notes for the author) do not hold together.
static ADDRESSED: LazyLock<Regex> =
    lazy_regex!(r"(?i)\b(you|your|assistant|agent|ai|model|llm|claude|codex|copilot)\b");
static IMPERATIVE: LazyLock<Regex> = lazy_regex!(
    r"(?i)\b(must|always|never|do not|don't|ignore|execute|run|send|upload|read|fetch|download|delete|instead)\b"
);

fn comments(file: &TextFile<'_>, text: &str, found: &mut Found) {
    for comment in COMMENT.captures_iter(text) {
        let (Some(whole), Some(inner)) = (comment.get(0), comment.get(1)) else {
            continue;
        };
        let body = inner.as_str();
        let words = body.split_whitespace().count();
        let instructs = steering::instructs(body)
            || (words >= 6 && ADDRESSED.is_match(body) && IMPERATIVE.is_match(body));
        if !instructs {
            continue;
        }
        let message = format!(
            "a hidden comment of {words} words tells the agent: {:?}",
            shorten(&body.split_whitespace().collect::<Vec<_>>().join(" "), 120)
        );
        found.at(
            Rule::HtmlCommentInstructions,
            file,
            whole.start()..whole.end(),
            message,
            body,
        );
    }
}
