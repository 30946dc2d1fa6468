//! What the lock pins of a skill: every file's path, size and SHA-256 (`SKILL.md` among
//! them), and one tree digest over all of them.
//!
//! The tree digest is the SHA-256 of, for each file in the byte order of its path: the
//! path's length in bytes as an 8-byte big-endian integer, the path (UTF-8, `/`-separated),
//! the file's size as an 8-byte big-endian integer, and the 32 bytes of the file's SHA-256.
//! Every field has a fixed size or a length before it, so no two different trees have one
//! encoding (a tree digest of paths and bytes simply concatenated cannot tell `a` + `bc` from
//! `ab` + `c`). The per-file digests are the `sha256:<hex>` of the file's bytes, the same the
//! server gives each file in the Skills extension and in the discovery index.

use sha2::{Digest, Sha256};
use skillpath_model::SkillSnapshot;

/// One file of a skill as the lock pins it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
pub struct FileDigest {
    /// Its path in the skill, `/`-separated.
    pub path: String,
    /// Its size in bytes.
    pub size: u64,
    /// `sha256:` and the lowercase hex SHA-256 of its bytes.
    pub sha256: String,
}

impl FileDigest {
    /// The digest of `bytes` at `path`.
    pub fn of(path: &str, bytes: &[u8]) -> FileDigest {
        FileDigest {
            path: path.to_owned(),
            size: bytes.len() as u64,
            sha256: skillpath_model::sha256_hex(bytes),
        }
    }
}

/// Every file of `snapshot`, its manifest (`SKILL.md`, or a package's `PACKAGE.md`) among
/// them, in the byte order of their paths.
pub fn files_of(snapshot: &SkillSnapshot) -> Vec<FileDigest> {
    let mut files: Vec<FileDigest> = std::iter::once(FileDigest::of(
        snapshot.kind.manifest(),
        snapshot.skill_md.as_bytes(),
    ))
    .chain(
        snapshot
            .files
            .iter()
            .map(|file| FileDigest::of(&file.path, &file.bytes)),
    )
    .collect();
    files.sort();
    files
}

/// The tree digest of `files` (see the module's documentation), as `sha256:<hex>`. A digest
/// that is not `sha256:` and 64 hex digits counts as 32 zero bytes, so a tampered lock still
/// gives a digest, which then differs.
pub fn tree_digest(files: &[FileDigest]) -> String {
    let mut sorted: Vec<&FileDigest> = files.iter().collect();
    sorted.sort_by(|a, b| a.path.as_bytes().cmp(b.path.as_bytes()));
    let mut hasher = Sha256::new();
    for file in sorted {
        hasher.update((file.path.len() as u64).to_be_bytes());
        hasher.update(file.path.as_bytes());
        hasher.update(file.size.to_be_bytes());
        hasher.update(raw_sha256(&file.sha256).unwrap_or([0; 32]));
    }
    let digest = hasher.finalize();
    let hex: String = digest.iter().map(|byte| format!("{byte:02x}")).collect();
    format!("sha256:{hex}")
}

/// The 32 bytes of a `sha256:<64 lowercase hex>` digest.
fn raw_sha256(digest: &str) -> Option<[u8; 32]> {
    let hex = digest.strip_prefix("sha256:")?;
    if hex.len() != 64 {
        return None;
    }
    let mut raw = [0u8; 32];
    for (index, byte) in raw.iter_mut().enumerate() {
        let pair = hex.get(index * 2..index * 2 + 2)?;
        if pair.bytes().any(|b| b.is_ascii_uppercase()) {
            return None;
        }
        *byte = u8::from_str_radix(pair, 16).ok()?;
    }
    Some(raw)
}

/// Whether `digest` is `sha256:` and 64 lowercase hex digits.
pub fn is_sha256(digest: &str) -> bool {
    raw_sha256(digest).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(path: &str, bytes: &[u8]) -> FileDigest {
        FileDigest::of(path, bytes)
    }

    /// Concatenated paths and bytes cannot tell these two trees apart; the tree digest can.
    #[test]
    fn moving_bytes_between_path_and_content_changes_the_digest() {
        let one = [file("a", b"bc")];
        let other = [file("ab", b"c")];
        assert_ne!(tree_digest(&one), tree_digest(&other));
    }

    /// The order files are given in does not matter; their content and paths do.
    #[test]
    fn the_digest_depends_on_content_not_order() {
        let a = file("SKILL.md", b"---\nname: x\n---\n");
        let b = file("scripts/run.sh", b"echo hi\n");
        assert_eq!(
            tree_digest(&[a.clone(), b.clone()]),
            tree_digest(&[b.clone(), a.clone()])
        );
        let changed = file("scripts/run.sh", b"echo ho\n");
        assert_ne!(tree_digest(&[a.clone(), b]), tree_digest(&[a, changed]));
    }

    /// The encoding, written out by hand for one file, gives the same digest.
    #[test]
    fn the_encoding_is_the_documented_one() {
        let bytes = b"hello";
        let mut encoded = Vec::new();
        encoded.extend_from_slice(&8u64.to_be_bytes());
        encoded.extend_from_slice(b"SKILL.md");
        encoded.extend_from_slice(&5u64.to_be_bytes());
        encoded.extend_from_slice(&Sha256::digest(bytes));
        let expected = Sha256::digest(&encoded);
        let expected: String = expected.iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(
            tree_digest(&[file("SKILL.md", bytes)]),
            format!("sha256:{expected}")
        );
        assert!(is_sha256(&file("x", b"").sha256));
        assert!(!is_sha256("sha256:ABC"));
    }
}
