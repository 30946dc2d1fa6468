//! Fixtures: skill folders in a temporary source folder, read and locked through the crate.

use std::path::{Path, PathBuf};

use skillpath_sources::digest::{files_of, tree_digest};
use skillpath_sources::lock::LockedSkill;
use skillpath_sources::source::{self, Origin, Pin};
use skillpath_sources::tree::SourceSkill;

/// A source folder and a project folder in one temporary folder.
pub(crate) struct World {
    temp: tempfile::TempDir,
}

impl World {
    pub(crate) fn new() -> World {
        let world = World {
            temp: tempfile::tempdir().expect("tempdir"),
        };
        for dir in ["src", "project"] {
            std::fs::create_dir_all(world.path(dir)).expect("mkdir");
        }
        world
    }

    /// `relative` in the world.
    pub(crate) fn path(&self, relative: &str) -> PathBuf {
        self.temp.path().join(relative)
    }

    /// The project folder.
    pub(crate) fn project(&self) -> PathBuf {
        self.path("project")
    }

    /// Writes `bytes` at `relative` in the source folder.
    pub(crate) fn write(&self, relative: &str, bytes: &[u8]) {
        let path = self.path("src").join(relative);
        std::fs::create_dir_all(path.parent().expect("a file has a folder")).expect("mkdir");
        std::fs::write(path, bytes).expect("write");
    }

    /// Writes the skill `name` (a `SKILL.md` and a script) into the source folder.
    pub(crate) fn skill(&self, name: &str, script: &str) {
        self.write(
            &format!("{name}/SKILL.md"),
            format!("---\nname: {name}\ndescription: The {name} skill.\n---\nRun the script.\n")
                .as_bytes(),
        );
        self.write(&format!("{name}/scripts/run.sh"), script.as_bytes());
    }

    /// The source folder as a lock records it.
    pub(crate) fn source(&self) -> String {
        Origin::Folder {
            path: self.path("src"),
        }
        .recorded()
    }

    /// The skill at `path` of the source folder as it is now.
    pub(crate) fn read(&self, path: &str) -> SourceSkill {
        let found = source::read(&Origin::from_recorded(&self.source()), Pin::default(), "")
            .expect("the source folder reads");
        found.skill_at(&self.source(), path).expect("the skill")
    }

    /// The lock entry of the skill at `path` as the source holds it now.
    pub(crate) fn lock(&self, path: &str) -> LockedSkill {
        let files = files_of(&self.read(path).snapshot);
        LockedSkill {
            source: self.source(),
            namespace: None,
            reference: None,
            commit: None,
            digest: None,
            version: None,
            path: path.to_owned(),
            revision: 1,
            tree: tree_digest(&files),
            files,
        }
    }
}

/// Every path under `dir`, relative to it, sorted; symlinks listed, not followed.
pub(crate) fn listing(dir: &Path) -> Vec<String> {
    let mut paths = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(folder) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&folder) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let relative = path
                .strip_prefix(dir)
                .expect("inside")
                .display()
                .to_string();
            if entry.file_type().is_ok_and(|kind| kind.is_dir()) {
                pending.push(path);
            }
            paths.push(relative);
        }
    }
    paths.sort();
    paths
}
