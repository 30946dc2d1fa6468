//! Validating a skill, a folder or files in memory, in one of the three [`Mode`]s.

mod lints;
pub(crate) mod name;
pub(crate) mod reference;
pub(crate) mod report;
pub(crate) mod spec;

pub use name::{
    MAX_FOLDER_NAME_BYTES, NotAFolderName, NotAHandle, check_folder_name, check_handle,
};
pub use report::Report;
pub use spec::{MAX_COMPATIBILITY_CHARS, MAX_DESCRIPTION_CHARS, description_within_limits};

use std::path::Path;

use crate::bundle::SkillBundle;
use crate::diagnostic::Diagnostic;
use crate::golden_path;
use crate::load::LoadOptions;
use crate::mode::Mode;
use crate::pathlib;
use crate::skill_md::SkillMd;

/// How to validate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ValidateOptions {
    /// Mode and size limit.
    pub load: LoadOptions,
    /// Run the authoring lints (body length, trigger words, links). Never in `skills-ref` mode.
    pub lints: bool,
}

impl Default for ValidateOptions {
    fn default() -> Self {
        ValidateOptions {
            load: LoadOptions::default(),
            lints: true,
        }
    }
}

/// Validates the skill folder `dir` (as the user named it): reads it into a [`SkillBundle`]
/// (what cannot be read at all is the report's one diagnostic), then [`validate`]s that.
pub fn validate_dir(dir: &Path, options: &ValidateOptions) -> Report {
    let reference = options.load.mode == Mode::SkillsRef;
    if !reference && crate::package::is_package_folder(dir) && !crate::disk::is_skill_dir(dir) {
        return crate::package::validate_package_dir(dir);
    }
    match SkillBundle::read_folder(dir, &options.load) {
        Ok(mut bundle) => {
            // A member of a package knows the package's options as variables.
            if !reference && let Some((_, package)) = crate::package::package_of(dir) {
                bundle.package_options = package.options;
            }
            validate(&bundle, options)
        }
        Err(diagnostic) => Report {
            path: dir.to_path_buf(),
            skill_md: None,
            diagnostics: vec![diagnostic],
        },
    }
}

/// Validates the skill `bundle`, wherever it came from: its files are the only ones links and
/// templates may name. The report's path is `bundle.display_path`.
pub fn validate(bundle: &SkillBundle, options: &ValidateOptions) -> Report {
    let mode = options.load.mode;
    let reference = mode == Mode::SkillsRef;
    let dir = &bundle.display_path;
    let report = |skill_md, diagnostics| Report {
        path: dir.clone(),
        skill_md,
        diagnostics,
    };
    let skill = match bundle.parse_skill_md(options.load) {
        Ok(skill) => skill,
        Err(diagnostic) => return report(None, vec![diagnostic]),
    };
    let mut diagnostics = skill.diagnostics.clone();
    if skill.frontmatter.is_some() {
        if reference {
            diagnostics.extend(reference::check(&skill, pathlib::name(dir)));
            // The reference already rejects `args` and `tool_name` as unknown fields; only then
            // are the Golden Path rules added, so every skill the reference accepts keeps its
            // verdict and output.
            if golden_path::FIELDS
                .iter()
                .any(|field| skill.field(field).is_some())
            {
                diagnostics.extend(golden_path::check(&skill, bundle));
            }
        } else {
            diagnostics.extend(spec::check(&skill, bundle.folder_name.as_deref(), mode));
            diagnostics.extend(golden_path::check(&skill, bundle));
            // What the store would leave out of the skill, or refuse it for.
            diagnostics.extend(bundle.read_diagnostics.iter().cloned());
            if options.lints {
                diagnostics.extend(lints::check(&skill, bundle));
            }
            diagnostics.sort_by_key(|d| d.location.as_ref().map(|l| (l.start, l.range.end)));
        }
    }
    report(Some(skill), diagnostics)
}

/// What lenient loading says of `skill` (parsed in [`Mode::Lenient`]) in a folder named
/// `directory_name`: the diagnostics of the rules that concern loading
/// ([`Code::concerns_loading`](crate::Code::concerns_loading)), each placed in its file. An
/// error among them means a loader skips the skill; warnings go with the skill, which loads. The same findings, in the same
/// words, as `validate --mode lenient` reports for them.
pub fn loading(skill: &SkillMd, directory_name: Option<&str>) -> Vec<Diagnostic> {
    let mut diagnostics: Vec<Diagnostic> = skill
        .diagnostics
        .iter()
        .cloned()
        .chain(spec::check(skill, directory_name, Mode::Lenient))
        .filter(|diagnostic| diagnostic.code.concerns_loading())
        .map(|diagnostic| diagnostic.in_file(skill.file.path.clone()))
        .collect();
    diagnostics.sort_by_key(|d| (d.severity, d.location.as_ref().map(|l| l.start)));
    diagnostics
}
