//! Why a tool call failed ([`ToolError`]), and its text as the tool's error result: a store's
//! error with a hint an agent can act on (in terms of this server's tools), any other as the
//! application says it. A leaf: the tools, the resources, the server's state and the studio
//! all use it.

use skillpath_app::AppError;
use skillpath_store::StoreError;

use crate::pagination::InvalidCursor;

/// Why a built-in tool or a skill's tool could not answer: the text of its error result
/// (`isError`) is this error's message, written for the model to act on.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ToolError {
    /// The arguments do not fit the tool's parameters.
    #[error(transparent)]
    Argument(#[from] ArgumentError),
    /// The application refused or could not do the operation; a store's error carries the
    /// hint [`store_error`] gives it.
    #[error("{}", app_error_text(.0))]
    App(#[from] AppError),
    /// No skill has the name asked for.
    #[error("no skill named `{0}`; find skills with `search_skills` or `list_skills`")]
    NoSuchSkill(String),
    /// A package's manifest that the catalog could not read.
    #[error(
        "the manifest of package `{0}` cannot be read; `skillpath validate` names its problems"
    )]
    UnreadableManifest(String),
    /// A listing's cursor that no page of it gave.
    #[error(transparent)]
    Cursor(#[from] InvalidCursor),
    /// An answer that could not be written as JSON.
    #[error(transparent)]
    Json(#[from] serde_json::Error),
}

impl From<StoreError> for ToolError {
    fn from(error: StoreError) -> Self {
        ToolError::App(AppError::Store(error))
    }
}

/// One argument (or the arguments' shape) that does not fit a tool's parameters, and what it
/// must be.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ArgumentError {
    /// The arguments as a whole are not the object the parameters describe.
    #[error("the arguments are not in the expected shape: {0}")]
    Shape(String),
    /// The argument at `path` (`limit`, `arguments.port`) does not fit.
    #[error("argument `{path}`: {problem}")]
    Field {
        /// Where the argument is in the arguments object.
        path: String,
        /// What is wrong with it, and what it must be.
        problem: String,
    },
}

/// A store's error as a tool's error text, with a hint an agent can act on: a hint that names a
/// `skillpath` command (written for the command line) becomes the built-in tool that does the
/// same, or, where no tool does, says that the user can run the command.
pub(crate) fn store_error(error: &StoreError) -> String {
    match agent_hint(error) {
        Some(hint) => format!("{error}\nhint: {hint}"),
        None => error.to_string(),
    }
}

/// An operation's error as a tool's error text: a store's with the hint `store_error` gives
/// it, any other as the application says it. The studio shows the same text.
pub fn app_error(error: AppError) -> String {
    app_error_text(&error)
}

fn app_error_text(error: &AppError) -> String {
    match error {
        AppError::Store(error) => store_error(error),
        error => error.to_string(),
    }
}
/// The hint for an agent that met `error`: the store's hint, in terms of this server's tools.
fn agent_hint(error: &StoreError) -> Option<String> {
    Some(match error {
        StoreError::StaleRevision { name, actual, .. } => format!(
            "read revision {actual} of `{name}` (`get_skill`), apply your change to it, and write again with that revision"
        ),
        StoreError::NotFound {
            revision: Some(_), ..
        } => "see its revisions with `skill_history`".to_owned(),
        StoreError::NotFound { .. } => "list the skills with `list_skills`".to_owned(),
        StoreError::KeyNotFound(_) => "list the keys with `list_api_keys`".to_owned(),
        StoreError::DraftNotFound { .. } => "list the drafts with `list_drafts`".to_owned(),
        StoreError::StaleDraft { actual, .. } => format!(
            "reject it with `reject_skill`, saying that it must be made again on revision {actual}"
        ),
        StoreError::AuditRefused { .. } => "change the content so that the findings above are gone (what is harmful there, e.g. a download piped into a shell, hidden characters, an instruction to hide actions from the user), then write it again; if it must stay as it is, the person who runs this server decides".to_owned(),
        StoreError::KeyExists(_) => {
            "choose another name, or revoke the old key first with `revoke_api_key`".to_owned()
        }
        _ => {
            let hint = error.hint()?;
            if hint.contains("`skillpath ") {
                format!("no tool of this server does it, but the user can: {hint}")
            } else {
                hint
            }
        }
    })
}
