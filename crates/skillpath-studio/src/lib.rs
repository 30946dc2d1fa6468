//! The skillpath studio: web pages where the people who own skills browse, try, edit and
//! review them, served beside `/mcp` by `skillpath serve --http` on the same address, from the
//! same store, with the same keys and roles.
//!
//! Pages are HTML rendered on the server (askama templates, `templates/`), with one small
//! script that adds search as you type and the editor's live checks; reading works without
//! it. Skill content is hostile input: markdown is rendered through a sanitiser
//! (`markdown`), every other text is escaped by the templates, and the pages are served
//! under a Content-Security-Policy that allows only the studio's own script and styles
//! (`gate`). What a page reads and writes goes through the application layer's operations
//! ([`skillpath_app::App`]), which decide who may do what (roles, review, read-only) as they do
//! for MCP's tools; the studio decides no rule of its own and never reaches the store.
//!
//! Start with [`routes`].

mod assets;
mod diff_view;
mod encode;
mod gate;
mod identities;
mod markdown;
mod pages;
mod visitor;

use std::sync::Arc;

use skillpath_server::{KeyPolicy, SkillServer};

pub use identities::{DEVICE_POLL_WAIT, MAX_WAITING, SignInOptions, WAITING_LIFETIME};
pub use visitor::{MAX_SESSIONS, SESSION_IDLE, SESSION_LIFETIME};

/// How the studio is served.
#[derive(Debug, Clone)]
pub struct StudioOptions {
    /// Whether a visitor must sign in with an API key (as every MCP request needs one).
    pub keys: KeyPolicy,
    /// The `Host` header values accepted (host names, with or without a port): the same as
    /// MCP's, so a page on another site cannot reach a loopback studio through DNS rebinding.
    pub allowed_hosts: Vec<String>,
    /// Signing in with identity providers (OpenID Connect), besides API keys.
    pub sign_in: Option<SignInOptions>,
}

/// The studio's routes, to merge beside `/mcp`: `/` (the catalog), `/skills/<name>` and the
/// pages under it, `/review`, `/new`, `/settings/keys`, `/connect`, `/login` (and
/// `/login/oidc/…` with a provider), and `/assets/`; and the device login's JSON API for
/// `skillpath login` (`/login/device`, `/login/device/token`, `/logout/key`).
pub fn routes(server: SkillServer, options: StudioOptions) -> axum::Router {
    let state = pages::common::Studio {
        server,
        sessions: Arc::new(visitor::Sessions::new()),
        keys: options.keys,
        allowed_hosts: Arc::new(options.allowed_hosts),
        sign_ins: options
            .sign_in
            .map(|options| Arc::new(identities::SignIns::new(options))),
    };
    pages::router(state.clone()).merge(pages::sign_in::api(state))
}
