//! A skill's content, read from the store when it is called, read, fetched or shown, and the
//! cache that keeps the hot ones: the catalog holds only metadata (see [`crate::catalog`]), so
//! a server's memory grows with the number of its skills, not with their bytes.
//!
//! The cache is keyed by name and revision, and a revision never changes once written: a store
//! that changes under it (another process, a replica) moves the catalog to a new revision, and
//! the old entry is simply never asked for again. It is bounded in bytes (a skill's `SKILL.md`
//! and files), evicting the least recently used; a skill larger than the whole cache is served
//! without being kept.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};

use skillpath_core::Mode;
use skillpath_core::golden_path::GoldenSkill;
use skillpath_core::skill_md::{self, SkillMd};
use skillpath_store::StoredSkill;

/// The default bound of the content cache: a laptop's share for a catalog's hot skills.
pub const DEFAULT_CONTENT_CACHE_BYTES: u64 = 64 * 1024 * 1024;

/// One revision of a skill with its files, parsed for rendering and editing.
#[derive(Debug)]
pub struct SkillContent {
    /// As stored.
    pub stored: StoredSkill,
    /// Its `SKILL.md`, parsed leniently.
    pub skill_md: SkillMd,
    /// Its Golden Path view (arguments, structure).
    pub golden: GoldenSkill,
}

impl SkillContent {
    pub fn new(stored: StoredSkill) -> SkillContent {
        let skill_md = skill_md::parse(
            "SKILL.md".into(),
            stored.snapshot.skill_md.clone(),
            Mode::Lenient,
        );
        let (golden, _) = GoldenSkill::read(&skill_md);
        SkillContent {
            stored,
            skill_md,
            golden,
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

    /// The bytes `path` holds: `SKILL.md` (a package's `PACKAGE.md`) or one of the files.
    pub fn bytes(&self, path: &str) -> Option<&[u8]> {
        if path == self.stored.snapshot.kind.manifest() {
            return Some(self.stored.snapshot.skill_md.as_bytes());
        }
        let file = self.stored.snapshot.files.iter().find(|f| f.path == path)?;
        Some(&file.bytes)
    }

    /// What the cache counts it as: the bytes of its `SKILL.md` and files.
    fn weight(&self) -> u64 {
        self.stored.snapshot.size()
    }
}

/// A cache key: a skill's name and revision.
type Key = (String, u64);

/// Skill contents by name and revision, at most `limit` bytes of them, least recently used
/// evicted first.
#[derive(Debug)]
pub(crate) struct ContentCache {
    limit: u64,
    entries: Mutex<Entries>,
}

#[derive(Debug, Default)]
struct Entries {
    by_key: HashMap<Key, (Arc<SkillContent>, u64)>,
    /// Each entry's last use (a counter) to its key: the first is the least recently used.
    by_use: BTreeMap<u64, Key>,
    /// The bytes held.
    held: u64,
    /// The counter of uses.
    uses: u64,
}

impl ContentCache {
    pub(crate) fn new(limit: u64) -> ContentCache {
        ContentCache {
            limit,
            entries: Mutex::default(),
        }
    }

    /// Revision `revision` of `name`, if cached (it becomes the most recently used).
    pub(crate) fn get(&self, name: &str, revision: u64) -> Option<Arc<SkillContent>> {
        let mut entries = self.entries.lock().ok()?;
        let entries = &mut *entries;
        entries.uses += 1;
        let key = (name.to_owned(), revision);
        let (content, used) = entries.by_key.get_mut(&key)?;
        entries.by_use.remove(used);
        *used = entries.uses;
        entries.by_use.insert(entries.uses, key);
        Some(Arc::clone(content))
    }

    /// Keeps `content`, evicting the least recently used until it fits; content larger than
    /// the whole cache is not kept (it is served all the same).
    pub(crate) fn insert(&self, content: &Arc<SkillContent>) {
        let weight = content.weight();
        if weight > self.limit {
            return;
        }
        let Ok(mut entries) = self.entries.lock() else {
            return;
        };
        let entries = &mut *entries;
        let key = (content.stored.name.clone(), content.stored.revision);
        if entries.by_key.contains_key(&key) {
            return;
        }
        while entries.held + weight > self.limit {
            let Some((_, oldest)) = entries.by_use.pop_first() else {
                break;
            };
            if let Some((evicted, _)) = entries.by_key.remove(&oldest) {
                entries.held -= evicted.weight();
            }
        }
        entries.uses += 1;
        entries.by_use.insert(entries.uses, key.clone());
        entries
            .by_key
            .insert(key, (Arc::clone(content), entries.uses));
        entries.held += weight;
    }

    /// The bytes held now.
    #[cfg(test)]
    fn held(&self) -> u64 {
        self.entries.lock().map_or(0, |entries| entries.held)
    }
}

#[cfg(test)]
mod tests {
    use skillpath_model::{Provenance, SkillFile, SkillSnapshot};

    use super::*;

    fn content(name: &str, revision: u64, file_bytes: usize) -> Arc<SkillContent> {
        let text = format!("---\nname: {name}\ndescription: Use when testing.\n---\n");
        let files = vec![SkillFile {
            path: "data.txt".into(),
            bytes: vec![b'x'; file_bytes],
        }];
        let snapshot = SkillSnapshot::new(text, files).expect("a snapshot");
        Arc::new(SkillContent::new(StoredSkill {
            name: name.into(),
            description: "Use when testing.".into(),
            tool_name: None,
            revision,
            deleted: false,
            content_hash: snapshot.content_hash(),
            provenance: Provenance::Api,
            updated_at: String::new(),
            snapshot,
            audit: None,
        }))
    }

    /// The cache never holds more than its bound, evicts the least recently used first, keeps
    /// revisions apart, and does not keep content larger than itself.
    #[test]
    fn the_cache_stays_within_its_bytes() {
        let one = content("a", 1, 400).weight();
        let cache = ContentCache::new(3 * one);
        for (name, revision) in [("a", 1), ("b", 1), ("c", 1)] {
            cache.insert(&content(name, revision, 400));
            assert!(cache.held() <= 3 * one);
        }
        assert!(cache.get("a", 1).is_some(), "a is now the most recent");
        cache.insert(&content("a", 2, 400));
        assert_eq!(cache.held(), 3 * one);
        assert!(cache.get("b", 1).is_none(), "b was the least recently used");
        assert!(cache.get("a", 1).is_some() && cache.get("a", 2).is_some());
        assert!(cache.get("c", 1).is_some());

        let huge = content("huge", 1, 4 * one as usize);
        assert!(huge.weight() > 3 * one);
        cache.insert(&huge);
        assert!(
            cache.get("huge", 1).is_none(),
            "larger than the cache: not kept"
        );
        assert_eq!(cache.held(), 3 * one, "and nothing evicted for it");

        for index in 0..1000 {
            cache.insert(&content(&format!("s{index}"), 1, 100 + index % 700));
            assert!(cache.held() <= 3 * one);
        }
    }
}
