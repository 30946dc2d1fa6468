//! Diagnostics: what is wrong (or worth knowing) about a skill, where, and how to fix it.
//!
//! Every diagnostic carries a stable [`Code`]; the table of codes lives in
//! `docs/diagnostics.md`, and a test keeps the two in step.

use std::fmt;
use std::ops::Range;
use std::path::PathBuf;

use crate::source::{LineColumn, LineIndex};

/// How serious a diagnostic is. Errors make a skill invalid; warnings do not.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// The skill is invalid in the chosen mode.
    Error,
    /// Worth fixing, but the skill is usable.
    Warning,
}

impl Severity {
    /// The lowercase name used in text and JSON output.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        }
    }
}

macro_rules! codes {
    ($($variant:ident => $code:literal,)*) => {
        /// A stable identifier for each kind of diagnostic. Never renamed once released.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Code { $(#[doc = concat!("`", $code, "`")] $variant,)* }

        impl Code {
            /// Every code, in declaration order.
            pub const ALL: &[Code] = &[$(Code::$variant,)*];

            /// The code as written in output and documentation.
            pub fn as_str(self) -> &'static str {
                match self { $(Code::$variant => $code,)* }
            }
        }
    };
}

codes! {
    PathNotFound => "path-not-found",
    NotADirectory => "not-a-directory",
    SkillMdMissing => "skill-md-missing",
    SkillMdLowercase => "skill-md-lowercase",
    SkillMdNotAFile => "skill-md-not-a-file",
    SkillMdUnreadable => "skill-md-unreadable",
    FileTooLarge => "file-too-large",
    InvalidUtf8 => "invalid-utf8",
    ByteOrderMark => "byte-order-mark",
    NulCharacter => "nul-character",
    FileNotRegular => "file-not-regular",
    FileSymlinkLeftOut => "file-symlink-left-out",
    FileNameInvalid => "file-name-invalid",
    FrontmatterMissing => "frontmatter-missing",
    FrontmatterUnclosed => "frontmatter-unclosed",
    FrontmatterNotMapping => "frontmatter-not-mapping",
    YamlSyntax => "yaml-syntax",
    YamlDuplicateKey => "yaml-duplicate-key",
    YamlNonStringKey => "yaml-non-string-key",
    YamlTooComplex => "yaml-too-complex",
    YamlRepaired => "yaml-repaired",
    FieldUnknown => "field-unknown",
    FieldExtension => "field-extension",
    NameMissing => "name-missing",
    NameNotString => "name-not-string",
    NameEmpty => "name-empty",
    NameTooLong => "name-too-long",
    NameNotLowercase => "name-not-lowercase",
    NameHyphenEdge => "name-hyphen-edge",
    NameConsecutiveHyphens => "name-consecutive-hyphens",
    NameInvalidCharacters => "name-invalid-characters",
    NameNotAscii => "name-not-ascii",
    NameDirectoryMismatch => "name-directory-mismatch",
    NameNotAFolderName => "name-not-a-folder-name",
    DescriptionMissing => "description-missing",
    DescriptionNotString => "description-not-string",
    DescriptionEmpty => "description-empty",
    DescriptionTooLong => "description-too-long",
    DescriptionNoTrigger => "description-no-trigger",
    LicenseNotString => "license-not-string",
    CompatibilityNotString => "compatibility-not-string",
    CompatibilityEmpty => "compatibility-empty",
    CompatibilityTooLong => "compatibility-too-long",
    MetadataNotMapping => "metadata-not-mapping",
    MetadataKeyNotString => "metadata-key-not-string",
    MetadataValueNotString => "metadata-value-not-string",
    AllowedToolsNotString => "allowed-tools-not-string",
    ArgsNotAList => "args-not-a-list",
    ArgNotAMapping => "arg-not-a-mapping",
    ArgNameMissing => "arg-name-missing",
    ArgNameInvalid => "arg-name-invalid",
    ArgDuplicate => "arg-duplicate",
    ArgPlaceholderCollision => "arg-placeholder-collision",
    ArgFieldUnknown => "arg-field-unknown",
    ArgDescriptionMissing => "arg-description-missing",
    ArgRequiredNotBoolean => "arg-required-not-boolean",
    ArgTypeUnknown => "arg-type-unknown",
    ArgEnumInvalid => "arg-enum-invalid",
    ArgDefaultInvalid => "arg-default-invalid",
    ArgDefaultNotInEnum => "arg-default-not-in-enum",
    ArgRequiredWithDefault => "arg-required-with-default",
    ToolNameInvalid => "tool-name-invalid",
    PhaseOutsideExecutionSteps => "phase-outside-execution-steps",
    PhaseNumbering => "phase-numbering",
    TemplateReferenceIncomplete => "template-reference-incomplete",
    TemplateMissing => "template-missing",
    TemplateOutsideSkill => "template-outside-skill",
    TemplateIfUnbalanced => "template-if-unbalanced",
    ConditionMalformed => "condition-malformed",
    ConditionUnknownVariable => "condition-unknown-variable",
    ConditionValueInvalid => "condition-value-invalid",
    PlaceholderUnknown => "placeholder-unknown",
    TargetOutsideProject => "target-outside-project",
    BodyTooLong => "body-too-long",
    BodyTooManyTokens => "body-too-many-tokens",
    LinkMissing => "link-missing",
    LinkOutsideSkill => "link-outside-skill",
    ToolNameCollision => "tool-name-collision",
    DescriptionOverlap => "description-overlap",
    OptionDefaultMissing => "option-default-missing",
    OptionCollidesWithArgument => "option-collides-with-argument",
    PackageNameInvalid => "package-name-invalid",
    PackageFieldInvalid => "package-field-invalid",
    PackageSkillDuplicate => "package-skill-duplicate",
    PackageSkillMissing => "package-skill-missing",
    PackageDocOutside => "package-doc-outside",
    PackageDocMissing => "package-doc-missing",
}

impl Code {
    /// Whether the rule is about what a loader needs to load a skill at all: reading its
    /// files, parsing its frontmatter, its `name` (present, and one folder's name, since
    /// skillpath writes a skill into a folder of that name) and its `description`. An error of
    /// such a rule in lenient mode is why `import` and `serve` skip a folder (the client guide's
    /// "skip the skill, log it, load the rest"); a warning of one (a name that does not match
    /// its folder, or is too long) is reported with the skill, which loads. Every other finding
    /// is the author's to fix and never keeps a skill from loading.
    pub fn concerns_loading(self) -> bool {
        use Code::*;
        matches!(
            self,
            PathNotFound
                | NotADirectory
                | SkillMdMissing
                | SkillMdNotAFile
                | SkillMdUnreadable
                | FileTooLarge
                | InvalidUtf8
                | NulCharacter
                | FileNotRegular
                | FileSymlinkLeftOut
                | FileNameInvalid
                | FrontmatterMissing
                | FrontmatterUnclosed
                | FrontmatterNotMapping
                | YamlSyntax
                | YamlDuplicateKey
                | YamlNonStringKey
                | YamlTooComplex
                | YamlRepaired
                | NameMissing
                | NameNotString
                | NameEmpty
                | NameTooLong
                | NameDirectoryMismatch
                | NameNotAFolderName
                | DescriptionMissing
                | DescriptionNotString
                | DescriptionEmpty
                | DescriptionTooLong
        )
    }
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One finding about a skill.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// Stable identifier of the rule.
    pub code: Code,
    /// Error or warning.
    pub severity: Severity,
    /// What is wrong, as a sentence without a trailing period.
    pub message: String,
    /// Where, if the finding has a place in a file.
    pub location: Option<Location>,
    /// How to fix it, when there is something useful to say.
    pub hint: Option<String>,
}

/// A place in a file of a skill.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location {
    /// The file, as the user named it (or as found under the path they named).
    pub file: PathBuf,
    /// Byte range in the file's text.
    pub range: Range<usize>,
    /// Line and column of the start of `range`.
    pub start: LineColumn,
}

impl Diagnostic {
    /// An error without a location.
    pub fn error(code: Code, message: impl Into<String>) -> Self {
        Diagnostic {
            code,
            severity: Severity::Error,
            message: message.into(),
            location: None,
            hint: None,
        }
    }

    /// A warning without a location.
    pub fn warning(code: Code, message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Warning,
            ..Diagnostic::error(code, message)
        }
    }

    /// Adds a fix suggestion.
    pub fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }

    /// Places the diagnostic at `range` of `file`, whose text is `text`.
    pub fn at(mut self, file: &SourceFile, range: Range<usize>) -> Self {
        let start = file.index.line_column(&file.text, range.start);
        self.location = Some(Location {
            file: file.path.clone(),
            range,
            start,
        });
        self
    }

    /// Places the diagnostic at `location`.
    pub fn placed(mut self, location: Location) -> Self {
        self.location = Some(location);
        self
    }

    /// Places the diagnostic at the start of `file` when it has no place yet.
    pub fn in_file(mut self, path: PathBuf) -> Self {
        if self.location.is_none() {
            self.location = Some(Location {
                file: path,
                range: 0..0,
                start: LineColumn { line: 1, column: 1 },
            });
        }
        self
    }

    /// Lowers an error to a warning (lenient mode's "warn, but load").
    pub fn downgraded(mut self) -> Self {
        self.severity = Severity::Warning;
        self
    }

    /// Whether this diagnostic makes the skill invalid.
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

/// A file's text with its path and line index, so diagnostics can point into it.
#[derive(Debug, Clone)]
pub struct SourceFile {
    /// The path as the user named it.
    pub path: PathBuf,
    /// The text (after decoding; a byte-order mark is kept so offsets match the file).
    pub text: String,
    /// Line starts of `text`.
    pub index: LineIndex,
}

impl SourceFile {
    /// Indexes `text` as the contents of `path`.
    pub fn new(path: PathBuf, text: String) -> Self {
        let index = LineIndex::new(&text);
        SourceFile { path, text, index }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `docs/diagnostics.md` lists exactly the codes this enum has.
    #[test]
    fn every_code_is_documented() {
        let doc = include_str!("../../../docs/diagnostics.md");
        let documented: Vec<&str> = doc
            .lines()
            .filter_map(|line| line.strip_prefix("| `"))
            .filter_map(|rest| rest.split('`').next())
            .collect();
        let codes: Vec<&str> = Code::ALL.iter().map(|code| code.as_str()).collect();
        let mut sorted_documented = documented.clone();
        sorted_documented.sort_unstable();
        let mut sorted_codes = codes.clone();
        sorted_codes.sort_unstable();
        assert_eq!(
            sorted_documented, sorted_codes,
            "docs/diagnostics.md and `Code` disagree"
        );
    }
}
