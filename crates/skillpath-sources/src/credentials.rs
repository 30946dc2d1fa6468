//! The keys `skillpath login` stored, one per server, in
//! `$XDG_CONFIG_HOME/skillpath/credentials.toml` (else `~/.config/skillpath/credentials.toml`),
//! readable by its owner alone (mode 0600, its folder 0700). Written whole to a temporary file
//! in the same folder and renamed over the old one, so a crash leaves the old file or the new,
//! never half of one.
//!
//! ```toml
//! [servers."https://skills.example.com"]
//! key = "sp_…"
//! name = "cli-alice-1a2b3c4d"
//! user = "alice"
//! expires_at = "2027-03-08T10:00:00.000Z"
//! ```

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::SourceError;

/// A key stored for one server.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Credential {
    /// The key itself.
    pub key: String,
    /// Its name on the server.
    pub name: String,
    /// The person it acts for.
    pub user: String,
    /// When it expires (RFC 3339), if it does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<String>,
}

/// Every stored key, by server address.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Credentials {
    /// By the server's address, as `login` was given it (without a trailing `/`).
    #[serde(default)]
    pub servers: BTreeMap<String, Credential>,
}

/// Where the credentials live: `$XDG_CONFIG_HOME/skillpath/credentials.toml`, else
/// `$HOME/.config/skillpath/credentials.toml`; `None` without either.
pub fn path() -> Option<PathBuf> {
    let config = std::env::var_os("XDG_CONFIG_HOME")
        .filter(|dir| !dir.is_empty())
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("HOME")
                .filter(|dir| !dir.is_empty())
                .map(|home| PathBuf::from(home).join(".config"))
        })?;
    Some(config.join("skillpath").join("credentials.toml"))
}

/// A server's address as keys are stored under it: no trailing `/`.
pub fn server_key(url: &str) -> String {
    url.trim().trim_end_matches('/').to_owned()
}

impl Credentials {
    /// The credentials at `path` (none when there is no file).
    pub fn read(path: &Path) -> Result<Credentials, SourceError> {
        match std::fs::read_to_string(path) {
            Ok(text) => toml::from_str(&text).map_err(|error| {
                SourceError::new(format!(
                    "`{}` is not a credentials file: {error}",
                    path.display()
                ))
                .hint("fix it, or remove it and `skillpath login` again")
            }),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
                Ok(Credentials::default())
            }
            Err(error) => Err(SourceError::io("read", path, &error)),
        }
    }

    /// Writes them to `path`, readable by its owner alone.
    pub fn write(&self, path: &Path) -> Result<(), SourceError> {
        let folder = path
            .parent()
            .ok_or_else(|| SourceError::new(format!("`{}` has no folder", path.display())))?;
        std::fs::create_dir_all(folder)
            .map_err(|error| SourceError::io("create", folder, &error))?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let private = std::fs::Permissions::from_mode(0o700);
            std::fs::set_permissions(folder, private)
                .map_err(|error| SourceError::io("protect", folder, &error))?;
        }
        let text = toml::to_string(self)
            .map_err(|error| SourceError::new(format!("cannot write the credentials: {error}")))?;
        let mut file = tempfile::Builder::new()
            .prefix(".credentials")
            .tempfile_in(folder)
            .map_err(|error| SourceError::io("create a file in", folder, &error))?;
        // `tempfile` makes its files 0600 on Unix: the key is never readable by others, even
        // for a moment.
        file.write_all(text.as_bytes())
            .and_then(|()| file.as_file().sync_all())
            .map_err(|error| SourceError::io("write", file.path(), &error))?;
        file.persist(path)
            .map_err(|error| SourceError::io("write", path, &error.error))?;
        Ok(())
    }

    /// The key stored for the server at `url` (its address, or any URL under it).
    pub fn key_for(&self, url: &str) -> Option<&Credential> {
        let url = server_key(url);
        self.servers
            .iter()
            .filter(|(server, _)| url == **server || url.starts_with(&format!("{server}/")))
            .max_by_key(|(server, _)| server.len())
            .map(|(_, credential)| credential)
    }
}

/// The key stored for the server at `url`, if the credentials file has one (an unreadable file
/// is none: the request goes without, and the server says what it needs).
pub fn stored_key(url: &str) -> Option<String> {
    let credentials = Credentials::read(&path()?).ok()?;
    credentials
        .key_for(url)
        .map(|credential| credential.key.clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_is_found_for_its_server_and_urls_under_it() {
        let mut credentials = Credentials::default();
        let credential = |key: &str| Credential {
            key: key.to_owned(),
            name: "cli-alice-1".to_owned(),
            user: "alice".to_owned(),
            expires_at: None,
        };
        credentials.servers.insert(
            server_key("https://skills.example.com/"),
            credential("sp_a"),
        );
        credentials.servers.insert(
            "https://skills.example.com/team".to_owned(),
            credential("sp_b"),
        );
        let key = |url: &str| credentials.key_for(url).map(|c| c.key.as_str());
        assert_eq!(key("https://skills.example.com"), Some("sp_a"));
        assert_eq!(
            key("https://skills.example.com/api/v1/skills"),
            Some("sp_a")
        );
        assert_eq!(key("https://skills.example.com/team/api"), Some("sp_b"));
        assert_eq!(key("https://skills.example.com.evil.test/"), None);
        assert_eq!(key("http://skills.example.com"), None);
    }

    #[test]
    fn the_file_is_its_owners_alone_and_reads_back() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("skillpath").join("credentials.toml");
        let mut credentials = Credentials::default();
        credentials.servers.insert(
            "http://127.0.0.1:8808".to_owned(),
            Credential {
                key: "sp_x".to_owned(),
                name: "cli-bob-2".to_owned(),
                user: "bob".to_owned(),
                expires_at: Some("2027-01-01T00:00:00.000Z".to_owned()),
            },
        );
        credentials.write(&path).expect("written");
        assert_eq!(Credentials::read(&path).expect("read"), credentials);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = |p: &Path| std::fs::metadata(p).expect("stat").permissions().mode() & 0o777;
            assert_eq!(mode(&path), 0o600);
            assert_eq!(mode(path.parent().expect("folder")), 0o700);
        }
        std::fs::write(&path, "servers = 3").expect("broken");
        let broken = Credentials::read(&path).expect_err("not a credentials file");
        assert!(
            broken.to_string().contains("not a credentials file"),
            "{broken}"
        );
    }
}
