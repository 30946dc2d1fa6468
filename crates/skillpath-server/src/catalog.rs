//! The application layer's catalog ([`skillpath_app::Catalog`]) as the server holds it: each
//! skill with its Skills-extension entry (`skills/list`), derived once as the skill is read,
//! and the resource URIs of its files.

use skillpath_app::Derived;
use skillpath_audit::AuditRecord;
use skillpath_core::skill_md::SkillMd;
use skillpath_model::{FileMetadata, Kind};

use crate::skill_entry::Unlisted;

pub use skillpath_app::catalog::{Collision, Membership};

/// The catalog with each skill's Skills-extension entry.
pub type Catalog = skillpath_app::Catalog<SkillsEntry>;

/// One live skill (or package) with its Skills-extension entry.
pub type CatalogSkill = skillpath_app::CatalogSkill<SkillsEntry>;

/// The application, its catalog holding each skill's Skills-extension entry.
pub type App = skillpath_app::App<SkillsEntry>;

/// A skill's Skills-extension entry (`skills/list`), or why the extension cannot carry it.
#[derive(Debug)]
pub struct SkillsEntry(pub Result<rmcp::model::Skill, Unlisted>);

impl Derived for SkillsEntry {
    fn skill(
        name: &str,
        skill_md: &SkillMd,
        skill_md_file: &FileMetadata,
        files: &[FileMetadata],
        audit: Option<&AuditRecord>,
    ) -> Self {
        SkillsEntry(crate::skill_entry::skill_entry(
            name,
            skill_md,
            skill_md_file,
            files,
            audit,
        ))
    }

    fn package(name: &str) -> Self {
        SkillsEntry(Err(Unlisted::Package(name.to_owned())))
    }
}

/// Where a catalog item's files are as MCP resources.
pub(crate) trait Addressed {
    /// The URI scheme of its resources: `skill`, or `package`.
    fn scheme(&self) -> &'static str;

    /// The resource URI of its file `path` (its manifest's too; [`crate::uri::uri`]).
    fn uri(&self, path: &str) -> String;

    /// A package's documentation pages that it holds, as resource URIs, in its manifest's
    /// order.
    fn doc_uris(&self) -> Vec<String>;
}

impl Addressed for CatalogSkill {
    fn scheme(&self) -> &'static str {
        match self.kind {
            Kind::Skill => "skill",
            Kind::Package => "package",
        }
    }

    fn uri(&self, path: &str) -> String {
        crate::uri::uri(self.scheme(), &self.name, path)
    }

    fn doc_uris(&self) -> Vec<String> {
        self.doc_paths().iter().map(|page| self.uri(page)).collect()
    }
}
