//! The review commands: `review` (the drafts waiting, or one with its diff), `publish` and
//! `reject` ([`skillpath_store::drafts`]), through the application's review operations. The
//! command line is the store's owner: it sees and reviews every author's drafts.

use skillpath_app::Operation;
use skillpath_store::drafts::{DraftStatus, DraftSummary};

use super::{AsOwner, Owner};
use crate::cli::{DraftDecision, PublishArgs, ReviewArgs};
use crate::error::CliError;
use crate::output::ExitStatus;

pub(crate) fn review(args: ReviewArgs) -> anyhow::Result<ExitStatus> {
    let ReviewArgs {
        name,
        by,
        db,
        format,
    } = args;
    super::run_as_owner(&db, AsOwner::existing(), move |owner| async move {
        match name {
            None => {
                let permit = owner.may(Operation::ListDrafts)?;
                let drafts = owner.app.drafts(&permit, None).await?;
                let json = super::to_json(&drafts)?;
                super::print(format, &json, || queue(&drafts))
            }
            Some(name) => {
                let permit = owner.may(Operation::GetSkill)?;
                let (draft, diff) = owner.app.draft_diff(&permit, &name, by.as_deref()).await?;
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
    let audit = Some(args.audit.policy(false));
    decide(args.decision, audit, async |owner, name, by, message| {
        let permit = owner.may(Operation::PublishSkill)?;
        let published = owner.app.publish(&permit, name, by, message).await?;
        let text = format!(
            "published `{}` at revision {}\n",
            published.name, published.revision
        );
        let json = serde_json::json!({"name": published.name, "revision": published.revision});
        Ok((json, text))
    })
}

pub(crate) fn reject(args: DraftDecision) -> anyhow::Result<ExitStatus> {
    decide(args, None, async |owner, name, by, message| {
        let permit = owner.may(Operation::RejectSkill)?;
        let rejected = owner.app.reject(&permit, name, by, message).await?;
        let text = format!(
            "rejected the draft of `{}` by `{}`\n",
            rejected.name, rejected.author
        );
        Ok((super::to_json(&rejected)?, text))
    })
}

/// Runs `decision` on the draft `args` name as the store's owner (recorded as `--author`),
/// with why (`--message`, else nothing), writing under the `audit` policy when given, and
/// prints what it answers (JSON, and the text for people).
fn decide(
    args: DraftDecision,
    audit: Option<skillpath_audit::Policy>,
    decision: impl AsyncFnOnce(
        &Owner,
        &str,
        Option<&str>,
        String,
    ) -> Result<(serde_json::Value, String), CliError>
    + 'static,
) -> anyhow::Result<ExitStatus> {
    let as_owner = AsOwner {
        author: args.author,
        audit,
        ..AsOwner::existing()
    };
    let message = args.message.unwrap_or_default();
    let (name, by, format) = (args.name, args.by, args.format);
    super::run_as_owner(&args.db, as_owner, move |owner| async move {
        let (json, text) = decision(&owner, &name, by.as_deref(), message).await?;
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
