//! `skillpath scan`: what discovery finds in the standard skill folders, where from, what is
//! shadowed (by discovery, and by the store's precedence, [`skillpath_store::scopes`], so that it
//! agrees with what `serve` serves), and which of the skills found would lose their MCP tool
//! name to another skill or a built-in tool (by the rule of [`skillpath_core::tool_names`]).

use std::fmt::Write as _;
use std::path::PathBuf;

use skillpath_core::Mode;
use skillpath_core::load::{self, LoadOptions};
use skillpath_core::tool_names::{self, Collision};
use skillpath_folders::discovery::{self, Discovery, DiscoveryLimits};
use skillpath_model::ShadowedSkill;
use skillpath_store::{ProjectView, StoreError, location, scopes};

use super::{print, table};
use crate::cli::ScanArgs;
use crate::output::ExitStatus;

pub(crate) fn run(args: ScanArgs) -> anyhow::Result<ExitStatus> {
    let project = match args.project {
        Some(project) => project,
        None => std::env::current_dir()?,
    };
    let home = if args.no_user {
        None
    } else {
        std::env::var_os("HOME").map(PathBuf::from)
    };
    let found = discovery::discover(Some(&project), home.as_deref(), DiscoveryLimits::default());
    let collisions = collisions(&found);
    let in_store = if args.no_store {
        Vec::new()
    } else {
        shadowed_in_store(&found, args.db.db.as_deref())?
    };
    let mut json = serde_json::to_value(&found)?;
    if let Some(object) = json.as_object_mut() {
        object.insert("collisions".to_owned(), serde_json::to_value(&collisions)?);
        object.insert(
            "shadowed_in_store".to_owned(),
            serde_json::to_value(&in_store)?,
        );
    }
    print(args.format, &json, || {
        let rows: Vec<Vec<String>> = found
            .skills
            .iter()
            .map(|skill| {
                vec![
                    skill.name.clone(),
                    skill.scope.as_str().to_owned(),
                    skill.path.display().to_string(),
                ]
            })
            .collect();
        let mut text = if rows.is_empty() {
            "no skills found in the standard skill folders\n".to_owned()
        } else {
            table(&["NAME", "SCOPE", "PATH"], &rows)
        };
        for shadowed in &found.shadowed {
            let _ = writeln!(text, "shadowed: {shadowed}");
        }
        for shadowed in &in_store {
            let _ = writeln!(text, "shadowed in the store: {shadowed}");
        }
        for collision in &collisions {
            let _ = writeln!(
                text,
                "collision: tool `{}` belongs to {}; `{}` has no tool of its own ({})",
                collision.tool_name,
                collision.holder(),
                collision.loser,
                collision.reason.rule()
            );
        }
        for (path, why) in &found.skipped {
            let _ = writeln!(text, "skipped: `{}`: {why}", path.display());
        }
        for folder in &found.unloadable {
            let _ = writeln!(
                text,
                "cannot be loaded: `{}`\n{}",
                folder.folder.display(),
                folder.to_text().trim_end()
            );
        }
        let searched: Vec<String> = found
            .searched
            .iter()
            .map(|p| p.display().to_string())
            .collect();
        let _ = writeln!(
            text,
            "searched: {}",
            if searched.is_empty() {
                "no skill folders exist".to_owned()
            } else {
                searched.join(", ")
            }
        );
        text
    })?;
    Ok(ExitStatus::Success)
}

/// What `serve` would leave out of `found` for a stored skill, or of the store for `found`
/// (see [`scopes::shadowed_in_store`]); nothing when the database does not exist yet (it is
/// not created).
fn shadowed_in_store(
    found: &Discovery,
    database: Option<&str>,
) -> anyhow::Result<Vec<ShadowedSkill>> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    Ok(runtime.block_on(async {
        match location::open_existing(database, &ProjectView::shared()).await {
            Ok(store) => scopes::shadowed_in_store(found, store.as_ref()).await,
            Err(StoreError::NoDatabase(_)) => Ok(Vec::new()),
            Err(error) => Err(error),
        }
    })?)
}

/// The tool-name collisions among the skills `found` (the winners of discovery, one per name),
/// each skill wanting its `tool_name`, else its `name`.
fn collisions(found: &Discovery) -> Vec<Collision> {
    let options = LoadOptions {
        mode: Mode::Lenient,
        ..LoadOptions::default()
    };
    let wanted: Vec<(String, String)> = found
        .skills
        .iter()
        .map(|skill| {
            let tool = load::load_skill_md(&skill.path, options).map_or_else(
                |_| skill.name.clone(),
                |md| tool_names::tool_name(&md, &skill.name),
            );
            (skill.name.clone(), tool)
        })
        .collect();
    tool_names::resolve(&wanted).collisions
}
