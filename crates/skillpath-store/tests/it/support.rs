//! Helpers shared by the tests: a backend under test, and short ways to write skills, changes
//! and provenance.

use std::any::Any;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use skillpath_model::{Change, Provenance, Revision, SkillFile, SkillSnapshot};
use skillpath_store::{ListFilter, ProjectView, SkillSummary, Store, StoreResult};

/// Opens another store on the backend's database, with a view of some projects.
pub(crate) type OpenIn =
    Box<dyn Fn(ProjectView) -> Pin<Box<dyn Future<Output = Arc<dyn Store>> + Send>> + Send + Sync>;

/// A fresh store for one test, with whatever must live as long as it (a temp folder, a
/// throw-away database) and a way to measure its size on disk.
pub(crate) struct Backend {
    // Dropped first: the store closes before its temp folder goes.
    store: Arc<dyn Store>,
    size: Box<dyn Fn() -> Option<String> + Send + Sync>,
    open_in: OpenIn,
    _keep: Box<dyn Any + Send + Sync>,
}

impl Backend {
    /// A backend: the store, what it needs kept alive, how to tell its size on disk, and how
    /// to open the same database with a view of some projects.
    pub(crate) fn new(
        store: Arc<dyn Store>,
        keep: impl Any + Send + Sync,
        size: impl Fn() -> Option<String> + Send + Sync + 'static,
        open_in: OpenIn,
    ) -> Backend {
        Backend {
            store,
            size: Box::new(size),
            open_in,
            _keep: Box::new(keep),
        }
    }

    /// Another store on the same database, showing the projects of `view`.
    pub(crate) async fn open_in(&self, view: ProjectView) -> Arc<dyn Store> {
        (self.open_in)(view).await
    }

    /// The store, borrowed.
    pub(crate) fn store(&self) -> &dyn Store {
        &*self.store
    }

    /// The store, shared (for tasks that must own it).
    pub(crate) fn shared(&self) -> Arc<dyn Store> {
        Arc::clone(&self.store)
    }

    /// What the store takes on disk, for a person, when the backend can tell.
    pub(crate) fn size_on_disk(&self) -> Option<String> {
        (self.size)()
    }
}

/// A `SKILL.md` with a name, a description and a body.
pub(crate) fn md(name: &str, description: &str, body: &str) -> String {
    format!("---\nname: {name}\ndescription: {description}\n---\n\n{body}\n")
}

/// A snapshot of `skill_md` and files given as `(path, bytes)`.
pub(crate) fn snapshot(skill_md: String, files: &[(&str, &[u8])]) -> SkillSnapshot {
    let files = files
        .iter()
        .map(|(path, bytes)| SkillFile {
            path: (*path).to_owned(),
            bytes: bytes.to_vec(),
        })
        .collect();
    SkillSnapshot::new(skill_md, files).expect("the test's snapshot is valid")
}

/// A snapshot with only a `SKILL.md`.
pub(crate) fn skill(name: &str, description: &str, body: &str) -> SkillSnapshot {
    snapshot(md(name, description, body), &[])
}

/// A change by `author` for `message`.
pub(crate) fn by(author: &str, message: &str) -> Change {
    Change {
        author: author.to_owned(),
        message: message.to_owned(),
    }
}

/// Provenance of a folder imported from `path` under the root `/import`.
pub(crate) fn imported(path: &str) -> Provenance {
    Provenance::Imported {
        path: path.to_owned(),
        root: "/import".to_owned(),
        scope: "folder".to_owned(),
    }
}

/// Every skill matching `filter`, following cursors with pages of `page_size`.
pub(crate) async fn list_all(
    store: &dyn Store,
    filter: ListFilter,
    page_size: usize,
) -> Vec<SkillSummary> {
    let mut items = Vec::new();
    let mut cursor = None;
    for _ in 0..10_000 {
        let page = store
            .list(filter.clone(), cursor, page_size)
            .await
            .expect("list");
        assert!(
            page.items.len() <= page_size,
            "a page of {} items for a page size of {page_size}",
            page.items.len()
        );
        items.extend(page.items);
        match page.next_cursor {
            Some(next) => cursor = Some(next),
            None => return items,
        }
    }
    panic!("the listing did not end after 10,000 pages");
}

/// The names of every live skill, in listing order.
pub(crate) async fn live_names(store: &dyn Store) -> Vec<String> {
    list_all(store, ListFilter::default(), 100)
        .await
        .into_iter()
        .map(|s| s.name)
        .collect()
}

/// The names of the items with a current revision (`Store::current_revisions`), packages
/// among them.
pub(crate) async fn current_names(store: &dyn Store) -> Vec<String> {
    store
        .current_revisions()
        .await
        .expect("revisions")
        .into_iter()
        .map(|(name, _)| name)
        .collect()
}

/// The names of the hits for `query`, best first.
pub(crate) async fn search_names(store: &dyn Store, query: &str) -> Vec<String> {
    store
        .search(query, 50)
        .await
        .expect("search")
        .into_iter()
        .map(|hit| hit.name)
        .collect()
}

/// The history of `name` as `(number, operation, author, message)`.
pub(crate) async fn history_of(
    store: &dyn Store,
    name: &str,
) -> Vec<(u64, &'static str, String, String)> {
    store
        .history(name)
        .await
        .expect("history")
        .into_iter()
        .map(|r: Revision| (r.number, r.operation.as_str(), r.author, r.message))
        .collect()
}

/// `(number, operation, author, message)` with owned text, for comparing with [`history_of`].
pub(crate) fn rev(
    number: u64,
    operation: &'static str,
    author: &str,
    message: &str,
) -> (u64, &'static str, String, String) {
    (number, operation, author.to_owned(), message.to_owned())
}

/// Whether `text` looks like the RFC 3339 UTC timestamps the store writes.
pub(crate) fn is_rfc3339_utc(text: &str) -> bool {
    let bytes = text.as_bytes();
    text.len() == 24
        && text.ends_with('Z')
        && bytes[4] == b'-'
        && bytes[7] == b'-'
        && bytes[10] == b'T'
        && bytes[13] == b':'
        && bytes[16] == b':'
        && bytes[19] == b'.'
}

/// Whether `text` is `sha256:` and 64 lowercase hex digits.
pub(crate) fn is_sha256(text: &str) -> bool {
    text.strip_prefix("sha256:").is_some_and(|hex| {
        hex.len() == 64
            && hex
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    })
}

/// Awaits `future`, which must fail; gives the error.
pub(crate) async fn fails<T: std::fmt::Debug>(
    future: impl Future<Output = StoreResult<T>>,
) -> skillpath_store::StoreError {
    match future.await {
        Ok(value) => panic!("expected an error, got {value:?}"),
        Err(error) => error,
    }
}
