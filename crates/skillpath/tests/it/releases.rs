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
    served_to(server, None)
}

/// [`served`], to the caller of `key`.
fn served_to(server: &HttpServer, key: Option<&str>) -> (String, Value) {
    let (_, _, called) = rpc(
        server,
        key,
        "tools/call",
        json!({"name": "deploy", "arguments": {}}),
    );
    let text = called["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    let (_, _, got) = rpc(
        server,
        key,
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
    // `skills/list` and the discovery index say the version served, or nothing for `head`.
    let listed_version = |server: &HttpServer, key: Option<&str>| {
        let (_, _, listed) = rpc(server, key, "skills/list", json!({}));
        listed["result"]["skills"][0]["_meta"]["io.skillpath/release"].clone()
    };
    assert_eq!(
        listed_version(&stable, None),
        json!({"version": "1.0.0", "channel": "stable"})
    );
    assert_eq!(listed_version(&head, None), Value::Null);
    let index = |server: &HttpServer| {
        let answer = server.exchange("GET", "/.well-known/agent-skills/index.json", &[], b"");
        let body = match (answer.find('{'), answer.rfind('}')) {
            (Some(start), Some(end)) => &answer[start..=end],
            _ => "",
        };
        json(body)["skills"][0].clone()
    };
    assert_eq!(index(&latest)["version"], "1.1.0");
    assert_eq!(index(&stable)["channel"], "stable");
    // A key that follows `stable` is served it by the `latest` server, beside callers without.
    ok(db, &["users", "create", "sam"]);
    ok(
        db,
        &["members", "add", "@global", "sam", "--role", "reader"],
    );
    let created = ok(
        db,
        &[
            "keys",
            "create",
            "--name",
            "sam-stable",
            "--user",
            "sam",
            "--role",
            "reader",
            "--channel",
            "stable",
            "--format",
            "json",
        ],
    );
    let key = json(&created)["key"].as_str().expect("a key").to_owned();
    assert_eq!(json(&created)["channel"], "stable");
    let (text, version) = served_to(&latest, Some(&key));
    assert!(text.contains("The first way."), "{text}");
    assert_eq!(version, "1.0.0");
    assert_eq!(
        listed_version(&latest, Some(&key)),
        json!({"version": "1.0.0", "channel": "stable"})
    );
    let (text, _) = served(&latest);
    assert!(text.contains("The second way."), "{text}");

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

/// Agents calling a skill while its tag moves back and forth on the command line, on another
/// process: every answer is one release's whole rendering, never a mix or a failure.
fn tag_moved_mid_call(db: &str) {
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
    let dir = tempfile::tempdir().expect("tempdir");
    let server = HttpServer::start(
        dir.path(),
        &["--db", db, "--stateless", "--channel", "stable"],
    );
    let (first, _) = served(&server);
    assert!(first.contains("The first way."), "{first}");
    ok(db, &["tag", "deploy", "stable", "1.1.0"]);
    let second = loop {
        let (text, _) = served(&server);
        if text.contains("The second way.") {
            break text;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let done = std::sync::atomic::AtomicBool::new(false);
    let answers = std::thread::scope(|scope| {
        let callers: Vec<_> = (0..3)
            .map(|_| {
                scope.spawn(|| {
                    let mut seen = Vec::new();
                    while !done.load(std::sync::atomic::Ordering::Relaxed) {
                        seen.push(served(&server).0);
                    }
                    seen
                })
            })
            .collect();
        for version in ["1.0.0", "1.1.0", "1.0.0", "1.1.0", "1.0.0", "1.1.0"] {
            ok(db, &["tag", "deploy", "stable", version]);
            std::thread::sleep(Duration::from_millis(150));
        }
        done.store(true, std::sync::atomic::Ordering::Relaxed);
        callers
            .into_iter()
            .flat_map(|caller| caller.join().expect("a caller"))
            .collect::<Vec<String>>()
    });
    assert!(answers.len() > 10, "{} answers", answers.len());
    for answer in &answers {
        assert!(
            *answer == first || *answer == second,
            "a mixed answer: {answer}"
        );
    }
    assert!(answers.contains(&first) && answers.contains(&second));
}

#[test]
fn a_tag_moved_mid_call_gives_whole_answers_on_sqlite() {
    let work = tempfile::tempdir().expect("tempdir");
    let db = work.path().join("store.db");
    tag_moved_mid_call(db.to_str().expect("utf-8"));
}

#[test]
fn a_tag_moved_mid_call_gives_whole_answers_on_postgres() {
    let schema = Schema::create("tag_mid_call");
    tag_moved_mid_call(&schema.url());
}

/// The studio lists an item's releases with their tags and what the visitor's channel serves;
/// a maintainer's form releases the current revision, yanks a release and moves a tag, and an
/// author's, where the namespace reviews, proposes a release, which the maintainer releases or
/// declines from the page; a refused release says why, and changes nothing.
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
    let server = HttpServer::start(
        dir.path(),
        &["--db", db, "--auth", "required", "--review", "off"],
    );
    // An author's key sees the releases and no form where nothing reviews.
    let authors = sign_in(&server, &key("author"));
    let first = get(&server.address, "/skills/deploy", &authors);
    assert!(first.contains("No release yet"), "{first}");
    assert!(!first.contains(">Release<"), "{first}");
    assert!(!first.contains("Propose for review"), "{first}");
    let cookie = sign_in(&server, &key("maintainer"));
    let act = |cookie: &str, action: &str, fields: &[(&str, &str)]| {
        let page = get(&server.address, "/skills/deploy", cookie);
        let token = token_of(&page);
        let mut all = vec![("csrf", token.as_str())];
        all.extend_from_slice(fields);
        post(
            &server.address,
            &format!("/skills/deploy/{action}"),
            Some(cookie),
            &[],
            &form(&all),
        )
    };
    let release = |version: &str, tags: &str| {
        act(
            &cookie,
            "release",
            &[
                ("version", version),
                ("notes", "The first release."),
                ("tags", tags),
            ],
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
        "Agents on the channel `latest` (yours) are served 1.0.0 (revision 1).",
    ] {
        assert!(page.contains(shown), "{shown}: {page}");
    }
    let again = release("1.0.0", "");
    assert_eq!(status(&again), 409, "{again}");
    assert!(again.contains("released already"), "{again}");
    let listed = json(&ok(db, &["releases", "deploy", "--format", "json"]));
    assert_eq!(listed["releases"].as_array().map(Vec::len), Some(1));

    // A second release; `stable` moved to it from the page, then back (the rollback); the
    // first yanked once no tag points at it.
    import_text(db, work.path(), "Use when deploying.", "The second way.");
    assert_eq!(status(&release("1.1.0", "")), 303);
    let moved = act(&cookie, "tag", &[("tag", "stable"), ("version", "1.1.0")]);
    assert_eq!(status(&moved), 303, "{moved}");
    let tagged = |tag: &str| {
        let listed = json(&ok(db, &["releases", "deploy", "--format", "json"]));
        listed["tags"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|pair| pair[0] == tag)
            .map(|pair| pair[1].clone())
    };
    assert_eq!(tagged("stable"), Some(json!("1.1.0")));
    let tagged_yank = act(&cookie, "yank", &[("version", "1.0.0"), ("reason", "bad")]);
    assert_eq!(
        status(&tagged_yank),
        409,
        "`beta` points at it: {tagged_yank}"
    );
    assert!(tagged_yank.contains("is tagged beta"), "{tagged_yank}");
    let moved = act(&cookie, "tag", &[("tag", "beta"), ("version", "1.1.0")]);
    assert_eq!(status(&moved), 303, "{moved}");
    let untagged_yank = act(&cookie, "yank", &[("version", "1.0.0"), ("reason", "bad")]);
    assert_eq!(status(&untagged_yank), 303, "{untagged_yank}");
    let yanked = json(&ok(db, &["releases", "deploy", "--format", "json"]));
    assert_eq!(yanked["releases"][0]["yanked"]["reason"], "bad", "{yanked}");
    let onto_yanked = act(&cookie, "tag", &[("tag", "stable"), ("version", "1.0.0")]);
    assert_eq!(status(&onto_yanked), 409, "{onto_yanked}");
    assert!(onto_yanked.contains("is yanked"), "{onto_yanked}");
    // Where `@global` reviews, the author proposes; the maintainer declines one, releases one.
    let hidden = act(
        &authors,
        "yank",
        &[("version", "1.1.0"), ("reason", "mine")],
    );
    assert_eq!(status(&hidden), 409, "an author yanks nothing: {hidden}");
    ok(db, &["namespaces", "review", "@global", "drafts"]);
    // The server hears the command line's change at its next look at the store.
    let start = Instant::now();
    let page = loop {
        let page = get(&server.address, "/skills/deploy", &authors);
        if page.contains("Propose for review") || start.elapsed() > Duration::from_secs(10) {
            break page;
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    assert!(page.contains("Propose for review"), "{page}");
    assert!(!page.contains(">Yank<"), "{page}");
    let proposals = [("1.2.0", "Not this one."), ("1.3.0", "This one.")];
    for (version, notes) in proposals {
        let proposed = act(
            &authors,
            "release",
            &[("version", version), ("notes", notes)],
        );
        assert_eq!(status(&proposed), 303, "{proposed}");
    }
    let page = get(&server.address, "/skills/deploy", &cookie);
    assert!(
        page.contains("proposed by mia") && page.contains("Not this one."),
        "{page}"
    );
    let declined = act(
        &cookie,
        "decline",
        &[("version", "1.2.0"), ("reason", "later")],
    );
    assert_eq!(status(&declined), 303, "{declined}");
    let accepted = act(&cookie, "release", &[("version", "1.3.0")]);
    assert_eq!(status(&accepted), 303, "{accepted}");
    let listed = json(&ok(db, &["releases", "deploy", "--format", "json"]));
    let versions: Vec<&str> = listed["releases"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|release| release["version"].as_str())
        .collect();
    assert_eq!(versions, ["1.0.0", "1.1.0", "1.3.0"], "{listed}");
    assert_eq!(listed["releases"][2]["notes"], "This one.");
    assert_eq!(listed["proposals"], json!([]));
}
