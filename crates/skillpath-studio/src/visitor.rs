//! Who is visiting: the session cookie, the sessions of visitors signed in with an API key, and
//! the CSRF token of every page.
//!
//! Every visitor has a cookie, `skillpath_studio` (HttpOnly, SameSite=Strict): a random value
//! that holds nothing. A visitor who signs in with an API key gets a new value, which the
//! server maps to the key in memory ([`Sessions`]); the key is checked again on every request
//! (by [`crate::gate`]), so a revoked or expired key ends its sessions at once, and a cookie the
//! server does not know (forged, or from before a restart) is a visitor who has not signed in.
//! The CSRF token of a page is an HMAC of the cookie under a secret of this process. This
//! module imports no page, so the pages and the gate in front of them can both name a
//! [`Visitor`].

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use sha2::{Digest, Sha256};
use skillpath_server::Caller;

use crate::encode::hex;

/// The most signed-in sessions kept at once; signing in past it ends the one least recently
/// used.
pub const MAX_SESSIONS: usize = 10_000;
/// How long a signed-in session may go unused before it ends.
pub const SESSION_IDLE: Duration = Duration::from_secs(12 * 3600);
/// How long a signed-in session lasts at most.
pub const SESSION_LIFETIME: Duration = Duration::from_secs(7 * 24 * 3600);

/// The signed-in sessions of this process, and the secret of its CSRF tokens.
pub(crate) struct Sessions {
    secret: [u8; 32],
    signed_in: Mutex<HashMap<String, Session>>,
}

struct Session {
    /// The API key presented at sign-in, or made for it (never logged, never sent back).
    key: String,
    /// The identity provider it signed in with, if one.
    origin: Option<Origin>,
    created: Instant,
    seen: Instant,
}

/// How a session signed in with an identity provider: which, and the ID token it gave (the
/// end-session endpoint's `id_token_hint`).
#[derive(Debug, Clone)]
pub(crate) struct Origin {
    /// The provider's place in the server's list.
    pub(crate) provider: usize,
    /// The ID token.
    pub(crate) id_token: String,
}

impl Sessions {
    pub(crate) fn new() -> Sessions {
        Sessions {
            secret: random_bytes(),
            signed_in: Mutex::new(HashMap::new()),
        }
    }

    /// The CSRF token of the cookie `cookie`.
    pub(crate) fn csrf(&self, cookie: &str) -> String {
        hex(&hmac_sha256(&self.secret, cookie.as_bytes()))
    }

    /// Whether `token` is the CSRF token of `cookie` (compared in constant time).
    pub(crate) fn csrf_matches(&self, cookie: &str, token: &str) -> bool {
        let expected = self.csrf(cookie);
        expected.len() == token.len()
            && expected
                .bytes()
                .zip(token.bytes())
                .fold(0u8, |diff, (a, b)| diff | (a ^ b))
                == 0
    }

    /// A new session for `key` (made by a sign-in with a provider: `origin`), the cookie
    /// value that names it.
    pub(crate) fn sign_in(&self, key: String, origin: Option<Origin>) -> String {
        let cookie = new_cookie();
        let now = Instant::now();
        if let Ok(mut sessions) = self.signed_in.lock() {
            sessions.retain(|_, session| live(session, now));
            if sessions.len() >= MAX_SESSIONS
                && let Some(oldest) = sessions
                    .iter()
                    .min_by_key(|(_, session)| session.seen)
                    .map(|(cookie, _)| cookie.clone())
            {
                sessions.remove(&oldest);
            }
            sessions.insert(
                cookie.clone(),
                Session {
                    key,
                    origin,
                    created: now,
                    seen: now,
                },
            );
        }
        cookie
    }

    /// Ends the session of `cookie`, if it has one: how it signed in, when with a provider.
    pub(crate) fn sign_out(&self, cookie: &str) -> Option<Origin> {
        let mut sessions = self.signed_in.lock().ok()?;
        sessions.remove(cookie)?.origin
    }

    /// The key the session of `cookie` signed in with, while it lasts, and whether an identity
    /// provider's sign-in made it.
    pub(crate) fn key_of(&self, cookie: &str) -> Option<(String, bool)> {
        let now = Instant::now();
        let mut sessions = self.signed_in.lock().ok()?;
        let session = sessions.get_mut(cookie)?;
        if !live(session, now) {
            sessions.remove(cookie);
            return None;
        }
        session.seen = now;
        Some((session.key.clone(), session.origin.is_some()))
    }
}

fn live(session: &Session, now: Instant) -> bool {
    now.duration_since(session.seen) < SESSION_IDLE
        && now.duration_since(session.created) < SESSION_LIFETIME
}

/// Who a request is from, as the pages see it.
#[derive(Debug, Clone)]
pub(crate) struct Visitor {
    /// The value of the visitor's cookie (a new one when the request had none).
    pub(crate) cookie: String,
    /// The CSRF token every form of the page carries.
    pub(crate) csrf: String,
    /// Who the visitor is to the server; `None` where they must sign in first.
    pub(crate) caller: Option<Caller>,
    /// The name of the key they signed in with.
    pub(crate) signed_in: Option<String>,
    /// Said once on the next page (a key that stopped working).
    pub(crate) notice: Option<String>,
}

impl Visitor {
    /// Who acts: the caller, or the reader no one signed in as (where keys are required the
    /// pages ask for a sign-in before any of this is asked).
    pub(crate) fn caller(&self) -> Caller {
        self.caller.clone().unwrap_or_else(Caller::anonymous)
    }
}

/// A new random cookie value (64 hex digits).
pub(crate) fn new_cookie() -> String {
    hex(&random_bytes())
}

fn random_bytes() -> [u8; 32] {
    let mut bytes = [0u8; 32];
    // The operating system's generator; if it fails, the time and the process id still make
    // the value unguessable to another site (they are hashed with the address of a local).
    if getrandom::fill(&mut bytes).is_err() {
        let seed = format!(
            "{:?}{}{:p}",
            std::time::SystemTime::now(),
            std::process::id(),
            &bytes
        );
        bytes = Sha256::digest(seed.as_bytes()).into();
    }
    bytes
}

/// HMAC-SHA256 (RFC 2104) of `message` under `key` (32 bytes, within SHA-256's block).
fn hmac_sha256(key: &[u8; 32], message: &[u8]) -> [u8; 32] {
    let mut block = [0u8; 64];
    block[..32].copy_from_slice(key);
    let pad = |byte: u8| block.map(|b| b ^ byte);
    let inner = Sha256::new()
        .chain_update(pad(0x36))
        .chain_update(message)
        .finalize();
    Sha256::new()
        .chain_update(pad(0x5c))
        .chain_update(inner)
        .finalize()
        .into()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 4231 test case 2 has a short key; the key padded with zeros to 32 bytes gives the
    /// same HMAC (keys shorter than the block are padded with zeros anyway).
    #[test]
    fn hmac_is_rfc_4231s() {
        let mut key = [0u8; 32];
        key[..4].copy_from_slice(b"Jefe");
        assert_eq!(
            hex(&hmac_sha256(&key, b"what do ya want for nothing?")),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
    }

    #[test]
    fn a_token_belongs_to_one_cookie() {
        let sessions = Sessions::new();
        let (a, b) = (new_cookie(), new_cookie());
        assert!(sessions.csrf_matches(&a, &sessions.csrf(&a)));
        assert!(!sessions.csrf_matches(&b, &sessions.csrf(&a)));
        assert!(!sessions.csrf_matches(&a, ""));
        assert!(!Sessions::new().csrf_matches(&a, &sessions.csrf(&a)));
    }
}
