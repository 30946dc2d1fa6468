//! The rules: a stable ID each, with its severity, what it finds, why that matters and how to
//! fix it. `docs/audit.md` documents every rule with an example that triggers it and one that
//! must not; a test keeps the two in step.

use std::fmt;

/// How much a finding matters, from a note worth reading to a skill no agent should follow.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Worth knowing; rarely harmful alone.
    Low,
    /// Risky, or a common part of an attack; review it.
    Medium,
    /// Likely harmful, or hides what the skill does; review before an agent follows it.
    High,
    /// An attack or a leak as written: do not install.
    Critical,
}

impl Severity {
    /// Every severity, lowest first.
    pub const ALL: &[Severity] = &[
        Severity::Low,
        Severity::Medium,
        Severity::High,
        Severity::Critical,
    ];

    /// The lowercase name used in output, flags and policies.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Low => "low",
            Severity::Medium => "medium",
            Severity::High => "high",
            Severity::Critical => "critical",
        }
    }

    /// The severity named `name` (as [`Severity::as_str`] writes it).
    pub fn parse(name: &str) -> Option<Severity> {
        Severity::ALL.iter().copied().find(|s| s.as_str() == name)
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

macro_rules! rules {
    ($($variant:ident => $id:literal, $severity:ident, $title:literal, $why:literal, $fix:literal;)*) => {
        /// A rule of the auditor. Its ID is never renamed once released: baselines and SARIF
        /// reports name it.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Rule { $(#[doc = concat!("`", $id, "`: ", $title)] $variant,)* }

        impl Rule {
            /// Every rule, in declaration order.
            pub const ALL: &[Rule] = &[$(Rule::$variant,)*];

            /// The stable ID, as written in output and documentation.
            pub fn id(self) -> &'static str {
                match self { $(Rule::$variant => $id,)* }
            }

            /// How much a finding of this rule matters.
            pub fn severity(self) -> Severity {
                match self { $(Rule::$variant => Severity::$severity,)* }
            }

            /// What the rule finds, in a few words.
            pub fn title(self) -> &'static str {
                match self { $(Rule::$variant => $title,)* }
            }

            /// Why a finding matters.
            pub fn why(self) -> &'static str {
                match self { $(Rule::$variant => $why,)* }
            }

            /// How to fix it.
            pub fn fix(self) -> &'static str {
                match self { $(Rule::$variant => $fix,)* }
            }
        }
    };
}

rules! {
    BidiControl => "hidden-bidi-control", High,
        "a bidirectional control character",
        "it reorders how text is displayed, so a reviewer reads something other than what the agent or the shell gets (\"Trojan Source\")",
        "remove the character; write right-to-left text without explicit embedding or override controls";
    ZeroWidth => "hidden-zero-width", Medium,
        "a zero-width character",
        "it is invisible in every editor and review tool, and is used to hide text or to make two different strings look alike",
        "remove the character";
    TagCharacters => "hidden-tag-characters", Critical,
        "Unicode tag characters that spell out hidden text",
        "tag characters (U+E0000–E007F) are invisible but models read them as ASCII: they carry instructions no reviewer sees",
        "remove the characters; the decoded text shows what they said";
    InvisibleFormat => "hidden-format-character", Medium,
        "an invisible format character",
        "it changes nothing a reader can see, and is a known way to smuggle text past review or to make look-alike strings",
        "remove the character, or write it as an escape if the file really needs it";
    HtmlCommentInstructions => "html-comment-instructions", Medium,
        "instructions to the agent inside an HTML comment",
        "a markdown viewer hides HTML comments, but the agent reads them: instructions there are invisible to the person who reviews the skill",
        "move the text into the visible body, or remove it";
    NameMixedScripts => "confusable-mixed-scripts", High,
        "a name or description word that mixes scripts",
        "letters of two scripts in one word (Latin with Cyrillic or Greek) make a string that looks like another one: a skill that impersonates a trusted one",
        "write the word in one script";
    NameConfusable => "confusable-name", High,
        "a name that looks like another skill's",
        "a look-alike of a skill already there is how an impostor gets chosen or installed instead of it",
        "choose a name that does not look like another skill's";
    FetchAndExecute => "fetch-and-execute", High,
        "code downloaded and run in one step",
        "what runs is whatever the server sends at that moment, unreviewed and unpinned: the usual payload of malicious skills' fake \"Prerequisites\"",
        "download to a file, check its checksum or signature, then run it; or install from a package manager with a pinned version";
    DecodeAndExecute => "decode-and-execute", Critical,
        "encoded data decoded and run",
        "encoding hides the command from review: nobody reads a base64 or hex blob before it runs",
        "write the command in plain text";
    OpaqueBlob => "opaque-blob", Medium,
        "a long base64 or hex blob",
        "a blob cannot be reviewed: it can hide a payload, a binary or instructions",
        "ship the data as a file with a clear name and purpose, or remove it";
    PrivateKey => "secret-private-key", Critical,
        "a private key",
        "anyone who installs the skill gets the key; it must be treated as leaked",
        "remove the key, revoke it, and load keys from the user's own store at run time";
    Token => "secret-token", High,
        "an access token or API key",
        "anyone who installs the skill gets the credential; it must be treated as leaked",
        "remove it, revoke it, and read credentials from the environment or a secret store at run time";
    AgainstInstructions => "steer-ignore-instructions", High,
        "an instruction to ignore earlier or system instructions",
        "this is prompt injection: it asks the agent to drop the rules its user and its platform set",
        "remove the sentence; a skill adds to the agent's instructions, it never replaces them";
    HideFromUser => "steer-hide-from-user", High,
        "an instruction to keep something from the user",
        "an agent that hides its actions from its user cannot be supervised: this is how a skill turns the agent against its user",
        "remove the instruction; tell the user what the skill does";
    DisableConfirmation => "steer-disable-confirmation", Medium,
        "an instruction or flag that turns off confirmations",
        "confirmations are the user's last check before an action; a skill that turns them off acts without consent",
        "leave permissions to the user; ask before acting";
    Exfiltration => "exfiltration", Critical,
        "credentials or the environment sent over the network",
        "sending SSH keys, cloud credentials or the whole environment to a server is a leak as written",
        "remove the command; a skill never sends the user's credentials anywhere";
    SelfModification => "self-modification", Medium,
        "writes to its own or other skills' files",
        "a skill that rewrites itself or other skills changes after review: what was audited is no longer what runs",
        "keep skills read-only at run time; change them through review";
    Persistence => "persistence", High,
        "writes to shell profiles, scheduled jobs or agent configuration",
        "writing to `~/.bashrc`, `crontab`, login items or an agent's settings outlives the task and runs again later, unasked",
        "tell the user what to add and let them add it";
    Executable => "file-executable", High,
        "a compiled executable",
        "a binary cannot be reviewed, and an agent may run it with the user's permissions",
        "ship source code, or install the tool from a package manager";
    Archive => "file-archive", Medium,
        "an archive",
        "an archive's contents are not reviewed with the skill, and unpacking it can write anywhere (zip slip) or fill the disk",
        "ship the files themselves";
    LargeFile => "file-large", Low,
        "a file over 1 MiB",
        "large files are rarely read whole in review, and can hide content",
        "keep a skill's files small; fetch large data from a pinned, checked source";
    Symlink => "file-symlink", Low,
        "a symlink that leads out of the skill",
        "a link out of the skill points at whatever is at its target on the user's machine",
        "copy the file into the skill instead of linking it";
    UnpinnedInstall => "unpinned-install", Low,
        "a package installed without a pinned version",
        "an unpinned install gets whatever is newest when the agent runs it, including a compromised release",
        "pin the version (`pip install name==1.2.3`, `npx name@1.2.3`)";
    AllowedToolsEverything => "allowed-tools-everything", Medium,
        "`allowed-tools` grants every tool or unrestricted shell",
        "a skill pre-approved for any command needs no consent for anything",
        "list only the tools and commands the skill needs (`Bash(git:*) Read`)";
    AllowedToolsMissing => "allowed-tools-missing", Low,
        "`allowed-tools` leaves out what the skill's scripts need",
        "the skill ships scripts but does not allow a shell, so the agent asks for permission the skill's author did not declare, or cannot run them",
        "add the commands its scripts need (`Bash(python3:*)`)";
    TriggerEverything => "trigger-claims-everything", Medium,
        "a description that claims every task",
        "an agent chooses skills by their description; one that claims every request gets loaded into tasks it has nothing to do with",
        "say what the skill does and when to use it";
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

impl Rule {
    /// The rule whose ID is `id`.
    pub fn from_id(id: &str) -> Option<Rule> {
        Rule::ALL.iter().copied().find(|rule| rule.id() == id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `docs/audit.md` has a section for every rule, under its ID, with its severity, and no
    /// section for a rule that does not exist.
    #[test]
    fn every_rule_is_documented() {
        let doc = include_str!("../../../docs/audit.md");
        let documented: Vec<(&str, &str)> = doc
            .lines()
            .filter_map(|line| line.strip_prefix("### `"))
            .filter_map(|rest| rest.split_once("` — "))
            .collect();
        let expected: Vec<(&str, &str)> = Rule::ALL
            .iter()
            .map(|rule| (rule.id(), rule.severity().as_str()))
            .collect();
        assert_eq!(documented, expected);
    }

    #[test]
    fn ids_are_unique_and_kebab_case() {
        let mut ids: Vec<&str> = Rule::ALL.iter().map(|r| r.id()).collect();
        assert!(
            ids.iter()
                .all(|id| id.chars().all(|c| c.is_ascii_lowercase() || c == '-'))
        );
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), Rule::ALL.len());
    }
}
