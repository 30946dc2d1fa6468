//! Skill folders on disk, apart from any store: finding the standard skill folders of a project
//! and a user (discovery) and the folders a user names (sources), reading a folder into a
//! skill's content (and stamping it, so an unchanged folder is not read again), writing and
//! exporting one, and where the agents' folders of the user are on this machine. The store
//! imports what this crate reads; the sources and the binary write through it.

pub mod discovery;
pub mod error;
pub mod folder;
pub mod home;
pub mod sources;

pub use error::FolderError;
