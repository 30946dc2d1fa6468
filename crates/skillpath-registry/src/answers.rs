//! The protocol's JSON answers, in the shapes the `clawhub` CLI 0.23.3 checks (its arktype
//! schemas): keys it requires are always there (`null` where there is nothing), keys it types
//! more narrowly than `null` are left out instead. Times are epoch milliseconds.

use std::collections::BTreeMap;

use serde_json::{Value, json};
use skillpath_app::Releases;
use skillpath_model::FullName;
use skillpath_model::release::Release;

/// An RFC 3339 time as epoch milliseconds (0 for a text that is none).
pub(crate) fn millis(rfc3339: &str) -> i64 {
    chrono::DateTime::parse_from_rfc3339(rfc3339).map_or(0, |at| at.timestamp_millis())
}

/// `GET /api/v1/skills/{slug}`: the item, its tags (each tag's version), its latest release,
/// its namespace as the owner, and no moderation verdict (skillpath audits on ingest; a
/// refused skill is never served).
pub(crate) fn skill(
    full: &FullName,
    description: &str,
    releases: &Releases,
    latest: Option<&Release>,
    stars: usize,
) -> Value {
    let tags: BTreeMap<&str, &str> = releases
        .tags
        .iter()
        .map(|(tag, version)| (tag.as_str(), version.as_str()))
        .collect();
    let first = releases
        .releases
        .iter()
        .map(|r| millis(&r.created_at))
        .min();
    let last = releases
        .releases
        .iter()
        .map(|r| millis(&r.created_at))
        .max();
    json!({
        "skill": {
            "slug": full.slug(),
            "displayName": full.name,
            "summary": description,
            "tags": tags,
            "stats": {
                "stars": stars,
                "versions": releases.releases.iter().filter(|r| r.yanked.is_none()).count(),
            },
            "createdAt": first.unwrap_or(0),
            "updatedAt": last.unwrap_or(0),
        },
        "latestVersion": latest.map(|release| json!({
            "version": release.version.to_string(),
            "createdAt": millis(&release.created_at),
            "changelog": release.notes,
            "license": null,
        })),
        "owner": {"handle": full.namespace.as_str(), "displayName": full.namespace.to_string()},
        "moderation": null,
    })
}

/// One release in `GET …/versions`.
pub(crate) fn version_item(release: &Release) -> Value {
    json!({
        "version": release.version.to_string(),
        "createdAt": millis(&release.created_at),
        "changelog": release.notes,
        "changelogSource": "user",
    })
}

/// `GET …/versions/{version}`: the release with its files (path, size, SHA-256).
pub(crate) fn version(
    full: &FullName,
    release: &Release,
    files: &BTreeMap<String, Vec<u8>>,
) -> Value {
    let files: Vec<Value> = files
        .iter()
        .map(|(path, bytes)| {
            json!({
                "path": path,
                "size": bytes.len(),
                "sha256": skillpath_model::sha256_hex(bytes).trim_start_matches("sha256:"),
                "contentType": content_type(path),
            })
        })
        .collect();
    let mut answer = version_item(release);
    answer["license"] = Value::Null;
    answer["files"] = json!(files);
    json!({
        "version": answer,
        "skill": {"slug": full.slug(), "displayName": full.name},
    })
}

/// The content type a file's name says, for the listing (the CLI shows it, never acts on it).
fn content_type(path: &str) -> &'static str {
    match path.rsplit_once('.').map(|(_, ext)| ext) {
        Some("md") => "text/markdown",
        Some("json") => "application/json",
        Some("sh") => "text/x-shellscript",
        Some("py") => "text/x-python",
        Some("txt") => "text/plain",
        Some("yaml" | "yml") => "application/yaml",
        _ => "application/octet-stream",
    }
}
