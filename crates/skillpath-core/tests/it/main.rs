//! Integration tests of `skillpath-core` through its public API: one test per rule of the
//! `spec` and `lenient` modes, per authoring lint and per reading failure, each asserting the
//! code, severity, line and column of what it finds.
//!
//! `skills-ref` mode is pinned by the differential test of the `skillpath` crate, not here.

mod architecture;
mod bundle;
mod claude_args;
mod codes;
mod golden_path;
mod lenient;
mod lints;
mod package;
mod parse;
mod spec;
mod support;
mod write;
