//! The draft discovery index of the Agent Skills specification: a site publishes
//! `/.well-known/agent-skills/index.json` with `$schema`
//! `https://schemas.agentskills.io/discovery/<version>/schema.json` and `skills[]` entries
//! `{name, type, description, url, digest}`, `type` being `skill-md` (the `SKILL.md` itself)
//! or `archive` (a `.tar.gz` or `.zip` with `SKILL.md` at its root), `digest` the
//! `sha256:<hex>` of what `url` serves. Relative URLs resolve against the index's URL. Every
//! digest is checked; an index without a known `$schema` is refused; an entry of an unknown
//! `type` is skipped.

use crate::SourceError;
use crate::digest::is_sha256;
use crate::tree::{Entry, SourceTree};
use crate::{archive, http};

/// Where a site publishes its index, relative to the site.
pub const WELL_KNOWN: &str = ".well-known/agent-skills/index.json";

/// What every `$schema` of the draft starts with.
pub const SCHEMA_PREFIX: &str = "https://schemas.agentskills.io/discovery/";

/// The `$schema` a skillpath server publishes.
pub const SCHEMA: &str = "https://schemas.agentskills.io/discovery/0.2.0/schema.json";

/// One skill of an index.
#[derive(Debug, Clone, PartialEq, Eq, serde::Deserialize)]
pub struct IndexEntry {
    /// Its name.
    pub name: String,
    /// `skill-md` or `archive`.
    #[serde(rename = "type")]
    pub kind: String,
    /// Its description.
    #[serde(default)]
    pub description: String,
    /// Where its content is, relative to the index.
    pub url: String,
    /// `sha256:<hex>` of that content.
    pub digest: String,
}

#[derive(serde::Deserialize)]
struct Index {
    #[serde(rename = "$schema")]
    schema: Option<String>,
    #[serde(default)]
    skills: Vec<IndexEntry>,
}

/// Whether `url` names an index itself.
pub fn is_index_url(url: &str) -> bool {
    url.split(['?', '#'])
        .next()
        .is_some_and(|path| path.ends_with(WELL_KNOWN))
}

/// The index URL of the site `url` (an index URL as it is).
pub fn index_url(url: &str) -> String {
    if is_index_url(url) {
        url.to_owned()
    } else {
        format!("{}/{WELL_KNOWN}", url.trim_end_matches('/'))
    }
}

/// The index at `url`; `Ok(None)` when the site publishes none (404).
pub fn fetch(url: &str) -> Result<Option<Vec<IndexEntry>>, SourceError> {
    let Some(bytes) = http::get(url, 16 * 1024 * 1024)? else {
        return Ok(None);
    };
    parse(&bytes, url).map(Some)
}

/// The entries of the index `bytes` fetched from `url`.
pub fn parse(bytes: &[u8], url: &str) -> Result<Vec<IndexEntry>, SourceError> {
    let index: Index = serde_json::from_slice(bytes)
        .map_err(|e| SourceError::new(format!("`{url}` is not a discovery index: {e}")))?;
    match index.schema.as_deref() {
        Some(schema) if schema.starts_with(SCHEMA_PREFIX) => {}
        Some(schema) => {
            return Err(SourceError::new(format!(
                "`{url}` has the unknown `$schema` `{schema}`"
            )));
        }
        None => return Err(SourceError::new(format!("`{url}` has no `$schema`"))),
    }
    Ok(index.skills)
}

/// `relative` resolved against `base` (RFC 3986, for the forms an index uses: an absolute
/// URL, an absolute path, or a path relative to the index's folder).
pub fn resolve(base: &str, relative: &str) -> String {
    if relative.contains("://") {
        return relative.to_owned();
    }
    let base = base.split(['?', '#']).next().unwrap_or(base);
    let origin_end = base
        .find("://")
        .and_then(|scheme| base[scheme + 3..].find('/').map(|slash| scheme + 3 + slash))
        .unwrap_or(base.len());
    if let Some(path) = relative.strip_prefix('/') {
        return format!("{}/{path}", &base[..origin_end]);
    }
    let folder_end = base
        .rfind('/')
        .filter(|&i| i >= origin_end)
        .map_or(base.len(), |i| i);
    let mut parts: Vec<&str> = base[origin_end..folder_end]
        .split('/')
        .filter(|p| !p.is_empty())
        .collect();
    for part in relative.split('/') {
        match part {
            "." | "" => {}
            ".." => {
                parts.pop();
            }
            part => parts.push(part),
        }
    }
    format!("{}/{}", &base[..origin_end], parts.join("/"))
}

/// The content of `entry` of the index at `index`, its digest checked, as a tree with the
/// skill at its root.
pub fn fetch_entry(index: &str, entry: &IndexEntry) -> Result<SourceTree, SourceError> {
    if !is_sha256(&entry.digest) {
        return Err(SourceError::new(format!(
            "the index entry `{}` has no `sha256:` digest",
            entry.name
        )));
    }
    let url = resolve(index, &entry.url);
    let bytes = http::get(&url, http::MAX_RESPONSE)?.ok_or_else(|| {
        SourceError::new(format!(
            "`{url}` (skill `{}` of the index) is not there (404)",
            entry.name
        ))
    })?;
    let digest = skillpath_model::sha256_hex(&bytes);
    if digest != entry.digest {
        return Err(SourceError::new(format!(
            "`{url}` has the digest {digest}, not the index's {}: refused",
            entry.digest
        )));
    }
    match entry.kind.as_str() {
        "skill-md" => {
            let mut tree = SourceTree::default();
            tree.entries
                .insert("SKILL.md".to_owned(), Entry::File(bytes));
            Ok(tree)
        }
        "archive" => archive::read(&bytes, &url),
        other => Err(SourceError::new(format!(
            "the index entry `{}` has the unknown type `{other}`",
            entry.name
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_resolve_against_the_index() {
        let index = "https://skills.example.com/.well-known/agent-skills/index.json";
        assert_eq!(
            resolve(index, "a/SKILL.md"),
            "https://skills.example.com/.well-known/agent-skills/a/SKILL.md"
        );
        assert_eq!(
            resolve(index, "/files/a.tar.gz"),
            "https://skills.example.com/files/a.tar.gz"
        );
        assert_eq!(
            resolve(index, "../../x.zip"),
            "https://skills.example.com/x.zip"
        );
        assert_eq!(
            resolve(index, "https://cdn.example.com/a.zip"),
            "https://cdn.example.com/a.zip"
        );
        assert_eq!(index_url("https://skills.example.com/"), index);
        assert!(is_index_url(index));
    }

    #[test]
    fn an_index_without_a_known_schema_is_refused() {
        let ok = br#"{"$schema": "https://schemas.agentskills.io/discovery/0.2.0/schema.json", "skills": [{"name": "a", "type": "skill-md", "url": "a/SKILL.md", "digest": "sha256:00", "extra": 1}]}"#;
        assert_eq!(parse(ok, "i").expect("parses")[0].name, "a");
        let unknown = br#"{"$schema": "https://example.com/other.json", "skills": []}"#;
        assert!(
            parse(unknown, "i")
                .expect_err("schema")
                .message
                .contains("unknown `$schema`")
        );
        assert!(
            parse(br#"{"skills": []}"#, "i")
                .expect_err("none")
                .message
                .contains("no `$schema`")
        );
    }
}
