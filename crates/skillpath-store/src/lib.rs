//! Skill storage: every skill with its files and full revision history, search, import and
//! export of skill folders, and discovery of the standard skill folders.
//!
//! Start with the [`Store`] trait; [`SqliteStore`] is the embedded backend,
//! [`PostgresStore`] the shared one. Writes carry the
//! revision the writer expects, so a stale write is refused ([`StoreError::StaleRevision`]),
//! never lost or merged. The store never renders or serves skills; it parses a `SKILL.md` only
//! to read its name, description and `tool_name`.

pub mod diff;
pub mod discovery;
pub mod error;
pub mod folder;
mod import_plan;
pub mod keys;
pub mod location;
pub mod model;
pub mod postgres;
mod rules;
mod schema;
pub mod scopes;
pub mod search;
pub mod sources;
pub mod sqlite;
pub mod store;
pub mod time;

pub use error::{StoreError, StoreResult};
pub use model::{
    Change, FolderContent, FolderImport, FolderStamp, ImportItem, ImportReport, ListFilter,
    Operation, Page, Provenance, RecordedStamp, Revision, SearchHit, ShadowedSkill, SkillFile,
    SkillSnapshot, SkillSummary, StoredSkill,
};
pub use postgres::PostgresStore;
pub use scopes::ProjectView;
pub use sqlite::SqliteStore;
pub use store::Store;
