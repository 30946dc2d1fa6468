//! Reading a skill folder's `SKILL.md` from disk, within limits.

use std::fs;
use std::path::{Path, PathBuf};

use crate::diagnostic::{Code, Diagnostic, Location};
use crate::mode::Mode;
use crate::skill_files::{self, ReadProblem};
use crate::skill_md::{self, SkillMd};
use crate::source::LineColumn;

/// The default limit on the size of a `SKILL.md`: far above any real skill (the largest in a
/// corpus of 669 public skills is 290 KB), low enough that a hostile file cannot eat memory.
pub const DEFAULT_MAX_FILE_SIZE: u64 = 4 * 1024 * 1024;

/// How to read a skill.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LoadOptions {
    /// Which rules to read by.
    pub mode: Mode,
    /// Files larger than this many bytes are refused.
    pub max_file_size: u64,
}

impl Default for LoadOptions {
    fn default() -> Self {
        LoadOptions {
            mode: Mode::default(),
            max_file_size: DEFAULT_MAX_FILE_SIZE,
        }
    }
}

/// Finds the `SKILL.md` of `dir`: `SKILL.md`, else `skill.md`, which the reference validator
/// accepts and the specification does not. Returns the path and whether it is the lowercase one.
/// Like the reference, anything that exists counts (a folder named `SKILL.md` is reported when
/// read); a dangling symlink does not.
pub fn find_skill_md(dir: &Path) -> Option<(PathBuf, bool)> {
    let upper = dir.join("SKILL.md");
    if upper.exists() {
        return Some((upper, false));
    }
    let lower = dir.join("skill.md");
    lower.exists().then_some((lower, true))
}

/// Reads and parses the `SKILL.md` of the skill folder `dir`.
///
/// The `Err` case is a skill that could not be read at all; the diagnostic says why.
pub fn load_skill_md(dir: &Path, options: LoadOptions) -> Result<SkillMd, Diagnostic> {
    let reference = options.mode == Mode::SkillsRef;
    let Some((path, lowercase)) = find_skill_md(dir) else {
        let message = if reference {
            "Missing required file: SKILL.md".to_owned()
        } else {
            format!("no `SKILL.md` in `{}`", dir.display())
        };
        return Err(Diagnostic::error(Code::SkillMdMissing, message)
            .with_hint("a skill is a folder with a `SKILL.md` file in it")
            .in_file(dir.join("SKILL.md")));
    };
    if !reference {
        refuse_link_out(dir, &path)?;
    }
    let text = read_text(&path, options.max_file_size)
        .map_err(|diagnostic| diagnostic.in_file(path.clone()))?;
    let mut skill = skill_md::parse(path.clone(), text, options.mode);
    if lowercase && !reference {
        skill.diagnostics.insert(
            0,
            Diagnostic::warning(
                Code::SkillMdLowercase,
                "the file is named `skill.md`; the specification says `SKILL.md`",
            )
            .with_hint(
                "rename it to `SKILL.md`; agents on case-sensitive file systems will not find it",
            )
            .in_file(path),
        );
    }
    Ok(skill)
}

/// Refuses the file `path` of the skill folder `dir` when it is a symlink that leads out of the
/// folder: a skill is read from inside its folder only.
pub fn refuse_link_out(dir: &Path, path: &Path) -> Result<(), Diagnostic> {
    // Only a symlink is resolved: resolving a path costs a lookup per component, and this
    // runs for every `SKILL.md` read.
    if !fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink()) {
        return Ok(());
    }
    let (Ok(target), Ok(folder)) = (path.canonicalize(), dir.canonicalize()) else {
        return Ok(());
    };
    if target.starts_with(folder) {
        return Ok(());
    }
    Err(Diagnostic::error(
        Code::FileSymlinkLeftOut,
        format!(
            "`{}` is a symlink that leads out of the skill folder (to `{}`), so it is not read",
            path.display(),
            target.display()
        ),
    )
    .with_hint("copy the file into the skill folder, or link the whole skill folder instead")
    .in_file(path.to_path_buf()))
}

/// Reads a UTF-8 text file of at most `max_size` bytes. A FIFO, socket or device is never
/// read (reading one would wait forever for a writer).
pub fn read_text(path: &Path, max_size: u64) -> Result<String, Diagnostic> {
    let unreadable = |why: String| {
        Diagnostic::error(
            Code::SkillMdUnreadable,
            format!("cannot read `{}`: {why}", path.display()),
        )
    };
    let bytes = skill_files::read_regular(path, max_size).map_err(|problem| match problem {
        ReadProblem::Io(error) => unreadable(error.to_string()),
        ReadProblem::Folder => Diagnostic::error(
            Code::SkillMdNotAFile,
            format!("`{}` is a folder, not a file", path.display()),
        )
        .with_hint("`SKILL.md` must be a regular file"),
        ReadProblem::NotRegular(kind) => unreadable(format!(
            "it is {kind}, not a regular file, so it is not read"
        ))
        .with_hint("`SKILL.md` must be a regular file"),
        ReadProblem::TooLarge(size) => too_large(path, size, max_size),
    })?;
    String::from_utf8(bytes).map_err(|error| {
        let offset = error.utf8_error().valid_up_to();
        let bytes = error.as_bytes();
        let text = String::from_utf8_lossy(&bytes[..offset]);
        let line = text.matches('\n').count() + 1;
        let column = text
            .rsplit('\n')
            .next()
            .map_or(0, |last| last.chars().count())
            + 1;
        Diagnostic::error(
            Code::InvalidUtf8,
            format!(
                "`{}` is not valid UTF-8: byte 0x{:02x} at line {line}, column {column}",
                path.display(),
                bytes[offset]
            ),
        )
        .with_hint("save the file as UTF-8")
        .placed(Location {
            file: path.to_path_buf(),
            range: offset..offset + 1,
            start: LineColumn { line, column },
        })
    })
}

fn too_large(path: &Path, size: u64, max_size: u64) -> Diagnostic {
    Diagnostic::error(
        Code::FileTooLarge,
        format!(
            "`{}` is {size} bytes, over the limit of {max_size} bytes",
            path.display()
        ),
    )
    .with_hint(
        "move long material into `references/` files, or raise the limit with `--max-file-size`",
    )
}
