//! The order JavaScript's `String.prototype.localeCompare` gives file paths (ICU's root
//! collation, as Node's default locale reads it): what the ClawHub protocol's fingerprint of a
//! skill's files sorts them by, so that a registry and the `clawhub` CLI agree on it.
//!
//! Three levels, as ICU compares: first every character's base (case and accents ignored;
//! punctuation and symbols before digits, digits before letters, each in the root order),
//! then accents (`e` before `é`), then case (`a` before `A`). ASCII and the accented Latin
//! letters sort exactly as ICU sorts them; any other character sorts after them by code
//! point (a test compares the order with Node's own on a table of paths).

use std::cmp::Ordering;

/// The root collation's order of ASCII punctuation and symbols (non-ignorable), before the
/// digits and the letters.
const PUNCTUATION: &str = "\t\n\u{b}\u{c}\r _-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$";

/// One character's weights: its base, its accent, its case.
fn weights(c: char) -> (u32, u8, u8) {
    if let Some(at) = PUNCTUATION.find(c) {
        return (at as u32, 0, 0);
    }
    let base = PUNCTUATION.len() as u32;
    if c.is_ascii_digit() {
        return (base + (c as u32 - '0' as u32), 0, 0);
    }
    let letters = base + 10;
    if c.is_ascii_alphabetic() {
        let lower = c.to_ascii_lowercase();
        return (
            letters + (lower as u32 - 'a' as u32),
            0,
            u8::from(c.is_ascii_uppercase()),
        );
    }
    if let Some((letter, accent)) = latin(c) {
        let upper = u8::from(c.is_uppercase());
        return (letters + (letter as u32 - 'a' as u32), accent, upper);
    }
    (letters + 26 + c as u32, 0, 0)
}

/// An accented Latin letter as its base letter and its accent's rank (ICU's secondary order:
/// acute, grave, circumflex, ring, diaeresis, tilde, cedilla, stroke).
fn latin(c: char) -> Option<(char, u8)> {
    const TABLE: [(&str, char); 12] = [
        ("áàâåäãāą", 'a'),
        ("çćč", 'c'),
        ("éèêëēęě", 'e'),
        ("íìîïī", 'i'),
        ("ñńň", 'n'),
        ("óòôöõøō", 'o'),
        ("úùûůüū", 'u'),
        ("ýÿ", 'y'),
        ("šś", 's'),
        ("žźż", 'z'),
        ("ł", 'l'),
        ("ď", 'd'),
    ];
    let lower = c.to_lowercase().next()?;
    TABLE.iter().find_map(|(accented, base)| {
        accented
            .chars()
            .position(|a| a == lower)
            .map(|at| (*base, u8::try_from(at + 1).unwrap_or(u8::MAX)))
    })
}

/// `a` against `b` as `a.localeCompare(b)` orders them.
pub fn locale_compare(a: &str, b: &str) -> Ordering {
    let (wa, wb): (Vec<_>, Vec<_>) = (
        a.chars().map(weights).collect(),
        b.chars().map(weights).collect(),
    );
    let level = |pick: fn(&(u32, u8, u8)) -> u32| wa.iter().map(pick).cmp(wb.iter().map(pick));
    level(|w| w.0)
        .then_with(|| level(|w| u32::from(w.1)))
        .then_with(|| level(|w| u32::from(w.2)))
        .then_with(|| a.cmp(b))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The order Node 22 gave these paths (`paths.sort((a, b) => a.localeCompare(b))`).
    #[test]
    fn paths_sort_as_node_sorts_them() {
        let expected = [
            "_meta.json",
            "10.txt",
            "9.txt",
            "a_b.md",
            "a-b.md",
            "a.md",
            "A.md",
            "a.md2",
            "a/b.md",
            "ab.md",
            "b.md",
            "e.md",
            "é.md",
            "f.md",
            "README.md",
            "scripts/run.sh",
            "SKILL.md",
            "z.md",
            "Z.md",
        ];
        let mut shuffled = expected.to_vec();
        shuffled.reverse();
        shuffled.sort_by(|a, b| locale_compare(a, b));
        assert_eq!(shuffled, expected);
    }
}
