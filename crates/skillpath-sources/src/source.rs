//! What `skillpath add SOURCE` names, read once: a git repository (a URL, `git@host:path`, a
//! local repository, or `owner/repo` on GitHub), with a ref after `#`, or a local folder.

use std::path::{Path, PathBuf};

use crate::SourceError;

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
}

impl Origin {
    /// The source as the lock records it: the git URL, or the folder.
    pub fn recorded(&self) -> String {
        match self {
            Origin::Git { url } => url.clone(),
            Origin::Folder { path } => path.display().to_string(),
        }
    }

    /// The source the lock recorded as `recorded` (the inverse of [`Origin::recorded`]).
    pub fn from_recorded(recorded: &str) -> Origin {
        if is_url(recorded) || is_scp_like(recorded) {
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
            return Err(SourceError::new(format!(
                "`{base}` is a file; a source is a git repository or a folder"
            )));
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
