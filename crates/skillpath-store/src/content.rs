//! What the store reads of a skill's content, the same way for every backend: the snapshot
//! checked before any write, and the frontmatter fields kept in columns and the search index.

use crate::error::{StoreError, StoreResult};
use skillpath_model::{Kind, SkillSnapshot};

/// What the store reads from a manifest (a `SKILL.md`, or a package's `PACKAGE.md`).
pub(crate) struct Meta {
    pub(crate) name: String,
    pub(crate) description: String,
    pub(crate) tool_name: Option<String>,
    pub(crate) body: String,
    /// A package's member skills, by name ([`skillpath_core::package::Package::member_names`]);
    /// empty for a skill.
    pub(crate) members: Vec<String>,
}

/// The snapshot as the store keeps it: files sorted, paths safe and unique, and a name that
/// can be a folder's (core's [`check_folder_name`](skillpath_core::validate::check_folder_name):
/// `sync` and `export` write a skill into a folder of its name). Checked on every write of new
/// content, since a snapshot's fields are public and can be built without
/// [`SkillSnapshot::new`]. A deletion, a restore and a rollback write content the store already
/// held, unchecked, so a skill an older skillpath stored under such a name can still be deleted.
pub(crate) fn checked(snapshot: SkillSnapshot) -> StoreResult<SkillSnapshot> {
    checked_named(snapshot).map(|(snapshot, _)| snapshot)
}

/// [`checked`], with the snapshot's name (read once).
pub(crate) fn checked_named(snapshot: SkillSnapshot) -> StoreResult<(SkillSnapshot, String)> {
    // PostgreSQL cannot store a NUL in text; both backends refuse it, so they hold the same skills.
    if snapshot.skill_md.contains('\0') {
        return Err(StoreError::InvalidSkill(format!(
            "the `{}` contains a NUL character (U+0000), which cannot be stored; remove it",
            snapshot.kind.manifest()
        )));
    }
    let name = meta(&snapshot)?.name;
    if let Err(problem) = skillpath_core::validate::check_folder_name(&name) {
        return Err(StoreError::InvalidSkill(format!(
            "cannot store the skill: {problem}; a skill is installed and exported as a folder of its name (use lowercase letters, digits and hyphens)"
        )));
    }
    let snapshot = SkillSnapshot::of_kind(snapshot.kind, snapshot.skill_md, snapshot.files)?;
    Ok((snapshot, name))
}

/// The name, description, `tool_name` and body of the snapshot's `SKILL.md`; refused when it
/// has no readable name, since a skill's name is its identity in the store. A package's is
/// read by [`package_meta`].
pub(crate) fn meta(snapshot: &SkillSnapshot) -> StoreResult<Meta> {
    if snapshot.kind == Kind::Package {
        return package_meta(snapshot);
    }
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
        members: Vec::new(),
    })
}

/// What the store reads from a package's `PACKAGE.md`: its name (kebab-case, as the manifest's
/// rules ask), description, overview and member skills, which must have distinct names, since
/// the store knows a member by its name. The rest of the manifest's rules are `validate`'s.
fn package_meta(snapshot: &SkillSnapshot) -> StoreResult<Meta> {
    let (manifest, package, diagnostics) = skillpath_core::package::read_manifest(
        skillpath_core::package::MANIFEST.into(),
        snapshot.skill_md.clone(),
    );
    let Some(package) = package else {
        let why = diagnostics
            .first()
            .map_or("it has no frontmatter".to_owned(), |d| d.message.clone());
        return Err(StoreError::InvalidSkill(format!(
            "the `PACKAGE.md` cannot be stored: {why}"
        )));
    };
    let members = package.member_names();
    for (index, member) in members.iter().enumerate() {
        if members[..index].contains(member) {
            return Err(StoreError::InvalidSkill(format!(
                "package `{}` lists the member skill `{member}` twice (a member is known by its folder's last part); list each skill once",
                package.name
            )));
        }
    }
    Ok(Meta {
        name: package.name,
        description: package.description,
        tool_name: None,
        body: manifest.body().to_owned(),
        members,
    })
}

/// New content for `name` must be of its kind: a skill stays a skill, a package a package.
pub(crate) fn check_keeps_kind(name: &str, stored: Kind, new: Kind) -> StoreResult<()> {
    if stored != new {
        return Err(StoreError::InvalidSkill(format!(
            "`{name}` is a {} in the store, and the new content is a {}'s (its manifest is `{}`); an item keeps its kind: give the {} another name",
            stored.as_str(),
            new.as_str(),
            new.manifest(),
            new.as_str()
        )));
    }
    Ok(())
}
