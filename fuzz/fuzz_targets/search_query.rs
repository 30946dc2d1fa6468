//! Search query strings: any text is a valid query (it finds something or nothing) on a store
//! holding a few skills; never an error, never a panic.
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use skillpath_store::{SqliteStore, Store};
use skillpath_model::SkillSnapshot;

#[path = "common/seeded_store.rs"]
mod seeded_store;
use seeded_store::seeded_store;

struct Fixture {
    _temp: tempfile::TempDir,
    runtime: tokio::runtime::Runtime,
    store: SqliteStore,
}

fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("a runtime");
        let skills = [
            (
                "pdf-forms",
                "Fill PDF forms. Use when a form must be filled.",
                "Read the fields first; \"quoted\" AND OR NOT NEAR(a b) * ^ -x",
            ),
            (
                "add-caching",
                "Add caching to a service with Redis or memory.",
                "# Steps\n\n{ServiceName} gets a cache.",
            ),
            ("日本語-skill", "Unicode: é, 技, 😀", "Ünïcödé body"),
        ]
        .map(|(name, description, body)| {
            SkillSnapshot::new(
                format!("---\nname: {name}\ndescription: {description}\n---\n{body}\n"),
                Vec::new(),
            )
            .expect("a snapshot")
        });
        let (temp, store) = seeded_store(&runtime, skills.into());
        Fixture {
            _temp: temp,
            runtime,
            store,
        }
    })
}

fuzz_target!(|data: &[u8]| {
    let Ok(query) = std::str::from_utf8(data) else {
        return;
    };
    let fixture = fixture();
    let result = fixture.runtime.block_on(fixture.store.search(query, 10));
    if let Err(error) = result {
        panic!("the query {query:?} failed: {error}");
    }
});
