//! The skillpath application layer: what every front end (the MCP server, the studio, the
//! CLI's store commands) calls, so that each rule is decided once, here, and the front ends
//! only translate to and from their own protocol. The CLI is the store's owner
//! ([`Caller::owner`]) and builds an application per command ([`App::for_command`]).
//!
//! Start with [`App`]: the store, the [`Catalog`] and its ranking (the one every search goes
//! through), the rules of who may do what ([`Operation`], [`App::may`]) and the typed
//! operations, each taking the [`Permit`] `App::may` gave the caller (so that the rule is
//! decided once, before the operation runs) and answering with typed results or an
//! [`AppError`]. No protocol type (MCP, HTTP) enters this crate.

mod app;
mod caller;
pub mod catalog;
mod channel;
pub mod content;
mod error;
pub mod meaning;
mod ops;
mod rules;
mod sight;

pub use app::{Announce, App, AppOptions};
pub use caller::{Caller, DraftsSeen};
pub use catalog::{Catalog, CatalogSkill, Derived, Membership, View};
pub use channel::Channel;
pub use content::{DEFAULT_CONTENT_CACHE_BYTES, SkillContent};
pub use error::AppError;
pub use meaning::Meaning;
pub use ops::{
    Account, Checked, Created, GroupGrant, GroupRule, Imported, KeyRequest, KeyUse,
    LISTED_OVERLAPS, OWN_KEY_LIFETIME, PackageFit, Published, ReleaseRequest, ReleaseRight,
    Released, Releases, SignedIn, Unused, VersionUpload, Written, read_spec,
};
pub use rules::{Operation, Permit};
pub use sight::Sight;

// The domain's types the operations take and answer with, so that a front end needs no
// other crate to name them.
pub use skillpath_model::governance::Entry as LogEntry;
pub use skillpath_model::release::{self, Release, Version};
pub use skillpath_model::{
    Access, FullName, Kind, MemberRole, Namespace, Placement, Provenance, Revision, SkillSnapshot,
    Visibility, name_of_key, namespace_of_key,
};
pub use skillpath_store::directory::{Directory, Governance, LogFilter};
pub use skillpath_store::drafts::{Draft, DraftSummary};
pub use skillpath_store::forks::ForkRequest;
pub use skillpath_store::keys::{AuthError, CreatedKey, KeyInfo, Role};
pub use skillpath_store::uploads::{StagedUpload, Staging, Unstaged};
pub use skillpath_store::usage::{UsageGroup, UsageQuery, UsageRow};
pub use skillpath_store::{ListFilter, Page, SkillSummary, StoreError, StoredSkill};
