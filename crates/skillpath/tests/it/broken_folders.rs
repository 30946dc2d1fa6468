//! Real skill folders hold broken things beside good skills: fixtures named `SKILL.md`,
//! half-written skills, FIFOs, symlinks out, editors' lock files. Every broken folder is
//! skipped with its own diagnostic (which names its file), every good skill is imported and
//! served, nothing hangs, and a served skill edited into a broken state keeps its last good
//! revision until it is fixed. Drives the real binary: `import`, `serve` over stdio and HTTP,
//! and the watcher.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::mcp_wire::Server;
use crate::support::{HttpServer, call_tool, run_in as skillpath};

/// A good skill's `SKILL.md`.
fn good(name: &str, description: &str) -> String {
    format!("---\nname: {name}\ndescription: {description}\n---\n# {name}\n")
}

fn write(path: &Path, bytes: impl AsRef<[u8]>) {
    fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
    fs::write(path, bytes).expect("write");
}

fn mkfifo(path: &Path) {
    fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
    let made = Command::new("mkfifo").arg(path).status().expect("mkfifo");
    assert!(made.success(), "mkfifo {}", path.display());
}

/// A tree of good skills and, beside them, every kind of broken skill folder: the folder
/// (relative to the tree) of each broken one with the code it must be skipped for, and the
/// names of the good ones.
fn messy_tree(root: &Path) -> (BTreeMap<String, &'static str>, BTreeSet<String>) {
    let mut good_names = BTreeSet::new();
    let mut add_good = |folder: &str, text: String| {
        write(&root.join(folder).join("SKILL.md"), text);
        good_names.insert(folder.rsplit('/').next().unwrap_or(folder).to_owned());
    };
    add_good(
        "alpha",
        good("alpha", "Use when testing the first good skill."),
    );
    add_good(
        "beta",
        good("beta", "Use when testing the second good skill."),
    );
    // Loads with warnings: a FIFO, a symlink out, an editor's lock file among its files, and a
    // name that does not match its folder (lenient loading: warn, load).
    add_good(
        "gamma",
        good("gamma", "Use when testing a skill with odd files."),
    );
    mkfifo(&root.join("gamma/pipe"));
    std::os::unix::fs::symlink("/etc/hostname", root.join("gamma/host")).expect("symlink");
    std::os::unix::fs::symlink("user@host.1234", root.join("gamma/.#SKILL.md")).expect("symlink");
    write(
        &root.join("delta-folder/SKILL.md"),
        good("delta", "Use when the name does not match the folder."),
    );
    good_names.insert("delta".to_owned());

    let mut broken = BTreeMap::new();
    let mut add_broken = |folder: &str, code: &'static str, bytes: &[u8]| {
        write(&root.join(folder).join("SKILL.md"), bytes);
        broken.insert(folder.to_owned(), code);
    };
    // The fixture of a good skill, deep in its assets.
    add_broken(
        "alpha/assets/fixture",
        "frontmatter-missing",
        b"# A sample SKILL.md\n",
    );
    add_broken(
        "unclosed",
        "frontmatter-unclosed",
        b"---\nname: unclosed\ndescription: x\n",
    );
    add_broken(
        "bad-yaml",
        "yaml-syntax",
        b"---\nname: bad-yaml\ndescription: [unclosed\n---\n",
    );
    add_broken(
        "no-name",
        "name-missing",
        b"---\ndescription: Use when x.\n---\n",
    );
    add_broken(
        "no-description",
        "description-missing",
        b"---\nname: no-description\n---\n",
    );
    add_broken(
        "not-utf8",
        "invalid-utf8",
        b"---\nname: not-utf8\ndescription: caf\xe9\n---\n",
    );
    add_broken(
        "nul",
        "nul-character",
        b"---\nname: nul\ndescription: Use when x.\n---\na\0b\n",
    );
    add_broken("empty", "frontmatter-missing", b"");
    let huge = format!(
        "{}{}",
        good("huge", "Use when x."),
        "x".repeat(5 * 1024 * 1024)
    );
    add_broken("huge", "file-too-large", huge.as_bytes());
    // A `SKILL.md` that is a folder, a FIFO, and a symlink out of its skill.
    fs::create_dir_all(root.join("dir-skill-md/SKILL.md")).expect("mkdir");
    broken.insert("dir-skill-md".to_owned(), "skill-md-not-a-file");
    mkfifo(&root.join("fifo-skill-md/SKILL.md"));
    broken.insert("fifo-skill-md".to_owned(), "skill-md-unreadable");
    let outside = root.parent().expect("a parent").join("outside-SKILL.md");
    write(&outside, good("linked-out", "Use when x."));
    fs::create_dir_all(root.join("linked-out")).expect("mkdir");
    std::os::unix::fs::symlink(&outside, root.join("linked-out/SKILL.md")).expect("symlink");
    broken.insert("linked-out".to_owned(), "file-symlink-left-out");
    // A file over the store's limit among a skill's files.
    write(
        &root.join("big-asset/SKILL.md"),
        good("big-asset", "Use when x."),
    );
    let big = fs::File::create(root.join("big-asset/data.bin")).expect("create");
    big.set_len(16 * 1024 * 1024 + 1).expect("grow");
    broken.insert("big-asset".to_owned(), "file-too-large");
    (broken, good_names)
}

fn stored_names(dir: &Path) -> BTreeSet<String> {
    let (code, stdout, stderr) = skillpath(dir, &["list", "--format", "json"]);
    assert_eq!(code, 0, "{stderr}");
    let listed: Value = serde_json::from_str(&stdout).expect("json");
    listed["items"]
        .as_array()
        .expect("a list")
        .iter()
        .map(|skill| skill["name"].as_str().expect("name").to_owned())
        .collect()
}

/// Checks that `skipped` (the JSON form of skipped folders) names exactly the `broken`
/// folders under `root`, each for its code, with every diagnostic placed in a file of its
/// folder.
fn assert_skipped_exactly(skipped: &Value, root: &Path, broken: &BTreeMap<String, &str>) {
    let skipped = skipped.as_array().expect("skipped folders");
    let mut found = BTreeMap::new();
    for folder in skipped {
        let path = PathBuf::from(folder["path"].as_str().expect("path"));
        // Paths are as found: under `root` as given, or relative to the work folder.
        let tree = Path::new(root.file_name().expect("a tree folder"));
        let relative = path
            .strip_prefix(root)
            .or_else(|_| path.strip_prefix(tree))
            .unwrap_or(&path)
            .display()
            .to_string();
        let diagnostics = folder["diagnostics"].as_array().expect("diagnostics");
        assert!(!diagnostics.is_empty(), "{folder}");
        for diagnostic in diagnostics {
            let file = diagnostic["file"]
                .as_str()
                .unwrap_or_else(|| panic!("a diagnostic without a path: {diagnostic}"));
            assert!(
                Path::new(file).starts_with(&path),
                "{file} is not in {}",
                path.display()
            );
            assert!(
                diagnostic["message"]
                    .as_str()
                    .is_some_and(|m| !m.is_empty())
            );
        }
        let codes: Vec<&str> = diagnostics
            .iter()
            .filter_map(|d| d["code"].as_str())
            .collect();
        found.insert(
            relative,
            (folder["code"].as_str().map(str::to_owned), codes),
        );
    }
    let expected: BTreeSet<&String> = broken.keys().collect();
    let got: BTreeSet<&String> = found.keys().collect();
    assert_eq!(got, expected, "{skipped:#?}");
    for (folder, code) in broken {
        let (first, codes) = &found[folder];
        assert!(
            first.as_deref() == Some(*code) || codes.contains(code),
            "{folder}: expected {code}, got {codes:?}"
        );
    }
}

#[test]
fn import_skips_each_broken_folder_with_its_diagnostic_and_stores_every_good_skill() {
    let work = tempfile::tempdir().expect("tempdir");
    let tree = work.path().join("tree");
    let (broken, good_names) = messy_tree(&tree);

    let started = Instant::now();
    let (code, stdout, stderr) = skillpath(work.path(), &["import", "tree", "--format", "json"]);
    assert!(started.elapsed() < Duration::from_secs(30), "no hang");
    assert_eq!(code, 1, "some folders were skipped: {stderr}");
    let report: Value = serde_json::from_str(&stdout).expect("json report");
    assert_skipped_exactly(&report["skipped"], &tree, &broken);
    let created: BTreeSet<String> = report["created"]
        .as_array()
        .expect("created")
        .iter()
        .map(|name| name.as_str().expect("name").to_owned())
        .collect();
    assert_eq!(created, good_names);
    assert_eq!(stored_names(work.path()), good_names);
    // What loaded with warnings is said, not skipped.
    let warned: Vec<&str> = report["warnings"]
        .as_array()
        .expect("warnings")
        .iter()
        .flat_map(|folder| folder["diagnostics"].as_array().expect("diagnostics"))
        .filter_map(|d| d["code"].as_str())
        .collect();
    for code in [
        "file-not-regular",
        "file-symlink-left-out",
        "name-directory-mismatch",
    ] {
        assert!(warned.contains(&code), "{code} not in {warned:?}");
    }
    // stderr says each problem as `validate` does, with its file.
    for folder in broken.keys() {
        assert!(
            stderr.contains(&format!(" --> tree/{folder}/")),
            "{folder} is not named on stderr:\n{stderr}"
        );
    }
    // The text summary counts the skipped folders.
    let (code, stdout, _) = skillpath(work.path(), &["import", "tree"]);
    assert_eq!(code, 1);
    assert!(
        stdout.contains(&format!("{} skipped", broken.len())),
        "{stdout}"
    );
    // The stored gamma holds none of the files that were left out.
    let (_, stdout, _) = skillpath(work.path(), &["show", "gamma", "--format", "json"]);
    assert!(
        !stdout.contains("\"pipe\"") && !stdout.contains("\"host\""),
        "{stdout}"
    );
}

#[test]
fn strict_import_writes_nothing_and_names_the_folders_that_caused_it() {
    let work = tempfile::tempdir().expect("tempdir");
    let tree = work.path().join("tree");
    let (broken, _) = messy_tree(&tree);
    let (code, _, stderr) = skillpath(work.path(), &["import", "--strict", "tree"]);
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains("nothing was imported (`--strict`)"),
        "{stderr}"
    );
    for folder in broken.keys() {
        assert!(
            stderr.contains(&format!("error: cannot import `tree/{folder}`")),
            "{folder}:\n{stderr}"
        );
    }
    assert!(stored_names(work.path()).is_empty());
    // Without broken folders, `--strict` imports as usual and exits 0.
    let clean = work.path().join("clean");
    write(
        &clean.join("solo/SKILL.md"),
        good("solo", "Use when alone."),
    );
    let (code, _, stderr) = skillpath(work.path(), &["import", "--strict", "clean"]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(
        stored_names(work.path()),
        BTreeSet::from(["solo".to_owned()])
    );
}

#[test]
fn a_folder_of_ten_thousand_broken_skills_does_not_stop_the_good_one() {
    let work = tempfile::tempdir().expect("tempdir");
    let tree = work.path().join("tree");
    write(
        &tree.join("keeper/SKILL.md"),
        good("keeper", "Use when kept."),
    );
    for index in 0..10_000 {
        write(
            &tree.join(format!("broken/b{index:05}/SKILL.md")),
            format!("---\nname: b{index:05}\n---\n"),
        );
    }
    let (code, stdout, stderr) = skillpath(work.path(), &["import", "tree", "--format", "json"]);
    assert_eq!(code, 1, "{}", &stderr[..stderr.len().min(2000)]);
    let report: Value = serde_json::from_str(&stdout).expect("json");
    let skipped = report["skipped"].as_array().expect("skipped");
    assert_eq!(skipped.len(), 10_000);
    assert!(
        skipped
            .iter()
            .all(|folder| folder["code"] == "description-missing")
    );
    assert_eq!(report["created"], json!(["keeper"]));
}

#[test]
fn a_file_changing_while_it_is_read_never_stops_an_import() {
    let work = tempfile::tempdir().expect("tempdir");
    let tree = work.path().join("tree");
    write(
        &tree.join("steady/SKILL.md"),
        good("steady", "Use when steady."),
    );
    let flapping = tree.join("flapping/SKILL.md");
    write(&flapping, good("flapping", "Use when flapping."));
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let writer = {
        let stop = std::sync::Arc::clone(&stop);
        let flapping = flapping.clone();
        std::thread::spawn(move || {
            let full = good(
                "flapping",
                &format!("Use when {}.", "flapping ".repeat(2000)),
            );
            let mut round = 0usize;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                // Truncated at every length, then whole again.
                let cut = (round * 7919) % full.len();
                let _ = fs::write(&flapping, &full.as_bytes()[..cut]);
                let _ = fs::write(&flapping, &full);
                round += 1;
            }
        })
    };
    for _ in 0..10 {
        let (code, _, stderr) = skillpath(work.path(), &["import", "tree"]);
        assert!(code == 0 || code == 1, "exit {code}: {stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
        assert!(stored_names(work.path()).contains("steady"));
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    writer.join().expect("writer");
}

/// The `skipped_folders` of a `list_skills` answer.
fn skipped_folders(list_skills_text: &str) -> Value {
    let listed: Value = serde_json::from_str(list_skills_text).expect("list_skills is JSON");
    listed["skipped_folders"].clone()
}

#[test]
fn serve_over_stdio_starts_serves_every_good_skill_and_reports_each_broken_one() {
    let work = tempfile::tempdir().expect("tempdir");
    let tree = work.path().join("tree");
    let (broken, good_names) = messy_tree(&tree);
    let mut server = Server::start(&tree, work.path());
    let tools = server.request("tools/list", json!({}));
    let names: BTreeSet<String> = tools["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|tool| tool["name"].as_str().map(str::to_owned))
        .filter(|name| good_names.contains(name))
        .collect();
    assert_eq!(names, good_names);
    let listed = server.request(
        "tools/call",
        json!({"name": "list_skills", "arguments": {}}),
    );
    let text = listed["content"][0]["text"].as_str().expect("text");
    assert_skipped_exactly(&skipped_folders(text), &tree, &broken);
    // Said once at start: a line per problem, and a count.
    let log = server.log();
    for folder in broken.keys() {
        let lines = log
            .lines()
            .filter(|line| {
                line.starts_with("skillpath: skipped: ")
                    && line.contains(&format!("/tree/{folder}/"))
            })
            .count();
        assert!(lines >= 1, "{folder} is not reported:\n{log}");
    }
    assert!(log.contains(&format!("{} skipped", broken.len())), "{log}");
}

#[test]
fn serve_over_http_starts_serves_every_good_skill_and_reports_each_broken_one() {
    let work = tempfile::tempdir().expect("tempdir");
    let tree = work.path().join("tree");
    let (broken, good_names) = messy_tree(&tree);
    let tree_arg = tree.display().to_string();
    let server = HttpServer::start(
        work.path(),
        &["--stateless", "--skills", &tree_arg, "--tools", "per-skill"],
    );
    for name in &good_names {
        let (is_error, text) = call_tool(&server.address, name, json!({})).expect("call");
        assert!(!is_error, "{name}: {text}");
        assert!(text.contains(&format!("# {name}")), "{text}");
    }
    let (is_error, text) = call_tool(&server.address, "list_skills", json!({})).expect("call");
    assert!(!is_error, "{text}");
    assert_skipped_exactly(&skipped_folders(&text), &tree, &broken);
}

/// Polls `list_skills` until `ready` holds for its answer, or 10 seconds pass.
fn wait_for_listing(server: &mut Server, what: &str, ready: impl Fn(&Value) -> bool) -> Value {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let listed = server.request(
            "tools/call",
            json!({"name": "list_skills", "arguments": {}}),
        );
        let text = listed["content"][0]["text"].as_str().expect("text");
        let value: Value = serde_json::from_str(text).expect("json");
        if ready(&value) {
            return value;
        }
        assert!(Instant::now() < deadline, "never {what}: {value:#}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The description `list_skills` gives for `name`, if it lists it.
fn listed_description(listing: &Value, name: &str) -> Option<String> {
    listing["skills"]
        .as_array()?
        .iter()
        .find(|skill| skill["name"] == name)
        .and_then(|skill| skill["description"].as_str().map(str::to_owned))
}

fn skipped_codes(listing: &Value) -> Vec<String> {
    listing["skipped_folders"]
        .as_array()
        .map(|folders| {
            folders
                .iter()
                .filter_map(|folder| folder["code"].as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn a_served_skill_edited_into_a_broken_state_keeps_its_last_good_revision() {
    let work = tempfile::tempdir().expect("tempdir");
    let skills = work.path().join("skills");
    let alpha = skills.join("alpha");
    let last_good = "Use when testing the last good version.";
    write(&alpha.join("SKILL.md"), good("alpha", last_good));
    write(
        &skills.join("other/SKILL.md"),
        good("other", "Use when other."),
    );
    let mut server = Server::start(&skills, work.path());

    let broken_states: [(&str, &[u8]); 7] = [
        ("frontmatter-missing", b""),
        (
            "frontmatter-unclosed",
            b"---\nname: alpha\ndescription: half",
        ),
        ("yaml-syntax", b"---\nname: alpha\ndescription: [x\n---\n"),
        ("description-missing", b"---\nname: alpha\n---\n"),
        ("name-missing", b"---\ndescription: Use when x.\n---\n"),
        (
            "invalid-utf8",
            b"---\nname: alpha\ndescription: \xff\n---\n",
        ),
        (
            "nul-character",
            b"---\nname: alpha\ndescription: a\n---\n\0",
        ),
    ];
    for (code, text) in broken_states {
        fs::write(alpha.join("SKILL.md"), text).expect("write");
        let listing = wait_for_listing(&mut server, &format!("reported {code}"), |listing| {
            skipped_codes(listing).iter().any(|c| c == code)
        });
        assert_eq!(
            listed_description(&listing, "alpha").as_deref(),
            Some(last_good),
            "{code}: the last good revision is still served"
        );
        assert!(
            server.tool("alpha").is_some(),
            "{code}: alpha is still a tool"
        );
    }
    // The moment of an editor's save: `SKILL.md` moved away, then written again.
    fs::rename(alpha.join("SKILL.md"), alpha.join("SKILL.md~")).expect("rename");
    let listing = wait_for_listing(&mut server, "reported the missing SKILL.md", |listing| {
        skipped_codes(listing)
            .iter()
            .any(|c| c == "skill-md-missing")
    });
    assert_eq!(
        listed_description(&listing, "alpha").as_deref(),
        Some(last_good)
    );
    // A FIFO as `SKILL.md` is never opened.
    mkfifo(&alpha.join("SKILL.md"));
    let listing = wait_for_listing(&mut server, "reported the FIFO", |listing| {
        skipped_codes(listing)
            .iter()
            .any(|c| c == "skill-md-unreadable")
    });
    assert_eq!(
        listed_description(&listing, "alpha").as_deref(),
        Some(last_good)
    );
    fs::remove_file(alpha.join("SKILL.md")).expect("unlink");
    fs::remove_file(alpha.join("SKILL.md~")).expect("unlink");

    // Fixed: the new text is served and the report is gone.
    let fixed = "Use when testing the fixed version.";
    write(&alpha.join("SKILL.md"), good("alpha", fixed));
    // The catalog follows the store as soon as the fix is written; the folder report, a moment
    // later, when the watcher's sync returns.
    wait_for_listing(&mut server, "picked up the fix", |listing| {
        listed_description(listing, "alpha").as_deref() == Some(fixed)
            && skipped_codes(listing).is_empty()
    });
    server.log_when("said the recovery", |log| log.contains("loads again"));

    // Removing the folder is still a deletion.
    fs::remove_dir_all(&alpha).expect("remove");
    wait_for_listing(&mut server, "deleted alpha", |listing| {
        listed_description(listing, "alpha").is_none()
    });
    // The listing reads the store, which the sync changed; the tools follow once the catalog
    // is reloaded, a moment later.
    let deadline = Instant::now() + Duration::from_secs(10);
    while server.tool("alpha").is_some() {
        assert!(Instant::now() < deadline, "alpha is still a tool");
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(server.tool("other").is_some());
}

#[test]
fn fifos_and_symlinks_out_in_a_served_folder_neither_freeze_the_watcher_nor_delete_the_skill() {
    let work = tempfile::tempdir().expect("tempdir");
    let skills = work.path().join("skills");
    let alpha = skills.join("alpha");
    write(
        &alpha.join("SKILL.md"),
        good("alpha", "Use when version one."),
    );
    let mut server = Server::start(&skills, work.path());

    // A FIFO inside the skill, then an edit: the edit still arrives.
    mkfifo(&alpha.join("pipe"));
    std::os::unix::fs::symlink("/etc/hostname", alpha.join("notes.txt")).expect("symlink");
    let edited = "Use when version two.";
    fs::write(alpha.join("SKILL.md"), good("alpha", edited)).expect("write");
    let listing = wait_for_listing(&mut server, "synced the edit", |listing| {
        listed_description(listing, "alpha").as_deref() == Some(edited)
    });
    assert!(skipped_codes(&listing).is_empty(), "{listing:#}");
    // The link and the FIFO are left out and said; the skill stays.
    server.log_when("named the FIFO and the link", |log| {
        log.contains("file-not-regular") && log.contains("file-symlink-left-out")
    });
    let read = server.call("resources/read", json!({"uri": "skill://alpha/notes.txt"}));
    assert!(
        read.get("error").is_some(),
        "the link is not served: {read}"
    );

    // The process still ends when asked to.
    let pid = server.pid();
    let stopped = Command::new("kill")
        .args(["-TERM", &pid.to_string()])
        .status()
        .expect("kill");
    assert!(stopped.success());
    // `finish` waits up to 10 s and reaps the process once it has ended, by exiting or by
    // the signal; a process still there has not ended.
    let (_, log) = server.finish();
    assert!(
        !Path::new(&format!("/proc/{pid}")).exists(),
        "the server did not end after SIGTERM:\n{log}"
    );
}
