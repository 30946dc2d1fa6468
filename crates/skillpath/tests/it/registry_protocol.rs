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

/// A `multipart/form-data` body of `payload` and `files` parts, as the API documents the
/// publish for scripts.
fn form(boundary: &str, payload: &str, files: &[(&str, &[u8])]) -> Vec<u8> {
    let mut body = format!(
        "--{boundary}\r\nContent-Disposition: form-data; name=\"payload\"\r\n\r\n{payload}\r\n"
    )
    .into_bytes();
    for (path, bytes) in files {
        body.extend_from_slice(
            format!(
                "--{boundary}\r\nContent-Disposition: form-data; name=\"files\"; filename=\"{path}\"\r\nContent-Type: application/octet-stream\r\n\r\n"
            )
            .as_bytes(),
        );
        body.extend_from_slice(bytes);
        body.extend_from_slice(b"\r\n");
    }
    body.extend_from_slice(format!("--{boundary}--\r\n").as_bytes());
    body
}

/// Publishing in one multipart request: the version released with exactly its files; a file
/// over 10 MiB, a form without `payload`, a path that leaves the skill and a malformed JSON
/// body refused with what is wrong, nothing written.
#[test]
fn a_version_published_by_form() {
    let work = tempfile::tempdir().expect("tempdir");
    let db = work.path().join("store.db");
    let db = db.to_str().expect("utf-8");
    let made = skillpath(&[
        "keys",
        "create",
        "--name",
        "ci",
        "--role",
        "maintainer",
        "--format",
        "json",
    ])
    .args(["--db", db])
    .output()
    .expect("runs");
    let key = json(&String::from_utf8_lossy(&made.stdout))["key"]
        .as_str()
        .expect("a key")
        .to_owned();
    let server = HttpServer::start(work.path(), &["--db", db]);
    let bearer = format!("Bearer {key}");
    let boundary = "skillpath-test-boundary";
    let content_type = format!("multipart/form-data; boundary={boundary}");
    let post = |body: &[u8], kind: &str| {
        server.exchange(
            "POST",
            "/api/v1/skills",
            &[("Authorization", &bearer), ("Content-Type", kind)],
            body,
        )
    };
    let skill_md =
        b"---\nname: formed\ndescription: Use when publishing by form.\n---\n\nFormed.\n";
    let payload = r#"{"slug":"formed","version":"1.0.0","changelog":"By form."}"#;
    let answer = post(
        &form(
            boundary,
            payload,
            &[("SKILL.md", skill_md), ("scripts/run.sh", b"echo formed\n")],
        ),
        &content_type,
    );
    assert_eq!(status(&answer), 200, "{answer}");
    assert!(
        answer.contains(r#""publicationStatus":"published""#),
        "{answer}"
    );
    let shown = json(
        &skillpath(&["show", "formed", "--format", "json", "--db", db])
            .output()
            .map(|out| String::from_utf8_lossy(&out.stdout).into_owned())
            .expect("runs"),
    );
    assert_eq!(
        shown["skill_md"].as_str().map(str::as_bytes),
        Some(&skill_md[..])
    );
    assert_eq!(shown["files"][0]["path"], "scripts/run.sh");

    let big = vec![0u8; 11 * 1024 * 1024];
    let payload = r#"{"slug":"formed","version":"1.1.0"}"#;
    for (body, said) in [
        (
            form(
                boundary,
                payload,
                &[("SKILL.md", skill_md), ("assets/big.bin", &big)],
            ),
            "exceeds 10MB limit",
        ),
        (
            form(boundary, "{}", &[("SKILL.md", skill_md)]),
            "missing field",
        ),
        (
            form(
                boundary,
                payload,
                &[("SKILL.md", skill_md), ("../escape.sh", b"x")],
            ),
            "must not contain",
        ),
    ] {
        let answer = post(&body, &content_type);
        assert!(matches!(status(&answer), 400 | 413), "{answer}");
        assert!(answer.contains(said), "{said}: {answer}");
    }
    let answer = post(b"{not json", "application/json");
    assert_eq!(status(&answer), 400, "{answer}");
    assert!(
        !answer.contains("jsonrpc"),
        "the registry's own refusal: {answer}"
    );
    let releases = skillpath(&["releases", "formed", "--format", "json", "--db", db])
        .output()
        .expect("runs");
    let releases = json(&String::from_utf8_lossy(&releases.stdout));
    assert_eq!(
        releases["releases"].as_array().map(Vec::len),
        Some(1),
        "{releases}"
    );
}

/// The body of an HTTP answer (after its headers).
fn body_of(answer: &str) -> serde_json::Value {
    json(answer.split_once("\r\n\r\n").map_or("", |(_, body)| body))
}

/// The CLI's publish with each step on another replica of one store: the file announced to
/// the first, uploaded to the second, the version published on the first. The upload waits in
/// the store, so no replica needs to have seen the others' steps; another key can neither
/// upload to the ticket nor publish it.
#[test]
fn a_publish_may_reach_another_replica_than_its_uploads() {
    let work = tempfile::tempdir().expect("tempdir");
    let db = work.path().join("store.db");
    let db = db.to_str().expect("utf-8");
    let key = |name: &str| {
        let made = skillpath(&[
            "keys",
            "create",
            "--name",
            name,
            "--role",
            "maintainer",
            "--format",
            "json",
        ])
        .args(["--db", db])
        .output()
        .expect("runs");
        json(&String::from_utf8_lossy(&made.stdout))["key"]
            .as_str()
            .expect("a key")
            .to_owned()
    };
    let (ours, theirs) = (
        format!("Bearer {}", key("ci")),
        format!("Bearer {}", key("other")),
    );
    let first = HttpServer::start(work.path(), &["--db", db]);
    let second = HttpServer::start(work.path(), &["--db", db]);
    let skill_md = b"---\nname: replicated\ndescription: Use when publishing across replicas.\n---\n\nAcross.\n";
    let digest = skillpath_model::sha256_hex(skill_md);
    let announce = format!(
        r#"{{"path":"SKILL.md","size":{},"sha256":"{}"}}"#,
        skill_md.len(),
        digest.trim_start_matches("sha256:")
    );
    let json_type = ("Content-Type", "application/json");
    let ticketed = first.exchange(
        "POST",
        "/api/v1/skills/-/upload-url",
        &[("Authorization", &ours), json_type],
        announce.as_bytes(),
    );
    assert_eq!(status(&ticketed), 200, "{ticketed}");
    let ticket = body_of(&ticketed)["uploadTicket"]
        .as_str()
        .expect("a ticket")
        .to_owned();
    let upload = format!("/api/v1/skills/-/upload/{ticket}");
    let stranger = second.status("POST", &upload, &[("Authorization", &theirs)], skill_md);
    assert_eq!(
        stranger, 404,
        "another key's upload to the ticket is refused"
    );
    let uploaded = second.status("POST", &upload, &[("Authorization", &ours)], skill_md);
    assert_eq!(uploaded, 200, "the second replica takes the upload");
    let publish = format!(
        r#"{{"slug":"replicated","version":"1.0.0","files":[{{"path":"SKILL.md","storageId":"{ticket}"}}]}}"#
    );
    let refused = first.exchange(
        "POST",
        "/api/v1/skills",
        &[("Authorization", &theirs), json_type],
        publish.as_bytes(),
    );
    assert_eq!(
        status(&refused),
        400,
        "another key cannot publish it: {refused}"
    );
    let published = first.exchange(
        "POST",
        "/api/v1/skills",
        &[("Authorization", &ours), json_type],
        publish.as_bytes(),
    );
    assert_eq!(status(&published), 200, "{published}");
    assert_eq!(body_of(&published)["publicationStatus"], "published");
    let shown = skillpath(&["show", "replicated", "--format", "json", "--db", db])
        .output()
        .expect("runs");
    assert_eq!(
        json(&String::from_utf8_lossy(&shown.stdout))["skill_md"]
            .as_str()
            .map(str::as_bytes),
        Some(&skill_md[..])
    );
    let again = first.exchange(
        "POST",
        "/api/v1/skills",
        &[("Authorization", &ours), json_type],
        publish.replace("1.0.0", "1.0.1").as_bytes(),
    );
    assert_eq!(status(&again), 400, "a published upload is gone: {again}");
}
