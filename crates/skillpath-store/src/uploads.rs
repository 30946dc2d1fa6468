//! Files uploaded for a publish that has not come yet (the registry protocol's upload tickets),
//! kept in the database so that the replica a publish reaches finds the uploads another one
//! took. Each is its key's, bounded by what the caller allows waiting ([`Staging`]), and
//! dropped once published or past its lifetime.

/// One file announced for a publish, and its bytes once uploaded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StagedUpload {
    /// Its ticket: 128 random bits as hex.
    pub ticket: String,
    /// The public part of the key that announced it (`sp_<id>`).
    pub key: String,
    /// The file's path in the skill.
    pub path: String,
    /// Its size, as announced.
    pub size: u64,
    /// Its SHA-256, lowercase hex, as announced.
    pub sha256: String,
    /// Its bytes, once uploaded.
    pub bytes: Option<Vec<u8>>,
    /// When it was announced (RFC 3339).
    pub created_at: String,
}

/// The bounds a new upload is staged within.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Staging {
    /// The most bytes one key may have waiting, this upload's included.
    pub per_key: u64,
    /// The most bytes waiting on the whole store, this upload's included.
    pub total: u64,
    /// Uploads announced before this time (RFC 3339) are past their lifetime: dropped first.
    pub since: String,
}

/// Why an upload was not staged: which bound it would pass.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unstaged {
    /// The key's own bound.
    PerKey,
    /// The store's.
    Total,
}
