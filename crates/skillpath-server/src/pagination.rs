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

/// One page of `items` after `cursor` (an offset this server handed out): at most `page_size`
/// items, and at most [`PAGE_BYTES`] bytes as sent (the items, their commas and the envelope),
/// but never empty while items remain.
pub(crate) fn paginate<T: serde::Serialize + Clone>(
    items: &[T],
    cursor: Option<&str>,
    page_size: usize,
) -> Result<(Vec<T>, Option<String>), McpError> {
    let start = match cursor {
        None => 0,
        Some(cursor) => cursor
            .strip_prefix("o")
            .and_then(|n| n.parse::<usize>().ok())
            .filter(|n| *n <= items.len())
            .ok_or_else(|| McpError::invalid_params(format!("invalid cursor `{cursor}`"), None))?,
    };
    let mut end = start;
    let mut bytes = PAGE_ENVELOPE_BYTES;
    for item in items.iter().skip(start).take(page_size) {
        // The item and the comma before the next one.
        let size = serde_json::to_vec(item).map_or(0, |json| json.len()) + 1;
        if end > start && bytes + size > PAGE_BYTES {
            break;
        }
        bytes += size;
        end += 1;
    }
    let next = (end < items.len()).then(|| format!("o{end}"));
    Ok((items[start..end].to_vec(), next))
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

/// The page of `items` after `cursor` as the list result `R` ([`paginate`]).
pub(crate) fn page_of<T, R>(
    items: &[T],
    cursor: Option<&str>,
    page_size: usize,
) -> Result<R, McpError>
where
    T: serde::Serialize + Clone,
    R: Paged<T>,
{
    let (items, next) = paginate(items, cursor, page_size)?;
    Ok(R::of_page(items, next))
}

#[cfg(test)]
mod tests {
    use super::{PAGE_BYTES, paginate};

    /// Every page of `items`, following the cursors.
    fn pages(items: &[String], page_size: usize) -> Vec<Vec<String>> {
        let mut pages = Vec::new();
        let mut cursor = None;
        loop {
            let (page, next) =
                paginate(items, cursor.as_deref(), page_size).expect("a valid cursor");
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
            let error = paginate(&[1, 2, 3], Some(cursor), 2).expect_err("invalid");
            assert_eq!(
                error.code,
                rmcp::model::ErrorCode::INVALID_PARAMS,
                "{cursor}"
            );
        }
    }
}
