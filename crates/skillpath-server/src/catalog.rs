//! The server's in-memory view of the store: every live skill parsed once, by name and by tool
//! name, rebuilt whenever the store changes.
//!
//! Tool-name collisions are resolved by one rule: a built-in tool keeps its name; among skills
//! that want one tool name, the skill whose `name` is that tool name wins, otherwise the first
//! by name. A skill that loses has no tool (it stays reachable through `load_skill`, its
//! resources and its prompt) and is listed in [`Catalog::collisions`].

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use skillpath_core::Mode;
use skillpath_core::golden_path::GoldenSkill;
use skillpath_core::skill_md::{self, SkillMd};
use skillpath_store::{ListFilter, Store, StoreResult, StoredSkill};

/// One live skill, parsed.
#[derive(Debug)]
pub struct CatalogSkill {
    /// As stored.
    pub stored: StoredSkill,
    /// Its `SKILL.md`, parsed leniently.
    pub skill_md: SkillMd,
    /// Its Golden Path view (arguments, structure).
    pub golden: GoldenSkill,
    /// The tool name it asks for: `tool_name`, else `name`.
    pub tool_name: String,
}

impl CatalogSkill {
    fn new(stored: StoredSkill) -> CatalogSkill {
        let skill_md = skill_md::parse(
            "SKILL.md".into(),
            stored.snapshot.skill_md.clone(),
            Mode::Lenient,
        );
        let (golden, _) = GoldenSkill::read(&skill_md);
        let tool_name = golden
            .tool_name
            .clone()
            .unwrap_or_else(|| stored.name.clone());
        CatalogSkill {
            stored,
            skill_md,
            golden,
            tool_name,
        }
    }

    /// The skill's files by relative path, for rendering its templates.
    pub fn files(&self) -> HashMap<&str, &[u8]> {
        self.stored
            .snapshot
            .files
            .iter()
            .map(|f| (f.path.as_str(), f.bytes.as_slice()))
            .collect()
    }
}

/// A tool name wanted by more than one skill (or by a skill and a built-in tool).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Collision {
    /// The tool name.
    pub tool_name: String,
    /// The skill that has it (`None` when a built-in tool has it).
    pub winner: Option<String>,
    /// The skill that does not get it.
    pub loser: String,
}

/// Every live skill, by name, with the tool-name table.
#[derive(Debug, Default)]
pub struct Catalog {
    skills: BTreeMap<String, Arc<CatalogSkill>>,
    tools: BTreeMap<String, Arc<CatalogSkill>>,
    /// Tool-name collisions and how they were resolved.
    pub collisions: Vec<Collision>,
}

impl Catalog {
    /// Reads every live skill from `store`. `builtin` are the names of built-in tools.
    pub async fn load(store: &dyn Store, builtin: &[&str]) -> StoreResult<Catalog> {
        let mut skills = BTreeMap::new();
        let mut cursor = None;
        loop {
            let page = store.list(ListFilter::default(), cursor, 500).await?;
            for summary in page.items {
                let stored = store.get(&summary.name, None).await?;
                skills.insert(summary.name, Arc::new(CatalogSkill::new(stored)));
            }
            match page.next_cursor {
                Some(next) => cursor = Some(next),
                None => break,
            }
        }
        let mut tools: BTreeMap<String, Arc<CatalogSkill>> = BTreeMap::new();
        let mut collisions = Vec::new();
        for skill in skills.values() {
            let wanted = skill.tool_name.clone();
            if builtin.contains(&wanted.as_str()) {
                collisions.push(Collision {
                    tool_name: wanted,
                    winner: None,
                    loser: skill.stored.name.clone(),
                });
                continue;
            }
            match tools.get(&wanted) {
                None => {
                    tools.insert(wanted, Arc::clone(skill));
                }
                Some(holder) => {
                    // The skill named like the tool wins; otherwise the first by name keeps it.
                    let (winner, loser) = if skill.stored.name == wanted {
                        (Arc::clone(skill), Arc::clone(holder))
                    } else {
                        (Arc::clone(holder), Arc::clone(skill))
                    };
                    collisions.push(Collision {
                        tool_name: wanted.clone(),
                        winner: Some(winner.stored.name.clone()),
                        loser: loser.stored.name.clone(),
                    });
                    tools.insert(wanted, winner);
                }
            }
        }
        Ok(Catalog {
            skills,
            tools,
            collisions,
        })
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
