//! The governance log: every change of people, keys, namespaces, members, roles, visibility,
//! freeze and archive, and every publish, reject, delete, restore and rollback, appended with
//! who did it, when, to what, and what was before and after. Tamper-evident: each entry's
//! digest covers the entry and the digest of the one before it, so an entry changed, removed
//! or inserted breaks the chain from there on ([`verify`] names the first broken entry).

use sha2::{Digest, Sha256};

use crate::hex;

/// The digest the first entry follows.
pub const GENESIS: &str = "sha256:0000000000000000000000000000000000000000000000000000000000000000";

/// What an entry records, before it is chained.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Action {
    /// When (RFC 3339, UTC).
    pub at: String,
    /// Who: a person's handle, `local` or `owner` (the command line).
    pub actor: String,
    /// What was done (`namespace.create`, `member.add`, `skill.publish`, …).
    pub action: String,
    /// To what (`@team-a`, `@team-a/deploy`, `alice`).
    pub target: String,
    /// What it was before, as JSON text (`None`: nothing, as for a creation).
    pub before: Option<String>,
    /// What it is after, as JSON text (`None`: nothing, as for a removal).
    pub after: Option<String>,
}

/// One entry of the log: an action, its place in the chain, and the digests that chain it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Entry {
    /// Its place, from 1, without gaps.
    pub seq: u64,
    /// What was done.
    #[serde(flatten)]
    pub action: Action,
    /// The digest of the entry before it ([`GENESIS`] for the first).
    pub prev: String,
    /// This entry's digest ([`digest`]).
    pub digest: String,
}

impl Entry {
    /// The entry that records `action` at `seq`, after the entry whose digest is `prev`.
    pub fn chained(seq: u64, action: Action, prev: String) -> Entry {
        let digest = digest(seq, &action, &prev);
        Entry {
            seq,
            action,
            prev,
            digest,
        }
    }
}

/// The digest of the entry at `seq` recording `action` after `prev`: SHA-256 over every field,
/// each with its length before it, so that no two entries share the bytes hashed.
pub fn digest(seq: u64, action: &Action, prev: &str) -> String {
    let mut hasher = Sha256::new();
    let mut field = |bytes: &[u8]| {
        hasher.update((bytes.len() as u64).to_be_bytes());
        hasher.update(bytes);
    };
    field(&seq.to_be_bytes());
    field(prev.as_bytes());
    field(action.at.as_bytes());
    field(action.actor.as_bytes());
    field(action.action.as_bytes());
    field(action.target.as_bytes());
    for side in [&action.before, &action.after] {
        match side {
            Some(json) => {
                field(b"1");
                field(json.as_bytes());
            }
            None => field(b"0"),
        }
    }
    format!("sha256:{}", hex::encode(&hasher.finalize()))
}

/// Where the chain breaks, and how.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Broken {
    /// An entry is missing before this one, or one is there twice.
    #[error("the log breaks at entry {seq}: entry {expected} should come before it")]
    Gap {
        /// The entry found.
        seq: u64,
        /// The entry that should be there.
        expected: u64,
    },
    /// The entry does not follow the one before it: that one was changed or removed.
    #[error(
        "the log breaks at entry {seq}: it does not follow the entry before it (changed or removed)"
    )]
    Unlinked {
        /// The entry.
        seq: u64,
    },
    /// The entry was changed after it was written.
    #[error(
        "the log breaks at entry {seq}: its content does not match its digest (changed after it was written)"
    )]
    Altered {
        /// The entry.
        seq: u64,
    },
}

impl Broken {
    /// The first broken entry.
    pub fn seq(&self) -> u64 {
        match self {
            Broken::Gap { seq, .. } | Broken::Unlinked { seq } | Broken::Altered { seq } => *seq,
        }
    }
}

/// Checks that `entries` (the whole log, in order) form an unbroken chain from [`GENESIS`];
/// the first broken entry otherwise.
pub fn verify(entries: &[Entry]) -> Result<(), Broken> {
    verify_from(entries, 1, GENESIS)
}

/// Checks that `entries` continue a chain whose next entry is `seq`, after the digest `prev`:
/// what checks a part of a log read a page at a time.
pub fn verify_from(entries: &[Entry], mut seq: u64, prev: &str) -> Result<(), Broken> {
    let mut prev = prev.to_owned();
    for entry in entries {
        if entry.seq != seq {
            return Err(Broken::Gap {
                seq: entry.seq,
                expected: seq,
            });
        }
        if entry.prev != prev {
            return Err(Broken::Unlinked { seq });
        }
        if digest(entry.seq, &entry.action, &entry.prev) != entry.digest {
            return Err(Broken::Altered { seq });
        }
        prev.clone_from(&entry.digest);
        seq += 1;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn action(target: &str, after: Option<&str>) -> Action {
        Action {
            at: "2026-12-05T12:00:00Z".to_owned(),
            actor: "alice".to_owned(),
            action: "member.add".to_owned(),
            target: target.to_owned(),
            before: None,
            after: after.map(str::to_owned),
        }
    }

    fn log(count: u64) -> Vec<Entry> {
        let mut entries: Vec<Entry> = Vec::new();
        for seq in 1..=count {
            let prev = entries
                .last()
                .map_or(GENESIS.to_owned(), |e| e.digest.clone());
            let after = format!("{{\"role\":\"author\",\"n\":{seq}}}");
            entries.push(Entry::chained(seq, action("@team-a", Some(&after)), prev));
        }
        entries
    }

    #[test]
    fn an_unbroken_log_verifies_and_each_tampering_names_the_first_broken_entry() {
        let entries = log(5);
        assert_eq!(verify(&entries), Ok(()));
        assert_eq!(verify(&[]), Ok(()));

        let mut altered = entries.clone();
        altered[2].action.after = Some("{\"role\":\"owner\"}".to_owned());
        assert_eq!(verify(&altered), Err(Broken::Altered { seq: 3 }));

        let mut rehashed = altered.clone();
        rehashed[2].digest = digest(3, &rehashed[2].action, &rehashed[2].prev);
        assert_eq!(verify(&rehashed), Err(Broken::Unlinked { seq: 4 }));

        let mut removed = entries.clone();
        removed.remove(1);
        assert_eq!(
            verify(&removed),
            Err(Broken::Gap {
                seq: 3,
                expected: 2
            })
        );

        let mut renumbered: Vec<Entry> = entries.clone();
        renumbered.remove(1);
        for entry in renumbered.iter_mut().skip(1) {
            entry.seq -= 1;
        }
        assert_eq!(verify(&renumbered), Err(Broken::Unlinked { seq: 2 }));

        assert_eq!(verify_from(&entries[3..], 4, &entries[2].digest), Ok(()));
    }

    #[test]
    fn no_two_actions_share_a_digest_by_moving_bytes_between_fields() {
        let one = Action {
            target: "ab".to_owned(),
            action: "c".to_owned(),
            ..action("", None)
        };
        let two = Action {
            target: "b".to_owned(),
            action: "ca".to_owned(),
            ..action("", None)
        };
        assert_ne!(digest(1, &one, GENESIS), digest(1, &two, GENESIS));
        let none = action("@t", None);
        let empty = action("@t", Some(""));
        assert_ne!(digest(1, &none, GENESIS), digest(1, &empty, GENESIS));
    }
}
