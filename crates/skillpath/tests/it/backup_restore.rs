//! Backup and restore of a PostgreSQL store with the standard tools, as `docs/operations.md`
//! describes it: a store with history (imports, a changed import, a rollback, a delete) is
//! dumped with `pg_dump --format=custom --schema=…`, its schema is dropped, and `pg_restore`
//! brings it back. Every skill, every revision (number, author, message, operation, content)
//! and every file byte must be as before, and the restored store must still accept writes
//! (the next revision number, and a new skill, which needs the restored `id` sequence).
//! Real `skillpath` processes against a real PostgreSQL (`$SKILLPATH_TEST_POSTGRES`, default
//! `postgres://postgres@127.0.0.1:5432/test`, trust auth); an unreachable server or a missing
//! `pg_dump` fails the test.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

use crate::postgres_support::{Schema, execute, server_url};
use crate::support::skillpath_bin;

/// The example skills of the repository.
fn examples_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/skills")
}

/// A PostgreSQL client program (`pg_dump`, `pg_restore`) found on `PATH`.
fn pg_tool(name: &str) -> PathBuf {
    std::env::var_os("PATH")
        .iter()
        .flat_map(std::env::split_paths)
        .map(|dir| dir.join(name))
        .find(|path| path.is_file())
        .unwrap_or_else(|| {
            panic!(
                "`{name}` is not on PATH: the backup test needs the PostgreSQL client tools \
                 (install `postgresql-client`, e.g. `apt-get install postgresql-client`)"
            )
        })
}

fn run(command: &mut Command) -> Output {
    let output = command
        .output()
        .unwrap_or_else(|error| panic!("cannot run {command:?}: {error}"));
    assert!(
        output.status.success(),
        "{command:?} failed ({}):\nstdout: {}\nstderr: {}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

/// `skillpath ARGS --db URL`, with a home folder of its own and a fixed `$USER`.
fn skillpath_command(url: &str, home: &Path, args: &[&str]) -> Command {
    let mut command = Command::new(skillpath_bin());
    command
        .args(args)
        .args(["--db", url])
        .env_remove("SKILLPATH_DB")
        .env("HOME", home)
        .env("USER", "backup-test");
    command
}

/// Runs `skillpath ARGS --db URL --format json`, which must succeed, and parses its output.
fn skillpath_json(url: &str, home: &Path, args: &[&str]) -> Value {
    let output = run(skillpath_command(url, home, args).args(["--format", "json"]));
    serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|error| panic!("skillpath {args:?}: not JSON ({error})"))
}

/// Every file under `root` (relative path → bytes).
fn read_tree(root: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    fn walk(root: &Path, dir: &Path, files: &mut BTreeMap<PathBuf, Vec<u8>>) {
        for entry in std::fs::read_dir(dir).expect("read_dir") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                walk(root, &path, files);
            } else {
                let bytes = std::fs::read(&path).expect("read");
                files.insert(path.strip_prefix(root).expect("inside").to_owned(), bytes);
            }
        }
    }
    let mut files = BTreeMap::new();
    walk(root, root, &mut files);
    files
}

fn copy_tree(from: &Path, to: &Path) {
    for (path, bytes) in read_tree(from) {
        let target = to.join(path);
        std::fs::create_dir_all(target.parent().expect("parent")).expect("mkdir");
        std::fs::write(target, bytes).expect("write");
    }
}

/// What a store holds, as the CLI shows it.
#[derive(Debug, PartialEq)]
struct Contents {
    /// `list --deleted`: every skill with its revision, state, time and provenance.
    list: Value,
    /// `history NAME` of every skill: numbers, times, authors, messages, operations, hashes.
    histories: BTreeMap<String, Value>,
    /// `show NAME --revision N` of every revision: its `SKILL.md` and its files' sizes and hashes.
    revisions: BTreeMap<(String, u64), Value>,
    /// `export`: every byte of every live skill.
    exported: BTreeMap<PathBuf, Vec<u8>>,
    /// `search`: the full-text index answers.
    search: Value,
}

impl Contents {
    fn capture(url: &str, home: &Path, scratch: &Path) -> Contents {
        let list = skillpath_json(url, home, &["list", "--deleted", "--limit", "1000"]);
        let names: Vec<String> = list["items"]
            .as_array()
            .expect("items")
            .iter()
            .map(|item| item["name"].as_str().expect("name").to_owned())
            .collect();
        let mut histories = BTreeMap::new();
        let mut revisions = BTreeMap::new();
        for name in &names {
            let history = skillpath_json(url, home, &["history", name]);
            for revision in history.as_array().expect("revisions") {
                let number = revision["number"].as_u64().expect("number");
                let shown = skillpath_json(
                    url,
                    home,
                    &["show", name, "--revision", &number.to_string()],
                );
                revisions.insert((name.clone(), number), shown);
            }
            histories.insert(name.clone(), history);
        }
        let to = tempfile::tempdir_in(scratch).expect("tempdir");
        let to_arg = to.path().join("export");
        run(&mut skillpath_command(
            url,
            home,
            &["export", "--to", to_arg.to_str().expect("utf-8")],
        ));
        let exported = read_tree(&to_arg);
        let search = skillpath_json(
            url,
            home,
            &["search", "cache redis service", "--limit", "10"],
        );
        Contents {
            list,
            histories,
            revisions,
            exported,
            search,
        }
    }
}

/// The last revision of `name`: its number, author, message and operation.
fn last_revision(url: &str, home: &Path, name: &str) -> (u64, String, String, String) {
    let history = skillpath_json(url, home, &["history", name]);
    let last = history
        .as_array()
        .and_then(|revisions| revisions.last())
        .unwrap_or_else(|| panic!("no history of `{name}`: {history}"));
    let text = |key: &str| last[key].as_str().expect("a string").to_owned();
    (
        last["number"].as_u64().expect("number"),
        text("author"),
        text("message"),
        text("operation"),
    )
}

#[test]
fn a_pg_dump_of_the_schema_restores_every_skill_revision_and_byte() {
    let pg_dump = pg_tool("pg_dump");
    let pg_restore = pg_tool("pg_restore");
    let server = server_url();
    let schema = Schema::create("backup");
    let url = schema.url();
    let work = tempfile::tempdir().expect("tempdir");
    let home = work.path().join("home");
    std::fs::create_dir_all(&home).expect("mkdir");
    let examples = examples_dir();

    // A store with history: five skills imported, one changed (a new text and a binary file)
    // and rolled back, one deleted.
    let imported = skillpath_json(&url, &home, &["import", examples.to_str().expect("utf-8")]);
    assert_eq!(
        imported["created"].as_array().map(Vec::len),
        Some(5),
        "{imported}"
    );
    let changed = work.path().join("changed");
    copy_tree(&examples.join("add-caching"), &changed.join("add-caching"));
    let skill_md = changed.join("add-caching/SKILL.md");
    let mut text = std::fs::read_to_string(&skill_md).expect("read");
    text.push_str("\n## Notes\n\nRevision two, for the backup test.\n");
    std::fs::write(&skill_md, text).expect("write");
    let binary: Vec<u8> = (0..=255u8).rev().chain(0..=255).collect();
    std::fs::create_dir_all(changed.join("add-caching/assets")).expect("mkdir");
    std::fs::write(changed.join("add-caching/assets/blob.bin"), &binary).expect("write");
    run(&mut skillpath_command(
        &url,
        &home,
        &[
            "import",
            changed.to_str().expect("utf-8"),
            "--author",
            "alice",
            "-m",
            "notes and a binary file",
        ],
    ));
    run(&mut skillpath_command(
        &url,
        &home,
        &[
            "rollback",
            "add-caching",
            "--to",
            "1",
            "--author",
            "bob",
            "-m",
            "back to the original",
        ],
    ));
    run(&mut skillpath_command(
        &url,
        &home,
        &[
            "delete",
            "write-release-notes",
            "--author",
            "carol",
            "-m",
            "retired",
        ],
    ));
    let before = Contents::capture(&url, &home, work.path());
    assert_eq!(before.histories.len(), 5, "{:?}", before.list);
    assert_eq!(
        before.histories["add-caching"].as_array().map(Vec::len),
        Some(3)
    );
    let binary_revision = &before.revisions[&("add-caching".to_owned(), 2)];
    assert!(
        binary_revision["files"]
            .as_array()
            .expect("files")
            .iter()
            .any(|file| file["path"] == "assets/blob.bin" && file["size"] == 512),
        "{binary_revision}"
    );
    assert!(
        !before
            .exported
            .keys()
            .any(|path| path.starts_with("write-release-notes")),
        "a deleted skill is not exported"
    );
    assert!(before.exported.len() > 5, "{:?}", before.exported.keys());

    // Dump the schema, drop it, and restore the dump into the same database.
    let dump = work.path().join("skills.dump");
    run(Command::new(&pg_dump)
        .arg("--format=custom")
        .arg(format!("--schema={}", schema.name))
        .arg(format!("--file={}", dump.display()))
        .arg(format!("--dbname={server}")));
    execute(&server, &format!("DROP SCHEMA {} CASCADE", schema.name));
    let gone = skillpath_command(&url, &home, &["list"])
        .output()
        .expect("run list");
    assert!(
        !gone.status.success(),
        "the store still answers after its schema was dropped: {gone:?}"
    );
    run(Command::new(&pg_restore)
        .arg("--exit-on-error")
        .arg("--single-transaction")
        .arg(format!("--dbname={server}"))
        .arg(&dump));

    // Everything is back exactly.
    let after = Contents::capture(&url, &home, work.path());
    assert_eq!(after.list, before.list, "list --deleted");
    assert_eq!(after.histories, before.histories, "history");
    assert_eq!(after.revisions, before.revisions, "show --revision");
    assert_eq!(
        after.exported.keys().collect::<Vec<_>>(),
        before.exported.keys().collect::<Vec<_>>(),
        "exported files"
    );
    assert!(after.exported == before.exported, "exported bytes differ");
    assert_eq!(after.search, before.search, "search");
    assert_eq!(after, before);

    // The restored store takes writes: a changed skill gets the next revision, and a new skill
    // gets an id from the restored sequence (a reset one would collide with existing rows).
    run(&mut skillpath_command(
        &url,
        &home,
        &[
            "import",
            changed.to_str().expect("utf-8"),
            "--author",
            "dave",
            "-m",
            "after the restore",
        ],
    ));
    assert_eq!(
        last_revision(&url, &home, "add-caching"),
        (
            4,
            "dave".to_owned(),
            "after the restore".to_owned(),
            "update".to_owned()
        )
    );
    let fresh = work.path().join("fresh");
    std::fs::create_dir_all(fresh.join("after-restore")).expect("mkdir");
    std::fs::write(
        fresh.join("after-restore/SKILL.md"),
        "---\nname: after-restore\ndescription: Use when checking a restored store takes new skills.\n---\n# After restore\n",
    )
    .expect("write");
    let created = skillpath_json(&url, &home, &["import", fresh.to_str().expect("utf-8")]);
    assert_eq!(
        created["created"].as_array().map(Vec::len),
        Some(1),
        "{created}"
    );
    assert_eq!(last_revision(&url, &home, "after-restore").0, 1);
    let exported = work.path().join("final");
    run(&mut skillpath_command(
        &url,
        &home,
        &[
            "export",
            "add-caching",
            "--to",
            exported.to_str().expect("utf-8"),
        ],
    ));
    assert_eq!(
        std::fs::read(exported.join("add-caching/assets/blob.bin")).expect("the binary file"),
        binary
    );
    drop(schema);
}
