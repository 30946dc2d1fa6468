//! `update_skill`'s merge: the fields a caller changes, merged into the revision they read (or
//! into their own draft made on it), and written as an update.

use std::sync::Arc;

use skillpath_core::golden_path::spec::SkillSpec;
use skillpath_store::StoreError;

use crate::app::App;
use crate::caller::Caller;
use crate::catalog::Derived;
use crate::content::SkillContent;
use crate::error::AppError;
use crate::ops::{Created, read_spec};
use crate::rules::{Operation, Permit};
use skillpath_model::name_of_key;

impl<E: Derived> App<E> {
    /// The skill `name` with the structured `fields` given replacing its own, merged into
    /// revision `expected` (or, for a caller whose writes are drafted, into their own draft
    /// made on it), then written as [`App::update_skill`] writes.
    pub async fn update_fields(
        &self,
        permit: &Permit,
        name: &str,
        expected: u64,
        fields: serde_json::Map<String, serde_json::Value>,
    ) -> Result<Created, AppError> {
        let caller = self.permitted(permit, Operation::UpdateSkill)?;
        let draft = match self.item_gate(caller, name).await? {
            true => self.own_draft_base(caller, name, expected).await?,
            false => None,
        };
        let current = match draft {
            Some(draft) => draft,
            None => self.merge_base(name, expected).await?,
        };
        let files = current.files();
        let base = SkillSpec::from_skill(&current.skill_md, &current.golden, |path| {
            files
                .get(path)
                .and_then(|bytes| String::from_utf8(bytes.to_vec()).ok())
        })
        .map_err(|source| AppError::NotStructured {
            name: name.to_owned(),
            source,
        })?;
        let mut merged = serde_json::to_value(&base).map_err(AppError::SpecShape)?;
        if let Some(object) = merged.as_object_mut() {
            // The content names the skill as its namespace does (`deploy` of `@team-a/deploy`).
            object.insert(
                "name".to_owned(),
                serde_json::Value::from(name_of_key(name)),
            );
            object.extend(fields);
        }
        let spec = read_spec(merged)?;
        self.update_skill(permit, name, expected, &spec).await
    }

    /// The caller's own draft of `name`, when it was made on revision `expected`, as the
    /// content an update that writes a draft merges into: an author works on their draft, not
    /// on the published revision beneath it. `None` when they have no such draft.
    async fn own_draft_base(
        &self,
        caller: &Caller,
        name: &str,
        expected: u64,
    ) -> Result<Option<Arc<SkillContent>>, StoreError> {
        let Some(draft) = self.store().read_draft(name, &caller.author()).await? else {
            return Ok(None);
        };
        if draft.summary.base != expected {
            return Ok(None);
        }
        let mut stored = self.store().get(name, Some(expected)).await?;
        stored.snapshot = draft.snapshot;
        Ok(Some(Arc::new(SkillContent::new(stored))))
    }

    /// The skill an update merges the caller's fields into: revision `expected` itself, from
    /// the catalog when it holds that revision, else read from the store.
    ///
    /// The catalog can be behind the store: a write by another process (`skillpath import` on
    /// SQLite, which has no change signals; another replica on PostgreSQL until its catalog
    /// follows), or a concurrent call that has committed but not yet refreshed the catalog. A
    /// caller who read revision N from the store (`get_skill` reads it there) and updates with
    /// `expected_revision` N would otherwise have its fields merged into an older revision, and
    /// the write, accepted as made at revision N, would silently undo every change since that
    /// older one. When the store's current revision is not `expected` the update is refused as
    /// stale here, as the store would refuse it.
    async fn merge_base(&self, name: &str, expected: u64) -> Result<Arc<SkillContent>, StoreError> {
        let catalog = self.catalog();
        if let Some(skill) = catalog.skill(name)
            && skill.revision == expected
        {
            return self.content(skill).await;
        }
        let stored = self.store().get(name, None).await?;
        if stored.revision != expected {
            return Err(StoreError::StaleRevision {
                name: name.to_owned(),
                expected,
                actual: stored.revision,
            });
        }
        Ok(Arc::new(SkillContent::new(stored)))
    }
}
