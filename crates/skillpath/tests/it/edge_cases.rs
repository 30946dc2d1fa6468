//! Edge-case skill folders for the differential test against the reference validator
//! (`skills-ref` 0.1.1, CLI `agentskills`).
//!
//! Every row of Appendix A of `agent-skills-reference.md` (same folder names and contents)
//! comes first, followed by the gaps listed in its section 5 and further YAML, frontmatter and
//! Unicode pins. Each case is one folder; the harness creates it and runs the same argv
//! through both CLIs (folders starting with `-` must be passed after `--`).
//!
//! Outcomes observed with the reference (Python 3.11.7, click 8.5.1, strictyaml 1.7.3):
//! 193 cases (plus 20 added later for BOM, `...` and NEL/LS/PS handling found by mutating corpus files); `validate` gives 94 valid, 54 invalid (validation errors), 37 parse errors
//! (`ParseError` messages) and 8 uncaught exceptions (3 `UnicodeDecodeError`, 1 `IsADirectoryError`,
//! 4 `AttributeError` from strictyaml mishandling ruamel `ReaderError`); `read-properties` succeeds
//! on 125, reports `Error:` for 23 + 37 and crashes on the same 8.
//!
//! Non-ASCII file contents are written as `\x` escapes; a `// content:` comment shows the
//! decoded text (⏎ = LF, ␍ = CR, `c×N` = `c` repeated N times, `<U+XXXX>` = invisible char).
#![allow(
    unreachable_pub,
    reason = "the API is `pub` by design, but the `it` test crate declares the module with a private `mod`"
)]

/// One skill folder to create on disk for the differential test.
pub struct EdgeCase {
    /// Name of the folder created for the case (may be non-ASCII or start with `-`).
    pub dir: &'static str,
    /// What the folder contains.
    pub layout: Layout,
    /// Why the case exists (which rule or quirk it pins).
    pub why: &'static str,
}

/// What an edge-case folder holds.
pub enum Layout {
    /// One file with these exact bytes (`name` is `SKILL.md`, `skill.md`, `Skill.md`, ...).
    File {
        /// File name inside the folder.
        name: &'static str,
        /// Exact file bytes.
        content: &'static [u8],
    },
    /// Both `SKILL.md` and `skill.md`.
    Both {
        /// Bytes of `SKILL.md`.
        upper: &'static [u8],
        /// Bytes of `skill.md`.
        lower: &'static [u8],
    },
    /// An empty folder.
    Empty,
    /// `dir` is a regular file with these bytes, not a folder.
    PlainFile {
        /// Exact file bytes.
        content: &'static [u8],
    },
    /// `SKILL.md` is itself a folder.
    SkillMdIsDir,
}

/// Every edge case, in a stable order; folder names are unique.
pub const EDGE_CASES: &[EdgeCase] = &[
    // ---- Appendix A of agent-skills-reference.md ----
    EdgeCase {
        dir: "-lead",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: -lead\ndescription: x\n---\n",
        },
        why: "Appendix A: leading hyphen (folder must be passed after `--`); read-properties does not check names",
    },
    EdgeCase {
        dir: "123",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: 123\ndescription: true\n---\n",
        },
        why: "Appendix A: digit-only name and `true` description stay strings (strictyaml has no typing)",
    },
    EdgeCase {
        dir: "a b",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: a b\ndescription: x\n---\n",
        },
        why: "Appendix A: space in name is an invalid character",
    },
    EdgeCase {
        dir: "a--b",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: a--b\ndescription: x\n---\n",
        },
        why: "Appendix A: consecutive hyphens",
    },
    EdgeCase {
        dir: "a.b",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: a.b\ndescription: x\n---\n",
        },
        why: "Appendix A: `.` is an invalid character",
    },
    EdgeCase {
        dir: "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\ndescription: x\n---\n",
        },
        why: "Appendix A: name of exactly 64 characters is valid",
    },
    EdgeCase {
        dir: "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\ndescription: x\n---\n",
        },
        why: "Appendix A: name of 65 characters exceeds the limit",
    },
    EdgeCase {
        dir: "anchor",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: anchor\ndescription: &d x\nlicense: *d\n---\n",
        },
        why: "Appendix A: YAML anchors are rejected by strictyaml",
    },
    EdgeCase {
        dir: "body-only-dashes",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---name: x\n---\n",
        },
        why: "Appendix A: opening `---` need not end the line (substring split); no description, name/dir mismatch",
    },
    EdgeCase {
        dir: "bom",
        // content: <U+FEFF>---⏎name: bom⏎description: x⏎---⏎
        layout: Layout::File {
            name: "SKILL.md",
            content: b"\xef\xbb\xbf---\nname: bom\ndescription: x\n---\n",
        },
        why: "Appendix A: a UTF-8 BOM is not stripped, so the file does not start with `---`",
    },
    EdgeCase {
        dir: "cafe\u{301}-nfd-dir",
        // content: ---⏎name: café-nfd-dir⏎description: x⏎---⏎
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: caf\xc3\xa9-nfd-dir\ndescription: x\n---\n",
        },
        why: "Appendix A: NFD folder name vs NFC skill name match after NFKC of both",
    },
    EdgeCase {
        dir: "café",
        // content: ---⏎name: cafe<U+0301>⏎description: x⏎---⏎
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: cafe\xcc\x81\ndescription: x\n---\n",
        },
        why: "Appendix A: NFD skill name vs NFC folder match after NFKC; JSON keeps the raw decomposed name",
    },
    EdgeCase {
        dir: "colon-desc",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: colon-desc\ndescription: Use this skill when: the user asks about PDFs\n---\n",
        },
        why: "Appendix A: unquoted `: ` inside a value is a YAML error (the guide's canonical example)",
    },
    EdgeCase {
        dir: "comment",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\n# a comment\nname: comment # trailing\ndescription: x\n---\n",
        },
        why: "Appendix A: full-line and trailing comments are dropped",
    },
    EdgeCase {
        dir: "compat-500",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: compat-500\ndescription: x\ncompatibility: cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc\n---\n",
        },
        why: "Appendix A: compatibility of exactly 500 characters is valid",
    },
    EdgeCase {
        dir: "compat-501",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: compat-501\ndescription: x\ncompatibility: ccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc\n---\n",
        },
        why: "Appendix A: compatibility of 501 characters exceeds the limit (validate only)",
    },
    EdgeCase {
        dir: "compat-empty",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: compat-empty\ndescription: x\ncompatibility: \"\"\n---\n",
        },
        why: "Appendix A: empty compatibility is accepted (spec says 1-500)",
    },
    EdgeCase {
        dir: "compat-list",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: compat-list\ndescription: x\ncompatibility:\n  - a\n  - b\n---\n",
        },
        why: "Appendix A: non-string compatibility is a validate error; read-properties emits a JSON array",
    },
    EdgeCase {
        dir: "crlf",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\r\nname: crlf\r\ndescription: x\r\n---\r\nBody\r\n",
        },
        why: "Appendix A: CRLF line endings are accepted",
    },
    EdgeCase {
        dir: "dashes-desc",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: dashes-desc\ndescription: foo---bar\n---\nBody\n",
        },
        why: "Appendix A: frontmatter ends at the first `---` substring, truncating the description to `foo`",
    },
    EdgeCase {
        dir: "desc-1024",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: desc-1024\ndescription: xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n---\n",
        },
        why: "Appendix A: description of exactly 1024 characters is valid",
    },
    EdgeCase {
        dir: "desc-1025",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: desc-1025\ndescription: xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n---\n",
        },
        why: "Appendix A: description of 1025 characters exceeds the limit (validate only)",
    },
    EdgeCase {
        dir: "desc-blank",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: desc-blank\ndescription:\n---\n",
        },
        why: "Appendix A: empty description value is an empty string",
    },
    EdgeCase {
        dir: "desc-emoji-len",
        // content: ---⏎name: desc-emoji-len⏎description: 😀×1024⏎---⏎
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: desc-emoji-len\ndescription: \xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\n---\n",
        },
        why: "Appendix A: length counts code points, not UTF-16 units or bytes (1024 astral chars valid)",
    },
    EdgeCase {
        dir: "desc-empty",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: desc-empty\ndescription: \"\"\n---\n",
        },
        why: "Appendix A: quoted empty description",
    },
    EdgeCase {
        dir: "desc-map",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: desc-map\ndescription:\n  a: b\n---\n",
        },
        why: "Appendix A: mapping description is not a non-empty string",
    },
    EdgeCase {
        dir: "desc-spaces",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: desc-spaces\ndescription: \"   \"\n---\n",
        },
        why: "Appendix A: whitespace-only description is empty after strip",
    },
    EdgeCase {
        dir: "desc-unicode-len",
        // content: ---⏎name: desc-unicode-len⏎description: 技×1024⏎---⏎
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: desc-unicode-len\ndescription: \xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\n---\n",
        },
        why: "Appendix A: 1024 three-byte characters are valid (code points, not bytes)",
    },
    EdgeCase {
        dir: "dir-mismatch",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: other-name\ndescription: x\n---\nBody\n",
        },
        why: "Appendix A: name differs from the folder name",
    },
    EdgeCase {
        dir: "dup-key",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: dup-key\nname: dup-key\ndescription: x\n---\n",
        },
        why: "Appendix A: duplicate keys are a YAML error",
    },
    EdgeCase {
        dir: "empty-dir",
        layout: Layout::Empty,
        why: "Appendix A: folder without SKILL.md",
    },
    EdgeCase {
        dir: "empty-fm",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\n---\nBody\n",
        },
        why: "Appendix A: empty frontmatter is not a mapping",
    },
    EdgeCase {
        dir: "flow-map",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: flow-map\ndescription: x\nmetadata: {a: b}\n---\n",
        },
        why: "Appendix A: flow mappings are rejected",
    },
    EdgeCase {
        dir: "folded",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: folded\ndescription: >\n  line one\n  line two\n---\n",
        },
        why: "Appendix A: folded block scalar joins lines with a space",
    },
    EdgeCase {
        dir: "four-dashes",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"----\nname: four-dashes\ndescription: x\n----\n",
        },
        why: "Appendix A: `----` leaves a stray `-` in the frontmatter, a YAML error",
    },
    EdgeCase {
        dir: "full2",
        // content: ---⏎name: ｆｕｌｌ2⏎description: x⏎---⏎
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: \xef\xbd\x86\xef\xbd\x95\xef\xbd\x8c\xef\xbd\x8c2\ndescription: x\n---\n",
        },
        why: "Appendix A: fullwidth name NFKC-normalises to the ASCII folder name",
    },
    EdgeCase {
        dir: "hr-body",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: hr-body\ndescription: x\n---\nBody\n\n---\n\nMore\n",
        },
        why: "Appendix A: a `---` thematic break in the body is harmless",
    },
    EdgeCase {
        dir: "invalid-utf8",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: invalid-utf8\ndescription: \xff\xfe bad\n---\n",
        },
        why: "Appendix A: invalid UTF-8 is an uncaught UnicodeDecodeError (traceback, exit 1)",
    },
    EdgeCase {
        dir: "invalid-yaml",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: [invalid\ndescription: broken\n---\nBody\n",
        },
        why: "Appendix A: unclosed flow sequence is rejected as a flow collection",
    },
    EdgeCase {
        dir: "leading-blank",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"\n---\nname: leading-blank\ndescription: x\n---\n",
        },
        why: "Appendix A: a leading blank line means the file does not start with `---`",
    },
    EdgeCase {
        dir: "license-list",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: license-list\ndescription: x\nlicense:\n  - MIT\n---\n",
        },
        why: "Appendix A: license type is never checked; JSON array",
    },
    EdgeCase {
        dir: "list-fm",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\n- a\n- b\n---\n",
        },
        why: "Appendix A: a sequence frontmatter is not a mapping",
    },
    EdgeCase {
        dir: "literal",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: literal\ndescription: |\n  line one\n  line two\n---\n",
        },
        why: "Appendix A: literal block keeps newlines; trailing newline stripped by read-properties",
    },
    EdgeCase {
        dir: "lower-file",
        layout: Layout::File {
            name: "skill.md",
            content: b"---\nname: lower-file\ndescription: x\n---\n",
        },
        why: "Appendix A: lowercase skill.md is accepted (also pass `lower-file/skill.md` as the argument)",
    },
    EdgeCase {
        dir: "meta-empty",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: meta-empty\ndescription: x\nmetadata:\n---\n",
        },
        why: "Appendix A: empty metadata is falsy and omitted from JSON",
    },
    EdgeCase {
        dir: "meta-list",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: meta-list\ndescription: x\nmetadata:\n  - a\n  - b\n---\n",
        },
        why: "Appendix A: list metadata is passed through untouched",
    },
    EdgeCase {
        dir: "meta-nested",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: meta-nested\ndescription: x\nmetadata:\n  a: 1\n  b: true\n  c:\n    d: e\n  f:\n    - g\n    - h\n---\n",
        },
        why: "Appendix A: nested metadata values become Python repr strings",
    },
    EdgeCase {
        dir: "meta-string",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: meta-string\ndescription: x\nmetadata: just-a-string\n---\n",
        },
        why: "Appendix A: string metadata is passed through untouched",
    },
    EdgeCase {
        dir: "multi-err",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: -Bad--Name_\ndescription: \"\"\ncompatibility: ccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc\nfoo: 1\n---\n",
        },
        why: "Appendix A: every validate rule fires, pinning the error order",
    },
    EdgeCase {
        dir: "name-empty",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: \"\"\ndescription: x\n---\n",
        },
        why: "Appendix A: empty name",
    },
    EdgeCase {
        dir: "name-list",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname:\n  - a\ndescription: x\n---\n",
        },
        why: "Appendix A: sequence name is not a non-empty string",
    },
    EdgeCase {
        dir: "no-frontmatter",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"# Title\nno frontmatter\n",
        },
        why: "Appendix A: no frontmatter at all",
    },
    EdgeCase {
        dir: "no-newline-close",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: no-newline-close\ndescription: x\n---",
        },
        why: "Appendix A: closing `---` without a trailing newline",
    },
    EdgeCase {
        dir: "not-a-dir.txt",
        layout: Layout::PlainFile {
            content: b"hi",
        },
        why: "Appendix A: argument is a regular file not named skill.md",
    },
    EdgeCase {
        dir: "quote-desc",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: quote-desc\ndescription: He said \"hi\" & 'bye' <tag>\n---\n",
        },
        why: "Appendix A: quotes, `&` and `<>` in a plain scalar; JSON and XML escaping",
    },
    EdgeCase {
        dir: "quoted-ws",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: '  quoted-ws  '\ndescription: '  padded  '\n---\n",
        },
        why: "Appendix A: quoted surrounding spaces are stripped from name and description",
    },
    EdgeCase {
        dir: "scalar-fm",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\njust a string\n---\nBody\n",
        },
        why: "Appendix A: a scalar frontmatter is not a mapping",
    },
    EdgeCase {
        dir: "skillmd-is-dir",
        layout: Layout::SkillMdIsDir,
        why: "Appendix A: SKILL.md is a directory; uncaught IsADirectoryError (traceback, exit 1)",
    },
    EdgeCase {
        dir: "tag",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: tag\ndescription: !!str x\n---\n",
        },
        why: "Appendix A: YAML tags are rejected",
    },
    EdgeCase {
        dir: "tools-flow",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: tools-flow\ndescription: x\nallowed-tools: [Read, Bash]\n---\n",
        },
        why: "Appendix A: inline-list allowed-tools is a flow collection, rejected",
    },
    EdgeCase {
        dir: "tools-list",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: tools-list\ndescription: x\nallowed-tools:\n  - Read\n  - Bash\n---\n",
        },
        why: "Appendix A: block-list allowed-tools is accepted untouched",
    },
    EdgeCase {
        dir: "trail-",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: trail-\ndescription: x\n---\n",
        },
        why: "Appendix A: trailing hyphen",
    },
    EdgeCase {
        dir: "trailing-ws-desc",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: trailing-ws-desc\ndescription: x   \n---\n",
        },
        why: "Appendix A: trailing spaces of a plain scalar are dropped",
    },
    EdgeCase {
        dir: "unclosed",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: unclosed\ndescription: x\n",
        },
        why: "Appendix A: no closing `---`",
    },
    EdgeCase {
        dir: "upper",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: Upper\ndescription: x\n---\n",
        },
        why: "Appendix A: uppercase name; also mismatches the lowercase folder",
    },
    EdgeCase {
        dir: "weird-case-file",
        layout: Layout::File {
            name: "Skill.md",
            content: b"---\nname: weird-case-file\ndescription: x\n---\n",
        },
        why: "Appendix A: `Skill.md` is not found on a case-sensitive file system",
    },
    EdgeCase {
        dir: "x²",
        // content: ---⏎name: x²⏎description: x⏎---⏎
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: x\xc2\xb2\ndescription: x\n---\n",
        },
        why: "Appendix A: superscript two NFKC-normalises to `2`",
    },
    EdgeCase {
        dir: "ß",
        // content: ---⏎name: ß⏎description: x⏎---⏎
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: \xc3\x9f\ndescription: x\n---\n",
        },
        why: "Appendix A: sharp s is lowercase (lower() keeps it; upper() would not round-trip)",
    },
    EdgeCase {
        dir: "ǅ",
        // content: ---⏎name: ǅ⏎description: x⏎---⏎
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: \xc7\x85\ndescription: x\n---\n",
        },
        why: "Appendix A: titlecase digraph is not lowercase; message prints the NFKC form `Dž`",
    },
    EdgeCase {
        dir: "НАВЫК",
        // content: ---⏎name: НАВЫК⏎description: x⏎---⏎
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: \xd0\x9d\xd0\x90\xd0\x92\xd0\xab\xd0\x9a\ndescription: x\n---\n",
        },
        why: "Appendix A: uppercase Cyrillic",
    },
    EdgeCase {
        dir: "мой-навык",
        // content: ---⏎name: мой-навык⏎description: x⏎---⏎
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: \xd0\xbc\xd0\xbe\xd0\xb9-\xd0\xbd\xd0\xb0\xd0\xb2\xd1\x8b\xd0\xba\ndescription: x\n---\n",
        },
        why: "Appendix A: lowercase Cyrillic with a hyphen is valid",
    },
    EdgeCase {
        dir: "٣",
        // content: ---⏎name: ٣⏎description: x⏎---⏎
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: \xd9\xa3\ndescription: x\n---\n",
        },
        why: "Appendix A: Arabic-Indic digit is alphanumeric",
    },
    EdgeCase {
        dir: "ह\u{93f}\u{902}द\u{940}",
        // content: ---⏎name: ह<U+093F><U+0902>द<U+0940>⏎description: x⏎---⏎
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: \xe0\xa4\xb9\xe0\xa4\xbf\xe0\xa4\x82\xe0\xa4\xa6\xe0\xa5\x80\ndescription: x\n---\n",
        },
        why: "Appendix A: Devanagari vowel signs (Mc/Mn) are not alphanumeric in Python",
    },
    EdgeCase {
        dir: "ⅻ",
        // content: ---⏎name: ⅻ⏎description: x⏎---⏎
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: \xe2\x85\xbb\ndescription: x\n---\n",
        },
        why: "Appendix A: small roman numeral twelve NFKC-normalises to `xii`",
    },
    EdgeCase {
        dir: "技能",
        // content: ---⏎name: 技能⏎description: 中文描述 <b>&⏎---⏎
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: \xe6\x8a\x80\xe8\x83\xbd\ndescription: \xe4\xb8\xad\xe6\x96\x87\xe6\x8f\x8f\xe8\xbf\xb0 <b>&\n---\n",
        },
        why: "Appendix A: CJK name; description needs XML escaping",
    },
    EdgeCase {
        dir: "ﬁle",
        // content: ---⏎name: ﬁle⏎description: x⏎---⏎
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: \xef\xac\x81le\ndescription: x\n---\n",
        },
        why: "Appendix A: `fi` ligature NFKC-normalises; folder compared after NFKC too",
    },
    EdgeCase {
        dir: "ｆｕｌｌ",
        // content: ---⏎name: ｆｕｌｌ⏎description: x⏎---⏎
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: \xef\xbd\x86\xef\xbd\x95\xef\xbd\x8c\xef\xbd\x8c\ndescription: x\n---\n",
        },
        why: "Appendix A: fullwidth name and folder; JSON keeps the raw fullwidth name",
    },
    // ---- Section 5 gaps, then further YAML, frontmatter and Unicode pins ----
    EdgeCase {
        dir: "multi-missing",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nfoo: 1\n---\n",
        },
        why: "Gap: unknown field, then missing name, then missing description, in that order",
    },
    EdgeCase {
        dir: "name-spaces",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: \"   \"\ndescription: x\n---\n",
        },
        why: "Gap: whitespace-only name",
    },
    EdgeCase {
        dir: "name-map",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname:\n  a: b\ndescription: x\n---\n",
        },
        why: "Gap: mapping name is not a non-empty string",
    },
    EdgeCase {
        dir: "desc-list",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: desc-list\ndescription:\n  - a\n---\n",
        },
        why: "Gap: sequence description is not a non-empty string",
    },
    EdgeCase {
        dir: "compat-map",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: compat-map\ndescription: x\ncompatibility:\n  a: b\n---\n",
        },
        why: "Gap: mapping compatibility is a validate error; JSON object in read-properties",
    },
    EdgeCase {
        dir: "compat-spaces",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: compat-spaces\ndescription: x\ncompatibility: \"   \"\n---\n",
        },
        why: "Gap: whitespace-only compatibility is accepted and kept unstripped",
    },
    EdgeCase {
        dir: "compat-500-cjk",
        // content: ---⏎name: compat-500-cjk⏎description: x⏎compatibility: 技×500⏎---⏎
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: compat-500-cjk\ndescription: x\ncompatibility: \xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\n---\n",
        },
        why: "Gap: 500 three-byte characters (1500 bytes) is within the 500-character limit",
    },
    EdgeCase {
        dir: "compat-501-cjk",
        // content: ---⏎name: compat-501-cjk⏎description: x⏎compatibility: 技×501⏎---⏎
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: compat-501-cjk\ndescription: x\ncompatibility: \xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\n---\n",
        },
        why: "Gap: 501 three-byte characters exceed the limit; message counts code points",
    },
    EdgeCase {
        dir: "both-upper-wins",
        layout: Layout::Both {
            upper: b"---\nname: both-upper-wins\ndescription: x\n---\n",
            lower: b"---\nname: wrong-name\ndescription: from lower\n---\n",
        },
        why: "Gap: with SKILL.md and skill.md both present, SKILL.md (valid) is read",
    },
    EdgeCase {
        dir: "both-upper-bad",
        layout: Layout::Both {
            upper: b"---\nname: both-upper-bad\ndescription: \"\"\n---\n",
            lower: b"---\nname: both-upper-bad\ndescription: lower is fine\n---\n",
        },
        why: "Gap: SKILL.md wins even when it is invalid and skill.md would pass",
    },
    EdgeCase {
        dir: "upper-ext-file",
        layout: Layout::File {
            name: "SKILL.MD",
            content: b"---\nname: upper-ext-file\ndescription: x\n---\n",
        },
        why: "Gap: `SKILL.MD` is not found in the folder; as a file argument it is treated as skill.md and its parent searched",
    },
    EdgeCase {
        dir: "lower-file-bad",
        layout: Layout::File {
            name: "skill.md",
            content: b"---\nname: lower-file-bad\ndescription: \"\"\n---\n",
        },
        why: "Gap: lowercase skill.md is really read (its error is reported); also pass `lower-file-bad/skill.md`",
    },
    EdgeCase {
        dir: "json-escape",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: json-escape\ndescription: \"tab\\there \\\"q\\\" back\\\\slash \\u0001 \\b \\f \\r DEL\\u007f \\u00e9 \\U0001F600 /slash\"\nlicense: \"\\r\\n lic \\u000b\"\n---\n",
        },
        why: "Gap: JSON escaping (ensure_ascii): short escapes, \\u00XX controls, raw DEL and `/`, surrogate pairs; license kept unstripped",
    },
    EdgeCase {
        dir: "xml-escape-nonascii",
        // content: ---⏎name: xml-escape-nonascii⏎description: Ça & "ça" — l'été <b> ’curly’ 😀⏎---⏎
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: xml-escape-nonascii\ndescription: \xc3\x87a & \"\xc3\xa7a\" \xe2\x80\x94 l'\xc3\xa9t\xc3\xa9 <b> \xe2\x80\x99curly\xe2\x80\x99 \xf0\x9f\x98\x80\n---\n",
        },
        why: "Gap: to-prompt html.escape of `&`, `\"`, `'` (as &#x27;), `<`, `>` with raw non-ASCII; JSON \\u escapes",
    },
    EdgeCase {
        dir: "xml-preescaped",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: xml-preescaped\ndescription: a &amp; b &#x27; c\n---\n",
        },
        why: "Gap: existing entities are escaped again (`&amp;amp;`)",
    },
    EdgeCase {
        dir: "flow-seq-desc",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: flow-seq-desc\ndescription: [WIP] thing\n---\n",
        },
        why: "Gap: a description starting with `[` is a flow collection, rejected",
    },
    EdgeCase {
        dir: "flow-brace-desc",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: flow-brace-desc\ndescription: {x} thing\n---\n",
        },
        why: "Gap: a description starting with `{` is a flow collection, rejected",
    },
    EdgeCase {
        dir: "brackets-inside",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: brackets-inside\ndescription: use {x} and [y]\n---\n",
        },
        why: "Gap: brackets and braces not at the start of a plain scalar are text",
    },
    EdgeCase {
        dir: "éééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééé",
        // content: ---⏎name: é×64⏎description: x⏎---⏎
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: \xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\ndescription: x\n---\n",
        },
        why: "Name of exactly 64 two-byte characters (128 bytes) is valid: code points, not bytes",
    },
    EdgeCase {
        dir: "ééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééé",
        // content: ---⏎name: é×65⏎description: x⏎---⏎
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: \xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\ndescription: x\n---\n",
        },
        why: "Name of 65 two-byte characters exceeds the 64-character limit",
    },
    EdgeCase {
        dir: "技技技技技技技技技技技技技技技技技技技技技技技技技技技技技技技技技技技技技技技技技技技技技技技技技技技技技技技技技技技技技技技技",
        // content: ---⏎name: 技×64⏎description: x⏎---⏎
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: \xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\xe6\x8a\x80\ndescription: x\n---\n",
        },
        why: "Name of exactly 64 three-byte characters (192 bytes) is valid",
    },
    EdgeCase {
        dir: "ﬁﬁﬁﬁﬁﬁﬁﬁﬁﬁﬁﬁﬁﬁﬁﬁﬁﬁﬁﬁﬁﬁﬁﬁﬁﬁﬁﬁﬁﬁﬁﬁﬁ",
        // content: ---⏎name: ﬁ×33⏎description: x⏎---⏎
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: \xef\xac\x81\xef\xac\x81\xef\xac\x81\xef\xac\x81\xef\xac\x81\xef\xac\x81\xef\xac\x81\xef\xac\x81\xef\xac\x81\xef\xac\x81\xef\xac\x81\xef\xac\x81\xef\xac\x81\xef\xac\x81\xef\xac\x81\xef\xac\x81\xef\xac\x81\xef\xac\x81\xef\xac\x81\xef\xac\x81\xef\xac\x81\xef\xac\x81\xef\xac\x81\xef\xac\x81\xef\xac\x81\xef\xac\x81\xef\xac\x81\xef\xac\x81\xef\xac\x81\xef\xac\x81\xef\xac\x81\xef\xac\x81\xef\xac\x81\ndescription: x\n---\n",
        },
        why: "33 `fi` ligatures NFKC-normalise to 66 characters: length is checked after NFKC",
    },
    EdgeCase {
        dir: "½",
        // content: ---⏎name: ½⏎description: x⏎---⏎
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: \xc2\xbd\ndescription: x\n---\n",
        },
        why: "`½` NFKC-normalises to `1⁄2`; U+2044 is an invalid character; message prints the normalised form",
    },
    EdgeCase {
        dir: "Ⅻ-roman",
        // content: ---⏎name: Ⅻ-roman⏎description: x⏎---⏎
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: \xe2\x85\xab-roman\ndescription: x\n---\n",
        },
        why: "Capital roman numeral twelve NFKC-normalises to `XII`: lowercase error after NFKC",
    },
    EdgeCase {
        dir: "a－b",
        // content: ---⏎name: a－b⏎description: x⏎---⏎
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: a\xef\xbc\x8db\ndescription: x\n---\n",
        },
        why: "Fullwidth hyphen-minus NFKC-normalises to `-`: valid, folder matches after NFKC",
    },
    EdgeCase {
        dir: "a﹣b",
        // content: ---⏎name: a﹣b⏎description: x⏎---⏎
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: a\xef\xb9\xa3b\ndescription: x\n---\n",
        },
        why: "Small hyphen-minus NFKC-normalises to `-`: valid",
    },
    EdgeCase {
        dir: "a‐b",
        // content: ---⏎name: a‐b⏎description: x⏎---⏎
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: a\xe2\x80\x90b\ndescription: x\n---\n",
        },
        why: "U+2010 HYPHEN does not normalise to `-` and is not alphanumeric: invalid character",
    },
    EdgeCase {
        dir: "－fw",
        // content: ---⏎name: －fw⏎description: x⏎---⏎
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: \xef\xbc\x8dfw\ndescription: x\n---\n",
        },
        why: "Fullwidth leading hyphen becomes `-` after NFKC: start/end hyphen error",
    },
    EdgeCase {
        dir: "trail-ws-quoted",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: \"\\ttrail-ws-quoted   \\n\"\ndescription: x\n---\n",
        },
        why: "Name with surrounding whitespace (tab, spaces, newline) in quotes is stripped before all checks",
    },
    EdgeCase {
        dir: "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: '  bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb  '\ndescription: x\n---\n",
        },
        why: "Quoted 68-character name is 64 after strip: length is measured after strip",
    },
    EdgeCase {
        dir: "desc-folded-1024",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: desc-folded-1024\ndescription: >\n  xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n---\n",
        },
        why: "Folded `>` block of 1024 x's keeps a trailing newline: raw length 1025 is an error; read-properties strips it",
    },
    EdgeCase {
        dir: "desc-folded-strip-1024",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: desc-folded-strip-1024\ndescription: >-\n  xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n---\n",
        },
        why: "Folded `>-` block of 1024 x's has no trailing newline: valid",
    },
    EdgeCase {
        dir: "desc-quoted-pad-1025",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: desc-quoted-pad-1025\ndescription: '  xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx'\n---\n",
        },
        why: "Quoted leading spaces count toward the 1024 limit (raw, unstripped length 1025)",
    },
    EdgeCase {
        dir: "desc-seq-entry",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: desc-seq-entry\ndescription: - item\n---\n",
        },
        why: "`description: - item` is a YAML error (sequence entries not allowed here)",
    },
    EdgeCase {
        dir: "explicit-key-value",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: explicit-key-value\ndescription: ? x\n---\n",
        },
        why: "`? x` as a value is a YAML error (mapping keys not allowed here)",
    },
    EdgeCase {
        dir: "explicit-key-top",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: explicit-key-top\ndescription: x\n? license\n: MIT\n---\n",
        },
        why: "A top-level explicit `? license` / `: MIT` pair is accepted (license = MIT)",
    },
    EdgeCase {
        dir: "at-start",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: at-start\ndescription: @mention me\n---\n",
        },
        why: "A plain scalar cannot start with `@`",
    },
    EdgeCase {
        dir: "backtick-start",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: backtick-start\ndescription: `code` here\n---\n",
        },
        why: "A plain scalar cannot start with a backtick",
    },
    EdgeCase {
        dir: "percent-start",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: percent-start\ndescription: %d things\n---\n",
        },
        why: "A plain scalar cannot start with `%`",
    },
    EdgeCase {
        dir: "percent-inside",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: percent-inside\ndescription: 100% sure\n---\n",
        },
        why: "`%` not at the start is plain text",
    },
    EdgeCase {
        dir: "tab-indent",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: tab-indent\ndescription: x\nmetadata:\n\tauthor: someone\n---\n",
        },
        why: "Tab indentation is a YAML error",
    },
    EdgeCase {
        dir: "tab-in-plain",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: tab-in-plain\ndescription: a\tb\n---\n",
        },
        why: "A tab inside a plain scalar is a YAML error in ruamel (found character '\\t' that cannot start any token)",
    },
    EdgeCase {
        dir: "tab-after-colon",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: tab-after-colon\ndescription:\tx\n---\n",
        },
        why: "A tab as the only separator after `:` is a YAML error (found character '\\t')",
    },
    EdgeCase {
        dir: "bad-block-header",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: bad-block-header\ndescription: |x\n  text\n---\n",
        },
        why: "`|x` is an invalid block scalar header",
    },
    EdgeCase {
        dir: "quoted-then-text",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: quoted-then-text\ndescription: 'x' y\n---\n",
        },
        why: "`'x' y` (text after a closed quoted scalar) is a YAML error",
    },
    EdgeCase {
        dir: "comment-only-fm",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\n# only a comment\n---\nBody\n",
        },
        why: "Comment-only frontmatter yields an empty document: not a mapping",
    },
    EdgeCase {
        dir: "doc-end-marker",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: doc-end-marker\ndescription: x\n...\n---\n",
        },
        why: "`...` document end marker inside the frontmatter is accepted",
    },
    EdgeCase {
        dir: "indented-keys",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\n  name: indented-keys\n  description: x\n---\n",
        },
        why: "Uniformly indented top-level keys are accepted",
    },
    EdgeCase {
        dir: "chomp-lit-clip",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: chomp-lit-clip\ndescription: x\nlicense: |\n  a\n  b\n\n\ncompatibility: c\n---\n",
        },
        why: "Literal `|` clip: one trailing newline kept (visible in the unstripped license)",
    },
    EdgeCase {
        dir: "chomp-lit-strip",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: chomp-lit-strip\ndescription: x\nlicense: |-\n  a\n  b\n\n\ncompatibility: c\n---\n",
        },
        why: "Literal `|-` strip: no trailing newline",
    },
    EdgeCase {
        dir: "chomp-lit-keep",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: chomp-lit-keep\ndescription: x\nlicense: |+\n  a\n  b\n\n\ncompatibility: c\n---\n",
        },
        why: "Literal `|+` keep: all trailing newlines kept",
    },
    EdgeCase {
        dir: "chomp-fold-clip",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: chomp-fold-clip\ndescription: x\nlicense: >\n  a\n  b\n\n  c\n\n\ncompatibility: c\n---\n",
        },
        why: "Folded `>` clip: lines joined, blank line becomes a newline, one trailing newline",
    },
    EdgeCase {
        dir: "chomp-fold-strip",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: chomp-fold-strip\ndescription: x\nlicense: >-\n  a\n  b\n\n  c\n\n\ncompatibility: c\n---\n",
        },
        why: "Folded `>-` strip",
    },
    EdgeCase {
        dir: "chomp-fold-keep",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: chomp-fold-keep\ndescription: x\nlicense: >+\n  a\n  b\n\n  c\n\n\ncompatibility: c\n---\n",
        },
        why: "Folded `>+` keep",
    },
    EdgeCase {
        dir: "chomp-keep-at-end",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: chomp-keep-at-end\ndescription: x\nlicense: |+\n  a\n\n\n---\n",
        },
        why: "Keep chomping on the last key: trailing newlines run up to the closing `---`",
    },
    EdgeCase {
        dir: "block-indent-indicator",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: block-indent-indicator\ndescription: x\nlicense: |2\n    indented\n  base\n---\n",
        },
        why: "Explicit indentation indicator `|2` keeps extra leading spaces",
    },
    EdgeCase {
        dir: "block-more-indented",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: block-more-indented\ndescription: x\nlicense: >\n  folded\n    more indented\n  back\n---\n",
        },
        why: "More-indented lines in a folded block are not folded",
    },
    EdgeCase {
        dir: "empty-block",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: empty-block\ndescription: |\n---\n",
        },
        why: "An empty literal block is an empty description",
    },
    EdgeCase {
        dir: "meta-version-float",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: meta-version-float\ndescription: x\nmetadata:\n  version: 1.0\n  build: 010\n---\n",
        },
        why: "Unquoted `version: 1.0` stays the string `1.0` (and `010` stays `010`)",
    },
    EdgeCase {
        dir: "meta-empty-values",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: meta-empty-values\ndescription: x\nmetadata:\n  a:\n  b: \"\"\n  c: ''\n  d:\n    - x: 1\n      y: 2\n    - z\n    -\n  e:\n    f:\n      - g\n---\n",
        },
        why: "Metadata empty values and nested lists of maps become Python repr strings",
    },
    EdgeCase {
        dir: "meta-order",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: meta-order\ndescription: x\nmetadata:\n  zeta: 1\n  alpha: 2\n  mid: 3\n---\n",
        },
        why: "Metadata key order is preserved (insertion order), not sorted",
    },
    EdgeCase {
        dir: "meta-odd-keys",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: meta-odd-keys\ndescription: x\nmetadata:\n  1: one\n  true: yes\n  null: ~\n  'quoted key': v\n---\n",
        },
        why: "Metadata keys are strings verbatim (`1`, `true`, `null`)",
    },
    EdgeCase {
        dir: "capital-name-key",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nName: capital-name-key\ndescription: x\n---\n",
        },
        why: "Keys are case-sensitive: `Name` is unknown and `name` is missing",
    },
    EdgeCase {
        dir: "unknown-sort",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nZeta: 1\nalpha: 2\n_x: 3\nname: unknown-sort\ndescription: x\n---\n",
        },
        why: "Unknown fields are listed sorted by code point: `Zeta, _x, alpha`",
    },
    EdgeCase {
        dir: "numeric-key",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: numeric-key\ndescription: x\n1: one\n---\n",
        },
        why: "A numeric top-level key is the unknown field `1`",
    },
    EdgeCase {
        dir: "body-dashes-yaml",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: body-dashes-yaml\ndescription: x\n---\n---\nname: evil\ndescription: y\n---\n\ntext\n---\n",
        },
        why: "Body containing `---` lines and YAML-like text is ignored",
    },
    EdgeCase {
        dir: "quoted-dashes",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: quoted-dashes\ndescription: \"a --- b\"\n---\n",
        },
        why: "`---` inside a quoted value closes the frontmatter, leaving an unterminated quote",
    },
    EdgeCase {
        dir: "dashes-in-comment",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: dashes-in-comment\n# --- note\ndescription: x\n---\n",
        },
        why: "`---` inside a comment closes the frontmatter early: description missing",
    },
    EdgeCase {
        dir: "crlf-block",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\r\nname: crlf-block\r\ndescription: |\r\n  line one\r\n  line two\r\nlicense: >\r\n  folded\r\n  text\r\n\r\ncompatibility: |+\r\n  kept\r\n\r\n---\r\nBody\r\n",
        },
        why: "CRLF everywhere including in block scalars: line breaks normalise to LF",
    },
    EdgeCase {
        dir: "cr-only",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\rname: cr-only\rdescription: x\r---\r",
        },
        why: "Bare CR line endings are YAML line breaks",
    },
    EdgeCase {
        dir: "only-dashes",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---",
        },
        why: "File that is only `---`: not properly closed",
    },
    EdgeCase {
        dir: "empty-file",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"",
        },
        why: "Empty SKILL.md: does not start with `---`",
    },
    EdgeCase {
        dir: "lone-dashes",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\n---",
        },
        why: "`---` newline `---` with no body: empty frontmatter, not a mapping",
    },
    EdgeCase {
        dir: "six-dashes",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"------\n",
        },
        why: "`------`: the first six dashes open and close an empty frontmatter",
    },
    EdgeCase {
        dir: "indented-close",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: indented-close\ndescription: x\n  ---\n",
        },
        why: "An indented closing `---` still closes (substring split)",
    },
    EdgeCase {
        dir: "close-trailing-text",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: close-trailing-text\ndescription: x\n--- trailing\n",
        },
        why: "Text after the closing `---` on the same line goes to the body",
    },
    EdgeCase {
        dir: "open-trailing-space",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---  \nname: open-trailing-space\ndescription: x\n---\n",
        },
        why: "Trailing spaces after the opening `---`",
    },
    EdgeCase {
        dir: "desc-1c-only",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: desc-1c-only\ndescription: \"\\u001c\"\n---\n",
        },
        why: "Description that is only U+001C: Python strip() removes it, so it is empty (Rust trim() would not)",
    },
    EdgeCase {
        dir: "desc-1c-trail",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: desc-1c-trail\ndescription: \"x\\u001c\"\n---\n",
        },
        why: "Trailing U+001C is stripped by read-properties (Python isspace)",
    },
    EdgeCase {
        dir: "name-1f",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: \"\\u001fname-1f\"\ndescription: x\n---\n",
        },
        why: "Leading U+001F in the name is stripped by Python before NFKC and checks",
    },
    EdgeCase {
        dir: "😀",
        // content: ---⏎name: 😀⏎description: x⏎---⏎
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: \xf0\x9f\x98\x80\ndescription: x\n---\n",
        },
        why: "Astral emoji name: invalid character; JSON surrogate pair",
    },
    EdgeCase {
        dir: "𝒶𝒷",
        // content: ---⏎name: 𝒶𝒷⏎description: x⏎---⏎
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: \xf0\x9d\x92\xb6\xf0\x9d\x92\xb7\ndescription: x\n---\n",
        },
        why: "Astral mathematical script letters NFKC-normalise to `ab`: valid",
    },
    EdgeCase {
        dir: "𝐀",
        // content: ---⏎name: 𝐀⏎description: x⏎---⏎
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: \xf0\x9d\x90\x80\ndescription: x\n---\n",
        },
        why: "Astral mathematical bold capital A NFKC-normalises to `A`: lowercase error",
    },
    EdgeCase {
        dir: "all-fields",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: all-fields\ndescription: Extract PDF text. Use when handling PDFs.\nlicense: Apache-2.0\ncompatibility: Requires Python 3.11+\nallowed-tools: Bash(git:*) Bash(jq:*) Read\nmetadata:\n  author: example-org\n  version: \"1.0\"\n---\n",
        },
        why: "Every allowed field, valid; fixed JSON key order",
    },
    EdgeCase {
        dir: "optional-empty",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: optional-empty\ndescription: x\nlicense:\nallowed-tools:\nmetadata: \"\"\n---\n",
        },
        why: "Empty license/allowed-tools are kept as \"\"; empty metadata is omitted",
    },
    EdgeCase {
        dir: "license-map",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: license-map\ndescription: x\nlicense:\n  spdx: MIT\n  file: LICENSE\n---\n",
        },
        why: "Mapping license passes through as a JSON object",
    },
    EdgeCase {
        dir: "quoted-key",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\n\"name\": quoted-key\n'description': x\n---\n",
        },
        why: "Quoted keys are ordinary keys",
    },
    EdgeCase {
        dir: "dup-key-quoted",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: dup-key-quoted\n\"name\": dup-key-quoted\ndescription: x\n---\n",
        },
        why: "Duplicate key detection sees through quoting",
    },
    EdgeCase {
        dir: "key-space-colon",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname   : key-space-colon\ndescription : x\n---\n",
        },
        why: "Spaces before the `:` of a key are allowed; the key is `name`",
    },
    EdgeCase {
        dir: "nospace-key",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname:nospace-key\ndescription: x\n---\n",
        },
        why: "`name:x` without a space is a plain scalar, not a key: YAML error (mapping values are not allowed here)",
    },
    EdgeCase {
        dir: "alias",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: alias\ndescription: *x\n---\n",
        },
        why: "An undefined alias is a YAML error",
    },
    EdgeCase {
        dir: "tag-bang",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: tag-bang\ndescription: !important x\n---\n",
        },
        why: "A local tag `!important` is rejected",
    },
    EdgeCase {
        dir: "colon-nospace",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: colon-nospace\ndescription: x:y and a - b\n---\n",
        },
        why: "`x:y` without a space and ` - ` inside a plain scalar are text",
    },
    EdgeCase {
        dir: "pipe-gt-inside",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: pipe-gt-inside\ndescription: a | b > c\n---\n",
        },
        why: "`|` and `>` inside a plain scalar are text",
    },
    EdgeCase {
        dir: "hash-inside",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: hash-inside\ndescription: a#b c # comment\n---\n",
        },
        why: "`#` without preceding space is text; ` #` starts a comment",
    },
    EdgeCase {
        dir: "dash-start",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: dash-start\ndescription: -x\n---\n",
        },
        why: "A plain scalar may start with `-` not followed by a space",
    },
    EdgeCase {
        dir: "single-quote-escape",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: single-quote-escape\ndescription: 'it''s'\n---\n",
        },
        why: "Doubled single quote inside single quotes",
    },
    EdgeCase {
        dir: "double-quote-escapes",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: double-quote-escapes\ndescription: \"tab\\tsep \\u00e9 \\x41 \\N end\"\n---\n",
        },
        why: "Double-quoted escapes `\\t`, `\\u00e9`, `\\x41`, `\\N` (NEL)",
    },
    EdgeCase {
        dir: "multiline-plain",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: multiline-plain\ndescription: line one\n  line two\n\n  para two\n---\n",
        },
        why: "Multi-line plain scalar folds with spaces; a blank line becomes a newline",
    },
    EdgeCase {
        dir: "multiline-dq",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: multiline-dq\ndescription: \"line one\n  line two \\\n  joined\"\n---\n",
        },
        why: "Multi-line double-quoted scalar with a `\\` line continuation",
    },
    EdgeCase {
        dir: "nbsp-desc",
        // content: ---⏎name: nbsp-desc⏎description: a<U+00A0>b<U+00A0>⏎---⏎
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: nbsp-desc\ndescription: a\xc2\xa0b\xc2\xa0\n---\n",
        },
        why: "NBSP inside and at the end: YAML keeps it, Python strip() removes the trailing one",
    },
    EdgeCase {
        dir: "nbsp-name",
        // content: ---⏎name: nbsp-name<U+00A0>⏎description: x⏎---⏎
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: nbsp-name\xc2\xa0\ndescription: x\n---\n",
        },
        why: "Trailing NBSP in a plain name is kept by YAML but stripped before the checks",
    },
    EdgeCase {
        dir: "zwsp\u{200b}x",
        // content: ---⏎name: zwsp<U+200B>x⏎description: x⏎---⏎
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: zwsp\xe2\x80\x8bx\ndescription: x\n---\n",
        },
        why: "Zero-width space (Cf) is neither whitespace nor alphanumeric: invalid character",
    },
    EdgeCase {
        dir: "desc-u2028",
        // content: ---⏎name: desc-u2028⏎description: a<U+2028>b⏎---⏎
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: desc-u2028\ndescription: a\xe2\x80\xa8b\n---\n",
        },
        why: "Raw U+2028 LINE SEPARATOR in a plain scalar: ruamel treats it as a line break but keeps it verbatim when folding (JSON `a\\u2028b`); valid",
    },
    EdgeCase {
        dir: "desc-nel",
        // content: ---⏎name: desc-nel⏎description: a<U+0085>b⏎---⏎
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: desc-nel\ndescription: a\xc2\x85b\n---\n",
        },
        why: "Raw U+0085 NEL in a plain scalar is a YAML line break and folds to a space (`a b`)",
    },
    EdgeCase {
        dir: "bom-inside",
        // content: ---⏎<U+FEFF>name: bom-inside⏎description: x⏎---⏎
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\n\xef\xbb\xbfname: bom-inside\ndescription: x\n---\n",
        },
        why: "A BOM after the opening `---` is not stripped by YAML: it becomes part of the key, so `U+FEFF name` is an unknown field and `name` is missing",
    },
    EdgeCase {
        dir: "desc-nul",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: desc-nul\ndescription: a\0b\n---\n",
        },
        why: "Raw NUL in the frontmatter: ruamel ReaderError crashes strictyaml (uncaught AttributeError traceback, exit 1)",
    },
    EdgeCase {
        dir: "desc-ctrl",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: desc-ctrl\ndescription: a\x01b\n---\n",
        },
        why: "Raw U+0001 in the frontmatter: ruamel ReaderError crashes strictyaml (uncaught AttributeError traceback, exit 1)",
    },
    EdgeCase {
        dir: "desc-del",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: desc-del\ndescription: a\x7fb\n---\n",
        },
        why: "Raw DEL in the frontmatter: ruamel ReaderError crashes strictyaml (uncaught AttributeError traceback, exit 1)",
    },
    EdgeCase {
        dir: "desc-fffe",
        // content: ---⏎name: desc-fffe⏎description: a<U+FFFE>b⏎---⏎
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: desc-fffe\ndescription: a\xef\xbf\xbeb\n---\n",
        },
        why: "Raw noncharacter U+FFFE in the frontmatter: ruamel ReaderError crashes strictyaml (uncaught AttributeError traceback, exit 1)",
    },
    EdgeCase {
        dir: "utf8-surrogate",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: utf8-surrogate\ndescription: a\xed\xa0\x80b\n---\n",
        },
        why: "UTF-8-encoded surrogate (CESU) is invalid UTF-8: UnicodeDecodeError",
    },
    EdgeCase {
        dir: "latin1",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: latin1\ndescription: caf\xe9\n---\n",
        },
        why: "Latin-1 byte is invalid UTF-8: UnicodeDecodeError",
    },
    EdgeCase {
        dir: "ｆｕｌｌ3",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: full3\ndescription: x\n---\n",
        },
        why: "Fullwidth folder name with an ASCII skill name: the folder is NFKC-normalised before comparing",
    },
    EdgeCase {
        dir: "ｄｉｒ-raw",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: other\ndescription: x\n---\n",
        },
        why: "Mismatch message prints the folder name raw (fullwidth) and the skill name normalised",
    },
    EdgeCase {
        dir: "ος",
        // content: ---⏎name: ος⏎description: x⏎---⏎
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: \xce\xbf\xcf\x82\ndescription: x\n---\n",
        },
        why: "Greek with final sigma is lowercase: valid",
    },
    EdgeCase {
        dir: "İ-dotted",
        // content: ---⏎name: İ-dotted⏎description: x⏎---⏎
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: \xc4\xb0-dotted\ndescription: x\n---\n",
        },
        why: "Capital I with dot above: lower() expands to two code points; lowercase error",
    },
    EdgeCase {
        dir: "bom-in-value",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: \xef\xbb\xbfbom-in-value\ndescription: x\n---\n",
        },
        why: "A BOM inside a value is content (ruamel): the name has an invalid character and does not match its folder",
    },
    EdgeCase {
        dir: "nel-after-colon",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: nel-after-colon\ndescription:\xc2\x85 \"quoted after a NEL\"\n---\n",
        },
        why: "A NEL right after `:` separates the key from its value, like a space",
    },
    EdgeCase {
        dir: "nel-in-key",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: nel-in-key\ndescription\xc2\x85: x\n---\n",
        },
        why: "A NEL between a key and its `:` folds away: the key is `description`",
    },
    EdgeCase {
        dir: "nel-spaced",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: nel-spaced\ndescription: high-performance \xc2\x85 applications\n---\n",
        },
        why: "A NEL with blanks around it in a plain scalar folds to one space",
    },
    EdgeCase {
        dir: "nel-double-quoted",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: nel-double-quoted\ndescription: \"a\xc2\x85b\"\n---\n",
        },
        why: "A NEL inside a double-quoted scalar folds to a space",
    },
    EdgeCase {
        dir: "nel-single-quoted",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: nel-single-quoted\ndescription: 'a \xc2\x85b'\n---\n",
        },
        why: "A NEL inside a single-quoted scalar folds to a space",
    },
    EdgeCase {
        dir: "nel-in-literal",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: nel-in-literal\ndescription: |\n  a\xc2\x85b\n---\n",
        },
        why: "A NEL inside a block scalar breaks its indentation: a YAML error",
    },
    EdgeCase {
        dir: "nel-before-quote",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: nel-before-quote\ndescription: \xc2\x85'quoted after a space and a NEL'\n---\n",
        },
        why: "A NEL between `: ` and a quoted value is a blank: the value is the quoted text",
    },
    EdgeCase {
        dir: "document-end-first",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\n# comment\n...\nname: document-end-first\ndescription: x\n---\n",
        },
        why: "A document end marker `...` before any content is a YAML error for ruamel (YAML 1.2 allows it)",
    },
    EdgeCase {
        dir: "document-end-only",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\n...\n---\n",
        },
        why: "A frontmatter that is only `...` is a YAML error, not an empty mapping",
    },
    EdgeCase {
        dir: "ls-folds",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: ls-folds\ndescription: for \xe2\x80\xa8submission\n---\n",
        },
        why: "LS (U+2028) in a plain scalar stays, the blanks around it go",
    },
    EdgeCase {
        dir: "ps-folds",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: ps-folds\ndescription: a \xe2\x80\xa9 b\n---\n",
        },
        why: "PS (U+2029) in a plain scalar stays, the blanks around it go",
    },
    EdgeCase {
        dir: "ls-continuation",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: ls-continuation\ndescription: first line,\n  \xe2\x80\xa8second line\n---\n",
        },
        why: "LS at the start of a plain scalar's continuation line is content",
    },
    EdgeCase {
        dir: "ls-after-colon",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: ls-after-colon\ndescription:\xe2\x80\xa8 'quoted after an LS'\n---\n",
        },
        why: "LS between `:` and a value is a blank",
    },
    EdgeCase {
        dir: "nel-at-line-start",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: nel-at-line-start\n\xc2\x85description: x\n---\n",
        },
        why: "NEL at the start of a line before a key is a YAML error for ruamel",
    },
    EdgeCase {
        dir: "nel-after-quote",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: nel-after-quote\ndescription: 'x'\xc2\x85\n---\n",
        },
        why: "NEL after a closing quote at the end of a line is a blank",
    },
    EdgeCase {
        dir: "ls-in-comment",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: ls-in-comment\ndescription: x # comment\xe2\x80\xa8more: y\n---\n",
        },
        why: "LS inside a comment starts a new line for ruamel: the text after it is content, here a YAML error",
    },
    EdgeCase {
        dir: "ls-in-literal",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: ls-in-literal\ndescription: |\n  a\xe2\x80\xa8b\n---\n",
        },
        why: "LS inside a block scalar breaks its indentation: a YAML error",
    },
    EdgeCase {
        dir: "mapping-as-key",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\n? name: mapping-as-key\ndescription: x\n---\n",
        },
        why: "An explicit key that is itself a mapping is an unhashable key for ruamel: a YAML error",
    },
    EdgeCase {
        dir: "list-as-nested-key",
        layout: Layout::File {
            name: "SKILL.md",
            content: b"---\nname: list-as-nested-key\ndescription: x\nmetadata:\n  ? - a\n  : b\n---\n",
        },
        why: "A list as a key inside `metadata` is an unhashable key too",
    },
];
