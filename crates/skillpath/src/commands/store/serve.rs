//! `skillpath serve`: the MCP server over stdio or Streamable HTTP. Stdout belongs to the
//! protocol on stdio; everything the command says goes to stderr.

use std::path::PathBuf;
use std::sync::Arc;

use skillpath_core::golden_path::render::RenderLimits;
use skillpath_folders::sources::FolderSources;
use skillpath_server::folders::{FolderSync, begin, watch};
use skillpath_server::{
    ElicitMode, HttpLimits, KeyPolicy, MIN_STATE_KEY_BYTES, ServerOptions, SkillServer, ToolsMode,
};
use skillpath_store::{ProjectView, StoreError, location};

use std::io::IsTerminal;

use crate::cli::{AuthArg, ElicitArg, ReviewArg, ServeArgs, StudioArgs, ToolsArg};
use crate::error::store_exit_status;
use crate::inputs;
use crate::output::{self, ExitStatus};

pub(crate) fn run(args: ServeArgs) -> anyhow::Result<ExitStatus> {
    serve(args, false)
}

/// `skillpath studio`: `serve --http` on loopback (unless `--http` names another address), the
/// studio's address said, and opened in a browser unless `--no-open`.
pub(crate) fn studio(mut args: StudioArgs) -> anyhow::Result<ExitStatus> {
    args.serve.http.get_or_insert(DEFAULT_STUDIO_ADDRESS);
    args.serve.no_studio = false;
    serve(args.serve, !args.no_open)
}

/// Where `skillpath studio` listens by default (`serve --http`'s default address).
const DEFAULT_STUDIO_ADDRESS: std::net::SocketAddr =
    std::net::SocketAddr::new(std::net::IpAddr::V4(std::net::Ipv4Addr::LOCALHOST), 8808);

/// What `serve` started on a terminal says: stdin is for a client, not for typing.
const ON_A_TERMINAL: &str = "skillpath serve speaks MCP on stdin/stdout, for an agent to start it: register it with e.g. `claude mcp add skillpath -- skillpath serve` (`skillpath studio` opens the web pages; Ctrl-C stops)\n";

fn serve(args: ServeArgs, open_browser: bool) -> anyhow::Result<ExitStatus> {
    if args.http.is_none() && std::io::stdin().is_terminal() {
        output::stderr(ON_A_TERMINAL)?;
    }
    inputs::require_existing(&args.skills)?;
    let sign_in = match super::sign_in::options(&args.oidc) {
        Ok(sign_in) => sign_in,
        Err(why) => {
            output::stderr(&format!("error: {why}\n"))?;
            return Ok(ExitStatus::UsageOrInternal);
        }
    };
    let project = std::env::current_dir()?;
    // The server shows its own project's skills (and the shared ones), never another's.
    let view = ProjectView::of(&project);
    let sources = FolderSources {
        discover: if args.no_discover {
            None
        } else {
            Some((project, std::env::var_os("HOME").map(PathBuf::from)))
        },
        roots: args
            .skills
            .iter()
            .map(|path| inputs::skill_dir_of(path))
            .collect(),
    };
    // A team server, where requests need keys, refuses risky skills and reviews authors'
    // writes unless told otherwise.
    let team = args
        .http
        .is_some_and(|address| key_policy(args.auth, address) == KeyPolicy::Required);
    let options = ServerOptions {
        read_only: args.read_only,
        review: args
            .review
            .map_or(team, |review| review == ReviewArg::Required),
        tools: match args.tools {
            ToolsArg::PerSkill => ToolsMode::PerSkill,
            ToolsArg::Loader => ToolsMode::Loader,
            ToolsArg::Auto => ToolsMode::Auto(args.tool_threshold),
        },
        page_size: args.page_size,
        #[cfg(feature = "conformance-fixtures")]
        conformance_fixtures: args.conformance_fixtures,
        render_limits: RenderLimits {
            max_output_bytes: args.max_render_bytes,
            max_value_bytes: args.max_argument_bytes,
            ..RenderLimits::default()
        },
        content_cache_bytes: args.content_cache_mb.saturating_mul(1024 * 1024),
        elicit: match args.elicit {
            ElicitArg::Never => ElicitMode::Never,
            ElicitArg::Missing => ElicitMode::Missing,
            ElicitArg::Always => ElicitMode::Always,
        },
        elicit_timeout: std::time::Duration::from_secs(args.elicit_timeout),
        request_state_key: args
            .request_state_key
            .as_deref()
            .map(read_state_key)
            .transpose()?,
        meaning: super::meaning(&args.embeddings)?,
        sync_wait: args.sync_wait,
        namespaces: (!args.namespaces.is_empty()).then(|| args.namespaces.clone()),
        channel: args.channel.clone().unwrap_or_default(),
    };
    let review = options.review;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let result: Result<(), Box<dyn std::error::Error + Send + Sync>> = runtime.block_on(async {
        let store: Arc<dyn skillpath_store::Store> = Arc::from(location::open(args.db.db.as_deref(), &view).await?);
        let policy = args.audit.policy(team);
        store.set_audit_policy(policy);
        if policy != skillpath_audit::Policy::Warn {
            tracing::info!("audit policy for skills written: {policy}");
        }
        let sync = Arc::new(FolderSync::new(sources, Arc::clone(&store)));
        // Begun beside the catalog's load, so that a cold start's first answers, which wait
        // for it, come as early as they can.
        let started = begin(&sync);
        // The folders are synced in the background, and the first answers wait for that sync
        // within `--sync-wait` (a store that already holds the folders' skills answers at
        // once; past the bound the
        // store's state is served, said so, and clients hear `list_changed` when the sync
        // changed something); then the folders are watched, so edits reach the store and the
        // clients while serving. A folder that cannot be loaded is skipped and named; a sync
        // that fails is said and tried again.
        let server = SkillServer::new(store, options).await?;
        watch(sync, started, server.clone());
        // Changes made by other processes on a shared database (other replicas, imports) too.
        if server.follow_store() {
            tracing::info!("following changes to the store made by other processes");
        }
        let drain = std::time::Duration::from_secs(args.drain_timeout);
        let shutdown = shutdown_signal(drain, server.clone())?;
        match args.http {
            None => {
                let served = skillpath_server::serve_stdio(server.clone(), shutdown, drain).await;
                server.write_usage().await;
                // A client that closes stdin at once (or a script that runs `serve < /dev/null`
                // to sync the folders) still gets the first sync, bounded by the drain time.
                let _ = tokio::time::timeout(drain, server.first_sync_done()).await;
                served
            }
            Some(address) => {
                let listener = listen(address, args.max_connections)?;
                let mut options = skillpath_server::HttpOptions::default();
                options.allowed_hosts.extend(args.allowed_hosts.iter().cloned());
                options.allowed_origins.extend(args.allowed_origins.iter().cloned());
                options.stateless = args.stateless;
                options.keys = key_policy(args.auth, address);
                options.public_read = args.public_read;
                options.drain = drain;
                let registry_limits = skillpath_registry::RateLimits {
                    per_key: args.registry_rate_limit,
                    per_address: args.registry_anonymous_rate_limit,
                    loopback: args.registry_rate_limit_loopback,
                };
                options.limits = HttpLimits {
                    header_timeout: std::time::Duration::from_secs(args.header_timeout.max(1)),
                    max_connections: args.max_connections,
                    max_sessions: args.max_sessions,
                    session_idle: std::time::Duration::from_secs(args.session_idle.max(1)),
                };
                // Every connection is a descriptor: the soft limit most systems start with
                // (1,024) is below `--max-connections`.
                if let Some((soft, _)) = skillpath_server::raise_open_file_limit()
                    && soft < args.max_connections as u64 + 64
                {
                    tracing::warn!(
                        "this process may open {soft} files, fewer than `--max-connections` {} needs; raise `LimitNOFILE` (systemd) or `ulimit -n`",
                        args.max_connections
                    );
                }
                if options.keys == KeyPolicy::Required {
                    tracing::info!("every request needs an API key (`skillpath keys create`)");
                }
                if review {
                    tracing::info!("what author keys write waits for a maintainer to publish it (`skillpath review`)");
                }
                let local = listener.local_addr()?;
                options.registry = Some(skillpath_server::Registry {
                    keyed: skillpath_registry::api(server.app().clone(), registry_limits),
                    open: skillpath_registry::discovery(),
                    large_bodies: skillpath_registry::LARGE_BODIES
                        .iter()
                        .map(|path| (*path).to_owned())
                        .collect(),
                });
                tracing::info!(
                    "the `clawhub` CLI reaches its registry at http://{}/ (`CLAWHUB_REGISTRY`)",
                    browsable(local)
                );
                if !args.no_studio {
                    options.pages = Some(skillpath_studio::routes(
                        server.clone(),
                        skillpath_studio::StudioOptions {
                            keys: options.keys,
                            allowed_hosts: options.allowed_hosts.clone(),
                            sign_in: sign_in.clone(),
                        },
                    ));
                    let url = format!("http://{}/", browsable(local));
                    tracing::info!("the studio is at {url}");
                    if open_browser {
                        open_in_browser(&url);
                    }
                }
                // Last, so that whoever waits for this line has read everything said before serving.
                tracing::info!("serving MCP on http://{local}/mcp");
                let served =
                    skillpath_server::serve_http(server.clone(), listener, options, shutdown).await;
                // The uses counted since the last write (every few seconds) are written last.
                server.write_usage().await;
                served
            }
        }
    });
    // Everything the server owes is answered and written by now. What is still under way is
    // not waited for: a thread reading stdin (agents signal a server without closing it), a
    // later folder sync (rolled back if not committed, and done again at the next start).
    runtime.shutdown_background();
    match result {
        Ok(()) => Ok(ExitStatus::Success),
        Err(error) => {
            output::stderr(&format!("error: {error}\n"))?;
            Ok(error
                .downcast_ref::<StoreError>()
                .map_or(ExitStatus::UsageOrInternal, store_exit_status))
        }
    }
}

/// A listening socket on `address` whose queue of connections not yet accepted holds a burst of
/// `connections` (Rust's standard `bind` keeps 128, so a burst of more new clients than that
/// waits for the kernel to retry their handshakes, a second or more).
fn listen(
    address: std::net::SocketAddr,
    connections: usize,
) -> std::io::Result<tokio::net::TcpListener> {
    let socket = if address.is_ipv4() {
        tokio::net::TcpSocket::new_v4()?
    } else {
        tokio::net::TcpSocket::new_v6()?
    };
    #[cfg(unix)]
    socket.set_reuseaddr(true)?;
    socket.bind(address)?;
    socket.listen(u32::try_from(connections.clamp(128, 65_535)).unwrap_or(1024))
}

/// Keys are required when asked for, and whenever other hosts can reach the server.
/// The bytes of the `--request-state-key` file, refused (with the fix) when it cannot be read
/// or is too short to be a key.
fn read_state_key(path: &std::path::Path) -> anyhow::Result<Vec<u8>> {
    let key = std::fs::read(path).map_err(|error| {
        anyhow::anyhow!(
            "cannot read the request-state key `{}`: {error}",
            path.display()
        )
    })?;
    if key.len() < MIN_STATE_KEY_BYTES {
        anyhow::bail!(
            "the request-state key `{}` has {} bytes; it needs at least {MIN_STATE_KEY_BYTES}\n  = hint: make one with `head -c 32 /dev/urandom > {}` and give every replica the same file",
            path.display(),
            key.len(),
            path.display()
        );
    }
    Ok(key)
}

fn key_policy(auth: AuthArg, address: std::net::SocketAddr) -> KeyPolicy {
    if auth == AuthArg::Required || !address.ip().is_loopback() {
        KeyPolicy::Required
    } else {
        KeyPolicy::Optional
    }
}

/// Completes on Ctrl-C (SIGINT) or, on Unix, SIGTERM (what systemd and container runtimes send
/// to stop a service), so that both end the server gracefully within `drain`; a second signal
/// (an agent sends SIGTERM 100 ms after SIGINT) ends the process at once (exit status 1), once
/// `server`'s usage counts are written (within a bound).
fn shutdown_signal(
    drain: std::time::Duration,
    server: SkillServer,
) -> std::io::Result<impl std::future::Future<Output = ()> + Send + 'static> {
    let mut signals = Signals::new()?;
    Ok(async move {
        signals.next().await;
        tracing::info!(
            "shutting down: taking no more calls, answering those in flight (up to {} s; a second signal ends it at once)",
            drain.as_secs()
        );
        tokio::spawn(async move {
            signals.next().await;
            tracing::info!("a second signal: ending now");
            server.write_usage().await;
            std::process::exit(i32::from(ExitStatus::Invalid.code()));
        });
    })
}

/// SIGINT and, on Unix, SIGTERM.
struct Signals {
    #[cfg(unix)]
    terminate: tokio::signal::unix::Signal,
}

impl Signals {
    fn new() -> std::io::Result<Signals> {
        Ok(Signals {
            #[cfg(unix)]
            terminate: tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())?,
        })
    }

    /// The next of either signal.
    async fn next(&mut self) {
        #[cfg(unix)]
        tokio::select! {
            _ = tokio::signal::ctrl_c() => {}
            _ = self.terminate.recv() => {}
        }
        #[cfg(not(unix))]
        let _ = tokio::signal::ctrl_c().await;
    }
}

/// The address a browser reaches a server listening on `address` at: loopback for an
/// unspecified address (`0.0.0.0`, `::`).
fn browsable(address: std::net::SocketAddr) -> std::net::SocketAddr {
    match address.ip() {
        std::net::IpAddr::V4(ip) if ip.is_unspecified() => {
            std::net::SocketAddr::new(std::net::Ipv4Addr::LOCALHOST.into(), address.port())
        }
        std::net::IpAddr::V6(ip) if ip.is_unspecified() => {
            std::net::SocketAddr::new(std::net::Ipv6Addr::LOCALHOST.into(), address.port())
        }
        _ => address,
    }
}

/// Opens `url` in the desktop's browser, when there is a desktop: nothing is said when there
/// is none (a server, a container, SSH), since the address was just printed.
fn open_in_browser(url: &str) {
    let opener: &[&str] = if cfg!(target_os = "macos") {
        &["open"]
    } else if cfg!(windows) {
        &["cmd", "/c", "start", ""]
    } else if std::env::var_os("DISPLAY").is_some() || std::env::var_os("WAYLAND_DISPLAY").is_some()
    {
        &["xdg-open"]
    } else {
        return;
    };
    let spawned = std::process::Command::new(opener[0])
        .args(&opener[1..])
        .arg(url)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn();
    if let Err(error) = spawned {
        tracing::info!("could not open a browser ({error}); open {url} yourself");
    }
}
