//! Installing from git repositories the tests make: `add` → the lock → `sync` into several
//! agents → local edits seen by `status` and kept by `update` (until `--force` or `--merge`) →
//! `install --frozen` reproducing every folder of a fresh clone byte for byte → `install
//! --check` and a tampered lock naming the file; and what a hostile source, a broken lock or
//! an odd agent folder does.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::support::skillpath_bin;

/// A home folder, a source repository and a project, each in one temporary folder.
struct World {
    temp: tempfile::TempDir,
}

impl World {
    fn new() -> World {
        let world = World {
            temp: tempfile::tempdir().expect("tempdir"),
        };
        for dir in ["home/.claude", "home/.codex", "src", "project"] {
            std::fs::create_dir_all(world.path(dir)).expect("mkdir");
        }
        git(&world.path("src"), &["init", "-q", "-b", "main"]);
        git(&world.path("project"), &["init", "-q", "-b", "main"]);
        world
    }

    fn path(&self, relative: &str) -> PathBuf {
        self.temp.path().join(relative)
    }

    fn url(&self) -> String {
        format!("file://{}", self.path("src").display())
    }

    /// Writes `text` at `relative` in the source repository.
    fn write(&self, relative: &str, text: &str) {
        let path = self.path("src").join(relative);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(path, text).expect("write");
    }

    /// Commits everything in the source; the commit's id.
    fn commit(&self, message: &str) -> String {
        let src = self.path("src");
        git(&src, &["add", "-A"]);
        git(&src, &["commit", "-q", "-m", message]);
        git(&src, &["rev-parse", "HEAD"]).trim().to_owned()
    }

    /// Runs skillpath in `dir` (relative to the world).
    /// What a teammate does with `project`: commit it with `ignored` (its agent folders) as its
    /// `.gitignore`, clone it as `clone` and `install --frozen` there on a new store. The clone.
    fn install_in_a_clone(&self, project: &Path, ignored: &str) -> PathBuf {
        std::fs::write(project.join(".gitignore"), ignored).expect("ignore");
        git(project, &["add", "-A"]);
        git(project, &["commit", "-q", "-m", "lock"]);
        git(
            self.temp.path(),
            &["clone", "-q", &project.display().to_string(), "clone"],
        );
        let (code, out, err) = self.run_with("clone", &["install", "--frozen"], "fresh.db");
        assert_eq!(code, 0, "{out}{err}");
        self.path("clone")
    }

    fn run(&self, dir: &str, args: &[&str]) -> (i32, String, String) {
        self.run_with(dir, args, "store.db")
    }

    fn run_with(&self, dir: &str, args: &[&str], db: &str) -> (i32, String, String) {
        let output = self.command(dir, args, db).output().expect("run skillpath");
        (
            output.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&output.stdout).into_owned(),
            String::from_utf8_lossy(&output.stderr).into_owned(),
        )
    }

    fn command(&self, dir: &str, args: &[&str], db: &str) -> Command {
        let mut command = Command::new(skillpath_bin());
        command
            .args(args)
            .current_dir(self.path(dir))
            .env("HOME", self.path("home"))
            .env("SKILLPATH_DB", self.path(db))
            .env("SKILLPATH_CACHE", self.path("cache"))
            .env_remove("XDG_CONFIG_HOME")
            .env_remove("XDG_CACHE_HOME")
            .env_remove("CLAUDE_CONFIG_DIR")
            .env_remove("CODEX_HOME")
            .env_remove("SKILLPATH_AUDIT_POLICY");
        command
    }
}

/// Runs git in `dir` as a user with a name; its stdout. Fails the test when git fails.
pub(crate) fn git(dir: &Path, args: &[&str]) -> String {
    let output = Command::new("git")
        .args(["-c", "user.name=Test", "-c", "user.email=test@example.com"])
        .args([
            "-c",
            "protocol.file.allow=always",
            "-c",
            "commit.gpgsign=false",
        ])
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .output()
        .expect("git");
    assert!(
        output.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn skill_md(name: &str, body: &str) -> String {
    format!("---\nname: {name}\ndescription: Helps with {name} work.\n---\n# {name}\n\n{body}")
}

/// Ten lines, so that edits at the top and at the bottom do not touch.
const BODY: &str = "one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\nnine\nten\n";

/// Every file under `dir` (symlinks as `-> target`), by relative path.
pub(crate) fn tree(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut files = BTreeMap::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(folder) = pending.pop() {
        for entry in std::fs::read_dir(&folder).expect("read_dir").flatten() {
            let path = entry.path();
            let relative = path
                .strip_prefix(dir)
                .expect("inside")
                .display()
                .to_string();
            let kind = entry.file_type().expect("type");
            if kind.is_symlink() {
                let target = std::fs::read_link(&path).expect("link");
                files.insert(relative, format!("-> {}", target.display()).into_bytes());
            } else if kind.is_dir() {
                pending.push(path);
            } else {
                files.insert(relative, std::fs::read(&path).expect("read"));
            }
        }
    }
    files
}

/// The agent folders of a project (everything but the lock and `.git`).
fn agent_folders(project: &Path) -> BTreeMap<String, Vec<u8>> {
    tree(project)
        .into_iter()
        .filter(|(path, _)| !path.starts_with(".git/") && path != "skillpath.lock")
        .collect()
}

#[test]
fn add_lock_sync_edit_update_and_restore_a_fresh_clone() {
    let world = World::new();
    world.write("skills/alpha/SKILL.md", &skill_md("alpha", BODY));
    world.write("skills/alpha/scripts/run.sh", "echo alpha\n");
    world.write("skills/beta/SKILL.md", &skill_md("beta", BODY));
    world.write("README.md", "not a skill\n");
    let first = world.commit("first");
    let url = world.url();

    // add: every skill, pinned at the commit, into .agents/skills and links from the agents.
    let (code, out, err) = world.run("project", &["add", &url, "--agent", "claude-code,cursor"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("added 2 skills"), "{out}");
    let project = world.path("project");
    let lock = std::fs::read_to_string(project.join("skillpath.lock")).expect("lock");
    assert!(lock.contains(&format!("commit = \"{first}\"")), "{lock}");
    assert!(lock.contains("path = \"skills/alpha\""), "{lock}");
    assert!(
        lock.contains("agents = [\"claude-code\", \"cursor\"]"),
        "{lock}"
    );
    let alpha = project.join(".agents/skills/alpha");
    assert_eq!(
        std::fs::read_to_string(alpha.join("SKILL.md")).expect("copy"),
        skill_md("alpha", BODY)
    );
    for agent in [".claude/skills", ".cursor/skills"] {
        let link = std::fs::read_link(project.join(agent).join("alpha")).expect("a link");
        assert_eq!(link, Path::new("../../.agents/skills/alpha"));
    }
    // The store holds them, with where they came from.
    let (code, out, _) = world.run("project", &["show", "alpha", "--format", "json"]);
    assert_eq!(code, 0);
    assert!(
        out.contains(&format!("{url}#{first}:skills/alpha")),
        "{out}"
    );

    // status: clean; then a local edit shows with its diff.
    let (code, out, _) = world.run("project", &["status"]);
    assert_eq!(code, 0, "{out}");
    std::fs::write(
        alpha.join("SKILL.md"),
        skill_md("alpha", &BODY.replace("one\n", "one (mine)\n")),
    )
    .expect("edit");
    let (code, out, _) = world.run("project", &["status", "--format", "json"]);
    assert_eq!(code, 1);
    let status: serde_json::Value = serde_json::from_str(&out).expect("json");
    let alpha_status = &status["skills"][0];
    assert_eq!(alpha_status["name"], "alpha");
    assert_eq!(alpha_status["folders"][0]["state"], "modified");
    assert_eq!(alpha_status["folders"][0]["changes"][0]["path"], "SKILL.md");
    let diff = alpha_status["folders"][0]["diff"].as_str().expect("diff");
    assert!(diff.contains("-one\n+one (mine)\n"), "{diff}");

    // Upstream moves on; status says so; update refuses the edited folder and names it.
    world.write(
        "skills/alpha/SKILL.md",
        &skill_md("alpha", &BODY.replace("ten\n", "ten (upstream)\n")),
    );
    world.write(
        "skills/beta/SKILL.md",
        &skill_md("beta", &BODY.replace("two\n", "2\n")),
    );
    let second = world.commit("second");
    let (_, out, _) = world.run("project", &["status"]);
    assert!(
        out.contains(&format!(
            "outdated: the default branch is at {}",
            &second[..12]
        )),
        "{out}"
    );
    let (code, out, err) = world.run("project", &["update"]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        err.contains("`.agents/skills/alpha` has local edits"),
        "{err}"
    );
    assert!(
        out.contains("updated 1: beta") && out.contains("not updated: alpha"),
        "{out}"
    );
    let lock = std::fs::read_to_string(project.join("skillpath.lock")).expect("lock");
    assert_eq!(
        lock.matches(&format!("commit = \"{first}\"")).count(),
        1,
        "alpha stays: {lock}"
    );
    assert!(
        std::fs::read_to_string(alpha.join("SKILL.md"))
            .expect("kept")
            .contains("one (mine)")
    );

    // --merge: the edits do not overlap, so both are kept.
    let (code, out, err) = world.run("project", &["update", "alpha", "--merge"]);
    assert_eq!(code, 0, "{out}{err}");
    let merged = std::fs::read_to_string(alpha.join("SKILL.md")).expect("merged");
    assert!(
        merged.contains("one (mine)") && merged.contains("ten (upstream)"),
        "{merged}"
    );

    // An overlapping edit is refused even with --merge; --force replaces it.
    world.write(
        "skills/alpha/SKILL.md",
        &skill_md("alpha", &BODY.replace("one\n", "one (upstream)\n")),
    );
    world.commit("third");
    let (code, _, err) = world.run("project", &["update", "alpha", "--merge"]);
    assert_eq!(code, 1);
    assert!(err.contains("the edits overlap"), "{err}");
    let (code, out, err) = world.run("project", &["update", "--force"]);
    assert_eq!(code, 0, "{out}{err}");
    let forced = std::fs::read_to_string(alpha.join("SKILL.md")).expect("forced");
    assert!(
        forced.contains("one (upstream)") && !forced.contains("mine"),
        "{forced}"
    );
    let (code, out, _) = world.run("project", &["status"]);
    assert_eq!(code, 0, "clean and current: {out}");

    // A fresh clone of the project (agent folders not committed) is restored byte for byte.
    std::fs::remove_dir_all(world.path("cache")).expect("cold cache");
    let clone = world.install_in_a_clone(&project, ".agents/\n.claude/\n.cursor/\n");
    let expected: BTreeMap<_, _> = agent_folders(&project)
        .into_iter()
        .filter(|(p, _)| p != ".gitignore")
        .collect();
    let restored: BTreeMap<_, _> = agent_folders(&clone)
        .into_iter()
        .filter(|(p, _)| p != ".gitignore")
        .collect();
    assert_eq!(restored, expected);
    assert!(
        restored.keys().any(|p| p == ".cursor/skills/beta"),
        "{:?}",
        restored.keys()
    );

    // install --check names a file edited in an agent folder.
    std::fs::write(
        clone.join(".agents/skills/alpha/scripts/run.sh"),
        "echo changed\n",
    )
    .expect("edit");
    let (code, out, _) = world.run_with("clone", &["install", "--check"], "fresh.db");
    assert_eq!(code, 1);
    assert!(
        out.contains("`.agents/skills/alpha/scripts/run.sh`: differs from the lock"),
        "{out}"
    );
    let (code, _, _) = world.run_with("clone", &["install", "--frozen"], "fresh.db");
    assert_eq!(code, 0);
    let (code, out, _) = world.run_with("clone", &["install", "--check"], "fresh.db");
    assert_eq!(code, 0, "{out}");

    // A digest changed in the lock fails `install --frozen`, naming the file, writing nothing.
    let lock_path = clone.join("skillpath.lock");
    let lock = std::fs::read_to_string(&lock_path).expect("lock");
    let run_sh = lock
        .lines()
        .find(|line| line.contains("path = \"scripts/run.sh\""))
        .expect("the file's line");
    let digest = run_sh.rsplit("sha256:").next().expect("digest");
    let tampered = run_sh.replace(digest, &format!("{}\" }},", "0".repeat(64)));
    std::fs::write(&lock_path, lock.replace(run_sh, &tampered)).expect("tamper");
    std::fs::remove_dir_all(clone.join(".agents/skills/beta")).expect("remove");
    let before = agent_folders(&clone);
    let (code, _, err) = world.run_with("clone", &["install", "--frozen"], "other.db");
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("`alpha/scripts/run.sh` differs from the lock"),
        "{err}"
    );
    assert!(err.contains("nothing was written"), "{err}");
    assert_eq!(agent_folders(&clone), before, "nothing was written");

    // remove: out of the lock and the folders it wrote; a folder it did not write stays.
    let foreign = project.join(".claude/skills/gamma");
    std::fs::create_dir_all(&foreign).expect("mkdir");
    std::fs::write(foreign.join("SKILL.md"), skill_md("gamma", "")).expect("write");
    let (code, out, err) = world.run("project", &["remove", "beta"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(!project.join(".agents/skills/beta").exists());
    assert!(std::fs::symlink_metadata(project.join(".claude/skills/beta")).is_err());
    assert!(foreign.join("SKILL.md").exists());
    let lock = std::fs::read_to_string(project.join("skillpath.lock")).expect("lock");
    assert!(!lock.contains("[skills.\"beta\"]"), "{lock}");
    let (code, _, err) = world.run("project", &["remove", "gamma"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("removes only the skills it installed"),
        "{err}"
    );
}

#[test]
fn a_hostile_source_is_taken_in_part_with_each_skip_named() {
    let world = World::new();
    world.write("good/SKILL.md", &skill_md("good", "fine\n"));
    world.write("good/ref.md", "shared\n");
    world.write("outside.txt", "secret\n");
    world.write("links/SKILL.md", &skill_md("links", "x\n"));
    std::os::unix::fs::symlink("../outside.txt", world.path("src/links/out.txt")).expect("link");
    std::os::unix::fs::symlink("/etc/passwd", world.path("src/links/abs.txt")).expect("link");
    // An example image kept in Git LFS is left out of its skill; a `SKILL.md` kept there
    // leaves no skill.
    let pointer = "version https://git-lfs.github.com/spec/v1\noid sha256:0000\nsize 99\n";
    world.write("lfs/SKILL.md", &skill_md("lfs", "x\n"));
    world.write("lfs/assets/example.png", pointer);
    world.write("lfs/scripts/run.sh", "echo lfs\n");
    world.write("lfsmd/SKILL.md", pointer);
    world.write("case/SKILL.md", &skill_md("case", "x\n"));
    world.write("case/Notes.md", "a\n");
    world.write("case/notes.md", "b\n");
    world.write("huge/SKILL.md", &skill_md("huge", "x\n"));
    std::fs::write(
        world.path("src/huge/data.bin"),
        vec![b'x'; 17 * 1024 * 1024],
    )
    .expect("huge");
    // A submodule: another repository's commit inside a skill.
    let sub = world.path("sub");
    std::fs::create_dir_all(&sub).expect("mkdir");
    git(&sub, &["init", "-q", "-b", "main"]);
    std::fs::write(sub.join("f"), "f\n").expect("write");
    git(&sub, &["add", "-A"]);
    git(&sub, &["commit", "-q", "-m", "sub"]);
    world.write("subm/SKILL.md", &skill_md("subm", "x\n"));
    git(
        &world.path("src"),
        &[
            "submodule",
            "add",
            "-q",
            &format!("file://{}", sub.display()),
            "subm/vendor",
        ],
    );
    world.commit("hostile");
    let (code, out, err) = world.run("project", &["add", &world.url(), "--agent", "claude-code"]);
    assert_eq!(code, 1, "skips make the exit status 1: {out}{err}");
    assert!(
        out.contains("added 4 skills: good, lfs, links, subm"),
        "{out}{err}"
    );
    assert!(
        err.contains("left out of `lfs`: `assets/example.png` is a Git LFS pointer: its content is on an LFS server, which skillpath does not fetch\n"),
        "{err}"
    );
    assert!(
        err.contains("skipped: `lfsmd`: its `SKILL.md` is a Git LFS pointer"),
        "{err}"
    );
    let lfs = world.path("project/.agents/skills/lfs");
    assert_eq!(
        tree(&lfs).keys().collect::<Vec<_>>(),
        ["SKILL.md", "scripts/run.sh"]
    );
    let lock = std::fs::read_to_string(world.path("project/skillpath.lock")).expect("lock");
    assert!(lock.contains("path = \"scripts/run.sh\""), "{lock}");
    assert!(
        !lock.contains("example.png") && !lock.contains("lfsmd"),
        "{lock}"
    );
    assert!(
        err.contains("skipped: `case`: `Notes.md` and `notes.md` differ only in case"),
        "{err}"
    );
    assert!(
        err.contains("skipped: `huge`: `data.bin` is 17825792 bytes, over the limit"),
        "{err}"
    );
    assert!(
        err.contains("left out of `links`: `abs.txt` is a symlink to `/etc/passwd`"),
        "{err}"
    );
    assert!(
        err.contains("left out of `links`: `out.txt` is a symlink to `../outside.txt`"),
        "{err}"
    );
    assert!(
        err.contains("left out of `subm`: `vendor` is a git submodule"),
        "{err}"
    );
    let links = world.path("project/.agents/skills/links");
    assert_eq!(tree(&links).keys().collect::<Vec<_>>(), ["SKILL.md"]);
    // Nothing outside the agents' folders and the lock was written in the project.
    let written: Vec<String> = tree(&world.path("project"))
        .into_keys()
        .filter(|p| !p.starts_with(".git/"))
        .filter(|p| !p.starts_with(".agents/skills/") && !p.starts_with(".claude/skills/"))
        .collect();
    assert_eq!(written, ["skillpath.lock"]);

    // A ref that does not exist; a commit that vanished upstream.
    let (code, _, err) = world.run("project", &["add", &format!("{}#nope", world.url())]);
    assert_eq!(code, 2);
    assert!(err.contains("`nope` is no branch, tag or commit"), "{err}");
    let src = world.path("src");
    git(&src, &["checkout", "-q", "--orphan", "rewritten"]);
    git(&src, &["commit", "-q", "-m", "rewritten", "--allow-empty"]);
    git(&src, &["branch", "-D", "main"]);
    git(&src, &["branch", "-m", "main"]);
    git(&src, &["reflog", "expire", "--expire=now", "--all"]);
    git(&src, &["gc", "-q", "--prune=now"]);
    std::fs::remove_dir_all(world.path("cache")).expect("cold cache");
    std::fs::remove_dir_all(world.path("project/.agents")).expect("remove");
    let (code, _, err) = world.run_with("project", &["install", "--frozen"], "fresh.db");
    assert_eq!(code, 1);
    assert!(err.contains("cannot be fetched from"), "{err}");
    assert!(
        !world.path("project/.agents").exists(),
        "nothing was written"
    );
}

/// `sync --agent` records its agents in the lock, as `add --agent` does, so `install --frozen`
/// on a fresh clone writes every agent's folder; so does a `--user` sync in the user's lock.
#[test]
fn sync_agents_are_locked_and_a_fresh_clone_gets_their_folders() {
    let world = World::new();
    world.write("skills/alpha/SKILL.md", &skill_md("alpha", BODY));
    world.write("skills/alpha/scripts/run.sh", "#!/bin/sh\necho alpha\n");
    world.write("skills/beta/SKILL.md", &skill_md("beta", BODY));
    world.commit("first");
    let url = world.url();
    let project = world.path("project");
    let (code, out, err) = world.run("project", &["add", &url, "--no-sync"]);
    assert_eq!(code, 0, "{out}{err}");
    let (code, out, err) = world.run(
        "project",
        &["sync", "--agent", "claude-code", "--agent", "cursor"],
    );
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("agents claude-code, cursor recorded in `skillpath.lock`"),
        "{out}"
    );
    let lock = std::fs::read_to_string(project.join("skillpath.lock")).expect("lock");
    assert!(
        lock.contains("agents = [\"claude-code\", \"cursor\"]"),
        "{lock}"
    );
    // A second sync of the same agents changes nothing and says nothing of them.
    let (code, out, _) = world.run("project", &["sync", "--agent", "cursor"]);
    assert_eq!(code, 0);
    assert!(!out.contains("recorded"), "{out}");
    assert_eq!(
        std::fs::read_to_string(project.join("skillpath.lock")).expect("lock"),
        lock
    );
    let synced = agent_folders(&project);
    for folder in [
        ".agents/skills/alpha/SKILL.md",
        ".claude/skills/alpha",
        ".cursor/skills/beta",
    ] {
        assert!(synced.contains_key(folder), "{:?}", synced.keys());
    }

    // A fresh clone (agent folders not committed), on a machine with other agents installed
    // (the world's home has `.claude` and `.codex`): the lock's agents' folders, byte for byte.
    let clone = world.install_in_a_clone(&project, ".agents/\n.claude/\n.cursor/\n");
    assert_eq!(agent_folders(&clone), agent_folders(&project));

    // The user scope: `sync --user --agent` records in the user's lock.
    let (code, out, err) = world.run("project", &["add", "--user", &url, "--no-sync"]);
    assert_eq!(code, 0, "{out}{err}");
    let (code, out, err) = world.run("project", &["sync", "--user", "--agent", "cursor"]);
    assert_eq!(code, 0, "{out}{err}");
    let user_lock =
        std::fs::read_to_string(world.path("home/.config/skillpath/skillpath.lock")).expect("lock");
    assert!(user_lock.contains("agents = [\"cursor\"]"), "{user_lock}");
    assert!(world.path("home/.cursor/skills/alpha/SKILL.md").is_file());
}

#[test]
fn broken_locks_and_odd_agent_folders_are_named() {
    let world = World::new();
    world.write("one/SKILL.md", &skill_md("one", "x\n"));
    world.commit("one");
    let project = world.path("project");
    let lock_path = project.join("skillpath.lock");
    std::fs::write(
        &lock_path,
        "version = 1\n<<<<<<< HEAD\n[skills.\"a\"]\n=======\n>>>>>>> b\n",
    )
    .expect("write");
    let (code, _, err) = world.run("project", &["sync"]);
    assert_eq!(code, 2);
    assert!(err.contains("merge conflict marker at line 2"), "{err}");
    std::fs::write(&lock_path, "version = 9\n").expect("write");
    let (code, _, err) = world.run("project", &["install", "--frozen"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("lock of version 9") && err.contains("upgrade skillpath"),
        "{err}"
    );
    assert_eq!(
        std::fs::read_to_string(&lock_path).expect("kept"),
        "version = 9\n",
        "left as it is"
    );
    std::fs::remove_file(&lock_path).expect("remove");

    // An agent folder that is a file, one that is a symlink elsewhere, and one that is a link
    // to the canonical folder.
    std::fs::write(project.join(".cursor"), "a file\n").expect("file");
    let elsewhere = world.path("elsewhere");
    std::fs::create_dir_all(&elsewhere).expect("mkdir");
    std::fs::create_dir_all(project.join(".goose")).expect("mkdir");
    std::os::unix::fs::symlink(&elsewhere, project.join(".goose/skills")).expect("link");
    std::fs::create_dir_all(project.join(".claude")).expect("mkdir");
    std::os::unix::fs::symlink("../.agents/skills", project.join(".claude/skills")).expect("link");
    let (code, out, err) = world.run(
        "project",
        &[
            "add",
            &world.url(),
            "--agent",
            "cursor,goose,claude-code,roo",
        ],
    );
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        out.contains("skipped: `.cursor/skills/one`") && out.contains(".cursor` is a file"),
        "{out}"
    );
    assert!(out.contains("writes nothing through a symlink"), "{out}");
    assert_eq!(
        std::fs::read_dir(&elsewhere).expect("list").count(),
        0,
        "nothing written through the link"
    );
    assert!(project.join(".agents/skills/one/SKILL.md").is_file());
    assert!(
        project.join(".roo/skills/one/SKILL.md").is_file(),
        "through its link"
    );
}

#[test]
fn two_syncs_at_once_leave_every_folder_whole() {
    let world = World::new();
    for index in 0..20 {
        let name = format!("skill-{index:02}");
        world.write(&format!("s/{name}/SKILL.md"), &skill_md(&name, BODY));
        world.write(&format!("s/{name}/data.txt"), &"x".repeat(10_000));
    }
    world.commit("many");
    let (code, out, err) = world.run(
        "project",
        &[
            "add",
            &world.url(),
            "--no-sync",
            "--agent",
            "claude-code,cursor",
        ],
    );
    assert_eq!(code, 0, "{out}{err}");
    let project = world.path("project");
    let mut children: Vec<_> = (0..4)
        .map(|_| {
            world
                .command("project", &["sync", "--copy"], "store.db")
                .spawn()
                .expect("spawn")
        })
        .collect();
    let codes: Vec<i32> = children
        .iter_mut()
        .map(|c| c.wait().expect("wait").code().unwrap_or(-1))
        .collect();
    assert_eq!(codes, [0, 0, 0, 0]);
    let (code, out, _) = world.run("project", &["install", "--check"]);
    assert_eq!(code, 0, "{out}");
    for dir in [".agents/skills", ".claude/skills", ".cursor/skills"] {
        let names: Vec<String> = std::fs::read_dir(project.join(dir))
            .expect("list")
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names.len(), 20, "no staging folder is left: {names:?}");
        let beside: Vec<String> = std::fs::read_dir(project.join(dir).parent().expect("parent"))
            .expect("list")
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(beside, ["skills"], "nothing beside {dir}");
    }
}

#[test]
fn a_team_server_publishes_an_index_that_add_installs_from_with_every_digest_checked() {
    let server_dir = tempfile::tempdir().expect("tempdir");
    let team = server_dir.path().join("team");
    for (name, extra) in [("solo", None), ("bundle", Some("scripts/go.sh"))] {
        let dir = team.join(name);
        std::fs::create_dir_all(dir.join("scripts")).expect("mkdir");
        std::fs::write(dir.join("SKILL.md"), skill_md(name, BODY)).expect("write");
        if let Some(file) = extra {
            std::fs::write(dir.join(file), "echo go\n").expect("write");
        }
    }
    let team_arg = team.display().to_string();
    let server = crate::support::HttpServer::start(server_dir.path(), &["--skills", &team_arg]);
    let site = format!("http://{}/", server.address);
    let index_url = format!(
        "http://{}/.well-known/agent-skills/index.json",
        server.address
    );

    let world = World::new();
    let (code, out, err) = world.run("project", &["add", &site, "--agent", "claude-code"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("added 2 skills"), "{out}");
    let project = world.path("project");
    assert_eq!(
        std::fs::read_to_string(project.join(".agents/skills/bundle/scripts/go.sh")).expect("file"),
        "echo go\n"
    );
    let lock = std::fs::read_to_string(project.join("skillpath.lock")).expect("lock");
    assert!(
        lock.contains(&format!("source = \"{index_url}\"")),
        "{lock}"
    );
    assert!(
        lock.contains("path = \"bundle\"") && lock.contains("digest = \"sha256:"),
        "{lock}"
    );

    // The same archive, by its URL: the SHA-256 is required, and checked.
    let archive_url = format!(
        "http://{}/.well-known/agent-skills/bundle.tar.gz",
        server.address
    );
    let (code, _, err) = world.run("project", &["add", &archive_url]);
    assert_eq!(code, 2);
    assert!(err.contains("its `--sha256` is required"), "{err}");
    let wrong = "0".repeat(64);
    let (code, _, err) = world.run("project", &["add", &archive_url, "--sha256", &wrong]);
    assert_eq!(code, 2);
    assert!(err.contains("nothing was installed"), "{err}");

    // A restore with the server publishing other content fails, naming the skill.
    let index = || {
        let response = server.exchange("GET", "/.well-known/agent-skills/index.json", &[], b"");
        // The body is chunked: the JSON is from its first `{` to its last `}`.
        let json = match (response.find('{'), response.rfind('}')) {
            (Some(start), Some(end)) => &response[start..=end],
            _ => "",
        };
        extract_digest(json, "bundle")
    };
    let published = index();
    assert!(
        published.starts_with("sha256:") && lock.contains(&published),
        "the lock pins what the index says: {published}"
    );
    std::fs::write(team.join("bundle/scripts/go.sh"), "echo changed\n").expect("edit");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while index() == published && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
    assert_ne!(index(), published, "the server reloaded the skill");
    std::fs::remove_dir_all(project.join(".agents")).expect("remove");
    let (code, _, err) = world.run_with("project", &["install", "--frozen"], "fresh.db");
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("publishes `bundle` with the digest"), "{err}");
    assert!(!project.join(".agents").exists(), "nothing was written");
}

/// The digest of the entry `name` in an index's JSON.
fn extract_digest(index: &str, name: &str) -> String {
    let json: serde_json::Value = serde_json::from_str(index.trim()).unwrap_or_default();
    json["skills"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|entry| entry["name"] == name)
        .and_then(|entry| entry["digest"].as_str())
        .unwrap_or_default()
        .to_owned()
}

#[test]
fn archive_files_are_sources_and_a_zip_slip_archive_is_refused_whole() {
    let world = World::new();
    let pack = world.path("pack");
    std::fs::create_dir_all(pack.join("kit/scripts")).expect("mkdir");
    std::fs::write(pack.join("kit/SKILL.md"), skill_md("kit", BODY)).expect("write");
    std::fs::write(pack.join("kit/scripts/a.sh"), "echo a\n").expect("write");
    let tar = |args: &[&str], dir: &Path| {
        let status = Command::new("tar")
            .args(args)
            .current_dir(dir)
            .status()
            .expect("tar");
        assert!(status.success());
    };
    tar(&["-czf", "../kit.tar.gz", "kit"], &pack);
    let archive = world.path("kit.tar.gz").display().to_string();
    let (code, out, err) = world.run("project", &["add", &archive, "--agent", "claude-code"]);
    assert_eq!(code, 0, "{out}{err}");
    let lock = std::fs::read_to_string(world.path("project/skillpath.lock")).expect("lock");
    assert!(
        lock.contains("path = \"kit\"") && lock.contains("digest = \"sha256:"),
        "{lock}"
    );
    assert_eq!(
        std::fs::read_to_string(world.path("project/.claude/skills/kit/scripts/a.sh"))
            .expect("linked"),
        "echo a\n"
    );
    // `-P` keeps the `..` of the entry's name, as a hostile archive would.
    std::fs::write(world.path("outside.txt"), "pwned\n").expect("write");
    tar(&["-czPf", "../evil.tar.gz", "kit", "../outside.txt"], &pack);
    let evil = world.path("evil.tar.gz").display().to_string();
    let (code, _, err) = world.run("project", &["add", &evil]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("has the entry `../outside.txt`, which leaves the archive's folder: refused"),
        "{err}"
    );
}

#[test]
fn one_command_moves_over_from_a_skills_cli_lock_and_a_gh_skill_folder() {
    let world = World::new();
    world.write("skills/alpha/SKILL.md", &skill_md("alpha", BODY));
    world.write("skills/beta/SKILL.md", &skill_md("beta", BODY));
    world.write("skills/gamma/SKILL.md", &skill_md("gamma", BODY));
    world.commit("three");
    let url = world.url();
    // What `npx skills add file://… -s alpha beta` writes (skills 1.7.4).
    let lock = format!(
        r#"{{
  "version": 1,
  "skills": {{
    "alpha": {{ "source": "{url}", "sourceUrl": "{url}", "sourceType": "git", "skillPath": "skills/alpha/SKILL.md", "computedHash": "3bffdf47" }},
    "beta": {{ "source": "{url}", "sourceUrl": "{url}", "sourceType": "git", "skillPath": "skills/beta/SKILL.md", "computedHash": "5c970bd5" }}
  }}
}}
"#
    );
    let project = world.path("project");
    std::fs::write(project.join("skills-lock.json"), &lock).expect("write");
    let (code, out, err) = world.run(
        "project",
        &[
            "add",
            "--from-lock",
            "skills-lock.json",
            "--agent",
            "claude-code",
        ],
    );
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("added 2 skills: alpha, beta"), "{out}");
    let ours = std::fs::read_to_string(project.join("skillpath.lock")).expect("lock");
    assert!(
        ours.contains("[skills.\"alpha\"]") && !ours.contains("gamma"),
        "{ours}"
    );
    assert_eq!(
        std::fs::read_to_string(project.join("skills-lock.json")).expect("kept"),
        lock
    );

    // A folder `gh skill` installed into names its source in the frontmatter.
    let gh = world.path("gh-skills/gamma");
    std::fs::create_dir_all(&gh).expect("mkdir");
    std::fs::write(
        gh.join("SKILL.md"),
        format!("---\nname: gamma\ndescription: Helps.\nmetadata:\n    github-path: skills/gamma\n    github-ref: refs/heads/main\n    github-repo: {url}\n---\n"),
    )
    .expect("write");
    let gh_dir = world.path("gh-skills").display().to_string();
    let (code, out, err) = world.run("project", &["add", "--from-lock", &gh_dir]);
    assert_eq!(code, 0, "{out}{err}");
    let ours = std::fs::read_to_string(project.join("skillpath.lock")).expect("lock");
    assert!(
        ours.contains("[skills.\"gamma\"]") && ours.contains("ref = \"main\""),
        "{ours}"
    );
    let (code, _, err) = world.run("project", &["add", "--from-lock", "nope.json"]);
    assert_eq!(code, 2, "{err}");
}

#[test]
fn values_write_a_projects_instance_of_a_golden_path() {
    let world = World::new();
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/skills/add-caching");
    for entry in std::fs::read_dir(&example).expect("example").flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let bytes = std::fs::read(entry.path()).expect("read");
        world.write(
            &format!("gp/add-caching/{name}"),
            &String::from_utf8(bytes).expect("utf-8"),
        );
    }
    world.commit("golden path");
    let (code, out, err) = world.run(
        "project",
        &["add", &world.url(), "--no-sync", "--agent", "claude-code"],
    );
    assert_eq!(code, 0, "{out}{err}");
    let project = world.path("project");
    std::fs::write(
        project.join("values.toml"),
        "[add-caching]\nservice_name = \"Orders\"\nttl_minutes = 5\n",
    )
    .expect("write");
    let (code, out, err) = world.run("project", &["sync", "--values", "values.toml"]);
    assert_eq!(code, 0, "{out}{err}");
    let instance = std::fs::read_to_string(project.join(".agents/skills/add-caching/SKILL.md"))
        .expect("instance");
    assert!(
        instance.starts_with("---\nname: \"add-caching\"\ndescription: \"Adds a distributed cache"),
        "{instance}"
    );
    assert!(
        instance.contains("`src/Orders` exists") && instance.contains("expire after 5 minutes"),
        "{instance}"
    );
    assert!(
        !instance.contains("{ServiceName}") && !instance.contains("args:"),
        "{instance}"
    );
    // A second sync with the values is clean; --check knows the rendering; without the
    // values the rendered SKILL.md differs from the lock.
    let (code, out, err) = world.run("project", &["sync", "--values", "values.toml"]);
    assert_eq!(code, 0, "{out}{err}");
    let (code, out, _) = world.run(
        "project",
        &["install", "--check", "--values", "values.toml"],
    );
    assert_eq!(code, 0, "{out}");
    let (code, out, _) = world.run("project", &["install", "--check"]);
    assert_eq!(code, 1);
    assert!(
        out.contains("`.agents/skills/add-caching/SKILL.md`: differs from the lock"),
        "{out}"
    );
    // A wrong value names the problem and writes nothing for that skill.
    std::fs::write(
        project.join("bad.toml"),
        "[add-caching]\ncache_provider = \"memcached\"\n",
    )
    .expect("write");
    let (code, out, _) = world.run("project", &["sync", "--values", "bad.toml"]);
    assert_eq!(code, 1);
    assert!(out.contains("cannot be rendered with its values"), "{out}");
    assert!(
        std::fs::read_to_string(project.join(".agents/skills/add-caching/SKILL.md"))
            .expect("kept")
            .contains("src/Orders")
    );
}

#[test]
fn user_scope_finds_installed_agents_where_their_variables_move_them() {
    let world = World::new();
    world.write("skills/alpha/SKILL.md", &skill_md("alpha", BODY));
    world.commit("one");
    std::fs::remove_dir_all(world.path("home/.claude")).expect("remove");
    std::fs::remove_dir_all(world.path("home/.codex")).expect("remove");
    for dir in ["claude-config", "codex-home"] {
        std::fs::create_dir_all(world.path(dir)).expect("mkdir");
    }
    let mut command = world.command("project", &["add", &world.url(), "--user"], "store.db");
    command
        .env("CLAUDE_CONFIG_DIR", world.path("claude-config"))
        .env("CODEX_HOME", world.path("codex-home"));
    let output = command.output().expect("run");
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(output.status.code(), Some(0), "{said}");
    let home = world.path("home");
    assert!(
        home.join(".agents/skills/alpha/SKILL.md").is_file(),
        "{said}"
    );
    for moved in ["claude-config/skills/alpha", "codex-home/skills/alpha"] {
        let link = world.path(moved);
        assert!(
            std::fs::symlink_metadata(&link).is_ok_and(|m| m.file_type().is_symlink()),
            "{moved}: {said}"
        );
        assert_eq!(
            std::fs::read_to_string(link.join("SKILL.md")).expect("through the link"),
            skill_md("alpha", BODY)
        );
    }
    assert!(
        !home.join(".claude").exists() && !home.join(".codex").exists(),
        "{said}"
    );
    assert!(home.join(".config/skillpath/skillpath.lock").is_file());
    assert!(
        !world.path("project/skillpath.lock").exists(),
        "the project's lock is not the user's"
    );
}

/// An update killed with SIGKILL at any moment leaves each skill folder whole: the old skill
/// or the new one, never a mix; the next `install --frozen` finishes the job.
#[test]
fn a_killed_update_leaves_each_folder_as_it_was_or_as_it_should_be() {
    let world = World::new();
    let version = |tag: &str| {
        for index in 0..20 {
            let name = format!("s{index:02}");
            world.write(
                &format!("s/{name}/SKILL.md"),
                &skill_md(&name, &format!("{tag}\n")),
            );
            world.write(&format!("s/{name}/data.txt"), &tag.repeat(50_000));
        }
        world.commit(tag)
    };
    version("old");
    let (code, out, err) = world.run(
        "project",
        &["add", &world.url(), "--copy", "--agent", "claude-code"],
    );
    assert_eq!(code, 0, "{out}{err}");
    let project = world.path("project");
    let snapshot = |dir: &Path| tree(dir);
    let old: Vec<BTreeMap<String, Vec<u8>>> = (0..20)
        .map(|i| snapshot(&project.join(format!(".agents/skills/s{i:02}"))))
        .collect();
    version("new");
    for delay_ms in [20u64, 60, 120, 200] {
        let mut child = world
            .command("project", &["update", "--force", "--copy"], "store.db")
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("spawn");
        std::thread::sleep(std::time::Duration::from_millis(delay_ms));
        let _ = child.kill();
        let _ = child.wait();
        for (index, before) in old.iter().enumerate() {
            for agent in [".agents/skills", ".claude/skills"] {
                let dir = project.join(agent).join(format!("s{index:02}"));
                let now = snapshot(&dir);
                let is_new = now.get("data.txt").is_some_and(|d| d.starts_with(b"new"))
                    && now.get("SKILL.md").is_some_and(|m| m.ends_with(b"new\n"))
                    && now.len() == 2;
                assert!(
                    now == *before || is_new,
                    "{} after {delay_ms} ms: {:?}",
                    dir.display(),
                    now.keys()
                );
            }
        }
    }
    let (code, out, err) = world.run("project", &["install", "--frozen", "--copy"]);
    assert_eq!(code, 0, "{out}{err}");
    let (code, out, _) = world.run("project", &["install", "--check"]);
    assert_eq!(code, 0, "{out}");
    let left: Vec<String> = [".agents", ".agents/skills", ".claude", ".claude/skills"]
        .iter()
        .flat_map(|dir| {
            std::fs::read_dir(project.join(dir))
                .expect("list")
                .flatten()
        })
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with('.'))
        .collect();
    assert!(left.is_empty(), "staging folders are cleaned: {left:?}");
}

/// Makes a folder unwritable for as long as it lives: immutable (`chattr +i`) where the tests
/// run as root, who may write any folder whatever its mode, else mode 0555.
struct ReadOnly(PathBuf);

impl ReadOnly {
    fn new(dir: &Path) -> ReadOnly {
        std::fs::create_dir_all(dir).expect("mkdir");
        let immutable = Command::new("chattr")
            .arg("+i")
            .arg(dir)
            .status()
            .is_ok_and(|s| s.success());
        if !immutable {
            use std::os::unix::fs::PermissionsExt as _;
            std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o555)).expect("chmod");
        }
        let probe = dir.join(".probe");
        assert!(
            std::fs::write(&probe, "x").is_err(),
            "the folder must refuse writes"
        );
        ReadOnly(dir.to_path_buf())
    }
}

impl Drop for ReadOnly {
    fn drop(&mut self) {
        let _ = Command::new("chattr").arg("-i").arg(&self.0).status();
        use std::os::unix::fs::PermissionsExt as _;
        let _ = std::fs::set_permissions(&self.0, std::fs::Permissions::from_mode(0o755));
    }
}

#[test]
fn a_read_only_agent_folder_is_skipped_and_the_others_are_written() {
    let world = World::new();
    world.write("one/SKILL.md", &skill_md("one", "x\n"));
    world.commit("one");
    let project = world.path("project");
    let _read_only = ReadOnly::new(&project.join(".cursor/skills"));
    let (code, out, err) = world.run(
        "project",
        &["add", &world.url(), "--agent", "cursor,claude-code"],
    );
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        out.contains("skipped: `.cursor/skills/one`: cannot"),
        "{out}"
    );
    assert!(
        project.join(".claude/skills/one/SKILL.md").is_file(),
        "{out}"
    );
    assert!(
        project.join(".agents/skills/one/SKILL.md").is_file(),
        "{out}"
    );
}

/// Copies every file under `from` into `to`.
fn copy_tree(from: &Path, to: &Path) {
    for (relative, bytes) in tree(from) {
        let path = to.join(relative);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(path, bytes).expect("write");
    }
}

#[test]
fn a_package_is_installed_with_its_members_locked_and_restored() {
    let world = World::new();
    let example = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/packages/dotnet-clean-architecture");
    copy_tree(
        &example,
        &world.path("src/packages/dotnet-clean-architecture"),
    );
    world.commit("the package");
    let url = world.url();

    let (code, out, err) = world.run("project", &["add", &url, "--agent", "claude-code"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("added 4 skills"), "{out}");
    let project = world.path("project");
    let lock = std::fs::read_to_string(project.join("skillpath.lock")).expect("lock");
    assert!(
        lock.contains("[skills.\"dotnet-clean-architecture\"]")
            && lock.contains("path = \"packages/dotnet-clean-architecture\"")
            && lock.contains("path = \"PACKAGE.md\"")
            && lock.contains("path = \"docs/architecture.md\""),
        "{lock}"
    );
    // The package's folder holds its manifest and pages, byte for byte, its members beside it.
    let installed = project.join(".agents/skills/dotnet-clean-architecture");
    let package: BTreeMap<String, Vec<u8>> = tree(&example)
        .into_iter()
        .filter(|(path, _)| !path.starts_with("skills/"))
        .collect();
    assert_eq!(tree(&installed), package);
    assert_eq!(
        std::fs::read(project.join(".agents/skills/add-entity/SKILL.md")).expect("member"),
        std::fs::read(example.join("skills/add-entity/SKILL.md")).expect("source")
    );

    // The store holds the package with its members, so a server gives them its options.
    let (code, out, _) = world.run(
        "project",
        &["list", "--kind", "package", "--format", "json"],
    );
    assert_eq!(code, 0);
    let listed: serde_json::Value = serde_json::from_str(&out).expect("json");
    assert_eq!(
        listed["items"][0]["name"], "dotnet-clean-architecture",
        "{listed}"
    );
    let mut server = crate::mcp_wire::Server::spawn(world.command(
        "project",
        &["serve", "--no-discover", "--tools", "per-skill"],
        "store.db",
    ));
    let tools = server.call("tools/list", serde_json::json!({}));
    let entity = tools["result"]["tools"]
        .as_array()
        .and_then(|tools| tools.iter().find(|tool| tool["name"] == "add-entity"))
        .unwrap_or_else(|| panic!("add-entity is served: {tools}"));
    assert_eq!(
        entity["inputSchema"]["properties"]["idStrategy"]["default"], "guid",
        "a member installed takes its package's options: {entity}"
    );
    let (code, log) = server.finish();
    assert_eq!(code, Some(0), "{log}");
    let (code, out, _) = world.run("project", &["status"]);
    assert_eq!(code, 0, "clean: {out}");

    // A member rendered with values takes its package's options: an override, and the
    // package's default where none is given; `install --check` knows the rendering.
    std::fs::write(
        project.join("values.toml"),
        "[add-entity]\nservice_name = \"Orders\"\nentity_name = \"Order\"\nidStrategy = \"typed-id\"\n\n[add-repository]\nservice_name = \"Orders\"\nentity_name = \"Order\"\n",
    )
    .expect("values");
    let (code, out, err) = world.run("project", &["sync", "--values", "values.toml"]);
    assert_eq!(code, 0, "{out}{err}");
    let entity = std::fs::read_to_string(project.join(".agents/skills/add-entity/SKILL.md"))
        .expect("instance");
    assert!(
        entity.contains(
            "Adds the `Order` entity to the `Orders` service, with ids by the `typed-id`"
        ),
        "{entity}"
    );
    let repository =
        std::fs::read_to_string(project.join(".agents/skills/add-repository/SKILL.md"))
            .expect("instance");
    assert!(!repository.contains("{IdStrategy}"), "{repository}");
    let (code, out, _) = world.run(
        "project",
        &["install", "--check", "--values", "values.toml"],
    );
    assert_eq!(code, 0, "{out}");
    std::fs::write(
        project.join("package-values.toml"),
        "[dotnet-clean-architecture]\nidStrategy = \"guid\"\n",
    )
    .expect("values");
    let (code, out, _) = world.run("project", &["sync", "--values", "package-values.toml"]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("give its options in the tables of its member skills"),
        "{out}"
    );
    // Back to the locked content, which a plain sync leaves as local edits.
    let (code, out, err) = world.run("project", &["install", "--frozen"]);
    assert_eq!(code, 0, "{out}{err}");

    // A fresh clone is restored byte for byte, the package with the rest.
    let clone = world.install_in_a_clone(&project, ".agents/\n.claude/\n");
    let without_ignore = |dir: &Path| -> BTreeMap<String, Vec<u8>> {
        agent_folders(dir)
            .into_iter()
            .filter(|(p, _)| p != ".gitignore")
            .collect()
    };
    assert_eq!(without_ignore(&clone), without_ignore(&project));
    let (code, out, _) = world.run_with("clone", &["list", "--kind", "package"], "fresh.db");
    assert_eq!(code, 0);
    assert!(out.contains("dotnet-clean-architecture"), "{out}");

    // From a folder source too: the package found beside its first member.
    std::fs::create_dir_all(world.path("other")).expect("mkdir");
    let folder = example.display().to_string();
    let (code, out, err) = world.run_with(
        "other",
        &["add", &folder, "--agent", "claude-code"],
        "other.db",
    );
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("added 4 skills"), "{out}");
    assert_eq!(
        tree(&world.path("other/.agents/skills/dotnet-clean-architecture")),
        package
    );
}

/// `add --namespace --visibility`: a team's copy of a source. A namespace that does not exist
/// is refused with nothing locked or written; one that does gets the skills under `@ns/name`
/// with the visibility asked for, while `@global` keeps its own skill of the same name; the
/// lock records the namespace, the agents' folders are named as the agent knows the skill;
/// `update` and a teammate's `install --frozen` on a new store keep it in that namespace.
#[test]
fn add_into_a_namespace_is_locked_there_and_restored_there() {
    let world = World::new();
    world.write("skills/alpha/SKILL.md", &skill_md("alpha", BODY));
    world.commit("first");
    let url = world.url();
    let project = world.path("project");
    let placed = ["--namespace", "@team-a", "--visibility", "private"];
    let add: Vec<&str> = ["add", url.as_str(), "--agent", "claude-code"]
        .into_iter()
        .chain(placed)
        .collect();

    let (code, out, err) = world.run("project", &add);
    assert_eq!(code, 1, "{out}{err}");
    assert!(err.contains("namespaces create @team-a"), "{err}");
    assert!(!project.join("skillpath.lock").exists());
    assert!(!project.join(".claude/skills/alpha").exists());

    // `@global` has an `alpha` of its own, from elsewhere, which the team's add leaves alone.
    let elsewhere = world.path("elsewhere/alpha");
    std::fs::create_dir_all(&elsewhere).expect("mkdir");
    std::fs::write(elsewhere.join("SKILL.md"), skill_md("alpha", "global\n")).expect("write");
    let (code, out, err) = world.run("project", &["import", &elsewhere.display().to_string()]);
    assert_eq!(code, 0, "{out}{err}");
    let (code, out, err) = world.run("project", &["namespaces", "create", "@team-a"]);
    assert_eq!(code, 0, "{out}{err}");
    let (code, out, err) = world.run("project", &add);
    assert_eq!(code, 0, "{out}{err}");
    let lock = std::fs::read_to_string(project.join("skillpath.lock")).expect("lock");
    assert!(lock.contains("[skills.\"alpha\"]"), "{lock}");
    assert!(lock.contains("namespace = \"@team-a\""), "{lock}");
    let shown = |db: &str, name: &str| -> serde_json::Value {
        let (code, out, err) = world.run_with("project", &["show", name, "--format", "json"], db);
        assert_eq!(code, 0, "{out}{err}");
        serde_json::from_str(&out).expect("json")
    };
    let team = shown("store.db", "@team-a/alpha");
    assert_eq!(
        (&team["namespace"], &team["visibility"], &team["revision"]),
        (
            &serde_json::json!("@team-a"),
            &serde_json::json!("private"),
            &serde_json::json!(1)
        )
    );
    assert!(team["provenance"].to_string().contains(&url), "{team}");
    let global = shown("store.db", "alpha");
    assert!(
        global["skill_md"]
            .as_str()
            .expect("text")
            .contains("global"),
        "{global}"
    );
    assert_eq!(
        std::fs::read_to_string(project.join(".claude/skills/alpha/SKILL.md")).expect("synced"),
        skill_md("alpha", BODY)
    );

    // Upstream moves on: the team's skill gets the revision, `@global`'s none.
    world.write(
        "skills/alpha/SKILL.md",
        &skill_md("alpha", &BODY.replace("one\n", "1\n")),
    );
    world.commit("second");
    let (code, out, err) = world.run("project", &["update"]);
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(shown("store.db", "@team-a/alpha")["revision"], 2);
    assert_eq!(shown("store.db", "alpha")["revision"], 1);
    assert!(
        std::fs::read_to_string(project.join("skillpath.lock"))
            .expect("lock")
            .contains("namespace = \"@team-a\"")
    );

    // A teammate's clone on a new store: the namespace is made and the skill restored into it.
    let clone = world.install_in_a_clone(&project, ".agents/\n.claude/\n");
    assert_eq!(
        std::fs::read_to_string(clone.join(".claude/skills/alpha/SKILL.md")).expect("restored"),
        skill_md("alpha", &BODY.replace("one\n", "1\n"))
    );
    let restored = shown("fresh.db", "@team-a/alpha");
    assert_eq!(restored["namespace"], "@team-a");
    let (code, _, _) = world.run_with("clone", &["show", "alpha"], "fresh.db");
    assert_eq!(code, 1, "nothing of `@global` was made");
}
