//! The tests of uploads staged for a publish (`skillpath_store::uploads`), for each backend.

use std::sync::Arc;

use skillpath_store::ProjectView;
use skillpath_store::Store;
use skillpath_store::uploads::{StagedUpload, Staging, Unstaged};

use crate::support::Backend;

/// An upload of `size` bytes announced by `key` at `at`.
fn announced(ticket: &str, key: &str, size: u64, at: &str) -> StagedUpload {
    StagedUpload {
        ticket: ticket.to_owned(),
        key: key.to_owned(),
        path: format!("{ticket}.md"),
        size,
        sha256: "0".repeat(64),
        bytes: None,
        created_at: at.to_owned(),
    }
}

/// Bounds of 100 bytes a key and 150 in all; uploads before `since` are past their lifetime.
fn bounds(since: &str) -> Staging {
    Staging {
        per_key: 100,
        total: 150,
        since: since.to_owned(),
    }
}

pub(crate) async fn uploads_wait_within_their_bounds_until_published(store: &dyn Store) {
    let early = "2026-12-08T10:00:00.000Z";
    let since = bounds("2026-12-08T09:00:00.000Z");
    let stage = |upload, staging| store.stage_upload(upload, staging);
    assert_eq!(
        stage(announced("a1", "sp_a", 60, early), since.clone())
            .await
            .expect("a1"),
        Ok(())
    );
    assert_eq!(
        stage(announced("a2", "sp_a", 41, early), since.clone())
            .await
            .expect("a2"),
        Err(Unstaged::PerKey),
        "the key would have 101 bytes waiting"
    );
    assert_eq!(
        stage(announced("a2", "sp_a", 40, early), since.clone())
            .await
            .expect("a2"),
        Ok(())
    );
    assert_eq!(
        stage(announced("b1", "sp_b", 51, early), since.clone())
            .await
            .expect("b1"),
        Err(Unstaged::Total),
        "the store would have 151 bytes waiting"
    );
    assert_eq!(
        store.staged_upload("b1").await.expect("read"),
        None,
        "nothing staged"
    );

    let waiting = store
        .staged_upload("a1")
        .await
        .expect("read")
        .expect("a1 waits");
    assert_eq!(waiting, announced("a1", "sp_a", 60, early));
    store.fill_upload("a1", vec![7; 60]).await.expect("filled");
    let filled = store
        .staged_upload("a1")
        .await
        .expect("read")
        .expect("a1 waits");
    assert_eq!(filled.bytes.as_deref(), Some(&[7u8; 60][..]));

    store
        .drop_uploads("sp_b", vec!["a1".to_owned()])
        .await
        .expect("another key's drop");
    assert!(
        store.staged_upload("a1").await.expect("read").is_some(),
        "a1 is sp_a's"
    );
    store
        .drop_uploads("sp_a", vec!["a1".to_owned(), "unknown".to_owned()])
        .await
        .expect("published");
    assert_eq!(store.staged_upload("a1").await.expect("read"), None);
    assert_eq!(
        stage(announced("b1", "sp_b", 100, early), since.clone())
            .await
            .expect("b1"),
        Ok(()),
        "a1's bytes are no longer waiting"
    );

    // An hour later, what was announced before the lifetime's start is dropped first.
    let later = bounds("2026-12-08T10:30:00.000Z");
    let now = "2026-12-08T11:00:00.000Z";
    assert_eq!(
        stage(announced("c1", "sp_c", 100, now), later)
            .await
            .expect("c1"),
        Ok(())
    );
    for gone in ["a2", "b1"] {
        assert_eq!(
            store.staged_upload(gone).await.expect("read"),
            None,
            "{gone} expired"
        );
    }
}

pub(crate) async fn concurrent_uploads_from_two_stores_stay_within_the_bound(backend: &Backend) {
    let first = backend.shared();
    let second: Arc<dyn Store> = backend.open_in(ProjectView::default()).await;
    let at = "2026-12-08T10:00:00.000Z";
    let mut tasks = Vec::new();
    for index in 0..12 {
        let store = if index % 2 == 0 {
            Arc::clone(&first)
        } else {
            Arc::clone(&second)
        };
        tasks.push(tokio::spawn(async move {
            let upload = announced(&format!("t{index}"), &format!("sp_{index}"), 40, at);
            store
                .stage_upload(upload, bounds("2026-12-08T09:00:00.000Z"))
                .await
        }));
    }
    let mut staged = 0;
    for task in tasks {
        match task.await.expect("joined").expect("staged or refused") {
            Ok(()) => staged += 1,
            Err(refused) => assert_eq!(refused, Unstaged::Total),
        }
    }
    assert_eq!(
        staged, 3,
        "three uploads of 40 bytes fit in 150, a fourth does not"
    );
}
