//! Authoring lints: warnings about valid skills that will work worse than they could. They run
//! in spec and lenient mode when enabled, and never turn a skill invalid.

use std::path::Path;

use skillpath_core::validate::validate_dir;
use skillpath_core::{Code, Mode};

use crate::support::{Found, Sandbox, WARNING, check_in, found, only, options, validate_in};

/// A valid `SKILL.md` for the folder `demo` whose body (starting on line 5) is `body`.
fn with_body(body: &str) -> String {
    format!("---\nname: demo\ndescription: Use when testing the lints.\n---\n{body}")
}

/// Validates `text` as the `SKILL.md` of the folder `demo` in spec mode, with lints.
fn check(text: &str) -> Vec<Found> {
    check_in("demo", text, Mode::Spec, true)
}

/// Validates the skill folder `dir` in spec mode, with lints.
fn check_dir(dir: &Path) -> Vec<Found> {
    found(&validate_dir(dir, &options(Mode::Spec, true)).diagnostics)
}

#[test]
fn body_too_long() {
    let at_limit = "line\n".repeat(500);
    assert_eq!(check(&with_body(&at_limit)), []);
    let over = "line\n".repeat(501);
    let report = validate_in("demo", &with_body(&over), Mode::Spec, true);
    assert_eq!(
        found(&report.diagnostics),
        [(Code::BodyTooLong, WARNING, 5, 1)]
    );
    assert!(report.is_valid());
    assert_eq!(
        only(&report.diagnostics, Code::BodyTooLong).message,
        "the body is 501 lines long; keep it under 500"
    );
}

#[test]
fn body_too_many_tokens() {
    // About four characters per token: 20,000 characters are 5,000 tokens, the recommendation.
    let line = format!("{}\n", "w".repeat(99));
    let at_limit = line.repeat(200);
    assert_eq!(at_limit.chars().count(), 20_000);
    assert_eq!(check(&with_body(&at_limit)), []);
    let over = format!("{at_limit}{line}");
    let report = validate_in("demo", &with_body(&over), Mode::Spec, true);
    assert_eq!(
        found(&report.diagnostics),
        [(Code::BodyTooManyTokens, WARNING, 5, 1)]
    );
    assert_eq!(
        only(&report.diagnostics, Code::BodyTooManyTokens).message,
        "the body is about 5025 tokens; keep it under 5000"
    );
    // A long and wordy body gets both warnings (the token count points at the body's start,
    // an empty range, so it sorts first).
    let both = format!("{}\n", "w".repeat(60)).repeat(600);
    assert_eq!(
        check(&with_body(&both)),
        [
            (Code::BodyTooManyTokens, WARNING, 5, 1),
            (Code::BodyTooLong, WARNING, 5, 1),
        ]
    );
}

#[test]
fn description_without_a_when_to_use_clue() {
    let report = validate_in(
        "demo",
        "---\nname: demo\ndescription: Fills PDF forms and merges PDF files.\n---\n",
        Mode::Spec,
        true,
    );
    assert_eq!(
        found(&report.diagnostics),
        [(Code::DescriptionNoTrigger, WARNING, 3, 14)]
    );
    assert!(report.is_valid());
    assert_eq!(
        report.diagnostics[0].message,
        "the description does not say when to use the skill"
    );
    for description in [
        "Fills PDF forms. Use when the user has a PDF.",
        "Fills PDF forms. USE WHEN asked.",
        "Fills PDF forms whenever a form arrives.",
        "Helps if the user mentions invoices.",
        "For tasks involving spreadsheets.",
        "Triggers on mentions of Excel.",
    ] {
        let text = format!("---\nname: demo\ndescription: {description}\n---\n");
        assert_eq!(check(&text), [], "{description}");
    }
}

#[test]
fn description_of_the_wrong_type_gets_no_trigger_lint() {
    // The type error says it all; "no when-to-use clue" on `42` would be noise.
    assert_eq!(
        check("---\nname: demo\ndescription: 42\n---\n"),
        [(Code::DescriptionNotString, crate::support::ERROR, 3, 14)]
    );
    assert_eq!(
        check_in(
            "demo",
            "---\nname: demo\ndescription: true\n---\n",
            Mode::Lenient,
            true
        ),
        [(Code::DescriptionNotString, WARNING, 3, 14)]
    );
}

#[test]
fn link_missing() {
    let sandbox = Sandbox::new();
    let dir = sandbox.skill(
        "demo",
        with_body(concat!(
            "# Demo\n",
            "Read [the guide](references/guide.md) first.\n",
            "Then [the missing one](references/missing.md#part) and ![a picture](assets/none.png).\n",
            "A [folder](references/) and a [spaced name](references/a%20b.md).\n",
        )),
    );
    sandbox.file("demo/references/guide.md", "# Guide\n");
    sandbox.file("demo/references/a b.md", "# A B\n");
    let report = validate_dir(&dir, &options(Mode::Spec, true));
    assert_eq!(
        found(&report.diagnostics),
        [
            (Code::LinkMissing, WARNING, 7, 6),
            (Code::LinkMissing, WARNING, 7, 56),
        ]
    );
    assert!(report.is_valid());
    assert_eq!(
        report.diagnostics[0].message,
        "the link `references/missing.md` names a file that does not exist"
    );
    assert_eq!(
        report.diagnostics[1].message,
        "the link `assets/none.png` names a file that does not exist"
    );
}

#[test]
fn link_outside_skill() {
    let sandbox = Sandbox::new();
    sandbox.skill(
        "other",
        "---\nname: other\ndescription: Use when testing.\n---\n",
    );
    let dir = sandbox.skill(
        "demo",
        with_body(concat!(
            "See [other](../other/SKILL.md),\n",
            "[passwd](/etc/passwd) and [round trip](references/../../demo/x.md).\n",
        )),
    );
    let report = validate_dir(&dir, &options(Mode::Spec, true));
    assert_eq!(
        found(&report.diagnostics),
        [
            (Code::LinkOutsideSkill, WARNING, 5, 5),
            (Code::LinkOutsideSkill, WARNING, 6, 1),
            (Code::LinkOutsideSkill, WARNING, 6, 27),
        ]
    );
    assert_eq!(
        report.diagnostics[0].message,
        "the link `../other/SKILL.md` points outside the skill's folder"
    );
}

#[test]
fn link_through_a_symlink_leaving_the_skill_is_outside() {
    let sandbox = Sandbox::new();
    sandbox.file("secret/notes.md", "secret\n");
    let dir = sandbox.skill("demo", with_body("See [notes](shared/notes.md).\n"));
    std::os::unix::fs::symlink(sandbox.path().join("secret"), dir.join("shared")).expect("symlink");
    // The link is warned about, and the symlink itself is left out of the skill.
    assert_eq!(
        check_dir(&dir),
        [
            (Code::FileSymlinkLeftOut, WARNING, 1, 1),
            (Code::LinkOutsideSkill, WARNING, 5, 5)
        ]
    );
    // A symlink that stays inside the skill is fine.
    std::fs::remove_file(dir.join("shared")).expect("unlink");
    sandbox.file("demo/references/notes.md", "notes\n");
    std::os::unix::fs::symlink(dir.join("references"), dir.join("refs")).expect("symlink");
    let inside = sandbox.skill("demo", with_body("See [notes](refs/notes.md).\n"));
    assert_eq!(check_dir(&inside), []);
}

#[test]
fn links_that_are_not_relative_files_are_ignored() {
    let body = concat!(
        "[web](https://example.com/x.md) [mail](mailto:a@example.com) [top](#usage)\n",
        "[query](?x=1) [protocol-relative](//cdn.example.com/x.js)\n",
        "`[code](missing.md)`\n",
        "\n",
        "```\n",
        "[fenced](missing.md)\n",
        "```\n",
    );
    assert_eq!(check(&with_body(body)), []);
}

#[test]
fn link_positions_are_right_with_crlf() {
    let text = with_body("# Demo\n\nSee [x](nope.md).\n").replace('\n', "\r\n");
    assert_eq!(check(&text), [(Code::LinkMissing, WARNING, 7, 5)]);
}

#[test]
fn lints_can_be_turned_off() {
    let text = format!(
        "---\nname: demo\ndescription: Fills forms.\n---\n[x](missing.md) [y](../out.md)\n{}",
        "line\n".repeat(600)
    );
    assert_eq!(check_in("demo", &text, Mode::Spec, false), []);
    let mut codes: Vec<Code> = check(&text).into_iter().map(|f| f.0).collect();
    codes.sort();
    assert_eq!(
        codes,
        [
            Code::DescriptionNoTrigger,
            Code::BodyTooLong,
            Code::LinkMissing,
            Code::LinkOutsideSkill
        ]
    );
}

#[test]
fn lints_run_in_lenient_mode_too() {
    assert_eq!(
        check_in("demo", &with_body("[x](missing.md)\n"), Mode::Lenient, true),
        [(Code::LinkMissing, WARNING, 5, 1)]
    );
}
