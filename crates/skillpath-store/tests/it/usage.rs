//! Usage counts in the store, for every backend: batches add to what is stored, read summed by
//! skill, revision, day and key, within a window; concurrent writers lose no use.

use std::sync::Arc;

use skillpath_store::Store;
use skillpath_store::usage::{UsageCount, UsageGroup, UsageKind, UsageQuery, UsageRow};

fn count(skill: &str, revision: u64, day: &str, key: &str, kind: UsageKind, n: u64) -> UsageCount {
    UsageCount {
        skill: skill.to_owned(),
        revision,
        day: day.to_owned(),
        key: key.to_owned(),
        kind,
        count: n,
        last_used: format!("{day}T12:00:0{n}.000Z"),
    }
}

/// A row as (skill, group, calls, loads, prompts, reads).
type Summed<'a> = (&'a str, Option<&'a str>, u64, u64, u64, u64);

/// Each row as [`Summed`].
fn summed(rows: &[UsageRow]) -> Vec<Summed<'_>> {
    rows.iter()
        .map(|r| {
            (
                r.skill.as_str(),
                r.group.as_deref(),
                r.calls,
                r.loads,
                r.prompts,
                r.reads,
            )
        })
        .collect()
}

pub(crate) async fn usage_adds_up_by_skill_revision_day_and_key(store: &dyn Store) {
    use UsageKind::{Call, Load, Prompt, Read};
    store
        .record_usage(vec![
            count("add-cache", 1, "2026-11-30", "ana", Call, 2),
            count("add-cache", 2, "2026-12-01", "ana", Call, 3),
            count("add-cache", 2, "2026-12-01", "", Load, 1),
            count("deploy", 10, "2026-12-01", "bo", Prompt, 1),
        ])
        .await
        .expect("first batch");
    // A second batch adds to the same counts, and keeps the latest use.
    store
        .record_usage(vec![
            count("add-cache", 2, "2026-12-01", "ana", Call, 4),
            count("deploy", 9, "2026-12-01", "bo", Read, 2),
        ])
        .await
        .expect("second batch");
    store.record_usage(Vec::new()).await.expect("nothing");

    let by = |by: UsageGroup| UsageQuery {
        by,
        ..UsageQuery::default()
    };
    let skills = store.usage(by(UsageGroup::Skill)).await.expect("by skill");
    assert_eq!(
        summed(&skills),
        [
            ("add-cache", None, 9, 1, 0, 0),
            ("deploy", None, 0, 0, 1, 2)
        ]
    );
    assert_eq!(skills[0].last_used, "2026-12-01T12:00:04.000Z");
    let revisions = store
        .usage(by(UsageGroup::Revision))
        .await
        .expect("by revision");
    assert_eq!(
        summed(&revisions),
        [
            ("add-cache", Some("1"), 2, 0, 0, 0),
            ("add-cache", Some("2"), 7, 1, 0, 0),
            ("deploy", Some("9"), 0, 0, 0, 2),
            ("deploy", Some("10"), 0, 0, 1, 0),
        ]
    );
    let keys = store.usage(by(UsageGroup::Key)).await.expect("by key");
    assert_eq!(
        summed(&keys),
        [
            ("add-cache", Some(""), 0, 1, 0, 0),
            ("add-cache", Some("ana"), 9, 0, 0, 0),
            ("deploy", Some("bo"), 0, 0, 1, 2),
        ]
    );
    let days = store
        .usage(UsageQuery {
            since: Some("2026-12-01".to_owned()),
            skill: Some("add-cache".to_owned()),
            by: UsageGroup::Day,
        })
        .await
        .expect("by day");
    assert_eq!(
        summed(&days),
        [("add-cache", Some("2026-12-01"), 7, 1, 0, 0)]
    );
    let none = store
        .usage(UsageQuery {
            since: Some("2027-01-01".to_owned()),
            ..UsageQuery::default()
        })
        .await
        .expect("later");
    assert!(none.is_empty());
}

pub(crate) async fn concurrent_usage_batches_lose_no_use(store: Arc<dyn Store>) {
    let tasks: Vec<_> = (0..4)
        .map(|_| {
            let store = Arc::clone(&store);
            tokio::spawn(async move {
                for _ in 0..10 {
                    store
                        .record_usage(vec![
                            count("hot", 1, "2026-12-02", "k", UsageKind::Call, 1),
                            count("hot", 1, "2026-12-02", "k", UsageKind::Read, 2),
                        ])
                        .await
                        .expect("batch");
                }
            })
        })
        .collect();
    for task in tasks {
        task.await.expect("task ran");
    }
    let rows = store.usage(UsageQuery::default()).await.expect("usage");
    assert_eq!(summed(&rows), [("hot", None, 40, 0, 0, 80)]);
}
