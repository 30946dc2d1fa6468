//! `skillpath serve`: the MCP server over stdio. Stdout belongs to the protocol; everything
//! the command says goes to stderr.

use std::path::PathBuf;
use std::sync::Arc;

use skillpath_core::walk::{self, WalkLimits};
use skillpath_server::{ServerOptions, SkillServer, ToolsMode};
use skillpath_store::discovery::{self, DiscoveryLimits};
use skillpath_store::folder::read_skill_folder;
use skillpath_store::{Change, ImportItem, Provenance, StoreError, location};

use crate::cli::{ServeArgs, ToolsArg};
use crate::inputs;
use crate::output::{self, ExitStatus};

pub(crate) fn run(args: ServeArgs) -> anyhow::Result<ExitStatus> {
    inputs::require_existing(&args.skills)?;
    if let Some(address) = args.http
        && !address.ip().is_loopback()
    {
        anyhow::bail!(
            "serving on `{address}` would expose the skills to the network without API keys, which this build does not have yet; bind to a loopback address such as 127.0.0.1:8808"
        );
    }
    let items = startup_items(&args)?;
    let options = ServerOptions {
        read_only: args.read_only,
        tools: match args.tools {
            ToolsArg::PerSkill => ToolsMode::PerSkill,
            ToolsArg::Loader => ToolsMode::Loader,
            ToolsArg::Auto => ToolsMode::Auto(args.tool_threshold),
        },
        page_size: args.page_size,
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let result: Result<(), Box<dyn std::error::Error + Send + Sync>> = runtime.block_on(async {
        let store: Arc<dyn skillpath_store::Store> = Arc::from(location::open(args.db.db.as_deref())?);
        if !items.is_empty() {
            let count = items.len();
            let report = store.import(items, Change { author: "serve".into(), message: "import at start".into() }).await?;
            output::stderr(&format!(
                "skillpath: imported {count} skills at start: {} created, {} updated, {} unchanged, {} shadowed\n",
                report.created.len(),
                report.updated.len(),
                report.unchanged.len(),
                report.shadowed.len()
            ))?;
        }
        let server = SkillServer::new(store, options).await?;
        for collision in &server.catalog().collisions {
            let winner = collision.winner.as_deref().map_or("a built-in tool".to_owned(), |w| format!("skill `{w}`"));
            output::stderr(&format!(
                "skillpath: tool name `{}` belongs to {winner}; skill `{}` has no tool of its own (use `load_skill`)\n",
                collision.tool_name, collision.loser
            ))?;
        }
        match args.http {
            None => skillpath_server::serve_stdio(server).await,
            Some(address) => {
                let listener = tokio::net::TcpListener::bind(address).await?;
                output::stderr(&format!("skillpath: serving MCP on http://{}/mcp\n", listener.local_addr()?))?;
                let shutdown = async {
                    let _ = tokio::signal::ctrl_c().await;
                };
                skillpath_server::serve_http(server, listener, shutdown).await
            }
        }
    });
    match result {
        Ok(()) => Ok(ExitStatus::Success),
        Err(error) => {
            output::stderr(&format!("error: {error}\n"))?;
            Ok(if error.downcast_ref::<StoreError>().is_some() {
                ExitStatus::Invalid
            } else {
                ExitStatus::UsageOrInternal
            })
        }
    }
}

/// The skills to import at start: the standard folders (unless `--no-discover`), then `--skills`.
fn startup_items(args: &ServeArgs) -> anyhow::Result<Vec<ImportItem>> {
    let mut sources: Vec<(PathBuf, String, String)> = Vec::new();
    if !args.no_discover {
        let cwd = std::env::current_dir()?;
        let home = std::env::var_os("HOME").map(PathBuf::from);
        let found = discovery::discover(Some(&cwd), home.as_deref(), DiscoveryLimits::default());
        sources.extend(found.skills.into_iter().map(|s| {
            (
                s.path,
                s.root.display().to_string(),
                s.scope.as_str().to_owned(),
            )
        }));
    }
    for root in &args.skills {
        let found = walk::find_skill_dirs(root, WalkLimits::default());
        inputs::report_skipped(&found.skipped)?;
        sources.extend(
            found
                .skills
                .into_iter()
                .map(|dir| (dir, root.display().to_string(), "folder".to_owned())),
        );
    }
    let mut items = Vec::with_capacity(sources.len());
    for (dir, root, scope) in sources {
        match read_skill_folder(&dir) {
            Ok(snapshot) => items.push(ImportItem {
                snapshot,
                provenance: Provenance::Imported {
                    path: dir.display().to_string(),
                    root,
                    scope,
                },
            }),
            Err(error) => output::stderr(&format!(
                "skillpath: skipped `{}`: {error}\n",
                dir.display()
            ))?,
        }
    }
    Ok(items)
}
