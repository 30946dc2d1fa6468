//! A skill is written only inside its agent folder, whole, or skipped with the reason.

use std::collections::BTreeMap;

use skillpath_sources::folders::{self, Scope, Target};
use skillpath_sources::write::{self, Edits, Outcome, Placed, ToWrite};

use crate::support::{World, listing};

/// The project's targets: the canonical `.agents/skills` and Claude Code's `.claude/skills`.
fn targets(scope: &Scope) -> Vec<Target> {
    let mut targets = folders::targets(scope, &[]);
    targets.push(Target {
        dir: scope.root().join(".claude/skills"),
        agents: vec!["claude-code"],
        canonical: false,
    });
    targets
}

/// What became of each skill, by name and folder, for assertions.
fn outcomes(world: &World, placed: &[Placed]) -> Vec<(String, Outcome)> {
    placed
        .iter()
        .map(|item| {
            let path = item
                .path
                .strip_prefix(world.project())
                .unwrap_or(&item.path);
            (path.display().to_string(), item.result)
        })
        .collect()
}

/// `outcome` at `path` in the project.
fn at(path: &str, outcome: Outcome) -> (String, Outcome) {
    (path.to_owned(), outcome)
}

/// An agent folder reached through a symlink (here `.claude`, pointing out of the project) is
/// never written through, by a sync or by an update: its skill is skipped with the reason,
/// and the folder the link leads to stays empty.
#[test]
fn nothing_is_written_through_a_symlinked_agent_folder() {
    let world = World::new();
    world.skill("demo", "echo hi\n");
    let (skill, locked) = (world.read("demo"), world.lock("demo"));
    let outside = world.path("outside");
    std::fs::create_dir_all(outside.join("skills")).expect("mkdir");
    std::os::unix::fs::symlink(&outside, world.project().join(".claude")).expect("link");
    let scope = Scope::Project(world.project());
    let targets = targets(&scope);
    let demo = ToWrite {
        name: "demo",
        snapshot: &skill.snapshot,
        untouched: &locked.files,
        rendered: false,
    };

    let placed = write::write_all(&scope, &targets, &[demo], false, Edits::Replace);
    let updated = write::write_update(
        &scope,
        &targets,
        "demo",
        &skill.snapshot,
        &BTreeMap::new(),
        false,
    );

    assert_eq!(
        outcomes(&world, &placed),
        [
            at(".agents/skills/demo", Outcome::Copied),
            at(".claude/skills/demo", Outcome::Skipped)
        ]
    );
    assert_eq!(
        outcomes(&world, &updated),
        [
            at(".agents/skills/demo", Outcome::Unchanged),
            at(".claude/skills/demo", Outcome::Skipped)
        ]
    );
    for skipped in [&placed[1], &updated[1]] {
        let reason = skipped.reason.as_deref().unwrap_or_default();
        assert!(
            reason.contains("is a symlink to")
                && reason.contains("writes nothing through a symlink"),
            "{reason}"
        );
    }
    assert_eq!(listing(&outside), ["skills"]);
}

/// A name that is a path (`..`, `a/b`, an absolute path, a hidden folder) is skipped in every
/// folder with the reason; nothing appears outside the agent folders, and the other skill is
/// written.
#[test]
fn a_name_that_is_a_path_writes_nothing_anywhere() {
    let world = World::new();
    world.skill("demo", "echo hi\n");
    let (skill, locked) = (world.read("demo"), world.lock("demo"));
    let absolute = world.path("escape").display().to_string();
    let names = [
        "..",
        "../escape",
        "a/b",
        absolute.as_str(),
        ".claude",
        "demo",
    ];
    let skills: Vec<ToWrite<'_>> = names
        .iter()
        .map(|name| ToWrite {
            name,
            snapshot: &skill.snapshot,
            untouched: &locked.files,
            rendered: false,
        })
        .collect();
    let scope = Scope::Project(world.project());

    let placed = write::write_all(&scope, &targets(&scope), &skills, false, Edits::Replace);

    for item in placed.iter().filter(|item| item.name != "demo") {
        assert_eq!(item.result, Outcome::Skipped, "{item:?}");
        let reason = item.reason.as_deref().unwrap_or_default();
        assert!(
            reason.contains("nothing is written or removed for it"),
            "{reason}"
        );
    }
    let demo: Vec<Outcome> = placed
        .iter()
        .filter(|item| item.name == "demo")
        .map(|item| item.result)
        .collect();
    assert_eq!(demo, [Outcome::Copied, Outcome::Linked]);
    assert_eq!(
        listing(&world.path(""))
            .iter()
            .filter(|p| !p.contains('/'))
            .collect::<Vec<_>>(),
        ["project", "src"]
    );
    assert_eq!(
        listing(&world.project()),
        [
            ".agents",
            ".agents/skills",
            ".agents/skills/demo",
            ".agents/skills/demo/SKILL.md",
            ".agents/skills/demo/scripts",
            ".agents/skills/demo/scripts/run.sh",
            ".claude",
            ".claude/skills",
            ".claude/skills/demo",
        ]
    );
}

/// A bad item is skipped and named while the rest is written: a skill folder of the source
/// that cannot be read, a skill whose folder is taken by a file, a skill with local edits
/// (kept); the half-written copy an interrupted write left is cleared, and the skill is
/// written whole.
#[test]
fn a_bad_item_is_skipped_and_named_while_the_rest_is_written() {
    let world = World::new();
    world.skill("good", "echo good\n");
    world.skill("taken", "echo taken\n");
    world.skill("edited", "echo edited\n");
    world.write(
        "bad/SKILL.md",
        b"---\nname: bad\ndescription: \xff\xfe\n---\n",
    );
    let found = skillpath_sources::source::read(
        &skillpath_sources::source::Origin::from_recorded(&world.source()),
        skillpath_sources::source::Pin::default(),
        "",
    )
    .expect("the source reads");
    assert_eq!(found.skipped.len(), 1, "{:?}", found.skipped);
    assert!(
        found.skipped[0].path.ends_with("bad"),
        "{:?}",
        found.skipped
    );
    assert!(!found.skipped[0].reason.is_empty());
    let names: Vec<&str> = found.skills.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["edited", "good", "taken"]);

    let scope = Scope::Project(world.project());
    let targets = folders::targets(&scope, &[]);
    let locks: Vec<_> = names.iter().map(|name| world.lock(name)).collect();
    let skills: Vec<ToWrite<'_>> = found
        .skills
        .iter()
        .zip(&locks)
        .map(|(skill, locked)| ToWrite {
            name: &skill.name,
            snapshot: &skill.snapshot,
            untouched: &locked.files,
            rendered: false,
        })
        .collect();
    let canonical = scope.canonical().expect("the canonical folder");
    write::write_all(&scope, &targets, &skills[..1], false, Edits::Keep);
    std::fs::write(canonical.join("edited/scripts/run.sh"), "echo mine\n").expect("edit");
    std::fs::write(canonical.join("taken"), "a file").expect("file");
    let leftover = world.path("project/.agents/.skillpath-staging-good-999999");
    std::fs::create_dir_all(leftover.join("scripts")).expect("mkdir");
    std::fs::write(leftover.join("SKILL.md"), "half").expect("write");

    let placed = write::write_all(&scope, &targets, &skills, false, Edits::Keep);

    assert_eq!(
        outcomes(&world, &placed),
        [
            at(".agents/skills/edited", Outcome::Skipped),
            at(".agents/skills/good", Outcome::Copied),
            at(".agents/skills/taken", Outcome::Skipped),
        ]
    );
    let reason = |i: usize| placed[i].reason.clone().unwrap_or_default();
    assert!(
        reason(0).starts_with("has local edits (scripts/run.sh)"),
        "{}",
        reason(0)
    );
    assert_eq!(
        reason(2),
        "is a file, not a skill folder; it is left as it is"
    );
    assert_eq!(
        std::fs::read_to_string(canonical.join("edited/scripts/run.sh")).expect("kept"),
        "echo mine\n"
    );
    assert!(!leftover.exists(), "the half-written copy is cleared");
    assert_eq!(
        folders::read_files(&canonical.join("good")).expect("written"),
        folders::files_of(&found.skills[1].snapshot)
    );
}

/// `remove_skill` takes out what skillpath wrote (the link first, then the copy it leads to),
/// keeps a folder with local edits unless forced (and with it the lock entry), and removes
/// nothing through a symlinked agent folder.
#[test]
fn a_skill_is_removed_only_where_skillpath_wrote_it() {
    let world = World::new();
    world.skill("demo", "echo hi\n");
    let (skill, locked) = (world.read("demo"), world.lock("demo"));
    let scope = Scope::Project(world.project());
    let mut targets = targets(&scope);
    let demo = ToWrite {
        name: "demo",
        snapshot: &skill.snapshot,
        untouched: &locked.files,
        rendered: false,
    };
    write::write_all(&scope, &targets, &[demo], false, Edits::Replace);
    let canonical = scope
        .canonical()
        .expect("the canonical folder")
        .join("demo");
    std::fs::write(canonical.join("scripts/run.sh"), "echo mine\n").expect("edit");
    targets.reverse();

    let kept = write::remove_skill(&scope, &targets, "demo", &locked.files, false);
    assert_eq!(
        kept.removed,
        [world.project().join(".claude/skills/demo")],
        "the link goes: it is skillpath's"
    );
    assert_eq!(kept.kept.len(), 1, "{kept:?}");
    assert_eq!(kept.kept[0].0, canonical);
    assert!(
        kept.kept[0]
            .1
            .starts_with("has local edits (scripts/run.sh)")
    );
    assert!(kept.left, "the edited copy keeps its lock entry");
    assert!(canonical.join("SKILL.md").is_file());

    let forced = write::remove_skill(&scope, &targets, "demo", &locked.files, true);
    assert_eq!(forced.removed, std::slice::from_ref(&canonical));
    assert!(!forced.left && forced.kept.is_empty(), "{forced:?}");
    assert!(!canonical.exists());

    let outside = world.path("outside");
    std::fs::create_dir_all(outside.join("skills/demo")).expect("mkdir");
    std::fs::write(outside.join("skills/demo/SKILL.md"), "not skillpath's").expect("write");
    std::fs::remove_dir_all(world.project().join(".claude")).expect("remove");
    std::os::unix::fs::symlink(&outside, world.project().join(".claude")).expect("link");
    let through = write::remove_skill(&scope, &targets, "demo", &locked.files, true);
    assert!(through.removed.is_empty(), "{through:?}");
    assert!(
        through.kept[0]
            .1
            .contains("writes nothing through a symlink")
    );
    assert!(outside.join("skills/demo/SKILL.md").is_file());
}

/// An update is written into no folder while one stands in the way: a folder with local edits
/// (named, with the files changed on each side) unless forced, and a folder skillpath did not
/// write even when forced.
#[test]
fn an_update_never_overwrites_local_edits_or_a_folder_skillpath_did_not_write() {
    let world = World::new();
    world.skill("demo", "echo hi\n");
    let (skill, locked) = (world.read("demo"), world.lock("demo"));
    let scope = Scope::Project(world.project());
    let targets = targets(&scope);
    let demo = ToWrite {
        name: "demo",
        snapshot: &skill.snapshot,
        untouched: &locked.files,
        rendered: false,
    };
    write::write_all(&scope, &targets, &[demo], false, Edits::Replace);
    let canonical = scope
        .canonical()
        .expect("the canonical folder")
        .join("demo");
    std::fs::write(canonical.join("scripts/run.sh"), "echo mine\n").expect("edit");
    world.write("demo/scripts/run.sh", b"echo upstream\n");
    world.write("demo/notes.md", b"new upstream\n");
    let upstream = world.read("demo").snapshot;

    let left = write::plan_update(&scope, &targets, "demo", &locked, &upstream, false, false)
        .expect_err("local edits stand in the way");
    assert_eq!(left.len(), 1, "{left:?}");
    assert_eq!(
        left[0].to_string(),
        "`.agents/skills/demo` has local edits: changed here: scripts/run.sh; changed upstream: notes.md, scripts/run.sh; changed on both sides: scripts/run.sh"
    );
    let forced = write::plan_update(&scope, &targets, "demo", &locked, &upstream, true, false);
    assert!(forced.is_ok_and(|merged| merged.is_empty()));

    std::fs::remove_dir_all(&canonical).expect("remove");
    std::fs::write(&canonical, "a file").expect("file");
    let left = write::plan_update(&scope, &targets, "demo", &locked, &upstream, true, false)
        .expect_err("a file skillpath did not write");
    assert_eq!(
        left[0].to_string(),
        "`.agents/skills/demo` is a file, not a skill folder; skillpath did not write it"
    );
    assert_eq!(std::fs::read_to_string(&canonical).expect("kept"), "a file");
}
