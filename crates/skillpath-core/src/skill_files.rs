//! What files a skill holds, by one rule for `validate`, `import`, `serve`, `create_skill`,
//! the store and `export`: every file under the folder except `SKILL.md` itself, `.git`,
//! `node_modules`, and sub-folders that are skills of their own (they are skills in their own
//! right); [`not_a_skill_file`] says the same of a path given without a folder.
//!
//! Real folders hold things that are no skill's files: FIFOs and sockets, editors' lock files
//! (dangling symlinks), symlinks to elsewhere. Those are left out and reported, never opened,
//! so listing and reading a folder can neither hang nor leave it. A symlink is followed only
//! while it stays inside the skill folder.

use std::fs;
use std::path::{Path, PathBuf};

use crate::diagnostic::{Code, Diagnostic};
use crate::disk::{self, ReadProblem, SubFolder, read_regular, special_kind};

pub use crate::disk::FolderRead;

/// Largest file other than `SKILL.md` a skill may hold (the store keeps no larger one).
pub const MAX_FILE_SIZE: u64 = 16 * 1024 * 1024;

/// Folders that are never part of a skill, wherever they are in it: a repository's metadata (an
/// exported `.git/config` could run commands in the next `git status`) and installed packages.
/// Compared without case, as a case-insensitive file system would.
const NEVER_PART: [&str; 2] = [".git", "node_modules"];

/// Whether a folder named `name` is one of [`NEVER_PART`].
fn never_part(name: &str) -> bool {
    NEVER_PART
        .iter()
        .any(|never| never.eq_ignore_ascii_case(name))
}

/// Whether a file named `name` is a `SKILL.md` (which makes its folder a skill).
fn is_skill_md_name(name: &str) -> bool {
    name.eq_ignore_ascii_case("SKILL.md")
}

/// Why `relative`, a `/`-separated path inside a skill, can be no file of a skill, if it
/// cannot: the rule of this module for content that does not come from a folder (a skill
/// created through tools, a stored revision, an export). Nothing inside `.git` or
/// `node_modules`, and no `SKILL.md` but the skill's own, stored apart (one in a sub-folder
/// would make that folder a skill of its own, which could take another skill's name when the
/// skill is exported and imported again).
pub fn not_a_skill_file(relative: &str) -> Option<String> {
    let parts: Vec<&str> = relative.split('/').collect();
    if let Some(never) = parts.iter().find(|part| never_part(part)) {
        return Some(format!(
            "is inside `{never}`, which is never part of a skill"
        ));
    }
    match parts.as_slice() {
        [name] if is_skill_md_name(name) => {
            Some("is the skill's `SKILL.md`, which is stored on its own".to_owned())
        }
        [.., name] if is_skill_md_name(name) => Some(
            "is a `SKILL.md` in a sub-folder, which would make that folder a skill of its own"
                .to_owned(),
        ),
        _ => None,
    }
}

/// One file of a skill folder (not `SKILL.md`).
#[derive(Debug, Clone)]
pub struct FileEntry {
    /// Its path in the skill, `/`-separated.
    pub relative: String,
    /// Where it was found.
    pub path: PathBuf,
    /// Where it really is (symlinks resolved, inside the skill folder).
    pub real: PathBuf,
    /// Its metadata (of the file a symlink leads to).
    pub metadata: fs::Metadata,
}

/// The files of a skill folder, and what was left out of them.
#[derive(Debug, Clone)]
pub struct SkillFiles {
    /// The folder's canonical path.
    pub root: PathBuf,
    /// The files, in no particular order.
    pub entries: Vec<FileEntry>,
    /// Why files were left out (warnings), or why the skill cannot be read whole (errors: a
    /// file over [`MAX_FILE_SIZE`], a folder or file that cannot be read).
    pub diagnostics: Vec<Diagnostic>,
    /// Sub-folders that are skills of their own, left out, by path in the skill.
    pub nested_skills: Vec<String>,
    /// Symlinks that lead out of the folder, left out, by path in the skill.
    pub links_out: Vec<String>,
}

/// Lists the files of the skill folder `dir` without opening any. The `Err` case is a folder
/// that cannot be read at all.
pub fn list(dir: &Path) -> Result<SkillFiles, Diagnostic> {
    let root = dir
        .canonicalize()
        .map_err(|error| unreadable(dir, &error))?;
    Ok(list_read(dir, FolderRead::unread(root)))
}

/// Lists the files of the skill folder `dir` (as found) without opening any, from what a walk
/// read of it (`read`, see [`crate::walk`]): the listing [`list`] gives, with only the folders
/// the walk did not read read again, and each file's metadata looked up once.
pub fn list_read(dir: &Path, mut read: FolderRead) -> SkillFiles {
    let root = read.root().to_path_buf();
    let mut files = SkillFiles {
        root: root.clone(),
        entries: Vec::new(),
        diagnostics: Vec::new(),
        nested_skills: Vec::new(),
        links_out: Vec::new(),
    };
    // Each folder to list comes with its entries (read when it was found to be no skill of its
    // own), and with the real folders above it, so a symlink back to one of them (a loop,
    // which would be read forever) is caught.
    let mut stack = vec![(
        root.clone(),
        dir.to_path_buf(),
        String::new(),
        Vec::new(),
        read.root_entries(),
    )];
    while let Some((folder, shown, prefix, above, entries)) = stack.pop() {
        let entries = match entries {
            Ok(entries) => entries,
            Err(error) => {
                files.diagnostics.push(unreadable(&shown, &error));
                continue;
            }
        };
        for entry in entries {
            let entry = match entry {
                Ok(entry) => entry,
                Err(error) => {
                    files.diagnostics.push(unreadable(&shown, &error));
                    continue;
                }
            };
            let path = shown.join(&entry.name);
            let Some(name) = entry.name.to_str().filter(|name| !name.contains('\\')) else {
                files.diagnostics.push(
                    Diagnostic::warning(
                        Code::FileNameInvalid,
                        format!(
                            "`{}` has a name that is not UTF-8 or holds a backslash, so it is left out of the skill",
                            path.display()
                        ),
                    )
                    .with_hint("rename it; a skill's file names are UTF-8, with `/` the only separator")
                    .in_file(path),
                );
                continue;
            };
            if never_part(name) || (prefix.is_empty() && name == "SKILL.md") {
                continue;
            }
            let relative = if prefix.is_empty() {
                name.to_owned()
            } else {
                format!("{prefix}/{name}")
            };
            let file_type = match entry.file_type {
                Ok(file_type) => file_type,
                Err(error) => {
                    files.diagnostics.push(unreadable(&path, &error));
                    continue;
                }
            };
            // What the entry really is: its real path, and its metadata (`None` for a folder,
            // which its entry's type says without a lookup). `folder` is canonical, so only a
            // symlink needs resolving (which costs a lookup of every component of its path).
            let (real, metadata) = if file_type.is_symlink() {
                match path.canonicalize() {
                    Ok(real) if real.starts_with(&root) => match fs::metadata(&real) {
                        Ok(metadata) => (real, Some(metadata)),
                        Err(error) => {
                            files.diagnostics.push(unreadable(&path, &error));
                            continue;
                        }
                    },
                    Ok(_) => {
                        files.diagnostics.push(left_out_link(
                            &path,
                            "is a symlink that leads out of the skill folder",
                        ));
                        files.links_out.push(relative);
                        continue;
                    }
                    Err(_) => {
                        files.diagnostics.push(left_out_link(
                            &path,
                            "is a symlink that leads nowhere (its target does not exist)",
                        ));
                        continue;
                    }
                }
            } else if file_type.is_dir() {
                (folder.join(name), None)
            } else {
                let real = folder.join(name);
                match fs::symlink_metadata(&real) {
                    Ok(metadata) => (real, Some(metadata)),
                    Err(error) => {
                        files.diagnostics.push(unreadable(&path, &error));
                        continue;
                    }
                }
            };
            let Some(metadata) = metadata.filter(|metadata| !metadata.is_dir()) else {
                if real == folder || above.contains(&real) {
                    // The skill's own folder is a skill, so a link to it is a nested skill.
                    if disk::is_skill_dir(&real) {
                        files.nested_skills.push(relative);
                    } else {
                        files.diagnostics.push(left_out_link(
                            &path,
                            "is a symlink to a folder that contains it (a symlink loop)",
                        ));
                    }
                    continue;
                }
                match read.sub_folder(&real) {
                    SubFolder::Skill => files.nested_skills.push(relative),
                    SubFolder::Folder(entries) => {
                        let mut chain = above.clone();
                        chain.push(folder.clone());
                        stack.push((real, path, relative, chain, entries));
                    }
                }
                continue;
            };
            if !metadata.is_file() {
                files.diagnostics.push(
                    Diagnostic::warning(
                        Code::FileNotRegular,
                        format!(
                            "`{}` is {}, not a regular file, so it is left out of the skill",
                            path.display(),
                            special_kind(&metadata)
                        ),
                    )
                    .with_hint("a skill's files are regular files; move it out of the skill folder")
                    .in_file(path),
                );
                continue;
            }
            if metadata.len() > MAX_FILE_SIZE {
                files.diagnostics.push(
                    Diagnostic::error(
                        Code::FileTooLarge,
                        format!(
                            "`{}` is {} bytes, over the limit of {MAX_FILE_SIZE} bytes for a skill's file",
                            path.display(),
                            metadata.len()
                        ),
                    )
                    .with_hint("keep large data out of the skill folder and have the skill fetch it")
                    .in_file(path),
                );
                continue;
            }
            files.entries.push(FileEntry {
                relative,
                path,
                real,
                metadata,
            });
        }
    }
    files
}

/// Reads the file `entry`, at most [`MAX_FILE_SIZE`] bytes. It is opened without waiting and
/// read only if it still is a regular file, so a file swapped for a FIFO after it was listed
/// cannot hang the read.
pub fn read(entry: &FileEntry) -> Result<Vec<u8>, Diagnostic> {
    read_regular(&entry.real, MAX_FILE_SIZE)
        .map_err(|problem| read_problem(problem, &entry.path, MAX_FILE_SIZE))
}

/// The diagnostic for a file of a skill that is not `SKILL.md`, shown as `path`, that could
/// not be read within `limit` bytes.
fn read_problem(problem: ReadProblem, path: &Path, limit: u64) -> Diagnostic {
    match problem {
        ReadProblem::Io(error) => unreadable(path, &error),
        ReadProblem::Folder => read_problem(ReadProblem::NotRegular("a folder"), path, limit),
        ReadProblem::NotRegular(kind) => Diagnostic::error(
            Code::SkillMdUnreadable,
            format!(
                "`{}` became {kind} while it was read, so it was not read",
                path.display()
            ),
        )
        .in_file(path.to_path_buf()),
        ReadProblem::TooLarge(size) => Diagnostic::error(
            Code::FileTooLarge,
            format!(
                "`{}` is {size} bytes, over the limit of {limit} bytes for a skill's file",
                path.display()
            ),
        )
        .in_file(path.to_path_buf()),
    }
}

/// A file or folder of a skill that the system will not let be read, in one wording.
pub fn unreadable(path: &Path, error: &std::io::Error) -> Diagnostic {
    Diagnostic::error(
        Code::SkillMdUnreadable,
        format!("cannot read `{}`: {error}", path.display()),
    )
    .with_hint("make it readable, or move it out of the skill folder")
    .in_file(path.to_path_buf())
}

fn left_out_link(path: &Path, what: &str) -> Diagnostic {
    Diagnostic::warning(
        Code::FileSymlinkLeftOut,
        format!(
            "`{}` {what}, so it is left out of the skill",
            path.display()
        ),
    )
    .with_hint("copy the file into the skill folder, or remove the link")
    .in_file(path.to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn skill(temp: &Path) -> PathBuf {
        let dir = temp.join("s");
        fs::create_dir_all(&dir).expect("mkdir");
        fs::write(dir.join("SKILL.md"), "---\nname: s\ndescription: d\n---\n").expect("write");
        dir
    }

    fn codes(files: &SkillFiles) -> Vec<Code> {
        files.diagnostics.iter().map(|d| d.code).collect()
    }

    #[test]
    fn a_path_is_a_skill_file_by_the_same_rule_as_a_folder() {
        for path in [
            "references/a.md",
            "assets/icon.png",
            "SKILL.md.bak",
            "git/x",
        ] {
            assert_eq!(not_a_skill_file(path), None, "{path}");
        }
        for (path, why) in [
            (".git/config", "inside `.git`"),
            ("deep/.GIT/hooks/post-checkout", "inside `.GIT`"),
            ("node_modules/x/index.js", "inside `node_modules`"),
            ("evil/SKILL.md", "a `SKILL.md` in a sub-folder"),
            ("a/b/skill.md", "a `SKILL.md` in a sub-folder"),
            ("SKILL.md", "stored on its own"),
        ] {
            let said = not_a_skill_file(path).unwrap_or_default();
            assert!(said.contains(why), "{path}: {said}");
        }
        // A folder holding the same paths gives none of them.
        let temp = tempfile::tempdir().expect("tempdir");
        let dir = skill(temp.path());
        for path in [
            ".git/config",
            "deep/.GIT/hooks/x",
            "node_modules/x/i.js",
            "evil/SKILL.md",
            "references/a.md",
        ] {
            let file = dir.join(path);
            fs::create_dir_all(file.parent().expect("parent")).expect("mkdir");
            fs::write(&file, "x").expect("write");
        }
        let listed: Vec<String> = list(&dir)
            .expect("lists")
            .entries
            .into_iter()
            .map(|entry| entry.relative)
            .collect();
        assert_eq!(listed, ["references/a.md"]);
    }

    #[test]
    fn fifos_and_foreign_links_are_left_out_and_named_without_being_opened() {
        let temp = tempfile::tempdir().expect("tempdir");
        let dir = skill(temp.path());
        fs::write(dir.join("notes.md"), "N").expect("write");
        let fifo = dir.join("pipe");
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .expect("mkfifo");
        assert!(made.success());
        std::os::unix::fs::symlink("/etc/hostname", dir.join("host")).expect("symlink");
        std::os::unix::fs::symlink("gone", dir.join(".#notes.md")).expect("symlink");
        let files = list(&dir).expect("lists");
        let names: Vec<&str> = files.entries.iter().map(|e| e.relative.as_str()).collect();
        assert_eq!(names, ["notes.md"]);
        let mut found = codes(&files);
        found.sort();
        assert_eq!(
            found,
            [
                Code::FileNotRegular,
                Code::FileSymlinkLeftOut,
                Code::FileSymlinkLeftOut
            ]
        );
        for diagnostic in &files.diagnostics {
            assert_eq!(diagnostic.severity, crate::Severity::Warning);
            let file = &diagnostic.location.as_ref().expect("a place").file;
            assert!(file.starts_with(&dir), "{file:?}");
        }
        assert_eq!(read(&files.entries[0]).expect("reads"), b"N");
    }

    #[test]
    fn a_file_swapped_for_a_fifo_is_not_read() {
        let temp = tempfile::tempdir().expect("tempdir");
        let dir = skill(temp.path());
        fs::write(dir.join("a"), "A").expect("write");
        let files = list(&dir).expect("lists");
        fs::remove_file(dir.join("a")).expect("remove");
        let made = std::process::Command::new("mkfifo")
            .arg(dir.join("a"))
            .status()
            .expect("mkfifo");
        assert!(made.success());
        let problem = read(&files.entries[0]).expect_err("not a file any more");
        assert!(problem.message.contains("FIFO"), "{}", problem.message);
    }

    #[test]
    fn oversized_files_make_an_error() {
        let temp = tempfile::tempdir().expect("tempdir");
        let dir = skill(temp.path());
        let file = fs::File::create(dir.join("big.bin")).expect("create");
        file.set_len(MAX_FILE_SIZE + 1).expect("grow");
        let files = list(&dir).expect("lists");
        assert!(files.entries.is_empty());
        assert_eq!(codes(&files), [Code::FileTooLarge]);
        assert!(files.diagnostics[0].is_error());
    }
}
