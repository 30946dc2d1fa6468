//! Shared helpers: skill folders in a temporary directory, and diagnostics as comparable data.

use std::fs;
use std::path::{Path, PathBuf};

use skillpath_core::load::LoadOptions;
use skillpath_core::validate::{self, Report, ValidateOptions};
use skillpath_core::{Code, Diagnostic, Mode, Severity};

/// What a test asserts about one diagnostic: code, severity, line and column (1-based).
/// A diagnostic without a location has line and column 0.
pub(crate) type Found = (Code, Severity, usize, usize);

/// Short names for the two severities, so expectations read as tables.
pub(crate) const ERROR: Severity = Severity::Error;
pub(crate) const WARNING: Severity = Severity::Warning;

/// The diagnostics as `(code, severity, line, column)` tuples, in the order reported.
pub(crate) fn found(diagnostics: &[Diagnostic]) -> Vec<Found> {
    diagnostics
        .iter()
        .map(|d| {
            let (line, column) = d
                .location
                .as_ref()
                .map_or((0, 0), |l| (l.start.line, l.start.column));
            (d.code, d.severity, line, column)
        })
        .collect()
}

/// A `SKILL.md` for the folder `demo` with a trigger-bearing description: line 1 is `---`,
/// line 2 `name: demo`, line 3 the description, then `extra` (whole lines), the closing `---`
/// and a one-line body.
pub(crate) fn demo(extra: &str) -> String {
    format!("---\nname: demo\ndescription: Use when testing the validator.\n{extra}---\nBody\n")
}

/// A temporary folder in which tests create skill folders.
pub(crate) struct Sandbox {
    temp: tempfile::TempDir,
}

impl Sandbox {
    pub(crate) fn new() -> Self {
        Sandbox {
            temp: tempfile::tempdir().expect("create a temporary folder"),
        }
    }

    pub(crate) fn path(&self) -> &Path {
        self.temp.path()
    }

    /// Writes `content` to `relative` (creating parent folders) and returns its path.
    pub(crate) fn file(&self, relative: &str, content: impl AsRef<[u8]>) -> PathBuf {
        let path = self.temp.path().join(relative);
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent).expect("create parent folders");
        }
        fs::write(&path, content).expect("write a test file");
        path
    }

    /// Creates the folder `relative` with a `SKILL.md` holding `content`; returns the folder.
    pub(crate) fn skill(&self, relative: &str, content: impl AsRef<[u8]>) -> PathBuf {
        self.file(&format!("{relative}/SKILL.md"), content);
        self.temp.path().join(relative)
    }

    /// Creates an empty folder `relative` and returns it.
    pub(crate) fn dir(&self, relative: &str) -> PathBuf {
        let path = self.temp.path().join(relative);
        fs::create_dir_all(&path).expect("create a folder");
        path
    }
}

/// Validation options for `mode`, with or without the authoring lints.
pub(crate) fn options(mode: Mode, lints: bool) -> ValidateOptions {
    ValidateOptions {
        load: LoadOptions {
            mode,
            ..LoadOptions::default()
        },
        lints,
    }
}

/// Validates a folder named `folder` whose `SKILL.md` is `text`.
pub(crate) fn validate_in(folder: &str, text: &str, mode: Mode, lints: bool) -> Report {
    let sandbox = Sandbox::new();
    let dir = sandbox.skill(folder, text);
    validate::validate_dir(&dir, &options(mode, lints))
}

/// The code, severity and position of everything `validate_in` finds.
pub(crate) fn check_in(folder: &str, text: &str, mode: Mode, lints: bool) -> Vec<Found> {
    found(&validate_in(folder, text, mode, lints).diagnostics)
}

/// The one diagnostic with `code`, failing the test if there is not exactly one.
pub(crate) fn only(diagnostics: &[Diagnostic], code: Code) -> Diagnostic {
    let matching: Vec<&Diagnostic> = diagnostics.iter().filter(|d| d.code == code).collect();
    assert_eq!(
        matching.len(),
        1,
        "expected one `{code}` in {:#?}",
        diagnostics
    );
    matching[0].clone()
}

pub(crate) use skillpath_test_support::corpus_dir as corpus_root;
