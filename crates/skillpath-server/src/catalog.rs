//! The server's in-memory view of the store: the metadata of every live skill (what listing and
//! choosing need, never its body or its files' bytes, which [`crate::content`] reads when a
//! skill is called), by name and by tool name, rebuilt whenever the store changes.
//!
//! Tool-name collisions are resolved by one rule: a built-in tool keeps its name; among skills
//! that want one tool name, the skill whose `name` is that tool name wins, otherwise the first
//! by name. A skill that loses has no tool (it stays reachable through `load_skill`, its
//! resources and its prompt) and is listed in [`Catalog::collisions`]. The rule is implemented
//! once, in [`skillpath_core::tool_names::resolve`], which `skillpath validate` and
//! `skillpath scan` use too.

use std::collections::BTreeMap;
use std::sync::Arc;

use rayon::prelude::*;
use skillpath_core::Mode;
use skillpath_core::golden_path::GoldenSkill;
use skillpath_core::golden_path::args::Arg;
use skillpath_core::skill_md;
use skillpath_core::tool_names;
use skillpath_store::{FileMetadata, Provenance, SkillMetadata, Store, StoreError, StoreResult};

use crate::to_mcp::skill_entry;

/// One live skill: what listing and choosing it need. Its body and files are read when it is
/// called or read ([`crate::content`]).
#[derive(Debug)]
pub struct CatalogSkill {
    /// The name, its identity in the store.
    pub name: String,
    /// The description from the frontmatter.
    pub description: String,
    /// The current revision.
    pub revision: u64,
    /// The hash of its content.
    pub content_hash: String,
    /// Where it came from.
    pub provenance: Provenance,
    /// The tool name it asks for: `tool_name`, else `name`.
    pub tool_name: String,
    /// Its arguments, which make its tool's input schema and its prompt's arguments.
    pub args: Vec<Arg>,
    /// The digest and size of its `SKILL.md`.
    pub skill_md: FileMetadata,
    /// Its other files, by path, without their bytes.
    pub files: Vec<FileMetadata>,
    /// Its Skills-extension entry (`skills/list`), or why the extension cannot carry it.
    pub entry: Result<rmcp::model::Skill, String>,
}

impl CatalogSkill {
    /// The catalog's view of a skill: its frontmatter parsed for its fields and arguments,
    /// and nothing of the parse kept but those.
    pub(crate) fn new(metadata: SkillMetadata) -> CatalogSkill {
        let SkillMetadata {
            name,
            description,
            revision,
            content_hash,
            provenance,
            skill_md,
            frontmatter,
            files,
            audit,
            ..
        } = metadata;
        let parsed = skill_md::parse("SKILL.md".into(), frontmatter, Mode::Lenient);
        let (golden, _) = GoldenSkill::read(&parsed);
        let tool_name = golden.tool_name_or(&name).to_owned();
        let entry = skill_entry(&name, &parsed, &skill_md, &files, audit.as_ref());
        CatalogSkill {
            name,
            description,
            revision,
            content_hash,
            provenance,
            tool_name,
            args: golden.args,
            skill_md,
            files,
            entry,
        }
    }

    /// `SKILL.md` or the file at `path`.
    pub(crate) fn file(&self, path: &str) -> Option<&FileMetadata> {
        if path == "SKILL.md" {
            return Some(&self.skill_md);
        }
        self.files.iter().find(|f| f.path == path)
    }
}

/// A tool name wanted by more than one skill (or by a skill and a built-in tool).
pub use skillpath_core::tool_names::Collision;

/// How many changed skills [`Catalog::reloaded`] reads one at a time before it reads the whole
/// catalog in one query instead.
const READ_ONE_BY_ONE_AT_MOST: usize = 32;

/// Every live skill, by name, with the tool-name table.
#[derive(Debug, Default)]
pub struct Catalog {
    skills: BTreeMap<String, Arc<CatalogSkill>>,
    tools: BTreeMap<String, Arc<CatalogSkill>>,
    /// Tool-name collisions and how they were resolved.
    pub collisions: Vec<Collision>,
}

impl Catalog {
    /// Reads every live skill from `store` and gives each its tool by the collision rule. The
    /// frontmatters are parsed on every core, off the async runtime's threads: at 10,000 skills
    /// parsing is most of what a start from the store costs.
    pub async fn load(store: &dyn Store) -> StoreResult<Catalog> {
        let metadata = store.current_metadata().await?;
        let parse = move || -> BTreeMap<String, Arc<CatalogSkill>> {
            metadata
                .into_par_iter()
                .map(|metadata| (metadata.name.clone(), Arc::new(CatalogSkill::new(metadata))))
                .collect::<Vec<_>>()
                .into_iter()
                .collect()
        };
        let skills = tokio::task::spawn_blocking(parse).await.map_err(|error| {
            StoreError::database(format!("reading the catalog failed: {error}"))
        })?;
        Ok(Catalog::of(skills))
    }

    /// The catalog after what changed in `store` since this one was loaded, or `None` when
    /// nothing did. Skills still at the same revision are kept as they are (a revision never
    /// changes), so a write reads and parses one skill rather than the whole catalog; after a
    /// change to many skills (an import) everything is read in one query instead, which is
    /// faster than one query per skill.
    pub async fn reloaded(&self, store: &dyn Store) -> StoreResult<Option<Catalog>> {
        let revisions = store.current_revisions().await?;
        let kept = |name: &str, revision: u64| {
            self.skills
                .get(name)
                .filter(|skill| skill.revision == revision)
        };
        let changed = revisions
            .iter()
            .filter(|(name, revision)| kept(name, *revision).is_none())
            .count();
        if changed == 0 && revisions.len() == self.skills.len() {
            return Ok(None);
        }
        if changed > READ_ONE_BY_ONE_AT_MOST {
            return Catalog::load(store).await.map(Some);
        }
        let mut skills = BTreeMap::new();
        for (name, revision) in revisions {
            let skill = match kept(&name, revision) {
                Some(skill) => Arc::clone(skill),
                // The revision listed, not the current one: the catalog stays one moment's view
                // even if the skill changes again meanwhile (the next reload catches that).
                None => {
                    let stored = store.get(&name, Some(revision)).await?;
                    Arc::new(CatalogSkill::new(SkillMetadata::of(&stored)))
                }
            };
            skills.insert(name, skill);
        }
        Ok(Some(Catalog::of(skills)))
    }

    /// A catalog of `skills`, each given its tool by the collision rule.
    fn of(skills: BTreeMap<String, Arc<CatalogSkill>>) -> Catalog {
        let wanted: Vec<(String, String)> = skills
            .values()
            .map(|skill| (skill.name.clone(), skill.tool_name.clone()))
            .collect();
        let resolution = tool_names::resolve(&wanted);
        let tools = resolution
            .winners
            .into_iter()
            .filter_map(|(tool, name)| Some((tool, Arc::clone(skills.get(&name)?))))
            .collect();
        Catalog {
            skills,
            tools,
            collisions: resolution.collisions,
        }
    }

    /// The skill named `name`.
    pub fn skill(&self, name: &str) -> Option<&Arc<CatalogSkill>> {
        self.skills.get(name)
    }

    /// The skill whose tool is `tool_name`.
    pub fn tool(&self, tool_name: &str) -> Option<&Arc<CatalogSkill>> {
        self.tools.get(tool_name)
    }

    /// Every skill, in name order.
    pub fn skills(&self) -> impl Iterator<Item = &Arc<CatalogSkill>> {
        self.skills.values()
    }

    /// Every skill tool, in tool-name order.
    pub fn tools(&self) -> impl Iterator<Item = (&String, &Arc<CatalogSkill>)> {
        self.tools.iter()
    }

    /// How many skills there are.
    pub fn len(&self) -> usize {
        self.skills.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.skills.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use skillpath_store::{Change, Provenance, SkillSnapshot, SqliteStore};

    use super::*;

    async fn add(store: &SqliteStore, name: &str, tool_name: Option<&str>) {
        let tool_name = tool_name.map_or(String::new(), |t| format!("tool_name: {t}\n"));
        let text = format!("---\nname: {name}\ndescription: Use when testing.\n{tool_name}---\n");
        let snapshot = SkillSnapshot::new(text, Vec::new()).expect("a snapshot");
        let change = Change {
            author: "test".into(),
            message: "add".into(),
        };
        store
            .create(snapshot, Provenance::Api, change)
            .await
            .expect("create");
    }

    /// A reload keeps the skills that did not change (the same parsed skill, not read again),
    /// reads the changed and new ones, drops the deleted, and says so when nothing changed;
    /// after a change to many skills it reads everything and gets the same result.
    #[tokio::test]
    async fn reloads_read_only_what_changed() {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = SqliteStore::open(&dir.path().join("store.db")).expect("open");
        for name in ["kept", "changed", "gone"] {
            add(&store, name, None).await;
        }
        let before = Catalog::load(&store).await.expect("load");
        assert!(before.reloaded(&store).await.expect("reload").is_none());

        let change = || Change {
            author: "test".into(),
            message: "change".into(),
        };
        let text =
            "---\nname: changed\ndescription: Use when testing again.\ntool_name: renamed\n---\n";
        let snapshot = SkillSnapshot::new(text.into(), Vec::new()).expect("a snapshot");
        store
            .update("changed", 1, snapshot, change())
            .await
            .expect("update");
        store.delete("gone", 1, change()).await.expect("delete");
        add(&store, "new", None).await;

        let after = before
            .reloaded(&store)
            .await
            .expect("reload")
            .expect("a change");
        let names: Vec<&str> = after.skills().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["changed", "kept", "new"]);
        assert!(Arc::ptr_eq(
            before.skill("kept").expect("kept"),
            after.skill("kept").expect("kept")
        ));
        let changed = after.skill("changed").expect("changed");
        assert_eq!(changed.revision, 2);
        assert_eq!(changed.tool_name, "renamed");
        assert!(after.tool("renamed").is_some() && after.tool("changed").is_none());
        assert!(after.reloaded(&store).await.expect("reload").is_none());

        // Past the one-by-one limit: one read of everything, the same view as a fresh load.
        for index in 0..=READ_ONE_BY_ONE_AT_MOST {
            add(&store, &format!("bulk-{index}"), None).await;
        }
        let bulk = after
            .reloaded(&store)
            .await
            .expect("reload")
            .expect("a change");
        let fresh = Catalog::load(&store).await.expect("load");
        let view = |catalog: &Catalog| -> Vec<(String, u64, String)> {
            catalog
                .skills()
                .map(|s| (s.name.clone(), s.revision, s.tool_name.clone()))
                .collect()
        };
        assert_eq!(view(&bulk), view(&fresh));
        assert_eq!(bulk.len(), 3 + READ_ONE_BY_ONE_AT_MOST + 1);
    }

    /// The catalog applies core's rule: the skill named like the tool wins even when it sorts
    /// last, every loser names the final winner, and a built-in tool keeps its name.
    #[tokio::test]
    async fn tools_follow_the_collision_rule() {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = SqliteStore::open(&dir.path().join("store.db")).expect("open");
        add(&store, "aa", Some("zz")).await;
        add(&store, "mm", Some("zz")).await;
        add(&store, "zz", None).await;
        add(&store, "helper", Some("load_skill")).await;
        let catalog = Catalog::load(&store).await.expect("load");
        let tools: Vec<(&str, &str)> = catalog
            .tools()
            .map(|(tool, skill)| (tool.as_str(), skill.name.as_str()))
            .collect();
        assert_eq!(tools, [("zz", "zz")]);
        let lost: Vec<(&str, Option<&str>, &str)> = catalog
            .collisions
            .iter()
            .map(|c| (c.tool_name.as_str(), c.winner.as_deref(), c.loser.as_str()))
            .collect();
        assert_eq!(
            lost,
            [
                ("load_skill", None, "helper"),
                ("zz", Some("zz"), "aa"),
                ("zz", Some("zz"), "mm"),
            ]
        );
        assert_eq!(catalog.len(), 4, "losers stay in the catalog");
    }
}
