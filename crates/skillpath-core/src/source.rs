//! Positions in a source text: byte offsets to 1-based lines and columns.

use std::ops::Range;

/// Maps byte offsets of one text to lines and columns, for diagnostics.
#[derive(Debug, Clone)]
pub struct LineIndex {
    line_starts: Vec<usize>,
}

/// A 1-based line and column; the column counts characters, as editors do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct LineColumn {
    /// Line number, starting at 1.
    pub line: usize,
    /// Column number in characters, starting at 1.
    pub column: usize,
}

impl LineIndex {
    /// Indexes the line starts of `text` (`\n` ends a line; a `\r` before it belongs to the line).
    pub fn new(text: &str) -> Self {
        let mut line_starts = vec![0];
        line_starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        LineIndex { line_starts }
    }

    /// The line and column of byte `offset` in `text` (the text this index was built from).
    pub fn line_column(&self, text: &str, offset: usize) -> LineColumn {
        let offset = floor_char_boundary(text, offset.min(text.len()));
        let line = self.line_starts.partition_point(|&start| start <= offset) - 1;
        let start = self.line_starts[line];
        LineColumn {
            line: line + 1,
            column: text[start..offset].chars().count() + 1,
        }
    }

    /// The byte range of line `line` (1-based), without its line break.
    pub fn line_range(&self, text: &str, line: usize) -> Range<usize> {
        let start = self
            .line_starts
            .get(line.saturating_sub(1))
            .copied()
            .unwrap_or(text.len());
        let mut end = self
            .line_starts
            .get(line)
            .map_or(text.len(), |next| next - 1);
        if end > start && text.as_bytes().get(end - 1) == Some(&b'\r') {
            end -= 1;
        }
        start..end.max(start)
    }
}

/// The largest char boundary of `text` at or before `offset`.
pub(crate) fn floor_char_boundary(text: &str, mut offset: usize) -> usize {
    while offset > 0 && !text.is_char_boundary(offset) {
        offset -= 1;
    }
    offset
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_and_columns_count_characters() {
        let text = "ab\r\nçd\nlast";
        let index = LineIndex::new(text);
        assert_eq!(
            index.line_column(text, 0),
            LineColumn { line: 1, column: 1 }
        );
        assert_eq!(
            index.line_column(text, 4),
            LineColumn { line: 2, column: 1 }
        );
        assert_eq!(
            index.line_column(text, 6),
            LineColumn { line: 2, column: 2 }
        );
        assert_eq!(
            index.line_column(text, 8),
            LineColumn { line: 3, column: 1 }
        );
        assert_eq!(&text[index.line_range(text, 1)], "ab");
        assert_eq!(&text[index.line_range(text, 3)], "last");
    }
}
