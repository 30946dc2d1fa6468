//! BERT's uncased tokenization: the basic tokenizer (lowercase, accents stripped, punctuation
//! split off, whitespace split), then WordPiece's greedy longest match over the vocabulary,
//! continuation pieces spelled `##…`. A word with no split into known pieces gives nothing (the
//! model's `[UNK]` carries no meaning worth averaging).

use std::collections::HashMap;

/// Words longer than this (in characters) are not split: BERT's own limit.
const MAX_WORD_CHARS: usize = 100;

/// The vocabulary: each token's row.
pub(crate) struct Vocabulary {
    rows: HashMap<String, usize>,
}

impl Vocabulary {
    /// The vocabulary of `tokens`, one per row, in row order.
    pub(crate) fn new<'a>(tokens: impl IntoIterator<Item = &'a str>) -> Vocabulary {
        Vocabulary {
            rows: tokens
                .into_iter()
                .enumerate()
                .map(|(row, token)| (token.to_owned(), row))
                .collect(),
        }
    }

    /// The rows of `text`'s tokens, in order.
    pub(crate) fn rows(&self, text: &str) -> Vec<usize> {
        words(text)
            .iter()
            .flat_map(|word| self.pieces(word))
            .collect()
    }

    /// WordPiece: the longest known prefix, then the longest known `##` continuation, and so
    /// on; nothing when some part of the word matches no piece.
    fn pieces(&self, word: &str) -> Vec<usize> {
        let chars: Vec<char> = word.chars().collect();
        if chars.len() > MAX_WORD_CHARS {
            return Vec::new();
        }
        let mut pieces = Vec::new();
        let mut start = 0;
        while start < chars.len() {
            let found = (start + 1..=chars.len()).rev().find_map(|end| {
                let piece: String = chars[start..end].iter().collect();
                let piece = if start > 0 {
                    format!("##{piece}")
                } else {
                    piece
                };
                self.rows.get(&piece).map(|row| (end, *row))
            });
            let Some((end, row)) = found else {
                return Vec::new();
            };
            pieces.push(row);
            start = end;
        }
        pieces
    }
}

/// The basic tokenizer's words: lowercased, accents (combining marks after canonical
/// decomposition) dropped, split at whitespace, each punctuation character a word of its own.
fn words(text: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut current = String::new();
    for c in text.chars().flat_map(char::to_lowercase) {
        if c.is_whitespace() || c.is_control() {
            if !current.is_empty() {
                words.push(std::mem::take(&mut current));
            }
        } else if is_punctuation(c) {
            if !current.is_empty() {
                words.push(std::mem::take(&mut current));
            }
            words.push(c.to_string());
        } else if !is_combining_mark(c) {
            current.push(strip_accent(c));
        }
    }
    if !current.is_empty() {
        words.push(current);
    }
    words
}

/// BERT's punctuation: ASCII symbols and Unicode's general punctuation block's marks.
fn is_punctuation(c: char) -> bool {
    c.is_ascii_punctuation()
        || matches!(c, '\u{2010}'..='\u{2027}' | '\u{2030}'..='\u{205E}' | '\u{3000}'..='\u{303F}')
        || matches!(c, '¡' | '§' | '«' | '¶' | '·' | '»' | '¿')
}

/// Combining diacritical marks (U+0300–U+036F), which decomposition leaves after a letter.
fn is_combining_mark(c: char) -> bool {
    matches!(c, '\u{0300}'..='\u{036F}')
}

/// The Latin-1 and Latin Extended-A letters with an accent, as their base letter (what
/// decomposing and dropping the mark gives BERT); other characters as they are.
fn strip_accent(c: char) -> char {
    const FROM: &str =
        "àáâãäåèéêëìíîïñòóôõöùúûüýÿçāăąēĕėęěīĭįĩōŏőũūŭůűųćĉċčďĝğġģĥĵķĺļľńņňŕŗřśŝşšţťŵŷźżž";
    const TO: &str =
        "aaaaaaeeeeiiiinooooouuuuyycaaaeeeeeiiiiooouuuuuucccdgggghjklllnnnrrrssssttwyzzz";
    FROM.chars()
        .position(|accented| accented == c)
        .and_then(|at| TO.chars().nth(at))
        .unwrap_or(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vocabulary() -> Vocabulary {
        Vocabulary::new([
            "[UNK]", "deploy", "##ing", "to", "vercel", "ver", "##cel", "cafe", ".", "pdf", "##s",
        ])
    }

    #[test]
    fn words_are_lowercased_unaccented_and_split_at_punctuation() {
        assert_eq!(
            words("Deploy to Café, now!"),
            ["deploy", "to", "cafe", ",", "now", "!"]
        );
        assert_eq!(words("  tabs\tand\nlines  "), ["tabs", "and", "lines"]);
    }

    #[test]
    fn wordpiece_takes_the_longest_pieces_and_drops_unknown_words() {
        let vocabulary = vocabulary();
        assert_eq!(vocabulary.rows("Deploying to Vercel."), [1, 2, 3, 4, 8]);
        assert_eq!(vocabulary.rows("PDFs"), [9, 10]);
        assert_eq!(vocabulary.rows("xylophone deploy"), [1]);
        assert!(vocabulary.rows(&"a".repeat(101)).is_empty());
    }
}
