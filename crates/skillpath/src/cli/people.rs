//! The command line of people, namespaces, members, visibility, stars and the governance log.

use clap::{Args, Subcommand, ValueEnum};
use skillpath_model::{MemberRole, Namespace, Visibility};

use super::{DbArgs, OutputFormat};

/// A namespace as typed, `@team-a` or `team-a`.
pub(crate) fn namespace(text: &str) -> Result<Namespace, String> {
    Namespace::parse(text).map_err(|error| error.to_string())
}

#[derive(Debug, Args)]
pub(crate) struct UsersArgs {
    #[command(subcommand)]
    pub(crate) command: UsersCommand,
}

#[derive(Debug, Subcommand)]
pub(crate) enum UsersCommand {
    /// Add a person, with their own namespace `@HANDLE` (of which they are the owner).
    Create(UsersCreateArgs),
    /// List the people: handle, name, admin, disabled.
    List(FormatArgs),
    /// Disable a person: their keys stop working at their next request, on every server;
    /// nothing of theirs is lost.
    Disable(HandleArgs),
    /// Enable a disabled person again.
    Enable(HandleArgs),
}

#[derive(Debug, Args)]
pub(crate) struct UsersCreateArgs {
    /// Their handle: lowercase letters, digits and single hyphens, as a skill's name.
    #[arg(value_name = "HANDLE")]
    pub(crate) handle: String,
    /// Their name as shown [default: the handle].
    #[arg(long = "display-name", value_name = "NAME", default_value = "")]
    pub(crate) display_name: String,
    /// Make them an instance admin: people, namespaces, every log entry.
    #[arg(long)]
    pub(crate) admin: bool,
    #[command(flatten)]
    pub(crate) common: FormatArgs,
}

#[derive(Debug, Args)]
pub(crate) struct HandleArgs {
    /// The person's handle.
    #[arg(value_name = "HANDLE")]
    pub(crate) handle: String,
    #[command(flatten)]
    pub(crate) common: FormatArgs,
}

/// The database and the output format.
#[derive(Debug, Args)]
pub(crate) struct FormatArgs {
    #[command(flatten)]
    pub(crate) db: DbArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t = OutputFormat::Text)]
    pub(crate) format: OutputFormat,
}

#[derive(Debug, Args)]
pub(crate) struct NamespacesArgs {
    #[command(subcommand)]
    pub(crate) command: NamespacesCommand,
}

#[derive(Debug, Subcommand)]
pub(crate) enum NamespacesCommand {
    /// Make a team's namespace, `@NAME`.
    Create(NamespaceCreateArgs),
    /// List the namespaces: kind, settings, members and items.
    List(FormatArgs),
    /// Show a namespace: its settings, members and items.
    Show(NamespaceArgs),
    /// Freeze a namespace: it takes no writes until thawed.
    Freeze(NamespaceArgs),
    /// Thaw a frozen namespace.
    Thaw(NamespaceArgs),
    /// Archive a namespace: hidden from listings and search, its items still readable by its
    /// members; it takes no writes.
    Archive(NamespaceArgs),
    /// Bring an archived namespace back.
    Unarchive(NamespaceArgs),
    /// Whether what the namespace's authors write waits for a maintainer as a draft.
    Review(NamespaceReviewArgs),
    /// Delete an empty team namespace (one with items is archived instead: nothing is lost).
    Delete(NamespaceArgs),
}

#[derive(Debug, Args)]
pub(crate) struct NamespaceCreateArgs {
    /// The namespace, `@name` (lowercase letters, digits and single hyphens).
    #[arg(value_name = "@NAMESPACE", value_parser = namespace)]
    pub(crate) name: Namespace,
    /// Its first owner, who manages its members and settings.
    #[arg(long, value_name = "HANDLE")]
    pub(crate) owner: Option<String>,
    #[command(flatten)]
    pub(crate) common: FormatArgs,
}

#[derive(Debug, Args)]
pub(crate) struct NamespaceArgs {
    /// The namespace, `@name`.
    #[arg(value_name = "@NAMESPACE", value_parser = namespace)]
    pub(crate) name: Namespace,
    #[command(flatten)]
    pub(crate) common: FormatArgs,
}

/// Whether a namespace's authors write drafts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum NamespaceReview {
    /// Their writes are drafts for a maintainer to publish.
    Drafts,
    /// Their writes are served at once.
    Direct,
    /// As `serve --review` says.
    Server,
}

#[derive(Debug, Args)]
pub(crate) struct NamespaceReviewArgs {
    /// The namespace, `@name`.
    #[arg(value_name = "@NAMESPACE", value_parser = namespace)]
    pub(crate) name: Namespace,
    /// What its authors' writes are.
    #[arg(value_enum, value_name = "SETTING")]
    pub(crate) setting: NamespaceReview,
    #[command(flatten)]
    pub(crate) common: FormatArgs,
}

#[derive(Debug, Args)]
pub(crate) struct MembersArgs {
    #[command(subcommand)]
    pub(crate) command: MembersCommand,
}

#[derive(Debug, Subcommand)]
pub(crate) enum MembersCommand {
    /// List a namespace's members and their roles.
    List(NamespaceArgs),
    /// Add a person to a namespace with a role.
    Add(MemberRoleArgs),
    /// Change a member's role (a namespace keeps at least one owner).
    Set(MemberRoleArgs),
    /// Remove a member (a namespace keeps at least one owner).
    Remove(MemberArgs),
}

/// A member's role.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum MemberRoleArg {
    /// Reads the namespace's items.
    Reader,
    /// Also writes them (as drafts where the namespace reviews).
    Author,
    /// Also reviews and publishes drafts.
    Maintainer,
    /// Also manages members and settings.
    Owner,
}

impl From<MemberRoleArg> for MemberRole {
    fn from(role: MemberRoleArg) -> Self {
        match role {
            MemberRoleArg::Reader => MemberRole::Reader,
            MemberRoleArg::Author => MemberRole::Author,
            MemberRoleArg::Maintainer => MemberRole::Maintainer,
            MemberRoleArg::Owner => MemberRole::Owner,
        }
    }
}

#[derive(Debug, Args)]
pub(crate) struct MemberRoleArgs {
    /// The namespace, `@name`.
    #[arg(value_name = "@NAMESPACE", value_parser = namespace)]
    pub(crate) namespace: Namespace,
    /// The person's handle.
    #[arg(value_name = "HANDLE")]
    pub(crate) handle: String,
    /// Their role there.
    #[arg(long, value_enum)]
    pub(crate) role: MemberRoleArg,
    #[command(flatten)]
    pub(crate) common: FormatArgs,
}

#[derive(Debug, Args)]
pub(crate) struct MemberArgs {
    /// The namespace, `@name`.
    #[arg(value_name = "@NAMESPACE", value_parser = namespace)]
    pub(crate) namespace: Namespace,
    /// The member's handle.
    #[arg(value_name = "HANDLE")]
    pub(crate) handle: String,
    #[command(flatten)]
    pub(crate) common: FormatArgs,
}

/// Who sees an item.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum VisibilityArg {
    /// Its author and the namespace's maintainers and owners.
    Private,
    /// Every member of its namespace.
    Namespace,
    /// Every person of the instance.
    Public,
}

impl From<VisibilityArg> for Visibility {
    fn from(visibility: VisibilityArg) -> Self {
        match visibility {
            VisibilityArg::Private => Visibility::Private,
            VisibilityArg::Namespace => Visibility::Namespace,
            VisibilityArg::Public => Visibility::Public,
        }
    }
}

#[derive(Debug, Args)]
pub(crate) struct VisibilityArgs {
    /// The item: `@namespace/name`, or a name alone for `@global`.
    #[arg(value_name = "ITEM")]
    pub(crate) item: String,
    /// Who sees it.
    #[arg(value_enum, value_name = "VISIBILITY")]
    pub(crate) visibility: VisibilityArg,
    #[command(flatten)]
    pub(crate) common: FormatArgs,
}

#[derive(Debug, Args)]
pub(crate) struct StarArgs {
    /// The item: `@namespace/name`, or a name alone for `@global`.
    #[arg(value_name = "ITEM")]
    pub(crate) item: String,
    /// The person whose star it is (the command line acts for no person).
    #[arg(long, value_name = "HANDLE")]
    pub(crate) user: String,
    #[command(flatten)]
    pub(crate) common: FormatArgs,
}

/// Where a new item goes, for the commands that create items.
#[derive(Debug, Clone, Args)]
pub(crate) struct PlacementArgs {
    /// The namespace the new items go into (the instance's `@global` when not given).
    #[arg(long, value_name = "@NAMESPACE", value_parser = namespace)]
    pub(crate) namespace: Option<Namespace>,
    /// Who sees the new items [default: namespace, its members].
    #[arg(long, value_enum)]
    pub(crate) visibility: Option<VisibilityArg>,
}

impl PlacementArgs {
    /// The placement these say.
    pub(crate) fn placement(&self) -> skillpath_model::Placement {
        skillpath_model::Placement {
            namespace: self.namespace.clone().unwrap_or_else(Namespace::global),
            visibility: self.visibility.map(Into::into).unwrap_or_default(),
        }
    }
}

#[derive(Debug, Args)]
pub(crate) struct LogArgs {
    #[command(subcommand)]
    pub(crate) command: Option<LogCommand>,
    /// Only the entries about this namespace, its items and members.
    #[arg(long, value_name = "@NAMESPACE", value_parser = namespace)]
    pub(crate) namespace: Option<Namespace>,
    /// Only the entries at or after this time (RFC 3339, e.g. `2026-12-01` or
    /// `2026-12-01T09:00:00Z`).
    #[arg(long, value_name = "TIME")]
    pub(crate) since: Option<String>,
    #[command(flatten)]
    pub(crate) db: DbArgs,
    /// Output format: a table, one JSON array, or one JSON object per line (an export).
    #[arg(long, value_enum, default_value_t = LogFormat::Text)]
    pub(crate) format: LogFormat,
}

#[derive(Debug, Subcommand)]
pub(crate) enum LogCommand {
    /// Check the log's chain of digests: every entry follows the one before it, unchanged.
    ///
    /// Exit status: 0 when the chain holds, 1 when it breaks (the first broken entry is
    /// named), 2 for usage or database errors.
    Verify(FormatArgs),
}

/// How `skillpath log` prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum LogFormat {
    /// A table, for people.
    Text,
    /// One JSON array.
    Json,
    /// One JSON object per line.
    Jsonl,
}

#[derive(Debug, Args)]
pub(crate) struct UpgradeArgs {
    /// The namespace a store made before namespaces becomes: its items join it and its keys'
    /// people become its members (made as a team's namespace) [default: the instance's
    /// global namespace].
    #[arg(long, value_name = "@NAMESPACE", value_parser = namespace)]
    pub(crate) namespace: Option<Namespace>,
    #[command(flatten)]
    pub(crate) common: FormatArgs,
}
