//! The typed operations, grouped by what they act on. Each takes the [`crate::Permit`] the rules
//! gave the caller ([`crate::App::may`]) and answers with the store's own types or an [`crate::AppError`].

mod architectures;
mod authoring;
mod drafts;
mod files;
mod history;
mod import;
mod keys;
mod listing;
mod namespaces;
mod publish;
mod releases;
mod render;
mod sign_in;
mod update;
mod usage;

pub use architectures::PackageFit;
pub use authoring::{Checked, Created, read_spec};
pub use history::Written;
pub use import::{Imported, LISTED_OVERLAPS};
pub use keys::{KeyRequest, OWN_KEY_LIFETIME};
pub use publish::{Published, VersionUpload};
pub use releases::{ReleaseRequest, ReleaseRight, Released, Releases};
pub use sign_in::{Account, GroupGrant, GroupRule, KeyUse, SignedIn};
pub use usage::Unused;
