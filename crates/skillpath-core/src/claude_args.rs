//! Claude Code's arguments for plain Agent Skills: `argument-hint`, `arguments`, and the
//! `$ARGUMENTS`, `$ARGUMENTS[N]`, `$N` and `$name` placeholders of the body.
//!
//! A skill written for Claude Code is a slash command that takes free-form text: its
//! frontmatter says what to type (`argument-hint`) and may name the words of that text
//! (`arguments`: a YAML list of names, or one string of names separated by whitespace), and
//! its body says where the text goes. Served as a plain skill, it would refuse every argument
//! (it declares no Golden Path `args`) and reach the model with its placeholders unfilled. So
//! such a skill is read here as core's [`Arg`]s (one optional string, `arguments`, and one per
//! declared name), which the server's tool schema and prompt code use as they are: every MCP
//! client gets the same slash command, with one `arguments` field. [`ClaudeArgs::render`]
//! then fills the body by Claude Code's rules:
//!
//! - `$ARGUMENTS` is the whole argument text, as given;
//! - `$ARGUMENTS[N]` and `$N` are the N-th word, 0-based (`$0` is the first), the text split
//!   as a shell splits it: at whitespace, single and double quotes grouping words (a quoted
//!   empty string is an empty word; an unclosed quote runs to the end; backslashes and shell
//!   operators are ordinary characters); past the last word, the empty string. `$N` ends at a
//!   character that is not an ASCII letter, digit or `_` (`$1st` is no placeholder);
//! - `$name` is the word at `name`'s position in `arguments`, for declared names only (`$x`
//!   in a PowerShell snippet stays as written unless `x` is declared), and only where the name
//!   ends at a character that is not an ASCII letter, digit, `_` or `[` (`$issue_id` is not
//!   `$issue`); the first declared name that matches wins;
//! - when the body has none of these placeholders and the text is not empty, `\n\nARGUMENTS:
//!   <text>` is appended to it;
//! - without text, every placeholder is the empty string and nothing is appended.
//!
//! A declared name's own value (the tool's `issue_id` property) replaces the word at its
//! position; given without an `arguments` text, the named values make the text, each word
//! quoted where it must be to split back into itself. Every other `$` stays as written, and `$$`
//! is no escape (`$$0` is a `$` and the first word). Unlike Claude Code, which replaces each kind of
//! placeholder in turn over the whole text, the body is read once: a value is never read
//! again for placeholders, so an argument cannot fill in another.
//!
//! A render is bounded like a Golden Path one (the same [`RenderLimits`] and
//! [`ArgumentsError`]s): values within `max_value_bytes`, the output within `max_output_bytes`
//! and `max_substitutions`, unknown argument names refused; and at most [`MAX_NAMES`] names are
//! read from `arguments`.
//!
//! ```
//! use skillpath_core::{Mode, claude_args::ClaudeArgs, golden_path::render::RenderLimits};
//!
//! let text = "---\nname: fix\ndescription: Fix an issue.\nargument-hint: '[issue]'\n---\nFix $0.\n";
//! let skill = skillpath_core::skill_md::parse("fix/SKILL.md".into(), text.into(), Mode::Lenient);
//! let claude = ClaudeArgs::read(&skill).expect("takes arguments");
//! assert_eq!(claude.args()[0].description.as_deref(), Some("[issue]"));
//! let given = serde_json::json!({"arguments": "\"login page\" now"});
//! let rendered = claude.render(&skill, given.as_object().expect("object"), &RenderLimits::default());
//! assert_eq!(rendered.expect("within limits"), "Fix login page.\n");
//! ```

use crate::golden_path::FIELDS;
use crate::golden_path::args::{Arg, ArgType, is_valid_arg_name};
use crate::golden_path::budget::{Budget, Exceeded};
use crate::golden_path::render::{ArgumentsError, RenderLimits, resolve_args};
use crate::skill_md::SkillMd;
use crate::yaml::NodeKind;

/// The argument that carries the whole text after the slash command (`$ARGUMENTS`).
pub const ARGUMENTS: &str = "arguments";

/// The frontmatter field with the text shown to the user for the arguments.
pub const HINT_FIELD: &str = "argument-hint";

/// The frontmatter field naming the positional arguments.
pub const NAMES_FIELD: &str = "arguments";

/// The most names read from `arguments`; the rest are left out. A slash command names a few
/// words, and every `$` of the body is compared with each name, so a skill that declared
/// thousands would make each of its renders slow.
pub const MAX_NAMES: usize = 100;

/// How a plain skill takes Claude Code arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClaudeArgs {
    /// `argument-hint`, when it is text.
    pub hint: Option<String>,
    /// `arguments`: the names of the words of the text, in order (as written, so the
    /// positions are Claude Code's even for a name that cannot be a tool parameter), at most
    /// [`MAX_NAMES`].
    pub names: Vec<String>,
}

impl ClaudeArgs {
    /// The Claude Code arguments of `skill`: `Some` when it is not a Golden Path skill (none
    /// of [`FIELDS`]) and its frontmatter has `argument-hint` or `arguments`.
    pub fn read(skill: &SkillMd) -> Option<ClaudeArgs> {
        let golden = FIELDS.iter().any(|field| skill.field(field).is_some());
        let hint = skill.field(HINT_FIELD);
        let names = skill.field(NAMES_FIELD);
        if golden || (hint.is_none() && names.is_none()) {
            return None;
        }
        let names = names.map_or_else(Vec::new, |entry| match &entry.value.kind {
            NodeKind::Scalar(scalar) => scalar
                .text
                .split_whitespace()
                .take(MAX_NAMES)
                .map(str::to_owned)
                .collect(),
            NodeKind::Sequence(items) => items
                .iter()
                .filter_map(|item| item.as_scalar())
                .map(|scalar| scalar.text.trim().to_owned())
                .filter(|name| !name.is_empty())
                .take(MAX_NAMES)
                .collect(),
            NodeKind::Mapping(_) => Vec::new(),
        });
        Some(ClaudeArgs {
            hint: skill
                .text_field(HINT_FIELD)
                .filter(|hint| !hint.trim().is_empty())
                .map(str::to_owned),
            names,
        })
    }

    /// The arguments as tool parameters and prompt arguments, all optional strings: the text
    /// ([`ARGUMENTS`], described by the hint), then one per declared name that is a valid
    /// argument name (once, and not `arguments` itself), described by its position.
    pub fn args(&self) -> Vec<Arg> {
        let text = string_arg(
            ARGUMENTS,
            self.hint.clone().unwrap_or_else(|| {
                "The text after the slash command, as the user would type it (`$ARGUMENTS`)"
                    .to_owned()
            }),
        );
        let named = self
            .names
            .iter()
            .enumerate()
            .filter(|(position, name)| {
                *name != ARGUMENTS
                    && is_valid_arg_name(name)
                    && self.position(name) == Some(*position)
            })
            .map(|(position, name)| {
                string_arg(name, format!("Positional argument {position} (`${name}`)"))
            });
        std::iter::once(text).chain(named).collect()
    }

    /// Renders `skill`'s body with the call's values `given` (see the module's rules), within
    /// `limits`: the body alone, without frontmatter, leading blank lines and trailing
    /// whitespace, ending in one newline, as a Golden Path render gives a plain skill.
    pub fn render(
        &self,
        skill: &SkillMd,
        given: &serde_json::Map<String, serde_json::Value>,
        limits: &RenderLimits,
    ) -> Result<String, ArgumentsError> {
        let call = self.call(given, limits)?;
        let body = skill.body().trim_start_matches(['\n', '\r']).trim_end();
        let mut budget = Budget::new(limits);
        let mut out = String::new();
        self.substitute(body, &call, &mut out, &mut budget)
            .and_then(|()| budget.push(&mut out, "\n"))
            .map_err(|exceeded| ArgumentsError::too_large(exceeded, limits))?;
        Ok(out)
    }

    /// The position of the first declared `name`.
    fn position(&self, name: &str) -> Option<usize> {
        self.names.iter().position(|declared| declared == name)
    }

    /// The values of a call: checked as Golden Path arguments are (unknown names, types,
    /// lengths; a blank value is no value), then the text and its words.
    fn call(
        &self,
        given: &serde_json::Map<String, serde_json::Value>,
        limits: &RenderLimits,
    ) -> Result<Call, ArgumentsError> {
        let mut text = None;
        let mut named = Vec::new();
        for resolved in resolve_args(&self.args(), given, limits)? {
            match (resolved.value, self.position(&resolved.arg.name)) {
                (Some(value), _) if resolved.arg.name == ARGUMENTS => text = Some(value),
                (Some(value), Some(position)) => named.push((position, value)),
                _ => {}
            }
        }
        let mut words = text.as_deref().map_or_else(Vec::new, split);
        for (position, value) in &named {
            if words.len() <= *position {
                words.resize(position + 1, String::new());
            }
            words[*position].clone_from(value);
        }
        let text = match text {
            Some(text) => text,
            None if named.is_empty() => String::new(),
            None => words
                .iter()
                .map(|word| quoted(word))
                .collect::<Vec<_>>()
                .join(" "),
        };
        Ok(Call { text, words })
    }

    /// Appends `body` to `out` with its placeholders filled from `call`, and the text after it
    /// when the body has no placeholder (Claude Code's function, exactly), within `budget`.
    fn substitute(
        &self,
        body: &str,
        call: &Call,
        out: &mut String,
        budget: &mut Budget,
    ) -> Result<(), Exceeded> {
        let mut rest = body;
        let mut any = false;
        while let Some(dollar) = rest.find('$') {
            budget.push(out, &rest[..dollar])?;
            let after = &rest[dollar + 1..];
            match self.placeholder(after) {
                Some((length, placeholder)) => {
                    budget.substitution()?;
                    budget.push(out, call.value(placeholder))?;
                    rest = &after[length..];
                    any = true;
                }
                None => {
                    budget.push(out, "$")?;
                    rest = after;
                }
            }
        }
        budget.push(out, rest)?;
        if !any && !call.text.is_empty() {
            budget.push(out, "\n\nARGUMENTS: ")?;
            budget.push(out, &call.text)?;
        }
        Ok(())
    }

    /// The placeholder that `after` (the text after a `$`) starts with, and its length, in
    /// Claude Code's order: a declared name, `ARGUMENTS[N]`, `N`, `ARGUMENTS`.
    fn placeholder(&self, after: &str) -> Option<(usize, Placeholder)> {
        let named = self.names.iter().enumerate().find(|(_, name)| {
            after
                .strip_prefix(name.as_str())
                .is_some_and(|next| !next.starts_with(|c: char| is_identifier(c) || c == '['))
        });
        if let Some((position, name)) = named {
            return Some((name.len(), Placeholder::Word(Some(position))));
        }
        if let Some(index) = after.strip_prefix("ARGUMENTS[") {
            let digits = leading_digits(index);
            if !digits.is_empty() && index[digits.len()..].starts_with(']') {
                let length = "ARGUMENTS[".len() + digits.len() + 1;
                return Some((length, Placeholder::Word(digits.parse().ok())));
            }
        }
        let digits = leading_digits(after);
        if !digits.is_empty() {
            let ends = !after[digits.len()..].starts_with(is_identifier);
            return ends.then(|| (digits.len(), Placeholder::Word(digits.parse().ok())));
        }
        after
            .starts_with("ARGUMENTS")
            .then_some(("ARGUMENTS".len(), Placeholder::Text))
    }
}

/// An optional string argument.
fn string_arg(name: &str, description: String) -> Arg {
    Arg {
        name: name.to_owned(),
        description: Some(description),
        required: false,
        arg_type: ArgType::String,
        allowed: None,
        default: None,
    }
}

/// What a placeholder stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Placeholder {
    /// The whole text.
    Text,
    /// The word at a position (`None`: a position too large to count, so past the last word).
    Word(Option<usize>),
}

/// The values of one call.
struct Call {
    /// The whole text (`$ARGUMENTS`).
    text: String,
    /// Its words, with the named values in their positions.
    words: Vec<String>,
}

impl Call {
    /// What `placeholder` is replaced with: out of range, the empty string.
    fn value(&self, placeholder: Placeholder) -> &str {
        match placeholder {
            Placeholder::Text => &self.text,
            Placeholder::Word(position) => position
                .and_then(|position| self.words.get(position))
                .map_or("", String::as_str),
        }
    }
}

/// Whether `c` continues a name or a number (JavaScript's `\w`, which Claude Code's patterns
/// use: ASCII letters, digits and `_`).
fn is_identifier(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// The ASCII digits `text` starts with.
fn leading_digits(text: &str) -> &str {
    let end = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    &text[..end]
}

/// `text`'s words, split as a shell splits them: at whitespace, with single and double quotes
/// grouping (and joining: `a"b c"` is one word, `ab c`); `''` is an empty word, an unclosed
/// quote runs to the end.
fn split(text: &str) -> Vec<String> {
    let mut words = Vec::new();
    // `Some` once a word has begun, so that a quoted empty string is a word.
    let mut word: Option<String> = None;
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            c if c.is_whitespace() => words.extend(word.take()),
            '\'' | '"' => {
                let word = word.get_or_insert_with(String::new);
                for inner in chars.by_ref() {
                    if inner == c {
                        break;
                    }
                    word.push(inner);
                }
            }
            c => word.get_or_insert_with(String::new).push(c),
        }
    }
    words.extend(word);
    words
}

/// `word` written so that [`split`] reads it back as one word: as it is when nothing in it
/// splits or quotes; else in double quotes, each `"` in it written as `'"'`.
fn quoted(word: &str) -> String {
    let plain =
        !word.is_empty() && !word.contains(|c: char| c.is_whitespace() || c == '"' || c == '\'');
    if plain {
        return word.to_owned();
    }
    word.split('"')
        .map(|part| format!("\"{part}\""))
        .collect::<Vec<_>>()
        .join("'\"'")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Mode;
    use crate::golden_path::render::ArgProblem;
    use crate::skill_md;
    use serde_json::json;

    fn skill(frontmatter: &str, body: &str) -> SkillMd {
        skill_md::parse(
            "s/SKILL.md".into(),
            format!("---\nname: s\ndescription: A skill.\n{frontmatter}---\n{body}"),
            Mode::Lenient,
        )
    }

    fn claude(frontmatter: &str) -> ClaudeArgs {
        ClaudeArgs::read(&skill(frontmatter, "")).expect("takes Claude Code arguments")
    }

    fn given(value: serde_json::Value) -> serde_json::Map<String, serde_json::Value> {
        value.as_object().cloned().unwrap_or_default()
    }

    /// `body` with its placeholders filled from `value`, unbounded but for the defaults.
    fn substituted(claude: &ClaudeArgs, body: &str, value: serde_json::Value) -> String {
        let limits = RenderLimits::default();
        let call = claude.call(&given(value), &limits).expect("valid values");
        let mut out = String::new();
        claude
            .substitute(body, &call, &mut out, &mut Budget::new(&limits))
            .expect("within limits");
        out
    }

    fn text(claude: &ClaudeArgs, body: &str, arguments: &str) -> String {
        substituted(claude, body, json!({ "arguments": arguments }))
    }

    fn hinted() -> ClaudeArgs {
        claude("argument-hint: '[what]'\n")
    }

    #[test]
    fn only_plain_skills_with_a_hint_or_names_take_arguments() {
        assert_eq!(
            ClaudeArgs::read(&skill("argument-hint: \"[description]\"\n", "")),
            Some(ClaudeArgs {
                hint: Some("[description]".into()),
                names: vec![]
            })
        );
        assert_eq!(
            claude("arguments: [issue, branch]\n").names,
            ["issue", "branch"]
        );
        assert_eq!(
            claude("arguments: \"issue  branch\\tbase\"\n").names,
            ["issue", "branch", "base"]
        );
        assert_eq!(claude("arguments: {a: b}\n").names, Vec::<String>::new());
        let many: Vec<String> = (0..MAX_NAMES + 5).map(|i| format!("n{i}")).collect();
        assert_eq!(
            claude(&format!("arguments: {}\n", many.join(" "))).names,
            many[..MAX_NAMES]
        );
        assert_eq!(
            claude(&format!("arguments: [{}]\n", many.join(", "))).names,
            many[..MAX_NAMES]
        );
        assert!(ClaudeArgs::read(&skill("", "$ARGUMENTS")).is_none());
        assert!(
            ClaudeArgs::read(&skill("argument-hint: x\ntool_name: t\n", "")).is_none(),
            "a Golden Path skill has its own arguments"
        );
        assert!(ClaudeArgs::read(&skill("argument-hint: x\nargs: []\n", "")).is_none());
    }

    #[test]
    fn the_arguments_are_the_text_and_each_usable_name() {
        let args = claude("argument-hint: '[issue] [branch]'\narguments: [issue_id, Branch, arguments, issue_id, base]\n").args();
        let described: Vec<(&str, Option<&str>, bool)> = args
            .iter()
            .map(|arg| (arg.name.as_str(), arg.description.as_deref(), arg.required))
            .collect();
        assert_eq!(
            described,
            [
                ("arguments", Some("[issue] [branch]"), false),
                (
                    "issue_id",
                    Some("Positional argument 0 (`$issue_id`)"),
                    false
                ),
                ("base", Some("Positional argument 4 (`$base`)"), false),
            ]
        );
        assert!(args.iter().all(|arg| arg.arg_type == ArgType::String));
        let unhinted = claude("arguments: x\n").args();
        assert_eq!(
            unhinted[0].description.as_deref(),
            Some("The text after the slash command, as the user would type it (`$ARGUMENTS`)")
        );
    }

    #[test]
    fn arguments_is_the_whole_text_as_given() {
        assert_eq!(
            text(
                &hinted(),
                "Do: $ARGUMENTS. Again: $ARGUMENTS",
                "  fix 'the' bug "
            ),
            "Do:   fix 'the' bug . Again:   fix 'the' bug "
        );
        // `$ARGUMENTS` is a prefix match, as Claude Code's `replaceAll`.
        assert_eq!(text(&hinted(), "$ARGUMENTSx", "a"), "ax");
    }

    #[test]
    fn positions_are_zero_based_words() {
        let body = "$0|$1|$2|$ARGUMENTS[0]|$ARGUMENTS[1]|$ARGUMENTS[2]";
        assert_eq!(text(&hinted(), body, "a b"), "a|b||a|b|");
        assert_eq!(
            text(
                &hinted(),
                "$1 $10 $ARGUMENTS[10]",
                "0 1 2 3 4 5 6 7 8 9 ten"
            ),
            "1 ten ten"
        );
        assert_eq!(
            text(
                &hinted(),
                "$99999999999999999999999|$ARGUMENTS[99999999999999999999999]",
                "a"
            ),
            "|",
            "a position too large to count is out of range"
        );
    }

    #[test]
    fn arguments_index_and_dollar_index_agree_but_only_as_written() {
        assert_eq!(
            text(
                &hinted(),
                "$ARGUMENTS[1] $1 $ARGUMENTS1 $ARGUMENTS[1]x $ARGUMENTS[] $ARGUMENTS[x]",
                "a b"
            ),
            "b b a b1 bx a b[] a b[x]"
        );
        // `$N` ends at a non-identifier character; `$1st` is no placeholder.
        assert_eq!(text(&hinted(), "$1st $1_ $1. $1[", "a b"), "$1st $1_ b. b[");
    }

    #[test]
    fn words_split_like_a_shell() {
        assert_eq!(split("  a\tb\n c  "), ["a", "b", "c"]);
        assert_eq!(
            split(r#"'single words' "double words" mixed"quoted part"end"#),
            ["single words", "double words", "mixedquoted partend"]
        );
        assert_eq!(split(r#""it's" 'say "hi"'"#), ["it's", "say \"hi\""]);
        assert_eq!(split(r#"a "" '' b"#), ["a", "", "", "b"]);
        assert_eq!(
            split("a 'unclosed quote  runs"),
            ["a", "unclosed quote  runs"]
        );
        assert_eq!(split(r"C:\dir\x y\ z"), [r"C:\dir\x", r"y\", "z"]);
        assert_eq!(split(""), Vec::<String>::new());
        assert_eq!(
            text(&hinted(), "[$0] [$1] [$2]", r#"fix "the login" bug"#),
            "[fix] [the login] [bug]"
        );
    }

    #[test]
    fn only_declared_names_are_substituted() {
        let claude = claude("arguments: issue branch\n");
        assert_eq!(
            text(
                &claude,
                "$issue on $branch; $x = $issue_id; $issue[0]; $issue-1",
                "42 main"
            ),
            "42 on main; $x = $issue_id; $issue[0]; 42-1"
        );
        // PowerShell in a skill that declares no names stays as written, and has no
        // placeholder, so the text is appended.
        assert_eq!(
            text(&hinted(), "$x | ForEach-Object { $_.Name } $null", "a"),
            "$x | ForEach-Object { $_.Name } $null\n\nARGUMENTS: a"
        );
    }

    #[test]
    fn the_first_declared_name_that_matches_wins() {
        let claude = claude("arguments: [a, a-b, b]\n");
        assert_eq!(text(&claude, "$a-b $b", "one two three"), "one-b three");
    }

    #[test]
    fn named_values_override_their_position_or_make_the_text() {
        let claude = claude("arguments: [issue, branch]\n");
        let body = "$ARGUMENTS|$0|$issue|$1|$branch";
        assert_eq!(
            substituted(
                &claude,
                body,
                json!({"arguments": "1 main", "branch": "dev"})
            ),
            "1 main|1|1|dev|dev"
        );
        assert_eq!(
            substituted(&claude, body, json!({"branch": "my branch"})),
            "\"\" \"my branch\"|||my branch|my branch"
        );
        assert_eq!(
            substituted(&claude, body, json!({"issue": "7", "branch": ""})),
            "7|7|7||",
            "a blank value is no value"
        );
    }

    #[test]
    fn joined_words_split_back_into_themselves() {
        let words = [
            "plain",
            "",
            "two words",
            "it's",
            "say \"hi\"",
            "both ' and \"",
            "\"",
            "tab\there",
            "ünïcødé wörds",
        ];
        let joined = words
            .iter()
            .map(|word| quoted(word))
            .collect::<Vec<_>>()
            .join(" ");
        assert_eq!(split(&joined), words);
    }

    #[test]
    fn dollars_that_are_no_placeholder_stay() {
        assert_eq!(text(&hinted(), "$$ $ a$ $$0 $", "x"), "$$ $ a$ $x $");
        assert_eq!(
            text(&hinted(), "price: 5$", "x"),
            "price: 5$\n\nARGUMENTS: x"
        );
        assert_eq!(text(&hinted(), "$ARGUMENTS$", "x"), "x$");
    }

    #[test]
    fn non_ascii_text_is_kept_whole() {
        assert_eq!(
            text(
                &hinted(),
                "→ $0 é$1é $ARGUMENTS[1]ü «$ARGUMENTS»",
                "ünï «cødé»"
            ),
            "→ ünï é«cødé»é «cødé»ü «ünï «cødé»»"
        );
        let claude = claude("arguments: [größe]\n");
        assert_eq!(text(&claude, "$größe!", "groß"), "groß!");
    }

    #[test]
    fn text_is_appended_only_to_a_body_without_placeholders() {
        assert_eq!(
            text(&hinted(), "# Title\nDo it.", "now please"),
            "# Title\nDo it.\n\nARGUMENTS: now please"
        );
        assert_eq!(text(&hinted(), "Only $5 here", "a"), "Only  here");
        assert_eq!(text(&hinted(), "# Title", ""), "# Title");
        assert_eq!(substituted(&hinted(), "# Title", json!({})), "# Title");
        assert_eq!(
            substituted(&hinted(), "$ARGUMENTS|$0|$ARGUMENTS[3]", json!({})),
            "||",
            "without text every placeholder is empty"
        );
    }

    #[test]
    fn render_gives_the_trimmed_body_with_one_newline() {
        let skill = skill("argument-hint: x\n", "\n\n# Do\n\nDo $ARGUMENTS.\n\n\n");
        let claude = ClaudeArgs::read(&skill).expect("takes arguments");
        let limits = RenderLimits::default();
        assert_eq!(
            claude.render(&skill, &given(json!({"arguments": "it"})), &limits),
            Ok("# Do\n\nDo it.\n".to_owned())
        );
        let plain = skill_md::parse(
            "s/SKILL.md".into(),
            "---\nname: s\ndescription: d\nargument-hint: x\n---\n# Do\n".into(),
            Mode::Lenient,
        );
        assert_eq!(
            claude.render(&plain, &given(json!({"arguments": "it"})), &limits),
            Ok("# Do\n\nARGUMENTS: it\n".to_owned())
        );
    }

    #[test]
    fn unknown_names_wrong_types_and_long_values_are_refused() {
        let claude = claude("arguments: [issue]\n");
        let skill = skill("", "$ARGUMENTS");
        let limits = RenderLimits {
            max_value_bytes: 4,
            ..RenderLimits::default()
        };
        let error = claude
            .render(
                &skill,
                &given(json!({"colour": "blue", "arguments": "12345", "issue": ["x"]})),
                &limits,
            )
            .expect_err("refused");
        assert_eq!(
            error.problems,
            [
                ArgProblem::Unknown {
                    name: "colour".into(),
                    known: vec!["arguments".into(), "issue".into()]
                },
                ArgProblem::TooLong {
                    name: "arguments".into(),
                    length: 5,
                    limit: 4
                },
                ArgProblem::WrongType {
                    name: "issue".into(),
                    expected: "string",
                    given: "[\"x\"]".into()
                },
            ]
        );
        // Numbers and booleans are text, as clients send them.
        assert_eq!(
            claude.render(
                &skill,
                &given(json!({"arguments": 42})),
                &RenderLimits::default()
            ),
            Ok("42\n".to_owned())
        );
    }

    #[test]
    fn the_output_stays_within_its_limits() {
        let skill = skill("argument-hint: x\n", &"$ARGUMENTS ".repeat(1000));
        let claude = ClaudeArgs::read(&skill).expect("takes arguments");
        let value = json!({"arguments": "x".repeat(1000)});
        let small = RenderLimits {
            max_output_bytes: 100_000,
            ..RenderLimits::default()
        };
        let error = claude
            .render(&skill, &given(value.clone()), &small)
            .expect_err("too large");
        assert_eq!(
            error.problems,
            [ArgProblem::TooLarge {
                exceeded: Exceeded::Output,
                limits: small
            }]
        );
        let few = RenderLimits {
            max_substitutions: 999,
            ..RenderLimits::default()
        };
        assert!(matches!(
            claude.render(&skill, &given(value.clone()), &few),
            Err(ArgumentsError { problems }) if problems == [ArgProblem::TooLarge { exceeded: Exceeded::Substitutions, limits: few }]
        ));
        // The appended text counts too.
        let plain = skill_md::parse(
            "s/SKILL.md".into(),
            "---\nname: s\ndescription: d\nargument-hint: x\n---\nbody\n".into(),
            Mode::Lenient,
        );
        let tight = RenderLimits {
            max_output_bytes: 1010,
            ..RenderLimits::default()
        };
        assert!(claude.render(&plain, &given(value), &tight).is_err());
        let rendered = claude
            .render(
                &skill,
                &given(json!({"arguments": "x"})),
                &RenderLimits::default(),
            )
            .expect("within limits");
        assert_eq!(rendered.len(), "x ".repeat(1000).trim_end().len() + 1);
    }
}
