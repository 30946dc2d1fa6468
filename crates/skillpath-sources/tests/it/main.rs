//! The sources crate's own tests of what installing promises, through its typed API and real
//! temporary folders, without the binary:
//!
//! `verify` holds the lock's promise: content whose bytes differ from the lock's digests is
//! refused, named, and gives nothing to write, whichever way it came (the store or the
//! source).
//!
//! `write` holds the writer's: a skill is never written outside its agent folder (a symlinked
//! folder on the way, a name that is a path), and one that cannot be written is skipped and
//! named while the others are written whole.

mod collation;
mod support;
mod verify;
mod write;
