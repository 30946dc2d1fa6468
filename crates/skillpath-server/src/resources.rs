//! Skills as resources: `skill://<name>/SKILL.md` and `skill://<name>/<path>` for every file.
//! Paths are looked up among the skill's stored files only, so nothing outside a skill can be read.

use rmcp::ErrorData as McpError;
use rmcp::model::{Resource, ResourceContents};

use crate::catalog::Catalog;

/// Every resource of every skill, in name and path order.
pub(crate) fn list(catalog: &Catalog) -> Vec<Resource> {
    let mut out = Vec::new();
    for skill in catalog.skills() {
        let name = &skill.stored.name;
        out.push(
            // SEP-2640: the SKILL.md resource is named after the skill.
            Resource::new(format!("skill://{name}/SKILL.md"), name.clone())
                .with_description(skill.stored.description.clone())
                .with_mime_type("text/markdown")
                .with_size(skill.stored.snapshot.skill_md.len() as u64),
        );
        for file in &skill.stored.snapshot.files {
            out.push(
                Resource::new(
                    format!("skill://{name}/{}", file.path),
                    format!("{name}/{}", file.path),
                )
                .with_mime_type(mime_type(&file.path, &file.bytes))
                .with_size(file.bytes.len() as u64),
            );
        }
    }
    out
}

/// Reads `uri`; an unknown URI is the protocol's resource-not-found error.
pub(crate) fn read(catalog: &Catalog, uri: &str) -> Result<ResourceContents, McpError> {
    let (path, bytes) = content(catalog, uri).ok_or_else(|| {
        McpError::resource_not_found(
            format!("no resource `{uri}`"),
            Some(serde_json::json!({"uri": uri})),
        )
    })?;
    let mime = mime_type(path, bytes);
    Ok(match std::str::from_utf8(bytes) {
        Ok(text) => ResourceContents::text(text, uri).with_mime_type(mime),
        Err(_) => ResourceContents::blob(base64(bytes), uri).with_mime_type(mime),
    })
}

/// The path within its skill and the bytes of the resource `uri`, if the catalog has it.
fn content<'c>(catalog: &'c Catalog, uri: &str) -> Option<(&'c str, &'c [u8])> {
    let (name, path) = uri.strip_prefix("skill://")?.split_once('/')?;
    let snapshot = &catalog.skill(name)?.stored.snapshot;
    if path == "SKILL.md" {
        return Some(("SKILL.md", snapshot.skill_md.as_bytes()));
    }
    let file = snapshot.files.iter().find(|f| f.path == path)?;
    Some((file.path.as_str(), file.bytes.as_slice()))
}

/// Which of `uris` read differently in `after` than in `before`, including resources that
/// appeared or disappeared: the `notifications/resources/updated` a subscriber is owed.
pub(crate) fn updated<'u>(
    before: &Catalog,
    after: &Catalog,
    uris: impl IntoIterator<Item = &'u String>,
) -> Vec<String> {
    uris.into_iter()
        .filter(|uri| content(before, uri).map(|(_, b)| b) != content(after, uri).map(|(_, b)| b))
        .cloned()
        .collect()
}

/// Whether `uri` can name a resource of this server: resource subscriptions are taken for
/// `skill://` URIs only (a skill not yet there may appear later).
pub(crate) fn is_skill_uri(uri: &str) -> bool {
    uri.strip_prefix("skill://")
        .and_then(|rest| rest.split_once('/'))
        .is_some_and(|(name, path)| !name.is_empty() && !path.is_empty())
}

/// The direct children of the directory resource `uri` (`skill://<name>` or
/// `skill://<name>/<folder>`, as SEP-2640 derives them from the skill's URI; a trailing `/` is
/// accepted too): its files, and its sub-folders as `inode/directory` resources.
pub(crate) fn directory(catalog: &Catalog, uri: &str) -> Result<Vec<Resource>, McpError> {
    let not_a_directory =
        || McpError::invalid_params(format!("`{uri}` is not a directory of a skill"), None);
    let rest = uri.strip_prefix("skill://").ok_or_else(not_a_directory)?;
    let rest = rest.strip_suffix('/').unwrap_or(rest);
    let (name, folder) = rest.split_once('/').unwrap_or((rest, ""));
    let skill = catalog.skill(name).ok_or_else(not_a_directory)?;
    let prefix = if folder.is_empty() {
        String::new()
    } else {
        format!("{folder}/")
    };
    let mut paths: Vec<String> = vec!["SKILL.md".to_owned()];
    paths.extend(skill.stored.snapshot.files.iter().map(|f| f.path.clone()));
    if !prefix.is_empty() && !paths.iter().any(|p| p.starts_with(&prefix)) {
        return Err(not_a_directory());
    }
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
            None if path == "SKILL.md" => children.push(
                Resource::new(format!("skill://{name}/SKILL.md"), name)
                    .with_mime_type("text/markdown"),
            ),
            None => {
                let file = skill.stored.snapshot.files.iter().find(|f| &f.path == path);
                let mime = file.map_or("text/plain", |f| mime_type(&f.path, &f.bytes));
                children.push(
                    Resource::new(format!("skill://{name}/{path}"), format!("{name}/{path}"))
                        .with_mime_type(mime),
                );
            }
        }
    }
    for sub in folders {
        children.push(
            Resource::new(
                format!("skill://{name}/{prefix}{sub}"),
                format!("{name}/{prefix}{sub}"),
            )
            .with_mime_type("inode/directory"),
        );
    }
    Ok(children)
}

/// The MIME type of a skill file, by extension; binary files of unknown kind are octet streams.
pub(crate) fn mime_type(path: &str, bytes: &[u8]) -> &'static str {
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
        _ if std::str::from_utf8(bytes).is_ok() => "text/plain",
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
