//! The in-memory view of the store every front end reads: the metadata of every live skill
//! (what listing, choosing and ranking need, never its body or its files' bytes, which are read
//! when a skill is called), by name and by tool name, rebuilt whenever the store changes.
//! A front end that needs more of each skill, derived once as the skill is read (the MCP
//! server's Skills-extension entry), names it as the catalog's type parameter ([`Derived`]).
//!
//! Architecture packages are in the catalog beside the skills ([`Catalog::packages`]), each
//! with its manifest; a member skill knows its package (`CatalogSkill::package`), and its
//! arguments hold the package's options (optional, with the package's defaults), so its tool
//! schema, prompt and rendering have them. A change to a package reloads the whole catalog:
//! its members' arguments follow it.
//!
//! Tool-name collisions are resolved by one rule: a built-in tool keeps its name; among skills
//! that want one tool name, the skill whose `name` is that tool name wins, otherwise the first
//! by name. A skill that loses has no tool (it stays reachable through `load_skill`, its
//! resources and its prompt) and is listed in [`Catalog::collisions`]. The rule is implemented
//! once, in [`skillpath_core::tool_names::resolve`], which `skillpath validate` and
//! `skillpath scan` use too.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;

use rayon::prelude::*;
use skillpath_audit::AuditRecord;
use skillpath_core::Mode;
use skillpath_core::claude_args::ClaudeArgs;
use skillpath_core::golden_path::GoldenSkill;
use skillpath_core::golden_path::args::Arg;
use skillpath_core::package::{self, Package};
use skillpath_core::skill_md::{self, SkillMd};
use skillpath_core::tool_names;
use skillpath_model::{FileMetadata, FullName, Kind, Provenance, name_of_key, namespace_of_key};
use skillpath_store::directory::{Directory, Star};
use skillpath_store::usage::UsageQuery;
use skillpath_store::{SearchHit, SkillMetadata, Store, StoreError, StoreResult};

use crate::channel::Channel;
use crate::meaning::Meaning;
use crate::sight::Sight;

/// What a front end derives from each skill as the catalog reads it, kept beside the skill:
/// computed once per revision (on every core at a start), never on each request.
pub trait Derived: std::fmt::Debug + Send + Sync + Sized + 'static {
    /// What is derived from the skill `name`, its parsed `SKILL.md`, that file's metadata, its
    /// other files and its audit.
    fn skill(
        name: &str,
        skill_md: &SkillMd,
        skill_md_file: &FileMetadata,
        files: &[FileMetadata],
        audit: Option<&AuditRecord>,
    ) -> Self;

    /// What is derived from the package `name`.
    fn package(name: &str) -> Self;
}

/// Nothing derived: the catalog of the commands that only rank (`skillpath search`, `eval`).
impl Derived for () {
    fn skill(
        _: &str,
        _: &SkillMd,
        _: &FileMetadata,
        _: &[FileMetadata],
        _: Option<&AuditRecord>,
    ) -> Self {
    }

    fn package(_: &str) -> Self {}
}

/// One live skill (or package): what listing and choosing it need, and what the front end
/// derives from it (`E`). Its body and files are read when it is called or read.
#[derive(Debug)]
pub struct CatalogSkill<E = ()> {
    /// A skill, or a package.
    pub kind: Kind,
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
    /// When its revision was written (RFC 3339).
    pub updated_at: String,
    /// The tool name it asks for: `tool_name`, else `name`.
    pub tool_name: String,
    /// Its arguments, which make its tool's input schema and its prompt's arguments; a member
    /// skill's end with its package's options.
    pub args: Vec<Arg>,
    /// The package a member skill belongs to.
    pub package: Option<Membership>,
    /// A package's manifest, as read.
    pub manifest: Option<Arc<Package>>,
    /// The digest and size of its `SKILL.md` (a package's `PACKAGE.md`).
    pub skill_md: FileMetadata,
    /// Its other files, by path, without their bytes.
    pub files: Vec<FileMetadata>,
    /// What the front end derives from it ([`Derived`]).
    pub entry: E,
    /// Whether its frontmatter uses a Golden Path field (`args`, `tool_name`).
    pub golden_path: bool,
    /// How many findings the audit of its current revision has (none when it was not audited).
    pub audit_findings: usize,
    /// Whether a call asks the user for the optional arguments it left out, where the server
    /// asks for them (`metadata: {elicit: optional}`).
    pub asks_optional: bool,
    /// Its vector for ranking by meaning beside the search: empty without a model
    /// ([`crate::meaning`]).
    pub(crate) vector: Vec<f32>,
}

/// The package a member skill belongs to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Membership {
    /// The package's name.
    pub package: String,
    /// The package's documentation pages the agent should read that the package holds, by
    /// path, in the manifest's order.
    pub docs: Vec<String>,
}

impl<E: Derived> CatalogSkill<E> {
    /// The catalog's view of a skill: its frontmatter parsed for its fields and arguments,
    /// and nothing of the parse kept but those; a package's, its manifest.
    fn new(metadata: SkillMetadata, meaning: &Meaning) -> CatalogSkill<E> {
        if metadata.kind == Kind::Package {
            return CatalogSkill::package(metadata, meaning);
        }
        let SkillMetadata {
            name,
            description,
            revision,
            content_hash,
            provenance,
            updated_at,
            skill_md,
            frontmatter,
            files,
            audit,
            ..
        } = metadata;
        let parsed = skill_md::parse("SKILL.md".into(), frontmatter, Mode::Lenient);
        let (golden, _) = GoldenSkill::read(&parsed);
        let args = arguments_of(&parsed);
        // A tool is named as the skill is within its namespace (`@team-a/deploy`'s is `deploy`).
        let tool_name = golden.tool_name_or(name_of_key(&name)).to_owned();
        let entry = E::skill(&name, &parsed, &skill_md, &files, audit.as_ref());
        let golden_path = skillpath_core::golden_path::FIELDS
            .iter()
            .any(|field| parsed.field(field).is_some());
        let vector = meaning.embed_skill(&name, &description);
        CatalogSkill {
            kind: Kind::Skill,
            name,
            description,
            revision,
            content_hash,
            provenance,
            updated_at,
            tool_name,
            args,
            package: None,
            manifest: None,
            skill_md,
            files,
            entry,
            golden_path,
            audit_findings: audit.map_or(0, |audit| audit.findings.len()),
            asks_optional: skillpath_core::golden_path::ask::asks_optional(&parsed),
            vector,
        }
    }

    /// The catalog's view of a package: its manifest read from its frontmatter. A package has
    /// no tool, prompt or Skills-extension entry of its own: its members have.
    fn package(metadata: SkillMetadata, meaning: &Meaning) -> CatalogSkill<E> {
        let SkillMetadata {
            name,
            description,
            revision,
            content_hash,
            provenance,
            updated_at,
            skill_md,
            frontmatter,
            files,
            audit,
            ..
        } = metadata;
        let (_, manifest, _) = package::read_manifest(package::MANIFEST.into(), frontmatter);
        CatalogSkill {
            vector: meaning.embed_skill(&name, &description),
            kind: Kind::Package,
            tool_name: name_of_key(&name).to_owned(),
            entry: E::package(&name),
            name,
            description,
            revision,
            content_hash,
            provenance,
            updated_at,
            args: Vec::new(),
            package: None,
            manifest: manifest.map(Arc::new),
            skill_md,
            files,
            golden_path: false,
            audit_findings: audit.map_or(0, |audit| audit.findings.len()),
            asks_optional: false,
        }
    }

    /// The skill as a member of `package` (a package in the catalog): the package's options
    /// added to its arguments (but one sharing a placeholder with an argument, which
    /// `validate` reports), and the package's documentation pages to read.
    fn member_of(mut self, package: &CatalogSkill<E>) -> CatalogSkill<E> {
        if let Some(manifest) = &package.manifest {
            package::add_options(&mut self.args, &manifest.options);
            self.package = Some(Membership {
                package: package.name.clone(),
                docs: package.doc_paths(),
            });
        }
        self
    }
}

impl<E> CatalogSkill<E> {
    /// A package's documentation pages that it holds, by path, in its manifest's order.
    pub fn doc_paths(&self) -> Vec<String> {
        self.manifest.as_ref().map_or_else(Vec::new, |manifest| {
            manifest
                .docs
                .iter()
                .filter(|page| self.file(page).is_some())
                .cloned()
                .collect()
        })
    }

    /// `SKILL.md` (a package's `PACKAGE.md`) or the file at `path`.
    pub fn file(&self, path: &str) -> Option<&FileMetadata> {
        if path == self.skill_md.path {
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

/// Every live skill, by name, with the tool-name table; and every live package; each with
/// what the front end derives from it (`E`).
#[derive(Debug)]
pub struct Catalog<E = ()> {
    skills: BTreeMap<String, Arc<CatalogSkill<E>>>,
    tools: BTreeMap<String, Arc<CatalogSkill<E>>>,
    packages: BTreeMap<String, Arc<CatalogSkill<E>>>,
    /// Tool-name collisions and how they were resolved.
    pub collisions: Vec<Collision>,
    /// The model every skill's vector was made with, if any.
    meaning: Meaning,
    /// How many times each skill was used (every kind of use, all time), by name, as the
    /// store counted when the catalog was read: what the MCP server's instructions choose the
    /// skills they name by.
    uses: HashMap<String, u64>,
    /// The directory (people, namespaces, who sees each item) and everyone's stars, read with
    /// the catalog: what each caller's view of it is cut by ([`Catalog::view`]).
    people: Arc<People>,
    /// Which revision of each item it holds ([`Channel`]).
    channel: Channel,
}

/// Which part of the catalog a caller gets ([`Catalog::view`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum View {
    /// What their agents are served: tools, prompts, resources, `skills/list`, the
    /// instructions ([`Sight::serves`]).
    Served,
    /// What they may find: every item they list, starred or not ([`Sight::lists`]): the
    /// well-known index, the studio's catalog.
    Listed,
}

/// The directory and the stars, as a catalog was read with them.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct People {
    /// People, namespaces, members, access.
    pub directory: Directory,
    /// Everyone's stars.
    pub stars: Vec<Star>,
}

impl People {
    /// Both, read from `store`.
    pub async fn read(store: &dyn Store) -> StoreResult<People> {
        Ok(People {
            directory: store.directory().await?,
            stars: store.stars(None).await?,
        })
    }
}

/// An empty catalog: what a search without a model ranks through (it needs nothing of it).
impl<E> Default for Catalog<E> {
    fn default() -> Self {
        Catalog {
            skills: BTreeMap::new(),
            tools: BTreeMap::new(),
            packages: BTreeMap::new(),
            collisions: Vec::new(),
            meaning: Meaning::default(),
            uses: HashMap::new(),
            people: Arc::default(),
            channel: Channel::default(),
        }
    }
}

impl<E: Derived> Catalog<E> {
    /// Reads every live skill from `store` and gives each its tool by the collision rule. The
    /// frontmatters are parsed on every core, off the async runtime's threads: at 10,000 skills
    /// parsing is most of what a start from the store costs.
    pub async fn load(
        store: &dyn Store,
        meaning: &Meaning,
        channel: &Channel,
    ) -> StoreResult<Catalog<E>> {
        let mut metadata = store.current_metadata().await?;
        let uses = uses(store).await?;
        let people = Arc::new(People::read(store).await?);
        // The items the channel serves at another revision than their current one (a release
        // behind it), read one by one: few, next to the catalog.
        for item in &mut metadata {
            let served = channel.revision_of(&item.name, item.revision, &people.directory);
            if served != item.revision {
                *item = SkillMetadata::of(&store.get(&item.name, Some(served)).await?);
            }
        }
        let meaning = meaning.clone();
        let channel = channel.clone();
        let parse = move || -> Catalog<E> {
            let (packages, skills): (Vec<CatalogSkill<E>>, Vec<CatalogSkill<E>>) = metadata
                .into_par_iter()
                .map(|metadata| CatalogSkill::new(metadata, &meaning))
                .partition(|item| item.kind == Kind::Package);
            let packages: BTreeMap<String, Arc<CatalogSkill<E>>> = packages
                .into_iter()
                .map(|package| (package.name.clone(), Arc::new(package)))
                .collect();
            let members = members(&packages);
            let skills = skills
                .into_iter()
                .map(|skill| {
                    let skill = joined(skill, &members, &packages);
                    (skill.name.clone(), Arc::new(skill))
                })
                .collect();
            Catalog::of(skills, packages, meaning, uses, people, channel)
        };
        tokio::task::spawn_blocking(parse)
            .await
            .map_err(|error| StoreError::database(format!("reading the catalog failed: {error}")))
    }

    /// The catalog after what changed in `store` since this one was loaded, or `None` when
    /// nothing did. Skills still at the same revision are kept as they are (a revision never
    /// changes), so a write reads and parses one skill rather than the whole catalog; after a
    /// change to many skills (an import) everything is read in one query instead, which is
    /// faster than one query per skill.
    pub async fn reloaded(&self, store: &dyn Store) -> StoreResult<Option<Catalog<E>>> {
        self.reloaded_at(store, &self.channel.clone()).await
    }

    /// [`Catalog::reloaded`], at `channel`: the catalog that serves each item as `channel`
    /// says, keeping every skill this one holds at the revision the channel serves; `None`
    /// when nothing changed and the channel is this one's.
    pub async fn reloaded_at(
        &self,
        store: &dyn Store,
        channel: &Channel,
    ) -> StoreResult<Option<Catalog<E>>> {
        let people = People::read(store).await?;
        let revisions: Vec<(String, u64)> = store
            .current_revisions()
            .await?
            .into_iter()
            .map(|(name, current)| {
                let served = channel.revision_of(&name, current, &people.directory);
                (name, served)
            })
            .collect();
        let people = if people == *self.people {
            Arc::clone(&self.people)
        } else {
            Arc::new(people)
        };
        let kept = |name: &str, revision: u64| {
            self.skills
                .get(name)
                .or_else(|| self.packages.get(name))
                .filter(|skill| skill.revision == revision)
        };
        let changed = revisions
            .iter()
            .filter(|(name, revision)| kept(name, *revision).is_none())
            .count();
        let same_people = Arc::ptr_eq(&people, &self.people);
        if changed == 0 && revisions.len() == self.skills.len() + self.packages.len() {
            if same_people && *channel == self.channel {
                return Ok(None);
            }
            return Ok(Some(Catalog::of(
                self.skills.clone(),
                self.packages.clone(),
                self.meaning.clone(),
                self.uses.clone(),
                people,
                channel.clone(),
            )));
        }
        let listed: HashSet<&str> = revisions.iter().map(|(name, _)| name.as_str()).collect();
        let package_gone = self
            .packages
            .keys()
            .any(|name| !listed.contains(name.as_str()));
        if changed > READ_ONE_BY_ONE_AT_MOST || package_gone {
            return Catalog::load(store, &self.meaning, channel).await.map(Some);
        }
        let members = members(&self.packages);
        let mut skills = BTreeMap::new();
        for (name, revision) in revisions {
            let skill = match kept(&name, revision) {
                Some(skill) if skill.kind == Kind::Package => continue,
                Some(skill) => Arc::clone(skill),
                // The revision listed, not the current one: the catalog stays one moment's view
                // even if the skill changes again meanwhile (the next reload catches that).
                None => {
                    let stored = store.get(&name, Some(revision)).await?;
                    if stored.snapshot.kind == Kind::Package {
                        // A package's members follow it: everything is read again.
                        return Catalog::load(store, &self.meaning, channel).await.map(Some);
                    }
                    let skill = CatalogSkill::new(SkillMetadata::of(&stored), &self.meaning);
                    Arc::new(joined(skill, &members, &self.packages))
                }
            };
            skills.insert(name, skill);
        }
        Ok(Some(Catalog::of(
            skills,
            self.packages.clone(),
            self.meaning.clone(),
            uses(store).await?,
            people,
            channel.clone(),
        )))
    }

    /// A catalog of `skills` and `packages`, each skill given its tool by the collision rule.
    fn of(
        skills: BTreeMap<String, Arc<CatalogSkill<E>>>,
        packages: BTreeMap<String, Arc<CatalogSkill<E>>>,
        meaning: Meaning,
        uses: HashMap<String, u64>,
        people: Arc<People>,
        channel: Channel,
    ) -> Catalog<E> {
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
            packages,
            collisions: resolution.collisions,
            meaning,
            uses,
            people,
            channel,
        }
    }

    /// The part of this catalog `sight` gets as `view` says: each skill given its tool by the
    /// collision rule among them alone, so that a skill another caller cannot see never takes
    /// a tool name from this one's.
    pub fn view(&self, sight: &Sight, view: View) -> Catalog<E> {
        let directory = &self.people.directory;
        let kept = |key: &str| match view {
            View::Served => sight.serves(key, directory),
            View::Listed => sight.lists(key, directory),
        };
        let served = |items: &BTreeMap<String, Arc<CatalogSkill<E>>>| {
            items
                .iter()
                .filter(|(key, _)| kept(key))
                .map(|(key, item)| (key.clone(), Arc::clone(item)))
                .collect()
        };
        Catalog::of(
            served(&self.skills),
            served(&self.packages),
            self.meaning.clone(),
            self.uses.clone(),
            Arc::clone(&self.people),
            self.channel.clone(),
        )
    }
}

impl<E> Catalog<E> {
    /// The skills and packages that match `query`, best first, at most `limit`: the store's
    /// search, fused with the skills nearest by meaning when the catalog has a model
    /// ([`crate::meaning`]). `search_skills`, the studio, `skillpath search` and `skillpath eval
    /// triggers` all rank
    /// through here. A hit only the model found comes from the catalog, without a snippet or a
    /// score.
    pub async fn search(
        &self,
        store: &dyn Store,
        query: &str,
        limit: usize,
    ) -> StoreResult<Vec<SearchHit>> {
        let hits = store.search(query, self.meaning.pool(limit)).await?;
        let vectors = self
            .skills
            .values()
            .chain(self.packages.values())
            .map(|skill| (skill.name.as_str(), skill.vector.as_slice()));
        let Some(ranked) = self.meaning.rank(query, &hits, vectors) else {
            return Ok(hits);
        };
        let mut found: HashMap<String, SearchHit> = hits
            .into_iter()
            .map(|hit| (hit.name.clone(), hit))
            .collect();
        Ok(ranked
            .into_iter()
            .filter_map(|name| {
                found.remove(&name).or_else(|| {
                    let skill = self.item(&name)?;
                    Some(SearchHit {
                        kind: skill.kind,
                        name,
                        description: skill.description.clone(),
                        snippet: String::new(),
                        score: 0.0,
                    })
                })
            })
            .take(limit)
            .collect())
    }

    /// The directory and the stars the catalog was read with.
    pub fn people(&self) -> &People {
        &self.people
    }

    /// [`Catalog::people`], shared.
    pub fn people_shared(&self) -> Arc<People> {
        Arc::clone(&self.people)
    }

    /// How many people starred the item kept under `key`.
    pub fn stars_of(&self, key: &str) -> usize {
        self.people
            .stars
            .iter()
            .filter(|star| star.key == key)
            .count()
    }

    /// The package named `name`.
    pub fn package(&self, name: &str) -> Option<&Arc<CatalogSkill<E>>> {
        self.packages.get(name)
    }

    /// Every package, in name order.
    pub fn packages(&self) -> impl Iterator<Item = &Arc<CatalogSkill<E>>> {
        self.packages.values()
    }

    /// The skill named `name`.
    pub fn skill(&self, name: &str) -> Option<&Arc<CatalogSkill<E>>> {
        self.skills.get(name)
    }

    /// The skill or the package named `name` (the store gives both kinds one namespace).
    pub fn item(&self, name: &str) -> Option<&Arc<CatalogSkill<E>>> {
        self.skills.get(name).or_else(|| self.packages.get(name))
    }

    /// The skill whose tool is `tool_name`.
    pub fn tool(&self, tool_name: &str) -> Option<&Arc<CatalogSkill<E>>> {
        self.tools.get(tool_name)
    }

    /// Every skill, in name order.
    pub fn skills(&self) -> impl Iterator<Item = &Arc<CatalogSkill<E>>> {
        self.skills.values()
    }

    /// Every skill tool, in tool-name order.
    pub fn tools(&self) -> impl Iterator<Item = (&String, &Arc<CatalogSkill<E>>)> {
        self.tools.iter()
    }

    /// How many times the skill `name` was used, as the store counted when the catalog was
    /// read.
    pub fn uses(&self, name: &str) -> u64 {
        self.uses.get(name).copied().unwrap_or(0)
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

/// How many times each skill was used, every kind of use summed, by name.
async fn uses(store: &dyn Store) -> StoreResult<HashMap<String, u64>> {
    Ok(store
        .usage(UsageQuery::default())
        .await?
        .into_iter()
        .map(|row| (row.skill, row.calls + row.loads + row.prompts + row.reads))
        .collect())
}

/// Which package each member skill belongs to, by the skill's name (a skill is a member of at
/// most one package: the store keeps that).
fn members<E>(packages: &BTreeMap<String, Arc<CatalogSkill<E>>>) -> HashMap<String, String> {
    packages
        .values()
        .filter_map(|package| Some((package, package.manifest.as_ref()?)))
        .flat_map(|(package, manifest)| {
            // A package's members are the items of those names in its namespace.
            let namespace = namespace_of_key(&package.name);
            manifest.member_names().into_iter().map(move |member| {
                (
                    FullName::new(namespace.clone(), member).key(),
                    package.name.clone(),
                )
            })
        })
        .collect()
}

/// `skill`, as the member of its package when it has one.
fn joined<E: Derived>(
    skill: CatalogSkill<E>,
    members: &HashMap<String, String>,
    packages: &BTreeMap<String, Arc<CatalogSkill<E>>>,
) -> CatalogSkill<E> {
    match members.get(&skill.name).and_then(|name| packages.get(name)) {
        Some(package) => skill.member_of(package),
        None => skill,
    }
}

/// The arguments a parsed `SKILL.md` declares: its Golden Path `args`; for a plain skill written
/// for Claude Code, its free-form text (and named words), so every client offers it as a slash
/// command. What a skill's tool takes, and what a release must not break ([`crate::ops`]).
pub(crate) fn arguments_of(parsed: &SkillMd) -> Vec<Arg> {
    ClaudeArgs::read(parsed)
        .map_or_else(|| GoldenSkill::read(parsed).0.args, |claude| claude.args())
}

#[cfg(test)]
mod tests {
    use skillpath_model::{Change, Provenance, SkillSnapshot};
    use skillpath_store::SqliteStore;

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
        let before = Catalog::<()>::load(&store, &Meaning::default(), &Channel::Head)
            .await
            .expect("load");
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
        let fresh = Catalog::<()>::load(&store, &Meaning::default(), &Channel::Head)
            .await
            .expect("load");
        let view = |catalog: &Catalog<()>| -> Vec<(String, u64, String)> {
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
        let catalog = Catalog::<()>::load(&store, &Meaning::default(), &Channel::Head)
            .await
            .expect("load");
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
