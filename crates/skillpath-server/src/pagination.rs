//! Pages of every list (tools, resources, prompts, skills, a directory's entries): at most the
//! page size in items and a byte budget in bytes, with offsets as cursors.

use rmcp::ErrorData as McpError;
use rmcp::model::{
    ListPromptsResult, ListResourcesResult, ListSkillsResult, ListToolsResult, Prompt, Resource,
    Skill, Tool,
};

/// Most bytes of serialized items in one page, whatever the page size: well under the 1 MiB a
/// client may accept in one message (the official Python SDK refuses larger events), even when
/// skills have long descriptions and many arguments.
pub(crate) const PAGE_BYTES: usize = 256 * 1024;

/// What a page's message holds besides its items, at most: the JSON-RPC envelope, the list's
/// key, `nextCursor`, and the framing of an HTTP event stream. Reserved out of [`PAGE_BYTES`],
/// so the budget holds for the whole message as sent.
const PAGE_ENVELOPE_BYTES: usize = 4 * 1024;

/// A cursor this server did not hand out (or one past the end of the list).
#[derive(Debug, thiserror::Error)]
#[error("invalid cursor `{0}`")]
pub(crate) struct InvalidCursor(pub(crate) String);

/// One page after `cursor` (an offset this server handed out) of the items `entries` stand
/// for: at most `page_size` items, and at most [`PAGE_BYTES`] bytes as sent (the items, their
/// commas and the envelope), but never empty while items remain. Only the page's items are
/// made (`make`, from their entries), so listing a catalog of 100,000 skills never holds more
/// than a page of it: the entries before the page are passed over, not made.
pub(crate) fn paginate<E, T: serde::Serialize>(
    entries: impl Iterator<Item = E>,
    cursor: Option<&str>,
    page_size: usize,
    mut make: impl FnMut(E) -> T,
) -> Result<(Vec<T>, Option<String>), InvalidCursor> {
    let invalid = || InvalidCursor(cursor.unwrap_or_default().to_owned());
    let start = match cursor {
        None => 0,
        Some(cursor) => cursor
            .strip_prefix("o")
            .and_then(|n| n.parse::<usize>().ok())
            .ok_or_else(invalid)?,
    };
    let mut entries = entries.fuse();
    for _ in 0..start {
        entries.next().ok_or_else(invalid)?;
    }
    let mut page = Vec::new();
    let mut bytes = PAGE_ENVELOPE_BYTES;
    let mut more = false;
    for entry in entries.by_ref() {
        if page.len() >= page_size.max(1) {
            more = true;
            break;
        }
        let item = make(entry);
        // The item and the comma before the next one.
        let size = serde_json::to_vec(&item).map_or(0, |json| json.len()) + 1;
        if !page.is_empty() && bytes + size > PAGE_BYTES {
            more = true;
            break;
        }
        bytes += size;
        page.push(item);
    }
    let next = more.then(|| format!("o{}", start + page.len()));
    Ok((page, next))
}

/// A list result of the protocol (`ReadResourceDirectoryResult` is `ListResourcesResult`): one
/// page of its items and the cursor of the next.
pub(crate) trait Paged<T> {
    fn of_page(items: Vec<T>, next: Option<String>) -> Self;
}

macro_rules! paged {
    ($($result:ty: $item:ty),* $(,)?) => {$(
        impl Paged<$item> for $result {
            fn of_page(items: Vec<$item>, next: Option<String>) -> Self {
                let mut result = <$result>::with_all_items(items);
                result.next_cursor = next;
                result
            }
        }
    )*};
}

paged!(
    ListToolsResult: Tool,
    ListResourcesResult: Resource,
    ListPromptsResult: Prompt,
    ListSkillsResult: Skill,
);

/// The page after `cursor` of the items `entries` stand for, as the list result `R`
/// ([`paginate`]); an invalid cursor is the protocol's invalid params.
pub(crate) fn page_of<E, T, R>(
    entries: impl Iterator<Item = E>,
    cursor: Option<&str>,
    page_size: usize,
    make: impl FnMut(E) -> T,
) -> Result<R, McpError>
where
    T: serde::Serialize,
    R: Paged<T>,
{
    let (items, next) = paginate(entries, cursor, page_size, make)
        .map_err(|invalid| McpError::invalid_params(invalid.to_string(), None))?;
    Ok(R::of_page(items, next))
}

#[cfg(test)]
mod tests {
    use rmcp::model::ListToolsResult;

    use super::{PAGE_BYTES, page_of, paginate};

    /// Every page of `items`, following the cursors.
    fn pages(items: &[String], page_size: usize) -> Vec<Vec<String>> {
        let mut pages = Vec::new();
        let mut cursor = None;
        loop {
            let (page, next) = paginate(items.iter(), cursor.as_deref(), page_size, Clone::clone)
                .expect("a valid cursor");
            pages.push(page);
            match next {
                Some(next) => cursor = Some(next),
                None => return pages,
            }
        }
    }

    #[test]
    fn pages_hold_page_size_items_and_every_item_once() {
        let items: Vec<String> = (0..25).map(|i| format!("item-{i}")).collect();
        let pages = pages(&items, 10);
        assert_eq!(pages.iter().map(Vec::len).collect::<Vec<_>>(), [10, 10, 5]);
        assert_eq!(pages.concat(), items);
    }

    #[test]
    fn large_items_end_a_page_before_it_reaches_the_byte_budget() {
        let items: Vec<String> = (0..40).map(|i| format!("{i:0>20000}")).collect();
        let pages = pages(&items, 100);
        assert!(pages.len() > 1, "{} pages", pages.len());
        for page in &pages {
            let bytes: usize = page.iter().map(|item| item.len() + 2).sum();
            assert!(bytes <= PAGE_BYTES, "{bytes} bytes");
        }
        assert_eq!(pages.concat(), items);
    }

    #[test]
    fn an_item_over_the_budget_still_gets_a_page_of_its_own() {
        let items = vec!["a".to_owned(), "b".repeat(PAGE_BYTES * 2), "c".to_owned()];
        let pages = pages(&items, 100);
        assert_eq!(pages.len(), 3);
        assert_eq!(pages.concat(), items);
    }

    #[test]
    fn a_cursor_this_server_did_not_hand_out_is_invalid_params() {
        for cursor in ["x", "o99", "o-1"] {
            let tools = std::iter::empty::<rmcp::model::Tool>();
            let error = page_of::<_, _, ListToolsResult>(tools, Some(cursor), 2, |tool| tool)
                .expect_err("invalid");
            assert_eq!(
                error.code,
                rmcp::model::ErrorCode::INVALID_PARAMS,
                "{cursor}"
            );
        }
    }

    /// A page makes its own items and no others: the entries before it are passed over, and
    /// at most one after it is looked at (to tell whether there is a next page).
    #[test]
    fn a_page_makes_only_its_own_items() {
        let mut made = Vec::new();
        let (page, next) = paginate(0..100_000, Some("o50000"), 10, |n| {
            made.push(n);
            n
        })
        .expect("a page");
        assert_eq!(page, (50_000..50_010).collect::<Vec<_>>());
        assert_eq!(next.as_deref(), Some("o50010"));
        assert_eq!(made, page);
    }
}
