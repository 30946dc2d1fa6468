//! A skill's files saved as they were edited (the studio's editor), which no MCP tool takes:
//! the authoring tools take structured data.

use skillpath_core::validate::loading;
use skillpath_core::{Mode, Severity, skill_md};
use skillpath_model::{Change, Kind, SkillSnapshot};

use crate::app::App;
use crate::catalog::Derived;
use crate::error::AppError;
use crate::ops::Written;
use crate::rules::{Operation, Permit};
use skillpath_model::{name_of_key, namespace_of_key};

impl<E: Derived> App<E> {
    /// Writes `snapshot` as the skill `name`'s next revision, made from revision `expected`,
    /// as `caller`: an author's key on a server that reviews saves it as their draft. Refused
    /// like an update (role, read-only, the audit policy), when the skill's `SKILL.md` cannot
    /// be loaded (what `import` would skip), and as [`skillpath_store::StoreError::StaleRevision`]
    /// when the skill moved on: nothing of either change is lost, the caller merges and saves
    /// again.
    pub async fn save_files(
        &self,
        permit: &Permit,
        name: &str,
        expected: u64,
        snapshot: SkillSnapshot,
        message: String,
    ) -> Result<Written, AppError> {
        let caller = self.permitted(permit, Operation::SaveFiles)?;
        unloadable(&snapshot, name_of_key(name))?;
        if self.item_gate(caller, name).await? {
            let draft = (snapshot, expected, None);
            let namespace = namespace_of_key(name);
            return Ok(Written::Drafted(
                self.save_draft(caller, draft, namespace, message).await?,
            ));
        }
        let change = Change {
            author: caller.author(),
            message,
        };
        let stored = self
            .store()
            .update(name, expected, snapshot, change)
            .await?;
        self.refresh().await?;
        Ok(Written::Stored(stored))
    }
}

/// Why `snapshot` cannot be stored as the skill `name`: the errors of the rules a loader needs
/// (`validate::loading`), which `import` and `serve` would skip it for, each with its line. A
/// package's manifest is the store's to check.
fn unloadable(snapshot: &SkillSnapshot, name: &str) -> Result<(), AppError> {
    if snapshot.kind != Kind::Skill {
        return Ok(());
    }
    let parsed = skill_md::parse("SKILL.md".into(), snapshot.skill_md.clone(), Mode::Lenient);
    let errors: Vec<String> = loading(&parsed, Some(name))
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .map(|d| {
            let line = d
                .location
                .as_ref()
                .map(|l| format!(" (line {})", l.start.line))
                .unwrap_or_default();
            format!("{}: {}{line}", d.code, d.message)
        })
        .collect();
    match errors.is_empty() {
        true => Ok(()),
        false => Err(AppError::Unloadable(errors)),
    }
}
