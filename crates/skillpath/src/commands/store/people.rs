//! `skillpath users|namespaces|members|visibility|star|unstar|log`: the directory and the
//! governance log, as the store's owner through the application's operations.

use skillpath_app::Operation;
use skillpath_model::governance::Entry;
use skillpath_model::{FullName, Namespace, namespace_of_key};
use skillpath_store::directory::{Directory, Governance, LogFilter};

use super::{AsOwner, Owner, io, print, table, to_json};
use crate::cli::{
    HandleArgs, LogArgs, LogCommand, LogFormat, MemberArgs, MemberRoleArgs, MembersArgs,
    MembersCommand, NamespaceArgs, NamespaceReview, NamespacesArgs, NamespacesCommand,
    OutputFormat, StarArgs, UsersArgs, UsersCommand, VisibilityArgs,
};
use crate::error::CliError;
use crate::output::{self, ExitStatus};

pub(crate) fn users(args: UsersArgs) -> anyhow::Result<ExitStatus> {
    match args.command {
        UsersCommand::Create(args) => {
            let change = Governance::CreateUser {
                handle: args.handle,
                display_name: args.display_name,
                admin: args.admin,
            };
            govern(&args.common.db, args.common.format, change)
        }
        UsersCommand::List(args) => {
            let format = args.format;
            read_directory(&args.db, move |directory| {
                let json = to_json(&directory.users)?;
                print(format, &json, || {
                    let rows: Vec<Vec<String>> = directory
                        .users
                        .iter()
                        .map(|user| {
                            vec![
                                user.handle.clone(),
                                user.display_name.clone(),
                                yes(user.admin),
                                yes(user.disabled),
                                user.created_at.clone(),
                            ]
                        })
                        .collect();
                    table(&["HANDLE", "NAME", "ADMIN", "DISABLED", "CREATED"], &rows)
                })
                .map_err(io)
            })
        }
        UsersCommand::Disable(args) => disabled(args, true),
        UsersCommand::Enable(args) => disabled(args, false),
    }
}

fn disabled(args: HandleArgs, disabled: bool) -> anyhow::Result<ExitStatus> {
    let change = Governance::SetDisabled {
        handle: args.handle,
        disabled,
    };
    govern(&args.common.db, args.common.format, change)
}

pub(crate) fn namespaces(args: NamespacesArgs) -> anyhow::Result<ExitStatus> {
    let setting = |args: NamespaceArgs, change: fn(Namespace) -> Governance| {
        govern(&args.common.db, args.common.format, change(args.name))
    };
    match args.command {
        NamespacesCommand::Create(args) => {
            let change = Governance::CreateNamespace {
                name: args.name,
                owner: args.owner,
            };
            govern(&args.common.db, args.common.format, change)
        }
        NamespacesCommand::List(args) => {
            let format = args.format;
            read_directory(&args.db, move |directory| {
                let listed: Vec<serde_json::Value> = directory
                    .namespaces
                    .iter()
                    .map(|record| namespace_json(&directory, &record.name))
                    .collect::<Result<_, _>>()?;
                print(format, &serde_json::Value::from(listed.clone()), || {
                    let rows: Vec<Vec<String>> = listed
                        .iter()
                        .map(|item| {
                            let text = |field: &str| match &item[field] {
                                serde_json::Value::String(text) => text.clone(),
                                other => other.to_string(),
                            };
                            vec![
                                text("name"),
                                text("kind"),
                                text("members"),
                                text("items"),
                                state(item),
                            ]
                        })
                        .collect();
                    table(&["NAMESPACE", "KIND", "MEMBERS", "ITEMS", "STATE"], &rows)
                })
                .map_err(io)
            })
        }
        NamespacesCommand::Show(args) => {
            let (name, format) = (args.name, args.common.format);
            read_directory(&args.common.db, move |directory| {
                let shown = namespace_json(&directory, &name)?;
                print(format, &shown, || {
                    let mut text = format!(
                        "{name} ({}, {})\n",
                        shown["kind"].as_str().unwrap_or("team"),
                        state(&shown)
                    );
                    text.push_str("\nmembers:\n");
                    for member in directory.members_of(&name) {
                        text.push_str(&format!("  {}  {}\n", member.handle, member.role));
                    }
                    text.push_str("\nitems:\n");
                    for (key, access) in &directory.access {
                        if namespace_of_key(key) == name {
                            text.push_str(&format!("  {key}  {}\n", access.visibility));
                        }
                    }
                    text
                })
                .map_err(io)
            })
        }
        NamespacesCommand::Freeze(args) => setting(args, |name| Governance::SetFrozen(name, true)),
        NamespacesCommand::Thaw(args) => setting(args, |name| Governance::SetFrozen(name, false)),
        NamespacesCommand::Archive(args) => {
            setting(args, |name| Governance::SetArchived(name, true))
        }
        NamespacesCommand::Unarchive(args) => {
            setting(args, |name| Governance::SetArchived(name, false))
        }
        NamespacesCommand::Review(args) => {
            let review = match args.setting {
                NamespaceReview::Drafts => Some(true),
                NamespaceReview::Direct => Some(false),
                NamespaceReview::Server => None,
            };
            let change = Governance::SetReview(args.name, review);
            govern(&args.common.db, args.common.format, change)
        }
        NamespacesCommand::Delete(args) => setting(args, Governance::DeleteNamespace),
    }
}

pub(crate) fn members(args: MembersArgs) -> anyhow::Result<ExitStatus> {
    match args.command {
        MembersCommand::List(args) => {
            let (name, format) = (args.name, args.common.format);
            read_directory(&args.common.db, move |directory| {
                if directory.namespace(&name).is_none() {
                    return Err(CliError::App(skillpath_app::AppError::NoNamespace(
                        name.to_string(),
                    )));
                }
                let members: Vec<_> = directory.members_of(&name).collect();
                print(format, &to_json(&members)?, || {
                    let rows: Vec<Vec<String>> = members
                        .iter()
                        .map(|member| vec![member.handle.clone(), member.role.to_string()])
                        .collect();
                    table(&["HANDLE", "ROLE"], &rows)
                })
                .map_err(io)
            })
        }
        MembersCommand::Add(args) => member_role(args, true),
        MembersCommand::Set(args) => member_role(args, false),
        MembersCommand::Remove(MemberArgs {
            namespace,
            handle,
            common,
        }) => {
            let change = Governance::RemoveMember { namespace, handle };
            govern(&common.db, common.format, change)
        }
    }
}

fn member_role(args: MemberRoleArgs, add: bool) -> anyhow::Result<ExitStatus> {
    let MemberRoleArgs {
        namespace,
        handle,
        role,
        common,
    } = args;
    let role = role.into();
    let change = if add {
        Governance::AddMember {
            namespace,
            handle,
            role,
        }
    } else {
        Governance::SetRole {
            namespace,
            handle,
            role,
        }
    };
    govern(&common.db, common.format, change)
}

pub(crate) fn visibility(args: VisibilityArgs) -> anyhow::Result<ExitStatus> {
    let key = match key_of(&args.item) {
        Ok(key) => key,
        Err(status) => return status,
    };
    let change = Governance::SetVisibility {
        key,
        visibility: args.visibility.into(),
    };
    govern(&args.common.db, args.common.format, change)
}

pub(crate) fn star(args: StarArgs, starred: bool) -> anyhow::Result<ExitStatus> {
    let key = match key_of(&args.item) {
        Ok(key) => key,
        Err(status) => return status,
    };
    let (user, format) = (args.user, args.common.format);
    super::run_as_owner(
        &args.common.db,
        AsOwner::existing(),
        move |owner| async move {
            let permit = owner.may(if starred {
                Operation::StarSkill
            } else {
                Operation::UnstarSkill
            })?;
            let was = owner.app.star(&permit, Some(&user), &key, starred).await?;
            let json =
                serde_json::json!({"user": user, "item": key, "starred": starred, "was": was});
            print(format, &json, || {
                let verb = if starred { "starred" } else { "unstarred" };
                let already = if was == starred {
                    " (it was already)"
                } else {
                    ""
                };
                format!("{user} {verb} `{key}`{already}\n")
            })
            .map_err(io)?;
            Ok(ExitStatus::Success)
        },
    )
}

pub(crate) fn log(args: LogArgs) -> anyhow::Result<ExitStatus> {
    if let Some(LogCommand::Verify(args)) = args.command {
        let format = args.format;
        return super::run_as_owner(&args.db, AsOwner::existing(), move |owner| async move {
            let permit = owner.may(Operation::ReadLog)?;
            let verified = owner.app.verify_log(&permit).await?;
            let json = match &verified {
                Ok(entries) => serde_json::json!({"ok": true, "entries": entries}),
                Err(broken) => serde_json::json!({
                    "ok": false,
                    "broken_at": broken.seq(),
                    "error": broken.to_string(),
                }),
            };
            print(format, &json, || match &verified {
                Ok(entries) => format!("the governance log holds: {entries} entries, unbroken\n"),
                Err(broken) => format!("error: {broken}\n"),
            })
            .map_err(io)?;
            Ok(match verified {
                Ok(_) => ExitStatus::Success,
                Err(_) => ExitStatus::Invalid,
            })
        });
    }
    let filter = LogFilter {
        namespace: args.namespace,
        since: args.since,
    };
    let format = args.format;
    super::run_as_owner(&args.db, AsOwner::existing(), move |owner| async move {
        let permit = owner.may(Operation::ReadLog)?;
        let entries = owner.app.governance_log(&permit, filter).await?;
        let text = match format {
            LogFormat::Json => format!(
                "{}\n",
                serde_json::to_string_pretty(&entries).map_err(CliError::Json)?
            ),
            LogFormat::Jsonl => {
                let mut text = String::new();
                for entry in &entries {
                    text.push_str(&serde_json::to_string(entry).map_err(CliError::Json)?);
                    text.push('\n');
                }
                text
            }
            LogFormat::Text => log_table(&entries),
        };
        output::stdout(&text).map_err(io)?;
        Ok(ExitStatus::Success)
    })
}

fn log_table(entries: &[Entry]) -> String {
    let rows: Vec<Vec<String>> = entries
        .iter()
        .map(|entry| {
            let action = &entry.action;
            let change = match (&action.before, &action.after) {
                (Some(before), Some(after)) => format!("{before} -> {after}"),
                (None, Some(after)) => after.clone(),
                (Some(before), None) => format!("was {before}"),
                (None, None) => String::new(),
            };
            vec![
                entry.seq.to_string(),
                action.at.clone(),
                action.actor.clone(),
                action.action.clone(),
                action.target.clone(),
                change,
            ]
        })
        .collect();
    table(&["SEQ", "AT", "ACTOR", "ACTION", "TARGET", "CHANGE"], &rows)
}

/// Makes `change` as the store's owner and prints its log entry.
fn govern(
    db: &crate::cli::DbArgs,
    format: OutputFormat,
    change: Governance,
) -> anyhow::Result<ExitStatus> {
    let as_owner = AsOwner {
        access: super::Access::Creates,
        ..AsOwner::existing()
    };
    super::run_as_owner(db, as_owner, move |owner: Owner| async move {
        let permit = owner.may(Operation::Govern)?;
        let entry = owner.app.govern(&permit, change).await?;
        print_entry(format, &entry)?;
        Ok(ExitStatus::Success)
    })
}

/// Prints the log entry of a change: as JSON, or its action, target and after.
pub(crate) fn print_entry(format: OutputFormat, entry: &Entry) -> Result<(), CliError> {
    print(format, &to_json(entry)?, || {
        let action = &entry.action;
        let after = action.after.as_deref().unwrap_or("");
        format!(
            "{} {} {after} (log entry {})\n",
            action.action, action.target, entry.seq
        )
    })
    .map_err(io)
}

/// Runs `work` on the directory as the store's owner sees it (everything).
fn read_directory(
    db: &crate::cli::DbArgs,
    work: impl FnOnce(Directory) -> Result<(), CliError> + 'static,
) -> anyhow::Result<ExitStatus> {
    super::run_as_owner(db, AsOwner::existing(), move |owner| async move {
        let permit = owner.may(Operation::ReadDirectory)?;
        let directory = owner.app.directory(&permit).await?;
        work(directory)?;
        Ok(ExitStatus::Success)
    })
}

/// A namespace as listed: its record, and how many members and items it has.
fn namespace_json(directory: &Directory, name: &Namespace) -> Result<serde_json::Value, CliError> {
    let Some(record) = directory.namespace(name) else {
        return Err(CliError::App(skillpath_app::AppError::NoNamespace(
            name.to_string(),
        )));
    };
    let mut json = to_json(record)?;
    json["members"] = directory.members_of(name).count().into();
    json["items"] = directory.items_in(name).into();
    Ok(json)
}

/// A namespace's state as a word: archived, frozen, or open; with its review setting.
fn state(item: &serde_json::Value) -> String {
    let word = if item["archived"] == true {
        "archived"
    } else if item["frozen"] == true {
        "frozen"
    } else {
        "open"
    };
    match &item["review"] {
        serde_json::Value::Bool(true) => format!("{word}, drafts"),
        serde_json::Value::Bool(false) => format!("{word}, direct"),
        _ => word.to_owned(),
    }
}

fn yes(flag: bool) -> String {
    if flag { "yes" } else { "no" }.to_owned()
}

/// The store key of the item `text` names, or the usage error said.
pub(crate) fn key_of(text: &str) -> Result<String, anyhow::Result<ExitStatus>> {
    FullName::parse(text)
        .map(|full| full.key())
        .map_err(|error| usage(&error.to_string()))
}

/// A usage error, said on stderr.
pub(crate) fn usage(text: &str) -> anyhow::Result<ExitStatus> {
    output::stderr(&format!("error: {text}\n"))?;
    Ok(ExitStatus::UsageOrInternal)
}
