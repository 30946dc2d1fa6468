//! The registry protocol's limits over HTTP: per-key and per-address rate limits answered
//! `429` with `Retry-After` and the `RateLimit-*` headers, each key and address counted on its
//! own, and loopback clients unlimited unless asked.

use skillpath_test_support::http::{header, status};
use skillpath_test_support::json;

use crate::support::{HttpServer, skillpath};

#[test]
fn rate_limits_answer_429_with_when_to_come_back() {
    let work = tempfile::tempdir().expect("tempdir");
    let db = work.path().join("store.db");
    let db = db.to_str().expect("utf-8");
    let key = |name: &str| {
        let made = skillpath(&[
            "keys", "create", "--name", name, "--role", "reader", "--format", "json",
        ])
        .args(["--db", db])
        .output()
        .expect("runs");
        json(&String::from_utf8_lossy(&made.stdout))["key"]
            .as_str()
            .expect("a key")
            .to_owned()
    };
    let (first, second) = (key("first"), key("second"));
    let limited = HttpServer::start(
        work.path(),
        &[
            "--db",
            db,
            "--registry-rate-limit",
            "3",
            "--registry-anonymous-rate-limit",
            "2",
            "--registry-rate-limit-loopback",
        ],
    );
    let ask = |key: Option<&str>| {
        let bearer = key.map(|key| format!("Bearer {key}"));
        let headers: Vec<(&str, &str)> = bearer
            .as_deref()
            .map(|value| vec![("Authorization", value)])
            .unwrap_or_default();
        limited.exchange("GET", "/api/v1/skills", &headers, b"")
    };
    for left in (0..3).rev() {
        let answer = ask(Some(&first));
        assert_eq!(status(&answer), 200, "{answer}");
        assert_eq!(header(&answer, "ratelimit-limit"), Some("3"));
        assert_eq!(
            header(&answer, "ratelimit-remaining"),
            Some(left.to_string().as_str())
        );
    }
    let refused = ask(Some(&first));
    assert_eq!(status(&refused), 429, "{refused}");
    let wait: u64 = header(&refused, "retry-after")
        .and_then(|value| value.parse().ok())
        .expect("a Retry-After in seconds");
    assert!((1..=20).contains(&wait), "{refused}");
    assert_eq!(header(&refused, "ratelimit-remaining"), Some("0"));
    assert!(header(&refused, "x-ratelimit-reset").is_some(), "{refused}");
    assert!(refused.contains("Rate limit exceeded"), "{refused}");
    // Another key has its own count; so do requests without one, by address.
    assert_eq!(status(&ask(Some(&second))), 200);
    assert_eq!(status(&ask(None)), 200);
    assert_eq!(status(&ask(None)), 200);
    assert_eq!(status(&ask(None)), 429);
    // A client on this machine is not limited unless `--registry-rate-limit-loopback` says so.
    let other = tempfile::tempdir().expect("tempdir");
    let unlimited = HttpServer::start(other.path(), &["--db", db, "--registry-rate-limit", "1"]);
    for _ in 0..4 {
        let answer = unlimited.exchange(
            "GET",
            "/api/v1/skills",
            &[("Authorization", &format!("Bearer {first}"))],
            b"",
        );
        assert_eq!(
            status(&answer),
            200,
            "loopback is not limited by default: {answer}"
        );
    }
}
