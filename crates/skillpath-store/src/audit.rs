//! The audit of every skill on its way into the store: every write that makes content live
//! (a create, an update, a restore, a rollback, each skill of an import) is audited by
//! [`skillpath_audit`] with the names of the store's skills, kept with the revision it makes,
//! and refused when the store's [`Policy`] says so ([`StoreError::AuditRefused`]). A deletion
//! keeps the findings of the content it deletes and is never refused.

use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};

use rayon::prelude::*;
use skillpath_audit::{AuditRecord, Context, Policy};
use skillpath_core::bundle::SkillBundle;

use crate::error::{StoreError, StoreResult};
use skillpath_model::SkillSnapshot;

/// A policy and what the auditor knows of the store's skills: what a write is audited with.
#[derive(Debug, Clone, Default)]
pub(crate) struct Gate {
    policy: Policy,
    context: Context,
}

impl Gate {
    /// A gate of `policy` that knows the skills named `names`.
    pub(crate) fn new(policy: Policy, names: impl IntoIterator<Item = String>) -> Gate {
        let context = if policy.audits() {
            Context::new(names)
        } else {
            Context::default()
        };
        Gate { policy, context }
    }

    /// The audit of `snapshot`, the content of the skill `name`; `None` when the policy does
    /// not audit.
    pub(crate) fn audit(&self, name: &str, snapshot: &SkillSnapshot) -> Option<AuditRecord> {
        self.audit_bundle(&snapshot.to_bundle(name))
    }

    /// [`Gate::audit`] of a skill already made into a bundle.
    fn audit_bundle(&self, bundle: &SkillBundle) -> Option<AuditRecord> {
        self.policy
            .audits()
            .then(|| AuditRecord::of(&skillpath_audit::audit(bundle, &self.context)))
    }

    /// Audits `skills` (each with a number of the caller's) on other threads while the caller
    /// goes on, for a policy that refuses nothing: the findings are kept, but decide nothing,
    /// so a write need not wait for them. The audits take every core but one, which the
    /// writer has.
    pub(crate) fn audit_beside(self, skills: Vec<(usize, SkillBundle)>) -> StoreResult<Pending> {
        let cores = std::thread::available_parallelism().map_or(1, usize::from);
        std::thread::Builder::new()
            .name("skillpath-audit".to_owned())
            .spawn(move || {
                let audit = || -> Vec<(usize, AuditRecord)> {
                    skills
                        .par_iter()
                        .filter_map(|(number, bundle)| Some((*number, self.audit_bundle(bundle)?)))
                        .collect()
                };
                match rayon::ThreadPoolBuilder::new()
                    .num_threads(cores.saturating_sub(1).max(1))
                    .thread_name(|i| format!("skillpath-audit-{i}"))
                    .build()
                {
                    Ok(pool) => pool.install(audit),
                    // No pool of its own: the shared one.
                    Err(_) => audit(),
                }
            })
            .map(Pending)
            .map_err(|source| StoreError::Io {
                context: "cannot start the audit of the import".to_owned(),
                source,
            })
    }

    /// [`Gate::audit`], refused when the policy refuses its findings.
    pub(crate) fn admit(
        &self,
        name: &str,
        snapshot: &SkillSnapshot,
    ) -> StoreResult<Option<AuditRecord>> {
        let record = self.audit(name, snapshot);
        match record {
            Some(record) if self.refuses(&record) => Err(StoreError::AuditRefused {
                name: name.to_owned(),
                policy: self.policy,
                record,
            }),
            record => Ok(record),
        }
    }

    /// Whether the policy refuses a skill with `record`'s findings.
    pub(crate) fn refuses(&self, record: &AuditRecord) -> bool {
        !self.policy.refusing(record).is_empty()
    }

    pub(crate) fn policy(&self) -> Policy {
        self.policy
    }
}

/// Audits running beside a write ([`Gate::audit_beside`]).
pub(crate) struct Pending(std::thread::JoinHandle<Vec<(usize, AuditRecord)>>);

impl Pending {
    /// The audits, by the caller's numbers, once they are all done.
    pub(crate) fn wait(self) -> StoreResult<Vec<(usize, AuditRecord)>> {
        self.0
            .join()
            .map_err(|_| StoreError::database("the audit of the import failed".to_owned()))
    }
}

/// A store's [`Policy`], shared by the store's clones and set through `&self` (a server
/// holds its store shared before it knows every setting).
#[derive(Debug, Clone)]
pub(crate) struct PolicySetting(Arc<AtomicU8>);

impl Default for PolicySetting {
    fn default() -> Self {
        let setting = PolicySetting(Arc::new(AtomicU8::new(0)));
        setting.set(Policy::default());
        setting
    }
}

impl PolicySetting {
    pub(crate) fn get(&self) -> Policy {
        let index = usize::from(self.0.load(Ordering::Relaxed));
        Policy::ALL.get(index).copied().unwrap_or_default()
    }

    pub(crate) fn set(&self, policy: Policy) {
        let index = Policy::ALL.iter().position(|p| *p == policy).unwrap_or(0);
        // Fewer policies than a byte counts.
        self.0.store(index as u8, Ordering::Relaxed);
    }
}

/// How many skills the migration that keeps audits reads and audits at once.
pub(crate) const BACKFILL_BATCH: usize = 256;

/// The gate of the migration that keeps audits: every live skill's current revision, stored
/// before audits were kept, is audited with the names of all of them, and never refused.
pub(crate) fn backfill_gate(names: impl IntoIterator<Item = String>) -> Gate {
    Gate::new(Policy::Warn, names)
}

/// The audits of `skills` (row id, revision, name, content), all at once, each as stored.
pub(crate) fn backfill(
    gate: &Gate,
    skills: &[(i64, i64, String, SkillSnapshot)],
) -> Vec<(i64, i64, String)> {
    skills
        .par_iter()
        .filter_map(|(id, number, name, snapshot)| {
            let record = gate.audit(name, snapshot)?;
            Some((*id, *number, record.to_json()))
        })
        .collect()
}

/// An unreadable stored record (a newer skillpath's, or damaged) reads as none: the revision
/// is shown as not audited rather than refused to readers.
pub(crate) fn stored_record(text: Option<String>) -> Option<AuditRecord> {
    let text = text?;
    match AuditRecord::from_json(&text) {
        Ok(record) => Some(record),
        Err(why) => {
            tracing::warn!("{why}; the revision reads as not audited");
            None
        }
    }
}
