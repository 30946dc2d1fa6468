//! Why an operation did nothing. The texts are the ones users have always read; a front end
//! may add a hint of its own to a store's error (the MCP server names its tools).

use skillpath_model::MemberRole;
use skillpath_store::StoreError;
use skillpath_store::keys::Role;

use crate::rules::Operation;

/// Why an operation did nothing.
#[derive(Debug, thiserror::Error)]
pub enum AppError {
    /// The server refuses every write.
    #[error("{}", read_only(*.0))]
    ReadOnly(Operation),
    /// The caller's role is not enough.
    #[error("{}", forbidden(*operation, key.as_deref(), *role))]
    Forbidden {
        /// What was asked.
        operation: Operation,
        /// The key asked with; `None`: the local user, or no key.
        key: Option<String>,
        /// The caller's role.
        role: Role,
    },
    /// The caller's role in the item's namespace is not enough (or they are no member).
    #[error("{}", not_in_namespace(what, namespace, *needed, *held))]
    NotInNamespace {
        /// What was asked (`writing`, `publishing`).
        what: &'static str,
        /// The namespace, `@name`.
        namespace: String,
        /// The least role it needs.
        needed: MemberRole,
        /// The caller's role there, if any.
        held: Option<MemberRole>,
    },
    /// A namespace that takes no writes: frozen or archived (the text says which and how to
    /// undo it).
    #[error("{0}")]
    Closed(String),
    /// A namespace that does not exist (or that the caller cannot see).
    #[error(
        "there is no namespace `{0}`: see `skillpath namespaces list`, or make it with `skillpath namespaces create {0}`"
    )]
    NoNamespace(String),
    /// What only an instance admin may do.
    #[error("only an instance admin may {0}")]
    NotAdmin(&'static str),
    /// What acts for a person, asked by a caller who is none (the command line names one).
    #[error("this acts for a person, and you are acting as none: name them with `--user HANDLE`")]
    NoPerson,
    /// A key whose person is disabled.
    #[error("`{0}` is disabled: an admin enables them again with `skillpath users enable {0}`")]
    Disabled(String),
    /// A key's role that is none.
    #[error("`{0}` is not a role: use `reader`, `author` or `admin`")]
    NotARole(String),
    /// A key's lifetime that does not read ([`skillpath_store::keys::parse_lifetime`]).
    #[error(transparent)]
    Lifetime(skillpath_store::keys::LifetimeError),
    /// A skill whose `SKILL.md` a loader would skip, with the errors why (each with its line).
    #[error(
        "the skill could not be loaded, so nothing was saved; fix these and save again: {}",
        .0.join("; ")
    )]
    Unloadable(Vec<String>),
    /// Structured data with a NUL character in a text or a key, at this path.
    #[error("`{0}` contains a NUL character (U+0000); a skill is text: remove it")]
    NulCharacter(String),
    /// Structured data that is not a skill's.
    #[error("the skill is not in the expected shape: {0}")]
    SpecShape(serde_json::Error),
    /// A skill's structured data that cannot be written as a skill.
    #[error("the skill cannot be written: {0}")]
    Unwritable(skillpath_core::golden_path::spec::SpecError),
    /// A package's structured data that cannot be written as a package.
    #[error("the package cannot be created: {0}")]
    UnwritablePackage(skillpath_core::golden_path::spec::SpecError),
    /// A skill's files the store would not take (a path that is not safe, twice the same).
    #[error(transparent)]
    Snapshot(StoreError),
    /// A skill with errors, one `- code: message` line each.
    #[error("the skill has errors; fix them and try again:\n{0}")]
    Invalid(String),
    /// A skill whose `SKILL.md` is not in the structured form an update's fields merge into.
    #[error("`{name}` cannot be edited as structured data: {source}")]
    NotStructured {
        /// The skill.
        name: String,
        /// What keeps it from the structured form.
        source: skillpath_core::golden_path::spec::SpecError,
    },
    /// A package to join that is none.
    #[error("{}", not_a_package(name, *is_skill))]
    NotAPackage {
        /// The name asked for.
        name: String,
        /// Whether it is a skill.
        is_skill: bool,
    },
    /// A package whose manifest cannot be read.
    #[error("the manifest of package `{0}` cannot be read; fix it before adding skills")]
    UnreadableManifest(String),
    /// A write no draft can hold, asked for by a caller whose writes wait for review.
    #[error(
        "this server reviews what authors write, and {what} cannot wait for review: ask a maintainer to {verb} `{name}`"
    )]
    NotReviewable {
        /// The write, as a noun (`a deletion`).
        what: &'static str,
        /// The write, as a verb (`delete`).
        verb: &'static str,
        /// The item it was asked for.
        name: String,
    },
    /// A skill's arguments that do not fit its parameters (a render limit among them).
    #[error(transparent)]
    Render(#[from] skillpath_core::golden_path::render::ArgumentsError),
    /// What the store said.
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl AppError {
    /// The store's error under it, for a front end that adds its own hint.
    pub fn store_error(&self) -> Option<&StoreError> {
        match self {
            AppError::Store(error) => Some(error),
            _ => None,
        }
    }
}

fn not_a_package(name: &str, is_skill: bool) -> String {
    if is_skill {
        format!("`{name}` is a skill, not an architecture package; read it with `get_skill`")
    } else {
        format!(
            "no architecture package named `{name}`; find packages with `list_architectures` or `analyze_requirements`"
        )
    }
}

fn read_only(operation: Operation) -> String {
    match operation {
        Operation::SaveFiles => "this server is read-only: it writes no skill".to_owned(),
        operation => format!(
            "`{}` writes, and this server is read-only",
            operation.name()
        ),
    }
}

fn forbidden(operation: Operation, key: Option<&str>, role: Role) -> String {
    let what = operation.what();
    let needed = operation.role();
    match key {
        Some(key) => format!(
            "{what} needs an API key with the `{needed}` role; the key `{key}` is a `{role}`"
        ),
        None => format!(
            "{what} needs an API key with the `{needed}` role (create one with `skillpath keys create --role {needed}`)"
        ),
    }
}

/// The sentence of [`AppError::NotInNamespace`].
fn not_in_namespace(
    what: &str,
    namespace: &str,
    needed: MemberRole,
    held: Option<MemberRole>,
) -> String {
    match held {
        Some(held) => format!(
            "{what} in `{namespace}` needs the role {needed} there, and you are {held}: ask one of its owners (`skillpath members list {namespace}`)"
        ),
        None => format!(
            "{what} in `{namespace}` needs the role {needed} there, and you are not a member (through this key): ask one of its owners to add you"
        ),
    }
}
