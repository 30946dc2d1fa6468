//! What a stored item is: a skill or an architecture package.

/// What a stored item is: a skill, or an architecture package
/// ([`skillpath_core::package`]). Both are kept alike (revisions, history, search, audit),
/// under one name per project: a name is a skill's or a package's, never both. An item's kind
/// is fixed when it is created.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// A skill: its manifest is `SKILL.md`.
    #[default]
    Skill,
    /// An architecture package: its manifest is `PACKAGE.md`, its files are the package's
    /// documentation pages and whatever else its folder holds besides its member skills.
    Package,
}

impl Kind {
    /// The lowercase name stored and shown.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Skill => "skill",
            Kind::Package => "package",
        }
    }

    /// The kind a stored name stands for; an unknown one (written by a newer skillpath) is
    /// `None`.
    pub fn parse(text: &str) -> Option<Kind> {
        [Kind::Skill, Kind::Package]
            .into_iter()
            .find(|kind| kind.as_str() == text)
    }

    /// The manifest's file name: `SKILL.md` or `PACKAGE.md`.
    pub fn manifest(self) -> &'static str {
        match self {
            Kind::Skill => "SKILL.md",
            Kind::Package => skillpath_core::package::MANIFEST,
        }
    }
}
