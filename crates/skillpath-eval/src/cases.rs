//! The queries an evaluation tries, and what each should choose. Two files hold them:
//!
//! - a skill's `evals/trigger-evals.json`, the format of the standard's description guide and
//!   of `skill-creator`: `[{"query": "...", "should_trigger": true|false}]`, a query that should
//!   choose the skill, or a near miss that should not (other fields, such as a run's results,
//!   are ignored);
//! - a library file (`--queries`): `[{"query": "...", "skill": "name" | null}]`, the skill a
//!   query should choose, or `null` when no skill of the library is right.
//!
//! Eval files are input like any other: a file that is not JSON, a row of the wrong shape, a
//! query too long or too many of them is refused with the file and the row (counted from 1),
//! before anything runs, within [`MAX_FILE_BYTES`], [`MAX_QUERIES`] and [`MAX_QUERY_BYTES`].

use std::fmt;

/// Where a skill keeps its trigger evals, relative to its folder.
pub const TRIGGER_EVALS: &str = "evals/trigger-evals.json";

/// The largest eval file read.
pub const MAX_FILE_BYTES: usize = 4 * 1024 * 1024;

/// The most queries one evaluation runs, over all its files.
pub const MAX_QUERIES: usize = 10_000;

/// The longest query, in bytes (a request an agent receives, not a document).
pub const MAX_QUERY_BYTES: usize = 2_000;

/// What a query should choose.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "kind", content = "skill", rename_all = "snake_case")]
pub enum Expected {
    /// This skill (a `should_trigger: true` row, or a library row naming it).
    Skill(String),
    /// Anything but this skill: a near miss of its own trigger evals.
    NotSkill(String),
    /// No skill: a library row whose `skill` is `null`.
    Nothing,
}

impl Expected {
    /// The skill the row names, if any.
    pub fn skill(&self) -> Option<&str> {
        match self {
            Expected::Skill(name) | Expected::NotSkill(name) => Some(name),
            Expected::Nothing => None,
        }
    }
}

/// One query to try.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Case {
    /// What the user typed.
    pub query: String,
    /// What it should choose.
    pub expected: Expected,
    /// The file it came from, as the user named it.
    pub file: String,
    /// Its row in that file, from 1.
    pub row: usize,
}

/// Why an eval file was refused: its file, the row when one is to blame, and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EvalError {
    /// The file, as the user named it.
    pub file: String,
    /// The row, from 1, when one is to blame.
    pub row: Option<usize>,
    /// What is wrong, and the fix.
    pub message: String,
}

impl fmt::Display for EvalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.row {
            Some(row) => write!(f, "`{}` row {row}: {}", self.file, self.message),
            None => write!(f, "`{}`: {}", self.file, self.message),
        }
    }
}

impl std::error::Error for EvalError {}

/// What is wrong with what a row expects; the message of its [`EvalError`].
#[derive(Debug, Clone, PartialEq, Eq)]
enum WrongExpectation {
    /// `should_trigger` is there but not a boolean: what it is, shortened.
    ShouldTriggerNotBool(String),
    /// No `should_trigger`.
    NoShouldTrigger,
    /// `skill` is there but neither a name nor null: what it is, shortened.
    SkillNotName(String),
    /// No `skill`.
    NoSkill,
}

impl fmt::Display for WrongExpectation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WrongExpectation::ShouldTriggerNotBool(other) => {
                write!(f, "`should_trigger` is {other}; it must be true or false")
            }
            WrongExpectation::NoShouldTrigger => {
                f.write_str("no `should_trigger`; give true or false")
            }
            WrongExpectation::SkillNotName(other) => {
                write!(f, "`skill` is {other}; it must be a skill's name or null")
            }
            WrongExpectation::NoSkill => {
                f.write_str("no `skill`; give a skill's name, or null when no skill is right")
            }
        }
    }
}

/// Reads the trigger evals of the skill `owner` from `bytes`, the file `file`.
pub fn read_trigger_evals(owner: &str, file: &str, bytes: &[u8]) -> Result<Vec<Case>, EvalError> {
    read_rows(
        file,
        bytes,
        "`should_trigger` (true or false)",
        |row| match row.get("should_trigger") {
            Some(serde_json::Value::Bool(true)) => Ok(Expected::Skill(owner.to_owned())),
            Some(serde_json::Value::Bool(false)) => Ok(Expected::NotSkill(owner.to_owned())),
            Some(other) => Err(WrongExpectation::ShouldTriggerNotBool(other.to_string())),
            None => Err(WrongExpectation::NoShouldTrigger),
        },
    )
}

/// Reads a library's queries from `bytes`, the file `file`.
pub fn read_library(file: &str, bytes: &[u8]) -> Result<Vec<Case>, EvalError> {
    read_rows(file, bytes, "`skill` (a name, or null)", |row| {
        match row.get("skill") {
            Some(serde_json::Value::String(name)) if !name.trim().is_empty() => {
                Ok(Expected::Skill(name.clone()))
            }
            Some(serde_json::Value::Null) => Ok(Expected::Nothing),
            Some(other) => Err(WrongExpectation::SkillNotName(shorten(&other.to_string()))),
            None => Err(WrongExpectation::NoSkill),
        }
    })
}

/// Refuses the first case that names a skill `known` does not hold.
pub fn check_known(cases: &[Case], known: impl Fn(&str) -> bool) -> Result<(), EvalError> {
    for case in cases {
        if let Some(name) = case.expected.skill()
            && !known(name)
        {
            return Err(EvalError {
                file: case.file.clone(),
                row: Some(case.row),
                message: format!(
                    "no skill named `{name}` is in the library; fix the name, or use null when no skill is right"
                ),
            });
        }
    }
    Ok(())
}

/// Refuses `cases` past [`MAX_QUERIES`], naming the file of the first query over it.
pub fn check_count(cases: &[Case]) -> Result<(), EvalError> {
    match cases.get(MAX_QUERIES) {
        Some(over) => Err(EvalError {
            file: over.file.clone(),
            row: Some(over.row),
            message: format!(
                "this is query {} of the evaluation; it runs {MAX_QUERIES} at most: split the files, or leave some out",
                MAX_QUERIES + 1
            ),
        }),
        None => Ok(()),
    }
}

/// The rows of an eval file: an array of objects with a `query` string, each read further by
/// `expected`, which names the field it needs (`wants`) in the error for a row that is not an
/// object.
fn read_rows(
    file: &str,
    bytes: &[u8],
    wants: &str,
    expected: impl Fn(&serde_json::Map<String, serde_json::Value>) -> Result<Expected, WrongExpectation>,
) -> Result<Vec<Case>, EvalError> {
    let refuse = |row: Option<usize>, message: String| EvalError {
        file: file.to_owned(),
        row,
        message,
    };
    if bytes.len() > MAX_FILE_BYTES {
        return Err(refuse(
            None,
            format!(
                "{} bytes, over the limit of {MAX_FILE_BYTES}; split it into smaller files",
                bytes.len()
            ),
        ));
    }
    let value: serde_json::Value = serde_json::from_slice(bytes).map_err(|error| {
        refuse(
            None,
            format!("not JSON ({error}); write an array of {{\"query\": …, {wants}}} objects"),
        )
    })?;
    let serde_json::Value::Array(rows) = value else {
        return Err(refuse(
            None,
            format!(
                "the file is not an array; write an array of {{\"query\": …, {wants}}} objects"
            ),
        ));
    };
    if rows.len() > MAX_QUERIES {
        return Err(refuse(
            Some(MAX_QUERIES + 1),
            format!(
                "the file has {} queries; an evaluation runs {MAX_QUERIES} at most: split it, or leave some out",
                rows.len()
            ),
        ));
    }
    rows.iter()
        .enumerate()
        .map(|(index, row)| {
            let number = index + 1;
            let serde_json::Value::Object(row) = row else {
                return Err(refuse(
                    Some(number),
                    format!(
                        "{} is not an object; write {{\"query\": …, {wants}}}",
                        shorten(&row.to_string())
                    ),
                ));
            };
            let query = match row.get("query") {
                Some(serde_json::Value::String(query)) if !query.trim().is_empty() => query,
                Some(serde_json::Value::String(_)) => {
                    return Err(refuse(Some(number), "the query is empty".to_owned()));
                }
                Some(other) => {
                    return Err(refuse(
                        Some(number),
                        format!("`query` is {}; it must be text", shorten(&other.to_string())),
                    ));
                }
                None => return Err(refuse(Some(number), "no `query`".to_owned())),
            };
            if query.len() > MAX_QUERY_BYTES {
                return Err(refuse(
                    Some(number),
                    format!(
                        "the query is {} bytes; the limit is {MAX_QUERY_BYTES} (a request, not a document)",
                        query.len()
                    ),
                ));
            }
            let expected =
                expected(row).map_err(|wrong| refuse(Some(number), wrong.to_string()))?;
            Ok(Case {
                query: query.clone(),
                expected,
                file: file.to_owned(),
                row: number,
            })
        })
        .collect()
}

/// At most 80 characters of `text`, for an error that quotes a value.
fn shorten(text: &str) -> String {
    match text.char_indices().nth(80) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(result: Result<Vec<Case>, EvalError>) -> String {
        result.expect_err("refused").to_string()
    }

    #[test]
    fn trigger_evals_are_read_with_their_rows() {
        let cases = read_trigger_evals(
            "pdf",
            "pdf/evals/trigger-evals.json",
            br#"[{"query": "fill this form", "should_trigger": true, "trigger_rate": 1},
                {"query": "print a page", "should_trigger": false}]"#,
        )
        .expect("read");
        assert_eq!(cases[0].expected, Expected::Skill("pdf".into()));
        assert_eq!(cases[1].expected, Expected::NotSkill("pdf".into()));
        assert_eq!(
            (cases[1].row, cases[1].file.as_str()),
            (2, "pdf/evals/trigger-evals.json")
        );
    }

    #[test]
    fn library_rows_name_a_skill_or_none() {
        let cases = read_library(
            "q.json",
            br#"[{"query": "a", "skill": "x"}, {"query": "b", "skill": null}]"#,
        )
        .expect("read");
        assert_eq!(cases[0].expected, Expected::Skill("x".into()));
        assert_eq!(cases[1].expected, Expected::Nothing);
    }

    #[test]
    fn bad_files_are_refused_with_the_file_and_the_row() {
        assert!(refused(read_library("q.json", b"{not json")).starts_with("`q.json`: not JSON"));
        assert!(refused(read_library("q.json", b"{}")).contains("not an array"));
        assert_eq!(
            refused(read_library(
                "q.json",
                br#"[{"query": "a", "skill": null}, 3]"#
            )),
            "`q.json` row 2: 3 is not an object; write {\"query\": …, `skill` (a name, or null)}"
        );
        assert_eq!(
            refused(read_library("q.json", br#"[{"skill": null}]"#)),
            "`q.json` row 1: no `query`"
        );
        assert!(
            refused(read_library("q.json", br#"[{"query": "a", "skill": 4}]"#))
                .starts_with("`q.json` row 1: `skill` is 4;")
        );
        assert!(
            refused(read_trigger_evals(
                "s",
                "t.json",
                br#"[{"query": "a", "should_trigger": "yes"}]"#
            ))
            .starts_with("`t.json` row 1: `should_trigger` is \"yes\";")
        );
        let long = format!(
            r#"[{{"query": "{}", "skill": null}}]"#,
            "x".repeat(1024 * 1024)
        );
        assert!(
            refused(read_library("q.json", long.as_bytes()))
                .contains("row 1: the query is 1048576 bytes")
        );
    }

    #[test]
    fn too_many_queries_are_refused_before_any_runs() {
        let many = format!(
            "[{}]",
            vec![r#"{"query": "a", "skill": null}"#; 100_000].join(",")
        );
        assert!(
            refused(read_library("q.json", many.as_bytes()))
                .starts_with("`q.json` row 10001: the file has 100000 queries")
        );
        let cases = read_library("q.json", br#"[{"query": "a", "skill": null}]"#).expect("read");
        let cases: Vec<Case> = cases
            .iter()
            .cycle()
            .take(MAX_QUERIES + 1)
            .cloned()
            .collect();
        assert!(check_count(&cases).is_err());
        assert!(check_count(&cases[..MAX_QUERIES]).is_ok());
    }

    #[test]
    fn a_row_naming_an_unknown_skill_is_refused() {
        let cases = read_library(
            "q.json",
            br#"[{"query": "a", "skill": "x"}, {"query": "b", "skill": "y"}]"#,
        )
        .expect("read");
        let error = check_known(&cases, |name| name == "x").expect_err("y is unknown");
        assert_eq!(error.row, Some(2));
        assert!(error.message.contains("no skill named `y`"), "{error}");
    }
}
