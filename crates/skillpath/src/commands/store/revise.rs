//! The store commands that write a revision: `rollback`, `delete`, `restore`, and `fork`, which
//! writes the first revisions of copies.

use skillpath_model::Provenance;
use skillpath_store::forks::ForkRequest;
use skillpath_store::{Store, StoreError, StoredSkill};

use crate::cli::{ForkArgs, ReviseArgs, ReviseOptions, RollbackArgs};
use crate::output::ExitStatus;

/// Which revision-writing command.
#[derive(Clone, Copy)]
pub(crate) enum Revise {
    Delete,
    Restore,
    Rollback(u64),
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
    let default_message = match what {
        Revise::Delete => format!("delete {name}"),
        Revise::Restore => format!("restore {name}"),
        Revise::Rollback(to) => format!("roll {name} back to revision {to}"),
    };
    let change = super::change(&options.change, &default_message);
    let (expect, format) = (options.expect, options.format);
    let policy = options.audit.policy(false);
    super::run(
        &options.db,
        super::Access::Existing,
        move |store| async move {
            store.set_audit_policy(policy);
            let expected = match expect {
                Some(expected) => expected,
                None => store.get(&name, None).await?.revision,
            };
            let skill = apply(store.as_ref(), &name, what, expected, change).await?;
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
        },
    )
}

async fn apply(
    store: &dyn Store,
    name: &str,
    what: Revise,
    expected: u64,
    change: skillpath_model::Change,
) -> Result<StoredSkill, StoreError> {
    match what {
        Revise::Delete => store.delete(name, expected, change).await,
        Revise::Restore => store.restore(name, expected, change).await,
        Revise::Rollback(to) => store.rollback(name, to, expected, change).await,
    }
}

pub(crate) fn fork(args: ForkArgs) -> anyhow::Result<ExitStatus> {
    let change = super::change(
        &args.change,
        &format!("fork {} as {}", args.from, args.name),
    );
    let request = ForkRequest {
        from: args.from,
        revision: args.revision,
        name: args.name,
        member_prefix: args.member_prefix,
    };
    let (policy, format) = (args.audit.policy(false), args.format);
    super::run(&args.db, super::Access::Existing, move |store| async move {
        store.set_audit_policy(policy);
        let written = store.fork(request, change).await?;
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
