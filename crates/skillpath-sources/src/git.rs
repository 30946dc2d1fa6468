//! Git sources, through the system's `git`: the user's credential helpers, SSH keys and
//! proxies work as they do for `git clone`; `file://` repositories need no network; nothing of
//! a git library is built into skillpath. Each URL has one bare repository in the cache
//! ([`crate::cache`]), into which single commits are fetched (`--depth 1`), and a commit is
//! read straight from its objects into memory (`ls-tree`, then one `cat-file --batch`): no
//! work tree is checked out, so no symlink, hook or filter of the repository ever runs or
//! resolves on this machine.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};

use crate::SourceError;
use crate::cache;
use crate::tree::{Entry, SourceTree};

/// Most bytes read from one commit in all.
pub const MAX_TREE_BYTES: u64 = 1 << 30;

/// A repository as the cache keeps it.
#[derive(Debug, Clone)]
pub struct Repository {
    url: String,
    dir: PathBuf,
}

/// Whether `text` is a full commit id (40 hex digits).
pub fn is_commit_id(text: &str) -> bool {
    text.len() == 40 && text.bytes().all(|b| b.is_ascii_hexdigit())
}

impl Repository {
    /// The cached repository of `url`, made empty when there is none yet.
    pub fn open(url: &str) -> Result<Repository, SourceError> {
        let dir = cache::root()?
            .join("git")
            .join(format!("{}.git", cache::key(url)));
        let repository = Repository {
            url: url.to_owned(),
            dir,
        };
        if !repository.dir.join("HEAD").exists() {
            std::fs::create_dir_all(&repository.dir)
                .map_err(|e| SourceError::io("create", &repository.dir, &e))?;
            repository.git(&["init", "--quiet", "--bare"])?;
        }
        Ok(repository)
    }

    /// The URL.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The commit `reference` names now (a branch, a tag, `HEAD`; `None`: the default
    /// branch), asked of the remote. A full commit id is taken as it is.
    pub fn resolve(&self, reference: Option<&str>) -> Result<String, SourceError> {
        if let Some(reference) = reference.filter(|r| is_commit_id(r)) {
            return Ok(reference.to_ascii_lowercase());
        }
        let listing = self.git(&["ls-remote", "--", &self.url]).map_err(|error| {
            SourceError::new(format!("cannot reach `{}`: {}", self.url, error.message)).hint(
                "check the URL and your access (git's own credential helpers and SSH keys are used); offline, only `file://` sources and commits fetched before can be installed",
            )
        })?;
        let refs: Vec<(&str, &str)> = listing
            .lines()
            .filter_map(|line| line.split_once('\t'))
            .collect();
        let wanted = reference.unwrap_or("HEAD");
        let candidates = [
            wanted.to_owned(),
            format!("refs/heads/{wanted}"),
            format!("refs/tags/{wanted}"),
        ];
        for candidate in &candidates {
            let peeled = format!("{candidate}^{{}}");
            if let Some((commit, _)) = refs.iter().find(|(_, name)| *name == peeled) {
                return Ok((*commit).to_owned());
            }
            if let Some((commit, _)) = refs.iter().find(|(_, name)| name == candidate) {
                return Ok((*commit).to_owned());
            }
        }
        let branches: Vec<&str> = refs
            .iter()
            .filter_map(|(_, name)| name.strip_prefix("refs/heads/"))
            .take(8)
            .collect();
        Err(SourceError::new(format!(
            "`{wanted}` is no branch, tag or commit of `{}`",
            self.url
        ))
        .hint(if branches.is_empty() {
            "the repository has no branches".to_owned()
        } else {
            format!(
                "its branches include {}; a commit must be given in full (40 hex digits)",
                branches
                    .iter()
                    .map(|b| format!("`{b}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        }))
    }

    /// Makes `commit` present in the cache, fetching it alone when it is not.
    pub fn fetch(&self, commit: &str) -> Result<(), SourceError> {
        let _held = cache::lock_folder(&self.dir)?;
        if self.has(commit) {
            return Ok(());
        }
        let fetched = self.git(&[
            "fetch",
            "--quiet",
            "--no-tags",
            "--no-write-fetch-head",
            "--depth",
            "1",
            "--",
            &self.url,
            &format!("{commit}:refs/skillpath/{commit}"),
        ]);
        match fetched {
            Ok(_) if self.has(commit) => Ok(()),
            Ok(_) => Err(self.vanished(commit, "it was not in what the remote sent")),
            Err(error) => Err(self.vanished(commit, &error.message)),
        }
    }

    /// The error of a commit the remote does not give.
    fn vanished(&self, commit: &str, why: &str) -> SourceError {
        SourceError::new(format!(
            "commit {commit} cannot be fetched from `{}`: {why}",
            self.url
        ))
        .hint("the commit may have left the repository (a force-push, a deleted branch); `skillpath update` moves to the ref's newest commit")
    }

    /// Whether the cache holds `commit`.
    fn has(&self, commit: &str) -> bool {
        self.git(&["cat-file", "-e", &format!("{commit}^{{commit}}")])
            .is_ok()
    }

    /// Every entry of `commit` under `under` (`/`-separated; empty: the whole tree), by path
    /// relative to `under`, files read into memory.
    pub fn read_tree(&self, commit: &str, under: &str) -> Result<SourceTree, SourceError> {
        let under = under.trim_matches('/');
        let treeish = if under.is_empty() {
            format!("{commit}^{{tree}}")
        } else {
            format!("{commit}:{under}")
        };
        let listing = self
            .git_bytes(&["ls-tree", "-r", "-l", "-z", "--full-tree", &treeish])
            .map_err(|_| {
                SourceError::new(format!(
                    "`{under}` is no folder of commit {commit} of `{}`",
                    self.url
                ))
            })?;
        let mut tree = SourceTree::default();
        let mut blobs: Vec<(String, String, bool)> = Vec::new();
        let mut total: u64 = 0;
        for record in listing.split(|&b| b == 0).filter(|r| !r.is_empty()) {
            let record = String::from_utf8_lossy(record);
            let Some((meta, path)) = record.split_once('\t') else {
                continue;
            };
            let fields: Vec<&str> = meta.split_whitespace().collect();
            let [mode, kind, object, size] = fields[..] else {
                continue;
            };
            let path = path.to_owned();
            match (mode, kind) {
                ("160000", _) | (_, "commit") => {
                    tree.entries.insert(path, Entry::Submodule);
                }
                ("120000", _) => blobs.push((path, object.to_owned(), true)),
                (_, "blob") => {
                    let size: u64 = size.parse().unwrap_or(u64::MAX);
                    if size > crate::tree::MAX_FILE_SIZE {
                        tree.entries.insert(path, Entry::TooLarge(size));
                        continue;
                    }
                    total += size;
                    if total > MAX_TREE_BYTES {
                        return Err(SourceError::new(format!(
                            "commit {commit} of `{}` holds more than {MAX_TREE_BYTES} bytes under `{under}`",
                            self.url
                        ))
                        .hint("name the folder of the skills with `--path`"));
                    }
                    blobs.push((path, object.to_owned(), false));
                }
                _ => {}
            }
        }
        let contents = self.cat_blobs(blobs.iter().map(|(_, object, _)| object.as_str()))?;
        for ((path, _, symlink), bytes) in blobs.into_iter().zip(contents) {
            let entry = if symlink {
                Entry::Symlink(String::from_utf8_lossy(&bytes).into_owned())
            } else {
                Entry::File(bytes)
            };
            tree.entries.insert(path, entry);
        }
        Ok(tree)
    }

    /// The bytes of each blob of `objects`, in order, through one `git cat-file --batch`.
    fn cat_blobs<'a>(
        &self,
        objects: impl Iterator<Item = &'a str>,
    ) -> Result<Vec<Vec<u8>>, SourceError> {
        let request: String = objects.map(|object| format!("{object}\n")).collect();
        if request.is_empty() {
            return Ok(Vec::new());
        }
        let mut child = self
            .command(&["cat-file", "--batch"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| git_missing(&e))?;
        let mut stdin = child
            .stdin
            .take()
            .ok_or_else(|| SourceError::new("git's input"))?;
        // Written from another thread: git answers as it reads, and a pipe holds little.
        let writer = std::thread::spawn(move || stdin.write_all(request.as_bytes()));
        let stdout = child
            .stdout
            .take()
            .ok_or_else(|| SourceError::new("git's output"))?;
        let mut reader = BufReader::new(stdout);
        let mut contents = Vec::new();
        let mut header = String::new();
        loop {
            header.clear();
            if reader
                .read_line(&mut header)
                .map_err(|e| SourceError::new(format!("reading git's output: {e}")))?
                == 0
            {
                break;
            }
            let fields: Vec<&str> = header.split_whitespace().collect();
            let [_, _, size] = fields[..] else {
                return Err(SourceError::new(format!(
                    "git cannot read an object of `{}`: {}",
                    self.url,
                    header.trim()
                )));
            };
            let size: usize = size
                .parse()
                .map_err(|_| SourceError::new(format!("git said `{}`", header.trim())))?;
            let mut bytes = vec![0; size + 1];
            reader
                .read_exact(&mut bytes)
                .map_err(|e| SourceError::new(format!("reading git's output: {e}")))?;
            bytes.truncate(size);
            contents.push(bytes);
        }
        let _ = writer.join();
        let _ = child.wait();
        Ok(contents)
    }

    /// Runs git in the cached repository; its standard output as text.
    fn git(&self, args: &[&str]) -> Result<String, SourceError> {
        self.git_bytes(args)
            .map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
    }

    /// Runs git in the cached repository; its standard output.
    fn git_bytes(&self, args: &[&str]) -> Result<Vec<u8>, SourceError> {
        let output = self
            .command(args)
            .stdin(Stdio::null())
            .output()
            .map_err(|e| git_missing(&e))?;
        if output.status.success() {
            Ok(output.stdout)
        } else {
            let stderr = String::from_utf8_lossy(&output.stderr);
            // git's own sentence: its `fatal:` line, else its last.
            let said = stderr
                .lines()
                .find(|line| line.starts_with("fatal: "))
                .or_else(|| stderr.lines().rev().find(|line| !line.trim().is_empty()))
                .unwrap_or("git failed")
                .trim()
                .trim_start_matches("fatal: ")
                .to_owned();
            Err(SourceError::new(said))
        }
    }

    /// `git -C <cache repository> <args>`, never asking on the terminal.
    fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new("git");
        command
            .arg("-C")
            .arg(&self.dir)
            .args(args)
            .env("GIT_TERMINAL_PROMPT", "0")
            .env("LC_ALL", "C");
        command
    }
}

/// The error of a `git` that cannot be run.
fn git_missing(error: &std::io::Error) -> SourceError {
    SourceError::new(format!("cannot run `git`: {error}"))
        .hint("install git (skillpath uses the system's `git` for git sources)")
}
