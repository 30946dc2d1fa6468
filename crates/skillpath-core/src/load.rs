//! Reading a skill's `SKILL.md`, from its folder on disk or from its files in memory, within
//! limits; UTF-8 errors with their position.

use std::fs;
use std::path::{Path, PathBuf};

use crate::diagnostic::{Code, Diagnostic, Location};
use crate::disk::{self, ReadProblem};
use crate::mode::Mode;
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

/// Reads and parses the `SKILL.md` of the skill folder `dir`.
///
/// The `Err` case is a skill that could not be read at all; the diagnostic says why.
pub fn load_skill_md(dir: &Path, options: LoadOptions) -> Result<SkillMd, Diagnostic> {
    let (name, bytes) = read_skill_md(dir, options)?;
    parse_skill_md(dir, name, bytes, options)
}

/// Finds and reads the `SKILL.md` of the skill folder `dir`, unparsed: its file name
/// (`SKILL.md`, or `skill.md`, which the reference accepts) and its bytes, at most
/// `options.max_file_size` of them. Outside `skills-ref` mode a `SKILL.md` that links out of
/// its folder is refused.
pub(crate) fn read_skill_md(
    dir: &Path,
    options: LoadOptions,
) -> Result<(&'static str, Vec<u8>), Diagnostic> {
    let reference = options.mode == Mode::SkillsRef;
    let Some((path, lowercase)) = disk::find_skill_md(dir) else {
        return Err(missing_skill_md(dir, options.mode));
    };
    if !reference {
        refuse_link_out(dir, &path)?;
    }
    let bytes = read_bounded(&path, options.max_file_size)
        .map_err(|diagnostic| diagnostic.in_file(path.clone()))?;
    Ok((if lowercase { "skill.md" } else { "SKILL.md" }, bytes))
}

/// Parses `bytes`, the `SKILL.md` named `name` (`SKILL.md` or `skill.md`) of the skill at
/// `dir`: within `options.max_file_size`, UTF-8, then [`skill_md::parse`]; outside
/// `skills-ref` mode, a lowercase `skill.md` is warned of.
pub(crate) fn parse_skill_md(
    dir: &Path,
    name: &str,
    bytes: Vec<u8>,
    options: LoadOptions,
) -> Result<SkillMd, Diagnostic> {
    let path = dir.join(name);
    let text = text_within(&path, bytes, options.max_file_size)
        .map_err(|diagnostic| diagnostic.in_file(path.clone()))?;
    let mut skill = skill_md::parse(path.clone(), text, options.mode);
    if name == "skill.md" && options.mode != Mode::SkillsRef {
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

/// The error for a skill at `dir` without a `SKILL.md`, in `mode`'s words.
pub(crate) fn missing_skill_md(dir: &Path, mode: Mode) -> Diagnostic {
    let message = if mode == Mode::SkillsRef {
        "Missing required file: SKILL.md".to_owned()
    } else {
        format!("no `SKILL.md` in `{}`", dir.display())
    };
    Diagnostic::error(Code::SkillMdMissing, message)
        .with_hint("a skill is a folder with a `SKILL.md` file in it")
        .in_file(dir.join("SKILL.md"))
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
    decode_utf8(path, read_bounded(path, max_size)?)
}

/// Reads the regular file `path`, at most `max_size` bytes, with the diagnostics of a
/// `SKILL.md` that cannot be read.
fn read_bounded(path: &Path, max_size: u64) -> Result<Vec<u8>, Diagnostic> {
    let unreadable = |why: String| {
        Diagnostic::error(
            Code::SkillMdUnreadable,
            format!("cannot read `{}`: {why}", path.display()),
        )
    };
    disk::read_regular(path, max_size).map_err(|problem| match problem {
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
    })
}

/// `bytes`, the content of the file shown as `path`, as text of at most `max_size` bytes: the
/// same answers as [`read_text`] gives for a file on disk.
pub(crate) fn text_within(
    path: &Path,
    bytes: Vec<u8>,
    max_size: u64,
) -> Result<String, Diagnostic> {
    let size = bytes.len() as u64;
    if size > max_size {
        return Err(too_large(path, size, max_size));
    }
    decode_utf8(path, bytes)
}

/// `bytes`, the content of the file shown as `path`, as text; the error names the first byte
/// that is not UTF-8 by line and column.
fn decode_utf8(path: &Path, bytes: Vec<u8>) -> Result<String, Diagnostic> {
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
            file: PathBuf::from(path),
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
