//! What the store reads of a skill's content, the same way for every backend: the snapshot
//! checked before any write, and the frontmatter fields kept in columns and the search index.

use crate::error::{StoreError, StoreResult};
use crate::model::SkillSnapshot;

/// What the store reads from a `SKILL.md`.
pub(crate) struct Meta {
    pub(crate) name: String,
    pub(crate) description: String,
    pub(crate) tool_name: Option<String>,
    pub(crate) body: String,
}

/// The snapshot as the store keeps it: files sorted, paths safe and unique. Checked on every
/// write, since a snapshot's fields are public and can be built without [`SkillSnapshot::new`].
pub(crate) fn checked(snapshot: SkillSnapshot) -> StoreResult<SkillSnapshot> {
    // PostgreSQL cannot store a NUL in text; both backends refuse it, so they hold the same skills.
    if snapshot.skill_md.contains('\0') {
        return Err(StoreError::InvalidSkill(
            "the `SKILL.md` contains a NUL character (U+0000), which cannot be stored; remove it"
                .to_owned(),
        ));
    }
    SkillSnapshot::new(snapshot.skill_md, snapshot.files)
}

/// The name, description, `tool_name` and body of the snapshot's `SKILL.md`; refused when it
/// has no readable name, since a skill's name is its identity in the store.
pub(crate) fn meta(snapshot: &SkillSnapshot) -> StoreResult<Meta> {
    let skill = skillpath_core::skill_md::parse(
        "SKILL.md".into(),
        snapshot.skill_md.clone(),
        skillpath_core::Mode::Lenient,
    );
    let text = |key: &str| {
        skill
            .field(key)
            .and_then(|e| e.value.as_scalar())
            .map(|s| s.text.trim().to_owned())
    };
    let name = text("name")
        .filter(|name| !name.is_empty())
        .ok_or_else(|| {
            StoreError::InvalidSkill(
                "the `SKILL.md` has no readable `name`, so it cannot be stored".to_owned(),
            )
        })?;
    Ok(Meta {
        name,
        description: text("description").unwrap_or_default(),
        tool_name: text("tool_name"),
        body: skill.body().to_owned(),
    })
}
