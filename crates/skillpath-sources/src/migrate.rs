//! Moving over from other installers, in one command (`skillpath add --from-lock PATH`): the
//! `skills` CLI's project lock (`skills-lock.json`, version 1) and user lock
//! (`~/.agents/.skill-lock.json`, version 3), and a folder of skills `gh skill` installed,
//! whose `SKILL.md` frontmatter names where each came from (`metadata.github-repo`,
//! `github-path`, `github-ref`, `github-pinned`). Each becomes the sources and skill names
//! to add; a file of another version is refused and left as it is (never emptied).

use std::collections::BTreeMap;
use std::path::Path;

use skillpath_core::Mode;

use crate::SourceError;

/// One source to add from, with the skills to take of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    /// The source as `skillpath add` takes it.
    pub source: String,
    /// The ref asked for.
    pub reference: Option<String>,
    /// The skills to take, by name.
    pub skills: Vec<String>,
}

/// An entry of either `skills` CLI lock.
#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct Entry {
    source: String,
    #[serde(default)]
    source_type: String,
    #[serde(default)]
    source_url: Option<String>,
    #[serde(default, rename = "ref")]
    reference: Option<String>,
}

#[derive(serde::Deserialize)]
struct LockFile {
    version: serde_json::Value,
    #[serde(default)]
    skills: BTreeMap<String, Entry>,
}

/// What another installer's lock says to add.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Moved {
    /// The sources, each with its skills.
    pub requests: Vec<Request>,
    /// The skills that cannot be moved, by name, with why.
    pub skipped: Vec<(String, String)>,
}

/// What to add to move over from the lock file or `gh skill` folder at `path`.
pub fn requests(path: &Path) -> Result<Moved, SourceError> {
    if path.is_dir() {
        return Ok(Moved {
            requests: gh_folder(path)?,
            skipped: Vec::new(),
        });
    }
    let shown = path.display();
    let text = std::fs::read_to_string(path).map_err(|e| SourceError::io("read", path, &e))?;
    let lock: LockFile = serde_json::from_str(&text)
        .map_err(|e| SourceError::new(format!("`{shown}` is not a `skills` CLI lock: {e}")))?;
    match lock.version.as_u64() {
        Some(1 | 3) => {}
        _ => {
            return Err(SourceError::new(format!(
                "`{shown}` is a `skills` CLI lock of version {}; skillpath reads versions 1 (`skills-lock.json`) and 3 (`.skill-lock.json`)",
                lock.version
            ))
            .hint("the file is left as it is"));
        }
    }
    let base = path.parent().unwrap_or(Path::new("."));
    let mut grouped: BTreeMap<(String, Option<String>), Vec<String>> = BTreeMap::new();
    let mut skipped = Vec::new();
    for (name, entry) in lock.skills {
        let source = match entry.source_type.as_str() {
            "github" | "" => Some(entry.source.clone()),
            "gitlab" | "git" | "well-known" => {
                Some(entry.source_url.clone().unwrap_or(entry.source.clone()))
            }
            "local" => Some(base.join(&entry.source).display().to_string()),
            other => {
                skipped.push((
                    name.clone(),
                    format!("its source type `{other}` is not one skillpath installs from"),
                ));
                None
            }
        };
        if let Some(source) = source {
            grouped
                .entry((source, entry.reference))
                .or_default()
                .push(name);
        }
    }
    let requests = grouped
        .into_iter()
        .map(|((source, reference), skills)| Request {
            source,
            reference,
            skills,
        })
        .collect();
    Ok(Moved { requests, skipped })
}

/// The skills `gh skill` installed in the folder `dir` (each `dir/<name>/SKILL.md` whose
/// frontmatter has `metadata.github-repo`).
fn gh_folder(dir: &Path) -> Result<Vec<Request>, SourceError> {
    let entries = std::fs::read_dir(dir).map_err(|e| SourceError::io("read", dir, &e))?;
    let mut grouped: BTreeMap<(String, Option<String>), Vec<String>> = BTreeMap::new();
    let mut paths: Vec<_> = entries.flatten().map(|entry| entry.path()).collect();
    paths.sort();
    for skill_dir in paths {
        let Ok(text) = std::fs::read_to_string(skill_dir.join("SKILL.md")) else {
            continue;
        };
        let skill = skillpath_core::skill_md::parse("SKILL.md".into(), text, Mode::Lenient);
        let metadata = |key: &str| -> Option<String> {
            skill
                .field("metadata")?
                .value
                .get(key)
                .and_then(|entry| entry.value.as_scalar())
                .map(|scalar| scalar.text.trim().to_owned())
        };
        let (Some(repo), Some(name)) = (
            metadata("github-repo"),
            skill.text_field("name").map(|name| name.trim().to_owned()),
        ) else {
            continue;
        };
        let reference = metadata("github-pinned").or_else(|| {
            metadata("github-ref").map(|r| {
                r.strip_prefix("refs/heads/")
                    .or_else(|| r.strip_prefix("refs/tags/"))
                    .unwrap_or(&r)
                    .to_owned()
            })
        });
        grouped.entry((repo, reference)).or_default().push(name);
    }
    Ok(grouped
        .into_iter()
        .map(|((source, reference), skills)| Request {
            source,
            reference,
            skills,
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_skills_cli_locks_and_a_gh_skill_folder_become_requests() {
        let dir = tempfile::tempdir().expect("temp");
        let project = dir.path().join("skills-lock.json");
        std::fs::write(&project, r#"{"version": 1, "skills": {
            "a": {"source": "owner/repo", "sourceType": "github", "skillPath": "skills/a/SKILL.md", "computedHash": "00"},
            "b": {"source": "owner/repo", "sourceType": "github", "skillPath": "skills/b/SKILL.md", "computedHash": "11"},
            "c": {"source": "../src", "sourceType": "local", "computedHash": "22"},
            "d": {"source": "https://gitlab.com/g/r.git", "sourceUrl": "https://gitlab.com/g/r.git", "ref": "v2", "sourceType": "gitlab", "computedHash": "33"},
            "e": {"source": "pkg", "sourceType": "node_modules", "computedHash": "44"}}}"#).expect("write");
        let Moved { requests, skipped } = requests(&project).expect("reads");
        let sources: Vec<(&str, Option<&str>, Vec<&str>)> = requests
            .iter()
            .map(|r| {
                (
                    r.source.as_str(),
                    r.reference.as_deref(),
                    r.skills.iter().map(String::as_str).collect(),
                )
            })
            .collect();
        let local = dir.path().join("../src").display().to_string();
        assert_eq!(
            sources,
            [
                (local.as_str(), None, vec!["c"]),
                ("https://gitlab.com/g/r.git", Some("v2"), vec!["d"]),
                ("owner/repo", None, vec!["a", "b"]),
            ]
        );
        assert_eq!(skipped.len(), 1);
        assert!(skipped[0].1.contains("node_modules"));
        let user = dir.path().join(".skill-lock.json");
        std::fs::write(&user, r#"{"version": 2, "skills": {}}"#).expect("write");
        let error = super::requests(&user).expect_err("version 2");
        assert!(error.message.contains("version 2"), "{error}");
        assert_eq!(
            std::fs::read_to_string(&user).expect("kept"),
            r#"{"version": 2, "skills": {}}"#
        );

        let gh = dir.path().join("gh");
        std::fs::create_dir_all(gh.join("x")).expect("mkdir");
        std::fs::write(gh.join("x/SKILL.md"), "---\nname: x\ndescription: X.\nmetadata:\n    github-path: skills/x\n    github-ref: refs/tags/v1.0\n    github-repo: https://github.com/o/r\n    github-tree-sha: abc\n---\n").expect("write");
        let requests = super::requests(&gh).expect("reads").requests;
        assert_eq!(
            requests,
            [Request {
                source: "https://github.com/o/r".into(),
                reference: Some("v1.0".into()),
                skills: vec!["x".into()]
            }]
        );
    }
}
