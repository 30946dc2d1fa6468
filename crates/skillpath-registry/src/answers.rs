//! The protocol's JSON answers, in the shapes the `clawhub` CLI 0.23.3 checks (its arktype
//! schemas): keys it requires are always there (`null` where there is nothing), keys it types
//! more narrowly than `null` are left out instead. Times are epoch milliseconds.

use std::collections::BTreeMap;

use serde_json::{Value, json};
use skillpath_app::{CatalogSkill, Releases};
use skillpath_model::FullName;
use skillpath_model::release::Release;

/// An RFC 3339 time as epoch milliseconds (0 for a text that is none).
pub(crate) fn millis(rfc3339: &str) -> i64 {
    chrono::DateTime::parse_from_rfc3339(rfc3339).map_or(0, |at| at.timestamp_millis())
}

/// An item as the skill answer and the listing carry it: its slug, name, description, tags
/// (each tag's version), counts, when it was first released (else written) and last written;
/// and its latest release, where it has one (left out where not: the listing's schema does
/// not take `null`).
pub(crate) fn skill_summary<E>(
    full: &FullName,
    listed: &CatalogSkill<E>,
    releases: &Releases,
    stars: usize,
) -> Value {
    let tags: BTreeMap<&str, &str> = releases
        .tags
        .iter()
        .map(|(tag, version)| (tag.as_str(), version.as_str()))
        .collect();
    let updated = millis(&listed.updated_at);
    let created = releases
        .releases
        .iter()
        .map(|release| millis(&release.created_at))
        .min()
        .unwrap_or(updated);
    let mut summary = json!({
        "slug": full.slug(),
        "displayName": full.name,
        "summary": listed.description,
        "tags": tags,
        "stats": {
            "stars": stars,
            "versions": releases.releases.iter().filter(|r| r.yanked.is_none()).count(),
        },
        "createdAt": created,
        "updatedAt": updated.max(created),
    });
    if let Some(latest) = crate::latest_of(releases) {
        summary["latestVersion"] = latest_version(latest);
    }
    summary
}

/// A release as `latestVersion`.
fn latest_version(release: &Release) -> Value {
    json!({
        "version": release.version.to_string(),
        "createdAt": millis(&release.created_at),
        "changelog": release.notes,
        "license": null,
    })
}

/// `GET /api/v1/skills/{slug}`: the item, its latest release, its namespace as the owner, and
/// no moderation verdict (skillpath audits on ingest; a skill its policy refuses is never
/// stored).
pub(crate) fn skill(full: &FullName, mut summary: Value, latest: Option<&Release>) -> Value {
    if let Some(object) = summary.as_object_mut() {
        object.remove("latestVersion");
    }
    json!({
        "skill": summary,
        "latestVersion": latest.map(latest_version),
        "owner": owner(full),
        "moderation": null,
    })
}

/// The owner the protocol names: the item's namespace.
pub(crate) fn owner(full: &FullName) -> Value {
    json!({"handle": full.namespace.as_str(), "displayName": full.namespace.to_string()})
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

/// The content type a file's name says (what the listing shows and a file is served as).
pub(crate) fn content_type(path: &str) -> &'static str {
    match path.rsplit_once('.').map(|(_, ext)| ext) {
        Some("md") => "text/markdown; charset=utf-8",
        Some("json") => "application/json",
        Some("sh") => "application/x-sh",
        Some("txt") => "text/plain; charset=utf-8",
        Some("yaml" | "yml") => "text/yaml",
        Some("toml") => "application/toml",
        _ => "application/octet-stream",
    }
}
