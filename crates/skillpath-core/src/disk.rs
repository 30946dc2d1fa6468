//! Opening a skill's files on disk: where its `SKILL.md` is, and reading a file without
//! waiting on it. The one place core opens files; the modules that read folders (`load`,
//! `skill_files`, `walk`) build on it and on nothing of each other's.

use std::fs;
use std::io::Read;
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
