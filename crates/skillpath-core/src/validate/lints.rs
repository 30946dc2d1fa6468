//! Authoring lints: warnings about skills that are valid but will work worse than they could
//! (the specification's and the best-practice guide's recommendations).

use pulldown_cmark::{Event, Options, Parser, Tag};

use crate::bundle::{self, Lookup, SkillBundle};
use crate::diagnostic::{Code, Diagnostic};
use crate::skill_md::SkillMd;

/// "Keep your main `SKILL.md` under 500 lines."
const MAX_BODY_LINES: usize = 500;
/// "< 5000 tokens recommended" for the instructions.
const MAX_BODY_TOKENS: usize = 5000;
/// A token is about four characters of English text; good enough for a recommendation.
const CHARS_PER_TOKEN: usize = 4;

/// Words that tell an agent *when* to use a skill; a description without any of them usually
/// only says what the skill is.
const TRIGGER_CLUES: &[&str] = &[
    "use when",
    "use this",
    "use for",
    "use it",
    "use to",
    "use before",
    "use after",
    "use during",
    "use whenever",
    "when ",
    "whenever",
    "if the user",
    "if you",
    "trigger",
    "invoke",
    "for tasks",
    "for any",
    "for requests",
    "for working",
    "for creating",
    "for building",
    "asks",
    "wants",
    "needs",
    "before ",
    "after ",
    "while ",
    "during ",
];

/// Runs every lint. Relative links resolve against the files of `bundle`.
pub(crate) fn check(skill: &SkillMd, bundle: &SkillBundle) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let file = &skill.file;
    let body = skill.body();
    let body_range = skill.body.clone();

    let lines = body.lines().count();
    if lines > MAX_BODY_LINES {
        out.push(
            Diagnostic::warning(
                Code::BodyTooLong,
                format!("the body is {lines} lines long; keep it under {MAX_BODY_LINES}"),
            )
            .with_hint("move detailed material into `references/` files and say when to read each")
            .at(file, body_range.clone()),
        );
    }
    let tokens = body.chars().count() / CHARS_PER_TOKEN;
    if tokens > MAX_BODY_TOKENS {
        out.push(
            Diagnostic::warning(
                Code::BodyTooManyTokens,
                format!("the body is about {tokens} tokens; keep it under {MAX_BODY_TOKENS}"),
            )
            .with_hint("the whole body is loaded when the skill activates; split it into `references/` files")
            .at(file, body_range.start..body_range.start),
        );
    }

    // Only a description that is a string: a number or boolean is already a type diagnostic.
    if let Some(entry) = skill.field("description")
        && let Some(scalar) = entry.value.as_scalar()
        && crate::yaml::to_json(&entry.value).is_string()
    {
        let description = scalar.text.to_lowercase();
        if !description.trim().is_empty()
            && !TRIGGER_CLUES.iter().any(|clue| description.contains(clue))
        {
            out.push(
                Diagnostic::warning(Code::DescriptionNoTrigger, "the description does not say when to use the skill")
                    .with_hint("add a clause such as \"Use when the user asks to …\"; agents choose skills by it")
                    .at(file, entry.value.range.clone()),
            );
        }
    }

    for (destination, range) in relative_links(body) {
        let range = body_range.start + range.start..body_range.start + range.end;
        let lookup = bundle::inside(&destination).map(|path| bundle.lookup(&path));
        match lookup {
            None | Some(Lookup::LinkOut) => out.push(
                Diagnostic::warning(Code::LinkOutsideSkill, format!("the link `{destination}` points outside the skill's folder"))
                    .with_hint("agents load files relative to the skill's folder; copy the file into the skill")
                    .at(file, range),
            ),
            Some(Lookup::Missing) => out.push(
                Diagnostic::warning(Code::LinkMissing, format!("the link `{destination}` names a file that does not exist"))
                    .at(file, range),
            ),
            Some(Lookup::File(_) | Lookup::Folder | Lookup::NestedSkill) => {}
        }
    }
    out
}

/// Links and images whose destination is a relative path, with their byte ranges in `body`.
fn relative_links(body: &str) -> Vec<(String, std::ops::Range<usize>)> {
    let mut out = Vec::new();
    for (event, range) in Parser::new_ext(body, Options::empty()).into_offset_iter() {
        let destination = match event {
            Event::Start(Tag::Link { dest_url, .. } | Tag::Image { dest_url, .. }) => dest_url,
            _ => continue,
        };
        let destination = destination.split(['#', '?']).next().unwrap_or_default();
        let has_scheme = destination.split_once(':').is_some_and(|(scheme, _)| {
            !scheme.is_empty()
                && scheme
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
        });
        if destination.is_empty() || has_scheme || destination.starts_with("//") {
            continue;
        }
        out.push((destination.replace("%20", " "), range));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_relative_links_only() {
        let body = "See [ref](references/a.md#x), [web](https://e.com), [top](#top), ![img](assets/i.png)\n\n```\n[not](a link.md)\n```\n";
        let links: Vec<String> = relative_links(body).into_iter().map(|(d, _)| d).collect();
        assert_eq!(links, ["references/a.md", "assets/i.png"]);
    }

    /// A skill whose body is `body`, with `files` beside its `SKILL.md`.
    fn skill(body: &str, files: &[&str]) -> (SkillMd, SkillBundle) {
        let text = format!("---\nname: s\ndescription: Use when testing.\n---\n{body}");
        let bundle = SkillBundle::named(
            "s",
            text.clone(),
            files.iter().map(|path| ((*path).to_owned(), b"x".to_vec())),
        );
        let skill = crate::skill_md::parse("s/SKILL.md".into(), text, crate::Mode::Spec);
        (skill, bundle)
    }

    fn link_codes(body: &str, files: &[&str], beside: impl FnOnce(&mut SkillBundle)) -> Vec<Code> {
        let (skill, mut bundle) = skill(body, files);
        beside(&mut bundle);
        check(&skill, &bundle).into_iter().map(|d| d.code).collect()
    }

    #[test]
    fn links_may_not_climb_out() {
        let body = "[a](refs/../x.md) [b](../b/SKILL.md) [c](/etc/passwd)\n";
        assert_eq!(
            link_codes(body, &["x.md"], |_| {}),
            [Code::LinkOutsideSkill, Code::LinkOutsideSkill]
        );
    }

    #[test]
    fn links_resolve_against_the_files_not_the_disk() {
        let body =
            "[a](references/a.md) [dir](references/) [me](./SKILL.md) [gone](references/b.md)\n";
        assert_eq!(
            link_codes(body, &["references/a.md"], |_| {}),
            [Code::LinkMissing]
        );
        // What a folder holds beside the skill's files: another skill, a symlink out of it.
        let body = "[sub](sub/SKILL.md) [host](host) [deep](host/x)\n";
        let beside = |bundle: &mut SkillBundle| {
            bundle.beside.nested_skills.insert("sub".into());
            bundle.beside.links_out.insert("host".into());
        };
        assert_eq!(
            link_codes(body, &[], beside),
            [Code::LinkOutsideSkill, Code::LinkOutsideSkill]
        );
        // The file set decides, not whatever the process's working folder holds.
        assert_eq!(
            link_codes("[cargo](Cargo.toml)\n", &[], |_| {}),
            [Code::LinkMissing]
        );
    }
}
