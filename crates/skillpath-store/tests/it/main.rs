//! The store's test suite.
//!
//! `suite` holds the backend-independent tests: each is an `async fn` taking the store (as
//! `&dyn Store`, or `Arc<dyn Store>` where tasks must own it) and asserting only on what the
//! [`Store`](skillpath_store::Store) trait promises. The `store_suite!` macro turns every one of
//! them into a `#[tokio::test]` for a backend, given a function that opens a fresh, empty store
//! for one test. `sqlite` instantiates the suite for SQLite and adds the SQLite-specific tests;
//! `postgres` does the same for PostgreSQL (`$SKILLPATH_TEST_POSTGRES`, a fresh schema per test).
//!
//! `audit` holds the tests of the audit of every write, run for each backend like the suite.
//!
//! `directory` holds the tests of people, namespaces, members, visibility, stars and the
//! governance log (both backends).
//!
//! `packages` holds the tests of architecture packages in the store (both backends).
//!
//! `uploads` holds the tests of uploads staged for a publish (both backends).
//!
//! `modules` checks that no module of the store imports one that imports it back.
//!
//! `scopes` opens stores with the views of several projects on one database (both backends).
//!
//! `corpus` runs the real-world skills corpus (`$SKILLPATH_CORPUS`, else `../shared/corpus` next
//! to the workspace) through import, export and search; it fails, never skips, when the corpus
//! is missing.

mod suite;
mod support;

mod audit;
mod corpus;
mod directory;
mod drafts;
mod forks;
mod packages;
#[cfg(feature = "postgres")]
mod postgres;
mod releases;
mod scopes;
mod sqlite;
mod uploads;
mod usage;
