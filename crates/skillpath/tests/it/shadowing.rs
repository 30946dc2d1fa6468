//! `serve` names every skill it leaves out for another of the same name, with the one that
//! won: a user skill shadowed by the project's (discovery: project over user), and the second
//! of two folders of one name under `--skills` (an import keeps the first).

use std::process::{Command, Stdio};

use crate::support::{skillpath_bin, write_skill};

#[test]
fn serve_names_every_shadowed_skill_with_its_winner() {
    let work = tempfile::tempdir().expect("tempdir");
    let work = work.path().canonicalize().expect("canonical");
    let project = work.join("project");
    let home = work.join("home");
    std::fs::create_dir_all(project.join(".git")).expect("a repository");
    write_skill(
        &project.join(".agents/skills/deploy"),
        "deploy",
        "Use when deploying this project.",
    );
    write_skill(
        &home.join(".agents/skills/deploy"),
        "deploy",
        "Use when deploying anything.",
    );
    write_skill(
        &work.join("more/a/twin"),
        "twin",
        "Use when testing the first twin.",
    );
    write_skill(
        &work.join("more/b/twin"),
        "twin",
        "Use when testing the second twin.",
    );
    // Stdin is closed at once: the server starts, says what it found, and ends.
    let output = Command::new(skillpath_bin())
        .args(["serve", "--skills"])
        .arg(work.join("more"))
        .current_dir(&project)
        .env("SKILLPATH_DB", work.join("store.db"))
        .env("HOME", &home)
        .stdin(Stdio::null())
        .output()
        .expect("run serve");
    let log = String::from_utf8_lossy(&output.stderr);
    let discovered = format!(
        "skillpath: shadowed: `deploy` at `{}` (user) by `{}` (project)",
        home.join(".agents/skills/deploy").display(),
        project.join(".agents/skills/deploy").display()
    );
    assert!(log.contains(&discovered), "{log}");
    let imported = format!(
        "skillpath: shadowed: `twin` at `{}` (kept the one at `{}`)",
        work.join("more/b/twin").display(),
        work.join("more/a/twin").display()
    );
    assert!(log.contains(&imported), "{log}");
}
