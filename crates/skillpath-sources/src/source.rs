//! What `skillpath add SOURCE` names, read once: a git repository (a URL, `git@host:path`, a
//! local repository, or `owner/repo` on GitHub), with a ref after `#`, or a local folder.

use std::path::{Path, PathBuf};

use crate::SourceError;
use crate::git::Repository;
use crate::tree::{self, Found, Skipped, join};
use crate::{archive, http, index, registry};

/// Where skills come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// A git repository, by the URL `git` fetches it from.
    Git {
        /// The URL (`https://…`, `ssh://…`, `git@host:path`, `file://…`).
        url: String,
    },
    /// A folder on this machine, read as it is (no commit pins it; the lock's digests do).
    Folder {
        /// The folder.
        path: PathBuf,
    },
    /// A `.tar.gz`, `.tar` or `.zip`, by URL or file, pinned by its SHA-256.
    Archive {
        /// The URL or the file.
        location: String,
    },
    /// A site's discovery index (`/.well-known/agent-skills/index.json`).
    Index {
        /// The index's URL.
        url: String,
    },
    /// A registry that speaks the ClawHub HTTP API ([`crate::registry`]); each skill of it is
    /// read by its slug (the `path` a lock records) at a version.
    Registry {
        /// The registry's base URL.
        url: String,
    },
}

impl Origin {
    /// The source as the lock records it: the git URL, or the folder.
    pub fn recorded(&self) -> String {
        match self {
            Origin::Git { url } | Origin::Index { url } => url.clone(),
            Origin::Archive { location } => location.clone(),
            Origin::Folder { path } => path.display().to_string(),
            Origin::Registry { url } => registry::recorded(url),
        }
    }

    /// The source the lock recorded as `recorded` (the inverse of [`Origin::recorded`]).
    pub fn from_recorded(recorded: &str) -> Origin {
        if let Some(url) = registry::of_recorded(recorded) {
            Origin::Registry {
                url: url.to_owned(),
            }
        } else if is_archive_name(recorded) {
            Origin::Archive {
                location: recorded.to_owned(),
            }
        } else if index::is_index_url(recorded) {
            Origin::Index {
                url: recorded.to_owned(),
            }
        } else if is_url(recorded) || is_scp_like(recorded) {
            Origin::Git {
                url: recorded.to_owned(),
            }
        } else {
            Origin::Folder {
                path: PathBuf::from(recorded),
            }
        }
    }
}

/// A source with the ref asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Source {
    /// Where.
    pub origin: Origin,
    /// The branch, tag or commit (`SOURCE#ref`); `None`: the default branch.
    pub reference: Option<String>,
}

/// Reads `text` as a source, relative to `cwd` when it is a path. A path that exists wins over
/// the `owner/repo` shorthand.
pub fn parse(text: &str, cwd: &Path) -> Result<Source, SourceError> {
    let text = text.trim();
    if text.is_empty() {
        return Err(SourceError::new("the source is empty")
            .hint("name a git repository (`owner/repo`, a URL, a local repository) or a folder"));
    }
    let (base, reference) = match text.rsplit_once('#') {
        Some((base, reference)) if !reference.is_empty() => (base, Some(reference.to_owned())),
        Some((base, _)) => (base, None),
        None => (text, None),
    };
    if is_http(base) && is_archive_name(base) {
        return Ok(Source {
            origin: Origin::Archive {
                location: base.to_owned(),
            },
            reference,
        });
    }
    if is_http(base) && index::is_index_url(base) {
        return Ok(Source {
            origin: Origin::Index {
                url: base.to_owned(),
            },
            reference,
        });
    }
    if is_url(base) || is_scp_like(base) {
        return Ok(Source {
            origin: Origin::Git {
                url: base.to_owned(),
            },
            reference,
        });
    }
    let path = cwd.join(base);
    if path.exists() {
        let path = path
            .canonicalize()
            .map_err(|e| SourceError::io("read", &path, &e))?;
        if !path.is_dir() {
            return Ok(Source {
                origin: Origin::Archive {
                    location: path.display().to_string(),
                },
                reference,
            });
        }
        let origin = if path.join(".git").exists() || is_bare_repository(&path) {
            Origin::Git {
                url: format!("file://{}", path.display()),
            }
        } else {
            if reference.is_some() {
                return Err(SourceError::new(format!(
                    "`{base}` is a folder, not a git repository: it has no refs to ask for"
                )));
            }
            Origin::Folder { path }
        };
        return Ok(Source { origin, reference });
    }
    if is_github_shorthand(base) {
        return Ok(Source {
            origin: Origin::Git {
                url: format!("https://github.com/{base}.git"),
            },
            reference,
        });
    }
    Err(SourceError::new(format!(
        "`{base}` is no folder here, no URL and not `owner/repo`"
    ))
    .hint("name a git URL (`https://…`, `git@host:path`, `file://…`), `owner/repo` on GitHub, or a folder that exists"))
}

/// Whether `text` (a URL or a path) names an archive by its extension.
fn is_archive_name(text: &str) -> bool {
    let path = text
        .split(['?', '#'])
        .next()
        .unwrap_or(text)
        .to_ascii_lowercase();
    [".tar.gz", ".tgz", ".tar", ".zip"]
        .iter()
        .any(|ext| path.ends_with(ext))
}

/// `http://` or `https://`.
fn is_http(text: &str) -> bool {
    text.starts_with("https://") || text.starts_with("http://")
}

/// Hosts whose URLs are git repositories, never sites with a discovery index.
const GIT_HOSTS: &[&str] = &["github.com", "gitlab.com", "bitbucket.org", "codeberg.org"];

/// The source `origin` is, once asked: an `http(s)` URL that is not obviously a git
/// repository (a known git host, or a path ending in `.git`) is a site whose discovery index
/// is used when it publishes one, else a git repository.
pub fn probe(origin: Origin) -> Result<Origin, SourceError> {
    let Origin::Git { url } = &origin else {
        return Ok(origin);
    };
    if !is_http(url) || url.trim_end_matches('/').ends_with(".git") {
        return Ok(origin);
    }
    let host = url
        .split("://")
        .nth(1)
        .and_then(|rest| rest.split(['/', ':']).next())
        .unwrap_or("");
    if GIT_HOSTS
        .iter()
        .any(|known| host.eq_ignore_ascii_case(known))
    {
        return Ok(origin);
    }
    let index = index::index_url(url);
    match index::fetch(&index) {
        Ok(Some(_)) => Ok(Origin::Index { url: index }),
        Ok(None) | Err(_) => Ok(origin),
    }
}

/// Where a source's skills are pinned: the git commit, or the digest of the archive or the
/// index entry.
#[derive(Debug, Clone, Copy, Default)]
pub struct Pin<'a> {
    /// The commit of a git source.
    pub commit: Option<&'a str>,
    /// The `sha256:` digest of an archive or of an index entry.
    pub digest: Option<&'a str>,
    /// The version of a registry's skill.
    pub version: Option<&'a str>,
}

/// The skills of `origin` under `path`, as pinned by `pin` (a git source needs its commit, a
/// registry's skill, whose slug is `path`, its version; an archive or index entry whose digest
/// differs from the pin is refused; an index read for a pinned skill reads only the entry
/// named `path`).
pub fn read(origin: &Origin, pin: Pin<'_>, path: &str) -> Result<Found, SourceError> {
    let path = path.trim_matches('/');
    match origin {
        Origin::Git { url } => {
            let commit = pin
                .commit
                .ok_or_else(|| SourceError::new(format!("no commit is pinned for `{url}`")))?;
            let repository = Repository::open(url)?;
            repository.fetch(commit)?;
            let tree = repository.read_tree(commit, path)?;
            Ok(tree::find_skills(&tree, path))
        }
        Origin::Folder { path: root } => {
            let dir = root.join(path);
            if !dir.is_dir() {
                return Err(SourceError::new(format!(
                    "`{}` is no folder",
                    dir.display()
                )));
            }
            let mut found = tree::find_folder_skills(&dir);
            for skill in &mut found.skills {
                skill.path = join(path, &skill.path);
            }
            Ok(found)
        }
        Origin::Archive { location } => {
            let bytes = if is_http(location) {
                http::get(location, http::MAX_RESPONSE)?
                    .ok_or_else(|| SourceError::new(format!("`{location}` is not there (404)")))?
            } else {
                std::fs::read(location)
                    .map_err(|e| SourceError::io("read", Path::new(location), &e))?
            };
            let digest = skillpath_model::sha256_hex(&bytes);
            match pin.digest {
                Some(expected) if expected != digest => {
                    return Err(SourceError::new(format!(
                        "`{location}` has the SHA-256 {digest}, not {expected}: nothing was installed"
                    ))
                    .hint("check where the archive comes from; give its real digest with `--sha256` only once you trust it"));
                }
                None if is_http(location) => {
                    return Err(SourceError::new(format!(
                        "`{location}` is an archive fetched over the network: its `--sha256` is required"
                    ))
                    .hint(format!("the archive fetched now has {digest}; check it before you pass it")));
                }
                _ => {}
            }
            let tree = archive::read(&bytes, location)?.under(path);
            let mut found = tree::find_skills(&tree, path);
            for skill in &mut found.skills {
                skill.digest = Some(digest.clone());
            }
            Ok(found)
        }
        Origin::Registry { url } => {
            let version = pin.version.ok_or_else(|| {
                SourceError::new(format!("no version of `{path}` is pinned for `{url}`"))
            })?;
            let version = skillpath_model::release::parse_version(version)
                .map_err(|error| SourceError::new(error.to_string()))?;
            let downloaded = registry::Registry::new(url).download(path, &version, true)?;
            Ok(released(downloaded, None))
        }
        Origin::Index { url } => {
            let entries = index::fetch(url)?
                .ok_or_else(|| SourceError::new(format!("`{url}` is not there (404)")))?;
            let mut found = Found::default();
            for entry in entries {
                if !path.is_empty() && entry.name != path {
                    continue;
                }
                if let Some(expected) = pin.digest.filter(|d| *d != entry.digest) {
                    return Err(SourceError::new(format!(
                        "`{url}` publishes `{}` with the digest {}, not the lock's {expected}",
                        entry.name, entry.digest
                    )));
                }
                let read = index::fetch_entry(url, &entry).map(|tree| tree::find_skills(&tree, ""));
                match read {
                    Ok(mut one) => {
                        for mut skill in one.skills.drain(..).filter(|s| s.path.is_empty()) {
                            skill.path.clone_from(&entry.name);
                            skill.digest = Some(entry.digest.clone());
                            found.skills.push(skill);
                        }
                        found.skipped.extend(one.skipped.into_iter().map(|mut s| {
                            s.path = join(&entry.name, &s.path);
                            s
                        }));
                    }
                    Err(error) => found.skipped.push(Skipped {
                        path: entry.name.clone(),
                        reason: error.message,
                    }),
                }
            }
            Ok(found)
        }
    }
}

/// The skills of a registry's version, with the version and the request it answered on each.
fn released(downloaded: registry::Downloaded, request: Option<&str>) -> Found {
    let mut found = downloaded.found;
    for skill in &mut found.skills {
        skill.release = Some(tree::Released {
            request: request.map(str::to_owned),
            version: downloaded.version.to_string(),
            yanked: downloaded.yanked.clone(),
        });
    }
    found
}

/// The skills of a source as they are now, under `path`: a git source at the newest commit of
/// `reference` (returned), a registry's skill `path` at the version `reference` (a version,
/// range or tag; `None`: `latest`) resolves to now, an archive as `digest` pins it (an archive
/// has no ref to move on), a folder or a discovery index as it is published.
pub fn read_newest(
    origin: &Origin,
    reference: Option<&str>,
    digest: Option<&str>,
    path: &str,
) -> Result<(Option<String>, Found), SourceError> {
    if let Origin::Registry { url } = origin {
        let registry = registry::Registry::new(url);
        let version = registry.resolve(path, reference)?;
        let exact = matches!(
            reference.map(skillpath_model::release::Request::parse),
            Some(Ok(skillpath_model::release::Request::Exact(_)))
        );
        let downloaded = registry.download(path, &version, exact)?;
        return Ok((None, released(downloaded, reference)));
    }
    let commit = match origin {
        Origin::Git { url } => Some(Repository::open(url)?.resolve(reference)?),
        _ => None,
    };
    let digest = match origin {
        Origin::Archive { .. } => digest,
        _ => None,
    };
    let pin = Pin {
        commit: commit.as_deref(),
        digest,
        version: None,
    };
    Ok((commit.clone(), read(origin, pin, path)?))
}

/// `scheme://…` with a scheme git fetches from.
fn is_url(text: &str) -> bool {
    [
        "https://",
        "http://",
        "ssh://",
        "git://",
        "file://",
        "git+ssh://",
    ]
    .iter()
    .any(|scheme| text.starts_with(scheme))
}

/// `user@host:path`, git's scp-like syntax.
fn is_scp_like(text: &str) -> bool {
    match text.split_once(':') {
        Some((user_host, path)) => {
            user_host.contains('@')
                && !user_host.contains('/')
                && !path.is_empty()
                && !path.starts_with("//")
        }
        None => false,
    }
}

/// `owner/repo`, each part made of what GitHub allows in names.
fn is_github_shorthand(text: &str) -> bool {
    let allowed = |part: &str| {
        !part.is_empty()
            && part != "."
            && part != ".."
            && part
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
    };
    matches!(text.split_once('/'), Some((owner, repo)) if allowed(owner) && allowed(repo))
}

/// A folder that is itself a bare repository (`HEAD`, `objects`, `refs`).
fn is_bare_repository(path: &Path) -> bool {
    path.join("HEAD").is_file() && path.join("objects").is_dir() && path.join("refs").is_dir()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn git(url: &str, reference: Option<&str>) -> Source {
        Source {
            origin: Origin::Git {
                url: url.to_owned(),
            },
            reference: reference.map(str::to_owned),
        }
    }

    #[test]
    fn every_way_of_naming_a_repository() {
        let cwd = Path::new("/nonexistent-cwd");
        let cases = [
            ("owner/repo", git("https://github.com/owner/repo.git", None)),
            (
                "owner/repo#v1.2",
                git("https://github.com/owner/repo.git", Some("v1.2")),
            ),
            (
                "https://gitlab.com/a/b.git#main",
                git("https://gitlab.com/a/b.git", Some("main")),
            ),
            (
                "git@github.com:a/b.git",
                git("git@github.com:a/b.git", None),
            ),
            ("ssh://git@host/a/b", git("ssh://git@host/a/b", None)),
            (
                "file:///srv/skills#abc",
                git("file:///srv/skills", Some("abc")),
            ),
        ];
        for (text, expected) in cases {
            assert_eq!(parse(text, cwd).expect(text), expected, "{text}");
        }
        let error = parse("not a source", cwd).expect_err("nothing");
        assert!(error.message.contains("no folder here"), "{error}");
    }

    #[test]
    fn a_local_folder_is_a_folder_and_a_repository_is_git() {
        let dir = tempfile::tempdir().expect("temp");
        std::fs::create_dir_all(dir.path().join("plain")).expect("mkdir");
        std::fs::create_dir_all(dir.path().join("repo/.git")).expect("mkdir");
        let plain = parse("plain", dir.path()).expect("plain");
        assert!(matches!(plain.origin, Origin::Folder { .. }));
        let repo = parse("repo#main", dir.path()).expect("repo");
        match repo.origin {
            Origin::Git { url } => assert!(url.starts_with("file:///") && url.ends_with("/repo")),
            other => panic!("{other:?}"),
        }
        assert!(parse("plain#main", dir.path()).is_err());
        let recorded = Origin::from_recorded("file:///srv/x");
        assert!(matches!(recorded, Origin::Git { .. }));
        assert!(matches!(
            Origin::from_recorded("/srv/folder"),
            Origin::Folder { .. }
        ));
    }
}
