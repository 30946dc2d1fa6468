//! `skillpath usage`: how the stored skills are used ([`skillpath_store::usage`]), summed by
//! skill, revision, day or key; or, with `--unused`, the live items nobody used lately. Read
//! through the application's usage operations, as the store's owner.

use skillpath_app::Operation;
use skillpath_store::usage::{UsageGroup, UsageQuery, days_ago};

use super::{AsOwner, io, print, table, to_json};
use crate::cli::{UsageArgs, UsageByArg};
use crate::output::ExitStatus;

pub(crate) fn run(args: UsageArgs) -> anyhow::Result<ExitStatus> {
    match args.unused {
        Some(days) => unused(args, days),
        None => used(args),
    }
}

/// The first day of the last `days` days (today counts as one).
fn window(days: u64) -> String {
    days_ago(days.saturating_sub(1))
}

fn used(args: UsageArgs) -> anyhow::Result<ExitStatus> {
    let by = args.by;
    let query = UsageQuery {
        since: args.days.map(window),
        skill: args.name,
        by: UsageGroup::from(by),
    };
    let format = args.format;
    super::run_as_owner(&args.db, AsOwner::existing(), move |owner| async move {
        let permit = owner.may(Operation::ReadUsage)?;
        let rows = owner.app.usage(&permit, query).await?;
        print(format, &to_json(&rows)?, || {
            if rows.is_empty() {
                return "no uses are recorded\n".to_owned();
            }
            let group = match by {
                UsageByArg::Skill => None,
                UsageByArg::Revision => Some("REVISION"),
                UsageByArg::Day => Some("DAY"),
                UsageByArg::Key => Some("KEY"),
            };
            let mut headers = vec!["SKILL"];
            headers.extend(group);
            headers.extend(["CALLS", "LOADS", "PROMPTS", "READS", "LAST USED"]);
            let lines: Vec<Vec<String>> = rows
                .iter()
                .map(|row| {
                    let mut line = vec![row.skill.clone()];
                    line.extend(row.group.as_ref().map(|group| match group.as_str() {
                        "" => "-".to_owned(),
                        named => named.to_owned(),
                    }));
                    line.extend(
                        [row.calls, row.loads, row.prompts, row.reads].map(|n| n.to_string()),
                    );
                    line.push(row.last_used.clone());
                    line
                })
                .collect();
            table(&headers, &lines)
        })
        .map_err(io)?;
        Ok(ExitStatus::Success)
    })
}

fn unused(args: UsageArgs, days: u64) -> anyhow::Result<ExitStatus> {
    let format = args.format;
    super::run_as_owner(&args.db, AsOwner::existing(), move |owner| async move {
        let permit = owner.may(Operation::ReadUsage)?;
        let idle: Vec<serde_json::Value> = owner
            .app
            .unused(&permit, window(days))
            .await?
            .into_iter()
            .map(|item| {
                serde_json::json!({
                    "name": item.name,
                    "kind": item.kind,
                    "last_used": item.last_used,
                })
            })
            .collect();
        print(format, &serde_json::Value::from(idle.clone()), || {
            if idle.is_empty() {
                return format!("every skill was used in the last {days} days\n");
            }
            let lines: Vec<Vec<String>> = idle
                .iter()
                .map(|item| {
                    vec![
                        item["name"].as_str().unwrap_or_default().to_owned(),
                        item["kind"].as_str().unwrap_or_default().to_owned(),
                        item["last_used"].as_str().unwrap_or("never").to_owned(),
                    ]
                })
                .collect();
            format!(
                "not used in the last {days} days:\n{}",
                table(&["NAME", "KIND", "LAST USED"], &lines)
            )
        })
        .map_err(io)?;
        Ok(ExitStatus::Success)
    })
}
