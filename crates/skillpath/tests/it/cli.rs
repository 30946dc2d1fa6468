//! The `skillpath` CLI in `spec` and `lenient` mode: what each command prints, on which stream,
//! and with which exit code. (`skills-ref` mode is the differential test's business.)

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;
use skillpath_test_support::{Run, RunExt, json};

use crate::support::{corpus_dir, skillpath, skillpath_bin};

/// The summary line with its timing (`in 0.01s`) replaced by `in T`.
fn without_time(text: &str) -> String {
    text.lines()
        .map(|line| match (line.find(" checked in "), line.find("s (")) {
            (Some(start), Some(end)) if start < end => {
                format!("{} checked in T{}\n", &line[..start], &line[end + 1..])
            }
            _ => format!("{line}\n"),
        })
        .collect()
}

/// A temporary folder with skill folders in it.
struct Sandbox {
    temp: tempfile::TempDir,
}

impl Sandbox {
    fn new() -> Self {
        Sandbox {
            temp: tempfile::tempdir().expect("create a temporary folder"),
        }
    }

    /// The folder, with symlinks resolved (catalog locations are absolute and resolved).
    fn path(&self) -> PathBuf {
        self.temp
            .path()
            .canonicalize()
            .expect("resolve the sandbox")
    }

    /// Writes `content` to `relative`, creating parent folders.
    fn file(&self, relative: &str, content: impl AsRef<[u8]>) -> &Self {
        let path = self.path().join(relative);
        fs::create_dir_all(path.parent().expect("a parent")).expect("create folders");
        fs::write(path, content).expect("write a test file");
        self
    }

    /// A skill folder `relative` whose `SKILL.md` is `content`.
    fn skill(&self, relative: &str, content: impl AsRef<[u8]>) -> &Self {
        self.file(&format!("{relative}/SKILL.md"), content)
    }

    /// A valid skill folder `relative` named after its last component.
    fn valid(&self, relative: &str) -> &Self {
        let name = relative.rsplit('/').next().expect("a name");
        self.skill(
            relative,
            format!("---\nname: {name}\ndescription: Use when testing {name}.\n---\n# {name}\n"),
        )
    }

    fn run(&self, args: &[&str]) -> Run {
        skillpath(args).current_dir(self.path()).run()
    }
}

// ---------------------------------------------------------------- validate: text output

#[test]
fn validate_text_shows_each_diagnostic_with_a_snippet_and_a_summary() {
    let sandbox = Sandbox::new();
    sandbox.skill(
        "pdf-tools",
        "---\nname: pdf\ndescription: Fill PDF forms.\n---\n# PDF\n",
    );
    let run = sandbox.run(&["validate", "pdf-tools"]);
    assert_eq!(run.code, 1, "{run:?}");
    assert_eq!(run.stderr, "");
    assert_eq!(
        without_time(&run.stdout),
        "error[name-directory-mismatch]: `name` `pdf` does not match the skill's folder `pdf-tools`
 --> pdf-tools/SKILL.md:2:7
  |
2 | name: pdf
  |       ^^^
  = hint: rename the folder or change `name`; agents identify a skill by its folder

warning[description-no-trigger]: the description does not say when to use the skill
 --> pdf-tools/SKILL.md:3:14
  |
3 | description: Fill PDF forms.
  |              ^^^^^^^^^^^^^^^
  = hint: add a clause such as \"Use when the user asks to …\"; agents choose skills by it

1 skill checked in T (spec mode): 0 valid, 1 invalid; 1 error, 1 warning
"
    );
}

#[test]
fn validate_text_pads_the_gutter_for_long_line_numbers() {
    let sandbox = Sandbox::new();
    sandbox.skill(
        "demo",
        format!(
            "---\nname: demo\ndescription: Use when testing.\n---\n{}See [it](gone.md).\n",
            "text\n".repeat(8)
        ),
    );
    let run = sandbox.run(&["validate", "demo"]);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(
        without_time(&run.stdout),
        "warning[link-missing]: the link `gone.md` names a file that does not exist
  --> demo/SKILL.md:13:5
   |
13 | See [it](gone.md).
   |     ^^^^^^^^^^^^^

1 skill checked in T (spec mode): 1 valid, 0 invalid; 0 errors, 1 warning
"
    );
}

#[test]
fn validate_summary_counts_skills_errors_and_warnings() {
    let sandbox = Sandbox::new();
    sandbox
        .valid("alpha")
        .valid("beta")
        .skill("gamma", "---\nname: Gamma\ndescription: 5\nfoo: bar\n---\n");
    let run = sandbox.run(&["validate", "alpha", "beta", "gamma"]);
    assert_eq!(run.code, 1);
    let last = without_time(&run.stdout);
    let summary = last.lines().last().expect("a summary line");
    assert_eq!(
        summary,
        "3 skills checked in T (spec mode): 2 valid, 1 invalid; 3 errors, 1 warning"
    );
    for code in [
        "error[name-not-lowercase]",
        "error[name-directory-mismatch]",
        "error[description-not-string]",
        "warning[field-unknown]",
    ] {
        assert!(
            run.stdout.contains(code),
            "{code} missing from {}",
            run.stdout
        );
    }
    let valid = sandbox.run(&["validate", "alpha", "beta"]);
    assert_eq!(valid.code, 0);
    assert_eq!(
        without_time(&valid.stdout),
        "2 skills checked in T (spec mode): 2 valid, 0 invalid; 0 errors, 0 warnings\n"
    );
}

#[test]
fn validate_accepts_skill_md_paths_and_lowercase_skill_md() {
    let sandbox = Sandbox::new();
    sandbox.valid("alpha").file(
        "beta/skill.md",
        "---\nname: beta\ndescription: Use when testing beta.\n---\n",
    );
    let run = sandbox.run(&[
        "validate",
        "alpha/SKILL.md",
        "beta/skill.md",
        "--format",
        "json",
    ]);
    assert_eq!(run.code, 0, "{run:?}");
    let report = json(&run.stdout);
    assert_eq!(report["skills"][0]["path"], "alpha");
    assert_eq!(report["skills"][1]["path"], "beta");
    assert_eq!(
        report["skills"][1]["diagnostics"][0]["code"],
        "skill-md-lowercase"
    );
    assert_eq!(report["skills"][1]["diagnostics"][0]["severity"], "warning");
    assert_eq!(
        report["skills"][1]["diagnostics"][0]["file"],
        "beta/skill.md"
    );
}

#[test]
fn validate_from_inside_the_skill_folder() {
    let sandbox = Sandbox::new();
    sandbox.valid("alpha");
    let inside = sandbox.path().join("alpha");
    for args in [
        &["validate", "."][..],
        &["validate", "SKILL.md"],
        &["validate", "./"],
    ] {
        let run = skillpath(args).current_dir(&inside).run();
        assert_eq!(run.code, 0, "{args:?}: {run:?}");
        assert_eq!(
            without_time(&run.stdout),
            "1 skill checked in T (spec mode): 1 valid, 0 invalid; 0 errors, 0 warnings\n",
            "{args:?}"
        );
    }
    let absolute = inside.display().to_string();
    assert_eq!(sandbox.run(&["validate", &absolute]).code, 0);
}

#[test]
fn validate_reports_unreadable_skills_cleanly() {
    let sandbox = Sandbox::new();
    sandbox
        .skill("binary", b"---\nname: binary\xff\n---\n")
        .skill("no-frontmatter", "# Just markdown\n")
        .skill("unclosed", "---\nname: unclosed\n")
        .skill("listy", "---\n- a\n---\n")
        .file("folder/SKILL.md/keep", "")
        .file("empty/.keep", "")
        .file("plain.txt", "hello\n");
    let run = sandbox.run(&[
        "validate",
        "binary",
        "no-frontmatter",
        "unclosed",
        "listy",
        "folder",
        "empty",
        "plain.txt",
        "--format",
        "json",
    ]);
    assert_eq!(run.code, 1, "{run:?}");
    assert_eq!(run.stderr, "");
    let report = json(&run.stdout);
    let codes: Vec<&str> = report["skills"]
        .as_array()
        .expect("skills")
        .iter()
        .map(|skill| skill["diagnostics"][0]["code"].as_str().expect("a code"))
        .collect();
    assert_eq!(
        codes,
        [
            "invalid-utf8",
            "frontmatter-missing",
            "frontmatter-unclosed",
            "frontmatter-not-mapping",
            "skill-md-not-a-file",
            "skill-md-missing",
            "not-a-directory",
        ]
    );
    assert_eq!(report["summary"]["invalid"], 7);
}

#[test]
fn validate_max_file_size() {
    let sandbox = Sandbox::new();
    sandbox.valid("demo");
    let run = sandbox.run(&["validate", "demo", "--max-file-size", "20"]);
    assert_eq!(run.code, 1, "{run:?}");
    assert!(
        run.stdout
            .starts_with("error[file-too-large]: `demo/SKILL.md` is "),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("over the limit of 20 bytes"));
    assert_eq!(
        sandbox
            .run(&["validate", "demo", "--max-file-size", "4096"])
            .code,
        0
    );
    assert_eq!(
        sandbox
            .run(&["validate", "demo", "--max-file-size", "many"])
            .code,
        2
    );
}

#[test]
fn validate_handles_crlf_and_a_byte_order_mark() {
    let sandbox = Sandbox::new();
    sandbox
        .skill(
            "crlf",
            "---\r\nname: crlf\r\ndescription: Use when testing line endings.\r\nlicense: 2\r\n---\r\nBody\r\n",
        )
        .skill(
            "bom",
            "\u{feff}---\nname: bom\ndescription: Use when testing a byte order mark.\n---\nBody\n",
        );
    let run = sandbox.run(&["validate", "crlf", "bom", "--format", "json"]);
    assert_eq!(run.code, 1, "{run:?}");
    let report = json(&run.stdout);
    let crlf = &report["skills"][0]["diagnostics"][0];
    assert_eq!(
        (
            &crlf["code"],
            &crlf["line"],
            &crlf["column"],
            &crlf["length"]
        ),
        (
            &Value::from("license-not-string"),
            &Value::from(4),
            &Value::from(10),
            &Value::from(1)
        )
    );
    let bom = &report["skills"][1];
    assert_eq!(bom["valid"], true);
    assert_eq!(bom["diagnostics"][0]["code"], "byte-order-mark");
    assert_eq!(bom["diagnostics"][0]["severity"], "warning");
    let text = sandbox.run(&["validate", "crlf"]);
    assert!(
        text.stdout.contains("4 | license: 2\n  |          ^\n"),
        "the snippet has no carriage return: {:?}",
        text.stdout
    );
}

// ---------------------------------------------------------------- validate: JSON, -q, --no-lints

#[test]
fn validate_json_shape() {
    let sandbox = Sandbox::new();
    sandbox.valid("alpha").skill(
        "pdf-tools",
        "---\nname: pdf\ndescription: Fill PDF forms.\n---\n",
    );
    let run = sandbox.run(&["validate", "--format", "json", "alpha", "pdf-tools"]);
    assert_eq!(run.code, 1);
    assert_eq!(run.stderr, "");
    let report = json(&run.stdout);
    assert_eq!(report["mode"], "spec");
    assert_eq!(
        report["summary"],
        serde_json::json!({"skills": 2, "valid": 1, "invalid": 1, "errors": 1, "warnings": 1})
    );
    assert_eq!(
        report["skills"][0],
        serde_json::json!({
            "path": "alpha", "name": "alpha", "valid": true, "errors": 0, "warnings": 0,
            "diagnostics": [],
        })
    );
    let pdf = &report["skills"][1];
    assert_eq!(pdf["path"], "pdf-tools");
    assert_eq!(pdf["name"], "pdf");
    assert_eq!(pdf["valid"], false);
    assert_eq!(
        pdf["diagnostics"][0],
        serde_json::json!({
            "code": "name-directory-mismatch",
            "severity": "error",
            "message": "`name` `pdf` does not match the skill's folder `pdf-tools`",
            "file": "pdf-tools/SKILL.md",
            "line": 2,
            "column": 7,
            "offset": 10,
            "length": 3,
            "hint": "rename the folder or change `name`; agents identify a skill by its folder",
        })
    );
    assert_eq!(pdf["diagnostics"][1]["code"], "description-no-trigger");
    assert_eq!(pdf["diagnostics"][1]["severity"], "warning");
    assert_eq!(pdf["diagnostics"][1]["line"], 3);
    assert_eq!(pdf["diagnostics"][1]["column"], 14);
}

#[test]
fn validate_quiet_shows_only_errors() {
    let sandbox = Sandbox::new();
    sandbox.skill(
        "pdf-tools",
        "---\nname: pdf\ndescription: Fill PDF forms.\n---\n",
    );
    let text = sandbox.run(&["validate", "-q", "pdf-tools"]);
    assert_eq!(text.code, 1);
    assert!(text.stdout.contains("error[name-directory-mismatch]"));
    assert!(!text.stdout.contains("warning["), "{}", text.stdout);
    assert!(
        without_time(&text.stdout).ends_with(
            "1 skill checked in T (spec mode): 0 valid, 1 invalid; 1 error, 1 warning\n"
        )
    );
    let long = sandbox.run(&["validate", "--quiet", "--format", "json", "pdf-tools"]);
    let report = json(&long.stdout);
    let diagnostics = report["skills"][0]["diagnostics"]
        .as_array()
        .expect("array");
    assert_eq!(diagnostics.len(), 1);
    assert_eq!(diagnostics[0]["severity"], "error");
    // The counts still include the warning.
    assert_eq!(report["summary"]["warnings"], 1);
    // Quiet on a clean skill prints only the summary.
    sandbox.valid("alpha");
    let clean = sandbox.run(&["validate", "-q", "alpha"]);
    assert_eq!(clean.code, 0);
    assert_eq!(clean.stdout.lines().count(), 1, "{}", clean.stdout);
}

#[test]
fn validate_no_lints() {
    let sandbox = Sandbox::new();
    sandbox.skill(
        "demo",
        format!(
            "---\nname: demo\ndescription: Demo.\n---\n[a](gone.md) [b](../out.md)\n{}",
            "line\n".repeat(600)
        ),
    );
    let with = sandbox.run(&["validate", "demo", "--format", "json"]);
    let codes: BTreeSet<String> = json(&with.stdout)["skills"][0]["diagnostics"]
        .as_array()
        .expect("array")
        .iter()
        .map(|d| d["code"].as_str().expect("code").to_owned())
        .collect();
    assert_eq!(
        codes,
        BTreeSet::from(
            [
                "body-too-long",
                "description-no-trigger",
                "link-missing",
                "link-outside-skill"
            ]
            .map(str::to_owned)
        )
    );
    let without = sandbox.run(&["validate", "demo", "--no-lints"]);
    assert_eq!(without.code, 0);
    assert_eq!(
        without_time(&without.stdout),
        "1 skill checked in T (spec mode): 1 valid, 0 invalid; 0 errors, 0 warnings\n"
    );
}

// ---------------------------------------------------------------- validate: modes

#[test]
fn validate_spec_mode_rules_on_the_command_line() {
    let sandbox = Sandbox::new();
    sandbox.skill(
        "demo",
        "---\nname: demo\ndescription: Use when testing.\ncompatibility: ''\nmetadata:\n  version: 1.0\nallowed-tools: [Read]\nuser-invocable: false\n---\n",
    );
    let run = sandbox.run(&["validate", "demo", "--format", "json"]);
    assert_eq!(run.code, 1);
    let report = json(&run.stdout);
    let found: Vec<(String, String, i64, i64)> = report["skills"][0]["diagnostics"]
        .as_array()
        .expect("array")
        .iter()
        .map(|d| {
            (
                d["code"].as_str().expect("code").to_owned(),
                d["severity"].as_str().expect("severity").to_owned(),
                d["line"].as_i64().expect("line"),
                d["column"].as_i64().expect("column"),
            )
        })
        .collect();
    let expected = [
        ("compatibility-empty", "error", 4, 16),
        ("metadata-value-not-string", "error", 6, 12),
        ("allowed-tools-not-string", "error", 7, 16),
        ("field-extension", "warning", 8, 1),
    ]
    .map(|(c, s, l, col)| (c.to_owned(), s.to_owned(), l, col));
    assert_eq!(found, expected);
    assert!(
        report["skills"][0]["diagnostics"][3]["message"]
            .as_str()
            .is_some_and(|m| m.contains("Claude Code and GitHub Copilot")),
    );
}

#[test]
fn validate_lenient_mode_warns_and_loads() {
    let sandbox = Sandbox::new();
    sandbox
        .skill(
            "pdf-tools",
            "---\nname: pdf\ndescription: Use this when: the user has a PDF\n---\n",
        )
        .skill("nodesc", "---\nname: nodesc\n---\n");
    let run = sandbox.run(&["validate", "--mode", "lenient", "pdf-tools"]);
    assert_eq!(run.code, 0, "{run:?}");
    let stdout = without_time(&run.stdout);
    assert!(
        stdout.contains(
            "warning[yaml-repaired]: quoted a value that contains `: ` so the frontmatter parses\n --> pdf-tools/SKILL.md:3:14\n"
        ),
        "{stdout}"
    );
    assert!(
        stdout.contains("warning[name-directory-mismatch]: `name` `pdf` does not match the skill's folder `pdf-tools`\n --> pdf-tools/SKILL.md:2:7\n"),
        "{stdout}"
    );
    assert!(stdout.ends_with(
        "1 skill checked in T (lenient mode): 1 valid, 0 invalid; 0 errors, 2 warnings\n"
    ));
    // The same skill fails in spec mode, with the YAML error.
    let spec = sandbox.run(&["validate", "pdf-tools"]);
    assert_eq!(spec.code, 1);
    assert!(
        spec.stdout
            .starts_with("error[yaml-syntax]: invalid YAML in frontmatter: ")
    );
    // A missing description is still an error.
    let nodesc = sandbox.run(&["validate", "--mode=lenient", "nodesc"]);
    assert_eq!(nodesc.code, 1);
    assert!(nodesc.stdout.starts_with(
        "error[description-missing]: the required field `description` is missing\n --> nodesc/SKILL.md:1:1\n"
    ));
}

// ---------------------------------------------------------------- validate: -r

#[test]
fn validate_recursive_skips_vendored_folders_and_escaping_symlinks() {
    let sandbox = Sandbox::new();
    sandbox
        .valid("tree/alpha")
        .valid("tree/alpha/nested")
        .valid("tree/plugins/p/skills/beta")
        .valid("tree/.git/hidden")
        .valid("tree/node_modules/vendored")
        .valid("outside/escaped")
        .valid("elsewhere/gamma");
    std::os::unix::fs::symlink(
        sandbox.path().join("outside"),
        sandbox.path().join("tree/escape"),
    )
    .expect("symlink");
    let run = sandbox.run(&["validate", "-r", "tree", "--format", "json"]);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(
        run.stderr,
        "warning: skipped `tree/escape`: symlink leaves the searched folder\n"
    );
    let report = json(&run.stdout);
    let paths: Vec<&str> = report["skills"]
        .as_array()
        .expect("array")
        .iter()
        .map(|skill| skill["path"].as_str().expect("path"))
        .collect();
    assert_eq!(
        paths,
        [
            "tree/alpha",
            "tree/alpha/nested",
            "tree/plugins/p/skills/beta"
        ]
    );
    let text = sandbox.run(&["validate", "--recursive", "tree"]);
    assert_eq!(
        without_time(&text.stdout),
        "3 skills checked in T (spec mode): 3 valid, 0 invalid; 0 errors, 0 warnings\n"
    );
    // A symlink into the tree from outside the searched folder counts as leaving it.
    std::os::unix::fs::symlink(
        sandbox.path().join("elsewhere"),
        sandbox.path().join("tree/plugins/link"),
    )
    .expect("symlink");
    let nested = sandbox.run(&["validate", "-r", "tree/plugins", "--format", "json"]);
    assert_eq!(
        nested.stderr,
        "warning: skipped `tree/plugins/link`: symlink leaves the searched folder\n"
    );
    assert_eq!(json(&nested.stdout)["summary"]["skills"], 1);
}

#[test]
fn validate_a_tree_without_recursive_suggests_it() {
    let sandbox = Sandbox::new();
    sandbox.valid("tree/alpha");
    let run = sandbox.run(&["validate", "tree"]);
    assert_eq!(run.code, 1);
    assert!(
        run.stdout
            .starts_with("error[skill-md-missing]: no `SKILL.md` in `tree`\n"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains("= hint: name a skill folder, or search a folder for skills with `-r`\n")
    );
}

// ---------------------------------------------------------------- validate: tool-name collisions

/// A `SKILL.md` named `name` with `extra` frontmatter lines (line 4 on).
fn skill_md(name: &str, extra: &str) -> String {
    format!("---\nname: {name}\ndescription: Use when testing {name}.\n{extra}---\n# {name}\n")
}

#[test]
fn validate_warns_the_skill_that_loses_a_tool_name_with_its_other_diagnostics() {
    let sandbox = Sandbox::new();
    sandbox
        // Sorts first, but `cache` is named like the tool: `cache` keeps it.
        .skill(
            "tree/add-caching",
            "---\nname: add-caching\ndescription: Keeps responses.\ntool_name: cache\n---\n# Caching\n",
        )
        .skill("tree/cache", skill_md("cache", ""))
        // Nobody is named `deploy`: the first by name, `alpha`, keeps it.
        .skill("tree/beta", skill_md("beta", "tool_name: deploy\n"))
        .skill("tree/alpha", skill_md("alpha", "tool_name: deploy\n"))
        // A built-in tool keeps its name.
        .skill("tree/helper", skill_md("helper", "tool_name: load_skill\n"));
    let run = sandbox.run(&["validate", "-r", "tree"]);
    assert_eq!(run.code, 0, "collisions are warnings: {run:?}");
    assert_eq!(run.stderr, "");
    assert_eq!(
        without_time(&run.stdout),
        "warning[description-no-trigger]: the description does not say when to use the skill
 --> tree/add-caching/SKILL.md:3:14
  |
3 | description: Keeps responses.
  |              ^^^^^^^^^^^^^^^^
  = hint: add a clause such as \"Use when the user asks to …\"; agents choose skills by it

warning[tool-name-collision]: `add-caching` and `cache` (at `tree/cache`) both want the tool name `cache`; `cache` keeps it because its name is the tool name, so `add-caching` has no tool of its own
 --> tree/add-caching/SKILL.md:4:12
  |
4 | tool_name: cache
  |            ^^^^^
  = hint: give `add-caching` a `tool_name` of its own; until then it is reachable only through `load_skill`

warning[tool-name-collision]: `beta` and `alpha` (at `tree/alpha`) both want the tool name `deploy`; `alpha` keeps it because no skill is named `deploy` and `alpha` comes first by name, so `beta` has no tool of its own
 --> tree/beta/SKILL.md:4:12
  |
4 | tool_name: deploy
  |            ^^^^^^
  = hint: give `beta` a `tool_name` of its own; until then it is reachable only through `load_skill`

warning[tool-name-collision]: the tool name `load_skill` is a built-in tool of the MCP server, and a built-in tool keeps its name, so `helper` has no tool of its own
 --> tree/helper/SKILL.md:4:12
  |
4 | tool_name: load_skill
  |            ^^^^^^^^^^
  = hint: give `helper` a `tool_name` of its own; until then it is reachable only through `load_skill`

5 skills checked in T (spec mode): 5 valid, 0 invalid; 0 errors, 4 warnings
"
    );
    // `--quiet` shows only errors; the reference's mode knows nothing of tool names.
    let quiet = sandbox.run(&["validate", "-r", "tree", "--quiet"]);
    assert!(!quiet.stdout.contains("tool-name-collision"), "{quiet:?}");
    let reference = sandbox.run(&["validate", "-r", "tree", "--mode", "skills-ref"]);
    assert!(
        !format!("{}{}", reference.stdout, reference.stderr).contains("tool name"),
        "{reference:?}"
    );
}

#[test]
fn validate_json_lists_tool_name_collisions_under_the_losing_skill() {
    let sandbox = Sandbox::new();
    sandbox
        .skill("tree/one", skill_md("one", "tool_name: shared\n"))
        .skill("tree/two", skill_md("two", "tool_name: shared\n"))
        // Not a valid `name` (an error of its own), but readable: it wants the built-in tool.
        .skill("tree/create_skill", skill_md("create_skill", ""));
    let run = sandbox.run(&["validate", "-r", "tree", "--format", "json"]);
    assert_eq!(run.code, 1, "`create_skill` is not a valid name: {run:?}");
    let report = json(&run.stdout);
    assert_eq!(report["summary"]["warnings"], 2);
    let skills = report["skills"].as_array().expect("skills");
    let by_name = |name: &str| {
        skills
            .iter()
            .find(|skill| skill["name"] == name)
            .unwrap_or_else(|| panic!("`{name}` in {skills:?}"))
    };
    let collisions = |name: &str| -> Vec<Value> {
        by_name(name)["diagnostics"]
            .as_array()
            .expect("diagnostics")
            .iter()
            .filter(|d| d["code"] == "tool-name-collision")
            .cloned()
            .collect()
    };
    assert_eq!(
        collisions("one"),
        Vec::<Value>::new(),
        "`one` keeps `shared`"
    );
    assert_eq!(by_name("one")["warnings"], 0);
    assert_eq!(
        collisions("two"),
        [serde_json::json!({
            "code": "tool-name-collision",
            "severity": "warning",
            "message": "`two` and `one` (at `tree/one`) both want the tool name `shared`; `one` keeps it because no skill is named `shared` and `one` comes first by name, so `two` has no tool of its own",
            "file": "tree/two/SKILL.md",
            "line": 4,
            "column": 12,
            "offset": 60,
            "length": 6,
            "hint": "give `two` a `tool_name` of its own; until then it is reachable only through `load_skill`",
        })]
    );
    assert_eq!(by_name("two")["valid"], true);
    let builtin = collisions("create_skill");
    assert_eq!(builtin.len(), 1, "{builtin:?}");
    assert_eq!(builtin[0]["severity"], "warning");
    assert_eq!(
        builtin[0]["message"],
        "the tool name `create_skill` is a built-in tool of the MCP server, and a built-in tool keeps its name, so `create_skill` has no tool of its own"
    );
    // Without `tool_name` it points at `name`.
    assert_eq!(
        (&builtin[0]["line"], &builtin[0]["column"]),
        (&2.into(), &7.into())
    );
}

#[test]
fn validate_one_skill_named_like_a_built_in_tool_is_warned_too() {
    let sandbox = Sandbox::new();
    sandbox.skill("helper", skill_md("helper", "tool_name: load_skill\n"));
    let run = sandbox.run(&["validate", "helper"]);
    assert_eq!(run.code, 0, "{run:?}");
    assert!(
        run.stdout.starts_with(
            "warning[tool-name-collision]: the tool name `load_skill` is a built-in tool of the MCP server"
        ),
        "{}",
        run.stdout
    );
    // Separate runs are not served together: no collision between them.
    // Descriptions that do not compete, so the collision is the first thing said of `b`.
    sandbox
        .skill(
            "a",
            "---\nname: a\ndescription: Use when deploying the app.\ntool_name: same\n---\n# a\n",
        )
        .skill(
            "b",
            "---\nname: b\ndescription: Use when rolling back a release.\ntool_name: same\n---\n# b\n",
        );
    assert!(
        !sandbox
            .run(&["validate", "a"])
            .stdout
            .contains("tool-name-collision")
    );
    let both = sandbox.run(&["validate", "a", "b"]);
    assert!(
        both.stdout
            .starts_with("warning[tool-name-collision]: `b` and `a` (at `a`)"),
        "{}",
        both.stdout
    );
}

#[test]
fn a_tree_without_skills_is_an_error_for_validate_and_an_empty_catalog() {
    let sandbox = Sandbox::new();
    sandbox.file("empty/README.md", "no skills here");
    let run = sandbox.run(&["validate", "-r", "empty"]);
    assert_eq!(run.code, 1);
    assert_eq!(run.stdout, "");
    assert!(
        run.stderr
            .starts_with("error: no skills found under `empty`\n"),
        "{}",
        run.stderr
    );
    let run = sandbox.run(&["catalog", "empty"]);
    assert_eq!((run.code, run.stdout.as_str()), (0, ""));
    assert!(run.stderr.contains("no skills found"), "{}", run.stderr);
}

#[test]
fn validate_recursive_reports_every_skill_of_the_corpus() {
    let corpus = corpus_dir();
    let mut expected = BTreeSet::new();
    let mut stack = vec![corpus.clone()];
    while let Some(dir) = stack.pop() {
        for entry in fs::read_dir(&dir).expect("read a corpus folder") {
            let entry = entry.expect("a folder entry");
            let kind = entry.file_type().expect("a file type");
            let name = entry.file_name();
            if kind.is_dir() && name != ".git" && name != "node_modules" {
                stack.push(entry.path());
            } else if kind.is_file() && (name == "SKILL.md" || name == "skill.md") {
                expected.insert(dir.display().to_string());
            }
        }
    }
    assert!(
        expected.len() > 100,
        "only {} skills in the corpus",
        expected.len()
    );
    let corpus_arg = corpus.to_str().expect("a UTF-8 corpus path");
    let run = skillpath(&["validate", "-r", corpus_arg, "--format", "json"])
        .current_dir(&corpus)
        .run();
    assert!(run.code == 0 || run.code == 1, "{}", run.stderr);
    let report = json(&run.stdout);
    let skills = report["skills"].as_array().expect("array");
    let reported: BTreeSet<String> = skills
        .iter()
        .map(|skill| skill["path"].as_str().expect("path").to_owned())
        .collect();
    assert_eq!(reported.len(), skills.len(), "a skill was reported twice");
    assert_eq!(reported, expected);
    assert_eq!(report["summary"]["skills"], expected.len());
    let invalid = skills.iter().filter(|s| s["valid"] == false).count();
    assert_eq!(report["summary"]["invalid"], invalid);
    assert_eq!(run.code, i32::from(invalid > 0));
    // Every diagnostic has a code and a position.
    for skill in skills {
        for diagnostic in skill["diagnostics"].as_array().expect("array") {
            assert!(diagnostic["code"].is_string(), "{diagnostic}");
            assert!(
                diagnostic["line"].as_u64().is_some_and(|l| l >= 1),
                "{diagnostic}"
            );
            assert!(
                diagnostic["column"].as_u64().is_some_and(|c| c >= 1),
                "{diagnostic}"
            );
        }
    }
}

// ---------------------------------------------------------------- usage errors and --help

#[test]
fn usage_errors_exit_2() {
    let sandbox = Sandbox::new();
    sandbox.valid("alpha");
    let missing = sandbox.run(&["validate", "alpha", "nope"]);
    assert_eq!(missing.code, 2);
    assert_eq!(missing.stdout, "");
    assert_eq!(missing.stderr, "error: path `nope` does not exist\n");
    let bogus = sandbox.run(&["validate", "--mode", "bogus", "alpha"]);
    assert_eq!(bogus.code, 2);
    assert!(
        bogus
            .stderr
            .contains("unknown mode `bogus`; expected one of: skills-ref, spec, lenient"),
        "{}",
        bogus.stderr
    );
    for args in [
        &["validate"][..],
        &["validate", "--format", "yaml", "alpha"],
        &["validate", "--bogus", "alpha"],
        &["nonsense"],
        &[],
        &["read-properties", "nope"],
        &["to-prompt", "alpha", "nope"],
        &["catalog", "nope"],
        &["catalog", "--mode", "bogus", "alpha"],
        &["catalog", "--format", "yaml", "alpha"],
        &["catalog", "--max-chars", "-1", "alpha"],
    ] {
        let run = sandbox.run(args);
        assert_eq!(run.code, 2, "{args:?}: {run:?}");
        assert_eq!(run.stdout, "", "{args:?}");
        assert!(!run.stderr.is_empty(), "{args:?}");
    }
}

#[test]
fn help_on_every_command() {
    let sandbox = Sandbox::new();
    let cases: &[(&[&str], &[&str])] = &[
        (
            &["--help"],
            &["validate", "read-properties", "to-prompt", "catalog"],
        ),
        (
            &["validate", "--help"],
            &[
                "--recursive",
                "--mode",
                "--format",
                "--no-lints",
                "--quiet",
                "--max-file-size",
                "Exit status",
            ],
        ),
        (
            &["read-properties", "--help"],
            &["--mode", "--max-file-size", "PATH"],
        ),
        (
            &["to-prompt", "--help"],
            &["--mode", "--max-file-size", "PATH"],
        ),
        (
            &["catalog", "--help"],
            &[
                "--format",
                "--max-chars",
                "--mode",
                "xml",
                "json",
                "markdown",
            ],
        ),
        (&["help", "validate"], &["--recursive"]),
        (&["--help"], &["schema", "render", "new"]),
        (&["schema", "--help"], &["PATH"]),
        (
            &["render", "--help"],
            &["--arg", "--args-json", "NAME=VALUE", "Exit status"],
        ),
        (&["new", "--help"], &["--golden-path", "--dir", "NAME"]),
    ];
    for (args, mentions) in cases {
        let run = sandbox.run(args);
        assert_eq!(run.code, 0, "{args:?}: {run:?}");
        for mention in *mentions {
            assert!(
                run.stdout.contains(mention),
                "{args:?} does not mention {mention}:\n{}",
                run.stdout
            );
        }
    }
    let version = sandbox.run(&["--version"]);
    assert_eq!(version.code, 0);
    assert!(version.stdout.starts_with("skillpath "));
}

// ---------------------------------------------------------------- read-properties

#[test]
fn read_properties_prints_the_typed_frontmatter() {
    let sandbox = Sandbox::new();
    sandbox.skill(
        "demo",
        "---\nname: demo\ndescription: Use when testing.\nversion: 1.0\nquoted: '1.0'\nmetadata:\n  author: me\n  n: 2\nallowed-tools: Read\nflag: true\nempty:\n---\nBody\n",
    );
    // Spec-mode errors elsewhere (metadata `n: 2`) make the skill invalid ...
    let invalid = sandbox.run(&["read-properties", "demo"]);
    assert_eq!(invalid.code, 1, "{invalid:?}");
    assert_eq!(invalid.stdout, "");
    assert!(
        invalid
            .stderr
            .starts_with("error[metadata-value-not-string]: "),
        "{}",
        invalid.stderr
    );
    assert!(
        invalid.stderr.contains(" --> demo/SKILL.md:8:6\n"),
        "{}",
        invalid.stderr
    );
    assert!(!invalid.stderr.contains("warning["), "{}", invalid.stderr);
    // ... and lenient mode reads it.
    let run = sandbox.run(&["read-properties", "--mode", "lenient", "demo/SKILL.md"]);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(run.stderr, "");
    assert_eq!(
        json(&run.stdout),
        serde_json::json!({
            "name": "demo",
            "description": "Use when testing.",
            "version": 1.0,
            "quoted": "1.0",
            "metadata": {"author": "me", "n": 2},
            "allowed-tools": "Read",
            "flag": true,
            "empty": null,
        })
    );
    // Keys in file order.
    let keys: Vec<&str> = run
        .stdout
        .lines()
        .filter(|line| line.starts_with("  \""))
        .map(|line| line.trim_start().split('"').nth(1).expect("a key"))
        .collect();
    assert_eq!(
        keys,
        [
            "name",
            "description",
            "version",
            "quoted",
            "metadata",
            "allowed-tools",
            "flag",
            "empty"
        ]
    );
}

#[test]
fn read_properties_in_spec_mode() {
    let sandbox = Sandbox::new();
    sandbox.skill(
        "demo",
        "---\nname: demo\ndescription: Use when testing.\nversion: 1.0\nlicense: MIT\n---\n",
    );
    let run = sandbox.run(&["read-properties", "demo"]);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(
        run.stdout,
        "{\n  \"name\": \"demo\",\n  \"description\": \"Use when testing.\",\n  \"version\": 1.0,\n  \"license\": \"MIT\"\n}\n"
    );
    // Warnings (the unknown `version`) do not go to stderr.
    assert_eq!(run.stderr, "");
}

#[test]
fn read_properties_failures() {
    let sandbox = Sandbox::new();
    sandbox
        .skill("nodesc", "---\nname: nodesc\n---\n")
        .skill("broken", "---\nname: broken\ndescription: a: b\n---\n");
    let nodesc = sandbox.run(&["read-properties", "nodesc"]);
    assert_eq!(nodesc.code, 1);
    assert_eq!(nodesc.stdout, "");
    assert_eq!(
        nodesc.stderr,
        "error[description-missing]: the required field `description` is missing
 --> nodesc/SKILL.md:1:1
  |
1 | ---
  | ^
  = hint: add `description:` saying what the skill does and when to use it

"
    );
    let broken = sandbox.run(&["read-properties", "broken"]);
    assert_eq!(broken.code, 1);
    assert!(
        broken
            .stderr
            .starts_with("error[yaml-syntax]: invalid YAML in frontmatter: ")
    );
    assert!(
        broken.stderr.contains(" --> broken/SKILL.md:3:15\n"),
        "{}",
        broken.stderr
    );
    let missing = sandbox.run(&["read-properties", "nope"]);
    assert_eq!(missing.code, 2);
    assert_eq!(missing.stderr, "error: path `nope` does not exist\n");
}

// ---------------------------------------------------------------- to-prompt

#[test]
fn to_prompt_escapes_the_location() {
    let sandbox = Sandbox::new();
    sandbox.valid("a&b/alpha").skill(
        "beta",
        "---\nname: beta\ndescription: Use when <x> & \"y\".\n---\n",
    );
    let run = sandbox.run(&["to-prompt", "a&b/alpha", "beta/SKILL.md"]);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(run.stderr, "");
    let root = sandbox.path().display().to_string();
    assert_eq!(
        run.stdout,
        format!(
            "<available_skills>\n<skill>\n<name>\nalpha\n</name>\n<description>\nUse when testing alpha.\n</description>\n<location>\n{root}/a&amp;b/alpha/SKILL.md\n</location>\n</skill>\n<skill>\n<name>\nbeta\n</name>\n<description>\nUse when &lt;x&gt; &amp; &quot;y&quot;.\n</description>\n<location>\n{root}/beta/SKILL.md\n</location>\n</skill>\n</available_skills>\n"
        )
    );
}

#[test]
fn to_prompt_refuses_an_invalid_skill() {
    let sandbox = Sandbox::new();
    sandbox
        .valid("alpha")
        .skill("Bad", "---\nname: Bad\ndescription: Use when x.\n---\n");
    let run = sandbox.run(&["to-prompt", "alpha", "Bad"]);
    assert_eq!(run.code, 1);
    // The invalid skill is left out and named; the valid one is still in the block.
    assert!(
        run.stdout.contains("<name>\nalpha\n</name>"),
        "{}",
        run.stdout
    );
    assert!(!run.stdout.contains("Bad"), "{}", run.stdout);
    assert!(
        run.stderr.starts_with(
            "error: left out `Bad`: it is not valid in spec mode\nerror[name-not-lowercase]: `name` `Bad` must be lowercase\n --> Bad/SKILL.md:2:7\n"
        ),
        "{}",
        run.stderr
    );
    // Lenient mode does not change that rule.
    assert_eq!(
        sandbox.run(&["to-prompt", "--mode", "lenient", "Bad"]).code,
        1
    );
}

// ---------------------------------------------------------------- catalog

/// A sandbox with `alpha`, `beta` (a long description) and `gamma` under `skills/`.
fn catalog_sandbox() -> Sandbox {
    let sandbox = Sandbox::new();
    sandbox
        .valid("skills/alpha")
        .skill(
            "skills/beta",
            format!(
                "---\nname: beta\ndescription: Use when {}.\n---\n",
                "the user asks about beta things".repeat(10)
            ),
        )
        .skill(
            "skills/gamma",
            "---\nname: gamma\ndescription: Use when <gamma> & friends.\n---\n",
        );
    sandbox
}

#[test]
fn catalog_xml() {
    let sandbox = catalog_sandbox();
    let run = sandbox.run(&["catalog", "skills/alpha", "skills/gamma"]);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(run.stderr, "");
    let root = sandbox.path().display().to_string();
    assert_eq!(
        run.stdout,
        format!(
            "<available_skills>
  <skill>
    <name>alpha</name>
    <description>Use when testing alpha.</description>
    <location>{root}/skills/alpha/SKILL.md</location>
  </skill>
  <skill>
    <name>gamma</name>
    <description>Use when &lt;gamma&gt; &amp; friends.</description>
    <location>{root}/skills/gamma/SKILL.md</location>
  </skill>
</available_skills>
"
        )
    );
}

#[test]
fn catalog_json_and_markdown() {
    let sandbox = catalog_sandbox();
    let root = sandbox.path().display().to_string();
    let run = sandbox.run(&["catalog", "--format", "json", "skills"]);
    assert_eq!(run.code, 0, "{run:?}");
    let catalog = json(&run.stdout);
    let entries = catalog.as_array().expect("a JSON array");
    let names: Vec<&str> = entries
        .iter()
        .map(|e| e["name"].as_str().expect("name"))
        .collect();
    assert_eq!(names, ["alpha", "beta", "gamma"]);
    assert_eq!(
        entries[2],
        serde_json::json!({
            "name": "gamma",
            "description": "Use when <gamma> & friends.",
            "location": format!("{root}/skills/gamma/SKILL.md"),
        })
    );
    let markdown = sandbox.run(&[
        "catalog",
        "--format",
        "markdown",
        "skills/alpha",
        "skills/gamma",
    ]);
    assert_eq!(markdown.code, 0);
    assert_eq!(
        markdown.stdout,
        format!(
            "- **alpha**: Use when testing alpha. (`{root}/skills/alpha/SKILL.md`)\n- **gamma**: Use when <gamma> & friends. (`{root}/skills/gamma/SKILL.md`)\n"
        )
    );
}

#[test]
fn catalog_max_chars_shortens_the_longest_description_and_keeps_every_skill() {
    let sandbox = catalog_sandbox();
    for format in ["xml", "json", "markdown"] {
        let full = sandbox.run(&["catalog", "--format", format, "skills"]);
        let full_size = full.stdout.chars().count();
        let budget = full_size - 100;
        let budget_arg = budget.to_string();
        let run = sandbox.run(&[
            "catalog",
            "--format",
            format,
            "--max-chars",
            &budget_arg,
            "skills",
        ]);
        assert_eq!(run.code, 0, "{format}: {run:?}");
        assert!(
            run.stdout.chars().count() <= budget,
            "{format}: {} > {budget}",
            run.stdout.chars().count()
        );
        for name in ["alpha", "beta", "gamma"] {
            assert!(
                run.stdout.contains(name),
                "{format}: {name} dropped:\n{}",
                run.stdout
            );
        }
        assert!(
            run.stdout.contains("Use when testing alpha."),
            "{format}: alpha was shortened"
        );
        assert!(
            run.stdout.contains('…'),
            "{format}: no ellipsis in\n{}",
            run.stdout
        );
        let notes: Vec<&str> = run.stderr.lines().collect();
        assert_eq!(notes.len(), 1, "{format}: {notes:?}");
        assert!(
            notes[0].starts_with("note: shortened the description of `beta` from 320 to "),
            "{format}: {}",
            notes[0]
        );
        // A budget the full catalog fits changes nothing.
        let roomy = sandbox.run(&[
            "catalog",
            "--format",
            format,
            "--max-chars",
            &full_size.to_string(),
            "skills",
        ]);
        assert_eq!(roomy.stdout, full.stdout, "{format}");
        assert_eq!(roomy.stderr, "", "{format}");
    }
}

#[test]
fn catalog_max_chars_that_cannot_fit_is_a_usage_error() {
    let sandbox = catalog_sandbox();
    let run = sandbox.run(&["catalog", "--max-chars", "10", "skills"]);
    assert_eq!(run.code, 2, "{run:?}");
    assert_eq!(run.stdout, "");
    assert!(
        run.stderr
            .starts_with("error: the catalog of 3 skills needs at least "),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr
            .ends_with("characters, more than the budget of 10\n"),
        "{}",
        run.stderr
    );
    // One skill is one skill; and what was left out is still reported.
    sandbox
        .skill("skills/nodesc", "---\nname: nodesc\n---\n")
        .skill(
            "skills/manual",
            "---\nname: manual\ndescription: Use when asked.\ndisable-model-invocation: true\n---\n",
        );
    let one = sandbox.run(&[
        "catalog",
        "--max-chars",
        "5",
        "skills/alpha",
        "skills/manual",
        "skills/nodesc",
    ]);
    assert_eq!(one.code, 2, "{one:?}");
    assert_eq!(one.stdout, "");
    let lines: Vec<&str> = one.stderr.lines().collect();
    assert_eq!(
        lines.first().copied(),
        Some("note: left out `skills/manual`: it sets `disable-model-invocation: true`")
    );
    assert_eq!(
        lines.get(1).copied(),
        Some("error: left out `skills/nodesc`: it is not valid in lenient mode")
    );
    let last = lines.last().copied().unwrap_or_default();
    assert!(
        last.starts_with("error: the catalog of 1 skill needs at least "),
        "{}",
        one.stderr
    );
    assert!(
        last.ends_with(" characters, more than the budget of 5"),
        "{last}"
    );
}

#[test]
fn catalog_leaves_out_skills_that_disable_model_invocation() {
    let sandbox = catalog_sandbox();
    sandbox
        .skill(
            "skills/manual",
            "---\nname: manual\ndescription: Use when asked by name.\ndisable-model-invocation: true\n---\n",
        )
        .skill(
            "skills/shouty",
            "---\nname: shouty\ndescription: Use when asked by name.\ndisable-model-invocation: True\n---\n",
        )
        .skill(
            "skills/allowed",
            "---\nname: allowed\ndescription: Use when needed.\ndisable-model-invocation: false\n---\n",
        );
    let run = sandbox.run(&["catalog", "--format", "json", "skills"]);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(
        run.stderr,
        "note: left out `skills/manual`: it sets `disable-model-invocation: true`\nnote: left out `skills/shouty`: it sets `disable-model-invocation: true`\n"
    );
    let names: Vec<String> = json(&run.stdout)
        .as_array()
        .expect("array")
        .iter()
        .map(|e| e["name"].as_str().expect("name").to_owned())
        .collect();
    assert_eq!(names, ["allowed", "alpha", "beta", "gamma"]);
}

#[test]
fn catalog_lists_invalid_skills_as_errors() {
    let sandbox = catalog_sandbox();
    sandbox.skill("skills/nodesc", "---\nname: nodesc\n---\n");
    let run = sandbox.run(&["catalog", "--format", "markdown", "skills"]);
    assert_eq!(run.code, 1, "{run:?}");
    assert_eq!(run.stdout.lines().count(), 3, "{}", run.stdout);
    assert!(!run.stdout.contains("nodesc"));
    assert_eq!(
        run.stderr,
        "error: left out `skills/nodesc`: it is not valid in lenient mode
error[description-missing]: the required field `description` is missing
 --> skills/nodesc/SKILL.md:1:1
  |
1 | ---
  | ^
  = hint: add `description:` saying what the skill does and when to use it

"
    );
}

#[test]
fn catalog_mode_decides_what_is_listed() {
    let sandbox = Sandbox::new();
    sandbox.skill(
        "skills/pdf-tools",
        "---\nname: pdf\ndescription: Use when a PDF arrives.\n---\n",
    );
    // Lenient (the default) lists a skill whose name does not match its folder ...
    let lenient = sandbox.run(&["catalog", "--format", "json", "skills"]);
    assert_eq!(lenient.code, 0, "{lenient:?}");
    assert_eq!(json(&lenient.stdout)[0]["name"], "pdf");
    // ... spec mode does not.
    let spec = sandbox.run(&["catalog", "--mode", "spec", "--format", "json", "skills"]);
    assert_eq!(spec.code, 1);
    assert_eq!(json(&spec.stdout), serde_json::json!([]));
    assert!(
        spec.stderr
            .starts_with("error: left out `skills/pdf-tools`: it is not valid in spec mode\n")
    );
    assert!(spec.stderr.contains("error[name-directory-mismatch]"));
}

#[test]
fn new_scaffolds_skills_that_validate_render_and_refuse_to_overwrite() {
    let sandbox = Sandbox::new();
    let plain = sandbox.run(&["new", "my-skill"]);
    assert_eq!(plain.code, 0, "{plain:?}");
    assert!(
        plain.stderr.starts_with("created `my-skill`\n"),
        "{}",
        plain.stderr
    );
    let golden = sandbox.run(&["new", "--golden-path", "--dir", "skills", "add-thing"]);
    assert_eq!(golden.code, 0, "{golden:?}");
    let run = sandbox.run(&["validate", "my-skill", "skills/add-thing"]);
    assert_eq!(run.code, 0, "{run:?}");
    assert!(
        run.stdout
            .ends_with("2 valid, 0 invalid; 0 errors, 0 warnings\n"),
        "{}",
        run.stdout
    );
    let render = sandbox.run(&["render", "skills/add-thing", "--arg", "service_name=Orders"]);
    assert_eq!(render.code, 0, "{render:?}");
    assert!(
        render
            .stdout
            .contains("**Target:** `src/Orders/Example.cs`\n\n```csharp\nnamespace Orders;\n"),
        "{}",
        render.stdout
    );
    let again = sandbox.run(&["new", "my-skill"]);
    assert_eq!(again.code, 2);
    assert!(again.stderr.contains("already exists"), "{}", again.stderr);
    let bad = sandbox.run(&["new", "My_Skill"]);
    assert_eq!(bad.code, 2);
    assert!(
        bad.stderr.contains("not a valid skill name"),
        "{}",
        bad.stderr
    );
}

#[test]
fn render_takes_json_and_key_value_arguments_and_reports_usage_errors() {
    let sandbox = Sandbox::new();
    sandbox.skill(
        "greet",
        "---\nname: greet\ndescription: Use when greeting.\nargs:\n  - name: who\n    description: Who\n    required: true\n  - name: times\n    description: How often\n    type: number\n    default: \"1\"\n---\n# Greet\n\nSay hello to {Who} {Times} times.\n",
    );
    let json = sandbox.run(&[
        "render",
        "greet",
        "--args-json",
        r#"{"who": "Ada", "times": 2}"#,
    ]);
    assert_eq!(json.code, 0, "{json:?}");
    assert!(
        json.stdout
            .starts_with("# Greet\n\nSay hello to Ada 2 times.\n"),
        "{}",
        json.stdout
    );
    let both = sandbox.run(&[
        "render",
        "greet",
        "--args-json",
        r#"{"who": "Ada"}"#,
        "--arg",
        "who=Grace",
    ]);
    assert!(
        both.stdout.contains("Say hello to Grace 1 times."),
        "{}",
        both.stdout
    );
    assert!(
        both.stdout.contains("- `times` = `1` (default)"),
        "{}",
        both.stdout
    );
    let wrong = sandbox.run(&["render", "greet", "--arg", "who=Ada", "--arg", "times=many"]);
    assert_eq!((wrong.code, wrong.stdout.as_str()), (1, ""));
    assert_eq!(
        wrong.stderr,
        "error: the arguments have 1 problem:\n- argument `times` must be a number, got \"many\"\n"
    );
    for args in [
        &["render", "greet", "--arg", "who"][..],
        &["render", "greet", "--args-json", "[1]"],
        &["render", "greet", "--args-json", "{"],
    ] {
        let run = sandbox.run(args);
        assert_eq!(run.code, 2, "{args:?}: {run:?}");
    }
    let schema = sandbox.run(&["schema", "greet"]);
    assert_eq!(schema.code, 0);
    let schema: serde_json::Value = serde_json::from_str(&schema.stdout).expect("JSON");
    assert_eq!(
        schema["properties"]["times"],
        serde_json::json!({"type": "number", "description": "How often", "default": 1})
    );
    assert_eq!(schema["required"], serde_json::json!(["who"]));
}

#[test]
fn render_and_schema_refuse_a_skill_whose_arguments_are_broken() {
    let sandbox = Sandbox::new();
    sandbox.skill(
        "broken",
        "---\nname: broken\ndescription: Use when testing.\nargs:\n  - name: Who\n---\n# B\n",
    );
    for command in ["render", "schema"] {
        let run = sandbox.run(&[command, "broken"]);
        assert_eq!((run.code, run.stdout.as_str()), (1, ""), "{command}");
        assert!(
            run.stderr.contains("error[arg-name-invalid]"),
            "{command}: {}",
            run.stderr
        );
    }
}

/// The subcommands `skillpath --help` lists, read from its `Commands:` section.
fn listed_subcommands(help: &str) -> Vec<String> {
    help.lines()
        .skip_while(|line| !line.starts_with("Commands:"))
        .skip(1)
        .take_while(|line| line.starts_with("  "))
        .filter_map(|line| line.split_whitespace().next())
        .filter(|name| *name != "help")
        .map(str::to_owned)
        .collect()
}

#[test]
fn completions_name_every_command_and_bash_loads_them() {
    let sandbox = Sandbox::new();
    let help = skillpath(&["--help"]).current_dir(sandbox.path()).run();
    let commands = listed_subcommands(&help.stdout);
    assert!(commands.len() > 15, "{}", help.stdout);
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        let run = skillpath(&["completions", shell])
            .current_dir(sandbox.path())
            .run();
        assert_eq!(run.code, 0, "{shell}: {}", run.stderr);
        for command in &commands {
            assert!(
                run.stdout.contains(command.as_str()),
                "{shell} lacks `{command}`"
            );
        }
    }
    // bash itself reads the script and registers the completion function.
    let script = sandbox.path().join("skillpath.bash");
    fs::write(
        &script,
        skillpath(&["completions", "bash"])
            .current_dir(sandbox.path())
            .run()
            .stdout,
    )
    .expect("write");
    let registered = Command::new("bash")
        .arg("-c")
        .arg(format!(
            "source {} && complete -p skillpath",
            script.display()
        ))
        .output()
        .expect("run bash");
    let registered = String::from_utf8_lossy(&registered.stdout);
    assert!(
        registered.contains("-F _skillpath") && registered.trim_end().ends_with("skillpath"),
        "{registered}"
    );
    let unknown = skillpath(&["completions", "tcsh"])
        .current_dir(sandbox.path())
        .run();
    assert_eq!(unknown.code, 2, "{}", unknown.stderr);
}

/// `skillpath serve --no-discover --skills SKILLS` over stdio with stdin closed, with `extra`
/// arguments and environment, its store in `work`: its stderr.
fn serve_until_stdin_closes(
    work: &Path,
    skills: &Path,
    extra: &[&str],
    env: &[(&str, &str)],
) -> String {
    let output = Command::new(skillpath_bin())
        .args(["serve", "--no-discover", "--skills"])
        .arg(skills)
        .args(extra)
        .env_remove("RUST_LOG")
        .envs(env.iter().copied())
        .env("SKILLPATH_DB", work.join("store.db"))
        .env("HOME", work)
        .stdin(std::process::Stdio::null())
        .output()
        .expect("run skillpath serve");
    // With stdin closed before `initialize`, serve ends once it has synced.
    assert!(output.status.code().is_some(), "{output:?}");
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// [`serve_until_stdin_closes`] on a folder holding one skill that loads and one that cannot.
fn serve_briefly(work: &Path, extra: &[&str], env: &[(&str, &str)]) -> String {
    let tree = work.join("tree");
    crate::support::write_skill(&tree.join("good"), "good", "A skill that loads.");
    fs::create_dir_all(tree.join("broken")).expect("mkdir");
    fs::write(tree.join("broken/SKILL.md"), "no frontmatter at all\n").expect("write");
    serve_until_stdin_closes(work, &tree, extra, env)
}

#[test]
fn log_level_sets_what_serve_says_and_rust_log_takes_precedence() {
    let sandbox = Sandbox::new();
    let default = serve_briefly(&sandbox.path(), &[], &[]);
    assert!(
        default
            .lines()
            .any(|line| line.starts_with("skillpath: skipped: ") && line.contains("/broken/")),
        "{default}"
    );
    assert!(
        default.contains("skillpath: skill folders synced: "),
        "{default}"
    );
    // Nothing at `info` names its level or origin: the lines read as they always have.
    assert!(
        !default.contains("INFO") && !default.contains("skillpath_server"),
        "{default}"
    );

    let warnings = serve_briefly(&sandbox.path(), &["--log-level", "warn"], &[]);
    assert!(!warnings.contains("skill folders synced"), "{warnings}");

    let off = serve_briefly(&sandbox.path(), &["--log-level", "off"], &[]);
    assert!(!off.contains("skillpath: "), "{off}");

    let by_env = serve_briefly(&sandbox.path(), &[], &[("RUST_LOG", "off")]);
    assert!(!by_env.contains("skillpath: "), "{by_env}");
}

#[test]
fn serve_takes_a_skill_md_for_its_folder_as_import_does() {
    let sandbox = Sandbox::new();
    let work = sandbox.path();
    crate::support::write_skill(&work.join("one"), "one", "A skill named by its file.");
    let stderr = serve_until_stdin_closes(&work, &work.join("one/SKILL.md"), &[], &[]);
    assert!(
        stderr.contains("skill folders synced: 1 created, 0 updated"),
        "{stderr}"
    );
}

/// `serve` started on a terminal says in one line what it is for (a client speaks MCP on its
/// stdin) instead of waiting in silence; started by a client, with pipes, it says nothing of the
/// kind. The terminal is a pseudo-terminal from util-linux's `script`.
#[test]
fn serve_on_a_terminal_says_what_it_is_for() {
    let work = tempfile::tempdir().expect("tempdir");
    let command = format!(
        "{} serve --no-discover --drain-timeout 2",
        skillpath_bin().display()
    );
    let on_terminal = Command::new("script")
        .args(["-q", "-e", "-c", &command, "/dev/null"])
        .env("SKILLPATH_DB", work.path().join("store.db"))
        .env("HOME", work.path())
        .stdin(std::process::Stdio::null())
        .output()
        .expect("run `script` (util-linux)");
    let said = String::from_utf8_lossy(&on_terminal.stdout);
    let line = "skillpath serve speaks MCP on stdin/stdout, for an agent to start it";
    assert!(said.contains(line), "{said}");
    assert!(said.contains("skillpath studio"), "{said}");
    let piped = Command::new(skillpath_bin())
        .args(["serve", "--no-discover", "--drain-timeout", "2"])
        .env("SKILLPATH_DB", work.path().join("store.db"))
        .env("HOME", work.path())
        .stdin(std::process::Stdio::null())
        .output()
        .expect("run serve");
    let stderr = String::from_utf8_lossy(&piped.stderr);
    assert!(!stderr.contains(line), "{stderr}");
}
