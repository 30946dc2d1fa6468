//! Skill folders on disk, apart from any store: reading a folder into a skill's content (and
//! stamping it, so an unchanged folder is not read again), writing and exporting one, and
//! where the agents' folders of the user are on this machine. The store imports what this
//! crate reads; the sources and the binary write through it.

pub mod error;
pub mod folder;
pub mod home;

pub use error::FolderError;
