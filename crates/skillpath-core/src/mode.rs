//! The three validation modes and what each one means.

use std::fmt;
use std::str::FromStr;

/// How strictly a skill is read and judged.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub enum Mode {
    /// Exactly the verdicts and messages of the reference validator (`skills-ref` 0.1.1),
    /// quirks included: frontmatter ends at the first `---` anywhere, YAML is strictyaml.
    SkillsRef,
    /// The specification, strictly. Unknown keys and agent extensions are warnings.
    #[default]
    Spec,
    /// What a loader accepts: warn and load where the client guide says so, and repair an
    /// unquoted `: ` inside a value.
    Lenient,
}

impl Mode {
    /// Every mode, for help texts and tests.
    pub const ALL: [Mode; 3] = [Mode::SkillsRef, Mode::Spec, Mode::Lenient];

    /// The name used on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::SkillsRef => "skills-ref",
            Mode::Spec => "spec",
            Mode::Lenient => "lenient",
        }
    }
}

impl fmt::Display for Mode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Mode {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Mode::ALL
            .into_iter()
            .find(|mode| mode.as_str() == s)
            .ok_or_else(|| {
                format!("unknown mode `{s}`; expected one of: skills-ref, spec, lenient")
            })
    }
}
