//! Digests of content: the `sha256:<hex>` spelling every digest of a file, a skill or an
//! archive is written in.

use sha2::{Digest, Sha256};

use crate::hex;

/// `sha256:` and the lowercase hex SHA-256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    format!("sha256:{}", hex::encode(&Sha256::digest(bytes)))
}
