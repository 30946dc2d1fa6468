//! Signing people in with their organisation's OpenID Connect provider, through the
//! `openidconnect` crate: the provider found by its discovery document (its issuer checked
//! against the one configured), the authorization code flow with PKCE (S256), `state` and
//! `nonce`, the device authorization grant (RFC 8628) for command lines, and every ID token
//! checked: its signature against the provider's key set (fetched again when a token names a key
//! it lacks, as after a rotation; never `alg: none`), its `iss`, `aud`, `exp`, `iat` and
//! `nonce`.
//!
//! What a sign-in proves is an [`Identity`]: the account's issuer and subject, the names it
//! gives, and its groups (from a configurable claim, which must be a list). What a person may
//! then do is the application's to decide; this crate knows nothing of skills.
//!
//! Every request to the provider is bounded by the provider's `timeout` (`http`): a provider
//! that is down or slow is said so within it, and nothing else waits on it.

mod http;

use std::str::FromStr;
use std::time::{Duration, Instant};

use base64::Engine;
use chrono::{DateTime, Utc};
use openidconnect::core::{
    CoreAuthDisplay, CoreAuthenticationFlow, CoreClaimName, CoreClaimType, CoreClient,
    CoreClientAuthMethod, CoreDeviceAuthorizationResponse, CoreGrantType, CoreIdToken,
    CoreJsonWebKey, CoreJsonWebKeySet, CoreJweContentEncryptionAlgorithm,
    CoreJweKeyManagementAlgorithm, CoreJwsSigningAlgorithm, CoreResponseMode, CoreResponseType,
    CoreSubjectIdentifierType,
};
use openidconnect::{
    AdditionalProviderMetadata, AuthorizationCode, ClientId, ClientSecret, CsrfToken,
    DeviceAuthorizationUrl, DeviceCodeErrorResponseType, IssuerUrl, Nonce, PkceCodeChallenge,
    PkceCodeVerifier, ProviderMetadata, RedirectUrl, RequestTokenError, Scope, TokenResponse,
};

pub use http::{HttpError, MAX_ANSWER};

/// How long a discovery document is trusted before it is read again.
pub const DISCOVERY_LIFETIME: Duration = Duration::from_secs(3600);

/// The least time between two fetches of a provider's key set for tokens naming a key it
/// lacks (so that forged tokens cannot make the server fetch it on every request).
pub const JWKS_REFETCH_INTERVAL: Duration = Duration::from_secs(10);

/// How far in the future an ID token's `iat` may be (clocks drift).
pub const CLOCK_SKEW: Duration = Duration::from_secs(300);

/// The longest a provider may take to answer one request, unless configured otherwise.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);

/// One identity provider, as the server is configured with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProviderConfig {
    /// Its short name, in the studio's URLs (`/login/oidc/<id>`).
    pub id: String,
    /// Its name as the sign-in button shows it.
    pub display_name: String,
    /// Its issuer URL: the discovery document is at `<issuer>/.well-known/openid-configuration`
    /// and must name this issuer.
    pub issuer: String,
    /// The client ID the provider knows this server by.
    pub client_id: String,
    /// The client's secret (a confidential client: the server exchanges codes).
    pub client_secret: String,
    /// The scopes asked for (`openid` is always asked).
    pub scopes: Vec<String>,
    /// The ID token claim that lists the person's groups.
    pub groups_claim: String,
    /// The longest one request to the provider may take.
    pub timeout: Duration,
}

/// Who a sign-in proved the person is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Identity {
    /// The provider's issuer (`iss`).
    pub issuer: String,
    /// The account's subject there (`sub`): stable, unlike its names.
    pub subject: String,
    /// `preferred_username`, when the provider gives one.
    pub username: Option<String>,
    /// `email`, when given.
    pub email: Option<String>,
    /// `name`, when given.
    pub name: Option<String>,
    /// The groups of the configured claim (none when the token lacks the claim).
    pub groups: Vec<String>,
    /// The ID token itself, for the provider's end-session endpoint (`id_token_hint`).
    pub id_token: String,
}

/// Why a sign-in did not prove anyone.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum IdentityError {
    /// The provider did not answer, or not in time.
    #[error(
        "the identity provider `{provider}` did not answer: {why}; try again later (API keys keep working)"
    )]
    Unreachable {
        /// The provider's display name.
        provider: String,
        /// What happened.
        why: String,
    },
    /// Its discovery document is not one to trust (another issuer, missing endpoints).
    #[error("the discovery document of `{provider}` was refused: {why}")]
    Discovery {
        /// The provider's display name.
        provider: String,
        /// Why.
        why: String,
    },
    /// The provider refused the exchange (a code used twice, a wrong verifier, an expired
    /// device code).
    #[error("the identity provider refused the sign-in: {0}")]
    Refused(String),
    /// A device login's code expired before the person approved it.
    #[error("the code expired before it was approved")]
    Expired,
    /// The ID token failed a check.
    #[error("the ID token was refused: {0}")]
    Token(String),
    /// The ID token's claims are not what a sign-in needs.
    #[error("the ID token's claims were refused: {0}")]
    Claims(String),
}

/// A sign-in begun: where to send the browser, and what to keep until it comes back.
#[derive(Debug, Clone)]
pub struct Login {
    /// The provider's authorization URL, with the state, nonce and PKCE challenge.
    pub url: String,
    /// What the callback is checked against.
    pub pending: PendingLogin,
}

/// What a sign-in's callback must match: its `state`, and the nonce and PKCE verifier of the
/// request. Used once.
#[derive(Debug, Clone)]
pub struct PendingLogin {
    /// The `state` sent (random, 128 bits or more).
    pub state: String,
    nonce: String,
    verifier: String,
}

/// A device sign-in begun (RFC 8628): what the person is shown, and the code the command line
/// polls with.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct DeviceLogin {
    /// The provider's device code (the command line sends it back to poll).
    pub device_code: String,
    /// The code the person types.
    pub user_code: String,
    /// Where they type it.
    pub verification_uri: String,
    /// Where they approve without typing it, when the provider gives one.
    pub verification_uri_complete: Option<String>,
    /// How long the codes live, in seconds.
    pub expires_in: u64,
    /// How often to poll, in seconds.
    pub interval: u64,
}

/// What one poll of a device sign-in found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DevicePoll {
    /// Not approved yet: poll again.
    Pending,
    /// Approved: who it is.
    Approved(Identity),
}

/// The endpoints past the core ones that the discovery document may name.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
struct MoreEndpoints {
    device_authorization_endpoint: Option<DeviceAuthorizationUrl>,
    end_session_endpoint: Option<String>,
}

impl AdditionalProviderMetadata for MoreEndpoints {}

type Metadata = ProviderMetadata<
    MoreEndpoints,
    CoreAuthDisplay,
    CoreClientAuthMethod,
    CoreClaimName,
    CoreClaimType,
    CoreGrantType,
    CoreJweContentEncryptionAlgorithm,
    CoreJweKeyManagementAlgorithm,
    CoreJsonWebKey,
    CoreResponseMode,
    CoreResponseType,
    CoreSubjectIdentifierType,
>;

/// The signature algorithms an ID token may use: the asymmetric ones (never `none`, never a
/// MAC keyed by the client secret).
const SIGNED_WITH: [CoreJwsSigningAlgorithm; 9] = [
    CoreJwsSigningAlgorithm::RsaSsaPkcs1V15Sha256,
    CoreJwsSigningAlgorithm::RsaSsaPkcs1V15Sha384,
    CoreJwsSigningAlgorithm::RsaSsaPkcs1V15Sha512,
    CoreJwsSigningAlgorithm::RsaSsaPssSha256,
    CoreJwsSigningAlgorithm::RsaSsaPssSha384,
    CoreJwsSigningAlgorithm::RsaSsaPssSha512,
    CoreJwsSigningAlgorithm::EcdsaP256Sha256,
    CoreJwsSigningAlgorithm::EcdsaP384Sha384,
    CoreJwsSigningAlgorithm::EdDsa,
];

/// What was discovered of the provider, and when.
struct Discovered {
    metadata: Metadata,
    read_at: Instant,
    keys_read_at: Instant,
}

/// One identity provider: its configuration, and its discovery document and keys once read
/// (on first use, so that a provider that is down stops no server from starting).
pub struct Provider {
    config: ProviderConfig,
    discovered: tokio::sync::Mutex<Option<Discovered>>,
}

impl Provider {
    /// The provider `config` describes; nothing is fetched yet.
    pub fn new(config: ProviderConfig) -> Provider {
        Provider {
            config,
            discovered: tokio::sync::Mutex::new(None),
        }
    }

    /// How it is configured.
    pub fn config(&self) -> &ProviderConfig {
        &self.config
    }

    fn unreachable(&self, why: impl std::fmt::Display) -> IdentityError {
        IdentityError::Unreachable {
            provider: self.config.display_name.clone(),
            why: why.to_string(),
        }
    }

    /// The discovery document with its keys, read again when older than
    /// [`DISCOVERY_LIFETIME`].
    async fn metadata(&self) -> Result<Metadata, IdentityError> {
        let mut discovered = self.discovered.lock().await;
        if let Some(known) = discovered.as_ref()
            && known.read_at.elapsed() < DISCOVERY_LIFETIME
        {
            return Ok(known.metadata.clone());
        }
        let issuer = IssuerUrl::new(self.config.issuer.clone()).map_err(|error| {
            IdentityError::Discovery {
                provider: self.config.display_name.clone(),
                why: format!("the issuer `{}` is not a URL: {error}", self.config.issuer),
            }
        })?;
        let timeout = self.config.timeout;
        let client = move |request| http::send(request, timeout);
        let metadata =
            Metadata::discover_async(issuer, &client)
                .await
                .map_err(|error| match error {
                    openidconnect::DiscoveryError::Request(error) => self.unreachable(error),
                    other => IdentityError::Discovery {
                        provider: self.config.display_name.clone(),
                        why: error_chain(&other),
                    },
                })?;
        let now = Instant::now();
        *discovered = Some(Discovered {
            metadata: metadata.clone(),
            read_at: now,
            keys_read_at: now,
        });
        Ok(metadata)
    }

    /// The provider's key set read again (a token named a key it lacks), at most once per
    /// [`JWKS_REFETCH_INTERVAL`]; `Ok(false)` when it was read too recently.
    async fn refetch_keys(&self) -> Result<bool, IdentityError> {
        let mut discovered = self.discovered.lock().await;
        let Some(known) = discovered.as_mut() else {
            return Ok(false);
        };
        if known.keys_read_at.elapsed() < JWKS_REFETCH_INTERVAL {
            return Ok(false);
        }
        let timeout = self.config.timeout;
        let client = move |request| http::send(request, timeout);
        let keys = CoreJsonWebKeySet::fetch_async(known.metadata.jwks_uri(), &client)
            .await
            .map_err(|error| self.unreachable(error_chain(&error)))?;
        known.metadata = known.metadata.clone().set_jwks(keys);
        known.keys_read_at = Instant::now();
        Ok(true)
    }

    fn client(
        &self,
        metadata: Metadata,
    ) -> CoreClient<
        openidconnect::EndpointSet,
        openidconnect::EndpointNotSet,
        openidconnect::EndpointNotSet,
        openidconnect::EndpointNotSet,
        openidconnect::EndpointMaybeSet,
        openidconnect::EndpointMaybeSet,
    > {
        CoreClient::from_provider_metadata(
            metadata,
            ClientId::new(self.config.client_id.clone()),
            Some(ClientSecret::new(self.config.client_secret.clone())),
        )
    }

    fn scopes(&self) -> impl Iterator<Item = Scope> + '_ {
        self.config
            .scopes
            .iter()
            .filter(|scope| scope.as_str() != "openid")
            .map(|scope| Scope::new(scope.clone()))
    }

    /// A sign-in begun for a browser that comes back to `redirect` (the studio's callback).
    pub async fn login(&self, redirect: &str) -> Result<Login, IdentityError> {
        let metadata = self.metadata().await?;
        let redirect = redirect_url(redirect)?;
        let (challenge, verifier) = PkceCodeChallenge::new_random_sha256();
        let client = self.client(metadata).set_redirect_uri(redirect);
        let (url, state, nonce) = client
            .authorize_url(
                CoreAuthenticationFlow::AuthorizationCode,
                CsrfToken::new_random,
                Nonce::new_random,
            )
            .add_scopes(self.scopes())
            .set_pkce_challenge(challenge)
            .url();
        Ok(Login {
            url: url.to_string(),
            pending: PendingLogin {
                state: state.secret().clone(),
                nonce: nonce.secret().clone(),
                verifier: verifier.secret().clone(),
            },
        })
    }

    /// The browser's callback with `code`, for the sign-in `pending` began (whose `state` the
    /// caller matched): the code exchanged with the PKCE verifier, and the ID token checked,
    /// its nonce the request's.
    pub async fn complete(
        &self,
        redirect: &str,
        code: &str,
        pending: PendingLogin,
    ) -> Result<Identity, IdentityError> {
        let metadata = self.metadata().await?;
        let client = self
            .client(metadata)
            .set_redirect_uri(redirect_url(redirect)?);
        let timeout = self.config.timeout;
        let http = move |request| http::send(request, timeout);
        let request = client
            .exchange_code(AuthorizationCode::new(code.to_owned()))
            .map_err(|error| IdentityError::Refused(error.to_string()))?
            .set_pkce_verifier(PkceCodeVerifier::new(pending.verifier));
        let tokens = request
            .request_async(&http)
            .await
            .map_err(|error| self.token_error(error))?;
        let id_token = tokens.id_token().ok_or_else(|| {
            IdentityError::Token(
                "the provider's answer has no ID token (is `openid` a scope?)".to_owned(),
            )
        })?;
        self.verify_id_token(&id_token.to_string(), Some(&pending.nonce), Utc::now())
            .await
    }

    /// A token request's failure: the provider's refusal in its words, or that it did not
    /// answer.
    fn token_error<RE, T>(&self, error: RequestTokenError<RE, T>) -> IdentityError
    where
        RE: std::error::Error + 'static,
        T: openidconnect::ErrorResponse + 'static,
    {
        match error {
            RequestTokenError::ServerResponse(refusal) => {
                IdentityError::Refused(refusal.to_string())
            }
            RequestTokenError::Request(error) => self.unreachable(error_chain(&error)),
            other => IdentityError::Refused(error_chain(&other)),
        }
    }

    /// Checks the ID token `token` as of `at`: signed by one of the provider's keys (fetched
    /// again once for a key it lacks), issued by it for this client, not expired, not issued
    /// in the future, and carrying `nonce` when one is expected. Who it names, with their
    /// groups.
    pub async fn verify_id_token(
        &self,
        token: &str,
        nonce: Option<&str>,
        at: DateTime<Utc>,
    ) -> Result<Identity, IdentityError> {
        let parsed = CoreIdToken::from_str(token)
            .map_err(|error| IdentityError::Token(format!("it is not a signed JWT: {error}")))?;
        let mut refetched = false;
        loop {
            let metadata = self.metadata().await?;
            let client = self.client(metadata);
            let skew = chrono::Duration::from_std(CLOCK_SKEW).unwrap_or_default();
            let verifier = client
                .id_token_verifier()
                .set_allowed_algs(SIGNED_WITH)
                .set_time_fn(move || at)
                .set_issue_time_verifier_fn(move |issued: DateTime<Utc>| {
                    if issued > at + skew {
                        Err(format!("it was issued in the future ({issued})"))
                    } else {
                        Ok(())
                    }
                });
            let checked = match nonce {
                Some(expected) => {
                    let expected = Nonce::new(expected.to_owned());
                    parsed.claims(&verifier, &expected).cloned()
                }
                None => parsed
                    .claims(&verifier, |_: Option<&Nonce>| Ok(()))
                    .cloned(),
            };
            match checked {
                Ok(claims) => return self.identity(token, &claims),
                Err(openidconnect::ClaimsVerificationError::SignatureVerification(_))
                    if !refetched && self.refetch_keys().await? =>
                {
                    refetched = true;
                }
                Err(error) => return Err(IdentityError::Token(error_chain(&error))),
            }
        }
    }

    /// The identity checked `claims` name; the groups read from the token's payload (its
    /// signature checked already), where the configured claim may be any.
    fn identity(
        &self,
        token: &str,
        claims: &openidconnect::core::CoreIdTokenClaims,
    ) -> Result<Identity, IdentityError> {
        let payload = token
            .split('.')
            .nth(1)
            .and_then(|part| {
                base64::engine::general_purpose::URL_SAFE_NO_PAD
                    .decode(part)
                    .ok()
            })
            .and_then(|bytes| serde_json::from_slice::<serde_json::Value>(&bytes).ok())
            .ok_or_else(|| IdentityError::Token("its payload is not JSON".to_owned()))?;
        let groups = groups_of(&payload, &self.config.groups_claim)?;
        Ok(Identity {
            issuer: claims.issuer().to_string(),
            subject: claims.subject().to_string(),
            username: claims.preferred_username().map(|name| name.to_string()),
            email: claims.email().map(|email| email.to_string()),
            name: claims
                .name()
                .and_then(|name| name.get(None))
                .map(|name| name.to_string()),
            groups,
            id_token: token.to_owned(),
        })
    }

    /// A device sign-in begun with the server's client, or `None` where the provider's
    /// discovery document names no device authorization endpoint.
    pub async fn device_login(&self) -> Result<Option<DeviceLogin>, IdentityError> {
        let metadata = self.metadata().await?;
        let Some(endpoint) = metadata
            .additional_metadata()
            .device_authorization_endpoint
            .clone()
        else {
            return Ok(None);
        };
        let client = self.client(metadata).set_device_authorization_url(endpoint);
        let timeout = self.config.timeout;
        let http = move |request| http::send(request, timeout);
        let started: CoreDeviceAuthorizationResponse = client
            .exchange_device_code()
            .add_scopes(self.scopes())
            .request_async(&http)
            .await
            .map_err(|error| self.token_error(error))?;
        Ok(Some(DeviceLogin {
            device_code: started.device_code().secret().clone(),
            user_code: started.user_code().secret().clone(),
            verification_uri: started.verification_uri().to_string(),
            verification_uri_complete: started
                .verification_uri_complete()
                .map(|uri| uri.secret().clone()),
            expires_in: started.expires_in().as_secs(),
            interval: started.interval().as_secs(),
        }))
    }

    /// Polls the device sign-in of `device_code` for at most `wait`, asking the provider every
    /// `interval` (its own, from [`DeviceLogin::interval`]; slower when it says so): approved,
    /// still pending, or refused (denied, expired).
    pub async fn poll_device(
        &self,
        device_code: &str,
        interval: Duration,
        wait: Duration,
    ) -> Result<DevicePoll, IdentityError> {
        let metadata = self.metadata().await?;
        let client = self.client(metadata);
        // What the grant's request is made from; only the device code and the interval are
        // sent or used (the wait is bounded below, not by this lifetime).
        let answer = serde_json::json!({
            "device_code": device_code,
            "user_code": "",
            "verification_uri": "https://verification.invalid/",
            "expires_in": wait.as_secs().max(1),
            "interval": interval.as_secs().max(1),
        });
        let details: CoreDeviceAuthorizationResponse =
            serde_json::from_value(answer).map_err(|error| {
                IdentityError::Refused(format!("the device code is not one: {error}"))
            })?;
        let timeout = self.config.timeout;
        let http = move |request| http::send(request, timeout);
        let request = client
            .exchange_device_access_token(&details)
            .map_err(|error| IdentityError::Refused(error.to_string()))?;
        let polled =
            tokio::time::timeout(wait, request.request_async(&http, tokio::time::sleep, None))
                .await;
        let tokens = match polled {
            Err(_) => return Ok(DevicePoll::Pending),
            Ok(Err(RequestTokenError::ServerResponse(refusal)))
                if *refusal.error() == DeviceCodeErrorResponseType::ExpiredToken =>
            {
                return Err(IdentityError::Expired);
            }
            Ok(answer) => answer.map_err(|error| self.token_error(error))?,
        };
        let id_token = tokens.id_token().ok_or_else(|| {
            IdentityError::Token(
                "the provider's answer has no ID token (is `openid` a scope?)".to_owned(),
            )
        })?;
        let identity = self
            .verify_id_token(&id_token.to_string(), None, Utc::now())
            .await?;
        Ok(DevicePoll::Approved(identity))
    }

    /// The provider's end-session URL for the sign-in whose ID token is `id_token`, coming back
    /// to `after`; `None` where its discovery document names none.
    pub async fn end_session_url(&self, id_token: &str, after: &str) -> Option<String> {
        let metadata = self.metadata().await.ok()?;
        let endpoint = metadata
            .additional_metadata()
            .end_session_endpoint
            .clone()?;
        let mut url = openidconnect::url::Url::parse(&endpoint).ok()?;
        url.query_pairs_mut()
            .append_pair("id_token_hint", id_token)
            .append_pair("post_logout_redirect_uri", after)
            .append_pair("client_id", &self.config.client_id);
        Some(url.to_string())
    }
}

fn redirect_url(redirect: &str) -> Result<RedirectUrl, IdentityError> {
    RedirectUrl::new(redirect.to_owned()).map_err(|error| IdentityError::Discovery {
        provider: "this server".to_owned(),
        why: format!("the callback `{redirect}` is not a URL: {error} (set `--public-url`)"),
    })
}

/// The groups the claim `claim` of `payload` lists: none without the claim; refused when it
/// is not a list of strings.
pub fn groups_of(payload: &serde_json::Value, claim: &str) -> Result<Vec<String>, IdentityError> {
    match payload.get(claim) {
        None | Some(serde_json::Value::Null) => Ok(Vec::new()),
        Some(serde_json::Value::Array(items)) => items
            .iter()
            .map(|item| {
                item.as_str().map(str::to_owned).ok_or_else(|| {
                    IdentityError::Claims(format!(
                        "the group claim `{claim}` lists {item}, which is not a group's name"
                    ))
                })
            })
            .collect(),
        Some(other) => Err(IdentityError::Claims(format!(
            "the group claim `{claim}` is {other}, not a list of groups; set `--oidc-groups-claim` to the claim that lists them"
        ))),
    }
}

/// An error with its sources, as one sentence.
fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let said = cause.to_string();
        if !text.contains(&said) {
            text.push_str(": ");
            text.push_str(&said);
        }
        source = cause.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_are_a_list_of_names() {
        let payload =
            serde_json::json!({"groups": ["platform", "team-a"], "roles": "admin", "odd": [1]});
        assert_eq!(
            groups_of(&payload, "groups").expect("a list"),
            ["platform", "team-a"]
        );
        assert_eq!(
            groups_of(&payload, "absent").expect("none"),
            Vec::<String>::new()
        );
        let not_a_list = groups_of(&payload, "roles").expect_err("a string");
        assert!(
            not_a_list.to_string().contains("not a list of groups"),
            "{not_a_list}"
        );
        let not_names = groups_of(&payload, "odd").expect_err("numbers");
        assert!(
            not_names.to_string().contains("not a group's name"),
            "{not_names}"
        );
    }
}
