//! Skill folders on disk: reading one into a [`SkillSnapshot`], writing one back.
//!
//! A skill's files are everything under its folder except `SKILL.md` itself, `.git`,
//! `node_modules`, and sub-folders that are skills of their own (they are imported as such).
//! Symlinks are followed only when they stay inside the skill folder.

use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use rayon::prelude::*;
use sha2::{Digest, Sha256};

use crate::error::{StoreError, StoreResult};
use crate::model::{
    FolderContent, FolderImport, FolderStamp, Provenance, RecordedStamp, SkillFile, SkillSnapshot,
    check_relative_path,
};

/// Largest file a skill may hold.
pub const MAX_FILE_SIZE: u64 = 16 * 1024 * 1024;

fn io(context: String) -> impl FnOnce(std::io::Error) -> StoreError {
    move |source| StoreError::Io { context, source }
}

/// Reads the skill folder `dir`.
pub fn read_skill_folder(dir: &Path) -> StoreResult<SkillSnapshot> {
    read_found(dir, skill_files(dir)?.1)
}

/// Reads the `SKILL.md` of `dir` and the files `entries` that [`skill_files`] found in it.
fn read_found(dir: &Path, entries: Vec<FolderEntry>) -> StoreResult<SkillSnapshot> {
    let skill_md_path = dir.join("SKILL.md");
    let skill_md = skillpath_core::load::read_text(
        &skill_md_path,
        skillpath_core::load::DEFAULT_MAX_FILE_SIZE,
    )
    .map_err(|diagnostic| StoreError::InvalidSkill(diagnostic.message))?;
    let mut files = Vec::new();
    for entry in entries {
        if entry.metadata.len() > MAX_FILE_SIZE {
            return Err(StoreError::InvalidSkill(format!(
                "`{}` is {} bytes, over the limit of {MAX_FILE_SIZE} bytes for a skill's file",
                entry.path.display(),
                entry.metadata.len()
            )));
        }
        let bytes =
            fs::read(&entry.real).map_err(io(format!("cannot read `{}`", entry.path.display())))?;
        files.push(SkillFile {
            path: entry.relative,
            bytes,
        });
    }
    SkillSnapshot::new(skill_md, files)
}

/// One file of a skill folder (not `SKILL.md`), found by [`skill_files`].
struct FolderEntry {
    /// Its path in the skill, `/`-separated.
    relative: String,
    /// Where it was found.
    path: PathBuf,
    /// Where it really is (symlinks resolved, inside the skill folder).
    real: PathBuf,
    metadata: fs::Metadata,
}

/// The canonical path of the skill folder `dir` and its files, in no particular order: what
/// [`read_skill_folder`] reads and what [`folder_stamp`] describes, found one way for both.
fn skill_files(dir: &Path) -> StoreResult<(PathBuf, Vec<FolderEntry>)> {
    let root = dir
        .canonicalize()
        .map_err(io(format!("cannot read `{}`", dir.display())))?;
    let mut files = Vec::new();
    // Each folder to read comes with the real folders above it, so a symlink back to one of
    // them (a loop, which would be read forever) is caught.
    let mut stack = vec![(root.clone(), String::new(), Vec::<PathBuf>::new())];
    while let Some((folder, prefix, above)) = stack.pop() {
        let entries =
            fs::read_dir(&folder).map_err(io(format!("cannot read `{}`", folder.display())))?;
        for entry in entries {
            let entry = entry.map_err(io(format!("cannot read `{}`", folder.display())))?;
            let name = entry.file_name();
            let Some(name) = name.to_str() else {
                return Err(StoreError::InvalidSkill(format!(
                    "`{}` has a file name that is not UTF-8",
                    entry.path().display()
                )));
            };
            if name == ".git" || name == "node_modules" || (prefix.is_empty() && name == "SKILL.md")
            {
                continue;
            }
            let path = entry.path();
            let file_type = entry
                .file_type()
                .map_err(io(format!("cannot read `{}`", path.display())))?;
            // `folder` is canonical, so only a symlink needs resolving (which costs a lookup
            // of every component of its path: most of the time of a re-import).
            let real = if file_type.is_symlink() {
                path.canonicalize()
                    .map_err(io(format!("cannot read `{}`", path.display())))?
            } else {
                path.clone()
            };
            if !real.starts_with(&root) {
                return Err(StoreError::InvalidSkill(format!(
                    "`{}` is a symlink that leads out of the skill folder",
                    path.display()
                )));
            }
            let relative = if prefix.is_empty() {
                name.to_owned()
            } else {
                format!("{prefix}/{name}")
            };
            let metadata = if file_type.is_symlink() {
                fs::metadata(&real)
            } else {
                entry.metadata()
            }
            .map_err(io(format!("cannot read `{}`", path.display())))?;
            if metadata.is_dir() {
                if real.join("SKILL.md").exists() {
                    continue;
                }
                if real == folder || above.contains(&real) {
                    return Err(StoreError::InvalidSkill(format!(
                        "`{}` is a symlink to a folder that contains it (a symlink loop)",
                        path.display()
                    )));
                }
                let mut chain = above.clone();
                chain.push(folder.clone());
                stack.push((real, relative, chain));
                continue;
            }
            files.push(FolderEntry {
                relative,
                path,
                real,
                metadata,
            });
        }
    }
    Ok((root, files))
}

/// How close to now a file's change time may be for its folder to get a stamp. A file written
/// within the same tick of the file system's clock as the stamp could change again without
/// its times changing (git calls such entries "racily clean"), so such a folder is read again
/// next time instead.
const RACY_WINDOW: Duration = Duration::from_secs(2);

/// A fingerprint of the skill folder `dir` made from the metadata of its files (path, size,
/// modification and status-change times, inode), without reading them: equal stamps mean the
/// folder has not changed, as far as the file system can tell, so an import can skip reading
/// it. `None` when a file changed too recently for its times to be trusted (see
/// [`RACY_WINDOW`]). Take the stamp *before* reading the folder, so a change made while
/// reading shows as a different stamp next time.
pub fn folder_stamp(dir: &Path) -> StoreResult<Option<FolderStamp>> {
    stamp_trusting_times_older_than(dir, RACY_WINDOW)
}

/// [`folder_stamp`] with `racy_window` in place of [`RACY_WINDOW`].
fn stamp_trusting_times_older_than(
    dir: &Path,
    racy_window: Duration,
) -> StoreResult<Option<FolderStamp>> {
    let skill_md = skill_md_metadata(dir)?;
    let (folder, files) = skill_files(dir)?;
    stamp_of(dir, &folder, &skill_md, &files, racy_window)
}

/// The metadata of the `SKILL.md` of `dir` (taken before its files are listed, for a stamp).
fn skill_md_metadata(dir: &Path) -> StoreResult<fs::Metadata> {
    let skill_md = dir.join("SKILL.md");
    fs::metadata(&skill_md).map_err(io(format!("cannot read `{}`", skill_md.display())))
}

/// The stamp of the skill folder `dir` (canonically `folder`) from the metadata of its
/// `SKILL.md` and of the files [`skill_files`] found in it.
fn stamp_of(
    dir: &Path,
    folder: &Path,
    skill_md: &fs::Metadata,
    files: &[FolderEntry],
    racy_window: Duration,
) -> StoreResult<Option<FolderStamp>> {
    let mut entries: Vec<(&str, &fs::Metadata)> = vec![("", skill_md)];
    entries.extend(
        files
            .iter()
            .map(|entry| (entry.relative.as_str(), &entry.metadata)),
    );
    entries.sort_by(|a, b| a.0.cmp(b.0));
    let racy_since = SystemTime::now()
        .checked_sub(racy_window)
        .unwrap_or(SystemTime::UNIX_EPOCH);
    let mut hasher = Sha256::new();
    for (relative, metadata) in entries {
        let modified = metadata
            .modified()
            .map_err(io(format!("cannot read the times of `{}`", dir.display())))?;
        let marks = change_marks(metadata);
        let changed = UNIX_EPOCH + Duration::new(marks.changed_seconds, marks.changed_nanos);
        if modified >= racy_since || changed >= racy_since {
            return Ok(None);
        }
        let modified = modified.duration_since(UNIX_EPOCH).unwrap_or_default();
        hasher.update(format!(
            "{relative}\0{}\0{}.{}\0{}.{}\0{}\n",
            metadata.len(),
            modified.as_secs(),
            modified.subsec_nanos(),
            marks.changed_seconds,
            marks.changed_nanos,
            marks.inode
        ));
    }
    Ok(Some(FolderStamp {
        folder: folder.display().to_string(),
        stamp: format!("{:x}", hasher.finalize()),
    }))
}

/// What a file's metadata says besides its size and modification time, where the platform
/// tells: a tool that restores modification times (an archive, `touch -r`) still changes these.
struct ChangeMarks {
    changed_seconds: u64,
    changed_nanos: u32,
    inode: u64,
}

#[cfg(unix)]
fn change_marks(metadata: &fs::Metadata) -> ChangeMarks {
    use std::os::unix::fs::MetadataExt;
    ChangeMarks {
        changed_seconds: u64::try_from(metadata.ctime()).unwrap_or(0),
        changed_nanos: u32::try_from(metadata.ctime_nsec()).unwrap_or(0) % 1_000_000_000,
        inode: metadata.ino(),
    }
}

#[cfg(not(unix))]
fn change_marks(_: &fs::Metadata) -> ChangeMarks {
    ChangeMarks {
        changed_seconds: 0,
        changed_nanos: 0,
        inode: 0,
    }
}

/// A skill folder to import, and where it was found.
#[derive(Debug, Clone)]
pub struct FolderSource {
    /// The folder.
    pub dir: PathBuf,
    /// Where the skill will say it comes from.
    pub provenance: Provenance,
}

impl FolderSource {
    /// The folder `dir`, found under `root` in `scope` (e.g. `project`, `user`, `folder`).
    pub fn imported(dir: PathBuf, root: String, scope: String) -> FolderSource {
        FolderSource {
            provenance: Provenance::Imported {
                path: dir.display().to_string(),
                root,
                scope,
            },
            dir,
        }
    }
}

/// What [`read_folders`] could not read, and why.
pub type Unreadable = (PathBuf, StoreError);

/// Reads the skill folders `sources` for an import, skipping those whose stamp equals the one
/// `recorded` with their skill's current revision (see [`Store::folder_stamps`]): those are
/// given to the import unread, by name. `progress` is called once per folder. Folders are read
/// on every core: an import of many skills waits mostly on the disk.
///
/// [`Store::folder_stamps`]: crate::Store::folder_stamps
pub fn read_folders(
    sources: Vec<FolderSource>,
    recorded: &[RecordedStamp],
    progress: &(dyn Fn(&Path) + Sync),
) -> (Vec<FolderImport>, Vec<Unreadable>) {
    let recorded: HashMap<&str, &RecordedStamp> = recorded
        .iter()
        .map(|stamp| (stamp.folder.as_str(), stamp))
        .collect();
    let read_one = |source: FolderSource| -> Result<FolderImport, Unreadable> {
        progress(&source.dir);
        let dir = source.dir.as_path();
        // One listing of the folder serves both the stamp and the reading; the stamp is made
        // from metadata taken before any file is read.
        let found = skill_md_metadata(dir).and_then(|skill_md| {
            let (folder, files) = skill_files(dir)?;
            let stamp = stamp_of(dir, &folder, &skill_md, &files, RACY_WINDOW)?;
            Ok((stamp, files))
        });
        let (stamp, files) = found.map_err(|error| (source.dir.clone(), error))?;
        if let Some(stamp) = &stamp
            && let Some(known) = recorded.get(stamp.folder.as_str())
            && known.stamp == stamp.stamp
        {
            return Ok(FolderImport {
                provenance: source.provenance,
                content: FolderContent::Unchanged {
                    name: known.name.clone(),
                },
            });
        }
        let snapshot = read_found(dir, files).map_err(|error| (source.dir.clone(), error))?;
        Ok(FolderImport {
            provenance: source.provenance,
            content: FolderContent::Read { snapshot, stamp },
        })
    };
    let results: Vec<Result<FolderImport, Unreadable>> =
        sources.into_par_iter().map(read_one).collect();
    let mut items = Vec::with_capacity(results.len());
    let mut unreadable = Vec::new();
    for result in results {
        match result {
            Ok(item) => items.push(item),
            Err(problem) => unreadable.push(problem),
        }
    }
    (items, unreadable)
}

/// Writes `snapshot` into `dir` (created if needed): `SKILL.md` and every file. Paths are
/// checked again, so nothing is written outside `dir`.
pub fn write_skill_folder(dir: &Path, snapshot: &SkillSnapshot) -> StoreResult<()> {
    fs::create_dir_all(dir).map_err(io(format!("cannot create `{}`", dir.display())))?;
    let target = dir.join("SKILL.md");
    fs::write(&target, &snapshot.skill_md)
        .map_err(io(format!("cannot write `{}`", target.display())))?;
    for file in &snapshot.files {
        check_relative_path(&file.path)?;
        let target: PathBuf = file
            .path
            .split('/')
            .fold(dir.to_path_buf(), |path, part| path.join(part));
        if let Some(parent) = target.parent() {
            fs::create_dir_all(parent)
                .map_err(io(format!("cannot create `{}`", parent.display())))?;
        }
        fs::write(&target, &file.bytes)
            .map_err(io(format!("cannot write `{}`", target.display())))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_files_but_not_nested_skills_or_escaping_links() {
        let temp = tempfile::tempdir().expect("tempdir");
        let skill = temp.path().join("s");
        fs::create_dir_all(skill.join("references")).expect("mkdir");
        fs::create_dir_all(skill.join("nested")).expect("mkdir");
        fs::create_dir_all(skill.join(".git")).expect("mkdir");
        fs::write(
            skill.join("SKILL.md"),
            "---\nname: s\ndescription: d\n---\n",
        )
        .expect("write");
        fs::write(skill.join("references/a.md"), "A").expect("write");
        fs::write(skill.join("b.bin"), [0u8, 255]).expect("write");
        fs::write(
            skill.join("nested/SKILL.md"),
            "---\nname: nested\ndescription: d\n---\n",
        )
        .expect("write");
        fs::write(skill.join(".git/config"), "x").expect("write");
        let snapshot = read_skill_folder(&skill).expect("reads");
        let paths: Vec<&str> = snapshot.files.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(paths, ["b.bin", "references/a.md"]);

        fs::write(temp.path().join("secret"), "x").expect("write");
        std::os::unix::fs::symlink(temp.path().join("secret"), skill.join("link"))
            .expect("symlink");
        let error = read_skill_folder(&skill).expect_err("escapes");
        assert!(
            error.to_string().contains("symlink that leads out"),
            "{error}"
        );
    }

    /// The stamp of `dir`, trusting every time (the files of a test are all just written).
    fn stamp(dir: &Path) -> String {
        stamp_trusting_times_older_than(dir, Duration::ZERO)
            .expect("stamps")
            .expect("a stamp")
            .stamp
    }

    #[test]
    fn stamps_change_with_any_file_and_not_otherwise() {
        let temp = tempfile::tempdir().expect("tempdir");
        let skill = temp.path().join("s");
        fs::create_dir_all(skill.join("references")).expect("mkdir");
        fs::write(
            skill.join("SKILL.md"),
            "---\nname: s\ndescription: d\n---\n",
        )
        .expect("write");
        fs::write(skill.join("references/a.md"), "A").expect("write");
        let first = stamp(&skill);
        assert_eq!(stamp(&skill), first, "nothing changed");
        // Reading does not change it.
        read_skill_folder(&skill).expect("reads");
        assert_eq!(stamp(&skill), first);

        let mut before = first;
        let mut changed = |what: &str, change: &dyn Fn()| {
            change();
            let now = stamp(&skill);
            assert_ne!(now, before, "{what} leaves the stamp as it was");
            before = now;
        };
        changed("rewriting a file with the same bytes", &|| {
            fs::write(skill.join("references/a.md"), "A").expect("write")
        });
        changed("editing SKILL.md", &|| {
            fs::write(
                skill.join("SKILL.md"),
                "---\nname: s\ndescription: e\n---\n",
            )
            .expect("write")
        });
        changed("adding a file", &|| {
            fs::write(skill.join("b.txt"), "B").expect("write")
        });
        changed("renaming a file", &|| {
            fs::rename(skill.join("b.txt"), skill.join("c.txt")).expect("rename")
        });
        changed("removing a file", &|| {
            fs::remove_file(skill.join("c.txt")).expect("remove")
        });
        // Nested skills and `.git` are not the skill's files, so they do not count.
        let unchanged = stamp(&skill);
        fs::create_dir_all(skill.join(".git")).expect("mkdir");
        fs::write(skill.join(".git/HEAD"), "x").expect("write");
        assert_eq!(stamp(&skill), unchanged);
    }

    #[test]
    fn folders_changed_just_now_get_no_stamp() {
        let temp = tempfile::tempdir().expect("tempdir");
        fs::write(
            temp.path().join("SKILL.md"),
            "---\nname: s\ndescription: d\n---\n",
        )
        .expect("write");
        assert_eq!(folder_stamp(temp.path()).expect("stamps"), None);
    }

    #[test]
    fn refuses_symlink_loops() {
        let temp = tempfile::tempdir().expect("tempdir");
        let skill = temp.path().join("s");
        fs::create_dir_all(skill.join("a")).expect("mkdir");
        fs::create_dir_all(skill.join("b")).expect("mkdir");
        fs::write(
            skill.join("SKILL.md"),
            "---\nname: s\ndescription: d\n---\n",
        )
        .expect("write");
        // Two links to one folder are read twice, not refused.
        std::os::unix::fs::symlink("../b", skill.join("a/to-b")).expect("symlink");
        let snapshot = read_skill_folder(&skill).expect("reads");
        assert!(snapshot.files.is_empty());
        // `a/to-b/to-a/to-b/…` never ends.
        std::os::unix::fs::symlink("../a", skill.join("b/to-a")).expect("symlink");
        let error = read_skill_folder(&skill).expect_err("a loop");
        assert!(error.to_string().contains("symlink loop"), "{error}");
        fs::remove_file(skill.join("b/to-a")).expect("unlink");
        std::os::unix::fs::symlink(".", skill.join("b/here")).expect("symlink");
        let error = read_skill_folder(&skill).expect_err("a loop");
        assert!(error.to_string().contains("symlink loop"), "{error}");
    }

    #[test]
    fn writes_back_byte_for_byte() {
        let temp = tempfile::tempdir().expect("tempdir");
        let snapshot = SkillSnapshot::new(
            "---\nname: s\r\ndescription: d\n---\n".into(),
            vec![SkillFile {
                path: "a/b/c.bin".into(),
                bytes: vec![0, 1, 2, 255],
            }],
        )
        .expect("valid");
        write_skill_folder(&temp.path().join("out"), &snapshot).expect("writes");
        assert_eq!(
            read_skill_folder(&temp.path().join("out")).expect("reads"),
            snapshot
        );
    }
}
