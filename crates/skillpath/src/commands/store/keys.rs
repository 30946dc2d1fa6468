//! `skillpath keys`: create, list and revoke the API keys of HTTP clients, as the store's owner
//! through the application's key operations.

use skillpath_app::{KeyRequest, Operation};
use skillpath_store::keys::KeyInfo;
use skillpath_store::time::now_rfc3339;

use super::{AsOwner, io, print, table, to_json};
use crate::cli::{KeysArgs, KeysCommand, KeysCreateArgs, KeysListArgs, KeysRevokeArgs};
use crate::output::{self, ExitStatus};

pub(crate) fn run(args: KeysArgs) -> anyhow::Result<ExitStatus> {
    match args.command {
        KeysCommand::Create(args) => create(args),
        KeysCommand::List(args) => list(args),
        KeysCommand::Revoke(args) => revoke(args),
    }
}

/// Prints the key on stdout (alone on its line, for `$(skillpath keys create …)`), and what
/// it is on stderr; with `--format json`, one object with both.
fn create(args: KeysCreateArgs) -> anyhow::Result<ExitStatus> {
    let name = args.name;
    let request = KeyRequest {
        user: args.user,
        role: args.role.map(Into::into),
        namespaces: args.namespaces,
        lifetime_secs: args.expires,
        channel: args.channel,
    };
    let format = args.format;
    let as_owner = AsOwner {
        access: super::Access::Creates,
        ..AsOwner::existing()
    };
    super::run_as_owner(&args.db, as_owner, move |owner| async move {
        let permit = owner.may(Operation::CreateApiKey)?;
        let created = owner.app.create_user_key(&permit, &name, request).await?;
        print(format, &to_json(&created)?, || format!("{}\n", created.key)).map_err(io)?;
        let info = &created.info;
        if matches!(format, crate::cli::OutputFormat::Text) {
            let until = match &info.expires_at {
                Some(at) => format!("until {at}"),
                None => "until revoked".to_owned(),
            };
            let mut reach = match &info.namespaces {
                Some(namespaces) => format!(" in {}", namespaces.join(", ")),
                None => String::new(),
            };
            if let Some(channel) = &info.channel {
                reach.push_str(&format!(", served the channel `{channel}`"));
            }
            output::stderr(&format!(
                "Created key `{}` for `{}` (role {}{reach}, {until}). Store it now: it is not shown again.\n",
                info.name, info.user, info.role
            ))
            .map_err(io)?;
        }
        Ok(ExitStatus::Success)
    })
}

fn list(args: KeysListArgs) -> anyhow::Result<ExitStatus> {
    let format = args.format;
    super::run_as_owner(&args.db, AsOwner::existing(), move |owner| async move {
        let permit = owner.may(Operation::ListApiKeys)?;
        let keys = owner.app.list_keys(&permit).await?;
        let now = now_rfc3339();
        let mut json = to_json(&keys)?;
        if let Some(items) = json.as_array_mut() {
            for (item, key) in items.iter_mut().zip(&keys) {
                item["state"] = state(key, &now).into();
            }
        }
        print(format, &json, || {
            let rows: Vec<Vec<String>> = keys
                .iter()
                .map(|key| {
                    let or_dash = |value: &Option<String>| value.clone().unwrap_or("-".into());
                    vec![
                        key.name.clone(),
                        key.role.to_string(),
                        key.prefix.clone(),
                        state(key, &now).to_owned(),
                        key.created_at.clone(),
                        or_dash(&key.expires_at),
                        or_dash(&key.last_used_at),
                    ]
                })
                .collect();
            table(
                &[
                    "NAME",
                    "ROLE",
                    "PREFIX",
                    "STATE",
                    "CREATED",
                    "EXPIRES",
                    "LAST USED",
                ],
                &rows,
            )
        })
        .map_err(io)?;
        Ok(ExitStatus::Success)
    })
}

fn revoke(args: KeysRevokeArgs) -> anyhow::Result<ExitStatus> {
    let (name, format) = (args.name, args.format);
    super::run_as_owner(&args.db, AsOwner::existing(), move |owner| async move {
        let permit = owner.may(Operation::RevokeApiKey)?;
        let info = owner.app.revoke_key(&permit, &name).await?;
        print(format, &to_json(&info)?, || {
            format!(
                "Revoked key `{}` ({}); servers refuse it from their next request on.\n",
                info.name, info.prefix
            )
        })
        .map_err(io)?;
        Ok(ExitStatus::Success)
    })
}

/// `active`, `revoked` or `expired`.
fn state(key: &KeyInfo, now: &str) -> &'static str {
    if key.revoked_at.is_some() {
        "revoked"
    } else if key.is_expired(now) {
        "expired"
    } else {
        "active"
    }
}
