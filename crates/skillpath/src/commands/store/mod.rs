//! The commands that work on the skill store: opening it, running its async operations, and
//! printing its answers and errors. The commands that read and change what the store holds
//! (`list`, `show`, `rollback`, `publish`, `keys`, `usage`, …) are front ends over the
//! application ([`skillpath_app::App`]), as the store's owner ([`Owner`]), so that its rules
//! (and what a caller may see) are the server's and the studio's.

pub(crate) mod eval;
pub(crate) mod export;
pub(crate) mod import;
pub(crate) mod inspect;
pub(crate) mod keys;
pub(crate) mod mirror;
pub(crate) mod people;
pub(crate) mod releases;
pub(crate) mod review;
pub(crate) mod revise;
pub(crate) mod scan;
pub(crate) mod serve;
pub(crate) mod sign_in;
pub(crate) mod upgrade;
pub(crate) mod usage;

use std::future::Future;
use std::sync::Arc;

use skillpath_app::{App, AppOptions, Caller, Operation, Permit};
use skillpath_store::{ProjectView, Store, StoreError, location};

use crate::cli::{DbArgs, EmbeddingsArgs, OutputFormat};
use crate::error::CliError;
use crate::output::{self, ExitStatus};

/// The ranking `--embeddings` asks for: the model it names, read (and checked) before any
/// work starts; without one, the search's words alone.
pub(crate) fn meaning(args: &EmbeddingsArgs) -> anyhow::Result<skillpath_app::Meaning> {
    #[cfg(feature = "embeddings")]
    if let Some(folder) = &args.embeddings {
        return Ok(skillpath_app::Meaning::new(
            skillpath_embed::StaticModel::open(folder)?,
        ));
    }
    #[cfg(not(feature = "embeddings"))]
    let _ = args;
    Ok(skillpath_app::Meaning::default())
}

/// What a command's searches rank through, as the server's do
/// ([`skillpath_app::Catalog::search`]): with a model, the store's catalog and its
/// vectors; without one, an empty catalog, since the search alone needs nothing of it.
pub(crate) async fn searched(
    store: &dyn Store,
    meaning: &skillpath_app::Meaning,
) -> Result<skillpath_app::Catalog, StoreError> {
    if meaning.ranks() {
        return skillpath_app::Catalog::load(store, meaning, &skillpath_app::Channel::Head).await;
    }
    Ok(skillpath_app::Catalog::default())
}

/// Whether a command may make the database when there is none yet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Access {
    /// It stores skills or keys: a new database is made.
    Creates,
    /// It reads, or changes what is there: a database that does not exist is an error
    /// (exit 2), never made empty.
    Existing,
}

/// Opens the store the arguments name, as a server started in the current folder sees it (its
/// project's skills and the shared ones), and runs `work` with it on a small runtime.
/// Store errors a user can act on exit 1 with the error and its hint; others exit 2.
pub(crate) fn run<F, Fut>(db: &DbArgs, access: Access, work: F) -> anyhow::Result<ExitStatus>
where
    F: FnOnce(Box<dyn Store>) -> Fut,
    Fut: Future<Output = Result<ExitStatus, CliError>>,
{
    run_in(db, access, here()?, work)
}

/// [`run`] with the store seen as `view` shows it.
pub(crate) fn run_in<F, Fut>(
    db: &DbArgs,
    access: Access,
    view: ProjectView,
    work: F,
) -> anyhow::Result<ExitStatus>
where
    F: FnOnce(Box<dyn Store>) -> Fut,
    Fut: Future<Output = Result<ExitStatus, CliError>>,
{
    block_on(async {
        let store = match access {
            Access::Creates => location::open(db.db.as_deref(), &view).await?,
            Access::Existing => location::open_existing(db.db.as_deref(), &view).await?,
        };
        work(store).await
    })
}

/// Runs a command's `work` to its end; an error is printed with its hint, and its exit status
/// is the command's.
pub(crate) fn block_on(
    work: impl Future<Output = Result<ExitStatus, CliError>>,
) -> anyhow::Result<ExitStatus> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    match runtime.block_on(work) {
        Ok(status) => Ok(status),
        Err(error) => {
            let mut text = format!("error: {error}\n");
            if let Some(hint) = error.hint() {
                text.push_str(&format!("  = hint: {hint}\n"));
            }
            output::stderr(&text)?;
            Ok(error.exit_status())
        }
    }
}

/// The application a store command works through, and who the command line is to it: the
/// store's owner ([`Caller::owner`]), an admin whom nothing is hidden from.
pub(crate) struct Owner {
    /// The application over the opened store, without a catalog ([`App::for_command`]).
    pub(crate) app: App,
    caller: Caller,
}

impl Owner {
    /// The permit for `operation`, decided by the application's rules as for any caller.
    pub(crate) fn may(&self, operation: Operation) -> Result<Permit, CliError> {
        Ok(self.app.may(&self.caller, operation)?)
    }
}

/// How a command opens the application ([`run_as_owner`]).
pub(crate) struct AsOwner {
    /// Whether the command may make the database when there is none yet.
    pub(crate) access: Access,
    /// `--author`: whom the command's revisions and decisions are recorded as ([`author`]).
    pub(crate) author: Option<String>,
    /// `--audit-policy`: the policy the command's writes are audited by, set on the store
    /// before anything is written.
    pub(crate) audit: Option<skillpath_audit::Policy>,
    /// `--embeddings`: what the command's searches rank by; a model needs the catalog loaded
    /// ([`App::for_search`]).
    pub(crate) meaning: Option<skillpath_app::Meaning>,
}

impl AsOwner {
    /// A command on a database that exists, recorded (if it writes) as `$USER`, audited by the
    /// store's default policy, searching by the store's words.
    pub(crate) fn existing() -> AsOwner {
        AsOwner {
            access: Access::Existing,
            author: None,
            audit: None,
            meaning: None,
        }
    }
}

/// [`run`] through the application: opens the store, sets `as_owner`'s audit policy on it,
/// makes the command's application over it and runs `work` as the store's owner. Errors are
/// printed, and end the command, as [`run`]'s are.
pub(crate) fn run_as_owner<F, Fut>(
    db: &DbArgs,
    as_owner: AsOwner,
    work: F,
) -> anyhow::Result<ExitStatus>
where
    F: FnOnce(Owner) -> Fut,
    Fut: Future<Output = Result<ExitStatus, CliError>>,
{
    run_as_owner_in(db, here()?, as_owner, work)
}

/// [`run_as_owner`] with the store seen as `view` shows it.
pub(crate) fn run_as_owner_in<F, Fut>(
    db: &DbArgs,
    view: ProjectView,
    as_owner: AsOwner,
    work: F,
) -> anyhow::Result<ExitStatus>
where
    F: FnOnce(Owner) -> Fut,
    Fut: Future<Output = Result<ExitStatus, CliError>>,
{
    let AsOwner {
        access,
        author: named,
        audit,
        meaning,
    } = as_owner;
    run_in(db, access, view, move |store| async move {
        if let Some(policy) = audit {
            store.set_audit_policy(policy);
        }
        let store: Arc<dyn Store> = Arc::from(store);
        let app = match &meaning {
            Some(meaning) => App::for_search(store, meaning, AppOptions::default()).await?,
            None => App::for_command(store, AppOptions::default()),
        };
        let caller = Caller::owner(author(named));
        work(Owner { app, caller }).await
    })
}

/// The view of the project the current folder is in.
pub(crate) fn here() -> Result<ProjectView, StoreError> {
    let folder = std::env::current_dir().map_err(|source| StoreError::Io {
        context: "cannot read the current folder".to_owned(),
        source,
    })?;
    Ok(ProjectView::of(&folder))
}

/// Who a command records as the author: `named` (`--author`), else `$USER`, else `cli`.
pub(crate) fn author(named: Option<String>) -> String {
    named
        .or_else(|| std::env::var("USER").ok().filter(|user| !user.is_empty()))
        .unwrap_or_else(|| "cli".to_owned())
}

/// A progress bar of `length` steps on stderr, each said as `doing` and its message (hidden
/// when stderr is not a terminal).
pub(crate) fn progress_bar(length: u64, doing: &str) -> indicatif::ProgressBar {
    use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
    let progress = ProgressBar::with_draw_target(Some(length), ProgressDrawTarget::stderr());
    if !std::io::IsTerminal::is_terminal(&std::io::stderr()) {
        progress.set_draw_target(ProgressDrawTarget::hidden());
    }
    if let Ok(style) =
        ProgressStyle::with_template(&format!("{{bar:30}} {{pos}}/{{len}} {doing} {{wide_msg}}"))
    {
        progress.set_style(style);
    }
    progress
}

/// A failure to write the output, as a command's error.
pub(crate) fn io(source: std::io::Error) -> CliError {
    CliError::Output(source)
}

/// `value` as JSON for `--format json`.
pub(crate) fn to_json<T: serde::Serialize>(value: &T) -> Result<serde_json::Value, CliError> {
    serde_json::to_value(value).map_err(CliError::Json)
}

/// Prints `value` as pretty JSON, or `text` for people.
pub(crate) fn print(
    format: OutputFormat,
    value: &serde_json::Value,
    text: impl FnOnce() -> String,
) -> std::io::Result<()> {
    match format {
        OutputFormat::Json => output::stdout(&format!(
            "{}\n",
            serde_json::to_string_pretty(value).unwrap_or_default()
        )),
        OutputFormat::Text => output::stdout(&text()),
    }
}

/// A plain-text table: a header row and aligned columns; the last column is not padded.
pub(crate) fn table(headers: &[&str], rows: &[Vec<String>]) -> String {
    let columns = headers.len();
    let mut widths: Vec<usize> = headers.iter().map(|h| h.chars().count()).collect();
    for row in rows {
        for (index, cell) in row.iter().enumerate().take(columns) {
            widths[index] = widths[index].max(cell.chars().count());
        }
    }
    let mut out = String::new();
    let mut line = |cells: Vec<&str>| {
        let mut text = String::new();
        for (index, cell) in cells.iter().enumerate() {
            if index + 1 == cells.len() {
                text.push_str(cell);
            } else {
                text.push_str(cell);
                text.push_str(&" ".repeat(widths[index] - cell.chars().count() + 2));
            }
        }
        out.push_str(text.trim_end());
        out.push('\n');
    };
    line(headers.to_vec());
    for row in rows {
        line(row.iter().map(String::as_str).collect());
    }
    out
}

/// `text` cut to `max` characters with an ellipsis, on one line.
pub(crate) fn shorten(text: &str, max: usize) -> String {
    let one_line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if one_line.chars().count() <= max {
        one_line
    } else {
        format!(
            "{}…",
            one_line
                .chars()
                .take(max.saturating_sub(1))
                .collect::<String>()
        )
    }
}
