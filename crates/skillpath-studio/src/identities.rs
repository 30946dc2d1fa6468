//! The identity providers people sign in with (OpenID Connect, through [`skillpath_identity`]),
//! the mapping of their groups, and the sign-ins the studio began and that wait for their
//! callback: kept in this process, at most [`MAX_WAITING`] at once for [`WAITING_LIFETIME`]
//! each, each bound to the browser's cookie and used once (`take`), so that a callback replayed
//! or forged finds nothing. The pages that use them are `pages::sign_in`.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::http::{HeaderMap, header};
use skillpath_app::GroupRule;
use skillpath_identity::{PendingLogin, Provider};

/// The most sign-ins waiting for their callback at once; past it the oldest is dropped.
pub const MAX_WAITING: usize = 10_000;

/// How long a sign-in waits for its callback (the person types their password meanwhile).
pub const WAITING_LIFETIME: Duration = Duration::from_secs(10 * 60);

/// How long one poll of a device login waits for the person's approval before it answers
/// `authorization_pending` (the command line polls again).
pub const DEVICE_POLL_WAIT: Duration = Duration::from_secs(20);

/// How the studio signs people in with identity providers.
#[derive(Debug, Clone)]
pub struct SignInOptions {
    /// The providers, in the order their buttons are shown.
    pub providers: Vec<skillpath_identity::ProviderConfig>,
    /// How their groups map to namespaces and administration.
    pub rules: Vec<GroupRule>,
    /// The studio's address as its users reach it (`https://skills.example.com`), which the
    /// callback is under; `None`: the address the request came to.
    pub public_url: Option<String>,
    /// How long a key made by `skillpath login` lives.
    pub cli_key_lifetime: Duration,
}

/// The providers, the mapping, and the sign-ins waiting for their callback.
pub(crate) struct SignIns {
    pub(crate) providers: Vec<Provider>,
    pub(crate) rules: Vec<GroupRule>,
    public_url: Option<String>,
    pub(crate) cli_key_lifetime: Duration,
    waiting: Mutex<HashMap<String, Waiting>>,
}

/// A sign-in begun, until its callback.
pub(crate) struct Waiting {
    /// The provider's place in the list.
    pub(crate) provider: usize,
    /// What its callback is checked against.
    pub(crate) login: PendingLogin,
    /// The cookie of the browser that began it.
    pub(crate) cookie: String,
    /// Where to go once signed in.
    pub(crate) next: String,
    /// When it began.
    pub(crate) began: Instant,
}

impl SignIns {
    pub(crate) fn new(options: SignInOptions) -> SignIns {
        SignIns {
            providers: options.providers.into_iter().map(Provider::new).collect(),
            rules: options.rules,
            public_url: options
                .public_url
                .map(|url| url.trim_end_matches('/').to_owned()),
            cli_key_lifetime: options.cli_key_lifetime,
            waiting: Mutex::new(HashMap::new()),
        }
    }

    /// Each provider's short name and display name, for the sign-in page's buttons.
    pub(crate) fn buttons(&self) -> Vec<(String, String)> {
        self.providers
            .iter()
            .map(|provider| {
                let config = provider.config();
                (config.id.clone(), config.display_name.clone())
            })
            .collect()
    }

    /// The studio's address as the browser reached it (`--public-url`, else its `Host`, which
    /// the gate allowed).
    pub(crate) fn base(&self, headers: &HeaderMap) -> String {
        if let Some(url) = &self.public_url {
            return url.clone();
        }
        let host = headers
            .get(header::HOST)
            .and_then(|value| value.to_str().ok())
            .unwrap_or("127.0.0.1");
        format!("http://{host}")
    }

    pub(crate) fn callback(&self, headers: &HeaderMap) -> String {
        format!("{}/login/oidc/callback", self.base(headers))
    }

    pub(crate) fn keep(&self, state: String, waiting: Waiting) {
        if let Ok(mut all) = self.waiting.lock() {
            all.retain(|_, kept| kept.began.elapsed() < WAITING_LIFETIME);
            if all.len() >= MAX_WAITING
                && let Some(oldest) = all
                    .iter()
                    .min_by_key(|(_, kept)| kept.began)
                    .map(|(state, _)| state.clone())
            {
                all.remove(&oldest);
            }
            all.insert(state, waiting);
        }
    }

    /// The sign-in `state` began, taken (used once), while it lives.
    pub(crate) fn take(&self, state: &str) -> Option<Waiting> {
        let mut all = self.waiting.lock().ok()?;
        let waiting = all.remove(state)?;
        // Found by its state: the lookup is the comparison.
        (waiting.began.elapsed() < WAITING_LIFETIME).then_some(waiting)
    }

    pub(crate) fn provider(&self, id: &str) -> Option<(usize, &Provider)> {
        self.providers
            .iter()
            .enumerate()
            .find(|(_, provider)| provider.config().id == id)
    }
}

/// The sign-ins of a studio, shared by its requests.
pub(crate) type Shared = Arc<SignIns>;
