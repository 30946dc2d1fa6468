//! Skill storage, and persistence only: every skill with its files and full revision history,
//! drafts, forks, keys and usage, search, and imports of what `skillpath-folders` read. The
//! skill model is `skillpath-model`'s; folders on disk are `skillpath-folders`'.
//!
//! Start with the [`Store`] trait; [`SqliteStore`] is the embedded backend,
//! [`PostgresStore`] the shared one. Writes carry the
//! revision the writer expects, so a stale write is refused ([`StoreError::StaleRevision`]),
//! never lost or merged. The store never renders or serves skills; it parses a `SKILL.md` only
//! to read its name, description and `tool_name`, and audits every skill it writes
//! ([`skillpath_audit`], by the store's [`Store::audit_policy`]), keeping the findings with the
//! revision.

pub mod answers;
mod audit;
mod backend;
mod columns;
mod content;
mod cursor;
pub mod diff;
pub mod directory;
pub mod drafts;
pub mod error;
pub mod forks;
mod import;
pub mod keys;
pub mod location;
mod provenance_column;
mod schema;
pub mod scopes;
pub mod search;
pub mod store;
pub mod time;
pub mod uploads;
pub mod usage;
mod writes;

pub use answers::{
    AuditedSkill, ImportReport, ListFilter, Page, SearchHit, SkillMetadata, SkillSummary,
    StoredSkill,
};
#[cfg(feature = "postgres")]
pub use backend::postgres;
pub use backend::sqlite;
pub use error::{DatabaseError, StoreError, StoreResult};
#[cfg(feature = "postgres")]
pub use postgres::PostgresStore;
pub use schema::{Upgrade, Upgraded};
pub use scopes::ProjectView;
pub use sqlite::SqliteStore;
pub use store::Store;
