//! A SQLite store holding given skills, for the targets that need one (each target is a binary
//! of its own, so they include this file rather than share a library).

use skillpath_store::{SqliteStore, Store};
use skillpath_model::{Change, Provenance, SkillSnapshot};

/// A store in a new temporary folder (which lives as long as the returned `TempDir`), with
/// `skills` created in it on `runtime`.
pub fn seeded_store(
    runtime: &tokio::runtime::Runtime,
    skills: Vec<SkillSnapshot>,
) -> (tempfile::TempDir, SqliteStore) {
    let temp = tempfile::tempdir().expect("a temporary folder");
    let store = SqliteStore::open(&temp.path().join("store.db")).expect("a store");
    runtime.block_on(async {
        for snapshot in skills {
            let change = Change {
                author: "fuzz".into(),
                message: "seed".into(),
            };
            store
                .create(snapshot, Provenance::Api, change)
                .await
                .expect("create");
        }
    });
    (temp, store)
}
