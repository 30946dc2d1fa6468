//! Skill folders on disk: reading one into a [`SkillSnapshot`], writing one back.
//!
//! What files a skill has is core's rule ([`skillpath_core::skill_files`]): everything under
//! its folder except `SKILL.md` itself, `.git`, `node_modules`, and sub-folders that are skills
//! of their own; special files and symlinks out of the folder are left out and reported.
//!
//! Every folder is read on its own: one that cannot be loaded (lenient loading's rules,
//! [`skillpath_core::validate::loading`]) is skipped with its diagnostics, and the others are
//! read as if it were not there.

use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use rayon::prelude::*;
use sha2::{Digest, Sha256};
use skillpath_core::skill_files::{self, FileEntry, FolderRead};
use skillpath_core::walk::FoundSkill;
use skillpath_core::{Diagnostic, Mode};

use skillpath_model::{
    FolderContent, FolderImport, FolderStamp, Kind, Provenance, RecordedStamp, SkillFile,
    SkillSnapshot, check_relative_path,
};

use crate::error::FolderError;

/// What reading or writing a folder gives.
pub type FolderResult<T> = Result<T, FolderError>;

/// Largest file a skill may hold.
pub const MAX_FILE_SIZE: u64 = skill_files::MAX_FILE_SIZE;

fn io(context: String) -> impl FnOnce(std::io::Error) -> FolderError {
    move |source| FolderError::Io { context, source }
}

/// A skill folder's diagnostics: why it was skipped, or what was left out of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FolderDiagnostics {
    /// The skill folder, as found.
    pub folder: PathBuf,
    /// Each placed in its file.
    pub diagnostics: Vec<Diagnostic>,
}

impl serde::Serialize for FolderDiagnostics {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.to_json().serialize(serializer)
    }
}

impl FolderDiagnostics {
    /// The first error, else the first diagnostic: the one to name in a one-line summary.
    pub fn first(&self) -> Option<&Diagnostic> {
        self.diagnostics
            .iter()
            .find(|d| d.is_error())
            .or(self.diagnostics.first())
    }

    /// As JSON for scripts: `path` (the folder), the first diagnostic's `code` and `message`,
    /// and every diagnostic in `validate --format json`'s form.
    pub fn to_json(&self) -> serde_json::Value {
        let first = self.first();
        serde_json::json!({
            "path": self.folder.display().to_string(),
            "code": first.map(|d| d.code.as_str()),
            "message": first.map(|d| d.message.clone()),
            "diagnostics": self
                .diagnostics
                .iter()
                .map(skillpath_core::render_diagnostics::json)
                .collect::<Vec<_>>(),
        })
    }

    /// One line per diagnostic, for a log ([`skillpath_core::render_diagnostics::line`]).
    pub fn to_lines(&self) -> Vec<String> {
        self.diagnostics
            .iter()
            .map(skillpath_core::render_diagnostics::line)
            .collect()
    }

    /// As text for people: every diagnostic as `validate` prints it (file, line and column,
    /// code, message and hint).
    pub fn to_text(&self) -> String {
        self.diagnostics
            .iter()
            .map(|d| skillpath_core::render_diagnostics::text(d, None))
            .collect()
    }
}

/// Reads the skill folder `dir`; a folder that cannot be loaded is an error that names its
/// first problem.
pub fn read_skill_folder(dir: &Path) -> FolderResult<SkillSnapshot> {
    let listing = listed(dir, None).map_err(refused)?;
    read_listed(dir, &listing)
        .map(|(snapshot, _)| snapshot)
        .map_err(refused)
}

/// The error for a folder that cannot be loaded: its first error's message.
fn refused(diagnostics: Vec<Diagnostic>) -> FolderError {
    let message = diagnostics
        .into_iter()
        .find(Diagnostic::is_error)
        .map_or_else(|| "the folder cannot be read".to_owned(), |d| d.message);
    FolderError::Unloadable(message)
}

/// A skill folder's `SKILL.md` metadata and files, listed (nothing read yet); or a package
/// folder's `PACKAGE.md` and files (its member skills' folders, skills of their own, are not
/// among them).
struct Listing {
    kind: Kind,
    skill_md: fs::Metadata,
    files: skill_files::SkillFiles,
}

/// What the folder `dir` is, by its manifest: a skill (it has a `SKILL.md`, or nothing), or a
/// package (a `PACKAGE.md` and no `SKILL.md`); and the manifest's path.
fn manifest_of(dir: &Path) -> (Kind, PathBuf) {
    let skill_md = dir.join(Kind::Skill.manifest());
    let package_md = dir.join(Kind::Package.manifest());
    if fs::symlink_metadata(&skill_md).is_err() && fs::symlink_metadata(&package_md).is_ok() {
        (Kind::Package, package_md)
    } else {
        (Kind::Skill, skill_md)
    }
}

/// Lists the skill (or package) folder `dir`, from what a walk read of it (`read`) when it was
/// found by one; `Err` holds the errors that skip it.
fn listed(dir: &Path, read: Option<FolderRead>) -> Result<Listing, Vec<Diagnostic>> {
    let (kind, skill_md_path) = manifest_of(dir);
    // Taken before the files are listed, for a stamp.
    let skill_md = fs::metadata(&skill_md_path)
        .map_err(|error| vec![skill_files::unreadable(&skill_md_path, &error)])?;
    let mut files = match read {
        Some(read) => skill_files::list_read(dir, read),
        None => skill_files::list(dir).map_err(|diagnostic| vec![diagnostic])?,
    };
    if files.diagnostics.iter().any(Diagnostic::is_error) {
        return Err(files.diagnostics);
    }
    if kind == Kind::Package {
        files
            .entries
            .retain(|entry| entry.relative != Kind::Package.manifest());
    }
    Ok(Listing {
        kind,
        skill_md,
        files,
    })
}

/// Reads the `SKILL.md` of `dir` and the files `listing` found in it, with what lenient loading
/// warns of (a name that does not match its folder); `Err` holds the errors that skip it.
fn read_listed(
    dir: &Path,
    listing: &Listing,
) -> Result<(SkillSnapshot, Vec<Diagnostic>), Vec<Diagnostic>> {
    let skill_md_path = dir.join(listing.kind.manifest());
    skillpath_core::load::refuse_link_out(dir, &skill_md_path)
        .map_err(|diagnostic| vec![diagnostic])?;
    let skill_md = skillpath_core::load::read_text(
        &skill_md_path,
        skillpath_core::load::DEFAULT_MAX_FILE_SIZE,
    )
    .map_err(|diagnostic| vec![diagnostic.in_file(skill_md_path.clone())])?;
    let (text, problems) = match listing.kind {
        Kind::Skill => {
            let parsed =
                skillpath_core::skill_md::parse(skill_md_path.clone(), skill_md, Mode::Lenient);
            let directory_name = listing
                .files
                .root
                .file_name()
                .and_then(|name| name.to_str());
            let problems = skillpath_core::validate::loading(&parsed, directory_name);
            (parsed.file.text, problems)
        }
        // A package is loaded when its manifest names it; `validate` says the rest.
        Kind::Package => {
            let (manifest, package, diagnostics) =
                skillpath_core::package::read_manifest(skill_md_path.clone(), skill_md);
            let problems = match package {
                Some(_) => Vec::new(),
                None => diagnostics
                    .into_iter()
                    .filter(Diagnostic::is_error)
                    .collect(),
            };
            (manifest.file.text, problems)
        }
    };
    if problems.iter().any(Diagnostic::is_error) {
        return Err(problems);
    }
    let mut files = Vec::with_capacity(listing.files.entries.len());
    for entry in &listing.files.entries {
        let bytes = skill_files::read(entry).map_err(|diagnostic| vec![diagnostic])?;
        files.push(SkillFile {
            path: entry.relative.clone(),
            bytes,
        });
    }
    let snapshot = SkillSnapshot::of_kind(listing.kind, text, files).map_err(|error| {
        vec![
            Diagnostic::error(skillpath_core::Code::SkillMdUnreadable, error.to_string())
                .in_file(skill_md_path.clone()),
        ]
    })?;
    Ok((snapshot, problems))
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
/// `RACY_WINDOW`). Take the stamp *before* reading the folder, so a change made while
/// reading shows as a different stamp next time.
pub fn folder_stamp(dir: &Path) -> FolderResult<Option<FolderStamp>> {
    stamp_trusting_times_older_than(dir, RACY_WINDOW)
}

/// [`folder_stamp`] with `racy_window` in place of [`RACY_WINDOW`].
fn stamp_trusting_times_older_than(
    dir: &Path,
    racy_window: Duration,
) -> FolderResult<Option<FolderStamp>> {
    let listing = listed(dir, None).map_err(refused)?;
    Ok(stamp_of(&listing, racy_window))
}

/// The stamp of a listed skill folder, from the metadata of its `SKILL.md` and of its files;
/// `None` when a time is too recent to trust, or cannot be read.
fn stamp_of(listing: &Listing, racy_window: Duration) -> Option<FolderStamp> {
    let mut entries: Vec<(&str, &fs::Metadata)> = vec![("", &listing.skill_md)];
    entries.extend(
        listing
            .files
            .entries
            .iter()
            .map(|entry: &FileEntry| (entry.relative.as_str(), &entry.metadata)),
    );
    entries.sort_by(|a, b| a.0.cmp(b.0));
    let racy_since = SystemTime::now()
        .checked_sub(racy_window)
        .unwrap_or(SystemTime::UNIX_EPOCH);
    let mut hasher = Sha256::new();
    for (relative, metadata) in entries {
        let modified = metadata.modified().ok()?;
        let marks = change_marks(metadata);
        let changed = UNIX_EPOCH + Duration::new(marks.changed_seconds, marks.changed_nanos);
        if modified >= racy_since || changed >= racy_since {
            return None;
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
    Some(FolderStamp {
        folder: listing.files.root.display().to_string(),
        stamp: format!("{:x}", hasher.finalize()),
    })
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
#[derive(Debug)]
pub struct FolderSource {
    /// The folder.
    pub dir: PathBuf,
    /// Where the skill will say it comes from.
    pub provenance: Provenance,
    /// What the walk that found the folder read of it, so that listing its files reads no
    /// folder again; `None` for a folder found otherwise.
    pub read: Option<FolderRead>,
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
            read: None,
        }
    }

    /// The skill folder a walk of `root` found, in `scope`, with what the walk read of it.
    pub fn walked(found: FoundSkill, root: String, scope: String) -> FolderSource {
        FolderSource {
            read: Some(found.read),
            ..FolderSource::imported(found.dir, root, scope)
        }
    }
}

/// What [`read_folders`] made of the folders it was given.
#[derive(Debug, Default)]
pub struct FoldersRead {
    /// The folders to import, read or known unchanged.
    pub items: Vec<FolderImport>,
    /// The folders that cannot be loaded, each with the errors that say why.
    pub skipped: Vec<FolderDiagnostics>,
    /// Folders that load, with what was said of them (files left out, a name that does not
    /// match its folder).
    pub warned: Vec<FolderDiagnostics>,
}

/// Reads the skill folders `sources` for an import, skipping those whose stamp equals the one
/// `recorded` with their skill's current revision (the store's `folder_stamps`): those are
/// given to the import unread, by name. `progress` is called once per folder. Folders are read
/// on every core: an import of many skills waits mostly on the disk. A folder that cannot be
/// loaded is skipped with its diagnostics; it never stops the others.
pub fn read_folders(
    sources: Vec<FolderSource>,
    recorded: &[RecordedStamp],
    progress: &(dyn Fn(&Path) + Sync),
) -> FoldersRead {
    let recorded: HashMap<&str, &RecordedStamp> = recorded
        .iter()
        .map(|stamp| (stamp.folder.as_str(), stamp))
        .collect();
    // The item, and what was said of it; or the errors that skip it.
    let read_one =
        |source: FolderSource| -> Result<(FolderImport, Vec<Diagnostic>), Vec<Diagnostic>> {
            progress(&source.dir);
            let dir = source.dir.as_path();
            // One listing of the folder (from what the walk that found it read) serves both the
            // stamp and the reading; the stamp is made from metadata taken before any file is
            // read.
            let listing = listed(dir, source.read)?;
            let mut said = listing.files.diagnostics.clone();
            // A folder with something left out gets no stamp, so what was left out is said again
            // at every import until it is fixed.
            let stamp = said
                .is_empty()
                .then(|| stamp_of(&listing, RACY_WINDOW))
                .flatten();
            if let Some(stamp) = &stamp
                && let Some(known) = recorded.get(stamp.folder.as_str())
                && known.stamp == stamp.stamp
            {
                let item = FolderImport {
                    provenance: source.provenance,
                    content: FolderContent::Unchanged {
                        name: known.name.clone(),
                    },
                };
                return Ok((item, said));
            }
            let (snapshot, warnings) = read_listed(dir, &listing)?;
            said.extend(warnings);
            let item = FolderImport {
                provenance: source.provenance,
                content: FolderContent::Read { snapshot, stamp },
            };
            Ok((item, said))
        };
    let results: Vec<(PathBuf, Result<_, _>)> = sources
        .into_par_iter()
        .map(|source| (source.dir.clone(), read_one(source)))
        .collect();
    let mut read = FoldersRead {
        items: Vec::with_capacity(results.len()),
        ..FoldersRead::default()
    };
    for (folder, result) in results {
        match result {
            Ok((item, said)) => {
                read.items.push(item);
                if !said.is_empty() {
                    read.warned.push(FolderDiagnostics {
                        folder,
                        diagnostics: said,
                    });
                }
            }
            Err(diagnostics) => read.skipped.push(FolderDiagnostics {
                folder,
                diagnostics,
            }),
        }
    }
    read
}

/// Writes `snapshot` into `dir`, a folder that does not exist yet or is empty: its manifest
/// (`SKILL.md`, or a package's `PACKAGE.md`) and every file, creating sub-folders. Each file is created new (never opened if something is
/// already there, so never written through a symlink), and every path is checked by the rule
/// of what a skill may hold first.
pub fn write_skill_folder(dir: &Path, snapshot: &SkillSnapshot) -> FolderResult<()> {
    for file in &snapshot.files {
        check_relative_path(&file.path)?;
    }
    fs::create_dir_all(dir).map_err(io(format!("cannot create `{}`", dir.display())))?;
    create_new(
        &dir.join(snapshot.kind.manifest()),
        snapshot.skill_md.as_bytes(),
    )?;
    for file in &snapshot.files {
        let target: PathBuf = file
            .path
            .split('/')
            .fold(dir.to_path_buf(), |path, part| path.join(part));
        if let Some(parent) = target.parent() {
            fs::create_dir_all(parent)
                .map_err(io(format!("cannot create `{}`", parent.display())))?;
        }
        create_new(&target, &file.bytes)?;
    }
    Ok(())
}

/// Creates the file `path` with `bytes`; refused when anything (a file, a symlink) is there.
fn create_new(path: &Path, bytes: &[u8]) -> FolderResult<()> {
    use std::io::Write as _;
    fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
        .and_then(|mut file| file.write_all(bytes))
        .map_err(io(format!("cannot write `{}`", path.display())))
}

/// Why the folder `dir` cannot receive an export, if it cannot: a symlink (the files would go
/// wherever it leads), something that is not a folder, or (unless `replace`) a folder that is
/// not empty. Checked for every skill before the first is written.
pub fn export_refusal(dir: &Path, replace: bool) -> Option<String> {
    let metadata = fs::symlink_metadata(dir).ok()?;
    if metadata.file_type().is_symlink() {
        return Some(format!(
            "`{}` is a symlink; an export writes only into real folders (remove the link)",
            dir.display()
        ));
    }
    if !metadata.is_dir() {
        return Some(format!(
            "`{}` exists and is not a folder; move it away",
            dir.display()
        ));
    }
    let occupied = fs::read_dir(dir).map_or(true, |mut entries| entries.next().is_some());
    (occupied && !replace).then(|| {
        format!(
            "`{}` exists and is not empty; pass `--force` to replace it",
            dir.display()
        )
    })
}

/// Exports `snapshot` as the folder `dir`: written whole beside it first (a new folder in the
/// same parent), then put in its place by renaming, so a failed export leaves `dir` as it was
/// and a replaced folder keeps no stale file of the skill it held. Refused as
/// [`export_refusal`] says.
pub fn export_skill_folder(
    dir: &Path,
    snapshot: &SkillSnapshot,
    replace: bool,
) -> FolderResult<()> {
    export_folder(dir, replace, |staging| {
        write_skill_folder(staging, snapshot)
    })
}

/// Exports the package `package` as the folder `dir`, as [`export_skill_folder`] does a skill,
/// with each of `members` (a skill and the folder its manifest lists it in, relative to the
/// package) written in its folder inside: the package folder as it was imported.
pub fn export_package_folder(
    dir: &Path,
    package: &SkillSnapshot,
    members: &[(String, SkillSnapshot)],
    replace: bool,
) -> FolderResult<()> {
    for (folder, _) in members {
        check_relative_path(folder)?;
    }
    export_folder(dir, replace, |staging| {
        write_skill_folder(staging, package)?;
        for (folder, member) in members {
            let target = folder
                .split('/')
                .fold(staging.to_path_buf(), |path, part| path.join(part));
            write_skill_folder(&target, member)?;
        }
        Ok(())
    })
}

/// Writes a folder at `dir` with `write`, beside it first and then renamed into place.
fn export_folder(
    dir: &Path,
    replace: bool,
    write: impl FnOnce(&Path) -> FolderResult<()>,
) -> FolderResult<()> {
    if let Some(refusal) = export_refusal(dir, replace) {
        return Err(FolderError::ExportRefused(refusal));
    }
    let parent = dir.parent().unwrap_or(Path::new("."));
    let name = dir
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default();
    fs::create_dir_all(parent).map_err(io(format!("cannot create `{}`", parent.display())))?;
    let staging = beside(parent, &name, "export");
    let written = write(&staging);
    if let Err(error) = written {
        let _ = fs::remove_dir_all(&staging);
        return Err(error);
    }
    let put = if fs::symlink_metadata(dir).is_ok() {
        let old = beside(parent, &name, "replaced");
        fs::rename(dir, &old)
            .and_then(|()| {
                fs::rename(&staging, dir).inspect_err(|_| {
                    let _ = fs::rename(&old, dir);
                })
            })
            .map(|()| {
                // `remove_dir_all` does not follow symlinks inside what it removes.
                let _ = fs::remove_dir_all(&old);
            })
    } else {
        fs::rename(&staging, dir)
    };
    put.map_err(|error| {
        let _ = fs::remove_dir_all(&staging);
        FolderError::Io {
            context: format!("cannot put the export in place at `{}`", dir.display()),
            source: error,
        }
    })
}

/// A path beside `parent/name` that nothing uses: `parent/.name.skillpath-<what>-<pid>-<n>`.
fn beside(parent: &Path, name: &str, what: &str) -> PathBuf {
    let pid = std::process::id();
    (0u32..)
        .map(|n| parent.join(format!(".{name}.skillpath-{what}-{pid}-{n}")))
        .find(|path| fs::symlink_metadata(path).is_err())
        .unwrap_or_else(|| parent.join(format!(".{name}.skillpath-{what}-{pid}")))
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
        // The link is left out of the skill, which still reads, and reported.
        let snapshot = read_skill_folder(&skill).expect("reads");
        let paths: Vec<&str> = snapshot.files.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(paths, ["b.bin", "references/a.md"]);
        let read = read_folders(
            vec![FolderSource::imported(
                skill.clone(),
                String::new(),
                "folder".into(),
            )],
            &[],
            &|_| {},
        );
        assert_eq!(read.items.len(), 1);
        let said = &read.warned[0].diagnostics;
        assert_eq!(said.len(), 1, "{said:?}");
        assert_eq!(said[0].code, skillpath_core::Code::FileSymlinkLeftOut);
        assert!(said[0].message.contains("leads out"), "{}", said[0].message);
    }

    #[test]
    fn a_broken_folder_is_skipped_with_its_diagnostic_and_the_others_are_read() {
        let temp = tempfile::tempdir().expect("tempdir");
        let good = temp.path().join("good");
        let broken = temp.path().join("good/assets/fixture");
        fs::create_dir_all(&broken).expect("mkdir");
        fs::write(
            good.join("SKILL.md"),
            "---\nname: good\ndescription: d\n---\n",
        )
        .expect("write");
        fs::write(broken.join("SKILL.md"), "---\nname: fixture\n---\n").expect("write");
        let sources = [&good, &broken]
            .into_iter()
            .map(|dir| FolderSource::imported(dir.clone(), String::new(), "folder".into()))
            .collect();
        let read = read_folders(sources, &[], &|_| {});
        assert_eq!(read.items.len(), 1);
        assert_eq!(read.skipped.len(), 1);
        assert_eq!(read.skipped[0].folder, broken);
        let diagnostic = &read.skipped[0].diagnostics[0];
        assert_eq!(diagnostic.code, skillpath_core::Code::DescriptionMissing);
        assert_eq!(
            diagnostic.location.as_ref().map(|l| l.file.clone()),
            Some(broken.join("SKILL.md"))
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
    fn leaves_symlink_loops_out() {
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
        // Loops are left out (and reported), and the rest is read.
        std::os::unix::fs::symlink("../a", skill.join("b/to-a")).expect("symlink");
        fs::write(skill.join("b/kept.md"), "K").expect("write");
        let loops = |skill: &Path| {
            let files = skill_files::list(skill).expect("lists");
            files
                .diagnostics
                .iter()
                .filter(|d| d.message.contains("symlink loop"))
                .count()
        };
        assert!(loops(&skill) > 0);
        let snapshot = read_skill_folder(&skill).expect("reads");
        assert!(snapshot.files.iter().any(|f| f.path == "b/kept.md"));
        fs::remove_file(skill.join("b/to-a")).expect("unlink");
        std::os::unix::fs::symlink(".", skill.join("b/here")).expect("symlink");
        assert!(loops(&skill) > 0);
        read_skill_folder(&skill).expect("reads");
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
