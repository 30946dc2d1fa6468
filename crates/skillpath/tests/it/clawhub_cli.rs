//! The real `clawhub` CLI (npm `clawhub` 0.23.3, on the Node 22 `scripts/test` installs)
//! against `skillpath serve --http`, on SQLite and PostgreSQL with two replicas: `login
//! --token`, `whoami`, `search`, `explore`, `inspect`, `install` (latest and a version),
//! `list`, `update` after a new release, `publish` of a new skill and of a new version,
//! `star`/`unstar`, `delete`/`undelete`; the files the CLI wrote byte for byte the store's,
//! and what each person finds by visibility (a private item of another namespace is not found,
//! a public one is).

use std::path::{Path, PathBuf};
use std::process::Command;

use skillpath_model::sha256_hex;
use skillpath_test_support::{RunExt, json};

use crate::mcp_inspector::conformance_modules;
use crate::postgres_support::Schema;
use crate::support::{HttpServer, eventually, skillpath};

/// The CLI's entry point in the tools `scripts/test` installs.
fn clawhub_cli() -> (PathBuf, PathBuf) {
    let (modules, node) = conformance_modules();
    let cli = modules.join("clawhub/bin/clawdhub.js");
    assert!(
        cli.is_file(),
        "no clawhub CLI at {} (run `scripts/test`, which installs clawhub@0.23.3)",
        cli.display()
    );
    (node, cli)
}

/// One person's `clawhub`, with a config and a workdir of its own, pointed at `registry`.
struct Clawhub {
    dir: tempfile::TempDir,
    registry: String,
}

impl Clawhub {
    fn new(registry: &str) -> Clawhub {
        let clawhub = Clawhub {
            dir: tempfile::tempdir().expect("tempdir"),
            registry: registry.to_owned(),
        };
        std::fs::create_dir_all(clawhub.work()).expect("a workdir");
        clawhub
    }

    fn work(&self) -> PathBuf {
        self.dir.path().join("work")
    }

    /// `clawhub args…`: its exit status, stdout and stderr.
    fn run(&self, args: &[&str]) -> (i32, String, String) {
        let (node, cli) = clawhub_cli();
        let output = Command::new(node)
            .arg(cli)
            .args(args)
            .env("CLAWHUB_REGISTRY", &self.registry)
            .env("CLAWHUB_CONFIG_PATH", self.dir.path().join("config.json"))
            .env("CLAWHUB_WORKDIR", self.work())
            .env("CLAWHUB_DISABLE_TELEMETRY", "1")
            .env("HOME", self.dir.path())
            .env_remove("CLAWHUB_SITE")
            .output()
            .expect("node runs the CLI");
        (
            output.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&output.stdout).into_owned(),
            String::from_utf8_lossy(&output.stderr).into_owned(),
        )
    }

    /// `clawhub args…`, which must succeed: its stdout.
    fn ok(&self, args: &[&str]) -> String {
        let (code, stdout, stderr) = self.run(args);
        assert_eq!(code, 0, "clawhub {args:?}:\n{stdout}\n{stderr}");
        stdout
    }
}

/// The registry's side: its database and a folder to import from.
struct Registry {
    db: String,
    folder: tempfile::TempDir,
}

impl Registry {
    fn ok(&self, args: &[&str]) -> String {
        skillpath(args).args(["--db", &self.db]).ok_stdout()
    }

    /// The skill `name` with `body` and a script, imported into `namespace` with `visibility`.
    fn import(&self, namespace: &str, name: &str, body: &str, visibility: &str) {
        let root = self.folder.path().join(namespace.trim_start_matches('@'));
        let skill = root.join(name);
        std::fs::create_dir_all(skill.join("scripts")).expect("a folder");
        std::fs::write(
            skill.join("SKILL.md"),
            format!("---\nname: {name}\ndescription: Use when deploying {name}.\n---\n\n{body}\n"),
        )
        .expect("a SKILL.md");
        std::fs::write(skill.join("scripts/run.sh"), format!("echo {name}\n")).expect("a script");
        self.ok(&[
            "import",
            root.to_str().expect("utf-8"),
            "--namespace",
            namespace,
            "--visibility",
            visibility,
        ]);
    }

    fn key(&self, handle: &str, role: &str) -> String {
        let made = self.ok(&[
            "keys", "create", "--name", handle, "--user", handle, "--role", role, "--format",
            "json",
        ]);
        json(&made)["key"].as_str().expect("a key").to_owned()
    }

    /// The files of the item `key` at `revision`, by path, with their SHA-256, as the store
    /// holds them.
    fn files(&self, key: &str, revision: u64) -> Vec<(String, String)> {
        let shown = self.ok(&[
            "show",
            key,
            "--revision",
            &revision.to_string(),
            "--format",
            "json",
        ]);
        let shown = json(&shown);
        let skill_md = shown["skill_md"].as_str().expect("a SKILL.md");
        let mut files = vec![("SKILL.md".to_owned(), sha256_hex(skill_md.as_bytes()))];
        for file in shown["files"].as_array().into_iter().flatten() {
            files.push((
                file["path"].as_str().expect("a path").to_owned(),
                file["sha256"].as_str().expect("a digest").to_owned(),
            ));
        }
        files.sort();
        files
    }
}

/// Every file below `dir`, outside dot folders.
fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).expect("a folder").flatten() {
        let path = entry.path();
        if entry.file_name().to_string_lossy().starts_with('.') {
            continue;
        }
        if path.is_dir() {
            files.extend(walk(&path));
        } else {
            files.push(path);
        }
    }
    files.sort();
    files
}

/// What the CLI installed into `dir`, by path, with each file's SHA-256 (its `.clawhub`
/// bookkeeping left out).
fn installed(dir: &Path) -> Vec<(String, String)> {
    let mut files: Vec<(String, String)> = walk(dir)
        .into_iter()
        .map(|path| {
            let relative = path
                .strip_prefix(dir)
                .expect("inside")
                .to_string_lossy()
                .into_owned();
            (relative, sha256_hex(&std::fs::read(&path).expect("a file")))
        })
        .collect();
    files.sort();
    files
}

fn scenario(db: &str) {
    let registry = Registry {
        db: db.to_owned(),
        folder: tempfile::tempdir().expect("tempdir"),
    };
    for namespace in ["@team", "@other"] {
        registry.ok(&["namespaces", "create", namespace]);
    }
    for handle in ["ann", "bob"] {
        registry.ok(&["users", "create", handle]);
    }
    registry.ok(&["members", "add", "@team", "ann", "--role", "maintainer"]);
    registry.ok(&["members", "add", "@other", "bob", "--role", "maintainer"]);
    registry.import("@team", "deploy", "Deploy the first way.", "namespace");
    registry.ok(&["release", "@team/deploy", "1.0.0", "--notes", "First."]);
    registry.import("@team", "deploy", "Deploy the second way.", "namespace");
    registry.ok(&["release", "@team/deploy", "1.1.0", "--notes", "Second."]);
    registry.import("@other", "secret", "Only for @other.", "namespace");
    registry.ok(&["release", "@other/secret", "1.0.0"]);
    registry.import("@other", "open", "For everyone.", "public");
    registry.ok(&["release", "@other/open", "1.0.0"]);
    let ann_key = registry.key("ann", "maintainer");
    let bob_key = registry.key("bob", "maintainer");
    let dirs = [
        tempfile::tempdir().expect("tempdir"),
        tempfile::tempdir().expect("tempdir"),
    ];
    let replicas: Vec<HttpServer> = dirs
        .iter()
        .map(|dir| HttpServer::start(dir.path(), &["--db", db, "--auth", "required"]))
        .collect();
    let first = format!("http://{}", replicas[0].address);
    let second = format!("http://{}", replicas[1].address);

    let ann = Clawhub::new(&first);
    let said = ann.ok(&["login", "--token", &ann_key, "--no-input"]);
    assert!(said.contains("Logged in as @ann"), "{said}");
    assert_eq!(ann.ok(&["whoami"]).trim(), "ann");
    let found = ann.ok(&["search", "deploy"]);
    assert!(found.contains("team--deploy v1.1.0"), "{found}");
    let explored = ann.ok(&["explore", "--json"]);
    let slugs: Vec<String> = json(&explored)["items"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|item| item["slug"].as_str().map(str::to_owned))
        .collect();
    assert!(slugs.contains(&"team--deploy".to_owned()), "{explored}");
    assert!(
        slugs.contains(&"other--open".to_owned()),
        "a public item: {explored}"
    );
    assert!(!slugs.contains(&"other--secret".to_owned()), "{explored}");
    let inspected = ann.ok(&["inspect", "team--deploy", "--versions", "--files"]);
    for shown in ["1.1.0", "1.0.0", "SKILL.md", "scripts/run.sh"] {
        assert!(inspected.contains(shown), "{shown}: {inspected}");
    }
    // A tag (the CLI resolves it from the item's tags; 0.23.3 installs by version only).
    registry.ok(&["tag", "@team/deploy", "stable", "1.0.0"]);
    let stable = eventually(|| {
        let shown = ann.ok(&[
            "inspect",
            "team--deploy",
            "--tag",
            "stable",
            "--file",
            "SKILL.md",
        ]);
        shown.contains("the first way").then_some(shown)
    });
    assert!(stable.contains("Deploy the first way."), "{stable}");
    registry.ok(&["tag", "@team/deploy", "stable", "--remove"]);

    // Install the latest, and a version; the files are the store's, byte for byte.
    let said = ann.ok(&["install", "team--deploy"]);
    assert!(said.contains("Installed team--deploy v1.1.0"), "{said}");
    assert_eq!(
        installed(&ann.work().join("skills/team--deploy")),
        registry.files("@team/deploy", 2)
    );
    let pinned = Clawhub::new(&second);
    pinned.ok(&["login", "--token", &ann_key, "--no-input"]);
    pinned.ok(&["install", "team--deploy", "--version", "1.0.0"]);
    assert_eq!(
        installed(&pinned.work().join("skills/team--deploy")),
        registry.files("@team/deploy", 1)
    );
    let listed = ann.ok(&["list"]);
    assert!(listed.contains("team--deploy  1.1.0"), "{listed}");

    // A new release, on the command line: `update` takes it.
    registry.import("@team", "deploy", "Deploy the third way.", "namespace");
    registry.ok(&["release", "@team/deploy", "1.2.0"]);
    let updated = eventually(|| {
        let (code, out, _) = ann.run(&["update", "team--deploy", "--no-input"]);
        (code == 0 && out.contains("1.2.0")).then_some(out)
    });
    assert!(
        updated.contains("Updated team--deploy -> v1.2.0"),
        "{updated}"
    );
    assert_eq!(
        installed(&ann.work().join("skills/team--deploy")),
        registry.files("@team/deploy", 3)
    );

    // Publish a new skill into @team, and a new version of `deploy`, from the CLI.
    let fresh = ann.work().join("fresh");
    std::fs::create_dir_all(fresh.join("references")).expect("a folder");
    std::fs::write(
        fresh.join("SKILL.md"),
        "---\nname: fresh\ndescription: Use when publishing from the CLI.\n---\n\nFresh.\n",
    )
    .expect("a SKILL.md");
    std::fs::write(fresh.join("references/notes.md"), "# Notes\n").expect("a reference");
    let published = ann.ok(&[
        "publish",
        "fresh",
        "--slug",
        "team--fresh",
        "--name",
        "Fresh",
        "--version",
        "1.0.0",
        "--changelog",
        "From the CLI.",
    ]);
    assert!(
        published.contains("Published team--fresh@1.0.0"),
        "{published}"
    );
    let releases = json(&registry.ok(&["releases", "@team/fresh", "--format", "json"]));
    assert_eq!(
        releases["releases"][0]["notes"], "From the CLI.",
        "{releases}"
    );
    let mut local = installed(&fresh);
    local.sort();
    assert_eq!(local, registry.files("@team/fresh", 1));
    std::fs::write(
        fresh.join("SKILL.md"),
        "---\nname: fresh\ndescription: Use when publishing from the CLI, again.\n---\n\nFresher.\n",
    )
    .expect("a SKILL.md");
    ann.ok(&[
        "publish",
        "fresh",
        "--slug",
        "team--fresh",
        "--version",
        "1.1.0",
    ]);
    let releases = json(&registry.ok(&["releases", "@team/fresh", "--format", "json"]));
    assert_eq!(
        releases["releases"].as_array().map(Vec::len),
        Some(2),
        "{releases}"
    );

    // Stars count in `stats.stars`, on the other replica too.
    ann.ok(&["star", "team--deploy", "--yes"]);
    let stars = |clawhub: &Clawhub| {
        let shown = json(&clawhub.ok(&["inspect", "team--deploy", "--json"]));
        shown["skill"]["stats"]["stars"].as_u64()
    };
    assert_eq!(eventually(|| (stars(&pinned) == Some(1)).then_some(1)), 1);
    ann.ok(&["unstar", "team--deploy", "--yes"]);
    assert_eq!(eventually(|| (stars(&ann) == Some(0)).then_some(0)), 0);

    // Delete and undelete.
    ann.ok(&["delete", "team--fresh", "--yes"]);
    let (code, _, gone) = ann.run(&["inspect", "team--fresh"]);
    assert!(code != 0 && gone.contains("Skill not found"), "{gone}");
    ann.ok(&["undelete", "team--fresh", "--yes"]);
    ann.ok(&["inspect", "team--fresh"]);
    // A version withdrawn is a yank (the CLI gives no reason for one); it stays yanked.
    ann.ok(&["delete", "team--deploy", "--version", "1.0.0", "--yes"]);
    let releases = json(&registry.ok(&["releases", "@team/deploy", "--format", "json"]));
    assert_eq!(
        releases["releases"][0]["yanked"]["reason"], "withdrawn through the registry protocol",
        "{releases}"
    );
    let (code, _, refused) = ann.run(&["undelete", "team--deploy", "--version", "1.0.0", "--yes"]);
    assert!(code != 0 && refused.contains("stays yanked"), "{refused}");

    // Another namespace's person: its private item is not found, the public one is; nothing
    // of @team is theirs to install or publish to.
    let bob = Clawhub::new(&second);
    bob.ok(&["login", "--token", &bob_key, "--no-input"]);
    let (code, _, refused) = bob.run(&["install", "team--deploy"]);
    assert!(
        code != 0 && refused.contains("Skill not found"),
        "{refused}"
    );
    bob.ok(&["install", "other--secret"]);
    let outsider = Clawhub::new(&first);
    outsider.ok(&["login", "--token", &ann_key, "--no-input"]);
    let (code, _, refused) = outsider.run(&["install", "other--secret"]);
    assert!(
        code != 0 && refused.contains("Skill not found"),
        "{refused}"
    );
    outsider.ok(&["install", "other--open"]);
    let (code, _, refused) = bob.run(&[
        "publish",
        "../fresh",
        "--slug",
        "team--intruder",
        "--version",
        "1.0.0",
    ]);
    assert!(code != 0, "{refused}");
    let (code, _, _) =
        Clawhub::new(&first).run(&["login", "--token", "sp_000000000000_x", "--no-input"]);
    assert_ne!(code, 0, "a key that is none is refused");
}

#[test]
fn the_clawhub_cli_against_skillpath_on_sqlite() {
    let work = tempfile::tempdir().expect("tempdir");
    let db = work.path().join("store.db");
    scenario(db.to_str().expect("utf-8"));
}

#[test]
fn the_clawhub_cli_against_skillpath_on_postgres() {
    let schema = Schema::create("clawhub_cli");
    scenario(&schema.url());
}
