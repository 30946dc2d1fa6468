//! Listing pages and their cursors, the same for every backend: a cursor is the last name of a
//! page, in hex, so it says nothing a client should rely on and is checked when it comes back.

use crate::answers::{ListFilter, Page, SkillSummary};
use crate::error::{StoreError, StoreResult};
use skillpath_model::hex;

/// The most items a page holds, whatever the caller asks for.
const MOST: usize = 1000;

/// An opaque cursor for the listing after `name`: its bytes in hex.
pub(crate) fn encode(name: &str) -> String {
    hex::encode(name.as_bytes())
}

/// The name a cursor from [`encode`] stands for; anything else is refused. No stored name
/// holds a NUL (PostgreSQL text cannot), so a cursor for one is not one this store handed out.
pub(crate) fn decode(cursor: &str) -> StoreResult<String> {
    let invalid = || StoreError::InvalidCursor(cursor.to_owned());
    let bytes = hex::decode(cursor)
        .filter(|bytes| !bytes.is_empty())
        .ok_or_else(invalid)?;
    String::from_utf8(bytes)
        .ok()
        .filter(|name| !name.contains('\0'))
        .ok_or_else(invalid)
}

/// The name a listing starts after: the one `cursor` stands for, or the start.
pub(crate) fn start_after(cursor: Option<&str>) -> StoreResult<String> {
    Ok(cursor.map(decode).transpose()?.unwrap_or_default())
}

/// What [`crate::Store::list`] asks a backend for: at most `count` of the skills `filter` lets
/// through whose names sort after `after`.
#[derive(Debug)]
pub struct Listing {
    pub(crate) filter: ListFilter,
    pub(crate) after: String,
    pub(crate) count: usize,
}

/// How many items a page asked for with `limit` holds: 1 to [`MOST`].
pub(crate) fn page_size(limit: usize) -> usize {
    limit.clamp(1, MOST)
}

/// The page of `items`, which a backend read with one more than `size` (the page size) so
/// that a next page shows itself: that one is left out, and the cursor names the last kept.
pub(crate) fn page(mut items: Vec<SkillSummary>, size: usize) -> Page<SkillSummary> {
    let next_cursor = if items.len() > size {
        items.truncate(size);
        items.last().map(|last| encode(&last.name))
    } else {
        None
    };
    Page { items, next_cursor }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursors_round_trip_and_bad_ones_are_refused() {
        assert_eq!(
            decode(&encode("add-caching")).expect("valid"),
            "add-caching"
        );
        assert!(decode("zz").is_err());
        assert!(decode("abc").is_err());
        assert!(decode("").is_err());
        assert!(decode(&encode("a\0b")).is_err());
    }
}
