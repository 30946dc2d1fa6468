//! The skillpath MCP server: every stored skill as a tool (or, for large catalogs, behind
//! `search_skills` and `load_skill`), the authoring tools that create and change skills, skills
//! and their files as resources, skills as prompts, and `list_changed` notifications whenever
//! the catalog changes.
//!
//! Start with [`SkillServer`]. It holds a store and an in-memory [`catalog::Catalog`]; every
//! write through a tool goes to the store, then the catalog is reloaded and clients are told.
//! Only this crate knows MCP types; rendering and validation are core's, storage is the store's.

mod authoring;
mod builtin;
pub mod catalog;
mod resources;
mod server;

pub use server::{DEFAULT_TOOL_THRESHOLD, ServerOptions, SkillServer, ToolsMode};

/// Serves `server` over stdin/stdout until the client disconnects. Logs must go to stderr.
pub async fn serve_stdio(
    server: SkillServer,
) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    use rmcp::ServiceExt;
    let running = server.serve(rmcp::transport::stdio()).await?;
    running.waiting().await?;
    Ok(())
}
