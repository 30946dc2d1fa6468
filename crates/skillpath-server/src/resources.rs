//! Skills as resources: `skill://<name>/SKILL.md` and `skill://<name>/<path>` for every file;
//! packages alike, `package://<name>/PACKAGE.md` and `package://<name>/<path>` (their
//! documentation pages). Paths are looked up among the item's stored files only, so nothing
//! outside a skill or package can be read.
//!
//! Every URI the server gives is an RFC 3986 URI ([`crate::uri::uri`]): the name and each path segment
//! percent-encoded but for the unreserved characters, so a name with a space, `#`, `?`, `%` or
//! a letter outside ASCII still makes one URI that every client parses. A URI is read back in
//! that form or raw (as clients that kept a URI from before the encoding hold it).

use std::borrow::Cow;

use percent_encoding::percent_decode_str;
use rmcp::ErrorData as McpError;
use rmcp::model::{Resource, ResourceContents};

use skillpath_model::FileMetadata;
use skillpath_model::is_text;
use skillpath_store::usage::UsageKind;

use crate::catalog::{Addressed, Catalog, CatalogSkill};
use crate::state::SkillServer;

use crate::tool_error::store_error;

/// A resource as listed: a skill's `SKILL.md` (a package's `PACKAGE.md`; `None`) or one of its
/// files.
pub(crate) type ResourceEntry<'a> = (&'a CatalogSkill, Option<&'a FileMetadata>);

/// The ways `part` of a URI may spell a name or a path: percent-decoded first (the form this
/// server gives), then as it is (a raw URI from before the encoding).
fn spellings(part: &str) -> impl Iterator<Item = Cow<'_, str>> {
    let decoded = percent_decode_str(part)
        .decode_utf8()
        .ok()
        .filter(|decoded| *decoded != part);
    decoded
        .into_iter()
        .chain(std::iter::once(Cow::Borrowed(part)))
}

/// A resource as listed: a skill's `SKILL.md` (`None`: named after the skill, SEP-2640) or one
/// of its files ([`ResourceEntry`]).
pub(crate) fn resource((skill, file): ResourceEntry<'_>) -> Resource {
    let name = &skill.name;
    match file {
        None => Resource::new(skill.uri(&skill.skill_md.path), name.clone())
            .with_description(skill.description.clone())
            .with_mime_type("text/markdown")
            .with_size(skill.skill_md.size),
        Some(file) => Resource::new(skill.uri(&file.path), format!("{name}/{}", file.path))
            .with_mime_type(mime_type(&file.path, file.text))
            .with_size(file.size),
    }
}

/// Reads `uri` (its skill's content through the server's cache) for the caller with the key
/// `key`, if any, counting the read as a use of the skill; an unknown URI is the protocol's
/// resource-not-found error.
pub(crate) async fn read(
    server: &SkillServer,
    catalog: &Catalog,
    uri: &str,
    key: Option<&str>,
) -> Result<ResourceContents, McpError> {
    let not_found = || {
        McpError::resource_not_found(
            format!("no resource `{uri}`"),
            Some(serde_json::json!({"uri": uri})),
        )
    };
    let (skill, file) = lookup(catalog, uri).ok_or_else(not_found)?;
    let path = file.path.as_str();
    let content = server
        .content(skill)
        .await
        .map_err(|error| McpError::internal_error(store_error(&error), None))?;
    let bytes = content.bytes(path).ok_or_else(not_found)?;
    let mime = mime_type(path, is_text(bytes));
    server.count_use(skill, key, UsageKind::Read);
    Ok(match std::str::from_utf8(bytes) {
        Ok(text) => ResourceContents::text(text, uri).with_mime_type(mime),
        Err(_) => ResourceContents::blob(base64(bytes), uri).with_mime_type(mime),
    })
}

/// The skill (or package) `uri` names, by its scheme, and the rest of the URI after its name
/// (still encoded).
fn owner<'c, 'u>(catalog: &'c Catalog, uri: &'u str) -> Option<(&'c CatalogSkill, &'u str)> {
    let (item, package) = if let Some(rest) = uri.strip_prefix("skill://") {
        (rest, false)
    } else {
        (uri.strip_prefix("package://")?, true)
    };
    let (name, path) = item.split_once('/').unwrap_or((item, ""));
    let find = |name: &str| {
        if package {
            catalog.package(name)
        } else {
            catalog.skill(name)
        }
    };
    // An item of a namespace is at `<@ns>/<name>/…` ([`crate::uri::uri`]).
    let namespaced = spellings(name).any(|name| name.starts_with('@'));
    if namespaced {
        let (item_name, path) = path.split_once('/').unwrap_or((path, ""));
        let owner = spellings(name).find_map(|namespace| {
            spellings(item_name).find_map(|item_name| find(&format!("{namespace}/{item_name}")))
        })?;
        return Some((owner, path));
    }
    let owner = spellings(name).find_map(|name| find(&name))?;
    Some((owner, path))
}

/// The skill (or package) and the path within it (decoded, as stored) of the resource `uri`,
/// if the catalog has it.
fn lookup<'c>(catalog: &'c Catalog, uri: &str) -> Option<(&'c CatalogSkill, &'c FileMetadata)> {
    let (skill, path) = owner(catalog, uri)?;
    let file = spellings(path).find_map(|path| skill.file(&path))?;
    Some((skill, file))
}

/// The digest of the resource `uri`'s bytes, if the catalog has it.
fn digest<'c>(catalog: &'c Catalog, uri: &str) -> Option<&'c str> {
    let (_, file) = lookup(catalog, uri)?;
    Some(file.sha256.as_str())
}

/// Which of `uris` read differently in `after` than in `before`, including resources that
/// appeared or disappeared: the `notifications/resources/updated` a subscriber is owed.
pub(crate) fn updated<'u>(
    before: &Catalog,
    after: &Catalog,
    uris: impl IntoIterator<Item = &'u String>,
) -> Vec<String> {
    uris.into_iter()
        .filter(|uri| digest(before, uri) != digest(after, uri))
        .cloned()
        .collect()
}

/// Whether `uri` can name a resource of this server: resource subscriptions are taken for
/// `skill://` and `package://` URIs only (a skill not yet there may appear later).
pub(crate) fn is_skill_uri(uri: &str) -> bool {
    uri.strip_prefix("skill://")
        .or_else(|| uri.strip_prefix("package://"))
        .and_then(|rest| rest.split_once('/'))
        .is_some_and(|(name, path)| !name.is_empty() && !path.is_empty())
}

/// The direct children of the directory resource `uri` (`skill://<name>` or
/// `skill://<name>/<folder>`, as SEP-2640 derives them from the skill's URI; a trailing `/` is
/// accepted too): its files, and its sub-folders as `inode/directory` resources.
pub(crate) fn directory(catalog: &Catalog, uri: &str) -> Result<Vec<Resource>, McpError> {
    let not_a_directory = || {
        McpError::invalid_params(
            format!("`{uri}` is not a directory of a skill or package"),
            None,
        )
    };
    let trimmed = uri.strip_suffix('/').unwrap_or(uri);
    let (skill, folder) = owner(catalog, trimmed).ok_or_else(not_a_directory)?;
    let name = &skill.name;
    let manifest = skill.skill_md.path.as_str();
    let mut paths: Vec<String> = vec![manifest.to_owned()];
    paths.extend(skill.files.iter().map(|f| f.path.clone()));
    let prefix = spellings(folder)
        .map(|folder| {
            if folder.is_empty() {
                String::new()
            } else {
                format!("{folder}/")
            }
        })
        .find(|prefix| prefix.is_empty() || paths.iter().any(|p| p.starts_with(prefix)))
        .ok_or_else(not_a_directory)?;
    let mut children: Vec<Resource> = Vec::new();
    let mut folders: Vec<String> = Vec::new();
    for path in paths.iter().filter(|p| p.starts_with(&prefix)) {
        let rest = &path[prefix.len()..];
        match rest.split_once('/') {
            Some((sub, _)) => {
                if !folders.iter().any(|f| f == sub) {
                    folders.push(sub.to_owned());
                }
            }
            None if path == manifest => children
                .push(Resource::new(skill.uri(manifest), name).with_mime_type("text/markdown")),
            None => {
                let file = skill.files.iter().find(|f| &f.path == path);
                let mime = file.map_or("text/plain", |f| mime_type(&f.path, f.text));
                children.push(
                    Resource::new(skill.uri(path), format!("{name}/{path}")).with_mime_type(mime),
                );
            }
        }
    }
    for sub in folders {
        children.push(
            Resource::new(
                skill.uri(&format!("{prefix}{sub}")),
                format!("{name}/{prefix}{sub}"),
            )
            .with_mime_type("inode/directory"),
        );
    }
    Ok(children)
}

/// The MIME type of a skill file, by extension; files of unknown kind are plain text when they
/// are `text` (UTF-8), octet streams otherwise.
pub(crate) fn mime_type(path: &str, text: bool) -> &'static str {
    let extension = path
        .rsplit_once('.')
        .map_or("", |(_, ext)| ext)
        .to_ascii_lowercase();
    match extension.as_str() {
        "md" | "markdown" => "text/markdown",
        "json" => "application/json",
        "yaml" | "yml" => "application/yaml",
        "toml" => "application/toml",
        "py" => "text/x-python",
        "js" | "mjs" | "cjs" => "text/javascript",
        "ts" | "tsx" => "text/x-typescript",
        "sh" | "bash" => "text/x-shellscript",
        "html" | "htm" => "text/html",
        "css" => "text/css",
        "csv" => "text/csv",
        "xml" | "csproj" => "application/xml",
        "cs" => "text/x-csharp",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "svg" => "image/svg+xml",
        "pdf" => "application/pdf",
        _ if text => "text/plain",
        _ => "application/octet-stream",
    }
}

/// Standard base64 with padding, as a resource's `blob` is.
fn base64(bytes: &[u8]) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_matches_the_standard() {
        assert_eq!(base64(b""), "");
        assert_eq!(base64(b"f"), "Zg==");
        assert_eq!(base64(b"fo"), "Zm8=");
        assert_eq!(base64(b"foo"), "Zm9v");
        assert_eq!(base64(&[0, 255, 254, 1]), "AP/+AQ==");
    }
}
