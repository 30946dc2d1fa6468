//! API keys: what a key is, how one is made, and how a presented key is checked.
//!
//! A key reads `sp_<id>_<secret>`: `id` (12 hex digits) finds the key's row, `secret` (64 hex
//! digits, 256 random bits) proves it. The store keeps only the SHA-256 of the whole key, so a
//! leaked database does not leak keys; the check compares digests in constant time, so response
//! times say nothing about how much of a guess was right. A key is shown once, when it is made.
//!
//! Keys belong to the store (every backend keeps them next to the skills, so replicas on one
//! database share them and a revoked key stops working on every replica at its next request).

use sha2::{Digest, Sha256};

use crate::error::{StoreError, StoreResult};
use crate::store::Store;
use crate::time::{now_rfc3339, rfc3339_from_now};
use skillpath_model::hex;

pub(crate) mod record;

pub(crate) use record::KEY_COLUMNS;
pub use record::{KeyInfo, Role, StoredKey};

/// A key that was just made: the text to hand out once, and what to store.
#[derive(Debug)]
pub struct NewKey {
    /// The whole key, `sp_<id>_<secret>`. Never stored, never logged.
    pub key: String,
    /// What the store keeps.
    pub stored: StoredKey,
}

/// Key names: what a revision's author shows. Short, printable, no spaces.
fn check_name(name: &str) -> StoreResult<()> {
    let valid = !name.is_empty()
        && name.len() <= 64
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '@'));
    if valid {
        Ok(())
    } else {
        Err(StoreError::InvalidKey(format!(
            "`{name}` cannot name a key: use 1 to 64 letters, digits, `-`, `_`, `.` or `@`"
        )))
    }
}

/// What a key is given: who it acts for, as what, where, and for how long.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Grant {
    /// The handle of the person it acts for.
    pub user: String,
    /// The most it may do (its user's roles cap it further, namespace by namespace).
    pub role: Role,
    /// The namespaces (`@name`) it is narrowed to; `None`: all its user's.
    pub namespaces: Option<Vec<String>>,
    /// Its lifetime in seconds from now; `None`: it does not expire.
    pub expires_in_secs: Option<u64>,
    /// The channel its caller is served by default; `None`: the server's. Checked by the
    /// application, which knows what a channel is.
    pub channel: Option<String>,
}

impl Grant {
    /// A key for `user` as `role`, in all their namespaces, until revoked.
    pub fn acting_for(user: &str, role: Role) -> Grant {
        Grant {
            user: user.to_owned(),
            role,
            namespaces: None,
            expires_in_secs: None,
            channel: None,
        }
    }

    /// This grant, expiring `secs` from now.
    pub fn expiring_in(self, secs: u64) -> Grant {
        Grant {
            expires_in_secs: Some(secs),
            ..self
        }
    }
}

/// Makes a key named `name` with what `grant` gives.
pub fn generate(name: &str, grant: Grant) -> StoreResult<NewKey> {
    check_name(name)?;
    let mut random = [0u8; 38];
    getrandom::fill(&mut random).map_err(|error| {
        StoreError::InvalidKey(format!(
            "the system has no randomness to make a key: {error}"
        ))
    })?;
    let (id, secret) = random.split_at(6);
    let id = hex::encode(id);
    let key = format!("sp_{id}_{}", hex::encode(secret));
    let created_at = now_rfc3339();
    Ok(NewKey {
        stored: StoredKey {
            sha256: digest(&key),
            info: KeyInfo {
                name: name.to_owned(),
                prefix: format!("sp_{id}"),
                role: grant.role,
                expires_at: grant.expires_in_secs.map(rfc3339_from_now),
                created_at,
                last_used_at: None,
                revoked_at: None,
                user: grant.user,
                namespaces: grant.namespaces,
                channel: grant.channel,
            },
            id,
        },
        key,
    })
}

/// A key just stored: what `keys create` and the `create_api_key` tool show, once. Serializes
/// as the key's listing plus `key`.
#[derive(Debug, serde::Serialize)]
pub struct CreatedKey {
    /// Everything listed about the key.
    #[serde(flatten)]
    pub info: KeyInfo,
    /// The whole key, `sp_<id>_<secret>`, for the caller to keep.
    pub key: String,
}

/// Makes a key ([`generate`]) and stores it: refused when an active key has the name. Whether
/// its user exists and may be given it is the application's to check.
pub async fn create(store: &dyn Store, name: &str, grant: Grant) -> StoreResult<CreatedKey> {
    let new = generate(name, grant)?;
    let info = store.create_key(new.stored).await?;
    Ok(CreatedKey { info, key: new.key })
}

/// Why a presented key was not accepted. The texts go back to the client (never with the key).
#[derive(Debug, thiserror::Error)]
pub enum AuthError {
    /// Not shaped like a skillpath key.
    #[error("this is not a skillpath API key (they read `sp_…`)")]
    Malformed,
    /// No key has this id, or the secret does not match.
    #[error("unknown API key")]
    Unknown,
    /// The key was revoked.
    #[error("the API key `{0}` was revoked")]
    Revoked(String),
    /// The key's time is up.
    #[error("the API key `{0}` expired at {1}")]
    Expired(String, String),
    /// The key's person is disabled.
    #[error("the API key `{0}` belongs to `{1}`, who is disabled")]
    Disabled(String, String),
    /// The store could not be asked.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// How often a key's last use is written at most: once a minute, so that a busy key does not
/// turn every read into a database write.
pub const USE_RECORD_INTERVAL_SECS: u64 = 60;

/// Checks `presented` against the store: the key's listing when it is known, matches, and is
/// neither revoked nor expired. Records its use (at most once a minute).
pub async fn authenticate(store: &dyn Store, presented: &str) -> Result<KeyInfo, AuthError> {
    let id = key_id(presented).ok_or(AuthError::Malformed)?;
    let stored = store.find_key(id).await?.ok_or(AuthError::Unknown)?;
    if !constant_time_eq(digest(presented).as_bytes(), stored.sha256.as_bytes()) {
        return Err(AuthError::Unknown);
    }
    let info = stored.info;
    let now = now_rfc3339();
    if info.revoked_at.is_some() {
        return Err(AuthError::Revoked(info.name));
    }
    if info.is_expired(&now) {
        let expires = info.expires_at.unwrap_or_default();
        return Err(AuthError::Expired(info.name, expires));
    }
    let recorded_recently = info.last_used_at.as_deref().is_some_and(|last| {
        last > crate::time::rfc3339_before_now(USE_RECORD_INTERVAL_SECS).as_str()
    });
    if !recorded_recently {
        store.record_key_use(id, &now).await?;
    }
    Ok(info)
}

/// The id of a key shaped `sp_<12 hex>_<64 hex>`, or `None` for anything else.
fn key_id(presented: &str) -> Option<&str> {
    let rest = presented.strip_prefix("sp_")?;
    let (id, secret) = rest.split_once('_')?;
    let lower_hex = |s: &str, len: usize| {
        s.len() == len && s.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
    };
    (lower_hex(id, 12) && lower_hex(secret, 64)).then_some(id)
}

fn digest(key: &str) -> String {
    hex::encode(&Sha256::digest(key.as_bytes()))
}

/// Equality whose time depends only on the lengths, not on where the first difference is.
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// The longest lifetime a key can be given: 100 years (expiry times stay four-digit years, so
/// they sort as text).
const MAX_LIFETIME_SECS: u64 = 36_500 * 86_400;

/// Why a key's lifetime does not read; each names the text as written.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LifetimeError {
    /// Over `MAX_LIFETIME_SECS`.
    #[error(
        "`{0}` is too long a lifetime: at most 100 years; leave `--expires` out for a key that does not expire"
    )]
    TooLong(String),
    /// Not a number and a unit.
    #[error(
        "`{0}` is not a lifetime: write a number and a unit, as in `90m`, `12h`, `30d` or `2w`"
    )]
    NotALifetime(String),
}

/// A lifetime such as `30d`, `12h`, `90m` or `2w`, in seconds.
pub fn parse_lifetime(text: &str) -> Result<u64, LifetimeError> {
    let text = text.trim();
    let split = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let unit_secs = match unit {
        "m" => 60,
        "h" => 3_600,
        "d" => 86_400,
        "w" => 7 * 86_400,
        _ => 0,
    };
    match number.parse::<u64>() {
        Ok(count) if count > 0 && unit_secs > 0 => count
            .checked_mul(unit_secs)
            .filter(|secs| *secs <= MAX_LIFETIME_SECS)
            .ok_or_else(|| LifetimeError::TooLong(text.to_owned())),
        _ => Err(LifetimeError::NotALifetime(text.to_owned())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_generated_key_has_its_shape_and_its_digest() {
        let grant = Grant::acting_for("ci", Role::Author).expiring_in(86_400);
        let new = generate("ci", grant).expect("randomness");
        assert_eq!(key_id(&new.key), Some(new.stored.id.as_str()));
        assert_eq!(new.stored.info.prefix, format!("sp_{}", new.stored.id));
        assert_eq!(new.stored.sha256, digest(&new.key));
        assert!(!new.stored.sha256.contains(&new.key[16..]));
        assert!(new.stored.info.expires_at.is_some());
        let other = generate("ci", Grant::acting_for("ci", Role::Author)).expect("randomness");
        assert_ne!(other.key, new.key);
        assert_eq!(other.stored.info.expires_at, None);
    }

    #[test]
    fn only_well_formed_keys_have_an_id() {
        let id = "0123456789ab";
        let secret = "f".repeat(64);
        assert_eq!(key_id(&format!("sp_{id}_{secret}")), Some(id));
        for bad in [
            String::new(),
            "sp_".to_owned(),
            format!("sk_{id}_{secret}"),
            format!("sp_{id}{secret}"),
            format!("sp_{id}_{}", &secret[1..]),
            format!("sp_{}_{secret}", id.to_uppercase()),
            format!("sp_{id}_{secret}_"),
            format!("sp_{id}_{secret} "),
            format!("sp_{id}_{}é", &secret[2..]),
        ] {
            assert_eq!(key_id(&bad), None, "{bad:?}");
        }
    }

    #[test]
    fn names_are_short_and_printable() {
        for good in ["ci", "alice@example.com", "deploy-bot_2.0"] {
            assert!(check_name(good).is_ok(), "{good}");
        }
        for bad in ["", "two words", "a/b", "ünï", &"x".repeat(65)] {
            assert!(check_name(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn lifetimes_read_as_written() {
        assert_eq!(parse_lifetime("30d"), Ok(30 * 86_400));
        assert_eq!(parse_lifetime("12h"), Ok(12 * 3_600));
        assert_eq!(parse_lifetime("90m"), Ok(90 * 60));
        assert_eq!(parse_lifetime("2w"), Ok(14 * 86_400));
        for bad in [
            "",
            "30",
            "d",
            "0d",
            "-1d",
            "1y",
            "1.5d",
            "36501d",
            "99999999999999999999d",
        ] {
            assert!(parse_lifetime(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn constant_time_equality_is_equality() {
        assert!(constant_time_eq(b"abc", b"abc"));
        assert!(!constant_time_eq(b"abc", b"abd"));
        assert!(!constant_time_eq(b"abc", b"ab"));
    }
}
