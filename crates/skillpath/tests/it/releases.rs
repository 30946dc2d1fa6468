//! Releases from the command line, on SQLite and PostgreSQL: `release` with notes and tags,
//! the version rules and the rule that a breaking change takes a major version (each refusal
//! exit 1 with what to do), `--force` with a reason in the log, `tag`, `yank` (refused while
//! tagged), `releases` in text and JSON, and `diff` between two released versions.

use std::path::Path;

use serde_json::Value;
use skillpath_test_support::{RunExt, json};

use std::time::{Duration, Instant};

use serde_json::json;

use skillpath_test_support::http::{form, header, status};
use skillpath_test_support::studio::{get, post, token_of};

use crate::postgres_support::Schema;
use crate::sessions::Session;
use crate::support::{HttpServer, rpc, sign_in, skillpath};

fn ok(db: &str, args: &[&str]) -> String {
    skillpath(args).args(["--db", db]).ok_stdout()
}

fn refused(db: &str, args: &[&str]) -> String {
    let run = skillpath(args).args(["--db", db]).run();
    run.exited(1);
    run.stderr
}

/// Writes the `deploy` skill with `args` (YAML list items) into `folder` and imports it: the
/// item's next revision.
fn import_deploy(db: &str, folder: &Path, args: &str) {
    let skill = folder.join("deploy");
    std::fs::create_dir_all(&skill).expect("a folder");
    std::fs::write(
        skill.join("SKILL.md"),
        format!(
            "---\nname: deploy\ndescription: Use when deploying a service.\nargs:\n{args}---\n\nDeploy {{ServiceName}} to {{Region}}.\n"
        ),
    )
    .expect("a SKILL.md");
    ok(db, &["import", folder.to_str().expect("utf-8")]);
}

const SERVICE: &str = "  - name: service_name\n    required: true\n";
const REGION: &str = "  - name: region\n    enum: [eu, us]\n";
const NOTES: &str = "  - name: notes\n";

fn scenario(db: &str) {
    let work = tempfile::tempdir().expect("tempdir");
    import_deploy(db, work.path(), &format!("{SERVICE}{REGION}"));
    let first = json(&ok(
        db,
        &[
            "release", "deploy", "1.0.0", "--notes", "first", "--tag", "stable", "--format", "json",
        ],
    ));
    assert_eq!(
        (&first["version"], &first["revision"], &first["notes"]),
        (
            &Value::from("1.0.0"),
            &Value::from(1),
            &Value::from("first")
        )
    );
    // A compatible change (a new optional argument) is a minor release.
    import_deploy(db, work.path(), &format!("{SERVICE}{REGION}{NOTES}"));
    ok(db, &["release", "deploy", "1.1.0"]);
    // Dropping `region` breaks calls: refused as a minor release, fine as a major one.
    import_deploy(db, work.path(), &format!("{SERVICE}{NOTES}"));
    let breaking = refused(db, &["release", "deploy", "1.2.0"]);
    assert!(
        breaking.contains("the argument `region` was removed")
            && breaking.contains("release it as 2.0.0"),
        "{breaking}"
    );
    ok(
        db,
        &["release", "deploy", "2.0.0", "--notes", "region is gone"],
    );
    // Versions are never reused and climb their line, unless forced with a reason.
    assert!(refused(db, &["release", "deploy", "1.1.0"]).contains("released already"));
    let lower = refused(db, &["release", "deploy", "1.0.5", "--revision", "1"]);
    assert!(lower.contains("not higher than 1.1.0"), "{lower}");
    ok(
        db,
        &[
            "release",
            "deploy",
            "1.0.5",
            "--revision",
            "1",
            "--force",
            "a hotfix for 1.0 users",
        ],
    );
    let bad = skillpath(&["release", "deploy", "one", "--db", db]).run();
    bad.exited(2);
    assert!(
        bad.stderr.contains("not a semver version"),
        "{}",
        bad.stderr
    );

    // Tags move; a tagged release is yanked only once its tags move off it.
    ok(db, &["tag", "deploy", "stable", "1.1.0"]);
    let tagged = refused(db, &["yank", "deploy", "1.1.0", "--reason", "bad"]);
    assert!(tagged.contains("tagged stable"), "{tagged}");
    ok(db, &["tag", "deploy", "stable", "1.0.5"]);
    ok(
        db,
        &["yank", "deploy", "1.1.0", "--reason", "it drops the notes"],
    );
    let listed = json(&ok(db, &["releases", "deploy", "--format", "json"]));
    let versions: Vec<&str> = listed["releases"]
        .as_array()
        .expect("releases")
        .iter()
        .filter_map(|release| release["version"].as_str())
        .collect();
    assert_eq!(versions, ["1.0.0", "1.0.5", "1.1.0", "2.0.0"]);
    assert_eq!(
        listed["releases"][2]["yanked"]["reason"],
        "it drops the notes"
    );
    assert_eq!(
        listed["tags"],
        serde_json::json!([["latest", "2.0.0"], ["stable", "1.0.5"]])
    );
    let text = ok(db, &["releases", "deploy"]);
    assert!(
        text.contains("yanked: it drops the notes") && text.contains("stable → 1.0.5"),
        "{text}"
    );

    // The diff between two released versions is the diff of their revisions.
    let diff = json(&ok(
        db,
        &["diff", "deploy", "1.0.0", "2.0.0", "--format", "json"],
    ));
    assert_eq!(
        (&diff["from"], &diff["to"]),
        (&Value::from(1), &Value::from(3))
    );
    assert!(
        diff["diff"]
            .as_str()
            .is_some_and(|d| d.contains("-  - name: region")),
        "{diff}"
    );
    assert!(refused(db, &["diff", "deploy", "9.9.9"]).contains("no release 9.9.9"));

    // The log holds every release, the forced one with its reason, and every tag move.
    let log = json(&ok(db, &["log", "--format", "json"]));
    let entries = log.as_array().expect("entries");
    let forced = entries
        .iter()
        .find(|entry| entry["target"] == "@global/deploy@1.0.5")
        .expect("the forced release");
    assert!(
        forced["after"]
            .to_string()
            .contains("a hotfix for 1.0 users"),
        "{forced}"
    );
    assert!(
        entries
            .iter()
            .any(|entry| entry["action"] == "release.yank")
    );
    let verified = json(&ok(db, &["log", "verify", "--format", "json"]));
    assert_eq!(verified["ok"], true);
}

#[test]
fn releases_from_the_command_line_on_sqlite() {
    let work = tempfile::tempdir().expect("tempdir");
    let db = work.path().join("store.db");
    scenario(db.to_str().expect("utf-8"));
}

#[test]
fn releases_from_the_command_line_on_postgres() {
    let schema = Schema::create("releases");
    scenario(&schema.url());
}

/// Writes `deploy` with `description` and `body` into `folder` and imports it.
fn import_text(db: &str, folder: &Path, description: &str, body: &str) {
    let skill = folder.join("deploy");
    std::fs::create_dir_all(&skill).expect("a folder");
    std::fs::write(
        skill.join("SKILL.md"),
        format!("---\nname: deploy\ndescription: {description}\n---\n\n{body}\n"),
    )
    .expect("a SKILL.md");
    ok(db, &["import", folder.to_str().expect("utf-8")]);
}

/// What `deploy` renders to on `server`, and the version `get_skill` says is served.
fn served(server: &HttpServer) -> (String, Value) {
    let (_, _, called) = rpc(
        server,
        None,
        "tools/call",
        json!({"name": "deploy", "arguments": {}}),
    );
    let text = called["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    let (_, _, got) = rpc(
        server,
        None,
        "tools/call",
        json!({"name": "get_skill", "arguments": {"name": "deploy"}}),
    );
    let got = json(
        got["result"]["content"][0]["text"]
            .as_str()
            .unwrap_or("null"),
    );
    (text, got["served"]["version"].clone())
}

/// Three servers on one database, each following a channel, serve each its own version side
/// by side (`stable`: the tag's release; the default `latest`: the highest release; `head`:
/// the current revision, released or not); a tag moved on the command line reaches the
/// `stable` server at once, its clients told (`list_changed` for the changed description,
/// `resources/updated` for the subscribed `SKILL.md`).
fn channels(db: &str) {
    let work = tempfile::tempdir().expect("tempdir");
    import_text(
        db,
        work.path(),
        "Use when deploying, the first way.",
        "The first way.",
    );
    ok(db, &["release", "deploy", "1.0.0", "--tag", "stable"]);
    import_text(
        db,
        work.path(),
        "Use when deploying, the second way.",
        "The second way.",
    );
    ok(db, &["release", "deploy", "1.1.0"]);
    import_text(
        db,
        work.path(),
        "Use when deploying, the third way.",
        "The third way.",
    );
    let dirs: Vec<tempfile::TempDir> = (0..4)
        .map(|_| tempfile::tempdir().expect("tempdir"))
        .collect();
    let stable = HttpServer::start(
        dirs[0].path(),
        &["--db", db, "--stateless", "--channel", "stable"],
    );
    // Keeps sessions, for a client with an open stream.
    let watched = HttpServer::start(dirs[3].path(), &["--db", db, "--channel", "stable"]);
    let latest = HttpServer::start(dirs[1].path(), &["--db", db, "--stateless"]);
    let head = HttpServer::start(
        dirs[2].path(),
        &["--db", db, "--stateless", "--channel", "head"],
    );
    let (text, version) = served(&stable);
    assert!(text.contains("The first way."), "{text}");
    assert_eq!(version, "1.0.0");
    let (text, version) = served(&latest);
    assert!(text.contains("The second way."), "{text}");
    assert_eq!(version, "1.1.0");
    let (text, version) = served(&head);
    assert!(text.contains("The third way."), "{text}");
    assert_eq!(version, Value::Null);

    // A client of the `stable` server, subscribed to the skill's `SKILL.md`, hears the move.
    let session = Session::open(&watched);
    let subscribe = json!({"jsonrpc": "2.0", "id": 7, "method": "resources/subscribe",
        "params": {"uri": "skill://deploy/SKILL.md"}});
    assert_eq!(session.post(&subscribe).status, 200);
    let heard = session.notifications();
    ok(db, &["tag", "deploy", "stable", "1.1.0"]);
    let start = Instant::now();
    let mut methods = Vec::new();
    while !(methods
        .iter()
        .any(|m: &String| m.ends_with("tools/list_changed"))
        && methods
            .iter()
            .any(|m: &String| m.ends_with("resources/updated")))
    {
        let left = Duration::from_secs(10).saturating_sub(start.elapsed());
        match heard.recv_timeout(left) {
            Ok(method) => methods.push(method),
            Err(_) => panic!("heard only {methods:?}"),
        }
    }
    let (text, version) = served(&stable);
    assert!(text.contains("The second way."), "{text}");
    assert_eq!(version, "1.1.0");
    let bad = skillpath(&["serve", "--channel", "Not A Tag", "--db", db]).run();
    bad.exited(2);
    assert!(bad.stderr.contains("not a tag name"), "{}", bad.stderr);
}

#[test]
fn channels_are_served_side_by_side_on_sqlite() {
    let work = tempfile::tempdir().expect("tempdir");
    let db = work.path().join("store.db");
    channels(db.to_str().expect("utf-8"));
}

#[test]
fn channels_are_served_side_by_side_on_postgres() {
    let schema = Schema::create("channels");
    channels(&schema.url());
}

/// The studio lists an item's releases with their tags and what the server serves, and its
/// form releases the current revision; a refused release says why, and changes nothing.
#[test]
fn the_studio_lists_and_makes_releases() {
    let work = tempfile::tempdir().expect("tempdir");
    let db = work.path().join("store.db");
    let db = db.to_str().expect("utf-8");
    import_text(db, work.path(), "Use when deploying.", "The first way.");
    ok(db, &["users", "create", "mia"]);
    ok(
        db,
        &["members", "add", "@global", "mia", "--role", "maintainer"],
    );
    let key = |role: &str| {
        let name = format!("mia-{role}");
        let args = [
            "keys", "create", "--name", &name, "--user", "mia", "--role", role, "--format", "json",
        ];
        json(&ok(db, &args))["key"]
            .as_str()
            .expect("a key")
            .to_owned()
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let server = HttpServer::start(dir.path(), &["--db", db, "--auth", "required"]);
    // An author's key sees the releases and no form.
    let authors = sign_in(&server, &key("author"));
    let first = get(&server.address, "/skills/deploy", &authors);
    assert!(first.contains("No release yet"), "{first}");
    assert!(!first.contains(">Release<"), "{first}");
    let cookie = sign_in(&server, &key("maintainer"));
    let release = |version: &str, tags: &str| {
        let page = get(&server.address, "/skills/deploy", &cookie);
        post(
            &server.address,
            "/skills/deploy/release",
            Some(&cookie),
            &[],
            &form(&[
                ("csrf", &token_of(&page)),
                ("version", version),
                ("notes", "The first release."),
                ("tags", tags),
            ]),
        )
    };
    let made = release("1.0.0", "stable, beta");
    assert_eq!(status(&made), 303, "{made}");
    assert_eq!(header(&made, "location"), Some("/skills/deploy"));
    let page = get(&server.address, "/skills/deploy", &cookie);
    for shown in [
        "<strong>1.0.0</strong>",
        ">latest<",
        ">stable<",
        ">beta<",
        "The first release.",
        "This server serves 1.0.0 (revision 1), on its channel `latest`.",
    ] {
        assert!(page.contains(shown), "{shown}: {page}");
    }
    let again = release("1.0.0", "");
    assert_eq!(status(&again), 409, "{again}");
    assert!(again.contains("released already"), "{again}");
    let listed = json(&ok(db, &["releases", "deploy", "--format", "json"]));
    assert_eq!(listed["releases"].as_array().map(Vec::len), Some(1));
}
