//! The [`Store`] trait: every operation on stored skills, for every backend.

use async_trait::async_trait;
use skillpath_audit::Policy;

use crate::answers::{
    ImportReport, ListFilter, Page, SearchHit, SkillMetadata, SkillSummary, StoredSkill,
};
use crate::audit::Gate;
use crate::content::checked;
use crate::cursor;
use crate::diff::unified_diff;
use crate::directory::{Directory, Governance, LogFilter, Star};
use crate::drafts::{self, Draft, DraftFilter, DraftRecord, DraftRef, DraftSummary, NewDraft};
use crate::error::{StoreError, StoreResult};
use crate::forks::{self, ForkRequest};
use crate::import;
use crate::keys::record::{KeyInfo, StoredKey};
use crate::usage::{UsageCount, UsageQuery, UsageRow};
use crate::writes::{Edit, WriteKind};
use skillpath_model::governance::Entry;
use skillpath_model::{
    Change, FolderImport, ImportItem, Kind, Namespace, Placement, Provenance, RecordedStamp,
    Revision, ShadowedSkill, SkillSnapshot,
};

pub use crate::cursor::Listing;
pub use crate::import::AUDIT_BESIDE_FROM;
pub use crate::import::Plan as ImportPlan;
pub use crate::writes::SkillWrite;

/// A place that keeps skills with their revisions. Every write takes the revision the writer
/// expects, so a stale write is refused instead of silently overwriting (optimistic
/// concurrency); every change is a new revision with who, when and why.
#[async_trait]
pub trait Store: Send + Sync {
    /// Runs writes of skills, made by the methods below, in one transaction, in order, by the
    /// rules of the store's `writes` module (a backend gives its primitives; the decisions are
    /// made there): all of them, or, when one is refused, none. The skills as written, in order.
    async fn write_all(&self, writes: Vec<SkillWrite>) -> StoreResult<Vec<StoredSkill>>;

    /// [`Store::write_all`] of one write.
    async fn write(&self, write: SkillWrite) -> StoreResult<StoredSkill> {
        self.write_all(vec![write])
            .await?
            .pop()
            .ok_or_else(|| crate::StoreError::database("a write gave no skill".to_owned()))
    }

    /// The policy every write is audited by (`crate::audit`): what is done with a skill
    /// whose content has findings. [`Policy::Warn`] unless set.
    fn audit_policy(&self) -> Policy;

    /// Sets [`Store::audit_policy`] for the writes that follow, by this store and its clones.
    fn set_audit_policy(&self, policy: Policy);

    /// Stores a new skill (revision 1) in `@global`, visible to its members. Refused when the
    /// name exists, even deleted.
    async fn create(
        &self,
        snapshot: SkillSnapshot,
        provenance: Provenance,
        change: Change,
    ) -> StoreResult<StoredSkill> {
        self.create_in(Placement::global(), snapshot, provenance, change)
            .await
    }

    /// Stores a new skill (revision 1) in `placement`'s namespace, with its visibility, owned
    /// by the change's author: kept under [`Placement::key`]. Refused when the namespace has
    /// an item of its name, even deleted. Whether the namespace takes writes is the
    /// application's to check ([`crate::directory`]).
    async fn create_in(
        &self,
        placement: Placement,
        snapshot: SkillSnapshot,
        provenance: Provenance,
        change: Change,
    ) -> StoreResult<StoredSkill> {
        let snapshot = checked(snapshot)?;
        let gate = audit_gate(self, []).await?;
        self.write(creation(
            snapshot, provenance, placement, change, gate, None,
        ))
        .await
    }

    /// Creates the skill `snapshot` as a member of the package `package`, at its revision
    /// `expected`, whose manifest lists it in the same transaction (at `skills/<name>`, the
    /// rest of the manifest kept byte for byte): both, or neither. The member joins the
    /// package's namespace, visible to its members. The skill and the package as written.
    async fn create_member(
        &self,
        snapshot: SkillSnapshot,
        provenance: Provenance,
        (package, expected): (&str, u64),
        change: Change,
    ) -> StoreResult<(StoredSkill, StoredSkill)> {
        let writes = member_writes(
            self,
            snapshot,
            provenance,
            (package, Some(expected)),
            change,
            None,
        )
        .await?;
        let mut written = self.write_all(writes).await?.into_iter();
        match (written.next(), written.next()) {
            (Some(created), Some(updated)) => Ok((created, updated)),
            _ => Err(crate::StoreError::database(
                "two writes gave fewer skills".to_owned(),
            )),
        }
    }

    /// New content for `name`, when its current revision is `expected`.
    async fn update(
        &self,
        name: &str,
        expected: u64,
        snapshot: SkillSnapshot,
        change: Change,
    ) -> StoreResult<StoredSkill> {
        let snapshot = checked(snapshot)?;
        let gate = audit_gate(self, []).await?;
        self.write(revise(name, expected, Edit::Update(snapshot), change, gate))
            .await
    }

    /// Deletes `name` (a revision that keeps the content in history), when at `expected`.
    async fn delete(&self, name: &str, expected: u64, change: Change) -> StoreResult<StoredSkill> {
        // A deletion is never refused, so it needs no gate.
        let gate = Gate::default();
        self.write(revise(name, expected, Edit::Delete, change, gate))
            .await
    }

    /// Brings a deleted skill back with the content it had, when at `expected`.
    async fn restore(&self, name: &str, expected: u64, change: Change) -> StoreResult<StoredSkill> {
        let gate = audit_gate(self, []).await?;
        self.write(revise(name, expected, Edit::Restore, change, gate))
            .await
    }

    /// A new revision with the content of revision `to`, when at `expected`.
    async fn rollback(
        &self,
        name: &str,
        to: u64,
        expected: u64,
        change: Change,
    ) -> StoreResult<StoredSkill> {
        let gate = audit_gate(self, []).await?;
        self.write(revise(name, expected, Edit::Rollback { to }, change, gate))
            .await
    }

    /// The skill at its current revision, or at `revision`.
    async fn get(&self, name: &str, revision: Option<u64>) -> StoreResult<StoredSkill>;

    /// Every live skill at its current revision, with its files, in name order: what a server
    /// loads at start, read at once (one consistent snapshot, no query per skill).
    async fn current_skills(&self) -> StoreResult<Vec<StoredSkill>>;

    /// The metadata of every live skill at its current revision, in name order, read at once
    /// like [`Store::current_skills`] but without its files' bytes: what a server lists and
    /// chooses skills by. A skill's content is read when it is needed, by name and revision,
    /// with [`Store::get`].
    async fn current_metadata(&self) -> StoreResult<Vec<SkillMetadata>>;

    /// The name and current revision of every live skill, in name order: what a server checks
    /// to reload only the skills that changed (a revision never changes once written).
    async fn current_revisions(&self) -> StoreResult<Vec<(String, u64)>>;

    /// Skills in name order, `limit` at a time (1 to 1000); pass the returned cursor for the
    /// next page.
    async fn list(
        &self,
        filter: ListFilter,
        cursor: Option<String>,
        limit: usize,
    ) -> StoreResult<Page<SkillSummary>> {
        let after = cursor::start_after(cursor.as_deref())?;
        let size = cursor::page_size(limit);
        // One more than the page holds, so that a next page shows itself.
        let listing = Listing {
            filter,
            after,
            count: size + 1,
        };
        let items = self.list_after(listing).await?;
        Ok(cursor::page(items, size))
    }

    /// The backend's part of [`Store::list`]: the skills [`Listing`] asks for, in name order.
    async fn list_after(&self, listing: Listing) -> StoreResult<Vec<SkillSummary>>;

    /// Live skills matching `query`, best first: a match in the name counts most, then the
    /// description, then the body. Any text is a valid query.
    async fn search(&self, query: &str, limit: usize) -> StoreResult<Vec<SearchHit>>;

    /// Every live skill the store's view would show but for another of the same name that
    /// takes precedence (a project's skill over a shared one; see [`crate::scopes`]), with
    /// the one shown, in name order.
    async fn shadowed(&self) -> StoreResult<Vec<ShadowedSkill>>;

    /// Every revision of `name`, oldest first.
    async fn history(&self, name: &str) -> StoreResult<Vec<Revision>>;

    /// Imports skills in one transaction: new names are created, changed content gets exactly
    /// one revision, unchanged content none; of two items with one name the first is kept and
    /// the other reported, each list in the order given. Skills are written in name order, so
    /// two imports at once never deadlock: one waits for the other.
    async fn import(&self, items: Vec<ImportItem>, change: Change) -> StoreResult<ImportReport> {
        self.import_folders(items.into_iter().map(FolderImport::from).collect(), change)
            .await
    }

    /// [`Store::import_folders`] into `placement`'s namespace: the items it creates are kept under
    /// [`Placement::key`] with its visibility, owned by the change's author; existing items
    /// keep theirs.
    async fn import_placed(
        &self,
        items: Vec<FolderImport>,
        placement: Placement,
        change: Change,
    ) -> StoreResult<ImportReport> {
        let mut plan = import::plan(items, placement)?;
        plan.audit(audit_gate(self, plan.names()).await?)?;
        self.import_planned(plan, change).await
    }

    /// [`Store::import`] of skill folders, some of them not read because their stamp says
    /// they are unchanged (see [`skillpath_folders::folder::read_folders`]); those are reported unchanged.
    /// The stamp of every folder read is recorded with the revision the import leaves current.
    async fn import_folders(
        &self,
        items: Vec<FolderImport>,
        change: Change,
    ) -> StoreResult<ImportReport> {
        let mut plan = import::plan(items, Placement::global())?;
        plan.audit(audit_gate(self, plan.names()).await?)?;
        self.import_planned(plan, change).await
    }

    /// The backend's part of [`Store::import_folders`]: writes `plan` in one transaction by
    /// the rules of the store's `import` module.
    async fn import_planned(&self, plan: ImportPlan, change: Change) -> StoreResult<ImportReport>;

    /// The stamps of folders whose skill still holds, at its current revision, what an import
    /// read from them: a folder with the same stamp now need not be read again.
    async fn folder_stamps(&self) -> StoreResult<Vec<RecordedStamp>>;

    /// [`Store::folder_stamps`] of the folders whose skill is in `namespace`: a folder is
    /// unchanged only for an import into the namespace its skill was imported into (read into
    /// another, it makes that namespace's item).
    async fn folder_stamps_in(&self, namespace: &Namespace) -> StoreResult<Vec<RecordedStamp>> {
        let mut stamps = self.folder_stamps().await?;
        stamps.retain(|stamp| skillpath_model::namespace_of_key(&stamp.name) == *namespace);
        Ok(stamps)
    }

    /// The unified diff of `name` from revision `from` to revision `to`.
    async fn diff(&self, name: &str, from: u64, to: u64) -> StoreResult<String> {
        let old = self.get(name, Some(from)).await?;
        let new = self.get(name, Some(to)).await?;
        Ok(unified_diff(
            &old.snapshot,
            &new.snapshot,
            &format!("revision {from}"),
            &format!("revision {to}"),
        ))
    }

    /// Copies a skill or a package under a new name ([`crate::forks`]): the fork, then a
    /// package's members' forks, created in one transaction, each recording what it was copied
    /// from. Refused when a name is taken (even by a deleted item) or the source is deleted.
    async fn fork(&self, request: ForkRequest, change: Change) -> StoreResult<Vec<StoredSkill>> {
        fork(self, request, change).await
    }

    /// Saves `draft` as its author's draft of its item, in place of the one they had (a
    /// rejected one is open again): refused, as the write it stands for would be, when its
    /// content cannot be stored, or its base is not the item's current revision (a new item's
    /// name is taken, a changed one was changed since). Never audited nor served: publishing
    /// it is the write. See [`crate::drafts`].
    async fn save_draft(&self, draft: NewDraft) -> StoreResult<DraftSummary> {
        let name = skillpath_model::FullName::new(
            draft.namespace.clone(),
            crate::content::meta(&draft.snapshot)?.name,
        )
        .key();
        let current = match self.get(&name, None).await {
            Ok(current) => Some(current),
            Err(crate::StoreError::NotFound { .. }) => None,
            Err(error) => return Err(error),
        };
        let record = drafts::record(draft, current.as_ref())?;
        let summary = record.summary.clone();
        self.put_draft(record).await?;
        Ok(summary)
    }

    /// The backend's part of [`Store::save_draft`]: keeps `record` as its author's draft of
    /// its item, in place of the one there was.
    async fn put_draft(&self, record: DraftRecord) -> StoreResult<()>;

    /// The drafts `filter` asks for, by name, then author.
    async fn drafts(&self, filter: DraftFilter) -> StoreResult<Vec<DraftSummary>>;

    /// The draft of `name` by `author`, with its content (`None` when there is none).
    async fn read_draft(&self, name: &str, author: &str) -> StoreResult<Option<Draft>>;

    /// The draft of `name` by `author` or, with no author given, its only draft.
    async fn draft(&self, name: &str, author: Option<&str>) -> StoreResult<Draft> {
        let chosen = chosen_draft(self, name, author).await?;
        self.read_draft(name, &chosen.author).await?.ok_or_else(|| {
            crate::StoreError::DraftNotFound {
                name: name.to_owned(),
                author: Some(chosen.author),
            }
        })
    }

    /// The draft of `name` ([`Store::draft`]) and its unified diff from the revision it was
    /// made on (from nothing, for a new item).
    async fn draft_diff(&self, name: &str, author: Option<&str>) -> StoreResult<(Draft, String)> {
        let draft = self.draft(name, author).await?;
        let (base, from) = match draft.summary.base {
            0 => {
                let nothing = SkillSnapshot {
                    kind: draft.snapshot.kind,
                    skill_md: String::new(),
                    files: Vec::new(),
                };
                (nothing, "nothing".to_owned())
            }
            base => (
                self.get(name, Some(base)).await?.snapshot,
                format!("revision {base}"),
            ),
        };
        let to = format!("draft by {}", draft.summary.author);
        let diff = unified_diff(&base, &draft.snapshot, &from, &to);
        Ok((draft, diff))
    }

    /// Publishes the draft of `name` ([`Store::draft`]): in one transaction it becomes the
    /// item's next revision (its first, for a new item; a new member of the package it
    /// joins, listed by that package), audited by the store's policy like any write, and is
    /// closed. Refused, and kept, when the item was published at another revision since the
    /// draft was made ([`crate::StoreError::StaleDraft`], naming both). The revision's
    /// author is the draft's; its message says who published it ([`Change`] of `publisher`).
    async fn publish_draft(
        &self,
        name: &str,
        author: Option<&str>,
        publisher: Change,
    ) -> StoreResult<StoredSkill> {
        let Draft { summary, snapshot } = self.draft(name, author).await?;
        let change = drafts::published_change(&summary, &publisher);
        let closes = Some(summary.reference());
        let writes = match (&summary.package, summary.base) {
            (Some(package), _) => {
                let package = (package.as_str(), None);
                member_writes(self, snapshot, Provenance::Api, package, change, closes).await?
            }
            (None, 0) => {
                let gate = audit_gate(self, [summary.name.clone()]).await?;
                let placement = Placement::beside(&summary.name);
                vec![creation(
                    checked(snapshot)?,
                    Provenance::Api,
                    placement,
                    change,
                    gate,
                    closes,
                )]
            }
            (None, base) => {
                let gate = audit_gate(self, []).await?;
                let mut write = revise(name, base, Edit::Update(checked(snapshot)?), change, gate);
                write.closes = closes;
                vec![write]
            }
        };
        self.write_all(writes)
            .await
            .map_err(|error| drafts::stale(&summary, error))?
            .into_iter()
            .next()
            .ok_or_else(|| crate::StoreError::database("a publication wrote nothing".to_owned()))
    }

    /// Rejects the draft of `name` ([`Store::draft`]) with the reviewer's message, which
    /// must say why (its author reads it); the draft stays, rejected, until its author saves
    /// it again.
    async fn reject_draft(
        &self,
        name: &str,
        author: Option<&str>,
        reviewer: Change,
    ) -> StoreResult<DraftSummary> {
        if reviewer.message.trim().is_empty() {
            return Err(crate::StoreError::InvalidState(
                "say why the draft is rejected: its author reads the message".to_owned(),
            ));
        }
        let chosen = chosen_draft(self, name, author).await?;
        let reviewed = self
            .review_draft(&chosen.reference(), &reviewer)
            .await?
            .ok_or_else(|| {
                crate::StoreError::InvalidState(format!(
                    "the draft of `{name}` by `{}` was saved again or published meanwhile: review it again",
                    chosen.author
                ))
            })?;
        Ok(reviewed)
    }

    /// The backend's part of [`Store::reject_draft`]: marks the draft `draft` names rejected
    /// by `reviewer` (its author and message), when its content hash is still the one named;
    /// the draft as it now is, or `None` when it was not.
    async fn review_draft(
        &self,
        draft: &DraftRef,
        reviewer: &Change,
    ) -> StoreResult<Option<DraftSummary>>;

    /// Adds `counts` to the stored usage counts ([`crate::usage`]): a server's batch of the
    /// uses it counted since its last.
    async fn record_usage(&self, counts: Vec<UsageCount>) -> StoreResult<()>;

    /// The usage counts `query` asks for, summed by skill (and its group), by skill then group.
    async fn usage(&self, query: UsageQuery) -> StoreResult<Vec<UsageRow>>;

    /// Stores a new API key (made with [`crate::keys::generate`]). Refused when an active key
    /// has the same name.
    async fn create_key(&self, key: StoredKey) -> StoreResult<KeyInfo>;

    /// Every key ever made, active or not, by name then creation time. Never the keys.
    async fn list_keys(&self) -> StoreResult<Vec<KeyInfo>>;

    /// Revokes the active key named `name`: it stops working at its next use, on every server
    /// on this database. The key stays listed, revoked.
    async fn revoke_key(&self, name: &str) -> StoreResult<KeyInfo>;

    /// The key whose id is `id`, active or not (for [`crate::keys::authenticate`]).
    async fn find_key(&self, id: &str) -> StoreResult<Option<StoredKey>>;

    /// Records that the key `id` was used at `at`.
    async fn record_key_use(&self, id: &str, at: &str) -> StoreResult<()>;

    /// Stages `upload` (without its bytes) within `staging`, one staging at a time: the uploads
    /// past their lifetime dropped first; `Ok(Err(_))` names the bound it would pass.
    async fn stage_upload(
        &self,
        upload: crate::uploads::StagedUpload,
        staging: crate::uploads::Staging,
    ) -> StoreResult<Result<(), crate::uploads::Unstaged>>;

    /// The staged upload `ticket`, with its bytes once uploaded.
    async fn staged_upload(
        &self,
        ticket: &str,
    ) -> StoreResult<Option<crate::uploads::StagedUpload>>;

    /// The bytes of the staged upload `ticket` (checked against it by the caller).
    async fn fill_upload(&self, ticket: &str, bytes: Vec<u8>) -> StoreResult<()>;

    /// Drops those of the staged uploads `tickets` that are the key `key`'s (published).
    async fn drop_uploads(&self, key: &str, tickets: Vec<String>) -> StoreResult<()>;

    /// The directory, read in one transaction: people, namespaces, members, and who may see
    /// each item ([`crate::directory`]).
    async fn directory(&self) -> StoreResult<Directory>;

    /// Makes `change` by `actor`, decided by [`crate::directory`]'s rules against the directory
    /// as it is in the same transaction, and appends its entry to the governance log: both,
    /// or neither. One change at a time across every process on the database. The entry.
    async fn govern(&self, change: Governance, actor: &str) -> StoreResult<Entry>;

    /// The governance log's entries that `filter` admits, oldest first.
    async fn governance_log(&self, filter: LogFilter) -> StoreResult<Vec<Entry>>;

    /// Stars (or unstars) the item kept under `key` for the person `handle`: whether it was
    /// starred before.
    async fn set_star(&self, handle: &str, key: &str, starred: bool) -> StoreResult<bool>;

    /// The stars of `handle`, or everyone's, by person then key.
    async fn stars(&self, handle: Option<&str>) -> StoreResult<Vec<Star>>;

    /// Whether the store answers now: a cheap query, failed with the reason (a database that
    /// cannot be reached or does not answer in time, a SQLite file deleted under the store).
    /// What a readiness check asks.
    async fn check(&self) -> StoreResult<()>;

    /// Whether the change signals of [`Store::watch_changes`] are flowing: `None` when there
    /// is nothing to tell (none started, or a backend whose signals cannot stop, as SQLite's
    /// reading of its own file), `Some(false)` while the listener reconnects (changes by
    /// others are not heard meanwhile).
    fn following_changes(&self) -> Option<bool> {
        None
    }

    /// A signal for every committed change by anyone: another process on the same database,
    /// another replica of the server, or this store itself. A burst of changes may arrive as
    /// fewer signals (the channel keeps only the latest few; a lagging receiver gets
    /// [`RecvError::Lagged`](tokio::sync::broadcast::error::RecvError::Lagged), which also
    /// means "something changed"); a signal says only that the caller should reload, and may
    /// also come when the backend cannot be sure that nothing changed (after reconnecting).
    ///
    /// Both backends give one: PostgreSQL through `LISTEN`/`NOTIFY`, SQLite by reading its
    /// commit counter (`PRAGMA data_version`). `None` (the default) is for a backend that
    /// cannot tell, or when called outside a tokio runtime, which a backend uses to run its
    /// listener.
    fn watch_changes(&self) -> Option<tokio::sync::broadcast::Receiver<()>> {
        None
    }
}

/// The write of a new revision of `name`, at `expected`.
pub(crate) fn revise(
    name: &str,
    expected: u64,
    edit: Edit,
    change: Change,
    gate: Gate,
) -> SkillWrite {
    SkillWrite {
        kind: WriteKind::Revise {
            name: name.to_owned(),
            expected,
            edit,
        },
        change,
        gate,
        closes: None,
    }
}

/// The write of a new item placed by `placement`, closing the draft `closes` if it publishes
/// one.
pub(crate) fn creation(
    snapshot: SkillSnapshot,
    provenance: Provenance,
    placement: Placement,
    change: Change,
    gate: Gate,
    closes: Option<DraftRef>,
) -> SkillWrite {
    SkillWrite {
        kind: WriteKind::Create {
            snapshot,
            provenance,
            placement,
        },
        change,
        gate,
        closes,
    }
}

/// The writes that create `snapshot` as a member of the package `package` (at revision
/// `expected`, or at whatever revision is current) and list it in the package's manifest,
/// the creation closing the draft `closes` if it publishes one.
pub(crate) async fn member_writes<S: Store + ?Sized>(
    store: &S,
    snapshot: SkillSnapshot,
    provenance: Provenance,
    (package, expected): (&str, Option<u64>),
    change: Change,
    closes: Option<DraftRef>,
) -> StoreResult<Vec<SkillWrite>> {
    let snapshot = checked(snapshot)?;
    let name = crate::content::meta(&snapshot)?.name;
    let current = store.get(package, None).await?;
    if current.snapshot.kind != Kind::Package {
        return Err(crate::StoreError::InvalidState(format!(
            "`{package}` is a skill, not a package: give the name of a package (`list_architectures`)"
        )));
    }
    let listed = skillpath_core::package::spec::with_member(
        &current.snapshot.skill_md,
        &format!("skills/{name}"),
    )
    .map_err(|error| {
        crate::StoreError::InvalidSkill(format!("`{name}` cannot join `{package}`: {error}"))
    })?;
    let update = SkillSnapshot::package(listed, current.snapshot.files)?;
    let placement = Placement::beside(package);
    let gate = audit_gate(store, [placement.key(&name)]).await?;
    let expected = expected.unwrap_or(current.revision);
    Ok(vec![
        creation(
            snapshot,
            provenance,
            placement,
            change.clone(),
            gate.clone(),
            closes,
        ),
        revise(package, expected, Edit::Update(update), change, gate),
    ])
}

/// The gate `store`'s writes are audited with: its policy, and the names of its skills (read
/// only when the policy audits), with `more` (the skills of an import, audited together).
async fn audit_gate<S: Store + ?Sized>(
    store: &S,
    more: impl IntoIterator<Item = String>,
) -> StoreResult<Gate> {
    let policy = store.audit_policy();
    if !policy.audits() {
        return Ok(Gate::new(policy, []));
    }
    let names = store.current_revisions().await?.into_iter().map(|(n, _)| n);
    Ok(Gate::new(policy, names.chain(more)))
}

/// The one draft of `name` in `store` that `author` asks for: the author's, or, when no author
/// is given, the only one.
async fn chosen_draft<S: Store + ?Sized>(
    store: &S,
    name: &str,
    author: Option<&str>,
) -> StoreResult<DraftSummary> {
    let filter = DraftFilter {
        name: Some(name.to_owned()),
        author: None,
    };
    let mut matching: Vec<DraftSummary> = store
        .drafts(filter)
        .await?
        .into_iter()
        .filter(|draft| author.is_none_or(|author| draft.author == author))
        .collect();
    match matching.len() {
        0 => Err(crate::StoreError::DraftNotFound {
            name: name.to_owned(),
            author: author.map(str::to_owned),
        }),
        1 => Ok(matching.remove(0)),
        _ => Err(crate::StoreError::InvalidState(format!(
            "`{name}` has drafts by {}: name the author of the one you mean",
            matching
                .iter()
                .map(|draft| format!("`{}`", draft.author))
                .collect::<Vec<_>>()
                .join(", ")
        ))),
    }
}

/// The copies [`ForkRequest`] asks for, created in one transaction: the fork first, then, for
/// a package, its members' forks in the manifest's order (what each copy is: [`forks`]).
async fn fork<S: Store + ?Sized>(
    store: &S,
    request: ForkRequest,
    change: Change,
) -> StoreResult<Vec<StoredSkill>> {
    let ForkRequest {
        from,
        revision,
        name,
        member_prefix,
        into,
    } = request;
    let placement = into.unwrap_or_else(|| Placement::beside(&from));
    let source = live(store, &from, revision).await?;
    let mut copies = Vec::new();
    match source.snapshot.kind {
        Kind::Skill => copies.push(forks::copy(&source, &name)?),
        Kind::Package => {
            let prefix = member_prefix.unwrap_or_else(|| format!("{name}-"));
            let (package, members) = forks::package_copy(&source, &name, &prefix)?;
            copies.push(package);
            // The members are the items of their names in the source's namespace.
            let source_namespace = Placement::beside(&from);
            for member in members {
                let current = live(store, &source_namespace.key(&member), None)
                    .await
                    .map_err(|error| {
                        StoreError::InvalidState(format!(
                            "the member `{member}` of `{from}` cannot be forked with it: {error}"
                        ))
                    })?;
                copies.push(forks::copy(&current, &format!("{prefix}{member}"))?);
            }
        }
    }
    let keys: Vec<String> = forks::names(&copies)?
        .iter()
        .map(|name| placement.key(name))
        .collect();
    let gate = audit_gate(store, keys).await?;
    let mut writes = Vec::with_capacity(copies.len());
    for (snapshot, provenance) in copies {
        writes.push(creation(
            checked(snapshot)?,
            provenance,
            placement.clone(),
            change.clone(),
            gate.clone(),
            None,
        ));
    }
    store.write_all(writes).await
}

/// Revision `revision` (or the current one) of `name`, which must hold live content.
async fn live<S: Store + ?Sized>(
    store: &S,
    name: &str,
    revision: Option<u64>,
) -> StoreResult<StoredSkill> {
    let item = store.get(name, revision).await?;
    if item.deleted {
        return Err(StoreError::InvalidState(format!(
            "`{name}` is deleted at revision {}: restore it, or fork a revision it was live at",
            item.revision
        )));
    }
    Ok(item)
}
