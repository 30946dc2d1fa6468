//! `--embeddings DIR` on `serve` and `search`: searches rank by the words they match fused
//! with the skills nearest by meaning (the static model distilled from a real encoder,
//! `SKILLPATH_TEST_EMBEDDINGS`), over MCP and on the command line, and a skill written while
//! serving is found by meaning at once.

use std::path::Path;

use serde_json::{Value, json};

use crate::support::{HttpServer, call_tool, embeddings_model, run_in};

/// The first skill a `search_skills` answer lists, and its `match:` line.
fn first_hit(answer: &str) -> (String, String) {
    let mut lines = answer.lines().skip_while(|line| !line.starts_with("- "));
    let name = lines
        .next()
        .and_then(|line| line.strip_prefix("- "))
        .and_then(|line| line.split(':').next())
        .unwrap_or_default()
        .to_owned();
    let matched = lines
        .next()
        .and_then(|line| line.trim().strip_prefix("match: "))
        .unwrap_or_default()
        .to_owned();
    (name, matched)
}

fn search_skills(server: &HttpServer, query: &str) -> String {
    let (failed, text) = call_tool(&server.address, "search_skills", json!({"query": query}))
        .expect("search_skills answers");
    assert!(!failed, "{text}");
    text
}

/// `skillpath search … --format json` on the server's store.
fn search_cli(work: &Path, query: &str, extra: &[&str]) -> Vec<Value> {
    let mut args = vec!["search", query, "--format", "json"];
    args.extend(extra);
    let (code, stdout, stderr) = run_in(work, &args);
    assert_eq!(code, 0, "{stderr}");
    serde_json::from_str(&stdout).expect("JSON hits")
}

#[test]
fn serve_and_search_find_by_meaning_what_shares_no_word() {
    let work = tempfile::tempdir().expect("tempdir");
    let root = work.path().join("skills");
    crate::eval::meaning_library(&root, None);
    let root = root.display().to_string();
    let model = embeddings_model().display().to_string();
    let no_word = "release my app to the cloud";

    // Without a model, nothing shares a word with the query.
    let plain = HttpServer::start(work.path(), &["--stateless", "--skills", &root]);
    assert!(
        search_skills(&plain, no_word).starts_with("No skill matches"),
        "{}",
        search_skills(&plain, no_word)
    );
    drop(plain);

    let server = HttpServer::start(
        work.path(),
        &["--stateless", "--skills", &root, "--embeddings", &model],
    );
    let answer = search_skills(&server, no_word);
    assert!(
        answer.starts_with(&format!(
            "No skill matches the words of `{no_word}`; the nearest by meaning:\n"
        )),
        "{answer}"
    );
    assert_eq!(
        first_hit(&answer),
        ("deploy-service".to_owned(), "(by meaning)".to_owned()),
        "{answer}"
    );
    // A query whose words match keeps the search's first and its snippet.
    let answer = search_skills(&server, "bake bread");
    let (first, matched) = first_hit(&answer);
    assert_eq!(first, "bread-baking", "{answer}");
    assert!(matched.contains("[bread]"), "{answer}");
    // Made-up words have neighbours too (their word pieces are known): the answer says that
    // no word matched.
    let answer = search_skills(&server, "zzzqqxv");
    assert!(
        answer.starts_with("No skill matches the words of `zzzqqxv`; the nearest by meaning:\n- "),
        "{answer}"
    );

    // A skill written while serving is embedded with the catalog's refresh and found at once.
    let (failed, text) = call_tool(
        &server.address,
        "create_skill",
        json!({"name": "garden-care", "description": "Water the plants and prune the roses in a garden."}),
    )
    .expect("create_skill answers");
    assert!(!failed, "{text}");
    let answer = search_skills(&server, "look after my flowers");
    assert_eq!(first_hit(&answer).0, "garden-care", "{answer}");
    drop(server);

    // `skillpath search` ranks the same way on the same store, with `--embeddings`.
    assert_eq!(search_cli(work.path(), no_word, &[]), Vec::<Value>::new());
    let hits = search_cli(work.path(), no_word, &["--embeddings", &model]);
    assert_eq!(hits[0]["name"], "deploy-service", "{hits:?}");
    assert_eq!(hits[0]["snippet"], "", "{hits:?}");
    let hits = search_cli(
        work.path(),
        "look after my flowers",
        &["--embeddings", &model],
    );
    assert_eq!(hits[0]["name"], "garden-care", "{hits:?}");

    // A folder that is not a model is refused before the server starts, naming the file.
    let (code, _, stderr) = run_in(
        work.path(),
        &["serve", "--no-discover", "--embeddings", &root],
    );
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("config.json`: No such file"), "{stderr}");
}
