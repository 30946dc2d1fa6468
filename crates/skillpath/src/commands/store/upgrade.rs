//! `skillpath upgrade`: the store's schema brought up to date now, rather than by the first
//! command that opens it, and for a store made before namespaces, the namespace its items and
//! its keys' people join (`--namespace`, else `@global`).

use skillpath_model::Namespace;
use skillpath_store::{StoreError, Upgrade, location};

use super::{print, to_json};
use crate::cli::UpgradeArgs;
use crate::error::CliError;
use crate::output::ExitStatus;

pub(crate) fn run(args: UpgradeArgs) -> anyhow::Result<ExitStatus> {
    let UpgradeArgs { namespace, common } = args;
    let upgrade = Upgrade {
        namespace: namespace.clone().unwrap_or_else(Namespace::global),
    };
    super::block_on(async move {
        let (store, upgraded) = location::upgrade(common.db.db.as_deref(), &upgrade).await?;
        if let Some(asked) = namespace.filter(|_| !upgraded.placed) {
            return Err(CliError::Store(StoreError::InvalidState(format!(
                "the store's items were placed in namespaces by an earlier upgrade, so `--namespace {asked}` changes nothing (the store is at schema {}); `skillpath fork ITEM --namespace {asked}` copies an item into it",
                upgraded.to
            ))));
        }
        let directory = store.directory().await?;
        let mut json = to_json(&upgraded)?;
        if upgraded.placed {
            json["namespace"] = upgrade.namespace.to_string().into();
            json["items"] = directory.items_in(&upgrade.namespace).into();
            json["people"] = directory.users.len().into();
        }
        print(common.format, &json, || {
            if upgraded.from == upgraded.to {
                return format!("the store is up to date (schema {})\n", upgraded.to);
            }
            let mut text = format!(
                "upgraded the store from schema {} to {}\n",
                upgraded.from, upgraded.to
            );
            if upgraded.placed {
                text.push_str(&format!(
                    "its {} items are in {}, and its keys act for {} people who are its members\n",
                    directory.items_in(&upgrade.namespace),
                    upgrade.namespace,
                    directory.users.len()
                ));
            }
            text
        })
        .map_err(super::io)?;
        Ok(ExitStatus::Success)
    })
}
