//! Opening a skill's files on disk: reading a folder's entries, where its `SKILL.md` is, and
//! reading a file without waiting on it. The one place core opens files; the modules that read
//! folders (`load`, `skill_files`, `walk`) build on it and on nothing of each other's. What a
//! walk read of a skill folder ([`FolderRead`]) is handed from `walk` to `skill_files` here, so
//! that no folder is read twice.

use std::collections::HashMap;
use std::ffi::OsString;
use std::fs;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

/// Finds the `SKILL.md` of `dir`: `SKILL.md`, else `skill.md`, which the reference validator
/// accepts and the specification does not. Returns the path and whether it is the lowercase one.
/// Like the reference, anything that exists counts (a folder named `SKILL.md` is reported when
/// read); a dangling symlink does not.
pub(crate) fn find_skill_md(dir: &Path) -> Option<(PathBuf, bool)> {
    let upper = dir.join("SKILL.md");
    if upper.exists() {
        return Some((upper, false));
    }
    let lower = dir.join("skill.md");
    lower.exists().then_some((lower, true))
}

/// Whether `dir` is a skill folder.
pub(crate) fn is_skill_dir(dir: &Path) -> bool {
    find_skill_md(dir).is_some()
}

/// One entry of a folder as its listing gives it: a name and the type of what it names (a
/// symlink's own type: nothing is followed, nothing else is looked up).
#[derive(Debug)]
pub(crate) struct Entry {
    pub(crate) name: OsString,
    pub(crate) file_type: io::Result<fs::FileType>,
}

/// A folder's entries, in the order the system listed them; an entry it could not give is an
/// `Err` among them.
pub(crate) type Entries = Vec<io::Result<Entry>>;

/// Reads the entries of the folder `dir`: one listing, no lookup per entry (the types come with
/// the listing on the file systems that give them).
pub(crate) fn read_entries(dir: &Path) -> io::Result<Entries> {
    Ok(fs::read_dir(dir)?
        .map(|entry| {
            entry.map(|entry| Entry {
                file_type: entry.file_type(),
                name: entry.file_name(),
            })
        })
        .collect())
}

/// [`find_skill_md`] of `dir`, decided from its `entries` where they tell: a regular
/// `SKILL.md` makes a skill, and no entry named like one makes none. Only what the entries
/// cannot tell is looked up: a symlink (which may lead nowhere) and a name like `SKILL.md` in
/// another case (which a case-insensitive file system would find), so the answer is the one
/// [`find_skill_md`] gives.
pub(crate) fn find_skill_md_among(dir: &Path, entries: &Entries) -> Option<(PathBuf, bool)> {
    if !names_skill_md(entries) {
        return None;
    }
    let upper = entries
        .iter()
        .flatten()
        .find(|entry| entry.name == "SKILL.md");
    match upper.map(|entry| &entry.file_type) {
        Some(Ok(file_type)) if !file_type.is_symlink() => Some((dir.join("SKILL.md"), false)),
        _ => find_skill_md(dir),
    }
}

/// Whether `entries` name something like a `SKILL.md`, in any case: only then can
/// [`find_skill_md`] find one, or a `SKILL.md` be a symlink that cannot be followed.
pub(crate) fn names_skill_md(entries: &Entries) -> bool {
    entries.iter().flatten().any(|entry| {
        entry
            .name
            .to_str()
            .is_some_and(|name| name.eq_ignore_ascii_case("SKILL.md"))
    })
}

/// What a walk read of one skill folder: the folder's canonical path, and the folders in it
/// that the walk read (their entries) or found to be skills of their own, by canonical path.
/// The listing of the skill's files (`skill_files::list_read`) takes each folder from here
/// instead of reading it again, and reads what is not here (a folder past the walk's bounds,
/// one the skill reaches twice) itself.
#[derive(Debug)]
pub struct FolderRead {
    root: PathBuf,
    folders: HashMap<PathBuf, Walked>,
}

/// A folder a walk read inside a skill folder.
#[derive(Debug)]
pub(crate) enum Walked {
    /// A folder of the skill, with its entries.
    Entries(Entries),
    /// A skill of its own (its entries are in its own [`FolderRead`]).
    Skill,
}

/// A sub-folder of a skill, as the listing of its files meets it.
pub(crate) enum SubFolder {
    /// A skill of its own, left out.
    Skill,
    /// A folder of the skill: its entries, or why they cannot be read.
    Folder(io::Result<Entries>),
}

impl FolderRead {
    /// The skill folder whose canonical path is `root`, with nothing read yet.
    pub fn unread(root: PathBuf) -> FolderRead {
        FolderRead {
            root,
            folders: HashMap::new(),
        }
    }

    /// The skill folder's canonical path.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Keeps what the walk read of the folder `canonical`, when it is inside this skill folder
    /// (a symlink may have led the walk elsewhere, where the skill's listing never looks).
    pub(crate) fn keep(&mut self, canonical: &Path, walked: Walked) {
        if canonical.starts_with(&self.root) {
            self.folders.insert(canonical.to_path_buf(), walked);
        }
    }

    /// The entries of the skill folder itself.
    pub(crate) fn root_entries(&mut self) -> io::Result<Entries> {
        match self.folders.remove(&self.root) {
            Some(Walked::Entries(entries)) => Ok(entries),
            _ => read_entries(&self.root),
        }
    }

    /// The sub-folder of the skill whose real path is `real`: what the walk read of it, taken
    /// (a folder reached a second time is read again), else read now. A folder that cannot be
    /// read is still a skill when a lookup finds its `SKILL.md`.
    pub(crate) fn sub_folder(&mut self, real: &Path) -> SubFolder {
        if let Some(Walked::Skill) = self.folders.get(real) {
            return SubFolder::Skill;
        }
        match self.folders.remove(real) {
            Some(Walked::Entries(entries)) => SubFolder::Folder(Ok(entries)),
            _ => match read_entries(real) {
                Ok(entries) if find_skill_md_among(real, &entries).is_some() => SubFolder::Skill,
                Err(_) if is_skill_dir(real) => SubFolder::Skill,
                read => SubFolder::Folder(read),
            },
        }
    }
}

/// Why [`read_regular`] read nothing.
pub(crate) enum ReadProblem {
    /// The system said no.
    Io(std::io::Error),
    /// A folder (which opens like a file, and reads as an error).
    Folder,
    /// Not a regular file nor a folder: what it is instead.
    NotRegular(&'static str),
    /// Over the limit, with the size seen.
    TooLarge(u64),
}

/// Reads the regular file at `path`, at most `limit` bytes. Opening does not wait (a FIFO
/// opened for reading would wait for a writer forever); what was opened is read only if it is
/// a regular file.
pub(crate) fn read_regular(path: &Path, limit: u64) -> Result<Vec<u8>, ReadProblem> {
    let mut options = fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    let file = options.open(path).map_err(ReadProblem::Io)?;
    let metadata = file.metadata().map_err(ReadProblem::Io)?;
    if metadata.is_dir() {
        return Err(ReadProblem::Folder);
    }
    if !metadata.is_file() {
        return Err(ReadProblem::NotRegular(special_kind(&metadata)));
    }
    if metadata.len() > limit {
        return Err(ReadProblem::TooLarge(metadata.len()));
    }
    let mut bytes = Vec::with_capacity(usize::try_from(metadata.len()).unwrap_or(0));
    // Read at most one byte past the limit, so a file that grows while it is read is still
    // bounded.
    file.take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(ReadProblem::Io)?;
    if bytes.len() as u64 > limit {
        return Err(ReadProblem::TooLarge(bytes.len() as u64));
    }
    Ok(bytes)
}

/// What a file that is neither a regular file nor a folder is, in words.
pub(crate) fn special_kind(metadata: &fs::Metadata) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        let file_type = metadata.file_type();
        if file_type.is_fifo() {
            return "a FIFO (named pipe)";
        }
        if file_type.is_socket() {
            return "a socket";
        }
        if file_type.is_block_device() || file_type.is_char_device() {
            return "a device";
        }
    }
    "a special file"
}
