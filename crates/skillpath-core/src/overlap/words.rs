//! The words of a description that say what a skill is for: lowercased, split at anything
//! that is not a letter or a digit, without the words every description has ("use", "when",
//! "the", "skill", …), and with a plural `s` dropped so "tests" and "test" are one word.

/// Words that say nothing about what a skill does: English function words, and the phrasing
/// the standard's guide asks every description to use ("Use when the user asks to …").
const STOPWORDS: &[&str] = &[
    "a", "about", "after", "all", "also", "an", "and", "any", "are", "as", "asked", "asks", "at",
    "be", "before", "by", "can", "do", "does", "for", "from", "has", "have", "help", "helps",
    "how", "if", "in", "into", "is", "it", "its", "like", "may", "me", "more", "my", "need",
    "needs", "new", "not", "of", "on", "or", "other", "our", "own", "should", "skill", "skills",
    "so", "such", "than", "that", "the", "their", "them", "then", "there", "these", "they", "this",
    "those", "to", "triggers", "up", "us", "use", "used", "user", "users", "uses", "using", "via",
    "want", "wants", "was", "we", "were", "what", "when", "whenever", "where", "which", "while",
    "who", "will", "with", "within", "without", "you", "your",
];

/// The words of `text` that say what it is about, in order, repeats kept.
pub(crate) fn words(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|word| word.chars().count() > 1)
        .map(str::to_lowercase)
        .filter(|word| STOPWORDS.binary_search(&word.as_str()).is_err())
        .map(|word| singular(&word))
}

/// `tests` → `test`, `classes` → `classe` (one form for both, which is all a comparison needs);
/// `class`, `status`, `analysis` and short words as they are.
fn singular(word: &str) -> String {
    match word.strip_suffix('s') {
        Some(stem) if stem.len() > 2 && !stem.ends_with(['s', 'u', 'i']) => stem.to_owned(),
        _ => word.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_stopwords_are_sorted_for_binary_search() {
        assert!(STOPWORDS.windows(2).all(|pair| pair[0] < pair[1]));
    }

    #[test]
    fn descriptions_become_the_words_that_say_what_they_do() {
        let found: Vec<String> =
            words("Writes unit tests. Use when the user asks to add tests for a class.").collect();
        assert_eq!(found, ["write", "unit", "test", "add", "test", "class"]);
        let kept: Vec<String> = words("status plus analysis").collect();
        assert_eq!(kept, ["status", "plus", "analysis"]);
    }
}
