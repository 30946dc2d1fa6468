//! Look-alike text: the scripts of a word's letters, and a name's skeleton (what it looks like:
//! compatibility forms folded, lowercase, homoglyphs of Latin letters replaced), so that two
//! names that look alike have one skeleton.

use unicode_normalization::UnicodeNormalization;

/// The scripts whose letters look like Latin ones.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Script {
    Latin,
    Greek,
    Cyrillic,
    Armenian,
}

impl Script {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Script::Latin => "Latin",
            Script::Greek => "Greek",
            Script::Cyrillic => "Cyrillic",
            Script::Armenian => "Armenian",
        }
    }
}

/// The script of a letter, among those that look alike.
pub(crate) fn script(c: char) -> Option<Script> {
    match c {
        'a'..='z' | 'A'..='Z' | '\u{00C0}'..='\u{024F}' | '\u{1E00}'..='\u{1EFF}' => {
            Some(Script::Latin)
        }
        '\u{0370}'..='\u{03FF}' | '\u{1F00}'..='\u{1FFF}' => Some(Script::Greek),
        '\u{0400}'..='\u{052F}' => Some(Script::Cyrillic),
        '\u{0531}'..='\u{058F}' => Some(Script::Armenian),
        _ => None,
    }
}

/// The scripts of `word`'s letters, when it has letters of more than one (in order of their
/// first letter).
pub(crate) fn mixed_scripts(word: &str) -> Option<Vec<Script>> {
    let mut scripts = Vec::new();
    for c in word.chars() {
        if let Some(s) = script(c)
            && !scripts.contains(&s)
        {
            scripts.push(s);
        }
    }
    (scripts.len() > 1).then_some(scripts)
}

/// The Latin letter a character looks like, for the homoglyphs attackers use.
fn latin_look_alike(c: char) -> Option<char> {
    Some(match c {
        'а' | 'А' | 'α' | 'Α' => 'a',
        'В' | 'Β' | 'ь' => 'b',
        'с' | 'С' | 'ϲ' => 'c',
        'ԁ' => 'd',
        'е' | 'Е' | 'ё' | 'Ε' => 'e',
        'һ' | 'Н' | 'Η' => 'h',
        'і' | 'І' | 'ι' | 'Ι' | 'ӏ' | '1' | '|' => 'l',
        'ј' | 'Ј' => 'j',
        'к' | 'К' | 'κ' | 'Κ' => 'k',
        'М' | 'Μ' => 'm',
        'Ν' | 'п' => 'n',
        'о' | 'О' | 'ο' | 'Ο' | '0' | 'օ' => 'o',
        'р' | 'Р' | 'ρ' | 'Ρ' => 'p',
        'ԛ' => 'q',
        'ѕ' | 'Ѕ' => 's',
        'Т' | 'τ' | 'Τ' => 't',
        'υ' | 'ս' => 'u',
        'ν' => 'v',
        'ԝ' => 'w',
        'х' | 'Х' | 'χ' | 'Χ' => 'x',
        'у' | 'У' | 'Υ' | 'Ү' => 'y',
        'Ζ' => 'z',
        '_' => '-',
        _ => return None,
    })
}

/// What `name` looks like: two names with one skeleton are confusable.
pub(crate) fn skeleton(name: &str) -> String {
    let folded: String = name
        .nfkc()
        .map(|c| latin_look_alike(c).unwrap_or(c))
        .flat_map(char::to_lowercase)
        // After lowercasing, `i` and `l` are told apart; an uppercase `I` is not.
        .collect();
    let folded = folded.replace("rn", "m").replace("vv", "w");
    // `I` lowercased is `i`, but it looks like `l`: compare with both folded to `l`.
    folded.replace('i', "l")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn look_alikes_share_a_skeleton_and_distinct_names_do_not() {
        assert_eq!(skeleton("pdf"), skeleton("рdf")); // Cyrillic р
        assert_eq!(skeleton("add-caching"), skeleton("аdd-caching")); // Cyrillic а
        assert_eq!(skeleton("modern"), skeleton("modem"));
        assert_eq!(skeleton("xlsx"), skeleton("xIsx"));
        assert_eq!(skeleton("deploy_tool"), skeleton("deploy-tool"));
        assert_ne!(skeleton("pdf"), skeleton("pdf-tools"));
        assert_ne!(skeleton("docx"), skeleton("docs"));
    }

    #[test]
    fn mixed_scripts_are_told_within_a_word() {
        assert!(mixed_scripts("pаypal").is_some());
        assert!(mixed_scripts("paypal").is_none());
        assert!(mixed_scripts("Привет").is_none());
        assert!(mixed_scripts("αβγ").is_none());
    }
}
