//! `skillpath eval triggers` and `skillpath eval overlap` on a library built for the test, in
//! which two skills overlap on purpose (`pdf-forms` and `pdf-filler`): every figure below is
//! counted by hand from the store's ranking rules (a skill whose name holds more of the query's
//! words ranks first; names before descriptions), then the CI gates' exit codes, then bad eval
//! files, each refused with its file and row.

use std::fs;
use std::path::Path;

use serde_json::{Value, json};
use skillpath_test_support::{Run, RunExt};

use crate::support::skillpath;

/// Runs `skillpath args...` in an empty folder that is its home too, with no database named by
/// the environment.
fn in_empty_home(args: &[&str]) -> Run {
    let work = tempfile::tempdir().expect("tempdir");
    skillpath(args)
        .current_dir(work.path())
        .env("HOME", work.path())
        .env_remove("SKILLPATH_DB")
        .run()
}

fn skill(root: &Path, name: &str, description: &str, evals: Option<Value>) {
    let folder = root.join(name);
    fs::create_dir_all(folder.join("evals")).expect("mkdir");
    fs::write(
        folder.join("SKILL.md"),
        format!("---\nname: {name}\ndescription: {description}\n---\n# {name}\n\nSteps.\n"),
    )
    .expect("write");
    if let Some(evals) = evals {
        fs::write(
            folder.join("evals/trigger-evals.json"),
            serde_json::to_vec_pretty(&evals).expect("json"),
        )
        .expect("write");
    }
}

/// The library: two PDF skills that compete, and two that have nothing to do with them.
fn library(root: &Path) {
    skill(
        root,
        "pdf-forms",
        "Fill in PDF forms.",
        Some(json!([
            {"query": "pdf forms", "should_trigger": true},      // its name has both words: 1st
            {"query": "pdf filler", "should_trigger": true},     // pdf-filler's has both: 2nd
            {"query": "filler", "should_trigger": true},         // only pdf-filler matches
            {"query": "slack gif", "should_trigger": false},     // slack-gif first
            {"query": "forms", "should_trigger": false},         // only its name: a false trigger
        ])),
    );
    skill(
        root,
        "pdf-filler",
        "Fill in PDF forms and PDF form fields.",
        Some(json!([
            {"query": "pdf filler", "should_trigger": true},     // 1st
            {"query": "pdf forms", "should_trigger": true},      // pdf-forms first: 2nd
        ])),
    );
    skill(
        root,
        "slack-gif",
        "Make animated GIFs for Slack.",
        Some(json!([{"query": "animated slack gif", "should_trigger": true}])),
    );
    skill(
        root,
        "release-notes",
        "Write release notes from the commits.",
        None,
    );
}

fn queries(root: &Path, rows: &Value) -> String {
    let path = root.join("queries.json");
    fs::write(&path, serde_json::to_vec(rows).expect("json")).expect("write");
    path.display().to_string()
}

fn skill_of<'a>(report: &'a Value, name: &str) -> &'a Value {
    report["skills"]
        .as_array()
        .and_then(|skills| skills.iter().find(|s| s["skill"] == name))
        .unwrap_or_else(|| panic!("no `{name}` in {report}"))
}

/// Imports the skills under `root` into the store `db`: the overlap warnings it printed.
fn import_warnings(root: &str, db: &str) -> Vec<String> {
    let import = in_empty_home(&["import", root, "--db", db]);
    assert_eq!(import.code, 0, "{}", import.stderr);
    import
        .stdout
        .lines()
        .filter(|line| line.starts_with("warning[description-overlap]"))
        .map(str::to_owned)
        .collect()
}

/// Creates a skill through `create_skill` over MCP, served from `skills`: the tool's answer.
fn create_skill(skills: &Path, work: &Path, name: &str, description: &str) -> String {
    let mut server = crate::mcp_wire::Server::start(skills, work);
    let created = server.call(
        "tools/call",
        json!({"name": "create_skill", "arguments": {
            "name": name,
            "description": description,
            "sections": [{"type": "free", "heading": "Steps", "content": "1. Fill the form."}]
        }}),
    );
    let text = created["result"]["content"][0]["text"]
        .as_str()
        .expect("text")
        .to_owned();
    assert_eq!(created["result"]["isError"], false, "{text}");
    text
}

#[test]
fn the_overlapping_pair_is_the_most_confused_with_figures_counted_by_hand() {
    let work = tempfile::tempdir().expect("tempdir");
    let skills = work.path().join("skills");
    library(&skills);
    let library_queries = queries(
        work.path(),
        &json!([
            {"query": "release notes", "skill": "release-notes"},
            {"query": "bake sourdough bread", "skill": null},
        ]),
    );
    let skills = skills.display().to_string();
    let run = in_empty_home(&[
        "eval",
        "triggers",
        &skills,
        "--queries",
        &library_queries,
        "--format",
        "json",
    ]);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    let report: Value = serde_json::from_str(&run.stdout).expect("JSON");

    let forms = skill_of(&report, "pdf-forms");
    assert_eq!(
        (forms["positives"].as_u64(), forms["near_misses"].as_u64()),
        (Some(3), Some(2))
    );
    // Ranks 1, 2 and none: recall@1 1/3, recall@3 2/3, MRR (1 + 1/2 + 0) / 3.
    assert_eq!(forms["recall_at_1"].as_f64(), Some(1.0 / 3.0));
    assert_eq!(forms["recall_at_3"].as_f64(), Some(2.0 / 3.0));
    assert_eq!(forms["mrr"].as_f64(), Some(0.5));
    let false_triggers = forms["false_triggers"].as_array().expect("list");
    assert_eq!(false_triggers.len(), 1, "{forms}");
    assert_eq!(false_triggers[0]["query"], "forms");
    assert_eq!(false_triggers[0]["row"], 5);
    assert_eq!(forms["beaten_by"], json!([["pdf-filler", 2]]));

    let filler = skill_of(&report, "pdf-filler");
    assert_eq!(filler["recall_at_1"].as_f64(), Some(0.5));
    assert_eq!(filler["mrr"].as_f64(), Some(0.75));
    assert_eq!(filler["beaten_by"], json!([["pdf-forms", 1]]));

    assert_eq!(
        skill_of(&report, "slack-gif")["recall_at_1"].as_f64(),
        Some(1.0)
    );
    assert_eq!(
        skill_of(&report, "release-notes")["recall_at_1"].as_f64(),
        Some(1.0)
    );
    // pdf-filler beat pdf-forms twice, pdf-forms beat pdf-filler once.
    assert_eq!(
        report["confused"][0],
        json!({"a": "pdf-filler", "b": "pdf-forms", "count": 3})
    );
    assert_eq!(report["confused"].as_array().map(Vec::len), Some(1));

    let summary = &report["summary"];
    // 7 positives; chosen first: "pdf forms" (pdf-forms), "pdf filler" (pdf-filler), "animated
    // slack gif", "release notes" = 4; within five: all but "filler".
    assert_eq!(summary["queries"], 10);
    assert_eq!(summary["answerable"], 7);
    assert_eq!(summary["recall_at_1"].as_f64(), Some(4.0 / 7.0));
    assert_eq!(summary["recall_at_5"].as_f64(), Some(6.0 / 7.0));
    assert_eq!(
        (
            summary["unanswerable"].as_u64(),
            summary["unanswered"].as_u64()
        ),
        (Some(1), Some(1))
    );
    assert_eq!(
        (
            summary["near_misses"].as_u64(),
            summary["near_misses_triggered"].as_u64()
        ),
        (Some(2), Some(1))
    );
    assert_eq!(report["library"], 4);

    // The same library imported: `--store` ranks the stored skills, their trigger evals read
    // from the store, with the same figures.
    let db = work.path().join("store.db").display().to_string();
    assert!(import_warnings(&skills, &db).len() == 1);
    let stored = in_empty_home(&[
        "eval",
        "triggers",
        "--store",
        "--db",
        &db,
        "--queries",
        &library_queries,
        "--format",
        "json",
    ]);
    assert_eq!(stored.code, 0, "{}", stored.stderr);
    let stored: Value = serde_json::from_str(&stored.stdout).expect("JSON");
    assert_eq!(stored["summary"], report["summary"]);
    assert_eq!(stored["confused"], report["confused"]);
    for name in ["pdf-forms", "pdf-filler", "slack-gif", "release-notes"] {
        for figure in ["recall_at_1", "recall_at_3", "mrr", "beaten_by"] {
            assert_eq!(
                skill_of(&stored, name)[figure],
                skill_of(&report, name)[figure],
                "{name} {figure}"
            );
        }
    }
    // Neither folders nor `--store`: a usage error, not the default store.
    let neither = in_empty_home(&["eval", "triggers", "--queries", &library_queries]);
    assert_eq!(neither.code, 2, "{}", neither.stderr);
    assert!(neither.stderr.contains("--store"), "{}", neither.stderr);

    // The same run as text names the pair and the false trigger.
    let text = in_empty_home(&["eval", "triggers", &skills, "--queries", &library_queries]);
    assert_eq!(text.code, 0, "{}", text.stderr);
    assert!(
        text.stdout.contains("pdf-filler ~ pdf-forms: 3"),
        "{}",
        text.stdout
    );
    assert!(
        text.stdout
            .contains("false trigger: `pdf-forms` chosen for \"forms\""),
        "{}",
        text.stdout
    );

    // The gates: pdf-forms's recall@1 (1/3) and its one false trigger.
    for (gate, code) in [
        (["--min-recall", "0.5"], 1),
        (["--min-recall", "0.3"], 0),
        (["--max-false", "0"], 1),
        (["--max-false", "1"], 0),
    ] {
        let run = in_empty_home(&["eval", "triggers", &skills, gate[0], gate[1]]);
        assert_eq!(run.code, code, "{gate:?}: {}\n{}", run.stdout, run.stderr);
        if code == 1 {
            assert!(
                run.stderr.contains("gate: `pdf-forms`"),
                "{gate:?}: {}",
                run.stderr
            );
        }
    }
    let out_of_range = in_empty_home(&["eval", "triggers", &skills, "--min-recall", "80"]);
    assert_eq!(out_of_range.code, 2, "{}", out_of_range.stderr);

    // The overlap names the same pair, with the words they share.
    let overlap = in_empty_home(&["eval", "overlap", &skills, "--format", "json"]);
    assert_eq!(overlap.code, 0, "{}", overlap.stderr);
    let overlap: Value = serde_json::from_str(&overlap.stdout).expect("JSON");
    let pairs = overlap["overlaps"].as_array().expect("pairs");
    assert_eq!(pairs.len(), 1, "{overlap}");
    assert_eq!(
        (pairs[0]["a"].as_str(), pairs[0]["b"].as_str()),
        (Some("pdf-filler"), Some("pdf-forms"))
    );
    for word in ["pdf", "form", "fill"] {
        assert!(
            pairs[0]["shared"]
                .as_array()
                .is_some_and(|s| s.contains(&json!(word))),
            "{word}: {overlap}"
        );
    }
}

#[test]
fn bad_eval_files_are_refused_with_their_file_and_row() {
    let work = tempfile::tempdir().expect("tempdir");
    let skills = work.path().join("skills");
    library(&skills);
    let root = skills.display().to_string();
    let evals = skills.join("slack-gif/evals/trigger-evals.json");

    fs::write(&evals, "{not json").expect("write");
    let run = in_empty_home(&["eval", "triggers", &root]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("slack-gif/evals/trigger-evals.json`: not JSON"),
        "{}",
        run.stderr
    );

    fs::write(&evals, r#"[{"query": "gif"}]"#).expect("write");
    let run = in_empty_home(&["eval", "triggers", &root]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr
            .contains("trigger-evals.json` row 1: no `should_trigger`"),
        "{}",
        run.stderr
    );
    fs::remove_file(&evals).expect("remove");

    // A library file refused, with the file and the row where one is to blame.
    let refused = |rows: &Value, said: &str| {
        let file = queries(work.path(), rows);
        let run = in_empty_home(&["eval", "triggers", &root, "--queries", &file]);
        assert_eq!(run.code, 2, "{said}: {}", run.stderr);
        assert!(run.stderr.contains(said), "{said}: {}", run.stderr);
    };
    refused(
        &json!([{"query": "a", "skill": "pdf-forms"}, {"query": "b", "skill": "ghost"}]),
        "queries.json` row 2: no skill named `ghost`",
    );
    refused(
        &json!([{"query": "x".repeat(1024 * 1024), "skill": null}]),
        "row 1: the query is 1048576 bytes; the limit is 2000",
    );
    let many: Vec<Value> = (0..100_000)
        .map(|i| json!({"query": format!("query {i}"), "skill": null}))
        .collect();
    refused(
        &Value::Array(many),
        "row 10001: the file has 100000 queries",
    );
    refused(&json!({"query": "a"}), "the file is not an array");
}

#[test]
fn a_library_of_one_skill_evaluates_and_has_no_pairs() {
    let work = tempfile::tempdir().expect("tempdir");
    let skills = work.path().join("skills");
    skill(
        &skills,
        "slack-gif",
        "Make animated GIFs for Slack.",
        Some(
            json!([{"query": "slack gif", "should_trigger": true}, {"query": "bake bread", "should_trigger": false}]),
        ),
    );
    let root = skills.display().to_string();
    let run = in_empty_home(&["eval", "triggers", &root, "--format", "json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let report: Value = serde_json::from_str(&run.stdout).expect("JSON");
    assert_eq!(
        skill_of(&report, "slack-gif")["recall_at_1"].as_f64(),
        Some(1.0)
    );
    assert_eq!(report["confused"], json!([]));
    let overlap = in_empty_home(&["eval", "overlap", &root]);
    assert_eq!(overlap.code, 0);
    assert!(
        overlap.stdout.starts_with("0 pairs of 1 skill compete"),
        "{}",
        overlap.stdout
    );
    // A library without queries says so.
    fs::remove_file(skills.join("slack-gif/evals/trigger-evals.json")).expect("remove");
    let run = in_empty_home(&["eval", "triggers", &root]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("no queries to run"), "{}", run.stderr);
}

/// The `description-overlap` lint where a skill joins a library: `import` (the new skill that
/// competes, once per pair) and `create_skill` over MCP (its warnings name the skill it would
/// fight), and `validate` over several skills.
#[test]
fn a_skill_that_competes_with_the_library_is_warned_where_it_is_written() {
    let work = tempfile::tempdir().expect("tempdir");
    let skills = work.path().join("skills");
    library(&skills);
    let db = work.path().join("store.db").display().to_string();
    let root = skills.display().to_string();

    let import = import_warnings(&root, &db);
    let warned: Vec<&str> = import.iter().map(String::as_str).collect();
    assert_eq!(warned.len(), 1, "{warned:#?}");
    assert!(
        warned[0].starts_with(
            "warning[description-overlap]: the description of `pdf-forms` competes with `pdf-filler`'s (similarity"
        ),
        "{}",
        warned[0]
    );
    let json = in_empty_home(&["import", &root, "--db", &db, "--format", "json"]);
    let json: Value = serde_json::from_str(&json.stdout).expect("JSON");
    assert_eq!(
        json["overlaps"],
        json!([]),
        "nothing changed, nothing to say again"
    );

    let validate = in_empty_home(&["validate", &root, "-r"]);
    assert!(
        validate.stdout.contains("warning[description-overlap]: the description of `pdf-forms` competes with `pdf-filler`'s"),
        "{}",
        validate.stdout
    );

    let text = create_skill(
        &skills,
        work.path(),
        "pdf-form-helper",
        "Fill PDF forms and their form fields.",
    );
    assert!(
        text.contains("- description-overlap: the description of `pdf-form-helper` competes with `pdf-filler`'s"),
        "{text}"
    );
    assert!(text.contains("competes with `pdf-forms`'s"), "{text}");
    assert!(!text.contains("`slack-gif`"), "{text}");
}

#[test]
fn a_library_of_near_copies_is_warned_within_bounds() {
    // Forty skills with one description: 40·39/2 = 780 competing pairs.
    const COPIES: usize = 40;
    let work = tempfile::tempdir().expect("tempdir");
    let skills = work.path().join("skills");
    for index in 0..COPIES {
        skill(
            &skills,
            &format!("copy-{index:02}"),
            "Fill in PDF forms and extract their form fields.",
            None,
        );
    }
    let pairs = COPIES * (COPIES - 1) / 2;
    let db = work.path().join("store.db").display().to_string();
    let root = skills.display().to_string();

    // `import` lists the 20 most similar pairs and counts the rest.
    let import = import_warnings(&root, &db);
    let warned: Vec<&str> = import.iter().map(String::as_str).collect();
    assert_eq!(warned.len(), 21, "{warned:#?}");
    assert_eq!(
        warned[20],
        format!(
            "warning[description-overlap]: {} more pairs of descriptions compete; `skillpath eval overlap` lists every pair",
            pairs - 20
        )
    );
    // A new body for one of them: its 39 pairs are said again.
    fs::write(
        skills.join("copy-00/SKILL.md"),
        "---\nname: copy-00\ndescription: Fill in PDF forms and extract their form fields.\n---\nNew steps.\n",
    )
    .expect("write");
    let json = in_empty_home(&["import", &root, "--db", &db, "--format", "json"]);
    let json: Value = serde_json::from_str(&json.stdout).expect("JSON");
    assert_eq!(json["overlaps"].as_array().expect("overlaps").len(), 20);
    assert_eq!(
        json["overlaps_total"],
        COPIES - 1,
        "only the pairs of the skill written"
    );

    // `validate` names five competitors a skill, the most similar, and counts the rest.
    let validate = in_empty_home(&["validate", &root, "-r", "--format", "json"]);
    let report: Value = serde_json::from_str(&validate.stdout).expect("JSON");
    let overlaps_of = |name: &str| -> Vec<String> {
        report["skills"]
            .as_array()
            .and_then(|skills| skills.iter().find(|s| s["name"] == name))
            .unwrap_or_else(|| panic!("no `{name}` in {report}"))["diagnostics"]
            .as_array()
            .expect("diagnostics")
            .iter()
            .filter(|d| d["code"] == "description-overlap")
            .map(|d| d["message"].as_str().expect("message").to_owned())
            .collect()
    };
    // Warned on the second of each pair by name: `copy-39` is second in 39 pairs.
    let last = overlaps_of("copy-39");
    assert_eq!(last.len(), 6, "{last:#?}");
    assert_eq!(
        last[5],
        "the description of `copy-39` competes with those of 34 more skills as well (`skillpath eval overlap` lists every pair)"
    );
    assert_eq!(overlaps_of("copy-03").len(), 3, "second in three pairs");

    // `create_skill` names five and counts the other 35.
    let text = create_skill(
        &skills,
        work.path(),
        "copy-new",
        "Fill in PDF forms and extract their form fields.",
    );
    assert_eq!(
        text.matches("- description-overlap: the description of `copy-new` competes with `")
            .count(),
        5,
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "competes with those of {} more skills as well",
            COPIES - 5
        )),
        "{text}"
    );
}

/// Three skills that share no word with the queries of the model's tests: baking, taxes, and
/// `deploy-service` (with `deploy_evals` as its trigger evals).
pub(crate) fn meaning_library(root: &Path, deploy_evals: Option<Value>) {
    skill(
        root,
        "bread-baking",
        "Knead dough and bake loaves of bread in an oven.",
        None,
    );
    skill(
        root,
        "tax-filing",
        "Prepare annual income tax returns for a household.",
        None,
    );
    skill(
        root,
        "deploy-service",
        "Ship a web service to production servers.",
        deploy_evals,
    );
}

/// `--embeddings`: queries that share no word with the right skill, which the search alone
/// cannot find, are found by meaning with the static model distilled from a real encoder; a
/// near miss goes to the skill it is about, not to the one under test.
#[test]
fn the_embedding_model_finds_by_meaning_what_shares_no_word() {
    let work = tempfile::tempdir().expect("tempdir");
    let root = work.path().join("skills");
    meaning_library(
        &root,
        Some(json!([
            {"query": "release my app to the cloud", "should_trigger": true},
            {"query": "put the new version live for customers", "should_trigger": true},
            {"query": "make sourdough at home", "should_trigger": false}
        ])),
    );
    let root = root.display().to_string();
    let model = crate::support::embeddings_model().display().to_string();
    let report = |extra: &[&str]| -> Value {
        let mut args = vec!["eval", "triggers", root.as_str(), "--format", "json"];
        args.extend(extra);
        let run = in_empty_home(&args);
        assert_eq!(run.code, 0, "{}", run.stderr);
        serde_json::from_str(&run.stdout).expect("JSON")
    };
    let alone = report(&[]);
    let deploy = skill_of(&alone, "deploy-service");
    assert_eq!(deploy["recall_at_1"], 0.0, "{deploy}");
    assert_eq!(
        deploy["missed"][0]["first"],
        Value::Null,
        "no word in common: {deploy}"
    );
    let fused = report(&["--embeddings", &model]);
    let deploy = skill_of(&fused, "deploy-service");
    assert_eq!(deploy["recall_at_1"], 1.0, "{deploy}");
    assert_eq!(deploy["mrr"], 1.0, "{deploy}");
    assert_eq!(
        deploy["false_triggers"],
        json!([]),
        "sourdough is bread's: {deploy}"
    );

    // A folder that is not a model is refused, naming the file, before anything runs.
    let refused = in_empty_home(&["eval", "triggers", &root, "--embeddings", &root]);
    assert_eq!(refused.code, 2, "{}", refused.stderr);
    assert!(
        refused.stderr.contains("config.json`: No such file"),
        "{}",
        refused.stderr
    );
}
