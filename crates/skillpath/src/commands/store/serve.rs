//! `skillpath serve`: the MCP server over stdio or Streamable HTTP. Stdout belongs to the
//! protocol on stdio; everything the command says goes to stderr.

use std::path::PathBuf;
use std::sync::Arc;

use skillpath_server::folders::{FolderSources, FolderSync, watch};
use skillpath_server::{ServerOptions, SkillServer, ToolsMode};
use skillpath_store::{StoreError, location};

use crate::cli::{ServeArgs, ToolsArg};
use crate::inputs;
use crate::output::{self, ExitStatus};

pub(crate) fn run(args: ServeArgs) -> anyhow::Result<ExitStatus> {
    inputs::require_existing(&args.skills)?;
    if let Some(address) = args.http
        && !address.ip().is_loopback()
        && !args.allow_remote
    {
        anyhow::bail!(
            "serving on `{address}` would expose the skills to the network without API keys, which this build does not have yet; bind to a loopback address such as 127.0.0.1:8808, or pass `--allow-remote`"
        );
    }
    let sources = FolderSources {
        discover: if args.no_discover {
            None
        } else {
            Some((
                std::env::current_dir()?,
                std::env::var_os("HOME").map(PathBuf::from),
            ))
        },
        roots: args.skills.clone(),
    };
    let options = ServerOptions {
        read_only: args.read_only,
        tools: match args.tools {
            ToolsArg::PerSkill => ToolsMode::PerSkill,
            ToolsArg::Loader => ToolsMode::Loader,
            ToolsArg::Auto => ToolsMode::Auto(args.tool_threshold),
        },
        page_size: args.page_size,
        conformance_fixtures: args.conformance_fixtures,
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let result: Result<(), Box<dyn std::error::Error + Send + Sync>> = runtime.block_on(async {
        let store: Arc<dyn skillpath_store::Store> = Arc::from(location::open(args.db.db.as_deref()).await?);
        let sync = Arc::new(FolderSync::new(sources, Arc::clone(&store)));
        let report = sync.sync().await?;
        for problem in &report.problems {
            output::stderr(&format!("skillpath: {problem}\n"))?;
        }
        output::stderr(&format!(
            "skillpath: skill folders synced: {} created, {} updated, {} unchanged, {} shadowed, {} deleted\n",
            report.import.created.len(),
            report.import.updated.len(),
            report.import.unchanged.len(),
            report.import.shadowed.len(),
            report.deleted.len()
        ))?;
        let server = SkillServer::new(store, options).await?;
        for collision in &server.catalog().collisions {
            let winner = collision.winner.as_deref().map_or("a built-in tool".to_owned(), |w| format!("skill `{w}`"));
            output::stderr(&format!(
                "skillpath: tool name `{}` belongs to {winner}; skill `{}` has no tool of its own ({}; use `load_skill` or give it its own `tool_name`)\n",
                collision.tool_name, collision.loser, collision.reason.rule()
            ))?;
        }
        // Edits in the skill folders reach the store and the clients while serving.
        let _watcher = watch(sync, server.clone())?;
        // Changes made by other processes on a shared database (other replicas, imports) too.
        if server.follow_store() {
            output::stderr("skillpath: following changes to the store made by other processes\n")?;
        }
        match args.http {
            None => skillpath_server::serve_stdio(server).await,
            Some(address) => {
                let listener = tokio::net::TcpListener::bind(address).await?;
                output::stderr(&format!("skillpath: serving MCP on http://{}/mcp\n", listener.local_addr()?))?;
                let shutdown = async {
                    let _ = tokio::signal::ctrl_c().await;
                };
                let mut options = skillpath_server::HttpOptions::default();
                options.allowed_hosts.extend(args.allowed_hosts.iter().cloned());
                options.allowed_origins.extend(args.allowed_origins.iter().cloned());
                options.stateless = args.stateless;
                if args.allow_remote {
                    output::stderr("skillpath: warning: serving without authentication; anyone who can reach this address can use the server\n")?;
                }
                skillpath_server::serve_http(server, listener, options, shutdown).await
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
