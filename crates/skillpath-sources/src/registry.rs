//! Registries that speak the ClawHub HTTP API (a skillpath server, clawhub.ai, a SkillHub) as
//! sources: an item's versions and tags read from the registry, a request (a version, a
//! range, a tag) resolved among them by the model's rules
//! ([`skillpath_model::release::resolve`]), and the resolved version downloaded as a ZIP and
//! read by the archive rules of every other source (zip-slip, symlinks, sizes and counts
//! refuse it before anything is written).
//!
//! A lock records such a skill as `source = "clawhub+<registry>"`, `path = "<slug>"`, `ref`
//! the request and `version` the version it resolved to, so `install --frozen` downloads
//! exactly that version again (asking for it as pinned: a yanked version still comes, and is
//! said to be yanked) and `update` resolves the request anew.
//!
//! The key sent (`Authorization: Bearer`) is the one [`use_token`] was given, else
//! `$SKILLPATH_TOKEN`, else the one `skillpath login` stored for the registry; none for a registry
//! that lets anyone read.

use std::sync::OnceLock;

use skillpath_model::FullName;
use skillpath_model::release::{self, Release, Request, Tag, Version};

use crate::SourceError;
use crate::http;
use crate::tree::{self, Found};

/// What a lock's `source` starts with for a registry.
pub const RECORDED_PREFIX: &str = "clawhub+";

/// The registry `clawhub:` names when none is given: ClawHub's own.
pub const DEFAULT_REGISTRY: &str = "https://clawhub.ai";

/// The environment variable that names the registry `@namespace/name` installs from.
pub const REGISTRY_ENV: &str = "SKILLPATH_REGISTRY";

/// The environment variable that holds the key sent to registries.
pub const TOKEN_ENV: &str = "SKILLPATH_TOKEN";

/// The most bytes of a version's ZIP read.
pub const MAX_DOWNLOAD: u64 = 64 * 1024 * 1024;

/// The most bytes of one JSON answer read.
const MAX_ANSWER: u64 = 8 * 1024 * 1024;

/// The most pages of versions read (of up to 200 each).
const MOST_PAGES: usize = 50;

/// The key given on the command line (`--token-file`), which wins over `$SKILLPATH_TOKEN`.
static TOKEN: OnceLock<String> = OnceLock::new();

/// Sends `token` to registries from now on, in this process (set once; a second call changes
/// nothing).
pub fn use_token(token: String) {
    let _ = TOKEN.set(token);
}

/// The key sent to the registry at `url`, if any: `--token-file`'s, else `$SKILLPATH_TOKEN`,
/// else the one `skillpath login` stored for it ([`crate::credentials`]).
fn token(url: &str) -> Option<String> {
    TOKEN
        .get()
        .cloned()
        .or_else(|| std::env::var(TOKEN_ENV).ok())
        .map(|token| token.trim().to_owned())
        .filter(|token| !token.is_empty())
        .or_else(|| crate::credentials::stored_key(url))
}

/// What `skillpath add` was asked for in a registry: the item's slug and the request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Wanted {
    /// The slug (`deploy`, `team--deploy`).
    pub slug: String,
    /// The version, range or tag, as written (`None`: `latest`).
    pub request: Option<String>,
    /// The registry it names by itself (`clawhub:` names ClawHub's unless `--registry` says
    /// otherwise); `None`: it needs one (`--registry`, `$SKILLPATH_REGISTRY`, the lock's).
    pub default_registry: Option<&'static str>,
}

/// What `text` asks of a registry, if it does: `@namespace/name[@REQUEST]` (an item of a
/// skillpath server, by its full name) or `clawhub:SLUG[@REQUEST]`.
pub fn wanted(text: &str) -> Option<Result<Wanted, SourceError>> {
    let text = text.trim();
    let (item, default_registry) = if let Some(slug) = text.strip_prefix("clawhub:") {
        (slug, Some(DEFAULT_REGISTRY))
    } else if text.starts_with('@') && text.contains('/') {
        (text, None)
    } else {
        return None;
    };
    // The request follows the last `@` that is not the namespace's own.
    let (name, request) = match item.get(1..).and_then(|rest| rest.rfind('@')) {
        Some(at) => (&item[..=at], Some(item[at + 2..].to_owned())),
        None => (item, None),
    };
    Some(parsed(name, request, default_registry))
}

fn parsed(
    name: &str,
    request: Option<String>,
    default_registry: Option<&'static str>,
) -> Result<Wanted, SourceError> {
    let slug = if default_registry.is_some() {
        FullName::of_slug(name)
            .map_err(|error| SourceError::new(error.to_string()))?
            .slug()
    } else {
        FullName::parse(name)
            .map_err(|error| SourceError::new(error.to_string()))?
            .slug()
    };
    FullName::of_slug(&slug).map_err(|error| SourceError::new(error.to_string()))?;
    if let Some(request) = &request {
        Request::parse(request).map_err(|error| SourceError::new(error.to_string()))?;
    }
    Ok(Wanted {
        slug,
        request,
        default_registry,
    })
}

/// A registry's base URL as a lock records it, and back.
pub fn recorded(url: &str) -> String {
    format!("{RECORDED_PREFIX}{}", url.trim_end_matches('/'))
}

/// The registry URL of a recorded source, if it is one.
pub fn of_recorded(recorded: &str) -> Option<&str> {
    recorded.strip_prefix(RECORDED_PREFIX)
}

/// An item's versions and tags, as a registry lists them (yanked versions are not listed:
/// they are hidden from resolution).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Versions {
    /// The releases listed, in no order (only their versions and notes are known).
    pub releases: Vec<Release>,
    /// The tags, each with its version.
    pub tags: Vec<Tag>,
}

/// A version read from a registry: the skill, and whether the version was yanked (why).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Downloaded {
    /// The version.
    pub version: Version,
    /// What was found in its ZIP.
    pub found: Found,
    /// Why it was yanked, if it was (only a pinned download gets a yanked version).
    pub yanked: Option<String>,
}

/// A registry at `url`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Registry {
    url: String,
}

impl Registry {
    /// The registry whose base URL is `url` (the API is under `/api/v1`).
    pub fn new(url: &str) -> Registry {
        Registry {
            url: url.trim_end_matches('/').to_owned(),
        }
    }

    /// Its base URL.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// `GET` of `path` (with its query), whatever the status.
    fn get(&self, path: &str, limit: u64) -> Result<http::Fetched, SourceError> {
        http::fetch(
            &format!("{}{path}", self.url),
            token(&self.url).as_deref(),
            limit,
        )
    }

    /// The JSON `path` answers, or the registry's refusal said with the slug.
    fn json(&self, path: &str, slug: &str) -> Result<serde_json::Value, SourceError> {
        let fetched = self.get(path, MAX_ANSWER)?;
        if fetched.status != 200 {
            return Err(self.refusal(&fetched, slug));
        }
        serde_json::from_slice(&fetched.body).map_err(|error| {
            SourceError::new(format!(
                "`{}` answered `{path}` with what is not the registry's JSON: {error}",
                self.url
            ))
        })
    }

    /// What a refusal says, with what to do.
    fn refusal(&self, fetched: &http::Fetched, slug: &str) -> SourceError {
        let said = fetched.text();
        let error = SourceError::new(format!(
            "`{}` refused `{slug}` (HTTP {}): {said}",
            self.url, fetched.status
        ));
        match fetched.status {
            401 | 403 => error.hint(format!(
                "give a key the registry accepts: `{TOKEN_ENV}=sp_…` or `--token-file PATH`"
            )),
            404 => error.hint(
                "check the name (`@namespace/name`; `clawhub:` takes a slug, `namespace--name`) and that your key may read it",
            ),
            429 => error.hint(format!(
                "the registry limits requests: try again in {}s",
                fetched.header("retry-after").unwrap_or("a few ")
            )),
            _ => error,
        }
    }

    /// The slugs of every skill the registry lists to the key sent, a page at a time.
    pub fn slugs(&self) -> Result<Vec<String>, SourceError> {
        let mut slugs = Vec::new();
        let mut cursor: Option<String> = None;
        for _ in 0..MOST_PAGES {
            let mut path = "/api/v1/skills?limit=200&sort=name".to_owned();
            if let Some(cursor) = &cursor {
                path.push_str(&format!("&cursor={}", encode(cursor)));
            }
            let page = self.json(&path, "the listing")?;
            slugs.extend(
                page["items"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|item| item["slug"].as_str().map(str::to_owned)),
            );
            cursor = page["nextCursor"].as_str().map(str::to_owned);
            if cursor.is_none() {
                break;
            }
        }
        Ok(slugs)
    }

    /// The versions and tags of the item `slug`.
    pub fn versions(&self, slug: &str) -> Result<Versions, SourceError> {
        let quoted = encode(slug);
        let skill = self.json(&format!("/api/v1/skills/{quoted}"), slug)?;
        if skill["skill"].is_null() {
            return Err(SourceError::new(format!(
                "`{}` has no skill `{slug}`",
                self.url
            )));
        }
        let mut versions = Versions::default();
        if let Some(tags) = skill["skill"]["tags"].as_object() {
            for (name, version) in tags {
                let Some(version) = version.as_str().and_then(|v| Version::parse(v).ok()) else {
                    continue;
                };
                versions.tags.push(Tag {
                    item: slug.to_owned(),
                    name: name.clone(),
                    version,
                    set_by: String::new(),
                    set_at: String::new(),
                });
            }
        }
        let mut cursor: Option<String> = None;
        for _ in 0..MOST_PAGES {
            let mut path = format!("/api/v1/skills/{quoted}/versions?limit=200");
            if let Some(cursor) = &cursor {
                path.push_str(&format!("&cursor={}", encode(cursor)));
            }
            let page = self.json(&path, slug)?;
            for item in page["items"].as_array().into_iter().flatten() {
                let Some(version) = item["version"]
                    .as_str()
                    .and_then(|v| Version::parse(v).ok())
                else {
                    continue;
                };
                versions.releases.push(Release {
                    item: slug.to_owned(),
                    version,
                    revision: 0,
                    notes: item["changelog"].as_str().unwrap_or_default().to_owned(),
                    author: String::new(),
                    created_at: String::new(),
                    yanked: None,
                });
            }
            cursor = page["nextCursor"].as_str().map(str::to_owned);
            if cursor.is_none() {
                break;
            }
        }
        Ok(versions)
    }

    /// The version `request` (`None`: `latest`) resolves to among the item's.
    pub fn resolve(&self, slug: &str, request: Option<&str>) -> Result<Version, SourceError> {
        let request = Request::parse(request.unwrap_or(release::LATEST))
            .map_err(|error| SourceError::new(error.to_string()))?;
        let versions = self.versions(slug)?;
        // A `latest` the registry does not tag (ClawHub tags it; a registry that does not) is
        // the highest listed that is not a pre-release, as the model reads it.
        match release::resolve(&versions.releases, &versions.tags, &request) {
            Ok(found) => Ok(found.version.clone()),
            // A pinned version the listing hides (yanked) is still the registry's to serve.
            Err(release::Unresolved::NoVersion(version)) => Ok(version),
            Err(unresolved) => Err(SourceError::new(format!(
                "`{slug}` at `{}`: {unresolved}",
                self.url
            ))
            .hint(if versions.releases.is_empty() {
                "it has no release yet".to_owned()
            } else {
                let mut listed: Vec<&Version> =
                    versions.releases.iter().map(|r| &r.version).collect();
                listed.sort_by(|a, b| b.cmp_precedence(a));
                format!(
                    "its versions: {}",
                    listed
                        .iter()
                        .take(10)
                        .map(ToString::to_string)
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            })),
        }
    }

    /// The item `slug` at `version`, read from its ZIP by the archive rules; `pinned`: a
    /// yanked version too (as a lock that pinned it asks), said to be yanked.
    pub fn download(
        &self,
        slug: &str,
        version: &Version,
        pinned: bool,
    ) -> Result<Downloaded, SourceError> {
        let mut path = format!(
            "/api/v1/download?slug={}&version={}",
            encode(slug),
            encode(&version.to_string())
        );
        if pinned {
            path.push_str("&pinned=true");
        }
        let fetched = self.get(&path, MAX_DOWNLOAD)?;
        if fetched.status != 200 {
            return Err(self.refusal(&fetched, &format!("{slug}@{version}")));
        }
        let shown = format!("{}/{slug}@{version}", self.url);
        let archive = crate::archive::read(&fetched.body, &shown)?;
        let yanked = fetched.header(YANKED_HEADER).map(str::to_owned);
        if yanked.is_none() {
            self.verify(slug, version, &archive, &shown)?;
        }
        let mut found = tree::find_skills(&archive, "");
        // The skill is the archive's root; what a registry adds beside it (ClawHub's
        // `_meta.json`) is one of its files, as the CLI keeps it.
        found.skills.retain(|skill| skill.path.is_empty());
        for skill in &mut found.skills {
            skill.path = slug.to_owned();
        }
        if found.skills.is_empty() {
            return Err(SourceError::new(format!(
                "`{shown}` holds no skill at its root (no `SKILL.md`)"
            )));
        }
        Ok(Downloaded {
            version: version.clone(),
            found,
            yanked,
        })
    }

    /// Refuses a version's ZIP `archive` whose files are not the ones the registry lists for it
    /// (`GET …/versions/{version}`: each path with its SHA-256), so that what is installed is
    /// what the registry says the version is, whatever served the download. A registry's own
    /// `_meta.json` beside them (ClawHub adds one) is the registry's, and kept.
    fn verify(
        &self,
        slug: &str,
        version: &Version,
        archive: &tree::SourceTree,
        shown: &str,
    ) -> Result<(), SourceError> {
        use std::collections::{BTreeMap, BTreeSet};
        let path = format!(
            "/api/v1/skills/{}/versions/{}",
            encode(slug),
            encode(&version.to_string())
        );
        let listed = self.json(&path, slug)?;
        let mut expected: BTreeMap<String, String> = BTreeMap::new();
        for file in listed["version"]["files"].as_array().into_iter().flatten() {
            if let (Some(path), Some(sha)) = (file["path"].as_str(), file["sha256"].as_str()) {
                expected.insert(
                    path.to_owned(),
                    sha.trim_start_matches("sha256:").to_owned(),
                );
            }
        }
        if expected.is_empty() {
            return Err(SourceError::new(format!(
                "`{}` lists no files for `{slug}` {version}, so its download cannot be checked: nothing was installed",
                self.url
            )));
        }
        let mut found: BTreeMap<String, String> = BTreeMap::new();
        for (path, entry) in &archive.entries {
            if let tree::Entry::File(bytes) = entry {
                let digest = skillpath_model::sha256_hex(bytes);
                found.insert(
                    path.clone(),
                    digest.trim_start_matches("sha256:").to_owned(),
                );
            }
        }
        found.retain(|path, _| path != "_meta.json" || expected.contains_key(path));
        if found == expected {
            return Ok(());
        }
        let differ: BTreeSet<&String> = expected
            .keys()
            .chain(found.keys())
            .filter(|path| expected.get(*path) != found.get(*path))
            .collect();
        let named: Vec<String> = differ.iter().map(|path| format!("`{path}`")).collect();
        Err(SourceError::new(format!(
            "`{shown}` is not the version `{}` lists: {} differ (by SHA-256, or missing on one side): nothing was installed",
            self.url,
            named.join(", ")
        ))
        .hint("the download was changed between the registry and here: do not install it"))
    }
}

/// The header a skillpath registry's download of a yanked version carries (asked for with
/// `pinned=true`), with the reason it was yanked.
pub const YANKED_HEADER: &str = "x-skillpath-yanked";

/// The fingerprint the ClawHub protocol names a skill's files by (`/api/v1/resolve?hash=`):
/// the SHA-256 of one line `path:sha256` per file, in the order `localeCompare` sorts the
/// paths ([`crate::collation`]), joined by newlines; lowercase hex.
pub fn fingerprint<'a>(files: impl IntoIterator<Item = (&'a str, &'a [u8])>) -> String {
    let mut lines: Vec<(&str, String)> = files
        .into_iter()
        .map(|(path, bytes)| {
            let digest = skillpath_model::sha256_hex(bytes);
            (path, digest.trim_start_matches("sha256:").to_owned())
        })
        .collect();
    lines.sort_by(|a, b| crate::collation::locale_compare(a.0, b.0));
    let payload: Vec<String> = lines
        .iter()
        .map(|(path, digest)| format!("{path}:{digest}"))
        .collect();
    skillpath_model::sha256_hex(payload.join("\n").as_bytes())
        .trim_start_matches("sha256:")
        .to_owned()
}

/// `text` as one part of a URL's path or query.
fn encode(text: &str) -> String {
    percent_encoding::utf8_percent_encode(text, percent_encoding::NON_ALPHANUMERIC).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The CLI's own value for these files (its `buildSkillFingerprint`).
    #[test]
    fn the_fingerprint_is_the_clis() {
        let files: [(&str, &[u8]); 2] = [("SKILL.md", b"# hi\n"), ("scripts/run.sh", b"echo\n")];
        assert_eq!(
            fingerprint(files),
            "f72d3aa4e503070a3f90f00d9e0b639fdc25217398bcf8637fa715562c3fa0b3"
        );
    }

    #[test]
    fn what_names_a_registry_item() {
        let full = wanted("@team-a/deploy@^1.2")
            .expect("a registry item")
            .expect("parsed");
        assert_eq!(
            (
                full.slug.as_str(),
                full.request.as_deref(),
                full.default_registry
            ),
            ("team-a--deploy", Some("^1.2"), None)
        );
        let bare = wanted("@team-a/deploy").expect("an item").expect("parsed");
        assert_eq!(bare.request, None);
        let hub = wanted("clawhub:team-a--deploy@beta")
            .expect("an item")
            .expect("parsed");
        assert_eq!(
            (
                hub.slug.as_str(),
                hub.request.as_deref(),
                hub.default_registry
            ),
            ("team-a--deploy", Some("beta"), Some(DEFAULT_REGISTRY))
        );
        assert!(wanted("owner/repo").is_none());
        assert!(wanted("./skills").is_none());
        assert!(wanted("clawhub:../etc@1").expect("asked").is_err());
        assert!(wanted("@team/deploy@Not A Range!").expect("asked").is_err());
        assert_eq!(recorded("http://h:1/"), "clawhub+http://h:1");
        assert_eq!(of_recorded("clawhub+http://h:1"), Some("http://h:1"));
    }
}
