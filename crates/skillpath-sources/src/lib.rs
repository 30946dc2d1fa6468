//! Where skills come from and where they go. A source (a git repository at a commit, or a
//! folder) is read into memory and searched for skills ([`source`], [`git`], [`tree`]); the
//! skills taken from it are pinned in a lock, each file by its SHA-256 and the whole by a tree
//! digest ([`lock`], [`digest`]); every locked file is checked against its digest before
//! anything of it is written ([`verify`]); and the checked skills are written into the skill
//! folders of the agents a user has ([`write`](mod@write), by the rules of [`folders`]), one canonical
//! copy and links to it, each folder replaced whole or not at all. [`merge`] is the three-way
//! merge of a local edit with an update.
//!
//! Nothing here opens the store: the binary imports what a source gave and writes the lock
//! with the revisions the store made. Git is the system's `git`, run as a child process.

pub mod archive;
pub mod cache;
pub mod collation;
pub mod credentials;
pub mod digest;
pub mod error;
pub mod folders;
pub mod git;
pub mod http;
pub mod index;
pub mod lock;
pub mod merge;
pub mod migrate;
pub mod registry;
pub mod source;
pub mod tree;
pub mod verify;
pub mod write;

pub use error::SourceError;
