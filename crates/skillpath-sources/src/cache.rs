//! Where skillpath keeps what it fetched: `$SKILLPATH_CACHE`, else `$XDG_CACHE_HOME/skillpath`,
//! else `~/.cache/skillpath`. Git repositories are kept there as bare repositories, one per
//! URL, so a second `add`, `update` or `install` fetches only what is new; and the advisory
//! locks that keep two runs from writing one project's folders at once live there, so that
//! nothing but the skills is written into a project.

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::SourceError;

/// The cache folder.
pub fn root() -> Result<PathBuf, SourceError> {
    if let Some(dir) = std::env::var_os("SKILLPATH_CACHE").filter(|v| !v.is_empty()) {
        return Ok(PathBuf::from(dir));
    }
    if let Some(dir) = std::env::var_os("XDG_CACHE_HOME").filter(|v| !v.is_empty()) {
        return Ok(PathBuf::from(dir).join("skillpath"));
    }
    match std::env::var_os("HOME").filter(|v| !v.is_empty()) {
        Some(home) => Ok(PathBuf::from(home).join(".cache").join("skillpath")),
        None => Err(SourceError::new(
            "no cache folder: neither `SKILLPATH_CACHE`, `XDG_CACHE_HOME` nor `HOME` is set",
        )
        .hint("set `SKILLPATH_CACHE` to a folder skillpath may write")),
    }
}

/// A short, stable name for `key` (a URL, a folder): the first 16 hex digits of its SHA-256.
pub fn key(key: &str) -> String {
    Sha256::digest(key.as_bytes())
        .iter()
        .take(8)
        .map(|byte| format!("{byte:02x}"))
        .collect()
}

/// A held advisory lock on a file of the cache; released when dropped (or when the process
/// ends, however it ends).
#[derive(Debug)]
pub struct Held {
    _file: std::fs::File,
}

/// Takes the lock named for `folder` (a project or home folder), waiting for another run
/// holding it. Two `sync`s of one project run one after the other.
pub fn lock_folder(folder: &Path) -> Result<Held, SourceError> {
    let dir = root()?.join("locks");
    std::fs::create_dir_all(&dir).map_err(|e| SourceError::io("create", &dir, &e))?;
    let path = dir.join(format!("{}.lock", key(&folder.to_string_lossy())));
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(|e| SourceError::io("open", &path, &e))?;
    rustix::fs::flock(&file, rustix::fs::FlockOperation::LockExclusive)
        .map_err(|e| SourceError::io("lock", &path, &e.into()))?;
    Ok(Held { _file: file })
}
