//! The store commands that write a revision: `rollback`, `delete`, `restore`, and `fork`, which
//! writes the first revisions of copies; through the application's operations, as the store's
//! owner, recorded as `--author` with `--message`.

use skillpath_app::{App, Operation, Permit, Written};
use skillpath_model::Provenance;
use skillpath_store::forks::ForkRequest;
use skillpath_store::{StoreError, StoredSkill};

use super::AsOwner;
use crate::cli::{ForkArgs, ReviseArgs, ReviseOptions, RollbackArgs};
use crate::error::CliError;
use crate::output::ExitStatus;

/// Which revision-writing command.
#[derive(Clone, Copy)]
pub(crate) enum Revise {
    Delete,
    Restore,
    Rollback(u64),
}

impl Revise {
    /// The operation the rules decide it as.
    fn operation(self) -> Operation {
        match self {
            Revise::Delete => Operation::DeleteSkill,
            Revise::Restore => Operation::RestoreSkill,
            Revise::Rollback(_) => Operation::RollbackSkill,
        }
    }
}

pub(crate) fn rollback(args: RollbackArgs) -> anyhow::Result<ExitStatus> {
    run(args.name, Revise::Rollback(args.to), args.revise)
}

pub(crate) fn delete(args: ReviseArgs) -> anyhow::Result<ExitStatus> {
    run(args.name, Revise::Delete, args.revise)
}

pub(crate) fn restore(args: ReviseArgs) -> anyhow::Result<ExitStatus> {
    run(args.name, Revise::Restore, args.revise)
}

fn run(name: String, what: Revise, options: ReviseOptions) -> anyhow::Result<ExitStatus> {
    let as_owner = AsOwner {
        author: options.change.author,
        audit: Some(options.audit.policy(false)),
        ..AsOwner::existing()
    };
    let (expect, message, format) = (options.expect, options.change.message, options.format);
    super::run_as_owner(&options.db, as_owner, move |owner| async move {
        let permit = owner.may(what.operation())?;
        let expected = match expect {
            Some(expected) => expected,
            None => owner.app.revision(&permit, &name, None).await?.revision,
        };
        let skill = apply(&owner.app, &permit, &name, what, expected, message).await?;
        let json = serde_json::json!({"name": skill.name, "revision": skill.revision, "deleted": skill.deleted});
        super::print(format, &json, || {
            let state = if skill.deleted { ", deleted" } else { "" };
            format!(
                "`{}` is at revision {}{state}\n",
                skill.name, skill.revision
            )
        })
        .map_err(super::io)?;
        Ok(ExitStatus::Success)
    })
}

/// Writes `what` to the skill `name` at revision `expected`, recording `message` (`None`: the
/// operation's own, which names what was done).
async fn apply(
    app: &App,
    permit: &Permit,
    name: &str,
    what: Revise,
    expected: u64,
    message: Option<String>,
) -> Result<StoredSkill, CliError> {
    Ok(match what {
        Revise::Delete => app.delete(permit, name, expected, message).await?,
        Revise::Restore => app.restore(permit, name, expected, message).await?,
        Revise::Rollback(to) => match app.rollback(permit, name, to, expected, message).await? {
            Written::Stored(stored) => stored,
            // The command's application does not review, and the owner has no key: what it
            // writes is stored, never drafted. Said as a store's refusal should that change.
            Written::Drafted(draft) => {
                return Err(StoreError::InvalidState(format!(
                    "the rollback of `{}` was saved as a draft for review, not stored",
                    draft.name
                ))
                .into());
            }
        },
    })
}

pub(crate) fn fork(args: ForkArgs) -> anyhow::Result<ExitStatus> {
    let request = ForkRequest {
        from: args.from,
        revision: args.revision,
        name: args.name,
        member_prefix: args.member_prefix,
        into: args.namespace.map(|namespace| skillpath_model::Placement {
            namespace,
            visibility: skillpath_model::Visibility::default(),
        }),
    };
    let as_owner = AsOwner {
        author: args.change.author,
        audit: Some(args.audit.policy(false)),
        ..AsOwner::existing()
    };
    let (message, format) = (args.change.message, args.format);
    super::run_as_owner(&args.db, as_owner, move |owner| async move {
        let permit = owner.may(Operation::ForkSkill)?;
        let written = owner.app.fork(&permit, request, message).await?;
        let copies: Vec<serde_json::Value> = written
            .iter()
            .map(|item| {
                serde_json::json!({
                    "name": item.name,
                    "kind": item.snapshot.kind,
                    "revision": item.revision,
                    "provenance": item.provenance,
                })
            })
            .collect();
        super::print(format, &serde_json::Value::from(copies), || {
            written
                .iter()
                .filter_map(|item| match &item.provenance {
                    Provenance::Forked { from, revision } => Some(format!(
                        "forked `{from}` (revision {revision}) as `{}`\n",
                        item.name
                    )),
                    _ => None,
                })
                .collect()
        })
        .map_err(super::io)?;
        Ok(ExitStatus::Success)
    })
}
