//! The MCP server's own tests: a [`skillpath_server::SkillServer`] in the test's process,
//! spoken to over an in-memory pipe as a client speaks to it, so that what the server answers
//! is tested without the binary (whose own tests keep what only a process shows: signals,
//! exit statuses, several processes on one database).

mod claude_args;
mod http;
mod protocol;
mod wire;
