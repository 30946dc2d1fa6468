//! The review commands: `review` (the drafts waiting, or one with its diff), `publish` and
//! `reject` ([`skillpath_store::drafts`]). The command line is the store's owner: it sees
//! and reviews every author's drafts.

use skillpath_model::Change;
use skillpath_store::Store;
use skillpath_store::drafts::{DraftFilter, DraftStatus, DraftSummary};

use crate::cli::{ChangeArgs, DraftDecision, PublishArgs, ReviewArgs};
use crate::error::CliError;
use crate::output::ExitStatus;

pub(crate) fn review(args: ReviewArgs) -> anyhow::Result<ExitStatus> {
    let ReviewArgs {
        name,
        by,
        db,
        format,
    } = args;
    super::run(&db, super::Access::Existing, move |store| async move {
        match name {
            None => {
                let drafts = store.drafts(DraftFilter::default()).await?;
                let json = super::to_json(&drafts)?;
                super::print(format, &json, || queue(&drafts))
            }
            Some(name) => {
                let (draft, diff) = store.draft_diff(&name, by.as_deref()).await?;
                let json = serde_json::json!({"draft": draft.summary, "diff": diff});
                super::print(format, &json, || {
                    format!("{}\n{diff}", line(&draft.summary))
                })
            }
        }
        .map_err(super::io)?;
        Ok(ExitStatus::Success)
    })
}

pub(crate) fn publish(args: PublishArgs) -> anyhow::Result<ExitStatus> {
    let policy = args.audit.policy(false);
    decide(args.decision, async move |store, name, by, publisher| {
        store.set_audit_policy(policy);
        let published = store.publish_draft(name, by, publisher).await?;
        let text = format!(
            "published `{}` at revision {}\n",
            published.name, published.revision
        );
        let json = serde_json::json!({"name": published.name, "revision": published.revision});
        Ok((json, text))
    })
}

pub(crate) fn reject(args: DraftDecision) -> anyhow::Result<ExitStatus> {
    decide(args, async |store, name, by, reviewer| {
        let rejected = store.reject_draft(name, by, reviewer).await?;
        let text = format!(
            "rejected the draft of `{}` by `{}`\n",
            rejected.name, rejected.author
        );
        Ok((super::to_json(&rejected)?, text))
    })
}

/// Runs `decision` on the draft `args` name, with who decides why, and prints what it answers
/// (JSON, and the text for people).
fn decide(
    args: DraftDecision,
    decision: impl AsyncFnOnce(
        &dyn Store,
        &str,
        Option<&str>,
        Change,
    ) -> Result<(serde_json::Value, String), CliError>
    + 'static,
) -> anyhow::Result<ExitStatus> {
    let decider = super::change(
        &ChangeArgs {
            author: args.author,
            message: args.message,
        },
        "",
    );
    let (name, by, format) = (args.name, args.by, args.format);
    super::run(&args.db, super::Access::Existing, move |store| async move {
        let (json, text) = decision(store.as_ref(), &name, by.as_deref(), decider).await?;
        super::print(format, &json, || text).map_err(super::io)?;
        Ok(ExitStatus::Success)
    })
}

/// The queue for people: one line per draft.
fn queue(drafts: &[DraftSummary]) -> String {
    if drafts.is_empty() {
        return "no drafts are waiting for review\n".to_owned();
    }
    drafts.iter().map(|draft| line(draft) + "\n").collect()
}

/// A draft in one line: what, by whom, on what, where it is in review.
fn line(draft: &DraftSummary) -> String {
    let on = match draft.base {
        0 => format!("new {}", draft.kind.as_str()),
        base => format!("on revision {base}"),
    };
    let joins = draft
        .package
        .as_ref()
        .map(|package| format!(", joins `{package}`"))
        .unwrap_or_default();
    let state = match draft.status {
        DraftStatus::Open => "open".to_owned(),
        DraftStatus::Rejected => format!(
            "rejected by {}: {}",
            draft.reviewer.as_deref().unwrap_or("?"),
            draft.review_message.as_deref().unwrap_or_default()
        ),
    };
    format!(
        "{}  by {}  ({on}{joins}, {})  {state}  — {}",
        draft.name, draft.author, draft.updated_at, draft.message
    )
}
